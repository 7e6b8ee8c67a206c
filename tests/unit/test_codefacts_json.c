/*
 * test_codefacts_json.c — the CodeFacts record as JSON text (facts/codefacts.h): written
 * straight from the facts, every member in its place (lists, outputs with lineage, violations
 * with and without a place or a suggestion, the estimate, strings that need escapes or are not
 * ASCII), the same record as a tree, and as validate_code's splice, which is the text or nothing
 * when an allocation fails.
 */
#include "core/json_splice.h"
#include "core/json_write.h"
#include "facts/codefacts.h"
#include "oom_sweep.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

/* A record with one of everything, in arena. */
static sluice_codefacts *sample(sluice_arena *arena)
{
    sluice_codefacts *f = sluice_codefacts_new(arena, "sql");
    assert_non_null(f);
    f->action = SLUICE_ACTION_WRITE;
    f->statement_kind = "UPDATE";
    memcpy(f->code_hash, "00ff", 5);
    sluice_codefacts_list_add(f, &f->resources_read, "orders");
    sluice_codefacts_list_add(f, &f->resources_read, "caf\xc3\xa9");
    sluice_codefacts_list_add(f, &f->resources_written, "orders");
    sluice_codefacts_list_add(f, &f->fields_read, "orders.\"q\\t\"\n");
    sluice_codefacts_output *o = NULL;
    sluice_codefacts_add_output(f, "total", "DOUBLE", &o);
    sluice_codefacts_list_add(f, &o->lineage, "orders.amount");
    sluice_codefacts_list_add(f, &o->lineage, "orders.tax");
    sluice_codefacts_add_output(f, "n", "BIGINT", NULL);
    sluice_codefacts_list_add(f, &f->functions, "sum");
    sluice_codefacts_list_add(f, &f->operations, "update_orders");
    f->blocked_in_predicate = true;
    f->estimated_rows = 42;
    f->estimated_cost = 1234.5;
    f->estimate_kind = SLUICE_ESTIMATE_PLAN_ROWS;
    f->estimate_engine = "DuckDB";
    f->complexity = 7;
    f->depth = 2;
    sluice_codefacts_violate(f, "sql_allow_writes", 3, 9, NULL, "writes are off");
    sluice_codefacts_violate(f, "blocked_column", 0, 0, "drop it", "reads %s", "ssn");
    sluice_codefacts_warn(f, "careful");
    assert_false(f->incomplete);
    return f;
}

static const char want[] =
    "{\"language\":\"sql\",\"action\":\"Write\",\"statementType\":\"UPDATE\",\"codeHash\":\"00ff\","
    "\"tablesRead\":[\"orders\",\"caf\xc3\xa9\"],\"tablesWritten\":[\"orders\"],"
    "\"columnsRead\":[\"orders.\\\"q\\\\t\\\"\\n\"],\"outputs\":[{\"name\":\"total\",\"type\":"
    "\"DOUBLE\",\"lineage\":[\"orders.amount\",\"orders.tax\"]},{\"name\":\"n\",\"type\":"
    "\"BIGINT\",\"lineage\":[]}],\"functions\":[\"sum\"],\"calledOperations\":"
    "[\"update_orders\"],\"blockedFieldsUsedOnlyInternally\":[],\"blockedFieldInPredicate\":true,"
    "\"estimatedRows\":42,\"estimatedCost\":1234.5,\"estimateEngine\":\"DuckDB\",\"complexity\":7,"
    "\"depth\":2,\"callCount\":0,\"loopCount\":0,\"violations\":[{\"rule\":\"sql_allow_writes\","
    "\"message\":\"writes are off\",\"suggestion\":null,\"location\":{\"line\":3,\"column\":9}},"
    "{\"rule\":\"blocked_column\",\"message\":\"reads ssn\",\"suggestion\":\"drop it\"}],"
    "\"warnings\":[\"careful\"]}";

