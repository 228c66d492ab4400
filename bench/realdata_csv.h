/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_csv.h — reading the labelled series of ../shared/datasets, in either of its two
 * layouts: cloud-monitoring's folders of TimeStamp,Value,Label files (with a header; fields
 * may be quoted; an empty Value is kept as NaN), and server-asd's omi-N.csv matrices with
 * their omi-N.labels (realdata_asd.c: each non-constant metric one series, its anomalies the
 * label lines that list it). Timestamps are ISO 8601 with a space or a T, with or without
 * Z, taken as UTC. */
#ifndef NLKIT_BENCH_REALDATA_CSV_H
#define NLKIT_BENCH_REALDATA_CSV_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

typedef struct rd_series {
    char *name;       /* "folder/file.csv" */
    int folder;       /* index of its folder, in sorted order */
    size_t n;         /* rows */
    int64_t *ts;      /* UTC microseconds */
    double *v;        /* NaN where the row's value is empty */
    uint8_t *label;   /* 1: labelled anomalous */
    size_t empty;     /* rows with an empty value */
} rd_series_t;

/* Read one CSV file into s (s->name and s->folder are the caller's). Returns 0, or -1 with
 * "path:line: reason" in err. */
int rd_csv_read(const char *path, rd_series_t *s, char *err, size_t errlen);
void rd_series_free(rd_series_t *s);

/* cloud-monitoring's layout: every *.csv under dir's sub-folders, folders and files in name
 * order. Returns the count (0 if none) with *out allocated, or -1 with a reason in err. */
int rd_load_dir(const char *dir, rd_series_t **out, int *nfolders, char *err, size_t errlen);

/* server-asd's layout (realdata_asd.c): whether dir has it (it holds *.labels files), and
 * its series, servers in numeric order (omi-1, omi-2, ... omi-12; a server is then a
 * "folder"), metrics in column order, named "omi-N/mDD". Same returns as rd_load_dir. */
int rd_is_asd(const char *dir);
int rd_load_asd(const char *dir, rd_series_t **out, int *nfolders, char *err, size_t errlen);

/* fopen(path, "r"), or NULL with "path: reason" in err. */
FILE *rd_fopen(const char *path, char *err, size_t errlen);

/* "2020-01-01T00:05:00Z" (or a space for the T, without Z) as UTC usec: 0, or -1. */
int rd_parse_ts(const char *s, int64_t *usec);

#endif
