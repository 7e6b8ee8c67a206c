/*
 * test_graphql_schema.c — the schema model built from SDL (src/syntax/graphql/schema.c): the
 * example server's schema from issue 10 with every lookup validation will make, extensions
 * merged, built-ins present and replaceable, each refusal asserted whole with its line and
 * column, and allocation failure at every step.
 */
#include "syntax/graphql/schema.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

static const char SDL[] =
    "\"The demo shop\"\n"
    "type Query {\n"
    "  customers(orderBy: CustomerOrder, limit: Int, filter: CustomerFilter): [Customer!]!\n"
    "  customer(id: ID!): Customer\n"
    "  search(text: String!): [SearchResult!]!\n"
    "}\n"
    "type Mutation {\n"
    "  updateCustomerSegment(id: ID!, segment: String!): Customer\n"
    "  deleteSupportTicket(id: ID!): Boolean\n"
    "}\n"
    "interface Node { id: ID! }\n"
    "type Customer implements Node {\n"
    "  id: ID! name: String segment: String plan: String createdAt: String email: String\n"
    "  ssn: String\n"
    "  orders(orderBy: OrderOrder, limit: Int): [Order!]!\n"
    "  supportTickets(filter: TicketFilter): [SupportTicket!]!\n"
    "}\n"
    "type Order implements Node { id: ID! total: Float placedAt: String status: String }\n"
    "type SupportTicket implements Node { id: ID! subject: String priority: String status: "
    "TicketStatus }\n"
    "union SearchResult = Customer | Order\n"
    "enum SortDirection { ASC DESC }\n"
    "enum TicketStatus { OPEN CLOSED }\n"
    "input CustomerOrder { createdAt: SortDirection }\n"
    "input OrderOrder { placedAt: SortDirection }\n"
    "input CustomerFilter { segment: String }\n"
    "input TicketFilter { status: TicketStatus }\n"
    "extend type Customer { loyalty: Int }\n"
    "extend enum TicketStatus { PENDING }\n"
    "extend union SearchResult = SupportTicket\n"
    "extend input CustomerFilter { plan: String }\n";

static sluice_gql_schema *build(sluice_arena *a, const char *sdl)
{
    sluice_gql_schema *s = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st = sluice_graphql_schema_build(a, sdl, strlen(sdl), "s.graphql", &s, &err);
    if (st != SLUICE_OK)
        fail_msg("%s", err.message);
    return s;
}

/* "<line>:<col>: <message>" of a refused schema. */
static const char *refusal(sluice_arena *a, const char *sdl)
{
    sluice_gql_schema *s = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    if (sluice_graphql_schema_build(a, sdl, strlen(sdl), "s.graphql", &s, &err) == SLUICE_OK)
        return "OK";
    assert_int_equal(err.status, SLUICE_E_INVALID);
    assert_null(s);
    return sluice_arena_printf(a, "%zu:%zu: %s", err.line, err.column, err.message);
}

static void models_the_example_server(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_gql_schema *s = build(a, SDL);
    assert_true(s->query != NULL && s->query == sluice_graphql_schema_type(s, "Query", 5));
    assert_ptr_equal(s->mutation, sluice_graphql_schema_type(s, "Mutation", 8));
    assert_null(s->subscription);
    const sluice_gql_schema_field *customers =
        sluice_graphql_schema_field(s->query, "customers", 9);
    assert_non_null(customers);
    assert_int_equal(customers->arg_count, 3);
    assert_memory_equal(customers->args[2].name.ptr, "filter", 6);
    assert_int_equal(customers->args[2].named->kind, SLUICE_GQL_KIND_INPUT_OBJECT);
    assert_int_equal(customers->args[1].named->kind, SLUICE_GQL_KIND_SCALAR);
    assert_true(customers->args[1].named->builtin);
    /* [Customer!]! : non-null list of non-null Customer */
    assert_int_equal(customers->type->kind, SLUICE_GQL_NON_NULL_TYPE);
    assert_int_equal(customers->type->of->kind, SLUICE_GQL_LIST_TYPE);
    const sluice_gql_schema_type *customer = customers->named;
    assert_memory_equal(customer->name.ptr, "Customer", 8);
    assert_int_equal(customer->kind, SLUICE_GQL_KIND_OBJECT);
    /* the extension's field joins the definition's */
    assert_int_equal(customer->field_count, 10); /* 9 defined + 1 extended */
    assert_non_null(sluice_graphql_schema_field(customer, "loyalty", 7));
    assert_non_null(sluice_graphql_schema_field(customer, "ssn", 3));
    assert_null(sluice_graphql_schema_field(customer, "sn", 2));
    const sluice_gql_schema_field *orders = sluice_graphql_schema_field(customer, "orders", 6);
    assert_memory_equal(orders->named->name.ptr, "Order", 5);
    /* abstract types */
    const sluice_gql_schema_type *node = sluice_graphql_schema_type(s, "Node", 4);
    const sluice_gql_schema_type *result = sluice_graphql_schema_type(s, "SearchResult", 12);
    const sluice_gql_schema_type *ticket = sluice_graphql_schema_type(s, "SupportTicket", 13);
    assert_true(sluice_graphql_schema_possible(node, customer));
    assert_true(sluice_graphql_schema_possible(result, ticket)); /* added by extension */
    assert_false(sluice_graphql_schema_possible(result, node));
    assert_true(sluice_graphql_schema_possible(customer, customer));
    assert_false(sluice_graphql_schema_possible(customer, ticket));
    const sluice_gql_schema_type *status = sluice_graphql_schema_type(s, "TicketStatus", 12);
    assert_int_equal(status->value_count, 3);
    assert_int_equal(sluice_graphql_schema_type(s, "CustomerFilter", 14)->input_field_count, 2);
    /* built-ins */
    const sluice_gql_schema_directive *skip = sluice_graphql_schema_directive(s, "skip", 4);
    assert_non_null(skip);
    assert_true(skip->builtin);
    assert_int_equal(skip->arg_count, 1);
    assert_non_null(sluice_graphql_schema_directive(s, "deprecated", 10));
    assert_null(sluice_graphql_schema_directive(s, "private", 7));
    assert_non_null(sluice_graphql_schema_type(s, "ID", 2));
    assert_null(sluice_graphql_schema_type(s, "Customers", 9));
    sluice_arena_free(a);
}

