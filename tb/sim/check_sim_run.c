/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_sim_run: checks one pktstats-sim run against its ground truth. Prints TAP.
 *
 * Inputs (what tb/sim/test_sim_system.py gives it):
 *   --truth FILE         the simulator's --truth CSV (cycle,queue,occupancy: one line per change,
 *                        occupancy after the clock's edge, in 64-bit words)
 *   --out P:FILE         the simulator's out= pcap of port P (every port that has one)
 *   --rx P:FILE          the simulator's rx= pcap of port P (with --conserve: every port)
 *   --stat-port P        the port whose out pcap carries the stat packets
 *   --udp-port N         their UDP destination port (default 27033)
 *   --queue-mask M       the queues captured (default 0xff)
 *   --window A:B:C:D     a capture window, in clocks: capture was surely off before A (the
 *                        enabling write was sent after it), surely on from B to C, surely off
 *                        again from D (C, D may be "-": on until the end). One per enable, in
 *                        order; each starts a new stat sequence at 0
 *   --conserve           capture covered all the traffic: check conservation too
 *   --hw-counters M,E,P  events_missed, events_sent and packets_sent read from the registers
 *   --figures FILE       write the figures as key=value lines for the driver
 *
 * What it checks, decoding every stat packet with the production decoder (libpktstats):
 *   1. every stat packet decodes; no sequence gap; no M flag; one sequence start per window;
 *   2. the hardware counters agree with the capture and nothing was missed;
 *   3. the first packet of each window carries the true queue sizes of its first event's clock,
 *      and every later packet's sizes continue the previous packet's reconstruction;
 *   4. per queue, every change of the true occupancy inside a window is matched, in order, by an
 *      event whose time bucket holds the change's clock (clock >> c == tick) and whose
 *      reconstructed occupancy is the true value; the occupancy after the last event of each
 *      tick equals the truth at the tick's last clock (skipped only for a queue's last tick
 *      before a disable or resolution change at c > 0, which the capture may cut);
 *   5. time: ticks never go back; no packet leaves before its last event happened; each
 *      window's events lie between the writes that enabled and disabled capture;
 *   6. (--conserve) frames sent to each queue, known from the rx pcaps and the static
 *      forwarding table the driver writes (02:00:00:00:00:<p+1> -> port p; group addresses are
 *      flooded to every port but the source), equal its arrival + drop events, length by length
 *      in order; its departures are the frames of its port's out pcap minus the stat packets,
 *      and those frames are exactly the arrived ones, byte for byte, in order; every queue ends
 *      empty.
 *
 * Units: the truth, the decoder's queue sizes and occupancy, and event lengths are all 64-bit
 * words. The truth's cycle and the evcap timer count the same clocks (the tests never reset the
 * timer), so an event at tick k and resolution c happened in clocks [k << c, (k + 1) << c).
 */
#define _DEFAULT_SOURCE /* libpcap's headers use u_char */

#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pktstats/decode.h"

#define PORTS 8
#define MAX_WINDOWS 16
#define MAC_PORTS 4          /* 0..3 Ethernet (frames padded to 60 bytes), 4..7 CPU */
#define MIN_ETHERNET_FRAME 60
#define CLOCK_NS 8
#define NO_LIMIT UINT64_MAX

/* ------------------------------------------------------------------------------------------ */
/* Small helpers */

static void die(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	fprintf(stderr, "check_sim_run: ");
	vfprintf(stderr, format, args);
	fprintf(stderr, "\n");
	va_end(args);
	printf("Bail out! check_sim_run could not run (see stderr)\n");
	exit(2);
}

static void *grow(void *array, size_t *capacity, size_t needed, size_t element)
{
	if (needed <= *capacity)
		return array;
	size_t next = *capacity ? *capacity : 64;
	while (next < needed)
		next *= 2;
	void *bigger = realloc(array, next * element);
	if (!bigger)
		die("out of memory");
	*capacity = next;
	return bigger;
}

static unsigned tests_run, tests_failed;

/* One TAP point; `detail` (may be empty) is printed as a comment when the point fails. */
static void report(bool ok, const char *name, const char *detail)
{
	tests_run++;
	tests_failed += !ok;
	printf("%s %u - %s\n", ok ? "ok" : "not ok", tests_run, name);
	if (!ok && detail && *detail)
		printf("# %s\n", detail);
}

/* The first failure of a check, for its TAP comment. */
struct failure {
	bool failed;
	char text[512];
};

static void fail_once(struct failure *f, const char *format, ...)
{
	if (f->failed)
		return;
	f->failed = true;
	va_list args;
	va_start(args, format);
	vsnprintf(f->text, sizeof f->text, format, args);
	va_end(args);
}

static uint64_t parse_number(const char *text, const char *what)
{
	char *end;
	errno = 0;
	unsigned long long value = strtoull(text, &end, 0);
	if (errno || end == text || *end)
		die("%s: '%s' is not a number", what, text);
	return value;
}

/* ------------------------------------------------------------------------------------------ */
/* Inputs */

