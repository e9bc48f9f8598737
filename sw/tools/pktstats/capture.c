/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, object `capture`: show and set the event capture's configuration (every field
 * of the stat packets' headers, what is captured, when packets close), start, stop, flush.
 *
 * `capture set` takes keyword-value pairs like `ip link set`. All of them are parsed and
 * checked before the device is even opened, so a bad value changes nothing; then the current
 * configuration is read, the given fields replaced, and the whole written back.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "collector_args.h"
#include "keywords.h"
#include "output.h"
#include "pktstats/capture.h"

static const char *const event_names[] = {"arrival", "departure", "drop"};
#define EVENT_NAMES 3u

#define FLUSH_TIMEOUT_MAX_CYCLES UINT32_MAX

/* Keywords of `capture set`, which are also the keys `capture show` prints. */
enum field {
	F_RESOLUTION,
	F_QUEUES,
	F_EVENTS,
	F_OUTPUT_PORTS,
	F_DST_MAC,
	F_SRC_MAC,
	F_SRC_IP,
	F_DST_IP,
	F_TOS,
	F_TTL,
	F_SRC_PORT,
	F_DST_PORT,
	F_MAX_LENGTH,
	F_FLUSH_TIMEOUT,
	F_COUNT,
};

static const char *const field_names[F_COUNT] = {
	[F_RESOLUTION] = "resolution", [F_QUEUES] = "queues",     [F_EVENTS] = "events",
	[F_OUTPUT_PORTS] = "output-ports", [F_DST_MAC] = "dst-mac", [F_SRC_MAC] = "src-mac",
	[F_SRC_IP] = "src-ip",         [F_DST_IP] = "dst-ip",     [F_TOS] = "tos",
	[F_TTL] = "ttl",               [F_SRC_PORT] = "src-port", [F_DST_PORT] = "dst-port",
	[F_MAX_LENGTH] = "max-length", [F_FLUSH_TIMEOUT] = "flush-timeout",
};

/* The resolution: an exponent 0..7, "c=N", or the tick as a duration (8ns, 16ns, ... 1024ns,
 * 1us is not one of them). */
static const char *parse_resolution(const char *word, unsigned *resolution)
{
	uint64_t value;
	const char *error;
	if (!strncmp(word, "c=", 2))
		word += 2;
	else if (word[0] >= '0' && word[0] <= '9' && word[strspn(word, "0123456789")] != '\0') {
		/* A duration. */
		if ((error = parse_duration(word, &value)))
			return error;
		for (unsigned c = 0; c <= PKTSTATS_RESOLUTION_MAX; c++)
			if (value == (uint64_t)PKTSTATS_CLOCK_NS << c) {
				*resolution = c;
				return NULL;
			}
		return "not a tick of the hardware: 8ns << c for c = 0..7 (8ns, 16ns, 32ns, 64ns, "
		       "128ns, 256ns, 512ns, 1024ns)";
	}
	if ((error = parse_number(word, 0, PKTSTATS_RESOLUTION_MAX, &value)))
		/* a bare tick in ns (64 for 64ns) is the likely slip: the message says both forms */
		return "not an exponent 0..7 (c: one tick is 8ns << c) nor a tick with its unit "
		       "(8ns, 16ns, 32ns, 64ns, 128ns, 256ns, 512ns, 1024ns)";
	*resolution = (unsigned)value;
	return NULL;
}

static const char *parse_flush_timeout(const char *word, uint32_t *cycles)
{
	uint64_t ns;
	const char *error;
	if (!strcmp(word, "never") || !strcmp(word, "0")) {
		*cycles = 0;
		return NULL;
	}
	if ((error = parse_duration(word, &ns)))
		return error;
	if (ns % PKTSTATS_CLOCK_NS != 0)
		return "not a whole number of 8 ns clock cycles";
	if (ns / PKTSTATS_CLOCK_NS > FLUSH_TIMEOUT_MAX_CYCLES)
		return "longer than 2^32 - 1 cycles of 8 ns (34.35 s)";
	*cycles = (uint32_t)(ns / PKTSTATS_CLOCK_NS);
	return NULL;
}

