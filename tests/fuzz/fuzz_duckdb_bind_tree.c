/*
 * fuzz_duckdb_bind_tree.c — libFuzzer target for the bind-once unit (exec/duckdb_plan.cpp):
 * random SQL parsed, bound and serialized on the demo-shaped catalog of the unit tests, both
 * trees (sluice_executor_bind_tree), the arena plan (sluice_exec_duckdb_plan_bind) and the one
 * parse and bind validate makes (sluice_executor_bind_parse + _plan). No crash,
 * no C++ exception escapes (it would abort), every status is one the headers name, a value comes
 * back exactly on SLUICE_OK, and the plan tree's depth limit holds. Built only with
 * -DSLUICE_DUCKDB_CPP=ON. Seeds: tests/fuzz/corpus/fuzz_duckdb_bind_tree/ and the folders
 * fuzz_duckdb_bind_tree.seed_dirs names there (the SQL front end's unit-test data).
 */
#include "../unit/sql_fixture.h"
#include "exec/duckdb_plan.h"
#include "exec/executor.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static duckdb_connection conn;

static size_t depth(const sluice_duckdb_op *op)
{
    size_t deepest = 0;
    for (size_t i = 0; i < op->n_children; i++) {
        size_t d = depth(op->children[i]);
        deepest = d > deepest ? d : deepest;
    }
    return deepest + 1;
}

static void trees(const char *sql, sluice_arena *arena)
{
    for (int which = SLUICE_BIND_PARSE_TREE; which <= SLUICE_BIND_PLAN; which++) {
        json_t *doc = NULL;
        const char *raw = NULL;
        sluice_error err = { 0 };
        sluice_status st =
            sluice_executor_bind_tree(conn, sql, (sluice_bind_tree)which, arena, &doc, &raw, &err);
        if (st == SLUICE_OK
                ? doc == NULL || raw == NULL || !json_is_boolean(json_object_get(doc, "error"))
                : doc != NULL || (st != SLUICE_E_UNSUPPORTED && st != SLUICE_E_INTERNAL &&
                                  st != SLUICE_E_NOMEM && st != SLUICE_E_ENGINE))
            abort();
    }
}

/* The one parse and bind: a value exactly on SLUICE_OK, one statement bound at most once, a plan
 * only for a SELECT that bound. */
static void bind_once(const char *sql, sluice_arena *arena)
{
    sluice_bound_statement *b = NULL;
    sluice_error err = { 0 };
    sluice_status st = sluice_executor_bind_parse(conn, sql, arena, &b, &err);
    if (st != SLUICE_OK) {
        if (st != SLUICE_E_UNSUPPORTED && st != SLUICE_E_NOMEM && st != SLUICE_E_ENGINE)
            abort();
        return;
    }
    st = sluice_executor_bind_plan(conn, b, arena, &err);
    if (b->statement_count != 1) {
        if (st != SLUICE_E_INVALID)
            abort();
        return;
    }
    if (st == SLUICE_OK && (!b->planned || (b->bind_error != NULL && b->plan != NULL) ||
                            sluice_executor_bind_plan(conn, b, arena, &err) != SLUICE_E_INVALID))
        abort();
    if (st != SLUICE_OK && st != SLUICE_E_NOMEM && st != SLUICE_E_ENGINE)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool opened;
    if (!opened && (fixture_open(NULL) != 0 || duckdb_connect(fixture_db, &conn) != DuckDBSuccess ||
                    duckdb_query(conn, "SET memory_limit = '512MB'", NULL) != DuckDBSuccess))
        abort();
    opened = true;
    sluice_arena *arena = sluice_arena_new();
    char *sql = arena != NULL ? sluice_arena_strndup(arena, (const char *)data, size) : NULL;
    if (sql != NULL) {
        trees(sql, arena);
        bind_once(sql, arena);
        sluice_duckdb_plan *plan = NULL;
        sluice_error err = { 0 };
        sluice_status st = sluice_exec_duckdb_plan_bind(conn, sql, NULL, 0, arena, &plan, &err);
        if (st == SLUICE_OK && (plan == NULL || plan->root == NULL ||
                                depth(plan->root) > SLUICE_DUCKDB_PLAN_MAX_DEPTH + 1))
            abort();
        if (st != SLUICE_OK && st != SLUICE_E_ENGINE && st != SLUICE_E_INVALID &&
            st != SLUICE_E_LIMIT && st != SLUICE_E_NOMEM)
            abort();
    }
    sluice_arena_free(arena);
    return 0;
}
