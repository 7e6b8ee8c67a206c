/*
 * present.h — how execution results reach the client: structuredContent for programs, and a
 * text rendering for the model that fences the rows as untrusted data.
 *
 * Owns: both renderings, shared by execute_code and curated tools. Does not own: deciding what
 * may be shown (the analyzer and the pipeline's output guard did that).
 */
#ifndef SLUICE_CODEMODE_PRESENT_H
#define SLUICE_CODEMODE_PRESENT_H

#include "exec/executor.h"

#include <jansson.h>

/* {columns:[{name,type}], rows, row_count, truncated, elapsed_ms}, or for a value
 * {value, truncated, elapsed_ms[, failed_calls]}; new reference, NULL when out of memory. */
json_t *sluice_present_result_json(const sluice_exec_result *r);

/* The same answer with rows as a splice placeholder of r->rows_text (core/json_splice.h)
 * instead of a tree: for an answer the MCP writer sends (it writes the rows text as it is, so
 * the wire shows each real as the rows text does, shortest) and nothing else reads. r->rows may
 * be NULL (a request with rows_text_only). NULL when out of memory. */
json_t *sluice_present_result_spliced(const sluice_exec_result *r);

/* A summary line, then the rows one JSON array per line between markers carrying a random tag
 * the data cannot predict, with a warning that they are data, not instructions. In arena. */
char *sluice_present_untrusted_text(sluice_arena *arena, const sluice_exec_result *r);

#endif
