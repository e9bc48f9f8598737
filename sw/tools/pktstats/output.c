/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: text or JSON from the same calls (output.h). JSON strings are escaped per
 * RFC 8259, so a device description with quotes or control bytes still parses.
 */
#define _DEFAULT_SOURCE /* gmtime_r */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "output.h"

#define MAX_DEPTH 8

static bool json;
static int depth;                 /* nesting: 0 outside the result */
static bool first[MAX_DEPTH];     /* JSON: nothing written yet at this level */
static bool in_item[MAX_DEPTH];   /* text: this level is an object of a list (one line) */
static bool csv;                  /* tables as CSV */
static const struct out_column *table; /* the table being printed, NULL if none */
static size_t table_n, column;    /* its columns, the next cell */
static bool in_row, top_rows;     /* inside a row; the table is JSON lines at the top level */

static void json_key(const char *key);

void out_init(bool use_json)
{
	json = use_json;
	depth = 0;
	table = NULL;
	in_row = false;
}

bool out_is_json(void)
{
	return json;
}

void out_csv(bool use_csv)
{
	csv = use_csv;
}

static int column_width(size_t i)
{
	int width = table[i].width;
	int heading = (int)strlen(table[i].heading ? table[i].heading : table[i].key);
	return width > heading ? width : heading;
}

/* A table's cell: text right-aligned, or CSV. */
static void cell(const char *value)
{
	if (csv) {
		printf("%s%s", column ? "," : "", value);
	} else {
		size_t i = column < table_n ? column : table_n - 1;
		printf("%s%*s", column ? "  " : "", column_width(i), value);
	}
	column++;
}

void out_table_begin(const char *key, const struct out_column *columns, size_t n)
{
	table = columns;
	table_n = n;
	top_rows = !key;
	if (json) {
		if (key) {
			json_key(key);
			putchar('[');
			depth++;
		} else {
			depth = 0;
		}
		first[depth] = true;
		return;
	}
	if (key && !csv)
		printf("%*s%s\n", 2 * (depth - 1), "", key);
	for (size_t i = 0; i < n; i++) {
		const char *heading = csv ? columns[i].key
					  : columns[i].heading ? columns[i].heading : columns[i].key;
		if (csv) {
			printf("%s", i ? "," : "");
			for (const char *p = heading; *p; p++)
				putchar(*p == '-' ? '_' : *p);
		} else {
			printf("%s%*s", i ? "  " : (key ? "  " : ""), column_width(i), heading);
		}
	}
	putchar('\n');
}

void out_table_end(void)
{
	if (json && !top_rows) {
		putchar(']');
		depth--;
	}
	table = NULL;
}

void out_row_begin(void)
{
	in_row = true;
	column = 0;
	if (json) {
		if (!top_rows)
			json_key(NULL);
		putchar('{');
		depth++;
		first[depth] = true;
	} else if (!top_rows && !csv) {
		fputs("  ", stdout);
	}
}

void out_row_end(void)
{
	in_row = false;
	if (json) {
		depth--;
		putchar('}');
		if (top_rows)
			putchar('\n');
	} else {
		putchar('\n');
	}
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
	if (in_row) {
		cell(value);
	} else if (in_item[depth]) {
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

/* Text: an item too long for one line goes on, indented, on the next; JSON: nothing. */
void out_item_break(void)
{
	if (json || !in_item[depth])
		return;
	printf("\n%*s", 2 * (depth - 2) + 4, "");
	first[depth] = true;
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
		text_field(key, text && !(in_row && csv) ? text : plain);
	}
}

void out_int(const char *key, int64_t value, const char *text)
{
	if (json) {
		json_key(key);
		printf("%" PRId64, value);
	} else {
		char plain[24];
		snprintf(plain, sizeof plain, "%" PRId64, value);
		text_field(key, text && !(in_row && csv) ? text : plain);
	}
}

void out_real(const char *key, double value, int decimals)
{
	char plain[64];
	snprintf(plain, sizeof plain, "%.*f", decimals, value);
	if (json) {
		json_key(key);
		fputs(plain, stdout);
	} else {
		text_field(key, plain);
	}
}

void out_number_text(const char *key, const char *number, const char *text)
{
	if (json) {
		json_key(key);
		fputs(number, stdout);
	} else {
		text_field(key, text && !(in_row && csv) ? text : number);
	}
}

bool format_utc(int64_t seconds, uint32_t nanoseconds, char *text, size_t size)
{
	struct tm tm;
	time_t t = (time_t)seconds;
	if ((int64_t)t != seconds || !gmtime_r(&t, &tm))
		return false;
	snprintf(text, size, "%04d-%02d-%02dT%02d:%02d:%02d.%09" PRIu32 "Z", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, nanoseconds);
	return true;
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
