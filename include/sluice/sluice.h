/*
 * sluice.h — the public face of libsluice: status codes and version.
 *
 * Owns: the sluice_status enum (append-only, never renumbered) and its stable names.
 * Does not own: any jansson, DuckDB or libpq type; those stay behind src/.
 */
#ifndef SLUICE_SLUICE_H
#define SLUICE_SLUICE_H

#define SLUICE_VERSION "0.1.0"

/* Every fallible call returns one of these. Numbers never move; docs/errors.md has a row each. */
typedef enum sluice_status {
    SLUICE_OK = 0,            /* success */
    SLUICE_E_NOMEM = 1,       /* an allocation failed */
    SLUICE_E_INVALID = 2,     /* the input is malformed (syntax, type, shape) */
    SLUICE_E_LIMIT = 3,       /* an input-driven size, count, depth or time exceeded its ceiling */
    SLUICE_E_IO = 4,          /* reading or writing a file or socket failed */
    SLUICE_E_NOT_FOUND = 5,   /* the named thing does not exist */
    SLUICE_E_DENIED = 6,      /* a rule or policy refused the request */
    SLUICE_E_UNSUPPORTED = 7, /* valid, but not built (yet) */
    SLUICE_E_INTERNAL = 8,    /* a bug in sluice: please report it */
    SLUICE_E_TIMEOUT = 9,     /* a deadline passed and the work was stopped */
    SLUICE_E_CANCELLED = 10,  /* the caller cancelled the work */
    SLUICE_E_CONFIG = 11,     /* the configuration is wrong */
    SLUICE_E_TOKEN = 12,      /* an approval token is malformed, forged, expired or misbound */
    SLUICE_E_ENGINE = 13,     /* the database engine reported an error */
    SLUICE_E_AUTH = 14,       /* the caller could not be authenticated */
} sluice_status;

/* Highest defined status; tests walk 0..SLUICE_STATUS_MAX against docs/errors.md. */
#define SLUICE_STATUS_MAX SLUICE_E_AUTH

/* A stable lower-case name ("ok", "nomem", ...) for JSON and logs; "unknown" out of range. */
const char *sluice_status_name(sluice_status status);

#endif
