/*
 * test_audit.c — the hash-chained audit log: an intact chain verifies; editing a byte, deleting
 * a line, swapping two, cutting the tail or breaking a line is each found at the right line;
 * reopening continues the chain and refuses a broken one, adopts a tail a crashed group commit
 * left uncovered by the head (and only when it links), drops a partial record the head does not
 * cover (and refuses one it does); concurrent appends keep one chain. A record's text is, byte for
 * byte, what json_dumps made of the chain's members and the event's in one object.
 */
#include "core/hash.h"
#include "core/json_splice.h"
#include "core/limits.h"
#include "state/audit.h"
#include "state/audit_chain.h"
#include "unit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[64];
static char path[128];
static char head[160];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/sluice-test-audit-XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    snprintf(head, sizeof head, "%s.head", path);
    return 0;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int fresh_log(void **state)
{
    (void)state;
    remove(path);
    remove(head);
    return 0;
}

/* Appends n events "validation" by user-<i> to the log at path. */
static void write_events(int from, int n)
{
    sluice_audit *log = NULL;
    assert_int_equal(sluice_audit_open(path, &log, NULL, NULL), SLUICE_OK);
    for (int i = from; i < from + n; i++) {
        json_t *event =
            json_pack("{s:s, s:s, s:s, s:i, s:b}", "event", "validation", "who", "alice", "code",
                      "SELECT 1 -- newline\nand \"quotes\"", "rows", i, "truncated", i % 2);
        assert_int_equal(sluice_audit_append(log, event, NULL, NULL), SLUICE_OK);
        json_decref(event);
    }
    assert_int_equal(sluice_audit_count(log), (uint64_t)(from + n - 1));
    sluice_audit_close(log);
}

/* The log's lines, each with its newline; count in *n. */
static char **read_lines(size_t *n)
{
    static char *lines[64];
    static char store[64][1024];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    *n = 0;
    while (*n < 64 && fgets(store[*n], sizeof store[*n], f) != NULL) {
        lines[*n] = store[*n];
        (*n)++;
    }
    fclose(f);
    return lines;
}

static void write_lines(char **lines, size_t n)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (size_t i = 0; i < n; i++)
        fputs(lines[i], f);
    fclose(f);
}

/* The head file's bytes, to put an older head back (as a crash before its write would leave). */
typedef struct saved_head {
    char bytes[512];
    size_t len;
} saved_head;

static saved_head save_head(void)
{
    saved_head h;
    FILE *f = fopen(head, "r");
    assert_non_null(f);
    h.len = fread(h.bytes, 1, sizeof h.bytes, f);
    fclose(f);
    return h;
}

static void restore_head(const saved_head *h)
{
    FILE *f = fopen(head, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(h->bytes, 1, h->len, f), h->len);
    fclose(f);
}

static void expect_broken(size_t line, const char *what)
{
    sluice_audit_report r;
    assert_int_equal(sluice_audit_verify(path, &r), SLUICE_E_INVALID);
    if (r.line != line || strstr(r.what, what) == NULL)
        fail_msg("expected line %zu '%s', got line %zu '%s'", line, what, r.line, r.what);
}

static void test_audit_chain_intact(void **state)
{
    (void)state;
    write_events(1, 10);
    sluice_audit_report r;
    assert_int_equal(sluice_audit_verify(path, &r), SLUICE_OK);
    assert_int_equal(r.records, 10);
    assert_int_equal(r.line, 0);
    size_t n;
    char **lines = read_lines(&n);
    assert_int_equal(n, 10);
    assert_memory_equal(lines[0], "{\"seq\":1,\"ts\":\"", 15);
    assert_non_null(strstr(lines[0], "\"prev\":\"000000000000000000000000000000000000000000000000"
                                     "0000000000000000\",\"event\":\"validation\""));
    /* The chain field is the hex SHA-256 of the previous line's bytes. */
    uint8_t hash[SLUICE_HASH_BYTES];
    char hex[SLUICE_HASH_HEX_CHARS + 1], want[100];
    sluice_hash_sha256(lines[3], strlen(lines[3]) - 1, hash);
    sluice_hash_hex(hash, SLUICE_HASH_BYTES, hex);
    snprintf(want, sizeof want, "\"prev\":\"%s\"", hex);
    assert_non_null(strstr(lines[4], want));
    /* An empty log with no head is a valid empty chain. */
    fresh_log(NULL);
    FILE *f = fopen(path, "w");
    fclose(f);
    assert_int_equal(sluice_audit_verify(path, &r), SLUICE_OK);
    assert_int_equal(r.records, 0);
}

