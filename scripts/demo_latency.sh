#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# make demo-latency: the two link-delay measurements of docs/oam.md on the simulated network of
# two switches, with the host tools on the CPU ports' TAP interfaces, as on a board.
#
#   scripts/demo_latency.sh BUILD_DIR
#
# 1. re-runs itself in a network namespace of its own (`unshare`: as root, or as a user where
#    unprivileged user namespaces and /dev/net/tun are open), so that its TAP interfaces are
#    private and vanish with it;
# 2. starts pktstats-sim: switch 0 at +20 ppm, switch 1 at -30 ppm and 1.5 s ahead, joined by a
#    100 m cable (port 0.1 to 1.2, 500 ns) and a 2 km cable (port 0.2 to 1.1, 10 us); switch 0's
#    CPU ports 5 and 6 end in TAP interfaces dm0 and hr0;
# 3. configures both switches with the pktstats CLI: the corrections of the simulator's MACs
#    (docs/oam.md, "Accuracy"), ETH-DM on the 100 m link (switch 1's MEP answers DMMs) and
#    headroom measurement on the 2 km link (switch 1 answers requests), switch 0's CPU ports
#    bound to their MAC ports;
# 4. measures: `pktstats dm two-way` through dm0 and `pktstats headroom measure` through hr0,
#    while tcpdump captures both interfaces into BUILD_DIR/demo-latency/;
# 5. prints the results beside the true cable delays, and the commands to look at the frames.
set -euo pipefail

build=${1:?usage: $0 BUILD_DIR}
demo=$build/demo-latency
sim=$build/bin/pktstats-sim
cli=$build/bin/pktstats

# shellcheck source=scripts/demo_common.sh
. "$(dirname "$0")/demo_common.sh"
demo_in_network_namespace demo-latency "$0" "$@"

mkdir -p "$demo"
rm -f "$demo"/*.pcap "$demo"/*.sock "$demo"/*.log
s0=$demo/s0.sock
s1=$demo/s1.sock

say "starting pktstats-sim: two switches, 100 m and 2 km between them, clocks 1.5 s and 50 ppm apart"
"$sim" --socket "$s0" --switches 2 --switch 0:ppm=20 --switch "1:socket=$s1,ppm=-30,offset=1.5s" \
	--cable 0.1-1.2,length=100m --cable 0.2-1.1,length=2km \
	--port 0.5:tap=dm0 --port 0.6:tap=hr0 >"$demo/sim.log" 2>&1 &
sim_pid=$!
cleanup() {
	kill "${tcpdump_pids[@]}" 2>/dev/null || true
	kill -INT "$sim_pid" 2>/dev/null || true
	wait "$sim_pid" 2>/dev/null || true
}
tcpdump_pids=()
trap cleanup EXIT
for _ in $(seq 600); do
	if [ -S "$s1" ] && ip link show hr0 >/dev/null 2>&1; then break; fi
	kill -0 "$sim_pid" 2>/dev/null || { cat "$demo/sim.log" >&2; exit 1; }
	sleep 0.05
done

say "configuring both switches with the CLI"
for port in 1 2; do
	run "$cli" -d "sim:$s0" reg write "stamp.tx_correction_$port" 8
	run "$cli" -d "sim:$s0" reg write "stamp.rx_correction_$port" 4
	run "$cli" -d "sim:$s1" reg write "stamp.tx_correction_$port" 8
	run "$cli" -d "sim:$s1" reg write "stamp.rx_correction_$port" 4
done
run "$cli" -d "sim:$s0" oam set port 1 dm on dm-level 3 mac 02:00:00:00:a0:01 cpu-bound on
run "$cli" -d "sim:$s1" oam set port 2 dm on dm-responder on dm-level 3 mac 02:00:00:00:b0:02
run "$cli" -d "sim:$s0" oam set port 2 headroom on mac 02:00:00:00:a0:02 cpu-bound on
run "$cli" -d "sim:$s1" oam set port 1 headroom on headroom-responder on mac 02:00:00:00:b0:01

tcpdump -Z root --immediate-mode -i dm0 -U -w "$demo/dm.pcap" >"$demo/tcpdump-dm0.log" 2>&1 &
tcpdump_pids+=($!)
tcpdump -Z root --immediate-mode -i hr0 -U -w "$demo/headroom.pcap" >"$demo/tcpdump-hr0.log" 2>&1 &
tcpdump_pids+=($!)
sleep 1

say "frame delay (Y.1731 DMM/DMR) over the 100 m cable: true two-way delay 1000 ns"
run "$cli" dm two-way -i dm0 peer 02:00:00:00:b0:02 source 02:00:00:00:a0:01 level 3 count 20 interval 20

say "headroom measurement over the 2 km cable: true round trip 20000 ns"
run "$cli" headroom measure -i hr0 count 10 interval 20 rate 1 max-frame 1518 pfc-response 1000

sleep 0.5
cleanup
trap - EXIT

say "the frames"
cat <<EOF
DMMs and DMRs as switch 0's CPU port saw them:   $demo/dm.pcap
headroom requests and responses:                $demo/headroom.pcap
tshark's own cfm dissector on the DMRs (the four stamps):
  tshark -r $demo/dm.pcap -Y cfm.dmr.pdu -T fields -e cfm.odm.dmm.dmr.txtimestampf -e cfm.odm.dmm.dmr.rxtimestampf -e cfm.dmm.dmr.txtimestampb -e cfm.dmm.dmr.rxtimestampb
the headroom PDU with this project's dissector:
  tshark -X lua_script:sw/tools/wireshark/pktstats_headroom.lua -r $demo/headroom.pcap -O pktstats_headroom -Y pktstats_headroom.type==2
both, decoded by pktstats:
  $cli oam decode $demo/dm.pcap $demo/headroom.pcap
EOF
