/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Register accesses for the high-level API (capture.c, switch.c): as pktstats_read32() and the
 * others, but a failure's detail starts with the register's name from the generated table
 * ("evcap.resolution: ..."), so that a tool's one-line message says which register failed;
 * and the MAC conversions both need.
 */
#ifndef PKTSTATS_NAMED_ACCESS_H
#define PKTSTATS_NAMED_ACCESS_H

#include <stdint.h>

#include "pktstats/pktstats.h"

int named_read32(struct pktstats_dev *dev, uint32_t address, uint32_t *value);
int named_write32(struct pktstats_dev *dev, uint32_t address, uint32_t value);
int named_read64(struct pktstats_dev *dev, uint32_t address, uint64_t *value);
int named_write64(struct pktstats_dev *dev, uint32_t address, uint64_t value);

/* A MAC address (wire order, mac[0] first) as the registers hold it: first byte in bits
 * 47:40, and back. */
uint64_t mac_to_register(const uint8_t mac[6]);
void mac_from_register(uint64_t value, uint8_t mac[6]);

#endif
