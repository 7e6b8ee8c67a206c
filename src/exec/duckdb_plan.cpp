/*
 * duckdb_plan.cpp — one bind through DuckDB's C++ API, translated into sluice's own tree
 * (duckdb_plan.h; issue 23, docs/architecture.md "Binding once").
 *
 * Owns: the only place DuckDB's C++ types appear. A translator, never a decider: every class is
 * named as json_serialize_plan names it (EnumUtil, static strings of the library) for lang/sql's
 * fail-closed walker, whose tables therefore stay as they are. Compiled only against the C++
 * headers of the very release of libduckdb.so it links (CMakeLists.txt checks the pair): in that
 * release a duckdb_connection is a duckdb::Connection * and a duckdb_value a duckdb::Value *
 * (src/main/capi/duckdb-c.cpp, value-c.cpp), so the casts below are exact for it and only for it.
 * Does not own: which statements may run (lang/sql), opening databases (exec/duckdb.c).
 */
#include "exec/duckdb_plan.h"

#include "duckdb/catalog/catalog_entry/table_catalog_entry.hpp"
#include "duckdb/common/enum_util.hpp"
#include "duckdb/common/error_data.hpp"
#include "duckdb/execution/column_binding_resolver.hpp"
#include "duckdb/main/capi/capi_internal.hpp"
#include "duckdb/main/client_config.hpp"
#include "duckdb/main/client_context.hpp"
#include "duckdb/main/connection.hpp"
#include "duckdb/main/secret/secret_manager.hpp"
#include "duckdb/planner/expression.hpp"
#include "duckdb/planner/expression/bound_aggregate_expression.hpp"
#include "duckdb/planner/expression/bound_columnref_expression.hpp"
#include "duckdb/planner/expression/bound_constant_expression.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"
#include "duckdb/planner/expression/bound_reference_expression.hpp"
#include "duckdb/planner/expression/bound_window_expression.hpp"
#include "duckdb/planner/expression_iterator.hpp"
#include "duckdb/planner/logical_operator.hpp"
#include "duckdb/planner/logical_operator_visitor.hpp"
#include "duckdb/planner/operator/logical_get.hpp"
#include "duckdb/planner/planner.hpp"

#include <new>
#include <string>
#include <vector>

namespace
{

/* Thrown inside the translation, caught at the C boundary below (never crosses it). */
struct plan_fail {
    sluice_status status;
};

struct translator {
    sluice_arena *arena;
    sluice_duckdb_plan *plan;

    const char *dup(const std::string &s)
    {
        char *p = sluice_arena_strndup(arena, s.data(), s.size());
        if (p == nullptr)
            throw plan_fail{ SLUICE_E_NOMEM };
        return p;
    }

    template <typename T> T **array(size_t n)
    {
        if (n == 0)
            return nullptr;
        void *p = sluice_arena_calloc(arena, n, sizeof(T *));
        if (p == nullptr)
            throw plan_fail{ SLUICE_E_NOMEM };
        return static_cast<T **>(p);
    }

    template <typename T> T *node()
    {
        void *p = sluice_arena_calloc(arena, 1, sizeof(T));
        if (p == nullptr)
            throw plan_fail{ SLUICE_E_NOMEM };
        return static_cast<T *>(p);
    }

    static void check_depth(int depth)
    {
        if (depth > SLUICE_DUCKDB_PLAN_MAX_DEPTH)
            throw plan_fail{ SLUICE_E_LIMIT };
    }

    /* The name of the function an expression calls; "" for every other class. */
    static const std::string *function_name(const duckdb::Expression &e)
    {
        switch (e.GetExpressionClass()) {
        case duckdb::ExpressionClass::BOUND_FUNCTION:
            return &e.Cast<duckdb::BoundFunctionExpression>().function.name;
        case duckdb::ExpressionClass::BOUND_AGGREGATE:
            return &e.Cast<duckdb::BoundAggregateExpression>().function.name;
        case duckdb::ExpressionClass::BOUND_WINDOW: {
            auto &w = e.Cast<duckdb::BoundWindowExpression>();
            return w.aggregate ? &w.aggregate->name : nullptr;
        }
        default:
            return nullptr;
        }
    }

