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
/* A string id recovered from a frame that does not parse (sluice_jsonrpc_recover_id). */
#define SLUICE_LIMIT_RECOVERED_ID_BYTES 128u
/* Nesting depth of JSON we write (answers may wrap a maximally nested input a few levels
 * deeper); past it the value is taken for a cycle and refused. */
#define SLUICE_LIMIT_JSON_WRITE_DEPTH (4u * SLUICE_LIMIT_NESTING_DEPTH)
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
/* Live HTTP sessions (the transport may be given fewer); past it a new session is refused. */
#define SLUICE_LIMIT_SESSIONS 256u
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
/* Deadline of an execute child whose request set no timeout (tests, tools; config always sets
 * execution_timeout_seconds): a child stalled on a lock another thread held at fork time
 * is killed at this point instead of waiting a day. */
#define SLUICE_LIMIT_EXEC_UNTIMED_CHILD_MS (60 * 1000)
/* Memory cap of an execute child when memory_limit cannot be read as a size ("50%"). */
#define SLUICE_LIMIT_EXEC_MEMORY_DEFAULT_BYTES (512ull * 1024u * 1024u)
/* Bytes an execute child may send back beyond max_result_bytes (metadata, escaping). */
#define SLUICE_LIMIT_EXEC_REPORT_SLACK_BYTES (4u * 1024u * 1024u)
/* Validated analyses kept for execute (codemode/analysis_cache.c): each entry is one arena of
 * a few KiB, so the cache stays under ~2 MiB; the least recently used entry is evicted. */
#define SLUICE_LIMIT_ANALYSIS_CACHE_ENTRIES 128u

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
/* OverlappingFieldsCanBeMerged is quadratic in same-named fields and fragment pairs: its steps
 * are metered as graphql-js 16.15 meters them (MAX_COMPLEXITY_BUDGET, the same value), and a
 * document that needs more is refused (lang/graphql/overlap.c). */
#define SLUICE_LIMIT_GRAPHQL_OVERLAP_BUDGET 500000u
/* The upstream GraphQL server: response body cap when [database] max_response_bytes is unset. */
#define SLUICE_LIMIT_GRAPHQL_RESPONSE_BYTES (8u * 1024u * 1024u)
/* OpenAPI (exec/openapi_*.c): the largest spec read, how deep $refs may chain and YAML/JSON may
 * nest, and the operations one spec may declare. */
#define SLUICE_LIMIT_OPENAPI_SPEC_BYTES (16u * 1024u * 1024u)
#define SLUICE_LIMIT_OPENAPI_REF_DEPTH  32u
#define SLUICE_LIMIT_OPENAPI_NESTING    128u
#define SLUICE_LIMIT_OPENAPI_OPERATIONS 4096u
/* Upstream calls of one plan in flight at once (libcurl multi); more wait for a free slot. */
#define SLUICE_LIMIT_OPENAPI_IN_FLIGHT 16u

/* demo.sql is a few KiB; anything larger is not the file we meant. */
#define SLUICE_LIMIT_DEMO_SQL_BYTES (1024 * 1024)
/* SQLite connection limits (sqlite.org/security.html suggests values of this order): string or
 * BLOB length, expression depth, terms of a compound SELECT. */
#define SLUICE_LIMIT_SQLITE_LENGTH          10000000
#define SLUICE_LIMIT_SQLITE_EXPR_DEPTH      100
#define SLUICE_LIMIT_SQLITE_COMPOUND_SELECT 50
/* The largest TOML document parsed. Config files are far smaller (SLUICE_LIMIT_CONFIG_BYTES);
 * this bounds fuzzing and hostile input while leaving room for generated files. */
#define SLUICE_LIMIT_TOML_BYTES (4u * 1024u * 1024u)
/* Largest JWKS file read, and keys kept from it. */
#define SLUICE_LIMIT_JWKS_BYTES (1024u * 1024u)
#define SLUICE_LIMIT_JWKS_KEYS  64u
/* Longest bearer JWT accepted, groups taken from its claims, its decoded header, one string
 * claim. */
