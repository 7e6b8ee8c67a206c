/*
 * idempotency.h — the Idempotency-Key a plan's write carries, the one derivation both
 * capabilities use: `api` (exec/openapi.c, the HTTP header) and `mcp` (exec/mcp_plan.c, _meta).
 *
 * Owns: the key's derivation. Does not own: which calls carry one (each host decides by method
 * or tool action), sending it.
 */
#ifndef SLUICE_EXEC_IDEMPOTENCY_H
#define SLUICE_EXEC_IDEMPOTENCY_H

/* The Idempotency-Key of a write: 32 hex digits of SHA-256 over the token id, the operation,
 * the composed path and the compact body. A retry of the same call carries the same key (from
 * any call site: what the call does is its place in the plan), calls that differ in any of
 * them carry different keys. out holds 33 bytes. */
void sluice_exec_idempotency_key(
    const char *token_id, const char *operation, const char *path, const char *body, char out[33]);

#endif
