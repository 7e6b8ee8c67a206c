/*
 * observe.c — code mode's decisions as metrics and request notes (see observe.h).
 */
#include "codemode/observe.h"

#include "core/metrics.h"
#include "core/request.h"

#include <string.h>

/* The reason a "deny" record gives: an execute refusal names it, a refused validation has the
 * rule of its first violation. */
static const char *denial_reason(const json_t *fields)
{
    const char *reason = json_string_value(json_object_get(fields, "reason"));
    if (reason != NULL)
        return reason;
    const json_t *first = json_array_get(json_object_get(fields, "violations"), 0);
    const char *rule = json_string_value(json_object_get(first, "rule"));
    return rule != NULL ? rule : "unknown";
}

/* "approval" records: pending = asked; approved/rejected through elicitation are decisions
 * (an administrator's decision is counted once, by its "approval_decision" record). */
static void count_approval(const char *event, const char *decision, const json_t *fields)
{
    if (decision == NULL)
        return;
    if (strcmp(event, "approval_decision") == 0) {
        sluice_metric_inc(SLUICE_METRIC_APPROVALS, decision, NULL, NULL);
        return;
    }
    const char *via = json_string_value(json_object_get(fields, "via"));
    if (strcmp(decision, "pending") == 0)
        sluice_metric_inc(SLUICE_METRIC_APPROVALS, "requested", NULL, NULL);
    else if (via != NULL && strcmp(via, "elicitation") == 0)
        sluice_metric_inc(SLUICE_METRIC_APPROVALS, decision, NULL, NULL);
}

void sluice_codemode_observe_record(const char *event, json_t *fields)
{
    if (fields == NULL || event == NULL)
        return;
    const char *decision = json_string_value(json_object_get(fields, "decision"));
    const json_t *rows = json_object_get(fields, "rows");
    sluice_request_note(decision, json_is_integer(rows) ? (int64_t)json_integer_value(rows) : -1);
    if (strcmp(event, "deny") == 0)
        sluice_metric_inc(SLUICE_METRIC_DENIALS, denial_reason(fields), NULL, NULL);
    else if (strncmp(event, "approval", 8) == 0)
        count_approval(event, decision, fields);
    const char *id = sluice_request_current_id();
    if (id != NULL)
        json_object_set_new(fields, "request_id", json_string(id));
}

void sluice_codemode_observe_time(const char *label, bool execute, int64_t ns)
{
    sluice_metric_observe_ns(
        execute ? SLUICE_METRIC_EXECUTE_SECONDS : SLUICE_METRIC_VALIDATE_SECONDS, ns, label, NULL);
}
