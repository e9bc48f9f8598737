/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats ISL latency (pktstats/isl.h, docs/isl.md): OpenKilda's discovery packet built
 * and parsed byte for byte, and its signature token (a JWT, HS256). No device: pure functions.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "byte_order.h"
#include "pktstats/isl.h"

#define ETH_HEADER 14
#define IP_HEADER 20
#define UDP_HEADER 8
#define LLDP_AT (ETH_HEADER + IP_HEADER + UDP_HEADER) /* byte 42 */
#define IP_TTL 64
#define LLDP_TTL_SECONDS 120

/* LLDP TLV types, and OpenKilda's subtypes behind its OUI 00:26:E1 */
enum { TLV_END = 0, TLV_CHASSIS_ID = 1, TLV_PORT_ID = 2, TLV_TTL = 3, TLV_ORG = 127 };
enum { SUB_SWITCH_ID = 0, SUB_TIMESTAMP = 1, SUB_ORDINAL = 2, SUB_TOKEN = 3, SUB_T0 = 4,
       SUB_T1 = 5 };
enum { CHASSIS_SUBTYPE_MAC = 4, PORT_SUBTYPE_COMPONENT = 2 };
static const uint8_t oui[3] = {0x00, 0x26, 0xe1};

/* RFC 1071 sum of 16-bit words, folded */
static uint32_t sum16(const uint8_t *p, size_t n, uint32_t sum)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += get16(p + i);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* ------------------------------------------------------------------------------------------ */
/* Building */

/* A TLV header: 7-bit type, 9-bit length */
static uint8_t *tlv(uint8_t *p, unsigned type, size_t length)
{
	put16(p, (uint16_t)(type << 9 | length));
	return p + 2;
}

static uint8_t *org_tlv(uint8_t *p, unsigned subtype, size_t value_length)
{
	p = tlv(p, TLV_ORG, 4 + value_length);
	memcpy(p, oui, 3);
	p[3] = (uint8_t)subtype;
	return p + 4;
}

int pktstats_isl_build(const struct pktstats_isl_packet *packet, uint8_t *buf, size_t size)
{
	if (!packet || !buf || packet->token_length > PKTSTATS_ISL_TOKEN_MAX)
		return -EINVAL;
	/* chassis 9, port 5, TTL 4, T0, T1, switch ID and timestamp 14 each, ordinal 10, token
	 * 6 + N, End 2: 92 + N, the frame 134 + N as docs/isl.md draws it */
	size_t lldp = 9 + 5 + 4 + 4 * 14 + 10 + (packet->token_length ? 6 + packet->token_length : 0) + 2;
	size_t len = LLDP_AT + lldp;
	if (size < len)
		return -ENOSPC;
	memset(buf, 0, len);
	memcpy(buf, packet->destination, 6);
	memcpy(buf + 6, packet->source, 6);
	put16(buf + 12, 0x0800);

	uint8_t *ip = buf + ETH_HEADER;
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(IP_HEADER + UDP_HEADER + lldp));
	ip[8] = IP_TTL;
	ip[9] = 17;
	put32(ip + 12, packet->source_ip);
	put32(ip + 16, packet->destination_ip);
	put16(ip + 10, (uint16_t)~sum16(ip, IP_HEADER, 0));

	uint8_t *udp = ip + IP_HEADER;
	put16(udp, PKTSTATS_ISL_UDP_DISCOVERY);
	put16(udp + 2, packet->round_trip ? PKTSTATS_ISL_UDP_ROUND_TRIP : PKTSTATS_ISL_UDP_DISCOVERY);
	put16(udp + 4, (uint16_t)(UDP_HEADER + lldp));

	uint8_t *p = udp + UDP_HEADER;
	p = tlv(p, TLV_CHASSIS_ID, 7);
	*p++ = CHASSIS_SUBTYPE_MAC;
	memcpy(p, packet->chassis, 6);
	p = tlv(p + 6, TLV_PORT_ID, 3);
	*p++ = PORT_SUBTYPE_COMPONENT;
	put16(p, packet->port);
	p = tlv(p + 2, TLV_TTL, 2);
	put16(p, LLDP_TTL_SECONDS);
	p = org_tlv(p + 2, SUB_T0, 8);
	put32(p, packet->t0.seconds);
	put32(p + 4, packet->t0.nanoseconds);
	p = org_tlv(p + 8, SUB_T1, 8);
	put32(p, packet->t1.seconds);
	put32(p + 4, packet->t1.nanoseconds);
	p = org_tlv(p + 8, SUB_SWITCH_ID, 8);
	put64(p, packet->dpid);
	p = org_tlv(p + 8, SUB_TIMESTAMP, 8);
	put64(p, (uint64_t)packet->timestamp_ms);
	p = org_tlv(p + 8, SUB_ORDINAL, 4);
	put32(p, (uint32_t)packet->ordinal);
	p += 4;
	if (packet->token_length) {
		p = org_tlv(p, SUB_TOKEN, packet->token_length);
		memcpy(p, packet->token, packet->token_length);
		p += packet->token_length;
	}
	tlv(p, TLV_END, 0);

	/* UDP checksum over the pseudo-header; 0 goes out as 0xffff (RFC 768) */
	size_t udp_length = UDP_HEADER + lldp;
	uint32_t sum = sum16(ip + 12, 8, 17 + (uint32_t)udp_length);
	uint16_t check = (uint16_t)~sum16(udp, udp_length, sum);
	put16(udp + 6, check ? check : 0xffff);
	return (int)len;
}

