/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: the running parts of a configuration and the scrape (exporter.h).
 */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device_poller.h"
#include "exporter.h"
#include "log.h"
#include "measurements.h"
#include "stat_capture.h"


#define NS_PER_S INT64_C(1000000000)

/* One switch: its configuration, device and capture (either may be absent) */
struct switch_runtime {
	struct exporter_switch_config config;
	uint64_t burst_bytes; /* the threshold in force (the switch's or the default) */
	struct device_poller *poller;
	struct stat_capture *capture;
};

/* A kind of measurement, handled alike by apply and render */
struct session_kind {
	const char *name;
	size_t config_size;
	int (*start)(void **session, const void *config, const struct exporter_config *whole);
	void (*stop)(void *session);
	void (*render)(struct exposition *e, void *const *sessions, size_t n);
};

struct session_list {
	void *sessions[EXPORTER_SESSIONS_MAX];
	unsigned char configs[EXPORTER_SESSIONS_MAX][sizeof(struct exporter_headroom_config) >
						       sizeof(struct exporter_dm_config)
					     ? sizeof(struct exporter_headroom_config)
					     : sizeof(struct exporter_dm_config)];
	size_t n;
};

_Static_assert(sizeof(struct exporter_one_way_config) <= sizeof(struct exporter_dm_config),
	       "session_list.configs holds every kind's config");

static int start_dm(void **s, const void *c, const struct exporter_config *w)
{
	return dm_session_start((struct dm_session **)s, c, w);
}
static void stop_dm(void *s)
{
	dm_session_stop(s);
}
static void render_dm(struct exposition *e, void *const *s, size_t n)
{
	dm_sessions_render(e, (struct dm_session *const *)s, n);
}
static int start_one_way(void **s, const void *c, const struct exporter_config *w)
{
	return one_way_session_start((struct one_way_session **)s, c, w);
}
static void stop_one_way(void *s)
{
	one_way_session_stop(s);
}
static void render_one_way(struct exposition *e, void *const *s, size_t n)
{
	one_way_sessions_render(e, (struct one_way_session *const *)s, n);
}
static int start_headroom(void **s, const void *c, const struct exporter_config *w)
{
	return headroom_session_start((struct headroom_session **)s, c, w);
}
static void stop_headroom(void *s)
{
	headroom_session_stop(s);
}
static void render_headroom(struct exposition *e, void *const *s, size_t n)
{
	headroom_sessions_render(e, (struct headroom_session *const *)s, n);
}

enum { KIND_DM, KIND_ONE_WAY, KIND_HEADROOM, KINDS };
static const struct session_kind kinds[KINDS] = {
	{"dm-two-way", sizeof(struct exporter_dm_config), start_dm, stop_dm, render_dm},
	{"dm-one-way", sizeof(struct exporter_one_way_config), start_one_way, stop_one_way,
	 render_one_way},
	{"headroom", sizeof(struct exporter_headroom_config), start_headroom, stop_headroom,
	 render_headroom},
};

struct exporter {
	/* held for reading by a scrape, for writing while apply swaps the parts */
	pthread_rwlock_t lock;
	struct exporter_config config;
	struct switch_runtime *switches[EXPORTER_SWITCHES_MAX];
	size_t n_switches;
	struct session_list lists[KINDS];
	struct ipfix_listener *ipfix;
	/* reloads, under reload_lock */
	pthread_mutex_t reload_lock;
	uint64_t reloads_ok, reloads_failed;
	bool last_reload_ok;
	int64_t last_reload_ok_at; /* CLOCK_REALTIME ns */
};

static int64_t clock_ns(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return (int64_t)t.tv_sec * NS_PER_S + t.tv_nsec;
}

int exporter_create(struct exporter **exporter)
{
	struct exporter *x = calloc(1, sizeof *x);
	if (!x)
		return -ENOMEM;
	pthread_rwlock_init(&x->lock, NULL);
	pthread_mutex_init(&x->reload_lock, NULL);
	x->last_reload_ok = true;
	x->last_reload_ok_at = clock_ns(CLOCK_REALTIME);
	*exporter = x;
	return 0;
}

static void switch_stop(struct switch_runtime *s)
{
	if (!s)
		return;
	device_poller_stop(s->poller);
	stat_capture_stop(s->capture);
	free(s);
}

