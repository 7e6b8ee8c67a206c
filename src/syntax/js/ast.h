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
    JS_PROGRAM,    /* list: statements */
    JS_VAR,        /* list: JS_DECLARATOR; flags JS_F_CONST */
    JS_DECLARATOR, /* a: pattern, b: init or NULL */
    JS_FUNC_DECL,  /* a: JS_FUNC */
    JS_RETURN,     /* a: value or NULL */
    JS_IF,         /* a: test, b: then, c: else or NULL */
    JS_FOR,        /* a: init, b: test, c: update (each may be NULL), d: body */
    JS_FOR_OF,     /* a: JS_VAR (one declarator without init) or target, b: iterable, d: body */
    JS_FOR_IN,     /* as JS_FOR_OF, over an object's own keys */
    JS_WHILE,      /* a: test, d: body */
    JS_DO_WHILE,   /* a: test, d: body */
    JS_BREAK,      /* */
    JS_CONTINUE,   /* */
    JS_THROW,      /* a: value */
    JS_TRY,        /* a: block, b: catch param or NULL, c: catch block or NULL, d: finally */
    JS_BLOCK,      /* list: statements */
    JS_EXPR_STMT,  /* a: expression */
    JS_EMPTY,      /* ; */
    JS_SWITCH,     /* a: discriminant, list: JS_CASE */
    JS_CASE,       /* a: test or NULL (default), list: statements */
    /* expressions */
    JS_NUM,      /* num */
    JS_STR,      /* str */
    JS_TEMPLATE, /* list: alternating JS_STR quasis and expressions, starting and ending with a
                    quasi */
    JS_IDENT,    /* str */
    JS_TRUE,
    JS_FALSE,
    JS_NULL,
    JS_ARRAY,    /* list: elements (JS_SPREAD allowed) */
    JS_OBJECT,   /* list: JS_PROPERTY or JS_SPREAD */
    JS_PROPERTY, /* a: key (JS_STR, or any expression when JS_F_COMPUTED), b: value */
    JS_FUNC,     /* list: params (patterns), a: body (JS_BLOCK, or an expression when
                    JS_F_EXPR_BODY), str: name or NULL; flags JS_F_ASYNC, JS_F_ARROW */
    JS_CALL,     /* a: callee, list: arguments (JS_SPREAD allowed); JS_F_OPTIONAL: ?.() */
    JS_NEW,      /* a: callee, list: arguments */
    JS_MEMBER,   /* a: object, b: property (JS_STR unless JS_F_COMPUTED); JS_F_OPTIONAL */
    JS_CHAIN,    /* a: an optional chain; a short-circuit anywhere inside yields undefined */
    JS_UNARY,    /* op, a */
    JS_UPDATE,   /* op (JS_OP_INC/DEC), a: target; JS_F_PREFIX */
    JS_BINARY,   /* op, a, b */
    JS_LOGICAL,  /* op (AND, OR, NULLISH), a, b */
    JS_COND,     /* a ? b : c */
    JS_ASSIGN,   /* op (JS_OP_ASSIGN or the compound operator), a: target, b: value */
    JS_SEQ,      /* list */
    JS_AWAIT,    /* a */
    JS_SPREAD,   /* a: in calls, arrays and objects */
    /* patterns */
    JS_ARRAY_PAT,  /* list: patterns or NULL for holes, last may be JS_REST */
    JS_OBJECT_PAT, /* list: JS_PROPERTY (b: pattern), last may be JS_REST */
    JS_ASSIGN_PAT, /* a: pattern, b: default */
    JS_REST,       /* a: pattern */
    JS_KIND_COUNT
} sluice_js_kind;

typedef enum sluice_js_op {
    JS_OP_NONE = 0,
    JS_OP_ADD,
    JS_OP_SUB,
    JS_OP_MUL,
    JS_OP_DIV,
    JS_OP_MOD,
    JS_OP_EXP,
    JS_OP_EQ,
    JS_OP_NE,
    JS_OP_SEQ,
    JS_OP_SNE,
    JS_OP_LT,
    JS_OP_GT,
    JS_OP_LE,
    JS_OP_GE,
    JS_OP_AND,
    JS_OP_OR,
    JS_OP_NULLISH,
    JS_OP_BITAND,
    JS_OP_BITOR,
    JS_OP_BITXOR,
    JS_OP_SHL,
    JS_OP_SHR,
    JS_OP_USHR,
    JS_OP_IN,
    JS_OP_NOT,
    JS_OP_NEG,
    JS_OP_PLUS,
    JS_OP_BITNOT,
    JS_OP_TYPEOF,
    JS_OP_VOID,
    JS_OP_DELETE,
    JS_OP_INC,
    JS_OP_DEC,
    JS_OP_ASSIGN,
} sluice_js_op;

#define JS_F_CONST     0x01u
#define JS_F_COMPUTED  0x02u
#define JS_F_SHORTHAND 0x04u
#define JS_F_ASYNC     0x08u
#define JS_F_ARROW     0x10u
#define JS_F_EXPR_BODY 0x20u
#define JS_F_OPTIONAL  0x40u
#define JS_F_PREFIX    0x80u
#define JS_F_PARENS    0x100u /* the expression was written in parentheses */

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
