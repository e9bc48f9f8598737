#!/usr/bin/env python3
"""TAP ports of pktstats-sim: real frames from the host through the simulated switch. TAP.

usage: test_sim_tap.py PATH/TO/pktstats-sim

In a network namespace of its own, the simulator runs with ports 0, 1 and 2 on TAP interfaces
pst0, pst1, pst2; the test talks to them through packet sockets, as any program on the host
would:
  - broadcast frames sent into pst0 come out of pst1 and pst2, byte for byte and in order;
  - the switch learns a station behind pst1 and then sends its unicast frames there only;
  - stat packets configured onto port 2 come out of pst2 as UDP to port 27033;
  - a frame longer than a MAC port carries is skipped and reported, never cut;
  - bad tap= arguments are usage errors;
  - in a network of two switches joined by a cable, TAP interfaces on port 0.0 and port 1.3:
    broadcasts sent into either come out of the other, through both switches and the cable;
  - in a network of two switches on equal clocks (the default 0 ppm, idle skipping on), with a
    TAP on each: frames sent one by one into switch 1's enter it one by one (a tie after an idle
    skip once left the second switch's TAP unread until something else happened in it).
Without root, network namespaces or /dev/net/tun, the checks are reported as skipped.
"""

import os
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "common"))
from pktstats_sim import (Connection, enter_namespace, interface_up,  # noqa: E402
                         registers as register_addresses)
from oam_frames import read_pcap  # noqa: E402

NAMESPACE = f"pstap{os.getpid() % 100000}"
EXPERIMENTAL_TYPE = 0x88B5  # IEEE 802 local experimental EtherType
STATION = bytes.fromhex("020000000777")
results = []


def check(name, passed, detail=""):
    results.append((name, bool(passed), detail))


def frame(destination, source, number, length=60):
    payload = struct.pack("!I", number) + b"pktstats tap test"
    data = destination + source + struct.pack("!H", EXPERIMENTAL_TYPE) + payload
    return data.ljust(length, b"\0")


def receive(sock, count, timeout, accept):
    """Frames accepted by accept(data), until count of them or the timeout."""
    got, deadline = [], time.monotonic() + timeout
    while len(got) < count:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([sock], [], [], left)[0]:
            break
        data = sock.recv(65536)
        if accept(data):
            got.append(data)
    return got


def ours(data):
    return data[12:14] == struct.pack("!H", EXPERIMENTAL_TYPE)


def stat_packet(data):
    # IPv4 (no options assumed: the evcap header has none), UDP destination port 27033
    return data[12:14] == b"\x08\x00" and data[23] == 17 and data[36:38] == struct.pack("!H", 27033)


def packet_socket(interface):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))  # ETH_P_ALL
    sock.bind((interface, 0))
    return sock


def wait_for_taps(proc, names, ready=lambda: True):
    """Waits until the simulator has made the TAP interfaces and set them up (and ready()
    holds)."""
    for _ in range(200):
        try:
            if ready() and all(interface_up(name) for name in names):
                return
        except OSError:
            pass
        if proc.poll() is not None:
            raise RuntimeError(f"pktstats-sim exited: {proc.stderr.read().strip()}")
        time.sleep(0.05)
    raise RuntimeError(f"the TAP interfaces {', '.join(names)} did not appear")


def stop(proc):
    """SIGINT to the simulator, its output, and the namespace gone: (stdout, stderr)."""
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    subprocess.run(["ip", "netns", "del", NAMESPACE], capture_output=True)
    return out, err


def usage_errors(sim):
    cases = [["--port", "0:tap="], ["--port", "0:tap=abcdefghijklmnop"],
             ["--port", "0:in=x.pcap", "--port", "0:tap=pst0"],
             ["--port", "0:tap=pst0", "--port", "0:out=x.pcap"]]
    for args in cases:
        proc = subprocess.run([sim, *args, "--duration", "1us"], capture_output=True, text=True,
                              timeout=30)
        first = (proc.stderr.strip().splitlines() or [""])[0]
        # the first line quotes the bad --port argument
        check(f"usage error: {' '.join(args)}", proc.returncode == 2
              and f"--port '{args[-1]}'" in first, f"exit {proc.returncode}, stderr {proc.stderr!r}")


