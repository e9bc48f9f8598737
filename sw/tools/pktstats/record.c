/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, command `record -i IFACE`: live capture of stat packets with libpcap (64 MiB
 * kernel buffer, the same BPF filter as `decode`, in the kernel), written to a pcap file (-w)
 * or decoded on the fly and printed like `decode`. Stops at -c COUNT stat packets, after -G
 * SECONDS, or on SIGINT/SIGTERM; in every case the file is flushed and closed, so it is valid,
 * and the kernel's counts (pcap_stats) are reported on stderr. Needs no device.
 */
#define _DEFAULT_SOURCE /* libpcap's headers use u_char */

#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "cli.h"
#include "decode_cmd.h"
#include "output.h"

#define RECORD_BUFFER_BYTES (64 << 20)
#define RECORD_SNAPLEN 262144
#define RECORD_POLL_MS 100

static pcap_t *volatile live;     /* for the signal handler */
static volatile sig_atomic_t stop;

static void on_signal(int signal_number)
{
	(void)signal_number;
	stop = 1;
	if (live)
		pcap_breakloop(live); /* async-signal-safe on Linux: a flag and an eventfd write */
}

struct record_state {
	const struct cli *cli;
	struct decode_options options;
	struct stat_reader *reader;
	pcap_dumper_t *dumper;
	uint64_t count, captured;
	bool nano;
};

static void on_frame(u_char *user, const struct pcap_pkthdr *header, const u_char *data)
{
	struct record_state *s = (struct record_state *)user;
	if (s->count && s->captured >= s->count)
		return;
	s->captured++;
	if (s->dumper) {
		pcap_dump((u_char *)s->dumper, header, data);
		if (s->count && s->captured >= s->count)
			pcap_breakloop(live);
		return;
	}
	uint64_t ns = (uint64_t)header->ts.tv_sec * 1000000000u +
		      (uint64_t)header->ts.tv_usec * (s->nano ? 1u : 1000u);
	struct stat_record rec;
	if (stat_reader_feed(s->reader, data, header->caplen, ns, &rec))
		decode_print_record(&s->options, stat_reader_stream(s->reader), &rec);
	if (s->count && s->captured >= s->count)
		pcap_breakloop(live);
}

static double seconds_now(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + now.tv_nsec / 1e9;
}

