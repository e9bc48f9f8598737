/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: one stat payload through pktstats_decode_payload_ex() and
 * pktstats_decode_payload(), in full mode with a tiny-to-huge event array and in summary mode,
 * and through pktstats_decode_payload_summary().
 *
 * Input: byte 0 chooses the options, the rest is the UDP payload.
 *   bit 0      accept_v1
 *   bits 3:1   v1_resolution
 *   bits 7:4   max_events, an index in fuzz_max_events_table (0, 1, 2, ... 16365)
 *
 * Every call is compared with the reference decoder of fuzz_common.h (return value, reason,
 * every packet field, every event written), and the summary-mode and default-options calls
 * with the full-mode one; any difference abort()s. The payload is also added to summaries
 * (struct pktstats_summary) and each is compared with the reference summary of fuzz_common.h:
 * to an empty one (the first packet), and to one that already holds an earlier packet made up
 * from the input (before, at or after it in time, with queue sizes below, equal to or above
 * its own), then a second time (the same start again: no gap). A malformed payload must leave
 * the summary unchanged, byte for byte. Built with libFuzzer by `make fuzz`, and
 * replayed over tb/fuzz/corpus/payload and tb/fuzz/regressions/payload by tb/fuzz/replay.c in
 * `make test`.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One decode with the given options against the reference. */
static void check_one(const uint8_t *payload, size_t len, bool accept_v1, unsigned v1_res,
		      size_t max_events, bool default_api)
{
	struct pktstats_decode_options opt = {.accept_v1 = accept_v1,
					      .v1_resolution = (uint8_t)v1_res};
	struct pktstats_packet ref, pkt, sum;
	enum pktstats_decode_error ref_reason, reason, sum_reason;
	struct pktstats_event *ref_events, *events;
	size_t n = 12345, n_sum = 12345;
	int ref_r, r, r_sum;

	/* room for every event the reference can produce: one per slot */
	ref_events = alloc_events(len / 4 + 1);
	ref_r = ref_decode(payload, len, accept_v1, v1_res, &ref, ref_events, &ref_reason);

	/* Full mode, exactly max_events entries. */
	events = alloc_events(max_events);
	if (default_api)
		r = pktstats_decode_payload(payload, len, &pkt, events, max_events, &n, &reason);
	else
		r = pktstats_decode_payload_ex(payload, len, &opt, &pkt, events, max_events, &n,
					       &reason);
	if (ref_r == -EBADMSG) {
		FUZZ_CHECK(r == -EBADMSG);
		FUZZ_CHECK(reason == ref_reason && reason != PKTSTATS_DECODE_OK);
		FUZZ_CHECK(n == 0);
		check_same_header(&pkt, &ref);
	} else {
		size_t expect_n = ref.n_events < max_events ? ref.n_events : max_events;

		FUZZ_CHECK(r == (ref.n_events > max_events ? -ENOSPC : 0));
		FUZZ_CHECK(reason == PKTSTATS_DECODE_OK);
		FUZZ_CHECK(n == expect_n && n <= max_events);
		check_same_packet(&pkt, &ref);
		check_packet(&pkt, events, n);
		for (size_t i = 0; i < n; i++)
			FUZZ_CHECK(memcmp(&events[i], &ref_events[i], sizeof(events[i])) == 0);
	}

	/* Summary mode: the same verdict (never -ENOSPC) and the same packet, no events. */
	if (default_api)
		r_sum = pktstats_decode_payload(payload, len, &sum, NULL, max_events, &n_sum,
						&sum_reason);
	else
		r_sum = pktstats_decode_payload_ex(payload, len, &opt, &sum, NULL, max_events,
						   &n_sum, &sum_reason);
	FUZZ_CHECK(r_sum == ref_r);
	FUZZ_CHECK(sum_reason == ref_reason);
	FUZZ_CHECK(n_sum == 0);
	if (ref_r == 0) {
		check_same_packet(&sum, &ref);
		check_packet(&sum, NULL, 0);
		/* summary counts equal full-mode counts for the same input */
		FUZZ_CHECK(sum.n_events == pkt.n_events && sum.n_timestamps == pkt.n_timestamps);
	} else {
		check_same_header(&sum, &ref);
	}

	/* The optional outputs may be NULL. */
	if (!default_api) {
		r = pktstats_decode_payload_ex(payload, len, &opt, &pkt, events, max_events, NULL,
					       NULL);
		FUZZ_CHECK(r == (ref_r ? ref_r : ref.n_events > max_events ? -ENOSPC : 0));
	}
	free(events);
	free(ref_events);
}

/* FNV-1a: varies the earlier packet with the input, reproducibly. */
static uint64_t hash(const uint8_t *p, size_t n)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * UINT64_C(0x100000001b3);
	return h;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/*
 * A valid version 2 packet to add before the input, so that the input meets a summary that
 * already holds something: its start is before the input's start (a gap), equal to it, or
 * after it (time went back); each queue size is below, equal to or above the input's (the
 * maximum is beaten or not); two events (an arrival and a departure on queues from the hash).
 * Returns its length (38 + 4 slots).
 */
