#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seed corpus for the decoder fuzz targets (tb/fuzz/fuzz_stream.c, tb/fuzz/fuzz_payload.c),
from real stat packets: short pktstats-sim captures configured through the pktstats CLI, with
several resolutions, packet lengths, drops (a queue limit under incast), flush timeouts and an
explicit `capture flush`, plus hand-made edge cases the simulator never emits (version 1,
VLAN tag, IP options, trailers, cut packets).

    tb/fuzz/make_corpus.py --out DIR [--sim build/bin/pktstats-sim] [--cli build/bin/pktstats]
    tb/fuzz/make_corpus.py --curate tb/fuzz/corpus     # the small set kept in the repository

DIR/stream/ gets runs of 1-6 consecutive stat frames (the stream target's record format, so
that in-order sequences are the starting point), DIR/payload/ single UDP payloads (with the
payload target's option byte in front). --curate keeps a few dozen small files, so that
`make fuzz` works offline from a fresh clone; `make fuzz` adds the full DIR when it exists.
"""

import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
from cli_harness import Simulator, run_cli  # noqa: E402

CLOCK_NS = 8
STAT_PORT = 27033

# Each scenario: simulator arguments (the stat output port is 7), `capture set` arguments,
# whether to end with `capture flush`, and the simulated time to run.
SCENARIOS = [
    ("incast-c0", ["--port", "0:gen=0.8,to=1,count=400,seed=1",
                   "--port", "2:gen=0.8,to=1,count=400,seed=2"],
     ["resolution", "0", "queues", "all", "events", "all", "max-length", "200",
      "flush-timeout", "5us"], ["queue", "set", "1", "limit", "30"], False, 400_000),
    ("imix-c3", ["--port", "0:gen=0.5,size=imix,to=3,count=300,seed=3",
                 "--port", "1:gen=0.3,to=2,count=200,seed=4"],
     ["resolution", "3", "queues", "0-3", "events", "arrival,departure", "max-length", "1500",
      "flush-timeout", "20us"], None, False, 600_000),
    ("sparse-c7", ["--port", "0:gen=0.01,to=1,count=12,seed=5"],
     ["resolution", "7", "queues", "all", "events", "all", "max-length", "9000",
      "flush-timeout", "never"], None, True, 1_500_000),
    ("drops-c5", ["--port", "0:gen=1,to=2,count=300,seed=6",
                  "--port", "1:gen=1,to=2,count=300,seed=7",
                  "--port", "3:gen=1,to=2,count=300,seed=8"],
     ["resolution", "5", "queues", "2", "events", "drop,arrival", "max-length", "86",
      "flush-timeout", "1us"], ["queue", "set", "2", "limit", "20"], False, 400_000),
]


def read_pcap(path):
    """Frames of a classic pcap (µs or ns), in order."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return []
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    frames, off = [], 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        off += 16
        frames.append(data[off:off + incl])
        off += incl
    return frames


def udp_payload(frame):
    """The UDP payload of an untagged IPv4/UDP stat frame, else None."""
    if len(frame) < 42 or frame[12:14] != b"\x08\x00" or frame[23] != 17:
        return None
    ihl = (frame[14] & 15) * 4
    udp = 14 + ihl
    if struct.unpack(">H", frame[udp + 2:udp + 4])[0] != STAT_PORT:
        return None
    length = struct.unpack(">H", frame[udp + 4:udp + 6])[0]
    return frame[udp + 8:udp + length]


def stream_input(frames, opt=0x01, max_sel=0x0f):
    """fuzz_stream's format: option bytes, then 16-bit length-prefixed records."""
    return bytes([opt, max_sel]) + b"".join(struct.pack(">H", len(f)) + f for f in frames)


def capture(name, sim_args, capture_args, queue_args, flush, duration_ns, sim, cli, work):
    """Runs one scenario; returns its stat frames in order."""
    run_dir = os.path.join(work, name)
    os.makedirs(run_dir)
    stat_pcap = os.path.join(run_dir, "stat.pcap")
    s = Simulator(sim, run_dir, ["--wait", "--duration", "10s", "--port",
                                 "7:out=" + stat_pcap] + sim_args)

    def cmd(*args):
        status, out, err = run_cli(cli, list(args), device=s.device)
        if status != 0:
            raise RuntimeError("pktstats %s: %s" % (" ".join(args), err.strip()))
        return out

    def cycles():
        out = cmd("-j", "timer", "show")
        return int(out.split('"cycles":')[1].split(",")[0].split("}")[0])

    try:
        for port in range(4):
            cmd("fdb", "add", "02:00:00:00:00:%02x" % (port + 1), "port", str(port), "static")
        if queue_args:
            cmd(*queue_args)
        cmd("capture", "set", "output-ports", "7", *capture_args)
        cmd("capture", "start")
        s.request("start")
        target = cycles() + duration_ns // CLOCK_NS
        deadline = time.monotonic() + 120
        while cycles() < target and time.monotonic() < deadline:
            time.sleep(0.05)
        if flush:
            cmd("capture", "flush")
            target = cycles() + 20_000 // CLOCK_NS
            while cycles() < target and time.monotonic() < deadline:
                time.sleep(0.02)
        if s.stop() != 0:
            raise RuntimeError("pktstats-sim failed: " + s.log())
    except BaseException:
        s.kill()
        raise
    return [f for f in read_pcap(stat_pcap) if udp_payload(f) is not None]


# ---------------------------------------------------------------------------------------------
# Hand-made edge cases (both targets)

def ts(tick):
    return struct.pack(">II", (tick >> 32) & 0x3fffffff, tick & 0xffffffff)


def ev(typ, queue, length, field):
    return struct.pack(">I", typ << 30 | queue << 27 | length << 19 | field)


def v2_payload(seq, slots, c=0, missed=False, sizes=(0,) * 8):
    head = bytes([(0x80 if missed else 0) | c << 4 | 2, 3]) + struct.pack(">I", seq)
    return head + b"".join(struct.pack(">I", q) for q in sizes) + slots


def v1_payload(seq, slots, words=(0,) * 8, packets=(0,) * 8):
    head = bytes([1, 3]) + struct.pack(">I", seq)
    return head + b"".join(struct.pack(">II", w, p) for w, p in zip(words, packets)) + slots


def frame(payload, vlan=False, ip_options=b"", trailer=b"", dport=STAT_PORT, src=(10, 0, 0, 1),
          sport=5000, flags=0):
    ihl = 5 + len(ip_options) // 4
    udp = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x40 | ihl, 0, ihl * 4 + len(udp), 7, flags, 64, 17, 0,
                     bytes(src), bytes((10, 0, 0, 2))) + ip_options
    eth = b"\x02\x00\x00\x00\x00\x09\x02\x00\x00\x00\x00\x08"
    eth += (b"\x81\x00\x20\x05" if vlan else b"") + b"\x08\x00"
    return eth + ip + udp + trailer


