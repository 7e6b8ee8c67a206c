/*
 * guard.c — what every query-mode operation passes on its way (see internal.h): the policy check
 * of the sources it reads or loads, and its audit record. Shared by the operations (querymode.c),
 * the loader (loader.c) and auto-load (autoload.c); it calls none of them, so the operations sit
 * above the steps they share.
 */
#include "policy/policy.h"
#include "querymode/internal.h"

const char *sluice_qm_user_of(const sluice_qm_caller *c)
{
    return c->identity != NULL && c->identity->user_id != NULL ? c->identity->user_id : "";
}

sluice_status sluice_qm_audit(sluice_querymode *qm,
                              sluice_arena *arena,
                              const sluice_qm_caller *c,
                              const char *event,
                              json_t *fields,
                              sluice_error *err)
{
    return sluice_runtime_audit(qm->rt, arena, c, event, fields, err);
}

sluice_status sluice_qm_policy_read(sluice_querymode *qm,
                                    sluice_arena *arena,
                                    const sluice_qm_caller *caller,
                                    sluice_codefacts *facts,
                                    sluice_error *err)
{
    const sluice_policy *policy = qm->policy;
    if (policy == NULL || !sluice_policy_active(policy))
        return SLUICE_OK;
    sluice_policy_decision d = { 0 };
    sluice_status st = sluice_policy_evaluate(policy, arena, caller->identity,
                                              sluice_policy_route_for(policy, caller->identity),
                                              SLUICE_ACTION_READ, facts, &d, err);
    json_decref(d.request);
    if (st != SLUICE_OK)
        return st;
    if (!d.allow)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "the policy does not allow you to read these sources%s%s",
                                d.reason_count > 0 ? ": " : "",
                                d.reason_count > 0 && d.reasons[0].annotation != NULL
                                    ? d.reasons[0].annotation
                                    : (d.reason_count > 0 ? d.reasons[0].id : ""));
    return SLUICE_OK;
}

sluice_status sluice_qm_policy_source(sluice_querymode *qm,
                                      sluice_arena *arena,
                                      const sluice_qm_caller *caller,
                                      const sluice_config_source *src,
                                      sluice_error *err)
{
    const sluice_policy *policy = qm->policy;
    if (policy == NULL || !sluice_policy_active(policy))
        return SLUICE_OK;
    sluice_codefacts *facts = sluice_codefacts_new(arena, "sql");
    if (facts == NULL ||
        sluice_codefacts_list_add(facts, &facts->resources_read, src->name) != SLUICE_OK)
        return SLUICE_E_NOMEM;
    return sluice_qm_policy_read(qm, arena, caller, facts, err);
}
