// SPDX-License-Identifier: BSD-3-Clause
/*
 * switch_output_port_lookup_formal: the learning switch's lookup stage
 * (rtl/switch/switch_output_port_lookup.v) passes its stream unchanged, three pipeline advances
 * late, and tags every frame with the destination mask and source port its header's decision
 * rules give.
 *
 * Instance: TABLE_SIZE = 2 (the smallest allowed: a lowest-index choice between two entries that
 * may both hold the DA, one entry index bit), AGE_TICK_CYCLES = 2 and AGE_WIDTH = 2 (ageing and
 * removal within a few clocks), META_WIDTH = 2. proof.toml says why these stand for the real
 * 32 entries, 1 s ticks and 16-bit ages.
 *
 * Assumed:
 *   - reset in the first clock only;
 *   - AXI4-Stream on s_axis: a word offered (tvalid) and not accepted (tready) is offered again
 *     in the next clock with the same tdata, tkeep, tlast, tuser and meta. tvalid may drop
 *     between words (mid-frame too); m_axis_tready, the table port (writes of any index, valid
 *     or not, static or not), config_ageing_time and the clears are free in every clock;
 *   - after the BMC's clocks, that the RTL's MAC memory compares as the shadow of it says
 *     (table_compare_as_shadow, below).
 *
 * The model (from the header):
 *   - the pipeline moves as a whole on s_axis_tready, bubbles included: f_v1..f_v3 are whether
 *     the words accepted 1, 2 and 3 advances ago were valid; the input's frame position, and
 *     the source and meta of the frame being received (its first word's);
 *   - a watched word: a free choice (f_pick_watch) records a word as it is accepted (data,
 *     keep, last, whether it is a first word, its frame's source and meta) and its stage (1..3,
 *     advanced by s_axis_tready); in stage 3 it must be on m_axis. With f_v1..f_v3 this makes
 *     the output stream exactly the input stream;
 *   - the table as the header defines it: entry_valid_reg and entry_port_reg (links), and a
 *     shadow of the MAC memory (Yosys 0.23 cannot reference a memory), written as the RTL
 *     writes it: a software write of index 0..TABLE_SIZE-1 (from the table_* inputs), else the
 *     RTL's learning write (learn_write, learn_mac_reg: links; which entry learning picks is not
 *     proved here). For a watched first word, in its lookup clock (the clock after its
 *     handshake) the wrapper takes the valid entries holding its DA and every entry's port, and
 *     from them its expected mask by the header's decision rules.
 *
 * Proved by k-induction, each a labelled assertion:
 *   The stream
 *     - ready_as_header: s_axis_tready = m_axis_tready or an empty output register;
 *     - output_valid_as_pipeline: m_axis_tvalid is the validity of the s_axis slot taken three
 *       advances ago (bubbles move with the words): a word out for each word in, no word
 *       added or lost;
 *     - watched_word_out: a watched word is on m_axis after three advances with its tdata,
 *       tkeep and tlast, and with its frame's source (tuser[10:8]) and meta: as any word may
 *       be watched, the words go out unchanged, in order, none lost, duplicated or cut;
 *     - output_stable: a word shown and not taken is shown again unchanged (tuser, meta too);
 *     - latency_three: a watched word accepted in clock t is on m_axis in clock t+3 when
 *       m_axis_tready is high in t+1 and t+2 (counted in clocks, not in advances; any word may
 *       be watched);
 *     - tuser_held_in_frame: every word of a frame after its first carries the first word's
 *       tuser and meta;
 *   The decision (on each frame's first word on m_axis)
 *     - too_short_mask_zero: a one-word frame of fewer than 6 bytes (tkeep contiguous, byte 5
 *       absent) carries mask 0;
 *     - group_floods: a frame with a whole DA whose group bit (bit 0 of byte 0) is set carries
 *       8'hff & ~(1 << source);
 *     - mask_excludes_source: no word ever carries its source port in its mask;
 *     - watched_decision: a watched first word with a whole DA carries the mask the header's
 *       rules give from the table of its lookup clock: flood for a group DA or none of the
 *       valid entries holding the DA, else the lowest-index valid entry's port p: 0 (filtered)
 *       when p is the source, 1 << p otherwise (any first word may be watched: every frame);
 *     - table_compare_as_shadow: the RTL's compare in a lookup clock equals the shadow's (valid
 *       entries whose MAC is the DA): an assertion in the first F_DEPTH clocks after the
 *       initial state, so in every clock of the BMC from reset, and an assumption afterwards
 *       (the induction's last step), as switch_queue's RAM shadow: sound for any RTL whose MACs
 *       are a memory written as the shadow is (choose the shadow's free initial contents equal
 *       to it). F_DEPTH is the run's clocks (FORMAL_DEPTH: proof.toml's bmc_depth in the
 *       BMC, its depth in the induction).
 *   Invariants for the induction (inv_*): the RTL's pipeline registers equal the model (the
 *   validity of each stage, the framing of the words in flight, the frame's source and meta,
 *   the watched word's contents and its lookup result in each stage).
 *
 * Not proved: learning (which entry a source MAC goes to, with which MAC and port: the shadow
 * follows the RTL's own learning writes, and the ports are the RTL's entry_port_reg), ageing
 * (which entries it removes: the valid bits are the RTL's), the read port, the counters. The
 * MAC compares are checked only in the BMC's F_DEPTH clocks from reset (which include a lookup
 * of a learned entry: cover_learned_compare_checked) and assumed in the induction.
 */