struct frame {
	uint64_t ns;  /* pcap timestamp */
	uint32_t len;
	uint8_t port; /* rx: the port that delivered it */
	uint8_t *bytes;
};

struct frame_list {
	struct frame *v;
	size_t n, cap;
};

static void read_pcap(const char *path, unsigned port, struct frame_list *list)
{
	char error[PCAP_ERRBUF_SIZE];
	pcap_t *handle = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, error);
	if (!handle)
		die("%s: %s", path, error);
	struct pcap_pkthdr *header;
	const u_char *data;
	int status;
	while ((status = pcap_next_ex(handle, &header, &data)) == 1) {
		if (header->caplen != header->len)
			die("%s: frame %zu cut by the snapshot length", path, list->n + 1);
		list->v = grow(list->v, &list->cap, list->n + 1, sizeof *list->v);
		struct frame *f = &list->v[list->n++];
		f->ns = (uint64_t)header->ts.tv_sec * 1000000000u + (uint64_t)header->ts.tv_usec;
		f->len = header->caplen;
		f->port = (uint8_t)port;
		f->bytes = malloc(f->len ? f->len : 1);
		if (!f->bytes)
			die("out of memory");
		memcpy(f->bytes, data, f->len);
	}
	if (status != PCAP_ERROR_BREAK)
		die("%s: %s", path, pcap_geterr(handle));
	pcap_close(handle);
}

struct truth_line {
	uint64_t cycle;
	uint32_t value;
};

struct truth {
	struct truth_line *v[PORTS];
	size_t n[PORTS], cap[PORTS];
	uint64_t lines;
};

static void read_truth(const char *path, struct truth *truth)
{
	FILE *file = fopen(path, "r");
	if (!file)
		die("%s: %s", path, strerror(errno));
	char line[128];
	if (!fgets(line, sizeof line, file) || strcmp(line, "cycle,queue,occupancy\n") != 0)
		die("%s: not a truth CSV (header)", path);
	uint64_t number = 1;
	while (fgets(line, sizeof line, file)) {
		number++;
		unsigned long long cycle;
		unsigned queue, value;
		char extra;
		if (sscanf(line, "%llu,%u,%u%c", &cycle, &queue, &value, &extra) != 4 || extra != '\n' ||
		    queue >= PORTS)
			die("%s:%" PRIu64 ": malformed line", path, number);
		size_t *n = &truth->n[queue];
		if (*n && truth->v[queue][*n - 1].cycle >= cycle)
			die("%s:%" PRIu64 ": cycles of queue %u do not increase", path, number, queue);
		truth->v[queue] = grow(truth->v[queue], &truth->cap[queue], *n + 1, sizeof(struct truth_line));
		truth->v[queue][(*n)++] = (struct truth_line){cycle, value};
		truth->lines++;
	}
	fclose(file);
}

