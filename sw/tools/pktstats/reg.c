/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, object `reg`: raw register access for debugging, by name from the generated
 * table (pktstats/regs.h: "evcap.control") or by byte address. A named 48- or 64-bit register
 * is read and written as a whole (low word first, as the register map prescribes); an address
 * is always one 32-bit access. The device is opened without the identity check, so that a
 * device that does not answer as pktstats can still be examined.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "output.h"
#include "pktstats/regs.h"

/* What a NAME|ADDR argument designates. */
struct target {
	const struct pktstats_reg_info *info; /* NULL: an address that is not a 32-bit register */
	uint32_t address;
	unsigned width;
};

static int parse_target(const struct cli *cli, const char *word, struct target *target)
{
	memset(target, 0, sizeof *target);
	for (size_t i = 0; i < pktstats_regs_count; i++)
		if (!strcmp(pktstats_regs[i].name, word)) {
			target->info = &pktstats_regs[i];
			target->address = pktstats_regs[i].address;
			target->width = pktstats_regs[i].width;
			return CLI_OK;
		}
	if (!(word[0] >= '0' && word[0] <= '9'))
		return cli_usage(cli, "unknown register '%s' (names like evcap.control: see "
				      "pktstats reg list)", word);
	uint64_t address;
	const char *error = parse_number(word, 0, PKTSTATS_REGISTER_SPACE - 4, &address);
	if (error)
		return cli_usage(cli, "address '%s': %s", word, error);
	if (address % 4)
		return cli_usage(cli, "address '%s' is not a multiple of 4", word);
	target->address = (uint32_t)address;
	target->width = 32;
	for (size_t i = 0; i < pktstats_regs_count; i++)
		if (pktstats_regs[i].address == address && pktstats_regs[i].width == 32)
			target->info = &pktstats_regs[i];
	return CLI_OK;
}

/* A failed access names the register the user means, as well as the address in the library's
 * detail; an address that is no register is named by the detail alone. */
static int access_failed(const struct cli *cli, const struct target *t, int err)
{
	char about[80];
	if (!t->info)
		return cli_fail(cli, err);
	snprintf(about, sizeof about, "%s (0x%08" PRIx32 ")", t->info->name, t->address);
	return cli_fail_about(cli, err, about);
}

static void print_register(const struct target *t, uint64_t value)
{
	char text[64];
	out_begin();
	out_string("name", t->info ? t->info->name : NULL);
	snprintf(text, sizeof text, "0x%08" PRIx32, t->address);
	out_uint("address", t->address, text);
	out_uint("width", t->width, NULL);
	out_string("access", t->info ? t->info->access : NULL);
	snprintf(text, sizeof text, "0x%0*" PRIx64 " (%" PRIu64 ")", (int)(t->width / 4), value,
		 value);
	out_uint("value", value, text);
	out_end();
}

static int reg_read(struct cli *cli, int argc, char **argv)
{
	if (argc < 1)
		return cli_usage(cli, "needs NAME or ADDRESS");
	if (argc > 1)
		return cli_usage(cli, "unexpected argument '%s'", argv[1]);
	struct target target;
	int status = parse_target(cli, argv[0], &target);
	if (status == CLI_OK)
		status = cli_open(cli, PKTSTATS_OPEN_NO_IDENTITY);
	if (status != CLI_OK)
		return status;
	uint64_t value = 0;
	uint32_t word;
	int err;
	if (target.width == 32) {
		err = pktstats_read32(cli->dev, target.address, &word);
		value = word;
	} else {
		err = pktstats_read64(cli->dev, target.address, &value);
	}
	if (err < 0)
		return access_failed(cli, &target, err);
	print_register(&target, value);
	return CLI_OK;
}

static int reg_write(struct cli *cli, int argc, char **argv)
{
	if (argc < 1)
		return cli_usage(cli, "needs NAME or ADDRESS, then VALUE");
	struct target target;
	int status = parse_target(cli, argv[0], &target);
	if (status != CLI_OK)
		return status;
	if (argc < 2)
		return cli_usage(cli, "%s needs a VALUE", argv[0]);
	if (argc > 2)
		return cli_usage(cli, "unexpected argument '%s'", argv[2]);
	uint64_t value;
	uint64_t max = target.width == 64 ? UINT64_MAX : (UINT64_C(1) << target.width) - 1;
	const char *error = parse_number(argv[1], 0, max, &value);
	if (error)
		return cli_usage(cli, "value '%s': %s (%s is %u bits)", argv[1], error, argv[0],
				 target.width);
	if ((status = cli_open(cli, PKTSTATS_OPEN_NO_IDENTITY)) != CLI_OK)
		return status;
	int err = target.width == 32 ? pktstats_write32(cli->dev, target.address, (uint32_t)value)
				     : pktstats_write64(cli->dev, target.address, value);
	return err < 0 ? access_failed(cli, &target, err) : CLI_OK;
}

static int reg_list(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status != CLI_OK)
		return status;
	char text[16];
	out_begin();
	out_list_begin("registers");
	for (size_t i = 0; i < pktstats_regs_count; i++) {
		const struct pktstats_reg_info *r = &pktstats_regs[i];
		out_item_begin();
		out_string("name", r->name);
		snprintf(text, sizeof text, "0x%08" PRIx32, r->address);
		out_uint("address", r->address, text);
		out_uint("width", r->width, NULL);
		out_string("access", r->access);
		out_item_end();
	}
	out_list_end();
	out_end();
	return CLI_OK;
}

static const struct cli_verb reg_verbs[] = {
	{"read", "NAME|ADDRESS", "read a register (for debugging)",
	 "NAME is a register of the generated table (pktstats reg list), e.g. evcap.control;\n"
	 "48- and 64-bit registers are read whole (low word first, which latches the high).\n"
	 "ADDRESS is a byte address, a multiple of 4 below 0x10000: one 32-bit read.\n"
	 "The identity is not checked, so any device can be examined.\n"
	 "With -j: name (null for an address that is not a 32-bit register), address, width,\n"
	 "access (rw, ro, const, counter, pulse; null when unnamed), value (number).\n",
	 reg_read},
	{"write", "NAME|ADDRESS VALUE", "write a register (for debugging)",
	 "VALUE is decimal or 0x hex and must fit the register's width. A 48- or 64-bit register\n"
	 "is written low word then high word (the high word commits). Writes to const and ro\n"
	 "registers fail with the device's error.\n",
	 reg_write},
	{"list", "", "list the registers of the generated table",
	 "With -j: registers, an array of objects with name, address, width, access.\n",
	 reg_list},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_reg = {
	"reg", "Registers by name or address, for debugging", reg_verbs,
};
