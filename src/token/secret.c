/*
 * secret.c — token signing keys in locked memory, HMAC, keyring (see secret.h).
 *
 * The key bytes live in one sodium_malloc'd region (guard pages around it, mlock'd, wiped by
 * sodium_free) that is made read-only once filled; so is the key's HMAC (core/hash.h: two
 * SHA-256 states derived from the key), made once so a MAC does not hash the pads again.
 * Every buffer that held key text on the way in is wiped before its function returns.
 */
#include "token/secret.h"

#include "core/hash.h"
#include "core/limits.h"
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KEY_TAG "sluice-key-v1"
#define HOW_TO_MAKE                                                                       \
    "make one with `sluice keygen -o FILE` (or `sluice keygen` for a line to put in the " \
    "environment variable)"

struct sluice_secret {
    char key_id[SLUICE_SECRET_KEY_ID_MAX + 1];
    size_t len;
    unsigned char *bytes;       /* sodium_malloc'd; read-only once loaded */
    sluice_hash_hmac_key *hmac; /* sodium_malloc'd; read-only once loaded */
};

_Static_assert(SLUICE_SECRET_MAC_BYTES == SLUICE_HASH_BYTES, "HMAC-SHA256 is 32 bytes");

struct sluice_secret_ring {
    sluice_secret *current;
    sluice_secret *previous[SLUICE_LIMIT_PREVIOUS_KEYS];
    size_t n_previous;
};

bool sluice_secret_key_id_valid(const char *id, size_t len)
{
    if (len == 0 || len > SLUICE_SECRET_KEY_ID_MAX)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)id[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
        if (!ok)
            return false;
    }
    return true;
}

/* Decodes the base64url secret straight into locked memory, so no plain copy exists elsewhere. */
static sluice_status decode_secret(const char *b64,
                                   size_t b64_len,
                                   const char *source,
                                   sluice_secret *key,
                                   sluice_arena *err_arena,
                                   sluice_error *err)
{
    key->bytes = sodium_malloc(SLUICE_SECRET_MAX_BYTES);
    if (key->bytes == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM,
                                "%s: cannot allocate locked memory for the key", source);
    if (sodium_mlock(key->bytes, SLUICE_SECRET_MAX_BYTES) != 0)
        sluice_log(SLUICE_LOG_WARN,
                   "%s: cannot lock the key in memory (RLIMIT_MEMLOCK?); it could be swapped out",
                   source);
    size_t bin_len = 0;
    sluice_status st =
        sluice_hash_b64url_decode(b64, b64_len, key->bytes, SLUICE_SECRET_MAX_BYTES, &bin_len);
    if (st == SLUICE_E_LIMIT)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "%s: the key is longer than %u bytes; %s", source,
                                SLUICE_SECRET_MAX_BYTES, HOW_TO_MAKE);
    if (st != SLUICE_OK)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "%s: the key is not valid base64url (no padding); %s", source,
                                HOW_TO_MAKE);
    if (bin_len < SLUICE_SECRET_MIN_BYTES)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "%s: the key has %zu bytes; at least %u random bytes are required; "
                                "%s",
                                source, bin_len, SLUICE_SECRET_MIN_BYTES, HOW_TO_MAKE);
    key->len = bin_len;
    sodium_mprotect_readonly(key->bytes);
    key->hmac = sodium_malloc(sizeof *key->hmac);
    if (key->hmac == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM,
                                "%s: cannot allocate locked memory for the key", source);
    sluice_hash_hmac_init(key->hmac, key->bytes, key->len);
    sodium_mprotect_readonly(key->hmac);
    return SLUICE_OK;
}

