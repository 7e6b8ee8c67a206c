/*
 * replay_main.c — runs a libFuzzer target over every file of a corpus folder, without libFuzzer.
 *
 * Lets ctest replay each crash ever found (and the seeds) in every build, sanitized or not.
 * Folders after the first are seed folders read in place (tests/fuzz/corpus/<target>.seed_dirs
 * names them: test data a unit test already keeps, so no input is stored twice). A missing or
 * empty folder is a failure: a target with no corpus checks nothing.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    size_t cap = 1 << 16, len = 0;
    uint8_t *data = malloc(cap);
    size_t n;
    while (data != NULL && (n = fread(data + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *bigger = realloc(data, cap * 2);
            if (bigger == NULL) {
                free(data);
                data = NULL;
                break;
            }
            data = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (data == NULL)
        return -1;
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

/* Replays every input of one folder and of its subfolders, as libFuzzer reads a corpus folder;
 * -1 when one cannot be opened or read, else the count. */
static int replay_dir(const char *prog, const char *dir_path)
{
    DIR *dir = opendir(dir_path);
    if (dir == NULL) {
        fprintf(stderr, "%s: cannot open corpus folder %s\n", prog, dir_path);
        return -1;
    }
    int count = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir_path, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            int inner = replay_dir(prog, path);
            if (inner < 0) {
                closedir(dir);
                return -1;
            }
            count += inner;
            continue;
        }
        if (replay_file(path) != 0) {
            fprintf(stderr, "%s: cannot read %s\n", prog, path);
            closedir(dir);
            return -1;
        }
        count++;
    }
    closedir(dir);
    printf("replayed %d inputs from %s\n", count, dir_path);
    return count;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR [SEED_DIR...]\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++)
        if (replay_dir(argv[0], argv[i]) <= 0)
            return 1;
    return 0;
}
