/*
 * cmd_validate.c — `sluice validate -c FILE [--user U] [--group G]... [--var NAME=JSON]...
 * [--language L] CODEFILE`: prints what validate_code would answer for CODEFILE ("-" reads stdin),
 * as the given user, without issuing a token. Exit 0 when the code may run, 1 when it is refused.
 */
#include "cli/cli.h"
#include "codemode/codemode.h"
#include "core/buf.h"
#include "core/limits.h"

#include <stdio.h>
#include <string.h>

int sluice_cmd_validate(int argc, char **argv);

static void validate_usage(FILE *out)
{
    fprintf(out, "usage: sluice validate -c FILE [--user U] [--group G]... [--var NAME=JSON]... "
                 "[--language L] CODEFILE|-\n\n"
                 "Shows what validate_code answers for the code in CODEFILE, as user U (default:\n"
                 "the config's [identity]). Issues no token. Exit 0 valid, 1 refused.\n");
}

static char *read_code(sluice_arena *arena, const char *path, size_t *len)
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
} validate_args;

static int parse_args(int argc, char **argv, validate_args *a)
{
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
                fprintf(stderr, "sluice validate: --var wants NAME=JSON, got '%s'\n", spec);
                return SLUICE_EXIT_USAGE;
            }
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
            json_object_set_new(a->vars, name, value);
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            validate_usage(stdout);
            return SLUICE_EXIT_OK;
        } else if (a->code_path == NULL && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)) {
            a->code_path = argv[i];
        } else {
            fprintf(stderr, "sluice validate: unexpected argument '%s'\n", argv[i]);
            validate_usage(stderr);
            return SLUICE_EXIT_USAGE;
        }
    }
    if (a->config == NULL || a->code_path == NULL) {
        validate_usage(stderr);
        return SLUICE_EXIT_USAGE;
    }
    return -1;
}

static int run_validate(const validate_args *a, const sluice_config *config, sluice_arena *arena)
{
    sluice_error err = { 0 };
    size_t code_len = 0;
    char *code = read_code(arena, a->code_path, &code_len);
    if (code == NULL) {
        fprintf(stderr, "sluice validate: cannot read %s (or it is over %u bytes)\n", a->code_path,
                SLUICE_LIMIT_CODE_BYTES);
        return SLUICE_EXIT_FAIL;
    }
    sluice_codemode *cm = NULL;
    if (sluice_codemode_open(config, &cm, arena, &err) != SLUICE_OK) {
        fprintf(stderr, "sluice validate: %s\n", err.message);
        return SLUICE_EXIT_RUNTIME;
    }
    sluice_identity who = {
        .user_id = a->user != NULL ? a->user : config->identity.user,
        .groups = a->group_count > 0 ? a->groups : config->identity.groups.items,
        .group_count = a->group_count > 0 ? a->group_count : config->identity.groups.count,
        .method = "cli",
    };
    sluice_codemode_caller caller = { .identity = &who,
                                      .session_id = "cli",
                                      .language = a->language };
    json_t *result = NULL;
    sluice_status st =
        sluice_codemode_validate(cm, arena, &caller, code, code_len, a->vars, true, &result, &err);
    int rc = SLUICE_EXIT_RUNTIME;
    if (st == SLUICE_OK) {
        char *text = json_dumps(result, JSON_INDENT(2));
        puts(text != NULL ? text : "{}");
        free(text);
        rc = json_is_true(json_object_get(result, "valid")) ? SLUICE_EXIT_OK : SLUICE_EXIT_FAIL;
        json_decref(result);
    } else {
        fprintf(stderr, "sluice validate: %s\n", err.message);
    }
    sluice_codemode_close(cm);
    return rc;
}

int sluice_cmd_validate(int argc, char **argv)
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
            rc = run_validate(&a, config, arena);
        }
        sluice_config_free(config);
        sluice_arena_free(arena);
    }
    json_decref(a.vars);
    return rc;
}
