#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Smoke test of the built simulator: tb/sim/test_sim_smoke.sh build/bin/pktstats-sim
# Runs an incast (ports 0, 1, 2 at half line rate each to port 3) for 2 ms with a pcap output and
# the ground-truth CSV, then a run serving registers on a socket to a Python client, then bad
# command lines (the network's too: cables, switch indices, clocks). Prints TAP.

sim=${1:?usage: $0 PATH/TO/pktstats-sim}
case $sim in /*) ;; *) sim=$PWD/$sim ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/pktstats-sim-smoke.XXXXXX")
trap 'rm -rf "$work"' EXIT
n=0
failed=0
check() { # check NAME COMMAND...
	name=$1
	shift
	n=$((n + 1))
	if "$@" >"$work/check.out" 2>&1; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		sed 's/^/# /' "$work/check.out" | head -20
		failed=$((failed + 1))
	fi
}

# 1. Incast.
"$sim" --port 0:gen=0.5,to=3 --port 1:gen=0.5,to=3 --port 2:gen=0.5,to=3 \
	--port 3:out="$work/out3.pcap" --truth "$work/truth.csv" --duration 2ms \
	>"$work/incast.out" 2>"$work/incast.err"
status=$?
sed 's/^/# /' "$work/incast.out"
check "incast run exits 0" test "$status" -eq 0
frames=$(tcpdump -nr "$work/out3.pcap" 2>/dev/null | wc -l)
check "port 3 pcap readable by tcpdump, $frames frames" test "$frames" -gt 0
truth_lines=$(grep -c '^[0-9][0-9]*,[0-7],[0-9][0-9]*$' "$work/truth.csv" 2>/dev/null)
check "truth CSV has cycle,queue,occupancy lines ($truth_lines)" test "${truth_lines:-0}" -gt 100
# The queue table row of queue 3: "3 stored removed dropped peak truepeak", dropped > 0.
drops3=$(awk '/^queue /{q=1; next} q && $1 == "3" {print $4; exit}' "$work/incast.out")
check "summary shows drops on queue 3 (${drops3:-none})" test "${drops3:-0}" -gt 0
# The truth reaches the peak the switch reports for queue 3.
peak3=$(awk '/^queue /{q=1; next} q && $1 == "3" {print $5; exit}' "$work/incast.out")
truepeak3=$(awk -F, '$2 == 3 && $3 + 0 > m {m = $3 + 0} END {print m + 0}' "$work/truth.csv")
check "truth CSV peak of queue 3 ($truepeak3) = peak_occupancy_3 register (${peak3:-none})" \
	test "${peak3:-x}" = "$truepeak3"

# 2. Register access on a socket, traffic held until `start`.
sock=$work/sim.sock
"$sim" --socket "$sock" --wait --port 0:gen=0.2,count=50 --port 1:out="$work/out1.pcap" \
	>"$work/socket.out" 2>"$work/socket.err" &
pid=$!
cat >"$work/client.py" <<'PY'
import socket, sys, time
path = sys.argv[1]
for _ in range(200):
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        break
    except OSError:
        time.sleep(0.05)
else:
    sys.exit("cannot connect to " + path)
s.settimeout(20)
f = s.makefile("rw", newline="\n")
def request(line):
    f.write(line + "\n"); f.flush()
    return f.readline().rstrip("\n")
def expect(line, want):
    got = request(line)
    if not got.startswith(want):
        sys.exit("%r: got %r, expected %r" % (line, got, want))
    return got
expect("hello", "ok pktstats-sim 1 ")
expect("read 0x0008", "ok 0x504b5453")
expect("write 0x201c 0x1234", "ok")            # switch queue_limit_3
expect("read 0x201c", "ok 0x00001234")
expect("read 0x1002", "error 4 ")             # malformed: unaligned
expect("frobnicate", "error 2 ")              # malformed: unknown command
expect("read 0x0010 0x1", "error 1 ")         # malformed: too many arguments
expect("write 0x0000 1", "error 10 ")         # const register: SLVERR
expect("read 0xf000", "error 11 ")            # no block: DECERR
expect("read 0x0008", "ok 0x504b5453")        # still serving
expect("start", "ok")
print("client: all replies as expected")
PY
python3 "$work/client.py" "$sock" >"$work/client.out" 2>&1
client_status=$?
check "socket client: hello, magic 0x504b5453, write/read back, errors, still serving" \
	sh -c "test $client_status -eq 0 || { cat '$work/client.out'; exit 1; }"
# After `start`, the 50 generated frames flow; the run ends when they are drained.
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$pid" 2>/dev/null; then
	kill "$pid"
fi
wait "$pid"
status=$?
sed 's/^/# /' "$work/socket.out" "$work/socket.err"
check "socket run ends by itself after start and drain, exit 0" test "$status" -eq 0
frames1=$(tcpdump -nr "$work/out1.pcap" 2>/dev/null | wc -l)
check "after start, the 50 broadcast frames reach port 1 ($frames1)" test "$frames1" -eq 50
check "socket file removed at exit" test ! -e "$sock"

# 3. SIGINT: stops, valid pcap, summary.
"$sim" --port 0:gen=1.0 --port 1:out="$work/int1.pcap" >"$work/int.out" 2>"$work/int.err" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
status=$?
check "SIGINT: exit 0 with a summary" sh -c "test $status -eq 0 && grep -q 'interrupted (SIGINT)' '$work/int.out'"
tcpdump -nr "$work/int1.pcap" >"$work/int1.txt" 2>"$work/int1.err"
tcpdump_status=$?
check "SIGINT: output pcap valid (tcpdump status $tcpdump_status, $(wc -l <"$work/int1.txt") frames)" \
	sh -c 'test "$1" -eq 0 && test -s "$2" && ! grep -qi truncated "$3"' sh "$tcpdump_status" "$work/int1.txt" "$work/int1.err"

# 4. Bad command lines: exit 2 with a message naming the culprit.
bad() { # bad NAME EXPECTED-IN-MESSAGE ARGS...
	name=$1 expected=$2
	shift 2
	"$sim" "$@" >"$work/bad.out" 2>"$work/bad.err"
	status=$?
	# One line names the problem; at most a pointer to --help follows it.
	check "$name: exit 2 ($status), message names $expected" \
		sh -c 'test "$1" -eq 2 && head -1 "$3" | grep -qF -- "$2" &&
			test "$(grep -vc "^Try .pktstats-sim --help" "$3")" -eq 1 || { cat "$3"; exit 1; }' \
		sh "$status" "$expected" "$work/bad.err"
}
bad "unknown option" "--frobnicate" --frobnicate
bad "bad port number" "port '9'" --port 9:gen=0.5 --duration 1us
bad "bad rate" "rate '1.5'" --port 0:gen=1.5 --duration 1us
bad "bad duration" "--duration '10parsecs'" --duration 10parsecs
# The network simulator's command line (docs/simulator.md, "A network of switches").
bad "cable to a port that does not exist" "port 9 does not exist" --switches 2 --cable 0.9-1.1
bad "cable to a CPU port" "port 5 is a CPU port" --switches 2 --cable 0.1-1.5
bad "a port cabled twice" "port 0.1 is cabled twice" --switches 2 --cable 0.1-1.1 --cable 1.2-0.1
bad "a cable from a port to itself" "both ends are the same port" --cable 0.1-0.1
bad "a negative delay" "delay '-5ns' is negative" --switches 2 --cable 0.1-1.1,delay=-5ns
bad "a negative length" "length '-3m' is negative" --switches 2 --cable 0.1-1.1,length=-3m
bad "a length without unit" "length '100' is not a length" --switches 2 --cable 0.1-1.1,length=100
bad "a malformed cable" "expected K.N-L.M" --switches 2 --cable 0.1
bad "a port's switch out of range" "switch 2 is out of range (--switches 2: 0..1)" \
	--switches 2 --port 2.0:gen=0.5
bad "a cable's switch out of range" "switch 1 is out of range (--switches 1: 0..0)" --cable 0.1-1.1
bad "a --switch out of range" "switch 3 is out of range" --switches 2 --switch 3:ppm=1
bad "a cabled port also given an input" "port 0.1 also has an input or a TAP interface" \
	--switches 2 --port 0.1:gen=0.5 --cable 0.1-1.1
bad "a cabled TAP port" "port 1.1 also has an input or a TAP interface" \
	--switches 2 --cable 0.1-1.1 --port 1.1:tap=pstx0
bad "too many switches" "--switches '17'" --switches 17
bad "no switch" "--switches '0'" --switches 0
bad "a frequency error beyond 1000 ppm" "ppm '2000'" --switch 0:ppm=2000
bad "a negative clock offset" "offset '-1s' is negative" --switch 0:offset=-1s
bad "an unknown switch setting" "unknown setting 'colour'" --switch 0:colour=blue

# 5. --version names the commit the simulator was built from (the build's git-hash stamp, which
# the Makefile also gives id.git_hash); --trace on the default build names the build that has it.
"$sim" --version >"$work/version.out" 2>&1
status=$?
hash=$(cat "$(dirname "$(dirname "$sim")")/git-hash" 2>/dev/null)
check "--version: exit 0, 'pktstats-sim VERSION (commit $hash)'" \
	sh -c 'test "$1" -eq 0 && grep -qE "^pktstats-sim [0-9]+\.[0-9]+ \(commit $2\)$" "$3" || { cat "$3"; exit 1; }' \
	sh "$status" "$hash" "$work/version.out"
"$sim" --trace "$work/x.fst" --duration 1us >"$work/trace.out" 2>"$work/trace.err"
status=$?
check "--trace on the default build: exit 1, names build/bin/pktstats-sim-trace and make sim-trace" \
	sh -c 'test "$1" -eq 1 && grep -qF "build/bin/pktstats-sim-trace (make sim-trace)" "$2" || { cat "$2"; exit 1; }' \
	sh "$status" "$work/trace.err"

echo "1..$n"
[ $failed -eq 0 ]
