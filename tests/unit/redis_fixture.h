/*
 * redis_fixture.h — a real, private redis-server for unit tests (Debian redis-server): started
 * on a Unix socket in a fresh temp directory (no TCP port, no persistence), with a password,
 * stopped and started again to test outages, removed at the end. Header-only; no mocks.
 */
#ifndef SLUICE_TESTS_REDIS_FIXTURE_H
#define SLUICE_TESTS_REDIS_FIXTURE_H

#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
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
    int tcp_port; /* 0: the Unix socket; else a loopback TCP port (redis_fixture_init_tcp) */
    pid_t pid;
} redis_fixture;

/* True once the server answers PING after AUTH (the socket file appears before it serves). */
static inline bool redis_fixture_ready(const redis_fixture *f)
{
    redisContext *c =
        f->tcp_port != 0 ? redisConnect("127.0.0.1", f->tcp_port) : redisConnectUnix(f->socket);
    bool ok = false;
    if (c != NULL && c->err == 0) {
        redisReply *r = redisCommand(c, "AUTH %s", REDIS_FIXTURE_PASSWORD);
        ok = r != NULL && r->type == REDIS_REPLY_STATUS;
        if (r != NULL)
            freeReplyObject(r);
        r = ok ? redisCommand(c, "PING") : NULL;
        ok = r != NULL && r->type == REDIS_REPLY_STATUS && strcmp(r->str, "PONG") == 0;
        if (r != NULL)
            freeReplyObject(r);
    }
    if (c != NULL)
        redisFree(c);
    return ok;
}

static inline bool redis_fixture_wait(const redis_fixture *f)
{
    for (int i = 0; i < 500; i++) { /* up to 5 s */
        if (redis_fixture_ready(f))
            return true;
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    return false;
}

/* Starts redis-server on f->socket (or 127.0.0.1:tcp_port); true when it answers. */
static inline bool redis_fixture_start(redis_fixture *f)
{
    char port[16];
    snprintf(port, sizeof port, "%d", f->tcp_port);
    f->pid = fork();
    if (f->pid < 0)
        return false;
    if (f->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a crashed test leaves no server behind */
        if (f->tcp_port != 0)
            execlp("redis-server", "redis-server", "--port", port, "--bind", "127.0.0.1", "--dir",
                   f->dir, "--save", "", "--appendonly", "no", "--requirepass",
                   REDIS_FIXTURE_PASSWORD, "--loglevel", "warning", "--logfile", f->log,
                   (char *)NULL);
        else
            execlp("redis-server", "redis-server", "--port", "0", "--unixsocket", f->socket,
                   "--unixsocketperm", "700", "--dir", f->dir, "--save", "", "--appendonly", "no",
                   "--requirepass", REDIS_FIXTURE_PASSWORD, "--loglevel", "warning", "--logfile",
                   f->log, (char *)NULL);
        _exit(127);
    }
    return redis_fixture_wait(f);
}

static inline void redis_fixture_stop(redis_fixture *f)
{
    if (f->pid <= 0)
        return;
    kill(f->pid, SIGKILL);
    waitpid(f->pid, NULL, 0);
    f->pid = 0;
    unlink(f->socket); /* a killed server leaves it behind */
}

/* The temp folder, the socket path, the URL and the password file. */
static inline bool redis_fixture_prepare(redis_fixture *f)
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
    return true;
}

/* A server on a Unix socket in a fresh folder. */
static inline bool redis_fixture_init(redis_fixture *f)
{
    return redis_fixture_prepare(f) && redis_fixture_start(f);
}

/* The same server on a free loopback TCP port (the url "redis://127.0.0.1:PORT"). */
static inline bool redis_fixture_init_tcp(redis_fixture *f)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    bool ok = s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
              getsockname(s, (struct sockaddr *)&a, &len) == 0;
    if (s >= 0)
        close(s);
    if (!ok)
        return false;
    f->tcp_port = ntohs(a.sin_port);
    if (!redis_fixture_prepare(f))
        return false;
    snprintf(f->url, sizeof f->url, "redis://127.0.0.1:%d", f->tcp_port);
    return redis_fixture_start(f);
}

static inline void redis_fixture_free(redis_fixture *f)
{
    redis_fixture_stop(f);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "redis fixture: could not remove %s\n", f->dir);
}

#endif
