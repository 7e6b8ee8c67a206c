/*
 * test_sql_predicates.c — blocked values rebuilt through predicates (issue 8 §1) and the
 * over-blocking controls (§5). Every refused case is a reconstruction an attacker would write:
 * generated relations (range, generate_series, VALUES, unnest, split strings) equated with a
 * blocked field, per-character comparisons, binary search, IN lists and subqueries, semi/anti
 * joins, USING, QUALIFY, HAVING, EXISTS, PARTITION BY, and taint carried through CTEs,
 * subqueries and UNION. Every accepted case is an analysis the contract allows (join on ssn,
 * ssn = $1, ssn = 'literal', scalar subqueries, LATERAL with LIMIT, LATERAL unnest, DESCRIBE).
 * Blocked fields: ssn (any table) and customers.email (sql_fixture.h).
 */
#include "codemode/risk.h"
#include "lang/sql/internal.h"
#include "sql_fixture.h"
#include "unit.h"

typedef struct refusal {
    const char *sql;
    const char *rule;    /* blocked_predicate or blocked_column */
    const char *message; /* a substring of that violation */
} refusal;

static const refusal refused[] = {
    /* generated relations equated with a blocked field */
    { "SELECT r.range AS n FROM range(1000000000) r JOIN customers c ON c.ssn = r.range::VARCHAR",
      "blocked_predicate", "a generated or computed value" },
    { "SELECT g.generate_series AS x FROM generate_series(1, 999999999) g, customers c "
      "WHERE c.ssn = printf('%09d', g.generate_series)",
      "blocked_predicate", "an expression that is not a column" },
    { "SELECT v.x FROM (VALUES ('a@x.com'), ('b@x.com')) v(x) JOIN customers c ON c.email = v.x",
      "blocked_predicate", "a generated or computed value" },
    { "SELECT u.x FROM unnest(['a@x.com', 'b@x.com']) u(x) JOIN customers c ON c.email = u.x",
      "blocked_predicate", "a generated or computed value" },
    { "SELECT s.x FROM unnest(string_split('a@x.com,b@x.com', ',')) s(x) "
      "WHERE s.x IN (SELECT email FROM customers)",
      "blocked_predicate", "a generated or computed value" },
    { "SELECT r.range FROM range(1000) r SEMI JOIN customers c ON c.ssn = r.range::VARCHAR",
      "blocked_predicate", "a generated or computed value" },
    { "SELECT r.range FROM range(1000) r ANTI JOIN customers c ON c.ssn = r.range::VARCHAR",
      "blocked_predicate", "a generated or computed value" },
    { "SELECT g.k FROM (SELECT range::VARCHAR AS ssn, range AS k FROM range(100)) g "
      "JOIN customers c USING (ssn)",
      "blocked_predicate", "a generated or computed value" },
    { "SELECT r.range FROM range(1000) r WHERE EXISTS (SELECT 1 FROM customers c "
      "WHERE c.ssn = r.range::VARCHAR)",
      "blocked_predicate", "a generated or computed value" },
    { "SELECT r.range FROM range(10) r, LATERAL (SELECT 1 AS one FROM customers c "
      "WHERE c.ssn = r.range::VARCHAR LIMIT 1) l",
      "blocked_predicate", "a generated or computed value" },
    { "SELECT name FROM customers WHERE ssn IN (SELECT range::VARCHAR FROM range(1000))",
      "blocked_predicate", "a generated or computed value" },
    { "SELECT name FROM customers c WHERE c.ssn = (SELECT max(range)::VARCHAR FROM range(10))",
      "blocked_predicate", "a generated or computed value" },
    { "SELECT name FROM customers WHERE ssn = concat('123', '-45-6789')", "blocked_predicate",
      "an expression that is not a column" },
    /* per-character comparisons */
    { "SELECT r.range AS pos, ch.c FROM range(1, 12) r, (VALUES ('0'), ('1'), ('2')) ch(c), "
      "customers cu WHERE substr(cu.ssn, r.range::INTEGER, 1) = ch.c",
      "blocked_predicate", "a function of it" },
    { "SELECT count(*) AS n FROM customers WHERE left(ssn, 3) = '123'", "blocked_predicate",
      "a function of it" },
    { "SELECT count(*) AS n FROM customers WHERE length(email) = 12", "blocked_predicate",
      "a function of it" },
    { "SELECT name FROM customers WHERE CAST(ssn AS INTEGER) = 5", "blocked_predicate",
      "a function of it" },
    { "SELECT name FROM customers c ANTI JOIN orders o ON left(c.ssn, 1) = o.status",
      "blocked_predicate", "a function of it" },
    /* binary search */
    { "SELECT count(*) AS n FROM customers WHERE ssn < '5'", "blocked_predicate", "binary search" },
    { "SELECT name FROM customers WHERE ssn BETWEEN '1' AND '5'", "blocked_predicate",
      "binary search" },
    { "SELECT name FROM customers WHERE email >= 'm'", "blocked_predicate", "binary search" },
    { "SELECT name FROM customers WHERE ssn <> '1'", "blocked_predicate", "<> / != " },
    { "SELECT name FROM customers WHERE email LIKE 'a%'", "blocked_predicate", "LIKE" },
    { "SELECT name FROM customers WHERE ssn ILIKE '1%'", "blocked_predicate", "LIKE" },
    { "SELECT name FROM customers WHERE regexp_matches(ssn, '^1')", "blocked_predicate",
      "regular expressions" },
    { "SELECT name FROM customers WHERE starts_with(email, 'a')", "blocked_predicate",
      "starts_with" },
    { "SELECT name FROM customers WHERE ssn IN ('1', '2')", "blocked_predicate", "IN (list)" },
    { "SELECT name FROM customers WHERE ssn = '1' OR ssn = '2'", "blocked_predicate", "inside OR" },
    { "SELECT name FROM customers WHERE NOT (ssn = '1')", "blocked_predicate", "<> / != " },
    { "SELECT name FROM customers WHERE NOT (ssn IN ('1', '2') AND plan = 'x')",
      "blocked_predicate", "inside OR" },
    { "SELECT name FROM customers WHERE CASE WHEN ssn = '1' THEN true ELSE false END",
      "blocked_predicate", "inside OR" },
    { "SELECT o.id FROM orders o ASOF JOIN customers c ON o.customer_id = c.id "
      "AND o.status >= c.ssn",
      "blocked_predicate", "ASOF" },
    /* HAVING, QUALIFY, windows, grouping, ordering */
    { "SELECT segment FROM customers GROUP BY segment HAVING max(ssn) > '5'", "blocked_predicate",
      "" },
    { "SELECT segment FROM customers GROUP BY segment HAVING count(DISTINCT ssn) = 2",
      "blocked_predicate", "a function of it" },
    { "SELECT name FROM customers QUALIFY count(*) OVER (PARTITION BY left(ssn, 3)) > 1",
      "blocked_predicate", "a function of it" },
    { "SELECT name FROM customers QUALIFY row_number() OVER (ORDER BY ssn) = 1",
      "blocked_predicate", "ORDER BY" },
    { "SELECT name FROM (SELECT name, count(*) OVER (PARTITION BY substr(ssn, 1, 1)) AS n "
      "FROM customers) t WHERE n > 0",
      "blocked_predicate", "a function of it" },
    { "SELECT count(*) AS n FROM customers GROUP BY left(ssn, 1)", "blocked_predicate",
      "a function of it" },
    { "SELECT name FROM customers ORDER BY ssn", "blocked_predicate", "ORDER BY" },
    { "SELECT name FROM customers ORDER BY email DESC LIMIT 1", "blocked_predicate", "ORDER BY" },
    { "SELECT name FROM (SELECT name, substr(ssn, 1, 1) AS p FROM customers) t WHERE p = '1'",
      "blocked_predicate", "a function of it" },
    /* taint carried through CTEs, subqueries, set operations and chains of joins */
    { "WITH g AS (SELECT range AS v FROM range(1000)), m AS (SELECT g.v FROM g JOIN customers c "
      "ON c.ssn = g.v::VARCHAR) SELECT v FROM m",
      "blocked_predicate", "a generated or computed value" },
    { "WITH m AS (SELECT k.email AS e FROM contacts k JOIN customers c ON c.email = k.email) "
      "SELECT e FROM m UNION SELECT name FROM sales_reps",
      "blocked_column", "compares with blocked field customers.email" },
    { "SELECT x FROM (SELECT k.phone AS x FROM contacts k WHERE k.phone IN "
      "(SELECT ssn FROM customers)) t",
      "blocked_column",
      "contacts.phone, which the statement compares with blocked field "
      "customers.ssn" },
    { "SELECT k.name FROM contacts k SEMI JOIN customers c ON c.ssn = k.name", "blocked_column",
      "contacts.name" },
    { "SELECT r.range FROM range(100000) r JOIN orders o ON o.status = r.range::VARCHAR "
      "JOIN customers c ON c.ssn = o.status",
      "blocked_predicate", "orders.status (compared with blocked field customers.ssn)" },
    { "SELECT count(*) AS n FROM orders o JOIN customers c ON c.ssn = o.status "
      "WHERE o.status LIKE '1%'",
      "blocked_predicate", "orders.status (compared with blocked field customers.ssn)" },
    { "SELECT k.name FROM contacts k JOIN customers c USING (email) UNION ALL "
      "SELECT k.email FROM contacts k JOIN customers c USING (email)",
      "blocked_column", "contacts.email" },
    { "SELECT u.x FROM customers c, LATERAL unnest([c.ssn, c.name]) u(x)", "blocked_column",
      "customers.ssn" },
    { "SELECT c.name FROM customers c, LATERAL unnest(string_split(c.ssn, '-')) t(part) "
      "WHERE t.part = '123'",
      "blocked_predicate", "an argument of unnest" },
    { "SELECT r.range FROM range(10) r JOIN (SELECT ssn FROM customers GROUP BY ssn) g "
      "ON g.ssn = r.range::VARCHAR",
      "blocked_predicate", "a generated or computed value" },
    { "SELECT x FROM (SELECT ssn AS x FROM customers UNION ALL SELECT '1') t WHERE x = '1'",
      "blocked_predicate", "a function of it" },
    { "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 9) "
      "SELECT r.n FROM r JOIN customers c ON c.ssn = r.n::VARCHAR",
      "blocked_predicate", "a generated or computed value" },
    { "SELECT name FROM customers WHERE ssn IN (SELECT ssn FROM customers) OR name = 'x'",
      "blocked_predicate", "inside OR" },
    { "SELECT name FROM customers LIMIT (SELECT count(*) FROM customers WHERE ssn < '5')",
      "blocked_predicate", "binary search" },
    /* the row count of an unnest over it: a character code per query (session 16's probe) */
    { "SELECT count(*) AS n FROM customers c, LATERAL (SELECT unnest(range(ascii(substr(c.ssn, "
      "1, 1)))) AS k) x WHERE c.id = 1",
      "blocked_predicate", "an argument of unnest" },
    { "SELECT count(*) AS n FROM customers c, unnest(string_split(c.ssn, '')) u",
      "blocked_predicate", "an argument of unnest" },
    { "SELECT count(*) AS n FROM customers c, LATERAL unnest(range(ascii(c.email))) x",
      "blocked_predicate", "an argument of unnest" },
    { "SELECT count(*) AS n FROM (SELECT generate_subscripts(range(ascii(ssn)), 1) FROM "
      "customers) t",
      "blocked_predicate", "an argument of unnest" },
    /* set operations that compare rows: a character guess, distinct prefixes, many guesses */
    { "SELECT count(*) AS n FROM (SELECT substr(ssn, 1, 1) FROM customers INTERSECT SELECT 'q') t",
      "blocked_predicate", "a function of it" },
    { "SELECT count(*) AS n FROM (SELECT email FROM customers UNION SELECT left(email, 3) FROM "
      "customers) t",
      "blocked_predicate", "a function of it" },
    { "SELECT count(*) AS n FROM (SELECT ssn FROM customers EXCEPT ALL SELECT range::VARCHAR "
      "FROM range(1000)) t",
      "blocked_predicate", "a generated or computed value" },
    { "WITH RECURSIVE r(x) AS (SELECT substr(ssn, 1, 1) FROM customers UNION SELECT x FROM r) "
      "SELECT count(*) AS n FROM r",
      "blocked_predicate", "a function of it" },
    /* computed and never returned: whether computing it fails answers a question */
    { "WITH t AS MATERIALIZED (SELECT id, CAST(CASE WHEN substr(ssn, 1, 1) > 'm' THEN 'a' ELSE "
      "'1' END AS INTEGER) AS x FROM customers) SELECT count(*) AS n FROM t",
      "blocked_predicate", "a function of it" },
    { "SELECT c.id FROM customers c, LATERAL (VALUES (CASE WHEN c.ssn > 'm' THEN 1 END)) v(x)",
      "blocked_predicate", "a function of it" },
    { "SELECT plan, n FROM (SELECT plan, max(email) AS m, count(*) AS n FROM customers GROUP BY "
      "plan) t",
      "blocked_predicate", "a function of it" },
    { "SELECT count(*) AS n FROM (SELECT ssn::JSON AS u FROM customers) x", "blocked_predicate",
      "a function of it" },
    { "SELECT k.email FROM contacts k, (SELECT email FROM contacts INTERSECT SELECT email FROM "
      "customers) t",
      "blocked_column", "compares with blocked field customers.email" },
};

