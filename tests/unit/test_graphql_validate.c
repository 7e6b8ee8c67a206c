/*
 * test_graphql_validate.c — the GraphQL front end against the example API's schema
 * (examples/graphql/schema.graphql): seed 000's facts, every limit through fragments and
 * aliases, blocked fields through alias / fragment / interface, introspection, actions, the
 * response shaper (strip, refuse, unrequested keys, list cap), and fail-closed on every
 * allocation failure.
 */
#include "exec/executor.h"
#include "exec/graphql_shape.h"
#include "facts_test_util.h"
#include "lang/graphql/front.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *sdl;
static size_t sdl_len;
static sluice_schema backend_schema;

static const char SEED[] =
    "query RecentCustomersSnapshot {\n"
    "  customers(orderBy: { createdAt: DESC }, limit: 3) {\n"
    "    id\n    name\n    segment\n"
    "    orders(orderBy: { placedAt: DESC }, limit: 2) { id total placedAt }\n"
    "    supportTickets(filter: { status: OPEN }) { id subject priority }\n"
    "  }\n}\n";

static int setup(void **state)
{
    (void)state;
    FILE *f = fopen(SLUICE_SOURCE_DIR "/examples/graphql/schema.graphql", "rb");
    assert_non_null(f);
    sdl = calloc(1, 1 << 16);
    sdl_len = fread(sdl, 1, (1 << 16) - 1, f);
    fclose(f);
    backend_schema.document = sdl;
    backend_schema.document_len = sdl_len;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(sdl);
    return 0;
}

static const char *BLOCKED[] = { "Customer.ssn", "Customer.email" };

static sluice_config_code_mode rules(void)
{
    sluice_config_code_mode cm = { 0 };
    cm.graphql_max_depth = 10;
    cm.graphql_max_aliases = 15;
    cm.graphql_max_root_fields = 20;
    cm.graphql_max_directives = 50;
    cm.graphql_max_tokens = 1000;
    cm.graphql_max_chars = 15000;
    cm.graphql_max_cost = 5000;
    cm.graphql_blocked_fields = (sluice_strlist){ BLOCKED, 2 };
    return cm;
}

static const sluice_codefacts *
analyze_with(sluice_arena *a, const sluice_config_code_mode *cm, const char *code, const char *vars)
{
    sluice_frontend_context ctx = { .code_mode = cm, .schema = &backend_schema };
    sluice_codefacts *f = NULL;
    sluice_error err;
    assert_int_equal(
        sluice_graphql_frontend()->analyze(a, code, strlen(code), vars, &ctx, &f, &err), SLUICE_OK);
    return f;
}

static const sluice_codefacts *analyze(sluice_arena *a, const char *code)
{
    static sluice_config_code_mode cm;
    cm = rules();
    return analyze_with(a, &cm, code, NULL);
}

static void test_seed_facts(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    const sluice_codefacts *f = analyze(a, SEED);
    assert_false(sluice_codefacts_refused(f));
    assert_int_equal(f->action, SLUICE_ACTION_READ);
    assert_string_equal(f->statement_kind, "QUERY");
    assert_int_equal(f->depth, 3);
    /* 1 (customers) + 3 x 3 leaves + 3 orders + 6 x 3 + 3 tickets + 30 x 3 (10 assumed) */
    assert_int_equal(f->complexity, 124);
    assert_int_equal(f->operations.count, 1);
    assert_string_equal(f->operations.items[0], "customers");
    assert_true(sluice_codefacts_list_has(&f->fields_read, "Order.total"));
    assert_int_equal(f->output_count, 9);
    assert_string_equal(f->outputs[4].name, "customers.orders.total");
    assert_string_equal(f->outputs[4].lineage.items[0], "Order.total");
    assert_string_equal(sluice_graphql_facts_of(f)->operation_name, "RecentCustomersSnapshot");
    assert_string_equal(sluice_graphql_frontend()->explain(a, f),
                        "Reads customers (orderBy: {createdAt: DESC}, limit: 3) with id, name, "
                        "segment; for each, orders (orderBy: {placedAt: DESC}, limit: 2) with id, "
                        "total, placedAt; and supportTickets (filter: {status: OPEN}) with id, "
                        "subject, priority.");
    const char *why = NULL;
    assert_int_equal(sluice_graphql_frontend()->risk(f, &why), SLUICE_RISK_LOW);
    /* the canonical hash ignores whitespace and commas, not order */
    char h1[65], h2[65];
    sluice_error err;
    const char *other =
        "query RecentCustomersSnapshot{customers(orderBy:{createdAt:DESC},limit:3)"
        "{id,name,segment,orders(orderBy:{placedAt:DESC},limit:2){id total placedAt}"
        " supportTickets(filter:{status:OPEN}){id subject priority}}}";
    assert_int_equal(
        sluice_graphql_frontend()->canonical_hash(a, SEED, strlen(SEED), NULL, h1, &err),
        SLUICE_OK);
    assert_int_equal(
        sluice_graphql_frontend()->canonical_hash(a, other, strlen(other), NULL, h2, &err),
        SLUICE_OK);
    assert_string_equal(h1, h2);
    assert_string_equal(h1, f->code_hash);
    sluice_arena_free(a);
}

