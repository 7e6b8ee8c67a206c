/*
 * dialect.c — the "sql" language: one name for clients whatever the backend, two analyzers
 * behind it. Code for engine "postgres" is PostgreSQL's dialect and goes to lang/pgsql/
 * (libpg_query, names resolved against the live catalog); every other engine's goes to
 * lang/sql/ (DuckDB's binder; SQLite through a mirrored catalog). Both fill the same SQL
 * extension, so explanations and policies read the same facts.
 *
 * Owns: the choice of analyzer by the context's engine. Does not own: either analyzer.
 */
#include "lang/dialect.h"

#include "lang/pgsql/pgsql.h"
#include "lang/sql/sql.h"

#include <string.h>

static bool postgres(const sluice_frontend_context *ctx)
{
    return ctx != NULL && ctx->engine == SLUICE_ENGINE_POSTGRES;
}

static sluice_status analyze(sluice_arena *arena,
                             const char *code,
                             size_t code_len,
                             const char *variables_json,
                             const sluice_frontend_context *ctx,
                             sluice_codefacts **out,
                             sluice_error *err)
{
    return postgres(ctx)
               ? sluice_pgsql_analyze(arena, code, code_len, variables_json, ctx, out, err)
               : sluice_sql_frontend()->analyze(arena, code, code_len, variables_json, ctx, out,
                                                err);
}

static sluice_status canonical_hash(sluice_arena *arena,
                                    const char *code,
                                    size_t code_len,
                                    const sluice_frontend_context *ctx,
                                    char out_hex[65],
                                    sluice_error *err)
{
    return postgres(ctx)
               ? sluice_pgsql_canonical_hash(arena, code, code_len, ctx, out_hex, err)
               : sluice_sql_frontend()->canonical_hash(arena, code, code_len, ctx, out_hex, err);
}

static sluice_risk risk(const sluice_codefacts *facts, const char **reason)
{
    const char *dialect = sluice_sql_facts_of(facts)->dialect;
    return dialect != NULL && strcmp(dialect, SLUICE_PGSQL_DIALECT) == 0
               ? sluice_pgsql_risk(facts, reason)
               : sluice_sql_frontend()->risk(facts, reason);
}

static const sluice_frontend sql_dialects = {
    .language = "sql",
    .analyze = analyze,
    .canonical_hash = canonical_hash,
    .explain = sluice_sql_explain,
    .risk = risk,
    .guide = sluice_sql_guide,
};

const sluice_frontend *sluice_lang_sql_dialects(void)
{
    return &sql_dialects;
}