void exporter_destroy(struct exporter *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->n_switches; i++)
		switch_stop(x->switches[i]);
	for (unsigned k = 0; k < KINDS; k++)
		for (size_t i = 0; i < x->lists[k].n; i++)
			kinds[k].stop(x->lists[k].sessions[i]);
	ipfix_listener_stop(x->ipfix);
	pthread_rwlock_destroy(&x->lock);
	pthread_mutex_destroy(&x->reload_lock);
	free(x);
}

/* ------------------------------------------------------------------------------------------ */
/* Applying a configuration */

static uint64_t burst_of(const struct exporter_switch_config *s, const struct exporter_config *c)
{
	return s->burst_bytes == UINT64_MAX ? c->burst_bytes : s->burst_bytes;
}

/* Whether the capture of old can go on for new: same interface and packets */
static bool same_capture(const struct exporter_switch_config *a,
			 const struct exporter_switch_config *b)
{
	return !strcmp(a->stat_interface, b->stat_interface) &&
	       a->have_stat_source == b->have_stat_source && a->stat_source == b->stat_source &&
	       a->stat_port == b->stat_port && a->queue_words == b->queue_words;
}

static int switch_start_parts(struct switch_runtime *s, const struct exporter_config *c,
			      bool device, bool capture)
{
	int err = 0;
	if (device && *s->config.device)
		err = device_poller_start(&s->poller, s->config.name, s->config.device,
					  c->retry_max_ns);
	if (err == 0 && capture && *s->config.stat_interface) {
		struct stat_capture_options o = {
			.switch_name = s->config.name,
			.interface = s->config.stat_interface,
			.udp_port = s->config.stat_port,
			.have_source = s->config.have_stat_source,
			.source = s->config.stat_source,
			.queue_words = s->config.queue_words,
			.burst_bytes = s->burst_bytes,
			.peak_window_ns = c->peak_window_ns,
			.retry_max_ns = c->retry_max_ns,
		};
		err = stat_capture_start(&s->capture, &o);
	}
	return err;
}

