/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: the configuration (config.h). The value parsers are the CLI's
 * (sw/tools/pktstats/args.h): whole words, exact, no silent truncation.
 */
#define _DEFAULT_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "config.h"
#include "pktstats/format.h"
#include "pktstats/oam.h"
#include "pktstats/sojourn.h"

#define NS_PER_S UINT64_C(1000000000)

/* The keywords that take one value, one bit each in config->given */
static const char *const single_keywords[] = {
	"config", "listen", "peak-window", "microburst-threshold", "retry-max", "scrape-timeout",
	"ipfix-listen", "ipfix-enterprise-number",
};
enum { SINGLE_COUNT = sizeof single_keywords / sizeof single_keywords[0] };

/* The keywords that add up */
static const char *const list_keywords[] = {"switch", "dm-two-way", "dm-one-way", "headroom"};
enum { LIST_COUNT = sizeof list_keywords / sizeof list_keywords[0] };

void exporter_config_defaults(struct exporter_config *c)
{
	memset(c, 0, sizeof *c);
	c->listen_port = EXPORTER_DEFAULT_PORT;
	c->peak_window_ns = 60 * NS_PER_S;
	c->burst_bytes = 8192;
	c->retry_max_ns = 30 * NS_PER_S;
	c->scrape_timeout_ns = 10 * NS_PER_S;
	c->ipfix_enterprise = 32473;
}

static int fail(char *error, size_t size, const char *where, const char *format, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *error, size_t size, const char *where, const char *format, ...)
{
	char message[512];
	va_list args;
	va_start(args, format);
	vsnprintf(message, sizeof message, format, args);
	va_end(args);
	snprintf(error, size, "%s%s", where, message);
	return -EINVAL;
}

/* "HOST:PORT", ":PORT" or "[IPV6]:PORT"; the host an IPv4 or IPv6 literal */
static const char *parse_address(const char *word, char *host, size_t host_size, uint16_t *port)
{
	const char *colon = strrchr(word, ':');
	if (!colon)
		return "not ADDRESS:PORT (127.0.0.1:9733, :9733, [::1]:9733)";
	size_t n = (size_t)(colon - word);
	char text[64];
	if (n >= sizeof text || n >= host_size)
		return "address too long";
	memcpy(text, word, n);
	text[n] = '\0';
	unsigned char binary[16];
	if (n >= 2 && text[0] == '[' && text[n - 1] == ']') {
		text[n - 1] = '\0';
		if (inet_pton(AF_INET6, text + 1, binary) != 1)
			return "not an IPv6 address between [ and ]";
		memmove(text, text + 1, n - 1);
	} else if (n && inet_pton(AF_INET, text, binary) != 1) {
		return "not an IPv4 address (or [IPv6])";
	}
	uint64_t number;
	const char *error = parse_number(colon + 1, 1, 65535, &number);
	if (error)
		return error;
	snprintf(host, host_size, "%s", text);
	*port = (uint16_t)number;
	return NULL;
}

/* A duration within [min, max]: the CLI's units, and for the long intervals of a service
 * minutes (min) and hours (h) */
static const char *parse_duration_in(const char *word, uint64_t min, uint64_t max,
				     uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t seconds;
	} long_units[] = {{"min", 60}, {"h", 3600}};
	const char *error = NULL;
	size_t n = strlen(word);
	bool done = false;
	for (size_t u = 0; u < sizeof long_units / sizeof long_units[0] && !done; u++) {
		size_t k = strlen(long_units[u].unit);
		char seconds[64];
		if (n <= k || n - k >= sizeof seconds - 1 || strcmp(word + n - k, long_units[u].unit))
			continue;
		snprintf(seconds, sizeof seconds, "%.*ss", (int)(n - k), word);
		error = parse_duration(seconds, ns);
		if (!error && *ns > UINT64_MAX / long_units[u].seconds)
			error = "duration too long";
		if (!error)
			*ns *= long_units[u].seconds;
		done = true;
	}
	if (!done)
		error = parse_duration(word, ns);
	if (error)
		return error;
	if (*ns < min || *ns > max) {
		static char why[96];
		char low[32], high[32];
		format_duration(min, low, sizeof low);
		format_duration(max, high, sizeof high);
		snprintf(why, sizeof why, "not between %s and %s", low, high);
		return why;
	}
	return NULL;
}

