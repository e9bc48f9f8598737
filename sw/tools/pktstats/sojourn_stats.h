/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: the distribution of the sojourn times a capture gave (`decode --summary`,
 * `plot --sojourn`): every timed frame's delay, per queue, kept (8 bytes each) and sorted once
 * at the end, so that percentiles are exact: the nearest rank, the smallest delay that at
 * least p % of the queue's timed frames do not exceed.
 */
#ifndef PKTSTATS_CLI_SOJOURN_STATS_H
#define PKTSTATS_CLI_SOJOURN_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "pktstats/format.h"
#include "pktstats/sojourn.h"

struct sojourn_delays {
	uint64_t *delay_ns;
	size_t n, capacity;
};

struct sojourn_stats {
	struct sojourn_delays queues[PKTSTATS_QUEUES];
};

/* The percentiles the summary prints, and their keys. */
#define SOJOURN_PERCENTILES 4
extern const double sojourn_percentiles[SOJOURN_PERCENTILES];
extern const char *const sojourn_percentile_keys[SOJOURN_PERCENTILES];

/* Adds timed frames. 0, or -ENOMEM (what was kept so far stays). */
int sojourn_stats_add(struct sojourn_stats *stats, const struct pktstats_sojourn *sojourns,
		      size_t n);
/* Sorts every queue's delays; then the queries below. */
void sojourn_stats_sort(struct sojourn_stats *stats);
/* The nearest-rank percentile (0 < p <= 100) of queue q's delays, ns; 0 if it has none. */
uint64_t sojourn_stats_percentile(const struct sojourn_stats *stats, unsigned queue, double p);
void sojourn_stats_free(struct sojourn_stats *stats);

#endif
