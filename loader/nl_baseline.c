/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_baseline.c — the nl-baseline program: what is normal for an event, from the archive's
 * summaries, as event lines (to feed other tools) or a table (for people). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nl_hist.h"
#include "nl_line.h"
#include "nll.h"
#include "nll_sql.h"
#include "nlkit/nl.h"

static void usage(FILE *f)
{
    fputs("Usage: nl-baseline --db FILE --event NAME [OPTIONS]\n"
          "Print the baseline (count, mean, standard deviation, 5th/50th/95th percentile) of\n"
          "a summary event's values, from the archive nl-load keeps.\n"
          "\n"
          "  -d, --db FILE        the archive\n"
          "  -e, --event NAME     the activity (gridftp.disk.write), as nl-detect and nl-report\n"
          "                       take it, or its summary event (gridftp.disk.write.summary)\n"
          "  -H, --host H         only this host\n"
          "  -m, --metric LIST    rate, avgrate, busy, mean.dur, err.ratio or summary fields\n"
          "                       such as dur.sum, v.max, n, err.n (default: rate,busy,mean.dur)\n"
          "  -s, --since T        from T: a date, ISO-8601 time, Unix seconds, or an age such\n"
          "                       as 30d (default: everything)\n"
          "  -u, --until T        before T\n"
          "  -b, --by WHAT        one baseline per host, hour (of day, UTC) or dow (weekday)\n"
          "  -p, --percentiles S  instead: percentiles of the durations (S = dur) or values\n"
          "                       (v) of every pair in the selected summaries, their\n"
          "                       histograms merged (p50 p90 p99 p99.9, within 1.6 %)\n"
          "  -t, --table          a table instead of event lines\n"
          "      --with-anomalies keep the values inside the anomaly episodes nl-detect\n"
          "                       recorded in the archive (by default they are left out,\n"
          "                       and counted on standard error)\n"
          "  -h, --help           this text\n"
          "      --version        version\n"
          "Exit status: 0 (also when nothing matched: n=0, and said on standard error), 1\n"
          "database error, 2 usage.\n",
          f);
}

typedef struct opts {
    const char *db, *event, *host, *by, *pct;
    char *metrics;
    double since, until;
    int table, with_anomalies;
} opts_t;

static void fmt_num(char *out, size_t cap, double v)
{
    if (isnan(v))
        snprintf(out, cap, "-");
    else
        snprintf(out, cap, "%.6g", v);
}

static void print_one(const opts_t *o, const nll_base_q_t *q, const nll_base_t *b)
{
    char hour[16] = "", dow[16] = "";
    if (q->hour >= 0) snprintf(hour, sizeof hour, "%d", q->hour);
    if (q->dow >= 0) snprintf(dow, sizeof dow, "%d", q->dow);
    if (o->table) {
        char v[5][32];
        double vals[5] = {b->mean, b->sd, b->p5, b->p50, b->p95};
        for (int i = 0; i < 5; i++) fmt_num(v[i], sizeof v[i], vals[i]);
        printf("%-32s %-10s %4s %3s %-9s %8lld %12s %12s %12s %12s %12s\n", q->event,
               q->host ? q->host : "*", q->hour >= 0 ? hour : "*", q->dow >= 0 ? dow : "*",
               q->metric, (long long)b->n, v[0], v[1], v[2], v[3], v[4]);
        return;
    }
    char stack[1024];
    nl_buf_t buf;
    nl_buf_init(&buf, stack, sizeof stack);
    nl_enc_begin(&buf, nl_now_usec(), "nl.baseline", NL_LVL_INFO, NULL);
    nl_enc_str(&buf, "baseline.event", q->event, strlen(q->event));
    if (q->host) nl_enc_str(&buf, "host", q->host, strlen(q->host));
    if (q->hour >= 0) nl_enc_i64(&buf, "hour", q->hour);
    if (q->dow >= 0) nl_enc_i64(&buf, "dow", q->dow);
    nl_enc_str(&buf, "metric", q->metric, strlen(q->metric));
    nl_enc_i64(&buf, "n", b->n);
    if (b->n) {
        nl_enc_dbl(&buf, "mean", b->mean);
        if (b->n > 1) nl_enc_dbl(&buf, "sd", b->sd);
        nl_enc_dbl(&buf, "p5", b->p5);
        nl_enc_dbl(&buf, "p50", b->p50);
        nl_enc_dbl(&buf, "p95", b->p95);
        nl_enc_ts(&buf, "first", (int64_t)llround(b->first_ts * 1e6));
        nl_enc_ts(&buf, "last", (int64_t)llround(b->last_ts * 1e6));
    }
    if (b->skipped) nl_enc_i64(&buf, "left.out", b->skipped);
    if (nl_enc_end(&buf) == 0) fwrite(buf.p, 1, buf.len, stdout);
    nl_buf_free(&buf);
}

static const double pct_q[] = {0.5, 0.9, 0.99, 0.999};
static const char *const pct_name[] = {"p50", "p90", "p99", "p99.9"};

/* One group's merged percentiles of series `ser`, as a table row or an nl.percentiles
 * line. */
