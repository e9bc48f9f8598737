/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats event capture (pktstats/capture.h): the evcap block's registers as a
 * configuration struct, commands, timer and counters.
 */
#define _DEFAULT_SOURCE /* device_internal.h: IFNAMSIZ, PATH_MAX */

#include <errno.h>
#include <string.h>

#include "device_internal.h"
#include "named_access.h"
#include "pktstats/capture.h"
#include "pktstats/regs.h"

void pktstats_capture_defaults(struct pktstats_capture_config *config)
{
	memset(config, 0, sizeof *config);
	config->resolution = PKTSTATS_EVCAP_RESOLUTION_RESET;
	config->queue_mask = PKTSTATS_EVCAP_QUEUE_MASK_RESET;
	config->event_mask = PKTSTATS_EVCAP_EVENT_MASK_RESET;
	config->output_ports = PKTSTATS_EVCAP_OUTPUT_PORTS_RESET;
	mac_from_register(PKTSTATS_EVCAP_DESTINATION_MAC_RESET, config->destination_mac);
	mac_from_register(PKTSTATS_EVCAP_SOURCE_MAC_RESET, config->source_mac);
	config->source_ip = PKTSTATS_EVCAP_SOURCE_IP_RESET;
	config->destination_ip = PKTSTATS_EVCAP_DESTINATION_IP_RESET;
	config->tos = PKTSTATS_EVCAP_TOS_RESET;
	config->ttl = PKTSTATS_EVCAP_TTL_RESET;
	config->udp_source_port = PKTSTATS_EVCAP_UDP_SOURCE_PORT_RESET;
	config->udp_destination_port = PKTSTATS_EVCAP_UDP_DESTINATION_PORT_RESET;
	config->max_length = PKTSTATS_EVCAP_MAX_LENGTH_RESET;
	config->flush_timeout = PKTSTATS_EVCAP_FLUSH_TIMEOUT_RESET;
}

int pktstats_capture_get(struct pktstats_dev *dev, struct pktstats_capture_config *config)
{
	if (!dev || !config)
		return -EINVAL;
	uint32_t value;
	uint64_t wide;
	int err;
	memset(config, 0, sizeof *config);
	if ((err = named_read32(dev, PKTSTATS_EVCAP_RESOLUTION, &value)) < 0)
		return err;
	config->resolution = value & PKTSTATS_EVCAP_RESOLUTION_MASK;
	if ((err = named_read32(dev, PKTSTATS_EVCAP_QUEUE_MASK, &value)) < 0)
		return err;
	config->queue_mask = (uint8_t)(value & PKTSTATS_EVCAP_QUEUE_MASK_MASK);
	if ((err = named_read32(dev, PKTSTATS_EVCAP_EVENT_MASK, &value)) < 0)
		return err;
	config->event_mask = (uint8_t)(value & PKTSTATS_EVCAP_EVENT_MASK_MASK);
	if ((err = named_read32(dev, PKTSTATS_EVCAP_OUTPUT_PORTS, &value)) < 0)
		return err;
	config->output_ports = (uint8_t)(value & PKTSTATS_EVCAP_OUTPUT_PORTS_MASK);
	if ((err = named_read64(dev, PKTSTATS_EVCAP_DESTINATION_MAC, &wide)) < 0)
		return err;
	mac_from_register(wide, config->destination_mac);
	if ((err = named_read64(dev, PKTSTATS_EVCAP_SOURCE_MAC, &wide)) < 0)
		return err;
	mac_from_register(wide, config->source_mac);
	if ((err = named_read32(dev, PKTSTATS_EVCAP_SOURCE_IP, &config->source_ip)) < 0)
		return err;
	if ((err = named_read32(dev, PKTSTATS_EVCAP_DESTINATION_IP, &config->destination_ip)) < 0)
		return err;
	if ((err = named_read32(dev, PKTSTATS_EVCAP_TOS, &value)) < 0)
		return err;
	config->tos = (uint8_t)value;
	if ((err = named_read32(dev, PKTSTATS_EVCAP_TTL, &value)) < 0)
		return err;
	config->ttl = (uint8_t)value;
	if ((err = named_read32(dev, PKTSTATS_EVCAP_UDP_SOURCE_PORT, &value)) < 0)
		return err;
	config->udp_source_port = (uint16_t)value;
	if ((err = named_read32(dev, PKTSTATS_EVCAP_UDP_DESTINATION_PORT, &value)) < 0)
		return err;
	config->udp_destination_port = (uint16_t)value;
	if ((err = named_read32(dev, PKTSTATS_EVCAP_MAX_LENGTH, &value)) < 0)
		return err;
	config->max_length = (uint16_t)value;
	return named_read32(dev, PKTSTATS_EVCAP_FLUSH_TIMEOUT, &config->flush_timeout);
}

