/*
 * test_js_taint.c — plans that try to return an output-blocked field's value under another
 * name (issue 25): every leak class of the corpus, written to break the rule, against the
 * interpreter's taint tracking (exec/js/taint.c); the === exception that may steer; the risk
 * floor of a plan that may read a blocked field (lang/js); and allocation-failure sweeps: under
 * any failed allocation a run fails or answers without the canary, never leaks it, never sends
 * it unlabelled to the host, and a plan the below-high check must stop never answers.
 */
#include "codemode/risk.h"
#include "exec/js/interp.h"
#include "lang/js/js.h"
#include "oom_sweep.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

/* The canaries the fake upstream answers in blocked fields, and their recognisable forms. */
#define CANARY_SSN    "731-95-2864"
#define CANARY_SALARY 173519

/* What the last call carried, as the host saw it. */
static char seen_passing[64];
/* Set when a call reached the host carrying a canary without the host being told the field
 * (a passable call sent unlabelled, or a call that should never have left): never allowed. */
static bool sent_unlabelled;

static bool leaks(const char *text);

/* Appends every string, number and key of v to buf (at *n), '|'-separated, without allocating:
 * a dump through jansson would take allocation points the sweeps fail, and skip the scan. */
static void flatten(const json_t *v, char *buf, size_t size, size_t *n)
{
    char num[32] = "";
    if (json_is_integer(v))
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(num, sizeof num, "%.17g", json_real_value(v));
    const char *text = json_is_string(v) ? json_string_value(v) : num;
    if (*n < size)
        *n += (size_t)snprintf(buf + *n, size - *n, "|%s", text);
    const char *k;
    const json_t *child;
    json_object_foreach((json_t *)v, k, child)
    {
        if (*n < size)
            *n += (size_t)snprintf(buf + *n, size - *n, "|%s", k);
        flatten(child, buf, size, n);
    }
    for (size_t i = 0; json_is_array(v) && i < json_array_size(v); i++)
        flatten(json_array_get(v, i), buf, size, n);
}

