/*
 * blocked_predicates.c — what a blocked column may do outside the result: the rule table.
 *
 * Owns: the documented table of uses of a blocked (or tainted) column in predicates and keys
 * (JOIN conditions, WHERE, HAVING, QUALIFY, IN/EXISTS/ANY subqueries, GROUP BY, PARTITION BY,
 * DISTINCT ON, ORDER BY, LIMIT), which of them are allowed, and the refusal each other one
 * gets; the casts that keep a column bare; the pattern-matching function names.
 * Does not own: finding the uses in a plan or the taint closure (plan_walk.c), the result-column
 * check (plan_walk.c), risk (codemode/risk.c reads facts->blocked_in_predicate).
 *
 * Why bare equality only: every output that is compared with a blocked value becomes blocked
 * (taint), so the remaining channel is the predicate itself. An equality against one literal or
 * parameter confirms one guess per query; against another table's column it links rows (the
 * join-on-SSN use case). Anything else — a function of the value, an ordering, a range, a
 * pattern, an IN list, a generated relation — answers many guesses at once or one bit of every
 * row, which rebuilds the value in a few queries (issue 8).
 *
 * tag-blocked-predicates: this table, docs/security.md "Blocked fields in predicates" and
 * tests/unit/test_sql_predicates.c change together.
 */
#include "core/error.h"
#include "lang/sql/internal.h"
#include "syntax/sqltree/duckdb_tree.h"

#include <string.h>

#define ALLOWED_FORMS                                                                         \
    "a blocked field may only be compared with = (or IS NOT DISTINCT FROM) against another "  \
    "table's column, one literal or one parameter, tested with IS [NOT] NULL, or grouped on " \
    "as is"

static const sluice_sql_pred_rule rules[] = {
    { SLUICE_SQL_USE_EQ_COLUMN,
      "= / IS NOT DISTINCT FROM a base-table column (JOIN ... ON, "
      "WHERE, USING, IN (SELECT col FROM table), semi/anti join)",
      true, "links rows; the other column is then blocked too" },
    { SLUICE_SQL_USE_EQ_LITERAL, "= a single literal", true, "confirms one guess per query" },
    { SLUICE_SQL_USE_EQ_PARAM, "= a single parameter", true, "confirms one guess per query" },
    { SLUICE_SQL_USE_IS_NULL, "IS NULL / IS NOT NULL", true, "reveals only whether it is set" },
    { SLUICE_SQL_USE_GROUP_KEY, "GROUP BY / PARTITION BY / DISTINCT ON the bare column", true,
      "groups equal values; the group key itself is never returned" },
    { SLUICE_SQL_USE_SUBQUERY_TEST, "the result of IN / EXISTS / ANY whose comparison is allowed",
      true, "as the comparison inside it" },
    { SLUICE_SQL_USE_EQ_GENERATED,
      "= a generated or computed value (range(), generate_series, VALUES, unnest, a split "
      "string, an expression over another column)",
      false, "the generated value would become the secret" },
    { SLUICE_SQL_USE_EQ_EXPRESSION, "= an expression that is not a column, literal or parameter",
      false, "the expression can enumerate guesses" },
    { SLUICE_SQL_USE_NOT_EQUAL, "<> / != / IS DISTINCT FROM", false,
      "an inequality against guesses narrows the value down" },
    { SLUICE_SQL_USE_RANGE, "<, <=, >, >=, BETWEEN, ASOF inequality", false,
      "range comparisons allow binary search, one bit per row per query" },
    { SLUICE_SQL_USE_PATTERN,
      "LIKE, ILIKE, SIMILAR TO, GLOB, regular expressions, "
      "starts_with/contains/prefix/suffix",
      false, "pattern matches reveal the value a character at a time" },
    { SLUICE_SQL_USE_IN_LIST, "IN (list) / NOT IN (list)", false,
      "a list tests many guesses at once" },
    { SLUICE_SQL_USE_FUNCTION,
      "a function of it (substr, left, length, lower, hash, arithmetic, lossy cast, aggregate)",
      false, "a function of the value reveals part of it" },
    { SLUICE_SQL_USE_NESTED, "a comparison inside OR, NOT, CASE or another expression", false,
      "only a top-level (AND-ed) comparison is analyzed as a single guess" },
    { SLUICE_SQL_USE_ORDER, "ORDER BY / window ORDER BY it (bare or not)", false,
      "an ordering compares every pair of values (a sort is a range comparison)" },
    { SLUICE_SQL_USE_LIMIT, "LIMIT / OFFSET computed from it, or an argument of unnest", false,
      "the row count would carry the value" },
};