static sluice_status parse_line(const char *text,
                                size_t len,
                                const char *source,
                                sluice_secret *key,
                                sluice_arena *err_arena,
                                sluice_error *err)
{
    if (len > 0 && text[len - 1] == '\n')
        len--;
    if (len > 0 && text[len - 1] == '\r')
        len--;
    const size_t tag_len = sizeof(KEY_TAG) - 1;
    if (len <= tag_len || memcmp(text, KEY_TAG " ", tag_len + 1) != 0)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "%s: not a sluice key (expected one line '" KEY_TAG
                                " <key_id> <base64url secret>'); %s",
                                source, HOW_TO_MAKE);
    const char *id = text + tag_len + 1;
    const char *space = memchr(id, ' ', len - tag_len - 1);
    if (space == NULL || !sluice_secret_key_id_valid(id, (size_t)(space - id)))
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "%s: the key id must be 1 to %u characters of A-Z a-z 0-9 . _ - "
                                "followed by one space and the secret; %s",
                                source, SLUICE_SECRET_KEY_ID_MAX, HOW_TO_MAKE);
    memcpy(key->key_id, id, (size_t)(space - id));
    key->key_id[space - id] = '\0';
    const char *b64 = space + 1;
    return decode_secret(b64, (size_t)(text + len - b64), source, key, err_arena, err);
}

sluice_status sluice_secret_parse(char *text,
                                  size_t len,
                                  const char *source,
                                  sluice_secret **out,
                                  sluice_arena *err_arena,
                                  sluice_error *err)
{
    sluice_status st = sluice_hash_init();
    sluice_secret *key = NULL;
    if (st == SLUICE_OK) {
        key = calloc(1, sizeof(*key));
        st = key == NULL ? SLUICE_E_NOMEM : SLUICE_OK;
    }
    if (st == SLUICE_OK)
        st = parse_line(text, len, source != NULL ? source : "key", key, err_arena, err);
    else
        sluice_error_set(err, err_arena, st, "cannot start libsodium or allocate a key");
    sodium_memzero(text, len);
    if (st != SLUICE_OK) {
        sluice_secret_free(key);
        return st;
    }
    *out = key;
    return SLUICE_OK;
}

/* Refuses a key file anyone but its owner could read, as ssh does for private keys. */
static sluice_status
check_file(int fd, const char *path, sluice_arena *err_arena, sluice_error *err)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return sluice_error_set(err, err_arena, SLUICE_E_IO, "%s: cannot stat the key file: %s",
                                path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG, "%s: the key file is not a file",
                                path);
    if (sb.st_uid != geteuid() && sb.st_uid != 0)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "%s: the key file belongs to another user (uid %u); it must "
                                "belong to the user running sluice",
                                path, (unsigned)sb.st_uid);
    if ((sb.st_mode & 077) != 0)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "%s: the key file is accessible by group or others (mode %04o); "
                                "run `chmod 600 %s`",
                                path, (unsigned)(sb.st_mode & 07777), path);
    if (sb.st_size > (off_t)SLUICE_LIMIT_SECRET_LINE_BYTES)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "%s: the key file is %lld bytes; a key line is at most %u; %s",
                                path, (long long)sb.st_size, SLUICE_LIMIT_SECRET_LINE_BYTES,
                                HOW_TO_MAKE);
    return SLUICE_OK;
}

sluice_status sluice_secret_load_file(const char *path,
                                      sluice_secret **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sluice_error_set(err, err_arena, errno == ENOENT ? SLUICE_E_CONFIG : SLUICE_E_IO,
                                "%s: cannot open the key file: %s; %s", path, strerror(errno),
                                HOW_TO_MAKE);
    sluice_status st = check_file(fd, path, err_arena, err);
    if (st != SLUICE_OK) {
        close(fd);
        return st;
    }
    char text[SLUICE_LIMIT_SECRET_LINE_BYTES + 1];
    size_t len = 0;
    ssize_t n;
    while (len < sizeof text && (n = read(fd, text + len, sizeof text - len)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            st = sluice_error_set(err, err_arena, SLUICE_E_IO, "%s: cannot read the key file: %s",
                                  path, strerror(errno));
            break;
        }
        len += (size_t)n;
    }
    close(fd);
    if (st == SLUICE_OK && len > SLUICE_LIMIT_SECRET_LINE_BYTES)
        st = sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                              "%s: the key file is longer than a key line (%u bytes); %s", path,
                              SLUICE_LIMIT_SECRET_LINE_BYTES, HOW_TO_MAKE);
    if (st == SLUICE_OK)
        return sluice_secret_parse(text, len, path, out, err_arena, err);
    sodium_memzero(text, sizeof text);
    return st;
}

