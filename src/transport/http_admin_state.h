/*
 * http_admin_state.h — what the admin console's router (http_admin.c) and its API files
 * (http_admin_api.h) both read: the console's state, set up by whoever serves it.
 *
 * Owns: that struct only. Below both, so the API files name it without including the router.
 */
#ifndef SLUICE_TRANSPORT_HTTP_ADMIN_STATE_H
#define SLUICE_TRANSPORT_HTTP_ADMIN_STATE_H

#include "codemode/codemode.h"
#include "config/config.h"
#include "transport/http_admin_key.h"

struct MHD_Connection;

typedef struct sluice_http_admin {
    sluice_codemode *cm;         /* NULL: no code mode (readiness has nothing to check) */
    sluice_runtime *rt;          /* cm's runtime (approvals, audit, clock); NULL with cm */
    sluice_admin_key *key;       /* NULL: no [admin] key or no approval store: the console's
                                    API answers 404, POST is not served */
    const sluice_config *config; /* for the summary page; may be NULL */
} sluice_http_admin;

#endif
