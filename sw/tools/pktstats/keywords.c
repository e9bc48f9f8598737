/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: keyword arguments (keywords.h).
 */
#include <string.h>

#include "args.h"
#include "keywords.h"

int keywords_parse(const struct cli *cli, int argc, char **argv, struct keyword *keywords,
		   size_t n, const char *verb_help)
{
	for (size_t k = 0; k < n; k++)
		keywords[k].value = NULL;
	for (int i = 0; i < argc; i += 2) {
		struct keyword *found = NULL;
		for (size_t k = 0; k < n; k++)
			if (!strcmp(argv[i], keywords[k].name))
				found = &keywords[k];
		if (!found)
			return cli_usage(cli, "unknown keyword '%s' (see pktstats %s --help)", argv[i],
					 verb_help);
		if (i + 1 >= argc)
			return cli_usage(cli, "%s needs a value", argv[i]);
		if (found->value)
			return cli_usage(cli, "%s given twice", argv[i]);
		found->value = argv[i + 1];
	}
	return CLI_OK;
}

const char *keyword_value(const struct keyword *keywords, size_t n, const char *name)
{
	for (size_t k = 0; k < n; k++)
		if (!strcmp(keywords[k].name, name))
			return keywords[k].value;
	return NULL;
}

int keyword_number(const struct cli *cli, const struct keyword *keywords, size_t n,
		   const char *name, uint64_t min, uint64_t max, uint64_t *value)
{
	const char *word = keyword_value(keywords, n, name);
	if (!word)
		return CLI_OK;
	const char *error = parse_number(word, min, max, value);
	return error ? cli_usage(cli, "%s '%s': %s", name, word, error) : CLI_OK;
}

int keyword_duration_count(const struct cli *cli, const struct keyword *keywords, size_t n,
			const char *name, const char *unit, uint64_t min, uint64_t max,
			uint64_t *value)
{
	const char *word = keyword_value(keywords, n, name);
	if (!word)
		return CLI_OK;
	const char *error = parse_duration_count(word, unit, min, max, value);
	return error ? cli_usage(cli, "%s '%s': %s", name, word, error) : CLI_OK;
}

int keyword_mac(const struct cli *cli, const struct keyword *keywords, size_t n,
		const char *name, uint8_t mac[6])
{
	const char *word = keyword_value(keywords, n, name);
	if (!word)
		return CLI_OK;
	const char *error = parse_mac(word, mac);
	return error ? cli_usage(cli, "%s '%s': %s", name, word, error) : CLI_OK;
}

int keyword_on_off(const struct cli *cli, const struct keyword *keywords, size_t n,
		   const char *name, bool *value)
{
	const char *word = keyword_value(keywords, n, name);
	if (!word)
		return CLI_OK;
	if (!strcmp(word, "on"))
		*value = true;
	else if (!strcmp(word, "off"))
		*value = false;
	else
		return cli_usage(cli, "%s '%s': not on or off", name, word);
	return CLI_OK;
}
