/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, object `flowlat`: the flow-latency monitor and its IPFIX exporter
 * (docs/flowlat.md, pktstats/flowlat.h): the monitor's and exporter's settings, the latency
 * profiles, the flow groups (rules), a flow's state by its 5-tuple, the counters, the clear and
 * send-template commands; `watch` is flowlat_watch.c's.
 *
 * Every verb parses and checks all its arguments before the device is opened (a bad command
 * line changes nothing); `set`, `profile set`, `group set` and `group delete` then read what is
 * there and write it back with the given fields replaced. `profile set` and `group set` define
 * the whole profile or group: what is not given takes its default, as docs/cli.md says.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "collector_args.h"
#include "flowlat_watch.h"
#include "keywords.h"
#include "output.h"
#include "pktstats/flowlat.h"

#define NS_PER_US 1000u
#define NS_PER_S 1000000000u

/* ------------------------------------------------------------------------------------------ */
/* Values */

static char reason[200];

static const char *parse_on_off(const char *word, bool *value)
{
	if (!strcmp(word, "on"))
		*value = true;
	else if (!strcmp(word, "off"))
		*value = false;
	else
		return "not on or off";
	return NULL;
}

/* A duration that is a whole number of `unit_ns` (1 us, 1 s), at most `max` of them; the
 * number of units. `0` alone is taken as 0. */
static const char *parse_whole_duration(const char *word, uint64_t unit_ns, const char *unit,
					uint64_t max, uint64_t *units)
{
	uint64_t ns;
	const char *error;
	if (!strcmp(word, "0")) {
		*units = 0;
		return NULL;
	}
	if ((error = parse_duration(word, &ns)))
		return error;
	if (ns % unit_ns) {
		snprintf(reason, sizeof reason, "not a whole number of %s", unit);
		return reason;
	}
	if (ns / unit_ns > max) {
		snprintf(reason, sizeof reason, "longer than %" PRIu64 " %s", max, unit);
		return reason;
	}
	*units = ns / unit_ns;
	return NULL;
}

static const char *parse_us(const char *word, uint32_t *us)
{
	uint64_t units;
	const char *error = parse_whole_duration(word, NS_PER_US, "microseconds", UINT32_MAX, &units);
	if (!error)
		*us = (uint32_t)units;
	return error;
}

/* A signed threshold in ns that fits the registers' 32 bits: [-]DURATION (-1.5us, 800ns, 2ms)
 * or [-]NANOSECONDS. */
static const char *parse_threshold(const char *word, int32_t *ns)
{
	bool negative = word[0] == '-';
	const char *rest = word + negative;
	uint64_t value, limit = negative ? (uint64_t)INT32_MAX + 1 : (uint64_t)INT32_MAX;
	const char *error;
	if (*rest == '\0')
		return "empty value";
	if (*rest == '-' || *rest == '+')
		return "one '-' at most, no '+'";
	if (rest[strspn(rest, "0123456789")] == '\0')
		error = parse_number(rest, 0, UINT64_MAX, &value); /* nanoseconds */
	else
		error = parse_duration(rest, &value);
	if (error)
		return error;
	if (value > limit)
		return "beyond a signed 32-bit number of ns (-2147483648ns .. 2147483647ns, "
		       "about +-2.147 s)";
	*ns = negative ? (int32_t)(-(int64_t)value) : (int32_t)value;
	return NULL;
}

/* A.B.C.D/LEN, A.B.C.D (/32) or any (/0); no host bits beyond the length. */
static const char *parse_prefix(const char *word, uint32_t *address, uint8_t *length)
{
	if (!strcmp(word, "any")) {
		*address = 0;
		*length = 0;
		return NULL;
	}
	char text[32];
	const char *slash = strchr(word, '/');
	size_t n = slash ? (size_t)(slash - word) : strlen(word);
	if (n >= sizeof text)
		return "not an IPv4 prefix (A.B.C.D/LEN, A.B.C.D or any)";
	memcpy(text, word, n);
	text[n] = '\0';
	uint32_t a;
	uint64_t len = 32;
	const char *error = parse_ipv4(text, &a);
	if (error)
		return error;
	if (slash) {
		if (!slash[1] || slash[1 + strspn(slash + 1, "0123456789")] != '\0')
			return "the prefix length is not a decimal number 0..32";
		if ((error = parse_number(slash + 1, 0, 32, &len)))
			return error;
	}
	uint32_t mask = len ? ~0u << (32 - len) : 0;
	if (a & ~mask) {
		char network[16];
		format_ipv4(a & mask, network, sizeof network);
		snprintf(reason, sizeof reason, "host bits set beyond the prefix length /%u (the "
			 "network is %s/%u)", (unsigned)len, network, (unsigned)len);
		return reason;
	}
	*address = a;
	*length = (uint8_t)len;
	return NULL;
}

static const struct {
	const char *name;
	uint8_t number;
} protocol_names[] = {{"icmp", 1}, {"tcp", 6}, {"udp", 17}};

/* udp, tcp, icmp or 0..255; any when any_allowed. */
static const char *parse_protocol(const char *word, bool any_allowed, bool *any, uint8_t *protocol)
{
	*any = false;
	if (any_allowed && !strcmp(word, "any")) {
		*any = true;
		*protocol = 0;
		return NULL;
	}
	for (size_t i = 0; i < sizeof protocol_names / sizeof protocol_names[0]; i++)
		if (!strcmp(word, protocol_names[i].name)) {
			*protocol = protocol_names[i].number;
			return NULL;
		}
	if (word[0] < '0' || word[0] > '9')
		return any_allowed ? "not a protocol (udp, tcp, icmp, a number 0..255 or any)"
				   : "not a protocol (udp, tcp, icmp or a number 0..255)";
	uint64_t value;
	const char *error = parse_number(word, 0, 255, &value);
	if (!error)
		*protocol = (uint8_t)value;
	return error;
}