static void print_pct(const opts_t *o, const nll_base_q_t *q, const char *ser, const nll_pct_t *p)
{
    char hour[16] = "*", dow[16] = "*", v[4][32];
    if (q->hour >= 0) snprintf(hour, sizeof hour, "%d", q->hour);
    if (q->dow >= 0) snprintf(dow, sizeof dow, "%d", q->dow);
    double x[4];
    for (int i = 0; i < 4; i++) {
        x[i] = nl__hist_quantile(&p->h, pct_q[i], p->lo, p->hi);
        fmt_num(v[i], sizeof v[i], x[i]);
    }
    if (o->table) {
        printf("%-32s %-10s %4s %3s %-6s %10lld %10lld %12s %12s %12s %12s\n", q->event,
               q->host ? q->host : "*", hour, dow, ser, (long long)p->summaries, (long long)p->h.n,
               v[0], v[1], v[2], v[3]);
    } else {
        char stack[1024];
        nl_buf_t buf;
        nl_buf_init(&buf, stack, sizeof stack);
        nl_enc_begin(&buf, nl_now_usec(), "nl.percentiles", NL_LVL_INFO, NULL);
        nl_enc_str(&buf, "baseline.event", q->event, strlen(q->event));
        if (q->host) nl_enc_str(&buf, "host", q->host, strlen(q->host));
        if (q->hour >= 0) nl_enc_i64(&buf, "hour", q->hour);
        if (q->dow >= 0) nl_enc_i64(&buf, "dow", q->dow);
        nl_enc_str(&buf, "series", ser, strlen(ser));
        nl_enc_i64(&buf, "summaries", p->summaries);
        nl_enc_u64(&buf, "n", p->h.n);
        if (p->skipped) nl_enc_i64(&buf, "left.out", p->skipped);
        for (int i = 0; p->h.n && i < 4; i++) nl_enc_dbl(&buf, pct_name[i], x[i]);
        if (p->h.refused) nl_enc_u64(&buf, "refused", p->h.refused);
        if (nl_enc_end(&buf) == 0) fwrite(buf.p, 1, buf.len, stdout);
        nl_buf_free(&buf);
    }
    if (p->unreadable)
        fprintf(stderr, "nl-baseline: %s: %lld damaged histogram(s) left out\n", q->event,
                (long long)p->unreadable);
}

/* How many summaries q selects whether or not they carry histograms: what --percentiles says
 * when none of them does, instead of printing a header alone. */
static int64_t count_summaries(nll_db_t *db, const nll_base_q_t *q, nll_err_t *err)
{
    nll_base_q_t c = *q;
    nll_base_t b;
    c.metric = "n";
    return nll_base_get(db, &c, &b, err) ? 0 : b.n;
}

static int run(nll_db_t *db, const opts_t *o, nll_err_t *err)
{
    int64_t matched = 0, no_hist = 0; /* summaries found; of them, with no histogram */
    int64_t skipped = 0;              /* values (summaries) inside anomaly episodes */
    char **hosts = NULL;
    int nhosts = 1, groups = 1, rc = 0;
    nll_eps_t *eps = NULL;
    if (!o->with_anomalies && (rc = nll_eps_read(db, &eps, err))) return rc;
    if (o->by && !strcmp(o->by, "host")) {
        if ((rc = nll_base_hosts(db, o->event, o->since, o->until, &hosts, &nhosts, err))) {
            nll_eps_free(eps);
            return rc;
        }
    } else if (o->by) {
        groups = !strcmp(o->by, "hour") ? 24 : 7;
    }
    if (o->table && o->pct)
        printf("%-32s %-10s %4s %3s %-6s %10s %10s %12s %12s %12s %12s\n", "event", "host", "hour",
               "dow", "series", "summaries", "n", "p50", "p90", "p99", "p99.9");
    else if (o->table)
        printf("%-32s %-10s %4s %3s %-9s %8s %12s %12s %12s %12s %12s\n", "event", "host", "hour",
               "dow", "metric", "n", "mean", "sd", "p5", "p50", "p95");
    char *list = strdup(o->pct ? o->pct : o->metrics), *save = NULL;
    for (char *m = strtok_r(list, ",", &save); m && !rc; m = strtok_r(NULL, ",", &save))
        for (int h = 0; h < nhosts && !rc; h++)
            for (int g = 0; g < groups && !rc; g++) {
                nll_base_q_t q;
                nll_base_t b;
                nll_base_q_init(&q, o->event, m);
                q.host = hosts ? hosts[h] : o->host;
                q.since = o->since;
                q.until = o->until;
                q.skip = eps;
                if (o->by && !strcmp(o->by, "hour")) q.hour = g;
                if (o->by && !strcmp(o->by, "dow")) q.dow = g;
                if (o->pct) {
                    nll_pct_t p;
                    if (!(rc = nll_base_pct(db, &q, m, &p, err)) && (p.h.n || !o->by))
                        print_pct(o, &q, m, &p);
                    if (!rc) {
                        int64_t all = p.h.n ? p.summaries : count_summaries(db, &q, err);
                        matched += all;
                        skipped += p.skipped;
                        no_hist += p.h.n ? 0 : all;
                        nl__hist_free(&p.h);
                    }
                } else if (!(rc = nll_base_get(db, &q, &b, err))) {
                    if (b.n || !o->by) print_one(o, &q, &b);
                    matched += b.n;
                    skipped += b.skipped;
                }
            }
    if (!rc && !matched)
        fprintf(stderr, "nl-baseline: no summaries of %s%s%s in the archive%s\n", o->event,
                o->host ? " from " : "", o->host ? o->host : "",
                isfinite(o->since) || isfinite(o->until) ? " in that period" : "");
    else if (!rc && no_hist)
        fprintf(stderr,
                "nl-baseline: %lld of the %s summaries carry no %s histogram (%s.h): their "
                "pairs have no percentiles here (-m gives their other figures)\n",
                (long long)no_hist, o->event, o->pct, o->pct);
    if (!rc && skipped)
        fprintf(stderr,
                "nl-baseline: %s: %lld %s inside anomaly episodes left out (%d episode(s) "
                "of nl-detect in the archive; --with-anomalies keeps them)\n",
                o->event, (long long)skipped, o->pct ? "summaries" : "values", nll_eps_count(eps));
    nll_eps_free(eps);
    free(list);
    for (int h = 0; hosts && h < nhosts; h++) free(hosts[h]);
    free(hosts);
    return rc;
}

