#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seed corpus for the fuzz targets of the stat packet decoder and of the link frame parsers,
from real frames of the simulator.

Stat packets (tb/fuzz/fuzz_stream.c, tb/fuzz/fuzz_payload.c): short pktstats-sim captures
configured through the pktstats CLI, with several resolutions, packet lengths, drops (a queue
limit under incast), flush timeouts and an explicit `capture flush`, plus hand-made edge cases
the simulator never emits (version 1, VLAN tag, IP options, trailers, cut packets).

Link frames (tb/fuzz/fuzz_dm.c, fuzz_headroom.c, fuzz_isl.c, fuzz_isl_token.c): what the CPU
ports of the two simulated switches of tb/sim/two_switches.py get back when they send DMMs,
1DMs, headroom requests and OpenKilda discovery packets to each other, every stamp written by
the switches (link_frames() says how), a few frames as they were sent, and a few hand-made ones
(stamps at their edges, other Data TLVs, tokens with other headers and claims).

    tb/fuzz/make_corpus.py --out DIR [--sim build/bin/pktstats-sim] [--cli build/bin/pktstats]
    tb/fuzz/make_corpus.py --curate tb/fuzz/corpus     # the small set kept in the repository

DIR/stream/ gets runs of 1-6 consecutive stat frames (the stream target's record format, so
that in-order sequences are the starting point), DIR/payload/ single UDP payloads (with the
payload target's option byte in front), DIR/dm/, headroom/, isl/ single frames, DIR/isl_token/
tokens (the isl_token target's option byte in front). --curate keeps a few dozen small files,
so that `make fuzz` works offline from a fresh clone; `make fuzz` adds the full DIR when it
exists. --targets makes only some (default: all); --minimize BUILD then keeps, of the link
targets' new seeds, only those that `BUILD/fuzz/fuzz_TARGET -merge=1` keeps (each adds
coverage): tb/fuzz/corpus/{dm,headroom,isl,isl_token} are

    tb/fuzz/make_corpus.py --curate tb/fuzz/corpus --targets dm,headroom,isl,isl_token \
        --minimize build
"""

import argparse
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
sys.path.insert(0, os.path.join(HERE, "..", "sim"))
from cli_harness import Simulator, run_cli  # noqa: E402
import isl_frames as K  # noqa: E402
import oam_frames as F  # noqa: E402
import pktstats_sim  # noqa: E402
import test_sim_oam as T  # noqa: E402
import two_switches  # noqa: E402

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


# ---------------------------------------------------------------------------------------------
# Link frames (dm, headroom, isl, isl_token)

STAT_TARGETS = ("stream", "payload")
FRAME_TARGETS = ("dm", "headroom", "isl", "isl_token")
DM_SESSION = 0x706b7473  # FUZZ_DM_SESSION of tb/fuzz/fuzz_dm.c: switch A's DMMs carry it
OTHER_SESSION = 0x0b0b0b0b  # switch B's: its DMRs are another sender's to the DM target
A, B = 0, 1
DM_PORT = {A: 1, B: 2}  # the 100 m cable; the ISL packets cross it too
HEADROOM_PORT = {A: 2, B: 1}  # the 2 km cable
SPACING_NS = 10000
R = pktstats_sim.registers()


def probe_data(session, sequence, frame_size=0):
    """A Data TLV's value as oam_probe.c's dm_probe_build writes it: session, sequence, then
    zeros up to a frame of frame_size bytes (untagged DMM)."""
    head = struct.pack(">II", session, sequence)
    return head + bytes(max(0, frame_size - (14 + 4 + 32 + 3 + 1) - len(head)))


def link_frames(sim, count):
    """Runs the two switches of tb/sim/two_switches.py (their clocks 1.5 s and 100 ppm apart)
    for the link frames. Switch A sends, from the CPU port bound to its port 1 (100 m cable to
    B's port 2), DMMs of session DM_SESSION (every fourth 802.1Q-tagged, every third padded to
    128 bytes as `pktstats dm size 128` pads them), 1DMs and OpenKilda discovery packets
    (isl_frames.discovery(): signed with the secret "secret", a packet ID each), and from the
    one bound to its port 2 (2 km to B's port 1) headroom requests; B sends DMMs of
    OTHER_SESSION and 1DMs back to A. Both DM ports answer DMMs, B's headroom port answers
    requests, A's ports stamp T0 and T1, B's reflects discovery packets: the settings and
    frames tb/sim/test_sim_oam.py and tb/sim/test_sim_isl.py check against the wire truth.
    Returns {target: [(name, frame)]}: what came up to the CPU ports, and one of each kind as
    it was sent."""
    work = tempfile.mkdtemp(prefix="pktstats-corpus-links-")
    try:
        me = {k: F.mac_bytes(T.MEP[(k, DM_PORT[k])]) for k in (A, B)}
        sent = {A: [], B: []}
        for i in range(count):
            sent[A].append(("sent-dmm" if i == 0 else None, F.dm(
                me[B], me[A], F.OPCODE_DMM, level=T.LEVEL, vlan=100 + i if i % 4 == 3 else None,
                data=probe_data(DM_SESSION, i, 128 if i % 3 == 2 else 0))))
            sent[A].append(("sent-1dm" if i == 0 else None, F.dm(
                me[B], me[A], F.OPCODE_1DM, level=T.LEVEL, data=probe_data(DM_SESSION, i))))
            sent[A].append(("sent-isl-discovery" if i == 0 else None, K.discovery(
                T.MEP[(A, DM_PORT[A])], DM_PORT[A], bytes([10, 0, 0, 1]), 1700000000000 + i,
                packet_id=i)))
            sent[B].append((None, F.dm(me[A], me[B], F.OPCODE_DMM, level=T.LEVEL,
                                       data=probe_data(OTHER_SESSION, i))))
            sent[B].append((None, F.dm(me[A], me[B], F.OPCODE_1DM, level=T.LEVEL,
                                       data=probe_data(OTHER_SESSION, i))))
        requests = [F.headroom(F.mac_bytes(T.MEP[(A, HEADROOM_PORT[A])]), F.HEADROOM_REQUEST)
                    for _ in range(count)]
        args = two_switches.arguments(work, 1, 5)
        ups = {}
        for k, port, frames in ((A, DM_PORT[A], sent[A]), (B, DM_PORT[B], sent[B]),
                                (A, HEADROOM_PORT[A], [(None, f) for f in requests])):
            cpu = 4 + port
            path = os.path.join(work, "in%d-%d.pcap" % (k, cpu))
            F.write_pcap(path, [f for _, f in frames], SPACING_NS)
            ups[(k, cpu)] = os.path.join(work, "up%d-%d.pcap" % (k, cpu))
            args += ["--port", "%d.%d:in=%s" % (k, cpu, path),
                     "--port", "%d.%d:out=%s" % (k, cpu, ups[(k, cpu)])]
        dm_control = T.control(dm=True, dm_responder=True, cpu_bound=True)
        isl = {A: R["OAM_CONTROL_0_ISL_COPY_FIELD_MASK"] | R["OAM_CONTROL_0_ISL_GROUP_MASK"],
               B: R["OAM_CONTROL_0_ISL_GROUP_MASK"]}
        s0 = pktstats_sim.Simulator(sim, work, args, name="s0", wait=True)
        try:
            with pktstats_sim.Connection(os.path.join(work, "s1.sock")) as s1:
                conns = {A: s0, B: s1}
                for k in (A, B):
                    two_switches.write_tables(conns[k], R, k)
                    for p in (DM_PORT[k], HEADROOM_PORT[k]):
                        conns[k].write(R["STAMP_TX_CORRECTION_%d" % p], T.TX_CORRECTION_NS)
                        conns[k].write(R["STAMP_RX_CORRECTION_%d" % p], T.RX_CORRECTION_NS)
                    T.configure_port(conns[k], DM_PORT[k], dm_control | isl[k],
                                     T.MEP[(k, DM_PORT[k])])
                    T.configure_port(conns[k], HEADROOM_PORT[k],
                                     T.control(headroom=True, headroom_responder=k == B,
                                               cpu_bound=True), T.MEP[(k, HEADROOM_PORT[k])])
                start = s0.start()
                T.wait_for_clock(s0, start + (3 * count * SPACING_NS + 300000) // 8)
                status = s0.stop()
        except BaseException:
            s0.kill()
            raise
        if status != 0:
            raise RuntimeError("pktstats-sim failed: " + s0.log())
        out = {t: [] for t in ("dm", "headroom", "isl")}
        for name, frame in sent[A]:
            if name:
                out["isl" if "isl" in name else "dm"].append((name, frame))
        out["headroom"].append(("sent-headroom-request", requests[0]))
        seen = {}
        for (k, cpu), path in sorted(ups.items()):
            for _, frame in F.read_pcap(path):
                kind = up_kind(frame)
                if kind is None:
                    continue
                n = seen[(k, kind)] = seen.get((k, kind), -1) + 1
                name = "sim-%s-%s-%02d" % ("ab"[k], kind, n)
                out["isl" if kind.startswith("isl") else kind.split("-")[0]].append((name, frame))
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def up_kind(frame):
    """What came up to a CPU port: "dm-dmr", "dm-dmr-tagged", "dm-1dm", "headroom-response",
    "isl-round-trip", "isl-copy"; None for anything else."""
    tagged = frame[12:14] == b"\x81\x00"
    ethertype = struct.unpack_from(">H", frame, 16 if tagged else 12)[0]
    if ethertype == F.ETHERTYPE_CFM:
        opcode = frame[19 if tagged else 15]
        names = {F.OPCODE_DMR: "dm-dmr", F.OPCODE_1DM: "dm-1dm"}
        return names.get(opcode, "dm-other") + ("-tagged" if tagged else "")
    if ethertype == F.ETHERTYPE_HEADROOM:
        return "headroom-response" if frame[15] & 3 == F.HEADROOM_RESPONSE else "headroom-other"
    try:
        return "isl-round-trip" if K.parse(frame)["round_trip"] else "isl-copy"
    except ValueError:
        return None


def token_inputs(isl_frames_seen):
    """isl_token inputs: option byte 0 and a whole token (those of the discovery packets), or
    option byte 1 and the first two parts (the target signs them); plus tokens of other headers
    and claims written by isl_frames.jwt_sign."""
    out = []
    tokens = sorted({K.parse(f)["token"] for _, f in isl_frames_seen if "token" in K.parse(f)})
    for i, token in enumerate(tokens[:2]):
        out.append(("sim-token-%02d" % i, b"\x00" + token))
        out.append(("sim-token-%02d-resigned" % i, b"\x01" + token.rsplit(b".", 1)[0]))
    claims = {
        "negative-dpid-no-id": {"dpid": K.java_long(0x8000020000000001), "ts": 1700000000123},
        "id-negative": {"dpid": 1, "ts": 2, "id": -42},
        "dpid-string": {"dpid": "1", "ts": 2},
        "no-ts": {"dpid": 1},
    }
    for name, c in sorted(claims.items()):
        out.append(("hand-" + name, b"\x01" + K.jwt_sign(c, b"secret").rsplit(b".", 1)[0]))
    out.append(("hand-alg-none", b"\x01" + K.jwt_sign({"dpid": 1, "ts": 2}, b"secret",
                                                       header={"alg": "none"}).rsplit(b".", 1)[0]))
    reordered = K.jwt_sign({"ts": 5, "dpid": 7, "id": 1}, b"secret",
                           header={"typ": "JWT", "alg": "HS256"})
    out.append(("hand-header-order", b"\x01" + reordered.rsplit(b".", 1)[0]))
    return out


def frame_handmade():
    """(target, name, frame): stamps at their edges and beyond, other Data TLVs, a second
    Data TLV."""
    a, b = F.mac_bytes(T.MEP[(A, 1)]), F.mac_bytes(T.MEP[(B, 2)])
    edge = {"tx_f": (0xffffffff, 999999999), "rx_f": (0, 1), "tx_b": (1, 0),
            "rx_b": (0x80000000, 999999999)}
    second = F.dm(a, b, F.OPCODE_DMR, level=7, stamps=edge, data=b"\x01")
    second = second[:-1] + struct.pack(">BH", 3, 8) + struct.pack(">II", DM_SESSION, 9) + b"\x00"
    return [
        ("dm", "hand-dmr-edge-stamps", F.dm(a, b, F.OPCODE_DMR, version=1, stamps=edge,
                                           data=probe_data(DM_SESSION, 7))),
        ("dm", "hand-dmr-short-data-tlv", F.dm(a, b, F.OPCODE_DMR, stamps=edge, data=b"abc")),
        ("dm", "hand-dmr-second-data-tlv", second),
        ("dm", "hand-1dm-tagged-edge", F.dm(a, b, F.OPCODE_1DM, vlan=4095, stamps=edge)),
        ("headroom", "hand-response-edge-stamps", F.headroom(
            b, F.HEADROOM_RESPONSE, {"t1": (0xffffffff, 999999999), "t2": (5, 0),
                                     "t3": (4, 999999999), "t4": (1, 1)})),
        ("headroom", "hand-response-48-bytes", F.headroom(b, F.HEADROOM_RESPONSE, length=48)),
        ("headroom", "hand-request-bad-nanoseconds", F.headroom(
            a, F.HEADROOM_REQUEST, {"t1": (1, 0xffffffff)})),
        ("dm", "hand-dmm-bad-nanoseconds", F.dm(b, a, F.OPCODE_DMM, stamps={"tx_f": (1, 10**9)})),
    ]


def write_link_frames(target_dir, frames, targets, keep):
    """Writes the link frames of the requested targets (at most `keep` of each kind with
    --curate); returns {target: [names written]}."""
    written = {t: [] for t in targets}
    kinds = {}
    for target, items in sorted(frames.items()):
        for name, frame in items:
            kind = name.rsplit("-", 1)[0] if name.startswith("sim-") else name
            kinds[kind] = kinds.get(kind, 0) + 1
            if target in targets and (keep is None or kinds[kind] <= keep):
                write(os.path.join(target_dir, target), name, frame)
                written[target].append(name)
    for target, name, frame in frame_handmade():
        if target in targets:
            write(os.path.join(target_dir, target), name, frame)
            written[target].append(name)
    if "isl_token" in targets:
        for name, data in token_inputs(frames["isl"]):
            write(os.path.join(target_dir, "isl_token"), name, data)
            written["isl_token"].append(name)
    return written


def minimize(target_dir, target, names, build):
    """Keeps of `names` (in target_dir/target) those libFuzzer's -merge=1 keeps."""
    directory = os.path.join(target_dir, target)
    fuzzer = os.path.join(build, "fuzz", "fuzz_" + target)
    staged = tempfile.mkdtemp(prefix="pktstats-corpus-new-")
    merged = tempfile.mkdtemp(prefix="pktstats-corpus-merged-")
    try:
        for name in names:
            shutil.copy(os.path.join(directory, name), staged)
        subprocess.run([fuzzer, "-merge=1", merged, staged], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        kept = set(os.listdir(merged))  # named by the SHA-1 of their content
        dropped = 0
        for name in names:
            path = os.path.join(directory, name)
            with open(path, "rb") as f:
                if hashlib.sha1(f.read()).hexdigest() not in kept:
                    os.remove(path)
                    dropped += 1
        print("%s: -merge=1 kept %d of %d new seeds" % (target, len(names) - dropped,
                                                         len(names)), file=sys.stderr)
    finally:
        shutil.rmtree(staged, ignore_errors=True)
        shutil.rmtree(merged, ignore_errors=True)


def write(directory, name, data):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write every seed here (a folder per target)")
    parser.add_argument("--curate", help="write the small curated set here (a folder per target)")
    parser.add_argument("--sim", default="build/bin/pktstats-sim")
    parser.add_argument("--cli", default="build/bin/pktstats")
    parser.add_argument("--targets", default=",".join(STAT_TARGETS + FRAME_TARGETS),
                        help="the targets to write seeds for (default: all)")
    parser.add_argument("--minimize", metavar="BUILD",
                        help="keep only the new seeds BUILD/fuzz/fuzz_TARGET -merge=1 keeps")
    args = parser.parse_args()
    if not args.out and not args.curate:
        parser.error("--out or --curate")
    targets = args.targets.split(",")
    unknown = set(targets) - set(STAT_TARGETS + FRAME_TARGETS)
    if unknown:
        parser.error("unknown targets: " + ", ".join(sorted(unknown)))

    captures, links = {}, {}
    if set(targets) & set(STAT_TARGETS):
        work = tempfile.mkdtemp(prefix="pktstats-corpus-")
        try:
            for name, sim_args, cap_args, queue_args, flush, duration in SCENARIOS:
                captures[name] = capture(name, sim_args, cap_args, queue_args, flush, duration,
                                         args.sim, args.cli, work)
                print("%s: %d stat frames" % (name, len(captures[name])), file=sys.stderr)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    if set(targets) & set(FRAME_TARGETS):
        links = link_frames(args.sim, 12)
        print("link frames: %s" % {t: len(f) for t, f in links.items()}, file=sys.stderr)

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
                if "stream" in targets:
                    write(os.path.join(target_dir, "stream"), "sim-%s-%04d" % (name, j),
                          stream_input(run, opt, (s + j) % 16))
                if "payload" in targets:
                    write(os.path.join(target_dir, "payload"), "sim-%s-%04d" % (name, j),
                          bytes([0x01 | ((s + j) % 16) << 4]) + udp_payload(frames[j]))
                n += 1
        if captures:
            for name, p, st in handmade():
                if p is not None and "payload" in targets:
                    write(os.path.join(target_dir, "payload"), "hand-" + name, p)
                if "stream" in targets:
                    write(os.path.join(target_dir, "stream"), "hand-" + name, st)
            print("%s: %d simulator seeds per stat target plus hand-made cases" % (target_dir, n),
                  file=sys.stderr)
        if links:
            written = write_link_frames(target_dir, links, targets, None if keep is None else 2)
            for target, names in sorted(written.items()):
                if args.minimize and names:
                    minimize(target_dir, target, names, args.minimize)


if __name__ == "__main__":
    main()