static sluice_status fake_api(
    void *ctx, sluice_arena *arena, const sluice_js_call *call, json_t **result, sluice_error *err)
{
    (void)ctx;
    const char *path = json_string_value(json_array_get(call->args, 0));
    seen_passing[0] = '\0';
    for (size_t i = 0; i < call->passing.count; i++)
        snprintf(seen_passing + strlen(seen_passing), sizeof seen_passing - strlen(seen_passing),
                 "%s%s", i > 0 ? "," : "", call->passing.items[i]);
    static char sent[4096];
    size_t n = 0;
    flatten(call->args, sent, sizeof sent, &n);
    if (leaks(sent) && call->passing.count == 0)
        sent_unlabelled = true;
    if (path != NULL && strstr(path, "fail") != NULL)
        return sluice_error_set(err, arena, SLUICE_E_ENGINE, "HTTP 404 for %s", path);
    if (path != NULL && strstr(path, "echo") != NULL) { /* an upstream that quotes its input */
        *result = json_pack("{s:s, s:s, s:{s:i}}", "note", path, "ok", "fine", "by", path, 1);
        return *result != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
    }
    if (path != NULL && strstr(path, "wrapped") != NULL) { /* records inside strings: a raw
                                                            * body, an MCP tool's text */
        *result = json_pack("{s:s, s:s}", "body",
                            "[{\"id\": \"u1\", \"ssn\": \"" CANARY_SSN "\", \"salary\": 173519}]",
                            "double", "\"{\\\"SSN\\\": \\\"" CANARY_SSN "\\\"}\"");
        return *result != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
    }
    *result = json_pack("[{s:s,s:s,s:s,s:i},{s:s,s:s,s:s,s:i}]", "id", "u1", "name", "Ann", "ssn",
                        CANARY_SSN, "salary", CANARY_SALARY, "id", "u2", "name", "Bob", "ssn",
                        "468-02-1357", "salary", 90001);
    return *result != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

/* True when text holds the canary in a recognised form: as is, reversed, any run of 4 or more
 * of its digits, its char codes, or the salary's digits. */
static bool leaks(const char *text)
{
    static const char digits[] = "731952864";
    static const char *const forms[] = { CANARY_SSN, "4682-59-137", "173519",
                                         "915371",   "55,51,49,45", "55, 51, 49" };
    if (text == NULL)
        return false;
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (strstr(text, forms[i]) != NULL)
            return true;
    for (size_t i = 0; i + 4 <= sizeof digits - 1; i++) {
        char sub[5];
        memcpy(sub, digits + i, 4);
        sub[4] = '\0';
        if (strstr(text, sub) != NULL)
            return true;
    }
    return false;
}

typedef struct outcome {
    sluice_status st;
    sluice_js_run_result r;
    sluice_error err;
    char *text; /* result, error and logs together, in the arena */
} outcome;

/* How a run is set up beyond strip/refuse. */
typedef struct setup_opts {
    bool passes_taint; /* the host checks passable fields (js_plan.c) */
    bool clean_only;   /* approved below high risk */
} setup_opts;

static void run_with(sluice_arena *a, const char *code, bool refuse, setup_opts so, outcome *o);

static void run(sluice_arena *a, const char *code, bool refuse, outcome *o)
{
    run_with(a, code, refuse, (setup_opts){ 0 }, o);
}

static void run_with(sluice_arena *a, const char *code, bool refuse, setup_opts so, outcome *o)
{
    static const char *fields[] = { "ssn", "salary" };
    static const sluice_strlist blocked = { fields, 2 };
    memset(o, 0, sizeof *o);
    sluice_js_program prog;
    o->st = sluice_js_parse(a, code, strlen(code), &prog, &o->err);
    if (o->st != SLUICE_OK)
        return;
    sluice_js_run_options opts = {
        .limits = { .max_api_calls = 5 },
        .host = { .call = fake_api, .has_api = true, .passes_taint = so.passes_taint },
        .taint_fields = { &blocked, NULL },
        .taint_refuse = refuse,
        .taint_clean_only = so.clean_only,
    };
    seen_passing[0] = '\0';
    json_t *args = json_pack("{s:s}", "ssn", CANARY_SSN);
    opts.args = args;
    o->st = sluice_js_run(a, &prog, &opts, &o->r, &o->err);
    json_decref(args);
    /* composed outside the arena so the allocation sweeps count only the run's own points */
    static char text[1 << 16];
    size_t n = (size_t)snprintf(text, sizeof text, "%s|%s|%s", o->r.json ? o->r.json : "",
                                o->r.error_message ? o->r.error_message : "",
                                o->err.message ? o->err.message : "");
    flatten(o->r.logs, text, sizeof text, &n);
    /* the failed-call list is written to the client and the audit too */
    for (size_t i = 0; i < o->r.failed_count && n < sizeof text; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "|%s|%s",
                              o->r.failed[i].path ? o->r.failed[i].path : "",
                              o->r.failed[i].message ? o->r.failed[i].message : "");
    o->text = text;
}

#define USERS   "const us = await api.get('/users');\n"
#define WRAPPED "const w = await api.get('/wrapped');\n"

/* Every leak class of the corpus: the canary never reaches the result, the error text
 * or the logs, in strip mode (the run answers) and in refuse mode (the run may be refused). */
static const char *const leak_plans[] = {
    /* the language of issue 25's coverage item: each built-in carries its inputs' labels */
    USERS "return [Math.hypot(us[0].salary), Math.cbrt(us[0].salary), Math.fround(us[0].salary)]",
    USERS "return [us[0].salary.toString(36), us[0].salary.toString(2)]",
    USERS "return [us[0].salary.toPrecision(6), us[0].salary.toExponential(3)]",
    USERS "return us.map(u => u.ssn.normalize('NFKD'))",
    USERS "return ['NFC'].map(f => (us[0].ssn + '\\u0301').normalize(f))",
    USERS "const [, s] = [0, us[0].ssn]; return s",
    USERS "let s; [, , s] = ['a', 'b', us[0].ssn]; return s",
    USERS "const o = []; L: for (const c of us[0].ssn) { o.push(c); continue L; } return o",
    USERS "return us.map(u => ({ id: u.id, tax: u.ssn }))",
    USERS "return us.map(u => ({ [u.ssn]: 1 }))",
    USERS "return us.map(u => Object.values(u))",
    USERS "return us.map(u => Object.entries(u))",
    USERS "const o = {}; for (const u of us) o[u.ssn] = u.id; return Object.keys(o)",
    USERS "return us.map(u => JSON.stringify(u))",
    USERS "return us.map(u => `${u.name}: ${u.ssn}`)",
    USERS "return us.map(u => 'x' + u.ssn)",
    USERS "return us.map(u => u.ssn.split('').reverse().join(''))",
    USERS "return us.map(u => [...u.ssn].map(c => c.charCodeAt(0)))",
    USERS "return us.map(u => u.ssn.replace('-', ''))",
    USERS "return us.map(u => u.ssn.replaceAll('-', ''))",
    USERS "return us.map(u => u.ssn.slice(0, 3) + u.ssn.slice(4, 6))",
    USERS "return us.map(u => Number(u.ssn.replaceAll('-', '')).toString())",
    USERS "return us.map(u => ({ ...u }))",
    USERS "return us.map(({ ssn, ...rest }) => [ssn, rest])",
    USERS "const [a] = us; const { salary } = a; return { pay: salary }",
    USERS "return Math.max(...us.map(u => u.salary))",
    USERS "return us.map(u => u.salary * 2 - u.salary)",
    USERS "return us.map(u => Math.floor(u.salary / 1))",
    USERS "return us.map(u => u.salary.toString().split('').join('-'))",
    USERS "return new Map(us.map(u => [u.ssn, u.id])).keys().next()",
    USERS "return [...new Set(us.map(u => u.ssn))]",
    USERS "return await Promise.resolve(us[0].ssn)",
    USERS "return await us.map(u => Promise.resolve(u.salary))[0]",
    USERS "return us.map(u => JSON.parse(JSON.stringify({ v: u.ssn })))",
    USERS "throw new Error(us[0].ssn)",
    USERS "throw us[0]",
    USERS "console.log(us[0].ssn); return 1",
    USERS "console.log(JSON.stringify(us)); return 1",
    USERS "await api.get('/users/fail/' + us[0].ssn); return 1",
    USERS "try { await api.get('/fail/' + us[0].ssn) } catch (e) { return e.message }",
    USERS "await api.post('/notes', { text: us[0].ssn }); return 1",
    USERS "let s = ''; for (const c of us[0].ssn) s = c + s; return s",
    USERS "let s = ''; for (let i = 0; i < us[0].ssn.length; i++) s += us[0].ssn[i]; return s",
    /* an array argument converted to a number or text reads its elements */
    USERS "return Math.max([us[0].salary])",
    USERS "return Number([us[0].salary])",
    USERS "return parseInt([us[0].ssn])",
    USERS "return Number(Object.values({ v: us[0].salary }))",
    USERS "return String.fromCharCode([us[0].salary % 256])",
    /* a record inside a string: the string carries its blocked fields */
    WRAPPED "return w.body",
    WRAPPED "return JSON.parse(w.body)[0].ssn",
    WRAPPED "return w.body.split('').reverse().join('')",
    WRAPPED "return JSON.parse(JSON.parse(w.double)).SSN",
    WRAPPED "return w.double.slice(12, 23)",
};

/* Implicit flow: one bit per user, or a count, decided by a blocked field. */
static const char *const bit_plans[] = {
    USERS "return Object.is(us[0].salary, 173519)",
    USERS "return Math.sign(us[0].salary - 100000)",
    USERS "return us[0].ssn.localeCompare('5')",
    USERS "return '5'.localeCompare([us[0].ssn])",
    USERS "return '123-45-6789'.includes([us[0].ssn])",
    USERS "return 'abc'.indexOf([us[0].ssn])",
    USERS "return [1, 2, 3].slice([us[0].salary > 100000 ? 1 : 0])",
    USERS "return (1.5).toFixed([us[0].salary > 100000 ? 1 : 0])",
    USERS "return us.map(u => u.name).sort((x, y) => us[0].ssn.localeCompare(x))",
    USERS "try { return 'a'.normalize(us[0].ssn) } catch (e) { return 1 }",
    USERS "let n = 0; L: for (const u of us) { if (u.salary > 100000) break L; n++; } return n",
    USERS
    "return (us[0].salary > 1 ? new RangeError('r') : new TypeError('t')) instanceof TypeError",
    USERS "return us.map(u => u.salary > 100000)",
    USERS "return us.map(u => u.salary > 100000 ? 1 : 0)",
    USERS "return us.filter(u => u.salary > 100000).length",
    USERS "return us.filter(u => u.salary > 100000).map(u => u.name)",
    USERS "let r = 0; if (us[0].salary > 100000) r = 1; return r",
    USERS "let n = 0; for (const u of us) if (u.salary > 100000) n++; return n",
    USERS "let n = 0; us.forEach(u => { if (u.salary > 100000) n++ }); return n",
    USERS "let n = 0; us.some(u => { n++; return u.salary > 100000 }); return n",
    USERS "return us.sort((a, b) => a.salary - b.salary).map(u => u.name)",
    USERS "return us.findIndex(u => u.ssn.startsWith('7'))",
    USERS "try { if (us[0].salary > 1) throw 1 } catch { return 'rich' } return 'poor'",
    USERS "switch (us[0].ssn[0]) { case '7': return 7; default: return 0 }",
    USERS "return us[0].ssn.length > 3 && 'long'",
    USERS "const i = us[0].ssn.charCodeAt(0) - 48; return ['a','b','c','d','e','f','g','h'][i]",
};

static void assert_no_leak(const char *code, bool refuse, bool expect_redacted)
{
    sluice_arena *a = sluice_arena_new();
    outcome o;
    run(a, code, refuse, &o);
    if (leaks(o.text))
        fail_msg("leaked: %s\n  -> %s", code, o.text);
    if (refuse)
        assert_true(o.st == SLUICE_E_DENIED || o.r.threw || (o.st == SLUICE_OK && !o.r.threw));
    if (refuse && o.st == SLUICE_E_DENIED)
        assert_non_null(strstr(o.err.message, "blocked field '"));
    if (expect_redacted && o.st == SLUICE_OK && !refuse)
        assert_true(o.r.redacted > 0);
    sluice_arena_free(a);
}

static void test_js_taint_value_under_another_name_never_leaves(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof leak_plans / sizeof leak_plans[0]; i++) {
        assert_no_leak(leak_plans[i], false, false);
        assert_no_leak(leak_plans[i], true, false);
    }
}

