/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, object `headroom`: the round trip of one link by the headroom measurement PDU
 * (docs/oam.md), and the PFC headroom it calls for (IEEE 802.1Q Annex N's delay model,
 * pktstats_pfc_headroom()). `measure` sends requests out of the CPU port's interface, one at
 * a time, and takes the responses (the switches write t1..t4; the exchange is oam_probe.h's,
 * shared with pktstats-exporter); `compute` only computes.
 */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "cli.h"
#include "keywords.h"
#include "oam_link.h"
#include "oam_output.h"
#include "oam_probe.h"
#include "output.h"

#define HEADROOM_COUNT_MAX 100000

/* The PFC parameters common to measure and compute: rate, max-frame, internal-bits or
 * pfc-response. */
struct pfc_options {
	bool have_rate;
	struct pktstats_pfc_headroom_params params;
};

static int parse_pfc(const struct cli *cli, const struct keyword *k, size_t n, bool need_rate,
		     struct pfc_options *o)
{
	const char *rate = keyword_value(k, n, "rate");
	const char *internal = keyword_value(k, n, "internal-bits");
	const char *response = keyword_value(k, n, "pfc-response");
	uint64_t max_frame = PKTSTATS_PFC_MAX_FRAME_DEFAULT;
	int status = keyword_number(cli, k, n, "max-frame", 60, 65535, &max_frame);
	if (status != CLI_OK)
		return status;
	o->params.max_frame = (uint32_t)max_frame;
	if (!rate) {
		if (need_rate)
			return cli_usage(cli, "needs rate GBPS (the link's rate in Gb/s)");
		if (internal || response || keyword_value(k, n, "max-frame"))
			return cli_usage(cli, "'%s' needs rate GBPS as well",
					 internal ? "internal-bits" : response ? "pfc-response"
									       : "max-frame");
		return CLI_OK;
	}
	const char *error = parse_rate_gbps(rate, &o->params.rate_mbps);
	if (error)
		return cli_usage(cli, "rate '%s': %s", rate, error);
	o->have_rate = true;
	if (internal && response)
		return cli_usage(cli, "'pfc-response' and 'internal-bits' give the same delay: "
				      "choose one");
	if (internal)
		return keyword_number(cli, k, n, "internal-bits", 0, UINT64_C(1) << 40,
				      &o->params.internal_bits);
	if (response) {
		uint64_t ns;
		if ((status = keyword_number(cli, k, n, "pfc-response", 0, UINT64_C(1) << 32, &ns)) !=
		    CLI_OK)
			return status;
		o->params.internal_bits = (ns * o->params.rate_mbps + 999) / 1000;
		return CLI_OK;
	}
	if (o->params.rate_mbps == 100000) {
		o->params.internal_bits = PKTSTATS_PFC_INTERNAL_BITS_100G;
		return CLI_OK;
	}
	return cli_usage(cli, "rate '%s': no default internal delay at this rate (known: 100 Gb/s, "
			      "203776 bits): give internal-bits BITS or pfc-response NS", rate);
}

/* The headroom's figures as an object under key. */
static void out_headroom(const char *key, const struct pfc_options *o, int64_t round_trip_ns)
{
	struct pktstats_pfc_headroom_params p = o->params;
	struct pktstats_pfc_headroom h;
	p.round_trip_ns = round_trip_ns;
	int err = pktstats_pfc_headroom(&p, &h);
	if (key)
		out_object_begin(key);
	out_uint("rate-mbps", p.rate_mbps, NULL);
	out_int("round-trip-ns", round_trip_ns, NULL);
	out_uint("max-frame", p.max_frame, NULL);
	if (err < 0) { /* a negative round trip: no headroom from it */
		out_string("fixed-bits", NULL);
		out_string("internal-bits", NULL);
		out_string("medium-bits", NULL);
		out_string("total-bits", NULL);
		out_string("headroom-bytes", NULL);
	} else {
		out_uint("fixed-bits", h.fixed_bits, NULL);
		out_uint("internal-bits", h.internal_bits, NULL);
		out_uint("medium-bits", h.medium_bits, NULL);
		out_uint("total-bits", h.total_bits, NULL);
		char text[64];
		snprintf(text, sizeof text, "%" PRIu64 " (%.3f KB)", h.bytes, h.bytes / 1000.0);
		out_uint("headroom-bytes", h.bytes, text);
	}
	/* what 10 ns of round-trip error is worth */
	out_real("bytes-per-10ns", (double)p.rate_mbps * 10 / 1000 / 8, 3);
	if (key)
		out_object_end();
}

