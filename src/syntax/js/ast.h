/*
 * ast.h — the plan language's syntax tree: ESTree-like node kinds in one compact node shape.
 *
 * Owns: the node kinds, operator codes and flags shared by the parser (parse.c), the static
 * analysis (lang/js/) and the interpreter (interp.c).
 * Does not own: building nodes (parse.c) or their meaning.
 *
 * Every node lives in the arena the parser was given. Children: a, b, c, d by kind (below),
 * list/n for sequences.
 */
#ifndef SLUICE_SYNTAX_JS_AST_H
#define SLUICE_SYNTAX_JS_AST_H

#include "syntax/js/lex.h"

#include <stddef.h>
#include <stdint.h>

typedef enum sluice_js_kind {
    /* statements */
    SLUICE_JS_PROGRAM,    /* list: statements */
    SLUICE_JS_VAR,        /* list: SLUICE_JS_DECLARATOR; flags SLUICE_JS_F_CONST */
    SLUICE_JS_DECLARATOR, /* a: pattern, b: init or NULL */
    SLUICE_JS_FUNC_DECL,  /* a: SLUICE_JS_FUNC */
    SLUICE_JS_RETURN,     /* a: value or NULL */
    SLUICE_JS_IF,         /* a: test, b: then, c: else or NULL */
    SLUICE_JS_FOR,        /* a: init, b: test, c: update (each may be NULL), d: body */
    SLUICE_JS_FOR_OF,   /* a: SLUICE_JS_VAR (one declarator without init) or target, b: iterable, d:
                           body */
    SLUICE_JS_FOR_IN,   /* as SLUICE_JS_FOR_OF, over an object's own keys */
    SLUICE_JS_WHILE,    /* a: test, d: body */
    SLUICE_JS_DO_WHILE, /* a: test, d: body */
    SLUICE_JS_BREAK,    /* str: the label or NULL */
    SLUICE_JS_CONTINUE, /* str: the label or NULL */
    SLUICE_JS_LABELED,  /* str: the label, a: the statement it names */
    SLUICE_JS_THROW,    /* a: value */
    SLUICE_JS_TRY,      /* a: block, b: catch param or NULL, c: catch block or NULL, d: finally */
    SLUICE_JS_BLOCK,    /* list: statements */
    SLUICE_JS_EXPR_STMT, /* a: expression */
    SLUICE_JS_EMPTY,     /* ; */
    SLUICE_JS_SWITCH,    /* a: discriminant, list: SLUICE_JS_CASE */
    SLUICE_JS_CASE,      /* a: test or NULL (default), list: statements */
    /* expressions */
    SLUICE_JS_NUM,      /* num */
    SLUICE_JS_STR,      /* str */
    SLUICE_JS_TEMPLATE, /* list: alternating SLUICE_JS_STR quasis and expressions, starting and
                    ending with a quasi */
    SLUICE_JS_IDENT,    /* str */
    SLUICE_JS_TRUE,
    SLUICE_JS_FALSE,
    SLUICE_JS_NULL,
    SLUICE_JS_ARRAY,    /* list: elements (SLUICE_JS_SPREAD allowed) */
    SLUICE_JS_OBJECT,   /* list: SLUICE_JS_PROPERTY or SLUICE_JS_SPREAD */
    SLUICE_JS_PROPERTY, /* a: key (SLUICE_JS_STR, or any expression when SLUICE_JS_F_COMPUTED), b:
                           value */
    SLUICE_JS_FUNC,     /* list: params (patterns), a: body (SLUICE_JS_BLOCK, or an expression when
                    SLUICE_JS_F_EXPR_BODY), str: name or NULL; flags SLUICE_JS_F_ASYNC,
                    SLUICE_JS_F_ARROW */
    SLUICE_JS_CALL, /* a: callee, list: arguments (SLUICE_JS_SPREAD allowed); SLUICE_JS_F_OPTIONAL:
                       ?.() */
    SLUICE_JS_NEW,  /* a: callee, list: arguments */
    SLUICE_JS_MEMBER,  /* a: object, b: property (SLUICE_JS_STR unless SLUICE_JS_F_COMPUTED);
                          SLUICE_JS_F_OPTIONAL */
    SLUICE_JS_CHAIN,   /* a: an optional chain; a short-circuit anywhere inside yields undefined */
    SLUICE_JS_UNARY,   /* op, a */
    SLUICE_JS_UPDATE,  /* op (SLUICE_JS_OP_INC/DEC), a: target; SLUICE_JS_F_PREFIX */
    SLUICE_JS_BINARY,  /* op, a, b */
    SLUICE_JS_LOGICAL, /* op (AND, OR, NULLISH), a, b */
    SLUICE_JS_COND,    /* a ? b : c */
    SLUICE_JS_ASSIGN,  /* op (SLUICE_JS_OP_ASSIGN or the compound operator), a: target, b: value */
    SLUICE_JS_SEQ,     /* list */
    SLUICE_JS_AWAIT,   /* a */
    SLUICE_JS_SPREAD,  /* a: in calls, arrays and objects */
    /* patterns */
    SLUICE_JS_ARRAY_PAT,  /* list: patterns or NULL for holes, last may be SLUICE_JS_REST */
    SLUICE_JS_OBJECT_PAT, /* list: SLUICE_JS_PROPERTY (b: pattern), last may be SLUICE_JS_REST */
    SLUICE_JS_ASSIGN_PAT, /* a: pattern, b: default */
    SLUICE_JS_REST,       /* a: pattern */
    SLUICE_JS_KIND_COUNT
} sluice_js_kind;

