#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""System tests of the pktstats CLI: the simulator is configured and read through the CLI only,
and the stat packets it emits, decoded with the production decoder (tb/cli/stat_dump), show the
effect of every setting.

    tb/cli/test_cli_system.py build/asan/bin/pktstats build/bin/pktstats-sim \
        build/asan/tb/cli/stat_dump [--keep DIR]

Each scenario starts pktstats-sim with --socket and --wait and traffic generators, configures
it with `pktstats fdb add`, `queue set`, `capture set`, `capture start`; then sends the
simulator's `start` on its socket (its run control, not a register: the only protocol word
this test sends), waits by polling `pktstats -j timer show`, acts through the CLI,
stops the simulator with SIGINT and decodes its pcaps:

  headers       every header field set (MACs, IPs, UDP ports, TTL, TOS) is in every stat packet;
                only queue 1 of the traffic's queues 1 and 3, only arrivals and drops; resolution
                128ns (c = 4) in every header and consistent with the packets' send times;
                max-length respected; stat packets only on the output port chosen; sequence
                numbers from 0 without gaps; `counters show` equals the packets and events in
                the pcap; `counters clear` zeroes every counter (capture, switch, queues).
  flush         flush-timeout never: after the traffic, no stat packet until `capture flush`,
                then exactly one with all the events, sent after the flush.
  timeout       flush-timeout 20us at sparse traffic: every packet leaves 20 us (within a few
                hundred ns of serialization) after its first event.
Prints TAP.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_harness import Simulator, Tap, run_cli  # noqa: E402

CLOCK_NS = 8
ARRIVAL, DEPARTURE, DROP = 1, 2, 3


class Failure(Exception):
    pass


