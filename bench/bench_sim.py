#!/usr/bin/env python3
"""Benchmark of the whole-switch simulator, run by `make bench` (issue 3). Prints figures; it
never fails on a figure (benchmarks are not tests), only when a run itself goes wrong.

Three sections:

1. Verilator speed: build/bin/pktstats-sim with all 8 ports at line rate (minimum frames,
   broadcast, CPU ports at their default 8 Gb/s so the switch's datapath is busy every clock),
   capture enabled with stat packets on port 0 (configured through the register socket), several
   runs; the median of the simulator's own "clocks/s" (wall clock) and of clocks per CPU second
   of the process (the figure to trust on a busy machine). With --sim-stubbed, each run of it is
   followed by one of the same simulator built with the three latency engines (oam_block,
   stamp_block, flowlat_block) replaced by pass-through stubs (bench/engine_stubs/, the
   Makefile's build/bench/sim-stubbed/pktstats-sim), with the same arguments: its figures beside
   the real one's, then the medians of both over the same interleaved runs and their ratio,
   what the engines cost a busy switch while idle (docs/simulator.md, "Speed"). Each of these
   runs must have forwarded frames and sent stat packets. Each run is followed by two of the
   network simulator: two switches (+50 and -50 ppm) joined by a 100 m cable, every other port
   of each at line rate, capture on both, on one thread and on two (--threads); its figures
   count both switches' clocks. With --sim-stubbed, the engines' cost is then also counted
   rather than timed: the instructions of a busy clock of each simulator (valgrind's count of
   0.6 ms of the same traffic less that of 0.2 ms, over the clocks between), the same on any
   machine, where the wall clock of a shared one varies by half from run to run.
   Then sparse runs (one 60-byte frame per ms on average, issue 17's idle case), with idle
   clocks skipped and clocked: simulated time per wall second against the busy switch's.
2. Icarus speed: the same RTL under Icarus Verilog (tb/core/pktstats_core_icarus_tb.v, the same
   kind of load), a short run; the Verilator/Icarus ratio of this invocation.
3. Event headroom: stat packets on the 1 Gb/s port 0, all 8 inputs at line rate (CPU ports at
   1 Gb/s), minimum frames, every frame unicast so that every queue is busy and the four MAC
   queues, fed by the CPU ports faster than they drain, drop. Then a growing share of each
   port's frames is broadcast (each one 6 more queue events than a unicast frame) until
   evcap.events_missed, read through the socket at the end of the run, is not 0.

--only verilator runs section 1 alone.

Python 3 standard library only. Usage: bench/bench_sim.py [--sim PATH] [--sim-stubbed PATH]
[--icarus-vvp PATH] [--only verilator] ...
"""

import argparse
import os
import re
import resource
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tb", "common"))
import pktstats_sim  # noqa: E402

CLOCK_NS = 8
PORTS = 8
STAT_PORT = 0                      # a 1 Gb/s MAC port

# Registers (docs/regmap.md), from the generated header
REGS = pktstats_sim.registers()
EVCAP_CONTROL = REGS["EVCAP_CONTROL"]              # bit 0: enable
EVCAP_OUTPUT_PORTS = REGS["EVCAP_OUTPUT_PORTS"]    # bit p: stat packets out of port p
EVCAP_EVENTS_MISSED = REGS["EVCAP_EVENTS_MISSED"]  # 64-bit counters: low word first
EVCAP_EVENTS_SENT = REGS["EVCAP_EVENTS_SENT"]

SUMMARY_CLOCKS = re.compile(r"= (\d+) clocks \(traffic from clock (\d+)\), wall ([\d.]+) s, "
                            r"(\d+) clocks/s")
# A network run (--switches N): every switch's clocks together.
NETWORK_CLOCKS = re.compile(r"^network: (\d+) switches, .* = (\d+) clocks in all \(traffic from .*\), "
                            r"wall ([\d.]+) s, (\d+) clocks/s", re.M)