static const char *const accepted[] = {
    /* the contract's uses: join on a blocked field, look one up */
    "SELECT c.name, k.name AS contact FROM customers c JOIN contacts k ON k.email = c.email",
    "SELECT c.name FROM customers c JOIN customers d ON d.ssn = c.ssn",
    "SELECT k.name FROM contacts k JOIN customers c USING (email)",
    "SELECT name FROM customers WHERE ssn = $1",
    "SELECT name FROM customers WHERE ssn = $1::VARCHAR",
    "SELECT name FROM customers WHERE ssn = '123-45-6789'",
    "SELECT name FROM customers WHERE ssn IS NOT DISTINCT FROM '123-45-6789'",
    "SELECT name FROM customers WHERE email = 'a@example.com' AND plan = 'pro'",
    "SELECT name FROM customers WHERE ssn IN (SELECT ssn FROM customers WHERE plan = 'pro')",
    "SELECT name FROM customers WHERE ssn NOT IN (SELECT ssn FROM support_tickets t "
    "JOIN customers c ON c.id = t.customer_id)",
    "SELECT name FROM customers c WHERE EXISTS (SELECT 1 FROM contacts k "
    "WHERE k.customer_id = c.id AND k.email = c.email)",
    "SELECT name FROM customers c SEMI JOIN customers d ON c.ssn = d.ssn",
    "SELECT name FROM customers c ANTI JOIN contacts k ON k.email = c.email",
    "SELECT count(*) AS n FROM customers GROUP BY ssn",
    "SELECT DISTINCT ON (ssn) name FROM customers ORDER BY name",
    "SELECT name FROM customers WHERE email IS NULL",
    "SELECT plan, count(*) AS n FROM customers GROUP BY plan, ssn IS NULL",
    "SELECT name FROM customers WHERE ssn = '1' AND email = 'a@example.com'",
    /* the scalar-subquery examples of issue 8 (DuckDB's own hidden error()) */
    "SELECT id FROM orders WHERE order_date < (SELECT max(order_date) - INTERVAL 14 DAY FROM "
    "orders)",
    "SELECT id FROM orders WHERE total_cents > (SELECT avg(total_cents) FROM orders)",
    "SELECT name, (SELECT count(*) FROM orders) AS n FROM customers",
    /* LATERAL with LIMIT, LATERAL unnest */
    "SELECT c.name, l.t FROM customers c, LATERAL (SELECT total_cents AS t FROM orders o "
    "WHERE o.customer_id = c.id ORDER BY total_cents DESC LIMIT 2) l",
    "SELECT c.name, u.x FROM customers c, LATERAL unnest([c.id, c.rep_id]) u(x)",
    "SELECT c.name, t.u FROM customers c, unnest(string_split(c.plan, ',')) t(u)",
    "SELECT c.name, u.x FROM customers c, LATERAL unnest([c.id, c.rep_id]) u(x) WHERE c.ssn = '1'",
    /* a subquery passing the bare column on, or testing it for NULL */
    "SELECT x.id FROM (SELECT id, ssn FROM customers) x JOIN customers d ON d.ssn = x.ssn",
    "SELECT count(*) AS n FROM (SELECT id, ssn IS NULL AS z FROM customers) t",
    /* set operations over the bare column, or that keep every row */
    "SELECT count(*) AS n FROM (SELECT ssn FROM customers INTERSECT SELECT ssn FROM customers "
    "WHERE plan = 'pro') t",
    "SELECT count(*) AS n FROM (SELECT ssn FROM customers UNION ALL SELECT email FROM "
    "customers) t",
    /* DESCRIBE a table or a view */
    "DESCRIBE customers",
    "DESCRIBE customer_directory",
};

