/*
 * cmd_policy.c — `sluice policy eval|check`: run the Cedar engine from the command line.
 *
 *   sluice policy eval --policies FILE --entities FILE --principal 'T::"id"' --action 'T::"id"'
 *                      --resource 'T::"id"' [--context JSON|@FILE]
 *     prints the decision, the determining policies (id, @id, where, text) and the errors;
 *     exit 0 allow, 1 deny, 2 usage or unreadable/invalid input, 3 out of memory.
 *   sluice policy eval -c CONFIG [--user U] [--group G]... CODEFILE
 *     "would this user be allowed to run this code?": analyzes CODEFILE as code mode does, routes
 *     the user, evaluates the configured [policy] and prints the decision, the determining
 *     policies (@id and source lines), the errors and the facts used (principal, action,
 *     resource attributes, context); exit 0 allow, 1 deny.
 *   sluice policy check FILE [--schema FILE]
 *     parses FILE (and validates it against a Cedar JSON schema); exit 0 good, 1 not.
 *
 * Owns: options, file reading and the rendering. Does not own: Cedar (src/policy/cedar).
 */
#include "cli/cli.h"
#include "cli/runtime.h"
#include "codemode/codemode.h"
#include "core/buf.h"
#include "core/limits.h"
#include "policy/cedar/ast.h"
#include "policy/cedar/schema.h"
#include "policy/policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sluice_cmd_policy(int argc, char **argv);

static void usage(FILE *out)
{
    fprintf(out,
            "usage: sluice policy eval --policies FILE --entities FILE --principal UID\n"
            "                          --action UID --resource UID [--context JSON|@FILE]\n"
            "       sluice policy eval -c CONFIG [--user U] [--group G]... CODEFILE\n"
            "       sluice policy check FILE [--schema FILE]\n\n"
            "UID is Cedar syntax, e.g. 'CodeMode::User::\"alice\"'. Policies get the ids\n"
            "policy0, policy1, ... in file order (as cedar-wasm does); @id annotations are shown.\n"
            "With -c, eval asks the configured [policy] whether user U (default: the config's\n"
            "[identity]) may run the code in CODEFILE, and shows the facts it decided on.\n"
            "eval exits 0 on allow, 1 on deny, 2 on a usage or input error.\n"
            "check exits 0 when FILE parses (and validates against the JSON schema), 1 if not.\n");
}

/* The whole file, NUL-terminated, or NULL with a message printed. */
static char *read_file(sluice_arena *arena, const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "sluice policy: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    sluice_buf b;
    sluice_buf_init(&b, arena, SLUICE_LIMIT_POLICY_FILE_BYTES);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        sluice_buf_append(&b, chunk, n);
    fclose(f);
    if (sluice_buf_status(&b) != SLUICE_OK) {
        fprintf(stderr, "sluice policy: %s is too large (limit is %u bytes)\n", path,
                SLUICE_LIMIT_POLICY_FILE_BYTES);
        return NULL;
    }
    *len = b.len;
    return b.data != NULL ? b.data : sluice_arena_strdup(arena, "");
}

static void print_error(sluice_arena *arena, const sluice_error *err, const char *text, size_t len)
{
    fputs(sluice_error_render(arena, err, text, len), stderr);
}

typedef struct eval_opts {
    const char *policies, *entities, *principal, *action, *resource, *context;
} eval_opts;

static bool parse_eval_opts(int argc, char **argv, eval_opts *o)
{
    memset(o, 0, sizeof(*o));
    static const char *const names[] = { "--policies", "--entities", "--principal",
                                         "--action",   "--resource", "--context" };
    for (int i = 2; i < argc; i++) {
        size_t k = 0;
        while (k < 6 && strcmp(argv[i], names[k]) != 0)
            k++;
        if (k == 6 || i + 1 >= argc) {
            fprintf(stderr, "sluice policy eval: %s '%s'\n",
                    k == 6 ? "unknown option" : "missing value for", argv[i]);
            return false;
        }
        const char **slot[] = { &o->policies, &o->entities, &o->principal,
                                &o->action,   &o->resource, &o->context };
        *slot[k] = argv[++i];
    }
    if (o->policies == NULL || o->principal == NULL || o->action == NULL || o->resource == NULL) {
        fprintf(stderr, "sluice policy eval: --policies, --principal, --action and --resource "
                        "are required\n");
        return false;
    }
    return true;
}

