/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: the flow monitors' IPFIX messages (docs/flowlat.md), received on one UDP
 * socket by a thread of its own and counted per switch (measurements.h).
 *
 * Every datagram is one message, parsed by the library (pktstats_flowlat_ipfix_parse: the
 * block's template 256 with the configured enterprise number, every field within what the block
 * can send, else "impossible_field"); none of a malformed message's records is counted. A
 * message's observation domain names its switch (the switches with
 * ipfix-domain=); a malformed message is counted under its switch when its header (version 10)
 * names one, else without; a good message of a domain no switch has is counted as such.
 *
 * Per switch, of its good messages: messages, records, events by kind, profile and group (only
 * the label sets that occurred), and the records missing by the sequence numbers (RFC 7011:
 * the data records sent before the message; pktstats_flowlat_sequence_feed): a message whose
 * sequence is ahead of the records counted so far by 1..1364 records (what one message can
 * hold) counts them missing; any other jump, back (the exporter restarted, a duplicate) or
 * beyond that, is a resynchronisation: counted, nothing missing, followed from there. A
 * malformed message
 * leaves the sequence where it was (its records, if any, are missing at the next good one).
 *
 * Memory is fixed at start (one datagram, the records of one, the switches' table), whatever
 * arrives. ipfix_listener_set_switches() keeps the figures of the switches that stay (by name;
 * one whose domain changed follows its sequence afresh). Render copies the figures under the
 * listener's lock.
 */
#define _DEFAULT_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "measure_common.h"
#include "measurements.h"
#include "pktstats/flowlat.h"

#define IPFIX_DATAGRAM_MAX 65536
#define IPFIX_EVENTS_MAX (IPFIX_DATAGRAM_MAX / PKTSTATS_FLOWLAT_RECORD_LENGTH + 1)
#define IPFIX_HEADER 16
#define IPFIX_VERSION 10
#define IPFIX_RCVBUF (4 << 20)
#define IPFIX_KINDS 3        /* absolute, high, low */
#define IPFIX_PROFILES PKTSTATS_FLOWLAT_PROFILES
#define IPFIX_GROUPS PKTSTATS_FLOWLAT_RULES
/* the parser's reasons (index = enum pktstats_flowlat_ipfix_error) */
#define IPFIX_REASONS (PKTSTATS_FLOWLAT_IPFIX_IMPOSSIBLE_FIELD + 1)

struct ipfix_switch {
	char name[EXPORTER_NAME_MAX];
	uint32_t domain;
	struct pktstats_flowlat_sequence sequence; /* records missing: its `missing` */
	uint64_t messages, records, resyncs; /* resyncs: the sequence's jumps back too */
	uint64_t malformed[IPFIX_REASONS];
	uint64_t events[IPFIX_KINDS][IPFIX_PROFILES][IPFIX_GROUPS];
};

/* Everything render shows, copied at once */
struct ipfix_figures {
	struct ipfix_switch switches[EXPORTER_SWITCHES_MAX];
	size_t n;
	uint64_t unknown_domain;
	uint64_t malformed[IPFIX_REASONS]; /* of no known switch */
};

struct ipfix_listener {
	int fd, stop_fd;
	uint32_t enterprise;
	char where[96];
	pthread_t thread;
	pthread_mutex_t lock;
	struct ipfix_figures figures; /* under lock */
	/* the thread's own */
	uint8_t *datagram;
	struct pktstats_flowlat_event *events;
};

static const char *reason_name(unsigned reason)
{
	return pktstats_flowlat_ipfix_error_name((enum pktstats_flowlat_ipfix_error)reason);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static struct ipfix_switch *switch_of(struct ipfix_figures *f, uint32_t domain)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->switches[i].domain == domain)
			return &f->switches[i];
	return NULL;
}

static void take(struct ipfix_listener *l, const uint8_t *data, size_t len)
{
	struct pktstats_flowlat_message m;
	enum pktstats_flowlat_ipfix_error error = PKTSTATS_FLOWLAT_IPFIX_OK;
	int n = pktstats_flowlat_ipfix_parse(data, len, l->enterprise, &m, l->events,
					     IPFIX_EVENTS_MAX, &error);
	unsigned reason = n < 0 ? PKTSTATS_FLOWLAT_IPFIX_TRUNCATED : (unsigned)error;
	/* the domain, when the header is an IPFIX one: a version 9 header has another field
	 * there */
	bool header = len >= IPFIX_HEADER && data[0] == 0 && data[1] == IPFIX_VERSION;
	pthread_mutex_lock(&l->lock);
	struct ipfix_figures *f = &l->figures;
	struct ipfix_switch *s = header ? switch_of(f, get32(data + 12)) : NULL;
	if (reason != PKTSTATS_FLOWLAT_IPFIX_OK) {
		(s ? s->malformed : f->malformed)[reason]++;
	} else if (!s) {
		f->unknown_domain++;
	} else {
		s->messages++;
		s->records += m.records;
		pktstats_flowlat_sequence_feed(&s->sequence, &m);
		s->resyncs = s->sequence.resyncs + s->sequence.behind;
		for (int i = 0; i < n; i++) {
			const struct pktstats_flowlat_event *e = &l->events[i];
			s->events[e->kind - 1][e->profile][e->group]++;
		}
	}
	pthread_mutex_unlock(&l->lock);
}

