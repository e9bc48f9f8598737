/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TAP test of libpktstats' MAC port counters (src/mac.c, pktstats/mac.h), on a fake register
 * backend that models the `mac` block of regmap/mac.toml as the board has it: type "MAC " at
 * 0x7000, port p's counters at 0x7000 + 0x100 (p + 1) + 8 k (k in the struct's order), 64 bits,
 * a read of the low word latching the high word for the next read of the high word, a write to
 * either word clearing the counter; or, for the device without the block, a decode error
 * (-ENXIO, as the simulator backend gives for DECERR) at every address of the block, or a
 * wrong type. Checked:
 *   - every counter of every port read from its own address, in the struct's order and the
 *     names' order, 64 bits whole (high words distinct from low words), each low word read
 *     before its high word;
 *   - clear writes each of the 44 counters' low word once, and nothing else;
 *   - without the block (decode error, or another type): -ENODEV and "the device has no MAC
 *     block" for read and clear, nothing written, the struct zeroed; a port above 3 and NULL
 *     pointers: -EINVAL with nothing accessed; another register error (-EIO on one counter)
 *     comes back as it is, naming the register;
 *   - MDIO (mdio_frame 0x010, mdio_command 0x014, mdio_status 0x018, modelled with PHYs at
 *     some addresses, a frame busy for a few status reads): a read writes mdio_frame with
 *     the PHY in bits 4:0 and the register in 12:8, then mdio_command.read, then polls busy
 *     and returns bits 31:16 of mdio_status; a write puts the data in bits 31:16 and sets
 *     mdio_command.write; a frame under way is waited for before mdio_frame is written; an
 *     address without a PHY reads 0xffff, returns 0, answered false; busy that never falls:
 *     -ETIMEDOUT after a bounded number of polls, the detail saying whether the table was
 *     done; no block: -ENODEV; a version 1.0 block: -EOPNOTSUPP, nothing written; PHY or
 *     register above 31, NULL: -EINVAL with nothing accessed;
 *   - against pktstats-sim ($PKTSTATS_SIM, or ../../bin/pktstats-sim next to this program;
 *     skipped without it): the simulator has no MAC block: -ENODEV, "no MAC block".
 */
#define _DEFAULT_SOURCE

#include "pktstats/mac.h"
#include "pktstats/regs.h"

#include "../src/device_internal.h"
#include "test_sim_process.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

/* ---------------------------------------------------------------------------------------- */
/* The fake block                                                                             */

enum fake_mode { FAKE_PRESENT, FAKE_DECERR, FAKE_WRONG_TYPE, FAKE_VERSION_1_0 };

#define COUNTERS (PKTSTATS_MAC_PORTS * PKTSTATS_MAC_COUNTERS)
#define LOG_MAX 256

static enum fake_mode mode;
static uint64_t value[COUNTERS];
static uint32_t latch[COUNTERS];
static bool latched[COUNTERS];
static int fail_counter = -1; /* a read of this counter's low word fails with -EIO */
struct logged {
	char op;
	uint32_t address;
};
static struct logged access_log[LOG_MAX];
static unsigned log_n;

/* MDIO: the PHYs' registers, which addresses have a PHY, the block's mdio registers */
static uint16_t phy_regs[32][32];
static uint32_t phy_present;
static uint32_t mdio_frame_reg, mdio_status_reg;
static unsigned busy_left;     /* status reads that still show busy */
static unsigned busy_per_frame; /* status reads a frame is busy for */
static bool mdio_stuck, mdio_table_done;
static unsigned status_reads, commands;
static uint32_t last_command;

/* The counter at a block-local offset, or -1. */
static int counter_at(uint32_t offset, bool *high)
{
	if (offset < 0x100 || offset >= 0x500)
		return -1;
	uint32_t in_port = offset & 0xff;
	if (in_port >= 8 * PKTSTATS_MAC_COUNTERS)
		return -1;
	*high = in_port & 4;
	return (int)((offset / 0x100 - 1) * PKTSTATS_MAC_COUNTERS + in_port / 8);
}

