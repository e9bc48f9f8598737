/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TAP test of libpktstats' high-level API (pktstats/capture.h, pktstats/switch.h) against the
 * real simulator, with traffic from port 0 to port 1's address: the capture configuration
 * round trip and its validation, start and stop, the timer, counters and their clears, queue
 * status and limits, the learning table (learned, added, deleted entries), the ageing time, and
 * an error detail that names the register when the simulator is gone.
 */
#define _DEFAULT_SOURCE

#include "pktstats/capture.h"
#include "pktstats/regs.h"
#include "pktstats/switch.h"

#include "test_sim_process.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>

static struct pktstats_dev *dev;

static bool same_config(const struct pktstats_capture_config *a,
			const struct pktstats_capture_config *b)
{
	return a->resolution == b->resolution && a->queue_mask == b->queue_mask &&
	       a->event_mask == b->event_mask && a->output_ports == b->output_ports &&
	       !memcmp(a->destination_mac, b->destination_mac, 6) &&
	       !memcmp(a->source_mac, b->source_mac, 6) && a->source_ip == b->source_ip &&
	       a->destination_ip == b->destination_ip && a->tos == b->tos && a->ttl == b->ttl &&
	       a->udp_source_port == b->udp_source_port &&
	       a->udp_destination_port == b->udp_destination_port &&
	       a->max_length == b->max_length && a->flush_timeout == b->flush_timeout;
}

static void test_capture(void)
{
	struct pktstats_capture_config defaults, got, want, bad;
	pktstats_capture_defaults(&defaults);
	TAP_RC(pktstats_capture_get(dev, &got), 0, pktstats_error(dev), "capture_get");
	tap_ok(same_config(&got, &defaults), "after reset the device has the register map's defaults");

	want = defaults;
	want.resolution = 5;
	want.queue_mask = 0x0f;
	want.event_mask = PKTSTATS_EVENT_MASK_ARRIVAL | PKTSTATS_EVENT_MASK_DROP;
	want.output_ports = 0x08;
	memcpy(want.destination_mac, "\x02\x11\x22\x33\x44\x55", 6);
	memcpy(want.source_mac, "\x02\xaa\xbb\xcc\xdd\xee", 6);
	want.source_ip = 0x0a000001;
	want.destination_ip = 0x0a0000fe;
	want.tos = 0xb8;
	want.ttl = 3;
	want.udp_source_port = 40000;
	want.udp_destination_port = 30001;
	want.max_length = 9000;
	want.flush_timeout = 12345;
	TAP_RC(pktstats_capture_set(dev, &want), 0, pktstats_error(dev), "capture_set");
	TAP_RC(pktstats_capture_get(dev, &got), 0, pktstats_error(dev), "capture_get again");
	tap_ok(same_config(&got, &want), "every field reads back as set");

	bad = want;
	bad.resolution = 8;
	bad.ttl = 99;
	TAP_RC(pktstats_capture_set(dev, &bad), -EINVAL, pktstats_error(dev), "resolution 8");
	tap_ok(strstr(pktstats_error(dev), "resolution 8") != NULL, "the error names it: %s",
	       pktstats_error(dev));
	bad = want;
	bad.max_length = 85;
	TAP_RC(pktstats_capture_set(dev, &bad), -ERANGE, pktstats_error(dev), "max_length 85");
	bad = want;
	bad.event_mask = 0x8;
	TAP_RC(pktstats_capture_set(dev, &bad), -EINVAL, pktstats_error(dev), "event mask 0x8");
	TAP_RC(pktstats_capture_get(dev, &got), 0, pktstats_error(dev), "capture_get after them");
	tap_ok(same_config(&got, &want), "a rejected configuration writes nothing");

	bool running = true;
	TAP_RC(pktstats_capture_running(dev, &running), 0, pktstats_error(dev), "running");
	tap_ok(!running, "capture is stopped after reset");
	TAP_RC(pktstats_capture_start(dev), 0, pktstats_error(dev), "start");
	pktstats_capture_running(dev, &running);
	tap_ok(running, "start: running");
	TAP_RC(pktstats_capture_flush(dev), 0, pktstats_error(dev), "flush");
	TAP_RC(pktstats_capture_stop(dev), 0, pktstats_error(dev), "stop");
	pktstats_capture_running(dev, &running);
	tap_ok(!running, "stop: stopped");
	TAP_RC(pktstats_capture_set(dev, &defaults), 0, pktstats_error(dev), "defaults back");
}