/* Each limit, exceeded only once fragments are expanded (the text alone stays under it). */
static void test_limits_through_fragments(void **state)
{
    (void)state;
    static const struct {
        const char *rule, *code, *message;
    } cases[] = {
        { "graphql_max_aliases",
          "{ customers { ...A ...A2 } } fragment A on Customer { a1: id a2: id a3: id a4: id a5: "
          "id a6: id a7: id a8: id } fragment A2 on Customer { ...A }",
          "graphql_max_aliases is 15; the operation reaches 16 at customers.a8" },
        { "graphql_max_root_fields",
          "{ ...R ...R2 ...R3 } fragment R on Query { a: customers { id } b: customers { id } c: "
          "customers { id } d: customers { id } e: customers { id } f: customers { id } g: "
          "customers { id } } fragment R2 on Query { ...R } fragment R3 on Query { ...R }",
          "graphql_max_root_fields is 20; the operation reaches 21 at g" },
        { "graphql_max_directives",
          "{ customers { ...D ...D ...D ...D ...D ...D } } fragment D on Customer { id "
          "@include(if: true) name @skip(if: false) a: id @include(if: true) b: id @include(if: "
          "true) c: id @include(if: true) d: id @include(if: true) e: id @include(if: true) f: id "
          "@include(if: true) g: id @include(if: true) }",
          "graphql_max_directives is 50; the operation reaches 51 at customers.d" },
        { "graphql_max_cost",
          "{ customers(limit: 62) { ...C } } fragment C on Customer { orders(limit: 80) { id } }",
          "graphql_max_cost is 5000; the operation costs 5023 (one per field, times the list "
          "sizes above it; fragments expanded, aliases counted) and passes the limit at "
          "customers.orders.id" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sluice_arena *a = sluice_arena_new();
        const sluice_codefacts *f = analyze(a, cases[i].code);
        const sluice_codefacts_violation *v = facts_violation(f, cases[i].rule);
        if (v == NULL)
            fail_msg("%s: not refused (%zu violations)", cases[i].rule, f->violation_count);
        if (strstr(v->message, cases[i].message) == NULL)
            fail_msg("%s: %s", cases[i].rule, v->message);
        assert_true(v->line > 0 && v->column > 0);
        sluice_arena_free(a);
    }
}

static void test_depth_tokens_chars(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config_code_mode cm = rules();
    cm.graphql_max_depth = 2;
    const sluice_codefacts *f = analyze_with(
        a, &cm, "{ customers { ...O } } fragment O on Customer { x: orders { id } }", NULL);
    const sluice_codefacts_violation *v = facts_violation(f, "graphql_max_depth");
    assert_non_null(v);
    assert_non_null(strstr(v->message, "graphql_max_depth is 2; the operation reaches 3 at "
                                       "customers.x.id"));
    cm = rules();
    cm.graphql_max_tokens = 10;
    assert_non_null(facts_violation(
        analyze_with(a, &cm, "{ customers { id name segment plan orders { id } } }", NULL),
        "graphql_max_tokens"));
    cm = rules();
    cm.graphql_max_chars = 20;
    assert_non_null(facts_violation(analyze_with(a, &cm, "{ customers { id name segment } }", NULL),
                                    "graphql_max_chars"));
    sluice_arena_free(a);
}

/* 2^30 expanded fields from 30 fragments: refused quickly, not walked. */
static void test_exponential_fragments_bounded(void **state)
{
    (void)state;
    char doc[8192];
    int n =
        snprintf(doc, sizeof doc, "{ customer(id: 1) { ...F30 } } fragment F0 on Customer { id }");
    for (int i = 1; i <= 30; i++)
        n += snprintf(doc + n, sizeof doc - (size_t)n,
                      " fragment F%d on Customer { ...F%d ...F%d }", i, i - 1, i - 1);
    sluice_arena *a = sluice_arena_new();
    sluice_config_code_mode cm = rules();
    cm.graphql_max_cost = 1000000000;
    cm.graphql_max_tokens = 5000;
    const sluice_codefacts *f = analyze_with(a, &cm, doc, NULL);
    assert_non_null(facts_violation(f, "graphql_expansion"));
    sluice_arena_free(a);
}

static void test_blocked_fields(void **state)
{
    (void)state;
    static const char *const refused[] = {
        "{ customers { x: ssn } }",
        "{ customers { ...F } } fragment F on Customer { e: email }",
        "{ customers { ... on Party { email } } }",
        "{ customers { ... { ... on Customer { ssn } } } }",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        sluice_arena *a = sluice_arena_new();
        if (facts_violation(analyze(a, refused[i]), "graphql_blocked_fields") == NULL)
            fail_msg("not refused: %s", refused[i]);
        sluice_arena_free(a);
    }
    sluice_arena *a = sluice_arena_new();
    const sluice_codefacts *f = analyze(a, "{ customers(filter: { email: \"x@y\" }) { name } }");
    assert_false(sluice_codefacts_refused(f));
    assert_true(f->blocked_in_predicate);
    const char *why;
    assert_int_equal(sluice_graphql_frontend()->risk(f, &why), SLUICE_RISK_HIGH);
    sluice_arena_free(a);
}

static void test_actions(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config_code_mode cm = rules();
    assert_int_equal(analyze_with(a, &cm, "{ a: __schema { types { name } } }", NULL)->action,
                     SLUICE_ACTION_ADMIN);
    assert_int_equal(
        analyze_with(a, &cm, "{ ...I } fragment I on Query { __type(name: \"Customer\") { name } }",
                     NULL)
            ->action,
        SLUICE_ACTION_ADMIN);
    cm.graphql_allow_introspection = true;
    assert_int_equal(analyze_with(a, &cm, "{ __schema { types { name } } }", NULL)->action,
                     SLUICE_ACTION_READ);
    cm = rules();
    const sluice_codefacts *m = analyze_with(
        a, &cm, "mutation { updateCustomerSegment(id: 1, segment: \"SMB\") { id } }", NULL);
    assert_int_equal(m->action, SLUICE_ACTION_WRITE);
    assert_non_null(facts_violation(m, "allowed_mutations"));
    static const char *ops[] = { "deleteSupportTicket" };
    static const char *allowed[] = { "deleteSupportTicket", "updateCustomerSegment" };
    cm.delete_operations = (sluice_strlist){ ops, 1 };
    cm.allowed_mutations = (sluice_strlist){ allowed, 2 };
    m = analyze_with(a, &cm,
                     "mutation { a: updateCustomerSegment(id: 1, segment: \"SMB\") { id } b: "
                     "deleteSupportTicket(id: 2) }",
                     NULL);
    assert_false(sluice_codefacts_refused(m));
    assert_int_equal(m->action, SLUICE_ACTION_DELETE);
    assert_int_equal(m->operations.count, 2);
    static const char *pattern[] = { "delete*" };
    cm.delete_operations.count = 0;
    cm.graphql_delete_patterns = (sluice_strlist){ pattern, 1 };
    assert_int_equal(analyze_with(a, &cm, "mutation { deleteSupportTicket(id: 2) }", NULL)->action,
                     SLUICE_ACTION_DELETE);
    assert_non_null(facts_violation(analyze_with(a, &cm, "subscription { customers { id } }", NULL),
                                    "graphql_subscriptions"));
    assert_non_null(
        facts_violation(analyze_with(a, &cm, "type T { a: Int } { customers { id } }", NULL),
                        "ExecutableDefinitions"));
    sluice_arena_free(a);
}

static void test_operation_name_and_variables(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config_code_mode cm = rules();
    const char *doc =
        "query A { customers { id } } query B($id: ID!) { customer(id: $id) { name } }";
    assert_non_null(facts_violation(analyze_with(a, &cm, doc, NULL), "graphql_operation_name"));
    const sluice_codefacts *f = analyze_with(a, &cm, doc, "{\"$operationName\": \"A\"}");
    assert_false(sluice_codefacts_refused(f));
    assert_string_equal(f->operations.items[0], "customers");
    assert_non_null(facts_violation(analyze_with(a, &cm, doc, "{\"$operationName\": \"B\"}"),
                                    "graphql_variables"));
    f = analyze_with(a, &cm, doc, "{\"$operationName\": \"B\", \"id\": \"4\"}");
    assert_false(sluice_codefacts_refused(f));
    assert_string_equal(f->operations.items[0], "customer");
    assert_non_null(
        facts_violation(analyze_with(a, &cm, doc, "{\"$operationName\": \"B\", \"id\": true}"),
                        "graphql_variables"));
    assert_non_null(facts_violation(analyze_with(a, &cm, doc, "{\"$operationName\": \"C\"}"),
                                    "graphql_operation_name"));
    /* a variable's list size counts in the cost */
    f = analyze_with(a, &cm, "query Q($n: Int) { customers(limit: $n) { id name } }",
                     "{\"n\": 4000}");
    assert_non_null(facts_violation(f, "graphql_max_cost"));
    sluice_arena_free(a);
}

static json_t *shaped(const char *code,
                      const char *response,
                      bool refuse,
                      int64_t cap,
                      sluice_status *st,
                      sluice_exec_walk *sh)
{
    static const sluice_strlist blocked = { BLOCKED, 2 };
    static const sluice_strlist none = { 0 };
    json_t *data = json_loads(response, 0, NULL);
    assert_non_null(data);
    *sh = (sluice_exec_walk){ .code = code,
                              .code_len = strlen(code),
                              .document = sdl,
                              .document_len = sdl_len,
                              .blocked = { &blocked, &none },
                              .refuse = refuse,
                              .max_list_items = cap };
    sluice_arena *a = sluice_arena_new();
    sluice_error err;
    *st = sluice_graphql_shape(a, data, sh, &err);
    sh->first_hit = sh->first_hit != NULL ? "set" : NULL; /* the arena goes */
    sluice_arena_free(a);
    return data;
}

static void test_shaper(void **state)
{
    (void)state;
    sluice_status st;
    sluice_exec_walk sh;
    /* an alias hiding a blocked field, through a fragment; and a key nobody asked for */
    json_t *d = shaped("{ customers { id ...F } } fragment F on Customer { x: ssn }",
                       "{\"customers\":[{\"id\":\"1\",\"x\":\"123-45-6789\",\"email\":\"a@b\"}]}",
                       false, 0, &st, &sh);
    assert_int_equal(st, SLUICE_OK);
    char *text = json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS);
    assert_string_equal(text, "{\"customers\":[{\"id\":\"1\"}]}");
    assert_int_equal(sh.stripped, 2);
    free(text);
    json_decref(d);
    d = shaped("{ customers { ... on Party { e: email } } }", "{\"customers\":[{\"e\":\"a@b\"}]}",
               true, 0, &st, &sh);
    assert_int_equal(st, SLUICE_E_DENIED);
    json_decref(d);
    d = shaped("{ customers { id orders { id } } }",
               "{\"customers\":[{\"id\":\"1\",\"orders\":[{\"id\":\"1\"},{\"id\":\"2\"},{\"id\":"
               "\"3\"}]},{\"id\":\"2\",\"orders\":[]},{\"id\":\"3\",\"orders\":[]}]}",
               false, 2, &st, &sh);
    assert_int_equal(st, SLUICE_OK);
    assert_true(sh.truncated);
    assert_int_equal(json_array_size(json_object_get(d, "customers")), 2);
    assert_int_equal(json_array_size(json_object_get(
                         json_array_get(json_object_get(d, "customers"), 0), "orders")),
                     2);
    json_decref(d);
}