static void roots_and_builtins(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_gql_schema *s =
        build(a, "schema { query: Root } extend schema { mutation: Change }\n"
                 "type Root { a: Int } type Change { b: Int } type Query { ignored: Int }\n"
                 "scalar String\n"
                 "directive @deprecated(reason: String, since: Int) on FIELD_DEFINITION\n"
                 "directive @private on FIELD_DEFINITION");
    assert_memory_equal(s->query->name.ptr, "Root", 4);
    assert_memory_equal(s->mutation->name.ptr, "Change", 6);
    const sluice_gql_schema_directive *dep = sluice_graphql_schema_directive(s, "deprecated", 10);
    assert_false(dep->builtin);
    assert_int_equal(dep->arg_count, 2);
    assert_true(sluice_graphql_schema_type(s, "String", 6)->builtin);
    sluice_arena_free(a);
}

static void refusals_point_at_the_definition(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    static const char *const cases[][2] = {
        { "type Query { a: Int }\ntype Query { b: Int }",
          "2:1: schema: type \"Query\" is defined more than once" },
        { "type Query { a: Strin }", "1:17: schema: field \"Query.a\" has unknown type \"Strin\"" },
        { "type Query { a: [I!] }\ninput I { x: Int }",
          "1:18: schema: field \"Query.a\" cannot return the input type \"I\"" },
        { "type Query { a(x: Query): Int }",
          "1:19: schema: \"Query.a(x\" cannot take \"Query\", which is an object type" },
        { "type Query { a(x: Int, x: Int): Int }",
          "1:24: schema: \"Query.a(x\" is defined more than once" },
        { "type Query { a: Int a: Int }",
          "1:21: schema: field \"Query.a\" is defined more than once" },
        { "type Query { a: Int }\nextend type Nope { b: Int }",
          "2:1: schema: cannot extend type \"Nope\": it is not defined" },
        { "type Query { a: Int }\nenum E { A }\nextend type E { b: Int }",
          "3:1: schema: cannot extend \"E\" as an object type: it is an enum" },
        { "type Query { a: Int }\nquery { a }",
          "2:1: schema: a schema holds type definitions, not operations or fragments" },
        { "type Other { a: Int }", "1:1: schema: the schema has no query type" },
        { "schema { query: Q }\nunion Q = A\ntype A { a: Int }",
          "1:10: schema: the root type \"Q\" is a union, not an object type" },
        { "schema { query: Query }\nschema { query: Query }\ntype Query { a: Int }",
          "2:1: schema: the schema is defined more than once" },
        { "type Query implements Query { a: Int }",
          "1:23: schema: \"Query\" implements \"Query\", which is an object type" },
        { "type Query { a: U }\nunion U = Query | Missing",
          "2:19: schema: \"U\" has the member \"Missing\", which is not defined" },
        { "type Query implements Node { a: Int }\ninterface Node { id: ID! }",
          "1:1: schema: \"Query\" does not provide the field \"Node.id\" of its interface" },
        { "type Query { a: E }\nenum E { A B A }",
          "2:14: schema: enum value \"E.A\" is defined more than once" },
        { "type Query { a: Int }\ndirective @d on FIELD\ndirective @d on QUERY",
          "3:1: schema: directive \"@d\" is defined more than once" },
        { "type Query { a: Int }\ninput I { a: Int }\nextend input I { a: Int }",
          "3:1: schema: input field \"I.a\" is defined more than once" },
        { "type Query { a: Int", "1:20: Syntax Error: Expected Name, found <EOF>." },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(refusal(a, cases[i][0]), cases[i][1]);
    sluice_error err;
    sluice_gql_schema *s;
    const char *no_query = "type Other { a: Int }";
    assert_int_equal(sluice_graphql_schema_build(a, no_query, strlen(no_query), "s", &s, &err),
                     SLUICE_E_INVALID);
    assert_non_null(err.hint); /* says how to fix it */
    sluice_arena_free(a);
}

static void allocation_failure_fails_closed(void **state)
{
    (void)state;
    for (long n = 1;; n++) {
        sluice_arena *a = sluice_arena_new();
        assert_non_null(a);
        sluice_gql_schema *s = NULL;
        sluice_error err;
        sluice_arena_fail_at(n);
        sluice_status st = sluice_graphql_schema_build(a, SDL, strlen(SDL), "s", &s, &err);
        sluice_arena_fail_at(0);
        sluice_arena_free(a);
        if (st == SLUICE_OK)
            break;
        assert_int_equal(st, SLUICE_E_NOMEM);
        assert_null(s);
        assert_true(n < 100000);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(models_the_example_server),
        cmocka_unit_test(roots_and_builtins),
        cmocka_unit_test(refusals_point_at_the_definition),
        cmocka_unit_test(allocation_failure_fails_closed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