# ---------------------------------------------------------------------------------------------
# The simulator, driven through its register socket

def children_cpu_seconds():
    """CPU time of the child processes waited for so far. Speeds are also given per CPU
    second: on a busy machine the wall-clock figures measure the neighbours as much as us."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Simulator(pktstats_sim.Simulator):
    """One pktstats-sim run with --socket and --wait: configure, `start`, then either let it
    reach its --duration or read registers and stop it with SIGINT (which still prints the
    summary). A context manager: leaving it early kills the simulator, which may have no end."""

    def __init__(self, sim, args, workdir):
        self.cpu_before = children_cpu_seconds()
        super().__init__(sim, workdir, args, wait=True)

    # What start_capture sends, for the figures' readers.
    START_CAPTURE_TEXT = (f"then on the socket: write {EVCAP_OUTPUT_PORTS:#x} {1 << STAT_PORT:#x}, "
                          f"write {EVCAP_CONTROL:#x} 1, start")

    def start_capture(self):
        """Stat packets out of STAT_PORT, capture on, then the traffic."""
        self.write(EVCAP_OUTPUT_PORTS, 1 << STAT_PORT)
        self.write(EVCAP_CONTROL, 1)
        self.request("start")

    def finish(self, interrupt):
        """Ends the run (SIGINT, or waits for --duration) and returns the parsed summary."""
        status = self.stop(interrupt)
        cpu_seconds = children_cpu_seconds() - self.cpu_before
        out = self.output()
        if status != 0:
            raise RuntimeError(f"pktstats-sim exited with {status}: {self.log().strip()}")
        match = SUMMARY_CLOCKS.search(out)
        if not match:
            raise RuntimeError("pktstats-sim: no summary in its output:\n" + out)
        return {
            "clocks": int(match[1]),
            "traffic_start": int(match[2]),
            "clocks_per_s": int(match[4]),
            # The whole process: start-up, waiting for `start` and the summary included (ms).
            "clocks_per_cpu_s": int(match[1]) / cpu_seconds,
            "output": out,
        }


def show_command(command, workdir=None):
    """The command of a run; the temporary directory (socket, pcaps), if any, shown as $DIR."""
    text = " ".join(shlex.quote(word) for word in command)
    print("  $ " + (text.replace(workdir, "$DIR") if workdir else text))


# ---------------------------------------------------------------------------------------------
# 1. Verilator speed

def one_switch_args(duration):
    return [word for p in range(PORTS) for word in ("--port", f"{p}:gen=1,size=60")] + \
        ["--duration", duration]


def two_switch_args(duration, threads):
    """Two switches joined by a 100 m cable between their ports 1, every other port of each
    generating 60-byte broadcasts at line rate: the cable carries floods both ways at line rate,
    all 16 ports busy. Capture on both, set by --write (no socket: a run with one stays on one
    thread)."""
    args = ["--switches", "2", "--switch", "0:ppm=50", "--switch", "1:ppm=-50,offset=1.5s",
            "--cable", "0.1-1.1,length=100m", "--duration", duration, "--threads", str(threads)]
    for k in (0, 1):
        args += ["--write", f"{k}:evcap.output_ports={1 << STAT_PORT:#x}", "--write", f"{k}:evcap.control=1"]
        args += [word for p in range(PORTS) if p != 1 for word in ("--port", f"{k}.{p}:gen=1,size=60")]
    return args


def network_run(sim, args):
    """One run of the network: its summary's figures."""
    cpu_before = children_cpu_seconds()
    result = subprocess.run([sim] + args, capture_output=True, text=True, timeout=900)
    cpu_seconds = children_cpu_seconds() - cpu_before
    match = NETWORK_CLOCKS.search(result.stdout)
    if result.returncode != 0 or not match:
        raise RuntimeError(f"pktstats-sim exited with {result.returncode}: {result.stderr.strip()}")
    return {"clocks": int(match[2]), "clocks_per_s": int(match[4]),
            "clocks_per_cpu_s": int(match[2]) / cpu_seconds}


