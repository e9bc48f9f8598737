/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: the headroom measurement of one port (docs/oam.md), on a thread of its own
 * (measurements.h).
 *
 * A measurement is `count` exchanges of oam_probe.h, one request at a time as `pktstats
 * headroom measure` sends them, on a packet socket opened for it (so that nothing that came
 * between two measurements, a late response among it, is taken for an answer), from the port's
 * MEP address when the device tells it (else the interface's). Its round trip is the largest
 * t4 - t1 - (t3 - t2) of the complete responses (all four stamps written), as `headroom
 * measure` sizes the headroom by the largest; the PFC headroom is pktstats_pfc_headroom()'s
 * for it with the line's rate, max-frame and internal bits. A measurement without a complete
 * response is a failure; the gauges keep the last successful one (and its time), and are
 * absent before the first.
 *
 * What starts one:
 *
 *   start          the session's start;
 *   link_up        the interface going from down (or missing) to up, every 250 ms: IFF_UP and
 *                  IFF_RUNNING (its operational state, the carrier) by SIOCGIFFLAGS, which
 *                  answers for the exporter's network namespace (/sys/class/net answers for
 *                  the one sysfs was mounted in);
 *   config_change  the port's oam registers (control bits, MAC, byte time) or its stamp
 *                  corrections (stamp.tx_correction_P, rx_correction_P) changing, read every
 *                  1 s through a handle of the switch's device of our own; without a device,
 *                  never (said once); a device that is absent or fails is logged once per
 *                  change and opened again after a backoff;
 *   interval       the interval passing since the last measurement, whatever started it.
 *
 * Triggers that come together, or while a measurement runs, make one measurement, counted
 * under the first of them in that order. No measurement is made while the link is down. One
 * that cannot send (the interface missing or failing) is logged once per change and tried
 * again after a backoff (1 s doubling to retry-max; at once on link up), for the same trigger.
 * Render copies the figures under the session's lock.
 */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
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
#include "pktstats/regs.h"

#define LINK_CHECK_NS (250 * MEASURE_NS_PER_MS)
#define CONFIG_CHECK_NS MEASURE_NS_PER_S

enum trigger { TRIGGER_START, TRIGGER_LINK_UP, TRIGGER_CONFIG_CHANGE, TRIGGER_INTERVAL, TRIGGERS };
static const char *const trigger_names[TRIGGERS] = {"start", "link_up", "config_change",
						    "interval"};

struct headroom_figures {
	bool have;              /* a measurement succeeded: the rest is its */
	int64_t round_trip_ns;
	bool have_pfc;          /* the PFC headroom of it (not of a negative round trip) */
	uint64_t pfc_bytes;
	int64_t at_ns;          /* CLOCK_REALTIME */
	uint64_t measurements[TRIGGERS], failures;
};

/* What a change of the port's configuration is */
struct port_watch {
	struct pktstats_oam_port_config oam;
	uint32_t tx_correction, rx_correction;
};

struct headroom_session {
	struct exporter_headroom_config config;
	char device[256];       /* the switch's; "" none */
	char what[96];
	uint64_t retry_max_ns;
	int stop_fd;
	pthread_t thread;
	pthread_mutex_t lock;
	struct headroom_figures figures; /* under lock */
	/* the thread's own */
	struct pktstats_dev *dev;
	bool have_watch;
	struct port_watch watch;
};

static bool same_watch(const struct port_watch *a, const struct port_watch *b)
{
	const struct pktstats_oam_port_config *x = &a->oam, *y = &b->oam;
	return x->dm_enable == y->dm_enable && x->dm_responder == y->dm_responder &&
	       x->dm_level == y->dm_level && x->headroom_enable == y->headroom_enable &&
	       x->headroom_responder == y->headroom_responder &&
	       x->isl_copy_field == y->isl_copy_field && x->isl_group == y->isl_group &&
	       x->cpu_bound == y->cpu_bound && !memcmp(x->mac, y->mac, 6) &&
	       x->byte_time == y->byte_time && a->tx_correction == b->tx_correction &&
	       a->rx_correction == b->rx_correction;
}

static int read_watch(struct pktstats_dev *dev, unsigned port, struct port_watch *w)
{
	const uint32_t offsets[2] = {PKTSTATS_STAMP_TX_CORRECTION_0 + 4 * port,
				     PKTSTATS_STAMP_RX_CORRECTION_0 + 4 * port};
	uint32_t values[2];
	int err = pktstats_oam_port_get(dev, port, &w->oam);
	if (err == 0)
		err = pktstats_read_many(dev, offsets, 2, values);
	w->tx_correction = values[0];
	w->rx_correction = values[1];
	return err;
}