static void test_sql_predicates_reconstructions_are_refused(void **state)
{
    (void)state;
    size_t failures = 0;
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        const sluice_codefacts *f = fixture_analyze(refused[i].sql);
        const sluice_codefacts_violation *v = fixture_violation(f, refused[i].rule);
        if (v == NULL || strstr(v->message, refused[i].message) == NULL) {
            failures++;
            fprintf(stderr, "FAIL (expected %s: %s)\n", refused[i].rule, refused[i].message);
            fixture_dump(refused[i].sql, f);
        }
        assert_true(sluice_codefacts_refused(f));
    }
    assert_int_equal(failures, 0);
}

static void test_sql_predicates_controls_are_accepted(void **state)
{
    (void)state;
    size_t failures = 0;
    for (size_t i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++) {
        const sluice_codefacts *f = fixture_analyze(accepted[i]);
        if (f->violation_count != 0) {
            failures++;
            fixture_dump(accepted[i], f);
        }
    }
    assert_int_equal(failures, 0);
}

/* Any predicate on a blocked field, allowed or not, is at least high risk. */
static void test_sql_predicates_raise_risk_to_high(void **state)
{
    (void)state;
    static const char *const lookups[] = {
        "SELECT name FROM customers WHERE ssn = '123-45-6789' LIMIT 1",
        "SELECT name FROM customers WHERE ssn = $1::VARCHAR LIMIT 1",
        "SELECT c.name FROM customers c JOIN contacts k ON k.email = c.email LIMIT 5",
        "SELECT count(*) AS n FROM customers GROUP BY ssn LIMIT 5",
        "SELECT name FROM customers WHERE ssn IN (SELECT ssn FROM customers WHERE plan = 'pro') "
        "LIMIT 5",
    };
    for (size_t i = 0; i < sizeof(lookups) / sizeof(lookups[0]); i++) {
        const sluice_codefacts *f = fixture_analyze(lookups[i]);
        const char *why = NULL;
        assert_int_equal(f->violation_count, 0);
        assert_true(f->blocked_in_predicate);
        assert_int_equal(sluice_risk_assess(sluice_sql_frontend(), f, &why), SLUICE_RISK_HIGH);
    }
    const sluice_codefacts *f = fixture_analyze("SELECT name FROM customers WHERE ssn = '1'");
    json_t *j = sluice_codefacts_to_json(f);
    assert_non_null(j);
    assert_true(json_is_true(json_object_get(j, "blockedFieldInPredicate")));
    json_decref(j);
    const sluice_codefacts *clean = fixture_analyze("SELECT name FROM customers LIMIT 5");
    assert_false(clean->blocked_in_predicate);
    const sluice_codefacts *joined = fixture_analyze(
        "SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id LIMIT 5");
    assert_false(joined->blocked_in_predicate);
}

