# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
#
# What the demos on TAP interfaces share (scripts/demo_latency.sh, scripts/demo_isl.sh);
# sourced, not run.
#
#   say TEXT...          a heading
#   run COMMAND...       prints the command, then runs it
#   demo_in_network_namespace NAME "$0" "$@"
#                        re-runs the demo in a network namespace of its own (`unshare`: as root,
#                        or as a user where unprivileged user namespaces and /dev/net/tun are
#                        open), so that its TAP interfaces are private and vanish with it; in
#                        there, brings the loopback up and turns IPv6 off

say() { printf '\n== %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

demo_in_network_namespace() {
	local name=$1
	shift
	if [ -z "${PKTSTATS_DEMO_NAMESPACE:-}" ]; then
		export PKTSTATS_DEMO_NAMESPACE=1
		if [ "$(id -u)" = 0 ]; then
			exec unshare --net "$@"
		fi
		if ! unshare --user --map-root-user --net true 2>/dev/null || [ ! -w /dev/net/tun ]; then
			echo "$name: needs TAP interfaces in a network namespace: run it as root, or enable unprivileged user namespaces and make /dev/net/tun writable" >&2
			exit 2
		fi
		exec unshare --user --map-root-user --net "$@"
	fi
	ip link set lo up
	# The demos' cables make loops, and these switches have no spanning tree: keep the TAP
	# interfaces from sending anything of their own (IPv6 neighbour discovery and MLD are
	# multicast, which would circle a loop for ever)
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
}
