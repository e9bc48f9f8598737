/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: the registers read at a scrape and their metrics (registers.h). The
 * offsets come from the generated register map (pktstats/regs.h): a register of a queue or
 * port is found from its instance 0 and the distance to instance 1.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pktstats/regs.h"
#include "registers.h"

/* How a register's value becomes the sample's */
enum transform {
	AS_IS,
	WORDS_TO_BYTES, /* 64-bit words of the queues: x 8 */
	ENABLE_BIT,     /* evcap.control's enable bit */
	TICK_SECONDS,   /* evcap.resolution c: one tick is 8 ns << c */
};

enum label {
	NO_INDEX,
	BY_QUEUE,
	BY_PORT,
};

/* A label telling a family's members apart ({NULL}: none) */
struct extra_label {
	const char *name, *value;
};

struct register_metric {
	const struct expo_family *family;
	enum register_block block;
	uint32_t address; /* instance 0 */
	uint32_t stride;  /* instance 1 - instance 0 */
	unsigned count;   /* instances: 1, 4 ports or 8 queues */
	unsigned words;   /* 1, or 2: 64 bits, low word first (it latches the high word) */
	enum label label;
	enum transform transform;
	struct extra_label extra[2];
};

/* ---- families ---- */

EXPO_FAMILY(queue_stored_frames, "pktstats_queue_stored_frames", EXPO_COUNTER, NULL,
            "Frames committed to the output queue (switch.frames_stored).");
EXPO_FAMILY(queue_stored_bytes, "pktstats_queue_stored_bytes", EXPO_COUNTER, "bytes",
            "Bytes of the frames committed to the output queue (switch.bytes_stored).");
EXPO_FAMILY(queue_sent_frames, "pktstats_queue_sent_frames", EXPO_COUNTER, NULL,
            "Frames the output queue sent (switch.frames_removed).");
EXPO_FAMILY(queue_sent_bytes, "pktstats_queue_sent_bytes", EXPO_COUNTER, "bytes",
            "Bytes of the frames the output queue sent (switch.bytes_removed).");
EXPO_FAMILY(queue_dropped_frames, "pktstats_queue_dropped_frames", EXPO_COUNTER, NULL,
            "Frames the output queue dropped: they would have taken it past its limit "
            "(switch.frames_dropped).");
EXPO_FAMILY(queue_dropped_bytes, "pktstats_queue_dropped_bytes", EXPO_COUNTER, "bytes",
            "Bytes of the frames the output queue dropped (switch.bytes_dropped).");
EXPO_FAMILY(queue_occupancy, "pktstats_queue_occupancy_bytes", EXPO_GAUGE, "bytes",
            "Bytes in the output queue when the scrape read it (switch.queue_occupancy x 8).");
EXPO_FAMILY(queue_limit, "pktstats_queue_limit_bytes", EXPO_GAUGE, "bytes",
            "The output queue's tail-drop limit (switch.queue_limit x 8).");
EXPO_FAMILY(queue_peak_since_clear, "pktstats_queue_peak_since_clear_bytes", EXPO_GAUGE, "bytes",
            "Largest occupancy of the output queue since its counters were last cleared "
            "(switch.peak_occupancy x 8).");
EXPO_FAMILY(switch_lookups, "pktstats_switch_lookups", EXPO_COUNTER, NULL,
            "Frames the learning switch looked up (switch.frames_looked_up).");
EXPO_FAMILY(switch_flooded, "pktstats_switch_flooded_frames", EXPO_COUNTER, NULL,
            "Frames flooded: unknown or group destination (switch.frames_flooded).");
EXPO_FAMILY(switch_filtered, "pktstats_switch_filtered_frames", EXPO_COUNTER, NULL,
            "Frames filtered: destination on the input port (switch.frames_filtered).");
EXPO_FAMILY(switch_too_short, "pktstats_switch_short_frames", EXPO_COUNTER, NULL,
            "Frames too short to look up (switch.frames_too_short).");
EXPO_FAMILY(switch_learned, "pktstats_switch_fdb_learned", EXPO_COUNTER, NULL,
            "Learning table entries learned (switch.entries_learned).");
EXPO_FAMILY(switch_aged_out, "pktstats_switch_fdb_aged_out", EXPO_COUNTER, NULL,
            "Learning table entries aged out (switch.entries_aged_out).");
