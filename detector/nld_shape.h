/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_shape.h — a shape the stream has shown before is not news (shape=W; issue 61,
 * "recurring is not new").
 *
 * A CPU that goes to 90% every few hours, a burst of counts after each batch, a latency
 * step at every deploy of the same job: each is rare under a model of the recent values'
 * distribution, and stays rare however often it comes back, because the distribution has
 * no memory of order. recur= remembers the time of day; this remembers the shape, at any
 * time: the window of the stream's last W values is held against every window of W values
 * that ended at least NLD_SHAPE_AGO_S of event time (and W values) before it, among the
 * last `len` values (a left matrix profile, as in streaming discord detection). Its
 * nearest neighbour's distance d is compared with the window's own distance e from the
 * mean of those values: a window that some earlier window matches much better than the
 * mean does (d small against e) has been seen; one whose nearest earlier window is no
 * nearer than the mean (d about e: a new spike, a new level) has not. The window keeps
 * d / (NLD_SHAPE_NEWS * e) of its surprise, at least NLD_SHAPE_KEEP and at most all.
 *
 * Why d against e, and not against the stream's recent nearest-neighbour distances
 * (conformal kNN): a noisy window has hundreds of near matches, a spike that recurred
 * three times only three, so even an exact recurrence's distance is rarer than the
 * ordinary windows' and a conformal rank calls it new. Against e, the spike's distance
 * is its amplitude's variation, the new spike's its amplitude.
 *
 * Why the values themselves, not z-normalised windows (as matrix profiles usually are):
 * the amplitude is what is anomalous. Z-normalised, a fault that makes requests five times
 * slower has the shape of the usual wiggle, and a level that was never seen the shape of
 * any flat stretch.
 *
 * Why NLD_SHAPE_AGO_S: the windows of the last half hour are the same episode, not an
 * earlier one; a fault's own first minutes must not make its later ones look known. On
 * streams faster than len values in half an hour (1-second summaries with len 1024) there
 * is nothing that old in the ring, and nothing changes.
 *
 * Cost: the distances to all earlier windows are kept by lag and updated in O(len) a value
 * (two squared differences a lag), one lag recomputed in full each value so rounding never
 * builds up; memory 24 * len bytes (len 1024: 24 KB a stream). bench-detect: with
 * shape=32, 3.4 to 5.9 times combine=default's time a value; that, and windows lost on the
 * server set while it gains on the cloud set (docs/detecting.md), keep it opt-in. */
#ifndef NLKIT_NLD_SHAPE_H
#define NLKIT_NLD_SHAPE_H

#include <stdint.h>

#define NLD_SHAPE_W_MAX 64u      /* values in a window, at most */
#define NLD_SHAPE_LEN 1024u      /* values remembered (shape.len=) unless given */
#define NLD_SHAPE_LEN_MIN 64u    /* ... at least, and at least 4 windows */
#define NLD_SHAPE_LEN_MAX 65536u /* ... at most */
#define NLD_SHAPE_AGO_S 1800.0   /* an earlier window ended at least this long before */
#define NLD_SHAPE_KEEP 0.5       /* the share of its surprise a known shape keeps */
#define NLD_SHAPE_NEWS 0.25      /* d at this share of e keeps all of the surprise */
#define NLD_SHAPE_HOLD 1e100     /* values beyond +-this are held at it (squares stay finite) */

typedef struct nld_shape {
    double *buf;     /* the last len values, newest first from head, twice over
                        (buf[i] = buf[i + len]): buf[head + l] is the value l before the
                        newest, for l < len (NULL while off) */
    double *d;       /* d[l]: squared distance of the last window to the one l values
                        before it */
    uint32_t w, len; /* window and values remembered */
    uint32_t head;   /* buf's index of the newest value */
    uint32_t fresh;  /* the lag whose distance is recomputed next */
    uint32_t since;  /* values since sum was last recomputed */
    uint64_t n;      /* values seen */
    double sum;      /* of the values in the ring */
} nld_shape_t;

/* Off (w 0) or windows of w values (2 .. NLD_SHAPE_W_MAX) among the last len values
 * (NLD_SHAPE_LEN_MIN .. NLD_SHAPE_LEN_MAX, and at least 4 w). 0, NL_EINVAL for bounds
 * outside those, or NL_ENOMEM. */
int nld_shape_init(nld_shape_t *s, uint32_t w, uint32_t len);
void nld_shape_free(nld_shape_t *s);

/* x joins the ring; then the share in [NLD_SHAPE_KEEP, 1] of its surprise that the
 * window ending at x keeps (see above), given the stream's typical spacing between values
 * in seconds (which turns NLD_SHAPE_AGO_S into values). 1, remembering nothing, when off
 * or x is not finite; 1 when the spacing is unknown (not > 0) or no window is old enough. */
double nld_shape_step(nld_shape_t *s, double x, double spacing_s);

#endif