/* Parses one keyword's value into config. NULL or the reason. */
static const char *parse_field(enum field field, const char *word,
			       struct pktstats_capture_config *config)
{
	uint64_t number;
	uint32_t mask;
	const char *error = NULL;
	switch (field) {
	case F_RESOLUTION:
		return parse_resolution(word, &config->resolution);
	case F_QUEUES:
		if (!(error = parse_number_set(word, 7, &mask)))
			config->queue_mask = (uint8_t)mask;
		return error;
	case F_EVENTS:
		if (!(error = parse_name_set(word, event_names, EVENT_NAMES, &mask)))
			config->event_mask = (uint8_t)mask;
		return error;
	case F_OUTPUT_PORTS:
		if (!(error = parse_number_set(word, 7, &mask)))
			config->output_ports = (uint8_t)mask;
		return error;
	case F_DST_MAC:
		return parse_mac(word, config->destination_mac);
	case F_SRC_MAC:
		return parse_mac(word, config->source_mac);
	case F_SRC_IP:
		return parse_ipv4(word, &config->source_ip);
	case F_DST_IP:
		return parse_ipv4(word, &config->destination_ip);
	case F_TOS:
		if (!(error = parse_number(word, 0, 255, &number)))
			config->tos = (uint8_t)number;
		return error;
	case F_TTL:
		if (!(error = parse_number(word, 1, 255, &number)))
			config->ttl = (uint8_t)number;
		return error;
	case F_SRC_PORT:
		if (!(error = parse_number(word, 1, 65535, &number)))
			config->udp_source_port = (uint16_t)number;
		return error;
	case F_DST_PORT:
		if (!(error = parse_number(word, 1, 65535, &number)))
			config->udp_destination_port = (uint16_t)number;
		return error;
	case F_MAX_LENGTH:
		if (!(error = parse_number(word, PKTSTATS_MAX_LENGTH_MIN, PKTSTATS_MAX_LENGTH_MAX,
					   &number)))
			config->max_length = (uint16_t)number;
		return error;
	case F_FLUSH_TIMEOUT:
		return parse_flush_timeout(word, &config->flush_timeout);
	case F_COUNT:
		break;
	}
	return "internal error: unknown field";
}

/* Copies the fields named in `given` from `from` into `to`. */
static void merge(struct pktstats_capture_config *to, const struct pktstats_capture_config *from,
		  const bool given[F_COUNT])
{
#define TAKE(f, member)                                                                        \
	if (given[f])                                                                          \
	memcpy(&to->member, &from->member, sizeof to->member)
	TAKE(F_RESOLUTION, resolution);
	TAKE(F_QUEUES, queue_mask);
	TAKE(F_EVENTS, event_mask);
	TAKE(F_OUTPUT_PORTS, output_ports);
	TAKE(F_DST_MAC, destination_mac);
	TAKE(F_SRC_MAC, source_mac);
	TAKE(F_SRC_IP, source_ip);
	TAKE(F_DST_IP, destination_ip);
	TAKE(F_TOS, tos);
	TAKE(F_TTL, ttl);
	TAKE(F_SRC_PORT, udp_source_port);
	TAKE(F_DST_PORT, udp_destination_port);
	TAKE(F_MAX_LENGTH, max_length);
	TAKE(F_FLUSH_TIMEOUT, flush_timeout);
#undef TAKE
}

