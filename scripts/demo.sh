#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# make demo: the main job end to end on the simulated switch.
#
#   scripts/demo.sh BUILD_DIR
#
# 1. starts pktstats-sim with the demo scenario, waiting for `start`:
#      - an incast: ports 0, 1 and 2 each send to port 3 in on/off bursts (0.8 of line rate
#        while on, about 0.44 on average): about 1.3 Gb/s offered at a 1 Gb/s port, so queue 3
#        fills to its limit and tail-drops whenever the bursts overlap;
#      - background traffic that never congests: CPU port 4 to CPU port 5 at 1.6 Gb/s, and
#        CPU port 6 to port 0 at 0.4 Gb/s;
#      - the stat packets leave through CPU port 7 into BUILD_DIR/demo/stats.pcap, so that
#        they never compete with the traffic they measure;
# 2. configures the switch and the capture with the pktstats CLI only (static addresses for
#    the ports, queue 3's limit, resolution 64 ns, every queue, the stat packet headers);
# 3. starts the traffic, lets it run for the demo's simulated time, stops the capture;
# 4. decodes the stat packets (pktstats decode --summary) and plots them (pktstats plot) into
#    BUILD_DIR/demo/queues.png, and the frames' queueing delay (pktstats plot --sojourn) into
#    BUILD_DIR/demo/sojourn.png;
# 5. prints a short report: events per queue beside the switch's own counters at the end of the
#    run (they must be equal: the end of a run drains the switch and flushes the capture), drops,
#    peak occupancy, queue 3's delay percentiles, where the files are, and the tcpdump and
#    tshark commands to look at them.
set -euo pipefail

build=${1:?usage: $0 BUILD_DIR}
demo=$build/demo
sim=$build/bin/pktstats-sim
cli=$build/bin/pktstats
duration=${DEMO_DURATION:-40ms}

mkdir -p "$demo"
rm -f "$demo"/stats.pcap "$demo"/port3.pcap "$demo"/queues.png "$demo"/sojourn.png "$demo"/sim.sock
socket=$demo/sim.sock
export PKTSTATS_DEVICE=sim:$socket

say() { printf '\n== %s\n' "$*"; }

say "starting pktstats-sim (demo scenario, $duration of simulated time)"
"$sim" --socket "$socket" --wait --duration "$duration" --seed 7 \
	--port 0:gen=0.8,to=3,on=300us,off=250us \
	--port 1:gen=0.8,to=3,on=300us,off=250us \
	--port 2:gen=0.8,to=3,on=300us,off=250us,size=imix \
	--port 3:out="$demo/port3.pcap" \
	--port 4:gen=0.2,to=5 --port 6:gen=0.05,to=0 \
	--port 7:out="$demo/stats.pcap" \
	>"$demo/sim.log" 2>&1 &
sim_pid=$!
trap 'kill $sim_pid 2>/dev/null || true' EXIT
for _ in $(seq 600); do
	[ -S "$socket" ] && break
	kill -0 $sim_pid 2>/dev/null || { cat "$demo/sim.log"; exit 1; }
	sleep 0.05
done

say "configuring with the CLI"
for port in 0 1 2 3 4 5 6 7; do
	# The generators send to 02:00:00:00:00:<port + 1>: static entries keep every frame on its
	# way instead of flooding it until the switch has learned the address.
	(set -x; "$cli" fdb add "02:00:00:00:00:0$((port + 1))" port $port static)
done 2>&1 | sed -n 's/^+ /  /p'
run() { echo "  $*"; "$@"; }
run "$cli" queue set 3 limit 2000
run "$cli" capture set resolution 64ns queues all events all output-ports 7 \
	src-mac 02:00:00:00:00:fe dst-mac 02:00:00:00:00:ff src-ip 10.0.0.254 dst-ip 10.0.0.1 \
	flush-timeout 100us
run "$cli" counters clear
run "$cli" capture start

