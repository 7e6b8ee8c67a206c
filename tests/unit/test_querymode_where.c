/*
 * test_querymode_where.c — `load`'s where filter (querymode/where.c) and the request plan it
 * becomes (querymode/fanout.c): comparisons, IN lists and BETWEEN parse with their positions;
 * bad input is an error naming the column (1-based) and what was expected, never a crash; the
 * limits hold; terms map onto declared parameters exactly (load) or widened (query); an IN list
 * fans out into one request per distinct value; a missing required filter names the column and
 * its operators; the canonical key does not depend on the order filters were written in.
 */
#include "core/limits.h"
#include "querymode/fanout.h"
#include "querymode/where.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sluice_status
parse(sluice_arena *a, const char *text, sluice_qm_term **t, size_t *n, sluice_error *err)
{
    memset(err, 0, sizeof(*err));
    return sluice_qm_where_parse(text, a, t, n, err);
}

static void comparisons_in_and_between(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_qm_term *t = NULL;
    size_t n = 0;
    sluice_error err;
    assert_int_equal(parse(a,
                           "Date >= DATE '2026-01-01' AND Status IN ('paid', 'it''s', 'paid') "
                           "and Total BETWEEN 10 AND -2.5 AND \"Year\" = 2026",
                           &t, &n, &err),
                     SLUICE_OK);
    assert_int_equal(n, 5);
    assert_string_equal(t[0].column, "Date");
    assert_string_equal(t[0].op, ">=");
    assert_int_equal(t[0].value_count, 1);
    assert_string_equal(t[0].values[0], "2026-01-01");
    assert_int_equal(t[0].column_at, 1);
    assert_string_equal(t[1].op, "=");
    assert_int_equal(t[1].value_count, 3);
    assert_string_equal(t[1].values[1], "it's");
    assert_int_equal(t[1].column_at, 31);
    assert_string_equal(t[2].column, "Total");
    assert_string_equal(t[2].op, ">=");
    assert_string_equal(t[2].values[0], "10");
    assert_string_equal(t[3].column, "Total");
    assert_string_equal(t[3].op, "<=");
    assert_string_equal(t[3].values[0], "-2.5");
    assert_string_equal(t[4].column, "Year");
    assert_string_equal(t[4].values[0], "2026");
    assert_int_equal(parse(a, "   ", &t, &n, &err), SLUICE_OK);
    assert_int_equal(n, 0);
    sluice_arena_free(a);
}

static void bad_input_names_the_column(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *needle;
    } cases[] = {
        { "Date >= '2026", "column 9: expected a value" }, /* unterminated string */
        { "Date", "column 5: expected one of =" },
        { "Date >= ", "column 9: expected a value" },
        { "Date >= 1 OR Status = 'x'", "column 11: expected AND or the end" },
        { "1Date = 1", "column 1: expected a column name" },
        { "Status IN 'x'", "column 11: expected ( after IN" },
        { "Status IN ('x' 'y')", "column 16: expected , or )" },
        { "Status IN ()", "column 12: expected a value" },
        { "Total BETWEEN 1 OR 2", "column 17: expected AND between" },
        { "Date >= '1'; DROP TABLE x", "column 12: expected AND or the end" },
        { "\"Date = 1", "column 1: expected a column name" },
    };
    sluice_arena *a = sluice_arena_new();
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sluice_qm_term *t = NULL;
        size_t n = 0;
        sluice_error err;
        assert_int_equal(parse(a, cases[i].text, &t, &n, &err), SLUICE_E_INVALID);
        if (strstr(err.message, cases[i].needle) == NULL)
            fail_msg("'%s': got '%s', want '%s'", cases[i].text, err.message, cases[i].needle);
    }
    sluice_arena_free(a);
}