/* A blocked field named in an argument: equality (one scalar under its own name, literal or
 * variable) is a lookup at high risk; a prefix, an order, a list of guesses or an operator
 * object, however spelled or passed, is refused. The example schema's filters are shaped so. */
static void test_blocked_predicates(void **state)
{
    (void)state;
    static const char *const FILTER_SDL =
        "enum Order { ID SSN_DESC EMAIL }\n"
        "input StringFilter { startsWith: String }\n"
        "input F { ssn: String ssnStartsWith: String ssn_in: [String] email: StringFilter "
        "customer_ssn_gt: String emailaddress: String order: Order }\n"
        "type C { id: ID! name: String ssn: String email: String }\n"
        "type Query { cs(filter: F, orderBy: Order, ssn: String, SSNPrefix: String): [C] }\n";
    sluice_schema own = { .document = FILTER_SDL, .document_len = strlen(FILTER_SDL) };
    sluice_config_code_mode cm = rules();
    static const char *BLOCKED_C[] = { "C.ssn", "C.email" };
    cm.graphql_blocked_fields = (sluice_strlist){ BLOCKED_C, 2 };
    sluice_frontend_context ctx = { .code_mode = &cm, .schema = &own };
    static const struct {
        const char *code, *vars;
    } refused[] = {
        { "{ cs(filter: { ssnStartsWith: \"k\" }) { id } }", NULL },
        { "{ cs(filter: { ssn_in: [\"a\", \"b\"] }) { id } }", NULL },
        { "{ cs(filter: { email: { startsWith: \"a\" } }) { id } }", NULL },
        { "{ cs(filter: { customer_ssn_gt: \"5\" }) { id } }", NULL },
        { "{ cs(orderBy: SSN_DESC) { id } }", NULL },
        { "{ cs(filter: { order: EMAIL }) { id } }", NULL },
        { "{ cs(SSNPrefix: \"k\") { id } }", NULL },
        { "query Q($o: Order = SSN_DESC) { cs(orderBy: $o) { id } }", NULL },
        { "query Q($o: Order = ID) { cs(orderBy: $o) { id } }", "{\"o\": \"SSN_DESC\"}" },
        { "query Q($f: F) { cs(filter: $f) { id } }", "{\"f\": {\"ssnStartsWith\": \"k\"}}" },
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        sluice_arena *a = sluice_arena_new();
        sluice_codefacts *f = NULL;
        sluice_error err;
        const char *code = refused[i].code;
        assert_int_equal(sluice_graphql_frontend()->analyze(a, code, strlen(code), refused[i].vars,
                                                            &ctx, &f, &err),
                         SLUICE_OK);
        if (facts_violation(f, "graphql_blocked_predicate") == NULL)
            fail_msg("not refused: %s", code);
        sluice_arena_free(a);
    }
    static const struct {
        const char *code, *vars;
    } lookups[] = {
        { "{ cs(ssn: \"a\") { id } }", NULL },
        { "{ cs(filter: { ssn: \"a\", emailaddress: \"b\" }) { id } }", NULL },
        { "query Q($f: F) { cs(filter: $f) { id } }", "{\"f\": {\"ssn\": \"a\"}}" },
    };
    for (size_t i = 0; i < sizeof lookups / sizeof lookups[0]; i++) {
        sluice_arena *a = sluice_arena_new();
        sluice_codefacts *f = NULL;
        sluice_error err;
        const char *code = lookups[i].code;
        assert_int_equal(sluice_graphql_frontend()->analyze(a, code, strlen(code), lookups[i].vars,
                                                            &ctx, &f, &err),
                         SLUICE_OK);
        if (sluice_codefacts_refused(f) || !f->blocked_in_predicate)
            fail_msg("an equality lookup not allowed at high risk: %s", code);
        const char *why;
        assert_int_equal(sluice_graphql_frontend()->risk(f, &why), SLUICE_RISK_HIGH);
        sluice_arena_free(a);
    }
    /* names that only look alike are not the field: no risk raised, nothing refused */
    sluice_arena *a = sluice_arena_new();
    sluice_codefacts *f = NULL;
    sluice_error err;
    const char *plain = "{ cs(filter: { emailaddress: \"b\" }, orderBy: ID) { id name } }";
    assert_int_equal(
        sluice_graphql_frontend()->analyze(a, plain, strlen(plain), NULL, &ctx, &f, &err),
        SLUICE_OK);
    assert_false(sluice_codefacts_refused(f));
    assert_false(f->blocked_in_predicate);
    sluice_arena_free(a);
}

