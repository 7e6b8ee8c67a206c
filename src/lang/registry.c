/*
 * registry.c — the language registry (see registry.h). The built-in front ends are added on
 * first use, so a program that never registers anything still finds "sql" (lang/dialect.c:
 * DuckDB's or PostgreSQL's analyzer by engine).
 */
#include "lang/registry.h"

#include "lang/dialect.h"
#include "lang/graphql/front.h"
#include "lang/js/js.h"

#include <pthread.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const sluice_frontend *frontends[SLUICE_LANG_MAX_FRONTENDS];
static size_t frontend_count;
static bool builtins_added;

/* Caller holds lock. */
static void add_builtins(void)
{
    if (builtins_added)
        return;
    builtins_added = true;
    frontends[frontend_count++] = sluice_lang_sql_dialects();
    frontends[frontend_count++] = sluice_js_frontend();
    frontends[frontend_count++] = sluice_graphql_frontend();
}

/* Caller holds lock. */
static const sluice_frontend *find_locked(const char *language)
{
    for (size_t i = 0; i < frontend_count; i++)
        if (strcmp(frontends[i]->language, language) == 0)
            return frontends[i];
    return NULL;
}

sluice_status sluice_lang_register(const sluice_frontend *fe)
{
    if (fe == NULL || fe->language == NULL || fe->analyze == NULL || fe->canonical_hash == NULL)
        return SLUICE_E_INVALID;
    pthread_mutex_lock(&lock);
    add_builtins();
    sluice_status st = SLUICE_OK;
    if (find_locked(fe->language) != NULL)
        st = SLUICE_E_INVALID;
    else if (frontend_count >= SLUICE_LANG_MAX_FRONTENDS)
        st = SLUICE_E_LIMIT;
    else
        frontends[frontend_count++] = fe;
    pthread_mutex_unlock(&lock);
    return st;
}

const sluice_frontend *sluice_lang_find(const char *language)
{
    if (language == NULL)
        return NULL;
    pthread_mutex_lock(&lock);
    add_builtins();
    const sluice_frontend *fe = find_locked(language);
    pthread_mutex_unlock(&lock);
    return fe;
}

size_t sluice_lang_count(void)
{
    pthread_mutex_lock(&lock);
    add_builtins();
    size_t n = frontend_count;
    pthread_mutex_unlock(&lock);
    return n;
}

const sluice_frontend *sluice_lang_at(size_t index)
{
    pthread_mutex_lock(&lock);
    add_builtins();
    const sluice_frontend *fe = index < frontend_count ? frontends[index] : NULL;
    pthread_mutex_unlock(&lock);
    return fe;
}
