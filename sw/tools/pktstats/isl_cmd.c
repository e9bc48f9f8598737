/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, object `isl`: the controller's side of OpenKilda's ISL round trip
 * (docs/isl.md). `isl run` is a foreground daemon for many switches at once. Each switch is a
 * device (its registers: what each port can do, its port MACs) and, per MAC port, the network
 * interface of that port's CPU port (packet-out and packet-in: the nf interface on a board, a
 * TAP of the simulator). Every interval it sends a signed discovery packet out of every port;
 * from what comes back it learns the ISLs, takes T1 - T0 of the round trips, the one-way
 * latency of the discovery packets, applies OpenKilda's decision maker, and writes the
 * results to a time-series database (isl_tsdb.h). Packets it cannot trust are counted, never
 * reported as latency. It prints the ISL table at the end and on SIGUSR1.
 */
#define _DEFAULT_SOURCE

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "isl_tsdb.h"
#include "keywords.h"
#include "oam_link.h"
#include "oam_output.h"
#include "output.h"
#include "pktstats/isl.h"

#define ISL_SWITCH_MAX 64
#define ISL_NAME_MAX 32
#define ISL_SECRET_MAX 256
#define ISL_SENT_RING 65536       /* packets remembered for their ID */
#define ISL_PENDING_MAX 64        /* round trips held per port until its ISL is known */
#define NS_PER_MS 1000000
#define NS_PER_S INT64_C(1000000000)

/* ------------------------------------------------------------------------------------------ */
/* Configuration */

struct isl_port {
	unsigned number; /* MAC port 0..3 */
	char ifname[32];
	struct oam_link link;
	struct pktstats_isl_features features; /* read from oam.control */
	uint8_t mac[6];                        /* oam.port_mac: the discovery packets' source */
	struct { int64_t value, at_ns; } pending[ISL_PENDING_MAX];
	size_t pending_count;
};

struct isl_switch {
	char name[ISL_NAME_MAX];
	const char *device;
	struct pktstats_dev *dev;
	bool have_dpid;
	uint64_t dpid;
	uint32_t ip;
	struct isl_port ports[PKTSTATS_OAM_MAC_PORTS];
	size_t port_count;
};

struct isl_options {
	struct isl_switch switches[ISL_SWITCH_MAX];
	size_t switch_count;
	uint8_t secret[ISL_SECRET_MAX];
	size_t secret_length;
	bool have_secret;
	uint64_t interval_ns, wait_ns, rounds, reverse_timeout_ns, flush_timeout_ns;
	uint64_t batch, queue;
	const char *tsdb_url;
	char metric_prefix[64];
	/* keywords given (by bit), so that each is given once and the command line wins over
	 * the config file */
	unsigned given;
};

/* The keywords of `isl run` and of its config file, one bit each in isl_options.given */
static const char *const keywords[] = {
	"config", "switch", "secret-file", "interval", "rounds", "wait", "tsdb",
	"metric-prefix", "batch", "queue", "flush-timeout", "reverse-timeout",
};
enum { KEYWORD_COUNT = sizeof keywords / sizeof keywords[0] };

/* "DEVICE,PORT=IFACE[,PORT=IFACE...][,dpid=ID][,ip=A.B.C.D][,name=NAME]" */
static int parse_switch(const struct cli *cli, const char *where, const char *spec,
			struct isl_options *o)
{
	if (o->switch_count == ISL_SWITCH_MAX)
		return cli_usage(cli, "%sat most %d switches", where, ISL_SWITCH_MAX);
	struct isl_switch *s = &o->switches[o->switch_count];
	memset(s, 0, sizeof *s);
	char *copy = strdup(spec), *save = NULL;
	if (!copy)
		return cli_usage(cli, "out of memory");
	int status = CLI_OK;
	char *field = strtok_r(copy, ",", &save);
	if (!field || strchr(field, '=')) {
		status = cli_usage(cli, "%sswitch '%s': starts with the device (DEVICE,PORT=IFACE,...)",
				   where, spec);
		goto out;
	}
	s->device = strdup(field);
	snprintf(s->name, sizeof s->name, "s%zu", o->switch_count);
	while (status == CLI_OK && (field = strtok_r(NULL, ",", &save))) {
		char *value = strchr(field, '=');
		const char *error = NULL;
		if (!value) {
			status = cli_usage(cli, "%sswitch '%s': '%s' is not KEY=VALUE", where, spec,
					   field);
			break;
		}
		*value++ = 0;
		uint64_t number;
		if (!strcmp(field, "dpid")) {
			uint8_t bytes[8];
			unsigned n = 0;
			int used = 0;
			bool colons = strlen(value) == 23;
			for (int i = 0; colons && i < 23; i++)
				colons = i % 3 == 2 ? value[i] == ':' : isxdigit((unsigned char)value[i]);
			if (colons &&
			    sscanf(value, "%2hhx:%2hhx:%2hhx:%2hhx:%2hhx:%2hhx:%2hhx:%2hhx%n", &bytes[0],
				   &bytes[1], &bytes[2], &bytes[3], &bytes[4], &bytes[5], &bytes[6],
				   &bytes[7], &used) == 8 && used == 23) {
				s->dpid = 0;
				for (n = 0; n < 8; n++)
					s->dpid = s->dpid << 8 | bytes[n];
			} else if ((error = parse_number(value, 0, UINT64_MAX, &s->dpid)) != NULL) {
				error = "not a datapath ID (0x0000020000000001 or 00:00:02:00:00:00:00:01)";
			}
			s->have_dpid = true;
		} else if (!strcmp(field, "ip")) {
			error = parse_ipv4(value, &s->ip);
		} else if (!strcmp(field, "name")) {
			if (!*value || strlen(value) >= ISL_NAME_MAX || strpbrk(value, " \t/"))
				error = "a name is 1..31 characters, no blanks or '/'";
			else
				snprintf(s->name, sizeof s->name, "%s", value);
		} else if (!parse_number(field, 0, PKTSTATS_OAM_MAC_PORTS - 1, &number)) {
			for (size_t i = 0; i < s->port_count; i++)
				if (s->ports[i].number == number)
					error = "port given twice";
			if (!*value || strlen(value) >= sizeof s->ports[0].ifname)
				error = "an interface name is 1..31 characters";
			if (!error) {
				struct isl_port *p = &s->ports[s->port_count++];
				p->number = (unsigned)number;
				p->link.fd = -1;
				snprintf(p->ifname, sizeof p->ifname, "%s", value);
			}
		} else {
			status = cli_usage(cli, "%sswitch '%s': unknown key '%s' (a port 0..3, dpid, ip, "
					   "name)", where, spec, field);
			break;
		}
		if (error)
			status = cli_usage(cli, "%sswitch '%s': %s '%s': %s", where, spec, field, value,
					   error);
	}
	if (status == CLI_OK && !s->port_count)
		status = cli_usage(cli, "%sswitch '%s': no port (PORT=IFACE: MAC port 0..3 and the "
				   "interface of its CPU port)", where, spec);
	for (size_t i = 0; status == CLI_OK && i < o->switch_count; i++)
		if (!strcmp(o->switches[i].name, s->name))
			status = cli_usage(cli, "%sswitch '%s': name '%s' taken by another switch",
					   where, spec, s->name);
	if (status == CLI_OK)
		o->switch_count++;
	else
		free((void *)s->device);
out:
	free(copy);
	return status;
}

