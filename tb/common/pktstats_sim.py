# SPDX-License-Identifier: BSD-3-Clause
"""pktstats-sim for Python tests and benchmarks: the simulator as a process and a client of its
register socket (the protocol is docs/simulator-protocol.md). Python 3 standard library only.

    sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
    import pktstats_sim

    R = pktstats_sim.registers()                # {"EVCAP_CONTROL": 0x1008, ...}
    with pktstats_sim.Simulator(binary, work, ["--port", "0:gen=1"], wait=True) as sim:
        sim.write(R["EVCAP_CONTROL"], 1)
        sim.request("start")
        sent = sim.read64(R["EVCAP_EVENTS_SENT"])
        status = sim.stop()                     # SIGINT; sim.output() is then its summary

- Connection: one client of a simulator's socket, already listening (checks `hello`).
- Simulator: starts pktstats-sim with --socket WORK/NAME.sock (stdout and stderr to
  WORK/NAME.out and WORK/NAME.err), waits for the socket and connects; stop() (SIGINT) or kill().
- registers(): register addresses by name, from the generated C header.
- parse_summary(): the figures of the summary the simulator prints at the end of a run;
  parse_switch_summaries(): those of each switch of a network run.
"""

import csv
import ctypes
import fcntl
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIOCGIFFLAGS = 0x8913  # <linux/sockios.h>
IFF_UP = 0x1


