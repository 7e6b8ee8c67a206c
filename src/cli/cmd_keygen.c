/*
 * cmd_keygen.c — `sluice keygen [-o FILE] [--key-id ID] [--force]`: make a token signing key.
 *
 * Owns: option parsing and writing the key line with mode 0600 (never over an existing file
 * unless --force). Does not own: the key format or randomness (token/secret.h). The key line
 * goes to stdout only when no file is named, for an environment variable; it is never logged.
 */
#include "cli/cli.h"
#include "core/limits.h"
#include "token/secret.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sluice_cmd_keygen(int argc, char **argv);

static void usage(FILE *out)
{
    fprintf(out,
            "usage: sluice keygen [-o FILE] [--key-id ID] [--force]\n"
            "  -o FILE      write the key to FILE (mode 0600); without it the key line is\n"
            "               printed, e.g. for SLUICE_TOKEN_KEY=\"$(sluice keygen)\"\n"
            "  --key-id ID  the key id (A-Z a-z 0-9 . _ -, up to %u); default k<date>-<rand>\n"
            "  --force      replace FILE if it exists\n",
            SLUICE_SECRET_KEY_ID_MAX);
}

/* Writes line to a new file with mode 0600; with force, replaces an existing one through a
 * temporary file so the old key is never half-overwritten. Returns an exit status, with the
 * reason printed. */
int sluice_cli_write_key_file(const char *path, const char *line, bool force)
{
    char tmp[4096];
    const char *target = path;
    if (force) {
        if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) {
            fprintf(stderr, "sluice keygen: %s: path too long\n", path);
            return SLUICE_EXIT_USAGE;
        }
        unlink(tmp);
        target = tmp;
    }
    int fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "sluice keygen: %s: %s%s\n", path, strerror(errno),
                errno == EEXIST ? " (use --force to replace it)" : "");
        return errno == EEXIST ? SLUICE_EXIT_FAIL : SLUICE_EXIT_RUNTIME;
    }
    size_t len = strlen(line);
    bool ok = fchmod(fd, 0600) == 0 && write(fd, line, len) == (ssize_t)len && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (ok && force)
        ok = rename(tmp, path) == 0;
    if (!ok) {
        fprintf(stderr, "sluice keygen: %s: cannot write: %s\n", path, strerror(errno));
        unlink(target);
        return SLUICE_EXIT_RUNTIME;
    }
    return SLUICE_EXIT_OK;
}

int sluice_cmd_keygen(int argc, char **argv)
{
    const char *out_path = NULL, *key_id = NULL;
    bool force = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return SLUICE_EXIT_OK;
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out_path = argv[++i];
        } else if (strcmp(argv[i], "--key-id") == 0 && i + 1 < argc) {
            key_id = argv[++i];
        } else if (strcmp(argv[i], "--force") == 0) {
            force = true;
        } else {
            fprintf(stderr, "sluice keygen: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return SLUICE_EXIT_USAGE;
        }
    }
    char line[SLUICE_LIMIT_SECRET_LINE_BYTES];
    sluice_status st = sluice_secret_generate(key_id, line, sizeof line);
    if (st != SLUICE_OK) {
        fprintf(stderr, "sluice keygen: %s\n",
                st == SLUICE_E_INVALID
                    ? "the key id must be 1 to 64 characters of A-Z a-z 0-9 . _ -"
                    : "cannot generate a key (libsodium unavailable)");
        return st == SLUICE_E_INVALID ? SLUICE_EXIT_USAGE : SLUICE_EXIT_RUNTIME;
    }
    /* The id is the second field of the line: "sluice-key-v1 <id> <secret>". */
    const char *id = strchr(line, ' ') + 1;
    int id_len = (int)(strchr(id, ' ') - id);
    int rc = SLUICE_EXIT_OK;
    if (out_path == NULL) {
        fputs(line, stdout);
    } else {
        rc = sluice_cli_write_key_file(out_path, line, force);
        if (rc == SLUICE_EXIT_OK)
            printf("wrote key %.*s to %s (mode 0600)\n", id_len, id, out_path);
    }
    sodium_memzero(line, sizeof line);
    return rc;
}
