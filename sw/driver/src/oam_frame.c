/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats link-delay frames (pktstats/oam.h, docs/oam.md): Y.1731 ETH-DM and the headroom
 * PDU, parsed and built byte for byte; the delays computed from their stamps; the PFC headroom.
 * No device: pure functions.
 */
#include <errno.h>
#include <string.h>

#include "byte_order.h"
#include "pktstats/oam.h"

#define NS_PER_S INT64_C(1000000000)

static struct pktstats_wire_time get_time(const uint8_t *p)
{
	return (struct pktstats_wire_time){get32(p), get32(p + 4)};
}

static void put_time(uint8_t *p, struct pktstats_wire_time t)
{
	put32(p, t.seconds);
	put32(p + 4, t.nanoseconds);
}

static bool time_valid(struct pktstats_wire_time t)
{
	return t.nanoseconds < (uint32_t)NS_PER_S;
}

static bool time_zero(struct pktstats_wire_time t)
{
	return t.seconds == 0 && t.nanoseconds == 0;
}

int64_t pktstats_wire_time_diff(struct pktstats_wire_time b, struct pktstats_wire_time a)
{
	uint32_t ds = b.seconds - a.seconds; /* modulo 2^32 */
	int64_t seconds = ds >= UINT32_C(0x80000000) ? (int64_t)ds - (INT64_C(1) << 32) : (int64_t)ds;
	return seconds * NS_PER_S + (int64_t)b.nanoseconds - (int64_t)a.nanoseconds;
}

const char *pktstats_oam_strerror(enum pktstats_oam_error error)
{
	switch (error) {
	case PKTSTATS_OAM_OK: return "no error";
	case PKTSTATS_OAM_NOT_OAM: return "not an ETH-DM or headroom frame";
	case PKTSTATS_OAM_TRUNCATED: return "shorter than its fields";
	case PKTSTATS_OAM_BAD_OPCODE: return "EtherType 0x8902 but opcode not 45, 46 or 47";
	case PKTSTATS_OAM_BAD_VERSION: return "unsupported version";
	case PKTSTATS_OAM_BAD_SUBTYPE: return "EtherType 0x89a2 but subtype not 1";
	case PKTSTATS_OAM_BAD_TYPE: return "headroom type neither request (1) nor response (2)";
	case PKTSTATS_OAM_BAD_TIMESTAMP: return "a timestamp's nanoseconds are not below 10^9";
	case PKTSTATS_OAM_BAD_RESERVED: return "reserved bits set";
	case PKTSTATS_OAM_BAD_TLV:
		return "the TLV offset points into the stamps, or a TLV runs beyond the frame";
	}
	return "unknown error";
}

const char *pktstats_oam_error_name(enum pktstats_oam_error error)
{
	switch (error) {
	case PKTSTATS_OAM_OK: return "ok";
	case PKTSTATS_OAM_NOT_OAM: return "not_oam";
	case PKTSTATS_OAM_TRUNCATED: return "truncated";
	case PKTSTATS_OAM_BAD_OPCODE: return "bad_opcode";
	case PKTSTATS_OAM_BAD_VERSION: return "bad_version";
	case PKTSTATS_OAM_BAD_SUBTYPE: return "bad_subtype";
	case PKTSTATS_OAM_BAD_TYPE: return "bad_type";
	case PKTSTATS_OAM_BAD_TIMESTAMP: return "bad_timestamp";
	case PKTSTATS_OAM_BAD_RESERVED: return "bad_reserved";
	case PKTSTATS_OAM_BAD_TLV: return "bad_tlv";
	}
	return "unknown";
}

static bool is_dm_opcode(uint8_t opcode)
{
	return opcode == PKTSTATS_DM_OPCODE_1DM || opcode == PKTSTATS_DM_OPCODE_DMR ||
	       opcode == PKTSTATS_DM_OPCODE_DMM;
}

/* Bytes of the DM PDU after the TLV offset field up to the first TLV. */
static unsigned dm_fixed(uint8_t opcode)
{
	return opcode == PKTSTATS_DM_OPCODE_1DM ? 16 : 32;
}

