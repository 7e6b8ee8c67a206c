/*
 * either.c — JWT or API key, chosen by the shape of the credential (see either.h).
 */
#include "auth/either.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct either_state {
    sluice_authenticator *jwt;
    sluice_authenticator *apikey;
} either_state;

/* "Bearer x.y.z" (the JWS compact form). */
static bool looks_like_jwt(const char *authorization)
{
    if (authorization == NULL || strncasecmp(authorization, "Bearer ", 7) != 0)
        return false;
    const char *v = authorization + 7;
    const char *dot1 = strchr(v, '.');
    const char *dot2 = dot1 != NULL ? strchr(dot1 + 1, '.') : NULL;
    return dot2 != NULL && strchr(dot2 + 1, '.') == NULL;
}

static sluice_status authenticate(const sluice_authenticator *self,
                                  sluice_arena *arena,
                                  const sluice_auth_request *rq,
                                  sluice_identity *out,
                                  sluice_auth_failure *failure)
{
    const either_state *st = self->state;
    bool has_key = (rq->api_key != NULL && rq->api_key[0] != '\0') ||
                   (rq->authorization != NULL && !looks_like_jwt(rq->authorization));
    const sluice_authenticator *to = has_key ? st->apikey : st->jwt;
    return to->authenticate(to, arena, rq, out, failure);
}

static void destroy(sluice_authenticator *self)
{
    if (self == NULL)
        return;
    either_state *st = self->state;
    if (st != NULL) {
        st->jwt->destroy(st->jwt);
        st->apikey->destroy(st->apikey);
        free(st);
    }
    free(self);
}

sluice_status sluice_auth_either_new(sluice_authenticator *jwt,
                                     sluice_authenticator *apikey,
                                     sluice_authenticator **out)
{
    sluice_authenticator *auth = calloc(1, sizeof *auth);
    either_state *st = calloc(1, sizeof *st);
    if (auth == NULL || st == NULL) {
        free(auth);
        free(st);
        jwt->destroy(jwt);
        apikey->destroy(apikey);
        return SLUICE_E_NOMEM;
    }
    st->jwt = jwt;
    st->apikey = apikey;
    auth->state = st;
    auth->authenticate = authenticate;
    auth->destroy = destroy;
    *out = auth;
    return SLUICE_OK;
}
