/*
 * parser.c — GraphQL text to the tree of ast.h: hand-written recursive descent, one function
 * per grammar rule (October 2021 spec; draft descriptions on operations, fragments and
 * variables), following graphql-js 16's parser token for token, so accept/reject, the error
 * text and the place it points at agree with it (tests/diff/ctest_graphql_js.sh checks).
 *
 * Owns: the grammar, lookahead for descriptions and `extend`, the token ceiling (charged as
 * graphql-js charges maxTokens: one per significant token consumed), the byte ceiling, and the
 * recursion bound (every nested selection set, list or object value and list type), so a
 * hostile document ends in a SLUICE_E_LIMIT that names the limit, never a stack overflow.
 * Does not own: tokens (lexer.c), printing (printer.c), validation.
 */
#include "core/buf.h"
#include "core/limits.h"
#include "syntax/graphql/graphql.h"
#include "syntax/graphql/lexer.h"

#include <string.h>

typedef struct parser {
    gql_lexer lx;
    gql_token tok; /* the current token, always lexed (as graphql-js's lexer.token) */
    size_t tokens;
    size_t max_tokens;
    unsigned depth;
    unsigned max_depth;
    unsigned deepest;
    bool failed;          /* the first error is in lx.err; everything after it unwinds */
    sluice_status status; /* that error's status */
} parser;

/* ---- tokens and errors ---------------------------------------------------------------- */

/* Records the first failure's status (err holds its text). Always returns false. */
static bool fail_status(parser *p, sluice_status st)
{
    if (!p->failed)
        p->status = st;
    p->failed = true;
    return false;
}

static bool has_value(const gql_token *t)
{
    return t->kind == GT_NAME || t->kind == GT_INT || t->kind == GT_FLOAT || t->kind == GT_STRING ||
           t->kind == GT_BLOCK_STRING;
}

static bool value_is(const gql_token *t, const char *word)
{
    size_t n = strlen(word);
    return has_value(t) && t->value.len == n && memcmp(t->value.ptr, word, n) == 0;
}

static bool keyword_is(const gql_token *t, const char *word)
{
    return t->kind == GT_NAME && value_is(t, word);
}

/* graphql-js's getTokenDesc: the kind, then the value in quotes when the token has one. */
static const char *token_desc(parser *p, const gql_token *t)
{
    const char *kind = sluice_gql_token_kind_desc(t->kind);
    if (!has_value(t))
        return kind;
    sluice_buf b; /* the value as graphql-js quotes it; NUL (impossible in C text) as U+FFFD */
    sluice_buf_init(&b, p->lx.arena, 0);
    sluice_buf_printf(&b, "%s \"", kind);
    for (size_t i = 0; i < t->value.len; i++) {
        if (t->value.ptr[i] == '\0')
            sluice_buf_puts(&b, "\xEF\xBF\xBD");
        else
            sluice_buf_putc(&b, t->value.ptr[i]);
    }
    sluice_buf_putc(&b, '"');
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : kind;
}

static bool syntax_error(parser *p, size_t offset, const char *what)
{
    return fail_status(p, sluice_gql_error_at(&p->lx, SLUICE_E_INVALID, offset, "%s", what));
}

static bool unexpected(parser *p, const gql_token *t)
{
    return fail_status(p, sluice_gql_error_at(&p->lx, SLUICE_E_INVALID, t->start, "Unexpected %s.",
                                              token_desc(p, t)));
}

static bool limit_error(parser *p, size_t offset, const char *what, size_t limit)
{
    size_t line, col;
    sluice_graphql_locate(p->lx.text, p->lx.len, offset, &line, &col);
    sluice_error_at(p->lx.err, p->lx.arena, SLUICE_E_LIMIT, p->lx.source, line, col,
                    "too many %s in the GraphQL document (limit is %zu)", what, limit);
    if (p->lx.err != NULL) {
        p->lx.err->offset = offset;
        sluice_error_hint(p->lx.err, p->lx.arena,
                          "send a smaller operation; this bound protects the server");
    }
    return fail_status(p, SLUICE_E_LIMIT);
}

static void *node(parser *p, size_t size)
{
    void *n = sluice_arena_calloc(p->lx.arena, 1, size);
    if (n == NULL) {
        sluice_error_set(p->lx.err, p->lx.arena, SLUICE_E_NOMEM, "out of memory parsing GraphQL");
        fail_status(p, SLUICE_E_NOMEM);
    }
    return n;
}

/* Moves to the next token, charging it against the token ceiling. */
static bool advance(parser *p)
{
    sluice_status st = sluice_gql_lex(&p->lx, p->tok.end, &p->tok);
    if (st != SLUICE_OK)
        return fail_status(p, st);
    if (p->tok.kind != GT_EOF && ++p->tokens > p->max_tokens)
        return limit_error(p, p->tok.start, "tokens", p->max_tokens);
    return true;
}

