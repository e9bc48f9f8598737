# SPDX-License-Identifier: BSD-3-Clause
"""The monitored fleet: eight simulated switches in one pktstats-sim network, one
pktstats-exporter serving them all, a real Prometheus scraping it and remote-writing to a real
VictoriaMetrics (docs/monitoring.md, "A fleet"; issue 30 item 7). Shared by
tb/exporter/test_exporter_fleet.py and scripts/demo_monitor.py (`make demo-monitor`), which run
it in a network namespace of their own. Python 3 standard library only.

    fleet = Fleet(sim, cli, exporter, work, traffic_ms=5)
    try:
        fleet.start()               # every process; Prometheus scraped every switch
        fleet.start_traffic()
        counters = fleet.wait_settled(timeout)   # the simulator's own counters, per switch
        fleet.wait_decoded(counters, timeout)    # the exporter decoded every stat packet
        fleet.wait_scraped()        # a scrape after that, in both databases
        fleet.prom.value(...), fleet.vm.value(...)
        summaries = fleet.stop_simulator()       # the simulator's end-of-run summaries
        delays = fleet.truth_delays(k)           # {queue: [ns, ...]} of switch k
    finally:
        fleet.close()               # every process stopped (idempotent)

The network (all of it set before the traffic, which waits for `start`):

  - switches s0..s7 (index k), a chain of 100 m cables: port 2 of switch k to port 1 of switch
    k + 1 (k = 0..6); no loop, so nothing circles;
  - every switch has a static learning-table entry 02:00:00:00:00:03 -> port 2 (added with
    `pktstats fdb add`), the address its generators send to (`to=2`): every frame of the fleet
    goes out of port 2, toward the next switch (s7's port 2 has no cable: its frames end there);
  - on every switch, an incast on the port-2 queue: generators on ports 0 (IMIX) and 3 (sizes
    60..1514 uniform), in bursts (mean 10 us on, 40 us off), at rates that grow along the chain
    (GENERATORS: 0.35 + 0.05 k and 0.25 + 0.05 k of the line rate while on), plus everything
    the switch before sent over the cable. The load adds up along the
    chain: the first switches only queue, the later ones fill the queue (3906 words, 250 us at
    1 Gb/s) and drop more and more. Each generator sends a fixed number of frames (count=),
    its rate times the traffic time (traffic_ms of simulated time), so the traffic ends;
  - capture on from the first clock (--write, before the traffic): resolution 0 (8 ns), stat
    packets out of CPU port 7 only, flush timeout 1250 clocks (10 us); each switch's port 7
    ends in a TAP interface of its own (TAP_PREFIX + k), which the exporter captures;
  - each switch's sojourn truth (--switch K:sojourn-truth=WORK/sojournK.csv): one line per frame
    that left a queue, with the clocks of its commit and departure.

The exporter (WORK/exporter.conf) serves switch sK with device=sim:WORK/sK.sock and
stat-interface=TAP_PREFIX + k; Prometheus (WORK/prometheus/, tb/common/prometheus.py) scrapes it
every scrape_interval and remote-writes to VictoriaMetrics (WORK/victoria-metrics/,
tb/common/victoria.py).
"""

import itertools
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
import pktstats_sim  # noqa: E402
import prometheus  # noqa: E402
import victoria  # noqa: E402
from exposition_text import (DELAY_BOUNDS_NS, bucket_of, free_port, http_get,  # noqa: E402
                             parse, value)
from prom_api import wait_for  # noqa: E402

SWITCHES = 8
QUEUES = 8
STAT_PORT = 7
INCAST_PORT = 2                       # every frame leaves by it; its queue is the one that fills
INCAST_MAC = "02:00:00:00:00:03"      # the generators' address of port 2 (`to=2`)
TAP_PREFIX = "fleet"
CABLE = "100m"
# The generators of switch k: (port, rate during a burst, size); the rates grow along the chain
GENERATORS = ((0, lambda k: 0.35 + 0.05 * k, "imix"), (3, lambda k: 0.25 + 0.05 * k, "60-1514"))
BURST_ON_US, BURST_OFF_US = 10, 40
# Mean bytes on the wire of a frame (preamble 8, FCS 4, gap 12 added): IMIX is 60, 590 and 1514
# bytes drawn 7:4:1; 60-1514 uniform has the mean 787
WIRE_BYTES = {"imix": (7 * 60 + 4 * 590 + 1514) / 12 + 24, "60-1514": 787 + 24}
FLUSH_TIMEOUT_CLOCKS = 1250