/* Index of the first line of queue q with cycle >= `cycle`. */
static size_t truth_lower_bound(const struct truth *truth, unsigned q, uint64_t cycle)
{
	size_t lo = 0, hi = truth->n[q];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (truth->v[q][mid].cycle < cycle)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* True occupancy of queue q after the edge of clock `cycle` (0 before the first change). */
static uint32_t truth_after(const struct truth *truth, unsigned q, uint64_t cycle)
{
	size_t i = truth_lower_bound(truth, q, cycle + 1);
	return i ? truth->v[q][i - 1].value : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Decoded capture */

struct event_rec {
	uint64_t tick;
	int64_t occupancy;
	uint32_t packet; /* index in packets[] */
	uint8_t type, queue, length, resolution;
};

struct packet_rec {
	uint64_t wire_ns; /* pcap time of the stat packet */
	uint64_t start_tick;
	uint32_t sequence;
	uint32_t snapshot[PORTS];
	size_t first_event, n_events;
	unsigned window;
	uint8_t resolution;
};

struct capture {
	struct event_rec *events;
	size_t n_events, cap_events;
	struct packet_rec *packets;
	size_t n_packets, cap_packets;
	uint64_t malformed, lost, missed_flags, sequence_starts;
	uint64_t timestamps; /* timestamp events, the first of each packet included */
	uint8_t resolutions_seen; /* bit c */
	struct failure decode;
};

static uint64_t first_clock(uint64_t tick, unsigned c) { return tick << c; }
static uint64_t last_clock(uint64_t tick, unsigned c) { return ((tick + 1) << c) - 1; }

/* Decodes the stat packets among `frames` into `cap`; is_stat[i] tells which frames were
 * stat packets (the others are traffic). */
static void decode_capture(const struct frame_list *frames, uint16_t udp_port, struct capture *cap,
			   bool *is_stat)
{
	struct pktstats_stream_options options;
	pktstats_stream_default_options(&options);
	options.udp_port = udp_port;
	options.decode.accept_v1 = false; /* the hardware emits version 2 only */
	static struct pktstats_stream stream;
	if (pktstats_stream_init(&stream, &options))
		die("pktstats_stream_init failed");
	static struct pktstats_event events[PKTSTATS_DECODE_MAX_EVENTS];
	for (size_t i = 0; i < frames->n; i++) {
		const struct frame *f = &frames->v[i];
		struct pktstats_stream_result result;
		int status = pktstats_stream_feed_frame(&stream, f->bytes, f->len, events,
							PKTSTATS_DECODE_MAX_EVENTS, &result);
		is_stat[i] = status != -ENOMSG;
		if (status == -ENOMSG)
			continue;
		if (status != 0) {
			fail_once(&cap->decode, "frame %zu: a stat packet that does not decode: %s (%d)", i,
				  pktstats_decode_strerror(result.reason), status);
			continue;
		}
		if (result.packet.sequence == 0)
			cap->sequence_starts++;
		if (result.seq_status != PKTSTATS_SEQ_FIRST && result.seq_status != PKTSTATS_SEQ_IN_ORDER &&
		    !(result.seq_status == PKTSTATS_SEQ_RESET && result.packet.sequence == 0))
			fail_once(&cap->decode, "frame %zu: sequence %" PRIu32 " is %s (expected %" PRIu32 ")",
				  i, result.packet.sequence, pktstats_seq_status_name(result.seq_status),
				  result.expected);
		if (cap->n_packets == 0 && result.packet.sequence != 0)
			fail_once(&cap->decode, "the first stat packet has sequence %" PRIu32 ", not 0",
				  result.packet.sequence);
		cap->packets = grow(cap->packets, &cap->cap_packets, cap->n_packets + 1, sizeof *cap->packets);
		struct packet_rec *p = &cap->packets[cap->n_packets];
		memset(p, 0, sizeof *p);
		p->wire_ns = f->ns;
		p->start_tick = result.packet.start_tick;
		p->sequence = result.packet.sequence;
		memcpy(p->snapshot, result.packet.queue_size, sizeof p->snapshot);
		p->first_event = cap->n_events;
		p->n_events = result.n_events;
		p->window = cap->sequence_starts ? (unsigned)cap->sequence_starts - 1 : 0;
		p->resolution = result.packet.resolution;
		cap->resolutions_seen |= (uint8_t)(1u << p->resolution);
		cap->timestamps += result.packet.n_timestamps;
		cap->events = grow(cap->events, &cap->cap_events, cap->n_events + result.n_events,
				   sizeof *cap->events);
		for (size_t k = 0; k < result.n_events; k++)
			cap->events[cap->n_events++] = (struct event_rec){
				.tick = events[k].tick,
				.occupancy = events[k].occupancy,
				.packet = (uint32_t)cap->n_packets,
				.type = events[k].type,
				.queue = events[k].queue,
				.length = events[k].length,
				.resolution = p->resolution,
			};
		cap->n_packets++;
	}
	cap->malformed = stream.total.malformed;
	cap->lost = stream.total.lost;
	cap->missed_flags = stream.total.missed_flags;
}

/* ------------------------------------------------------------------------------------------ */
/* Checks */

struct config {
	const char *truth_path;
	const char *out_path[PORTS];
	const char *rx_path[PORTS];
	int stat_port;
	uint16_t udp_port;
	uint8_t queue_mask;
	/* capture surely off before off_before, on in [window_start, window_end], off from off_after */
	uint64_t off_before[MAX_WINDOWS], window_start[MAX_WINDOWS], window_end[MAX_WINDOWS],
		off_after[MAX_WINDOWS];
	unsigned n_windows;
	bool conserve;
	bool have_hw;
	uint64_t hw_missed, hw_events, hw_packets;
	const char *figures_path;
};

struct queue_figures {
	uint64_t arrivals, departures, drops;
	uint64_t truth_lines, matched, tick_checks, frames_sent, frames_out;
	uint32_t max_length, peak;
};

/* 3. Queue sizes at the start of each packet. */
static void check_snapshots(const struct config *cfg, const struct capture *cap, const struct truth *truth)
{
	struct failure f = {0};
	int64_t end[PORTS] = {0}; /* reconstruction at the end of the previous packet */
	unsigned firsts = 0, continued = 0;
	for (size_t i = 0; i < cap->n_packets; i++) {
		const struct packet_rec *p = &cap->packets[i];
		bool first_of_window = i == 0 || p->window != cap->packets[i - 1].window;
		if (first_of_window) {
			/* The sizes are sampled in the first event's clock X, before its events: they
			 * are the truth after clock X - 1 for one X in the tick. */
			unsigned c = p->resolution;
			bool found = false;
			for (uint64_t x = first_clock(p->start_tick, c); x <= last_clock(p->start_tick, c) && !found; x++) {
				found = true;
				for (unsigned q = 0; q < PORTS && found; q++)
					if ((cfg->queue_mask >> q & 1) &&
					    p->snapshot[q] != (x ? truth_after(truth, q, x - 1) : 0))
						found = false;
			}
			if (!found) {
				unsigned q = 0;
				while (q < PORTS - 1 && !((cfg->queue_mask >> q & 1) &&
							  p->snapshot[q] != truth_after(truth, q, first_clock(p->start_tick, c) - 1)))
					q++;
				fail_once(&f, "window %u's first packet (seq %" PRIu32 ", tick %" PRIu64 ", c %u): "
					  "queue %u size %" PRIu32 ", truth before the tick %" PRIu32,
					  p->window, p->sequence, p->start_tick, c, q, p->snapshot[q],
					  truth_after(truth, q, first_clock(p->start_tick, c) - 1));
			}
			firsts++;
		} else {
			for (unsigned q = 0; q < PORTS; q++)
				if ((cfg->queue_mask >> q & 1) && p->snapshot[q] != end[q])
					fail_once(&f, "packet seq %" PRIu32 ": queue %u size %" PRIu32 ", but the previous "
						  "packet ended at %" PRId64, p->sequence, q, p->snapshot[q], end[q]);
			continued++;
		}
		for (unsigned q = 0; q < PORTS; q++)
			end[q] = p->snapshot[q];
		for (size_t k = 0; k < p->n_events; k++) {
			const struct event_rec *e = &cap->events[p->first_event + k];
			end[e->queue] = e->occupancy;
		}
	}
	char name[160];
	snprintf(name, sizeof name, "queue sizes: %u window starts equal the truth, %u packets continue "
		 "the previous one", firsts, continued);
	report(!f.failed && cap->n_packets > 0, name, f.text);
}

/* 4. Occupancy against the truth, per queue. */
static void check_occupancy(const struct config *cfg, const struct capture *cap, const struct truth *truth,
			    struct queue_figures *fig)
{
	struct failure f = {0};
	uint64_t matched_total = 0, lines_total = 0, ticks_total = 0;
	for (unsigned q = 0; q < PORTS; q++) {
		if (!(cfg->queue_mask >> q & 1))
			continue;
		/* q's events, in stream order */
		size_t n = 0;
		size_t *idx = malloc((cap->n_events + 1) * sizeof *idx);
		if (!idx)
			die("out of memory");
		for (size_t i = 0; i < cap->n_events; i++)
			if (cap->events[i].queue == q)
				idx[n++] = i;
		size_t pos = 0;     /* next event of q not yet matched */
		bool lost = false;  /* after a failed match, the remaining lines are only counted */
		for (unsigned w = 0; w < cfg->n_windows; w++) {
			/* the truth lines of this window, each matched to the earliest event after the
			 * previous match whose tick holds its clock and whose occupancy is its value */
			size_t line = truth_lower_bound(truth, q, cfg->window_start[w]);
			while (pos < n && cap->packets[cap->events[idx[pos]].packet].window < w)
				pos++;
			for (; line < truth->n[q] && truth->v[q][line].cycle <= cfg->window_end[w]; line++) {
				const struct truth_line *t = &truth->v[q][line];
				fig[q].truth_lines++;
				lines_total++;
				if (lost)
					continue;
				size_t k = pos;
				for (; k < n; k++) {
					const struct event_rec *e = &cap->events[idx[k]];
					if (cap->packets[e->packet].window != w)
						break;
					if ((t->cycle >> e->resolution) == e->tick && e->occupancy == (int64_t)t->value)
						break;
				}
				if (k == n || cap->packets[cap->events[idx[k]].packet].window != w) {
					fail_once(&f, "queue %u: true change at clock %" PRIu64 " to %" PRIu32
						  " has no matching event (window %u)", q, t->cycle, t->value, w);
					lost = true;
					continue;
				}
				pos = k + 1;
				fig[q].matched++;
				matched_total++;
			}
		}
		/* The occupancy after the last event of each tick is the truth at the tick's end. */
		for (size_t k = 0; k < n; k++) {
			const struct event_rec *e = &cap->events[idx[k]];
			bool last_of_tick = k + 1 == n || cap->events[idx[k + 1]].tick != e->tick ||
					    cap->events[idx[k + 1]].resolution != e->resolution ||
					    cap->packets[cap->events[idx[k + 1]].packet].window !=
						    cap->packets[e->packet].window;
			if (!last_of_tick)
				continue;
			/* At c > 0 a disable or resolution change can cut the tick: the events of its
			 * later clocks are not in this run, so the tick's end value is not checkable. */
			bool cut = e->resolution > 0 && (k + 1 == n || cap->events[idx[k + 1]].resolution != e->resolution ||
							  cap->packets[cap->events[idx[k + 1]].packet].window !=
								  cap->packets[e->packet].window);
			if (cut)
				continue;
			uint32_t want = truth_after(truth, q, last_clock(e->tick, e->resolution));
			if (e->occupancy != (int64_t)want)
				fail_once(&f, "queue %u: after tick %" PRIu64 " (c %u, clocks %" PRIu64 "..%" PRIu64
					  ") rebuilt %" PRId64 ", true %" PRIu32, q, e->tick, e->resolution,
					  first_clock(e->tick, e->resolution), last_clock(e->tick, e->resolution),
					  e->occupancy, want);
			fig[q].tick_checks++;
			ticks_total++;
		}
		free(idx);
	}
	char name[200];
	snprintf(name, sizeof name, "occupancy: %" PRIu64 " of %" PRIu64 " true changes matched event for "
		 "event, in order and in their tick; %" PRIu64 " tick ends compared with the truth",
		 matched_total, lines_total, ticks_total);
	report(!f.failed && matched_total == lines_total && lines_total > 0, name, f.text);
}

/* 5. Time. */
static void check_time(const struct config *cfg, const struct capture *cap)
{
	struct failure f = {0};
	uint64_t previous_clock = 0;
	for (size_t i = 0; i < cap->n_packets; i++) {
		const struct packet_rec *p = &cap->packets[i];
		for (size_t k = 0; k < p->n_events; k++) {
			const struct event_rec *e = &cap->events[p->first_event + k];
			/* An event stands for some clock of its tick; across a resolution change the
			 * ticks differ in size, so only require that the intervals can be in order. */
			if (last_clock(e->tick, e->resolution) < previous_clock)
				fail_once(&f, "packet seq %" PRIu32 " event %zu: tick %" PRIu64 " (c %u) is before clock %" PRIu64,
					  p->sequence, k, e->tick, e->resolution, previous_clock);
			previous_clock = first_clock(e->tick, e->resolution);
			if (p->window < cfg->n_windows &&
			    (last_clock(e->tick, e->resolution) < cfg->off_before[p->window] ||
			     first_clock(e->tick, e->resolution) >= cfg->off_after[p->window]))
				fail_once(&f, "packet seq %" PRIu32 " event %zu: tick %" PRIu64 " (c %u) is outside window %u, "
					  "clocks %" PRIu64 " to %" PRIu64 " when capture could be on", p->sequence, k, e->tick,
					  e->resolution, p->window, cfg->off_before[p->window], cfg->off_after[p->window]);
		}
		if (p->n_events) {
			const struct event_rec *last = &cap->events[p->first_event + p->n_events - 1];
			if (first_clock(last->tick, last->resolution) * CLOCK_NS > p->wire_ns)
				fail_once(&f, "packet seq %" PRIu32 " left at %" PRIu64 " ns, before its last event (tick %" PRIu64 ", c %u)",
					  p->sequence, p->wire_ns, last->tick, last->resolution);
		}
	}
	report(!f.failed, "time: event ticks never go back; every packet leaves after its last event; "
	       "each window's events lie between its enabling and disabling writes", f.text);
}

/* Destination ports of a frame delivered by `source`, under the static table. */
static uint8_t destination_mask(const struct frame *f, struct failure *why)
{
	const uint8_t *d = f->bytes;
	uint8_t flood = (uint8_t)(0xffu & ~(1u << f->port));
	if (f->len < 12)
		return 0; /* the switch counts it as too short and forwards nothing */
	if (d[0] & 1)
		return flood;
	if (d[0] == 0x02 && d[1] == 0 && d[2] == 0 && d[3] == 0 && d[4] == 0 && d[5] >= 1 && d[5] <= PORTS) {
		unsigned port = d[5] - 1u;
		return port == f->port ? 0 : (uint8_t)(1u << port);
	}
	fail_once(why, "a frame from port %u at %" PRIu64 " ns goes to %02x:%02x:%02x:%02x:%02x:%02x, "
		  "which is not in the static table", f->port, f->ns, d[0], d[1], d[2], d[3], d[4], d[5]);
	return flood;
}

static int by_time(const void *a, const void *b)
{
	const struct frame *x = a, *y = b;
	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

static uint8_t words_of(uint32_t bytes)
{
	uint32_t words = (bytes + 7) / 8;
	return (uint8_t)(words > 255 ? 255 : words);
}

/* 6. Conservation. */
static void check_conservation(const struct config *cfg, const struct capture *cap,
			       const struct frame_list *out, bool *const *out_is_stat, struct frame_list *rx,
			       const struct truth *truth, struct queue_figures *fig)
{
	struct failure sent_f = {0}, out_f = {0};
	/* The arbiter moves one whole frame at a time, so the first-word clocks order every frame
	 * that entered the switch, whatever its port. */
	qsort(rx->v, rx->n, sizeof *rx->v, by_time);
	for (size_t i = 1; i < rx->n; i++)
		if (rx->v[i].ns == rx->v[i - 1].ns)
			fail_once(&sent_f, "two frames entered the switch at %" PRIu64 " ns", rx->v[i].ns);
	if (cfg->window_start[0] * CLOCK_NS >= (rx->n ? rx->v[0].ns : 0) && rx->n)
		fail_once(&sent_f, "capture was not surely on before the first frame (clock %" PRIu64 ")",
			  cfg->window_start[0]);
	uint64_t total_sent = 0, total_in = 0, total_out = 0;
	for (unsigned q = 0; q < PORTS; q++) {
		if (!(cfg->queue_mask >> q & 1))
			continue;
		/* frames sent to q, in order */
		size_t n_sent = 0;
		const struct frame **sent = malloc((rx->n + 1) * sizeof *sent);
		if (!sent)
			die("out of memory");
		for (size_t i = 0; i < rx->n; i++)
			if (destination_mask(&rx->v[i], &sent_f) >> q & 1)
				sent[n_sent++] = &rx->v[i];
		fig[q].frames_sent = n_sent;
		total_sent += n_sent;
		/* arrivals and drops, in order, against them */
		size_t s = 0, n_arrived = 0;
		const struct frame **arrived = malloc((n_sent + 1) * sizeof *arrived);
		if (!arrived)
			die("out of memory");
		size_t d = 0; /* departures seen, matched against the out pcap below */
		const struct frame_list *o = &out[q];
		size_t next_out = 0;
		for (size_t i = 0; i < cap->n_events; i++) {
			const struct event_rec *e = &cap->events[i];
			if (e->queue != q)
				continue;
			if (e->type == PKTSTATS_EVENT_DEPARTURE) {
				/* the next frame out of port q that is not a stat packet */
				while (next_out < o->n && out_is_stat[q][next_out])
					next_out++;
				if (next_out >= o->n) {
					fail_once(&out_f, "queue %u: departure %zu has no frame in port %u's out pcap", q, d, q);
				} else {
					const struct frame *fo = &o->v[next_out];
					if (d >= n_arrived) {
						fail_once(&out_f, "queue %u: departure %zu before its arrival", q, d);
					} else {
						const struct frame *fa = arrived[d];
						/* a CPU port's frame reaches a MAC port padded to 60 bytes */
						uint32_t want_len = fa->len;
						if (q < MAC_PORTS && want_len < MIN_ETHERNET_FRAME)
							want_len = MIN_ETHERNET_FRAME;
						bool same = fo->len == want_len && memcmp(fo->bytes, fa->bytes, fa->len) == 0;
						for (uint32_t b = fa->len; same && b < fo->len; b++)
							same = fo->bytes[b] == 0;
						if (!same)
							fail_once(&out_f, "queue %u: frame %zu out of port %u (%" PRIu32 " bytes at %" PRIu64
								  " ns) is not the %zuth frame that arrived (%" PRIu32 " bytes from port %u at %" PRIu64 " ns)",
								  q, next_out, q, fo->len, fo->ns, d, fa->len, fa->port, fa->ns);
						if (e->length != words_of(fa->len))
							fail_once(&out_f, "queue %u: departure %zu has length %u words, its frame %" PRIu32 " bytes",
								  q, d, e->length, fa->len);
					}
					next_out++;
				}
				d++;
				continue;
			}
			if (s >= n_sent) {
				fail_once(&sent_f, "queue %u: more arrival and drop events than the %zu frames sent to it", q, n_sent);
				s++;
				continue;
			}
			if (e->length != words_of(sent[s]->len))
				fail_once(&sent_f, "queue %u: %s event %zu has length %u words; frame %zu sent to it "
					  "(port %u, %" PRIu64 " ns) has %" PRIu32 " bytes", q,
					  e->type == PKTSTATS_EVENT_ARRIVAL ? "arrival" : "drop", s, e->length, s,
					  sent[s]->port, sent[s]->ns, sent[s]->len);
			if (e->type == PKTSTATS_EVENT_ARRIVAL)
				arrived[n_arrived++] = sent[s];
			s++;
		}
		if (s != n_sent)
			fail_once(&sent_f, "queue %u: %zu frames sent to it, %zu arrival + drop events "
				  "(%" PRIu64 " + %" PRIu64 ")", q, n_sent, s, fig[q].arrivals, fig[q].drops);
		size_t traffic_out = 0;
		for (size_t i = 0; i < o->n; i++)
			traffic_out += !out_is_stat[q][i];
		fig[q].frames_out = traffic_out;
		total_out += traffic_out;
		total_in += n_arrived;
		if (d != traffic_out)
			fail_once(&out_f, "queue %u: %zu departures, %zu frames out of port %u (stat packets excluded)",
				  q, d, traffic_out, q);
		if (n_arrived != d)
			fail_once(&out_f, "queue %u: %zu arrivals but %zu departures: not drained", q, n_arrived, d);
		if (truth->n[q] && truth->v[q][truth->n[q] - 1].value != 0)
			fail_once(&out_f, "queue %u ends with %" PRIu32 " words in the truth", q,
				  truth->v[q][truth->n[q] - 1].value);
		free(arrived);
		free(sent);
	}
	char name[200];
	snprintf(name, sizeof name, "conservation: frames sent to each queue (%" PRIu64 " from %zu in the rx pcaps) "
		 "= its arrival + drop events, length by length", total_sent, rx->n);
	report(!sent_f.failed && rx->n > 0, name, sent_f.text);
	snprintf(name, sizeof name, "conservation: departures = frames in the out pcaps minus stat packets "
		 "(%" PRIu64 "), byte for byte the arrived frames, in order; queues drained", total_out);
	report(!out_f.failed && total_out == total_in, name, out_f.text);
}

/* ------------------------------------------------------------------------------------------ */

static void usage(void)
{
	fprintf(stderr,
		"usage: check_sim_run --truth FILE --stat-port P --out P:FILE... [--rx P:FILE...]\n"
		"         [--udp-port N] [--queue-mask M] [--window A:B:C:D]... [--conserve]\n"
		"         [--hw-counters MISSED,EVENTS,PACKETS] [--figures FILE]\n");
	exit(2);
}

static unsigned parse_port_path(const char *text, const char **path)
{
	const char *colon = strchr(text, ':');
	if (!colon || colon - text != 1 || text[0] < '0' || text[0] > '7' || !colon[1])
		die("'%s' is not P:FILE", text);
	*path = colon + 1;
	return (unsigned)(text[0] - '0');
}

int main(int argc, char **argv)
{
	struct config cfg = {.stat_port = -1, .udp_port = PKTSTATS_UDP_PORT, .queue_mask = 0xff};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		const char *path;
		if (!strcmp(a, "--conserve")) {
			cfg.conserve = true;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--truth")) {
			cfg.truth_path = v;
		} else if (!strcmp(a, "--out")) {
			unsigned p = parse_port_path(v, &path);
			cfg.out_path[p] = path;
		} else if (!strcmp(a, "--rx")) {
			unsigned p = parse_port_path(v, &path);
			cfg.rx_path[p] = path;
		} else if (!strcmp(a, "--stat-port")) {
			cfg.stat_port = (int)parse_number(v, a);
		} else if (!strcmp(a, "--udp-port")) {
			cfg.udp_port = (uint16_t)parse_number(v, a);
		} else if (!strcmp(a, "--queue-mask")) {
			cfg.queue_mask = (uint8_t)parse_number(v, a);
		} else if (!strcmp(a, "--window")) {
			if (cfg.n_windows == MAX_WINDOWS)
				die("more than %d windows", MAX_WINDOWS);
			uint64_t bound[4];
			char copy[128];
			snprintf(copy, sizeof copy, "%s", v);
			char *field = copy;
			for (int k = 0; k < 4; k++) {
				char *colon = strchr(field, ':');
				if ((k < 3) != (colon != NULL))
					die("--window '%s' is not A:B:C:D", v);
				if (colon)
					*colon = 0;
				bound[k] = k >= 2 && !strcmp(field, "-") ? NO_LIMIT : parse_number(field, a);
				field = colon ? colon + 1 : field;
			}
			if (!(bound[0] <= bound[1] && bound[1] <= bound[2] && bound[2] <= bound[3]))
				die("--window '%s': A <= B <= C <= D", v);
			unsigned w = cfg.n_windows;
			cfg.off_before[w] = bound[0], cfg.window_start[w] = bound[1];
			cfg.window_end[w] = bound[2], cfg.off_after[w] = bound[3];
			cfg.n_windows++;
		} else if (!strcmp(a, "--hw-counters")) {
			unsigned long long m, e, p;
			if (sscanf(v, "%llu,%llu,%llu", &m, &e, &p) != 3)
				die("--hw-counters '%s' is not MISSED,EVENTS,PACKETS", v);
			cfg.have_hw = true;
			cfg.hw_missed = m, cfg.hw_events = e, cfg.hw_packets = p;
		} else if (!strcmp(a, "--figures")) {
			cfg.figures_path = v;
		} else {
			usage();
		}
	}
	if (!cfg.truth_path || cfg.stat_port < 0 || cfg.stat_port >= PORTS || !cfg.out_path[cfg.stat_port])
		usage();
	if (cfg.n_windows == 0) {
		cfg.window_start[0] = 0;
		cfg.window_end[0] = NO_LIMIT;
		cfg.off_after[0] = NO_LIMIT;
		cfg.n_windows = 1;
	}

	static struct truth truth;
	read_truth(cfg.truth_path, &truth);
	struct frame_list out[PORTS] = {{0}}, rx = {0};
	bool *out_is_stat[PORTS] = {0};
	for (unsigned p = 0; p < PORTS; p++) {
		if (cfg.out_path[p])
			read_pcap(cfg.out_path[p], p, &out[p]);
		out_is_stat[p] = calloc(out[p].n + 1, sizeof(bool));
		if (!out_is_stat[p])
			die("out of memory");
		if (cfg.rx_path[p])
			read_pcap(cfg.rx_path[p], p, &rx);
	}

	/* 1. Decoding */
	static struct capture cap;
	decode_capture(&out[cfg.stat_port], cfg.udp_port, &cap, out_is_stat[cfg.stat_port]);
	/* Stat packets only ever leave the stat port. */
	for (unsigned p = 0; p < PORTS; p++) {
		if (p == (unsigned)cfg.stat_port)
			continue;
		struct capture other = {0};
		decode_capture(&out[p], cfg.udp_port, &other, out_is_stat[p]);
		if (other.n_packets)
			fail_once(&cap.decode, "%zu stat packets left port %u, which is not the stat port",
				  other.n_packets, p);
		free(other.events);
		free(other.packets);
	}
	char name[256];
	snprintf(name, sizeof name, "%zu stat packets, %zu events: all decode, no sequence gap, no M flag, "
		 "%" PRIu64 " sequence starts for %u windows", cap.n_packets, cap.n_events, cap.sequence_starts,
		 cfg.n_windows);
	struct failure f1 = cap.decode;
	if (cap.lost)
		fail_once(&f1, "%" PRIu64 " stat packets lost (sequence gaps)", cap.lost);
	if (cap.missed_flags)
		fail_once(&f1, "%" PRIu64 " stat packets have the M flag", cap.missed_flags);
	if (cap.sequence_starts != cfg.n_windows)
		fail_once(&f1, "%" PRIu64 " sequence starts, %u windows", cap.sequence_starts, cfg.n_windows);
	report(!f1.failed && cap.malformed == 0 && cap.n_packets > 0, name, f1.text);

	struct queue_figures fig[PORTS];
	memset(fig, 0, sizeof fig);
	struct failure mask_f = {0};
	for (size_t i = 0; i < cap.n_events; i++) {
		const struct event_rec *e = &cap.events[i];
		struct queue_figures *qf = &fig[e->queue];
		if (e->type == PKTSTATS_EVENT_ARRIVAL)
			qf->arrivals++;
		else if (e->type == PKTSTATS_EVENT_DEPARTURE)
			qf->departures++;
		else
			qf->drops++;
		if (e->length > qf->max_length)
			qf->max_length = e->length;
		if (e->occupancy > (int64_t)qf->peak)
			qf->peak = (uint32_t)e->occupancy;
		if (!(cfg.queue_mask >> e->queue & 1))
			fail_once(&mask_f, "an event of queue %u, outside the queue mask 0x%02x", e->queue, cfg.queue_mask);
	}

	/* 2. Hardware counters */
	if (cfg.have_hw) {
		snprintf(name, sizeof name, "registers: events_missed %" PRIu64 ", events_sent %" PRIu64
			 " = events decoded, packets_sent %" PRIu64 " = stat packets captured",
			 cfg.hw_missed, cfg.hw_events, cfg.hw_packets);
		char detail[160];
		snprintf(detail, sizeof detail, "decoded %zu events in %zu stat packets", cap.n_events, cap.n_packets);
		report(cfg.hw_missed == 0 && cfg.hw_events == cap.n_events && cfg.hw_packets == cap.n_packets,
		       name, detail);
	}
	report(!mask_f.failed, "only the queues in the queue mask have events", mask_f.text);
	check_snapshots(&cfg, &cap, &truth);
	check_occupancy(&cfg, &cap, &truth, fig);
	check_time(&cfg, &cap);
	if (cfg.conserve)
		check_conservation(&cfg, &cap, out, out_is_stat, &rx, &truth, fig);

	printf("# queue  arrivals departures    drops  max_len  peak  true_changes  matched  tick_ends  "
	       "frames_sent  frames_out\n");
	for (unsigned q = 0; q < PORTS; q++)
		printf("# %5u %9" PRIu64 " %10" PRIu64 " %8" PRIu64 " %8" PRIu32 " %5" PRIu32 " %13" PRIu64
		       " %8" PRIu64 " %10" PRIu64 " %12" PRIu64 " %11" PRIu64 "\n",
		       q, fig[q].arrivals, fig[q].departures, fig[q].drops, fig[q].max_length, fig[q].peak,
		       fig[q].truth_lines, fig[q].matched, fig[q].tick_checks, fig[q].frames_sent, fig[q].frames_out);
	printf("# truth lines %" PRIu64 ", resolutions seen 0x%02x, %" PRIu64 " timestamp events\n", truth.lines,
	       cap.resolutions_seen, cap.timestamps);
	if (cfg.figures_path) {
		FILE *file = fopen(cfg.figures_path, "w");
		if (!file)
			die("%s: %s", cfg.figures_path, strerror(errno));
		fprintf(file, "packets=%zu\nevents=%zu\nresolutions=%u\nsequence_starts=%" PRIu64
			"\ntimestamps=%" PRIu64 "\n", cap.n_packets, cap.n_events, cap.resolutions_seen,
			cap.sequence_starts, cap.timestamps);
		for (unsigned q = 0; q < PORTS; q++)
			fprintf(file, "q%u=%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu32 ",%" PRIu32 "\n", q,
				fig[q].arrivals, fig[q].departures, fig[q].drops, fig[q].max_length, fig[q].peak);
		fclose(file);
	}
	printf("1..%u\n", tests_run);

	for (unsigned p = 0; p < PORTS; p++) {
		for (size_t i = 0; i < out[p].n; i++)
			free(out[p].v[i].bytes);
		free(out[p].v);
		free(out_is_stat[p]);
		free(truth.v[p]);
	}
	for (size_t i = 0; i < rx.n; i++)
		free(rx.v[i].bytes);
	free(rx.v);
	free(cap.events);
	free(cap.packets);
	return tests_failed ? 1 : 0;
}
