/*
 * proto.cpp — measurement prototype for issue 23's "bind once" route (not product code).
 *
 * Owns: one question, answered in callgrind instructions: what does binding a statement ONCE
 * through DuckDB's C++ API (Connection::ExtractPlan: parse, plan, optimize, resolve) and walking
 * the LogicalOperator tree in memory cost, against the engine's own parse + bind through the C
 * API (the bench/sql reference), and against the two extra passes today's analyzer makes
 * (json_serialize_sql and json_serialize_plan run as queries, each read into a jansson DOM).
 * Built only against DuckDB 1.4.4's own headers and 1.4.4's libduckdb.so (bench/bindonce/run.sh
 * fetches both from npm): headers and library of different versions are not acceptable.
 * Does not own: any policy; the walk below visits what the lineage walker must visit (every
 * operator, its column bindings, every expression, every function and table scan) and counts,
 * so its cost bounds an in-memory walker from below, not from above.
 *
 * Built with -DPROTO_UNIT (run.sh, UNIT_BUILD=<a -DSLUICE_DUCKDB_CPP=ON build dir>), it has one
 * more side: unit_bind, the product's own unit (exec/duckdb_plan.cpp: one bind, translated into
 * sluice's arena tree), so the projection above can be checked against the code that ships.
 *
 *   proto --db FILE --side capi_prepare|extract_plan|extract_plan_walk|serialize_sql|
 *         serialize_plan|unit_bind --stmt seed000|seed003|rows1000 [--warmup N] [--iterations N]
 */
#include "duckdb.h"
#include "duckdb/catalog/catalog_entry/table_catalog_entry.hpp"
#include "duckdb/main/client_context.hpp"
#include "duckdb/main/connection.hpp"
#include "duckdb/planner/expression.hpp"
#include "duckdb/planner/expression/bound_aggregate_expression.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"
#include "duckdb/planner/expression/bound_window_expression.hpp"
#include "duckdb/planner/expression_iterator.hpp"
#include "duckdb/planner/logical_operator.hpp"
#include "duckdb/planner/logical_operator_visitor.hpp"
#include "duckdb/planner/operator/logical_get.hpp"

#include <jansson.h>
#include <time.h>
#ifdef PROTO_UNIT
#include "exec/duckdb_plan.h"
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <vector>
#include <string>

static const char seed000[] = "SELECT *\n"
                              "FROM (\n"
                              "    SELECT\n"
                              "        rep_id,\n"
                              "        customer_id,\n"
                              "        quarterly_revenue,\n"
                              "        LAG(quarterly_revenue) OVER (\n"
                              "            PARTITION BY customer_id\n"
                              "            ORDER BY quarter\n"
                              "        ) AS previous_quarter_revenue,\n"
                              "        ticket_count,\n"
                              "        quarter\n"
                              "    FROM account_quarterly_metrics\n"
                              ")\n"
                              "WHERE quarter = '2026-Q1'\n"
                              "  AND previous_quarter_revenue IS NOT NULL\n"
                              "  AND ticket_count > 3\n"
                              "ORDER BY\n"
                              "    (quarterly_revenue - previous_quarter_revenue) ASC\n"
                              "LIMIT 5;\n";

static const char seed003[] =
    "WITH current_revenue AS (\n"
    "  SELECT customer_id, SUM(total_cents) AS current_total_cents\n"
    "  FROM orders\n"
    "  WHERE order_date >= DATE '2026-04-01' AND order_date <  DATE '2026-07-01'\n"
    "  GROUP BY customer_id\n"
    "),\n"
    "previous_revenue AS (\n"
    "  SELECT customer_id, SUM(total_cents) AS previous_total_cents\n"
    "  FROM orders\n"
    "  WHERE order_date >= DATE '2026-01-01' AND order_date <  DATE '2026-04-01'\n"
    "  GROUP BY customer_id\n"
    "),\n"
    "ticket_counts AS (\n"
    "  SELECT customer_id, COUNT(*) AS ticket_count\n"
    "  FROM support_tickets\n"
    "  WHERE created_at >= TIMESTAMP '2026-04-01 00:00:00'\n"
    "    AND created_at <  TIMESTAMP '2026-07-01 00:00:00'\n"
    "  GROUP BY customer_id\n"
    ")\n"
    "SELECT c.id, c.name, current_revenue.current_total_cents,\n"
    "  previous_revenue.previous_total_cents, ticket_counts.ticket_count\n"
    "FROM customers c\n"
    "JOIN current_revenue ON current_revenue.customer_id = c.id\n"
    "JOIN previous_revenue ON previous_revenue.customer_id = c.id\n"
    "JOIN ticket_counts ON ticket_counts.customer_id = c.id\n"
    "WHERE c.plan = 'enterprise'\n"
    "  AND current_revenue.current_total_cents < previous_revenue.previous_total_cents\n"
    "  AND ticket_counts.ticket_count > 3\n"
    "ORDER BY previous_revenue.previous_total_cents - current_revenue.current_total_cents DESC\n"
    "LIMIT 20;\n";

