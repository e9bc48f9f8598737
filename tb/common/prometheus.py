# SPDX-License-Identifier: BSD-3-Clause
"""A real Prometheus server on the loopback, for the tests.

pktstats-exporter is scraped by Prometheus in the field, so its tests need the real scraper and
query engine: its content negotiation, its parsers and their error texts, its histogram_quantile,
not a stand-in written from what the exporter's author believed they were. Prometheus (Debian
package `prometheus`: /usr/bin/prometheus and /usr/bin/promtool, installed by `make deps`
through scripts/deps.sh) scrapes the targets given and, with remote_write_url, sends every
sample on to a VictoriaMetrics (tb/common/victoria.py: vm.remote_write_url), so that one test
can ask both query APIs (tb/common/prom_api.py) the same question.

    with Prometheus(work_dir, ["127.0.0.1:9733"], scrape_interval="500ms",
                    remote_write_url=vm.remote_write_url, rule_files=[rules]) as prom:
        prom.wait_scrapes(1)                  # a scrape that started after this, queryable
        prom.target()["health"], prom.target()["lastError"]
        prom.vector('pktstats_up')            # {(("__name__", ...), ...): 1.0}
        prom.value('histogram_quantile(0.99, pktstats_queue_delay_seconds_bucket)')
        prom.query(promql), prom.query_range(promql, start, end, step), prom.alerts()
        prom.scrape_targets.append(other); prom.reload()
    rc, out, err = promtool("check", "metrics", input=exposition)

The server runs with:
  --config.file=WORK_DIR/prometheus.yml        written from the arguments (config(): a dict,
                                               written as JSON, which is YAML and read as such)
  --storage.tsdb.path=WORK_DIR/prometheus-data scratch storage inside work_dir
  --web.listen-address=127.0.0.1:P             P a free loopback port, kept for later starts
  --web.enable-lifecycle                       POST /-/reload for reload()
  --storage.remote.flush-deadline=1s           SIGTERM does not wait 1 min for a gone receiver
  stdout and stderr to WORK_DIR/prometheus.log (log())
and in prometheus.yml: scrape_timeout = scrape_interval (spelt out: Prometheus caps its 10 s
default at a shorter interval), evaluation_interval = scrape_interval unless given, and for
remote write a 100 ms batch_send_deadline. Every instance still running is stopped at
interpreter exit.

Facts measured on Debian's 2.42.0+ds-5+deb12u1 (and VictoriaMetrics 1.79.5) by
tb/common/test_prometheus.py, with scrape_interval 500ms:
  - /-/ready answers 0.1-0.2 s after the start, but the first scrape comes 5.2-5.5 s after it:
    the scrape manager takes discovered targets on a 5-s tick (no flag for that in 2.42). A
    target added by reload() was scraped 0.5-1.3 s after the reload (the same tick: up to 5 s).
  - Every scrape sends exactly
      Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1
    (SCRAPE_ACCEPT), with User-Agent: Prometheus/2.42.0+ds, Accept-Encoding: gzip and
    X-Prometheus-Scrape-Timeout-Seconds. The served Content-Type picks the parser: with
    `application/openmetrics-text; version=1.0.0` an exposition with `# UNIT`, an exemplar and
    `# EOF` is up; the same bytes served as text/plain fail at the exemplar (`expected
    timestamp or new record, got "INVALID"`): an exporter must say which format it serves.
  - A scrape that does not parse makes the target down at once (health "down", `up` 0 from that
    scrape on, in Prometheus and, by remote write, VictoriaMetrics) with the parser's reason as
    lastError: `data does not end with # EOF` (OpenMetrics without it), `expected label value,
    got "INVALID"` (a label value without quotes, text format). Nothing listening:
    `Get "http://127.0.0.1:P/metrics": dial tcp 127.0.0.1:P: connect: connection refused`.
  - But the target's series are NOT always gone after such a scrape: Prometheus writes stale
    markers only for the series the parser had not reached (scrape.go: a failed append does
    not end the scrape cache's iteration). An error after the last sample (no `# EOF`) leaves
    every series queryable with its last value for the 5-min lookback, in both APIs; an error
    in line 1 makes them all stale at once. So a test checks `up`, not that series vanish.
  - /api/v1/targets sets lastScrape (the scrape's start) before the scrape's samples are
    committed (scrape.go: report() runs before Commit()); wait_scrapes() therefore also waits
    for the scrape's own `up` sample. After it, a query gives what was served, with no delay.
  - A new value served is in Prometheus's query answers 2-10 ms after the scrape's request
    reached the target; in VictoriaMetrics's (remote write, 100 ms batch deadline, its query()
    force-flushing) 35-105 ms after. With the default 5 s batch_send_deadline VictoriaMetrics
    had it 1.4-2.7 s after the scrape.
  - Both return every served value exactly: 2^53, -0.5, a label value with a quote, a backslash
    and a newline, `le` kept as the text served ("1e-06", "+Inf"). histogram_quantile in both
    equals, to the last bit, Prometheus's linear interpolation worked out by hand (a rank in
    the first bucket, in a middle one, in +Inf: the highest finite bound). A range query gives
    the same points in both (with victoria.py's flags).
  - SIGTERM stops it in about 0.02 s; with the remote-write receiver gone, 1 s with
    --storage.remote.flush-deadline=1s and 60 s with the default (1m).
  - Alerting rules in rule_files are evaluated every evaluation_interval; /api/v1/alerts gives
    the firing alert with its labels and its annotations' templates filled in.
  - promtool check metrics (standard input) lints the text format 0.0.4 only: a clean
    exposition: exit 0, no output at all; naming problems: exit 3, one line per problem on
    stderr, "NAME PROBLEM", sorted by name (`pkt_drops counter metrics should have "_total"
    suffix`, `... no help text`, `... non-histogram metrics should not have "_bucket" suffix`,
    `... use base unit "seconds" instead of "milliseconds"`); no parse: exit 1, `error while
    linting: text format parsing error in line N: ...`. OpenMetrics is read as the text format:
    a counter family `x` (samples `x_total`) gives `x_total no help text` (exit 3), an exemplar
    `expected integer as timestamp, got "#"` (exit 1). Lint an exporter's 0.0.4 output.
  - promtool check rules FILE: `Checking FILE` and `  SUCCESS: N rules found` on stdout,
    exit 0; a rule that does not parse: exit 1, `FILE: L:C: group "G", rule N, "A": could not
    parse expression: ...` on stderr. promtool test rules FILE: `Unit Testing:  FILE` and
    `  SUCCESS` on stdout, exit 0; else `  FAILED:` and an entry per failed check on stderr
    (`name: GROUP,` `alertname: A, time: T,` `exp:[...]` `got:[...]`), exit 1: per file, not
    per test group (tb/exporter/test_alert_rules.py runs each group alone). A rule_files entry
    that matches nothing is only a `WARNING: no file match pattern` on stderr, and the tests
    run without rules: those expecting no alert pass.
"""