static int headroom_compute(struct cli *cli, int argc, char **argv)
{
	struct keyword k[] = {
		{"round-trip", NULL},    {"rate", NULL},         {"max-frame", NULL},
		{"internal-bits", NULL}, {"pfc-response", NULL},
	};
	const size_t n = sizeof k / sizeof k[0];
	struct pfc_options o = {0};
	int status = keywords_parse(cli, argc, argv, k, n, "headroom compute");
	if (status != CLI_OK)
		return status;
	if (!keyword_value(k, n, "round-trip"))
		return cli_usage(cli, "needs round-trip NS (t4 - t1 - (t3 - t2), ns)");
	uint64_t round_trip;
	if ((status = keyword_number(cli, k, n, "round-trip", 0, UINT64_C(1) << 40, &round_trip)) !=
	    CLI_OK)
		return status;
	if ((status = parse_pfc(cli, k, n, true, &o)) != CLI_OK)
		return status;
	out_begin();
	out_headroom(NULL, &o, (int64_t)round_trip);
	out_end();
	return CLI_OK;
}

static const struct out_column measure_columns[] = {
	{"seq", NULL, 0},
	{"status", NULL, 10},
	{"round-trip-ns", NULL, 0},
	{"cable-delay-ns", NULL, 0},
	{"t1", NULL, 20},
	{"t2", NULL, 20},
	{"t3", NULL, 20},
	{"t4", NULL, 20},
};

static int headroom_measure(struct cli *cli, int argc, char **argv)
{
	struct keyword k[] = {
		{"-i", NULL},        {"count", NULL},         {"interval", NULL},
		{"timeout", NULL},   {"rate", NULL},          {"max-frame", NULL},
		{"pfc-response", NULL}, {"internal-bits", NULL}, {"source", NULL},
	};
	const size_t n = sizeof k / sizeof k[0];
	int status = keywords_parse(cli, argc, argv, k, n, "headroom measure");
	if (status != CLI_OK)
		return status;
	const char *ifname = keyword_value(k, n, "-i");
	if (!ifname)
		return cli_usage(cli, "needs -i IFACE (the CPU port's network interface)");
	uint64_t count = 5, interval_ms = 100, timeout_ms = 1000;
	uint8_t source[6];
	struct pfc_options o = {0};
	if ((status = keyword_number(cli, k, n, "count", 1, HEADROOM_COUNT_MAX, &count)) != CLI_OK ||
	    (status = keyword_duration_count(cli, k, n, "interval", "ms", 0, 60000,
					     &interval_ms)) != CLI_OK ||
	    (status = keyword_duration_count(cli, k, n, "timeout", "ms", 1, 600000,
					     &timeout_ms)) != CLI_OK ||
	    (status = keyword_mac(cli, k, n, "source", source)) != CLI_OK ||
	    (status = parse_pfc(cli, k, n, false, &o)) != CLI_OK)
		return status;
	struct oam_link link;
	char error[256];
	int err = oam_link_open(&link, ifname, error, sizeof error);
	if (err < 0) {
		fprintf(stderr, "pktstats: headroom measure: %s\n", error);
		return CLI_RUNTIME;
	}
	if (!keyword_value(k, n, "source"))
		memcpy(source, link.mac, 6);
	struct pktstats_headroom_frame *responses = calloc(count, sizeof *responses);
	bool *received = calloc(count, sizeof *received);
	if (!responses || !received) {
		free(responses);
		free(received);
		oam_link_close(&link);
		return CLI_RUNTIME;
	}
	uint64_t sent = 0, unexpected = 0;
	for (uint64_t seq = 0; seq < count && status == CLI_OK; seq++) {
		/* one at a time: the PDU has no sequence number */
		struct headroom_probe probe;
		err = headroom_probe_exchange(&link, source, (int64_t)timeout_ms * 1000000, -1, &probe);
		if (!probe.sent) {
			fprintf(stderr, "pktstats: headroom measure: %s: sending request %" PRIu64
				": %s\n", ifname, seq, strerror(-err));
			status = CLI_RUNTIME;
			break;
		}
		sent++;
		unexpected += probe.unexpected;
		if (err < 0) {
			fprintf(stderr, "pktstats: headroom measure: %s: %s\n", ifname, strerror(-err));
			status = CLI_RUNTIME;
		}
		if (probe.received) {
			responses[seq] = probe.response;
			received[seq] = true;
		}
		int64_t next = probe.sent_at_ns + (int64_t)interval_ms * 1000000 - monotonic_ns();
		if (seq + 1 < count && next > 0) {
			struct timespec t = {next / 1000000000, next % 1000000000};
			nanosleep(&t, NULL);
		}
	}
	oam_link_close(&link);

	struct series round_trips = {0};
	uint64_t got = 0, incomplete = 0, negative = 0;
	out_begin();
	out_string("interface", ifname);
	out_string("source", mac_text(source, 0));
	out_table_begin("frames", measure_columns, sizeof measure_columns / sizeof measure_columns[0]);
	for (uint64_t i = 0; i < sent; i++) {
		const struct pktstats_headroom_frame *h = &responses[i];
		const char *what = "ok";
		bool complete = received[i] && headroom_probe_complete(h);
		int64_t rt = pktstats_headroom_round_trip(h);
		if (!received[i]) {
			what = "lost";
		} else {
			got++;
			if (!complete) {
				what = "incomplete";
				incomplete++;
			} else {
				if (rt < 0) {
					what = "negative";
					negative++;
				}
				series_add(&round_trips, rt);
			}
		}
		out_row_begin();
		out_uint("seq", i, NULL);
		out_string("status", what);
		out_ns("round-trip-ns", rt, complete);
		if (complete)
			out_real("cable-delay-ns", rt / 2.0, 1);
		else
			out_string("cable-delay-ns", NULL);
		out_wire_time("t1", h->t1, received[i]);
		out_wire_time("t2", h->t2, received[i]);
		out_wire_time("t3", h->t3, received[i]);
		out_wire_time("t4", h->t4, received[i]);
		out_row_end();
	}
	out_table_end();
	struct series_figures f;
	bool any = series_figures(&round_trips, &f);
	out_object_begin("summary");
	out_uint("sent", sent, NULL);
	out_uint("received", got, NULL);
	out_uint("lost", sent - got, NULL);
	out_uint("unexpected", unexpected, NULL);
	out_uint("incomplete", incomplete, NULL);
	out_uint("negative", negative, NULL);
	out_series("round-trip-ns", &round_trips);
	if (any)
		out_real("cable-delay-ns", f.avg / 2, 1);
	else
		out_string("cable-delay-ns", NULL);
	out_object_end();
	/* the headroom from the largest round trip measured */
	if (o.have_rate && any)
		out_headroom("headroom", &o, f.max);
	else
		out_string("headroom", NULL);
	out_end();
	series_free(&round_trips);
	free(responses);
	free(received);
	if (status == CLI_OK && got == 0) {
		fflush(stdout);
		fprintf(stderr, "pktstats: headroom measure: no response came back on %s (%" PRIu64
			" requests sent)\n", ifname, sent);
		status = CLI_RUNTIME;
	}
	return status;
}

