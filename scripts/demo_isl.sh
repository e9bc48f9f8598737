#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# make demo-isl: OpenKilda's ISL latency measurement (docs/isl.md) on a simulated triangle of
# three switches, `pktstats isl run` writing every round trip to a real time-series database.
#
#   scripts/demo_isl.sh BUILD_DIR
#
# 1. re-runs itself in a network namespace of its own (`unshare`, as scripts/demo_latency.sh
#    does), so that its TAP interfaces and the database's ports are private and vanish with it;
# 2. starts VictoriaMetrics (/usr/bin/victoria-metrics, `make deps`) on the loopback, its data
#    in BUILD_DIR/demo-isl/tsdb (OpenTSDB HTTP put on port 4242, queries on port 8428);
# 3. starts pktstats-sim: switches a, b and c (0, 1, 2) at +50 ppm; -50 ppm and 1.5 s ahead;
#    +20 ppm and 3.25 s ahead, in a triangle of cables: 100 m (0.1 - 1.2, 500 ns), 300 m
#    (1.1 - 2.2, 1500 ns) and 1 km (2.1 - 0.2, 5000 ns); the CPU port (4+N) of every cabled
#    port N of switch K ends in the TAP interface cKN;
# 4. configures the six cabled ports with the pktstats CLI: the corrections of the simulator's
#    MACs (docs/oam.md, "Accuracy"), isl-copy-field, isl-group and cpu-bound on, a port MAC
#    each (02:00:00:00:ee:KN, the switch's datapath ID is its port 1's);
# 5. runs `pktstats isl run` for 20 rounds, 200 ms apart, while tcpdump captures c01 and c02
#    (switch a's two ports) into BUILD_DIR/demo-isl/; it prints the ISL table;
# 6. reads back what the database stored (kilda.isl.rtt, one series per directed ISL) and
#    prints it beside the true cable delays, then how to query the database and look at the
#    frames.
set -euo pipefail

build=${1:?usage: $0 BUILD_DIR}
demo=$build/demo-isl
sim=$build/bin/pktstats-sim
cli=$build/bin/pktstats
vm_bin=/usr/bin/victoria-metrics

# shellcheck source=scripts/demo_common.sh
. "$(dirname "$0")/demo_common.sh"
demo_in_network_namespace demo-isl "$0" "$@"
if [ ! -x "$vm_bin" ]; then
	echo "demo-isl: needs $vm_bin (make deps installs the package victoria-metrics)" >&2
	exit 2
fi

