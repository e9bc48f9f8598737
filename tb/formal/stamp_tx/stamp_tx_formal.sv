// SPDX-License-Identifier: BSD-3-Clause
/*
 * stamp_tx_formal: the TX timestamp point and the residence time (rtl/stamp/stamp_tx.v), as
 * its header and docs/timestamps.md say, by k-induction.
 *
 * Assumed: reset in the first clock (later resets free); the time of day's nanoseconds below
 * 10^9 in every clock (time_clock keeps them so: tb/formal/time_clock/), and the RX stamp's
 * nanoseconds below 10^9 where rx_valid is set (it is a stamp_rx output: tb/formal/stamp_rx/).
 * Nothing else: the handshakes, the RX stamps and their valid bits, the time of day and the
 * corrections are free in every clock (so the properties hold for any handshake sequence; the
 * AXI4-Stream rules are not needed and not assumed).
 *
 * Per MAC port (the checker stamp_tx_port_check, instantiated for each of ports 0..3: each
 * label is one test point covering the 4 ports), a model: whether a frame is open on the output
 * (a handshake without tlast opens one, with tlast closes it), so a first-word handshake is a
 * handshake with no frame open; and the last TX stamp and last residence as the header says
 * they are written (tx_stamp and residence of the last first-word handshake, the residence only
 * when rx_valid), 0 from reset.
 *
 * "out = in + c" is the relation proved of stamp_correct in tb/formal/stamp_correct/, written
 * again here with additions only (out's nanoseconds below 10^9; same, next or previous
 * second). The residence's reference: with k = tx seconds - rx seconds (modulo 2^32, signed),
 * the difference of the two stamps as times is k * 10^9 + tx_ns - rx_ns; k * 10^9 is a
 * constant for each k in -1, 0, 1, compared in 34 bits so that no 32-bit overflow can hide.
 *
 * Proved, per MAC port, in every clock:
 *   - tx_stamp = time of day + tx_correction of this clock (so in a first word's handshake
 *     clock it is the frame's TX stamp);
 *   - residence: 0 without rx_valid; with it, exactly tx_stamp - rx_stamp in signed ns when
 *     their seconds differ by -1, 0 or 1 (the 34-bit difference equals the 32-bit output
 *     sign-extended: no wrap); otherwise -2^31 when tx's seconds are behind rx's (modulo 2^32,
 *     signed), 2^31 - 1 when ahead;
 *   - last_tx = the tx_stamp of the last first-word handshake (0 before any), so it changes
 *     exactly at first-word handshakes, not at later words;
 *   - last_residence = the residence of the last first-word handshake with rx_valid (0 before
 *     any), held through first words without rx_valid;
 *   - (invariant) the RTL's in-frame bit equals the model's.
 * Covers: residences with seconds differing by 0, 1, -1 (negative), saturation both ways, a
 * residence saturated although the exact difference (1 to 2 s, seconds differing by 2) would
 * fit in 32 bits (the header's "less than about 2.1 s apart" is the seconds differing by -1,
 * 0 or 1, not the distance), a 3-word frame, a first word without RX stamp holding
 * last_residence, frames back to back, a first word offered and not taken.
 */

