/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: one frame as `pktstats isl run` receives it on a CPU port's interface, through
 * OpenKilda's discovery packet parser (pktstats_isl_parse, sw/driver/src/isl_frame.c) and, when
 * the packet carries a signature token, its verification under a fixed secret
 * (pktstats_isl_verify), as isl_cmd.c's packet_in() takes every frame.
 *
 * Input: the frame's bytes (seeded with the discovery and round-trip packets of two simulated
 * switches, T0 and T1 written by them: tb/fuzz/make_corpus.py). Checked, abort() on a break:
 *   - 0, -ENOMSG or -EBADMSG, with a reason exactly when -EBADMSG;
 *   - a packet that parses holds what docs/isl.md allows: its UDP datagram within its IPv4
 *     packet, the packet within the frame; T0 and T1 with nanoseconds below 10^9; a
 *     NUL-terminated token of at most PKTSTATS_ISL_TOKEN_MAX bytes;
 *   - built again (pktstats_isl_build) it parses to the same packet, field for field;
 *   - the frame cut at a point the input chooses: with the whole IPv4 packet and UDP datagram
 *     still in it the same result (return value, reason, packet); a packet that parsed never
 *     parses without them;
 *   - the token: fuzz_isl_verify() (tb/fuzz/fuzz_isl.h);
 *   - no read beyond the frame (ASan: exactly sized copies).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_isl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LLDP_AT 42 /* Ethernet, IPv4 without options, UDP */

static bool same_packet(const struct pktstats_isl_packet *a, const struct pktstats_isl_packet *b)
{
	return !memcmp(a->destination, b->destination, 6) && !memcmp(a->source, b->source, 6) &&
	       a->source_ip == b->source_ip && a->destination_ip == b->destination_ip &&
	       a->round_trip == b->round_trip && !memcmp(a->chassis, b->chassis, 6) &&
	       a->port == b->port && fuzz_stamp_same(a->t0, b->t0) &&
	       fuzz_stamp_same(a->t1, b->t1) && a->dpid == b->dpid &&
	       a->timestamp_ms == b->timestamp_ms &&
	       a->ordinal == b->ordinal && a->token_length == b->token_length &&
	       !memcmp(a->token, b->token, a->token_length + 1);
}

/* pktstats_isl_parse of an exactly sized copy of n bytes of frame */
static int parse(const uint8_t *frame, size_t n, struct pktstats_isl_packet *p, const char **why)
{
	uint8_t *copy = fuzz_copy(frame, n);
	*why = "not set";
	int err = pktstats_isl_parse(copy, n, p, why);
	free(copy);
	FUZZ_CHECK(err == 0 || err == -ENOMSG || err == -EBADMSG);
	FUZZ_CHECK(err == -EBADMSG ? *why != NULL : *why == NULL);
	return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pktstats_isl_packet p, again;
	static uint8_t built[PKTSTATS_ISL_FRAME_MAX];
	const char *why, *why2;
	int err = parse(data, size, &p, &why);
	/* where the IPv4 packet (total length: bytes 16..17) and the UDP datagram (38..39) end */
	size_t ip_end = SIZE_MAX, udp_end = SIZE_MAX;
	if (size >= LLDP_AT) {
		ip_end = 14 + ((size_t)data[16] << 8 | data[17]);
		udp_end = 34 + ((size_t)data[38] << 8 | data[39]);
	}

	if (err == 0) {
		/* the UDP datagram within the IPv4 packet, the IPv4 packet within the frame */
		FUZZ_CHECK(udp_end <= ip_end && ip_end <= size);
		FUZZ_CHECK(fuzz_stamp_valid(p.t0) && fuzz_stamp_valid(p.t1));
		FUZZ_CHECK(p.token_length <= PKTSTATS_ISL_TOKEN_MAX);
		FUZZ_CHECK(p.token[p.token_length] == 0);
		int n = pktstats_isl_build(&p, built, sizeof built);
		FUZZ_CHECK(n > LLDP_AT);
		FUZZ_CHECK(parse(built, (size_t)n, &again, &why2) == 0 && same_packet(&p, &again));
		if (p.token_length) {
			struct pktstats_isl_claims claims;
			fuzz_isl_verify(p.token, p.token_length, &claims);
		}
	}

	/* cut at a point the input chooses */
	if (size > 0) {
		const size_t cut = size - 1 - data[size - 1] % size;
		const size_t whole = ip_end > udp_end ? ip_end : udp_end;
		int err2 = parse(data, cut, &again, &why2);
		if (cut >= LLDP_AT && cut >= whole) {
			FUZZ_CHECK(err2 == err && (err != -EBADMSG || !strcmp(why, why2)));
			FUZZ_CHECK(err != 0 || same_packet(&p, &again));
		} else if (err == 0) {
			FUZZ_CHECK(err2 != 0);
		}
	}
	return 0;
}
