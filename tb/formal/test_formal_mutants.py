#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The formal proofs catch bugs: one injected bug per property group, each of which the proof
must refute with a counterexample naming the expected property; prints TAP.

    tb/formal/test_formal_mutants.py [--only NAME] [--keep] [--jobs N] [--list]

A proof that passes whatever the RTL does (contradictory assumptions, a property that cannot
fail, a runner that misreads the solver) fails here. Each mutant is a copy of one RTL file with
one edit, given to tb/formal/formal.py with --substitute; the edit must apply exactly once, so
that a change to the RTL that moves the code fails this test instead of testing nothing.
Each mutant is proved with --refute PROPERTY (that assertion alone, by the BMC from reset as
deep as the covers) and, but for the first of the list, --no-trace; the first also replays its
counterexample in Verilator (--replay), alone or with the others. `make test` runs each mutant as a test of its own (--only, names from --list).
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
FORMAL = ROOT / "tb/formal/formal.py"

# (name, proof, RTL file, text, replacement, property expected to fail)
MUTANTS = [
    ("regs-commit-without-shadow", "time_regs", "rtl/gen/time_regs.v",
     "set_seconds_reg[31:0] <= set_seconds_shadow_reg;", "",
     "set_seconds_as_written"),
    ("regs-latch-not-updated", "switch_regs", "rtl/gen/switch_regs.v",
     "frames_stored_0_latch_reg <= frames_stored_0[63:32];", "",
     "frames_stored_0_latch_as_read"),
    ("regs-counter-cleared-by-read", "evcap_regs", "rtl/gen/evcap_regs.v",
     "    if (s_axil_awvalid && s_axil_awready) begin",
     "    if (read_en && s_axil_araddr[11:2] == 10'h01a) pulses_reg[4] <= 1'b1;\n"
     "    if (s_axil_awvalid && s_axil_awready) begin",
     "events_sent_clear_on_write"),
    ("regs-response-dropped", "time_regs", "rtl/gen/time_regs.v",
     "        s_axil_bvalid_reg <= 1'b1;",
     "        s_axil_bvalid_reg <= (aw_addr_reg != 10'h003);",
     "axil_one_write_address_held"),
    ("interconnect-read-data-from-next-block", "interconnect",
     "rtl/common/common_axil_interconnect.v",
     "block_rdata = m_axil_rdata[32*k +: 32];",
     "block_rdata = m_axil_rdata[32*((k+1)%SLAVE_COUNT) +: 32];",
     "host_read_response"),
    ("queue-occupancy-off-by-one", "switch_queue", "rtl/switch/switch_queue.v",
     "- (sent ? {{QUEUE_SIZE_WIDTH-ADDRESS_WIDTH{1'b0}}, out_frame_words[ADDRESS_WIDTH-1:0]}",
     "- (sent ? {{QUEUE_SIZE_WIDTH-ADDRESS_WIDTH{1'b0}}, out_words_reg[ADDRESS_WIDTH-1:0]}",
     "occupancy_accounting"),
    ("evcap-lost-event-not-counted", "evcap_intake", "rtl/evcap/evcap_intake.v",
     "+ (drop_1 ? {59'd0, popcount24(events_1_reg)} : 64'd0);",
     "+ (drop_1 ? {59'd0, popcount24(events_1_reg & 24'hfffffe)} : 64'd0);",
     "events_accounted"),
    ("evcap-missed-flag-lost", "evcap_intake", "rtl/evcap/evcap_intake.v",
     "            pend_missed_reg <= 1'b1;", "            pend_missed_reg <= 1'b0;",
     "missed_flag"),
    ("evcap-header-m-flag-zero", "evcap_packet_output", "rtl/evcap/evcap_packet_output.v",
     "    missed_reg, resolution_reg, 4'd2, 8'd3, seq_reg,",
     "    1'b0, resolution_reg, 4'd2, 8'd3, seq_reg,",
     "header_fields"),
    ("evcap-checksum-second-fold-dropped", "evcap_packet_output",
     "rtl/evcap/evcap_packet_output.v",
     "wire [15:0] checksum_fold2 = checksum_fold1[15:0] + {15'd0, checksum_fold1[16]};",
     "wire [15:0] checksum_fold2 = checksum_fold1[15:0];",
     "checksum_field"),
    ("evcap-header-shifted-by-7-bytes", "evcap_packet_output",
     "rtl/evcap/evcap_packet_output.v",
     "                header_reg <= header_reg << 64;",
     "                header_reg <= header_reg << 56;",
     "header_beat"),
    ("time-carry-one-late", "time_clock", "rtl/time/time_clock.v",
     "wire        advance_carry = advance_sum >= NS_PER_S;",
     "wire        advance_carry = advance_sum > NS_PER_S;",
     "nanoseconds_below_1e9"),
    ("time-step-ignores-set", "time_clock", "rtl/time/time_clock.v",
     "wire apply_step = command_step && !command_set && step_ok;",
     "wire apply_step = command_step && step_ok;",
     "step_refused_counts"),
    ("serializer-event-queue-bit-inverted", "evcap_serializer", "rtl/evcap/evcap_serializer.v",
     "queue = {i / 3 >= 4, (i / 3) % 4 >= 2, (i / 3) % 2 == 1};",
     "queue = {i / 3 >= 4, (i / 3) % 4 >= 2, (i / 3) % 2 == 0};",
     "short_event_fields"),
    ("serializer-gap-bit-lost", "evcap_serializer", "rtl/evcap/evcap_serializer.v",
     "wire [31:0] e1_slot = short_slot(e1_onehot, s_record_lengths, gap[18:0]);",
     "wire [31:0] e1_slot = short_slot(e1_onehot, s_record_lengths, {gap[18:1], 1'b0});",
     "short_event_gap"),
    ("serializer-timeout-one-late", "evcap_serializer", "rtl/evcap/evcap_serializer.v",
     "&& age_reg >= config_flush_timeout;", "&& age_reg > config_flush_timeout;",
     "close_when_due"),
    ("arbiter-grant-switches-mid-frame", "switch_input_arbiter",
     "rtl/switch/switch_input_arbiter.v",
     "wire [2:0] selected = in_frame_reg ? grant_reg : next_input;",
     "wire [2:0] selected = next_input;",
     "grant_held_in_frame"),
    ("stat-merge-source-switches-mid-frame", "switch_stat_merge",
     "rtl/switch/switch_stat_merge.v",
     "wire pick_b = (in_frame || offered) ? from_b :",
     "wire pick_b = offered ? from_b :",
     "source_held_in_frame"),
    ("output-queues-next-queues-mask-bit", "switch_output_queues",
     "rtl/switch/switch_output_queues.v",
     ".s_word_valid(s_axis_tvalid && word_mask[q]),",
     ".s_word_valid(s_axis_tvalid && word_mask[(q+1)%8]),",
     "queue_gets_its_frames"),
    ("lookup-source-port-not-filtered", "switch_output_port_lookup",
     "rtl/switch/switch_output_port_lookup.v",
     "    end else if (p2_hit_port == p2_source_reg) begin",
     "    end else if (1'b0) begin",
     "mask_excludes_source"),
    ("lookup-word-mixed-across-stages", "switch_output_port_lookup",
     "rtl/switch/switch_output_port_lookup.v",
     "        m_axis_tdata_reg <= p2_data_reg;",
     "        m_axis_tdata_reg <= {p1_data_reg[63:48], p2_data_reg[47:0]};",
     "watched_word_out"),
    ("stat-path-lock-step-broken", "switch_stat_path", "rtl/switch/switch_stat_path.v",
     "    && ((taken_reg | stat_handshake | ~s_stat_tuser) == 8'hff);",
     "    && ((taken_reg | stat_handshake) != 8'h00);",
     "stat_leaves_when_all_have_it"),
    ("stamp-carry-one-late", "stamp_correct", "rtl/stamp/stamp_correct.v",
     "wire        above = !sum[31] && sum >= BILLION;",
     "wire        above = !sum[31] && sum > BILLION;",
     "out_nanoseconds_below_1e9"),
    ("stamp-rx-not-held-in-frame", "stamp_rx", "rtl/stamp/stamp_rx.v",
     "        assign m_meta[63*i +: 63] = {1'b1, in_frame_reg[i] ? held_reg : first};",
     "        assign m_meta[63*i +: 63] = {1'b1, first};",
     "later_words_held"),
    ("stamp-tx-residence-borrow-lost", "stamp_tx", "rtl/stamp/stamp_tx.v",
     "                difference = nanoseconds_diff + BILLION;",
     "                difference = nanoseconds_diff;",
     "residence_exact"),
    ("stamp-meta-fifo-full-despite-departure", "stamp_meta_fifo", "rtl/stamp/stamp_meta_fifo.v",
     "wire push = commit && s_valid && (!full || pop);",
     "wire push = commit && s_valid && !full;",
     "write_iff_entry"),
    ("oam-egress-wire-time-short", "oam_egress", "rtl/oam/oam_egress.v",
     "wire_bytes = {1'b0, padded_length} + 15'd12;",
     "wire_bytes = {1'b0, padded_length} + 15'd8;",
     "rx_field_bytes"),
    ("oam-egress-tx-stamp-bytes-shifted", "oam_egress", "rtl/oam/oam_egress.v",
     "rewritten[16*l+8 +: 8] = tx_bytes[55 - 16*tx_distance[1:0] -: 8];",
     "rewritten[16*l+8 +: 8] = tx_bytes[63 - 16*tx_distance[1:0] -: 8];",
     "tx_field_bytes"),
    ("oam-steer-fifo-keep-bit-lost", "oam_steer", "rtl/oam/oam_steer.v",
     "fifo_keep[fifo_write_reg[2:0]] <= s_axis_tkeep;",
     "fifo_keep[fifo_write_reg[2:0]] <= s_axis_tkeep & 8'h7f;",
     "mem_reads_what_was_written"),
    ("oam-steer-word-1-rewritten-always", "oam_steer", "rtl/oam/oam_steer.v",
     "    if (out_rewrite != REWRITE_NONE) begin",
     "    if (out_rewrite != REWRITE_NONE || out_index_reg == 3'd1) begin",
     "watched_word"),
    ("flowlat-fifo-read-when-empty", "flowlat_fifo", "rtl/flowlat/flowlat_fifo.v",
     "    if (m_ready && !empty)", "    if (m_ready)",
     "m_valid_unless_empty"),
    ("stat-path-frame-ends-every-word", "switch_stat_path", "rtl/switch/switch_stat_path.v",
     "            if (queue_handshake[p] && s_queue_tlast[p]) begin",
     "            if (queue_handshake[p]) begin",
     "frame_kind_held"),
    ("serializer-seq-incremented-twice", "evcap_serializer", "rtl/evcap/evcap_serializer.v",
     "seq_reg <= seq_reg + 32'd1;", "seq_reg <= seq_reg + 32'd2;",
     "seq_consecutive"),
    ("serializer-timestamp-slots-swapped", "evcap_serializer", "rtl/evcap/evcap_serializer.v",
     "        emit_a = {2'b00, s_record_tick[61:32]};\n        emit_b = s_record_tick[31:0];",
     "        emit_a = s_record_tick[31:0];\n        emit_b = {2'b00, s_record_tick[61:32]};",
     "packet_starts_with_timestamp"),
    ("serializer-no-timestamp-to-open", "evcap_serializer", "rtl/evcap/evcap_serializer.v",
     "wire needs_ts = !open_reg || gap_overflow;", "wire needs_ts = gap_overflow;",
     "packet_has_timestamp"),
]