/* The violation names the rule, the field, what was written, and what is allowed; it points
 * at the place in the text. */
static void test_sql_predicates_message_says_what_is_allowed(void **state)
{
    (void)state;
    const sluice_codefacts *f =
        fixture_analyze("SELECT count(*) AS n\nFROM customers\nWHERE ssn < '5'");
    const sluice_codefacts_violation *v = fixture_violation(f, "blocked_predicate");
    assert_non_null(v);
    assert_non_null(strstr(v->message, "blocked field customers.ssn"));
    assert_non_null(strstr(v->message, "<, <=, >, >=, BETWEEN"));
    assert_non_null(strstr(v->message, "may only be compared with = "));
    assert_non_null(v->suggestion);
    assert_non_null(strstr(v->suggestion, "one literal or one parameter"));
    assert_int_equal(v->line, 3);
    assert_int_equal(v->column, 11);
}

/* The rule table: one row per use, in enum order, each with a reason; the allowed rows are
 * exactly the forms the contract names. */
static void test_sql_predicates_rule_table_is_complete(void **state)
{
    (void)state;
    size_t n = 0;
    const sluice_sql_pred_rule *rules = sluice_sql_pred_rules(&n);
    assert_int_equal(n, SLUICE_SQL_USE_LIMIT + 1);
    size_t allowed = 0;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rules[i].use, i);
        assert_ptr_equal(sluice_sql_pred_rule_for(rules[i].use), &rules[i]);
        assert_true(strlen(rules[i].what) > 5 && strlen(rules[i].message) > 10);
        allowed += rules[i].allowed;
    }
    assert_int_equal(allowed, 6);
    assert_true(sluice_sql_pred_rule_for(SLUICE_SQL_USE_EQ_COLUMN)->allowed);
    assert_true(sluice_sql_pred_rule_for(SLUICE_SQL_USE_EQ_LITERAL)->allowed);
    assert_true(sluice_sql_pred_rule_for(SLUICE_SQL_USE_EQ_PARAM)->allowed);
    assert_false(sluice_sql_pred_rule_for(SLUICE_SQL_USE_EQ_GENERATED)->allowed);
    assert_false(sluice_sql_pred_rule_for(SLUICE_SQL_USE_RANGE)->allowed);
    assert_false(sluice_sql_pred_rule_for(SLUICE_SQL_USE_ORDER)->allowed);
}

