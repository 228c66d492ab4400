/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_tree.h — a request's activity tree from its events, one rule for nl-flows (its flow
 * profiles) and nl-report (its lifelines with their child spans):
 *  - within one guid, events in time order nest: a start opens an activity, an end closes
 *    the latest open start of its activity (what opened above it stays open, cut at its
 *    end), anything else is a point under the innermost open activity; an end whose start
 *    is not there is a point too (counted);
 *  - a guid hangs under its parent guid: its parent.guid, or else the guid whose span.id is
 *    its parent.span.id; a parent named that has no event here makes the guid an orphan
 *    (a root of its own, said so); a loop of parents is cut at its first guid;
 *  - under that parent guid, a child's top activities hang under the deepest activity that
 *    encloses the child's events in time, or with clock skew the one it overlaps most,
 *    else the nearest (the skew is counted).
 * Prefix nl__tree_. */
#ifndef NLKIT_NL_TREE_H
#define NLKIT_NL_TREE_H

#include <stddef.h>
#include <stdint.h>

#define NL_TREE_NONE UINT32_MAX
/* Activities open at once in one guid that nest (deeper ones are points, counted). */
#define NL_TREE_STACK 128

/* One event: 48 bytes (nl-flows holds its open flows' events as these). */
typedef struct nl__tree_ev {
    int64_t ts;    /* usec */
    double val;    /* a value field of an end event, if has & 1 */
    double dur;    /* an end event's own duration, seconds, if has & 2 */
    uint32_t g;    /* index of its guid (0 .. ng-1) */
    uint32_t act;  /* the caller's interned activity (or point event) name */
    uint32_t seq;  /* arrival order, to keep sorting stable */
    uint8_t kind;  /* NL_KIND_START, _END or _OTHER (nl_line.h) */
    uint8_t has;
} nl__tree_ev_t;

/* One guid, as the caller knows it. */
typedef struct nl__tree_guid {
    uint32_t parent;      /* index of its parent.guid, or NL_TREE_NONE */
    uint64_t span, pspan; /* span.id, parent.span.id as numbers (nl__tree_hex64); 0: none */
    uint32_t nev;         /* its events (0: only named as a parent) */
} nl__tree_guid_t;

/* One activity (or point event) of the tree. */
typedef struct nl__tree_node {
    int64_t start, end; /* usec; a point: both its time */
    double dur, kids, val; /* seconds (the end's own duration if given); kids: the caller's */
    uint32_t act, path, g, ldepth; /* path: the caller's (NL_TREE_NONE as built); ldepth:
                                      depth within its guid */
    int32_t parent; /* index of its parent node, -1 for a root */
    uint8_t open, point; /* open: not ended (cut at its guid's last event) */
} nl__tree_node_t;

/* Where one guid's nodes are, and its place among the guids. */
typedef struct nl__tree_gspan {
    uint32_t n0, n1;     /* its nodes: nd[n0 .. n1) */
    int64_t first, last; /* its events' time */
    uint32_t parent;     /* resolved parent guid, or NL_TREE_NONE */
    uint8_t orphan;      /* names a parent that has no event here */
} nl__tree_gspan_t;

/* What building met, added to (never reset). */
typedef struct nl__tree_counts {
    uint64_t unmatched_ends, too_deep, open_acts, skewed;
    double skew_max; /* seconds: the largest gap by which a child lay outside its parent */
} nl__tree_counts_t;

typedef struct nl__tree {
    nl__tree_node_t *nd; /* nn nodes, each guid's together in guid order */
    uint32_t nn;
    nl__tree_gspan_t *gs; /* ng */
    uint32_t ng;
} nl__tree_t;

/* Build the tree of nev events of ng guids (ev is sorted in place by guid, time and seq).
 * 0, or -1 out of memory (t then holds nothing). Free with nl__tree_free. */
int nl__tree_build(nl__tree_t *t, nl__tree_ev_t *ev, size_t nev, const nl__tree_guid_t *g,
                   uint32_t ng, nl__tree_counts_t *n);
void nl__tree_free(nl__tree_t *t);

/* A span id's text (up to 16 hex digits) as a number; 0 for none or anything else. */
uint64_t nl__tree_hex64(const char *s, size_t len);

#endif
