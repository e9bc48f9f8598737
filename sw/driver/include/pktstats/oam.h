/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats link-delay frames and engines (docs/oam.md): Y.1731 ETH-DM frames (1DM, DMM,
 * DMR; EtherType 0x8902) and the headroom measurement PDU (EtherType 0x89A2, subtype 1), built
 * and parsed byte for byte; the delays computed from their timestamps; and the `oam` register
 * block of the switch (per MAC port: what the engines do, the port's MAC, counters).
 *
 * Conventions as in pktstats/pktstats.h: 0 or a negative errno, nothing printed. Parsers
 * never read beyond `len` and say why a frame is not what they expect.
 */
#ifndef PKTSTATS_OAM_H
#define PKTSTATS_OAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pktstats/pktstats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PKTSTATS_OAM_ETHERTYPE_CFM 0x8902
#define PKTSTATS_OAM_ETHERTYPE_HEADROOM 0x89A2
#define PKTSTATS_OAM_ETHERTYPE_VLAN 0x8100
#define PKTSTATS_OAM_MAC_PORTS 4
/* Largest byte time the hardware holds (oam.byte_time_i, 12 bits), ns per byte */
#define PKTSTATS_OAM_BYTE_TIME_MAX 4095
#define PKTSTATS_OAM_MIN_FRAME 60      /* frames are built padded to this (no FCS) */
#define PKTSTATS_DM_DATA_TLV 3         /* Y.1731 Data TLV type */
#define PKTSTATS_DM_END_TLV 0
#define PKTSTATS_HEADROOM_LENGTH 48    /* bytes up to the end of t4 */
/* The headroom PDU's destination: the nearest-bridge group address. */
#define PKTSTATS_HEADROOM_DESTINATION {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e}

/* Y.1731 opcodes of ETH-DM. */
enum pktstats_dm_opcode {
	PKTSTATS_DM_OPCODE_1DM = 45,
	PKTSTATS_DM_OPCODE_DMR = 46,
	PKTSTATS_DM_OPCODE_DMM = 47,
};

/* A timestamp as the frames carry it: 32-bit seconds, 32-bit nanoseconds, big-endian. */
struct pktstats_wire_time {
	uint32_t seconds;
	uint32_t nanoseconds; /* 0..999 999 999 in a valid stamp */
};

/* b - a in nanoseconds (exact: 64-bit signed). Seconds are taken modulo 2^32: the difference
 * of two stamps less than 68 years apart is right across the 32-bit wrap. */
int64_t pktstats_wire_time_diff(struct pktstats_wire_time b, struct pktstats_wire_time a);

/* An ETH-DM frame. Offsets per docs/oam.md; a VLAN tag moves them by 4. */
struct pktstats_dm_frame {
	uint8_t destination[6];
	uint8_t source[6];
	bool tagged;
	uint16_t vlan_tci;      /* when tagged */
	uint8_t level;          /* MEL, 0..7 */
	uint8_t version;        /* 0..31; 0 or 1 are handled by the hardware */
	uint8_t opcode;         /* enum pktstats_dm_opcode */
	uint8_t flags;
	uint8_t tlv_offset;
	struct pktstats_wire_time tx_timestamp_f; /* TxTimeStampf */
	struct pktstats_wire_time rx_timestamp_f; /* RxTimeStampf (DMM, DMR), RxTimef (1DM) */
	struct pktstats_wire_time tx_timestamp_b; /* TxTimeStampb (DMM, DMR) */
	struct pktstats_wire_time rx_timestamp_b; /* RxTimeb (DMM, DMR) */
	uint16_t data_tlv_length; /* bytes of the Data TLV's value, 0: none */
	/* build: the Data TLV's value (data_tlv_length bytes), NULL for zeros; parse: where the
	 * first Data TLV's value is in the frame that was parsed (NULL: none) */
	const uint8_t *data_tlv;
};

/* Headroom PDU types (byte 15, bits 1:0). */
enum pktstats_headroom_type {
	PKTSTATS_HEADROOM_REQUEST = 1,
	PKTSTATS_HEADROOM_RESPONSE = 2,
};

/* A headroom measurement PDU, version 1. */
struct pktstats_headroom_frame {
	uint8_t destination[6]; /* 01:80:c2:00:00:0e */
	uint8_t source[6];
	uint8_t encapsulation_version; /* byte 14 bits 7:4, 0 */
	uint8_t subtype;               /* byte 14 bits 3:0, 1 */
	uint8_t version;               /* byte 15 bits 7:4, 1 */
	uint8_t reserved;              /* byte 15 bits 3:2 */
	uint8_t type;                  /* byte 15 bits 1:0, enum pktstats_headroom_type */
	struct pktstats_wire_time t1, t2, t3, t4;
};

/* What a parser found wrong (0: nothing). */
enum pktstats_oam_error {
	PKTSTATS_OAM_OK = 0,
	PKTSTATS_OAM_NOT_OAM,        /* another EtherType */
	PKTSTATS_OAM_TRUNCATED,      /* shorter than its fields */
	PKTSTATS_OAM_BAD_OPCODE,     /* 0x8902 but not 45, 46 or 47 */
	PKTSTATS_OAM_BAD_VERSION,    /* DM version above 1, headroom version not 1 */
	PKTSTATS_OAM_BAD_SUBTYPE,    /* 0x89A2 with a subtype other than 1 */
	PKTSTATS_OAM_BAD_TYPE,       /* headroom type neither request nor response */
	PKTSTATS_OAM_BAD_TIMESTAMP,  /* nanoseconds >= 10^9 in a filled field */
	PKTSTATS_OAM_BAD_RESERVED,   /* headroom: reserved bits (byte 15, bits 3:2) not 0 */
	PKTSTATS_OAM_BAD_TLV,        /* DM: the TLV offset points into the stamps (below 16 for
				      * a 1DM, 32 for a DMM or DMR), or a TLV runs beyond the
				      * frame */
};

/* A sentence ("shorter than its fields"), and a short name for JSON ("truncated"). */
const char *pktstats_oam_strerror(enum pktstats_oam_error error);
const char *pktstats_oam_error_name(enum pktstats_oam_error error);

/* Parse a frame (from its destination MAC, without FCS). 0 with *error = OK and the frame
 * filled; 0 with another *error when it is an ETH-DM / headroom frame that is malformed (the
 * fields read so far are filled); -EINVAL for NULL arguments. A frame too short to show its
 * EtherType, or of another EtherType, is PKTSTATS_OAM_NOT_OAM. Checked in this order: DM:
 * header (4 bytes after the EtherType) present, opcode, version, the timestamps' length,
 * nanoseconds, the TLVs (the TLV offset at least the stamps' length, 16 for a 1DM and 32 for a
 * DMM or DMR; each TLV's length within the frame; the End TLV or the frame's end stops them);
 * headroom: bytes 14..15 present, subtype, encapsulation version and PDU version
 * (BAD_VERSION), reserved bits, type, 48 bytes, nanoseconds. */
int pktstats_dm_parse(const uint8_t *frame, size_t len, struct pktstats_dm_frame *dm,
		      enum pktstats_oam_error *error);
int pktstats_headroom_parse(const uint8_t *frame, size_t len,
			    struct pktstats_headroom_frame *headroom,
			    enum pktstats_oam_error *error);

/* Build a frame into buf (size bytes): padded to 60 bytes, no FCS. Returns its length, or
 * -ENOSPC when buf is too small, -EINVAL for a bad field (level > 7, version > 31, opcode not
 * DM, tlv_offset neither 0 (the default, 16 for 1DM and 32 for DMM/DMR) nor that default,
 * nanoseconds >= 10^9; headroom: a field wider than its bits). A DM frame gets, after its
 * timestamps, the Data TLV when data_tlv_length > 0, then the End TLV. */
int pktstats_dm_build(const struct pktstats_dm_frame *dm, uint8_t *buf, size_t size);
int pktstats_headroom_build(const struct pktstats_headroom_frame *headroom, uint8_t *buf,
			    size_t size);

/* The delays of one DMR (ns): two-way (RxTimeb - TxTimeStampf) - (TxTimeStampb -
 * RxTimeStampf); forward RxTimeStampf - TxTimeStampf and backward RxTimeb - TxTimeStampb
 * (one-way: meaningful when the two clocks are synchronised). */
struct pktstats_dm_delays {
	int64_t two_way;
	int64_t forward;
	int64_t backward;
	int64_t responder; /* TxTimeStampb - RxTimeStampf, the time the DMM spent in the peer */
};
/* 0, or -ENODATA when one of the four stamps is zero (all four delays are still computed),
 * -EINVAL for NULL or a 1DM. */
int pktstats_dm_delays(const struct pktstats_dm_frame *dmr, struct pktstats_dm_delays *delays);

/* Headroom round trip t4 - t1 - (t3 - t2), in ns. */
int64_t pktstats_headroom_round_trip(const struct pktstats_headroom_frame *response);

/*
 * The PFC headroom a link needs (docs/oam.md, "PFC headroom"), after the delay model of
 * IEEE 802.1Q Annex N (802.1Qbb): the bits that can still arrive after the receiver decides
 * to pause,
 *     fixed    = 2 x (max_frame + 20) x 8 + (64 + 20) x 8       (a maximum frame each way
 *                ahead of the PFC frame and of the reaction, the PFC frame; + 20: preamble,
 *                SFD and inter-frame gap)
 *     internal = interface delays of both ends and the higher-layer (PFC response) delay, in
 *                bit times (802.3; the seed's 203776 at 100 Gb/s without MACsec)
 *     medium   = round trip (ns) x rate (Gb/s), rounded up
 *     headroom = ceil((fixed + internal + medium) / 8) bytes.
 */
struct pktstats_pfc_headroom_params {
	uint64_t rate_mbps;     /* link rate, Mb/s (100000 for 100 Gb/s) */
	uint32_t max_frame;     /* largest frame, bytes without preamble (2000: 802.3's envelope) */
	uint64_t internal_bits; /* internal processing delay, bit times */
	int64_t round_trip_ns;  /* the medium's round trip, ns (t4 - t1 - (t3 - t2)) */
};
struct pktstats_pfc_headroom {
	uint64_t fixed_bits, internal_bits, medium_bits, total_bits;
	uint64_t bytes;          /* ceil(total_bits / 8) */
};
/* 0; -EINVAL for NULL or rate 0; -ERANGE for a negative round trip or a sum beyond 2^63. */
int pktstats_pfc_headroom(const struct pktstats_pfc_headroom_params *params,
			  struct pktstats_pfc_headroom *headroom);
#define PKTSTATS_PFC_MAX_FRAME_DEFAULT 2000
#define PKTSTATS_PFC_INTERNAL_BITS_100G 203776

/* The `oam` block, per MAC port (registers oam.control_i, port_mac_i, byte_time_i). */
struct pktstats_oam_port_config {
	bool dm_enable;
	bool dm_responder;
	uint8_t dm_level; /* 0..7 */
	bool headroom_enable;
	bool headroom_responder;
	bool isl_copy_field; /* OpenKilda ISL round trip: T0 at TX, T1 at RX (docs/isl.md) */
	bool isl_group;      /* reflect discovery packets, a copy to the CPU port */
	bool cpu_bound;
	uint8_t mac[6];
	uint16_t byte_time; /* ns per byte on the wire, 1..4095 */
};

struct pktstats_oam_port_counters {
	uint64_t dm_stamped, dm_answered, dm_replies_sent, dm_passed_up, dm_malformed;
	uint64_t headroom_stamped, headroom_answered, headroom_replies_sent, headroom_passed_up,
		headroom_malformed;
	uint64_t isl_t0_stamped, isl_t1_stamped, isl_reflected, isl_passed_up;
};

/* Every call first checks that the device has the oam block (oam.type reads "OAM "): -ENODEV
 * with a detail otherwise; -EINVAL for port >= 4. */
int pktstats_oam_port_get(struct pktstats_dev *dev, unsigned port,
			  struct pktstats_oam_port_config *config);
/* -EINVAL (nothing written) for port >= 4 or dm_level > 7. */
int pktstats_oam_port_set(struct pktstats_dev *dev, unsigned port,
			  const struct pktstats_oam_port_config *config);
int pktstats_oam_port_counters(struct pktstats_dev *dev, unsigned port,
			       struct pktstats_oam_port_counters *counters);
int pktstats_oam_port_counters_clear(struct pktstats_dev *dev, unsigned port);

#ifdef __cplusplus
}
#endif

#endif
