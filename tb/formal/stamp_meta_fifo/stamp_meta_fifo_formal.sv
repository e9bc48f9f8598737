// SPDX-License-Identifier: BSD-3-Clause
/*
 * stamp_meta_fifo_formal: the metadata FIFO beside an output queue (rtl/stamp/stamp_meta_fifo.v)
 * gives each frame on the queue's output its own stamp, as its header says, by k-induction.
 *
 * Instantiated small: DEPTH_LOG2 = 2 (4 entries), TAG_WIDTH = 3 (the minimum, DEPTH_LOG2 + 1,
 * as the real 9 and 10), STAMP_WIDTH = 8 (the stamp is only stored and compared: any width
 * that tells stamps apart will do). The RTL is the same logic at every size; with at most
 * 2^TAG_WIDTH - 1 = 7 frames in the queue and 4 entries the FIFO fills, commits find it full,
 * and the tags wrap.
 *
 * The environment, as test_stamp_meta_fifo's queue model (and the header) has it:
 *   - reset in the first clock (later resets free);
 *   - commit, s_valid, s_stamp free; at most 2^TAG_WIDTH - 1 frames committed and not departed
 *     (the header's "fewer than 2^TAG_WIDTH frames");
 *   - the queue's output shows its oldest committed frame from two clocks after its commit
 *     until its departure; a departure only of a frame on the output (frames leave in commit
 *     order, at any time after, or never).
 *
 * The model (the contract): a queue of the committed frames not departed, oldest first, each
 * with its stamp and whether it got an entry: a commit with s_valid gets one when the FIFO
 * holds fewer than 2^DEPTH_LOG2 entries after this clock's departure (the model's count of
 * frames with an entry), otherwise (no stamp, or full) none.
 *
 * Proved (each a labelled assertion):
 *   - m_valid_iff_entry: while a frame is on the output, m_valid says whether it got an entry;
 *   - m_stamp_of_frame: and then m_stamp is its own stamp, the one committed with it: so no
 *     stamp lost, duplicated or shifted to another frame, whatever the frames without entry;
 *   - write_iff_entry: the RAM is written exactly at a commit with s_valid and room (never
 *     when full, a departure's pop in the same clock making room);
 *   - entries_within_depth: the RTL's occupancy (write - read pointer) never above 2^DEPTH_LOG2;
 *   - ram_reads_what_was_written: the head register holds the RAM word the shadow read (see
 *     below);
 *   - invariants (inv_*) that close the induction: the RTL's pointers and tag counters agree
 *     with the model's frame and entry counts, each entry of the model is in the RAM (the
 *     shadow) at its place with its frame's tag and stamp, the head register's validity and
 *     contents, the model's state.
 *
 * How the RAM is seen (as tb/formal/switch_queue/ does): Yosys 0.23 cannot reference dut.ram,
 * so the wrapper keeps a shadow, f_ram, written with the RTL's own write enable, address and
 * word (links), and read at the RTL's next read pointer in every clock as the RTL reads.
 * ram_reads_what_was_written says that the RTL's head register holds what the shadow read
 * (when the shadow's word was written): an assertion in the first F_DEPTH clocks after the
 * initial state, so in every clock of the BMC from reset, and an assumption afterwards, which
 * is the induction's last step (there the RTL's RAM contents are free, and f_ram stands for
 * them). Sound for any RTL whose RAM is a memory: choosing f_ram's free initial contents equal
 * to dut.ram's makes the assumption hold in every run. F_DEPTH is the run's clocks
 * (FORMAL_DEPTH: proof.toml's bmc_depth in the BMC, its depth in the induction).
 *
 * Covers: the FIFO full, a stamped commit finding it full (its frame leaves with m_valid 0
 * while the next stamped frame keeps its stamp), a commit that finds it full but gets an entry
 * by the same clock's departure, a frame without stamp between stamped ones, a departure two
 * clocks after its commit, the tags wrapping.
 */

`default_nettype none

module stamp_meta_fifo_formal (
    input  wire       clk,
    input  wire       rst,
    input  wire       commit,
    input  wire       s_valid,
    input  wire [7:0] s_stamp,
    input  wire       departure
);

localparam F_DEPTH = `FORMAL_DEPTH;  // the run's clocks (tb/formal/formal.py)
localparam MAXF = 7;           // frames in the queue at most: 2^TAG_WIDTH - 1
localparam SW = 8;             // STAMP_WIDTH