int exporter_apply(struct exporter *x, const struct exporter_config *c)
{
	struct switch_runtime *next[EXPORTER_SWITCHES_MAX] = {0};
	/* the old switches' parts that a new one took over: not to be stopped */
	bool poller_kept[EXPORTER_SWITCHES_MAX] = {false}, capture_kept[EXPORTER_SWITCHES_MAX] = {false};
	int status = 0;

	/* What a scrape sees changes in one step: the new parts are made (or taken over from
	 * the old) first, swapped in under the write lock, and the old parts nobody took are
	 * stopped after it. Only this thread changes the parts, so reading them needs no lock
	 * here. */
	for (size_t i = 0; i < c->n_switches; i++) {
		const struct exporter_switch_config *sc = &c->switches[i];
		struct switch_runtime *s = calloc(1, sizeof *s);
		if (!s) {
			status = -ENOMEM;
			continue;
		}
		s->config = *sc;
		s->burst_bytes = burst_of(sc, c);
		bool device = true, capture = true;
		bool same_retry = x->config.retry_max_ns == c->retry_max_ns;
		for (size_t k = 0; k < x->n_switches; k++) {
			const struct switch_runtime *old = x->switches[k];
			if (!old || strcmp(old->config.name, sc->name))
				continue;
			if (same_retry && !strcmp(old->config.device, sc->device) && old->poller) {
				s->poller = old->poller; /* the device goes on */
				poller_kept[k] = true;
				device = false;
			}
			if (same_retry && same_capture(&old->config, sc) && old->capture) {
				s->capture = old->capture; /* its figures go on */
				capture_kept[k] = true;
				capture = false;
				stat_capture_retune(s->capture, s->burst_bytes, c->peak_window_ns);
			}
		}
		int err = switch_start_parts(s, c, device, capture);
		if (err < 0) {
			exporter_log("switch %s: cannot start: %s", sc->name, strerror(-err));
			status = err;
		}
		next[i] = s;
	}
	struct switch_runtime *gone[EXPORTER_SWITCHES_MAX];
	size_t n_gone = x->n_switches;
	memcpy(gone, x->switches, sizeof gone);

	/* measurements: a session whose line is the same goes on */
	struct session_list *lists = calloc(KINDS, sizeof *lists);
	void *stopped[KINDS][EXPORTER_SESSIONS_MAX];
	size_t n_stopped[KINDS] = {0};
	const void *configs[KINDS] = {c->dm, c->one_way, c->headroom};
	const size_t counts[KINDS] = {c->n_dm, c->n_one_way, c->n_headroom};
	for (unsigned k = 0; lists && k < KINDS; k++) {
		struct session_list *old = &x->lists[k];
		bool reused[EXPORTER_SESSIONS_MAX] = {false};
		for (size_t i = 0; i < counts[k]; i++) {
			const void *config = (const char *)configs[k] + i * kinds[k].config_size;
			void *session = NULL;
			for (size_t j = 0; j < old->n && !session; j++)
				if (!reused[j] && old->sessions[j] &&
				    !memcmp(old->configs[j], config, kinds[k].config_size)) {
					session = old->sessions[j];
					reused[j] = true;
				}
			if (!session) {
				int err = kinds[k].start(&session, config, c);
				if (err < 0) {
					exporter_log("%s %zu: cannot start: %s", kinds[k].name, i + 1,
						     strerror(-err));
					status = err;
					continue;
				}
			}
			memcpy(lists[k].configs[lists[k].n], config, kinds[k].config_size);
			lists[k].sessions[lists[k].n++] = session;
		}
		for (size_t j = 0; j < old->n; j++)
			if (!reused[j])
				stopped[k][n_stopped[k]++] = old->sessions[j];
	}
	if (!lists)
		status = -ENOMEM;

	/* the IPFIX listener: restarted only when where it listens changes; the old one goes
	 * first, since the new address may share its port (a scrape meanwhile shows none) */
	struct ipfix_listener *ipfix = x->ipfix;
	if (!ipfix || strcmp(x->config.ipfix_listen_host, c->ipfix_listen_host) ||
	    x->config.ipfix_listen_port != c->ipfix_listen_port ||
	    x->config.ipfix_enterprise != c->ipfix_enterprise) {
		pthread_rwlock_wrlock(&x->lock);
		x->ipfix = NULL;
		pthread_rwlock_unlock(&x->lock);
		ipfix_listener_stop(ipfix);
		ipfix = NULL;
		if (c->ipfix_listen_port) {
			int err = ipfix_listener_start(&ipfix, c->ipfix_listen_host,
						       c->ipfix_listen_port, c->ipfix_enterprise);
			if (err < 0) {
				exporter_log("ipfix-listen %s:%u: cannot start: %s", c->ipfix_listen_host,
					     (unsigned)c->ipfix_listen_port, strerror(-err));
				status = err;
			}
		}
	}
	if (ipfix)
		ipfix_listener_set_switches(ipfix, c);

	pthread_rwlock_wrlock(&x->lock);
	x->n_switches = 0;
	for (size_t i = 0; i < c->n_switches; i++)
		if (next[i])
			x->switches[x->n_switches++] = next[i];
	if (lists)
		memcpy(x->lists, lists, KINDS * sizeof *lists);
	x->ipfix = ipfix;
	x->config = *c;
	pthread_rwlock_unlock(&x->lock);

	for (size_t i = 0; i < n_gone; i++) {
		if (!gone[i])
			continue;
		if (poller_kept[i])
			gone[i]->poller = NULL;
		if (capture_kept[i])
			gone[i]->capture = NULL;
		switch_stop(gone[i]);
	}
	for (unsigned k = 0; lists && k < KINDS; k++)
		for (size_t i = 0; i < n_stopped[k]; i++)
			kinds[k].stop(stopped[k][i]);
	free(lists);
	return status;
}

void exporter_reloaded(struct exporter *x, bool success)
{
	pthread_mutex_lock(&x->reload_lock);
	if (success) {
		x->reloads_ok++;
		x->last_reload_ok_at = clock_ns(CLOCK_REALTIME);
	} else {
		x->reloads_failed++;
	}
	x->last_reload_ok = success;
	pthread_mutex_unlock(&x->reload_lock);
}

bool exporter_ready(struct exporter *x)
{
	bool ready = true;
	pthread_rwlock_rdlock(&x->lock);
	for (size_t i = 0; i < x->n_switches; i++) {
		const struct switch_runtime *s = x->switches[i];
		if ((s->poller && !device_poller_tried(s->poller)) ||
		    (s->capture && !stat_capture_tried(s->capture)))
			ready = false;
	}
	pthread_rwlock_unlock(&x->lock);
	return ready;
}

