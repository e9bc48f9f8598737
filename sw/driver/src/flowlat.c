/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats flow-latency monitor (pktstats/flowlat.h, docs/flowlat.md): the `flowlat`
 * register block (regmap/flowlat.toml) as structs: flow groups (rules), latency profiles, the
 * monitor's and the IPFIX exporter's configuration, status, the per-flow table's lookup by
 * 5-tuple, commands and counters; and a parser for the IPFIX messages the block sends (RFC
 * 7011, template 256 of rtl/flowlat/flowlat_ipfix.v), for tools that receive its events.
 */
#define _DEFAULT_SOURCE /* device_internal.h: IFNAMSIZ, PATH_MAX */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "byte_order.h"
#include "device_internal.h"
#include "named_access.h"
#include "pktstats/flowlat.h"
#include "pktstats/regs.h"

/* The field layout of rule_control_i and profile_control_i is that of copy 0 (one layout
 * for every copy). */
#define RULE_SRC_LENGTH_SHIFT PKTSTATS_FLOWLAT_RULE_CONTROL_0_SRC_LENGTH_SHIFT
#define RULE_SRC_LENGTH PKTSTATS_FLOWLAT_RULE_CONTROL_0_SRC_LENGTH_MASK
#define RULE_DST_LENGTH_SHIFT PKTSTATS_FLOWLAT_RULE_CONTROL_0_DST_LENGTH_SHIFT
#define RULE_DST_LENGTH PKTSTATS_FLOWLAT_RULE_CONTROL_0_DST_LENGTH_MASK
#define RULE_PROTOCOL_SHIFT PKTSTATS_FLOWLAT_RULE_CONTROL_0_PROTOCOL_SHIFT
#define RULE_PROTOCOL PKTSTATS_FLOWLAT_RULE_CONTROL_0_PROTOCOL_MASK
#define RULE_PROTOCOL_ANY PKTSTATS_FLOWLAT_RULE_CONTROL_0_PROTOCOL_ANY_MASK
#define RULE_SPORT_ANY PKTSTATS_FLOWLAT_RULE_CONTROL_0_SPORT_ANY_MASK
#define RULE_DPORT_ANY PKTSTATS_FLOWLAT_RULE_CONTROL_0_DPORT_ANY_MASK
#define RULE_EGRESS_PORTS_SHIFT PKTSTATS_FLOWLAT_RULE_CONTROL_0_EGRESS_PORTS_SHIFT
#define RULE_EGRESS_PORTS PKTSTATS_FLOWLAT_RULE_CONTROL_0_EGRESS_PORTS_MASK
#define RULE_PROFILE_SHIFT PKTSTATS_FLOWLAT_RULE_CONTROL_0_PROFILE_SHIFT
#define RULE_PROFILE PKTSTATS_FLOWLAT_RULE_CONTROL_0_PROFILE_MASK
#define RULE_VALID PKTSTATS_FLOWLAT_RULE_CONTROL_0_VALID_MASK
#define RULE_SPORT_SHIFT PKTSTATS_FLOWLAT_RULE_PORTS_0_SPORT_SHIFT
#define RULE_SPORT PKTSTATS_FLOWLAT_RULE_PORTS_0_SPORT_MASK
#define RULE_DPORT_SHIFT PKTSTATS_FLOWLAT_RULE_PORTS_0_DPORT_SHIFT
#define RULE_DPORT PKTSTATS_FLOWLAT_RULE_PORTS_0_DPORT_MASK
#define PROFILE_STATEFUL PKTSTATS_FLOWLAT_PROFILE_CONTROL_0_STATEFUL_MASK

/* status and lookup_status have no fields in the register map (read-only words with their
 * layout in the description): bits as regmap/flowlat.toml describes them. */
#define STATUS_CLEARING 0x1u
#define STATUS_EVENTS_SHIFT 8
#define STATUS_EVENTS 0x7f00u
#define STATUS_RECORDS_SHIFT 16
#define STATUS_RECORDS 0x1f0000u
#define LOOKUP_DONE 0x1u
#define LOOKUP_FOUND 0x2u
#define LOOKUP_BREACH 0x4u
#define LOOKUP_GROUP_SHIFT 4
#define LOOKUP_GROUP 0xf0u

#define PREFIX_MAX 32

/* The block is there and is the one this code knows (as oam.c checks its block). */
static int check_block(struct pktstats_dev *dev)
{
	uint32_t type;
	int err = named_read32(dev, PKTSTATS_FLOWLAT_TYPE, &type);
	/* A decode error: nothing answers at the block's address. Any other failure (the
	 * connection, a timeout) is itself the answer. */
	if (err == -ENXIO) {
		pktstats_error_prefix(dev, "the device has no flowlat block: ");
		return -ENODEV;
	}
	if (err < 0)
		return err;
	if (type != PKTSTATS_FLOWLAT_TYPE_VALUE)
		return pktstats_fail(dev, -ENODEV,
				     "the device has no flowlat block: flowlat.type reads 0x%08" PRIx32
				     ", not 0x%08" PRIx32 " (\"FLAT\")",
				     type, (uint32_t)PKTSTATS_FLOWLAT_TYPE_VALUE);
	return 0;
}