wire       m_valid;
wire [7:0] m_stamp;

stamp_meta_fifo #(
    .STAMP_WIDTH(8),
    .DEPTH_LOG2(2),
    .TAG_WIDTH(3)
) dut (
    .clk(clk),
    .rst(rst),
    .commit(commit),
    .s_valid(s_valid),
    .s_stamp(s_stamp),
    .departure(departure),
    .m_valid(m_valid),
    .m_stamp(m_stamp)
);

// Internal signals of the RTL (proof.toml links). A linked wire is used only as an operand,
// never alone as an `if` condition or the right side of an assign (see switch_queue_formal).
wire        dut_push;              // dut.push
wire [2:0]  dut_write_ptr;         // dut.write_ptr_reg
wire [2:0]  dut_read_ptr;          // dut.read_ptr_reg
wire [2:0]  dut_read_ptr_next;     // dut.read_ptr_next
wire [2:0]  dut_commit_number;     // dut.commit_number_reg
wire [2:0]  dut_departure_number;  // dut.departure_number_reg
wire [10:0] dut_head;              // dut.head_reg
wire        dut_head_valid;        // dut.head_valid_reg

// The reset the proof starts from (common/formal_reset.sv)
wire past_valid;
formal_reset initial_reset (.clk(clk), .rst(rst), .past_valid(past_valid));

// ---------------------------------------------------------------------------------------------
// The model: the queue's frames, oldest first (index 0)

