#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# make demo-flowlat: per-flow latency events (docs/flowlat.md) on the simulated switch, from
# the switch's IPFIX exporter to a real collector, to `pktstats flowlat watch` and to tshark.
#
#   scripts/demo_flowlat.sh BUILD_DIR
#
# 1. re-runs itself in a network namespace of its own (scripts/demo_common.sh);
# 2. starts pktstats-sim waiting for `start`: port 0 sends flow A (UDP 10.0.0.1:40000 ->
#    10.0.0.3:9, 100-byte frames at half the line rate), port 1 bursts of flow B (UDP
#    10.0.0.2:40001 -> 10.0.0.3:9, 1514-byte frames at line rate, on and off for 40 and 60 us
#    on average, for about DEMO_DURATION_US, default 24000), both to port 2, whose queue fills
#    in each burst and drains after it; port 3 ends in the TAP interface ipfix0, where the
#    host is 192.168.0.2;
# 3. starts the collectors: nfacctd (pmacct) as a replicator on 192.168.0.2:4739, teeing each
#    IPFIX datagram to a second nfacctd that stores every record as JSON (the enterprise
#    fields decoded by PEN) and to `pktstats flowlat watch`; tcpdump captures ipfix0;
# 4. configures the switch with the CLI: the time of day from the host, flow A watched with a
#    stateful profile (high 12 us, low 3 us), flow B with a stateless one (above 15 us, at
#    most one event per 50 us), the exporter toward 192.168.0.2 out of port 3 (the watch
#    listens first, so that it gets the template sent when export starts);
# 5. starts the traffic, waits until flow B's bursts are over and port 2 has drained, stops
#    the watch and shows flow A's HIGH and LOW events with the watch's reads of the switch in
#    between, the block's counters, what the collector stored, and tshark's reading of the
#    messages. Takes about 20 s.
set -euo pipefail

build=${1:?usage: $0 BUILD_DIR}
demo=$build/demo-flowlat
sim=$build/bin/pktstats-sim
cli=$build/bin/pktstats
duration_us=${DEMO_DURATION_US:-24000}
bursts=$((duration_us * 32 / 1000)) # flow B's frames: 40% of the time at 81 per ms

# shellcheck source=scripts/demo_common.sh
. "$(dirname "$0")/demo_common.sh"
demo_in_network_namespace demo-flowlat "$0" "$@"

