#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""pktstats-exporter as a service: the daemon's contract as operators meet it (docs/monitoring.md,
pktstats-exporter(8)), on the simulated switch.

    tb/exporter/test_exporter_service.py build/bin/pktstats-sim build/asan/bin/pktstats \\
        build/asan/bin/pktstats-exporter [--seed S]

In a network namespace of its own (pktstats_sim.in_private_network()), with a scratch directory
removed at the end, every process it started stopped, and a global alarm:

  start     bad input at start: a config file line with an unknown keyword, a bad value, a bad
            key of a switch, a session naming a switch that does not exist, a line too long:
            exit 2 and one stderr line naming FILE:LINE and the word at fault; a config file
            that does not exist: exit 2 naming it; bad command-line words: exit 2 naming them;
            --check on a good configuration prints what it runs and exits 0 without starting
            anything (the test holds its listen address: a bind would fail); --help, --version
            exit 0; the listen address taken (held by the test): exit 1 and a line saying so.
  absent    the exporter started before its switch's simulator: pktstats_up 0, failures counted,
            one log line saying why (however often it retries), one for the missing stat
            interface (the simulator's TAP).
  device    the simulator started: pktstats_up 1 within seconds, same exporter process, log
            "device ... up", the stat interface captured (opens 1); killed (SIGKILL): up 0 at
            the next scrape, log lines for the device and the interface; started again: up 1,
            device and capture opens 2; the register counters restart from the new device's
            values (read from it around the scrape); the stat packets' counters never go back
            (every scrape of the run is checked), the sequence restart is counted.
  http      /-/ready 503 while the device is being opened (a "simulator" socket of the test's
            that takes the connection and never answers), 200 once its open failed; /metrics:
            text 0.0.4 by default, OpenMetrics 1.0.0 for Prometheus's Accept header,
            ending with "# EOF"; HEAD; /-/healthy 200; unknown path 404; POST 405 with Allow;
            `promtool check metrics` on the text format: no problem (skipped without promtool);
            Debian's prometheus_client OpenMetrics parser takes every family (skipped without
            it); the samples (name, labels, value) of both formats are the same.
  reload    SIGHUP with a bad line: one log line naming FILE:LINE and keeping the configuration,
            old switches served, last_reload_successful 0, reloads_total{result="failure"} 1;
            SIGHUP adding a switch and changing s0's microburst threshold: the new switch's
            series, s0's stat counters and capture kept, the new threshold, success; SIGHUP
            removing the switch: its series gone.
  packets   malformed stat packets written into the stat TAP from the host (AF_PACKET; libpcap
            on the TAP sees both directions), the switch's capture stopped: truncated, wrong
            version, wrong number of event types, first slot not a timestamp, cut timestamp,
            partial slot, no events, UDP length mismatch, a frame shorter than its IP length,
            garbage: each counted under its reason, exactly, nothing else counted; well-formed
            packets whose time jumps 2^63 ns: the delay histogram's sum and the microburst
            seconds never go back or below 0, the exposition still parses; then 200 000 seeded
            random frames to the stat port: every one captured or counted as dropped, captured =
            ignored + malformed + decoded, the exporter serving, both formats still alike and
            parsed, its resident memory after them within memory_bound() of what it was after
            the first 10 000.
  stop      SIGTERM: exit 0 within 2 s, the last log line says it stopped; the same with a
            device absent, being tried again (a simulator socket not there: the library's open
            can wait 3 s for one, which the exporter must not); SIGINT alike (device and capture
            running). No sanitizer report in the log.

