#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tb/common/prometheus.py (and victoria.py's query API) against the real servers
(/usr/bin/prometheus, /usr/bin/promtool, /usr/bin/victoria-metrics, `make deps`):

  - an exposition server of the test's own (http.server on a free loopback port) serves a fixed
    exposition in the text format 0.0.4: a counter (2^53 among its values), a gauge (negative,
    fractional), a gauge whose label value holds a quote, a backslash and a newline, and two
    histograms with `le` buckets and labels; it records every scrape's Accept header;
  - Prometheus scrapes it every 500 ms, evaluates an alerting rule written here, and
    remote-writes to a VictoriaMetrics started here (which scrapes nothing: what it holds came
    by remote write). The target is up; the Accept header is exactly prometheus.SCRAPE_ACCEPT,
    OpenMetrics 1.0.0 first;
  - instant queries through both HTTP APIs give exactly the series and values served (every
    bucket, sum and count, labels with job and instance); the alert fires with its annotation
    templated; histogram_quantile at 0.02, 0.5 and 0.99 (first bucket, a middle one, the +Inf
    bucket) is, to the last bit, Prometheus's linear interpolation worked out here from the
    served buckets, in both;
  - VictoriaMetrics's query() sees a sample put a moment ago, stamped now, at once;
  - the counter changed: both APIs give the new value (the time from the scrape that served it
    to each API's first answer printed); after wait_scrapes(1) Prometheus gives the next one at
    once; a range query over the changes gives the same points in both;
  - the same figures as OpenMetrics 1.0.0 (`# UNIT`, an exemplar, `# EOF`): up, the new values
    in both APIs;
  - broken expositions (OpenMetrics without `# EOF`; OpenMetrics served as text/plain; a label
    value without quotes in line 1): the target down with a lastError saying why, `up` 0 in
    both APIs, the series left as they are (error after the last sample) or stale (error in
    line 1); served well again: up. reload() with a target where nothing listens: down,
    "connection refused", up 0;
  - `promtool check metrics` on a clean exposition (exit 0, silent), one breaking naming
    conventions (exit 3, one line per problem), one that does not parse (exit 1), and
    OpenMetrics (read as the text format: "no help text" for the counter's samples; an
    exemplar does not parse);
  - stop(): the port closed; the scratch directory removed.
Skipped when a binary is missing. Bounded: 90 s alarm (it takes 11-30 s).

    tb/common/test_prometheus.py
Prints TAP. Seen failing with: a wrong Accept constant, a wrong expected value, label or
annotation, the interpolation off, wait_scrapes() counting a scrape from before its call,
-search.maxStepForPointsAdjustment left at its default, OpenMetrics served as text/plain, and,
in victoria.py's query(), no force flush, no nocache=1, or the server's rounded now.
"""

import http.server
import os
import shutil
import signal
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap_output import Tap  # noqa: E402
from prom_api import histogram_quantile, labels_key, same_float, wait_for  # noqa: E402
import prometheus  # noqa: E402
import victoria  # noqa: E402

TEXT = "text/plain; version=0.0.4; charset=utf-8"
OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"
INTERVAL = "500ms"
ODD_LABEL = 'a "quoted" back\\slash\nand a newline'   # as stored; escaped on the wire

RULES = """\
groups:
  - name: test
    rules:
      - alert: PktFramesHigh
        expr: pkt_frames_total{queue="3"} > 1000
        labels:
          severity: warning
        annotations:
          summary: "{{ $labels.switch }} queue {{ $labels.queue }}: {{ $value }} frames"
"""

# The served figures: {series labels: value} per metric, and the histograms' buckets.
SW = ("switch", "sw1")
BOUNDS = ["1e-06", "2e-06", "4e-06", "8e-06", "+Inf"]   # `le` as served, kept as text


def figures(frames3):
    return {
        "frames": {(SW, ("queue", "3")): frames3, (SW, ("queue", "5")): float(2 ** 53)},
        "occupancy": {(SW, ("queue", "3")): 1536.25, (SW, ("queue", "5")): -0.5},
        "buckets": {(SW, ("queue", "3")): [3, 10, 40, 80, 100],
                    (SW, ("queue", "5")): [0, 0, 5, 5, 5]},
        "sum": {(SW, ("queue", "3")): 0.000345, (SW, ("queue", "5")): 1.5e-05},
    }


def _labels(pairs, extra=()):
    return "{%s}" % ",".join('%s="%s"' % (k, v.replace("\\", "\\\\").replace('"', '\\"')
                                          .replace("\n", "\\n"))
                             for k, v in list(pairs) + list(extra))


def _num(v):
    return repr(int(v)) if float(v).is_integer() and abs(v) < 2 ** 63 else repr(v)


def exposition(f, openmetrics=False, eof=True, exemplar=True):
    """The figures as text format 0.0.4, or as OpenMetrics 1.0.0 (counter family without
    `_total`, a UNIT, an exemplar on a bucket unless exemplar=False, `# EOF` unless
    eof=False)."""
    out = []
    family = "pkt_frames" if openmetrics else "pkt_frames_total"
    out += ["# HELP %s Frames seen by the queue." % family, "# TYPE %s counter" % family]
    out += ["pkt_frames_total%s %s" % (_labels(k), _num(v)) for k, v in f["frames"].items()]
    out += ["# HELP pkt_occupancy_bytes Bytes in the queue.", "# TYPE pkt_occupancy_bytes gauge"]
    out += ["pkt_occupancy_bytes%s %s" % (_labels(k), _num(v)) for k, v in f["occupancy"].items()]
    out += ["# HELP pkt_build_info The build.", "# TYPE pkt_build_info gauge",
            "pkt_build_info%s 1" % _labels([("version", ODD_LABEL)])]
    out += ["# HELP pkt_delay_seconds Queueing delay.", "# TYPE pkt_delay_seconds histogram"]
    if openmetrics:
        out += ["# UNIT pkt_delay_seconds seconds"]
    for k, counts in f["buckets"].items():
        for le, c in zip(BOUNDS, counts):
            line = "pkt_delay_seconds_bucket%s %d" % (_labels(k, [("le", le)]), c)
            if openmetrics and exemplar and le == "2e-06":
                line += ' # {trace_id="4bf92f"} 1.5e-06 1700000000.5'
            out.append(line)
        out.append("pkt_delay_seconds_sum%s %r" % (_labels(k), f["sum"][k]))
        out.append("pkt_delay_seconds_count%s %d" % (_labels(k), counts[-1]))
    if openmetrics and eof:
        out.append("# EOF")
    return ("\n".join(out) + "\n").encode()


def expected_series(f, job_instance):
    """{labels_key: value} of every pkt_ series the figures make, as a query returns them."""
    want = {}

    def add(name, k, v, extra=()):
        want[labels_key(dict(list(k) + list(extra) + [("__name__", name)] + job_instance))] = v
    for k, v in f["frames"].items():
        add("pkt_frames_total", k, v)
    for k, v in f["occupancy"].items():
        add("pkt_occupancy_bytes", k, v)
    add("pkt_build_info", (), 1.0, [("version", ODD_LABEL)])
    for k, counts in f["buckets"].items():
        for le, c in zip(BOUNDS, counts):
            add("pkt_delay_seconds_bucket", k, float(c), [("le", le)])
        add("pkt_delay_seconds_sum", k, f["sum"][k])
        add("pkt_delay_seconds_count", k, float(counts[-1]))
    return want


class Target:
    """The exposition server: serves whatever serve() set last, records every request."""

    def __init__(self):
        self.lock = threading.Lock()
        self.content_type, self.body = TEXT, b""
        self.requests = []   # (time, Accept header)
        target = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                with target.lock:
                    target.requests.append((time.time(), self.headers.get("Accept")))
                    content_type, body = target.content_type, target.body
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.address = "127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def serve(self, content_type, body):
        """Serve this from now on; returns the time of the change."""
        with self.lock:
            self.content_type, self.body = content_type, body
            return time.time()

    def first_request_after(self, t):
        with self.lock:
            return next((r for r in self.requests if r[0] > t), None)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class Overtime(BaseException):
    """The alarm: not an Exception, so that no wait_for() or `except TimeoutError` swallows it."""


def alarm(signum, frame):
    raise Overtime("test_prometheus: over 90 s")


def main():
    for binary in (prometheus.BINARY, prometheus.PROMTOOL, victoria.BINARY):
        if not os.access(binary, os.X_OK):
            print("1..0 # SKIP %s is not installed (make deps)" % binary)
            return 0
    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(90)
    tap = Tap()
    scratch = tempfile.mkdtemp(prefix="test_prometheus.")
    target = Target()
    vm = victoria.VictoriaMetrics(os.path.join(scratch, "vm"))
    prom = None
    try:
        vm.start()
        prom = prometheus.Prometheus(os.path.join(scratch, "prom"), [target.address],
                                     job="pktstats", scrape_interval=INTERVAL,
                                     remote_write_url=vm.remote_write_url,
                                     rule_files=[os.path.join(scratch, "rules.yml")])
        run(tap, target, prom, vm, scratch)
    except (Exception, Overtime) as e:  # a failure of the harness: a failed point, with logs
        tap.point(False, "no exception", "%s: %s\n--- prometheus\n%s\n--- victoria-metrics\n%s"
                  % (type(e).__name__, e, prom.log()[-1500:] if prom else "",
                     vm.log()[-1500:]))
    finally:
        if prom:
            prom.stop()
        vm.stop()
        target.close()
        signal.alarm(0)
        shutil.rmtree(scratch, ignore_errors=True)
    tap.point(not os.path.exists(scratch), "scratch directory removed", scratch)
    return tap.done()


def series_diff(got, want):
    lines = []
    for k in sorted(set(got) | set(want)):
        if k not in got or k not in want or not same_float(got[k], want[k], 0):
            lines.append("%r: got %r want %r" % (dict(k), got.get(k), want.get(k)))
    return "\n".join(lines) or "same"


def run(tap, target, prom, vm, scratch):
    f = figures(1027.0)
    target.serve(TEXT, exposition(f))
    with open(prom.rule_files[0], "w") as rules:
        rules.write(RULES)
    t_start = time.time()
    prom.start()
    tap.point(prom.running() and prometheus.port_open(prom.port) and
              prom.http_url == "http://127.0.0.1:%d" % prom.port and
              prom.data_dir.startswith(scratch + os.sep) and os.path.isfile(prom.config_path),
              "start(): /-/ready answers on a loopback port, config and data in work_dir",
              "%r %r" % (prom.http_url, prom.data_dir))
    ready = time.time() - t_start
    targets = prom.wait_scrapes(1)
    first = target.requests[0][0]
    tap.comment("ready %.2f s after start, first scrape %.2f s after start" %
                (ready, first - t_start))
    t = targets[0] if len(targets) == 1 else {}
    tap.point(t.get("health") == "up" and t.get("lastError") == "" and
              t.get("scrapeUrl") == "http://%s/metrics" % target.address and
              t.get("labels") == {"job": "pktstats", "instance": target.address},
              "the target is up: health up, no lastError, its scrapeUrl and labels", targets)
    accepts = set(a for _, a in target.requests)
    tap.point(accepts == {prometheus.SCRAPE_ACCEPT},
              "every scrape's Accept header is exactly prometheus.SCRAPE_ACCEPT", accepts)
    tap.point(all(a.startswith("application/openmetrics-text;version=1.0.0,") for a in accepts),
              "the Accept header asks for OpenMetrics 1.0.0 first", accepts)

    job_instance = [("job", "pktstats"), ("instance", target.address)]
    everything = '{__name__=~"pkt_.*"}'
    want = expected_series(f, job_instance)
    got = prom.vector(everything)
    tap.point(got == want, "Prometheus: exactly the served series, labels and values "
              "(2^53, -0.5, every bucket, sum and count, the quoted label)",
              series_diff(got, want))
    # VictoriaMetrics only has what remote write brought: wait for the whole set
    try:
        got = wait_for(lambda: vm.vector(everything) == want and vm.vector(everything), 10,
                       "remote-written series")
    except TimeoutError:
        got = vm.vector(everything)
    tap.point(got == want, "VictoriaMetrics (by remote write): exactly the same series, "
              "labels and values", series_diff(got, want))

    # the rule file written by run(): the alert fires, its annotation templated
    try:
        alerts = wait_for(lambda: [a for a in prom.alerts() if a["state"] == "firing"], 5,
                          "the alert firing")
    except TimeoutError:
        alerts = prom.alerts()
    want_alert = [{"labels": {"alertname": "PktFramesHigh", "severity": "warning",
                              "switch": "sw1", "queue": "3", "job": "pktstats",
                              "instance": target.address},
                   "annotations": {"summary": "sw1 queue 3: 1027 frames"}, "state": "firing"}]
    tap.point([{k: a[k] for k in ("labels", "annotations", "state")} for a in alerts]
              == want_alert and
              all(r["health"] == "ok" for g in prom.rules() for r in g["rules"]),
              "rule_files: the alert fires in the server, labels and annotation as templated",
              "%r\n%r" % (alerts, prom.rules()))

    for q in (0.02, 0.5, 0.99):
        want_q = {labels_key(dict(list(k) + job_instance)):
                  histogram_quantile(q, BOUNDS[:-1], counts)
                  for k, counts in f["buckets"].items()}
        expr = "histogram_quantile(%g, pkt_delay_seconds_bucket)" % q
        for name, server in (("Prometheus", prom), ("VictoriaMetrics", vm)):
            got = server.vector(expr)
            tap.point(set(got) == set(want_q) and
                      all(same_float(got[k], want_q[k], 0) for k in want_q),
                      "%s: %s per queue = the hand-worked interpolation" % (name, expr),
                      "got  %r\nwant %r" % (got, want_q))

    # victoria.py's query(): what was ingested a moment ago, stamped now to the millisecond,
    # is in the answer at once (force flush; nocache=1: no latency offset; time to the ms)
    now_ms = int(time.time() * 1000)
    status, body = vm.put([{"metric": "pkt.put", "timestamp": now_ms, "value": 42,
                            "tags": {"switch": "sw1"}}])
    got = vm.vector('{__name__="pkt.put"}')
    tap.point(status == 204 and got == {labels_key({"__name__": "pkt.put", "switch": "sw1"}): 42.0},
              "VictoriaMetrics query(): a sample put a moment ago, stamped now, answered at once",
              "%s %r: %r" % (status, body, got))

    # the counter changed: how long until each API gives the new value
    frames = "pkt_frames_total{queue=\"3\"}"
    f = figures(1028.0)
    t_change = target.serve(TEXT, exposition(f))
    seen = {}

    def both_new():
        for name, server in (("Prometheus", prom), ("VictoriaMetrics", vm)):
            if name not in seen and server.value(frames) == 1028.0:
                seen[name] = time.time()
        return len(seen) == 2
    try:
        wait_for(both_new, 10, "the new counter value in both APIs", interval=0.005)
    except TimeoutError:
        pass
    served = target.first_request_after(t_change)
    for name in ("Prometheus", "VictoriaMetrics"):
        tap.point(name in seen and served is not None,
                  "%s: the changed counter's new value (1027 -> 1028)" % name, seen)
        if name in seen and served:
            tap.comment("%s answered %.3f s after the scrape that served the new value"
                        % (name, seen[name] - served[0]))

    f = figures(1500.0)
    target.serve(TEXT, exposition(f))
    prom.wait_scrapes(1)
    got = prom.value(frames)
    tap.point(got == 1500.0, "after wait_scrapes(1), Prometheus gives the value served before "
              "it at once (1500)", got)

    # from the first scrape to two scrapes of 1500, points between the scrapes
    prom.wait_scrapes(2)
    end = time.time()
    ranges = {}
    for name, server in (("Prometheus", prom), ("VictoriaMetrics", vm)):
        result = server.query_range(frames, first + 0.25, end, 0.5)
        ranges[name] = [(round(t, 3), v) for t, v in result[0]["values"]] \
            if len(result) == 1 else result
    values = [v for _, v in ranges["Prometheus"]]
    tap.point(ranges["Prometheus"] == ranges["VictoriaMetrics"] and
              values == sorted(values, key=float) and
              {"1027", "1028", "1500"} <= set(values),
              "query_range over the changes: the same points in both APIs, 1027, 1028, 1500",
              ranges)

    # OpenMetrics 1.0.0
    f = figures(5000.0)
    target.serve(OPENMETRICS, exposition(f, openmetrics=True))
    prom.wait_scrapes(1)
    want = expected_series(f, job_instance)
    t = prom.target()
    got = prom.vector(everything)
    tap.point(t["health"] == "up" and t["lastError"] == "" and got == want,
              "OpenMetrics 1.0.0 (UNIT, exemplar, # EOF): up, Prometheus gives exactly the "
              "served series", "%r\n%s" % (t, series_diff(got, want)))
    try:
        got = wait_for(lambda: vm.vector(everything) == want and vm.vector(everything), 10,
                       "remote-written OpenMetrics series")
    except TimeoutError:
        got = vm.vector(everything)
    tap.point(got == want, "OpenMetrics: VictoriaMetrics gives exactly the same",
              series_diff(got, want))

    # Broken: the target down, saying why, and `up` 0 in both APIs. What becomes of its
    # series depends on where the parser stopped: Prometheus writes stale markers only for
    # the series it had not parsed yet (scrape.go: a failed append does not end the scrape
    # cache's iteration), so after an error at the end they keep their last values for the
    # 5-minute lookback, and after an error in line 1 they are gone at once.
    up = 'up{job="pktstats"}'
    om_series = want
    for what, content_type, body, reason, left in (
            ("OpenMetrics without # EOF", OPENMETRICS,
             exposition(f, openmetrics=True, eof=False), "data does not end with # EOF",
             om_series),
            ("OpenMetrics served as text/plain", TEXT, exposition(f, openmetrics=True),
             'expected timestamp or new record, got "INVALID"', None),
            ("a label value without quotes in line 1", TEXT,
             b"pkt_broken{queue=3} 1\n" + exposition(f), 'expected label value, got "INVALID"',
             {})):
        target.serve(content_type, body)
        prom.wait_scrapes(1)
        t = prom.target()
        tap.point(t["health"] == "down" and reason in t["lastError"],
                  "%s: the target down, lastError says %r" % (what, reason), t)
        tap.comment("lastError: %s" % t["lastError"])
        if left is None:
            continue
        got = {}
        for name, server in (("Prometheus", prom), ("VictoriaMetrics", vm)):
            try:
                got[name] = wait_for(lambda: (server.value(up) == 0 and
                                              server.vector(everything) == left and
                                              (server.value(up), server.vector(everything))),
                                     5, "up 0")
            except TimeoutError:
                got[name] = (server.value(up), server.vector(everything))
        tap.point(all(g == (0.0, left) for g in got.values()),
                  "%s: up 0 in both APIs, the target's series %s" %
                  (what, "still there, not stale" if left else "gone (stale)"),
                  "\n".join("%s: up %r\n%s" % (n, g[0], series_diff(g[1], left))
                            for n, g in got.items()))

    target.serve(TEXT, exposition(f))
    prom.wait_scrapes(1)
    t = prom.target()
    tap.point(t["health"] == "up" and t["lastError"] == "" and prom.value(up) == 1.0,
              "served well again: up, no lastError", t)

    # reload(): a second target where nothing listens (an exporter not running)
    closed = "127.0.0.1:%d" % victoria._free_ports(1)[0]
    prom.scrape_targets.append(closed)
    t_reload = time.time()
    prom.reload()
    targets = prom.wait_scrapes(1)
    tap.comment("the new target scraped %.2f s after the reload" % (time.time() - t_reload))
    gone = [t for t in targets if t["labels"]["instance"] == closed]
    tap.point(len(targets) == 2 and len(gone) == 1 and gone[0]["health"] == "down" and
              "connection refused" in gone[0]["lastError"] and
              prom.vector(up) == {labels_key({"__name__": "up", "job": "pktstats",
                                              "instance": i}): v
                                  for i, v in ((target.address, 1.0), (closed, 0.0))},
              "reload() with a target where nothing listens: down, 'connection refused', up 0",
              targets)
    if gone:
        tap.comment("lastError: %s" % gone[0]["lastError"])

    # promtool check metrics: how it reports
    rc, out, err = prometheus.promtool("check", "metrics", input=exposition(f))
    tap.point((rc, out, err) == (0, "", ""),
              "promtool check metrics, clean exposition: exit 0, no output", (rc, out, err))
    bad = (b"# HELP pkt_drops Drops.\n# TYPE pkt_drops counter\npkt_drops 1\n"
           b"# TYPE pkt_wait_seconds_bucket gauge\npkt_wait_seconds_bucket 1\n"
           b"# HELP pkt_delay_milliseconds Delay.\n# TYPE pkt_delay_milliseconds gauge\n"
           b"pkt_delay_milliseconds 1\n")
    rc, out, err = prometheus.promtool("check", "metrics", input=bad)
    want_err = ('pkt_delay_milliseconds use base unit "seconds" instead of "milliseconds"\n'
                'pkt_drops counter metrics should have "_total" suffix\n'
                "pkt_wait_seconds_bucket no help text\n"
                'pkt_wait_seconds_bucket non-histogram metrics should not have "_bucket" '
                'suffix\n')
    tap.point((rc, out, err) == (3, "", want_err),
              "promtool check metrics, naming problems: exit 3, one line per problem on "
              "stderr, sorted by metric name", (rc, out, err))
    rc, out, err = prometheus.promtool("check", "metrics", input=b"pkt_x{a=1} 2\n")
    tap.point(rc == 1 and out == "" and err.startswith(
              "error while linting: text format parsing error in line 1:"),
              "promtool check metrics, no parse: exit 1, 'error while linting: text format "
              "parsing error in line N: ...'", (rc, out, err))
    # it reads the text format 0.0.4 only: OpenMetrics is linted as that
    rc, out, err = prometheus.promtool("check", "metrics",
                                       input=exposition(f, openmetrics=True, exemplar=False))
    tap.point((rc, out, err) == (3, "", "pkt_frames_total no help text\n"),
              "promtool check metrics on OpenMetrics: read as the text format, the counter "
              "family's samples (pkt_frames_total) 'no help text', exit 3", (rc, out, err))
    rc, out, err = prometheus.promtool("check", "metrics", input=exposition(f, openmetrics=True))
    tap.point(rc == 1 and out == "" and 'expected integer as timestamp, got "#"' in err,
              "promtool check metrics on OpenMetrics with an exemplar: no parse, exit 1",
              (rc, out, err))

    port = prom.port
    prom.stop()
    tap.point(not prom.running() and not prometheus.port_open(port),
              "stop(): the port closed")


if __name__ == "__main__":
    sys.exit(main())
