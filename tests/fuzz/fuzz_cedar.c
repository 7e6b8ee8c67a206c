/*
 * fuzz_cedar.c — libFuzzer target for the Cedar engine's untrusted inputs.
 *
 * The first byte picks the input: policy text (parsed, then every policy evaluated against a
 * fixed request whose entity store and context exercise attributes, hierarchy and tags), an
 * entities JSON document, a context JSON document, or an entity reference. Everything must be
 * rejected with an error or accepted; nothing may crash, leak or read out of bounds.
 */
#include "policy/cedar/cedar.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char ENTITIES[] =
    "[{\"uid\": {\"type\": \"User\", \"id\": \"alice\"}, \"attrs\": {\"age\": 30, \"name\": "
    "\"a\", \"tags\": [\"x\", 1], \"rec\": {\"k\": {\"__extn\": {\"fn\": \"ip\", \"arg\": "
    "\"10.0.0.1\"}}}, \"boss\": {\"__entity\": {\"type\": \"User\", \"id\": \"bob\"}}}, "
    "\"parents\": [{\"type\": \"Group\", \"id\": \"g\"}], \"tags\": {\"t\": 1}},"
    " {\"uid\": {\"type\": \"Group\", \"id\": \"g\"}, \"attrs\": {}, \"parents\": []},"
    " {\"uid\": {\"type\": \"Action\", \"id\": \"read\"}, \"attrs\": {}, \"parents\": []}]";
static const char CONTEXT[] = "{\"n\": 5, \"s\": \"str\", \"set\": [1, 2], \"when\": "
                              "{\"__extn\": {\"fn\": \"datetime\", \"arg\": \"2024-01-01\"}}}";

static void fuzz_policies(sluice_arena *arena, const char *text, size_t len)
{
    sluice_cedar_policyset *set;
    if (sluice_cedar_policyset_parse(arena, text, len, "fuzz", &set, NULL) != SLUICE_OK)
        return;
    sluice_cedar_entities *ents;
    sluice_cedar_request req;
    if (sluice_cedar_entities_parse_json(arena, ENTITIES, sizeof(ENTITIES) - 1, "e", &ents, NULL) !=
            SLUICE_OK ||
        sluice_cedar_context_parse_json(arena, CONTEXT, sizeof(CONTEXT) - 1, "c", &req.context,
                                        NULL) != SLUICE_OK)
        __builtin_trap(); /* the fixed inputs are valid */
    sluice_cedar_uid_make(&req.principal, "User", 4, "alice", 5);
    sluice_cedar_uid_make(&req.action, "Action", 6, "read", 4);
    sluice_cedar_uid_make(&req.resource, "Group", 5, "g", 1);
    sluice_cedar_decision d;
    (void)sluice_cedar_is_authorized(set, ents, &req, arena, &d, NULL);
    for (size_t i = 0; i < sluice_cedar_policyset_count(set); i++) {
        const sluice_cedar_policy *p = sluice_cedar_policyset_get(set, i);
        size_t n;
        (void)sluice_cedar_policy_text(p, &n);
        (void)sluice_cedar_policy_annotation(p, "id");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    sluice_cedar_entities *ents;
    sluice_cedar_value ctx;
    sluice_cedar_uid uid;
    switch (data[0] % 4) {
    case 0:
        fuzz_policies(arena, text, len);
        break;
    case 1:
        (void)sluice_cedar_entities_parse_json(arena, text, len, "fuzz", &ents, NULL);
        break;
    case 2:
        (void)sluice_cedar_context_parse_json(arena, text, len, "fuzz", &ctx, NULL);
        break;
    default:
        (void)sluice_cedar_uid_parse(arena, text, len, &uid, NULL);
        break;
    }
    sluice_arena_free(arena);
    return 0;
}
