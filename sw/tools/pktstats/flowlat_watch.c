/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, `flowlat watch`: seed 003's collector workflow (docs/flowlat.md) as a
 * foreground tool. It listens for the flow-latency block's IPFIX messages on UDP, parses each
 * with the library (pktstats_flowlat_ipfix_parse) and prints a timeline: every event; from a
 * flow's HIGH event on, every interval, the flow's state read from the switch by its 5-tuple
 * (pktstats_flowlat_lookup), until its LOW event. ABSOLUTE events are printed, never polled.
 *
 * One print path (output.h): the timeline is a table printed row by row (text: aligned
 * columns under one heading; -j: JSON lines, one object per event or poll, with a "type"
 * key), the summary at the end one object (-j: one more JSON line, type "summary").
 *
 * Decisions (docs/cli.md, `flowlat watch`):
 *   - the observation domain of the first valid message is the one followed; messages of any
 *     other domain are counted (other-domain) and ignored, and reported once on stderr: their
 *     flows are not the device's, and their sequence numbers count other records;
 *   - sequence numbers (data records sent before the message) are followed from the first
 *     message (pktstats_flowlat_sequence_feed): a jump forward of up to what one message can
 *     hold counts the records in between as missing; a jump back (a duplicate, a late message,
 *     the exporter restarted) is counted as a sequence error, a jump forward beyond that as a
 *     resynchronisation, and the count goes on from there;
 *   - the flows in breach are held in a table of fixed size, hashed by 5-tuple
 *     (WATCH_FLOWS_MAX: the flow table's entries, the most the switch can hold in breach); a
 *     HIGH beyond it is counted (not-watched) and said once: memory and the cost of an event
 *     stay bounded whatever arrives;
 *   - at most WATCH_BATCH datagrams are taken between two looks at the signals and the poll
 *     ticks: a flood cannot keep SIGTERM waiting; the datagrams the kernel dropped for want of
 *     room in the socket's buffer are counted (SO_RXQ_OVFL: kernel-drops);
 *   - a malformed message is reported on stderr with the parser's reason (the first 100; then
 *     counted only), counted, and skipped;
 *   - three lookups in a row that fail (a register access failed, the lookup never answered)
 *     end the watch: summary, exit 1. A flow the lookup does not find is a poll line with
 *     found false, not a failure; the table evicted it in breach, so its LOW never comes and
 *     it is no longer watched (counted: evicted);
 *   - the polls of all the flows in breach are one round per interval (a timerfd, armed while
 *     a flow is watched); ticks missed while a round took longer are not made up for.
 */
#define _DEFAULT_SOURCE /* clock_gettime, timerfd */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "flowlat_watch.h"
#include "keywords.h"
#include "output.h"
#include "pktstats/flowlat.h"

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S INT64_C(1000000000)
#define WATCH_DATAGRAM_MAX 65536
#define WATCH_EVENTS_MAX (WATCH_DATAGRAM_MAX / PKTSTATS_FLOWLAT_RECORD_LENGTH + 1)
#define WATCH_LOOKUP_FAILURES 3    /* lookups in a row that fail: the watch ends, exit 1 */
#define WATCH_MALFORMED_REPORTS 100 /* malformed messages reported on stderr; then counted */
#define WATCH_RCVBUF (4 << 20)
#define WATCH_BATCH 64             /* datagrams taken before the signals are looked at again */
#define WATCH_FLOWS_MAX 8192       /* flows watched at once: the flow table's entries */
#define WATCH_SLOTS (2 * WATCH_FLOWS_MAX) /* the hash index, at most half full */

/* ------------------------------------------------------------------------------------------ */
/* The command line */

struct watch_options {
	uint32_t listen;        /* IPv4, host order */
	uint64_t port;
	uint64_t interval_ns;
	uint64_t enterprise_number;
	uint64_t count;         /* events; 0: no limit */
	uint64_t duration_ns;   /* 0: no limit */
};

