/*
 * fanout.c — filter terms onto request parameters, with fan-out (see fanout.h).
 */
#include "querymode/fanout.h"

#include "core/buf.h"
#include "core/limits.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One fan-out dimension: these values, each sent on one or two parameters. */
typedef struct dim {
    const char *names[2];
    const char **values;
    size_t count;
} dim;

typedef struct plan {
    const sluice_config_source *src;
    const sluice_qm_fanout_options *o;
    sluice_qm_param_set base;
    bool *by_term; /* per src->params index: a term set it already */
    dim *dims;
    size_t dim_count;
    bool exact;
    sluice_arena *arena;
    sluice_error *err;
} plan;

const char *
sluice_qm_pushable(const sluice_config_source *src, sluice_arena *arena, const char *only)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    size_t n = 0;
    for (size_t i = 0; i < src->param_count; i++) {
        const sluice_config_source_param *p = &src->params[i];
        if (p->column == NULL || (only != NULL && strcasecmp(only, p->column) != 0))
            continue;
        sluice_buf_printf(&b, "%s%s %s", n++ > 0 ? ", " : "", p->column, p->op);
    }
    if (n == 0)
        sluice_buf_puts(&b, "none");
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : "";
}

static void param_put(sluice_qm_param_set *ps, const char *name, const char *value)
{
    for (size_t i = 0; i < ps->count; i++)
        if (strcmp(ps->items[i].name, name) == 0) {
            ps->items[i].value = value;
            return;
        }
    ps->items[ps->count++] = (sluice_qm_param){ name, value };
}

static bool param_has(const sluice_qm_param_set *ps, const char *name)
{
    for (size_t i = 0; i < ps->count; i++)
        if (strcmp(ps->items[i].name, name) == 0)
            return true;
    return false;
}

static sluice_status apply_args(plan *pl, const json_t *args)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)args, key, v)
    {
        bool declared = false;
        for (size_t i = 0; i < pl->src->param_count; i++)
            declared = declared || strcmp(pl->src->params[i].name, key) == 0;
        if (!declared)
            return sluice_error_set(pl->err, pl->arena, SLUICE_E_INVALID,
                                    "source '%s' has no parameter '%.64s'; declared ones are "
                                    "[[sources.params]] names",
                                    pl->src->name, key);
        char *dumped = json_is_number(v) || json_is_boolean(v)
                           ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT)
                           : NULL;
        const char *text = json_is_string(v) ? sluice_arena_strdup(pl->arena, json_string_value(v))
                           : dumped != NULL  ? sluice_arena_strdup(pl->arena, dumped)
                                             : NULL;
        free(dumped);
        if (text == NULL && (json_is_string(v) || json_is_number(v) || json_is_boolean(v)))
            return SLUICE_E_NOMEM;
        if (text == NULL)
            return sluice_error_set(pl->err, pl->arena, SLUICE_E_INVALID,
                                    "args.%s must be a string, number or boolean", key);
        param_put(&pl->base, key, text);
    }
    return SLUICE_OK;
}

static const sluice_config_source_param *
find_param(const sluice_config_source *src, const char *column, const char *op)
{
    for (size_t i = 0; i < src->param_count; i++) {
        const sluice_config_source_param *p = &src->params[i];
        if (p->column != NULL && strcasecmp(p->column, column) == 0 && strcmp(p->op, op) == 0)
            return p;
    }
    return NULL;
}

/* The parameters t maps onto (out[1] may stay NULL); *exact when they mean t itself. */
static size_t map_term(const plan *pl,
                       const sluice_qm_term *t,
                       const sluice_config_source_param *out[2],
                       bool *exact)
{
    out[0] = out[1] = NULL;
    *exact = true;
    if ((out[0] = find_param(pl->src, t->column, t->op)) != NULL)
        return 1;
    bool eq = strcmp(t->op, "=") == 0;
    const sluice_config_source_param *ge = find_param(pl->src, t->column, ">=");
    const sluice_config_source_param *le = find_param(pl->src, t->column, "<=");
    if (eq && ge != NULL && le != NULL) { /* x = v is x >= v AND x <= v */
        out[0] = ge;
        out[1] = le;
        return 2;
    }
    if (!pl->o->widen)
        return 0;
    *exact = false;
    if (strcmp(t->op, ">") == 0 || eq)
        out[0] = ge;
    if (out[0] == NULL && (strcmp(t->op, "<") == 0 || eq))
        out[0] = le;
    return out[0] != NULL ? 1 : 0;
}

