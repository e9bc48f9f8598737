/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats MAC port counters (pktstats/mac.h): the `mac` register block of the board build
 * (regmap/mac.toml) as a struct per port, and their clear.
 */
#define _DEFAULT_SOURCE /* device_internal.h: IFNAMSIZ, PATH_MAX */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "device_internal.h"
#include "named_access.h"
#include "pktstats/mac.h"
#include "pktstats/regs.h"

const char *const pktstats_mac_counter_names[PKTSTATS_MAC_COUNTERS] = {
	"tx_frames", "tx_bytes",  "tx_underruns",       "rx_frames", "rx_bytes",
	"rx_fcs_errors", "rx_runts", "rx_giants", "rx_preamble_errors", "rx_errors",
	"rx_overflows",
};

/* Counter i of port p, in the struct's order. */
static uint32_t counter_register(unsigned port, unsigned i)
{
	switch (i) {
	case 0: return PKTSTATS_MAC_TX_FRAMES(port);
	case 1: return PKTSTATS_MAC_TX_BYTES(port);
	case 2: return PKTSTATS_MAC_TX_UNDERRUNS(port);
	case 3: return PKTSTATS_MAC_RX_FRAMES(port);
	case 4: return PKTSTATS_MAC_RX_BYTES(port);
	case 5: return PKTSTATS_MAC_RX_FCS_ERRORS(port);
	case 6: return PKTSTATS_MAC_RX_RUNTS(port);
	case 7: return PKTSTATS_MAC_RX_GIANTS(port);
	case 8: return PKTSTATS_MAC_RX_PREAMBLE_ERRORS(port);
	case 9: return PKTSTATS_MAC_RX_ERRORS(port);
	default: return PKTSTATS_MAC_RX_OVERFLOWS(port);
	}
}

/* The block is there and is the one this code knows (as flowlat.c and oam.c check theirs). */
static int check_block(struct pktstats_dev *dev)
{
	uint32_t type;
	int err = named_read32(dev, PKTSTATS_MAC_TYPE, &type);
	/* A decode error: nothing answers at the block's address (pktstats-sim, a design without
	 * the board top). Any other failure (the connection, a timeout) is itself the answer. */
	if (err == -ENXIO) {
		pktstats_error_prefix(dev, "the device has no MAC block (it is on the NetFPGA-1G-CML "
					   "board build only; pktstats-sim has none): ");
		return -ENODEV;
	}
	if (err < 0)
		return err;
	if (type != PKTSTATS_MAC_TYPE_VALUE)
		return pktstats_fail(dev, -ENODEV,
				     "the device has no MAC block (it is on the NetFPGA-1G-CML board build "
				     "only): mac.type reads 0x%08" PRIx32
				     ", not 0x%08" PRIx32 " (\"MAC \")",
				     type, (uint32_t)PKTSTATS_MAC_TYPE_VALUE);
	return 0;
}

void pktstats_mac_counters_array(const struct pktstats_mac_counters *counters,
				 uint64_t values[PKTSTATS_MAC_COUNTERS])
{
	if (!counters || !values)
		return;
	const uint64_t in_order[PKTSTATS_MAC_COUNTERS] = {
		counters->tx_frames,     counters->tx_bytes,  counters->tx_underruns,
		counters->rx_frames,     counters->rx_bytes,  counters->rx_fcs_errors,
		counters->rx_runts,      counters->rx_giants, counters->rx_preamble_errors,
		counters->rx_errors,     counters->rx_overflows,
	};
	memcpy(values, in_order, sizeof in_order);
}

int pktstats_mac_counters_read(struct pktstats_dev *dev, unsigned port,
			       struct pktstats_mac_counters *counters)
{
	if (!dev || !counters)
		return -EINVAL;
	memset(counters, 0, sizeof *counters);
	if (port >= PKTSTATS_MAC_PORTS)
		return pktstats_fail(dev, -EINVAL, "mac: port %u is not a MAC port (0..%d)", port,
				     PKTSTATS_MAC_PORTS - 1);
	uint64_t v[PKTSTATS_MAC_COUNTERS];
	int err = check_block(dev);
	for (unsigned i = 0; err == 0 && i < PKTSTATS_MAC_COUNTERS; i++)
		err = named_read64(dev, counter_register(port, i), &v[i]);
	if (err < 0)
		return err;
	*counters = (struct pktstats_mac_counters){
		.tx_frames = v[0],
		.tx_bytes = v[1],
		.tx_underruns = v[2],
		.rx_frames = v[3],
		.rx_bytes = v[4],
		.rx_fcs_errors = v[5],
		.rx_runts = v[6],
		.rx_giants = v[7],
		.rx_preamble_errors = v[8],
		.rx_errors = v[9],
		.rx_overflows = v[10],
	};
	return 0;
}

