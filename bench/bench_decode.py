#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Decode throughput of stat packets: the production decoder against tcpdump and tshark with
the Lua dissector, in events per second on one large capture. Run by `make bench`.

    bench/bench_decode.py --gen build/bench/decode/gen_stat_pcap \
        --lib build/bench/decode/bench_decode_lib --cli build/bin/pktstats \
        [--dir build/bench/decode] [--events 10000000] [--runs 5] [--tshark-events 100000]

1. The capture: bench/gen_stat_pcap writes EVENTS valid version-2 events (a switch-like mix,
   full 1500-byte packets mostly) to DIR/stat-EVENTS.pcap, once: it is reused while it is newer
   than the generator. Before timing anything, the library decodes it and must find every
   event, no malformed packet and no lost packet.
2. The commands below run RUNS rounds on it, side by side: each round runs every command
   once, in turn, so that a slow spell of a shared machine falls on all of them alike. The
   figures are the median wall time and the median CPU time (user + system) of the whole
   process, start-up included, as events in the file per second, with the range of the wall
   figures over the rounds:
     pktstats decode --summary FILE > /dev/null   the CLI, when `pktstats decode` exists:
                                                   reading, decoding, per-queue figures
     bench_decode_lib --per-queue FILE             the library alone: libpcap + the stream
                                                   decoder in summary mode adding each packet
                                                   to a pktstats_summary (what the CLI runs)
     bench_decode_lib --in-memory --per-queue FILE the same decoding alone, on frames read
                                                   into memory first (its own clock)
     bench_decode_lib --in-memory FILE             summary mode without per-queue figures
                                                   (validation, counters), decoding alone
     bench_decode_lib --in-memory --sojourn FILE   decoded and paired by the sojourn matcher
                                                   in one pass (pktstats_sojourn_feed_frame():
                                                   every sojourn written, every count kept)
     bench_decode_lib --in-memory --sojourn-events FILE
                                                   the same through an event array
                                                   (pktstats_stream_feed_frame(), then
                                                   pktstats_sojourn_feed())
     bench_decode_lib --read-only FILE             libpcap reading the frames, no decoding
     tcpdump -nr FILE > /dev/null                  tcpdump reading and printing one line per
                                                   packet (it decodes no event)
     tcpdump -r FILE -w /dev/null                  tcpdump copying the packets
   and tshark with the dissector, 3 runs, on the file's first packets holding about
   TSHARK_EVENTS events (the whole file would take minutes), scaled to events per second:
     tshark -n -X lua_script:sw/tools/wireshark/pktstats.lua -r SUBSET -T fields \
         -e pktstats.seq > /dev/null
   (as nobody through setpriv when run as root: tshark warns about running as root).
3. Prints each figure and its ratio to the CLI's (the library's when there is no CLI), and
   the target (200 M events/s on one core in summary mode) against two figures: the decoder
   alone (in memory, per-queue summary) and the CLI end to end; and the sojourn matcher's
   target: decoding and pairing (--sojourn) at no less than half the decoder's speed in
   summary mode (both in memory, medians of the same rounds), after checking that both sojourn
   rows time as many frames and count alike.
"""

import argparse
import os
import shutil
import statistics
import struct
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LUA = os.path.join(ROOT, "sw", "tools", "wireshark", "pktstats.lua")
TARGET = 200e6


def run_once(command, env=None):
    """(wall seconds, CPU seconds: user + system) of one run of `command`, which must exit 0."""
    start = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    stderr = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit("bench_decode: %s: exit %d: %s" % (" ".join(command), code,
                                                   stderr.decode(errors="replace")))
    return wall, usage.ru_utime + usage.ru_stime


def inner_once(lib, pcap, *options):
    """(seconds, CPU seconds) of bench_decode_lib's own clocks: the decoding loop alone."""
    counts = lib_counts(lib, pcap, *options)
    return counts["decode_seconds"], counts["decode_cpu_seconds"]


