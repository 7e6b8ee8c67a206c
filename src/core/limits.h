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
/* Backends one server opens: [database] and the [[databases]] routes name. */
#define SLUICE_LIMIT_BACKENDS 16u
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

/* [code_mode] analysis_timeout_ms / analysis_memory_mb: defaults and the ranges config accepts.
 * validate_code's DuckDB binding runs in a child held to these (src/exec/bounded.h). */
#define SLUICE_LIMIT_ANALYSIS_TIMEOUT_MS     2000
#define SLUICE_LIMIT_ANALYSIS_TIMEOUT_MS_MIN 100
#define SLUICE_LIMIT_ANALYSIS_TIMEOUT_MS_MAX 60000
#define SLUICE_LIMIT_ANALYSIS_MEMORY_MB      256
#define SLUICE_LIMIT_ANALYSIS_MEMORY_MB_MIN  32
#define SLUICE_LIMIT_ANALYSIS_MEMORY_MB_MAX  65536
/* How often a bounded child's resident size is read (its overshoot is what it can touch in
 * this time, a few tens of MB at memory bandwidth). */
#define SLUICE_LIMIT_BOUNDED_POLL_MS 5
/* The execute child may outlive its own interrupt by this much before it is killed. */
#define SLUICE_LIMIT_EXEC_KILL_GRACE_MS 1000
/* Memory cap of an execute child when memory_limit cannot be read as a size ("50%"). */
#define SLUICE_LIMIT_EXEC_MEMORY_DEFAULT_BYTES (512ull * 1024u * 1024u)
/* Bytes an execute child may send back beyond max_result_bytes (metadata, escaping). */
#define SLUICE_LIMIT_EXEC_REPORT_SLACK_BYTES (4u * 1024u * 1024u)

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
/* Operation analysis: fields visited with fragments expanded before the document is refused
 * (an exponential fan-out of fragments costs bounded time), the response-key path quoted in a
 * limit refusal, and the size assumed for a list field without limit/first/last in the cost. */
#define SLUICE_LIMIT_GRAPHQL_EXPANDED_FIELDS   100000u
#define SLUICE_LIMIT_GRAPHQL_PATH_CHARS        512u
#define SLUICE_LIMIT_GRAPHQL_DEFAULT_LIST_SIZE 10
/* The upstream GraphQL server: response body cap when [database] max_response_bytes is unset. */
#define SLUICE_LIMIT_GRAPHQL_RESPONSE_BYTES (8u * 1024u * 1024u)

#endif
