/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats link-delay engines (pktstats/oam.h): the `oam` register block (regmap/oam.toml,
 * docs/oam.md), per MAC port: control, port MAC, byte time, counters.
 */
#define _DEFAULT_SOURCE /* device_internal.h: IFNAMSIZ, PATH_MAX */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "device_internal.h"
#include "named_access.h"
#include "pktstats/oam.h"
#include "pktstats/regs.h"

/* The field masks of control_i are those of control_0 (one layout for the four). */
#define CONTROL_DM_ENABLE PKTSTATS_OAM_CONTROL_0_DM_ENABLE_MASK
#define CONTROL_DM_RESPONDER PKTSTATS_OAM_CONTROL_0_DM_RESPONDER_MASK
#define CONTROL_DM_LEVEL_SHIFT PKTSTATS_OAM_CONTROL_0_DM_LEVEL_SHIFT
#define CONTROL_DM_LEVEL PKTSTATS_OAM_CONTROL_0_DM_LEVEL_MASK
#define CONTROL_HEADROOM_ENABLE PKTSTATS_OAM_CONTROL_0_HEADROOM_ENABLE_MASK
#define CONTROL_HEADROOM_RESPONDER PKTSTATS_OAM_CONTROL_0_HEADROOM_RESPONDER_MASK
#define CONTROL_ISL_COPY_FIELD PKTSTATS_OAM_CONTROL_0_ISL_COPY_FIELD_MASK
#define CONTROL_ISL_GROUP PKTSTATS_OAM_CONTROL_0_ISL_GROUP_MASK
#define CONTROL_CPU_BOUND PKTSTATS_OAM_CONTROL_0_CPU_BOUND_MASK

/* The block is there and is the one this code knows. */
static int check_block(struct pktstats_dev *dev, unsigned port)
{
	if (!dev)
		return -EINVAL;
	if (port >= PKTSTATS_OAM_MAC_PORTS)
		return pktstats_fail(dev, -EINVAL, "oam: port %u is not a MAC port (0..%u)", port,
				     PKTSTATS_OAM_MAC_PORTS - 1);
	uint32_t type;
	int err = named_read32(dev, PKTSTATS_OAM_TYPE, &type);
	/* A decode error: nothing answers at the block's address. Any other failure (the
	 * connection, a timeout) is itself the answer. */
	if (err == -ENXIO) {
		pktstats_error_prefix(dev, "the device has no oam block: ");
		return -ENODEV;
	}
	if (err < 0)
		return err;
	if (type != PKTSTATS_OAM_TYPE_VALUE)
		return pktstats_fail(dev, -ENODEV,
				     "the device has no oam block: oam.type reads 0x%08" PRIx32
				     ", not 0x%08" PRIx32 " (\"OAM \")",
				     type, (uint32_t)PKTSTATS_OAM_TYPE_VALUE);
	return 0;
}

int pktstats_oam_port_get(struct pktstats_dev *dev, unsigned port,
			  struct pktstats_oam_port_config *config)
{
	if (!config)
		return -EINVAL;
	memset(config, 0, sizeof *config);
	int err = check_block(dev, port);
	uint32_t control, byte_time;
	uint64_t mac;
	if (err < 0 || (err = named_read32(dev, PKTSTATS_OAM_CONTROL(port), &control)) < 0 ||
	    (err = named_read64(dev, PKTSTATS_OAM_PORT_MAC(port), &mac)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_OAM_BYTE_TIME(port), &byte_time)) < 0)
		return err;
	config->dm_enable = control & CONTROL_DM_ENABLE;
	config->dm_responder = control & CONTROL_DM_RESPONDER;
	config->dm_level = (uint8_t)((control & CONTROL_DM_LEVEL) >> CONTROL_DM_LEVEL_SHIFT);
	config->headroom_enable = control & CONTROL_HEADROOM_ENABLE;
	config->headroom_responder = control & CONTROL_HEADROOM_RESPONDER;
	config->isl_copy_field = control & CONTROL_ISL_COPY_FIELD;
	config->isl_group = control & CONTROL_ISL_GROUP;
	config->cpu_bound = control & CONTROL_CPU_BOUND;
	mac_from_register(mac, config->mac);
	config->byte_time = (uint16_t)(byte_time & PKTSTATS_OAM_BYTE_TIME_0_MASK);
	return 0;
}