/* A field blocked on an interface (Party.email) is blocked in every implementation, whichever
 * type the selection names: validation refuses it and the response walk strips it. */
static void test_blocked_on_interface(void **state)
{
    (void)state;
    static const char *ON_PARTY[] = { "Party.email" };
    static const char *const refused[] = {
        "{ customers { email } }",
        "{ customers { x: email } }",
        "{ customers { ...F } } fragment F on Customer { e: email }",
        "{ customers { ... on Customer { email } } }",
        "{ customers { ... on Party { email } } }",
    };
    sluice_config_code_mode cm = rules();
    cm.graphql_blocked_fields = (sluice_strlist){ ON_PARTY, 1 };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        sluice_arena *a = sluice_arena_new();
        if (facts_violation(analyze_with(a, &cm, refused[i], NULL), "graphql_blocked_fields") ==
            NULL)
            fail_msg("not refused: %s", refused[i]);
        sluice_arena_free(a);
    }
    sluice_arena *a = sluice_arena_new();
    assert_false(sluice_codefacts_refused(analyze_with(a, &cm, "{ customers { name } }", NULL)));
    sluice_arena_free(a);
    /* the second line: the walk strips it on the implementing type */
    static const sluice_strlist blocked = { ON_PARTY, 1 };
    static const sluice_strlist none = { 0 };
    static const char code[] = "{ customers { name x: email } }";
    json_t *d = json_loads("{\"customers\":[{\"name\":\"A\",\"x\":\"a@b\"}]}", 0, NULL);
    sluice_exec_walk sh = { .code = code,
                            .code_len = strlen(code),
                            .document = sdl,
                            .document_len = sdl_len,
                            .blocked = { &blocked, &none } };
    a = sluice_arena_new();
    sluice_error err;
    assert_int_equal(sluice_graphql_shape(a, d, &sh, &err), SLUICE_OK);
    char *text = json_dumps(d, JSON_COMPACT);
    assert_string_equal(text, "{\"customers\":[{\"name\":\"A\"}]}");
    free(text);
    json_decref(d);
    sluice_arena_free(a);
}

