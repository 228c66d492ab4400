/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_oneread.c — the central collector's door (syslog-ng.conf.d/nlkit-central.conf,
 * written in C in tests/pipeline/sng_door.h) against nlkit's parser, on any bytes: a line
 * the door admits as NAME must be refused by every reading of nlkit's parser (strict,
 * lenient, NetLogger's) or read as NAME, and the door's report rule must be nlkit's.
 * The input is tried as it is, and behind "ts=... event=" so that most inputs reach the
 * door's far side (its NAME, then whatever follows). test_oneread holds sng_door.h to the
 * real syslog-ng door. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sng_door.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void hold(nl_rec_t *rec, const char *line, size_t len)
{
    char why[512];
    if (sng_door_check(rec, line, len, why, sizeof why)) {
        fprintf(stderr, "fuzz_oneread: %s\n", why);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char head[] = "ts=2026-11-22T12:00:00Z event=";
    /* exact-size copies, so ASan sees any read past the end */
    char *line = malloc(size ? size : 1), *behind = malloc(sizeof head - 1 + size);
    static nl_rec_t rec;
    static int init;
    if (!init) {
        nl_rec_init(&rec);
        init = 1;
    }
    if (line && behind) {
        memcpy(line, data, size);
        hold(&rec, line, size);
        memcpy(behind, head, sizeof head - 1);
        memcpy(behind + sizeof head - 1, data, size);
        hold(&rec, behind, sizeof head - 1 + size);
    }
    free(line);
    free(behind);
    return 0;
}
