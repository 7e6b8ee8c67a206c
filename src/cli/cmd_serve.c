/*
 * cmd_serve.c — `sluice serve -c FILE [--stdio | --http ADDR]`: load the config, build the MCP
 * server (config surface, code mode, curated tools) and serve it on one transport.
 * `sluice serve --db FILE` serves one database with the built-in config (cli/quickstart.h).
 *
 * Owns: option parsing and the order things start and stop in. Does not own any protocol.
 */
#include "auth/from_config.h"
#include "cli/cli.h"
#include "cli/quickstart.h"
#include "cli/startup.h"
#include "codemode/codemode.h"
#include "config/config.h"
#include "core/clock_file.h"
#include "core/limits.h"
#include "core/loader_pages.h"
#include "core/log.h"
#include "exec/catalog.h"
#include "exec/executor.h"
#include "mcp/server.h"
#include "querymode/querymode.h"
#include "token/key_store.h"
#include "transport/http.h"
#include "transport/http_admin.h"
#include "transport/http_admin_key.h"
#include "transport/stdio.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sluice_cmd_serve(int argc, char **argv);

typedef struct serve_options {
    const char *config_path;
    const char *db_path;    /* --db: zero-config start */
    const char *audit_path; /* --audit, with --db */
    const char *http_addr;  /* NULL with stdio */
    bool stdio;
    const char *log_level;
    const char *test_clock; /* --test-clock: wall time read from this file (tests only) */
} serve_options;

static void serve_usage(FILE *out)
{
    fprintf(out,
            "usage: sluice serve -c FILE [--stdio | --http ADDR] [--log-level LEVEL]\n"
            "       sluice serve --db DBFILE [--audit FILE] [--stdio | --http ADDR]\n\n"
            "  -c, --config FILE   configuration (see docs/config.md)\n"
            "  --db DBFILE         no config: read-only SQL code mode on DBFILE (.duckdb,\n"
            "                      .ddb: DuckDB; .sqlite, .sqlite3, .db: SQLite) with an\n"
            "                      ephemeral signing key and no audit log\n"
            "  --audit FILE        with --db: keep a hash-chained audit log in FILE\n"
            "  --stdio             serve one client on stdin/stdout (logs go to stderr)\n"
            "  --http ADDR         serve Streamable HTTP on ADDR (default: [server] listen)\n"
            "  --log-level LEVEL   debug | info | warn | error\n"
            "  --test-clock FILE   tests only: the wall clock is the milliseconds since the\n"
            "                      epoch written in FILE (docs/cli.md); never in production\n");
}

static int parse_options(int argc, char **argv, serve_options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if ((strcmp(a, "-c") == 0 || strcmp(a, "--config") == 0) && has_value) {
            o->config_path = argv[++i];
        } else if (strcmp(a, "--db") == 0 && has_value) {
            o->db_path = argv[++i];
        } else if (strcmp(a, "--audit") == 0 && has_value) {
            o->audit_path = argv[++i];
        } else if (strcmp(a, "--stdio") == 0) {
            o->stdio = true;
        } else if (strcmp(a, "--http") == 0 && has_value) {
            o->http_addr = argv[++i];
        } else if (strcmp(a, "--log-level") == 0 && has_value) {
            o->log_level = argv[++i];
        } else if (strcmp(a, "--test-clock") == 0 && has_value) {
            o->test_clock = argv[++i];
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            serve_usage(stdout);
            return SLUICE_EXIT_OK;
        } else {
            fprintf(stderr, "sluice serve: unknown or incomplete option '%s'\n", a);
            serve_usage(stderr);
            return SLUICE_EXIT_USAGE;
        }
    }
    if ((o->config_path == NULL) == (o->db_path == NULL)) {
        fprintf(stderr, "sluice serve: give -c FILE or --db DBFILE (one of them)\n");
        serve_usage(stderr);
        return SLUICE_EXIT_USAGE;
    }
    if (o->audit_path != NULL && o->db_path == NULL) {
        fprintf(stderr, "sluice serve: --audit goes with --db (with -c, set [code_mode] "
                        "audit_log)\n");
        return SLUICE_EXIT_USAGE;
    }
    if (o->db_path != NULL && sluice_quickstart_engine(o->db_path) == NULL) {
        fprintf(stderr,
                "sluice serve: cannot tell the engine of '%s' from its name: use .duckdb "
                "or .ddb (DuckDB), .sqlite, .sqlite3 or .db (SQLite), or write a config "
                "(sluice init)\n",
                o->db_path);
        return SLUICE_EXIT_USAGE;
    }
    if (o->stdio && o->http_addr != NULL) {
        fprintf(stderr, "sluice serve: choose one transport: --stdio or --http\n");
        return SLUICE_EXIT_USAGE;
    }
    return -1;
}

