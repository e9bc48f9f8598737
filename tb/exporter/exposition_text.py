# SPDX-License-Identifier: BSD-3-Clause
"""pktstats-exporter's text exposition (format 0.0.4) as its tests read it, and the small process
and HTTP helpers they all need. Shared by tb/exporter/test_exporter_sim.py,
test_exporter_measurements.py, test_exporter_service.py and fleet.py (test_exporter_fleet.py,
scripts/demo_monitor.py). Python 3 standard library only.

    samples = parse(http_get(url + "/metrics")[1])   # {(name, frozenset(labels)): "value text"}
    value(samples, "pktstats_up", switch="s0")         # Decimal("1"); KeyError naming the sample
    values_of(samples, "pktstats_queue_occupancy_bytes", switch="s0")  # {labels: value text}
    counts, total, count = histogram(samples, "pktstats_queue_delay_seconds", DELAY_BOUNDS_NS,
                                     switch="s0", queue=3)   # per bucket, sum (Decimal), count
    counts[bucket_of(delay_ns, DELAY_BOUNDS_NS)]       # the bucket an observation falls in
    port = free_port(); wait_for(lambda: http_get(url + "/-/ready", 2)[0] == 200, 20)
    tap.point(False, "the run", log_tails(work, ("exporter.err",)))   # a run that broke
    kill_all(processes)                                 # every subprocess still running

The histograms' bounds, exactly as the exporter writes them (sw/tools/exporter/stat_ingest.c):
  DELAY_BOUNDS_NS   the delay histograms' (queueing delay, the Y.1731 delays and variations:
                    every *_seconds histogram) bounds in ns: one clock (8 ns), then 1-2-5 steps
                    from 20 ns to 10 ms;
  DELAY_LE          their `le` texts ("8e-09", "2e-08", ... "0.0001", ... "0.01"): what
                    Prometheus parses the bounds from, so a quantile worked out from them is
                    Prometheus's to the last bit (prom_api.histogram_quantile);
  OCCUPANCY_BOUNDS  the occupancy histograms' bounds in bytes: 0, 64, 128, ... 1048576 (`le` the
                    integer).
Then +Inf, which histogram() reads too. Values are kept as the text served and turned into
Decimal by value(): a count or a sum in seconds compares exactly with integer nanoseconds
(`total * 10**9 == sum(delays_ns)`); a test that wants floats converts where it uses them.

parse() is strict: a line that is neither a comment nor a sample, a label set that does not
parse, a label or a sample given twice is a ValueError. Label values are unescaped (\\\\, \\",
\\n). A sample with a timestamp is a ValueError too (the exporter writes none).

wait_for() polls a predicate until it returns something true and returns that (False after the
timeout); OSError, KeyError, ValueError and http.client.HTTPException from it count as "not
yet": a server not listening, a sample not served yet, an exposition cut short.
"""

import http.client
import os
import re
import socket
import time
import urllib.request
from decimal import Decimal

DELAY_BOUNDS_NS = (8, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000,
                   200000, 500000, 1000000, 2000000, 5000000, 10000000)
DELAY_LE = ("8e-09", "2e-08", "5e-08", "1e-07", "2e-07", "5e-07", "1e-06", "2e-06", "5e-06",
            "1e-05", "2e-05", "5e-05", "0.0001", "0.0002", "0.0005", "0.001", "0.002", "0.005",
            "0.01")
OCCUPANCY_BOUNDS = (0,) + tuple(64 << k for k in range(15))

_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)')


# --- the exposition

def _unescape(text):
    return re.sub(r'\\(.)', lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), text)


def _labels(text):
    labels, at = {}, 0
    while at < len(text):
        m = _LABEL.match(text, at)
        if not m:
            raise ValueError("bad labels %r" % text)
        if m.group(1) in labels:
            raise ValueError("label %s twice in %r" % (m.group(1), text))
        labels[m.group(1)] = _unescape(m.group(2))
        at = m.end()
    return labels