static void *run(void *argument)
{
	struct ipfix_listener *l = argument;
	struct measure_log log = {{0}};
	for (;;) {
		struct pollfd p[2] = {{.fd = l->fd, .events = POLLIN},
				      {.fd = l->stop_fd, .events = POLLIN}};
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break; /* cannot happen with these descriptors */
		if (p[1].revents)
			break;
		if (!p[0].revents)
			continue;
		for (;;) {
			ssize_t got = recv(l->fd, l->datagram, IPFIX_DATAGRAM_MAX, MSG_DONTWAIT);
			if (got >= 0) {
				take(l, l->datagram, (size_t)got);
				continue;
			}
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EINTR)
				continue;
			/* an ICMP error queued on the socket and the like: said, then go on a
			 * second later (a socket that keeps failing must not spin) */
			char text[128];
			snprintf(text, sizeof text, "receiving: %s", strerror(errno));
			measure_log_failure(&log, l->where, text, "going on in 1 s");
			if (measure_wait(l->stop_fd, measure_monotonic_ns() + MEASURE_NS_PER_S))
				return NULL;
			break;
		}
	}
	return NULL;
}

/* The IPv4 address of host ("" any), numeric or by name */
static int resolve(const char *host, struct in_addr *address)
{
	if (!*host) {
		address->s_addr = htonl(INADDR_ANY);
		return 0;
	}
	if (inet_pton(AF_INET, host, address) == 1)
		return 0;
	struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM}, *found;
	int err = getaddrinfo(host, NULL, &hints, &found);
	if (err) {
		exporter_log("ipfix-listen %s: %s", host, gai_strerror(err));
		return -EADDRNOTAVAIL;
	}
	*address = ((const struct sockaddr_in *)found->ai_addr)->sin_addr;
	freeaddrinfo(found);
	return 0;
}

static void listener_free(struct ipfix_listener *l)
{
	if (l->fd >= 0)
		close(l->fd);
	if (l->stop_fd >= 0)
		close(l->stop_fd);
	free(l->datagram);
	free(l->events);
	free(l);
}

int ipfix_listener_start(struct ipfix_listener **listener, const char *host, uint16_t port,
			 uint32_t enterprise)
{
	struct ipfix_listener *l = calloc(1, sizeof *l);
	if (!l)
		return -ENOMEM;
	l->fd = l->stop_fd = -1;
	l->enterprise = enterprise;
	snprintf(l->where, sizeof l->where, "ipfix-listen %s:%u", host, (unsigned)port);
	l->datagram = malloc(IPFIX_DATAGRAM_MAX);
	l->events = calloc(IPFIX_EVENTS_MAX, sizeof *l->events);
	struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
	int err = l->datagram && l->events ? resolve(host, &address.sin_addr) : -ENOMEM;
	if (err == 0) {
		l->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (l->fd < 0)
			err = -errno;
	}
	if (err == 0) {
		int size = IPFIX_RCVBUF;
		/* as large as allowed: bursts of messages wait there */
		setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
		if (bind(l->fd, (struct sockaddr *)&address, sizeof address) < 0)
			err = -errno;
	}
	if (err == 0 && (err = measure_stop_open()) >= 0) {
		l->stop_fd = err;
		err = 0;
	}
	if (err < 0) {
		listener_free(l);
		return err;
	}
	pthread_mutex_init(&l->lock, NULL);
	err = pthread_create(&l->thread, NULL, run, l);
	if (err) {
		pthread_mutex_destroy(&l->lock);
		listener_free(l);
		return -err;
	}
	exporter_log("%s: listening for IPFIX (UDP), enterprise number %u", l->where,
		     (unsigned)enterprise);
	*listener = l;
	return 0;
}

void ipfix_listener_stop(struct ipfix_listener *l)
{
	if (!l)
		return;
	measure_stop(l->stop_fd);
	pthread_join(l->thread, NULL);
	pthread_mutex_destroy(&l->lock);
	listener_free(l);
}

