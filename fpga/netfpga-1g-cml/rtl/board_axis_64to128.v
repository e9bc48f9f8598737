/*
 * board_axis_64to128: AXI4-Stream width converter, 64 bits in, 128 bits out, one clock: two
 * input words make one output word (the first in bytes 0..7, the second in bytes 8..15); a
 * frame's last word in the low half leaves alone, with the high half's tkeep 0 (the keep stays
 * contiguous from byte 0, as the XDMA's C2H wants). For the switch's 64-bit CPU ports into the
 * XDMA's C2H streams. The output is a register; the input is taken while it is free or being
 * taken.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_axis_64to128 (
    input  wire         clk,
    input  wire         rst,     // synchronous, active high
    input  wire [63:0]  s_axis_tdata,
    input  wire [7:0]   s_axis_tkeep,
    input  wire         s_axis_tvalid,
    output wire         s_axis_tready,
    input  wire         s_axis_tlast,
    output wire [127:0] m_axis_tdata,
    output wire [15:0]  m_axis_tkeep,
    output wire         m_axis_tvalid,
    input  wire         m_axis_tready,
    output wire         m_axis_tlast
);

reg [63:0]  low_data;   // the first word of a pair
reg [7:0]   low_keep;
reg         have_low;
reg [127:0] out_data;
reg [15:0]  out_keep;
reg         out_last;
reg         out_valid;

wire take = s_axis_tvalid && (!out_valid || m_axis_tready);

always @(posedge clk) begin
    if (rst) begin
        low_data <= 64'd0;
        low_keep <= 8'd0;
        have_low <= 1'b0;
        out_data <= 128'd0;
        out_keep <= 16'd0;
        out_last <= 1'b0;
        out_valid <= 1'b0;
    end else begin
        if (out_valid && m_axis_tready) begin
            out_valid <= 1'b0;
        end
        if (take) begin
            if (have_low) begin
                out_data <= {s_axis_tdata, low_data};
                out_keep <= {s_axis_tkeep, low_keep};
                out_last <= s_axis_tlast;
                out_valid <= 1'b1;
                have_low <= 1'b0;
            end else if (s_axis_tlast) begin
                out_data <= {64'd0, s_axis_tdata};
                out_keep <= {8'd0, s_axis_tkeep};
                out_last <= 1'b1;
                out_valid <= 1'b1;
            end else begin
                low_data <= s_axis_tdata;
                low_keep <= s_axis_tkeep;
                have_low <= 1'b1;
            end
        end
    end
end

assign s_axis_tready = !out_valid || m_axis_tready;
assign m_axis_tdata = out_data;
assign m_axis_tkeep = out_keep;
assign m_axis_tlast = out_last;
assign m_axis_tvalid = out_valid;

endmodule

`resetall
