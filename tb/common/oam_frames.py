# SPDX-License-Identifier: BSD-3-Clause
"""The link-delay frames of docs/oam.md, written and read byte by byte for the tests, with no
code of the project behind them: Y.1731 ETH-DM (1DM, DMM, DMR) and the headroom PDU, and the
classic pcap files the simulator reads and writes. Python 3 standard library only."""

import struct

ETHERTYPE_CFM = 0x8902
ETHERTYPE_HEADROOM = 0x89A2
OPCODE_1DM, OPCODE_DMR, OPCODE_DMM = 45, 46, 47
HEADROOM_DESTINATION = bytes.fromhex("0180c200000e")
HEADROOM_REQUEST, HEADROOM_RESPONSE = 1, 2
# Offsets of the four ETH-DM stamps (4 more behind a VLAN tag) and of t1..t4
DM_FIELDS = {"tx_f": 18, "rx_f": 26, "tx_b": 34, "rx_b": 42}
HEADROOM_FIELDS = {"t1": 16, "t2": 24, "t3": 32, "t4": 40}


def mac_bytes(value):
    return value.to_bytes(6, "big")


def pad(frame):
    return frame + bytes(max(0, 60 - len(frame)))


def dm(destination, source, opcode, level=0, version=0, vlan=None, data=b"", stamps=None):
    """An ETH-DM frame: MACs as 6-byte strings, stamps {name: (seconds, nanoseconds)} of
    DM_FIELDS (missing ones 0), an optional Data TLV (type 3) with `data`, End TLV."""
    stamps = stamps or {}
    header = destination + source
    if vlan is not None:
        header += struct.pack(">HH", 0x8100, vlan)
    names = ("tx_f", "rx_f") if opcode == OPCODE_1DM else ("tx_f", "rx_f", "tx_b", "rx_b")
    body = struct.pack(">BBBB", (level << 5) | version, opcode, 0, 16 if opcode == OPCODE_1DM else 32)
    for name in names:
        body += struct.pack(">II", *stamps.get(name, (0, 0)))
    if data:
        body += struct.pack(">BH", 3, len(data)) + data
    body += b"\x00"
    return pad(header + struct.pack(">H", ETHERTYPE_CFM) + body)


def headroom(source, kind, stamps=None, destination=HEADROOM_DESTINATION, byte14=0x01,
             version=1, length=60):
    """A headroom PDU: kind 1 request / 2 response, stamps {t1..t4: (seconds, nanoseconds)}."""
    stamps = stamps or {}
    frame = destination + source + struct.pack(">HBB", ETHERTYPE_HEADROOM, byte14,
                                                (version << 4) | kind)
    for name in ("t1", "t2", "t3", "t4"):
        frame += struct.pack(">II", *stamps.get(name, (0, 0)))
    return frame + bytes(max(0, length - len(frame)))


def stamp_at(frame, offset):
    """(seconds, nanoseconds) of the 8-byte stamp at a byte offset."""
    return struct.unpack_from(">II", frame, offset)


def with_stamp(frame, offset, stamp):
    return frame[:offset] + struct.pack(">II", *stamp) + frame[offset + 8:]


def write_pcap(path, frames, spacing_ns=10000):
    """Classic pcap, nanosecond timestamps, one frame every spacing_ns from 0."""
    write_timed_pcap(path, [(i * spacing_ns, frame) for i, frame in enumerate(frames)])


def write_timed_pcap(path, timed_frames):
    """Classic pcap, nanosecond timestamps, of [(time_ns, frame bytes)]."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))
        for t, frame in timed_frames:
            f.write(struct.pack("<IIII", t // 10**9, t % 10**9, len(frame), len(frame)) + frame)


def read_pcap(path):
    """[(time_ns, frame bytes)] of a classic pcap (micro- or nanosecond)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    scale = 1 if magic == 0xa1b23c4d else 1000
    frames, at = [], 24
    while at + 16 <= len(data):
        seconds, fraction, caplen, _ = struct.unpack_from("<IIII", data, at)
        frames.append((seconds * 10**9 + fraction * scale, data[at + 16:at + 16 + caplen]))
        at += 16 + caplen
    return frames

