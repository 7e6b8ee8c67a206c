/*
 * observe.c — code mode's decisions as metrics and request notes (see observe.h).
 */
#include "codemode/observe.h"

#include "core/metrics.h"
#include "core/request.h"

#include <string.h>

sluice_codemode_seen sluice_codemode_seen_of(const char *event, const json_t *fields)
{
    const char *reason = json_string_value(json_object_get(fields, "reason"));
    if (reason == NULL) { /* a refused validation: the rule of its first violation */
        const json_t *first = json_array_get(json_object_get(fields, "violations"), 0);
        reason = json_string_value(json_object_get(first, "rule"));
    }
    const json_t *rows = json_object_get(fields, "rows");
    return (sluice_codemode_seen){
        .event = event,
        .decision = json_string_value(json_object_get(fields, "decision")),
        .rows = json_is_integer(rows) ? (int64_t)json_integer_value(rows) : -1,
        .reason = reason,
        .via = json_string_value(json_object_get(fields, "via")),
    };
}

/* "approval" records: pending = asked; approved/rejected through elicitation are decisions
 * (an administrator's decision is counted once, by its "approval_decision" record). */
static void count_approval(const sluice_codemode_seen *seen)
{
    const char *decision = seen->decision;
    if (decision == NULL)
        return;
    if (strcmp(seen->event, "approval_decision") == 0) {
        sluice_metric_inc(SLUICE_METRIC_APPROVALS, decision, NULL, NULL);
        return;
    }
    if (strcmp(decision, "pending") == 0)
        sluice_metric_inc(SLUICE_METRIC_APPROVALS, "requested", NULL, NULL);
    else if (seen->via != NULL && strcmp(seen->via, "elicitation") == 0)
        sluice_metric_inc(SLUICE_METRIC_APPROVALS, decision, NULL, NULL);
}

void sluice_codemode_observe_record(const sluice_codemode_seen *seen)
{
    const char *event = seen->event;
    if (event == NULL)
        return;
    sluice_request_note(seen->decision, seen->rows);
    if (strcmp(event, "deny") == 0)
        sluice_metric_inc(SLUICE_METRIC_DENIALS, seen->reason != NULL ? seen->reason : "unknown",
                          NULL, NULL);
    else if (strncmp(event, "approval", 8) == 0)
        count_approval(seen);
}

void sluice_codemode_observe_time(const char *label, bool execute, int64_t ns)
{
    sluice_metric_observe_ns(
        execute ? SLUICE_METRIC_EXECUTE_SECONDS : SLUICE_METRIC_VALIDATE_SECONDS, ns, label, NULL);
}
