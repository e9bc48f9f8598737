/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, object `dm`: Y.1731 frame delay measurement (ETH-DM, docs/oam.md) through the
 * CPU port's network interface: `two-way` sends DMMs and takes the DMRs that come back,
 * `one-way send` sends 1DMs, `one-way receive` takes them. The switch writes the stamps
 * (TxTimeStampf as a DMM or 1DM leaves, RxTimeStampf/TxTimeStampb in its responder, RxTimeb
 * or RxTimef as the frame arrives): the tool sends zeros and computes with what comes back.
 * Each frame carries a Data TLV of 8 bytes: a session number (this run's) and a sequence
 * number, by which the DMRs are matched to the DMMs (oam_probe.h, shared with
 * pktstats-exporter). Needs no device.
 */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "keywords.h"
#include "oam_link.h"
#include "oam_output.h"
#include "oam_probe.h"
#include "output.h"

#define DM_FRAME_MAX DM_PROBE_FRAME_MAX
#define DM_COUNT_MAX 1000000

struct dm_options {
	const char *ifname;
	uint8_t peer[6], source[6];
	bool have_source;
	uint64_t count, interval_ms, level, size, timeout_ms;
	bool tagged;
	uint64_t vid;
};

/* The keywords common to two-way and one-way send. */
static int parse_send_options(const struct cli *cli, const struct keyword *k, size_t n,
			      bool one_way, struct dm_options *o)
{
	int status = CLI_OK;
	o->ifname = keyword_value(k, n, "-i");
	if (!o->ifname)
		return cli_usage(cli, "needs -i IFACE (the CPU port's network interface)");
	if (!keyword_value(k, n, "peer"))
		return cli_usage(cli, "needs peer MAC (the peer MEP's address)");
	o->count = 10;
	o->interval_ms = 100;
	o->timeout_ms = 1000;
	if ((status = keyword_mac(cli, k, n, "peer", o->peer)) != CLI_OK ||
	    (status = keyword_number(cli, k, n, "count", 1, DM_COUNT_MAX, &o->count)) != CLI_OK ||
	    (status = keyword_duration_count(cli, k, n, "interval", "ms", 0, 60000,
					     &o->interval_ms)) != CLI_OK ||
	    (status = keyword_number(cli, k, n, "level", 0, 7, &o->level)) != CLI_OK ||
	    (status = keyword_number(cli, k, n, "vlan", 0, 4094, &o->vid)) != CLI_OK ||
	    (status = keyword_mac(cli, k, n, "source", o->source)) != CLI_OK)
		return status;
	if (!one_way &&
	    (status = keyword_duration_count(cli, k, n, "timeout", "ms", 0, 600000,
					     &o->timeout_ms)) != CLI_OK)
		return status;
	o->have_source = keyword_value(k, n, "source") != NULL;
	o->tagged = keyword_value(k, n, "vlan") != NULL;
	uint64_t min = dm_probe_min_size(o->tagged, one_way);
	o->size = min;
	if ((status = keyword_number(cli, k, n, "size", min, DM_FRAME_MAX, &o->size)) != CLI_OK)
		return status;
	return CLI_OK;
}

static int open_link(const struct cli *cli, struct dm_options *o, struct oam_link *link)
{
	char error[256];
	int err = oam_link_open(link, o->ifname, error, sizeof error);
	if (err < 0) {
		cli_say(cli, "%s", error);
		return CLI_RUNTIME;
	}
	if (!o->have_source)
		memcpy(o->source, link->mac, 6);
	return CLI_OK;
}

/* What the frames of this run share: the options and a new session number */
static struct dm_probe probe_of(const struct dm_options *o)
{
	struct dm_probe p = {
		.level = (uint8_t)o->level,
		.tagged = o->tagged,
		.vid = (uint16_t)o->vid,
		.size = o->size,
		.session = dm_probe_new_session(),
	};
	memcpy(p.peer, o->peer, 6);
	memcpy(p.source, o->source, 6);
	return p;
}

static void sleep_until(int64_t when_ns)
{
	int64_t left = when_ns - monotonic_ns();
	if (left > 0) {
		struct timespec t = {left / 1000000000, left % 1000000000};
		nanosleep(&t, NULL);
	}
}

/* ------------------------------------------------------------------------------------------ */
/* two-way */

struct dmr_result {
	bool received;
	unsigned copies;
	struct pktstats_dm_frame dmr; /* data_tlv not kept */
	struct pktstats_dm_delays delays;
	bool complete;
};

static const struct out_column two_way_columns[] = {
	{"seq", NULL, 0},
	{"status", NULL, 10},
	{"vlan", NULL, 0},
	{"two-way-ns", NULL, 0},
	{"forward-ns", NULL, 14},
	{"backward-ns", NULL, 14},
	{"responder-ns", NULL, 0},
	{"variation-ns", NULL, 0},
	{"tx-timestamp-f", NULL, 20},
	{"rx-timestamp-f", NULL, 20},
	{"tx-timestamp-b", NULL, 20},
	{"rx-timestamp-b", NULL, 20},
};

/* The keywords of a sender (two-way, one-way send), then its interface. */
static int parse_and_open(struct cli *cli, int argc, char **argv, struct keyword *k, size_t n,
			  const char *where, bool one_way, struct dm_options *o,
			  struct oam_link *link)
{
	int status = keywords_parse(cli, argc, argv, k, n, where);
	if (status == CLI_OK)
		status = parse_send_options(cli, k, n, one_way, o);
	if (status == CLI_OK)
		status = open_link(cli, o, link);
	return status;
}

static int dm_two_way(struct cli *cli, int argc, char **argv)
{
	struct keyword k[] = {
		{"-i", NULL},    {"peer", NULL},  {"count", NULL},   {"interval", NULL},
		{"level", NULL}, {"size", NULL},  {"vlan", NULL},    {"timeout", NULL},
		{"source", NULL},
	};
	const size_t n = sizeof k / sizeof k[0];
	struct dm_options o = {0};
	struct oam_link link;
	int status = parse_and_open(cli, argc, argv, k, n, "dm two-way", false, &o, &link);
	if (status != CLI_OK)
		return status;
	struct dmr_result *results = calloc(o.count, sizeof *results);
	uint8_t *frame = malloc(DM_FRAME_MAX + 4);
	if (!results || !frame) {
		free(results);
		free(frame);
		oam_link_close(&link);
		return CLI_RUNTIME;
	}
	struct dm_probe probe = probe_of(&o);
	uint64_t sent = 0, unmatched = 0, duplicates = 0;
	/* SIGINT or SIGTERM ends the run early, with everything so far printed: a long run's
	 * DMRs are not lost to a Ctrl-C (the signals are taken by a signalfd meanwhile) */
	sigset_t signals, previous_mask;
	sigemptyset(&signals);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGTERM);
	sigprocmask(SIG_BLOCK, &signals, &previous_mask);
	int stop_fd = signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK);
	bool interrupted = false;
	int64_t start = monotonic_ns();
	for (uint64_t seq = 0; seq <= o.count && !interrupted; seq++) {
		int64_t until;
		if (seq < o.count) {
			int len = dm_probe_build(&probe, PKTSTATS_DM_OPCODE_DMM, (uint32_t)seq, frame,
						 DM_FRAME_MAX);
			int err = len < 0 ? len : oam_link_send(&link, frame, (size_t)len);
			if (err < 0) {
				fprintf(stderr, "pktstats: dm two-way: %s: sending DMM %" PRIu64 ": %s\n",
					o.ifname, seq, strerror(-err));
				status = CLI_RUNTIME;
				break;
			}
			sent++;
			until = start + (int64_t)(seq + 1) * (int64_t)o.interval_ms * 1000000;
		} else {
			until = monotonic_ns() + (int64_t)o.timeout_ms * 1000000;
		}
		/* take DMRs until the next DMM is due (or, after the last, until all came or
		 * the timeout) */
		for (;;) {
			uint64_t received = 0;
			for (uint64_t i = 0; i < sent; i++)
				received += results[i].received;
			if (seq == o.count && received == sent)
				break;
			int len = oam_link_receive_or_stop(&link, frame, DM_FRAME_MAX + 4, until,
							   stop_fd);
			if (len == -ECANCELED) {
				interrupted = true;
				break;
			}
			if (len < 0) {
				fprintf(stderr, "pktstats: dm two-way: %s: %s\n", o.ifname, strerror(-len));
				status = CLI_RUNTIME;
				break;
			}
			if (len == 0)
				break;
			struct pktstats_dm_frame dm;
			uint32_t number;
			enum dm_probe_reply reply = dm_probe_match(frame, (size_t)len, probe.session,
								   &dm, &number);
			if (reply == DM_PROBE_OTHER)
				continue;
			if (reply == DM_PROBE_UNMATCHED || number >= sent) {
				unmatched++;
				continue;
			}
			struct dmr_result *r = &results[number];
			if (r->received) {
				duplicates++;
				continue;
			}
			r->received = true;
			r->dmr = dm;
			r->dmr.data_tlv = NULL;
			r->complete = pktstats_dm_delays(&r->dmr, &r->delays) == 0;
		}
		if (status != CLI_OK)
			break;
		if (seq < o.count && !interrupted)
			sleep_until(until);
	}
	oam_link_close(&link);
	if (stop_fd >= 0) {
		/* taken here, so that unblocking them does not end the process before the output */
		struct signalfd_siginfo info;
		while (read(stop_fd, &info, sizeof info) == (ssize_t)sizeof info)
			interrupted = true;
		close(stop_fd);
	}
	sigprocmask(SIG_SETMASK, &previous_mask, NULL);
	if (interrupted)
		fprintf(stderr, "pktstats: dm two-way: interrupted after %" PRIu64 " DMMs: what came "
				"back so far\n", sent);

	struct series two_way = {0}, forward = {0}, backward = {0}, variation = {0};
	uint64_t received = 0, incomplete = 0, negative = 0;
	bool have_previous = false;
	int64_t previous = 0;
	out_begin();
	out_string("interface", o.ifname);
	out_string("peer", mac_text(o.peer, 0));
	out_string("source", mac_text(o.source, 1));
	out_uint("level", o.level, NULL);
	out_uint("size", o.size, NULL);
	if (o.tagged)
		out_uint("vlan", o.vid, NULL);
	else
		out_string("vlan", NULL);
	out_table_begin("frames", two_way_columns,
			sizeof two_way_columns / sizeof two_way_columns[0]);
	for (uint64_t i = 0; i < sent; i++) {
		struct dmr_result *r = &results[i];
		const char *what = "ok";
		bool delays = r->received && r->complete;
		bool has_variation = false;
		int64_t v = 0;
		if (!r->received) {
			what = "lost";
		} else {
			received++;
			if (!r->complete) {
				what = "incomplete";
				incomplete++;
			} else {
				if (r->delays.two_way < 0) {
					what = "negative";
					negative++;
				}
				series_add(&two_way, r->delays.two_way);
				series_add(&forward, r->delays.forward);
				series_add(&backward, r->delays.backward);
				if (have_previous) {
					v = r->delays.two_way - previous;
					v = v < 0 ? -v : v;
					series_add(&variation, v);
					has_variation = true;
				}
				previous = r->delays.two_way;
				have_previous = true;
			}
		}
		out_row_begin();
		out_uint("seq", i, NULL);
		out_string("status", what);
		if (r->received && r->dmr.tagged)
			out_uint("vlan", r->dmr.vlan_tci & 0xfff, NULL);
		else
			out_string("vlan", NULL);
		out_ns("two-way-ns", r->delays.two_way, delays);
		out_ns("forward-ns", r->delays.forward, delays);
		out_ns("backward-ns", r->delays.backward, delays);
		out_ns("responder-ns", r->delays.responder, delays);
		out_ns("variation-ns", v, has_variation);
		out_wire_time("tx-timestamp-f", r->dmr.tx_timestamp_f, r->received);
		out_wire_time("rx-timestamp-f", r->dmr.rx_timestamp_f, r->received);
		out_wire_time("tx-timestamp-b", r->dmr.tx_timestamp_b, r->received);
		out_wire_time("rx-timestamp-b", r->dmr.rx_timestamp_b, r->received);
		out_row_end();
	}
	out_table_end();
	out_object_begin("summary");
	out_uint("sent", sent, NULL);
	out_uint("received", received, NULL);
	out_uint("lost", sent - received, NULL);
	out_uint("duplicates", duplicates, NULL);
	out_uint("unmatched", unmatched, NULL);
	out_uint("incomplete", incomplete, NULL);
	out_uint("negative", negative, NULL);
	out_series("two-way-ns", &two_way);
	out_series("forward-ns", &forward);
	out_series("backward-ns", &backward);
	out_series("variation-ns", &variation);
	out_object_end();
	out_end();
	series_free(&two_way);
	series_free(&forward);
	series_free(&backward);
	series_free(&variation);
	free(results);
	free(frame);
	if (status == CLI_OK && received == 0) {
		fflush(stdout);
		fprintf(stderr, "pktstats: dm two-way: no DMR came back on %s (%" PRIu64 " DMMs sent)\n",
			o.ifname, sent);
		status = CLI_RUNTIME;
	}
	return status;
}