uint64_t exporter_scrape_timeout_ns(struct exporter *x)
{
	pthread_rwlock_rdlock(&x->lock);
	uint64_t timeout = x->config.scrape_timeout_ns;
	pthread_rwlock_unlock(&x->lock);
	return timeout;
}

/* ------------------------------------------------------------------------------------------ */
/* The scrape */

EXPO_FAMILY(build_info, "pktstats_exporter_build", EXPO_INFO, NULL,
            "The exporter's version and the commit it was built from.");
EXPO_FAMILY(reload_ok, "pktstats_exporter_config_last_reload_successful", EXPO_GAUGE, NULL,
            "1 when the last reload of the configuration (SIGHUP) succeeded, 0 when the old one "
            "was kept.");
EXPO_FAMILY(reload_time, "pktstats_exporter_config_last_reload_success_timestamp_seconds",
            EXPO_GAUGE, "seconds", "When the configuration was last loaded successfully.");
EXPO_FAMILY(reloads, "pktstats_exporter_config_reloads", EXPO_COUNTER, NULL,
            "Reloads of the configuration (SIGHUP), by result.");
EXPO_FAMILY(up, "pktstats_up", EXPO_GAUGE, NULL,
            "1 when the switch's device is open and its last register reads succeeded, 0 when it "
            "is absent, gone or failed.");
EXPO_FAMILY(device_info, "pktstats_device", EXPO_INFO, NULL,
            "The switch's device: its identity block (design version, git hash) and backend.");
EXPO_FAMILY(device_opens, "pktstats_device_opens", EXPO_COUNTER, NULL,
            "Times the device was opened (the first, and each time it came back).");
EXPO_FAMILY(device_failures, "pktstats_device_failures", EXPO_COUNTER, NULL,
            "Failed opens and register reads of the device.");
EXPO_FAMILY(read_duration, "pktstats_device_read_duration_seconds", EXPO_GAUGE, "seconds",
            "How long the register reads of the switch shown took.");
EXPO_FAMILY(read_time, "pktstats_device_last_read_timestamp_seconds", EXPO_GAUGE, "seconds",
            "When the register reads shown ended: a scrape whose reads were not over by its "
            "deadline shows the last ones.");
EXPO_FAMILY(time_offset, "pktstats_time_offset_seconds", EXPO_GAUGE, "seconds",
            "The switch's time of day minus the host's clock (CLOCK_REALTIME), read at the "
            "scrape.");
EXPO_FAMILY(capture_up, "pktstats_stat_capture_up", EXPO_GAUGE, NULL,
            "1 when the switch's stat interface is open and captured.");
EXPO_FAMILY(capture_opens, "pktstats_stat_capture_opens", EXPO_COUNTER, NULL,
            "Times the stat interface was opened.");
EXPO_FAMILY(capture_drops, "pktstats_stat_capture_dropped_frames", EXPO_COUNTER, NULL,
            "Frames lost before the decoder: the kernel's capture buffer was full (where=kernel) "
            "or the interface dropped them (where=interface).");
EXPO_FAMILY(captured, "pktstats_stat_captured_frames", EXPO_COUNTER, NULL,
            "Frames the stat packets' filter passed on the stat interface.");
EXPO_FAMILY(ignored, "pktstats_stat_ignored_frames", EXPO_COUNTER, NULL,
            "Captured frames that are no stat packet (not IPv4/UDP to the stat port, fragments).");
EXPO_FAMILY(packets, "pktstats_stat_packets_received", EXPO_COUNTER, NULL,
            "Stat packets decoded.");
EXPO_FAMILY(events, "pktstats_stat_events_received", EXPO_COUNTER, NULL,
            "Queue events in the stat packets decoded.");
EXPO_FAMILY(malformed, "pktstats_stat_packets_malformed", EXPO_COUNTER, NULL,
            "Stat packets that did not decode, by reason (counted and skipped).");
EXPO_FAMILY(missing, "pktstats_stat_packets_missing", EXPO_COUNTER, NULL,
            "Stat packets missing at sequence gaps (some may arrive late: see reordered).");
