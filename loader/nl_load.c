/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_load.c — the nl-load program: its command line, signals, and the calls into the load
 * engine (nll_load.h) that put event lines from files or standard input into the archive,
 * each file exactly once. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nl_num.h"
#include "nlkit/nl.h"
#include "nll.h"
#include "nl_replay.h"
#include "nll_load.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void usage(FILE *f)
{
    fputs("Usage: nl-load -d DB [OPTIONS] [FILE...]\n"
          "Archive nlkit event lines (FILEs, or standard input if none or '-') in the archive\n"
          "DB (a SQLite file, or a PostgreSQL database), created if absent and upgraded in\n"
          "place if older.\n"
          "\n"
          "  -d, --db FILE|URI      the archive: a SQLite file, or a PostgreSQL database by its\n"
          "                         libpq URI (postgresql://user@host/db) or keywords\n"
          "                         ('host=H user=U dbname=D'); a password is never shown\n"
          "  -b, --batch N          lines per transaction (50000); a transaction also commits\n"
          "                         at least every second and at exit\n"
          "  -r, --reject FILE      append each bad line to FILE as well as reporting it\n"
          "      --lenient          accept damaged nlkit lines where possible\n"
          "      --netlogger        read the lines as NetLogger's own reader does: for logs\n"
          "                         written by NetLogger's tools (only \\\" is an escape there)\n"
          "      --reload           load FILEs from the start even if loaded before\n"
          "      --prune-before T   delete raw (non-summary) events older than T: a date,\n"
          "                         an ISO-8601 time, Unix seconds, or an age such as 30d\n"
          "      --keep-raw AGE     after loading, delete raw events older than AGE (e.g. 30d)\n"
          "      --progress         show progress on standard error (default: if a terminal)\n"
          "      --no-progress      never\n"
          "      --max-errors N     report at most N bad lines one by one (100); all are counted\n"
          "      --busy-timeout MS  wait up to MS milliseconds for another writer's lock (10000)\n"
          "      --summarize RULES  fold start/end pairs as the library's summarizer would have\n"
          "                         (NL_SUMMARY's syntax, e.g. 'request=summary:1:key=route'):\n"
          "                         their summaries are loaded, the pairs not (mode both: both)\n"
          "  -q, --quiet            no report at exit unless something was rejected or lost\n"
          "  -h, --help             this text\n"
          "      --version          version\n"
          "\n"
          "A file is known by its content (its first bytes, and the bytes before where its load\n"
          "stopped), recorded in the same transaction as its rows: loading it again, under its\n"
          "name or the one rotation gave it (after new lines were appended, or after a crash)\n"
          "adds exactly the lines not yet loaded; a new file under an old name starts afresh.\n"
          "A last line without its newline is left until it has one.\n"
          "Exit status: 0 done (bad lines are reported and counted, not fatal), 1 an input\n"
          "could not be read or the database failed (full, read-only, ...), 2 usage error.\n",
          f);
}

