#!/usr/bin/env python3
"""`pktstats cpu-bridge run` against stand-ins for the xdma's devices. Prints TAP.

usage: test_cli_cpu_bridge.py PATH/TO/pktstats

The seam (docs/pktstats.8): `dma PREFIX` names the devices PREFIX_h2c_N and PREFIX_c2h_N, and a
device path that is a Unix socket is connected to (SOCK_SEQPACKET) instead of opened. This test
is the board: it listens on SOCK_SEQPACKET sockets at DIR/xdma0_h2c_N and DIR/xdma0_c2h_N, so
one message is one frame, as one read() or write() is on the xdma's AXI4-Stream devices. The
host's side is real: the TAPs are created in a network namespace of the test's own and the
test talks to them through packet sockets, as any program on the host would.

Checked without root: bad command lines exit 2 naming the bad argument, before any device is
opened (dma is then a missing prefix, which would exit 1); a missing device, a file that is not
a device, a socket nobody listens on exit 1 with one line naming the file.
Checked as root (else skipped, saying why): TAPs created and up with the MTU asked; frames both
ways whole, one message each and in order, sizes 60..9216; oversized frames dropped and counted,
also after the TAP's MTU is lowered while running; SIGTERM and SIGINT end the run with status 0
and a summary (JSON with -j, text) whose counters are exact; `ports` and `tap` choose the
devices and TAPs; the board closing a device, or a TAP deleted, ends the run with status 1 and
one line naming it; SIGINT ends a run blocked in a write to a device that takes nothing.
"""

import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from pktstats_sim import enter_namespace  # noqa: E402
from tap_output import Tap  # noqa: E402

NAMESPACE = f"pscpub{os.getpid() % 100000}"
EXPERIMENTAL_TYPE = 0x88B5
PACKET_OUTGOING = 4
tap = Tap()


def frame(port, direction, number, length):
    """Broadcast frame of our EtherType whose bytes say its port, direction and number."""
    head = b"\xff" * 6 + bytes([0x02, port, direction]) + number.to_bytes(3, "big")
    head += struct.pack("!H", EXPERIMENTAL_TYPE)
    body = bytes((i * 7 + number * 13 + port * 31) & 0xFF for i in range(length - len(head)))
    return head + body


def ours(data):
    return len(data) >= 14 and data[12:14] == struct.pack("!H", EXPERIMENTAL_TYPE)


def run_cli(pktstats, *args, timeout=30):
    return subprocess.run([pktstats, *args], capture_output=True, text=True, timeout=timeout)


def one_line(stderr):
    lines = stderr.strip().splitlines()
    return len(lines) == 1, lines[0] if lines else ""


# ---- without root ----

def usage_errors(pktstats):
    missing = "/nonexistent-pktstats-test/xdma0"
    cases = [  # (arguments, what the message must quote)
        (["ports", "4"], "ports '4'"),
        (["ports", "none"], "ports 'none'"),
        (["ports", "0,x"], "ports '0,x'"),
        (["tap", ""], "tap ''"),
        (["tap", "abcdefghijklmno"], "tap 'abcdefghijklmno'"),
        (["tap", "a/b"], "tap 'a/b'"),
        (["mtu", "67"], "mtu '67'"),
        (["mtu", "9199"], "mtu '9199'"),
        (["mtu", "big"], "mtu 'big'"),
        (["dma", ""], "dma ''"),
        (["bogus", "1"], "'bogus'"),
        (["ports"], "ports needs a value"),
        (["ports", "1", "ports", "2"], "ports given twice"),
    ]
    for args, quoted in cases:
        full = ["cpu-bridge", "run"] + (["dma", missing] if args[0] != "dma" else []) + args
        proc = run_cli(pktstats, *full)
        single, line = one_line(proc.stderr)
        tap.point(proc.returncode == 2 and single and quoted in line
                  and line.startswith("pktstats: cpu-bridge run: ") and proc.stdout == "",
                  f"usage error, exit 2 naming it: {' '.join(repr(a) for a in args)}",
                  f"exit {proc.returncode}, stderr {proc.stderr!r}, stdout {proc.stdout!r}")
    proc = run_cli(pktstats, "cpu-bridge", "start")
    tap.point(proc.returncode == 2 and "unknown verb 'start'" in proc.stderr,
              "an unknown verb exits 2", proc.stderr)
    proc = run_cli(pktstats, "cpu-bridge", "run", "--help")
    tap.point(proc.returncode == 0 and "dma PREFIX" in proc.stdout and "/dev/xdma0" in proc.stdout
              and "nf0..nf3" in proc.stdout, "cpu-bridge run --help names the keywords and "
              "defaults", proc.stdout + proc.stderr)


