/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_label.h — internal: a Prometheus/Alertmanager label name made from a field's name, the
 * one rule nl-detect's metrics (detector/nld_metrics.c) and the alerts it posts to
 * Alertmanager (alerts/nla_am.c) share, so a key field has the same label in both. */
#ifndef NLKIT_NL_LABEL_H
#define NLKIT_NL_LABEL_H

#include <stddef.h>

#include "nlkit/nl_bp.h"

/* Appends to b the label name for the field name s (n bytes): characters outside
 * [A-Za-z0-9_] become '_', a leading digit gets '_' before it, and a name that is one of
 * the caller's own labels (ours, nours of them) or starts with "__" (reserved by
 * Prometheus) gets "key_" before it, so a field never takes the place of a label the
 * caller writes itself. An empty name stays empty. */
void nl__label_name(nl_buf_t *b, const char *s, size_t n, const char *const *ours, size_t nours);

#endif