int pktstats_oam_port_set(struct pktstats_dev *dev, unsigned port,
			  const struct pktstats_oam_port_config *config)
{
	if (!dev || !config)
		return -EINVAL;
	if (config->dm_level > 7)
		return pktstats_fail(dev, -EINVAL, "oam: dm_level %u is above 7", config->dm_level);
	if (config->byte_time > PKTSTATS_OAM_BYTE_TIME_MAX)
		return pktstats_fail(dev, -EINVAL, "oam: byte_time %u is above %u", config->byte_time,
				     PKTSTATS_OAM_BYTE_TIME_MAX);
	int err = check_block(dev, port);
	if (err < 0)
		return err;
	uint32_t control = (config->dm_enable ? CONTROL_DM_ENABLE : 0) |
			   (config->dm_responder ? CONTROL_DM_RESPONDER : 0) |
			   ((uint32_t)config->dm_level << CONTROL_DM_LEVEL_SHIFT) |
			   (config->headroom_enable ? CONTROL_HEADROOM_ENABLE : 0) |
			   (config->headroom_responder ? CONTROL_HEADROOM_RESPONDER : 0) |
			   (config->isl_copy_field ? CONTROL_ISL_COPY_FIELD : 0) |
			   (config->isl_group ? CONTROL_ISL_GROUP : 0) |
			   (config->cpu_bound ? CONTROL_CPU_BOUND : 0);
	/* The MAC and byte time first: the engines switched on see the right ones. */
	if ((err = named_write64(dev, PKTSTATS_OAM_PORT_MAC(port), mac_to_register(config->mac))) < 0 ||
	    (err = named_write32(dev, PKTSTATS_OAM_BYTE_TIME(port), config->byte_time)) < 0)
		return err;
	return named_write32(dev, PKTSTATS_OAM_CONTROL(port), control);
}

/* The counters of port 0, in the order of struct pktstats_oam_port_counters; port p's is
 * 8 bytes further per port (count = 4, 64 bits each). */
static const uint32_t counter_registers[] = {
	PKTSTATS_OAM_DM_STAMPED_0,       PKTSTATS_OAM_DM_ANSWERED_0,
	PKTSTATS_OAM_DM_REPLIES_SENT_0,  PKTSTATS_OAM_DM_PASSED_UP_0,
	PKTSTATS_OAM_DM_MALFORMED_0,     PKTSTATS_OAM_HEADROOM_STAMPED_0,
	PKTSTATS_OAM_HEADROOM_ANSWERED_0, PKTSTATS_OAM_HEADROOM_REPLIES_SENT_0,
	PKTSTATS_OAM_HEADROOM_PASSED_UP_0, PKTSTATS_OAM_HEADROOM_MALFORMED_0,
	PKTSTATS_OAM_ISL_T0_STAMPED_0,   PKTSTATS_OAM_ISL_T1_STAMPED_0,
	PKTSTATS_OAM_ISL_REFLECTED_0,    PKTSTATS_OAM_ISL_PASSED_UP_0,
};
#define N_COUNTERS (sizeof counter_registers / sizeof counter_registers[0])

int pktstats_oam_port_counters(struct pktstats_dev *dev, unsigned port,
			       struct pktstats_oam_port_counters *counters)
{
	if (!counters)
		return -EINVAL;
	memset(counters, 0, sizeof *counters);
	int err = check_block(dev, port);
	if (err < 0)
		return err;
	uint64_t values[N_COUNTERS];
	for (size_t i = 0; i < N_COUNTERS; i++)
		if ((err = named_read64(dev, counter_registers[i] + port * 8, &values[i])) < 0)
			return err;
	*counters = (struct pktstats_oam_port_counters){
		.dm_stamped = values[0],
		.dm_answered = values[1],
		.dm_replies_sent = values[2],
		.dm_passed_up = values[3],
		.dm_malformed = values[4],
		.headroom_stamped = values[5],
		.headroom_answered = values[6],
		.headroom_replies_sent = values[7],
		.headroom_passed_up = values[8],
		.headroom_malformed = values[9],
		.isl_t0_stamped = values[10],
		.isl_t1_stamped = values[11],
		.isl_reflected = values[12],
		.isl_passed_up = values[13],
	};
	return 0;
}

int pktstats_oam_port_counters_clear(struct pktstats_dev *dev, unsigned port)
{
	int err = check_block(dev, port);
	for (size_t i = 0; err == 0 && i < N_COUNTERS; i++)
		err = named_write32(dev, counter_registers[i] + port * 8, 0);
	return err;
}