static void test_js_taint_derived_bits_and_counts_are_tainted(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bit_plans / sizeof bit_plans[0]; i++) {
        sluice_arena *a = sluice_arena_new();
        outcome o;
        run(a, bit_plans[i], false, &o);
        /* the bit is not in the answer: the answer is redacted whole */
        if (!(o.st == SLUICE_OK &&
              (o.r.json == NULL || strcmp(o.r.json, "null") == 0 || o.r.redacted > 0)))
            fail_msg("answered a derived bit: %s\n  -> %s", bit_plans[i], o.text);
        sluice_arena_free(a);
        a = sluice_arena_new();
        run(a, bit_plans[i], true, &o);
        assert_int_equal(o.st, SLUICE_E_DENIED);
        assert_non_null(strstr(o.err.message, "blocked field '"));
        assert_non_null(strstr(o.err.message, "read at line 2"));
        sluice_arena_free(a);
    }
}

static void test_js_taint_send_of_blocked_value_is_refused_before_the_call(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    outcome o;
    run(a, USERS "await api.get('/users/fail/' + us[0].ssn); return 1", false, &o);
    assert_int_equal(o.st, SLUICE_E_DENIED);
    assert_string_equal(o.err.key, "blocked_output");
    assert_int_equal(o.r.api_calls, 1); /* the first call only: the second never left */
    assert_false(leaks(o.text));
    sluice_arena_free(a);
}