/* The token after the current one, without moving (free of charge, as in graphql-js). */
static bool lookahead(parser *p, gql_token *out)
{
    if (p->tok.kind == GT_EOF) {
        *out = p->tok;
        return true;
    }
    sluice_status st = sluice_gql_lex(&p->lx, p->tok.end, out);
    return st == SLUICE_OK || fail_status(p, st);
}

static bool peek(const parser *p, gql_tok_kind kind)
{
    return p->tok.kind == kind;
}

static bool expect(parser *p, gql_tok_kind kind)
{
    if (p->tok.kind == kind)
        return advance(p);
    return fail_status(
        p, sluice_gql_error_at(&p->lx, SLUICE_E_INVALID, p->tok.start, "Expected %s, found %s.",
                               sluice_gql_token_kind_desc(kind), token_desc(p, &p->tok)));
}

/* *hit = whether the current token was kind (and was consumed). false only on error. */
static bool optional(parser *p, gql_tok_kind kind, bool *hit)
{
    *hit = p->tok.kind == kind;
    return *hit ? advance(p) : true;
}

static bool expect_keyword(parser *p, const char *word)
{
    if (keyword_is(&p->tok, word))
        return advance(p);
    return fail_status(p, sluice_gql_error_at(&p->lx, SLUICE_E_INVALID, p->tok.start,
                                              "Expected \"%s\", found %s.", word,
                                              token_desc(p, &p->tok)));
}

static bool optional_keyword(parser *p, const char *word, bool *hit)
{
    *hit = keyword_is(&p->tok, word);
    return *hit ? advance(p) : true;
}

static bool name(parser *p, sluice_gql_str *out)
{
    *out = p->tok.value;
    return expect(p, GT_NAME);
}

/* Enters one level of nesting at the current token; false past the recursion bound. */
static bool enter(parser *p)
{
    if (++p->depth > p->max_depth)
        return limit_error(p, p->tok.start, "levels of nesting", p->max_depth);
    if (p->depth > p->deepest)
        p->deepest = p->depth;
    return true;
}

static bool leave(parser *p, bool ok)
{
    p->depth--;
    return ok;
}

/* ---- lists ---------------------------------------------------------------------------- */

/* One item of a list: parses it and links it at *tail, which it then moves on. */
typedef bool (*item_fn)(parser *p, void *tail);

/* open Item+ close (graphql-js's many); with optional_open, nothing at all when the current
 * token is not open (its optionalMany). */
static bool
many(parser *p, gql_tok_kind open, gql_tok_kind close, bool optional_open, item_fn item, void *tail)
{
    bool hit, done = false;
    if (optional_open) {
        if (!optional(p, open, &hit))
            return false;
        if (!hit)
            return true;
    } else if (!expect(p, open)) {
        return false;
    }
    while (!done) {
        if (!item(p, tail) || !optional(p, close, &done))
            return false;
    }
    return true;
}

/* Links node at **tail and moves tail to its next pointer. */
#define LINK(tail, node)         \
    do {                         \
        **(tail) = (node);       \
        *(tail) = &(node)->next; \
    } while (0)

/* ---- values, directives, types -------------------------------------------------------- */

static sluice_gql_value *parse_value(parser *p, bool is_const);

/* StringValue (a token already known to be one). */
static sluice_gql_value *parse_string(parser *p)
{
    sluice_gql_value *v = node(p, sizeof(*v));
    if (v == NULL)
        return NULL;
    v->kind = SLUICE_GQL_STRING;
    v->offset = p->tok.start;
    v->text = p->tok.value;
    v->block = p->tok.kind == GT_BLOCK_STRING;
    return advance(p) ? v : NULL;
}

/* Description : StringValue (optional; *out NULL when absent). */
static bool parse_description(parser *p, sluice_gql_value **out)
{
    *out = NULL;
    if (!peek(p, GT_STRING) && !peek(p, GT_BLOCK_STRING))
        return true;
    *out = parse_string(p);
    return *out != NULL;
}

/* ListValue : [ ] | [ Value+ ] */
static bool parse_list(parser *p, bool is_const, sluice_gql_value *v)
{
    bool done;
    sluice_gql_value **tail = &v->items;
    if (!enter(p))
        return false;
    if (!expect(p, GT_LBRACKET))
        return leave(p, false);
    for (;;) {
        if (!optional(p, GT_RBRACKET, &done))
            return leave(p, false);
        if (done)
            return leave(p, true);
        if ((*tail = parse_value(p, is_const)) == NULL)
            return leave(p, false);
        tail = &(*tail)->next;
    }
}

