/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: text or JSON from the same calls (output.h). JSON strings are escaped per
 * RFC 8259, so a device description with quotes or control bytes still parses.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output.h"

#define MAX_DEPTH 8

static bool json;
static int depth;                 /* nesting: 0 outside the result */
static bool first[MAX_DEPTH];     /* JSON: nothing written yet at this level */
static bool in_item[MAX_DEPTH];   /* text: this level is an object of a list (one line) */

void out_init(bool use_json)
{
	json = use_json;
	depth = 0;
}

static void json_string(const char *text)
{
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", stdout); break;
		case '\\': fputs("\\\\", stdout); break;
		case '\n': fputs("\\n", stdout); break;
		case '\t': fputs("\\t", stdout); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				printf("\\u%04x", *p);
			else
				putchar(*p);
		}
	}
	putchar('"');
}

/* JSON: the separator and the key ("dst-mac" as "dst_mac"). */
static void json_key(const char *key)
{
	if (!first[depth])
		putchar(',');
	first[depth] = false;
	if (!key)
		return;
	putchar('"');
	for (const char *p = key; *p; p++)
		putchar(*p == '-' ? '_' : *p);
	fputs("\":", stdout);
}

/* Text: one field, on its own line or inside an item's line. */
static void text_field(const char *key, const char *value)
{
	if (in_item[depth]) {
		printf("%s%s %s", first[depth] ? "" : " ", key, value);
		first[depth] = false;
	} else {
		printf("%*s%-*s %s\n", 2 * (depth - 1), "", 16, key, value);
	}
}

static void push(bool item)
{
	if (depth + 1 < MAX_DEPTH)
		depth++;
	first[depth] = true;
	in_item[depth] = item;
}

void out_begin(void)
{
	depth = 0;
	first[0] = true;
	if (json)
		putchar('{');
	push(false);
}

void out_end(void)
{
	depth = 0;
	if (json)
		fputs("}\n", stdout);
}

void out_object_begin(const char *key)
{
	if (json) {
		json_key(key);
		putchar('{');
	} else {
		printf("%*s%s\n", 2 * (depth - 1), "", key);
	}
	push(false);
}

void out_object_end(void)
{
	depth--;
	if (json)
		putchar('}');
}

void out_list_begin(const char *key)
{
	if (json) {
		json_key(key);
		putchar('[');
	} else {
		printf("%*s%s\n", 2 * (depth - 1), "", key);
	}
	push(false);
}

void out_list_end(void)
{
	depth--;
	if (json)
		putchar(']');
}

void out_item_begin(void)
{
	if (json) {
		json_key(NULL);
		putchar('{');
	} else {
		printf("%*s", 2 * (depth - 1), "");
	}
	push(!json);
}

void out_item_end(void)
{
	depth--;
	if (json)
		putchar('}');
	else
		putchar('\n');
}

void out_uint(const char *key, uint64_t value, const char *text)
{
	if (json) {
		json_key(key);
		printf("%" PRIu64, value);
	} else {
		char plain[24];
		snprintf(plain, sizeof plain, "%" PRIu64, value);
		text_field(key, text ? text : plain);
	}
}

void out_string(const char *key, const char *value)
{
	if (json) {
		json_key(key);
		if (value)
			json_string(value);
		else
			fputs("null", stdout);
	} else {
		text_field(key, value ? value : "-");
	}
}

void out_bool(const char *key, bool value)
{
	if (json) {
		json_key(key);
		fputs(value ? "true" : "false", stdout);
	} else {
		text_field(key, value ? "yes" : "no");
	}
}

void out_uint_array(const char *key, const unsigned *values, size_t n, const char *text)
{
	if (json) {
		json_key(key);
		putchar('[');
		for (size_t i = 0; i < n; i++)
			printf("%s%u", i ? "," : "", values[i]);
		putchar(']');
	} else {
		text_field(key, text);
	}
}

void out_string_array(const char *key, const char *const *values, size_t n, const char *text)
{
	if (json) {
		json_key(key);
		putchar('[');
		for (size_t i = 0; i < n; i++) {
			if (i)
				putchar(',');
			json_string(values[i]);
		}
		putchar(']');
	} else {
		text_field(key, text);
	}
}

int out_flush(void)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		return errno ? -errno : -EIO;
	return 0;
}