static bool apply_log_level(const char *name)
{
    static const char *const names[] = { "debug", "info", "warn", "error" };
    for (int i = 0; i < 4; i++) {
        if (strcmp(name, names[i]) == 0) {
            sluice_log_set_level((sluice_log_level)i);
            return true;
        }
    }
    return false;
}

static sluice_status
serve_stdio(const sluice_config *config, sluice_mcp_server *server, sluice_error *err)
{
    sluice_identity identity = {
        .user_id = config->identity.user,
        .groups = config->identity.groups.items,
        .group_count = config->identity.groups.count,
        .method = "stdio-config",
    };
    sluice_log(SLUICE_LOG_INFO, "serving %s on stdio as user '%s'", config->server.name,
               identity.user_id);
    return sluice_stdio_serve(server, &identity, err);
}

/* "host:port" / "[v6]:port" into the HTTP options (bind address in arena). */
static sluice_status
parse_listen(sluice_arena *arena, const char *text, sluice_http_options *opts, sluice_error *err)
{
    const char *colon = strrchr(text, ':');
    char *end = NULL;
    long port = colon != NULL ? strtol(colon + 1, &end, 10) : -1;
    if (colon == NULL || end == colon + 1 || *end != '\0' || port < 0 || port > 65535)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "'%s' is not host:port (e.g. 127.0.0.1:8808)", text);
    const char *host = text;
    size_t host_len = (size_t)(colon - text);
    if (host_len >= 2 && host[0] == '[' && host[host_len - 1] == ']') {
        host++;
        host_len -= 2;
    }
    opts->bind_address = sluice_arena_strndup(arena, host, host_len);
    opts->port = (uint16_t)port;
    return opts->bind_address != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

static volatile sig_atomic_t stop_requested;
/* The keyring SIGHUP re-reads; set before the handler is installed. */
static sluice_key_store *volatile reload_keys;

/* Counts: the first signal starts the graceful stop, a second one cuts the drain short. */
static void on_signal(int sig)
{
    (void)sig;
    if (stop_requested < 2)
        stop_requested++;
}

/* Graceful stop: refuse new MCP requests and let the running ones answer, for at most
 * SLUICE_LIMIT_SHUTDOWN_DRAIN_SECONDS or until a second signal; sluice_http_stop then cancels
 * what is left (an execution cancelled so is audited as failed, with the reason). */
static void drain_http(sluice_http_server *http)
{
    int left = sluice_http_drain(http, 0);
    if (left > 0)
        sluice_log(SLUICE_LOG_INFO, "stopping: waiting for %d running request(s)", left);
    for (unsigned waited = 0;
         left > 0 && stop_requested < 2 && waited < SLUICE_LIMIT_SHUTDOWN_DRAIN_SECONDS * 10u;
         waited++)
        left = sluice_http_drain(http, 100);
    if (left > 0)
        sluice_log(SLUICE_LOG_WARN, "stopping: cancelling %d request(s) still running", left);
}

/* SIGHUP: re-read the token keys and the backends' catalogs (lock-free atomic stores; the next
 * token use or serve-loop tick reloads the keys, the next analysis the catalog). SA_RESTART so
 * stdio's blocking read carries on. */
static void on_sighup(int sig)
{
    (void)sig;
    sluice_key_store_request_reload(reload_keys);
    sluice_executor_request_catalog_reload();
}

static void handle_sighup(sluice_runtime *rt)
{
    reload_keys = rt != NULL ? rt->keys : NULL;
    if (reload_keys == NULL)
        return; /* no code mode, no token keys: SIGHUP keeps its default */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sighup;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGHUP, &sa, NULL);
}

/* [admin] listen: /metrics, /healthz, /readyz, the console and the approval endpoint on their
 * own address, served by a second listener with no MCP endpoint; the MCP listener (*mcp) then
 * stops serving them. */
static sluice_status start_admin_listener(sluice_mcp_server *server,
                                          sluice_http_options *mcp,
                                          const char *listen,
                                          sluice_http_server **out,
                                          sluice_arena *arena,
                                          sluice_error *err)
{
    sluice_http_options o = *mcp;
    o.path = "";
    o.get_handler = NULL;
    o.resource_url = NULL;
    sluice_status st = parse_listen(arena, listen, &o, err);
    if (st == SLUICE_OK)
        st = sluice_http_start(server, &o, NULL, out, err);
    if (st != SLUICE_OK)
        return st;
    sluice_log(SLUICE_LOG_INFO, "admin: /metrics, /healthz, /readyz and /admin/ on http://%s:%u",
               o.bind_address, (unsigned)sluice_http_port(*out));
    mcp->admin = NULL;
    mcp->post_handler = NULL;
    return SLUICE_OK;
}

