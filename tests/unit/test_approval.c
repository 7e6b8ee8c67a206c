/*
 * test_approval.c — the administrator approval store: the one legal life of a request, final
 * rejections and expiry, two handles on one file (the server and `sluice approve`), hand edits
 * that try to revive a rejected request, and concurrent deciders.
 */
#include "state/approval.h"
#include "unit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ID_A "0123456789abcdef0123456789abcdef"
#define ID_B "fedcba9876543210fedcba9876543210"
#define NOW  1000000

static sluice_arena *arena;
static char path[64];

static int setup(void **state)
{
    (void)state;
    arena = sluice_arena_new();
    snprintf(path, sizeof path, "/tmp/sluice-approvals-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    sluice_arena_free(arena);
    return 0;
}

static sluice_approval_store *open_store(void)
{
    sluice_approval_store *s = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_approval_open(path, &s, arena, &err), SLUICE_OK);
    return s;
}

static void request(sluice_approval_store *s, const char *id, int64_t expires_at)
{
    sluice_approval a;
    sluice_error err = { 0 };
    assert_int_equal(sluice_approval_request(
                         s, &(sluice_approval_ask){ id, expires_at, "alice", "write, high risk" },
                         NOW, &a, arena, &err),
                     SLUICE_OK);
}

static sluice_status decide(sluice_approval_store *s, const char *id, bool approve, int64_t now)
{
    sluice_error err = { 0 };
    sluice_approval a;
    return sluice_approval_decide(s, &(sluice_approval_decision){ id, approve, "root", true }, now,
                                  &a, arena, &err);
}

static void test_approval_life(void **state)
{
    (void)state;
    sluice_approval_store *s = open_store();
    assert_int_equal(sluice_approval_get(s, ID_A, NOW).state, SLUICE_APPROVAL_NONE);
    assert_int_equal(decide(s, ID_A, true, NOW), SLUICE_E_NOT_FOUND);
    request(s, ID_A, NOW + 300);
    request(s, ID_A, NOW + 9999); /* a second request changes nothing */
    sluice_approval a = sluice_approval_get(s, ID_A, NOW);
    assert_int_equal(a.state, SLUICE_APPROVAL_PENDING);
    assert_int_equal(a.expires_at, NOW + 300);
    assert_string_equal(a.user, "alice");
    sluice_approval list[2];
    assert_int_equal(sluice_approval_pending(s, NOW, list, 2), 1);
    assert_string_equal(list[0].id, ID_A);
    assert_int_equal(sluice_approval_pending(s, NOW + 301, list, 2), 0); /* expired */
    assert_int_equal(decide(s, ID_A, true, NOW + 1), SLUICE_OK);
    assert_int_equal(sluice_approval_pending(s, NOW, list, 2), 0);
    a = sluice_approval_get(s, ID_A, NOW + 2);
    assert_int_equal(a.state, SLUICE_APPROVAL_APPROVED);
    assert_string_equal(a.decided_by, "root");
    assert_int_equal(decide(s, ID_A, false, NOW + 2), SLUICE_E_DENIED);
    /* An approval dies with its token. */
    assert_int_equal(sluice_approval_get(s, ID_A, NOW + 301).state, SLUICE_APPROVAL_EXPIRED);
    assert_int_equal(decide(s, "not-an-id", true, NOW), SLUICE_E_NOT_FOUND);
    sluice_approval_close(s);
}

