/*
 * test_audit_search.c — `sluice audit search`'s reader (state/audit_search.h) on real logs: the
 * main chain with rotated files and a second writer chain beside it; records found by
 * principal, time range, action, event, decision and code hash across every chain, each with its
 * chain; an edited record, an edited last record and an edited writer chain are never found,
 * the records the chain proved before them are, and the break is named; bad query values are
 * refused with the form to use; every allocation point of a search is failed in turn and a
 * failed search never reports a result short of matches as whole.
 */
#include "core/clock.h"
#include "oom_sweep.h"
#include "state/audit_search.h"
#include "unit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 2027-01-15T08:00:00Z */
#define START 1800000000

static char dir[64];
static char path[128];
static sluice_manual_clock clock_;
static sluice_arena *arena;

static void
append(sluice_audit *log, const char *user, const char *event, const char *action, const char *hash)
{
    json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:s}", "decision",
                          strcmp(event, "execute") == 0 ? "executed" : "validated", "action",
                          action, "code_hash", hash, "event", event, "user", user);
    sluice_error err = { 0 };
    assert_int_equal(sluice_audit_append(log, e, arena, &err), SLUICE_OK);
    json_decref(e);
    sluice_manual_clock_advance_ms(&clock_, 60 * 1000); /* one record a minute */
}

/* main: 12 records (rotated every ~3), 08:00 .. 08:11; w2: 4 records, 08:12 .. 08:15. */
static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/sluice-test-asearch-XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    arena = sluice_arena_new();
    sluice_manual_clock_init(&clock_, START);
    sluice_audit_file_options o = { .clock = &clock_.clock, .rotate_bytes = 600 };
    sluice_audit *main_log = NULL, *second = NULL;
    unsigned slot = 0;
    if (sluice_audit_open_file(path, &o, &main_log, NULL, NULL) != SLUICE_OK ||
        sluice_audit_open_writer(path, &o, &slot, &second, NULL, NULL) != SLUICE_OK || slot != 2)
        return -1;
    static const char *const users[] = { "alice", "bob", "carol" };
    static const char *const actions[] = { "read", "write", "read", "delete" };
    for (int i = 0; i < 12; i++)
        append(main_log, users[i % 3], i % 2 == 0 ? "validate" : "execute", actions[i % 4],
               i == 5 ? "deadbeef00112233" : "0123456789abcdef");
    for (int i = 0; i < 4; i++)
        append(second, "alice", "execute", "admin", "cafebabe99887766");
    sluice_audit_close(main_log);
    sluice_audit_close(second);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sluice_arena_free(arena);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

typedef struct hits {
    int n;
    int in_w2;
    char users[32][16];
    long seqs[32];
} hits;

static void found(void *ctx, const char *chain, json_t *record)
{
    hits *h = ctx;
    if (h->n < 32) {
        snprintf(h->users[h->n], sizeof h->users[h->n], "%s",
                 json_string_value(json_object_get(record, "user")));
        h->seqs[h->n] = (long)json_integer_value(json_object_get(record, "seq"));
    }
    h->n++;
    if (strcmp(chain, "w2") == 0)
        h->in_w2++;
}

static sluice_status search(const sluice_audit_query *q, hits *h, sluice_audit_search_report *r)
{
    memset(h, 0, sizeof *h);
    return sluice_audit_search(path, q, found, h, r);
}

/* Found by the query given as option/value pairs (NULL-terminated): the count, w2's share. */
static int count(hits *h, sluice_audit_search_report *r, sluice_status want, ...)
{
    sluice_audit_query q = { 0 };
    va_list ap;
    va_start(ap, want);
    const char *opt;
    while ((opt = va_arg(ap, const char *)) != NULL) {
        const char *v = va_arg(ap, const char *);
        const char **slot = strcmp(opt, "user") == 0       ? &q.user
                            : strcmp(opt, "since") == 0    ? &q.since
                            : strcmp(opt, "until") == 0    ? &q.until
                            : strcmp(opt, "action") == 0   ? &q.action
                            : strcmp(opt, "event") == 0    ? &q.event
                            : strcmp(opt, "decision") == 0 ? &q.decision
                                                           : &q.code_hash;
        *slot = v;
    }
    va_end(ap);
    sluice_error err = { 0 };
    assert_int_equal(sluice_audit_query_check(&q, arena, &err), SLUICE_OK);
    assert_int_equal(search(&q, h, r), want);
    return h->n;
}