/* ------------------------------------------------------------------------------------------ */
/* Parsing */

static int malformed(const char **reason, const char *why)
{
	if (reason)
		*reason = why;
	return -EBADMSG;
}

int pktstats_isl_parse(const uint8_t *frame, size_t len, struct pktstats_isl_packet *packet,
		       const char **reason)
{
	if (reason)
		*reason = NULL;
	if (!frame || !packet)
		return -EINVAL;
	if (len < ETH_HEADER + IP_HEADER || get16(frame + 12) != 0x0800)
		return -ENOMSG;
	const uint8_t *ip = frame + ETH_HEADER;
	if (ip[0] != 0x45 || ip[9] != 17)
		return -ENOMSG;
	if (len < LLDP_AT)
		return malformed(reason, "truncated UDP header");
	const uint8_t *udp = ip + IP_HEADER;
	uint16_t destination_port = get16(udp + 2);
	if (get16(udp) != PKTSTATS_ISL_UDP_DISCOVERY ||
	    (destination_port != PKTSTATS_ISL_UDP_DISCOVERY &&
	     destination_port != PKTSTATS_ISL_UDP_ROUND_TRIP))
		return -ENOMSG;
	size_t udp_length = get16(udp + 4);
	if (udp_length < UDP_HEADER || ETH_HEADER + IP_HEADER + udp_length > len)
		return malformed(reason, "UDP length beyond the frame");
	size_t ip_length = get16(ip + 2);
	if (ip_length < IP_HEADER + udp_length || ETH_HEADER + ip_length > len)
		return malformed(reason,
				 "IPv4 total length short of the UDP length or beyond the frame");

	memset(packet, 0, sizeof *packet);
	memcpy(packet->destination, frame, 6);
	memcpy(packet->source, frame + 6, 6);
	packet->source_ip = get32(ip + 12);
	packet->destination_ip = get32(ip + 16);
	packet->round_trip = destination_port == PKTSTATS_ISL_UDP_ROUND_TRIP;

	enum { CHASSIS = 1, PORT = 2, SWITCH_ID = 4, TIMESTAMP = 8, T0 = 16, T1 = 32 };
	unsigned seen = 0;
	const uint8_t *p = udp + UDP_HEADER, *end = udp + udp_length;
	for (;;) {
		if (end - p < 2)
			return malformed(reason, "truncated TLV header (no End of LLDPDU)");
		unsigned type = get16(p) >> 9;
		size_t length = get16(p) & 0x1ff;
		const uint8_t *value = p + 2;
		if ((size_t)(end - value) < length)
			return malformed(reason, "truncated TLV value");
		p = value + length;
		if (type == TLV_END)
			break;
		if (type == TLV_CHASSIS_ID) {
			if (length != 7 || value[0] != CHASSIS_SUBTYPE_MAC)
				return malformed(reason, "chassis ID not a MAC address");
			memcpy(packet->chassis, value + 1, 6);
			seen |= CHASSIS;
		} else if (type == TLV_PORT_ID) {
			if (length != 3 || value[0] != PORT_SUBTYPE_COMPONENT)
				return malformed(reason, "port ID not a 16-bit port component");
			packet->port = get16(value + 1);
			seen |= PORT;
		} else if (type == TLV_ORG && length >= 4 && memcmp(value, oui, 3) == 0) {
			const uint8_t *body = value + 4;
			size_t n = length - 4;
			switch (value[3]) {
			case SUB_T0:
			case SUB_T1:
				if (n != 8)
					return malformed(reason, "T0 or T1 not 8 bytes");
				if (get32(body + 4) >= 1000000000u)
					return malformed(reason,
							 "T0 or T1 nanoseconds not below 10^9");
				*(value[3] == SUB_T0 ? &packet->t0 : &packet->t1) =
					(struct pktstats_wire_time){get32(body), get32(body + 4)};
				seen |= value[3] == SUB_T0 ? T0 : T1;
				break;
			case SUB_SWITCH_ID:
				if (n != 8)
					return malformed(reason, "switch ID not 8 bytes");
				packet->dpid = get64(body);
				seen |= SWITCH_ID;
				break;
			case SUB_TIMESTAMP:
				if (n != 8)
					return malformed(reason, "timestamp not 8 bytes");
				packet->timestamp_ms = (int64_t)get64(body);
				seen |= TIMESTAMP;
				break;
			case SUB_ORDINAL:
				if (n != 4)
					return malformed(reason, "ordinal not 4 bytes");
				packet->ordinal = (int32_t)get32(body);
				break;
			case SUB_TOKEN:
				memcpy(packet->token, body, n);
				packet->token[n] = 0;
				packet->token_length = n;
				break;
			}
		}
		/* TTL and other TLVs: skipped, as OpenKilda does */
	}
	if ((seen & (CHASSIS | PORT)) != (CHASSIS | PORT))
		return malformed(reason, "no chassis ID or port ID");
	if ((seen & (SWITCH_ID | TIMESTAMP)) != (SWITCH_ID | TIMESTAMP))
		return malformed(reason, "no switch ID or timestamp");
	if ((seen & (T0 | T1)) != (T0 | T1))
		return malformed(reason, "no T0 or T1");
	return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The signature token */

static const char b64url_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* base64url without padding; returns the length written (out holds 4/3 n + 2) */
static size_t b64url_encode(const uint8_t *in, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < n)
			v |= in[i + 2];
		size_t chars = n - i >= 3 ? 4 : n - i + 1;
		for (size_t k = 0; k < chars; k++)
			out[o++] = b64url_alphabet[(v >> (18 - 6 * k)) & 63];
	}
	return o;
}