def handmade():
    """(name, payload-target input, stream-target input) triples."""
    near = (1 << 62) - 3
    base = ts(1000) + ev(1, 0, 4, 0) + ev(2, 0, 4, 7) + ev(3, 5, 0, 1)
    cases = {
        "v2-normal": v2_payload(1, base, sizes=(10,) * 8),
        "v2-wrap62": v2_payload(2, ts(near) + ev(1, 1, 1, 1) + ev(1, 1, 255, 0x7ffff)),
        "v2-midts": v2_payload(3, base + ts(1 << 40) + ev(2, 7, 255, 0)),
        "v2-c7-missed": v2_payload(4, base, c=7, missed=True),
        "v2-departure-underflow": v2_payload(5, ts(0) + ev(2, 3, 200, 0)),
        "v2-ts-only": v2_payload(6, ts(5) + ts(6)),
        "v2-cut-ts": v2_payload(7, base + struct.pack(">I", 0)),
        "v2-partial": v2_payload(8, base + b"\x00"),
        "v2-first-short": v2_payload(9, ev(1, 0, 1, 0) + ts(1)),
        "v1-normal": v1_payload(10, ts(0x7fff0) + ev(1, 2, 3, 0x7fff5) + ev(2, 2, 3, 3),
                                words=(7,) * 8, packets=(1,) * 8),
        "v1-ts-only": v1_payload(11, ts(99)),
        "v1-wrap62": v1_payload(12, ts(near) + ev(1, 0, 1, 0) + ev(3, 0, 1, 5)),
        "bad-version": b"\x03\x03" + bytes(40),
        "bad-types": b"\x02\x04" + bytes(40),
        "truncated": b"\x02\x03" + bytes(10),
    }
    out = []
    for i, (name, p) in enumerate(sorted(cases.items())):
        # payload target: option byte varies the v1 resolution and the event array size
        opt = 0x01 | (i % 8) << 1 | (i % 16) << 4
        frames = [frame(p)]
        if i % 3 == 1:
            frames = [frame(p, vlan=True, ip_options=b"\x01\x01\x01\x00", trailer=bytes(6))]
        out.append((name, bytes([opt]) + p, stream_input(frames, 0x01, i % 16)))
    # stream-only cases: sequence tracking across sources, wrap, reset, reordering, duplicates
    seqs = [0xfffffffe, 0xffffffff, 0, 3, 1, 1, 70, 0, 5, 200, 190]
    frames = [frame(v2_payload(s, base)) for s in seqs]
    frames += [frame(v2_payload(7, base), src=(10, 0, 0, 9)), frame(v2_payload(7, base), dport=9)]
    frames += [frame(v2_payload(8, base), flags=0x2000), frame(v2_payload(9, base))[:50]]
    out.append(("seq-mix", None, stream_input(frames, 0x01, 2)))
    out.append(("seq-mix-anyport-summary", None, stream_input(frames, 0x51, 3)))
    # the reorder window's edges: a gap of 63 and 64 (the window shifted by 64 and 65), a late
    # packet exactly 64 behind (the window's last bit), one 65 behind (a reset)
    edges = [100, 164, 101, 100, 165, 102, 101, 37]
    out.append(("seq-window-edges", None,
                stream_input([frame(v2_payload(s, base)) for s in edges], 0x01, 5)))
    # IHL 15 with the capture ending inside the IP options and a total length too small for
    # it: truncation is reported first
    short_ihl = bytearray(frame(v2_payload(1, base), ip_options=bytes(40)))
    short_ihl[16:18] = struct.pack(">H", 40)
    out.append(("ihl-cut", None, stream_input([bytes(short_ihl[:14 + 40])], 0x11, 6)))
    many = [frame(v2_payload(s, base), src=(10, 0, 1, s)) for s in range(40)]
    out.append(("sources-full", None, stream_input(many, 0x00, 1)))
    pay = [bytes([s]) + v2_payload(s, base) for s in (1, 2, 5, 3, 1, 0)]
    out.append(("payload-records", None, stream_input(pay, 0x81, 4)))
    return out


