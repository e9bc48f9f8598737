# SPDX-License-Identifier: BSD-3-Clause
"""A real VictoriaMetrics time-series database on the loopback, for the tests.

Tests of the telemetry export (OpenKilda-style metrics such as `kilda.isl.rtt`, sent with
OpenTSDB's HTTP put protocol) need a real receiver, not a stand-in that accepts whatever the
test's author believed the protocol to be. VictoriaMetrics (Debian package `victoria-metrics`,
/usr/bin/victoria-metrics, installed by `make deps` through scripts/deps.sh) speaks OpenTSDB's
HTTP put and gives every raw sample back through /api/v1/export, so a test can compare what it
sent with what a database stored, value for value and millisecond for millisecond.

    with VictoriaMetrics(work_dir) as vm:
        vm.put([{"metric": "kilda.isl.rtt", "timestamp": ms, "value": 12, "tags": {...}}])
        # ... or any client configured with vm.put_url (OpenTSDB put path: /api/put)
        vm.flush()
        for tags, samples in vm.export("kilda.isl.rtt"): ...   # samples: [(ms, value), ...]
        vm.stop(); vm.start()      # same ports, same data directory: clients reconnect
        # Prometheus remote write to vm.remote_write_url (http port, /api/v1/write), then the
        # Prometheus query API (prom_api.QueryAPI), force-flushed, newest samples included:
        vm.query(promql), vm.vector(promql), vm.value(promql), vm.query_range(promql, a, b, step)

The server runs with:
  -storageDataPath=WORK_DIR/victoria-metrics-data    scratch storage inside work_dir
  -httpListenAddr=127.0.0.1:P                        /health, /api/v1/export, force_flush
  -opentsdbHTTPListenAddr=127.0.0.1:Q                OpenTSDB HTTP put (POST /api/put)
  -opentsdbhttpTrimTimestamp=1ms                     keep milliseconds (the default, spelt out)
  -dedup.minScrapeInterval=0                         no deduplication (the default, spelt out)
  -retentionPeriod=100y                              old test timestamps are not rejected
  -selfScrapeInterval=0                              no own metrics in the database
  -search.disableCache                               no response cache between a put and a read
  -search.latencyOffset=1s                           the least it takes (see below; default 30s)
  -search.maxStepForPointsAdjustment=0               range queries' last points as stored
  -loggerOutput=stderr, stderr (and stdout) to WORK_DIR/victoria-metrics.log (log())
P and Q are free loopback ports picked at the first start() and kept for every later start().
Every instance still running is stopped at interpreter exit.

Facts measured on the Debian build 1.79.5+ds1-2+b5 (`victoria-metrics -version` prints
nothing there; the flags above are all in its -help):
  - POST /api/put answers 204 No Content for a JSON array of points or a single point object,
    with or without "tags". A body that is not JSON ("garbage") answers 400 with the parse
    error as the body ("cannot parse HTTP OpenTSDB json: ..."). JSON that is no valid point is
    dropped silently with 204: `[]`, `{}`, `[{"metric":1}]`, a bad value ("value": "x"), a
    timestamp more than 2 days ahead; at most a line in the log ("cannot unmarshal OpenTSDB
    object", "too big timestamp"). So a 204 does not prove a point was stored: export it.
  - Timestamps: 13 digits are milliseconds and stored to the millisecond; 10 digits (below
    1e10) are seconds and stored times 1000 (a timestamp of 1000 is stored as 1000000 ms);
    19-digit nanoseconds are taken as milliseconds far in the future and dropped.
  - Two samples of one series with the same millisecond are BOTH kept, even with the same
    value (3, 3, 4 at one ms come back as three samples): no deduplication unless
    -dedup.minScrapeInterval is set; still so after a restart. Export returns samples in
    timestamp order; the order among equal timestamps is not to be relied on.
  - Values are float64: integers up to 2^53 in magnitude come back exactly (2^53 - 1, 2^53,
    -2^53, 123456789012345 checked); 2^53 + 1 comes back as 2^53. Integral values are
    exported as JSON integers, others like 0.1 or -1.5 exactly as sent.
  - Data is not searchable at once (an export right after a 204 put gave nothing):
    GET /internal/force_flush (200, empty body) makes it so.
  - /api/v1/export with no end= can miss a sample stamped in the current second (seen: a point
    stamped "now" missing, then there 20 s later); export() therefore always passes start=0
    and an end 3 days ahead.
  - Metric names with dots match exactly with match[]={__name__="kilda.isl.rtt"} (the dot is
    no regular expression there: `kildaXisl.rtt` is not matched); export() uses that form.
  - Prometheus remote write (protobuf, snappy) is taken at http_url/api/v1/write: every
    series, label (quotes, backslashes, newlines) and value as Prometheus holds them, the
    staleness markers too (tb/common/test_prometheus.py).
  - -search.latencyOffset (default 30s) hides the newest samples from queries: an instant
    query near now is evaluated at now - offset (and its result stamped back to now), so a new
    series was absent and a changed value 30.0 s late; a range query's points of the last 30 s
    are replaced by the point before them (-search.maxStepForPointsAdjustment, default 1m, is
    the largest step this applies to): a range over the last 15 s was empty. Below 1 s the
    offset counts as 1 s (getLatencyOffsetMilliseconds), so the flags above cannot make it
    vanish: an instant query with nocache=1 is not shifted at all, and
    -search.maxStepForPointsAdjustment=0 turns the range queries' adjustment off.
  - An instant query without time= is evaluated at now rounded DOWN to the second: a sample of
    the current second is not seen. query() passes this machine's time to the millisecond.
  - Samples received by remote write became searchable by themselves 0.05-1.06 s after the
    scrape (the server's own flush, about every second); with /internal/force_flush before the
    query, 35-105 ms after the scrape (Prometheus's 100 ms remote-write batches). query() and
    query_range() force-flush first.
  - SIGTERM stops it in well under 1 s on a small database (it saves its caches and closes
    the storage); the data survives the restart, force-flushed or not, and the same ports
    can be bound again at once (about 0.05 s to /health answering). While it is stopped a
    put fails with ConnectionRefusedError.
"""

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request

