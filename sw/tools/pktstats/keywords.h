/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: keyword arguments, `KEYWORD VALUE ...` with each keyword at most once, as the
 * verbs of `ip` take them. A verb lists its keywords, keywords_parse() fills in the words
 * given (or names the bad one in a usage error), then the verb parses each value.
 */
#ifndef PKTSTATS_CLI_KEYWORDS_H
#define PKTSTATS_CLI_KEYWORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"

struct keyword {
	const char *name;  /* "count", "-i" */
	const char *value; /* after keywords_parse: the word given, or NULL */
};

/* Fills each keyword's value from argv; CLI_OK, or a usage error naming the bad word
 * (unknown keyword, missing value, given twice). `verb_help`: "dm two-way" for the hint. */
int keywords_parse(const struct cli *cli, int argc, char **argv, struct keyword *keywords,
		   size_t n, const char *verb_help);
/* The value of name, NULL when not given. */
const char *keyword_value(const struct keyword *keywords, size_t n, const char *name);

/* Value parsers for the keywords; CLI_OK or the usage error ("count '0': 0 is below 1"). */
int keyword_number(const struct cli *cli, const struct keyword *keywords, size_t n,
		   const char *name, uint64_t min, uint64_t max, uint64_t *value);
/* A duration counted in `unit` ("ms", "s"): a bare number or one with a unit
 * (parse_duration_count) */
int keyword_duration_count(const struct cli *cli, const struct keyword *keywords, size_t n,
			const char *name, const char *unit, uint64_t min, uint64_t max,
			uint64_t *value);
int keyword_mac(const struct cli *cli, const struct keyword *keywords, size_t n,
		const char *name, uint8_t mac[6]);
int keyword_on_off(const struct cli *cli, const struct keyword *keywords, size_t n,
		   const char *name, bool *value);
#endif
