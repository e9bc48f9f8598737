#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Speed of pktstats-exporter (docs/monitoring.md, "How fast"; issue 30): the stat-packet events
it ingests per second without loss, its CPU share and memory, and the time of one scrape of 8
switches. Run by `make bench`; prints figures, never fails on a figure, only when a run itself
goes wrong.

    bench/bench_exporter.py --exporter build/bin/pktstats-exporter \
        --gen build/bench/decode/gen_stat_pcap [--events 10000000] [--runs 3] [--seconds 1.5]
        [--switches 8] [--scrapes 50] [--feed-pps 2000] [--only ingest|scrape]
        [--ingest build/bench/exporter/bench_ingest]

Needs root (a network namespace, veth pairs, packet sockets): the script re-runs itself under
`unshare --net` (tb/common/pktstats_sim.py's in_private_network(): loopback up, IPv6 off) and
prints one line saying it is skipped when it is not root or tcpreplay, ip or unshare is
missing. Everything lives in the namespace and a scratch directory, both gone at the end;
every process it starts is stopped.

The capture: bench/gen_stat_pcap writes EVENTS valid version-2 stat packets (consecutive
sequence numbers, mostly full 1514-byte frames of about 356 events) to the scratch directory.
tcpreplay replays it preloaded (-K) with --loop: each loop starts the sequence again at 0,
which the exporter counts as a sequence reset, not a gap; a gap is a frame lost.

1. Ingest. A veth pair vethA-vethB; the exporter runs with `switch b0,stat-interface=vethB`
   (no device) and captures vethB. First the ceiling of tcpreplay itself: --topspeed into a
   second pair vethC-vethD whose far end nobody captures (RUNS runs, median). Then the capture
   is replayed into vethA at 1, 2, 4 and 8 Gb/s (tcpreplay --mbps counts frame bytes without
   preamble, FCS and gap: its 1 Gb/s is 1.6% more frames than a full 1 Gb/s line) and at
   --topspeed, RUNS runs at each rate, each as many loops as take SECONDS at the rate (or at
   the ceiling, when lower). When no rate is without loss, 500, 250 and 125 Mb/s follow until
   one is. For each run, from the exporter's /metrics before and after (after: once its event
   count has stood still for 0.3 s and it has read the kernel's drop count again): the events
   it counted (pktstats_stat_events_received_total) against the events replayed (the file's
   events x the frames tcpreplay sent / the file's frames), the kernel's drops
   (pktstats_stat_capture_dropped_frames_total{where="kernel"}), the sequence gaps
   (pktstats_stat_packet_gaps_total), the rate tcpreplay reports ("Rated:"; * when short of
   the rate asked), the drain (the time after the replay until the last event was counted: a
   backlog in the exporter's 64 MiB ring, which at 1 Gb/s holds about half a second, means it
   was falling behind and a longer run would drop), the exporter's rate (events counted over
   the replay and the drain), and its CPU: (utime + stime) from /proc/PID/stat over the replay
   and the drain, as a share of one core, and per event counted; the inverse of the median of
   that last figure is what one core of this machine ingests. Its threads' time runnable but
   waiting for a CPU (/proc/PID/task/*/schedstat) tells a busy machine's part.
   The figure: the highest rate at which every run of the step counted every event (0 drops,
   0 gaps) within DRAIN_OK of its end, and whether the 1 Gb/s target is met: a full 1 Gb/s
   stat stream, 1e9 / ((mean frame bytes + 24) x 8) frames a second of the file's mean events
   a frame, about 29 M events/s. A figure at tcpreplay's ceiling is a lower bound.
2. CPU and memory. The CPU share during the 1 Gb/s runs (median) and the time waited for a
   CPU, and VmRSS and VmHWM (/proc/PID/status) once the exporter has ingested 10^8 events
   (more 1 Gb/s runs after the step until then), against those at its start and at the end.
3. Scrape. A second exporter with 8 switches, each `device=mmap:FILE,stat-interface=vethNk`:
   FILE is a regular 64 KiB file standing in for a BAR (the library's mmap backend) holding the
   identity block (id.type, id.version, id.magic 0x504b5453, id.design_version of the
   library's major, id.git_hash), every block's type and version register (evcap, switch,
   time, stamp, oam, flowlat, mac) and, in the other registers, counters (fixed pseudo-random
   values below 2^24), so that the exporter finds every block and reads every register set as
   on a board. A feeder process (this script, --feed) sends the capture's first 2000 frames
   round and round into the 8 other veth ends, FEED_PPS frames a second each, during the
   scrapes (tcpreplay at a low rate spins on a CPU: 8 of them would starve the exporter).
   SCRAPES scrapes of GET /metrics with Prometheus's Accept header (after 2 to warm up), on one
   connection kept open, 50 ms apart: the median and the slowest, the body's size, and the
   registers' own read time (pktstats_device_read_duration_seconds, the slowest switch of each
   scrape). A file measures the exporter's own cost; a board's BAR adds about 1 us per PCIe
   read, about 0.4 ms per switch (the switches are read in parallel, one thread each).
   Then, from part 1 (its exporter, one switch, before it stops): scrapes 0.1 s apart while
   tcpreplay sends at 1 Gb/s for 2 x SECONDS: how many completed during the replay, the median
   and the slowest (a scrape waits for the capture's lock, held while frames are decoded).

Python 3 standard library only.
"""

import argparse
import http.client
import os
import random
import re
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
import pktstats_sim  # noqa: E402

R = pktstats_sim.registers()
HZ = os.sysconf("SC_CLK_TCK")
LINE_OVERHEAD = 24            # preamble 8, FCS 4, inter-frame gap 12 bytes
STEPS = [("1 Gb/s", 1000), ("2 Gb/s", 2000), ("4 Gb/s", 4000), ("8 Gb/s", 8000),
         ("top speed", None)]
DRAIN_OK = 0.25               # s: more after the replay ended means a backlog in the ring
MEMORY_EVENTS = 10 ** 8
PROMETHEUS_ACCEPT = ("application/openmetrics-text;version=1.0.0,"
                     "application/openmetrics-text;version=0.0.1;q=0.75,"
                     "text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
BLOCKS = ("EVCAP", "SWITCH", "TIME", "STAMP", "OAM", "FLOWLAT", "MAC")


def sh(*command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def veth_pair(a, b):
    sh("ip", "link", "add", a, "type", "veth", "peer", "name", b)
    sh("ip", "link", "set", a, "up")
    sh("ip", "link", "set", b, "up")


# ---------------------------------------------------------------------------------------------
# tcpreplay

RATED = re.compile(r"Rated: ([\d.]+) Bps, ([\d.]+) Mbps, ([\d.]+) pps")
ACTUAL = re.compile(r"Actual: (\d+) packets \((\d+) bytes\) sent in ([\d.]+) seconds")
FAILED = re.compile(r"Failed packets:\s+(\d+)")


def tcpreplay_command(interface, pcap, mbps, loops):
    rate = ["--topspeed"] if mbps is None else ["--mbps=%d" % mbps]
    return ["tcpreplay", "-i", interface, "-K"] + rate + ["--loop=%d" % loops, pcap]


def tcpreplay(interface, pcap, mbps, loops):
    """One replay: {packets, bytes, seconds, mbps, pps, failed, started, ended} (started:
    CLOCK_MONOTONIC when the sending began, from its own count of the seconds it sent)."""
    command = tcpreplay_command(interface, pcap, mbps, loops)
    proc = subprocess.run(command, capture_output=True, text=True)
    ended = time.monotonic()
    out = proc.stdout + proc.stderr
    actual, rated = ACTUAL.search(out), RATED.search(out)
    if proc.returncode != 0 or not actual or not rated:
        raise RuntimeError("%s: exit %d:\n%s" % (" ".join(command), proc.returncode, out))
    failed = FAILED.search(out)
    seconds = float(actual.group(3))
    return {"packets": int(actual.group(1)), "bytes": int(actual.group(2)), "seconds": seconds,
            "mbps": float(rated.group(2)), "pps": float(rated.group(3)),
            "failed": int(failed.group(1)) if failed else 0,
            "started": ended - seconds, "ended": ended}


def ceiling(pcap, packets, runs):
    """tcpreplay --topspeed alone into vethC (nobody captures vethD): the median run."""
    results = [tcpreplay("vethC", pcap, None, max(2, round(200_000 / packets)))
               for _ in range(runs)]
    return sorted(results, key=lambda r: r["pps"])[len(results) // 2], results


# ---------------------------------------------------------------------------------------------
# The exporter

class Exporter:
    """One pktstats-exporter process on 127.0.0.1:PORT, its log in the scratch directory."""

    def __init__(self, binary, port, switches, workdir, name):
        self.port = port
        self.log_path = os.path.join(workdir, name + ".log")
        self.command = [binary, "listen", "127.0.0.1:%d" % port]
        for spec in switches:
            self.command += ["switch", spec]
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT)
        self.pid = self.proc.pid
        deadline = time.monotonic() + 10
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("exporter exited %d: %s" % (self.proc.returncode, self.log()))
            try:
                status, _, _ = self.get("/-/ready")
                if status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("exporter not ready after 10 s: " + self.log())
            time.sleep(0.05)

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def get(self, path, accept=None, connection=None):
        """(status, content type, body) of one GET."""
        own = connection is None
        if own:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request("GET", path, headers={"Accept": accept} if accept else {})
            response = connection.getresponse()
            body = response.read()
            return response.status, response.getheader("Content-Type"), body
        finally:
            if own:
                connection.close()

    def metrics(self):
        """{sample name with labels: value} of one scrape (text format 0.0.4)."""
        status, _, body = self.get("/metrics")
        if status != 200:
            raise RuntimeError("GET /metrics: %d" % status)
        samples = {}
        for line in body.decode().splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                samples[name] = float(value)
        return samples

    def cpu_seconds(self):
        with open("/proc/%d/stat" % self.pid) as f:
            fields = f.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / HZ  # utime, stime (fields 14 and 15)

    def wait_ns(self):
        """{thread: ns it spent runnable, waiting for a CPU} (schedstat's second field)."""
        waits = {}
        for tid in os.listdir("/proc/%d/task" % self.pid):
            try:
                with open("/proc/%d/task/%s/schedstat" % (self.pid, tid)) as f:
                    waits[tid] = int(f.read().split()[1])
            except OSError:
                pass
        return waits

    def memory(self):
        """{VmRSS, VmHWM, RssAnon, RssFile, RssShmem} in kB."""
        values = {}
        with open("/proc/%d/status" % self.pid) as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem"):
                    values[key] = int(rest.split()[0])
        return values

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


EVENTS = 'pktstats_stat_events_received_total{switch="b0"}'
DROPS = 'pktstats_stat_capture_dropped_frames_total{switch="b0",where="kernel"}'
IFDROPS = 'pktstats_stat_capture_dropped_frames_total{switch="b0",where="interface"}'
GAPS = 'pktstats_stat_packet_gaps_total{switch="b0"}'
RESETS = 'pktstats_stat_sequence_resets_total{switch="b0"}'


def settle(exporter, ended):
    """Waits until the exporter's event count has stopped moving for 0.3 s and its kernel drop
    count has been read again since the replay ended (it reads it every 0.25 s while
    capturing); returns (the metrics then, seconds from `ended` to the last change)."""
    last, last_change = exporter.metrics()[EVENTS], time.monotonic()
    while True:
        time.sleep(0.05)
        now = time.monotonic()
        value = exporter.metrics()[EVENTS]
        if value != last:
            last, last_change = value, now
        elif now - last_change >= 0.3 and now - ended >= 0.6:
            return exporter.metrics(), max(0.0, last_change - ended)
        if now - ended > 60:
            raise RuntimeError("the exporter's event count still moves 60 s after the replay")


def ingest_run(exporter, pcap, capture, mbps, loops):
    """One replay into vethA while the exporter captures vethB: its figures."""
    before = exporter.metrics()
    cpu, waited = exporter.cpu_seconds(), exporter.wait_ns()
    replay = tcpreplay("vethA", pcap, mbps, loops)
    after, drain = settle(exporter, replay["ended"])
    busy = replay["seconds"] + drain
    cpu = exporter.cpu_seconds() - cpu
    now = exporter.wait_ns()  # the threads that lived throughout (HTTP ones come and go)
    waited = sum(now[t] - waited[t] for t in now if t in waited) / 1e9
    replayed = capture["events"] * replay["packets"] // capture["packets"]
    counted = int(after[EVENTS] - before[EVENTS])
    return {
        "replay": replay, "replayed": replayed, "counted": counted,
        "exact": replay["packets"] == loops * capture["packets"],
        "drops": int(after[DROPS] - before[DROPS]),
        "ifdrops": int(after[IFDROPS] - before[IFDROPS]),
        "gaps": int(after[GAPS] - before[GAPS]),
        "resets": int(after[RESETS] - before[RESETS]),
        "drain": drain, "cpu_share": cpu / busy, "waited_share": waited / busy,
        "cpu_ns_per_event": cpu * 1e9 / counted if counted else float("nan"),
        "events_per_s": replayed / replay["seconds"], "ingested_per_s": counted / busy,
        "total": int(after[EVENTS]),
    }


def clean(run):
    return run["counted"] == run["replayed"] and run["exact"] and run["drops"] == 0 \
        and run["gaps"] == 0 and run["replay"]["failed"] == 0


def clean_step(step):
    """Every run of the step counted every event, each within DRAIN_OK of its end."""
    return all(clean(r) and r["drain"] <= DRAIN_OK for r in step)


def bench_ingest(exporter_binary, pcap, capture, runs, seconds, workdir):
    frame = capture["frame_bytes"]
    line_fps = 1e9 / ((frame + LINE_OVERHEAD) * 8)
    target = line_fps * capture["per_packet"]
    print("1. ingest: %s replayed with tcpreplay -K --loop into vethA; the exporter captures "
          "vethB" % os.path.basename(pcap))
    print("   target: a full 1 Gb/s stat stream, %.1f k frames/s of %.0f bytes (+%d on the line)"
          " x %.1f events = %.1f M events/s" % (line_fps / 1e3, frame, LINE_OVERHEAD,
                                                 capture["per_packet"], target / 1e6))

    top, top_runs = ceiling(pcap, capture["packets"], runs)
    top_events = top["pps"] * capture["per_packet"]
    print("   tcpreplay alone, --topspeed into vethC (nobody captures vethD), %d runs: median "
          "%.0f Mb/s, %.1f k frames/s = %.1f M events/s (runs: %s Mb/s)"
          % (runs, top["mbps"], top["pps"] / 1e3, top_events / 1e6,
             ", ".join("%.0f" % r["mbps"] for r in top_runs)))

    exporter = Exporter(exporter_binary, 9733, ["b0,stat-interface=vethB"], workdir, "ingest")
    idle_memory = exporter.memory()
    memory = None
    rows = []
    try:
        print("   %-9s %3s %9s %7s %12s %12s %7s %7s %5s %6s %6s %6s %6s" % (
            "asked", "run", "sent Mb/s", "M ev/s", "replayed", "counted", "M ev/s", "kernel",
            "gaps", "drain", "CPU", "waited", "ns/ev"))
        steps = list(STEPS)
        while steps:
            label, mbps = steps.pop(0)
            # loops for SECONDS at the rate asked, or at tcpreplay's ceiling when lower
            asked = top["pps"] if mbps is None else min(top["pps"], mbps * 1e6 / 8 / frame)
            loops = max(1, round(seconds * asked / capture["packets"]))
            step = []
            for run in range(runs):
                result = ingest_run(exporter, pcap, capture, mbps, loops)
                step.append(result)
                r = result["replay"]
                short = mbps is not None and r["mbps"] < 0.99 * mbps
                print("   %-9s %3d %8.0f%s %7.2f %12d %12d %7.2f %7d %5d %5.2fs %5.0f%% %5.0f%% "
                      "%6.1f%s" % (label if run == 0 else "", run + 1, r["mbps"],
                                   "*" if short else " ",
                                   result["events_per_s"] / 1e6, result["replayed"],
                                   result["counted"], result["ingested_per_s"] / 1e6,
                                   result["drops"], result["gaps"], result["drain"],
                                   100 * result["cpu_share"], 100 * result["waited_share"],
                                   result["cpu_ns_per_event"], "" if clean(result) else
                                   "  LOST %d" % (result["replayed"] - result["counted"])),
                      flush=True)
            rows.append((label, mbps, step))
            if not steps and not any(clean_step(st) for _, _, st in rows) \
                    and min(m for _, m, _ in rows if m) > 125:
                # no step without loss: below 1 Gb/s, halving, until one is clean
                half = min(m for _, m, _ in rows if m) // 2
                steps.append(("%d Mb/s" % half, half))
            if mbps == 1000:
                # the memory figure once 10^8 events are in: more 1 Gb/s loops if need be
                total, more = step[-1]["total"], 0
                while total < MEMORY_EVENTS:
                    total = ingest_run(exporter, pcap, capture, mbps, loops)["total"]
                    more += 1
                if more:
                    print("   (%d more 1 Gb/s runs, not shown, to reach %.0e events)"
                          % (more, MEMORY_EVENTS))
                memory = (total, exporter.memory())
        final_memory = exporter.memory()
        loaded = scrapes_under_load(exporter, pcap, capture, seconds * 2)
    finally:
        exporter.stop()
    print("   sent Mb/s, M ev/s: tcpreplay's report (* short of the rate asked), and the "
          "events it sent per second; "
          "replayed: the events it sent; counted, M ev/s: the exporter's count and its rate "
          "over the replay and the drain; kernel: frames the kernel dropped (the ring full); "
          "drain: the time after the replay until the last event was counted; CPU: the "
          "exporter's utime + stime over the replay and the drain, of one core; waited: its "
          "threads runnable, waiting for a CPU; ns/ev: its CPU per event counted")

    best = None
    for label, mbps, step in rows:
        ok = clean_step(step)
        rate = statistics.median(r["events_per_s"] for r in step)
        if ok and (best is None or rate > best[1]):
            best = (label, rate, statistics.median(r["replay"]["mbps"] for r in step))
    gigabit = next(step for _, mbps, step in rows if mbps == 1000)
    reached = statistics.median(r["replay"]["mbps"] for r in gigabit) >= 0.99 * 1000
    ns_per_event = statistics.median(r["cpu_ns_per_event"] for _, _, step in rows
                                     for r in step if r["counted"])
    bound = best and best[1] >= 0.97 * top_events
    if best:
        print("   figure: %.1f M events/s with 0 drops and 0 gaps (%s asked, %.0f Mb/s sent; "
              "every run of the step counted every event, within %.2f s of the replay's end)%s"
              % (best[1] / 1e6, best[0], best[2], DRAIN_OK,
                 "; a lower bound: tcpreplay's own ceiling on veth" if bound else ""))
    else:
        print("   figure: no step without loss")
    gigabit_ok = clean_step(gigabit)
    sent = statistics.median(r["replay"]["mbps"] for r in gigabit)
    if reached:
        verdict = "met" if gigabit_ok else "NOT met"
    elif gigabit_ok:
        verdict = ("not measurable here: tcpreplay reached only %.0f Mb/s (no loss up to "
                   "there)" % sent)
    elif all(clean(r) for r in gigabit):
        verdict = ("NOT met: no event lost, but the exporter fell behind (drain up to %.2f s) "
                   "already at the %.0f Mb/s tcpreplay reached"
                   % (max(r["drain"] for r in gigabit), sent))
    else:
        verdict = "NOT met: events lost already at the %.0f Mb/s tcpreplay reached" % sent
    print("   1 Gb/s target (%.1f M events/s): %s" % (target / 1e6, verdict))
    print("   the exporter's CPU per event counted, median of every run: %.1f ns: one core of "
          "this machine ingests at most %.1f M events/s (%.2f of the target)"
          % (ns_per_event, 1e3 / ns_per_event, 1e9 / ns_per_event / target))
    return {"gigabit": gigabit, "memory": memory, "idle_memory": idle_memory,
            "final_memory": final_memory, "rows": rows, "loaded": loaded}


def scrapes_under_load(exporter, pcap, capture, seconds):
    """Scrapes of the ingest exporter while tcpreplay sends at 1 Gb/s for about `seconds`,
    0.1 s apart: (their times, the replay's seconds)."""
    loops = max(1, round(seconds * 1e9 / 8 / capture["frame_bytes"] / capture["packets"]))
    replay = subprocess.Popen(tcpreplay_command("vethA", pcap, 1000, loops),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started = time.monotonic()
    times = []
    connection = http.client.HTTPConnection("127.0.0.1", exporter.port, timeout=60)
    try:
        time.sleep(0.3)
        while replay.poll() is None:
            start = time.monotonic()
            exporter.get("/metrics", PROMETHEUS_ACCEPT, connection)
            times.append(time.monotonic() - start)
            time.sleep(0.1)
    finally:
        connection.close()
        replay.wait()
    ended = time.monotonic()
    settle(exporter, ended)
    return times, ended - started


def bench_cpu_memory(ingest):
    gigabit = ingest["gigabit"]
    print("2. CPU and memory")
    print("   CPU during the 1 Gb/s runs (utime + stime / (replay + drain)): median %.0f%% of one "
          "core (runs: %s); its threads waited for a CPU %.0f%% of that time (median)"
          % (100 * statistics.median(r["cpu_share"] for r in gigabit),
             ", ".join("%.0f%%" % (100 * r["cpu_share"]) for r in gigabit),
             100 * statistics.median(r["waited_share"] for r in gigabit)))

    def mb(kb):
        return "%.1f MB" % (kb / 1024)
    idle = ingest["idle_memory"]
    print("   resident memory at start, before any stat packet: VmRSS %s, VmHWM %s"
          % (mb(idle["VmRSS"]), mb(idle["VmHWM"])))
    total, memory = ingest["memory"]
    print("   after %.3g events ingested: VmRSS %s (anonymous %s, file %s, shared %s), VmHWM %s"
          % (total, mb(memory["VmRSS"]), mb(memory["RssAnon"]), mb(memory["RssFile"]),
             mb(memory["RssShmem"]), mb(memory["VmHWM"])))
    final = ingest["final_memory"]
    print("   after every run (%.3g events): VmRSS %s, VmHWM %s (the file pages are the 64 MiB "
          "capture ring, mapped whole into the process when the interface is opened)"
          % (ingest["rows"][-1][2][-1]["total"], mb(final["VmRSS"]), mb(final["VmHWM"])))


# ---------------------------------------------------------------------------------------------
# 3. Scrape

def write_registers(path, seed):
    """A 64 KiB register file: identity, every block's type and version, counters."""
    regs = bytearray(0x10000)
    rng = random.Random(seed)
    skip = ("_MASK", "_SHIFT", "_WIDTH", "_RESET", "_VALUE", "_BASE", "_SIZE")
    for name, address in R.items():
        if not name.endswith(skip) and address < 0x8000 and address % 4 == 0 \
                and not name.startswith("ID_"):
            struct.pack_into("<I", regs, address, rng.randrange(1 << 24))
    for block in ("ID",) + BLOCKS:
        for reg in ("TYPE", "VERSION"):
            struct.pack_into("<I", regs, R["%s_%s" % (block, reg)], R["%s_%s_VALUE" % (block, reg)])
    struct.pack_into("<I", regs, R["ID_MAGIC"], R["ID_MAGIC_VALUE"])
    struct.pack_into("<I", regs, R["ID_DESIGN_VERSION"], R["ID_DESIGN_VERSION_VALUE"])
    struct.pack_into("<I", regs, R["ID_GIT_HASH"], 0x5e1f7e57)
    with open(path, "wb") as f:
        f.write(regs)


def subset(pcap, path, frames):
    """The first `frames` frames of pcap."""
    with open(pcap, "rb") as src, open(path, "wb") as dst:
        dst.write(src.read(24))
        for _ in range(frames):
            record = src.read(16)
            if len(record) < 16:
                break
            dst.write(record + src.read(struct.unpack("<IIII", record)[2]))


def feed(pcap, interfaces, pps):
    """Sends the frames of pcap round and round into each interface, pps a second each, in
    bursts every 10 ms, until killed (the scrape's load; tcpreplay at a low rate spins on a
    CPU, one process per interface would starve the exporter)."""
    frames = []
    with open(pcap, "rb") as f:
        f.read(24)
        while True:
            record = f.read(16)
            if len(record) < 16:
                break
            frames.append(f.read(struct.unpack("<IIII", record)[2]))
    sockets = []
    for interface in interfaces:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((interface, 0))
        sockets.append(s)
    period, sent = 0.01, 0
    start = time.monotonic()
    while True:
        due = int((time.monotonic() - start) * pps)
        for _ in range(due - sent):
            frame = frames[sent % len(frames)]
            for s in sockets:
                s.send(frame)
            sent += 1
        time.sleep(period)


def bench_scrape(exporter_binary, pcap, switches, scrapes, feed_pps, workdir, loaded):
    print("3. scrape of %d switches: device=mmap:FILE (a 64 KiB file as the BAR), "
          "stat-interface=vethN, each fed %d stat packets a second" % (switches, feed_pps))
    feed_pcap = os.path.join(workdir, "feed.pcap")
    subset(pcap, feed_pcap, 2000)
    specs = []
    for k in range(switches):
        path = os.path.join(workdir, "regs%d.bin" % k)
        write_registers(path, k)
        veth_pair("vethS%d" % k, "vethN%d" % k)
        specs.append("s%d,device=mmap:%s,stat-interface=vethN%d" % (k, path, k))
    exporter = Exporter(exporter_binary, 9734, specs, workdir, "scrape")
    feeder = None
    try:
        feeder = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--feed", feed_pcap,
                                   str(feed_pps)] + ["vethS%d" % k for k in range(switches)])
        time.sleep(1.5)  # every capture under way
        connection = http.client.HTTPConnection("127.0.0.1", exporter.port, timeout=30)
        times, reads, sizes = [], [], set()
        content_type = None
        read_re = re.compile(rb'^pktstats_device_read_duration_seconds\{switch="s\d+"\} (\S+)',
                             re.M)
        up_re = re.compile(rb'^pktstats_up\{switch="s\d+"\} 1$', re.M)
        events_re = re.compile(rb'^pktstats_stat_events_received_total\{switch="s\d+"\} (\S+)',
                               re.M)
        first_events = None
        for i in range(scrapes + 2):  # two to warm up
            start = time.monotonic()
            status, content_type, body = exporter.get("/metrics", PROMETHEUS_ACCEPT, connection)
            elapsed = time.monotonic() - start
            if status != 200:
                raise RuntimeError("GET /metrics: %d" % status)
            ups = len(up_re.findall(body))
            if ups != switches:
                raise RuntimeError("%d of %d switches up:\n%s" % (ups, switches, exporter.log()))
            events = sum(float(v) for v in events_re.findall(body))
            if i >= 2:
                times.append(elapsed)
                reads.append(max(float(v) for v in read_re.findall(body)))
                sizes.add(len(body))
                lines = body.count(b"\n")
            else:
                first_events = events
            time.sleep(0.05)
        connection.close()
        fed = events - first_events
    finally:
        if feeder:
            feeder.kill()
            feeder.wait()
        exporter.stop()
    registers = sorted(set(int(n) for n in re.findall(r"(\d+) registers a scrape", exporter.log())))
    print("   each switch: every block found, %s registers read a scrape in one "
          "pktstats_read_many batch; all %d up at every scrape; %.1f M events ingested in all "
          "during the scrapes" % ("/".join(map(str, registers)) or "?", switches, fed / 1e6))
    print("   %d scrapes of GET /metrics (Accept: Prometheus's, answered %s), 50 ms apart, one "
          "connection: median %.2f ms, slowest %.2f ms; target under 50 ms: %s"
          % (scrapes, content_type, 1e3 * statistics.median(times), 1e3 * max(times),
             "met" if max(times) < 0.05 else "NOT met"))
    print("   body: %s bytes, %d lines; the registers' read, slowest switch of each scrape: "
          "median %.3f ms" % ("/".join("%d" % s for s in sorted(sizes)) if len(sizes) < 3 else
                              "%d-%d" % (min(sizes), max(sizes)), lines,
                              1e3 * statistics.median(reads)))
    n = max(registers) if registers else 0
    print("   a file stands in for the BAR: these are the exporter's own costs; a board's BAR "
          "adds about 1 us per PCIe read, %d reads = about %.1f ms per switch (the switches "
          "are read in parallel, one thread each)" % (n, n * 1e-3))
    if loaded and loaded[0]:
        times, replay_seconds = loaded
        print("   scrapes of the ingest exporter (1 switch) while it ingests at 1 Gb/s, 0.1 s "
              "apart: %d in the %.1f s replay, median %.1f ms, slowest %.1f ms%s"
              % (len(times), replay_seconds, 1e3 * statistics.median(times), 1e3 * max(times),
                 "" if max(times) < 0.05 else ": NOT under 50 ms"))


# ---------------------------------------------------------------------------------------------

def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--feed":  # the scrape's feeder: PCAP PPS IFACE...
        feed(sys.argv[2], sys.argv[4:], int(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exporter", default=os.path.join(ROOT, "build/bin/pktstats-exporter"))
    parser.add_argument("--gen", default=os.path.join(ROOT, "build/bench/decode/gen_stat_pcap"))
    parser.add_argument("--events", type=int, default=10_000_000,
                        help="events in the capture replayed (default 10^7)")
    parser.add_argument("--runs", type=int, default=3, help="runs at each rate (default 3)")
    parser.add_argument("--seconds", type=float, default=1.5,
                        help="length of one replay (default 1.5 s)")
    parser.add_argument("--switches", type=int, default=8)
    parser.add_argument("--scrapes", type=int, default=50)
    parser.add_argument("--feed-pps", type=int, default=2000,
                        help="stat packets per second into each switch's interface while "
                             "scraping (default 2000: about 0.7 M events/s each)")
    parser.add_argument("--only", choices=("ingest", "scrape"),
                        help="one part: ingest (1 and 2) or scrape (3)")
    parser.add_argument("--ingest", help="bench/bench_ingest.c's program: first, the exporter's "
                                         "ingest of the same capture in memory (0.)")
    options = parser.parse_args()
    options.exporter = os.path.abspath(options.exporter)
    options.gen = os.path.abspath(options.gen)

    title = "== exporter (bench/bench_exporter.py)"
    why = None
    if os.geteuid() != 0:
        why = "needs root (a network namespace, veth pairs, packet sockets)"
    elif not all(shutil.which(t) for t in ("unshare", "ip")):
        why = "needs unshare and ip"
    elif not shutil.which("tcpreplay"):
        why = "needs tcpreplay (apt-get install tcpreplay)"
    else:
        why = next(("no %s: `make bench` builds it" % os.path.relpath(p, ROOT)
                    for p in (options.exporter, options.gen) if not os.access(p, os.X_OK)), None)
    if why:
        print("%s: skipped, %s" % (title, why))
        return 0
    pktstats_sim.in_private_network()  # re-runs this script under unshare --net
    print(title, flush=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-exporter-") as workdir:
        try:
            pcap = os.path.join(workdir, "stat.pcap")
            out = subprocess.run([options.gen, pcap, str(options.events)], check=True,
                                 capture_output=True, text=True).stdout.split()
            packets, events = int(out[0]), int(out[2])
            size = os.path.getsize(pcap)
            frame_bytes = (size - 24 - 16 * packets) / packets
            capture = {"packets": packets, "events": events, "per_packet": events / packets,
                       "frame_bytes": frame_bytes}
            print("capture: %d stat packets, %d events (%.1f a packet), frames of %.0f bytes "
                  "on average, %.1f MB" % (packets, events, events / packets, frame_bytes,
                                           size / 1e6))
            print("load average at the start: %.2f (%d cores)" % (os.getloadavg()[0],
                                                                  os.cpu_count()), flush=True)
            if options.ingest and options.only != "scrape":
                # 0. the exporter's own code, in memory: what the veth replay adds to is known
                print("0. in memory (%s, the capture read once, 9 rounds, medians):"
                      % os.path.relpath(options.ingest, ROOT), flush=True)
                memory = subprocess.run([os.path.abspath(options.ingest), pcap, "9"],
                                        check=True, capture_output=True, text=True)
                print("".join("   " + line + "\n" for line in memory.stdout.splitlines()),
                      end="", flush=True)
            ingest = None
            if options.only != "scrape":
                veth_pair("vethA", "vethB")
                veth_pair("vethC", "vethD")
                ingest = bench_ingest(options.exporter, pcap, capture, options.runs,
                                      options.seconds, workdir)
                bench_cpu_memory(ingest)
            if options.only != "ingest":
                bench_scrape(options.exporter, pcap, options.switches, options.scrapes,
                             options.feed_pps, workdir,
                             ingest["loaded"] if options.only != "scrape" else None)
        except (RuntimeError, subprocess.CalledProcessError) as e:
            detail = getattr(e, "stderr", None)
            print("bench_exporter: %s%s" % (e, (": " + detail.strip()) if detail else ""),
                  file=sys.stderr)
            return 1
    print("load average at the end: %.2f (%d cores); %.0f s in all"
          % (os.getloadavg()[0], os.cpu_count(), time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
