#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The Wireshark dissector (sw/tools/wireshark/pktstats.lua) against the production decoder:
tshark's field output and tb/wireshark/decode_fields (the decoder's view) on the same
captures must agree field for field, packet by packet, event by event.

    tb/wireshark/test_dissector.py build/asan/tb/wireshark/decode_fields \
        build/bin/pktstats-sim build/bin/pktstats [--keep DIR]

Captures:
  sim         the simulated switch through the CLI: three resolutions (8 ns, 128 ns,
              1024 ns) in one capture, queue 1 dropping, all event types, all queues.
  edges       hand-built: gaps just below 2^19 carried across bit 32, timestamps inserted
              mid-packet (also backwards), the M flag, the tick wrapping at 2^62, time_ns
              wrapping at 2^64 (c = 7), length 255 and queue 7, a 9000-byte (hardware
              maximum) and a 65534-byte packet, version 1 (low tick bits, timestamp-only).
  malformed   every verdict of the decoder: empty, truncated (v2 and v1), bad version (0, 3,
              15), bad event types, partial slot, no slot, timestamps only, first slot not a
              timestamp, a lone timestamp slot, a timestamp cut at the end; plus a non-stat
              UDP frame that neither side may take.
  random      300 seeded random packets, a quarter with random bytes overwritten.
  port        a stat packet on UDP 40001, dissected only with -o pktstats.udp_port:40001.
  preferences the edges again with -o pktstats.v1_resolution:5 (against the decoder's
              v1_resolution option) and with -o pktstats.accept_v1:FALSE.