static void test_filters_over_every_chain(void **state)
{
    (void)state;
    hits h;
    sluice_audit_search_report r;
    /* 12 + 4 records, and one "audit_rotated" record per rotation (5 in main, 1 in w2) */
    assert_int_equal(count(&h, &r, SLUICE_OK, NULL), 22);
    assert_int_equal(h.in_w2, 5);
    assert_int_equal(r.chains, 2);
    assert_int_equal(r.records, 22);
    assert_null(r.problem_chain);
    assert_int_equal(count(&h, &r, SLUICE_OK, "user", "alice", NULL), 8);
    assert_int_equal(h.in_w2, 4);
    assert_int_equal(r.matches, 8);
    assert_int_equal(count(&h, &r, SLUICE_OK, "action", "delete", NULL), 3);
    assert_string_equal(h.users[0], "alice");
    assert_string_equal(h.users[2], "carol");
    assert_int_equal(count(&h, &r, SLUICE_OK, "event", "execute", NULL), 10);
    assert_int_equal(count(&h, &r, SLUICE_OK, "decision", "executed", "user", "bob", NULL), 2);
    assert_int_equal(count(&h, &r, SLUICE_OK, "code_hash", "DEADBEEF", NULL), 1);
    assert_string_equal(h.users[0], "carol");
    assert_int_equal(count(&h, &r, SLUICE_OK, "code_hash", "cafebabe99", NULL), 4);
    assert_int_equal(h.in_w2, 4);
    /* since is inclusive, until exclusive; a prefix is the start of its period */
    assert_int_equal(count(&h, &r, SLUICE_OK, "user", "alice", "since", "2027-01-15T08:03", "until",
                           "2027-01-15T08:10", NULL),
                     3);
    assert_int_equal(
        count(&h, &r, SLUICE_OK, "user", "alice", "until", "2027-01-15T08:03:00Z", NULL), 1);
    assert_int_equal(count(&h, &r, SLUICE_OK, "user", "alice", "since", "2027-01-15T08:12", NULL),
                     4);
    assert_int_equal(h.in_w2, 4);
    assert_int_equal(count(&h, &r, SLUICE_OK, "user", "alice", "since", "2027-01-16", NULL), 0);
    assert_int_equal(count(&h, &r, SLUICE_OK, "since", "2027-01-15", "until", "2027-01-16", "event",
                           "validate", NULL),
                     6);
    assert_int_equal(count(&h, &r, SLUICE_OK, "user", "nobody", NULL), 0);
    assert_int_equal(r.records, 22);
}

/* The console's trail (audit_tail.c): the ends of every chain, newest first, each marked. */
static void test_console_tail_reads_every_chain(void **state)
{
    (void)state;
    json_t *t = sluice_audit_tail(path, 100);
    assert_non_null(t);
    size_t n = json_array_size(t), in_main = 0;
    assert_true(n >= 3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(t, 0), "chain")), "w2");
    assert_string_equal(json_string_value(json_object_get(json_array_get(t, 0), "ts")),
                        "2027-01-15T08:15:00.000Z");
    for (size_t i = 0; i < n; i++) {
        const json_t *r = json_array_get(t, i);
        const char *chain = json_string_value(json_object_get(r, "chain"));
        in_main += strcmp(chain, "main") == 0;
        if (i > 0)
            assert_true(
                strcmp(json_string_value(json_object_get(r, "ts")),
                       json_string_value(json_object_get(json_array_get(t, i - 1), "ts"))) <= 0);
    }
    assert_true(in_main >= 1);
    json_decref(t);
    t = sluice_audit_tail(path, 2); /* the two newest of all chains */
    assert_int_equal(json_array_size(t), 2);
    json_decref(t);
}

