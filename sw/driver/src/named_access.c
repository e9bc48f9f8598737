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