static void test_audit_detects_edited_byte(void **state)
{
    (void)state;
    write_events(1, 10);
    size_t n;
    char **lines = read_lines(&n);
    char *who = strstr(lines[3], "alice");
    who[4] = 'f'; /* "alicf" on line 4 */
    write_lines(lines, n);
    expect_broken(4, "record 4 was modified");
}

static void test_audit_detects_edited_last_line(void **state)
{
    (void)state;
    write_events(1, 10);
    size_t n;
    char **lines = read_lines(&n);
    strstr(lines[9], "\"rows\":10")[8] = '1'; /* rows 10 -> 11 */
    write_lines(lines, n);
    expect_broken(10, "record 10 was modified (its hash does not match the head file)");
}

/* Editing the prev field itself breaks both of that line's links: still blamed on that line. */
static void test_audit_detects_edited_prev(void **state)
{
    (void)state;
    write_events(1, 10);
    size_t n;
    char **lines = read_lines(&n);
    char *prev = strstr(lines[5], "\"prev\":\"") + 8;
    prev[10] = prev[10] == 'a' ? 'b' : 'a';
    write_lines(lines, n);
    expect_broken(6, "record 6 was modified");
}

static void test_audit_detects_deleted_line(void **state)
{
    (void)state;
    write_events(1, 10);
    size_t n;
    char **lines = read_lines(&n);
    memmove(&lines[4], &lines[5], (n - 5) * sizeof lines[0]); /* drop line 5 */
    write_lines(lines, n - 1);
    expect_broken(5, "seq is 6 where 5 was expected: records 5..5 are missing here");
}

static void test_audit_detects_swapped_lines(void **state)
{
    (void)state;
    write_events(1, 10);
    size_t n;
    char **lines = read_lines(&n);
    char *t = lines[6];
    lines[6] = lines[7];
    lines[7] = t;
    write_lines(lines, n);
    expect_broken(7, "seq is 8 where 7 was expected");
}

static void test_audit_detects_truncated_tail(void **state)
{
    (void)state;
    write_events(1, 10);
    size_t n;
    char **lines = read_lines(&n);
    write_lines(lines, n - 2);
    expect_broken(9, "the log ends after record 8 but its head file records 10: the tail was "
                     "truncated");
    /* Cut inside a line. */
    write_lines(lines, n);
    FILE *f = fopen(path, "w");
    for (size_t i = 0; i < n - 1; i++)
        fputs(lines[i], f);
    fwrite(lines[n - 1], 1, 20, f);
    fclose(f);
    expect_broken(10, "the log ends after record 9 but its head file records 10");
    /* Everything removed. */
    f = fopen(path, "w");
    fclose(f);
    expect_broken(1, "the tail was truncated");
}

static void test_audit_detects_malformed_line(void **state)
{
    (void)state;
    write_events(1, 5);
    size_t n;
    char **lines = read_lines(&n);
    char garbage[] = "this is not json\n";
    lines[2] = garbage;
    write_lines(lines, n);
    expect_broken(3, "malformed record");
}

static void test_audit_detects_missing_head(void **state)
{
    (void)state;
    write_events(1, 3);
    remove(head);
    expect_broken(0, "is missing, so a truncated tail cannot be ruled out");
}

static void test_audit_reopen_continues_chain(void **state)
{
    (void)state;
    write_events(1, 3);
    write_events(4, 2);
    sluice_audit_report r;
    assert_int_equal(sluice_audit_verify(path, &r), SLUICE_OK);
    assert_int_equal(r.records, 5);
}