/* tag-blocked-predicates: docs/security.md has one row per rule, and as many "yes" rows as the
 * table has allowed uses. */
static void test_sql_predicates_table_is_documented(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof(path), "%s/docs/security.md", SLUICE_SOURCE_DIR);
    const char *doc = fixture_read_file(path);
    assert_non_null(doc);
    const char *at = strstr(doc, "| Use of a blocked field | Allowed | Why |");
    assert_non_null(at);
    size_t rows = 0, yes = 0;
    const char *line = strchr(at, '\n') + 1;
    line = strchr(line, '\n') + 1; /* the |---| separator */
    while (strncmp(line, "| ", 2) == 0) {
        rows++;
        const char *end = strchr(line, '\n');
        const char *cell = strstr(line, " | yes | ");
        yes += cell != NULL && (end == NULL || cell < end);
        if (end == NULL)
            break;
        line = end + 1;
    }
    size_t n = 0, allowed = 0;
    const sluice_sql_pred_rule *rules = sluice_sql_pred_rules(&n);
    for (size_t i = 0; i < n; i++)
        allowed += rules[i].allowed;
    assert_int_equal(rows, n);
    assert_int_equal(yes, allowed);
}

/* DESCRIBE <table> reads the table (rules apply) and marks its blocked fields; DESCRIBE
 * (query), SUMMARIZE and SHOW stay refused; a written error() stays refused. */
