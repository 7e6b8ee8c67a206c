/*
 * discover.c — the search and describe tools (see discover.h).
 *
 * Every backend's schema reaches here as sluice_schema entries: a database's tables, a GraphQL
 * schema's types (describe.c in lang/graphql), an OpenAPI spec's operations and named types
 * (exec/openapi_decl.c). Ranking is plain keyword matching, name before columns before comments,
 * so a model that guesses a word of the name finds the entry first.
 */
#include "surface/discover.h"

#include "codemode/guide.h"
#include "core/buf.h"
#include "facts/class_policy.h"
#include "policy/policy.h"
#include "surface/tool_result.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* At most this many query words count (the rest are ignored, not an error). */
#define MAX_TERMS 8

typedef struct view {
    const sluice_schema *s;
    const sluice_config_code_mode *rules; /* the caller's route; NULL: defaults */
    sluice_arena *arena;
} view;

static bool listed(const sluice_strlist *l, const char *a, const char *b)
{
    for (size_t i = 0; l != NULL && i < l->count; i++) {
        const char *x = l->items[i];
        if (strcasecmp(x, b) == 0)
            return true;
        size_t n = a != NULL ? strlen(a) : 0;
        if (a != NULL && strncasecmp(x, a, n) == 0 && x[n] == '.' && strcasecmp(x + n + 1, b) == 0)
            return true; /* "table.column" / "Type.field" */
    }
    return false;
}

static bool is_api(const sluice_schema_table *t, const char *which)
{
    return t->schema != NULL && strcmp(t->schema, which) == 0;
}

static const sluice_schema_table_notes *notes_of(const view *v, size_t t)
{
    return v->s->notes != NULL ? &v->s->notes[t] : NULL;
}

/* "table", "view", "type", "input", "enum", "operation". */
static const char *kind_of(const view *v, size_t t)
{
    const sluice_schema_table *tab = &v->s->tables[t];
    if (is_api(tab, "openapi"))
        return tab->is_view ? "type" : "operation";
    if (is_api(tab, "graphql")) {
        if (!tab->is_view)
            return "type";
        return tab->column_count > 0 && strcmp(tab->columns[0].type, "enum value") == 0 ? "enum"
                                                                                        : "input";
    }
    return tab->is_view ? "view" : "table";
}

/* Whether this caller sees the entry at all: exposure rules of their route for tables. */
static bool visible(const view *v, size_t t)
{
    const sluice_schema_table *tab = &v->s->tables[t];
    if (tab->hidden)
        return false;
    if (v->rules == NULL || is_api(tab, "openapi") || is_api(tab, "graphql"))
        return true;
    if (v->rules->sql_allowed_tables.count > 0 &&
        !listed(&v->rules->sql_allowed_tables, NULL, tab->name))
        return false;
    return !listed(&v->rules->sql_blocked_tables, NULL, tab->name);
}

static bool column_blocked(const view *v, size_t t, size_t c)
{
    const sluice_schema_table *tab = &v->s->tables[t];
    const char *col = tab->columns[c].name;
    if (tab->columns[c].blocked)
        return true;
    if (v->rules == NULL)
        return false;
    if (listed(&v->rules->blocked_fields, tab->name, col))
        return true;
    if (is_api(tab, "graphql"))
        return listed(&v->rules->graphql_blocked_fields, tab->name, col);
    return !is_api(tab, "openapi") && listed(&v->rules->sql_blocked_columns, tab->name, col);
}

/* Why this caller may not call the entry (an operation whose action their rules refuse, a
 * mutation not allowed), or NULL. */
static const char *refusal(const view *v, size_t t, size_t c)
{
    const sluice_config_code_mode *r = v->rules;
    const sluice_schema_table *tab = &v->s->tables[t];
    const sluice_schema_table_notes *n = notes_of(v, t);
    if (r == NULL)
        return NULL;
    if (is_api(tab, "openapi") && n != NULL && n->action != NULL) {
        /* the class's mode; lists and blocked paths are judged when the plan is validated */
        static const char *const off[] = { "reads are off for you", "writes are off for you",
                                           "deletes are off for you",
                                           "admin operations are off for you" };
        sluice_action a = SLUICE_ACTION_ADMIN;
        for (int i = SLUICE_ACTION_READ; i <= SLUICE_ACTION_ADMIN; i++)
            if (strcasecmp(n->action, sluice_action_name((sluice_action)i)) == 0)
                a = (sluice_action)i;
        return sluice_class_policy_mode(r, a) == SLUICE_CLASS_MODE_DENY_ALL ? off[a] : NULL;
    }
    if (is_api(tab, "graphql") && c < tab->column_count && strcmp(tab->name, "Mutation") == 0) {
        const char *f = tab->columns[c].name;
        if (listed(&r->blocked_mutations, NULL, f))
            return "blocked for you";
        if (!r->allow_mutations && !listed(&r->allowed_mutations, NULL, f))
            return "not among your allowed mutations";
    }
    return NULL;
}

