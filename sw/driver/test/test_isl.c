/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TAP test of libpktstats' ISL code (src/isl.c, src/isl_frame.c, pktstats/isl.h):
 *   - OpenKilda's decision maker against seed 000's table, every pair of switches: the six rows
 *     as the seed writes them, and the three pairs the table reaches only through its "?" row,
 *     each with the seed's reason; the seven pairs it rules out (copy field without group); bad
 *     arguments;
 *   - the discovery packet: pktstats_isl_build against the byte map of docs/isl.md (every fixed
 *     offset, both checksums computed here), against a frame of tb/common/isl_frames.py (the
 *     independent Python implementation), and pktstats_isl_parse on it and on frames that are
 *     no discovery packet or malformed ones;
 *   - the signature token: pktstats_isl_sign and pktstats_isl_verify against tokens signed by
 *     isl_frames.py, and RFC 7515 appendix A.1's HS256 example.
 */
#include "pktstats/isl.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "test_device_tap.h"

/* A switch: copy field and group (C), group only (G), neither (N) */
static const struct pktstats_isl_features C = {true, true}, G = {false, true}, N = {false, false};

static void test_decide(void)
{
	static const struct {
		const struct pktstats_isl_features *source, *destination;
		enum pktstats_isl_action want;
		const char *why;
	} cases[] = {
		{&C, &C, PKTSTATS_ISL_DROP_DISCOVERY, "row 1: both will receive RTL packets"},
		{&C, &G, PKTSTATS_ISL_DROP_DISCOVERY,
		 "row 2: the source stamps, the destination reflects: the source gets RTL packets"},
		{&G, &C, PKTSTATS_ISL_COPY_REVERSE_RTL,
		 "row 3: only the destination gets RTL packets: copy the reverse ISL's"},
		{&N, &C, PKTSTATS_ISL_USE_ONE_WAY, "row 4: the source can neither stamp nor reflect"},
		{&C, &N, PKTSTATS_ISL_USE_ONE_WAY, "row 5: the destination can neither stamp nor reflect"},
		{&G, &G, PKTSTATS_ISL_USE_ONE_WAY, "row 6 (- ? - ?): neither stamps, group on both"},
		{&G, &N, PKTSTATS_ISL_USE_ONE_WAY, "row 6 (- ? - ?): neither stamps, group on the source"},
		{&N, &G, PKTSTATS_ISL_USE_ONE_WAY,
		 "row 6 (- ? - ?): neither stamps, group on the destination"},
		{&N, &N, PKTSTATS_ISL_USE_ONE_WAY, "row 6 (- ? - ?): neither switch has either feature"},
	};
	tap_diag("seed 000's table: %zu pairs of switches it allows (C: copy field and group, "
		 "G: group, N: neither)", sizeof cases / sizeof cases[0]);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		enum pktstats_isl_action action = 0;
		int err = pktstats_isl_decide(cases[i].source, cases[i].destination, &action);
		tap_ok(err == 0 && action == cases[i].want, "%s: %s", cases[i].why,
		       err == 0 ? pktstats_isl_action_name(action) : strerror(-err));
	}

	/* Copy field without group, on either side or both: ruled out by the seed */
	const struct pktstats_isl_features copy_only = {true, false};
	const struct pktstats_isl_features *sides[] = {&C, &G, &N, &copy_only};
	unsigned refused = 0, pairs = 0;
	for (size_t s = 0; s < 4; s++)
		for (size_t d = 0; d < 4; d++) {
			if (sides[s] != &copy_only && sides[d] != &copy_only)
				continue;
			enum pktstats_isl_action action = 0;
			pairs++;
			refused += pktstats_isl_decide(sides[s], sides[d], &action) == -EINVAL;
		}
	tap_ok(pairs == 7 && refused == 7,
	       "a switch with copy field but no group is refused (-EINVAL): %u of %u pairs", refused,
	       pairs);

	enum pktstats_isl_action action;
	tap_ok(pktstats_isl_decide(NULL, &C, &action) == -EINVAL &&
		       pktstats_isl_decide(&C, NULL, &action) == -EINVAL &&
		       pktstats_isl_decide(&C, &C, NULL) == -EINVAL,
	       "NULL arguments: -EINVAL");
	tap_ok(!strcmp(pktstats_isl_action_name(PKTSTATS_ISL_DROP_DISCOVERY), "drop-discovery") &&
		       !strcmp(pktstats_isl_action_name(PKTSTATS_ISL_COPY_REVERSE_RTL),
			       "copy-reverse-rtl") &&
		       !strcmp(pktstats_isl_action_name(PKTSTATS_ISL_USE_ONE_WAY), "use-one-way") &&
		       pktstats_isl_action_name(0) == NULL,
	       "action names; NULL for a value that is no action");
}

/* ------------------------------------------------------------------------------------------ */
/* The discovery packet */

/* The fixed inputs: switch 0x0000020000000001, port 2, 10.0.0.1, 1700000000123 ms */
#define DPID UINT64_C(0x0000020000000001)
#define PORT 2
#define SOURCE_IP 0x0a000001u
#define TIMESTAMP_MS INT64_C(1700000000123)
#define PACKET_ID 7
static const uint8_t secret[] = "pktstats-test-secret";
#define SECRET_LENGTH (sizeof secret - 1)