static int check_index(struct pktstats_dev *dev, const char *what, unsigned index,
		       unsigned count)
{
	if (index >= count)
		return pktstats_fail(dev, -EINVAL, "flowlat: %s %u is not 0..%u", what, index,
				     count - 1);
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Rules (flow groups) */

int pktstats_flowlat_rule_get(struct pktstats_dev *dev, unsigned index,
			      struct pktstats_flowlat_rule *rule)
{
	if (!dev || !rule)
		return -EINVAL;
	memset(rule, 0, sizeof *rule);
	int err = check_index(dev, "rule", index, PKTSTATS_FLOWLAT_RULES);
	uint32_t src, dst, ports, control;
	if (err < 0 || (err = check_block(dev)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_RULE_SRC_IP(index), &src)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_RULE_DST_IP(index), &dst)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_RULE_PORTS(index), &ports)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_RULE_CONTROL(index), &control)) < 0)
		return err;
	rule->valid = control & RULE_VALID;
	rule->source_ip = src;
	rule->source_length = (uint8_t)((control & RULE_SRC_LENGTH) >> RULE_SRC_LENGTH_SHIFT);
	rule->destination_ip = dst;
	rule->destination_length = (uint8_t)((control & RULE_DST_LENGTH) >> RULE_DST_LENGTH_SHIFT);
	rule->protocol_any = control & RULE_PROTOCOL_ANY;
	rule->protocol = (uint8_t)((control & RULE_PROTOCOL) >> RULE_PROTOCOL_SHIFT);
	rule->source_port_any = control & RULE_SPORT_ANY;
	rule->source_port = (uint16_t)((ports & RULE_SPORT) >> RULE_SPORT_SHIFT);
	rule->destination_port_any = control & RULE_DPORT_ANY;
	rule->destination_port = (uint16_t)((ports & RULE_DPORT) >> RULE_DPORT_SHIFT);
	rule->egress_ports = (uint8_t)((control & RULE_EGRESS_PORTS) >> RULE_EGRESS_PORTS_SHIFT);
	rule->profile = (uint8_t)((control & RULE_PROFILE) >> RULE_PROFILE_SHIFT);
	return 0;
}

int pktstats_flowlat_rule_set(struct pktstats_dev *dev, unsigned index,
			      const struct pktstats_flowlat_rule *rule)
{
	if (!dev || !rule)
		return -EINVAL;
	int err = check_index(dev, "rule", index, PKTSTATS_FLOWLAT_RULES);
	if (err < 0)
		return err;
	/* The hardware takes a length above 32 as 32: refused here, so that what reads back is
	 * what the rule does. Host bits of an address are kept as given: the hardware compares
	 * only the prefix bits, and the register then shows what the user wrote. */
	if (rule->source_length > PREFIX_MAX)
		return pktstats_fail(dev, -EINVAL, "flowlat: rule %u: source prefix length %u is not "
				     "0..32", index, rule->source_length);
	if (rule->destination_length > PREFIX_MAX)
		return pktstats_fail(dev, -EINVAL, "flowlat: rule %u: destination prefix length %u "
				     "is not 0..32", index, rule->destination_length);
	if (rule->egress_ports >> PKTSTATS_FLOWLAT_MAC_PORTS)
		return pktstats_fail(dev, -EINVAL, "flowlat: rule %u: egress ports 0x%x name ports "
				     "other than the MAC ports 0..%d", index, rule->egress_ports,
				     PKTSTATS_FLOWLAT_MAC_PORTS - 1);
	if (rule->profile >= PKTSTATS_FLOWLAT_PROFILES)
		return pktstats_fail(dev, -EINVAL, "flowlat: rule %u: profile %u is not 0..%d", index,
				     rule->profile, PKTSTATS_FLOWLAT_PROFILES - 1);
	if ((err = check_block(dev)) < 0)
		return err;
	uint32_t ports = ((uint32_t)rule->source_port << RULE_SPORT_SHIFT & RULE_SPORT) |
			 ((uint32_t)rule->destination_port << RULE_DPORT_SHIFT & RULE_DPORT);
	uint32_t control =
		((uint32_t)rule->source_length << RULE_SRC_LENGTH_SHIFT & RULE_SRC_LENGTH) |
		((uint32_t)rule->destination_length << RULE_DST_LENGTH_SHIFT & RULE_DST_LENGTH) |
		((uint32_t)rule->protocol << RULE_PROTOCOL_SHIFT & RULE_PROTOCOL) |
		(rule->protocol_any ? RULE_PROTOCOL_ANY : 0) |
		(rule->source_port_any ? RULE_SPORT_ANY : 0) |
		(rule->destination_port_any ? RULE_DPORT_ANY : 0) |
		((uint32_t)rule->egress_ports << RULE_EGRESS_PORTS_SHIFT & RULE_EGRESS_PORTS) |
		((uint32_t)rule->profile << RULE_PROFILE_SHIFT & RULE_PROFILE) |
		(rule->valid ? RULE_VALID : 0);
	/* Control last: a rule that becomes valid has its addresses and ports in place. */
	if ((err = named_write32(dev, PKTSTATS_FLOWLAT_RULE_SRC_IP(index), rule->source_ip)) < 0 ||
	    (err = named_write32(dev, PKTSTATS_FLOWLAT_RULE_DST_IP(index),
				 rule->destination_ip)) < 0 ||
	    (err = named_write32(dev, PKTSTATS_FLOWLAT_RULE_PORTS(index), ports)) < 0)
		return err;
	return named_write32(dev, PKTSTATS_FLOWLAT_RULE_CONTROL(index), control);
}

