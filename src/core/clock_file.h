/*
 * clock_file.h — a wall clock that reads the time from a file: how `sluice serve --test-clock
 * FILE` lets an end-to-end test move a running server's time (a quota's minute ends, a token
 * expires) without sleeping.
 *
 * Owns: reading and checking the file (a decimal count of milliseconds since the Unix epoch, in
 * UTC, optional surrounding whitespace). Monotonic time stays the system's, so execution
 * timeouts, drains and waits keep working while the wall clock stands still. Does not own: the
 * decision to use it (cmd_serve.c: only behind the explicit --test-clock flag, never from the
 * config or the environment) or what any deadline means.
 *
 * Why a file and these checks: whoever can write the file sets the server's time, so can stretch
 * an approval token's life or end a quota's day. The file must be a regular file of the user
 * running sluice that no group or other may write (refused at start otherwise), and the server
 * logs a warning at start that its time is a test's.
 */
#ifndef SLUICE_CORE_CLOCK_FILE_H
#define SLUICE_CORE_CLOCK_FILE_H

#include "core/arena.h"
#include "core/clock.h"
#include "core/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sluice_file_clock sluice_file_clock;

/* Opens the clock at path (*out; free it with sluice_file_clock_free after everything that
 * borrowed its clock). The file is read and checked now: a missing, foreign, group- or
 * other-writable file, or a text that is not a time, is refused with what is wrong and how to
 * fix it. Later reads that fail (the test rewriting the file) keep the last time read. */
sluice_status sluice_file_clock_open(const char *path,
                                     sluice_file_clock **out,
                                     sluice_arena *err_arena,
                                     sluice_error *err);

/* The clock to hand to the runtime: wall time from the file, monotonic time from the system. */
const sluice_clock *sluice_file_clock_get(const sluice_file_clock *fc);

/* Frees fc. NULL does nothing. */
void sluice_file_clock_free(sluice_file_clock *fc);

/* Parses the file's text: optional ASCII whitespace, 1 to 16 decimal digits (milliseconds
 * since the epoch, at most the end of the year 9999), optional whitespace. true and *out_ms on
 * success; false (out untouched) for anything else. Pure, for the fuzz target. */
bool sluice_file_clock_parse(const char *text, size_t len, int64_t *out_ms);

#endif
