/*
 * command.c — the command backend: an external program decides, one process per request.
 *
 * Protocol: the program gets the request (sluice_policy_request_json) as one JSON object on
 * stdin, then end of file, and answers on stdout with {"decision": "allow"|"deny", "reasons":
 * [string...]} before [policy] timeout_ms. Everything else — a timeout (the process is killed),
 * a crash, a non-zero exit, more than 64 KiB of output, output that is not that object — is a
 * deny with an error saying which. Stdin and stdout are one socket pair, so a program that
 * exits without reading cannot raise SIGPIPE in the server.
 * Does not own: the request model (policy.c).
 */
#include "core/clock.h"
#include "core/limits.h"
#include "policy/backend.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

typedef struct command_state {
    char **argv;
    int64_t timeout_ms;
} command_state;

static void command_close(void *state)
{
    command_state *s = state;
    free(s->argv);
    free(s);
}

sluice_status sluice_policy_command_open(const sluice_config_policy *config,
                                         sluice_hash_state *version,
                                         void **state,
                                         sluice_arena *err_arena,
                                         sluice_error *err)
{
    const char *prog = config->command.items[0];
    if (strchr(prog, '/') != NULL && access(prog, X_OK) != 0)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "[policy] command: %s is not an executable file: %s", prog,
                                strerror(errno));
    command_state *s = calloc(1, sizeof *s);
    char **argv = calloc(config->command.count + 1, sizeof *argv);
    if (s == NULL || argv == NULL) {
        free(s);
        free(argv);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < config->command.count; i++) {
        argv[i] = (char *)config->command.items[i]; /* the config outlives the backend */
        sluice_hash_update(version, argv[i], strlen(argv[i]) + 1);
    }
    s->argv = argv;
    s->timeout_ms = config->timeout_ms;
    *state = s;
    return SLUICE_OK;
}

/* Sends request, reads the answer until EOF. Returns 0, ETIMEDOUT, EFBIG or an errno value. */
static int
exchange(int fd, const char *request, size_t len, char *out, size_t *out_len, int64_t deadline)
{
    size_t sent = 0, got = 0;
    bool reading = true;
    while (reading) {
        int64_t left = deadline - sluice_clock_monotonic_ms(NULL);
        if (left <= 0)
            return ETIMEDOUT;
        struct pollfd p = { .fd = fd, .events = POLLIN | (sent < len ? POLLOUT : 0) };
        int r = poll(&p, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return errno;
        if (r == 0)
            return ETIMEDOUT;
        if (sent < len && (p.revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t n = send(fd, request + sent, len - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n < 0 && errno != EAGAIN && errno != EINTR)
                sent = len; /* the program stopped reading: its answer still counts */
            else if (n > 0)
                sent += (size_t)n;
            if (sent == len)
                shutdown(fd, SHUT_WR);
        }
        if (p.revents & (POLLIN | POLLHUP)) {
            ssize_t n = recv(fd, out + got, SLUICE_LIMIT_POLICY_COMMAND_OUTPUT_BYTES + 1 - got,
                             MSG_DONTWAIT);
            /* ECONNRESET: the program exited without reading all of the request; it is
             * reported once, and the answer it wrote is still queued behind it. */
            if (n < 0 && errno != EAGAIN && errno != EINTR && errno != ECONNRESET)
                return errno;
            if (n == 0)
                reading = false;
            if (n > 0 && (got += (size_t)n) > SLUICE_LIMIT_POLICY_COMMAND_OUTPUT_BYTES)
                return EFBIG;
        }
    }
    *out_len = got;
    return 0;
}

/* Reads {"decision": ..., "reasons": [...]} into out. */
static sluice_status
parse_answer(sluice_arena *arena, const char *text, size_t len, sluice_policy_decision *out)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    const char *decision = json_string_value(json_object_get(root, "decision"));
    const json_t *reasons = json_object_get(root, "reasons");
    sluice_status st = SLUICE_OK;
    if (decision == NULL || (strcmp(decision, "allow") != 0 && strcmp(decision, "deny") != 0) ||
        (reasons != NULL && !json_is_array(reasons))) {
        st = sluice_policy_decision_error(out, arena,
                                          "the policy command's answer is not {\"decision\": "
                                          "\"allow\"|\"deny\", \"reasons\": [...]}");
        json_decref(root);
        return st;
    }
    out->allow = strcmp(decision, "allow") == 0;
    out->reasons = sluice_arena_calloc(arena, json_array_size(reasons) + 1, sizeof *out->reasons);
    if (out->reasons == NULL)
        st = SLUICE_E_NOMEM;
    const json_t *r;
    size_t i;
    json_array_foreach(reasons, i, r)
    {
        if (st != SLUICE_OK || !json_is_string(r))
            continue;
        const char *id = sluice_arena_strdup(arena, json_string_value(r));
        if (id == NULL)
            st = SLUICE_E_NOMEM;
        else
            out->reasons[out->reason_count++] =
                (sluice_policy_reason){ .id = id, .forbid = !out->allow };
    }
    json_decref(root);
    return st;
}

static sluice_status spawn(const command_state *s, int *fd, pid_t *pid)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return SLUICE_E_IO;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, sv[1], STDOUT_FILENO);
    int e = posix_spawnp(pid, s->argv[0], &fa, NULL, s->argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    if (e != 0) {
        close(sv[0]);
        errno = e;
        return SLUICE_E_IO;
    }
    *fd = sv[0];
    return SLUICE_OK;
}

static sluice_status command_evaluate(void *state,
                                      sluice_arena *arena,
                                      const json_t *request,
                                      sluice_policy_decision *out,
                                      sluice_error *err)
{
    const command_state *s = state;
    char *text = json_dumps(request, JSON_COMPACT);
    char *answer = sluice_arena_alloc(arena, SLUICE_LIMIT_POLICY_COMMAND_OUTPUT_BYTES + 1);
    if (text == NULL || answer == NULL) {
        free(text);
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    }
    int fd;
    pid_t pid;
    if (spawn(s, &fd, &pid) != SLUICE_OK) {
        free(text);
        int e = errno;
        return sluice_policy_decision_error(out, arena, "cannot start the policy command %s: %s",
                                            s->argv[0], strerror(e));
    }
    size_t len = 0;
    int e = exchange(fd, text, strlen(text), answer, &len,
                     sluice_clock_monotonic_ms(NULL) + s->timeout_ms);
    free(text);
    close(fd);
    if (e != 0)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (e == ETIMEDOUT)
        return sluice_policy_decision_error(out, arena,
                                            "the policy command %s did not answer within %lld ms "
                                            "([policy] timeout_ms)",
                                            s->argv[0], (long long)s->timeout_ms);
    if (e != 0)
        return sluice_policy_decision_error(out, arena, "the policy command %s failed: %s",
                                            s->argv[0],
                                            e == EFBIG ? "answer larger than 64 KiB" : strerror(e));
    if (WIFSIGNALED(status))
        return sluice_policy_decision_error(out, arena, "the policy command %s crashed (signal %d)",
                                            s->argv[0], WTERMSIG(status));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return sluice_policy_decision_error(out, arena, "the policy command %s exited with %d",
                                            s->argv[0], WEXITSTATUS(status));
    sluice_status st = parse_answer(arena, answer, len, out);
    return st == SLUICE_OK ? SLUICE_OK : sluice_error_set(err, arena, st, "out of memory");
}

const sluice_policy_backend_ops sluice_policy_command_ops = {
    .name = "command",
    .evaluate = command_evaluate,
    .close = command_close,
};
