/*
 * types.h (querymode) — the shapes every query-mode operation takes: the handle, who asks, and
 * the per-call hooks.
 *
 * Owns: those types only. Below both the operations' header (querymode.h) and what the files of
 * query mode share (internal.h), so the shared steps (guard.c, loader.c, autoload.c) name the
 * handle and the caller without including the operations they serve.
 */
#ifndef SLUICE_QUERYMODE_TYPES_H
#define SLUICE_QUERYMODE_TYPES_H

#include "codemode/runtime.h"
#include "exec/executor.h"

#include <stdatomic.h>

typedef struct sluice_querymode sluice_querymode;

/* Who asks: the same shape code mode uses (identity and transport session). */
typedef sluice_codemode_caller sluice_qm_caller;

/* Per-call hooks: progress per page (NULL: none) and a flag the caller sets on cancellation. */
typedef struct sluice_qm_hooks {
    void (*progress)(void *ctx, double done, const char *message);
    void *progress_ctx;
    atomic_bool *cancelled;
    sluice_exec_register_cancel_fn register_cancel; /* interrupts a running query */
    void *cancel_ctx;
} sluice_qm_hooks;

#endif