R = pktstats_sim.registers()


def name(k):
    """Switch k's name in the exporter's configuration, hence its `switch` label."""
    return "s%d" % k


def generator_count(k, port, traffic_ms):
    """Frames switch k's generator on `port` sends: its mean rate over the traffic time."""
    for p, rate, size in GENERATORS:
        if p == port:
            duty = BURST_ON_US / (BURST_ON_US + BURST_OFF_US)
            mean_frame_ns = WIRE_BYTES[size] * 8 / rate(k)   # 8 ns a byte at 1 Gb/s, / rate
            return max(1, round(traffic_ms * 1e6 * duty / mean_frame_ns))
    raise ValueError("no generator on port %d" % port)


def cumulative_buckets(delays_ns, bounds_ns=DELAY_BOUNDS_NS):
    """Cumulative bucket counts (the last +Inf) of delays in ns, an observation counted in the
    first bucket whose bound it does not exceed, compared in integer nanoseconds (the exporter's
    delay buckets by default: exposition_text.DELAY_BOUNDS_NS, their `le` texts DELAY_LE)."""
    counts = [0] * (len(bounds_ns) + 1)
    for d in delays_ns:
        counts[bucket_of(d, bounds_ns)] += 1
    return list(itertools.accumulate(counts))


def read_many(conn, addresses):
    """Reads the registers through a pktstats_sim.Connection, the requests pipelined (sent at
    once; the simulator answers them in order, one bus transaction after the other)."""
    conn.file.write("".join("read 0x%x\n" % a for a in addresses))
    conn.file.flush()
    values = []
    for a in addresses:
        reply = conn.file.readline().split()
        if len(reply) < 2 or reply[0] != "ok":
            raise RuntimeError("pktstats-sim: read 0x%x: %s" % (a, " ".join(reply) or "closed"))
        values.append(int(reply[1], 16))
    return values