static void test_js_taint_matching_by_literal_input_or_join_key_steers(void **state)
{
    (void)state;
    static const char *const steer[] = {
        USERS "return us.find(u => u.ssn === args.ssn).name",
        USERS "return us.find(u => u.ssn === '" CANARY_SSN "').name",
        USERS "return us.filter(u => u.ssn !== us[1].ssn).map(u => u.name)",
    };
    for (size_t i = 0; i < sizeof steer / sizeof steer[0]; i++) {
        sluice_arena *a = sluice_arena_new();
        outcome o;
        run(a, steer[i], true, &o);
        assert_int_equal(o.st, SLUICE_OK);
        assert_false(o.r.threw);
        assert_non_null(strstr(o.r.json, "Ann"));
        assert_true(o.r.steered);
        sluice_arena_free(a);
    }
    /* against anything computed it taints, as SQL refuses = against generated values */
    static const char *const computed[] = {
        USERS "return us.find(u => u.ssn === '731-95-' + '2864').name",
        USERS "return us.find(u => u.ssn.slice(0, 3) === '731').name",
        USERS "return us.find(u => u['ss' + 'n'] === args.ssn).name",
        USERS "for (let i = 0; i < 1000; i++) if (us[0].salary === i) return i; return -1",
    };
    for (size_t i = 0; i < sizeof computed / sizeof computed[0]; i++) {
        sluice_arena *a = sluice_arena_new();
        outcome o;
        run(a, computed[i], true, &o);
        assert_int_equal(o.st, SLUICE_E_DENIED);
        sluice_arena_free(a);
    }
}