/* The admin console's key and the console it guards; they live as long as the server. */
typedef struct {
    sluice_admin_key key;
    sluice_http_admin console;
} serve_admin;

/* Points the server's /admin/ at the console. Without an approval store there is nothing to
 * decide: no key is read and /admin/ serves only static files. */
static sluice_status admin_setup(const sluice_config *config,
                                 const sluice_cli_built *b,
                                 serve_admin *admin,
                                 sluice_http_options *opts,
                                 sluice_arena *arena,
                                 sluice_error *err)
{
    admin->console = (sluice_http_admin){ b->cm, b->rt, NULL, config };
    sluice_status st =
        b->rt != NULL && b->rt->approvals != NULL
            ? sluice_admin_key_init(&admin->key, b->rt->clock, &config->admin, arena, err)
            : SLUICE_E_NOT_FOUND;
    if (st == SLUICE_OK) {
        admin->console.key = &admin->key;
        opts->post_handler = sluice_http_admin_post;
        opts->post_ctx = &admin->console;
    } else if (st != SLUICE_E_NOT_FOUND) {
        return st;
    }
    opts->admin = &admin->console;
    return SLUICE_OK;
}

/* Serves until SIGINT/SIGTERM, then drains what is running and stops. */
static sluice_status serve_until_stopped(const sluice_cli_built *b,
                                         const sluice_http_options *opts,
                                         sluice_authenticator *auth,
                                         const char *name,
                                         sluice_error *err)
{
    sluice_http_server *http = NULL;
    sluice_status st = sluice_http_start(b->server, opts, auth, &http, err);
    if (st != SLUICE_OK)
        return st;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    sluice_log(SLUICE_LOG_INFO, "serving %s on http://%s:%u/mcp", name, opts->bind_address,
               (unsigned)sluice_http_port(http));
    while (!stop_requested) {
        sleep(1);                              /* a signal cuts the sleep short */
        sluice_key_store_refresh(reload_keys); /* SIGHUP, changed key files */
    }
    sluice_log(SLUICE_LOG_INFO, "stopping");
    drain_http(http);
    sluice_http_stop(http);
    return SLUICE_OK;
}

static sluice_status serve_http(const sluice_config *config,
                                const sluice_cli_built *b,
                                const char *addr,
                                sluice_arena *arena,
                                sluice_error *err)
{
    const sluice_config_server *sc = &config->server;
    sluice_http_options opts = {
        .allowed_origins = sc->allowed_origins.items,
        .allowed_origin_count = sc->allowed_origins.count,
        .allowed_hosts = sc->allowed_hosts.items,
        .allowed_host_count = sc->allowed_hosts.count,
        .max_body_bytes = sc->max_body_bytes,
        .max_sessions = sc->max_sessions,
        .session_idle_seconds = sc->session_idle_seconds,
    };
    sluice_status st = parse_listen(arena, addr != NULL ? addr : sc->listen, &opts, err);
    if (st != SLUICE_OK)
        return st;
    sluice_http_auth ha;
    st = sluice_auth_from_config(config, opts.bind_address, opts.port, arena, &ha, err);
    if (st != SLUICE_OK)
        return st;
    sluice_authenticator *auth = ha.auth;
    opts.resource_url = ha.resource_url;
    if (ha.has_prm) {
        opts.get_handler = sluice_prm_get;
        opts.get_ctx = &ha.prm;
    }
    serve_admin admin;
    sluice_http_server *admin_http = NULL;
    st = admin_setup(config, b, &admin, &opts, arena, err);
    if (st == SLUICE_OK && config->admin.listen != NULL)
        st = start_admin_listener(b->server, &opts, config->admin.listen, &admin_http, arena, err);
    if (st == SLUICE_OK) {
        if (auth == NULL && strcmp(opts.bind_address, "127.0.0.1") != 0 &&
            strcmp(opts.bind_address, "::1") != 0) {
            sluice_log(SLUICE_LOG_WARN,
                       "serving on %s without [[api_keys]] or [auth]: anyone who can reach it "
                       "is the anonymous user",
                       opts.bind_address);
        }
        st = serve_until_stopped(b, &opts, auth, sc->name, err);
    }
    sluice_http_stop(admin_http);
    if (auth != NULL && auth->destroy != NULL)
        auth->destroy(auth);
    return st;
}

/* The built-in config for --db, through the same loader and checks as a file. The key is
 * made here and put in the environment for the key store to read once. */
