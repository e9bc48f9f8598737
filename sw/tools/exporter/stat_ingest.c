/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: stat packets into per-queue figures (stat_ingest.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stat_ingest.h"

const uint64_t ingest_occupancy_bounds[INGEST_OCCUPANCY_BUCKETS] = {
	0, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144,
	524288, 1048576,
};
const char *const ingest_occupancy_bounds_text[INGEST_OCCUPANCY_BUCKETS] = {
	"0", "64", "128", "256", "512", "1024", "2048", "4096", "8192", "16384", "32768",
	"65536", "131072", "262144", "524288", "1048576",
};

/* One clock, then 1-2-5 steps from 20 ns to 10 ms: a delay is a multiple of a tick (8 ns
 * << c), so the first bucket holds the one-clock delays and 10 ns would add nothing. */
const uint64_t ingest_delay_bounds_ns[INGEST_DELAY_BUCKETS] = {
	8, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000,
	1000000, 2000000, 5000000, 10000000,
};
const char *const ingest_delay_bounds_text[INGEST_DELAY_BUCKETS] = {
	"8e-09", "2e-08", "5e-08", "1e-07", "2e-07", "5e-07", "1e-06", "2e-06", "5e-06", "1e-05",
	"2e-05", "5e-05", "0.0001", "0.0002", "0.0005", "0.001", "0.002", "0.005", "0.01",
};

/* The first bucket whose bound is at least 2^(k-1), by bit length k: consecutive bounds are at
 * least twice apart, so the numbers of one bit length meet at most one bound, and one compare
 * with it finishes the search (a binary search mispredicted its way through a third of the
 * ingest's time). Worked out from ingest_delay_bounds_ns; tb/exporter/test_exporter_units.c
 * checks every bound's neighbours against a plain search. */
static const uint8_t delay_first_bucket[65] = {
	0,  0,  0,  0,  0,  1,  2,  3,  4,  5,  6,  7,  8,  8,  9,  10, 11,
	12, 13, 14, 15, 16, 17, 17, 18, 19, 19, 19, 19, 19, 19, 19, 19, 19,
	19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19,
	19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19,
};

unsigned ingest_delay_bucket(uint64_t ns)
{
	unsigned k = ns ? 64 - (unsigned)__builtin_clzll(ns) : 0;
	unsigned i = delay_first_bucket[k];
	return i + (i < INGEST_DELAY_BUCKETS && ns > ingest_delay_bounds_ns[i]);
}

/* le 0 for nothing (or an inconsistent negative occupancy), then the powers of two from 64 */
static unsigned occupancy_bucket(int64_t bytes)
{
	if (bytes <= 0)
		return 0;
	if (bytes <= 64)
		return 1;
	unsigned log2_ceiling = 64 - (unsigned)__builtin_clzll((uint64_t)bytes - 1);
	unsigned k = log2_ceiling - 5; /* 128 -> 2 */
	return k > INGEST_OCCUPANCY_BUCKETS ? INGEST_OCCUPANCY_BUCKETS : k;
}

/* Above the threshold in bytes, in words: occupancy x 8 > bytes when occupancy > bytes / 8 */
static int64_t threshold_words(uint64_t bytes)
{
	return (int64_t)(bytes / 8);
}

int ingest_create(struct ingest **ingest, const struct ingest_options *options)
{
	if (!ingest || !options || options->peak_window_ns < INGEST_PEAK_SLOTS)
		return -EINVAL;
	*ingest = NULL;
	struct ingest *in = calloc(1, sizeof *in);
	if (!in)
		return -ENOMEM;
	in->options = *options;
	in->burst_threshold_words = threshold_words(options->burst_threshold_bytes);
	struct pktstats_stream_options stream_options;
	pktstats_stream_default_options(&stream_options);
	stream_options.udp_port = options->udp_port;
	int err = pktstats_stream_init(&in->stream, &stream_options);
	struct pktstats_sojourn_options sojourn_options;
	pktstats_sojourn_default_options(&sojourn_options);
	if (options->queue_words)
		sojourn_options.queue_words = options->queue_words;
	if (err == 0)
		err = pktstats_sojourn_create(&in->matcher, &sojourn_options);
	/* one more: the sentinel after a packet's events (ingest_frame) */
	in->events = malloc((PKTSTATS_DECODE_MAX_EVENTS + 1) * sizeof *in->events);
	in->sojourns = malloc(PKTSTATS_DECODE_MAX_EVENTS * sizeof *in->sojourns);
	if (err == 0 && (!in->events || !in->sojourns))
		err = -ENOMEM;
	if (err < 0) {
		ingest_destroy(in);
		return err;
	}
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
		for (unsigned s = 0; s < INGEST_PEAK_SLOTS; s++)
			in->queues[q].peak[s].slot = -1;
	*ingest = in;
	return 0;
}

void ingest_destroy(struct ingest *in)
{
	if (!in)
		return;
	pktstats_sojourn_destroy(in->matcher);
	free(in->events);
	free(in->sojourns);
	free(in);
}

/* A crossing of the microburst threshold at time_ns: an episode begins or ends */
static void burst_edge(struct ingest_queue *qs, uint64_t time_ns)
{
	qs->above = !qs->above;
	if (qs->above) {
		qs->bursts++;
		qs->burst_start_ns = time_ns;
	} else if (time_ns > qs->burst_start_ns) {
		qs->burst_ns += time_ns - qs->burst_start_ns;
	}
}

void ingest_frame(struct ingest *in, const uint8_t *frame, size_t len, int64_t now_ns)
{
	in->frames++;
	struct pktstats_stream_result result;
	int err = pktstats_stream_feed_frame(&in->stream, frame, len, in->events,
					     PKTSTATS_DECODE_MAX_EVENTS, &result);
	size_t n_sojourns = 0;
	if (err == -ENOMSG) {
		in->ignored++;
		return;
	}
	if (err == -EBADMSG || err == -EINVAL) {
		enum pktstats_decode_error reason =
			err == -EINVAL ? PKTSTATS_DECODE_TRUNCATED : result.reason;
		in->malformed[reason % PKTSTATS_DECODE_ERROR_COUNT]++;
		/* the matcher must see it: its queues lose synchronisation */
		pktstats_sojourn_feed(in->matcher, &result, NULL, 0, NULL, 0, NULL);
		return;
	}
	/* 0, or -ENOSPC, which cannot happen with PKTSTATS_DECODE_MAX_EVENTS */
	if (result.seq_status == PKTSTATS_SEQ_GAP)
		in->missing += result.lost;

	/* The peak window's slot of this batch of host time */
	int64_t slot_ns = (int64_t)(in->options.peak_window_ns / INGEST_PEAK_SLOTS);
	int64_t slot = now_ns / slot_ns;
	unsigned slot_index = (unsigned)(slot % INGEST_PEAK_SLOTS);
	const struct pktstats_packet *packet = &result.packet;
	uint64_t start_ns = pktstats_tick_to_ns(packet->start_tick, packet->resolution);
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		struct ingest_queue *qs = &in->queues[q];
		if (qs->peak[slot_index].slot != slot) {
			qs->peak[slot_index].slot = slot;
			qs->peak[slot_index].max_words = 0;
		}
		/* the snapshot: the occupancy at the packet's start (its maximum is taken with
		 * the events') */
		if ((packet->queue_size[q] > in->burst_threshold_words) != qs->above)
			burst_edge(qs, start_ns);
	}

	/* The hot loop (make bench: one core must take a 1 Gb/s stat stream): the maxima are
	 * kept per packet and folded in once, the occupancy a frame found is observed without a
	 * branch (a departure adds 0), and only a crossing of the microburst threshold leaves
	 * the straight path.
	 * The largest occupancy is the largest a queue held at a clock's edge: the events of one
	 * clock are written by queue, arrival before departure (design.md), so when a frame
	 * arrives and another leaves a queue in the same clock, the departure's event follows
	 * the arrival's at once and the occupancy between them was never held. Such an arrival
	 * (the next event a departure of its queue in the same tick: exact at resolution 0, a
	 * tick a clock; at coarser ones the pair counts as one edge even if the departure came
	 * a clock later) is observed at the occupancy before it instead, which its queue did
	 * hold and which is already in the maximum (the packet's queue size or the occupancy
	 * after the queue's previous event): still no branch. The events end with a sentinel,
	 * so the last has a next one. A packet's last event counts: the hardware never splits
	 * one queue's events of a clock over two packets, so nothing is carried to the next
	 * packet (where lost packets could come between). decode --summary counts the same
	 * (sw/driver/src/decode.c). */
	in->events[result.n_events] = (struct pktstats_event){.type = PKTSTATS_EVENT_TIMESTAMP};
	int64_t packet_max[PKTSTATS_QUEUES];
	uint64_t found_sum[PKTSTATS_QUEUES] = {0}; /* a packet's bytes fit 64 bits */
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
		packet_max[q] = packet->queue_size[q];
	const int64_t threshold = in->burst_threshold_words;
	for (size_t i = 0; i < result.n_events; i++) {
		const struct pktstats_event *e = &in->events[i];
		unsigned q = e->queue & 7, type = e->type & 3;
		struct ingest_queue *qs = &in->queues[q];
		int64_t occupancy = e->occupancy;
		qs->events[type]++;
		qs->words[type] += e->length;
		/* the occupancy the frame found: before an arrival, at a drop */
		int64_t found = occupancy - (type == PKTSTATS_EVENT_ARRIVAL ? e->length : 0);
		uint64_t offered = type != PKTSTATS_EVENT_DEPARTURE;
		int64_t bytes = found > 0 ? found * 8 : 0;
		qs->occupancy_buckets[occupancy_bucket(bytes)] += offered;
		found_sum[q] += offered * (uint64_t)bytes;
		const int64_t undone = (type == PKTSTATS_EVENT_ARRIVAL) &
				       (e[1].type == PKTSTATS_EVENT_DEPARTURE) &
				       (e[1].queue == e->queue) & (e[1].tick == e->tick);
		const int64_t held = occupancy - (-undone & e->length);
		if (held > packet_max[q])
			packet_max[q] = held;
		if (__builtin_expect((occupancy > threshold) != qs->above, 0))
			burst_edge(qs, e->time_ns);
	}
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		struct ingest_queue *qs = &in->queues[q];
		qs->occupancy_sum_bytes += found_sum[q];
		if (packet_max[q] > qs->max_words)
			qs->max_words = packet_max[q];
		if (packet_max[q] > qs->peak[slot_index].max_words)
			qs->peak[slot_index].max_words = packet_max[q];
	}

	pktstats_sojourn_feed(in->matcher, &result, in->events, result.n_events, in->sojourns,
			      PKTSTATS_DECODE_MAX_EVENTS, &n_sojourns);
	for (size_t i = 0; i < n_sojourns; i++) {
		const struct pktstats_sojourn *s = &in->sojourns[i];
		struct ingest_queue *qs = &in->queues[s->queue & 7];
		qs->delay_buckets[ingest_delay_bucket(s->delay_ns)]++;
		qs->delay_sum_ns += s->delay_ns;
	}
}