static size_t earlier_packet(const uint8_t *payload, size_t len, bool accept_v1, unsigned v1_res,
			     uint8_t out[54])
{
	const uint64_t h = hash(payload, len);
	const bool v1 = len > 0 && (payload[0] & 15) == 1 && accept_v1;
	const size_t header = v1 ? 70 : 38;
	uint64_t start = 0;
	unsigned c = (unsigned)(h & 7);

	memset(out, 0, 54);
	/* the input's resolution and first timestamp, where it has them */
	if (len >= header + 8 && (h >> 3 & 3) != 0) {
		c = v1 ? v1_res : (payload[0] >> 4) & 7;
		start = (uint64_t)(ref_be32(payload + header) & 0x3fffffff) << 32 |
			ref_be32(payload + header + 4);
	}
	switch (h >> 5 & 3) {
	case 0: start = start > 1000 ? start - 1000 : 0; break;  /* before: a gap */
	case 1: break;                                           /* the same start */
	case 2: start = (start + (h >> 8 & 0xffff)) & REF_MASK62; break; /* after */
	default: start = h >> 2 & REF_MASK62; break;             /* anywhere */
	}
	out[0] = (uint8_t)(c << 4 | 2);
	out[1] = 3;
	for (unsigned q = 0; q < 8; q++) {
		uint32_t size = 0;

		if (len >= header)
			size = v1 ? ref_be32(payload + 6 + 8 * q) : ref_be32(payload + 6 + 4 * q);
		switch (h >> (24 + 2 * q) & 3) {
		case 0: /* below: the input's size beats it */
			if (size > 0)
				size--;
			break;
		case 1: /* equal: not beaten (strictly greater replaces) */
			break;
		case 2: /* above */
			if (size < UINT32_MAX)
				size++;
			break;
		default:
			size = (uint32_t)(h >> 40);
			break;
		}
		put_be32(out + 6 + 4 * q, size);
	}
	put_be32(out + 38, (uint32_t)(start >> 32));
	put_be32(out + 42, (uint32_t)start);
	/* arrival (01), queue, length, gap; then a departure (10) */
	put_be32(out + 46, 1u << 30 | (unsigned)(h >> 40 & 7) << 27 |
			   (unsigned)(h >> 43 & 255) << 19 | (unsigned)(h >> 51 & 0x1fff));
	put_be32(out + 50, 2u << 30 | (unsigned)(h >> 44 & 7) << 27 |
			   (unsigned)(h >> 47 & 255) << 19 | (unsigned)(h >> 55 & 0x1ff));
	return 54;
}

/* pktstats_decode_payload_summary() adding the payload to `sum`, against the reference adding
 * it to `ref`; a malformed payload leaves `sum` exactly as it was. */
static void check_summary_add(const uint8_t *payload, size_t len,
			      const struct pktstats_decode_options *opt,
			      struct pktstats_summary *sum, struct ref_summary *ref)
{
	struct pktstats_summary before = *sum;
	struct pktstats_packet pkt, ref_pkt;
	enum pktstats_decode_error reason, ref_reason;
	int r, ref_r;

	ref_r = ref_summary_add(payload, len, opt->accept_v1, opt->v1_resolution, ref, &ref_pkt,
				&ref_reason);
	r = pktstats_decode_payload_summary(payload, len, opt, &pkt, sum, &reason);
	FUZZ_CHECK(r == ref_r);
	FUZZ_CHECK(reason == ref_reason);
	if (r == 0) {
		check_same_packet(&pkt, &ref_pkt);
		check_packet(&pkt, NULL, 0);
	} else {
		check_same_header(&pkt, &ref_pkt);
		FUZZ_CHECK(memcmp(sum, &before, sizeof(before)) == 0);
	}
	ref_summary_check(sum, ref);
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		const double mean = pktstats_summary_mean(sum, q);

		FUZZ_CHECK(sum->span_ns ? mean == sum->queues[q].integral / (double)sum->span_ns
					: mean == 0.0);
	}
}

static void check_summaries(const uint8_t *payload, size_t len, bool accept_v1, unsigned v1_res)
{
	const struct pktstats_decode_options opt = {.accept_v1 = accept_v1,
						    .v1_resolution = (uint8_t)v1_res};
	struct pktstats_summary sum;
	struct ref_summary ref;
	struct pktstats_packet pkt;
	enum pktstats_decode_error reason = PKTSTATS_DECODE_TRUNCATED;
	uint8_t earlier[54];
	size_t n;

	/* The first packet of a summary. */
	memset(&sum, 0, sizeof(sum));
	memset(&ref, 0, sizeof(ref));
	check_summary_add(payload, len, &opt, &sum, &ref);

	/* After an earlier packet, then once more. */
	memset(&sum, 0, sizeof(sum));
	memset(&ref, 0, sizeof(ref));
	n = earlier_packet(payload, len, accept_v1, v1_res, earlier);
	check_summary_add(earlier, n, &opt, &sum, &ref);
	FUZZ_CHECK(sum.packets == 1);
	check_summary_add(payload, len, &opt, &sum, &ref);
	check_summary_add(payload, len, &opt, &sum, &ref);

	/* The summary is required. */
	FUZZ_CHECK(pktstats_decode_payload_summary(payload, len, &opt, &pkt, NULL, &reason) ==
		   -EINVAL);
	FUZZ_CHECK(reason == PKTSTATS_DECODE_OK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pktstats_decode_options bad = {.accept_v1 = true, .v1_resolution = 8};
	struct pktstats_packet pkt;

	if (size < 1)
		return 0;
	const bool accept_v1 = data[0] & 1;
	const unsigned v1_res = (data[0] >> 1) & 7;
	const size_t max_events = fuzz_max_events_table[data[0] >> 4];
	const uint8_t *payload = data + 1;
	const size_t len = size - 1;

	check_one(payload, len, accept_v1, v1_res, max_events, false);
	check_summaries(payload, len, accept_v1, v1_res);
	/* pktstats_decode_payload() is _ex with the defaults (accept_v1, c = 0) */
	if (accept_v1 && v1_res == 0)
		check_one(payload, len, true, 0, max_events, true);
	/* an out-of-range option is refused before the input is looked at */
	FUZZ_CHECK(pktstats_decode_payload_ex(payload, len, &bad, &pkt, NULL, 0, NULL, NULL) ==
		   -EINVAL);
	return 0;
}