static void test_js_taint_plans_that_never_touch_a_blocked_value_answer_whole(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    outcome o;
    run(a, USERS "return us.map(u => ({ id: u.id, name: u.name.toUpperCase() }))", true, &o);
    assert_int_equal(o.st, SLUICE_OK);
    assert_string_equal(o.r.json,
                        "[{\"id\":\"u1\",\"name\":\"ANN\"},{\"id\":\"u2\",\"name\":\"BOB\"}]");
    assert_true(o.r.tainted);
    assert_int_equal(o.r.redacted, 0);
    run(a, USERS "return us", false, &o);
    assert_string_equal(o.r.json,
                        "[{\"id\":\"u1\",\"name\":\"Ann\"},{\"id\":\"u2\",\"name\":\"Bob\"}]");
    sluice_arena_free(a);
}

static sluice_risk risk_of(const char *code)
{
    static const char *fields[] = { "ssn", "salary" };
    sluice_config_code_mode cm = { .max_api_calls = 10,
                                   .openapi_reads_enabled = true,
                                   .openapi_output_blocked_fields = { fields, 2 } };
    sluice_frontend_context ctx = { .code_mode = &cm };
    sluice_arena *a = sluice_arena_new();
    sluice_codefacts *f = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_js_frontend()->analyze(a, code, strlen(code), NULL, &ctx, &f, &err),
                     SLUICE_OK);
    sluice_risk r = sluice_risk_assess(sluice_js_frontend(), f, NULL);
    sluice_arena_free(a);
    return r;
}

static void test_js_taint_plan_that_may_read_a_blocked_field_is_high_risk(void **state)
{
    (void)state;
    assert_true(risk_of(USERS "return us.find(u => u.ssn === args.ssn)?.name") >= SLUICE_RISK_HIGH);
    assert_true(risk_of(USERS "return us.map(u => u['SALARY'])") >= SLUICE_RISK_HIGH);
    assert_true(risk_of(USERS "return us.map(u => Object.values(u))") >= SLUICE_RISK_HIGH);
    assert_true(risk_of(USERS "return us.map(u => ({ ...u }))") >= SLUICE_RISK_HIGH);
    assert_true(risk_of(USERS "return us.map(({ id, ...r }) => r)") >= SLUICE_RISK_HIGH);
    assert_true(risk_of(USERS "return JSON.stringify(us)") >= SLUICE_RISK_HIGH);
    assert_true(risk_of(USERS "for (const k in us[0]) return k") >= SLUICE_RISK_HIGH);
    assert_true(risk_of(USERS "return us.map(u => ({ id: u.id, name: u.name }))") <
                SLUICE_RISK_HIGH);
}

