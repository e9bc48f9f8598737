/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: one stat payload through pktstats_decode_payload_ex() and
 * pktstats_decode_payload(), in full mode with a tiny-to-huge event array and in summary mode.
 *
 * Input: byte 0 chooses the options, the rest is the UDP payload.
 *   bit 0      accept_v1
 *   bits 3:1   v1_resolution
 *   bits 7:4   max_events, an index in fuzz_max_events_table (0, 1, 2, ... 16365)
 *
 * Every call is compared with the reference decoder of fuzz_common.h (return value, reason,
 * every packet field, every event written), and the summary-mode and default-options calls
 * with the full-mode one; any difference abort()s. Built with libFuzzer by `make fuzz`, and
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
	/* pktstats_decode_payload() is _ex with the defaults (accept_v1, c = 0) */
	if (accept_v1 && v1_res == 0)
		check_one(payload, len, true, 0, max_events, true);
	/* an out-of-range option is refused before the input is looked at */
	FUZZ_CHECK(pktstats_decode_payload_ex(payload, len, &bad, &pkt, NULL, 0, NULL, NULL) ==
		   -EINVAL);
	return 0;
}