static const char *protocol_name(uint8_t protocol)
{
	for (size_t i = 0; i < sizeof protocol_names / sizeof protocol_names[0]; i++)
		if (protocol_names[i].number == protocol)
			return protocol_names[i].name;
	return NULL;
}

/* A port 0..65535, or any. */
static const char *parse_port_or_any(const char *word, bool *any, uint16_t *port)
{
	uint64_t value;
	*any = !strcmp(word, "any");
	if (*any) {
		*port = 0;
		return NULL;
	}
	const char *error = parse_number(word, 0, 65535, &value);
	if (!error)
		*port = (uint16_t)value;
	return error;
}

static bool is_l4(uint8_t protocol)
{
	return protocol == 6 || protocol == 17;
}

/* Text forms */

/* A signed duration without blanks, as `profile set` takes it: "5us", "-800ns". */
static void threshold_text(int64_t ns, char *text, size_t size)
{
	char d[32];
	format_duration((uint64_t)(ns < 0 ? -ns : ns), d, sizeof d);
	char *space = strchr(d, ' ');
	if (space)
		memmove(space, space + 1, strlen(space));
	snprintf(text, size, "%s%s", ns < 0 ? "-" : "", d);
}

/* Microseconds for people: "250 ms (250000 us)"; zero: the text given ("0" when NULL). */
static void us_text(uint32_t us, const char *zero, char *text, size_t size)
{
	char d[32];
	if (us == 0) {
		snprintf(text, size, "%s", zero ? zero : "0");
		return;
	}
	format_duration((uint64_t)us * NS_PER_US, d, sizeof d);
	snprintf(text, size, "%s (%" PRIu32 " us)", d, us);
}

/* A residence time for people: "1234 ns (1.234 us)". */
static void residence_text(int32_t ns, char *text, size_t size)
{
	if (ns >= 1000 || ns <= -1000)
		snprintf(text, size, "%" PRId32 " ns (%.3f us)", ns, ns / 1000.0);
	else
		snprintf(text, size, "%" PRId32 " ns", ns);
}

static unsigned mask_to_list(uint32_t mask, unsigned *list)
{
	unsigned n = 0;
	for (unsigned i = 0; i < 32; i++)
		if (mask >> i & 1)
			list[n++] = i;
	return n;
}

/* "any" as text, null in JSON; else the number with its text. */
static void out_uint_or_any(const char *key, bool any, uint64_t value, const char *text)
{
	if (any)
		out_string(key, out_is_json() ? NULL : "any");
	else
		out_uint(key, value, text);
}

/* The usage error for a bad value. */
static int bad_value(const struct cli *cli, const char *keyword, const char *word,
		     const char *error)
{
	return cli_usage(cli, "%s '%s': %s", keyword, word, error);
}

/* An index argument (profile ID, group ID) 0..max. */
static int parse_index(const struct cli *cli, const char *what, const char *word, unsigned max,
		       unsigned *index)
{
	uint64_t value = 0;
	const char *error = parse_number(word, 0, max, &value);
	*index = 0;
	if (error)
		return bad_value(cli, what, word, error);
	*index = (unsigned)value;
	return CLI_OK;
}

/* `VERB SUBVERB ...`: the sub-verb's name (one of names), for messages "flowlat profile set". */
static int subverb(struct cli *cli, int argc, char **argv, const char *const *names, size_t n,
		   const char *const *full, size_t *which)
{
	char list[64] = "";
	for (size_t i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
			 i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
	if (argc < 1)
		return cli_usage(cli, "needs %s", list);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(argv[0], names[i])) {
			*which = i;
			cli->verb = full[i];
			return CLI_OK;
		}
	return cli_usage(cli, "unknown word '%s' (%s)", argv[0], list);
}