/*
 * The whole frame, from the independent Python implementation (generated once):
 *   tb/common/isl_frames.py: discovery(0x0000020000000001, 2, bytes([10, 0, 0, 1]),
 *       1700000000123, secret=b"pktstats-test-secret", packet_id=7)
 * with its defaults: destination 00:26:e1:ff:ff:ff, 192.168.0.255, port 61231, T0 = T1 = 0,
 * source MAC and chassis ID = the datapath ID's bytes 2..7, IPv4 identification 0.
 */
static const uint8_t python_frame[] = {
	0x00, 0x26, 0xe1, 0xff, 0xff, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x00, 0x45, 0x00, 0x01, 0x09, 0x00, 0x00, 0x00, 0x00, 0x40, 0x11,
	0xae, 0x3c, 0x0a, 0x00, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xff, 0xef, 0x2f,
	0xef, 0x2f, 0x00, 0xf5, 0xa3, 0x42, 0x02, 0x07, 0x04, 0x02, 0x00, 0x00,
	0x00, 0x00, 0x01, 0x04, 0x03, 0x02, 0x00, 0x02, 0x06, 0x02, 0x00, 0x78,
	0xfe, 0x0c, 0x00, 0x26, 0xe1, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0xfe, 0x0c, 0x00, 0x26, 0xe1, 0x05, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xfe, 0x0c, 0x00, 0x26, 0xe1, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0xfe, 0x0c, 0x00, 0x26, 0xe1, 0x01,
	0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x7b, 0xfe, 0x08, 0x00, 0x26,
	0xe1, 0x02, 0x00, 0x00, 0x00, 0x00, 0xfe, 0x95, 0x00, 0x26, 0xe1, 0x03,
	0x65, 0x79, 0x4a, 0x68, 0x62, 0x47, 0x63, 0x69, 0x4f, 0x69, 0x4a, 0x49,
	0x55, 0x7a, 0x49, 0x31, 0x4e, 0x69, 0x49, 0x73, 0x49, 0x6e, 0x52, 0x35,
	0x63, 0x43, 0x49, 0x36, 0x49, 0x6b, 0x70, 0x58, 0x56, 0x43, 0x4a, 0x39,
	0x2e, 0x65, 0x79, 0x4a, 0x6b, 0x63, 0x47, 0x6c, 0x6b, 0x49, 0x6a, 0x6f,
	0x79, 0x4d, 0x54, 0x6b, 0x35, 0x4d, 0x44, 0x49, 0x7a, 0x4d, 0x6a, 0x55,
	0x31, 0x4e, 0x54, 0x55, 0x7a, 0x4c, 0x43, 0x4a, 0x30, 0x63, 0x79, 0x49,
	0x36, 0x4d, 0x54, 0x63, 0x77, 0x4d, 0x44, 0x41, 0x77, 0x4d, 0x44, 0x41,
	0x77, 0x4d, 0x44, 0x45, 0x79, 0x4d, 0x79, 0x77, 0x69, 0x61, 0x57, 0x51,
	0x69, 0x4f, 0x6a, 0x64, 0x39, 0x2e, 0x77, 0x79, 0x6c, 0x57, 0x69, 0x6d,
	0x4e, 0x74, 0x47, 0x78, 0x43, 0x4e, 0x56, 0x6f, 0x6b, 0x63, 0x68, 0x42,
	0x47, 0x4c, 0x42, 0x38, 0x49, 0x58, 0x6d, 0x4d, 0x45, 0x46, 0x54, 0x38,
	0x41, 0x70, 0x34, 0x75, 0x6c, 0x57, 0x66, 0x4f, 0x39, 0x77, 0x66, 0x44,
	0x67, 0x00, 0x00,
};

/* The token inside python_frame (bytes 132..276): isl_frames.discovery_token(0x0000020000000001,
 * 1700000000123, b"pktstats-test-secret", 7) */
static const char python_token[] =
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
	".eyJkcGlkIjoyMTk5MDIzMjU1NTUzLCJ0cyI6MTcwMDAwMDAwMDEyMywiaWQiOjd9"
	".wylWimNtGxCNVokchBGLB8IXmMEFT8Ap4ulWfO9wfDg";

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void set16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The one's complement sum of the bytes as 16-bit big-endian words (an odd last byte padded
 * with a zero), folded to 16 bits: written here, not taken from the library */
static unsigned ones_sum(const uint8_t *p, size_t n, unsigned long sum)
{
	for (size_t i = 0; i < n; i++)
		sum += (unsigned long)p[i] << (i % 2 ? 0 : 8);
	while (sum > 0xffff)
		sum = (sum & 0xffff) + (sum >> 16);
	return (unsigned)sum;
}

/* The IPv4 header (bytes 14..33) sums to 0xffff with its checksum in it (RFC 1071) */
static bool ip_checksum_ok(const uint8_t *frame)
{
	return ones_sum(frame + 14, 20, 0) == 0xffff;
}

