/* SPDX-License-Identifier: BSD-3-Clause */
/* Register accesses whose errors name the register (named_access.h). */
#define _DEFAULT_SOURCE /* device_internal.h: IFNAMSIZ, PATH_MAX */

#include <stdio.h>

#include "device_internal.h"
#include "named_access.h"
#include "pktstats/regs.h"

static int named(struct pktstats_dev *dev, int err, uint32_t address)
{
	if (err >= 0)
		return err;
	char prefix[64];
	snprintf(prefix, sizeof prefix, "register 0x%04x: ", address);
	for (size_t i = 0; i < pktstats_regs_count; i++)
		if (pktstats_regs[i].address == address) {
			snprintf(prefix, sizeof prefix, "%s: ", pktstats_regs[i].name);
			break;
		}
	pktstats_error_prefix(dev, prefix);
	return err;
}

int named_read32(struct pktstats_dev *dev, uint32_t address, uint32_t *value)
{
	return named(dev, pktstats_read32(dev, address, value), address);
}

int named_write32(struct pktstats_dev *dev, uint32_t address, uint32_t value)
{
	return named(dev, pktstats_write32(dev, address, value), address);
}

int named_read64(struct pktstats_dev *dev, uint32_t address, uint64_t *value)
{
	return named(dev, pktstats_read64(dev, address, value), address);
}

int named_write64(struct pktstats_dev *dev, uint32_t address, uint64_t value)
{
	return named(dev, pktstats_write64(dev, address, value), address);
}

uint64_t mac_to_register(const uint8_t mac[6])
{
	uint64_t value = 0;
	for (int i = 0; i < 6; i++)
		value = value << 8 | mac[i];
	return value;
}

void mac_from_register(uint64_t value, uint8_t mac[6])
{
	for (int i = 5; i >= 0; i--, value >>= 8)
		mac[i] = (uint8_t)value;
}