static void assert_refused_naming(const char *code, const char *needle)
{
    sluice_arena *a = sluice_arena_new();
    outcome o;
    run(a, code, true, &o);
    assert_int_equal(o.st, SLUICE_E_DENIED);
    if (strstr(o.err.message, needle) == NULL)
        fail_msg("%s\n  -> %s\n  (wanted '%s')", code, o.err.message, needle);
    sluice_arena_free(a);
}

/* refuse names the line where the plan took the value out of its record, not the call whose
 * answer carried it (line 1 in every plan here) */
static void test_js_taint_refuse_names_the_line_of_the_read(void **state)
{
    (void)state;
    assert_refused_naming(USERS "const u = us[0];\nconst s = u.ssn;\nconst t = s.split('');\n"
                                "return t.reverse().join('')",
                          "blocked field 'ssn' read at line 3");
    assert_refused_naming(USERS "const u = us[1];\n\nconst { salary } = u;\nreturn salary + 1",
                          "blocked field 'salary' read at line 4");
    assert_refused_naming(USERS "const v = us.map(u => u);\nconst w = Object.values(v[0]);\n"
                                "return w.join()",
                          "read at line 3");
    assert_refused_naming(USERS "const x = 1;\nreturn JSON.stringify(us)", "read at line 3");
    assert_refused_naming(USERS "const x = 1;\nreturn us[0]",
                          "'ssn' (never read by name: carried whole in the answer that arrived) "
                          "at line 1");
    /* values read on different lines and mixed: the first is named, and that there are more */
    assert_refused_naming(USERS "const a = us[0].ssn;\nconst b = us[1].salary;\nreturn a + b",
                          "'ssn' read at line 2 and from other blocked values");
}

/* passable_fields: the host (exec/openapi.c) is told every blocked field a call carries and
 * decides by operation; a call decided by a blocked field, mixing labels, or run on a
 * below-high approval never reaches it; a failed call's text and path never show the value. */
static void test_js_taint_passable_calls_tell_the_host_every_field(void **state)
{
    (void)state;
    setup_opts host = { .passes_taint = true };
    sluice_arena *a = sluice_arena_new();
    outcome o;
    run_with(a, USERS "const r = await api.get('/by-ssn/' + us[0].ssn);\nreturn r.length", true,
             host, &o);
    if (o.st != SLUICE_OK)
        fail_msg("%s", o.text);
    assert_string_equal(seen_passing, "ssn");
    run_with(a, USERS "await api.post('/x', { a: us[0].ssn, b: [us[0].salary] }); return 1", true,
             host, &o);
    assert_int_equal(o.st, SLUICE_OK);
    assert_string_equal(seen_passing, "ssn,salary");
    /* a failure: its text (which quotes the path) and its path are redacted */
    run_with(a, USERS "try { await api.get('/fail/' + us[0].ssn) } catch (e) { return e.message }",
             false, host, &o);
    assert_int_equal(o.st, SLUICE_OK);
    assert_false(leaks(o.text));
    assert_non_null(strstr(o.r.json, "redacted"));
    assert_int_equal(o.r.failed_count, 1);
    assert_false(leaks(o.r.failed[0].path));
    assert_false(leaks(o.r.failed[0].message));
    /* the answer of a lookup is not tainted by what it passed, but what it echoes is */
    run_with(a, USERS "const r = await api.get('/echo/' + us[0].ssn);\nreturn [r.ok, r.note]",
             false, host, &o);
    assert_int_equal(o.st, SLUICE_OK);
    assert_string_equal(o.r.json, "[\"fine\",null]");
    run_with(a, USERS "const r = await api.get('/echo/' + us[0].ssn);\nreturn Object.keys(r.by)",
             true, host, &o);
    assert_int_equal(o.st, SLUICE_E_DENIED);
    assert_false(leaks(o.text));
    static const char *const never[] = {
        /* decided by a blocked field */
        USERS "if (us[0].salary > 5) await api.get('/x/1'); return 1",
        /* mixed labels: the fields it holds are not all known */
        USERS "const a = us[0].ssn;\nconst b = us[1].salary;\nawait api.get('/x/' + a + b)",
    };
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++) {
        run_with(a, never[i], false, host, &o);
        assert_int_equal(o.st, SLUICE_E_DENIED);
        assert_int_equal(o.r.api_calls, 1);
        assert_false(leaks(o.text));
    }
    run_with(a, USERS "await api.get('/by-ssn/' + us[0].ssn); return 1", false,
             (setup_opts){ .passes_taint = true, .clean_only = true }, &o);
    assert_int_equal(o.st, SLUICE_E_DENIED);
    assert_int_equal(o.r.api_calls, 1);
    sluice_arena_free(a);
}

