/*
 * mirror.c — an empty in-memory DuckDB catalog shaped like a SQLite schema, so SQLite code can
 * be bound (and its lineage walked) by the same DuckDB planner; plus the cross-check against
 * the reads SQLite's authorizer reports.
 *
 * Owns: SQLite type names → DuckDB types (affinity rules), CREATE TABLE text for the mirror,
 * and the disagreement check. Does not own: running SQLite (exec/sqlite.c).
 */
#include "core/buf.h"
#include "lang/sql/internal.h"

#include <string.h>
#include <strings.h>

/* SQLite type affinity (sqlite.org/datatype3.html §3.1), mapped to the nearest DuckDB type. */
static const char *duck_type(const char *t)
{
    if (t == NULL || *t == '\0')
        return "VARCHAR";
    if (strcasestr(t, "INT") != NULL)
        return "BIGINT";
    if (strcasestr(t, "CHAR") != NULL || strcasestr(t, "CLOB") != NULL ||
        strcasestr(t, "TEXT") != NULL)
        return "VARCHAR";
    if (strcasestr(t, "BLOB") != NULL)
        return "BLOB";
    if (strcasestr(t, "REAL") != NULL || strcasestr(t, "FLOA") != NULL ||
        strcasestr(t, "DOUB") != NULL)
        return "DOUBLE";
    if (strcasestr(t, "TIMESTAMP") != NULL || strcasestr(t, "DATETIME") != NULL)
        return "TIMESTAMP";
    if (strcasestr(t, "DATE") != NULL)
        return "DATE";
    if (strcasestr(t, "BOOL") != NULL)
        return "BOOLEAN";
    return "DOUBLE"; /* NUMERIC affinity */
}

static void quoted_ident(sluice_buf *b, const char *s)
{
    sluice_buf_putc(b, '"');
    for (; *s != '\0'; s++) {
        if (*s == '"')
            sluice_buf_putc(b, '"');
        sluice_buf_putc(b, *s);
    }
    sluice_buf_putc(b, '"');
}

sluice_status
sluice_sql_mirror_ddl(sluice_arena *arena, const sluice_schema *schema, const char **out)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    for (size_t i = 0; schema != NULL && i < schema->table_count; i++) {
        const sluice_schema_table *t = &schema->tables[i];
        if (t->column_count == 0)
            continue;
        sluice_buf_puts(&b, "CREATE TABLE ");
        quoted_ident(&b, t->name);
        sluice_buf_putc(&b, '(');
        for (size_t j = 0; j < t->column_count; j++) {
            if (j > 0)
                sluice_buf_putc(&b, ',');
            quoted_ident(&b, t->columns[j].name);
            sluice_buf_putc(&b, ' ');
            sluice_buf_puts(&b, duck_type(t->columns[j].type));
        }
        sluice_buf_puts(&b, ");\n");
    }
    if (sluice_buf_status(&b) != SLUICE_OK)
        return sluice_buf_status(&b);
    *out = sluice_buf_cstr(&b);
    return SLUICE_OK;
}

sluice_status sluice_sql_crosscheck_reads(sluice_codefacts *facts,
                                          const sluice_sql_read *reads,
                                          size_t read_count)
{
    for (size_t i = 0; i < read_count; i++) {
        if (reads[i].table == NULL || reads[i].column == NULL || *reads[i].column == '\0')
            continue; /* a row read (count(*)) names no column */
        bool seen = false;
        for (size_t j = 0; j < facts->fields_read.count && !seen; j++) {
            const char *c = facts->fields_read.items[j];
            size_t tl = strlen(reads[i].table);
            seen = strncasecmp(c, reads[i].table, tl) == 0 && c[tl] == '.' &&
                   strcasecmp(c + tl + 1, reads[i].column) == 0;
        }
        if (!seen) {
            sluice_status st = sluice_codefacts_violate(
                facts, "analyzer_disagreement", 0, 0,
                "rewrite the statement in plain SQL that both engines read the same way",
                "sqlite and the analyzer disagree about column %s.%s; the statement is refused",
                reads[i].table, reads[i].column);
            if (st != SLUICE_OK)
                return st;
        }
    }
    return SLUICE_OK;
}