void ipfix_listener_set_switches(struct ipfix_listener *l, const struct exporter_config *config)
{
	/* built aside (the table is large), then swapped in under the lock */
	struct ipfix_switch *next = calloc(EXPORTER_SWITCHES_MAX, sizeof *next);
	if (!next) {
		exporter_log("%s: out of memory: the switches' observation domains are not "
			     "changed", l->where);
		return;
	}
	pthread_mutex_lock(&l->lock);
	struct ipfix_figures *f = &l->figures;
	size_t n = 0;
	for (size_t i = 0; i < config->n_switches && n < EXPORTER_SWITCHES_MAX; i++) {
		const struct exporter_switch_config *c = &config->switches[i];
		if (!c->have_ipfix_domain)
			continue;
		struct ipfix_switch *s = &next[n++];
		for (size_t k = 0; k < f->n; k++)
			if (!strcmp(f->switches[k].name, c->name))
				*s = f->switches[k]; /* its figures go on */
		if (s->domain != c->ipfix_domain)
			s->sequence.started = false; /* another exporter's sequence */
		snprintf(s->name, sizeof s->name, "%s", c->name);
		s->domain = c->ipfix_domain;
	}
	memcpy(f->switches, next, n * sizeof *next);
	f->n = n;
	pthread_mutex_unlock(&l->lock);
	free(next);
}

EXPO_FAMILY(latency_events, "pktstats_flowlat_latency_events", EXPO_COUNTER, NULL,
            "The flow monitor's latency events received as IPFIX, by kind (absolute, high, low), "
            "profile and group.");
EXPO_FAMILY(messages, "pktstats_ipfix_messages_received", EXPO_COUNTER, NULL,
            "IPFIX messages received from the switch's flow monitor (by observation domain).");
EXPO_FAMILY(records, "pktstats_ipfix_records_received", EXPO_COUNTER, NULL,
            "Data records in those messages.");
EXPO_FAMILY(missing, "pktstats_ipfix_records_missing", EXPO_COUNTER, NULL,
            "Data records missing by the messages' sequence numbers (gaps of up to 1364, what one "
            "message can hold).");
EXPO_FAMILY(resyncs, "pktstats_ipfix_sequence_resyncs", EXPO_COUNTER, NULL,
            "Times the sequence numbers jumped back or beyond 1364 records: followed afresh, "
            "nothing counted missing.");
EXPO_FAMILY(malformed, "pktstats_ipfix_messages_malformed", EXPO_COUNTER, NULL,
            "IPFIX messages refused, by the parser's reason (impossible_field: a value the flow "
            "monitor cannot send); with the switch when the header names a known one.");
EXPO_FAMILY(unknown_domain, "pktstats_ipfix_messages_unknown_domain", EXPO_COUNTER, NULL,
            "IPFIX messages of an observation domain no switch has (ipfix-domain=).");

static const char *const kind_names[IPFIX_KINDS] = {"absolute", "high", "low"};

/* A per-switch counter: the value at offset in each switch's figures */
static void switch_counter(struct exposition *e, const struct expo_family *family,
			   const struct ipfix_figures *f, size_t offset)
{
	struct expo_labels l;
	expo_family(e, family);
	for (size_t i = 0; i < f->n; i++) {
		expo_labels(&l, "switch", f->switches[i].name, NULL);
		expo_counter(e, &l, *(const uint64_t *)((const char *)&f->switches[i] + offset));
	}
}

void ipfix_listener_render(struct exposition *e, struct ipfix_listener *listener)
{
	struct ipfix_figures *f = malloc(sizeof *f);
	struct expo_labels l;
	if (!f) {
		e->failed = true;
		return;
	}
	pthread_mutex_lock(&listener->lock);
	*f = listener->figures;
	pthread_mutex_unlock(&listener->lock);
	expo_family(e, &latency_events);
	for (size_t i = 0; i < f->n; i++)
		for (unsigned k = 0; k < IPFIX_KINDS; k++)
			for (unsigned p = 0; p < IPFIX_PROFILES; p++)
				for (unsigned g = 0; g < IPFIX_GROUPS; g++) {
					uint64_t count = f->switches[i].events[k][p][g];
					char profile[4], group[4];
					if (!count)
						continue;
					snprintf(profile, sizeof profile, "%u", p);
					snprintf(group, sizeof group, "%u", g);
					expo_labels(&l, "switch", f->switches[i].name,
						    "kind", kind_names[k], "profile", profile,
						    "group", group, NULL);
					expo_counter(e, &l, count);
				}
	switch_counter(e, &messages, f, offsetof(struct ipfix_switch, messages));
	switch_counter(e, &records, f, offsetof(struct ipfix_switch, records));
	switch_counter(e, &missing, f, offsetof(struct ipfix_switch, sequence.missing));
	switch_counter(e, &resyncs, f, offsetof(struct ipfix_switch, resyncs));
	expo_family(e, &malformed);
	for (unsigned r = 1; r < IPFIX_REASONS; r++) {
		expo_labels(&l, "reason", reason_name(r), NULL);
		expo_counter(e, &l, f->malformed[r]);
	}
	for (size_t i = 0; i < f->n; i++)
		for (unsigned r = 1; r < IPFIX_REASONS; r++) {
			expo_labels(&l, "switch", f->switches[i].name, "reason", reason_name(r),
				    NULL);
			expo_counter(e, &l, f->switches[i].malformed[r]);
		}
	expo_family(e, &unknown_domain);
	expo_counter(e, NULL, f->unknown_domain);
	free(f);
}
