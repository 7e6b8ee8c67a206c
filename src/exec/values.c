/*
 * values.c — engine-independent result helpers (see values.h).
 */
#include "exec/values.h"

#include "core/buf.h"
#include "core/clock.h"
#include "core/utf8.h"

#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* s[0..len) into b with every byte that does not start a well-formed UTF-8 sequence, and every
 * NUL, as U+FFFD. */
static void replace_invalid(sluice_buf *b, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t n = p[i] == 0 ? 0 : sluice_utf8_decode((const char *)p + i, len - i, NULL);
        if (n == 0) {
            sluice_buf_append(b, "\xEF\xBF\xBD", 3);
            i++;
        } else {
            sluice_buf_append(b, p + i, n);
            i += n;
        }
    }
}

json_t *sluice_exec_json_text(const char *s, size_t len)
{
    json_t *v = json_stringn(s, len);
    if (v != NULL)
        return v;
    /* Invalid UTF-8 (or an embedded NUL): rebuild with replacement characters. */
    sluice_buf b;
    sluice_buf_init(&b, NULL, 0);
    replace_invalid(&b, s, len);
    v = sluice_buf_status(&b) == SLUICE_OK ? json_stringn(b.data != NULL ? b.data : "", b.len)
                                           : NULL;
    sluice_buf_dispose(&b);
    return v;
}

/* Whether jansson's json_stringn takes s as it is: well-formed UTF-8, NULs allowed. */
static bool utf8_text(const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        size_t n = sluice_utf8_decode(s + i, len - i, NULL);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

void sluice_exec_text_string(sluice_buf *b, const char *s, size_t len)
{
    if (utf8_text(s, len)) {
        sluice_buf_json_string(b, s, len);
        return;
    }
    sluice_buf fixed;
    sluice_buf_init(&fixed, NULL, 0);
    replace_invalid(&fixed, s, len);
    if (sluice_buf_status(&fixed) != SLUICE_OK)
        b->status = SLUICE_E_NOMEM; /* sticky: the row is not kept */
    else
        sluice_buf_json_string(b, sluice_buf_cstr(&fixed), fixed.len);
    sluice_buf_dispose(&fixed);
}

json_t *sluice_exec_json_blob(const void *data, size_t len)
{
    size_t cap = sodium_base64_ENCODED_LEN(len, sodium_base64_VARIANT_ORIGINAL);
    char *text = malloc(cap);
    if (text == NULL)
        return NULL;
    sodium_bin2base64(text, cap, data, len, sodium_base64_VARIANT_ORIGINAL);
    json_t *v = json_string(text);
    free(text);
    return v;
}

json_t *sluice_exec_json_real(double value)
{
    if (isnan(value))
        return json_string("NaN");
    if (isinf(value))
        return json_string(value > 0 ? "Infinity" : "-Infinity");
    return json_real(value);
}

static void rows_release(void *rows)
{
    json_decref(rows);
}

sluice_status
sluice_exec_rows_init(sluice_exec_rows *acc, sluice_arena *arena, const sluice_exec_limits *limits)
{
    memset(acc, 0, sizeof(*acc));
    acc->rows = json_array();
    if (acc->rows == NULL)
        return SLUICE_E_NOMEM;
    if (sluice_arena_cleanup_add(arena, rows_release, acc->rows) != SLUICE_OK) {
        acc->rows = NULL;
        return SLUICE_E_NOMEM;
    }
    acc->bytes = 2; /* "[]" */
    sluice_buf_init(&acc->text, arena, 0);
    acc->max_rows = limits->max_rows;
    acc->max_bytes = limits->max_bytes;
    return SLUICE_OK;
}

/* json_dump_callback sink: the row's compact text goes straight into the accumulator. */
static int append_text(const char *buffer, size_t size, void *data)
{
    sluice_buf_append(data, buffer, size);
    return sluice_buf_status(data) == SLUICE_OK ? 0 : -1;
}

/* The shortest %.Ng that reads back as the same double (8943927.12, not jansson's 17 digits
 * 8943927.1199999992: what a model reads should be what a person would write), with ".0" kept
 * on integral values as jansson writes them. */
static void append_real(sluice_buf *b, double value)
{
    char text[40];
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, value);
        if (strtod(text, NULL) == value)
            break;
    }
    sluice_buf_puts(b, text);
    if (strpbrk(text, ".eEn") == NULL)
        sluice_buf_puts(b, ".0");
}

