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
/* Nesting depth of JSON we write (answers may wrap a maximally nested input a few levels
 * deeper); past it the value is taken for a cycle and refused. */
#define SLUICE_LIMIT_JSON_WRITE_DEPTH (4u * SLUICE_LIMIT_NESTING_DEPTH)
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

#endif