/* ---------------------------------------------------------------------------------------- */
/* Latency profiles */

int pktstats_flowlat_profile_get(struct pktstats_dev *dev, unsigned index,
				 struct pktstats_flowlat_profile *profile)
{
	if (!dev || !profile)
		return -EINVAL;
	memset(profile, 0, sizeof *profile);
	int err = check_index(dev, "profile", index, PKTSTATS_FLOWLAT_PROFILES);
	uint32_t high, low, interval, control;
	if (err < 0 || (err = check_block(dev)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_PROFILE_HIGH(index), &high)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_PROFILE_LOW(index), &low)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_PROFILE_MIN_INTERVAL_US(index),
				&interval)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_PROFILE_CONTROL(index), &control)) < 0)
		return err;
	profile->stateful = control & PROFILE_STATEFUL;
	/* two's complement in the registers */
	profile->high_ns = (int32_t)high;
	profile->low_ns = (int32_t)low;
	profile->min_interval_us = interval;
	return 0;
}

int pktstats_flowlat_profile_set(struct pktstats_dev *dev, unsigned index,
				 const struct pktstats_flowlat_profile *profile)
{
	if (!dev || !profile)
		return -EINVAL;
	/* Every field fills its register: only the index can be out of range. */
	int err = check_index(dev, "profile", index, PKTSTATS_FLOWLAT_PROFILES);
	if (err < 0 || (err = check_block(dev)) < 0)
		return err;
	/* The kind last: a profile turned stateful has its thresholds in place. */
	if ((err = named_write32(dev, PKTSTATS_FLOWLAT_PROFILE_HIGH(index),
				 (uint32_t)profile->high_ns)) < 0 ||
	    (err = named_write32(dev, PKTSTATS_FLOWLAT_PROFILE_LOW(index),
				 (uint32_t)profile->low_ns)) < 0 ||
	    (err = named_write32(dev, PKTSTATS_FLOWLAT_PROFILE_MIN_INTERVAL_US(index),
				 profile->min_interval_us)) < 0)
		return err;
	return named_write32(dev, PKTSTATS_FLOWLAT_PROFILE_CONTROL(index),
			     profile->stateful ? PROFILE_STATEFUL : 0);
}

/* ---------------------------------------------------------------------------------------- */
/* The monitor and the exporter */

void pktstats_flowlat_config_defaults(struct pktstats_flowlat_config *config)
{
	if (!config)
		return;
	memset(config, 0, sizeof *config);
	uint32_t control = PKTSTATS_FLOWLAT_CONTROL_RESET;
	config->monitor_enable = control & PKTSTATS_FLOWLAT_CONTROL_MONITOR_ENABLE_MASK;
	config->export_enable = control & PKTSTATS_FLOWLAT_CONTROL_EXPORT_ENABLE_MASK;
	config->export_ports = (uint8_t)((control & PKTSTATS_FLOWLAT_CONTROL_EXPORT_PORTS_MASK) >>
					 PKTSTATS_FLOWLAT_CONTROL_EXPORT_PORTS_SHIFT);
	config->idle_timeout_us = PKTSTATS_FLOWLAT_IDLE_TIMEOUT_US_RESET;
	mac_from_register(PKTSTATS_FLOWLAT_IPFIX_DESTINATION_MAC_RESET, config->destination_mac);
	mac_from_register(PKTSTATS_FLOWLAT_IPFIX_SOURCE_MAC_RESET, config->source_mac);
	config->source_ip = PKTSTATS_FLOWLAT_IPFIX_SOURCE_IP_RESET;
	config->destination_ip = PKTSTATS_FLOWLAT_IPFIX_DESTINATION_IP_RESET;
	config->source_port = PKTSTATS_FLOWLAT_IPFIX_PORTS_SOURCE_RESET;
	config->destination_port = PKTSTATS_FLOWLAT_IPFIX_PORTS_DESTINATION_RESET;
	config->observation_domain = PKTSTATS_FLOWLAT_OBSERVATION_DOMAIN_RESET;
	config->enterprise_number = PKTSTATS_FLOWLAT_ENTERPRISE_NUMBER_RESET;
	config->template_interval_s = PKTSTATS_FLOWLAT_TEMPLATE_INTERVAL_S_RESET;
	config->mtu = PKTSTATS_FLOWLAT_MTU_RESET;
	config->flush_timeout_us = PKTSTATS_FLOWLAT_FLUSH_TIMEOUT_US_RESET;
}

