#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""pktstats-exporter serving a fleet of eight simulated switches to a real Prometheus, which
remote-writes to a real VictoriaMetrics: what an operator reads through both PromQL APIs against
what the exporter did not compute, the simulator's own counters and truth (docs/monitoring.md,
"A fleet"; issue 30 item 7).

    tb/exporter/test_exporter_fleet.py build/bin/pktstats-sim build/asan/bin/pktstats \\
        build/bin/pktstats-exporter [--seed S] [--traffic-ms T]

In a network namespace of its own (it re-runs itself under `unshare --net`), with a scratch
directory removed at the end, every process it started stopped, and a global alarm: the fleet of
tb/exporter/fleet.py, eight switches s0..s7 in a chain of 100 m cables, an incast on every
switch's port-2 queue (its two generators and everything the switch before sent), the load
adding up along the chain so that the later switches drop more; each switch's stat packets out
of CPU port 7 into a TAP of its own; one exporter serving all eight (device = the switch's
socket, stat-interface = its TAP); Prometheus 2.42 scraping it every second and remote-writing
to VictoriaMetrics. The PKTSTATS command adds the learning-table entries (`fdb add`).

When the traffic is over (every switch's queue 2 took or dropped all its frames, every queue
empty, evcap.events_sent unchanged, then past the flush timeout), the switches' counters are read
through their sockets, the exporter has decoded as many stat packets as each switch sent, and
Prometheus has scraped after that (and VictoriaMetrics holds that scrape; if a switch's register
reads took longer than the exporter's deadline, Prometheus's 1 s timeout less 0.5 s, which a
loaded machine does now and then, that scrape shows it down and the next one is taken, at most
5), each of these is asked of Prometheus and of VictoriaMetrics (a test point each), for every
switch:

  up        pktstats_up = 1, one series per switch;
  sent      pktstats_queue_sent_frames_total per switch and queue (64 series) = the frames the
            queue removed, read through the switch's socket, = the simulator's end-of-run
            summary (pktstats_sim.parse_switch_summaries);
  dropped   pktstats_queue_dropped_frames_total: the same with the frames dropped;
  drop      pktstats_queue_events_total{type="drop"} (decoded from the stat packets) = the
  events    dropped counter read through the socket;
  delays    pktstats_queue_delay_seconds_count per switch and queue = the lines of that switch's
            sojourn truth (--sojourn-truth) for that queue: one timed frame per frame that left;
  p99       histogram_quantile(0.99, pktstats_queue_delay_seconds_bucket{switch="sK",queue="2"})
            = the quantile worked out here (prom_api.histogram_quantile: Prometheus's linear
            interpolation) from the truth's delays, (depart - commit) x 8 ns, bucketed with the
            exporter's bounds: Prometheus's exactly, VictoriaMetrics's within 1e-12 relative
            (its own interpolation's float operations);
  sum       sum(pktstats_queue_dropped_frames_total) = the frames dropped by all switches;
  range     query_range of rate(pktstats_queue_events_total{type="arrival"}[5s]) from before
            the traffic to after it, step 1 s: a series with points for every switch and queue,
            queue 2's rising above 0 on every switch.

Then the queries of docs/monitoring.md's "Queries an operator types", read from it: each
answered by both engines without error, with the same series; those of the queues non-empty,
those of the Y.1731 sessions (none here) and `pktstats_up == 0` empty.

Before them: the scenario (the simulator's socket counters = its summary, every switch's queue 2
took its generators' and the switch before's frames, the later switches dropped, no event
missed) and the stat packets (the exporter decoded every stat packet and event each switch
sent, in both APIs). After them: every process stopped, the scratch directory removed.

Seen failing with (mutated copies of the exporter, each failing exactly the points named, in
both APIs): pktstats_up computed as `completed > ticket` (up); the 64-bit registers' words
swapped (sent, dropped, sum); the dropped frames read from bytes_dropped (dropped, sum); the
departure and drop type labels swapped (drop events); each stat packet's last timed frame not
observed (delays, p99); the 500 us bucket's `le` written 0.0004 (p99, on s3..s7); every 97th
captured frame ignored (stat packets, drop events, delays, p99); `arrival` renamed (range); the
microbursts family renamed (the docs' queries); and in the test: the next switch's truth
(delays, p99), another switch's summary (scenario), the scratch directory left (the last).

Without root, /dev/net/tun, unshare, prometheus or victoria-metrics, the checks are skipped.
"""

import argparse
import math
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fleet as F  # noqa: E402  (tb/exporter/fleet.py; it puts tb/common on the path)
import pktstats_sim  # noqa: E402
import prometheus  # noqa: E402
import victoria  # noqa: E402
from exposition_text import DELAY_LE  # noqa: E402
from prom_api import histogram_quantile, same_float  # noqa: E402
from tap_output import Tap  # noqa: E402

ALARM_S = 200
TRAFFIC_MS = 5.0          # simulated time of every generator's frames
SETTLE_TIMEOUT_S = 120
SCRAPE_INTERVAL = "1s"
APIS = ("Prometheus", "VictoriaMetrics")
CHECKS = [
    "scenario: the socket counters = the summary; every queue 2 took its frames; drops later in "
    "the chain",
    "stat packets: the exporter decoded every stat packet and event of every switch",
] + ["%s: %s" % (api, what) for api in APIS for what in (
    "pktstats_up = 1 for every switch",
    "pktstats_queue_sent_frames_total = the socket's and the summary's frames removed",
    "pktstats_queue_dropped_frames_total = the socket's and the summary's frames dropped",
    "pktstats_queue_events_total{type=\"drop\"} = the dropped counter",
    "pktstats_queue_delay_seconds_count = the sojourn truth's lines per queue",
    "histogram_quantile(0.99, ...{queue=\"2\"}) = the truth's, interpolated as Prometheus does",
    "sum(pktstats_queue_dropped_frames_total) = the fleet's drops",
    "query_range of rate(arrivals[5s]): points for every switch",
)] + ["docs/monitoring.md's operator queries: answered by both, the same series",
      "every process stopped, the scratch directory removed"]


class Overtime(BaseException):
    """The alarm: not an Exception, so that no wait_for() swallows it."""


def alarm(signum, frame):
    raise Overtime("test_exporter_fleet: over %d s" % ALARM_S)


def by_labels(server, promql, keys=("switch", "queue")):
    """{(label values of keys): value} of an instant query; ValueError on two samples for one
    key."""
    out = {}
    for labels, v in server.vector(promql).items():
        d = dict(labels)
        key = tuple(d.get(k) for k in keys)
        if key in out:
            raise ValueError("%s: two samples for %s" % (promql, key))
        out[key] = v
    return out


def compare(got, want, what, rel=0.0):
    """Lines naming every key where got and want differ (missing keys included)."""
    lines = []
    for key in sorted(set(got) | set(want), key=str):
        if key not in got or key not in want or \
                not same_float(float(got[key]), float(want[key]), rel):
            lines.append("%s %s: got %r, want %r" % (what, key, got.get(key), want.get(key)))
    return lines


def doc_queries():
    """The PromQL lines of docs/monitoring.md's "Queries an operator types" block."""
    with open(os.path.join(F.ROOT, "docs", "monitoring.md")) as f:
        text = f.read()
    section = text[text.index("## Queries an operator types"):]
    block = section[section.index("```") + 3:]
    block = block[block.index("\n") + 1:block.index("```")]
    return [line.strip() for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("simulator")
    parser.add_argument("cli")
    parser.add_argument("exporter")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--traffic-ms", type=float, default=TRAFFIC_MS)
    parser.add_argument("--scrape-interval", default=SCRAPE_INTERVAL)
    options = parser.parse_args()
    tap = Tap()
    why = None
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun"):
        why = "needs root and /dev/net/tun"
    elif not shutil.which("unshare"):
        why = "needs unshare"
    elif not all(os.access(b, os.X_OK) for b in (prometheus.BINARY, victoria.BINARY)):
        why = "needs prometheus and victoria-metrics (make deps)"
    if why is not None:
        for check in CHECKS:
            tap.n += 1
            print("ok %d - %s # SKIP %s" % (tap.n, check, why))
        return tap.done()
    try:
        pktstats_sim.in_private_network()
        setup_error = None
    except RuntimeError as error:
        setup_error = error
    seed = options.seed if options.seed is not None else int(time.time()) % 1000000007
    tap.comment("seed %d (replay: %s --seed %d)" % (seed, " ".join(sys.argv[:4]), seed))
    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(ALARM_S)
    started = time.monotonic()
    work = tempfile.mkdtemp(prefix="test_exporter_fleet.")
    def log(text):
        tap.comment("%5.1f s: %s" % (time.monotonic() - started, text))
    fleet = F.Fleet(os.path.abspath(options.simulator), os.path.abspath(options.cli),
                    os.path.abspath(options.exporter), work, traffic_ms=options.traffic_ms,
                    seed=seed, scrape_interval=options.scrape_interval, log=log)
    try:
        if setup_error:
            raise setup_error
        run(tap, fleet, started)
    except (Exception, Overtime) as e:  # a broken run is a failure, with the logs
        logs = "".join("--- %s\n%s\n" % (what, text[-1500:]) for what, text in (
            ("exporter", fleet.exporter_log()),
            ("simulator", fleet.sim.log() if fleet.sim else ""),
            ("prometheus", fleet.prom.log() if fleet.prom else ""),
            ("victoria-metrics", fleet.vm.log() if fleet.vm else "")) if text)
        tap.point(False, "the run", "%s\n%s" % (traceback.format_exc(), logs))
    finally:
        try:
            fleet.remove()
        except (Exception, Overtime) as e:
            tap.comment("stopping: %s: %s" % (type(e).__name__, e))
        signal.alarm(0)
    running = [what for what, proc in (
        ("simulator", fleet.sim.process if fleet.sim else None), ("exporter", fleet.exporter),
        ("prometheus", fleet.prom.proc if fleet.prom else None),
        ("victoria-metrics", fleet.vm.proc if fleet.vm else None)) if proc and proc.poll() is None]
    tap.point(not running and not os.path.exists(work), CHECKS[-1],
              "still running: %s; %s %s"
              % (running, work, "left" if os.path.exists(work) else "gone"))
    tap.comment("%.1f s in all" % (time.monotonic() - started))
    return tap.done()


def run(tap, fleet, started):
    S = F.SWITCHES
    fleet.start()
    fleet.log("traffic: %s" % ", ".join(
        "%s %s frames" % (F.name(k), "+".join(str(n) for n in fleet.counts(k).values()))
        for k in range(S)))
    fleet.start_traffic()
    counters = fleet.wait_settled(SETTLE_TIMEOUT_S)
    fleet.log("traffic over (%.1f s of wall time); waiting for the exporter and a scrape"
              % (fleet.traffic_settled - fleet.traffic_started))
    fleet.wait_decoded(counters, 30)
    scrapes = fleet.wait_scraped()
    fleet.log("asking both APIs (the scrape used: the %s after the exporter decoded the last stat "
              "packet)" % ("first" if scrapes == 1 else "%d." % scrapes))

    answers = {}
    for api, server in zip(APIS, (fleet.prom, fleet.vm)):
        a = answers[api] = {}
        a["up"] = by_labels(server, "pktstats_up", ("switch",))
        a["sent"] = by_labels(server, "pktstats_queue_sent_frames_total")
        a["dropped"] = by_labels(server, "pktstats_queue_dropped_frames_total")
        a["drop_events"] = by_labels(server, 'pktstats_queue_events_total{type="drop"}')
        a["delay_count"] = by_labels(server, "pktstats_queue_delay_seconds_count")
        a["p99"] = {}
        for k in range(S):
            a["p99"][F.name(k)] = server.value(
                'histogram_quantile(0.99, pktstats_queue_delay_seconds_bucket'
                '{switch="%s",queue="%d"})' % (F.name(k), F.INCAST_PORT))
        a["sum_dropped"] = server.value("sum(pktstats_queue_dropped_frames_total)")
        a["packets"] = by_labels(server, "pktstats_stat_packets_received_total", ("switch",))
        a["events"] = by_labels(server, "pktstats_stat_events_received_total", ("switch",))
        a["slowest"] = [server.value(q) for q in (
            "max(max_over_time(pktstats_device_read_duration_seconds[1h]))",
            'max(max_over_time(scrape_duration_seconds{job="pktstats"}[1h]))',
            "sum(count_over_time(pktstats_up[1h]))",
            "sum(count_over_time(pktstats_up[1h])) - sum(sum_over_time(pktstats_up[1h]))")]
        a["range"] = server.query_range('rate(pktstats_queue_events_total{type="arrival"}[5s])',
                                        fleet.traffic_started - 3, time.time(), 1)
        a["docs"] = {}
        for promql in doc_queries():
            try:
                # the metric name left out: VictoriaMetrics keeps it where Prometheus drops it
                # (max_over_time)
                a["docs"][promql] = {tuple(kv for kv in k if kv[0] != "__name__"): v
                                     for k, v in server.vector(promql).items()
                                     if not math.isnan(v)}
            except Exception as e:  # the point below names it
                a["docs"][promql] = "%s: %s" % (type(e).__name__, e)
    tap.comment("slowest register reads of a switch %.3f s, slowest scrape %.3f s; pktstats_up "
                "samples %d, of them 0 (reads beyond the scrape's deadline) %d"
                % tuple(answers["Prometheus"]["slowest"]))
    summaries = fleet.stop_simulator()
    fleet.close()
    truth = [fleet.truth_delays(k) for k in range(S)]

    # The scenario, and the simulator's two readings of its counters
    problems = []
    if len(summaries) != S:
        problems.append("%d summaries" % len(summaries))
    for k in range(min(S, len(summaries))):
        for q in range(F.QUEUES):
            if counters[k]["queues"][q] != summaries[k]["queues"][q]:
                problems.append("%s queue %d: socket %s, summary %s" % (
                    F.name(k), q, counters[k]["queues"][q], summaries[k]["queues"][q]))
        if [counters[k][x] for x in ("events", "packets", "missed")] != \
                [summaries[k][x] for x in ("events", "packets", "missed")] or counters[k]["missed"]:
            problems.append("%s capture: socket %s, summary %s" % (F.name(k), [
                counters[k][x] for x in ("events", "packets", "missed")], [
                summaries[k][x] for x in ("events", "packets", "missed")]))
        stored, removed, dropped = counters[k]["queues"][F.INCAST_PORT]
        if stored + dropped != fleet.expected_arrivals(k, counters):
            problems.append("%s queue 2: %d stored + %d dropped, want %d" % (
                F.name(k), stored, dropped, fleet.expected_arrivals(k, counters)))
    drops = [c["queues"][F.INCAST_PORT][2] for c in counters]
    if drops[0] or not all(d > 0 for d in drops[S // 2:]) or drops[-1] <= drops[S // 2]:
        problems.append("drops along the chain: %s" % drops)
    tap.point(not problems, "%s (queue-2 drops along the chain %s)" % (CHECKS[0], drops),
              "\n".join(problems))

    problems = []
    for api in APIS:
        want_packets = {(F.name(k),): counters[k]["packets"] for k in range(S)}
        want_events = {(F.name(k),): counters[k]["events"] for k in range(S)}
        problems += compare(answers[api]["packets"], want_packets, api + " packets")
        problems += compare(answers[api]["events"], want_events, api + " events")
    tap.point(not problems, "%s (%d stat packets, %d events)" % (
        CHECKS[1], sum(c["packets"] for c in counters), sum(c["events"] for c in counters)),
        "\n".join(problems))

    sojourn_lines = {(F.name(k), str(q)): len(truth[k][q])
                     for k in range(S) for q in range(F.QUEUES)}
    p99_want = {}
    for k in range(S):
        p99_want[F.name(k)] = histogram_quantile(
            0.99, DELAY_LE, F.cumulative_buckets(truth[k][F.INCAST_PORT]))
    tap.comment("p99 queueing delay of queue 2 from the truth: %s" % ", ".join(
        "%s %.3f us" % (n, v * 1e6) for n, v in sorted(p99_want.items())))
    total_dropped = sum(q[2] for c in counters for q in c["queues"].values())

    for api in APIS:
        a = answers[api]
        want_up = {(F.name(k),): 1 for k in range(S)}
        tap.point(a["up"] == want_up, "%s: pktstats_up = 1 for every switch" % api,
                  "\n".join(compare(a["up"], want_up, "pktstats_up")))
        for key, column, what in (("sent", 1, "removed"), ("dropped", 2, "dropped")):
            socket_want = {(F.name(k), str(q)): counters[k]["queues"][q][column]
                           for k in range(S) for q in range(F.QUEUES)}
            summary_want = {(F.name(k), str(q)): summaries[k]["queues"][q][column]
                            for k in range(min(S, len(summaries))) for q in range(F.QUEUES)}
            lines = (compare(a[key], socket_want, "socket")
                     + compare(a[key], summary_want, "summary"))
            tap.point(not lines, "%s: pktstats_queue_%s_frames_total = the socket's and the "
                      "summary's frames %s (64 series, %d in all)"
                      % (api, key, what, sum(socket_want.values())), "\n".join(lines))
        dropped_want = {(F.name(k), str(q)): counters[k]["queues"][q][2]
                        for k in range(S) for q in range(F.QUEUES)}
        lines = compare(a["drop_events"], dropped_want, "drop events")
        tap.point(not lines, "%s: pktstats_queue_events_total{type=\"drop\"} = the dropped "
                  "counter, per switch and queue" % api, "\n".join(lines))
        lines = compare(a["delay_count"], sojourn_lines, "delay count")
        tap.point(not lines, "%s: pktstats_queue_delay_seconds_count = the sojourn truth's "
                  "lines, per switch and queue (%d frames)" % (api, sum(sojourn_lines.values())),
                  "\n".join(lines))
        # Prometheus's own interpolation: to the last bit; VictoriaMetrics's does the same
        # arithmetic in another order
        rel = 0.0 if api == "Prometheus" else 1e-12
        lines = compare(a["p99"], p99_want, "p99", rel)
        if not lines and rel:
            tap.comment("%s's p99s: largest relative difference %.3g" % (api, max(
                abs(a["p99"][n] - v) / abs(v) for n, v in p99_want.items())))
        tap.point(not lines and not any(math.isnan(v) for v in p99_want.values()),
                  "%s: histogram_quantile(0.99, pktstats_queue_delay_seconds_bucket{switch=\"sK\","
                  "queue=\"2\"}) = the truth's, bucketed and interpolated as Prometheus does, "
                  "every switch (%s)" % (api, "within 1e-12 relative" if rel else "exactly"),
                  "\n".join(lines))
        tap.point(a["sum_dropped"] == total_dropped,
                  "%s: sum(pktstats_queue_dropped_frames_total) = the fleet's %d drops"
                  % (api, total_dropped), "got %r" % a["sum_dropped"])
        lines, points = [], 0
        series = {}
        for s in a["range"]:
            series[(s["metric"].get("switch"), s["metric"].get("queue"))] = \
                [float(v) for _, v in s["values"]]
        for k in range(S):
            for q in range(F.QUEUES):
                values = series.get((F.name(k), str(q)))
                if not values:
                    lines.append("%s queue %d: no points" % (F.name(k), q))
                    continue
                points += len(values)
                if q == F.INCAST_PORT and not max(values) > 0:
                    lines.append("%s queue 2: never above 0: %s" % (F.name(k), values))
        tap.point(not lines and len(series) == S * F.QUEUES,
                  "%s: query_range of rate(pktstats_queue_events_total{type=\"arrival\"}[5s]), "
                  "step 1 s over the traffic: points for every switch and queue, queue 2 above 0 "
                  "(%d series, %d points)" % (api, len(series), points), "\n".join(lines))

    # The queries docs/monitoring.md shows: no error in either engine, the same series (those
    # with a number: a histogram_quantile of queues without traffic is NaN; labels but the
    # metric name), a non-empty answer
    # for the queues' and none for the Y.1731 sessions' (none configured here) and `== 0`
    lines, answered = [], 0
    for promql in answers["Prometheus"]["docs"]:
        got = {api: answers[api]["docs"][promql] for api in APIS}
        errors = [api + ": " + v for api, v in got.items() if isinstance(v, str)]
        if errors:
            lines += ["%s: %s" % (promql, e) for e in errors]
            continue
        empty = "pktstats_dm_" in promql or promql.endswith("== 0")
        if set(got["Prometheus"]) != set(got["VictoriaMetrics"]):
            lines.append("%s: Prometheus %d series, VictoriaMetrics %d: %s" % (
                promql, len(got["Prometheus"]), len(got["VictoriaMetrics"]),
                sorted(set(got["Prometheus"]) ^ set(got["VictoriaMetrics"]))[:3]))
        elif bool(got["Prometheus"]) == empty:
            lines.append("%s: %d series, want %s" % (promql, len(got["Prometheus"]),
                                                     "none" if empty else "some"))
        answered += bool(got["Prometheus"])
    tap.point(not lines and answers["Prometheus"]["docs"],
              "docs/monitoring.md's %d operator queries: answered by both without error, the "
              "same series, %d non-empty (the queues'), the Y.1731 ones and `pktstats_up == 0` "
              "empty" % (len(answers["Prometheus"]["docs"]), answered), "\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