/* Distinct values of t (IN lists may repeat one). */
static const char **distinct_values(plan *pl, const sluice_qm_term *t, size_t *count)
{
    const char **v = sluice_arena_calloc(pl->arena, t->value_count + 1, sizeof(*v));
    *count = 0;
    for (size_t i = 0; v != NULL && i < t->value_count; i++) {
        bool seen = false;
        for (size_t j = 0; j < *count && !seen; j++)
            seen = strcmp(v[j], t->values[i]) == 0;
        if (!seen)
            v[(*count)++] = t->values[i];
    }
    return v;
}

static sluice_status apply_term(plan *pl, const sluice_qm_term *t)
{
    const sluice_config_source_param *p[2];
    bool exact = true;
    size_t n = map_term(pl, t, p, &exact);
    if (n == 0 && !pl->o->widen)
        return sluice_error_set(pl->err, pl->arena, SLUICE_E_INVALID,
                                "%s, column %zu: source '%s' cannot filter on %s %s; the "
                                "filters it pushes down are: %s (filter anything else in "
                                "query after the load)",
                                pl->o->label, t->column_at, pl->src->name, t->column, t->op,
                                sluice_qm_pushable(pl->src, pl->arena, NULL));
    pl->exact = pl->exact && exact && n > 0;
    if (n == 0)
        return SLUICE_OK; /* widened: nothing takes it, the caller filters the rows again */
    for (size_t k = 0; k < n; k++) {
        size_t idx = (size_t)(p[k] - pl->src->params);
        if (!pl->by_term[idx])
            continue;
        if (!pl->o->widen)
            return sluice_error_set(pl->err, pl->arena, SLUICE_E_INVALID,
                                    "%s, column %zu: %s %s is filtered twice; keep one",
                                    pl->o->label, t->column_at, t->column, t->op);
        pl->exact = false; /* both are AND-ed: the first alone still selects a superset */
        return SLUICE_OK;
    }
    size_t count = 0;
    const char **values = distinct_values(pl, t, &count);
    if (values == NULL)
        return SLUICE_E_NOMEM;
    for (size_t k = 0; k < n; k++)
        pl->by_term[p[k] - pl->src->params] = true;
    if (count == 1) {
        for (size_t k = 0; k < n; k++)
            param_put(&pl->base, p[k]->name, values[0]);
        return SLUICE_OK;
    }
    pl->dims[pl->dim_count++] = (dim){ { p[0]->name, n > 1 ? p[1]->name : NULL }, values, count };
    return SLUICE_OK;
}

static bool in_dims(const plan *pl, const char *name)
{
    for (size_t d = 0; d < pl->dim_count; d++)
        if (strcmp(pl->dims[d].names[0], name) == 0 ||
            (pl->dims[d].names[1] != NULL && strcmp(pl->dims[d].names[1], name) == 0))
            return true;
    return false;
}

static sluice_status check_required(plan *pl)
{
    const sluice_config_source *src = pl->src;
    for (size_t i = 0; i < src->param_count; i++) {
        const sluice_config_source_param *p = &src->params[i];
        if (!p->required || param_has(&pl->base, p->name) || in_dims(pl, p->name))
            continue;
        if (p->column != NULL)
            return sluice_error_set(pl->err, pl->arena, SLUICE_E_INVALID,
                                    "source '%s' needs a filter on column %s (operators: %s), "
                                    "e.g. where: \"%s %s '...'\", in query WHERE %s %s '...' "
                                    "or a JOIN/IN that gives its values, or args.%s",
                                    src->name, p->column,
                                    sluice_qm_pushable(src, pl->arena, p->column), p->column, p->op,
                                    p->column, p->op, p->name);
        return sluice_error_set(pl->err, pl->arena, SLUICE_E_INVALID, "source '%s' needs args.%s",
                                src->name, p->name);
    }
    return SLUICE_OK;
}

