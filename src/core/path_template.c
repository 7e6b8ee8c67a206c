/*
 * path_template.c — matching a path to an OpenAPI path template (see path_template.h).
 *
 * Owns: the backtracking match, bounded: at most SLUICE_PATH_MAX_SPANNING spanning parameters
 * are tried as spanning, so the work is at most quadratic in the path's segments.
 */
#include "core/path_template.h"

#include <string.h>

size_t sluice_path_split(const char *path, sluice_path_segment *out, size_t max)
{
    size_t n = 0;
    const char *p = path;
    while (*p == '/') {
        if (n == max)
            return SIZE_MAX;
        const char *s = ++p;
        while (*p != '\0' && *p != '/')
            p++;
        out[n++] = (sluice_path_segment){ s, (size_t)(p - s) };
    }
    return *p == '\0' && n > 0 ? n : SIZE_MAX;
}

const char *sluice_path_value_rule(const char *v, size_t n)
{
    if (n == 0)
        return "it is empty";
    if (n == 2 && v[0] == '.' && v[1] == '.')
        return "it is '..'";
    if (n == 1 && v[0] == '.')
        return "it is '.'";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c < 0x20 || c == 0x7F)
            return "it has a control byte";
        if (c == '?' || c == '#' || c == '\\' || c == '%')
            return "it has '?', '#', '\\' or '%' (encoded or double-encoded text)";
        if (c == '.' && i + 1 < n && v[i + 1] == '.')
            return "it has '..'";
    }
    return NULL;
}

bool sluice_path_is_param(const char *text, size_t len)
{
    return len >= 2 && text[0] == '{' && text[len - 1] == '}';
}

typedef struct matcher {
    const sluice_path_segment *t, *p;
    size_t tn, pn;
    uint64_t spanning;
    bool holes;
    size_t *at;  /* the best assignment so far (caller's), or NULL */
    size_t *cur; /* the assignment being tried */
    int best;    /* -1 until one way matched */
    unsigned spans_left;
} matcher;

static bool is_hole(const matcher *m, const sluice_path_segment *s)
{
    return m->holes && memmem(s->text, s->len, "{}", 2) != NULL;
}

static bool spans(const matcher *m, size_t ti)
{
    return ti < 64 && (m->spanning >> ti & 1u) != 0;
}

/* Tries template segment ti from path segment pi on; absorbed: segments taken beyond one so far. */
static void step(matcher *m, size_t ti, size_t pi, int absorbed)
{
    if (m->best >= 0 && absorbed >= m->best)
        return; /* no better than a way already found */
    if (ti == m->tn) {
        if (pi != m->pn)
            return;
        m->best = absorbed;
        if (m->at != NULL) {
            memcpy(m->at, m->cur, ti * sizeof *m->at);
            m->at[ti] = pi;
        }
        return;
    }
    if (pi == m->pn)
        return;
    const sluice_path_segment *want = &m->t[ti], *got = &m->p[pi];
    m->cur[ti] = pi;
    if (!sluice_path_is_param(want->text, want->len)) {
        if (!is_hole(m, got) && got->len == want->len &&
            memcmp(got->text, want->text, want->len) == 0)
            step(m, ti + 1, pi + 1, absorbed);
        return;
    }
    if (got->len == 0)
        return;
    step(m, ti + 1, pi + 1, absorbed);
    if (!spans(m, ti) || m->spans_left == 0)
        return;
    m->spans_left--;
    /* the same parameter takes more segments, each non-empty; leave one for each template
     * segment still to match */
    for (size_t k = pi + 1; k < m->pn && m->pn - k >= m->tn - ti && m->p[k].len > 0; k++)
        step(m, ti + 1, k + 1, absorbed + (int)(k - pi));
    m->spans_left++;
}

int sluice_path_template_match(
    const char *tmpl, uint64_t spanning, const char *path, bool holes, size_t *at)
{
    sluice_path_segment t[SLUICE_PATH_MAX_SEGMENTS], p[SLUICE_PATH_MAX_SEGMENTS];
    size_t cur[SLUICE_PATH_MAX_SEGMENTS + 1];
    size_t tn = sluice_path_split(tmpl, t, SLUICE_PATH_MAX_SEGMENTS);
    size_t pn = sluice_path_split(path, p, SLUICE_PATH_MAX_SEGMENTS);
    if (tn == SIZE_MAX || pn == SIZE_MAX || pn < tn)
        return -1;
    matcher m = { .t = t,
                  .p = p,
                  .tn = tn,
                  .pn = pn,
                  .spanning = spanning,
                  .holes = holes,
                  .at = at,
                  .cur = cur,
                  .best = -1,
                  .spans_left = SLUICE_PATH_MAX_SPANNING };
    step(&m, 0, 0, 0);
    return m.best;
}

bool sluice_openapi_method_sends_body(const char *method)
{
    return strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0 ||
           strcmp(method, "PATCH") == 0;
}
