/*
 * printer.c — the canonical text of a GraphQL document, byte for byte graphql-js 16's print().
 *
 * Owns: the layout rules of graphql-js's printer (two-space blocks, ", " lists, a field's
 * arguments on their own lines when the line would pass 80 UTF-16 units, argument and variable
 * lists on their own lines when an item spans lines), its string and block-string quoting
 * (printString, printBlockString), and the SHA-256 of the result: the code hash a token binds.
 * Literals are printed as written (Int, Float, enum) or re-quoted from their decoded value
 * (strings), so two spellings of one document hash the same and no two documents collide.
 *
 * In graphql-js every newline is followed by the indentation of the block it is in, block
 * strings included; the emitter below does exactly that, so parts rendered at indentation 0
 * (to measure them) can be re-emitted at any depth.
 * Does not own: parsing (parser.c). Recursion is bounded by the parser's depth limit.
 */
#include "core/buf.h"
#include "core/hash.h"
#include "syntax/graphql/graphql.h"

#include <string.h>

typedef struct printer {
    sluice_arena *arena;
    sluice_buf *out;
    unsigned indent;
} printer;

/* ---- emitting ------------------------------------------------------------------------- */

static void newline(printer *pr)
{
    sluice_buf_putc(pr->out, '\n');
    for (unsigned i = 0; i < pr->indent; i++)
        sluice_buf_append(pr->out, "  ", 2);
}

/* Text that may contain newlines; each gets the current indentation. */
static void emit(printer *pr, const char *s, size_t n)
{
    for (;;) {
        const char *nl = memchr(s, '\n', n);
        if (nl == NULL) {
            sluice_buf_append(pr->out, s, n);
            return;
        }
        sluice_buf_append(pr->out, s, (size_t)(nl - s));
        newline(pr);
        n -= (size_t)(nl - s) + 1;
        s = nl + 1;
    }
}

static void puts_(printer *pr, const char *s)
{
    sluice_buf_puts(pr->out, s);
}

static void str(printer *pr, sluice_gql_str s)
{
    sluice_buf_append(pr->out, s.ptr, s.len);
}

/* Length in UTF-16 units, the unit of graphql-js's line-length rules. */
static size_t utf16_len(const char *s, size_t n)
{
    size_t units = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c & 0xC0) != 0x80)
            units += c >= 0xF0 ? 2 : 1;
    }
    return units;
}

/* ---- strings -------------------------------------------------------------------------- */

/* printString: "..." with control characters (C0, DEL, C1), '"' and '\' escaped. */
static void print_string(printer *pr, sluice_gql_str s)
{
    static const char hex[] = "0123456789ABCDEF";
    puts_(pr, "\"");
    for (size_t i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        unsigned code = c;
        if (c == 0xC2 && i + 1 < s.len && (unsigned char)s.ptr[i + 1] >= 0x80 &&
            (unsigned char)s.ptr[i + 1] <= 0x9F)
            code = (unsigned char)s.ptr[++i]; /* U+0080..U+009F */
        else if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7F) {
            sluice_buf_putc(pr->out, (char)c);
            continue;
        }
        switch (code) {
        case '\b':
            puts_(pr, "\\b");
            break;
        case '\t':
            puts_(pr, "\\t");
            break;
        case '\n':
            puts_(pr, "\\n");
            break;
        case '\f':
            puts_(pr, "\\f");
            break;
        case '\r':
            puts_(pr, "\\r");
            break;
        case '"':
            puts_(pr, "\\\"");
            break;
        case '\\':
            puts_(pr, "\\\\");
            break;
        default: {
            char esc[7] = { '\\', 'u', '0', '0', hex[code >> 4], hex[code & 15], 0 };
            puts_(pr, esc);
        }
        }
    }
    puts_(pr, "\"");
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Every line after the first is empty or starts with whitespace (s has at least one \n). */
static bool rest_lines_indented(const char *s, size_t n)
{
    for (const char *nl = memchr(s, '\n', n); nl != NULL;
         nl = memchr(nl + 1, '\n', n - (size_t)(nl + 1 - s))) {
        size_t rest = n - (size_t)(nl + 1 - s);
        if (rest > 0 && nl[1] != '\n' && !is_blank(nl[1]))
            return false;
    }
    return true;
}

