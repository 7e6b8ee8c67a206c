/*
 * duckdb_values.c — DuckDB vectors to JSON (see duckdb_values.h).
 *
 * Temporal values become ISO 8601 text ("2026-04-01", "2026-04-01T10:11:12.5",
 * "...Z" for TIMESTAMPTZ); exact numbers that JSON cannot hold exactly become strings.
 */
#include "exec/duckdb_values.h"

#include "core/buf.h"
#include "exec/values.h"
#include "syntax/sqltree/duckdb_type.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

__extension__ typedef __int128 duck_i128;
__extension__ typedef unsigned __int128 duck_u128;

static bool row_valid(duckdb_vector vec, idx_t row)
{
    uint64_t *validity = duckdb_vector_get_validity(vec);
    return validity == NULL || duckdb_validity_row_is_valid(validity, row);
}

static json_t *text_json(const char *s)
{
    return json_string(s);
}

/* Decimal text of an unsigned 128-bit magnitude, with '-' when negative. */
static void u128_text(char *out, size_t cap, duck_u128 mag, bool negative)
{
    char digits[48];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag != 0 && n < sizeof(digits));
    size_t o = 0;
    if (negative && o + 1 < cap)
        out[o++] = '-';
    while (n > 0 && o + 1 < cap)
        out[o++] = digits[--n];
    out[o] = '\0';
}

static void i128_text(char *out, size_t cap, duck_i128 v)
{
    duck_u128 mag = v < 0 ? (duck_u128)0 - (duck_u128)v : (duck_u128)v;
    u128_text(out, cap, mag, v < 0);
}

static duck_i128 hugeint_of(duckdb_hugeint h)
{
    return (duck_i128)(((duck_u128)(uint64_t)h.upper << 64) | h.lower);
}

/* A DECIMAL value: true with *whole set when its scale is 0 and it fits in 64 bits, else false
 * with its exact decimal text in out (80 bytes). */
static bool
decimal_value(duckdb_vector vec, duckdb_logical_type type, idx_t row, int64_t *whole, char *out)
{
    uint8_t scale = duckdb_decimal_scale(type);
    void *data = duckdb_vector_get_data(vec);
    duck_i128 v;
    switch (duckdb_decimal_internal_type(type)) {
    case DUCKDB_TYPE_SMALLINT:
        v = ((int16_t *)data)[row];
        break;
    case DUCKDB_TYPE_INTEGER:
        v = ((int32_t *)data)[row];
        break;
    case DUCKDB_TYPE_BIGINT:
        v = ((int64_t *)data)[row];
        break;
    default:
        v = hugeint_of(((duckdb_hugeint *)data)[row]);
        break;
    }
    if (scale == 0 && v >= INT64_MIN && v <= INT64_MAX) {
        *whole = (int64_t)v;
        return true;
    }
    char digits[64];
    duck_u128 mag = v < 0 ? (duck_u128)0 - (duck_u128)v : (duck_u128)v;
    u128_text(digits, sizeof(digits), mag, false);
    size_t len = strlen(digits);
    size_t o = 0;
    if (v < 0)
        out[o++] = '-';
    if (len <= scale) { /* 0.00ddd */
        out[o++] = '0';
        out[o++] = '.';
        for (size_t i = len; i < scale; i++)
            out[o++] = '0';
        memcpy(out + o, digits, len);
        o += len;
    } else {
        memcpy(out + o, digits, len - scale);
        o += len - scale;
        if (scale > 0) {
            out[o++] = '.';
            memcpy(out + o, digits + len - scale, scale);
            o += scale;
        }
    }
    out[o] = '\0';
    return false;
}

static json_t *decimal_json(duckdb_vector vec, duckdb_logical_type type, idx_t row)
{
    int64_t whole;
    char out[80];
    return decimal_value(vec, type, row, &whole, out) ? json_integer(whole) : json_string(out);
}