/* A duration in [min_ns, max_ns], or why not. */
static const char *parse_duration_between(const char *word, uint64_t min_ns, uint64_t max_ns,
					  const char *range, uint64_t *ns)
{
	const char *error = parse_duration(word, ns);
	return error ? error : *ns < min_ns || *ns > max_ns ? range : NULL;
}

static int parse_options(const struct cli *cli, int argc, char **argv, struct watch_options *o)
{
	memset(o, 0, sizeof *o);
	o->port = PKTSTATS_FLOWLAT_IPFIX_PORT;
	o->interval_ns = 100 * NS_PER_MS;
	o->enterprise_number = PKTSTATS_FLOWLAT_PEN_DEFAULT;
	enum { LISTEN, PORT, INTERVAL, ENTERPRISE_NUMBER, COUNT, DURATION, KEYWORDS };
	struct keyword kw[KEYWORDS] = {
		[LISTEN] = {"listen", NULL},	       [PORT] = {"port", NULL},
		[INTERVAL] = {"interval", NULL},       [ENTERPRISE_NUMBER] = {"enterprise-number", NULL},
		[COUNT] = {"count", NULL},	       [DURATION] = {"duration", NULL},
	};
	int status = keywords_parse(cli, argc, argv, kw, KEYWORDS, "flowlat watch");
	for (unsigned k = 0; status == CLI_OK && k < KEYWORDS; k++) {
		const char *word = kw[k].value, *error = NULL;
		if (!word)
			continue;
		switch (k) {
		case LISTEN:
			error = parse_ipv4(word, &o->listen);
			break;
		case PORT:
			error = parse_number(word, 1, 65535, &o->port);
			break;
		case ENTERPRISE_NUMBER:
			error = parse_number(word, 0, UINT32_MAX, &o->enterprise_number);
			break;
		case COUNT:
			error = parse_number(word, 1, UINT64_C(1) << 62, &o->count);
			break;
		case INTERVAL:
			error = parse_duration_between(word, NS_PER_MS, 3600 * (uint64_t)NS_PER_S,
						       "not between 1 ms and 1 h", &o->interval_ns);
			break;
		default: /* DURATION */
			error = parse_duration_between(word, NS_PER_MS, (uint64_t)INT64_MAX / 2,
						       "not between 1 ms and 146 years",
						       &o->duration_ns);
			break;
		}
		if (error)
			status = cli_usage(cli, "%s '%s': %s", kw[k].name, word, error);
	}
	return status;
}

/* ------------------------------------------------------------------------------------------ */
/* State */

struct watch_counters {
	uint64_t datagrams, messages, templates, records, events, kinds[4], malformed,
		other_domain, lookups, lookups_failed, evicted, not_watched, kernel_drops;
};

struct watch_state {
	const struct watch_options *o;
	struct cli *cli;
	/* in breach (HIGH seen, LOW not yet): flows[0..flow_count), and their index by hash,
	 * slots[] (WATCH_SLOTS: -1 free, else a position in flows) */
	struct pktstats_flowlat_key *flows;
	int32_t *slots;
	size_t flow_count;
	struct watch_counters c;
	struct pktstats_flowlat_sequence sequence;
	bool have_domain;
	uint32_t domain;
	uint32_t kernel_drops_seen;  /* SO_RXQ_OVFL's count at the last datagram */
	int timer_fd;               /* the poll ticks; -1 without a device */
	bool timer_armed;
	unsigned failures_in_a_row;
	bool done;                  /* count events printed */
	bool failed;                /* lookups failing: exit 1 */
};

static const struct out_column columns[] = {
	{"time-ns", "time", 30}, {"type", NULL, 8},      {"src", NULL, 15},
	{"sport", NULL, 5},      {"dst", NULL, 15},      {"dport", NULL, 5},
	{"protocol", NULL, 3},   {"ingress", NULL, 0},   {"egress", NULL, 0},
	{"residence", NULL, 0},  {"group", NULL, 0},     {"profile", NULL, 0},
	{"high", NULL, 8},       {"low", NULL, 8},       {"occupancy-bytes", NULL, 0},
	{"found", NULL, 0},      {"last-residence", NULL, 0}, {"max-residence", NULL, 0},
	{"packets", NULL, 8},    {"age-us", NULL, 8},    {"breach", NULL, 0},
};