static void test_sql_predicates_describe_and_error(void **state)
{
    (void)state;
    const sluice_codefacts *f = fixture_analyze("DESCRIBE customers");
    assert_int_equal(f->violation_count, 0);
    assert_true(sluice_codefacts_list_has(&f->resources_read, "customers"));
    bool marked = false;
    for (size_t i = 0; i < f->warnings.count; i++)
        marked |= strstr(f->warnings.items[i], "customers.email is a blocked field") != NULL;
    assert_true(marked);
    static const char *const still_refused[] = {
        "DESCRIBE SELECT * FROM customers",
        "DESCRIBE (SELECT ssn FROM customers)",
        "SUMMARIZE customers",
        "SHOW TABLES",
        "DESCRIBE range(10)",
        "SELECT error('More than one row returned by a subquery used as an expression') AS e",
        "SELECT name FROM customers WHERE id = (SELECT error(ssn) FROM customers LIMIT 1)",
    };
    for (size_t i = 0; i < sizeof(still_refused) / sizeof(still_refused[0]); i++) {
        const sluice_codefacts *g = fixture_analyze(still_refused[i]);
        if (g->violation_count == 0)
            fixture_dump(still_refused[i], g);
        assert_true(g->violation_count > 0);
    }
    sluice_config_code_mode cm = fixture_cm();
    const char *hidden[] = { "customers" };
    cm.sql_blocked_tables.items = hidden;
    cm.sql_blocked_tables.count = 1;
    assert_non_null(
        fixture_violation(fixture_analyze_with("DESCRIBE customers", &cm), "sql_blocked_tables"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sql_predicates_reconstructions_are_refused,
                                        fixture_arena_new, fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_predicates_controls_are_accepted,
                                        fixture_arena_new, fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_predicates_raise_risk_to_high, fixture_arena_new,
                                        fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_predicates_message_says_what_is_allowed,
                                        fixture_arena_new, fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_predicates_rule_table_is_complete,
                                        fixture_arena_new, fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_predicates_table_is_documented, fixture_arena_new,
                                        fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_predicates_describe_and_error, fixture_arena_new,
                                        fixture_arena_free),
    };
    return cmocka_run_group_tests(tests, fixture_open, fixture_close);
}
