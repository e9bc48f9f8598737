#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The host tools of the link-delay engines on the simulated network, through TAP interfaces
as on a board, against the wire truth and tshark (issue 13, items 3 to 5).

    tb/sim/test_sim_oam_tools.py build/bin/pktstats-sim build/asan/bin/pktstats

In a network namespace of its own, the two switches of tb/sim/two_switches.py (+50 ppm; -50
ppm and 1.5 s ahead; 100 m between port 0.1 and 1.2, 2 km between 0.2 and 1.1), switch 0's CPU
ports 5 and 6 on TAP interfaces bound to ports 1 and 2, switch 1's responders on; tcpdump
captures both TAP interfaces. `pktstats -j dm two-way` and `pktstats -j headroom measure` run
on them. Checked:

  - every DMM answered and every request, nothing lost, every frame `ok`;
  - the four stamps and the delays the tool reports for each DMR equal what tshark's own `cfm`
    dissector reads from the capture of the same frame (two-way, forward and backward delay
    computed from tshark's fields); t1..t4 and the round trip of each headroom response equal
    what the project's Lua dissector reads;
  - every stamp equals the wire truth's reading of its leg (with the corrections of
    docs/oam.md, "Accuracy"), and every two-way delay and round trip the tool reports is its
    true value within 8 ns.

Without root, network namespaces, /dev/net/tun or tshark, the checks are reported as skipped.
"""

import collections
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
sys.path.insert(0, os.path.join(ROOT, "tb", "sim"))
import oam_frames as F  # noqa: E402
import pktstats_sim  # noqa: E402
import test_sim_oam as T  # noqa: E402
from tap_output import Tap  # noqa: E402

R = pktstats_sim.registers()
NAMESPACE = "psoam%d" % (os.getpid() % 100000)
LUA = os.path.join(ROOT, "sw", "tools", "wireshark", "pktstats_headroom.lua")
COUNT = {"dm": 30, "headroom": 10}
CHECKS = ["the tools ran: every DMM and headroom request answered, every frame ok",
          "tshark's cfm fields of every captured DMR equal the stamps and delays pktstats dm reported",
          "the Lua dissector's t1..t4 and round trip of every response equal pktstats headroom's",
          "every stamp of the captured DMRs and responses equals the wire truth's reading of its leg",
          "every two-way delay and round trip the tools reported is its true value within 8 ns",
          "the run ends with status 0"]


def in_namespace(command, **kwargs):
    return subprocess.run(["ip", "netns", "exec", NAMESPACE] + command, capture_output=True,
                          text=True, timeout=120, **kwargs)


def stamp_of_hex(text):
    """tshark's 8 bytes of a cfm timestamp, '00000001175d0a3c' -> (seconds, nanoseconds)."""
    value = bytes.fromhex(text.replace(":", ""))
    return int.from_bytes(value[:4], "big"), int.from_bytes(value[4:], "big")


def stamp_json(obj):
    return obj["seconds"], obj["nanoseconds"]


def tshark_fields(pcap, fields, display_filter, lua=None):
    command = ["tshark", "-r", pcap, "-Y", display_filter, "-T", "fields", "-E", "separator=;"]
    if lua:
        command += ["-X", "lua_script:" + lua]
    for field in fields:
        command += ["-e", field]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError("tshark: " + done.stderr.strip())
    return [line.split(";") for line in done.stdout.splitlines() if line]