def one_switch_run(sim, duration, workdir, show):
    """One run of the busy switch: its summary's figures. A run in which the switch forwarded
    nothing or sent no stat packet measures nothing: an error."""
    with Simulator(sim, one_switch_args(duration), workdir) as simulator:
        if show:
            show_command(simulator.command, workdir)
            print("  " + Simulator.START_CAPTURE_TEXT)
        simulator.start_capture()
        summary = simulator.finish(interrupt=False)
    try:
        parsed = pktstats_sim.parse_summary(summary["output"])
    except ValueError as e:
        raise RuntimeError(f"{sim}: {e}:\n{summary['output']}") from e
    # What the switch did: frames out of its queues, stat packets sent
    summary["frames_out"] = sum(removed for _, removed, _ in parsed["queues"].values())
    summary["stat_packets"] = parsed["packets"]
    if not summary["frames_out"] or not summary["stat_packets"]:
        raise RuntimeError(f"{sim}: the busy switch forwarded {summary['frames_out']} frames and "
                           f"sent {summary['stat_packets']} stat packets: not a measurement")
    return summary


def bench_verilator(sim, runs, duration, workdir, stubbed=None):
    print(f"== pktstats-sim (Verilator): {runs} runs of {duration} simulated, all 8 ports at "
          "line rate, 60-byte broadcast frames, capture on, stat packets on port 0;")
    if stubbed:
        print("  each run followed by the same with the latency engines replaced by pass-through "
              "stubs (oam_block, stamp_block,")
        print(f"  flowlat_block: bench/engine_stubs/), {stubbed}, the same arguments;")
    print("  each run side by side with two switches joined by a cable, all ports busy, on one "
          "thread and on two")
    rates, cpu_rates, one_thread, two_threads = [], [], [], []
    stub_rates, stub_cpu_rates = [], []
    for run in range(runs):
        summary = one_switch_run(sim, duration, workdir, show=run == 0)
        rates.append(summary["clocks_per_s"])
        cpu_rates.append(summary["clocks_per_cpu_s"])
        if stubbed:
            stub = one_switch_run(stubbed, duration, workdir, show=False)
            stub_rates.append(stub["clocks_per_s"])
            stub_cpu_rates.append(stub["clocks_per_cpu_s"])
        for threads, figures in ((1, one_thread), (2, two_threads)):
            args = two_switch_args(duration, threads)
            if run == 0:
                show_command([sim] + args)
            figures.append(network_run(sim, args)["clocks_per_s"])
        print(f"  run {run + 1}: one switch {rates[-1] / 1e6:.3f} M clocks/s, {cpu_rates[-1] / 1e6:.3f} M "
              f"per CPU second ({summary['clocks']} clocks, traffic from clock "
              f"{summary['traffic_start']}); two switches {one_thread[-1] / 1e6:.3f} M switch clocks/s "
              f"on one thread, {two_threads[-1] / 1e6:.3f} M on two")
        if stubbed:
            print(f"    engines stubbed: one switch {stub_rates[-1] / 1e6:.3f} M clocks/s, "
                  f"{stub_cpu_rates[-1] / 1e6:.3f} M per CPU second ({stub['clocks']} clocks); "
                  f"{stub['frames_out']} frames out of the queues and {stub['stat_packets']} stat "
                  f"packets, {summary['frames_out']} and {summary['stat_packets']} with the engines")
    median, cpu_median = statistics.median(rates), statistics.median(cpu_rates)
    print(f"  median, one switch: {median / 1e6:.3f} M clocks/s, {cpu_median / 1e6:.3f} M per CPU second "
          "(target: 2 M clocks/s on one core; 0.419 M with -O2 at the start of issue 17)")
    if stubbed:
        stub_median, stub_cpu_median = statistics.median(stub_rates), statistics.median(stub_cpu_rates)
        print(f"  median, one switch, engines present, idle: {median / 1e6:.3f} M clocks/s; stubbed: "
              f"{stub_median / 1e6:.3f} M; ratio {stub_median / median:.2f} (per CPU second "
              f"{cpu_median / 1e6:.3f} M and {stub_cpu_median / 1e6:.3f} M: "
              f"{stub_cpu_median / cpu_median:.2f})")
    one, two = statistics.median(one_thread), statistics.median(two_threads)
    print(f"  median, two switches and a cable: {one / 1e6:.3f} M switch clocks/s on one thread "
          f"({one / 2 / median:.2f} x one switch's per switch), {two / 1e6:.3f} M on two threads: "
          f"{two / one:.2f} x (target: 1.6 x)")
    return median, cpu_median