static int open_device(struct cli *cli)
{
	return cli_open(cli, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* show, set */

enum field {
	F_MONITOR,
	F_EXPORT,
	F_EXPORT_PORTS,
	F_IDLE_TIMEOUT,
	F_DST_MAC,
	F_SRC_MAC,
	F_SRC_IP,
	F_DST_IP,
	F_SRC_PORT,
	F_DST_PORT,
	F_OBSERVATION_DOMAIN,
	F_ENTERPRISE_NUMBER,
	F_TEMPLATE_INTERVAL,
	F_MTU,
	F_FLUSH_TIMEOUT,
	F_COUNT,
};

static const char *const field_names[F_COUNT] = {
	[F_MONITOR] = "monitor",
	[F_EXPORT] = "export",
	[F_EXPORT_PORTS] = "export-ports",
	[F_IDLE_TIMEOUT] = "idle-timeout",
	[F_DST_MAC] = "dst-mac",
	[F_SRC_MAC] = "src-mac",
	[F_SRC_IP] = "src-ip",
	[F_DST_IP] = "dst-ip",
	[F_SRC_PORT] = "src-port",
	[F_DST_PORT] = "dst-port",
	[F_OBSERVATION_DOMAIN] = "observation-domain",
	[F_ENTERPRISE_NUMBER] = "enterprise-number",
	[F_TEMPLATE_INTERVAL] = "template-interval",
	[F_MTU] = "mtu",
	[F_FLUSH_TIMEOUT] = "flush-timeout",
};

static const char *parse_field(enum field field, const char *word,
			       struct pktstats_flowlat_config *c)
{
	uint64_t number;
	uint32_t mask;
	const char *error;
	switch (field) {
	case F_MONITOR:
		return parse_on_off(word, &c->monitor_enable);
	case F_EXPORT:
		return parse_on_off(word, &c->export_enable);
	case F_EXPORT_PORTS:
		if (!(error = parse_number_set(word, PKTSTATS_FLOWLAT_SWITCH_PORTS - 1, &mask)))
			c->export_ports = (uint8_t)mask;
		return error;
	case F_IDLE_TIMEOUT:
		return parse_us(word, &c->idle_timeout_us);
	case F_DST_MAC:
		return parse_mac(word, c->destination_mac);
	case F_SRC_MAC:
		return parse_mac(word, c->source_mac);
	case F_SRC_IP:
		return parse_ipv4(word, &c->source_ip);
	case F_DST_IP:
		return parse_ipv4(word, &c->destination_ip);
	case F_SRC_PORT:
		if (!(error = parse_number(word, 1, 65535, &number)))
			c->source_port = (uint16_t)number;
		return error;
	case F_DST_PORT:
		if (!(error = parse_number(word, 1, 65535, &number)))
			c->destination_port = (uint16_t)number;
		return error;
	case F_OBSERVATION_DOMAIN:
		if (!(error = parse_number(word, 0, UINT32_MAX, &number)))
			c->observation_domain = (uint32_t)number;
		return error;
	case F_ENTERPRISE_NUMBER:
		if (!(error = parse_number(word, 0, UINT32_MAX, &number)))
			c->enterprise_number = (uint32_t)number;
		return error;
	case F_TEMPLATE_INTERVAL:
		if (!(error = parse_whole_duration(word, NS_PER_S, "seconds",
						   PKTSTATS_FLOWLAT_TEMPLATE_INTERVAL_MAX, &number)))
			c->template_interval_s = (uint16_t)number;
		return error;
	case F_MTU:
		if (!(error = parse_number(word, PKTSTATS_FLOWLAT_MTU_MIN, PKTSTATS_FLOWLAT_MTU_MAX,
					   &number)))
			c->mtu = (uint16_t)number;
		return error;
	case F_FLUSH_TIMEOUT:
		return parse_us(word, &c->flush_timeout_us);
	case F_COUNT:
		break;
	}
	return "internal error: unknown field";
}

static void merge(struct pktstats_flowlat_config *to, const struct pktstats_flowlat_config *from,
		  const bool given[F_COUNT])
{
#define TAKE(f, member)                                                                        \
	if (given[f])                                                                          \
	memcpy(&to->member, &from->member, sizeof to->member)
	TAKE(F_MONITOR, monitor_enable);
	TAKE(F_EXPORT, export_enable);
	TAKE(F_EXPORT_PORTS, export_ports);
	TAKE(F_IDLE_TIMEOUT, idle_timeout_us);
	TAKE(F_DST_MAC, destination_mac);
	TAKE(F_SRC_MAC, source_mac);
	TAKE(F_SRC_IP, source_ip);
	TAKE(F_DST_IP, destination_ip);
	TAKE(F_SRC_PORT, source_port);
	TAKE(F_DST_PORT, destination_port);
	TAKE(F_OBSERVATION_DOMAIN, observation_domain);
	TAKE(F_ENTERPRISE_NUMBER, enterprise_number);
	TAKE(F_TEMPLATE_INTERVAL, template_interval_s);
	TAKE(F_MTU, mtu);
	TAKE(F_FLUSH_TIMEOUT, flush_timeout_us);
#undef TAKE
}

static int flowlat_set(struct cli *cli, int argc, char **argv)
{
	struct pktstats_flowlat_config wanted;
	pktstats_flowlat_config_defaults(&wanted);
	bool given[F_COUNT] = {false};
	if (argc == 0)
		return cli_usage(cli, "nothing to set (keywords: monitor, export, export-ports, "
				      "idle-timeout, dst-mac, src-mac, src-ip, dst-ip, src-port, "
				      "dst-port, observation-domain, enterprise-number, "
				      "template-interval, mtu, flush-timeout, collector, via)");
	struct keyword kw[F_COUNT + COLLECTOR_KEYWORD_COUNT] = {[F_COUNT] = COLLECTOR_KEYWORDS};
	for (unsigned f = 0; f < F_COUNT; f++)
		kw[f].name = field_names[f];
	int status = keywords_parse(cli, argc, argv, kw, F_COUNT + COLLECTOR_KEYWORD_COUNT,
				    "flowlat set");
	for (unsigned f = 0; status == CLI_OK && f < F_COUNT; f++) {
		const char *error =
			kw[f].value ? parse_field((enum field)f, kw[f].value, &wanted) : NULL;
		given[f] = kw[f].value != NULL;
		if (error)
			status = bad_value(cli, kw[f].name, kw[f].value, error);
	}
	struct collector_args collector = {kw[F_COUNT].value, kw[F_COUNT + 1].value};
	if (status == CLI_OK)
		status = collector_check(cli, &collector);
	if (status != CLI_OK)
		return status;
	const struct collector_headers headers = {
		&wanted.destination_ip, &given[F_DST_IP], wanted.destination_mac, &given[F_DST_MAC],
		&wanted.source_ip,      &given[F_SRC_IP], wanted.source_mac,      &given[F_SRC_MAC],
	};
	if ((status = collector_fill(cli, &collector, &headers)) != CLI_OK)
		return status;

	if ((status = open_device(cli)) != CLI_OK)
		return status;
	struct pktstats_flowlat_config config;
	int err = pktstats_flowlat_config_get(cli->dev, &config);
	if (err < 0)
		return cli_fail(cli, err);
	merge(&config, &wanted, given);
	err = pktstats_flowlat_config_set(cli->dev, &config);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int flowlat_show(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = open_device(cli);
	if (status != CLI_OK)
		return status;
	struct pktstats_flowlat_config c;
	struct pktstats_flowlat_status s;
	int err = pktstats_flowlat_config_get(cli->dev, &c);
	if (err == 0)
		err = pktstats_flowlat_status_get(cli->dev, &s);
	if (err < 0)
		return cli_fail(cli, err);

	char text[96];
	unsigned list[32];
	out_begin();
	out_bool("monitor", c.monitor_enable);
	out_bool("export", c.export_enable);
	format_number_set(c.export_ports, text, sizeof text);
	out_uint_array("export-ports", list, mask_to_list(c.export_ports, list), text);
	us_text(c.idle_timeout_us, NULL, text, sizeof text);
	out_uint("idle-timeout", (uint64_t)c.idle_timeout_us * NS_PER_US, text);
	format_mac(c.destination_mac, text, sizeof text);
	out_string("dst-mac", text);
	format_mac(c.source_mac, text, sizeof text);
	out_string("src-mac", text);
	format_ipv4(c.source_ip, text, sizeof text);
	out_string("src-ip", text);
	format_ipv4(c.destination_ip, text, sizeof text);
	out_string("dst-ip", text);
	out_uint("src-port", c.source_port, NULL);
	out_uint("dst-port", c.destination_port, NULL);
	out_uint("observation-domain", c.observation_domain, NULL);
	out_uint("enterprise-number", c.enterprise_number, NULL);
	if (c.template_interval_s == 0)
		snprintf(text, sizeof text, "0 (only when export is enabled, and on command)");
	else
		snprintf(text, sizeof text, "%u s", c.template_interval_s);
	out_uint("template-interval", (uint64_t)c.template_interval_s * NS_PER_S, text);
	snprintf(text, sizeof text, "%u bytes", c.mtu);
	out_uint("mtu", c.mtu, text);
	us_text(c.flush_timeout_us, "0 (sent at once)", text, sizeof text);
	out_uint("flush-timeout", (uint64_t)c.flush_timeout_us * NS_PER_US, text);
	out_bool("clearing", s.clearing);
	out_uint("events-waiting", s.events_waiting, NULL);
	out_uint("records-waiting", s.records_waiting, NULL);
	out_uint("now-us", s.now_us, NULL);
	out_end();
	return CLI_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* profile show [ID], profile set ID stateless|stateful ... */

static void out_profile(unsigned index, const struct pktstats_flowlat_profile *p)
{
	char text[40];
	out_item_begin();
	out_uint("profile", index, NULL);
	out_string("kind", p->stateful ? "stateful" : "stateless");
	threshold_text(p->high_ns, text, sizeof text);
	out_int("high", p->high_ns, text);
	if (p->stateful) {
		threshold_text(p->low_ns, text, sizeof text);
		out_int("low", p->low_ns, text);
		out_string("min-interval", NULL);
	} else {
		out_string("low", NULL);
		threshold_text((int64_t)p->min_interval_us * NS_PER_US, text, sizeof text);
		out_uint("min-interval", (uint64_t)p->min_interval_us * NS_PER_US, text);
	}
	out_item_end();
}

static int profile_show(struct cli *cli, int argc, char **argv)
{
	unsigned first = 0, last = PKTSTATS_FLOWLAT_PROFILES - 1;
	if (argc > 1)
		return cli_usage(cli, "unexpected argument '%s'", argv[1]);
	if (argc == 1) {
		int status = parse_index(cli, "profile", argv[0], PKTSTATS_FLOWLAT_PROFILES - 1,
					 &first);
		if (status != CLI_OK)
			return status;
		last = first;
	}
	int status = open_device(cli);
	if (status != CLI_OK)
		return status;
	struct pktstats_flowlat_profile profiles[PKTSTATS_FLOWLAT_PROFILES];
	for (unsigned i = first; i <= last; i++) {
		int err = pktstats_flowlat_profile_get(cli->dev, i, &profiles[i]);
		if (err < 0)
			return cli_fail(cli, err);
	}
	out_begin();
	out_list_begin("profiles");
	for (unsigned i = first; i <= last; i++)
		out_profile(i, &profiles[i]);
	out_list_end();
	out_end();
	return CLI_OK;
}

static int profile_set(struct cli *cli, int argc, char **argv)
{
	if (argc < 1)
		return cli_usage(cli, "needs a profile ID (0..%u)", PKTSTATS_FLOWLAT_PROFILES - 1);
	unsigned index = 0;
	int status = parse_index(cli, "profile", argv[0], PKTSTATS_FLOWLAT_PROFILES - 1, &index);
	if (status != CLI_OK)
		return status;
	if (argc < 2)
		return cli_usage(cli, "needs stateless or stateful after the profile ID");
	struct pktstats_flowlat_profile p = {0};
	if (!strcmp(argv[1], "stateful"))
		p.stateful = true;
	else if (strcmp(argv[1], "stateless"))
		return cli_usage(cli, "unknown kind '%s' (stateless or stateful)", argv[1]);
	struct keyword kw[] = {{"high", NULL}, {"low", NULL}, {"min-interval", NULL}};
	const size_t n = sizeof kw / sizeof kw[0];
	if ((status = keywords_parse(cli, argc - 2, argv + 2, kw, n, "flowlat profile set")) != CLI_OK)
		return status;
	const char *high = keyword_value(kw, n, "high"), *low = keyword_value(kw, n, "low"),
		   *interval = keyword_value(kw, n, "min-interval");
	const char *error;
	if (!high)
		return cli_usage(cli, "needs high DURATION (the %s profile's threshold)", argv[1]);
	if ((error = parse_threshold(high, &p.high_ns)))
		return bad_value(cli, "high", high, error);
	if (p.stateful) {
		if (interval)
			return cli_usage(cli, "min-interval '%s': only for stateless profiles",
					 interval);
		if (!low)
			return cli_usage(cli, "needs low DURATION (a stateful profile has a low and a "
					      "high mark)");
		if ((error = parse_threshold(low, &p.low_ns)))
			return bad_value(cli, "low", low, error);
		if (p.low_ns > p.high_ns)
			return cli_usage(cli, "low '%s' is above high '%s' (low must be at most high)",
					 low, high);
	} else {
		if (low)
			return cli_usage(cli, "low '%s': only for stateful profiles", low);
		if (interval && (error = parse_us(interval, &p.min_interval_us)))
			return bad_value(cli, "min-interval", interval, error);
	}
	if ((status = open_device(cli)) != CLI_OK)
		return status;
	/* Read first: a device without the block fails here, before anything is written. */
	struct pktstats_flowlat_profile old;
	int err = pktstats_flowlat_profile_get(cli->dev, index, &old);
	if (err == 0)
		err = pktstats_flowlat_profile_set(cli->dev, index, &p);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int flowlat_profile(struct cli *cli, int argc, char **argv)
{
	static const char *const names[] = {"show", "set"};
	static const char *const full[] = {"profile show", "profile set"};
	size_t which;
	int status = subverb(cli, argc, argv, names, 2, full, &which);
	if (status != CLI_OK)
		return status;
	return which == 0 ? profile_show(cli, argc - 1, argv + 1)
			  : profile_set(cli, argc - 1, argv + 1);
}

/* ------------------------------------------------------------------------------------------ */
/* group show [ID|all], group set ID ..., group delete ID */

static void out_prefix(const char *key, uint32_t address, uint8_t length)
{
	char text[32], a[16];
	if (length == 0) {
		out_string(key, out_is_json() ? NULL : "any");
		return;
	}
	format_ipv4(address, a, sizeof a);
	snprintf(text, sizeof text, "%s/%u", a, length);
	out_string(key, text);
}

static void out_rule(unsigned index, const struct pktstats_flowlat_rule *r)
{
	unsigned list[8];
	char text[32];
	out_item_begin();
	out_uint("group", index, NULL);
	out_bool("valid", r->valid);
	out_prefix("src", r->source_ip, r->source_length);
	out_prefix("dst", r->destination_ip, r->destination_length);
	out_uint_or_any("protocol", r->protocol_any, r->protocol, protocol_name(r->protocol));
	out_uint_or_any("sport", r->source_port_any, r->source_port, NULL);
	out_uint_or_any("dport", r->destination_port_any, r->destination_port, NULL);
	format_number_set(r->egress_ports, text, sizeof text);
	out_uint_array("egress-ports", list, mask_to_list(r->egress_ports, list), text);
	out_uint("profile", r->profile, NULL);
	out_item_end();
}

static int group_show(struct cli *cli, int argc, char **argv)
{
	unsigned first = 0, last = PKTSTATS_FLOWLAT_RULES - 1;
	bool all = false;
	if (argc > 1)
		return cli_usage(cli, "unexpected argument '%s'", argv[1]);
	if (argc == 1) {
		if (!strcmp(argv[0], "all")) {
			all = true;
		} else {
			int status = parse_index(cli, "group", argv[0], PKTSTATS_FLOWLAT_RULES - 1,
						 &first);
			if (status != CLI_OK)
				return status;
			last = first;
			all = true;
		}
	}
	int status = open_device(cli);
	if (status != CLI_OK)
		return status;
	struct pktstats_flowlat_rule rules[PKTSTATS_FLOWLAT_RULES];
	for (unsigned i = first; i <= last; i++) {
		int err = pktstats_flowlat_rule_get(cli->dev, i, &rules[i]);
		if (err < 0)
			return cli_fail(cli, err);
	}
	out_begin();
	out_list_begin("groups");
	for (unsigned i = first; i <= last; i++)
		if (all || rules[i].valid)
			out_rule(i, &rules[i]);
	out_list_end();
	out_end();
	return CLI_OK;
}

static int group_set(struct cli *cli, int argc, char **argv)
{
	if (argc < 1)
		return cli_usage(cli, "needs a group ID (0..%u)", PKTSTATS_FLOWLAT_RULES - 1);
	unsigned index = 0;
	int status = parse_index(cli, "group", argv[0], PKTSTATS_FLOWLAT_RULES - 1, &index);
	if (status != CLI_OK)
		return status;
	struct keyword kw[] = {{"src", NULL},   {"dst", NULL},          {"protocol", NULL},
			  {"sport", NULL}, {"dport", NULL},        {"egress-ports", NULL},
			  {"profile", NULL}};
	const size_t n = sizeof kw / sizeof kw[0];
	if ((status = keywords_parse(cli, argc - 1, argv + 1, kw, n, "flowlat group set")) != CLI_OK)
		return status;
	/* The defaults: any address, protocol and port, every MAC port. */
	struct pktstats_flowlat_rule r = {
		.valid = true,
		.protocol_any = true,
		.source_port_any = true,
		.destination_port_any = true,
		.egress_ports = (1u << PKTSTATS_FLOWLAT_MAC_PORTS) - 1,
	};
	const char *word, *error = NULL;
	uint64_t number;
	uint32_t mask;
	for (size_t k = 0; k < n; k++) { /* in the table's order */
		if (!(word = kw[k].value))
			continue;
		switch (k) {
		case 0: error = parse_prefix(word, &r.source_ip, &r.source_length); break;
		case 1: error = parse_prefix(word, &r.destination_ip, &r.destination_length); break;
		case 2: error = parse_protocol(word, true, &r.protocol_any, &r.protocol); break;
		case 3: error = parse_port_or_any(word, &r.source_port_any, &r.source_port); break;
		case 4:
			error = parse_port_or_any(word, &r.destination_port_any, &r.destination_port);
			break;
		case 5:
			if (!(error = parse_number_set(word, PKTSTATS_FLOWLAT_MAC_PORTS - 1, &mask)))
				r.egress_ports = (uint8_t)mask;
			break;
		case 6:
			if (!(error = parse_number(word, 0, PKTSTATS_FLOWLAT_PROFILES - 1, &number)))
				r.profile = (uint8_t)number;
			break;
		}
		if (error)
			return bad_value(cli, kw[k].name, word, error);
	}
	if (!keyword_value(kw, n, "profile"))
		return cli_usage(cli, "needs profile ID (the latency profile of the group's flows, "
				      "0..%u)", PKTSTATS_FLOWLAT_PROFILES - 1);
	/* Frames of other protocols than TCP and UDP carry L4 ports 0: such a rule never
	 * matches. */
	if (!r.protocol_any && !is_l4(r.protocol)) {
		if (!r.source_port_any && r.source_port)
			return cli_usage(cli, "sport '%s': protocol %s has no ports (its frames "
					      "carry 0): use any or 0", keyword_value(kw, n, "sport"),
					 keyword_value(kw, n, "protocol"));
		if (!r.destination_port_any && r.destination_port)
			return cli_usage(cli, "dport '%s': protocol %s has no ports (its frames "
					      "carry 0): use any or 0", keyword_value(kw, n, "dport"),
					 keyword_value(kw, n, "protocol"));
	}
	if ((status = open_device(cli)) != CLI_OK)
		return status;
	struct pktstats_flowlat_rule old;
	int err = pktstats_flowlat_rule_get(cli->dev, index, &old);
	if (err == 0)
		err = pktstats_flowlat_rule_set(cli->dev, index, &r);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int group_delete(struct cli *cli, int argc, char **argv)
{
	if (argc < 1)
		return cli_usage(cli, "needs a group ID (0..%u)", PKTSTATS_FLOWLAT_RULES - 1);
	if (argc > 1)
		return cli_usage(cli, "unexpected argument '%s'", argv[1]);
	unsigned index = 0;
	int status = parse_index(cli, "group", argv[0], PKTSTATS_FLOWLAT_RULES - 1, &index);
	if (status == CLI_OK)
		status = open_device(cli);
	if (status != CLI_OK)
		return status;
	struct pktstats_flowlat_rule r;
	int err = pktstats_flowlat_rule_get(cli->dev, index, &r);
	if (err == 0) {
		r.valid = false;
		err = pktstats_flowlat_rule_set(cli->dev, index, &r);
	}
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int flowlat_group(struct cli *cli, int argc, char **argv)
{
	static const char *const names[] = {"show", "set", "delete"};
	static const char *const full[] = {"group show", "group set", "group delete"};
	size_t which;
	int status = subverb(cli, argc, argv, names, 3, full, &which);
	if (status != CLI_OK)
		return status;
	if (which == 0)
		return group_show(cli, argc - 1, argv + 1);
	if (which == 1)
		return group_set(cli, argc - 1, argv + 1);
	return group_delete(cli, argc - 1, argv + 1);
}

/* ------------------------------------------------------------------------------------------ */
/* flow show src IP dst IP protocol P [sport N] [dport N] */

static int flow_show(struct cli *cli, int argc, char **argv)
{
	struct keyword kw[] = {{"src", NULL},   {"dst", NULL},  {"protocol", NULL},
			  {"sport", NULL}, {"dport", NULL}};
	const size_t n = sizeof kw / sizeof kw[0];
	int status = keywords_parse(cli, argc, argv, kw, n, "flowlat flow show");
	if (status != CLI_OK)
		return status;
	struct pktstats_flowlat_key key = {0};
	const char *word, *error = NULL;
	uint64_t number;
	bool any;
	for (size_t k = 0; k < n; k++) {
		if (!(word = kw[k].value))
			continue;
		switch (k) {
		case 0: error = parse_ipv4(word, &key.source_ip); break;
		case 1: error = parse_ipv4(word, &key.destination_ip); break;
		case 2: error = parse_protocol(word, false, &any, &key.protocol); break;
		case 3:
		case 4:
			if (!(error = parse_number(word, 0, 65535, &number))) {
				if (k == 3)
					key.source_port = (uint16_t)number;
				else
					key.destination_port = (uint16_t)number;
			}
			break;
		}
		if (error)
			return bad_value(cli, kw[k].name, word, error);
	}
	static const char *const needs[] = {"src IP", "dst IP", "protocol P"};
	for (size_t k = 0; k < 3; k++)
		if (!kw[k].value)
			return cli_usage(cli, "needs %s (a flow is src IP dst IP protocol P sport N "
					      "dport N)", needs[k]);
	if (is_l4(key.protocol)) {
		for (size_t k = 3; k < 5; k++)
			if (!kw[k].value)
				return cli_usage(cli, "needs %s N (protocol %s has ports)", kw[k].name,
						 kw[2].value);
	} else {
		for (size_t k = 3; k < 5; k++)
			if ((k == 3 ? key.source_port : key.destination_port) != 0)
				return cli_usage(cli, "%s '%s': protocol %s has no ports (the table "
						      "keeps 0): leave it out or give 0",
						 kw[k].name, kw[k].value, kw[2].value);
	}
	if ((status = open_device(cli)) != CLI_OK)
		return status;
	struct pktstats_flowlat_flow f;
	int err = pktstats_flowlat_lookup(cli->dev, &key, &f);
	if (err < 0)
		return cli_fail(cli, err);

	char text[48];
	out_begin();
	format_ipv4(key.source_ip, text, sizeof text);
	out_string("src", text);
	format_ipv4(key.destination_ip, text, sizeof text);
	out_string("dst", text);
	out_uint("protocol", key.protocol, protocol_name(key.protocol));
	out_uint("sport", key.source_port, NULL);
	out_uint("dport", key.destination_port, NULL);
	out_bool("found", f.found);
	if (f.found) {
		out_bool("breach", f.breach);
		out_uint("group", f.group, NULL);
		residence_text(f.last_residence_ns, text, sizeof text);
		out_int("last-residence", f.last_residence_ns, text);
		residence_text(f.max_residence_ns, text, sizeof text);
		out_int("max-residence", f.max_residence_ns, text);
		out_uint("packets", f.packets, NULL);
		out_uint("last-seen-us", f.last_seen_us, NULL);
		out_uint("age-us", (uint32_t)(f.now_us - f.last_seen_us), NULL);
	} else {
		static const char *const absent[] = {"breach", "group", "last-residence",
						     "max-residence", "packets", "last-seen-us",
						     "age-us"};
		for (size_t k = 0; k < sizeof absent / sizeof absent[0]; k++)
			out_string(absent[k], NULL);
	}
	out_end();
	return CLI_OK;
}

static int flowlat_flow(struct cli *cli, int argc, char **argv)
{
	static const char *const names[] = {"show"};
	static const char *const full[] = {"flow show"};
	size_t which;
	int status = subverb(cli, argc, argv, names, 1, full, &which);
	return status != CLI_OK ? status : flow_show(cli, argc - 1, argv + 1);
}

/* ------------------------------------------------------------------------------------------ */
/* counters show|clear, clear, template */

static int counters_show(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = open_device(cli);
	if (status != CLI_OK)
		return status;
	struct pktstats_flowlat_counters counters;
	int err = pktstats_flowlat_counters_get(cli->dev, &counters);
	if (err < 0)
		return cli_fail(cli, err);
	uint64_t values[PKTSTATS_FLOWLAT_COUNTERS];
	pktstats_flowlat_counters_array(&counters, values);
	out_begin();
	for (unsigned i = 0; i < PKTSTATS_FLOWLAT_COUNTERS; i++) {
		char key[40];
		snprintf(key, sizeof key, "%s", pktstats_flowlat_counter_names[i]);
		for (char *p = key; *p; p++)
			if (*p == '_')
				*p = '-';
		out_uint(key, values[i], NULL);
	}
	out_end();
	return CLI_OK;
}

static int counters_clear(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = open_device(cli);
	if (status != CLI_OK)
		return status;
	int err = pktstats_flowlat_counters_clear(cli->dev);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int flowlat_counters(struct cli *cli, int argc, char **argv)
{
	static const char *const names[] = {"show", "clear"};
	static const char *const full[] = {"counters show", "counters clear"};
	size_t which;
	int status = subverb(cli, argc, argv, names, 2, full, &which);
	if (status != CLI_OK)
		return status;
	return which == 0 ? counters_show(cli, argc - 1, argv + 1)
			  : counters_clear(cli, argc - 1, argv + 1);
}

static int flowlat_clear(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = open_device(cli);
	if (status != CLI_OK)
		return status;
	int err = pktstats_flowlat_clear(cli->dev);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int flowlat_template(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = open_device(cli);
	if (status != CLI_OK)
		return status;
	int err = pktstats_flowlat_send_template(cli->dev);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* The verbs */

static const char show_details[] =
	"Shows every field `flowlat set` takes, under the same names, then the block's status.\n"
	"With -j: monitor, export (booleans), export_ports (array of switch ports),\n"
	"idle_timeout (ns), dst_mac, src_mac (aa:bb:cc:dd:ee:ff), src_ip, dst_ip (dotted),\n"
	"src_port, dst_port, observation_domain, enterprise_number, template_interval (ns; 0:\n"
	"only when export is enabled and on command), mtu (bytes), flush_timeout (ns); clearing\n"
	"(boolean: the table is forgetting every flow), events_waiting (0..64, for the\n"
	"exporter), records_waiting (0..16, for the table), now_us (the table's microsecond\n"
	"clock, wraps at 2^32).\n";

static const char set_details[] =
	"Keywords (any of them, each at most once; the others keep their values):\n"
	"  monitor on|off            the flow table takes the taps' records (matches, state,\n"
	"                            events)\n"
	"  export on|off             the exporter sends the events as IPFIX (and the template)\n"
	"  export-ports SET          switch ports 0..7 the IPFIX frames leave by: a list (0,2-4),\n"
	"                            a hex mask (0x08), all or none\n"
	"  idle-timeout DURATION     a flow not seen for longer is stale (may be evicted): whole\n"
	"                            microseconds, 0 .. 2^32 - 1 us (1s, 500ms, 250us)\n"
	"  dst-mac MAC               Ethernet destination of the IPFIX frames\n"
	"  src-mac MAC               Ethernet source\n"
	"  src-ip IPV4               IPv4 source (the exporter)\n"
	"  dst-ip IPV4               IPv4 destination (the collector)\n"
	"  src-port N                UDP source port, 1..65535 (default 4739)\n"
	"  dst-port N                UDP destination port, 1..65535 (default 4739)\n"
	"  observation-domain N      IPFIX observation domain ID, 0 .. 2^32 - 1\n"
	"  enterprise-number N       PEN of the enterprise-specific IEs, 0 .. 2^32 - 1\n"
	"                            (default 32473)\n"
	"  template-interval DURATION  the template every this many whole seconds of the\n"
	"                            time of day, 0 .. 65535 s (10s, 60s); 0: only when export\n"
	"                            is turned on, and on `flowlat template`\n"
	"  mtu BYTES                 IPv4 packet bytes of an IPFIX frame, 200..9000\n"
	"  flush-timeout DURATION    the longest an event waits for its message: whole\n"
	"                            microseconds, 0 .. 2^32 - 1 us (0: sent at once)\n"
	"  collector IPV4            fill dst-ip, dst-mac, src-ip and src-mac from this host's\n"
	"                            path to the collector, as `capture set collector` does;\n"
	"                            keywords given explicitly win\n"
	"  via IFACE                 with collector: use this interface, not the routing table's\n"
	"Durations: a number and a unit ns, us, ms, s (1.5ms); 0 alone is 0. Numbers are\n"
	"decimal or hex with 0x. Every value is checked before anything is written: a bad one\n"
	"changes nothing.\n"
	"Example: pktstats flowlat set dst-ip 10.0.0.9 dst-mac 02:00:00:00:00:09 export-ports 3 \\\n"
	"             monitor on export on\n";

static const char profile_details[] =
	"show [ID]: the latency profiles 0..7 (or profile ID), one line each: profile, kind\n"
	"  (stateless or stateful), high, low (stateful; - for stateless), min-interval\n"
	"  (stateless; - for stateful). With -j: {\"profiles\":[{profile, kind, high, low,\n"
	"  min_interval}]}, thresholds in signed ns, min_interval in ns, null where the kind has\n"
	"  none.\n"
	"set ID stateless high DURATION [min-interval DURATION]\n"
	"  an ABSOLUTE event when a frame's residence time is above high, at most one per flow\n"
	"  every min-interval (whole microseconds, 0 .. 2^32 - 1 us; default 0: every frame)\n"
	"set ID stateful high DURATION low DURATION\n"
	"  a HIGH event when a flow's residence time rises above high, a LOW event when it\n"
	"  then falls below low; low must be at most high\n"
	"The profile is replaced as a whole (what is not given is 0). high and low are signed\n"
	"durations in ns resolution that fit 32 bits: [-]DURATION (5us, 1.5ms, -200ns) or\n"
	"[-]NANOSECONDS, from -2147483648ns to 2147483647ns. Comparisons are strict.\n"
	"Example: pktstats flowlat profile set 1 stateful high 20us low 5us\n";

static const char group_details[] =
	"show [ID|all]: the flow groups (rules 0..15, tried in that order) that are valid, every\n"
	"  one with all, or group ID whether valid or not; one line each: group, valid, src,\n"
	"  dst, protocol, sport, dport, egress-ports, profile. With -j: {\"groups\":[{group,\n"
	"  valid, src, dst (\"A.B.C.D/LEN\" or null for any), protocol, sport, dport (numbers, or\n"
	"  null for any), egress_ports (array of MAC ports), profile}]}.\n"
	"set ID [src PREFIX] [dst PREFIX] [protocol P] [sport N] [dport N] [egress-ports SET]\n"
	"    profile ID\n"
	"  defines group ID as a whole and makes it valid; what is not given matches anything:\n"
	"  src, dst PREFIX      A.B.C.D/LEN (LEN 0..32, no host bits beyond it), A.B.C.D (/32)\n"
	"                       or any (default)\n"
	"  protocol P           udp, tcp, icmp, a number 0..255, or any (default)\n"
	"  sport, dport N       L4 port 0..65535 or any (default); frames of other protocols\n"
	"                       than TCP and UDP carry 0\n"
	"  egress-ports SET     the MAC ports 0..3 whose leaving frames the group watches: a\n"
	"                       list (0,2), a hex mask, all (default) or none\n"
	"  profile ID           the latency profile of the group's flows, 0..7 (required)\n"
	"delete ID: the group is no longer used (valid no; its fields stay).\n"
	"Example: pktstats flowlat group set 0 dst 10.0.3.0/24 protocol udp dport 5001 profile 1\n";

static const char flow_details[] =
	"show src IP dst IP protocol P sport N dport N: looks the flow up in the table by its\n"
	"5-tuple. protocol: udp, tcp, icmp or a number 0..255; sport and dport 0..65535, required\n"
	"for tcp and udp; for other protocols the table keeps 0 and they may be left out.\n"
	"Shows the key (src, dst, protocol, sport, dport), found, and when found: breach (a HIGH\n"
	"event without its LOW yet), group (the rule of its last frame), last-residence,\n"
	"max-residence (signed ns), packets, last-seen-us (the table's clock), age-us (now -\n"
	"last seen). A flow that is not there is an answer, not a failure: found no, the other\n"
	"fields null (-), exit 0. With -j the same keys with '_'.\n";

static const char counters_details[] =
	"show: the block's 13 counters: monitored, unmatched, table-full, evicted,\n"
	"  evicted-in-breach, events, events-lost, records-lost, not-ipv4, no-stamp, messages,\n"
	"  templates, records-exported (docs/flowlat.md). With -j the same keys with '_'.\n"
	"clear: sets them all to 0. They are cleared only so, never by reading them.\n";

/* `watch`'s help is flowlat_watch.h's, beside its code; these stand in until it has them. */
#ifndef FLOWLAT_WATCH_SYNOPSIS
#define FLOWLAT_WATCH_SYNOPSIS "[ARGUMENTS]"
#define FLOWLAT_WATCH_SUMMARY "listen for the events, follow the flows in breach"
#define FLOWLAT_WATCH_DETAILS "Listens for the block's IPFIX events (flowlat_watch.c).\n"
#endif

static const struct cli_verb flowlat_verbs[] = {
	{"show", "", "the monitor's and exporter's settings and the block's status", show_details,
	 flowlat_show},
	{"set", "KEYWORD VALUE [KEYWORD VALUE]...", "change the monitor's and exporter's settings",
	 set_details, flowlat_set},
	{"profile", "show [ID] | set ID stateless|stateful KEYWORD VALUE ...",
	 "the latency profiles (0..7)", profile_details, flowlat_profile},
	{"group", "show [ID|all] | set ID [KEYWORD VALUE]... profile ID | delete ID",
	 "the flow groups (rules 0..15)", group_details, flowlat_group},
	{"flow", "show src IP dst IP protocol P [sport N] [dport N]",
	 "a flow's state in the table, by its 5-tuple", flow_details, flowlat_flow},
	{"counters", "show | clear", "the block's counters", counters_details, flowlat_counters},
	{"clear", "", "forget every flow (the table takes 2048 clocks)", NULL, flowlat_clear},
	{"template", "", "send the IPFIX template now (with export on)", NULL, flowlat_template},
	{"watch", FLOWLAT_WATCH_SYNOPSIS, FLOWLAT_WATCH_SUMMARY, FLOWLAT_WATCH_DETAILS,
	 flowlat_watch},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_flowlat = {
	"flowlat", "Flow-latency monitor (SAI TAM events) and its IPFIX exporter", flowlat_verbs,
};
