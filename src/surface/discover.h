/*
 * discover.h — discovery on demand: the `search` and `describe` tools of code mode, one shape
 * for every language (tables and columns, GraphQL types and fields, OpenAPI operations and
 * their types), so the fixed context an agent reads first stays the same size whatever the
 * schema (docs/architecture.md, "Discovery").
 *
 * Owns: ranking entries against keywords, paging, rendering one entry for this caller (their
 * route's exposure rules: hidden tables left out, blocked fields marked, operations they may
 * not call marked). Does not own: the schema (the executor's catalog), the texts of the other
 * resources (codemode/guide.c).
 */
#ifndef SLUICE_SURFACE_DISCOVER_H
#define SLUICE_SURFACE_DISCOVER_H

#include "codemode/codemode.h"
#include "mcp/server.h"

/* Results per search page, and the most names one describe call takes. */
#define SLUICE_DISCOVER_PAGE      10
#define SLUICE_DISCOVER_MAX_NAMES 5
/* Columns, fields or parameters shown per describe page (a GraphQL type may have hundreds). */
#define SLUICE_DISCOVER_COLUMNS_PER_PAGE 60

/* Registers `search` and `describe` on server; cm must outlive it. */
sluice_status
sluice_discover_register(sluice_codemode *cm, sluice_mcp_server *server, sluice_error *err);

/* The text of search {query, page} over schema as seen under rules (page from 1). For tests
 * and the tool alike; NULL on NOMEM. */
char *sluice_discover_search(sluice_arena *arena,
                             const sluice_schema *schema,
                             const sluice_config_code_mode *rules,
                             const char *query,
                             int64_t page);

/* The text of describe {name, page}: each name (separated by commas or spaces, at most
 * SLUICE_DISCOVER_MAX_NAMES) rendered, or the nearest names when none matches. NULL on NOMEM. */
char *sluice_discover_describe(sluice_arena *arena,
                               const sluice_schema *schema,
                               const sluice_config_code_mode *rules,
                               const char *names,
                               int64_t page);

#endif
