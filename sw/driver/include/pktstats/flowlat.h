/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats flow-latency monitor (docs/flowlat.md): the `flowlat` register block (flow
 * groups, latency profiles, the IPFIX exporter's settings, the per-flow table's lookup by
 * 5-tuple, counters) and a parser for the IPFIX messages the block sends (RFC 7011, the
 * block's template 256), for tools that receive its events.
 *
 * Conventions as in pktstats/pktstats.h: 0 or a negative errno, nothing printed; a failed
 * register access leaves its detail in pktstats_error(). Setters check every field first and
 * write nothing when one is out of range (-EINVAL).
 */
#ifndef PKTSTATS_FLOWLAT_H
#define PKTSTATS_FLOWLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pktstats/pktstats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PKTSTATS_FLOWLAT_RULES 16
#define PKTSTATS_FLOWLAT_PROFILES 8
#define PKTSTATS_FLOWLAT_MAC_PORTS 4       /* rules watch MAC ports 0..3 */
#define PKTSTATS_FLOWLAT_SWITCH_PORTS 8    /* IPFIX frames leave by ports 0..7 */
#define PKTSTATS_FLOWLAT_IPFIX_PORT 4739   /* IANA's UDP port for IPFIX */
#define PKTSTATS_FLOWLAT_PEN_DEFAULT 32473 /* RFC 5612's documentation PEN */
#define PKTSTATS_FLOWLAT_TEMPLATE_ID 256
#define PKTSTATS_FLOWLAT_RECORD_LENGTH 48  /* bytes of a data record */
#define PKTSTATS_FLOWLAT_MTU_MIN 200
#define PKTSTATS_FLOWLAT_MTU_MAX 9000
#define PKTSTATS_FLOWLAT_TEMPLATE_INTERVAL_MAX 65535 /* s (16 bits) */
#define PKTSTATS_FLOWLAT_LOOKUP_TRIES 1000 /* status reads before a lookup is -ETIMEDOUT */

/* A flow: its 5-tuple, as the taps read it (L4 ports 0 for protocols other than TCP and UDP
 * and for later fragments). Addresses with the first octet in bits 31:24. */
struct pktstats_flowlat_key {
	uint32_t source_ip;
	uint32_t destination_ip;
	uint8_t protocol;
	uint16_t source_port;
	uint16_t destination_port;
};

/* A flow group: rule i of 16, tried in index order. */
struct pktstats_flowlat_rule {
	bool valid;
	uint32_t source_ip;
	uint8_t source_length; /* prefix length 0..32; 0 matches any address */
	uint32_t destination_ip;
	uint8_t destination_length;
	bool protocol_any;
	uint8_t protocol; /* when !protocol_any */
	bool source_port_any;
	uint16_t source_port; /* when !source_port_any */
	bool destination_port_any;
	uint16_t destination_port;
	uint8_t egress_ports; /* bit i: the rule watches frames leaving MAC port i (0..3) */
	uint8_t profile;      /* 0..7 */
};

/* A latency profile. Comparisons are signed and strict (above high, below low). */
struct pktstats_flowlat_profile {
	bool stateful;            /* false: stateless, ABSOLUTE events above high */
	int32_t high_ns;
	int32_t low_ns;           /* stateful only */
	uint32_t min_interval_us; /* stateless only: between two ABSOLUTE events of a flow */
};

/* The monitor and the exporter. */
struct pktstats_flowlat_config {
	bool monitor_enable;
	bool export_enable;
	uint8_t export_ports;      /* bit p: IPFIX frames leave by switch port p (0..7) */
	uint32_t idle_timeout_us;  /* a flow not seen for longer is stale (may be evicted) */
	uint8_t destination_mac[6];
	uint8_t source_mac[6];
	uint32_t source_ip;
	uint32_t destination_ip;
	uint16_t source_port;       /* UDP; 1..65535 */
	uint16_t destination_port;  /* UDP; 1..65535 (4739) */
	uint32_t observation_domain;
	uint32_t enterprise_number; /* PEN of the enterprise-specific IEs */
	uint16_t template_interval_s; /* 0: only at enable and on command */
	uint16_t mtu;               /* 200..9000: IPv4 packet bytes */
	uint32_t flush_timeout_us;  /* the longest an event waits for its message */
};

/* What the block is doing now. */
struct pktstats_flowlat_status {
	bool clearing;           /* forgetting every flow (after reset, and the clear command) */
	unsigned events_waiting;  /* for the exporter, 0..64 */
	unsigned records_waiting; /* for the flow table, 0..16 */
	uint32_t now_us;          /* the table's clock (microseconds since reset; wraps) */
};

/* A flow's state in the table, as a lookup answers. */
struct pktstats_flowlat_flow {
	bool found;             /* the rest is valid only when found */
	bool breach;            /* HIGH raised, LOW not yet */
	uint8_t group;          /* the rule that matched its last frame */
	int32_t last_residence_ns;
	int32_t max_residence_ns;
	uint32_t packets;
	uint32_t last_seen_us;  /* now_us's clock */
	uint32_t now_us;        /* read just after the answer: now_us - last_seen_us is its age */
};

/* The counters, in the registers' order. */
struct pktstats_flowlat_counters {
	uint64_t monitored, unmatched, table_full, evicted, evicted_in_breach, events,
		events_lost, records_lost, not_ipv4, no_stamp, messages, templates,
		records_exported;
};
#define PKTSTATS_FLOWLAT_COUNTERS 13
/* The counters' names ("table_full"), in the struct's order. */
extern const char *const pktstats_flowlat_counter_names[PKTSTATS_FLOWLAT_COUNTERS];
/* The struct as an array in that order. */
void pktstats_flowlat_counters_array(const struct pktstats_flowlat_counters *counters,
				     uint64_t values[PKTSTATS_FLOWLAT_COUNTERS]);

/* Registers. Index out of range, a NULL pointer or a field wider than its bits: -EINVAL
 * (nothing written). -ENODEV when the device has no flowlat block (type is not "FLAT"). */
int pktstats_flowlat_rule_get(struct pktstats_dev *dev, unsigned index,
			      struct pktstats_flowlat_rule *rule);
int pktstats_flowlat_rule_set(struct pktstats_dev *dev, unsigned index,
			      const struct pktstats_flowlat_rule *rule);
int pktstats_flowlat_profile_get(struct pktstats_dev *dev, unsigned index,
				 struct pktstats_flowlat_profile *profile);
int pktstats_flowlat_profile_set(struct pktstats_dev *dev, unsigned index,
				 const struct pktstats_flowlat_profile *profile);
/* The registers' reset values: monitor and export off, no ports, idle 1 s, UDP 4739 -> 4739,
 * PEN 32473, template every 10 s, MTU 1500, flush 1 ms, addresses 0. */
void pktstats_flowlat_config_defaults(struct pktstats_flowlat_config *config);
int pktstats_flowlat_config_get(struct pktstats_dev *dev, struct pktstats_flowlat_config *config);
/* Writes every setting, control last (so that export starts with its headers in place). */
int pktstats_flowlat_config_set(struct pktstats_dev *dev,
				const struct pktstats_flowlat_config *config);
int pktstats_flowlat_status_get(struct pktstats_dev *dev, struct pktstats_flowlat_status *status);
int pktstats_flowlat_counters_get(struct pktstats_dev *dev,
				  struct pktstats_flowlat_counters *counters);
int pktstats_flowlat_counters_clear(struct pktstats_dev *dev);

/* Commands. clear: forget every flow (the table takes 2048 clocks; status.clearing). */
int pktstats_flowlat_clear(struct pktstats_dev *dev);
int pktstats_flowlat_send_template(struct pktstats_dev *dev);
/* Looks a flow up by its key: writes the key, the command, and reads the status until done
 * (-ETIMEDOUT after PKTSTATS_FLOWLAT_LOOKUP_TRIES reads). flow->found says whether it is
 * there. */
int pktstats_flowlat_lookup(struct pktstats_dev *dev, const struct pktstats_flowlat_key *key,
			    struct pktstats_flowlat_flow *flow);

/* ---- IPFIX messages of the block (docs/flowlat.md, "The IPFIX exporter") ---- */

enum pktstats_flowlat_kind {
	PKTSTATS_FLOWLAT_ABSOLUTE = 1, /* stateless: above high */
	PKTSTATS_FLOWLAT_HIGH = 2,     /* stateful: rose above high */
	PKTSTATS_FLOWLAT_LOW = 3,      /* stateful: fell below low */
};
/* "absolute", "high", "low"; NULL for another value. */
const char *pktstats_flowlat_kind_name(unsigned kind);

/* One data record: one event. */
struct pktstats_flowlat_event {
	uint64_t observation_time_ntp; /* IE 325 as sent: seconds since 1900 << 32 | fraction */
	uint64_t seconds;              /* the same as Unix time: seconds since 1970 ... */
	uint32_t nanoseconds;          /* ... and nanoseconds (from the 2^-32 s fraction) */
	struct pktstats_flowlat_key key;
	uint32_t ingress_interface;    /* switch port it came in by */
	uint32_t egress_interface;     /* MAC port it left by */
	int32_t residence_ns;
	uint8_t kind;                  /* enum pktstats_flowlat_kind */
	uint8_t group;
	uint8_t profile;
	int32_t high_ns;
	int32_t low_ns;
	uint32_t occupancy;            /* of the frame's queue when it left, bytes */
};

/* One IPFIX message's header and what it held. */
struct pktstats_flowlat_message {
	uint16_t length;
	uint32_t export_time;          /* seconds since 1970 */
	uint32_t sequence;             /* data records sent before this message */
	uint32_t observation_domain;
	bool has_template;             /* the block's template set came first */
	unsigned records;              /* data records in the message */
};

enum pktstats_flowlat_ipfix_error {
	PKTSTATS_FLOWLAT_IPFIX_OK = 0,
	PKTSTATS_FLOWLAT_IPFIX_TRUNCATED,    /* shorter than its header or its length says */
	PKTSTATS_FLOWLAT_IPFIX_BAD_VERSION,  /* not 10 */
	PKTSTATS_FLOWLAT_IPFIX_BAD_LENGTH,   /* header length is not the datagram's */
	PKTSTATS_FLOWLAT_IPFIX_BAD_SET,      /* a set's length below 4 or beyond the message */
	PKTSTATS_FLOWLAT_IPFIX_BAD_TEMPLATE, /* a template set that is not the block's */
	PKTSTATS_FLOWLAT_IPFIX_UNKNOWN_SET,  /* a data set of another template than 256 */
	PKTSTATS_FLOWLAT_IPFIX_BAD_RECORDS,  /* data set length not 4 + 48 n */
	PKTSTATS_FLOWLAT_IPFIX_BAD_KIND,     /* event kind not 1, 2 or 3 */
	PKTSTATS_FLOWLAT_IPFIX_IMPOSSIBLE_FIELD, /* a value the block cannot send: ingress above 7,
						    egress above 3, group above 15, profile above
						    7, occupancy of 2^20 bytes or more */
};
const char *pktstats_flowlat_ipfix_strerror(enum pktstats_flowlat_ipfix_error error);
const char *pktstats_flowlat_ipfix_error_name(enum pktstats_flowlat_ipfix_error error);

/* Parses one IPFIX message (a UDP payload). The template set, when present, must be the
 * block's template 256 with enterprise number `enterprise_number`. Fills message and up to
 * max_events events (in order; records beyond max_events are counted in message->records but
 * not returned). Returns the number of events filled, with *error OK; or 0 with another
 * *error when the message is malformed (message holds what was read); -EINVAL for NULL
 * arguments (events may be NULL when max_events is 0). */
int pktstats_flowlat_ipfix_parse(const uint8_t *payload, size_t len, uint32_t enterprise_number,
				 struct pktstats_flowlat_message *message,
				 struct pktstats_flowlat_event *events, size_t max_events,
				 enum pktstats_flowlat_ipfix_error *error);

/* The most data records one IPFIX message holds: (65535 - 16 - 4) / 48 */
#define PKTSTATS_FLOWLAT_IPFIX_RECORDS_MAX 1364

/* An exporter's sequence numbers (RFC 7011 3.1: the data records it sent before the message),
 * followed message by message. Zero it to start. */
struct pktstats_flowlat_sequence {
	bool started;
	uint32_t next;     /* the next message's, when nothing is lost */
	uint64_t missing;  /* records skipped by a jump forward of up to RECORDS_MAX */
	uint64_t behind;   /* jumps back: a duplicate, a late message, an exporter that restarted */
	uint64_t resyncs;  /* jumps forward beyond what one message can hold: no loss explains
			      them (another exporter, a corrupt message); not counted missing */
};
/* Follows one valid message (its sequence and records), from there on whatever the jump.
 * Returns the records it finds missing before the message. */
uint64_t pktstats_flowlat_sequence_feed(struct pktstats_flowlat_sequence *sequence,
					const struct pktstats_flowlat_message *message);

#ifdef __cplusplus
}
#endif

#endif
