/*
 * class_policy.c — the class policy of OpenAPI calls (see class_policy.h).
 *
 * The order of the checks is pmcp-code-mode's: a blocked method, a blocked path, a blocked
 * operation, then the class's mode. Blocks apply in every class, so an allow_all class still
 * cannot reach a blocked path.
 */
#include "facts/class_policy.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The matcher's state space, (pattern length + 1) * (path length + 1): past it the call is
 * refused, never guessed. Real paths and patterns are a few dozen characters. */
#define MAX_STATES (1u << 20)

enum { STAR = -1, HOLE = -2 };

typedef struct sym_seq {
    int *s;
    size_t n;
} sym_seq;

/* Lower-cased characters; '*' (pattern) or "{...}" (path) as one wildcard symbol. */
static bool symbols(sluice_arena *arena, const char *text, bool pattern, sym_seq *out)
{
    size_t len = strlen(text);
    out->s = sluice_arena_calloc(arena, len + 1, sizeof *out->s);
    out->n = 0;
    if (out->s == NULL)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (pattern && text[i] == '*') {
            out->s[out->n++] = STAR;
        } else if (!pattern && text[i] == '{') {
            const char *close = strchr(text + i, '}');
            out->s[out->n++] = HOLE;
            i = close != NULL ? (size_t)(close - text) : len;
        } else if (!pattern && text[i] == '%' && isxdigit((unsigned char)text[i + 1]) &&
                   isxdigit((unsigned char)text[i + 2])) {
            /* what the upstream will see: "%2F" is a '/' to a server that decodes it */
            char hex[3] = { text[i + 1], text[i + 2], '\0' };
            out->s[out->n++] = tolower((int)strtol(hex, NULL, 16));
            i += 2;
        } else {
            out->s[out->n++] = tolower((unsigned char)text[i]);
        }
    }
    return true;
}

/* Whether the languages of p (glob: STAR = any run) and t (HOLE = any run without '/')
 * intersect: a search over pairs of positions. -1 past MAX_STATES or without memory. */
static int intersects(sluice_arena *arena, const sym_seq *p, const sym_seq *t)
{
    size_t w = t->n + 1, states = (p->n + 1) * w;
    if (p->n >= MAX_STATES || t->n >= MAX_STATES || states > MAX_STATES)
        return -1;
    unsigned char *seen = sluice_arena_calloc(arena, states, 1);
    size_t *stack = sluice_arena_calloc(arena, states, sizeof *stack);
    if (seen == NULL || stack == NULL)
        return -1;
    size_t top = 0;
    stack[top++] = 0;
    seen[0] = 1;
    while (top > 0) {
        size_t at = stack[--top], i = at / w, j = at % w;
        if (i == p->n && j == t->n)
            return 1;
        size_t next[3];
        size_t k = 0;
        int pc = i < p->n ? p->s[i] : 0, tc = j < t->n ? t->s[j] : 0;
        if (i < p->n && pc == STAR)
            next[k++] = (i + 1) * w + j; /* the star matches nothing more */
        if (j < t->n && tc == HOLE)
            next[k++] = i * w + j + 1; /* the hole holds nothing more */
        if (i < p->n && j < t->n) {
            if (pc == STAR && tc != HOLE)
                next[k++] = i * w + j + 1; /* the star takes the literal */
            else if (pc != STAR && tc == HOLE && pc != '/')
                next[k++] = (i + 1) * w + j; /* the hole's value supplies the character */
            else if (pc != STAR && tc != HOLE && pc == tc)
                next[k++] = (i + 1) * w + j + 1;
        }
        for (size_t n = 0; n < k; n++)
            if (!seen[next[n]]) {
                seen[next[n]] = 1;
                stack[top++] = next[n];
            }
    }
    return 0;
}

int sluice_class_policy_path_blocked(sluice_arena *arena, const char *pattern, const char *path)
{
    size_t plen = strlen(pattern);
    while (plen > 1 && pattern[plen - 1] == '/')
        plen--;
    if (plen == 1 && pattern[0] == '/')
        return 1; /* the root covers every path */
    char *trimmed = sluice_arena_strndup(arena, pattern, plen);
    sym_seq p, t;
    if (trimmed == NULL || !symbols(arena, trimmed, true, &p) || !symbols(arena, path, false, &t))
        return -1;
    int r = intersects(arena, &p, &t);
    if (r != 0 || memchr(trimmed, '*', plen) != NULL)
        return r;
    /* no '*': the path itself, and everything below it */
    char *below = sluice_arena_printf(arena, "%s/*", trimmed);
    if (below == NULL || !symbols(arena, below, true, &p))
        return -1;
    return intersects(arena, &p, &t);
}

static bool is_method_name(const char *s)
{
    static const char *const methods[] = { "GET", "HEAD",  "OPTIONS", "POST",
                                           "PUT", "PATCH", "DELETE" };
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strcasecmp(s, methods[i]) == 0)
            return true;
    return false;
}