int pktstats_flowlat_config_get(struct pktstats_dev *dev, struct pktstats_flowlat_config *config)
{
	if (!dev || !config)
		return -EINVAL;
	memset(config, 0, sizeof *config);
	uint32_t control, ports, interval, mtu;
	uint64_t destination_mac, source_mac;
	int err;
	if ((err = check_block(dev)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_CONTROL, &control)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_IDLE_TIMEOUT_US,
				&config->idle_timeout_us)) < 0 ||
	    (err = named_read64(dev, PKTSTATS_FLOWLAT_IPFIX_DESTINATION_MAC,
				&destination_mac)) < 0 ||
	    (err = named_read64(dev, PKTSTATS_FLOWLAT_IPFIX_SOURCE_MAC, &source_mac)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_IPFIX_SOURCE_IP, &config->source_ip)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_IPFIX_DESTINATION_IP,
				&config->destination_ip)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_IPFIX_PORTS, &ports)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_OBSERVATION_DOMAIN,
				&config->observation_domain)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_ENTERPRISE_NUMBER,
				&config->enterprise_number)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_TEMPLATE_INTERVAL_S, &interval)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_MTU, &mtu)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_FLUSH_TIMEOUT_US,
				&config->flush_timeout_us)) < 0)
		return err;
	config->monitor_enable = control & PKTSTATS_FLOWLAT_CONTROL_MONITOR_ENABLE_MASK;
	config->export_enable = control & PKTSTATS_FLOWLAT_CONTROL_EXPORT_ENABLE_MASK;
	config->export_ports = (uint8_t)((control & PKTSTATS_FLOWLAT_CONTROL_EXPORT_PORTS_MASK) >>
					 PKTSTATS_FLOWLAT_CONTROL_EXPORT_PORTS_SHIFT);
	mac_from_register(destination_mac, config->destination_mac);
	mac_from_register(source_mac, config->source_mac);
	config->source_port = (uint16_t)((ports & PKTSTATS_FLOWLAT_IPFIX_PORTS_SOURCE_MASK) >>
					 PKTSTATS_FLOWLAT_IPFIX_PORTS_SOURCE_SHIFT);
	config->destination_port =
		(uint16_t)((ports & PKTSTATS_FLOWLAT_IPFIX_PORTS_DESTINATION_MASK) >>
			   PKTSTATS_FLOWLAT_IPFIX_PORTS_DESTINATION_SHIFT);
	config->template_interval_s = (uint16_t)(interval & PKTSTATS_FLOWLAT_TEMPLATE_INTERVAL_S_MASK);
	config->mtu = (uint16_t)(mtu & PKTSTATS_FLOWLAT_MTU_MASK);
	return 0;
}

int pktstats_flowlat_config_set(struct pktstats_dev *dev,
				const struct pktstats_flowlat_config *config)
{
	if (!dev || !config)
		return -EINVAL;
	/* The hardware clamps the MTU to 200..9000 but reads back what was written: refused here,
	 * so that the register never says something the exporter does not do. */
	if (config->mtu < PKTSTATS_FLOWLAT_MTU_MIN || config->mtu > PKTSTATS_FLOWLAT_MTU_MAX)
		return pktstats_fail(dev, -EINVAL, "flowlat: MTU %u is not %d..%d bytes", config->mtu,
				     PKTSTATS_FLOWLAT_MTU_MIN, PKTSTATS_FLOWLAT_MTU_MAX);
	/* UDP port 0 is reserved: no collector listens there. */
	if (config->source_port == 0 || config->destination_port == 0)
		return pktstats_fail(dev, -EINVAL, "flowlat: IPFIX UDP %s port 0 (1..65535)",
				     config->source_port == 0 ? "source" : "destination");
	int err = check_block(dev);
	if (err < 0)
		return err;
	const struct {
		uint32_t address;
		uint32_t value;
	} words[] = {
		{PKTSTATS_FLOWLAT_IDLE_TIMEOUT_US, config->idle_timeout_us},
		{PKTSTATS_FLOWLAT_IPFIX_SOURCE_IP, config->source_ip},
		{PKTSTATS_FLOWLAT_IPFIX_DESTINATION_IP, config->destination_ip},
		{PKTSTATS_FLOWLAT_IPFIX_PORTS,
		 ((uint32_t)config->source_port << PKTSTATS_FLOWLAT_IPFIX_PORTS_SOURCE_SHIFT &
		  PKTSTATS_FLOWLAT_IPFIX_PORTS_SOURCE_MASK) |
			 ((uint32_t)config->destination_port
				  << PKTSTATS_FLOWLAT_IPFIX_PORTS_DESTINATION_SHIFT &
			  PKTSTATS_FLOWLAT_IPFIX_PORTS_DESTINATION_MASK)},
		{PKTSTATS_FLOWLAT_OBSERVATION_DOMAIN, config->observation_domain},
		{PKTSTATS_FLOWLAT_ENTERPRISE_NUMBER, config->enterprise_number},
		{PKTSTATS_FLOWLAT_TEMPLATE_INTERVAL_S, config->template_interval_s},
		{PKTSTATS_FLOWLAT_MTU, config->mtu},
		{PKTSTATS_FLOWLAT_FLUSH_TIMEOUT_US, config->flush_timeout_us},
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if ((err = named_write32(dev, words[i].address, words[i].value)) < 0)
			return err;
	if ((err = named_write64(dev, PKTSTATS_FLOWLAT_IPFIX_DESTINATION_MAC,
				 mac_to_register(config->destination_mac))) < 0 ||
	    (err = named_write64(dev, PKTSTATS_FLOWLAT_IPFIX_SOURCE_MAC,
				 mac_to_register(config->source_mac))) < 0)
		return err;
	/* Control last: export starts with its headers in place, and the exporter's template
	 * (sent when export is enabled) carries the PEN just written. */
	uint32_t control =
		(config->monitor_enable ? PKTSTATS_FLOWLAT_CONTROL_MONITOR_ENABLE_MASK : 0) |
		(config->export_enable ? PKTSTATS_FLOWLAT_CONTROL_EXPORT_ENABLE_MASK : 0) |
		((uint32_t)config->export_ports << PKTSTATS_FLOWLAT_CONTROL_EXPORT_PORTS_SHIFT &
		 PKTSTATS_FLOWLAT_CONTROL_EXPORT_PORTS_MASK);
	return named_write32(dev, PKTSTATS_FLOWLAT_CONTROL, control);
}

int pktstats_flowlat_status_get(struct pktstats_dev *dev, struct pktstats_flowlat_status *status)
{
	if (!dev || !status)
		return -EINVAL;
	memset(status, 0, sizeof *status);
	uint32_t value;
	int err;
	if ((err = check_block(dev)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_STATUS, &value)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_NOW_US, &status->now_us)) < 0)
		return err;
	status->clearing = value & STATUS_CLEARING;
	status->events_waiting = (value & STATUS_EVENTS) >> STATUS_EVENTS_SHIFT;
	status->records_waiting = (value & STATUS_RECORDS) >> STATUS_RECORDS_SHIFT;
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Counters */