/* ".ffffff" without trailing zeros, or "" */
static void fraction_text(char *out, size_t cap, int64_t frac, int digits)
{
    if (frac == 0) {
        out[0] = '\0';
        return;
    }
    char tmp[16];
    snprintf(tmp, sizeof(tmp), "%0*" PRId64, digits, frac);
    size_t n = strlen(tmp);
    while (n > 1 && tmp[n - 1] == '0')
        n--;
    tmp[n] = '\0';
    snprintf(out, cap, ".%s", tmp);
}

/* v (0 <= v < 10^width) as width zero-padded digits at out: dates and times print once per
 * value, and a printf each costs more than the rest of the conversion. */
static char *put_digits(char *out, int v, int width)
{
    for (int i = width - 1; i >= 0; i--) {
        out[i] = (char)('0' + v % 10);
        v /= 10;
    }
    return out + width;
}

static void date_text(char *out, size_t cap, duckdb_date_struct d)
{
    if (d.year >= 0 && d.year <= 9999 && cap >= 11) {
        char *p = put_digits(out, (int)d.year, 4);
        *p++ = '-';
        p = put_digits(p, (int)d.month, 2);
        *p++ = '-';
        p = put_digits(p, (int)d.day, 2);
        *p = '\0';
    } else if (d.year < 0) {
        snprintf(out, cap, "%05d-%02d-%02d", (int)d.year, (int)d.month, (int)d.day);
    } else {
        snprintf(out, cap, "%04d-%02d-%02d", (int)d.year, (int)d.month, (int)d.day);
    }
}

/* A DATE's text: in out (32 bytes), or a constant for the infinities. */
static const char *date_value(duckdb_date date, char *out)
{
    if (!duckdb_is_finite_date(date))
        return date.days > 0 ? "infinity" : "-infinity";
    date_text(out, 32, duckdb_from_date(date));
    return out;
}

static void time_text(char *out, size_t cap, duckdb_time_struct t, int64_t frac, int digits)
{
    char f[16];
    fraction_text(f, sizeof(f), frac, digits);
    if (cap >= 9 + strlen(f) && t.hour >= 0 && t.hour <= 99) {
        char *p = put_digits(out, (int)t.hour, 2);
        *p++ = ':';
        p = put_digits(p, (int)t.min, 2);
        *p++ = ':';
        p = put_digits(p, (int)t.sec, 2);
        memcpy(p, f, strlen(f) + 1);
    } else {
        snprintf(out, cap, "%02d:%02d:%02d%s", (int)t.hour, (int)t.min, (int)t.sec, f);
    }
}

/* micros since the epoch plus extra nanoseconds (0..999) for TIMESTAMP_NS: its text in out
 * (96 bytes), or a constant for the infinities. */
