/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: what the measurement threads share (measure_common.h).
 */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "measure_common.h"
#include "pktstats/oam.h"

static int64_t clock_ns(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return (int64_t)t.tv_sec * MEASURE_NS_PER_S + t.tv_nsec;
}

int64_t measure_monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int64_t measure_realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

int measure_stop_open(void)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

void measure_stop(int stop_fd)
{
	uint64_t one = 1;
	/* cannot fail but by overflowing the counter, and then the fd is readable anyway */
	if (write(stop_fd, &one, sizeof one) < 0)
		return;
}

bool measure_wait(int stop_fd, int64_t deadline_ns)
{
	for (;;) {
		struct pollfd p = {.fd = stop_fd, .events = POLLIN};
		int64_t left = deadline_ns - measure_monotonic_ns();
		int ready = poll(&p, 1, left <= 0 ? 0 : (int)((left + MEASURE_NS_PER_MS - 1) /
							       MEASURE_NS_PER_MS));
		if (ready > 0)
			return true;
		if (ready == 0 || errno != EINTR)
			return false;
	}
}

void measure_backoff_init(struct measure_backoff *b, uint64_t max_ns)
{
	b->max_ns = max_ns < (uint64_t)MEASURE_NS_PER_S ? MEASURE_NS_PER_S : (int64_t)max_ns;
	measure_backoff_reset(b);
}

void measure_backoff_reset(struct measure_backoff *b)
{
	b->wait_ns = MEASURE_NS_PER_S;
}

int64_t measure_backoff_next(struct measure_backoff *b)
{
	int64_t wait = b->wait_ns;
	b->wait_ns = wait > b->max_ns / 2 ? b->max_ns : 2 * wait;
	return wait;
}

void measure_backoff_text(const struct measure_backoff *b, int64_t wait_ns, char *text,
			  size_t size)
{
	snprintf(text, size, "trying again in %g s, then up to %g s", (double)wait_ns / 1e9,
		 (double)b->max_ns / 1e9);
}

bool measure_log_failure(struct measure_log *log, const char *prefix, const char *reason,
			 const char *more)
{
	if (!strcmp(log->last, reason))
		return false;
	snprintf(log->last, sizeof log->last, "%s", reason);
	exporter_log("%s: %s%s%s", prefix, reason, more ? "; " : "", more ? more : "");
	return true;
}

bool measure_log_success(struct measure_log *log)
{
	bool failed = log->last[0] != '\0';
	log->last[0] = '\0';
	return failed;
}

void delay_histogram_observe(struct delay_histogram *h, uint64_t ns)
{
	h->buckets[ingest_delay_bucket(ns)]++;
	h->sum_ns += ns;
	h->count++;
}

void delay_histogram_write(struct exposition *e, const struct expo_labels *labels,
			   const struct delay_histogram *h)
{
	char sum[48];
	expo_histogram(e, labels, ingest_delay_bounds_text, h->buckets, INGEST_DELAY_BUCKETS,
		       expo_sum_ns_text(h->sum_ns, sum, sizeof sum));
}

unsigned measure_interface_flags(const char *name)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	int err = ioctl(fd, SIOCGIFFLAGS, &ifr);
	close(fd);
	return err == 0 ? (unsigned)(unsigned short)ifr.ifr_flags : 0;
}

int measure_link_open(struct oam_link *link, const char *name, char *error, size_t size)
{
	int err = oam_link_open(link, name, error, size);
	if (err == 0 && !(measure_interface_flags(name) & IFF_UP)) {
		oam_link_close(link);
		snprintf(error, size, "%s: %s", name, strerror(ENETDOWN));
		err = -ENETDOWN;
	}
	return err;
}

const char *measure_switch_device(const struct exporter_config *whole, const char *name)
{
	int i = whole ? exporter_config_switch(whole, name) : -1;
	return i < 0 ? "" : whole->switches[i].device;
}

int measure_device_open(const char *device, struct pktstats_dev **dev, char *detail, size_t size)
{
	char error[PKTSTATS_ERROR_MAX] = "";
	/* no 3 s wait for a simulator's socket: a stop must not wait behind it */
	int err = pktstats_open(device, PKTSTATS_OPEN_NO_WAIT, dev, error, sizeof error);
	if (err < 0)
		snprintf(detail, size, "device %s: %s", device, *error ? error : strerror(-err));
	return err;
}

int measure_port_mac(const char *device, unsigned port, uint8_t mac[6], char *detail,
		     size_t size)
{
	struct pktstats_dev *dev;
	int err = measure_device_open(device, &dev, detail, size);
	if (err < 0)
		return err;
	struct pktstats_oam_port_config config;
	err = pktstats_oam_port_get(dev, port, &config);
	if (err < 0)
		snprintf(detail, size, "device %s: %s", device, pktstats_error(dev));
	else
		memcpy(mac, config.mac, 6);
	pktstats_close(dev);
	return err;
}
