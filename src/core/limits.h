/*
 * limits.h — named ceilings on every input-driven size, count, depth and duration.
 *
 * Exceeding one is SLUICE_E_LIMIT with "too many X (limit is N)". Values a deployment may want
 * to change live in config instead; these are the hard outer bounds.
 */
#ifndef SLUICE_CORE_LIMITS_H
#define SLUICE_CORE_LIMITS_H

/* One JSON-RPC message (stdio line or HTTP body) by default; config may lower it. */
#define SLUICE_LIMIT_MESSAGE_BYTES (4u * 1024u * 1024u)
/* Nesting depth of any JSON, TOML or Cedar structure we parse. */
#define SLUICE_LIMIT_NESTING_DEPTH 128u
/* Size of a configuration file. */
#define SLUICE_LIMIT_CONFIG_BYTES (1u * 1024u * 1024u)
/* Length of code submitted to validate_code / execute_code. */
#define SLUICE_LIMIT_CODE_BYTES (256u * 1024u)
/* Items per page in list methods. */
#define SLUICE_LIMIT_PAGE_SIZE 50u
/* Concurrent in-flight requests per session. */
#define SLUICE_LIMIT_INFLIGHT_PER_SESSION 64u
/* Live HTTP sessions. */
#define SLUICE_LIMIT_SESSIONS 1024u
/* Bytes of a tool result sent back to the client by default. */
#define SLUICE_LIMIT_RESULT_BYTES (1u * 1024u * 1024u)

/* A [[resources]] file read at config load. */
#define SLUICE_LIMIT_RESOURCE_FILE_BYTES (4u * 1024u * 1024u)

/* GraphQL (src/lang/graphql/). An operation: the byte and token ceilings follow Apollo Router's
 * parser defaults (parser_max_tokens 15000, http_max_request_bytes 2 MB, of which an operation
 * is a small part); config's graphql_max_tokens/graphql_max_chars refuse far earlier. */
#define SLUICE_LIMIT_GRAPHQL_DOCUMENT_BYTES (256u * 1024u)
#define SLUICE_LIMIT_GRAPHQL_TOKENS         15000u
/* An upstream schema (SDL file or introspection): real schemas run to megabytes. */
#define SLUICE_LIMIT_GRAPHQL_SDL_BYTES  (16u * 1024u * 1024u)
#define SLUICE_LIMIT_GRAPHQL_SDL_TOKENS 4000000u
/* Recursion bound of the parser and printer (selection sets, list/object values, list types):
 * deep enough for any real document (Apollo Router allows 500 parser recursions, counting more
 * kinds of step), shallow enough for a 256 KiB thread stack. */
#define SLUICE_LIMIT_GRAPHQL_DEPTH 256u

#endif
