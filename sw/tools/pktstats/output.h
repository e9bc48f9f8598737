/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: the one print path. A read verb describes its result once, as keys and values
 * through these calls; the module prints it either as text for people or, with -j, as one
 * JSON object on one line. Since there is no second way to print, -j cannot drift from the
 * text or miss a verb.
 *
 * Keys are given as the text shows them, words joined by '-' ("dst-mac", like the keywords of
 * `capture set`); JSON writes them with '_' ("dst_mac"). Each value has a machine form (JSON)
 * and may have a text form for people: resolution is 3 in JSON and "c=3 (64 ns)" as text.
 *
 * Text layout: the top-level object and nested objects print one "key  value" line per field
 * (nested objects indented under a "key" line); the objects of a list print one line each,
 * "key value key value ...", like `ip` and `bridge fdb show`.
 */
#ifndef PKTSTATS_CLI_OUTPUT_H
#define PKTSTATS_CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void out_init(bool json);
bool out_is_json(void); /* -j */

/* The result: one object. out_end() prints the JSON line's end. */
void out_begin(void);
void out_end(void);

/* A nested object under key. */
void out_object_begin(const char *key);
void out_object_end(void);

/* A list of objects under key; each element between out_item_begin() and out_item_end(). */
void out_list_begin(const char *key);
void out_list_end(void);
void out_item_begin(void);
void out_item_end(void);
/* Text: the rest of the item on a new, indented line (an item of many fields); JSON: nothing */
void out_item_break(void);

/* Fields. text: how people see the value, or NULL for the plain value. */
void out_uint(const char *key, uint64_t value, const char *text);
void out_string(const char *key, const char *value); /* NULL: JSON null, text "-" */
void out_bool(const char *key, bool value);           /* text "yes"/"no" */
void out_uint_array(const char *key, const unsigned *values, size_t n, const char *text);
void out_string_array(const char *key, const char *const *values, size_t n, const char *text);

/* Signed numbers, and reals with a number of decimals (JSON: the same digits). */
void out_int(const char *key, int64_t value, const char *text);
void out_real(const char *key, double value, int decimals);
/* A number given as its text, written as is in JSON (never through a double: an exact decimal
 * such as "1764072000.500737188"; the caller writes valid JSON number syntax). text: how people
 * see it, or NULL for the number's text. */
void out_number_text(const char *key, const char *number, const char *text);

/* An instant as UTC ISO 8601 with nanoseconds, "2025-11-25T12:00:00.500737188Z" (seconds since
 * the epoch, negative before 1970; nanoseconds 0..999999999). False, text untouched, when the
 * C library cannot convert the seconds (a time_t narrower than them). */
bool format_utc(int64_t seconds, uint32_t nanoseconds, char *text, size_t size);

/*
 * Tables: records with the same keys, one line each.
 *   text: a heading line, then one row per record, each cell right-aligned to its column's
 *         width (0: as wide as the heading; the last column is not padded);
 *   CSV (out_csv(true)): a header line of the keys ('-' as '_'), then comma-separated values
 *         (the machine form; strings are written as given, so they must not hold commas);
 *   JSON: inside the result (key given, between out_begin and out_end) an array of objects
 *         under key; at the top level (key NULL, no out_begin) one object per line: JSON lines.
 * The fields of a row are out_uint, out_int, out_string, out_real, out_number_text, in the
 * columns' order.
 */
struct out_column {
	const char *key;     /* as given to the field calls */
	const char *heading; /* text heading; NULL: the key */
	int width;
};
void out_csv(bool csv);
void out_table_begin(const char *key, const struct out_column *columns, size_t n);
void out_table_end(void);
void out_row_begin(void);
void out_row_end(void);

/* Flushes stdout: 0, or -errno when the output could not be written. */
int out_flush(void);

#endif
