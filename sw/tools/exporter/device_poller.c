/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: one switch's device on its own thread (device_poller.h).
 */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device_poller.h"
#include "log.h"
#include "pktstats/time.h"

#define NS_PER_S INT64_C(1000000000)
#define RETRY_FIRST_NS NS_PER_S

struct device_poller {
	char name[32];
	char device[256];
	int64_t retry_max_ns;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC */
	/* under lock */
	bool stop;
	uint64_t requested, completed;
	bool connected, last_read_ok, tried, have_identity;
	bool have_snapshot;      /* a read of this connection succeeded: snapshot holds it */
	int64_t snapshot_at_ns;  /* when its reads ended, CLOCK_REALTIME */
	struct pktstats_identity identity;
	char backend[16];
	uint64_t opens, failures;
	struct register_snapshot snapshot;
};

static int64_t now_ns(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return (int64_t)t.tv_sec * NS_PER_S + t.tv_nsec;
}

static struct timespec to_timespec(int64_t ns)
{
	return (struct timespec){.tv_sec = ns / NS_PER_S, .tv_nsec = ns % NS_PER_S};
}

static void format_seconds(int64_t ns, char *text, size_t size)
{
	snprintf(text, size, "%.3g s", (double)ns / 1e9);
}

/* The time of day's offset from the host's clock, read between two host readings */
static void read_time_offset(struct pktstats_dev *dev, struct register_snapshot *s)
{
	struct pktstats_time_pair pair;
	int64_t before = now_ns(CLOCK_REALTIME);
	int err = pktstats_time_read(dev, &pair);
	int64_t after = now_ns(CLOCK_REALTIME);
	s->have_time = err == 0;
	if (err == 0)
		s->time_offset_ns = (int64_t)pair.time.seconds * NS_PER_S +
				    (int64_t)pair.time.nanoseconds - (before + (after - before) / 2);
}