static int capture_set(struct cli *cli, int argc, char **argv)
{
	struct pktstats_capture_config wanted;
	pktstats_capture_defaults(&wanted);
	bool given[F_COUNT] = {false};
	if (argc == 0)
		return cli_usage(cli, "nothing to set (keywords: resolution, queues, events, "
				      "output-ports, dst-mac, src-mac, src-ip, dst-ip, tos, ttl, "
				      "src-port, dst-port, max-length, flush-timeout, collector, via)");
	struct keyword kw[F_COUNT + COLLECTOR_KEYWORD_COUNT] = {[F_COUNT] = COLLECTOR_KEYWORDS};
	for (unsigned f = 0; f < F_COUNT; f++)
		kw[f].name = field_names[f];
	int status = keywords_parse(cli, argc, argv, kw, F_COUNT + COLLECTOR_KEYWORD_COUNT,
				    "capture set");
	for (unsigned f = 0; status == CLI_OK && f < F_COUNT; f++) {
		const char *error =
			kw[f].value ? parse_field((enum field)f, kw[f].value, &wanted) : NULL;
		given[f] = kw[f].value != NULL;
		if (error)
			status = cli_usage(cli, "%s '%s': %s", kw[f].name, kw[f].value, error);
	}
	struct collector_args collector = {kw[F_COUNT].value, kw[F_COUNT + 1].value};
	if (status == CLI_OK)
		status = collector_check(cli, &collector);
	if (status != CLI_OK)
		return status;
	/* The collector's path gives the headers not given explicitly (exit 1 when it cannot be
	 * resolved), before the device is touched. */
	const struct collector_headers headers = {
		&wanted.destination_ip, &given[F_DST_IP], wanted.destination_mac, &given[F_DST_MAC],
		&wanted.source_ip,      &given[F_SRC_IP], wanted.source_mac,      &given[F_SRC_MAC],
	};
	if ((status = collector_fill(cli, &collector, &headers)) != CLI_OK)
		return status;

	status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	struct pktstats_capture_config config;
	int err = pktstats_capture_get(cli->dev, &config);
	if (err < 0)
		return cli_fail(cli, err);
	merge(&config, &wanted, given);
	if ((err = pktstats_capture_set(cli->dev, &config)) < 0)
		return cli_fail(cli, err);
	return CLI_OK;
}

static unsigned mask_to_list(uint32_t mask, unsigned *list)
{
	unsigned n = 0;
	for (unsigned i = 0; i < 32; i++)
		if (mask >> i & 1)
			list[n++] = i;
	return n;
}

static int capture_show(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	struct pktstats_capture_config c;
	bool running;
	int err = pktstats_capture_running(cli->dev, &running);
	if (err == 0)
		err = pktstats_capture_get(cli->dev, &c);
	if (err < 0)
		return cli_fail(cli, err);

	char text[96], duration[32];
	unsigned list[32];
	const char *names[EVENT_NAMES];
	unsigned n;
	out_begin();
	out_bool("running", running);
	format_duration((uint64_t)PKTSTATS_CLOCK_NS << c.resolution, duration,
			sizeof duration);
	snprintf(text, sizeof text, "c=%u (%s)", c.resolution, duration);
	out_uint("resolution", c.resolution, text);
	format_number_set(c.queue_mask, text, sizeof text);
	out_uint_array("queues", list, mask_to_list(c.queue_mask, list), text);
	n = 0;
	for (unsigned i = 0; i < EVENT_NAMES; i++)
		if (c.event_mask >> i & 1)
			names[n++] = event_names[i];
	format_name_set(c.event_mask, event_names, EVENT_NAMES, text, sizeof text);
	out_string_array("events", names, n, text);
	format_number_set(c.output_ports, text, sizeof text);
	out_uint_array("output-ports", list, mask_to_list(c.output_ports, list), text);
	format_mac(c.destination_mac, text, sizeof text);
	out_string("dst-mac", text);
	format_mac(c.source_mac, text, sizeof text);
	out_string("src-mac", text);
	format_ipv4(c.source_ip, text, sizeof text);
	out_string("src-ip", text);
	format_ipv4(c.destination_ip, text, sizeof text);
	out_string("dst-ip", text);
	snprintf(text, sizeof text, "0x%02x", c.tos);
	out_uint("tos", c.tos, text);
	out_uint("ttl", c.ttl, NULL);
	out_uint("src-port", c.udp_source_port, NULL);
	out_uint("dst-port", c.udp_destination_port, NULL);
	snprintf(text, sizeof text, "%u bytes", c.max_length);
	out_uint("max-length", c.max_length, text);
	uint64_t timeout_ns = (uint64_t)c.flush_timeout * PKTSTATS_CLOCK_NS;
	if (c.flush_timeout == 0) {
		snprintf(text, sizeof text, "never");
	} else {
		format_duration(timeout_ns, duration, sizeof duration);
		snprintf(text, sizeof text, "%s (%" PRIu32 " cycles)", duration, c.flush_timeout);
	}
	out_uint("flush-timeout", timeout_ns, text);
	out_end();
	return CLI_OK;
}

