/*
 * fuzz_qm_where.c — libFuzzer target for query mode's `where` parser (querymode/where.c) and
 * the request plan built from its terms (querymode/fanout.c) on a fixed source: any bytes, a
 * fresh arena each time. Crashes, leaks, sanitizer reports and timeouts are bugs; a refusal is a
 * normal outcome, and a refusal must carry a message.
 */
#include "querymode/fanout.h"
#include "querymode/where.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sluice_config_source_param params[] = {
    { .name = "date_from", .column = "Date", .op = ">=" },
    { .name = "date_to", .column = "Date", .op = "<=" },
    { .name = "status", .column = "Status", .op = "=" },
    { .name = "year", .column = "Year", .op = "=", .required = true },
};
static const sluice_config_source source = { .name = "invoices",
                                             .params = params,
                                             .param_count = 4 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 2 * SLUICE_QM_WHERE_MAX_BYTES)
        return 0;
    char *text = malloc(size + 1);
    sluice_arena *arena = sluice_arena_new();
    if (text == NULL || arena == NULL) {
        free(text);
        sluice_arena_free(arena);
        return 0;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    sluice_qm_term *terms = NULL;
    size_t n = 0;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st = sluice_qm_where_parse(text, arena, &terms, &n, &err);
    if (st == SLUICE_OK) {
        for (int widen = 0; widen < 2; widen++) {
            sluice_qm_fanout_options o = { .widen = widen != 0, .label = "where" };
            sluice_qm_requests req;
            sluice_error_clear(&err);
            if (sluice_qm_fanout(&source, NULL, terms, n, &o, &req, arena, &err) == SLUICE_OK &&
                req.key == NULL)
                abort();
        }
    } else if (st != SLUICE_E_NOMEM && err.message == NULL) {
        abort(); /* every refusal says why */
    }
    sluice_arena_free(arena);
    free(text);
    return 0;
}