/* The bytes of n base64url characters (no padding) into out (3/4 n bytes); -1 when one is
 * not in the alphabet or the length is impossible. */
static long b64url_decode(const char *in, size_t n, uint8_t *out)
{
	if (n % 4 == 1)
		return -1;
	size_t o = 0;
	uint32_t v = 0;
	for (size_t i = 0; i < n; i++) {
		const char *at = in[i] ? strchr(b64url_alphabet, in[i]) : NULL;
		if (!at)
			return -1;
		v = v << 6 | (uint32_t)(at - b64url_alphabet);
		if (i % 4 == 3) {
			out[o++] = (uint8_t)(v >> 16);
			out[o++] = (uint8_t)(v >> 8);
			out[o++] = (uint8_t)v;
			v = 0;
		}
	}
	/* the bits left over must be 0: one text per value (RFC 4648 3.5, canonical encoding) */
	if (n % 4 == 2) {
		if (v & 0xf)
			return -1;
		out[o++] = (uint8_t)(v >> 4);
	} else if (n % 4 == 3) {
		if (v & 0x3)
			return -1;
		out[o++] = (uint8_t)(v >> 10);
		out[o++] = (uint8_t)(v >> 2);
	}
	return (long)o;
}

static int hmac_sha256(const uint8_t *secret, size_t secret_length, const char *data, size_t n,
		       uint8_t mac[32])
{
	unsigned mac_length = 0;
	if (!HMAC(EVP_sha256(), secret, (int)secret_length, (const unsigned char *)data, n, mac,
		  &mac_length) || mac_length != 32)
		return -EIO;
	return 0;
}

