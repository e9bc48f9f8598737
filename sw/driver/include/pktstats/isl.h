/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats ISL latency (docs/isl.md), the controller's side of OpenKilda's ISL round trip:
 *   - the discovery packet (Ethernet / IPv4 / UDP 61231 / LLDPDU with OpenKilda's TLVs),
 *     built and parsed byte for byte;
 *   - its signature token, a JWT signed with HMAC-SHA256 (libcrypto; claims read with
 *     jansson);
 *   - OpenKilda's decision maker, which says what to do with the one-way latency a discovery
 *     packet carries, from the features the two switches of the ISL have (seed 000, "Decision
 *     maker service").
 *
 * Conventions as in pktstats/pktstats.h: 0 or a negative errno, nothing printed.
 */
#ifndef PKTSTATS_ISL_H
#define PKTSTATS_ISL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pktstats/oam.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* The discovery packet (docs/isl.md, "Byte map") */

#define PKTSTATS_ISL_UDP_DISCOVERY 61231  /* source port, and destination port of discovery */
#define PKTSTATS_ISL_UDP_ROUND_TRIP 61232 /* destination port of the copy sent back */
#define PKTSTATS_ISL_T0_OFFSET 66         /* untagged frame, byte 0 = destination MAC */
#define PKTSTATS_ISL_T1_OFFSET 80
#define PKTSTATS_ISL_TOKEN_MAX 507        /* the token TLV's 9-bit length, less OUI and subtype */
#define PKTSTATS_ISL_FRAME_MAX (134 + PKTSTATS_ISL_TOKEN_MAX)
/* verification-bcast-packet-dst of OpenKilda's example configuration */
#define PKTSTATS_ISL_DESTINATION {0x00, 0x26, 0xe1, 0xff, 0xff, 0xff}
#define PKTSTATS_ISL_DESTINATION_IP 0xc0a800ffu /* 192.168.0.255 */

struct pktstats_isl_packet {
	uint8_t destination[6];
	uint8_t source[6];
	uint32_t source_ip, destination_ip;   /* first octet in bits 31:24 */
	bool round_trip;                      /* UDP destination port 61232, else 61231 */
	uint8_t chassis[6];                   /* chassis ID TLV, subtype 4 (MAC address) */
	uint16_t port;                        /* port ID TLV, subtype 2 (port component) */
	struct pktstats_wire_time t0, t1;     /* switch A's transmit and receive times */
	uint64_t dpid;                        /* switch ID TLV */
	int64_t timestamp_ms;                 /* controller timestamp TLV */
	int32_t ordinal;                      /* path ordinal TLV: 0 for an ISL */
	char token[PKTSTATS_ISL_TOKEN_MAX + 1]; /* signature token, NUL-terminated */
	size_t token_length;                  /* 0: no token TLV (OpenKilda's unsigned variant) */
};

/*
 * The frame of `packet` into buf (PKTSTATS_ISL_FRAME_MAX bytes are always enough): TLVs in
 * OpenKilda's order, TTL 120 s, IPv4 identification 0 and TTL 64, both checksums computed;
 * never padded. Returns its length, or -EINVAL (NULL, token longer than
 * PKTSTATS_ISL_TOKEN_MAX), -ENOSPC (buf too small).
 */
int pktstats_isl_build(const struct pktstats_isl_packet *packet, uint8_t *buf, size_t size);

/*
 * Reads an untagged frame as OpenKilda's parser does: IPv4 without options, UDP from 61231 to
 * 61231 or 61232, then the TLVs by type, subtype and length (switch ID, timestamp, T0 and T1 of
 * 8 bytes, ordinal of 4), up to End of LLDPDU. Checksums are not checked (a switch that
 * rewrote the packet may have set the UDP checksum to 0). Returns 0; -ENOMSG when the frame is
 * not a discovery packet at all (another EtherType, protocol or port: not an error for a
 * listener); -EBADMSG when it claims to be one but is malformed (a truncated header or TLV, a
 * UDP length beyond the frame, an IPv4 total length short of the UDP datagram or beyond the
 * frame, a chassis or port ID of another subtype or length, T0 or T1
 * with nanoseconds not below 10^9, no End, a mandatory TLV missing: chassis, port, switch ID,
 * timestamp, T0, T1). *reason (when not NULL) says which, in a static string.
 */
int pktstats_isl_parse(const uint8_t *frame, size_t len, struct pktstats_isl_packet *packet,
		       const char **reason);

/* The claims of the signature token (docs/isl.md, "The signature token"). */
struct pktstats_isl_claims {
	int64_t dpid; /* the datapath ID as Java's long */
	int64_t ts;   /* the controller timestamp, ms */
	bool have_id;
	int64_t id;   /* the packet ID */
};

/*
 * A JWT in compact form, header {"alg":"HS256","typ":"JWT"}, claims {"dpid","ts"[,"id"]},
 * signed with HMAC-SHA256 under secret, NUL-terminated into token. Returns its length, or
 * -EINVAL (NULL), -ENOSPC (token too small; PKTSTATS_ISL_TOKEN_MAX + 1 is enough), -EIO
 * (libcrypto failed).
 */
int pktstats_isl_sign(const uint8_t *secret, size_t secret_length,
		      const struct pktstats_isl_claims *claims, char *token, size_t size);

/*
 * Verifies an HS256 token of `length` bytes and reads its claims, in this order: the header
 * (-EBADMSG: not three base64url parts, not a JSON object, alg not HS256), the signature
 * (-EACCES: it does not verify under secret), the claims (-EBADMSG: not a JSON object, dpid or
 * ts missing or not integers, id not an integer). base64url must be canonical (the unused bits
 * of the last character 0), so that a token has one text. 0 when all is well.
 */
int pktstats_isl_verify(const uint8_t *secret, size_t secret_length, const char *token,
			size_t length, struct pktstats_isl_claims *claims);

/* ------------------------------------------------------------------------------------------ */
/* The decision maker */

/* What a switch can do for the round trip (block oam: isl_copy_field, isl_group). */
struct pktstats_isl_features {
	bool copy_field; /* writes T0 and T1 */
	bool group;      /* reflects discovery packets */
};

enum pktstats_isl_action {
	/* Both ends will produce round-trip packets for this direction: the discovery packet's
	 * one-way latency is not needed */
	PKTSTATS_ISL_DROP_DISCOVERY = 1,
	/* Only the reverse ISL gets round-trip packets: take its round trip for this one */
	PKTSTATS_ISL_COPY_REVERSE_RTL,
	/* No round trip will come: use the discovery packet's one-way latency */
	PKTSTATS_ISL_USE_ONE_WAY,
};

/*
 * The action for a discovery packet sent by `source` and received by `destination`, row by
 * row as seed 000's table says. -EINVAL for NULL, and for a switch with copy_field but not
 * group, which the table rules out ("if a switch supports Copy Field action, it supports
 * needed group actions too").
 */
int pktstats_isl_decide(const struct pktstats_isl_features *source,
			const struct pktstats_isl_features *destination,
			enum pktstats_isl_action *action);

/* "drop-discovery", "copy-reverse-rtl", "use-one-way"; NULL for another value. */
const char *pktstats_isl_action_name(enum pktstats_isl_action action);

#ifdef __cplusplus
}
#endif

#endif
