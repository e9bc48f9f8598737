/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: one frame as `pktstats dm`, `pktstats oam decode` and pktstats-exporter's DM
 * sessions receive it, through the Y.1731 ETH-DM parser (pktstats_dm_parse,
 * sw/driver/src/oam_frame.c), the probes' reply matching (dm_probe_match, dm_probe_numbers,
 * dm_probe_one_way_delay: sw/tools/pktstats/oam_probe.c) and the delays of a parsed frame
 * (pktstats_dm_delays).
 *
 * Input: the frame's bytes (seeded with DMRs and 1DMs two simulated switches stamped, their
 * Data TLV holding FUZZ_DM_SESSION and a sequence number as the probes write it:
 * tb/fuzz/make_corpus.py). Checked, abort() on a break:
 *   - the parser returns 0 with a named error; NOT_OAM leaves every field but the MACs zero;
 *   - a frame that parses holds what docs/oam.md allows: opcode 1DM, DMR or DMM, version 0
 *     or 1, every stamp's nanoseconds below 10^9, a 1DM's backward stamps 0, its TLVs after
 *     its stamps (the TLV offset at least 16 for a 1DM, 32 for a DMM or DMR), the Data TLV
 *     inside the frame;
 *   - built again (pktstats_dm_build) it parses to the same frame, Data TLV included;
 *   - the frame cut at a point the input chooses parses, if at all, to the same header and
 *     stamps, and fails only for its length (NOT_OAM, TRUNCATED, BAD_TLV);
 *   - the reply: DM_PROBE_OTHER exactly for other frames and DMMs, 1DMs; MATCHED only for a
 *     DMR that parses with this session in its Data TLV, the sequence read from it;
 *   - delays: -ENODATA exactly when a stamp is 0; two-way = forward + backward (modulo the
 *     2^32 s of the stamps); a 1DM's one-way delay RxTimef - TxTimeStampf;
 *   - no read beyond the frame (ASan: exactly sized copies).
 */
#include <stdlib.h>
#include <string.h>

#include "oam_probe.h"
#include "pktstats/oam.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_DM_SESSION 0x706b7473u /* "pkts": the session of the seeds' DMMs */
/* The header fields and the stamps */
static bool same_fields(const struct pktstats_dm_frame *a, const struct pktstats_dm_frame *b)
{
	return !memcmp(a->destination, b->destination, 6) && !memcmp(a->source, b->source, 6) &&
	       a->tagged == b->tagged && a->vlan_tci == b->vlan_tci && a->level == b->level &&
	       a->version == b->version && a->opcode == b->opcode && a->flags == b->flags &&
	       fuzz_stamp_same(a->tx_timestamp_f, b->tx_timestamp_f) &&
	       fuzz_stamp_same(a->rx_timestamp_f, b->rx_timestamp_f) &&
	       fuzz_stamp_same(a->tx_timestamp_b, b->tx_timestamp_b) &&
	       fuzz_stamp_same(a->rx_timestamp_b, b->rx_timestamp_b);
}

static enum pktstats_oam_error parse(const uint8_t *frame, size_t n, struct pktstats_dm_frame *dm)
{
	enum pktstats_oam_error error = (enum pktstats_oam_error)-1;

	FUZZ_CHECK(pktstats_dm_parse(frame, n, dm, &error) == 0);
	FUZZ_CHECK(strcmp(pktstats_oam_error_name(error), "unknown") != 0);
	return error;
}

