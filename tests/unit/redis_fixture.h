/*
 * redis_fixture.h — a real, private redis-server for unit tests (Debian redis-server): started
 * on a Unix socket in a fresh temp directory (no TCP port, no persistence), with a password,
 * stopped and started again to test outages, removed at the end. Header-only; no mocks.
 */
#ifndef SLUICE_TESTS_REDIS_FIXTURE_H
#define SLUICE_TESTS_REDIS_FIXTURE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REDIS_FIXTURE_PASSWORD "fixture-pass-7f3a"

typedef struct redis_fixture {
    char dir[64];
    char socket[128];
    char url[160];
    char password_file[128];
    char log[128];
    pid_t pid;
} redis_fixture;

static bool redis_fixture_wait(const redis_fixture *f, bool up)
{
    for (int i = 0; i < 500; i++) { /* up to 5 s */
        struct stat st;
        if ((stat(f->socket, &st) == 0) == up)
            return true;
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    return false;
}

/* Starts redis-server on f->socket; true when it listens. */
static bool redis_fixture_start(redis_fixture *f)
{
    f->pid = fork();
    if (f->pid < 0)
        return false;
    if (f->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a crashed test leaves no server behind */
        execlp("redis-server", "redis-server", "--port", "0", "--unixsocket", f->socket,
               "--unixsocketperm", "700", "--dir", f->dir, "--save", "", "--appendonly", "no",
               "--requirepass", REDIS_FIXTURE_PASSWORD, "--loglevel", "warning", "--logfile",
               f->log, (char *)NULL);
        _exit(127);
    }
    return redis_fixture_wait(f, true);
}

static void redis_fixture_stop(redis_fixture *f)
{
    if (f->pid <= 0)
        return;
    kill(f->pid, SIGKILL);
    waitpid(f->pid, NULL, 0);
    f->pid = 0;
    unlink(f->socket); /* a killed server leaves it behind */
}

static bool redis_fixture_init(redis_fixture *f)
{
    snprintf(f->dir, sizeof f->dir, "/tmp/sluice-test-redis-XXXXXX");
    if (mkdtemp(f->dir) == NULL)
        return false;
    snprintf(f->socket, sizeof f->socket, "%s/redis.sock", f->dir);
    snprintf(f->url, sizeof f->url, "unix:%s", f->socket);
    snprintf(f->password_file, sizeof f->password_file, "%s/password", f->dir);
    snprintf(f->log, sizeof f->log, "%s/redis.log", f->dir);
    FILE *p = fopen(f->password_file, "w");
    if (p == NULL)
        return false;
    fputs(REDIS_FIXTURE_PASSWORD "\n", p);
    fclose(p);
    return redis_fixture_start(f);
}

static void redis_fixture_free(redis_fixture *f)
{
    redis_fixture_stop(f);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "redis fixture: could not remove %s\n", f->dir);
}

#endif