static int fake_read32(struct pktstats_dev *dev, uint32_t address, uint32_t *v)
{
	if (log_n < LOG_MAX)
		access_log[log_n++] = (struct logged){'R', address};
	*v = 0;
	if (address < PKTSTATS_MAC_TYPE || address >= PKTSTATS_MAC_TYPE + 0x1000)
		return pktstats_fail(dev, -ENXIO, "fake: nothing at 0x%04x", (unsigned)address);
	if (mode == FAKE_DECERR)
		return pktstats_fail(dev, -ENXIO, "fake: decode error at 0x%04x", (unsigned)address);
	uint32_t offset = address - PKTSTATS_MAC_TYPE;
	if (offset == 0) {
		*v = mode == FAKE_WRONG_TYPE ? 0x464c4154 : 0x4d414320;
		return 0;
	}
	if (offset == 4) {
		*v = mode == FAKE_VERSION_1_0 ? 0x00010000 : 0x00010001;
		return 0;
	}
	if (offset == 0x10 && mode != FAKE_VERSION_1_0) {
		*v = mdio_frame_reg;
		return 0;
	}
	if (offset == 0x14 && mode != FAKE_VERSION_1_0) {
		*v = 0;
		return 0;
	}
	if (offset == 0x18 && mode != FAKE_VERSION_1_0) {
		status_reads++;
		bool busy = mdio_stuck || busy_left > 0;
		if (busy_left > 0)
			busy_left--;
		*v = (mdio_status_reg & ~3u) | (busy ? 1u : 0u) | (mdio_table_done ? 2u : 0u);
		return 0;
	}
	bool high;
	int c = counter_at(offset, &high);
	if (c < 0)
		return pktstats_fail(dev, -EIO, "fake: SLVERR at 0x%04x", (unsigned)address);
	if (!high) {
		if (c == fail_counter)
			return pktstats_fail(dev, -EIO, "fake: slave error");
		latch[c] = (uint32_t)(value[c] >> 32);
		latched[c] = true;
		*v = (uint32_t)value[c];
	} else {
		/* the high word is the one latched by the low word's read: 0xdead without one */
		*v = latched[c] ? latch[c] : 0xdead;
		latched[c] = false;
	}
	return 0;
}

static int fake_write32(struct pktstats_dev *dev, uint32_t address, uint32_t v)
{
	if (log_n < LOG_MAX)
		access_log[log_n++] = (struct logged){'W', address};
	if (address < PKTSTATS_MAC_TYPE || address >= PKTSTATS_MAC_TYPE + 0x1000 ||
	    mode == FAKE_DECERR)
		return pktstats_fail(dev, -ENXIO, "fake: decode error at 0x%04x", (unsigned)address);
	const uint32_t offset = address - PKTSTATS_MAC_TYPE;
	if (offset == 0x10 && mode != FAKE_VERSION_1_0) {
		mdio_frame_reg = v & 0xffff1f1fu;
		return 0;
	}
	if (offset == 0x14 && mode != FAKE_VERSION_1_0) {
		/* a command while busy is ignored, as board_mdio does */
		if (mdio_stuck || busy_left > 0 || !(v & 3))
			return 0;
		commands++;
		last_command = v;
		unsigned phy = mdio_frame_reg & 0x1f, reg = mdio_frame_reg >> 8 & 0x1f;
		bool there = phy_present >> phy & 1;
		if (v & 1) {
			uint16_t data = there ? phy_regs[phy][reg] : 0xffff;
			mdio_status_reg = (uint32_t)data << 16 | (there ? 0u : 4u);
		} else if (there) {
			phy_regs[phy][reg] = (uint16_t)(mdio_frame_reg >> 16);
		}
		busy_left = busy_per_frame;
		return 0;
	}
	bool high;
	int c = counter_at(offset, &high);
	if (c < 0)
		return pktstats_fail(dev, -EIO, "fake: SLVERR at 0x%04x", (unsigned)address);
	value[c] = 0;
	return 0;
}

static void fake_close(struct pktstats_dev *dev)
{
	(void)dev;
}

static const struct pktstats_backend_ops fake_ops = {
	.kind = PKTSTATS_BACKEND_MMAP,
	.read32 = fake_read32,
	.write32 = fake_write32,
	.close = fake_close,
};

