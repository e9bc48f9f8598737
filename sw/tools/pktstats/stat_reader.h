/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: reading stat packets out of captures, for `decode`, `record` and `plot`.
 *
 *   struct stat_reader *r;
 *   stat_reader_open(&r, paths, n_paths, &options, error, sizeof error);
 *   struct stat_record rec;
 *   while ((err = stat_reader_next(r, &rec)) != 0) {
 *           if (err < 0) { report stat_reader_error(r); continue; }   a file failed: next one
 *           if (rec.status != STAT_RECORD_PACKET) continue;            malformed: counted
 *           for (size_t i = 0; i < rec.n_events; i++) use rec.events[i];
 *   }
 *   stat_reader_stream(r), stat_reader_counts(r): totals; stat_reader_summary(r): per queue
 *   (summary_only); stat_reader_close(r).
 *
 * Files: pcap (microsecond or nanosecond) and pcapng, through libpcap, opened with nanosecond
 * precision ("-" is standard input, once at most). The files are read in order as one capture:
 * one pktstats_stream (decode.h) tracks sequence numbers per source across them (e.g. the
 * files of consecutive recordings).
 *
 * Filter: every frame goes through a BPF filter first (default STAT_READER_DEFAULT_FILTER with
 * the options' UDP port, which also matches one 802.1Q tag); frames it rejects are counted in
 * filtered and never seen. With the default filter the stream also checks the UDP destination
 * port; with a filter of the caller's own, any UDP port is decoded as a stat packet (the filter
 * is the selection).
 *
 * Units (all explicit; see decode.h for struct pktstats_event):
 *   time        events[i].time_ns: absolute, ns since the hardware timer's last reset,
 *               (tick << c) * 8; rec.capture_ns: the pcap timestamp, ns since the Unix epoch;
 *   length      events[i].length is in 64-bit words (255 = 255 or more): bytes = words * 8
 *               (STAT_BYTES()), so 2040 bytes means 2040 or more;
 *   occupancy   events[i].occupancy is in 64-bit words after the event (like the simulator's
 *               truth CSV): bytes = words * 8.
 *
 * Nothing here prints or exits. Functions return 0 / a count, or a negative errno with a
 * one-line text in stat_reader_error().
 */
#ifndef PKTSTATS_CLI_STAT_READER_H
#define PKTSTATS_CLI_STAT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pktstats/decode.h"
#include "pktstats/format.h"
#include "pktstats/sojourn.h"

/* printf format of the default filter; %u is the UDP port. */
#define STAT_READER_DEFAULT_FILTER "udp dst port %u or (vlan and udp dst port %u)"

/* Words (the unit of the hardware's lengths and occupancy) to bytes. */
#define STAT_BYTES(words) ((int64_t)(words) * 8)

struct stat_reader_options {
	uint16_t udp_port;     /* stat packets' UDP destination port (default PKTSTATS_UDP_PORT) */
	const char *filter;    /* BPF filter of the caller's own, or NULL for the default */
	bool summary_only;     /* the caller wants no events but the summary: stat_reader_next()
				  fills rec.events = NULL, n_events = 0 and adds each packet to the
				  summary (stat_reader_summary) in the decoder's summary mode;
				  otherwise rec.events is filled and there is no summary */
	uint8_t v1_resolution; /* c for format version 1 packets (0..7, default 0) */
	bool raw_frames;       /* every frame that passes the filter is handed over as it is
				  (STAT_RECORD_RAW, data and captured), nothing decoded: for
				  readers of other protocols (`oam decode`) */
	bool sojourn;          /* pair each queue's departures with their arrivals
				  (pktstats/sojourn.h): rec.sojourns, stat_reader_sojourn(); in
				  summary_only mode each packet's events are decoded a second time
				  for it */
	uint32_t queue_words;  /* sojourn: most words a queue holds (0: the switch's, 4096) */
};

void stat_reader_default_options(struct stat_reader_options *options);

/* What one record is. */
enum stat_record_status {
	STAT_RECORD_PACKET = 0,  /* a stat packet, decoded (its events, if wanted, in events) */
	STAT_RECORD_MALFORMED,   /* a frame that passed the filter but does not decode: reason */
	STAT_RECORD_RAW,         /* raw_frames: a frame that passed the filter, not decoded */
};