EXPO_FAMILY(gaps, "pktstats_stat_packet_gaps", EXPO_COUNTER, NULL,
            "Times the stat packets' sequence number jumped forward.");
EXPO_FAMILY(reordered, "pktstats_stat_packets_reordered", EXPO_COUNTER, NULL,
            "Stat packets that arrived late, after a gap was counted for them.");
EXPO_FAMILY(duplicates, "pktstats_stat_packets_duplicate", EXPO_COUNTER, NULL,
            "Stat packets whose sequence number had been seen.");
EXPO_FAMILY(resets, "pktstats_stat_sequence_resets", EXPO_COUNTER, NULL,
            "Times the stat packets' sequence restarted (capture restarted on the switch).");
EXPO_FAMILY(missed_flags, "pktstats_stat_packets_missed_flag", EXPO_COUNTER, NULL,
            "Stat packets with the M flag: the switch lost events before them.");
EXPO_FAMILY(untracked, "pktstats_stat_packets_untracked", EXPO_COUNTER, NULL,
            "Stat packets of sources beyond the decoder's table (their sequence is not checked).");
EXPO_FAMILY(burst_threshold, "pktstats_microburst_threshold_bytes", EXPO_GAUGE, "bytes",
            "The occupancy above which a queue is in a microburst.");
EXPO_FAMILY(queue_events, "pktstats_queue_events", EXPO_COUNTER, NULL,
            "Events of the output queue in the stat packets, by type: arrival (a frame committed), "
            "departure (a frame sent), drop (a frame refused).");
EXPO_FAMILY(queue_event_bytes, "pktstats_queue_event_bytes", EXPO_COUNTER, "bytes",
            "Bytes of those events' frames (lengths in 8-byte words; 255 words means 255 or "
            "more).");
EXPO_FAMILY(arrival_occupancy, "pktstats_queue_arrival_occupancy_bytes", EXPO_HISTOGRAM, "bytes",
            "The occupancy each frame found at the queue: before its arrival, or at its drop.");
EXPO_FAMILY(delay, "pktstats_queue_delay_seconds", EXPO_HISTOGRAM, "seconds",
            "Queueing delay of every frame timed from its arrival and departure events.");
EXPO_FAMILY(untimed, "pktstats_queue_untimed_frames", EXPO_COUNTER, NULL,
            "Departures whose frame could not be timed: queued before the capture's first "
            "snapshot (queued_before) or while events were lost (unsynchronised).");
EXPO_FAMILY(occupancy_max, "pktstats_queue_occupancy_max_bytes", EXPO_GAUGE, "bytes",
            "Largest occupancy held at a clock's edge in the stat packets since the exporter "
            "started.");
EXPO_FAMILY(occupancy_peak, "pktstats_queue_occupancy_peak_bytes", EXPO_GAUGE, "bytes",
            "Largest occupancy held at a clock's edge in the stat packets that arrived in the "
            "last peak window (host time, the same for every scraper).");
EXPO_FAMILY(bursts, "pktstats_queue_microbursts", EXPO_COUNTER, NULL,
            "Microbursts: episodes of the occupancy above the threshold.");
EXPO_FAMILY(burst_seconds, "pktstats_queue_microburst_seconds", EXPO_COUNTER, "seconds",
            "Time the ended microbursts lasted, switch time.");

/* The per-switch parts of a scrape */
struct switch_scrape {
	const struct switch_runtime *s;
	uint64_t ticket;
	struct device_view device;
	bool have_device;
	struct capture_view capture;
	bool have_capture;
};

