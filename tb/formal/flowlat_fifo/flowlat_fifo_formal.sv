// SPDX-License-Identifier: BSD-3-Clause
/*
 * flowlat_fifo_formal: the monitor's FIFO (record FIFO of 16, event FIFO of 64), for every
 * input sequence, by k-induction.
 *
 * Instance: WIDTH = 8, DEPTH_LOG2 = 2 (4 entries); proof.toml says why they stand for the
 * real sizes.
 *
 * Assumed: reset in the first clock (free afterwards). Everything else is free: s_data,
 * s_valid, m_ready, the watch choice.
 *
 * The model, from the block's header and docs/flowlat.md: an entry is taken when s_valid and
 * s_ready (push), leaves when m_valid and m_ready (pop); f_count = pushes - pops since reset.
 * A watched entry (chosen freely among those pushed, f_watch) is followed: its data, and how
 * many entries are ahead of it (f_ahead).
 *
 * Proved:
 *   - count_is_held: count = f_count, at most 2^DEPTH_LOG2;
 *   - s_ready_unless_full: s_ready = 0 exactly when 2^DEPTH_LOG2 entries are held (an entry
 *     offered then is refused, not written: the caller counts it lost, as flowlat_core's
 *     events_lost and records_lost do);
 *   - m_valid_unless_empty: m_valid exactly when an entry is held (none read when empty);
 *   - watched_out_in_order: the watched entry leaves after exactly the entries that were
 *     ahead of it when it came (in order), with its own data, and once (f_watching ends).
 *   Invariants: inv_pointers (the RTL's pointers differ by f_count, full is the model's),
 *   inv_watched (the watched entry is in the shadow at read pointer + f_ahead, f_ahead below
 *   f_count).
 *
 * How the RAM is seen (as tb/formal/stamp_meta_fifo/ does): Yosys 0.23 cannot reference
 * dut.entries, so the wrapper keeps a shadow, f_ram, written with the RTL's own write enable
 * (s_valid && !full), write pointer and s_data (links). ram_reads_what_was_written says that
 * m_data is the shadow's word at the RTL's read pointer (when it was written): an assertion in
 * the first F_DEPTH clocks from the initial state, so in every clock of the BMC from reset,
 * and an assumption afterwards, in the induction's last step (there the RTL's RAM contents are
 * free, and f_ram stands for them). Sound for any RTL whose RAM is a memory: choosing
 * f_ram's free initial contents equal to dut.entries' makes the assumption hold in every run.
 * F_DEPTH is the run's clocks (FORMAL_DEPTH: proof.toml's bmc_depth in the BMC, its depth in
 * the induction).
 */

`default_nettype none

module flowlat_fifo_formal (
    input  wire       clk,
    input  wire       rst,
    input  wire [7:0] s_data,
    input  wire       s_valid,
    input  wire       m_ready,
    input  wire       f_watch       // free: watch the entry pushed in this clock
);

localparam W = 8;
localparam D = 2;
localparam N = 1 << D;
localparam F_DEPTH = `FORMAL_DEPTH;  // the run's clocks (tb/formal/formal.py)

wire         s_ready;
wire [W-1:0] m_data;
wire         m_valid;
wire [D:0]   count;

flowlat_fifo #(
    .WIDTH(W),
    .DEPTH_LOG2(D)
) dut (
    .clk(clk),
    .rst(rst),
    .s_data(s_data),
    .s_valid(s_valid),
    .s_ready(s_ready),
    .m_data(m_data),
    .m_valid(m_valid),
    .m_ready(m_ready),
    .count(count)
);

// Internal state (proof.toml links)
wire [D:0] dut_write_index;
wire [D:0] dut_read_index;
wire       dut_full;

// The reset the proof starts from (common/formal_reset.sv)
wire f_past_valid;
formal_reset initial_reset (.clk(clk), .rst(rst), .past_valid(f_past_valid));

// ---------------------------------------------------------------------------------------------
// Model

