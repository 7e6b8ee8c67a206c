/*
 * oom_codemode.h — the fixture the code-mode allocation sweeps share (test_pipeline_oom.c,
 * test_estimate_oom.c, test_program_oom.c): a temporary folder with a token secret in an
 * environment variable and a real DuckDB file made by one SQL text (or the shared customers table);
 * then a configuration text loaded and a runtime and code mode opened over it, the way `sluice
 * serve` opens them, with jansson's allocations counted from then on (oom_sweep.h). Header-only,
 * like oom_sweep.h.
 */
#ifndef SLUICE_TESTS_OOM_CODEMODE_H
#define SLUICE_TESTS_OOM_CODEMODE_H

#include "cli/runtime.h"
#include "codemode/codemode.h"
#include "core/limits.h"
#include "oom_sweep.h"
#include "token/secret.h"

#include <dirent.h>
#include <duckdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct oom_codemode {
    char dir[64]; /* the temporary folder; close removes it with every file in it */
    char db[128]; /* dir/db.duckdb */
    sluice_config *config;
    sluice_runtime *rt;
    sluice_codemode *cm;
    const sluice_clock *clock; /* set before open (a test's manual clock); NULL: the system's */
} oom_codemode;

/* Makes f->dir ("/tmp/sluice-<name>-XXXXXX"), a fresh token secret in key_env and f->db from
 * ddl. 0, or -1 when any of it failed. */
static inline int
oom_codemode_files(oom_codemode *f, const char *name, const char *key_env, const char *ddl)
{
    char key[SLUICE_LIMIT_SECRET_LINE_BYTES];
    snprintf(f->dir, sizeof f->dir, "/tmp/sluice-%s-XXXXXX", name);
    if (mkdtemp(f->dir) == NULL || sluice_secret_generate("k1", key, sizeof key) != SLUICE_OK ||
        setenv(key_env, key, 1) != 0)
        return -1;
    snprintf(f->db, sizeof f->db, "%s/db.duckdb", f->dir);
    duckdb_database db;
    duckdb_connection c;
    duckdb_result r;
    if (duckdb_open(f->db, &db) == DuckDBError)
        return -1;
    if (duckdb_connect(db, &c) == DuckDBError) {
        duckdb_close(&db);
        return -1;
    }
    duckdb_state s = duckdb_query(c, ddl, &r);
    duckdb_destroy_result(&r);
    duckdb_disconnect(&c);
    duckdb_close(&db);
    return s == DuckDBError ? -1 : 0;
}

/* Loads config_text and opens the runtime and code mode over it, then counts jansson's
 * allocations. 0, or -1 with the reason on stderr. */
static inline int oom_codemode_open(oom_codemode *f, const char *config_text)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_status st = arena == NULL
                           ? SLUICE_E_NOMEM
                           : sluice_config_load_text(config_text, strlen(config_text), "<test>",
                                                     "/", &f->config, arena, &err);
    if (st == SLUICE_OK)
        st = sluice_runtime_open(f->config, f->clock, &f->rt, arena, &err);
    if (st == SLUICE_OK)
        st = sluice_codemode_open(f->config, f->rt, &f->cm, arena, &err);
    if (st != SLUICE_OK)
        fprintf(stderr, "setup: %s\n", err.message != NULL ? err.message : "?");
    sluice_arena_free(arena);
    oom_count_jansson();
    return st == SLUICE_OK ? 0 : -1;
}

/* The customers table the sweeps judge reads of: three rows, a blocked ssn. */
#define OOM_CODEMODE_CUSTOMERS                                                     \
    "CREATE TABLE customers(id INTEGER, name VARCHAR, plan VARCHAR, ssn VARCHAR);" \
    "INSERT INTO customers VALUES (1, 'Ada', 'enterprise', '111-11-1111'),"        \
    "(2, 'Bo', 'free', '222-22-2222'), (3, 'Cy', 'enterprise', '333-33-3333');"

/* f over the table ddl makes with code mode on as server_id (token secret in key_env, low and
 * medium auto-approved, ssn blocked, then the [code_mode] lines of code_mode_extra):
 * oom_codemode_files then oom_codemode_open. 0, or -1. */
static inline int oom_codemode_over(oom_codemode *f,
                                    const char *name,
                                    const char *key_env,
                                    const char *server_id,
                                    const char *ddl,
                                    const char *code_mode_extra)
{
    if (oom_codemode_files(f, name, key_env, ddl) != 0)
        return -1;
    char text[4096];
    snprintf(text, sizeof text,
             "[database]\nengine = \"duckdb\"\npath = \"%s\"\n"
             "[code_mode]\nenabled = true\nserver_id = \"%s\"\n"
             "token_secret_env = \"%s\"\n"
             "auto_approve_levels = [\"low\", \"medium\"]\nblocked_fields = [\"ssn\"]\n%s",
             f->db, server_id, key_env, code_mode_extra);
    return oom_codemode_open(f, text);
}

/* oom_codemode_over OOM_CODEMODE_CUSTOMERS, nothing added. */
static inline int oom_codemode_customers(oom_codemode *f,
                                         const char *name,
                                         const char *key_env,
                                         const char *server_id)
{
    return oom_codemode_over(f, name, key_env, server_id, OOM_CODEMODE_CUSTOMERS, "");
}

/* Closes what open opened and removes f->dir with every file in it. */
static inline void oom_codemode_close(oom_codemode *f)
{
    sluice_codemode_close(f->cm);
    sluice_runtime_close(f->rt);
    sluice_config_free(f->config);
    DIR *d = opendir(f->dir);
    for (const struct dirent *e = d != NULL ? readdir(d) : NULL; e != NULL; e = readdir(d)) {
        char path[sizeof f->dir + 256];
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(path, sizeof path, "%s/%s", f->dir, e->d_name);
            unlink(path);
        }
    }
    if (d != NULL)
        closedir(d);
    rmdir(f->dir);
}

#endif
