#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Throughput of `pktstats isl run`, OpenKilda's ISL latency controller (docs/isl.md): how many
ISLs and measurements per second ONE controller process sustains against a real time-series
database. Run by `make bench`; prints figures, never fails on a figure, only when a run itself
goes wrong.

    bench/bench_isl.py --cli build/bin/pktstats [--runs N] [--quick]

Configurations (CONFIGS): 64 directed ISLs (16 switches) at intervals of 100, 10, 2 and 1 ms
(1 ms is the controller's shortest), then 128 ISLs (32 switches) and 16 ISLs (4 switches) at
1 ms; about 45 s in all with one run each. --quick: 64 ISLs at 10 ms only. The database, the
kernel's veth traffic and the controller share the machine's cores, so the ceiling found is
that of this machine with VictoriaMetrics on it.

No simulator (far too slow to drive the controller at these rates). Instead, in a network
namespace of its own (the script re-runs itself under `unshare --net`; without root or unshare
it prints that it is skipped and exits 0; IPv6 off so that nothing else travels):

  - each of S switches is a register file of 0x10000 bytes opened as `mmap:FILE`: the identity
    registers (id.type, id.magic "PKTS", id.design_version), the oam block's type "OAM " and,
    for each port p in 0..3, oam control = isl-group | cpu-bound (no copy field: OpenKilda's
    decision table then says use-one-way for every ISL, so every discovery packet caught at
    the far end is one measurement written to the database) and a distinct port MAC;
  - the "cables" are veth pairs: switch i port 0 - switch i+1 port 2 and switch i port 1 -
    switch i+2 port 3 (indices mod S), every switch's port p being the interface sIpP of its
    CPU port. A discovery packet sent into one end comes out of the other, where the controller
    reads it as the far switch's packet-in: 4 S interfaces, 2 S cables, 4 S directed ISLs;
  - a fresh VictoriaMetrics (tb/common/victoria.py) on the loopback for each run, then
        pktstats -j isl run secret-file F interval I rounds N wait 2s tsdb URL \
            flush-timeout 30s switch mmap:FILE,0=s0p0,...,name=s0 ...
    After it exits the database is flushed and kilda.isl.rtt exported.

For each configuration (ISLs, interval) one line per run (with --runs N > 1 also the median),
then a "bench_isl:" summary line:
  written/s     the controller's `written` counter over the time from its start to its last
                result (the latest timestamp in the database: kernel receive times); in
                brackets the results of the rounds after the first over the time from the
                first result to the last, i.e. without the start-up (binding a packet socket
                costs about 10 ms per port in the kernel, so 64 ports take most of a second
                before the first round)
  delivered     the controller's tsdb.delivered / the points exported from the database (they
                must agree)
  undelivered   tsdb.undelivered (+ pending, when not zero)
  sent / recv   discovery packets sent and received by the controller (every one sent should
                be received at the far end of its cable)
  rounds .. in  the controller's `rounds` counter and the time from its start to its last
                result; 1st result: when that came; exit: the controller's wall time (rounds,
                wait, the delivery at the end, closing the sockets)
  CPU           the controller's user + system CPU time (wait4's rusage) and its share of the
                time from start to last result (both threads: the loop and the writer)
