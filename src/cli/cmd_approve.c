/*
 * cmd_approve.c — `sluice approve [-c CONFIG] ID [--reject] [--as ADMIN]`: an administrator
 * approves (or rejects) a pending execute_code request recorded in the approval store: the
 * Redis replicas share ([state] redis_url), else the file beside the config's audit log.
 *
 * Owns: option parsing and the audit record of the decision when the audit log is free. While
 * a server holds the audit log (it is locked against a second writer), the decision is stored
 * as not yet audited and the server writes its record when it next reads the store.
 * With [state] audit_postgres the record goes straight to the shared table.
 * Does not own: the rules of a decision (state/approval_file.c, approval_redis.c).
 */
#include "cli/cli.h"
#include "config/config.h"
#include "core/clock.h"
#include "state/approval.h"
#include "state/audit.h"
#include "state/audit_pg.h"
#include "state/state_redis.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sluice_cmd_approve(int argc, char **argv);

typedef struct approve_options {
    const char *config_path;
    const char *id;
    const char *admin;
    bool reject;
    bool list;
} approve_options;

static void approve_usage(FILE *out)
{
    fprintf(out, "usage: sluice approve [-c FILE] ID [--reject] [--as ADMIN]\n"
                 "       sluice approve [-c FILE] --list\n\n"
                 "  -c, --config FILE   configuration (default sluice.toml)\n"
                 "  ID                  the approval id execute_code named\n"
                 "  --reject            refuse it instead (final)\n"
                 "  --as ADMIN          who decides, for the audit log (default $USER)\n"
                 "  --list              show the pending requests (id, who, expiry, what)\n");
}

static int parse(int argc, char **argv, approve_options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if ((strcmp(a, "-c") == 0 || strcmp(a, "--config") == 0) && has_value) {
            o->config_path = argv[++i];
        } else if (strcmp(a, "--as") == 0 && has_value) {
            o->admin = argv[++i];
        } else if (strcmp(a, "--list") == 0) {
            o->list = true;
        } else if (strcmp(a, "--reject") == 0) {
            o->reject = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            approve_usage(stdout);
            return SLUICE_EXIT_OK;
        } else if (a[0] != '-' && o->id == NULL) {
            o->id = a;
        } else {
            fprintf(stderr, "sluice approve: unknown or incomplete option '%s'\n", a);
            approve_usage(stderr);
            return SLUICE_EXIT_USAGE;
        }
    }
    if ((o->id == NULL) == !o->list) {
        fprintf(stderr, "sluice approve: give one approval ID, or --list\n");
        approve_usage(stderr);
        return SLUICE_EXIT_USAGE;
    }
    if (o->admin == NULL) {
        const char *user = getenv("SUDO_USER") != NULL ? getenv("SUDO_USER") : getenv("USER");
        o->admin = user != NULL && user[0] != '\0' ? user : "admin";
    }
    return -1;
}

/* "2026-12-01T09:51:12Z" (UTC), what a person reads and a script can parse. */
static void iso_time(int64_t epoch_s, char out[SLUICE_CLOCK_UTC_TEXT])
{
    if (!sluice_clock_utc_text(epoch_s, out))
        snprintf(out, SLUICE_CLOCK_UTC_TEXT, "@%lld", (long long)epoch_s);
}

/* The decision's audit record, written here when no server holds the log. */
static void audit_decision(sluice_audit *log,
                           const sluice_config *config,
                           const sluice_approval *d,
                           sluice_arena *arena)
{
    json_t *record = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I}", "decision",
                               d->state == SLUICE_APPROVAL_APPROVED ? "approved" : "rejected",
                               "approval_id", d->id, "requested_by", d->user, "summary", d->summary,
                               "event", "approval_decision", "user", d->decided_by, "auth", "cli",
                               "server", config->code_mode.server_id, "decided_at",
                               (json_int_t)d->decided_at, "expires_at", (json_int_t)d->expires_at);
    sluice_error err = { 0 };
    if (sluice_audit_append(log, record, arena, &err) != SLUICE_OK)
        fprintf(stderr, "sluice approve: the decision is stored but its audit record failed: %s\n",
                err.message);
    json_decref(record);
}

/* The approval store the servers use: Redis when [state] redis_url is set, else the file
 * beside the audit log. NULL with a message on stderr. */