static void test_timer_and_counters(void)
{
	uint64_t t0 = 0, t1 = 0, t2 = 0;
	TAP_RC(pktstats_timer_read(dev, &t0), 0, pktstats_error(dev), "timer read");
	TAP_RC(pktstats_timer_read(dev, &t1), 0, pktstats_error(dev), "timer read again");
	tap_ok(t1 > t0, "the timer runs (%" PRIu64 " then %" PRIu64 ")", t0, t1);
	TAP_RC(pktstats_timer_reset(dev), 0, pktstats_error(dev), "timer reset");
	pktstats_timer_read(dev, &t2);
	tap_ok(t2 < t1, "after a reset it restarts (%" PRIu64 ")", t2);
	TAP_RC(pktstats_timer_load(dev, UINT64_C(5000000000)), 0, pktstats_error(dev), "timer load");
	pktstats_timer_read(dev, &t2);
	tap_ok(t2 >= UINT64_C(5000000000) && t2 < UINT64_C(5001000000),
	       "a load sets it (%" PRIu64 ")", t2);

	/* Capture the traffic for a while, then read and clear the counters. */
	struct pktstats_capture_counters before, after;
	pktstats_capture_start(dev);
	uint64_t until = 0, now = 0;
	pktstats_timer_read(dev, &until);
	until += 200000; /* 1.6 ms of simulated time */
	while (pktstats_timer_read(dev, &now) == 0 && now < until)
		sleep_ms(20);
	pktstats_capture_stop(dev);
	/* Stopping sends the open packet, which takes a while to leave: let it go before the clear,
	 * so that nothing is counted after it */
	pktstats_timer_read(dev, &until);
	until += 25000; /* 200 us */
	while (pktstats_timer_read(dev, &now) == 0 && now < until)
		sleep_ms(5);
	TAP_RC(pktstats_capture_counters_get(dev, &before), 0, pktstats_error(dev), "counters");
	tap_ok(before.events_sent > 100 && before.packets_sent > 0 && before.events_missed == 0,
	       "counters count: %" PRIu64 " events in %" PRIu64 " packets, %" PRIu64 " missed",
	       before.events_sent, before.packets_sent, before.events_missed);
	TAP_RC(pktstats_capture_counters_clear(dev), 0, pktstats_error(dev), "counters clear");
	pktstats_capture_counters_get(dev, &after);
	tap_ok(after.events_sent == 0 && after.packets_sent == 0, "cleared (capture stopped)");
}

static void test_queues(void)
{
	struct pktstats_queue_status q;
	TAP_RC(pktstats_queue_get(dev, 1, &q), 0, pktstats_error(dev), "queue 1");
	/* (each counter is read at its own time while traffic flows: only bounds compare) */
	tap_ok(q.frames_stored > 0 && q.bytes_stored >= 60 * q.frames_stored && q.limit == 3906,
	       "queue 1 carries the traffic: %" PRIu64 " frames stored, limit %u", q.frames_stored,
	       q.limit);
	TAP_RC(pktstats_queue_set_limit(dev, 1, 100), 0, pktstats_error(dev), "limit 100");
	pktstats_queue_get(dev, 1, &q);
	tap_ok(q.limit == 100, "the limit reads back (%u)", q.limit);
	TAP_RC(pktstats_queue_set_limit(dev, 1, 1u << 20), -ERANGE, pktstats_error(dev),
	       "limit 2^20");
	TAP_RC(pktstats_queue_get(dev, 8, &q), -EINVAL, pktstats_error(dev), "queue 8");
	uint64_t stored = 0;
	pktstats_queue_get(dev, 1, &q);
	stored = q.frames_stored;
	TAP_RC(pktstats_queue_clear(dev, 1), 0, pktstats_error(dev), "queue clear");
	pktstats_queue_get(dev, 1, &q);
	tap_ok(q.frames_stored < stored / 2 + 10, "clear restarts the counters (%" PRIu64
	       " -> %" PRIu64 ")", stored, q.frames_stored);
	pktstats_queue_set_limit(dev, 1, 3906);
}