static void limits_hold(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    char big[SLUICE_QM_WHERE_MAX_BYTES + 8];
    memset(big, ' ', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    sluice_qm_term *t = NULL;
    size_t n = 0;
    sluice_error err;
    assert_int_equal(parse(a, big, &t, &n, &err), SLUICE_E_LIMIT);
    char many[2048] = "";
    for (unsigned i = 0; i <= SLUICE_QM_WHERE_MAX_TERMS; i++)
        snprintf(many + strlen(many), sizeof(many) - strlen(many), "%sa = %u", i ? " AND " : "", i);
    assert_int_equal(parse(a, many, &t, &n, &err), SLUICE_E_LIMIT);
    assert_non_null(strstr(err.message, "terms"));
    char list[4096] = "a IN (";
    for (unsigned i = 0; i <= SLUICE_QM_WHERE_MAX_IN; i++)
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%u", i ? "," : "", i);
    snprintf(list + strlen(list), sizeof(list) - strlen(list), ")");
    assert_int_equal(parse(a, list, &t, &n, &err), SLUICE_E_LIMIT);
    sluice_arena_free(a);
}

/* The example's invoices source: Date >= / <=, Status =, a required Year =. */
static sluice_config_source_param params[] = {
    { .name = "date_from", .column = "Date", .op = ">=" },
    { .name = "date_to", .column = "Date", .op = "<=" },
    { .name = "status", .column = "Status", .op = "=" },
    { .name = "year", .column = "Year", .op = "=", .required = true },
    { .name = "format", .default_value = "json", .op = "=" },
};
static const sluice_config_source source = { .name = "invoices",
                                             .params = params,
                                             .param_count = 5 };

static const char *value_of(const sluice_qm_param_set *ps, const char *name)
{
    for (size_t i = 0; i < ps->count; i++)
        if (strcmp(ps->items[i].name, name) == 0)
            return ps->items[i].value;
    return NULL;
}

static sluice_status
plan(sluice_arena *a, const char *where, bool widen, sluice_qm_requests *r, sluice_error *err)
{
    sluice_qm_term *t = NULL;
    size_t n = 0;
    memset(err, 0, sizeof(*err));
    sluice_status st = sluice_qm_where_parse(where, a, &t, &n, err);
    sluice_qm_fanout_options o = { .widen = widen, .label = widen ? "query" : "where" };
    return st == SLUICE_OK ? sluice_qm_fanout(&source, NULL, t, n, &o, r, a, err) : st;
}

static void in_lists_fan_out(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_qm_requests r;
    sluice_error err;
    assert_int_equal(plan(a,
                          "Year = 2026 AND Status IN ('paid', 'overdue', 'paid') AND "
                          "Date >= '2026-01-01'",
                          false, &r, &err),
                     SLUICE_OK);
    assert_int_equal(r.count, 2);
    assert_true(r.exact);
    const char *seen[2] = { value_of(&r.sets[0], "status"), value_of(&r.sets[1], "status") };
    assert_true((strcmp(seen[0], "paid") == 0 && strcmp(seen[1], "overdue") == 0) ||
                (strcmp(seen[0], "overdue") == 0 && strcmp(seen[1], "paid") == 0));
    for (size_t k = 0; k < 2; k++) {
        assert_string_equal(value_of(&r.sets[k], "date_from"), "2026-01-01");
        assert_string_equal(value_of(&r.sets[k], "year"), "2026");
        assert_string_equal(value_of(&r.sets[k], "format"), "json"); /* the default */
        assert_null(value_of(&r.sets[k], "date_to"));
    }
    /* two lists multiply; the key ignores the order the filters came in */
    sluice_qm_requests r2, r3;
    assert_int_equal(
        plan(a, "Year IN (2025, 2026) AND Status IN ('a', 'b', 'c')", false, &r2, &err), SLUICE_OK);
    assert_int_equal(r2.count, 6);
    assert_int_equal(
        plan(a, "Status IN ('c', 'b', 'a') AND Year IN (2026, 2025)", false, &r3, &err), SLUICE_OK);
    assert_string_equal(r2.key, r3.key);
    assert_int_equal(plan(a, "Status IN ('c') AND Year IN (2026, 2025)", false, &r3, &err),
                     SLUICE_OK);
    assert_string_not_equal(r2.key, r3.key);
    /* = on a column with only a range pair means both bounds */
    assert_int_equal(plan(a, "Year = 1 AND Date = '2026-05-05'", false, &r, &err), SLUICE_OK);
    assert_string_equal(value_of(&r.sets[0], "date_from"), "2026-05-05");
    assert_string_equal(value_of(&r.sets[0], "date_to"), "2026-05-05");
    sluice_arena_free(a);
}

static void exact_and_widened_mapping(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_qm_requests r;
    sluice_error err;
    /* load: > has no parameter: refused, listing what pushes down */
    assert_int_equal(plan(a, "Year = 1 AND Date > '2026-01-01'", false, &r, &err),
                     SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "where, column 14: source 'invoices' cannot filter on "
                                        "Date >; the filters it pushes down are: Date >=, "
                                        "Date <=, Status =, Year ="));
    assert_int_equal(plan(a, "Year = 1 AND Status = 'a' AND Status = 'b'", false, &r, &err),
                     SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "filtered twice"));
    /* query: widened onto >=, unknown columns left to the query, not exact */
    assert_int_equal(plan(a, "Year = 1 AND Date > '2026-01-01' AND Total = 3", true, &r, &err),
                     SLUICE_OK);
    assert_string_equal(value_of(&r.sets[0], "date_from"), "2026-01-01");
    assert_false(r.exact);
    assert_int_equal(plan(a, "Year = 1 AND Status = 'a' AND Status = 'b'", true, &r, &err),
                     SLUICE_OK);
    assert_string_equal(value_of(&r.sets[0], "status"), "a");
    assert_false(r.exact);
    /* an IN list on a column no parameter takes (found by fuzz_qm_where): left to the query */
    assert_int_equal(plan(a, "Year = 1 AND Total IN (1, 2, 3)", true, &r, &err), SLUICE_OK);
    assert_int_equal(r.count, 1);
    assert_false(r.exact);
    sluice_arena_free(a);
}

