/*
 * http_admin_export.c — the console's audit export: the recent records that match its filter,
 * as JSON Lines or CSV, downloaded as a file (see http_admin_api.h).
 *
 * Owns: the filter (the same as the page's: a case-insensitive text match over the record and
 * an event), the two formats, and CSV's defences (every field quoted; a field a spreadsheet
 * would run as a formula is prefixed with "'"). Does not own: reading the log's tail
 * (state/audit_tail.c) nor the chain (verify follows the file itself, not an export).
 */
#include "codemode/codemode.h"
#include "core/buf.h"
#include "core/limits.h"
#include "transport/http_admin_api.h"

#include <ctype.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

/* Case-insensitive substring test; an empty needle matches. */
static bool contains_folded(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; n > 0 && *p != '\0'; p++) {
        size_t i = 0;
        while (i < n && p[i] != '\0' &&
               tolower((unsigned char)p[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return n == 0;
}

static const char *const csv_columns[] = { "seq",  "ts",      "event",      "action", "decision",
                                           "user", "session", "request_id", "code",   "detail" };

/* One CSV field: quoted, quotes doubled; a leading = + - @ (a formula to a spreadsheet) or tab
 * gets a "'" so opening the export never runs what a caller wrote. */
static void csv_field(sluice_buf *b, const char *text)
{
    sluice_buf_putc(b, '"');
    if (strchr("=+-@\t\r", text[0]) != NULL && text[0] != '\0')
        sluice_buf_putc(b, '\'');
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '"')
            sluice_buf_putc(b, '"');
        sluice_buf_putc(b, *p);
    }
    sluice_buf_putc(b, '"');
}

/* A column's value as text (numbers and other JSON as their JSON text). */
static char *value_text(const json_t *v)
{
    if (v == NULL)
        return strdup("");
    if (json_is_string(v))
        return strdup(json_string_value(v));
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

static void csv_row(sluice_buf *b, json_t *rec)
{
    json_t *rest = json_deep_copy(rec);
    for (size_t i = 0; i < sizeof csv_columns / sizeof csv_columns[0]; i++) {
        char *t = i + 1 < sizeof csv_columns / sizeof csv_columns[0]
                      ? value_text(json_object_get(rec, csv_columns[i]))
                      : value_text(rest);
        if (i > 0)
            sluice_buf_putc(b, ',');
        csv_field(b, t != NULL ? t : "");
        free(t);
        if (rest != NULL)
            json_object_del(rest, csv_columns[i]);
    }
    json_decref(rest);
    sluice_buf_puts(b, "\r\n");
}

/* The matching records of records into b in format; returns how many matched. */
static size_t render(sluice_buf *b, json_t *records, bool csv, const char *q, const char *event)
{
    if (csv) {
        for (size_t i = 0; i < sizeof csv_columns / sizeof csv_columns[0]; i++)
            sluice_buf_printf(b, "%s%s", i > 0 ? "," : "", csv_columns[i]);
        sluice_buf_puts(b, "\r\n");
    }
    size_t n = 0, i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        char *line = json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER);
        const char *ev = json_string_value(json_object_get(rec, "event"));
        bool match = line != NULL && contains_folded(line, q) &&
                     (*event == '\0' || (ev != NULL && strcmp(ev, event) == 0));
        if (match && csv)
            csv_row(b, rec);
        else if (match)
            sluice_buf_printf(b, "%s\n", line);
        n += match;
        free(line);
    }
    return n;
}

int sluice_http_admin_export(sluice_http_admin *admin, struct MHD_Connection *c)
{
    const char *format = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
    const char *q = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "q");
    const char *event = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "event");
    bool csv = format != NULL && strcmp(format, "csv") == 0;
    if (format != NULL && !csv && strcmp(format, "jsonl") != 0)
        return sluice_http_admin_reply_error(c, 400, "format is jsonl or csv");
    const char *source = NULL;
    char why[320];
    json_t *records =
        sluice_http_admin_trail(admin, SLUICE_LIMIT_ADMIN_AUDIT_RECORDS, &source, why, sizeof why);
    if (source == NULL)
        return sluice_http_admin_reply_error(c, 404, why);
    if (records == NULL)
        return sluice_http_admin_reply_error(c, 500, why);
    sluice_buf b;
    sluice_buf_init(&b, NULL, 0);
    size_t n = render(&b, records, csv, q != NULL ? q : "", event != NULL ? event : "");
    json_decref(records);
    /* the export itself is an action on the trail (after it was read: it is not in itself) */
    bool audited =
        sluice_http_admin_audit(admin, c, "audit_export",
                                json_pack("{s:s, s:s, s:s, s:I}", "format", csv ? "csv" : "jsonl",
                                          "filter", q != NULL ? q : "", "event_filter",
                                          event != NULL ? event : "", "records", (json_int_t)n));
    int ret;
    if (!audited)
        ret = sluice_http_admin_reply_error(c, 500, "the audit record could not be written");
    else if (sluice_buf_status(&b) != SLUICE_OK)
        ret = sluice_http_admin_reply_error(c, 500, "out of memory");
    else
        ret = sluice_http_admin_reply(
            c, 200, csv ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
            b.data != NULL ? b.data : "", b.len, NULL);
    sluice_buf_dispose(&b);
    return ret;
}
