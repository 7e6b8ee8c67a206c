/*
 * cmd_program.c — `sluice program promote|demote|list`: an administrator's saved programs
 * (codemode/program.h), written to [code_mode] programs_file or the [state] programs_postgres
 * table, which every server reads on each tools/list and call.
 *
 * Owns: options and output. Who may promote: whoever can read the token key the records are
 * sealed with (the CLI runs on the server's machine as its operator); the console's endpoint
 * checks the [admin] key. Does not own: judging, sealing, storing or auditing (codemode/).
 */
#include "cli/cli.h"
#include "cli/runtime.h"
#include "codemode/codemode.h"
#include "codemode/program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sluice_cmd_program(int argc, char **argv);

#define MAX_GROUPS 32

typedef struct program_args {
    const char *action; /* promote | demote | list */
    const char *config;
    const char *name;
    const char *code_path;
    const char *description;
    const char *reason;
    const char *language;
    const char *admin;
    const char *groups[MAX_GROUPS];
    size_t group_count;
    json_t *vars;
    json_t *parameters;
} program_args;

static void program_usage(FILE *out)
{
    fputs("usage: sluice program promote -c FILE NAME CODEFILE [--var NAME=JSON]...\n"
          "                      [--parameters JSON] [--description TEXT] [--language L]\n"
          "                      [--as ADMIN] [--group G]...\n"
          "       sluice program demote -c FILE NAME [--reason TEXT] [--as ADMIN]\n"
          "       sluice program list -c FILE\n\n"
          "promote validates CODEFILE as ADMIN (with groups G) and, when it is valid, saves it as\n"
          "tool NAME: its variables (--var, the values it was validated with) become typed\n"
          "parameters, or give them with --parameters '{\"id\": {\"type\": \"integer\",\n"
          "\"minimum\": 1}}'. Callers then run it by name, judged by their own policy, without\n"
          "validate_code. demote disables it. list shows each program and whether it can run.\n",
          out);
}

static int bad_usage(const char *what)
{
    fprintf(stderr, "sluice program: %s\n", what);
    program_usage(stderr);
    return SLUICE_EXIT_USAGE;
}

static int parse_program_args(int argc, char **argv, program_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        bool more = i + 1 < argc;
        if ((strcmp(o, "-c") == 0 || strcmp(o, "--config") == 0) && more) {
            a->config = argv[++i];
        } else if (strcmp(o, "--var") == 0 && more) {
            const char *spec = argv[++i];
            const char *eq = strchr(spec, '=');
            json_t *value = eq != NULL ? json_loads(eq + 1, JSON_DECODE_ANY, NULL) : NULL;
            if (value == NULL)
                return bad_usage("--var wants NAME=JSON");
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
            json_object_set_new(a->vars, name, value);
        } else if (strcmp(o, "--parameters") == 0 && more) {
            json_error_t jerr;
            json_decref(a->parameters);
            a->parameters = json_loads(argv[++i], 0, &jerr);
            if (a->parameters == NULL) {
                fprintf(stderr, "sluice program: --parameters is not JSON: %s (column %d)\n",
                        jerr.text, jerr.column);
                return SLUICE_EXIT_USAGE;
            }
        } else if (strcmp(o, "--description") == 0 && more) {
            a->description = argv[++i];
        } else if (strcmp(o, "--reason") == 0 && more) {
            a->reason = argv[++i];
        } else if (strcmp(o, "--language") == 0 && more) {
            a->language = argv[++i];
        } else if (strcmp(o, "--as") == 0 && more) {
            a->admin = argv[++i];
        } else if (strcmp(o, "--group") == 0 && more && a->group_count < MAX_GROUPS) {
            a->groups[a->group_count++] = argv[++i];
        } else if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
            program_usage(stdout);
            return SLUICE_EXIT_OK;
        } else if (o[0] == '-' && strcmp(o, "-") != 0) {
            return bad_usage("unknown option");
        } else if (a->action == NULL) {
            a->action = o;
        } else if (a->name == NULL) {
            a->name = o;
        } else if (a->code_path == NULL) {
            a->code_path = o;
        } else {
            return bad_usage("too many arguments");
        }
    }
    if (a->action == NULL || a->config == NULL)
        return bad_usage("name an action (promote, demote, list) and -c FILE");
    bool promote = strcmp(a->action, "promote") == 0, demote = strcmp(a->action, "demote") == 0;
    if (!promote && !demote && strcmp(a->action, "list") != 0)
        return bad_usage("the action is promote, demote or list");
    if ((promote || demote) && a->name == NULL)
        return bad_usage("name the program");
    if (promote && a->code_path == NULL)
        return bad_usage("name the code file (or - for stdin)");
    return -1;
}