#define SLUICE_LIMIT_JWT_BYTES        8192u
#define SLUICE_LIMIT_JWT_GROUPS       64u
#define SLUICE_LIMIT_JWT_HEADER_BYTES 2048u
#define SLUICE_LIMIT_JWT_CLAIM_BYTES  256u
/* Longest API key or administrator key accepted on the wire. */
#define SLUICE_LIMIT_CREDENTIAL_BYTES 4096u
/* Longest upstream credential an HTTP backend reads from its auth_token_file (first line). */
#define SLUICE_LIMIT_HTTP_CREDENTIAL_BYTES (64u * 1024u)
/* Largest answer read from a policy command. */
#define SLUICE_LIMIT_POLICY_COMMAND_OUTPUT_BYTES (64u * 1024u)
/* Largest policy, entities or schema file read (server and CLI alike). */
#define SLUICE_LIMIT_POLICY_FILE_BYTES (16u * 1024u * 1024u)
/* Deepest Cedar expression tree accepted: evaluation recurses once per level. */
#define SLUICE_LIMIT_CEDAR_TREE_DEPTH 1000u
/* Longest user, session or server id an approval token carries, and the longest token text. */
#define SLUICE_LIMIT_TOKEN_FIELD_BYTES 512u
#define SLUICE_LIMIT_TOKEN_CHARS       4096u
/* Approval requests kept in memory (older expired ones are dropped first). */
#define SLUICE_LIMIT_PENDING_APPROVALS 65536u
/* Longest line of the approvals file. */
#define SLUICE_LIMIT_APPROVAL_LINE_BYTES 4096u
/* Seconds an approval requestState (MCP 2026-07-28 input_required) stays good: long enough for
 * a person to read and answer, short enough that a leaked state is soon worthless. */
#define SLUICE_LIMIT_APPROVAL_STATE_TTL_S 600
/* Longest audit record line; code is capped at SLUICE_LIMIT_CODE_BYTES, JSON escaping can
 * grow it. */
#define SLUICE_LIMIT_AUDIT_LINE_BYTES (4u * 1024u * 1024u)
/* Records the audit head may trail the log by after a crash (adopted on the next open). */
#define SLUICE_LIMIT_AUDIT_UNSYNCED 1024u
/* Default [code_mode] max_result_bytes: the rows a model reads, about 50,000 characters of JSON
 * (~12k tokens; MotherDuck's DuckDB server caps at 50k characters) rather than 1 MiB (~250k
 * tokens, past what a model can use). Past it the result says it was cut and how to narrow it. */
#define SLUICE_LIMIT_DEFAULT_RESULT_BYTES 50000u
/* code-mode://schema lists a text column's distinct values when there are at most this many
 * (enum-like: plan, status, segment), each at most SCHEMA_VALUE_CHARS long, probing only tables
 * of at most SCHEMA_VALUES_ROWS rows and at most SCHEMA_VALUES_COLUMNS columns in all (the
 * probe runs once, when the schema is read). */
#define SLUICE_LIMIT_SCHEMA_VALUES         10u
#define SLUICE_LIMIT_SCHEMA_VALUE_CHARS    40u
#define SLUICE_LIMIT_SCHEMA_VALUES_ROWS    2000000
#define SLUICE_LIMIT_SCHEMA_VALUES_COLUMNS 64u
/* Processes that may write one configured audit log at once: the first holds "<path>", each
 * other its own chain "<path>.w2" .. "<path>.w8" (the HTTP demo beside a stdio client). */
#define SLUICE_LIMIT_AUDIT_WRITERS 8u
/* Live (unexpired) token ids a replay store holds; past it consume fails closed. */
#define SLUICE_LIMIT_REPLAY_ENTRIES (256u * 1024u)
/* Words longer than this are never corrected (no key is that long; the bound keeps the
 * did-you-mean distance table on the stack). */
#define SLUICE_LIMIT_SUGGEST_WORD_BYTES 64u