`default_nettype none

module stamp_tx_formal (
    input  wire            clk,
    input  wire            rst,
    input  wire [3:0]      m_axis_tvalid,
    input  wire [3:0]      m_axis_tready,
    input  wire [3:0]      m_axis_tlast,
    input  wire [4*62-1:0] rx_stamp,
    input  wire [3:0]      rx_valid,
    input  wire [31:0]     tod_seconds,
    input  wire [29:0]     tod_nanoseconds,
    input  wire [4*30-1:0] tx_correction
);

wire [4*62-1:0] tx_stamp;
wire [4*32-1:0] residence;
wire [4*62-1:0] last_tx;
wire [4*32-1:0] last_residence;

stamp_tx dut (
    .clk(clk),
    .rst(rst),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .rx_stamp(rx_stamp),
    .rx_valid(rx_valid),
    .tod_seconds(tod_seconds),
    .tod_nanoseconds(tod_nanoseconds),
    .tx_correction(tx_correction),
    .tx_stamp(tx_stamp),
    .residence(residence),
    .last_tx(last_tx),
    .last_residence(last_residence)
);

// the RTL's in-frame bits (links), for the invariant that closes the induction
wire [3:0] dut_in_frame;

// The reset the proof starts from (common/formal_reset.sv)
wire past_valid;
formal_reset initial_reset (.clk(clk), .rst(rst), .past_valid(past_valid));

always @(*) begin
    assume (tod_nanoseconds < 30'd1000000000);
end

// the stamps' nanoseconds below 10^9 where they are valid
integer k;
always @(*) begin
    for (k = 0; k < 4; k = k + 1)
        if (rx_valid[k]) assume (rx_stamp[62*k +: 30] < 30'd1000000000);
end

// one checker per MAC port, instantiated one by one rather than by a generate loop, so that
// the runner's Verilator replay can name their registers
stamp_tx_port_check check0 (
    .clk(clk),
    .rst(rst),
    .past_valid(past_valid),
    .tvalid(m_axis_tvalid[0]),
    .handshake(m_axis_tvalid[0] && m_axis_tready[0]),
    .tlast(m_axis_tlast[0]),
    .rx_stamp(rx_stamp[0 +: 62]),
    .rx_valid(rx_valid[0]),
    .tod({tod_seconds, tod_nanoseconds}),
    .correction(tx_correction[0 +: 30]),
    .tx_stamp(tx_stamp[0 +: 62]),
    .residence(residence[0 +: 32]),
    .last_tx(last_tx[0 +: 62]),
    .last_residence(last_residence[0 +: 32]),
    .dut_in_frame(dut_in_frame[0])
);

stamp_tx_port_check check1 (
    .clk(clk),
    .rst(rst),
    .past_valid(past_valid),
    .tvalid(m_axis_tvalid[1]),
    .handshake(m_axis_tvalid[1] && m_axis_tready[1]),
    .tlast(m_axis_tlast[1]),
    .rx_stamp(rx_stamp[62 +: 62]),
    .rx_valid(rx_valid[1]),
    .tod({tod_seconds, tod_nanoseconds}),
    .correction(tx_correction[30 +: 30]),
    .tx_stamp(tx_stamp[62 +: 62]),
    .residence(residence[32 +: 32]),
    .last_tx(last_tx[62 +: 62]),
    .last_residence(last_residence[32 +: 32]),
    .dut_in_frame(dut_in_frame[1])
);

stamp_tx_port_check check2 (
    .clk(clk),
    .rst(rst),
    .past_valid(past_valid),
    .tvalid(m_axis_tvalid[2]),
    .handshake(m_axis_tvalid[2] && m_axis_tready[2]),
    .tlast(m_axis_tlast[2]),
    .rx_stamp(rx_stamp[124 +: 62]),
    .rx_valid(rx_valid[2]),
    .tod({tod_seconds, tod_nanoseconds}),
    .correction(tx_correction[60 +: 30]),
    .tx_stamp(tx_stamp[124 +: 62]),
    .residence(residence[64 +: 32]),
    .last_tx(last_tx[124 +: 62]),
    .last_residence(last_residence[64 +: 32]),
    .dut_in_frame(dut_in_frame[2])
);

stamp_tx_port_check check3 (
    .clk(clk),
    .rst(rst),
    .past_valid(past_valid),
    .tvalid(m_axis_tvalid[3]),
    .handshake(m_axis_tvalid[3] && m_axis_tready[3]),
    .tlast(m_axis_tlast[3]),
    .rx_stamp(rx_stamp[186 +: 62]),
    .rx_valid(rx_valid[3]),
    .tod({tod_seconds, tod_nanoseconds}),
    .correction(tx_correction[90 +: 30]),
    .tx_stamp(tx_stamp[186 +: 62]),
    .residence(residence[96 +: 32]),
    .last_tx(last_tx[186 +: 62]),
    .last_residence(last_residence[96 +: 32]),
    .dut_in_frame(dut_in_frame[3])
);

endmodule

// The properties of one MAC port (a module, so that each label is one name in its 4 instances)
module stamp_tx_port_check (
    input  wire        clk,
    input  wire        rst,
    input  wire        past_valid,
    input  wire        tvalid,
    input  wire        handshake,
    input  wire        tlast,
    input  wire [61:0] rx_stamp,
    input  wire        rx_valid,
    input  wire [61:0] tod,
    input  wire [29:0] correction,
    input  wire [61:0] tx_stamp,
    input  wire [31:0] residence,
    input  wire [61:0] last_tx,
    input  wire [31:0] last_residence,
    input  wire        dut_in_frame
);

`include "formal_time_sum.vh"