static int read_secret(const struct cli *cli, const char *where, const char *path,
		       struct isl_options *o)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return cli_usage(cli, "%ssecret-file '%s': %s", where, path, strerror(errno));
	/* getline, not fgets: a NUL byte would end a C string there and shorten the key */
	char *line = NULL;
	size_t capacity = 0;
	ssize_t got = getline(&line, &capacity, f);
	fclose(f);
	size_t n = 0;
	while (got > 0 && n < (size_t)got && line[n] != '\n' && line[n] != '\r')
		n++;
	int status = CLI_OK;
	if (n && memchr(line, '\0', n))
		status = cli_usage(cli, "%ssecret-file '%s': its first line holds a NUL byte (the "
					"secret is text)", where, path);
	else if (!n || n > ISL_SECRET_MAX)
		status = cli_usage(cli, "%ssecret-file '%s': its first line must hold the secret "
					"(1..%d bytes)", where, path, ISL_SECRET_MAX);
	if (status == CLI_OK) {
		memcpy(o->secret, line, n);
		o->secret_length = n;
		o->have_secret = true;
	}
	free(line);
	return status;
}

static int parse_config_file(const struct cli *cli, const char *path, struct isl_options *o);

/* One KEYWORD VALUE, from the command line (where "") or the config file ("FILE:LINE: ") */
static int apply(const struct cli *cli, const char *where, const char *keyword, const char *value,
		 bool from_file, unsigned *file_given, struct isl_options *o)
{
	unsigned k = 0;
	while (k < KEYWORD_COUNT && strcmp(keywords[k], keyword))
		k++;
	if (k == KEYWORD_COUNT)
		return cli_usage(cli, "%sunknown keyword '%s' (see pktstats isl run --help)", where,
				 keyword);
	if (!value)
		return cli_usage(cli, "%s'%s' needs a value", where, keyword);
	if (!strcmp(keyword, "switch"))
		return parse_switch(cli, where, value, o);
	if (from_file) {
		if (!strcmp(keyword, "config"))
			return cli_usage(cli, "%sa config file cannot name another", where);
		if (*file_given & 1u << k)
			return cli_usage(cli, "%s'%s' given twice", where, keyword);
		*file_given |= 1u << k;
		if (o->given & 1u << k)
			return CLI_OK; /* the command line wins */
	} else {
		if (o->given & 1u << k)
			return cli_usage(cli, "'%s' given twice", keyword);
		o->given |= 1u << k;
	}

	const char *error = NULL;
	uint64_t ns = 0;
	if (!strcmp(keyword, "config"))
		return CLI_OK; /* read after the command line, see parse_options */
	if (!strcmp(keyword, "secret-file"))
		return read_secret(cli, where, value, o);
	if (!strcmp(keyword, "tsdb")) {
		if (strncmp(value, "http://", 7) && strncmp(value, "https://", 8))
			error = "not an http:// or https:// URL";
		o->tsdb_url = value;
	} else if (!strcmp(keyword, "metric-prefix")) {
		if (strlen(value) >= sizeof o->metric_prefix || strpbrk(value, " \t\"\\"))
			error = "at most 63 characters, no blanks, quotes or backslashes";
		else
			snprintf(o->metric_prefix, sizeof o->metric_prefix, "%s", value);
	} else if (!strcmp(keyword, "rounds")) {
		error = parse_number(value, 1, UINT64_C(1) << 32, &o->rounds);
	} else if (!strcmp(keyword, "batch")) {
		error = parse_number(value, 1, 100000, &o->batch);
	} else if (!strcmp(keyword, "queue")) {
		error = parse_number(value, 1, 100000000, &o->queue);
	} else {
		/* durations */
		error = parse_duration(value, &ns);
		uint64_t min = !strcmp(keyword, "interval") ? NS_PER_MS : 0;
		if (!error && (ns < min || ns > 3600 * (uint64_t)NS_PER_S))
			error = min ? "not between 1 ms and 1 h" : "more than 1 h";
		if (!strcmp(keyword, "interval"))
			o->interval_ns = ns;
		else if (!strcmp(keyword, "wait"))
			o->wait_ns = ns;
		else if (!strcmp(keyword, "flush-timeout"))
			o->flush_timeout_ns = ns;
		else
			o->reverse_timeout_ns = ns;
	}
	return error ? cli_usage(cli, "%s%s '%s': %s", where, keyword, value, error) : CLI_OK;
}

