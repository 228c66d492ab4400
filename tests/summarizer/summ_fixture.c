/* SPDX-License-Identifier: BSD-3-Clause */
/* summ_fixture.c — the summarizer tests' shared log on an injected clock (summ_fixture.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nls.h"
#include "summ_fixture.h"

_Atomic int64_t fake_now;

int64_t fake_clock(void *arg)
{
    (void)arg;
    return fake_now;
}

void open_log(fixture_t *f)
{
    unsetenv("NL_SUMMARY");
    unsetenv("NL_SUMMARY_FILE");
    unsetenv("NL_DEST");
    f->dir = t_tmpdir();
    snprintf(f->path, sizeof f->path, "%s", t_path(f->dir, "log"));
    char url[300];
    snprintf(url, sizeof url, "file://%s?buffer=0", f->path);
    f->log = nl_open(url);
    assert_non_null(f->log);
    fake_now = MS(0);
    assert_int_equal(nl__set_clock(f->log, fake_clock, NULL), 0);
}

void at(int64_t ms) { fake_now = MS(ms); }

size_t find(t_readback_t *rb, const char *event, size_t *idx, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < rb->n; i++) {
        const char *ev = t_field(t_rb_rec(rb, i), "event");
        if (ev && !strcmp(ev, event) && n < max) idx[n++] = i;
    }
    return n;
}

void tick_and_load(fixture_t *f, int64_t ms, t_readback_t *rb)
{
    at(ms);
    nl__summ_tick(f->log);
    t_rb_load(rb, f->path);
}

void close_fixture(fixture_t *f)
{
    if (f->log) nl_close(f->log);
    t_rmtree(f->dir);
}

void near(double a, double b, int line)
{
    if (!(fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b))))
        fail_msg("line %d: %.17g != %.17g", line, a, b);
}
