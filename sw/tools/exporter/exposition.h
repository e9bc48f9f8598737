/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: the metrics exposition, written into a growable buffer in either of the
 * two formats a Prometheus server takes:
 *
 *   text 0.0.4      Content-Type: text/plain; version=0.0.4; charset=utf-8
 *                   "# HELP", "# TYPE" per family; a counter's family is named with its
 *                   _total; info metrics are gauges named *_info with the value 1.
 *   OpenMetrics     Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8
 *   1.0.0           "# TYPE", "# UNIT", "# HELP" per family; a counter's family is named
 *                   without _total, its samples with it; info is a type of its own; the
 *                   exposition ends with "# EOF".
 *
 * One family's samples are written together (both formats require it): begin the family,
 * write its samples, then the next family. Families are described once, as constants:
 *
 *   static const struct expo_family queue_events = {
 *       "pktstats_queue_events", EXPO_COUNTER, NULL, "Events of the queue ..."};
 *   expo_family(&e, &queue_events);
 *   expo_labels(&labels, "switch", "s0", "queue", "3", "type", "arrival", NULL);
 *   expo_counter(&e, &labels, 1234);
 *
 * Names follow Prometheus's conventions (base units, _total for counters, _info for
 * identities); the writer adds the suffixes, never the caller. Nothing here prints; a buffer
 * that cannot grow sets `failed` and the caller answers 500.
 */
#ifndef PKTSTATS_EXPORTER_EXPOSITION_H
#define PKTSTATS_EXPORTER_EXPOSITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum expo_format {
	EXPO_TEXT_0_0_4 = 0,
	EXPO_OPENMETRICS_1_0_0,
};

/* The Content-Type header of a format. */
const char *expo_content_type(enum expo_format format);

/*
 * The format to answer a request with, from its Accept header (NULL: none): OpenMetrics when
 * the header accepts application/openmetrics-text (version 1.0.0 or 0.0.1, or no version) with
 * a quality at least that of text/plain, as Prometheus asks ("application/openmetrics-text;
 * version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;
 * q=0.5,*\/\*;q=0.1"); text 0.0.4 otherwise, including for a header that does not parse. Never
 * reads beyond the header's NUL.
 */
enum expo_format expo_negotiate(const char *accept);

enum expo_type {
	EXPO_COUNTER,
	EXPO_GAUGE,
	EXPO_HISTOGRAM,
	EXPO_INFO,
};

struct expo_family {
	const char *name; /* without _total (counters) or _info (info): "pktstats_queue_events" */
	enum expo_type type;
	const char *unit; /* "seconds", "bytes", or NULL; the name ends with it */
	const char *help;
};

/* A family as a constant of its file: EXPO_FAMILY(drops, "pktstats_x_drops", EXPO_COUNTER,
 * NULL, "Frames dropped.") */
#define EXPO_FAMILY(var, name, type, unit, help) \
	static const struct expo_family var = {name, type, unit, help}

/* A sample's labels, already in exposition form: `switch="s0",queue="3"`. */
#define EXPO_LABELS_MAX 512
struct expo_labels {
	char text[EXPO_LABELS_MAX];
	size_t length;
	bool truncated;
};

/* Sets labels from NAME, VALUE pairs ending with NULL; values escaped as the formats want
 * (backslash, double quote, newline). A label set that does not fit is marked truncated. */
void expo_labels(struct expo_labels *labels, ...) __attribute__((sentinel));
/* Adds one more pair. */
void expo_label_add(struct expo_labels *labels, const char *name, const char *value);

struct exposition {
	enum expo_format format;
	char *text;
	size_t length, capacity;
	bool failed; /* out of memory: the text is incomplete */
	const struct expo_family *family; /* the family being written */
};

void expo_init(struct exposition *e, enum expo_format format);
void expo_free(struct exposition *e);
/* Ends the exposition (OpenMetrics: "# EOF"). */
void expo_finish(struct exposition *e);

/* Starts a family: its HELP, TYPE (and UNIT) lines. */
void expo_family(struct exposition *e, const struct expo_family *family);

/* A sum that never wraps, whatever arrives (a counter must never go back): 128 bits hold
 * 2^64 observations of 2^64 each. */
typedef unsigned __int128 expo_sum;

/* Samples of the current family. Values: unsigned integers exact, doubles with 17 digits,
 * nanoseconds as seconds exact to the nanosecond. */
void expo_counter(struct exposition *e, const struct expo_labels *labels, uint64_t value);
void expo_counter_double(struct exposition *e, const struct expo_labels *labels, double value);
void expo_counter_ns(struct exposition *e, const struct expo_labels *labels, expo_sum ns);
void expo_gauge(struct exposition *e, const struct expo_labels *labels, int64_t value);
void expo_gauge_double(struct exposition *e, const struct expo_labels *labels, double value);
void expo_gauge_ns(struct exposition *e, const struct expo_labels *labels, int64_t ns);
/* An info sample (value 1). */
void expo_info(struct exposition *e, const struct expo_labels *labels);

/*
 * A histogram sample set: n finite buckets with upper bounds bound_text[i] (as the le label
 * will read: "8e-09") and counts[i] observations in (bound i-1, bound i], then counts[n] above
 * the last; written cumulatively with le="+Inf" last, then _sum (sum_text, already formatted)
 * and _count.
 */
void expo_histogram(struct exposition *e, const struct expo_labels *labels,
		    const char *const *bound_text, const uint64_t *counts, size_t n,
		    const char *sum_text);

/* printf into the exposition (for texts of the caller's own, e.g. a sum). */
void expo_printf(struct exposition *e, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

/* Nanoseconds as seconds, exactly: "0.000001234", "-2.5"; into buf (at least 32 bytes). */
const char *expo_ns_text(int64_t ns, char *buf, size_t size);
/* A sum as a decimal integer, and a sum of nanoseconds as seconds, exactly (at least 48
 * bytes). */
const char *expo_sum_text(expo_sum value, char *buf, size_t size);
const char *expo_sum_ns_text(expo_sum ns, char *buf, size_t size);

#endif