    sluice_duckdb_expr *expr(const duckdb::Expression &e, int depth)
    {
        check_depth(depth);
        auto *x = node<sluice_duckdb_expr>();
        plan->n_exprs++;
        x->cls = duckdb::EnumUtil::ToChars(e.GetExpressionClass());
        x->type = duckdb::EnumUtil::ToChars(e.GetExpressionType());
        const std::string *fn = function_name(e);
        x->name = fn != nullptr ? dup(*fn) : "";
        x->alias = dup(e.alias);
        x->table_index = SLUICE_DUCKDB_PLAN_NONE;
        x->column_index = SLUICE_DUCKDB_PLAN_NONE;
        if (e.GetExpressionClass() == duckdb::ExpressionClass::BOUND_COLUMN_REF) {
            auto &ref = e.Cast<duckdb::BoundColumnRefExpression>();
            x->table_index = ref.binding.table_index;
            x->column_index = ref.binding.column_index;
        } else if (e.GetExpressionClass() == duckdb::ExpressionClass::BOUND_REF) {
            x->column_index = e.Cast<duckdb::BoundReferenceExpression>().index;
        } else if (e.GetExpressionClass() == duckdb::ExpressionClass::BOUND_CONSTANT) {
            auto &v = e.Cast<duckdb::BoundConstantExpression>().value;
            x->constant_is_null = v.IsNull();
            x->constant = dup(v.ToString());
        }
        std::vector<const duckdb::Expression *> kids;
        duckdb::ExpressionIterator::EnumerateChildren(
            e, [&](const duckdb::Expression &child) { kids.push_back(&child); });
        x->n_children = kids.size();
        x->children = array<sluice_duckdb_expr>(kids.size());
        for (size_t i = 0; i < kids.size(); i++)
            x->children[i] = expr(*kids[i], depth + 1);
        return x;
    }

    sluice_duckdb_op *op(duckdb::LogicalOperator &o, int depth)
    {
        check_depth(depth);
        auto *n = node<sluice_duckdb_op>();
        plan->n_ops++;
        n->name = duckdb::EnumUtil::ToChars(o.type);
        n->estimated_cardinality =
            o.has_estimated_cardinality ? o.estimated_cardinality : SLUICE_DUCKDB_PLAN_NONE;
        if (o.type == duckdb::LogicalOperatorType::LOGICAL_GET) {
            auto &get = o.Cast<duckdb::LogicalGet>();
            n->function = dup(get.function.name);
            auto table = get.GetTable();
            n->table = table ? dup(table->name) : "";
        }
        std::vector<duckdb::Expression *> exprs;
        duckdb::LogicalOperatorVisitor::EnumerateExpressions(
            o, [&](duckdb::unique_ptr<duckdb::Expression> *e) { exprs.push_back(e->get()); });
        n->n_exprs = exprs.size();
        n->exprs = array<sluice_duckdb_expr>(exprs.size());
        for (size_t i = 0; i < exprs.size(); i++)
            n->exprs[i] = expr(*exprs[i], depth + 1);
        n->n_children = o.children.size();
        n->children = array<sluice_duckdb_op>(o.children.size());
        for (size_t i = 0; i < o.children.size(); i++)
            n->children[i] = op(*o.children[i], depth + 1);
        return n;
    }
};

duckdb::ClientContext &context_of(duckdb_connection conn)
{
    return *reinterpret_cast<duckdb::Connection *>(conn)->context;
}

/* DuckDB's own message, without the class prefix errors_as_json or what() would add. */
sluice_status engine_error(const std::exception &e, sluice_arena *arena, sluice_error *err)
{
    duckdb::ErrorData data(e);
    return sluice_error_set(err, arena, SLUICE_E_ENGINE, "DuckDB refused the statement: %s",
                            data.RawMessage().c_str());
}

sluice_status limit_error(sluice_status st, sluice_arena *arena, sluice_error *err)
{
    if (st == SLUICE_E_LIMIT)
        return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                "the statement's plan nests deeper than %d operators and "
                                "expressions; simplify it (split it into smaller statements)",
                                SLUICE_DUCKDB_PLAN_MAX_DEPTH);
    return sluice_error_set(err, arena, st, "out of memory translating the statement's plan");
}

} // namespace