/* Every allocation failure is an error or an incomplete (refused) record, never a clean one. */
/* A GitHub-shaped schema: connections whose first/last size their nodes and edges. */
static const char CONNECTIONS[] =
    "type Query { repository(owner: String!, name: String!): Repository }\n"
    "type Repository { issues(first: Int, last: Int): IssueConnection! }\n"
    "type IssueConnection { totalCount: Int! nodes: [Issue] edges: [IssueEdge] pageInfo: "
    "PageInfo! }\n"
    "type IssueEdge { cursor: String! node: Issue }\n"
    "type PageInfo { hasNextPage: Boolean! }\n"
    "type Issue { number: Int! comments(first: Int): CommentConnection! }\n"
    "type CommentConnection { totalCount: Int! nodes: [Comment] }\n"
    "type Comment { body: String reactions(first: Int, perPage: Int): ReactionConnection! }\n"
    "type ReactionConnection { nodes: [Reaction] }\n"
    "type Reaction { content: String }\n";

static const sluice_codefacts *on_connections(sluice_arena *a,
                                              const sluice_config_code_mode *cm,
                                              const char *code,
                                              const char *vars)
{
    static sluice_schema schema;
    schema.document = CONNECTIONS;
    schema.document_len = sizeof CONNECTIONS - 1;
    sluice_frontend_context ctx = { .code_mode = cm, .schema = &schema };
    sluice_codefacts *f = NULL;
    sluice_error err;
    assert_int_equal(
        sluice_graphql_frontend()->analyze(a, code, strlen(code), vars, &ctx, &f, &err), SLUICE_OK);
    return f;
}

/* graphql-js's type map holds Int, Float and ID only where the schema uses them: the
 * connections schema has no Float and no ID, so neither is offered for a typo of it. */
