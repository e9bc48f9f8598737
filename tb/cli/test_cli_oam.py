#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`pktstats oam`, `dm` and `headroom`: what needs no network (docs/oam.md, docs/cli.md).

    tb/cli/test_cli_oam.py build/asan/bin/pktstats build/bin/pktstats-sim

- bad invocations of every new verb: exit 2, nothing on stdout, one line on stderr
  "pktstats: OBJECT VERB: ..." naming the bad word; checked before any device or interface
  is opened (the interface given does not exist, so opening it would exit 1);
- `headroom compute` reproduces the table of seed 004 (100 Gb/s at 500 m, 100 m, 20 m:
  92096, 42096, 32096 bytes; 10 ns and 100 ns of round-trip error: 125 and 1250 bytes,
  0.1 / 0.3 / 0.4 % and 1 / 3 / 4 %), text and -j;
- `oam decode` on pcaps written here with struct, frame by frame from the byte maps of
  docs/oam.md: every field of the JSON contract, other and malformed counts; the text form;
- `oam show/set/clear` through the library's mmap backend on a plain file (an identity and the
  oam block's type word): the bytes written at regmap/oam.toml's addresses, counters shown;
- `oam show/set/clear` on the simulator, against its registers (`reg read`).
Prints TAP.
"""

import json
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_harness import Simulator, Tap, pktstats_sim, run_cli  # noqa: E402

NOIF = "nosuchif0"
PEER = "02:00:00:00:00:02"

# (args, object verb, the word the message must contain)
BAD = [
    (["oam", "show", "port", "4"], "oam show", "port '4'"),
    (["oam", "show", "bogus"], "oam show", "'bogus'"),
    (["oam", "show", "port"], "oam show", "'port'"),
    (["oam", "show", "port", "1", "extra"], "oam show", "'extra'"),
    (["oam", "set"], "oam set", "port N"),
    (["oam", "set", "port", "0"], "oam set", "nothing to set"),
    (["oam", "set", "port", "x", "dm", "on"], "oam set", "port 'x'"),
    (["oam", "set", "port", "0", "dm", "maybe"], "oam set", "dm 'maybe'"),
    (["oam", "set", "port", "0", "dm-responder", "1"], "oam set", "dm-responder '1'"),
    (["oam", "set", "port", "0", "dm-level", "8"], "oam set", "dm-level '8'"),
    (["oam", "set", "port", "0", "headroom", "yes"], "oam set", "headroom 'yes'"),
    (["oam", "set", "port", "0", "headroom-responder", "x"], "oam set", "headroom-responder 'x'"),
    (["oam", "set", "port", "0", "cpu-bound", "-1"], "oam set", "cpu-bound '-1'"),
    (["oam", "set", "port", "0", "mac", "zz"], "oam set", "mac 'zz'"),
    (["oam", "set", "port", "0", "byte-time", "0"], "oam set", "byte-time '0'"),
    (["oam", "set", "port", "0", "byte-time", "4096"], "oam set", "byte-time '4096'"),
    (["oam", "set", "port", "0", "colour", "red"], "oam set", "'colour'"),
    (["oam", "set", "port", "0", "dm", "on", "dm", "off"], "oam set", "dm given twice"),
    (["oam", "set", "port", "0", "dm"], "oam set", "dm needs a value"),
    (["oam", "clear", "port", "x"], "oam clear", "port 'x'"),
    (["oam", "decode"], "oam decode", "no capture file"),
    (["oam", "decode", "--bogus", "f.pcap"], "oam decode", "'--bogus'"),
    (["dm", "two-way", "peer", PEER], "dm two-way", "-i IFACE"),
    (["dm", "two-way", "-i", NOIF], "dm two-way", "peer MAC"),
    (["dm", "two-way", "-i", NOIF, "peer", "zz"], "dm two-way", "peer 'zz'"),
    (["dm", "two-way", "-i", NOIF, "peer", PEER, "count", "0"], "dm two-way", "count '0'"),
    # durations: a number of ms, or with a unit that comes to whole ms
    (["dm", "two-way", "-i", NOIF, "peer", PEER, "interval", "1500us"], "dm two-way",
     "interval '1500us': not a whole number of ms"),
    (["dm", "two-way", "-i", NOIF, "peer", PEER, "interval", "61s"], "dm two-way",
     "interval '61s': 61000 ms is outside 0..60000 ms"),
    (["dm", "two-way", "-i", NOIF, "peer", PEER, "timeout", "10parsecs"], "dm two-way",
     "timeout '10parsecs': unknown unit"),
    (["headroom", "measure", "-i", NOIF, "interval", "2.5ms"], "headroom measure",
     "interval '2.5ms': not a whole number of ms"),
    (["dm", "two-way", "-i", NOIF, "peer", PEER, "interval", "-1"], "dm two-way", "interval '-1'"),
    (["dm", "two-way", "-i", NOIF, "peer", PEER, "level", "8"], "dm two-way", "level '8'"),
    (["dm", "two-way", "-i", NOIF, "peer", PEER, "size", "61"], "dm two-way", "size '61'"),
    (["dm", "two-way", "-i", NOIF, "peer", PEER, "vlan", "1", "size", "65"], "dm two-way",
     "size '65'"),
    (["dm", "two-way", "-i", NOIF, "peer", PEER, "vlan", "4095"], "dm two-way", "vlan '4095'"),
    (["dm", "two-way", "-i", NOIF, "peer", PEER, "timeout", "601s"], "dm two-way",
     "timeout '601s'"),
    (["dm", "two-way", "-i", NOIF, "peer", PEER, "source", "1:2"], "dm two-way", "source '1:2'"),
    (["dm", "two-way", "-i", NOIF, "peer", PEER, "frob", "1"], "dm two-way", "'frob'"),
    (["dm", "two-way", "-i", NOIF, "peer", PEER, "count"], "dm two-way", "count needs a value"),
    (["dm", "one-way"], "dm one-way", "send or receive"),
    (["dm", "one-way", "frob"], "dm one-way", "'frob'"),
    (["dm", "one-way", "send", "-i", NOIF], "dm one-way", "peer MAC"),
    (["dm", "one-way", "send", "-i", NOIF, "peer", PEER, "timeout", "5"], "dm one-way",
     "'timeout'"),
    (["dm", "one-way", "send", "-i", NOIF, "peer", PEER, "size", "45"], "dm one-way",
     "size '45'"),
    (["dm", "one-way", "receive"], "dm one-way", "-i IFACE"),
    (["dm", "one-way", "receive", "-i", NOIF, "count", "0"], "dm one-way", "count '0'"),
    (["dm", "one-way", "receive", "-i", NOIF, "peer", PEER], "dm one-way", "'peer'"),
    (["headroom", "measure"], "headroom measure", "-i IFACE"),
    (["headroom", "measure", "-i", NOIF, "count", "0"], "headroom measure", "count '0'"),
    (["headroom", "measure", "-i", NOIF, "rate", "1"], "headroom measure", "rate '1'"),
    (["headroom", "measure", "-i", NOIF, "rate", "100", "internal-bits", "1", "pfc-response",
      "2"], "headroom measure", "choose one"),
    (["headroom", "measure", "-i", NOIF, "max-frame", "100"], "headroom measure", "'max-frame'"),
    (["headroom", "measure", "-i", NOIF, "timeout", "0"], "headroom measure", "timeout '0'"),
    (["headroom", "compute", "rate", "100"], "headroom compute", "round-trip NS"),
    (["headroom", "compute", "round-trip", "5"], "headroom compute", "rate GBPS"),
    (["headroom", "compute", "round-trip", "-5", "rate", "100"], "headroom compute",
     "round-trip '-5'"),
    (["headroom", "compute", "round-trip", "5", "rate", "1.2345"], "headroom compute",
     "rate '1.2345'"),
    (["headroom", "compute", "round-trip", "5", "rate", "0"], "headroom compute", "rate '0'"),
    (["headroom", "compute", "round-trip", "5", "rate", "x"], "headroom compute", "rate 'x'"),
    (["headroom", "compute", "round-trip", "5", "rate", "100", "max-frame", "59"],
     "headroom compute", "max-frame '59'"),
    (["headroom", "compute", "round-trip", "5", "rate", "100", "internal-bits", "x"],
     "headroom compute", "internal-bits 'x'"),
    (["headroom", "compute", "round-trip", "5", "rate", "25", "pfc-response", "1.5"],
     "headroom compute", "pfc-response '1.5'"),
]


def bad_invocations(tap, pktstats):
    for args, where, word in BAD:
        status, out, err = run_cli(pktstats, args, device="sim:/nonexistent/none.sock")
        lines = err.splitlines()
        tap.point(status == 2 and not out and len(lines) == 1 and
                  lines[0].startswith("pktstats: %s: " % where) and word in lines[0],
                  "usage error: pktstats %s -> exit 2, one line naming %s" % (" ".join(args), word),
                  "exit %s\nstdout %r\nstderr %r" % (status, out, err))
    # every verb has --help
    for args in (["oam", "show"], ["oam", "set"], ["oam", "clear"], ["oam", "decode"],
                 ["dm", "two-way"], ["dm", "one-way"], ["headroom", "measure"],
                 ["headroom", "compute"]):
        status, out, err = run_cli(pktstats, args + ["--help"])
        tap.point(status == 0 and out.startswith("usage: pktstats [OPTIONS] " + " ".join(args))
                  and not err, "pktstats %s --help" % " ".join(args), out + err)
    status, out, err = run_cli(pktstats, ["--help"])
    tap.point(status == 0 and all(("\n  %s " % o) in out for o in ("oam", "dm", "headroom")),
              "pktstats --help lists oam, dm and headroom", out)


# ------------------------------------------------------------------------------------------
# headroom compute: seed 004's table

SEED_TABLE = [  # (cable, round trip ns, medium bits, bytes, KB in the table, % at 10 ns, at 100 ns)
    ("500m", 5000, 500000, 92096, 92, 0.1, 1),
    ("100m", 1000, 100000, 42096, 42, 0.3, 3),
    ("20m", 200, 20000, 32096, 32, 0.4, 4),
]


def seed_table(tap, pktstats):
    for cable, rt, medium, want, kb, pct10, pct100 in SEED_TABLE:
        status, out, err = run_cli(pktstats, ["-j", "headroom", "compute", "round-trip", str(rt),
                                              "rate", "100"])
        try:
            got = json.loads(out)
        except ValueError:
            got = {}
        extra = {}
        if status == 0:
            # what 10 and 100 ns of round-trip error cost, as the seed's table puts it
            worse10 = json.loads(run_cli(pktstats, ["-j", "headroom", "compute", "round-trip",
                                                    str(rt + 10), "rate", "100"])[1])
            worse100 = json.loads(run_cli(pktstats, ["-j", "headroom", "compute", "round-trip",
                                                     str(rt + 100), "rate", "100"])[1])
            extra = {"d10": worse10["headroom_bytes"] - want,
                     "d100": worse100["headroom_bytes"] - want}
        tap.point(status == 0 and got.get("fixed_bits") == 32992 and
                  got.get("internal_bits") == 203776 and got.get("medium_bits") == medium and
                  got.get("total_bits") == 32992 + 203776 + medium and
                  got.get("headroom_bytes") == want and round(want / 1000) == kb and
                  got.get("rate_mbps") == 100000 and got.get("max_frame") == 2000 and
                  got.get("bytes_per_10ns") == 125.0,
                  "headroom compute: 100 Gb/s, %s (round trip %d ns): %d bytes (the seed's %d KB)"
                  % (cable, rt, want, kb), out + err)
        tap.point(extra.get("d10") == 125 and extra.get("d100") == 1250 and
                  round(100 * 125 / want, 1) == pct10 and round(100 * 1250 / want) == pct100,
                  "headroom compute: %s: 10 ns more round trip is 125 bytes (%.1f%%), 100 ns "
                  "1250 bytes (%d%%), as in the seed" % (cable, pct10, pct100), str(extra))
    status, out, err = run_cli(pktstats, ["headroom", "compute", "round-trip", "5000", "rate", "100"])
    tap.point(status == 0 and "headroom-bytes   92096" in out and "fixed-bits       32992" in out,
              "headroom compute: the text form", out + err)
    # the parameters that express other links: 25 Gb/s with its delay in ns, a 9216-byte MTU
    status, out, err = run_cli(pktstats, ["-j", "headroom", "compute", "round-trip", "1000", "rate",
                                          "25", "max-frame", "9216", "pfc-response", "3000"])
    got = json.loads(out) if status == 0 else {}
    fixed = 2 * (9216 + 20) * 8 + 84 * 8
    want = (fixed + 75000 + 25000 + 7) // 8
    tap.point(got.get("fixed_bits") == fixed and got.get("internal_bits") == 75000 and
              got.get("medium_bits") == 25000 and got.get("headroom_bytes") == want,
              "headroom compute: 25 Gb/s, max-frame 9216, pfc-response 3000 ns: %d bytes" % want,
              out + err)


# ------------------------------------------------------------------------------------------
# oam decode

def mac(text):
    return bytes(int(x, 16) for x in text.split(":"))


def stamp(s, ns):
    return struct.pack(">II", s, ns)


A, B = "02:00:00:00:00:01", "02:00:00:00:00:02"
GROUP = "01:80:c2:00:00:0e"


def dm_frame(dst, src, opcode, stamps, level=5, version=1, vid=None, tlv=b"", flags=0):
    """An ETH-DM frame from docs/oam.md's map; stamps: list of (s, ns)."""
    head = mac(dst) + mac(src)
    if vid is not None:
        head += struct.pack(">HH", 0x8100, (3 << 13) | vid)
    offset = 16 if opcode == 45 else 32
    pdu = bytes([level << 5 | version, opcode, flags, offset]) + b"".join(stamp(*t) for t in stamps)
    frame = head + struct.pack(">H", 0x8902) + pdu + tlv + b"\x00"
    return frame + bytes(max(0, 60 - len(frame)))


