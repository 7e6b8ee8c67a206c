/*
 * exec_test_util.h — helpers shared by the executor tests: a scratch directory, a cancel slot
 * standing in for the MCP core, and a thread that fires it later.
 */
#ifndef SLUICE_TEST_EXEC_UTIL_H
#define SLUICE_TEST_EXEC_UTIL_H

#include "exec/executor.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Stands in for sluice_mcp_call_on_cancel: remembers the hook execute() registered. */
typedef struct test_cancel_slot {
    void (*_Atomic fn)(void *);
    void *_Atomic data;
    int delay_ms;
} test_cancel_slot;

static inline void test_register_cancel(void *ctx, void (*fn)(void *), void *data)
{
    test_cancel_slot *slot = ctx;
    atomic_store(&slot->data, data);
    atomic_store(&slot->fn, fn);
}

static inline void test_sleep_ms(int ms)
{
    struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Waits for the hook, sleeps delay_ms, then cancels, like a client sending
 * notifications/cancelled while the query runs. */
static inline void *test_cancel_later(void *arg)
{
    test_cancel_slot *slot = arg;
    for (int i = 0; i < 10000 && atomic_load(&slot->fn) == NULL; i++)
        test_sleep_ms(1);
    test_sleep_ms(slot->delay_ms);
    void (*fn)(void *) = atomic_load(&slot->fn);
    if (fn != NULL)
        fn(atomic_load(&slot->data));
    return NULL;
}

/* Copies fmt into out with every "@DIR@" replaced by dir. */
static inline void test_subst_dir(char *out, size_t cap, const char *fmt, const char *dir)
{
    size_t o = 0;
    for (const char *p = fmt; *p != '\0' && o + 1 < cap;) {
        if (strncmp(p, "@DIR@", 5) == 0) {
            for (const char *d = dir; *d != '\0' && o + 1 < cap; d++)
                out[o++] = *d;
            p += 5;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
}

/* Number of entries in dir (to prove an escape created no file). */
static inline int test_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (d == NULL)
        return -1;
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static inline void test_remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    char path[4096];
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (e->d_type == DT_DIR)
            test_remove_tree(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

#endif