def runtime_errors(pktstats, work):
    proc = run_cli(pktstats, "cpu-bridge", "run", "dma", os.path.join(work, "missing"))
    single, line = one_line(proc.stderr)
    tap.point(proc.returncode == 1 and single and os.path.join(work, "missing_h2c_0") in line
              and "No such file or directory" in line and "is the xdma driver loaded" in line,
              "a missing device: exit 1, one line naming the file and asking for the driver",
              f"exit {proc.returncode}, stderr {proc.stderr!r}")
    proc = run_cli(pktstats, "cpu-bridge", "run", "dma", os.path.join(work, "missing"), "ports",
                   "2-3")
    single, line = one_line(proc.stderr)
    tap.point(proc.returncode == 1 and single and "missing_h2c_2" in line,
              "ports 2-3: the first device tried is _h2c_2", proc.stderr)
    with open(os.path.join(work, "plain_h2c_0"), "w") as f:
        f.write("x")
    proc = run_cli(pktstats, "cpu-bridge", "run", "dma", os.path.join(work, "plain"))
    single, line = one_line(proc.stderr)
    tap.point(proc.returncode == 1 and single and "plain_h2c_0: not a character device" in line
              and os.path.getsize(os.path.join(work, "plain_h2c_0")) == 1,
              "a regular file: exit 1, one line 'not a character device', the file untouched",
              f"exit {proc.returncode}, stderr {proc.stderr!r}")
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    dead.bind(os.path.join(work, "dead_h2c_0"))
    dead.close()  # the socket file stays, nobody listens
    proc = run_cli(pktstats, "cpu-bridge", "run", "dma", os.path.join(work, "dead"))
    single, line = one_line(proc.stderr)
    tap.point(proc.returncode == 1 and single and "dead_h2c_0: Connection refused" in line,
              "a socket nobody listens on: exit 1, one line naming it", proc.stderr)


# ---- as root, in a network namespace ----

class Board:
    """The stand-in for the xdma's devices: listening sockets, then one connection each."""

    def __init__(self, work, name, ports):
        self.prefix = os.path.join(work, name)
        self.ports = ports
        self.listening, self.h2c, self.c2h = {}, {}, {}
        for n in ports:
            for kind in ("h2c", "c2h"):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                s.bind(f"{self.prefix}_{kind}_{n}")
                s.listen(1)
                self.listening[(kind, n)] = s
        self.h2c_seen = {n: [] for n in ports}  # every message the bridge wrote to H2C

    def accept(self):
        for (kind, n), s in self.listening.items():
            if not select.select([s], [], [], 10)[0]:
                raise RuntimeError(f"the bridge did not connect to {kind}_{n}")
            conn, _ = s.accept()
            (self.h2c if kind == "h2c" else self.c2h)[n] = conn
            s.close()

    def read_h2c(self, n, count, timeout=3):
        """Our frames from H2C n (all messages are kept in h2c_seen)."""
        got, deadline = [], time.monotonic() + timeout
        while len(got) < count:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.h2c[n]], [], [], left)[0]:
                break
            data = self.h2c[n].recv(65536)
            if not data:
                break
            self.h2c_seen[n].append(data)
            if ours(data):
                got.append(data)
        return got

    def drain(self):
        """After the bridge has ended: the rest of H2C, to end of file."""
        for n in self.ports:
            while select.select([self.h2c[n]], [], [], 1)[0]:
                data = self.h2c[n].recv(65536)
                if not data:
                    break
                self.h2c_seen[n].append(data)

    def close(self):
        for s in list(self.listening.values()) + list(self.h2c.values()) + \
                list(self.c2h.values()):
            s.close()


def packet_socket(interface):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))  # ETH_P_ALL
    # Room for a whole test's frames: they are read after they are all sent.
    s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE (root)
    s.bind((interface, 0))
    return s