int pktstats_dm_parse(const uint8_t *frame, size_t len, struct pktstats_dm_frame *dm,
		      enum pktstats_oam_error *error)
{
	if (!frame || !dm || !error)
		return -EINVAL;
	memset(dm, 0, sizeof *dm);
	*error = PKTSTATS_OAM_NOT_OAM;
	if (len < 14)
		return 0;
	memcpy(dm->destination, frame, 6);
	memcpy(dm->source, frame + 6, 6);
	size_t at = 12;
	if (get16(frame + at) == PKTSTATS_OAM_ETHERTYPE_VLAN) {
		if (len < 18)
			return 0;
		dm->tagged = true;
		dm->vlan_tci = get16(frame + 14);
		at = 16;
	}
	if (get16(frame + at) != PKTSTATS_OAM_ETHERTYPE_CFM) {
		dm->tagged = false;
		dm->vlan_tci = 0;
		return 0;
	}
	const uint8_t *pdu = frame + at + 2; /* byte 14 of an untagged frame */
	size_t pdu_len = len - at - 2;
	*error = PKTSTATS_OAM_TRUNCATED;
	if (pdu_len < 1)
		return 0;
	dm->level = pdu[0] >> 5;
	dm->version = pdu[0] & 0x1f;
	if (pdu_len < 2)
		return 0;
	dm->opcode = pdu[1];
	if (pdu_len < 3)
		return 0;
	dm->flags = pdu[2];
	if (pdu_len < 4)
		return 0;
	dm->tlv_offset = pdu[3];
	if (!is_dm_opcode(dm->opcode)) {
		*error = PKTSTATS_OAM_BAD_OPCODE;
		return 0;
	}
	if (dm->version > 1) {
		*error = PKTSTATS_OAM_BAD_VERSION;
		return 0;
	}
	unsigned fixed = dm_fixed(dm->opcode);
	if (pdu_len < 4 + (size_t)fixed)
		return 0; /* TRUNCATED */
	dm->tx_timestamp_f = get_time(pdu + 4);
	dm->rx_timestamp_f = get_time(pdu + 12);
	if (fixed == 32) {
		dm->tx_timestamp_b = get_time(pdu + 20);
		dm->rx_timestamp_b = get_time(pdu + 28);
	}
	if (!time_valid(dm->tx_timestamp_f) || !time_valid(dm->rx_timestamp_f) ||
	    !time_valid(dm->tx_timestamp_b) || !time_valid(dm->rx_timestamp_b)) {
		*error = PKTSTATS_OAM_BAD_TIMESTAMP;
		return 0;
	}
	/* TLVs from the TLV offset (counted from the end of the offset field), which never points
	 * into the stamps: Y.1731 has 16 for a 1DM, 32 for a DMM or DMR, and a later version may
	 * add fields (a larger offset is read where it points). A frame ending without an End TLV
	 * simply ends them. */
	if (dm->tlv_offset < fixed) {
		*error = PKTSTATS_OAM_BAD_TLV;
		return 0;
	}
	size_t p = 4 + (size_t)dm->tlv_offset;
	while (p < pdu_len && pdu[p] != PKTSTATS_DM_END_TLV) {
		if (p + 3 > pdu_len || p + 3 + get16(pdu + p + 1) > pdu_len) {
			*error = PKTSTATS_OAM_BAD_TLV;
			return 0;
		}
		uint16_t length = get16(pdu + p + 1);
		if (pdu[p] == PKTSTATS_DM_DATA_TLV && !dm->data_tlv) {
			dm->data_tlv_length = length;
			dm->data_tlv = pdu + p + 3;
		}
		p += 3 + (size_t)length;
	}
	*error = PKTSTATS_OAM_OK;
	return 0;
}