`default_nettype none

module switch_output_port_lookup_formal (
    input  wire        clk,
    input  wire        rst,
    input  wire [63:0] s_axis_tdata,
    input  wire [7:0]  s_axis_tkeep,
    input  wire        s_axis_tvalid,
    input  wire        s_axis_tlast,
    input  wire [2:0]  s_axis_tuser,
    input  wire [1:0]  s_axis_meta,
    input  wire        m_axis_tready,
    input  wire        table_write,
    input  wire [7:0]  table_index,
    input  wire [47:0] table_mac,
    input  wire [2:0]  table_port,
    input  wire        table_valid,
    input  wire        table_static,
    input  wire [1:0]  config_ageing_time,
    input  wire [5:0]  command_clear,
    // Free choice of the check: watch the word accepted in this clock
    input  wire        f_pick_watch
);

localparam TABLE_SIZE = 2;
localparam F_DEPTH = `FORMAL_DEPTH;  // the run's clocks (tb/formal/formal.py)

wire        s_axis_tready;
wire [63:0] m_axis_tdata;
wire [7:0]  m_axis_tkeep;
wire        m_axis_tvalid;
wire        m_axis_tlast;
wire [10:0] m_axis_tuser;
wire [1:0]  m_axis_meta;
wire [47:0] table_read_mac;
wire [2:0]  table_read_port;
wire        table_read_valid;
wire        table_read_static;
wire [1:0]  table_read_age;
wire [63:0] status_frames_looked_up;
wire [63:0] status_frames_flooded;
wire [63:0] status_frames_filtered;
wire [63:0] status_frames_too_short;
wire [63:0] status_entries_learned;
wire [63:0] status_entries_aged_out;

switch_output_port_lookup #(
    .TABLE_SIZE(TABLE_SIZE),
    .AGE_TICK_CYCLES(2),
    .AGE_WIDTH(2),
    .META_WIDTH(2)
) dut (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .s_axis_tuser(s_axis_tuser),
    .s_axis_meta(s_axis_meta),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser),
    .m_axis_meta(m_axis_meta),
    .table_write(table_write),
    .table_index(table_index),
    .table_mac(table_mac),
    .table_port(table_port),
    .table_valid(table_valid),
    .table_static(table_static),
    .table_read_mac(table_read_mac),
    .table_read_port(table_read_port),
    .table_read_valid(table_read_valid),
    .table_read_static(table_read_static),
    .table_read_age(table_read_age),
    .config_ageing_time(config_ageing_time),
    .command_clear_frames_looked_up(command_clear[0]),
    .command_clear_frames_flooded(command_clear[1]),
    .command_clear_frames_filtered(command_clear[2]),
    .command_clear_frames_too_short(command_clear[3]),
    .command_clear_entries_learned(command_clear[4]),
    .command_clear_entries_aged_out(command_clear[5]),
    .status_frames_looked_up(status_frames_looked_up),
    .status_frames_flooded(status_frames_flooded),
    .status_frames_filtered(status_frames_filtered),
    .status_frames_too_short(status_frames_too_short),
    .status_entries_learned(status_entries_learned),
    .status_entries_aged_out(status_entries_aged_out)
);

