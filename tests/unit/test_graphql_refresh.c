/*
 * test_graphql_refresh.c — the GraphQL backend's schema as a catalog snapshot (exec/catalog.c,
 * exec/graphql_http.c): a reload request re-reads the SDL file; a snapshot taken before stays
 * whole (document, model, version) until its arena goes, so a request in flight keeps the
 * schema it started with; a file that no longer builds keeps the snapshot in use. No network:
 * the schema comes from a file and nothing executes.
 */
#include "exec/catalog.h"
#include "exec/engines.h"
#include "exec/executor.h"
#include "lang/graphql/front.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    fclose(f);
}

static bool has_field(const sluice_schema *s, const char *type, const char *field)
{
    for (size_t t = 0; t < s->table_count; t++)
        if (strcmp(s->tables[t].name, type) == 0)
            for (size_t c = 0; c < s->tables[t].column_count; c++)
                if (strcmp(s->tables[t].columns[c].name, field) == 0)
                    return true;
    return false;
}

static void test_reload_swaps_and_keeps_in_flight(void **state)
{
    (void)state;
    assert_non_null(sluice_graphql_frontend()); /* links the front end: its hooks describe */
    char path[] = "/tmp/sluice-refresh-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    write_file(path, "type Query { a: Int }\n");
    sluice_config_database db = { .engine = SLUICE_ENGINE_GRAPHQL,
                                  .endpoint = "http://127.0.0.1:9/graphql",
                                  .path = path };
    sluice_config_code_mode cm = { 0 };
    sluice_arena *keep = sluice_arena_new();
    sluice_executor *ex = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_executor_open(&db, &cm, &ex, keep, &err), SLUICE_OK);

    sluice_arena *old_request = sluice_arena_new();
    const sluice_schema *before = NULL;
    assert_int_equal(sluice_executor_catalog(ex, old_request, &before, &err), SLUICE_OK);
    assert_true(has_field(before, "Query", "a"));
    assert_non_null(before->document_model);
    char old_version[65];
    memcpy(old_version, before->version_hash, sizeof old_version);

    write_file(path, "type Query { a: Int b: String }\n");
    sluice_executor_request_catalog_reload();
    sluice_arena *new_request = sluice_arena_new();
    const sluice_schema *after = NULL;
    assert_int_equal(sluice_executor_catalog(ex, new_request, &after, &err), SLUICE_OK);
    assert_true(after != before);
    assert_true(has_field(after, "Query", "b"));
    assert_string_not_equal(after->version_hash, old_version);
    /* the request that started before the reload still sees its own, whole schema */
    assert_false(has_field(before, "Query", "b"));
    assert_string_equal(before->version_hash, old_version);
    assert_non_null(strstr(before->document, "a: Int }"));
    sluice_arena_free(old_request); /* its last reader: the old snapshot goes */

    write_file(path, "type Query { a: Int b: [String }\n"); /* does not build */
    sluice_executor_request_catalog_reload();
    sluice_arena *third = sluice_arena_new();
    const sluice_schema *kept = NULL;
    assert_int_equal(sluice_executor_catalog(ex, third, &kept, &err), SLUICE_OK);
    assert_true(kept == after); /* the schema in use stays */
    assert_true(has_field(kept, "Query", "b"));

    sluice_arena_free(third);
    sluice_arena_free(new_request);
    sluice_executor_close(ex);
    sluice_arena_free(keep);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reload_swaps_and_keeps_in_flight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