static void render_device(struct exposition *e, struct switch_scrape *v, size_t n)
{
	struct expo_labels l;
	bool any = false;
	for (size_t i = 0; i < n; i++)
		any |= v[i].have_device;
	if (!any)
		return;
	expo_family(e, &up);
	for (size_t i = 0; i < n; i++)
		if (v[i].have_device) {
			expo_labels(&l, "switch", v[i].s->config.name, NULL);
			expo_gauge(e, &l, v[i].device.up);
		}
	expo_family(e, &device_info);
	for (size_t i = 0; i < n; i++)
		if (v[i].have_device && v[i].device.have_identity) {
			const struct device_view *d = &v[i].device;
			char version[16], hash[16];
			snprintf(version, sizeof version, "%u.%u", (unsigned)d->identity.major,
				 (unsigned)d->identity.minor);
			snprintf(hash, sizeof hash, "%08x", (unsigned)d->identity.git_hash);
			expo_labels(&l, "switch", v[i].s->config.name, "device", v[i].s->config.device,
				    "backend", d->backend, "design_version", version, "git_hash", hash,
				    NULL);
			expo_info(e, &l);
		}
	expo_family(e, &device_opens);
	for (size_t i = 0; i < n; i++)
		if (v[i].have_device) {
			expo_labels(&l, "switch", v[i].s->config.name, NULL);
			expo_counter(e, &l, v[i].device.opens);
		}
	expo_family(e, &device_failures);
	for (size_t i = 0; i < n; i++)
		if (v[i].have_device) {
			expo_labels(&l, "switch", v[i].s->config.name, NULL);
			expo_counter(e, &l, v[i].device.failures);
		}
	expo_family(e, &read_duration);
	for (size_t i = 0; i < n; i++)
		if (v[i].have_device && v[i].device.read) {
			expo_labels(&l, "switch", v[i].s->config.name, NULL);
			expo_gauge_ns(e, &l, v[i].device.snapshot.read_ns);
		}
	expo_family(e, &read_time);
	for (size_t i = 0; i < n; i++)
		if (v[i].have_device && v[i].device.read) {
			expo_labels(&l, "switch", v[i].s->config.name, NULL);
			expo_gauge_ns(e, &l, v[i].device.read_at_ns);
		}
	expo_family(e, &time_offset);
	for (size_t i = 0; i < n; i++)
		if (v[i].have_device && v[i].device.read && v[i].device.snapshot.have_time) {
			expo_labels(&l, "switch", v[i].s->config.name, NULL);
			expo_gauge_ns(e, &l, v[i].device.snapshot.time_offset_ns);
		}
	struct register_view views[EXPORTER_SWITCHES_MAX];
	for (size_t i = 0; i < n; i++) {
		views[i].switch_name = v[i].s->config.name;
		views[i].snapshot = v[i].have_device && v[i].device.read ? &v[i].device.snapshot
									: NULL;
	}
	registers_render(e, views, n);
}

/* A counter of the capture per switch */
static void capture_counter(struct exposition *e, const struct expo_family *f,
			    struct switch_scrape *v, size_t n, size_t offset)
{
	struct expo_labels l;
	expo_family(e, f);
	for (size_t i = 0; i < n; i++)
		if (v[i].have_capture) {
			expo_labels(&l, "switch", v[i].s->config.name, NULL);
			expo_counter(e, &l, *(const uint64_t *)((const char *)&v[i].capture + offset));
		}
}

#define CAPTURE_FIELD(field) offsetof(struct capture_view, field)

static const char *const type_names[4] = {NULL, "arrival", "departure", "drop"};

/* One queue's samples of a family */
typedef void queue_sample_fn(struct exposition *e, const struct expo_labels *labels,
			     const struct switch_scrape *v, unsigned queue);

/* A family of every captured switch's every queue, labels switch and queue */
static void queue_family(struct exposition *e, const struct expo_family *family,
			 const struct switch_scrape *v, size_t n, queue_sample_fn *sample)
{
	expo_family(e, family);
	for (size_t i = 0; i < n; i++) {
		for (unsigned q = 0; v[i].have_capture && q < PKTSTATS_QUEUES; q++) {
			struct expo_labels l;
			char number[4];
			snprintf(number, sizeof number, "%u", q);
			expo_labels(&l, "switch", v[i].s->config.name, "queue", number, NULL);
			sample(e, &l, &v[i], q);
		}
	}
}

static const struct ingest_queue *queue_of(const struct switch_scrape *v, unsigned q)
{
	return &v->capture.ingest.queues[q];
}

static void sample_events(struct exposition *e, const struct expo_labels *l,
			  const struct switch_scrape *v, unsigned q)
{
	for (unsigned t = 1; t < 4; t++) {
		struct expo_labels typed = *l;
		expo_label_add(&typed, "type", type_names[t]);
		expo_counter(e, &typed, queue_of(v, q)->events[t]);
	}
}