def host_receive(sock, count, timeout=3):
    """Our frames that the interface received (not those it sent)."""
    got, deadline = [], time.monotonic() + timeout
    while len(got) < count:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([sock], [], [], left)[0]:
            break
        data, address = sock.recvfrom(65536)
        if address[2] != PACKET_OUTGOING and ours(data):
            got.append(data)
    return got


def link(name):
    """`ip -j link show NAME` as a dict, or None."""
    proc = subprocess.run(["ip", "-j", "link", "show", name], capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout)[0]


def start(pktstats, args, json_output=False):
    command = [pktstats] + (["-j"] if json_output else []) + ["cpu-bridge", "run"] + args
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The ready line ("bridging ...") comes after the devices and TAPs are open.
    if not select.select([proc.stderr], [], [], 15)[0]:
        proc.kill()
        raise RuntimeError("no ready line from the bridge within 15 s")
    line = proc.stderr.readline()
    if "bridging" not in line:
        proc.wait(timeout=10)
        raise RuntimeError(f"the bridge did not start: {line}{proc.stderr.read()}")
    return proc


def finish(proc, sig):
    if sig:
        proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        err += "\n(killed: did not end within 15 s)"
    return proc.returncode, out, err


def counters(sent_or_seen):
    return len(sent_or_seen), sum(len(f) for f in sent_or_seen)


E2E_JSON = [
    "TAPs nf0..nf3 created, up, with mtu 9198",
    "host to board: frames sent into nfN come out of h2c_N whole, one message each, in order "
    "(60..9212 bytes)",
    "board to host: frames written to c2h_N come out of nfN whole and in order (60..9216 bytes)",
    "a 9217-byte frame from the board is dropped and counted, the next one passes",
    "a frame over the TAP's MTU + 18 is dropped once `ip link set nf3 mtu 1500`, 1518 passes",
    "SIGTERM: exit 0, one JSON object, stopped_by SIGTERM, no error",
    "the JSON counters are exact per port and direction",
    "the TAPs are gone after the run",
]
E2E_TEXT = [
    "ports 1,3 tap cb: only cb1 and cb3 are created, only devices _1 and _3 opened",
    "SIGINT: exit 0, a text summary with stopped-by SIGINT and one line per port",
    "the board closing c2h_2 ends the run: exit 1, one stderr line naming it, summary printed",
    "a TAP deleted while running (ip link del nf0): exit 1, one line naming it",
    "SIGINT while a write to h2c_0 is blocked (the board takes nothing): exit 0 at once, that "
    "frame counted as an error, the others delivered",
]