EXPO_FAMILY(capture_enabled, "pktstats_capture_enabled", EXPO_GAUGE, NULL,
            "1 when event capture is on (evcap.control's enable bit).");
EXPO_FAMILY(capture_tick, "pktstats_capture_tick_seconds", EXPO_GAUGE, "seconds",
            "The event timestamps' resolution: 8 ns << evcap.resolution.");
EXPO_FAMILY(capture_events_sent, "pktstats_capture_events_sent", EXPO_COUNTER, NULL,
            "Queue events the switch sent in stat packets (evcap.events_sent).");
EXPO_FAMILY(capture_events_missed, "pktstats_capture_events_missed", EXPO_COUNTER, NULL,
            "Queue events the switch lost: its record FIFO was full (evcap.events_missed).");
EXPO_FAMILY(capture_packets_sent, "pktstats_capture_stat_packets_sent", EXPO_COUNTER, NULL,
            "Stat packets the switch sent (evcap.packets_sent).");
EXPO_FAMILY(oam_frames, "pktstats_oam_frames", EXPO_COUNTER, NULL,
            "Frames the link-delay engines of a MAC port handled, by protocol (dm: Y.1731 "
            "ETH-DM, headroom, isl: OpenKilda discovery) and action (oam block counters).");
EXPO_FAMILY(flowlat_monitored, "pktstats_flowlat_monitored_frames", EXPO_COUNTER, NULL,
            "Frames a flow-latency rule matched (flowlat.monitored).");
EXPO_FAMILY(flowlat_unmatched, "pktstats_flowlat_unmatched_frames", EXPO_COUNTER, NULL,
            "IPv4 frames no flow-latency rule matched (flowlat.unmatched).");
EXPO_FAMILY(flowlat_table_full, "pktstats_flowlat_table_full_frames", EXPO_COUNTER, NULL,
            "Matched frames of new flows the full flow table could not take (flowlat.table_full).");
EXPO_FAMILY(flowlat_evicted, "pktstats_flowlat_flows_evicted", EXPO_COUNTER, NULL,
            "Stale flows evicted from the flow table (flowlat.evicted).");
EXPO_FAMILY(flowlat_evicted_breach, "pktstats_flowlat_flows_evicted_in_breach", EXPO_COUNTER,
            NULL, "Flows evicted while in breach: their LOW event never comes "
            "(flowlat.evicted_in_breach).");
EXPO_FAMILY(flowlat_events, "pktstats_flowlat_events_generated", EXPO_COUNTER, NULL,
            "Latency events the monitor raised (flowlat.events).");
EXPO_FAMILY(flowlat_events_lost, "pktstats_flowlat_events_lost", EXPO_COUNTER, NULL,
            "Latency events lost: the exporter's queue was full (flowlat.events_lost).");
EXPO_FAMILY(flowlat_records_lost, "pktstats_flowlat_records_lost", EXPO_COUNTER, NULL,
            "Frame records lost before the flow table (flowlat.records_lost).");
EXPO_FAMILY(flowlat_not_ipv4, "pktstats_flowlat_non_ipv4_frames", EXPO_COUNTER, NULL,
            "Frames on watched ports that are not IPv4 (flowlat.not_ipv4).");
EXPO_FAMILY(flowlat_no_stamp, "pktstats_flowlat_unstamped_frames", EXPO_COUNTER, NULL,
            "Frames without a residence time (flowlat.no_stamp).");
EXPO_FAMILY(flowlat_messages, "pktstats_flowlat_ipfix_messages_sent", EXPO_COUNTER, NULL,
            "IPFIX messages the switch sent (flowlat.messages).");
EXPO_FAMILY(flowlat_templates, "pktstats_flowlat_ipfix_templates_sent", EXPO_COUNTER, NULL,
            "IPFIX template sets the switch sent (flowlat.templates).");
EXPO_FAMILY(flowlat_records, "pktstats_flowlat_ipfix_records_sent", EXPO_COUNTER, NULL,
            "IPFIX data records (events) the switch sent (flowlat.records_exported).");
EXPO_FAMILY(mac_tx_frames, "pktstats_mac_transmitted_frames", EXPO_COUNTER, NULL,
            "Frames the MAC sent whole with their FCS (mac.tx_frames).");