/* Lower-cased words of text (letters, digits, '_'), at most MAX_TERMS, in arena. */
static size_t terms_of(sluice_arena *arena, const char *text, char **out)
{
    size_t n = 0;
    const char *p = text != NULL ? text : "";
    while (*p != '\0' && n < MAX_TERMS) {
        while (*p != '\0' && !isalnum((unsigned char)*p) && *p != '_')
            p++;
        const char *s = p;
        while (*p != '\0' && (isalnum((unsigned char)*p) || *p == '_'))
            p++;
        if (p == s)
            break;
        char *w = sluice_arena_strndup(arena, s, (size_t)(p - s));
        if (w == NULL)
            return n;
        for (char *q = w; *q != '\0'; q++)
            *q = (char)tolower((unsigned char)*q);
        out[n++] = w;
    }
    return n;
}

static bool contains(const char *hay, const char *term)
{
    if (hay == NULL)
        return false;
    size_t n = strlen(term);
    for (const char *p = hay; *p != '\0'; p++)
        if (strncasecmp(p, term, n) == 0)
            return true;
    return false;
}

typedef struct hit {
    size_t t;
    size_t matched; /* how many query words it matched */
    long score;
} hit;

static hit score(const view *v, size_t t, char **terms, size_t nterms)
{
    const sluice_schema_table *tab = &v->s->tables[t];
    const sluice_schema_table_notes *n = notes_of(v, t);
    hit h = { .t = t };
    for (size_t k = 0; k < nterms; k++) {
        long s = 0;
        if (strcasecmp(tab->name, terms[k]) == 0)
            s += 12;
        else if (contains(tab->name, terms[k]))
            s += 6;
        size_t cols = 0;
        for (size_t c = 0; c < tab->column_count && cols < 3; c++)
            cols += contains(tab->columns[c].name, terms[k]);
        s += 2 * (long)cols;
        if (n != NULL && contains(n->comment, terms[k]))
            s += 2;
        if (s > 0)
            h.matched++;
        h.score += s;
    }
    return h;
}

