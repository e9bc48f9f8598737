/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: live capture of one switch's stat packets (stat_capture.h).
 */
#define _DEFAULT_SOURCE /* libpcap's headers use u_char */

#include <errno.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "stat_capture.h"

#define NS_PER_S INT64_C(1000000000)
#define CAPTURE_BUFFER_BYTES (64 << 20)
#define CAPTURE_SNAPLEN 262144
#define CAPTURE_POLL_MS 100
#define CAPTURE_BATCH 256 /* frames decoded under the lock at a time */

struct stat_capture {
	char name[32];
	char interface[32];
	char filter[256];
	int64_t retry_max_ns;
	pthread_t thread;
	atomic_bool stop;
	pthread_mutex_t lock;
	/* under lock */
	struct ingest *ingest;
	bool up, tried;
	uint64_t opens, failures;
	uint64_t drops_before, ifdrops_before; /* of the handles closed */
	uint64_t drops_now, ifdrops_now;       /* of the handle open */
	int64_t now_ns;                       /* of the batch being fed */
};

static int64_t monotonic(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * NS_PER_S + t.tv_nsec;
}

static void on_frame(u_char *user, const struct pcap_pkthdr *header, const u_char *data)
{
	struct stat_capture *c = (struct stat_capture *)user;
	ingest_frame(c->ingest, data, header->caplen, c->now_ns);
}

