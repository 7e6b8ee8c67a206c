/*
 * ready.h — is code mode ready to serve: the checks behind GET /readyz.
 *
 * Owns: the three checks and their wording — the backend answers (its catalog can be read:
 * a connection or file that went away fails here), the token signing key is loaded, the audit
 * log is writable (no earlier write failed, and the file can still be opened for writing).
 * Does not own: HTTP (transport/http_admin.c), repairing anything.
 */
#ifndef SLUICE_CODEMODE_READY_H
#define SLUICE_CODEMODE_READY_H

#include "codemode/codemode.h"

#include <jansson.h>
#include <stdbool.h>

/* Adds {"backend": {...}, "keys": {...}, "audit": {...}} to checks (each {"ok": bool,
 * "detail": text}) and returns true only when every check passed; rt is cm's runtime (its keys
 * and audit sink). cm NULL (no code mode)
 * passes with nothing to check. Fails closed: out of memory makes it not ready. */
bool sluice_codemode_ready(sluice_codemode *cm, const sluice_runtime *rt, json_t *checks);

#endif
