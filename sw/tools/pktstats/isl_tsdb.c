/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, `isl run`: results into a time-series database by OpenTSDB's HTTP put
 * (isl_tsdb.h). The queue is a ring under one mutex; only the writer thread removes points,
 * and only after the database took them, so a failed request loses nothing.
 */
#define _DEFAULT_SOURCE

#include "isl_tsdb.h"
#include "oam_link.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <jansson.h>

#define BACKOFF_FIRST_NS INT64_C(100000000)  /* 100 ms */
#define BACKOFF_MAX_NS INT64_C(5000000000)   /* 5 s */
#define REQUEST_TIMEOUT_MS 5000L
#define CONNECT_TIMEOUT_MS 1000L

struct tsdb {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	CURL *curl;
	struct curl_slist *headers;
	char url[512];
	char metric[256];
	struct tsdb_point *ring;
	size_t capacity, head, count, batch;
	bool stopping;
	int64_t stop_deadline_ns; /* CLOCK_MONOTONIC */
	struct tsdb_counters counters;
};

/* The JSON array of points ring[head .. head + n) */
static char *render(const struct tsdb *t, size_t n)
{
	json_t *array = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct tsdb_point *p = &t->ring[(t->head + i) % t->capacity];
		char src[24], dst[24], src_port[12], dst_port[12];
		snprintf(src, sizeof src, "SW%016" PRIX64, p->src_switch);
		snprintf(dst, sizeof dst, "SW%016" PRIX64, p->dst_switch);
		snprintf(src_port, sizeof src_port, "%u", p->src_port);
		snprintf(dst_port, sizeof dst_port, "%u", p->dst_port);
		json_array_append_new(
			array, json_pack("{s:s, s:I, s:I, s:{s:s, s:s, s:s, s:s, s:s}}",
					 "metric", t->metric, "timestamp", (json_int_t)p->timestamp_ms,
					 "value", (json_int_t)p->value_ns, "tags",
					 "src_switch", src, "src_port", src_port,
					 "dst_switch", dst, "dst_port", dst_port, "origin", p->origin));
	}
	char *text = json_dumps(array, JSON_COMPACT);
	json_decref(array);
	return text;
}

/* One request: the HTTP status, or 0 when there was no answer (error says why). */
static long post(struct tsdb *t, const char *body, char *error, size_t size)
{
	char curl_error[CURL_ERROR_SIZE] = "";
	curl_easy_setopt(t->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(t->curl, CURLOPT_ERRORBUFFER, curl_error);
	CURLcode code = curl_easy_perform(t->curl);
	curl_easy_setopt(t->curl, CURLOPT_ERRORBUFFER, NULL);
	if (code != CURLE_OK) {
		snprintf(error, size, "%s", *curl_error ? curl_error : curl_easy_strerror(code));
		return 0;
	}
	long status = 0;
	curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status < 200 || status > 299)
		snprintf(error, size, "HTTP %ld", status);
	return status;
}

/* Waits, under the lock, until deadline (CLOCK_MONOTONIC) or, once stopping, the stop
 * deadline: new points do not cut a backoff short. */
static void wait_until(struct tsdb *t, int64_t deadline)
{
	for (;;) {
		int64_t until = t->stopping && t->stop_deadline_ns < deadline ? t->stop_deadline_ns
									       : deadline;
		int64_t left = until - monotonic_ns();
		if (left <= 0)
			return;
		struct timespec at;
		clock_gettime(CLOCK_REALTIME, &at);
		int64_t ns = at.tv_nsec + left;
		at.tv_sec += (time_t)(ns / 1000000000);
		at.tv_nsec = (long)(ns % 1000000000);
		pthread_cond_timedwait(&t->wake, &t->lock, &at);
	}
}

