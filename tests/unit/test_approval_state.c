/*
 * test_approval_state.c — the requestState of an approval asked through an MCP 2026-07-28
 * input_required result: a sealed state opens once for its principal and its approval token;
 * every attempt to break it is refused — a flipped byte anywhere, a truncated or padded text, a
 * state for another principal or another token, a state presented after its TTL (injected
 * clock values, no sleeps), a second use (replay, also across a reopened file store), a key the
 * server does not hold — and a replay store that cannot record the use fails closed.
 */
#include "codemode/approval_gate.h"
#include "core/limits.h"
#include "state/replay.h"
#include "token/approval_state.h"
#include "token/key_store.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOW   1800000000
#define TOKEN "sluice-token-for-alice"

static char dir[64];
static char key_path[128], other_key_path[128], replay_path[128];

static void write_key(const char *path, const char *id)
{
    char line[SLUICE_LIMIT_SECRET_LINE_BYTES];
    assert_int_equal(sluice_secret_generate(id, line, sizeof line), SLUICE_OK);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(line, f);
    fclose(f);
    assert_int_equal(chmod(path, 0600), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/sluice-test-rstate-XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(key_path, sizeof key_path, "%s/k.key", dir);
    snprintf(other_key_path, sizeof other_key_path, "%s/other.key", dir);
    snprintf(replay_path, sizeof replay_path, "%s/replay", dir);
    write_key(key_path, "k1");
    write_key(other_key_path, "k2");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

typedef struct env {
    sluice_arena *arena;
    sluice_key_store *keys;
    sluice_replay *replay;
} env;

static env open_env(const char *key, const char *replay_file)
{
    env e = { sluice_arena_new(), NULL, NULL };
    assert_non_null(e.arena);
    sluice_error err = { 0 };
    sluice_key_sources src = { .file = key };
    assert_int_equal(sluice_key_store_open(&src, &e.keys, e.arena, &err), SLUICE_OK);
    assert_int_equal(sluice_replay_open(replay_file, NOW, &e.replay, e.arena, &err), SLUICE_OK);
    return e;
}

static void close_env(env *e)
{
    sluice_replay_close(e->replay);
    sluice_key_store_close(e->keys);
    sluice_arena_free(e->arena);
}

static char *seal(env *e, const char *user, const char *token, int64_t now)
{
    char *state = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_approval_state_seal(e->keys,
                                                &(sluice_approval_state_binding){ user, token },
                                                now, e->arena, &state, &err),
                     SLUICE_OK);
    assert_non_null(state);
    return state;
}

static sluice_status open_as(
    env *e, const char *state, const char *user, const char *token, int64_t now, sluice_error *err)
{
    return sluice_approval_state_open(e->keys, e->replay,
                                      &(sluice_approval_state_answer){ state, { user, token } },
                                      now, e->arena, err);
}

static void test_state_opens_once(void **unused)
{
    (void)unused;
    env e = open_env(key_path, NULL);
    char *state = seal(&e, "alice", TOKEN, NOW);
    sluice_error err = { 0 };
    assert_int_equal(open_as(&e, state, "alice", TOKEN, NOW + 1, &err), SLUICE_OK);
    /* The same state again: a replay. */
    assert_int_equal(open_as(&e, state, "alice", TOKEN, NOW + 2, &err), SLUICE_E_DENIED);
    assert_non_null(strstr(err.message, "used already"));
    /* Two seals of the same request are different states (a fresh nonce each). */
    assert_string_not_equal(seal(&e, "alice", TOKEN, NOW), seal(&e, "alice", TOKEN, NOW));
    close_env(&e);
}

static void test_state_tampered_anywhere_is_refused(void **unused)
{
    (void)unused;
    env e = open_env(key_path, NULL);
    char *state = seal(&e, "alice", TOKEN, NOW);
    size_t len = strlen(state);
    char *copy = malloc(len + 16);
    assert_non_null(copy);
    for (size_t i = 0; i < len; i++) {
        memcpy(copy, state, len + 1);
        copy[i] = copy[i] == 'A' ? 'B' : 'A';
        sluice_error err = { 0 };
        assert_int_equal(open_as(&e, copy, "alice", TOKEN, NOW + 1, &err), SLUICE_E_TOKEN);
    }
    const char *suffixes[] = { "-TAMPERED", "A", "=" };
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(copy, len + 16, "%s%s", state, suffixes[i]);
        sluice_error err = { 0 };
        assert_int_equal(open_as(&e, copy, "alice", TOKEN, NOW + 1, &err), SLUICE_E_TOKEN);
    }
    memcpy(copy, state, len - 1);
    copy[len - 1] = '\0';
    sluice_error err = { 0 };
    assert_int_equal(open_as(&e, copy, "alice", TOKEN, NOW + 1, &err), SLUICE_E_TOKEN);
    const char *junk[] = { "", ".", "k1.", "nodot", "k1.!!!!" };
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
        assert_int_equal(open_as(&e, junk[i], "alice", TOKEN, NOW + 1, &err), SLUICE_E_TOKEN);
    assert_int_equal(open_as(&e, NULL, "alice", TOKEN, NOW + 1, &err), SLUICE_E_TOKEN);
    /* None of the refusals burnt the genuine state. */
    assert_int_equal(open_as(&e, state, "alice", TOKEN, NOW + 1, &err), SLUICE_OK);
    free(copy);
    close_env(&e);
}

