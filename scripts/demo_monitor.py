#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""make demo-monitor's body (scripts/demo_monitor.sh runs it in a network namespace of its own):
the fleet of tb/exporter/fleet.py, its traffic for DEMO_TRAFFIC_MS (default 10) ms of simulated
time, the queries an operator types with the answers of Prometheus and VictoriaMetrics side by
side, a PNG per switch of its p99 queueing delay over time (Prometheus's query_range drawn by
gnuplot), and a report.

    scripts/demo_monitor.py BUILD_DIR

Everything goes into BUILD_DIR/demo-monitor/ (emptied first). Ctrl-C (or SIGTERM) stops every
process it started and exits 130. Python 3 standard library only.
"""

import math
import os
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tb", "exporter"))
import fleet as F  # noqa: E402  (it puts tb/common on the path)
import prometheus  # noqa: E402
import victoria  # noqa: E402

TRAFFIC_MS = float(os.environ.get("DEMO_TRAFFIC_MS", "10"))
PLOT_WINDOW = "5s"
GREY = "lc rgb '#555555'"


def say(text):
    print("\n== %s" % text, flush=True)


def note(text=""):
    print(text, flush=True)


def switch_order(key):
    return [int(x[1:]) if x[1:].isdigit() else int(x) if x.isdigit() else x for x in key]


def fmt(value, unit):
    if value is None:
        return "-"
    if math.isnan(value):
        return "NaN"
    return "%.3f us" % (value * 1e6) if unit == "s" else "%.6g" % value


def ask(fleet, title, promql, keys, at, unit=""):
    """Prints the question (an instant query at time `at`) as an operator types it to both
    servers, then each series' answer from both side by side."""
    say(title)
    for server, name in ((fleet.prom, "Prometheus"), (fleet.vm, "VictoriaMetrics")):
        note("$ curl -s %s/api/v1/query --data-urlencode 'query=%s' -d time=%.3f    # %s"
             % (server.http_url, promql, at, name))
    got = {}
    for name, server in (("Prometheus", fleet.prom), ("VictoriaMetrics", fleet.vm)):
        for s in server.query(promql, at):
            key = tuple(s["metric"].get(k, "") for k in keys)
            got.setdefault(key, {})[name] = float(s["value"][1])
    if not got:
        note("  (no series: the answer is empty in both)")
        return got
    note("  %-14s %18s %18s" % (" ".join(keys), "Prometheus", "VictoriaMetrics"))
    for key, values in sorted(got.items(), key=lambda kv: switch_order(kv[0])):
        note("  %-14s %18s %18s" % (" ".join(key), fmt(values.get("Prometheus"), unit),
                                    fmt(values.get("VictoriaMetrics"), unit)))
    return got


def fetch(fleet, k, start, end):
    """Switch k's p99 queueing delay and frames dropped per second over time (Prometheus's
    query_range, PLOT_WINDOW windows, a point a second): ({"p99": {t: s}, "drops": {t: 1/s}},
    the p99 query)."""
    n = F.name(k)
    queries = {
        "p99": 'histogram_quantile(0.99, sum by (le) (rate(pktstats_queue_delay_seconds_bucket'
               '{switch="%s"}[%s])))' % (n, PLOT_WINDOW),
        "drops": 'sum(rate(pktstats_queue_dropped_frames_total{switch="%s"}[%s]))'
                 % (n, PLOT_WINDOW),
    }
    data = {}
    for what, promql in queries.items():
        result = fleet.prom.query_range(promql, start, end, 1)
        data[what] = {float(t): float(v) for s in result for t, v in s["values"]}
    return data, queries["p99"]


