#!/usr/bin/env bash
# Synthesizes TOP for Xilinx 7-series with Yosys (synth_xilinx) and writes a utilisation
# summary: LUTs, flip-flops, block RAM (RAMB36 equivalents), distributed RAM, carry chains.
# Usage: scripts/synth.sh TOP OUTDIR FILE.v...
set -euo pipefail
top=$1 outdir=$2
shift 2
mkdir -p "$outdir"
log=$outdir/$top.log
summary=$outdir/$top.summary
# Yosys 0.23 warns about resizing block RAM ports it maps itself; those lines are noise.
if ! yosys -l "$log" -q -p "read_verilog -defer $*; hierarchy -top $top; synth_xilinx -top $top -flatten; stat" \
	> /dev/null 2>&1; then
	grep -iE "error" "$log" | head -20 >&2
	echo "synth: yosys failed, see $log" >&2
	exit 1
fi
# synth_xilinx prints statistics itself; the explicit `stat` at the end is the last section
# (found by its line number: collecting each section as a string was quadratic in the log)
start=$(grep -n "Printing statistics" "$log" | tail -n 1 | cut -d: -f1)
stat=$(tail -n +"${start:-1}" "$log")
count() { echo "$stat" | awk -v pattern="$1" '$1 ~ pattern { n += $2 } END { print n + 0 }'; }
luts=$(count '^LUT[1-6]$')
ffs=$(count '^FD[A-Z]*$')
ramb36=$(count '^RAMB36E1$')
ramb18=$(count '^RAMB18E1$')
lutram=$(count '^RAM(32|64|128|256)[A-Z0-9]*$')
carry=$(count '^CARRY4$')
{
	echo "synth: $top on Xilinx 7-series (yosys synth_xilinx)"
	printf '  %-26s %8s\n' "LUTs (logic)" "$luts"
	printf '  %-26s %8s\n' "flip-flops" "$ffs"
	printf '  %-26s %8s\n' "LUT RAM cells" "$lutram"
	printf '  %-26s %8s\n' "CARRY4" "$carry"
	printf '  %-26s %8s (%s RAMB36 + %s RAMB18)\n' "block RAM (36 Kb equiv.)" \
		"$(awk -v a="$ramb36" -v b="$ramb18" 'BEGIN { print a + b / 2 }')" "$ramb36" "$ramb18"
} > "$summary"
cat "$summary"