/* Pseudo-header (source and destination IP, protocol 17, UDP length) and the UDP segment sum to
 * 0xffff; a checksum of 0 (none) is not accepted here: the library always computes it */
static bool udp_checksum_ok(const uint8_t *frame, size_t len)
{
	size_t udp_length = be16(frame + 38);
	if (34 + udp_length > len || be16(frame + 40) == 0)
		return false;
	unsigned long sum = ones_sum(frame + 26, 8, 0);
	sum += 17 + udp_length;
	return ones_sum(frame + 34, udp_length, sum) == 0xffff;
}

/* The packet of the fixed inputs, as isl_frames.discovery() writes it; its token signed with
 * pktstats_isl_sign (claims dpid, ts, id) */
static int fixed_packet(struct pktstats_isl_packet *packet)
{
	static const uint8_t destination[6] = PKTSTATS_ISL_DESTINATION;
	static const uint8_t mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	memset(packet, 0, sizeof *packet);
	memcpy(packet->destination, destination, 6);
	memcpy(packet->source, mac, 6);
	memcpy(packet->chassis, mac, 6);
	packet->source_ip = SOURCE_IP;
	packet->destination_ip = PKTSTATS_ISL_DESTINATION_IP;
	packet->port = PORT;
	packet->dpid = DPID;
	packet->timestamp_ms = TIMESTAMP_MS;
	const struct pktstats_isl_claims claims = {(int64_t)DPID, TIMESTAMP_MS, true, PACKET_ID};
	int n = pktstats_isl_sign(secret, SECRET_LENGTH, &claims, packet->token,
				  sizeof packet->token);
	if (n > 0)
		packet->token_length = (size_t)n;
	return n;
}

/* Bytes [at, at + n) of the frame are want; the bytes found are shown when not */
static void expect_bytes(const uint8_t *frame, size_t at, const uint8_t *want, size_t n,
			 const char *what)
{
	if (tap_ok(!memcmp(frame + at, want, n), "byte map: %s at byte %zu", what, at))
		return;
	char got[3 * 16 + 1] = "";
	for (size_t i = 0; i < n && i < 16; i++)
		snprintf(got + 3 * i, 4, " %02x", frame[at + i]);
	tap_diag("found%s", got);
}