enum {
    O_LENIENT = 256,
    O_NETLOGGER,
    O_RELOAD,
    O_PRUNE,
    O_KEEP,
    O_PROGRESS,
    O_NOPROGRESS,
    O_MAXERR,
    O_BUSY,
    O_SUMMARIZE,
    O_VER
};

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"batch", required_argument, NULL, 'b'},
        {"reject", required_argument, NULL, 'r'},
        {"lenient", no_argument, NULL, O_LENIENT},
        {"netlogger", no_argument, NULL, O_NETLOGGER},
        {"reload", no_argument, NULL, O_RELOAD},
        {"prune-before", required_argument, NULL, O_PRUNE},
        {"keep-raw", required_argument, NULL, O_KEEP},
        {"progress", no_argument, NULL, O_PROGRESS},
        {"no-progress", no_argument, NULL, O_NOPROGRESS},
        {"max-errors", required_argument, NULL, O_MAXERR},
        {"busy-timeout", required_argument, NULL, O_BUSY},
        {"summarize", required_argument, NULL, O_SUMMARIZE},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, O_VER},
        {0, 0, 0, 0},
    };
    nll_load_t ld = {.batch = 50000, .max_errors = 100, .progress = -1, .stop = &stop_requested};
    int reload = 0, quiet = 0, c;
    long busy_ms = 10000;
    const char *prune_arg = NULL, *keep_arg = NULL;
    char *end;
    while ((c = getopt_long(argc, argv, "d:b:r:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'd': ld.db_path = optarg; break;
        case 'b':
            ld.batch = strtol(optarg, &end, 10);
            if (*end || ld.batch < 1) {
                fprintf(stderr, "nl-load: --batch wants a positive number, not '%s'\n", optarg);
                return 2;
            }
            break;
        case 'r': ld.reject_path = optarg; break;
        case O_LENIENT: ld.parse_flags = NL_PARSE_LENIENT; break;
        case O_NETLOGGER: ld.parse_flags = NL_PARSE_NETLOGGER; break;
        case O_RELOAD: reload = 1; break;
        case O_PRUNE: prune_arg = optarg; break;
        case O_KEEP: keep_arg = optarg; break;
        case O_PROGRESS: ld.progress = 1; break;
        case O_NOPROGRESS: ld.progress = 0; break;
        case O_MAXERR:
            ld.max_errors = strtol(optarg, &end, 10);
            if (*end || ld.max_errors < 0) {
                fprintf(stderr, "nl-load: --max-errors wants a number, not '%s'\n", optarg);
                return 2;
            }
            break;
        case O_BUSY:
            busy_ms = strtol(optarg, &end, 10);
            if (*end || busy_ms < 0 || busy_ms > 86400000) {
                fprintf(stderr, "nl-load: --busy-timeout wants milliseconds, not '%s'\n", optarg);
                return 2;
            }
            break;
        case O_SUMMARIZE: {
            nl_perr_t pe = {0};
            if (nl__replay_check(optarg, &pe)) {
                fprintf(stderr, "nl-load: --summarize:%ld:%d: %s\n", pe.line, pe.col, pe.msg);
                return 2;
            }
            ld.summarize = optarg;
            break;
        }
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        case O_VER: puts("nl-load (nlkit) " NLKIT_VERSION); return 0;
        default: fputs("Try 'nl-load --help' for the options.\n", stderr); return 2;
        }
    }
    if (!ld.db_path) {
        fprintf(stderr, "nl-load: which database? (-d FILE)\n");
        fputs("Try 'nl-load --help' for the options.\n", stderr);
        return 2;
    }
    double before = NAN, keep = -1, wall = (double)time(NULL);
    if (prune_arg && nll_parse_when(prune_arg, wall, &before)) {
        fprintf(stderr, "nl-load: --prune-before: not a time or age: '%s'\n", prune_arg);
        return 2;
    }
    if (keep_arg && (keep = nl__parse_dur(keep_arg)) < 0) {
        fprintf(stderr, "nl-load: --keep-raw: not an age (e.g. 30d): '%s'\n", keep_arg);
        return 2;
    }
    if (ld.progress < 0) ld.progress = isatty(2) && !quiet;
    ld.quiet = quiet;

    struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: wake a blocked read */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    /* every named input readable before the archive is touched: a mistyped name must not
     * leave a new, empty archive behind (nl-load -d x.db missing.log created x.db) */
    for (int i = optind; i < argc; i++) {
        if (!strcmp(argv[i], "-")) continue;
        struct stat st; /* not opened: a FIFO's writer must not see a reader come and go */
        if (stat(argv[i], &st) || access(argv[i], R_OK)) {
            fprintf(stderr, "nl-load: %s: %s (nothing loaded)\n", argv[i], strerror(errno));
            return 1;
        }
    }
    if (nll_load_open(&ld, busy_ms)) return 1;
    int failed = 0;
    if (prune_arg) failed |= nll_load_prune(&ld, before) != 0;
    if (optind == argc && !prune_arg) failed |= nll_load_path(&ld, "-", reload) != 0;
    for (int i = optind; i < argc && !stop_requested && !failed; i++)
        failed |= nll_load_path(&ld, argv[i], reload) != 0;
    if (keep >= 0 && !failed) failed |= nll_load_prune(&ld, wall - keep) != 0;
    nll_load_report(&ld, failed);
    if (nll_load_close(&ld)) failed = 1;
    return failed ? 1 : 0;
}
