/*
 * cmd_audit.c — `sluice audit verify FILE` and `sluice audit verify --pg CONNINFO`: check an
 * audit trail's hash chain, in a file (with the chains FILE.wN other processes wrote beside it)
 * or in the PostgreSQL table replicas share; `sluice audit search` (the same two sources): the
 * records of a principal, a time range, an action, an event, a decision or a code hash, as JSON
 * lines (each with its "chain"), every chain verified as it is read.
 *
 * Prints "FILE: N records, chain intact" (exit 0; a line per writer chain FILE.wN as well) or
 * "FILE:LINE: <what is wrong>" (exit 1), for PostgreSQL "TABLE: N records, chain intact" or
 * "TABLE: record N: <what is wrong>"; exit 3 when the file or the database cannot be read. Does
 * not own the checking (state/audit.h, state/audit_pg.h).
 */
#include "cli/cli.h"
#include "state/audit.h"
#include "state/audit_pg.h"
#include "state/audit_search.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fprintf(out, "usage: sluice audit verify FILE\n"
                 "  checks that no record of the audit log FILE was edited, removed, reordered\n"
                 "  or cut off the end (using FILE.head); rotated files FILE.1, FILE.2, ...\n"
                 "  are checked first, and each must continue the one before; then the chains\n"
                 "  FILE.w2, FILE.w3, ... that other sluice processes wrote while one held FILE\n"
                 "usage: sluice audit verify --pg CONNINFO [--table NAME]\n"
                 "                           [--password-file FILE | --password-env VAR]\n"
                 "  the same checks on the PostgreSQL audit table ([state] audit_postgres;\n"
                 "  default table sluice_audit, its head row in NAME_head)\n"
                 "usage: sluice audit search (FILE | --pg CONNINFO [--table NAME]\n"
                 "                           [--password-file FILE | --password-env VAR])\n"
                 "                           [--user U] [--since TIME] [--until TIME]\n"
                 "                           [--action read|write|delete|admin] [--event E]\n"
                 "                           [--decision D] [--code-hash HEX] [--last N]\n"
                 "  prints the matching records as JSON lines, oldest first, chain by chain\n"
                 "  (FILE with its rotated files, then FILE.w2, ...; each record gets \"chain\"),\n"
                 "  verifying every chain as it reads: a record is printed only once the chain\n"
                 "  proved it, and a broken chain is reported (exit 1) after what it proved.\n"
                 "  TIME is UTC: YYYY-MM-DD[THH[:MM[:SS[.fff]]]][Z]; --since is inclusive,\n"
                 "  --until exclusive. --last N prints only the last N matches\n");
}

int sluice_cmd_audit(int argc, char **argv);

/* `sluice audit verify --pg CONNINFO [options]` */
static int verify_pg(int argc, char **argv)
{
    sluice_audit_pg_options o = { .conninfo = argv[3] };
    for (int i = 4; i < argc; i += 2) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v != NULL && strcmp(argv[i], "--table") == 0)
            o.table = v;
        else if (v != NULL && strcmp(argv[i], "--password-file") == 0)
            o.password_file = v;
        else if (v != NULL && strcmp(argv[i], "--password-env") == 0)
            o.password_env = v;
        else {
            fprintf(stderr, "sluice audit verify: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return SLUICE_EXIT_USAGE;
        }
    }
    const char *table = o.table != NULL ? o.table : "sluice_audit";
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_audit_report report;
    sluice_status st =
        arena != NULL ? sluice_audit_verify_pg(&o, &report, arena, &err) : SLUICE_E_NOMEM;
    int rc = SLUICE_EXIT_OK;
    if (st == SLUICE_OK) {
        printf("%s: %" PRIu64 " records, chain intact\n", table, report.records);
    } else if (st == SLUICE_E_INVALID) {
        if (report.line > 0)
            printf("%s: record %zu: %s\n", table, report.line, report.what);
        else
            printf("%s: %s\n", table, report.what);
        rc = SLUICE_EXIT_FAIL;
    } else {
        fprintf(stderr, "sluice audit verify: %s\n",
                err.message != NULL ? err.message : sluice_status_name(st));
        rc = SLUICE_EXIT_RUNTIME;
    }
    sluice_arena_free(arena);
    return rc;
}