// the residence's reference
wire [31:0]        seconds_apart = tx_stamp[61:30] - rx_stamp[61:30];
wire signed [33:0] ns_apart = $signed({4'd0, tx_stamp[29:0]}) - $signed({4'd0, rx_stamp[29:0]});
wire signed [33:0] res_wide = $signed({{2{residence[31]}}, residence});
wire same_second = seconds_apart == 32'd0;
wire one_ahead = seconds_apart == 32'd1;
wire one_behind = seconds_apart == 32'hffffffff;
wire exact_range = same_second || one_ahead || one_behind;
wire signed [33:0] exact = ns_apart
    + (one_ahead ? TIME_SUM_BILLION : one_behind ? -TIME_SUM_BILLION : 34'sd0);

// the model
reg        f_in_frame = 1'b0;
reg [61:0] f_last_tx = 62'd0;
reg [31:0] f_last_residence = 32'd0;
wire       first_handshake = handshake && !f_in_frame;

always @(posedge clk) begin
    if (handshake) f_in_frame <= !tlast;
    if (first_handshake) begin
        f_last_tx <= tx_stamp;
        if (rx_valid) f_last_residence <= residence;
    end
    if (rst) begin
        f_in_frame <= 1'b0;
        f_last_tx <= 62'd0;
        f_last_residence <= 32'd0;
    end
end

always @(*) begin
    in_frame_matches: assert (dut_in_frame == f_in_frame);
    tx_stamp_is_tod_plus_correction: assert (time_sum_ok(tx_stamp, tod, correction));

    if (!rx_valid)
        residence_zero_without_rx: assert (residence == 32'd0);
    if (rx_valid && exact_range)
        residence_exact: assert (res_wide == exact);
    if (rx_valid && !exact_range)
        residence_saturates: assert (residence == (seconds_apart[31] ? 32'h80000000
                                                                    : 32'h7fffffff));

    last_tx_at_first_words: assert (last_tx == f_last_tx);
    last_residence_at_first_words: assert (last_residence == f_last_residence);
end

// covers
reg [2:0] words = 3'd0;        // words of the open frame taken so far
reg       prev_last = 1'b0;    // the clock before took a tlast
always @(posedge clk) begin
    if (handshake) words <= tlast ? 3'd0 : (words == 3'd7 ? words : words + 3'd1);
    prev_last <= handshake && tlast;
    if (rst) begin
        words <= 3'd0;
        prev_last <= 1'b0;
    end
end

// the exact difference when the seconds differ by 2: 10^9 < 2 * 10^9 + ns_apart < 2^31
wire signed [33:0] two_apart = ns_apart + TIME_SUM_BILLION + TIME_SUM_BILLION;

always @(*) begin
    if (past_valid && !rst) begin
        cover_residence_same_second: cover (first_handshake && rx_valid && same_second
                                            && residence != 32'd0);
        cover_residence_one_ahead: cover (first_handshake && rx_valid && one_ahead);
        cover_residence_negative: cover (first_handshake && rx_valid && one_behind);
        cover_saturated_high: cover (first_handshake && rx_valid && residence == 32'h7fffffff);
        cover_saturated_low: cover (first_handshake && rx_valid && residence == 32'h80000000);
        cover_saturated_though_fits: cover (first_handshake && rx_valid
                                            && seconds_apart == 32'd2
                                            && two_apart < 34'sd2000000000);
        cover_frame_3_words: cover (handshake && tlast && words == 3'd2
                                    && tx_stamp != f_last_tx);
        cover_first_word_without_rx: cover (first_handshake && !rx_valid
                                            && last_residence != 32'd0);
        cover_back_to_back: cover (first_handshake && prev_last && rx_valid);
        cover_first_word_waits: cover (tvalid && !handshake && !f_in_frame
                                       && last_tx != 62'd0);
    end
end

endmodule

`default_nettype wire