static sluice_status
load_quickstart(const serve_options *o, sluice_config **out, sluice_arena *arena, sluice_error *err)
{
    const char *engine = sluice_quickstart_engine(o->db_path);
    char *db = realpath(o->db_path, NULL);
    if (db == NULL)
        return sluice_error_set(err, arena, SLUICE_E_IO, "%s: no such database file", o->db_path);
    const char *text = sluice_quickstart_config(arena, engine, db, o->audit_path);
    free(db);
    if (text == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    if (!sluice_quickstart_ephemeral_key())
        return sluice_error_set(err, arena, SLUICE_E_IO, "cannot make a signing key");
    sluice_status st =
        sluice_config_load_text(text, strlen(text), "(serve --db)", ".", out, arena, err);
    if (st != SLUICE_OK)
        return st;
    fprintf(stderr,
            "sluice serve: no config: read-only SQL code mode on %s (%s)\n"
            "sluice serve: WARNING: EPHEMERAL signing key: approval tokens die with this "
            "process; for a lasting key run 'sluice init %s -o sluice.toml'\n"
            "sluice serve: %s%s\n",
            o->db_path, engine, o->db_path,
            o->audit_path != NULL ? "audit log: " : "no audit log (add --audit FILE to keep one)",
            o->audit_path != NULL ? o->audit_path : "");
    return SLUICE_OK;
}

int sluice_cmd_serve(int argc, char **argv)
{
    serve_options o = { 0 };
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0)
        return rc;
    sluice_arena *scratch = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_config *config = NULL;
    sluice_file_clock *test_clock = NULL;
    sluice_status loaded = o.db_path != NULL
                               ? load_quickstart(&o, &config, scratch, &err)
                               : sluice_config_load(o.config_path, &config, scratch, &err);
    if (loaded != SLUICE_OK) {
        fputs(sluice_error_render(scratch, &err, NULL, 0), stderr);
        sluice_arena_free(scratch);
        return SLUICE_EXIT_FAIL;
    }
    if (config->server.log_format != NULL && strcmp(config->server.log_format, "json") == 0)
        sluice_log_set_format(SLUICE_LOG_JSON);
    const char *level = o.log_level != NULL ? o.log_level : config->server.log_level;
    if (level != NULL && !apply_log_level(level)) {
        fprintf(stderr, "sluice serve: unknown log level '%s'\n", level);
        rc = SLUICE_EXIT_USAGE;
        goto done;
    }
    if (o.test_clock != NULL &&
        sluice_file_clock_open(o.test_clock, &test_clock, scratch, &err) != SLUICE_OK) {
        fprintf(stderr, "sluice serve: %s\n", err.message);
        rc = SLUICE_EXIT_USAGE;
        goto done;
    }
    sluice_cli_built b;
    sluice_status built = sluice_cli_build_server(config, false, &b, scratch, &err);
    unsetenv(SLUICE_QUICKSTART_KEY_ENV); /* read once; no child process inherits it */
    if (built != SLUICE_OK) {
        fputs(sluice_error_render(scratch, &err, NULL, 0), stderr);
        rc = SLUICE_EXIT_RUNTIME;
        goto done;
    }
    if (test_clock != NULL && b.rt != NULL) {
        /* Before the first request: every request's time (tokens, approvals, quota windows)
         * is read through the runtime's clock from here on. */
        b.rt->clock = sluice_file_clock_get(test_clock);
        sluice_log(SLUICE_LOG_WARN,
                   "TEST CLOCK: the wall time is what %s says; never serve "
                   "real callers this way",
                   o.test_clock);
    }
    if (b.cm != NULL &&
        (!config->has_policy || config->policy.backend == SLUICE_POLICY_BACKEND_NONE))
        sluice_log(SLUICE_LOG_WARN, "no policy backend: only the configuration rules decide "
                                    "(set [policy] backend = \"cedar\" to evaluate policies)");
    handle_sighup(b.rt);
    /* A file size limit (RLIMIT_FSIZE) reached by the audit log must be a failed write (EFBIG),
     * which fails closed like a full disk, not SIGXFSZ killing the server mid-call. */
    signal(SIGXFSZ, SIG_IGN);
    /* Start-up is done: the loader's tables go back (core/loader_pages.h, docs/benchmarks.md). */
    sluice_log(SLUICE_LOG_DEBUG, "gave back %zu kB of the dynamic loader's tables",
               sluice_loader_pages_release() / 1024);
    sluice_status st;
    if (o.stdio) {
        st = serve_stdio(config, b.server, &err);
    } else {
        st = serve_http(config, &b, o.http_addr, scratch, &err);
    }
    if (st != SLUICE_OK) {
        fprintf(stderr, "sluice serve: %s\n", err.message);
        rc = SLUICE_EXIT_RUNTIME;
    } else {
        rc = SLUICE_EXIT_OK;
    }
    sluice_cli_built_close(&b);
done:
    sluice_file_clock_free(test_clock);
    sluice_config_free(config);
    sluice_arena_free(scratch);
    return rc;
}
