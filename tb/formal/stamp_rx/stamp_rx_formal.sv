// SPDX-License-Identifier: BSD-3-Clause
/*
 * stamp_rx_formal: the RX timestamp point (rtl/stamp/stamp_rx.v) gives each frame of a MAC
 * port the stamp its header and docs/timestamps.md say, on every word, by k-induction.
 *
 * Assumed: reset in the first clock (later resets free); the time of day's nanoseconds below
 * 10^9 in every clock (time_clock keeps them so: tb/formal/time_clock/), and the MAC stamp's
 * nanoseconds below 10^9 in the clocks where s_rx_stamp_valid is set (a MAC stamp is a sample
 * of that time of day). Nothing else: the handshakes (tvalid, tready, tlast of all 8 inputs),
 * the time of day, the MAC stamps and the corrections are free in every clock. The properties
 * hold for any handshake sequence, so the AXI4-Stream rules of the inputs (a word not accepted
 * offered again unchanged) are not needed and not assumed.
 *
 * A model per MAC port (in the checker stamp_rx_port_check, instantiated for each of ports
 * 0..3, so each label is one test point covering the 4 ports): whether a frame is open (a
 * handshake without tlast opens one, a handshake with tlast closes it), and the inputs of the
 * last frame's stamp: the time (s_rx_stamp when s_rx_stamp_valid, else the time of day) and the
 * correction rx_correction of the clock of its first word's handshake.
 *
 * "out = in + c" below is the relation proved of stamp_correct in tb/formal/stamp_correct/:
 * out's nanoseconds below 10^9 and (same second, out_ns = in_ns + c) or (next second,
 * out_ns + 10^9 = in_ns + c) or (previous second, out_ns = in_ns + c + 10^9), seconds modulo
 * 2^32: the exact sum as a time, with additions only. It is written here again from the
 * header, not by instantiating stamp_correct, so the stamp is checked against the arithmetic
 * itself.
 *
 * Proved, per MAC port i, in every clock:
 *   - the metadata's valid bit is 1;
 *   - no frame open (the word shown is a first word): the slice is the MAC stamp + this
 *     clock's rx_correction when s_rx_stamp_valid, else this clock's time of day + this
 *     clock's rx_correction (so in the first word's handshake clock, the frame's stamp);
 *   - a frame open (a later word): the slice is the frame's stamp (its first word's inputs and
 *     correction), whatever the MAC stamp, its valid bit, the time of day and the correction
 *     do now;
 *   - last_rx is the last frame's stamp from its first word's handshake on, until the next
 *     first word's handshake, 0 before any frame since reset; it changes only in the clock
 *     after a first word's handshake;
 *   - (invariant) the RTL's in-frame bit equals the model's;
 * and the CPU ports' slices (4..7) are 0.
 * Covers: a MAC-stamped and a fallback frame of 3 words accepted with their later words
 * showing the held stamp while the MAC stamp and time of day show other values, a one-word
 * frame, frames back to back, a stamp carried into the next and borrowed from the previous
 * second by the correction, a valid MAC stamp on a later word ignored, a first word offered
 * and not accepted.
 */