static struct pktstats_dev *fake_dev(enum fake_mode m)
{
	struct pktstats_dev *dev = calloc(1, sizeof *dev);
	if (!dev) {
		perror("calloc");
		exit(2);
	}
	dev->ops = &fake_ops;
	dev->fd = -1;
	dev->identity_checked = true;
	mode = m;
	fail_counter = -1;
	log_n = 0;
	phy_present = 1u << 0 | 1u << 7 | 1u << 31;
	for (unsigned p = 0; p < 32; p++)
		for (unsigned r = 0; r < 32; r++)
			phy_regs[p][r] = (uint16_t)(0x9000 + 37 * p + r);
	mdio_frame_reg = 0;
	mdio_status_reg = 0xffff0000u;
	busy_left = 0;
	busy_per_frame = 3;
	mdio_stuck = false;
	mdio_table_done = true;
	status_reads = commands = 0;
	last_command = 0;
	for (unsigned c = 0; c < COUNTERS; c++) {
		/* distinct low and high words: port, counter and which word */
		value[c] = (uint64_t)(0x1000 + c) << 32 | (0x80000000u + 7 * c);
		latched[c] = false;
	}
	return dev;
}

static unsigned writes_logged(void)
{
	unsigned n = 0;
	for (unsigned i = 0; i < log_n; i++)
		n += access_log[i].op == 'W';
	return n;
}

/* ---------------------------------------------------------------------------------------- */

static void test_read(void)
{
	struct pktstats_dev *dev = fake_dev(FAKE_PRESENT);
	bool all = true, order = true;
	for (unsigned p = 0; p < PKTSTATS_MAC_PORTS; p++) {
		struct pktstats_mac_counters counters;
		uint64_t values[PKTSTATS_MAC_COUNTERS];
		log_n = 0;
		int rc = pktstats_mac_counters_read(dev, p, &counters);
		TAP_RC(rc, 0, pktstats_error(dev), "port %u: read", p);
		pktstats_mac_counters_array(&counters, values);
		for (unsigned k = 0; k < PKTSTATS_MAC_COUNTERS; k++) {
			unsigned c = p * PKTSTATS_MAC_COUNTERS + k;
			if (values[k] != value[c]) {
				if (all)
					tap_diag("port %u %s: 0x%016" PRIx64 ", want 0x%016" PRIx64, p,
						 pktstats_mac_counter_names[k], values[k], value[c]);
				all = false;
			}
		}
		/* type, then each counter: low word, then high word, at 0x7000 + 0x100 (p+1) + 8 k */
		if (log_n != 1 + 2 * PKTSTATS_MAC_COUNTERS || access_log[0].address != 0x7000)
			order = false;
		for (unsigned k = 0; order && k < PKTSTATS_MAC_COUNTERS; k++) {
			uint32_t lo = 0x7000 + 0x100 * (p + 1) + 8 * k;
			order = access_log[1 + 2 * k].op == 'R' && access_log[1 + 2 * k].address == lo &&
				access_log[2 + 2 * k].address == lo + 4;
		}
	}
	tap_ok(all, "every counter of every port, 64 bits whole, in the struct's order");
	tap_ok(order, "the type, then each counter's low word (latching) before its high word, "
		      "at 0x7000 + 0x100 (port + 1) + 8 k");
	struct pktstats_mac_counters c;
	tap_ok(pktstats_mac_counters_read(dev, 1, &c) == 0 &&
		       c.tx_frames == value[11] && c.tx_bytes == value[12] &&
		       c.tx_underruns == value[13] && c.rx_frames == value[14] &&
		       c.rx_bytes == value[15] && c.rx_fcs_errors == value[16] &&
		       c.rx_runts == value[17] && c.rx_giants == value[18] &&
		       c.rx_preamble_errors == value[19] && c.rx_errors == value[20] &&
		       c.rx_overflows == value[21],
	       "port 1: each field from its register (tx_frames_1 .. rx_overflows_1)");
	tap_ok(!strcmp(pktstats_mac_counter_names[0], "tx_frames") &&
		       !strcmp(pktstats_mac_counter_names[5], "rx_fcs_errors") &&
		       !strcmp(pktstats_mac_counter_names[10], "rx_overflows"),
	       "the names in the struct's order");
	pktstats_close(dev);
}