static bool same_key(const struct pktstats_flowlat_key *a, const struct pktstats_flowlat_key *b)
{
	return a->source_ip == b->source_ip && a->destination_ip == b->destination_ip &&
	       a->protocol == b->protocol && a->source_port == b->source_port &&
	       a->destination_port == b->destination_port;
}

static size_t key_slot(const struct pktstats_flowlat_key *key)
{
	uint64_t h = (uint64_t)key->source_ip << 32 | key->destination_ip;
	h ^= (uint64_t)key->source_port << 24 | (uint64_t)key->destination_port << 8 | key->protocol;
	h *= UINT64_C(0x9e3779b97f4a7c15); /* Fibonacci hashing: the high bits are well mixed */
	return (size_t)(h >> 32) % WATCH_SLOTS;
}

/* The slot of the flow's index entry, or of the free slot where it would go */
static size_t find_slot(const struct watch_state *st, const struct pktstats_flowlat_key *key)
{
	size_t i = key_slot(key);
	while (st->slots[i] >= 0 && !same_key(&st->flows[st->slots[i]], key))
		i = (i + 1) % WATCH_SLOTS;
	return i;
}

/* Removes the flow whose index entry is at `slot`: the entries after it move back into the
 * hole (linear probing, no tombstones), then the last flow takes its place in flows. */
static void remove_flow(struct watch_state *st, size_t slot)
{
	size_t position = (size_t)st->slots[slot];
	st->slots[slot] = -1;
	for (size_t j = (slot + 1) % WATCH_SLOTS; st->slots[j] >= 0; j = (j + 1) % WATCH_SLOTS) {
		size_t home = key_slot(&st->flows[st->slots[j]]);
		/* the entry at j stays when its home lies cyclically in (slot, j] */
		bool stays = slot < j ? home > slot && home <= j : home > slot || home <= j;
		if (!stays) {
			st->slots[slot] = st->slots[j];
			st->slots[j] = -1;
			slot = j;
		}
	}
	size_t last = --st->flow_count;
	if (position != last) {
		size_t moved = find_slot(st, &st->flows[last]);
		st->flows[position] = st->flows[last];
		st->slots[moved] = (int32_t)position;
	}
}

/* The poll ticks run while a flow is watched (and there is a device to read it from). */
static void update_timer(struct watch_state *st)
{
	bool want = st->timer_fd >= 0 && st->flow_count > 0;
	if (want == st->timer_armed)
		return;
	uint64_t ns = want ? st->o->interval_ns : 0;
	struct itimerspec every = {
		.it_interval = {(time_t)(ns / NS_PER_S), (long)(ns % NS_PER_S)},
		.it_value = {(time_t)(ns / NS_PER_S), (long)(ns % NS_PER_S)},
	};
	timerfd_settime(st->timer_fd, 0, &every, NULL);
	st->timer_armed = want;
}

/* Starts watching a flow (HIGH); false when WATCH_FLOWS_MAX are watched already. */
static bool watch_flow(struct watch_state *st, const struct pktstats_flowlat_key *key)
{
	size_t slot = find_slot(st, key);
	if (st->slots[slot] >= 0)
		return true; /* a second HIGH without the LOW between (lost): still watched */
	if (st->flow_count == WATCH_FLOWS_MAX)
		return false;
	st->flows[st->flow_count] = *key;
	st->slots[slot] = (int32_t)st->flow_count++;
	update_timer(st);
	return true;
}

/* Stops watching a flow (LOW); a LOW without its HIGH (the watch started in the middle of
 * the breach) changes nothing. */
static void unwatch_flow(struct watch_state *st, const struct pktstats_flowlat_key *key)
{
	size_t slot = find_slot(st, key);
	if (st->slots[slot] < 0)
		return;
	remove_flow(st, slot);
	update_timer(st);
}

/* ------------------------------------------------------------------------------------------ */
/* Output */

static int64_t realtime_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * NS_PER_S + t.tv_nsec;
}

static int64_t monotonic_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * NS_PER_S + t.tv_nsec;
}