static void test_state_is_bound(void **unused)
{
    (void)unused;
    env e = open_env(key_path, NULL);
    char *state = seal(&e, "alice", TOKEN, NOW);
    sluice_error err = { 0 };
    assert_int_equal(open_as(&e, state, "mallory", TOKEN, NOW + 1, &err), SLUICE_E_TOKEN);
    assert_non_null(strstr(err.message, "another principal"));
    assert_int_equal(open_as(&e, state, "alice", "another-token", NOW + 1, &err), SLUICE_E_TOKEN);
    assert_non_null(strstr(err.message, "another approval token"));
    assert_int_equal(
        open_as(&e, state, "alice", TOKEN, NOW + SLUICE_LIMIT_APPROVAL_STATE_TTL_S, &err),
        SLUICE_E_TOKEN);
    assert_non_null(strstr(err.message, "expired"));
    assert_int_equal(
        open_as(&e, state, "alice", TOKEN, NOW + SLUICE_LIMIT_APPROVAL_STATE_TTL_S - 1, &err),
        SLUICE_OK);
    close_env(&e);
}

static void test_state_from_another_key_is_refused(void **unused)
{
    (void)unused;
    env mine = open_env(key_path, NULL);
    env theirs = open_env(other_key_path, NULL);
    char *state = seal(&theirs, "alice", TOKEN, NOW);
    sluice_error err = { 0 };
    assert_int_equal(open_as(&mine, state, "alice", TOKEN, NOW + 1, &err), SLUICE_E_TOKEN);
    assert_non_null(strstr(err.message, "does not hold"));
    /* Claiming our key id with their MAC is an altered state. */
    char *forged = sluice_arena_printf(mine.arena, "k1%s", strchr(state, '.'));
    assert_int_equal(open_as(&mine, forged, "alice", TOKEN, NOW + 1, &err), SLUICE_E_TOKEN);
    close_env(&theirs);
    close_env(&mine);
}

static void test_state_replay_survives_restart(void **unused)
{
    (void)unused;
    env e = open_env(key_path, replay_path);
    char *state = seal(&e, "alice", TOKEN, NOW);
    char *kept = strdup(state);
    sluice_error err = { 0 };
    assert_int_equal(open_as(&e, state, "alice", TOKEN, NOW + 1, &err), SLUICE_OK);
    close_env(&e);
    env again = open_env(key_path, replay_path);
    assert_int_equal(open_as(&again, kept, "alice", TOKEN, NOW + 2, &err), SLUICE_E_DENIED);
    free(kept);
    close_env(&again);
}

/* A replay store that cannot record anything: the approval must not count. */
static sluice_status broken_consume(void *impl,
                                    const uint8_t id[SLUICE_REPLAY_ID_BYTES],
                                    int64_t expires_at,
                                    int64_t now)
{
    (void)impl, (void)id, (void)expires_at, (void)now;
    return SLUICE_E_IO;
}
static size_t broken_count(void *impl)
{
    (void)impl;
    return 0;
}
static void broken_close(void *impl)
{
    (void)impl;
}

static void test_state_fails_closed_without_store(void **unused)
{
    (void)unused;
    static const sluice_replay_store_ops broken = { "broken", broken_consume, broken_count,
                                                    broken_close };
    env e = open_env(key_path, NULL);
    sluice_replay *store = NULL;
    assert_int_equal(sluice_replay_wrap(&broken, NULL, &store), SLUICE_OK);
    char *state = seal(&e, "alice", TOKEN, NOW);
    sluice_error err = { 0 };
    assert_int_equal(
        sluice_approval_state_open(e.keys, store,
                                   &(sluice_approval_state_answer){ state, { "alice", TOKEN } },
                                   NOW + 1, e.arena, &err),
        SLUICE_E_IO);
    assert_non_null(strstr(err.message, "does not count"));
    sluice_replay_close(store);
    close_env(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_opens_once),
        cmocka_unit_test(test_state_tampered_anywhere_is_refused),
        cmocka_unit_test(test_state_is_bound),
        cmocka_unit_test(test_state_from_another_key_is_refused),
        cmocka_unit_test(test_state_replay_survives_restart),
        cmocka_unit_test(test_state_fails_closed_without_store),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
