#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# make demo-monitor: a fleet of simulated switches monitored as a site would be
# (docs/monitoring.md, "A fleet"): one pktstats-exporter, a real Prometheus scraping it, a real
# VictoriaMetrics receiving Prometheus's remote write.
#
#   scripts/demo_monitor.sh BUILD_DIR
#
# 1. re-runs itself in a network namespace of its own (scripts/demo_common.sh), so that its TAP
#    interfaces and the servers' loopback ports are private and vanish with it;
# 2. starts (tb/exporter/fleet.py, the scenario tb/exporter/test_exporter_fleet.py checks)
#    VictoriaMetrics and Prometheus (/usr/bin/prometheus, scraping every second, remote write),
#    pktstats-sim with eight switches s0..s7 in a chain of 100 m cables, each with an incast on
#    its port-2 queue that adds up along the chain, its stat packets out of CPU port 7 into a
#    TAP interface of its own, and the exporter serving all eight;
# 3. runs DEMO_TRAFFIC_MS (default 10) ms of simulated traffic, about a minute of wall time,
#    printing the drops Prometheus sees every 5 s;
# 4. prints the queries an operator types (p99 queueing delay per switch, drop rate and share
#    per switch and queue, microbursts per minute, pktstats_up) with the answers of Prometheus
#    and of VictoriaMetrics side by side;
# 5. draws each switch's p99 queueing delay over time (Prometheus's query_range, gnuplot) into
#    BUILD_DIR/demo-monitor/s0.png .. s7.png, stops everything and prints a report (also in
#    BUILD_DIR/demo-monitor/report.txt) with the servers' URLs and how to start them again on
#    the data the demo left.
# Ctrl-C stops every process the demo started; the namespace goes with the last of them.
set -euo pipefail

build=${1:?usage: $0 BUILD_DIR}

# shellcheck source=scripts/demo_common.sh
. "$(dirname "$0")/demo_common.sh"
demo_in_network_namespace demo-monitor "$0" "$@"

missing=
for tool in /usr/bin/prometheus /usr/bin/victoria-metrics gnuplot python3; do
	command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
	echo "demo-monitor: needs$missing (make deps installs prometheus, victoria-metrics," \
		"gnuplot-nox)" >&2
	exit 2
fi
for binary in pktstats-sim pktstats pktstats-exporter; do
	if [ ! -x "$build/bin/$binary" ]; then
		echo "demo-monitor: needs $build/bin/$binary (make $build/bin/$binary)" >&2
		exit 2
	fi
done

status=0
python3 "$(dirname "$0")/demo_monitor.py" "$build" || status=$?
exit "$status"