static void test_bad_queries(void **state)
{
    (void)state;
    static const struct {
        sluice_audit_query q;
        const char *says;
    } bad[] = {
        { { .since = "yesterday" }, "--since 'yesterday' is not a UTC time" },
        { { .until = "2027-01-15T8:00" }, "--until '2027-01-15T8:00' is not a UTC time" },
        { { .since = "2027-01-15T08:00:00.1234" }, "is not a UTC time" },
        { { .since = "2027-01-15T09", .until = "2027-01-15T08" }, "is not before --until" },
        { { .action = "drop" }, "--action 'drop' is not read, write, delete or admin" },
        { { .code_hash = "abc" }, "--code-hash 'abc' is not 8 to 64 hex digits" },
        { { .code_hash = "0123456789abcdefg" }, "is not 8 to 64 hex digits" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sluice_error err = { 0 };
        assert_int_equal(sluice_audit_query_check(&bad[i].q, arena, &err), SLUICE_E_INVALID);
        if (strstr(err.message, bad[i].says) == NULL)
            fail_msg("case %zu: '%s' lacks '%s'", i, err.message, bad[i].says);
    }
}

/* A failed search is a failure, never a clean answer with fewer matches. */
static oom_outcome run_search(void *ctx)
{
    (void)ctx;
    sluice_audit_query q = { .user = "alice" };
    hits h;
    sluice_audit_search_report r;
    sluice_status st = search(&q, &h, &r);
    if (st != SLUICE_OK)
        return OOM_FAILED;
    return h.n == 8 && r.matches == 8 ? OOM_ALLOWED : OOM_WRONG;
}

static void test_oom(void **state)
{
    (void)state;
    oom_count_jansson();
    long n = oom_sweep("audit search", run_search, NULL, OOM_ALLOWED, OOM_ACCEPT(OOM_FAILED));
    json_set_alloc_funcs(malloc, free);
    fprintf(stderr, "oom sweep: %ld allocation points: audit search\n", n);
    assert_true(n >= 10);
}

/* Replaces the first `from` in file by `to` (same length: the line keeps its place). */
static void edit(const char *file, const char *from, const char *to)
{
    FILE *f = fopen(file, "r+");
    assert_non_null(f);
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    char *at = strstr(buf, from);
    assert_non_null(at);
    assert_int_equal(strlen(from), strlen(to));
    memcpy(at, to, strlen(to));
    rewind(f);
    assert_int_equal(fwrite(buf, 1, n, f), n);
    fclose(f);
}

/* The last record of w2 edited: proven only by the head, so it is never found; w2's records
 * before it and all of main are; the break is named with its file. */
static void test_edited_last_record_of_a_writer_chain(void **state)
{
    (void)state;
    char w2[160];
    snprintf(w2, sizeof w2, "%s.w2", path);
    edit(w2, "\"user\":\"alice\"", "\"user\":\"malle\"");
    hits h;
    sluice_audit_search_report r;
    assert_int_equal(count(&h, &r, SLUICE_E_INVALID, "user", "alice", NULL), 7);
    assert_int_equal(h.in_w2, 3);
    assert_string_equal(r.problem_chain, "w2");
    assert_string_equal(r.first_problem.file, w2);
    assert_non_null(strstr(r.first_problem.what, "modified"));
    assert_int_equal(count(&h, &r, SLUICE_E_INVALID, "user", "malle", NULL), 0);
}

/* A record in the middle of main's second rotated file edited: main's records from the one
 * before it on are not found, w2 is still searched. */
static void test_edited_record_of_the_main_chain(void **state)
{
    (void)state;
    char second[160];
    snprintf(second, sizeof second, "%s.2", path);
    edit(second, "\"user\":\"bob\"", "\"user\":\"bxb\"");
    hits h;
    sluice_audit_search_report r;
    int n = count(&h, &r, SLUICE_E_INVALID, NULL);
    assert_true(n < 22 - 2);
    for (int i = 0; i < n && i < 32; i++)
        assert_string_not_equal(h.users[i], "bxb");
    assert_int_equal(h.in_w2, 4); /* w2: its 5 records less the edited last one */
    assert_string_equal(r.problem_chain, "main");
    assert_string_equal(r.first_problem.file, second);
    assert_int_equal(count(&h, &r, SLUICE_E_INVALID, "user", "bxb", NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filters_over_every_chain),
        cmocka_unit_test(test_console_tail_reads_every_chain),
        cmocka_unit_test(test_bad_queries),
        cmocka_unit_test(test_oom),
        cmocka_unit_test(test_edited_last_record_of_a_writer_chain),
        cmocka_unit_test(test_edited_record_of_the_main_chain),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
