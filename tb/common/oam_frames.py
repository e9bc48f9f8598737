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
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))
        for i, frame in enumerate(frames):
            t = i * spacing_ns
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


# OpenKilda's ISL discovery packets, as far as the switch looks at them (docs/isl.md):
# Ethernet / IPv4 (no options) / UDP to port 61231 (discovery) or 61232 (round trip), T0 at
# byte 66 and T1 at byte 80; the LLDP TLVs around them are filler here
UDP_PORT_DISCOVERY, UDP_PORT_ROUND_TRIP = 61231, 61232
ISL_T0, ISL_T1 = 66, 80


def ipv4_checksum(header):
    total = sum(struct.unpack(">%dH" % (len(header) // 2), header))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def udp_checksum(frame):
    """The UDP checksum an IPv4/UDP frame should carry (computed with its field as 0)."""
    ip, udp = frame[14:34], bytearray(frame[34:14 + struct.unpack_from(">H", frame, 16)[0]])
    udp[6:8] = b"\0\0"
    pseudo = ip[12:20] + struct.pack(">BBH", 0, 17, len(udp))
    data = pseudo + bytes(udp) + (b"\0" if len(udp) % 2 else b"")
    value = ipv4_checksum(data)
    return value or 0xffff


def isl_packet(destination, source, port, number, payload_length=80):
    """A discovery (port 61231) or round-trip (61232) packet with T0 and T1 zero, `number` in
    the payload after T1, a valid UDP checksum."""
    payload = bytearray(payload_length)
    struct.pack_into(">I", payload, ISL_T1 + 8 - 42, number)
    udp = struct.pack(">HHHH", UDP_PORT_DISCOVERY, port, 8 + payload_length, 0) + bytes(payload)
    ip = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), number & 0xffff, 0x4000,
                               64, 17, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])))
    struct.pack_into(">H", ip, 10, ipv4_checksum(bytes(ip)))
    frame = bytearray(destination + source + struct.pack(">H", 0x0800) + bytes(ip) + udp)
    struct.pack_into(">H", frame, 40, udp_checksum(bytes(frame)))
    return bytes(frame)
