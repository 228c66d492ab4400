/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_report.c — the nl-report program: one self-contained HTML page from the archive, for
 * people: what ran where, how far from normal, and what nl-detect and nl-peers found, drawn.
 * The page is written to a temporary file beside the output and renamed over it, so a
 * reader never sees half a report. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nlkit/nl.h"
#include "nlr.h"

static void usage(FILE *f)
{
    fputs("Usage: nl-report --db ARCHIVE [OPTIONS]\n"
          "Write one self-contained HTML page (inline SVG and CSS, no script, works offline)\n"
          "from the archive nl-load keeps: activities x hosts with their figures and distance\n"
          "from baseline, each series over time with its baseline band, nl-detect's anomaly\n"
          "episodes and alerts shaded, missing ends and nl-peers' verdicts marked, and the\n"
          "lifeline of a GUID.\n"
          "\n"
          "  -d, --db FILE          the archive: a SQLite file, or a postgresql:// URI\n"
          "  -o, --output FILE      the page (default report.html; '-': standard output)\n"
          "  -s, --since T          from T: a date, ISO-8601 time, Unix seconds, or an age such\n"
          "                         as 2h (default: the first event)\n"
          "  -u, --until T          before T (default: after the last event)\n"
          "  -H, --host GLOB        only hosts matching GLOB\n"
          "  -e, --event GLOB       only activities (or summary events) matching GLOB\n"
          "  -g, --guid G           draw G's lifeline (up to 8; default: the GUIDs of missing\n"
          "                         ends, else the slowest start/end pair's)\n"
          "      --max-charts N     draw at most N charts, the most unusual first (60)\n"
          "  -t, --title TEXT       the page's title\n"
          "  -h, --help             this text\n"
          "      --version          version\n"
          "Exit status: 0, 1 archive or output error, 2 usage.\n",
          f);
}

/* Write the page to a temporary file in the output's folder, then rename it into place. */
static int write_out(const nlr_report_t *r, const char *out)
{
    if (!strcmp(out, "-")) return nlr_page_write(stdout, r) || fflush(stdout) ? -1 : 0;
    char *copy = strdup(out);
    if (!copy) return -1;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/.nl-report-XXXXXX", dirname(copy));
    free(copy);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "nl-report: %s: cannot create a file there: %s\n", out, strerror(errno));
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        return -1;
    }
    int rc = nlr_page_write(f, r);
    /* mkstemp's 0600 is for secrets; a report is read like any page */
    if (fflush(f) || fsync(fd) || fchmod(fd, 0644)) rc = NL_EIO;
    int e = errno;
    if (fclose(f)) rc = NL_EIO, e = errno;
    if (rc || rename(tmp, out)) {
        if (!rc) e = errno;
        fprintf(stderr, "nl-report: %s: %s\n", out,
                rc == NL_ENOMEM ? "out of memory" : strerror(e));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"db", required_argument, NULL, 'd'},    {"output", required_argument, NULL, 'o'},
        {"since", required_argument, NULL, 's'}, {"until", required_argument, NULL, 'u'},
        {"host", required_argument, NULL, 'H'},  {"event", required_argument, NULL, 'e'},
        {"guid", required_argument, NULL, 'g'},  {"max-charts", required_argument, NULL, 'M'},
        {"title", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},     {0, 0, 0, 0},
    };
    nlr_opts_t o = {.since = -INFINITY,
                    .until = INFINITY,
                    .max_charts = NLR_MAX_CHARTS,
                    .title = "nlkit report"};
    const char *out = "report.html";
    double now = (double)time(NULL);
    int c;
    while ((c = getopt_long(argc, argv, "d:o:s:u:H:e:g:t:h", lopts, NULL)) != -1) {
        switch (c) {
        case 'd': o.db = optarg; break;
        case 'o': out = optarg; break;
        case 's':
        case 'u':
            if (nll_parse_when(optarg, now, c == 's' ? &o.since : &o.until)) {
                fprintf(stderr, "nl-report: --%s: not a time or age: '%s'\n",
                        c == 's' ? "since" : "until", optarg);
                return 2;
            }
            break;
        case 'H': o.host_glob = optarg; break;
        case 'e': o.event_glob = optarg; break;
        case 'g':
            if (o.nguids >= (int)(sizeof o.guids / sizeof o.guids[0])) {
                fprintf(stderr, "nl-report: --guid: at most %zu\n",
                        sizeof o.guids / sizeof o.guids[0]);
                return 2;
            }
            o.guids[o.nguids++] = optarg;
            break;
        case 'M': {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end || n < 0 || n > 100000) {
                fprintf(stderr, "nl-report: --max-charts: a number from 0 to 100000, not '%s'\n",
                        optarg);
                return 2;
            }
            o.max_charts = (int)n;
            break;
        }
        case 't': o.title = optarg; break;
        case 'h': usage(stdout); return 0;
        case 'V': puts("nl-report (nlkit) " NLKIT_VERSION); return 0;
        default: fputs("Try 'nl-report --help' for the options.\n", stderr); return 2;
        }
    }
    if (!o.db || optind < argc) {
        fprintf(stderr, "nl-report: %s\n",
                optind < argc ? "unexpected argument" : "--db is required");
        fputs("Try 'nl-report --help' for the options.\n", stderr);
        return 2;
    }
    if (o.since >= o.until) {
        fprintf(stderr, "nl-report: --since must be before --until\n");
        return 2;
    }
    nll_db_t *archive = NULL;
    nll_err_t err;
    nlr_report_t r = {.o = &o};
    int rc = nll_db_open(o.db, NLL_OPEN_READ, 0, &archive, &err);
    nll_db_t *db = archive; /* a SQLite file or a PostgreSQL database, read alike */
    r.archive = archive;
    if (!rc) rc = nlr_charts_read(db, &r, &err);
    if (!rc) rc = nlr_marks_read(db, &r, &err);
    if (!rc) {
        nlr_charts_rank(&r);
        rc = nlr_charts_fill(db, &r, &err);
    }
    if (!rc) rc = nlr_life_read(db, &r, &err);
    nll_db_close(archive);
    if (rc) {
        fprintf(stderr, "nl-report: %s\n", err.msg);
        nlr_report_free(&r);
        return 1;
    }
    rc = write_out(&r, out);
    if (!rc && strcmp(out, "-")) {
        struct stat sb;
        fprintf(stderr,
                "nl-report: wrote %s (%lld KiB): %d activit%s x hosts, %d drawn; %lld anomaly "
                "episode%s, %lld alert%s, %lld missing end%s, %d peer verdict%s\n",
                out, stat(out, &sb) ? 0LL : (long long)(sb.st_size + 1023) / 1024, r.ncharts,
                r.ncharts == 1 ? "y" : "ies", r.shown, (long long)r.episodes,
                r.episodes == 1 ? "" : "s", (long long)r.alerts, r.alerts == 1 ? "" : "s",
                (long long)r.missing, r.missing == 1 ? "" : "s", r.npeers,
                r.npeers == 1 ? "" : "s");
    }
    nlr_report_free(&r);
    return rc ? 1 : 0;
}