static const char rows1000[] =
    "SELECT id, customer_id, order_date, total_cents, status FROM orders ORDER BY id LIMIT 1000";

[[noreturn]] static void die(const char *what, const char *detail)
{
    fprintf(stderr, "proto: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

/* What the walk saw; printed so the compiler keeps the walk and a reader can check it. */
struct walk_sink {
    size_t ops = 0, exprs = 0, bindings = 0, functions = 0, scans = 0, name_bytes = 0;
};

static void walk_expr(const duckdb::Expression &e, walk_sink &s, int depth)
{
    if (depth > 256)
        die("expression nested too deeply", nullptr);
    s.exprs++;
    switch (e.GetExpressionClass()) {
    case duckdb::ExpressionClass::BOUND_FUNCTION:
        s.functions++;
        s.name_bytes += e.Cast<duckdb::BoundFunctionExpression>().function.name.size();
        break;
    case duckdb::ExpressionClass::BOUND_AGGREGATE:
        s.functions++;
        s.name_bytes += e.Cast<duckdb::BoundAggregateExpression>().function.name.size();
        break;
    case duckdb::ExpressionClass::BOUND_WINDOW: {
        auto &w = e.Cast<duckdb::BoundWindowExpression>();
        s.functions++;
        if (w.aggregate)
            s.name_bytes += w.aggregate->name.size();
        break;
    }
    default:
        break;
    }
    duckdb::ExpressionIterator::EnumerateChildren(
        e, [&](const duckdb::Expression &child) { walk_expr(child, s, depth + 1); });
}

static void walk_op(duckdb::LogicalOperator &op, walk_sink &s, int depth)
{
    if (depth > 256)
        die("plan nested too deeply", nullptr);
    s.ops++;
    s.bindings += op.GetColumnBindings().size();
    if (op.type == duckdb::LogicalOperatorType::LOGICAL_GET) {
        auto &get = op.Cast<duckdb::LogicalGet>();
        s.scans++;
        s.name_bytes += get.function.name.size();
        auto table = get.GetTable();
        if (table)
            s.name_bytes += table->name.size();
        s.bindings += get.GetColumnIds().size();
    }
    duckdb::LogicalOperatorVisitor::EnumerateExpressions(
        op, [&](duckdb::unique_ptr<duckdb::Expression> *e) { walk_expr(**e, s, depth + 1); });
    for (auto &child : op.children)
        walk_op(*child, s, depth + 1);
}

struct proto {
    duckdb_database db = nullptr;
    duckdb_connection conn = nullptr;
    walk_sink sink;
};

static void capi_prepare(proto &p, const char *sql)
{
    duckdb_extracted_statements ex = nullptr;
    duckdb_prepared_statement ps = nullptr;
    if (duckdb_extract_statements(p.conn, sql, &ex) != 1)
        die("duckdb_extract_statements", duckdb_extract_statements_error(ex));
    if (duckdb_prepare_extracted_statement(p.conn, ex, 0, &ps) == DuckDBError)
        die("duckdb_prepare_extracted_statement", duckdb_prepare_error(ps));
    duckdb_destroy_prepare(&ps);
    duckdb_destroy_extracted(&ex);
}

/* The C API's duckdb_connection is a duckdb::Connection * in 1.4.4 (src/main/capi/duckdb-c.cpp,
 * duckdb_connect): the cast is exact for the version these headers came from, and only for it. */
static void extract_plan(proto &p, const char *sql, bool walk)
{
    auto *conn = reinterpret_cast<duckdb::Connection *>(p.conn);
    try {
        auto plan = conn->ExtractPlan(sql);
        if (walk)
            walk_op(*plan, p.sink, 0);
        else
            p.sink.ops++;
    } catch (std::exception &e) {
        die("ExtractPlan", e.what());
    }
}

/* Today's extra pass: the statement serialized by a query, then read into a jansson DOM. */
static void serialize(proto &p, const char *fn, const char *sql)
{
    std::string q = std::string("SELECT ") + fn + "($1::VARCHAR, skip_null:=true, skip_empty:=true)";
    duckdb_prepared_statement ps = nullptr;
    duckdb_result res;
    if (duckdb_prepare(p.conn, q.c_str(), &ps) != DuckDBSuccess ||
        duckdb_bind_varchar(ps, 1, sql) != DuckDBSuccess)
        die("prepare serialize", duckdb_prepare_error(ps));
    if (duckdb_execute_prepared(ps, &res) != DuckDBSuccess)
        die("serialize", duckdb_result_error(&res));
    char *text = duckdb_value_varchar(&res, 0, 0);
    json_t *j = text ? json_loads(text, JSON_DECODE_INT_AS_REAL, nullptr) : nullptr;
    if (j == nullptr)
        die("serialized plan unreadable", text);
    p.sink.ops += json_object_size(j);
    json_decref(j);
    duckdb_free(text);
    duckdb_destroy_result(&res);
    duckdb_destroy_prepare(&ps);
}

#ifdef PROTO_UNIT
static void unit_bind(proto &p, const char *sql)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = {};
    sluice_duckdb_plan *plan = nullptr;
    if (arena == nullptr ||
        sluice_exec_duckdb_plan_bind(p.conn, sql, nullptr, 0, arena, &plan, &err) != SLUICE_OK)
        die("sluice_exec_duckdb_plan_bind", err.message);
    p.sink.ops += plan->n_ops;
    p.sink.exprs += plan->n_exprs;
    sluice_arena_free(arena);
}
#endif

static void run(proto &p, const char *side, const char *sql)
{
    if (strcmp(side, "capi_prepare") == 0)
        capi_prepare(p, sql);
    else if (strcmp(side, "extract_plan") == 0)
        extract_plan(p, sql, false);
    else if (strcmp(side, "extract_plan_walk") == 0)
        extract_plan(p, sql, true);
    else if (strcmp(side, "serialize_sql") == 0)
        serialize(p, "json_serialize_sql", sql);
    else if (strcmp(side, "serialize_plan") == 0)
        serialize(p, "json_serialize_plan", sql);
#ifdef PROTO_UNIT
    else if (strcmp(side, "unit_bind") == 0)
        unit_bind(p, sql);
#endif
    else
        die("unknown side", side);
}

/* The one call callgrind counts (--toggle-collect=measured_once). */
extern "C" __attribute__((noinline)) void measured_once(proto *p, const char *side,
                                                        const char *sql);
extern "C" __attribute__((noinline)) void measured_once(proto *p, const char *side,
                                                        const char *sql)
{
    run(*p, side, sql);
}

int main(int argc, char **argv)
{
    const char *db = nullptr, *side = "capi_prepare", *stmt = "seed003";
    long warmup = 2, iterations = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--db") == 0)
            db = argv[i + 1];
        else if (strcmp(argv[i], "--side") == 0)
            side = argv[i + 1];
        else if (strcmp(argv[i], "--stmt") == 0)
            stmt = argv[i + 1];
        else if (strcmp(argv[i], "--warmup") == 0)
            warmup = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--iterations") == 0)
            iterations = atol(argv[i + 1]);
        else
            die("unknown option", argv[i]);
    }
    if (db == nullptr)
        die("--db FILE is required", nullptr);
    const char *sql = strcmp(stmt, "seed000") == 0   ? seed000
                      : strcmp(stmt, "rows1000") == 0 ? rows1000
                                                      : seed003;
    proto p;
    duckdb_config cfg;
    duckdb_create_config(&cfg);
    duckdb_set_config(cfg, "threads", "1");
    duckdb_set_config(cfg, "access_mode", "READ_ONLY");
    char *err = nullptr;
    if (duckdb_open_ext(db, &p.db, cfg, &err) != DuckDBSuccess)
        die("open", err);
    duckdb_destroy_config(&cfg);
    if (duckdb_connect(p.db, &p.conn) != DuckDBSuccess)
        die("connect", nullptr);
    for (long i = 0; i < warmup; i++)
        run(p, side, sql);
    if (iterations > 0) {
        /* wall: median of iterations, microseconds */
        std::vector<double> t;
        for (long i = 0; i < iterations; i++) {
            struct timespec a, b;
            clock_gettime(CLOCK_MONOTONIC, &a);
            run(p, side, sql);
            clock_gettime(CLOCK_MONOTONIC, &b);
            t.push_back((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3);
        }
        std::sort(t.begin(), t.end());
        printf("{\"side\":\"%s\",\"stmt\":\"%s\",\"median_us\":%.1f,\"p90_us\":%.1f}\n", side,
               stmt, t[t.size() / 2], t[t.size() * 9 / 10]);
    } else {
        measured_once(&p, side, sql);
    }
    fprintf(stderr, "walk: ops %zu exprs %zu bindings %zu functions %zu scans %zu\n", p.sink.ops,
            p.sink.exprs, p.sink.bindings, p.sink.functions, p.sink.scans);
    duckdb_disconnect(&p.conn);
    duckdb_close(&p.db);
    return 0;
}