/* Verifies one writer chain (with its rotated files) and prints the verdict; the exit code. */
static int verify_one(const char *path)
{
    sluice_audit_report report;
    sluice_status st = sluice_audit_verify(path, &report);
    if (st == SLUICE_OK) {
        printf("%s: %" PRIu64 " records, chain intact", path, report.records);
        if (report.files > 1)
            printf(" across %u files (%u rotated)", report.files, report.files - 1);
        printf("\n");
        return SLUICE_EXIT_OK;
    }
    if (report.file[0] != '\0')
        path = report.file; /* the problem is in a rotated file */
    if (report.line > 0)
        printf("%s:%zu: %s\n", path, report.line, report.what);
    else
        printf("%s: %s\n", path, report.what);
    return st == SLUICE_E_IO ? SLUICE_EXIT_RUNTIME : SLUICE_EXIT_FAIL;
}

/* The matches printed, or (--last N) the last N kept to print at the end. */
typedef struct printer {
    size_t last; /* 0: print as found */
    char **ring;
    size_t next, held;
    bool nomem;
} printer;

static void found(void *ctx, const char *chain, json_t *record)
{
    printer *p = ctx;
    char *line = json_object_set_new(record, "chain", json_string(chain)) == 0
                     ? json_dumps(record, JSON_COMPACT | JSON_ENSURE_ASCII)
                     : NULL;
    if (line == NULL) {
        p->nomem = true;
        return;
    }
    if (p->last == 0) {
        puts(line);
        free(line);
        return;
    }
    free(p->ring[p->next]);
    p->ring[p->next] = line;
    p->next = (p->next + 1) % p->last;
    if (p->held < p->last)
        p->held++;
}

static void print_held(printer *p)
{
    for (size_t i = 0; i < p->held; i++) {
        size_t at = (p->next + p->last - p->held + i) % p->last;
        puts(p->ring[at]);
    }
    for (size_t i = 0; i < p->last; i++)
        free(p->ring[i]);
    free(p->ring);
}

/* Parses the search options after `search SOURCE` (i is the first); false with a message. */
static bool search_options(
    int argc, char **argv, int i, sluice_audit_query *q, sluice_audit_pg_options *pg, size_t *last)
{
    for (; i < argc; i += 2) {
        const char *opt = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **slot = NULL;
        if (strcmp(opt, "--user") == 0)
            slot = &q->user;
        else if (strcmp(opt, "--since") == 0)
            slot = &q->since;
        else if (strcmp(opt, "--until") == 0)
            slot = &q->until;
        else if (strcmp(opt, "--action") == 0)
            slot = &q->action;
        else if (strcmp(opt, "--event") == 0)
            slot = &q->event;
        else if (strcmp(opt, "--decision") == 0)
            slot = &q->decision;
        else if (strcmp(opt, "--code-hash") == 0)
            slot = &q->code_hash;
        else if (pg != NULL && strcmp(opt, "--table") == 0)
            slot = &pg->table;
        else if (pg != NULL && strcmp(opt, "--password-file") == 0)
            slot = &pg->password_file;
        else if (pg != NULL && strcmp(opt, "--password-env") == 0)
            slot = &pg->password_env;
        if (v != NULL && strcmp(opt, "--last") == 0) {
            char *end = NULL;
            long n = strtol(v, &end, 10);
            if (end == v || *end != '\0' || n < 1 || n > 1000000) {
                fprintf(stderr, "sluice audit search: --last '%s' is not 1 .. 1000000\n", v);
                return false;
            }
            *last = (size_t)n;
            continue;
        }
        if (slot == NULL || v == NULL) {
            fprintf(stderr, "sluice audit search: %s '%s'\n",
                    slot == NULL ? "unknown option" : "no value after", opt);
            return false;
        }
        *slot = v;
    }
    return true;
}