static void *writer(void *arg)
{
	struct tsdb *t = arg;
	int64_t backoff = BACKOFF_FIRST_NS;
	pthread_mutex_lock(&t->lock);
	for (;;) {
		while (!t->count && !t->stopping)
			pthread_cond_wait(&t->wake, &t->lock);
		if (!t->count || (t->stopping && monotonic_ns() >= t->stop_deadline_ns))
			break;
		size_t n = t->count < t->batch ? t->count : t->batch;
		char *body = render(t, n);
		pthread_mutex_unlock(&t->lock);

		char error[256] = "";
		long status = body ? post(t, body, error, sizeof error) : 0;
		if (!body)
			snprintf(error, sizeof error, "out of memory");
		free(body);

		pthread_mutex_lock(&t->lock);
		t->counters.requests++;
		bool taken = status >= 200 && status <= 299;
		bool refused = status >= 400 && status <= 499;
		if (taken || refused) {
			t->head = (t->head + n) % t->capacity;
			t->count -= n;
			if (taken)
				t->counters.delivered += n;
			else
				t->counters.refused++, t->counters.undelivered += n;
			backoff = BACKOFF_FIRST_NS;
		} else {
			t->counters.failed++;
			wait_until(t, monotonic_ns() + backoff);
			backoff = backoff * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : backoff * 2;
		}
		if (*error)
			snprintf(t->counters.last_error, sizeof t->counters.last_error, "%s", error);
	}
	t->counters.undelivered += t->count;
	t->count = 0;
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

int tsdb_start(struct tsdb **tsdb, const char *base_url, const char *metric_prefix,
	       size_t capacity, size_t batch, char *error, size_t size)
{
	*tsdb = NULL;
	struct tsdb *t = calloc(1, sizeof *t);
	if (!t || !(t->ring = calloc(capacity, sizeof *t->ring))) {
		free(t);
		snprintf(error, size, "out of memory for a queue of %zu points", capacity);
		return -ENOMEM;
	}
	t->capacity = capacity;
	t->batch = batch;
	size_t base = strlen(base_url);
	while (base && base_url[base - 1] == '/')
		base--;
	snprintf(t->url, sizeof t->url, "%.*s/api/put", (int)base, base_url);
	snprintf(t->metric, sizeof t->metric, "%sisl.rtt", metric_prefix);
	int err = -ENOMEM;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(t->curl = curl_easy_init()) ||
	    !(t->headers = curl_slist_append(NULL, "Content-Type: application/json"))) {
		snprintf(error, size, "libcurl could not start");
		goto fail;
	}
	curl_easy_setopt(t->curl, CURLOPT_URL, t->url);
	curl_easy_setopt(t->curl, CURLOPT_HTTPHEADER, t->headers);
	curl_easy_setopt(t->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(t->curl, CURLOPT_TIMEOUT_MS, REQUEST_TIMEOUT_MS);
	curl_easy_setopt(t->curl, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
	curl_easy_setopt(t->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->wake, NULL);
	if ((err = pthread_create(&t->thread, NULL, writer, t)) != 0) {
		snprintf(error, size, "writer thread: %s", strerror(err));
		err = -err;
		pthread_cond_destroy(&t->wake);
		pthread_mutex_destroy(&t->lock);
		goto fail;
	}
	*tsdb = t;
	return 0;
fail:
	curl_slist_free_all(t->headers);
	if (t->curl)
		curl_easy_cleanup(t->curl);
	free(t->ring);
	free(t);
	return err;
}

void tsdb_put(struct tsdb *t, const struct tsdb_point *point)
{
	pthread_mutex_lock(&t->lock);
	t->counters.queued++;
	if (t->count == t->capacity) {
		t->counters.undelivered++;
	} else {
		t->ring[(t->head + t->count) % t->capacity] = *point;
		t->count++;
		pthread_cond_signal(&t->wake);
	}
	pthread_mutex_unlock(&t->lock);
}

void tsdb_counters(struct tsdb *t, struct tsdb_counters *counters)
{
	pthread_mutex_lock(&t->lock);
	*counters = t->counters;
	pthread_mutex_unlock(&t->lock);
}

void tsdb_stop(struct tsdb *t, int64_t timeout_ns, struct tsdb_counters *counters)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->stopping = true;
	t->stop_deadline_ns = monotonic_ns() + timeout_ns;
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	if (counters)
		*counters = t->counters;
	curl_slist_free_all(t->headers);
	curl_easy_cleanup(t->curl);
	curl_global_cleanup();
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	free(t->ring);
	free(t);
}
