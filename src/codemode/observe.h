/*
 * observe.h — what code mode tells the metrics and the current request about its decisions.
 *
 * Owns: reading each audit record as it is written (the one place every decision passes) to
 * count denials by reason and approvals by outcome, note the decision and rows on the current
 * request (core/request.h) and stamp the record with that request's id; the validate/execute
 * histograms. Does not own: the records themselves (pipeline.c, runtime.c), the registry
 * (core/), choosing the language label (pipeline.c: a configured language, else "unknown", so a
 * client's text never becomes a label).
 */
#ifndef SLUICE_CODEMODE_OBSERVE_H
#define SLUICE_CODEMODE_OBSERVE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* Adds "request_id" to fields (when a request is current) and counts what the record says.
 * fields may be NULL (nothing happens). Never fails: an id that cannot be added is left out. */
void sluice_codemode_observe_record(const char *event, json_t *fields);

/* Observes ns in the validate (execute false) or execute histogram under label, a configured
 * language's name or "unknown" (never the client's text). */
void sluice_codemode_observe_time(const char *label, bool execute, int64_t ns);

#endif
