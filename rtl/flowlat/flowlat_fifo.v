/*
 * flowlat_fifo: a synchronous first-in first-out queue of WIDTH-bit entries, 2^DEPTH_LOG2
 * deep, with valid/ready on both sides (docs/flowlat.md): the monitor's queue of records
 * between the ports and the flow table, and of events between the table and the exporter.
 * The head is shown on m_data while m_valid; it leaves when m_ready. s_ready is 0 when full.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module flowlat_fifo #(
    // Bits per entry
    parameter WIDTH = 8,
    // log2 of the number of entries
    parameter DEPTH_LOG2 = 4
) (
    input  wire             clk,
    input  wire             rst,

    // Entries in
    input  wire [WIDTH-1:0] s_data,
    input  wire             s_valid,
    output wire             s_ready,

    // Entries out, oldest first
    output wire [WIDTH-1:0] m_data,
    output wire             m_valid,
    input  wire             m_ready,

    // How many entries it holds
    output wire [DEPTH_LOG2:0] count
);

reg [WIDTH-1:0]    entries[0:(1 << DEPTH_LOG2)-1];
reg [DEPTH_LOG2:0] write_index = {(DEPTH_LOG2+1){1'b0}};
reg [DEPTH_LOG2:0] read_index = {(DEPTH_LOG2+1){1'b0}};

wire empty = write_index == read_index;
wire full = write_index == {~read_index[DEPTH_LOG2], read_index[DEPTH_LOG2-1:0]};

assign s_ready = !full;
assign m_valid = !empty;
assign m_data = entries[read_index[DEPTH_LOG2-1:0]];
assign count = write_index - read_index;

always @(posedge clk) begin
    if (s_valid && !full) begin
        entries[write_index[DEPTH_LOG2-1:0]] <= s_data;
        write_index <= write_index + 1'b1;
    end
    if (m_ready && !empty)
        read_index <= read_index + 1'b1;
    if (rst) begin
        write_index <= {(DEPTH_LOG2+1){1'b0}};
        read_index <= {(DEPTH_LOG2+1){1'b0}};
    end
end

endmodule

`resetall
