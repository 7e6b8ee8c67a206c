/*
 * http_credential.c — the upstream credential of the HTTP backends (see http_credential.h).
 */
#include "exec/http_credential.h"

#include "core/limits.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file's first line (without its end), malloc'd; NULL when it cannot be read. */
static char *first_line(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = calloc(1, SLUICE_LIMIT_HTTP_CREDENTIAL_BYTES + 1);
    if (buf != NULL && fread(buf, 1, SLUICE_LIMIT_HTTP_CREDENTIAL_BYTES, f) == 0 && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf != NULL)
        buf[strcspn(buf, "\r\n")] = '\0';
    return buf;
}

static bool usable(const char *value)
{
    if (value[0] == '\0')
        return false;
    for (const char *p = value; *p != '\0'; p++)
        if (iscntrl((unsigned char)*p))
            return false;
    return true;
}

sluice_status sluice_http_credential_read(const char *key,
                                          const char *env,
                                          const char *file,
                                          char **out,
                                          sluice_arena *err_arena,
                                          sluice_error *err)
{
    *out = NULL;
    char *value = NULL;
    if (env != NULL) {
        const char *v = getenv(env);
        if (v == NULL || v[0] == '\0')
            return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                    "%s_env names %s, which is not set", key, env);
        if ((value = strdup(v)) == NULL)
            return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    } else if (file != NULL) {
        if ((value = first_line(file)) == NULL)
            return sluice_error_set(err, err_arena, SLUICE_E_IO, "cannot read %s_file %s", key,
                                    file);
    } else {
        return SLUICE_OK;
    }
    if (!usable(value)) {
        explicit_bzero(value, strlen(value));
        free(value);
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "%s: the credential is empty or has control characters", key);
    }
    *out = value;
    return SLUICE_OK;
}

char *sluice_http_credential_header(sluice_arena *arena,
                                    const sluice_config_database *db,
                                    const char *value)
{
    const char *scheme = db->auth_scheme != NULL ? db->auth_scheme : "Bearer";
    return sluice_arena_printf(arena, "%s: %s%s%s",
                               db->auth_header != NULL ? db->auth_header : "Authorization", scheme,
                               scheme[0] != '\0' ? " " : "", value);
}