from prom_api import QueryAPI
from server_process import ServerProcess, _free_ports, port_open  # noqa: F401 (tests)

BINARY = "/usr/bin/victoria-metrics"


class VictoriaMetrics(ServerProcess, QueryAPI):
    NAME = "victoria-metrics"
    PORTS = 2   # http, OpenTSDB put

    def __init__(self, work_dir, binary=BINARY):
        super().__init__(work_dir, binary, "victoria-metrics.log")
        self.data_dir = os.path.join(self.work_dir, "victoria-metrics-data")
        self.http_port = None
        self.put_port = None
        self.http_url = None
        self.put_url = None
        self.remote_write_url = None

    # --- running it (server_process.ServerProcess: start, stop, running, log)

    def _prepare(self):
        os.makedirs(self.data_dir, exist_ok=True)

    def _use_ports(self):
        self.http_port, self.put_port = self.ports
        self.http_url = "http://127.0.0.1:%d" % self.http_port
        self.put_url = "http://127.0.0.1:%d" % self.put_port
        self.remote_write_url = self.http_url + "/api/v1/write"

    def _command(self):
        return [self.binary,
                "-storageDataPath=" + self.data_dir,
                "-httpListenAddr=127.0.0.1:%d" % self.http_port,
                "-opentsdbHTTPListenAddr=127.0.0.1:%d" % self.put_port,
                "-opentsdbhttpTrimTimestamp=1ms",
                "-dedup.minScrapeInterval=0",
                "-retentionPeriod=100y",
                "-selfScrapeInterval=0",
                "-search.disableCache",
                "-search.latencyOffset=1s",
                "-search.maxStepForPointsAdjustment=0",
                "-loggerOutput=stderr"]

    def _ready(self):
        return self._answers("/health") and port_open(self.put_port)

    def start(self, timeout=20):
        """Start the server (the ports of the first start are kept); wait until both answer."""
        return super().start(timeout)

    # --- talking to it

    def put(self, points, timeout=5):
        """POST points (a list of OpenTSDB point dicts) to put_url/api/put: (status, body).
        Raises urllib.error.URLError when nothing listens (reason ConnectionRefusedError)."""
        data = points if isinstance(points, bytes) else json.dumps(points).encode()
        req = urllib.request.Request(self.put_url + "/api/put", data=data, method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8", "replace")

    def flush(self, timeout=10):
        """Make everything ingested so far searchable (/internal/force_flush)."""
        with urllib.request.urlopen(self.http_url + "/internal/force_flush",
                                    timeout=timeout) as r:
            if r.status != 200:
                raise RuntimeError("force_flush: HTTP %d" % r.status)

    def export(self, metric, timeout=10):
        """Every raw sample of every series named exactly `metric`:
        [(tags without __name__, [(timestamp_ms, value), ...]), ...], sorted by tags."""
        name = metric.replace("\\", "\\\\").replace('"', '\\"')
        query = urllib.parse.urlencode([("match[]", '{__name__="%s"}' % name),
                                        ("start", "0"),
                                        ("end", str(int(time.time()) + 3 * 86400))])
        with urllib.request.urlopen(self.http_url + "/api/v1/export?" + query,
                                    timeout=timeout) as r:
            text = r.read().decode("utf-8")
        series = []
        for line in text.splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            tags = dict(row["metric"])
            if tags.pop("__name__", None) != metric:
                raise RuntimeError("export of %r returned %r" % (metric, row["metric"]))
            series.append((tags, list(zip(row["timestamps"], row["values"]))))
        series.sort(key=lambda s: sorted(s[0].items()))
        return series

    # --- the Prometheus query API (prom_api.QueryAPI: query, query_range, vector, value)

    def _query_params(self):
        # nocache=1: the only way to see samples of the last second (see the facts above)
        return [("nocache", "1")]

    def query(self, promql, time=None, timeout=10):
        """Instant query through /api/v1/query, after a force flush, with nocache=1 and, for
        time=None, this machine's now to the millisecond (VictoriaMetrics's own default is now
        rounded down to the second): everything ingested so far is seen."""
        self.flush(timeout)
        return super().query(promql, _now() if time is None else time, timeout)

    def query_range(self, promql, start, end, step, timeout=10):
        """Range query through /api/v1/query_range, after a force flush, with nocache=1 (no
        alignment of start and end to the step)."""
        self.flush(timeout)
        return super().query_range(promql, start, end, step, timeout)


def _now():
    return time.time()