const char *const pktstats_flowlat_counter_names[PKTSTATS_FLOWLAT_COUNTERS] = {
	"monitored", "unmatched", "table_full", "evicted",  "evicted_in_breach",
	"events",    "events_lost", "records_lost", "not_ipv4", "no_stamp",
	"messages",  "templates", "records_exported",
};

/* In the order of struct pktstats_flowlat_counters and of the names. */
static const uint32_t counter_registers[PKTSTATS_FLOWLAT_COUNTERS] = {
	PKTSTATS_FLOWLAT_MONITORED,    PKTSTATS_FLOWLAT_UNMATCHED,
	PKTSTATS_FLOWLAT_TABLE_FULL,   PKTSTATS_FLOWLAT_EVICTED,
	PKTSTATS_FLOWLAT_EVICTED_IN_BREACH, PKTSTATS_FLOWLAT_EVENTS,
	PKTSTATS_FLOWLAT_EVENTS_LOST,  PKTSTATS_FLOWLAT_RECORDS_LOST,
	PKTSTATS_FLOWLAT_NOT_IPV4,     PKTSTATS_FLOWLAT_NO_STAMP,
	PKTSTATS_FLOWLAT_MESSAGES,     PKTSTATS_FLOWLAT_TEMPLATES,
	PKTSTATS_FLOWLAT_RECORDS_EXPORTED,
};

void pktstats_flowlat_counters_array(const struct pktstats_flowlat_counters *counters,
				     uint64_t values[PKTSTATS_FLOWLAT_COUNTERS])
{
	if (!counters || !values)
		return;
	const uint64_t in_order[PKTSTATS_FLOWLAT_COUNTERS] = {
		counters->monitored,   counters->unmatched,    counters->table_full,
		counters->evicted,     counters->evicted_in_breach, counters->events,
		counters->events_lost, counters->records_lost, counters->not_ipv4,
		counters->no_stamp,    counters->messages,     counters->templates,
		counters->records_exported,
	};
	memcpy(values, in_order, sizeof in_order);
}

int pktstats_flowlat_counters_get(struct pktstats_dev *dev,
				  struct pktstats_flowlat_counters *counters)
{
	if (!dev || !counters)
		return -EINVAL;
	memset(counters, 0, sizeof *counters);
	uint64_t v[PKTSTATS_FLOWLAT_COUNTERS];
	int err = check_block(dev);
	for (size_t i = 0; err == 0 && i < PKTSTATS_FLOWLAT_COUNTERS; i++)
		err = named_read64(dev, counter_registers[i], &v[i]);
	if (err < 0)
		return err;
	*counters = (struct pktstats_flowlat_counters){
		.monitored = v[0],
		.unmatched = v[1],
		.table_full = v[2],
		.evicted = v[3],
		.evicted_in_breach = v[4],
		.events = v[5],
		.events_lost = v[6],
		.records_lost = v[7],
		.not_ipv4 = v[8],
		.no_stamp = v[9],
		.messages = v[10],
		.templates = v[11],
		.records_exported = v[12],
	};
	return 0;
}

int pktstats_flowlat_counters_clear(struct pktstats_dev *dev)
{
	if (!dev)
		return -EINVAL;
	/* A write to a counter's low word clears it (as oam.c clears its counters). */
	int err = check_block(dev);
	for (size_t i = 0; err == 0 && i < PKTSTATS_FLOWLAT_COUNTERS; i++)
		err = named_write32(dev, counter_registers[i], 0);
	return err;
}

/* ---------------------------------------------------------------------------------------- */
/* Commands and the lookup */

static int command(struct pktstats_dev *dev, uint32_t bits)
{
	if (!dev)
		return -EINVAL;
	int err = check_block(dev);
	return err < 0 ? err : named_write32(dev, PKTSTATS_FLOWLAT_COMMAND, bits);
}

int pktstats_flowlat_clear(struct pktstats_dev *dev)
{
	return command(dev, PKTSTATS_FLOWLAT_COMMAND_CLEAR_MASK);
}

int pktstats_flowlat_send_template(struct pktstats_dev *dev)
{
	return command(dev, PKTSTATS_FLOWLAT_COMMAND_SEND_TEMPLATE_MASK);
}

