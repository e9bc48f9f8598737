# SPDX-License-Identifier: BSD-3-Clause
"""Stand-ins for Vivado's Tcl commands, for running fpga/ scripts under plain tclsh.

stub_prelude() returns Tcl source that defines one proc per Vivado command the scripts may
call. Each stub appends its name and arguments, as one Tcl list per line, to a log file, and
returns what the scripts need (the IP's file, the clocks, the timing paths' slack). A command
that is not stubbed stays unknown to tclsh, so a misspelt or unexpected command fails the run.
read_log() parses the log back into [(command, [arguments])]. Python 3 standard library only.
"""

import os
import shutil
import subprocess
import tempfile

# Commands that only record their call and return nothing.
RECORD_ONLY = [
    "create_project", "set_part", "set_param", "read_verilog", "read_xdc", "create_ip",
    "set_property", "generate_target", "synth_ip", "synth_design", "opt_design", "place_design",
    "phys_opt_design", "route_design", "write_checkpoint", "report_utilization",
    "report_timing_summary", "report_clock_interaction", "write_bitstream", "write_cfgmem",
    # timing.xdc
    "create_clock", "create_generated_clock", "set_input_delay", "set_output_delay",
    "set_clock_groups", "set_false_path",
]

PRELUDE = r"""
# --- Vivado stand-ins (tb/fpga/vivado_stubs.py) ---
proc stub_record {name arguments} {
    set handle [open $::stub_log a]
    fconfigure $handle -translation lf -encoding utf-8
    puts -nonewline $handle "CALL $name [llength $arguments]\n"
    foreach word $arguments {
        puts -nonewline $handle "[string length $word]:$word\n"
    }
    close $handle
}
foreach name {%(record_only)s} {
    proc $name {args} "stub_record $name \$args; return {}"
}
proc current_design {args} { stub_record current_design $args; return design_1 }
proc get_ips {args} { stub_record get_ips $args; return [lindex $args end] }
proc get_files {args} { stub_record get_files $args; return [lindex $args end] }
# get_ports returns its names (a list: one pattern per element, patterns as given)
proc get_ports {args} {
    stub_record get_ports $args
    set names [lindex $args end]
    if {[info exists ::stub_ports]} {
        foreach pattern $names {
            set matched 0
            foreach port $::stub_ports {
                # as Vivado: * and ? are wildcards, brackets are literal (bus bits)
                if {[string match [string map {[ \\[ ] \\]} $pattern] $port]} { set matched 1; break }
            }
            if {!$matched} { error "get_ports: no port matches '$pattern'" }
        }
    }
    return $names
}
proc get_pins {args} { stub_record get_pins $args; return [list [lindex $args end]/C] }
proc all_fanin {args} { stub_record all_fanin $args; return [list oddr_of_[lindex $args end] obuf] }
proc filter {objects expression} {
    stub_record filter [list $objects $expression]
    if {[info exists ::env(STUB_NO_ODDR)]} { return {} }
    return [lrange $objects 0 0]
}
# get_clocks: names as given, or, with -include_generated_clocks, the clock and what
# STUB_GENERATED (name=gen1,gen2;...) says is generated from it; with no name, every clock.
proc get_clocks {args} {
    stub_record get_clocks $args
    set names {}
    foreach word $args { if {![string match -* $word]} { lappend names $word } }
    if {[llength $names] == 0} {
        return $::stub_all_clocks
    }
    set result {}
    foreach name [lindex $names end] {
        if {[info exists ::env(STUB_MISSING_CLOCK)] && $name eq $::env(STUB_MISSING_CLOCK)} {
            continue
        }
        lappend result $name
        if {[lsearch -exact $args -include_generated_clocks] >= 0 && [dict exists $::stub_generated $name]} {
            lappend result {*}[dict get $::stub_generated $name]
        }
    }
    return $result
}
proc get_timing_paths {args} {
    stub_record get_timing_paths $args
    set type [lindex $args [expr {[lsearch -exact $args -delay_type] + 1}]]
    return timing_path_$type
}
proc get_property {name object} {
    stub_record get_property [list $name $object]
    if {$name eq "SLACK" && $object eq "timing_path_max"} { return $::env(STUB_WNS) }
    if {$name eq "SLACK" && $object eq "timing_path_min"} { return $::env(STUB_WHS) }
    if {$name eq "NAME"} { return $object }
    error "get_property stub: unexpected $name of $object"
}
set stub_all_clocks {}
set stub_generated {}
if {[info exists ::env(STUB_CLOCKS)]} { set stub_all_clocks $::env(STUB_CLOCKS) }
if {[info exists ::env(STUB_GENERATED)]} {
    foreach entry [split $::env(STUB_GENERATED) ";"] {
        lassign [split $entry "="] master generated
        dict set stub_generated $master [split $generated ","]
    }
}
"""


def tclsh():
    return shutil.which("tclsh")


def stub_prelude(log_path, ports=None):
    tcl = "set stub_log {%s}\n" % log_path
    if ports is not None:
        tcl += "set stub_ports {%s}\n" % " ".join("{%s}" % p for p in ports)
    return tcl + PRELUDE % {"record_only": " ".join(RECORD_ONLY)}


def run_tcl(script_text, env=None, cwd=None, timeout=60):
    """Runs Tcl source under tclsh, as a script file (so that an error exits non-zero: tclsh
    reading its standard input would carry on); returns the CompletedProcess."""
    with tempfile.TemporaryDirectory() as scratch:
        script = os.path.join(scratch, "run.tcl")
        with open(script, "w") as handle:
            handle.write(script_text)
        return subprocess.run([tclsh(), script], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, env=env, cwd=cwd, timeout=timeout)


def read_log(log_path):
    """The stub log as [(command, [arguments])]: each argument one Tcl word, as passed."""
    with open(log_path, encoding="utf-8") as handle:
        text = handle.read()
    calls = []
    pos = 0
    while pos < len(text):
        end = text.index("\n", pos)
        _, name, count = text[pos:end].split(" ")
        pos = end + 1
        words = []
        for _ in range(int(count)):
            colon = text.index(":", pos)
            length = int(text[pos:colon])
            words.append(text[colon + 1:colon + 1 + length])
            pos = colon + 1 + length + 1
        calls.append((name, words))
    return calls


def tcl_list(text):
    """Splits a Tcl list (braces, double quotes, backslashes) into its elements."""
    items = []
    i = 0
    n = len(text)
    while True:
        while i < n and text[i] in " \t\n":
            i += 1
        if i >= n:
            return items
        if text[i] == "{":
            depth = 1
            j = i + 1
            while depth:
                if text[j] == "\\":
                    j += 1
                elif text[j] == "{":
                    depth += 1
                elif text[j] == "}":
                    depth -= 1
                j += 1
            items.append(text[i + 1:j - 1])
            i = j
        elif text[i] == '"':
            j = text.index('"', i + 1)
            items.append(text[i + 1:j])
            i = j + 1
        else:
            j = i
            word = ""
            while j < n and text[j] not in " \t\n":
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                word += text[j]
                j += 1
            items.append(word)
            i = j
