/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: one switch's stat packets in, per-queue figures out. Each captured frame
 * goes through libpktstats' stream decoder (sequence numbers per source, M flags, malformed
 * packets) and its sojourn matcher (the queueing delay of every frame), and each event into
 * the queue's figures:
 *
 *   events, bytes      by type (arrival, departure, drop): what `pktstats decode --summary`
 *                      counts; bytes = words x 8 (a length of 255 words means 255 or more);
 *   occupancy          a histogram of the occupancy each frame found when it reached the
 *                      queue: observed at every arrival (the occupancy before it) and every
 *                      drop (the occupancy that refused it), bytes, buckets 0, 64, 128, ...,
 *                      1 MiB (ingest_occupancy_bounds);
 *   delay              a histogram of the queueing delay of every frame the matcher timed,
 *                      seconds, buckets from 8 ns (one clock) to 10 ms (ingest_delay_bounds);
 *                      the frames it could not time are counted by reason;
 *   max                the largest occupancy since the exporter started: decode --summary's
 *                      max (packets' snapshots and every event's occupancy after it);
 *   peak               the largest occupancy in the last peak window of host time (60 slots
 *                      of window / 60): the same for every reader, never reset by a scrape;
 *   microbursts        episodes above the threshold: an episode starts when the occupancy
 *                      (after an event, or a packet's snapshot) goes above the threshold and
 *                      ends when it falls back to it or below; counted when they start, their
 *                      time (switch time, from the events) added when they end.
 *
 * Not thread-safe: the capture thread feeds it under its switch's lock, a scrape copies it
 * under the same lock (ingest_snapshot). Memory is fixed at creation (the matcher's bound,
 * pktstats/sojourn.h, and one packet's events), whatever arrives. Nothing printed.
 */
#ifndef PKTSTATS_EXPORTER_STAT_INGEST_H
#define PKTSTATS_EXPORTER_STAT_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pktstats/decode.h"
#include "pktstats/format.h"
#include "exposition.h"
#include "pktstats/sojourn.h"

/* Occupancy buckets: le 0, 64, 128, ..., 1048576 bytes, then +Inf */
#define INGEST_OCCUPANCY_BUCKETS 16
extern const uint64_t ingest_occupancy_bounds[INGEST_OCCUPANCY_BUCKETS];
extern const char *const ingest_occupancy_bounds_text[INGEST_OCCUPANCY_BUCKETS];

/* Delay buckets: le 8 ns (one clock), then 20, 50, 100, 200, 500 ns, ... 10 ms, then +Inf */
#define INGEST_DELAY_BUCKETS 19
extern const uint64_t ingest_delay_bounds_ns[INGEST_DELAY_BUCKETS];
extern const char *const ingest_delay_bounds_text[INGEST_DELAY_BUCKETS];

/* Bucket index of a delay in ns (0..INGEST_DELAY_BUCKETS, the last is +Inf): the first
 * bound it does not exceed. For the measurements' histograms too. */
unsigned ingest_delay_bucket(uint64_t ns);

#define INGEST_PEAK_SLOTS 60

/* One slot of the peak window */
struct ingest_peak_slot {
	int64_t slot;      /* host time / slot length; -1: empty */
	int64_t max_words;
};

struct ingest_queue {
	uint64_t events[4], words[4]; /* by enum pktstats_event_type, [0] unused */
	uint64_t occupancy_buckets[INGEST_OCCUPANCY_BUCKETS + 1];
	expo_sum occupancy_sum_bytes;
	uint64_t delay_buckets[INGEST_DELAY_BUCKETS + 1];
	expo_sum delay_sum_ns;
	int64_t max_words;  /* largest occupancy held at a clock's edge, words (ingest_frame);
			       0 before any packet */
	struct ingest_peak_slot peak[INGEST_PEAK_SLOTS];
	bool above;          /* in a microburst */
	uint64_t burst_start_ns;
	uint64_t bursts;     /* episodes begun */
	expo_sum burst_ns;   /* time of the episodes ended, switch time */
	struct pktstats_sojourn_counts sojourn; /* filled by ingest_snapshot() */
};

struct ingest_options {
	uint16_t udp_port;          /* stat packets' UDP destination port */
	uint32_t queue_words;       /* the matcher's bound (0: the switch's) */
	uint64_t burst_threshold_bytes;
	uint64_t peak_window_ns;    /* >= INGEST_PEAK_SLOTS ns */
};

struct ingest {
	struct ingest_options options;
	int64_t burst_threshold_words; /* above it a queue is in a microburst */
	struct pktstats_stream stream;
	struct pktstats_sojourn_matcher *matcher;
	struct pktstats_event *events;     /* PKTSTATS_DECODE_MAX_EVENTS */
	struct pktstats_sojourn *sojourns; /* PKTSTATS_DECODE_MAX_EVENTS */
	struct ingest_queue queues[PKTSTATS_QUEUES];
	uint64_t frames;        /* frames fed */
	uint64_t ignored;       /* no stat packet (another protocol or port) */
	uint64_t missing;       /* stat packets missing at sequence gaps (never decreases) */
	uint64_t malformed[PKTSTATS_DECODE_ERROR_COUNT]; /* by reason */
};

/* 0, -EINVAL (bad options), -ENOMEM. */
int ingest_create(struct ingest **ingest, const struct ingest_options *options);
void ingest_destroy(struct ingest *ingest);

/* One captured frame (Ethernet), at host time now_ns (CLOCK_MONOTONIC, for the peak window). */
void ingest_frame(struct ingest *ingest, const uint8_t *frame, size_t len, int64_t now_ns);

/* A new microburst threshold and peak window (a reload): the window's slots start empty when
 * its length changes; an episode under way is judged by the new threshold from the next
 * event on. */
void ingest_retune(struct ingest *ingest, uint64_t burst_threshold_bytes, uint64_t peak_window_ns);

/* What a scrape shows, copied out. */
struct ingest_snapshot {
	struct ingest_queue queues[PKTSTATS_QUEUES];
	int64_t peak_words[PKTSTATS_QUEUES]; /* the peak window's, at now_ns */
	struct pktstats_stream_counters total;
	uint64_t frames, ignored, missing, untracked;
	uint64_t malformed[PKTSTATS_DECODE_ERROR_COUNT];
};
void ingest_snapshot(const struct ingest *ingest, int64_t now_ns, struct ingest_snapshot *out);

#endif
