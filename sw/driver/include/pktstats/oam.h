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
};

const char *pktstats_oam_strerror(enum pktstats_oam_error error);

/* Parse a frame (from its destination MAC, without FCS). 0 with *error = OK and the frame
 * filled; 0 with another *error when it is an ETH-DM / headroom frame that is malformed (the
 * fields read so far are filled); -EINVAL for NULL arguments. */
int pktstats_dm_parse(const uint8_t *frame, size_t len, struct pktstats_dm_frame *dm,
		      enum pktstats_oam_error *error);
int pktstats_headroom_parse(const uint8_t *frame, size_t len,
			    struct pktstats_headroom_frame *headroom,
			    enum pktstats_oam_error *error);

/* Build a frame into buf (size bytes): padded to 60 bytes, no FCS. Returns its length, or
 * -ENOSPC when buf is too small, -EINVAL for a bad field (level > 7, opcode not DM, ...). */
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
int pktstats_dm_delays(const struct pktstats_dm_frame *dmr, struct pktstats_dm_delays *delays);

/* Headroom round trip t4 - t1 - (t3 - t2), in ns. */
int64_t pktstats_headroom_round_trip(const struct pktstats_headroom_frame *response);

/* The `oam` block, per MAC port (registers oam.control_i, port_mac_i, byte_time_i). */
struct pktstats_oam_port_config {
	bool dm_enable;
	bool dm_responder;
	uint8_t dm_level; /* 0..7 */
	bool headroom_enable;
	bool headroom_responder;
	bool cpu_bound;
	uint8_t mac[6];
	uint16_t byte_time; /* ns per byte on the wire */
};

struct pktstats_oam_port_counters {
	uint64_t dm_stamped, dm_answered, dm_replies_sent, dm_passed_up, dm_malformed;
	uint64_t headroom_stamped, headroom_answered, headroom_replies_sent, headroom_passed_up,
		headroom_malformed;
};

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
