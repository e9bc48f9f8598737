/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, object `dev`: what the device is: how it was reached, its identity (magic,
 * design version, git hash of the build) and each register block's type and version.
 */
#include <stdio.h>

#include "cli.h"
#include "output.h"
#include "pktstats/regs.h"

/* Four ASCII characters of a type word ("EVCP"), '.' for anything else. */
static void type_text(uint32_t word, char text[5])
{
	for (int i = 0; i < 4; i++) {
		char c = (char)(word >> (24 - 8 * i));
		text[i] = c >= 0x20 && c < 0x7f ? c : '.';
	}
	text[4] = '\0';
}

static int dev_show(struct cli *cli, int argc, char **argv)
{
	static const struct {
		const char *name;
		uint32_t type, version;
	} blocks[] = {
		{"id", PKTSTATS_ID_TYPE, PKTSTATS_ID_VERSION},
		{"evcap", PKTSTATS_EVCAP_TYPE, PKTSTATS_EVCAP_VERSION},
		{"switch", PKTSTATS_SWITCH_TYPE, PKTSTATS_SWITCH_VERSION},
		{"time", PKTSTATS_TIME_TYPE, PKTSTATS_TIME_VERSION},
		{"stamp", PKTSTATS_STAMP_TYPE, PKTSTATS_STAMP_VERSION},
		{"oam", PKTSTATS_OAM_TYPE, PKTSTATS_OAM_VERSION},
		{"flowlat", PKTSTATS_FLOWLAT_TYPE, PKTSTATS_FLOWLAT_VERSION},
	};
	enum { BLOCKS = sizeof blocks / sizeof blocks[0] };
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	struct pktstats_identity id;
	uint32_t types[BLOCKS], versions[BLOCKS];
	int err = pktstats_identity(cli->dev, &id);
	for (unsigned i = 0; err == 0 && i < BLOCKS; i++)
		if ((err = pktstats_read32(cli->dev, blocks[i].type, &types[i])) == 0)
			err = pktstats_read32(cli->dev, blocks[i].version, &versions[i]);
	if (err < 0)
		return cli_fail(cli, err);
	char text[64], type[5];
	out_begin();
	out_string("device", cli->device);
	out_string("backend", pktstats_backend_name(pktstats_backend(cli->dev)));
	out_string("description", pktstats_description(cli->dev));
	type_text(id.magic, type);
	snprintf(text, sizeof text, "0x%08x (%s)", id.magic, type);
	out_uint("magic", id.magic, text);
	snprintf(text, sizeof text, "%u.%u", id.major, id.minor);
	out_string("design-version", text);
	snprintf(text, sizeof text, "%08x", id.git_hash);
	out_string("git-hash", text);
	out_list_begin("blocks");
	for (unsigned i = 0; i < BLOCKS; i++) {
		out_item_begin();
		out_string("name", blocks[i].name);
		type_text(types[i], type);
		out_string("type", type);
		snprintf(text, sizeof text, "%u.%u", versions[i] >> 16, versions[i] & 0xffff);
		out_string("version", text);
		out_item_end();
	}
	out_list_end();
	out_end();
	return CLI_OK;
}

static const struct cli_verb dev_verbs[] = {
	{"show", "", "show the device, its identity and its register blocks",
	 "With -j: device, backend (sim, mmap, chardev, netdev), description, magic (number),\n"
	 "design_version (\"major.minor\"), git_hash (8 hex digits: the first 32 bits of the\n"
	 "build's git commit), blocks (an array of objects with name, type, version).\n",
	 dev_show},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_dev = {
	"dev", "The device: identity, version, build", dev_verbs,
};