/* "2026-11-25T21:55:02.123456789Z" */
static void out_time(uint64_t seconds, uint32_t nanoseconds)
{
	char text[64];
	if (seconds > INT64_MAX || !format_utc((int64_t)seconds, nanoseconds, text, sizeof text))
		snprintf(text, sizeof text, "%" PRIu64 ".%09" PRIu32, seconds, nanoseconds);
	out_uint("time-ns", seconds * (uint64_t)NS_PER_S + nanoseconds, text);
}

static void out_key(const struct pktstats_flowlat_key *key)
{
	char src[16], dst[16];
	format_ipv4(key->source_ip, src, sizeof src);
	format_ipv4(key->destination_ip, dst, sizeof dst);
	out_string("src", src);
	out_uint("sport", key->source_port, NULL);
	out_string("dst", dst);
	out_uint("dport", key->destination_port, NULL);
	out_uint("protocol", key->protocol, NULL);
}

static void print_event(const struct pktstats_flowlat_event *e)
{
	out_row_begin();
	out_time(e->seconds, e->nanoseconds);
	out_string("type", pktstats_flowlat_kind_name(e->kind));
	out_key(&e->key);
	out_uint("ingress", e->ingress_interface, NULL);
	out_uint("egress", e->egress_interface, NULL);
	out_int("residence", e->residence_ns, NULL);
	out_uint("group", e->group, NULL);
	out_uint("profile", e->profile, NULL);
	out_int("high", e->high_ns, NULL);
	out_int("low", e->low_ns, NULL);
	out_uint("occupancy-bytes", e->occupancy, NULL);
	static const char *const poll_only[] = {"found", "last-residence", "max-residence",
						    "packets", "age-us", "breach"};
	for (size_t i = 0; i < sizeof poll_only / sizeof poll_only[0]; i++)
		out_string(poll_only[i], NULL);
	out_row_end();
}

static void print_poll(const struct pktstats_flowlat_key *key,
		       const struct pktstats_flowlat_flow *flow, int64_t at_ns)
{
	out_row_begin();
	out_time((uint64_t)(at_ns / NS_PER_S), (uint32_t)(at_ns % NS_PER_S));
	out_string("type", "poll");
	out_key(key);
	static const char *const event_only[] = {"ingress", "egress", "residence"};
	for (size_t i = 0; i < sizeof event_only / sizeof event_only[0]; i++)
		out_string(event_only[i], NULL);
	if (flow->found)
		out_uint("group", flow->group, NULL);
	else
		out_string("group", NULL);
	static const char *const event_only2[] = {"profile", "high", "low", "occupancy-bytes"};
	for (size_t i = 0; i < sizeof event_only2 / sizeof event_only2[0]; i++)
		out_string(event_only2[i], NULL);
	out_bool("found", flow->found);
	if (flow->found) {
		out_int("last-residence", flow->last_residence_ns, NULL);
		out_int("max-residence", flow->max_residence_ns, NULL);
		out_uint("packets", flow->packets, NULL);
		out_uint("age-us", (uint32_t)(flow->now_us - flow->last_seen_us), NULL);
		out_bool("breach", flow->breach);
	} else {
		out_string("last-residence", NULL);
		out_string("max-residence", NULL);
		out_string("packets", NULL);
		out_string("age-us", NULL);
		out_string("breach", NULL);
	}
	out_row_end();
}

