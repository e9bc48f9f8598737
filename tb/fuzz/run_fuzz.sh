#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# `make fuzz`: runs each libFuzzer target (the decoder's, the network parsers') for SECONDS and
# prints its execution count.
#
#   tb/fuzz/run_fuzz.sh BUILD_DIR SECONDS JOBS TARGET...
#
# For each target, JOBS processes (nice'd) fuzz in parallel on one shared corpus directory,
# BUILD_DIR/fuzz/corpus/TARGET (libFuzzer's -reload picks up what the others found), seeded
# read-only from tb/fuzz/corpus/TARGET, tb/fuzz/regressions/TARGET and, when
# tb/fuzz/make_corpus.py --out BUILD_DIR/fuzz/seeds has been run, the full simulator seeds.
# Targets run one after the other, so JOBS = number of cores keeps the machine busy and no more.
# A crash leaves its input in BUILD_DIR/fuzz/artifacts/TARGET/; the script then fails and says
# how to keep it as a regression test. Executions are libFuzzer's own count
# (stat::number_of_executed_units), summed over the jobs.
set -eu

build=$1 seconds=$2 jobs=$3
shift 3
grand=0
failed=0
for target in "$@"; do
	bin=$build/fuzz/fuzz_$target
	work=$build/fuzz/corpus/$target
	artifacts=$build/fuzz/artifacts/$target
	logs=$build/fuzz/logs/$target
	mkdir -p "$work" "$artifacts" "$logs"
	seeds="tb/fuzz/corpus/$target tb/fuzz/regressions/$target"
	[ -d "$build/fuzz/seeds/$target" ] && seeds="$seeds $build/fuzz/seeds/$target"
	# Records of the stream target hold whole frames; a few of them fit in 12000 bytes.
	case $target in
	stream) max_len=12000 ;;
	ipfix) max_len=65535 ;; # one datagram: up to a whole IPFIX message
	*) max_len=10000 ;;
	esac
	pids=""
	j=0
	while [ "$j" -lt "$jobs" ]; do
		# shellcheck disable=SC2086 # $seeds is a list of directories
		nice -n 10 "$bin" -max_total_time="$seconds" -max_len=$max_len -timeout=10 \
			-print_final_stats=1 -reload=1 -artifact_prefix="$artifacts/" \
			"$work" $seeds >"$logs/job$j.log" 2>&1 &
		pids="$pids $!"
		j=$((j + 1))
	done
	status=0
	for pid in $pids; do
		wait "$pid" || status=1
	done
	execs=0
	for log in "$logs"/job*.log; do
		n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
		execs=$((execs + ${n:-0}))
	done
	grand=$((grand + execs))
	if [ "$status" -ne 0 ]; then
		failed=1
		echo "fuzz: $target: FAILED after $execs executions; logs in $logs/, input in $artifacts/"
		grep -h -m1 -A3 "ERROR\|invariant broken\|runtime error" "$logs"/job*.log || true
		echo "fuzz: keep it: fix the bug, copy the input to tb/fuzz/regressions/$target/" \
			"(replayed by make test)"
	else
		echo "fuzz: $target: $execs executions in ${seconds}s x $jobs job(s), no crash" \
			"(corpus $(ls "$work" | wc -l) inputs)"
	fi
done
echo "fuzz: $grand executions in total"
exit $failed
