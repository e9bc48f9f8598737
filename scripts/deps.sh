#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages pktstats needs, only those that are missing.
# Called by `make deps`; every make target that needs a tool depends on it.
set -euo pipefail

packages=(
	make gcc g++ pkg-config git python3 iproute2
	verilator iverilog yosys z3 ccache
	libpcap-dev libnl-3-dev libnl-route-3-dev zlib1g-dev
	tcpdump tshark gnuplot-nox tcpreplay
	clang libclang-rt-14-dev
	groff-base man-db socat
	iputils-arping less
	libssl-dev libjansson-dev libcurl4-openssl-dev victoria-metrics
	pmacct tcl openfpgaloader
	libmicrohttpd-dev prometheus python3-prometheus-client curl systemd
	valgrind
)

missing=()
for package in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$package")
done

[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		sudo=sudo
	else
		echo "deps: missing packages and not root: run 'make deps' as root" >&2
		exit 1
	fi
else
	sudo=
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