static bool wildcard_segment(const char *s, size_t n)
{
    return (n == 1 && s[0] == '*') || (n >= 2 && s[0] == '{' && s[n - 1] == '}');
}

/* Segment by segment: an entry's "*" or "{name}" matches any one segment; a call's run-time
 * segment matches only such a wildcard (its value is unknown); literals ignore case. */
static bool path_entry_matches(const char *entry, const char *path)
{
    for (;;) {
        size_t en = strcspn(entry, "/"), pn = strcspn(path, "/");
        bool ok = wildcard_segment(entry, en) ||
                  (memchr(path, '{', pn) == NULL && en == pn && strncasecmp(entry, path, en) == 0);
        if (!ok)
            return false;
        entry += en;
        path += pn;
        if (*entry == '\0' || *path == '\0')
            return *entry == *path;
        entry++;
        path++;
    }
}

/* An entry names the call: its operation id, its method (a bare method name), or
 * "METHOD /path" / "METHOD:/path". */
static bool entry_matches(const char *entry, const sluice_class_call *call)
{
    if (call->op_id != NULL && strcmp(entry, call->op_id) == 0)
        return true;
    size_t m = strcspn(entry, " :");
    if (entry[m] == '\0')
        return is_method_name(entry) && strcasecmp(entry, call->method) == 0;
    return strlen(call->method) == m && strncasecmp(entry, call->method, m) == 0 &&
           path_entry_matches(entry + m + 1, call->path);
}

static bool any_matches(const sluice_strlist *list, const sluice_class_call *call)
{
    for (size_t i = 0; i < list->count; i++)
        if (entry_matches(list->items[i], call))
            return true;
    return false;
}

sluice_class_mode sluice_class_policy_mode(const sluice_config_code_mode *cm, sluice_action a)
{
    if (cm == NULL)
        return a == SLUICE_ACTION_READ ? SLUICE_CLASS_MODE_ALLOW_ALL : SLUICE_CLASS_MODE_DENY_ALL;
    const sluice_class_mode set[] = { cm->read_mode, cm->write_mode, cm->delete_mode,
                                      cm->admin_mode };
    if ((unsigned)a > SLUICE_ACTION_ADMIN)
        return SLUICE_CLASS_MODE_DENY_ALL;
    if (set[a] != SLUICE_CLASS_MODE_DERIVED)
        return set[a];
    /* pmcp's derivation: the switch gates, a non-empty allowlist narrows */
    switch (a) {
    case SLUICE_ACTION_READ:
        return !cm->openapi_reads_enabled            ? SLUICE_CLASS_MODE_DENY_ALL
               : cm->openapi_allowed_reads.count > 0 ? SLUICE_CLASS_MODE_ALLOWLIST
                                                     : SLUICE_CLASS_MODE_ALLOW_ALL;
    case SLUICE_ACTION_WRITE:
        return !cm->openapi_allow_writes              ? SLUICE_CLASS_MODE_DENY_ALL
               : cm->openapi_allowed_writes.count > 0 ? SLUICE_CLASS_MODE_ALLOWLIST
               : cm->openapi_blocked_writes.count > 0 ? SLUICE_CLASS_MODE_BLOCKLIST
                                                      : SLUICE_CLASS_MODE_ALLOW_ALL;
    case SLUICE_ACTION_DELETE:
        return !cm->openapi_allow_deletes              ? SLUICE_CLASS_MODE_DENY_ALL
               : cm->openapi_allowed_deletes.count > 0 ? SLUICE_CLASS_MODE_ALLOWLIST
                                                       : SLUICE_CLASS_MODE_ALLOW_ALL;
    case SLUICE_ACTION_ADMIN:
    default:
        return SLUICE_CLASS_MODE_DENY_ALL; /* no switch enables it: only admin_mode */
    }
}

const char *sluice_class_policy_mode_name(sluice_class_mode m)
{
    static const char *const names[] = { "derived", "deny_all", "allow_all", "allowlist",
                                         "blocklist" };
    return (unsigned)m <= SLUICE_CLASS_MODE_BLOCKLIST ? names[m] : "deny_all";
}

static bool refuse(sluice_class_refusal *out, const char *rule, const char *why, const char *hint)
{
    out->rule = rule;
    out->why = why != NULL ? why : "is refused (out of memory deciding it)";
    out->hint = hint;
    return false;
}