def gnuplot(script, lines):
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    run = subprocess.run(["gnuplot", script], capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError("gnuplot %s: %s" % (script, run.stderr.strip()))


def common(png, title, x0, x1, settled, ratio):
    """What every plot starts with: terminal, title, the wall-clock time axis with the
    traffic's start and end marked."""
    return ["set terminal pngcairo size 1200,720 font 'sans,12'",
            "set output '%s'" % png,
            'set title "%s" noenhanced' % title.replace('"', '\\"'),
            "set xlabel 'wall-clock time since the traffic started (s); the simulated switches "
            "run %.0f times slower than real time'" % ratio,
            "set xrange [%g:%g]" % (x0, x1),
            "set grid",
            "set datafile missing 'NaN'",
            "set arrow from 0, graph 0 to 0, graph 1 nohead dashtype 2 %s" % GREY,
            "set label 'traffic starts' at 0, graph 0.97 left offset 0.5, 0 tc %s" % GREY[3:],
            "set arrow from %.3f, graph 0 to %.3f, graph 1 nohead dashtype 2 %s"
            % (settled, settled, GREY),
            "set label 'traffic over' at %.3f, graph 0.97 right offset -0.5, 0 tc %s"
            % (settled, GREY[3:])]


def draw_switch(out_dir, k, data, query, t0, x0, x1, settled, ratio, truth_p99_us):
    """sK.png: switch k's p99 queueing delay over time, the whole run's exact p99 from the
    simulator's truth as a line, its drops per second on the right axis (if it dropped)."""
    n = F.name(k)
    dat = os.path.join(out_dir, "%s.dat" % n)
    with open(dat, "w") as f:
        f.write("# wall-clock s since the traffic started, p99 queueing delay (us), drops/s\n")
        for t in sorted(set(data["p99"]) | set(data["drops"])):
            p99, drops = data["p99"].get(t, math.nan), data["drops"].get(t, math.nan)
            f.write("%.3f %s %s\n" % (t - t0, "NaN" if math.isnan(p99) else "%.6f" % (p99 * 1e6),
                                      "NaN" if math.isnan(drops) else "%.6g" % drops))
    dropped = any(v > 0 for v in data["drops"].values())
    png = os.path.join(out_dir, "%s.png" % n)
    lines = common(png, "Switch %s: p99 queueing delay of its frames, %s windows a second apart%s"
                   "\\n%s\\n(the histogram's buckets: ... 20, 50, 100, 200, 500 µs ...; "
                   "histogram_quantile interpolates linearly inside one)"
                   % (n, PLOT_WINDOW, "" if dropped else "; no frame dropped", query),
                   x0, x1, settled, ratio)
    lines += ["set ylabel 'p99 queueing delay (µs of switch time)'",
              "set yrange [0:*]", "set offsets 0, 0, graph 0.15, 0",
              "set key outside bottom center horizontal"]
    plots = ["'%s' using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#1f5fa8' title "
             "\"p99 in the window, from the exporter's histogram\"" % dat,
             "%.3f with lines dashtype 3 lw 2 lc rgb '#2e8b57' title \"whole run, exact from the "
             "simulator's truth: %.1f µs\"" % (truth_p99_us, truth_p99_us)]
    if dropped:
        lines += ["set ytics nomirror", "set y2tics", "set y2range [0:*]",
                  "set y2label 'frames dropped per second of wall-clock time'"]
        plots.append("'%s' using 1:3 axes x1y2 with steps lw 1.5 lc rgb '#c0392b' "
                     "title 'frames dropped per second (right axis)'" % dat)
    lines.append("plot " + ", \\\n     ".join(plots))
    gnuplot(os.path.join(out_dir, "%s.gp" % n), lines)
    return png, dat


def draw_fleet(out_dir, dats, x0, x1, settled, ratio):
    """fleet.png: every switch's p99 over time on one logarithmic axis."""
    png = os.path.join(out_dir, "fleet.png")
    lines = common(png, "The fleet: each switch's p99 queueing delay, %s windows a second apart "
                   "(Prometheus query_range)" % PLOT_WINDOW, x0, x1, settled, ratio)
    lines += ["set ylabel 'p99 queueing delay (µs of switch time, log scale)'",
              "set logscale y", "set yrange [1:1000]",
              "set key outside right top vertical title 'switch'"]
    plots = ["'%s' using 1:2 with linespoints lw 2 pt 7 ps 0.5 title '%s'" % (dat, F.name(k))
             for k, dat in enumerate(dats)]
    lines.append("plot " + ", \\\n     ".join(plots))
    gnuplot(os.path.join(out_dir, "fleet.gp"), lines)
    return png


def main():
    build = os.path.abspath(sys.argv[1])
    out = os.path.join(build, "demo-monitor")
    os.makedirs(out, exist_ok=True)
    for entry in os.listdir(out):     # a fresh run: the last one's files and databases go
        path = os.path.join(out, entry)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)

    def interrupted(signum, frame):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt
    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)

    binary = lambda name: os.path.join(build, "bin", name)  # noqa: E731
    fleet = F.Fleet(binary("pktstats-sim"), binary("pktstats"), binary("pktstats-exporter"), out,
                    traffic_ms=TRAFFIC_MS, seed=1, scrape_interval="1s",
                    log=lambda text: note("-- " + text))
    status = 0
    try:
        status = demo(fleet, out)
    except KeyboardInterrupt:
        note("\ndemo-monitor: interrupted; stopping every process it started")
        status = 130
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        fleet.close()
    return status