`default_nettype none

module stamp_rx_formal (
    input  wire          clk,
    input  wire          rst,
    input  wire [7:0]    s_axis_tvalid,
    input  wire [7:0]    s_axis_tready,
    input  wire [7:0]    s_axis_tlast,
    input  wire [31:0]   tod_seconds,
    input  wire [29:0]   tod_nanoseconds,
    input  wire [4*62-1:0] s_rx_stamp,
    input  wire [3:0]      s_rx_stamp_valid,
    input  wire [4*30-1:0] rx_correction
);

wire [8*63-1:0] m_meta;
wire [4*62-1:0] last_rx;

stamp_rx dut (
    .clk(clk),
    .rst(rst),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .tod_seconds(tod_seconds),
    .tod_nanoseconds(tod_nanoseconds),
    .s_rx_stamp(s_rx_stamp),
    .s_rx_stamp_valid(s_rx_stamp_valid),
    .rx_correction(rx_correction),
    .m_meta(m_meta),
    .last_rx(last_rx)
);

// the RTL's in-frame bits (links), for the invariant that closes the induction
wire [3:0] dut_in_frame;

// The reset the proof starts from (common/formal_reset.sv)
wire past_valid;
formal_reset initial_reset (.clk(clk), .rst(rst), .past_valid(past_valid));

always @(*) begin
    assume (tod_nanoseconds < 30'd1000000000);
end

always @(*) begin
    cpu_slices_zero: assert (m_meta[8*63-1:4*63] == {4*63{1'b0}});
end

// the stamps' nanoseconds below 10^9 where they are valid
integer k;
always @(*) begin
    for (k = 0; k < 4; k = k + 1)
        if (s_rx_stamp_valid[k]) assume (s_rx_stamp[62*k +: 30] < 30'd1000000000);
end

// one checker per MAC port, instantiated one by one rather than by a generate loop, so that
// the runner's Verilator replay can name their registers
stamp_rx_port_check check0 (
    .clk(clk),
    .rst(rst),
    .past_valid(past_valid),
    .handshake(s_axis_tvalid[0] && s_axis_tready[0]),
    .tvalid(s_axis_tvalid[0]),
    .tlast(s_axis_tlast[0]),
    .tod({tod_seconds, tod_nanoseconds}),
    .mac_stamp(s_rx_stamp[0 +: 62]),
    .mac_valid(s_rx_stamp_valid[0]),
    .correction(rx_correction[0 +: 30]),
    .meta(m_meta[0 +: 63]),
    .last_rx(last_rx[0 +: 62]),
    .dut_in_frame(dut_in_frame[0])
);

stamp_rx_port_check check1 (
    .clk(clk),
    .rst(rst),
    .past_valid(past_valid),
    .handshake(s_axis_tvalid[1] && s_axis_tready[1]),
    .tvalid(s_axis_tvalid[1]),
    .tlast(s_axis_tlast[1]),
    .tod({tod_seconds, tod_nanoseconds}),
    .mac_stamp(s_rx_stamp[62 +: 62]),
    .mac_valid(s_rx_stamp_valid[1]),
    .correction(rx_correction[30 +: 30]),
    .meta(m_meta[63 +: 63]),
    .last_rx(last_rx[62 +: 62]),
    .dut_in_frame(dut_in_frame[1])
);

stamp_rx_port_check check2 (
    .clk(clk),
    .rst(rst),
    .past_valid(past_valid),
    .handshake(s_axis_tvalid[2] && s_axis_tready[2]),
    .tvalid(s_axis_tvalid[2]),
    .tlast(s_axis_tlast[2]),
    .tod({tod_seconds, tod_nanoseconds}),
    .mac_stamp(s_rx_stamp[124 +: 62]),
    .mac_valid(s_rx_stamp_valid[2]),
    .correction(rx_correction[60 +: 30]),
    .meta(m_meta[126 +: 63]),
    .last_rx(last_rx[124 +: 62]),
    .dut_in_frame(dut_in_frame[2])
);

stamp_rx_port_check check3 (
    .clk(clk),
    .rst(rst),
    .past_valid(past_valid),
    .handshake(s_axis_tvalid[3] && s_axis_tready[3]),
    .tvalid(s_axis_tvalid[3]),
    .tlast(s_axis_tlast[3]),
    .tod({tod_seconds, tod_nanoseconds}),
    .mac_stamp(s_rx_stamp[186 +: 62]),
    .mac_valid(s_rx_stamp_valid[3]),
    .correction(rx_correction[90 +: 30]),
    .meta(m_meta[189 +: 63]),
    .last_rx(last_rx[186 +: 62]),
    .dut_in_frame(dut_in_frame[3])
);

endmodule

// The properties of one MAC port (a module, so that each label is one name in its 4 instances)
module stamp_rx_port_check (
    input  wire        clk,
    input  wire        rst,
    input  wire        past_valid,
    input  wire        handshake,
    input  wire        tvalid,
    input  wire        tlast,
    input  wire [61:0] tod,
    input  wire [61:0] mac_stamp,
    input  wire        mac_valid,
    input  wire [29:0] correction,
    input  wire [62:0] meta,
    input  wire [61:0] last_rx,
    input  wire        dut_in_frame
);

`include "formal_time_sum.vh"

