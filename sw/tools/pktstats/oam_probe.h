/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats tools: the probes `pktstats dm`, `pktstats headroom measure` and pktstats-exporter
 * send through a CPU port's interface (oam_link.h), and how the answers are told apart:
 *
 *   DM         a DMM or 1DM with zero stamps (the switches write them) and a Data TLV whose
 *              first 8 bytes are the sender's session number and the frame's sequence number,
 *              both big-endian; a DMR is ours when it carries both back (docs/oam.md);
 *   headroom   one request, then the first response until a deadline: the PDU has no sequence
 *              number, so a sender has one request out at a time.
 *
 * One definition for the CLI and the daemon, so that both send the same frames and count the
 * same answers. Prints nothing.
 */
#ifndef PKTSTATS_CLI_OAM_PROBE_H
#define PKTSTATS_CLI_OAM_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oam_link.h"
#include "pktstats/oam.h"

#define DM_PROBE_DATA_BYTES 8    /* session (4) + sequence (4) */
#define DM_PROBE_FRAME_MAX 9022  /* the largest frame a sender builds, without FCS */

/* ------------------------------------------------------------------------------------------ */
/* DM */

/* What every frame of one sender shares */
struct dm_probe {
	uint8_t peer[6], source[6];
	uint8_t level;      /* MEL 0..7 */
	bool tagged;
	uint16_t vid;       /* when tagged (PCP 0) */
	uint64_t size;      /* frame bytes without FCS, at least dm_probe_min_size() */
	uint32_t session;
};

/* The smallest frame: the Data TLV's 8 bytes at least, 60 bytes at least. */
uint64_t dm_probe_min_size(bool tagged, bool one_way);

/* A session number unlikely to repeat (time and process). */
uint32_t dm_probe_new_session(void);

/* A DMM or 1DM (opcode) with zero stamps and the Data TLV of (session, sequence), padded to
 * probe->size: its length, or -errno. */
int dm_probe_build(const struct dm_probe *probe, uint8_t opcode, uint32_t sequence, uint8_t *buf,
		   size_t size);

/* The session and sequence numbers of a parsed frame's Data TLV: false when it has no Data
 * TLV of 8 bytes or more (another sender's frame). */
bool dm_probe_numbers(const struct pktstats_dm_frame *dm, uint32_t *session, uint32_t *sequence);

enum dm_probe_reply {
	DM_PROBE_OTHER,     /* not a DMR: another protocol, our own DMMs, 1DMs: not counted */
	DM_PROBE_UNMATCHED, /* a DMR that is malformed, or not of this session */
	DM_PROBE_MATCHED,   /* a DMR of this session: *sequence is its DMM's */
};
/* Parses a frame received (into *dm, its data_tlv pointing into frame) and tells whether it
 * is a DMR of `session`. */
enum dm_probe_reply dm_probe_match(const uint8_t *frame, size_t len, uint32_t session,
				   struct pktstats_dm_frame *dm, uint32_t *sequence);

/* The one-way delay of a 1DM, RxTimef - TxTimeStampf: false when a stamp is still 0. */
bool dm_probe_one_way_delay(const struct pktstats_dm_frame *dm, int64_t *delay_ns);

/* ------------------------------------------------------------------------------------------ */
/* Headroom */

struct headroom_probe {
	int64_t sent_at_ns;   /* CLOCK_MONOTONIC, when the request was built */
	bool sent;            /* the request left */
	bool received;        /* a response came: response holds it */
	struct pktstats_headroom_frame response;
	uint64_t unexpected;  /* other 0x89A2 frames meanwhile: malformed, of an unknown type */
};

/*
 * One exchange on link: a request from source (t1..t4 zero: the switches write them), then the
 * first response until sent_at + timeout_ns. Returns 0 (probe->received says whether a
 * response came), -ECANCELED when stop_fd (-1: none) became readable, or -errno when the
 * request could not be sent (probe->sent false) or the interface failed while waiting.
 */
int headroom_probe_exchange(struct oam_link *link, const uint8_t source[6], int64_t timeout_ns,
			    int stop_fd, struct headroom_probe *probe);

/* One frame that came in while waiting, as headroom_probe_exchange() takes it: true when it is
 * a response (now probe->response, probe->received set); a malformed 0x89A2 frame or one of
 * another type than request or response is counted in probe->unexpected; other frames and
 * requests (ours looped back, another sender's) are ignored. */
bool headroom_probe_take(struct headroom_probe *probe, const uint8_t *frame, size_t len);

/* A response with all four stamps written (a stamp still 0 means a switch did not). */
bool headroom_probe_complete(const struct pktstats_headroom_frame *response);

#endif