static const char *parse_name(const char *word, char *name, size_t size)
{
	if (!*word || strlen(word) >= size)
		return "a name is 1..31 characters";
	for (const char *p = word; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return "a name has letters, digits, '-', '_' and '.' only";
	snprintf(name, size, "%s", word);
	return NULL;
}

static const char *parse_interface(const char *word, char *name, size_t size)
{
	if (!*word || strlen(word) >= 16 || strlen(word) >= size || strpbrk(word, "/ \t:"))
		return "an interface name is 1..15 characters, no '/', ':' or blanks";
	snprintf(name, size, "%s", word);
	return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* NAME,KEY=VALUE,... */

#define SPEC_FIELDS_MAX 16

struct spec {
	char copy[EXPORTER_LINE_MAX];
	const char *name;
	const char *keys[SPEC_FIELDS_MAX];
	const char *values[SPEC_FIELDS_MAX];
	bool used[SPEC_FIELDS_MAX];
	size_t n;
};

/* Splits the value; every key must be one of known (a NULL-terminated list), each once. */
static const char *split_spec(const char *value, const char *const *known, struct spec *s)
{
	static char why[160];
	memset(s, 0, sizeof *s);
	if (strlen(value) >= sizeof s->copy)
		return "too long";
	snprintf(s->copy, sizeof s->copy, "%s", value);
	char *save = NULL;
	char *field = strtok_r(s->copy, ",", &save);
	if (!field || strchr(field, '='))
		return "starts with a name (NAME,KEY=VALUE,...)";
	s->name = field;
	while ((field = strtok_r(NULL, ",", &save))) {
		char *equals = strchr(field, '=');
		if (!equals) {
			snprintf(why, sizeof why, "'%.60s' is not KEY=VALUE", field);
			return why;
		}
		*equals = '\0';
		size_t k = 0;
		while (known[k] && strcmp(known[k], field))
			k++;
		if (!known[k]) {
			size_t n = 0;
			n += (size_t)snprintf(why, sizeof why, "unknown key '%.40s' (", field);
			for (size_t i = 0; known[i] && n < sizeof why; i++)
				n += (size_t)snprintf(why + n, sizeof why - n, "%s%s", i ? ", " : "",
						      known[i]);
			if (n < sizeof why)
				snprintf(why + n, sizeof why - n, ")");
			return why;
		}
		for (size_t i = 0; i < s->n; i++)
			if (!strcmp(s->keys[i], field)) {
				snprintf(why, sizeof why, "'%.40s' given twice", field);
				return why;
			}
		if (s->n == SPEC_FIELDS_MAX)
			return "too many keys";
		s->keys[s->n] = field;
		s->values[s->n++] = equals + 1;
	}
	return NULL;
}

static const char *spec_get(const struct spec *s, const char *key)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->keys[i], key))
			return s->values[i];
	return NULL;
}

/* The error of one key: "key 'value': why" */
static const char *key_error(const char *key, const char *value, const char *error)
{
	static char why[256];
	if (!error)
		return NULL;
	snprintf(why, sizeof why, "%s '%.60s': %s", key, value, error);
	return why;
}

static const char *spec_number(const struct spec *s, const char *key, uint64_t min,
			       uint64_t max, uint64_t *value)
{
	const char *word = spec_get(s, key);
	return word ? key_error(key, word, parse_number(word, min, max, value)) : NULL;
}

static const char *spec_duration(const struct spec *s, const char *key, uint64_t min,
				 uint64_t max, uint64_t *ns)
{
	const char *word = spec_get(s, key);
	return word ? key_error(key, word, parse_duration_in(word, min, max, ns)) : NULL;
}

static const char *spec_port(const struct spec *s, unsigned *port)
{
	const char *word = spec_get(s, "port");
	uint64_t number;
	if (!word)
		return "needs port=P (the MAC port, 0..3)";
	const char *error = key_error("port", word, parse_number(word, 0, 3, &number));
	if (!error)
		*port = (unsigned)number;
	return error;
}

static const char *spec_interface(const struct spec *s, char *name, size_t size)
{
	const char *word = spec_get(s, "interface");
	if (!word)
		return "needs interface=IFACE (the CPU port's network interface)";
	return key_error("interface", word, parse_interface(word, name, size));
}