// Internal state of the RTL (proof.toml links). A linked wire is used only as an operand, never
// alone as an `if` condition (see switch_queue_formal.sv).
wire        f_p1_valid;     // dut.p1_valid_reg
wire [63:0] f_p1_data;      // dut.p1_data_reg
wire [7:0]  f_p1_keep;      // dut.p1_keep_reg
wire        f_p1_last;      // dut.p1_last_reg
wire        f_p1_first;     // dut.p1_first_reg
wire [2:0]  f_p1_source;    // dut.p1_source_reg
wire [1:0]  f_p1_meta;      // dut.p1_meta_reg
wire        f_p1_fresh;     // dut.p1_fresh_reg
wire [1:0]  f_held_hit;     // dut.held_hit_reg
wire [5:0]  f_held_port;    // dut.held_port_reg
wire        f_p2_valid;     // dut.p2_valid_reg
wire [63:0] f_p2_data;      // dut.p2_data_reg
wire [7:0]  f_p2_keep;      // dut.p2_keep_reg
wire        f_p2_last;      // dut.p2_last_reg
wire        f_p2_first;     // dut.p2_first_reg
wire [2:0]  f_p2_source;    // dut.p2_source_reg
wire [1:0]  f_p2_meta;      // dut.p2_meta_reg
wire [1:0]  f_p2_hit;       // dut.p2_hit_reg
wire [5:0]  f_p2_port;      // dut.p2_port_reg
wire        f_in_frame_reg; // dut.in_frame_reg
wire [1:0]  f_entry_valid;  // dut.entry_valid_reg
wire [5:0]  f_entry_port;   // dut.entry_port_reg
wire [1:0]  f_learn_write;  // dut.learn_write
wire [47:0] f_learn_mac;    // dut.learn_mac_reg
wire [1:0]  f_dest_hit;     // dut.destination_hit_now

// The reset the proof starts from, and rst low after it (common/formal_reset.sv)
wire f_past_valid;
formal_reset #(.ONCE(1)) initial_reset (.clk(clk), .rst(rst), .past_valid(f_past_valid));

// ---------------------------------------------------------------------------------------------
// The input: AXI4-Stream, a word offered and not accepted is offered again unchanged

wire f_in_hs = s_axis_tvalid && s_axis_tready;
wire f_out_hs = m_axis_tvalid && m_axis_tready;

reg        f_pend = 1'b0;
reg [63:0] f_prev_tdata = 64'd0;
reg [7:0]  f_prev_tkeep = 8'd0;
reg        f_prev_tlast = 1'b0;
reg [2:0]  f_prev_tuser = 3'd0;
reg [1:0]  f_prev_meta = 2'd0;

always @(posedge clk) begin
    f_pend <= s_axis_tvalid && !s_axis_tready && !rst;
    f_prev_tdata <= s_axis_tdata;
    f_prev_tkeep <= s_axis_tkeep;
    f_prev_tlast <= s_axis_tlast;
    f_prev_tuser <= s_axis_tuser;
    f_prev_meta <= s_axis_meta;
end

always @(*) begin
    if (f_pend) begin
        assume (s_axis_tvalid);
        assume (s_axis_tdata == f_prev_tdata && s_axis_tkeep == f_prev_tkeep
                && s_axis_tlast == f_prev_tlast && s_axis_tuser == f_prev_tuser
                && s_axis_meta == f_prev_meta);
    end
end

// ---------------------------------------------------------------------------------------------
// The model: the pipeline's slots, the input's frames, the output's frames