static void test_byte_map(void)
{
	struct pktstats_isl_packet packet;
	int n = fixed_packet(&packet);
	tap_ok(n > 0 && strlen(packet.token) == (size_t)n,
	       "pktstats_isl_sign: a token of %d characters, NUL-terminated", n);
	/* T0 and T1 set (OpenKilda's published vector, PathVerificationPacketInTest's T1), so that
	 * their offsets show */
	packet.t0 = (struct pktstats_wire_time){0x075bcd15, 0x3ade68b1};
	packet.t1 = (struct pktstats_wire_time){0x04030201, 0x04030201};
	uint8_t frame[PKTSTATS_ISL_FRAME_MAX];
	int len = pktstats_isl_build(&packet, frame, sizeof frame);
	size_t tn = packet.token_length;
	if (!tap_ok(len == (int)(134 + tn), "pktstats_isl_build: frame of 134 + N = %zu bytes (N = "
		    "%zu), got %d", 134 + tn, tn, len))
		return;

	const uint8_t ipv4[2] = {0x08, 0x00};
	expect_bytes(frame, 0, (const uint8_t[]){0x00, 0x26, 0xe1, 0xff, 0xff, 0xff}, 6,
		     "destination MAC");
	expect_bytes(frame, 6, (const uint8_t[]){0x02, 0x00, 0x00, 0x00, 0x00, 0x01}, 6,
		     "source MAC");
	expect_bytes(frame, 12, ipv4, 2, "EtherType 0x0800");
	expect_bytes(frame, 14, (const uint8_t[]){0x45, 0x00}, 2, "version 4, IHL 5, TOS 0");
	uint8_t total[2] = {(uint8_t)((len - 14) >> 8), (uint8_t)(len - 14)};
	expect_bytes(frame, 16, total, 2, "IPv4 total length = frame length - 14");
	expect_bytes(frame, 18, (const uint8_t[]){0, 0, 0, 0, 64, 17}, 6,
		     "identification 0, no flags, TTL 64, protocol 17");
	expect_bytes(frame, 26, (const uint8_t[]){10, 0, 0, 1, 192, 168, 0, 255}, 8,
		     "source IP 10.0.0.1, destination IP 192.168.0.255");
	expect_bytes(frame, 34, (const uint8_t[]){0xef, 0x2f, 0xef, 0x2f}, 4,
		     "UDP ports 61231 -> 61231");
	uint8_t udp_length[2] = {(uint8_t)((len - 34) >> 8), (uint8_t)(len - 34)};
	expect_bytes(frame, 38, udp_length, 2, "UDP length = frame length - 34");
	expect_bytes(frame, 42, (const uint8_t[]){0x02, 0x07, 4, 0x02, 0, 0, 0, 0, 0x01}, 9,
		     "chassis ID TLV (type 1, length 7, subtype 4, the MAC)");
	expect_bytes(frame, 51, (const uint8_t[]){0x04, 0x03, 2, 0x00, PORT}, 5,
		     "port ID TLV (type 2, length 3, subtype 2, port 2)");
	expect_bytes(frame, 56, (const uint8_t[]){0x06, 0x02, 0x00, 0x78}, 4, "TTL TLV, 120 s");
	expect_bytes(frame, 60, (const uint8_t[]){0xfe, 0x0c, 0x00, 0x26, 0xe1}, 5,
		     "T0 TLV header and OUI");
	expect_bytes(frame, 65, (const uint8_t[]){4}, 1, "T0 subtype 4");
	expect_bytes(frame, PKTSTATS_ISL_T0_OFFSET,
		     (const uint8_t[]){0x07, 0x5b, 0xcd, 0x15, 0x3a, 0xde, 0x68, 0xb1}, 8,
		     "T0 (seconds, nanoseconds)");
	expect_bytes(frame, 74, (const uint8_t[]){0xfe, 0x0c, 0x00, 0x26, 0xe1}, 5,
		     "T1 TLV header and OUI");
	expect_bytes(frame, 79, (const uint8_t[]){5}, 1, "T1 subtype 5");
	expect_bytes(frame, PKTSTATS_ISL_T1_OFFSET,
		     (const uint8_t[]){0x04, 0x03, 0x02, 0x01, 0x04, 0x03, 0x02, 0x01}, 8, "T1");
	expect_bytes(frame, 88, (const uint8_t[]){0xfe, 0x0c, 0x00, 0x26, 0xe1}, 5,
		     "switch ID TLV header and OUI");
	expect_bytes(frame, 93, (const uint8_t[]){0}, 1, "switch ID subtype 0");
	expect_bytes(frame, 94, (const uint8_t[]){0, 0, 0x02, 0, 0, 0, 0, 0x01}, 8,
		     "switch ID (datapath ID, 64 bits)");
	expect_bytes(frame, 102, (const uint8_t[]){0xfe, 0x0c, 0x00, 0x26, 0xe1}, 5,
		     "timestamp TLV header and OUI");
	expect_bytes(frame, 107, (const uint8_t[]){1}, 1, "timestamp subtype 1");
	expect_bytes(frame, 108, (const uint8_t[]){0, 0, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x7b}, 8,
		     "timestamp 1700000000123 ms");
	expect_bytes(frame, 116, (const uint8_t[]){0xfe, 0x08, 0x00, 0x26, 0xe1}, 5,
		     "ordinal TLV header (length 8) and OUI");
	expect_bytes(frame, 121, (const uint8_t[]){2, 0, 0, 0, 0}, 5, "ordinal subtype 2, value 0");
	uint8_t token_tlv[5] = {(uint8_t)(0xfe | (4 + tn) >> 8), (uint8_t)(4 + tn), 0x00, 0x26,
				0xe1};
	expect_bytes(frame, 126, token_tlv, 5, "token TLV header (length 4 + N) and OUI");
	expect_bytes(frame, 131, (const uint8_t[]){3}, 1, "token subtype 3");
	expect_bytes(frame, 132, (const uint8_t *)packet.token, tn, "the token");
	expect_bytes(frame, 132 + tn, (const uint8_t[]){0, 0}, 2, "End of LLDPDU at 132 + N");

	tap_ok(ip_checksum_ok(frame), "IPv4 header checksum valid (0x%04x)", be16(frame + 24));
	tap_ok(udp_checksum_ok(frame, (size_t)len), "UDP checksum valid (0x%04x)",
	       be16(frame + 40));

	packet.round_trip = true;
	len = pktstats_isl_build(&packet, frame, sizeof frame);
	tap_ok(len == (int)(134 + tn) && be16(frame + 34) == PKTSTATS_ISL_UDP_DISCOVERY &&
		       be16(frame + 36) == PKTSTATS_ISL_UDP_ROUND_TRIP &&
		       udp_checksum_ok(frame, (size_t)len),
	       "round_trip: UDP 61231 -> 61232 (%u -> %u), UDP checksum still valid",
	       be16(frame + 34), be16(frame + 36));

	/* OpenKilda's unsigned variant: no token TLV, End at 126 */
	packet.round_trip = false;
	packet.token_length = 0;
	len = pktstats_isl_build(&packet, frame, sizeof frame);
	tap_ok(len == 128 && be16(frame + 126) == 0 && be16(frame + 38) == 128 - 34 &&
		       udp_checksum_ok(frame, (size_t)len) && ip_checksum_ok(frame),
	       "no token: 128 bytes, End of LLDPDU at 126, checksums valid (got %d)", len);

	packet.token_length = PKTSTATS_ISL_TOKEN_MAX + 1;
	int too_long = pktstats_isl_build(&packet, frame, sizeof frame);
	packet.token_length = tn;
	TAP_RC(too_long, -EINVAL, NULL, "build: a token longer than %d: -EINVAL",
	       PKTSTATS_ISL_TOKEN_MAX);
	TAP_RC(pktstats_isl_build(&packet, frame, 133 + tn), -ENOSPC, NULL,
	       "build: a buffer one byte short: -ENOSPC");
	TAP_RC(pktstats_isl_build(NULL, frame, sizeof frame), -EINVAL, NULL,
	       "build: NULL: -EINVAL");
}