def headroom_frame(src, b14, b15, stamps):
    frame = mac(GROUP) + mac(src) + struct.pack(">H", 0x89a2) + bytes([b14, b15]) + \
        b"".join(stamp(*t) for t in stamps)
    return frame + bytes(max(0, 60 - len(frame)))


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, frame in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(frame), len(frame)))
            f.write(frame)


def t(s, ns):
    return {"seconds": s, "nanoseconds": ns}


def decode_case(tap, pktstats, work):
    zero = (0, 0)
    frames = []
    expected = []
    path = os.path.join(work, "oam.pcap")

    def dm_expect(index, dst, src, opcode, name, vlan, stamps, level=5, version=1, two_way=None,
                  error=None, offset=None):
        e = {"file": path, "index": index, "protocol": "dm", "destination": dst, "source": src,
             "vlan": vlan, "level": level, "version": version, "opcode": opcode, "name": name,
             "flags": 0, "tlv_offset": offset if offset is not None else (16 if opcode == 45 else 32),
             "tx_timestamp_f": stamps[0], "rx_timestamp_f": stamps[1]}
        if opcode != 45:
            e["tx_timestamp_b"] = stamps[2]
            e["rx_timestamp_b"] = stamps[3]
        e["two_way_ns"] = two_way
        e["error"] = error
        return e

    def hr_expect(index, src, type_, stamps, round_trip=None, error=None, subtype=1, version=1):
        e = {"file": path, "index": index, "protocol": "headroom", "destination": GROUP,
             "source": src, "encapsulation_version": 0, "subtype": subtype, "version": version,
             "type": type_}
        for k in range(4):
            e["t%d" % (k + 1)] = stamps[k]
        e["round_trip_ns"] = round_trip
        e["error"] = error
        return e

    # 1 DMM as sent: only TxTimeStampf, a Data TLV of 4 bytes
    frames.append(dm_frame(B, A, 47, [(100, 999999000), zero, zero, zero],
                           tlv=b"\x03\x00\x04\xde\xad\xbe\xef"))
    expected.append(dm_expect(1, B, A, 47, "DMM", None, [t(100, 999999000), t(0, 0), t(0, 0),
                                                        t(0, 0)]))
    # 2 DMR, tagged VID 100, four stamps: (101 s 40000 - 100 s 999999000) - (150 s 20500 -
    # 150 s 500) = 41000 - 20000 = 21000 ns
    frames.append(dm_frame(A, B, 46, [(100, 999999000), (150, 500), (150, 20500), (101, 40000)],
                           vid=100, tlv=b"\x03\x00\x08" + bytes(7) + b"\x07"))
    expected.append(dm_expect(2, A, B, 46, "DMR", 100, [t(100, 999999000), t(150, 500),
                                                       t(150, 20500), t(101, 40000)],
                              two_way=21000))
    # 3 1DM, MEL 0 version 0
    frames.append(dm_frame(B, A, 45, [(1, 2), (3, 4)], level=0, version=0))
    expected.append(dm_expect(3, B, A, 45, "1DM", None, [t(1, 2), t(3, 4)], level=0, version=0))
    # 4 headroom request
    frames.append(headroom_frame(A, 0x01, 0x11, [zero] * 4))
    expected.append(hr_expect(4, A, "request", [t(0, 0)] * 4))
    # 5 headroom response: (6 s 1500 - 5 s 999999900) - (1000 s 700 - 1000 s 100) = 1000
    frames.append(headroom_frame(B, 0x01, 0x12, [(5, 999999900), (1000, 100), (1000, 700),
                                                 (6, 1500)]))
    expected.append(hr_expect(5, B, "response", [t(5, 999999900), t(1000, 100), t(1000, 700),
                                                 t(6, 1500)], round_trip=1000))
    # 6 IPv4 and 7 ARP: other
    frames.append(mac(A) + mac(B) + b"\x08\x00" + bytes(46))
    frames.append(mac("ff:ff:ff:ff:ff:ff") + mac(B) + b"\x08\x06" + bytes(46))
    # 8 a DMM cut at 30 bytes: truncated
    frames.append(dm_frame(B, A, 47, [(7, 7), zero, zero, zero])[:30])
    expected.append(dm_expect(8, B, A, 47, "DMM", None, [None] * 4, error="truncated"))
    # 9 0x8902 with opcode 1 (a CCM): bad_opcode, name null
    frames.append(dm_frame(B, A, 1, [zero] * 4))
    e = dm_expect(9, B, A, 1, None, None, [None] * 4, error="bad_opcode")
    expected.append(e)
    # 10 0x89a2 subtype 0 (a congestion isolation message): bad_subtype
    frames.append(headroom_frame(A, 0x00, 0x11, [zero] * 4))
    expected.append(hr_expect(10, A, "request", [None] * 4, error="bad_subtype", subtype=0))
    # 11 a DMR whose RxTimeb is not filled: two-way null, no error
    frames.append(dm_frame(A, B, 46, [(10, 0), (20, 0), (20, 100), zero]))
    expected.append(dm_expect(11, A, B, 46, "DMR", None, [t(10, 0), t(20, 0), t(20, 100), t(0, 0)]))
    # 12 a response without t4: round trip null
    frames.append(headroom_frame(B, 0x01, 0x12, [(5, 0), (9, 0), (9, 10), zero]))
    expected.append(hr_expect(12, B, "response", [t(5, 0), t(9, 0), t(9, 10), t(0, 0)]))
    # 13 a runt of 10 bytes: other
    frames.append(bytes(10))
    # 14 a DMM with version 2: bad_version
    frames.append(dm_frame(B, A, 47, [zero] * 4, version=2))
    expected.append(dm_expect(14, B, A, 47, "DMM", None, [None] * 4, version=2,
                              error="bad_version"))
    # 15 a headroom response with 10^9 ns in t3: bad_timestamp (the stamps still shown)
    frames.append(headroom_frame(B, 0x01, 0x12, [(1, 0), (2, 0), (2, 1000000000), (3, 0)]))
    expected.append(hr_expect(15, B, "response", [t(1, 0), t(2, 0), t(2, 1000000000), t(3, 0)],
                              error="bad_timestamp"))
    # 16 headroom with type 3: bad_type, type shown as the number
    frames.append(headroom_frame(B, 0x01, 0x13, [zero] * 4))
    expected.append(hr_expect(16, B, 3, [None] * 4, error="bad_type"))
    write_pcap(path, frames)
    second = os.path.join(work, "second.pcap")
    write_pcap(second, [mac(A) + mac(B) + b"\x08\x00" + bytes(46),
                        dm_frame(B, A, 47, [(1, 1), zero, zero, zero])])
    e2 = dm_expect(2, B, A, 47, "DMM", None, [t(1, 1), t(0, 0), t(0, 0), t(0, 0)])
    e2["file"] = second

    status, out, err = run_cli(pktstats, ["-j", "oam", "decode", path, second])
    try:
        got = json.loads(out)
        lines = out.count("\n")
    except ValueError:
        got, lines = {}, 0
    want = {"frames": expected + [e2], "other": 4, "malformed": 6}
    tap.point(status == 0 and lines == 1 and list(got) == ["frames", "other", "malformed"] and
              got.get("other") == 4 and got.get("malformed") == 6,
              "oam decode -j: one object on one line, other 4, malformed 6", out + err)
    wrong = []
    for i, w in enumerate(want["frames"]):
        g = got.get("frames", [])[i] if i < len(got.get("frames", [])) else None
        if g != w:
            wrong.append("frame %d:\n got  %s\n want %s" % (i, json.dumps(g), json.dumps(w)))
    tap.point(status == 0 and len(got.get("frames", [])) == len(want["frames"]) and not wrong,
              "oam decode -j: %d DM and headroom frames, every field as written" %
              len(want["frames"]), "\n".join(wrong[:3]))
    for w in want["frames"]:  # the same keys in the same order as the contract
        pass
    status, out, err = run_cli(pktstats, ["oam", "decode", path, second])
    text = out.splitlines()
    frame_lines = [x for x in text if x.startswith("  file ")]
    tap.point(status == 0 and len(frame_lines) == len(want["frames"]) and
              "two-way-ns 21000" in frame_lines[1] and "round-trip-ns 1000" in frame_lines[4] and
              "error truncated" in frame_lines[5] and text[-2:] == ["other            4",
                                                                   "malformed        6"],
              "oam decode: text, one line per frame, the counts at the end", out + err)
    status, out, err = run_cli(pktstats, ["oam", "decode", os.path.join(work, "none.pcap")])
    tap.point(status == 1 and len(err.splitlines()) == 1 and "none.pcap" in err,
              "oam decode: a missing file exits 1 with one line naming it", out + err)