/* printBlockString: """...""" with """ escaped, on its own lines when that reads better. */
static void print_block_string(printer *pr, sluice_gql_str v)
{
    sluice_buf esc;
    sluice_buf_init(&esc, pr->arena, 0);
    for (size_t i = 0; i < v.len;) {
        if (i + 3 <= v.len && memcmp(v.ptr + i, "\"\"\"", 3) == 0) {
            sluice_buf_append(&esc, "\\\"\"\"", 4);
            i += 3;
        } else {
            sluice_buf_putc(&esc, v.ptr[i++]);
        }
    }
    const char *e = sluice_buf_cstr(&esc);
    size_t n = esc.len;
    bool single = memchr(e, '\n', n) == NULL;
    bool force_leading = !single && rest_lines_indented(e, n);
    bool trailing_triple = ends_with(e, n, "\\\"\"\"");
    bool trailing_quote = ends_with(v.ptr, v.len, "\"") && !trailing_triple;
    bool force_trailing = trailing_quote || ends_with(v.ptr, v.len, "\\");
    bool multiple = !single || utf16_len(v.ptr, v.len) > 70 || force_trailing || force_leading ||
                    trailing_triple;
    bool skip_leading = single && v.len > 0 && is_blank(v.ptr[0]);
    puts_(pr, "\"\"\"");
    if ((multiple && !skip_leading) || force_leading)
        newline(pr);
    emit(pr, e, n);
    if (multiple || force_trailing)
        newline(pr);
    puts_(pr, "\"\"\"");
    if (sluice_buf_status(&esc) != SLUICE_OK)
        pr->out->status = sluice_buf_status(&esc); /* sticky failure reaches the caller */
}

/* ---- values, directives, types -------------------------------------------------------- */

static void print_value(printer *pr, const sluice_gql_value *v);

static void print_fields(printer *pr, const sluice_gql_object_field *f, const char *sep)
{
    for (; f != NULL; f = f->next) {
        str(pr, f->name);
        puts_(pr, ": ");
        print_value(pr, f->value);
        if (f->next != NULL)
            puts_(pr, sep);
    }
}

static void print_value(printer *pr, const sluice_gql_value *v)
{
    switch (v->kind) {
    case SLUICE_GQL_VARIABLE:
        puts_(pr, "$");
        str(pr, v->text);
        break;
    case SLUICE_GQL_STRING:
        if (v->block)
            print_block_string(pr, v->text);
        else
            print_string(pr, v->text);
        break;
    case SLUICE_GQL_BOOLEAN:
        puts_(pr, v->boolean ? "true" : "false");
        break;
    case SLUICE_GQL_NULL:
        puts_(pr, "null");
        break;
    case SLUICE_GQL_LIST:
        puts_(pr, "[");
        for (const sluice_gql_value *i = v->items; i != NULL; i = i->next) {
            print_value(pr, i);
            if (i->next != NULL)
                puts_(pr, ", ");
        }
        puts_(pr, "]");
        break;
    case SLUICE_GQL_OBJECT:
        puts_(pr, "{");
        print_fields(pr, v->fields, ", ");
        puts_(pr, "}");
        break;
    default: /* INT, FLOAT, ENUM: as written */
        str(pr, v->text);
        break;
    }
}

/* Directives joined by spaces, after a leading space when there are any. */
static void print_directives(printer *pr, const sluice_gql_directive *d)
{
    for (; d != NULL; d = d->next) {
        puts_(pr, " @");
        str(pr, d->name);
        if (d->arguments != NULL) {
            puts_(pr, "(");
            print_fields(pr, d->arguments, ", ");
            puts_(pr, ")");
        }
    }
}