int pktstats_flowlat_lookup(struct pktstats_dev *dev, const struct pktstats_flowlat_key *key,
			    struct pktstats_flowlat_flow *flow)
{
	if (!dev || !key || !flow)
		return -EINVAL;
	memset(flow, 0, sizeof *flow);
	uint32_t ports = ((uint32_t)key->source_port << PKTSTATS_FLOWLAT_LOOKUP_PORTS_SPORT_SHIFT &
			  PKTSTATS_FLOWLAT_LOOKUP_PORTS_SPORT_MASK) |
			 ((uint32_t)key->destination_port
				  << PKTSTATS_FLOWLAT_LOOKUP_PORTS_DPORT_SHIFT &
			  PKTSTATS_FLOWLAT_LOOKUP_PORTS_DPORT_MASK);
	int err;
	/* The key first: the command takes it as it is then. */
	if ((err = check_block(dev)) < 0 ||
	    (err = named_write32(dev, PKTSTATS_FLOWLAT_LOOKUP_SRC_IP, key->source_ip)) < 0 ||
	    (err = named_write32(dev, PKTSTATS_FLOWLAT_LOOKUP_DST_IP, key->destination_ip)) < 0 ||
	    (err = named_write32(dev, PKTSTATS_FLOWLAT_LOOKUP_PORTS, ports)) < 0 ||
	    (err = named_write32(dev, PKTSTATS_FLOWLAT_LOOKUP_PROTOCOL, key->protocol)) < 0 ||
	    (err = named_write32(dev, PKTSTATS_FLOWLAT_COMMAND,
				 PKTSTATS_FLOWLAT_COMMAND_LOOKUP_MASK)) < 0)
		return err;
	/* The table answers between records, within a few clocks: a register read is slower,
	 * so the bound only matters when the block is stuck. */
	uint32_t status = 0;
	unsigned tries = 0;
	do {
		if ((err = named_read32(dev, PKTSTATS_FLOWLAT_LOOKUP_STATUS, &status)) < 0)
			return err;
		tries++;
	} while (!(status & LOOKUP_DONE) && tries < PKTSTATS_FLOWLAT_LOOKUP_TRIES);
	if (!(status & LOOKUP_DONE))
		return pktstats_fail(dev, -ETIMEDOUT, "flowlat: lookup not done after %u reads of "
				     "flowlat.lookup_status", tries);
	uint32_t last, max;
	if ((err = named_read32(dev, PKTSTATS_FLOWLAT_LOOKUP_LAST_RESIDENCE, &last)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_LOOKUP_MAX_RESIDENCE, &max)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_LOOKUP_PACKETS, &flow->packets)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_LOOKUP_LAST_SEEN_US,
				&flow->last_seen_us)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_FLOWLAT_NOW_US, &flow->now_us)) < 0)
		return err;
	flow->found = status & LOOKUP_FOUND;
	flow->breach = status & LOOKUP_BREACH;
	flow->group = (uint8_t)((status & LOOKUP_GROUP) >> LOOKUP_GROUP_SHIFT);
	flow->last_residence_ns = (int32_t)last;
	flow->max_residence_ns = (int32_t)max;
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* IPFIX messages (docs/flowlat.md "The IPFIX exporter", rtl/flowlat/flowlat_ipfix.v) */

const char *pktstats_flowlat_kind_name(unsigned kind)
{
	switch (kind) {
	case PKTSTATS_FLOWLAT_ABSOLUTE: return "absolute";
	case PKTSTATS_FLOWLAT_HIGH: return "high";
	case PKTSTATS_FLOWLAT_LOW: return "low";
	}
	return NULL;
}

const char *pktstats_flowlat_ipfix_strerror(enum pktstats_flowlat_ipfix_error error)
{
	switch (error) {
	case PKTSTATS_FLOWLAT_IPFIX_OK: return "no error";
	case PKTSTATS_FLOWLAT_IPFIX_TRUNCATED: return "shorter than its header or its length says";
	case PKTSTATS_FLOWLAT_IPFIX_BAD_VERSION: return "IPFIX version is not 10";
	case PKTSTATS_FLOWLAT_IPFIX_BAD_LENGTH: return "header length is not the datagram's";
	case PKTSTATS_FLOWLAT_IPFIX_BAD_SET: return "a set's length is below 4 or beyond the message";
	case PKTSTATS_FLOWLAT_IPFIX_BAD_TEMPLATE:
		return "a template set that is not the flowlat block's template 256";
	case PKTSTATS_FLOWLAT_IPFIX_UNKNOWN_SET: return "a set of another template than 256";
	case PKTSTATS_FLOWLAT_IPFIX_BAD_RECORDS: return "data set length is not 4 + 48 n";
	case PKTSTATS_FLOWLAT_IPFIX_BAD_KIND: return "event kind is not 1, 2 or 3";
	case PKTSTATS_FLOWLAT_IPFIX_IMPOSSIBLE_FIELD:
		return "a field holds a value the block cannot send";
	}
	return "unknown error";
}