static int capture_start(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	int err = pktstats_capture_start(cli->dev);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int capture_stop(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	int err = pktstats_capture_stop(cli->dev);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int capture_flush(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	int err = pktstats_capture_flush(cli->dev);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static const char set_details[] =
	"Keywords (any of them, each at most once; the others keep their values):\n"
	"  resolution C|TICK      timer resolution: exponent 0..7, or the tick as a duration\n"
	"                         8ns << C (8ns, 16ns, 32ns, 64ns, 128ns, 256ns, 512ns, 1024ns)\n"
	"  queues SET             output queues to capture: 0..7 as a list (0,2-4), a hex mask\n"
	"                         (0x1d), all or none\n"
	"  events SET             event types: arrival, departure, drop as a list\n"
	"                         (arrival,drop), a hex mask (bit 0 arrival), all or none\n"
	"  output-ports SET       switch ports 0..7 the stat packets leave from (list, hex mask,\n"
	"                         all or none)\n"
	"  dst-mac MAC            Ethernet destination, like 02:00:00:00:00:01\n"
	"  src-mac MAC            Ethernet source\n"
	"  src-ip IPV4            IPv4 source, like 10.0.0.1\n"
	"  dst-ip IPV4            IPv4 destination\n"
	"  tos N                  IPv4 type of service, 0..255 (0x.. allowed)\n"
	"  ttl N                  IPv4 time to live, 1..255\n"
	"  src-port N             UDP source port, 1..65535\n"
	"  dst-port N             UDP destination port, 1..65535\n"
	"  max-length BYTES       largest IP total length of a stat packet, 86..9000\n"
	"  flush-timeout TIME     longest time a stat packet stays open: a duration (500us,\n"
	"                         1ms, 125000cycles; whole 8 ns cycles, at most 34.35 s), or\n"
	"                         never (or 0)\n"
	"  collector IPV4         fill dst-ip, dst-mac, src-ip and src-mac from this host's path\n"
	"                         to the collector: the route's interface (its MAC and address)\n"
	"                         and the next hop's MAC from the neighbour table (ARP is asked\n"
	"                         when needed); keywords given explicitly win\n"
	"  via IFACE              with collector: use this interface, not the routing table's\n"
	"Numbers are decimal or hex with 0x. Every value is checked before anything is written:\n"
	"a bad one changes nothing. Changing the resolution or a mask closes the open packet.\n"
	"Example: pktstats capture set resolution 128ns queues 0-3 events arrival,drop \\\n"
	"             dst-mac 02:00:00:00:00:04 dst-ip 10.0.0.4 output-ports 3\n";

static const char show_details[] =
	"Shows whether capture runs and every field `capture set` takes, under the same names.\n"
	"With -j: running (boolean), resolution (exponent c: one tick is 8 ns << c), queues,\n"
	"output_ports (arrays of numbers), events (array of names), dst_mac, src_mac (strings\n"
	"aa:bb:cc:dd:ee:ff), src_ip, dst_ip (dotted strings), tos, ttl, src_port, dst_port,\n"
	"max_length (bytes), flush_timeout (nanoseconds, 0 = never).\n";

static const struct cli_verb capture_verbs[] = {
	{"show", "", "show the capture configuration and whether it runs", show_details,
	 capture_show},
	{"set", "KEYWORD VALUE [KEYWORD VALUE]...", "change the capture configuration",
	 set_details, capture_set},
	{"start", "", "start capturing (sequence numbers restart at 0)", NULL, capture_start},
	{"stop", "", "stop capturing (the open stat packet is sent)", NULL, capture_stop},
	{"flush", "", "send the open stat packet now", NULL, capture_flush},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_capture = {
	"capture", "Event capture: what is captured and how stat packets look", capture_verbs,
};