/* Lines "KEYWORD VALUE", '#' comments and blank lines; the keywords of the command line */
static int parse_config_file(const struct cli *cli, const char *path, struct isl_options *o)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return cli_usage(cli, "config '%s': %s", path, strerror(errno));
	static char lines[256][512]; /* values are kept: tsdb and switch point into them */
	int status = CLI_OK;
	unsigned file_given = 0;
	size_t n = 0;
	char *text = NULL;
	size_t capacity = 0;
	ssize_t got;
	/* getline, not fgets: the length it returns counts a NUL byte, which strlen would not */
	for (unsigned number = 1; status == CLI_OK && n < 256 && (got = getline(&text, &capacity, f)) > 0;
	     number++) {
		char where[600];
		snprintf(where, sizeof where, "%s:%u: ", path, number);
		size_t len = (size_t)got - (text[got - 1] == '\n');
		if (memchr(text, '\0', len)) {
			status = cli_usage(cli, "%sa NUL byte in the line", where);
			break;
		}
		if (len > 510) {
			status = cli_usage(cli, "%sline longer than 510 characters", where);
			break;
		}
		char *line = lines[n];
		memcpy(line, text, len);
		line[len] = 0;
		line[strcspn(line, "#\r\n")] = 0;
		char *save = NULL, *keyword = strtok_r(line, " \t", &save);
		if (!keyword)
			continue;
		char *value = strtok_r(NULL, " \t", &save);
		char *extra = strtok_r(NULL, " \t", &save);
		if (extra)
			status = cli_usage(cli, "%s'%s' takes one value ('%s' is one too many)", where,
					   keyword, extra);
		else
			status = apply(cli, where, keyword, value, true, &file_given, o);
		n++;
	}
	if (status == CLI_OK && n == 256)
		status = cli_usage(cli, "config '%s': more than 256 lines", path);
	free(text);
	fclose(f);
	return status;
}

static int parse_options(const struct cli *cli, int argc, char **argv, struct isl_options *o)
{
	memset(o, 0, sizeof *o);
	o->interval_ns = NS_PER_S;
	o->wait_ns = NS_PER_S;
	o->reverse_timeout_ns = 10 * NS_PER_S;
	o->flush_timeout_ns = 5 * NS_PER_S;
	o->batch = 500;
	o->queue = 100000;
	snprintf(o->metric_prefix, sizeof o->metric_prefix, "kilda.");
	const char *config = NULL;
	int status = CLI_OK;
	for (int i = 0; status == CLI_OK && i < argc; i += 2) {
		status = apply(cli, "", argv[i], i + 1 < argc ? argv[i + 1] : NULL, false, NULL, o);
		if (!strcmp(argv[i], "config"))
			config = argv[i + 1];
	}
	if (status == CLI_OK && config)
		status = parse_config_file(cli, config, o);
	if (status != CLI_OK)
		return status;
	if (!o->switch_count)
		return cli_usage(cli, "needs at least one switch DEVICE,PORT=IFACE (or a config file "
				      "that names them)");
	if (!o->have_secret)
		return cli_usage(cli, "needs secret-file FILE (the HMAC secret of the signature "
				      "token)");
	return CLI_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* State */

struct isl_sent {
	uint64_t id;
	int64_t at_ns; /* CLOCK_REALTIME */
	unsigned sw, port; /* indexes into the options */
};

/* Figures of one kind of latency of one ISL */
struct isl_figures {
	uint64_t count;
	int64_t last, min, max, last_at_ns;
};

/* A directed ISL: the discovery packets of (src switch, src port) came in at (dst, dst port) */
struct isl_link {
	unsigned src, src_port, dst, dst_port; /* indexes */
	uint64_t discovered;
	int64_t last_seen_ns;
	enum pktstats_isl_action action;
	struct isl_figures round_trip, reverse, one_way;
	bool written;
	int64_t latency;       /* the last value written */
	const char *origin;
	int64_t last_ms;       /* the last point's timestamp: each point gets a later one */
};

struct isl_counters {
	uint64_t rounds, rounds_missed, sent, send_errors, received, other, malformed, bad_signature,
		wrong_chassis, unknown_switch, unknown_port, unknown_packet, discovery, round_trip,
		misdirected, unstamped, negative, dropped_discovery, reverse_missing,
		pending_dropped, written;
};

struct isl_state {
	struct isl_options *o;
	struct isl_sent *sent;
	uint64_t next_id;
	struct isl_link *links;
	size_t link_count, link_capacity;
	struct isl_counters counters;
	struct tsdb *tsdb;
	struct tsdb_counters tsdb_final;
	bool tsdb_stopped;
};

static int64_t realtime_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * NS_PER_S + t.tv_nsec;
}

