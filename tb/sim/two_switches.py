# SPDX-License-Identifier: BSD-3-Clause
"""The network of two switches that the network tests share (tb/sim/test_sim_network.py,
tb/sim/test_sim_stamps.py): switch 0 at +50 ppm, switch 1 at -50 ppm and 1.5 s ahead, joined by
a 100 m cable (port 0.1 to 1.2) and a 2 km cable (0.2 to 1.1), and static table entries that
send the generators' traffic over a cable and out of a port of the far switch with no cable.
Python 3 standard library only."""

import os

PPM = {0: 50, 1: -50}
OFFSET_NS = {0: 0, 1: 1500000000}
# (switch, port) -> (switch, port, delay in ps): 5 ns per metre
CABLES = [((0, 1), (1, 2), 500000), ((0, 2), (1, 1), 10000000)]


def mac(n):
    return 0x020000000000 | n


# Generator destinations (port M's address, 02:..:M+1) that cross a cable, then leave the far
# switch on a port with no cable: to=1 and to=2 from switch 0, to=4 and to=5 from switch 1.
TABLES = {
    0: {mac(2): 1, mac(3): 2, mac(5): 0, mac(6): 3},
    1: {mac(5): 1, mac(6): 2, mac(2): 0, mac(3): 3},
}


def arguments(work, seed, duration_ms):
    """pktstats-sim's command line for the network, traffic left out: switch 1's socket is
    WORK/s1.sock, the wire truth WORK/wire.csv."""
    return ["--seed", str(seed), "--switches", "2",
            "--switch", "0:ppm=%d" % PPM[0],
            "--switch", "1:socket=%s,ppm=%d,offset=1.5s" % (os.path.join(work, "s1.sock"), PPM[1]),
            "--cable", "0.1-1.2,length=100m", "--cable", "0.2-1.1,length=2km",
            "--wire-truth", os.path.join(work, "wire.csv"), "--duration", "%dms" % duration_ms]


def write_tables(conn, regs, k):
    """Switch k's static table entries, through a connection to its socket."""
    for index, (address, port) in enumerate(sorted(TABLES[k].items())):
        conn.write(regs["SWITCH_TABLE_INDEX"], index)
        conn.write(regs["SWITCH_TABLE_MAC_LO"], address & 0xffffffff)
        conn.write(regs["SWITCH_TABLE_MAC_HI"], address >> 32)
        conn.write(regs["SWITCH_TABLE_ENTRY"], port | regs["SWITCH_TABLE_ENTRY_VALID_MASK"]
                   | regs["SWITCH_TABLE_ENTRY_STATIC_MASK"])
        conn.write(regs["SWITCH_TABLE_COMMAND"], 1)
