/*
 * cmd_validate.c — `sluice validate` and `sluice execute`, one set of options:
 *   -c FILE [--user U] [--group G]... [--var NAME=JSON]... [--language L] [--json] CODEFILE|-
 * validate prints what validate_code would answer for CODEFILE ("-" reads stdin) as the given
 * user, without issuing a token: a short human summary on a terminal, the JSON result with --json
 * or when stdout is not a terminal. execute validates and, when the code may run without a
 * human, runs it the way execute_code does (token, audit, caps) and prints the rows.
 * Exit 0 valid (ran), 1 refused (or needs approval), 2 usage, 3 runtime failure.
 *
 * Owns: options and the two renderings. Does not own: analysis or execution (codemode/).
 */
#include "cli/cli.h"
#include "cli/runtime.h"
#include "codemode/codemode.h"
#include "core/buf.h"
#include "core/json_splice.h"
#include "core/limits.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int sluice_cmd_validate(int argc, char **argv);
int sluice_cmd_execute(int argc, char **argv);

static void validate_usage(FILE *out, const char *command)
{
    bool exec = strcmp(command, "execute") == 0;
    fprintf(out,
            "usage: sluice %s -c FILE [--user U] [--group G]... [--var NAME=JSON]...\n"
            "       %*s [--language L] [--json] CODEFILE|-\n\n",
            command, (int)strlen(command), "");
    fputs(exec ? "Validates the code in CODEFILE as user U (default: the config's [identity])\n"
                 "and, when it may run without a human approval, executes it as execute_code\n"
                 "would (one-use token, caps, audit record) and prints the rows.\n"
                 "Exit 0 ran, 1 refused or needs approval, 3 the execution failed.\n"
               : "Shows what validate_code answers for the code in CODEFILE, as user U (default:\n"
                 "the config's [identity]). Issues no token. Exit 0 valid, 1 refused.\n",
          out);
    fputs("\n  -c, --config FILE  configuration\n"
          "  --user U           the caller (with --group G, repeatable)\n"
          "  --var NAME=JSON    a variable, e.g. --var id=42 --var since='\"2026-01-01\"'\n"
          "  --language L       the code's language (default: the server's first)\n"
          "  --json             print the JSON result (the default when stdout is not a\n"
          "                     terminal)\n"
          "  --text             print the short summary (the default on a terminal)\n",
          out);
}

sluice_identity sluice_cli_identity(const sluice_config *config,
                                    const char *user,
                                    const char *const *groups,
                                    size_t group_count)
{
    return (sluice_identity){
        .user_id = user != NULL ? user : config->identity.user,
        .groups = group_count > 0 ? groups : config->identity.groups.items,
        .group_count = group_count > 0 ? group_count : config->identity.groups.count,
        .method = "cli",
    };
}

char *sluice_cli_read_code(sluice_arena *arena, const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL)
        return NULL;
    sluice_buf b;
    sluice_buf_init(&b, arena, SLUICE_LIMIT_CODE_BYTES + 1);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        sluice_buf_append(&b, chunk, n);
    if (f != stdin)
        fclose(f);
    *len = b.len;
    return sluice_buf_status(&b) == SLUICE_OK ? (char *)sluice_buf_cstr(&b) : NULL;
}

typedef struct validate_args {
    const char *config;
    const char *user;
    const char *language; /* NULL: the server's default */
    const char *groups[32];
    size_t group_count;
    json_t *vars;
    const char *code_path;
    bool json;
    bool text; /* --text: the summary even when stdout is not a terminal */
} validate_args;