static void test_python_vector(void)
{
	struct pktstats_isl_packet packet;
	int n = fixed_packet(&packet);
	tap_ok(n == (int)strlen(python_token) && !strcmp(packet.token, python_token),
	       "pktstats_isl_sign's token = isl_frames.discovery_token's, character for character");
	uint8_t frame[PKTSTATS_ISL_FRAME_MAX];
	int len = pktstats_isl_build(&packet, frame, sizeof frame);
	bool same = len == (int)sizeof python_frame &&
		    !memcmp(frame, python_frame, sizeof python_frame);
	if (!tap_ok(same, "pktstats_isl_build = isl_frames.discovery(), all %zu bytes",
		    sizeof python_frame)) {
		tap_diag("length %d, expected %zu", len, sizeof python_frame);
		for (size_t i = 0; len > 0 && i < (size_t)len && i < sizeof python_frame; i++)
			if (frame[i] != python_frame[i])
				tap_diag("byte %zu: 0x%02x, Python 0x%02x", i, frame[i],
					 python_frame[i]);
	}
	tap_ok(ip_checksum_ok(python_frame) && udp_checksum_ok(python_frame, sizeof python_frame),
	       "the Python frame's checksums are valid by this test's own sum too");
}

static void test_parse(void)
{
	struct pktstats_isl_packet in, out;
	fixed_packet(&in);
	in.t0 = (struct pktstats_wire_time){0x01020304, 0x01020304};
	in.t1 = (struct pktstats_wire_time){0x04030201, 0x04030201};
	in.ordinal = 1;
	in.round_trip = true;
	uint8_t frame[PKTSTATS_ISL_FRAME_MAX];
	int len = pktstats_isl_build(&in, frame, sizeof frame);
	const char *reason = "unset";
	int err = pktstats_isl_parse(frame, (size_t)len, &out, &reason);
	TAP_RC(err, 0, reason, "parse of a built frame: 0");
	tap_ok(err == 0 && !memcmp(out.destination, in.destination, 6) &&
		       !memcmp(out.source, in.source, 6) && out.source_ip == in.source_ip &&
		       out.destination_ip == in.destination_ip && out.round_trip &&
		       !memcmp(out.chassis, in.chassis, 6) && out.port == in.port &&
		       out.t0.seconds == in.t0.seconds && out.t0.nanoseconds == in.t0.nanoseconds &&
		       out.t1.seconds == in.t1.seconds && out.t1.nanoseconds == in.t1.nanoseconds &&
		       out.dpid == DPID && out.timestamp_ms == TIMESTAMP_MS && out.ordinal == 1 &&
		       out.token_length == in.token_length && !strcmp(out.token, in.token),
	       "parse gives back every field (MACs, IPs, round trip, chassis, port, T0, T1, dpid, "
	       "timestamp, ordinal, token)");
	tap_ok(reason == NULL, "no reason on success");

	/* The Python frame parses, and its token verifies under the secret */
	err = pktstats_isl_parse(python_frame, sizeof python_frame, &out, &reason);
	struct pktstats_isl_claims claims = {0, 0, false, 0};
	int verified = err ? err : pktstats_isl_verify(secret, SECRET_LENGTH, out.token,
						       out.token_length, &claims);
	tap_ok(err == 0 && !out.round_trip && out.dpid == DPID && out.port == PORT &&
		       out.timestamp_ms == TIMESTAMP_MS && out.source_ip == SOURCE_IP &&
		       verified == 0 && claims.dpid == (int64_t)DPID && claims.ts == TIMESTAMP_MS &&
		       claims.have_id && claims.id == PACKET_ID,
	       "the Python frame parses (dpid, port, timestamp, IP) and its token verifies: dpid, "
	       "ts, id 7 (parse %d, verify %d)", err, verified);

	/* Not a discovery packet: -ENOMSG */
	uint8_t arp[42] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x06,
			   0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01};
	TAP_RC(pktstats_isl_parse(arp, sizeof arp, &out, &reason), -ENOMSG, reason,
	       "an ARP frame: -ENOMSG");
	uint8_t copy[PKTSTATS_ISL_FRAME_MAX];
	memcpy(copy, frame, (size_t)len);
	copy[23] = 6;
	TAP_RC(pktstats_isl_parse(copy, (size_t)len, &out, &reason), -ENOMSG, reason,
	       "a TCP frame (protocol 6): -ENOMSG");
	memcpy(copy, frame, (size_t)len);
	set16(copy + 36, 53);
	TAP_RC(pktstats_isl_parse(copy, (size_t)len, &out, &reason), -ENOMSG, reason,
	       "UDP 61231 -> 53: -ENOMSG");
	memcpy(copy, frame, (size_t)len);
	set16(copy + 34, 53);
	TAP_RC(pktstats_isl_parse(copy, (size_t)len, &out, &reason), -ENOMSG, reason,
	       "UDP 53 -> 61232: -ENOMSG");

	/* The largest nanoseconds a stamp has */
	memcpy(copy, frame, (size_t)len);
	memcpy(copy + 70, "\x3b\x9a\xc9\xff", 4);
	memcpy(copy + 84, "\x3b\x9a\xc9\xff", 4);
	err = pktstats_isl_parse(copy, (size_t)len, &out, &reason);
	tap_ok(err == 0 && out.t0.nanoseconds == 999999999 && out.t1.nanoseconds == 999999999,
	       "T0 and T1 with nanoseconds 999 999 999: parsed (%d)", err);

	/* Malformed: -EBADMSG with the reason */
	static const struct {
		const char *what, *reason;
	} bad[] = {
		{"a TLV value cut by the UDP length (switch ID, 6 of its 12 bytes)",
		 "truncated TLV value"},
		{"no End of LLDPDU", "no End"},
		{"the T0 TLV with 7 bytes of stamp (TLV length 11)", "T0 or T1"},
		{"no switch-ID TLV", "no switch ID"},
		{"a chassis ID of subtype 7 (locally assigned)", "chassis ID"},
		{"a UDP length one byte beyond the frame", "UDP length"},
		/* found by tb/fuzz/fuzz_isl.c: such stamps were handed to `isl run` */
		{"T0 with nanoseconds 10^9 (no stamp of a switch)", "nanoseconds not below 10^9"},
		{"T1 with nanoseconds 2^32 - 1", "nanoseconds not below 10^9"},
		{"an IPv4 total length one byte short of the UDP datagram", "IPv4 total length"},
		{"an IPv4 total length one byte beyond the frame", "IPv4 total length"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		size_t n = (size_t)len;
		memcpy(copy, frame, n);
		switch (i) {
		case 0: /* the LLDPDU ends at byte 100, in the switch ID value (94..101) */
			n = 100;
			break;
		case 1: /* the End TLV cut off */
			n -= 2;
			break;
		case 2: /* the last byte of T0 (73) taken out */
			memmove(copy + 73, copy + 74, n - 74);
			n -= 1;
			copy[61] = 11;
			break;
		case 3: /* bytes 88..101 taken out */
			memmove(copy + 88, copy + 102, n - 102);
			n -= 14;
			break;
		case 4:
			copy[44] = 7;
			break;
		case 6: /* T0's nanoseconds at bytes 70..73 */
			memcpy(copy + 70, "\x3b\x9a\xca\x00", 4);
			break;
		case 7: /* T1's at 84..87 */
			memcpy(copy + 84, "\xff\xff\xff\xff", 4);
			break;
		}
		set16(copy + 16, (unsigned)(n - 14));
		set16(copy + 38, (unsigned)(n - 34));
		if (i == 5)
			set16(copy + 38, (unsigned)(n - 34 + 1));
		if (i == 8 || i == 9) /* found by tb/fuzz/fuzz_isl.c, as 6 and 7 */
			set16(copy + 16, (unsigned)(n - 14 + (i == 8 ? -1 : 1)));
		reason = NULL;
		err = pktstats_isl_parse(copy, n, &out, &reason);
		if (!tap_ok(err == -EBADMSG && reason && strstr(reason, bad[i].reason),
			    "%s: -EBADMSG, reason '%s'", bad[i].what, bad[i].reason))
			tap_diag("got %d, reason '%s'", err, reason ? reason : "(null)");
	}
}