int pktstats_isl_sign(const uint8_t *secret, size_t secret_length,
		      const struct pktstats_isl_claims *claims, char *token, size_t size)
{
	static const char header[] = "{\"alg\":\"HS256\",\"typ\":\"JWT\"}";
	if ((!secret && secret_length) || !claims || !token)
		return -EINVAL;
	char body[128];
	int n = claims->have_id
			? snprintf(body, sizeof body, "{\"dpid\":%lld,\"ts\":%lld,\"id\":%lld}",
				   (long long)claims->dpid, (long long)claims->ts,
				   (long long)claims->id)
			: snprintf(body, sizeof body, "{\"dpid\":%lld,\"ts\":%lld}",
				   (long long)claims->dpid, (long long)claims->ts);
	/* header, body and the 32-byte MAC in base64url, two dots, the NUL */
	size_t need = (sizeof header + 2) / 3 * 4 + ((size_t)n + 2) / 3 * 4 + 44 + 3;
	if (size < need)
		return -ENOSPC;
	size_t o = b64url_encode((const uint8_t *)header, sizeof header - 1, token);
	token[o++] = '.';
	o += b64url_encode((const uint8_t *)body, (size_t)n, token + o);
	uint8_t mac[32];
	int err = hmac_sha256(secret, secret_length, token, o, mac);
	if (err < 0)
		return err;
	token[o++] = '.';
	o += b64url_encode(mac, sizeof mac, token + o);
	token[o] = 0;
	return (int)o;
}

/* A base64url part holding a JSON object; NULL when it is neither. */
static json_t *json_part(const char *text, size_t n)
{
	uint8_t decoded[PKTSTATS_ISL_TOKEN_MAX];
	if (n > sizeof decoded)
		return NULL;
	long len = b64url_decode(text, n, decoded);
	if (len < 0)
		return NULL;
	json_t *object = json_loadb((const char *)decoded, (size_t)len, JSON_REJECT_DUPLICATES,
				    NULL);
	if (object && !json_is_object(object)) {
		json_decref(object);
		return NULL;
	}
	return object;
}

int pktstats_isl_verify(const uint8_t *secret, size_t secret_length, const char *token,
			size_t length, struct pktstats_isl_claims *claims)
{
	if ((!secret && secret_length) || !token || !claims)
		return -EINVAL;
	const char *dot1 = memchr(token, '.', length);
	const char *dot2 = dot1 ? memchr(dot1 + 1, '.', length - (size_t)(dot1 + 1 - token)) : NULL;
	if (!dot2 || memchr(dot2 + 1, '.', length - (size_t)(dot2 + 1 - token)))
		return -EBADMSG;
	/* the header first (which algorithm), then the signature, and only then the claims: no
	 * JSON of an unsigned text is read beyond the header */
	json_t *header = json_part(token, (size_t)(dot1 - token)), *body = NULL;
	int err = -EBADMSG;
	if (!header)
		goto out;
	json_t *alg = json_object_get(header, "alg");
	if (!json_is_string(alg) || strcmp(json_string_value(alg), "HS256") != 0)
		goto out;

	uint8_t signature[48], mac[32];
	size_t signature_chars = length - (size_t)(dot2 + 1 - token);
	if (signature_chars != 43 ||
	    b64url_decode(dot2 + 1, signature_chars, signature) != (long)sizeof mac)
		goto out;
	if ((err = hmac_sha256(secret, secret_length, token, (size_t)(dot2 - token), mac)) < 0)
		goto out;
	if (CRYPTO_memcmp(mac, signature, sizeof mac) != 0) {
		err = -EACCES;
		goto out;
	}

	err = -EBADMSG;
	body = json_part(dot1 + 1, (size_t)(dot2 - dot1 - 1));
	json_t *dpid = json_object_get(body, "dpid");
	json_t *ts = json_object_get(body, "ts");
	json_t *id = json_object_get(body, "id");
	if (!json_is_integer(dpid) || !json_is_integer(ts) || (id && !json_is_integer(id)))
		goto out;
	claims->dpid = json_integer_value(dpid);
	claims->ts = json_integer_value(ts);
	claims->have_id = id != NULL;
	claims->id = id ? json_integer_value(id) : 0;
	err = 0;
out:
	json_decref(header);
	json_decref(body);
	return err;
}