static void print_summary(const struct watch_state *st)
{
	const struct watch_counters *c = &st->c;
	out_begin();
	out_string("type", "summary");
	out_string("device", st->cli->dev ? st->cli->device : NULL);
	if (st->have_domain)
		out_uint("observation-domain", st->domain, NULL);
	else
		out_string("observation-domain", NULL);
	const struct { const char *key; uint64_t value; } counters[] = {
		{"datagrams", c->datagrams},
		{"messages", c->messages},
		{"templates", c->templates},
		{"records", c->records},
		{"events", c->events},
		{"absolute-events", c->kinds[PKTSTATS_FLOWLAT_ABSOLUTE]},
		{"high-events", c->kinds[PKTSTATS_FLOWLAT_HIGH]},
		{"low-events", c->kinds[PKTSTATS_FLOWLAT_LOW]},
		{"malformed", c->malformed},
		{"records-missing", st->sequence.missing},
		{"sequence-errors", st->sequence.behind},
		{"resyncs", st->sequence.resyncs},
		{"kernel-drops", c->kernel_drops},
		{"other-domain", c->other_domain},
		{"in-breach", st->flow_count},
		{"not-watched", c->not_watched},
		{"evicted", c->evicted},
		{"lookups", c->lookups},
		{"lookups-failed", c->lookups_failed},
	};
	for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
		out_uint(counters[i].key, counters[i].value, NULL);
	out_end();
	out_flush();
}

/* ------------------------------------------------------------------------------------------ */
/* Messages and polls */

static void address_text(const struct sockaddr_in *from, char *text, size_t size)
{
	char ip[INET_ADDRSTRLEN] = "?";
	inet_ntop(AF_INET, &from->sin_addr, ip, sizeof ip);
	snprintf(text, size, "%s:%u", ip, ntohs(from->sin_port));
}

static void handle_event(struct watch_state *st, const struct pktstats_flowlat_event *e)
{
	st->c.events++;
	if (e->kind < 4)
		st->c.kinds[e->kind]++;
	print_event(e);
	if (e->kind == PKTSTATS_FLOWLAT_HIGH) {
		if (!watch_flow(st, &e->key) && !st->c.not_watched++)
			cli_say(st->cli, "%d flows in breach watched already: further ones are counted "
				"(not-watched), not read", WATCH_FLOWS_MAX);
	} else if (e->kind == PKTSTATS_FLOWLAT_LOW) {
		unwatch_flow(st, &e->key);
	}
	if (st->o->count && st->c.events >= st->o->count)
		st->done = true;
}

static void handle_datagram(struct watch_state *st, const uint8_t *data, size_t len,
			    const struct sockaddr_in *from)
{
	static struct pktstats_flowlat_event events[WATCH_EVENTS_MAX];
	struct pktstats_flowlat_message m;
	enum pktstats_flowlat_ipfix_error error = PKTSTATS_FLOWLAT_IPFIX_OK;
	char source[32];
	st->c.datagrams++;
	memset(&m, 0, sizeof m);
	int n = pktstats_flowlat_ipfix_parse(data, len, (uint32_t)st->o->enterprise_number, &m,
					     events, WATCH_EVENTS_MAX, &error);
	if (n < 0 || error != PKTSTATS_FLOWLAT_IPFIX_OK) {
		st->c.malformed++;
		if (st->c.malformed <= WATCH_MALFORMED_REPORTS) {
			address_text(from, source, sizeof source);
			const char *last = st->c.malformed == WATCH_MALFORMED_REPORTS
						   ? "; further malformed messages are only counted"
						   : "";
			cli_say(st->cli, "malformed IPFIX message from %s (%zu bytes): %s (%s)%s",
			    source, len,
			    n < 0 ? strerror(-n) : pktstats_flowlat_ipfix_strerror(error),
			    n < 0 ? "error" : pktstats_flowlat_ipfix_error_name(error), last);
		}
		return;
	}
	if (!st->have_domain) {
		st->have_domain = true;
		st->domain = m.observation_domain;
	} else if (m.observation_domain != st->domain) {
		if (!st->c.other_domain++) {
			address_text(from, source, sizeof source);
			cli_say(st->cli, "a message of observation domain %" PRIu32 " from %s: "
			    "following domain %" PRIu32 " (the first seen); messages of other "
			    "domains are counted and ignored", m.observation_domain, source,
			    st->domain);
		}
		return;
	}
	st->c.messages++;
	if (m.has_template)
		st->c.templates++;
	st->c.records += m.records;
	pktstats_flowlat_sequence_feed(&st->sequence, &m);
	for (int i = 0; i < n && !st->done; i++)
		handle_event(st, &events[i]);
}

/* One round of polls: every watched flow, by its 5-tuple. A flow the table no longer holds
 * was evicted in breach (docs/flowlat.md): its LOW never comes, so it is no longer watched. */
