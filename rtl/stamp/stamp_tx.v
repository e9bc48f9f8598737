/*
 * stamp_tx: the TX timestamp point of the MAC ports and the residence time
 * (docs/timestamps.md).
 *
 * Watches the switch's output handshakes (after the stat-packet multiplexer, so stat packets
 * are stamped too). The TX stamp of a frame towards MAC port i is the time of day of the clock
 * in which its first word is taken (m_axis_tvalid[i] && m_axis_tready[i] with no frame open on
 * that output), plus tx_correction[i]:
 *
 *   time of day --> stamp_correct (+ tx_correction[i]) --> tx_stamp[i]  (every clock: the value
 *                                                          |             in the handshake clock
 *   rx_stamp[i], rx_valid[i] (the frame's RX stamp) ----.  |             is the stamp)
 *                                                       v  v
 *                                     residence[i] = tx_stamp[i] - rx_stamp[i], signed ns
 *
 *   first-word handshake of port i --> last_tx[i] <= tx_stamp[i];
 *                                      last_residence[i] <= residence[i] when rx_valid[i]
 *
 * The residence time is TX first bit minus RX first bit in nanoseconds, 32 bits signed: exact
 * while the stamps' seconds differ by -1, 0 or 1 (so within 2 s of each other); otherwise it
 * saturates at -2^31 or 2^31 - 1, even where the difference would fit (seconds 2 apart,
 * stamps 1.5 s apart): possible only when the clock was set or stepped by seconds while the
 * frame was queued. 0 when the frame has no RX stamp.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module stamp_tx (
    input  wire            clk,
    input  wire            rst,

    // The switch's output handshakes of the MAC ports, port i in bit i
    input  wire [3:0]      m_axis_tvalid,
    input  wire [3:0]      m_axis_tready,
    input  wire [3:0]      m_axis_tlast,

    // RX stamp of the frame on output i ({seconds[31:0], nanoseconds[29:0]} in bits 62i+61:62i)
    // and whether it has one
    input  wire [4*62-1:0] rx_stamp,
    input  wire [3:0]      rx_valid,

    // Time of day: low 32 bits of the seconds, nanoseconds
    input  wire [31:0]     tod_seconds,
    input  wire [29:0]     tod_nanoseconds,

    // Signed nanosecond corrections, MAC port i in bits 30i+29:30i
    input  wire [4*30-1:0] tx_correction,

    // TX stamp of this clock for port i (bits 62i+61:62i) and the residence time of the frame
    // on output i (bits 32i+31:32i, signed ns), valid in the clock of its first word's handshake
    output wire [4*62-1:0] tx_stamp,
    output wire [4*32-1:0] residence,

    // Stamps of the last frame of port i: TX stamp, and residence of the last one with an RX stamp
    output wire [4*62-1:0] last_tx,
    output wire [4*32-1:0] last_residence
);

localparam [31:0] BILLION = 32'd1000000000;

reg [3:0]      in_frame_reg = 4'd0;
reg [4*62-1:0] last_tx_reg = {4*62{1'b0}};
reg [4*32-1:0] last_residence_reg = {4*32{1'b0}};

wire [3:0] first_handshake = m_axis_tvalid & m_axis_tready & ~in_frame_reg;

genvar i;
generate
    for (i = 0; i < 4; i = i + 1) begin : port
        stamp_correct correct_inst (
            .in_seconds(tod_seconds),
            .in_nanoseconds(tod_nanoseconds),
            .correction(tx_correction[30*i +: 30]),
            .out_seconds(tx_stamp[62*i+30 +: 32]),
            .out_nanoseconds(tx_stamp[62*i +: 30])
        );

        wire [31:0] seconds_diff = tx_stamp[62*i+30 +: 32] - rx_stamp[62*i+30 +: 32];
        wire [31:0] nanoseconds_diff = {2'b00, tx_stamp[62*i +: 30]} - {2'b00, rx_stamp[62*i +: 30]};
        reg  [31:0] difference;
        always @* begin
            if (seconds_diff == 32'd0) begin
                difference = nanoseconds_diff;
            end else if (seconds_diff == 32'd1) begin
                difference = nanoseconds_diff + BILLION;
            end else if (seconds_diff == 32'hffffffff) begin
                difference = nanoseconds_diff - BILLION;
            end else begin
                difference = seconds_diff[31] ? 32'h80000000 : 32'h7fffffff;
            end
        end
        assign residence[32*i +: 32] = rx_valid[i] ? difference : 32'd0;
    end
endgenerate

assign last_tx = last_tx_reg;
assign last_residence = last_residence_reg;

integer p;
always @(posedge clk) begin
    for (p = 0; p < 4; p = p + 1) begin
        if (m_axis_tvalid[p] && m_axis_tready[p]) begin
            in_frame_reg[p] <= !m_axis_tlast[p];
        end
        if (first_handshake[p]) begin
            last_tx_reg[62*p +: 62] <= tx_stamp[62*p +: 62];
            if (rx_valid[p]) begin
                last_residence_reg[32*p +: 32] <= residence[32*p +: 32];
            end
        end
    end

    if (rst) begin
        in_frame_reg <= 4'd0;
        last_tx_reg <= {4*62{1'b0}};
        last_residence_reg <= {4*32{1'b0}};
    end
end

endmodule

`resetall
