/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, `isl run`: the writer of its results into a time-series database with
 * OpenTSDB's put protocol (HTTP POST of a JSON array to URL/api/put, libcurl). Its own thread
 * sends batches, so that measurement never waits for the database: a point is queued (a
 * bounded queue; when it is full the new point is counted undelivered), the thread sends up to
 * `batch` points per request, and retries a request that failed (no connection, timeout, a
 * 5xx answer) after 100 ms, doubling up to 5 s, until it goes through. A 4xx answer (the
 * database refuses the data) is not retried: those points are counted undelivered.
 */
#ifndef PKTSTATS_CLI_ISL_TSDB_H
#define PKTSTATS_CLI_ISL_TSDB_H

#include <stddef.h>
#include <stdint.h>

/* One data point of metric PREFIX + "isl.rtt" */
struct tsdb_point {
	int64_t timestamp_ms;
	int64_t value_ns;
	uint64_t src_switch, dst_switch; /* datapath IDs: tags "SW%016X" as OpenKilda writes them */
	unsigned src_port, dst_port;
	const char *origin;              /* a static string */
};

struct tsdb_counters {
	uint64_t queued;      /* points given to tsdb_put */
	uint64_t delivered;   /* accepted by the database (2xx) */
	uint64_t undelivered; /* queue full, refused (4xx), or left when the writer stopped */
	uint64_t requests;    /* HTTP requests made */
	uint64_t failed;      /* of which failed: no answer or 5xx (retried) */
	uint64_t refused;     /* of which answered 4xx */
	char last_error[160]; /* why the last request failed, "" when none did */
};

struct tsdb;

/* Starts the writer: base_url "http://HOST:PORT" (the put path is added). 0, or -errno with a
 * one-line reason in error. */
int tsdb_start(struct tsdb **tsdb, const char *base_url, const char *metric_prefix,
	       size_t capacity, size_t batch, char *error, size_t size);
/* Queues a point; never waits for the database. */
void tsdb_put(struct tsdb *tsdb, const struct tsdb_point *point);
/* Stops the writer: it goes on delivering what is queued for at most timeout_ns, then what is
 * left counts as undelivered. Frees it; counters (when not NULL) get the final figures. */
void tsdb_stop(struct tsdb *tsdb, int64_t timeout_ns, struct tsdb_counters *counters);
void tsdb_counters(struct tsdb *tsdb, struct tsdb_counters *counters);

#endif
