# SPDX-License-Identifier: BSD-3-Clause
"""The Prometheus HTTP query API (/api/v1/query, /api/v1/query_range) as the tests use it, shared
by tb/common/prometheus.py and tb/common/victoria.py: both servers answer the same API, so a test
can ask both the same question and compare. Python 3 standard library only.

    result = server.query('rate(x_total[1m])')          # data.result of an instant query
    values = server.vector('x_total')                   # {(("label", "value"), ...): float}
    server.query_range('x_total', start, end, step)     # data.result of a range query
    wait_for(lambda: server.vector('x_total'), 10, "x_total scraped")
    histogram_quantile(0.99, ["1e-06", "2e-06"], [3, 10, 12])   # Prometheus's, worked out here

A class mixing in QueryAPI has `http_url` (http://127.0.0.1:PORT) and may override
_query_params() to add parameters of its own to every query.
"""

import json
import math
import time
import urllib.error
import urllib.parse
import urllib.request


class PromQLError(RuntimeError):
    """A query the server answered with status "error" (or with no JSON): its errorType and
    error text as the server gave them."""

    def __init__(self, query, http_status, error_type, error):
        super().__init__("%s: HTTP %s, %s: %s" % (query, http_status, error_type, error))
        self.query = query
        self.http_status = http_status
        self.error_type = error_type
        self.error = error


def _timestamp(t):
    """A query time as both APIs take it: Unix seconds to the millisecond; None: the server's
    now (left out)."""
    return None if t is None else "%.3f" % t


def labels_key(metric):
    """A result's label set as a hashable, sorted tuple of (name, value) pairs."""
    return tuple(sorted(metric.items()))


def sample_value(text):
    """A sample value as the API writes it (a string: "1", "0.5", "NaN", "+Inf") as a float."""
    return float(text)


def wait_for(predicate, timeout, what="condition", interval=0.05):
    """Call predicate() every `interval` s until it returns something true; return that.
    TimeoutError after `timeout` s, naming `what` and the last value or exception seen."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = predicate()
            if last:
                return last
        except Exception as e:  # a server not answering yet is a reason to wait, not to stop
            last = "%s: %s" % (type(e).__name__, e)
        if time.monotonic() >= deadline:
            raise TimeoutError("%s: not within %g s (last: %.500s)" % (what, timeout, last))
        time.sleep(interval)


class QueryAPI:
    http_url = None

    def _query_params(self):
        return []

    def api_get(self, path, params=(), timeout=10):
        """GET http_url + path with params; the response's parsed JSON `data`.
        Raises PromQLError with the server's errorType and error on status "error"."""
        query = urllib.parse.urlencode([(k, v) for k, v in params if v is not None])
        url = self.http_url + path + ("?" + query if query else "")
        what = dict(params).get("query", path)
        try:
            with urllib.request.urlopen(url, timeout=timeout) as r:
                status, body = r.status, r.read()
        except urllib.error.HTTPError as e:   # 400 bad_data, 422 execution, 503 timeout, ...
            status, body = e.code, e.read()
        try:
            answer = json.loads(body)
        except ValueError:
            raise PromQLError(what, status, "no JSON", body[:500].decode("utf-8", "replace"))
        if answer.get("status") != "success":
            raise PromQLError(what, status, answer.get("errorType"), answer.get("error"))
        return answer["data"]

    def query(self, promql, time=None, timeout=10):
        """Instant query (GET /api/v1/query) at `time` (Unix seconds; None: the server's now):
        data.result: a list of {"metric": {...}, "value": [t, "v"]} for a vector, [t, "v"] for
        a scalar."""
        data = self.api_get("/api/v1/query",
                            [("query", promql), ("time", _timestamp(time))] +
                            self._query_params(), timeout)
        return data["result"]

    def query_range(self, promql, start, end, step, timeout=10):
        """Range query (GET /api/v1/query_range), start and end in Unix seconds, step in
        seconds or a duration string ("1s"): data.result, a list of
        {"metric": {...}, "values": [[t, "v"], ...]}."""
        data = self.api_get("/api/v1/query_range",
                            [("query", promql), ("start", _timestamp(start)),
                             ("end", _timestamp(end)), ("step", str(step))] +
                            self._query_params(), timeout)
        return data["result"]

    def vector(self, promql, time=None, timeout=10):
        """An instant vector query's result as {labels_key(metric): float value}."""
        result = self.query(promql, time, timeout)
        if isinstance(result, list) and len(result) == 2 and not isinstance(result[0], dict):
            raise PromQLError(promql, 200, "not a vector", "a scalar: %r" % (result,))
        return {labels_key(s["metric"]): sample_value(s["value"][1]) for s in result}

    def value(self, promql, time=None, timeout=10):
        """The one value of an instant query that must give exactly one sample (or a scalar);
        None when it gives no sample (not yet scraped); PromQLError when more than one."""
        result = self.query(promql, time, timeout)
        if result and not isinstance(result[0], dict):       # a scalar: [t, "v"]
            return sample_value(result[1])
        if len(result) > 1:
            raise PromQLError(promql, 200, "not one sample", "%d samples: %.500r"
                              % (len(result), result))
        return sample_value(result[0]["value"][1]) if result else None


def same_float(a, b, rel=1e-12):
    """Equal floats, NaN equal to NaN; `rel` for values computed differently (quantiles)."""
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


def histogram_quantile(q, bounds, cumulative):
    """histogram_quantile(q, ...) as Prometheus 2.42 computes it (promql/quantile.go,
    bucketQuantile) on one histogram, the reference both servers' answers are checked against
    (tb/common/test_prometheus.py, tb/exporter/test_exporter_fleet.py): bounds the `le` texts (or
    numbers) of the finite buckets, cumulative the counts of every bucket, the last +Inf. The
    same float operations in the same order, so the result is Prometheus's to the last bit: the
    rank q x total; the first bucket whose cumulative count reaches it; linear interpolation
    inside it from the bound below (0 in the first bucket); in the +Inf bucket, the highest
    finite bound; NaN without observations."""
    uppers = [float(b) for b in bounds] + [float("inf")]
    counts = [float(c) for c in cumulative]
    total = counts[-1]
    if total == 0:
        return float("nan")
    rank = q * total
    b = next((i for i in range(len(counts) - 1) if counts[i] >= rank), len(counts) - 1)
    if b == len(counts) - 1:
        return uppers[-2]
    start, end, count = 0.0, uppers[b], counts[b]
    if b > 0:
        start = uppers[b - 1]
        count -= counts[b - 1]
        rank -= counts[b - 1]
    return start + (end - start) * (rank / count)
