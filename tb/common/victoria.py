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

The server runs with:
  -storageDataPath=WORK_DIR/victoria-metrics-data    scratch storage inside work_dir
  -httpListenAddr=127.0.0.1:P                        /health, /api/v1/export, force_flush
  -opentsdbHTTPListenAddr=127.0.0.1:Q                OpenTSDB HTTP put (POST /api/put)
  -opentsdbhttpTrimTimestamp=1ms                     keep milliseconds (the default, spelt out)
  -dedup.minScrapeInterval=0                         no deduplication (the default, spelt out)
  -retentionPeriod=100y                              old test timestamps are not rejected
  -selfScrapeInterval=0                              no own metrics in the database
  -search.disableCache                               no response cache between a put and a read
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
  - SIGTERM stops it in well under 1 s on a small database (it saves its caches and closes
    the storage); the data survives the restart, force-flushed or not, and the same ports
    can be bound again at once (about 0.05 s to /health answering). While it is stopped a
    put fails with ConnectionRefusedError.
"""

import atexit
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import weakref

BINARY = "/usr/bin/victoria-metrics"

_running = weakref.WeakSet()


def _stop_all():
    for vm in list(_running):
        vm.stop()


atexit.register(_stop_all)


def _free_ports(n):
    """n distinct free TCP ports on 127.0.0.1 (all held open while picking)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def port_open(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class VictoriaMetrics:
    def __init__(self, work_dir, binary=BINARY):
        self.work_dir = os.path.abspath(work_dir)
        self.binary = binary
        self.data_dir = os.path.join(self.work_dir, "victoria-metrics-data")
        self.log_path = os.path.join(self.work_dir, "victoria-metrics.log")
        self.http_port = None
        self.put_port = None
        self.http_url = None
        self.put_url = None
        self.proc = None
        self._log_file = None

    # --- running it

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
                "-loggerOutput=stderr"]

    def _health(self):
        try:
            with urllib.request.urlopen(self.http_url + "/health", timeout=1) as r:
                return r.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def _launch(self, timeout):
        self._log_file = open(self.log_path, "ab")
        self._log_file.write(("--- %s\n" % " ".join(self._command())).encode())
        self._log_file.flush()
        self.proc = subprocess.Popen(self._command(), stdin=subprocess.DEVNULL,
                                     stdout=self._log_file, stderr=subprocess.STDOUT,
                                     cwd=self.work_dir)
        _running.add(self)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            if self._health() and port_open(self.put_port):
                return True
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("victoria-metrics not ready within %g s on ports %d and %d\n%s"
                           % (timeout, self.http_port, self.put_port, self.log()[-3000:]))

    def start(self, timeout=20):
        """Start the server (the ports of the first start are kept); wait until both answer."""
        if self.running():
            return self
        os.makedirs(self.data_dir, exist_ok=True)
        fresh = self.http_port is None
        for _ in range(3 if fresh else 1):
            if fresh:
                self.http_port, self.put_port = _free_ports(2)
            self.http_url = "http://127.0.0.1:%d" % self.http_port
            self.put_url = "http://127.0.0.1:%d" % self.put_port
            if self._launch(timeout):
                return self
            self.stop()   # died at once: a port taken in the meantime? fresh ones once more
        raise RuntimeError("victoria-metrics exited at start on ports %d and %d\n%s"
                           % (self.http_port, self.put_port, self.log()[-3000:]))

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=15):
        """SIGTERM, wait up to timeout, then SIGKILL. Ports and data directory are kept."""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            self.proc = None
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        _running.discard(self)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def log(self):
        """The server's log so far (all starts), for failure messages."""
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

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
