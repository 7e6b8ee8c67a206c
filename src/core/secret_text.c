/*
 * secret_text.c — a password from a file or the environment (see secret_text.h).
 */
#include "core/secret_text.h"

#include "core/limits.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sluice_status sluice_secret_text_read(const char *what,
                                      const char *file,
                                      const char *env,
                                      char **out,
                                      sluice_arena *arena,
                                      sluice_error *err)
{
    *out = NULL;
    if (env != NULL) {
        const char *v = getenv(env);
        if (v == NULL)
            return sluice_error_set(err, arena, SLUICE_E_IO,
                                    "%s the password variable %s is not set", what, env);
        *out = strdup(v);
        return *out != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
    }
    if (file == NULL)
        return SLUICE_OK;
    FILE *f = fopen(file, "r");
    if (f == NULL)
        return sluice_error_set(err, arena, SLUICE_E_IO, "%s cannot read password file '%s': %s",
                                what, file, strerror(errno));
    char *buf = calloc(1, SLUICE_LIMIT_PG_PASSWORD_BYTES + 1);
    size_t n = buf != NULL ? fread(buf, 1, SLUICE_LIMIT_PG_PASSWORD_BYTES, f) : 0;
    fclose(f);
    if (buf == NULL)
        return SLUICE_E_NOMEM;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    *out = buf;
    return SLUICE_OK;
}