sluice_status sluice_secret_load_env(const char *name,
                                     sluice_secret **out,
                                     sluice_arena *err_arena,
                                     sluice_error *err)
{
    const char *value = getenv(name);
    if (value == NULL || value[0] == '\0')
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "environment variable %s is not set or empty; %s", name,
                                HOW_TO_MAKE);
    size_t len = strlen(value);
    if (len > SLUICE_LIMIT_SECRET_LINE_BYTES)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "environment variable %s is longer than a key line (%u bytes); %s",
                                name, SLUICE_LIMIT_SECRET_LINE_BYTES, HOW_TO_MAKE);
    char text[SLUICE_LIMIT_SECRET_LINE_BYTES];
    memcpy(text, value, len);
    char source[128];
    snprintf(source, sizeof source, "environment variable %s", name);
    const char *where = err_arena != NULL ? sluice_arena_strdup(err_arena, source) : NULL;
    return sluice_secret_parse(text, len, where != NULL ? where : "environment variable", out,
                               err_arena, err);
}

void sluice_secret_free(sluice_secret *key)
{
    if (key == NULL)
        return;
    sodium_free(key->bytes); /* wipes before freeing; NULL is fine */
    sodium_free(key->hmac);
    sodium_memzero(key, sizeof(*key));
    free(key);
}

const char *sluice_secret_key_id(const sluice_secret *key)
{
    return key->key_id;
}

void sluice_secret_mac(const sluice_secret *key,
                       const void *data,
                       size_t len,
                       uint8_t out[SLUICE_SECRET_MAC_BYTES])
{
    sluice_hash_hmac(key->hmac, data, len, out);
}

bool sluice_secret_mac_verify(const sluice_secret *key,
                              const void *data,
                              size_t len,
                              const uint8_t mac[SLUICE_SECRET_MAC_BYTES])
{
    /* crypto_auth_hmacsha256_verify wants a 32-byte key; ours may be longer, so compute and
     * compare in constant time the way it does. */
    uint8_t expected[SLUICE_SECRET_MAC_BYTES];
    sluice_secret_mac(key, data, len, expected);
    bool ok = crypto_verify_32(expected, mac) == 0;
    sodium_memzero(expected, sizeof expected);
    return ok;
}

sluice_status sluice_secret_generate(const char *key_id, char *out, size_t cap)
{
    if (cap < SLUICE_LIMIT_SECRET_LINE_BYTES)
        return SLUICE_E_LIMIT;
    if (sluice_hash_init() != SLUICE_OK)
        return SLUICE_E_INTERNAL;
    char id[SLUICE_SECRET_KEY_ID_MAX + 1];
    if (key_id == NULL) {
        uint8_t nonce[4];
        char nonce_hex[9];
        randombytes_buf(nonce, sizeof nonce);
        sluice_hash_hex(nonce, sizeof nonce, nonce_hex);
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        char day[16];
        strftime(day, sizeof day, "%Y%m%d", &tm);
        snprintf(id, sizeof id, "k%s-%s", day, nonce_hex);
        key_id = id;
    }
    if (!sluice_secret_key_id_valid(key_id, strlen(key_id)))
        return SLUICE_E_INVALID;
    uint8_t secret[SLUICE_SECRET_MIN_BYTES];
    char b64[SLUICE_HASH_B64URL_CHARS(SLUICE_SECRET_MIN_BYTES) + 1];
    randombytes_buf(secret, sizeof secret);
    sluice_hash_b64url_encode(secret, sizeof secret, b64);
    snprintf(out, cap, KEY_TAG " %s %s\n", key_id, b64);
    sodium_memzero(secret, sizeof secret);
    sodium_memzero(b64, sizeof b64);
    return SLUICE_OK;
}

sluice_status sluice_secret_ring_new(sluice_secret *current, sluice_secret_ring **out)
{
    sluice_secret_ring *ring = calloc(1, sizeof(*ring));
    if (ring == NULL) {
        sluice_secret_free(current);
        return SLUICE_E_NOMEM;
    }
    ring->current = current;
    *out = ring;
    return SLUICE_OK;
}

