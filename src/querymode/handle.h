/*
 * handle.h — explicit query-mode session handles for replicas ([state] replica_id): a session
 * lives in one replica's memory, so its handle names that replica, and a handle presented to
 * another replica is answered with a clear refusal naming the replica that holds it, never with
 * a silent empty session.
 *
 * Owns: the handle's format ("<replica_id>.<32 hex random>"), minting one for a `load` that has
 * no transport session (MCP 2026-07-28 stateless calls), and resolving a presented handle into
 * the session key (the handle takes the transport session's place; the principal stays part of
 * the key, so another principal's handle finds nothing). Why pinning and not rebuilding from the
 * source cache: docs/deploy.md ("Query mode"). Does not own: the sessions (session.h), the tool
 * schemas (surface/querymode_tools.c).
 */
#ifndef SLUICE_QUERYMODE_HANDLE_H
#define SLUICE_QUERYMODE_HANDLE_H

#include "querymode/querymode.h"

#include <stdbool.h>

/* This replica's name, NULL when handles are off ([state] replica_id unset). */
const char *sluice_querymode_replica(const sluice_querymode *qm);

/* Resolves the call's session: presented is the `session` argument (NULL when absent), creating
 * whether the call may start a session (load). On SLUICE_OK caller->session_id may be replaced
 * (arena string) and *handle is the handle to return to the client (NULL when none). Refusals:
 * SLUICE_E_INVALID (not a handle), SLUICE_E_NOT_FOUND (held by another replica — err names it —
 * or not live here any more: expired, dropped, restarted, or not the caller's), SLUICE_E_NOMEM. */
sluice_status sluice_querymode_resolve_handle(sluice_querymode *qm,
                                              const char *presented,
                                              bool creating,
                                              sluice_qm_caller *caller,
                                              const char **handle,
                                              sluice_arena *arena,
                                              sluice_error *err);

#endif