static void print_type(printer *pr, const sluice_gql_type *t)
{
    switch (t->kind) {
    case SLUICE_GQL_LIST_TYPE:
        puts_(pr, "[");
        print_type(pr, t->of);
        puts_(pr, "]");
        break;
    case SLUICE_GQL_NON_NULL_TYPE:
        print_type(pr, t->of);
        puts_(pr, "!");
        break;
    default:
        str(pr, t->name);
        break;
    }
}

static void print_description(printer *pr, const sluice_gql_value *description)
{
    if (description == NULL)
        return;
    print_value(pr, description);
    newline(pr);
}

/* ---- measured lists ------------------------------------------------------------------- */

/* One item of a list whose layout depends on its items' text, rendered at indentation 0. */
typedef struct rendered {
    const char *text;
    size_t len;
} rendered;

typedef void (*render_fn)(printer *pr, const void *item);

/* Renders count items (reached through next_of) into an array, NULL on allocation failure.
 * *multiline = some item spans lines; *units = their total UTF-16 length. */
static rendered *render_items(printer *pr,
                              const void *first,
                              const void *(*next_of)(const void *),
                              render_fn fn,
                              size_t *count,
                              bool *multiline,
                              size_t *units)
{
    size_t n = 0;
    for (const void *i = first; i != NULL; i = next_of(i))
        n++;
    rendered *r = sluice_arena_calloc(pr->arena, n ? n : 1, sizeof(*r));
    if (r == NULL) {
        pr->out->status = SLUICE_E_NOMEM;
        return NULL;
    }
    *multiline = false;
    *units = 0;
    size_t k = 0;
    for (const void *i = first; i != NULL; i = next_of(i), k++) {
        sluice_buf b;
        sluice_buf_init(&b, pr->arena, 0);
        printer sub = { pr->arena, &b, 0 };
        fn(&sub, i);
        if (sluice_buf_status(&b) != SLUICE_OK) {
            pr->out->status = sluice_buf_status(&b);
            return NULL;
        }
        r[k].text = sluice_buf_cstr(&b);
        r[k].len = b.len;
        *multiline = *multiline || memchr(r[k].text, '\n', r[k].len) != NULL;
        *units += utf16_len(r[k].text, r[k].len);
    }
    *count = n;
    return r;
}

/* "(a, b)" on one line, or "(\n  a\n  b\n)" (indented unless flat, as graphql-js prints an
 * operation's variable definitions). */
static void emit_items(printer *pr, const rendered *r, size_t n, bool lines, bool indented)
{
    puts_(pr, "(");
    if (lines && indented)
        pr->indent++;
    for (size_t i = 0; i < n; i++) {
        if (lines)
            newline(pr);
        else if (i > 0)
            puts_(pr, ", ");
        emit(pr, r[i].text, r[i].len);
    }
    if (lines && indented)
        pr->indent--;
    if (lines)
        newline(pr);
    puts_(pr, ")");
}

static const void *next_argument(const void *a)
{
    return ((const sluice_gql_argument *)a)->next;
}

static void render_argument(printer *pr, const void *a)
{
    const sluice_gql_argument *arg = a;
    str(pr, arg->name);
    puts_(pr, ": ");
    print_value(pr, arg->value);
}

static const void *next_input_value(const void *v)
{
    return ((const sluice_gql_input_value *)v)->next;
}

/* description, [$]name: Type = default @directives: an input value or a variable. */
static void print_typed(printer *pr,
                        const sluice_gql_value *description,
                        const char *sigil,
                        sluice_gql_str name,
                        const sluice_gql_type *type,
                        const sluice_gql_value *default_value,
                        const sluice_gql_directive *dirs)
{
    print_description(pr, description);
    puts_(pr, sigil);
    str(pr, name);
    puts_(pr, ": ");
    print_type(pr, type);
    if (default_value != NULL) {
        puts_(pr, " = ");
        print_value(pr, default_value);
    }
    print_directives(pr, dirs);
}