wire f_advance = !m_axis_tvalid || m_axis_tready;  // the header's rule for s_axis_tready

reg f_v1 = 1'b0;
reg f_v2 = 1'b0;
reg f_v3 = 1'b0;

// Input side: inside a frame, and the frame's source and meta (its first word's)
reg       f_in_frame = 1'b0;
reg [2:0] f_src = 3'd0;
reg [1:0] f_meta = 2'd0;
wire       f_first_now = !f_in_frame;
wire [2:0] f_src_now = f_first_now ? s_axis_tuser : f_src;
wire [1:0] f_meta_now = f_first_now ? s_axis_meta : f_meta;

// Output side: inside a frame (a word taken without tlast), and its tuser and meta
reg        f_out_frame = 1'b0;
reg [10:0] f_out_tuser = 11'd0;
reg [1:0]  f_out_meta = 2'd0;

always @(posedge clk) begin
    if (s_axis_tready) begin
        f_v1 <= s_axis_tvalid;
        f_v2 <= f_v1;
        f_v3 <= f_v2;
    end
    if (f_in_hs) begin
        f_in_frame <= !s_axis_tlast;
        f_src <= f_src_now;
        f_meta <= f_meta_now;
    end
    if (f_out_hs) begin
        f_out_frame <= !m_axis_tlast;
        f_out_tuser <= m_axis_tuser;
        f_out_meta <= m_axis_meta;
    end
    if (rst) begin
        f_v1 <= 1'b0;
        f_v2 <= 1'b0;
        f_v3 <= 1'b0;
        f_in_frame <= 1'b0;
        f_out_frame <= 1'b0;
    end
end

// ---------------------------------------------------------------------------------------------
// The table (header: "the table in clock c"): valid bits and ports of the RTL, a shadow of MACs

reg [47:0] f_mac0;
reg [47:0] f_mac1;
wire       f_sw_write = table_write && table_index < TABLE_SIZE;

