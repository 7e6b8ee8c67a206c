/*
 * test_path_template.c — the one template rule validate and the run share: literal segments,
 * parameters, spanning parameters and their bound, holes at validate, the fewest segments taken
 * when templates overlap, the segment split's bounds and the value rules.
 */
#include "core/path_template.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

static void test_path_template_match_rules(void **state)
{
    (void)state;
    size_t at[SLUICE_PATH_MAX_SEGMENTS + 1];
    /* bit 2: {path} */
    assert_int_equal(sluice_path_template_match("/c/{o}/{path}", 4, "/c/x/a/b/c", false, at), 2);
    assert_int_equal(at[0], 0);
    assert_int_equal(at[2], 2);
    assert_int_equal(at[3], 5);
    assert_int_equal(sluice_path_template_match("/c/{o}/{path}", 0, "/c/x/a/b", false, NULL), -1);
    assert_int_equal(sluice_path_template_match("/c/{o}/{path}", 4, "/c/x/", false, NULL), -1);
    assert_int_equal(sluice_path_template_match("/c/{o}/{path}", 4, "/c/x/a//b", false, NULL), -1);
    /* a hole fills a parameter, never a literal; at run time "{}" is text */
    assert_int_equal(sluice_path_template_match("/c/{o}", 0, "/c/{}", true, NULL), 0);
    assert_int_equal(sluice_path_template_match("/c/{o}", 0, "/{}/x", true, NULL), -1);
    assert_int_equal(sluice_path_template_match("/c/{o}", 0, "/c/a{}b", true, NULL), 0);
    assert_int_equal(sluice_path_template_match("/{}/{o}", 0, "/{}/x", false, NULL), 0);
    /* the fewest taken: a spanning parameter leaves a literal its own segment */
    assert_int_equal(sluice_path_template_match("/b/{b}/p", 2, "/b/x/y/p", false, at), 1);
    assert_int_equal(at[2], 3);
    assert_int_equal(sluice_path_template_match("/", 0, "/", false, NULL), 0);
    assert_int_equal(sluice_path_template_match("/a", 0, "a", false, NULL), -1);
}

static void test_path_template_bounds(void **state)
{
    (void)state;
    /* "/f" and then "/a" until the bound, and once more */
    char deep[2 * (SLUICE_PATH_MAX_SEGMENTS + 2)];
    size_t len = (size_t)snprintf(deep, sizeof deep, "/f");
    for (size_t i = 1; i < SLUICE_PATH_MAX_SEGMENTS; i++)
        len += (size_t)snprintf(deep + len, sizeof deep - len, "/a");
    assert_int_equal(sluice_path_template_match("/f/{p}", 2, deep, false, NULL),
                     (int)SLUICE_PATH_MAX_SEGMENTS - 2);
    snprintf(deep + len, sizeof deep - len, "/a"); /* one segment too many: matches nothing */
    assert_int_equal(sluice_path_template_match("/f/{p}", 2, deep, false, NULL), -1);
    sluice_path_segment s[4];
    assert_int_equal(sluice_path_split("/a/b/c/d/e", s, 4), SIZE_MAX);
    assert_int_equal(sluice_path_split("/a//b", s, 4), 3);
    assert_int_equal(s[1].len, 0);
    /* more spanning parameters than the bound: only the first two met may take more than one */
    assert_int_equal(
        sluice_path_template_match("/{a}/x/{b}/y/{c}", 21, "/1/1/x/2/2/y/3", false, NULL), 2);
    assert_int_equal(
        sluice_path_template_match("/{a}/x/{b}/y/{c}", 21, "/1/1/x/2/2/y/3/3", false, NULL), -1);
}

static void test_path_value_rules(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", ".", "..", "a..b", "%2e", "a?b", "a#b", "a\\b", "a\x01"
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (sluice_path_value_rule(bad[i], strlen(bad[i])) == NULL)
            fail_msg("'%s' passed", bad[i]);
    assert_null(sluice_path_value_rule("README.md", 9));
    assert_null(sluice_path_value_rule("a b", 3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_template_match_rules),
        cmocka_unit_test(test_path_template_bounds),
        cmocka_unit_test(test_path_value_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