def run_json(pktstats, work):
    board = Board(work, "xdma0", [0, 1, 2, 3])
    proc = start(pktstats, ["dma", board.prefix, "mtu", "9198"], json_output=True)
    try:
        board.accept()
        links = [link(f"nf{n}") for n in range(4)]
        tap.point(all(l and "UP" in l["flags"] and l["mtu"] == 9198 for l in links),
                  E2E_JSON[0], json.dumps(links)[:2000])
        hosts = {n: packet_socket(f"nf{n}") for n in range(4)}
        sizes = [60, 61, 64, 100, 127, 128, 1000, 1514, 1518, 4000, 9000, 9212]

        h2c_sent = {n: [] for n in range(4)}
        ok, detail = True, ""
        for n in range(4):
            frames = [frame(n, 0, i, size) for i, size in enumerate(sizes)]
            frames += [frame(n, 0, 100 + i, 60 + (i * 97) % 1400) for i in range(50)]
            for f in frames:
                hosts[n].send(f)
            h2c_sent[n] = frames
            got = board.read_h2c(n, len(frames))
            if got != frames:
                ok = False
                first = next((i for i, (a, b) in enumerate(zip(got, frames)) if a != b),
                             min(len(got), len(frames)))
                detail += f"port {n}: {len(got)} of {len(frames)} frames, first difference " \
                          f"at {first}\n"
        tap.point(ok, E2E_JSON[1], detail)

        c2h_sent = {n: [] for n in range(4)}
        ok, detail = True, ""
        for n in range(4):
            frames = [frame(n, 1, i, size) for i, size in enumerate(sizes + [9213, 9216])]
            frames += [frame(n, 1, 100 + i, 60 + (i * 89) % 1400) for i in range(50)]
            for f in frames:
                board.c2h[n].send(f)
            c2h_sent[n] = list(frames)
            got = host_receive(hosts[n], len(frames))
            if got != frames:
                ok = False
                detail += f"port {n}: {len(got)} of {len(frames)} frames, sizes " \
                          f"{[len(g) for g in got][:20]}\n"
        tap.point(ok, E2E_JSON[2], detail)

        dropped = {n: 0 for n in range(4)}
        board.c2h[2].send(frame(2, 1, 900, 9217))
        dropped[2] += 1
        after = frame(2, 1, 901, 9216)
        board.c2h[2].send(after)
        c2h_sent[2].append(after)
        got = host_receive(hosts[2], 1)
        tap.point(got == [after], E2E_JSON[3], f"received {[len(g) for g in got]}")

        subprocess.run(["ip", "link", "set", "nf3", "mtu", "1500"], check=True)
        time.sleep(1.2)  # the bridge reads the MTU again each second
        board.c2h[3].send(frame(3, 1, 900, 1519))
        dropped[3] += 1
        after = frame(3, 1, 901, 1518)
        board.c2h[3].send(after)
        c2h_sent[3].append(after)
        got = host_receive(hosts[3], 1)
        tap.point(got == [after], E2E_JSON[4], f"received {[len(g) for g in got]}")
        for s in hosts.values():
            s.close()
    finally:
        status, out, err = finish(proc, signal.SIGTERM)
        board.drain()
        board.close()
    try:
        summary = json.loads(out)
    except ValueError:
        summary = None
    tap.point(status == 0 and summary is not None and summary.get("stopped_by") == "SIGTERM"
              and summary.get("error") is None and len(out.strip().splitlines()) == 1,
              E2E_JSON[5], f"exit {status}, stdout {out!r}, stderr {err!r}")
    ok, detail = summary is not None, ""
    for n in range(4):
        if not ok:
            break
        port = summary["ports"][n]
        want = {"port": n, "switch_port": 4 + n, "tap": f"nf{n}"}
        # H2C: whatever the bridge wrote (ours and any frame the host's stack sent).
        want["h2c_frames"], want["h2c_bytes"] = counters(board.h2c_seen[n])
        want["c2h_frames"], want["c2h_bytes"] = counters(c2h_sent[n])
        want.update(h2c_oversize=0, h2c_runts=0, h2c_errors=0, c2h_oversize=dropped[n],
                    c2h_runts=0, c2h_errors=0)
        wrong = {k: (port.get(k), v) for k, v in want.items() if port.get(k) != v}
        if wrong:
            ok = False
            detail += f"port {n}: (got, expected) {wrong}\n"
        if not all(f in board.h2c_seen[n] for f in h2c_sent[n]):
            ok = False
    tap.point(ok, E2E_JSON[6], detail or out)
    tap.point(all(link(f"nf{n}") is None for n in range(4)), E2E_JSON[7])