EXPO_FAMILY(mac_tx_bytes, "pktstats_mac_transmitted_bytes", EXPO_COUNTER, "bytes",
            "Bytes the MAC sent, padded to 60, without preamble and FCS (mac.tx_bytes).");
EXPO_FAMILY(mac_tx_underruns, "pktstats_mac_transmit_underruns", EXPO_COUNTER, NULL,
            "Frames cut by an underrun, sent with a bad FCS (mac.tx_underruns).");
EXPO_FAMILY(mac_rx_frames, "pktstats_mac_received_frames", EXPO_COUNTER, NULL,
            "Good frames the MAC received (mac.rx_frames).");
EXPO_FAMILY(mac_rx_bytes, "pktstats_mac_received_bytes", EXPO_COUNTER, "bytes",
            "Bytes of the good frames received, without FCS (mac.rx_bytes).");
EXPO_FAMILY(mac_rx_errors, "pktstats_mac_receive_errors", EXPO_COUNTER, NULL,
            "Frames the MAC dropped on receive, by kind: fcs, runt, giant, preamble, rx_er, "
            "overflow (the FIFO to the switch was full).");

/* ---- the table: each family's entries together ---- */

#define STRIDE(reg) (PKTSTATS_##reg##_1 - PKTSTATS_##reg##_0)
/* a 64-bit counter of each queue; a queue's words (1 or 2 registers) shown as bytes */
#define QUEUE_COUNTER(f, reg) \
	{&f, BLOCK_SWITCH, PKTSTATS_SWITCH_##reg##_0, STRIDE(SWITCH_##reg), 8, 2, BY_QUEUE, AS_IS, {{0}}}
#define QUEUE_BYTES(f, reg, words)                                                            \
	{&f, BLOCK_SWITCH, PKTSTATS_SWITCH_##reg##_0, STRIDE(SWITCH_##reg), 8, words, BY_QUEUE,   \
	 WORDS_TO_BYTES, {{0}}}
/* a block's 64-bit counter, or a register of one word shown through a transform */
#define COUNTER(f, block, reg) \
	{&f, BLOCK_##block, PKTSTATS_##block##_##reg, 0, 1, 2, NO_INDEX, AS_IS, {{0}}}
#define WORD(f, block, reg, transform) \
	{&f, BLOCK_##block, PKTSTATS_##block##_##reg, 0, 1, 1, NO_INDEX, transform, {{0}}}
/* a 64-bit counter of each MAC port: the oam block's by protocol and action, the MAC's */
#define OAM_COUNTER(reg, protocol, action)                                                     \
	{&oam_frames, BLOCK_OAM, PKTSTATS_OAM_##reg##_0, STRIDE(OAM_##reg), 4, 2, BY_PORT, AS_IS, \
	 {{"protocol", protocol}, {"action", action}}}
#define MAC_COUNTER(f, reg) \
	{&f, BLOCK_MAC, PKTSTATS_MAC_##reg##_0, STRIDE(MAC_##reg), 4, 2, BY_PORT, AS_IS, {{0}}}
#define MAC_ERRORS(reg, kind)                                                                  \
	{&mac_rx_errors, BLOCK_MAC, PKTSTATS_MAC_##reg##_0, STRIDE(MAC_##reg), 4, 2, BY_PORT,     \
	 AS_IS, {{"kind", kind}}}

static const struct register_metric table[] = {
	QUEUE_COUNTER(queue_stored_frames, FRAMES_STORED),
	QUEUE_COUNTER(queue_stored_bytes, BYTES_STORED),
	QUEUE_COUNTER(queue_sent_frames, FRAMES_REMOVED),
	QUEUE_COUNTER(queue_sent_bytes, BYTES_REMOVED),
	QUEUE_COUNTER(queue_dropped_frames, FRAMES_DROPPED),
	QUEUE_COUNTER(queue_dropped_bytes, BYTES_DROPPED),
	QUEUE_BYTES(queue_occupancy, QUEUE_OCCUPANCY, 1),
	QUEUE_BYTES(queue_limit, QUEUE_LIMIT, 1),
	QUEUE_BYTES(queue_peak_since_clear, PEAK_OCCUPANCY, 2),
	COUNTER(switch_lookups, SWITCH, FRAMES_LOOKED_UP),
	COUNTER(switch_flooded, SWITCH, FRAMES_FLOODED),
	COUNTER(switch_filtered, SWITCH, FRAMES_FILTERED),
	COUNTER(switch_too_short, SWITCH, FRAMES_TOO_SHORT),
	COUNTER(switch_learned, SWITCH, ENTRIES_LEARNED),
	COUNTER(switch_aged_out, SWITCH, ENTRIES_AGED_OUT),
	WORD(capture_enabled, EVCAP, CONTROL, ENABLE_BIT),
	WORD(capture_tick, EVCAP, RESOLUTION, TICK_SECONDS),
	COUNTER(capture_events_sent, EVCAP, EVENTS_SENT),
	COUNTER(capture_events_missed, EVCAP, EVENTS_MISSED),
	COUNTER(capture_packets_sent, EVCAP, PACKETS_SENT),
	OAM_COUNTER(DM_STAMPED, "dm", "stamped"),
	OAM_COUNTER(DM_ANSWERED, "dm", "answered"),
	OAM_COUNTER(DM_REPLIES_SENT, "dm", "reply_sent"),
	OAM_COUNTER(DM_PASSED_UP, "dm", "passed_up"),
	OAM_COUNTER(DM_MALFORMED, "dm", "malformed"),
	OAM_COUNTER(HEADROOM_STAMPED, "headroom", "stamped"),
	OAM_COUNTER(HEADROOM_ANSWERED, "headroom", "answered"),
	OAM_COUNTER(HEADROOM_REPLIES_SENT, "headroom", "reply_sent"),
	OAM_COUNTER(HEADROOM_PASSED_UP, "headroom", "passed_up"),
	OAM_COUNTER(HEADROOM_MALFORMED, "headroom", "malformed"),
	OAM_COUNTER(ISL_T0_STAMPED, "isl", "t0_stamped"),
	OAM_COUNTER(ISL_T1_STAMPED, "isl", "t1_stamped"),
	OAM_COUNTER(ISL_REFLECTED, "isl", "reflected"),
	OAM_COUNTER(ISL_PASSED_UP, "isl", "passed_up"),
	COUNTER(flowlat_monitored, FLOWLAT, MONITORED),
	COUNTER(flowlat_unmatched, FLOWLAT, UNMATCHED),
	COUNTER(flowlat_table_full, FLOWLAT, TABLE_FULL),
	COUNTER(flowlat_evicted, FLOWLAT, EVICTED),
	COUNTER(flowlat_evicted_breach, FLOWLAT, EVICTED_IN_BREACH),
	COUNTER(flowlat_events, FLOWLAT, EVENTS),
	COUNTER(flowlat_events_lost, FLOWLAT, EVENTS_LOST),
	COUNTER(flowlat_records_lost, FLOWLAT, RECORDS_LOST),
	COUNTER(flowlat_not_ipv4, FLOWLAT, NOT_IPV4),
	COUNTER(flowlat_no_stamp, FLOWLAT, NO_STAMP),
	COUNTER(flowlat_messages, FLOWLAT, MESSAGES),
	COUNTER(flowlat_templates, FLOWLAT, TEMPLATES),
	COUNTER(flowlat_records, FLOWLAT, RECORDS_EXPORTED),
	MAC_COUNTER(mac_tx_frames, TX_FRAMES),
	MAC_COUNTER(mac_tx_bytes, TX_BYTES),
	MAC_COUNTER(mac_tx_underruns, TX_UNDERRUNS),
	MAC_COUNTER(mac_rx_frames, RX_FRAMES),
	MAC_COUNTER(mac_rx_bytes, RX_BYTES),
	MAC_ERRORS(RX_FCS_ERRORS, "fcs"),
	MAC_ERRORS(RX_RUNTS, "runt"),
	MAC_ERRORS(RX_GIANTS, "giant"),
	MAC_ERRORS(RX_PREAMBLE_ERRORS, "preamble"),
	MAC_ERRORS(RX_ERRORS, "rx_er"),
	MAC_ERRORS(RX_OVERFLOWS, "overflow"),
};
#define TABLE_SIZE (sizeof table / sizeof table[0])

_Static_assert(TABLE_SIZE <= sizeof ((struct register_snapshot *)0)->position /
				     sizeof(int), "register_snapshot.position holds the table");

/* The type register of each block and what it reads */
static const struct {
	uint32_t address, value;
} block_types[BLOCK_COUNT] = {
	[BLOCK_EVCAP] = {PKTSTATS_EVCAP_TYPE, PKTSTATS_EVCAP_TYPE_VALUE},
	[BLOCK_SWITCH] = {PKTSTATS_SWITCH_TYPE, PKTSTATS_SWITCH_TYPE_VALUE},
	[BLOCK_TIME] = {PKTSTATS_TIME_TYPE, PKTSTATS_TIME_TYPE_VALUE},
	[BLOCK_OAM] = {PKTSTATS_OAM_TYPE, PKTSTATS_OAM_TYPE_VALUE},
	[BLOCK_FLOWLAT] = {PKTSTATS_FLOWLAT_TYPE, PKTSTATS_FLOWLAT_TYPE_VALUE},
	[BLOCK_MAC] = {PKTSTATS_MAC_TYPE, PKTSTATS_MAC_TYPE_VALUE},
};

int registers_probe(struct pktstats_dev *dev, bool blocks[BLOCK_COUNT])
{
	for (unsigned b = 0; b < BLOCK_COUNT; b++) {
		uint32_t value = 0;
		int err = pktstats_read32(dev, block_types[b].address, &value);
		/* no block there: the interconnect's decode error (or a board's other value) */
		if (err < 0 && err != -ENXIO && err != -EIO)
			return err;
		blocks[b] = err == 0 && value == block_types[b].value;
	}
	return 0;
}

size_t registers_plan(const bool blocks[BLOCK_COUNT], uint32_t *offsets,
		      struct register_snapshot *snapshot)
{
	size_t n = 0;
	for (size_t i = 0; i < TABLE_SIZE; i++) {
		const struct register_metric *m = &table[i];
		if (!blocks[m->block] || n + m->count * m->words > REGISTERS_READS_MAX) {
			snapshot->position[i] = -1;
			continue;
		}
		snapshot->position[i] = (int)n;
		for (unsigned k = 0; k < m->count; k++)
			for (unsigned w = 0; w < m->words; w++)
				offsets[n++] = m->address + k * m->stride + 4 * w;
	}
	return n;
}

static void sample(struct exposition *e, const struct register_metric *m, const char *switch_name,
		   unsigned index, uint64_t value)
{
	struct expo_labels labels;
	char number[8];
	snprintf(number, sizeof number, "%u", index);
	expo_labels(&labels, "switch", switch_name, NULL);
	if (m->label != NO_INDEX)
		expo_label_add(&labels, m->label == BY_QUEUE ? "queue" : "port", number);
	for (unsigned x = 0; x < 2 && m->extra[x].name; x++)
		expo_label_add(&labels, m->extra[x].name, m->extra[x].value);
	switch (m->transform) {
	case WORDS_TO_BYTES:
		value *= 8;
		break;
	case ENABLE_BIT:
		value = (value & PKTSTATS_EVCAP_CONTROL_ENABLE_MASK) != 0;
		break;
	case TICK_SECONDS:
		expo_gauge_ns(e, &labels, (int64_t)8 << (value & PKTSTATS_EVCAP_RESOLUTION_MASK));
		return;
	case AS_IS:
		break;
	}
	if (m->family->type == EXPO_COUNTER)
		expo_counter(e, &labels, value);
	else
		expo_gauge(e, &labels, (int64_t)value);
}

void registers_render(struct exposition *e, const struct register_view *views, size_t n)
{
	for (size_t first = 0; first < TABLE_SIZE;) {
		size_t end = first + 1;
		while (end < TABLE_SIZE && table[end].family == table[first].family)
			end++;
		bool any = false;
		for (size_t v = 0; v < n && !any; v++)
			for (size_t i = first; i < end && views[v].snapshot; i++)
				any |= views[v].snapshot->position[i] >= 0;
		if (any) {
			expo_family(e, table[first].family);
			for (size_t v = 0; v < n; v++) {
				const struct register_snapshot *s = views[v].snapshot;
				for (size_t i = first; s && i < end; i++) {
					if (s->position[i] < 0)
						continue;
					const struct register_metric *m = &table[i];
					const uint32_t *value = &s->values[s->position[i]];
					for (unsigned k = 0; k < m->count; k++, value += m->words)
						sample(e, m, views[v].switch_name, k,
						       m->words == 2 ? (uint64_t)value[1] << 32 | value[0]
								     : value[0]);
				}
			}
		}
		first = end;
	}
}