def rounds(measurements, runs):
    """Runs every measurement (label, command text, events, function returning (seconds, CPU
    seconds)) once per round, in turn, for `runs` rounds. Returns the rows (label, command
    text, events per median wall second, per median CPU second, slowest and fastest round's
    events per wall second)."""
    times = [[] for _ in measurements]
    for _ in range(runs):
        for i, (_, _, _, once) in enumerate(measurements):
            times[i].append(once())
    rows = []
    for (label, text, events, _), t in zip(measurements, times):
        walls = [w for w, _ in t]
        rows.append((label, text, events / statistics.median(walls),
                     events / statistics.median(c for _, c in t),
                     events / max(walls), events / min(walls)))
    return rows


def lib_counts(lib, pcap, *options):
    """{frames, packets, events, malformed, lost, decode_seconds} from bench_decode_lib."""
    out = subprocess.run([lib] + list(options) + [pcap], capture_output=True, text=True,
                         check=True).stdout.split()
    return {k: float(v) if "." in v else int(v) for k, v in zip(out[::2], out[1::2])}


def subset(pcap, path, lib, want_events):
    """The first packets of `pcap` holding at least `want_events` events, as `path`."""
    with open(pcap, "rb") as src, open(path, "wb") as dst:
        dst.write(src.read(24))
        events = 0
        while events < want_events:
            record = src.read(16)
            if len(record) < 16:
                break
            caplen = struct.unpack("<IIII", record)[2]
            data = src.read(caplen)
            dst.write(record + data)
            events += (caplen - 14 - 28 - 38) // 4 - 2  # an upper bound; counted below
    os.chmod(path, 0o644)
    return lib_counts(lib, path)["events"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gen", required=True)
    parser.add_argument("--lib", required=True)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--dir", default=os.path.join(ROOT, "build", "bench", "decode"))
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tshark-events", type=int, default=100_000)
    args = parser.parse_args()

    print("== decode (bench/bench_decode.py)")
    os.makedirs(args.dir, exist_ok=True)
    pcap = os.path.join(args.dir, "stat-%d.pcap" % args.events)
    if not os.path.exists(pcap) or os.path.getmtime(pcap) < os.path.getmtime(args.gen):
        print("generating %s (%d events) ..." % (pcap, args.events), flush=True)
        subprocess.run([args.gen, pcap, str(args.events)], check=True, stdout=subprocess.DEVNULL)
    counts = lib_counts(args.lib, pcap)
    if counts["events"] < args.events or counts["malformed"] or counts["lost"] \
            or counts["packets"] != counts["frames"]:
        sys.exit("bench_decode: %s does not decode cleanly: %s" % (pcap, counts))
    events = counts["events"]
    size = os.path.getsize(pcap)
    print("capture: %s, %.1f MB, %d stat packets, %d events (%.0f per packet), decoded by the "
          "library: 0 malformed, 0 lost" % (os.path.relpath(pcap, ROOT), size / 1e6,
                                            counts["packets"], events, events / counts["packets"]))
    print("each figure: the median of %d rounds, each round running every command once in turn;"
          " whole process, start-up included" % args.runs)

    lib = os.path.relpath(args.lib, ROOT)
    measurements = []  # (label, command text, events, one run)
    has_cli = subprocess.run([args.cli, "decode", "--help"], capture_output=True).returncode == 0
    if has_cli:
        measurements.append(("pktstats decode --summary", "%s decode --summary FILE > /dev/null"
                             % os.path.relpath(args.cli, ROOT), events,
                             lambda: run_once([args.cli, "decode", "--summary", pcap])))
    measurements.append(("library, per-queue", "%s --per-queue FILE > /dev/null" % lib, events,
                         lambda: run_once([args.lib, "--per-queue", pcap])))
    for label, options in (("in memory, per-queue", ("--per-queue",)),
                           ("in memory, no per-queue", ()),
                           ("in memory, sojourn", ("--sojourn",)),
                           ("in memory, sojourn via events", ("--sojourn-events",))):
        measurements.append(("library, " + label, "%s --in-memory %sFILE (its own clocks: "
                             "decoding alone)" % (lib, "".join(o + " " for o in options)), events,
                             lambda options=options: inner_once(args.lib, pcap, "--in-memory",
                                                                *options)))
    measurements.append(("libpcap reading alone", "%s --read-only FILE > /dev/null" % lib,
                         events, lambda: run_once([args.lib, "--read-only", pcap])))
    if shutil.which("tcpdump"):
        measurements.append(("tcpdump -nr", "tcpdump -nr FILE > /dev/null", events,
                             lambda: run_once(["tcpdump", "-nr", pcap])))
        measurements.append(("tcpdump -w /dev/null", "tcpdump -r FILE -w /dev/null", events,
                             lambda: run_once(["tcpdump", "-r", pcap, "-w", "/dev/null"])))
    rows = rounds(measurements, args.runs)
    decoder = next(r for r in rows if r[0] == "library, in memory, per-queue")
    tshark_note = None
    if shutil.which("tshark"):
        small = os.path.join(args.dir, "stat-subset.pcap")
        small_events = subset(pcap, small, args.lib, args.tshark_events)
        command = ["tshark", "-n", "-X", "lua_script:" + LUA, "-r", small, "-T", "fields",
                   "-e", "pktstats.seq"]
        if os.geteuid() == 0 and shutil.which("setpriv"):
            command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command
        env = dict(os.environ, HOME=args.dir)
        rows += rounds([("tshark + pktstats.lua", "tshark -n -X lua_script:%s -r SUBSET -T "
                         "fields -e pktstats.seq > /dev/null" % os.path.relpath(LUA, ROOT),
                         small_events, lambda: run_once(command, env=env))], 3)
        tshark_note = ("tshark ran on the first %d events only (%s; 3 runs after the others), "
                       "scaled: events / seconds" % (small_events, os.path.relpath(small, ROOT)))

    reference, reference_cpu = rows[0][2], rows[0][3]
    ratio = "%s/this" % ("CLI" if has_cli else "lib")
    print("%-38s %12s %9s %12s %9s  %-19s %s" % ("", "events/s", ratio, "per CPU s", ratio,
                                                "rounds, M/s", "command"))
    for label, command, rate, rate_cpu, slowest, fastest in rows:
        spread = "%.4g-%.4g" % (slowest / 1e6, fastest / 1e6)
        print("%-38s %10.3f M %8.1fx %10.3f M %8.1fx  %-19s %s"
              % (label, rate / 1e6, reference / rate, rate_cpu / 1e6, reference_cpu / rate_cpu,
                 spread, command))
    if tshark_note:
        print(tshark_note)
    print("load average while measuring: %.2f (%d cores)" % (os.getloadavg()[0], os.cpu_count()))
    for name, row in (("decoder alone (%s)" % decoder[0], decoder),
                      ("end to end (%s)" % rows[0][0], rows[0])):
        print("%s: %.0f M events per wall second, %.0f M per CPU second; target %.0f M: %s"
              % (name, row[2] / 1e6, row[3] / 1e6, TARGET / 1e6,
                 "met" if max(row[2], row[3]) >= TARGET else "NOT met"))
    matcher = next(r for r in rows if r[0] == "library, in memory, sojourn")
    fused = lib_counts(args.lib, pcap, "--in-memory", "--sojourn")
    via_events = lib_counts(args.lib, pcap, "--in-memory", "--sojourn-events")
    keys = ("timed", "counted", "queued_before", "unsynchronised", "pending")
    if fused["timed"] != fused["counted"] or any(fused[k] != via_events[k] for k in keys):
        sys.exit("bench_decode: the sojourn rows disagree: %s against %s (via events)"
                 % ({k: fused[k] for k in keys}, {k: via_events[k] for k in keys}))
    print("sojourn matcher (decoding and pairing in one pass, %d frames timed, every count as "
          "via events): %.0f M events per second, %.2f of the decoder's summary mode; target "
          "0.5: %s" % (fused["timed"], matcher[2] / 1e6, matcher[2] / decoder[2],
                       "met" if matcher[2] >= 0.5 * decoder[2] else "NOT met"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
