/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: delay series and the printing of wire times (oam_output.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "oam_output.h"
#include "output.h"

/* ------------------------------------------------------------------------------------------ */
/* Series */

int series_add(struct series *s, int64_t value)
{
	if (s->n == s->capacity) {
		size_t capacity = s->capacity ? 2 * s->capacity : 64;
		int64_t *values = realloc(s->values, capacity * sizeof *values);
		if (!values)
			return -ENOMEM;
		s->values = values;
		s->capacity = capacity;
	}
	s->values[s->n++] = value;
	return 0;
}

void series_free(struct series *s)
{
	free(s->values);
	*s = (struct series){0};
}

static int compare(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The value at rank ceil(p / 100 x n), 1-based, of the sorted values. */
static int64_t percentile(const int64_t *sorted, size_t n, unsigned p)
{
	size_t rank = (p * n + 99) / 100;
	return sorted[rank ? rank - 1 : 0];
}

bool series_figures(const struct series *s, struct series_figures *f)
{
	memset(f, 0, sizeof *f);
	if (s->n == 0)
		return false;
	int64_t *sorted = malloc(s->n * sizeof *sorted);
	if (!sorted)
		return false;
	memcpy(sorted, s->values, s->n * sizeof *sorted);
	qsort(sorted, s->n, sizeof *sorted, compare);
	__int128 sum = 0;
	for (size_t i = 0; i < s->n; i++)
		sum += sorted[i];
	f->n = s->n;
	f->min = sorted[0];
	f->max = sorted[s->n - 1];
	f->avg = (double)sum / (double)s->n;
	f->p50 = percentile(sorted, s->n, 50);
	f->p90 = percentile(sorted, s->n, 90);
	f->p99 = percentile(sorted, s->n, 99);
	free(sorted);
	return true;
}

void out_series(const char *key, const struct series *s)
{
	struct series_figures f;
	bool any = series_figures(s, &f);
	out_object_begin(key);
	out_uint("count", s->n, NULL);
	out_ns("min", f.min, any);
	if (any)
		out_real("avg", f.avg, 1);
	else
		out_string("avg", NULL);
	out_ns("max", f.max, any);
	out_ns("p50", f.p50, any);
	out_ns("p90", f.p90, any);
	out_ns("p99", f.p99, any);
	out_object_end();
}

void out_wire_time(const char *key, struct pktstats_wire_time t, bool present)
{
	if (!present) {
		out_string(key, NULL);
	} else if (out_is_json()) {
		out_object_begin(key);
		out_uint("seconds", t.seconds, NULL);
		out_uint("nanoseconds", t.nanoseconds, NULL);
		out_object_end();
	} else {
		char text[40];
		if (t.nanoseconds < 1000000000)
			snprintf(text, sizeof text, "%" PRIu32 ".%09" PRIu32, t.seconds, t.nanoseconds);
		else /* not a time: both numbers as they are */
			snprintf(text, sizeof text, "%" PRIu32 "s+%" PRIu32 "ns", t.seconds, t.nanoseconds);
		out_string(key, text);
	}
}

void out_ns(const char *key, int64_t value, bool present)
{
	if (present)
		out_int(key, value, NULL);
	else
		out_string(key, NULL);
}

const char *mac_text(const uint8_t mac[6], int slot)
{
	static char text[4][18];
	slot &= 3;
	format_mac(mac, text[slot], sizeof text[slot]);
	return text[slot];
}