static int record_run(struct cli *cli, int argc, char **argv)
{
	struct record_state s = {.cli = cli};
	decode_default_options(&s.options);
	const char *interface = NULL, *file = NULL;
	uint64_t seconds = 0;
	for (int i = 0; i < argc; i++) {
		const char *word = argv[i];
		const char *value = i + 1 < argc ? argv[i + 1] : NULL;
		const char *error;
		if (!strcmp(word, "-i") || !strcmp(word, "-w")) {
			if (!value || !*value)
				return cli_usage(cli, "option '%s' needs %s", word,
						 word[1] == 'i' ? "an interface" : "a file");
			*(word[1] == 'i' ? &interface : &file) = value;
			i++;
		} else if (!strcmp(word, "-c")) {
			if (!value)
				return cli_usage(cli, "option '-c' needs a COUNT of stat packets");
			if ((error = parse_number(value, 1, UINT64_MAX, &s.count)))
				return cli_usage(cli, "count '%s': %s", value, error);
			i++;
		} else if (!strcmp(word, "-G")) {
			if (!value)
				return cli_usage(cli, "option '-G' needs SECONDS");
			if ((error = parse_duration_count(value, "s", 1, 86400u * 366, &seconds)))
				return cli_usage(cli, "seconds '%s': %s", value, error);
			i++;
		} else {
			int got = decode_parse_option(cli, argc, argv, &i, &s.options);
			if (got < 0)
				return cli_usage(cli, "unexpected argument '%s' (see pktstats record "
						 "--help)", word);
			if (got != CLI_OK)
				return got;
		}
	}
	if (!interface)
		return cli_usage(cli, "no interface: give -i IFACE");
	if (s.options.csv && s.options.json)
		return cli_usage(cli, "--csv and -j are two output formats: choose one");
	if (file && s.options.csv)
		return cli_usage(cli, "--csv prints decoded events; with -w nothing is printed");
	if (file && s.options.queues != (1u << PKTSTATS_QUEUES) - 1)
		return cli_usage(cli, "--queues selects the printed events; with -w the frames are "
				      "written whole");
	if (file && s.options.time_of_day)
		return cli_usage(cli, "--time-of-day gives the printed events' times; with -w "
				      "nothing is printed");
	int checked = decode_check_options(cli, &s.options);
	if (checked == CLI_OK)
		checked = decode_prepare(cli, &s.options);
	if (checked != CLI_OK)
		return checked;

	char error[PCAP_ERRBUF_SIZE > 512 ? PCAP_ERRBUF_SIZE : 512] = "";
	int err = stat_reader_open(&s.reader, NULL, 0, &s.options.reader, error, sizeof error);
	if (err < 0) {
		if (err == -EINVAL)
			return cli_usage(cli, "%s", error);
		fprintf(stderr, "pktstats: record: %s\n", strerror(-err));
		return CLI_RUNTIME;
	}
	int status = CLI_RUNTIME;
	pcap_t *p = pcap_create(interface, error);
	struct bpf_program program;
	bool have_program = false;
	if (!p) {
		fprintf(stderr, "pktstats: record: %s: %s\n", interface, error);
		goto out;
	}
	pcap_set_snaplen(p, RECORD_SNAPLEN);
	pcap_set_promisc(p, 1);
	pcap_set_timeout(p, RECORD_POLL_MS);
	pcap_set_buffer_size(p, RECORD_BUFFER_BYTES);
	s.nano = pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) == 0;
	err = pcap_activate(p);
	if (err < 0) {
		fprintf(stderr, "pktstats: record: %s: %s\n", interface,
			err == PCAP_ERROR ? pcap_geterr(p) : pcap_statustostr(err));
		goto out;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		fprintf(stderr, "pktstats: record: %s: not an Ethernet interface\n", interface);
		goto out;
	}
	if (pcap_compile(p, &program, stat_reader_filter(s.reader), 1,
			 PCAP_NETMASK_UNKNOWN) < 0 || (have_program = true,
			 pcap_setfilter(p, &program) < 0)) {
		fprintf(stderr, "pktstats: record: filter: %s\n", pcap_geterr(p));
		goto out;
	}
	if (file && !(s.dumper = pcap_dump_open(p, file))) {
		fprintf(stderr, "pktstats: record: %s\n", pcap_geterr(p));
		goto out;
	}
	live = p;
	struct sigaction action = {0};
	action.sa_handler = on_signal;
	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
	if (!file)
		decode_print_begin(&s.options);
	fflush(stdout); /* the heading says: capturing */
	double end = seconds ? seconds_now() + (double)seconds : 0;
	status = CLI_OK;
	/* Non-blocking reads after poll(): with TPACKET_V3 a blocking read waits for a full
	 * block, forever when nothing arrives, and -G could not stop. */
	int fd = pcap_get_selectable_fd(p);
	if (fd < 0 || pcap_setnonblock(p, 1, error) < 0) {
		fprintf(stderr, "pktstats: record: %s: cannot poll: %s\n", interface, error);
		status = CLI_RUNTIME;
		stop = 1;
	}
	while (!stop) {
		struct pollfd wait = {.fd = fd, .events = POLLIN};
		if (poll(&wait, 1, RECORD_POLL_MS) < 0 && errno != EINTR) {
			fprintf(stderr, "pktstats: record: poll: %s\n", strerror(errno));
			status = CLI_RUNTIME;
			break;
		}
		int got = pcap_dispatch(p, -1, on_frame, (u_char *)&s);
		if (got == PCAP_ERROR_BREAK)
			break;
		if (got == PCAP_ERROR) {
			fprintf(stderr, "pktstats: record: %s: %s\n", interface, pcap_geterr(p));
			status = CLI_RUNTIME;
			break;
		}
		if (s.dumper)
			pcap_dump_flush(s.dumper); /* whole records on disk after every batch */
		else
			fflush(stdout);
		if (s.count && s.captured >= s.count)
			break;
		if (seconds && seconds_now() >= end)
			break;
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	live = NULL;
	if (!file)
		decode_print_end();
	fflush(stdout);
	if (s.dumper) {
		if (pcap_dump_flush(s.dumper) < 0) {
			fprintf(stderr, "pktstats: record: %s: cannot write\n", file);
			status = CLI_RUNTIME;
		}
		pcap_dump_close(s.dumper);
		s.dumper = NULL;
	}
	struct pcap_stat stats;
	if (pcap_stats(p, &stats) == 0)
		fprintf(stderr, "pktstats: record: %" PRIu64 " stat packets captured, %u received "
			"by the filter, %u dropped by the kernel, %u dropped by the interface\n",
			s.captured, stats.ps_recv, stats.ps_drop, stats.ps_ifdrop);
	else
		fprintf(stderr, "pktstats: record: %" PRIu64 " stat packets captured; kernel "
			"drops unknown: %s\n", s.captured, pcap_geterr(p));
	if (!file)
		decode_report_problems(cli, s.reader);
out:
	if (s.dumper)
		pcap_dump_close(s.dumper);
	if (have_program)
		pcap_freecode(&program);
	if (p)
		pcap_close(p);
	stat_reader_close(s.reader);
	return status;
}

static const struct cli_verb record_verbs[] = {
	{"", "-i IFACE [-w FILE] [OPTIONS]",
	 "capture stat packets live from an interface (libpcap)",
	 "Captures the stat packets arriving at IFACE (promiscuous, 64 MiB kernel buffer, the\n"
	 "filter applied in the kernel) until COUNT, SECONDS or Ctrl-C (SIGINT, SIGTERM). At the\n"
	 "end it prints on stderr the packets captured and the kernel's drops (pcap_stats).\n"
	 "Needs CAP_NET_RAW. Needs no device.\n"
	 "\n"
	 "Options:\n"
	 "  -i IFACE           the interface\n"
	 "  -w FILE            write the frames to FILE, a pcap (nanosecond timestamps when the\n"
	 "                     system gives them), flushed after every batch and closed on\n"
	 "                     Ctrl-C: always a valid file; without -w the events are decoded on\n"
	 "                     the fly and printed as by pktstats decode\n"
	 "  -c COUNT           stop after COUNT stat packets (frames that passed the filter)\n"
	 "  -G SECONDS         stop after SECONDS seconds (whole seconds; unlike tcpdump -G the\n"
	 "                     file is not rotated)\n"
	 COMMON_OPTIONS
	 "\n"
	 EVENT_COLUMNS,
	 record_run},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_record = {
	"record", "Capture stat packets from a network interface (no device)", record_verbs,
};