/* A plan approved below high risk was judged to read no blocked field (lang/js); the run
 * checks it: a value it derived from one stops the run instead of being stripped, and the ===
 * exception does not apply. What an answer carries under its own blocked key is only dropped. */
static void test_js_taint_below_high_approval_is_checked_at_run_time(void **state)
{
    (void)state;
    setup_opts clean = { .clean_only = true };
    sluice_arena *a = sluice_arena_new();
    outcome o;
    run_with(a, USERS "return [us, { who: us[1] }]", false, clean, &o);
    assert_int_equal(o.st, SLUICE_OK);
    assert_false(leaks(o.text));
    assert_null(strstr(o.r.json, "ssn"));
    assert_non_null(strstr(o.r.json, "Bob"));
    run_with(a, USERS "return us.map(u => ({ id: u.id, name: u.name }))", false, clean, &o);
    assert_int_equal(o.st, SLUICE_OK);
    assert_int_equal(o.r.redacted, 0);
    static const char *const missed[] = {
        USERS "return us.map(u => Object.values(u))",
        USERS "return us.map(u => ({ pay: { ...u }.salary }))",
        USERS "return us.find(u => u.ssn === args.ssn).name",
        USERS "let n = 0; for (const u of us) if (u.salary > 100000) n++; return n",
        USERS "console.log(us[0].salary); return 1",
        USERS "throw new Error(JSON.stringify(us))",
        USERS "return { ssn: us[0].name, x: us[0].salary }",
    };
    for (size_t i = 0; i < sizeof missed / sizeof missed[0]; i++) {
        run_with(a, missed[i], false, clean, &o);
        if (o.st != SLUICE_E_DENIED || strstr(o.err.message, "approved below high risk") == NULL)
            fail_msg("not refused: %s\n  -> %s", missed[i], o.text);
        assert_false(leaks(o.text));
    }
    sluice_arena_free(a);
}

/* --- allocation failures ------------------------------------------------------------------ */

/* One swept run: a plan, strip or refuse, and the host it runs against. */
typedef struct sweep_case {
    const char *code;
    bool refuse;
    setup_opts so;
    oom_outcome expect; /* without a fault */
    unsigned under_fault;
} sweep_case;

/* A leak in any text, or a call that left carrying a canary unlabelled, is WRONG whatever the
 * status; a refusal is the run-time check or the taint rule saying no. */
static oom_outcome leak_once(void *ctx)
{
    const sweep_case *c = ctx;
    sluice_arena *a = sluice_arena_new();
    if (a == NULL)
        return OOM_FAILED;
    outcome o;
    sent_unlabelled = false;
    run_with(a, c->code, c->refuse, c->so, &o);
    oom_outcome r = leaks(o.text) || sent_unlabelled ? OOM_WRONG
                    : o.st == SLUICE_OK              ? OOM_ALLOWED
                    : o.st == SLUICE_E_DENIED        ? OOM_REFUSED
                                                     : OOM_FAILED;
    sluice_arena_free(a);
    return r;
}

static void sweep(const sweep_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        long points = oom_sweep(cases[i].code, leak_once, (void *)&cases[i], cases[i].expect,
                                cases[i].under_fault);
        if (points <= 10)
            fail_msg("%s: %ld allocation points swept", cases[i].code, points);
    }
}

static void test_js_taint_allocation_failures_never_leak(void **state)
{
    (void)state;
    static const char *const plans[] = {
        USERS "return us.map(u => ({ id: u.id, tax: u.ssn, s: `${u.salary}` }))",
        USERS "let n = 0; for (const u of us) if (u.salary > 100000) n++; return n",
        USERS "console.log(us[0].ssn); throw new Error(us[1].ssn)",
        WRAPPED "return [JSON.parse(w.body)[0].ssn, w.double.slice(12, 23)]",
    };
    const unsigned any = OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED) | OOM_ACCEPT(OOM_ALLOWED);
    sweep_case cases[sizeof plans / sizeof plans[0]];
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++)
        cases[i] = (sweep_case){ plans[i], false, { 0 }, OOM_ALLOWED, any };
    sweep(cases, sizeof cases / sizeof cases[0]);
}

