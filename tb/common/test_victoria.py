#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tb/common/victoria.py against the real VictoriaMetrics (/usr/bin/victoria-metrics, `make deps`):

  - start() in a scratch directory: /health and the OpenTSDB HTTP put port answer, on two
    different loopback ports, the log file names the OpenTSDB listener;
  - points with millisecond timestamps (odd milliseconds, so a trim to seconds shows), dotted
    metric names and five tags put with OpenTSDB's HTTP put protocol (POST /api/put, 204),
    a malformed body refused (400); after flush(), export() gives back exactly the series,
    tags, timestamps and values written out here (2^53 included), nothing of a metric whose
    name differs only where the other has a dot (`kildaXisl.rtt`) or that only starts the same
    (`kilda.isl.rtt.max`), and two samples of one series at one millisecond both;
  - stop(): a put is refused (ConnectionRefusedError); start() again: the same ports, URLs and
    data directory, every earlier sample still there, a new put stored beside them;
  - the scratch directory removed at the end. Bounded: 30 s alarm.

    tb/common/test_victoria.py
Prints TAP.
"""

import os
import shutil
import signal
import sys
import tempfile
import time
import urllib.error

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap_output import Tap  # noqa: E402
import victoria  # noqa: E402

RTT = "kilda.isl.rtt"


def alarm(signum, frame):
    raise TimeoutError("test_victoria: over 30 s")


def main():
    if not os.access(victoria.BINARY, os.X_OK):
        print("1..0 # SKIP victoria-metrics is not installed (make deps)")
        return 0
    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(30)
    tap = Tap()
    scratch = tempfile.mkdtemp(prefix="test_victoria.")
    vm = victoria.VictoriaMetrics(scratch)
    try:
        run(tap, vm)
    except Exception as e:  # a failure of the helper itself is a failed point, with the log
        tap.point(False, "no exception", "%s: %s\n%s" % (type(e).__name__, e, vm.log()[-2000:]))
    finally:
        vm.stop()
        signal.alarm(0)
        shutil.rmtree(scratch, ignore_errors=True)
    tap.point(not os.path.exists(scratch), "scratch directory removed", scratch)
    return tap.done()


def run(tap, vm):
    vm.start()
    http_port, put_port, put_url = vm.http_port, vm.put_port, vm.put_url
    tap.point(vm.running() and http_port != put_port and victoria.port_open(http_port) and
              victoria.port_open(put_port) and put_url == "http://127.0.0.1:%d" % put_port and
              vm.http_url == "http://127.0.0.1:%d" % http_port and
              vm.data_dir.startswith(vm.work_dir + os.sep) and os.path.isdir(vm.data_dir),
              "start(): /health and OpenTSDB put answer on two loopback ports, data in work_dir",
              "%r %r %r" % (vm.http_url, vm.put_url, vm.data_dir))
    tap.point('starting HTTP OpenTSDB server at "127.0.0.1:%d"' % put_port in vm.log(),
              "log() has the server's log (the OpenTSDB listener on put_port)", vm.log()[-2000:])

    # an hour ago, to the millisecond, with an odd millisecond part
    t0 = (int(time.time()) - 3600) * 1000 + 123
    a = {"src_switch": "00:00:00:00:00:00:00:01", "src_port": "5",
         "dst_switch": "00:00:00:00:00:00:00:02", "dst_port": "7", "origin": "pktstats"}
    b = dict(a, src_port="6", dst_port="8")
    points = [
        {"metric": RTT, "timestamp": t0, "value": 1234, "tags": a},
        {"metric": RTT, "timestamp": t0 + 1, "value": 2 ** 53, "tags": a},
        {"metric": RTT, "timestamp": t0 + 1001, "value": 0, "tags": a},
        {"metric": RTT, "timestamp": t0 + 7, "value": 99, "tags": b},
        {"metric": RTT, "timestamp": t0 + 7, "value": 100, "tags": b},   # same ms: both kept
        {"metric": "kildaXisl.rtt", "timestamp": t0, "value": 1, "tags": a},
        {"metric": RTT + ".max", "timestamp": t0, "value": 2, "tags": a},
    ]
    status, body = vm.put(points)
    tap.point(status == 204, "POST /api/put with 7 OpenTSDB points: 204", "%s %r" % (status, body))
    status, body = vm.put(b"garbage")
    tap.point(status == 400 and "cannot parse" in body, "a body that is no JSON: 400",
              "%s %r" % (status, body))
    vm.flush()

    want_a = [(t0, 1234), (t0 + 1, 2 ** 53), (t0 + 1001, 0)]
    want_b = [(t0 + 7, 99), (t0 + 7, 100)]
    want = sorted([(a, want_a), (b, want_b)], key=lambda s: sorted(s[0].items()))

    def same(got, want):
        # samples with equal timestamps in any order
        return ([(t, sorted(s)) for t, s in got] == [(t, sorted(s)) for t, s in want] and
                all(isinstance(v, int) for _, s in got for _, v in s))

    got = vm.export(RTT)
    tap.point(same(got, want),
              "export(%s): both series, every tag, ms timestamp and value exact (2^53 too)" % RTT,
              "got  %r\nwant %r" % (got, want))
    series_b = [samples for tags, samples in got if tags == b]
    tap.point(len(series_b) == 1 and sorted(series_b[0]) == [(t0 + 7, 99), (t0 + 7, 100)],
              "two samples of one series at one millisecond: both kept", got)
    tap.point(vm.export("kildaXisl.rtt") == [(a, [(t0, 1)])] and
              vm.export(RTT + ".max") == [(a, [(t0, 2)])] and vm.export("kilda.isl") == [],
              "dotted names matched exactly (kildaXisl.rtt, kilda.isl.rtt.max, kilda.isl apart)",
              "%r\n%r" % (vm.export("kildaXisl.rtt"), vm.export(RTT + ".max")))

    # stopped in the middle of a run
    vm.stop()
    refused = None
    try:
        vm.put([{"metric": RTT, "timestamp": t0 + 5000, "value": 5, "tags": a}], timeout=2)
    except urllib.error.URLError as e:
        refused = e.reason
    tap.point(not vm.running() and isinstance(refused, ConnectionRefusedError),
              "stop(): a put to put_url is refused", repr(refused))

    vm.start()
    tap.point((vm.http_port, vm.put_port, vm.put_url) == (http_port, put_port, put_url) and
              victoria.port_open(put_port) and os.path.isdir(vm.data_dir),
              "start() again: same ports, same put_url, same data directory",
              "%r %r" % ((vm.http_port, vm.put_port, vm.put_url), (http_port, put_port, put_url)))
    got = vm.export(RTT)
    tap.point(same(got, want), "after the restart every earlier sample is still there",
              "got  %r\nwant %r" % (got, want))
    status, body = vm.put([{"metric": RTT, "timestamp": t0 + 2002, "value": 77, "tags": a}])
    vm.flush()
    got = vm.export(RTT)
    want2 = [(s[0], s[1] + [(t0 + 2002, 77)]) if s[0] == a else s for s in want]
    tap.point(status == 204 and same(got, want2),
              "a put after the restart: 204, stored beside the earlier samples",
              "%s %r\ngot  %r\nwant %r" % (status, body, got, want2))
    vm.stop()
    tap.point(not vm.running() and not victoria.port_open(put_port) and
              not victoria.port_open(http_port),
              "stop() at the end: both ports closed")


if __name__ == "__main__":
    sys.exit(main())