mkdir -p "$demo"
rm -rf "${demo:?}"/*
demo=$(cd "$demo" && pwd)
socket=$demo/sim.sock
export PKTSTATS_DEVICE=sim:$socket

say "starting pktstats-sim: flows A and B into port 2, the exporter's port 3 on TAP ipfix0"
"$sim" --socket "$socket" --wait --seed 3 \
	--port 0:gen=0.5,size=100,to=2 --port 1:gen=1,size=1514,to=2,on=40us,off=60us,count=$bursts \
	--port 3:tap=ipfix0 >"$demo/sim.log" 2>&1 &
sim_pid=$!
pids=()
cleanup() {
	kill -INT "${pids[@]}" 2>/dev/null || true
	kill -INT "$sim_pid" 2>/dev/null || true
	wait 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 600); do
	if [ -S "$socket" ] && ip link show ipfix0 >/dev/null 2>&1; then break; fi
	kill -0 "$sim_pid" 2>/dev/null || { cat "$demo/sim.log" >&2; exit 1; }
	sleep 0.05
done
ip address add 192.168.0.2/24 dev ipfix0
host_mac=$(ip -brief link show ipfix0 | awk '{print $3}')

say "collectors: nfacctd replicating to nfacctd (stores JSON) and to pktstats flowlat watch"
# The block's enterprise IEs (PEN 32473) and IE 325, which nfacctd 1.7 has no name for
cat >"$demo/primitives.lst" <<'EOF'
name=observation_time_ntp field_type=325 len=8 semantics=u_int
name=residence_ns field_type=32473:1 len=4 semantics=u_int
name=kind field_type=32473:2 len=1 semantics=u_int
name=group field_type=32473:3 len=1 semantics=u_int
name=profile field_type=32473:4 len=1 semantics=u_int
name=high_ns field_type=32473:5 len=4 semantics=u_int
name=low_ns field_type=32473:6 len=4 semantics=u_int
name=occupancy field_type=32473:7 len=4 semantics=u_int
EOF
printf 'id=1 ip=127.0.0.1:4740\nid=2 ip=127.0.0.1:4741\n' >"$demo/receivers.lst"
cat >"$demo/replicator.conf" <<EOF
daemonize: false
logfile: $demo/replicator.log
nfacctd_ip: 192.168.0.2
nfacctd_port: 4739
plugins: tee[copy]
tee_receivers[copy]: $demo/receivers.lst
EOF
cat >"$demo/collector.conf" <<EOF
daemonize: false
logfile: $demo/collector.log
nfacctd_ip: 127.0.0.1
nfacctd_port: 4741
aggregate_primitives: $demo/primitives.lst
plugins: print[events]
aggregate[events]: src_host, dst_host, proto, src_port, dst_port, in_iface, out_iface, observation_time_ntp, residence_ns, kind, group, profile, high_ns, low_ns, occupancy
print_output[events]: json
print_output_file[events]: $demo/collector.json
print_output_file_append[events]: true
print_refresh_time[events]: 1
EOF
nfacctd -f "$demo/collector.conf" >/dev/null 2>&1 &
pids+=($!)
nfacctd -f "$demo/replicator.conf" >/dev/null 2>&1 &
pids+=($!)
tcpdump -Z root --immediate-mode -i ipfix0 -U -w "$demo/ipfix.pcap" >"$demo/tcpdump.log" 2>&1 &
pids+=($!)

say "configuring the switch with the CLI"
run "$cli" time sync
for port in 0 1 2 3; do
	run "$cli" fdb add "02:00:00:00:00:0$((port + 1))" port $port static
done
run "$cli" flowlat profile set 0 stateful high 12us low 3us
run "$cli" flowlat profile set 1 stateless high 15us min-interval 50us
run "$cli" flowlat group set 0 src 10.0.0.1 dst 10.0.0.3 protocol udp egress-ports 2 profile 0
run "$cli" flowlat group set 1 src 10.0.0.2 dst 10.0.0.3 protocol udp egress-ports 2 profile 1
run "$cli" flowlat group show
# The watch listens before export starts, so that it gets the template sent at enable
"$cli" flowlat watch listen 127.0.0.1 port 4740 interval 2ms >"$demo/watch.txt" 2>"$demo/watch.log" &
watch_pid=$!
pids+=("$watch_pid")
sleep 0.5
run "$cli" flowlat set dst-mac "$host_mac" dst-ip 192.168.0.2 src-mac 02:00:00:00:00:f1 \
	src-ip 192.168.0.1 mtu 576 flush-timeout 100us export-ports 3 monitor on export on

say "traffic: flow B's bursts for about $((duration_us / 1000)) ms of simulated time, flow A on"
sim_ns() { printf 'time\n' | socat -t 5 - UNIX-CONNECT:"$socket" 2>/dev/null | awk '$1 == "ok" {print $2}'; }
start_ns=$(sim_ns)
printf 'start\n' | socat -t 30 - UNIX-CONNECT:"$socket" >/dev/null
# Until flow B's last burst has drained from port 2 and flow A is back below its low mark
while now=$(sim_ns) && [ -n "$now" ] && [ "$now" -lt $((start_ns + (duration_us + 2000) * 1000)) ]; do
	sleep 0.1
done
sleep 1   # the last message (flush 100 us) on its way
kill -INT "$watch_pid"
wait "$watch_pid" || { cat "$demo/watch.log" >&2; exit 1; }
sleep 1.5 # the collector writes every second
run "$cli" flowlat counters show
cleanup
trap - EXIT

say "flow A in pktstats flowlat watch: HIGH, the switch read every 2 ms while in breach, LOW"
# (its timeline has more columns: the 5-tuple, ports, group, thresholds, occupancy, ages)
awk '($3 == "src" || $3 == "10.0.0.1") && shown++ < 16 {printf "%-31s %-5s %9s %5s %14s %13s %7s %6s\n", $1, $2, $10, $16, $17, $18, $19, $21}' \
	"$demo/watch.txt"
sed -n '/^type  *summary/,$p' "$demo/watch.txt"

say "what the collector (nfacctd) stored: $(wc -l <"$demo/collector.json") records"
python3 - "$demo/collector.json" <<'EOF'
import json, sys, datetime
kinds = {1: "absolute", 2: "high", 3: "low"}
rows = [json.loads(line) for line in open(sys.argv[1])]
rows.sort(key=lambda r: int(r["observation_time_ntp"]))
print("%-31s %-8s %-30s %10s" % ("observation time (UTC)", "kind", "flow", "residence"))
for r in rows[:12]:
    ntp = int(r["observation_time_ntp"])
    t = datetime.datetime.fromtimestamp((ntp >> 32) - 2208988800, datetime.timezone.utc)
    ns = ((ntp & 0xffffffff) * 10**9 + (1 << 31)) >> 32
    flow = "%s:%d -> %s:%d" % (r["ip_src"], r["port_src"], r["ip_dst"], r["port_dst"])
    print("%s.%09dZ %-8s %-30s %7d ns" % (t.strftime("%Y-%m-%dT%H:%M:%S"), ns,
                                         kinds.get(int(r["kind"]), r["kind"]), flow, int(r["residence_ns"])))
if len(rows) > 12:
    print("... %d more" % (len(rows) - 12))
EOF

say "tshark's own IPFIX dissector on the capture (each message: its sequence number, its first record)"
tshark -r "$demo/ipfix.pcap" -n -d udp.port==4739,cflow -Y cflow -T fields -E header=y -E occurrence=f \
	-e frame.number -e cflow.sequence -e cflow.observation_time_nanoseconds \
	-e cflow.srcaddr -e cflow.dstaddr 2>/dev/null | awk 'NR <= 5'

say "the files"
cat <<EOF
the watch's timeline:                 $demo/watch.txt
the collector's records (JSON lines): $demo/collector.json
the IPFIX frames:                     $demo/ipfix.pcap
  tshark -r $demo/ipfix.pcap -d udp.port==4739,cflow -V | less
EOF
