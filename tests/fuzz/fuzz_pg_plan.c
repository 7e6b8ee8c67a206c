/*
 * fuzz_pg_plan.c — libFuzzer target for the PostgreSQL analyzer's second judge
 * (sluice_pgsql_judge_plan, lang/pgsql/plan.c): the input is the executor's plan JSON
 * ({"plan": EXPLAIN (VERBOSE, FORMAT JSON), "indexes": {...}}), walked against the fixture
 * catalog (tests/unit/pgsql_fixture.h; blocked: ssn, email). It must never crash, and a plan it
 * cannot read is refused, never accepted. Seeds: tests/fuzz/corpus/fuzz_pg_plan/.
 */
#include "../unit/pgsql_fixture.h"
#include "lang/pgsql/internal.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sluice_arena *arena = sluice_arena_new();
    char *text = sluice_arena_strndup(arena, (const char *)data, size);
    sluice_config_code_mode cm = pgfx_cm();
    pg_ctx c = { .arena = arena, .cm = &cm, .schema = &pgfx_schema, .code = "", .code_len = 0 };
    c.facts = arena != NULL ? sluice_sql_facts_new(arena) : NULL;
    if (text != NULL && c.facts != NULL && strlen(text) == size) {
        bool refused = false;
        json_t *root = json_loads(text, 0, NULL);
        bool readable = json_object_get(root, "plan") != NULL;
        json_decref(root);
        if (sluice_pgsql_judge_plan(&c, text, &refused) == SLUICE_OK && !refused && !readable)
            abort(); /* unreadable accepted: the walk is not fail-closed */
    }
    (void)pgfx_analyze;
    sluice_arena_free(arena);
    return 0;
}