always @(posedge clk) begin
    f_mac0 <= (f_sw_write && table_index == 8'd0) ? table_mac
        : (f_learn_write[0] ? f_learn_mac : f_mac0);
    f_mac1 <= (f_sw_write && table_index == 8'd1) ? table_mac
        : (f_learn_write[1] ? f_learn_mac : f_mac1);
end

// The DA of a first word, in table order (byte 0 in bits 47:40)
function [47:0] da_of;
    input [63:0] data;
    begin
        da_of = {data[7:0], data[15:8], data[23:16], data[31:24], data[39:32], data[47:40]};
    end
endfunction

// The valid entries holding a first word's DA, in the table of this clock
function [1:0] hits_of;
    input [63:0] data;
    input [1:0]  valid;
    input [47:0] mac0;
    input [47:0] mac1;
    begin
        hits_of = {valid[1] && mac1 == da_of(data), valid[0] && mac0 == da_of(data)};
    end
endfunction

// The header's decision for a frame with a whole DA
function [7:0] decision_of;
    input       group;
    input [1:0] hits;
    input [5:0] ports;
    input [2:0] source;
    reg   [2:0] port;
    begin
        port = hits[0] ? ports[2:0] : ports[5:3];
        if (group || hits == 2'b00)
            decision_of = 8'hff & ~(8'd1 << source);
        else if (port == source)
            decision_of = 8'd0;
        else
            decision_of = 8'd1 << port;
    end
endfunction

// Byte count of a word by the header: bytes 0..5 there (a whole DA), or fewer than 6 bytes
// from byte 0 (a contiguous tkeep without byte 5)
function whole_da;
    input       last;
    input [7:0] keep;
    begin
        whole_da = last ? (keep[5:0] == 6'h3f) : (keep == 8'hff);
    end
endfunction

function too_short;
    input       last;
    input [7:0] keep;
    begin
        too_short = last && ((keep & (keep + 8'd1)) == 8'd0) && !keep[5];
    end
endfunction

// clocks since the initial state, up to F_DEPTH; not reset: it tells the BMC from the induction
reg [2:0] f_step = 3'd0;
always @(posedge clk) begin
    if (f_step < F_DEPTH) f_step <= f_step + 3'd1;
end

wire [1:0] f_shadow_hit = hits_of(f_p1_data, f_entry_valid, f_mac0, f_mac1);

always @(*) begin
    if (f_step < F_DEPTH) begin
        if (f_p1_fresh)
            table_compare_as_shadow: assert (f_dest_hit == f_shadow_hit);
    end else begin
        if (f_p1_fresh)
            assume (f_dest_hit == f_shadow_hit);
    end
end

// p1_fresh: the clock after a first word's handshake
reg f_past_fresh = 1'b0;
always @(posedge clk) begin
    f_past_fresh <= f_in_hs && f_first_now && !rst;
end


// ---------------------------------------------------------------------------------------------
// The watched word

reg        f_watch = 1'b0;
reg [1:0]  f_w_stage = 2'd0;
reg [63:0] f_w_data = 64'd0;
reg [7:0]  f_w_keep = 8'd0;
reg        f_w_last = 1'b0;
reg        f_w_first = 1'b0;
reg [2:0]  f_w_src = 3'd0;
reg [1:0]  f_w_meta = 2'd0;
reg        f_w_fresh = 1'b0;      // this clock is its lookup clock (a first word in stage 1)
reg        f_w_looked = 1'b0;     // its lookup is done (a first word, after its lookup clock)
reg [1:0]  f_w_hit = 2'd0;        // the valid entries holding its DA in its lookup clock
reg [5:0]  f_w_ports = 6'd0;      // every entry's port in its lookup clock
reg [1:0]  f_w_clocks = 2'd0;     // clocks since its handshake (saturating at 3)
reg        f_w_stalled = 1'b0;    // m_axis_tready was low in one of those clocks

wire [7:0] f_w_mask = decision_of(f_w_data[0], f_w_hit, f_w_ports, f_w_src);

always @(posedge clk) begin
    f_w_fresh <= 1'b0;
    if (!f_watch) begin
        if (f_in_hs && f_pick_watch) begin
            f_watch <= 1'b1;
            f_w_stage <= 2'd1;
            f_w_data <= s_axis_tdata;
            f_w_keep <= s_axis_tkeep;
            f_w_last <= s_axis_tlast;
            f_w_first <= f_first_now;
            f_w_src <= f_src_now;
            f_w_meta <= f_meta_now;
            f_w_fresh <= f_first_now;
            f_w_looked <= 1'b0;
            f_w_clocks <= 2'd1;
            f_w_stalled <= 1'b0;
        end
    end else begin
        if (f_w_clocks != 2'd3) f_w_clocks <= f_w_clocks + 2'd1;
        if (!m_axis_tready) f_w_stalled <= 1'b1;
        if (f_w_fresh) begin
            f_w_hit <= f_shadow_hit;
            f_w_ports <= f_entry_port;
            f_w_looked <= 1'b1;
        end
        if (s_axis_tready) begin
            if (f_w_stage == 2'd3)
                f_watch <= 1'b0;
            else
                f_w_stage <= f_w_stage + 2'd1;
        end
    end
    if (rst) begin
        f_watch <= 1'b0;
        f_w_fresh <= 1'b0;
    end
end

// ---------------------------------------------------------------------------------------------
// Properties

// The framing of the words in flight: whether the next word of each stage starts a frame
wire f_frame_after3 = (m_axis_tvalid ? !m_axis_tlast : f_out_frame);
wire f_frame_after2 = (f_p2_valid ? !f_p2_last : f_frame_after3);
// The source and meta of the frame of each stage's word
wire [2:0] f_src3 = m_axis_tuser[10:8];
wire [2:0] f_src2 = (f_p2_valid && f_p2_first) ? f_p2_source : f_src3;
wire [2:0] f_src1 = (f_p1_valid && f_p1_first) ? f_p1_source : f_src2;
wire [1:0] f_meta3 = m_axis_meta;
wire [1:0] f_meta2 = (f_p2_valid && f_p2_first) ? f_p2_meta : f_meta3;
wire [1:0] f_meta1 = (f_p1_valid && f_p1_first) ? f_p1_meta : f_meta2;

wire f_out_first = m_axis_tvalid && !f_out_frame;
wire [7:0] f_mask = m_axis_tuser[7:0];
wire [2:0] f_out_src = m_axis_tuser[10:8];

always @(*) begin
    if (f_past_valid && !rst) begin
        // The stream
        ready_as_header: assert (s_axis_tready == f_advance);
        output_valid_as_pipeline: assert (m_axis_tvalid == f_v3);
        if (f_watch && f_w_stage == 2'd3)
            watched_word_out: assert (m_axis_tvalid && m_axis_tdata == f_w_data
                                      && m_axis_tkeep == f_w_keep && m_axis_tlast == f_w_last
                                      && f_out_src == f_w_src && m_axis_meta == f_w_meta
                                      && f_out_first == f_w_first);
        // (also between the words of a frame, while the output register is empty)
        if (f_out_frame)
            tuser_held_in_frame: assert (m_axis_tuser == f_out_tuser && m_axis_meta == f_out_meta);

        // The decision
        if (f_out_first && too_short(m_axis_tlast, m_axis_tkeep))
            too_short_mask_zero: assert (f_mask == 8'd0);
        if (f_out_first && whole_da(m_axis_tlast, m_axis_tkeep) && m_axis_tdata[0])
            group_floods: assert (f_mask == (8'hff & ~(8'd1 << f_out_src)));
        // (also while the output register is empty: its tuser is the last frame's)
        mask_excludes_source: assert ((f_mask & (8'd1 << f_out_src)) == 8'd0);
        if (f_watch && f_w_stage == 2'd3 && f_w_first && whole_da(f_w_last, f_w_keep))
            watched_decision: assert (f_mask == f_w_mask);

        // Invariants for the induction
        inv_pipeline_valid: assert (f_p1_valid == f_v1 && f_p2_valid == f_v2);
        inv_framing: assert ((!f_p2_valid || f_p2_first == !f_frame_after3)
                             && (!f_p1_valid || f_p1_first == !f_frame_after2)
                             && f_in_frame_reg == f_in_frame
                             && f_in_frame == (f_p1_valid ? !f_p1_last : f_frame_after2)
                             && (!f_in_frame || (f_src == f_src1 && f_meta == f_meta1)));
        inv_fresh: assert (f_p1_fresh == (f_p1_valid && f_p1_first && f_past_fresh));
        if (f_watch) begin
            inv_watch_stage: assert (f_w_stage != 2'd0
                                     && f_w_fresh == (f_w_first && f_w_stage == 2'd1 && !f_w_looked)
                                     && f_w_looked == (f_w_first && !f_w_fresh)
                                     && (f_w_stage != 2'd1 || f_p1_fresh == f_w_fresh)
                                     && (f_w_stalled || f_w_stage == f_w_clocks));
            if (f_w_stage == 2'd1)
                inv_watch_p1: assert (f_p1_valid && f_p1_data == f_w_data && f_p1_keep == f_w_keep
                                      && f_p1_last == f_w_last && f_p1_first == f_w_first
                                      && f_src1 == f_w_src && f_meta1 == f_w_meta
                                      && (!f_w_looked || (f_held_hit == f_w_hit
                                                          && f_held_port == f_w_ports)));
            if (f_w_stage == 2'd2)
                inv_watch_p2: assert (f_p2_valid && f_p2_data == f_w_data && f_p2_keep == f_w_keep
                                      && f_p2_last == f_w_last && f_p2_first == f_w_first
                                      && f_src2 == f_w_src && f_meta2 == f_w_meta
                                      && (!f_w_first || (f_p2_hit == f_w_hit
                                                         && f_p2_port == f_w_ports)));
        end
    end
end


always @(posedge clk) begin
    if (f_past_valid && !$past(rst)) begin
        if ($past(m_axis_tvalid && !m_axis_tready))
            output_stable: assert (m_axis_tvalid && m_axis_tdata == $past(m_axis_tdata)
                                   && m_axis_tkeep == $past(m_axis_tkeep)
                                   && m_axis_tlast == $past(m_axis_tlast)
                                   && m_axis_tuser == $past(m_axis_tuser)
                                   && m_axis_meta == $past(m_axis_meta));
    end
    if (f_watch && f_w_clocks == 2'd3 && !f_w_stalled)
        latency_three: assert (f_w_stage == 2'd3 && m_axis_tvalid && m_axis_tdata == f_w_data);
end

// ---------------------------------------------------------------------------------------------
// Covers: the behaviour the properties speak of is reachable from reset

reg f_prev_last_out = 1'b0;   // a tlast taken on m_axis in the clock before
reg f_prev_stall = 1'b0;      // m_axis stalled in the clock before
reg f_in_bubble = 1'b0;       // tvalid dropped inside the input's current frame
reg f_any_sw_write = 1'b0;    // software wrote the table since reset
always @(posedge clk) begin
    f_prev_last_out <= f_out_hs && m_axis_tlast;
    f_prev_stall <= m_axis_tvalid && !m_axis_tready;
    if (f_in_frame && !s_axis_tvalid) f_in_bubble <= 1'b1;
    if (f_in_hs && s_axis_tlast) f_in_bubble <= 1'b0;
    if (table_write) f_any_sw_write <= 1'b1;
    if (rst) begin
        f_prev_last_out <= 1'b0;
        f_prev_stall <= 1'b0;
        f_in_bubble <= 1'b0;
        f_any_sw_write <= 1'b0;
    end
end

wire f_w_unicast_case = f_watch && f_w_stage == 2'd3 && f_w_first && whole_da(f_w_last, f_w_keep)
    && !f_w_data[0];

always @(*) begin
    if (f_past_valid && !rst) begin
        // frames back to back on the output: a tlast taken, a first word taken in the next clock
        cover_back_to_back: cover (f_prev_last_out && f_out_hs && !f_out_frame && !m_axis_tlast);
        // a stalled word inside a frame taken
        cover_stall_released: cover (f_prev_stall && f_out_hs && f_out_frame);
        // a mid-frame tvalid drop at the input, and the frame's tlast accepted after it
        cover_mid_frame_drop: cover (f_in_bubble && f_in_hs && s_axis_tlast);
        // a watched non-first word out, through a stall
        cover_watched_word_out: cover (f_watch && f_w_stage == 2'd3 && !f_w_first && f_w_last
                                       && f_out_hs && f_prev_stall);
        cover_too_short: cover (f_out_first && too_short(m_axis_tlast, m_axis_tkeep));
        cover_group_flood: cover (f_out_first && whole_da(m_axis_tlast, m_axis_tkeep)
                                  && m_axis_tdata[0] && !m_axis_tlast);
        // the table's decisions: a unicast DA learned from an earlier frame (no software
        // write since reset) goes to its port; one in the table on the source port is filtered;
        // one not in the table floods; one in both entries goes by the lowest index
        cover_learned_unicast: cover (f_w_unicast_case && !f_any_sw_write && f_w_hit != 2'b00
                                      && f_mask != 8'd0);
        cover_filtered: cover (f_w_unicast_case && f_w_hit != 2'b00 && f_mask == 8'd0);
        cover_unknown_floods: cover (f_w_unicast_case && f_w_hit == 2'b00 && f_entry_valid != 2'b00);
        cover_duplicate_lowest: cover (f_w_unicast_case && f_w_hit == 2'b11
                                       && f_w_ports[2:0] != f_w_ports[5:3] && f_mask != 8'd0);
        // within the clocks where table_compare_as_shadow is an assertion (the BMC's), a lookup
        // hits an entry that learning wrote (no software write since reset)
        cover_learned_compare_checked: cover (f_step < F_DEPTH && f_p1_fresh
                                              && f_shadow_hit != 2'b00 && !f_any_sw_write);
    end
end

always @(posedge clk) begin
    if (f_past_valid && !rst)
        cover_latency_three: cover (f_watch && f_w_clocks == 2'd3 && !f_w_stalled && f_out_hs
                                    && $past(f_out_hs));
end

endmodule

`default_nettype wire
