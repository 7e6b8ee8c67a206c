/*
 * runtime.c — opening and closing the code-mode runtime's stores (see cli/runtime.h).
 *
 * Built into the library too (CMakeLists.txt), so the tests and benches assemble the runtime
 * exactly as `sluice serve` does.
 */
#include "cli/runtime.h"

#include "codemode/codemode.h"
#include "state/audit_pg.h"
#include "state/program_store_pg.h"
#include "state/state_redis.h"

#include <stdlib.h>

static sluice_status open_audit(sluice_runtime *rt,
                                const sluice_config *config,
                                sluice_arena *err_arena,
                                sluice_error *err)
{
    const sluice_config_code_mode *c = &config->code_mode;
    const sluice_config_state *shared = &config->state;
    if (shared->audit_postgres != NULL) { /* shared by replicas: docs/deploy.md */
        const sluice_audit_pg_options o = { shared->audit_postgres,
                                            shared->audit_postgres_password_file,
                                            shared->audit_postgres_password_env,
                                            shared->audit_postgres_table, NULL };
        return sluice_audit_open_pg(&o, &rt->audit, err_arena, err);
    }
    if (c->audit_log == NULL)
        return SLUICE_OK;
    const sluice_audit_file_options o = { .clock = NULL,
                                          .rotate_bytes = c->audit_rotate_bytes,
                                          .rotate_seconds = c->audit_rotate_seconds };
    return sluice_audit_open_writer(c->audit_log, &o, &rt->writer_slot, &rt->audit, err_arena, err);
}

/* The quota counters, when some quota is set: in Redis when replicas share state, else here. */
static sluice_status open_quotas(sluice_runtime *rt,
                                 const sluice_config *config,
                                 sluice_arena *err_arena,
                                 sluice_error *err)
{
    if (!sluice_quota_configured(config))
        return SLUICE_OK;
    if (config->state.redis_url == NULL)
        return sluice_quota_open_local(&rt->quotas) == SLUICE_OK
                   ? SLUICE_OK
                   : sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    const sluice_state_redis_options o = sluice_state_redis_options_of(&config->state);
    return sluice_quota_open_redis(&o, &rt->quotas, err_arena, err);
}

/* The saved-program store, when saved programs are on: in PostgreSQL when replicas share it
 * (docs/deploy.md), else the file (config.c refuses both). */
static sluice_status open_programs(sluice_runtime *rt,
                                   const sluice_config *config,
                                   sluice_arena *err_arena,
                                   sluice_error *err)
{
    const sluice_config_state *s = &config->state;
    if (s->programs_postgres != NULL) {
        const sluice_program_store_pg_options o = { s->programs_postgres,
                                                    s->programs_postgres_password_file,
                                                    s->programs_postgres_password_env,
                                                    s->programs_postgres_table };
        return sluice_program_store_open_pg(&o, &rt->programs, err_arena, err);
    }
    if (config->code_mode.programs_file == NULL)
        return SLUICE_OK;
    return sluice_program_store_open_file(config->code_mode.programs_file, &rt->programs, err_arena,
                                          err);
}

/* The keyring, the quota counters, the consume-once store and the approval store; code mode
 * only. */