static struct isl_port *port_of(struct isl_state *st, unsigned sw, unsigned port)
{
	return &st->o->switches[sw].ports[port];
}

static struct isl_link *find_link(struct isl_state *st, unsigned src, unsigned src_port,
				  unsigned dst, unsigned dst_port)
{
	for (size_t i = 0; i < st->link_count; i++) {
		struct isl_link *l = &st->links[i];
		if (l->src == src && l->src_port == src_port && l->dst == dst && l->dst_port == dst_port)
			return l;
	}
	return NULL;
}

/* The ISL whose discovery packets from (src, src_port) came in last */
static struct isl_link *link_from(struct isl_state *st, unsigned src, unsigned src_port)
{
	struct isl_link *best = NULL;
	for (size_t i = 0; i < st->link_count; i++) {
		struct isl_link *l = &st->links[i];
		if (l->src == src && l->src_port == src_port &&
		    (!best || l->last_seen_ns > best->last_seen_ns))
			best = l;
	}
	return best;
}

static void figures_add(struct isl_figures *f, int64_t value, int64_t at_ns)
{
	if (!f->count || value < f->min)
		f->min = value;
	if (!f->count || value > f->max)
		f->max = value;
	f->count++;
	f->last = value;
	f->last_at_ns = at_ns;
}

/* A result for ISL l: into the table and to the database */
static void emit(struct isl_state *st, struct isl_link *l, int64_t value, const char *origin,
		 int64_t at_ns)
{
	int64_t ms = at_ns / NS_PER_MS;
	if (l->written && ms <= l->last_ms)
		ms = l->last_ms + 1; /* one point per millisecond and series */
	l->last_ms = ms;
	l->written = true;
	l->latency = value;
	l->origin = origin;
	st->counters.written++;
	if (st->tsdb) {
		const struct isl_switch *src = &st->o->switches[l->src], *dst = &st->o->switches[l->dst];
		struct tsdb_point point = {
			.timestamp_ms = ms,
			.value_ns = value,
			.src_switch = src->dpid,
			.dst_switch = dst->dpid,
			.src_port = src->ports[l->src_port].number,
			.dst_port = dst->ports[l->dst_port].number,
			.origin = origin,
		};
		tsdb_put(st->tsdb, &point);
	}
}

static void emit_round_trip(struct isl_state *st, struct isl_link *l, int64_t value,
			    int64_t at_ns)
{
	figures_add(&l->round_trip, value, at_ns);
	emit(st, l, value, "round_trip", at_ns);
}

/* ------------------------------------------------------------------------------------------ */
/* Sending */

static void send_round(struct isl_state *st)
{
	struct isl_options *o = st->o;
	static const uint8_t destination[6] = PKTSTATS_ISL_DESTINATION;
	st->counters.rounds++;
	for (unsigned s = 0; s < o->switch_count; s++) {
		struct isl_switch *sw = &o->switches[s];
		for (unsigned p = 0; p < sw->port_count; p++) {
			struct isl_port *port = &sw->ports[p];
			uint64_t id = st->next_id++;
			int64_t now = realtime_ns();
			struct pktstats_isl_packet packet = {
				.source_ip = sw->ip,
				.destination_ip = PKTSTATS_ISL_DESTINATION_IP,
				.port = (uint16_t)port->number,
				.dpid = sw->dpid,
				.timestamp_ms = now / NS_PER_MS,
			};
			memcpy(packet.destination, destination, 6);
			memcpy(packet.source, port->mac, 6);
			for (int i = 0; i < 6; i++)
				packet.chassis[i] = (uint8_t)(sw->dpid >> (40 - 8 * i));
			struct pktstats_isl_claims claims = {
				.dpid = (int64_t)sw->dpid, .ts = packet.timestamp_ms,
				.have_id = true, .id = (int64_t)id,
			};
			uint8_t frame[PKTSTATS_ISL_FRAME_MAX];
			int n = pktstats_isl_sign(o->secret, o->secret_length, &claims, packet.token,
						  sizeof packet.token);
			if (n > 0) {
				packet.token_length = (size_t)n;
				n = pktstats_isl_build(&packet, frame, sizeof frame);
			}
			if (n < 0 || oam_link_send(&port->link, frame, (size_t)n) < 0) {
				st->counters.send_errors++;
				continue;
			}
			st->sent[id % ISL_SENT_RING] = (struct isl_sent){id, now, s, p};
			st->counters.sent++;
		}
	}
}

/* ------------------------------------------------------------------------------------------ */
/* Receiving */

static bool find_port(const struct isl_options *o, uint64_t dpid, unsigned number, unsigned *sw,
		      unsigned *port, bool *switch_known)
{
	*switch_known = false;
	for (unsigned s = 0; s < o->switch_count; s++) {
		if (o->switches[s].dpid != dpid)
			continue;
		*switch_known = true;
		*sw = s;
		for (unsigned p = 0; p < o->switches[s].port_count; p++)
			if (o->switches[s].ports[p].number == number) {
				*port = p;
				return true;
			}
	}
	return false;
}

static bool stamp_zero(struct pktstats_wire_time t)
{
	return !t.seconds && !t.nanoseconds;
}