static bool load_uid(sluice_arena *arena, const char *what, const char *text, sluice_cedar_uid *uid)
{
    sluice_error err;
    if (sluice_cedar_uid_parse(arena, text, strlen(text), uid, &err) == SLUICE_OK)
        return true;
    fprintf(stderr, "sluice policy eval: %s: %s (expected e.g. 'Type::\"id\"')\n", what,
            err.message);
    return false;
}

static void print_policy(const sluice_cedar_policy *p, const char *source)
{
    const char *ann = sluice_cedar_policy_annotation(p, "id");
    printf("  %s", sluice_cedar_policy_id(p));
    if (ann != NULL)
        printf(" @id(\"%s\")", ann);
    printf(" (%s %s:%zu-%zu)\n", sluice_cedar_policy_is_forbid(p) ? "forbid" : "permit", source,
           sluice_cedar_policy_first_line(p), sluice_cedar_policy_last_line(p));
    size_t len;
    const char *text = sluice_cedar_policy_text(p, &len);
    printf("    | ");
    for (size_t i = 0; i < len; i++) {
        putchar(text[i]);
        if (text[i] == '\n')
            printf("    | ");
    }
    putchar('\n');
}

/* The request as evaluated, in Cedar syntax: what the policies saw. */
static void print_request(sluice_arena *arena, const sluice_cedar_request *req)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 1u << 20);
    sluice_buf_puts(&b, "request: principal ");
    sluice_cedar_uid_print(&b, &req->principal);
    sluice_buf_puts(&b, ", action ");
    sluice_cedar_uid_print(&b, &req->action);
    sluice_buf_puts(&b, ", resource ");
    sluice_cedar_uid_print(&b, &req->resource);
    sluice_buf_puts(&b, "\ncontext: ");
    sluice_cedar_value_print(&b, &req->context);
    puts(sluice_buf_status(&b) == SLUICE_OK ? b.data : "request: (too large to show)");
}

static int report(const sluice_cedar_decision *d, const char *source)
{
    printf("decision: %s\n", d->allow ? "allow" : "deny");
    if (d->determining_count == 0) {
        printf("determining policies: none (no permit matched: default deny)\n");
    } else {
        printf("determining policies:\n");
        for (size_t i = 0; i < d->determining_count; i++)
            print_policy(d->determining[i], source);
    }
    if (d->error_count > 0) {
        printf("errors (these policies were skipped):\n");
        for (size_t i = 0; i < d->error_count; i++) {
            const sluice_cedar_policy *p = d->errors[i].policy;
            const char *ann = sluice_cedar_policy_annotation(p, "id");
            printf("  %s%s%s%s (%s:%zu): %s\n", sluice_cedar_policy_id(p), ann ? " @id(\"" : "",
                   ann ? ann : "", ann ? "\")" : "", source, sluice_cedar_policy_first_line(p),
                   d->errors[i].message);
        }
    }
    return d->allow ? SLUICE_EXIT_OK : SLUICE_EXIT_FAIL;
}

static int eval_with(sluice_arena *arena, const eval_opts *o)
{
    size_t plen, elen = 2, clen = 0;
    char *ptext = read_file(arena, o->policies, &plen);
    char *etext = o->entities != NULL ? read_file(arena, o->entities, &elen) : "[]";
    const char *ctext = o->context != NULL ? o->context : "{}";
    const char *csource = "--context";
    if (ptext == NULL || etext == NULL)
        return SLUICE_EXIT_USAGE;
    if (ctext[0] == '@') {
        csource = ctext + 1;
        ctext = read_file(arena, csource, &clen);
        if (ctext == NULL)
            return SLUICE_EXIT_USAGE;
    } else {
        clen = strlen(ctext);
    }
    sluice_error err;
    sluice_cedar_policyset *set;
    sluice_cedar_entities *ents;
    sluice_cedar_request req;
    if (sluice_cedar_policyset_parse(arena, ptext, plen, o->policies, &set, &err) != SLUICE_OK) {
        print_error(arena, &err, ptext, plen);
        return SLUICE_EXIT_USAGE;
    }
    if (sluice_cedar_entities_parse_json(arena, etext, elen, o->entities ? o->entities : "[]",
                                         &ents, &err) != SLUICE_OK) {
        print_error(arena, &err, etext, elen);
        return SLUICE_EXIT_USAGE;
    }
    if (sluice_cedar_context_parse_json(arena, ctext, clen, csource, &req.context, &err) !=
        SLUICE_OK) {
        print_error(arena, &err, ctext, clen);
        return SLUICE_EXIT_USAGE;
    }
    if (!load_uid(arena, "--principal", o->principal, &req.principal) ||
        !load_uid(arena, "--action", o->action, &req.action) ||
        !load_uid(arena, "--resource", o->resource, &req.resource))
        return SLUICE_EXIT_USAGE;
    sluice_cedar_decision d;
    if (sluice_cedar_is_authorized(set, ents, &req, arena, &d, &err) != SLUICE_OK) {
        print_error(arena, &err, NULL, 0);
        return SLUICE_EXIT_RUNTIME;
    }
    print_request(arena, &req);
    return report(&d, o->policies);
}

