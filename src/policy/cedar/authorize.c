/*
 * authorize.c — combines policy results into a decision, exactly as Cedar does.
 *
 * Owns: default deny; allow iff some permit is satisfied and no forbid is; a policy whose
 * evaluation fails is skipped and reported; the determining policies (satisfied forbids when
 * denied by a forbid, else satisfied permits).
 * Does not own: expression semantics (eval.c).
 */
#include "policy/cedar/ast.h"

typedef enum outcome { NOT_SATISFIED, SATISFIED, FAILED } outcome;

/* Scope, then every condition in order; && semantics, so a false condition stops the rest. */
static outcome evaluate_policy(cedar_eval *ev, const sluice_cedar_policy *p)
{
    if (!sluice_cedar_scope_matches(ev, p))
        return NOT_SATISFIED;
    for (uint32_t i = 0; i < p->nconds; i++) {
        sluice_cedar_value v;
        ev->error = NULL;
        if (!sluice_cedar_eval(ev, p->conds[i].expr, &v))
            return FAILED;
        if (v.kind != SLUICE_CEDAR_BOOL) {
            ev->error = sluice_arena_printf(ev->arena, "type error: expected bool, got %s",
                                            sluice_cedar_kind_name(v.kind));
            if (ev->error == NULL)
                ev->error = "type error: expected bool";
            return FAILED;
        }
        if (v.u.b == p->conds[i].unless)
            return NOT_SATISFIED;
    }
    return SATISFIED;
}

sluice_status sluice_cedar_is_authorized(const sluice_cedar_policyset *set,
                                         const sluice_cedar_entities *entities,
                                         const sluice_cedar_request *request,
                                         sluice_arena *arena,
                                         sluice_cedar_decision *out,
                                         sluice_error *err)
{
    sluice_error_clear(err);
    if (request->context.kind != SLUICE_CEDAR_RECORD)
        return sluice_error_set(err, arena, SLUICE_E_INVALID, "the context must be a record");
    cedar_eval ev = { .entities = entities, .request = request, .arena = arena };
    const sluice_cedar_uid *uids[3] = { &request->principal, &request->action, &request->resource };
    for (int v = 0; v < 3; v++) {
        ev.vars[v].kind = SLUICE_CEDAR_ENTITY;
        ev.vars[v].u.uid = uids[v];
    }
    ev.vars[VAR_CONTEXT] = request->context;

    size_t n = set->count ? set->count : 1;
    const sluice_cedar_policy **permits = sluice_arena_alloc(arena, n * sizeof(*permits));
    const sluice_cedar_policy **forbids = sluice_arena_alloc(arena, n * sizeof(*forbids));
    sluice_cedar_policy_error *errors = sluice_arena_alloc(arena, n * sizeof(*errors));
    if (permits == NULL || forbids == NULL || errors == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory while authorizing");
    size_t npermit = 0, nforbid = 0, nerror = 0;
    for (size_t i = 0; i < set->count; i++) {
        const sluice_cedar_policy *p = set->items[i];
        switch (evaluate_policy(&ev, p)) {
        case SATISFIED:
            if (p->forbid)
                forbids[nforbid++] = p;
            else
                permits[npermit++] = p;
            break;
        case FAILED:
            errors[nerror].policy = p;
            errors[nerror++].message = ev.error != NULL ? ev.error : "evaluation error";
            break;
        case NOT_SATISFIED:
            break;
        }
    }
    out->allow = nforbid == 0 && npermit > 0;
    out->determining = nforbid > 0 ? forbids : permits;
    out->determining_count = nforbid > 0 ? nforbid : npermit;
    out->errors = errors;
    out->error_count = nerror;
    return SLUICE_OK;
}