int pktstats_dm_build(const struct pktstats_dm_frame *dm, uint8_t *buf, size_t size)
{
	if (!dm || !buf)
		return -EINVAL;
	if (dm->level > 7 || dm->version > 31 || !is_dm_opcode(dm->opcode) ||
	    !time_valid(dm->tx_timestamp_f) || !time_valid(dm->rx_timestamp_f) ||
	    !time_valid(dm->tx_timestamp_b) || !time_valid(dm->rx_timestamp_b))
		return -EINVAL;
	unsigned fixed = dm_fixed(dm->opcode);
	if (dm->tlv_offset != 0 && dm->tlv_offset != fixed)
		return -EINVAL;
	if (dm->opcode == PKTSTATS_DM_OPCODE_1DM &&
	    (!time_zero(dm->tx_timestamp_b) || !time_zero(dm->rx_timestamp_b)))
		return -EINVAL; /* a 1DM has no room for them */
	size_t at = dm->tagged ? 16 : 12;
	size_t len = at + 2 + 4 + fixed + (dm->data_tlv_length ? 3 + (size_t)dm->data_tlv_length : 0) + 1;
	if (len < PKTSTATS_OAM_MIN_FRAME)
		len = PKTSTATS_OAM_MIN_FRAME;
	if (len > size)
		return -ENOSPC;
	memset(buf, 0, len);
	memcpy(buf, dm->destination, 6);
	memcpy(buf + 6, dm->source, 6);
	if (dm->tagged) {
		put16(buf + 12, PKTSTATS_OAM_ETHERTYPE_VLAN);
		put16(buf + 14, dm->vlan_tci);
	}
	put16(buf + at, PKTSTATS_OAM_ETHERTYPE_CFM);
	uint8_t *pdu = buf + at + 2;
	pdu[0] = (uint8_t)(dm->level << 5 | dm->version);
	pdu[1] = dm->opcode;
	pdu[2] = dm->flags;
	pdu[3] = (uint8_t)fixed;
	put_time(pdu + 4, dm->tx_timestamp_f);
	put_time(pdu + 12, dm->rx_timestamp_f);
	if (fixed == 32) {
		put_time(pdu + 20, dm->tx_timestamp_b);
		put_time(pdu + 28, dm->rx_timestamp_b);
	}
	uint8_t *tlv = pdu + 4 + fixed;
	if (dm->data_tlv_length) {
		tlv[0] = PKTSTATS_DM_DATA_TLV;
		put16(tlv + 1, dm->data_tlv_length);
		if (dm->data_tlv)
			memcpy(tlv + 3, dm->data_tlv, dm->data_tlv_length);
		tlv += 3 + dm->data_tlv_length;
	}
	tlv[0] = PKTSTATS_DM_END_TLV; /* already 0: said for the reader */
	return (int)len;
}

int pktstats_headroom_parse(const uint8_t *frame, size_t len,
			    struct pktstats_headroom_frame *headroom,
			    enum pktstats_oam_error *error)
{
	if (!frame || !headroom || !error)
		return -EINVAL;
	memset(headroom, 0, sizeof *headroom);
	*error = PKTSTATS_OAM_NOT_OAM;
	if (len < 14 || get16(frame + 12) != PKTSTATS_OAM_ETHERTYPE_HEADROOM)
		return 0;
	memcpy(headroom->destination, frame, 6);
	memcpy(headroom->source, frame + 6, 6);
	*error = PKTSTATS_OAM_TRUNCATED;
	if (len < 15)
		return 0;
	headroom->encapsulation_version = frame[14] >> 4;
	headroom->subtype = frame[14] & 0x0f;
	if (len < 16)
		return 0;
	headroom->version = frame[15] >> 4;
	headroom->reserved = frame[15] >> 2 & 3;
	headroom->type = frame[15] & 3;
	if (headroom->subtype != 1)
		*error = PKTSTATS_OAM_BAD_SUBTYPE;
	else if (headroom->encapsulation_version != 0 || headroom->version != 1)
		*error = PKTSTATS_OAM_BAD_VERSION;
	else if (headroom->reserved != 0)
		*error = PKTSTATS_OAM_BAD_RESERVED;
	else if (headroom->type != PKTSTATS_HEADROOM_REQUEST &&
		 headroom->type != PKTSTATS_HEADROOM_RESPONSE)
		*error = PKTSTATS_OAM_BAD_TYPE;
	else if (len < PKTSTATS_HEADROOM_LENGTH)
		*error = PKTSTATS_OAM_TRUNCATED;
	else
		*error = PKTSTATS_OAM_OK;
	if (*error != PKTSTATS_OAM_OK)
		return 0;
	headroom->t1 = get_time(frame + 16);
	headroom->t2 = get_time(frame + 24);
	headroom->t3 = get_time(frame + 32);
	headroom->t4 = get_time(frame + 40);
	if (!time_valid(headroom->t1) || !time_valid(headroom->t2) || !time_valid(headroom->t3) ||
	    !time_valid(headroom->t4))
		*error = PKTSTATS_OAM_BAD_TIMESTAMP;
	return 0;
}