/* ------------------------------------------------------------------------------------------ */
/* one-way */

static int dm_one_way_send(struct cli *cli, int argc, char **argv)
{
	struct keyword k[] = {
		{"-i", NULL},    {"peer", NULL}, {"count", NULL},  {"interval", NULL},
		{"level", NULL}, {"size", NULL}, {"vlan", NULL},   {"source", NULL},
	};
	const size_t n = sizeof k / sizeof k[0];
	struct dm_options o = {0};
	struct oam_link link;
	int status = parse_and_open(cli, argc, argv, k, n, "dm one-way", true, &o, &link);
	if (status != CLI_OK)
		return status;
	uint8_t *frame = malloc(DM_FRAME_MAX);
	if (!frame) {
		oam_link_close(&link);
		return CLI_RUNTIME;
	}
	struct dm_probe probe = probe_of(&o);
	uint64_t sent = 0;
	int64_t start = monotonic_ns();
	for (uint64_t seq = 0; seq < o.count; seq++) {
		if (seq)
			sleep_until(start + (int64_t)seq * (int64_t)o.interval_ms * 1000000);
		int len = dm_probe_build(&probe, PKTSTATS_DM_OPCODE_1DM, (uint32_t)seq, frame,
					 DM_FRAME_MAX);
		int err = len < 0 ? len : oam_link_send(&link, frame, (size_t)len);
		if (err < 0) {
			fprintf(stderr, "pktstats: dm one-way: %s: sending 1DM %" PRIu64 ": %s\n",
				o.ifname, seq, strerror(-err));
			status = CLI_RUNTIME;
			break;
		}
		sent++;
	}
	oam_link_close(&link);
	free(frame);
	out_begin();
	out_string("interface", o.ifname);
	out_string("peer", mac_text(o.peer, 0));
	out_string("source", mac_text(o.source, 1));
	out_uint("level", o.level, NULL);
	out_uint("size", o.size, NULL);
	char text[16];
	snprintf(text, sizeof text, "%08" PRIx32, probe.session);
	out_string("session", text);
	out_uint("sent", sent, NULL);
	out_end();
	return status;
}

