/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: one UDP datagram through the flow-latency monitor's IPFIX parser
 * (pktstats_flowlat_ipfix_parse, sw/driver/src/flowlat.c) and its sequence rules
 * (pktstats_flowlat_sequence_feed), which `pktstats flowlat watch` and pktstats-exporter run on
 * whatever reaches their UDP port.
 *
 * Input: the datagram's bytes, parsed with the documentation PEN (the template set must be the
 * block's with it). Checked, abort() on a break: a message that parses is as long as the
 * datagram, holds whole records and returns min(records, room) events, each with a kind, ports,
 * group, profile and occupancy the block can send and nanoseconds below 10^9; a second parse
 * into a smaller array returns a prefix of the first; the sequence rules never count more
 * missing records than one message holds; reading never goes beyond the datagram (ASan).
 */
#include <stdlib.h>
#include <string.h>

#include "pktstats/flowlat.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define EVENTS_MAX (65536 / PKTSTATS_FLOWLAT_RECORD_LENGTH + 1)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pktstats_flowlat_event events[EVENTS_MAX], prefix[3];
	static struct pktstats_flowlat_sequence sequence; /* across inputs, as a listener's */
	struct pktstats_flowlat_message m, again;
	enum pktstats_flowlat_ipfix_error error = PKTSTATS_FLOWLAT_IPFIX_OK, error2;
	uint8_t *copy = fuzz_copy(data, size);
	int n = pktstats_flowlat_ipfix_parse(copy, size, PKTSTATS_FLOWLAT_PEN_DEFAULT, &m, events,
					     EVENTS_MAX, &error);
	FUZZ_CHECK(n >= 0);
	FUZZ_CHECK(pktstats_flowlat_ipfix_error_name(error) != NULL);
	if (error == PKTSTATS_FLOWLAT_IPFIX_OK) {
		FUZZ_CHECK(m.length == size && (unsigned)n == m.records);
		FUZZ_CHECK(m.records <= PKTSTATS_FLOWLAT_IPFIX_RECORDS_MAX);
		for (int i = 0; i < n; i++) {
			const struct pktstats_flowlat_event *e = &events[i];
			FUZZ_CHECK(pktstats_flowlat_kind_name(e->kind) != NULL);
			FUZZ_CHECK(e->ingress_interface < PKTSTATS_FLOWLAT_SWITCH_PORTS &&
				   e->egress_interface < PKTSTATS_FLOWLAT_MAC_PORTS);
			FUZZ_CHECK(e->group < PKTSTATS_FLOWLAT_RULES &&
				   e->profile < PKTSTATS_FLOWLAT_PROFILES);
			FUZZ_CHECK(e->occupancy < (UINT32_C(1) << 20) && e->nanoseconds < 1000000000u);
		}
		int k = pktstats_flowlat_ipfix_parse(copy, size, PKTSTATS_FLOWLAT_PEN_DEFAULT, &again,
						     prefix, 3, &error2);
		FUZZ_CHECK(error2 == PKTSTATS_FLOWLAT_IPFIX_OK && again.records == m.records);
		FUZZ_CHECK(k == (n < 3 ? n : 3) && !memcmp(prefix, events, (size_t)k * sizeof *prefix));
		uint64_t before = sequence.missing;
		uint64_t missing = pktstats_flowlat_sequence_feed(&sequence, &m);
		FUZZ_CHECK(missing <= PKTSTATS_FLOWLAT_IPFIX_RECORDS_MAX &&
			   sequence.missing == before + missing);
		FUZZ_CHECK(sequence.next == m.sequence + m.records);
	}
	free(copy);
	return 0;
}