/* Up only when the interface is there, up, and running (operationally up: its carrier). */
static bool link_is_up(const char *interface)
{
	unsigned flags = measure_interface_flags(interface);
	return (flags & IFF_UP) && (flags & IFF_RUNNING);
}

/* One look at the port's configuration: true when it changed since the last look. A device
 * that fails is closed (the caller tries again later). */
static bool config_changed(struct headroom_session *s, struct measure_log *log, int *err)
{
	static const char more[] = "no config_change trigger until it answers";
	char text[PKTSTATS_ERROR_MAX + 320];
	*err = 0;
	if (!s->dev) {
		*err = measure_device_open(s->device, &s->dev, text, sizeof text);
		if (*err < 0) {
			measure_log_failure(log, s->what, text, more);
			return false;
		}
	}
	struct port_watch w;
	*err = read_watch(s->dev, s->config.port, &w);
	if (*err < 0) {
		snprintf(text, sizeof text, "device %s: %s", s->device, pktstats_error(s->dev));
		measure_log_failure(log, s->what, text, more);
		pktstats_close(s->dev);
		s->dev = NULL;
		return false;
	}
	if (measure_log_success(log))
		exporter_log("%s: device %s answers again", s->what, s->device);
	bool changed = s->have_watch && !same_watch(&w, &s->watch);
	s->watch = w;
	s->have_watch = true;
	return changed;
}

struct measurement {
	unsigned complete;      /* complete responses */
	int64_t round_trip_ns;  /* the largest of theirs */
};

/* count exchanges on a socket of its own: 0 (m says what came), -ECANCELED (stopped), or
 * -errno with the reason in error (the interface is missing or failed). */
static int measure(struct headroom_session *s, struct measurement *m, char *error, size_t size)
{
	struct oam_link link;
	memset(m, 0, sizeof *m);
	int err = measure_link_open(&link, s->config.interface, error, size);
	if (err < 0)
		return err;
	const uint8_t *source = s->have_watch ? s->watch.oam.mac : link.mac;
	for (unsigned i = 0; i < s->config.count; i++) {
		struct headroom_probe probe;
		err = headroom_probe_exchange(&link, source, (int64_t)s->config.timeout_ns,
					      s->stop_fd, &probe);
		if (err < 0) {
			if (err != -ECANCELED)
				snprintf(error, size, "%s: %s (%s)", link.name, strerror(-err),
					 probe.sent ? "receiving" : "sending a request");
			break;
		}
		if (!probe.received || !headroom_probe_complete(&probe.response))
			continue;
		int64_t round_trip = pktstats_headroom_round_trip(&probe.response);
		if (!m->complete++ || round_trip > m->round_trip_ns)
			m->round_trip_ns = round_trip;
	}
	oam_link_close(&link);
	return err;
}

/* A measurement made: counted, and the gauges when it has a round trip. */
static void record(struct headroom_session *s, enum trigger trigger, const struct measurement *m,
		   struct measure_log *log)
{
	struct pktstats_pfc_headroom_params params = {
		.rate_mbps = s->config.rate_mbps,
		.max_frame = s->config.max_frame,
		.internal_bits = s->config.internal_bits,
		.round_trip_ns = m->round_trip_ns,
	};
	struct pktstats_pfc_headroom headroom;
	bool have_pfc = m->complete && pktstats_pfc_headroom(&params, &headroom) == 0;
	int64_t now = measure_realtime_ns();
	pthread_mutex_lock(&s->lock);
	struct headroom_figures *f = &s->figures;
	f->measurements[trigger]++;
	if (m->complete) {
		f->have = true;
		f->round_trip_ns = m->round_trip_ns;
		f->have_pfc = have_pfc;
		f->pfc_bytes = have_pfc ? headroom.bytes : 0;
		f->at_ns = now;
	} else {
		f->failures++;
	}
	pthread_mutex_unlock(&s->lock);
	if (!m->complete) {
		char text[160];
		snprintf(text, sizeof text, "no complete response to %u requests on %s",
			 s->config.count, s->config.interface);
		measure_log_failure(log, s->what, text, trigger_names[trigger]);
	} else if (measure_log_success(log)) {
		exporter_log("%s: round trip %" PRId64 " ns on %s (%s)", s->what, m->round_trip_ns,
			     s->config.interface, trigger_names[trigger]);
	}
}