/* ---- eval -c CONFIG: the configured policy on real code ------------------------------------ */

typedef struct code_opts {
    const char *config, *user, *code_path;
    const char *groups[32];
    size_t group_count;
} code_opts;

static bool parse_code_opts(int argc, char **argv, code_opts *o)
{
    memset(o, 0, sizeof(*o));
    for (int i = 2; i < argc; i++) {
        bool more = i + 1 < argc;
        if ((strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "--config") == 0) && more) {
            o->config = argv[++i];
        } else if (strcmp(argv[i], "--user") == 0 && more) {
            o->user = argv[++i];
        } else if (strcmp(argv[i], "--group") == 0 && more && o->group_count < 32) {
            o->groups[o->group_count++] = argv[++i];
        } else if (o->code_path == NULL && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)) {
            o->code_path = argv[i];
        } else {
            fprintf(stderr, "sluice policy eval: unexpected argument '%s'\n", argv[i]);
            return false;
        }
    }
    if (o->config == NULL || o->code_path == NULL) {
        fprintf(stderr, "sluice policy eval: -c CONFIG and CODEFILE are required\n");
        return false;
    }
    return true;
}

static void print_reason(const sluice_policy_reason *r, const char *source)
{
    printf("  %s", r->id);
    if (r->annotation != NULL)
        printf(" @id(\"%s\")", r->annotation);
    if (r->first_line > 0)
        printf(" (%s %s:%zu-%zu)", r->forbid ? "forbid" : "permit", source, r->first_line,
               r->last_line);
    putchar('\n');
}

static int report_configured(const sluice_policy *policy, const sluice_policy_decision *d)
{
    const char *source = sluice_policy_source(policy) ? sluice_policy_source(policy) : "";
    printf("backend: %s\ndecision: %s\n", sluice_policy_backend_name(policy),
           d->allow ? "allow" : "deny");
    if (d->reason_count == 0)
        printf("determining policies: none%s\n",
               d->allow ? "" : " (no permit matched: default deny)");
    else
        printf("determining policies:\n");
    for (size_t i = 0; i < d->reason_count; i++)
        print_reason(&d->reasons[i], source);
    if (d->error_count > 0)
        printf("errors (any error denies):\n");
    for (size_t i = 0; i < d->error_count; i++)
        printf("  %s\n", d->errors[i]);
    char *facts = json_dumps(d->request, JSON_INDENT(2));
    printf("facts used:\n%s\n", facts != NULL ? facts : "(out of memory)");
    free(facts);
    return d->allow ? SLUICE_EXIT_OK : SLUICE_EXIT_FAIL;
}

static int eval_configured(sluice_arena *arena, const code_opts *o)
{
    sluice_error err = { 0 };
    sluice_config *config = NULL;
    if (sluice_config_load(o->config, &config, arena, &err) != SLUICE_OK) {
        print_error(arena, &err, NULL, 0);
        return SLUICE_EXIT_USAGE;
    }
    size_t len = 0;
    char *code = strcmp(o->code_path, "-") == 0 ? NULL : read_file(arena, o->code_path, &len);
    sluice_runtime *rt = NULL;
    sluice_codemode *cm = NULL;
    int rc = SLUICE_EXIT_USAGE;
    if (code != NULL && sluice_runtime_open_codemode(config, &rt, &cm, arena, &err) != SLUICE_OK)
        fprintf(stderr, "sluice policy eval: %s\n", err.message);
    sluice_codefacts *facts = NULL;
    const sluice_codemode_request req = {
        .arena = arena, .code = code, .code_len = len, .err = &err
    };
    if (cm != NULL && sluice_codemode_analyze(cm, &req, &facts) != SLUICE_OK)
        fprintf(stderr, "sluice policy eval: %s\n", err.message);
    if (facts != NULL) {
        sluice_identity who = sluice_cli_identity(config, o->user, o->groups, o->group_count);
        const sluice_policy *policy = sluice_codemode_policy(cm);
        const sluice_policy_route *route = sluice_policy_route_for(policy, &who);
        sluice_policy_decision d;
        printf("route: %s%s\n", route->id, route->is_default ? " (default)" : "");
        if (sluice_policy_evaluate(policy, arena, &who, route, facts->action, facts, &d, &err) ==
            SLUICE_OK) {
            rc = report_configured(policy, &d);
            json_decref(d.request);
        } else {
            rc = SLUICE_EXIT_RUNTIME;
        }
        for (size_t i = 0; i < facts->violation_count; i++)
            printf("%s: %s\n", i == 0 ? "configuration rules refuse it too" : "  and",
                   facts->violations[i].message);
    }
    sluice_codemode_close(cm);
    sluice_runtime_close(rt);
    sluice_config_free(config);
    return rc;
}