# ------------------------------------------------------------------------------------------
# oam show / set / clear on the simulator

def registers_case(tap, pktstats, sim_binary, work):
    sim = Simulator(sim_binary, work)
    try:
        before = sim.snapshot()

        def cli(*args):
            s, o, e = run_cli(pktstats, list(args), device=sim.device)
            if s != 0:
                raise RuntimeError("pktstats %s: exit %s: %s" % (" ".join(args), s, e))
            return o

        def reg(name):
            """A register's value: `pktstats reg read` ends with `value 0xHEX (DECIMAL)`."""
            return int(cli("reg", "read", name).split()[-2], 16)

        cli("oam", "set", "port", "1", "dm", "on", "dm-responder", "on", "dm-level", "5",
            "headroom", "on", "headroom-responder", "on", "isl-copy-field", "on", "isl-group",
            "on", "cpu-bound", "on", "mac", "02:00:00:00:00:42", "byte-time", "80")
        show = json.loads(cli("-j", "oam", "show", "port", "1"))["ports"]
        control = reg("oam.control_1")
        port_mac = reg("oam.port_mac_1")
        byte_time = reg("oam.byte_time_1")
        tap.point(len(show) == 1 and show[0]["port"] == 1 and show[0]["dm"] and
                  show[0]["dm_responder"] and show[0]["dm_level"] == 5 and show[0]["headroom"]
                  and show[0]["headroom_responder"] and show[0]["isl_copy_field"] and
                  show[0]["isl_group"] and show[0]["cpu_bound"] and
                  show[0]["mac"] == "02:00:00:00:00:42" and show[0]["byte_time"] == 80 and
                  control == 0x13353 and port_mac == 0x020000000042 and byte_time == 80,
                  "oam set port 1: every field, read back by oam show and reg read",
                  "%s control 0x%x mac 0x%x byte_time %d" % (show, control, port_mac, byte_time))
        cli("oam", "set", "port", "1", "dm", "off")
        control = reg("oam.control_1")
        tap.point(control == 0x13352, "oam set port 1 dm off: only that bit changes",
                  "control 0x%x" % control)
        after = sim.snapshot()
        changed = sorted(k for k in after if after[k] != before.get(k))
        tap.point(changed == ["oam.byte_time_1", "oam.control_1", "oam.port_mac_1"],
                  "oam set leaves the other ports' registers as they were", str(changed))
        cli("oam", "clear", "port", "1")
        show = json.loads(cli("-j", "oam", "show"))["ports"]
        tap.point(len(show) == 4 and all(v == 0 for k, v in show[1].items()
                                         if k.startswith(("dm_", "headroom_")) and
                                         k not in ("dm_responder", "dm_level",
                                                   "headroom_responder")),
                  "oam clear port 1: the counters read 0", str(show))
    except RuntimeError as e:
        tap.point(False, "oam show/set/clear on the simulator", str(e))
    finally:
        sim.kill()


