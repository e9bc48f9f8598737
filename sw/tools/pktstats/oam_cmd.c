/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, object `oam`: the link-delay engines of the MAC ports (docs/oam.md): show and
 * set a port's settings, clear its counters; and `oam decode FILE...`, every ETH-DM and
 * headroom frame of capture files, field by field (no device).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "keywords.h"
#include "oam_link.h"
#include "oam_output.h"
#include "output.h"
#include "stat_reader.h"

/* `port N` (optional when all_allowed): a mask of MAC ports. */
static int parse_port_argument(const struct cli *cli, int argc, char **argv, bool required,
			       unsigned *mask)
{
	*mask = (1u << PKTSTATS_OAM_MAC_PORTS) - 1;
	if (argc == 0) {
		if (required)
			return cli_usage(cli, "needs port N (a MAC port, 0..3)");
		return CLI_OK;
	}
	if (strcmp(argv[0], "port"))
		return cli_usage(cli, "unknown keyword '%s' (port N)", argv[0]);
	if (argc < 2)
		return cli_usage(cli, "'port' needs a value (a MAC port, 0..3)");
	uint64_t port;
	const char *error = parse_number(argv[1], 0, PKTSTATS_OAM_MAC_PORTS - 1, &port);
	if (error)
		return cli_usage(cli, "port '%s': %s", argv[1], error);
	*mask = 1u << port;
	return CLI_OK;
}

/* show and clear: an optional `port N` and nothing else, then the device. */
static int parse_ports_and_open(struct cli *cli, int argc, char **argv, unsigned *mask)
{
	int status = parse_port_argument(cli, argc, argv, false, mask);
	if (status == CLI_OK && argc > 2)
		status = cli_usage(cli, "unexpected argument '%s'", argv[2]);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	return status;
}

static int oam_show(struct cli *cli, int argc, char **argv)
{
	unsigned mask;
	int status = parse_ports_and_open(cli, argc, argv, &mask);
	if (status != CLI_OK)
		return status;
	struct pktstats_oam_port_config config[PKTSTATS_OAM_MAC_PORTS];
	struct pktstats_oam_port_counters counters[PKTSTATS_OAM_MAC_PORTS];
	for (unsigned p = 0; p < PKTSTATS_OAM_MAC_PORTS; p++) {
		if (!(mask >> p & 1))
			continue;
		int err = pktstats_oam_port_get(cli->dev, p, &config[p]);
		if (err == 0)
			err = pktstats_oam_port_counters(cli->dev, p, &counters[p]);
		if (err < 0)
			return cli_fail(cli, err);
	}
	out_begin();
	out_list_begin("ports");
	for (unsigned p = 0; p < PKTSTATS_OAM_MAC_PORTS; p++) {
		if (!(mask >> p & 1))
			continue;
		const struct pktstats_oam_port_config *c = &config[p];
		const struct pktstats_oam_port_counters *n = &counters[p];
		out_item_begin();
		out_uint("port", p, NULL);
		out_bool("dm", c->dm_enable);
		out_bool("dm-responder", c->dm_responder);
		out_uint("dm-level", c->dm_level, NULL);
		out_bool("headroom", c->headroom_enable);
		out_bool("headroom-responder", c->headroom_responder);
		out_bool("isl-copy-field", c->isl_copy_field);
		out_bool("isl-group", c->isl_group);
		out_bool("cpu-bound", c->cpu_bound);
		out_string("mac", mac_text(c->mac, 0));
		out_uint("byte-time", c->byte_time, NULL);
		out_item_break(); /* the configuration, then a line per engine */
		out_uint("dm-stamped", n->dm_stamped, NULL);
		out_uint("dm-answered", n->dm_answered, NULL);
		out_uint("dm-replies-sent", n->dm_replies_sent, NULL);
		out_uint("dm-passed-up", n->dm_passed_up, NULL);
		out_uint("dm-malformed", n->dm_malformed, NULL);
		out_item_break();
		out_uint("headroom-stamped", n->headroom_stamped, NULL);
		out_uint("headroom-answered", n->headroom_answered, NULL);
		out_uint("headroom-replies-sent", n->headroom_replies_sent, NULL);
		out_uint("headroom-passed-up", n->headroom_passed_up, NULL);
		out_uint("headroom-malformed", n->headroom_malformed, NULL);
		out_item_break();
		out_uint("isl-t0-stamped", n->isl_t0_stamped, NULL);
		out_uint("isl-t1-stamped", n->isl_t1_stamped, NULL);
		out_uint("isl-reflected", n->isl_reflected, NULL);
		out_uint("isl-passed-up", n->isl_passed_up, NULL);
		out_item_end();
	}
	out_list_end();
	out_end();
	return CLI_OK;
}