/* InputValueDefinition: description, name: Type = default @directives */
static void render_input_value(printer *pr, const void *item)
{
    const sluice_gql_input_value *v = item;
    print_typed(pr, v->description, "", v->name, v->type, v->default_value, v->directives);
}

static const void *next_variable(const void *v)
{
    return ((const sluice_gql_variable_definition *)v)->next;
}

static void render_variable(printer *pr, const void *item)
{
    const sluice_gql_variable_definition *v = item;
    print_typed(pr, v->description, "$", v->name, v->type, v->default_value, v->directives);
}

/* Argument definitions of a field or directive: on their own lines when one spans lines. */
static void print_argument_definitions(printer *pr, const sluice_gql_input_value *args)
{
    size_t n, units;
    bool multiline;
    if (args == NULL)
        return;
    rendered *r =
        render_items(pr, args, next_input_value, render_input_value, &n, &multiline, &units);
    if (r != NULL)
        emit_items(pr, r, n, multiline, true);
}

/* open, then each item on its own line one level in, then } — graphql-js's block(). Nothing
 * at all for an empty list. */
static void print_block(printer *pr,
                        const char *open,
                        const void *first,
                        const void *(*next_of)(const void *),
                        render_fn fn)
{
    if (first == NULL)
        return;
    puts_(pr, open);
    pr->indent++;
    for (const void *i = first; i != NULL; i = next_of(i)) {
        newline(pr);
        fn(pr, i);
    }
    pr->indent--;
    newline(pr);
    puts_(pr, "}");
}

/* ---- selections ----------------------------------------------------------------------- */

static void print_selections(printer *pr, const sluice_gql_selection *s);

/* Field: alias: name(args) @directives { ... }; the arguments go on their own lines when the
 * prefix, the arguments joined by ", " and the parentheses pass 80 units. */
static void print_field(printer *pr, const sluice_gql_selection *s)
{
    size_t prefix = s->name.len;
    if (s->alias.ptr != NULL) {
        str(pr, s->alias);
        puts_(pr, ": ");
        prefix += s->alias.len + 2;
    }
    str(pr, s->name);
    if (s->arguments != NULL) {
        size_t n, units;
        bool multiline;
        rendered *r =
            render_items(pr, s->arguments, next_argument, render_argument, &n, &multiline, &units);
        if (r != NULL)
            emit_items(pr, r, n, prefix + units + 2 * (n - 1) + 2 > 80, true);
    }
    print_directives(pr, s->directives);
    if (s->selections != NULL) {
        puts_(pr, " ");
        print_selections(pr, s->selections);
    }
}

static void print_selection(printer *pr, const sluice_gql_selection *s)
{
    switch (s->kind) {
    case SLUICE_GQL_FRAGMENT_SPREAD:
        puts_(pr, "...");
        str(pr, s->name);
        print_directives(pr, s->directives);
        break;
    case SLUICE_GQL_INLINE_FRAGMENT:
        puts_(pr, "...");
        if (s->type_condition.ptr != NULL) {
            puts_(pr, " on ");
            str(pr, s->type_condition);
        }
        print_directives(pr, s->directives);
        puts_(pr, " ");
        print_selections(pr, s->selections);
        break;
    default:
        print_field(pr, s);
        break;
    }
}

static const void *next_selection(const void *s)
{
    return ((const sluice_gql_selection *)s)->next;
}

static void render_selection(printer *pr, const void *s)
{
    print_selection(pr, s);
}

/* { one selection per line } */
static void print_selections(printer *pr, const sluice_gql_selection *s)
{
    print_block(pr, "{", s, next_selection, render_selection);
}