static void poll_flows(struct watch_state *st)
{
	for (size_t i = 0; i < st->flow_count && !st->failed; i++) {
		const struct pktstats_flowlat_key key_copy = st->flows[i], *key = &key_copy;
		struct pktstats_flowlat_flow flow;
		memset(&flow, 0, sizeof flow);
		int64_t at_ns = realtime_ns(); /* when the lookup was asked for */
		int err = pktstats_flowlat_lookup(st->cli->dev, key, &flow);
		if (err < 0) {
			st->c.lookups_failed++;
			char src[16], dst[16];
			format_ipv4(key->source_ip, src, sizeof src);
			format_ipv4(key->destination_ip, dst, sizeof dst);
			const char *detail = pktstats_error(st->cli->dev);
			cli_say(st->cli, "lookup of %s:%u > %s:%u protocol %u: %s", src,
			    key->source_port, dst, key->destination_port, key->protocol,
			    *detail ? detail : strerror(-err));
			if (++st->failures_in_a_row >= WATCH_LOOKUP_FAILURES) {
				cli_say(st->cli, "%d lookups in a row failed: stopping",
				    WATCH_LOOKUP_FAILURES);
				st->failed = true;
			}
			continue;
		}
		st->failures_in_a_row = 0;
		st->c.lookups++;
		print_poll(key, &flow, at_ns);
		if (!flow.found) {
			st->c.evicted++;
			remove_flow(st, find_slot(st, key)); /* the last flow comes to i */
			i--;
			update_timer(st);
		}
	}
}

/* ------------------------------------------------------------------------------------------ */
/* The loop */

static int open_socket(const struct watch_state *st)
{
	const struct watch_options *o = st->o;
	char where[32];
	struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)o->port),
				      .sin_addr = {htonl(o->listen)}};
	address_text(&address, where, sizeof where);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		cli_say(st->cli, "UDP socket: %s", strerror(errno));
		return -1;
	}
	int size = WATCH_RCVBUF, on = 1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size); /* as large as allowed */
	/* each datagram then carries the count of those the kernel dropped for want of room */
	setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on);
	if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) {
		cli_say(st->cli, "listen %s: %s", where, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads the datagrams waiting, up to WATCH_BATCH (the loop then looks at the signals and
 * the ticks before it takes more). false on a socket failure. */
static bool read_datagrams(struct watch_state *st, int fd)
{
	static uint8_t buffer[WATCH_DATAGRAM_MAX];
	for (int taken = 0; taken < WATCH_BATCH && !st->done; taken++) {
		struct sockaddr_in from;
		memset(&from, 0, sizeof from);
		struct iovec iov = {.iov_base = buffer, .iov_len = sizeof buffer};
		union { /* aligned for the control message */
			struct cmsghdr header;
			char bytes[CMSG_SPACE(sizeof(uint32_t))];
		} control;
		struct msghdr msg = {.msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov,
				     .msg_iovlen = 1, .msg_control = &control,
				     .msg_controllen = sizeof control};
		ssize_t len = recvmsg(fd, &msg, MSG_DONTWAIT);
		if (len < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				break;
			cli_say(st->cli, "receive: %s", strerror(errno));
			return false;
		}
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
				uint32_t dropped; /* the socket's count so far, wrapping */
				memcpy(&dropped, CMSG_DATA(c), sizeof dropped);
				st->c.kernel_drops += dropped - st->kernel_drops_seen;
				st->kernel_drops_seen = dropped;
			}
		handle_datagram(st, buffer, (size_t)len, &from);
		out_flush();
	}
	return true;
}

static int run_loop(struct watch_state *st, int udp_fd)
{
	const struct watch_options *o = st->o;
	sigset_t signals;
	sigemptyset(&signals);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGTERM);
	sigprocmask(SIG_BLOCK, &signals, NULL);
	int sfd = signalfd(-1, &signals, SFD_CLOEXEC);
	if (sfd < 0) {
		cli_say(st->cli, "signalfd: %s", strerror(errno));
		return CLI_RUNTIME;
	}
	struct pollfd fds[3] = {
		{.fd = sfd, .events = POLLIN},
		{.fd = udp_fd, .events = POLLIN},
		{.fd = st->timer_fd, .events = POLLIN}, /* -1 without a device: ignored by poll */
	};
	int64_t stop_at = o->duration_ns ? monotonic_now_ns() + (int64_t)o->duration_ns : -1;
	int status = CLI_OK;
	while (!st->done && !st->failed) {
		int timeout = -1;
		if (stop_at >= 0) {
			int64_t left = stop_at - monotonic_now_ns();
			if (left <= 0)
				break;
			timeout = (int)((left + NS_PER_MS - 1) / NS_PER_MS);
		}
		if (poll(fds, 3, timeout) < 0) {
			if (errno == EINTR)
				continue;
			cli_say(st->cli, "poll: %s", strerror(errno));
			status = CLI_RUNTIME;
			break;
		}
		if (fds[0].revents & POLLIN)
			break; /* SIGINT or SIGTERM: the summary, exit 0 */
		/* events first: a LOW that came stops its flow's polls */
		if ((fds[1].revents & POLLIN) && !read_datagrams(st, udp_fd)) {
			status = CLI_RUNTIME;
			break;
		}
		if (fds[2].revents & POLLIN) {
			uint64_t expirations;
			/* one round per tick; ticks missed while the lookups took longer are not
			 * made up for */
			if (read(st->timer_fd, &expirations, sizeof expirations) > 0 && !st->done &&
			    st->flow_count) {
				poll_flows(st);
				out_flush();
			}
		}
	}
	close(sfd);
	return st->failed ? CLI_RUNTIME : status;
}

