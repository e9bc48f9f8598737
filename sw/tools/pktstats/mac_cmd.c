/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, object `mac`: the MAC port counters of the NetFPGA-1G-CML board build (the
 * `mac` block, regmap/mac.toml; pktstats/mac.h): frames, bytes and underruns sent, frames,
 * bytes and errors received, per MAC port; and their clear. And the PHYs' registers over
 * MDIO (IEEE 802.3 clause 22): read, write, and a scan of the 32 addresses for PHY
 * identifiers. pktstats-sim has no such block (its MACs are C++ models): the verbs then fail
 * with one line saying so, exit 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "keywords.h"
#include "output.h"
#include "pktstats/mac.h"

/* `counters SUBVERB ...`: show or clear, for the messages "mac counters show". */
static int subverb(struct cli *cli, int argc, char **argv, size_t *which)
{
	static const char *const names[] = {"show", "clear"};
	static const char *const full[] = {"counters show", "counters clear"};
	if (argc < 1)
		return cli_usage(cli, "needs show or clear");
	for (size_t i = 0; i < 2; i++)
		if (!strcmp(argv[0], names[i])) {
			*which = i;
			cli->verb = full[i];
			return CLI_OK;
		}
	return cli_usage(cli, "unknown word '%s' (show or clear)", argv[0]);
}

static int counters_show(struct cli *cli, int argc, char **argv)
{
	struct keyword kw[] = {{"port", NULL}};
	uint64_t port = 0;
	int status = keywords_parse(cli, argc, argv, kw, 1, "mac counters");
	if (status == CLI_OK)
		status = keyword_number(cli, kw, 1, "port", 0, PKTSTATS_MAC_PORTS - 1, &port);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	const bool one = keyword_value(kw, 1, "port") != NULL;
	const unsigned first = one ? (unsigned)port : 0;
	const unsigned last = one ? (unsigned)port : PKTSTATS_MAC_PORTS - 1;
	struct pktstats_mac_counters counters[PKTSTATS_MAC_PORTS];
	for (unsigned p = first; p <= last; p++) {
		int err = pktstats_mac_counters_read(cli->dev, p, &counters[p]);
		if (err < 0)
			return cli_fail(cli, err);
	}
	out_begin();
	out_list_begin("ports");
	for (unsigned p = first; p <= last; p++) {
		uint64_t values[PKTSTATS_MAC_COUNTERS];
		pktstats_mac_counters_array(&counters[p], values);
		out_item_begin();
		out_uint("port", p, NULL);
		for (unsigned i = 0; i < PKTSTATS_MAC_COUNTERS; i++) {
			char key[40];
			snprintf(key, sizeof key, "%s", pktstats_mac_counter_names[i]);
			for (char *c = key; *c; c++)
				if (*c == '_')
					*c = '-';
			out_uint(key, values[i], NULL);
		}
		out_item_end();
	}
	out_list_end();
	out_end();
	return CLI_OK;
}