def run(sim, work):
    socket_path = os.path.join(work, "sim.sock")
    proc = subprocess.Popen(["ip", "netns", "exec", NAMESPACE, sim, "--socket", socket_path,
                             "--port", "0:tap=pst0", "--port", "1:tap=pst1",
                             "--port", "2:tap=pst2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        enter_namespace(NAMESPACE)
        wait_for_taps(proc, ["pst0", "pst1", "pst2"], lambda: os.path.exists(socket_path))
        subprocess.run(["ip", "link", "set", "pst0", "mtu", "3000"], check=True)
        taps = [packet_socket(f"pst{i}") for i in range(3)]

        # 1. Flooding: broadcast into pst0, out of pst1 and pst2, in order, byte for byte.
        sent = [frame(b"\xff" * 6, bytes.fromhex("020000000555"), i) for i in range(20)]
        for data in sent:
            taps[0].send(data)
        for port in (1, 2):
            got = receive(taps[port], len(sent), 30, ours)
            check(f"broadcast from pst0 comes out of pst{port} whole and in order",
                  got == sent, f"{len(got)} of {len(sent)} frames")

        # 2. Learning: STATION speaks behind pst1, then is reached there only.
        taps[1].send(frame(b"\xff" * 6, STATION, 100))
        receive(taps[2], 1, 30, ours)  # its broadcast reaches pst2: the switch has seen it
        unicast = frame(STATION, bytes.fromhex("020000000555"), 101)
        taps[0].send(unicast)
        on_1 = receive(taps[1], 1, 30, ours)
        on_2 = receive(taps[2], 1, 2, ours)
        check("a learned station's frames go to its port only", on_1 == [unicast] and not on_2,
              f"pst1 got {len(on_1)}, pst2 got {len(on_2)}")

        # 3. Stat packets on port 2, out of pst2.
        try:
            with Connection(socket_path, timeout=20) as registers:
                regs = register_addresses()
                for name, value in (("EVCAP_OUTPUT_PORTS", 1 << 2),
                                    ("EVCAP_FLUSH_TIMEOUT", 1250), ("EVCAP_CONTROL", 1)):
                    registers.request("write %#x %d" % (regs[name], value))
            refused = ""
        except RuntimeError as error:  # a reply other than ok
            refused = str(error)
        check("capture configured through the socket", not refused, refused)
        for i in range(5):
            taps[0].send(frame(b"\xff" * 6, bytes.fromhex("020000000555"), 200 + i))
        stats = receive(taps[2], 1, 60, stat_packet)
        check("stat packets come out of a TAP port as UDP to 27033", len(stats) == 1
              and stats[0][42] & 0x0f == 2, f"{len(stats)} stat packets")

        # 4. A frame longer than a MAC port carries is skipped and counted, not cut.
        big = frame(b"\xff" * 6, bytes.fromhex("020000000555"), 300, length=2000)
        taps[0].send(big)
        after = frame(b"\xff" * 6, bytes.fromhex("020000000555"), 301)
        taps[0].send(after)
        # (frames 200.. of step 3 also reached pst1; only 300 and later count here)
        got = receive(taps[1], 1, 30, lambda d: ours(d) and struct.unpack("!I", d[14:18])[0] >= 300)
        check("an oversized frame is skipped, the next one passes", got == [after],
              f"got {[len(g) for g in got]}")
    finally:
        out, err = stop(proc)
    check("SIGINT ends the run with status 0", proc.returncode == 0, f"status {proc.returncode}")
    check("the summary names the TAP ports and the skipped frame",
          "TAP pst0" in out and "1 frames from TAP pst0 skipped" in out, out[-800:] + err)


def run_network(sim, work):
    """Two switches, a 100 m cable between ports 0.1 and 1.1, TAP interfaces on 0.0 and 1.3."""
    proc = subprocess.Popen(["ip", "netns", "exec", NAMESPACE, sim, "--switches", "2",
                             "--cable", "0.1-1.1,length=100m", "--port", "0.0:tap=pstn0",
                             "--port", "1.3:tap=pstn1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        enter_namespace(NAMESPACE)
        wait_for_taps(proc, ["pstn0", "pstn1"])
        taps = [packet_socket("pstn0"), packet_socket("pstn1")]
        for into, out_of in ((0, 1), (1, 0)):
            sent = [frame(b"\xff" * 6, bytes.fromhex("02000000066%d" % into), 400 + i) for i in range(10)]
            for data in sent:
                taps[into].send(data)
            got = receive(taps[out_of], len(sent), 30, lambda d: ours(d) and d[6:12] == sent[0][6:12])
            check(f"network: broadcasts into the TAP of switch {into} come out of switch "
                  f"{out_of}'s, over the cable, whole and in order", got == sent,
                  f"{len(got)} of {len(sent)} frames")
    finally:
        out, err = stop(proc)
    check("network: SIGINT ends the run with status 0, the summary names both TAP ports",
          proc.returncode == 0 and "TAP pstn0" in out and "TAP pstn1" in out,
          f"status {proc.returncode}\n" + out[-800:] + err)


def run_equal_clocks(sim, work):
    """Two switches on equal clocks, no cable, TAP interfaces on 0.0 and 1.0, port 1.1 into a
    pcap (simulated time). Frames sent one by one into switch 1's TAP, 0.1 s apart while the
    network idles, must each enter at switch 1's next poll of its TAP (256 clocks): they come
    out apart, as sent. When a tie after an idle skip gave the step to switch 0 only, switch 1
    was skipped past its polls and read its TAP only when something else happened in it: the
    frames waited (seconds, on a run with a client) and came out together, back to back."""
    out_path = os.path.join(work, "equal1.pcap")
    proc = subprocess.Popen(["ip", "netns", "exec", NAMESPACE, sim, "--switches", "2",
                             "--port", "0.0:tap=pste0", "--port", "1.0:tap=pste1",
                             "--port", "1.1:out=" + out_path],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    count, source = 8, bytes.fromhex("020000000e01")
    try:
        enter_namespace(NAMESPACE)
        wait_for_taps(proc, ["pste0", "pste1"])
        tap = packet_socket("pste1")
        for i in range(count):
            tap.send(frame(b"\xff" * 6, source, 700 + i))
            time.sleep(0.1)
        time.sleep(1)
    finally:
        out, err = stop(proc)
    got = [(t, struct.unpack_from("!I", data, 14)[0] - 700)
           for t, data in (read_pcap(out_path) if os.path.exists(out_path) else [])
           if ours(data) and data[6:12] == source]
    gaps = [b[0] - a[0] for a, b in zip(got, got[1:])]
    # 0.1 s of the host's time is far more than 20 us of the simulator's, even on a loaded
    # machine; frames read together are a wire time apart (under 1 us)
    check("equal clocks: frames sent 0.1 s apart into switch 1's TAP enter one by one, in order "
          "(at least 20 us of simulated time apart)",
          [n for _, n in got] == list(range(count)) and min(gaps) >= 20000,
          f"frames {[n for _, n in got]}, gaps (ns) {gaps}\n" + out[-400:] + err[-400:])


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    sim = os.path.abspath(sys.argv[1])
    usage_errors(sim)
    names = ["broadcast from pst0 comes out of pst1 whole and in order",
             "broadcast from pst0 comes out of pst2 whole and in order",
             "a learned station's frames go to its port only",
             "capture configured through the socket",
             "stat packets come out of a TAP port as UDP to 27033",
             "an oversized frame is skipped, the next one passes",
             "SIGINT ends the run with status 0",
             "the summary names the TAP ports and the skipped frame",
             "network: broadcasts into the TAP of switch 0 come out of switch 1's, over the cable, whole and in order",
             "network: broadcasts into the TAP of switch 1 come out of switch 0's, over the cable, whole and in order",
             "network: SIGINT ends the run with status 0, the summary names both TAP ports",
             "equal clocks: frames sent 0.1 s apart into switch 1's TAP enter one by one, in order (at least 20 us of simulated time apart)"]
    setup = subprocess.run(["ip", "netns", "add", NAMESPACE], capture_output=True, text=True)
    if not os.path.exists("/dev/net/tun") or setup.returncode != 0:
        why = "no /dev/net/tun" if not os.path.exists("/dev/net/tun") else setup.stderr.strip()
        for name in names:
            results.append((f"{name} # SKIP no TAP devices or namespaces here: {why}", True, ""))
        subprocess.run(["ip", "netns", "del", NAMESPACE], capture_output=True)
    else:
        with tempfile.TemporaryDirectory(prefix="pktstats-tap.") as work:
            try:
                run(sim, work)
            except (OSError, RuntimeError, subprocess.SubprocessError) as error:
                check("the TAP run completed", False, str(error))
            setup = subprocess.run(["ip", "netns", "add", NAMESPACE], capture_output=True, text=True)
            try:
                if setup.returncode != 0:
                    raise RuntimeError("ip netns add: " + setup.stderr.strip())
                run_network(sim, work)
            except (OSError, RuntimeError, subprocess.SubprocessError) as error:
                check("the network TAP run completed", False, str(error))
            setup = subprocess.run(["ip", "netns", "add", NAMESPACE], capture_output=True, text=True)
            try:
                if setup.returncode != 0:
                    raise RuntimeError("ip netns add: " + setup.stderr.strip())
                run_equal_clocks(sim, work)
            except (OSError, RuntimeError, subprocess.SubprocessError) as error:
                check("the equal-clocks TAP run completed", False, str(error))
    for i, (name, passed, detail) in enumerate(results, 1):
        print(f"{'ok' if passed else 'not ok'} {i} - {name}")
        if not passed and detail:
            for line in str(detail).splitlines()[-10:]:
                print(f"# {line}")
    print(f"1..{len(results)}")
    return 0 if all(passed for _, passed, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
