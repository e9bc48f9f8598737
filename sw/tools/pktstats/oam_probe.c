/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats tools: the DM and headroom probes and their answers (oam_probe.h).
 */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oam_probe.h"

#define HEADROOM_FRAME_MAX 2048

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static bool zero_time(struct pktstats_wire_time t)
{
	return t.seconds == 0 && t.nanoseconds == 0;
}

/* ------------------------------------------------------------------------------------------ */
/* DM */

/* A frame without the Data TLV's value: header, the fixed fields of the opcode, the Data
 * TLV's type and length, the End TLV. */
static uint64_t base_size(bool tagged, bool one_way)
{
	return (tagged ? 18 : 14) + 4 + (one_way ? 16 : 32) + 3 + 1;
}

uint64_t dm_probe_min_size(bool tagged, bool one_way)
{
	uint64_t size = base_size(tagged, one_way) + DM_PROBE_DATA_BYTES;
	return size < PKTSTATS_OAM_MIN_FRAME ? PKTSTATS_OAM_MIN_FRAME : size;
}

uint32_t dm_probe_new_session(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (uint32_t)t.tv_nsec ^ (uint32_t)t.tv_sec << 20 ^ (uint32_t)getpid() << 8;
}

int dm_probe_build(const struct dm_probe *probe, uint8_t opcode, uint32_t sequence, uint8_t *buf,
		   size_t size)
{
	bool one_way = opcode == PKTSTATS_DM_OPCODE_1DM;
	uint64_t base = base_size(probe->tagged, one_way);
	if (probe->size < dm_probe_min_size(probe->tagged, one_way) ||
	    probe->size > DM_PROBE_FRAME_MAX)
		return -EINVAL;
	/* the Data TLV pads the frame to its size: our 8 bytes, then zeros */
	uint8_t data[DM_PROBE_FRAME_MAX];
	size_t data_length = (size_t)(probe->size - base);
	memset(data, 0, data_length);
	put32(data, probe->session);
	put32(data + 4, sequence);
	struct pktstats_dm_frame dm = {
		.tagged = probe->tagged,
		.vlan_tci = probe->vid,
		.level = probe->level,
		.version = 0,
		.opcode = opcode,
		.data_tlv = data,
		.data_tlv_length = (uint16_t)data_length,
	};
	memcpy(dm.destination, probe->peer, 6);
	memcpy(dm.source, probe->source, 6);
	return pktstats_dm_build(&dm, buf, size);
}

bool dm_probe_numbers(const struct pktstats_dm_frame *dm, uint32_t *session, uint32_t *sequence)
{
	if (dm->data_tlv_length < DM_PROBE_DATA_BYTES || !dm->data_tlv)
		return false;
	*session = get32(dm->data_tlv);
	*sequence = get32(dm->data_tlv + 4);
	return true;
}

enum dm_probe_reply dm_probe_match(const uint8_t *frame, size_t len, uint32_t session,
				   struct pktstats_dm_frame *dm, uint32_t *sequence)
{
	enum pktstats_oam_error error;
	uint32_t theirs;
	pktstats_dm_parse(frame, len, dm, &error);
	if (error == PKTSTATS_OAM_NOT_OAM || dm->opcode != PKTSTATS_DM_OPCODE_DMR)
		return DM_PROBE_OTHER; /* our own DMMs looped back, 1DMs: not ours to count */
	if (error != PKTSTATS_OAM_OK || !dm_probe_numbers(dm, &theirs, sequence) ||
	    theirs != session)
		return DM_PROBE_UNMATCHED;
	return DM_PROBE_MATCHED;
}

bool dm_probe_one_way_delay(const struct pktstats_dm_frame *dm, int64_t *delay_ns)
{
	*delay_ns = pktstats_wire_time_diff(dm->rx_timestamp_f, dm->tx_timestamp_f);
	return !zero_time(dm->tx_timestamp_f) && !zero_time(dm->rx_timestamp_f);
}

/* ------------------------------------------------------------------------------------------ */
/* Headroom */

int headroom_probe_exchange(struct oam_link *link, const uint8_t source[6], int64_t timeout_ns,
			    int stop_fd, struct headroom_probe *probe)
{
	struct pktstats_headroom_frame request = {
		.destination = PKTSTATS_HEADROOM_DESTINATION,
		.subtype = 1,
		.version = 1,
		.type = PKTSTATS_HEADROOM_REQUEST,
	};
	uint8_t frame[HEADROOM_FRAME_MAX + 4];
	memset(probe, 0, sizeof *probe);
	memcpy(request.source, source, 6);
	probe->sent_at_ns = monotonic_ns();
	int len = pktstats_headroom_build(&request, frame, sizeof frame);
	int err = len < 0 ? len : oam_link_send(link, frame, (size_t)len);
	if (err < 0)
		return err;
	probe->sent = true;
	/* the first response within the timeout is this request's */
	int64_t deadline = probe->sent_at_ns + timeout_ns;
	while (!probe->received) {
		len = oam_link_receive_or_stop(link, frame, sizeof frame, deadline, stop_fd);
		if (len < 0)
			return len;
		if (len == 0)
			break;
		headroom_probe_take(probe, frame, (size_t)len);
	}
	return 0;
}

bool headroom_probe_take(struct headroom_probe *probe, const uint8_t *frame, size_t len)
{
	struct pktstats_headroom_frame h;
	enum pktstats_oam_error error;
	pktstats_headroom_parse(frame, len, &h, &error);
	if (error == PKTSTATS_OAM_NOT_OAM)
		return false;
	if (error != PKTSTATS_OAM_OK || h.type != PKTSTATS_HEADROOM_RESPONSE) {
		/* a request (ours, or another sender's) is no surprise */
		probe->unexpected += h.type != PKTSTATS_HEADROOM_REQUEST ||
				     error != PKTSTATS_OAM_OK;
		return false;
	}
	probe->response = h;
	probe->received = true;
	return true;
}

bool headroom_probe_complete(const struct pktstats_headroom_frame *h)
{
	return !zero_time(h->t1) && !zero_time(h->t2) && !zero_time(h->t3) && !zero_time(h->t4);
}
