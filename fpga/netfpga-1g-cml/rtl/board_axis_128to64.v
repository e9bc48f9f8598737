/*
 * board_axis_128to64: AXI4-Stream width converter, 128 bits in, 64 bits out, one clock: each
 * input word leaves as its low half (bytes 0..7), then its high half (bytes 8..15) if that
 * holds any byte (tkeep[8] set; the XDMA's H2C keep is contiguous from byte 0, so a last word
 * of 8 bytes or fewer leaves as one word). tlast goes with the last half sent. For the XDMA's
 * H2C streams into the switch's 64-bit CPU ports. One word of buffer: the input is taken when
 * the buffer is empty or its last half leaves in that clock (a word per two clocks at full
 * load, the output's rate).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_axis_128to64 (
    input  wire         clk,
    input  wire         rst,     // synchronous, active high
    input  wire [127:0] s_axis_tdata,
    input  wire [15:0]  s_axis_tkeep,
    input  wire         s_axis_tvalid,
    output wire         s_axis_tready,
    input  wire         s_axis_tlast,
    output wire [63:0]  m_axis_tdata,
    output wire [7:0]   m_axis_tkeep,
    output wire         m_axis_tvalid,
    input  wire         m_axis_tready,
    output wire         m_axis_tlast
);

reg [127:0] buf_data;
reg [15:0]  buf_keep;
reg         buf_last;
reg         buf_valid;
reg         high;      // the high half is the one on the output

wire last_half = high || !buf_keep[8];
wire out_done = buf_valid && m_axis_tready && last_half;
wire take = s_axis_tvalid && (!buf_valid || out_done);

always @(posedge clk) begin
    if (rst) begin
        buf_data <= 128'd0;
        buf_keep <= 16'd0;
        buf_last <= 1'b0;
        buf_valid <= 1'b0;
        high <= 1'b0;
    end else begin
        if (take) begin
            buf_data <= s_axis_tdata;
            buf_keep <= s_axis_tkeep;
            buf_last <= s_axis_tlast;
            buf_valid <= 1'b1;
            high <= 1'b0;
        end else if (out_done) begin
            buf_valid <= 1'b0;
            high <= 1'b0;
        end else if (buf_valid && m_axis_tready) begin
            high <= 1'b1;
        end
    end
end

assign s_axis_tready = !buf_valid || out_done;
assign m_axis_tdata = high ? buf_data[127:64] : buf_data[63:0];
assign m_axis_tkeep = high ? buf_keep[15:8] : buf_keep[7:0];
assign m_axis_tlast = buf_last && last_half;
assign m_axis_tvalid = buf_valid;

endmodule

`resetall