static void *headroom_run(void *argument)
{
	struct headroom_session *s = argument;
	const int64_t interval = (int64_t)s->config.interval_ns;
	struct measure_backoff link_backoff, device_backoff;
	measure_backoff_init(&link_backoff, s->retry_max_ns);
	measure_backoff_init(&device_backoff, s->retry_max_ns);
	/* the result's log starts as a failure so that the first success is said */
	struct measure_log link_log = {{0}}, device_log = {{0}}, result_log = {"none yet"};
	unsigned pending = 1u << TRIGGER_START;
	int64_t now = measure_monotonic_ns();
	int64_t link_at = now, config_at = now, interval_at = now + interval, measure_at = now;
	bool up = link_is_up(s->config.interface);
	char error[512], wait[64];
	if (!*s->device)
		exporter_log("%s: switch %s has no device: no config_change trigger", s->what,
			     s->config.switch_name);

	for (;;) {
		now = measure_monotonic_ns();
		if (now >= link_at) {
			bool was_up = up;
			up = link_is_up(s->config.interface);
			if (up && !was_up) {
				pending |= 1u << TRIGGER_LINK_UP;
				measure_at = now; /* a link that came back is measured at once */
				measure_backoff_reset(&link_backoff);
			}
			link_at = now + LINK_CHECK_NS;
		}
		if (*s->device && now >= config_at) {
			int err;
			if (config_changed(s, &device_log, &err))
				pending |= 1u << TRIGGER_CONFIG_CHANGE;
			if (err < 0) {
				config_at = now + measure_backoff_next(&device_backoff);
			} else {
				measure_backoff_reset(&device_backoff);
				config_at = now + CONFIG_CHECK_NS;
			}
		}
		if (now >= interval_at)
			pending |= 1u << TRIGGER_INTERVAL;
		if (pending && up && now >= measure_at) {
			enum trigger trigger = TRIGGER_START; /* the first pending, in that order */
			while (!(pending & 1u << trigger))
				trigger++;
			struct measurement m;
			int err = measure(s, &m, error, sizeof error);
			if (err == -ECANCELED)
				break;
			now = measure_monotonic_ns();
			if (err < 0) {
				int64_t w = measure_backoff_next(&link_backoff);
				measure_backoff_text(&link_backoff, w, wait, sizeof wait);
				measure_log_failure(&link_log, s->what, error, wait);
				measure_at = now + w;
			} else {
				measure_log_success(&link_log);
				measure_backoff_reset(&link_backoff);
				record(s, trigger, &m, &result_log);
				pending = 0;
				interval_at = now + interval;
			}
			continue; /* the checks that came due meanwhile */
		}
		/* the next look due; a trigger already pending (the link down) is no reason to
		 * wake */
		int64_t until = link_at;
		if (!(pending & 1u << TRIGGER_INTERVAL) && interval_at < until)
			until = interval_at;
		if (*s->device && config_at < until)
			until = config_at;
		if (pending && up && measure_at < until)
			until = measure_at;
		if (measure_wait(s->stop_fd, until))
			break;
	}
	pktstats_close(s->dev);
	s->dev = NULL;
	return NULL;
}

static void headroom_free(struct headroom_session *s)
{
	if (s->stop_fd >= 0)
		close(s->stop_fd);
	free(s);
}

int headroom_session_start(struct headroom_session **session,
			   const struct exporter_headroom_config *config,
			   const struct exporter_config *whole)
{
	struct headroom_session *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->config = *config;
	if (s->config.count == 0)
		s->config.count = 1;
	if (s->config.interval_ns == 0)
		s->config.interval_ns = 3600 * (uint64_t)MEASURE_NS_PER_S;
	snprintf(s->device, sizeof s->device, "%s",
		 measure_switch_device(whole, config->switch_name));
	s->retry_max_ns = whole ? whole->retry_max_ns : 30 * (uint64_t)MEASURE_NS_PER_S;
	snprintf(s->what, sizeof s->what, "switch %s port %u: headroom", config->switch_name,
		 config->port);
	int err = measure_stop_open();
	if (err < 0) {
		free(s);
		return err;
	}
	s->stop_fd = err;
	pthread_mutex_init(&s->lock, NULL);
	err = pthread_create(&s->thread, NULL, headroom_run, s);
	if (err) {
		pthread_mutex_destroy(&s->lock);
		headroom_free(s);
		return -err;
	}
	*session = s;
	return 0;
}