void ingest_retune(struct ingest *in, uint64_t burst_threshold_bytes, uint64_t peak_window_ns)
{
	in->options.burst_threshold_bytes = burst_threshold_bytes;
	in->burst_threshold_words = threshold_words(burst_threshold_bytes);
	if (peak_window_ns < INGEST_PEAK_SLOTS || peak_window_ns == in->options.peak_window_ns)
		return;
	in->options.peak_window_ns = peak_window_ns;
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
		for (unsigned s = 0; s < INGEST_PEAK_SLOTS; s++)
			in->queues[q].peak[s].slot = -1;
}

void ingest_snapshot(const struct ingest *in, int64_t now_ns, struct ingest_snapshot *out)
{
	memcpy(out->queues, in->queues, sizeof out->queues);
	int64_t slot_ns = (int64_t)(in->options.peak_window_ns / INGEST_PEAK_SLOTS);
	int64_t slot = now_ns / slot_ns;
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		int64_t peak = 0;
		for (unsigned s = 0; s < INGEST_PEAK_SLOTS; s++) {
			const struct ingest_peak_slot *p = &in->queues[q].peak[s];
			if (p->slot > slot - INGEST_PEAK_SLOTS && p->slot <= slot &&
			    p->max_words > peak)
				peak = p->max_words;
		}
		out->peak_words[q] = peak;
		pktstats_sojourn_total(in->matcher, 1u << q, &out->queues[q].sojourn);
	}
	out->total = in->stream.total;
	out->frames = in->frames;
	out->ignored = in->ignored;
	out->missing = in->missing;
	out->untracked = in->stream.untracked;
	memcpy(out->malformed, in->malformed, sizeof out->malformed);
}
