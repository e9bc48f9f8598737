/*
 * stamp_rx: the RX timestamp point of the MAC ports (docs/timestamps.md).
 *
 * Watches the switch's input handshakes. The RX stamp of a frame from MAC port i (i < 4) is
 * the MAC's stamp of it, s_rx_stamp[i] (the time of day the MAC sampled in the clock the
 * frame's first bit arrived on the wire), if s_rx_stamp_valid[i] is set with the frame's first
 * word; otherwise (fallback, a MAC without timestamping) the time of day of the clock in which
 * its first word is accepted (s_axis_tvalid[i] && s_axis_tready[i] with no frame open on that
 * input). Either way rx_correction[i] is added. It goes with every word of the frame as
 * metadata (m_meta, slice i: {valid, seconds[31:0], nanoseconds[29:0]}), into the input
 * arbiter next to the word:
 *
 *   no frame open on port i:  first[i] = (s_rx_stamp_valid[i] ? s_rx_stamp[i] : time of day)
 *                                        + rx_correction[i]
 *   s_axis handshake, first word of port i --> held[i] <= first[i]
 *   m_meta[i] = {1, first word: first[i], later words: held[i]}
 *
 * The addition is stamp_correct's arithmetic as a function, called only while no frame is open
 * (in a frame nothing reads first[i]: it is 0 there): a cycle simulator (Verilator), which
 * evaluates every expression in every clock, then adds nothing during a frame.
 *
 * CPU ports (4..7) carry no stamp: their slices are all zero (valid bit 0). held[i] is also
 * the last RX stamp of port i (last_rx, for the registers).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module stamp_rx (
    input  wire          clk,
    input  wire          rst,

    // The switch's input handshakes, port i in bit i (only 0..3 are looked at)
    input  wire [7:0]    s_axis_tvalid,
    input  wire [7:0]    s_axis_tready,
    input  wire [7:0]    s_axis_tlast,

    // Time of day: low 32 bits of the seconds, nanoseconds
    input  wire [31:0]   tod_seconds,
    input  wire [29:0]   tod_nanoseconds,

    // The MAC's RX stamps, valid with the first word of a frame: {seconds[31:0],
    // nanoseconds[29:0]} of MAC port i in bits 62i+61:62i, valid in bit i (read only in the
    // clock of a first word's handshake)
    input  wire [4*62-1:0] s_rx_stamp,
    input  wire [3:0]      s_rx_stamp_valid,

    // Signed nanosecond corrections, MAC port i in bits 30i+29:30i
    input  wire [4*30-1:0] rx_correction,

    // Metadata of each input's current word, port i in bits 63i+62:63i:
    // {valid, seconds[31:0], nanoseconds[29:0]}; valid is 0 on the CPU ports
    output wire [8*63-1:0] m_meta,

    // RX stamp of the last frame of MAC port i ({seconds, nanoseconds}), bits 62i+61:62i
    output wire [4*62-1:0] last_rx
);

reg  [3:0]      in_frame_reg = 4'd0;

wire [3:0] handshake = s_axis_tvalid[3:0] & s_axis_tready[3:0];

// A time plus a signed correction (-2^29 .. 2^29 - 1 ns), {seconds[31:0], nanoseconds[29:0]}:
// stamp_correct's arithmetic (rtl/stamp/stamp_correct.v, proved in tb/formal/stamp_correct/)
function [61:0] corrected;
    input [61:0] stamp;
    input [29:0] correction;
    reg   [31:0] sum;
    reg          below;
    reg          above;
    begin
        sum = {2'b00, stamp[29:0]} + {{2{correction[29]}}, correction};
        below = sum[31];
        above = !sum[31] && sum >= 32'd1000000000;
        // 0 .. 999 999 999 after the wrap: modulo 2^30 is exact
        corrected = {below ? stamp[61:30] - 32'd1 : above ? stamp[61:30] + 32'd1 : stamp[61:30],
                     below ? sum[29:0] + 30'd1000000000
                           : above ? sum[29:0] - 30'd1000000000 : sum[29:0]};
    end
endfunction

// Each port's values in registers of their own, 62 bits wide: a cycle simulator handles a
// 62-bit value as one machine word, where slices of a 248-bit vector cost a shift and a mask
// for each of its words
genvar i;
generate
    for (i = 0; i < 4; i = i + 1) begin : port
        reg  [61:0] first;             // the RX stamp of a first word in this clock, 0 in a frame
        reg  [61:0] held_reg = 62'd0;  // the frame's RX stamp, from its first word on

        // (one addition of the stamp the frame takes: two, one per stamp, are proved at once
        // where this takes the solver a minute, but a simulator then makes both in every
        // clock, 370 instructions more)
        always @* begin
            first = 62'd0;
            if (!in_frame_reg[i]) begin
                first = corrected(s_rx_stamp_valid[i] ? s_rx_stamp[62*i +: 62]
                                                      : {tod_seconds, tod_nanoseconds},
                                  rx_correction[30*i +: 30]);
            end
        end

        always @(posedge clk) begin
            if (rst) begin
                held_reg <= 62'd0;
            end else if (handshake[i] && !in_frame_reg[i]) begin
                held_reg <= first;
            end
        end

        assign m_meta[63*i +: 63] = {1'b1, in_frame_reg[i] ? held_reg : first};
        assign last_rx[62*i +: 62] = held_reg;
    end
endgenerate

assign m_meta[8*63-1:4*63] = {4*63{1'b0}};

// The CPU ports are not stamped
wire unused = &{1'b0, s_axis_tvalid[7:4], s_axis_tready[7:4], s_axis_tlast[7:4]};

integer p;
always @(posedge clk) begin
    for (p = 0; p < 4; p = p + 1) begin
        if (handshake[p]) begin
            in_frame_reg[p] <= !s_axis_tlast[p];
        end
    end

    if (rst) begin
        in_frame_reg <= 4'd0;
    end
end

endmodule

`resetall