def write(directory, name, data):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write every seed here (stream/, payload/)")
    parser.add_argument("--curate", help="write the small curated set here (stream/, payload/)")
    parser.add_argument("--sim", default="build/bin/pktstats-sim")
    parser.add_argument("--cli", default="build/bin/pktstats")
    args = parser.parse_args()
    if not args.out and not args.curate:
        parser.error("--out or --curate")

    work = tempfile.mkdtemp(prefix="pktstats-corpus-")
    try:
        captures = {}
        for name, sim_args, cap_args, queue_args, flush, duration in SCENARIOS:
            captures[name] = capture(name, sim_args, cap_args, queue_args, flush, duration,
                                     args.sim, args.cli, work)
            print("%s: %d stat frames" % (name, len(captures[name])), file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    for target_dir, keep in ((args.out, None), (args.curate, 4)):
        if not target_dir:
            continue
        n = 0
        for s, (name, frames) in enumerate(sorted(captures.items())):
            picks = range(len(frames)) if keep is None else \
                sorted(set(min(len(frames) - 1, k * len(frames) // keep) for k in range(keep)))
            for j in picks:
                run = frames[j:j + 1 + j % 6]
                opt = 0x01 | (j % 4 == 3) << 6  # some in summary mode
                write(os.path.join(target_dir, "stream"), "sim-%s-%04d" % (name, j),
                      stream_input(run, opt, (s + j) % 16))
                write(os.path.join(target_dir, "payload"), "sim-%s-%04d" % (name, j),
                      bytes([0x01 | ((s + j) % 16) << 4]) + udp_payload(frames[j]))
                n += 1
        for name, p, st in handmade():
            if p is not None:
                write(os.path.join(target_dir, "payload"), "hand-" + name, p)
            write(os.path.join(target_dir, "stream"), "hand-" + name, st)
        print("%s: %d simulator seeds per target plus hand-made cases" % (target_dir, n),
              file=sys.stderr)


if __name__ == "__main__":
    main()