wire push = s_valid && s_ready;
wire pop = m_valid && m_ready;

reg  [D:0]   f_count = {(D+1){1'b0}};
reg          f_watching = 1'b0;
reg  [W-1:0] f_wdata = {W{1'b0}};
reg  [D:0]   f_ahead = {(D+1){1'b0}};   // entries ahead of the watched one
reg  [D:0]   f_ahead_at_push = {(D+1){1'b0}};   // (for a cover)
reg          f_wrapped = 1'b0;          // the write pointer has wrapped since reset (cover)

always @(posedge clk) begin
    f_count <= f_count + {{D{1'b0}}, push} - {{D{1'b0}}, pop};
    if (f_watching && pop) begin
        if (f_ahead == {(D+1){1'b0}})
            f_watching <= 1'b0;
        else
            f_ahead <= f_ahead - 1'b1;
    end
    if (!f_watching && push && f_watch) begin
        f_watching <= 1'b1;
        f_wdata <= s_data;
        f_ahead <= f_count - {{D{1'b0}}, pop};
        f_ahead_at_push <= f_count - {{D{1'b0}}, pop};
    end
    if (push && dut_write_index == {1'b1, {D{1'b1}}}) f_wrapped <= 1'b1;
    if (rst) begin
        f_count <= {(D+1){1'b0}};
        f_watching <= 1'b0;
        f_wrapped <= 1'b0;
    end
end

// ---------------------------------------------------------------------------------------------
// Shadow of the RAM (see the header)

reg [W-1:0] f_ram [0:N-1];
reg [N-1:0] f_written = {N{1'b0}};   // slots written since the start (free in the induction)
reg [3:0]   f_step = 4'd0;
wire        dut_write = s_valid && !dut_full;

always @(posedge clk) begin
    f_ram[dut_write_index[D-1:0]] <= dut_write ? s_data : f_ram[dut_write_index[D-1:0]];
    f_written <= f_written | ({{(N-1){1'b0}}, dut_write} << dut_write_index[D-1:0]);
    // clocks since the initial state, up to F_DEPTH; not reset: it tells BMC from induction
    if (f_step < F_DEPTH) f_step <= f_step + 4'd1;
end

wire [D-1:0] head_slot = dut_read_index[D-1:0];
always @(*) begin
    if (f_step < F_DEPTH) begin
        if (m_valid && f_written[head_slot])
ram_reads_what_was_written: assert (m_data == f_ram[head_slot]);
    end else begin
        if (m_valid && f_written[head_slot]) assume (m_data == f_ram[head_slot]);
    end
end

// ---------------------------------------------------------------------------------------------
// Properties

wire [D-1:0] watched_slot = dut_read_index[D-1:0] + f_ahead[D-1:0];

always @(*) begin
    if (f_past_valid && !rst) begin
count_is_held: assert (count == f_count && f_count <= N);
s_ready_unless_full: assert (s_ready == (f_count != N));
m_valid_unless_empty: assert (m_valid == (f_count != {(D+1){1'b0}}));
        if (f_watching && pop && f_ahead == {(D+1){1'b0}})
watched_out_in_order: assert (m_data == f_wdata);
inv_pointers: assert (dut_write_index - dut_read_index == f_count
                      && dut_full == (f_count == N));
inv_watched: assert (!f_watching || (f_ahead < f_count && f_written[watched_slot]
                                     && f_ram[watched_slot] == f_wdata));
    end
end

// ---------------------------------------------------------------------------------------------
// Covers

always @(*) begin
    if (f_past_valid && !rst) begin
cover_refused_when_full: cover (s_valid && !s_ready);
cover_push_pop_same_clock: cover (push && pop && f_count == 2);
cover_watched_out_behind_three: cover (f_watching && pop && f_ahead == 0
                                       && f_ahead_at_push == N - 1);
cover_watched_out_wrapped: cover (f_watching && pop && f_ahead == 0 && f_wrapped);
    end
end

endmodule

`default_nettype wire