def run_text(pktstats, work):
    board = Board(work, "other", [1, 3])
    proc = start(pktstats, ["dma", board.prefix, "tap", "cb", "ports", "1,3"])
    try:
        board.accept()
        tap.point(link("cb1") is not None and link("cb3") is not None and link("cb0") is None
                  and link("cb2") is None and not os.path.exists(board.prefix + "_h2c_0"),
                  E2E_TEXT[0])
        host = packet_socket("cb3")
        f = frame(3, 1, 1, 200)
        board.c2h[3].send(f)
        got = host_receive(host, 1)
        host.close()
    finally:
        status, out, err = finish(proc, signal.SIGINT)
        board.close()
    lines = out.strip().splitlines()
    port_lines = [l for l in lines if l.lstrip().startswith("port ")]
    tap.point(status == 0 and got == [f] and any("stopped-by" in l and "SIGINT" in l
                                                for l in lines)
              and len(port_lines) == 2 and "tap cb3" in port_lines[1]
              and "c2h-frames 1 " in port_lines[1] + " ",
              E2E_TEXT[1], f"exit {status}, stdout {out!r}, stderr {err!r}")

    board = Board(work, "closing", [0, 1, 2, 3])
    proc = start(pktstats, ["dma", board.prefix])
    try:
        board.accept()
        board.c2h[2].close()
        del board.c2h[2]
        status, out, err = finish(proc, None)
    finally:
        if proc.poll() is None:
            proc.kill()
        board.close()
    err_lines = err.strip().splitlines()
    tap.point(status == 1 and len(err_lines) == 1 and board.prefix + "_c2h_2" in err_lines[0]
              and "end of file" in err_lines[0] and "stopped-by" in out and "error" in out,
              E2E_TEXT[2], f"exit {status}, stdout {out!r}, stderr {err!r}")

    # The board takes nothing: the bridge's write to H2C blocks once the stand-in's queue is
    # full, as the xdma's write waits for the board; SIGINT must still end the run at once.
    board = Board(work, "stalled", [0])
    proc = start(pktstats, ["dma", board.prefix, "ports", "0"], json_output=True)
    try:
        board.accept()
        host = packet_socket("nf0")
        for i in range(300):  # more than the stand-in's socket holds
            host.send(frame(0, 0, i, 1400))
        host.close()
        time.sleep(0.5)  # the bridge forwards what fits, then blocks in write()
        started = time.monotonic()
        status, out, err = finish(proc, signal.SIGINT)
        took = time.monotonic() - started
        board.drain()
    finally:
        if proc.poll() is None:
            proc.kill()
        board.close()
    try:
        port = json.loads(out)["ports"][0]
    except (ValueError, KeyError, IndexError):
        port = {}
    delivered = [f for f in board.h2c_seen[0] if ours(f)]
    tap.point(status == 0 and took < 3 and port.get("h2c_errors") == 1
              and port.get("h2c_frames") == len(board.h2c_seen[0]) and 0 < len(delivered) < 300
              and delivered == [frame(0, 0, i, 1400) for i in range(len(delivered))],
              E2E_TEXT[4], f"exit {status} after {took:.1f} s, {len(delivered)} delivered, "
              f"stdout {out!r}, stderr {err!r}")

    board = Board(work, "deleting", [0])
    proc = start(pktstats, ["dma", board.prefix, "ports", "0"])
    try:
        board.accept()
        subprocess.run(["ip", "link", "del", "nf0"], check=True)
        status, out, err = finish(proc, None)
    finally:
        if proc.poll() is None:
            proc.kill()
        board.close()
    err_lines = err.strip().splitlines()
    tap.point(status == 1 and len(err_lines) == 1 and "TAP nf0" in err_lines[0]
              and "deleted" in err_lines[0], E2E_TEXT[3],
              f"exit {status}, stdout {out!r}, stderr {err!r}")


def end_to_end(pktstats, work):
    names = E2E_JSON + E2E_TEXT
    why = None
    if os.geteuid() != 0:
        why = "not root: TAP interfaces and network namespaces need root"
    elif not os.path.exists("/dev/net/tun"):
        why = "no /dev/net/tun"
    else:
        setup = subprocess.run(["ip", "netns", "add", NAMESPACE], capture_output=True, text=True)
        if setup.returncode != 0:
            why = "ip netns add: " + setup.stderr.strip()
    if why:
        for name in names:
            tap.point(True, f"{name} # SKIP {why}")
        return
    start_n = tap.n
    try:
        enter_namespace(NAMESPACE)
        # No IPv6 on the new interfaces: the host's stack then sends nothing of its own.
        for conf in ("all", "default"):
            try:
                with open(f"/proc/sys/net/ipv6/conf/{conf}/disable_ipv6", "w") as f:
                    f.write("1")
            except OSError:
                pass
        run_json(pktstats, work)
        run_text(pktstats, work)
    except (OSError, RuntimeError, ValueError, KeyError, subprocess.SubprocessError) as error:
        tap.point(False, "the end-to-end runs completed", repr(error))
        for name in names[tap.n - start_n - 1:]:
            tap.point(False, name, "not reached")
    finally:
        subprocess.run(["ip", "netns", "del", NAMESPACE], capture_output=True)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    pktstats = os.path.abspath(sys.argv[1])
    usage_errors(pktstats)
    with tempfile.TemporaryDirectory(prefix="pktstats-cpu-bridge.") as work:
        runtime_errors(pktstats, work)
        end_to_end(pktstats, work)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
