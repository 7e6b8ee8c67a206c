/*
 * action.h — the unified action a piece of code performs: Read, Write, Delete or Admin.
 *
 * Owns: the enum (append-only; its numbers are signed into approval tokens, so they never move)
 * and its stable names. Does not own: deciding a code's action (each language front end does).
 */
#ifndef SLUICE_CODEMODE_ACTION_H
#define SLUICE_CODEMODE_ACTION_H

#include <stdbool.h>

typedef enum sluice_action {
    SLUICE_ACTION_READ = 0,
    SLUICE_ACTION_WRITE = 1,
    SLUICE_ACTION_DELETE = 2,
    SLUICE_ACTION_ADMIN = 3,
} sluice_action;

#define SLUICE_ACTION_MAX SLUICE_ACTION_ADMIN

/* "read" | "write" | "delete" | "admin"; "unknown" out of range. */
const char *sluice_action_name(sluice_action action);

/* true when value names a defined action (for decoders facing untrusted numbers). */
bool sluice_action_valid(int value);

#endif