def instructions_per_clock(sim):
    """Instructions of one busy clock of `sim`: valgrind (cachegrind, no cache model) counts two
    runs of the busy traffic, 0.2 and 0.6 ms, capture on through --write; the difference over the
    clocks between them (start-up, the drain and the summary cancel). Returns it and the command
    of the longer run."""
    counts, clocks = [], []
    for duration in ("0.2ms", "0.6ms"):
        command = ["valgrind", "--tool=cachegrind", "--cache-sim=no",
                   "--cachegrind-out-file=/dev/null", sim] + one_switch_args(duration) + \
            ["--write", f"evcap.output_ports={1 << STAT_PORT:#x}", "--write", "evcap.control=1"]
        result = subprocess.run(command, capture_output=True, text=True, timeout=1800)
        refs = re.search(r"I\s+refs:\s+([\d,]+)", result.stderr)
        summary = SUMMARY_CLOCKS.search(result.stdout)
        if result.returncode != 0 or not refs or not summary:
            raise RuntimeError(f"valgrind {sim} exited with {result.returncode}: "
                               f"{result.stderr.strip()[-500:]}")
        counts.append(int(refs[1].replace(",", "")))
        clocks.append(int(summary[1]))
    return (counts[1] - counts[0]) / (clocks[1] - clocks[0]), command


def bench_instructions(sim, stubbed):
    print("== instructions per busy clock (valgrind; deterministic: the figure to compare across "
          "runs and machines)")
    if shutil.which("valgrind") is None:
        print("  skipped: valgrind is not installed (`make deps` installs it)")
        return
    engines, command = instructions_per_clock(sim)
    show_command(command)
    stub, _ = instructions_per_clock(stubbed)
    print(f"  {engines:.0f} instructions a clock with the latency engines idle, {stub:.0f} with them "
          f"stubbed: ratio {engines / stub:.2f} (target 1.33 or less, issue 31)")


# A sparse run (issue 17): one 60-byte frame per millisecond on average on port 0, nothing else:
# almost every clock is idle. One frame's 84 byte times are 672 ns, so that is 0.000672 of line rate.
SPARSE_ARGS = ["--port", "0:gen=0.000672,size=60,to=1"]


def sparse_rate(command):
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    match = SUMMARY_CLOCKS.search(result.stdout)
    if result.returncode != 0 or not match:
        raise RuntimeError(f"pktstats-sim exited with {result.returncode}: {result.stderr.strip()}")
    return int(match[4])


def bench_sparse(sim, runs, duration, busy_clocks_per_s):
    print(f"== sparse: {runs} runs of {duration} simulated, one 60-byte frame per ms on average "
          "into port 0 (to port 1), no capture; idle clocks skipped (the default) and clocked")
    command = [sim] + SPARSE_ARGS + ["--duration", duration]
    show_command(command)
    skipping, clocking = [], []
    for _ in range(runs):
        skipping.append(sparse_rate(command))
        clocking.append(sparse_rate(command + ["--idle-skip=off"]))
    busy_ms = busy_clocks_per_s * CLOCK_NS * 1e-6
    for name, rates in (("skipped", skipping), ("clocked (--idle-skip=off)", clocking)):
        median = statistics.median(rates)
        ms = median * CLOCK_NS * 1e-6
        print(f"  median, idle clocks {name}: {median / 1e6:.3f} M clocks/s, {ms:.1f} ms simulated "
              f"per wall second: {ms / busy_ms:.1f} x the busy switch's {busy_ms:.2f} ms")
    print(f"  skipped against clocked: {statistics.median(skipping) / statistics.median(clocking):.0f} x "
          "(target: 50 x the busy switch)")


