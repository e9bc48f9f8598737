/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: one switch's stat packets, captured live on the interface where they
 * arrive (libpcap, as `pktstats record` does: 64 MiB kernel buffer, the stat packets' filter
 * in the kernel, promiscuous), on a thread of its own, into the switch's figures
 * (stat_ingest.h). An interface that is not there, or goes away (a simulator's TAP when it
 * exits), is opened again after a backoff (1 s doubling up to the configured most); the
 * figures carry on across it: counters never go back.
 */
#ifndef PKTSTATS_EXPORTER_STAT_CAPTURE_H
#define PKTSTATS_EXPORTER_STAT_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "stat_ingest.h"

struct stat_capture;

struct stat_capture_options {
	const char *switch_name;
	const char *interface;
	uint16_t udp_port;
	bool have_source;
	uint32_t source;          /* only stat packets from this IPv4 source */
	uint32_t queue_words;
	uint64_t burst_bytes;
	uint64_t peak_window_ns;
	uint64_t retry_max_ns;
};

struct capture_view {
	bool up;                  /* the interface is open */
	bool tried;               /* the first attempt to open it is over */
	uint64_t opens, failures;
	uint64_t kernel_drops;    /* frames the kernel dropped: the buffer was full */
	uint64_t interface_drops; /* frames the interface dropped (pcap's ps_ifdrop) */
	struct ingest_snapshot ingest;
};

/* 0, -EINVAL (options), -ENOMEM, -errno of the thread. */
int stat_capture_start(struct stat_capture **capture, const struct stat_capture_options *options);
void stat_capture_stop(struct stat_capture *capture);
/* The figures now (now_ns: CLOCK_MONOTONIC, for the peak window). */
void stat_capture_view(struct stat_capture *capture, int64_t now_ns, struct capture_view *view);
/* New microburst threshold and peak window, taken at once (a reload that changes nothing
 * else keeps the figures). */
void stat_capture_retune(struct stat_capture *capture, uint64_t burst_bytes,
			 uint64_t peak_window_ns);
bool stat_capture_tried(struct stat_capture *capture);

#endif
