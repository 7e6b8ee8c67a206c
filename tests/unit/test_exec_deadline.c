/*
 * test_exec_deadline.c — the deadline watcher (exec/deadline.h): a deadline that is due fires
 * once, a nearer deadline armed while the watcher sleeps toward a later one wakes it, a disarmed
 * one never fires, and a forked child gets a watcher of its own. No test sleeps for a deadline:
 * the ones that fire are already due or a few milliseconds away, waited for on a condition
 * variable with a generous bound that only a broken watcher reaches.
 */
#include "core/clock.h"
#include "exec/deadline.h"
#include "unit.h"

#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What a deadline's fire saw. */
typedef struct fired {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int count;
    int64_t at_ms; /* when it fired */
} fired;

static void fired_init(fired *f)
{
    memset(f, 0, sizeof(*f));
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
}

static void fired_dispose(fired *f)
{
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->cv);
}

static void on_fire(void *arg)
{
    fired *f = arg;
    pthread_mutex_lock(&f->mu);
    f->count++;
    f->at_ms = sluice_clock_monotonic_ms(NULL);
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

/* Waits up to 10 s (a broken watcher) for f to have fired; its count. */
static int wait_fired(fired *f)
{
    struct timespec until = sluice_clock_deadline_after(10000);
    pthread_mutex_lock(&f->mu);
    while (f->count == 0 && pthread_cond_timedwait(&f->cv, &f->mu, &until) == 0)
        ;
    int n = f->count;
    pthread_mutex_unlock(&f->mu);
    return n;
}

static sluice_deadline deadline_in(int64_t ms, fired *f)
{
    return (sluice_deadline){ .at_ms = sluice_clock_monotonic_ms(NULL) + ms,
                              .fire = on_fire,
                              .arg = f };
}

static void test_a_due_deadline_fires_once(void **state)
{
    (void)state;
    fired f;
    fired_init(&f);
    sluice_deadline d = deadline_in(0, &f);
    assert_int_equal(sluice_deadline_arm(&d), SLUICE_OK);
    assert_int_equal(wait_fired(&f), 1);
    sluice_deadline_disarm(&d); /* after it fired: harmless */
    assert_false(d.armed);
    /* armed again, it fires again */
    d = deadline_in(5, &f);
    assert_int_equal(sluice_deadline_arm(&d), SLUICE_OK);
    pthread_mutex_lock(&f.mu);
    struct timespec until = sluice_clock_deadline_after(10000);
    while (f.count < 2 && pthread_cond_timedwait(&f.cv, &f.mu, &until) == 0)
        ;
    assert_int_equal(f.count, 2);
    assert_true(f.at_ms >= d.at_ms); /* never early */
    pthread_mutex_unlock(&f.mu);
    sluice_deadline_disarm(&d);
    fired_dispose(&f);
}

static void test_a_nearer_deadline_wakes_the_watcher(void **state)
{
    (void)state;
    fired later, sooner;
    fired_init(&later);
    fired_init(&sooner);
    /* the watcher now sleeps toward an hour from now */
    sluice_deadline far = deadline_in(3600 * 1000, &later);
    assert_int_equal(sluice_deadline_arm(&far), SLUICE_OK);
    sluice_deadline near = deadline_in(1, &sooner);
    assert_int_equal(sluice_deadline_arm(&near), SLUICE_OK);
    assert_int_equal(wait_fired(&sooner), 1);
    sluice_deadline_disarm(&near);
    sluice_deadline_disarm(&far);
    assert_int_equal(later.count, 0);
    fired_dispose(&later);
    fired_dispose(&sooner);
}

static void test_a_disarmed_deadline_never_fires(void **state)
{
    (void)state;
    fired gone, kept;
    fired_init(&gone);
    fired_init(&kept);
    sluice_deadline d = deadline_in(20, &gone);
    assert_int_equal(sluice_deadline_arm(&d), SLUICE_OK);
    sluice_deadline_disarm(&d);
    assert_false(d.armed);
    /* one armed after it, due later, has fired: the watcher passed the first one's time */
    sluice_deadline after = deadline_in(40, &kept);
    assert_int_equal(sluice_deadline_arm(&after), SLUICE_OK);
    assert_int_equal(wait_fired(&kept), 1);
    sluice_deadline_disarm(&after);
    assert_int_equal(gone.count, 0);
    sluice_deadline never = { .fire = on_fire, .arg = &gone };
    sluice_deadline_disarm(&never); /* never armed: nothing happens */
    fired_dispose(&gone);
    fired_dispose(&kept);
}

static void test_a_forked_child_has_a_watcher_of_its_own(void **state)
{
    (void)state;
    fired f;
    fired_init(&f);
    /* the parent's watcher runs (and sleeps toward this one) when the child is forked */
    sluice_deadline parent = deadline_in(3600 * 1000, &f);
    assert_int_equal(sluice_deadline_arm(&parent), SLUICE_OK);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        sluice_deadline_in_child();
        fired c;
        fired_init(&c);
        sluice_deadline d = deadline_in(0, &c);
        int ok = sluice_deadline_arm(&d) == SLUICE_OK && wait_fired(&c) == 1;
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    sluice_deadline_disarm(&parent);
    assert_int_equal(f.count, 0);
    fired_dispose(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_due_deadline_fires_once),
        cmocka_unit_test(test_a_nearer_deadline_wakes_the_watcher),
        cmocka_unit_test(test_a_disarmed_deadline_never_fires),
        cmocka_unit_test(test_a_forked_child_has_a_watcher_of_its_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
