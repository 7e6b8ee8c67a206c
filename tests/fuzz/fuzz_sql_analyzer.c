/*
 * fuzz_sql_analyzer.c — libFuzzer target for the SQL front end (sluice_sql_analyze): statement
 * splitting, classification, canonical form, parse-tree facts, the plan lineage walk, rules and
 * the explanation, against the demo-shaped catalog of the unit tests (blocked: ssn, email).
 * Seeds: tests/fuzz/corpus/fuzz_sql_analyzer/ and, read in place, the tests/unit/data/sql*
 * folders fuzz_sql_analyzer.seed_dirs names there. DuckDB is slow under the fuzzer: run it with a
 * small -max_len.
 */
#include "../unit/sql_fixture.h"
#include "codemode/risk.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool opened;
    if (!opened && fixture_open(NULL) != 0)
        abort();
    opened = true;
    sluice_arena *arena = sluice_arena_new();
    sluice_config_code_mode cm = fixture_cm();
    sluice_frontend_context fc = { .code_mode = &cm, .duckdb_database = fixture_db };
    sluice_codefacts *facts = NULL;
    sluice_error err;
    if (arena != NULL &&
        sluice_sql_analyze(arena, (const char *)data, size, NULL, &fc, &facts, &err) == SLUICE_OK) {
        json_decref(sluice_codefacts_cedar_context(facts));
        (void)sluice_sql_explain(arena, facts);
        (void)sluice_risk_assess(sluice_sql_frontend(), facts, NULL);
    }
    sluice_arena_free(arena);
    return 0;
}