int main(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"db", required_argument, NULL, 'd'},    {"event", required_argument, NULL, 'e'},
        {"host", required_argument, NULL, 'H'},  {"metric", required_argument, NULL, 'm'},
        {"since", required_argument, NULL, 's'}, {"until", required_argument, NULL, 'u'},
        {"by", required_argument, NULL, 'b'},    {"percentiles", required_argument, NULL, 'p'},
        {"table", no_argument, NULL, 't'},       {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},     {"with-anomalies", no_argument, NULL, 'A'},
        {0, 0, 0, 0},
    };
    opts_t o = {.metrics = "rate,busy,mean.dur", .since = -INFINITY, .until = INFINITY};
    double now = (double)time(NULL);
    int c;
    while ((c = getopt_long(argc, argv, "d:e:H:m:s:u:b:p:th", lopts, NULL)) != -1) {
        switch (c) {
        case 'd': o.db = optarg; break;
        case 'e': o.event = optarg; break;
        case 'H': o.host = optarg; break;
        case 'm': o.metrics = optarg; break;
        case 's':
        case 'u':
            if (nll_parse_when(optarg, now, c == 's' ? &o.since : &o.until)) {
                fprintf(stderr, "nl-baseline: --%s: not a time or age: '%s'\n",
                        c == 's' ? "since" : "until", optarg);
                return 2;
            }
            break;
        case 'b':
            if (strcmp(optarg, "host") && strcmp(optarg, "hour") && strcmp(optarg, "dow")) {
                fprintf(stderr, "nl-baseline: --by host, hour or dow, not '%s'\n", optarg);
                return 2;
            }
            o.by = optarg;
            break;
        case 'p': o.pct = optarg; break;
        case 't': o.table = 1; break;
        case 'A': o.with_anomalies = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': puts("nl-baseline (nlkit) " NLKIT_VERSION); return 0;
        default: fputs("Try 'nl-baseline --help' for the options.\n", stderr); return 2;
        }
    }
    if (!o.db || !o.event || optind < argc) {
        fprintf(stderr, "nl-baseline: %s\n",
                optind < argc ? "unexpected argument" : "--db and --event are required");
        fputs("Try 'nl-baseline --help' for the options.\n", stderr);
        return 2;
    }
    /* the activity's name, as nl-detect and nl-report take it, means its summaries */
    char event[1100];
    size_t alen;
    if (nl__event_kind(o.event, strlen(o.event), &alen) != NL_KIND_SUMMARY) {
        if (snprintf(event, sizeof event, "%s.summary", o.event) >= (int)sizeof event) {
            fprintf(stderr, "nl-baseline: --event: name too long\n");
            return 2;
        }
        o.event = event;
    }
    char *list = strdup(o.pct ? o.pct : o.metrics), *save = NULL;
    for (char *m = strtok_r(list, ",", &save); m; m = strtok_r(NULL, ",", &save))
        if (o.pct && strcmp(m, "dur") && strcmp(m, "v")) {
            fprintf(stderr, "nl-baseline: --percentiles: dur or v, not '%s'\n", m);
            free(list);
            return 2;
        } else if (!o.pct && !nll_base_column(m)) {
            fprintf(stderr,
                    "nl-baseline: --metric: unknown '%s' (rate, avgrate, busy, "
                    "mean.dur, err.ratio, or a summary field such as dur.sum, v.max, n)\n",
                    m);
            free(list);
            return 2;
        }
    free(list);
    nll_db_t *db;
    nll_err_t err;
    if (nll_db_open(o.db, NLL_OPEN_READ, 0, &db, &err) || run(db, &o, &err)) {
        fprintf(stderr, "nl-baseline: %s\n", err.msg);
        nll_db_close(db);
        return 1;
    }
    nll_db_close(db);
    return 0;
}
