/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_csv.h — reading the labelled series of ../shared/datasets (TimeStamp,Value,Label
 * with a header; fields may be quoted; timestamps ISO 8601 with a space or a T, with or
 * without Z, taken as UTC; an empty Value is kept as NaN). */
#ifndef NLKIT_BENCH_REALDATA_CSV_H
#define NLKIT_BENCH_REALDATA_CSV_H

#include <stddef.h>
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

/* Every *.csv under dir's sub-folders, folders and files in name order. Returns the count
 * (0 if none) with *out allocated, or -1 with a reason in err. */
int rd_load_dir(const char *dir, rd_series_t **out, int *nfolders, char *err, size_t errlen);

#endif