static void sample_event_bytes(struct exposition *e, const struct expo_labels *l,
			       const struct switch_scrape *v, unsigned q)
{
	for (unsigned t = 1; t < 4; t++) {
		struct expo_labels typed = *l;
		expo_label_add(&typed, "type", type_names[t]);
		expo_counter(e, &typed, queue_of(v, q)->words[t] * 8);
	}
}

static void sample_arrival_occupancy(struct exposition *e, const struct expo_labels *l,
				     const struct switch_scrape *v, unsigned q)
{
	char sum[48];
	expo_sum_text(queue_of(v, q)->occupancy_sum_bytes, sum, sizeof sum);
	expo_histogram(e, l, ingest_occupancy_bounds_text, queue_of(v, q)->occupancy_buckets,
		       INGEST_OCCUPANCY_BUCKETS, sum);
}

static void sample_delay(struct exposition *e, const struct expo_labels *l,
			 const struct switch_scrape *v, unsigned q)
{
	char sum[48];
	expo_histogram(e, l, ingest_delay_bounds_text, queue_of(v, q)->delay_buckets,
		       INGEST_DELAY_BUCKETS,
		       expo_sum_ns_text(queue_of(v, q)->delay_sum_ns, sum, sizeof sum));
}

static void sample_untimed(struct exposition *e, const struct expo_labels *l,
			   const struct switch_scrape *v, unsigned q)
{
	const struct pktstats_sojourn_counts *c = &queue_of(v, q)->sojourn;
	struct expo_labels why = *l;
	expo_label_add(&why, "reason", "queued_before");
	expo_counter(e, &why, c->queued_before);
	why = *l;
	expo_label_add(&why, "reason", "unsynchronised");
	expo_counter(e, &why, c->unsynchronised);
}

static void sample_max(struct exposition *e, const struct expo_labels *l,
		       const struct switch_scrape *v, unsigned q)
{
	expo_gauge(e, l, queue_of(v, q)->max_words * 8);
}

static void sample_peak(struct exposition *e, const struct expo_labels *l,
			const struct switch_scrape *v, unsigned q)
{
	expo_gauge(e, l, v->capture.ingest.peak_words[q] * 8);
}

static void sample_bursts(struct exposition *e, const struct expo_labels *l,
			  const struct switch_scrape *v, unsigned q)
{
	expo_counter(e, l, queue_of(v, q)->bursts);
}

static void sample_burst_seconds(struct exposition *e, const struct expo_labels *l,
				 const struct switch_scrape *v, unsigned q)
{
	expo_counter_ns(e, l, queue_of(v, q)->burst_ns);
}

static void render_capture(struct exposition *e, struct switch_scrape *v, size_t n)
{
	struct expo_labels l;
	bool any = false;
	for (size_t i = 0; i < n; i++)
		any |= v[i].have_capture;
	if (!any)
		return;
	expo_family(e, &capture_up);
	for (size_t i = 0; i < n; i++)
		if (v[i].have_capture) {
			expo_labels(&l, "switch", v[i].s->config.name, NULL);
			expo_gauge(e, &l, v[i].capture.up);
		}
	capture_counter(e, &capture_opens, v, n, CAPTURE_FIELD(opens));
	expo_family(e, &capture_drops);
	for (size_t i = 0; i < n; i++)
		if (v[i].have_capture) {
			expo_labels(&l, "switch", v[i].s->config.name, "where", "kernel", NULL);
			expo_counter(e, &l, v[i].capture.kernel_drops);
			expo_labels(&l, "switch", v[i].s->config.name, "where", "interface", NULL);
			expo_counter(e, &l, v[i].capture.interface_drops);
		}
	capture_counter(e, &captured, v, n, CAPTURE_FIELD(ingest.frames));
	capture_counter(e, &ignored, v, n, CAPTURE_FIELD(ingest.ignored));
	capture_counter(e, &packets, v, n, CAPTURE_FIELD(ingest.total.packets));
	capture_counter(e, &events, v, n, CAPTURE_FIELD(ingest.total.events));
	expo_family(e, &malformed);
	for (size_t i = 0; i < n; i++)
		for (unsigned r = 1; v[i].have_capture && r < PKTSTATS_DECODE_ERROR_COUNT; r++) {
			if (r == PKTSTATS_DECODE_OTHER_PORT)
				continue; /* not a stat packet: ignored */
			expo_labels(&l, "switch", v[i].s->config.name, "reason",
				    pktstats_decode_error_name(r), NULL);
			expo_counter(e, &l, v[i].capture.ingest.malformed[r]);
		}
	capture_counter(e, &missing, v, n, CAPTURE_FIELD(ingest.missing));
	capture_counter(e, &gaps, v, n, CAPTURE_FIELD(ingest.total.gaps));
	capture_counter(e, &reordered, v, n, CAPTURE_FIELD(ingest.total.reordered));
	capture_counter(e, &duplicates, v, n, CAPTURE_FIELD(ingest.total.duplicates));
	capture_counter(e, &resets, v, n, CAPTURE_FIELD(ingest.total.resets));
	capture_counter(e, &missed_flags, v, n, CAPTURE_FIELD(ingest.total.missed_flags));
	capture_counter(e, &untracked, v, n, CAPTURE_FIELD(ingest.untracked));
	expo_family(e, &burst_threshold);
	for (size_t i = 0; i < n; i++)
		if (v[i].have_capture) {
			expo_labels(&l, "switch", v[i].s->config.name, NULL);
			expo_gauge(e, &l, (int64_t)v[i].s->burst_bytes);
		}
	queue_family(e, &queue_events, v, n, sample_events);
	queue_family(e, &queue_event_bytes, v, n, sample_event_bytes);
	queue_family(e, &arrival_occupancy, v, n, sample_arrival_occupancy);
	queue_family(e, &delay, v, n, sample_delay);
	queue_family(e, &untimed, v, n, sample_untimed);
	queue_family(e, &occupancy_max, v, n, sample_max);
	queue_family(e, &occupancy_peak, v, n, sample_peak);
	queue_family(e, &bursts, v, n, sample_bursts);
	queue_family(e, &burst_seconds, v, n, sample_burst_seconds);
}

