/*
 * observe.h — what code mode tells the metrics and the current request about its decisions.
 *
 * Owns: reading each audit record as it is written (the one place every decision passes) to
 * count denials by reason and approvals by outcome and note the decision and rows on the current
 * request (core/request.h); the validate/execute histograms. Does not own: the records themselves
 * (pipeline.c, runtime.c), the registry (core/), choosing the language label (pipeline.c: a
 * configured language, else "unknown", so a client's text never becomes a label).
 */
#ifndef SLUICE_CODEMODE_OBSERVE_H
#define SLUICE_CODEMODE_OBSERVE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* What an audit record says that is counted and noted: its event ("validate", "deny", ...),
 * "decision" (NULL: none), "rows" (-1: none), the reason a refusal names ("reason", else the rule
 * of the first of its "violations"; NULL: none) and how an approval was decided ("via"; NULL:
 * none). */
typedef struct sluice_codemode_seen {
    const char *event;
    const char *decision;
    int64_t rows;
    const char *reason;
    const char *via;
} sluice_codemode_seen;

/* What the record of event with fields says (its strings borrowed); fields may be NULL. */
sluice_codemode_seen sluice_codemode_seen_of(const char *event, const json_t *fields);

/* Counts what a record says (seen) and notes its decision and rows on the current request.
 * Event NULL: nothing. The record is stamped with the request's id by its writer
 * (codemode/runtime.c). */
void sluice_codemode_observe_record(const sluice_codemode_seen *seen);

/* Observes ns in the validate (execute false) or execute histogram under label, a configured
 * language's name or "unknown" (never the client's text). */
void sluice_codemode_observe_time(const char *label, bool execute, int64_t ns);

#endif
