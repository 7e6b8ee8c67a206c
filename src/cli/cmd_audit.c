/*
 * cmd_audit.c — `sluice audit verify FILE` and `sluice audit verify --pg CONNINFO`: check an
 * audit trail's hash chain, in a file (with the chains FILE.wN other processes wrote beside it)
 * or in the PostgreSQL table replicas share.
 *
 * Prints "FILE: N records, chain intact" (exit 0; a line per writer chain FILE.wN as well) or
 * "FILE:LINE: <what is wrong>" (exit 1), for PostgreSQL "TABLE: N records, chain intact" or
 * "TABLE: record N: <what is wrong>"; exit 3 when the file or the database cannot be read. Does
 * not own the checking (state/audit.h, state/audit_pg.h).
 */
#include "cli/cli.h"
#include "state/audit.h"
#include "state/audit_pg.h"

#include <inttypes.h>
#include <stdio.h>
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
                 "  default table sluice_audit, its head row in NAME_head)\n");
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

int sluice_cmd_audit(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return SLUICE_EXIT_OK;
    }
    if (argc >= 4 && strcmp(argv[1], "verify") == 0 && strcmp(argv[2], "--pg") == 0)
        return verify_pg(argc, argv);
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