static void print_json(const json_t *value)
{
    char *text = json_dumps(value, JSON_INDENT(2) | JSON_SORT_KEYS);
    puts(text != NULL ? text : "{}");
    free(text);
}

static int list_programs(sluice_codemode *cm, sluice_arena *arena)
{
    sluice_program_catalog c;
    sluice_error err = { 0 };
    if (sluice_codemode_programs(cm, arena, &c, &err) != SLUICE_OK) {
        fprintf(stderr, "sluice program list: %s\n", err.message);
        return SLUICE_EXIT_FAIL;
    }
    for (size_t i = 0; i < c.count; i++) {
        const sluice_program *p = &c.items[i];
        const char *why = sluice_codemode_program_unusable(cm, arena, p);
        printf("%s v%lld %s%s%s%s\n", p->name, (long long)p->version,
               why == NULL ? "runs: " : "DISABLED: ", why != NULL ? why : p->action,
               why == NULL ? ", risk " : "", why == NULL ? p->risk : "");
    }
    if (c.count == 0)
        printf("no saved programs\n");
    return SLUICE_EXIT_OK;
}

static int run_action(const program_args *a, sluice_codemode *cm, sluice_arena *arena)
{
    if (strcmp(a->action, "list") == 0)
        return list_programs(cm, arena);
    const sluice_config *config = sluice_codemode_config(cm);
    const char *admin = a->admin != NULL ? a->admin : getenv("USER");
    sluice_identity who = sluice_cli_identity(config, admin, a->groups, a->group_count);
    sluice_codemode_caller caller = { .identity = &who,
                                      .session_id = "cli",
                                      .language = a->language };
    sluice_error err = { 0 };
    sluice_codemode_request req = { .arena = arena, .caller = &caller, .err = &err };
    sluice_status st;
    if (strcmp(a->action, "demote") == 0) {
        int64_t version = 0;
        st = sluice_codemode_demote(cm, &req, a->name, a->reason, &version);
        if (st == SLUICE_OK)
            printf("demoted %s (version %lld)\n", a->name, (long long)version);
    } else {
        size_t len = 0;
        req.code = sluice_cli_read_code(arena, a->code_path, &len);
        req.code_len = len;
        req.variables = a->vars;
        if (req.code == NULL) {
            fprintf(stderr, "sluice program: cannot read %s (or it is over the code limit)\n",
                    a->code_path);
            return SLUICE_EXIT_FAIL;
        }
        const sluice_codemode_promotion promotion = { a->name, a->description, a->parameters };
        json_t *record = NULL;
        st = sluice_codemode_promote(cm, &req, &promotion, &record);
        if (st == SLUICE_OK)
            print_json(record);
        json_decref(record);
    }
    if (st != SLUICE_OK)
        fprintf(stderr, "sluice program %s: %s\n", a->action,
                err.message != NULL ? err.message : sluice_status_name(st));
    return st == SLUICE_OK ? SLUICE_EXIT_OK
           : st == SLUICE_E_NOMEM || st == SLUICE_E_IO || st == SLUICE_E_INTERNAL
               ? SLUICE_EXIT_RUNTIME
               : SLUICE_EXIT_FAIL;
}

int sluice_cmd_program(int argc, char **argv)
{
    program_args a = { .vars = json_object() };
    int rc = parse_program_args(argc, argv, &a);
    if (rc < 0) {
        sluice_arena *arena = sluice_arena_new();
        sluice_error err = { 0 };
        sluice_config *config = NULL;
        sluice_runtime *rt = NULL;
        sluice_codemode *cm = NULL;
        if (sluice_config_load(a.config, &config, arena, &err) != SLUICE_OK) {
            fputs(sluice_error_render(arena, &err, NULL, 0), stderr);
            rc = SLUICE_EXIT_FAIL;
        } else if (sluice_runtime_open_codemode(config, &rt, &cm, arena, &err) != SLUICE_OK) {
            fprintf(stderr, "sluice program: %s\n", err.message);
            rc = SLUICE_EXIT_RUNTIME;
        } else {
            rc = run_action(&a, cm, arena);
        }
        sluice_codemode_close(cm);
        sluice_runtime_close(rt);
        sluice_config_free(config);
        sluice_arena_free(arena);
    }
    json_decref(a.vars);
    json_decref(a.parameters);
    return rc;
}