static const struct out_column one_way_columns[] = {
	{"index", NULL, 0},
	{"source", NULL, 17},
	{"level", NULL, 0},
	{"seq", NULL, 0},
	{"status", NULL, 10},
	{"delay-ns", NULL, 12},
	{"variation-ns", NULL, 0},
	{"tx-timestamp-f", NULL, 20},
	{"rx-timestamp-f", NULL, 20},
};

struct one_dm {
	struct pktstats_dm_frame dm;
	bool has_seq;
	uint32_t seq;
};

static int dm_one_way_receive(struct cli *cli, int argc, char **argv)
{
	struct keyword k[] = {{"-i", NULL}, {"count", NULL}, {"timeout", NULL}};
	const size_t n = sizeof k / sizeof k[0];
	struct dm_options o = {.timeout_ms = 2000};
	int status = keywords_parse(cli, argc, argv, k, n, "dm one-way");
	if (status != CLI_OK)
		return status;
	o.ifname = keyword_value(k, n, "-i");
	if (!o.ifname)
		return cli_usage(cli, "needs -i IFACE (the CPU port's network interface)");
	if ((status = keyword_number(cli, k, n, "count", 1, DM_COUNT_MAX, &o.count)) != CLI_OK ||
	    (status = keyword_duration_count(cli, k, n, "timeout", "ms", 1, 600000,
					     &o.timeout_ms)) != CLI_OK)
		return status;
	o.have_source = true; /* not used */
	struct oam_link link;
	if ((status = open_link(cli, &o, &link)) != CLI_OK)
		return status;
	uint64_t capacity = o.count ? o.count : 1024, got = 0;
	struct one_dm *frames = calloc(capacity, sizeof *frames);
	uint8_t *frame = malloc(DM_FRAME_MAX + 4);
	if (!frames || !frame) {
		free(frames);
		free(frame);
		oam_link_close(&link);
		return CLI_RUNTIME;
	}
	/* until count 1DMs came, or none for the timeout */
	while (!o.count || got < o.count) {
		int len = oam_link_receive(&link, frame, DM_FRAME_MAX + 4,
					   monotonic_ns() + (int64_t)o.timeout_ms * 1000000);
		if (len < 0) {
			fprintf(stderr, "pktstats: dm one-way: %s: %s\n", o.ifname, strerror(-len));
			status = CLI_RUNTIME;
			break;
		}
		if (len == 0)
			break;
		struct pktstats_dm_frame dm;
		enum pktstats_oam_error error;
		pktstats_dm_parse(frame, (size_t)len, &dm, &error);
		if (error != PKTSTATS_OAM_OK || dm.opcode != PKTSTATS_DM_OPCODE_1DM)
			continue;
		if (got == capacity) {
			struct one_dm *more = realloc(frames, 2 * capacity * sizeof *frames);
			if (!more) {
				status = CLI_RUNTIME;
				break;
			}
			frames = more;
			capacity *= 2;
		}
		struct one_dm *f = &frames[got++];
		uint32_t session;
		f->dm = dm;
		f->has_seq = dm_probe_numbers(&dm, &session, &f->seq);
		if (!f->has_seq)
			f->seq = 0;
		f->dm.data_tlv = NULL;
	}
	oam_link_close(&link);
	free(frame);

	struct series delay = {0}, variation = {0};
	uint64_t incomplete = 0, negative = 0;
	bool have_previous = false;
	int64_t previous = 0;
	out_begin();
	out_string("interface", o.ifname);
	out_table_begin("frames", one_way_columns, sizeof one_way_columns / sizeof one_way_columns[0]);
	for (uint64_t i = 0; i < got; i++) {
		const struct pktstats_dm_frame *dm = &frames[i].dm;
		int64_t d, v = 0;
		bool complete = dm_probe_one_way_delay(dm, &d);
		bool has_variation = false;
		const char *what = "ok";
		if (!complete) {
			what = "incomplete";
			incomplete++;
		} else {
			if (d < 0) {
				what = "negative";
				negative++;
			}
			series_add(&delay, d);
			if (have_previous) {
				v = d > previous ? d - previous : previous - d;
				series_add(&variation, v);
				has_variation = true;
			}
			previous = d;
			have_previous = true;
		}
		out_row_begin();
		out_uint("index", i + 1, NULL);
		out_string("source", mac_text(dm->source, 0));
		out_uint("level", dm->level, NULL);
		if (frames[i].has_seq)
			out_uint("seq", frames[i].seq, NULL);
		else
			out_string("seq", NULL);
		out_string("status", what);
		out_ns("delay-ns", d, complete);
		out_ns("variation-ns", v, has_variation);
		out_wire_time("tx-timestamp-f", dm->tx_timestamp_f, true);
		out_wire_time("rx-timestamp-f", dm->rx_timestamp_f, true);
		out_row_end();
	}
	out_table_end();
	out_object_begin("summary");
	out_uint("received", got, NULL);
	out_uint("incomplete", incomplete, NULL);
	out_uint("negative", negative, NULL);
	out_series("delay-ns", &delay);
	out_series("variation-ns", &variation);
	out_object_end();
	out_end();
	series_free(&delay);
	series_free(&variation);
	free(frames);
	if (status == CLI_OK && got == 0) {
		fflush(stdout);
		fprintf(stderr, "pktstats: dm one-way: no 1DM came in on %s within %" PRIu64 " ms\n",
			o.ifname, o.timeout_ms);
		status = CLI_RUNTIME;
	}
	return status;
}

