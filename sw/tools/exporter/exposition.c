/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: the exposition writer and the Accept header's negotiation
 * (exposition.h).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exposition.h"

const char *expo_content_type(enum expo_format format)
{
	return format == EXPO_OPENMETRICS_1_0_0
		       ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
		       : "text/plain; version=0.0.4; charset=utf-8";
}

/* ------------------------------------------------------------------------------------------ */
/* Negotiation */

/* Skips blanks (RFC 9110's OWS) */
static const char *blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A quality value "0", "0.5", "1", "1.000": thousandths, or -1 when it does not parse */
static int parse_quality(const char *p, size_t n)
{
	if (n == 0 || (p[0] != '0' && p[0] != '1'))
		return -1;
	int q = (p[0] - '0') * 1000;
	if (n == 1)
		return q;
	if (p[1] != '.' || n > 5)
		return -1;
	int scale = 100;
	for (size_t i = 2; i < n; i++, scale /= 10) {
		if (!isdigit((unsigned char)p[i]))
			return -1;
		q += (p[i] - '0') * scale;
	}
	return q > 1000 ? -1 : q;
}

/* Whether [p, p + n) equals word, ignoring case */
static bool equals(const char *p, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(p, word, n) == 0;
}

enum expo_format expo_negotiate(const char *accept)
{
	/* The best quality (thousandths) given to each format; -1: not accepted */
	int openmetrics = -1, text = -1;
	if (!accept)
		return EXPO_TEXT_0_0_4;
	const char *p = accept;
	while (*p) {
		/* one media range: type/subtype *( ";" parameter ) */
		p = blanks(p);
		const char *range = p;
		while (*p && *p != ';' && *p != ',' && *p != ' ' && *p != '\t')
			p++;
		size_t range_n = (size_t)(p - range);
		int quality = 1000;
		const char *version = NULL;
		size_t version_n = 0;
		p = blanks(p);
		while (*p == ';') {
			p = blanks(p + 1);
			const char *name = p;
			while (*p && *p != '=' && *p != ';' && *p != ',')
				p++;
			size_t name_n = (size_t)(p - name);
			while (name_n && (name[name_n - 1] == ' ' || name[name_n - 1] == '\t'))
				name_n--;
			const char *value = NULL;
			size_t value_n = 0;
			if (*p == '=') {
				value = p = blanks(p + 1);
				while (*p && *p != ';' && *p != ',')
					p++;
				value_n = (size_t)(p - value);
				while (value_n && (value[value_n - 1] == ' ' ||
						   value[value_n - 1] == '\t'))
					value_n--;
			}
			if (value && equals(name, name_n, "q"))
				quality = parse_quality(value, value_n);
			else if (value && equals(name, name_n, "version")) {
				version = value;
				version_n = value_n;
			}
		}
		if (*p && *p != ',')
			return EXPO_TEXT_0_0_4; /* does not parse: the safe answer */
		if (*p == ',')
			p++;
		if (quality < 0)
			continue; /* a range with a bad quality is ignored */
		if (equals(range, range_n, "application/openmetrics-text")) {
			if ((!version || equals(version, version_n, "1.0.0") ||
			     equals(version, version_n, "0.0.1")) && quality > openmetrics)
				openmetrics = quality;
		} else if (equals(range, range_n, "text/plain") || equals(range, range_n, "text/*") ||
			   equals(range, range_n, "*/*")) {
			if (quality > text)
				text = quality;
		}
	}
	return openmetrics > 0 && openmetrics >= text ? EXPO_OPENMETRICS_1_0_0 : EXPO_TEXT_0_0_4;
}

/* ------------------------------------------------------------------------------------------ */
/* Labels */

void expo_label_add(struct expo_labels *l, const char *name, const char *value)
{
	char escaped[EXPO_LABELS_MAX];
	size_t n = 0;
	for (const char *v = value; *v && n + 2 < sizeof escaped; v++) {
		if (*v == '\\' || *v == '"') {
			escaped[n++] = '\\';
			escaped[n++] = *v;
		} else if (*v == '\n') {
			escaped[n++] = '\\';
			escaped[n++] = 'n';
		} else {
			escaped[n++] = *v;
		}
	}
	escaped[n] = '\0';
	int wrote = snprintf(l->text + l->length, sizeof l->text - l->length, "%s%s=\"%s\"",
			     l->length ? "," : "", name, escaped);
	if (wrote < 0 || (size_t)wrote >= sizeof l->text - l->length) {
		l->truncated = true;
		l->text[l->length] = '\0';
		return;
	}
	l->length += (size_t)wrote;
}