def run(command):
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def tail(proc):
    """The last lines of a run's output, as TAP comments."""
    return "\n".join("# " + line for line in proc.stdout.splitlines()[-8:]) + "\n"


def check(mutant, work, replay):
    """Proves the mutant; (whether the expected property was refuted, what happened, the
    output's tail to print when it went wrong)."""
    name, proof, rtl, text, replacement, expected = mutant
    source = (ROOT / rtl).read_text()
    if source.count(text) != 1:
        return (False, f"the edit does not apply to {rtl} exactly once ({source.count(text)})",
                "")
    mutated = work / name / Path(rtl).name
    mutated.parent.mkdir(parents=True)
    mutated.write_text(source.replace(text, replacement))
    build = work / name / "build"
    proc = run([sys.executable, str(FORMAL), "--only", proof, "--substitute", f"{rtl}={mutated}",
                "--build", str(build), "--refute", expected, *([] if replay else ["--no-trace"])])
    refuted = re.search(r"^# \S+: (BMC): (\S+(?:, \S+)*) fails", proc.stdout, re.M)
    if not refuted:
        return False, "the proof did not fail", tail(proc)
    failed = refuted.group(2).split(", ")
    if expected not in failed:
        return False, f"{refuted.group(1)} refuted {', '.join(failed)}, not {expected}", ""
    step = re.search(r"fails in step (\d+)", proc.stdout)
    how = f"{refuted.group(1)}" + (f", step {step.group(1)}" if step else "")
    if replay:
        proc = run([sys.executable, str(FORMAL), "--replay", proof, "--build", str(build)])
        if proc.returncode != 0 or "the counterexample fails in Verilator" not in proc.stdout:
            return (False, f"{expected} refuted ({how}), but the replay in Verilator did not "
                    "fail", tail(proc))
        how += "; replayed in Verilator"
    return True, f"{expected} refuted ({how})", ""


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="one mutant's name")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    parser.add_argument("--list", action="store_true", help="print the mutants' names and exit")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="mutants checked at once (default: one per core)")
    args = parser.parse_args(argv[1:])
    if args.list:
        print("\n".join(m[0] for m in MUTANTS))
        return 0
    mutants = [m for m in MUTANTS if args.only in (None, m[0])]
    if not mutants:
        print(f"test_formal_mutants: unknown mutant '{args.only}'", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print(f"test_formal_mutants: --jobs {args.jobs}: must be 1 or more", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="formal-mutants-"))
    print(f"1..{len(mutants)}", flush=True)
    failures = 0
    # one mutant's proof per core (each solver run is single-threaded); reported in order
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        runs = [pool.submit(check, mutant, work, mutant is MUTANTS[0]) for mutant in mutants]
        for i, (mutant, run_) in enumerate(zip(mutants, runs), 1):
            ok, text, notes = run_.result()
            failures += not ok
            print(f"{notes}{'ok' if ok else 'not ok'} {i} - {mutant[0]}: {text}", flush=True)
    if args.keep:
        print(f"# scratch: {work}")
    else:
        shutil.rmtree(work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