int pktstats_headroom_build(const struct pktstats_headroom_frame *headroom, uint8_t *buf,
			    size_t size)
{
	if (!headroom || !buf)
		return -EINVAL;
	const struct pktstats_headroom_frame *h = headroom;
	if (h->encapsulation_version > 15 || h->subtype > 15 || h->version > 15 || h->reserved > 3 ||
	    h->type > 3 || !time_valid(h->t1) || !time_valid(h->t2) || !time_valid(h->t3) ||
	    !time_valid(h->t4))
		return -EINVAL;
	if (size < PKTSTATS_OAM_MIN_FRAME)
		return -ENOSPC;
	memset(buf, 0, PKTSTATS_OAM_MIN_FRAME);
	memcpy(buf, h->destination, 6);
	memcpy(buf + 6, h->source, 6);
	put16(buf + 12, PKTSTATS_OAM_ETHERTYPE_HEADROOM);
	buf[14] = (uint8_t)(h->encapsulation_version << 4 | h->subtype);
	buf[15] = (uint8_t)(h->version << 4 | h->reserved << 2 | h->type);
	put_time(buf + 16, h->t1);
	put_time(buf + 24, h->t2);
	put_time(buf + 32, h->t3);
	put_time(buf + 40, h->t4);
	return PKTSTATS_OAM_MIN_FRAME;
}

int pktstats_dm_delays(const struct pktstats_dm_frame *dmr, struct pktstats_dm_delays *delays)
{
	if (!dmr || !delays || dmr->opcode == PKTSTATS_DM_OPCODE_1DM)
		return -EINVAL;
	delays->responder = pktstats_wire_time_diff(dmr->tx_timestamp_b, dmr->rx_timestamp_f);
	delays->two_way = pktstats_wire_time_diff(dmr->rx_timestamp_b, dmr->tx_timestamp_f) -
			  delays->responder;
	delays->forward = pktstats_wire_time_diff(dmr->rx_timestamp_f, dmr->tx_timestamp_f);
	delays->backward = pktstats_wire_time_diff(dmr->rx_timestamp_b, dmr->tx_timestamp_b);
	if (time_zero(dmr->tx_timestamp_f) || time_zero(dmr->rx_timestamp_f) ||
	    time_zero(dmr->tx_timestamp_b) || time_zero(dmr->rx_timestamp_b))
		return -ENODATA;
	return 0;
}

int64_t pktstats_headroom_round_trip(const struct pktstats_headroom_frame *response)
{
	if (!response)
		return 0;
	return pktstats_wire_time_diff(response->t4, response->t1) -
	       pktstats_wire_time_diff(response->t3, response->t2);
}

int pktstats_pfc_headroom(const struct pktstats_pfc_headroom_params *params,
			  struct pktstats_pfc_headroom *headroom)
{
	if (!params || !headroom || params->rate_mbps == 0)
		return -EINVAL;
	memset(headroom, 0, sizeof *headroom);
	if (params->round_trip_ns < 0)
		return -ERANGE;
	const uint64_t limit = (UINT64_C(1) << 62);
	/* medium = round trip (ns) x rate (Mb/s) / 1000, rounded up */
	unsigned __int128 medium = ((unsigned __int128)(uint64_t)params->round_trip_ns *
				    params->rate_mbps + 999) / 1000;
	if (medium > limit || params->internal_bits > limit)
		return -ERANGE;
	headroom->fixed_bits = 2 * ((uint64_t)params->max_frame + 20) * 8 + (64 + 20) * 8;
	headroom->internal_bits = params->internal_bits;
	headroom->medium_bits = (uint64_t)medium;
	headroom->total_bits = headroom->fixed_bits + headroom->internal_bits + headroom->medium_bits;
	headroom->bytes = (headroom->total_bits + 7) / 8;
	return 0;
}