static int oam_set(struct cli *cli, int argc, char **argv)
{
	unsigned mask;
	int status = parse_port_argument(cli, argc, argv, true, &mask);
	if (status != CLI_OK)
		return status;
	struct keyword keywords[] = {
		{"dm", NULL},       {"dm-responder", NULL},       {"dm-level", NULL},
		{"headroom", NULL}, {"headroom-responder", NULL}, {"isl-copy-field", NULL},
		{"isl-group", NULL}, {"cpu-bound", NULL},         {"mac", NULL},
		{"byte-time", NULL},
	};
	const size_t n = sizeof keywords / sizeof keywords[0];
	if (argc <= 2)
		return cli_usage(cli, "nothing to set (keywords: dm, dm-responder, dm-level, headroom, "
				 "headroom-responder, isl-copy-field, isl-group, cpu-bound, mac, "
				 "byte-time)");
	status = keywords_parse(cli, argc - 2, argv + 2, keywords, n, "oam set");
	bool dm = false, dm_responder = false, headroom = false, headroom_responder = false,
	     isl_copy_field = false, isl_group = false, cpu_bound = false;
	uint64_t level = 0, byte_time = 0;
	uint8_t mac[6];
	if (status == CLI_OK)
		status = keyword_on_off(cli, keywords, n, "dm", &dm);
	if (status == CLI_OK)
		status = keyword_on_off(cli, keywords, n, "dm-responder", &dm_responder);
	if (status == CLI_OK)
		status = keyword_number(cli, keywords, n, "dm-level", 0, 7, &level);
	if (status == CLI_OK)
		status = keyword_on_off(cli, keywords, n, "headroom", &headroom);
	if (status == CLI_OK)
		status = keyword_on_off(cli, keywords, n, "headroom-responder", &headroom_responder);
	if (status == CLI_OK)
		status = keyword_on_off(cli, keywords, n, "isl-copy-field", &isl_copy_field);
	if (status == CLI_OK)
		status = keyword_on_off(cli, keywords, n, "isl-group", &isl_group);
	if (status == CLI_OK)
		status = keyword_on_off(cli, keywords, n, "cpu-bound", &cpu_bound);
	if (status == CLI_OK)
		status = keyword_mac(cli, keywords, n, "mac", mac);
	if (status == CLI_OK)
		status = keyword_number(cli, keywords, n, "byte-time", 1,
					PKTSTATS_OAM_BYTE_TIME_MAX, &byte_time);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	unsigned port = (unsigned)__builtin_ctz(mask);
	struct pktstats_oam_port_config config;
	int err = pktstats_oam_port_get(cli->dev, port, &config);
	if (err < 0)
		return cli_fail(cli, err);
	/* only what was given changes */
	if (keyword_value(keywords, n, "dm"))
		config.dm_enable = dm;
	if (keyword_value(keywords, n, "dm-responder"))
		config.dm_responder = dm_responder;
	if (keyword_value(keywords, n, "dm-level"))
		config.dm_level = (uint8_t)level;
	if (keyword_value(keywords, n, "headroom"))
		config.headroom_enable = headroom;
	if (keyword_value(keywords, n, "headroom-responder"))
		config.headroom_responder = headroom_responder;
	if (keyword_value(keywords, n, "isl-copy-field"))
		config.isl_copy_field = isl_copy_field;
	if (keyword_value(keywords, n, "isl-group"))
		config.isl_group = isl_group;
	if (keyword_value(keywords, n, "cpu-bound"))
		config.cpu_bound = cpu_bound;
	if (keyword_value(keywords, n, "mac"))
		memcpy(config.mac, mac, 6);
	if (keyword_value(keywords, n, "byte-time"))
		config.byte_time = (uint16_t)byte_time;
	err = pktstats_oam_port_set(cli->dev, port, &config);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int oam_clear(struct cli *cli, int argc, char **argv)
{
	unsigned mask;
	int status = parse_ports_and_open(cli, argc, argv, &mask);
	if (status != CLI_OK)
		return status;
	for (unsigned p = 0; p < PKTSTATS_OAM_MAC_PORTS; p++) {
		if (!(mask >> p & 1))
			continue;
		int err = pktstats_oam_port_counters_clear(cli->dev, p);
		if (err < 0)
			return cli_fail(cli, err);
	}
	return CLI_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* decode */

static const char *dm_name(uint8_t opcode)
{
	switch (opcode) {
	case PKTSTATS_DM_OPCODE_1DM: return "1DM";
	case PKTSTATS_DM_OPCODE_DMR: return "DMR";
	case PKTSTATS_DM_OPCODE_DMM: return "DMM";
	}
	return NULL;
}

/* How far the parser got: the header (4 bytes after the EtherType) and the stamps. */
static void print_dm(const char *file, uint64_t index, const uint8_t *frame, size_t len,
		     const struct pktstats_dm_frame *dm, enum pktstats_oam_error error)
{
	size_t pdu = dm->tagged ? 18 : 14;
	bool header = len >= pdu + 4;
	const char *name = header ? dm_name(dm->opcode) : NULL;
	bool stamps = name && error != PKTSTATS_OAM_TRUNCATED && error != PKTSTATS_OAM_BAD_VERSION;
	bool two_way_stamps = stamps && dm->opcode != PKTSTATS_DM_OPCODE_1DM;
	(void)frame;
	out_item_begin();
	out_string("file", file);
	out_uint("index", index, NULL);
	out_string("protocol", "dm");
	out_string("destination", mac_text(dm->destination, 0));
	out_string("source", mac_text(dm->source, 1));
	if (dm->tagged)
		out_uint("vlan", dm->vlan_tci & 0xfff, NULL);
	else
		out_string("vlan", NULL);
	if (len >= pdu + 1) {
		out_uint("level", dm->level, NULL);
		out_uint("version", dm->version, NULL);
	} else {
		out_string("level", NULL);
		out_string("version", NULL);
	}
	if (len >= pdu + 2)
		out_uint("opcode", dm->opcode, NULL);
	else
		out_string("opcode", NULL);
	out_string("name", name);
	if (len >= pdu + 3)
		out_uint("flags", dm->flags, NULL);
	else
		out_string("flags", NULL);
	if (header)
		out_uint("tlv-offset", dm->tlv_offset, NULL);
	else
		out_string("tlv-offset", NULL);
	out_wire_time("tx-timestamp-f", dm->tx_timestamp_f, stamps);
	out_wire_time("rx-timestamp-f", dm->rx_timestamp_f, stamps);
	if (!name || dm->opcode != PKTSTATS_DM_OPCODE_1DM) {
		out_wire_time("tx-timestamp-b", dm->tx_timestamp_b, two_way_stamps);
		out_wire_time("rx-timestamp-b", dm->rx_timestamp_b, two_way_stamps);
	}
	struct pktstats_dm_delays delays;
	bool two_way = error == PKTSTATS_OAM_OK && dm->opcode == PKTSTATS_DM_OPCODE_DMR &&
		       pktstats_dm_delays(dm, &delays) == 0;
	out_ns("two-way-ns", two_way ? delays.two_way : 0, two_way);
	out_string("error", error == PKTSTATS_OAM_OK ? NULL : pktstats_oam_error_name(error));
	out_item_end();
}

static bool zero_time(struct pktstats_wire_time t)
{
	return t.seconds == 0 && t.nanoseconds == 0;
}

static void print_headroom(const char *file, uint64_t index, size_t len,
			   const struct pktstats_headroom_frame *h, enum pktstats_oam_error error)
{
	bool stamps = error == PKTSTATS_OAM_OK || error == PKTSTATS_OAM_BAD_TIMESTAMP;
	out_item_begin();
	out_string("file", file);
	out_uint("index", index, NULL);
	out_string("protocol", "headroom");
	out_string("destination", mac_text(h->destination, 0));
	out_string("source", mac_text(h->source, 1));
	if (len >= 15) {
		out_uint("encapsulation-version", h->encapsulation_version, NULL);
		out_uint("subtype", h->subtype, NULL);
	} else {
		out_string("encapsulation-version", NULL);
		out_string("subtype", NULL);
	}
	if (len >= 16) {
		out_uint("version", h->version, NULL);
		if (h->type == PKTSTATS_HEADROOM_REQUEST)
			out_string("type", "request");
		else if (h->type == PKTSTATS_HEADROOM_RESPONSE)
			out_string("type", "response");
		else
			out_uint("type", h->type, NULL);
	} else {
		out_string("version", NULL);
		out_string("type", NULL);
	}
	out_wire_time("t1", h->t1, stamps);
	out_wire_time("t2", h->t2, stamps);
	out_wire_time("t3", h->t3, stamps);
	out_wire_time("t4", h->t4, stamps);
	bool round_trip = error == PKTSTATS_OAM_OK && h->type == PKTSTATS_HEADROOM_RESPONSE &&
			  !zero_time(h->t1) && !zero_time(h->t2) && !zero_time(h->t3) &&
			  !zero_time(h->t4);
	out_ns("round-trip-ns", round_trip ? pktstats_headroom_round_trip(h) : 0, round_trip);
	out_string("error", error == PKTSTATS_OAM_OK ? NULL : pktstats_oam_error_name(error));
	out_item_end();
}

static int oam_decode(struct cli *cli, int argc, char **argv)
{
	const char **paths = calloc((size_t)argc + 1, sizeof *paths);
	size_t n_paths = 0;
	if (!paths)
		return CLI_RUNTIME;
	bool options_done = false;
	for (int i = 0; i < argc; i++) {
		if (!options_done && !strcmp(argv[i], "--")) {
			options_done = true;
		} else if (!options_done && argv[i][0] == '-' && argv[i][1]) {
			free(paths);
			return cli_usage(cli, "unknown option '%s' (pktstats oam decode FILE...)", argv[i]);
		} else {
			paths[n_paths++] = argv[i];
		}
	}
	if (!n_paths) {
		free(paths);
		return cli_usage(cli, "no capture file given (pktstats oam decode FILE...)");
	}
	struct stat_reader_options options;
	stat_reader_default_options(&options);
	options.filter = ""; /* every frame */
	options.raw_frames = true;
	struct stat_reader *reader;
	char error[512] = "";
	int err = stat_reader_open(&reader, paths, n_paths, &options, error, sizeof error);
	if (err < 0) {
		free(paths);
		if (err == -EINVAL)
			return cli_usage(cli, "%s", error);
		fprintf(stderr, "pktstats: oam decode: %s\n", *error ? error : strerror(-err));
		return CLI_RUNTIME;
	}
	int status = CLI_OK;
	uint64_t other = 0, malformed = 0;
	struct stat_record rec;
	out_begin();
	out_list_begin("frames");
	while ((err = stat_reader_next(reader, &rec)) != 0) {
		if (err < 0) {
			fflush(stdout);
			fprintf(stderr, "pktstats: oam decode: %s\n", stat_reader_error(reader));
			status = CLI_RUNTIME;
			continue;
		}
		struct pktstats_dm_frame dm;
		struct pktstats_headroom_frame headroom;
		enum pktstats_oam_error oam_error;
		pktstats_dm_parse(rec.data, rec.captured, &dm, &oam_error);
		if (oam_error != PKTSTATS_OAM_NOT_OAM) {
			print_dm(rec.file, rec.frame, rec.data, rec.captured, &dm, oam_error);
			malformed += oam_error != PKTSTATS_OAM_OK;
			continue;
		}
		pktstats_headroom_parse(rec.data, rec.captured, &headroom, &oam_error);
		if (oam_error != PKTSTATS_OAM_NOT_OAM) {
			print_headroom(rec.file, rec.frame, rec.captured, &headroom, oam_error);
			malformed += oam_error != PKTSTATS_OAM_OK;
			continue;
		}
		other++;
	}
	out_list_end();
	out_uint("other", other, NULL);
	out_uint("malformed", malformed, NULL);
	out_end();
	stat_reader_close(reader);
	free(paths);
	return status;
}

static const struct cli_verb oam_verbs[] = {
	{"show", "[port N]", "the engines' settings and counters of the MAC ports",
	 "port N: MAC port 0..3 (default: all four). With -j: {\"ports\":[{port, dm,\n"
	 "dm_responder, dm_level, headroom, headroom_responder, isl_copy_field, isl_group,\n"
	 "cpu_bound, mac, byte_time, dm_stamped, dm_answered, dm_replies_sent, dm_passed_up,\n"
	 "dm_malformed, headroom_stamped, headroom_answered, headroom_replies_sent,\n"
	 "headroom_passed_up, headroom_malformed, isl_t0_stamped, isl_t1_stamped,\n"
	 "isl_reflected, isl_passed_up}]}. A device without the oam block fails (exit 1).\n",
	 oam_show},
	{"set", "port N KEYWORD VALUE ...", "change a MAC port's engine settings",
	 "Keywords (each at most once; the others keep their values):\n"
	 "  dm on|off                 Y.1731 ETH-DM on this port: stamps, passing up\n"
	 "  dm-responder on|off       answer DMMs for mac at dm-level with DMRs\n"
	 "  dm-level L                the MEP's MEL, 0..7\n"
	 "  headroom on|off           headroom measurement on this port\n"
	 "  headroom-responder on|off answer headroom requests\n"
	 "  isl-copy-field on|off     OpenKilda ISL round trip: T0 into discovery packets\n"
	 "                            leaving, T1 into round-trip packets coming back\n"
	 "  isl-group on|off          reflect discovery packets as round-trip packets, a\n"
	 "                            copy to CPU port 4+N\n"
	 "  cpu-bound on|off          what the host writes to CPU port 4+N leaves by MAC port\n"
	 "                            N only (packet-out)\n"
	 "  mac MAC                   the port's MEP address (02:00:00:00:00:01)\n"
	 "  byte-time NS              ns per byte on the wire, 1..4095 (8 at 1 Gb/s)\n",
	 oam_set},
	{"clear", "[port N]", "clear the engines' counters of a MAC port (default: all four)",
	 NULL, oam_clear},
	{"decode", "FILE...", "every ETH-DM and headroom frame of capture files (no device)",
	 "Reads pcap or pcapng files (\"-\": standard input). Each Y.1731 ETH-DM frame\n"
	 "(EtherType 0x8902, also behind one 802.1Q tag) and headroom frame (0x89a2) is\n"
	 "shown with its fields; frames of other EtherTypes are only counted (other); frames\n"
	 "that are ETH-DM or headroom but malformed are shown with error and counted\n"
	 "(malformed). With -j one object {\"frames\":[...],\"other\":N,\"malformed\":M}; each\n"
	 "frame has file, index (1-based record number in its file), protocol (dm or\n"
	 "headroom), destination, source, and:\n"
	 "  dm: vlan (VID or null), level, version, opcode, name (DMM, DMR, 1DM or null),\n"
	 "      flags, tlv_offset, tx_timestamp_f, rx_timestamp_f, tx_timestamp_b and\n"
	 "      rx_timestamp_b (not for a 1DM), each {seconds, nanoseconds} or null when the\n"
	 "      frame does not hold it; two_way_ns (a DMR with four non-zero stamps, else\n"
	 "      null); error (null, or truncated, bad_opcode, bad_version, bad_timestamp,\n"
	 "      bad_tlv)\n"
	 "  headroom: encapsulation_version, subtype, version, type (request, response or\n"
	 "      the number), t1..t4, round_trip_ns (t4 - t1 - (t3 - t2) of a response whose\n"
	 "      four stamps are non-zero, else null), error (null, or truncated, bad_subtype,\n"
	 "      bad_version, bad_reserved, bad_type, bad_timestamp)\n"
	 "Text: one line per frame, the same fields; times as SECONDS.NANOSECONDS.\n",
	 oam_decode},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_oam = {
	"oam", "Link-delay engines of the MAC ports (ETH-DM, headroom); decode their frames",
	oam_verbs,
};