static const char *
timestamp_value(int64_t micros, int extra_nanos, bool finite, bool utc, char *out)
{
    if (!finite)
        return micros > 0 ? "infinity" : "-infinity";
    duckdb_timestamp ts = { micros };
    duckdb_timestamp_struct s = duckdb_from_timestamp(ts);
    char d[32], t[48];
    date_text(d, sizeof(d), s.date);
    if (extra_nanos != 0)
        time_text(t, sizeof(t), s.time, (int64_t)s.time.micros * 1000 + extra_nanos, 9);
    else
        time_text(t, sizeof(t), s.time, s.time.micros, 6);
    size_t dn = strlen(d), tn = strlen(t); /* below 32 + 48: out holds both and "Z" */
    memcpy(out, d, dn);
    out[dn] = 'T';
    memcpy(out + dn + 1, t, tn);
    memcpy(out + dn + 1 + tn, utc ? "Z" : "", utc ? 2 : 1);
    return out;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static const char *interval_value(duckdb_interval iv, char *out)
{
    char f[16];
    int64_t secs = iv.micros / 1000000, frac = iv.micros % 1000000;
    fraction_text(f, sizeof(f), frac < 0 ? -frac : frac, 6);
    snprintf(out, 96, "P%dM%dDT%s%" PRId64 "%sS", (int)iv.months, (int)iv.days,
             (iv.micros < 0 && secs == 0) ? "-" : "", secs, f);
    return out;
}

static const char *uuid_value(duckdb_hugeint h, char *out)
{
    uint64_t hi = (uint64_t)h.upper ^ ((uint64_t)1 << 63), lo = h.lower;
    snprintf(out, 40, "%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%012" PRIx64,
             hi >> 32, (hi >> 16) & 0xFFFF, hi & 0xFFFF, lo >> 48, lo & (uint64_t)0xFFFFFFFFFFFF);
    return out;
}

/* BIT: first byte is the number of padding bits in the second byte. */
static json_t *bit_json(const unsigned char *p, size_t len)
{
    if (len < 1)
        return text_json("");
    sluice_buf b;
    sluice_buf_init(&b, NULL, 0);
    unsigned padding = p[0];
    for (size_t i = 1; i < len; i++)
        for (int bit = 7; bit >= 0; bit--) {
            if (i == 1 && (unsigned)(7 - bit) < padding)
                continue;
            sluice_buf_putc(&b, ((p[i] >> bit) & 1) ? '1' : '0');
        }
    json_t *v = sluice_buf_status(&b) == SLUICE_OK ? json_string(sluice_buf_cstr(&b)) : NULL;
    sluice_buf_dispose(&b);
    return v;
}

static json_t *enum_json(duckdb_vector vec, duckdb_logical_type type, idx_t row)
{
    void *data = duckdb_vector_get_data(vec);
    uint64_t index;
    switch (duckdb_enum_internal_type(type)) {
    case DUCKDB_TYPE_UTINYINT:
        index = ((uint8_t *)data)[row];
        break;
    case DUCKDB_TYPE_USMALLINT:
        index = ((uint16_t *)data)[row];
        break;
    default:
        index = ((uint32_t *)data)[row];
        break;
    }
    char *name = duckdb_enum_dictionary_value(type, index);
    json_t *v = name != NULL ? json_string(name) : json_null();
    duckdb_free(name);
    return v;
}

static json_t *
list_json(duckdb_vector child, duckdb_logical_type child_type, uint64_t offset, uint64_t length)
{
    json_t *arr = json_array();
    for (uint64_t i = 0; arr != NULL && i < length; i++) {
        if (json_array_append_new(arr, sluice_duck_value(child, child_type, offset + i)) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *nested_json(duckdb_vector vec, duckdb_logical_type type, duckdb_type id, idx_t row)
{
    json_t *v = NULL;
    if (id == DUCKDB_TYPE_LIST) {
        duckdb_list_entry e = ((duckdb_list_entry *)duckdb_vector_get_data(vec))[row];
        duckdb_logical_type ct = duckdb_list_type_child_type(type);
        v = list_json(duckdb_list_vector_get_child(vec), ct, e.offset, e.length);
        duckdb_destroy_logical_type(&ct);
    } else if (id == DUCKDB_TYPE_ARRAY) {
        idx_t size = duckdb_array_type_array_size(type);
        duckdb_logical_type ct = duckdb_array_type_child_type(type);
        v = list_json(duckdb_array_vector_get_child(vec), ct, row * size, size);
        duckdb_destroy_logical_type(&ct);
    } else if (id == DUCKDB_TYPE_STRUCT) {
        v = json_object();
        idx_t n = duckdb_struct_type_child_count(type);
        for (idx_t i = 0; v != NULL && i < n; i++) {
            char *name = duckdb_struct_type_child_name(type, i);
            duckdb_logical_type ct = duckdb_struct_type_child_type(type, i);
            json_t *cv = sluice_duck_value(duckdb_struct_vector_get_child(vec, i), ct, row);
            if (name == NULL || json_object_set_new(v, name, cv) != 0) {
                json_decref(v);
                v = NULL;
            }
            duckdb_free(name);
            duckdb_destroy_logical_type(&ct);
        }
    } else if (id == DUCKDB_TYPE_MAP) {
        /* A MAP is a LIST of STRUCT(key, value): [{"key":..,"value":..}, ...] keeps any key type.
         */
        duckdb_list_entry e = ((duckdb_list_entry *)duckdb_vector_get_data(vec))[row];
        duckdb_vector entries = duckdb_list_vector_get_child(vec);
        duckdb_logical_type kt = duckdb_map_type_key_type(type);
        duckdb_logical_type vt = duckdb_map_type_value_type(type);
        v = json_array();
        for (uint64_t i = 0; v != NULL && i < e.length; i++) {
            json_t *pair = json_pack(
                "{s:o*,s:o*}", "key",
                sluice_duck_value(duckdb_struct_vector_get_child(entries, 0), kt, e.offset + i),
                "value",
                sluice_duck_value(duckdb_struct_vector_get_child(entries, 1), vt, e.offset + i));
            if (json_array_append_new(v, pair) != 0) {
                json_decref(v);
                v = NULL;
            }
        }
        duckdb_destroy_logical_type(&kt);
        duckdb_destroy_logical_type(&vt);
    }
    return v;
}

/* A BOOLEAN or an integer type's value: a JSON number while it fits in 64 signed bits, its
 * decimal text beyond. */
static json_t *integer_json(duckdb_type id, void *data, idx_t row)
{
    switch (id) {
    case DUCKDB_TYPE_BOOLEAN:
        return json_boolean(((bool *)data)[row]);
    case DUCKDB_TYPE_TINYINT:
        return json_integer(((int8_t *)data)[row]);
    case DUCKDB_TYPE_SMALLINT:
        return json_integer(((int16_t *)data)[row]);
    case DUCKDB_TYPE_INTEGER:
        return json_integer(((int32_t *)data)[row]);
    case DUCKDB_TYPE_BIGINT:
        return json_integer(((int64_t *)data)[row]);
    case DUCKDB_TYPE_UTINYINT:
        return json_integer(((uint8_t *)data)[row]);
    case DUCKDB_TYPE_USMALLINT:
        return json_integer(((uint16_t *)data)[row]);
    case DUCKDB_TYPE_UINTEGER:
        return json_integer(((uint32_t *)data)[row]);
    case DUCKDB_TYPE_UBIGINT: {
        uint64_t u = ((uint64_t *)data)[row];
        if (u <= INT64_MAX)
            return json_integer((json_int_t)u);
        char out[32];
        snprintf(out, sizeof(out), "%" PRIu64, u);
        return text_json(out);
    }
    case DUCKDB_TYPE_HUGEINT: {
        /* sum() of integers is HUGEINT: keep it a number while it fits, text beyond. */
        duck_i128 v = hugeint_of(((duckdb_hugeint *)data)[row]);
        if (v >= INT64_MIN && v <= INT64_MAX)
            return json_integer((json_int_t)v);
        char out[48];
        i128_text(out, sizeof(out), v);
        return text_json(out);
    }
    case DUCKDB_TYPE_UHUGEINT: {
        duckdb_uhugeint h = ((duckdb_uhugeint *)data)[row];
        duck_u128 v = ((duck_u128)h.upper << 64) | h.lower;
        if (v <= INT64_MAX)
            return json_integer((json_int_t)v);
        char out[48];
        u128_text(out, sizeof(out), v, false);
        return text_json(out);
    }
    default: /* the caller dispatches only the types above */
        return json_null();
    }
}

/* A date, time, timestamp or interval value's text: in out (96 bytes), or a constant. */
static const char *temporal_value(duckdb_type id, void *data, idx_t row, char *out)
{
    switch (id) {
    case DUCKDB_TYPE_DATE:
        return date_value(((duckdb_date *)data)[row], out);
    case DUCKDB_TYPE_TIME: {
        duckdb_time_struct t = duckdb_from_time(((duckdb_time *)data)[row]);
        time_text(out, 48, t, t.micros, 6);
        return out;
    }
    case DUCKDB_TYPE_TIME_TZ: {
        duckdb_time_tz_struct t = duckdb_from_time_tz(((duckdb_time_tz *)data)[row]);
        char tt[48];
        time_text(tt, sizeof(tt), t.time, t.time.micros, 6);
        int off = t.offset < 0 ? -t.offset : t.offset;
        snprintf(out, 64, "%s%c%02d:%02d", tt, t.offset < 0 ? '-' : '+', off / 3600,
                 (off / 60) % 60);
        return out;
    }
    case DUCKDB_TYPE_TIMESTAMP:
    case DUCKDB_TYPE_TIMESTAMP_TZ: {
        duckdb_timestamp ts = ((duckdb_timestamp *)data)[row];
        return timestamp_value(ts.micros, 0, duckdb_is_finite_timestamp(ts),
                               id == DUCKDB_TYPE_TIMESTAMP_TZ, out);
    }
    case DUCKDB_TYPE_TIMESTAMP_S: {
        duckdb_timestamp_s ts = ((duckdb_timestamp_s *)data)[row];
        return timestamp_value(ts.seconds * 1000000, 0, duckdb_is_finite_timestamp_s(ts), false,
                               out);
    }
    case DUCKDB_TYPE_TIMESTAMP_MS: {
        duckdb_timestamp_ms ts = ((duckdb_timestamp_ms *)data)[row];
        return timestamp_value(ts.millis * 1000, 0, duckdb_is_finite_timestamp_ms(ts), false, out);
    }
    case DUCKDB_TYPE_TIMESTAMP_NS: {
        duckdb_timestamp_ns ts = ((duckdb_timestamp_ns *)data)[row];
        int64_t micros = floor_div(ts.nanos, 1000);
        return timestamp_value(micros, (int)(ts.nanos - micros * 1000),
                               duckdb_is_finite_timestamp_ns(ts), false, out);
    }
    default: /* DUCKDB_TYPE_INTERVAL: the caller dispatches only the types above */
        return interval_value(((duckdb_interval *)data)[row], out);
    }
}

static json_t *temporal_json(duckdb_type id, void *data, idx_t row)
{
    char out[96];
    return text_json(temporal_value(id, data, row, out));
}

/* A VARCHAR, BLOB or BIT value (DuckDB's string_t layout). */
static json_t *string_json(duckdb_type id, void *data, idx_t row)
{
    duckdb_string_t *s = &((duckdb_string_t *)data)[row];
    if (id == DUCKDB_TYPE_VARCHAR)
        return sluice_exec_json_text(duckdb_string_t_data(s), duckdb_string_t_length(*s));
    if (id == DUCKDB_TYPE_BLOB)
        return sluice_exec_json_blob(duckdb_string_t_data(s), duckdb_string_t_length(*s));
    return bit_json((const unsigned char *)duckdb_string_t_data(s), duckdb_string_t_length(*s));
}

json_t *sluice_duck_value(duckdb_vector vec, duckdb_logical_type type, idx_t row)
{
    if (!row_valid(vec, row))
        return json_null();
    duckdb_type id = duckdb_get_type_id(type);
    void *data = duckdb_vector_get_data(vec);
    switch (id) {
    case DUCKDB_TYPE_BOOLEAN:
    case DUCKDB_TYPE_TINYINT:
    case DUCKDB_TYPE_SMALLINT:
    case DUCKDB_TYPE_INTEGER:
    case DUCKDB_TYPE_BIGINT:
    case DUCKDB_TYPE_UTINYINT:
    case DUCKDB_TYPE_USMALLINT:
    case DUCKDB_TYPE_UINTEGER:
    case DUCKDB_TYPE_UBIGINT:
    case DUCKDB_TYPE_HUGEINT:
    case DUCKDB_TYPE_UHUGEINT:
        return integer_json(id, data, row);
    case DUCKDB_TYPE_FLOAT:
        return sluice_exec_json_real(((float *)data)[row]);
    case DUCKDB_TYPE_DOUBLE:
        return sluice_exec_json_real(((double *)data)[row]);
    case DUCKDB_TYPE_DECIMAL:
        return decimal_json(vec, type, row);
    case DUCKDB_TYPE_DATE:
    case DUCKDB_TYPE_TIME:
    case DUCKDB_TYPE_TIME_TZ:
    case DUCKDB_TYPE_TIMESTAMP:
    case DUCKDB_TYPE_TIMESTAMP_TZ:
    case DUCKDB_TYPE_TIMESTAMP_S:
    case DUCKDB_TYPE_TIMESTAMP_MS:
    case DUCKDB_TYPE_TIMESTAMP_NS:
    case DUCKDB_TYPE_INTERVAL:
        return temporal_json(id, data, row);
    case DUCKDB_TYPE_UUID: {
        char out[40];
        return text_json(uuid_value(((duckdb_hugeint *)data)[row], out));
    }
    case DUCKDB_TYPE_VARCHAR:
    case DUCKDB_TYPE_BLOB:
    case DUCKDB_TYPE_BIT:
        return string_json(id, data, row);
    case DUCKDB_TYPE_ENUM:
        return enum_json(vec, type, row);
    case DUCKDB_TYPE_SQLNULL:
        return json_null();
    case DUCKDB_TYPE_LIST:
    case DUCKDB_TYPE_ARRAY:
    case DUCKDB_TYPE_STRUCT:
    case DUCKDB_TYPE_MAP:
        return nested_json(vec, type, id, row);
    default:
        /* Unreachable when the caller checked sluice_duck_type_supported. */
        return json_null();
    }
}

/* ---- straight to text ------------------------------------------------------------------------
 * The same values as sluice_duck_value, written as the rows text holds them (exec/values.h) with
 * no json_t between, for a request with rows_text_only. Nested, enum, BLOB and BIT values, rare
 * in rows, still go through their json_t. */

/* A plain text value (ISO dates, UUIDs, exact decimals): what text_json would hold, as JSON. */
static void put_text(sluice_buf *b, const char *s)
{
    sluice_buf_json_string(b, s, strlen(s));
}

/* A BOOLEAN or integer value, as integer_json makes it. */
static void integer_text(sluice_buf *b, duckdb_type id, void *data, idx_t row)
{
    char out[48];
    switch (id) {
    case DUCKDB_TYPE_BOOLEAN:
        sluice_buf_puts(b, ((bool *)data)[row] ? "true" : "false");
        return;
    case DUCKDB_TYPE_TINYINT:
        sluice_exec_text_integer(b, ((int8_t *)data)[row]);
        return;
    case DUCKDB_TYPE_SMALLINT:
        sluice_exec_text_integer(b, ((int16_t *)data)[row]);
        return;
    case DUCKDB_TYPE_INTEGER:
        sluice_exec_text_integer(b, ((int32_t *)data)[row]);
        return;
    case DUCKDB_TYPE_BIGINT:
        sluice_exec_text_integer(b, ((int64_t *)data)[row]);
        return;
    case DUCKDB_TYPE_UTINYINT:
        sluice_exec_text_integer(b, ((uint8_t *)data)[row]);
        return;
    case DUCKDB_TYPE_USMALLINT:
        sluice_exec_text_integer(b, ((uint16_t *)data)[row]);
        return;
    case DUCKDB_TYPE_UINTEGER:
        sluice_exec_text_integer(b, ((uint32_t *)data)[row]);
        return;
    case DUCKDB_TYPE_UBIGINT: {
        uint64_t u = ((uint64_t *)data)[row];
        if (u <= INT64_MAX) {
            sluice_exec_text_integer(b, (int64_t)u);
            return;
        }
        snprintf(out, sizeof(out), "%" PRIu64, u);
        break;
    }
    case DUCKDB_TYPE_HUGEINT: {
        duck_i128 v = hugeint_of(((duckdb_hugeint *)data)[row]);
        if (v >= INT64_MIN && v <= INT64_MAX) {
            sluice_exec_text_integer(b, (int64_t)v);
            return;
        }
        i128_text(out, sizeof(out), v);
        break;
    }
    default: { /* DUCKDB_TYPE_UHUGEINT: the caller dispatches only the types above */
        duckdb_uhugeint h = ((duckdb_uhugeint *)data)[row];
        duck_u128 v = ((duck_u128)h.upper << 64) | h.lower;
        if (v <= INT64_MAX) {
            sluice_exec_text_integer(b, (int64_t)v);
            return;
        }
        u128_text(out, sizeof(out), v, false);
        break;
    }
    }
    put_text(b, out);
}

/* A value sluice_duck_value converts through a json_t of its own; false when out of memory. */
static bool tree_text(sluice_buf *b, duckdb_vector vec, duckdb_logical_type type, idx_t row)
{
    json_t *v = sluice_duck_value(vec, type, row);
    bool ok = v != NULL && sluice_exec_text_value(b, v);
    json_decref(v);
    return ok;
}

/* Writes the value at row of vec as sluice_duck_value would convert it, in the rows text's
 * form; false when out of memory. */
static bool value_text(sluice_buf *b, duckdb_vector vec, duckdb_logical_type type, idx_t row)
{
    if (!row_valid(vec, row)) {
        sluice_buf_puts(b, "null");
        return true;
    }
    duckdb_type id = duckdb_get_type_id(type);
    void *data = duckdb_vector_get_data(vec);
    char out[96];
    int64_t whole;
    switch (id) {
    case DUCKDB_TYPE_BOOLEAN:
    case DUCKDB_TYPE_TINYINT:
    case DUCKDB_TYPE_SMALLINT:
    case DUCKDB_TYPE_INTEGER:
    case DUCKDB_TYPE_BIGINT:
    case DUCKDB_TYPE_UTINYINT:
    case DUCKDB_TYPE_USMALLINT:
    case DUCKDB_TYPE_UINTEGER:
    case DUCKDB_TYPE_UBIGINT:
    case DUCKDB_TYPE_HUGEINT:
    case DUCKDB_TYPE_UHUGEINT:
        integer_text(b, id, data, row);
        break;
    case DUCKDB_TYPE_FLOAT:
        sluice_exec_text_real(b, ((float *)data)[row]);
        break;
    case DUCKDB_TYPE_DOUBLE:
        sluice_exec_text_real(b, ((double *)data)[row]);
        break;
    case DUCKDB_TYPE_DECIMAL:
        if (decimal_value(vec, type, row, &whole, out))
            sluice_exec_text_integer(b, whole);
        else
            put_text(b, out);
        break;
    case DUCKDB_TYPE_DATE:
    case DUCKDB_TYPE_TIME:
    case DUCKDB_TYPE_TIME_TZ:
    case DUCKDB_TYPE_TIMESTAMP:
    case DUCKDB_TYPE_TIMESTAMP_TZ:
    case DUCKDB_TYPE_TIMESTAMP_S:
    case DUCKDB_TYPE_TIMESTAMP_MS:
    case DUCKDB_TYPE_TIMESTAMP_NS:
    case DUCKDB_TYPE_INTERVAL:
        put_text(b, temporal_value(id, data, row, out));
        break;
    case DUCKDB_TYPE_UUID:
        put_text(b, uuid_value(((duckdb_hugeint *)data)[row], out));
        break;
    case DUCKDB_TYPE_VARCHAR: {
        duckdb_string_t *s = &((duckdb_string_t *)data)[row];
        sluice_exec_text_string(b, duckdb_string_t_data(s), duckdb_string_t_length(*s));
        break;
    }
    default:
        return tree_text(b, vec, type, row);
    }
    return sluice_buf_status(b) == SLUICE_OK;
}

sluice_status sluice_duck_row_text(sluice_exec_rows *acc,
                                   duckdb_data_chunk chunk,
                                   const duckdb_logical_type *types,
                                   idx_t ncols,
                                   idx_t row,
                                   bool *more)
{
    if (!sluice_exec_rows_room(acc, more))
        return SLUICE_OK;
    size_t start = acc->text.len;
    sluice_buf_putc(&acc->text, '[');
    for (idx_t col = 0; col < ncols; col++) {
        if (col > 0)
            sluice_buf_putc(&acc->text, ',');
        if (!value_text(&acc->text, duckdb_data_chunk_get_vector(chunk, col), types[col], row))
            return SLUICE_E_NOMEM;
    }
    sluice_buf_putc(&acc->text, ']');
    return sluice_exec_rows_end_text(acc, start, more);
}

bool sluice_duck_type_supported(duckdb_logical_type type)
{
    duckdb_type id = duckdb_get_type_id(type);
    bool ok = true;
    switch (id) {
    case DUCKDB_TYPE_LIST: {
        duckdb_logical_type ct = duckdb_list_type_child_type(type);
        ok = sluice_duck_type_supported(ct);
        duckdb_destroy_logical_type(&ct);
        return ok;
    }
    case DUCKDB_TYPE_ARRAY: {
        duckdb_logical_type ct = duckdb_array_type_child_type(type);
        ok = sluice_duck_type_supported(ct);
        duckdb_destroy_logical_type(&ct);
        return ok;
    }
    case DUCKDB_TYPE_MAP: {
        duckdb_logical_type kt = duckdb_map_type_key_type(type);
        duckdb_logical_type vt = duckdb_map_type_value_type(type);
        ok = sluice_duck_type_supported(kt) && sluice_duck_type_supported(vt);
        duckdb_destroy_logical_type(&kt);
        duckdb_destroy_logical_type(&vt);
        return ok;
    }
    case DUCKDB_TYPE_STRUCT: {
        idx_t n = duckdb_struct_type_child_count(type);
        for (idx_t i = 0; ok && i < n; i++) {
            duckdb_logical_type ct = duckdb_struct_type_child_type(type, i);
            ok = sluice_duck_type_supported(ct);
            duckdb_destroy_logical_type(&ct);
        }
        return ok;
    }
    default:
        return (sluice_duck_type(id).flags & SLUICE_DUCK_READABLE) != 0;
    }
}

static void type_text(sluice_buf *b, duckdb_logical_type type)
{
    duckdb_type id = duckdb_get_type_id(type);
    switch (id) {
    case DUCKDB_TYPE_DECIMAL:
        sluice_buf_printf(b, "DECIMAL(%u,%u)", duckdb_decimal_width(type),
                          duckdb_decimal_scale(type));
        return;
    case DUCKDB_TYPE_LIST: {
        duckdb_logical_type ct = duckdb_list_type_child_type(type);
        type_text(b, ct);
        duckdb_destroy_logical_type(&ct);
        sluice_buf_puts(b, "[]");
        return;
    }
    case DUCKDB_TYPE_ARRAY: {
        duckdb_logical_type ct = duckdb_array_type_child_type(type);
        type_text(b, ct);
        duckdb_destroy_logical_type(&ct);
        sluice_buf_printf(b, "[%llu]", (unsigned long long)duckdb_array_type_array_size(type));
        return;
    }
    case DUCKDB_TYPE_MAP: {
        duckdb_logical_type kt = duckdb_map_type_key_type(type);
        duckdb_logical_type vt = duckdb_map_type_value_type(type);
        sluice_buf_puts(b, "MAP(");
        type_text(b, kt);
        sluice_buf_puts(b, ", ");
        type_text(b, vt);
        sluice_buf_putc(b, ')');
        duckdb_destroy_logical_type(&kt);
        duckdb_destroy_logical_type(&vt);
        return;
    }
    case DUCKDB_TYPE_STRUCT: {
        sluice_buf_puts(b, "STRUCT(");
        idx_t n = duckdb_struct_type_child_count(type);
        for (idx_t i = 0; i < n; i++) {
            char *name = duckdb_struct_type_child_name(type, i);
            duckdb_logical_type ct = duckdb_struct_type_child_type(type, i);
            sluice_buf_printf(b, "%s%s ", i > 0 ? ", " : "", name != NULL ? name : "?");
            type_text(b, ct);
            duckdb_free(name);
            duckdb_destroy_logical_type(&ct);
        }
        sluice_buf_putc(b, ')');
        return;
    }
    default: {
        const char *name = sluice_duck_type(id).name;
        if (name != NULL)
            sluice_buf_puts(b, name);
        else
            sluice_buf_printf(b, "TYPE_%d", (int)id);
        return;
    }
    }
}

char *sluice_duck_type_text(sluice_arena *arena, duckdb_logical_type type)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 4096);
    type_text(&b, type);
    return sluice_buf_status(&b) == SLUICE_OK ? b.data : NULL;
}

void sluice_duck_put_ident(sluice_buf *b, const char *name)
{
    sluice_buf_putc(b, '"');
    for (const char *p = name; *p != '\0'; p++) {
        if (*p == '"')
            sluice_buf_putc(b, '"');
        sluice_buf_putc(b, *p);
    }
    sluice_buf_putc(b, '"');
}
