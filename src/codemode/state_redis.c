/*
 * state_redis.c — both shared stores opened from [state] (see state_redis.h).
 */
#include "codemode/state_redis.h"

sluice_status sluice_state_redis_open(const sluice_config_state *state,
                                      sluice_replay **replay,
                                      sluice_approval_store **approvals,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    const sluice_state_redis_options o = {
        .connection = { .url = state->redis_url,
                        .password_file = state->redis_password_file,
                        .password_env = state->redis_password_env,
                        .timeout_ms =
                            state->redis_timeout_ms > 0 ? (int)state->redis_timeout_ms : 2000 },
        .prefix = state->redis_prefix != NULL ? state->redis_prefix : "sluice:",
    };
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