#define PFC_OPTIONS_HELP \
	"  rate GBPS          the link's rate in Gb/s, up to 3 decimals (100, 2.5)\n" \
	"  max-frame BYTES    the largest frame on the link, without preamble (default 2000,\n" \
	"                     802.3's envelope frame)\n" \
	"  internal-bits BITS the internal processing delay (interface delays of both ends and\n" \
	"                     the PFC response, 802.3/802.1Qbb) in bit times; default at 100\n" \
	"                     Gb/s 203776 (802.3 without MACsec), no default at other rates\n" \
	"  pfc-response NS    the same delay in ns (bits = NS x rate, rounded up)\n" \
	"Headroom (docs/oam.md, \"PFC headroom\"): fixed = 2 x (max-frame + 20) x 8 + 84 x 8\n" \
	"bits, medium = round trip x rate, headroom = ceil((fixed + internal + medium) / 8)\n" \
	"bytes. With -j: rate_mbps, round_trip_ns, max_frame, fixed_bits, internal_bits,\n" \
	"medium_bits, total_bits, headroom_bytes, bytes_per_10ns (what 10 ns of round-trip\n" \
	"error costs).\n"

static const struct cli_verb headroom_verbs[] = {
	{"measure", "-i IFACE [count N] [interval MS] [timeout MS] [rate GBPS] [max-frame BYTES] "
		    "[pfc-response NS|internal-bits BITS] [source MAC]",
	 "send headroom requests, take the responses: round trip, cable delay, PFC headroom",
	 "Sends count requests (default 5; to 01:80:c2:00:00:0e, t1..t4 zero: the switches\n"
	 "write them) out of IFACE, the CPU port's interface, one at a time: each waits up to\n"
	 "timeout ms (default 1000) for a response, the next leaves interval ms (default 100)\n"
	 "after it. Per request (-j: frames): seq, status (ok, lost, incomplete: a stamp is 0,\n"
	 "negative: kept as it is), round_trip_ns = t4 - t1 - (t3 - t2), cable_delay_ns =\n"
	 "round trip / 2, t1..t4. summary: sent, received, lost, unexpected, incomplete,\n"
	 "negative, round_trip_ns (count, min, avg, max, p50, p90, p99), cable_delay_ns (the\n"
	 "average's half). headroom (with rate; null without): the PFC headroom from the\n"
	 "largest round trip. Exit 1 when no response came. Needs CAP_NET_RAW, no device.\n"
	 PFC_OPTIONS_HELP,
	 headroom_measure},
	{"compute", "round-trip NS rate GBPS [max-frame BYTES] [pfc-response NS|internal-bits BITS]",
	 "the PFC headroom of a link from its round trip (no device, no interface)",
	 "  round-trip NS      the link's round trip t4 - t1 - (t3 - t2), ns\n"
	 PFC_OPTIONS_HELP,
	 headroom_compute},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_headroom = {
	"headroom", "Link round trip by the headroom PDU, and the PFC headroom it needs",
	headroom_verbs,
};