# ------------------------------------------------------------------------------------------
# oam show / set / clear on a register file (the library's mmap backend)

def register_file_case(tap, pktstats, work):
    """The CLI through the mmap backend on a plain file holding an identity and the oam
    block's type word: what `oam set` writes lands at regmap/oam.toml's addresses, `oam show`
    shows what the file holds."""
    regs = pktstats_sim.registers()
    path = os.path.join(work, "registers")
    space = bytearray(0x10000)

    def put(address, value):
        struct.pack_into("<I", space, address, value)

    def get(address):
        return struct.unpack_from("<I", open(path, "rb").read(), address)[0]

    put(regs["ID_MAGIC"], 0x504b5453)
    put(regs["ID_DESIGN_VERSION"], regs["ID_DESIGN_VERSION_VALUE"])
    put(regs["OAM_TYPE"], 0x4f414d20)
    for i, base in enumerate(("DM_STAMPED_2", "DM_ANSWERED_2", "DM_REPLIES_SENT_2",
                              "DM_PASSED_UP_2", "DM_MALFORMED_2", "HEADROOM_STAMPED_2",
                              "HEADROOM_ANSWERED_2", "HEADROOM_REPLIES_SENT_2",
                              "HEADROOM_PASSED_UP_2", "HEADROOM_MALFORMED_2", "ISL_T0_STAMPED_2",
                              "ISL_T1_STAMPED_2", "ISL_REFLECTED_2", "ISL_PASSED_UP_2")):
        put(regs["OAM_" + base], 1000 + i)
        put(regs["OAM_" + base] + 4, 1)
    with open(path, "wb") as f:
        f.write(space)
    device = "mmap:" + path
    status, out, err = run_cli(pktstats, ["oam", "set", "port", "2", "dm", "on", "dm-responder",
                                          "on", "dm-level", "5", "headroom", "on",
                                          "headroom-responder", "on", "cpu-bound", "on", "mac",
                                          "02:00:00:00:00:42", "byte-time", "80"], device=device)
    tap.point(status == 0 and get(regs["OAM_CONTROL_2"]) == 0x10353 and
              get(regs["OAM_PORT_MAC_2"]) == 0x42 and get(regs["OAM_PORT_MAC_2"] + 4) == 0x0200
              and get(regs["OAM_BYTE_TIME_2"]) == 80 and get(regs["OAM_CONTROL_1"]) == 0 and
              get(regs["OAM_CONTROL_3"]) == 0,
              "oam set port 2 (register file): control_2 0x10353, port_mac_2, byte_time_2; "
              "ports 1 and 3 untouched", "exit %s %s" % (status, err))
    status, out, err = run_cli(pktstats, ["oam", "set", "port", "2", "headroom", "off"],
                               device=device)
    tap.point(status == 0 and get(regs["OAM_CONTROL_2"]) == 0x10253,
              "oam set port 2 headroom off: only that bit changes",
              "control_2 0x%x %s" % (get(regs["OAM_CONTROL_2"]), err))
    status, out, err = run_cli(pktstats, ["-j", "oam", "show", "port", "2"], device=device)
    got = json.loads(out)["ports"] if status == 0 else []
    want = {"port": 2, "dm": True, "dm_responder": True, "dm_level": 5, "headroom": False,
            "headroom_responder": True, "isl_copy_field": False, "isl_group": False,
            "cpu_bound": True, "mac": "02:00:00:00:00:42", "byte_time": 80}
    names = ["dm_stamped", "dm_answered", "dm_replies_sent", "dm_passed_up", "dm_malformed",
             "headroom_stamped", "headroom_answered", "headroom_replies_sent",
             "headroom_passed_up", "headroom_malformed", "isl_t0_stamped", "isl_t1_stamped",
             "isl_reflected", "isl_passed_up"]
    for i, name in enumerate(names):
        want[name] = (1 << 32) + 1000 + i
    tap.point(got == [want], "oam show port 2 (register file): settings and 64-bit counters",
              "got  %s\nwant %s" % (got, [want]))
    status, out, err = run_cli(pktstats, ["oam", "show"], device=device)
    lines = out.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("  port ")]
    tap.point(status == 0 and len(lines) == 1 + 4 * 4 and starts == [1, 5, 9, 13]
              and "mac 02:00:00:00:00:42" in out and max(len(line) for line in lines) <= 200
              and all(lines[i + 1].lstrip().startswith("dm-stamped ")
                      and lines[i + 2].lstrip().startswith("headroom-stamped ")
                      and lines[i + 3].lstrip().startswith("isl-t0-stamped ") for i in starts),
              "oam show (text): per port its settings on one line, then a line per engine's "
              "counters (dm, headroom, isl), indented", out + err)
    status, out, err = run_cli(pktstats, ["oam", "clear", "port", "2"], device=device)
    tap.point(status == 0 and all(get(regs["OAM_" + n.upper() + "_2"]) == 0 for n in names),
              "oam clear port 2 (register file): each counter written", err)


def main():
    if len(sys.argv) != 3:
        print("usage: %s PKTSTATS PKTSTATS-SIM" % sys.argv[0], file=sys.stderr)
        return 2
    pktstats, sim_binary = (os.path.abspath(a) for a in sys.argv[1:])
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="pktstats-cli-oam.") as work:
        bad_invocations(tap, pktstats)
        seed_table(tap, pktstats)
        decode_case(tap, pktstats, work)
        register_file_case(tap, pktstats, work)
        registers_case(tap, pktstats, sim_binary, work)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
