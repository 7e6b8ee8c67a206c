/*
 * fuzz_qm_pushdown.c — libFuzzer target for query mode's pushdown (querymode/pushdown.c) on the
 * parse trees of arbitrary SQL (the session engine's own parser, opened once), then the request
 * plans of every need (querymode/fanout.c, widened, JOIN values stood in for by two fixed ones).
 * Crashes, leaks, sanitizer reports and timeouts are bugs; no need, or a refused plan, is normal.
 */
#include "exec/scratch.h"
#include "querymode/fanout.h"
#include "querymode/pushdown.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sluice_config_source_param params[] = {
    { .name = "date_from", .column = "Date", .op = ">=" },
    { .name = "date_to", .column = "Date", .op = "<=" },
    { .name = "status", .column = "Status", .op = "=" },
    { .name = "contact", .column = "ContactID", .op = "=", .required = true },
};
static sluice_config_source sources[] = {
    { .name = "invoices", .auto_load = true, .params = params, .param_count = 4 },
    { .name = "contacts", .auto_load = true },
};

static const sluice_config_source *source_of(void *ctx, const char *table)
{
    (void)ctx;
    for (size_t i = 0; i < 2; i++)
        if (strcasecmp(sources[i].name, table) == 0)
            return &sources[i];
    return NULL;
}

static int has_column(void *ctx, const char *table, const char *column)
{
    (void)ctx;
    (void)table;
    return strcasecmp(column, "Region") == 0 ? 0 : -1;
}

static sluice_executor *engine(void)
{
    static sluice_executor *ex;
    static sluice_arena *arena; /* the open's error strings; static, so still reachable */
    static char dir[64];
    if (ex == NULL) {
        snprintf(dir, sizeof(dir), "/tmp/sluice-fuzz-qmpd-XXXXXX");
        arena = sluice_arena_new();
        sluice_error err = { 0 };
        sluice_scratch_options o = { .spill_dir = dir,
                                     .memory_limit = "64MB",
                                     .max_spill = "16MB" };
        if (mkdtemp(dir) == NULL || sluice_scratch_open(&o, &ex, arena, &err) != SLUICE_OK)
            abort();
    }
    return ex;
}

static const char *join_values[] = { "7", "8" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    char *sql = malloc(size + 1);
    sluice_arena *arena = sluice_arena_new();
    if (sql == NULL || arena == NULL) {
        free(sql);
        sluice_arena_free(arena);
        return 0;
    }
    memcpy(sql, data, size);
    sql[size] = '\0';
    json_t *tree = NULL;
    sluice_error err = { 0 };
    sluice_qm_pushdown_env env = { .source_of = source_of, .has_column = has_column };
    sluice_qm_need *needs = NULL;
    size_t n = 0;
    if (sluice_scratch_parse(engine(), sql, arena, &tree, &err) == SLUICE_OK &&
        sluice_qm_pushdown(tree, &env, &needs, &n, arena, &err) == SLUICE_OK) {
        for (size_t i = 0; i < n; i++) {
            sluice_qm_term *terms =
                sluice_arena_calloc(arena, needs[i].term_count + 1, sizeof(*terms));
            for (size_t t = 0; terms != NULL && t < needs[i].term_count; t++) {
                terms[t] = needs[i].terms[t];
                if (needs[i].from_table[t] != NULL) {
                    terms[t].values = join_values;
                    terms[t].value_count = 2;
                }
            }
            sluice_qm_fanout_options o = { .widen = true, .label = "query" };
            sluice_qm_requests req;
            if (terms != NULL &&
                sluice_qm_fanout(needs[i].source, NULL, terms, needs[i].term_count, &o, &req, arena,
                                 &err) == SLUICE_OK &&
                req.key == NULL)
                abort();
        }
    }
    sluice_arena_free(arena);
    free(sql);
    return 0;
}