static const char *parse_switch(struct exporter_config *c, const char *value)
{
	static const char *const known[] = {"device", "stat-interface", "stat-source",
					    "stat-port", "microburst-threshold", "queue-words",
					    "ipfix-domain", NULL};
	struct spec s;
	const char *error = split_spec(value, known, &s);
	if (error)
		return error;
	if (c->n_switches == EXPORTER_SWITCHES_MAX)
		return "too many switches (at most 64)";
	struct exporter_switch_config *w = &c->switches[c->n_switches];
	memset(w, 0, sizeof *w);
	w->stat_port = PKTSTATS_UDP_PORT;
	uint64_t number = 0;
	const char *word;
	if ((error = parse_name(s.name, w->name, sizeof w->name)))
		return error;
	if (exporter_config_switch(c, w->name) >= 0)
		return "a switch of that name is there already";
	if ((word = spec_get(&s, "device"))) {
		if (!*word || strlen(word) >= sizeof w->device)
			return "device: 1..255 characters";
		snprintf(w->device, sizeof w->device, "%s", word);
	}
	if ((word = spec_get(&s, "stat-interface")) &&
	    (error = key_error("stat-interface", word,
			       parse_interface(word, w->stat_interface, sizeof w->stat_interface))))
		return error;
	if ((word = spec_get(&s, "stat-source"))) {
		if ((error = key_error("stat-source", word, parse_ipv4(word, &w->stat_source))))
			return error;
		w->have_stat_source = true;
	}
	if ((error = spec_number(&s, "stat-port", 1, 65535, &number)))
		return error;
	if (spec_get(&s, "stat-port"))
		w->stat_port = (uint16_t)number;
	w->burst_bytes = UINT64_MAX; /* the global default, filled in by the check */
	if ((error = spec_number(&s, "microburst-threshold", 0, UINT64_C(1) << 32,
				 &w->burst_bytes)))
		return error;
	if ((error = spec_number(&s, "queue-words", 1, PKTSTATS_SOJOURN_MAX_QUEUE_WORDS,
				 &number)))
		return error;
	if (spec_get(&s, "queue-words"))
		w->queue_words = (uint32_t)number;
	if ((error = spec_number(&s, "ipfix-domain", 0, UINT32_MAX, &number)))
		return error;
	if (spec_get(&s, "ipfix-domain")) {
		w->ipfix_domain = (uint32_t)number;
		w->have_ipfix_domain = true;
		for (size_t k = 0; k < c->n_switches; k++)
			if (c->switches[k].have_ipfix_domain && c->switches[k].ipfix_domain == number)
				return "ipfix-domain: another switch's (each switch's monitor has a "
				       "domain of its own)";
	}
	if (!*w->device && !*w->stat_interface)
		return "needs device=DEVICE or stat-interface=IFACE (or both)";
	c->n_switches++;
	return NULL;
}

/* The fields every measurement has: SWITCH,port=P,interface=IFACE */
static const char *session_common(const struct spec *s, char *switch_name, unsigned *port,
				  char *interface, size_t interface_size)
{
	const char *error = parse_name(s->name, switch_name, EXPORTER_NAME_MAX);
	if (!error)
		error = spec_port(s, port);
	if (!error)
		error = spec_interface(s, interface, interface_size);
	return error;
}

static const char *parse_dm(struct exporter_config *c, const char *value)
{
	static const char *const known[] = {"port", "interface", "peer", "interval", "timeout",
					    "level", "vlan", "size", NULL};
	struct spec s;
	const char *error = split_spec(value, known, &s);
	if (error)
		return error;
	if (c->n_dm == EXPORTER_SESSIONS_MAX)
		return "too many sessions (at most 256)";
	struct exporter_dm_config *d = &c->dm[c->n_dm];
	memset(d, 0, sizeof *d);
	d->interval_ns = NS_PER_S;
	d->timeout_ns = NS_PER_S;
	uint64_t number;
	const char *word;
	if ((error = session_common(&s, d->switch_name, &d->port, d->interface,
				    sizeof d->interface)))
		return error;
	if (!(word = spec_get(&s, "peer")))
		return "needs peer=MAC (the peer MEP's address)";
	if ((error = key_error("peer", word, parse_mac(word, d->peer))) ||
	    (error = spec_duration(&s, "interval", 1000000, 3600 * NS_PER_S, &d->interval_ns)) ||
	    (error = spec_duration(&s, "timeout", 1000000, 60 * NS_PER_S, &d->timeout_ns)))
		return error;
	if ((error = spec_number(&s, "level", 0, 7, &number)))
		return error;
	if (spec_get(&s, "level"))
		d->level = (unsigned)number;
	if ((error = spec_number(&s, "vlan", 0, 4094, &number)))
		return error;
	if (spec_get(&s, "vlan")) {
		d->tagged = true;
		d->vid = (unsigned)number;
	}
	if ((error = spec_number(&s, "size", 60, 9022, &number)))
		return error;
	if (spec_get(&s, "size"))
		d->size = (unsigned)number;
	c->n_dm++;
	return NULL;
}