int pktstats_capture_set(struct pktstats_dev *dev, const struct pktstats_capture_config *config)
{
	if (!dev || !config)
		return -EINVAL;
	if (config->resolution > PKTSTATS_RESOLUTION_MAX)
		return pktstats_fail(dev, -EINVAL, "resolution %u is not 0..%d", config->resolution,
				     PKTSTATS_RESOLUTION_MAX);
	if (config->event_mask & ~PKTSTATS_EVCAP_EVENT_MASK_MASK)
		return pktstats_fail(dev, -EINVAL, "event mask 0x%x has bits other than 0..2",
				     config->event_mask);
	if (config->max_length < PKTSTATS_MAX_LENGTH_MIN ||
	    config->max_length > PKTSTATS_MAX_LENGTH_MAX)
		return pktstats_fail(dev, -ERANGE, "maximum length %u is not %d..%d bytes",
				     config->max_length, PKTSTATS_MAX_LENGTH_MIN,
				     PKTSTATS_MAX_LENGTH_MAX);

	const struct {
		uint32_t address;
		uint32_t value;
	} words[] = {
		{PKTSTATS_EVCAP_RESOLUTION, config->resolution},
		{PKTSTATS_EVCAP_QUEUE_MASK, config->queue_mask},
		{PKTSTATS_EVCAP_EVENT_MASK, config->event_mask},
		{PKTSTATS_EVCAP_OUTPUT_PORTS, config->output_ports},
		{PKTSTATS_EVCAP_SOURCE_IP, config->source_ip},
		{PKTSTATS_EVCAP_DESTINATION_IP, config->destination_ip},
		{PKTSTATS_EVCAP_TOS, config->tos},
		{PKTSTATS_EVCAP_TTL, config->ttl},
		{PKTSTATS_EVCAP_UDP_SOURCE_PORT, config->udp_source_port},
		{PKTSTATS_EVCAP_UDP_DESTINATION_PORT, config->udp_destination_port},
		{PKTSTATS_EVCAP_MAX_LENGTH, config->max_length},
		{PKTSTATS_EVCAP_FLUSH_TIMEOUT, config->flush_timeout},
	};
	int err;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if ((err = named_write32(dev, words[i].address, words[i].value)) < 0)
			return err;
	if ((err = named_write64(dev, PKTSTATS_EVCAP_DESTINATION_MAC,
			   mac_to_register(config->destination_mac))) < 0)
		return err;
	return named_write64(dev, PKTSTATS_EVCAP_SOURCE_MAC, mac_to_register(config->source_mac));
}

int pktstats_capture_start(struct pktstats_dev *dev)
{
	return named_write32(dev, PKTSTATS_EVCAP_CONTROL, PKTSTATS_EVCAP_CONTROL_ENABLE_MASK);
}

int pktstats_capture_stop(struct pktstats_dev *dev)
{
	return named_write32(dev, PKTSTATS_EVCAP_CONTROL, 0);
}

int pktstats_capture_running(struct pktstats_dev *dev, bool *running)
{
	if (!running)
		return -EINVAL;
	uint32_t value;
	int err = named_read32(dev, PKTSTATS_EVCAP_CONTROL, &value);
	if (err == 0)
		*running = value & PKTSTATS_EVCAP_CONTROL_ENABLE_MASK;
	return err;
}

int pktstats_capture_flush(struct pktstats_dev *dev)
{
	return named_write32(dev, PKTSTATS_EVCAP_COMMAND, PKTSTATS_EVCAP_COMMAND_FLUSH_MASK);
}

int pktstats_timer_read(struct pktstats_dev *dev, uint64_t *cycles)
{
	return named_read64(dev, PKTSTATS_EVCAP_TIMER, cycles);
}

int pktstats_timer_reset(struct pktstats_dev *dev)
{
	return named_write32(dev, PKTSTATS_EVCAP_COMMAND, PKTSTATS_EVCAP_COMMAND_TIMER_RESET_MASK);
}

int pktstats_timer_load(struct pktstats_dev *dev, uint64_t cycles)
{
	return named_write64(dev, PKTSTATS_EVCAP_TIMER_PRESET, cycles);
}

int pktstats_capture_counters_get(struct pktstats_dev *dev,
				  struct pktstats_capture_counters *counters)
{
	if (!counters)
		return -EINVAL;
	int err;
	if ((err = named_read64(dev, PKTSTATS_EVCAP_EVENTS_MISSED, &counters->events_missed)) < 0)
		return err;
	if ((err = named_read64(dev, PKTSTATS_EVCAP_EVENTS_SENT, &counters->events_sent)) < 0)
		return err;
	return named_read64(dev, PKTSTATS_EVCAP_PACKETS_SENT, &counters->packets_sent);
}

int pktstats_capture_counters_clear(struct pktstats_dev *dev)
{
	int err;
	if ((err = named_write32(dev, PKTSTATS_EVCAP_EVENTS_MISSED, 0)) < 0)
		return err;
	if ((err = named_write32(dev, PKTSTATS_EVCAP_EVENTS_SENT, 0)) < 0)
		return err;
	return named_write32(dev, PKTSTATS_EVCAP_PACKETS_SENT, 0);
}