void headroom_session_stop(struct headroom_session *s)
{
	if (!s)
		return;
	measure_stop(s->stop_fd);
	pthread_join(s->thread, NULL);
	pthread_mutex_destroy(&s->lock);
	headroom_free(s);
}

EXPO_FAMILY(round_trip, "pktstats_headroom_round_trip_seconds", EXPO_GAUGE, "seconds",
            "The link's round trip t4 - t1 - (t3 - t2) by the headroom PDU: the largest of the "
            "last successful measurement's responses.");
EXPO_FAMILY(cable_delay, "pktstats_headroom_cable_delay_seconds", EXPO_GAUGE, "seconds",
            "Half the round trip: the cable's one-way delay.");
EXPO_FAMILY(pfc_bytes, "pktstats_headroom_pfc_bytes", EXPO_GAUGE, "bytes",
            "The PFC headroom the round trip calls for (IEEE 802.1Q Annex N's delay model) at the "
            "line's rate, maximum frame and internal delay.");
EXPO_FAMILY(buffer_bytes, "pktstats_headroom_buffer_bytes", EXPO_GAUGE, "bytes",
            "The buffer the headroom must fit in (configured).");
EXPO_FAMILY(measured_at, "pktstats_headroom_last_measurement_timestamp_seconds", EXPO_GAUGE,
            "seconds", "When the last successful measurement was made.");
EXPO_FAMILY(measurements, "pktstats_headroom_measurements", EXPO_COUNTER, NULL,
            "Measurements made, by what started them: start, link_up (the interface's carrier "
            "came up), config_change (the port's oam or stamp registers changed), interval.");
EXPO_FAMILY(failures, "pktstats_headroom_failures", EXPO_COUNTER, NULL,
            "Measurements that got no complete response.");

static void headroom_labels(const struct headroom_session *s, struct expo_labels *l)
{
	char port[8];
	snprintf(port, sizeof port, "%u", s->config.port);
	expo_labels(l, "switch", s->config.switch_name, "port", port, NULL);
}

void headroom_sessions_render(struct exposition *e, struct headroom_session *const *sessions,
			      size_t n)
{
	struct headroom_figures *f = calloc(n ? n : 1, sizeof *f);
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
	expo_family(e, &round_trip);
	for (size_t i = 0; i < n; i++)
		if (f[i].have) {
			headroom_labels(sessions[i], &l);
			expo_gauge_ns(e, &l, f[i].round_trip_ns);
		}
	expo_family(e, &cable_delay);
	for (size_t i = 0; i < n; i++)
		if (f[i].have) {
			/* exact when a whole ns; a half ns only a double can say */
			headroom_labels(sessions[i], &l);
			if (f[i].round_trip_ns % 2 == 0)
				expo_gauge_ns(e, &l, f[i].round_trip_ns / 2);
			else
				expo_gauge_double(e, &l, (double)f[i].round_trip_ns / 2e9);
		}
	expo_family(e, &pfc_bytes);
	for (size_t i = 0; i < n; i++)
		if (f[i].have && f[i].have_pfc) {
			headroom_labels(sessions[i], &l);
			expo_gauge(e, &l, (int64_t)f[i].pfc_bytes);
		}
	expo_family(e, &buffer_bytes);
	for (size_t i = 0; i < n; i++)
		if (sessions[i]->config.have_buffer) {
			headroom_labels(sessions[i], &l);
			expo_gauge(e, &l, (int64_t)sessions[i]->config.buffer_bytes);
		}
	expo_family(e, &measured_at);
	for (size_t i = 0; i < n; i++)
		if (f[i].have) {
			headroom_labels(sessions[i], &l);
			expo_gauge_ns(e, &l, f[i].at_ns);
		}
	expo_family(e, &measurements);
	for (size_t i = 0; i < n; i++)
		for (unsigned t = 0; t < TRIGGERS; t++) {
			headroom_labels(sessions[i], &l);
			expo_label_add(&l, "trigger", trigger_names[t]);
			expo_counter(e, &l, f[i].measurements[t]);
		}
	expo_family(e, &failures);
	for (size_t i = 0; i < n; i++) {
		headroom_labels(sessions[i], &l);
		expo_counter(e, &l, f[i].failures);
	}
	free(f);
}
