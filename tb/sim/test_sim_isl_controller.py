#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`pktstats isl run`, OpenKilda's ISL latency controller, on a simulated triangle of three
switches, writing to a real VictoriaMetrics (issue 14, items 3 and 5).

    tb/sim/test_sim_isl_controller.py build/bin/pktstats-sim build/asan/bin/pktstats [--seed S]

The test runs in a network namespace of its own (it re-runs itself under `unshare --net`):
three switches (+50 ppm; -50 ppm and 1.5 s ahead; +20 ppm and 3.25 s ahead) in a triangle of
cables of 100 m (0.1 - 1.2), 300 m (1.1 - 2.2) and 1 km (2.1 - 0.2), every cabled port with
isl-copy-field, isl-group and cpu-bound on and its CPU port on a TAP interface; switch 0's port
3 is a TAP on the wire side, where the test plays a forger. VictoriaMetrics runs on the
loopback with a scratch directory. The controller sends `rounds` rounds of discovery packets;
in the middle the database is stopped for a while and started again. tcpdump captures every
CPU port's interface. Checked:

  - the controller finds the six ISLs (three cables, both directions), each to the right
    port, each with the decision maker's drop-discovery (both ends have both features);
  - every round trip captured at a CPU port: T1 - T0 equals the true round trip (twice the
    cable plus the far switch's residence, by the near switch's clock) within 16 ns;
  - the database holds, for each ISL, exactly the T1 - T0 values of the round trips captured
    at its source port, with the tags OpenKilda writes (src_switch SW + 16 hex digits,
    src_port, dst_switch, dst_port, origin round_trip), and as many points as the controller
    says it wrote and the database took: the outage lost nothing. A point stored twice with
    the same millisecond and value is a retried request whose answer the outage lost (OpenTSDB
    keeps it once); each point at most twice, fewer than half of them;
  - the forged packets (bad signature, wrong chassis, truncated TLVs, an unknown packet ID, a
    round trip with T0 zero, one with T1 < T0) are each counted where the controller says and
    none is reported as latency.

A second run produces every row of OpenKilda's decision table (docs/isl.md): eight switches,
each port's features one of ++ (copy field and group), -+ (group only), -- (neither), on the six
cables that make every ordered pair of the three: 0.1-1.1 (++ ++), 0.2-1.2 (++ -+), 0.3-1.3
(-+ -+), 2.1-3.1 (++ --), 4.1-5.1 (-+ --), 6.1-7.1 (-- --) (a port with neither feature floods
what it does not catch, so those pairs have one cable each). Checked for each of the 12
directed ISLs: the action the controller took (pktstats_isl_decide's row of the seed's table,
written out here by hand), and what it wrote: T1 - T0 only where the source has copy field and
the destination group; for copy-reverse-rtl, values the reverse ISL measured (its round trips
in the database); the one-way latency for use-one-way; nothing for drop-discovery; the
database holding as many of each as the table counts. And the totals: round-trip packets and those among
them without stamps, as many as the rounds and the features make.

