/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: a pktstats-exporter configuration file (sw/tools/exporter/config.c), the text
 * a SIGHUP reads again, through exporter_config_parse_text() and exporter_config_check().
 *
 * Input: the file's bytes. Checked, abort() on a break:
 *   - the result is 0 or -EINVAL, and an error names the file and its line ("fuzz.conf:N: "),
 *     the cross-checks of the whole too, on one line, its line number at most the file's;
 *   - what was read stays within its bounds: counts at most the maxima, every name and string
 *     NUL-terminated inside its field, names unique, every session's port 0..3;
 *   - the same text parsed again gives the same configuration, byte for byte, and the same
 *     message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool terminated(const char *field, size_t size)
{
	return memchr(field, '\0', size) != NULL;
}

static int parse(struct exporter_config *c, const uint8_t *data, size_t size, char *error,
		 size_t error_size)
{
	exporter_config_defaults(c);
	int err = exporter_config_parse_text(c, (const char *)data, size, "fuzz.conf", error,
					     error_size);
	if (err == 0)
		err = exporter_config_check(c, error, error_size);
	return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct exporter_config a, b;
	char error_a[1024], error_b[1024];
	memset(error_a, 'x', sizeof error_a);
	int err = parse(&a, data, size, error_a, sizeof error_a);
	FUZZ_CHECK(err == 0 || err == -EINVAL);
	if (err) {
		FUZZ_CHECK(terminated(error_a, sizeof error_a) && !strchr(error_a, '\n'));
		FUZZ_CHECK(!strncmp(error_a, "fuzz.conf:", 10));
		unsigned long line = strtoul(error_a + 10, NULL, 10);
		size_t lines = 1;
		for (size_t i = 0; i < size; i++)
			lines += data[i] == '\n';
		FUZZ_CHECK(line >= 1 && line <= lines);
	} else {
		FUZZ_CHECK(a.n_switches <= EXPORTER_SWITCHES_MAX && a.n_dm <= EXPORTER_SESSIONS_MAX &&
		      a.n_one_way <= EXPORTER_SESSIONS_MAX && a.n_headroom <= EXPORTER_SESSIONS_MAX);
		FUZZ_CHECK(terminated(a.listen_host, sizeof a.listen_host) &&
		      terminated(a.ipfix_listen_host, sizeof a.ipfix_listen_host));
		for (size_t i = 0; i < a.n_switches; i++) {
			FUZZ_CHECK(terminated(a.switches[i].name, sizeof a.switches[i].name) &&
			      a.switches[i].name[0]);
			FUZZ_CHECK(terminated(a.switches[i].device, sizeof a.switches[i].device));
			FUZZ_CHECK(terminated(a.switches[i].stat_interface,
					 sizeof a.switches[i].stat_interface));
			for (size_t k = 0; k < i; k++)
				FUZZ_CHECK(strcmp(a.switches[i].name, a.switches[k].name));
		}
		for (size_t i = 0; i < a.n_dm; i++)
			FUZZ_CHECK(a.dm[i].port <= 3 && a.dm[i].level <= 7 &&
			      exporter_config_switch(&a, a.dm[i].switch_name) >= 0);
		for (size_t i = 0; i < a.n_one_way; i++)
			FUZZ_CHECK(a.one_way[i].port <= 3);
		for (size_t i = 0; i < a.n_headroom; i++)
			FUZZ_CHECK(a.headroom[i].port <= 3 && a.headroom[i].rate_mbps > 0);
	}
	memset(error_b, 'x', sizeof error_b);
	int again = parse(&b, data, size, error_b, sizeof error_b);
	FUZZ_CHECK(again == err);
	FUZZ_CHECK(memcmp(&a, &b, sizeof a) == 0);
	FUZZ_CHECK(!err || !strcmp(error_a, error_b));
	return 0;
}
