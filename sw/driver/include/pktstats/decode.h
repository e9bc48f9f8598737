/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stat packet decoder: the production decoder every tool uses.
 *
 * Three layers, each usable alone:
 *
 *   pktstats_parse_frame()     Ethernet II [+ one 802.1Q tag] / IPv4 / UDP -> UDP payload.
 *   pktstats_decode_payload()  one stat payload (format version 2, or version 1) -> packet
 *                              header + events with absolute ticks and reconstructed occupancy.
 *   pktstats_stream_*()        a capture: frames or payloads in arrival order, sequence numbers
 *                              tracked per source, counters for packets, events, malformed
 *                              packets, lost packets, resets, reordering, M flags.
 *
 * Conventions: nothing here prints, exits, allocates or keeps global state. Functions return 0
 * or a negative errno:
 *   -EINVAL   a required pointer is NULL (or an option is out of range);
 *   -EBADMSG  the input is malformed; an `enum pktstats_decode_error` says exactly why;
 *   -ENOSPC   the packet is valid but holds more events than the caller's array (the array
 *             holds the first max_events, everything else in the packet is complete);
 *   -ENOMSG   (stream only) the frame is not a stat packet (not IPv4/UDP, a fragment, or
 *             another UDP port); it is counted as ignored.
 *
 * Summary mode: pass events = NULL (max_events is then ignored). The decoder still validates
 * every slot and fills the packet summary (n_events, ticks), but writes no per-event output.
 * With a struct pktstats_summary (pktstats_decode_payload_summary,
 * pktstats_stream_feed_frame_summary) it also adds the packet to per-queue figures in the same
 * pass: events and words by type, maximum and time-weighted mean occupancy. This is what
 * `pktstats decode --summary` runs on, and what `make bench` measures.
 *
 * Time: a tick is 8 ns << c (c = packet resolution). Ticks are absolute (since the last timer
 * reset) and all tick arithmetic is modulo 2^62: a short event's tick is
 * (previous tick + gap) mod 2^62. time_ns = (tick << c) * 8, computed in uint64_t; it is exact
 * while tick << c < 2^61, i.e. for the first 2^64 ns (about 584 years) after a timer reset, and
 * wraps modulo 2^64 beyond that. For c > 0 the event happened in [time_ns, time_ns + 8 << c).
 *
 * Version 1 (the original NetFPGA format), as this decoder reads it:
 *   - payload byte 0: bits 3:0 version = 1, bits 7:4 reserved and ignored (no M flag: missed = 0;
 *     no resolution: c comes from pktstats_decode_options.v1_resolution);
 *     byte 1: number of event types, must be 3; bytes 2..5: sequence number;
 *     bytes 6..69: for queues 0..7, two 32-bit words each: size in 64-bit words, then size in
 *     packets (queue_size[] and queue_packets[]); events from byte 70
 *     (PKTSTATS_V1_STAT_HEADER_BYTES).
 *   - Slots are laid out as in version 2 (timestamp: `00` + bits 61:32, then bits 31:0; short
 *     event: type, queue, length, 19-bit time field), but the 19-bit field holds the low 19 bits
 *     of the event's absolute tick. The decoder takes the smallest tick >= the previous tick
 *     whose low 19 bits equal the field: tick = prev + ((field - prev) mod 2^19), mod 2^62.
 *     This is exact as long as consecutive events are less than 2^19 ticks apart with no
 *     timestamp between them (the version 1 hardware inserted a timestamp otherwise).
 *   - The first slot must be a timestamp (version 1 packets that start with short events, from
 *     the original hardware's packet-boundary bug, are rejected: their time is unknown).
 *   - Unlike version 2, a version 1 packet may hold no short events (a timestamp alone).
 *   - Lengths are reported raw (the original hardware counted an internal 8-byte header word in
 *     them, and drops had length 0); occupancy starts from the words size.
 */
#ifndef PKTSTATS_DECODE_H
#define PKTSTATS_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pktstats/format.h"

/* Version 1 layout (see above). */
#define PKTSTATS_FORMAT_VERSION_1 1
#define PKTSTATS_V1_STAT_HEADER_BYTES 70 /* 6 + 8 queues x 2 words x 4 bytes */

/* Ethernet / IP constants used by the frame parser. */
#define PKTSTATS_ETHERTYPE_IPV4 0x0800
#define PKTSTATS_ETHERTYPE_VLAN 0x8100 /* 802.1Q; one tag is accepted */
#define PKTSTATS_VLAN_TAG_BYTES 4
#define PKTSTATS_IP_PROTO_UDP 17

/*
 * Most events one frame can carry: IP total length <= 65535, minus IPv4 (20), UDP (8) and the
 * stat header (38) leaves 16367 slots, one timestamp (2 slots) + 16365 short events. An event
 * array this long never gets -ENOSPC from a frame. Packets from the hardware (IP total length
 * <= PKTSTATS_MAX_LENGTH_MAX) hold at most PKTSTATS_MAX_SLOTS - 2 events.
 */
#define PKTSTATS_DECODE_MAX_EVENTS 16365
#define PKTSTATS_HW_MAX_EVENTS (PKTSTATS_MAX_SLOTS - 2)

/*
 * Why a frame or payload was rejected. -EBADMSG always comes with one of these (never OK).
 * Values are stable within a build only; use pktstats_decode_strerror() / _name() for text.
 */
enum pktstats_decode_error {
	PKTSTATS_DECODE_OK = 0,
	/* Frame level (pktstats_parse_frame). */
	PKTSTATS_DECODE_FRAME_TRUNCATED,  /* captured bytes end inside the Ethernet/IP/UDP headers
					     or before the end of the IP packet (IP total length) */
	PKTSTATS_DECODE_NOT_IPV4,         /* EtherType, after at most one 802.1Q tag, not 0x0800 */
	PKTSTATS_DECODE_BAD_IP_HEADER,    /* IP version field not 4, or IHL < 5 */
	PKTSTATS_DECODE_NOT_UDP,          /* IP protocol not 17 */
	PKTSTATS_DECODE_FRAGMENT,         /* MF flag set or fragment offset not 0 */
	PKTSTATS_DECODE_LENGTH_MISMATCH,  /* IP total length < IP header + 8, UDP length < 8, or
					     UDP length != IP total length - IP header length */
	/* Stream level (pktstats_stream_feed_frame with a port filter). */
	PKTSTATS_DECODE_OTHER_PORT,       /* UDP destination port is not the one filtered on */
	/* Payload level (pktstats_decode_payload). */
	PKTSTATS_DECODE_TRUNCATED,        /* payload shorter than the stat header (38 bytes for
					     version 2, 70 for version 1), or empty */
	PKTSTATS_DECODE_BAD_VERSION,      /* version nibble not 2 (nor 1 when version 1 is
					     accepted) */
	PKTSTATS_DECODE_BAD_EVENT_TYPES,  /* number of event types (byte 1) not 3 */
	PKTSTATS_DECODE_PARTIAL_SLOT,     /* truncated: the slot area (payload after the header) is
					     not a multiple of 4 bytes */
	PKTSTATS_DECODE_NO_EVENTS,        /* empty slot area (either version), or a version 2
					     packet with timestamps only */
	PKTSTATS_DECODE_FIRST_NOT_TIMESTAMP, /* first slot is a short event */
	PKTSTATS_DECODE_CUT_TIMESTAMP,    /* the first slot of a timestamp is the last slot */
	PKTSTATS_DECODE_ERROR_COUNT       /* number of values, not an error */
};

/* Text for a reason, e.g. "timestamp event cut in half". Never NULL (unknown values give
 * "unknown decode error"). */
const char *pktstats_decode_strerror(enum pktstats_decode_error reason);
/* Stable identifier for a reason, for CSV/JSON, e.g. "cut_timestamp". Never NULL. */
const char *pktstats_decode_error_name(enum pktstats_decode_error reason);

/* ---------------------------------------------------------------------------------------- */
/* Frame parsing                                                                              */

/* What pktstats_parse_frame() found. Addresses, ports and lengths are in host byte order. */
struct pktstats_frame_view {
	const uint8_t *payload;   /* UDP payload (inside the frame buffer); NULL on error */
	size_t payload_len;       /* UDP length - 8 */
	uint8_t dst_mac[6];       /* Ethernet destination */
	uint8_t src_mac[6];       /* Ethernet source */
	bool vlan;                /* an 802.1Q tag was present */
	uint16_t vlan_tci;        /* its tag control information (PCP, DEI, VID); 0 if none */
	uint8_t ip_header_len;    /* IHL * 4, 20..60 */
	uint8_t tos;              /* IP TOS byte */
	uint8_t ttl;              /* IP TTL */
	uint16_t ip_total_len;    /* IP total length */
	uint16_t ip_id;           /* IP identification (hardware: low 16 bits of the sequence) */
	uint32_t src_ip;          /* IPv4 source, e.g. 0x0a000001 for 10.0.0.1 */
	uint32_t dst_ip;          /* IPv4 destination */
	uint16_t src_port;        /* UDP source port */
	uint16_t dst_port;        /* UDP destination port */
	uint16_t udp_len;         /* UDP length (header included) */
	size_t trailer_len;       /* captured bytes after the IP packet (Ethernet padding, FCS) */
	enum pktstats_decode_error reason; /* OK, or why -EBADMSG was returned */
};

/*
 * Parses Ethernet II (optionally one 802.1Q tag) / IPv4 (any IHL >= 5) / UDP. `len` is the
 * captured length; it may exceed the IP packet (padding, FCS) but never fall short of it.
 * The IP header checksum and UDP checksum are not verified.
 * Returns 0 (view filled), -EBADMSG (view->reason says why; the fields parsed so far are set,
 * the others are 0), -EINVAL (frame or view NULL).
 */
int pktstats_parse_frame(const uint8_t *frame, size_t len, struct pktstats_frame_view *view);

/* ---------------------------------------------------------------------------------------- */
/* Payload decoding                                                                           */

struct pktstats_decode_options {
	bool accept_v1;        /* decode version 1 payloads (default true); else BAD_VERSION */
	uint8_t v1_resolution; /* c for version 1 payloads, which do not carry it; 0..7, default 0 */
};

/* Sets the defaults: accept_v1 = true, v1_resolution = 0. */
void pktstats_decode_default_options(struct pktstats_decode_options *options);

/* One stat packet: its header and a summary of its events. */
struct pktstats_packet {
	uint8_t version;       /* 2 or 1; 0 when the header could not be decoded (on -EBADMSG a
				  nonzero version means the header fields below are valid) */
	bool missed;           /* M: an event was lost since the previous packet closed (v1: 0) */
	uint8_t resolution;    /* c: one tick = 8 ns << c (v1: options.v1_resolution) */
	uint8_t event_types;   /* number of event types, timestamp excluded (always 3) */
	uint32_t sequence;     /* 0 for the first packet after capture is enabled, wraps at 2^32 */
	uint32_t queue_size[PKTSTATS_QUEUES];    /* size of queues 0..7 in 64-bit words at
						    start_tick, before any event of the packet */
	uint32_t queue_packets[PKTSTATS_QUEUES]; /* v1 only: size in packets; 0 for v2 */
	uint32_t n_slots;      /* 32-bit slots in the packet */
	uint32_t n_events;     /* short events (arrival/departure/drop) in the packet */
	uint32_t n_timestamps; /* timestamp events in the packet, the first one included */
	uint64_t start_tick;   /* the first timestamp: instant queue_size was sampled */
	uint64_t first_tick;   /* tick of the first short event (start_tick if none, v1) */
	uint64_t last_tick;    /* tick of the last short event (start_tick if none, v1) */
};

/* One short event, in packet order. 32 bytes. */
struct pktstats_event {
	uint64_t tick;         /* absolute tick, modulo 2^62 */
	uint64_t time_ns;      /* (tick << c) * 8, modulo 2^64 (see top of file) */
	int64_t occupancy;     /* words in `queue` after this event: queue_size[queue] +len per
				  arrival, -len per departure, unchanged by drops, from the start of
				  the packet; negative if the packet is inconsistent */
	uint32_t slot;         /* index of the event's slot, 0 = first slot after the header */
	uint8_t type;          /* enum pktstats_event_type: ARRIVAL, DEPARTURE or DROP */
	uint8_t queue;         /* 0..7 */
	uint8_t length;        /* packet length in 64-bit words, raw; 255 means 255 or more */
	uint8_t reserved;      /* 0 */
};

/*
 * Decodes one stat payload (the UDP payload, exactly UDP length - 8 bytes) with default options.
 *
 * packet:     filled (see struct). events: array of max_events entries, or NULL (summary mode).
 * n_events:   number of events written to `events` (0 in summary mode); may be NULL.
 * reason:     OK, or why -EBADMSG was returned; may be NULL.
 * Returns 0, -EBADMSG, -ENOSPC (more than max_events events: the first max_events are written,
 * *n_events = max_events, packet complete; packet->n_events has the real count), -EINVAL
 * (packet NULL, payload NULL with len > 0, or len beyond 16 GiB).
 * On -EBADMSG the events array may have been partly written.
 */
int pktstats_decode_payload(const uint8_t *payload, size_t len, struct pktstats_packet *packet,
			    struct pktstats_event *events, size_t max_events, size_t *n_events,
			    enum pktstats_decode_error *reason);

/* The same with options (NULL = defaults). -EINVAL if v1_resolution > 7. */
int pktstats_decode_payload_ex(const uint8_t *payload, size_t len,
			       const struct pktstats_decode_options *options,
			       struct pktstats_packet *packet, struct pktstats_event *events,
			       size_t max_events, size_t *n_events,
			       enum pktstats_decode_error *reason);

/*
 * A capture's summary, per queue, built in summary mode (pktstats_decode_payload_summary,
 * pktstats_stream_feed_frame_summary): each packet that decodes is added in the same pass that
 * validates it. Zero-initialize it before the first packet. Occupancy in 64-bit words.
 *
 * The time-weighted integral: the occupancy of a queue is a step function of time: at each
 * packet's first timestamp it is the packet's queue size, after each event the occupancy after
 * it (queue_size, +length per arrival, -length per departure, from the packet's start). Time
 * advances from one instant (a packet's first timestamp, a timestamp, an event) to the next
 * only when the next one is later: between packets from the previous packet's latest instant
 * to the next packet's start, later meaning modulo 2^64 ns by less than 2^63 ns (so the time
 * goes on across the timer's wrap, where the ns wrap too; the ns fields stay modulo 2^64, and
 * last_ns may be below first_ns after a wrap); within a packet an instant earlier than the
 * packet's latest so far adds nothing until time passes that again. So a timer reset or a
 * reordered packet costs at most one interval, not the rest of the capture. A malformed packet
 * adds nothing: the occupancy carries on over it, as over lost packets, until the next
 * packet's queue sizes.
 * The largest occupancy is the largest the queue held at a clock's edge. The events of one
 * clock are written by queue, arrival before departure (docs/packet-format.md), so when a
 * frame arrives and another leaves a queue in the same clock, the departure's event follows
 * the arrival's at once and the occupancy between them is one the queue never held: an
 * arrival's occupancy is left out when the packet's next event is a departure of the same
 * queue in the same tick. At resolution 0 (a tick a clock) that is exact. At a coarser
 * resolution (a tick of 2^c clocks) such a pair counts as one clock's even when the departure
 * came in a later clock of the tick: the occupancy between them is then left out although the
 * queue held it (for less than a tick). With any event between them they are of two clocks,
 * and the arrival counts. A packet's last event always counts (the hardware never splits one
 * queue's events of a clock over two packets). The integral is unaffected: an occupancy that
 * lasts no tick adds nothing.
 * integral / span_ns is the time-weighted mean (pktstats_summary_mean). The integral is a
 * double: exact while every product it adds (occupancy x interval) stays below 2^53 word x ns,
 * which real captures do by far; rounded beyond.
 */
struct pktstats_queue_summary {
	uint64_t events[4];      /* by enum pktstats_event_type: [1] arrivals, [2] departures,
				    [3] drops; [0] is 0 */
	uint64_t words[4];       /* the sum of their lengths, 64-bit words, same index */
	int64_t occupancy;       /* after the last event added */
	int64_t max_occupancy;   /* largest occupancy held at a clock's edge: of the packets'
				    queue sizes and the occupancy after each event, except after
				    an arrival that the packet's next event, a departure of the
				    same queue and tick, undoes (see above); 0 before any packet */
	uint64_t max_time_ns;    /* when it was first reached: the time_ns of that event (or
				    packet start), even where time had gone back */
	double integral;         /* occupancy x time over the span, word x ns */
};

struct pktstats_summary {
	uint64_t packets;        /* packets added */
	uint64_t events;         /* their short events */
	uint64_t first_ns;       /* the first packet's first timestamp (time_ns) */
	uint64_t last_ns;        /* the last packet's last event (its start if it has none) */
	uint64_t latest_ns;      /* the latest instant of the last packet */
	uint64_t span_ns;        /* how far time advanced from first_ns (see above) */
	struct pktstats_queue_summary queues[PKTSTATS_QUEUES];
};

/* integral / span_ns for queue 0..7: the time-weighted mean occupancy in words; 0 when the
 * span is 0 (or summary NULL, queue out of range). */
double pktstats_summary_mean(const struct pktstats_summary *summary, unsigned queue);

/*
 * Decodes one stat payload in summary mode (as pktstats_decode_payload_ex() with events =
 * NULL) and adds it to `summary` (required) in the same pass. Returns 0 (added), -EBADMSG (not
 * added), -EINVAL (as pktstats_decode_payload_ex, or summary NULL: not added).
 */
int pktstats_decode_payload_summary(const uint8_t *payload, size_t len,
				    const struct pktstats_decode_options *options,
				    struct pktstats_packet *packet,
				    struct pktstats_summary *summary,
				    enum pktstats_decode_error *reason);

/* Nanoseconds of a tick at resolution c (0..7): (tick << c) * 8 mod 2^64. */
static inline uint64_t pktstats_tick_to_ns(uint64_t tick, unsigned resolution)
{
	return (tick << (resolution & 7)) * PKTSTATS_CLOCK_NS;
}

/* ---------------------------------------------------------------------------------------- */
/* Stream decoding                                                                            */

/* Sources (source IP + UDP source port) tracked at once; later sources are decoded but their
 * sequence numbers are not tracked (counted in pktstats_stream.untracked). */
#define PKTSTATS_STREAM_MAX_SOURCES 32
/* A packet at most this many sequence numbers behind the newest one of its source is a late
 * (reordered) packet or a duplicate; further behind (and not 0) is a reset. */
#define PKTSTATS_STREAM_REORDER_WINDOW 64

struct pktstats_stream_options {
	uint16_t udp_port;     /* accept only this UDP destination port (feed_frame);
				  0 = any port. Default PKTSTATS_UDP_PORT */
	struct pktstats_decode_options decode; /* payload decoding options */
};

/* Sets the defaults: udp_port = PKTSTATS_UDP_PORT, decode defaults. */
void pktstats_stream_default_options(struct pktstats_stream_options *options);

/* Counters, kept per source and in total. */
struct pktstats_stream_counters {
	uint64_t packets;      /* stat packets decoded (returned 0 or -ENOSPC) */
	uint64_t events;       /* short events in those packets */
	uint64_t malformed;    /* frames/payloads rejected with -EBADMSG (frame-level errors have
				  no source: they count in the total only) */
	uint64_t lost;         /* stat packets missing from the sequence numbers, minus those that
				  arrived late (reordered) afterwards */
	uint64_t gaps;         /* times the sequence number jumped forward (each a GAP) */
	uint64_t resets;       /* sequence resets (RESET) */
	uint64_t reordered;    /* late packets that filled a gap counted before (REORDERED) */
	uint64_t duplicates;   /* packets whose sequence number was already seen (DUPLICATE) */
	uint64_t missed_flags; /* packets with the M flag set (every packet whose header
				  decoded, malformed events or not) */
};

/* How a packet's sequence number relates to its source's history. */
enum pktstats_seq_status {
	PKTSTATS_SEQ_NONE = 0,    /* not tracked: header not decoded, or source table full */
	PKTSTATS_SEQ_FIRST,       /* first packet of this source; any number is accepted */
	PKTSTATS_SEQ_IN_ORDER,    /* sequence == expected (0 after 0xffffffff included) */
	PKTSTATS_SEQ_GAP,         /* ahead of expected by less than 2^31 (for sequence 0: by at
				     most the reorder window, a gap across the wrap): `lost`
				     packets missing */
	PKTSTATS_SEQ_RESET,       /* 0 while something else was expected (and not a small gap
				     across the wrap), or more than the reorder window behind:
				     capture restarted; tracking restarts from this packet, the
				     packets before it in the new run are not counted as lost */
	PKTSTATS_SEQ_REORDERED,   /* within the window behind, not seen before: arrived late;
				     lost is decremented */
	PKTSTATS_SEQ_DUPLICATE,   /* within the window behind and already seen (or older than the
				     first packet tracked) */
};
/* Stable identifier, e.g. "gap". Never NULL. */
const char *pktstats_seq_status_name(enum pktstats_seq_status status);

/* Per-source state. */
struct pktstats_source {
	uint32_t ip;           /* source IPv4 address (host order) */
	uint16_t port;         /* UDP source port */
	bool synced;           /* a sequence number of this source has been seen */
	uint32_t expected;     /* next expected sequence number (newest + 1) */
	uint64_t window;       /* bit i set: sequence expected - 1 - i was received */
	struct pktstats_stream_counters counters; /* this source's counters */
};

/* What the stream made of one frame/payload. */
struct pktstats_stream_result {
	enum pktstats_decode_error reason;  /* OK, or why it was malformed (-EBADMSG) or
					       ignored (-ENOMSG) */
	enum pktstats_seq_status seq_status; /* see enum */
	uint32_t expected;     /* sequence number expected before this packet (0 for FIRST/NONE) */
	uint32_t lost;         /* GAP: packets missing just before this one; else 0 */
	int source;            /* index in stream->sources, -1 if none */
	size_t n_events;       /* events written to the caller's array */
	struct pktstats_frame_view frame;  /* feed_frame: the parsed frame (its payload pointer
					      points into the caller's frame buffer) */
	struct pktstats_packet packet;     /* the decoded packet header and summary */
};

/* A capture being decoded. Plain data (about 4 KiB), no pointers inside: allocate it anywhere,
 * restart it with pktstats_stream_init. */
struct pktstats_stream {
	struct pktstats_stream_options options;
	struct pktstats_stream_counters total; /* sum over all sources, plus the malformed frames
						  that have no source */
	uint64_t frames;       /* frames and payloads fed */
	uint64_t ignored;      /* frames that were not stat packets (-ENOMSG) */
	uint64_t untracked;    /* packets whose source did not fit in the table */
	unsigned n_sources;    /* entries used in sources[] */
	unsigned last_source;  /* lookup cache */
	struct pktstats_source sources[PKTSTATS_STREAM_MAX_SOURCES]; /* in order of appearance */
};

/* Initializes (or restarts) a stream. options NULL = defaults. -EINVAL on bad options. */
int pktstats_stream_init(struct pktstats_stream *stream,
			 const struct pktstats_stream_options *options);

/*
 * Feeds one captured frame. events / max_events as in pktstats_decode_payload (NULL = summary
 * mode). result is filled in every case. Returns 0 (decoded, result->seq_status),
 * -EBADMSG (malformed: counted, result->reason; the caller goes on), -ENOMSG (not a stat
 * packet: not IPv4, not UDP, a fragment, or another port: counted in ignored), -ENOSPC (decoded
 * and counted, but the event array was too small), -EINVAL.
 * Malformed payloads whose header decoded (result->packet.version != 0) still take part in
 * sequence tracking: the packet arrived, only its events are unusable.
 */
int pktstats_stream_feed_frame(struct pktstats_stream *stream, const uint8_t *frame, size_t len,
			       struct pktstats_event *events, size_t max_events,
			       struct pktstats_stream_result *result);

/* pktstats_stream_feed_frame() in summary mode, adding the packet to `summary` (required)
 * when it returns 0 (see struct pktstats_summary). */
int pktstats_stream_feed_frame_summary(struct pktstats_stream *stream, const uint8_t *frame,
				       size_t len, struct pktstats_summary *summary,
				       struct pktstats_stream_result *result);

/* Feeds one UDP payload received from src_ip:src_port (e.g. from recvfrom); no port filter.
 * Same returns, except -ENOMSG. */
int pktstats_stream_feed_payload(struct pktstats_stream *stream, uint32_t src_ip,
				 uint16_t src_port, const uint8_t *payload, size_t len,
				 struct pktstats_event *events, size_t max_events,
				 struct pktstats_stream_result *result);

#endif
