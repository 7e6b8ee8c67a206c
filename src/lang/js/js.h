/*
 * js.h — the JavaScript plan front end ("javascript"): plans written in the plan language
 * (syntax/js/, docs/js-plans.md) analyzed into CodeFacts.
 *
 * Owns: the sluice_frontend vtable for "javascript", the canonical form (from the token stream:
 * whitespace and comments do not matter, literals and order do), and the static analysis: every
 * api.<verb>(path, ...) and mcp.call(server, tool, args) call site with its path template and
 * action, the static upper bound of upstream calls with where it comes from, loops, depth and
 * output fields, and the openapi_* / max_api_calls rules.
 * Does not own: parsing (syntax/js/parse.h, shared with the interpreter), running plans
 * (exec/js_plan.c), policy or risk floors.
 *
 * The language is registered as "javascript" only (no "js" alias: the registry matches names
 * exactly and the input schema lists each configured language once).
 */
#ifndef SLUICE_LANG_JS_JS_H
#define SLUICE_LANG_JS_JS_H

#include "lang/frontend.h"

/* The JavaScript extension of CodeFacts (facts->ext). */
typedef struct sluice_js_facts {
    int64_t call_bound;    /* static upper bound of upstream calls; -1 when unknown */
    const char *bound_why; /* "1 + 10 from .slice(0, 10) mapped at line 5" */
    bool retries_write;    /* a write call inside a catch block (seen at validate: high risk) */
    bool has_unbounded_loop;
    /* how the plan may read an output-blocked field ("names the blocked field 'ssn' at line 3",
     * "enumerates fields (Object.values) at line 2"), NULL when it provably cannot: at least
     * high risk, as SQL that filters on a blocked column */
    const char *blocked_read;
    size_t read_calls, write_calls, delete_calls;
} sluice_js_facts;

/* The front end registered as "javascript". */
const sluice_frontend *sluice_js_frontend(void);

#endif