def parse(text):
    """{(name, frozenset of (label, value) pairs): value text} of a text 0.0.4 exposition;
    ValueError when a line is not a comment or a sample, or a sample comes twice."""
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if not m:
            raise ValueError("not a sample line: %r" % line)
        key = (m.group(1), frozenset(_labels(m.group(2) or "").items()))
        if key in samples:
            raise ValueError("sample twice: %r" % line)
        samples[key] = m.group(3)
    return samples


def _key(name, labels):
    return (name, frozenset((k, str(v)) for k, v in labels.items()))


def value(samples, name, **labels):
    """The value of the sample `name` with exactly these labels (values given as anything
    str() makes the label's text of: queue=3) as a Decimal; KeyError naming the sample when the
    exposition has none."""
    key = _key(name, labels)
    if key not in samples:
        raise KeyError("%s%s not in the exposition" % (name, labels))
    return Decimal(samples[key])


def values_of(samples, name, **labels):
    """{frozenset(labels): value as held in samples} of the samples of `name` that have (at
    least) the given labels."""
    want = set(_key(name, labels)[1])
    return {ls: v for (n, ls), v in samples.items() if n == name and want <= ls}


def le_text(bound, name):
    """The `le` text the exporter writes for a bound of histogram `name`: a *_seconds
    histogram's bound given in ns as DELAY_LE has it, another's the integer."""
    if name.endswith("_seconds"):
        return DELAY_LE[DELAY_BOUNDS_NS.index(bound)]
    return str(bound)


def bucket_of(value, bounds):
    """The index of the first bucket whose bound `value` does not exceed (len(bounds): +Inf)."""
    for i, b in enumerate(bounds):
        if value <= b:
            return i
    return len(bounds)


def histogram(samples, name, bounds, **labels):
    """(per-bucket counts, the last +Inf's, as ints; the sum as a Decimal; the count as an int)
    of the histogram `name` with these labels, from its cumulative buckets at `bounds`
    (DELAY_BOUNDS_NS or OCCUPANCY_BOUNDS). KeyError naming a missing sample."""
    cumulative = [int(value(samples, name + "_bucket", le=le_text(b, name), **labels))
                  for b in bounds]
    cumulative.append(int(value(samples, name + "_bucket", le="+Inf", **labels)))
    counts = [cumulative[0]] + [cumulative[i] - cumulative[i - 1]
                                for i in range(1, len(cumulative))]
    return (counts, value(samples, name + "_sum", **labels),
            int(value(samples, name + "_count", **labels)))


# --- processes and HTTP

def free_port():
    """A TCP port free on 127.0.0.1 at the time of the call."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url, timeout=10):
    """(status, body as text) of a GET; urllib.error.HTTPError for a status of 400 or more,
    OSError when nothing answers."""
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode()


def wait_for(predicate, timeout=20, step=0.05):
    """Calls predicate() every `step` s until it returns something true, and returns that; False
    when nothing true came within `timeout` s (it is called at least once). OSError, KeyError,
    ValueError and http.client.HTTPException from it mean "not yet"."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            result = predicate()
            if result:
                return result
        except (OSError, KeyError, ValueError, http.client.HTTPException):
            pass
        if time.monotonic() > deadline:
            return False
        time.sleep(step)


def log_tails(work, names, chars=1500):
    """"--- NAME" and the last `chars` characters of each file WORK/NAME that exists (the logs of
    a run that broke, for its failed point)."""
    logs = ""
    for name in names:
        path = os.path.join(work, name)
        if os.path.exists(path):
            with open(path, errors="replace") as f:
                logs += "--- %s\n%s" % (name, f.read()[-chars:])
    return logs


def kill_all(processes):
    """SIGKILL and reap every subprocess.Popen of the list that is still running."""
    for p in processes:
        if p.poll() is None:
            p.kill()
            p.wait()