static int check_with(sluice_arena *arena, const char *path, const char *schema_path)
{
    size_t len, slen;
    char *text = read_file(arena, path, &len);
    if (text == NULL)
        return SLUICE_EXIT_USAGE;
    sluice_error err;
    sluice_cedar_policyset *set;
    if (sluice_cedar_policyset_parse(arena, text, len, path, &set, &err) != SLUICE_OK) {
        print_error(arena, &err, text, len);
        return SLUICE_EXIT_FAIL;
    }
    size_t n = sluice_cedar_policyset_count(set);
    if (schema_path == NULL) {
        printf("%s: ok (%zu %s)\n", path, n, n == 1 ? "policy" : "policies");
        return SLUICE_EXIT_OK;
    }
    char *stext = read_file(arena, schema_path, &slen);
    if (stext == NULL)
        return SLUICE_EXIT_USAGE;
    sluice_cedar_schema *schema;
    if (sluice_cedar_schema_parse_json(arena, stext, slen, schema_path, &schema, &err) !=
        SLUICE_OK) {
        print_error(arena, &err, stext, slen);
        return SLUICE_EXIT_FAIL;
    }
    sluice_cedar_validation v;
    if (sluice_cedar_schema_validate(arena, schema, set, &v) != SLUICE_OK) {
        fprintf(stderr, "sluice policy check: out of memory\n");
        return SLUICE_EXIT_RUNTIME;
    }
    for (size_t i = 0; i < v.count; i++) {
        const sluice_cedar_policy *p = v.problems[i].policy;
        fprintf(stderr, "%s:%zu: %s: %s\n", path, sluice_cedar_policy_first_line(p),
                sluice_cedar_policy_id(p), v.problems[i].message);
    }
    if (v.count > 0)
        return SLUICE_EXIT_FAIL;
    printf("%s: ok (%zu %s, valid against %s)\n", path, n, n == 1 ? "policy" : "policies",
           schema_path);
    return SLUICE_EXIT_OK;
}

static int check_cmd(sluice_arena *arena, int argc, char **argv)
{
    const char *file = NULL, *schema = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--schema") == 0 && i + 1 < argc) {
            schema = argv[++i];
        } else if (argv[i][0] != '-' && file == NULL) {
            file = argv[i];
        } else {
            fprintf(stderr, "sluice policy check: unexpected argument '%s'\n", argv[i]);
            return SLUICE_EXIT_USAGE;
        }
    }
    if (file == NULL) {
        usage(stderr);
        return SLUICE_EXIT_USAGE;
    }
    return check_with(arena, file, schema);
}

int sluice_cmd_policy(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? SLUICE_EXIT_USAGE : SLUICE_EXIT_OK;
    }
    bool eval = strcmp(argv[1], "eval") == 0;
    if (!eval && strcmp(argv[1], "check") != 0) {
        fprintf(stderr, "sluice policy: unknown subcommand '%s'\n", argv[1]);
        usage(stderr);
        return SLUICE_EXIT_USAGE;
    }
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL) {
        fprintf(stderr, "sluice policy: out of memory\n");
        return SLUICE_EXIT_RUNTIME;
    }
    int rc;
    eval_opts o;
    code_opts co;
    bool configured = false;
    for (int i = 2; eval && i < argc; i++)
        configured = configured || strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "--config") == 0;
    if (eval && configured)
        rc = parse_code_opts(argc, argv, &co) ? eval_configured(arena, &co) : SLUICE_EXIT_USAGE;
    else if (eval)
        rc = parse_eval_opts(argc, argv, &o) ? eval_with(arena, &o) : SLUICE_EXIT_USAGE;
    else
        rc = check_cmd(arena, argc, argv);
    sluice_arena_free(arena);
    return rc;
}