const char *pktstats_flowlat_ipfix_error_name(enum pktstats_flowlat_ipfix_error error)
{
	switch (error) {
	case PKTSTATS_FLOWLAT_IPFIX_OK: return "ok";
	case PKTSTATS_FLOWLAT_IPFIX_TRUNCATED: return "truncated";
	case PKTSTATS_FLOWLAT_IPFIX_BAD_VERSION: return "bad_version";
	case PKTSTATS_FLOWLAT_IPFIX_BAD_LENGTH: return "bad_length";
	case PKTSTATS_FLOWLAT_IPFIX_BAD_SET: return "bad_set";
	case PKTSTATS_FLOWLAT_IPFIX_BAD_TEMPLATE: return "bad_template";
	case PKTSTATS_FLOWLAT_IPFIX_UNKNOWN_SET: return "unknown_set";
	case PKTSTATS_FLOWLAT_IPFIX_BAD_RECORDS: return "bad_records";
	case PKTSTATS_FLOWLAT_IPFIX_BAD_KIND: return "bad_kind";
	case PKTSTATS_FLOWLAT_IPFIX_IMPOSSIBLE_FIELD: return "impossible_field";
	}
	return "unknown";
}

#define IPFIX_VERSION 10
#define IPFIX_HEADER 16
#define SET_HEADER 4
#define TEMPLATE_SET_ID 2
#define TEMPLATE_SET_LENGTH 96
#define TEMPLATE_FIELDS 15
#define ENTERPRISE_BIT 0x8000u
#define NTP_UNIX_OFFSET UINT64_C(2208988800) /* 1970 - 1900 in seconds */
#define NS_PER_S UINT64_C(1000000000)
#define OCCUPANCY_LIMIT (UINT32_C(1) << 20) /* the record's occupancy: 20 bits in the block */

/* The block's template set for a PEN, byte for byte as flowlat_ipfix sends it. */
static void template_set(uint32_t pen, uint8_t set[TEMPLATE_SET_LENGTH])
{
	static const struct {
		uint16_t element;
		uint16_t length;
		bool enterprise;
	} fields[TEMPLATE_FIELDS] = {
		{325, 8, false}, {8, 4, false}, {12, 4, false}, {4, 1, false}, {7, 2, false},
		{11, 2, false},  {10, 4, false}, {14, 4, false}, {1, 4, true},  {2, 1, true},
		{3, 1, true},    {4, 1, true},  {5, 4, true},   {6, 4, true},   {7, 4, true},
	};
	uint8_t *p = set;
	put16(p, TEMPLATE_SET_ID);
	put16(p + 2, TEMPLATE_SET_LENGTH);
	put16(p + 4, PKTSTATS_FLOWLAT_TEMPLATE_ID);
	put16(p + 6, TEMPLATE_FIELDS);
	p += 8;
	for (size_t i = 0; i < TEMPLATE_FIELDS; i++) {
		put16(p, (uint16_t)(fields[i].element | (fields[i].enterprise ? ENTERPRISE_BIT : 0)));
		put16(p + 2, fields[i].length);
		p += 4;
		if (fields[i].enterprise) {
			put32(p, pen);
			p += 4;
		}
	}
}

/* IE 325 (NTP format) as Unix seconds and nanoseconds. NTP's 32-bit seconds wrap in 2036:
 * a value below the 1970 offset is taken as the next era (2036..2106), as RFC 4330 does. */
static void ntp_to_unix(uint64_t ntp, uint64_t *seconds, uint32_t *nanoseconds)
{
	uint64_t ntp_seconds = ntp >> 32;
	uint64_t fraction = ntp & UINT32_MAX;
	uint64_t era = ntp_seconds < NTP_UNIX_OFFSET ? UINT64_C(1) << 32 : 0;
	uint64_t s = ntp_seconds + era - NTP_UNIX_OFFSET;
	/* fraction * 10^9 / 2^32, to the nearest (halves up); fits in 62 bits */
	uint64_t ns = (fraction * NS_PER_S + (UINT64_C(1) << 31)) >> 32;
	if (ns == NS_PER_S) { /* a fraction within half a ns of the next second */
		s++;
		ns = 0;
	}
	*seconds = s;
	*nanoseconds = (uint32_t)ns;
}

/* One 48-byte data record, in the template's order. */
static void read_record(const uint8_t *r, struct pktstats_flowlat_event *e)
{
	memset(e, 0, sizeof *e);
	e->observation_time_ntp = get64(r);
	ntp_to_unix(e->observation_time_ntp, &e->seconds, &e->nanoseconds);
	e->key.source_ip = get32(r + 8);
	e->key.destination_ip = get32(r + 12);
	e->key.protocol = r[16];
	e->key.source_port = get16(r + 17);
	e->key.destination_port = get16(r + 19);
	e->ingress_interface = get32(r + 21);
	e->egress_interface = get32(r + 25);
	e->residence_ns = (int32_t)get32(r + 29);
	e->kind = r[33];
	e->group = r[34];
	e->profile = r[35];
	e->high_ns = (int32_t)get32(r + 36);
	e->low_ns = (int32_t)get32(r + 40);
	e->occupancy = get32(r + 44);
}

static int parse_failed(enum pktstats_flowlat_ipfix_error *error,
			enum pktstats_flowlat_ipfix_error why)
{
	*error = why;
	return 0;
}

int pktstats_flowlat_ipfix_parse(const uint8_t *payload, size_t len, uint32_t enterprise_number,
				 struct pktstats_flowlat_message *message,
				 struct pktstats_flowlat_event *events, size_t max_events,
				 enum pktstats_flowlat_ipfix_error *error)
{
	if (!payload || !message || !error || (!events && max_events > 0))
		return -EINVAL;
	memset(message, 0, sizeof *message);
	*error = PKTSTATS_FLOWLAT_IPFIX_OK;

