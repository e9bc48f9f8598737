#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""pktstats-exporter's proactive measurements and IPFIX listener on simulated switches, against
what it did not compute: tshark's own dissectors (cfm, cflow), the project's Lua headroom
dissector on captures of the same frames, the simulator's wire truth, `pktstats headroom
compute`, and a model of the counting rules written here (docs/monitoring.md, issue 30).

    tb/exporter/test_exporter_measurements.py build/bin/pktstats-sim build/asan/bin/pktstats \\
        build/asan/bin/pktstats-exporter [--seed S]

In a network namespace of its own: the two switches of tb/sim/two_switches.py's clocks (+50 ppm;
-50 ppm and 1.5 s ahead, then stepped back 1.5 s so that one-way delays mean something) with
three cables: 0.1-1.2 (150 m: two-way delay 1.5 us, inside a bucket), 0.2-1.1 (2 km, the
headroom), 0.3-1.3 (300 m, the 1DMs). Switch 0's CPU ports 5, 6, 7 are TAPs xdm0, xhr0, xow0,
switch 1's CPU port 7 is xow1; switch 1's DM and headroom responders answer. A second simulator
runs tb/sim/test_sim_flowlat.py's congestion, its IPFIX out of port 3 into TAP xfl3, whose host
end the exporter listens on. The exporter runs with:

  dm-two-way s0 port 1 on xdm0, every 20 ms;  dm-one-way s0 port 3 on xow0;
  headroom s0 port 2 on xhr0, 5 requests, interval 1h;  ipfix-listen on xfl3's address, switch
  f0 (domain 77) the flow monitor, s1 (domain 78) for the messages written here.

Meanwhile `pktstats dm one-way send` sends 40 1DMs from xow1 and the test 8 1DMs of its own
from another source (a gap of 2, a duplicate, a jump of 2^20); the test writes s0's byte_time
of port 2 through the socket (config_change), sets xhr0 down and up (link_up); it sends
malformed IPFIX datagrams (truncated, version 9, a bad kind, four impossible fields), one of an
unknown domain and three of domain 78 with a gap of 10 records and a jump of 100000. Captures:
tcpdump on xdm0, xow0, xfl3; a packet socket on xhr0 (tcpdump ends when its interface goes
down). Checked, from the final scrape:

  dm          every DMM sent answered (a DMR in the capture for each), none lost or invalid; the
              two-way histogram's buckets, count and sum (to the ns) = those of the delays
              tshark's cfm stamps give for the DMRs counted; the variation histogram = |D(i) -
              D(i-1)| of their consecutive sequence numbers; the last gauge = the last one;
              every DMR's stamps = the wire truth's and the true delay in its bucket;
  one-way     received, lost, resyncs, invalid by reason, both histograms = what the rules
              (docs in dm_session.c) give for the 1DMs tshark reads, and the figures planned;
  headroom    one measurement per trigger (start, config_change, link_up), none by interval,
              no failure; after each, the round trip = the largest of its 5 responses by the
              Lua dissector, each within 8 ns of the wire truth; cable delay its half; pfc bytes
              = `pktstats headroom compute`'s; the buffer; the measurement's time;
  ipfix       f0's events by kind, profile and group, messages, records = tshark's cflow
              reading of the capture, none missing; the datagrams written here counted under
              their reasons, switch and domain; the exporter still serving;
  exit        SIGTERM: every thread stopped and joined within 1 s (its "stopped" line; each
              session's stop takes a wake-up), exit 0, no sanitizer report.

Without root, /dev/net/tun, unshare, tcpdump or tshark, the checks are skipped.
"""

import argparse
import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from decimal import Decimal

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for sub in ("common", "sim", "cli", "flowlat"):
    sys.path.insert(0, os.path.join(ROOT, "tb", sub))
import oam_frames as F  # noqa: E402
import pktstats_sim  # noqa: E402
from exposition_text import (DELAY_BOUNDS_NS, bucket_of, free_port, histogram,  # noqa: E402
                             http_get, kill_all, log_tails, parse, value, wait_for)
import test_cli_flowlat_watch as W  # noqa: E402  (IPFIX messages written by hand)
import test_flowlat_ipfix as I  # noqa: E402  (tshark's JSON flattened)
import test_sim_flowlat as S  # noqa: E402  (the congestion scenario)
import test_sim_oam as T  # noqa: E402  (MEP addresses, the wire truth of DMRs and responses)
from tap_output import Tap  # noqa: E402

R = pktstats_sim.registers()
LEVEL = T.LEVEL
MEP = T.MEP
DM_PORT, HEADROOM_PORT, ONE_WAY_PORT = 1, 2, 3      # switch 0's (switch 1's: 2, 1, 3)
TAPS = {"dm": "xdm0", "headroom": "xhr0", "one_way": "xow0", "sender": "xow1", "ipfix": "xfl3"}
DM_INTERVAL_MS = 20
HEADROOM_COUNT = 5
BUFFER = 40000
ONE_WAY_COUNT = 40
F0_DOMAIN, S1_DOMAIN, UNKNOWN_DOMAIN = 77, 78, 999
# The test's own 1DMs: another source, a session number, the sequence numbers it sends
OWN_SOURCE = 0x02000000ee99
OWN_SESSION = 0x5eed0001
OWN_SEQUENCES = [0, 1, 2, 5, 6, 1, 2**20 + 6, 2**20 + 7]
CHECKS = ["the run", "dm: every DMM answered", "dm: delay histogram = tshark's",
          "dm: variation histogram = tshark's", "dm: wire truth", "one-way: counters",
          "one-way: histograms = tshark's", "headroom: triggers", "headroom: round trips",
          "headroom: gauges", "headroom: wire truth", "ipfix: the flow monitor's events",
          "ipfix: written datagrams", "exit"]


def mac_text(value):
    return ":".join("%02x" % b for b in F.mac_bytes(value))


# ---- the exposition ----

def delay_histogram(samples, name, **labels):
    """(per-bucket counts, sum in ns, count) of a delay histogram."""
    counts, total, count = histogram(samples, name, DELAY_BOUNDS_NS, **labels)
    return counts, total * 10**9, count


def expected_histogram(delays):
    counts = [0] * (len(DELAY_BOUNDS_NS) + 1)
    for d in delays:
        counts[bucket_of(d, DELAY_BOUNDS_NS)] += 1
    return counts, Decimal(sum(delays)), len(delays)


# ---- captures and tshark ----

class PacketCapture(threading.Thread):
    """Every frame in and out of an interface through a packet socket of its own, which, unlike
    tcpdump, goes on when the interface goes down and up."""

    def __init__(self, interface):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
        self.sock.bind((interface, 0))
        self.sock.settimeout(0.05)
        self.frames = []
        self.running = True

    def run(self):
        while self.running:
            try:
                data = self.sock.recv(65535)
            except socket.timeout:
                continue
            except OSError:  # ENETDOWN, once, when the interface goes down
                time.sleep(0.01)
                continue
            self.frames.append((time.time_ns(), data))

    def stop(self, path):
        self.running = False
        self.join(5)
        self.sock.close()
        F.write_timed_pcap(path, self.frames)


def tcpdump(interface, path, work, expression=()):
    err = os.path.join(work, "tcpdump-%s.err" % interface)
    p = subprocess.Popen(["tcpdump", "-Z", "root", "--immediate-mode", "-U", "-n", "-B", "8192",
                          "-i", interface, "-w", path] + list(expression),
                         stdout=subprocess.DEVNULL, stderr=open(err, "w"))
    if not wait_for(lambda: "listening on" in open(err).read(), 10):
        raise RuntimeError("tcpdump on %s did not start: %s" % (interface, open(err).read()))
    return p


def tshark_fields(pcap, fields, display_filter, lua=None):
    command = ["tshark", "-r", pcap, "-n", "-Y", display_filter, "-T", "fields", "-E", "separator=;"]
    if lua:
        command += ["-X", "lua_script:" + lua]
    for field in fields:
        command += ["-e", field]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError("tshark: " + done.stderr.strip())
    return [line.split(";") for line in done.stdout.splitlines() if line]


def stamp_ns(text):
    """tshark's 8 bytes of a cfm timestamp ('00000001175d0a3c') as ns."""
    raw = bytes.fromhex(text.replace(":", ""))
    return int.from_bytes(raw[:4], "big") * 10**9 + int.from_bytes(raw[4:], "big")


def numbers(text):
    """(session, sequence) of a Data TLV's value as tshark shows it."""
    raw = bytes.fromhex(text.replace(":", ""))
    return struct.unpack(">II", raw[:8]) if len(raw) >= 8 else (None, None)


# ---- the rules the exporter counts by, written again from docs/monitoring.md and the brief ----

def one_way_model(frames):
    """frames: [(source, session, sequence, delay or None)] in arrival order. The figures of
    dm_session.c's rules: per source, lost at jumps up to 2^16, resync beyond or at a new
    session, a sequence at or behind the last by at most 2^16 out of order (not observed)."""
    state, lost, resyncs, out_of_order, delays, variation = {}, 0, 0, 0, [], []
    for source, session, sequence, delay in frames:
        s = state.get(source)
        consecutive = False
        if s is None:
            s = state[source] = {"session": session, "last": sequence, "delay": None}
        else:
            jump = (sequence - s["last"]) % 2**32
            if session != s["session"]:
                resyncs += 1
                s["delay"] = None
            elif jump == 0 or jump >= 2**32 - 2**16:
                out_of_order += 1
                continue
            elif jump <= 2**16:
                lost += jump - 1
                consecutive = jump == 1
            else:
                resyncs += 1
                s["delay"] = None
            s["session"], s["last"] = session, sequence
        if delay is None or delay < 0:
            s["delay"] = None
            continue
        delays.append(delay)
        if consecutive and s["delay"] is not None:
            variation.append(abs(delay - s["delay"]))
        s["delay"] = delay
    return {"lost": lost, "resyncs": resyncs, "out_of_order": out_of_order, "delays": delays,
            "variation": variation}


# ---- the run ----

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sim")
    parser.add_argument("pktstats")
    parser.add_argument("exporter")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--keep", help="keep the captures, logs and truth in this directory")
    args = parser.parse_args()
    why = None
    for tool in ("unshare", "tcpdump", "tshark"):
        if not shutil.which(tool):
            why = "%s is not installed" % tool
    if why is None and (os.geteuid() != 0 or not os.path.exists("/dev/net/tun")):
        why = "needs root and /dev/net/tun"
    if why:
        tap = Tap()
        for name in CHECKS:
            print("ok %d - %s # SKIP %s" % (tap.n + 1, name, why))
            tap.n += 1
        return tap.done()
    pktstats_sim.in_private_network()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**31)
    print("# seed %d (replay: --seed %d)" % (seed, seed), flush=True)

    def too_long(*_):
        raise TimeoutError("over 240 s")
    signal.signal(signal.SIGALRM, too_long)
    signal.alarm(240)
    tap = Tap()
    work = tempfile.mkdtemp(prefix="test_exporter_measurements.")
    processes = []
    started = time.monotonic()
    try:
        scenario(tap, args, seed, work, processes)
    except Exception as e:  # a failure of the run is a failed point, with the logs
        logs = log_tails(work, ("exporter.err", "net.err", "fl.err"))
        tap.point(False, "the run", "%s: %s\n%s" % (type(e).__name__, e, logs))
    finally:
        kill_all(processes)
        signal.alarm(0)
        if args.keep:
            shutil.rmtree(args.keep, ignore_errors=True)
            shutil.copytree(work, args.keep, symlinks=True, ignore_dangling_symlinks=True)
        shutil.rmtree(work, ignore_errors=True)
    tap.comment("%.1f s" % (time.monotonic() - started))
    return tap.done()


def start_simulators(args, seed, work, processes):
    """The two-switch network and the flow monitor's switch, configured; (connections,
    socket paths)."""
    sockets = {k: os.path.join(work, "s%d.sock" % k) for k in (0, 1)}
    sockets["fl"] = os.path.join(work, "fl.sock")
    net = subprocess.Popen(
        [args.sim, "--seed", str(seed), "--socket", sockets[0], "--switches", "2",
         "--switch", "0:ppm=%d" % T.PPM[0],
         "--switch", "1:socket=%s,ppm=%d,offset=1.5s" % (sockets[1], T.PPM[1]),
         "--cable", "0.1-1.2,length=150m", "--cable", "0.2-1.1,length=2km",
         "--cable", "0.3-1.3,length=300m",
         "--port", "0.%d:tap=%s" % (4 + DM_PORT, TAPS["dm"]),
         "--port", "0.%d:tap=%s" % (4 + HEADROOM_PORT, TAPS["headroom"]),
         "--port", "0.%d:tap=%s" % (4 + ONE_WAY_PORT, TAPS["one_way"]),
         "--port", "1.%d:tap=%s" % (4 + ONE_WAY_PORT, TAPS["sender"]),
         "--wire-truth", os.path.join(work, "wire.csv")],
        stdout=open(os.path.join(work, "net.out"), "w"), stderr=open(os.path.join(work, "net.err"), "w"))
    processes.append(net)
    fl_work = os.path.join(work, "fl")
    os.mkdir(fl_work)
    sent = S.inputs(fl_work)
    end_ns = S.BURSTS * S.BURST_PERIOD_NS
    fl = subprocess.Popen(
        [args.sim, "--seed", str(seed), "--socket", sockets["fl"], "--wait",
         "--duration", "%dns" % (end_ns + 100000000),
         "--port", "0:in=%s" % os.path.join(fl_work, "a.pcap"),
         "--port", "1:in=%s" % os.path.join(fl_work, "b.pcap"),
         "--port", "3:tap=%s" % TAPS["ipfix"]],
        stdout=open(os.path.join(work, "fl.out"), "w"), stderr=open(os.path.join(work, "fl.err"), "w"))
    processes.append(fl)
    if not wait_for(lambda: all(os.path.exists(p) for p in sockets.values()), 30):
        raise RuntimeError("the simulators' sockets did not appear")
    conns = {k: pktstats_sim.Connection(path) for k, path in sockets.items()}
    responder = {0: dict(DM_PORT=DM_PORT, HEADROOM_PORT=HEADROOM_PORT), 1: dict(DM_PORT=2, HEADROOM_PORT=1)}
    for k in (0, 1):
        c = conns[k]
        dm_port, hr_port = responder[k]["DM_PORT"], responder[k]["HEADROOM_PORT"]
        T.configure_port(c, dm_port, T.control(dm=True, dm_responder=True, cpu_bound=True), MEP[(k, dm_port)])
        T.configure_port(c, hr_port, T.control(headroom=True, headroom_responder=True, cpu_bound=True),
                         MEP[(k, hr_port)])
        T.configure_port(c, ONE_WAY_PORT, T.control(dm=True, cpu_bound=True), MEP[(k, ONE_WAY_PORT)])
        for p in (dm_port, hr_port, ONE_WAY_PORT):
            c.write(R["STAMP_TX_CORRECTION_%d" % p], T.TX_CORRECTION_NS)
            c.write(R["STAMP_RX_CORRECTION_%d" % p], T.RX_CORRECTION_NS)
    # switch 1's clock back by its 1.5 s: the 1DMs' one-way delays are then the cable's plus
    # the clocks' drift since (100 ppm)
    step = subprocess.run([args.pktstats, "-d", "sim:" + sockets[1], "time", "step", "-1.5s"],
                          capture_output=True, text=True, timeout=30)
    if step.returncode != 0:
        raise RuntimeError("pktstats time step: " + step.stderr)
    conns["fl"].write(R["FLOWLAT_OBSERVATION_DOMAIN"], F0_DOMAIN)
    # the TAP's host end is the collector the flow monitor sends to
    mac = ":".join("%02x" % (S.IPFIX_DESTINATION_MAC >> (40 - 8 * i) & 0xff) for i in range(6))
    for command in (["link", "set", "dev", TAPS["ipfix"], "address", mac],
                    ["addr", "add", W.dotted(S.IPFIX_DESTINATION_IP) + "/24", "dev", TAPS["ipfix"]]):
        subprocess.run(["ip"] + command, check=True, capture_output=True)
    return conns, sockets, sent, end_ns


def scenario(tap, args, seed, work, processes):
    conns, sockets, flow_sent, end_ns = start_simulators(args, seed, work, processes)
    pcaps = {name: os.path.join(work, name + ".pcap") for name in ("dm", "one_way", "ipfix", "headroom")}
    dumps = [tcpdump(TAPS["dm"], pcaps["dm"], work), tcpdump(TAPS["one_way"], pcaps["one_way"], work),
             tcpdump(TAPS["ipfix"], pcaps["ipfix"], work, ["-Q", "in", "udp", "port", str(S.IPFIX_PORT)])]
    processes.extend(dumps)
    headroom_capture = PacketCapture(TAPS["headroom"])
    headroom_capture.start()

    port = free_port()
    collector = W.dotted(S.IPFIX_DESTINATION_IP)
    config = os.path.join(work, "exporter.conf")
    with open(config, "w") as f:
        f.write("listen 127.0.0.1:%d\nretry-max 2s\n" % port)
        f.write("switch s0,device=sim:%s\n" % sockets[0])
        f.write("switch s1,device=sim:%s,ipfix-domain=%d\n" % (sockets[1], S1_DOMAIN))
        f.write("switch f0,device=sim:%s,ipfix-domain=%d\n" % (sockets["fl"], F0_DOMAIN))
        f.write("dm-two-way s0,port=%d,interface=%s,peer=%s,interval=%dms,timeout=5s,level=%d\n"
                % (DM_PORT, TAPS["dm"], mac_text(MEP[(1, 2)]), DM_INTERVAL_MS, LEVEL))
        f.write("dm-one-way s0,port=%d,interface=%s\n" % (ONE_WAY_PORT, TAPS["one_way"]))
        f.write("headroom s0,port=%d,interface=%s,rate=1,pfc-response=1000,count=%d,interval=3600s,"
                "timeout=5s,buffer=%d\n" % (HEADROOM_PORT, TAPS["headroom"], HEADROOM_COUNT, BUFFER))
        f.write("ipfix-listen %s:%d\n" % (collector, S.IPFIX_PORT))
    exporter_err = os.path.join(work, "exporter.err")
    launched = time.time()
    exporter = subprocess.Popen([args.exporter, "config", config], stdout=subprocess.DEVNULL,
                                stderr=open(exporter_err, "w"))
    processes.append(exporter)
    base = "http://127.0.0.1:%d" % port

    def scrape():
        return parse(http_get(base + "/metrics")[1])

    def headroom_gauges():
        s = scrape()
        labels = dict(switch="s0", port=HEADROOM_PORT)
        return {"round_trip": value(s, "pktstats_headroom_round_trip_seconds", **labels),
                "cable": value(s, "pktstats_headroom_cable_delay_seconds", **labels),
                "pfc": value(s, "pktstats_headroom_pfc_bytes", **labels),
                "buffer": value(s, "pktstats_headroom_buffer_bytes", **labels),
                "at": value(s, "pktstats_headroom_last_measurement_timestamp_seconds", **labels)}

    def measurements(trigger):
        return value(scrape(), "pktstats_headroom_measurements_total", switch="s0", port=HEADROOM_PORT,
                     trigger=trigger)

    if not wait_for(lambda: exporter.poll() is not None or http_get(base + "/-/ready")[0] == 200, 30) \
            or exporter.poll() is not None:
        raise RuntimeError("the exporter did not become ready: " + open(exporter_err).read())
    phases = {}
    # 1. the headroom at start
    t0 = launched
    if not wait_for(lambda: measurements("start") >= 1, 30):
        raise RuntimeError("no headroom measurement at start")
    phases["start"] = (t0, time.time(), headroom_gauges())

    # 2. the flow monitor's events, then the datagrams written here
    S.configure(conns["fl"])
    fl_start = conns["fl"].cycle()
    conns["fl"].request("start")
    T.wait_for_clock(conns["fl"], fl_start + (end_ns + 300000) // 8, timeout=120)
    fl_counters = S.read_counters(conns["fl"], ("messages", "templates", "records_exported", "events_lost"))
    wait_for(lambda: value(scrape(), "pktstats_ipfix_messages_received_total", switch="f0")
             >= fl_counters["messages"], 10)
    written = written_datagrams()
    W.send([d for d, _ in written], S.IPFIX_PORT, collector)

    # 3. 1DMs: pktstats dm one-way send, then the test's own
    one_way = subprocess.run([args.pktstats, "dm", "one-way", "send", "-i", TAPS["sender"],
                              "peer", mac_text(MEP[(0, ONE_WAY_PORT)]), "source", mac_text(MEP[(1, ONE_WAY_PORT)]),
                              "level", str(LEVEL), "count", str(ONE_WAY_COUNT), "interval", "5"],
                             capture_output=True, text=True, timeout=60)
    if one_way.returncode != 0:
        raise RuntimeError("pktstats dm one-way send: " + one_way.stderr)
    with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as sender:
        sender.bind((TAPS["sender"], 0))
        for sequence in OWN_SEQUENCES:
            sender.send(F.dm(F.mac_bytes(MEP[(0, ONE_WAY_PORT)]), F.mac_bytes(OWN_SOURCE), F.OPCODE_1DM,
                             level=LEVEL, data=struct.pack(">II", OWN_SESSION, sequence % 2**32)))
            time.sleep(0.02)
    total_1dm = ONE_WAY_COUNT + len(OWN_SEQUENCES)
    wait_for(lambda: value(scrape(), "pktstats_dm_one_way_frames_received_total", switch="s0",
                           port=ONE_WAY_PORT) >= total_1dm, 20)

    # 4. the port's configuration changes: byte_time of port 2
    t0 = time.time()
    conns[0].write(R["OAM_BYTE_TIME_%d" % HEADROOM_PORT], 9)
    if not wait_for(lambda: measurements("config_change") >= 1, 20):
        raise RuntimeError("no headroom measurement on the configuration's change")
    phases["config_change"] = (t0, time.time(), headroom_gauges())

    # 5. the link goes down and up
    subprocess.run(["ip", "link", "set", "dev", TAPS["headroom"], "down"], check=True)
    time.sleep(1.0)
    t0 = time.time()
    subprocess.run(["ip", "link", "set", "dev", TAPS["headroom"], "up"], check=True)
    if not wait_for(lambda: measurements("link_up") >= 1, 20):
        raise RuntimeError("no headroom measurement on link up")
    phases["link_up"] = (t0, time.time(), headroom_gauges())

    # the final scrape, a moment without a DMR on its way when there is one
    def quiet():
        s = scrape()
        labels = dict(switch="s0", port=DM_PORT, peer=mac_text(MEP[(1, 2)]))
        return value(s, "pktstats_dm_frames_sent_total", **labels) == \
            value(s, "pktstats_dm_replies_received_total", **labels)
    wait_for(quiet, 5, step=0.003)
    text = http_get(base + "/metrics")[1]
    with open(os.path.join(work, "metrics.txt"), "w") as f:
        f.write(text)  # for --keep
    samples = parse(text)
    serving = http_get(base + "/metrics")[0] == 200

    # SIGTERM: the time until its last line ("stopped": every thread joined), before the
    # sanitizer's leak check at exit
    stop_at = time.monotonic()
    exporter.send_signal(signal.SIGTERM)
    wait_for(lambda: "pktstats-exporter: stopped" in open(exporter_err).read(), 10, step=0.005)
    exit_seconds = time.monotonic() - stop_at
    try:
        exit_status = exporter.wait(10)
    except subprocess.TimeoutExpired:
        exit_status = None
    time.sleep(0.3)
    for dump in dumps:
        dump.send_signal(signal.SIGINT)
        dump.wait(10)
    for name in ("dm", "one_way", "ipfix"):
        with open(os.path.join(work, "tcpdump-%s.err" % TAPS[name])) as f:
            tap.comment("tcpdump %s: %s" % (TAPS[name], " ".join(f.read().split("\n")[-4:])))
    headroom_capture.stop(pcaps["headroom"])
    for c in conns.values():
        c.close()
    for p in processes[:2]:  # the simulators
        p.send_signal(signal.SIGINT)
        p.wait(60)
    with open(exporter_err) as f:
        log = f.read()
    tap.point(all(p in phases for p in ("start", "config_change", "link_up")),
              "the run: the exporter measured, the 1DMs and IPFIX messages were sent "
              "(exporter log: %d lines)" % len(log.splitlines()), log[-2000:])
    tap.comment(log[-3000:])

    check_dm(tap, samples, pcaps["dm"], work)
    check_one_way(tap, samples, pcaps["one_way"])
    check_headroom(tap, args, samples, phases, pcaps["headroom"], work)
    check_ipfix(tap, samples, pcaps["ipfix"], written, fl_counters, serving)
    sanitizer = [line for line in log.splitlines() if "Sanitizer" in line or "runtime error" in line]
    tap.point(exit_status == 0 and exit_seconds < 1 and not sanitizer,
              "exit: SIGTERM stops the exporter in %.3f s (every session's thread joined; "
              "status 0), no sanitizer report" % exit_seconds,
              "status %s\n%s" % (exit_status, "\n".join(sanitizer[:20])))


# ---- two-way ----

def dm_rows(pcap):
    """{sequence: (two-way delay, [the four stamps])} of the DMRs tshark reads, and the
    sessions seen."""
    fields = ["cfm.odm.dmm.dmr.txtimestampf", "cfm.odm.dmm.dmr.rxtimestampf",
              "cfm.dmm.dmr.txtimestampb", "cfm.dmm.dmr.rxtimestampb", "cfm.tlv.data.value"]
    rows, sessions = {}, set()
    for r in tshark_fields(pcap, fields, "cfm.opcode == 46"):
        tx_f, rx_f, tx_b, rx_b = (stamp_ns(x) for x in r[:4])
        session, sequence = numbers(r[4].split(",")[0])
        sessions.add(session)
        two_way = T.signed_diff(rx_b, tx_f) - T.signed_diff(tx_b, rx_f)
        rows.setdefault(sequence, []).append(two_way)
    return rows, sessions


def check_dm(tap, samples, pcap, work):
    labels = dict(switch="s0", port=DM_PORT, peer=mac_text(MEP[(1, 2)]))
    sent = int(value(samples, "pktstats_dm_frames_sent_total", **labels))
    received = int(value(samples, "pktstats_dm_replies_received_total", **labels))
    lost = int(value(samples, "pktstats_dm_frames_lost_total", **labels))
    invalid = {r: int(value(samples, "pktstats_dm_replies_invalid_total", reason=r, **labels))
               for r in ("incomplete", "negative", "unmatched", "duplicate")}
    rows, sessions = dm_rows(pcap)
    missing = [n for n in range(sent) if n not in rows]
    twice = [n for n, d in rows.items() if len(d) > 1]
    tap.point(received > 100 and lost == 0 and not any(invalid.values())
              and not missing and not twice and len(sessions) == 1,
              "dm: the exporter sent %d DMMs, every one answered (a DMR for each in the capture, "
              "of one session); %d received at the scrape, none lost or invalid" % (sent, received),
              "sent %d received %d lost %d invalid %s; DMRs missing %s, twice %s, sessions %s"
              % (sent, received, lost, invalid, missing[:10], twice[:10], sessions))
    # DMRs come back in order: the first `received` of them are those the scrape counted
    delays = [rows[n][0] for n in range(received) if n in rows]
    got = delay_histogram(samples, "pktstats_dm_two_way_delay_seconds", **labels)
    want = expected_histogram([d for d in delays if d >= 0])
    last = value(samples, "pktstats_dm_two_way_delay_last_seconds", **labels) * 10**9
    tap.point(got == want and received and last == delays[-1] and want[2] == received,
              "dm: the two-way delay histogram's buckets, count and sum (to the ns) = those of the "
              "%d delays tshark's cfm stamps give (sum %s ns); the last gauge = the last one"
              % (len(delays), want[1]), "exporter %s last %s\ntshark %s last %s"
              % (got, last, want, delays[-1] if delays else None))
    pairs = [abs(rows[n][0] - rows[n - 1][0]) for n in range(1, received)
             if n in rows and n - 1 in rows and rows[n][0] >= 0 and rows[n - 1][0] >= 0]
    got = delay_histogram(samples, "pktstats_dm_delay_variation_seconds", **labels)
    want = expected_histogram(pairs)
    tap.point(got == want and pairs,
              "dm: the delay variation histogram = |D(i) - D(i-1)| of the %d pairs of consecutive "
              "sequence numbers from tshark's stamps (sum %s ns)" % (len(pairs), want[1]),
              "exporter %s\ntshark %s" % (got, want))
    # the wire truth: each DMR's stamps, and its true delay in the bucket of the one observed
    legs = T.Legs(T.read_truth(os.path.join(work, "wire.csv")))
    true_buckets = [0] * (len(DELAY_BOUNDS_NS) + 1)
    checked = 0
    for _, frame in F.read_pcap(pcap):
        if frame[12:14] != b"\x89\x02" or frame[15] != F.OPCODE_DMR:
            continue
        sequence = struct.unpack_from(">I", frame, 57)[0]  # Data TLV value at 53
        if sequence >= received:
            continue
        result = {"two_way_error": []}
        result.setdefault("two_way_vs_cable", [])
        result.setdefault("one_way_error", [])
        T.check_dmr(legs, 0, frame, result)
        for error in result["two_way_error"]:
            true_buckets[bucket_of(rows[sequence][0] - error, DELAY_BOUNDS_NS)] += 1
            checked += 1
    got = delay_histogram(samples, "pktstats_dm_two_way_delay_seconds", **labels)[0]
    tap.point(not legs.problems and checked == received and got == true_buckets,
              "dm: the wire truth: every stamp of the %d DMRs counted is the truth's reading, and "
              "the histogram's buckets are those of their true delays" % checked,
              "%s\nexporter %s\ntruth %s" % ("\n".join(legs.problems[:10]), got, true_buckets))


# ---- one-way ----

def check_one_way(tap, samples, pcap):
    labels = dict(switch="s0", port=ONE_WAY_PORT)
    frames = []
    for r in tshark_fields(pcap, ["eth.src", "cfm.odm.dmm.dmr.txtimestampf", "cfm.odm.dmm.dmr.rxtimestampf",
                                  "cfm.tlv.data.value"], "cfm.opcode == 45"):
        tx, rx = stamp_ns(r[1]), stamp_ns(r[2])
        session, sequence = numbers(r[3].split(",")[0])
        frames.append((r[0], session, sequence, T.signed_diff(rx, tx) if tx and rx else None))
    model = one_way_model(frames)
    reasons = ("malformed", "incomplete", "negative", "out_of_order", "too_many_sources")
    got = {"received": value(samples, "pktstats_dm_one_way_frames_received_total", **labels),
           "lost": value(samples, "pktstats_dm_one_way_frames_lost_total", **labels),
           "resyncs": value(samples, "pktstats_dm_one_way_resyncs_total", **labels)}
    got.update({r: value(samples, "pktstats_dm_one_way_frames_invalid_total", reason=r, **labels)
                for r in reasons})
    want = {"received": len(frames), "lost": model["lost"], "resyncs": model["resyncs"],
            "malformed": 0, "incomplete": 0, "negative": 0, "out_of_order": model["out_of_order"],
            "too_many_sources": 0}
    planned = {"received": ONE_WAY_COUNT + len(OWN_SEQUENCES), "lost": 2, "resyncs": 1, "out_of_order": 1}
    tap.point(got == want and all(want[k] == v for k, v in planned.items()),
              "one-way: received %d 1DMs (%d of `pktstats dm one-way send`, %d of the test's), lost %d, "
              "resyncs %d, out of order %d, nothing else invalid: what the rules give for tshark's "
              "1DMs, as planned" % (want["received"], ONE_WAY_COUNT, len(OWN_SEQUENCES), want["lost"],
                                    want["resyncs"], want["out_of_order"]),
              "exporter %s\nmodel %s\nplanned %s" % (got, want, planned))
    delay = delay_histogram(samples, "pktstats_dm_one_way_delay_seconds", **labels)
    variation = delay_histogram(samples, "pktstats_dm_one_way_variation_seconds", **labels)
    want_delay, want_variation = expected_histogram(model["delays"]), expected_histogram(model["variation"])
    tap.point(delay == want_delay and variation == want_variation and len(model["variation"]) == ONE_WAY_COUNT - 1 + 4,
              "one-way: the delay histogram (%d, sum %s ns) and the variation histogram (%d pairs) "
              "= those of RxTimef - TxTimeStampf from tshark's 1DMs"
              % (want_delay[2], want_delay[1], want_variation[2]),
              "delay: exporter %s, tshark %s\nvariation: exporter %s, tshark %s"
              % (delay, want_delay, variation, want_variation))


# ---- headroom ----

def check_headroom(tap, args, samples, phases, pcap, work):
    labels = dict(switch="s0", port=HEADROOM_PORT)
    counts = {t: int(value(samples, "pktstats_headroom_measurements_total", trigger=t, **labels))
              for t in ("start", "link_up", "config_change", "interval")}
    failures = int(value(samples, "pktstats_headroom_failures_total", **labels))
    tap.point(counts == {"start": 1, "link_up": 1, "config_change": 1, "interval": 0} and failures == 0,
              "headroom: one measurement at start, one on the configuration's change (byte_time), "
              "one on link up (down and up), none by interval, no failure",
              "%s, failures %d" % (counts, failures))
    fields = ["pktstats_headroom.%s.%s" % (t, part) for t in ("t1", "t2", "t3", "t4")
              for part in ("seconds", "nanoseconds")] + ["pktstats_headroom.round_trip"]
    lua = os.path.join(ROOT, "sw", "tools", "wireshark", "pktstats_headroom.lua")
    rows = tshark_fields(pcap, fields, "pktstats_headroom.type == 2", lua=lua)
    requests = tshark_fields(pcap, ["pktstats_headroom.type"], "pktstats_headroom.type == 1", lua=lua)
    round_trips = [int(r[8]) for r in rows]
    order = ("start", "config_change", "link_up")
    problems = []
    # one request out at a time: each answered before the next leaves (the PDU has no sequence
    # number, so a late response would be taken for the next request's)
    kinds = [f[15] & 3 for _, f in F.read_pcap(pcap) if f[12:14] == b"\x89\xa2"]
    if kinds != [1, 2] * (HEADROOM_COUNT * 3):
        problems.append("requests (1) and responses (2) in the capture: %s" % kinds)
    if len(rows) != HEADROOM_COUNT * 3 or len(requests) != HEADROOM_COUNT * 3:
        problems.append("%d requests and %d responses captured, not %d each"
                        % (len(requests), len(rows), HEADROOM_COUNT * 3))
    for i, phase in enumerate(order):
        group = round_trips[i * HEADROOM_COUNT:(i + 1) * HEADROOM_COUNT]
        gauge = phases[phase][2]["round_trip"] * 10**9
        if not group or gauge != max(group):
            problems.append("%s: gauge %s ns, responses %s" % (phase, gauge, group))
        tap.comment("%s: round trips %s" % (phase, group))
    tap.point(not problems, "headroom: after each measurement the round-trip gauge is the largest "
              "of its %d responses' round trips by the Lua dissector (%s ns)"
              % (HEADROOM_COUNT, ", ".join(str(int(phases[p][2]["round_trip"] * 10**9)) for p in order)),
              "\n".join(problems))
    problems = []
    for phase in order:
        t0, t1, g = phases[phase]
        rt = int(g["round_trip"] * 10**9)
        compute = subprocess.run([args.pktstats, "-j", "headroom", "compute", "round-trip", str(rt),
                                  "rate", "1", "pfc-response", "1000"], capture_output=True, text=True, timeout=30)
        pfc = json.loads(compute.stdout)["headroom_bytes"] if compute.returncode == 0 else None
        if g["pfc"] != pfc:
            problems.append("%s: pfc %s, pktstats headroom compute %s" % (phase, g["pfc"], pfc))
        if abs(g["cable"] * 2 * 10**9 - rt) > Decimal("1e-6"):
            problems.append("%s: cable delay %s s for a round trip of %d ns" % (phase, g["cable"], rt))
        if g["buffer"] != BUFFER:
            problems.append("%s: buffer %s" % (phase, g["buffer"]))
        if not t0 - 1 <= g["at"] <= t1 + 1:
            problems.append("%s: measured at %s, not between %.3f and %.3f" % (phase, g["at"], t0, t1))
    tap.point(not problems, "headroom: pfc bytes = `pktstats headroom compute`'s for each round trip, "
              "cable delay its half, the buffer, each measurement's time", "\n".join(problems))
    # the wire truth: every response's round trip within 8 ns of the true one (the stamps of the
    # requests after the byte_time change are 72 ns later at switch 0, t1 and t4 alike)
    legs = T.Legs(T.read_truth(os.path.join(work, "wire.csv")))
    errors = []
    for _, frame in F.read_pcap(pcap):
        if frame[12:14] == b"\x89\xa2" and frame[15] == 0x12:
            result = {"round_trip_error": [], "round_trip_vs_cable": []}
            T.check_headroom(legs, 0, frame, result)
            errors += result["round_trip_error"]
    worst = max((abs(e) for e in errors), default=float("inf"))
    tap.point(len(errors) == HEADROOM_COUNT * 3 and worst < 8,
              "headroom: each response's round trip is its true value within 8 ns (max %.2f ns)" % worst,
              "%d of %d responses found in the truth" % (len(errors), HEADROOM_COUNT * 3))


# ---- IPFIX ----

def written_datagrams():
    """The test's datagrams, each with what it must count: (payload, (counter, labels))."""
    good = [W.event(1, 3), W.event(2, 4), W.event(3, 5)]
    impossible = []
    for field, bad in (("profile", 8), ("group", 16), ("ingress", 8), ("egress", 4)):
        e = W.event(1, 1)
        e[field] = bad
        impossible.append(W.message(0, F0_DOMAIN, [e]))
    bad_kind = W.message(0, F0_DOMAIN, [W.event(1, 2)])
    bad_kind = bad_kind[:16 + 4 + 33] + b"\x07" + bad_kind[16 + 4 + 34:]
    return ([(W.message(0, F0_DOMAIN, [W.event(1, 1)])[:10], ("malformed", "truncated", None)),
             (W.message(0, F0_DOMAIN, [W.event(1, 1)], version=9), ("malformed", "bad_version", None)),
             (bad_kind, ("malformed", "bad_kind", "f0"))]
            + [(m, ("malformed", "impossible_field", "f0")) for m in impossible]
            + [(W.message(0, UNKNOWN_DOMAIN, [W.event(1, 1)]), ("unknown", None, None)),
               (W.message(0, S1_DOMAIN, [good[0]]), ("s1", None, None)),
               (W.message(1 + 10, S1_DOMAIN, [good[1]]), ("s1", None, None)),
               (W.message(1 + 10 + 1 + 100000, S1_DOMAIN, [good[2]]), ("s1", None, None))])


def check_ipfix(tap, samples, pcap, written, fl_counters, serving):
    command = ["tshark", "-r", pcap, "-n", "-d", "udp.port==%d,cflow" % S.IPFIX_PORT, "-T", "json",
               "--no-duplicate-keys"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    events, messages, records, sequence_bad, expected_sequence = {}, 0, 0, [], 0
    for packet in json.loads(done.stdout or "[]"):
        fl = I.flatten(packet["_source"]["layers"])
        if fl.get("cflow.od_id") != [str(F0_DOMAIN)]:
            continue
        messages += 1
        if fl.get("cflow.sequence") != [str(expected_sequence)]:
            sequence_bad.append((fl.get("cflow.sequence"), expected_sequence))
        entries = fl.get("cflow.enterprise_private_entry", [])
        n = len(entries) // 7
        records += n
        expected_sequence += n
        for k in range(n):
            kind, group, profile = (I.hex_int(x) for x in entries[7 * k + 1:7 * k + 4])
            key = (W.KINDS[kind], str(profile), str(group))
            events[key] = events.get(key, 0) + 1
    got = {(dict(labels)["kind"], dict(labels)["profile"], dict(labels)["group"]): int(v)
           for (name, labels), v in samples.items()
           if name == "pktstats_flowlat_latency_events_total" and dict(labels)["switch"] == "f0"}
    figures = {n: int(value(samples, "pktstats_ipfix_%s_total" % n, switch="f0"))
               for n in ("messages_received", "records_received", "records_missing", "sequence_resyncs")}
    want = {"messages_received": messages, "records_received": records, "records_missing": 0,
            "sequence_resyncs": 0}
    tap.point(done.returncode == 0 and got == events and figures == want and not sequence_bad
              and records == fl_counters["records_exported"] > 0 and messages == fl_counters["messages"],
              "ipfix: f0's events by kind, profile and group (%d label sets, %d events), its messages "
              "(%d) and records = tshark's cflow reading of the capture and the block's counters; "
              "none missing" % (len(events), records, messages),
              "exporter %s %s\ntshark %s, %d messages, %d records, sequences %s\nblock %s\n%s"
              % (got, figures, events, messages, records, sequence_bad[:5], fl_counters, done.stderr[-500:]))
    # the datagrams written here
    want = {}
    for _, (what, reason, switch) in written:
        if what == "malformed":
            key = ("pktstats_ipfix_messages_malformed_total",
                   frozenset([("reason", reason)] + ([("switch", switch)] if switch else [])))
            want[key] = want.get(key, 0) + 1
    want[("pktstats_ipfix_messages_unknown_domain_total", frozenset())] = 1
    s1 = dict(switch="s1")
    for name, n in (("messages_received", 3), ("records_received", 3), ("records_missing", 10),
                    ("sequence_resyncs", 1)):
        want[("pktstats_ipfix_%s_total" % name, frozenset(s1.items()))] = n
    for kind, profile, group in (("absolute", 3, 3), ("high", 4, 4), ("low", 5, 5)):
        want[("pktstats_flowlat_latency_events_total",
              frozenset(dict(switch="s1", kind=kind, profile=str(profile), group=str(group)).items()))] = 1
    wrong = []
    for key, n in want.items():
        if int(samples.get(key, -1)) != n:
            wrong.append("%s%s: %s, want %d" % (key[0], dict(key[1]), samples.get(key), n))
    malformed = {k: int(v) for k, v in samples.items() if k[0] == "pktstats_ipfix_messages_malformed_total"}
    extra = {k: v for k, v in malformed.items() if v and k not in want}
    s1_events = [k for k in samples if k[0] == "pktstats_flowlat_latency_events_total"
                 and ("switch", "s1") in k[1]]
    tap.point(not wrong and not extra and len(s1_events) == 3 and serving,
              "ipfix: the datagrams written here: truncated and version 9 counted without a switch, "
              "a bad kind and 4 impossible fields under f0, an unknown domain, s1's 3 messages with "
              "10 records missing and a resynchronisation; only the label sets that occurred; the "
              "exporter still serving", "\n".join(wrong) + "\nunexpected %s" % extra)


if __name__ == "__main__":
    sys.exit(main())