/* ObjectValue : { } | { ObjectField+ };  ObjectField : Name : Value */
static bool parse_object(parser *p, bool is_const, sluice_gql_value *v)
{
    bool done;
    sluice_gql_object_field **tail = &v->fields;
    if (!enter(p))
        return false;
    if (!expect(p, GT_LBRACE))
        return leave(p, false);
    for (;;) {
        if (!optional(p, GT_RBRACE, &done))
            return leave(p, false);
        if (done)
            return leave(p, true);
        sluice_gql_object_field *f = node(p, sizeof(*f));
        if (f == NULL)
            return leave(p, false);
        f->offset = p->tok.start;
        if (!name(p, &f->name) || !expect(p, GT_COLON) ||
            (f->value = parse_value(p, is_const)) == NULL)
            return leave(p, false);
        *tail = f;
        tail = &f->next;
    }
}

/* Variable : $ Name; in a constant value graphql-js names the variable it refuses. */
static bool parse_variable_value(parser *p, bool is_const, sluice_gql_value *v)
{
    gql_token dollar = p->tok;
    if (!expect(p, GT_DOLLAR))
        return false;
    if (is_const) {
        if (peek(p, GT_NAME)) {
            const char *what = sluice_arena_printf(p->lx.arena,
                                                   "Unexpected variable \"$%.*s\" in constant "
                                                   "value.",
                                                   (int)p->tok.value.len, p->tok.value.ptr);
            return syntax_error(p, dollar.start, what != NULL ? what : "Unexpected variable.");
        }
        return unexpected(p, &dollar);
    }
    v->kind = SLUICE_GQL_VARIABLE;
    return name(p, &v->text);
}

/* Value[Const] : Variable | IntValue | FloatValue | StringValue | BooleanValue | NullValue |
 *                EnumValue | ListValue | ObjectValue */
static sluice_gql_value *parse_value(parser *p, bool is_const)
{
    if (peek(p, GT_STRING) || peek(p, GT_BLOCK_STRING))
        return parse_string(p);
    sluice_gql_value *v = node(p, sizeof(*v));
    if (v == NULL)
        return NULL;
    v->offset = p->tok.start;
    v->text = p->tok.value;
    bool ok;
    switch (p->tok.kind) {
    case GT_LBRACKET:
        v->kind = SLUICE_GQL_LIST;
        ok = parse_list(p, is_const, v);
        break;
    case GT_LBRACE:
        v->kind = SLUICE_GQL_OBJECT;
        ok = parse_object(p, is_const, v);
        break;
    case GT_INT:
    case GT_FLOAT:
        v->kind = p->tok.kind == GT_INT ? SLUICE_GQL_INT : SLUICE_GQL_FLOAT;
        ok = advance(p);
        break;
    case GT_NAME:
        if (value_is(&p->tok, "true") || value_is(&p->tok, "false")) {
            v->kind = SLUICE_GQL_BOOLEAN;
            v->boolean = value_is(&p->tok, "true");
        } else {
            v->kind = value_is(&p->tok, "null") ? SLUICE_GQL_NULL : SLUICE_GQL_ENUM;
        }
        ok = advance(p);
        break;
    case GT_DOLLAR:
        ok = parse_variable_value(p, is_const, v);
        break;
    default:
        ok = unexpected(p, &p->tok);
        break;
    }
    return ok ? v : NULL;
}

/* Argument[Const] : Name : Value[Const] */
static bool argument(parser *p, bool is_const, sluice_gql_argument ***tail)
{
    sluice_gql_argument *a = node(p, sizeof(*a));
    if (a == NULL)
        return false;
    a->offset = p->tok.start;
    if (!name(p, &a->name) || !expect(p, GT_COLON) || (a->value = parse_value(p, is_const)) == NULL)
        return false;
    LINK(tail, a);
    return true;
}

static bool const_argument_item(parser *p, void *tail)
{
    return argument(p, true, tail);
}

static bool argument_item(parser *p, void *tail)
{
    return argument(p, false, tail);
}

/* Arguments[Const] : ( Argument[Const]+ ) */
static bool parse_arguments(parser *p, bool is_const, sluice_gql_argument **out)
{
    sluice_gql_argument **tail = out;
    return many(p, GT_LPAREN, GT_RPAREN, true, is_const ? const_argument_item : argument_item,
                &tail);
}

/* Directives[Const] : Directive+;  Directive : @ Name Arguments? */
static bool parse_directives(parser *p, bool is_const, sluice_gql_directive **out)
{
    sluice_gql_directive **tail = out;
    while (peek(p, GT_AT)) {
        sluice_gql_directive *d = node(p, sizeof(*d));
        if (d == NULL)
            return false;
        d->offset = p->tok.start;
        if (!advance(p) || !name(p, &d->name) || !parse_arguments(p, is_const, &d->arguments))
            return false;
        *tail = d;
        tail = &d->next;
    }
    return true;
}