static void test_did_you_mean_unused_scalars(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config_code_mode cm = rules();
    const sluice_codefacts *f =
        on_connections(a, &cm, "query Q($x: Flot, $y: Ids, $z: Strng) { __typename }", NULL);
    static const char *const want[] = {
        "Unknown type \"Flot\".",
        "Unknown type \"Ids\". Did you mean \"Int\"?",
        "Unknown type \"Strng\". Did you mean \"String\"?",
    };
    size_t seen = 0;
    for (size_t i = 0; i < f->violation_count; i++)
        if (strcmp(f->violations[i].rule, "KnownTypeNames") == 0) {
            assert_true(seen < 3);
            assert_string_equal(f->violations[i].message, want[seen++]);
        }
    assert_int_equal(seen, 3);
    sluice_arena_free(a);
}

/* The cost multiplies by the page sizes asked for, as GitHub's node limit does: a connection's
 * first/last sizes its nodes and edges, nested connections multiply, and what is not a list
 * under a connection (totalCount, pageInfo) is counted once per connection. */
static void test_cost_multiplies_page_sizes(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config_code_mode cm = rules();
    const char *million =
        "{ repository(owner: \"o\", name: \"r\") { issues(first: 100) { nodes { comments(first: "
        "100) { nodes { reactions(first: 100) { nodes { content } } } } } } } }";
    const sluice_codefacts *f = on_connections(a, &cm, million, NULL);
    const sluice_codefacts_violation *v = facts_violation(f, "graphql_max_cost");
    assert_non_null(v);
    /* 1 + 1 + 1 + 100 + 100 + 100^2 + 100^2 + 100^3 */
    assert_int_equal(sluice_graphql_facts_of(f)->cost, 1020203);
    assert_non_null(strstr(v->message, "the operation costs 1020203"));
    assert_non_null(
        strstr(v->message, "passes the limit at repository.issues.nodes.comments.nodes.reactions"));
    /* totalCount and pageInfo count once per connection; edges take the page size */
    f = on_connections(a, &cm,
                       "{ repository(owner: \"o\", name: \"r\") { issues(last: 50) { totalCount "
                       "pageInfo { hasNextPage } edges { cursor node { number comments { "
                       "totalCount } } } } } }",
                       NULL);
    assert_false(sluice_codefacts_refused(f));
    /* repository, issues, totalCount, pageInfo, hasNextPage, edges: 6; cursor, node: 2 x 50;
     * number, comments, totalCount: 3 x 50 */
    assert_int_equal(sluice_graphql_facts_of(f)->cost, 6 + 100 + 150);
    /* a variable's value, else its default, sizes the page; a configured size argument too */
    const char *q = "query Q($n: Int = 30) { repository(owner: \"o\", name: \"r\") { issues(first: "
                    "$n) { nodes { number } } } }";
    assert_int_equal(sluice_graphql_facts_of(on_connections(a, &cm, q, NULL))->cost, 3 + 30);
    assert_int_equal(sluice_graphql_facts_of(on_connections(a, &cm, q, "{\"n\": 70}"))->cost,
                     3 + 70);
    const char *per_page = "{ repository(owner: \"o\", name: \"r\") { issues(first: 2) { nodes { "
                           "comments(first: 1) { nodes { reactions(perPage: 400) { nodes { content "
                           "} } } } } } } }";
    int64_t unsized = sluice_graphql_facts_of(on_connections(a, &cm, per_page, NULL))->cost;
    static const char *size_args[] = { "perPage" };
    cm.graphql_size_arguments = (sluice_strlist){ size_args, 1 };
    int64_t sized = sluice_graphql_facts_of(on_connections(a, &cm, per_page, NULL))->cost;
    assert_int_equal(unsized, 1 + 1 + 1 + 2 + 2 + 2 + 2 + 2 * 10);
    assert_int_equal(sized, 1 + 1 + 1 + 2 + 2 + 2 + 2 + 2 * 400);
    sluice_arena_free(a);
}