Without root, /dev/net/tun, unshare, tcpdump or victoria-metrics, the checks are skipped.
"""

import argparse
import collections
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
sys.path.insert(0, os.path.join(ROOT, "tb", "sim"))
import isl_frames as K  # noqa: E402
import oam_frames as F  # noqa: E402
import pktstats_sim  # noqa: E402
import test_sim_oam as T  # noqa: E402
import victoria  # noqa: E402
from tap_output import Tap  # noqa: E402

R = pktstats_sim.registers()
SECRET = b"pktstats-isl-test-secret"
ROUNDS = 24
INTERVAL = "250ms"
# (switch, port) pairs of each cable and its length in metres
CABLES = [((0, 1), (1, 2), 100), ((1, 1), (2, 2), 300), ((2, 1), (0, 2), 1000)]
CLOCKS = {0: (50, "0s", 0), 1: (-50, "1.5s", 1500000000), 2: (20, "3.25s", 3250000000)}
NAMES = {0: "a", 1: "b", 2: "c"}
FORGE_PORT = 3   # switch 0's port on a wire-side TAP
CHECKS = [
    "the controller ran and stopped by itself with status 0",
    "six ISLs, each to the port its cable goes to, each drop-discovery",
    "every captured round trip: T1 - T0 = the true round trip within 16 ns",
    "the database holds for each ISL exactly the T1 - T0 of the round trips captured at its "
    "source port, OpenKilda's tags, as many points as the controller wrote; the outage lost none",
    "every forged packet counted where it belongs, none reported as latency",
]


def port_mac(k, p):
    return 0x02000000ee00 | (k << 4) | p


def dpid(k):
    """The controller's default: the first configured port's MAC (port 1 on every switch)."""
    return port_mac(k, 1)


def tag(k):
    return "SW%016X" % dpid(k)


def peer_of(k, p):
    for a, b, _ in CABLES:
        if a == (k, p):
            return b
        if b == (k, p):
            return a
    return None


def configure(conn, k, ports):
    value = (R["OAM_CONTROL_0_ISL_COPY_FIELD_MASK"] | R["OAM_CONTROL_0_ISL_GROUP_MASK"]
             | R["OAM_CONTROL_0_CPU_BOUND_MASK"])
    for p in ports:
        T.configure_port(conn, p, value, port_mac(k, p))
        conn.write(R["STAMP_TX_CORRECTION_%d" % p], T.TX_CORRECTION_NS)
        conn.write(R["STAMP_RX_CORRECTION_%d" % p], T.RX_CORRECTION_NS)


class Forger:
    """Switch 0's port 3 seen from the wire: reads the controller's discovery packets leaving
    it, sends forged packets into it."""

    def __init__(self, ifname):
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
        self.sock.bind((ifname, 0))
        self.sock.settimeout(0.2)
        self.expected = collections.Counter()

    def genuine(self, timeout=30):
        """The next discovery packet the controller sent out of port 3 (T0 written)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                frame = self.sock.recv(4096)
            except socket.timeout:
                continue
            try:
                fields = K.parse(frame, SECRET)
            except ValueError:
                continue
            if not fields["round_trip"] and fields["signed"]:
                return frame
        raise RuntimeError("no discovery packet left switch 0's port 3")

    def send(self, frame, counter):
        self.sock.send(frame)
        self.expected[counter] += 1

    def forge(self):
        genuine = self.genuine()
        fields = K.parse(genuine, SECRET)
        src_ip = bytes(genuine[26:30])
        packet_id = K.jwt_verify(fields["token"], SECRET)["id"]
        # a discovery packet signed with another secret
        self.send(K.discovery(fields["dpid"], FORGE_PORT, src_ip, fields["timestamp_ms"],
                              secret=b"not the secret", packet_id=packet_id), "bad_signature")
        # its chassis ID is not the switch ID it claims (signature right)
        wrong = bytearray(K.discovery(fields["dpid"], FORGE_PORT, src_ip, fields["timestamp_ms"],
                                      secret=SECRET, packet_id=packet_id))
        wrong[45] ^= 0x01
        self.send(K.fix_udp_checksum(bytes(wrong)), "wrong_chassis")
        # the LLDPDU cut in the middle of the token TLV (the UDP length says so)
        cut = bytearray(genuine[:140])
        struct.pack_into(">H", cut, 16, len(cut) - 14)
        struct.pack_into(">H", cut, 38, len(cut) - 34)
        cut[24:26] = b"\0\0"
        cut[24:26] = struct.pack(">H", K.ip_checksum(bytes(cut[14:34])))
        self.send(K.fix_udp_checksum(bytes(cut)), "malformed")
        # signed right, from the right switch and port, but a packet ID never sent
        self.send(K.discovery(fields["dpid"], FORGE_PORT, src_ip, fields["timestamp_ms"],
                              secret=SECRET, packet_id=10**12), "unknown_packet")
        # round trips of the genuine packet coming back through port 3: the switch writes T1;
        # with T0 zero, and with T0 one second after the real one (T1 - T0 < 0)
        for t0, counter in ((0, "unstamped"), (K.noviflow_timestamp(genuine[66:74]) + 10**9,
                                                "negative")):
            back = bytearray(genuine)
            struct.pack_into(">H", back, 36, K.UDP_ROUND_TRIP)
            back[66:74] = K.stamp_bytes(*divmod(t0, 10**9))
            self.send(K.fix_udp_checksum(bytes(back)), counter)

    def close(self):
        self.sock.close()


