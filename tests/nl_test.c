/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_test.c — helpers for the tests (see nl_test.h). */

#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nl_clock.h"
#include "nl_test.h"

#include "nlkit/nl.h"

const char *t_tmpdir(void)
{
    static char dirs[8][64];
    static int next;
    char *d = dirs[next++ % 8];
    snprintf(d, 64, "/tmp/nlkit-test-XXXXXX");
    if (!mkdtemp(d)) fail_msg("mkdtemp failed");
    return d;
}

const char *t_path(const char *dir, const char *name)
{
    static char bufs[8][512];
    static int next;
    char *p = bufs[next++ % 8];
    snprintf(p, 512, "%s/%s", dir, name);
    return p;
}

char *t_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap + 1);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(b, cap + 1);
            if (!nb) free(b);
            b = nb;
        }
    }
    fclose(f);
    if (!b) return NULL;
    b[n] = '\0';
    if (len) *len = n;
    return b;
}

char *t_stderr_of(void (*f)(void *), void *arg)
{
    char path[] = "/tmp/nlkit-stderr-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    f(arg);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(fd);
    char *text = t_slurp(path, NULL);
    unlink(path);
    assert_non_null(text);
    return text;
}

size_t t_lines(char *text, char ***lines)
{
    size_t n = 0, cap = 1024;
    char **v = malloc(cap * sizeof *v);
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        if (n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
        v[n++] = p;
        if (!nl) break;
        *nl = '\0';
        p = nl + 1;
    }
    *lines = v;
    return n;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

void t_rmtree(const char *dir) { nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS); }

void t_sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

double t_now_s(void) { return nl__mono_s(); }

int64_t t_mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

uint64_t t_rand(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double t_unit(uint64_t *s) { return ((double)(t_rand(s) >> 11) + 0.5) / 9007199254740992.0; }

void t_rb_load(t_readback_t *rb, const char *path)
{
    rb->text = t_slurp(path, NULL);
    assert_non_null(rb->text);
    rb->n = t_lines(rb->text, &rb->lines);
    nl_rec_init(&rb->rec);
    for (size_t i = 0; i < rb->n; i++) {
        nl_perr_t err;
        if (nl_parse(&rb->rec, rb->lines[i], strlen(rb->lines[i]), (long)i + 1, 0, &err) != 1)
            fail_msg("%s:%ld:%d: %s\n%s", path, err.line, err.col, err.msg, rb->lines[i]);
    }
}

nl_rec_t *t_rb_rec(t_readback_t *rb, size_t i)
{
    assert_true(i < rb->n);
    assert_int_equal(nl_parse(&rb->rec, rb->lines[i], strlen(rb->lines[i]), 1, 0, NULL), 1);
    return &rb->rec;
}

void t_rb_free(t_readback_t *rb)
{
    free(rb->lines);
    free(rb->text);
    nl_rec_free(&rb->rec);
}

const char *t_field(nl_rec_t *r, const char *name)
{
    static char buf[8][512];
    static int k;
    const nl_field_t *f = nl_rec_get(r, name);
    if (!f) return NULL;
    char *b = buf[k++ % 8];
    snprintf(b, sizeof buf[0], "%.*s", (int)f->value_len, f->value);
    return b;
}

double t_num(nl_rec_t *r, const char *name)
{
    const nl_field_t *f = nl_rec_get(r, name);
    if (!f) fail_msg("field %s missing", name);
    double v;
    if (nl_field_double(f, &v) != 0) fail_msg("field %s is not a number", name);
    return v;
}

pid_t t_spawn(const char *prog, const t_child_t *c, const char *const *args)
{
    int p[2] = {-1, -1};
    if (c->stdin_pipe) assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int i = c->stdin_pipe ? p[0] : open(c->in ? c->in : "/dev/null", O_RDONLY);
        int o = open(c->out ? c->out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(c->err ? c->err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (i < 0 || o < 0 || e < 0) _exit(99);
        dup2(i, 0);
        dup2(o, 1);
        dup2(e, 2);
        if (c->stdin_pipe) close(p[1]);
        if (c->fsize_limit) {
            struct rlimit rl = {(rlim_t)c->fsize_limit, (rlim_t)c->fsize_limit};
            signal(SIGXFSZ, SIG_IGN); /* writes past the limit fail with EFBIG instead */
            if (setrlimit(RLIMIT_FSIZE, &rl)) _exit(97);
        }
        if (c->as_nobody && (setgid(65534) || setuid(65534))) _exit(96);
        char *argv[32];
        int n = 0;
        argv[n++] = (char *)prog;
        for (; args[n - 1] && n < 31; n++) argv[n] = (char *)args[n - 1];
        argv[n] = NULL;
        execv(prog, argv);
        _exit(98);
    }
    if (c->stdin_pipe) {
        close(p[0]);
        *c->pipe_fd = p[1];
    }
    return pid;
}

int t_wait(pid_t pid)
{
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

int t_run(const char *prog, const t_child_t *c, const char *const *args)
{
    return t_wait(t_spawn(prog, c, args));
}

static int own_tmpfs(const char *dir, unsigned long flags, long size)
{
    if (geteuid() != 0 || unshare(CLONE_NEWNS) != 0) return -1;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return -1;
    char opt[64];
    snprintf(opt, sizeof opt, "size=%ld", size);
    return mount("tmpfs", dir, "tmpfs", flags, opt) == 0 ? 0 : -1;
}

int t_readonly_mount(const char *dir) { return own_tmpfs(dir, MS_RDONLY, 4L << 20); }

int t_small_mount(const char *dir, long size) { return own_tmpfs(dir, 0, size); }

void t_open_into(void *arg)
{
    t_opened_t *o = arg;
    o->log = nl_open(o->url);
}
