/*
 * state_redis.c — both shared stores opened from [state] (see state_redis.h).
 */
#include "state/state_redis.h"

#include <stdio.h>
#include <stdlib.h>

sluice_state_redis_options sluice_state_redis_options_of(const sluice_config_state *state)
{
    return (sluice_state_redis_options){
        .connection = { .url = state->redis_url,
                        .password_file = state->redis_password_file,
                        .password_env = state->redis_password_env,
                        .timeout_ms =
                            state->redis_timeout_ms > 0 ? (int)state->redis_timeout_ms : 2000 },
        .prefix = state->redis_prefix != NULL ? state->redis_prefix : "sluice:",
    };
}

sluice_status sluice_state_redis_open(const sluice_config_state *state,
                                      sluice_replay **replay,
                                      sluice_approval_store **approvals,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    const sluice_state_redis_options o = sluice_state_redis_options_of(state);
    sluice_status st = sluice_replay_open_redis(&o, replay, err_arena, err);
    if (st != SLUICE_OK)
        return st;
    st = sluice_approval_open_redis(&o, approvals, err_arena, err);
    if (st != SLUICE_OK) {
        sluice_replay_close(*replay);
        *replay = NULL;
    }
    return st;
}

sluice_status sluice_redis_store_new(const sluice_state_redis_options *options,
                                     size_t size,
                                     void **out,
                                     sluice_arena *err_arena,
                                     sluice_error *err)
{
    sluice_redis_store *s = calloc(1, size);
    if (s == NULL)
        return SLUICE_E_NOMEM;
    snprintf(s->prefix, sizeof s->prefix, "%s", options->prefix);
    sluice_status st = sluice_redis_open(&options->connection, &s->redis, err_arena, err);
    if (st != SLUICE_OK) {
        free(s);
        return st;
    }
    *out = s;
    return SLUICE_OK;
}

void sluice_redis_store_free(void *store)
{
    sluice_redis_store *s = store;
    sluice_redis_close(s->redis);
    free(s);
}