/* A frame that parsed: its fields, the frame built again, the delays */
static void check_parsed(const struct pktstats_dm_frame *dm, const uint8_t *frame, size_t size)
{
	const size_t fixed = dm->opcode == PKTSTATS_DM_OPCODE_1DM ? 16 : 32;
	const uint8_t *tlvs = frame + (dm->tagged ? 18 : 14) + 4 + fixed;

	FUZZ_CHECK(dm->opcode == PKTSTATS_DM_OPCODE_1DM || dm->opcode == PKTSTATS_DM_OPCODE_DMR ||
		   dm->opcode == PKTSTATS_DM_OPCODE_DMM);
	FUZZ_CHECK(dm->level <= 7 && dm->version <= 1);
	FUZZ_CHECK(fuzz_stamp_valid(dm->tx_timestamp_f) && fuzz_stamp_valid(dm->rx_timestamp_f) &&
		   fuzz_stamp_valid(dm->tx_timestamp_b) && fuzz_stamp_valid(dm->rx_timestamp_b));
	FUZZ_CHECK(fixed == 32 ||
		   (fuzz_stamp_zero(dm->tx_timestamp_b) && fuzz_stamp_zero(dm->rx_timestamp_b)));
	FUZZ_CHECK(dm->tlv_offset >= fixed);
	FUZZ_CHECK(dm->data_tlv || !dm->data_tlv_length);
	if (dm->data_tlv)
		FUZZ_CHECK(dm->data_tlv >= tlvs + 3 &&
			   dm->data_tlv + dm->data_tlv_length <= frame + size);

	/* built again: the default TLV offset, the first Data TLV only, padded */
	static uint8_t built[65536 + 128];
	struct pktstats_dm_frame b = *dm, again;
	b.tlv_offset = 0;
	int n = pktstats_dm_build(&b, built, sizeof built);
	FUZZ_CHECK(n >= PKTSTATS_OAM_MIN_FRAME);
	uint8_t *copy = fuzz_copy(built, (size_t)n);
	FUZZ_CHECK(parse(copy, (size_t)n, &again) == PKTSTATS_OAM_OK && same_fields(dm, &again));
	FUZZ_CHECK(again.tlv_offset == fixed);
	if (dm->data_tlv_length)
		FUZZ_CHECK(again.data_tlv_length == dm->data_tlv_length &&
			   !memcmp(again.data_tlv, dm->data_tlv, dm->data_tlv_length));
	free(copy);

	if (dm->opcode == PKTSTATS_DM_OPCODE_1DM) {
		int64_t delay;
		bool complete = dm_probe_one_way_delay(dm, &delay);
		FUZZ_CHECK(complete == (!fuzz_stamp_zero(dm->tx_timestamp_f) &&
					!fuzz_stamp_zero(dm->rx_timestamp_f)));
		FUZZ_CHECK(fuzz_stamp_diff_is(delay, dm->rx_timestamp_f, dm->tx_timestamp_f));
		return;
	}
	struct pktstats_dm_delays d;
	int err = pktstats_dm_delays(dm, &d);
	bool any_zero = fuzz_stamp_zero(dm->tx_timestamp_f) ||
			fuzz_stamp_zero(dm->rx_timestamp_f) ||
			fuzz_stamp_zero(dm->tx_timestamp_b) ||
			fuzz_stamp_zero(dm->rx_timestamp_b);
	FUZZ_CHECK(err == (any_zero ? -ENODATA : 0));
	FUZZ_CHECK(((__int128)d.two_way - d.forward - d.backward) % FUZZ_STAMP_RANGE == 0);
	FUZZ_CHECK(fuzz_stamp_diff_is(d.forward, dm->rx_timestamp_f, dm->tx_timestamp_f));
	FUZZ_CHECK(fuzz_stamp_diff_is(d.backward, dm->rx_timestamp_b, dm->tx_timestamp_b));
	FUZZ_CHECK(fuzz_stamp_diff_is(d.responder, dm->tx_timestamp_b, dm->rx_timestamp_f));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *frame = fuzz_copy(data, size);
	struct pktstats_dm_frame dm, matched, cut;
	enum pktstats_oam_error error = parse(frame, size, &dm);

	if (error == PKTSTATS_OAM_NOT_OAM)
		FUZZ_CHECK(!dm.tagged && !dm.vlan_tci && !dm.opcode && !dm.level && !dm.version &&
			   !dm.tlv_offset && !dm.data_tlv);
	if (error == PKTSTATS_OAM_OK)
		check_parsed(&dm, frame, size);

	/* the reply, as the probes see it */
	uint32_t sequence = 0;
	enum dm_probe_reply reply =
		dm_probe_match(frame, size, FUZZ_DM_SESSION, &matched, &sequence);
	FUZZ_CHECK(same_fields(&matched, &dm) && matched.tlv_offset == dm.tlv_offset &&
		   matched.data_tlv == dm.data_tlv &&
		   matched.data_tlv_length == dm.data_tlv_length);
	const bool dmr = error != PKTSTATS_OAM_NOT_OAM && dm.opcode == PKTSTATS_DM_OPCODE_DMR;
	const bool ours = error == PKTSTATS_OAM_OK && dm.data_tlv_length >= 8 &&
			  ref_be32(dm.data_tlv) == FUZZ_DM_SESSION;
	FUZZ_CHECK(reply == (!dmr ? DM_PROBE_OTHER : ours ? DM_PROBE_MATCHED : DM_PROBE_UNMATCHED));
	if (reply == DM_PROBE_MATCHED)
		FUZZ_CHECK(sequence == ref_be32(dm.data_tlv + 4));

	/* cut short: fails for its length only, or parses to the same header and stamps */
	if (size > 0 && error == PKTSTATS_OAM_OK) {
		size_t n = size - 1 - frame[size - 1] % size;
		uint8_t *part = fuzz_copy(frame, n);
		enum pktstats_oam_error e = parse(part, n, &cut);
		FUZZ_CHECK(e == PKTSTATS_OAM_OK || e == PKTSTATS_OAM_NOT_OAM ||
			   e == PKTSTATS_OAM_TRUNCATED || e == PKTSTATS_OAM_BAD_TLV);
		FUZZ_CHECK(e != PKTSTATS_OAM_OK ||
			   (same_fields(&dm, &cut) && cut.tlv_offset == dm.tlv_offset));
		free(part);
	}
	free(frame);
	return 0;
}