static const char *parse_one_way(struct exporter_config *c, const char *value)
{
	static const char *const known[] = {"port", "interface", NULL};
	struct spec s;
	const char *error = split_spec(value, known, &s);
	if (error)
		return error;
	if (c->n_one_way == EXPORTER_SESSIONS_MAX)
		return "too many sessions (at most 256)";
	struct exporter_one_way_config *o = &c->one_way[c->n_one_way];
	memset(o, 0, sizeof *o);
	if ((error = session_common(&s, o->switch_name, &o->port, o->interface,
				    sizeof o->interface)))
		return error;
	c->n_one_way++;
	return NULL;
}

static const char *parse_headroom(struct exporter_config *c, const char *value)
{
	static const char *const known[] = {"port", "interface", "rate", "interval", "timeout",
					    "count", "max-frame", "internal-bits", "pfc-response",
					    "buffer", NULL};
	struct spec s;
	const char *error = split_spec(value, known, &s);
	if (error)
		return error;
	if (c->n_headroom == EXPORTER_SESSIONS_MAX)
		return "too many sessions (at most 256)";
	struct exporter_headroom_config *h = &c->headroom[c->n_headroom];
	memset(h, 0, sizeof *h);
	h->interval_ns = 3600 * NS_PER_S;
	h->timeout_ns = NS_PER_S;
	h->count = 5;
	h->max_frame = PKTSTATS_PFC_MAX_FRAME_DEFAULT;
	uint64_t number;
	const char *word;
	if ((error = session_common(&s, h->switch_name, &h->port, h->interface,
				    sizeof h->interface)))
		return error;
	if (!(word = spec_get(&s, "rate")))
		return "needs rate=GBPS (the link's rate in Gb/s)";
	if ((error = key_error("rate", word, parse_rate_gbps(word, &h->rate_mbps))) ||
	    (error = spec_duration(&s, "interval", NS_PER_S, 7 * 86400 * NS_PER_S,
				   &h->interval_ns)) ||
	    (error = spec_duration(&s, "timeout", 1000000, 60 * NS_PER_S, &h->timeout_ns)))
		return error;
	if ((error = spec_number(&s, "count", 1, 1000, &number)))
		return error;
	if (spec_get(&s, "count"))
		h->count = (unsigned)number;
	if ((error = spec_number(&s, "max-frame", 60, 65535, &number)))
		return error;
	if (spec_get(&s, "max-frame"))
		h->max_frame = (uint32_t)number;
	const char *internal = spec_get(&s, "internal-bits"), *response = spec_get(&s, "pfc-response");
	if (internal && response)
		return "pfc-response and internal-bits give the same delay: choose one";
	if (internal) {
		if ((error = spec_number(&s, "internal-bits", 0, UINT64_C(1) << 40,
					 &h->internal_bits)))
			return error;
	} else if (response) {
		if ((error = spec_number(&s, "pfc-response", 0, UINT64_C(1) << 32, &number)))
			return error;
		h->internal_bits = (number * h->rate_mbps + 999) / 1000;
	} else if (h->rate_mbps == 100000) {
		h->internal_bits = PKTSTATS_PFC_INTERNAL_BITS_100G;
	} else {
		return "no default internal delay at this rate (known: 100 Gb/s): give "
		       "internal-bits=BITS or pfc-response=NS";
	}
	if ((error = spec_number(&s, "buffer", 1, UINT64_C(1) << 40, &h->buffer_bytes)))
		return error;
	h->have_buffer = spec_get(&s, "buffer") != NULL;
	c->n_headroom++;
	return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Keywords */

static const char *apply_single(struct exporter_config *c, const char *keyword,
				const char *value)
{
	uint64_t number;
	const char *error = NULL;
	if (!strcmp(keyword, "listen")) {
		error = parse_address(value, c->listen_host, sizeof c->listen_host, &c->listen_port);
	} else if (!strcmp(keyword, "ipfix-listen")) {
		error = parse_address(value, c->ipfix_listen_host, sizeof c->ipfix_listen_host,
				      &c->ipfix_listen_port);
	} else if (!strcmp(keyword, "peak-window")) {
		error = parse_duration_in(value, NS_PER_S, 86400 * NS_PER_S, &c->peak_window_ns);
	} else if (!strcmp(keyword, "retry-max")) {
		error = parse_duration_in(value, 100000000, 3600 * NS_PER_S, &c->retry_max_ns);
	} else if (!strcmp(keyword, "scrape-timeout")) {
		error = parse_duration_in(value, 100000000, 600 * NS_PER_S, &c->scrape_timeout_ns);
	} else if (!strcmp(keyword, "microburst-threshold")) {
		error = parse_number(value, 0, UINT64_C(1) << 32, &c->burst_bytes);
	} else if (!strcmp(keyword, "ipfix-enterprise-number")) {
		if (!(error = parse_number(value, 0, UINT32_MAX, &number)))
			c->ipfix_enterprise = (uint32_t)number;
	}
	return error;
}

static const char *apply_list(struct exporter_config *c, const char *keyword, const char *value,
			      const char *where)
{
	const char *error;
	if (!strcmp(keyword, "switch"))
		return parse_switch(c, value);
	if (!strcmp(keyword, "dm-two-way")) {
		if (!(error = parse_dm(c, value)))
			snprintf(c->dm_where[c->n_dm - 1], EXPORTER_WHERE_MAX, "%s", where);
	} else if (!strcmp(keyword, "dm-one-way")) {
		if (!(error = parse_one_way(c, value)))
			snprintf(c->one_way_where[c->n_one_way - 1], EXPORTER_WHERE_MAX, "%s", where);
	} else if (!(error = parse_headroom(c, value))) {
		snprintf(c->headroom_where[c->n_headroom - 1], EXPORTER_WHERE_MAX, "%s", where);
	}
	return error;
}

/* One KEYWORD VALUE. where: "FILE:LINE: " or "argument 'WORD': "; given_here: the single
 * keywords this source (the command line, or this file) gave so far. */
static int apply(struct exporter_config *c, const char *keyword, const char *value,
		 bool command_line, unsigned *given_here, const char *where, char *error,
		 size_t size)
{
	for (unsigned k = 0; k < LIST_COUNT; k++) {
		if (strcmp(keyword, list_keywords[k]))
			continue;
		if (!value)
			return fail(error, size, where, "'%s' needs a value", keyword);
		const char *why = apply_list(c, keyword, value, where);
		return why ? fail(error, size, where, "%s '%s': %s", keyword, value, why) : 0;
	}
	unsigned k = 0;
	while (k < SINGLE_COUNT && strcmp(single_keywords[k], keyword))
		k++;
	if (k == SINGLE_COUNT)
		return fail(error, size, where, "unknown keyword '%s' (see pktstats-exporter --help)",
			    keyword);
	if (!value)
		return fail(error, size, where, "'%s' needs a value", keyword);
	if (!command_line && !strcmp(keyword, "config"))
		return fail(error, size, where, "a config file cannot name another");
	if (*given_here & 1u << k)
		return fail(error, size, where, "'%s' given twice", keyword);
	*given_here |= 1u << k;
	if (!command_line && c->given_on_command_line & 1u << k)
		return 0; /* the command line wins */
	if (!strcmp(keyword, "config"))
		return 0;
	const char *why = apply_single(c, keyword, value);
	return why ? fail(error, size, where, "%s '%s': %s", keyword, value, why) : 0;
}

int exporter_config_parse_text(struct exporter_config *c, const char *text, size_t len,
			       const char *name, char *error, size_t size)
{
	unsigned given = 0; /* this file's single keywords */
	size_t at = 0;
	for (unsigned number = 1; at < len; number++) {
		char where[320], line[EXPORTER_LINE_MAX + 1];
		snprintf(where, sizeof where, "%.256s:%u: ", name, number);
		const char *end = memchr(text + at, '\n', len - at);
		size_t n = end ? (size_t)(end - (text + at)) : len - at;
		if (n > EXPORTER_LINE_MAX)
			return fail(error, size, where, "line longer than %d characters",
				    EXPORTER_LINE_MAX);
		memcpy(line, text + at, n);
		line[n] = '\0';
		at += n + (end ? 1 : 0);
		if (memchr(line, '\0', n))
			return fail(error, size, where, "a NUL byte in the line");
		line[strcspn(line, "#\r")] = '\0';
		char *save = NULL;
		char *keyword = strtok_r(line, " \t", &save);
		if (!keyword)
			continue;
		char *value = strtok_r(NULL, " \t", &save);
		char *extra = strtok_r(NULL, " \t", &save);
		int err = extra ? fail(error, size, where, "'%s' takes one value ('%s' is one too "
					"many)", keyword, extra)
				: apply(c, keyword, value, false, &given, where, error, size);
		if (err < 0)
			return err;
	}
	return 0;
}

int exporter_config_parse_args(struct exporter_config *c, int argc, char **argv,
			       const char **config_path, char *error, size_t size)
{
	*config_path = NULL;
	for (int i = 0; i < argc; i += 2) {
		char where[96];
		snprintf(where, sizeof where, "argument '%.60s': ", argv[i]);
		const char *value = i + 1 < argc ? argv[i + 1] : NULL;
		int err = apply(c, argv[i], value, true, &c->given_on_command_line, where, error,
				size);
		if (err < 0)
			return err;
		if (!strcmp(argv[i], "config"))
			*config_path = value;
	}
	return 0;
}

int exporter_config_read_file(struct exporter_config *c, const char *path, char *error,
			      size_t size)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		int err = errno;
		snprintf(error, size, "%s: %s", path, strerror(err));
		return -err;
	}
	char *text = malloc(EXPORTER_CONFIG_BYTES_MAX + 1);
	if (!text) {
		fclose(f);
		snprintf(error, size, "%s: out of memory", path);
		return -ENOMEM;
	}
	size_t len = fread(text, 1, EXPORTER_CONFIG_BYTES_MAX + 1, f);
	int read_error = ferror(f);
	fclose(f);
	int err;
	if (read_error) {
		snprintf(error, size, "%s: cannot read it", path);
		err = -EIO;
	} else if (len > EXPORTER_CONFIG_BYTES_MAX) {
		snprintf(error, size, "%s: larger than %d bytes", path, EXPORTER_CONFIG_BYTES_MAX);
		err = -EINVAL;
	} else {
		err = exporter_config_parse_text(c, text, len, path, error, size);
	}
	free(text);
	return err;
}