def demo(fleet, out):
    began = time.time()
    say("the fleet: %d simulated switches, one exporter, Prometheus, VictoriaMetrics" % F.SWITCHES)
    note("switches s0..s7 in a chain of %s cables (port 2 of sK to port 1 of sK+1); on every "
         "switch" % F.CABLE)
    note("an incast on queue 2: generators on ports 0 and 3 (bursts of %d us every %d us on "
         "average, rates" % (F.BURST_ON_US, F.BURST_ON_US + F.BURST_OFF_US))
    note("growing along the chain) plus all the switch before sent; stat packets out of CPU port")
    note("7 into TAP interfaces fleet0..fleet7; %g ms of simulated traffic" % TRAFFIC_MS)
    fleet.start()
    note("\nthe exporter's configuration (%s):" % os.path.join(out, "exporter.conf"))
    for line in fleet.exporter_config().splitlines():
        note("  " + line)
    note("Prometheus:      %s  (configuration %s)" % (fleet.prom.http_url, fleet.prom.config_path))
    note("VictoriaMetrics: %s  (remote write %s)" % (fleet.vm.http_url, fleet.vm.remote_write_url))
    note("the exporter:    %s/metrics" % fleet.exporter_url())

    say("the traffic: `start` on switch 0's socket starts every switch's generators")
    fleet.start_traffic()
    last = [0.0]

    def progress(counters):
        now = time.time()
        if now - last[0] < 5:
            return
        last[0] = now
        drops = fleet.prom.vector("sum by (switch) (pktstats_queue_dropped_frames_total)")
        by = {dict(k)["switch"]: v for k, v in drops.items()}
        note("%5.1f s: frames dropped so far (Prometheus): %s" % (
            now - fleet.traffic_started,
            "  ".join("%s %d" % (F.name(k), by.get(F.name(k), 0)) for k in range(F.SWITCHES))))
    counters = fleet.wait_settled(3600, progress=progress)
    wall = fleet.traffic_settled - fleet.traffic_started
    ratio = wall / (TRAFFIC_MS / 1e3)
    note("the traffic is over after %.1f s of wall time (%g ms simulated: %.0f times slower than "
         "real time)" % (wall, TRAFFIC_MS, ratio))
    decoded = fleet.wait_decoded(counters, 60)
    fleet.wait_scraped()
    at = time.time()
    note("the exporter decoded %s stat packets the switches sent; Prometheus has scraped it since"
         % ("all the" if decoded else "NOT all the"))

    # The questions are asked now, after the traffic, over a window that holds all of it: the
    # exporter's series began before it, so both engines have samples across the whole window.
    window = "%ds" % math.ceil(at - fleet.traffic_started + 1)
    note("the queries below are asked now (time=%.3f), over the last %s: the whole traffic"
         % (at, window))
    ask(fleet, "p99 queueing delay per switch over the last %s" % window,
        "histogram_quantile(0.99, sum by (switch, le) "
        "(rate(pktstats_queue_delay_seconds_bucket[%s])))" % window, ("switch",), at, "s")
    ask(fleet, "frames dropped per second, per switch and queue (the queues that dropped)",
        "rate(pktstats_queue_dropped_frames_total[%s]) > 0" % window, ("switch", "queue"), at)
    note("(rate() differs by a few per cent: Prometheus extrapolates the increase to the window's")
    note("edges, VictoriaMetrics divides it by the time its samples span; ratios of rates agree)")
    ask(fleet, "the share of the frames offered to each queue that it dropped",
        'rate(pktstats_queue_events_total{type="drop"}[%s]) / ignoring(type) sum without(type) '
        '(rate(pktstats_queue_events_total{type=~"arrival|drop"}[%s])) > 0' % (window, window),
        ("switch", "queue"), at)
    ask(fleet, "microbursts per minute (occupancy above 8192 bytes), per switch and queue",
        "60 * rate(pktstats_queue_microbursts_total[%s]) > 0" % window, ("switch", "queue"), at)
    ask(fleet, "is every switch up?", "pktstats_up", ("switch",), at)
    ask(fleet, "switches down (an alert's expression: empty is good)", "pktstats_up == 0",
        ("switch",), at)

    say("p99 queueing delay over time, one PNG per switch (Prometheus's query_range, gnuplot)")
    start, end = fleet.traffic_started - 3, fleet.traffic_settled + 8
    note("$ curl -s %s/api/v1/query_range --data-urlencode 'query=histogram_quantile(0.99, sum by "
         "(le) (rate(pktstats_queue_delay_seconds_bucket{switch=\"s0\"}[%s])))' -d start=%.0f "
         "-d end=%.0f -d step=1" % (fleet.prom.http_url, PLOT_WINDOW, start, end))
    series = [fetch(fleet, k, start, end) for k in range(F.SWITCHES)]
    whole = {F.name(k): fleet.prom.value(
        'histogram_quantile(0.99, pktstats_queue_delay_seconds_bucket{switch="%s",queue="2"})'
        % F.name(k)) for k in range(F.SWITCHES)}
    received = {dict(k)["switch"]: int(v) for k, v in
                fleet.prom.vector("pktstats_stat_packets_received_total").items()}
    prom_url, vm_url = fleet.prom.http_url, fleet.vm.http_url
    prom_config, prom_data, vm_data = fleet.prom.config_path, fleet.prom.data_dir, fleet.vm.data_dir

    say("stopping: the simulator (its summary), the exporter, Prometheus, VictoriaMetrics")
    fleet.stop_simulator()
    fleet.close()
    shutil.copyfile(fleet.sim.stdout.name, os.path.join(out, "sim.log"))
    truth = {}
    for k in range(F.SWITCHES):
        delays = sorted(fleet.truth_delays(k)[F.INCAST_PORT])
        # the exact 99th percentile: the smallest delay with 99% of the frames at or below it
        truth[F.name(k)] = (delays[max(0, math.ceil(0.99 * len(delays)) - 1)] if delays
                            else math.nan)

    t0, settled = fleet.traffic_started, fleet.traffic_settled - fleet.traffic_started
    pngs, dats, peaks = [], [], {}
    for k, (data, query) in enumerate(series):
        png, dat = draw_switch(out, k, data, query, t0, start - t0, end - t0, settled, ratio,
                               truth[F.name(k)] / 1e3)
        pngs.append(png)
        dats.append(dat)
        finite = [v for v in data["p99"].values() if not math.isnan(v)]
        peaks[F.name(k)] = max(finite) if finite else math.nan
    fleet_png = draw_fleet(out, dats, start - t0, end - t0, settled, ratio)
    note("drawn: %s .. %s, and all eight in %s" % (pngs[0], os.path.basename(pngs[-1]), fleet_png))

    lines = [
        "pktstats demo-monitor: %d switches, %g ms of simulated traffic in %.1f s of wall time "
        "(%.0f s in all);" % (F.SWITCHES, TRAFFIC_MS, wall, time.time() - began),
        "one pktstats-exporter, Prometheus 2.42 scraping it every 1 s and remote-writing to "
        "VictoriaMetrics",
        "",
        "switch  frames    dropped  stat packets  p99 queueing delay of queue 2",
        "        into q2            decoded/sent  truth (exact)  histogram (whole run)  "
        "worst 5-s window",
    ]
    for k in range(F.SWITCHES):
        n = F.name(k)
        stored, _, dropped = counters[k]["queues"][F.INCAST_PORT]
        lines.append("%-7s %7d  %8d  %12s  %10.1f us  %18.1f us  %13.1f us" % (
            n, stored + dropped, dropped, "%d/%d" % (received.get(n, -1), counters[k]["packets"]),
            truth[n] / 1e3, whole[n] * 1e6, peaks[n] * 1e6))
    lines += [
        "",
        "truth: the 99th percentile of the frames' delays in the simulator's sojourn truth",
        "(commit to departure); histogram: histogram_quantile over the exporter's buckets (8 ns,",
        "20, 50, 100, 200, 500 ns ... 10 ms), interpolated inside the bucket that holds it: a full",
        "queue (3906 words, 250 us at 1 Gb/s) puts it in the 200-500 us bucket. Rates are per",
        "second of wall-clock time: the simulated switches ran %.0f times slower than real time."
        % ratio,
        "tb/exporter/test_exporter_fleet.py checks these figures against the simulator's own.",
        "",
        "files in %s:" % out,
        "  s0.png .. s7.png     each switch's p99 queueing delay over time (and its drops)",
        "  fleet.png            all eight switches' p99 over time, log scale",
        "  sK.dat, sK.gp        the points drawn and the gnuplot scripts",
        "  exporter.conf        the exporter's configuration; exporter.log its log",
        "  sim.log              the simulator's end-of-run summary, per switch",
        "  sojournK.csv         switch K's sojourn truth: every frame's commit and departure clock",
        "  prometheus/, victoria-metrics/   both databases, with their logs",
        "",
        "the servers the demo used (stopped now): Prometheus %s, VictoriaMetrics %s"
        % (prom_url, vm_url),
        "to query the data again, start them on it (Ctrl-C stops them):",
        "  %s --config.file=%s \\" % (prometheus.BINARY, prom_config),
        "      --storage.tsdb.path=%s --web.listen-address=127.0.0.1:9090" % prom_data,
        "  %s -storageDataPath=%s \\" % (victoria.BINARY, vm_data),
        "      -httpListenAddr=127.0.0.1:8428 -search.latencyOffset=1s",
        "  curl -s http://127.0.0.1:9090/api/v1/query \\",
        "      --data-urlencode 'query=max_over_time(pktstats_queue_occupancy_peak_bytes[1h])'",
    ]
    report = "\n".join(lines) + "\n"
    with open(os.path.join(out, "report.txt"), "w") as f:
        f.write(report)
    say("report (%s)" % os.path.join(out, "report.txt"))
    note(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
