/*
 * test_querymode_pushdown.c — a query's filters onto its sources (querymode/pushdown.c), on real
 * parse trees from the session engine's parser (exec/scratch.h): WHERE comparisons either way
 * round, IN lists, BETWEEN, INNER JOIN conditions, JOIN and IN-subquery values for required
 * filters, aliases and unqualified columns, a LIMIT only when it is safe to stop paging, OR and
 * functions never pushed, a source named twice with different filters marked, and statements that
 * are not one SELECT giving no needs rather than an error.
 */
#include "exec/scratch.h"
#include "querymode/pushdown.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static sluice_config_source_column inv_cols[] = {
    { .name = "InvoiceID" }, { .name = "ContactID" }, { .name = "Date" },
    { .name = "Status" },    { .name = "Total" },
};
static sluice_config_source sources[] = {
    { .name = "invoices", .auto_load = true, .columns = inv_cols, .column_count = 5 },
    { .name = "payments", .auto_load = true },
};

static const sluice_config_source *source_of(void *ctx, const char *table)
{
    (void)ctx;
    for (size_t i = 0; i < 2; i++)
        if (strcasecmp(sources[i].name, table) == 0)
            return &sources[i];
    return NULL;
}

/* customers (a session table) has id and region; invoices its declared columns. */
static int has_column(void *ctx, const char *table, const char *column)
{
    (void)ctx;
    if (strcasecmp(table, "customers") == 0)
        return strcasecmp(column, "id") == 0 || strcasecmp(column, "region") == 0;
    if (strcasecmp(table, "invoices") == 0) {
        for (size_t i = 0; i < 5; i++)
            if (strcasecmp(inv_cols[i].name, column) == 0)
                return 1;
        return 0;
    }
    return -1;
}

typedef struct fixture {
    char dir[64];
    sluice_executor *ex;
    sluice_arena *arena;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/sluice-qmpd-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    f->arena = sluice_arena_new();
    sluice_scratch_options o = { .spill_dir = f->dir, .memory_limit = "64MB", .max_spill = "16MB" };
    sluice_error err = { 0 };
    assert_int_equal(sluice_scratch_open(&o, &f->ex, f->arena, &err), SLUICE_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sluice_executor_close(f->ex);
    sluice_arena_free(f->arena);
    rmdir(f->dir);
    free(f);
    return 0;
}

static size_t needs_of(fixture *f, const char *sql, sluice_qm_need **out)
{
    json_t *tree = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_scratch_parse(f->ex, sql, f->arena, &tree, &err), SLUICE_OK);
    sluice_qm_pushdown_env env = { .source_of = source_of, .has_column = has_column };
    size_t n = 0;
    assert_int_equal(sluice_qm_pushdown(tree, &env, out, &n, f->arena, &err), SLUICE_OK);
    return n;
}

/* "Date>=2026-01-01" style rendering of one term, for compact assertions. */
static const char *show(fixture *f, const sluice_qm_need *n, size_t i)
{
    const sluice_qm_term *t = &n->terms[i];
    if (n->from_table[i] != NULL)
        return sluice_arena_printf(f->arena, "%s%s%s.%s", t->column, t->op, n->from_table[i],
                                   n->from_column[i]);
    char *s = sluice_arena_printf(f->arena, "%s%s", t->column, t->op);
    for (size_t v = 0; v < t->value_count; v++)
        s = sluice_arena_printf(f->arena, "%s%s%s", s, v ? "|" : "", t->values[v]);
    return s;
}

static void where_terms(void **state)
{
    fixture *f = *state;
    sluice_qm_need *n = NULL;
    assert_int_equal(needs_of(f,
                              "SELECT Status, count(*) FROM invoices i WHERE i.Date >= DATE "
                              "'2026-01-01' AND '2026-06-30' >= Date AND Status IN ('paid', "
                              "'overdue') AND Total BETWEEN 10 AND 20.5 AND (Status = 'x' OR "
                              "Total > 1) AND lower(Status) = 'paid' GROUP BY Status",
                              &n),
                     1);
    assert_ptr_equal(n[0].source, &sources[0]);
    assert_int_equal(n[0].term_count, 5);
    assert_string_equal(show(f, &n[0], 0), "Date>=2026-01-01");
    assert_string_equal(show(f, &n[0], 1), "Date<=2026-06-30"); /* flipped */
    assert_string_equal(show(f, &n[0], 2), "Status=paid|overdue");
    assert_string_equal(show(f, &n[0], 3), "Total>=10");
    assert_string_equal(show(f, &n[0], 4), "Total<=20.5");
    assert_int_equal(n[0].terms[0].column_at, 47); /* the column's 1-based position */
    assert_int_equal(n[0].limit, 0);               /* GROUP BY: no LIMIT anyway */
    assert_false(n[0].conflict);
}