# ---------------------------------------------------------------------------------------------
# 2. Icarus speed

def time_icarus(vvp, clocks):
    """Wall and CPU seconds of one run of `clocks` clocks, the command, its last line."""
    command = ["vvp", "-n", vvp, f"+clocks={clocks}"]
    cpu_before = children_cpu_seconds()
    start = time.monotonic()
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = time.monotonic() - start
    cpu = children_cpu_seconds() - cpu_before
    if proc.returncode != 0 or f"clocks {clocks}," not in proc.stdout:
        raise RuntimeError(" ".join(command) + " failed:\n" + proc.stdout)
    return elapsed, cpu, command, proc.stdout.strip().splitlines()[-1]


def bench_icarus(vvp, clocks, runs):
    # vvp's start (loading the design, reset, the register writes) is not simulation speed:
    # each measurement is the difference between a run of WARMUP + clocks and one of WARMUP.
    warmup = 200
    print(f"== Icarus: the same RTL, tb/core/pktstats_core_icarus_tb.v, {clocks} clocks "
          f"(time of a {warmup + clocks}-clock run less a {warmup}-clock one), {runs} runs")
    rates, cpu_rates = [], []
    for run in range(runs):
        short, short_cpu, _, _ = time_icarus(vvp, warmup)
        long, long_cpu, command, last_line = time_icarus(vvp, warmup + clocks)
        if run == 0:
            show_command(command)
            print(f"  {last_line}")
        rates.append(clocks / (long - short))
        cpu_rates.append(clocks / (long_cpu - short_cpu))
        print(f"  run {run + 1}: {rates[-1]:.0f} clocks/s ({long:.2f} s - {short:.2f} s), "
              f"{cpu_rates[-1]:.0f} per CPU second")
    median, cpu_median = statistics.median(rates), statistics.median(cpu_rates)
    print(f"  median: {median:.0f} clocks/s, {cpu_median:.0f} per CPU second")
    return median, cpu_median


# ---------------------------------------------------------------------------------------------
# 3. Event headroom

def mac_address(port):
    return bytes([2, 0, 0, 0, 0, port + 1])


def write_pcap(path, port, destination, broadcast_per_mille, frames):
    """Minimum-size frames (60 bytes, no FCS) from `port` to `destination`'s MAC address,
    `broadcast_per_mille` of them, spread evenly, to the broadcast address instead. The switch
    looks only at the MAC addresses; EtherType 0x88b5 (local experimental) says the rest is
    filler: a frame sequence number, then zeros."""
    unicast = mac_address(destination) + mac_address(port) + b"\x88\xb5"
    broadcast = b"\xff" * 6 + mac_address(port) + b"\x88\xb5"
    records = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)]  # LINKTYPE_ETHERNET
    for i in range(frames):
        is_broadcast = (i + 1) * broadcast_per_mille // 1000 > i * broadcast_per_mille // 1000
        frame = (broadcast if is_broadcast else unicast) + struct.pack(">Q", i)
        frame += bytes(60 - len(frame))
        records.append(struct.pack("<IIII", 0, 0, len(frame), len(frame)) + frame)
    with open(path, "wb") as f:
        f.write(b"".join(records))