int pktstats_mac_counters_clear(struct pktstats_dev *dev)
{
	if (!dev)
		return -EINVAL;
	/* A write of any value to a counter's low word clears it (regmap/mac.toml). */
	int err = check_block(dev);
	for (unsigned port = 0; err == 0 && port < PKTSTATS_MAC_PORTS; port++)
		for (unsigned i = 0; err == 0 && i < PKTSTATS_MAC_COUNTERS; i++)
			err = named_write32(dev, counter_register(port, i), 0);
	return err;
}

/* ---- MDIO */

/* mdio_status's bits (regmap/mac.toml: one ro word) */
#define MDIO_BUSY 0x1u
#define MDIO_READY 0x2u
#define MDIO_NO_ANSWER 0x4u
#define MDIO_READ_DATA_SHIFT 16

/* The block is there and has the MDIO registers (version 1.1 or later). */
static int check_mdio(struct pktstats_dev *dev)
{
	int err = check_block(dev);
	if (err < 0)
		return err;
	uint32_t version;
	if ((err = named_read32(dev, PKTSTATS_MAC_VERSION, &version)) < 0)
		return err;
	if (version >> 16 != PKTSTATS_MAC_VERSION_VALUE >> 16 || (version & 0xffff) < 1)
		return pktstats_fail(dev, -EOPNOTSUPP,
				     "the MAC block (mac.version 0x%08" PRIx32
				     ") has no MDIO access: it came with block version 1.1",
				     version);
	return 0;
}

/* Polls mdio_status until busy is low; *status gets the last value read. */
static int wait_idle(struct pktstats_dev *dev, uint32_t *status)
{
	for (unsigned i = 0; i < PKTSTATS_MAC_MDIO_POLLS; i++) {
		int err = named_read32(dev, PKTSTATS_MAC_MDIO_STATUS, status);
		if (err < 0)
			return err;
		if (!(*status & MDIO_BUSY))
			return 0;
	}
	return pktstats_fail(dev, -ETIMEDOUT,
			     "mac.mdio_status: still busy after %u reads (%s)",
			     PKTSTATS_MAC_MDIO_POLLS,
			     *status & MDIO_READY
				     ? "the MDIO master is stuck"
				     : "the PHYs are not out of reset: board_mdio's power-up table "
				       "is not written yet");
}

/* One frame: check, wait for the line, mdio_frame, mdio_command, wait; *status after it. */
static int mdio_frame(struct pktstats_dev *dev, bool read, unsigned phy, unsigned reg,
		      uint16_t data, uint32_t *status)
{
	if (!dev)
		return -EINVAL;
	if (phy >= PKTSTATS_MAC_MDIO_PHYS)
		return pktstats_fail(dev, -EINVAL, "mdio: PHY address %u is above 31", phy);
	if (reg >= PKTSTATS_MAC_MDIO_REGISTERS)
		return pktstats_fail(dev, -EINVAL, "mdio: register %u is above 31", reg);
	int err = check_mdio(dev);
	if (err == 0)
		err = wait_idle(dev, status);
	if (err == 0)
		err = named_write32(dev, PKTSTATS_MAC_MDIO_FRAME,
				    (uint32_t)phy << PKTSTATS_MAC_MDIO_FRAME_PHY_SHIFT |
					    (uint32_t)reg << PKTSTATS_MAC_MDIO_FRAME_REGISTER_SHIFT |
					    (uint32_t)data << PKTSTATS_MAC_MDIO_FRAME_DATA_SHIFT);
	if (err == 0)
		err = named_write32(dev, PKTSTATS_MAC_MDIO_COMMAND,
				    read ? PKTSTATS_MAC_MDIO_COMMAND_READ_MASK
					 : PKTSTATS_MAC_MDIO_COMMAND_WRITE_MASK);
	if (err == 0)
		err = wait_idle(dev, status);
	return err;
}

int pktstats_mac_mdio_read_answered(struct pktstats_dev *dev, unsigned phy, unsigned reg,
				    uint16_t *value, bool *answered)
{
	if (!value)
		return -EINVAL;
	*value = 0xffff;
	if (answered)
		*answered = false;
	uint32_t status = 0;
	int err = mdio_frame(dev, true, phy, reg, 0, &status);
	if (err < 0)
		return err;
	*value = (uint16_t)(status >> MDIO_READ_DATA_SHIFT);
	if (answered)
		*answered = !(status & MDIO_NO_ANSWER);
	return 0;
}

int pktstats_mac_mdio_read(struct pktstats_dev *dev, unsigned phy, unsigned reg,
			   uint16_t *value)
{
	return pktstats_mac_mdio_read_answered(dev, phy, reg, value, NULL);
}

int pktstats_mac_mdio_write(struct pktstats_dev *dev, unsigned phy, unsigned reg,
			    uint16_t value)
{
	uint32_t status;
	return mdio_frame(dev, false, phy, reg, value, &status);
}
