/*
 * pg_values.c — PostgreSQL result values (text format) as JSON, per executor.h's conventions:
 * integers as numbers, numeric with no fraction as an integer when it fits 64 bits, else an
 * exact decimal string, booleans, json/jsonb as JSON, bytea as base64, timestamps as ISO 8601,
 * anything else (arrays, ranges, intervals, user types) as its text.
 *
 * Does not own: fetching the rows (postgres.c).
 */
#include "exec/pg_internal.h"
#include "exec/values.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum {
    PG_BOOL = 16,
    PG_BYTEA = 17,
    PG_INT8 = 20,
    PG_INT2 = 21,
    PG_INT4 = 23,
    PG_TEXT = 25,
    PG_OID = 26,
    PG_JSON = 114,
    PG_FLOAT4 = 700,
    PG_FLOAT8 = 701,
    PG_BPCHAR = 1042,
    PG_VARCHAR = 1043,
    PG_DATE = 1082,
    PG_TIME = 1083,
    PG_TIMESTAMP = 1114,
    PG_TIMESTAMPTZ = 1184,
    PG_INTERVAL = 1186,
    PG_NUMERIC = 1700,
    PG_UUID = 2950,
    PG_JSONB = 3802,
};

const char *sluice_pg_type_name(Oid type)
{
    static const struct {
        Oid oid;
        const char *name;
    } names[] = {
        { PG_BOOL, "boolean" },
        { PG_BYTEA, "bytea" },
        { PG_INT8, "bigint" },
        { PG_INT2, "smallint" },
        { PG_INT4, "integer" },
        { PG_TEXT, "text" },
        { PG_OID, "oid" },
        { PG_JSON, "json" },
        { PG_FLOAT4, "real" },
        { PG_FLOAT8, "double precision" },
        { PG_BPCHAR, "character" },
        { PG_VARCHAR, "character varying" },
        { PG_DATE, "date" },
        { PG_TIME, "time" },
        { PG_TIMESTAMP, "timestamp" },
        { PG_TIMESTAMPTZ, "timestamp with time zone" },
        { PG_INTERVAL, "interval" },
        { PG_NUMERIC, "numeric" },
        { PG_UUID, "uuid" },
        { PG_JSONB, "jsonb" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].oid == type)
            return names[i].name;
    return "unknown";
}

/* An integer when text is one that fits 64 bits, else NULL. */
static json_t *integer_or_null(const char *text)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0')
        return NULL;
    return json_integer((json_int_t)v);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* bytea's hex output ("\x0a1b") as base64; other output as text. */
static json_t *bytea_value(const char *text, int len)
{
    if (len < 2 || text[0] != '\\' || text[1] != 'x' || len % 2 != 0)
        return sluice_exec_json_text(text, (size_t)len);
    size_t n = (size_t)(len - 2) / 2;
    unsigned char *bytes = malloc(n + 1);
    if (bytes == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        int hi = hex_digit(text[2 + 2 * i]), lo = hex_digit(text[3 + 2 * i]);
        if (hi < 0 || lo < 0) {
            free(bytes);
            return sluice_exec_json_text(text, (size_t)len);
        }
        bytes[i] = (unsigned char)(hi * 16 + lo);
    }
    json_t *v = sluice_exec_json_blob(bytes, n);
    free(bytes);
    return v;
}

/* "2026-04-01 00:00:00" -> "2026-04-01T00:00:00"; a "+00" zone (the session runs in UTC) -> Z. */
static json_t *timestamp_value(const char *text, int len, bool with_zone)
{
    char buf[64];
    if (len <= 0 || (size_t)len >= sizeof buf)
        return sluice_exec_json_text(text, (size_t)len);
    memcpy(buf, text, (size_t)len);
    buf[len] = '\0';
    char *space = strchr(buf, ' ');
    if (space != NULL)
        *space = 'T';
    size_t n = strlen(buf);
    if (with_zone && n > 3 && strcmp(buf + n - 3, "+00") == 0)
        memcpy(buf + n - 3, "Z", 2);
    return json_string(buf);
}

json_t *sluice_pg_value(const char *text, int len, Oid type)
{
    json_t *v = NULL;
    switch (type) {
    case PG_BOOL:
        return json_boolean(text[0] == 't');
    case PG_INT2:
    case PG_INT4:
    case PG_INT8:
    case PG_OID:
    case PG_NUMERIC:
        v = integer_or_null(text);
        return v != NULL ? v : json_stringn(text, (size_t)len);
    case PG_FLOAT4:
    case PG_FLOAT8:
        return sluice_exec_json_real(strtod(text, NULL));
    case PG_JSON:
    case PG_JSONB:
        v = json_loadb(text, (size_t)len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
        return v != NULL ? v : sluice_exec_json_text(text, (size_t)len);
    case PG_BYTEA:
        return bytea_value(text, len);
    case PG_TIMESTAMP:
    case PG_TIMESTAMPTZ:
        return timestamp_value(text, len, type == PG_TIMESTAMPTZ);
    default:
        return sluice_exec_json_text(text, (size_t)len);
    }
}