def isl_round_trips(pcap, k, p):
    """The round-trip packets handed to switch k's CPU port for port p: [(frame, T1 - T0)]."""
    out = []
    for _, frame in F.read_pcap(pcap):
        try:
            fields = K.parse(frame, SECRET)
        except ValueError:
            continue
        if fields["round_trip"] and fields.get("dpid") == dpid(k) and fields.get("port") == p \
                and fields["signed"]:
            out.append((frame, T.signed_diff(T.stamp_ns(fields["t1"]), T.stamp_ns(fields["t0"]))))
    return out


def true_round_trip(legs, k, p, frame):
    """The true T1 - T0 of a round-trip packet switch k's port p got back, by k's clock."""
    back = bytearray(frame)
    back[80:88] = bytes(8)
    back[40:42] = b"\0\0"
    out = bytearray(back)
    struct.pack_into(">H", out, 36, K.UDP_DISCOVERY)
    leaving = legs.find(k, p, "tx", bytes(out), "discovery from %d.%d" % (k, p))
    arriving = legs.find(k, p, "rx", bytes(back), "round trip back at %d.%d" % (k, p))
    if leaving is None or arriving is None:
        return None
    return T.clock_interval(arriving["true_time_ps"], leaving["true_time_ps"], k)


def run(tap, simulator, cli, seed, work):
    for k, (ppm, _, offset) in CLOCKS.items():
        T.PPM[k], T.OFFSET_NS[k] = ppm, offset
    secret = os.path.join(work, "secret")
    with open(secret, "wb") as f:
        f.write(SECRET + b"\n")
    ports = {k: [p for p in range(4) if peer_of(k, p)] for k in CLOCKS}
    ports[0].append(FORGE_PORT)
    args = ["--seed", str(seed), "--switches", "3", "--wire-truth", os.path.join(work, "wire.csv")]
    for k, (ppm, offset, _) in CLOCKS.items():
        args += ["--switch", "%d:ppm=%d,offset=%s" % (k, ppm, offset)
                 + (",socket=%s" % os.path.join(work, "s%d.sock" % k) if k else "")]
    for a, b, metres in CABLES:
        args += ["--cable", "%d.%d-%d.%d,length=%dm" % (a + b + (metres,))]
    for k in CLOCKS:
        for p in ports[k]:
            args += ["--port", "%d.%d:tap=c%d%d" % (k, 4 + p, k, p)]
    args += ["--port", "0.%d:tap=fg03" % FORGE_PORT]

    vm = victoria.VictoriaMetrics(work)
    vm.start()
    sim = pktstats_sim.Simulator(simulator, work, args, name="s0")
    dumps, controller, forger = [], None, None
    try:
        for k in CLOCKS:
            if k == 0:
                configure(sim, 0, ports[0])
            else:
                with pktstats_sim.Connection(os.path.join(work, "s%d.sock" % k)) as conn:
                    configure(conn, k, ports[k])
        for k in CLOCKS:
            for p in ports[k]:
                dumps.append(subprocess.Popen(
                    ["tcpdump", "-Z", "root", "--immediate-mode", "-U", "-i", "c%d%d" % (k, p),
                     "-Q", "in", "-w", os.path.join(work, "c%d%d.pcap" % (k, p))],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        forger = Forger("fg03")
        time.sleep(1)
        command = [cli, "-j", "isl", "run", "secret-file", secret, "interval", INTERVAL,
                   "rounds", str(ROUNDS), "wait", "3s", "tsdb", vm.put_url, "flush-timeout", "30s"]
        for k in CLOCKS:
            spec = ["sim:" + os.path.join(work, "s%d.sock" % k)]
            spec += ["%d=c%d%d" % (p, k, p) for p in ports[k]] + ["name=" + NAMES[k]]
            command += ["switch", ",".join(spec)]
        controller = subprocess.Popen(command, stdout=open(os.path.join(work, "isl.json"), "w"),
                                      stderr=open(os.path.join(work, "isl.err"), "w"))
        forger.forge()
        # the database goes away for a while, then comes back
        time.sleep(1.5)
        vm.stop()
        time.sleep(2.0)
        vm.start()
        controller.wait(timeout=240)
        time.sleep(0.5)
    finally:
        if controller and controller.poll() is None:
            controller.kill()
            controller.wait()
        if forger:
            forger.close()
        for dump in dumps:
            dump.send_signal(signal.SIGINT)
            dump.wait(timeout=30)
        status = sim.stop()

    with open(os.path.join(work, "isl.err")) as f:
        log = f.read()
    with open(os.path.join(work, "isl.json")) as f:
        text = f.read()
    report = json.loads(text) if controller.returncode == 0 and text else {}
    tap.point(controller.returncode == 0 and report and status == 0, CHECKS[0],
              "controller %s: %s\n%s\nsimulator %s: %s" % (controller.returncode, log, text[-2000:],
                                                          status, sim.log()[-1000:]))

    # The ISL table
    want = {}
    for a, b, _ in CABLES:
        for (k, p), (l, q) in ((a, b), (b, a)):
            want[(NAMES[k], p)] = (NAMES[l], q)
    isls = report.get("isls", [])
    got = {(i["src_switch"], i["src_port"]): (i["dst_switch"], i["dst_port"]) for i in isls}
    tap.point(got == want and len(isls) == 6 and all(i["action"] == "drop-discovery" for i in isls),
              CHECKS[1], "got %s\nwant %s\n%s" % (got, want, json.dumps(isls, indent=1)))

    # Every captured round trip against the truth
    legs = T.Legs(T.read_truth(os.path.join(work, "wire.csv")))
    captured, errors = {}, []
    for k in CLOCKS:
        for p in ports[k]:
            captured[(k, p)] = isl_round_trips(os.path.join(work, "c%d%d.pcap" % (k, p)), k, p)
            if p == FORGE_PORT:
                continue
            for frame, value in captured[(k, p)]:
                true = true_round_trip(legs, k, p, frame)
                if true is not None:
                    errors.append(value - true)
    worst = max((abs(e) for e in errors), default=float("inf"))
    count = sum(len(v) for (k, p), v in captured.items() if p != FORGE_PORT)
    tap.point(not legs.problems and len(errors) == count and count >= 6 * (ROUNDS - 2) and worst <= 16,
              "%s (%d round trips, max error %.2f ns)" % (CHECKS[2], count, worst),
              "\n".join(legs.problems[:10]))

    # The database against the capture
    vm.flush()
    series = vm.export("kilda.isl.rtt")
    problems = []
    stored = 0
    seen = set()
    repeats = 0
    for tags, samples in series:
        # A request whose answer was lost when the database went away is sent again (the
        # writer cannot know it was stored): delivery is at least once. OpenTSDB keeps one
        # value per series and millisecond, so a repeat changes nothing there; this
        # VictoriaMetrics keeps both, so an exact repeat (same millisecond, same value) counts
        # once, and repeats are allowed only as retries: each point at most twice, fewer than
        # half of the points (below), in a run whose outage made requests fail.
        copies = collections.Counter((ms, v) for ms, v in samples)
        repeats += sum(n - 1 for n in copies.values())
        if any(n > 2 for n in copies.values()):
            problems.append("%s: a point stored more than twice" % tags)
        samples = list(copies)
        stored += len(samples)
        src = [k for k in CLOCKS if tag(k) == tags.get("src_switch")]
        if not src or tags.get("origin") != "round_trip":
            problems.append("unexpected series %s" % tags)
            continue
        k, p = src[0], int(tags.get("src_port", -1))
        seen.add((k, p))
        peer = peer_of(k, p)
        if peer is None or tags.get("dst_switch") != tag(peer[0]) or tags.get("dst_port") != str(peer[1]):
            problems.append("series %s: not a cable" % tags)
            continue
        values = sorted(int(v) for _, v in samples)
        expected = sorted(v for _, v in captured[(k, p)])
        if values != expected:
            problems.append("%s: database %d values, captured %d: %s vs %s" % (
                tags, len(values), len(expected), values[:5], expected[:5]))
    tsdb = report.get("tsdb") or {}
    written = report.get("counters", {}).get("written")
    failed = tsdb.get("failed_requests", 0)
    tap.point(not problems and len(seen) == 6 and stored == count == written == tsdb.get("delivered")
              and tsdb.get("undelivered") == 0 and failed > 0 and repeats < stored // 2,
              "%s (%d points, %d stored again by a retry; %d requests failed during the outage)"
              % (CHECKS[3], stored, repeats, failed),
              "\n".join(problems[:10]) + "\nstored %d (and %d repeats) captured %d written %s tsdb %s"
              % (stored, repeats, count, written, tsdb))

    # The forged packets
    counters = report.get("counters", {})
    expected = dict(forger.expected)
    got = {name: counters.get(name) for name in expected}
    others = {name: counters.get(name) for name in ("wrong_chassis", "bad_signature", "malformed",
                                                    "unknown_packet", "unstamped", "negative",
                                                    "unknown_switch", "unknown_port", "misdirected")
              if name not in expected}
    tap.point(got == expected and not any(others.values())
              and not any(i["src_port"] == FORGE_PORT or i["dst_port"] == FORGE_PORT for i in isls),
              CHECKS[4], "counted %s, sent %s, others %s" % (got, expected, others))


# The decision run: (switch, port, switch, port, features at the first end, at the second)
FULL, GROUP, NONE = "++", "-+", "--"
DECISION_CABLES = [(0, 1, 1, 1, FULL, FULL), (0, 2, 1, 2, FULL, GROUP), (0, 3, 1, 3, GROUP, GROUP),
                   (2, 1, 3, 1, FULL, NONE), (4, 1, 5, 1, GROUP, NONE), (6, 1, 7, 1, NONE, NONE)]
# Seed 000's table by hand: (source, destination) -> action
SEED_TABLE = {(FULL, FULL): "drop-discovery", (FULL, GROUP): "drop-discovery",
              (GROUP, FULL): "copy-reverse-rtl", (NONE, FULL): "use-one-way",
              (FULL, NONE): "use-one-way", (GROUP, GROUP): "use-one-way",
              (GROUP, NONE): "use-one-way", (NONE, GROUP): "use-one-way",
              (NONE, NONE): "use-one-way"}
DECISION_ROUNDS = 8
DECISION_CHECKS = [
    "decision run: the controller ran and stopped by itself with status 0",
    "decision run: 12 ISLs found, each with the action of the seed's row for its features",
    "decision run: each ISL's results: T1 - T0, the reverse round trip, the one-way latency or "
    "nothing, as its action and features say",
    "decision run: round trips and unstamped round trips as many as rounds x features",
]


def run_decisions(tap, simulator, cli, seed, work):
    secret = os.path.join(work, "secret")
    with open(secret, "wb") as f:
        f.write(SECRET + b"\n")
    bits = {FULL: R["OAM_CONTROL_0_ISL_COPY_FIELD_MASK"] | R["OAM_CONTROL_0_ISL_GROUP_MASK"],
            GROUP: R["OAM_CONTROL_0_ISL_GROUP_MASK"], NONE: 0}
    features = {}
    for k, p, l, q, f_kp, f_lq in DECISION_CABLES:
        features[(k, p)], features[(l, q)] = f_kp, f_lq
    args = ["--seed", str(seed), "--switches", "8"]
    for k in range(1, 8):
        args += ["--switch", "%d:socket=%s,ppm=%d" % (k, os.path.join(work, "s%d.sock" % k), 10 * k - 40)]
    for k, p, l, q, _, _ in DECISION_CABLES:
        args += ["--cable", "%d.%d-%d.%d,length=%dm" % (k, p, l, q, 50 * (k + p + 1))]
    for (k, p) in features:
        args += ["--port", "%d.%d:tap=d%d%d" % (k, 4 + p, k, p)]
    vm = victoria.VictoriaMetrics(work)
    vm.start()
    sim = pktstats_sim.Simulator(simulator, work, args, name="s0")
    controller = None
    try:
        for k in range(8):
            conn = sim if k == 0 else pktstats_sim.Connection(os.path.join(work, "s%d.sock" % k))
            for (l, p), f in features.items():
                if l == k:
                    T.configure_port(conn, p, bits[f] | R["OAM_CONTROL_0_CPU_BOUND_MASK"], port_mac(k, p))
            if k:
                conn.close()
        command = [cli, "-j", "isl", "run", "secret-file", secret, "interval", "200ms",
                   "rounds", str(DECISION_ROUNDS), "wait", "3s", "reverse-timeout", "3600s",
                   "tsdb", vm.put_url, "flush-timeout", "30s"]
        for k in range(8):
            ports = sorted(p for (l, p) in features if l == k)
            command += ["switch", ",".join(["sim:" + os.path.join(work, "s%d.sock" % k)]
                                           + ["%d=d%d%d" % (p, k, p) for p in ports]
                                           + ["name=s%d" % k])]
        controller = subprocess.run(command, capture_output=True, text=True, timeout=240)
    finally:
        status = sim.stop()
        if controller is None:
            vm.stop()
    report = json.loads(controller.stdout) if controller.returncode == 0 and controller.stdout else {}
    tap.point(controller.returncode == 0 and report and status == 0, DECISION_CHECKS[0],
              "controller %s: %s\n%s" % (controller.returncode, controller.stderr, controller.stdout[-2000:]))

    isls = {(i["src_switch"], i["src_port"]): i for i in report.get("isls", [])}
    problems, results = [], []
    for k, p, l, q, f_kp, f_lq in DECISION_CABLES:
        for (a, ap, fa), (b, bp, fb) in (((k, p, f_kp), (l, q, f_lq)), ((l, q, f_lq), (k, p, f_kp))):
            isl = isls.get(("s%d" % a, ap))
            what = "s%d.%d (%s) -> s%d.%d (%s)" % (a, ap, fa, b, bp, fb)
            if not isl or (isl["dst_switch"], isl["dst_port"]) != ("s%d" % b, bp):
                problems.append("%s: not found (%s)" % (what, isl))
                continue
            action = SEED_TABLE[(fa, fb)]
            if isl["action"] != action:
                problems.append("%s: action %s, the seed's table says %s" % (what, isl["action"], action))
            measured = fa == FULL and fb != NONE
            want = {"round_trips": measured, "reverse_copies": action == "copy-reverse-rtl",
                    "one_way_count": action == "use-one-way"}
            got = {key: isl[key] > 0 for key in want}
            if got != want:
                problems.append("%s: %s, want %s" % (what, {key: isl[key] for key in want}, want))
            results.append((isl, fa, fb, action, a, ap, b, bp))
    tap.point(len(isls) == 12 and not any("action" in x for x in problems), DECISION_CHECKS[1],
              "\n".join(problems) + "\n%d ISLs" % len(isls))
    # What the database got, by (source switch, source port, origin)
    vm.flush()
    stored = collections.defaultdict(list)
    for tags, samples in vm.export("kilda.isl.rtt"):
        stored[(tags.get("src_switch"), tags.get("src_port"), tags.get("origin"))] += [int(v) for _, v in samples]
    vm.stop()
    for isl, fa, fb, action, a, ap, b, bp in results:
        mine = lambda origin: stored.get(("SW%016X" % port_mac(a, min(p for (l, p) in features if l == a)),  # noqa: E731
                                          str(ap), origin), [])
        theirs = stored.get(("SW%016X" % port_mac(b, min(p for (l, p) in features if l == b)), str(bp),
                             "round_trip"), [])
        if action == "copy-reverse-rtl" and (
                len(mine("reverse_round_trip")) != isl["reverse_copies"]
                or not set(mine("reverse_round_trip")) <= set(theirs)):
            problems.append("s%d.%d: copied %s, the reverse ISL's round trips %s"
                            % (a, ap, mine("reverse_round_trip"), theirs))
        if len(mine("round_trip")) != isl["round_trips"] or len(mine("one_way_latency")) != isl["one_way_count"]:
            problems.append("s%d.%d: the database has %d round trips and %d one-way latencies, the "
                            "table %d and %d" % (a, ap, len(mine("round_trip")), len(mine("one_way_latency")),
                                                 isl["round_trips"], isl["one_way_count"]))
        if action == "use-one-way" and not 0 < (isl["one_way_ns"] or 0) < 10 * 10**9:
            problems.append("s%d.%d: one-way latency %s" % (a, ap, isl["one_way_ns"]))
        origin = {"drop-discovery": "round_trip" if isl["round_trips"] else None,
                  "copy-reverse-rtl": "reverse_round_trip", "use-one-way": "one_way_latency"}[action]
        if isl["origin"] != origin:
            problems.append("s%d.%d: last written %s, want %s" % (a, ap, isl["origin"], origin))
    tap.point(not problems and len(results) == 12, DECISION_CHECKS[2], "\n".join(problems))

    counters = report.get("counters", {})
    stamped = sum(1 for isl, fa, fb, *_ in results if fa == FULL and fb != NONE)
    unstamped = sum(1 for isl, fa, fb, *_ in results if fa != FULL and fb != NONE)
    rounds = counters.get("rounds")
    tap.point(rounds == DECISION_ROUNDS and counters.get("round_trip") == rounds * (stamped + unstamped)
              and counters.get("unstamped") == rounds * unstamped
              and sum(i["round_trips"] for i in isls.values()) == rounds * stamped
              and counters.get("discovery") == rounds * 12,
              "%s (%d + %d per round)" % (DECISION_CHECKS[3], stamped, unstamped), json.dumps(counters))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("simulator")
    parser.add_argument("cli")
    parser.add_argument("--seed", type=int)
    options = parser.parse_args()
    tap = Tap()
    why = None
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun"):
        why = "needs root and /dev/net/tun"
    elif not all(shutil.which(t) for t in ("unshare", "tcpdump")) or not os.path.exists(victoria.BINARY):
        why = "needs unshare, tcpdump and victoria-metrics (make deps)"
    if why is not None:
        for name in CHECKS + DECISION_CHECKS:
            tap.n += 1
            print("ok %d - %s # SKIP %s" % (tap.n, name, why))
        return tap.done()
    # everything (simulator, TAPs, database, controller) in a network namespace of its own
    try:
        pktstats_sim.in_private_network()
        setup_error = None
    except RuntimeError as error:
        setup_error = error
    seed = options.seed if options.seed is not None else int(time.time()) % 1000000007
    tap.comment("seed %d (replay: %s --seed %d)" % (seed, " ".join(sys.argv[:3]), seed))
    for name, function in (("the triangle", run), ("the decision run", run_decisions)):
        work = tempfile.mkdtemp(prefix="pktstats-isl-controller-")
        try:
            if setup_error:
                raise setup_error
            function(tap, os.path.abspath(options.simulator), os.path.abspath(options.cli), seed, work)
        except Exception:  # a broken run is a failure, not a crash of the suite
            tap.point(False, name, traceback.format_exc())
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