static void discovery_in(struct isl_state *st, const struct isl_sent *sent, unsigned sw,
			 unsigned port, int64_t at_ns)
{
	st->counters.discovery++;
	struct isl_link *l = find_link(st, sent->sw, sent->port, sw, port);
	if (!l) {
		if (st->link_count == st->link_capacity) {
			size_t capacity = st->link_capacity ? 2 * st->link_capacity : 16;
			struct isl_link *links = realloc(st->links, capacity * sizeof *links);
			if (!links)
				return;
			st->links = links;
			st->link_capacity = capacity;
		}
		l = &st->links[st->link_count++];
		*l = (struct isl_link){.src = sent->sw, .src_port = sent->port, .dst = sw,
				       .dst_port = port};
	}
	l->discovered++;
	l->last_seen_ns = at_ns;
	struct isl_port *source = port_of(st, sent->sw, sent->port);
	struct isl_port *destination = port_of(st, sw, port);
	enum pktstats_isl_action action = PKTSTATS_ISL_USE_ONE_WAY;
	pktstats_isl_decide(&source->features, &destination->features, &action);
	l->action = action;
	if (action == PKTSTATS_ISL_DROP_DISCOVERY) {
		st->counters.dropped_discovery++;
	} else if (action == PKTSTATS_ISL_COPY_REVERSE_RTL) {
		struct isl_link *reverse = find_link(st, sw, port, sent->sw, sent->port);
		if (reverse && reverse->round_trip.count &&
		    at_ns - reverse->round_trip.last_at_ns <= (int64_t)st->o->reverse_timeout_ns) {
			figures_add(&l->reverse, reverse->round_trip.last, at_ns);
			emit(st, l, reverse->round_trip.last, "reverse_round_trip", at_ns);
		} else {
			st->counters.reverse_missing++;
		}
	} else {
		int64_t one_way = at_ns - sent->at_ns;
		figures_add(&l->one_way, one_way, at_ns);
		emit(st, l, one_way, "one_way_latency", at_ns);
	}
	/* round trips that came back before their ISL was known */
	for (size_t i = 0; i < source->pending_count; i++)
		emit_round_trip(st, l, source->pending[i].value, source->pending[i].at_ns);
	source->pending_count = 0;
}

static void round_trip_in(struct isl_state *st, const struct pktstats_isl_packet *packet,
			  const struct isl_sent *sent, unsigned sw, unsigned port, int64_t at_ns)
{
	st->counters.round_trip++;
	if (sent->sw != sw || sent->port != port) {
		st->counters.misdirected++;
		return;
	}
	if (stamp_zero(packet->t0) || stamp_zero(packet->t1)) {
		st->counters.unstamped++;
		return;
	}
	int64_t value = pktstats_wire_time_diff(packet->t1, packet->t0);
	if (value < 0) {
		st->counters.negative++;
		return;
	}
	struct isl_link *l = link_from(st, sw, port);
	if (l) {
		emit_round_trip(st, l, value, at_ns);
		return;
	}
	struct isl_port *p = port_of(st, sw, port);
	if (p->pending_count == ISL_PENDING_MAX) {
		st->counters.pending_dropped++;
		return;
	}
	p->pending[p->pending_count].value = value;
	p->pending[p->pending_count++].at_ns = at_ns;
}

static void packet_in(struct isl_state *st, unsigned sw, unsigned port, const uint8_t *frame,
		      size_t len, int64_t at_ns)
{
	struct isl_options *o = st->o;
	struct pktstats_isl_packet packet;
	int err = pktstats_isl_parse(frame, len, &packet, NULL);
	if (err == -ENOMSG) {
		st->counters.other++;
		return;
	}
	st->counters.received++;
	if (err < 0) {
		st->counters.malformed++;
		return;
	}
	struct pktstats_isl_claims claims;
	if (!packet.token_length ||
	    pktstats_isl_verify(o->secret, o->secret_length, packet.token, packet.token_length,
				&claims) < 0) {
		st->counters.bad_signature++;
		return;
	}
	bool chassis_ok = true;
	for (int i = 0; i < 6; i++)
		chassis_ok &= packet.chassis[i] == (uint8_t)(packet.dpid >> (40 - 8 * i));
	if (!chassis_ok || claims.dpid != (int64_t)packet.dpid) {
		st->counters.wrong_chassis++;
		return;
	}
	unsigned from_sw = 0, from_port = 0;
	bool switch_known;
	if (!find_port(o, packet.dpid, packet.port, &from_sw, &from_port, &switch_known)) {
		if (switch_known)
			st->counters.unknown_port++;
		else
			st->counters.unknown_switch++;
		return;
	}
	const struct isl_sent *sent = &st->sent[(uint64_t)claims.id % ISL_SENT_RING];
	if (!claims.have_id || claims.id < 0 || sent->id != (uint64_t)claims.id ||
	    (uint64_t)claims.id >= st->next_id || sent->sw != from_sw || sent->port != from_port) {
		st->counters.unknown_packet++;
		return;
	}
	if (packet.round_trip)
		round_trip_in(st, &packet, sent, sw, port, at_ns);
	else
		discovery_in(st, sent, sw, port, at_ns);
}

/* ------------------------------------------------------------------------------------------ */
/* Output */

static void out_figures(const char *count, const char *last, const struct isl_figures *f)
{
	out_uint(count, f->count, NULL);
	if (f->count)
		out_int(last, f->last, NULL);
	else
		out_string(last, NULL);
}