static int by_rank(const void *a, const void *b)
{
    const hit *x = a, *y = b;
    if (x->matched != y->matched)
        return x->matched > y->matched ? -1 : 1;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* "- name (kind, detail): summary; matching: a, b" */
static void put_hit(sluice_buf *b, const view *v, size_t t, char **terms, size_t nterms)
{
    const sluice_schema_table *tab = &v->s->tables[t];
    const sluice_schema_table_notes *n = notes_of(v, t);
    sluice_buf_printf(b, "- %s (%s", tab->name, kind_of(v, t));
    if (n != NULL && n->action != NULL)
        sluice_buf_printf(b, ", %s", n->action);
    if (tab->approx_rows >= 0)
        sluice_buf_printf(b, ", ~%lld rows", (long long)tab->approx_rows);
    else if (!is_api(tab, "openapi"))
        sluice_buf_printf(b, ", %zu %s", tab->column_count,
                          is_api(tab, "graphql") ? "fields" : "columns");
    const char *why = refusal(v, t, SIZE_MAX);
    if (why != NULL)
        sluice_buf_printf(b, "; not callable: %s", why);
    sluice_buf_putc(b, ')');
    if (n != NULL && n->comment != NULL)
        sluice_buf_printf(b, ": %.160s", n->comment);
    /* The matching columns explain a hit the name does not: a word the name already holds
     * would list the fields named after it (GitHub's Repository: repositoryTopics, ...) on every
     * line, read by every agent and telling it nothing (issue 26). */
    size_t shown = 0;
    for (size_t c = 0; c < tab->column_count && shown < 4 && !is_api(tab, "openapi"); c++) {
        bool match = false;
        for (size_t k = 0; k < nterms && !match; k++)
            match = !contains(tab->name, terms[k]) && contains(tab->columns[c].name, terms[k]);
        if (!match)
            continue;
        sluice_buf_printf(b, "%s%s%s", shown++ == 0 ? "; matching: " : ", ", tab->columns[c].name,
                          column_blocked(v, t, c) ? " [blocked]" : "");
    }
    sluice_buf_putc(b, '\n');
}

char *sluice_discover_search(sluice_arena *arena,
                             const sluice_schema *schema,
                             const sluice_config_code_mode *rules,
                             const char *query,
                             int64_t page)
{
    view v = { schema, rules, arena };
    char *terms[MAX_TERMS];
    size_t nterms = terms_of(arena, query, terms);
    hit *hits = sluice_arena_calloc(arena, schema->table_count + 1, sizeof *hits);
    if (hits == NULL)
        return NULL;
    size_t count = 0;
    for (size_t t = 0; t < schema->table_count; t++) {
        if (!visible(&v, t))
            continue;
        hit h = score(&v, t, terms, nterms);
        if (nterms == 0 || h.matched > 0)
            hits[count++] = h;
    }
    qsort(hits, count, sizeof *hits, by_rank);
    size_t pages = (count + SLUICE_DISCOVER_PAGE - 1) / SLUICE_DISCOVER_PAGE;
    size_t p = page < 1 ? 1 : (size_t)page;
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    if (count == 0) {
        sluice_buf_printf(&b,
                          "Nothing matches \"%s\"; try fewer or other words, or an empty "
                          "query for everything.\n",
                          query != NULL ? query : "");
        return sluice_buf_status(&b) == SLUICE_OK ? b.data : NULL;
    }
    sluice_buf_printf(&b, "%zu match%s (page %zu of %zu):\n", count, count == 1 ? "" : "es",
                      p <= pages ? p : pages + 1, pages);
    for (size_t i = (p - 1) * SLUICE_DISCOVER_PAGE; i < count && i < p * SLUICE_DISCOVER_PAGE; i++)
        put_hit(&b, &v, hits[i].t, terms, nterms);
    if (p < pages)
        sluice_buf_printf(&b, "More: search with page %zu.\n", p + 1);
    sluice_buf_puts(&b, "describe {name} shows the details.\n");
    /* a query word lost to a failed allocation would change the answer: none at all instead */
    return sluice_buf_status(&b) == SLUICE_OK && !sluice_arena_failed(arena) ? b.data : NULL;
}

/* The entry named name: exact first, then case-insensitive; SIZE_MAX when none is visible. */
static size_t find(const view *v, const char *name)
{
    size_t loose = SIZE_MAX;
    for (size_t t = 0; t < v->s->table_count; t++) {
        if (!visible(v, t))
            continue;
        if (strcmp(v->s->tables[t].name, name) == 0)
            return t;
        if (loose == SIZE_MAX && strcasecmp(v->s->tables[t].name, name) == 0)
            loose = t;
    }
    return loose;
}

static void describe_one(sluice_buf *b, const view *v, size_t t, size_t page)
{
    const sluice_schema_table *tab = &v->s->tables[t];
    const sluice_schema_table_notes *n = notes_of(v, t);
    const char *why = refusal(v, t, SIZE_MAX);
    if (n != NULL && n->declaration != NULL) { /* an OpenAPI operation or type */
        if (why != NULL)
            sluice_buf_printf(b, "// not callable: %s\n", why);
        sluice_buf_printf(b, "%s\n", n->declaration);
        return;
    }
    sluice_buf_printf(b, "## %s (%s)", tab->name, kind_of(v, t));
    if (tab->approx_rows >= 0)
        sluice_buf_printf(b, " — about %lld rows", (long long)tab->approx_rows);
    sluice_buf_putc(b, '\n');
    if (n != NULL && n->comment != NULL)
        sluice_buf_printf(b, "%s\n", n->comment);
    const char *mark = sluice_guide_blocked_mark(v->s);
    size_t from = (page - 1) * SLUICE_DISCOVER_COLUMNS_PER_PAGE;
    for (size_t c = from; c < tab->column_count && c < from + SLUICE_DISCOVER_COLUMNS_PER_PAGE;
         c++) {
        sluice_guide_column(b, &tab->columns[c],
                            n != NULL && n->columns != NULL ? &n->columns[c] : NULL,
                            column_blocked(v, t, c), mark);
        const char *no = refusal(v, t, c);
        if (no != NULL) { /* "- field Type\n" becomes "- field Type [not callable: why]\n" */
            b->len--;
            sluice_buf_printf(b, " [not callable: %s]\n", no);
        }
    }
    if (tab->column_count > from + SLUICE_DISCOVER_COLUMNS_PER_PAGE)
        sluice_buf_printf(b, "(%zu more: describe {name: \"%s\", page: %zu})\n",
                          tab->column_count - from - SLUICE_DISCOVER_COLUMNS_PER_PAGE, tab->name,
                          page + 1);
}

char *sluice_discover_describe(sluice_arena *arena,
                               const sluice_schema *schema,
                               const sluice_config_code_mode *rules,
                               const char *names,
                               int64_t page)
{
    view v = { schema, rules, arena };
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    size_t p = page < 1 ? 1 : (size_t)page, done = 0;
    const char *s = names != NULL ? names : "";
    while (*s != '\0' && done < SLUICE_DISCOVER_MAX_NAMES) {
        while (*s == ',' || isspace((unsigned char)*s))
            s++;
        const char *e = s;
        while (*e != '\0' && *e != ',' && !isspace((unsigned char)*e))
            e++;
        if (e == s)
            break;
        char *name = sluice_arena_strndup(arena, s, (size_t)(e - s));
        s = e;
        if (name == NULL)
            return NULL;
        if (done++ > 0)
            sluice_buf_putc(&b, '\n');
        size_t t = find(&v, name);
        if (t != SIZE_MAX) {
            describe_one(&b, &v, t, p);
            continue;
        }
        /* not found: the best few by the same ranking as search */
        char *near = sluice_discover_search(arena, schema, rules, name, 1);
        sluice_buf_printf(&b, "Nothing is named \"%s\". %s", name,
                          near != NULL ? near : "Search for it.\n");
    }
    if (done == 0)
        sluice_buf_puts(&b, "Give one or more names from search, separated by spaces.\n");
    else if (*s != '\0')
        sluice_buf_printf(&b, "(at most %d names per call; ask for the rest again)\n",
                          SLUICE_DISCOVER_MAX_NAMES);
    return sluice_buf_status(&b) == SLUICE_OK && !sluice_arena_failed(arena) ? b.data : NULL;
}

/* ---- the tools ------------------------------------------------------------------------------ */

static const sluice_config_code_mode *rules_for(sluice_codemode *cm, sluice_mcp_call *call)
{
    const sluice_policy *policy = sluice_codemode_policy(cm);
    const sluice_policy_route *route =
        policy != NULL ? sluice_policy_route_for(policy, sluice_mcp_call_identity(call)) : NULL;
    return route != NULL ? route->rules : &sluice_codemode_config(cm)->code_mode;
}

static sluice_status discover_tool(sluice_mcp_call *call,
                                   json_t *arguments,
                                   json_t **out_result,
                                   sluice_error *err,
                                   void *userdata,
                                   bool describe)
{
    sluice_codemode *cm = userdata;
    sluice_arena *arena = sluice_mcp_call_arena(call);
    const sluice_schema *schema = sluice_codemode_schema_now(cm, arena);
    const char *arg = json_string_value(json_object_get(arguments, describe ? "name" : "query"));
    json_int_t page = json_integer_value(json_object_get(arguments, "page"));
    char *text = describe ? sluice_discover_describe(arena, schema, rules_for(cm, call), arg, page)
                          : sluice_discover_search(arena, schema, rules_for(cm, call), arg, page);
    if (text == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    *out_result = sluice_surface_tool_result(json_pack("{s:s}", "text", text), text);
    return *out_result != NULL ? SLUICE_OK
                               : sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
}

static sluice_status search_tool(sluice_mcp_call *call,
                                 json_t *arguments,
                                 json_t **out_result,
                                 sluice_error *err,
                                 void *userdata)
{
    return discover_tool(call, arguments, out_result, err, userdata, false);
}

static sluice_status describe_tool(sluice_mcp_call *call,
                                   json_t *arguments,
                                   json_t **out_result,
                                   sluice_error *err,
                                   void *userdata)
{
    return discover_tool(call, arguments, out_result, err, userdata, true);
}

sluice_status
sluice_discover_register(sluice_codemode *cm, sluice_mcp_server *server, sluice_error *err)
{
    json_t *read_only = json_pack("{s:b, s:b, s:b, s:b}", "readOnlyHint", 1, "destructiveHint", 0,
                                  "idempotentHint", 1, "openWorldHint", 0);
    sluice_mcp_tool search = {
        .name = "search",
        .title = "Search the schema",
        .description = "Find tables, types or operations by keywords (10 a page).",
        .input_schema = json_pack("{s:s, s:{s:{s:s}, s:{s:s}}}", "type", "object", "properties",
                                  "query", "type", "string", "page", "type", "integer"),
        .annotations = json_incref(read_only),
        .fn = search_tool,
        .userdata = cm,
    };
    sluice_status st = sluice_mcp_server_add_tool(server, &search, err);
    if (st != SLUICE_OK) {
        json_decref(read_only);
        return st;
    }
    sluice_mcp_tool describe = {
        .name = "describe",
        .title = "Describe schema entries",
        .description = "Details of names from search (space-separated).",
        .input_schema =
            json_pack("{s:s, s:{s:{s:s}, s:{s:s}}, s:[s]}", "type", "object", "properties", "name",
                      "type", "string", "page", "type", "integer", "required", "name"),
        .annotations = read_only,
        .fn = describe_tool,
        .userdata = cm,
    };
    return sluice_mcp_server_add_tool(server, &describe, err);
}
