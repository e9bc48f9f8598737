/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: Y.1731 frame delay (docs/oam.md), two-way and one-way, each session on a
 * thread of its own with a packet socket on the CPU port's interface (measurements.h).
 *
 * dm_session, two-way: one DMM every interval to the peer MEP, built as `pktstats dm two-way`
 * builds them (oam_probe.h: zero stamps, a Data TLV with this session's number and the DMM's
 * sequence number), from the port's MEP address (oam.port_mac_P, read through the switch's
 * device) so that the switch takes the DMRs as its MEP's and writes RxTimeb; without a device
 * (or when it cannot be read), from the interface's address. Between two DMMs it takes the
 * DMRs:
 *
 *   received     a DMR of this session whose DMM is still waiting (the first one for it);
 *   delay        (RxTimeb - TxTimeStampf) - (TxTimeStampb - RxTimeStampf) of each received
 *                DMR with four stamps (else invalid "incomplete") and not below 0 (else
 *                invalid "negative"): observed, and the last one kept;
 *   variation    Y.1731's inter-frame delay variation as MEF 10.3 selects its pairs: |D(i) -
 *                D(i-1)| of two DMMs of consecutive sequence numbers whose delays were both
 *                observed, whatever order their DMRs came in (one lost or invalid frame drops
 *                the two pairs it belongs to; none is made across it);
 *   lost         a DMM without its DMR when its timeout passed; a DMR coming after that is
 *                invalid "unmatched" (the loss stands), as is a DMR of another session or a
 *                malformed one; a second DMR for one DMM is "duplicate".
 *
 * The DMMs that may still be answered are kept in a ring sized at start from timeout /
 * interval, so memory is fixed whatever arrives; a DMM that would not fit is counted lost
 * early (only a thread late by more than the timeout gets there).
 *
 * one_way_session: every 1DM that comes up on the interface (the switch passes up those for
 * its MEP, RxTimef written). Per source MAC (at most 64; more: invalid "too_many_sources"),
 * by the Data TLV's session and sequence numbers of `pktstats dm one-way send`:
 *
 *   lost         a jump of the sequence by k (1 < k <= 2^16) counts k - 1 lost;
 *   resync       a jump beyond 2^16, or a new session number (the sender started again):
 *                followed from there, nothing counted lost;
 *   out_of_order a sequence number at or behind the last one by at most 2^16 (duplicated
 *                or late): invalid, and the sequence is not moved back;
 *   delay        RxTimef - TxTimeStampf (meaningful with synchronised clocks), observed when
 *                both stamps are there (else "incomplete") and not below 0 (else "negative");
 *   variation    |D(i) - D(i-1)| of consecutive sequence numbers of one source and session.
 *
 * A 1DM without such a Data TLV (another MEP's) gives its delay only. Every 1DM received is
 * either observed or invalid, for one reason: received = delays + invalid.
 *
 * An interface that is missing or fails (a send, a receive: the interface went away) is
 * logged once per change and opened again after a backoff (1 s doubling to retry-max); the
 * intervals meanwhile send nothing. Render copies each session's figures under its own lock.
 */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "log.h"
#include "measure_common.h"
#include "measurements.h"
#include "oam_link.h"
#include "oam_probe.h"

#define DM_RECEIVE_MAX (DM_PROBE_FRAME_MAX + 4) /* a frame and the tag the kernel took out */
#define ONE_WAY_SOURCES_MAX 64
#define ONE_WAY_JUMP_MAX (UINT32_C(1) << 16)
#define ONE_WAY_IDLE_NS MEASURE_NS_PER_S /* a wait for 1DMs, then the loop looks around */

/* ------------------------------------------------------------------------------------------ */
/* Two-way */

enum dm_invalid { DM_INCOMPLETE, DM_NEGATIVE, DM_UNMATCHED, DM_DUPLICATE, DM_INVALID_COUNT };
static const char *const dm_invalid_names[DM_INVALID_COUNT] = {"incomplete", "negative",
								"unmatched", "duplicate"};

struct dm_figures {
	struct delay_histogram delay, variation;
	uint64_t sent, received, lost, invalid[DM_INVALID_COUNT];
	bool have_last;
	int64_t last_ns;
};

/* A DMM sent: what its DMR may still change */
struct dm_slot {
	uint64_t number;   /* the DMM's sequence number (the TLV carries its low 32 bits) */
	int64_t sent_ns;   /* CLOCK_MONOTONIC */
	bool answered, lost, have_delay;
	int64_t delay_ns;
};

struct dm_session {
	struct exporter_dm_config config;
	char device[256];       /* the switch's, for the MEP address; "" none */
	char peer[18];
	char what[128];         /* the log lines' prefix */
	uint64_t retry_max_ns;
	int stop_fd;
	pthread_t thread;
	pthread_mutex_t lock;
	struct dm_figures figures; /* under lock */
	/* the thread's own */
	struct dm_slot *ring;
	uint64_t ring_size;
	uint8_t *frame;
	uint64_t next, oldest;  /* the next DMM's number; the oldest not answered nor lost */
};

static void dm_free(struct dm_session *s)
{
	if (s->stop_fd >= 0)
		close(s->stop_fd);
	free(s->ring);
	free(s->frame);
	free(s);
}

/* The DMMs whose timeout passed without a DMR are lost; the window moves past them and past
 * those answered. */
static void dm_expire(struct dm_session *s, int64_t now)
{
	while (s->oldest < s->next) {
		struct dm_slot *slot = &s->ring[s->oldest % s->ring_size];
		if (!slot->answered && !slot->lost) {
			if (slot->sent_ns + (int64_t)s->config.timeout_ns > now)
				break;
			slot->lost = true;
			pthread_mutex_lock(&s->lock);
			s->figures.lost++;
			pthread_mutex_unlock(&s->lock);
		}
		s->oldest++;
	}
}

/* Room for the next DMM, with the slot of the one before the oldest kept for its variation
 * pair: the oldest waiting is given up (lost) when the ring is that full. */
static void dm_make_room(struct dm_session *s)
{
	while (s->next - s->oldest > s->ring_size - 2) {
		struct dm_slot *slot = &s->ring[s->oldest % s->ring_size];
		if (!slot->answered && !slot->lost) {
			slot->lost = true;
			pthread_mutex_lock(&s->lock);
			s->figures.lost++;
			pthread_mutex_unlock(&s->lock);
		}
		s->oldest++;
	}
}

/* The slot of DMM number, if the ring still holds it */
static struct dm_slot *dm_slot_of(struct dm_session *s, uint64_t number)
{
	struct dm_slot *slot = &s->ring[number % s->ring_size];
	return slot->number == number ? slot : NULL;
}

static void dm_variation(struct dm_session *s, const struct dm_slot *a, const struct dm_slot *b)
{
	if (a && b && a->have_delay && b->have_delay) {
		int64_t v = a->delay_ns - b->delay_ns;
		delay_histogram_observe(&s->figures.variation, (uint64_t)(v < 0 ? -v : v));
	}
}

/* A frame that came in: a DMR of ours or not */
static void dm_take(struct dm_session *s, const uint8_t *frame, size_t len, uint32_t session)
{
	struct pktstats_dm_frame dm;
	uint32_t number32;
	enum dm_probe_reply reply = dm_probe_match(frame, len, session, &dm, &number32);
	if (reply == DM_PROBE_OTHER)
		return;
	/* the DMM it answers, among the last ring_size sent (our numbers never wrap: the low 32
	 * bits tell them apart within the ring) */
	uint64_t back = (uint32_t)((uint32_t)s->next - number32);
	struct dm_slot *slot = NULL;
	if (reply == DM_PROBE_MATCHED && back >= 1 && back <= s->ring_size && back <= s->next)
		slot = dm_slot_of(s, s->next - back);
	pthread_mutex_lock(&s->lock);
	struct dm_figures *f = &s->figures;
	if (!slot || slot->lost) {
		f->invalid[DM_UNMATCHED]++;
	} else if (slot->answered) {
		f->invalid[DM_DUPLICATE]++;
	} else {
		struct pktstats_dm_delays d;
		slot->answered = true;
		f->received++;
		if (pktstats_dm_delays(&dm, &d) < 0) {
			f->invalid[DM_INCOMPLETE]++;
		} else if (d.two_way < 0) {
			f->invalid[DM_NEGATIVE]++;
		} else {
			delay_histogram_observe(&f->delay, (uint64_t)d.two_way);
			f->have_last = true;
			f->last_ns = d.two_way;
			slot->have_delay = true;
			slot->delay_ns = d.two_way;
			if (slot->number > 0)
				dm_variation(s, slot, dm_slot_of(s, slot->number - 1));
			if (slot->number + 1 < s->next)
				dm_variation(s, dm_slot_of(s, slot->number + 1), slot);
		}
	}
	pthread_mutex_unlock(&s->lock);
}

/* The DMMs' source: the port's MEP address when the device tells it. false when it did not
 * (the interface's address is used, and the device is asked again later). */
static bool dm_source(struct dm_session *s, const struct oam_link *link, struct dm_probe *probe,
		      struct measure_log *log)
{
	char detail[PKTSTATS_ERROR_MAX + 300];
	memcpy(probe->source, link->mac, 6);
	if (!*s->device)
		return true;
	int err = measure_port_mac(s->device, s->config.port, probe->source, detail, sizeof detail);
	if (err == 0) {
		measure_log_success(log);
		return true;
	}
	char text[sizeof detail + 40], more[160], mac[18];
	format_mac(link->mac, mac, sizeof mac);
	snprintf(text, sizeof text, "the port's MEP address: %s", detail);
	snprintf(more, sizeof more, "DMMs from %s's address %s (their DMRs come back incomplete "
		 "unless it is the MEP's)", link->name, mac);
	measure_log_failure(log, s->what, text, more);
	return false;
}

static void *dm_run(void *argument)
{
	struct dm_session *s = argument;
	struct oam_link link = {.fd = -1};
	struct dm_probe probe = {
		.level = (uint8_t)s->config.level,
		.tagged = s->config.tagged,
		.vid = (uint16_t)s->config.vid,
		.session = dm_probe_new_session(),
	};
	memcpy(probe.peer, s->config.peer, 6);
	probe.size = dm_probe_min_size(probe.tagged, false);
	if (s->config.size > probe.size)
		probe.size = s->config.size;
	const int64_t interval = (int64_t)s->config.interval_ns;
	struct measure_backoff backoff, source_backoff;
	measure_backoff_init(&backoff, s->retry_max_ns);
	measure_backoff_init(&source_backoff, s->retry_max_ns);
	struct measure_log log = {{0}}, source_log = {{0}};
	int64_t retry_at = 0, send_at = 0, source_at = INT64_MAX;
	bool first = true;
	char error[512], text[768], wait[64], mac[18];

	for (;;) {
		int64_t now = measure_monotonic_ns();
		if (link.fd < 0) {
			if (now < retry_at) {
				if (measure_wait(s->stop_fd, retry_at))
					break;
				continue;
			}
			const char *name = s->config.interface;
			int err = measure_link_open(&link, name, error, sizeof error);
			if (err < 0) {
				int64_t w = measure_backoff_next(&backoff);
				measure_backoff_text(&backoff, w, wait, sizeof wait);
				measure_log_failure(&log, s->what, error, wait);
				retry_at = now + w;
				continue;
			}
			source_at = dm_source(s, &link, &probe, &source_log)
					    ? INT64_MAX
					    : now + measure_backoff_next(&source_backoff);
			if (measure_log_success(&log) || first) {
				format_mac(probe.source, mac, sizeof mac);
				format_duration(s->config.interval_ns, wait, sizeof wait);
				exporter_log("%s: DMMs from %s out of %s every %s, session "
					     "%08" PRIx32, s->what, mac, link.name, wait,
					     probe.session);
			}
			first = false;
			measure_backoff_reset(&backoff);
			send_at = now;
		}
		if (now >= source_at) /* the device could not tell the MEP's address: ask again */
			source_at = dm_source(s, &link, &probe, &source_log)
					    ? INT64_MAX
					    : now + measure_backoff_next(&source_backoff);
		dm_expire(s, now);
		const char *failed = NULL;
		int err = 0;
		if (now >= send_at) {
			dm_make_room(s);
			int len = dm_probe_build(&probe, PKTSTATS_DM_OPCODE_DMM, (uint32_t)s->next,
						 s->frame, DM_RECEIVE_MAX);
			err = len < 0 ? len : oam_link_send(&link, s->frame, (size_t)len);
			if (err < 0) {
				failed = "sending a DMM";
			} else {
				struct dm_slot *slot = &s->ring[s->next % s->ring_size];
				*slot = (struct dm_slot){.number = s->next, .sent_ns = now};
				s->next++;
				pthread_mutex_lock(&s->lock);
				s->figures.sent++;
				pthread_mutex_unlock(&s->lock);
				/* on the interval's grid; a thread that fell behind starts anew */
				send_at += interval;
				if (send_at <= now)
					send_at = now + interval;
			}
		}
		if (!failed) {
			/* DMRs until the next DMM is due or the oldest waiting times out */
			int64_t until = send_at;
			if (s->oldest < s->next) {
				int64_t timeout = s->ring[s->oldest % s->ring_size].sent_ns +
						  (int64_t)s->config.timeout_ns;
				until = timeout < until ? timeout : until;
			}
			int len = oam_link_receive_or_stop(&link, s->frame, DM_RECEIVE_MAX, until,
							   s->stop_fd);
			if (len == -ECANCELED)
				break;
			if (len < 0) {
				err = len;
				failed = "receiving";
			} else if (len > 0) {
				dm_take(s, s->frame, (size_t)len, probe.session);
			}
		}
		if (failed) {
			int64_t w = measure_backoff_next(&backoff);
			char more[128];
			measure_backoff_text(&backoff, w, wait, sizeof wait);
			snprintf(text, sizeof text, "%s: %s", link.name, strerror(-err));
			snprintf(more, sizeof more, "%s; %s", failed, wait);
			measure_log_failure(&log, s->what, text, more);
			oam_link_close(&link);
			retry_at = measure_monotonic_ns() + w;
		}
	}
	oam_link_close(&link);
	return NULL;
}

int dm_session_start(struct dm_session **session, const struct exporter_dm_config *config,
		     const struct exporter_config *whole)
{
	struct dm_session *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->stop_fd = -1;
	s->config = *config;
	snprintf(s->device, sizeof s->device, "%s",
		 measure_switch_device(whole, config->switch_name));
	s->retry_max_ns = whole ? whole->retry_max_ns : 30 * (uint64_t)MEASURE_NS_PER_S;
	format_mac(config->peer, s->peer, sizeof s->peer);
	snprintf(s->what, sizeof s->what, "switch %s port %u: dm-two-way to %s",
		 config->switch_name, config->port, s->peer);
	/* every DMM that may still be answered: those of one timeout, and the one before */
	uint64_t interval = config->interval_ns ? config->interval_ns : 1;
	s->ring_size = config->timeout_ns / interval + 4;
	s->ring = calloc(s->ring_size, sizeof *s->ring);
	s->frame = malloc(DM_RECEIVE_MAX);
	int err = s->ring && s->frame ? measure_stop_open() : -ENOMEM;
	if (err < 0) {
		dm_free(s);
		return err;
	}
	s->stop_fd = err;
	for (uint64_t i = 0; i < s->ring_size; i++)
		s->ring[i].number = UINT64_MAX;
	pthread_mutex_init(&s->lock, NULL);
	err = pthread_create(&s->thread, NULL, dm_run, s);
	if (err) {
		pthread_mutex_destroy(&s->lock);
		dm_free(s);
		return -err;
	}
	*session = s;
	return 0;
}

void dm_session_stop(struct dm_session *s)
{
	if (!s)
		return;
	measure_stop(s->stop_fd);
	pthread_join(s->thread, NULL);
	pthread_mutex_destroy(&s->lock);
	dm_free(s);
}

EXPO_FAMILY(dm_delay, "pktstats_dm_two_way_delay_seconds", EXPO_HISTOGRAM, "seconds",
            "Y.1731 two-way frame delay of every DMR with four stamps: (RxTimeb - TxTimeStampf) - "
            "(TxTimeStampb - RxTimeStampf).");
EXPO_FAMILY(dm_variation_family, "pktstats_dm_delay_variation_seconds", EXPO_HISTOGRAM, "seconds",
            "Inter-frame delay variation |D(i) - D(i-1)| of the two-way delays of DMMs of "
            "consecutive sequence numbers.");
EXPO_FAMILY(dm_last, "pktstats_dm_two_way_delay_last_seconds", EXPO_GAUGE, "seconds",
            "The last two-way delay observed.");
EXPO_FAMILY(dm_sent, "pktstats_dm_frames_sent", EXPO_COUNTER, NULL, "DMMs sent.");
EXPO_FAMILY(dm_received, "pktstats_dm_replies_received", EXPO_COUNTER, NULL,
            "DMRs received for a DMM still waiting (the first for each).");
EXPO_FAMILY(dm_lost, "pktstats_dm_frames_lost", EXPO_COUNTER, NULL,
            "DMMs whose DMR did not come back within the timeout.");
EXPO_FAMILY(dm_invalid, "pktstats_dm_replies_invalid", EXPO_COUNTER, NULL,
            "DMRs not observed, by reason: incomplete (a stamp is 0), negative (delay below 0), "
            "unmatched (another session's, malformed, or after its DMM was counted lost), "
            "duplicate (its DMM was answered already).");

static void dm_labels(const struct dm_session *s, struct expo_labels *l)
{
	char port[8];
	snprintf(port, sizeof port, "%u", s->config.port);
	expo_labels(l, "switch", s->config.switch_name, "port", port, "peer", s->peer, NULL);
}

/* A counter of every session: the value at offset in its figures */
static void dm_counter(struct exposition *e, const struct expo_family *family,
		       struct dm_session *const *sessions, const struct dm_figures *f, size_t n,
		       size_t offset)
{
	struct expo_labels l;
	expo_family(e, family);
	for (size_t i = 0; i < n; i++) {
		dm_labels(sessions[i], &l);
		expo_counter(e, &l, *(const uint64_t *)((const char *)&f[i] + offset));
	}
}

void dm_sessions_render(struct exposition *e, struct dm_session *const *sessions, size_t n)
{
	struct dm_figures *f = calloc(n ? n : 1, sizeof *f);
	struct expo_labels l;
	if (!f) {
		e->failed = true;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		pthread_mutex_lock(&sessions[i]->lock);
		f[i] = sessions[i]->figures;
		pthread_mutex_unlock(&sessions[i]->lock);
	}
	expo_family(e, &dm_delay);
	for (size_t i = 0; i < n; i++) {
		dm_labels(sessions[i], &l);
		delay_histogram_write(e, &l, &f[i].delay);
	}
	expo_family(e, &dm_variation_family);
	for (size_t i = 0; i < n; i++) {
		dm_labels(sessions[i], &l);
		delay_histogram_write(e, &l, &f[i].variation);
	}
	expo_family(e, &dm_last);
	for (size_t i = 0; i < n; i++)
		if (f[i].have_last) {
			dm_labels(sessions[i], &l);
			expo_gauge_ns(e, &l, f[i].last_ns);
		}
	dm_counter(e, &dm_sent, sessions, f, n, offsetof(struct dm_figures, sent));
	dm_counter(e, &dm_received, sessions, f, n, offsetof(struct dm_figures, received));
	dm_counter(e, &dm_lost, sessions, f, n, offsetof(struct dm_figures, lost));
	expo_family(e, &dm_invalid);
	for (size_t i = 0; i < n; i++)
		for (unsigned r = 0; r < DM_INVALID_COUNT; r++) {
			dm_labels(sessions[i], &l);
			expo_label_add(&l, "reason", dm_invalid_names[r]);
			expo_counter(e, &l, f[i].invalid[r]);
		}
	free(f);
}

/* ------------------------------------------------------------------------------------------ */
/* One-way */

enum one_way_invalid {
	OW_MALFORMED,
	OW_INCOMPLETE,
	OW_NEGATIVE,
	OW_OUT_OF_ORDER,
	OW_TOO_MANY_SOURCES,
	OW_INVALID_COUNT,
};
static const char *const one_way_invalid_names[OW_INVALID_COUNT] = {
	"malformed", "incomplete", "negative", "out_of_order", "too_many_sources"};

struct one_way_figures {
	struct delay_histogram delay, variation;
	uint64_t received, lost, resyncs, invalid[OW_INVALID_COUNT];
};

/* A sender, by its MAC: where its sequence is */
struct one_way_source {
	uint8_t mac[6];
	uint32_t session, last; /* the last sequence number taken */
	bool have_delay;        /* last's delay was observed: delay_ns */
	int64_t delay_ns;
};

struct one_way_session {
	struct exporter_one_way_config config;
	char what[96];
	uint64_t retry_max_ns;
	int stop_fd;
	pthread_t thread;
	pthread_mutex_t lock;
	struct one_way_figures figures; /* under lock */
	/* the thread's own */
	struct one_way_source sources[ONE_WAY_SOURCES_MAX];
	size_t n_sources;
	uint8_t *frame;
};

static void one_way_free(struct one_way_session *s)
{
	if (s->stop_fd >= 0)
		close(s->stop_fd);
	free(s->frame);
	free(s);
}

/* The source's state, new when there is room; NULL when there is none. *fresh: new. */
static struct one_way_source *one_way_source_of(struct one_way_session *s, const uint8_t mac[6],
						 bool *fresh)
{
	*fresh = false;
	for (size_t i = 0; i < s->n_sources; i++)
		if (!memcmp(s->sources[i].mac, mac, 6))
			return &s->sources[i];
	if (s->n_sources == ONE_WAY_SOURCES_MAX)
		return NULL;
	struct one_way_source *source = &s->sources[s->n_sources++];
	memset(source, 0, sizeof *source);
	memcpy(source->mac, mac, 6);
	*fresh = true;
	return source;
}

/* A frame that came in (under lock) */
static void one_way_take(struct one_way_session *s, const uint8_t *frame, size_t len)
{
	struct one_way_figures *f = &s->figures;
	struct pktstats_dm_frame dm;
	enum pktstats_oam_error error;
	pktstats_dm_parse(frame, len, &dm, &error);
	if (error == PKTSTATS_OAM_NOT_OAM || dm.opcode != PKTSTATS_DM_OPCODE_1DM)
		return;
	f->received++;
	if (error != PKTSTATS_OAM_OK) {
		f->invalid[OW_MALFORMED]++;
		return;
	}
	uint32_t session, sequence;
	struct one_way_source *source = NULL;
	bool consecutive = false;
	if (dm_probe_numbers(&dm, &session, &sequence)) {
		bool fresh;
		source = one_way_source_of(s, dm.source, &fresh);
		if (!source) {
			f->invalid[OW_TOO_MANY_SOURCES]++;
			return;
		}
		uint32_t jump = sequence - source->last;
		if (fresh) {
			/* its first: nothing before it is counted lost */
		} else if (session != source->session) {
			f->resyncs++; /* the sender started again */
			source->have_delay = false;
		} else if (jump == 0 || jump >= (uint32_t)-ONE_WAY_JUMP_MAX) {
			f->invalid[OW_OUT_OF_ORDER]++; /* duplicated or late: the sequence stays */
			return;
		} else if (jump <= ONE_WAY_JUMP_MAX) {
			f->lost += jump - 1;
			consecutive = jump == 1;
		} else {
			f->resyncs++;
			source->have_delay = false;
		}
		source->session = session;
		source->last = sequence;
	}
	int64_t delay;
	bool complete = dm_probe_one_way_delay(&dm, &delay);
	if (!complete || delay < 0) {
		f->invalid[complete ? OW_NEGATIVE : OW_INCOMPLETE]++;
		if (source)
			source->have_delay = false;
		return;
	}
	delay_histogram_observe(&f->delay, (uint64_t)delay);
	if (!source)
		return;
	if (consecutive && source->have_delay) {
		int64_t v = delay - source->delay_ns;
		delay_histogram_observe(&f->variation, (uint64_t)(v < 0 ? -v : v));
	}
	source->have_delay = true;
	source->delay_ns = delay;
}

static void *one_way_run(void *argument)
{
	struct one_way_session *s = argument;
	struct oam_link link = {.fd = -1};
	struct measure_backoff backoff;
	measure_backoff_init(&backoff, s->retry_max_ns);
	struct measure_log log = {{0}};
	int64_t retry_at = 0;
	bool first = true;
	char error[512], text[768], wait[64];
	for (;;) {
		int64_t now = measure_monotonic_ns();
		if (link.fd < 0) {
			if (now < retry_at) {
				if (measure_wait(s->stop_fd, retry_at))
					break;
				continue;
			}
			const char *name = s->config.interface;
			int err = measure_link_open(&link, name, error, sizeof error);
			if (err < 0) {
				int64_t w = measure_backoff_next(&backoff);
				measure_backoff_text(&backoff, w, wait, sizeof wait);
				measure_log_failure(&log, s->what, error, wait);
				retry_at = now + w;
				continue;
			}
			if (measure_log_success(&log) || first)
				exporter_log("%s: taking 1DMs on %s", s->what, link.name);
			first = false;
			measure_backoff_reset(&backoff);
		}
		int len = oam_link_receive_or_stop(&link, s->frame, DM_RECEIVE_MAX,
						   now + ONE_WAY_IDLE_NS, s->stop_fd);
		if (len == -ECANCELED)
			break;
		if (len > 0) {
			pthread_mutex_lock(&s->lock);
			one_way_take(s, s->frame, (size_t)len);
			pthread_mutex_unlock(&s->lock);
		} else if (len < 0) {
			int64_t w = measure_backoff_next(&backoff);
			char more[128];
			measure_backoff_text(&backoff, w, wait, sizeof wait);
			snprintf(text, sizeof text, "%s: %s", link.name, strerror(-len));
			snprintf(more, sizeof more, "receiving; %s", wait);
			measure_log_failure(&log, s->what, text, more);
			oam_link_close(&link);
			retry_at = measure_monotonic_ns() + w;
		}
	}
	oam_link_close(&link);
	return NULL;
}

int one_way_session_start(struct one_way_session **session,
			  const struct exporter_one_way_config *config,
			  const struct exporter_config *whole)
{
	struct one_way_session *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->stop_fd = -1;
	s->config = *config;
	s->retry_max_ns = whole ? whole->retry_max_ns : 30 * (uint64_t)MEASURE_NS_PER_S;
	snprintf(s->what, sizeof s->what, "switch %s port %u: dm-one-way", config->switch_name,
		 config->port);
	s->frame = malloc(DM_RECEIVE_MAX);
	int err = s->frame ? measure_stop_open() : -ENOMEM;
	if (err < 0) {
		one_way_free(s);
		return err;
	}
	s->stop_fd = err;
	pthread_mutex_init(&s->lock, NULL);
	err = pthread_create(&s->thread, NULL, one_way_run, s);
	if (err) {
		pthread_mutex_destroy(&s->lock);
		one_way_free(s);
		return -err;
	}
	*session = s;
	return 0;
}

void one_way_session_stop(struct one_way_session *s)
{
	if (!s)
		return;
	measure_stop(s->stop_fd);
	pthread_join(s->thread, NULL);
	pthread_mutex_destroy(&s->lock);
	one_way_free(s);
}

EXPO_FAMILY(ow_delay, "pktstats_dm_one_way_delay_seconds", EXPO_HISTOGRAM, "seconds",
            "One-way frame delay of every 1DM received with both stamps, RxTimef - TxTimeStampf "
            "(meaningful when the two switches' clocks are synchronised).");
EXPO_FAMILY(ow_variation, "pktstats_dm_one_way_variation_seconds", EXPO_HISTOGRAM, "seconds",
            "|D(i) - D(i-1)| of the one-way delays of 1DMs of consecutive sequence numbers of one "
            "sender.");
EXPO_FAMILY(ow_received, "pktstats_dm_one_way_frames_received", EXPO_COUNTER, NULL,
            "1DMs received: each one observed or invalid.");
EXPO_FAMILY(ow_lost, "pktstats_dm_one_way_frames_lost", EXPO_COUNTER, NULL,
            "1DMs missing at gaps of a sender's sequence numbers (jumps up to 65536).");
EXPO_FAMILY(ow_resyncs, "pktstats_dm_one_way_resyncs", EXPO_COUNTER, NULL,
            "Times a sender's sequence was taken up afresh: a jump beyond 65536, or a new "
            "session.");
EXPO_FAMILY(ow_invalid, "pktstats_dm_one_way_frames_invalid", EXPO_COUNTER, NULL,
            "1DMs not observed, by reason: malformed, incomplete (a stamp is 0), negative, "
            "out_of_order (a sequence number already passed), too_many_sources (beyond 64 "
            "senders).");

static void one_way_labels(const struct one_way_session *s, struct expo_labels *l)
{
	char port[8];
	snprintf(port, sizeof port, "%u", s->config.port);
	expo_labels(l, "switch", s->config.switch_name, "port", port, NULL);
}

void one_way_sessions_render(struct exposition *e, struct one_way_session *const *sessions,
			     size_t n)
{
	struct one_way_figures *f = calloc(n ? n : 1, sizeof *f);
	struct expo_labels l;
	if (!f) {
		e->failed = true;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		pthread_mutex_lock(&sessions[i]->lock);
		f[i] = sessions[i]->figures;
		pthread_mutex_unlock(&sessions[i]->lock);
	}
	expo_family(e, &ow_delay);
	for (size_t i = 0; i < n; i++) {
		one_way_labels(sessions[i], &l);
		delay_histogram_write(e, &l, &f[i].delay);
	}
	expo_family(e, &ow_variation);
	for (size_t i = 0; i < n; i++) {
		one_way_labels(sessions[i], &l);
		delay_histogram_write(e, &l, &f[i].variation);
	}
	const struct {
		const struct expo_family *family;
		size_t offset;
	} counters[] = {
		{&ow_received, offsetof(struct one_way_figures, received)},
		{&ow_lost, offsetof(struct one_way_figures, lost)},
		{&ow_resyncs, offsetof(struct one_way_figures, resyncs)},
	};
	for (size_t c = 0; c < sizeof counters / sizeof counters[0]; c++) {
		expo_family(e, counters[c].family);
		for (size_t i = 0; i < n; i++) {
			one_way_labels(sessions[i], &l);
			expo_counter(e, &l, *(const uint64_t *)((const char *)&f[i] +
								 counters[c].offset));
		}
	}
	expo_family(e, &ow_invalid);
	for (size_t i = 0; i < n; i++)
		for (unsigned r = 0; r < OW_INVALID_COUNT; r++) {
			one_way_labels(sessions[i], &l);
			expo_label_add(&l, "reason", one_way_invalid_names[r]);
			expo_counter(e, &l, f[i].invalid[r]);
		}
	free(f);
}