class Run:
    """One simulator run operated through the CLI."""

    def __init__(self, tools, work, name, sim_args):
        self.pktstats, self.sim_binary, self.stat_dump = tools
        self.work = os.path.join(work, name)
        os.makedirs(self.work)
        # pcaps in the run's directory
        sim_args = [a.replace(":out=", ":out=%s/" % self.work) for a in sim_args]
        self.sim = Simulator(self.sim_binary, self.work,
                             ["--wait", "--duration", "10s"] + sim_args)

    def cli(self, *args):
        status, out, err = run_cli(self.pktstats, list(args), device=self.sim.device)
        if status != 0:
            raise Failure("pktstats %s: exit %s: %s" % (" ".join(args), status, err.strip()))
        return out

    def json(self, *args):
        return json.loads(self.cli("-j", *args))

    def cycles(self):
        return self.json("timer", "show")["cycles"]

    def wait_cycles(self, cycles):
        """Polls the timer through the CLI until `cycles` more clocks have passed."""
        target = self.cycles() + cycles
        deadline = time.monotonic() + 120
        while True:
            now = self.cycles()
            if now >= target:
                return now
            if time.monotonic() > deadline:
                raise Failure("the simulator did not reach cycle %d (at %d)" % (target, now))
            time.sleep(0.02)

    def finish(self):
        status = self.sim.stop()
        if status != 0:
            raise Failure("pktstats-sim exited %s: %s" % (status, self.sim.log()))

    def packets(self, pcap):
        """Every frame of an out pcap, decoded; stat packets have "stat": true."""
        proc = subprocess.run([self.stat_dump, os.path.join(self.work, pcap)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise Failure("stat_dump %s: %s" % (pcap, proc.stderr))
        return [json.loads(line) for line in proc.stdout.splitlines()]


def check_sequence(tap, name, stats):
    sequences = [p["sequence"] for p in stats]
    tap.point(sequences == list(range(len(stats))),
              "%s: sequence numbers 0..%d without gaps" % (name, len(stats) - 1),
              "sequences %s" % sequences[:40])


# ---------------------------------------------------------------------------------------------

HEADERS = {
    "dst_mac": "02:aa:bb:cc:dd:ee", "src_mac": "02:11:22:33:44:55", "src_ip": "192.168.7.1",
    "dst_ip": "192.168.7.200", "src_port": 40000, "dst_port": 40001, "ttl": 33, "tos": 0xb8,
}


def scenario_headers(tap, tools, work):
    # Ports 0 and 2 send 1.4 Gb/s to port 1 (queue 1 drops at its 40-word limit); CPU port 4
    # sends to port 3. Stat packets leave from CPU port 5.
    run = Run(tools, work, "headers", [
        "--port", "0:gen=0.7,to=1,count=2000,seed=11", "--port", "2:gen=0.7,to=1,count=2000,seed=12",
        "--port", "4:gen=0.05,to=3,count=1000,seed=13",
        "--port", "1:out=out1.pcap", "--port", "3:out=out3.pcap", "--port", "5:out=stat.pcap"])
    try:
        for port in range(4):
            run.cli("fdb", "add", "02:00:00:00:00:%02x" % (port + 1), "port", str(port), "static")
        run.cli("queue", "set", "1", "limit", "40")
        run.cli("capture", "set", "resolution", "128ns", "queues", "1", "events", "arrival,drop",
                "dst-mac", HEADERS["dst_mac"], "src-mac", HEADERS["src_mac"],
                "src-ip", HEADERS["src_ip"], "dst-ip", HEADERS["dst_ip"],
                "src-port", str(HEADERS["src_port"]), "dst-port", str(HEADERS["dst_port"]),
                "ttl", str(HEADERS["ttl"]), "tos", "0xb8", "output-ports", "5",
                "max-length", "400", "flush-timeout", "200us")
        shown = run.json("capture", "show")
        tap.point(shown["resolution"] == 4 and shown["queues"] == [1]
                  and shown["events"] == ["arrival", "drop"] and shown["output_ports"] == [5]
                  and shown["max_length"] == 400 and shown["flush_timeout"] == 200000
                  and all(shown[k] == v for k, v in HEADERS.items()),
                  "headers: capture show reads back what capture set wrote", shown)
        run.cli("counters", "clear")
        run.cli("capture", "start")
        run.sim.request("start")
        run.wait_cycles(4_000_000 // CLOCK_NS)  # 4 ms: the traffic takes about 3 ms
        run.cli("capture", "stop")
        run.wait_cycles(50_000 // CLOCK_NS)     # the last packet leaves
        counters = run.json("counters", "show")
        queues = {q["queue"]: q for q in run.json("queue", "show")["queues"]}
        run.cli("counters", "clear")
        cleared = run.json("counters", "show")
        cleared_queues = run.json("queue", "show")["queues"]
        run.finish()

        frames = run.packets("stat.pcap")
        stats = [p for p in frames if p["stat"]]
        tap.point(len(stats) >= 10 and len(stats) == len(frames),
                  "headers: %d stat packets on port 5, nothing else" % len(stats),
                  "%d frames, %d stat packets" % (len(frames), len(stats)))
        if not stats:
            return
        wrong = [p for p in stats if any(p[k] != v for k, v in HEADERS.items())]
        tap.point(not wrong, "headers: MACs, IPs, UDP ports, TTL, TOS as set in every packet",
                  wrong[:1])
        check_sequence(tap, "headers", stats)
        tap.point(all(p["resolution"] == 4 and p["version"] == 2 for p in stats),
                  "headers: resolution c=4 (128 ns) in every packet",
                  sorted({p["resolution"] for p in stats}))
        # Ticks of 128 ns: each packet's last event happened before it was sent and less than
        # its flush timeout before (the stat port is never busy enough to delay it longer).
        late = [(p["time_ns"], (p["last_tick"] << 4) * CLOCK_NS) for p in stats
                if not 0 <= p["time_ns"] - (p["last_tick"] << 4) * CLOCK_NS <= 220_000]
        tap.point(not late, "headers: event times at 128 ns ticks agree with the send times",
                  late[:5])
        events = [e for p in stats for e in p["events"]]
        tap.point({e[1] for e in events} == {1}, "headers: events of queue 1 only (mask 1, "
                  "traffic on 1 and 3)", sorted({e[1] for e in events}))
        types = {e[0] for e in events}
        tap.point(types == {ARRIVAL, DROP}, "headers: arrivals and drops only, no departure",
                  sorted(types))
        tap.point(queues[3]["frames_stored"] > 0 and queues[1]["frames_dropped"] > 0,
                  "headers: queue 3 had traffic and queue 1 drops (queue show)",
                  (queues[3], queues[1]))
        tap.point(all(p["ip_total_length"] <= 400 for p in stats)
                  and max(p["ip_total_length"] for p in stats) > 400 - 16,
                  "headers: max-length 400 respected and reached",
                  sorted({p["ip_total_length"] for p in stats})[-5:])
        elsewhere = [p for pcap in ("out1.pcap", "out3.pcap") for p in run.packets(pcap)
                     if p["stat"] and p["dst_port"] == HEADERS["dst_port"]]
        tap.point(not elsewhere, "headers: no stat packet on ports 1 and 3 (output-ports 5)",
                  len(elsewhere))
        capture = counters["capture"]
        tap.point(capture["packets_sent"] == len(stats) and
                  capture["events_sent"] == len(events) and capture["events_missed"] == 0,
                  "headers: counters show = %d packets, %d events of the pcap"
                  % (len(stats), len(events)), capture)
        tap.point(counters["switch"]["frames_looked_up"] >= 5000,
                  "headers: switch counters counted the traffic", counters["switch"])
        nonzero = {k: v for group in cleared.values() for k, v in group.items() if v}
        nonzero.update({"queue %d %s" % (q["queue"], k): v for q in cleared_queues
                        for k, v in q.items() if k not in ("queue", "limit", "occupancy") and v})
        tap.point(not nonzero, "headers: counters clear zeroes capture, switch and queue "
                  "counters", nonzero)
    finally:
        run.sim.kill()


def scenario_flush(tap, tools, work):
    # 20 frames from port 0 to port 1, then silence; flush-timeout never.
    run = Run(tools, work, "flush", [
        "--port", "0:gen=0.1,to=1,count=20,seed=21", "--port", "7:out=stat.pcap"])
    try:
        run.cli("fdb", "add", "02:00:00:00:00:02", "port", "1", "static")
        run.cli("capture", "set", "resolution", "0", "queues", "all", "events", "all",
                "output-ports", "7", "max-length", "9000", "flush-timeout", "never")
        run.cli("capture", "start")
        run.sim.request("start")
        run.wait_cycles(1_000_000 // CLOCK_NS)  # 1 ms: the 20 frames take 0.14 ms
        before = run.json("counters", "show")["capture"]
        flush_cycle = run.cycles()
        run.cli("capture", "flush")
        run.wait_cycles(20_000 // CLOCK_NS)
        after = run.json("counters", "show")["capture"]
        run.finish()
        stats = [p for p in run.packets("stat.pcap") if p["stat"]]
        tap.point(before["packets_sent"] == 0,
                  "flush: flush-timeout never: no stat packet before capture flush", before)
        tap.point(after["packets_sent"] == 1 and len(stats) == 1,
                  "flush: capture flush sends exactly one packet",
                  "%s, %d in the pcap" % (after, len(stats)))
        if len(stats) == 1:
            events = stats[0]["events"]
            tap.point(len(events) == 40 and after["events_sent"] == 40,
                      "flush: it holds the 20 arrivals and 20 departures",
                      "%d events, counters %s" % (len(events), after))
            tap.point(stats[0]["time_ns"] >= flush_cycle * CLOCK_NS,
                      "flush: sent after the flush command (%d ns >= %d ns)"
                      % (stats[0]["time_ns"], flush_cycle * CLOCK_NS))
    finally:
        run.sim.kill()


def scenario_timeout(tap, tools, work):
    # Sparse frames (one every ~67 us): each opens a packet that the 20 us timeout closes.
    run = Run(tools, work, "timeout", [
        "--port", "0:gen=0.01,to=1,count=15,seed=31", "--port", "6:out=stat.pcap"])
    timeout_ns = 20_000
    try:
        run.cli("fdb", "add", "02:00:00:00:00:02", "port", "1", "static")
        run.cli("capture", "set", "resolution", "8ns", "queues", "0-7", "events", "0x7",
                "output-ports", "6", "flush-timeout", "20us")
        run.cli("capture", "start")
        run.sim.request("start")
        run.wait_cycles(2_000_000 // CLOCK_NS)
        counters = run.json("counters", "show")["capture"]
        run.finish()
        stats = [p for p in run.packets("stat.pcap") if p["stat"]]
        tap.point(len(stats) >= 10 and counters["packets_sent"] == len(stats),
                  "timeout: %d packets for 15 sparse frames" % len(stats), counters)
        check_sequence(tap, "timeout", stats)
        # The timeout counts from when the first event was packed, a few clocks after it.
        delays = [p["time_ns"] - p["start_tick"] * CLOCK_NS for p in stats]
        tap.point(delays and all(timeout_ns <= d <= timeout_ns + 256 for d in delays),
                  # 256 ns: packing and serialization take a few clocks; a wrong unit is off by more
                "timeout: every packet leaves 20 us after its first event (%s ns)"
                  % (sorted(set(delays))[:4],), delays)
    finally:
        run.sim.kill()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("pktstats")
    parser.add_argument("sim")
    parser.add_argument("stat_dump")
    parser.add_argument("--keep", help="keep the runs' files in this directory")
    args = parser.parse_args()
    tools = tuple(os.path.abspath(p) for p in (args.pktstats, args.sim, args.stat_dump))
    tap = Tap()
    work = args.keep or tempfile.mkdtemp(prefix="pktstats-cli-system.")
    if args.keep:
        os.makedirs(work, exist_ok=True)
    try:
        for scenario in (scenario_headers, scenario_flush, scenario_timeout):
            try:
                scenario(tap, tools, work)
            except (Failure, RuntimeError, OSError, ValueError, KeyError) as e:
                tap.point(False, "%s ran to its end" % scenario.__name__, repr(e))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