sluice_status sluice_secret_ring_add_previous(sluice_secret_ring *ring,
                                              sluice_secret *previous,
                                              sluice_arena *err_arena,
                                              sluice_error *err)
{
    const char *id = previous->key_id;
    if (sluice_secret_ring_find(ring, id, strlen(id)) != NULL) {
        sluice_status st = sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                            "two token keys have the id '%s'; give the new key "
                                            "its own id (`sluice keygen --key-id ID`)",
                                            id);
        sluice_secret_free(previous);
        return st;
    }
    if (ring->n_previous == SLUICE_LIMIT_PREVIOUS_KEYS) {
        sluice_secret_free(previous);
        return sluice_error_set(err, err_arena, SLUICE_E_LIMIT,
                                "too many previous token keys (limit is %u)",
                                SLUICE_LIMIT_PREVIOUS_KEYS);
    }
    ring->previous[ring->n_previous++] = previous;
    return SLUICE_OK;
}

static sluice_status load_one(const char *file,
                              const char *env,
                              const char *what,
                              sluice_secret **out,
                              sluice_arena *err_arena,
                              sluice_error *err)
{
    if (file != NULL && env != NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "code_mode: set either %s_file or %s_env, not both", what, what);
    if (file != NULL)
        return sluice_secret_load_file(file, out, err_arena, err);
    return sluice_secret_load_env(env, out, err_arena, err);
}

/* true when both keys have the same id and the same bytes (compared in constant time). A
 * rotation copies the current key into the previous key's file before it replaces the current
 * one; in between, both name one key, which is no conflict. */
static bool same_key(const sluice_secret *a, const sluice_secret *b)
{
    return strcmp(a->key_id, b->key_id) == 0 && a->len == b->len &&
           sodium_memcmp(a->bytes, b->bytes, a->len) == 0;
}

sluice_status sluice_secret_ring_load(const char *file,
                                      const char *env,
                                      const char *prev_file,
                                      const char *prev_env,
                                      sluice_secret_ring **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    if (file == NULL && env == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "code_mode: token_secret_file or token_secret_env is required; %s",
                                HOW_TO_MAKE);
    sluice_secret *current = NULL;
    sluice_status st = load_one(file, env, "token_secret", &current, err_arena, err);
    if (st != SLUICE_OK)
        return st;
    sluice_secret_ring *ring = NULL;
    if (sluice_secret_ring_new(current, &ring) != SLUICE_OK)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory loading keys");
    if (prev_file != NULL || prev_env != NULL) {
        sluice_secret *previous = NULL;
        st = load_one(prev_file, prev_env, "token_previous_secret", &previous, err_arena, err);
        if (st == SLUICE_OK && same_key(current, previous))
            sluice_secret_free(previous); /* mid-rotation: the previous file got a copy already */
        else if (st == SLUICE_OK)
            st = sluice_secret_ring_add_previous(ring, previous, err_arena, err);
        if (st != SLUICE_OK) {
            sluice_secret_ring_free(ring);
            return st;
        }
    }
    *out = ring;
    return SLUICE_OK;
}

const sluice_secret *sluice_secret_ring_current(const sluice_secret_ring *ring)
{
    return ring->current;
}

const sluice_secret *sluice_secret_ring_previous(const sluice_secret_ring *ring, size_t index)
{
    return index < ring->n_previous ? ring->previous[index] : NULL;
}

static bool id_is(const sluice_secret *key, const char *id, size_t len)
{
    return strlen(key->key_id) == len && memcmp(key->key_id, id, len) == 0;
}

const sluice_secret *
sluice_secret_ring_find(const sluice_secret_ring *ring, const char *key_id, size_t id_len)
{
    if (id_is(ring->current, key_id, id_len))
        return ring->current;
    for (size_t i = 0; i < ring->n_previous; i++) {
        if (id_is(ring->previous[i], key_id, id_len))
            return ring->previous[i];
    }
    return NULL;
}

void sluice_secret_ring_free(sluice_secret_ring *ring)
{
    if (ring == NULL)
        return;
    sluice_secret_free(ring->current);
    for (size_t i = 0; i < ring->n_previous; i++)
        sluice_secret_free(ring->previous[i]);
    free(ring);
}