def enter_namespace(name):
    """Moves this process into the network namespace NAME made by `ip netns add NAME` (setns;
    needs root). For a test that keeps the host's namespace for some steps; one that needs a
    namespace of its own throughout uses in_private_network()."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/var/run/netns/{name}", os.O_RDONLY)
    try:
        if libc.setns(fd, 0x40000000) != 0:  # CLONE_NEWNET
            raise OSError(ctypes.get_errno(), "setns")
    finally:
        os.close(fd)


def in_private_network():
    """Runs this script in a network namespace of its own (needs root): the first call re-runs
    it under `unshare --net` (it does not return); in there, it brings the loopback up and
    turns IPv6 off, so that TAP and veth interfaces send nothing of their own (neighbour
    discovery would circle the loops of cabled switches). Raises RuntimeError when that
    fails."""
    if not os.environ.get("PKTSTATS_IN_NETNS"):
        os.environ["PKTSTATS_IN_NETNS"] = "1"
        sys.stdout.flush()
        os.execvp("unshare", ["unshare", "--net", sys.executable] + sys.argv)
    setup = subprocess.run(["sh", "-c", "ip link set lo up && sysctl -qw "
                            "net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1"],
                           capture_output=True, text=True)
    if setup.returncode:
        raise RuntimeError("network namespace set-up: " + setup.stderr.strip())


def interface_up(name):
    """Whether the network interface NAME (of this process's namespace) is up. The simulator
    makes a TAP interface, then sets it up: a frame sent in between fails with ENETDOWN, so a
    test waits for this, not only for the interface to exist. OSError when there is none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", name.encode(), 0)
        flags = struct.unpack_from("16sH", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
    return bool(flags & IFF_UP)


def registers():
    """{name: address} from the generated C header, the single source the driver also uses
    (names without the PKTSTATS_ prefix, masks and shifts included: "EVCAP_COMMAND_FLUSH_MASK")."""
    regs = {}
    with open(os.path.join(ROOT, "sw/driver/include/pktstats/regs.h")) as header:
        for line in header:
            m = re.match(r"#define PKTSTATS_(\w+)\s+0x([0-9a-fA-F]+)u\b", line)
            if m:
                regs[m.group(1)] = int(m.group(2), 16)
    return regs


def read_wire_truth(path):
    """The rows of a --wire-truth file (docs/simulator.md), its number columns as ints."""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        for key in ("switch", "port", "true_time_ps", "clock", "tod_seconds", "tod_nanoseconds",
                    "tod_fraction", "length"):
            row[key] = int(row[key])
    return rows


def wire_reading(row, add_ns=0):
    """A wire truth line's time of day as a stamp holds it (32-bit seconds, in ns), plus add_ns
    (a correction, a frame's time on the wire), modulo 2^32 s."""
    return ((row["tod_seconds"] % 2**32) * 10**9 + row["tod_nanoseconds"] + add_ns) % (2**32 * 10**9)


def parse_summary(text):
    """The end-of-run summary pktstats-sim prints on stdout (docs/simulator.md, "Summary"):
    {"complete": drained and flushed, "flush": clock of the final flush or None (capture off),
     "events", "packets", "missed": evcap's counters at the end,
     "queues": {q: [frames stored, removed, dropped]}}. Raises ValueError when a line is missing."""
    result = {"queues": {}}
    m = re.search(r"^end of run: inputs stopped at clock \d+, switch drained at clock \d+, "
                  r"(?:capture flushed at clock (\d+)|capture off)", text, re.M)
    result["complete"] = m is not None
    result["flush"] = int(m.group(1)) if m and m.group(1) else None
    m = re.search(r"^capture: (?:on|off), (\d+) events sent in (\d+) stat packets, (\d+) missed$",
                  text, re.M)
    if not m:
        raise ValueError("no capture line in the simulator's summary")
    result["events"], result["packets"], result["missed"] = (int(x) for x in m.groups())
    table = text[text.index("\nqueue "):] if "\nqueue " in text else ""
    for line in table.splitlines()[1:]:
        words = line.split()
        if len(words) == 6 and words[0].isdigit() and words[1].isdigit():
            result["queues"][int(words[0])] = [int(w) for w in words[1:4]]
    if not result["queues"]:
        raise ValueError("no queue table in the simulator's summary")
    return result


def parse_switch_summaries(text):
    """The summary of a network run (--switches N, docs/simulator.md): one parse_summary() per
    "switch K:" section, in switch order. A single-switch summary gives a list of one."""
    starts = [m.start() for m in re.finditer(r"^switch \d+: ", text, re.M)]
    if not starts:
        return [parse_summary(text)]
    return [parse_summary(text[a:b]) for a, b in zip(starts, starts[1:] + [len(text)])]


class Connection:
    """A client of a pktstats-sim register socket: one request line, one reply line. Replies
    other than `ok` raise RuntimeError; socket failures raise OSError. A context manager."""

    def __init__(self, socket_path, timeout=60):
        self.socket_path = socket_path
        self.connect(timeout)

    def connect(self, timeout):
        """Connects (OSError if nobody listens) and checks the server's `hello`."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(self.socket_path)
        except OSError:
            sock.close()
            raise
        sock.settimeout(timeout)
        self.sock = sock
        self.file = sock.makefile("rw", newline="\n")
        try:
            hello = self.request("hello")
            if hello[:2] != ["pktstats-sim", "1"]:
                raise RuntimeError("unexpected hello reply %r" % hello)
        except BaseException:
            self.close()
            raise

    def request(self, line):
        """Sends one request line; returns the words of its `ok` reply after `ok`."""
        self.file.write(line + "\n")
        self.file.flush()
        reply = self.file.readline().rstrip("\n")
        if not reply.startswith("ok"):
            raise RuntimeError("pktstats-sim: %r: %s" % (line, reply or "connection closed"))
        return reply.split()[1:]

    def read(self, address):
        return int(self.request("read 0x%x" % address)[0], 16)

    def write(self, address, value):
        self.request("write 0x%x 0x%x" % (address, value))

    def read64(self, address):
        low = self.read(address)  # latches the high word
        return self.read(address + 4) << 32 | low

    def add_port_entries(self, ports=range(8)):
        """Static learning-table entries 02:00:00:00:00:<p+1> -> port p (entry p), the addresses
        the simulator's generators send to: no frame is flooded, and each frame's queue is
        known from its destination address."""
        regs = registers()
        for p in ports:
            self.write(regs["SWITCH_TABLE_INDEX"], p)
            self.write(regs["SWITCH_TABLE_MAC_LO"], p + 1)
            self.write(regs["SWITCH_TABLE_MAC_HI"], 0x0200)
            self.write(regs["SWITCH_TABLE_ENTRY"], p | regs["SWITCH_TABLE_ENTRY_VALID_MASK"]
                       | regs["SWITCH_TABLE_ENTRY_STATIC_MASK"])
            self.write(regs["SWITCH_TABLE_COMMAND"], 1)

    def cycle(self):
        """The simulated time in switch clocks."""
        return int(self.request("time")[1])

    def start(self):
        """Starts the traffic of a simulator run with --wait; returns a clock at or after the
        traffic's start. (Its clocks run while it waits: a time read before the request would
        be earlier than the start by however long this process took to send it, and a wait
        counted from it would end that much early.)"""
        self.request("start")
        return self.cycle()

    def close(self):
        if self.sock:
            self.file.close()  # the socket's file descriptor stays open until both are closed
            self.sock.close()
            self.sock = None

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()


class Simulator(Connection):
    """A pktstats-sim process serving its registers on WORK/NAME.sock, and one connection to it.

    args: more arguments (ports, --duration...); wait: --wait (the traffic waits for `start`);
    timeout: of each reply, in seconds. A context manager: leaving it kills a simulator still
    running. The socket is polled every millisecond: a simulator clocks while it waits for
    `start`, and benchmarks count those clocks."""

    def __init__(self, binary, work, args=(), name="sim", wait=False, timeout=60):
        self.socket_path = os.path.join(work, name + ".sock")
        self.command = ([binary] + list(args) + ["--socket", self.socket_path]
                        + (["--wait"] if wait else []))
        self.stdout = open(os.path.join(work, name + ".out"), "w")
        self.stderr = open(os.path.join(work, name + ".err"), "w")
        self.sock = None
        self.process = subprocess.Popen(self.command, stdout=self.stdout, stderr=self.stderr)
        deadline = time.monotonic() + 30
        try:
            while True:
                try:
                    self.connect(timeout)
                    break
                except OSError:
                    if self.process.poll() is not None:
                        raise RuntimeError("pktstats-sim exited: " + self.log())
                    if time.monotonic() > deadline:
                        raise RuntimeError("cannot connect to " + self.socket_path)
                    time.sleep(0.001)
        except BaseException:
            self.kill()
            raise

    def log(self):
        """What the simulator wrote on stderr so far."""
        with open(self.stderr.name) as f:
            return f.read()

    def output(self):
        """What the simulator wrote on stdout (after stop(): its summary)."""
        with open(self.stdout.name) as f:
            return f.read()

    def stop(self, interrupt=True):
        """Closes the connection and ends the run: SIGINT (the simulator closes its pcaps,
        prints its summary and exits) or, with interrupt=False, waits for its --duration.
        Returns its exit status."""
        self.close()
        if interrupt and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=120 if interrupt else None)
        self.stdout.close()
        self.stderr.close()
        return self.process.returncode

    def kill(self):
        """SIGKILL (after SIGCONT, should it be stopped), if it still runs."""
        self.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.kill()
            self.process.wait()
        self.stdout.close()
        self.stderr.close()

    def __exit__(self, *exception):
        self.kill()
