/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: what `dm`, `headroom` and `oam` print: a series of delays with its figures,
 * wire times, MACs.
 */
#ifndef PKTSTATS_CLI_OAM_OUTPUT_H
#define PKTSTATS_CLI_OAM_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pktstats/oam.h"

/* ------------------------------------------------------------------------------------------ */
/* Series of delays (ns) and their figures */

struct series {
	int64_t *values;
	size_t n, capacity;
};

/* 0 or -ENOMEM. */
int series_add(struct series *s, int64_t value);
void series_free(struct series *s);

struct series_figures {
	size_t n;
	int64_t min, max, p50, p90, p99; /* percentiles by nearest rank: the value at rank
					    ceil(p / 100 x n) of the sorted series */
	double avg;
};
/* false when the series is empty. */
bool series_figures(const struct series *s, struct series_figures *f);

/* Prints the figures under key as an object (min, avg, max, p50, p90, p99, count); all null
 * for an empty series. */
void out_series(const char *key, const struct series *s);

/* A wire time: JSON {"seconds":S,"nanoseconds":N}; text "S.NNNNNNNNN" ("Ss+Nns" when N is
 * not below 10^9). present false: null. */
void out_wire_time(const char *key, struct pktstats_wire_time t, bool present);
/* A signed number of ns, or null when !present. */
void out_ns(const char *key, int64_t value, bool present);

/* The MAC as text (static buffer per call slot 0..3). */
const char *mac_text(const uint8_t mac[6], int slot);

#endif