static void render_exporter(struct exporter *x, struct exposition *e)
{
	struct expo_labels l;
	pthread_mutex_lock(&x->reload_lock);
	bool ok = x->last_reload_ok;
	int64_t at = x->last_reload_ok_at;
	uint64_t reloads_ok = x->reloads_ok, reloads_failed = x->reloads_failed;
	pthread_mutex_unlock(&x->reload_lock);
	expo_family(e, &build_info);
	expo_labels(&l, "version", PKTSTATS_EXPORTER_VERSION, "revision",
		    PKTSTATS_EXPORTER_REVISION, NULL);
	expo_info(e, &l);
	expo_family(e, &reload_ok);
	expo_gauge(e, NULL, ok);
	expo_family(e, &reload_time);
	expo_gauge_ns(e, NULL, at);
	expo_family(e, &reloads);
	expo_labels(&l, "result", "success", NULL);
	expo_counter(e, &l, reloads_ok);
	expo_labels(&l, "result", "failure", NULL);
	expo_counter(e, &l, reloads_failed);
}

void exporter_render(struct exporter *x, struct exposition *e, int64_t deadline_ns)
{
	pthread_rwlock_rdlock(&x->lock);
	size_t n = x->n_switches;
	struct switch_scrape *v = calloc(n ? n : 1, sizeof *v);
	if (!v) {
		e->failed = true;
		pthread_rwlock_unlock(&x->lock);
		return;
	}
	/* every device's reads at once, then each collected */
	for (size_t i = 0; i < n; i++) {
		v[i].s = x->switches[i];
		if (v[i].s->poller)
			v[i].ticket = device_poller_request(v[i].s->poller);
	}
	int64_t now = clock_ns(CLOCK_MONOTONIC);
	for (size_t i = 0; i < n; i++) {
		if (v[i].s->poller) {
			device_poller_collect(v[i].s->poller, v[i].ticket, deadline_ns, &v[i].device);
			v[i].have_device = true;
		}
		if (v[i].s->capture) {
			stat_capture_view(v[i].s->capture, now, &v[i].capture);
			v[i].have_capture = true;
		}
	}
	render_exporter(x, e);
	render_device(e, v, n);
	render_capture(e, v, n);
	for (unsigned k = 0; k < KINDS; k++)
		if (x->lists[k].n)
			kinds[k].render(e, x->lists[k].sessions, x->lists[k].n);
	if (x->ipfix)
		ipfix_listener_render(e, x->ipfix);
	pthread_rwlock_unlock(&x->lock);
	free(v);
	expo_finish(e);
}