static void test_clear(void)
{
	struct pktstats_dev *dev = fake_dev(FAKE_PRESENT);
	int rc = pktstats_mac_counters_clear(dev);
	TAP_RC(rc, 0, pktstats_error(dev), "clear");
	bool all_zero = true, each_once = true;
	for (unsigned c = 0; c < COUNTERS; c++)
		all_zero = all_zero && value[c] == 0;
	for (unsigned p = 0; p < PKTSTATS_MAC_PORTS; p++)
		for (unsigned k = 0; k < PKTSTATS_MAC_COUNTERS; k++) {
			uint32_t lo = 0x7000 + 0x100 * (p + 1) + 8 * k;
			unsigned n = 0;
			for (unsigned i = 0; i < log_n; i++)
				n += access_log[i].op == 'W' && access_log[i].address == lo;
			each_once = each_once && n == 1;
		}
	tap_ok(all_zero && each_once && writes_logged() == COUNTERS,
	       "clear: one write to each of the 44 counters' low word, nothing else written");
	struct pktstats_mac_counters counters;
	rc = pktstats_mac_counters_read(dev, 3, &counters);
	tap_ok(rc == 0 && counters.tx_frames == 0 && counters.rx_overflows == 0,
	       "and they read 0");
	pktstats_close(dev);
}

static bool zeroed(const struct pktstats_mac_counters *c)
{
	static const struct pktstats_mac_counters zero;
	return !memcmp(c, &zero, sizeof zero);
}

static void test_errors(void)
{
	struct pktstats_mac_counters counters;
	struct pktstats_dev *dev = fake_dev(FAKE_DECERR);
	memset(&counters, 0xa5, sizeof counters);
	int rc = pktstats_mac_counters_read(dev, 0, &counters);
	TAP_RC(rc, -ENODEV, pktstats_error(dev), "decode error at the block: read -ENODEV");
	TAP_HAS(pktstats_error(dev), "the device has no MAC block", "and the detail says so");
	tap_ok(zeroed(&counters), "and the struct is zeroed");
	rc = pktstats_mac_counters_clear(dev);
	TAP_RC(rc, -ENODEV, pktstats_error(dev), "decode error: clear -ENODEV");
	tap_ok(writes_logged() == 0, "nothing written without the block");
	pktstats_close(dev);

	dev = fake_dev(FAKE_WRONG_TYPE);
	rc = pktstats_mac_counters_read(dev, 2, &counters);
	TAP_RC(rc, -ENODEV, pktstats_error(dev), "another block's type at 0x7000: -ENODEV");
	TAP_HAS(pktstats_error(dev), "mac.type reads 0x464c4154", "naming what it read");
	rc = pktstats_mac_counters_clear(dev);
	tap_ok(rc == -ENODEV && writes_logged() == 0, "and clear writes nothing");
	pktstats_close(dev);

	dev = fake_dev(FAKE_PRESENT);
	rc = pktstats_mac_counters_read(dev, PKTSTATS_MAC_PORTS, &counters);
	TAP_RC(rc, -EINVAL, pktstats_error(dev), "port 4: -EINVAL");
	tap_ok(log_n == 0, "with nothing accessed");
	tap_ok(pktstats_mac_counters_read(dev, 0, NULL) == -EINVAL &&
		       pktstats_mac_counters_read(NULL, 0, &counters) == -EINVAL &&
		       pktstats_mac_counters_clear(NULL) == -EINVAL,
	       "NULL pointers: -EINVAL");
	fail_counter = 2 * PKTSTATS_MAC_COUNTERS + 5; /* rx_fcs_errors_2 */
	memset(&counters, 0xa5, sizeof counters);
	rc = pktstats_mac_counters_read(dev, 2, &counters);
	TAP_RC(rc, -EIO, pktstats_error(dev), "a slave error on rx_fcs_errors_2: -EIO");
	TAP_HAS(pktstats_error(dev), "mac.rx_fcs_errors_2", "naming the register");
	tap_ok(zeroed(&counters), "and the struct is zeroed");
	pktstats_close(dev);
}


/* The index in the log of the first write to `address` from `from` on, or -1. */
static int first_write(uint32_t address, unsigned from)
{
	for (unsigned i = from; i < log_n; i++)
		if (access_log[i].op == 'W' && access_log[i].address == address)
			return (int)i;
	return -1;
}