/* PostgreSQL: rows asked for per FETCH from the cursor (the row cap stops the server's work at
 * N + 1 rows whatever this is), the password file's size, how long a cancelled statement may
 * take to stop before its connection is dropped, and how often the wait looks at the clock. */
#define SLUICE_LIMIT_PG_FETCH_ROWS      1000u
#define SLUICE_LIMIT_PG_PASSWORD_BYTES  4096u
#define SLUICE_LIMIT_PG_CANCEL_GRACE_MS 5000
#define SLUICE_LIMIT_PG_POLL_MS         50
/* A statement still running this long after its cancel (planning checks no interrupts for
 * long stretches) has its backend terminated from a second connection (pg_terminate_backend,
 * which a role may call on its own backends), so no backend outlives the call. */
#define SLUICE_LIMIT_PG_TERMINATE_AFTER_MS 1000
/* The planner's search, pinned for every call whatever the role or database says (the
 * defaults of PostgreSQL 15): beyond these many relations it keeps the written join order
 * (collapse limits) or plans with the genetic optimizer (geqo_threshold), so planning time stays
 * bounded (issue 21: chained CTEs planned for minutes past statement_timeout). */
#define SLUICE_LIMIT_PG_COLLAPSE_LIMIT 8
#define SLUICE_LIMIT_PG_GEQO_THRESHOLD 12
/* [state] redis_prefix: the key prefix of one deployment's shared state in Redis. */
#define SLUICE_LIMIT_STATE_PREFIX_BYTES 64u
/* Quotas (state/quota.h): live counters the in-process store holds (one per quota, window,
 * route and principal; past it, once ended windows are dropped, a call is refused: fail
 * closed), the longest principal or route id a counter key keeps whole (longer ones are keyed
 * by their SHA-256), and counters the admin console's usage page lists at most. */
#define SLUICE_LIMIT_QUOTA_COUNTERS   (64u * 1024u)
#define SLUICE_LIMIT_QUOTA_NAME_BYTES 128u
#define SLUICE_LIMIT_ADMIN_QUOTA_ROWS 500u

/* The JavaScript plan language (src/syntax/js/, src/exec/js/): tokens and AST nodes one plan
 * may have, how deep its syntax may nest (parser recursion), and the defaults of the run-time
 * limits a route does not set (interpreter steps, plan memory, call depth of the plan's own
 * functions). */
#define SLUICE_LIMIT_JS_TOKENS         65536u
#define SLUICE_LIMIT_JS_NODES          131072u
#define SLUICE_LIMIT_JS_NESTING        96u
#define SLUICE_LIMIT_JS_STEPS_DEFAULT  10000000
#define SLUICE_LIMIT_JS_MEMORY_DEFAULT (64u * 1024u * 1024u)
#define SLUICE_LIMIT_JS_CALL_DEPTH     200u
/* Nesting of a plan's result walked by the output guard (deeper: refused, never skipped). */
#define SLUICE_LIMIT_JS_RESULT_DEPTH 512u
/* Calls a plan run records (max_api_calls is at most 100000). */
#define SLUICE_LIMIT_JS_CALL_RECORDS 100000u
/* A read-only plan with a static bound of at most this many upstream calls is low risk (seed
 * 000's budgets plan makes 11); more, or no static bound, is medium. */
#define SLUICE_LIMIT_JS_LOW_RISK_CALLS 20
#define SLUICE_LIMIT_JS_STRING_UNITS   (16u * 1024u * 1024u)