def run(tap, simulator, cli, work):
    seed = int(time.time()) % 1000000007
    tap.comment("seed %d" % seed)
    sockets = {0: os.path.join(work, "s0.sock"), 1: os.path.join(work, "s1.sock")}
    setup = in_namespace(["sh", "-c", "ip link set lo up && sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
                          "net.ipv6.conf.default.disable_ipv6=1"])
    if setup.returncode != 0:
        raise RuntimeError("namespace set-up: " + setup.stderr)
    # The two cables make a loop: nothing of the TAP interfaces' own (IPv6 is off) may flood
    args = ["ip", "netns", "exec", NAMESPACE, simulator, "--seed", str(seed), "--socket", sockets[0],
            "--switches", "2", "--switch", "0:ppm=%d" % T.PPM[0],
            "--switch", "1:socket=%s,ppm=%d,offset=1.5s" % (sockets[1], T.PPM[1]),
            "--cable", "0.1-1.2,length=100m", "--cable", "0.2-1.1,length=2km",
            "--port", "0.%d:tap=dm0" % (4 + T.DM_PORT[0]), "--port", "0.%d:tap=hr0" % (4 + T.HEADROOM_PORT[0]),
            "--wire-truth", os.path.join(work, "wire.csv")]
    sim = subprocess.Popen(args, stdout=open(os.path.join(work, "sim.out"), "w"),
                           stderr=open(os.path.join(work, "sim.err"), "w"))
    dumps = []
    try:
        deadline = time.monotonic() + 30
        while not all(os.path.exists(path) for path in sockets.values()):
            if sim.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("pktstats-sim did not start: " + open(os.path.join(work, "sim.err")).read())
            time.sleep(0.01)
        conns = {}
        for k in (0, 1):
            conns[k] = pktstats_sim.Connection(sockets[k])
        for k in (0, 1):
            c = conns[k]
            T.configure_port(c, T.DM_PORT[k], T.control(dm=True, dm_responder=True, cpu_bound=True), T.MEP[(k, T.DM_PORT[k])])
            T.configure_port(c, T.HEADROOM_PORT[k], T.control(headroom=True, headroom_responder=True, cpu_bound=True),
                             T.MEP[(k, T.HEADROOM_PORT[k])])
            for p in (T.DM_PORT[k], T.HEADROOM_PORT[k]):
                c.write(R["STAMP_TX_CORRECTION_%d" % p], T.TX_CORRECTION_NS)
                c.write(R["STAMP_RX_CORRECTION_%d" % p], T.RX_CORRECTION_NS)
            c.close()
        for name in ("dm0", "hr0"):
            dumps.append(subprocess.Popen(["ip", "netns", "exec", NAMESPACE, "tcpdump", "-Z", "root", "--immediate-mode", "-i", name, "-U", "-w",
                                           os.path.join(work, name + ".pcap")],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(1)
        mac = lambda k, p: ":".join("%02x" % b for b in F.mac_bytes(T.MEP[(k, p)]))  # noqa: E731
        dm = in_namespace([cli, "-j", "dm", "two-way", "-i", "dm0", "peer", mac(1, T.DM_PORT[1]),
                           "source", mac(0, T.DM_PORT[0]), "level", str(T.LEVEL),
                           "count", str(COUNT["dm"]), "interval", "2"])
        headroom = in_namespace([cli, "-j", "headroom", "measure", "-i", "hr0", "source", mac(0, T.HEADROOM_PORT[0]),
                                 "count", str(COUNT["headroom"]), "interval", "2", "rate", "1", "pfc-response", "1000"])
        time.sleep(0.5)
    finally:
        for dump in dumps:
            dump.send_signal(signal.SIGINT)
            dump.wait(timeout=30)
        sim.send_signal(signal.SIGINT)
        try:
            sim.wait(timeout=120)
        except subprocess.TimeoutExpired:
            sim.kill()
            sim.wait()
    with open(os.path.join(work, "sim.err")) as f:
        sim_log = f.read()

    dm_report = json.loads(dm.stdout) if dm.returncode == 0 else {}
    hr_report = json.loads(headroom.stdout) if headroom.returncode == 0 else {}
    dm_frames = dm_report.get("frames", [])
    hr_frames = hr_report.get("frames", [])
    tap.point(dm_report.get("summary", {}).get("received") == COUNT["dm"]
              and hr_report.get("summary", {}).get("received") == COUNT["headroom"]
              and all(f["status"] == "ok" for f in dm_frames + hr_frames)
              and len(dm_frames) == COUNT["dm"] and len(hr_frames) == COUNT["headroom"], CHECKS[0],
              "dm: %s %s\nheadroom: %s %s" % (dm.stdout[-600:], dm.stderr, headroom.stdout[-600:], headroom.stderr))

    # tshark's own cfm dissector on the DMRs the tool took
    stamp_fields = ["cfm.odm.dmm.dmr.txtimestampf", "cfm.odm.dmm.dmr.rxtimestampf",
                    "cfm.dmm.dmr.txtimestampb", "cfm.dmm.dmr.rxtimestampb"]
    rows = tshark_fields(os.path.join(work, "dm0.pcap"), stamp_fields, "cfm.opcode == 46")
    by_tx = {stamp_of_hex(r[0]): [stamp_of_hex(x) for x in r] for r in rows}
    problems = []
    for f in dm_frames:
        want = [stamp_json(f[n]) for n in ("tx_timestamp_f", "rx_timestamp_f", "tx_timestamp_b", "rx_timestamp_b")]
        got = by_tx.get(want[0])
        if got != want:
            problems.append("seq %d: tool %s, tshark %s" % (f["seq"], want, got))
            continue
        ns = [T.stamp_ns(s) for s in got]
        two_way = T.signed_diff(ns[3], ns[0]) - T.signed_diff(ns[2], ns[1])
        figures = (two_way, T.signed_diff(ns[1], ns[0]), T.signed_diff(ns[3], ns[2]))
        if figures != (f["two_way_ns"], f["forward_ns"], f["backward_ns"]):
            problems.append("seq %d: delays from tshark %s, tool %s" % (f["seq"], figures,
                            (f["two_way_ns"], f["forward_ns"], f["backward_ns"])))
    tap.point(not problems and len(rows) == COUNT["dm"] and dm_frames, CHECKS[1] + " (%d DMRs)" % len(rows),
              "\n".join(problems[:10]))

    # The project's Lua dissector on the headroom responses
    fields = ["pktstats_headroom.%s.%s" % (t, part) for t in ("t1", "t2", "t3", "t4") for part in ("seconds", "nanoseconds")]
    rows = tshark_fields(os.path.join(work, "hr0.pcap"), fields + ["pktstats_headroom.round_trip"],
                         "pktstats_headroom.type == 2", lua=LUA)
    by_t1 = {(int(r[0]), int(r[1])): r for r in rows}
    problems = []
    for f in hr_frames:
        want = [v for t in ("t1", "t2", "t3", "t4") for v in stamp_json(f[t])]
        got = by_t1.get(tuple(want[:2]))
        if got is None or [int(x) for x in got[:8]] != want or int(got[8]) != f["round_trip_ns"]:
            problems.append("seq %d: tool %s %d, Lua dissector %s" % (f["seq"], want, f["round_trip_ns"], got))
    tap.point(not problems and len(rows) == COUNT["headroom"] and hr_frames, CHECKS[2] + " (%d responses)" % len(rows),
              "\n".join(problems[:10]))

    # The wire truth
    # The wire truth: the true value of each frame's delay (from its captured stamps and the
    # error check_dmr / check_headroom find), beside what the tool reported for it
    legs = T.Legs(T.read_truth(os.path.join(work, "wire.csv")))
    true_value = {}
    for t, frame in F.read_pcap(os.path.join(work, "dm0.pcap")):
        if frame[12:14] == b"\x89\x02" and frame[15] == F.OPCODE_DMR:
            result = collections.defaultdict(list)
            T.check_dmr(legs, 0, frame, result)
            ns = [T.stamp_ns(F.stamp_at(frame, o)) for o in sorted(F.DM_FIELDS.values())]
            measured = T.signed_diff(ns[3], ns[0]) - T.signed_diff(ns[2], ns[1])
            for error in result["two_way_error"]:
                true_value[("dm", F.stamp_at(frame, 18))] = measured - error
    for t, frame in F.read_pcap(os.path.join(work, "hr0.pcap")):
        if frame[12:14] == b"\x89\xa2" and frame[15] == 0x12:
            result = collections.defaultdict(list)
            T.check_headroom(legs, 0, frame, result)
            ns = [T.stamp_ns(F.stamp_at(frame, o)) for o in sorted(F.HEADROOM_FIELDS.values())]
            measured = T.signed_diff(ns[3], ns[0]) - T.signed_diff(ns[2], ns[1])
            for error in result["round_trip_error"]:
                true_value[("headroom", F.stamp_at(frame, 16))] = measured - error
    tap.point(not legs.problems and legs.checked == 4 * (COUNT["dm"] + COUNT["headroom"]),
              CHECKS[3] + " (%d stamps)" % legs.checked, "\n".join(legs.problems[:10]))
    errors = []
    for f in dm_frames:
        key = ("dm", stamp_json(f["tx_timestamp_f"]))
        errors.append(f["two_way_ns"] - true_value[key] if key in true_value else float("inf"))
    for f in hr_frames:
        key = ("headroom", stamp_json(f["t1"]))
        errors.append(f["round_trip_ns"] - true_value[key] if key in true_value else float("inf"))
    worst = max((abs(e) for e in errors), default=float("inf"))
    tap.point(worst < 8 and len(errors) == COUNT["dm"] + COUNT["headroom"], CHECKS[4] + " (max %.2f ns)" % worst)
    tap.point(sim.returncode == 0, CHECKS[5], sim_log[-1500:])


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    simulator, cli = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tap = Tap()
    why = None
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun"):
        why = "needs root and /dev/net/tun"
    elif shutil.which("tshark") is None or shutil.which("tcpdump") is None:
        why = "needs tshark and tcpdump"
    if why is None:
        setup = subprocess.run(["ip", "netns", "add", NAMESPACE], capture_output=True, text=True)
        if setup.returncode != 0:
            why = "ip netns add: " + setup.stderr.strip()
    if why is not None:
        for name in CHECKS:
            print("ok %d - %s # SKIP %s" % (tap.n + 1, name, why))
            tap.n += 1
        return tap.done()
    work = tempfile.mkdtemp(prefix="pktstats-oam-tools-")
    try:
        run(tap, simulator, cli, work)
    except Exception as error:  # a broken run is a failure, not a crash of the suite
        tap.point(False, "the run", repr(error))
    finally:
        subprocess.run(["ip", "netns", "del", NAMESPACE], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