void expo_labels(struct expo_labels *l, ...)
{
	l->length = 0;
	l->text[0] = '\0';
	l->truncated = false;
	va_list args;
	va_start(args, l);
	for (;;) {
		const char *name = va_arg(args, const char *);
		if (!name)
			break;
		expo_label_add(l, name, va_arg(args, const char *));
	}
	va_end(args);
}

/* ------------------------------------------------------------------------------------------ */
/* Text */

void expo_init(struct exposition *e, enum expo_format format)
{
	memset(e, 0, sizeof *e);
	e->format = format;
}

void expo_free(struct exposition *e)
{
	free(e->text);
	e->text = NULL;
	e->length = e->capacity = 0;
}

static void append(struct exposition *e, const char *text, size_t n)
{
	if (e->failed)
		return;
	if (e->length + n + 1 > e->capacity) {
		size_t capacity = e->capacity ? e->capacity : 65536;
		while (capacity < e->length + n + 1)
			capacity *= 2;
		char *grown = realloc(e->text, capacity);
		if (!grown) {
			e->failed = true;
			return;
		}
		e->text = grown;
		e->capacity = capacity;
	}
	memcpy(e->text + e->length, text, n);
	e->length += n;
	e->text[e->length] = '\0';
}

void expo_printf(struct exposition *e, const char *format, ...)
{
	char line[1024];
	va_list args;
	va_start(args, format);
	int n = vsnprintf(line, sizeof line, format, args);
	va_end(args);
	if (n < 0)
		return;
	if ((size_t)n < sizeof line) {
		append(e, line, (size_t)n);
		return;
	}
	char *long_line = malloc((size_t)n + 1);
	if (!long_line) {
		e->failed = true;
		return;
	}
	va_start(args, format);
	vsnprintf(long_line, (size_t)n + 1, format, args);
	va_end(args);
	append(e, long_line, (size_t)n);
	free(long_line);
}

void expo_finish(struct exposition *e)
{
	if (e->format == EXPO_OPENMETRICS_1_0_0)
		append(e, "# EOF\n", 6);
}

/* HELP text: backslash and newline escaped in both formats, the double quote too in
 * OpenMetrics */
static void append_help(struct exposition *e, const char *help)
{
	for (const char *p = help; *p; p++) {
		if (*p == '\\')
			append(e, "\\\\", 2);
		else if (*p == '\n')
			append(e, "\\n", 2);
		else if (*p == '"' && e->format == EXPO_OPENMETRICS_1_0_0)
			append(e, "\\\"", 2);
		else
			append(e, p, 1);
	}
}

static const char *type_name(enum expo_type type, enum expo_format format)
{
	switch (type) {
	case EXPO_COUNTER:
		return "counter";
	case EXPO_HISTOGRAM:
		return "histogram";
	case EXPO_INFO:
		return format == EXPO_OPENMETRICS_1_0_0 ? "info" : "gauge";
	case EXPO_GAUGE:
		break;
	}
	return "gauge";
}

/* The family's name in its header lines: text 0.0.4 names a counter family by its samples'
 * name (with _total) and an info metric by *_info. */
static void family_name(const struct exposition *e, char *name, size_t size)
{
	const struct expo_family *f = e->family;
	const char *suffix = "";
	if (e->format == EXPO_TEXT_0_0_4)
		suffix = f->type == EXPO_COUNTER ? "_total" : f->type == EXPO_INFO ? "_info" : "";
	snprintf(name, size, "%s%s", f->name, suffix);
}

void expo_family(struct exposition *e, const struct expo_family *family)
{
	char name[256];
	e->family = family;
	family_name(e, name, sizeof name);
	if (e->format == EXPO_OPENMETRICS_1_0_0) {
		expo_printf(e, "# TYPE %s %s\n", name, type_name(family->type, e->format));
		if (family->unit)
			expo_printf(e, "# UNIT %s %s\n", name, family->unit);
		expo_printf(e, "# HELP %s ", name);
	} else {
		expo_printf(e, "# HELP %s ", name);
	}
	append_help(e, family->help);
	append(e, "\n", 1);
	if (e->format == EXPO_TEXT_0_0_4)
		expo_printf(e, "# TYPE %s %s\n", name, type_name(family->type, e->format));
}