static void test_audit_open_refuses_broken_chain(void **state)
{
    (void)state;
    write_events(1, 5);
    size_t n;
    char **lines = read_lines(&n);
    write_lines(lines, n - 1);
    sluice_arena *arena = sluice_arena_new();
    sluice_audit *log = NULL;
    sluice_error err;
    assert_int_equal(sluice_audit_open(path, &log, arena, &err), SLUICE_E_INVALID);
    assert_null(log);
    assert_non_null(strstr(err.message, "the log ends at seq 4 but its head records seq 5"));
    assert_non_null(strstr(err.message, "sluice audit verify"));
    /* Head missing beside records. */
    write_lines(lines, n);
    remove(head);
    assert_int_equal(sluice_audit_open(path, &log, arena, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "is missing beside a non-empty log"));
    sluice_arena_free(arena);
}

/* A crash between the log write and the head write leaves the head one behind: repaired. */
static void test_audit_open_repairs_head_one_behind(void **state)
{
    (void)state;
    write_events(1, 3);
    saved_head saved = save_head();
    write_events(4, 1);
    restore_head(&saved);
    expect_broken(4, "not covered by the head file");
    write_events(5, 1);
    sluice_audit_report r;
    assert_int_equal(sluice_audit_verify(path, &r), SLUICE_OK);
    assert_int_equal(r.records, 5);
}

/* A crash during a group commit can leave the head several records behind: open adopts them
 * when they link to the head, and refuses when one of them was changed. */
static void test_audit_open_adopts_unsynced_tail(void **state)
{
    (void)state;
    write_events(1, 3);
    saved_head saved = save_head();
    write_events(4, 5);
    restore_head(&saved);
    expect_broken(4, "not covered by the head file");
    /* One of the uncovered records edited: not adopted. */
    size_t n;
    char **lines = read_lines(&n);
    char *at = strstr(lines[5], "alice");
    assert_non_null(at);
    at[0] = 'A';
    write_lines(lines, n);
    sluice_arena *arena = sluice_arena_new();
    sluice_audit *log = NULL;
    sluice_error err;
    assert_int_equal(sluice_audit_open(path, &log, arena, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "the log ends at seq 8 but its head records seq 3"));
    at[0] = 'a';
    write_lines(lines, n);
    assert_int_equal(sluice_audit_open(path, &log, arena, &err), SLUICE_OK);
    assert_int_equal(sluice_audit_count(log), 8);
    sluice_audit_close(log);
    sluice_arena_free(arena);
    sluice_audit_report r;
    assert_int_equal(sluice_audit_verify(path, &r), SLUICE_OK);
    assert_int_equal(r.records, 8);
}

/* A head further behind than a group commit can leave is not adopted. */
/* A SIGKILL inside a record's write() leaves a partial last line the head does not cover:
 * verify says so (not a broken chain), open cuts it off and the chain continues. */
static void test_audit_open_drops_torn_record(void **state)
{
    (void)state;
    write_events(1, 4);
    FILE *f = fopen(path, "a");
    fputs("{\"seq\":5,\"prev\":\"00", f); /* the start of record 5, cut short */
    fclose(f);
    expect_broken(5, "not covered by the head file: a crash cut its write short");
    write_events(5, 2);
    sluice_audit_report r;
    assert_int_equal(sluice_audit_verify(path, &r), SLUICE_OK);
    assert_int_equal(r.records, 6);
}

/* A partial line where the head says a complete record was acknowledged is a truncation, and
 * open refuses it rather than cutting evidence off. */
static void test_audit_open_refuses_torn_covered_record(void **state)
{
    (void)state;
    write_events(1, 5);
    size_t n;
    char **lines = read_lines(&n);
    FILE *f = fopen(path, "w");
    for (size_t i = 0; i < n - 1; i++)
        fputs(lines[i], f);
    fwrite(lines[n - 1], 1, 30, f);
    fclose(f);
    sluice_arena *arena = sluice_arena_new();
    sluice_audit *log = NULL;
    sluice_error err;
    assert_int_equal(sluice_audit_open(path, &log, arena, &err), SLUICE_E_INVALID);
    assert_null(log);
    assert_non_null(strstr(err.message, "the log ends at seq 4 but its head records seq 5"));
    expect_broken(5, "the tail was truncated");
    sluice_arena_free(arena);
}