/* Opens the interface: the handle, or NULL with the reason in error */
static pcap_t *open_interface(struct stat_capture *c, char *error, size_t size)
{
	char pcap_error[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_create(c->interface, pcap_error);
	if (!p) {
		snprintf(error, size, "%s", pcap_error);
		return NULL;
	}
	pcap_set_snaplen(p, CAPTURE_SNAPLEN);
	pcap_set_promisc(p, 1);
	pcap_set_timeout(p, CAPTURE_POLL_MS);
	pcap_set_buffer_size(p, CAPTURE_BUFFER_BYTES);
	pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
	int err = pcap_activate(p);
	struct bpf_program program;
	if (err < 0) {
		snprintf(error, size, "%s", err == PCAP_ERROR ? pcap_geterr(p) : pcap_statustostr(err));
	} else if (pcap_datalink(p) != DLT_EN10MB) {
		snprintf(error, size, "not an Ethernet interface");
		err = -1;
	} else if (pcap_compile(p, &program, c->filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(error, size, "filter '%s': %s", c->filter, pcap_geterr(p));
		err = -1;
	} else {
		err = pcap_setfilter(p, &program);
		pcap_freecode(&program);
		if (err < 0)
			snprintf(error, size, "filter: %s", pcap_geterr(p));
		else if (pcap_setnonblock(p, 1, pcap_error) < 0) {
			snprintf(error, size, "%s", pcap_error);
			err = -1;
		}
	}
	if (err < 0) {
		pcap_close(p);
		return NULL;
	}
	return p;
}

/* The kernel's drop counts of the open handle */
static void read_drops(struct stat_capture *c, pcap_t *p)
{
	struct pcap_stat stats;
	if (pcap_stats(p, &stats) == 0) {
		pthread_mutex_lock(&c->lock);
		c->drops_now = stats.ps_drop;
		c->ifdrops_now = stats.ps_ifdrop;
		pthread_mutex_unlock(&c->lock);
	}
}

static void close_interface(struct stat_capture *c, pcap_t *p)
{
	read_drops(c, p);
	pcap_close(p);
	pthread_mutex_lock(&c->lock);
	c->drops_before += c->drops_now;
	c->ifdrops_before += c->ifdrops_now;
	c->drops_now = c->ifdrops_now = 0;
	c->up = false;
	pthread_mutex_unlock(&c->lock);
}

/* Sleeps until `until` (CLOCK_MONOTONIC) in steps, so that a stop is seen within 100 ms */
static void sleep_until(struct stat_capture *c, int64_t until)
{
	while (!atomic_load(&c->stop)) {
		int64_t left = until - monotonic();
		if (left <= 0)
			return;
		if (left > CAPTURE_POLL_MS * 1000000)
			left = CAPTURE_POLL_MS * 1000000;
		struct timespec t = {.tv_sec = 0, .tv_nsec = left};
		nanosleep(&t, NULL);
	}
}

static void *run(void *argument)
{
	struct stat_capture *c = argument;
	int64_t backoff = NS_PER_S, last_stats = 0;
	char last_error[PCAP_ERRBUF_SIZE + 300] = "";
	pcap_t *p = NULL;
	while (!atomic_load(&c->stop)) {
		if (!p) {
			char error[sizeof last_error];
			p = open_interface(c, error, sizeof error);
			pthread_mutex_lock(&c->lock);
			c->tried = true;
			if (p) {
				c->up = true;
				c->opens++;
			} else {
				c->failures++;
			}
			pthread_mutex_unlock(&c->lock);
			if (p) {
				exporter_log("switch %s: capturing stat packets on %s (%s)", c->name,
					     c->interface, c->filter);
				backoff = NS_PER_S;
				last_error[0] = '\0';
				continue;
			}
			if (strcmp(error, last_error))
				exporter_log("switch %s: stat interface %s: %s; trying again every "
					     "%g s and more, up to %g s", c->name, c->interface, error,
					     (double)backoff / 1e9, (double)c->retry_max_ns / 1e9);
			snprintf(last_error, sizeof last_error, "%s", error);
			sleep_until(c, monotonic() + backoff);
			backoff = backoff * 2 > c->retry_max_ns ? c->retry_max_ns : backoff * 2;
			continue;
		}
		struct pollfd wait = {.fd = pcap_get_selectable_fd(p), .events = POLLIN};
		poll(&wait, 1, CAPTURE_POLL_MS);
		/* What is there, a batch at a time, the lock let go between batches: with
		 * TPACKET_V3 one dispatch of everything runs as long as the exporter is behind,
		 * and a scrape would wait for all of it. */
		int got;
		do {
			pthread_mutex_lock(&c->lock);
			c->now_ns = monotonic();
			got = pcap_dispatch(p, CAPTURE_BATCH, on_frame, (u_char *)c);
			pthread_mutex_unlock(&c->lock);
		} while (got == CAPTURE_BATCH && !atomic_load(&c->stop));
		if (got == PCAP_ERROR) {
			exporter_log("switch %s: stat interface %s lost: %s; trying again in 1 s",
				     c->name, c->interface, pcap_geterr(p));
			close_interface(c, p);
			p = NULL;
			backoff = NS_PER_S;
			sleep_until(c, monotonic() + backoff);
			continue;
		}
		if (monotonic() - last_stats > NS_PER_S / 4) {
			read_drops(c, p);
			last_stats = monotonic();
		}
	}
	if (p) {
		/* what is in the buffer still counts */
		pthread_mutex_lock(&c->lock);
		c->now_ns = monotonic();
		pcap_dispatch(p, -1, on_frame, (u_char *)c);
		pthread_mutex_unlock(&c->lock);
		close_interface(c, p);
	}
	return NULL;
}

int stat_capture_start(struct stat_capture **capture, const struct stat_capture_options *o)
{
	struct stat_capture *c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	snprintf(c->name, sizeof c->name, "%s", o->switch_name);
	snprintf(c->interface, sizeof c->interface, "%s", o->interface);
	c->retry_max_ns = (int64_t)o->retry_max_ns;
	/* one 802.1Q tag is allowed, as the decoder allows it */
	if (o->have_source) {
		char host[16];
		snprintf(host, sizeof host, "%u.%u.%u.%u", o->source >> 24, o->source >> 16 & 255,
			 o->source >> 8 & 255, o->source & 255);
		snprintf(c->filter, sizeof c->filter,
			 "(udp dst port %u and src host %s) or (vlan and udp dst port %u and src "
			 "host %s)", o->udp_port, host, o->udp_port, host);
	} else {
		snprintf(c->filter, sizeof c->filter, "udp dst port %u or (vlan and udp dst port %u)",
			 o->udp_port, o->udp_port);
	}
	struct ingest_options options = {
		.udp_port = o->udp_port,
		.queue_words = o->queue_words,
		.burst_threshold_bytes = o->burst_bytes,
		.peak_window_ns = o->peak_window_ns,
	};
	int err = ingest_create(&c->ingest, &options);
	if (err < 0) {
		free(c);
		return err;
	}
	pthread_mutex_init(&c->lock, NULL);
	atomic_init(&c->stop, false);
	err = pthread_create(&c->thread, NULL, run, c);
	if (err) {
		ingest_destroy(c->ingest);
		pthread_mutex_destroy(&c->lock);
		free(c);
		return -err;
	}
	*capture = c;
	return 0;
}

void stat_capture_stop(struct stat_capture *c)
{
	if (!c)
		return;
	atomic_store(&c->stop, true);
	pthread_join(c->thread, NULL);
	ingest_destroy(c->ingest);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

void stat_capture_view(struct stat_capture *c, int64_t now_ns, struct capture_view *view)
{
	pthread_mutex_lock(&c->lock);
	view->up = c->up;
	view->tried = c->tried;
	view->opens = c->opens;
	view->failures = c->failures;
	view->kernel_drops = c->drops_before + c->drops_now;
	view->interface_drops = c->ifdrops_before + c->ifdrops_now;
	ingest_snapshot(c->ingest, now_ns, &view->ingest);
	pthread_mutex_unlock(&c->lock);
}

void stat_capture_retune(struct stat_capture *c, uint64_t burst_bytes, uint64_t peak_window_ns)
{
	pthread_mutex_lock(&c->lock);
	ingest_retune(c->ingest, burst_bytes, peak_window_ns);
	pthread_mutex_unlock(&c->lock);
}

bool stat_capture_tried(struct stat_capture *c)
{
	pthread_mutex_lock(&c->lock);
	bool tried = c->tried;
	pthread_mutex_unlock(&c->lock);
	return tried;
}
