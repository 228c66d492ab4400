/* SPDX-License-Identifier: BSD-3-Clause */
/* replay_main.c — runs a fuzz target's function over files (or every file of
 * directories) without libFuzzer: ctest replays the seed corpus and every crash input ever
 * found (regress/) on every build, so a fixed bug stays fixed. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: cannot open\n", path);
        return 1;
    }
    size_t cap = 4096, n = 0, r;
    uint8_t *buf = malloc(cap);
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb) break;
            buf = nb;
        }
    }
    fclose(f);
    if (!buf) return 1;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st)) continue; /* an empty regress/ may not exist yet */
        if (!S_ISDIR(st.st_mode)) {
            bad |= run_file(argv[i]);
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        for (struct dirent *e; d && (e = readdir(d));) {
            if (e->d_name[0] == '.') continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
            bad |= run_file(p);
            files++;
        }
        if (d) closedir(d);
    }
    printf("replayed %d inputs\n", files);
    return bad;
}