static int counters_clear(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	int err = pktstats_mac_counters_clear(cli->dev);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int mac_counters(struct cli *cli, int argc, char **argv)
{
	size_t which = 0;
	int status = subverb(cli, argc, argv, &which);
	if (status != CLI_OK)
		return status;
	return which == 0 ? counters_show(cli, argc - 1, argv + 1)
			  : counters_clear(cli, argc - 1, argv + 1);
}

static const char counters_details[] =
	"show: per MAC port (every port, or port N, 0..3), the counters since the last clear:\n"
	"  tx-frames, tx-bytes (padded to 60, without preamble, SFD and FCS), tx-underruns,\n"
	"  rx-frames (good frames, overflows included), rx-bytes (without FCS), rx-fcs-errors,\n"
	"  rx-runts, rx-giants, rx-preamble-errors, rx-errors (rx_er), rx-overflows (good frames\n"
	"  the receive FIFO had no room for). With -j: {\"ports\": [{\"port\": N, \"tx_frames\":\n"
	"  ...}]}, the same keys with '_'.\n"
	"clear: sets every counter of every port to 0. They are cleared only so, never by\n"
	"  reading them.\n"
	"The block is on the NetFPGA-1G-CML board build only (regmap/mac.toml, base 0x7000);\n"
	"on pktstats-sim, whose MACs are C++ models, both fail (exit 1): no MAC block.\n";

/* ---- mdio */

/* A number argument in 0..max; what names it in messages ("PHY"). */
static int number_arg(struct cli *cli, const char *what, const char *word, uint64_t max,
		      uint64_t *value)
{
	const char *error = parse_number(word, 0, max, value);
	if (error)
		return cli_usage(cli, "%s '%s': %s (%s)", what, word, error,
				 max == 0xffff ? "0..0xffff" : "0..31");
	return CLI_OK;
}

/* PHY REGISTER [VALUE]: exactly `n` words. */
static int mdio_args(struct cli *cli, int argc, char **argv, int n, uint64_t values[3])
{
	static const char *const what[] = {"PHY", "REGISTER", "VALUE"};
	static const uint64_t max[] = {31, 31, 0xffff};
	if (argc < n)
		return cli_usage(cli, n == 2 ? "needs PHY and REGISTER" : "needs PHY, REGISTER and VALUE");
	if (argc > n)
		return cli_usage(cli, "unexpected argument '%s'", argv[n]);
	for (int i = 0; i < n; i++) {
		int status = number_arg(cli, what[i], argv[i], max[i], &values[i]);
		if (status != CLI_OK)
			return status;
	}
	return CLI_OK;
}

static void hex_text(char *text, size_t size, unsigned digits, uint64_t v)
{
	snprintf(text, size, "0x%0*" PRIx64, (int)digits, v);
}

static int mdio_read(struct cli *cli, int argc, char **argv)
{
	uint64_t a[3];
	int status = mdio_args(cli, argc, argv, 2, a);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	uint16_t value;
	bool answered;
	int err = pktstats_mac_mdio_read_answered(cli->dev, (unsigned)a[0], (unsigned)a[1], &value,
						  &answered);
	if (err < 0)
		return cli_fail(cli, err);
	char text[16];
	hex_text(text, sizeof text, 4, value);
	out_begin();
	out_uint("phy", a[0], NULL);
	out_uint("register", a[1], NULL);
	out_uint("value", value, text);
	out_bool("answered", answered);
	out_end();
	return CLI_OK;
}

static int mdio_write(struct cli *cli, int argc, char **argv)
{
	uint64_t a[3];
	int status = mdio_args(cli, argc, argv, 3, a);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	int err = pktstats_mac_mdio_write(cli->dev, (unsigned)a[0], (unsigned)a[1],
					  (uint16_t)a[2]);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

/* The OUI from the identifier's 22 OUI bits (802.3 22.2.4.3.1: bits 3..24 of the OUI in
 * registers 2.15..2.0 and 3.15..3.10; the OUI's bit 1 is the least significant bit of its
 * first octet, as transmitted), as "xx-xx-xx". */
static void oui_text(uint32_t id, char *text, size_t size)
{
	uint32_t bits = id >> 10; /* OUI bit n at bit 24 - n; bits 1 and 2 are 0 */
	uint8_t octet[3];
	for (unsigned k = 0; k < 3; k++) {
		uint8_t b = (uint8_t)(bits >> (16 - 8 * k)), r = 0;
		for (unsigned j = 0; j < 8; j++)
			r = (uint8_t)(r | ((b >> j & 1u) << (7 - j)));
		octet[k] = r;
	}
	snprintf(text, size, "%02x-%02x-%02x", octet[0], octet[1], octet[2]);
}

static int mdio_scan(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	uint32_t ids[PKTSTATS_MAC_MDIO_PHYS];
	for (unsigned phy = 0; phy < PKTSTATS_MAC_MDIO_PHYS; phy++) {
		uint16_t id2, id3;
		int err = pktstats_mac_mdio_read(cli->dev, phy, 2, &id2);
		if (err == 0)
			err = pktstats_mac_mdio_read(cli->dev, phy, 3, &id3);
		if (err < 0)
			return cli_fail(cli, err);
		ids[phy] = (uint32_t)id2 << 16 | id3;
	}
	out_begin();
	out_list_begin("phys");
	for (unsigned phy = 0; phy < PKTSTATS_MAC_MDIO_PHYS; phy++) {
		if (ids[phy] == 0xffffffffu || ids[phy] == 0)
			continue;
		char id[16], oui[16];
		hex_text(id, sizeof id, 8, ids[phy]);
		oui_text(ids[phy], oui, sizeof oui);
		out_item_begin();
		out_uint("phy", phy, NULL);
		out_uint("id", ids[phy], id);
		out_string("oui", oui);
		out_uint("model", ids[phy] >> 4 & 0x3f, NULL);
		out_uint("revision", ids[phy] & 0xf, NULL);
		out_item_end();
	}
	out_list_end();
	out_end();
	return CLI_OK;
}

static int mac_mdio(struct cli *cli, int argc, char **argv)
{
	static const char *const names[] = {"read", "write", "scan"};
	static const char *const full[] = {"mdio read", "mdio write", "mdio scan"};
	static int (*const run[])(struct cli *, int, char **) = {mdio_read, mdio_write, mdio_scan};
	if (argc < 1)
		return cli_usage(cli, "needs read, write or scan");
	for (size_t i = 0; i < 3; i++)
		if (!strcmp(argv[0], names[i])) {
			cli->verb = full[i];
			return run[i](cli, argc - 1, argv + 1);
		}
	return cli_usage(cli, "unknown word '%s' (read, write or scan)", argv[0]);
}

static const char mdio_details[] =
	"The PHYs' registers over MDC/MDIO (IEEE 802.3 clause 22), one frame at a time, through\n"
	"the MAC block's mdio_frame, mdio_command and mdio_status registers:\n"
	"read PHY REGISTER: PHY address 0..31, register 0..31; shows the value and whether a\n"
	"  PHY answered (drove the turnaround bit low). An address without a PHY reads 0xffff:\n"
	"  clause 22 has no error for it, exit 0, answered no. With -j: {\"phy\": N,\n"
	"  \"register\": N, \"value\": N, \"answered\": true|false}.\n"
	"write PHY REGISTER VALUE: VALUE 0..0xffff. Clause 22 has no acknowledge: a write to an\n"
	"  address without a PHY changes nothing and still exits 0.\n"
	"scan: reads registers 2 and 3 (the PHY identifier) of every address 0..31 and lists\n"
	"  those that read other than 0xffffffff and 0: phy, id (register 2 in bits 31:16,\n"
	"  register 3 in 15:0), oui (bits 3..24 of the OUI in id bits 31:10, shown as octets\n"
	"  with the OUI's bit 1 the low bit of its first octet, 802.3 22.2.4.3.1; some vendors\n"
	"  number them the other way: their OUI is then id >> 10 as a hex number), model (id\n"
	"  bits 9:4), revision (bits 3:0). With -j: {\"phys\": [{\"phy\": N, \"id\": N,\n"
	"  \"oui\": \"xx-xx-xx\", \"model\": N, \"revision\": N}]}.\n"
	"A frame takes about 34 us; a command waits (bounded) for the one under way. Until the\n"
	"PHYs are out of reset and board_mdio's power-up table is written, the verbs time out\n"
	"(exit 1). NetFPGA-1G-CML board build only (regmap/mac.toml, block version 1.1); on\n"
	"pktstats-sim all fail (exit 1): no MAC block.\n";

static const struct cli_verb mac_verbs[] = {
	{"counters", "show [port N] | clear", "the MAC ports' frame, byte and error counters",
	 counters_details, mac_counters},
	{"mdio", "read PHY REGISTER | write PHY REGISTER VALUE | scan",
	 "the PHYs' registers over MDIO (clause 22)", mdio_details, mac_mdio},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_mac = {
	"mac", "MAC port counters and PHY registers (NetFPGA-1G-CML board build only)", mac_verbs,
};