The random frames (and the simulator's traffic) come from a seed, printed; --seed S replays
them. It prints, as comments, how long the device takes to come up, how long a scrape takes
against one simulated switch under load (pktstats_device_read_duration_seconds and the HTTP round
trip), how long each reload takes, the flood's rates and the exporter's memory. Without root,
/dev/net/tun or unshare the test is skipped.
"""

import argparse
import errno
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
import exposition_text  # noqa: E402
import pktstats_sim  # noqa: E402
from exposition_text import (free_port, kill_all, log_tails, parse, values_of,  # noqa: E402
                             wait_for)
from tap_output import Tap  # noqa: E402

ALARM_S = 170
TAP_NAME = "pxs0"          # the stat interface: the simulator's port 2 as a TAP
STAT_PORT = 27033
PROMTOOL = "/usr/bin/promtool"
# Prometheus 2.42's Accept header (scrape.go's scrapeAcceptHeader)
SCRAPE_ACCEPT = ("application/openmetrics-text;version=1.0.0,"
                 "application/openmetrics-text;version=0.0.1;q=0.75,"
                 "text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
FLOOD_FIRST, FLOOD_TOTAL = 10000, 200000


def memory_bound(scrapes):
    """What the exporter's VmRSS may grow by between the first 10 000 random frames and the
    200 000th, with `scrapes` scrapes made between the two readings. It allocates nothing per
    frame (stat_ingest.h: memory fixed at creation; libpcap's 64 MiB ring is mapped, and
    resident, from the open on: RssFile stays the same): what may still grow is the heap of
    those scrapes (each frees a 64-128 KiB exposition and a connection thread of
    libmicrohttpd's; ASan's quarantine keeps freed blocks resident, up to 256 MiB) and the
    allocator's caches. Measured: +0.1 to +0.3 MiB with 1 or 2 scrapes between. 2 MiB plus
    256 KiB a scrape; one leaked allocation of 16 bytes a frame (at least 32 under ASan: 5.8 MiB
    over 190 000 frames) exceeds it."""
    return (2 << 20) + scrapes * (256 << 10)

# Gauges whose value is new at every scrape: compared by presence only between two formats
PER_SCRAPE = ("pktstats_device_read_duration_seconds", "pktstats_time_offset_seconds")


class Failure(Exception):
    pass


# ------------------------------------------------------------------------------------------
# The exposition

def parse_text(text):
    """exposition_text.parse() with the values as floats: this test compares them with each
    other and with prometheus_client's, and prints them, as floats."""
    return {key: float(v) for key, v in parse(text).items()}


def value(samples, name, **labels):
    """exposition_text.value() as a float (of parse_text()'s samples)."""
    return float(exposition_text.value(samples, name, **labels))


# The prometheus_client OpenMetrics parser, run by a Python that has Debian's package
OM_PARSER = r'''
import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
out = []
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        out.append([family.name, family.type, s.name, sorted(s.labels.items()), float(s.value)])
print(json.dumps(out))
'''


def om_python():
    """An interpreter that has prometheus_client's OpenMetrics parser (this one, or Debian's
    /usr/bin/python3, where python3-prometheus-client installs it), or None."""
    for python in dict.fromkeys([sys.executable, "/usr/bin/python3"]):
        if os.path.exists(python) and subprocess.run(
                [python, "-c", "import prometheus_client.openmetrics.parser"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
            return python
    return None


# ------------------------------------------------------------------------------------------
# Processes, HTTP, the log

def hold_port():
    """A listening socket on a free loopback port: the address is taken."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    return s, s.getsockname()[1]


def http_request(port, path, method="GET", headers=None, timeout=15):
    """(status, {header: value} lowercased names, body bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, headers=headers or {})
        r = conn.getresponse()
        body = r.read()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, body
    finally:
        conn.close()


class Exporter:
    """A pktstats-exporter process, stderr (its log) to WORK/NAME.err."""

    def __init__(self, binary, work, name, args, registry):
        self.log_path = os.path.join(work, name + ".err")
        self.out = open(os.path.join(work, name + ".out"), "w")
        self.err = open(self.log_path, "w")
        self.process = subprocess.Popen([binary] + args, stdout=self.out, stderr=self.err)
        registry.append(self.process)
        self.history = []  # (seconds since the start, samples) of every scrape through it
        self.t0 = time.monotonic()

    def lines(self):
        with open(self.log_path, errors="replace") as f:
            return f.read().splitlines()

    def wait_line(self, pattern, since=0, timeout=15):
        """The first log line from index `since` on that matches pattern, or False."""
        rx = re.compile(pattern)
        return wait_for(lambda: next((l for l in self.lines()[since:] if rx.search(l)), None),
                        timeout=timeout)

    def signal(self, number, timeout=10):
        """Sends the signal, waits for the exit: (status, seconds) or (None, timeout)."""
        t = time.monotonic()
        self.process.send_signal(number)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None, timeout
        return self.process.returncode, time.monotonic() - t

    def rss(self):
        """{"VmRSS": bytes, "RssAnon": ..., "RssFile": ..., "Shadow": ...} of the process.
        Shadow is what of VmRSS AddressSanitizer's shadow memory holds (the mappings in its
        shadow range on x86-64, 0x7fff8000 .. 0x10007fff8000; 0 without ASan): one byte per 8 of
        memory the process touched, the 64 MiB capture ring's included (its shadow becomes
        resident as the ring is read through, up to 8 MiB: no leak)."""
        out = {"Shadow": 0}
        with open("/proc/%d/status" % self.process.pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
                    out[k] = int(v.split()[0]) * 1024
        in_shadow = False
        with open("/proc/%d/smaps" % self.process.pid) as f:
            for line in f:
                head = line.split(" ", 1)[0]
                if "-" in head and not head.endswith(":"):
                    start = int(head.split("-")[0], 16)
                    in_shadow = 0x7fff8000 <= start < 0x10007fff8000
                elif in_shadow and line.startswith("Rss:"):
                    out["Shadow"] += int(line.split()[1]) * 1024
        return out


def run_once(command, timeout=10):
    """A one-shot run: (status, stdout, stderr lines); status "still running after N s" when
    it did not end (it is killed then)."""
    try:
        p = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        def text(x):
            return x.decode(errors="replace") if isinstance(x, bytes) else x or ""
        return ("still running after %d s" % timeout, text(e.stdout), text(e.stderr).splitlines())
    return p.returncode, p.stdout, p.stderr.splitlines()


# ------------------------------------------------------------------------------------------
# Frames into the stat interface

def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def udp_frame(payload, src_ip="10.99.0.1", dst_port=STAT_PORT, src_port=40000,
              udp_length=None, ident=0):
    src = socket.inet_aton(src_ip) if isinstance(src_ip, str) else src_ip
    total = 28 + len(payload)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, ident & 0xffff, 0x4000, 64, 17,
                               0, src, socket.inet_aton("10.0.0.9")))
    ip[10:12] = struct.pack("!H", checksum(bytes(ip)))
    udp = struct.pack("!HHHH", src_port, dst_port,
                      8 + len(payload) if udp_length is None else udp_length, 0)
    return b"\xff" * 6 + b"\x02\x00\x00\x00\x99\x01" + b"\x08\x00" + bytes(ip) + udp + payload


def stat_header(byte0=0x02, types=3, seq=0, sizes=(0,) * 8):
    return struct.pack("!BBI8I", byte0, types, seq, *sizes)


def timestamp(tick):
    return struct.pack("!II", (tick >> 32) & 0x3fffffff, tick & 0xffffffff)


def short_event(kind, queue, length, gap):
    return struct.pack("!I", kind << 30 | queue << 27 | length << 19 | gap)


def malformed_frames():
    """(what, frame, the decoder's reason) for each kind of bad stat packet."""
    ts, arrival = timestamp(1000), short_event(1, 3, 8, 0)
    good_slots = ts + arrival + short_event(2, 3, 8, 5)
    header = stat_header(seq=7, sizes=(0, 0, 0, 8, 0, 0, 0, 0))
    whole = udp_frame(header + good_slots)
    return [
        ("truncated (payload shorter than the stat header)", udp_frame(header[:20]), "truncated"),
        ("wrong version (3)", udp_frame(stat_header(byte0=0x03) + good_slots), "bad_version"),
        ("wrong number of event types (4)", udp_frame(stat_header(types=4) + good_slots),
         "bad_event_types"),
        ("a first slot that is not a timestamp", udp_frame(header + arrival + ts),
         "first_not_timestamp"),
        ("a cut timestamp (its first slot the last)", udp_frame(header + ts + arrival + ts[:4]),
         "cut_timestamp"),
        ("a partial slot", udp_frame(header + ts + b"\x40\x00"), "partial_slot"),
        ("no event slot", udp_frame(header), "no_events"),
        ("UDP length beyond the datagram", udp_frame(header + good_slots,
                                                     udp_length=8 + 38 + 12 + 100),
         "length_mismatch"),
        ("a frame cut after its UDP header (shorter than its IP total length)", whole[:50],
         "frame_truncated"),
        ("garbage UDP to the stat port", udp_frame(b"GET /metrics HTTP/1.1\r\nHost: nobody\r\n"
                                                   b"\r\nnot a stat packet at all\n"),
         "bad_version"),
    ]


def random_frames(rng, count):
    """Random frames to the stat port: random sources (more than the decoder's table holds),
    lengths, payloads; most with a stat header that decodes (a random resolution, M flag now
    and then, sequence number, queue sizes small or not, a timestamp first or not, random
    slots), so that the slots, the sequence tracking and the sojourn matcher see random events
    too; some cut inside a slot. A list of bytes objects."""
    pool = rng.randbytes(1 << 20)
    small_sizes = [struct.pack("!8I", *(rng.randrange(4096) for _ in range(8)))
                   for _ in range(256)]
    frames = []
    for i in range(count):
        r = rng.getrandbits(64)
        at = r & 0x7ffff
        src = b"\x0a" + bytes((100 + (r >> 19 & 3),)) + pool[at:at + 2]
        kind = r >> 21 & 0xff
        if kind < 77:  # 30 %: bytes at random
            payload = pool[at:at + (r >> 29 & 0x7f)]
        else:
            byte0 = 0x02 | (r >> 29 & 7) << 4 | (0x80 if (r >> 32 & 15) == 0 else 0)
            sizes = small_sizes[r >> 36 & 255] if r >> 44 & 1 else pool[at + 64:at + 96]
            slots = pool[at + 96:at + 96 + 4 * (r >> 45 & 63)]
            if kind < 230:  # most start with a timestamp
                slots = timestamp(r >> 2 & (1 << 62) - 1 if r & 1 else at << 8) + slots
            payload = bytes((byte0, 3)) + pool[at + 4:at + 8] + sizes + slots
            if r >> 51 & 31 == 0:
                payload = payload[:-(1 + (r >> 56 & 1))]
        frames.append(udp_frame(payload, src_ip=src, src_port=27033 if r >> 57 & 1 else 40000,
                                ident=i))
    return frames


# ------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sim")
    parser.add_argument("pktstats")
    parser.add_argument("exporter")
    parser.add_argument("--seed", type=int)
    args = parser.parse_args()
    for path in (args.sim, args.pktstats, args.exporter):
        if not os.access(path, os.X_OK):
            print("1..0 # SKIP %s is not built" % path)
            return 0
    if not shutil.which("unshare"):
        print("1..0 # SKIP unshare is not installed")
        return 0
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun"):
        print("1..0 # SKIP needs root and /dev/net/tun")
        return 0
    args.sim, args.pktstats, args.exporter = (os.path.abspath(p) for p in
                                              (args.sim, args.pktstats, args.exporter))
    pktstats_sim.in_private_network()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**31)
    print("# seed %d (replay: --seed %d)" % (seed, seed), flush=True)

    def on_alarm(*_):
        raise TimeoutError("the test ran over %d s" % ALARM_S)
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(ALARM_S)
    tap = Tap()
    work = tempfile.mkdtemp(prefix="test_exporter_service.")
    processes, sims, held = [], [], []
    started = time.monotonic()
    try:
        Scenario(tap, args, seed, work, processes, sims, held).run()
    except Exception as e:  # a failure of the run is a failed point, with the logs
        logs = log_tails(work, ("e1.err", "s0.err", "e2.err"))
        tap.point(False, "the run", "%s: %s\n%s" % (type(e).__name__, e, logs))
    finally:
        signal.alarm(0)
        kill_all(processes)
        for sim in sims:
            sim.kill()
        for s in held:
            s.close()
        shutil.rmtree(work, ignore_errors=True)
    tap.comment("the test took %.1f s" % (time.monotonic() - started))
    return tap.done()


class Scenario:
    def __init__(self, tap, args, seed, work, processes, sims, held):
        self.tap, self.args, self.seed, self.work = tap, args, seed, work
        self.processes, self.sims, self.held = processes, sims, held
        self.sock = os.path.join(work, "s0.sock")
        self.config = os.path.join(work, "exporter.conf")
        self.R = pktstats_sim.registers()
        # the flood's frames, made while the test waits for other things
        self.flood = []
        self.maker = threading.Thread(target=lambda: self.flood.extend(
            random_frames(random.Random(seed), FLOOD_TOTAL)), daemon=True)
        self.maker.start()

    def point(self, ok, name, detail=""):
        return self.tap.point(ok, name, detail)

    def run(self):
        self.bad_input()
        self.readiness()
        self.absent_device()
        self.device_up()
        self.http_and_formats()
        self.device_killed_and_back()
        self.reload()
        self.bad_packets()
        self.stop()

    # --------------------------------------------------------------------------------------
    def write(self, name, text):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def exporter_once(self, *words, timeout=10):
        return run_once([self.args.exporter] + list(words), timeout=timeout)

    def config_error(self, what, text, line, word):
        """A config file with a bad line: exit 2, exactly one stderr line naming FILE:LINE and
        the word."""
        path = self.write("bad-%d.conf" % self.tap.n, text)
        status, out, err = self.exporter_once("config", path)
        where = "%s:%d:" % (path, line)
        self.point(status == 2 and len(err) == 1 and where in err[0] and word in err[0]
                   and out == "",
                   "start: %s: exit 2, one stderr line naming FILE:%d and '%s'"
                   % (what, line, word[:40]),
                   "exit %s, stdout %r, stderr %r" % (status, out[:200], err[:5]))

    def bad_input(self):
        port = free_port()
        head = "# pktstats-exporter under test\nlisten 127.0.0.1:%d\n" % port
        switch = "switch s0,device=sim:%s,stat-interface=%s\n" % (self.sock, TAP_NAME)
        self.config_error("an unknown keyword", head + switch + "frobnicate 12\n", 4,
                          "frobnicate")
        self.config_error("a bad value", head + "microburst-threshold lots\n" + switch, 3,
                          "lots")
        self.config_error("a bad key of a switch", head + switch.strip() + ",stat-port=70000\n",
                          3, "70000")
        self.config_error("a session naming a switch that does not exist",
                          head + switch + "dm-one-way nosuch,port=1,interface=pxcpu1\n", 4,
                          "nosuch")
        self.config_error("a line too long (2000 characters)",
                          head + "switch s9,device=sim:/" + "a" * 2000 + "\n" + switch, 3,
                          "longer than")
        missing = os.path.join(self.work, "nosuch.conf")
        status, out, err = self.exporter_once("config", missing)
        self.point(status == 2 and len(err) == 1 and missing in err[0],
                   "start: a config file that does not exist: exit 2, one line naming it",
                   "exit %s, stderr %r" % (status, err[:5]))
        status, out, err = self.exporter_once("listen", "127.0.0.1:%d" % port, "frobnicate", "3")
        ok = status == 2 and len(err) == 1 and "'frobnicate'" in err[0]
        status, out, err2 = self.exporter_once("listen", "nowhere")
        ok &= status == 2 and len(err2) == 1 and "'nowhere'" in err2[0]
        status, out, err3 = self.exporter_once("--frobnicate")
        ok &= status == 2 and len(err3) >= 1 and "'--frobnicate'" in err3[0]
        self.point(ok, "start: bad command-line words (a keyword, a value, a flag): exit 2, the "
                   "first stderr line naming the word (the only one but for the flag's usage)",
                   "%r\n%r\n%r" % (err[:3], err2[:3], err3[:3]))

        # --check: prints what it would run, starts nothing (the address is held: a bind fails)
        sock, held_port = hold_port()
        self.held.append(sock)
        good = self.write("good.conf", "# good\nlisten 127.0.0.1:%d\n%sswitch s1,device=sim:%s\n"
                          "dm-one-way s0,port=1,interface=pxcpu1\n"
                          % (held_port, switch, os.path.join(self.work, "s1.sock")))
        t = time.monotonic()
        status, out, err = self.exporter_once("--check", "config", good)
        took = time.monotonic() - t
        self.point(status == 0 and err == [] and len(out.splitlines()) == 1 and
                   "2 switches" in out and "1 one-way" in out and
                   "127.0.0.1:%d" % held_port in out and took < 3,
                   "start: --check on a good config: exit 0 in %.2f s, one line saying what it "
                   "runs (2 switches, 1 one-way session, the address), nothing on stderr, no "
                   "listening socket (its address held by the test)" % took,
                   "exit %s, stdout %r, stderr %r" % (status, out, err[:5]))
        status, out, err = self.exporter_once("--help")
        status2, out2, err2 = self.exporter_once("--version")
        self.point(status == 0 and out.startswith("usage: pktstats-exporter") and
                   "SIGHUP" in out and err == [] and status2 == 0 and
                   re.match(r"^pktstats-exporter \S+ \(commit \S+\)\n$", out2) and err2 == [],
                   "start: --help (usage on stdout) and --version (one line) exit 0",
                   "help %s %r %r; version %s %r %r" % (status, out[:100], err, status2, out2,
                                                         err2))
        status, out, err = self.exporter_once("listen", "127.0.0.1:%d" % held_port, timeout=15)
        saying = [l for l in err if "127.0.0.1:%d" % held_port in l and
                  re.search(r"in use|cannot listen", l)]
        self.point(status == 1 and saying,
                   "start: the listen address taken (held by the test): exit 1, a line saying so",
                   "exit %s, stderr %r" % (status, err[-5:]))
        self.held.remove(sock)
        sock.close()

    # --------------------------------------------------------------------------------------
    def write_config(self, extra_switches="", threshold=16384, bad_line=None):
        lines = ["# the exporter under test",
                 "listen 127.0.0.1:%d" % self.port,
                 "retry-max 1s",
                 "switch s0,device=sim:%s,stat-interface=%s,microburst-threshold=%d"
                 % (self.sock, TAP_NAME, threshold)]
        if bad_line:
            lines.append(bad_line)
        lines += extra_switches.splitlines()
        with open(self.config, "w") as f:
            f.write("\n".join(lines) + "\n")
        return len(lines)

    def scrape(self, exporter=None):
        """One scrape (text format) of e1 or the exporter given, kept in its history."""
        exporter = exporter or self.e1
        status, headers, body = http_request(self.port if exporter is self.e1 else self.port2,
                                             "/metrics")
        if status != 200:
            raise Failure("/metrics answered %d" % status)
        samples = parse_text(body.decode())
        exporter.history.append((time.monotonic() - exporter.t0, samples))
        return samples

    def readiness(self):
        """/-/ready on an exporter whose device's open the test holds: a "simulator" socket
        that takes the connection and never answers `hello` (the backend waits 10 s for it)."""
        mute_path = os.path.join(self.work, "mute.sock")
        mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        mute.bind(mute_path)
        mute.listen(4)
        self.held.append(mute)
        port = free_port()
        e0 = Exporter(self.args.exporter, self.work, "e0",
                      ["listen", "127.0.0.1:%d" % port, "switch", "r0,device=sim:" + mute_path],
                      self.processes)
        answers = []

        def ask():
            answers.append((time.monotonic(), http_request(port, "/-/ready", timeout=5)[0]))
            return answers[-1][1] == 200
        wait_for(lambda: http_request(port, "/-/healthy")[0] == 200, timeout=10)
        t = time.monotonic()
        wait_for(ask, timeout=1.5, step=0.1)
        held = list(answers)
        mute.close()  # the connection refused: the open fails, the device was tried
        self.held.remove(mute)
        wait_for(ask, timeout=10, step=0.05)
        tried = [l for l in e0.lines() if "switch r0: device" in l]
        self.point(len(held) >= 5 and all(status == 503 for _, status in held) and
                   answers[-1][1] == 200 and tried,
                   "http: /-/ready 503 while the device is being opened (%d answers in %.1f s), "
                   "200 %.2f s after its open failed" % (
                       len(held), held[-1][0] - t if held else 0,
                       answers[-1][0] - held[-1][0] if held else 0),
                   "while held %s; then %s; log %r" % ([s for _, s in held],
                                                       [s for _, s in answers[len(held):]],
                                                       e0.lines()))
        e0.process.kill()
        e0.process.wait()

    def absent_device(self):
        self.port = free_port()
        self.write_config()
        self.e1 = Exporter(self.args.exporter, self.work, "e1", ["config", self.config],
                           self.processes)
        if not wait_for(lambda: http_request(self.port, "/-/ready")[0] == 200, timeout=15):
            raise Failure("the exporter did not become ready")
        # a second attempt (a second later): still one line
        wait_for(lambda: value(self.scrape(), "pktstats_device_failures_total", switch="s0") >= 2,
                 timeout=10, step=0.2)
        samples = self.scrape()
        lines = self.e1.lines()
        device_lines = [l for l in lines if "switch s0: device" in l]
        interface_lines = [l for l in lines if "stat interface %s" % TAP_NAME in l]
        self.point(value(samples, "pktstats_up", switch="s0") == 0 and
                   value(samples, "pktstats_device_opens_total", switch="s0") == 0 and
                   value(samples, "pktstats_device_failures_total", switch="s0") >= 2 and
                   value(samples, "pktstats_stat_capture_up", switch="s0") == 0 and
                   len(device_lines) == 1 and self.sock in device_lines[0] and
                   re.search(r"No such file|cannot connect", device_lines[0]) and
                   len(interface_lines) == 1 and self.e1.process.poll() is None,
                   "absent: the exporter runs without its device: pktstats_up 0, failures "
                   "counted, one log line saying why (however often it retried), one for the "
                   "stat interface",
                   "up %s, failures %s, capture up %s; log:\n%s" % (
                       value(samples, "pktstats_up", switch="s0"),
                       value(samples, "pktstats_device_failures_total", switch="s0"),
                       value(samples, "pktstats_stat_capture_up", switch="s0"), "\n".join(lines)))

    # --------------------------------------------------------------------------------------
    def start_simulator(self):
        sim = pktstats_sim.Simulator(
            self.args.sim, self.work,
            ["--seed", str(self.seed), "--port", "0:gen=0.6,to=3,count=2000",
             "--port", "1:gen=0.6,to=3,size=60-1514,count=800",
             "--port", "2:tap=" + TAP_NAME], name="s0", wait=True)
        self.sims.append(sim)
        return sim

    def cli(self, *words):
        p = subprocess.run([self.args.pktstats, "-d", "sim:" + self.sock] + list(words),
                           capture_output=True, text=True, timeout=30)
        if p.returncode:
            raise Failure("pktstats %s: exit %d: %s" % (" ".join(words), p.returncode,
                                                          p.stderr))

    def device_up(self):
        since = len(self.e1.lines())
        t = time.monotonic()
        self.sim = self.start_simulator()
        up = wait_for(lambda: value(self.scrape(), "pktstats_up", switch="s0") == 1,
                      timeout=15, step=0.1)
        self.up_after = time.monotonic() - t
        samples = self.scrape()
        line = self.e1.wait_line(r"switch s0: device \S+ up", since, timeout=1)
        self.point(up and line and self.e1.process.poll() is None and
                   value(samples, "pktstats_device_opens_total", switch="s0") == 1,
                   "device: the simulator started, pktstats_up 1 %.1f s later in the same "
                   "exporter process, device opens 1, the log says so" % self.up_after,
                   "up %s, log %r" % (up, self.e1.lines()[since:]))
        captured = wait_for(lambda: value(self.scrape(), "pktstats_stat_capture_up",
                                          switch="s0") == 1, timeout=10, step=0.1)
        samples = self.scrape()
        self.point(captured and value(samples, "pktstats_stat_capture_opens_total",
                                      switch="s0") == 1 and
                   self.e1.wait_line(r"switch s0: capturing stat packets on %s" % TAP_NAME,
                                     since, timeout=1),
                   "device: its stat interface (the simulator's TAP) captured: "
                   "pktstats_stat_capture_up 1, opens 1, the log says so",
                   self.e1.lines()[since:])

        # capture as operators set it, then the traffic; scrapes under load
        self.cli("capture", "set", "resolution", "8ns", "output-ports", "2",
                 "dst-ip", "10.0.0.9", "flush-timeout", "10us")
        self.cli("capture", "start")
        self.sim.request("start")
        round_trips, reads = [], []
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline or len(round_trips) < 5:
            t = time.monotonic()
            samples = self.scrape()
            round_trips.append(time.monotonic() - t)
            reads += values_of(samples, "pktstats_device_read_duration_seconds",
                               switch="s0").values()
        reads = reads or [float("nan")]
        self.tap.comment("scrape under load (%d scrapes, one simulated switch, its traffic "
                         "running): HTTP round trip min %.1f ms, median %.1f ms, max %.1f ms; "
                         "pktstats_device_read_duration_seconds min %.1f ms, median %.1f ms, "
                         "max %.1f ms" % (
                             len(reads), 1e3 * min(round_trips),
                             1e3 * sorted(round_trips)[len(round_trips) // 2],
                             1e3 * max(round_trips), 1e3 * min(reads),
                             1e3 * sorted(reads)[len(reads) // 2], 1e3 * max(reads)))

        self.settle("the simulator's traffic")

    def settle(self, what, timeout=60):
        """Waits for the switch to be idle: the queues empty, no frame stored and no stat
        packet received for half a second."""
        last = [None]

        def settled():
            s = self.scrape()
            now = (value(s, "pktstats_stat_captured_frames_total", switch="s0"),
                   sum(values_of(s, "pktstats_queue_stored_frames_total", switch="s0").values()),
                   sum(values_of(s, "pktstats_queue_occupancy_bytes", switch="s0").values()))
            done = now == last[0] and now[2] == 0 and now[0] > 0
            last[0] = now
            return done
        if not wait_for(settled, timeout=timeout, step=0.5):
            raise Failure("%s did not end: %s" % (what, last[0]))

    # --------------------------------------------------------------------------------------
    def http_and_formats(self):
        port = self.port
        status, headers, body = http_request(port, "/metrics")
        text = body.decode()
        status_om, headers_om, body_om = http_request(port, "/metrics",
                                                      headers={"Accept": SCRAPE_ACCEPT})
        om = body_om.decode()
        self.point(status == 200 and headers.get("content-type", "").startswith(
                       "text/plain; version=0.0.4") and not text.rstrip().endswith("# EOF"),
                   "http: /metrics without Accept: 200, text/plain; version=0.0.4",
                   "%s %r" % (status, headers))
        self.point(status_om == 200 and headers_om.get("content-type", "").startswith(
                       "application/openmetrics-text; version=1.0.0") and
                   om.endswith("\n# EOF\n"),
                   "http: /metrics with Prometheus's Accept header: 200, OpenMetrics 1.0.0, "
                   "ending with # EOF", "%s %r %r" % (status_om, headers_om, om[-40:]))
        status_head, headers_head, body_head = http_request(port, "/metrics", method="HEAD")
        status_h, _, body_h = http_request(port, "/-/healthy")
        status_r, _, _ = http_request(port, "/-/ready")
        status_404, _, _ = http_request(port, "/nosuch")
        status_405, headers_405, _ = http_request(port, "/metrics", method="POST",
                                                  headers={"Content-Type": "text/plain"})
        allow = [m.strip() for m in headers_405.get("allow", "").split(",")]
        self.point(status_head == 200 and body_head == b"" and
                   headers_head.get("content-type") == headers.get("content-type") and
                   status_h == 200 and status_r == 200 and status_404 == 404 and
                   status_405 == 405 and "GET" in allow and "POST" not in allow,
                   "http: HEAD /metrics 200 without a body; /-/healthy 200; /-/ready 200; an "
                   "unknown path 404; POST 405 with Allow: %s" % headers_405.get("allow"),
                   "HEAD %s %r %r; healthy %s; ready %s; 404: %s; POST %s %r" % (
                       status_head, headers_head, body_head[:50], status_h, status_r,
                       status_404, status_405, headers_405))
        self.check_formats("http")

    def check_formats(self, what):
        """promtool on the text format, prometheus_client on the OpenMetrics one, the samples of
        both the same: a text scrape, an OpenMetrics one, a text one; a value equal in the two
        text scrapes must be the OpenMetrics one, another lie between them (the device's read
        time and clock offset, new at every scrape, compared by presence only)."""
        body = http_request(self.port, "/metrics")[2]
        t1 = parse_text(body.decode())
        om = http_request(self.port, "/metrics", headers={"Accept": SCRAPE_ACCEPT})[2].decode()
        t2 = parse_text(http_request(self.port, "/metrics")[2].decode())
        if os.access(PROMTOOL, os.X_OK):
            p = subprocess.run([PROMTOOL, "check", "metrics"], input=body, capture_output=True,
                               timeout=60)
            self.point(p.returncode == 0 and p.stdout == b"" and p.stderr == b"",
                       "%s: `promtool check metrics` on the text format: no problem (%d "
                       "samples)" % (what, len(t1)),
                       "exit %d\n%s%s" % (p.returncode, p.stdout.decode(), p.stderr.decode()))
        else:
            self.point(True, "%s: promtool check metrics # SKIP %s is not installed"
                       % (what, PROMTOOL))

        python = om_python()
        if not python:
            self.point(True, "%s: the OpenMetrics exposition through prometheus_client's "
                       "parser # SKIP python3-prometheus-client is not installed" % what)
            return
        p = subprocess.run([python, "-c", OM_PARSER], input=om.encode(), capture_output=True,
                           timeout=60)
        if p.returncode:
            self.point(False, "%s: prometheus_client's OpenMetrics parser takes every family"
                       % what, p.stderr.decode()[-2000:])
            return
        parsed = json.loads(p.stdout)
        families = set(f for f, _, _, _, _ in parsed)
        om_samples = {}
        for _, _, name, labels, v in parsed:
            om_samples[(name, frozenset((k, x) for k, x in labels))] = v
        typed = len(set(re.findall(r"^# TYPE (\S+)", om, re.M)))
        wrong, exact = [], 0
        for key in set(t1) | set(t2) | set(om_samples):
            if key not in t1 or key not in t2 or key not in om_samples:
                wrong.append("%s%s: text %s / %s, OpenMetrics %s" % (
                    key[0], dict(key[1]), t1.get(key), t2.get(key), om_samples.get(key)))
            elif key[0] in PER_SCRAPE:
                continue
            elif t1[key] == t2[key]:
                exact += 1
                if om_samples[key] != t1[key]:
                    wrong.append("%s%s: text %s, OpenMetrics %s" % (key[0], dict(key[1]),
                                                                    t1[key], om_samples[key]))
            elif not min(t1[key], t2[key]) <= om_samples[key] <= max(t1[key], t2[key]):
                wrong.append("%s%s: text %s then %s, OpenMetrics %s" % (
                    key[0], dict(key[1]), t1[key], t2[key], om_samples[key]))
        self.point(len(families) == typed and typed > 30,
                   "%s: prometheus_client's OpenMetrics parser takes every family (%d of %d, "
                   "%d samples)" % (what, len(families), typed, len(parsed)),
                   "families parsed %d, # TYPE lines %d" % (len(families), typed))
        self.point(not wrong and exact > 100,
                   "%s: the samples (name, labels, value) of both formats are the same (%d "
                   "compared, %d by value: those unchanged between two text scrapes around it)"
                   % (what, len(om_samples), exact), "\n".join(sorted(wrong)[:30]))

    # --------------------------------------------------------------------------------------
    def stored(self, samples):
        return {q: value(samples, "pktstats_queue_stored_frames_total", switch="s0", queue=q)
                for q in range(8)}

    def device_killed_and_back(self):
        before = self.scrape()
        since = len(self.e1.lines())
        self.sim.kill()  # SIGKILL
        after = self.scrape()
        lost = self.e1.wait_line(r"switch s0: device \S+ lost", since, timeout=2)
        self.point(value(after, "pktstats_up", switch="s0") == 0 and lost and
                   value(before, "pktstats_up", switch="s0") == 1,
                   "device: the simulator killed (SIGKILL): pktstats_up 0 at the next scrape, a "
                   "log line says the device was lost", "up %s; log %r" % (
                       value(after, "pktstats_up", switch="s0"), self.e1.lines()[since:]))
        down = wait_for(lambda: value(self.scrape(), "pktstats_stat_capture_up",
                                      switch="s0") == 0, timeout=5, step=0.1)
        self.point(down and self.e1.wait_line(r"stat interface %s lost" % TAP_NAME, since,
                                              timeout=1),
                   "device: its TAP gone with it: pktstats_stat_capture_up 0, a log line",
                   self.e1.lines()[since:])

        since = len(self.e1.lines())
        t = time.monotonic()
        self.sim = self.start_simulator()
        up = wait_for(lambda: value(self.scrape(), "pktstats_up", switch="s0") == 1 and
                      value(self.scrape(), "pktstats_stat_capture_up", switch="s0") == 1,
                      timeout=15, step=0.1)
        back_after = time.monotonic() - t
        # the register counters: the new device's, read from it around the scrape
        low = {q: self.sim.read64(self.R["SWITCH_FRAMES_STORED_%d" % q]) for q in range(8)}
        samples = self.scrape()
        high = {q: self.sim.read64(self.R["SWITCH_FRAMES_STORED_%d" % q]) for q in range(8)}
        old, new = self.stored(before), self.stored(samples)
        self.point(up and self.e1.process.poll() is None and
                   value(samples, "pktstats_device_opens_total", switch="s0") == 2 and
                   value(samples, "pktstats_stat_capture_opens_total", switch="s0") == 2 and
                   self.e1.wait_line(r"switch s0: device \S+ up", since, timeout=1) and
                   self.e1.wait_line(r"switch s0: capturing stat packets", since, timeout=1),
                   "device: started again: pktstats_up 1 and the stat interface captured %.1f s "
                   "later, device opens 2, capture opens 2, the log says so" % back_after,
                   "up %s; log %r" % (up, self.e1.lines()[since:]))
        self.point(all(low[q] <= new[q] <= high[q] for q in range(8)) and
                   sum(new.values()) < sum(old.values()),
                   "device: the register counters restart from the new device's values "
                   "(pktstats_queue_stored_frames_total %d before, %d now: a counter reset)"
                   % (sum(old.values()), sum(new.values())),
                   "before the kill %s; now %s; the device %s..%s" % (old, new, low, high))

        # the stat packets of the new run: counters go on from where they were
        received = value(samples, "pktstats_stat_packets_received_total", switch="s0")
        self.cli("capture", "set", "resolution", "8ns", "output-ports", "2",
                 "dst-ip", "10.0.0.9", "flush-timeout", "10us")
        self.cli("capture", "start")
        self.sim.request("start")
        more = wait_for(lambda: value(self.scrape(), "pktstats_stat_packets_received_total",
                                      switch="s0") > received + 50, timeout=20, step=0.2)
        samples = self.scrape()
        self.point(more and value(samples, "pktstats_stat_sequence_resets_total",
                                  switch="s0") == 1,
                   "device: the new run's stat packets counted on top of the old ones (%d, now "
                   "%d), the sequence restart counted (pktstats_stat_sequence_resets_total 1)"
                   % (received, value(samples, "pktstats_stat_packets_received_total",
                                      switch="s0")),
                   "more %s, resets %s" % (more, value(
                       samples, "pktstats_stat_sequence_resets_total", switch="s0")))
        self.check_monotonic("device: across the simulator's kill and restart")

    def check_monotonic(self, what):
        """Every stat-packet counter (and the largest occupancy) of every scrape of e1 so far is
        at least its value in the scrape before."""
        stat_queue = ("pktstats_queue_events_total", "pktstats_queue_event_bytes_total",
                      "pktstats_queue_arrival_occupancy_bytes_", "pktstats_queue_delay_seconds_",
                      "pktstats_queue_untimed_frames_total", "pktstats_queue_microbursts_total",
                      "pktstats_queue_microburst_seconds_total",
                      "pktstats_queue_occupancy_max_bytes")
        wrong, n, keys = [], 0, set()
        previous = {}
        for t, samples in self.e1.history:
            for key, v in samples.items():
                name = key[0]
                if not (name.startswith("pktstats_stat_") and name.endswith("_total") or
                        name.startswith(stat_queue)):
                    continue
                n += 1
                keys.add(key)
                if key in previous and v < previous[key][1]:
                    wrong.append("%s%s: %s at %.1f s, %s at %.1f s" % (
                        name, dict(key[1]), previous[key][1], previous[key][0], v, t))
                previous[key] = (t, v)
        self.point(not wrong and len(keys) > 200,
                   "%s, the stat packets' counters never went back (%d series in %d scrapes)"
                   % (what, len(keys), len(self.e1.history)), "\n".join(wrong[:30]))

    # --------------------------------------------------------------------------------------
    def hup(self):
        since = len(self.e1.lines())
        self.hup_at = time.monotonic()
        self.e1.process.send_signal(signal.SIGHUP)
        return since

    def reloaded(self, since):
        """The reload's log line, the time it took to come."""
        line = self.e1.wait_line(r"reload", since, timeout=10)
        self.latencies.append(time.monotonic() - self.hup_at)
        return line

    def reload(self):
        self.latencies = []
        before = self.scrape()
        # a bad line: kept, one line naming FILE:LINE
        bad = self.write_config(bad_line="peak-window forever")
        since = self.hup()
        line = self.reloaded(since)
        time.sleep(0.3)
        lines = self.e1.lines()[since:]
        samples = self.scrape()
        self.point(line and len(lines) == 1 and "%s:%d:" % (self.config, bad) in line and
                   "forever" in line and re.search(r"keep", line),
                   "reload: SIGHUP with a bad line: one log line naming FILE:%d and the word, "
                   "saying the configuration in force is kept" % bad, lines)
        self.point(value(samples, "pktstats_exporter_config_last_reload_successful") == 0 and
                   value(samples, "pktstats_exporter_config_reloads_total",
                         result="failure") == 1 and
                   value(samples, "pktstats_exporter_config_reloads_total",
                         result="success") == 0 and
                   value(samples, "pktstats_up", switch="s0") == 1 and
                   value(samples, "pktstats_stat_capture_up", switch="s0") == 1 and
                   value(samples, "pktstats_microburst_threshold_bytes", switch="s0") == 16384,
                   "reload: after it the old configuration serves (s0 up, captured, threshold "
                   "16384); last_reload_successful 0, reloads_total{result=\"failure\"} 1",
                   "%s" % {k: v for k, v in samples.items()
                           if k[0].startswith("pktstats_exporter_config")})

        # a good one: a second switch (absent), s0's threshold changed
        s1 = "switch s1,device=sim:%s" % os.path.join(self.work, "s1.sock")
        self.write_config(extra_switches=s1, threshold=4096)
        pre = self.scrape()
        since = self.hup()
        line = self.reloaded(since)
        samples = wait_for(lambda: (lambda s: s if ("pktstats_up", frozenset(
            {("switch", "s1")})) in s else None)(self.scrape()), timeout=5)
        kept = [(k, pre[k], samples[k]) for k in pre
                if k[0].startswith("pktstats_stat_") and k[0].endswith("_total") and
                ("switch", "s0") in k[1] and samples and k in samples and samples[k] < pre[k]]
        self.point(line and "reloaded: 2 switches" in line and samples and
                   value(samples, "pktstats_up", switch="s1") == 0 and
                   value(samples, "pktstats_up", switch="s0") == 1 and
                   value(samples, "pktstats_microburst_threshold_bytes", switch="s0") == 4096 and
                   value(samples, "pktstats_exporter_config_last_reload_successful") == 1 and
                   value(samples, "pktstats_exporter_config_reloads_total",
                         result="success") == 1 and
                   value(samples, "pktstats_exporter_config_reloads_total",
                         result="failure") == 1,
                   "reload: SIGHUP adding switch s1 and changing s0's microburst threshold: "
                   "pktstats_up{switch=\"s1\"} 0 appears, the new threshold 4096, "
                   "last_reload_successful 1, reloads success 1, failure 1",
                   "log %r; %s" % (self.e1.lines()[since:], samples and
                                   {k: v for k, v in samples.items() if
                                    k[0].startswith(("pktstats_exporter_config", "pktstats_up",
                                                     "pktstats_microburst"))}))
        self.point(samples and not kept and
                   value(samples, "pktstats_stat_capture_opens_total", switch="s0") == 2 and
                   value(samples, "pktstats_device_opens_total", switch="s0") == 2 and
                   value(samples, "pktstats_stat_packets_received_total", switch="s0") >=
                   value(before, "pktstats_stat_packets_received_total", switch="s0") > 0,
                   "reload: s0's stat counters not reset (same or higher), its capture and "
                   "device not reopened (opens 2)", kept[:10])

        # the second switch removed
        self.write_config(threshold=4096)
        since = self.hup()
        line = self.reloaded(since)
        samples = self.scrape()
        left = [k for k in samples if ("switch", "s1") in k[1]]
        self.point(line and "reloaded: 1 switches" in line and not left and
                   value(samples, "pktstats_up", switch="s0") == 1 and
                   value(samples, "pktstats_exporter_config_reloads_total",
                         result="success") == 2,
                   "reload: SIGHUP removing s1: its series are gone, s0 served",
                   "log %r; left %s" % (self.e1.lines()[since:], left[:5]))
        self.tap.comment("reloads, SIGHUP to their log line: a bad line %.2f s, s1 added %.2f s, "
                         "s1 removed (its device absent) %.2f s" % tuple(self.latencies))
        self.check_monotonic("reload: across the three reloads")

    # --------------------------------------------------------------------------------------
    def counts(self, samples):
        c = {"captured": value(samples, "pktstats_stat_captured_frames_total", switch="s0"),
             "ignored": value(samples, "pktstats_stat_ignored_frames_total", switch="s0"),
             "received": value(samples, "pktstats_stat_packets_received_total", switch="s0"),
             "kernel": value(samples, "pktstats_stat_capture_dropped_frames_total",
                             switch="s0", where="kernel"),
             "interface": value(samples, "pktstats_stat_capture_dropped_frames_total",
                                switch="s0", where="interface")}
        for labels, v in values_of(samples, "pktstats_stat_packets_malformed_total",
                                   switch="s0").items():
            c["malformed:" + dict(labels)["reason"]] = v
        return c

    def bad_packets(self):
        # the switch's capture off, so that nothing but the test's frames reach the exporter
        self.cli("capture", "stop")
        last = [None]

        def quiet():
            now = self.counts(self.scrape())
            done = now == last[0]
            last[0] = now
            return done
        if not wait_for(quiet, timeout=10, step=0.3):
            raise Failure("the stat interface did not go quiet")
        raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        try:
            raw.bind((TAP_NAME, 0))
            self.bad_packets_with(raw)
        finally:
            raw.close()

    def bad_packets_with(self, raw):
        start = self.counts(self.scrape())
        kinds = malformed_frames()
        for _ in range(2):
            for _, frame, _ in kinds:
                raw.send(frame)
        sent = 2 * len(kinds)
        got = wait_for(lambda: (lambda c: c if c["captured"] - start["captured"] >= sent
                                else None)(self.counts(self.scrape())), timeout=10, step=0.1)
        time.sleep(0.3)
        now = self.counts(self.scrape())
        delta = {k: now[k] - start[k] for k in now}
        for what, _, reason in kinds:
            want = 2 * sum(1 for _, _, r in kinds if r == reason)
            self.point(delta.get("malformed:" + reason) == want,
                       "packets: %s: counted under reason=\"%s\"" % (what, reason),
                       "%s: %s, want %d" % (reason, delta.get("malformed:" + reason), want))
        others = {k: v for k, v in delta.items() if v and not k.startswith("malformed:") and
                  k != "captured"}
        reasons = set(r for _, _, r in kinds)
        stray = {k: v for k, v in delta.items() if k.startswith("malformed:") and v and
                 k[len("malformed:"):] not in reasons}
        healthy = http_request(self.port, "/-/healthy")[0]
        self.point(got and delta["captured"] == sent and not others and not stray and
                   healthy == 200 and self.e1.process.poll() is None,
                   "packets: the %d bad frames all captured, none decoded, ignored or under "
                   "another reason; the exporter serving" % sent,
                   "delta %s" % {k: v for k, v in delta.items() if v})

        self.time_jumps(raw)

        # the flood
        self.maker.join()
        frames = iter(self.flood)
        base = self.counts(self.scrape())
        pid_rss = []

        def send(n):
            for _ in range(n):
                frame = next(frames)
                while True:
                    try:
                        raw.send(frame)
                        break
                    except OSError as e:  # the interface's queue full: wait, send again
                        if e.errno not in (errno.EAGAIN, errno.ENOBUFS):
                            raise
                        time.sleep(0.001)

        def accounted(n):
            def check():
                c = self.counts(self.scrape())
                return c if (c["captured"] - base["captured"]) + (c["kernel"] - base["kernel"]) \
                    >= n else None
            return wait_for(check, timeout=30, step=0.5)
        send(FLOOD_FIRST)
        first = accounted(FLOOD_FIRST)
        time.sleep(0.2)
        pid_rss.append(self.e1.rss())
        scrapes_before = len(self.e1.history)
        t = time.monotonic()
        send(FLOOD_TOTAL - FLOOD_FIRST)
        sent_after = time.monotonic() - t
        last = accounted(FLOOD_TOTAL)
        took = time.monotonic() - t
        time.sleep(0.2)
        pid_rss.append(self.e1.rss())
        scrapes = len(self.e1.history) - scrapes_before
        final = self.counts(self.scrape())
        malformed = sum(v - base.get(k, 0) for k, v in final.items() if k.startswith("malformed:"))
        d = {k: final[k] - base[k] for k in ("captured", "ignored", "received", "kernel",
                                             "interface")}
        self.tap.comment("flood: the last %d random frames sent in %.1f s, all accounted for "
                         "%.1f s after the first of them: in all captured %d, dropped by the "
                         "kernel %d, decoded %d, malformed %d, ignored %d" % (
                             FLOOD_TOTAL - FLOOD_FIRST, sent_after, took,
                                                       d["captured"], d["kernel"],
                                                       d["received"], malformed, d["ignored"]))
        conservation = [(c, c["captured"] - c["ignored"] - c["received"] -
                         sum(v for k, v in c.items() if k.startswith("malformed:")))
                        for c in (start, now, base, final)]
        healthy = http_request(self.port, "/-/healthy")[0]
        self.point(first and last and d["captured"] + d["kernel"] == FLOOD_TOTAL and
                   all(x == 0 for _, x in conservation) and healthy == 200 and
                   self.e1.process.poll() is None,
                   "packets: %d seeded random frames to the stat port: every one captured or "
                   "counted as dropped, captured = ignored + malformed + decoded, the exporter "
                   "serving" % FLOOD_TOTAL,
                   "delta %s, malformed %d; captured - ignored - malformed - decoded: %s; "
                   "healthy %s" % (d, malformed, [x for _, x in conservation], healthy))
        # ASan's shadow left out (rss()): a leak still shows in the heap it shadows
        growth = (pid_rss[1]["VmRSS"] - pid_rss[1]["Shadow"]) - \
            (pid_rss[0]["VmRSS"] - pid_rss[0]["Shadow"])
        self.tap.comment("resident memory after %d frames: VmRSS %.1f MiB (RssAnon %.1f, RssFile "
                         "%.1f, ASan shadow %.1f); after %d: VmRSS %.1f MiB (RssAnon %.1f, RssFile "
                         "%.1f, ASan shadow %.1f); %d scrapes between" % (
                             FLOOD_FIRST, pid_rss[0]["VmRSS"] / 2**20,
                             pid_rss[0]["RssAnon"] / 2**20, pid_rss[0]["RssFile"] / 2**20,
                             pid_rss[0]["Shadow"] / 2**20,
                             FLOOD_TOTAL, pid_rss[1]["VmRSS"] / 2**20,
                             pid_rss[1]["RssAnon"] / 2**20, pid_rss[1]["RssFile"] / 2**20,
                             pid_rss[1]["Shadow"] / 2**20, scrapes))
        self.settle("the switch's forwarding of the flood (it enters the switch too)")
        self.check_formats("packets: after the flood")
        bound = memory_bound(scrapes)
        self.point(growth <= bound,
                   "packets: bounded memory: VmRSS less ASan's shadow grew %+.2f MiB from the "
                   "first %d frames to the %dth (at most %.2f MiB: %d scrapes between)" % (
                       growth / 2**20, FLOOD_FIRST, FLOOD_TOTAL, bound / 2**20, scrapes),
                   pid_rss)

    def time_jumps(self, raw):
        """Well-formed stat packets of a source of their own (resolution 1024 ns) whose time
        jumps 2^53 ticks (2^63 ns) between two packets, four times: a frame of queue 0 queued
        that long each time (a delay of 2^63 ns), queue 1 above the microburst threshold (its
        snapshot 1000 words: 8000 bytes, above the threshold of 4096 the reload set, below the
        16384 before it) that long each time (then 0). Neither the delay histogram's sum nor the
        microburst time may go back or below 0, and the exposition must parse after each."""
        def sums(s):
            return (value(s, "pktstats_queue_delay_seconds_sum", switch="s0", queue=0),
                    value(s, "pktstats_queue_delay_seconds_count", switch="s0", queue=0),
                    value(s, "pktstats_queue_microburst_seconds_total", switch="s0", queue=1),
                    value(s, "pktstats_queue_microbursts_total", switch="s0", queue=1))
        seen = [sums(self.scrape())]
        captured = value(self.e1.history[-1][1], "pktstats_stat_captured_frames_total",
                         switch="s0")
        python = om_python()
        refused = []
        for i in range(4):
            t = 100 + (i << 53)
            a = stat_header(0x72, seq=2 * i, sizes=(0, 1000, 0, 0, 0, 0, 0, 0)) + \
                timestamp(t) + short_event(1, 0, 1, 0)
            b = stat_header(0x72, seq=2 * i + 1, sizes=(1, 0, 0, 0, 0, 0, 0, 0)) + \
                timestamp(t + (1 << 53)) + short_event(2, 0, 1, 0)
            raw.send(udp_frame(a, src_ip="10.99.0.2"))
            raw.send(udp_frame(b, src_ip="10.99.0.2"))
            captured += 2
            wait_for(lambda: value(self.scrape(), "pktstats_stat_captured_frames_total",
                                   switch="s0") >= captured, timeout=5, step=0.1)
            seen.append(sums(self.scrape()))
            if python:
                om = http_request(self.port, "/metrics", headers={"Accept": SCRAPE_ACCEPT})[2]
                p = subprocess.run([python, "-c", OM_PARSER], input=om, capture_output=True,
                                   timeout=60)
                if p.returncode:
                    refused.append("after pair %d: %s" % (i + 1, p.stderr.decode().strip()
                                                          .splitlines()[-1]))
        wrong = [(i, a, b) for i in range(1, len(seen)) for a, b in zip(seen[i - 1], seen[i])
                 if b < a or b < 0]
        self.point(not wrong and seen[-1][1] == seen[0][1] + 4 and
                   seen[-1][3] == seen[0][3] + 4,
                   "packets: time jumps of 2^63 ns (4 frames of queue 0 queued that long, 4 "
                   "microbursts of queue 1 as long, above the threshold the reload set): the "
                   "delay histogram's count +4 and microbursts +4, the delay sum and microburst "
                   "seconds never back nor below 0",
                   "(delay sum, delay count, microburst s, microbursts) before and after each "
                   "pair: %s" % seen)
        if python:
            self.point(not refused, "packets: prometheus_client's OpenMetrics parser takes the "
                       "exposition after each of those time jumps", "\n".join(refused))
        else:
            self.point(True, "packets: after the time jumps the OpenMetrics parser # SKIP "
                       "python3-prometheus-client is not installed")

    # --------------------------------------------------------------------------------------
    def stop(self):
        self.check_monotonic("packets: with the flood")
        reports = [l for l in self.e1.lines() if re.search(
            r"runtime error|AddressSanitizer|LeakSanitizer|UndefinedBehavior", l)]
        self.point(not reports, "packets: no sanitizer report in the exporter's log", reports)
        status, took = self.e1.signal(signal.SIGTERM, timeout=10)
        lines = self.e1.lines()
        self.point(status == 0 and took <= 2 and lines and
                   lines[-1] == "pktstats-exporter: stopped",
                   "stop: SIGTERM: exit 0 in %.2f s (at most 2), the last log line says it "
                   "stopped" % took, "exit %s; log tail %r" % (status, lines[-5:]))
        # SIGTERM with a switch's device absent, being tried: a simulator socket that is not
        # there (the library's open can wait 3 s for one to appear: the exporter must not)
        port3 = free_port()
        e3 = Exporter(self.args.exporter, self.work, "e3",
                      ["listen", "127.0.0.1:%d" % port3, "switch",
                       "a0,device=sim:" + os.path.join(self.work, "absent.sock")], self.processes)
        serving = wait_for(lambda: http_request(port3, "/-/healthy")[0] == 200, timeout=10)
        time.sleep(0.3)
        status, took = e3.signal(signal.SIGTERM, timeout=10)
        lines = e3.lines()
        self.point(serving and status == 0 and took <= 2 and lines and
                   lines[-1] == "pktstats-exporter: stopped",
                   "stop: SIGTERM with a device absent (a simulator socket not there), being "
                   "tried again: exit 0 in %.2f s (at most 2), the last log line says it "
                   "stopped" % took,
                   "serving %s, exit %s; log %r" % (serving, status, lines))
        # SIGINT: a second exporter, with the same switch's device and capture running
        self.port2 = free_port()
        e2 = Exporter(self.args.exporter, self.work, "e2",
                      ["listen", "127.0.0.1:%d" % self.port2, "switch",
                       "s0,device=sim:%s,stat-interface=%s" % (self.sock, TAP_NAME)],
                      self.processes)
        up = wait_for(lambda: http_request(self.port2, "/-/ready")[0] == 200 and
                      value(self.scrape(e2), "pktstats_up", switch="s0") == 1 and
                      value(self.scrape(e2), "pktstats_stat_capture_up", switch="s0") == 1,
                      timeout=15, step=0.1)
        status, took = e2.signal(signal.SIGINT, timeout=10)
        lines = e2.lines()
        self.point(up and status == 0 and took <= 2 and lines and
                   lines[-1] == "pktstats-exporter: stopped",
                   "stop: SIGINT (device and capture running): exit 0 in %.2f s, the last log "
                   "line says it stopped" % took,
                   "up %s, exit %s; log tail %r" % (up, status, lines[-5:]))
        self.sim.stop()


if __name__ == "__main__":
    sys.exit(main())