static void required_filters_and_caps(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_qm_requests r;
    sluice_error err;
    assert_int_equal(plan(a, "Status = 'paid'", true, &r, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "source 'invoices' needs a filter on column Year "
                                        "(operators: Year =)"));
    assert_non_null(strstr(err.message, "JOIN/IN"));
    /* the same filter through args is fine; an undeclared arg is not */
    json_t *args = json_pack("{s:i}", "year", 2026);
    sluice_qm_fanout_options o = { .widen = false, .label = "where" };
    assert_int_equal(sluice_qm_fanout(&source, args, NULL, 0, &o, &r, a, &err), SLUICE_OK);
    assert_string_equal(value_of(&r.sets[0], "year"), "2026");
    json_decref(args);
    args = json_pack("{s:s}", "url", "http://evil");
    assert_int_equal(sluice_qm_fanout(&source, args, NULL, 0, &o, &r, a, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "no parameter 'url'"));
    json_decref(args);
    /* more requests than SLUICE_LIMIT_QM_FANOUT: refused before any is sent */
    sluice_qm_term t[2] = { { .column = "Year", .op = "=" }, { .column = "Status", .op = "=" } };
    const char **vals = sluice_arena_calloc(a, 64, sizeof(char *));
    for (size_t i = 0; i < 64; i++)
        vals[i] = sluice_arena_printf(a, "%zu", i);
    t[0].values = t[1].values = vals;
    t[0].value_count = t[1].value_count = 64; /* 4096 > 1024 */
    assert_int_equal(sluice_qm_fanout(&source, NULL, t, 2, &o, &r, a, &err), SLUICE_E_LIMIT);
    assert_non_null(strstr(err.message, "more than 1024 requests"));
    /* a JOIN with no partner rows: no request at all */
    t[1].value_count = 0;
    t[0].value_count = 1;
    assert_int_equal(sluice_qm_fanout(&source, NULL, t, 2, &o, &r, a, &err), SLUICE_OK);
    assert_int_equal(r.count, 0);
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(comparisons_in_and_between),
        cmocka_unit_test(bad_input_names_the_column),
        cmocka_unit_test(limits_hold),
        cmocka_unit_test(in_lists_fan_out),
        cmocka_unit_test(exact_and_widened_mapping),
        cmocka_unit_test(required_filters_and_caps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
