#!/usr/bin/env python3
"""Collector resolution (pktstats_collector_resolve) in network namespaces. Prints TAP.

usage: test_collector.py PATH/TO/resolve_collector [PATH/TO/pktstats PATH/TO/pktstats-sim]

Builds, in namespaces this test creates and removes:

    ns host:  a0 10.201.0.1/24 ---veth--- b0 10.201.0.2/24  :ns gateway (forwards)
              a1 10.203.0.1/24 ---veth--- c1 10.203.0.2/24  :ns side
              route 10.202.0.0/24 via 10.201.0.2

and runs resolve_collector inside `host`; with the CLI and the simulator, also
`pktstats capture set collector ...` inside `host` against a simulator, read back with
`pktstats -j capture show`. The expected MACs and addresses come from iproute2 (`ip -j link`),
not from the code under test. Without root or network namespaces every check
is reported as skipped, never as passed.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

TAG = f"pkts{os.getpid() % 100000}"
HOST, GATEWAY, SIDE = f"{TAG}h", f"{TAG}g", f"{TAG}s"
results = []


def run(*args, check=True):
    proc = subprocess.run(args, capture_output=True, text=True, timeout=30)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {proc.stderr.strip() or proc.returncode}")
    return proc


def ns(name, *args, check=True):
    return run("ip", "netns", "exec", name, *args, check=check)


def mac_of(namespace, interface):
    return json.loads(ns(namespace, "ip", "-j", "link", "show", interface).stdout)[0]["address"]


def setup():
    for name in (HOST, GATEWAY, SIDE):
        run("ip", "netns", "add", name)
    run("ip", "link", "add", "a0", "netns", HOST, "type", "veth", "peer", "b0", "netns", GATEWAY)
    run("ip", "link", "add", "a1", "netns", HOST, "type", "veth", "peer", "c1", "netns", SIDE)
    for namespace, interface, address in ((HOST, "a0", "10.201.0.1/24"),
                                          (GATEWAY, "b0", "10.201.0.2/24"),
                                          (HOST, "a1", "10.203.0.1/24"),
                                          (SIDE, "c1", "10.203.0.2/24")):
        ns(namespace, "ip", "addr", "add", address, "dev", interface)
        ns(namespace, "ip", "link", "set", interface, "up")
    ns(HOST, "ip", "link", "set", "lo", "up")
    ns(HOST, "ip", "route", "add", "10.202.0.0/24", "via", "10.201.0.2")
    # veth carriers come up asynchronously; a link without carrier answers no ARP
    for _ in range(100):
        links = json.loads(ns(HOST, "ip", "-j", "link", "show").stdout)
        if all(l.get("operstate") == "UP" for l in links if l["ifname"] in ("a0", "a1")):
            return
        time.sleep(0.05)
    raise RuntimeError("the veth links did not come up")


def teardown():
    for name in (HOST, GATEWAY, SIDE):
        run("ip", "netns", "del", name, check=False)


def resolve(tool, collector, via="-", timeout_ms="1000"):
    proc = ns(HOST, tool, collector, via, timeout_ms, check=False)
    fields = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    return proc.returncode, fields, proc.stderr


def check(name, condition, detail=""):
    results.append((name, bool(condition), detail))


CLI_NAMES = ["pktstats capture set collector behind a gateway",
             "pktstats capture set collector via an interface, with dst-port",
             "pktstats capture set collector: an explicit dst-mac wins",
             "pktstats capture set collector unresolved: exit 1, one line, nothing written"]


def cli_checks(cli, sim, macs):
    """The same paths through the CLI, against a simulator started in the host namespace."""
    a0, a1, b0, c1 = macs
    with tempfile.TemporaryDirectory(prefix="pktstats-collector.") as work:
        sock = os.path.join(work, "sim.sock")
        proc = subprocess.Popen(["ip", "netns", "exec", HOST, sim, "--socket", sock],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(600):
                if os.path.exists(sock):
                    break
                time.sleep(0.05)

            def pktstats(*args):
                return ns(HOST, cli, "-d", f"sim:{sock}", *args, check=False)

            def shown():
                return json.loads(pktstats("-j", "capture", "show").stdout)

            status = pktstats("capture", "set", "collector", "10.202.0.9")
            got = shown()
            want = {"dst_ip": "10.202.0.9", "dst_mac": b0, "src_ip": "10.201.0.1", "src_mac": a0}
            check(CLI_NAMES[0], status.returncode == 0
                  and all(got.get(k) == v for k, v in want.items()), f"{status.stderr} {got}")

            status = pktstats("capture", "set", "collector", "10.203.0.2", "via", "a1",
                              "dst-port", "30000")
            got = shown()
            want = {"dst_ip": "10.203.0.2", "dst_mac": c1, "src_ip": "10.203.0.1",
                    "src_mac": a1, "dst_port": 30000}
            check(CLI_NAMES[1], status.returncode == 0
                  and all(got.get(k) == v for k, v in want.items()), f"{status.stderr} {got}")

            status = pktstats("capture", "set", "collector", "10.201.0.2", "dst-mac",
                              "02:00:00:00:00:77")
            got = shown()
            want = {"dst_ip": "10.201.0.2", "dst_mac": "02:00:00:00:00:77", "src_mac": a0}
            check(CLI_NAMES[2], status.returncode == 0
                  and all(got.get(k) == v for k, v in want.items()), f"{status.stderr} {got}")

            before = shown()
            status = pktstats("capture", "set", "collector", "10.201.0.77", "ttl", "9")
            lines = status.stderr.strip().splitlines()
            check(CLI_NAMES[3], status.returncode == 1 and len(lines) == 1
                  and "10.201.0.77" in lines[0] and shown() == before,
                  f"exit {status.returncode}, stderr {status.stderr!r}")
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)


def main():
    if len(sys.argv) not in (2, 4):
        print(__doc__, file=sys.stderr)
        return 2
    tool = os.path.abspath(sys.argv[1])
    cli, sim = (os.path.abspath(a) for a in sys.argv[2:4]) if len(sys.argv) == 4 else (None, None)
    names = ["on-link collector", "collector behind a gateway", "collector through --via",
             "--via an interface where the collector is not", "unanswered ARP",
             "no route", "no such interface", "not an IPv4 address", "interface down"]
    try:
        setup()
    except (RuntimeError, OSError, subprocess.SubprocessError) as error:
        teardown()
        skipped = names + (CLI_NAMES if cli else [])
        for i, name in enumerate(skipped, 1):
            print(f"ok {i} - {name} # SKIP network namespaces unavailable: {error}")
        print(f"1..{len(skipped)}")
        return 0
    try:
        a0, a1 = mac_of(HOST, "a0"), mac_of(HOST, "a1")
        b0, c1 = mac_of(GATEWAY, "b0"), mac_of(SIDE, "c1")

        status, got, _ = resolve(tool, "10.201.0.2")
        want = {"interface": "a0", "source_mac": a0, "source_ip": "10.201.0.1",
                "next_hop_ip": "10.201.0.2", "next_hop_mac": b0}
        check(names[0], status == 0 and all(got.get(k) == v for k, v in want.items()),
              f"got {got}, want {want}")

        status, got, _ = resolve(tool, "10.202.0.9")
        want = {"interface": "a0", "source_mac": a0, "source_ip": "10.201.0.1",
                "collector_ip": "10.202.0.9", "next_hop_ip": "10.201.0.2", "next_hop_mac": b0}
        check(names[1], status == 0 and all(got.get(k) == v for k, v in want.items()),
              f"got {got}, want {want}")

        status, got, _ = resolve(tool, "10.203.0.2", "a1")
        want = {"interface": "a1", "source_mac": a1, "source_ip": "10.203.0.1",
                "next_hop_mac": c1}
        check(names[2], status == 0 and all(got.get(k) == v for k, v in want.items()),
              f"got {got}, want {want}")

        # --via forces the interface (as ping -I does): the collector is looked for there
        status, got, _ = resolve(tool, "10.201.0.2", "a1", "300")
        check(names[3], status == 1 and got.get("error") == "-113"
              and "on a1" in got.get("reason", ""), f"got {got}")

        status, got, _ = resolve(tool, "10.201.0.77", "-", "300")
        check(names[4], status == 1 and got.get("error") == "-113"
              and "10.201.0.77" in got.get("reason", ""), f"got {got}")

        status, got, _ = resolve(tool, "10.250.0.1")
        check(names[5], status == 1 and got.get("error") == "-101", f"got {got}")

        status, got, _ = resolve(tool, "10.201.0.2", "nosuch0")
        check(names[6], status == 1 and got.get("error") == "-19"
              and "nosuch0" in got.get("reason", ""), f"got {got}")

        status, got, _ = resolve(tool, "10.201.0.256")
        check(names[7], status == 1 and got.get("error") == "-22", f"got {got}")

        if cli:
            cli_checks(cli, sim, (a0, a1, b0, c1))

        ns(HOST, "ip", "link", "set", "a1", "down")
        status, got, _ = resolve(tool, "10.203.0.2", "a1")
        check(names[8], status == 1 and got.get("error") in ("-19", "-101"), f"got {got}")
    finally:
        teardown()

    for i, (name, passed, detail) in enumerate(results, 1):
        print(f"{'ok' if passed else 'not ok'} {i} - {name}")
        if not passed:
            print(f"# {detail}")
    print(f"1..{len(results)}")
    return 0 if all(passed for _, passed, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