/* SQL analysis: operator and expression nesting in a bound plan, */
#define SLUICE_LIMIT_SQL_PLAN_DEPTH 200u
/* distinct base columns one statement reads, */
#define SLUICE_LIMIT_SQL_BASE_COLUMNS 4096u
/* and recursive CTE lineage fixpoint rounds. */
#define SLUICE_LIMIT_SQL_RECURSION_ROUNDS 64u
/* Longest key line read from a key file or variable, */
#define SLUICE_LIMIT_SECRET_LINE_BYTES 256u
/* and previous keys kept for verification during rotation. */
#define SLUICE_LIMIT_PREVIOUS_KEYS 8u
/* Open HTTP connections at once (libmicrohttpd's connection limit). */
#define SLUICE_LIMIT_HTTP_CONNECTIONS 512u
/* Longest wait, after SIGTERM, for the MCP requests already running to answer before the rest
 * are cancelled (a second SIGTERM or SIGINT cuts it short): the default execution timeout
 * (30 s) plus the watchdog's grace, so a call admitted before the signal can finish. */
#define SLUICE_LIMIT_SHUTDOWN_DRAIN_SECONDS 35u
/* Series one metric keeps (label combinations); more fall into its "_overflow" series. */
#define SLUICE_LIMIT_METRIC_SERIES 256u
/* Bytes of one label value kept in a metric series (longer values are cut). */
#define SLUICE_LIMIT_METRIC_LABEL_BYTES 64u
/* Audit records the admin console's trail shows at most per request. */
#define SLUICE_LIMIT_ADMIN_AUDIT_RECORDS 200u
/* The Cedar policy file the console shows on its policies page. */
#define SLUICE_LIMIT_ADMIN_POLICY_BYTES (1024u * 1024u)
/* Groups the console's evaluator takes for its "would this user be allowed" question. */
#define SLUICE_LIMIT_ADMIN_EVAL_GROUPS 32u
/* Bytes read back from the end of the audit log for the admin console's trail. */
#define SLUICE_LIMIT_ADMIN_AUDIT_TAIL_BYTES (1024u * 1024u)
/* Query mode: most requests one load fans out into (IN lists and JOIN values multiplied), and
 * most distinct values a JOIN or IN subquery may hand a required filter. */
#define SLUICE_LIMIT_QM_FANOUT      1024u
#define SLUICE_LIMIT_QM_JOIN_VALUES 1024u
/* The MCP client for downstream servers of JavaScript plans (exec/mcp_client.c): bytes of one
 * response by default and at most (max_response_bytes), bytes of the whole tools/list at
 * start-up, tools kept per server, tools/list pages followed, and how long a stopped server
 * gets between SIGTERM and SIGKILL. */
#define SLUICE_LIMIT_MCP_CLIENT_RESPONSE_BYTES     (1024u * 1024u)
#define SLUICE_LIMIT_MCP_CLIENT_RESPONSE_BYTES_MAX (64u * 1024u * 1024u)
#define SLUICE_LIMIT_MCP_CLIENT_LIST_BYTES         (8u * 1024u * 1024u)
#define SLUICE_LIMIT_MCP_CLIENT_TOOLS              1000u
#define SLUICE_LIMIT_MCP_CLIENT_LIST_PAGES         64u
#define SLUICE_LIMIT_MCP_CLIENT_STOP_MS            1000u

/* Saved programs (codemode/program.h, state/program_store.h): bytes of the store (every
 * promotion and demotion ever written), bytes of one line (a program's code is at most
 * SLUICE_LIMIT_CODE_BYTES; JSON escaping can grow it), programs served at once, parameters of
 * one program, and the default and largest length of a string parameter (characters). */
#define SLUICE_LIMIT_PROGRAM_STORE_BYTES      (64u * 1024u * 1024u)
#define SLUICE_LIMIT_PROGRAM_LINE_BYTES       (2u * 1024u * 1024u)
#define SLUICE_LIMIT_PROGRAMS                 256u
#define SLUICE_LIMIT_PROGRAM_PARAMS           32u
#define SLUICE_LIMIT_PROGRAM_STRING_CHARS     1024u
#define SLUICE_LIMIT_PROGRAM_STRING_CHARS_MAX 65536u

/* The test clock file (core/clock_file.h): bytes read of it (a time is at most 16 digits; the
 * rest allows whitespace and a newline). */
#define SLUICE_LIMIT_CLOCK_FILE_BYTES 64u

#endif