// the model: a frame open, the last frame's stamp inputs
reg        f_in_frame = 1'b0;
reg        f_have = 1'b0;
reg [61:0] f_in = 62'd0;
reg [29:0] f_correction = 30'd0;

wire [61:0] source = mac_valid ? mac_stamp : tod;
wire        first_handshake = handshake && !f_in_frame;

always @(posedge clk) begin
    if (handshake) f_in_frame <= !tlast;
    if (first_handshake) begin
        f_have <= 1'b1;
        f_in <= source;
        f_correction <= correction;
    end
    if (rst) begin
        f_in_frame <= 1'b0;
        f_have <= 1'b0;
    end
end

// the clock before, for last_rx's hold
reg        prev_rst = 1'b1;
reg        prev_first_handshake = 1'b0;
reg [61:0] prev_last_rx = 62'd0;
always @(posedge clk) begin
    prev_rst <= rst;
    prev_first_handshake <= first_handshake;
    prev_last_rx <= last_rx;
end

always @(*) begin
    meta_valid_bit: assert (meta[62]);
    in_frame_matches: assert (dut_in_frame == f_in_frame);

    if (!f_in_frame && mac_valid)
        first_word_mac_stamp: assert (time_sum_ok(meta[61:0], mac_stamp, correction));
    if (!f_in_frame && !mac_valid)
        first_word_fallback: assert (time_sum_ok(meta[61:0], tod, correction));
    if (f_in_frame)
        later_words_held: assert (meta[61:0] == last_rx);

    if (f_have)
        last_rx_is_stamp: assert (time_sum_ok(last_rx, f_in, f_correction));
    if (!f_have)
        last_rx_zero_before_frame: assert (last_rx == 62'd0);
    if (past_valid && !prev_rst && !prev_first_handshake)
        last_rx_held: assert (last_rx == prev_last_rx);
end

// covers: a frame of 3 words, MAC-stamped and fallback, its later words shown with the held
// stamp while the current MAC stamp, its valid bit and the time of day differ
reg [2:0] words = 3'd0;        // words of the open frame accepted so far
reg       frame_mac = 1'b0;    // the open frame was MAC-stamped
reg       prev_last = 1'b0;    // the clock before accepted a tlast
always @(posedge clk) begin
    if (handshake) words <= tlast ? 3'd0 : (words == 3'd7 ? words : words + 3'd1);
    if (first_handshake) frame_mac <= mac_valid;
    prev_last <= handshake && tlast;
    if (rst) begin
        words <= 3'd0;
        prev_last <= 1'b0;
    end
end

always @(*) begin
    if (past_valid && !rst) begin
        cover_mac_frame_3_words: cover (handshake && tlast && words == 3'd2 && frame_mac
                                        && mac_valid && mac_stamp != f_in && tod != f_in);
        cover_fallback_frame_3_words: cover (handshake && tlast && words == 3'd2 && !frame_mac
                                             && tod != f_in && correction != f_correction);
        cover_one_word_frame: cover (first_handshake && tlast && f_have);
        cover_back_to_back: cover (first_handshake && prev_last && !mac_valid);
        cover_next_second: cover (first_handshake && meta[61:30] == source[61:30] + 32'd1);
        cover_previous_second: cover (first_handshake && mac_valid
                                      && meta[61:30] == source[61:30] - 32'd1);
        cover_first_word_waits: cover (tvalid && !handshake && !f_in_frame && f_have);
    end
end

endmodule

`default_nettype wire