typedef enum sluice_js_op {
    SLUICE_JS_OP_NONE = 0,
    SLUICE_JS_OP_ADD,
    SLUICE_JS_OP_SUB,
    SLUICE_JS_OP_MUL,
    SLUICE_JS_OP_DIV,
    SLUICE_JS_OP_MOD,
    SLUICE_JS_OP_EXP,
    SLUICE_JS_OP_EQ,
    SLUICE_JS_OP_NE,
    SLUICE_JS_OP_SEQ,
    SLUICE_JS_OP_SNE,
    SLUICE_JS_OP_LT,
    SLUICE_JS_OP_GT,
    SLUICE_JS_OP_LE,
    SLUICE_JS_OP_GE,
    SLUICE_JS_OP_AND,
    SLUICE_JS_OP_OR,
    SLUICE_JS_OP_NULLISH,
    SLUICE_JS_OP_BITAND,
    SLUICE_JS_OP_BITOR,
    SLUICE_JS_OP_BITXOR,
    SLUICE_JS_OP_SHL,
    SLUICE_JS_OP_SHR,
    SLUICE_JS_OP_USHR,
    SLUICE_JS_OP_IN,
    SLUICE_JS_OP_INSTANCEOF,
    SLUICE_JS_OP_NOT,
    SLUICE_JS_OP_NEG,
    SLUICE_JS_OP_PLUS,
    SLUICE_JS_OP_BITNOT,
    SLUICE_JS_OP_TYPEOF,
    SLUICE_JS_OP_VOID,
    SLUICE_JS_OP_DELETE,
    SLUICE_JS_OP_INC,
    SLUICE_JS_OP_DEC,
    SLUICE_JS_OP_ASSIGN,
} sluice_js_op;

#define SLUICE_JS_F_CONST     0x01u
#define SLUICE_JS_F_COMPUTED  0x02u
#define SLUICE_JS_F_SHORTHAND 0x04u
#define SLUICE_JS_F_ASYNC     0x08u
#define SLUICE_JS_F_ARROW     0x10u
#define SLUICE_JS_F_EXPR_BODY 0x20u
#define SLUICE_JS_F_OPTIONAL  0x40u
#define SLUICE_JS_F_PREFIX    0x80u
#define SLUICE_JS_F_PARENS    0x100u /* the expression was written in parentheses */

typedef struct sluice_js_node {
    uint16_t kind; /* sluice_js_kind */
    uint16_t op;   /* sluice_js_op */
    uint32_t flags;
    uint32_t line, column;
    struct sluice_js_node *a, *b, *c, *d;
    struct sluice_js_node **list;
    size_t n;
    double num;
    const sluice_js_str *str;
} sluice_js_node;

#endif
