/*
 * either.h — one sluice_authenticator that accepts a bearer JWT or an API key.
 *
 * Owns: routing a request to the right authenticator by what it presents: a Bearer value
 * shaped like a JWT (three dot-separated parts) goes to the JWT authenticator; any other Bearer
 * value and X-API-Key go to the API keys; a request with no credential gets the JWT
 * authenticator's challenge (it names the resource metadata, so OAuth clients can discover the
 * authorization server). A credential is judged by one authenticator only, never retried on
 * the other.
 * Does not own: either check (jwt.c, apikey.c).
 */
#ifndef SLUICE_AUTH_EITHER_H
#define SLUICE_AUTH_EITHER_H

#include "auth/identity.h"
#include "core/error.h"

/* Takes ownership of jwt and apikey (destroyed with the result, or on failure). */
sluice_status sluice_auth_either_new(sluice_authenticator *jwt,
                                     sluice_authenticator *apikey,
                                     sluice_authenticator **out);

#endif
