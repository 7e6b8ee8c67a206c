/*
 * http_admin_approval.c — the admin approval endpoint (see http_admin_approval.h).
 */
#include "transport/http_admin_approval.h"

#include "codemode/approval_gate.h"
#include "state/approval.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int answer(sluice_arena *arena, const char **out_body, int status, json_t *doc)
{
    char *text = doc != NULL ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    *out_body = text != NULL ? sluice_arena_strdup(arena, text) : NULL;
    free(text);
    return status;
}

static int fail(sluice_arena *arena, const char **out_body, int status, const char *message)
{
    return answer(arena, out_body, status, json_pack("{s:s}", "error", message));
}

/* The decision in body: 1 approve, 0 reject, -1 malformed; *who the optional "as". */
static int decision_of(const char *body, size_t len, sluice_arena *arena, const char **who)
{
    json_t *doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
    const char *d = json_string_value(json_object_get(doc, "decision"));
    const json_t *as = json_object_get(doc, "as");
    int verdict = d == NULL                   ? -1
                  : strcmp(d, "approve") == 0 ? 1
                  : strcmp(d, "reject") == 0  ? 0
                                              : -1;
    if (as != NULL &&
        (!json_is_string(as) || json_string_length(as) == 0 || json_string_length(as) > 100))
        verdict = -1;
    *who = as != NULL && verdict >= 0 ? sluice_arena_strdup(arena, json_string_value(as)) : "admin";
    json_decref(doc);
    return *who != NULL ? verdict : -1;
}

int sluice_approval_http_decide(sluice_runtime *rt,
                                const char *id,
                                const char *body,
                                size_t len,
                                sluice_arena *arena,
                                const char **out_body)
{
    if (!sluice_approval_id_valid(id))
        return fail(arena, out_body, 404, "not an approval id (32 lower-case hex digits)");
    const char *who = NULL;
    int verdict = decision_of(body, len, arena, &who);
    if (verdict < 0)
        return fail(arena, out_body, 400,
                    "body must be {\"decision\": \"approve\" | \"reject\"} (optionally \"as\": "
                    "\"name\")");
    const sluice_approval_decision decision = { id, verdict == 1, who, true };
    sluice_approval d;
    sluice_error err = { 0 };
    sluice_status st =
        sluice_approval_decide(rt->approvals, &decision, sluice_runtime_now_s(rt), &d, arena, &err);
    if (st == SLUICE_OK)
        st = sluice_approval_gate_audit(rt, arena, &d, "admin-http", &err);
    if (st != SLUICE_OK)
        return fail(arena, out_body,
                    st == SLUICE_E_NOT_FOUND ? 404
                    : st == SLUICE_E_DENIED  ? 409
                                             : 500,
                    err.message != NULL ? err.message : "failed");
    return answer(arena, out_body, 200,
                  json_pack("{s:s, s:s, s:s}", "id", d.id, "state",
                            sluice_approval_state_name(d.state), "decided_by", d.decided_by));
}
