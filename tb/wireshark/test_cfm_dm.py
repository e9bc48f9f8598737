#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Y.1731 ETH-DM frames (1DM, DMM, DMR; EtherType 0x8902) under tshark's own `cfm` dissector
(no Lua), against frames whose every field the test wrote itself, then against the C decoder
(`pktstats -j oam decode`).

    tb/wireshark/test_cfm_dm.py PKTSTATS [--keep DIR]

The capture is built here with struct, byte for byte from docs/oam.md ("Y.1731 ETH-DM"), with
no project code: DMM, DMR and 1DM frames, untagged and 802.1Q-tagged (VID 0, 1, 100, 4094,
priorities 0..7), with and without a Data TLV, MEL 0..7, versions 0 and 1, timestamps at their
edges (0, nanoseconds 999,999,999, seconds 2^31 and 2^32 - 1, the seconds wrapping between
TxTimeStampf and RxTimeb), DMRs of known two-way delay; then frames the C parser must call
malformed (truncated 1DM, DMM and tagged DMR; opcode 3, an LBM; version 2), a headroom PDU and
an IPv4 frame.

Checks (one TAP point each): the cfm field names used here exist in this tshark (`tshark -G
fields`; the fourth DMM/DMR stamp, Y.1731's RxTimeb, the field the standard reserves for the
DMR's receiving equipment, is `cfm.dmm.dmr.rxtimestampb`, "RxTimestampb", in tshark 4.0);
tshark runs cleanly; for every DM frame, tshark reads the VLAN, MEL, version, opcode, flags,
first TLV offset, the two or four timestamps and the TLVs exactly as written (tshark shows
timestamps as 8 raw bytes: the test splits them into seconds and nanoseconds), and flags the
truncated ones malformed; -T fields gives the same as -T json. Then `pktstats -j oam decode`
on the same file, field for field against the same truth and against tshark, two-way delays
included.

tshark runs as nobody when the test runs as root (as tb/wireshark/test_dissector.py does), in
a scratch directory removed at the end. Skips (TAP) without tshark.
"""

import argparse
import os
import shutil
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
sys.path.insert(0, HERE)
from tap_output import Tap  # noqa: E402
import oam_common as oc  # noqa: E402

BILLION = 1_000_000_000
OPCODE_1DM, OPCODE_DMR, OPCODE_DMM = 45, 46, 47
NAMES = {OPCODE_1DM: "1DM", OPCODE_DMR: "DMR", OPCODE_DMM: "DMM"}
PDU_FIELD = {OPCODE_1DM: "cfm.odm.pdu", OPCODE_DMR: "cfm.dmr.pdu", OPCODE_DMM: "cfm.dmm.pdu"}
MEP_A = "02:00:00:00:0a:01"
MEP_B = "02:00:00:00:0b:02"
ZERO = (0, 0)

# tshark's cfm fields for ETH-DM (tshark 4.0): Y.1731's names on the left.
STAMP_FIELDS = [
    ("TxTimeStampf", "cfm.odm.dmm.dmr.txtimestampf"),
    ("RxTimeStampf / RxTimef (1DM)", "cfm.odm.dmm.dmr.rxtimestampf"),
    ("TxTimeStampb", "cfm.dmm.dmr.txtimestampb"),
    ("RxTimeb (reserved for the DMR's receiving equipment)", "cfm.dmm.dmr.rxtimestampb"),
]
HEADER_FIELDS = ["cfm.md.level", "cfm.version", "cfm.opcode", "cfm.flags",
                 "cfm.first.tlv.offset"]
TLV_FIELDS = ["cfm.tlv.type", "cfm.tlv.length", "cfm.tlv.data.value"]
USED_FIELDS = ["vlan.id"] + HEADER_FIELDS + [name for _, name in STAMP_FIELDS] + TLV_FIELDS + \
    sorted(PDU_FIELD.values()) + ["cfm.lbm.pdu"]


class Frame:
    def __init__(self, name, data, kind="dm", **truth):
        self.name = name
        self.data = data
        self.kind = kind  # dm, headroom, other
        self.vlan = truth.get("vlan")            # VID, or None when untagged
        self.level = truth.get("level")
        self.version = truth.get("version")
        self.opcode = truth.get("opcode")
        self.flags = truth.get("flags", 0)
        self.tlv_offset = truth.get("tlv_offset")
        self.stamps = truth.get("stamps")        # 2 (1DM) or 4 (DMM, DMR)
        self.data_tlv = truth.get("data_tlv")    # the Data TLV's value, or None
        self.two_way = truth.get("two_way")      # ns: DMR with its four stamps filled
        self.error = truth.get("error")
        self.source = truth.get("source", MEP_A)
        self.destination = truth.get("destination", MEP_B)


def stamp(total_ns):
    return ((total_ns // BILLION) % (1 << 32), total_ns % BILLION)


def dmm_dmr(t1_ns, offset_ns, forward, residence, backward):
    """The stamps of one DMM -> DMR exchange: A sends at t1 (A's clock), the DMM takes
    `forward` ns, B (clock ahead by offset_ns) answers after `residence` ns, the DMR takes
    `backward` ns. Two-way delay: forward + backward."""
    rx_f = t1_ns + forward + offset_ns
    tx_b = rx_f + residence
    rx_b = t1_ns + forward + residence + backward
    return [stamp(t1_ns), stamp(rx_f), stamp(tx_b), stamp(rx_b)], forward + backward


def dm(name, opcode, level, stamps, version=0, vlan=None, pcp=0, data_tlv=None,
       tlv_offset=None, cut=None, source=MEP_A, destination=MEP_B, **truth):
    """An ETH-DM frame, docs/oam.md byte map: destination, source, [0x8100, TCI], 0x8902, MEL
    (7:5) | version (4:0), opcode, flags, TLV offset, the stamps (32-bit seconds, 32-bit
    nanoseconds, big-endian), [Data TLV: type 3, 16-bit length, value], End TLV (0); padded
    to 60 bytes."""
    if tlv_offset is None:
        tlv_offset = 16 if opcode == OPCODE_1DM else 32
    data = oc.mac(destination) + oc.mac(source)
    if vlan is not None:
        data += struct.pack("!HH", 0x8100, pcp << 13 | vlan)
    data += struct.pack("!HBBBB", 0x8902, level << 5 | version, opcode, 0, tlv_offset)
    for seconds, nanoseconds in stamps:
        data += struct.pack("!II", seconds, nanoseconds)
    if data_tlv is not None:
        data += struct.pack("!BH", 3, len(data_tlv)) + data_tlv
    data += b"\x00"
    data += bytes(max(0, 60 - len(data)))
    if cut is not None:
        data = data[:cut]
    return Frame(name, data, vlan=vlan, level=level, version=version, opcode=opcode,
                 tlv_offset=tlv_offset, stamps=list(stamps), data_tlv=data_tlv, source=source,
                 destination=destination, **truth)


def build_frames():
    frames = []
    add = frames.append
    t1 = 1_700_000_000 * BILLION + 123_456_789
    pattern = bytes((7 * i) & 0xff for i in range(40))

    add(dm("DMM from the host, MEL 0 (TxTimeStampf only)", OPCODE_DMM, 0,
           [stamp(t1), ZERO, ZERO, ZERO]))
    add(dm("DMM MEL 1 version 1, VLAN 100, Data TLV of 40 bytes", OPCODE_DMM, 1,
           [stamp(t1), ZERO, ZERO, ZERO], version=1, vlan=100, pcp=5, data_tlv=pattern))
    stamps, two_way = dmm_dmr(t1, 3_500_000_000, 500, 1234, 700)
    add(dm("DMR MEL 2 back at A, B's clock 3.5 s ahead", OPCODE_DMR, 2, stamps,
           two_way=two_way, source=MEP_B, destination=MEP_A))
    stamps, two_way = dmm_dmr(((1 << 32) - 1) * BILLION + 999_999_999, -7 * BILLION, 40, 9, 60)
    assert stamps[0] == (0xffffffff, 999_999_999) and stamps[3][0] == 0
    add(dm("DMR MEL 3, VLAN 4094 priority 7, Data TLV, seconds wrap at 2^32", OPCODE_DMR, 3,
           stamps, vlan=4094, pcp=7, data_tlv=b"\xa5" * 5, two_way=two_way, source=MEP_B,
           destination=MEP_A))
    stamps, _ = dmm_dmr(t1, 0, 500, 1234, 700)
    add(dm("DMR MEL 4 leaving B (RxTimeb not filled)", OPCODE_DMR, 4, stamps[:3] + [ZERO],
           source=MEP_B, destination=MEP_A))
    stamps, two_way = dmm_dmr(100 * BILLION + 999_999_999, 100 * BILLION, 0, BILLION, BILLION)
    assert all(ns == 999_999_999 for _, ns in stamps)
    add(dm("DMR MEL 5 version 1, nanoseconds 999999999 in every stamp", OPCODE_DMR, 5, stamps,
           version=1, two_way=two_way, source=MEP_B, destination=MEP_A))
    stamps = [(1, 1), (1000, 0), (1000, 0), (1 << 31, 999_999_999)]
    add(dm("DMR MEL 6, two-way 2^31 s - 2 ns", OPCODE_DMR, 6, stamps,
           two_way=(1 << 31) * BILLION - 2, source=MEP_B, destination=MEP_A))
    add(dm("1DM MEL 5 (TxTimeStampf, RxTimef)", OPCODE_1DM, 5,
           [stamp(t1), stamp(t1 + 3_500_000_512)]))
    add(dm("1DM MEL 6, VLAN 1, Data TLV of 1 byte", OPCODE_1DM, 6,
           [stamp(t1), stamp(t1 - 2_000_000_000)], vlan=1, pcp=0, data_tlv=b"\x01"))
    add(dm("1DM MEL 7 version 1, stamps 0 and 2^32 - 1 s 999999999 ns", OPCODE_1DM, 7,
           [ZERO, (0xffffffff, 999_999_999)], version=1))
    add(dm("DMM MEL 7, priority-tagged (VID 0), Data TLV of 100 bytes", OPCODE_DMM, 7,
           [(0x80000000, 0), ZERO, ZERO, ZERO], vlan=0, pcp=3, data_tlv=bytes(range(100))))

    # The C parser must call these malformed (docs/oam.md, enum pktstats_oam_error).
    stamps, _ = dmm_dmr(t1, 0, 500, 1234, 700)
    add(dm("DMM cut to 49 bytes (50 needed)", OPCODE_DMM, 2, stamps, cut=49, error="truncated"))
    add(dm("1DM cut to 33 bytes (34 needed)", OPCODE_1DM, 2, stamps[:2], cut=33,
           error="truncated"))
    add(dm("tagged DMR cut to 53 bytes (54 needed)", OPCODE_DMR, 2, stamps, vlan=10, cut=53,
           error="truncated"))
    add(dm("opcode 3 (an LBM)", 3, 2, [(0, 12345)], tlv_offset=4, error="bad_opcode"))
    add(dm("DMM version 2", OPCODE_DMM, 2, [stamp(t1), ZERO, ZERO, ZERO], version=2,
           error="bad_version"))

    # Not ETH-DM.
    hr = oc.mac("01:80:c2:00:00:0e") + oc.mac(MEP_A) + struct.pack("!HBB", 0x89A2, 0x01, 0x11)
    add(Frame("a headroom request", hr + bytes(60 - len(hr)), kind="headroom"))
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20, 0, 0, 64, 253, 0, bytes(4), bytes(4))
    add(Frame("IPv4", oc.mac(MEP_B) + oc.mac(MEP_A) + b"\x08\x00" + ip + bytes(26),
              kind="other"))
    return frames


# ---------------------------------------------------------------------------------------------
# tshark

def hex_bytes(data):
    return ":".join("%02x" % b for b in data)


def stamp_text(s):
    return hex_bytes(struct.pack("!II", *s))


def stamp_of_bytes(text):
    """(seconds, nanoseconds) of tshark's 8 raw bytes ("00:00:00:01:00:00:00:02" in -T json,
    "0000000100000002" in -T fields)."""
    raw = bytes.fromhex(text.replace(":", ""))
    return struct.unpack("!II", raw) if len(raw) == 8 else text


def expected(fr):
    """{field: [values]} tshark's cfm dissector must show for valid frame `fr`."""
    out = {"cfm.md.level": [str(fr.level)], "cfm.version": [str(fr.version)],
           "cfm.opcode": [str(fr.opcode)], "cfm.flags": ["0x%02x" % fr.flags],
           "cfm.first.tlv.offset": [str(fr.tlv_offset)], "vlan.id": [],
           PDU_FIELD[fr.opcode]: [""]}
    if fr.vlan is not None:
        out["vlan.id"] = [str(fr.vlan)]
    n = 2 if fr.opcode == OPCODE_1DM else 4
    for i, (_, name) in enumerate(STAMP_FIELDS):
        out[name] = [tuple(fr.stamps[i])] if i < n else []
    if fr.data_tlv is not None:
        out["cfm.tlv.type"] = ["3", "0"]
        out["cfm.tlv.length"] = [str(len(fr.data_tlv))]
        out["cfm.tlv.data.value"] = [hex_bytes(fr.data_tlv)]
    else:
        out["cfm.tlv.type"] = ["0"]
        out["cfm.tlv.length"] = []
        out["cfm.tlv.data.value"] = []
    return out


def got_fields(flat, names):
    out = {}
    for name in names:
        values = flat.get(name, [])
        if name in (n for _, n in STAMP_FIELDS):
            values = [stamp_of_bytes(v) for v in values]
        out[name] = values
    return out


def differences(want, got):
    return ["%s: wrote %s, tshark %s" % (name, want[name], got.get(name))
            for name in want if want[name] != got.get(name)]


# ---------------------------------------------------------------------------------------------
# The C decoder

def compare_c(tap, cli, pcap, frames, flats):
    result = oc.oam_decode_point(tap, cli, pcap)
    if result is None:
        return
    records = {r.get("index"): r for r in result["frames"]}
    want_dm = [i + 1 for i, fr in enumerate(frames) if fr.kind == "dm"]
    want_hr = [i + 1 for i, fr in enumerate(frames) if fr.kind == "headroom"]
    others = sum(1 for fr in frames if fr.kind == "other")
    got_dm = sorted(i for i, r in records.items() if r.get("protocol") == "dm")
    got_hr = sorted(i for i, r in records.items() if r.get("protocol") == "headroom")
    tap.point(got_dm == want_dm and got_hr == want_hr and result.get("other") == others,
              "C decoder: the %d ETH-DM frames, the headroom PDU and %d other frame, as written"
              % (len(want_dm), others), "dm %s (want %s), headroom %s (want %s), other %s"
              % (got_dm, want_dm, got_hr, want_hr, result.get("other")))
    bad_truth, bad_tshark = [], []
    stamp_keys = ["tx_timestamp_f", "rx_timestamp_f", "tx_timestamp_b", "rx_timestamp_b"]
    for index in want_dm:
        fr = frames[index - 1]
        r = records.get(index)
        if r is None:
            continue
        c = {"file": r.get("file"), "destination": str(r.get("destination", "")).lower(),
             "source": str(r.get("source", "")).lower(), "vlan": r.get("vlan"),
             "level": r.get("level"), "version": r.get("version"), "opcode": r.get("opcode"),
             "name": r.get("name"), "flags": r.get("flags"), "tlv_offset": r.get("tlv_offset"),
             "two_way": r.get("two_way_ns"), "error": oc.error_name(r.get("error"))}
        truth = {"file": pcap, "destination": fr.destination, "source": fr.source,
                 "vlan": fr.vlan, "level": fr.level, "version": fr.version,
                 "opcode": fr.opcode, "name": NAMES.get(fr.opcode), "flags": fr.flags,
                 "tlv_offset": fr.tlv_offset, "two_way": fr.two_way, "error": fr.error}
        n = 2 if fr.opcode == OPCODE_1DM else 4
        for i, key in enumerate(stamp_keys[:n]):
            c[key] = oc.stamp_of(r.get(key))
            truth[key] = tuple(fr.stamps[i]) if i < len(fr.stamps) else None
        flat = flats[index - 1] if index - 1 < len(flats) else {}
        ts = {"vlan": int(flat["vlan.id"][0]) if flat.get("vlan.id") else None}
        for key, name in (("level", "cfm.md.level"), ("version", "cfm.version"),
                          ("opcode", "cfm.opcode"), ("flags", "cfm.flags"),
                          ("tlv_offset", "cfm.first.tlv.offset")):
            ts[key] = int(flat[name][0], 0) if flat.get(name) else None
        for i, key in enumerate(stamp_keys[:n]):
            values = flat.get(STAMP_FIELDS[i][1])
            ts[key] = stamp_of_bytes(values[0]) if values else None
        # What both must agree on: all of a valid frame (the two-way delay only where the DMR
        # has its four stamps; a DMM or 1DM has none); of a malformed one what comes before
        # the fault in the frame, and the verdict.
        if fr.error is None:
            keys = ["file", "destination", "source", "vlan", "level", "version", "opcode",
                    "name", "flags", "tlv_offset"] + stamp_keys[:n] + ["error"]
            if fr.two_way is not None or fr.opcode != OPCODE_DMR:
                keys.append("two_way")
        elif fr.error == "truncated":
            keys = ["file", "vlan", "error"]
        else:
            keys = ["file", "vlan", "level", "version", "opcode", "error"]
        for key in keys:
            if c.get(key) != truth.get(key):
                bad_truth.append("frame %d (%s): %s: C %s, wrote %s"
                                 % (index, fr.name, key, c.get(key), truth.get(key)))
            if key in ts and fr.error != "truncated" and c.get(key) != ts[key]:
                bad_tshark.append("frame %d (%s): %s: C %s, tshark %s"
                                  % (index, fr.name, key, c.get(key), ts[key]))
        if fr.opcode == OPCODE_DMR and fr.two_way is None and fr.error is None:
            tap.comment("frame %d (%s): the C decoder's two_way_ns is %s (RxTimeb not filled)"
                        % (index, fr.name, c.get("two_way")))
    tap.point(not bad_truth, "C decoder: every ETH-DM field, two-way delay and verdict as "
              "written (%d frames)" % len(want_dm), "\n".join(bad_truth))
    tap.point(not bad_tshark, "C decoder and tshark's cfm dissector agree field for field",
              "\n".join(bad_tshark))
    n_bad = sum(1 for r in result["frames"] if r.get("error") is not None)
    want_bad = sum(1 for fr in frames if fr.error)
    tap.point(result.get("malformed") == n_bad == want_bad,
              "C decoder: \"malformed\" counts the %d malformed frames" % want_bad,
              "malformed %s, frames with an error %d" % (result.get("malformed"), n_bad))


# ---------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cli", help="the pktstats CLI (for `pktstats -j oam decode`)")
    parser.add_argument("--keep", help="keep the capture in this directory")
    args = parser.parse_args()
    tap = Tap()
    if not shutil.which("tshark"):
        print("1..0 # SKIP tshark is not installed (make deps)")
        return 0
    work = tempfile.mkdtemp(prefix="pktstats-cfm-dm-")
    os.chmod(work, 0o755)  # tshark may run as nobody
    try:
        # The field names this tshark has.
        out, status, _ = oc.run_tshark(["-G", "fields"], work)
        known = {}
        for line in out.splitlines():
            cells = line.split("\t")
            if len(cells) > 3 and cells[0] == "F":
                known[cells[2]] = (cells[1], cells[3])
        missing = [name for name in USED_FIELDS if name not in known]
        tap.point(status == 0 and not missing,
                  "tshark -G fields: the cfm and vlan fields used here exist", missing)
        for meaning, name in STAMP_FIELDS:
            tap.comment("Y.1731 %s is tshark's %s (\"%s\", %s)"
                        % (meaning, name, *known.get(name, ("?", "?"))))

        frames = build_frames()
        pcap = os.path.join(work, "dm.pcap")
        oc.write_pcap(pcap, [fr.data for fr in frames])
        flats, status, stderr = oc.tshark_json(pcap, work)
        tap.point(status == 0 and not stderr.strip() and len(flats) == len(frames),
                  "tshark (its own cfm dissector, no Lua) runs cleanly on %d frames"
                  % len(frames), "exit %s, %d frames, stderr: %s" % (status, len(flats), stderr))
        for i, fr in enumerate(frames):
            flat = flats[i] if i < len(flats) else {}
            label = "frame %d, %s" % (i + 1, fr.name)
            if fr.kind != "dm":
                tap.point("cfm" not in flat, label + ": not CFM for tshark",
                          sorted(k for k in flat if k.startswith("cfm")))
            elif fr.error == "truncated":
                want = {"cfm.md.level": [str(fr.level)], "cfm.opcode": [str(fr.opcode)],
                        "vlan.id": [str(fr.vlan)] if fr.vlan is not None else []}
                diff = differences(want, got_fields(flat, want))
                if "_ws.malformed" not in flat:
                    diff.append("tshark does not flag it malformed")
                tap.point(not diff, label + ": tshark reads MEL and opcode, flags it malformed",
                          "\n".join(diff))
            elif fr.error:
                want = {"cfm.md.level": [str(fr.level)], "cfm.version": [str(fr.version)],
                        "cfm.opcode": [str(fr.opcode)]}
                if fr.opcode == 3:
                    want["cfm.lbm.pdu"] = [""]
                else:
                    want[PDU_FIELD[fr.opcode]] = [""]
                    want[STAMP_FIELDS[0][1]] = [tuple(fr.stamps[0])]
                diff = differences(want, got_fields(flat, want))
                tap.point(not diff, label + ": tshark reads MEL, version and opcode as written",
                          "\n".join(diff))
            else:
                want = expected(fr)
                diff = differences(want, got_fields(flat, want))
                if "_ws.malformed" in flat:
                    diff.append("tshark calls it malformed")
                tap.point(not diff, label + ": tshark reads every field as written",
                          "\n".join(diff))

        # -T fields, as docs/wireshark.md shows it: the same stamps, as 16 hex digits.
        names = ["frame.number", "cfm.opcode"] + [name for _, name in STAMP_FIELDS]
        command = ["-r", pcap, "-Y", "cfm.opcode >= 45 && cfm.opcode <= 47 && !_ws.malformed",
                   "-T", "fields"]
        for name in names:
            command += ["-e", name]
        out, status, _ = oc.run_tshark(command, work)
        got = [line.split("\t") for line in out.splitlines()]
        want = []
        for i, fr in enumerate(frames):
            if fr.kind == "dm" and fr.opcode in NAMES and fr.error != "truncated":
                n = 2 if fr.opcode == OPCODE_1DM else 4
                want.append([str(i + 1), str(fr.opcode)] +
                            [stamp_text(fr.stamps[k]).replace(":", "") if k < n else ""
                             for k in range(4)])
        tap.point(status == 0 and got == want,
                  "-T fields -e cfm.odm.dmm.dmr.txtimestampf ...: the stamps as raw hex",
                  "\n".join("got %s\nwant %s" % (g, w) for g, w in zip(got, want) if g != w)
                  or "%d rows, want %d" % (len(got), len(want)))

        compare_c(tap, args.cli, pcap, frames, flats)
    finally:
        if args.keep:
            shutil.rmtree(args.keep, ignore_errors=True)
            shutil.copytree(work, args.keep)
        shutil.rmtree(work, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