static sluice_status open_token_state(sluice_runtime *rt,
                                      const sluice_config *config,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    const sluice_config_code_mode *c = &config->code_mode;
    const sluice_key_sources keys = { c->token_secret_file, c->token_secret_env,
                                      c->token_previous_secret_file, c->token_previous_secret_env };
    sluice_status st = sluice_key_store_open(&keys, &rt->keys, err_arena, err);
    if (st != SLUICE_OK)
        return st;
    st = open_quotas(rt, config, err_arena, err);
    if (st == SLUICE_OK)
        st = open_programs(rt, config, err_arena, err);
    if (st != SLUICE_OK)
        return st;
    if (config->state.redis_url != NULL) /* shared by replicas: docs/deploy.md */
        return sluice_state_redis_open(&config->state, &rt->replay, &rt->approvals, err_arena, err);
    const char *replay_path = c->replay_store;
    if (replay_path == NULL && c->audit_log != NULL)
        replay_path = sluice_arena_printf(rt->arena, "%s.tokens", c->audit_log);
    if (replay_path != NULL && rt->writer_slot > 1) /* a second process: its own store too */
        replay_path = sluice_arena_printf(rt->arena, "%s.w%u", replay_path, rt->writer_slot);
    st =
        sluice_replay_open(replay_path, sluice_clock_now_s(rt->clock), &rt->replay, err_arena, err);
    if (st == SLUICE_OK && c->audit_log != NULL) {
        const char *path = sluice_arena_printf(rt->arena, "%s.approvals", c->audit_log);
        st = path != NULL ? sluice_approval_open(path, &rt->approvals, err_arena, err)
                          : SLUICE_E_NOMEM;
    }
    return st;
}

/* A runtime with nothing opened yet: the clock, the server id, writer slot 1. */
static sluice_status runtime_new(const sluice_config *config,
                                 const sluice_clock *clock,
                                 sluice_runtime **out,
                                 sluice_arena *err_arena,
                                 sluice_error *err)
{
    sluice_runtime *rt = calloc(1, sizeof *rt);
    if (rt == NULL || (rt->arena = sluice_arena_new()) == NULL) {
        free(rt);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    atomic_init(&rt->audit_broken, false);
    rt->writer_slot = 1;
    rt->clock = clock;
    rt->server_id = config->code_mode.server_id;
    *out = rt;
    return SLUICE_OK;
}

static sluice_status open_stores(sluice_runtime *rt,
                                 const sluice_config *config,
                                 sluice_arena *err_arena,
                                 sluice_error *err)
{
    sluice_status st = open_audit(rt, config, err_arena, err);
    if (st == SLUICE_OK && config->code_mode.enabled)
        st = open_token_state(rt, config, err_arena, err);
    return st;
}

sluice_status sluice_runtime_open(const sluice_config *config,
                                  const sluice_clock *clock,
                                  sluice_runtime **out,
                                  sluice_arena *err_arena,
                                  sluice_error *err)
{
    sluice_runtime *rt = NULL;
    sluice_status st = runtime_new(config, clock, &rt, err_arena, err);
    if (st == SLUICE_OK)
        st = open_stores(rt, config, err_arena, err);
    if (st != SLUICE_OK) {
        sluice_runtime_close(rt);
        return st;
    }
    *out = rt;
    return SLUICE_OK;
}

sluice_status sluice_runtime_open_codemode(const sluice_config *config,
                                           sluice_runtime **out_rt,
                                           sluice_codemode **out_cm,
                                           sluice_arena *err_arena,
                                           sluice_error *err)
{
    sluice_runtime *rt = NULL;
    sluice_codemode *cm = NULL;
    sluice_status st = runtime_new(config, NULL, &rt, err_arena, err);
    if (st == SLUICE_OK)
        st = sluice_codemode_open(config, rt, &cm, err_arena, err);
    if (st == SLUICE_OK)
        st = open_stores(rt, config, err_arena, err);
    if (st != SLUICE_OK) {
        sluice_codemode_close(cm);
        sluice_runtime_close(rt);
        return st;
    }
    *out_rt = rt;
    *out_cm = cm;
    return SLUICE_OK;
}

void sluice_runtime_close(sluice_runtime *rt)
{
    if (rt == NULL)
        return;
    sluice_audit_close(rt->audit);
    sluice_replay_close(rt->replay);
    sluice_approval_close(rt->approvals);
    sluice_program_store_close(rt->programs);
    sluice_quota_close(rt->quotas);
    sluice_key_store_close(rt->keys);
    sluice_arena_free(rt->arena);
    free(rt);
}