static int dm_one_way(struct cli *cli, int argc, char **argv)
{
	if (argc < 1)
		return cli_usage(cli, "needs send or receive");
	if (!strcmp(argv[0], "send"))
		return dm_one_way_send(cli, argc - 1, argv + 1);
	if (!strcmp(argv[0], "receive"))
		return dm_one_way_receive(cli, argc - 1, argv + 1);
	return cli_usage(cli, "unknown word '%s' (send or receive)", argv[0]);
}

static const struct cli_verb dm_verbs[] = {
	{"two-way", "-i IFACE peer MAC [count N] [interval MS] [level L] [size BYTES] [vlan VID] "
		    "[timeout MS] [source MAC]",
	 "send DMMs, take the DMRs: two-way delay, one-way delays, delay variation",
	 "Sends count DMMs (default 10), one every interval ms (default 100), out of IFACE (the\n"
	 "CPU port's interface: an nf interface, a TAP of the simulator) to peer, and takes the\n"
	 "DMRs that come back on IFACE until timeout ms (default 1000) after the last DMM. The\n"
	 "DMMs carry zero stamps (the switch writes TxTimeStampf as each leaves, the peer\n"
	 "RxTimeStampf and TxTimeStampb, the switch RxTimeb as the DMR arrives) and a Data TLV\n"
	 "with this run's session and a sequence number, by which DMRs are matched.\n"
	 "  level L      MEL 0..7 (default 0)\n"
	 "  size BYTES   the frame's length without FCS, tag included: the Data TLV pads it\n"
	 "               (default and least 62, 66 tagged; at most 9022)\n"
	 "  vlan VID     one 802.1Q tag, 0..4094 (PCP 0)\n"
	 "  source MAC   default: IFACE's address\n"
	 "Per DMM (table; -j: frames): seq, status (ok, lost, incomplete: a stamp is 0,\n"
	 "negative: two-way below 0, kept as it is), vlan (the DMR's VID), two_way_ns = (RxTimeb - TxTimeStampf) -\n"
	 "(TxTimeStampb - RxTimeStampf), forward_ns = RxTimeStampf - TxTimeStampf, backward_ns =\n"
	 "RxTimeb - TxTimeStampb (meaningful with synchronised clocks), responder_ns, variation_ns\n"
	 "= |d(k) - d(k-1)| over the frames with delays, the four stamps. summary: sent,\n"
	 "received, lost, duplicates, unmatched (other DMRs), incomplete, negative; for\n"
	 "two_way_ns, forward_ns, backward_ns, variation_ns: count, min, avg, max, p50, p90, p99\n"
	 "(nearest rank). Exit 1 when no DMR came back. Needs CAP_NET_RAW, no device.\n",
	 dm_two_way},
	{"one-way", "send -i IFACE peer MAC [count N] [interval MS] [level L] [size BYTES] "
		    "[vlan VID] [source MAC] | receive -i IFACE [count N] [timeout MS]",
	 "send 1DMs, or take 1DMs: one-way delay and delay variation",
	 "send: count 1DMs (default 10) one every interval ms (default 100), zero stamps (the\n"
	 "switch writes TxTimeStampf as each leaves), a Data TLV with session and sequence;\n"
	 "level, size (default and least 60), vlan and source as for two-way.\n"
	 "Shows: interface, peer, source, level, size, session, sent.\n"
	 "receive: takes 1DMs on IFACE until count came (default: no limit) or none for timeout\n"
	 "ms (default 2000). Per 1DM (-j: frames): index, source, level, seq (from a Data TLV\n"
	 "of 8 bytes or more, else null), status (ok, incomplete, negative), delay_ns = RxTimef\n"
	 "- TxTimeStampf (meaningful with synchronised clocks), variation_ns, the two stamps.\n"
	 "summary: received, incomplete, negative, delay_ns and variation_ns figures as for\n"
	 "two-way. Exit 1 when none came. Needs CAP_NET_RAW, no device.\n",
	 dm_one_way},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_dm = {
	"dm", "Y.1731 frame delay measurement (DMM/DMR, 1DM) through an interface", dm_verbs,
};
