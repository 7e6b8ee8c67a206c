/*
 * report.h — an execution's outcome as JSON text, so a bounded child (exec/bounded.h) can hand
 * it to the server process.
 *
 * Owns: the wire form of sluice_exec_result / sluice_error between the execute child and its
 * parent, and rebuilding the result under the request's limits on the parent side.
 * Does not own: running the query (the engine) or the child itself (bounded.c).
 */
#ifndef SLUICE_EXEC_REPORT_H
#define SLUICE_EXEC_REPORT_H

#include "core/buf.h"
#include "exec/executor.h"

#include <stdbool.h>

/* Writes {"status":..} plus either the error or the result; in_parent = "this statement must
 * run in the server process" (a write: its effects must land in the server's database). */
void sluice_exec_report_write(sluice_buf *out,
                              sluice_status status,
                              const sluice_error *err,
                              const sluice_exec_result *res,
                              bool in_parent);

/* Reads a report. Returns the status the child had (with err filled in the arena) or SLUICE_OK
 * with *out rebuilt under limits; *in_parent set when the child asked for that.
 * SLUICE_E_INTERNAL when the text is not a report (the caller refuses), SLUICE_E_NOMEM. */
sluice_status sluice_exec_report_read(const char *text,
                                      size_t len,
                                      const sluice_exec_limits *limits,
                                      sluice_arena *arena,
                                      sluice_exec_result *out,
                                      bool *in_parent,
                                      sluice_error *err);

#endif