/* The passable-field path (the host told every field a call carries, the failed call's path
 * and message redacted) and the run-time check of a below-high approval, under every failed
 * allocation: a call never leaves carrying a blocked value the host was not told of, no text
 * shows one, and a plan the check must stop never gets a clean answer. */
static void test_js_taint_allocation_failures_passable_and_below_high_check(void **state)
{
    (void)state;
    const setup_opts host = { .passes_taint = true };
    const setup_opts clean = { .clean_only = true };
    const setup_opts both = { .passes_taint = true, .clean_only = true };
    const unsigned any = OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED) | OOM_ACCEPT(OOM_ALLOWED);
    const unsigned no = OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED);
    const sweep_case cases[] = {
        { USERS "const r = await api.get('/by-ssn/' + us[0].ssn);\nreturn r.length", true, host,
          OOM_ALLOWED, any },
        { USERS "await api.post('/x', { a: us[0].ssn, b: [us[0].salary] }); return 1", false, host,
          OOM_ALLOWED, any },
        { USERS "try { await api.get('/fail/' + us[0].ssn) } catch (e) { return e.message }", false,
          host, OOM_ALLOWED, any },
        { USERS "const r = await api.get('/echo/' + us[0].ssn);\nreturn [r.ok, r.note, r.by]",
          false, host, OOM_ALLOWED, any },
        /* never sent: decided by a blocked field, mixed labels, a below-high approval */
        { USERS "if (us[0].salary > 5) await api.get('/x/1'); return 1", false, host, OOM_REFUSED,
          no },
        { USERS "const a = us[0].ssn;\nconst b = us[1].salary;\nawait api.get('/x/' + a + b)",
          false, host, OOM_REFUSED, no },
        { USERS "await api.get('/by-ssn/' + us[0].ssn); return 1", false, both, OOM_REFUSED, no },
        /* the run-time check of a below-high approval */
        { USERS "return us.map(u => ({ id: u.id, name: u.name }))", false, clean, OOM_ALLOWED,
          any },
        { USERS "return [us, { who: us[1] }]", false, clean, OOM_ALLOWED, any },
        { USERS "return us.map(u => Object.values(u))", false, clean, OOM_REFUSED, no },
        { USERS "let n = 0; for (const u of us) if (u.salary > 100000) n++; return n", false, clean,
          OOM_REFUSED, no },
        { USERS "return us.find(u => u.ssn === args.ssn).name", false, clean, OOM_REFUSED, no },
        { USERS "console.log(us[0].salary); throw new Error(JSON.stringify(us))", false, clean,
          OOM_REFUSED, no },
    };
    sweep(cases, sizeof cases / sizeof cases[0]);
}

static int setup(void **state)
{
    (void)state;
    oom_count_jansson();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_js_taint_value_under_another_name_never_leaves),
        cmocka_unit_test(test_js_taint_derived_bits_and_counts_are_tainted),
        cmocka_unit_test(test_js_taint_send_of_blocked_value_is_refused_before_the_call),
        cmocka_unit_test(test_js_taint_matching_by_literal_input_or_join_key_steers),
        cmocka_unit_test(test_js_taint_plans_that_never_touch_a_blocked_value_answer_whole),
        cmocka_unit_test(test_js_taint_plan_that_may_read_a_blocked_field_is_high_risk),
        cmocka_unit_test(test_js_taint_refuse_names_the_line_of_the_read),
        cmocka_unit_test(test_js_taint_passable_calls_tell_the_host_every_field),
        cmocka_unit_test(test_js_taint_below_high_approval_is_checked_at_run_time),
        cmocka_unit_test(test_js_taint_allocation_failures_never_leak),
        cmocka_unit_test(test_js_taint_allocation_failures_passable_and_below_high_check),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