static void test_mdio(void)
{
	struct pktstats_dev *dev = fake_dev(FAKE_PRESENT);
	uint16_t v = 0;
	bool answered = false;
	int rc = pktstats_mac_mdio_read_answered(dev, 7, 3, &v, &answered);
	TAP_RC(rc, 0, pktstats_error(dev), "mdio read phy 7 register 3");
	tap_ok(v == phy_regs[7][3] && answered, "returns the PHY's register, answered");
	tap_ok(mdio_frame_reg == (3u << 8 | 7u) && last_command == 1 && commands == 1,
	       "mdio_frame = register << 8 | phy, then mdio_command.read (1), one frame");
	int f = first_write(0x7010, 0), c = first_write(0x7014, 0);
	tap_ok(f >= 0 && c > f && access_log[log_n - 1].address == 0x7018 &&
		       status_reads >= 1 + busy_per_frame,
	       "mdio_frame before mdio_command, then mdio_status polled until busy fell");

	/* every PHY and register: distinct values come back from where they belong */
	bool all = true;
	for (unsigned p = 0; p < 32; p++)
		for (unsigned r = 0; r < 32; r += 7) {
			uint16_t x;
			rc = pktstats_mac_mdio_read_answered(dev, p, r, &x, &answered);
			bool there = phy_present >> p & 1;
			if (rc != 0 || x != (there ? phy_regs[p][r] : 0xffff) || answered != there) {
				if (all)
					tap_diag("phy %u reg %u: rc %d value 0x%04x answered %d", p, r,
						 rc, x, answered);
				all = false;
			}
		}
	tap_ok(all, "reads of every address: a PHY's register, or 0xffff and not answered "
		    "(no error: clause 22 has none)");
	rc = pktstats_mac_mdio_read(dev, 12, 2, &v);
	tap_ok(rc == 0 && v == 0xffff, "pktstats_mac_mdio_read of an absent PHY: 0, 0xffff");

	rc = pktstats_mac_mdio_write(dev, 31, 9, 0xa5c3);
	TAP_RC(rc, 0, pktstats_error(dev), "mdio write phy 31 register 9");
	tap_ok(phy_regs[31][9] == 0xa5c3 && mdio_frame_reg == (0xa5c3u << 16 | 9u << 8 | 31u) &&
		       last_command == 2,
	       "mdio_frame = data << 16 | register << 8 | phy, then mdio_command.write (2)");
	tap_ok(phy_regs[31][8] == (uint16_t)(0x9000 + 37 * 31 + 8) &&
		       phy_regs[0][9] == (uint16_t)(0x9000 + 9),
	       "and no other register changed");
	rc = pktstats_mac_mdio_read(dev, 31, 9, &v);
	tap_ok(rc == 0 && v == 0xa5c3, "read back");

	/* a frame under way (another user's): waited for before mdio_frame is written */
	busy_left = 5;
	log_n = 0;
	unsigned before = status_reads, from = log_n;
	rc = pktstats_mac_mdio_write(dev, 0, 4, 0x01e1);
	f = first_write(0x7010, from);
	unsigned polls_before = 0;
	for (int i = (int)from; f >= 0 && i < f; i++)
		polls_before += access_log[i].address == 0x7018;
	tap_ok(rc == 0 && phy_regs[0][4] == 0x01e1 && polls_before == 6 &&
		       status_reads - before == 6 + 1 + busy_per_frame,
	       "a frame under way is waited for (6 polls) before mdio_frame is written");

	/* busy never falls */
	mdio_stuck = true;
	commands = 0;
	rc = pktstats_mac_mdio_read(dev, 0, 1, &v);
	TAP_RC(rc, -ETIMEDOUT, pktstats_error(dev), "busy stuck: -ETIMEDOUT");
	TAP_HAS(pktstats_error(dev), "mac.mdio_status: still busy", "naming the register");
	TAP_HAS(pktstats_error(dev), "stuck", "and the table done");
	tap_ok(commands == 0 && log_n <= LOG_MAX, "no command sent while busy");
	mdio_table_done = false;
	rc = pktstats_mac_mdio_write(dev, 0, 1, 0);
	TAP_RC(rc, -ETIMEDOUT, pktstats_error(dev), "not ready: -ETIMEDOUT");
	TAP_HAS(pktstats_error(dev), "not out of reset", "saying the PHYs are in reset");
	mdio_stuck = false;
	mdio_table_done = true;

	/* arguments */
	log_n = 0;
	tap_ok(pktstats_mac_mdio_read(dev, 32, 0, &v) == -EINVAL &&
		       pktstats_mac_mdio_read(dev, 0, 32, &v) == -EINVAL &&
		       pktstats_mac_mdio_write(dev, 32, 0, 0) == -EINVAL &&
		       pktstats_mac_mdio_write(dev, 0, 32, 0) == -EINVAL &&
		       pktstats_mac_mdio_read(dev, 0, 0, NULL) == -EINVAL &&
		       pktstats_mac_mdio_read(NULL, 0, 0, &v) == -EINVAL &&
		       pktstats_mac_mdio_write(NULL, 0, 0, 0) == -EINVAL && log_n == 0,
	       "PHY or register above 31, NULL: -EINVAL, nothing accessed");
	TAP_HAS(pktstats_error(dev), "register 32 is above 31", "naming the bad number");
	pktstats_close(dev);

	dev = fake_dev(FAKE_DECERR);
	rc = pktstats_mac_mdio_read(dev, 0, 2, &v);
	TAP_RC(rc, -ENODEV, pktstats_error(dev), "no MAC block: mdio read -ENODEV");
	TAP_HAS(pktstats_error(dev), "the device has no MAC block", "and the detail says so");
	rc = pktstats_mac_mdio_write(dev, 0, 2, 1);
	tap_ok(rc == -ENODEV && writes_logged() == 0, "mdio write -ENODEV, nothing written");
	pktstats_close(dev);

	dev = fake_dev(FAKE_VERSION_1_0);
	rc = pktstats_mac_mdio_read(dev, 0, 2, &v);
	TAP_RC(rc, -EOPNOTSUPP, pktstats_error(dev), "a version 1.0 block: -EOPNOTSUPP");
	TAP_HAS(pktstats_error(dev), "has no MDIO access", "and the detail says so");
	rc = pktstats_mac_mdio_write(dev, 0, 2, 1);
	tap_ok(rc == -EOPNOTSUPP && writes_logged() == 0, "mdio write too, nothing written");
	pktstats_close(dev);
}

