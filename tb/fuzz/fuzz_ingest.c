/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: captured frames through pktstats-exporter's stat packet figures
 * (sw/tools/exporter/stat_ingest.c): the stream decoder and the sojourn matcher, then the
 * histograms, maxima, peak window and microbursts built on them.
 *
 * Input: byte 0 picks the microburst threshold (0, 8, 64, ..., in 8-byte steps times a power
 * of two) and the peak window's slot (host time advances by byte 0's low bits per frame);
 * then records as tb/fuzz/fuzz_stream.c's: a 16-bit big-endian length and that many bytes of
 * a frame (fewer at the end). Its corpus starts from the stream target's (real stat frames).
 *
 * After every frame the figures must hold together; any break abort()s:
 *   - each queue's occupancy histogram holds one observation per arrival and drop, its
 *     delay histogram one per frame the matcher timed;
 *   - the peak window never exceeds the largest occupancy since the start, and nothing is
 *     negative where it cannot be;
 *   - the frames fed = packets decoded + malformed + ignored (+ the packets the decoder
 *     returned -ENOSPC for, which cannot happen with the exporter's event array);
 *   - the microbursts ended never took longer in total than the span of switch time seen;
 *   - each queue's largest occupancy (held at a clock's edge) is the library's summary's
 *     (pktstats_stream_feed_frame_summary on the same frames), as `decode --summary` shows.
 * Replayed over tb/fuzz/corpus/ingest and tb/fuzz/regressions/ingest in `make test`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat_ingest.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct ingest *in, int64_t now, const struct pktstats_summary *summary)
{
	static struct ingest_snapshot s;
	ingest_snapshot(in, now, &s);
	uint64_t malformed = 0;
	for (unsigned r = 0; r < PKTSTATS_DECODE_ERROR_COUNT; r++)
		malformed += s.malformed[r];
	FUZZ_CHECK(s.frames == s.total.packets + malformed + s.ignored);
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		const struct ingest_queue *qs = &s.queues[q];
		uint64_t found = 0, delays = 0;
		for (unsigned b = 0; b <= INGEST_OCCUPANCY_BUCKETS; b++)
			found += qs->occupancy_buckets[b];
		for (unsigned b = 0; b <= INGEST_DELAY_BUCKETS; b++)
			delays += qs->delay_buckets[b];
		FUZZ_CHECK(found == qs->events[PKTSTATS_EVENT_ARRIVAL] + qs->events[PKTSTATS_EVENT_DROP]);
		FUZZ_CHECK(delays == qs->sojourn.timed);
		FUZZ_CHECK(qs->max_words >= 0);
		FUZZ_CHECK(qs->max_words == summary->queues[q].max_occupancy);
		FUZZ_CHECK(s.peak_words[q] >= 0 && s.peak_words[q] <= qs->max_words);
		FUZZ_CHECK(qs->bursts <= qs->events[PKTSTATS_EVENT_ARRIVAL] + s.total.packets);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct ingest_options o = {
		.udp_port = 27033,
		.burst_threshold_bytes = (uint64_t)(data[0] & 15) * 8 << (data[0] >> 4 & 7),
		.peak_window_ns = INGEST_PEAK_SLOTS * 1000,
	};
	struct ingest *in = NULL;
	FUZZ_CHECK(ingest_create(&in, &o) == 0);
	static struct pktstats_stream stream;
	static struct pktstats_summary summary;
	struct pktstats_stream_options so;
	struct pktstats_stream_result result;
	pktstats_stream_default_options(&so);
	so.udp_port = o.udp_port;
	FUZZ_CHECK(pktstats_stream_init(&stream, &so) == 0);
	memset(&summary, 0, sizeof summary);
	int64_t now = 0;
	size_t at = 1;
	while (at + 2 <= size) {
		size_t len = (size_t)data[at] << 8 | data[at + 1];
		at += 2;
		if (len > size - at)
			len = size - at;
		uint8_t *frame = fuzz_copy(data + at, len);
		ingest_frame(in, frame, len, now);
		pktstats_stream_feed_frame_summary(&stream, frame, len, &summary, &result);
		free(frame);
		at += len;
		now += (int64_t)(data[0] & 3) * 700;
		check(in, now, &summary);
	}
	ingest_destroy(in);
	return 0;
}