reg [3:0]      f_count = 4'd0;        // frames committed, not departed
reg [MAXF-1:0] f_has = {MAXF{1'b0}};  // frame j got an entry
reg [MAXF*SW-1:0] f_stamp = {MAXF*SW{1'b0}};
reg            f_prev_commit = 1'b0;  // the clock before committed (the newest frame's)
reg            f_prev_push = 1'b0;    // the clock before wrote an entry (the newest frame's)

function [3:0] ones(input [MAXF-1:0] bits);
    integer k;
    begin
        ones = 4'd0;
        for (k = 0; k < MAXF; k = k + 1) ones = ones + {3'd0, bits[k]};
    end
endfunction

wire [3:0] f_entries = ones(f_has);
// the oldest frame is on the output: committed two clocks ago or earlier
wire       on_output = f_count != 4'd0 && !(f_count == 4'd1 && f_prev_commit);
wire       pop_entry = departure && f_has[0];
wire [3:0] entries_after = f_entries - {3'd0, pop_entry};
wire       room = entries_after < 4'd4;
wire       has_new = commit && s_valid && room;

wire [3:0]        count_after = f_count - {3'd0, departure};
wire [MAXF-1:0]   has_shifted = departure ? f_has >> 1 : f_has;
wire [MAXF*SW-1:0] stamp_shifted = departure ? f_stamp >> SW : f_stamp;

always @(*) begin
    // a departure only of a frame on the output
    if (departure) assume (on_output);
    // fewer than 2^TAG_WIDTH frames in the queue
    if (commit) assume (count_after < MAXF);
end

always @(posedge clk) begin
    f_count <= count_after + {3'd0, commit};
    f_has <= has_shifted | (commit ? {{MAXF-1{1'b0}}, has_new} << count_after : {MAXF{1'b0}});
    f_stamp <= commit ? (stamp_shifted & ~({{(MAXF-1)*SW{1'b0}}, {SW{1'b1}}} << (SW * count_after)))
                        | ({{(MAXF-1)*SW{1'b0}}, s_stamp} << (SW * count_after))
                      : stamp_shifted;
    f_prev_commit <= commit && !rst;
    f_prev_push <= has_new && !rst;
    if (rst) begin
        f_count <= 4'd0;
        f_has <= {MAXF{1'b0}};
    end
end

// ---------------------------------------------------------------------------------------------
// Shadow of the RAM (see the header): written and read with the RTL's enable and pointers

reg [10:0] f_ram [0:3];
reg [3:0]  f_written = 4'd0;     // slots written since the start (free in the induction)
reg [10:0] f_expect = 11'd0;
reg        f_expect_valid = 1'b0;
reg [3:0]  f_step = 4'd0;

always @(posedge clk) begin
    f_ram[dut_write_ptr[1:0]] <= dut_push ? {dut_commit_number, s_stamp}
                                          : f_ram[dut_write_ptr[1:0]];
    f_written <= f_written | ({3'd0, dut_push} << dut_write_ptr[1:0]);
    f_expect <= f_ram[dut_read_ptr_next[1:0]];
    f_expect_valid <= f_written[dut_read_ptr_next[1:0]];
    // clocks since the initial state, up to F_DEPTH; not reset: it tells BMC from induction
    if (f_step < F_DEPTH) f_step <= f_step + 4'd1;
end

always @(*) begin
    if (f_step < F_DEPTH) begin
        if (f_expect_valid)
            ram_reads_what_was_written: assert (dut_head == f_expect);
    end else begin
        if (f_expect_valid) assume (dut_head == f_expect);
    end
end

// ---------------------------------------------------------------------------------------------
// Properties

always @(*) begin
    if (past_valid && on_output)
        m_valid_iff_entry: assert (m_valid == f_has[0]);
    if (past_valid && on_output && f_has[0])
        m_stamp_of_frame: assert (m_stamp == f_stamp[SW-1:0]);
    write_iff_entry: assert (dut_push == has_new);
    entries_within_depth: assert (dut_write_ptr - dut_read_ptr <= 3'd4);
end

// Invariants: each frame j with an entry has it at slot read pointer + (entries before j),
// tagged with its commit number (departures + j), in the shadow
reg [MAXF-1:0] entry_in_ram;
reg [3:0]      before;         // entries of the frames before j
reg [1:0]      slot;           // where frame j's entry is (modulo the RAM)
integer j;
always @(*) begin
    for (j = 0; j < MAXF; j = j + 1) begin
        before = ones(f_has & ((7'd1 << j) - 7'd1));
        slot = dut_read_ptr[1:0] + before[1:0];
        entry_in_ram[j] = !(j < f_count && f_has[j])
            || (f_written[slot] && f_ram[slot] == {dut_departure_number + j[2:0],
                                                   f_stamp[SW*j +: SW]});
    end
end

always @(*) begin
    inv_count: assert (f_count <= MAXF && dut_commit_number - dut_departure_number == f_count[2:0]);
    inv_has_within_count: assert ((f_has >> f_count) == {MAXF{1'b0}});
    inv_entries: assert ({1'b0, dut_write_ptr - dut_read_ptr} == f_entries);
    inv_entry_in_ram: assert (&entry_in_ram);
    inv_prev: assert ((!f_prev_push || f_prev_commit)
                      && (!f_prev_commit || f_count != 4'd0)
                      && (!f_prev_push || f_has[f_count - 4'd1]));
    inv_head_valid: assert (dut_head_valid
                            == (dut_write_ptr - {2'd0, f_prev_push} != dut_read_ptr));
    inv_head: assert (!dut_head_valid
                      || (f_written[dut_read_ptr[1:0]] && dut_head == f_ram[dut_read_ptr[1:0]]));
end

// ---------------------------------------------------------------------------------------------
// Covers

reg [MAXF-1:0] f_refused = {MAXF{1'b0}};  // frame j had a stamp and found the FIFO full
reg [4:0]      f_commits = 5'd0;          // commits since reset, for the tag wrap
wire           refused_new = commit && s_valid && !room;
always @(posedge clk) begin
    f_refused <= rst ? {MAXF{1'b0}}
        : (departure ? f_refused >> 1 : f_refused)
          | (commit ? {{MAXF-1{1'b0}}, refused_new} << count_after : {MAXF{1'b0}});
    f_commits <= rst ? 5'd0 : f_commits + {4'd0, commit && f_commits != 5'd31};
end

always @(*) begin
    if (past_valid && !rst) begin
        cover_full: cover (f_entries == 4'd4);
        cover_commit_refused_full: cover (commit && s_valid && !room);
        cover_full_commit_with_pop: cover (commit && s_valid && f_entries == 4'd4 && pop_entry);
        // a frame that found the FIFO full leaves with m_valid 0, a stamped one behind it
        cover_refused_frame_departs: cover (departure && !m_valid && f_refused[0]
                                            && f_count >= 4'd2 && f_has[1]);
        cover_unstamped_between: cover (on_output && m_valid && f_count >= 4'd3 && f_has[0]
                                         && !f_has[1] && f_has[2]);
        cover_departure_two_after_commit: cover (departure && m_valid && f_count == 4'd1
                                                 && !f_prev_commit);
        cover_tags_wrap: cover (departure && m_valid && f_commits >= 5'd9);
    end
end

endmodule

`default_nettype wire