/* `sluice audit search (FILE | --pg CONNINFO) [filters]` */
static int search(int argc, char **argv)
{
    sluice_audit_query q = { 0 };
    sluice_audit_pg_options pg = { 0 };
    bool on_pg = argc >= 4 && strcmp(argv[2], "--pg") == 0;
    if (on_pg)
        pg.conninfo = argv[3];
    size_t last = 0;
    if (argc < 3 || !search_options(argc, argv, on_pg ? 4 : 3, &q, on_pg ? &pg : NULL, &last)) {
        usage(stderr);
        return SLUICE_EXIT_USAGE;
    }
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    if (arena == NULL || sluice_audit_query_check(&q, arena, &err) != SLUICE_OK) {
        fprintf(stderr, "sluice audit search: %s\n", arena != NULL ? err.message : "out of memory");
        sluice_arena_free(arena);
        return arena != NULL ? SLUICE_EXIT_USAGE : SLUICE_EXIT_RUNTIME;
    }
    printer p = { .last = last };
    if (last > 0 && (p.ring = calloc(last, sizeof *p.ring)) == NULL) {
        sluice_arena_free(arena);
        return SLUICE_EXIT_RUNTIME;
    }
    sluice_audit_search_report r;
    sluice_status st = on_pg ? sluice_audit_search_pg(&pg, &q, found, &p, &r, arena, &err)
                             : sluice_audit_search(argv[2], &q, found, &p, &r);
    if (last > 0)
        print_held(&p);
    fflush(stdout);
    int rc = SLUICE_EXIT_OK;
    if (p.nomem || st == SLUICE_E_NOMEM || st == SLUICE_E_IO) {
        const char *why = st == SLUICE_E_IO && on_pg && err.message != NULL ? err.message
                          : st == SLUICE_E_IO                               ? r.first_problem.what
                                                                            : "out of memory";
        fprintf(stderr, "sluice audit search: %s\n", why);
        rc = SLUICE_EXIT_RUNTIME;
    } else if (r.problem_chain != NULL) {
        const sluice_audit_report *b = &r.first_problem;
        fprintf(stderr,
                "sluice audit search: chain %s is broken at %s%s%zu: %s (its records from there "
                "on were not searched; run sluice audit verify)\n",
                r.problem_chain, b->file, on_pg ? ": record " : ":", b->line, b->what);
        rc = SLUICE_EXIT_FAIL;
    }
    fprintf(stderr,
            "sluice audit search: %" PRIu64 " of %" PRIu64 " records matched in %u chain%s%s\n",
            r.matches, r.records, r.chains, r.chains == 1 ? "" : "s",
            rc == SLUICE_EXIT_OK ? ", every chain intact" : "");
    sluice_arena_free(arena);
    return rc;
}

int sluice_cmd_audit(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return SLUICE_EXIT_OK;
    }
    if (argc >= 4 && strcmp(argv[1], "verify") == 0 && strcmp(argv[2], "--pg") == 0)
        return verify_pg(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "search") == 0)
        return search(argc, argv);
    if (argc != 3 || strcmp(argv[1], "verify") != 0) {
        usage(stderr);
        return SLUICE_EXIT_USAGE;
    }
    const char *path = argv[2];
    int rc = verify_one(path);
    /* the chains other processes wrote while one held path (state/audit.h: writer slots) */
    for (unsigned k = 2; k <= SLUICE_LIMIT_AUDIT_WRITERS && rc == SLUICE_EXIT_OK; k++) {
        char file[4096];
        if (sluice_audit_writer_path(path, k, file, sizeof file) && access(file, F_OK) == 0)
            rc = verify_one(file);
    }
    return rc;
}