int main(int argc, char **argv)
{
	char sim[PATH_MAX], error[PKTSTATS_ERROR_MAX];
	(void)argc;
	signal(SIGPIPE, SIG_DFL);

	test_read();
	test_clear();
	test_errors();
	test_mdio();

	if (simulator_setup(argv[0], sim, sizeof sim, "test_mac"))
		return tap_done();
	struct pktstats_dev *dev = NULL;
	pid_t pid = start_simulator(sim, NULL);
	int rc = open_when_ready(pid, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "open the simulator");
	if (rc == 0) {
		struct pktstats_mac_counters counters;
		rc = pktstats_mac_counters_read(dev, 0, &counters);
		TAP_RC(rc, -ENODEV, pktstats_error(dev), "pktstats-sim: no MAC block: -ENODEV");
		TAP_HAS(pktstats_error(dev), "the device has no MAC block", "the detail says so");
		TAP_HAS(pktstats_error(dev), "DECERR", "from the bus's decode error");
		rc = pktstats_mac_counters_clear(dev);
		TAP_RC(rc, -ENODEV, pktstats_error(dev), "pktstats-sim: clear -ENODEV");
		uint16_t v;
		rc = pktstats_mac_mdio_read(dev, 0, 2, &v);
		TAP_RC(rc, -ENODEV, pktstats_error(dev), "pktstats-sim: mdio read -ENODEV");
		rc = pktstats_mac_mdio_write(dev, 0, 0, 0x8000);
		TAP_RC(rc, -ENODEV, pktstats_error(dev), "pktstats-sim: mdio write -ENODEV");
		pktstats_close(dev);
	}
	stop_simulator(&pid, SIGKILL, NULL);
	simulator_cleanup();
	return tap_done();
}