import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from datetime import datetime

from prom_api import PromQLError, QueryAPI, wait_for  # noqa: F401 (re-exported for tests)
from server_process import ServerProcess, port_open  # noqa: F401 (port_open for the tests)

BINARY = "/usr/bin/prometheus"
PROMTOOL = "/usr/bin/promtool"

# The Accept header of every scrape of Prometheus 2.42 (measured, and scrape.go's
# scrapeAcceptHeader): OpenMetrics 1.0.0 first, then 0.0.1, then the text format 0.0.4.
SCRAPE_ACCEPT = ("application/openmetrics-text;version=1.0.0,"
                 "application/openmetrics-text;version=0.0.1;q=0.75,"
                 "text/plain;version=0.0.4;q=0.5,*/*;q=0.1")

def promtool(*args, input=None, timeout=60, binary=PROMTOOL):
    """Run promtool with args (and `input` on its standard input, str or bytes):
    (returncode, stdout, stderr) as text. subprocess.TimeoutExpired after `timeout` s."""
    data = input.encode() if isinstance(input, str) else input
    proc = subprocess.run([binary] + [str(a) for a in args], input=data,
                          stdin=None if data is not None else subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return (proc.returncode, proc.stdout.decode("utf-8", "replace"),
            proc.stderr.decode("utf-8", "replace"))


def parse_time(text):
    """A Go RFC 3339 time as /api/v1/targets gives it ("2024-05-01T10:00:00.123456789Z",
    "0001-01-01T00:00:00Z" for never) as Unix seconds; None for never."""
    if text.startswith("0001-01-01"):
        return None
    date, _, rest = text.partition("T")
    clock, zone = rest, "+00:00"
    if clock.endswith("Z"):
        clock = clock[:-1]
    else:
        clock, zone = clock[:-6], clock[-6:]
    whole, _, frac = clock.partition(".")
    t = datetime.fromisoformat("%sT%s%s" % (date, whole, zone)).timestamp()
    return t + (float("0." + frac) if frac else 0.0)


def _seconds(duration):
    """A Prometheus duration string of one unit ("1s", "250ms", "1m") in seconds."""
    for unit, factor in (("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)):
        if duration.endswith(unit) and duration[:-len(unit)].isdigit():
            return int(duration[:-len(unit)]) * factor
    raise ValueError("duration %r: use one unit (ms, s, m, h)" % duration)


class Prometheus(ServerProcess, QueryAPI):
    NAME = "prometheus"

    def __init__(self, work_dir, scrape_targets=(), job="pktstats", scrape_interval="1s",
                 metrics_path="/metrics", remote_write_url=None, rule_files=(),
                 evaluation_interval=None, extra_scrape_configs=(), binary=BINARY):
        super().__init__(work_dir, binary, "prometheus.log")
        self.scrape_targets = list(scrape_targets)
        self.job = job
        self.scrape_interval = scrape_interval
        self.metrics_path = metrics_path
        self.remote_write_url = remote_write_url
        self.rule_files = [os.path.abspath(f) for f in rule_files]
        self.evaluation_interval = evaluation_interval or scrape_interval
        self.extra_scrape_configs = list(extra_scrape_configs)
        self.config_path = os.path.join(self.work_dir, "prometheus.yml")
        self.data_dir = os.path.join(self.work_dir, "prometheus-data")
        self.port = None
        self.http_url = None

    # --- configuration

    def config(self):
        """The configuration as a dict (written as JSON, which YAML parsers take)."""
        interval = self.scrape_interval
        config = {
            "global": {"scrape_interval": interval, "scrape_timeout": interval,
                       "evaluation_interval": self.evaluation_interval},
            "scrape_configs": [],
        }
        if self.scrape_targets:
            config["scrape_configs"].append({
                "job_name": self.job, "metrics_path": self.metrics_path,
                "static_configs": [{"targets": self.scrape_targets}]})
        config["scrape_configs"] += self.extra_scrape_configs
        if self.rule_files:
            config["rule_files"] = self.rule_files
        if self.remote_write_url:
            config["remote_write"] = [{
                "url": self.remote_write_url,
                "remote_timeout": "5s",
                # default 5 s: VictoriaMetrics saw a change 1.4-2.7 s after its scrape
                "queue_config": {"batch_send_deadline": "100ms", "min_backoff": "30ms",
                                 "max_backoff": "1s"}}]
        return config

    def write_config(self):
        os.makedirs(self.work_dir, exist_ok=True)
        tmp = self.config_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.config(), f, indent=2)
            f.write("\n")
        os.replace(tmp, self.config_path)   # a reload never reads half a file

    # --- running it (server_process.ServerProcess: start, stop, running, log)

    def _prepare(self):
        os.makedirs(self.data_dir, exist_ok=True)
        self.write_config()

    def _use_ports(self):
        self.port, = self.ports
        self.http_url = "http://127.0.0.1:%d" % self.port

    def _port_taken(self):
        # else a bad configuration: another port would not help
        return "bind: address already in use" in self.log()[-2000:]

    def _command(self):
        return [self.binary,
                "--config.file=" + self.config_path,
                "--storage.tsdb.path=" + self.data_dir,
                "--web.listen-address=127.0.0.1:%d" % self.port,
                "--web.enable-lifecycle",
                "--storage.remote.flush-deadline=1s",
                "--log.level=info"]

    def _ready(self):
        return self._answers("/-/ready")

    def start(self, timeout=30):
        """Write the configuration, start the server (the port of the first start is kept),
        wait until /-/ready answers 200."""
        return super().start(timeout)

    def reload(self, timeout=20):
        """Write the configuration again (after changing the attributes), make the running
        server load it (POST /-/reload) and wait until the job's active targets are exactly
        scrape_targets (new targets take up to 5 s: see the facts). RuntimeError with the
        server's reason if it refuses the configuration."""
        self.write_config()
        req = urllib.request.Request(self.http_url + "/-/reload", data=b"", method="POST")
        try:
            with urllib.request.urlopen(req, timeout=timeout):
                pass
        except urllib.error.HTTPError as e:
            raise RuntimeError("reload refused: HTTP %d %s" % (e.code, e.read()[:1000]))
        want = sorted(self.scrape_targets)
        wait_for(lambda: sorted(t["labels"].get("instance") for t in self.targets()
                                if t["scrapePool"] == self.job) == want,
                 timeout, "the targets of the reloaded configuration")

    # --- asking it

    def targets(self):
        """The active targets (/api/v1/targets): a list of dicts with scrapeUrl, health ("up",
        "down", "unknown"), lastError ("" or why), lastScrape (Unix seconds, None before the
        first), lastScrapeDuration (s), labels (job, instance, ...), scrapePool."""
        data = self.api_get("/api/v1/targets", [("state", "active")])
        targets = []
        for t in data["activeTargets"]:
            t = dict(t)
            t["lastScrape"] = parse_time(t["lastScrape"])
            targets.append(t)
        return targets

    def target(self, scrape_url=None):
        """The one active target (or the one with this scrapeUrl); None if not there yet."""
        found = [t for t in self.targets() if scrape_url is None or t["scrapeUrl"] == scrape_url]
        if len(found) > 1:
            raise RuntimeError("%d targets, name one: %r" % (len(found), found))
        return found[0] if found else None

    def wait_scrapes(self, n=1, timeout=None):
        """Wait until every active target has been scraped n times that started after this
        call, and the last of those scrapes is queryable (its `up` sample is in the TSDB):
        after it, a query sees what the targets served then. Returns targets().
        Default timeout: n + 3 scrape intervals + 10 s."""
        interval = _seconds(self.scrape_interval)
        if timeout is None:
            timeout = (n + 3) * interval + 10
        t0 = time.time()
        seen = {}   # scrapeUrl: [last lastScrape seen, scrapes counted since t0]

        def scraped():
            targets = self.targets()
            if not targets:
                return None
            for t in targets:
                url, last = t["scrapeUrl"], t["lastScrape"]
                prev = seen.setdefault(url, [None, 0])
                if last is not None and last > t0 and last != prev[0]:
                    prev[1] += 1
                prev[0] = last
            return targets if all(seen[t["scrapeUrl"]][1] >= n for t in targets) else None

        # poll well within an interval, so that no scrape goes by uncounted
        targets = wait_for(scraped, timeout, "%d scrapes of every target" % n,
                           interval=min(0.05, interval / 10))

        # The scrape's time (lastScrape) is set before its samples are committed (scrape.go:
        # report() runs before Commit()), so wait for the scrape's own `up` sample, stamped
        # within a few ms of lastScrape and an interval after the one before.
        def committed():
            for t in targets:
                matcher = ",".join('%s="%s"' % (k, v.replace("\\", "\\\\").replace('"', '\\"'))
                                   for k, v in sorted(t["labels"].items()))
                stamp = self.value("timestamp(up{%s})" % matcher)
                if stamp is None or stamp < t["lastScrape"] - interval / 2:
                    return False
            return True
        wait_for(committed, timeout, "the last scrape's samples committed")
        return targets

    def alerts(self):
        """The alerts of the loaded rules (/api/v1/alerts): dicts with labels, annotations,
        state ("pending", "firing"), activeAt, value."""
        return self.api_get("/api/v1/alerts")["alerts"]

    def rules(self):
        """The rule groups as loaded (/api/v1/rules): health and lastError of every rule."""
        return self.api_get("/api/v1/rules")["groups"]
