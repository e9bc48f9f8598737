/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats MAC port counters: the `mac` register block (regmap/mac.toml, base 0x7000) of
 * the NetFPGA-1G-CML board build, the statistics of its four RTL MACs (rtl/mac/) counted by
 * fpga/netfpga-1g-cml/rtl/board_mac_counters.v, and the host's access to the PHYs' registers
 * over MDIO (fpga/netfpga-1g-cml/rtl/board_mdio.v). The block is not part of pktstats_core:
 * pktstats-sim, whose MACs are C++ models, has none (its bus answers DECERR there), nor has a
 * design built without the board top. Every call then fails with -ENODEV and a detail that
 * starts "the device has no MAC block".
 *
 * Conventions as in pktstats/pktstats.h: 0 or a negative errno, nothing printed; a failed
 * register access leaves its detail in pktstats_error().
 */
#ifndef PKTSTATS_MAC_H
#define PKTSTATS_MAC_H

#include <stdbool.h>
#include <stdint.h>

#include "pktstats/pktstats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MAC ports 0..3 */
#define PKTSTATS_MAC_PORTS 4

/* One port's counters, in the registers' order (64 bits each, since the last clear). */
struct pktstats_mac_counters {
	uint64_t tx_frames;          /* frames sent whole with their FCS */
	uint64_t tx_bytes;           /* their bytes, padded to 60, without preamble, SFD, FCS */
	uint64_t tx_underruns;       /* frames cut by an underrun (bad FCS sent) */
	uint64_t rx_frames;          /* good frames received (overflows included) */
	uint64_t rx_bytes;           /* their bytes without FCS */
	uint64_t rx_fcs_errors;      /* wrong FCS, dropped */
	uint64_t rx_runts;           /* shorter than 64 bytes, dropped */
	uint64_t rx_giants;          /* longer than 1518 bytes, dropped */
	uint64_t rx_preamble_errors; /* no valid preamble and SFD, dropped */
	uint64_t rx_errors;          /* rx_er during the frame, dropped */
	uint64_t rx_overflows;       /* good frames dropped: the FIFO to the switch was full */
};
#define PKTSTATS_MAC_COUNTERS 11
/* The counters' names ("rx_fcs_errors"), in the struct's order. */
extern const char *const pktstats_mac_counter_names[PKTSTATS_MAC_COUNTERS];
/* The struct as an array in that order. */
void pktstats_mac_counters_array(const struct pktstats_mac_counters *counters,
				 uint64_t values[PKTSTATS_MAC_COUNTERS]);

/* Reads port `port`'s counters (each low word first, which latches its high word). -EINVAL:
 * a NULL pointer or a port above 3; -ENODEV: the device has no MAC block (the simulator);
 * otherwise the register access's error. On failure *counters is zeroed. */
int pktstats_mac_counters_read(struct pktstats_dev *dev, unsigned port,
			       struct pktstats_mac_counters *counters);
/* Clears every counter of every port (a write to each counter's low word). Same errors. */
int pktstats_mac_counters_clear(struct pktstats_dev *dev);

/* ---- The PHYs' registers over MDIO (IEEE 802.3 clause 22), through the block's mdio_frame,
 * mdio_command and mdio_status registers (block version 1.1 and later; the board's
 * board_mdio sends the frames). One frame at a time: each call waits (a bounded poll of
 * mdio_status.busy, PKTSTATS_MAC_MDIO_POLLS reads) for a frame under way to end, sends its
 * own and waits for it (about 34 us on the board). Errors: -EINVAL for a NULL pointer, a PHY
 * address or a register above 31; -ENODEV: no MAC block (pktstats-sim); -EOPNOTSUPP: a MAC
 * block without MDIO access (version 1.0); -ETIMEDOUT: busy did not fall (the PHYs still in
 * reset, or the master stuck), the detail says whether the power-up table was done; otherwise
 * the register access's error.
 *
 * Clause 22 has no "no such PHY" error: a read of an address where no PHY answers returns
 * the line's pull-up, 0xffff, with 0 returned. pktstats_mac_mdio_read_answered() tells the
 * two apart by the turnaround bit the PHY must drive low (mdio_status.no_answer). */
#define PKTSTATS_MAC_MDIO_PHYS 32      /* PHY addresses 0..31 */
#define PKTSTATS_MAC_MDIO_REGISTERS 32 /* registers 0..31 */
#define PKTSTATS_MAC_MDIO_POLLS 100000 /* reads of mdio_status before -ETIMEDOUT */

/* Reads register `reg` of PHY `phy` into *value (0xffff when nothing answered). */
int pktstats_mac_mdio_read(struct pktstats_dev *dev, unsigned phy, unsigned reg,
			   uint16_t *value);
/* The same, and *answered (may be NULL): whether a PHY drove the turnaround bit low. */
int pktstats_mac_mdio_read_answered(struct pktstats_dev *dev, unsigned phy, unsigned reg,
				    uint16_t *value, bool *answered);
/* Writes `value` into register `reg` of PHY `phy`. Clause 22 has no acknowledge: a write to
 * an address without a PHY succeeds and changes nothing. */
int pktstats_mac_mdio_write(struct pktstats_dev *dev, unsigned phy, unsigned reg,
			    uint16_t value);

#ifdef __cplusplus
}
#endif

#endif
