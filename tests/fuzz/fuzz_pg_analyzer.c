/*
 * fuzz_pg_analyzer.c — libFuzzer target for the PostgreSQL analyzer (sluice_pgsql_analyze):
 * libpg_query's parse, the statement gate, name resolution, lineage, the predicate rules, taint
 * passes, the allowlist, the canonical form, the explanation and risk, against the fixture
 * catalog (tests/unit/pgsql_fixture.h; blocked: ssn, email). Seeds:
 * tests/fuzz/corpus/fuzz_pg_analyzer/.
 */
#include "../unit/pgsql_fixture.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return 0;
    sluice_codefacts *facts = pgfx_analyze(arena, (const char *)data, size);
    if (facts != NULL) {
        json_decref(sluice_codefacts_cedar_context(facts));
        json_decref(sluice_codefacts_to_json(facts));
        (void)sluice_sql_explain(arena, facts);
        const char *reason = NULL;
        (void)sluice_pgsql_risk(facts, &reason);
    }
    sluice_arena_free(arena);
    return 0;
}