static void test_record_text_has_every_member_in_place(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    const sluice_codefacts *f = sample(arena);
    sluice_buf buf;
    sluice_buf_init(&buf, arena, 0);
    assert_int_equal(sluice_codefacts_write_json(f, &buf), SLUICE_OK);
    assert_string_equal(sluice_buf_cstr(&buf), want);
    /* the tree is the same record: json_dumps writes it back to the same text */
    json_t *tree = sluice_codefacts_to_json(f);
    assert_non_null(tree);
    char *again = json_dumps(tree, JSON_COMPACT);
    assert_string_equal(again, want);
    free(again);
    json_decref(tree);
    sluice_arena_free(arena);
}

static void test_record_with_a_bad_string_is_no_record(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_codefacts *f = sample(arena);
    f->outputs[1].type = "\xc3("; /* not UTF-8: json_string made no value of it either */
    sluice_buf buf;
    sluice_buf_init(&buf, arena, 0);
    assert_int_equal(sluice_codefacts_write_json(f, &buf), SLUICE_E_INVALID);
    assert_null(sluice_codefacts_json_splice(f, arena));
    assert_null(sluice_codefacts_to_json(f));
    sluice_arena_free(arena);
}

typedef struct splice_case {
    const sluice_codefacts *facts;
} splice_case;

/* The splice carries the whole text or there is none. It borrows the text from scratch, so it
 * is read, and released, before scratch is freed (under ASan a read after would fail). */
static oom_outcome splice_once(void *ctx)
{
    const splice_case *c = ctx;
    sluice_arena *scratch = sluice_arena_new();
    if (scratch == NULL)
        return OOM_FAILED;
    json_t *splice = sluice_codefacts_json_splice(c->facts, scratch);
    const char *text;
    size_t len;
    oom_outcome o = splice == NULL ? OOM_FAILED
                    : !sluice_arena_failed(scratch) &&
                            sluice_json_splice_text(splice, &text, &len) && len == strlen(want) &&
                            memcmp(text, want, len) == 0
                        ? OOM_ALLOWED
                        : OOM_WRONG;
    json_decref(splice);
    sluice_arena_free(scratch);
    return o;
}

/* The placeholder is the arena's text, not a copy of it (nothing else to keep in step): the wire
 * writes the record as it is there, and so does an expansion. */
static void test_splice_borrows_the_arena_text(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    const sluice_codefacts *f = sample(arena);
    json_t *answer = json_pack("{s:o}", "metadata", sluice_codefacts_json_splice(f, arena));
    assert_non_null(answer);
    const char *text;
    size_t len;
    assert_true(sluice_json_splice_text(json_object_get(answer, "metadata"), &text, &len));
    assert_int_equal(len, strlen(want));
    assert_memory_equal(text, want, len);
    char *wire = sluice_json_write_text(answer, NULL);
    assert_non_null(wire);
    size_t head = strlen("{\"metadata\":");
    assert_int_equal(strlen(wire), head + len + 1);
    assert_memory_equal(wire + head, want, len);
    free(wire);
    assert_null(json_dumps(answer, JSON_COMPACT)); /* never sent as anything but its text */
    json_t *plain = sluice_json_splice_expand(answer);
    assert_non_null(plain);
    char *dumped = json_dumps(json_object_get(plain, "metadata"), JSON_COMPACT);
    assert_string_equal(dumped, want);
    free(dumped);
    json_decref(plain);
    json_decref(answer); /* before the arena that holds the text */
    sluice_arena_free(arena);
}

static void test_splice_sweep_is_the_text_or_nothing(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    splice_case c = { sample(arena) };
    oom_count_jansson();
    long points =
        oom_sweep("codefacts splice", splice_once, &c, OOM_ALLOWED, OOM_ACCEPT(OOM_FAILED));
    json_set_alloc_funcs(malloc, free);
    assert_true(points > 1);
    sluice_arena_free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_text_has_every_member_in_place),
        cmocka_unit_test(test_record_with_a_bad_string_is_no_record),
        cmocka_unit_test(test_splice_borrows_the_arena_text),
        cmocka_unit_test(test_splice_sweep_is_the_text_or_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
