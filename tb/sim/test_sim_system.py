#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""System tests of the built simulator (issue 3): the stat packets pktstats-sim emits, decoded
by the production decoder, rebuild the true queue occupancy event for event, and conserve
frames against the simulator's own pcaps.

    tb/sim/test_sim_system.py build/bin/pktstats-sim build/asan/tb/sim/check_sim_run
        [--seed S] [--only NAME] [--keep DIR]

Each scenario starts pktstats-sim with --socket --wait, writes a static forwarding entry
02:00:00:00:00:<p+1> -> port p for every port (so that the rx pcaps tell which queue each frame
went to), configures capture through the socket's text protocol, sends `start`, acts at given
simulated times (disable/enable, resolution changes) by polling `time`, lets the traffic end and
the queues drain, flushes, reads the capture counters, stops the simulator with SIGINT and runs
tb/sim/check_sim_run on the truth CSV and the pcaps. Its TAP points are renumbered into this
program's TAP, after each scenario's own points (what the scenario must have exercised: drops,
every queue busy, several resolutions...).

Randomized parts (generator seeds, the pcaps written here) come from the seed. Without --seed
every scenario runs with the fixed seeds (FIXED_SEEDS: 1, and each seed that ever failed) and
with one new seed, all printed; --seed S (which
may be repeated) runs those seeds only and replays a run's traffic exactly. (When the register
writes land relative to the traffic depends on how fast the client answers, to within a few
hundred clocks, so a toggle or resolution change may move slightly between replays.)
"""

import argparse
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
import pktstats_sim  # noqa: E402
from tap_output import Tap  # noqa: E402

CLOCK_NS = 8
PORTS = 8
MAC_PORTS = 4
NEVER = "10s"  # --duration: the driver stops the run with SIGINT long before


R = pktstats_sim.registers()


class Simulator(pktstats_sim.Simulator):
    """A pktstats-sim run with --wait, its truth CSV and the pcaps of every port in `work`."""

    def __init__(self, binary, work, args):
        self.truth = os.path.join(work, "truth.csv")
        self.out = [os.path.join(work, "out%d.pcap" % p) for p in range(PORTS)]
        self.rx = [os.path.join(work, "rx%d.pcap" % p) for p in range(PORTS)]
        command = ["--duration", NEVER, "--truth", self.truth] + args
        for p in range(PORTS):
            command += ["--port", "%d:out=%s" % (p, self.out[p]),
                        "--port", "%d:rx=%s" % (p, self.rx[p])]
        super().__init__(binary, work, command, wait=True)

    def wait_until(self, cycle):
        """Returns the first cycle >= `cycle` the simulator reports (it answers every 256 clocks)."""
        now = self.cycle()
        while now < cycle:
            now = self.cycle()
        return now


# ---------------------------------------------------------------------------------------------
# pcap files written here (inputs with real inter-arrival times)

def port_mac(port):
    return bytes([2, 0, 0, 0, 0, port + 1])


def ip_checksum(header):
    total = sum(struct.unpack("!%dH" % (len(header) // 2), header))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def udp_frame(source, destination, size, sequence):
    """An Ethernet/IPv4/UDP frame of `size` bytes (no FCS) from port `source` to port
    `destination` (None: broadcast), to UDP port 9 so that it is never taken for a stat packet."""
    dst = b"\xff" * 6 if destination is None else port_mac(destination)
    ip_len = size - 14
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, ip_len, sequence & 0xffff, 0x4000, 64, 17, 0,
                     bytes([10, 0, 0, source + 1]),
                     bytes([255] * 4) if destination is None else bytes([10, 0, 0, destination + 1]))
    ip = ip[:10] + struct.pack("!H", ip_checksum(ip)) + ip[12:]
    payload = struct.pack("!Q", sequence) + bytes((i & 0xff) for i in range(ip_len - 28 - 8))
    udp = struct.pack("!HHHH", 40000 + source, 9, ip_len - 20, 0)
    return dst + port_mac(source) + b"\x08\x00" + ip + udp + payload


def write_pcap(path, frames, nanosecond):
    """frames: (time_ns, bytes). Microsecond pcap is what tcpdump writes by default."""
    magic = 0xa1b23c4d if nanosecond else 0xa1b2c3d4
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", magic, 2, 4, 0, 0, 65535, 1))
        for t, data in frames:
            sub = t % 10**9 if nanosecond else (t % 10**9) // 1000
            f.write(struct.pack("<IIII", t // 10**9, sub, len(data), len(data)))
            f.write(data)


def last_pcap_time_ns(path):
    """Time of the last record of a pcap written by the simulator (nanosecond, little-endian)."""
    last = 0
    with open(path, "rb") as f:
        header = f.read(24)
        if struct.unpack("<I", header[:4])[0] != 0xa1b23c4d:
            raise RuntimeError(path + ": not a nanosecond pcap")
        while True:
            record = f.read(16)
            if len(record) < 16:
                return last
            seconds, nanoseconds, captured, _ = struct.unpack("<IIII", record)
            last = seconds * 10**9 + nanoseconds
            f.seek(captured, 1)


# ---------------------------------------------------------------------------------------------
# One scenario

class Scenario:
    def __init__(self, name, ports, stat_port, traffic_end_ns, cpu_rate=None, queue_limits=None,
                 resolution=0, queue_mask=0xff, udp_port=None, flush_timeout=20000, actions=(),
                 conserve=True, inputs=None):
        self.name = name
        self.ports = ports                # --port arguments (inputs)
        self.stat_port = stat_port
        self.traffic_end_ns = traffic_end_ns  # after `start`, about when the last frame is sent
        # frames all inputs send: the count= of the generators (every one has one, so that
        # the traffic ends), plus the frames of the pcaps written by `inputs`
        self.frames = sum(int(m) for p in ports for m in re.findall(r"count=(\d+)", p))
        self.cpu_rate = cpu_rate
        self.queue_limits = queue_limits or {}
        self.resolution = resolution
        self.queue_mask = queue_mask
        self.udp_port = udp_port
        self.flush_timeout = flush_timeout
        self.actions = actions            # (ns after start, "disable" | "enable" | ("resolution", c))
        self.conserve = conserve
        self.inputs = inputs              # function(work) -> (--port arguments, frames), or None


def run_scenario(tap, sim_binary, checker, scenario, seed, work, expect):
    tap.comment("scenario %s" % scenario.name)
    args = ["--seed", str(seed)] + [a for p in scenario.ports for a in ("--port", p)]
    if scenario.cpu_rate:
        args += ["--cpu-rate", scenario.cpu_rate]
    wall = time.monotonic()
    sim = Simulator(sim_binary, work, args)
    try:
        sim.add_port_entries()
        for q, limit in scenario.queue_limits.items():
            sim.write(R["SWITCH_QUEUE_LIMIT_0"] + 4 * q, limit)
        sim.write(R["EVCAP_OUTPUT_PORTS"], 1 << scenario.stat_port)
        sim.write(R["EVCAP_FLUSH_TIMEOUT"], scenario.flush_timeout)
        sim.write(R["EVCAP_RESOLUTION"], scenario.resolution)
        sim.write(R["EVCAP_QUEUE_MASK"], scenario.queue_mask)
        if scenario.udp_port:
            sim.write(R["EVCAP_UDP_DESTINATION_PORT"], scenario.udp_port)
        # Each window: capture surely off before the enabling write was sent, surely on from
        # the `time` after its reply until the `time` before the disabling write, surely off
        # from the `time` after that write's reply (None: until the end).
        off_before = sim.cycle()
        sim.write(R["EVCAP_CONTROL"], 1)
        windows = [[off_before, sim.cycle(), None, None]]
        sim.request("start")
        start = sim.cycle()  # traffic starts within 256 clocks before this
        for at_ns, action in scenario.actions:
            before = sim.wait_until(start + at_ns // CLOCK_NS)
            if action == "disable":
                sim.write(R["EVCAP_CONTROL"], 0)
                windows[-1][2:] = [before, sim.cycle()]
            elif action == "enable":
                sim.write(R["EVCAP_CONTROL"], 1)
                windows.append([before, sim.cycle(), None, None])
            else:
                sim.write(R["EVCAP_RESOLUTION"], action[1])
        # Every frame of the inputs looked up by the switch (or, when the MACs dropped some, no
        # new frame for 50000 clocks after the traffic's planned end); then SIGINT, with the
        # queues perhaps still full and a stat packet open: ending the run must drain the
        # switch and flush the capture by itself.
        sim.wait_until(start + scenario.traffic_end_ns // CLOCK_NS)
        give_up = start + (scenario.traffic_end_ns + 20_000_000) // CLOCK_NS
        looked_up, since = -1, 0
        while True:
            now, count = sim.cycle(), sim.read64(R["SWITCH_FRAMES_LOOKED_UP"])
            if count >= scenario.frames or (count == looked_up and now - since >= 50000):
                break
            if count != looked_up:
                looked_up, since = count, now
            if now > give_up:
                raise RuntimeError("frames still arriving 20 ms after the traffic's planned end")
            sim.wait_until(now + 2000)
        end = sim.cycle()
    finally:
        status = sim.stop()
    summary = sim.output()
    tap.comment(summary)
    ending = pktstats_sim.parse_summary(summary)
    tap.point(status == 0, "%s: simulator ran %.2f ms (%d clocks) and stopped cleanly" %
              (scenario.name, (end - start) * CLOCK_NS / 1e6, end), sim.log())
    # The summary's port table: port, link (2 words), frames in, bytes in, MAC drops, ...
    received = dropped = 0
    for line in summary.splitlines():
        words = line.split()
        if len(words) > 5 and words[0].isdigit() and words[1] in ("eth", "cpu"):
            received += int(words[3])
            dropped += int(words[5])
    tap.point(received == scenario.frames, "%s: all %d frames sent arrived at the MACs (%d), %d of "
              "them dropped by the MACs' receive FIFOs" % (scenario.name, scenario.frames, received,
                                                           dropped))

    # The end of the run: drained, then flushed (when capture was on at the end) after the last
    # frame went into the switch, or its events would be left unsent.
    last_rx = max(last_pcap_time_ns(path) for path in sim.rx)
    flush = ending["flush"]
    capture_on_at_end = windows[-1][2] is None
    tap.point(ending["complete"] and (flush is not None) == capture_on_at_end and
              (flush is None or last_rx < flush * CLOCK_NS),
              "%s: the run ended drained and %s (last frame into the switch at %d ns)"
              % (scenario.name, "flushed at %d ns" % (flush * CLOCK_NS) if flush is not None
                 else "with capture off", last_rx))
    missed, events, packets = ending["missed"], ending["events"], ending["packets"]

    command = [checker, "--truth", sim.truth, "--stat-port", str(scenario.stat_port),
               "--queue-mask", str(scenario.queue_mask),
               "--hw-counters", "%d,%d,%d" % (missed, events, packets),
               "--figures", os.path.join(work, "figures.txt")]
    if scenario.udp_port:
        command += ["--udp-port", str(scenario.udp_port)]
    for p in range(PORTS):
        command += ["--out", "%d:%s" % (p, sim.out[p]), "--rx", "%d:%s" % (p, sim.rx[p])]
    for window in windows:
        command += ["--window", ":".join("-" if x is None else str(x) for x in window)]
    if scenario.conserve:
        command.append("--conserve")
    tap.comment("checker: " + " ".join(command))
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    points = 0
    for line in result.stdout.splitlines():
        m = re.match(r"^(ok|not ok) \d+ - (.*)$", line)
        if m:
            points += 1
            tap.point(m.group(1) == "ok", "%s: %s" % (scenario.name, m.group(2)))
        elif not re.match(r"^1\.\.\d+$", line):
            print(line if line.startswith("#") else "# " + line)
    tap.point(result.returncode in (0, 1) and points > 0,
              "%s: checker ran (exit %d, %d points)" % (scenario.name, result.returncode, points))

    figures = {}
    try:
        with open(os.path.join(work, "figures.txt")) as f:
            for line in f:
                key, value = line.strip().split("=", 1)
                figures[key] = [int(x) for x in value.split(",")]
    except OSError:
        pass
    queues = {q: figures.get("q%d" % q, [0] * 5) for q in range(PORTS)}  # arr, dep, drop, maxlen, peak
    for ok, name in expect(queues, figures, missed, windows):
        tap.point(ok, "%s: %s" % (scenario.name, name))

    # Totals: the decoded events per queue and type against the switch's own counters at the
    # end of the run (frames stored, removed, dropped: counted by the queues, not by evcap).
    # Masked queues must have no events. With capture toggled, the events of the off windows
    # are in the counters only: the decoded totals may only fall short.
    complete = len(windows) == 1 and windows[0][2] is None
    problems = []
    for q in range(PORTS):
        counted = ending["queues"].get(q)
        decoded = queues[q][:3]
        if counted is None:
            problems.append("queue %d: no counters in the summary" % q)
        elif not (scenario.queue_mask >> q) & 1:
            if decoded != [0, 0, 0]:
                problems.append("queue %d (not captured): %s decoded" % (q, decoded))
        elif (decoded != counted) if complete else any(d > c for d, c in zip(decoded, counted)):
            problems.append("queue %d: decoded %s, switch %s" % (q, decoded, counted))
    tap.point(not problems and any(ending["queues"].get(q, [0])[0] for q in range(PORTS)),
              "%s: decoded arrivals, departures and drops per queue %s the switch's counters at "
              "the end of the run" % (scenario.name, "equal" if complete else "within"),
              "; ".join(problems))
    tap.comment("%s: wall %.1f s, windows %s" % (scenario.name, time.monotonic() - wall, windows))


# ---------------------------------------------------------------------------------------------
# The scenarios

def incast(seed):
    # Three MAC ports, 60..1514 bytes at 60% of line rate each, into port 3 (1 Gb/s): 1.8 Gb/s
    # for a 1 Gb/s port behind a 1000-word limit. Stat packets leave port 3 too, ahead of its
    # queue, and a CPU port sends it a little as well.
    n = 250  # about 2.7 ms at 0.6 of line rate with 811 bytes on the wire on average
    s = Scenario("incast", ["%d:gen=0.6,size=60-1514,to=3,count=%d" % (p, n) for p in (0, 1, 2)]
                 + ["4:gen=0.01,size=60-1514,to=3,count=25"],
                 stat_port=3, traffic_end_ns=3_000_000, queue_limits={3: 1000})

    def expect(queues, figures, missed, windows):
        return [(queues[3][2] > 50, "queue 3 congested: %d drops, %d arrivals, peak %d words"
                 % (queues[3][2], queues[3][0], queues[3][4]))]
    return s, expect


def worst_case(seed):
    # Issue 3's worst case: every port at 1 Gb/s (CPU ports too), every input at line rate with
    # 60-byte frames, each frame to a random other port weighted by that port's frame rate, so
    # that every queue is loaded to about its line rate and tail-drops behind a 48-word limit;
    # stat packets on MAC port 3, which also carries queue 3. Nothing may be missed.
    rng = random.Random(seed * 7 + 2)
    duration_ns = 3_000_000
    frame_ns = [672 if p < MAC_PORTS else 512 for p in range(PORTS)]  # 60 bytes at 1 Gb/s

    def inputs(work):
        paths, total = [], 0
        for p in range(PORTS):
            others = [d for d in range(PORTS) if d != p]
            weights = [1.0 / frame_ns[d] for d in others]
            frames = []
            for i in range(duration_ns // frame_ns[p]):
                d = rng.choices(others, weights)[0]
                frames.append((0, udp_frame(p, d, 60, i)))
            path = os.path.join(work, "in%d.pcap" % p)
            write_pcap(path, frames, nanosecond=True)
            paths.append("%d:in=%s,timing=back-to-back" % (p, path))
            total += len(frames)
        return paths, total
    s = Scenario("worst-case", [], stat_port=3, traffic_end_ns=duration_ns, cpu_rate="1e9",
                 queue_limits={q: 48 for q in range(PORTS)}, flush_timeout=125000, inputs=inputs)

    def expect(queues, figures, missed, windows):
        busy = [queues[q][1] * frame_ns[q] / duration_ns for q in range(PORTS)]
        return [
            (all(queues[q][2] > 0 for q in range(PORTS)),
             "every queue drops: %s" % [queues[q][2] for q in range(PORTS)]),
            (all(b > 0.75 for b in busy[:3] + busy[4:]) and busy[3] > 0.05,
             "every queue busy (departures x frame time / duration: %s; queue 3 shares its link "
             "with the stat packets)" % ", ".join("%.2f" % b for b in busy)),
            (missed == 0, "events_missed = 0 (%d events, %.3f per clock, in %d stat packets on a "
             "1 Gb/s port)" % (figures.get("events", [0])[0],
                               figures.get("events", [0])[0] / (duration_ns / CLOCK_NS),
                               figures.get("packets", [0])[0])),
        ]
    return s, expect


def mixed_sizes(seed):
    # IMIX and uniform 60..1514-byte frames (64..1518 with FCS) from MAC and CPU ports, two of
    # them into queue 1; stat packets on CPU port 5 to a non-default UDP port.
    n = 400
    ports = ["0:gen=0.9,size=imix,to=1,count=%d" % n, "2:gen=0.5,size=60-1514,to=1,count=%d" % (n // 2),
             "1:gen=0.7,size=imix,to=0,count=%d" % n, "3:gen=0.9,size=60-1514,to=2,count=%d" % (n // 2),
             "6:gen=0.05,size=60-1514,to=3,count=150"]
    s = Scenario("mixed-sizes", ports, stat_port=5, traffic_end_ns=3_000_000, udp_port=30000)

    def expect(queues, figures, missed, windows):
        return [(max(queues[q][3] for q in range(PORTS)) == 190 and queues[1][2] > 0,
                 "1514-byte frames (190 words) seen; queue 1 drops (%d)" % queues[1][2])]
    return s, expect


def cpu_ports(seed):
    # Traffic from and to the CPU ports at their default 8 Gb/s, broadcast from one of them;
    # only queues 0 and 4..7 captured (queue mask 0xf1); stat packets on MAC port 3.
    # Counts for at most 2.4 ms at these rates (CPU: 8e9 * rate / (8 * ~790 or ~364 bytes)).
    ports = ["4:gen=0.2,size=60-1514,to=0,count=600", "5:gen=0.5,size=imix,to=6,count=2400",
             "6:gen=0.6,size=60-1514,to=7,count=1800", "7:gen=0.01,count=200",
             "0:gen=0.5,size=imix,to=4,count=300"]
    s = Scenario("cpu-ports", ports, stat_port=3, traffic_end_ns=2_600_000, queue_mask=0xf1,
                 queue_limits={0: 600})

    def expect(queues, figures, missed, windows):
        return [(all(queues[q][0] > 0 for q in (0, 4, 5, 6, 7)) and queues[0][2] > 0 and
                 all(queues[q] == [0, 0, 0, 0, 0] for q in (1, 2, 3)),
                 "events on queues 0, 4..7 (queue 0 drops: %d), none on the masked queues 1..3"
                 % queues[0][2])]
    return s, expect


def toggle_capture(seed):
    # Capture disabled at 0.8 ms and enabled again at 1.6 ms, disabled at 2.2 ms and enabled
    # at 2.3 ms, with steady congesting traffic: only the enabled windows are compared, and
    # each re-enable starts a sequence at 0 with a fresh snapshot of the queue sizes.
    # Counts for about 2.5 ms at these rates.
    ports = ["0:gen=0.7,size=imix,to=2,count=580", "1:gen=0.6,size=60-1514,to=2,count=230",
             "3:gen=0.8,to=1,count=3000", "4:gen=0.05,size=imix,to=2,count=340"]
    actions = [(800_000, "disable"), (1_600_000, "enable"), (2_200_000, "disable"), (2_300_000, "enable"),
               (3_000_000, "disable")]
    s = Scenario("toggle-capture", ports, stat_port=7, traffic_end_ns=3_300_000, actions=actions,
                 conserve=False, queue_limits={2: 1500})

    def expect(queues, figures, missed, windows):
        return [(figures.get("sequence_starts", [0])[0] == 3 and len(windows) == 3 and queues[2][2] > 0,
                 "three capture windows, each with its own sequence; queue 2 drops (%d)" % queues[2][2])]
    return s, expect


def resolution_changes(seed):
    # The resolution changes 4 times during congesting traffic: c = 0, 3, 7, 0, 2.
    n = 250
    ports = ["0:gen=0.8,size=imix,to=3,count=%d" % (2 * n), "1:gen=0.6,size=60-1514,to=3,count=%d" % n,
             "2:gen=0.9,to=0,count=%d" % (4 * n), "5:gen=0.02,size=imix,to=1,count=150"]
    actions = [(500_000, ("resolution", 3)), (1_000_000, ("resolution", 7)),
               (1_500_000, ("resolution", 0)), (2_000_000, ("resolution", 2))]
    s = Scenario("resolution-changes", ports, stat_port=6, traffic_end_ns=3_000_000,
                 actions=actions, queue_limits={3: 1200})

    def expect(queues, figures, missed, windows):
        seen = figures.get("resolutions", [0])[0]
        return [(seen == 0x8d and queues[3][2] > 0,
                 "packets at resolutions 0, 2, 3 and 7 (mask 0x%02x); queue 3 drops (%d)" % (seen, queues[3][2]))]
    return s, expect


def pcap_input(seed):
    # Captures with real inter-arrival times, written here as microsecond pcap: exponential
    # gaps (mean 8 us), bursts faster than the wire (the MAC serializes them), frames of
    # 60..1514 bytes to ports and broadcast, then a 5.5 ms silence and more traffic. The
    # flush timeout is off, so the packet open across the silence needs a timestamp event for
    # the gap: 2^19 ticks at c = 0 are 4.19 ms, and the queues take up to about 0.45 ms after
    # the silence begins to drain (seed 795595328: the last event 0.44 ms into a 4.5 ms
    # silence left a gap of 521,356 clocks, too short), so the silence has 1.3 ms to spare.
    # Stat packets on MAC port 2.
    rng = random.Random(seed * 7 + 6)
    sources = (0, 1, 4, 7)

    def inputs(work):
        paths, total = [], 0
        for p in sources:
            frames, i = [], 0
            origin = 1_700_000_000_000_000_000 + p * 12345  # a wall-clock-like first timestamp
            t = origin
            while t - origin < 7_600_000:
                if 1_500_000 <= t - origin < 7_000_000:
                    t = origin + 7_000_000  # the silence
                burst = rng.random() < 0.15
                for _ in range(rng.randint(3, 12) if burst else 1):
                    size = rng.choice([60, 60, 64, 128, 590, 1000, 1514, rng.randint(60, 1514)])
                    d = rng.choice([x for x in range(PORTS) if x != p] + [None])
                    frames.append((t, udp_frame(p, d, size, i)))
                    i += 1
                    t += rng.randint(0, 2000) if burst else 0
                t += int(rng.expovariate(1 / 8_000)) + 100
            path = os.path.join(work, "capture%d.pcap" % p)
            write_pcap(path, frames, nanosecond=False)
            paths.append("%d:in=%s" % (p, path))
            total += len(frames)
        return paths, total
    s = Scenario("pcap-input", [], stat_port=2, traffic_end_ns=7_700_000, inputs=inputs,
                 queue_limits={3: 400, 5: 400}, flush_timeout=0)

    def expect(queues, figures, missed, windows):
        arrivals = sum(queues[q][0] for q in range(PORTS))
        packets, stamps = figures.get("packets", [0])[0], figures.get("timestamps", [0])[0]
        return [(arrivals > 1000 and stamps > packets,
                 "the captures went through (%d arrivals); %d timestamp events in %d packets"
                 % (arrivals, stamps, packets))]
    return s, expect


SCENARIOS = [("incast", incast), ("worst-case", worst_case), ("mixed-sizes", mixed_sizes),
             ("cpu-ports", cpu_ports), ("toggle-capture", toggle_capture),
             ("resolution-changes", resolution_changes), ("pcap-input", pcap_input)]


# Seed 1, then seeds that once failed: 795595328 (pcap-input's silence too short, see there).
FIXED_SEEDS = [1, 795595328]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("simulator")
    parser.add_argument("checker")
    parser.add_argument("--seed", type=int, action="append", help="seed (repeatable)")
    parser.add_argument("--only", action="append", help="run only this scenario (repeatable)")
    parser.add_argument("--keep", help="keep the run's files in this directory")
    options = parser.parse_args()
    seeds = options.seed or FIXED_SEEDS + [int(time.time()) % 1000000007]
    tap = Tap()
    tap.comment("seeds %s (replay one: %s SIMULATOR CHECKER --seed S [--only SCENARIO])"
                % (" ".join(map(str, seeds)), sys.argv[0]))
    simulator = os.path.abspath(options.simulator)
    checker = os.path.abspath(options.checker)
    base = options.keep or tempfile.mkdtemp(prefix="pktstats-system-")
    start = time.monotonic()
    try:
        for seed, (name, make) in ((seed, s) for seed in seeds for s in SCENARIOS):
            if options.only and name not in options.only:
                continue
            scenario, expect = make(seed)
            if len(seeds) > 1:
                scenario.name = "%s/seed %d" % (name, seed)
            work = os.path.join(base, "%s-%d" % (name, seed))
            os.makedirs(work, exist_ok=True)
            if scenario.inputs:
                paths, frames = scenario.inputs(work)
                scenario.ports = scenario.ports + paths
                scenario.frames += frames
            try:
                run_scenario(tap, simulator, checker, scenario, seed, work, expect)
            except Exception as error:  # a broken run is a failure, not a crash of the suite
                tap.point(False, "%s: run" % scenario.name, repr(error))
    finally:
        if not options.keep:
            shutil.rmtree(base, ignore_errors=True)
    tap.comment("total wall %.1f s" % (time.monotonic() - start))
    print("1..%d" % tap.n)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