static void test_audit_open_refuses_head_far_behind(void **state)
{
    (void)state;
    write_events(1, 1);
    saved_head saved = save_head();
    sluice_audit *log = NULL;
    assert_int_equal(sluice_audit_open(path, &log, NULL, NULL), SLUICE_OK);
    json_t *event = json_pack("{s:s}", "event", "x");
    for (unsigned i = 0; i < SLUICE_LIMIT_AUDIT_UNSYNCED + 1; i++)
        assert_int_equal(sluice_audit_append(log, event, NULL, NULL), SLUICE_OK);
    json_decref(event);
    sluice_audit_close(log);
    restore_head(&saved);
    sluice_arena *arena = sluice_arena_new();
    sluice_error err;
    assert_int_equal(sluice_audit_open(path, &log, arena, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "but its head records seq 1 with another hash"));
    sluice_arena_free(arena);
}

#define THREADS            8
#define RECORDS_PER_THREAD 50

static void *appender(void *arg)
{
    sluice_audit *log = arg;
    for (int i = 0; i < RECORDS_PER_THREAD; i++) {
        json_t *event = json_pack("{s:s, s:i}", "event", "concurrent", "i", i);
        sluice_status st = sluice_audit_append(log, event, NULL, NULL);
        json_decref(event);
        if (st != SLUICE_OK)
            return (void *)1;
    }
    return NULL;
}

/* Many threads appending at once (sharing group commits) still make one intact chain in which
 * seq is the append order, and the head covers all of it when the appends have returned. */
static void test_audit_concurrent_appends_keep_the_chain(void **state)
{
    (void)state;
    sluice_audit *log = NULL;
    assert_int_equal(sluice_audit_open(path, &log, NULL, NULL), SLUICE_OK);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, appender, log), 0);
    for (int i = 0; i < THREADS; i++) {
        void *rc = NULL;
        pthread_join(t[i], &rc);
        assert_null(rc);
    }
    assert_int_equal(sluice_audit_count(log), THREADS * RECORDS_PER_THREAD);
    sluice_audit_report r;
    assert_int_equal(sluice_audit_verify(path, &r), SLUICE_OK); /* head covers every record */
    assert_int_equal(r.records, THREADS * RECORDS_PER_THREAD);
    sluice_audit_close(log);
}

/* The "ts" of a record comes from the clock the sink was opened with. */
static void test_audit_timestamps_from_the_clock(void **state)
{
    (void)state;
    sluice_manual_clock clock;
    sluice_manual_clock_init(&clock, 1800000000); /* 2027-01-15T08:00:00Z */
    sluice_manual_clock_advance_ms(&clock, 1234);
    sluice_audit_file_options options = { .clock = &clock.clock };
    sluice_audit *log = NULL;
    assert_int_equal(sluice_audit_open_file(path, &options, &log, NULL, NULL), SLUICE_OK);
    json_t *event = json_pack("{s:s}", "event", "x");
    assert_int_equal(sluice_audit_append(log, event, NULL, NULL), SLUICE_OK);
    json_decref(event);
    sluice_audit_close(log);
    size_t n;
    char **lines = read_lines(&n);
    assert_int_equal(n, 1);
    assert_non_null(strstr(lines[0], "\"ts\":\"2027-01-15T08:00:01.234Z\""));
}

static void test_audit_rejects_reserved_fields(void **state)
{
    (void)state;
    sluice_audit *log = NULL;
    assert_int_equal(sluice_audit_open(path, &log, NULL, NULL), SLUICE_OK);
    sluice_arena *arena = sluice_arena_new();
    sluice_error err;
    json_t *event = json_pack("{s:i}", "seq", 99);
    assert_int_equal(sluice_audit_append(log, event, arena, &err), SLUICE_E_INVALID);
    assert_string_equal(err.message, "audit event field 'seq' is reserved for the chain");
    json_decref(event);
    event = json_array();
    assert_int_equal(sluice_audit_append(log, event, arena, &err), SLUICE_E_INVALID);
    json_decref(event);
    assert_int_equal(sluice_audit_count(log), 0);
    sluice_audit_close(log);
    sluice_arena_free(arena);
}

/* An event given as its members' text makes the record its object makes: the same line after
 * the chain's members, and it verifies; "" is the empty event. */