/* ------------------------------------------------------------------------------------------ */
/* The signature token */

/* Tokens signed with isl_frames.py (tb/common), generated once with the calls given */
/* jwt_sign({"dpid": java_long(0x8000020000000001), "ts": 1700000000123, "id": 42},
 *          b"another secret") */
static const char python_negative_id[] =
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
	".eyJkcGlkIjotOTIyMzM2OTgzNzgzMTUyMDI1NSwidHMiOjE3MDAwMDAwMDAxMjMsImlkIjo0Mn0"
	".6kJBRgLsZtSX9Lo0siL5-ZF87cCfecy9CQbpJfVhAlo";
/* jwt_sign({"dpid": java_long(0x8000020000000001), "ts": 1700000000123}, b"another secret") */
static const char python_negative[] =
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
	".eyJkcGlkIjotOTIyMzM2OTgzNzgzMTUyMDI1NSwidHMiOjE3MDAwMDAwMDAxMjN9"
	".Bp2B_-9gf_nqjO67L3_GEsvDGcfmPkfrmkQa1O05dfs";
static const uint8_t another_secret[] = "another secret";
#define NEGATIVE_DPID (-INT64_C(9223369837831520255)) /* 0x8000020000000001 as Java's long */

/*
 * Malformed tokens, each signed correctly under "pktstats-test-secret" (HMAC-SHA256 over its
 * first two parts as they stand, computed with Python's hmac), so that only the named defect
 * is wrong. The claims part of jwt_sign({"dpid": 1, "ts": 2}, ...) is eyJkcGlkIjoxLCJ0cyI6Mn0.
 */
