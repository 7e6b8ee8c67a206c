/*
 * handle.h — the one handle every state store hands out: the ops table that serves it and that
 * table's implementation.
 *
 * Owns: making a handle (and closing the implementation when that fails, so no store's open
 * leaks it) and closing one. Each store (approval.c, audit.c, program_store.c, replay.c) keeps
 * its own handle type, whose first member is a sluice_state_handle, so its callers cannot mix
 * one store's handle up with another's; the checks common to a store's backends stay in that
 * store's file, above its ops.
 * Does not own: any op but close, nor the quota store (state/quota.c), whose handle is an
 * allocation point of the sweeps.
 */
#ifndef SLUICE_STATE_HANDLE_H
#define SLUICE_STATE_HANDLE_H

#include <stddef.h>

typedef struct sluice_state_handle {
    const void *ops; /* the store's own ops table type */
    void *impl;
    void (*close)(void *impl);
} sluice_state_handle;

/* A zeroed block of size bytes (a store's handle, sluice_state_handle first) holding ops, impl
 * and close; NULL when memory ran out, after impl was closed with close. */
void *sluice_state_handle_new(size_t size, const void *ops, void *impl, void (*close)(void *impl));

/* Closes h's implementation and frees h (the handle block); NULL is nothing to close. */
void sluice_state_handle_free(sluice_state_handle *h);

#endif