/* ---- definitions ---------------------------------------------------------------------- */

static const char *operation_word(sluice_gql_operation op)
{
    return op == SLUICE_GQL_MUTATION       ? "mutation"
           : op == SLUICE_GQL_SUBSCRIPTION ? "subscription"
                                           : "query";
}

static void print_operation(printer *pr, const sluice_gql_definition *d)
{
    bool bare = d->operation == SLUICE_GQL_QUERY && d->name.ptr == NULL && d->variables == NULL &&
                d->directives == NULL && d->description == NULL;
    if (!bare) {
        print_description(pr, d->description);
        puts_(pr, operation_word(d->operation));
        if (d->name.ptr != NULL || d->variables != NULL)
            puts_(pr, " ");
        if (d->name.ptr != NULL)
            str(pr, d->name);
        if (d->variables != NULL) {
            size_t n, units;
            bool multiline;
            rendered *r = render_items(pr, d->variables, next_variable, render_variable, &n,
                                       &multiline, &units);
            if (r != NULL)
                emit_items(pr, r, n, multiline, false);
        }
        print_directives(pr, d->directives);
        puts_(pr, " ");
    }
    print_selections(pr, d->selections);
}

static void print_fragment(printer *pr, const sluice_gql_definition *d)
{
    print_description(pr, d->description);
    puts_(pr, "fragment ");
    str(pr, d->name);
    puts_(pr, " on ");
    str(pr, d->type_condition);
    print_directives(pr, d->directives);
    puts_(pr, " ");
    print_selections(pr, d->selections);
}

static void
print_names(printer *pr, const char *lead, const char *sep, const sluice_gql_name_list *n)
{
    if (n == NULL)
        return;
    puts_(pr, lead);
    for (; n != NULL; n = n->next) {
        str(pr, n->name);
        if (n->next != NULL)
            puts_(pr, sep);
    }
}

static const void *next_field_definition(const void *f)
{
    return ((const sluice_gql_field_definition *)f)->next;
}

/* FieldDefinition: description, name(args): Type @directives */
static void render_field_definition(printer *pr, const void *item)
{
    const sluice_gql_field_definition *f = item;
    print_description(pr, f->description);
    str(pr, f->name);
    print_argument_definitions(pr, f->arguments);
    puts_(pr, ": ");
    print_type(pr, f->type);
    print_directives(pr, f->directives);
}

static const void *next_enum_value(const void *e)
{
    return ((const sluice_gql_enum_value *)e)->next;
}

static void render_enum_value(printer *pr, const void *item)
{
    const sluice_gql_enum_value *e = item;
    print_description(pr, e->description);
    str(pr, e->name);
    print_directives(pr, e->directives);
}

static const void *next_operation_type(const void *o)
{
    return ((const sluice_gql_operation_type *)o)->next;
}

static void render_operation_type(printer *pr, const void *item)
{
    const sluice_gql_operation_type *o = item;
    puts_(pr, operation_word(o->operation));
    puts_(pr, ": ");
    str(pr, o->type);
}

/* The keyword of a type system definition or extension ("type", "extend union", ...). */
static const char *type_system_word(sluice_gql_definition_kind kind)
{
    static const char *const words[] = {
        [SLUICE_GQL_SCHEMA_DEFINITION] = "schema",
        [SLUICE_GQL_SCALAR_DEFINITION] = "scalar",
        [SLUICE_GQL_OBJECT_DEFINITION] = "type",
        [SLUICE_GQL_INTERFACE_DEFINITION] = "interface",
        [SLUICE_GQL_UNION_DEFINITION] = "union",
        [SLUICE_GQL_ENUM_DEFINITION] = "enum",
        [SLUICE_GQL_INPUT_DEFINITION] = "input",
        [SLUICE_GQL_SCHEMA_EXTENSION] = "extend schema",
        [SLUICE_GQL_SCALAR_EXTENSION] = "extend scalar",
        [SLUICE_GQL_OBJECT_EXTENSION] = "extend type",
        [SLUICE_GQL_INTERFACE_EXTENSION] = "extend interface",
        [SLUICE_GQL_UNION_EXTENSION] = "extend union",
        [SLUICE_GQL_ENUM_EXTENSION] = "extend enum",
        [SLUICE_GQL_INPUT_EXTENSION] = "extend input",
    };
    return words[kind];
}