The summary compares the ISL-rounds per second achieved after start-up with those offered
(ISLs / interval). When the loop cannot keep up, the interval timer's missed ticks are folded
into one round, so the rounds simply take longer: a reader sees where it stops keeping up by
achieved < offered, received < sent, undelivered > 0, or a CPU share near 100 %.
"""

import argparse
import json
import os
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
import pktstats_sim  # noqa: E402
import victoria  # noqa: E402

R = pktstats_sim.registers()
SECRET = b"pktstats-isl-bench-secret"
WAIT_S = 2
# (switches, interval ms, rounds): about 2 to 3 s of rounds each. The controller's shortest
# interval is 1 ms, so beyond 64 ISLs at 1 ms the load grows by more switches: 128 ISLs.
CONFIGS = [(16, 100, 30), (16, 10, 300), (16, 2, 1500), (16, 1, 3000), (32, 1, 2000),
           (4, 1, 3000)]


def port_mac(k, p):
    return 0x02000000ee00 | (k << 4) | p


def write_registers(path, k):
    regs = bytearray(0x10000)

    def w(name, value):
        struct.pack_into("<I", regs, R[name], value)
    for block in ("ID_TYPE", "ID_VERSION", "ID_MAGIC", "ID_DESIGN_VERSION", "OAM_TYPE", "OAM_VERSION"):
        w(block, R[block + "_VALUE"])
    control = R["OAM_CONTROL_0_ISL_GROUP_MASK"] | R["OAM_CONTROL_0_CPU_BOUND_MASK"]
    for p in range(4):
        struct.pack_into("<I", regs, R["OAM_CONTROL_0"] + 4 * p, control)
        mac = port_mac(k, p)
        struct.pack_into("<II", regs, R["OAM_PORT_MAC_0_LO"] + 8 * p, mac & 0xffffffff, mac >> 32)
    with open(path, "wb") as f:
        f.write(regs)


def ifname(k, p):
    return "s%dp%d" % (k, p)


def cables(switches):
    """[((k, p), (l, q))]: k.0 - k+1.2 and k.1 - k+2.3 (mod switches)."""
    return [((k, p), ((k + 1 + p) % switches, p + 2)) for k in range(switches) for p in (0, 1)]


def sh(command):
    proc = subprocess.run(command, capture_output=True, text=True, input=None)
    if proc.returncode:
        raise RuntimeError("%s: %s" % (" ".join(command), proc.stderr.strip()))
    return proc.stdout


def set_links(switches):
    """Removes the veth pairs of the previous configuration, makes and raises this one's."""
    for line in sh(["ip", "-o", "link", "show", "type", "veth"]).splitlines():
        name = line.split(":")[1].strip().split("@")[0]
        if name.startswith("s"):
            subprocess.run(["ip", "link", "del", name], capture_output=True)
    batch = []
    for (k, p), (l, q) in cables(switches):
        batch.append("link add %s type veth peer name %s" % (ifname(k, p), ifname(l, q)))
    for k in range(switches):
        for p in range(4):
            batch.append("link set %s up" % ifname(k, p))
    proc = subprocess.run(["ip", "-batch", "-"], input="\n".join(batch) + "\n",
                          capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError("ip -batch: " + proc.stderr.strip())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:   # veth carrier comes up at once, but wait for it
        # (not /sys/class/net: sysfs still shows the namespace it was mounted in)
        states = {}
        for text in sh(["ip", "-o", "link", "show", "type", "veth"]).splitlines():
            name = text.split(":")[1].strip().split("@")[0]
            states[name] = "state UP" in text
        wanted = [ifname(k, p) for k in range(switches) for p in range(4)]
        if all(states.get(n) for n in wanted):
            return
        time.sleep(0.05)
    raise RuntimeError("veth interfaces not up: %s" % states)


def run_once(cli, work, switches, interval_ms, rounds):
    secret = os.path.join(work, "secret")
    with open(secret, "wb") as f:
        f.write(SECRET + b"\n")
    command = [cli, "-j", "isl", "run", "secret-file", secret,
               "interval", "%dus" % round(interval_ms * 1000), "rounds", str(rounds),
               "wait", "%ds" % WAIT_S]
    specs = []
    for k in range(switches):
        path = os.path.join(work, "s%d.regs" % k)
        write_registers(path, k)
        specs += ["switch", ",".join(["mmap:" + path] + ["%d=%s" % (p, ifname(k, p)) for p in range(4)]
                                     + ["name=s%d" % k])]
    vm = victoria.VictoriaMetrics(work)
    vm.start()
    try:
        command += ["tsdb", vm.put_url, "flush-timeout", "30s"] + specs
        out_path, err_path = os.path.join(work, "isl.json"), os.path.join(work, "isl.err")
        with open(out_path, "w") as out, open(err_path, "w") as err:
            start, start_epoch = time.monotonic(), time.time()
            proc = subprocess.Popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        limit = rounds * interval_ms / 1000.0 * 4 + WAIT_S + 60
        killer = threading.Timer(limit, lambda: os.kill(proc.pid, signal.SIGKILL))
        killer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        with open(out_path) as f:
            text = f.read()
        with open(err_path) as f:
            log = f.read()
        if proc.returncode != 0 or not text.strip():
            raise RuntimeError("controller exited %d after %.1f s: %s\n%s"
                               % (proc.returncode, wall, log[-2000:], text[-2000:]))
        report = json.loads(text.strip().splitlines()[-1])
        vm.flush()
        series = vm.export("kilda.isl.rtt")
    finally:
        vm.stop()
    stamps = [t for _, samples in series for t, _ in samples]
    exported = len(stamps)
    # from the controller's start to its first and last result (kernel receive times)
    first = min(stamps) / 1000.0 - start_epoch if stamps else None
    last = max(stamps) / 1000.0 - start_epoch if stamps else None
    counters = report.get("counters", {})
    tsdb = report.get("tsdb") or {}
    return {"report": report, "counters": counters, "tsdb": tsdb, "log": log,
            "wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "exported": exported,
            "series": len(series), "first": first, "last": last, "isls": len(report.get("isls", []))}


def key(d, name):
    """A counter by its name in either spelling (JSON keys: '-' or '_')."""
    for k in (name, name.replace("-", "_"), name.replace("_", "-")):
        if k in d:
            return d[k]
    return None


def figures(r, interval_ms, rounds):
    c, t = r["counters"], r["tsdb"]
    # from the start to the last round's last result; without results, wall time less wait
    duration = r["last"] if r["last"] else r["wall"] - WAIT_S
    written = key(c, "written") or 0
    # the rounds alone: from the first result to the last (start-up excluded)
    span = duration - (r["first"] or 0)
    return {"duration": duration, "written": written, "per_s": written / duration if duration else 0,
            # the first round's results come at the span's start: rounds - 1 intervals
            "span": span, "steady": (written * (rounds - 1) / rounds / span if span > 0 else 0),
            "rounds_per_s": ((key(c, "rounds") or 1) - 1) / span if span > 0 else 0,
            "delivered": key(t, "delivered"), "exported": r["exported"],
            "undelivered": key(t, "undelivered"), "pending": key(t, "pending"),
            "sent": key(c, "sent"), "received": key(c, "received"), "rounds": key(c, "rounds"),
            "cpu": r["cpu"], "wall": r["wall"], "isls": r["isls"], "first": r["first"] or 0,
            "send_errors": key(c, "send-errors"), "discovery": key(c, "discovery"),
            "failed": key(t, "failed-requests"), "requests": key(t, "requests")}


def line(label, f, interval_ms):
    pend = " + %d pending" % f["pending"] if f["pending"] else ""
    return ("  %-7s %3d ISLs %4g ms  %6.0f written/s (%6.0f after start-up)  delivered %7d / db %7d  undelivered %d%s  "
            "sent %7d recv %7d  rounds %5d in %5.2f s (1st result %.2f s, exit %.2f s)  CPU %5.2f s (%3.0f %%)"
            % (label, f["isls"], interval_ms, f["per_s"], f["steady"], f["delivered"] or 0, f["exported"],
               f["undelivered"] or 0, pend, f["sent"] or 0, f["received"] or 0, f["rounds"] or 0,
               f["duration"], f["first"], f["wall"], f["cpu"], 100.0 * f["cpu"] / f["duration"] if f["duration"] else 0))


def bench(cli, runs, configs):
    print("== ISL controller (bench/bench_isl.py): one `pktstats isl run`, veth cables, "
          "VictoriaMetrics on the loopback")
    print("  S switches x 4 ports (isl-group, cpu-bound: use-one-way), 2 S veth cables, 4 S "
          "directed ISLs; wait %ds, flush-timeout 30s" % WAIT_S)
    problems = []
    for switches, interval_ms, rounds in configs:
        set_links(switches)
        results = []
        for run in range(runs):
            work = tempfile.mkdtemp(prefix="pktstats-bench-isl-")
            try:
                r = run_once(cli, work, switches, interval_ms, rounds)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            f = figures(r, interval_ms, rounds)
            results.append(f)
            print(line("run %d" % (run + 1), f, interval_ms), flush=True)
            isls = 4 * switches
            if f["isls"] != isls:
                problems.append("%d switches, %g ms: %d ISLs found, %d cabled"
                                % (switches, interval_ms, f["isls"], isls))
            if f["delivered"] != f["exported"]:
                problems.append("%d switches, %g ms: controller delivered %s, database holds %d"
                                % (switches, interval_ms, f["delivered"], f["exported"]))
            if f["written"] != (f["delivered"] or 0) + (f["undelivered"] or 0) + (f["pending"] or 0):
                problems.append("%d switches, %g ms: written %d != delivered %s + undelivered %s + "
                                "pending %s" % (switches, interval_ms, f["written"], f["delivered"],
                                                f["undelivered"], f["pending"]))
            if f["sent"] != rounds * isls or f["rounds"] != rounds:
                problems.append("%d switches, %g ms: %s rounds, %s sent, want %d and %d (send errors %s)"
                                % (switches, interval_ms, f["rounds"], f["sent"], rounds,
                                   rounds * isls, f["send_errors"]))
            odd = {name: key(r["counters"], name) for name in (
                "send-errors", "other-frames", "malformed", "bad-signature", "wrong-chassis",
                "unknown-switch", "unknown-port", "unknown-packet", "misdirected", "negative",
                "pending-dropped")}
            odd = {name: value for name, value in odd.items() if value}
            if odd:
                problems.append("%d switches, %g ms: counters %s" % (switches, interval_ms, odd))
            if f["received"] is not None and f["written"] > f["received"]:
                problems.append("%d switches, %g ms: written %d > received %d"
                                % (switches, interval_ms, f["written"], f["received"]))
        if runs > 1:
            med = {k: statistics.median(x[k] or 0 for x in results)
                   for k in ("per_s", "delivered", "exported", "undelivered", "pending", "sent",
                             "received", "rounds", "duration", "cpu", "first", "wall", "steady",
                             "rounds_per_s")}
            med["isls"] = results[0]["isls"]
            print(line("median", med, interval_ms))
        best = max(results, key=lambda x: x["per_s"])
        steady = statistics.median(x["steady"] for x in results)
        rounds_per_s = statistics.median(x["rounds_per_s"] for x in results)
        print("bench_isl: %d ISLs, interval %g ms: %.0f measurements/s written start to end, "
              "%.0f after start-up (%.0f %% of the %.0f offered: %.0f rounds/s for %.0f)%s"
              % (4 * switches, interval_ms, statistics.median(x["per_s"] for x in results),
                 steady, 100.0 * steady * interval_ms / 4 / switches / 1000.0,
                 4 * switches * 1000.0 / interval_ms, rounds_per_s, 1000.0 / interval_ms,
                 " (median of %d runs; best %.0f)" % (len(results), best["per_s"]) if runs > 1 else ""),
              flush=True)
    for p in problems:
        print("bench_isl: NOTE " + p)
    print("load average: %.2f (%d cores)" % (os.getloadavg()[0], os.cpu_count()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", required=True, help="build/bin/pktstats")
    parser.add_argument("--runs", type=int, default=1, help="runs of each configuration")
    parser.add_argument("--quick", action="store_true", help="only 64 ISLs at 10 ms")
    options = parser.parse_args()
    why = None
    if os.geteuid() != 0:
        why = "needs root (a network namespace, veth pairs, raw sockets)"
    elif not shutil.which("unshare") or not shutil.which("ip"):
        why = "needs unshare and ip"
    elif not os.path.exists(victoria.BINARY):
        why = "needs victoria-metrics (make deps)"
    elif not os.access(options.cli, os.X_OK):
        why = "no %s" % options.cli
    if why:
        print("== ISL controller (bench/bench_isl.py): skipped, %s" % why)
        return 0
    pktstats_sim.in_private_network()
    configs = [(16, 10, 300)] if options.quick else CONFIGS
    bench(os.path.abspath(options.cli), max(1, options.runs), configs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