static void *run(void *argument)
{
	struct device_poller *p = argument;
	struct pktstats_dev *dev = NULL;
	uint32_t *offsets = calloc(REGISTERS_READS_MAX, sizeof *offsets);
	struct register_snapshot *work = calloc(1, sizeof *work);
	size_t n_offsets = 0;
	int64_t backoff = RETRY_FIRST_NS, retry_at = 0;
	char last_error[PKTSTATS_ERROR_MAX] = "";

	pthread_mutex_lock(&p->lock);
	while (!p->stop && work && offsets) {
		if (!dev) {
			int64_t now = now_ns(CLOCK_MONOTONIC);
			if (now < retry_at) {
				struct timespec until = to_timespec(retry_at);
				pthread_cond_timedwait(&p->cond, &p->lock, &until);
				continue;
			}
			pthread_mutex_unlock(&p->lock);
			char error[PKTSTATS_ERROR_MAX] = "";
			bool blocks[BLOCK_COUNT];
			/* no 3 s wait for a simulator's socket: the backoff decides when to try */
			int err = pktstats_open(p->device, PKTSTATS_OPEN_NO_WAIT, &dev, error,
						sizeof error);
			if (err == 0 && (err = registers_probe(dev, blocks)) < 0) {
				snprintf(error, sizeof error, "%s", pktstats_error(dev));
				pktstats_close(dev);
				dev = NULL;
			}
			if (err == 0) {
				memset(work, 0, sizeof *work);
				memcpy(work->blocks, blocks, sizeof blocks);
				n_offsets = registers_plan(blocks, offsets, work);
			}
			pthread_mutex_lock(&p->lock);
			p->tried = true;
			if (err == 0) {
				p->connected = true;
				p->opens++;
				p->have_identity = pktstats_identity(dev, &p->identity) == 0;
				snprintf(p->backend, sizeof p->backend, "%s",
					 pktstats_backend_name(pktstats_backend(dev)));
				exporter_log("switch %s: device %s up: design %u.%u, git %08x, %zu "
					     "registers a scrape", p->name, p->device,
					     (unsigned)p->identity.major, (unsigned)p->identity.minor,
					     (unsigned)p->identity.git_hash, n_offsets);
				backoff = RETRY_FIRST_NS;
				last_error[0] = '\0';
			} else {
				char wait[32];
				p->failures++;
				format_seconds(backoff, wait, sizeof wait);
				if (strcmp(error, last_error))
					exporter_log("switch %s: device %s: %s; trying again every "
						     "%s and more, up to %g s", p->name, p->device,
						     *error ? error : strerror(-err), wait,
						     (double)p->retry_max_ns / 1e9);
				snprintf(last_error, sizeof last_error, "%s", error);
				retry_at = now_ns(CLOCK_MONOTONIC) + backoff;
				backoff = backoff * 2 > p->retry_max_ns ? p->retry_max_ns : backoff * 2;
			}
			pthread_cond_broadcast(&p->cond);
			continue;
		}
		if (p->completed >= p->requested) {
			pthread_cond_wait(&p->cond, &p->lock);
			continue;
		}
		uint64_t ticket = p->requested;
		pthread_mutex_unlock(&p->lock);
		int64_t start = now_ns(CLOCK_MONOTONIC);
		int err = pktstats_read_many(dev, offsets, n_offsets, work->values);
		if (err == 0 && work->blocks[BLOCK_TIME])
			read_time_offset(dev, work);
		work->read_ns = now_ns(CLOCK_MONOTONIC) - start;
		pthread_mutex_lock(&p->lock);
		if (err < 0) {
			exporter_log("switch %s: device %s lost: %s; trying again in 1 s", p->name,
				     p->device, pktstats_error(dev));
			pktstats_close(dev);
			dev = NULL;
			p->connected = false;
			p->last_read_ok = false;
			p->have_snapshot = false;
			p->failures++;
			backoff = RETRY_FIRST_NS;
			retry_at = now_ns(CLOCK_MONOTONIC) + backoff;
			backoff *= 2;
		} else {
			p->snapshot = *work;
			p->last_read_ok = true;
			p->have_snapshot = true;
			p->snapshot_at_ns = now_ns(CLOCK_REALTIME);
		}
		p->completed = ticket;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	pktstats_close(dev);
	free(work);
	free(offsets);
	return NULL;
}

int device_poller_start(struct device_poller **poller, const char *switch_name,
			const char *device, uint64_t retry_max_ns)
{
	struct device_poller *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	snprintf(p->name, sizeof p->name, "%s", switch_name);
	snprintf(p->device, sizeof p->device, "%s", device);
	p->retry_max_ns = (int64_t)retry_max_ns;
	pthread_condattr_t attributes;
	pthread_condattr_init(&attributes);
	pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &attributes);
	pthread_condattr_destroy(&attributes);
	pthread_mutex_init(&p->lock, NULL);
	int err = pthread_create(&p->thread, NULL, run, p);
	if (err) {
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
		free(p);
		return -err;
	}
	*poller = p;
	return 0;
}

void device_poller_stop(struct device_poller *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

uint64_t device_poller_request(struct device_poller *p)
{
	pthread_mutex_lock(&p->lock);
	uint64_t ticket = ++p->requested;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return ticket;
}

void device_poller_collect(struct device_poller *p, uint64_t ticket, int64_t deadline_ns,
			   struct device_view *view)
{
	struct timespec until = to_timespec(deadline_ns);
	pthread_mutex_lock(&p->lock);
	while (p->connected && p->completed < ticket && !p->stop)
		if (pthread_cond_timedwait(&p->cond, &p->lock, &until) == ETIMEDOUT)
			break;
	/* A read not over by the deadline (a slow simulator) shows the last one of this
	 * connection, with its time: the device is there, its series must not vanish */
	view->up = p->connected && p->last_read_ok;
	view->read = view->up && p->have_snapshot;
	view->fresh = view->read && p->completed >= ticket;
	if (view->read) {
		view->snapshot = p->snapshot;
		view->read_at_ns = p->snapshot_at_ns;
	}
	view->have_identity = p->have_identity;
	view->identity = p->identity;
	snprintf(view->backend, sizeof view->backend, "%s", p->backend);
	view->opens = p->opens;
	view->failures = p->failures;
	view->tried = p->tried;
	pthread_mutex_unlock(&p->lock);
}

bool device_poller_tried(struct device_poller *p)
{
	pthread_mutex_lock(&p->lock);
	bool tried = p->tried;
	pthread_mutex_unlock(&p->lock);
	return tried;
}
