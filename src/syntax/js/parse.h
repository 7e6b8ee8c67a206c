/*
 * parse.h — the plan language's parser: tokens (lex.h) into a syntax tree (ast.h).
 *
 * Owns: the grammar of the subset (docs/js-plans.md), the refusals of constructs outside it
 * (eval, Function, import, this, classes, prototype access, getters/setters, var, ...), each
 * naming the construct and its line, and the syntax limits (tokens, AST nodes, nesting depth).
 * Does not own: lexing details (lex.c), meaning (interp.c), facts (lang/js/).
 */
#ifndef SLUICE_SYNTAX_JS_PARSE_H
#define SLUICE_SYNTAX_JS_PARSE_H

#include "core/arena.h"
#include "core/error.h"
#include "syntax/js/ast.h"
#include "syntax/js/lex.h"

typedef struct sluice_js_program {
    sluice_js_tokens tokens;
    sluice_js_node *root; /* SLUICE_JS_PROGRAM */
    size_t node_count;
    size_t max_depth; /* deepest block nesting (functions, blocks, loops) */
} sluice_js_program;

/* Parses a plan: a function body (top-level return and await allowed). Failure:
 * SLUICE_E_INVALID with err->line/column at the token and a message saying what was expected or
 * which construct is refused (err->key holds the rule: "syntax_error" or "js_refused"); hint how
 * to fix it. SLUICE_E_LIMIT when a syntax limit is passed (the message names it);
 * SLUICE_E_NOMEM. */
sluice_status sluice_js_parse(
    sluice_arena *arena, const char *code, size_t len, sluice_js_program *out, sluice_error *err);

#endif
