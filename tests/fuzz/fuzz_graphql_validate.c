/*
 * fuzz_graphql_validate.c — libFuzzer target for GraphQL validation and the operation analysis
 * (src/lang/graphql/validate.c, operation.c) through the front end, and for the response
 * shaper (shape.c).
 *
 * The input is one document analyzed against a small fixed schema (an interface, a union,
 * enums, input objects, lists, required arguments) with the default limits, or, when the first
 * byte is odd, with tiny limits so each is reached. Nothing may crash, leak or hang (fragment
 * cycles and exponential spreads included); every violation has a rule and a message; a clean
 * analysis has a canonical hash equal to the front end's own. A clean query is then used to
 * shape a fixed response: that must succeed or refuse, never crash.
 */
#include "exec/graphql_shape.h"
#include "lang/graphql/front.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char SDL[] =
    "interface Party { name: String! email: String }\n"
    "union Thing = Customer | Order\n"
    "enum Dir { ASC DESC }\n"
    "input Sort { by: String! dir: Dir = ASC }\n"
    "input Filter { email: String tags: [String!] nested: Filter }\n"
    "type Query { customers(sort: Sort, limit: Int, filter: Filter): [Customer!]!\n"
    "  customer(id: ID!): Customer things(first: Int): [Thing] party: Party }\n"
    "type Mutation { deleteCustomer(id: ID!): Boolean touch(ids: [ID!]!): [Customer] }\n"
    "type Customer implements Party { id: ID! name: String! email: String ssn: String\n"
    "  orders(limit: Int): [Order!]! friend: Customer }\n"
    "type Order { id: ID! total: Float! by: Customer }\n";

static const char *BLOCKED[] = { "Customer.ssn", "email" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sluice_schema backend = { .document = SDL, .document_len = sizeof SDL - 1 };
    sluice_config_code_mode cm = { 0 };
    bool tiny = size > 0 && (data[0] & 1);
    cm.graphql_max_depth = tiny ? 2 : 10;
    cm.graphql_max_aliases = tiny ? 1 : 15;
    cm.graphql_max_root_fields = tiny ? 1 : 20;
    cm.graphql_max_directives = tiny ? 1 : 50;
    cm.graphql_max_tokens = tiny ? 20 : 1000;
    cm.graphql_max_chars = tiny ? 80 : 15000;
    cm.graphql_max_cost = tiny ? 10 : 5000;
    cm.graphql_blocked_fields = (sluice_strlist){ BLOCKED, 2 };
    sluice_frontend_context ctx = { .code_mode = &cm, .schema = &backend };
    const sluice_frontend *fe = sluice_graphql_frontend();
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return 0;
    const char *code = (const char *)data;
    sluice_codefacts *f = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    if (fe->analyze(arena, code, size, NULL, &ctx, &f, &err) == SLUICE_OK) {
        for (size_t i = 0; i < f->violation_count; i++)
            if (f->violations[i].rule == NULL || f->violations[i].message == NULL)
                __builtin_trap();
        if (!sluice_codefacts_refused(f)) {
            char hex[65];
            if (fe->canonical_hash(arena, code, size, &ctx, hex, &err) != SLUICE_OK ||
                strcmp(hex, f->code_hash) != 0)
                __builtin_trap();
            (void)fe->explain(arena, f);
            json_t *resp = json_loads("{\"customers\":[{\"id\":\"1\",\"name\":\"a\",\"ssn\":\"x\","
                                      "\"orders\":[{\"id\":\"2\",\"total\":1.5}]}],"
                                      "\"customer\":null,\"x\":{\"y\":[1,2,3]}}",
                                      0, NULL);
            static const sluice_strlist blocked = { BLOCKED, 2 };
            sluice_exec_walk sh = {
                .code = code,
                .code_len = size,
                .document = SDL,
                .document_len = sizeof SDL - 1,
                .blocked = { &blocked, &blocked },
                .refuse = tiny,
                .max_list_items = 2,
            };
            if (resp != NULL && f->action == SLUICE_ACTION_READ)
                (void)sluice_graphql_shape(arena, resp, &sh, &err);
            json_decref(resp);
        }
    }
    sluice_arena_free(arena);
    return 0;
}
