/*
 * sources.c — the cross-checks of a [[sources]] table (query mode's read sources): what the
 * generic decoder cannot see from one key alone.
 *
 * Owns: source, column and parameter names usable as SQL identifiers; what each kind needs
 * (http: base_url; file: file and no base_url; mcp: command and tool); base_url shape; one
 * credential, never inline and never as a plain header; unique params and columns; blocked
 * columns that exist. Does not own: the key rows (config.c), reaching the source (querymode/).
 */
#include "config/checks.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Header names that carry credentials: those go through token_env / token_file. */
static const char *const secret_headers[] = { "authorization", "cookie", "proxy-authorization",
                                              "x-api-key", NULL };

static sluice_status check_base_url(sluice_keys_loader *ld,
                                    const sluice_toml_value *table,
                                    const sluice_config_source *src)
{
    size_t line, col;
    sluice_keys_value_pos(table, "base_url", &line, &col);
    const char *u = src->base_url;
    const char *host = strncmp(u, "https://", 8) == 0  ? u + 8
                       : strncmp(u, "http://", 7) == 0 ? u + 7
                                                       : NULL;
    if (host == NULL || host[0] == '\0' || host[0] == '/')
        return sluice_keys_fail_at(
            ld, line, col, "base_url",
            "base_url '%s' must be http://host[:port] or https://host[:port]",
            sluice_keys_show(ld, u));
    if (strpbrk(host, "@?#") != NULL || strchr(host, '/') != NULL)
        return sluice_keys_fail_at(ld, line, col, "base_url",
                                   "base_url '%s' must be scheme, host and port only (no user, "
                                   "path, query or fragment); put the path in 'path'",
                                   sluice_keys_show(ld, u));
    sluice_keys_value_pos(table, "path", &line, &col);
    if (src->path[0] != '/' || strpbrk(src->path, "?#") != NULL)
        return sluice_keys_fail_at(ld, line, col, "path",
                                   "path '%s' must start with '/' and hold no query; declare query "
                                   "parameters in [[sources.params]]",
                                   sluice_keys_show(ld, src->path));
    return SLUICE_OK;
}

static sluice_status check_credentials(sluice_keys_loader *ld,
                                       const sluice_toml_value *table,
                                       const sluice_config_source *src)
{
    size_t line, col;
    if (src->token_env != NULL && src->token_file != NULL) {
        sluice_keys_value_pos(table, "token_file", &line, &col);
        return sluice_keys_fail_at(ld, line, col, "token_file",
                                   "source '%s' sets both token_env and token_file; keep one",
                                   src->name);
    }
    if (src->token_env != NULL && !sluice_checks_identifier(src->token_env)) {
        sluice_keys_value_pos(table, "token_env", &line, &col);
        return sluice_keys_fail_at(ld, line, col, "token_env",
                                   "token_env '%s' is not an environment variable name",
                                   sluice_keys_show(ld, src->token_env));
    }
    sluice_keys_value_pos(table, "headers", &line, &col);
    for (size_t i = 0; i < src->headers.count; i++) {
        const char *h = src->headers.items[i];
        const char *colon = strchr(h, ':');
        if (colon == NULL || colon == h || strpbrk(h, "\r\n") != NULL)
            return sluice_keys_fail_at(ld, line, col, "headers",
                                       "header '%s' must be \"Name: value\" on one line",
                                       sluice_keys_show(ld, h));
        for (size_t k = 0; secret_headers[k] != NULL; k++)
            if (strlen(secret_headers[k]) == (size_t)(colon - h) &&
                strncasecmp(h, secret_headers[k], (size_t)(colon - h)) == 0)
                return sluice_keys_fail_at(ld, line, col, "headers",
                                           "header '%.*s' carries a credential; inline secrets "
                                           "are refused: use token_env or token_file (with "
                                           "auth_header = \"%.*s\")",
                                           (int)(colon - h), h, (int)(colon - h), h);
    }
    return SLUICE_OK;
}