static void test_approval_rejection_and_expiry_are_final(void **state)
{
    (void)state;
    sluice_approval_store *s = open_store();
    request(s, ID_A, NOW + 300);
    assert_int_equal(decide(s, ID_A, false, NOW), SLUICE_OK);
    assert_int_equal(decide(s, ID_A, true, NOW), SLUICE_E_DENIED);
    request(s, ID_B, NOW + 10);
    assert_int_equal(decide(s, ID_B, true, NOW + 11), SLUICE_E_DENIED);
    assert_int_equal(sluice_approval_get(s, ID_B, NOW + 11).state, SLUICE_APPROVAL_EXPIRED);
    sluice_approval_close(s);
    /* A hand edit appending an approval after the rejection, or past expiry, is ignored. */
    FILE *f = fopen(path, "a");
    fprintf(f, "{\"id\":\"%s\",\"state\":\"approved\",\"by\":\"x\",\"at\":%d}\n", ID_A, NOW + 1);
    fprintf(f, "{\"id\":\"%s\",\"state\":\"approved\",\"by\":\"x\",\"at\":%d}\n", ID_B, NOW + 20);
    fprintf(f, "{\"id\":\"%s\",\"state\":\"pending\",\"expires_at\":%d}\n", ID_A, NOW + 999);
    fputs("not json\n{\"id\": 7}\n", f);
    fclose(f);
    s = open_store();
    assert_int_equal(sluice_approval_get(s, ID_A, NOW + 2).state, SLUICE_APPROVAL_REJECTED);
    assert_int_equal(sluice_approval_get(s, ID_B, NOW + 2).state, SLUICE_APPROVAL_PENDING);
    assert_int_equal(sluice_approval_get(s, ID_B, NOW + 11).state, SLUICE_APPROVAL_EXPIRED);
    sluice_approval_close(s);
}

static void test_approval_two_handles(void **state)
{
    (void)state;
    sluice_approval_store *server = open_store();
    sluice_approval_store *cli = open_store();
    request(server, ID_A, NOW + 300);
    sluice_error err = { 0 };
    sluice_approval a;
    /* The CLI sees the server's request and decides without auditing (the log is busy). */
    assert_int_equal(sluice_approval_decide(cli,
                                            &(sluice_approval_decision){ ID_A, true, "ops", false },
                                            NOW, &a, arena, &err),
                     SLUICE_OK);
    assert_int_equal(sluice_approval_get(server, ID_A, NOW).state, SLUICE_APPROVAL_APPROVED);
    sluice_approval batch[4];
    assert_int_equal(sluice_approval_take_unaudited(server, batch, 4), 1);
    assert_string_equal(batch[0].decided_by, "ops");
    assert_int_equal(sluice_approval_take_unaudited(server, batch, 4), 0);
    /* The server cannot decide it again either. */
    assert_int_equal(decide(server, ID_A, false, NOW), SLUICE_E_DENIED);
    sluice_approval_close(cli);
    sluice_approval_close(server);
    /* A restarted server does not report old decisions again. */
    server = open_store();
    assert_int_equal(sluice_approval_take_unaudited(server, batch, 4), 0);
    sluice_approval_close(server);
}

typedef struct race {
    sluice_approval_store *store;
    bool approve;
    sluice_status result;
} race;

static void *decider(void *p)
{
    race *r = p;
    sluice_approval a;
    sluice_error err = { 0 };
    sluice_arena *own = sluice_arena_new();
    r->result = sluice_approval_decide(
        r->store, &(sluice_approval_decision){ ID_A, r->approve, "racer", true }, NOW, &a, own,
        &err);
    sluice_arena_free(own);
    return NULL;
}

static void test_approval_one_decision_wins(void **state)
{
    (void)state;
    sluice_approval_store *stores[2] = { open_store(), open_store() };
    request(stores[0], ID_A, NOW + 300);
    race r[8];
    pthread_t t[8];
    for (int i = 0; i < 8; i++) {
        r[i] = (race){ stores[i % 2], i % 3 == 0, SLUICE_OK };
        assert_int_equal(pthread_create(&t[i], NULL, decider, &r[i]), 0);
    }
    int wins = 0;
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        wins += r[i].result == SLUICE_OK;
    }
    assert_int_equal(wins, 1);
    sluice_approval_close(stores[0]);
    sluice_approval_close(stores[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_approval_life, setup, teardown),
        cmocka_unit_test_setup_teardown(test_approval_rejection_and_expiry_are_final, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_approval_two_handles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_approval_one_decision_wins, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
