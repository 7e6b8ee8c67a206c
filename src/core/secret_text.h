/*
 * secret_text.h — a password read from a file or an environment variable (never from the config
 * file itself).
 *
 * Owns: the one rule every password key shares: the variable wins when named, else the file's
 * first bytes up to SLUICE_LIMIT_PG_PASSWORD_BYTES, trailing newlines dropped. Does not own what
 * the password is for (the PostgreSQL backend, the Redis state store, the PostgreSQL audit sink).
 */
#ifndef SLUICE_CORE_SECRET_TEXT_H
#define SLUICE_CORE_SECRET_TEXT_H

#include "core/arena.h"
#include "core/error.h"

/* Reads the password named by env (an environment variable) or file into *out (malloc'd; the
 * caller wipes and frees it); *out NULL when both are NULL. what names the key's section in
 * messages ("[database]", "[state]"). SLUICE_E_IO when the variable is unset or the file cannot
 * be read (err names which); SLUICE_E_NOMEM. */
sluice_status sluice_secret_text_read(const char *what,
                                      const char *file,
                                      const char *env,
                                      char **out,
                                      sluice_arena *arena,
                                      sluice_error *err);

#endif
