/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: what the measurement threads share (dm_session.c, headroom_session.c,
 * ipfix_listener.c):
 *
 *   stop       an eventfd per thread: its waits are polls that include it, so that stopping a
 *              thread takes one wake-up, never an interval or a timeout;
 *   backoff    the retries of an interface or a device that failed: 1 s, doubling up to the
 *              configured most (retry-max), as device_poller.c does;
 *   log        a failure logged once per change: again only when its text changes, or after
 *              the thing worked again;
 *   delays     a histogram with stat_ingest.h's delay buckets and an exact sum in ns;
 *   the port   the switch's device string, and its port's MEP address (oam.port_mac_P), the
 *              source the probes carry so that the switch takes their answers as its own.
 */
#ifndef PKTSTATS_EXPORTER_MEASURE_COMMON_H
#define PKTSTATS_EXPORTER_MEASURE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "exposition.h"
#include "oam_link.h"
#include "pktstats/pktstats.h"
#include "stat_ingest.h"

#define MEASURE_NS_PER_S INT64_C(1000000000)
#define MEASURE_NS_PER_MS INT64_C(1000000)

int64_t measure_monotonic_ns(void);
int64_t measure_realtime_ns(void);

/* A new eventfd to stop a thread with (-errno on failure); measure_stop() makes it readable. */
int measure_stop_open(void);
void measure_stop(int stop_fd);

/* Waits until deadline_ns (CLOCK_MONOTONIC) or a stop: true when stopped. */
bool measure_wait(int stop_fd, int64_t deadline_ns);

struct measure_backoff {
	int64_t wait_ns;     /* the next wait: 1 s after a success */
	int64_t max_ns;
};
void measure_backoff_init(struct measure_backoff *b, uint64_t max_ns);
void measure_backoff_reset(struct measure_backoff *b);
/* The wait before the next attempt (and the one after it doubled, up to the most). */
int64_t measure_backoff_next(struct measure_backoff *b);

/* "trying again in 1 s, then up to 30 s", for a failure's log line */
void measure_backoff_text(const struct measure_backoff *b, int64_t wait_ns, char *text,
			  size_t size);

/* The last state logged: a failure's reason, "" when things work. */
struct measure_log {
	char last[512];
};
/* Logs "PREFIX: REASON[; MORE]" when reason differs from the last one logged, and remembers
 * it (more, e.g. when the next attempt is, may change without a line); returns whether it
 * logged. */
bool measure_log_failure(struct measure_log *log, const char *prefix, const char *reason,
			 const char *more);
/* Forgets the failure: the next one is logged. Returns whether there was one. */
bool measure_log_success(struct measure_log *log);

struct delay_histogram {
	uint64_t buckets[INGEST_DELAY_BUCKETS + 1];
	expo_sum sum_ns;
	uint64_t count;
};
void delay_histogram_observe(struct delay_histogram *h, uint64_t ns);
/* One histogram sample set: le the delay bounds, the sum exact to the ns. */
void delay_histogram_write(struct exposition *e, const struct expo_labels *labels,
			   const struct delay_histogram *h);

/* The interface's flags (IFF_UP, IFF_RUNNING: operationally up, its carrier), by SIOCGIFFLAGS,
 * which answers for the exporter's network namespace (/sys/class/net for the one sysfs was
 * mounted in); 0 when it is missing. */
unsigned measure_interface_flags(const char *name);

/* A packet socket on the interface (oam_link_open()), refused when the interface is down:
 * bound to a down interface, a socket's first receive fails even after it came up, and a
 * send fails: opening it would look like a recovery. 0, or -errno with "IFACE: why" in
 * error. */
int measure_link_open(struct oam_link *link, const char *name, char *error, size_t size);

/* The device string of the switch named (whole's), "" when it has none or is not there. */
const char *measure_switch_device(const struct exporter_config *whole, const char *name);

/* pktstats_open() for a thread that must stop at once (PKTSTATS_OPEN_NO_WAIT: a simulator's
 * socket that is missing or not listened on fails at once); detail gets one line ("device
 * DEVICE: ..."). 0 or -errno. */
int measure_device_open(const char *device, struct pktstats_dev **dev, char *detail, size_t size);

/* The MEP address of a port (oam.port_mac_P), read through a handle of our own: 0, or -errno
 * with one line in detail. */
int measure_port_mac(const char *device, unsigned port, uint8_t mac[6], char *detail,
		     size_t size);

#endif
