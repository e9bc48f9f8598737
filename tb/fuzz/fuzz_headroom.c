/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: one frame as `pktstats headroom measure`, `pktstats oam decode` and
 * pktstats-exporter's headroom sessions receive it, through the headroom PDU parser
 * (pktstats_headroom_parse, sw/driver/src/oam_frame.c), the probe's reading of what comes
 * back (headroom_probe_take, headroom_probe_complete: sw/tools/pktstats/oam_probe.c), the
 * round trip t4 - t1 - (t3 - t2) and the PFC headroom of it (pktstats_headroom_round_trip,
 * pktstats_pfc_headroom).
 *
 * Input: the frame's bytes (seeded with the responses two simulated switches stamped, t1..t4:
 * tb/fuzz/make_corpus.py). Checked, abort() on a break:
 *   - the parser returns 0 with a named error; NOT_OAM exactly for a frame too short for an
 *     EtherType or of another one;
 *   - a PDU that parses holds what docs/oam.md allows: encapsulation version 0, subtype 1,
 *     version 1, reserved bits 0, a request or a response, 48 bytes, every stamp's
 *     nanoseconds below 10^9; built again (pktstats_headroom_build) its 48 bytes are the
 *     frame's own;
 *   - the frame cut at a point the input chooses: parses only while 48 bytes are left, to the
 *     same PDU;
 *   - the probe takes a response exactly when the PDU parses and is one, and counts as
 *     unexpected exactly the malformed 0x89A2 frames (requests are no surprise);
 *   - the round trip: t4 - t1 - (t3 - t2) modulo the 2^32 s of the stamps; its PFC headroom
 *     (100 Gb/s, the defaults): -ERANGE exactly for a negative round trip or one beyond 2^62
 *     bits, else 100 bits a ns of it, its bytes the bits rounded up;
 *   - no read beyond the frame (ASan: exactly sized copies).
 */
#include <stdlib.h>
#include <string.h>

#include "oam_probe.h"
#include "pktstats/oam.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every field (the frames built from two PDUs that parsed) */
static bool same_pdu(const struct pktstats_headroom_frame *a,
		     const struct pktstats_headroom_frame *b)
{
	uint8_t x[PKTSTATS_OAM_MIN_FRAME], y[PKTSTATS_OAM_MIN_FRAME];

	return pktstats_headroom_build(a, x, sizeof x) == PKTSTATS_OAM_MIN_FRAME &&
	       pktstats_headroom_build(b, y, sizeof y) == PKTSTATS_OAM_MIN_FRAME &&
	       !memcmp(x, y, sizeof x);
}

static enum pktstats_oam_error parse(const uint8_t *frame, size_t n,
				     struct pktstats_headroom_frame *h)
{
	enum pktstats_oam_error error = (enum pktstats_oam_error)-1;

	FUZZ_CHECK(pktstats_headroom_parse(frame, n, h, &error) == 0);
	FUZZ_CHECK(strcmp(pktstats_oam_error_name(error), "unknown") != 0);
	return error;
}

static void check_parsed(const struct pktstats_headroom_frame *h, const uint8_t *frame,
			 size_t size)
{
	FUZZ_CHECK(size >= PKTSTATS_HEADROOM_LENGTH);
	FUZZ_CHECK(h->encapsulation_version == 0 && h->subtype == 1 && h->version == 1 &&
		   h->reserved == 0);
	FUZZ_CHECK(h->type == PKTSTATS_HEADROOM_REQUEST || h->type == PKTSTATS_HEADROOM_RESPONSE);
	FUZZ_CHECK(fuzz_stamp_valid(h->t1) && fuzz_stamp_valid(h->t2) && fuzz_stamp_valid(h->t3) &&
		   fuzz_stamp_valid(h->t4));
	uint8_t built[PKTSTATS_OAM_MIN_FRAME];
	FUZZ_CHECK(pktstats_headroom_build(h, built, sizeof built) == PKTSTATS_OAM_MIN_FRAME);
	FUZZ_CHECK(!memcmp(built, frame, PKTSTATS_HEADROOM_LENGTH));

	int64_t rt = pktstats_headroom_round_trip(h);
	/* rt + (t3 - t2) = t4 - t1 */
	const __int128 responder = fuzz_stamp_ns(h->t3) - fuzz_stamp_ns(h->t2);
	FUZZ_CHECK(fuzz_stamp_diff_is(rt + responder, h->t4, h->t1));
	struct pktstats_pfc_headroom_params params = {
		.rate_mbps = 100000,
		.max_frame = PKTSTATS_PFC_MAX_FRAME_DEFAULT,
		.internal_bits = PKTSTATS_PFC_INTERNAL_BITS_100G,
		.round_trip_ns = rt,
	};
	struct pktstats_pfc_headroom pfc;
	int err = pktstats_pfc_headroom(&params, &pfc);
	/* 100 Gb/s: 100 bits a ns; -ERANGE beyond 2^62 bits */
	const bool in_range = rt >= 0 && (__int128)rt * 100 <= (__int128)1 << 62;
	FUZZ_CHECK(err == (in_range ? 0 : -ERANGE));
	if (err == 0)
		FUZZ_CHECK(pfc.medium_bits == (uint64_t)rt * 100 &&
			   pfc.total_bits == pfc.fixed_bits + pfc.internal_bits + pfc.medium_bits &&
			   pfc.bytes == pfc.total_bits / 8 + (pfc.total_bits % 8 != 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *frame = fuzz_copy(data, size);
	struct pktstats_headroom_frame h, cut;
	enum pktstats_oam_error error = parse(frame, size, &h);

	FUZZ_CHECK((error == PKTSTATS_OAM_NOT_OAM) ==
		   (size < 14 || (frame[12] << 8 | frame[13]) != PKTSTATS_OAM_ETHERTYPE_HEADROOM));
	if (error == PKTSTATS_OAM_OK)
		check_parsed(&h, frame, size);

	/* what the probe makes of it while it waits for its response */
	struct headroom_probe probe = {0};
	bool taken = headroom_probe_take(&probe, frame, size);
	const bool response = error == PKTSTATS_OAM_OK && h.type == PKTSTATS_HEADROOM_RESPONSE;
	const bool request = error == PKTSTATS_OAM_OK && h.type == PKTSTATS_HEADROOM_REQUEST;
	FUZZ_CHECK(taken == response && probe.received == response);
	FUZZ_CHECK(probe.unexpected == (error != PKTSTATS_OAM_NOT_OAM && !response && !request));
	if (taken) {
		FUZZ_CHECK(same_pdu(&probe.response, &h));
		FUZZ_CHECK(headroom_probe_complete(&h) ==
			   (!fuzz_stamp_zero(h.t1) && !fuzz_stamp_zero(h.t2) &&
			    !fuzz_stamp_zero(h.t3) && !fuzz_stamp_zero(h.t4)));
	}

	/* cut short */
	if (size > 0 && error == PKTSTATS_OAM_OK) {
		size_t n = size - 1 - frame[size - 1] % size;
		uint8_t *part = fuzz_copy(frame, n);
		enum pktstats_oam_error e = parse(part, n, &cut);
		FUZZ_CHECK((e == PKTSTATS_OAM_OK) == (n >= PKTSTATS_HEADROOM_LENGTH));
		FUZZ_CHECK(e != PKTSTATS_OAM_OK || same_pdu(&cut, &h));
		FUZZ_CHECK(e == PKTSTATS_OAM_OK || e == PKTSTATS_OAM_NOT_OAM ||
			   e == PKTSTATS_OAM_TRUNCATED);
		free(part);
	}
	free(frame);
	return 0;
}