mkdir -p "$demo"
rm -rf "$demo"/tsdb
rm -f "$demo"/*.pcap "$demo"/*.sock "$demo"/*.log "$demo"/export.json
s0=$demo/s0.sock
s1=$demo/s1.sock
s2=$demo/s2.sock
secret=$demo/secret
vm_http=127.0.0.1:8428
vm_put=127.0.0.1:4242

sim_pid=
vm_pid=
tcpdump_pids=()
cleanup() {
	kill "${tcpdump_pids[@]}" 2>/dev/null || true
	tcpdump_pids=()
	if [ -n "$sim_pid" ]; then
		kill -INT "$sim_pid" 2>/dev/null || true
		wait "$sim_pid" 2>/dev/null || true
		sim_pid=
	fi
	if [ -n "$vm_pid" ]; then
		kill -TERM "$vm_pid" 2>/dev/null || true
		wait "$vm_pid" 2>/dev/null || true
		vm_pid=
	fi
}
trap cleanup EXIT

say "starting VictoriaMetrics: OpenTSDB put on $vm_put, queries on $vm_http, data in $demo/tsdb"
"$vm_bin" -storageDataPath="$demo/tsdb" -httpListenAddr="$vm_http" -opentsdbHTTPListenAddr="$vm_put" \
	-selfScrapeInterval=0 -retentionPeriod=100y -loggerOutput=stderr >"$demo/victoria-metrics.log" 2>&1 &
vm_pid=$!

say "starting pktstats-sim: switches a, b, c in a triangle of 100 m, 300 m and 1 km cables"
"$sim" --socket "$s0" --switches 3 --switch 0:ppm=50 \
	--switch "1:ppm=-50,offset=1.5s,socket=$s1" --switch "2:ppm=20,offset=3.25s,socket=$s2" \
	--cable 0.1-1.2,length=100m --cable 1.1-2.2,length=300m --cable 2.1-0.2,length=1km \
	--port 0.5:tap=c01 --port 0.6:tap=c02 --port 1.5:tap=c11 --port 1.6:tap=c12 \
	--port 2.5:tap=c21 --port 2.6:tap=c22 >"$demo/sim.log" 2>&1 &
sim_pid=$!

for _ in $(seq 600); do
	if [ -S "$s0" ] && [ -S "$s1" ] && [ -S "$s2" ] && ip link show c22 >/dev/null 2>&1; then break; fi
	kill -0 "$sim_pid" 2>/dev/null || { cat "$demo/sim.log" >&2; exit 1; }
	sleep 0.05
done
for _ in $(seq 300); do
	if curl -sf "http://$vm_http/health" >/dev/null 2>&1; then break; fi
	kill -0 "$vm_pid" 2>/dev/null || { cat "$demo/victoria-metrics.log" >&2; exit 1; }
	sleep 0.05
done
curl -sf "http://$vm_http/health" >/dev/null || {
	echo "demo-isl: VictoriaMetrics did not answer on http://$vm_http/health" >&2
	tail "$demo/victoria-metrics.log" >&2
	exit 1
}

say "configuring the six cabled ports with the CLI"
for k in 0 1 2; do
	sock=$demo/s$k.sock
	for port in 1 2; do
		run "$cli" -d "sim:$sock" reg write "stamp.tx_correction_$port" 8
		run "$cli" -d "sim:$sock" reg write "stamp.rx_correction_$port" 4
		run "$cli" -d "sim:$sock" oam set port "$port" isl-copy-field on isl-group on cpu-bound on \
			mac "02:00:00:00:ee:$k$port"
	done
done

tcpdump -Z root --immediate-mode -i c01 -U -w "$demo/c01.pcap" >"$demo/tcpdump-c01.log" 2>&1 &
tcpdump_pids+=($!)
tcpdump -Z root --immediate-mode -i c02 -U -w "$demo/c02.pcap" >"$demo/tcpdump-c02.log" 2>&1 &
tcpdump_pids+=($!)
printf 'pktstats-demo-isl-secret\n' >"$secret"
sleep 1

say "the ISL controller: 20 rounds of discovery packets, 200 ms apart, results to the database"
started=$(date +%s)
run "$cli" isl run secret-file "$secret" interval 200ms rounds 20 wait 2s tsdb "http://$vm_put" \
	switch "sim:$s0,1=c01,2=c02,name=a" \
	switch "sim:$s1,1=c11,2=c12,name=b" \
	switch "sim:$s2,1=c21,2=c22,name=c"

ended=$(( $(date +%s) + 1 ))
sleep 0.5
kill "${tcpdump_pids[@]}" 2>/dev/null || true
wait "${tcpdump_pids[@]}" 2>/dev/null || true
tcpdump_pids=()

say "what the database stored: kilda.isl.rtt, one series per directed ISL"
run curl -sf "http://$vm_http/internal/force_flush"
run curl -sf "http://$vm_http/api/v1/export" --data-urlencode 'match[]={__name__="kilda.isl.rtt"}' \
	-o "$demo/export.json"
python3 - "$demo/export.json" <<'EOF'
import json
import statistics
import sys

# switch K's datapath ID is its port 1's MAC, 02:00:00:00:ee:K1
names = {"SW%016X" % (0x02000000ee01 | (k << 4)): n for k, n in enumerate("abc")}
cables = {}   # (switch, port) -> cable delay in ns (5 ns per metre)
for (a, p), (b, q), metres in ((("a", 1), ("b", 2), 100), (("b", 1), ("c", 2), 300),
                               (("c", 1), ("a", 2), 1000)):
    cables[(a, p)] = cables[(b, q)] = 5 * metres
rows = []
with open(sys.argv[1]) as f:
    for line in f:
        series = json.loads(line)
        tags = series["metric"]
        src = names.get(tags.get("src_switch"), tags.get("src_switch"))
        dst = names.get(tags.get("dst_switch"), tags.get("dst_switch"))
        values = sorted(series["values"])
        cable = cables.get((src, int(tags.get("src_port", -1))))
        rows.append((src, tags.get("src_port"), dst, tags.get("dst_port"), tags.get("origin"),
                     len(values), values[0], statistics.median_low(values), values[-1], cable))
rows.sort()
print("%-12s %-11s %6s %8s %8s %8s %9s %6s" % ("ISL", "origin", "points", "min ns", "median",
                                              "max ns", "2 x cable", "rest"))
for src, sp, dst, dp, origin, n, lo, med, hi, cable in rows:
    print("%-12s %-11s %6d %8d %8d %8d %9s %6s" % (
        "%s.%s -> %s.%s" % (src, sp, dst, dp), origin, n, lo, med, hi,
        2 * cable if cable is not None else "?",
        "%+d" % (med - 2 * cable) if cable is not None else "?"))
if not rows:
    print("(nothing stored)")
    sys.exit(1)
print("2 x cable: the true round trip on the wire (5 ns per metre). rest = median - 2 x cable: the")
print("far switch's residence, first bit in to first bit of the copy out (T0 and T1 are first-bit")
print("times); the same on every ISL, mostly the 283-byte frame itself (2264 ns at 1 Gb/s), which")
print("the switch takes in whole before it sends it back")
EOF

cleanup
trap - EXIT

say "the database afterwards"
cat <<EOF
The data stays in $demo/tsdb. Start the database on it (Ctrl-C stops it):
  $vm_bin -storageDataPath=$demo/tsdb -httpListenAddr=$vm_http
and, from another shell, every stored point (JSON, one line per series):
  curl -s 'http://$vm_http/api/v1/export' --data-urlencode 'match[]={__name__="kilda.isl.rtt"}'
the largest round trip of each ISL over the last week (PromQL; VictoriaMetrics answers a query
for points at least 30 s old, its -search.latencyOffset):
  curl -s 'http://$vm_http/api/v1/query' --data-urlencode 'query=max_over_time({__name__="kilda.isl.rtt"}[1w])'
a.1 -> b.2 during the demo, one value a second (PromQL range query):
  curl -s 'http://$vm_http/api/v1/query_range' --data-urlencode 'query=max_over_time({__name__="kilda.isl.rtt",src_switch="SW000002000000EE01",src_port="1"}[1s])' \\
      -d start=$started -d end=$ended -d step=1s
EOF

say "the frames"
cat <<EOF
switch a's CPU ports, 60 packets each: what the controller sent out of ports 1 and 2 (discovery
packets, T0 still 0: the switch writes it as the packet leaves the MAC port), what came back
(round trips, T0 and T1 by a's clock) and what arrived from b and c (their discovery packets, T0
by their clocks, 1.5 s and 3.25 s ahead):
  $demo/c01.pcap  $demo/c02.pcap
tshark's own LLDP dissector on them (sw/tools/wireshark/pktstats_isl.lua, docs/wireshark.md):
  tshark -X lua_script:sw/tools/wireshark/pktstats_isl.lua -r $demo/c01.pcap
every TLV of the round trips (T0 subtype 4, T1 subtype 5):
  tshark -X lua_script:sw/tools/wireshark/pktstats_isl.lua -r $demo/c01.pcap -V -O lldp -Y 'udp.dstport == 61232'
T0 and T1 of each packet:
  tshark -X lua_script:sw/tools/wireshark/pktstats_isl.lua -r $demo/c01.pcap -T fields -E separator=, \\
      -E occurrence=a -E aggregator=' ' -e frame.number -e udp.dstport -e lldp.unknown_subtype.content | cut -d' ' -f1-2
EOF