def headroom_run(sim, per_mille, duration_ms, workdir):
    """One run of the headroom load with `per_mille` of the frames broadcast: events per
    second (all queue events of the run), events the stat port carried per second, and
    events_missed at the end."""
    # Each port's frames go to the port 4 away: the CPU ports 4..7 (1 Gb/s with no preamble
    # or gap: 1.95 M frames/s) feed the MAC queues 0..3 (1.49 M frames/s), which drop; the MAC
    # ports feed the CPU queues, busy at the MACs' rate. Enough frames for 1.5 times the run.
    frames = int(1.95e6 * duration_ms / 1e3 * 1.5) + 1000
    args = ["--cpu-rate", "1e9"]
    for port in range(PORTS):
        path = os.path.join(workdir, f"port{port}.pcap")
        write_pcap(path, port, (port + 4) % PORTS, per_mille, frames)
        args += ["--port", f"{port}:in={path},timing=back-to-back"]
    with Simulator(sim, args, workdir) as simulator:
        simulator.start_capture()
        stop_at = simulator.cycle() + int(duration_ms * 1e6 / CLOCK_NS)
        while simulator.cycle() < stop_at:
            time.sleep(0.02)
        end = simulator.cycle()
        sent = simulator.read64(EVCAP_EVENTS_SENT)
        missed = simulator.read64(EVCAP_EVENTS_MISSED)
        # Events offered: the queues' counters, read now (they start at 0 at reset, and capture
        # was on before the traffic started), not the summary's, which count the end of the
        # run's drain too. The 24 reads take about 100 us of the run: they are timed at their
        # middle clock.
        before = simulator.cycle()
        offered = sum(simulator.read64(REGS[f"SWITCH_FRAMES_{what}_0"] + 8 * q)
                      for q in range(PORTS) for what in ("STORED", "REMOVED", "DROPPED"))
        offered_at = (before + simulator.cycle()) / 2
        summary = simulator.finish(interrupt=True)
    traffic_s = (offered_at - summary["traffic_start"]) * CLOCK_NS * 1e-9
    return {
        "command": simulator.command,
        "events_per_s": offered / traffic_s,
        "sent_per_s": sent / ((end - summary["traffic_start"]) * CLOCK_NS * 1e-9),
        "missed": missed,
    }


def bench_headroom(sim, duration_ms, step_per_mille, workdir):
    print(f"== Event headroom: stat packets on port 0 (1 Gb/s), all 8 inputs at line rate "
          f"(--cpu-rate 1e9), 60-byte frames, {duration_ms} ms simulated per step")
    print("  load: port p sends to port (p+4) mod 8, all 8 queues busy, queues 0..3 dropping;")
    print("  then a growing share of the frames is broadcast (7 queue events instead of 1)")
    print(f"  {'broadcast':>9}  {'events/s':>10}  {'stat port carried/s':>19}  {'events_missed':>13}")

    def step(per_mille):
        result = headroom_run(sim, per_mille, duration_ms, workdir)
        print(f"  {per_mille / 10:8.1f}%  {result['events_per_s'] / 1e6:8.2f} M  "
              f"{result['sent_per_s'] / 1e6:17.2f} M  {result['missed']:13d}")
        return result

    worst = step(0)
    show_command(worst["command"], workdir)
    print("  " + Simulator.START_CAPTURE_TEXT + f"; after {duration_ms} ms: time, read "
          f"events_sent, events_missed ({EVCAP_EVENTS_MISSED:#x}) and the queues' frames stored, "
          "removed and dropped, then SIGINT")
    print("  $DIR/portP.pcap (write_pcap): 60-byte frames from 02:00:00:00:00:<P+1> to "
          "02:00:00:00:00:<Q+1>, Q = (P+4) mod 8;")
    print("  at a step of X% broadcast, X% of them, spread evenly, to ff:ff:ff:ff:ff:ff")
    last_clean, first_loss = (worst, None) if worst["missed"] == 0 else (None, worst)
    per_mille = 0
    while first_loss is None and per_mille + step_per_mille <= 1000:
        per_mille += step_per_mille
        result = step(per_mille)
        if result["missed"]:
            first_loss = result
        else:
            last_clean = result
    everything = step(1000) if per_mille < 1000 else None

    def rate(result):
        return f"{result['events_per_s'] / 1e6:.2f} M events/s"

    print(f"  worst case (all unicast): {rate(worst)}, events_missed {worst['missed']}")
    if worst["missed"]:
        print("  the worst case itself misses events: no headroom")
    elif first_loss:
        print(f"  last step without loss: {rate(last_clean)} "
              f"({last_clean['events_per_s'] / worst['events_per_s']:.2f} x the worst case)")
        print(f"  first missed event: {rate(first_loss)}: headroom "
              f"{first_loss['events_per_s'] / worst['events_per_s']:.2f} x the worst case")
        # Past the first loss the stat port is saturated: what it carried is its capacity,
        # which unlike the first loss does not depend on how long a step lasts.
        print(f"  stat port saturated at {first_loss['sent_per_s'] / 1e6:.2f} M events/s "
              f"= {first_loss['sent_per_s'] / worst['events_per_s']:.2f} x the worst case "
              "(its capacity; a loss shows only once the excess has filled evcap's buffers)")
    if everything:
        lost = everything["missed"] / (everything["events_per_s"] * duration_ms / 1e3)
        print(f"  every frame broadcast (all 8 queues dropping): {rate(everything)}, "
              f"{lost:.0%} of the events missed")