static void print_table(struct isl_state *st)
{
	const struct isl_options *o = st->o;
	out_begin();
	static const struct out_column port_columns[] = {
		{"switch", NULL, 0}, {"datapath-id", NULL, 0}, {"port", NULL, 0},
		{"interface", NULL, 0}, {"mac", NULL, 0}, {"copy-field", NULL, 0},
		{"group", NULL, 0},
	};
	out_table_begin("ports", port_columns, sizeof port_columns / sizeof port_columns[0]);
	for (size_t s = 0; s < o->switch_count; s++) {
		const struct isl_switch *sw = &o->switches[s];
		for (size_t p = 0; p < sw->port_count; p++) {
			char dpid[24];
			snprintf(dpid, sizeof dpid, "SW%016" PRIX64, sw->dpid);
			out_row_begin();
			out_string("switch", sw->name);
			out_string("datapath-id", dpid);
			out_uint("port", sw->ports[p].number, NULL);
			out_string("interface", sw->ports[p].ifname);
			out_string("mac", mac_text(sw->ports[p].mac, 0));
			out_string("copy-field", sw->ports[p].features.copy_field ? "yes" : "no");
			out_string("group", sw->ports[p].features.group ? "yes" : "no");
			out_row_end();
		}
	}
	out_table_end();

	static const struct out_column isl_columns[] = {
		{"src-switch", "src", 0}, {"src-port", "port", 0}, {"dst-switch", "dst", 0},
		{"dst-port", "port", 0}, {"action", NULL, 0}, {"discovered", NULL, 0},
		{"round-trips", NULL, 0}, {"round-trip-ns", "last-rtt-ns", 0},
		{"reverse-copies", "reverse", 0}, {"reverse-ns", NULL, 0},
		{"one-way-count", "one-way", 0}, {"one-way-ns", NULL, 0},
		{"latency-ns", NULL, 0}, {"origin", NULL, 0},
	};
	out_table_begin("isls", isl_columns, sizeof isl_columns / sizeof isl_columns[0]);
	for (size_t i = 0; i < st->link_count; i++) {
		const struct isl_link *l = &st->links[i];
		const struct isl_switch *src = &o->switches[l->src], *dst = &o->switches[l->dst];
		out_row_begin();
		out_string("src-switch", src->name);
		out_uint("src-port", src->ports[l->src_port].number, NULL);
		out_string("dst-switch", dst->name);
		out_uint("dst-port", dst->ports[l->dst_port].number, NULL);
		out_string("action", pktstats_isl_action_name(l->action));
		out_uint("discovered", l->discovered, NULL);
		out_figures("round-trips", "round-trip-ns", &l->round_trip);
		out_figures("reverse-copies", "reverse-ns", &l->reverse);
		out_figures("one-way-count", "one-way-ns", &l->one_way);
		if (l->written)
			out_int("latency-ns", l->latency, NULL);
		else
			out_string("latency-ns", NULL);
		out_string("origin", l->written ? l->origin : NULL);
		out_row_end();
	}
	out_table_end();

	const struct isl_counters *c = &st->counters;
	out_object_begin("counters");
	const struct { const char *key; uint64_t value; } counters[] = {
		{"rounds", c->rounds}, {"rounds-missed", c->rounds_missed}, {"sent", c->sent}, {"send-errors", c->send_errors},
		{"received", c->received}, {"discovery", c->discovery},
		{"round-trip", c->round_trip}, {"written", c->written},
		{"malformed", c->malformed}, {"bad-signature", c->bad_signature},
		{"wrong-chassis", c->wrong_chassis}, {"unknown-switch", c->unknown_switch},
		{"unknown-port", c->unknown_port}, {"unknown-packet", c->unknown_packet},
		{"misdirected", c->misdirected}, {"unstamped", c->unstamped},
		{"negative", c->negative}, {"dropped-discovery", c->dropped_discovery},
		{"reverse-missing", c->reverse_missing}, {"pending-dropped", c->pending_dropped},
		{"other-frames", c->other},
	};
	for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
		out_uint(counters[i].key, counters[i].value, NULL);
	out_object_end();

	if (st->tsdb || st->tsdb_stopped) {
		struct tsdb_counters t = st->tsdb_final;
		if (st->tsdb)
			tsdb_counters(st->tsdb, &t);
		out_object_begin("tsdb");
		out_string("url", o->tsdb_url);
		out_uint("queued", t.queued, NULL);
		out_uint("delivered", t.delivered, NULL);
		out_uint("undelivered", t.undelivered, NULL);
		out_uint("pending", t.queued - t.delivered - t.undelivered, NULL);
		out_uint("requests", t.requests, NULL);
		out_uint("failed-requests", t.failed, NULL);
		out_uint("refused-requests", t.refused, NULL);
		out_string("last-error", *t.last_error ? t.last_error : NULL);
		out_object_end();
	} else {
		out_string("tsdb", NULL);
	}
	out_end();
	out_flush();
}

/* ------------------------------------------------------------------------------------------ */
/* Setting up, and the loop */