const sluice_sql_pred_rule *sluice_sql_pred_rules(size_t *count)
{
    *count = sizeof(rules) / sizeof(rules[0]);
    return rules;
}

const sluice_sql_pred_rule *sluice_sql_pred_rule_for(sluice_sql_pred_use use)
{
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
        if (rules[i].use == use)
            return &rules[i];
    return &rules[SLUICE_SQL_USE_FUNCTION]; /* unreachable for a value of the enum */
}

bool sluice_sql_is_pattern_function(const char *name)
{
    static const char *const names[] = { "~~",
                                         "!~~",
                                         "~~*",
                                         "!~~*",
                                         "~~~",
                                         "like",
                                         "not_like",
                                         "ilike",
                                         "not_ilike",
                                         "like_escape",
                                         "ilike_escape",
                                         "not_like_escape",
                                         "not_ilike_escape",
                                         "glob",
                                         "similar_to",
                                         "regexp_matches",
                                         "regexp_full_match",
                                         "regexp_extract",
                                         "regexp_extract_all",
                                         "regexp_replace",
                                         "regexp_split_to_array",
                                         "starts_with",
                                         "^@",
                                         "prefix",
                                         "suffix",
                                         "ends_with",
                                         "contains",
                                         "instr",
                                         "strpos",
                                         "position",
                                         "~",
                                         "!~",
                                         NULL };
    for (size_t i = 0; names[i] != NULL; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

static const char *type_id(const sluice_tree *e)
{
    const char *s =
        sluice_tree_string_value(sluice_tree_get(sluice_tree_get(e, "return_type"), "id"));
    return s != NULL ? s : "";
}

/* Rank of an integer type (wider is higher), 0 for any other type. */
static int int_rank(const char *t)
{
    static const char *const ints[] = {
        "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", NULL
    };
    for (int i = 0; ints[i] != NULL; i++)
        if (strcmp(ints[i], t) == 0)
            return i + 1;
    return 0;
}

/* The alias a type carries ("JSON" is a VARCHAR with an alias), or "". */
static const char *type_alias(const sluice_tree *e)
{
    const sluice_tree *info = sluice_tree_get(sluice_tree_get(e, "return_type"), "type_info");
    const char *s = sluice_tree_string_value(sluice_tree_get(info, "alias"));
    return s != NULL ? s : "";
}

bool sluice_sql_cast_is_lossless(const sluice_tree *e)
{
    const char *to = type_id(e);
    const char *from = type_id(sluice_tree_get(e, "child"));
    if (sluice_tree_is_true(sluice_tree_get(e, "try_cast")) || *to == '\0' || *from == '\0')
        return false; /* TRY_CAST maps failures to NULL: a test, not a copy */
    /* VARCHAR to JSON parses the text: whether that fails is a test of the value */
    if (strcmp(type_alias(e), type_alias(sluice_tree_get(e, "child"))) != 0)
        return false;
    if (strcmp(to, from) == 0 || strcmp(to, "VARCHAR") == 0)
        return true;
    if (int_rank(from) > 0 && int_rank(to) >= int_rank(from))
        return true;
    return strcmp(from, "DATE") == 0 &&
           (strcmp(to, "TIMESTAMP") == 0 || strcmp(to, "TIMESTAMP WITH TIME ZONE") == 0);
}

sluice_status sluice_sql_refuse_predicate(sluice_sql_ctx *ctx,
                                          sluice_sql_pred_use use,
                                          const sluice_tree *node,
                                          const char *field)
{
    const sluice_sql_pred_rule *r = sluice_sql_pred_rule_for(use);
    size_t line, column;
    sluice_sql_locate_node(ctx, node, &line, &column);
    return sluice_codefacts_violate(ctx->facts, "blocked_predicate", line, column, ALLOWED_FORMS,
                                    "blocked field %s: %s is not allowed (%s); %s", field, r->what,
                                    r->message, ALLOWED_FORMS);
}