	/* The message header */
	if (len < IPFIX_HEADER)
		return parse_failed(error, PKTSTATS_FLOWLAT_IPFIX_TRUNCATED);
	message->length = get16(payload + 2);
	message->export_time = get32(payload + 4);
	message->sequence = get32(payload + 8);
	message->observation_domain = get32(payload + 12);
	if (get16(payload) != IPFIX_VERSION)
		return parse_failed(error, PKTSTATS_FLOWLAT_IPFIX_BAD_VERSION);
	if (message->length > len)
		return parse_failed(error, PKTSTATS_FLOWLAT_IPFIX_TRUNCATED);
	/* One message per datagram (RFC 7011 10.3.3): a shorter length leaves bytes unexplained */
	if (message->length != len)
		return parse_failed(error, PKTSTATS_FLOWLAT_IPFIX_BAD_LENGTH);

	/* The sets' framing first, over the whole message: a set that runs beyond the message
	 * makes every later byte meaningless, whatever the sets before it hold. */
	size_t end = message->length;
	for (size_t at = IPFIX_HEADER; at < end;) {
		if (end - at < SET_HEADER)
			return parse_failed(error, PKTSTATS_FLOWLAT_IPFIX_BAD_SET);
		size_t set_length = get16(payload + at + 2);
		if (set_length < SET_HEADER || set_length > end - at)
			return parse_failed(error, PKTSTATS_FLOWLAT_IPFIX_BAD_SET);
		at += set_length;
	}

	/* Then each set's content: the template must be the block's (a collector decodes the
	 * records with it), data sets of template 256 hold whole records. */
	uint8_t want_template[TEMPLATE_SET_LENGTH];
	template_set(enterprise_number, want_template);
	unsigned records = 0;
	for (size_t at = IPFIX_HEADER; at < end;) {
		uint16_t set_id = get16(payload + at);
		size_t set_length = get16(payload + at + 2);
		if (set_id == TEMPLATE_SET_ID) {
			if (set_length != TEMPLATE_SET_LENGTH ||
			    memcmp(payload + at, want_template, TEMPLATE_SET_LENGTH) != 0)
				return parse_failed(error, PKTSTATS_FLOWLAT_IPFIX_BAD_TEMPLATE);
			message->has_template = true;
		} else if (set_id != PKTSTATS_FLOWLAT_TEMPLATE_ID) {
			return parse_failed(error, PKTSTATS_FLOWLAT_IPFIX_UNKNOWN_SET);
		} else if ((set_length - SET_HEADER) % PKTSTATS_FLOWLAT_RECORD_LENGTH != 0) {
			return parse_failed(error, PKTSTATS_FLOWLAT_IPFIX_BAD_RECORDS);
		} else {
			records += (unsigned)((set_length - SET_HEADER) /
					      PKTSTATS_FLOWLAT_RECORD_LENGTH);
		}
		at += set_length;
	}
	message->records = records;

	/* Then the records themselves */
	size_t filled = 0;
	for (size_t at = IPFIX_HEADER; at < end;) {
		uint16_t set_id = get16(payload + at);
		size_t set_length = get16(payload + at + 2);
		if (set_id == PKTSTATS_FLOWLAT_TEMPLATE_ID)
			for (size_t r = at + SET_HEADER; r < at + set_length;
			     r += PKTSTATS_FLOWLAT_RECORD_LENGTH) {
				uint8_t kind = payload[r + 33];
				if (!pktstats_flowlat_kind_name(kind))
					return parse_failed(error, PKTSTATS_FLOWLAT_IPFIX_BAD_KIND);
				/* the widths flowlat_ipfix.v sends them in: a value beyond is no
				 * event of the block's (a corrupt or forged record) */
				if (get32(payload + r + 21) >= PKTSTATS_FLOWLAT_SWITCH_PORTS ||
				    get32(payload + r + 25) >= PKTSTATS_FLOWLAT_MAC_PORTS ||
				    payload[r + 34] >= PKTSTATS_FLOWLAT_RULES ||
				    payload[r + 35] >= PKTSTATS_FLOWLAT_PROFILES ||
				    get32(payload + r + 44) >= OCCUPANCY_LIMIT)
					return parse_failed(error,
							    PKTSTATS_FLOWLAT_IPFIX_IMPOSSIBLE_FIELD);
				if (filled < max_events)
					read_record(payload + r, &events[filled++]);
			}
		at += set_length;
	}
	return (int)filled;
}

uint64_t pktstats_flowlat_sequence_feed(struct pktstats_flowlat_sequence *sequence,
					const struct pktstats_flowlat_message *message)
{
	uint64_t missing = 0;
	uint32_t gap = message->sequence - sequence->next;
	if (sequence->started && gap != 0) {
		if (gap <= PKTSTATS_FLOWLAT_IPFIX_RECORDS_MAX)
			missing = gap;
		else if (gap >= UINT32_C(1) << 31)
			sequence->behind++;
		else
			sequence->resyncs++;
	}
	sequence->missing += missing;
	sequence->started = true;
	sequence->next = message->sequence + message->records;
	return missing;
}