/* Reads what each port can do and its MAC; opens its interface. */
static int set_up(struct isl_options *o)
{
	for (size_t s = 0; s < o->switch_count; s++) {
		struct isl_switch *sw = &o->switches[s];
		char error[PKTSTATS_ERROR_MAX];
		int err = pktstats_open(sw->device, 0, &sw->dev, error, sizeof error);
		if (err < 0) {
			fprintf(stderr, "pktstats: isl run: switch %s: %s: %s\n", sw->name, sw->device,
				*error ? error : strerror(-err));
			return CLI_RUNTIME;
		}
		for (size_t p = 0; p < sw->port_count; p++) {
			struct isl_port *port = &sw->ports[p];
			struct pktstats_oam_port_config c;
			if ((err = pktstats_oam_port_get(sw->dev, port->number, &c)) < 0) {
				fprintf(stderr, "pktstats: isl run: switch %s port %u: %s\n", sw->name,
					port->number, pktstats_error(sw->dev));
				return CLI_RUNTIME;
			}
			if (!c.cpu_bound) {
				fprintf(stderr, "pktstats: isl run: switch %s port %u: cpu-bound is off, so "
						"packets from its CPU port would be switched, not sent out "
						"of port %u (pktstats -d %s oam set %u cpu-bound on)\n",
					sw->name, port->number, port->number, sw->device, port->number);
				return CLI_RUNTIME;
			}
			if (c.isl_copy_field && !c.isl_group) {
				fprintf(stderr, "pktstats: isl run: switch %s port %u: isl-copy-field "
						"without isl-group, which OpenKilda's decision table rules "
						"out (docs/isl.md)\n", sw->name, port->number);
				return CLI_RUNTIME;
			}
			port->features.copy_field = c.isl_copy_field;
			port->features.group = c.isl_group;
			memcpy(port->mac, c.mac, 6);
			if ((err = oam_link_open(&port->link, port->ifname, error, sizeof error)) < 0) {
				fprintf(stderr, "pktstats: isl run: switch %s port %u: %s\n", sw->name,
					port->number, error);
				return CLI_RUNTIME;
			}
		}
		if (!sw->have_dpid)
			for (int i = 0; i < 6; i++)
				sw->dpid = sw->dpid << 8 | sw->ports[0].mac[i];
		for (size_t k = 0; k < s; k++)
			if (o->switches[k].dpid == sw->dpid) {
				fprintf(stderr, "pktstats: isl run: switches %s and %s have the same "
						"datapath ID %016" PRIx64 " (give dpid=)\n",
					o->switches[k].name, sw->name, sw->dpid);
				return CLI_RUNTIME;
			}
	}
	return CLI_OK;
}

static void tear_down(struct isl_options *o)
{
	for (size_t s = 0; s < o->switch_count; s++) {
		struct isl_switch *sw = &o->switches[s];
		for (size_t p = 0; p < sw->port_count; p++)
			if (sw->ports[p].link.fd >= 0)
				oam_link_close(&sw->ports[p].link);
		pktstats_close(sw->dev);
		free((void *)sw->device);
	}
}

static int run_loop(struct isl_state *st)
{
	struct isl_options *o = st->o;
	sigset_t signals;
	sigemptyset(&signals);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGTERM);
	sigaddset(&signals, SIGUSR1);
	sigprocmask(SIG_BLOCK, &signals, NULL);
	int sfd = signalfd(-1, &signals, SFD_CLOEXEC);
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (sfd < 0 || tfd < 0) {
		fprintf(stderr, "pktstats: isl run: signalfd/timerfd: %s\n", strerror(errno));
		return CLI_RUNTIME;
	}
	struct itimerspec every = {
		.it_interval = {(time_t)(o->interval_ns / NS_PER_S), (long)(o->interval_ns % NS_PER_S)},
		.it_value = {0, 1},
	};
	timerfd_settime(tfd, 0, &every, NULL);

	size_t n_links = 0;
	for (size_t s = 0; s < o->switch_count; s++)
		n_links += o->switches[s].port_count;
	struct pollfd *fds = calloc(2 + n_links, sizeof *fds);
	unsigned (*which)[2] = calloc(n_links, sizeof *which);
	if (!fds || !which) {
		free(fds);
		free(which);
		return CLI_RUNTIME;
	}
	fds[0] = (struct pollfd){.fd = sfd, .events = POLLIN};
	fds[1] = (struct pollfd){.fd = tfd, .events = POLLIN};
	size_t k = 0;
	for (unsigned s = 0; s < o->switch_count; s++)
		for (unsigned p = 0; p < o->switches[s].port_count; p++) {
			fds[2 + k] = (struct pollfd){.fd = o->switches[s].ports[p].link.fd, .events = POLLIN};
			which[k][0] = s;
			which[k++][1] = p;
		}

	int64_t stop_at = -1; /* CLOCK_MONOTONIC, after the last round */
	for (;;) {
		int timeout = -1;
		if (stop_at >= 0) {
			int64_t left = stop_at - monotonic_ns();
			if (left <= 0)
				break;
			timeout = (int)((left + NS_PER_MS - 1) / NS_PER_MS);
		}
		if (poll(fds, 2 + n_links, timeout) < 0 && errno != EINTR)
			break;
		if (fds[0].revents & POLLIN) {
			struct signalfd_siginfo info;
			if (read(sfd, &info, sizeof info) == (ssize_t)sizeof info) {
				if (info.ssi_signo == SIGUSR1)
					print_table(st);
				else
					break;
			}
		}
		if (fds[1].revents & POLLIN) {
			uint64_t expirations;
			if (read(tfd, &expirations, sizeof expirations) > 0 && stop_at < 0) {
				/* a round per tick; ticks that passed while it was busy are counted,
				 * not made up for */
				st->counters.rounds_missed += expirations - 1;
				send_round(st);
				if (o->rounds && st->counters.rounds >= o->rounds)
					stop_at = monotonic_ns() + (int64_t)o->wait_ns;
			}
		}
		for (size_t i = 0; i < n_links; i++) {
			if (!(fds[2 + i].revents & POLLIN))
				continue;
			struct isl_port *port = port_of(st, which[i][0], which[i][1]);
			uint8_t frame[PKTSTATS_ISL_FRAME_MAX + 64];
			int64_t at = 0;
			int len;
			while ((len = oam_link_read(&port->link, frame, sizeof frame, &at)) > 0)
				packet_in(st, which[i][0], which[i][1], frame, (size_t)len,
					  at ? at : realtime_ns());
		}
	}
	free(fds);
	free(which);
	close(sfd);
	close(tfd);
	return CLI_OK;
}

