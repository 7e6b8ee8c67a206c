/*
 * guide.h — what code mode tells the model before it writes code: the resources
 * code-mode://instructions, code-mode://policies and code-mode://schema, and the text of the
 * start_code_mode prompt that loads them.
 *
 * Owns: rendering those texts from the config, the live schema (after exposure rules) and the
 * caller. Does not own: registering them (codemode/tools.c) or deciding anything.
 */
#ifndef SLUICE_CODEMODE_GUIDE_H
#define SLUICE_CODEMODE_GUIDE_H

#include "auth/identity.h"
#include "config/config.h"
#include "exec/schema.h"
#include "lang/frontend.h"

/* How to use validate_code/execute_code, then each configured language's own part (its front
 * end's guide hook: what to write, its limits and blocked fields), languages[0] the default;
 * count 0 means the default language alone. schema_follows: the whole schema comes with this
 * text (the start prompt of a small schema), so the search/describe step is left out. Markdown;
 * NULL on NOMEM. */
char *sluice_guide_instructions(sluice_arena *arena,
                                const sluice_config *config,
                                const char *engine_name,
                                const char *const *languages,
                                size_t count,
                                bool schema_follows);

/* The guide parts of one language (its front end's, or the shared fallback), strings in arena;
 * false on NOMEM. For the tool descriptions and the prompt. */
bool sluice_guide_language(sluice_arena *arena,
                           const sluice_config *config,
                           const char *engine_name,
                           const char *language,
                           sluice_frontend_guide *out);

/* Plain-language summary of what this caller may do: their route's rules and, with a policy
 * backend, which actions the policy permits them and the forbids that always apply. policy may
 * be NULL (configuration rules only). language (the default one: "sql", "graphql",
 * "javascript", ...) chooses the words: tables and joins, or operations and fields. Markdown. */
struct sluice_policy;
char *sluice_guide_policies(sluice_arena *arena,
                            const sluice_config *config,
                            const struct sluice_policy *policy,
                            const sluice_identity *caller,
                            const char *language);

/* The derived schema: exposed tables and columns with types; blocked fields marked
 * joinable-not-returnable; hidden tables left out. Compact Markdown, cheap in tokens. */
char *
sluice_guide_schema(sluice_arena *arena, const sluice_config *config, const sluice_schema *schema);

/* One column as a Markdown list item: "- name TYPE [primary key] [references t.c] [<mark>]: one
 * of 'a', 'b' — comment"; a blocked column's values are never shown. For code-mode://schema and
 * the describe tool. */
void sluice_guide_column(sluice_buf *b,
                         const sluice_schema_column *col,
                         const sluice_schema_column_notes *notes,
                         bool blocked,
                         const char *blocked_mark);

/* How a blocked field is marked on this schema: "join/filter only" for databases, "blocked:
 * never returned" for APIs (a GraphQL field or a response property is not joined). */
const char *sluice_guide_blocked_mark(const sluice_schema *schema);

/* The start prompt carries the whole schema when its brief form is at most this many bytes
 * (the demo's seven tables are about 1,900): below it the first program needs no discovery
 * call; above it the prompt stays the same size and the model searches (docs/architecture.md,
 * "Discovery"). Chosen so tools/list plus the prompt stay under 1,000 tokens. */
#define SLUICE_GUIDE_INLINE_SCHEMA_BYTES 2400

/* schema as caller sees it: an API's declaration rendered under their route's rules, each
 * operation asked of their policy as a program that calls it alone (a writer sees the request
 * bodies of the writes it may call; the rest is named as not callable); schema itself when the
 * backend's declaration is the same for everyone or there is no policy. NULL on NOMEM. */
const sluice_schema *sluice_guide_schema_for(sluice_arena *arena,
                                             const sluice_schema *schema,
                                             const struct sluice_policy *policy,
                                             const sluice_identity *caller);

/* The whole schema, one line per table or type (an API's declaration as it is), for the start
 * prompt when it is small. NULL on NOMEM. */
char *sluice_guide_schema_brief(sluice_arena *arena, const sluice_schema *schema);

#endif