void sluice_exec_text_real(sluice_buf *b, double value)
{
    if (isnan(value))
        sluice_buf_puts(b, "\"NaN\"");
    else if (isinf(value))
        sluice_buf_puts(b, value > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else
        append_real(b, value);
}

void sluice_exec_text_integer(sluice_buf *b, int64_t value)
{
    char text[24];
    size_t n = sizeof text;
    unsigned long long mag =
        value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value;
    do {
        text[--n] = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag != 0);
    if (value < 0)
        text[--n] = '-';
    sluice_buf_append(b, text + n, sizeof text - n);
}

/* A row's compact JSON text, written straight from its values: the same bytes as jansson's
 * JSON_COMPACT dump except reals, which print shortest (append_real). Objects (STRUCT, MAP
 * values) go through jansson. False when out of memory. */
bool sluice_exec_text_value(sluice_buf *b, const json_t *value)
{
    switch (json_typeof(value)) {
    case JSON_REAL:
        append_real(b, json_real_value(value));
        break;
    case JSON_INTEGER:
        sluice_exec_text_integer(b, json_integer_value(value));
        break;
    case JSON_STRING:
        sluice_buf_json_string(b, json_string_value(value), json_string_length(value));
        break;
    case JSON_TRUE:
        sluice_buf_puts(b, "true");
        break;
    case JSON_FALSE:
        sluice_buf_puts(b, "false");
        break;
    case JSON_NULL:
        sluice_buf_puts(b, "null");
        break;
    case JSON_ARRAY:
        sluice_buf_putc(b, '[');
        for (size_t i = 0; i < json_array_size(value); i++) {
            if (i > 0)
                sluice_buf_putc(b, ',');
            if (!sluice_exec_text_value(b, json_array_get(value, i)))
                return false;
        }
        sluice_buf_putc(b, ']');
        break;
    default:
        if (json_dump_callback(value, append_text, b, JSON_COMPACT | JSON_ENCODE_ANY) != 0)
            return false;
    }
    return sluice_buf_status(b) == SLUICE_OK;
}

sluice_status sluice_exec_rows_init_text(sluice_exec_rows *acc,
                                         sluice_arena *arena,
                                         const sluice_exec_limits *limits)
{
    memset(acc, 0, sizeof(*acc));
    acc->bytes = 2; /* "[]" */
    sluice_buf_init(&acc->text, arena, 0);
    acc->max_rows = limits->max_rows;
    acc->max_bytes = limits->max_bytes;
    return SLUICE_OK;
}

bool sluice_exec_rows_room(sluice_exec_rows *acc, bool *more)
{
    *more = true;
    if (acc->max_rows > 0 && (int64_t)acc->count >= acc->max_rows) {
        /* This is row max_rows+1: it exists, so the result is truncated. */
        acc->truncated = true;
        acc->truncated_by = "max_rows";
        *more = false;
        return false;
    }
    return true;
}

/* The row whose text begins at start: kept (its newline written, counted) unless it would pass
 * max_bytes, when its text goes again, truncated is set and *more becomes false. */
static bool keep_text(sluice_exec_rows *acc, size_t start, bool *more)
{
    size_t size = acc->text.len - start + (acc->count > 0 ? 1 : 0);
    if (acc->max_bytes > 0 && acc->bytes + size > acc->max_bytes) {
        acc->text.len = start; /* the row is dropped: so is its text */
        if (acc->text.data != NULL)
            acc->text.data[start] = '\0';
        acc->truncated = true;
        acc->truncated_by = "max_bytes";
        *more = false;
        return false;
    }
    sluice_buf_putc(&acc->text, '\n');
    acc->bytes += size;
    acc->count++;
    return true;
}

sluice_status sluice_exec_rows_end_text(sluice_exec_rows *acc, size_t start, bool *more)
{
    *more = true;
    if (sluice_buf_status(&acc->text) != SLUICE_OK)
        return SLUICE_E_NOMEM;
    keep_text(acc, start, more);
    return sluice_buf_status(&acc->text) == SLUICE_OK ? SLUICE_OK : SLUICE_E_NOMEM;
}

sluice_status sluice_exec_rows_add(sluice_exec_rows *acc, json_t *row, bool *more)
{
    *more = true;
    if (row == NULL)
        return SLUICE_E_NOMEM;
    if (!sluice_exec_rows_room(acc, more)) {
        json_decref(row);
        return SLUICE_OK;
    }
    size_t start = acc->text.len;
    if (!sluice_exec_text_value(&acc->text, row)) {
        json_decref(row);
        return SLUICE_E_NOMEM;
    }
    if (!keep_text(acc, start, more)) {
        json_decref(row);
        return SLUICE_OK;
    }
    if (json_array_append_new(acc->rows, row) != 0 || sluice_buf_status(&acc->text) != SLUICE_OK)
        return SLUICE_E_NOMEM;
    return SLUICE_OK;
}

void sluice_exec_rows_finish(const sluice_exec_rows *acc, sluice_exec_result *out)
{
    out->rows = acc->rows;
    out->row_count = acc->count;
    out->bytes = acc->bytes;
    out->rows_text = acc->text.len > 0 ? sluice_buf_cstr(&acc->text) : "";
    out->truncated = acc->truncated;
    out->truncated_by = acc->truncated_by;
}

const json_t *sluice_exec_variable(const json_t *vars, const char *name, bool *used)
{
    if (vars == NULL || !json_is_object(vars))
        return NULL;
    size_t i = 0;
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)vars, key, value)
    {
        if (strcmp(key, name) == 0) {
            used[i] = true;
            return value;
        }
        i++;
    }
    return NULL;
}