static int isl_run(struct cli *cli, int argc, char **argv)
{
	static struct isl_options o; /* large: switches with their pending round trips */
	int status = parse_options(cli, argc, argv, &o);
	if (status != CLI_OK)
		return status;
	struct isl_state st = {.o = &o};
	st.sent = calloc(ISL_SENT_RING, sizeof *st.sent);
	if (!st.sent) {
		fprintf(stderr, "pktstats: isl run: out of memory\n");
		return CLI_RUNTIME;
	}
	for (size_t i = 0; i < ISL_SENT_RING; i++)
		st.sent[i].id = UINT64_MAX; /* no packet */
	status = set_up(&o);
	if (status == CLI_OK && o.tsdb_url) {
		char error[256];
		if (tsdb_start(&st.tsdb, o.tsdb_url, o.metric_prefix, o.queue, o.batch, error,
			       sizeof error) < 0) {
			fprintf(stderr, "pktstats: isl run: tsdb: %s\n", error);
			status = CLI_RUNTIME;
		}
	}
	if (status == CLI_OK) {
		size_t ports = 0;
		for (size_t s = 0; s < o.switch_count; s++)
			ports += o.switches[s].port_count;
		char interval[32];
		format_duration(o.interval_ns, interval, sizeof interval);
		fprintf(stderr, "pktstats: isl run: %zu switches, %zu ports, a discovery packet out of "
				"each every %s%s%s\n", o.switch_count, ports, interval,
			o.tsdb_url ? ", results to " : "", o.tsdb_url ? o.tsdb_url : "");
		status = run_loop(&st);
	}
	if (st.tsdb) {
		tsdb_stop(st.tsdb, (int64_t)o.flush_timeout_ns, &st.tsdb_final);
		st.tsdb = NULL;
		st.tsdb_stopped = true;
	}
	if (status == CLI_OK)
		print_table(&st);
	tear_down(&o);
	free(st.sent);
	free(st.links);
	return status;
}

static const struct cli_verb isl_verbs[] = {
	{"run", "[config FILE] switch DEVICE,PORT=IFACE[,PORT=IFACE...][,dpid=ID][,ip=A.B.C.D]"
		"[,name=NAME]... secret-file FILE [interval DURATION] [rounds N] [wait DURATION] "
		"[reverse-timeout DURATION] [tsdb URL [metric-prefix PREFIX] [batch N] [queue N] "
		"[flush-timeout DURATION]]",
	 "measure every ISL's latency as OpenKilda does, results to a time-series database",
	 "A foreground daemon (docs/isl.md). Each switch: its DEVICE (-d form), and for each\n"
	 "MAC port PORT (0..3) the interface IFACE of its CPU port; dpid= (default: the first\n"
	 "port's oam port_mac), ip= (the packets' IPv4 source, default 0.0.0.0), name= (default\n"
	 "sN). Every port needs oam cpu-bound on; isl-copy-field and isl-group are read as\n"
	 "the switch's features. Every interval (default 1s) a discovery packet, signed with\n"
	 "the first line of secret-file (HS256), leaves every port; a packet that comes back is\n"
	 "checked (signature, chassis, switch, port, packet ID) and gives: an ISL (a discovery\n"
	 "packet caught at another port), T1 - T0 (a round trip), the one-way latency (receive\n"
	 "minus send time, host clock), used as OpenKilda's decision maker says (action:\n"
	 "drop-discovery, copy-reverse-rtl within reverse-timeout, default 10s, use-one-way).\n"
	 "tsdb URL (http://HOST:PORT): each result goes to URL/api/put as metric\n"
	 "PREFIX + isl.rtt (PREFIX default kilda.), value in ns, tags src_switch, src_port,\n"
	 "dst_switch, dst_port, origin (round_trip, reverse_round_trip, one_way_latency); up to\n"
	 "batch (500) per request, queue (100000) points held while the database is away;\n"
	 "flush-timeout (5s) to deliver at the end. rounds N: stop wait (1s) after N rounds;\n"
	 "else run until SIGINT or SIGTERM. Prints the ports, the ISL table, the counters and\n"
	 "the database's figures at the end, and on SIGUSR1 (-j: one JSON line each). config\n"
	 "FILE: the same keywords, one 'KEYWORD VALUE' per line ('#' comments); the command\n"
	 "line wins. Needs CAP_NET_RAW.\n",
	 isl_run},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_isl = {
	"isl", "ISL latency as OpenKilda measures it: discovery, round trip, decision maker",
	isl_verbs,
};
