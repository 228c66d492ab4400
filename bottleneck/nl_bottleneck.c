/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_bottleneck.c — the nl-bottleneck program: reads the event lines of transfers (both
 * endpoints' logs, summarized or in full), gathers what each transfer spent in each stage
 * by guid (and, with --interval, by interval), and writes one verdict per transfer or
 * interval: the limiting stage by the rule of nlb.h. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_line.h"
#include "nl_map.h"
#include "nl_num.h"
#include "nl_reader.h"
#include "nlb.h"
#include "nlkit/nl.h"

static void usage(FILE *f)
{
    fputs("Usage: nl-bottleneck [OPTIONS] [FILE...]\n"
          "Name the stage that limits each transfer — disk.read (the sender's disk), network,\n"
          "disk.write (the receiver's disk) — from both endpoints' event lines (FILEs, or\n"
          "standard input): summaries (X.summary) or start/end pairs, joined by guid. Stages\n"
          "are the activities disk.read, network.write, network.read and disk.write, or names\n"
          "ending in them (gridftp.disk.write).\n"
          "\n"
          "  -m, --margin M     how much more time a stage must take than the other stage of\n"
          "                     its end to count as the slower one (0.2: 20 %)\n"
          "  -i, --interval S   one verdict per S-second interval of each transfer (by the\n"
          "                     summaries' or the ends' time) instead of one per transfer\n"
          "  -p, --min-pairs N  a stage counts only with at least N pairs in the transfer or\n"
          "                     interval (3); fewer is \"missing data\"\n"
          "  -t, --table        a table instead of event lines\n"
          "      --lenient      accept damaged nlkit lines where possible\n"
          "      --netlogger    read lines as NetLogger's own reader does\n"
          "  -h, --help         this text\n"
          "      --version      version\n"
          "Exit status: 0, 1 an input could not be read, 2 usage error.\n",
          f);
}

/* One transfer, or one interval of one. */
typedef struct group {
    char guid[NL_GUID_LEN + 40];
    int64_t interval; /* end of the interval (whole multiples of --interval), or 0 */
    nlb_xfer_t x;
    int64_t last_us; /* the latest time read for it */
    struct group *next;
} group_t;

typedef struct run {
    double margin, interval;
    uint64_t min_pairs;
    int table;
    unsigned parse;
    nl__map_t groups, starts; /* key: guid + interval; guid + stage + stream.id -> start */
    group_t *first, **tail;
    uint64_t lines, bad, no_guid, orphan_ends, oom;
} run_t;

static int64_t interval_of(const run_t *r, int64_t us)
{
    if (r->interval <= 0) return 0;
    double s = (double)us / 1e6;
    return (int64_t)llround(ceil(s / r->interval - 1e-9) * r->interval * 1e6);
}

static group_t *group_for(run_t *r, const nl_field_t *guid, int64_t us)
{
    char key[sizeof((group_t *)0)->guid + 24];
    if (guid->value_len >= sizeof((group_t *)0)->guid) return NULL;
    int64_t iv = interval_of(r, us);
    size_t kl = guid->value_len;
    memcpy(key, guid->value, kl);
    memcpy(key + kl, &iv, sizeof iv);
    kl += sizeof iv;
    group_t *g = nl__map_get(&r->groups, key, kl);
    if (g) return g;
    if (!(g = calloc(1, sizeof *g)) || !nl__map_put(&r->groups, key, kl, g)) {
        free(g);
        r->oom++;
        return NULL;
    }
    memcpy(g->guid, guid->value, guid->value_len);
    g->interval = iv;
    *r->tail = g;
    r->tail = &g->next;
    return g;
}

static double num(const nl_rec_t *rec, const char *name, double dflt)
{
    double v;
    const nl_field_t *f = nl_rec_get(rec, name);
    return f && nl_field_double(f, &v) == 0 ? v : dflt;
}

/* The key of a pending start: guid, stage, and the stream.id when there is one. */
static size_t start_key(char *key, size_t cap, const nl_rec_t *rec, int stage)
{
    const nl_field_t *g = &rec->f[rec->i_guid], *sid = nl_rec_get(rec, "stream.id");
    size_t sl = sid ? sid->value_len : 0;
    if (g->value_len + sl + 2 > cap) return 0;
    memcpy(key, g->value, g->value_len);
    key[g->value_len] = (char)('0' + stage);
    if (sid) memcpy(key + g->value_len + 1, sid->value, sl);
    return g->value_len + 1 + sl;
}

static void one_line(run_t *r, const char *line, size_t len, long lineno, nl_rec_t *rec)
{
    nl_perr_t e;
    int rc = nl_parse(rec, line, len, lineno, r->parse, &e);
    if (rc <= 0) {
        r->bad += rc < 0;
        return;
    }
    r->lines++;
    const nl_field_t *ev = &rec->f[rec->i_event];
    size_t alen;
    int kind = nl__event_kind(ev->value, ev->value_len, &alen);
    int stage = kind == NL_KIND_OTHER ? -1 : nlb_stage_of(ev->value, alen);
    if (stage < 0) return;
    if (rec->i_guid < 0) {
        r->no_guid++;
        return;
    }
    if (kind == NL_KIND_SUMMARY) {
        group_t *g = group_for(r, &rec->f[rec->i_guid], rec->ts_usec);
        if (!g) return;
        double n = num(rec, "n", 0);
        nlb_add(&g->x, stage, num(rec, "dur.sum", NAN), num(rec, "v.sum", 0),
                n > 0 ? (uint64_t)n : 0);
        if (rec->ts_usec > g->last_us) g->last_us = rec->ts_usec;
        return;
    }
    char key[256];
    size_t kl = start_key(key, sizeof key, rec, stage);
    if (!kl) return;
    if (kind == NL_KIND_START) {
        int64_t *t = nl__map_get(&r->starts, key, kl);
        if (!t && (!(t = malloc(sizeof *t)) || !nl__map_put(&r->starts, key, kl, t))) {
            free(t);
            r->oom++;
            return;
        }
        *t = rec->ts_usec; /* a start restarted before its end: the later one counts */
        return;
    }
    int64_t *t = nl__map_del(&r->starts, key, kl);
    if (!t) {
        r->orphan_ends++;
        return;
    }
    group_t *g = group_for(r, &rec->f[rec->i_guid], rec->ts_usec);
    if (g) {
        nlb_add(&g->x, stage, (double)(rec->ts_usec - *t) / 1e6, num(rec, "value", 0), 1);
        if (rec->ts_usec > g->last_us) g->last_us = rec->ts_usec;
    }
    free(t);
}

typedef struct reading {
    run_t *r;
    nl_rec_t rec;
} reading_t;

static int read_line(void *ctx, const char *line, size_t len, const char *name, long lineno)
{
    (void)name;
    reading_t *x = ctx;
    one_line(x->r, line, len, lineno, &x->rec);
    return 0;
}

/* A line too long to read is a bad line, counted. */
static void read_toolong(void *ctx, const char *name, long lineno)
{
    (void)name;
    (void)lineno;
    ((reading_t *)ctx)->r->bad++;
}

/* 0, or nonzero if the input could not be read (said on standard error). */
static int read_input(run_t *r, const char *path)
{
    reading_t x = {.r = r};
    nl_rec_init(&x.rec);
    nl_lines_t how = {.prog = "nl-bottleneck",
                      .timeout_ms = -1,
                      .on_line = read_line,
                      .on_toolong = read_toolong,
                      .ctx = &x};
    int rc = nl__reader_each(path, &how);
    nl_rec_free(&x.rec);
    return rc;
}

static void missing_list(char *out, size_t cap, unsigned mask)
{
    size_t o = 0;
    out[0] = '\0';
    for (int k = 0; k < NLB_STAGES; k++)
        if (mask & 1u << k)
            o += (size_t)snprintf(out + o, cap - o, "%s%s", o ? "," : "", nlb_stage_name[k]);
}

static void print_group(const run_t *r, const group_t *g)
{
    nlb_verdict_t v;
    nlb_judge(&g->x, r->margin, r->min_pairs, &v);
    char missing[80];
    missing_list(missing, sizeof missing, v.missing);
    if (r->table) {
        char iv[32] = "-", margin[16] = "-";
        if (g->interval) nl_ts_format(g->interval, iv);
        if (isfinite(v.margin)) snprintf(margin, sizeof margin, "%.2f", v.margin);
        printf("%-36s %-27s %-12s %8s", g->guid, iv, v.name, margin);
        for (int k = 0; k < NLB_STAGES; k++) printf(" %10.4f", g->x.busy[k]);
        printf(" %s\n", missing);
        return;
    }
    char stack[1024];
    nl_buf_t b;
    nl_buf_init(&b, stack, sizeof stack);
    nl_enc_begin(&b, g->last_us, "nl.bottleneck", NL_LVL_INFO, g->guid);
    if (g->interval) nl_enc_ts(&b, "interval.end", g->interval);
    nl_enc_str(&b, "verdict", v.name, strlen(v.name));
    if (isfinite(v.margin))
        nl_enc_dbl(&b, "margin", v.margin);
    else if (isinf(v.margin))
        nl_enc_str(&b, "margin", "inf", 3);
    if (v.missing) nl_enc_str(&b, "missing", missing, strlen(missing));
    for (int k = 0; k < NLB_STAGES; k++) {
        if (!g->x.seen[k]) continue;
        char name[40];
        snprintf(name, sizeof name, "%s.s", nlb_stage_name[k]);
        nl_enc_dbl(&b, name, g->x.busy[k]);
    }
    nl_enc_dbl(&b, "rule.margin", r->margin);
    if (nl_enc_end(&b) == 0) fwrite(b.p, 1, b.len, stdout);
    nl_buf_free(&b);
}

enum { O_LENIENT = 256, O_NETLOGGER, O_VERSION };

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"margin", required_argument, NULL, 'm'},
        {"interval", required_argument, NULL, 'i'},
        {"table", no_argument, NULL, 't'},
        {"lenient", no_argument, NULL, O_LENIENT},
        {"netlogger", no_argument, NULL, O_NETLOGGER},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, O_VERSION},
        {0, 0, 0, 0},
    };
    run_t r = {.margin = 0.2, .min_pairs = 3};
    r.tail = &r.first;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "m:i:p:th", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
        case 'i': {
            double v = strtod(optarg, &end);
            if (*end || !(v >= 0) || !isfinite(v) || (c == 'i' && v > 0 && v < 0.001)) {
                fprintf(stderr, "nl-bottleneck: --%s wants a number >= 0, not '%s'\n",
                        c == 'm' ? "margin" : "interval", optarg);
                return 2;
            }
            *(c == 'm' ? &r.margin : &r.interval) = v;
            break;
        }
        case 'p':
            r.min_pairs = strtoull(optarg, &end, 10);
            if (*end || !*optarg || *optarg == '-') {
                fprintf(stderr, "nl-bottleneck: --min-pairs wants a number >= 0, not '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 't': r.table = 1; break;
        case O_LENIENT: r.parse = NL_PARSE_LENIENT; break;
        case O_NETLOGGER: r.parse = NL_PARSE_NETLOGGER; break;
        case 'h': usage(stdout); return 0;
        case O_VERSION: puts("nl-bottleneck (nlkit) " NLKIT_VERSION); return 0;
        default: fputs("Try 'nl-bottleneck --help' for the options.\n", stderr); return 2;
        }
    }
    nl__map_init(&r.groups, 0x6e6c62);
    nl__map_init(&r.starts, 0x6e6c73);
    int failed = 0;
    if (optind == argc) failed |= read_input(&r, "-") != 0;
    for (int i = optind; i < argc; i++) failed |= read_input(&r, argv[i]) != 0;
    if (r.table) {
        printf("%-36s %-27s %-12s %8s", "guid", "interval end", "verdict", "margin");
        for (int k = 0; k < NLB_STAGES; k++) printf(" %10s", nlb_stage_name[k]);
        printf(" missing\n");
    }
    for (group_t *g = r.first, *next; g; g = next) {
        next = g->next;
        print_group(&r, g);
        free(g);
    }
    if (r.bad || r.no_guid || r.orphan_ends || r.oom)
        fprintf(stderr,
                "nl-bottleneck: %llu bad line(s), %llu stage event(s) without a guid, %llu "
                "end(s) without a start, %llu left out for want of memory\n",
                (unsigned long long)r.bad, (unsigned long long)r.no_guid,
                (unsigned long long)r.orphan_ends, (unsigned long long)r.oom);
    uint64_t open = r.starts.n;
    for (size_t b = 0; b < r.starts.nb; b++)
        for (nl__ment_t *e = r.starts.b[b]; e; e = e->next) free(e->val);
    if (open)
        fprintf(stderr, "nl-bottleneck: %llu stage(s) started and never ended\n",
                (unsigned long long)open);
    nl__map_free(&r.groups);
    nl__map_free(&r.starts);
    return failed ? 1 : 0;
}