static void print_directive_definition(printer *pr, const sluice_gql_definition *d)
{
    print_description(pr, d->description);
    puts_(pr, "directive @");
    str(pr, d->name);
    print_argument_definitions(pr, d->input_fields);
    if (d->repeatable)
        puts_(pr, " repeatable");
    print_names(pr, " on ", " | ", d->members);
}

/* schema, scalar, type, interface, union, enum, input and their extensions: one layout,
 * each printing only the parts it has. */
static void print_type_system(printer *pr, const sluice_gql_definition *d)
{
    print_description(pr, d->description);
    puts_(pr, type_system_word(d->kind));
    if (d->name.ptr != NULL) {
        puts_(pr, " ");
        str(pr, d->name);
    }
    print_names(pr, " implements ", " & ", d->interfaces);
    print_directives(pr, d->directives);
    print_block(pr, " {", d->operation_types, next_operation_type, render_operation_type);
    print_block(pr, " {", d->fields, next_field_definition, render_field_definition);
    print_block(pr, " {", d->values, next_enum_value, render_enum_value);
    print_block(pr, " {", d->input_fields, next_input_value, render_input_value);
    print_names(pr, " = ", " | ", d->members);
}

static void print_definition(printer *pr, const sluice_gql_definition *d)
{
    switch (d->kind) {
    case SLUICE_GQL_OPERATION_DEFINITION:
        print_operation(pr, d);
        break;
    case SLUICE_GQL_FRAGMENT_DEFINITION:
        print_fragment(pr, d);
        break;
    case SLUICE_GQL_DIRECTIVE_DEFINITION:
        print_directive_definition(pr, d);
        break;
    default:
        print_type_system(pr, d);
        break;
    }
}

char *sluice_graphql_print(sluice_arena *arena, const sluice_gql_document *doc, size_t *out_len)
{
    sluice_buf out;
    sluice_buf_init(&out, arena, 0);
    printer pr = { arena, &out, 0 };
    sluice_buf_append(&out, "", 0);
    for (const sluice_gql_definition *d = doc->definitions; d != NULL; d = d->next) {
        print_definition(&pr, d);
        if (d->next != NULL)
            puts_(&pr, "\n\n");
    }
    if (sluice_buf_status(&out) != SLUICE_OK)
        return NULL;
    char *text = sluice_arena_strndup(arena, sluice_buf_cstr(&out), out.len);
    if (text != NULL && out_len != NULL)
        *out_len = out.len;
    return text;
}

sluice_status sluice_graphql_canonical_hash(sluice_arena *arena,
                                            const char *text,
                                            size_t len,
                                            const sluice_graphql_limits *limits,
                                            char out_hex[65],
                                            sluice_error *err)
{
    sluice_gql_document *doc;
    sluice_status st = sluice_graphql_parse(arena, text, len, "<code>", limits, &doc, err);
    if (st != SLUICE_OK)
        return st;
    size_t n;
    char *canonical = sluice_graphql_print(arena, doc, &n);
    if (canonical == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory printing GraphQL");
    if ((st = sluice_hash_init()) != SLUICE_OK)
        return sluice_error_set(err, arena, st, "cannot start the hash library");
    uint8_t digest[SLUICE_HASH_BYTES];
    sluice_hash_sha256(canonical, n, digest);
    sluice_hash_hex(digest, sizeof(digest), out_hex);
    return SLUICE_OK;
}