static sluice_status check_params(sluice_keys_loader *ld,
                                  const sluice_toml_value *table,
                                  const sluice_config_source *src)
{
    const sluice_toml_value *arr = sluice_toml_table_get(table, "params");
    size_t line, col;
    for (size_t i = 0; i < src->param_count; i++) {
        const sluice_config_source_param *p = &src->params[i];
        sluice_keys_value_pos(sluice_toml_array_get(arr, i), "name", &line, &col);
        for (size_t j = 0; j < i; j++)
            if (strcmp(p->name, src->params[j].name) == 0 &&
                (p->column == NULL || src->params[j].column == NULL ||
                 strcmp(p->op, src->params[j].op) == 0))
                return sluice_keys_fail_at(ld, line, col, "name",
                                           "source '%s' declares parameter '%s' twice", src->name,
                                           p->name);
        if (p->column != NULL && !sluice_checks_identifier(p->column)) {
            sluice_keys_value_pos(sluice_toml_array_get(arr, i), "column", &line, &col);
            return sluice_keys_fail_at(ld, line, col, "column",
                                       "column '%s' is not a SQL identifier",
                                       sluice_keys_show(ld, p->column));
        }
    }
    return SLUICE_OK;
}

static bool has_column(const sluice_config_source *src, const char *name)
{
    for (size_t i = 0; i < src->column_count; i++)
        if (strcasecmp(src->columns[i].name, name) == 0)
            return true;
    return false;
}

static sluice_status check_columns(sluice_keys_loader *ld,
                                   const sluice_toml_value *table,
                                   const sluice_config_source *src)
{
    const sluice_toml_value *arr = sluice_toml_table_get(table, "columns");
    size_t line, col;
    for (size_t i = 0; i < src->column_count; i++) {
        const char *name = src->columns[i].name;
        sluice_keys_value_pos(sluice_toml_array_get(arr, i), "name", &line, &col);
        if (!sluice_checks_identifier(name))
            return sluice_keys_fail_at(ld, line, col, "name",
                                       "column name '%s' is not a SQL identifier "
                                       "([A-Za-z_][A-Za-z0-9_]*)",
                                       sluice_keys_show(ld, name));
        for (size_t j = 0; j < i; j++)
            if (strcasecmp(name, src->columns[j].name) == 0)
                return sluice_keys_fail_at(ld, line, col, "name",
                                           "source '%s' declares column '%s' twice", src->name,
                                           name);
    }
    sluice_keys_value_pos(table, "blocked_columns", &line, &col);
    for (size_t i = 0; src->column_count > 0 && i < src->blocked_columns.count; i++)
        if (!has_column(src, src->blocked_columns.items[i]))
            return sluice_keys_fail_at(ld, line, col, "blocked_columns",
                                       "blocked column '%s' is not a column of source '%s'",
                                       sluice_keys_show(ld, src->blocked_columns.items[i]),
                                       src->name);
    return SLUICE_OK;
}

sluice_status
sluice_checks_source(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    sluice_config_source *src = obj;
    src->line = sluice_toml_line(table);
    size_t line, col;
    sluice_keys_value_pos(table, "name", &line, &col);
    if (!sluice_checks_identifier(src->name))
        return sluice_keys_fail_at(ld, line, col, "name",
                                   "source name '%s' must be a SQL identifier "
                                   "([A-Za-z_][A-Za-z0-9_]*): it names the table it loads",
                                   sluice_keys_show(ld, src->name));
    sluice_keys_value_pos(table, "kind", &line, &col);
    bool http = strcmp(src->kind, "http") == 0;
    if (strcmp(src->kind, "mcp") == 0) {
        if (src->command.count == 0 || src->tool == NULL || src->base_url != NULL ||
            src->file != NULL)
            return sluice_keys_fail_at(ld, line, col, "command",
                                       "source '%s' is kind = \"mcp\": set command (the "
                                       "server's argv, e.g. [\"node\", \"server.mjs\"]) and tool, "
                                       "and no base_url or file",
                                       src->name);
        sluice_status st = check_params(ld, table, src);
        return st == SLUICE_OK ? check_columns(ld, table, src) : st;
    }
    if (http && src->base_url == NULL)
        return sluice_keys_fail_at(ld, line, col, "base_url",
                                   "source '%s' is kind = \"http\" and needs base_url", src->name);
    if (!http && (src->file == NULL || src->base_url != NULL))
        return sluice_keys_fail_at(ld, line, col, "file",
                                   "source '%s' is kind = \"file\": set file (a CSV, Parquet or "
                                   "JSON path) and no base_url",
                                   src->name);
    sluice_status st = http ? check_base_url(ld, table, src) : SLUICE_OK;
    if (st == SLUICE_OK)
        st = check_credentials(ld, table, src);
    if (st == SLUICE_OK)
        st = check_params(ld, table, src);
    if (st == SLUICE_OK)
        st = check_columns(ld, table, src);
    return st;
}