static sluice_approval_store *
open_store(const sluice_config *config, const char **where, sluice_arena *arena)
{
    sluice_error err = { 0 };
    sluice_approval_store *store = NULL;
    if (config->state.redis_url != NULL) {
        sluice_replay *unused = NULL;
        *where = config->state.redis_url;
        if (sluice_state_redis_open(&config->state, &unused, &store, arena, &err) != SLUICE_OK) {
            fprintf(stderr, "sluice approve: %s\n", err.message);
            return NULL;
        }
        sluice_replay_close(unused);
        return store;
    }
    const char *audit_path = config->code_mode.audit_log;
    if (audit_path == NULL) {
        fprintf(stderr,
                "sluice approve: %s has no [code_mode] audit_log nor [state] redis_url, so there "
                "is no approval store (it lives beside the audit log, or in Redis)\n",
                config->path);
        return NULL;
    }
    *where = sluice_arena_printf(arena, "%s.approvals", audit_path);
    if (sluice_approval_open(*where, &store, arena, &err) != SLUICE_OK) {
        fprintf(stderr, "sluice approve: %s\n", err.message);
        return NULL;
    }
    return store;
}

/* The audit sink the decision goes to, or NULL when a running server holds the file (it audits
 * the decision when it reads it). */
static sluice_audit *open_audit(const sluice_config *config, sluice_arena *arena)
{
    sluice_audit *log = NULL;
    sluice_error err = { 0 };
    const sluice_config_state *s = &config->state;
    if (s->audit_postgres != NULL) {
        const sluice_audit_pg_options o = { s->audit_postgres, s->audit_postgres_password_file,
                                            s->audit_postgres_password_env, s->audit_postgres_table,
                                            NULL };
        return sluice_audit_open_pg(&o, &log, arena, &err) == SLUICE_OK ? log : NULL;
    }
    if (config->code_mode.audit_log == NULL ||
        sluice_audit_open(config->code_mode.audit_log, &log, arena, &err) != SLUICE_OK)
        return NULL;
    return log;
}

static int decide(const approve_options *o, const sluice_config *config, sluice_arena *arena)
{
    sluice_error err = { 0 };
    const char *path = "";
    sluice_approval_store *store = open_store(config, &path, arena);
    if (store == NULL)
        return SLUICE_EXIT_RUNTIME;
    if (o->list) {
        sluice_approval items[64];
        size_t n = sluice_approval_pending(store, sluice_clock_now_s(NULL), items, 64);
        if (n == 0)
            printf("no pending approvals (store %s)\n", path);
        for (size_t i = 0; i < n && i < 64; i++) {
            char when[SLUICE_CLOCK_UTC_TEXT];
            iso_time(items[i].expires_at, when);
            printf("%s  %s  expires %s  %s\n", items[i].id, items[i].user, when, items[i].summary);
        }
        if (n > 64)
            printf("... and %zu more\n", n - 64);
        sluice_approval_close(store);
        return SLUICE_EXIT_OK;
    }
    sluice_audit *log = open_audit(config, arena);
    const sluice_approval_decision decision = { o->id, !o->reject, o->admin, log != NULL };
    sluice_approval d;
    sluice_status st =
        sluice_approval_decide(store, &decision, sluice_clock_now_s(NULL), &d, arena, &err);
    int rc = SLUICE_EXIT_OK;
    if (st == SLUICE_OK) {
        if (log != NULL)
            audit_decision(log, config, &d, arena);
        printf("%s %s by %s: %s\n", d.id, sluice_approval_state_name(d.state), d.decided_by,
               d.summary);
    } else {
        fprintf(stderr, "sluice approve: %s\n", err.message);
        rc = st == SLUICE_E_IO ? SLUICE_EXIT_RUNTIME : SLUICE_EXIT_FAIL;
    }
    sluice_audit_close(log);
    sluice_approval_close(store);
    return rc;
}

int sluice_cmd_approve(int argc, char **argv)
{
    approve_options o = { .config_path = "sluice.toml" };
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_config *config = NULL;
    if (sluice_config_load(o.config_path, &config, arena, &err) != SLUICE_OK) {
        fputs(sluice_error_render(arena, &err, NULL, 0), stderr);
        sluice_arena_free(arena);
        return SLUICE_EXIT_FAIL;
    }
    rc = decide(&o, config, arena);
    sluice_config_free(config);
    sluice_arena_free(arena);
    return rc;
}