int exporter_config_switch(const struct exporter_config *c, const char *name)
{
	for (size_t i = 0; i < c->n_switches; i++)
		if (!strcmp(c->switches[i].name, name))
			return (int)i;
	return -1;
}

/* A measurement's switch must exist; two sessions on one interface would take each other's
 * frames. where: the session's line. */
static int check_session(const struct exporter_config *c, const char *where, const char *kind,
			 const char *switch_name, const char *interface,
			 const char *other_interface, char *error, size_t size)
{
	if (exporter_config_switch(c, switch_name) < 0)
		return fail(error, size, where, "%s: no switch named '%s'", kind, switch_name);
	if (other_interface && !strcmp(interface, other_interface))
		return fail(error, size, where, "%s: interface %s is another session's", kind,
			    interface);
	return 0;
}

int exporter_config_check(const struct exporter_config *c, char *error, size_t size)
{
	int err = 0;
	for (size_t i = 0; err == 0 && i < c->n_dm; i++) {
		err = check_session(c, c->dm_where[i], "dm-two-way", c->dm[i].switch_name,
				    c->dm[i].interface, NULL, error, size);
		for (size_t k = 0; err == 0 && k < i; k++)
			err = check_session(c, c->dm_where[i], "dm-two-way", c->dm[i].switch_name,
					    c->dm[i].interface, c->dm[k].interface, error, size);
	}
	for (size_t i = 0; err == 0 && i < c->n_one_way; i++) {
		const char *where = c->one_way_where[i], *name = c->one_way[i].switch_name;
		const char *interface = c->one_way[i].interface;
		err = check_session(c, where, "dm-one-way", name, interface, NULL, error, size);
		for (size_t k = 0; err == 0 && k < c->n_dm; k++)
			err = check_session(c, where, "dm-one-way", name, interface,
					    c->dm[k].interface, error, size);
		for (size_t k = 0; err == 0 && k < i; k++)
			err = check_session(c, where, "dm-one-way", name, interface,
					    c->one_way[k].interface, error, size);
	}
	for (size_t i = 0; err == 0 && i < c->n_headroom; i++) {
		const struct exporter_headroom_config *h = &c->headroom[i];
		err = check_session(c, c->headroom_where[i], "headroom", h->switch_name,
				    h->interface, NULL, error, size);
		for (size_t k = 0; err == 0 && k < i; k++)
			if (!strcmp(h->switch_name, c->headroom[k].switch_name) &&
			    h->port == c->headroom[k].port)
				err = fail(error, size, c->headroom_where[i], "headroom: switch %s "
					   "port %u is measured twice", h->switch_name, h->port);
	}
	return err;
}