static void test_audit_members_text_is_the_object_record(void **state)
{
    (void)state;
    sluice_audit *log = NULL;
    assert_int_equal(sluice_audit_open(path, &log, NULL, NULL), SLUICE_OK);
    const char *texts[] = { "\"event\":\"validate\",\"code\":\"SELECT 1\\n\",\"rows\":[1,{}]", "" };
    for (size_t i = 0; i < 2; i++) {
        json_t *event = json_loads(i == 0 ? "{\"event\":\"validate\",\"code\":\"SELECT "
                                            "1\\n\",\"rows\":[1,{}]}"
                                          : "{}",
                                   0, NULL);
        assert_non_null(event);
        assert_int_equal(sluice_audit_append(log, event, NULL, NULL), SLUICE_OK);
        assert_int_equal(sluice_audit_append_members(log, texts[i], strlen(texts[i]), NULL, NULL),
                         SLUICE_OK);
        json_decref(event);
    }
    sluice_audit_close(log);
    size_t n;
    char **lines = read_lines(&n);
    assert_int_equal(n, 4);
    for (size_t i = 0; i < 4; i += 2) {
        /* after "prev":"<64 hex>" */
        const char *a = strstr(lines[i], "\"prev\":") + 8 + SLUICE_HASH_HEX_CHARS + 1;
        const char *b = strstr(lines[i + 1], "\"prev\":") + 8 + SLUICE_HASH_HEX_CHARS + 1;
        assert_string_equal(a, b);
    }
    assert_non_null(strstr(lines[3], "\"}\n"));
    sluice_audit_report report;
    assert_int_equal(sluice_audit_verify(path, &report), SLUICE_OK);
    assert_int_equal(report.records, 4);
}

static void test_audit_second_writer_refused(void **state)
{
    (void)state;
    sluice_audit *a = NULL, *b = NULL;
    assert_int_equal(sluice_audit_open(path, &a, NULL, NULL), SLUICE_OK);
    assert_int_equal(sluice_audit_open(path, &b, NULL, NULL), SLUICE_E_IO);
    sluice_audit_close(a);
}

/* The record as it was made before the writer: the chain's members and a copy of the event's in
 * one object, dumped by jansson; NULL when jansson fails. */
static char *dumped_record(uint64_t seq, const char *ts, const uint8_t *last_hash, json_t *event)
{
    char prev[SLUICE_HASH_HEX_CHARS + 1];
    sluice_hash_hex(last_hash, SLUICE_HASH_BYTES, prev);
    json_t *rec = json_pack("{s:I, s:s, s:s}", "seq", (json_int_t)seq, "ts", ts, "prev", prev);
    const char *key;
    json_t *value;
    json_object_foreach(event, key, value)
    {
        assert_int_equal(json_object_set(rec, key, value), 0);
    }
    char *text = json_dumps(rec, JSON_COMPACT);
    json_decref(rec);
    return text;
}

/* Renders event as record seq both ways and requires the same bytes and the hash of those. */
static void expect_rendered_as_dumped(uint64_t seq, json_t *event)
{
    sluice_manual_clock clock;
    sluice_manual_clock_init(&clock, 1800000000);
    sluice_manual_clock_advance_ms(&clock, 7);
    uint8_t last[SLUICE_HASH_BYTES], hash[SLUICE_HASH_BYTES], want_hash[SLUICE_HASH_BYTES];
    for (size_t i = 0; i < sizeof last; i++)
        last[i] = (uint8_t)(i * 37 + seq);
    sluice_buf members;
    sluice_buf_init(&members, NULL, 0);
    assert_int_equal(sluice_audit_event_members(&members, event, NULL, NULL), SLUICE_OK);
    size_t len = 0;
    char *line = sluice_audit_render_record(seq, last, &clock.clock, sluice_buf_cstr(&members),
                                            members.len, &len, hash);
    sluice_buf_dispose(&members);
    char *want = dumped_record(seq, "2027-01-15T08:00:00.007Z", last, event);
    assert_non_null(line);
    assert_non_null(want);
    size_t want_len = strlen(want);
    if (len != want_len + 1 || memcmp(line, want, want_len) != 0)
        fail_msg("rendered %.*s\n   dumped %s", (int)len, line, want);
    assert_int_equal(line[want_len], '\n');
    sluice_hash_sha256(want, want_len, want_hash);
    assert_memory_equal(hash, want_hash, sizeof hash);
    free(line);
    free(want);
}