static void join_and_in_subquery_values(void **state)
{
    fixture *f = *state;
    sluice_qm_need *n = NULL;
    assert_int_equal(needs_of(f,
                              "SELECT c.region, sum(i.Total) FROM customers c JOIN invoices i ON "
                              "i.ContactID = c.id AND i.Status = 'paid' WHERE c.region = 'EU' "
                              "GROUP BY 1",
                              &n),
                     1);
    assert_int_equal(n[0].term_count, 2);
    assert_string_equal(show(f, &n[0], 0), "ContactID=customers.id");
    assert_string_equal(show(f, &n[0], 1), "Status=paid");
    assert_int_equal(needs_of(f,
                              "SELECT count(*) FROM invoices WHERE ContactID IN (SELECT id FROM "
                              "customers WHERE region = 'EU')",
                              &n),
                     1);
    assert_int_equal(n[0].term_count, 1);
    assert_string_equal(show(f, &n[0], 0), "ContactID=customers.id");
    /* a LEFT JOIN's ON is not a filter of either side */
    assert_int_equal(needs_of(f,
                              "SELECT count(*) FROM customers c LEFT JOIN invoices i ON "
                              "i.ContactID = c.id AND i.Status = 'paid'",
                              &n),
                     1);
    assert_int_equal(n[0].term_count, 0);
    /* unqualified: 'region' is only the customers' (not pushed to invoices), Status only invoices'
     */
    assert_int_equal(needs_of(f,
                              "SELECT 1 FROM customers c, invoices i WHERE region = 'EU' AND "
                              "Status = 'paid' AND i.ContactID = c.id",
                              &n),
                     1);
    assert_int_equal(n[0].term_count, 2);
    assert_string_equal(show(f, &n[0], 0), "Status=paid");
    assert_string_equal(show(f, &n[0], 1), "ContactID=customers.id");
    /* two sources, one feeding the other */
    assert_int_equal(needs_of(f,
                              "SELECT 1 FROM invoices i JOIN payments p ON p.invoice = i.InvoiceID "
                              "WHERE i.Status = 'paid'",
                              &n),
                     2);
    assert_string_equal(n[0].source->name, "invoices");
    assert_string_equal(show(f, &n[1], 0), "invoice=invoices.InvoiceID");
}

static void limit_only_when_safe(void **state)
{
    fixture *f = *state;
    sluice_qm_need *n = NULL;
    needs_of(f, "SELECT InvoiceID, Total FROM invoices WHERE Status = 'paid' LIMIT 7", &n);
    assert_int_equal(n[0].limit, 7);
    needs_of(f, "SELECT * FROM invoices LIMIT 3", &n);
    assert_int_equal(n[0].limit, 3);
    static const char *const unsafe[] = {
        "SELECT * FROM invoices WHERE Status = 'paid' ORDER BY Total LIMIT 7",
        "SELECT * FROM invoices WHERE lower(Status) = 'paid' LIMIT 7",
        "SELECT DISTINCT Status FROM invoices LIMIT 7",
        "SELECT count(*) FROM invoices LIMIT 7",
        "SELECT * FROM invoices LIMIT 7 OFFSET 2",
        "SELECT * FROM invoices i JOIN customers c ON c.id = i.ContactID LIMIT 7",
        "SELECT * FROM (SELECT * FROM invoices LIMIT 7)",
    };
    for (size_t i = 0; i < sizeof(unsafe) / sizeof(unsafe[0]); i++) {
        assert_int_equal(needs_of(f, unsafe[i], &n), 1);
        if (n[0].limit != 0)
            fail_msg("LIMIT pushed for: %s", unsafe[i]);
    }
}

static void twice_with_other_filters_conflicts(void **state)
{
    fixture *f = *state;
    sluice_qm_need *n = NULL;
    assert_int_equal(needs_of(f,
                              "SELECT * FROM invoices a JOIN invoices b ON a.InvoiceID = "
                              "b.InvoiceID WHERE a.Status = 'paid' AND b.Status = 'void'",
                              &n),
                     1);
    assert_true(n[0].conflict);
    assert_int_equal(n[0].term_count, 0);
    assert_int_equal(n[0].refs, 2);
    assert_int_equal(needs_of(f,
                              "SELECT (SELECT count(*) FROM invoices WHERE Status = 'paid'), "
                              "count(*) FROM invoices WHERE Status = 'paid'",
                              &n),
                     1);
    assert_false(n[0].conflict);
    assert_int_equal(n[0].term_count, 1);
    /* twice through JOINs to the same column, narrowed differently: one load cannot serve both */
    assert_int_equal(needs_of(f,
                              "SELECT 1 FROM customers c1 JOIN invoices a ON a.ContactID = c1.id "
                              "AND c1.region = 'EU' UNION ALL SELECT 1 FROM customers c2 JOIN "
                              "invoices b ON b.ContactID = c2.id AND c2.region = 'US'",
                              &n),
                     1);
    assert_true(n[0].conflict);
    assert_int_equal(needs_of(f,
                              "SELECT 1 FROM customers c1 JOIN invoices a ON a.ContactID = c1.id "
                              "AND c1.region = 'EU' UNION ALL SELECT 1 FROM customers c2 JOIN "
                              "invoices b ON b.ContactID = c2.id AND c2.region = 'EU'",
                              &n),
                     1);
    assert_false(n[0].conflict);
    assert_int_equal(n[0].from_filter_count[0], 1);
    /* a CTE over the source: the source inside it is still found, with its own filter */
    assert_int_equal(needs_of(f,
                              "WITH paid AS (SELECT * FROM invoices WHERE Status = 'paid') "
                              "SELECT count(*) FROM paid",
                              &n),
                     1);
    assert_string_equal(show(f, &n[0], 0), "Status=paid");
}

static void not_a_select_gives_nothing(void **state)
{
    fixture *f = *state;
    static const char *const texts[] = { "SELEC * FROM invoices", "DELETE FROM invoices",
                                         "SELECT 1; SELECT 2", "", "SELECT * FROM customers",
                                         /* a WITH name shadows the source */
                                         "WITH invoices AS (SELECT 1 AS Status) SELECT * FROM "
                                         "invoices WHERE Status = 1" };
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        sluice_qm_need *n = NULL;
        assert_int_equal(needs_of(f, texts[i], &n), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(where_terms, setup, teardown),
        cmocka_unit_test_setup_teardown(join_and_in_subquery_values, setup, teardown),
        cmocka_unit_test_setup_teardown(limit_only_when_safe, setup, teardown),
        cmocka_unit_test_setup_teardown(twice_with_other_filters_conflicts, setup, teardown),
        cmocka_unit_test_setup_teardown(not_a_select_gives_nothing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