extern "C" sluice_status sluice_exec_duckdb_plan_harden(duckdb_connection conn,
                                                        const char *directory,
                                                        bool json_errors,
                                                        sluice_arena *arena,
                                                        sluice_error *err)
{
    if (conn == nullptr || directory == nullptr)
        return sluice_error_set(err, arena, SLUICE_E_INTERNAL,
                                "sluice_exec_duckdb_plan_harden: no connection or directory");
    try {
        /* The copy of the directory is this call's one allocation: the tests' sweep fails it. */
        if (sluice_arena_fault_point())
            throw std::bad_alloc();
        /* The fields themselves, not SET: lock_configuration already refuses a SET, which is
         * what it is for; this connection is new and no statement runs on it yet. */
        auto &context = context_of(conn);
        auto &config = duckdb::ClientConfig::GetConfig(context);
        config.home_directory = directory;
        config.errors_as_json = json_errors;
        /* secret_directory is the database's: 1.4.4 drops the value given before the open
         * (its secret manager resets it when the database starts). The first connection — the
         * one that reads the hardening back, before any statement of a caller — sets it; DuckDB
         * refuses a change once a secret was used, so later ones only compare (and a database
         * whose secrets moved elsewhere refuses every connection). */
        auto &secrets = duckdb::SecretManager::Get(context);
        if (secrets.PersistentSecretPath() != directory)
            secrets.SetPersistentSecretPath(directory);
    } catch (std::bad_alloc &) {
        return sluice_error_set(err, arena, SLUICE_E_NOMEM,
                                "out of memory hardening a DuckDB connection");
    } catch (std::exception &e) {
        return sluice_error_set(err, arena, SLUICE_E_ENGINE,
                                "DuckDB refused the connection's hardening: %s", e.what());
    }
    return SLUICE_OK;
}

extern "C" sluice_status sluice_exec_duckdb_plan_bind(duckdb_connection conn,
                                                      const char *sql,
                                                      const duckdb_value *params,
                                                      size_t n_params,
                                                      sluice_arena *arena,
                                                      sluice_duckdb_plan **out,
                                                      sluice_error *err)
{
    if (conn == nullptr || sql == nullptr || (n_params > 0 && params == nullptr))
        return sluice_error_set(err, arena, SLUICE_E_INTERNAL,
                                "sluice_exec_duckdb_plan_bind: no connection or statement");
    auto *plan = static_cast<sluice_duckdb_plan *>(
        sluice_arena_calloc(arena, 1, sizeof(sluice_duckdb_plan)));
    if (plan == nullptr)
        return SLUICE_E_NOMEM;
    translator t{ arena, plan };
    try {
        auto &context = context_of(conn);
        auto statements = context.ParseStatements(sql);
        if (statements.size() != 1)
            return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                    "expected exactly one SQL statement, found %zu",
                                    statements.size());
        plan->statement = duckdb::EnumUtil::ToChars(statements[0]->type);
        /* As json_serialize_plan builds the plan lang/sql's walker reads: planned, not
         * optimized, bindings resolved, in a transaction of its own. The translation runs after
         * it, so only DuckDB's own exceptions cross RunFunctionInTransaction's rollback. */
        duckdb::unique_ptr<duckdb::LogicalOperator> root;
        duckdb::vector<std::string> names;
        duckdb::vector<duckdb::LogicalType> types;
        context.RunFunctionInTransaction([&]() {
            duckdb::Planner planner(context);
            for (size_t i = 0; i < n_params; i++)
                planner.parameter_data.emplace(
                    std::to_string(i + 1),
                    duckdb::BoundParameterData(*reinterpret_cast<duckdb::Value *>(params[i])));
            planner.CreatePlan(std::move(statements[0]));
            duckdb::ColumnBindingResolver resolver;
            resolver.VisitOperator(*planner.plan);
            planner.plan->ResolveOperatorTypes();
            plan->n_params = planner.properties.parameter_count;
            root = std::move(planner.plan);
            names = std::move(planner.names);
            types = std::move(planner.types);
        });
        plan->n_columns = names.size() < types.size() ? names.size() : types.size();
        plan->names = t.array<const char>(plan->n_columns);
        plan->types = t.array<const char>(plan->n_columns);
        for (size_t i = 0; i < plan->n_columns; i++) {
            plan->names[i] = t.dup(names[i]);
            plan->types[i] = t.dup(types[i].ToString());
        }
        plan->root = t.op(*root, 0);
    } catch (plan_fail &f) {
        return limit_error(f.status, arena, err);
    } catch (std::bad_alloc &) {
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory binding the statement");
    } catch (std::exception &e) {
        return engine_error(e, arena, err);
    }
    *out = plan;
    return SLUICE_OK;
}

extern "C" const char *sluice_exec_duckdb_plan_statement_type(duckdb_prepared_statement ps)
{
    /* In this release a duckdb_prepared_statement is a PreparedStatementWrapper * (capi). */
    auto *wrapper = reinterpret_cast<duckdb::PreparedStatementWrapper *>(ps);
    if (wrapper == nullptr || !wrapper->statement || wrapper->statement->HasError())
        return nullptr;
    return duckdb::EnumUtil::ToChars(wrapper->statement->GetStatementType());
}