static int parse_args(int argc, char **argv, validate_args *a)
{
    const char *cmd = argv[0];
    for (int i = 1; i < argc; i++) {
        bool more = i + 1 < argc;
        if ((strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "--config") == 0) && more) {
            a->config = argv[++i];
        } else if (strcmp(argv[i], "--language") == 0 && more) {
            a->language = argv[++i];
        } else if (strcmp(argv[i], "--user") == 0 && more) {
            a->user = argv[++i];
        } else if (strcmp(argv[i], "--group") == 0 && more && a->group_count < 32) {
            a->groups[a->group_count++] = argv[++i];
        } else if (strcmp(argv[i], "--var") == 0 && more) {
            const char *spec = argv[++i];
            const char *eq = strchr(spec, '=');
            json_t *value = eq != NULL ? json_loads(eq + 1, JSON_DECODE_ANY, NULL) : NULL;
            if (value == NULL) {
                fprintf(stderr, "sluice %s: --var wants NAME=JSON, got '%s'\n", cmd, spec);
                return SLUICE_EXIT_USAGE;
            }
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
            json_object_set_new(a->vars, name, value);
        } else if (strcmp(argv[i], "--json") == 0) {
            a->json = true;
        } else if (strcmp(argv[i], "--text") == 0) {
            a->text = true;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            validate_usage(stdout, cmd);
            return SLUICE_EXIT_OK;
        } else if (a->code_path == NULL && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)) {
            a->code_path = argv[i];
        } else {
            fprintf(stderr, "sluice %s: unexpected argument '%s'\n", cmd, argv[i]);
            validate_usage(stderr, cmd);
            return SLUICE_EXIT_USAGE;
        }
    }
    if (a->config == NULL || a->code_path == NULL) {
        fprintf(stderr, "sluice %s: %s\n", cmd,
                a->config == NULL ? "-c FILE is required" : "name the code file (or - for stdin)");
        validate_usage(stderr, cmd);
        return SLUICE_EXIT_USAGE;
    }
    if (!a->json && !a->text && !isatty(STDOUT_FILENO))
        a->json = true; /* a pipe or a file gets the machine-readable answer */
    return -1;
}

/* One violation or warning line: "line 1, column 8: message (suggestion)". */
static void print_finding(const char *prefix, const json_t *v)
{
    json_t *line = json_object_get(v, "line"), *col = json_object_get(v, "column");
    const char *msg = json_string_value(json_object_get(v, "message"));
    const char *hint = json_string_value(json_object_get(v, "suggestion"));
    printf("  %s ", prefix);
    if (json_is_integer(line))
        printf("line %lld, column %lld: ", (long long)json_integer_value(line),
               json_is_integer(col) ? (long long)json_integer_value(col) : 0LL);
    printf("%s%s%s%s\n", msg != NULL ? msg : "?", hint != NULL ? " (" : "",
           hint != NULL ? hint : "", hint != NULL ? ")" : "");
}

static void print_list(const char *label, const json_t *array)
{
    if (json_array_size(array) == 0)
        return;
    printf("%s:", label);
    size_t i;
    json_t *item;
    json_array_foreach(array, i, item)
    {
        printf("%s %s", i > 0 ? "," : "", json_string_value(item) ? json_string_value(item) : "?");
    }
    printf("\n");
}

/* The human summary of a validate_code result: verdict, risk, explanation, findings. */
static void print_summary(const json_t *r)
{
    bool valid = json_is_true(json_object_get(r, "valid"));
    const char *risk = json_string_value(json_object_get(r, "risk_level"));
    const char *action = json_string_value(json_object_get(r, "action"));
    const char *verdict = !valid ? "REFUSED"
                          : json_is_true(json_object_get(r, "requires_approval"))
                              ? "valid, needs a human approval"
                              : "valid, runs without approval";
    printf("%s: %s, risk %s\n", verdict, action != NULL ? action : "?", risk != NULL ? risk : "?");
    const char *explanation = json_string_value(json_object_get(r, "explanation"));
    if (explanation != NULL)
        printf("%s\n", explanation);
    const json_t *meta = json_object_get(r, "metadata");
    print_list("tables read", json_object_get(meta, "tablesRead"));
    print_list("tables written", json_object_get(meta, "tablesWritten"));
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(r, "violations"), i, v) print_finding("error:", v);
    json_array_foreach(json_object_get(r, "warnings"), i, v) print_finding("warning:", v);
}

static void print_json(const json_t *value)
{
    char *text = json_dumps(value, JSON_INDENT(2));
    puts(text != NULL ? text : "{}");
    free(text);
}

/* Prints the validation as JSON or as a summary, its metadata (carried as text for the wire, a
 * splice) read as the tree it is; false when out of memory (nothing printed). */
static bool print_validation(const json_t *validation, bool json)
{
    json_t *plain = sluice_json_splice_expand(validation);
    if (plain == NULL) {
        fputs("sluice: out of memory while printing the validation\n", stderr);
        return false;
    }
    json ? print_json(plain) : print_summary(plain);
    json_decref(plain);
    return true;
}