/* An unknown field is refused in graphql-js's words, with its suggestions. */
static void test_did_you_mean(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    static const struct {
        const char *code, *message;
    } cases[] = {
        { "{ customers(limt: 3) { id } }",
          "Unknown argument \"limt\" on field \"customers\". Did you mean \"limit\"?" },
        { "{ customers(orderby: { createdAt: DESC }) { id } }",
          "Unknown argument \"orderby\" on field \"customers\". Did you mean \"orderBy\"?" },
        { "{ customers(zzzzzz: 1) { id } }",
          "Unknown argument \"zzzzzz\" on field \"customers\"." },
        { "{ customers { nme } }",
          "Cannot query field \"nme\" on type \"Customer\". Did you mean \"name\"?" },
        { "{ customers { Orders { id } } }",
          "Cannot query field \"Orders\" on type \"Customer\". Did you mean \"orders\"?" },
        { "{ customers { idd } }",
          "Cannot query field \"idd\" on type \"Customer\". Did you mean \"id\"?" },
        { "{ customerz { id } }", "Cannot query field \"customerz\" on type \"Query\". Did you "
                                  "mean \"customer\" or \"customers\"?" },
        { "{ customers { zzzzzz } }", "Cannot query field \"zzzzzz\" on type \"Customer\"." },
        { "{ customer(id: 1) { ... on Party { segment } } }",
          "Cannot query field \"segment\" on type \"Party\". Did you mean to use an inline "
          "fragment on \"Customer\"?" },
        /* KnownTypeNames over graphql-js's type map, in all three places a type is named */
        { "query Q($f: CustomerFiltr) { customers(filter: $f) { id } }",
          "Unknown type \"CustomerFiltr\". Did you mean \"CustomerFilter\", \"CustomerOrder\", "
          "or \"Customer\"?" },
        { "query Q($f: Itn) { customers(limit: $f) { id } }",
          "Unknown type \"Itn\". Did you mean \"Int\" or \"ID\"?" },
        { "{ customer(id: 1) { ... on Custmer { id } } }",
          "Unknown type \"Custmer\". Did you mean \"Customer\"?" },
        { "fragment F on Ordr { id } { customers { orders { ...F } } }",
          "Unknown type \"Ordr\". Did you mean \"Order\"?" },
        { "query Q($f: Zzzzzz) { customers(limit: $f) { id } }", "Unknown type \"Zzzzzz\"." },
        /* enum values: graphql-js's parseLiteral messages; a string's quotes count */
        { "{ customers(orderBy: {createdAt: DSC}) { id } }",
          "Value \"DSC\" does not exist in \"SortDirection\" enum. Did you mean the enum value "
          "\"ASC\" or \"DESC\"?" },
        { "{ customers(orderBy: {createdAt: \"DESC\"}) { id } }",
          "Enum \"SortDirection\" cannot represent non-enum value: \"DESC\". Did you mean the "
          "enum value \"DESC\"?" },
        { "{ customers { supportTickets(filter: {status: open}) { id } } }",
          "Value \"open\" does not exist in \"TicketStatus\" enum. Did you mean the enum value "
          "\"OPEN\"?" },
        { "{ customers { supportTickets(filter: {status: ZZZZ}) { id } } }",
          "Value \"ZZZZ\" does not exist in \"TicketStatus\" enum." },
        { "{ customers { supportTickets(filter: {status: 3}) { id } } }",
          "Enum \"TicketStatus\" cannot represent non-enum value: 3." },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* the rule is the message's: an unknown argument, type or field, or an enum value */
        const char *m = cases[i].message;
        const char *rule = strncmp(m, "Unknown argument", 16) == 0 ? "KnownArgumentNames"
                           : strncmp(m, "Unknown type", 12) == 0   ? "KnownTypeNames"
                           : strncmp(m, "Cannot query", 12) == 0   ? "FieldsOnCorrectType"
                                                                   : "ValuesOfCorrectType";
        const sluice_codefacts_violation *v = facts_violation(analyze(a, cases[i].code), rule);
        if (v == NULL || strcmp(v->message, cases[i].message) != 0)
            fail_msg("%s: %s", cases[i].code, v != NULL ? v->message : "(accepted)");
    }
    sluice_arena_free(a);
}

/* Introspection documents are validated against the introspection types: fragments on __Type,
 * nested ofType, arguments; their limits count; a typo is refused with a suggestion. */
static void test_introspection_documents(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config_code_mode cm = rules();
    cm.graphql_allow_introspection = true;
    const char *doc =
        "query Types { __schema { queryType { name } types { ...FullType } directives { name "
        "locations args { ...Input } } } }\n"
        "fragment FullType on __Type { kind name fields(includeDeprecated: true) { name args { "
        "...Input } type { ...Ref } isDeprecated } enumValues { name } possibleTypes { name } }\n"
        "fragment Input on __InputValue { name type { ...Ref } defaultValue }\n"
        "fragment Ref on __Type { kind name ofType { kind name } }";
    cm.graphql_max_cost = 1000000;
    const sluice_codefacts *f = analyze_with(a, &cm, doc, NULL);
    for (size_t i = 0; i < f->violation_count; i++)
        fail_msg("%s: %s", f->violations[i].rule, f->violations[i].message);
    assert_int_equal(f->action, SLUICE_ACTION_READ);
    assert_true(sluice_graphql_facts_of(f)->introspection);
    assert_true(sluice_graphql_facts_of(f)->cost > 1000);
    assert_int_equal(f->output_count, 0); /* schema, not data */
    f = analyze_with(a, &cm, "{ __type(name: \"Customer\") { nme fields { name } } }", NULL);
    const sluice_codefacts_violation *v = facts_violation(f, "FieldsOnCorrectType");
    assert_non_null(v);
    assert_string_equal(v->message,
                        "Cannot query field \"nme\" on type \"__Type\". Did you mean \"name\"?");
    assert_non_null(facts_violation(analyze_with(a, &cm, "{ __type { name } }", NULL),
                                    "ProvidedRequiredArguments"));
    assert_non_null(
        facts_violation(analyze_with(a, &cm, "{ __schema { types } }", NULL), "ScalarLeafs"));
    assert_non_null(
        facts_violation(analyze_with(a, &cm, "{ customers { __schema { types { name } } } }", NULL),
                        "FieldsOnCorrectType"));
    /* the depth limit counts inside introspection too */
    cm.graphql_max_depth = 3;
    assert_non_null(facts_violation(
        analyze_with(a, &cm, "{ __schema { types { fields { type { name } } } } }", NULL),
        "graphql_max_depth"));
    sluice_arena_free(a);
}