static sluice_gql_type *named_type(parser *p)
{
    sluice_gql_type *t = node(p, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->kind = SLUICE_GQL_NAMED_TYPE;
    t->offset = p->tok.start;
    return name(p, &t->name) ? t : NULL;
}

/* Type : NamedType | ListType | NonNullType;  ListType : [ Type ];  NonNullType : Type ! */
static sluice_gql_type *parse_type(parser *p)
{
    uint32_t start = p->tok.start;
    sluice_gql_type *t;
    if (peek(p, GT_LBRACKET)) {
        if (!enter(p))
            return NULL;
        t = node(p, sizeof(*t));
        bool ok =
            t != NULL && advance(p) && (t->of = parse_type(p)) != NULL && expect(p, GT_RBRACKET);
        if (!leave(p, ok))
            return NULL;
        t->kind = SLUICE_GQL_LIST_TYPE;
        t->offset = start;
    } else if ((t = named_type(p)) == NULL) {
        return NULL;
    }
    if (!peek(p, GT_BANG))
        return t;
    sluice_gql_type *nn = node(p, sizeof(*nn));
    if (nn == NULL || !advance(p))
        return NULL;
    nn->kind = SLUICE_GQL_NON_NULL_TYPE;
    nn->offset = start;
    nn->of = t;
    return nn;
}

/* ---- executable definitions ----------------------------------------------------------- */

static bool parse_selection_set(parser *p, sluice_gql_selection **out);

/* FragmentName : Name but not `on` (graphql-js refuses any token whose value is "on"). */
static bool fragment_name(parser *p, sluice_gql_str *out)
{
    if (value_is(&p->tok, "on"))
        return unexpected(p, &p->tok);
    return name(p, out);
}

/* FragmentSpread : ... FragmentName Directives?
 * InlineFragment : ... TypeCondition? Directives? SelectionSet */
static bool parse_fragment(parser *p, sluice_gql_selection *s)
{
    bool on;
    if (!expect(p, GT_SPREAD) || !optional_keyword(p, "on", &on))
        return false;
    if (!on && peek(p, GT_NAME)) {
        s->kind = SLUICE_GQL_FRAGMENT_SPREAD;
        return fragment_name(p, &s->name) && parse_directives(p, false, &s->directives);
    }
    s->kind = SLUICE_GQL_INLINE_FRAGMENT;
    if (on && !name(p, &s->type_condition))
        return false;
    return parse_directives(p, false, &s->directives) && parse_selection_set(p, &s->selections);
}

/* Field : Alias? Name Arguments? Directives? SelectionSet? */
static bool parse_field(parser *p, sluice_gql_selection *s)
{
    bool aliased;
    s->kind = SLUICE_GQL_FIELD;
    if (!name(p, &s->name) || !optional(p, GT_COLON, &aliased))
        return false;
    if (aliased) {
        s->alias = s->name;
        if (!name(p, &s->name))
            return false;
    }
    if (!parse_arguments(p, false, &s->arguments) || !parse_directives(p, false, &s->directives))
        return false;
    return !peek(p, GT_LBRACE) || parse_selection_set(p, &s->selections);
}

static bool selection_item(parser *p, void *tail)
{
    sluice_gql_selection *s = node(p, sizeof(*s));
    if (s == NULL)
        return false;
    s->offset = p->tok.start;
    if (!(peek(p, GT_SPREAD) ? parse_fragment(p, s) : parse_field(p, s)))
        return false;
    LINK((sluice_gql_selection ***)tail, s);
    return true;
}

/* SelectionSet : { Selection+ } */
static bool parse_selection_set(parser *p, sluice_gql_selection **out)
{
    sluice_gql_selection **tail = out;
    if (!enter(p))
        return false;
    return leave(p, many(p, GT_LBRACE, GT_RBRACE, false, selection_item, &tail));
}

/* VariableDefinition : Description? Variable : Type DefaultValue? Directives[Const]? */
static bool variable_item(parser *p, void *tail)
{
    bool dflt;
    sluice_gql_variable_definition *v = node(p, sizeof(*v));
    if (v == NULL)
        return false;
    v->offset = p->tok.start;
    if (!parse_description(p, &v->description) || !expect(p, GT_DOLLAR) || !name(p, &v->name) ||
        !expect(p, GT_COLON) || (v->type = parse_type(p)) == NULL || !optional(p, GT_EQUALS, &dflt))
        return false;
    if (dflt && (v->default_value = parse_value(p, true)) == NULL)
        return false;
    if (!parse_directives(p, true, &v->directives))
        return false;
    LINK((sluice_gql_variable_definition ***)tail, v);
    return true;
}

/* VariableDefinitions : ( VariableDefinition+ ) */
static bool parse_variable_definitions(parser *p, sluice_gql_variable_definition **out)
{
    sluice_gql_variable_definition **tail = out;
    return many(p, GT_LPAREN, GT_RPAREN, true, variable_item, &tail);
}

/* OperationType : one of query mutation subscription */
static bool parse_operation_type(parser *p, sluice_gql_operation *out)
{
    gql_token t = p->tok;
    if (!expect(p, GT_NAME))
        return false;
    if (keyword_is(&t, "query"))
        *out = SLUICE_GQL_QUERY;
    else if (keyword_is(&t, "mutation"))
        *out = SLUICE_GQL_MUTATION;
    else if (keyword_is(&t, "subscription"))
        *out = SLUICE_GQL_SUBSCRIPTION;
    else
        return unexpected(p, &t);
    return true;
}

/* OperationDefinition : Description? OperationType Name? VariableDefinitions? Directives?
 *                       SelectionSet | SelectionSet */
static bool parse_operation(parser *p, sluice_gql_definition *d)
{
    d->kind = SLUICE_GQL_OPERATION_DEFINITION;
    if (peek(p, GT_LBRACE)) {
        d->operation = SLUICE_GQL_QUERY;
        d->shorthand = true;
        return parse_selection_set(p, &d->selections);
    }
    if (!parse_description(p, &d->description) || !parse_operation_type(p, &d->operation))
        return false;
    if (peek(p, GT_NAME) && !name(p, &d->name))
        return false;
    return parse_variable_definitions(p, &d->variables) &&
           parse_directives(p, false, &d->directives) && parse_selection_set(p, &d->selections);
}

/* FragmentDefinition : Description? fragment FragmentName TypeCondition Directives?
 *                      SelectionSet */
static bool parse_fragment_definition(parser *p, sluice_gql_definition *d)
{
    d->kind = SLUICE_GQL_FRAGMENT_DEFINITION;
    return parse_description(p, &d->description) && expect_keyword(p, "fragment") &&
           fragment_name(p, &d->name) && expect_keyword(p, "on") && name(p, &d->type_condition) &&
           parse_directives(p, false, &d->directives) && parse_selection_set(p, &d->selections);
}

/* ---- type system ---------------------------------------------------------------------- */

static bool is_directive_location(sluice_gql_str s);

/* List of NamedType separated by delim, with an optional leading delim. With locations, each
 * must be a DirectiveLocation, checked as it is read (as graphql-js does). */
static bool
delimited_names(parser *p, gql_tok_kind delim, bool locations, sluice_gql_name_list **out)
{
    bool more;
    sluice_gql_name_list **tail = out;
    if (!optional(p, delim, &more))
        return false;
    do {
        sluice_gql_name_list *n = node(p, sizeof(*n));
        if (n == NULL)
            return false;
        n->offset = p->tok.start;
        gql_token start = p->tok;
        if (!name(p, &n->name))
            return false;
        if (locations && !is_directive_location(n->name))
            return unexpected(p, &start);
        *tail = n;
        tail = &n->next;
        if (!optional(p, delim, &more))
            return false;
    } while (more);
    return true;
}

/* ImplementsInterfaces : implements &? NamedType (& NamedType)* */
static bool parse_implements(parser *p, sluice_gql_name_list **out)
{
    bool hit;
    if (!optional_keyword(p, "implements", &hit))
        return false;
    return !hit || delimited_names(p, GT_AMP, false, out);
}

/* InputValueDefinition : Description? Name : Type DefaultValue? Directives[Const]? */
static sluice_gql_input_value *parse_input_value(parser *p)
{
    bool dflt;
    sluice_gql_input_value *v = node(p, sizeof(*v));
    if (v == NULL)
        return NULL;
    v->offset = p->tok.start;
    if (!parse_description(p, &v->description) || !name(p, &v->name) || !expect(p, GT_COLON) ||
        (v->type = parse_type(p)) == NULL || !optional(p, GT_EQUALS, &dflt))
        return NULL;
    if (dflt && (v->default_value = parse_value(p, true)) == NULL)
        return NULL;
    return parse_directives(p, true, &v->directives) ? v : NULL;
}

static bool input_value_item(parser *p, void *tail)
{
    sluice_gql_input_value *v = parse_input_value(p);
    if (v == NULL)
        return false;
    LINK((sluice_gql_input_value ***)tail, v);
    return true;
}

/* open InputValueDefinition+ close, or nothing when the next token is not open. */
static bool parse_input_values(parser *p,
                               gql_tok_kind open_kind,
                               gql_tok_kind close_kind,
                               sluice_gql_input_value **out)
{
    sluice_gql_input_value **tail = out;
    return many(p, open_kind, close_kind, true, input_value_item, &tail);
}

/* FieldDefinition : Description? Name ArgumentsDefinition? : Type Directives[Const]? */
static bool field_item(parser *p, void *tail)
{
    sluice_gql_field_definition *f = node(p, sizeof(*f));
    if (f == NULL)
        return false;
    f->offset = p->tok.start;
    if (!parse_description(p, &f->description) || !name(p, &f->name) ||
        !parse_input_values(p, GT_LPAREN, GT_RPAREN, &f->arguments) || !expect(p, GT_COLON) ||
        (f->type = parse_type(p)) == NULL || !parse_directives(p, true, &f->directives))
        return false;
    LINK((sluice_gql_field_definition ***)tail, f);
    return true;
}

/* FieldsDefinition : { FieldDefinition+ } */
static bool parse_fields(parser *p, sluice_gql_field_definition **out)
{
    sluice_gql_field_definition **tail = out;
    return many(p, GT_LBRACE, GT_RBRACE, true, field_item, &tail);
}

/* EnumValueDefinition : Description? EnumValue Directives[Const]? (not true, false, null) */
static bool enum_value_item(parser *p, void *tail)
{
    sluice_gql_enum_value *e = node(p, sizeof(*e));
    if (e == NULL || !parse_description(p, &e->description))
        return false;
    e->offset = p->tok.start;
    if (value_is(&p->tok, "true") || value_is(&p->tok, "false") || value_is(&p->tok, "null"))
        return fail_status(
            p, sluice_gql_error_at(&p->lx, SLUICE_E_INVALID, p->tok.start,
                                   "%s is reserved and cannot be used for an enum value.",
                                   token_desc(p, &p->tok)));
    if (!name(p, &e->name) || !parse_directives(p, true, &e->directives))
        return false;
    LINK((sluice_gql_enum_value ***)tail, e);
    return true;
}

/* EnumValuesDefinition : { EnumValueDefinition+ } */
static bool parse_enum_values(parser *p, sluice_gql_enum_value **out)
{
    sluice_gql_enum_value **tail = out;
    return many(p, GT_LBRACE, GT_RBRACE, true, enum_value_item, &tail);
}

/* OperationTypeDefinition : OperationType : NamedType */
static bool operation_type_item(parser *p, void *tail)
{
    sluice_gql_operation_type *o = node(p, sizeof(*o));
    if (o == NULL)
        return false;
    o->offset = p->tok.start;
    if (!parse_operation_type(p, &o->operation) || !expect(p, GT_COLON) || !name(p, &o->type))
        return false;
    LINK((sluice_gql_operation_type ***)tail, o);
    return true;
}

/* { OperationTypeDefinition+ }, required unless optional_block. */
static bool parse_operation_types(parser *p, bool optional_block, sluice_gql_operation_type **out)
{
    sluice_gql_operation_type **tail = out;
    return many(p, GT_LBRACE, GT_RBRACE, optional_block, operation_type_item, &tail);
}

/* UnionMemberTypes : = |? NamedType (| NamedType)* */
static bool parse_union_members(parser *p, sluice_gql_name_list **out)
{
    bool eq;
    if (!optional(p, GT_EQUALS, &eq))
        return false;
    return !eq || delimited_names(p, GT_PIPE, false, out);
}

static bool is_directive_location(sluice_gql_str s)
{
    static const char *const locations[] = {
        "QUERY",
        "MUTATION",
        "SUBSCRIPTION",
        "FIELD",
        "FRAGMENT_DEFINITION",
        "FRAGMENT_SPREAD",
        "INLINE_FRAGMENT",
        "VARIABLE_DEFINITION",
        "SCHEMA",
        "SCALAR",
        "OBJECT",
        "FIELD_DEFINITION",
        "ARGUMENT_DEFINITION",
        "INTERFACE",
        "UNION",
        "ENUM",
        "ENUM_VALUE",
        "INPUT_OBJECT",
        "INPUT_FIELD_DEFINITION",
        "DIRECTIVE_DEFINITION",
    };
    for (size_t i = 0; i < sizeof(locations) / sizeof(locations[0]); i++) {
        if (strlen(locations[i]) == s.len && memcmp(locations[i], s.ptr, s.len) == 0)
            return true;
    }
    return false;
}

/* DirectiveDefinition : Description? directive @ Name ArgumentsDefinition? repeatable?
 *                       on DirectiveLocations */
static bool parse_directive_definition(parser *p, sluice_gql_definition *d)
{
    d->kind = SLUICE_GQL_DIRECTIVE_DEFINITION;
    if (!expect_keyword(p, "directive") || !expect(p, GT_AT) || !name(p, &d->name) ||
        !parse_input_values(p, GT_LPAREN, GT_RPAREN, &d->input_fields) ||
        !optional_keyword(p, "repeatable", &d->repeatable) || !expect_keyword(p, "on") ||
        !delimited_names(p, GT_PIPE, true, &d->members))
        return false;
    return true;
}

/* The body shared by a type definition and its extension, after the keyword and name. */
static bool parse_type_body(parser *p, sluice_gql_definition *d)
{
    switch (d->kind) {
    case SLUICE_GQL_SCALAR_DEFINITION:
    case SLUICE_GQL_SCALAR_EXTENSION:
        return parse_directives(p, true, &d->directives);
    case SLUICE_GQL_OBJECT_DEFINITION:
    case SLUICE_GQL_OBJECT_EXTENSION:
    case SLUICE_GQL_INTERFACE_DEFINITION:
    case SLUICE_GQL_INTERFACE_EXTENSION:
        return parse_implements(p, &d->interfaces) && parse_directives(p, true, &d->directives) &&
               parse_fields(p, &d->fields);
    case SLUICE_GQL_UNION_DEFINITION:
    case SLUICE_GQL_UNION_EXTENSION:
        return parse_directives(p, true, &d->directives) && parse_union_members(p, &d->members);
    case SLUICE_GQL_ENUM_DEFINITION:
    case SLUICE_GQL_ENUM_EXTENSION:
        return parse_directives(p, true, &d->directives) && parse_enum_values(p, &d->values);
    case SLUICE_GQL_INPUT_DEFINITION:
    case SLUICE_GQL_INPUT_EXTENSION:
        return parse_directives(p, true, &d->directives) &&
               parse_input_values(p, GT_LBRACE, GT_RBRACE, &d->input_fields);
    default:
        return false;
    }
}

typedef struct keyword_kind {
    const char *word;
    sluice_gql_definition_kind definition, extension;
} keyword_kind;

static const keyword_kind TYPE_KEYWORDS[] = {
    { "scalar", SLUICE_GQL_SCALAR_DEFINITION, SLUICE_GQL_SCALAR_EXTENSION },
    { "type", SLUICE_GQL_OBJECT_DEFINITION, SLUICE_GQL_OBJECT_EXTENSION },
    { "interface", SLUICE_GQL_INTERFACE_DEFINITION, SLUICE_GQL_INTERFACE_EXTENSION },
    { "union", SLUICE_GQL_UNION_DEFINITION, SLUICE_GQL_UNION_EXTENSION },
    { "enum", SLUICE_GQL_ENUM_DEFINITION, SLUICE_GQL_ENUM_EXTENSION },
    { "input", SLUICE_GQL_INPUT_DEFINITION, SLUICE_GQL_INPUT_EXTENSION },
};

static const keyword_kind *type_keyword(const gql_token *t)
{
    for (size_t i = 0; i < sizeof(TYPE_KEYWORDS) / sizeof(TYPE_KEYWORDS[0]); i++) {
        if (keyword_is(t, TYPE_KEYWORDS[i].word))
            return &TYPE_KEYWORDS[i];
    }
    return NULL;
}

/* An extension adds something: graphql-js reports the token where that something was due. */
static bool extension_adds(const sluice_gql_definition *d)
{
    return d->directives != NULL || d->interfaces != NULL || d->fields != NULL ||
           d->members != NULL || d->values != NULL || d->input_fields != NULL ||
           d->operation_types != NULL;
}

/* TypeSystemExtension : extend (schema | scalar | type | interface | union | enum | input) ... */
static bool parse_extension(parser *p, sluice_gql_definition *d)
{
    gql_token kw;
    if (!lookahead(p, &kw))
        return false;
    const keyword_kind *k = type_keyword(&kw);
    bool ok;
    if (keyword_is(&kw, "schema")) {
        d->kind = SLUICE_GQL_SCHEMA_EXTENSION;
        ok = advance(p) && advance(p) && parse_directives(p, true, &d->directives) &&
             parse_operation_types(p, true, &d->operation_types);
    } else if (k != NULL) {
        d->kind = k->extension;
        ok = advance(p) && advance(p) && name(p, &d->name) && parse_type_body(p, d);
    } else {
        return unexpected(p, &kw);
    }
    if (ok && !extension_adds(d))
        return unexpected(p, &p->tok);
    return ok;
}

/* Definition : ExecutableDefinition | TypeSystemDefinition | TypeSystemExtension; the keyword
 * may follow a description, which needs one token of lookahead. */
static bool parse_definition(parser *p, sluice_gql_definition *d)
{
    if (peek(p, GT_LBRACE))
        return parse_operation(p, d);
    bool described = peek(p, GT_STRING) || peek(p, GT_BLOCK_STRING);
    gql_token kw = p->tok;
    if (described && !lookahead(p, &kw))
        return false;
    if (described && kw.kind == GT_LBRACE)
        return syntax_error(p, p->tok.start,
                            "Unexpected description, descriptions are not "
                            "supported on shorthand queries.");
    const keyword_kind *k = type_keyword(&kw);
    if (k != NULL) {
        d->kind = k->definition;
        return parse_description(p, &d->description) && advance(p) && name(p, &d->name) &&
               parse_type_body(p, d);
    }
    if (keyword_is(&kw, "schema")) {
        d->kind = SLUICE_GQL_SCHEMA_DEFINITION;
        return parse_description(p, &d->description) && advance(p) &&
               parse_directives(p, true, &d->directives) &&
               parse_operation_types(p, false, &d->operation_types);
    }
    if (keyword_is(&kw, "directive"))
        return parse_description(p, &d->description) && parse_directive_definition(p, d);
    if (keyword_is(&kw, "query") || keyword_is(&kw, "mutation") || keyword_is(&kw, "subscription"))
        return parse_operation(p, d);
    if (keyword_is(&kw, "fragment"))
        return parse_fragment_definition(p, d);
    if (described && kw.kind == GT_NAME)
        return syntax_error(p, p->tok.start,
                            "Unexpected description, only GraphQL definitions "
                            "support descriptions.");
    if (keyword_is(&kw, "extend"))
        return parse_extension(p, d);
    return unexpected(p, &kw);
}

static bool definition_item(parser *p, void *tail)
{
    sluice_gql_definition *d = node(p, sizeof(*d));
    if (d == NULL)
        return false;
    d->offset = p->tok.start;
    if (!parse_definition(p, d))
        return false;
    LINK((sluice_gql_definition ***)tail, d);
    return true;
}

/* Document : Definition+ (from the start-of-file token to the end) */
static bool parse_document(parser *p, sluice_gql_document *doc)
{
    sluice_gql_definition **tail = &doc->definitions;
    return many(p, GT_SOF, GT_EOF, false, definition_item, &tail);
}

/* ---- entry points --------------------------------------------------------------------- */

sluice_graphql_limits sluice_graphql_sdl_limits(void)
{
    sluice_graphql_limits l = { SLUICE_LIMIT_GRAPHQL_SDL_BYTES, SLUICE_LIMIT_GRAPHQL_SDL_TOKENS,
                                SLUICE_LIMIT_GRAPHQL_DEPTH };
    return l;
}

/* The limit a parse uses: the asked one (0 = the operation default), never above the hard
 * ceiling (the schema one, the largest there is). */
static size_t limit_of(size_t asked, size_t dflt, size_t hard)
{
    if (asked == 0)
        return dflt;
    return asked < hard ? asked : hard;
}

sluice_status sluice_graphql_parse(sluice_arena *arena,
                                   const char *text,
                                   size_t len,
                                   const char *source,
                                   const sluice_graphql_limits *limits,
                                   sluice_gql_document **out,
                                   sluice_error *err)
{
    sluice_graphql_limits none = { 0, 0, 0 };
    if (limits == NULL)
        limits = &none;
    parser p = { .lx = { arena, text, len, source != NULL ? source : "<graphql>", err } };
    p.max_tokens =
        limit_of(limits->max_tokens, SLUICE_LIMIT_GRAPHQL_TOKENS, SLUICE_LIMIT_GRAPHQL_SDL_TOKENS);
    p.max_depth = (unsigned)limit_of(limits->max_depth, SLUICE_LIMIT_GRAPHQL_DEPTH,
                                     SLUICE_LIMIT_GRAPHQL_DEPTH);
    size_t max_bytes = limit_of(limits->max_bytes, SLUICE_LIMIT_GRAPHQL_DOCUMENT_BYTES,
                                SLUICE_LIMIT_GRAPHQL_SDL_BYTES);
    if (len > max_bytes) {
        sluice_error_at(err, arena, SLUICE_E_LIMIT, p.lx.source, 1, 1,
                        "the GraphQL document is too large (%zu bytes; limit is %zu)", len,
                        max_bytes);
        return SLUICE_E_LIMIT;
    }
    if (len > UINT32_MAX)
        return sluice_error_set(err, arena, SLUICE_E_LIMIT, "the GraphQL document is too large");
    sluice_gql_document *doc = sluice_arena_calloc(arena, 1, sizeof(*doc));
    if (doc == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory parsing GraphQL");
    p.tok.kind = GT_SOF;
    if (!parse_document(&p, doc))
        return p.status;
    doc->text = text;
    doc->text_len = len;
    doc->token_count = p.tokens;
    doc->max_depth = p.deepest;
    *out = doc;
    return SLUICE_OK;
}