static void test_audit_record_is_jansson_dump(void **state)
{
    (void)state;
    const char *events[] = {
        "{}",
        "{\"event\":\"validation\",\"user\":\"alice\",\"groups\":[],\"risk\":\"low\"}",
        "{\"\":1,\"k\\\"ey\\n\":\"v\",\"ctl\":\"\\u0001\\u001f\\b\\f\\n\\r\\t\\\\\\\"/\"}",
        "{\"utf8\":\"\u00e9\u4e2d\U0001f600\",\"nested\":{\"a\":[1,[2,{\"b\":null}],{}],\"c\":[]}}",
        "{\"ints\":[0,-1,9223372036854775807,-9223372036854775808],\"bools\":[true,false,null]}",
        "{\"reals\":[0.5,-2.25,1e300,0.1,3.0,1.7976931348623157e308,5e-324]}",
        "{\"code\":\"SELECT 1 -- newline\\nand \\\"quotes\\\"\",\"rows\":7,\"truncated\":true}",
    };
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        json_error_t jerr;
        json_t *event = json_loads(events[i], 0, &jerr);
        if (event == NULL)
            fail_msg("event %zu: %s", i, jerr.text);
        expect_rendered_as_dumped(i + 1, event);
        expect_rendered_as_dumped(UINT64_MAX - i, event);
        json_decref(event);
    }
}

/* A splice placeholder fails the record, as json_dumps failed on it: such a value is the wire's,
 * never an audit record's. */
static void test_audit_record_refuses_a_splice(void **state)
{
    (void)state;
    json_t *event = json_pack("{s:s, s:o}", "event", "x", "rows", sluice_json_splice_new("[1]", 3));
    assert_non_null(event);
    sluice_buf members;
    sluice_buf_init(&members, NULL, 0);
    sluice_error err = { 0 };
    sluice_arena *arena = sluice_arena_new();
    assert_int_equal(sluice_audit_event_members(&members, event, arena, &err), SLUICE_E_NOMEM);
    assert_string_equal(err.message, "out of memory building an audit record");
    sluice_buf_dispose(&members);
    sluice_arena_free(arena);
    json_decref(event);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_audit_chain_intact, fresh_log),
        cmocka_unit_test_setup(test_audit_detects_edited_byte, fresh_log),
        cmocka_unit_test_setup(test_audit_detects_edited_last_line, fresh_log),
        cmocka_unit_test_setup(test_audit_detects_edited_prev, fresh_log),
        cmocka_unit_test_setup(test_audit_detects_deleted_line, fresh_log),
        cmocka_unit_test_setup(test_audit_detects_swapped_lines, fresh_log),
        cmocka_unit_test_setup(test_audit_detects_truncated_tail, fresh_log),
        cmocka_unit_test_setup(test_audit_detects_malformed_line, fresh_log),
        cmocka_unit_test_setup(test_audit_detects_missing_head, fresh_log),
        cmocka_unit_test_setup(test_audit_reopen_continues_chain, fresh_log),
        cmocka_unit_test_setup(test_audit_open_refuses_broken_chain, fresh_log),
        cmocka_unit_test_setup(test_audit_open_repairs_head_one_behind, fresh_log),
        cmocka_unit_test_setup(test_audit_open_adopts_unsynced_tail, fresh_log),
        cmocka_unit_test_setup(test_audit_open_refuses_head_far_behind, fresh_log),
        cmocka_unit_test_setup(test_audit_open_drops_torn_record, fresh_log),
        cmocka_unit_test_setup(test_audit_open_refuses_torn_covered_record, fresh_log),
        cmocka_unit_test_setup(test_audit_concurrent_appends_keep_the_chain, fresh_log),
        cmocka_unit_test_setup(test_audit_timestamps_from_the_clock, fresh_log),
        cmocka_unit_test_setup(test_audit_rejects_reserved_fields, fresh_log),
        cmocka_unit_test_setup(test_audit_second_writer_refused, fresh_log),
        cmocka_unit_test_setup(test_audit_members_text_is_the_object_record, fresh_log),
        cmocka_unit_test(test_audit_record_is_jansson_dump),
        cmocka_unit_test(test_audit_record_refuses_a_splice),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