static const struct {
	const char *what, *token;
} bad_tokens[] = {
	{"two parts only", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJkcGlkIjoxLCJ0cyI6Mn0"},
	{"a '+' (not base64url) in the claims",
	 "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJkc+lkIjoxLCJ0cyI6Mn0"
	 ".u3BGpWCnU3bjU2nF6WzaZetvU203tKGi0AyGuf0Mv5k"},
	{"claims 'not json'",
	 "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.bm90IGpzb24"
	 ".VvrT-3GzuDdkmL1R9igxHCZJSFQWOgaMZq-ZsQfLdF8"},
	/* jwt_sign({"dpid": 1, "ts": 2}, secret, header={"alg": "none", "typ": "JWT"}) */
	{"alg \"none\"",
	 "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJkcGlkIjoxLCJ0cyI6Mn0"
	 ".eTRXk0XdozWKYIaWHmPz2PIXdyCWuIjz14zlNuwwPww"},
	/* jwt_sign({"dpid": "1", "ts": 2}, secret) */
	{"dpid a string",
	 "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJkcGlkIjoiMSIsInRzIjoyfQ"
	 ".FkgvBSCYNTyiuj1-Bye7B7fvs9Oj0lOgzywWO3iA7bM"},
};

/* RFC 7515 appendix A.1: the HS256 example and its key (JWK "k", base64url, decoded) */
static const char rfc7515_token[] =
	"eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
	".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9p"
	"c19yb290Ijp0cnVlfQ"
	".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
static const uint8_t rfc7515_key[64] = {
	0x03, 0x23, 0x35, 0x4b, 0x2b, 0x0f, 0xa5, 0xbc, 0x83, 0x7e, 0x06, 0x65,
	0x77, 0x7b, 0xa6, 0x8f, 0x5a, 0xb3, 0x28, 0xe6, 0xf0, 0x54, 0xc9, 0x28,
	0xa9, 0x0f, 0x84, 0xb2, 0xd2, 0x50, 0x2e, 0xbf, 0xd3, 0xfb, 0x5a, 0x92,
	0xd2, 0x06, 0x47, 0xef, 0x96, 0x8a, 0xb4, 0xc3, 0x77, 0x62, 0x3d, 0x22,
	0x3d, 0x2e, 0x21, 0x72, 0x05, 0x2e, 0x4f, 0x08, 0xc0, 0xcd, 0x9a, 0xf5,
	0x67, 0xd0, 0x80, 0xa3,
};
/* RFC 7515 A.1's header part as it stands ({"typ":"JWT",\r\n "alg":"HS256"}), then the claims
 * {"dpid":2199023255553,\r\n "ts":1300819380}, signed under RFC 7515 A.1's key with Python's
 * hmac.new(key, first_two_parts, hashlib.sha256) */
static const char rfc7515_header_ours[] =
	"eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
	".eyJkcGlkIjoyMTk5MDIzMjU1NTUzLA0KICJ0cyI6MTMwMDgxOTM4MH0"
	".sLYc4sl5M83orAU-JKnjxalq7xmAKGAriKjd67SWhLw";

/* A character of the token's signature part (the `at`-th) replaced by another letter */
static void flip(char *token, size_t at)
{
	char *signature = strrchr(token, '.') + 1;
	signature[at] = signature[at] == 'A' ? 'B' : 'A';
}

static void test_token(void)
{
	struct pktstats_isl_claims claims;
	char token[PKTSTATS_ISL_TOKEN_MAX + 1];

	/* sign, then verify */
	const struct pktstats_isl_claims mine = {(int64_t)DPID, TIMESTAMP_MS, true, PACKET_ID};
	int n = pktstats_isl_sign(secret, SECRET_LENGTH, &mine, token, sizeof token);
	memset(&claims, 0, sizeof claims);
	int err = pktstats_isl_verify(secret, SECRET_LENGTH, token, (size_t)(n > 0 ? n : 0),
				      &claims);
	TAP_RC(err, 0, NULL, "sign then verify: 0");
	tap_ok(err == 0 && claims.dpid == (int64_t)DPID && claims.ts == TIMESTAMP_MS &&
		       claims.have_id && claims.id == PACKET_ID,
	       "verify gives back the claims: dpid %lld, ts %lld, id %lld", (long long)claims.dpid,
	       (long long)claims.ts, (long long)claims.id);

	const struct pktstats_isl_claims negative = {NEGATIVE_DPID, TIMESTAMP_MS, false, 0};
	n = pktstats_isl_sign(another_secret, sizeof another_secret - 1, &negative, token,
			      sizeof token);
	tap_ok(n > 0 && !strcmp(token, python_negative),
	       "a dpid with its top bit set, no id: the same token as isl_frames.jwt_sign "
	       "(dpid a negative Java long)");
	claims = (struct pktstats_isl_claims){0, 0, true, 99};
	err = pktstats_isl_verify(another_secret, sizeof another_secret - 1, token,
				  (size_t)(n > 0 ? n : 0), &claims);
	tap_ok(err == 0 && claims.dpid == NEGATIVE_DPID && claims.ts == TIMESTAMP_MS &&
		       !claims.have_id && claims.id == 0,
	       "...verifies: dpid %lld (0x%016llx), have_id false (verify %d)",
	       (long long)claims.dpid, (unsigned long long)claims.dpid, err);

	/* Python's tokens verify in C */
	claims = (struct pktstats_isl_claims){0, 0, false, 0};
	err = pktstats_isl_verify(another_secret, sizeof another_secret - 1, python_negative_id,
				  strlen(python_negative_id), &claims);
	tap_ok(err == 0 && claims.dpid == NEGATIVE_DPID && claims.ts == TIMESTAMP_MS &&
		       claims.have_id && claims.id == 42,
	       "a token signed by isl_frames.jwt_sign (negative dpid, id 42) verifies (%d)", err);
	TAP_RC(pktstats_isl_verify(secret, SECRET_LENGTH, python_negative_id,
				   strlen(python_negative_id), &claims),
	       -EACCES, NULL, "...and under another secret: -EACCES");
	TAP_RC(pktstats_isl_verify(secret, SECRET_LENGTH, python_token, strlen(python_token) - 1,
				   &claims),
	       -EBADMSG, NULL, "a token one character short (42 signature characters): -EBADMSG");

	/* The signature: flipped, or over other claims */
	snprintf(token, sizeof token, "%s", python_token);
	flip(token, 10);
	TAP_RC(pktstats_isl_verify(secret, SECRET_LENGTH, token, strlen(token), &claims), -EACCES,
	       NULL, "a character of the signature changed: -EACCES");
	/* isl_frames.jwt_sign({"dpid": 2199023255553, "ts": 1700000000124, "id": 7}, secret)'s
	 * first two parts, then the signature of python_token (ts ...123) */
	snprintf(token, sizeof token, "%s%s",
		 "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
		 ".eyJkcGlkIjoyMTk5MDIzMjU1NTUzLCJ0cyI6MTcwMDAwMDAwMDEyNCwiaWQiOjd9",
		 strrchr(python_token, '.'));
	TAP_RC(pktstats_isl_verify(secret, SECRET_LENGTH, token, strlen(token), &claims), -EACCES,
	       NULL, "ts changed by 1 ms, signature kept: -EACCES");

	for (size_t i = 0; i < sizeof bad_tokens / sizeof bad_tokens[0]; i++)
		TAP_RC(pktstats_isl_verify(secret, SECRET_LENGTH, bad_tokens[i].token,
					   strlen(bad_tokens[i].token), &claims),
		       -EBADMSG, NULL, "%s: -EBADMSG", bad_tokens[i].what);

	/*
	 * RFC 7515 A.1. pktstats_isl_verify checks the signature before it reads the claims: the
	 * example verifies under its key and is then refused for its claims (no dpid: -EBADMSG),
	 * and under another key it is refused for its signature (-EACCES). Its key also verifies
	 * claims of ours signed under it elsewhere (Python), and not once the signature changes.
	 */
	TAP_RC(pktstats_isl_verify(rfc7515_key, sizeof rfc7515_key, rfc7515_token,
				   strlen(rfc7515_token), &claims),
	       -EBADMSG, NULL, "RFC 7515 A.1's token with its key: signature right, -EBADMSG (no dpid claim)");
	TAP_RC(pktstats_isl_verify(secret, SECRET_LENGTH, rfc7515_token, strlen(rfc7515_token),
				   &claims),
	       -EACCES, NULL, "RFC 7515 A.1's token under another key: -EACCES");
	claims = (struct pktstats_isl_claims){0, 0, true, 1};
	err = pktstats_isl_verify(rfc7515_key, sizeof rfc7515_key, rfc7515_header_ours,
				  strlen(rfc7515_header_ours), &claims);
	tap_ok(err == 0 && claims.dpid == (int64_t)DPID && claims.ts == 1300819380 &&
		       !claims.have_id,
	       "RFC 7515 A.1's header and key, our claims signed in Python: verifies (%d)", err);
	/* the signature's last character carries 2 unused bits: set one, and the value is the
	 * same but the text is not canonical base64url; one text per token, so -EBADMSG */
	snprintf(token, sizeof token, "%s", rfc7515_header_ours);
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	char *last = &token[strlen(token) - 1];
	*last = alphabet[(strchr(alphabet, *last) - alphabet) | 1];
	TAP_RC(pktstats_isl_verify(rfc7515_key, sizeof rfc7515_key, token, strlen(token), &claims),
	       -EBADMSG, NULL, "...its last character changed in its unused bits: -EBADMSG (one text per token)");
	snprintf(token, sizeof token, "%s", rfc7515_header_ours);
	flip(token, 0);
	TAP_RC(pktstats_isl_verify(rfc7515_key, sizeof rfc7515_key, token, strlen(token), &claims),
	       -EACCES, NULL, "...its signature's first character changed: -EACCES");

	/* Arguments */
	TAP_RC(pktstats_isl_sign(secret, SECRET_LENGTH, &mine, token, 100), -ENOSPC, NULL,
	       "sign into 100 bytes: -ENOSPC");
	TAP_RC(pktstats_isl_sign(secret, SECRET_LENGTH, NULL, token, sizeof token), -EINVAL, NULL,
	       "sign without claims: -EINVAL");
	TAP_RC(pktstats_isl_verify(secret, SECRET_LENGTH, NULL, 0, &claims), -EINVAL, NULL,
	       "verify without a token: -EINVAL");
}

int main(void)
{
	test_decide();
	test_byte_map();
	test_python_vector();
	test_parse();
	test_token();
	return tap_done();
}