static void test_fail_closed(void **state)
{
    (void)state;
    sluice_config_code_mode cm = rules();
    sluice_frontend_context ctx = { .code_mode = &cm, .schema = &backend_schema };
    cm.graphql_allow_introspection = true;
    /* data, introspection and a typo (suggestions allocate): every allocation fails in turn */
    const char *docs[] = {
        "query Q($n: Int) { customers(limit: $n, filter: { email: \"x\" }) { ...F orders { id } } "
        "__type(name: \"Order\") { "
        "...T } } fragment F on Customer { id name } fragment T on __Type { name fields { name } }",
        "{ customers { nme } }",
    };
    for (size_t d = 0; d < 2; d++)
        for (long n = 1;; n++) {
            sluice_arena *a = sluice_arena_new();
            assert_non_null(a);
            sluice_codefacts *f = NULL;
            sluice_error err;
            sluice_arena_fail_at(n);
            const char *doc = docs[d];
            sluice_status st = sluice_graphql_frontend()->analyze(a, doc, strlen(doc), "{\"n\": 2}",
                                                                  &ctx, &f, &err);
            bool pending = sluice_arena_fail_pending();
            sluice_arena_fail_at(0);
            if (pending) { /* the run never reached its nth allocation: the sweep is done */
                assert_int_equal(st, SLUICE_OK);
                assert_true(sluice_codefacts_refused(f) == (d == 1));
                sluice_arena_free(a);
                break;
            }
            if (!(st != SLUICE_OK || sluice_codefacts_refused(f)))
                fail_msg("allocation %ld failed and the analysis was clean", n);
            sluice_arena_free(a);
            assert_true(n < 100000);
        }
}

/* max_field_count (pmcp's key): every selected field counts, through fragments and aliases. */
static void test_max_field_count(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config_code_mode cm = rules();
    cm.max_field_count = 4;
    assert_false(
        sluice_codefacts_refused(analyze_with(a, &cm, "{ customers { id name segment } }", NULL)));
    const sluice_codefacts *f = analyze_with(
        a, &cm, "{ customers { ...F x: id y: name } } fragment F on Customer { id name }", NULL);
    const sluice_codefacts_violation *v = facts_violation(f, "max_field_count");
    assert_non_null(v);
    assert_non_null(strstr(v->message, "max_field_count is 4; the operation reaches 5"));
    sluice_arena_free(a);
}

/* action_tags name root fields: a tag moves a mutation's class either way, and a caller's
 * operation name (which they choose) is never a key. */
static void test_action_tags_name_root_fields(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config_code_mode cm = rules();
    static const char *allowed[] = { "deleteSupportTicket", "updateCustomerSegment" };
    cm.allowed_mutations = (sluice_strlist){ allowed, 2 };
    static const char *names[] = { "updateCustomerSegment", "customers", "readOnly" };
    static const char *acts[] = { "admin", "write", "read" };
    cm.action_tags = (sluice_config_action_tags){ names, acts, 3 };
    assert_int_equal(
        analyze_with(a, &cm, "mutation { updateCustomerSegment(id: 1, segment: \"A\") { id } }",
                     NULL)
            ->action,
        SLUICE_ACTION_ADMIN);
    assert_int_equal(analyze_with(a, &cm, "{ customers { id } }", NULL)->action,
                     SLUICE_ACTION_WRITE);
    /* the operation's own name is not a tag key */
    assert_int_equal(
        analyze_with(a, &cm, "mutation readOnly { deleteSupportTicket(id: 2) }", NULL)->action,
        SLUICE_ACTION_WRITE);
    static const char *lower[] = { "deleteSupportTicket" };
    static const char *read[] = { "read" };
    cm.action_tags = (sluice_config_action_tags){ lower, read, 1 };
    const sluice_codefacts *f =
        analyze_with(a, &cm, "mutation { deleteSupportTicket(id: 2) }", NULL);
    assert_int_equal(f->action, SLUICE_ACTION_READ);
    /* a tag moves the class, never the allow lists */
    cm.allowed_mutations.count = 0;
    f = analyze_with(a, &cm, "mutation { deleteSupportTicket(id: 2) }", NULL);
    assert_non_null(facts_violation(f, "allowed_mutations"));
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_facts),
        cmocka_unit_test(test_limits_through_fragments),
        cmocka_unit_test(test_depth_tokens_chars),
        cmocka_unit_test(test_exponential_fragments_bounded),
        cmocka_unit_test(test_blocked_fields),
        cmocka_unit_test(test_blocked_on_interface),
        cmocka_unit_test(test_blocked_predicates),
        cmocka_unit_test(test_actions),
        cmocka_unit_test(test_operation_name_and_variables),
        cmocka_unit_test(test_shaper),
        cmocka_unit_test(test_cost_multiplies_page_sizes),
        cmocka_unit_test(test_did_you_mean),
        cmocka_unit_test(test_did_you_mean_unused_scalars),
        cmocka_unit_test(test_introspection_documents),
        cmocka_unit_test(test_fail_closed),
        cmocka_unit_test(test_max_field_count),
        cmocka_unit_test(test_action_tags_name_root_fields),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