tshark runs as an unprivileged user when the test runs as root (setpriv; the dissector is
copied into the test's directory so that user can read it): Wireshark warns about running as
root, and dissecting unprivileged is its documented practice (without setpriv, that warning
is the one stderr line allowed). HOME is the test's directory, so no personal Wireshark
profile changes the output. tshark's stderr must be empty. Skips (TAP) without tshark.
"""

import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
from pktstats_sim import Simulator  # noqa: E402
from tap_output import Tap  # noqa: E402
# PKTSTATS_LUA: another copy of the dissector (to check that a broken one fails the test).
LUA = os.environ.get("PKTSTATS_LUA") or os.path.join(ROOT, "sw", "tools", "wireshark",
                                                     "pktstats.lua")
PORT = 27033
TIMESTAMP, ARRIVAL, DEPARTURE, DROP = 0, 1, 2, 3
MASK62 = (1 << 62) - 1
LUA_RUN = LUA  # the copy tshark loads (main() puts one in the work directory)


# ---------------------------------------------------------------------------------------------
# Building captures

def ipv4_checksum(header):
    total = sum(struct.unpack("!10H", header))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def frame(payload, sport=PORT, dport=PORT, ident=0):
    """Ethernet II / IPv4 / UDP around `payload`, as the hardware builds it."""
    total = 20 + 8 + len(payload)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, ident & 0xffff, 0x4000, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    ip = ip[:10] + struct.pack("!H", ipv4_checksum(ip)) + ip[12:]
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0)
    return b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x09" + b"\x08\x00" + ip + udp + payload


def write_pcap(path, frames):
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1))
        for i, data in enumerate(frames):
            out.write(struct.pack("<IIII", 1000 + i, 0, len(data), len(data)))
            out.write(data)
    os.chmod(path, 0o644)


def header(seq=0, c=0, missed=False, sizes=(0,) * 8, version=2, types=3):
    return bytes([(0x80 if missed else 0) | c << 4 | version, types]) + \
        struct.pack("!I8I", seq, *sizes)


def header_v1(seq=0, sizes=(0,) * 8, packets=(0,) * 8):
    words = [v for pair in zip(sizes, packets) for v in pair]
    return bytes([1, 3]) + struct.pack("!I16I", seq, *words)


def ts(tick):
    return struct.pack("!II", tick >> 32 & 0x3fffffff, tick & 0xffffffff)


def ev(kind, queue, length, gap):
    return struct.pack("!I", kind << 30 | queue << 27 | length << 19 | gap)


def random_events(rng, count, sizes):
    """`count` plausible events (departures only from what arrived), gaps mostly small."""
    occupancy = list(sizes)
    out = b""
    for _ in range(count):
        q = rng.randrange(8)
        length = rng.choice([8, 8, 8, 16, 64, 190, 255, rng.randrange(256)])
        kind = rng.choice([ARRIVAL, ARRIVAL, DEPARTURE, DROP])
        if kind == DEPARTURE and occupancy[q] < length:
            kind = ARRIVAL
        occupancy[q] += length if kind == ARRIVAL else -length if kind == DEPARTURE else 0
        gap = rng.choice([0, 0, 1, 7, 100, rng.randrange(1 << 19), (1 << 19) - 1])
        out += ev(kind, q, length, gap)
    return out


def edge_frames():
    rng = random.Random(5)
    sizes = (10, 0, 300, 4, 0, 0, 9, 7000)
    frames = []
    # Gaps just below 2^19 from 16 ticks below 2^32: the tick carries into bit 32.
    body = ts((1 << 32) - 16) + b"".join(ev(ARRIVAL, q % 8, 8, (1 << 19) - 1 - (q % 2))
                                           for q in range(40))
    frames.append(header(seq=1, sizes=sizes) + body)
    # Timestamps inserted mid-packet, one of them earlier than the tick before it.
    body = (ts(1000) + ev(ARRIVAL, 0, 10, 5) + ev(DEPARTURE, 0, 3, 0) +
            ts(5_000_000) + ev(ARRIVAL, 2, 1, 0) + ev(DROP, 2, 4, 9) +
            ts(777) + ev(DEPARTURE, 2, 1, 3) + ts(1 << 40) + ts((1 << 40) + 600000) +
            ev(ARRIVAL, 3, 2, 1))
    frames.append(header(seq=2, c=2, sizes=sizes) + body)
    # The M flag, c = 3.
    frames.append(header(seq=3, c=3, missed=True, sizes=sizes) + ts(123456789) +
                  random_events(rng, 30, sizes))
    # The tick wraps at 2^62.
    frames.append(header(seq=4, c=1, sizes=sizes) + ts(MASK62 - 4) +
                  ev(ARRIVAL, 1, 8, 2) + ev(ARRIVAL, 1, 8, 2) + ev(DEPARTURE, 1, 8, 2) +
                  ev(DROP, 1, 8, (1 << 19) - 1))
    # c = 7 and a huge tick: time_ns = tick * 1024 wraps at 2^64.
    frames.append(header(seq=5, c=7, sizes=sizes) + ts(MASK62 - 100) +
                  ev(ARRIVAL, 7, 255, 0) + ev(DROP, 7, 255, 99) + ev(DEPARTURE, 7, 255, 77))
    for c in range(8):  # every resolution
        frames.append(header(seq=10 + c, c=c, sizes=sizes) + ts(rng.randrange(1 << 62)) +
                      random_events(rng, 20, sizes))
    # The hardware's longest packet (IP total length 9000: 2233 slots) and the longest frame.
    n = (9000 - 66) // 4 - 2
    frames.append(header(seq=20, c=0, sizes=sizes) + ts(99) + random_events(rng, n, sizes))
    n = (65535 - 66) // 4 - 2
    frames.append(header(seq=21, c=4, sizes=sizes) + ts(1 << 50) + random_events(rng, n, sizes))
    # Version 1: the 19-bit field is the tick's low bits (here wrapping past 2^19).
    v1 = header_v1(seq=30, sizes=sizes, packets=(1, 2, 3, 4, 5, 6, 7, 8))
    frames.append(v1 + ts((1 << 19) * 5 + 100) + ev(ARRIVAL, 0, 9, 200) + ev(DEPARTURE, 0, 9, 50) +
                  ev(DROP, 4, 1, 50) + ts(1 << 33) + ev(ARRIVAL, 5, 2, 7))
    frames.append(v1 + ts(42))  # a version 1 packet may hold a timestamp alone
    return [frame(p, ident=i) for i, p in enumerate(frames)]


def malformed_frames():
    good = header(seq=7, c=1) + ts(100) + ev(ARRIVAL, 1, 2, 3)
    payloads = [
        b"",                                      # truncated (empty)
        b"\x02",                                  # truncated
        good[:37],                                # truncated: one byte short of the header
        header_v1()[:60],                         # truncated version 1 header
        bytes([0x03]) + good[1:],                 # bad version 3
        bytes([0x70]) + good[1:],                 # bad version 0
        bytes([0x0f]) + good[1:],                 # bad version 15
        good[:1] + b"\x04" + good[2:],            # bad event types
        good + b"\x00",                           # partial slot
        good + b"\x00\x00\x00",                   # partial slot
        header(seq=8),                            # no slot at all
        header(seq=9, missed=True) + ts(5) + ts(6),  # timestamps only
        header(seq=10) + ev(ARRIVAL, 0, 1, 1) + ts(5) + ev(ARRIVAL, 0, 1, 1),  # not a timestamp
        header(seq=11) + ts(5)[:4],               # a lone timestamp slot
        header(seq=12) + ts(5) + ev(DROP, 3, 3, 3) + ts(9)[:4],  # timestamp cut at the end
    ]
    frames = [frame(p, ident=i) for i, p in enumerate(payloads)]
    frames.append(frame(good, sport=5353, dport=53))  # another UDP port: nobody's stat packet
    return frames


def random_frames():
    rng = random.Random(1234)
    frames = []
    for i in range(300):
        sizes = tuple(rng.randrange(1 << rng.choice([1, 8, 16, 32])) for _ in range(8))
        version = 1 if rng.random() < 0.1 else 2
        head = header_v1(i, sizes) if version == 1 else \
            header(i, rng.randrange(8), rng.random() < 0.2, sizes)
        body = ts(rng.randrange(1 << 62))
        for _ in range(rng.randrange(1, 6)):
            body += random_events(rng, rng.randrange(0, 60), sizes)
            if rng.random() < 0.3:
                body += ts(rng.randrange(1 << 62))
        body += random_events(rng, 1, sizes)
        payload = bytearray(head + body)
        if rng.random() < 0.25:  # corrupt a few bytes (header and slots alike)
            for _ in range(rng.randrange(1, 4)):
                payload[rng.randrange(len(payload))] = rng.randrange(256)
            if rng.random() < 0.3:
                del payload[rng.randrange(len(payload)):]
        frames.append(frame(bytes(payload), ident=i))
    return frames


def sim_capture(sim_binary, cli, work):
    """A real capture: the simulated switch configured through the CLI, the resolution changed
    twice while capturing (8 ns, 128 ns, 1024 ns), queue 1 overloaded and dropping."""
    pcap = os.path.join(work, "sim.pcap")
    with Simulator(sim_binary, work, [
            "--duration", "10s", "--port", "0:gen=0.7,to=1,size=imix,seed=1",
            "--port", "2:gen=0.7,to=1,seed=2", "--port", "4:gen=0.1,to=3,seed=3",
            "--port", "3:gen=0.2,seed=4", "--port", "5:out=" + pcap], wait=True) as sim:
        device = "sim:" + sim.socket_path

        def run(*args):
            out = subprocess.run([cli, "-d", device] + list(args), capture_output=True,
                                 text=True, timeout=60)
            if out.returncode != 0:
                raise RuntimeError("pktstats %s: %s" % (" ".join(args), out.stderr))
            return out.stdout

        def cycles():
            return json.loads(run("-j", "timer", "show"))["cycles"]

        def wait(n):
            target = cycles() + n
            deadline = time.monotonic() + 120
            while cycles() < target:
                if time.monotonic() > deadline:
                    raise RuntimeError("simulator stalled")
                time.sleep(0.02)

        for port in range(4):
            run("fdb", "add", "02:00:00:00:00:%02x" % (port + 1), "port", str(port), "static")
        run("queue", "set", "1", "limit", "60")
        run("capture", "set", "resolution", "8ns", "queues", "all", "events", "all",
            "output-ports", "5", "max-length", "1500", "flush-timeout", "50us")
        run("capture", "start")
        sim.request("start")
        for tick in ("128ns", "1024ns"):
            wait(40_000)
            run("capture", "set", "resolution", tick)
        wait(40_000)
        run("capture", "stop")
        wait(10_000)
        sim.stop()  # SIGINT: the simulator closes its pcap
    os.chmod(pcap, 0o644)
    return pcap


# ---------------------------------------------------------------------------------------------
# The two views

HEADER_FIELDS = ["pktstats.error", "pktstats.version", "pktstats.missed", "pktstats.resolution",
                 "pktstats.event_types", "pktstats.seq", "pktstats.queue_size",
                 "pktstats.queue_packets", "pktstats.slots", "pktstats.events",
                 "pktstats.timestamps", "pktstats.start_tick", "pktstats.first_tick",
                 "pktstats.last_tick"]
EVENT_FIELDS = ["pktstats.event.type", "pktstats.event.queue", "pktstats.event.length",
                "pktstats.event.tick", "pktstats.event.time", "pktstats.event.occupancy",
                "pktstats.event.slot"]


def tshark_command(pcap, extra=()):
    command = ["tshark", "-n", "-X", "lua_script:" + LUA_RUN, "-r", pcap, "-T", "fields",
               "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,",
               "-e", "frame.number"]
    for field in HEADER_FIELDS + EVENT_FIELDS:
        command += ["-e", field]
    command += list(extra)
    if os.geteuid() == 0 and shutil.which("setpriv"):
        # Wireshark warns when run as root; run it as nobody, as its documentation advises.
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command
    return command


def tshark_view(pcap, work, extra=()):
    """[(frame number, {field: [values]})] from tshark, and its stderr."""
    env = dict(os.environ, HOME=work)  # no personal Wireshark profile: deterministic
    proc = subprocess.run(tshark_command(pcap, extra), capture_output=True, text=True, env=env,
                          cwd=work, timeout=600)
    # As root without setpriv: the warning is the one line allowed on stderr.
    stderr = "".join(line for line in proc.stderr.splitlines(True)
                     if not line.startswith('Running as user "root"'))
    rows = []
    for line in proc.stdout.splitlines():
        cells = line.split("\t")
        fields = {}
        for name, cell in zip(HEADER_FIELDS + EVENT_FIELDS, cells[1:]):
            fields[name] = cell.split(",") if cell else []
        rows.append((int(cells[0]), fields))
    return rows, proc.returncode, stderr


def decoder_view(decode_fields, pcap, port=PORT, options=()):
    proc = subprocess.run([decode_fields, "--port", str(port)] + list(options) + [pcap],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError("decode_fields: " + proc.stderr)
    return [json.loads(line) for line in proc.stdout.splitlines()]


def as_bool(values):
    return [{"1": True, "0": False, "True": True, "False": False}.get(v, v) for v in values]


def differences(ref, got):
    """What differs between one decoder record and one tshark row ([] = nothing)."""
    diff = []

    def same(name, want, have):
        if want != have:
            diff.append("%s: decoder %s, tshark %s" % (name, want, have))

    if ref["stat"] and ref["payload_len"] == 0:
        # An empty UDP payload: Wireshark's UDP dissector hands it to no subdissector, so
        # tshark shows nothing where the decoder says "truncated" (the one known difference).
        if any(got.values()):
            diff.append("an empty datagram was dissected")
        return diff
    if not ref["stat"]:
        if any(got.values()):
            diff.append("not a stat packet for the decoder, tshark dissected it")
        return diff
    same("error", [ref["error"]] if ref["error"] else [], got["pktstats.error"])
    if ref["version"] == 0:  # the decoder could not read the header: nothing else to compare
        return diff
    ints = lambda name: [int(v, 0) for v in got[name]]  # noqa: E731
    same("version", [ref["version"]], ints("pktstats.version"))
    same("missed", [ref["missed"]], as_bool(got["pktstats.missed"]) or [False])
    same("resolution", [ref["resolution"]], ints("pktstats.resolution"))
    same("event_types", [ref["event_types"]], ints("pktstats.event_types"))
    same("sequence", [ref["sequence"]], ints("pktstats.seq"))
    same("queue_size", ref["queue_size"], ints("pktstats.queue_size"))
    same("queue_packets", ref["queue_packets"] if ref["version"] == 1 else [],
         ints("pktstats.queue_packets"))
    same("slots", [ref["n_slots"]], ints("pktstats.slots"))
    if ref["error"]:  # the decoder reports no event of a malformed packet
        return diff
    same("events", [ref["n_events"]], ints("pktstats.events"))
    same("timestamps", [ref["n_timestamps"]], ints("pktstats.timestamps"))
    same("start_tick", [ref["start_tick"]], ints("pktstats.start_tick"))
    same("first_tick", [ref["first_tick"]], ints("pktstats.first_tick"))
    same("last_tick", [ref["last_tick"]], ints("pktstats.last_tick"))
    columns = list(zip(*[ints(name) for name in EVENT_FIELDS]))
    events = [tuple(e) for e in ref["events"]]
    if len(columns) != len(events):
        diff.append("%d events from the decoder, %d from tshark" % (len(events), len(columns)))
    for i, (want, have) in enumerate(zip(events, columns)):
        if want != have:
            diff.append("event %d (type, queue, length, tick, time_ns, occupancy, slot): "
                        "decoder %s, tshark %s" % (i, want, have))
            break
    return diff


def compare(tap, name, decode_fields, pcap, work, port=PORT, extra=(), options=()):
    """One TAP point per aspect: tshark ran cleanly, same frames, same packets, same events.
    `extra`: tshark options; `options`: decode_fields options."""
    ref = decoder_view(decode_fields, pcap, port, options)
    rows, status, stderr = tshark_view(pcap, work, extra)
    tap.point(status == 0 and not stderr.strip(), "%s: tshark with the dissector runs cleanly"
              % name, "exit %s, stderr: %s" % (status, stderr))
    tap.point([r["frame"] for r in ref] == [n for n, _ in rows],
              "%s: tshark and the decoder see the same %d frames" % (name, len(ref)),
              "decoder %d, tshark %d" % (len(ref), len(rows)))
    stats = [r for r in ref if r["stat"]]
    bad = []
    for r, (_, fields) in zip(ref, rows):
        d = differences(r, fields)
        if d:
            bad.append("frame %d: %s" % (r["frame"], "; ".join(d)))
    n_events = sum(len(r["events"]) for r in stats)
    n_bad = sum(1 for r in stats if r["error"])
    tap.point(not bad and len(rows) == len(ref),
              "%s: every header field and every event agree (%d stat packets, %d malformed, "
              "%d events)" % (name, len(stats), n_bad, n_events), "\n".join(bad[:10]))
    return ref


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("decode_fields")
    parser.add_argument("sim")
    parser.add_argument("cli")
    parser.add_argument("--keep", help="keep the captures in this directory")
    args = parser.parse_args()
    tap = Tap()
    if not shutil.which("tshark"):
        print("1..0 # SKIP tshark is not installed (make deps)")
        return 0
    work = tempfile.mkdtemp(prefix="pktstats-wireshark-")
    os.chmod(work, 0o755)  # tshark may run as nobody
    global LUA_RUN
    LUA_RUN = os.path.join(work, "pktstats.lua")  # a copy nobody can read wherever the tree is
    shutil.copy(LUA, LUA_RUN)
    os.chmod(LUA_RUN, 0o644)
    try:
        path = lambda name: os.path.join(work, name)  # noqa: E731

        write_pcap(path("edges.pcap"), edge_frames())
        ref = compare(tap, "edges", args.decode_fields, path("edges.pcap"), work)
        tap.point(all(r["stat"] and not r["error"] for r in ref),
                  "edges: the decoder takes every edge case as valid",
                  [r for r in ref if r.get("error")][:3])

        # Version 1 carries no resolution: the preference and the decoder option agree.
        ref = compare(tap, "edges-v1-c5", args.decode_fields, path("edges.pcap"), work,
                      extra=["-o", "pktstats.v1_resolution:5"], options=["--v1-resolution", "5"])
        tap.point(sorted({r["resolution"] for r in ref if r["version"] == 1}) == [5],
                  "edges-v1-c5: version 1 packets decoded at c = 5")
        rows, _, _ = tshark_view(path("edges.pcap"), work, ["-o", "pktstats.accept_v1:FALSE"])
        errors = [fields["pktstats.error"] for _, fields in rows]
        tap.point(errors[-2:] == [["bad_version"]] * 2 and not any(errors[:-2]),
                  "edges: with pktstats.accept_v1 off, version 1 packets are bad_version", errors)

        write_pcap(path("malformed.pcap"), malformed_frames())
        ref = compare(tap, "malformed", args.decode_fields, path("malformed.pcap"), work)
        verdicts = {r["error"] for r in ref if r["stat"]}
        every = {"truncated", "bad_version", "bad_event_types", "partial_slot", "no_events",
                 "first_not_timestamp", "cut_timestamp"}
        tap.point(verdicts == every and not ref[-1]["stat"],
                  "malformed: every payload verdict of the decoder is covered, the other port "
                  "is ignored", sorted(verdicts))

        write_pcap(path("random.pcap"), random_frames())
        compare(tap, "random", args.decode_fields, path("random.pcap"), work)

        write_pcap(path("port.pcap"), [frame(header(seq=77, c=5) + ts(1 << 35) +
                                             ev(DROP, 6, 17, 4), sport=40000, dport=40001)])
        rows, _, _ = tshark_view(path("port.pcap"), work)
        tap.point(rows and not any(rows[0][1].values()),
                  "port: UDP 40001 is not dissected by default", rows)
        compare(tap, "port", args.decode_fields, path("port.pcap"), work, port=40001,
                extra=["-o", "pktstats.udp_port:40001"])

        pcap = sim_capture(args.sim, args.cli, work)
        ref = compare(tap, "sim", args.decode_fields, pcap, work)
        stats = [r for r in ref if r["stat"] and not r["error"]]
        events = [e for r in stats for e in r["events"]]
        tap.point(len(stats) >= 20 and {r["resolution"] for r in stats} == {0, 4, 7}
                  and {e[0] for e in events} == {ARRIVAL, DEPARTURE, DROP},
                  "sim: a real capture with resolutions 0, 4, 7 and arrivals, departures, drops "
                  "(%d packets, %d events)" % (len(stats), len(events)),
                  "resolutions %s, types %s" % (sorted({r["resolution"] for r in stats}),
                                                sorted({e[0] for e in events})))
    finally:
        if args.keep:
            shutil.rmtree(args.keep, ignore_errors=True)
            shutil.copytree(work, args.keep)
        shutil.rmtree(work, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