static int cmp_param(const void *a, const void *b)
{
    return strcmp(((const sluice_qm_param *)a)->name, ((const sluice_qm_param *)b)->name);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One set's canonical text: its parameters sorted by name, as a JSON array of pairs. */
static const char *set_text(sluice_qm_param_set *ps, sluice_arena *arena)
{
    qsort(ps->items, ps->count, sizeof(*ps->items), cmp_param);
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < ps->count; i++)
        json_array_append_new(a, json_pack("[ss]", ps->items[i].name, ps->items[i].value));
    char *text = a != NULL ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    const char *copy = text != NULL ? sluice_arena_strdup(arena, text) : NULL;
    free(text);
    return copy;
}

static sluice_status build_sets(plan *pl, sluice_qm_requests *out)
{
    size_t total = 1;
    for (size_t d = 0; d < pl->dim_count; d++) {
        if (pl->dims[d].count == 0) {
            total = 0;
            break;
        }
        if (pl->dims[d].count > SLUICE_LIMIT_QM_FANOUT / total)
            return sluice_error_set(pl->err, pl->arena, SLUICE_E_LIMIT,
                                    "source '%s': the IN lists and JOIN values would fan out into "
                                    "more than %u requests; narrow them or load with fewer values",
                                    pl->src->name, SLUICE_LIMIT_QM_FANOUT);
        total *= pl->dims[d].count;
    }
    /* total is 0 when a JOIN has no partner rows: nothing to request, an empty table */
    out->sets = sluice_arena_calloc(pl->arena, total + 1, sizeof(*out->sets));
    const char **texts = sluice_arena_calloc(pl->arena, total + 1, sizeof(*texts));
    if (out->sets == NULL || texts == NULL)
        return SLUICE_E_NOMEM;
    size_t width = pl->base.count + 2 * pl->dim_count + 1;
    for (size_t k = 0; k < total; k++) {
        sluice_qm_param_set *ps = &out->sets[k];
        ps->items = sluice_arena_calloc(pl->arena, width, sizeof(*ps->items));
        if (ps->items == NULL)
            return SLUICE_E_NOMEM;
        for (size_t i = 0; i < pl->base.count; i++)
            ps->items[ps->count++] = pl->base.items[i];
        size_t rest = k;
        for (size_t d = 0; d < pl->dim_count; d++) {
            const dim *dm = &pl->dims[d];
            const char *v = dm->values[rest % dm->count];
            rest /= dm->count;
            param_put(ps, dm->names[0], v);
            if (dm->names[1] != NULL)
                param_put(ps, dm->names[1], v);
        }
        if ((texts[k] = set_text(ps, pl->arena)) == NULL)
            return SLUICE_E_NOMEM;
    }
    out->count = total;
    qsort(texts, total, sizeof(*texts), cmp_str);
    sluice_buf b;
    sluice_buf_init(&b, pl->arena, 0);
    sluice_buf_puts(&b, pl->src->name);
    for (size_t k = 0; k < total; k++)
        sluice_buf_printf(&b, "\n%s", texts[k]);
    out->key = sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
    return out->key != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

sluice_status sluice_qm_fanout(const sluice_config_source *src,
                               const json_t *args,
                               const sluice_qm_term *terms,
                               size_t term_count,
                               const sluice_qm_fanout_options *options,
                               sluice_qm_requests *out,
                               sluice_arena *arena,
                               sluice_error *err)
{
    memset(out, 0, sizeof(*out));
    plan pl = { .src = src, .o = options, .exact = true, .arena = arena, .err = err };
    pl.base.items = sluice_arena_calloc(arena, src->param_count + 1, sizeof(*pl.base.items));
    pl.by_term = sluice_arena_calloc(arena, src->param_count + 1, sizeof(*pl.by_term));
    pl.dims = sluice_arena_calloc(arena, term_count + 1, sizeof(*pl.dims));
    if (pl.base.items == NULL || pl.by_term == NULL || pl.dims == NULL)
        return SLUICE_E_NOMEM;
    for (size_t i = 0; i < src->param_count; i++)
        if (src->params[i].default_value != NULL)
            param_put(&pl.base, src->params[i].name, src->params[i].default_value);
    sluice_status st = json_is_object(args) ? apply_args(&pl, args) : SLUICE_OK;
    for (size_t t = 0; st == SLUICE_OK && t < term_count; t++)
        st = apply_term(&pl, &terms[t]);
    if (st == SLUICE_OK)
        st = check_required(&pl);
    if (st == SLUICE_OK)
        st = build_sets(&pl, out);
    out->exact = pl.exact;
    return st;
}