static void test_fdb(void)
{
	unsigned size = 0, index = 99;
	TAP_RC(pktstats_fdb_size(dev, &size), 0, pktstats_error(dev), "fdb size");
	tap_ok(size == 32, "32 entries (%u)", size);

	/* The generator on port 0 sends from 02:00:00:00:00:01: learned on port 0. */
	bool learned = false;
	for (unsigned i = 0; i < size; i++) {
		struct pktstats_fdb_entry e;
		if (pktstats_fdb_read(dev, i, &e) == 0 && e.valid && !e.is_static && e.port == 0 &&
		    !memcmp(e.mac, "\x02\x00\x00\x00\x00\x01", 6))
			learned = true;
	}
	tap_ok(learned, "the traffic's source was learned on port 0");

	const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x42};
	TAP_RC(pktstats_fdb_add(dev, mac, 3, true, &index), 0, pktstats_error(dev), "fdb add");
	struct pktstats_fdb_entry e;
	TAP_RC(pktstats_fdb_read(dev, index, &e), 0, pktstats_error(dev), "fdb read");
	tap_ok(e.valid && e.is_static && e.port == 3 && !memcmp(e.mac, mac, 6) && e.age == 0,
	       "entry %u holds the static address on port 3", index);
	unsigned again = 99;
	pktstats_fdb_add(dev, mac, 5, true, &again);
	pktstats_fdb_read(dev, again, &e);
	tap_ok(again == index && e.port == 5, "adding it again replaces the entry");
	const uint8_t group[6] = {0x01, 0, 0x5e, 0, 0, 1};
	TAP_RC(pktstats_fdb_add(dev, group, 1, true, NULL), -EINVAL, pktstats_error(dev),
	       "a group address");
	TAP_RC(pktstats_fdb_add(dev, mac, 8, true, NULL), -EINVAL, pktstats_error(dev), "port 8");
	TAP_RC(pktstats_fdb_read(dev, size, &e), -EINVAL, pktstats_error(dev), "entry 32");
	TAP_RC(pktstats_fdb_delete(dev, mac), 0, pktstats_error(dev), "fdb delete");
	pktstats_fdb_read(dev, index, &e);
	tap_ok(!e.valid, "the entry is gone");
	TAP_RC(pktstats_fdb_delete(dev, mac), -ENOENT, pktstats_error(dev), "delete again");

	struct pktstats_switch_counters c;
	TAP_RC(pktstats_switch_counters_get(dev, &c), 0, pktstats_error(dev), "switch counters");
	tap_ok(c.frames_looked_up > 0 && c.entries_learned > 0,
	       "%" PRIu64 " frames looked up, %" PRIu64 " learned", c.frames_looked_up,
	       c.entries_learned);
	unsigned ticks = 0;
	TAP_RC(pktstats_ageing_time_set(dev, 42), 0, pktstats_error(dev), "ageing 42");
	pktstats_ageing_time_get(dev, &ticks);
	tap_ok(ticks == 42, "the ageing time reads back (%u)", ticks);
	TAP_RC(pktstats_ageing_time_set(dev, 70000), -ERANGE, pktstats_error(dev), "ageing 70000");
}

int main(int argc, char **argv)
{
	char sim[PATH_MAX], error[PKTSTATS_ERROR_MAX];
	(void)argc;
	signal(SIGPIPE, SIG_DFL);
	if (simulator_setup(argv[0], sim, sizeof sim, "test_control_sim"))
		return tap_done();
	const char *traffic[] = {"--port", "0:gen=0.5,to=1", NULL};
	pid_t pid = start_simulator(sim, traffic);
	int rc = open_when_ready(pid, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "open sim:");
	if (rc == 0) {
		test_capture();
		test_timer_and_counters();
		test_queues();
		test_fdb();

		/* The simulator gone: the error names the register that failed. */
		stop_simulator(&pid, SIGKILL, NULL);
		struct pktstats_capture_config config;
		rc = pktstats_capture_get(dev, &config);
		tap_ok(rc < 0 && strncmp(pktstats_error(dev), "evcap.resolution: ", 18) == 0,
		       "a failure names the register: %s", pktstats_error(dev));
		pktstats_close(dev);
	}
	stop_simulator(&pid, SIGKILL, NULL);
	simulator_cleanup();
	return tap_done();
}