say "running the traffic"
# The simulated time in ns, from the simulator's socket (empty once the run is over).
sim_ns() { printf 'time\n' | socat -t 5 - UNIX-CONNECT:"$socket" 2>/dev/null | awk '$1 == "ok" {print $2}'; }
start_ns=$(sim_ns)
printf 'start\n' | socat -t 30 - UNIX-CONNECT:"$socket" >/dev/null
# A quarter into the run, the CLI reads the live switch.
case $duration in
*ms) quarter_ns=$((${duration%ms} * 250000)) ;;
*us) quarter_ns=$((${duration%us} * 250)) ;;
*) quarter_ns=0 ;;
esac
while now=$(sim_ns) && [ -n "$now" ] && [ "$now" -lt $((start_ns + quarter_ns)) ]; do
	sleep 0.05
done
if [ -n "$(sim_ns)" ]; then
	echo "  (the switch read live, partway through the run; the decoded figures below cover all of it)"
	run "$cli" queue show 3
fi
wait $sim_pid || { cat "$demo/sim.log"; exit 1; }
trap - EXIT

say "decoding $demo/stats.pcap"
echo "  $cli -j decode --summary --sojourn $demo/stats.pcap"
"$cli" -j decode --summary --sojourn "$demo/stats.pcap" >"$demo/summary.json"
python3 - "$demo/summary.json" "$demo/sim.log" <<'REPORT'
import json, os, sys
sys.path.insert(0, os.path.join("tb", "common"))
import pktstats_sim
s = json.load(open(sys.argv[1]))
switch = pktstats_sim.parse_summary(open(sys.argv[2]).read())
print(f"  {s['packets']} stat packets, {s['events']} events over {s['span_ns'] / 1e6:.1f} ms;"
      f" {s['lost']} lost, {s['malformed']} malformed, {s['m_flags']} with missed events")
print("  decoded from the stat packets, and the switch's counters at the end of the run:")
print("  queue    arrivals  departures     drops |    stored   removed   dropped |"
      "  peak (KiB)  mean (KiB)")
unequal = []
for q in s["queues"]:
    decoded = [q["arrivals"], q["departures"], q["drops"]]
    counted = switch["queues"][q["queue"]]
    if decoded != counted:
        unequal.append(q["queue"])
    if any(decoded) or any(counted):
        print(f"  {q['queue']:5} {decoded[0]:11} {decoded[1]:11} {decoded[2]:9} |"
              f" {counted[0]:9} {counted[1]:9} {counted[2]:9} |"
              f" {q['max_bytes'] / 1024:11.1f} {q['mean_bytes'] / 1024:11.1f}")
if unequal or switch["missed"] or not switch["complete"]:
    sys.exit(f"  the stat packets and the switch disagree (queues {unequal}, "
             f"{switch['missed']} missed, run complete: {switch['complete']}): see {sys.argv[2]}")
print("  every queue: decoded events = the switch's counters, nothing missed")
d = next(q for q in s["sojourn"] if q["queue"] == 3)
print(f"  queue 3's queueing delay, {d['timed']} frames timed from the stat packets"
      f" ({d['queued_before'] + d['unsynchronised']} not):")
print("    " + ", ".join(f"{name} {d[key] / 1000:.1f} us" for name, key in
                         (("p50", "p50_ns"), ("p90", "p90_ns"), ("p99", "p99_ns"),
                          ("p99.9", "p999_ns"), ("max", "max_ns"))))
REPORT

say "plotting"
run "$cli" plot "$demo/stats.pcap" -o "$demo/queues.png" --queues 0,3,5 \
	--title "pktstats demo: incast on port 3 (stat packets decoded from stats.pcap)"
run "$cli" plot --sojourn "$demo/stats.pcap" -o "$demo/sojourn.png" --queues 0,3,5 \
	--title "pktstats demo: queueing delay (each frame's departure paired with its arrival)"

say "done"
cat <<EOF
  stat packets:   $demo/stats.pcap
  plot:           $demo/queues.png
  delay plot:     $demo/sojourn.png
  port 3 traffic: $demo/port3.pcap
  simulator log:  $demo/sim.log

Look at them:
  tcpdump -c 10 -nr $demo/stats.pcap udp port 27033
  tshark -X lua_script:sw/tools/wireshark/pktstats.lua -r $demo/stats.pcap -V | less
  $cli decode $demo/stats.pcap | head
  $cli decode --csv $demo/stats.pcap > events.csv
  $cli decode --sojourn $demo/stats.pcap | head
EOF