/* One frame that passed the filter and is (or claims to be) a stat packet. Frames that are no
 * stat packet at all (not IPv4/UDP, another port) are only counted (stat_reader_counts). */
struct stat_record {
	enum stat_record_status status;
	const char *file;           /* the file it came from (the caller's string) */
	uint64_t frame;             /* 1-based frame number in that file (as Wireshark counts) */
	uint64_t capture_ns;        /* pcap timestamp, ns since the epoch */
	enum pktstats_decode_error reason; /* MALFORMED: why (pktstats_decode_strerror()) */
	struct pktstats_stream_result result; /* the stream's view: packet header (sequence, M
						flag, resolution, queue sizes in words),
						sequence status, lost packets, source index */
	const struct pktstats_event *events; /* PACKET without summary_only: the packet's events
						in order; valid until the next call */
	size_t n_events;
	const struct pktstats_sojourn *sojourns; /* sojourn: the frames this packet's
						    departures timed, valid until the next call */
	size_t n_sojourns;
	const uint8_t *data;        /* RAW: the frame as captured, valid until the next call */
	size_t captured;            /* its captured length */
};

/* Frame counts beyond the stream's (pktstats_stream: packets, events, malformed, lost, gaps,
 * resets, reordered, duplicates, missed_flags, per source and total). */
struct stat_reader_counts {
	uint64_t files;             /* files opened */
	uint64_t frames;            /* frames read from the files (before the filter) */
	uint64_t filtered;          /* frames the BPF filter rejected */
	uint64_t malformed[PKTSTATS_DECODE_ERROR_COUNT]; /* by reason */
	uint64_t ignored[PKTSTATS_DECODE_ERROR_COUNT];   /* passed the filter but not a stat
							    packet (not IPv4/UDP, fragment, other
							    port), by reason */
	uint64_t bad_link;          /* files skipped: link type not Ethernet */
};

struct stat_reader;

/*
 * Opens a reader over paths[0..n_paths) (kept by reference; read in order when next() gets to
 * them). Checks the options and compiles the filter (against Ethernet). Returns 0, -EINVAL
 * (bad options or filter: text in error), -ENOMEM. The files are opened by next().
 */
int stat_reader_open(struct stat_reader **reader, const char *const *paths, size_t n_paths,
		     const struct stat_reader_options *options, char *error, size_t error_size);

/*
 * The next record. Returns 1 (rec filled), 0 (all files read), or a negative errno when a file
 * could not be opened or read, or is not Ethernet (stat_reader_error() says which and why; the
 * reader has moved on: call next() again for the following files).
 */
int stat_reader_next(struct stat_reader *reader, struct stat_record *rec);

/*
 * For live capture (`record`) and tests: feeds one captured frame (Ethernet), as next() does
 * for a file's frame, filter excepted (a live capture filters in the kernel). Returns 1 (rec
 * filled) or 0 (not a stat packet: counted as ignored). rec.file is NULL.
 */
int stat_reader_feed(struct stat_reader *reader, const uint8_t *frame, size_t captured,
		     uint64_t capture_ns, struct stat_record *rec);

/* The BPF filter expression in use (the default one filled in). */
const char *stat_reader_filter(const struct stat_reader *reader);
/* The last error's text ("FILE: reason"), "" if none. */
const char *stat_reader_error(const struct stat_reader *reader);
/* The stream: sequence tracking per source, totals (decode.h). */
const struct pktstats_stream *stat_reader_stream(const struct stat_reader *reader);
const struct stat_reader_counts *stat_reader_counts(const struct stat_reader *reader);
/* summary_only: the summary of the packets read so far (decode.h: struct pktstats_summary,
 * means with pktstats_summary_mean()); all zero otherwise. */
const struct pktstats_summary *stat_reader_summary(const struct stat_reader *reader);
/* sojourn: the matcher, for its counts (pktstats_sojourn_counts/_total); NULL otherwise. */
const struct pktstats_sojourn_matcher *stat_reader_sojourn(const struct stat_reader *reader);

void stat_reader_close(struct stat_reader *reader);

#endif