# ---------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sim", default="build/bin/pktstats-sim")
    parser.add_argument("--sim-stubbed", metavar="PATH",
                        help="the simulator built with the latency engines stubbed "
                        "(build/bench/sim-stubbed/pktstats-sim), run beside --sim in section 1")
    parser.add_argument("--icarus-vvp", default="build/bench/core/pktstats_core_icarus_tb.vvp")
    parser.add_argument("--runs", type=int, default=5, help="Verilator runs (default 5)")
    parser.add_argument("--duration", default="5ms", help="simulated time per Verilator run")
    parser.add_argument("--icarus-clocks", type=int, default=2000)
    parser.add_argument("--icarus-runs", type=int, default=3)
    parser.add_argument("--headroom-ms", type=float, default=10.0,
                        help="simulated time per headroom step (default 10)")
    parser.add_argument("--headroom-step", type=int, default=10,
                        help="broadcast share added per step, per mille (default 10)")
    parser.add_argument("--no-headroom", action="store_true")
    parser.add_argument("--only", choices=["verilator"],
                        help="run only that section (1: the Verilator speed, busy and sparse)")
    options = parser.parse_args()
    paths = [options.sim] + ([options.sim_stubbed] if options.sim_stubbed else []) + \
        ([options.icarus_vvp] if options.only is None else [])
    for path in paths:
        if not os.path.exists(path):
            print(f"bench_sim: no {path}: `make bench` builds it", file=sys.stderr)
            return 1

    with tempfile.TemporaryDirectory(prefix="bench-sim-") as workdir:
        try:
            verilator, verilator_cpu = bench_verilator(options.sim, options.runs,
                                                       options.duration, workdir,
                                                       options.sim_stubbed)
            if options.sim_stubbed:
                bench_instructions(options.sim, options.sim_stubbed)
            bench_sparse(options.sim, 3, "20ms", verilator)
            if options.only == "verilator":
                return 0
            icarus, icarus_cpu = bench_icarus(options.icarus_vvp, options.icarus_clocks,
                                              options.icarus_runs)
            print(f"== Verilator / Icarus: {verilator / icarus:.0f} x "
                  f"({verilator / 1e6:.3f} M / {icarus:.0f} clocks/s); per CPU second "
                  f"{verilator_cpu / icarus_cpu:.0f} x")
            if not options.no_headroom:
                bench_headroom(options.sim, options.headroom_ms, options.headroom_step, workdir)
        except RuntimeError as e:
            print(f"bench_sim: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
