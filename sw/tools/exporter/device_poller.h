/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: one switch's device, on a thread of its own. It opens the device
 * (identity checked), finds its blocks, and then reads every register the metrics need when a
 * scrape asks (registers.h), in one batch. A device that cannot be opened, or fails a read
 * (gone, removed, a simulator that exited), is closed and tried again after a backoff: 1 s,
 * doubling up to the configured most; it is picked up again without a restart. Every change of
 * state is one log line.
 *
 * A scrape calls device_poller_request() on every switch, then device_poller_collect() on
 * each: the reads of all switches overlap, and a scrape waits at most until its deadline. A
 * device that is down is not waited for: its snapshot says so at once (up 0). Two scrapers
 * at once each get a read that began after they asked; a read that is not over by the
 * deadline leaves the scrape the last one of the connection, with the time it ended.
 */
#ifndef PKTSTATS_EXPORTER_DEVICE_POLLER_H
#define PKTSTATS_EXPORTER_DEVICE_POLLER_H

#include <stdbool.h>
#include <stdint.h>

#include "pktstats/pktstats.h"
#include "registers.h"

struct device_poller;

/* What a scrape shows of the device */
struct device_view {
	bool up;                  /* open, and its last read succeeded */
	bool read;                /* snapshot holds the values of a read of this connection */
	bool fresh;               /* ... of a read that began after this scrape asked */
	int64_t read_at_ns;       /* when that read ended, CLOCK_REALTIME */
	struct register_snapshot snapshot;
	bool have_identity;       /* opened once: the identity below */
	struct pktstats_identity identity;
	char backend[16];
	uint64_t opens;           /* successful opens since the exporter started */
	uint64_t failures;        /* failed opens and reads */
	bool tried;               /* the first attempt to open is over */
};

/* Starts the thread (it opens the device at once). 0 or -errno. */
int device_poller_start(struct device_poller **poller, const char *switch_name,
			const char *device, uint64_t retry_max_ns);
/* Stops the thread and closes the device. */
void device_poller_stop(struct device_poller *poller);

/* Asks for a read; returns the ticket to collect it with. */
uint64_t device_poller_request(struct device_poller *poller);
/* Waits until the read of ticket is done or deadline_ns (CLOCK_MONOTONIC) passed, and fills
 * view (read false when it did not finish in time, or the device is down). */
void device_poller_collect(struct device_poller *poller, uint64_t ticket, int64_t deadline_ns,
			   struct device_view *view);
/* The first attempt to open is over (for /-/ready). */
bool device_poller_tried(struct device_poller *poller);

#endif