/* name + suffix + {labels} + " " + value */
static void sample(struct exposition *e, const char *suffix, const struct expo_labels *labels,
		   const char *extra_label, const char *value)
{
	const char *name = e->family ? e->family->name : "unnamed";
	bool any = (labels && labels->length) || extra_label;
	expo_printf(e, "%s%s%s%s%s%s%s %s\n", name, suffix, any ? "{" : "",
		    labels && labels->length ? labels->text : "",
		    labels && labels->length && extra_label ? "," : "",
		    extra_label ? extra_label : "", any ? "}" : "", value);
}

void expo_counter(struct exposition *e, const struct expo_labels *labels, uint64_t value)
{
	char text[32];
	snprintf(text, sizeof text, "%" PRIu64, value);
	sample(e, "_total", labels, NULL, text);
}

void expo_counter_double(struct exposition *e, const struct expo_labels *labels, double value)
{
	char text[40];
	snprintf(text, sizeof text, "%.17g", value);
	sample(e, "_total", labels, NULL, text);
}

void expo_counter_ns(struct exposition *e, const struct expo_labels *labels, expo_sum ns)
{
	char text[48];
	sample(e, "_total", labels, NULL, expo_sum_ns_text(ns, text, sizeof text));
}

void expo_gauge(struct exposition *e, const struct expo_labels *labels, int64_t value)
{
	char text[32];
	snprintf(text, sizeof text, "%" PRId64, value);
	sample(e, "", labels, NULL, text);
}

void expo_gauge_double(struct exposition *e, const struct expo_labels *labels, double value)
{
	char text[40];
	snprintf(text, sizeof text, "%.17g", value);
	sample(e, "", labels, NULL, text);
}

void expo_gauge_ns(struct exposition *e, const struct expo_labels *labels, int64_t ns)
{
	char text[40];
	sample(e, "", labels, NULL, expo_ns_text(ns, text, sizeof text));
}

void expo_info(struct exposition *e, const struct expo_labels *labels)
{
	sample(e, "_info", labels, NULL, "1");
}

void expo_histogram(struct exposition *e, const struct expo_labels *labels,
		    const char *const *bound_text, const uint64_t *counts, size_t n,
		    const char *sum_text)
{
	uint64_t cumulative = 0;
	char le[64], value[32];
	for (size_t i = 0; i <= n; i++) {
		cumulative += counts[i];
		snprintf(le, sizeof le, "le=\"%s\"", i < n ? bound_text[i] : "+Inf");
		snprintf(value, sizeof value, "%" PRIu64, cumulative);
		sample(e, "_bucket", labels, le, value);
	}
	sample(e, "_sum", labels, NULL, sum_text);
	snprintf(value, sizeof value, "%" PRIu64, cumulative);
	sample(e, "_count", labels, NULL, value);
}

const char *expo_sum_text(expo_sum value, char *buf, size_t size)
{
	char digits[48];
	size_t n = sizeof digits;
	digits[--n] = '\0';
	do {
		digits[--n] = (char)('0' + (unsigned)(value % 10));
		value /= 10;
	} while (value);
	snprintf(buf, size, "%s", digits + n);
	return buf;
}

/* sign, whole seconds, and the nanoseconds with their trailing zeros dropped */
static const char *seconds_text(bool negative, expo_sum magnitude, char *buf, size_t size)
{
	char whole[48], digits[16];
	expo_sum_text(magnitude / 1000000000u, whole, sizeof whole);
	unsigned fraction = (unsigned)(magnitude % 1000000000u);
	if (!fraction) {
		snprintf(buf, size, "%s%s", negative ? "-" : "", whole);
		return buf;
	}
	snprintf(digits, sizeof digits, "%09u", fraction);
	size_t n = 9;
	while (digits[n - 1] == '0')
		n--;
	digits[n] = '\0';
	snprintf(buf, size, "%s%s.%s", negative ? "-" : "", whole, digits);
	return buf;
}

const char *expo_sum_ns_text(expo_sum ns, char *buf, size_t size)
{
	return seconds_text(false, ns, buf, size);
}

const char *expo_ns_text(int64_t ns, char *buf, size_t size)
{
	return seconds_text(ns < 0, ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns, buf, size);
}