int flowlat_watch(struct cli *cli, int argc, char **argv)
{
	struct watch_options o;
	int status = parse_options(cli, argc, argv, &o);
	if (status != CLI_OK)
		return status;
	struct watch_state st = {.o = &o, .cli = cli, .timer_fd = -1};
	if (cli->device) {
		if ((status = cli_open(cli, 0)) != CLI_OK)
			return status;
		struct pktstats_flowlat_status s;
		int err = pktstats_flowlat_status_get(cli->dev, &s);
		if (err < 0)
			return cli_fail_about(cli, err, "the flowlat block");
		st.timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (st.timer_fd < 0) {
			cli_say(cli, "timerfd: %s", strerror(errno));
			return CLI_RUNTIME;
		}
	}
	st.flows = malloc(WATCH_FLOWS_MAX * sizeof *st.flows);
	st.slots = malloc(WATCH_SLOTS * sizeof *st.slots);
	int fd = st.flows && st.slots ? open_socket(&st) : -1;
	if (!st.flows || !st.slots)
		cli_say(cli, "out of memory");
	if (fd < 0) {
		free(st.flows);
		free(st.slots);
		if (st.timer_fd >= 0)
			close(st.timer_fd);
		return CLI_RUNTIME;
	}
	char where[32], interval[32];
	struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)o.port),
				      .sin_addr = {htonl(o.listen)}};
	address_text(&address, where, sizeof where);
	format_duration(o.interval_ns, interval, sizeof interval);
	if (cli->dev)
		cli_say(cli, "listening on %s (UDP), enterprise number %" PRIu64 "; a flow in "
		    "breach is read from %s every %s", where, o.enterprise_number, cli->device,
		    interval);
	else
		cli_say(cli, "listening on %s (UDP), enterprise number %" PRIu64 "; no device (-d "
		    "DEVICE or PKTSTATS_DEVICE): events only, flows in breach are not read from "
		    "the switch", where, o.enterprise_number);

	memset(st.slots, 0xff, WATCH_SLOTS * sizeof *st.slots); /* -1: free */
	out_table_begin(NULL, columns, sizeof columns / sizeof columns[0]);
	out_flush();
	status = run_loop(&st, fd);
	out_table_end();
	print_summary(&st);
	close(fd);
	if (st.timer_fd >= 0)
		close(st.timer_fd);
	free(st.flows);
	free(st.slots);
	return status;
}