class Fleet:
    """The network, the exporter, Prometheus and VictoriaMetrics of one run (see the module's
    text). work: a directory of the run's own (sockets, truth files, logs, databases)."""

    def __init__(self, sim, cli, exporter, work, traffic_ms=5.0, seed=1, scrape_interval="1s",
                 log=None):
        self.sim_binary, self.cli, self.exporter_binary = sim, cli, exporter
        self.work = os.path.abspath(work)
        self.traffic_ms = traffic_ms
        self.seed = seed
        self.scrape_interval = scrape_interval
        self.log = log or (lambda text: None)
        self.sim = None
        self.conns = []            # switch k's register connection (conns[0] is self.sim)
        self.exporter = None
        self.exporter_stderr = None
        self.exporter_port = None
        self.prom = None
        self.vm = None
        self.traffic_started = None   # wall time of `start`
        self.traffic_settled = None   # wall time the traffic was found over
        self.summaries = None

    # --- what runs

    def socket(self, k):
        return os.path.join(self.work, "%s.sock" % name(k))

    def sojourn_truth(self, k):
        return os.path.join(self.work, "sojourn%d.csv" % k)

    def tap(self, k):
        return TAP_PREFIX + str(k)

    def counts(self, k):
        """{port: frames} of switch k's generators."""
        return {port: generator_count(k, port, self.traffic_ms) for port, _, _ in GENERATORS}

    def sim_args(self):
        """pktstats-sim's arguments but switch 0's --socket and --wait (pktstats_sim.Simulator
        adds them)."""
        args = ["--switches", str(SWITCHES), "--seed", str(self.seed)]
        for k in range(SWITCHES):
            args += ["--switch", "%d:%ssojourn-truth=%s" % (
                k, "socket=%s," % self.socket(k) if k else "", self.sojourn_truth(k))]
        for k in range(SWITCHES - 1):
            args += ["--cable", "%d.%d-%d.1,length=%s" % (k, INCAST_PORT, k + 1, CABLE)]
        for k in range(SWITCHES):
            for register, value in (("evcap.resolution", "0"),
                                    ("evcap.flush_timeout", str(FLUSH_TIMEOUT_CLOCKS)),
                                    ("evcap.output_ports", "%#x" % (1 << STAT_PORT)),
                                    ("evcap.control", "1")):
                args += ["--write", "%d:%s=%s" % (k, register, value)]
            counts = self.counts(k)
            for port, rate, size in GENERATORS:
                args += ["--port", "%d.%d:gen=%.2f,size=%s,to=%d,on=%dus,off=%dus,count=%d" % (
                    k, port, rate(k), size, INCAST_PORT, BURST_ON_US, BURST_OFF_US, counts[port])]
            args += ["--port", "%d.%d:tap=%s" % (k, STAT_PORT, self.tap(k))]
        return args

    def exporter_config(self):
        lines = ["# pktstats-exporter of the fleet (tb/exporter/fleet.py)",
                 "listen 127.0.0.1:%d" % self.exporter_port]
        for k in range(SWITCHES):
            lines.append("switch %s,device=sim:%s,stat-interface=%s"
                         % (name(k), self.socket(k), self.tap(k)))
        return "\n".join(lines) + "\n"

    def exporter_url(self):
        return "http://127.0.0.1:%d" % self.exporter_port

    def scrape_exporter(self, timeout=10):
        """The exporter's /metrics now (text 0.0.4), parsed (exposition_text.parse)."""
        return parse(http_get(self.exporter_url() + "/metrics", timeout)[1])

    def start(self, timeout=60):
        """VictoriaMetrics, Prometheus (its first scrape comes about 5 s after its start, so it
        starts first), the simulator waiting for `start` with every switch's fdb entry added,
        the exporter; returns when Prometheus has scraped every switch's pktstats_up."""
        os.makedirs(self.work, exist_ok=True)
        self.exporter_port = free_port()
        self.log("starting VictoriaMetrics and Prometheus (scraping 127.0.0.1:%d every %s)"
                 % (self.exporter_port, self.scrape_interval))
        self.vm = victoria.VictoriaMetrics(os.path.join(self.work, "victoria-metrics"))
        self.vm.start()
        self.prom = prometheus.Prometheus(
            os.path.join(self.work, "prometheus"), ["127.0.0.1:%d" % self.exporter_port],
            job="pktstats", scrape_interval=self.scrape_interval,
            remote_write_url=self.vm.remote_write_url)
        self.prom.start()

        self.log("starting pktstats-sim: %d switches in a chain of %s cables, waiting for `start`"
                 % (SWITCHES, CABLE))
        self.sim = pktstats_sim.Simulator(self.sim_binary, self.work, self.sim_args(), name="s0",
                                          wait=True)
        self.conns = [self.sim]
        for k in range(1, SWITCHES):
            self.conns.append(wait_for(lambda: pktstats_sim.Connection(self.socket(k)), 30,
                                       "switch %d's socket" % k))
        wait_for(lambda: all(pktstats_sim.interface_up(self.tap(k)) for k in range(SWITCHES)),
                 30, "the TAP interfaces, up")
        self.log("adding the learning-table entries: pktstats -d sim:SOCKET fdb add %s port %d "
                 "static" % (INCAST_MAC, INCAST_PORT))
        # all at once: each takes several of its simulator's socket polls
        self.run_cli(*[["-d", "sim:" + self.socket(k), "fdb", "add", INCAST_MAC, "port",
                        str(INCAST_PORT), "static"] for k in range(SWITCHES)])

        config = os.path.join(self.work, "exporter.conf")
        with open(config, "w") as f:
            f.write(self.exporter_config())
        self.log("starting pktstats-exporter config %s" % config)
        self.exporter_stderr = open(os.path.join(self.work, "exporter.log"), "w")
        self.exporter = subprocess.Popen(
            [self.exporter_binary, "config", config], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=self.exporter_stderr)

        def exporter_running():
            if self.exporter.poll() is not None:
                raise RuntimeError("pktstats-exporter exited %s: %s"
                                   % (self.exporter.returncode, self.exporter_log()[-2000:]))

        def ready():
            try:
                return http_get(self.exporter_url() + "/-/ready", 2)[0] == 200
            except OSError:   # not listening yet, or 503 until every device was tried
                return False
        deadline = time.monotonic() + timeout
        while not ready():
            exporter_running()
            if time.monotonic() > deadline:
                raise TimeoutError("the exporter not ready within %g s" % timeout)
            time.sleep(0.05)
        self.log("waiting for Prometheus to scrape every switch")
        while len(self.prom.vector("pktstats_up")) != SWITCHES:
            exporter_running()
            if time.monotonic() > deadline:
                raise TimeoutError("Prometheus did not scrape every switch's pktstats_up within "
                                   "%g s: %s" % (timeout, self.prom.targets()))
            time.sleep(0.1)

    def run_cli(self, *commands, timeout=60):
        """Runs the pktstats command once per argument list, all at the same time; RuntimeError
        naming the first that failed."""
        procs = [subprocess.Popen([self.cli] + list(words), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for words in commands]
        failed = []
        for words, proc in zip(commands, procs):
            try:
                _, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, err = proc.communicate()
            if proc.returncode:
                failed.append("pktstats %s: exit %s: %s" % (" ".join(words), proc.returncode,
                                                            err.strip()))
        if failed:
            raise RuntimeError(failed[0])

    def exporter_log(self):
        try:
            with open(os.path.join(self.work, "exporter.log")) as f:
                return f.read()
        except OSError:
            return ""

    def start_traffic(self):
        """`start`: every switch's generators begin, at the same true time."""
        self.sim.request("start")
        self.traffic_started = time.time()

    # --- the simulator's own counters

    def read_counters(self, k):
        """Switch k's counters through its socket: {"events", "packets", "missed": evcap's,
        "queues": {q: [stored, removed, dropped]}, "occupancy": words in all queues}."""
        wide = [R["EVCAP_EVENTS_SENT"], R["EVCAP_PACKETS_SENT"], R["EVCAP_EVENTS_MISSED"]]
        for q in range(QUEUES):
            wide += [R["SWITCH_FRAMES_STORED_0"] + 8 * q, R["SWITCH_FRAMES_REMOVED_0"] + 8 * q,
                     R["SWITCH_FRAMES_DROPPED_0"] + 8 * q]
        narrow = [R["SWITCH_QUEUE_OCCUPANCY_0"] + 4 * q for q in range(QUEUES)]
        # 64-bit registers low word first (it latches the high word)
        values = read_many(self.conns[k], [a + w for a in wide for w in (0, 4)] + narrow)
        wide_values = [values[2 * i] | values[2 * i + 1] << 32 for i in range(len(wide))]
        return {"events": wide_values[0], "packets": wide_values[1], "missed": wide_values[2],
                "queues": {q: wide_values[3 + 3 * q:6 + 3 * q] for q in range(QUEUES)},
                "occupancy": sum(values[2 * len(wide):])}

    def expected_arrivals(self, k, counters):
        """Frames switch k's port-2 queue must take or drop in all: its generators' and what
        the switch before sent over the cable."""
        before = counters[k - 1]["queues"][INCAST_PORT][1] if k else 0
        return sum(self.counts(k).values()) + before

    def wait_settled(self, timeout, progress=None, every=1.0):
        """Waits until the traffic is over: every switch's queue 2 took or dropped all its
        frames (expected_arrivals), every queue is empty and evcap.events_sent did not change
        since the poll before; then lets every switch run beyond its flush timeout (`until`),
        so that its last stat packet is out. Returns each switch's read_counters().
        progress(counters) is called at each poll."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            counters = [self.read_counters(k) for k in range(SWITCHES)]
            if progress:
                progress(counters)
            done = all(sum(counters[k]["queues"][INCAST_PORT][0::2]) ==
                       self.expected_arrivals(k, counters) and counters[k]["occupancy"] == 0
                       for k in range(SWITCHES))
            if done and last and all(last[k]["events"] == counters[k]["events"]
                                     for k in range(SWITCHES)):
                break
            last = counters
            if time.monotonic() > deadline:
                raise TimeoutError("the traffic did not end within %g s: (switch, queue 2's "
                                   "stored + dropped, expected, occupancy) %s" % (timeout, [
                                       (name(k), sum(c["queues"][INCAST_PORT][0::2]),
                                        self.expected_arrivals(k, counters), c["occupancy"])
                                       for k, c in enumerate(counters)]))
            time.sleep(every)
        for c in self.conns:
            c.request("until +%d" % (2 * FLUSH_TIMEOUT_CLOCKS))
        self.traffic_settled = time.time()
        return [self.read_counters(k) for k in range(SWITCHES)]

    def wait_decoded(self, counters, timeout):
        """Waits until the exporter has decoded as many stat packets of each switch as it sent
        (pktstats_stat_packets_received_total). Returns whether it did."""
        def decoded():
            samples = self.scrape_exporter()
            return all(value(samples, "pktstats_stat_packets_received_total", switch=name(k))
                       == counters[k]["packets"] for k in range(SWITCHES))
        try:
            wait_for(decoded, timeout, "the exporter decoding every stat packet", interval=0.2)
            return True
        except TimeoutError:
            return False

    def wait_scraped(self, timeout=30, tries=5):
        """Waits for a Prometheus scrape that started after this call, committed, in which
        every switch's registers were read in time (pktstats_up 1: a read slower than the
        scrape's deadline, Prometheus's scrape timeout less 0.5 s in the exporter, makes a
        switch down for that scrape alone, and a loaded machine does that now and then; at most
        `tries` scrapes), and for VictoriaMetrics to hold that scrape too (remote write: its
        samples' timestamps there). Returns the scrapes waited for."""
        for n in range(1, tries + 1):
            self.prom.wait_scrapes(1)
            up = self.prom.vector("pktstats_up")
            if len(up) == SWITCHES and all(v == 1 for v in up.values()):
                break
            self.log("a scrape with a switch down (pktstats_up %s): waiting for the next" % sorted(
                (dict(k).get("switch"), v) for k, v in up.items()))
        last = self.prom.value('max(timestamp(pktstats_up))')
        wait_for(lambda: (self.vm.value('max(timestamp(pktstats_up))') or 0) >= last - 0.0005,
                 timeout, "VictoriaMetrics holding Prometheus's last scrape")
        return n

    # --- the end

    def stop_simulator(self):
        """Ends the run (SIGINT: the simulator drains, flushes and prints its summary):
        pktstats_sim.parse_switch_summaries() of its output, switch by switch."""
        if self.summaries is None and self.sim is not None:
            for c in self.conns[1:]:
                c.close()
            status = self.sim.stop()
            text = self.sim.output()
            if status != 0:
                raise RuntimeError("pktstats-sim exited %d: %s" % (status, self.sim.log()[-2000:]))
            self.summaries = pktstats_sim.parse_switch_summaries(text)
        return self.summaries

    def truth_delays(self, k):
        """{queue: [delay ns, ...]} of switch k's sojourn truth: (depart - commit) clocks x 8 ns,
        one per frame that left a queue (read after stop_simulator())."""
        delays = {q: [] for q in range(QUEUES)}
        with open(self.sojourn_truth(k)) as f:
            header = f.readline().strip().split(",")
            iq, ic, idp = (header.index(c) for c in ("queue", "commit_cycle", "depart_cycle"))
            for line in f:
                cols = line.strip().split(",")
                if len(cols) == len(header):
                    delays[int(cols[iq])].append((int(cols[idp]) - int(cols[ic])) * 8)
        return delays

    def close(self):
        """Stops every process still running (exporter, simulator, Prometheus, VictoriaMetrics),
        however far start() came. Idempotent."""
        if self.exporter is not None and self.exporter.poll() is None:
            self.exporter.send_signal(signal.SIGTERM)
            try:
                self.exporter.wait(10)
            except subprocess.TimeoutExpired:
                self.exporter.kill()
                self.exporter.wait()
        if self.exporter_stderr is not None:
            self.exporter_stderr.close()
        for c in self.conns[1:]:
            c.close()
        if self.sim is not None and self.sim.process.poll() is None:
            self.sim.kill()
        if self.prom is not None:
            self.prom.stop()
        if self.vm is not None:
            self.vm.stop()

    def remove(self):
        """close(), then the work directory removed."""
        self.close()
        shutil.rmtree(self.work, ignore_errors=True)