/* Runs the validated code with the token validate just issued; prints rows or the refusal. */
static int run_execute(sluice_codemode *cm,
                       const validate_args *a,
                       const sluice_codemode_caller *caller,
                       const char *code,
                       size_t code_len,
                       const json_t *validation,
                       sluice_arena *arena)
{
    const char *token = json_string_value(json_object_get(validation, "approval_token"));
    if (token == NULL) {
        fprintf(stderr, "sluice execute: not run: %s\n",
                json_is_true(json_object_get(validation, "valid"))
                    ? "it needs a human approval (sluice approve, or raise auto_approve_levels)"
                    : "validate_code refused it");
        return SLUICE_EXIT_FAIL;
    }
    json_t *result = NULL;
    char *text = NULL;
    sluice_error err = { 0 };
    const sluice_codemode_request req = { .arena = arena,
                                          .caller = caller,
                                          .code = code,
                                          .code_len = code_len,
                                          .variables = a->vars,
                                          .token = token,
                                          .err = &err };
    sluice_status st = sluice_codemode_execute(cm, &req, &result, &text);
    if (st != SLUICE_OK) {
        fprintf(stderr, "sluice execute: %s\n", err.message != NULL ? err.message : "failed");
        /* A refusal (rule, policy, approval, token) is an answer; the rest is a failure. */
        return st == SLUICE_E_DENIED || st == SLUICE_E_TOKEN || st == SLUICE_E_LIMIT
                   ? SLUICE_EXIT_FAIL
                   : SLUICE_EXIT_RUNTIME;
    }
    if (a->json)
        print_json(result);
    else
        printf("%s\n", text != NULL ? text : "");
    json_decref(result);
    return SLUICE_EXIT_OK;
}

static int
run_code(const validate_args *a, bool execute, const sluice_config *config, sluice_arena *arena)
{
    const char *cmd = execute ? "execute" : "validate";
    sluice_error err = { 0 };
    size_t code_len = 0;
    char *code = sluice_cli_read_code(arena, a->code_path, &code_len);
    if (code == NULL) {
        fprintf(stderr, "sluice %s: cannot read %s (or it is over %u bytes)\n", cmd, a->code_path,
                SLUICE_LIMIT_CODE_BYTES);
        return SLUICE_EXIT_FAIL;
    }
    sluice_runtime *rt = NULL;
    sluice_codemode *cm = NULL;
    if (sluice_runtime_open_codemode(config, &rt, &cm, arena, &err) != SLUICE_OK) {
        fprintf(stderr, "sluice %s: %s\n", cmd, err.message);
        return SLUICE_EXIT_RUNTIME;
    }
    sluice_identity who = sluice_cli_identity(config, a->user, a->groups, a->group_count);
    sluice_codemode_caller caller = { .identity = &who,
                                      .session_id = "cli",
                                      .language = a->language };
    json_t *result = NULL;
    const sluice_codemode_request req = { .arena = arena,
                                          .caller = &caller,
                                          .code = code,
                                          .code_len = code_len,
                                          .variables = a->vars,
                                          .dry_run = !execute,
                                          .err = &err };
    sluice_status st = sluice_codemode_validate(cm, &req, &result);
    int rc = SLUICE_EXIT_RUNTIME;
    if (st == SLUICE_OK) {
        bool valid = json_is_true(json_object_get(result, "valid"));
        if ((!execute || !valid) && !print_validation(result, a->json))
            rc = SLUICE_EXIT_RUNTIME;
        else
            rc = !valid    ? SLUICE_EXIT_FAIL
                 : execute ? run_execute(cm, a, &caller, code, code_len, result, arena)
                           : SLUICE_EXIT_OK;
        json_decref(result);
    } else {
        fprintf(stderr, "sluice %s: %s\n", cmd, err.message);
    }
    sluice_codemode_close(cm);
    sluice_runtime_close(rt);
    return rc;
}

static int run_command(int argc, char **argv, bool execute)
{
    validate_args a = { .vars = json_object() };
    int rc = parse_args(argc, argv, &a);
    if (rc < 0) {
        sluice_arena *arena = sluice_arena_new();
        sluice_error err = { 0 };
        sluice_config *config = NULL;
        if (sluice_config_load(a.config, &config, arena, &err) != SLUICE_OK) {
            fputs(sluice_error_render(arena, &err, NULL, 0), stderr);
            rc = SLUICE_EXIT_FAIL;
        } else {
            rc = run_code(&a, execute, config, arena);
        }
        sluice_config_free(config);
        sluice_arena_free(arena);
    }
    json_decref(a.vars);
    return rc;
}

int sluice_cmd_validate(int argc, char **argv)
{
    return run_command(argc, argv, false);
}

int sluice_cmd_execute(int argc, char **argv)
{
    return run_command(argc, argv, true);
}
