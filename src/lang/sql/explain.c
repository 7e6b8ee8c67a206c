/*
 * explain.c — a business-language explanation of what a SQL statement does, from its CodeFacts.
 *
 * Owns: the wording. Every sentence comes from a fact the analyzer proved (tables after views
 * resolve, join keys as written, filter columns, aggregation, windows, the row limit, blocked
 * fields used only internally), so the explanation cannot claim what the code does not do.
 * Does not own: the facts themselves or the risk level (codemode/risk.c).
 */
#include "core/buf.h"
#include "lang/sql/internal.h"

#include <string.h>

/* "a", "a and b", "a, b and c" */
static void join_list(sluice_buf *b, const sluice_codefacts_list *l, size_t max)
{
    size_t n = l->count < max ? l->count : max;
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            sluice_buf_puts(b, i + 1 == n && l->count <= max ? " and " : ", ");
        sluice_buf_puts(b, l->items[i]);
    }
    if (l->count > max)
        sluice_buf_printf(b, " and %zu more", l->count - max);
}

static void explain_read(sluice_buf *b, const sluice_codefacts *f)
{
    if (f->resources_read.count == 0) {
        sluice_buf_puts(b, "Computes values without reading any table");
    } else {
        sluice_buf_puts(b, "Reads ");
        join_list(b, &f->resources_read, 6);
    }
    if (sluice_sql_facts_of(f)->join_keys.count > 0) {
        sluice_buf_puts(b, " (joined on ");
        join_list(b, &sluice_sql_facts_of(f)->join_keys, 4);
        sluice_buf_putc(b, ')');
    } else if (sluice_sql_facts_of(f)->join_count > 0) {
        sluice_buf_printf(b, " (%zu join%s)", sluice_sql_facts_of(f)->join_count,
                          sluice_sql_facts_of(f)->join_count == 1 ? "" : "s");
    }
    if (sluice_sql_facts_of(f)->filter_columns.count > 0) {
        sluice_buf_puts(b, ", keeps rows where ");
        join_list(b, &sluice_sql_facts_of(f)->filter_columns, 6);
    } else if (sluice_sql_facts_of(f)->has_where) {
        sluice_buf_puts(b, ", keeps only matching rows");
    }
    if (sluice_sql_facts_of(f)->aggregate_count > 0 || sluice_sql_facts_of(f)->has_group_by) {
        sluice_buf_puts(b, sluice_sql_facts_of(f)->group_by_all
                               ? ", aggregates per group of the selected non-aggregate columns "
                                 "(GROUP BY ALL)"
                           : sluice_sql_facts_of(f)->has_group_by ? ", aggregates per group"
                                                                  : ", aggregates all rows");
        if (f->functions.count > 0) {
            sluice_buf_puts(b, " (using ");
            join_list(b, &f->functions, 6);
            sluice_buf_putc(b, ')');
        }
    }
    if (sluice_sql_facts_of(f)->window_count > 0)
        sluice_buf_printf(b, ", computes %zu window function%s (ranking or running values)",
                          sluice_sql_facts_of(f)->window_count,
                          sluice_sql_facts_of(f)->window_count == 1 ? "" : "s");
    if (sluice_sql_facts_of(f)->cte_names.count > 0) {
        sluice_buf_puts(b, ", builds intermediate results ");
        join_list(b, &sluice_sql_facts_of(f)->cte_names, 6);
    }
    if (sluice_sql_facts_of(f)->has_order_by)
        sluice_buf_puts(b, ", sorts the result");
    if (sluice_sql_facts_of(f)->limit_value >= 0)
        sluice_buf_printf(b, " and returns at most %lld row%s.",
                          (long long)sluice_sql_facts_of(f)->limit_value,
                          sluice_sql_facts_of(f)->limit_value == 1 ? "" : "s");
    else
        sluice_buf_puts(b, " and returns every matching row (capped by the server).");
    if (f->output_count > 0) {
        sluice_buf_printf(b, " Returns %zu column%s: ", f->output_count,
                          f->output_count == 1 ? "" : "s");
        for (size_t i = 0; i < f->output_count && i < 12; i++) {
            if (i > 0)
                sluice_buf_puts(b, ", ");
            sluice_buf_puts(b, f->outputs[i].name);
        }
        sluice_buf_puts(b, f->output_count > 12 ? ", ..." : ".");
    }
    for (size_t i = 0; i < f->blocked_used.count; i++) {
        sluice_buf_putc(b, ' ');
        sluice_buf_puts(b, f->blocked_used.items[i]);
        sluice_buf_puts(b, " is used only to join or filter and is never returned.");
    }
}

static void explain_change(sluice_buf *b, const sluice_codefacts *f)
{
    const char *verb = f->action == SLUICE_ACTION_DELETE ? "Deletes rows from" : "Changes";
    if (f->action == SLUICE_ACTION_ADMIN) {
        sluice_buf_printf(b,
                          "Runs a %s statement, which changes the database structure or the "
                          "server itself.",
                          f->statement_kind);
        return;
    }
    sluice_buf_printf(b, "%s ", verb);
    if (f->resources_written.count > 0)
        join_list(b, &f->resources_written, 4);
    else
        sluice_buf_puts(b, "a table");
    sluice_buf_printf(b, " (%s)", f->statement_kind);
    sluice_buf_puts(b, sluice_sql_facts_of(f)->has_where ? ", only rows matching its WHERE clause."
                                                         : ", with no WHERE clause.");
}

/* A statement that did not parse or bind has no facts to explain: saying it "computes values
 * without reading any table" would describe a program that does not exist. */
static bool not_understood(const sluice_codefacts *f)
{
    for (size_t i = 0; i < f->violation_count; i++) {
        const char *rule = f->violations[i].rule;
        if (strcmp(rule, "syntax_error") == 0 || strcmp(rule, "cannot_bind") == 0)
            return true;
    }
    return false;
}

const char *sluice_sql_explain(sluice_arena *arena, const sluice_codefacts *f)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    if (not_understood(f))
        sluice_buf_puts(&b, "The statement could not be analyzed, so what it would do is unknown.");
    else if (f->action == SLUICE_ACTION_READ)
        explain_read(&b, f);
    else
        explain_change(&b, f);
    if (f->violation_count > 0)
        sluice_buf_printf(&b, " Refused: %s", f->violations[0].message);
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}