sluice_status
sluice_exec_bind(const sluice_exec_binding *b, size_t i, const char *name, const json_t *v, int *rc)
{
    const sluice_exec_bind_ops *ops = b->ops;
    switch (json_typeof(v)) {
    case JSON_STRING:
        *rc = ops->text(b->stmt, i, json_string_value(v), json_string_length(v));
        return SLUICE_OK;
    case JSON_INTEGER:
        *rc = ops->integer(b->stmt, i, json_integer_value(v));
        return SLUICE_OK;
    case JSON_REAL:
        *rc = ops->real(b->stmt, i, json_real_value(v));
        return SLUICE_OK;
    case JSON_TRUE:
    case JSON_FALSE:
        *rc = ops->boolean(b->stmt, i, json_is_true(v));
        return SLUICE_OK;
    case JSON_NULL:
        *rc = ops->null(b->stmt, i);
        return SLUICE_OK;
    default:
        return sluice_error_set(b->err, b->arena, SLUICE_E_INVALID,
                                "variable '%s' must be a string, number, boolean or null", name);
    }
}

sluice_status sluice_exec_variables_all_used(const json_t *vars,
                                             const bool *used,
                                             sluice_arena *arena,
                                             sluice_error *err)
{
    if (vars == NULL)
        return SLUICE_OK;
    size_t i = 0;
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)vars, key, value)
    {
        (void)value;
        if (!used[i])
            return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                    "variable '%s' is not used by the statement; refer to it as "
                                    "$%s or remove it",
                                    key, key);
        i++;
    }
    return SLUICE_OK;
}

int64_t sluice_exec_now_ms(void)
{
    return sluice_clock_monotonic_ms(NULL);
}

sluice_status
sluice_exec_timeout_error(sluice_error *err, sluice_arena *arena, const sluice_exec_limits *limits)
{
    const char *setting = limits->timeout_setting != NULL ? limits->timeout_setting : "timeout";
    if (limits->timeout_ms % 1000 == 0)
        return sluice_error_set(err, arena, SLUICE_E_TIMEOUT,
                                "the query was stopped after %lld s (%s)",
                                (long long)(limits->timeout_ms / 1000), setting);
    return sluice_error_set(err, arena, SLUICE_E_TIMEOUT,
                            "the query was stopped after %lld ms (%s)",
                            (long long)limits->timeout_ms, setting);
}

sluice_status sluice_exec_cancelled_error(sluice_error *err, sluice_arena *arena)
{
    return sluice_error_set(err, arena, SLUICE_E_CANCELLED,
                            "the query was stopped because the client cancelled the request");
}