/* The class is refused by its mode: the message names the key that decided. */
static bool refuse_class(sluice_arena *arena,
                         const sluice_config_code_mode *cm,
                         sluice_action a,
                         sluice_class_mode mode,
                         sluice_class_refusal *out)
{
    static const char *const cls[] = { "read", "write", "delete", "admin" };
    static const char *const mode_keys[] = { "read_mode", "write_mode", "delete_mode",
                                             "admin_mode" };
    static const char *const lists[] = { "openapi_allowed_reads", "openapi_allowed_writes",
                                         "openapi_allowed_deletes", "openapi_allowed_admin" };
    bool derived =
        cm == NULL || (a == SLUICE_ACTION_READ     ? cm->read_mode
                       : a == SLUICE_ACTION_WRITE  ? cm->write_mode
                       : a == SLUICE_ACTION_DELETE ? cm->delete_mode
                                                   : cm->admin_mode) == SLUICE_CLASS_MODE_DERIVED;
    if (mode == SLUICE_CLASS_MODE_ALLOWLIST)
        return refuse(out, mode_keys[a],
                      sluice_arena_printf(arena,
                                          "is a %s operation that is not in %s (%s = "
                                          "\"allowlist\")",
                                          cls[a], lists[a], mode_keys[a]),
                      sluice_arena_printf(arena, "an administrator may add it to %s", lists[a]));
    if (derived && a == SLUICE_ACTION_READ)
        return refuse(out, "openapi_reads_enabled", "reads, and openapi_reads_enabled = false",
                      "set openapi_reads_enabled = true");
    if (derived && a == SLUICE_ACTION_WRITE)
        return refuse(out, "openapi_allow_writes",
                      "writes, and writes are not allowed (openapi_allow_writes = false)",
                      "an administrator may set openapi_allow_writes = true");
    if (derived && a == SLUICE_ACTION_DELETE)
        return refuse(out, "openapi_allow_deletes",
                      "deletes, and deletes are not allowed (openapi_allow_deletes = false)",
                      "an administrator may set openapi_allow_deletes = true");
    return refuse(out, mode_keys[a],
                  sluice_arena_printf(arena,
                                      "is %s %s operation, and %s operations are \"deny_all\" "
                                      "(%s)",
                                      a == SLUICE_ACTION_ADMIN ? "an" : "a", cls[a], cls[a],
                                      mode_keys[a]),
                  sluice_arena_printf(arena,
                                      "an administrator may set %s = \"allow_all\" or "
                                      "\"allowlist\"",
                                      mode_keys[a]));
}

bool sluice_class_policy_blocks_allow(sluice_arena *arena,
                                      const sluice_config_code_mode *cm,
                                      const sluice_class_call *call,
                                      sluice_class_refusal *out)
{
    if (cm != NULL) {
        for (size_t i = 0; i < cm->openapi_blocked_writes.count; i++) {
            const char *e = cm->openapi_blocked_writes.items[i];
            if (is_method_name(e) && strcasecmp(e, call->method) == 0)
                return refuse(out, "openapi_blocked_writes",
                              sluice_arena_printf(arena,
                                                  "uses HTTP method %s, which "
                                                  "openapi_blocked_writes blocks",
                                                  e),
                              "call another operation");
        }
        for (size_t i = 0; i < cm->openapi_blocked_paths.count; i++) {
            int r = sluice_class_policy_path_blocked(arena, cm->openapi_blocked_paths.items[i],
                                                     call->path);
            if (r != 0)
                return refuse(out, "openapi_blocked_paths",
                              r > 0 ? "is under a blocked path (openapi_blocked_paths)"
                                    : "is refused: its path could not be checked against "
                                      "openapi_blocked_paths",
                              "call an operation outside the blocked paths");
        }
        if (any_matches(&cm->openapi_blocked_writes, call))
            return refuse(out, "openapi_blocked_writes",
                          "is an operation openapi_blocked_writes blocks",
                          "call another operation");
    }
    return true;
}

bool sluice_class_policy_allows(sluice_arena *arena,
                                const sluice_config_code_mode *cm,
                                const sluice_class_call *call,
                                sluice_class_refusal *out)
{
    if (!sluice_class_policy_blocks_allow(arena, cm, call, out))
        return false;
    sluice_action a = call->action;
    if ((unsigned)a > SLUICE_ACTION_ADMIN)
        a = SLUICE_ACTION_ADMIN;
    sluice_class_mode mode = sluice_class_policy_mode(cm, a);
    const sluice_strlist *allow[] = { cm != NULL ? &cm->openapi_allowed_reads : NULL,
                                      cm != NULL ? &cm->openapi_allowed_writes : NULL,
                                      cm != NULL ? &cm->openapi_allowed_deletes : NULL,
                                      cm != NULL ? &cm->openapi_allowed_admin : NULL };
    switch (mode) {
    case SLUICE_CLASS_MODE_ALLOW_ALL:
    case SLUICE_CLASS_MODE_BLOCKLIST: /* the blocks above were its list */
        return true;
    case SLUICE_CLASS_MODE_ALLOWLIST:
        if (allow[a] != NULL && any_matches(allow[a], call))
            return true;
        return refuse_class(arena, cm, a, mode, out);
    case SLUICE_CLASS_MODE_DERIVED:
    case SLUICE_CLASS_MODE_DENY_ALL:
    default:
        return refuse_class(arena, cm, a, SLUICE_CLASS_MODE_DENY_ALL, out);
    }
}
