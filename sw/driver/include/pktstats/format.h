/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stat packet format, version 2: constants shared by the encoder model, the decoder and the
 * tools. The layout is described in docs/packet-format.md.
 */
#ifndef PKTSTATS_FORMAT_H
#define PKTSTATS_FORMAT_H

#define PKTSTATS_FORMAT_VERSION 2
#define PKTSTATS_EVENT_TYPES 3 /* arrival, departure, drop */
#define PKTSTATS_QUEUES 8
#define PKTSTATS_UDP_PORT 27033

/* Frame layout: Ethernet II (14) + IPv4 without options (20) + UDP (8) + stat header (38). */
#define PKTSTATS_ETH_HEADER_BYTES 14
#define PKTSTATS_IP_HEADER_BYTES 20
#define PKTSTATS_UDP_HEADER_BYTES 8
#define PKTSTATS_STAT_HEADER_BYTES 38
#define PKTSTATS_PAYLOAD_OFFSET 42 /* stat header, from the start of the frame */
#define PKTSTATS_EVENTS_OFFSET 80  /* first event slot, from the start of the frame */
#define PKTSTATS_IP_OVERHEAD 66    /* IP total length of a packet with no event slots */
#define PKTSTATS_SLOT_BYTES 4

/* Maximum IP total length register: values outside these bounds act as the nearest bound. */
#define PKTSTATS_MAX_LENGTH_MIN 86 /* room for a timestamp and one queue's 3 events */
#define PKTSTATS_MAX_LENGTH_MAX 9000
#define PKTSTATS_MAX_LENGTH_DEFAULT 1500
#define PKTSTATS_MAX_SLOTS ((PKTSTATS_MAX_LENGTH_MAX - PKTSTATS_IP_OVERHEAD) / PKTSTATS_SLOT_BYTES)

/* Payload byte 0. */
#define PKTSTATS_FLAG_MISSED 0x80
#define PKTSTATS_RESOLUTION_SHIFT 4
#define PKTSTATS_RESOLUTION_MASK 0x70
#define PKTSTATS_VERSION_MASK 0x0f
#define PKTSTATS_RESOLUTION_MAX 7

/* Event slots (32 bits, big-endian). */
#define PKTSTATS_SLOT_TYPE_SHIFT 30
#define PKTSTATS_SLOT_QUEUE_SHIFT 27
#define PKTSTATS_SLOT_LENGTH_SHIFT 19
#define PKTSTATS_SLOT_GAP_BITS 19
#define PKTSTATS_SLOT_GAP_MASK ((1u << PKTSTATS_SLOT_GAP_BITS) - 1)
#define PKTSTATS_SLOT_LENGTH_MAX 255
#define PKTSTATS_TIMESTAMP_BITS 62
#define PKTSTATS_TIMESTAMP_MASK ((UINT64_C(1) << PKTSTATS_TIMESTAMP_BITS) - 1)

enum pktstats_event_type {
	PKTSTATS_EVENT_TIMESTAMP = 0, /* slot type bits 00: first half of a timestamp event */
	PKTSTATS_EVENT_ARRIVAL = 1,
	PKTSTATS_EVENT_DEPARTURE = 2,
	PKTSTATS_EVENT_DROP = 3,
};

/* One tick is 8 ns << resolution. */
#define PKTSTATS_CLOCK_NS 8

#endif
