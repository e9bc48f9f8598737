/*
 * board_axis_async_fifo: an AXI4-Stream FIFO between two asynchronous clocks (tdata, tkeep,
 * tlast), 2^ADDR_WIDTH entries in distributed RAM, Gray-coded pointers crossing through 2
 * ASYNC_REG flip-flops each (the classic design: the write side compares its pointer with the
 * synchronized read pointer for full, the read side the other way for empty). Frames are not
 * buffered whole: words pass as they come (cut-through), which is what the CPU ports need
 * between the XDMA and the switch (the switch's input stage and the XDMA both take frames as
 * streams).
 *
 * The output word is registered (m_axis_* are flip-flop outputs, the RAM is read into them).
 *
 * Resets: each side has its own synchronous reset, and each side is also held in reset while
 * the other side's reset is seen (synchronized), so that the pointers restart together. A
 * reset of either side drops what the FIFO holds; a frame cut by it reaches the reader
 * truncated (without tlast: the next frame's words follow it). The board top resets the PCIe
 * side when the XDMA's axi_aresetn is low (link down, hot reset), so only a frame in flight at
 * that moment is affected.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_axis_async_fifo #(
    parameter DATA_WIDTH = 64,
    parameter ADDR_WIDTH = 4
) (
    input  wire                    s_clk,
    input  wire                    s_rst,
    input  wire [DATA_WIDTH-1:0]   s_axis_tdata,
    input  wire [DATA_WIDTH/8-1:0] s_axis_tkeep,
    input  wire                    s_axis_tvalid,
    output wire                    s_axis_tready,
    input  wire                    s_axis_tlast,

    input  wire                    m_clk,
    input  wire                    m_rst,
    output wire [DATA_WIDTH-1:0]   m_axis_tdata,
    output wire [DATA_WIDTH/8-1:0] m_axis_tkeep,
    output wire                    m_axis_tvalid,
    input  wire                    m_axis_tready,
    output wire                    m_axis_tlast
);

localparam WIDTH = DATA_WIDTH + DATA_WIDTH / 8 + 1;
localparam DEPTH = 1 << ADDR_WIDTH;

reg [WIDTH-1:0] mem [0:DEPTH-1];

// ------------------------------------------------------------------------------------------
// Resets: each side's own, or the other side's seen through 2 flip-flops

(* ASYNC_REG = "TRUE" *) reg [1:0] s_other_rst_sync;
(* ASYNC_REG = "TRUE" *) reg [1:0] m_other_rst_sync;
reg s_rst_q;  // s_rst alone, registered (what the other side sees)
reg m_rst_q;

always @(posedge s_clk) begin
    s_rst_q <= s_rst;
    s_other_rst_sync <= {s_other_rst_sync[0], m_rst_q};
end

always @(posedge m_clk) begin
    m_rst_q <= m_rst;
    m_other_rst_sync <= {m_other_rst_sync[0], s_rst_q};
end

wire s_reset = s_rst || s_other_rst_sync[1];
wire m_reset = m_rst || m_other_rst_sync[1];

// ------------------------------------------------------------------------------------------
// Write side

reg [ADDR_WIDTH:0] wr_bin;
reg [ADDR_WIDTH:0] wr_gray;
(* ASYNC_REG = "TRUE" *) reg [ADDR_WIDTH:0] rd_gray_sync0;
(* ASYNC_REG = "TRUE" *) reg [ADDR_WIDTH:0] rd_gray_sync1;

wire [ADDR_WIDTH:0] wr_bin_next = wr_bin + {{ADDR_WIDTH{1'b0}}, 1'b1};
// full: the pointers differ in their two top Gray bits and agree in the rest
wire full = (wr_gray == {~rd_gray_sync1[ADDR_WIDTH:ADDR_WIDTH-1], rd_gray_sync1[ADDR_WIDTH-2:0]});
wire wr_en = s_axis_tvalid && !full && !s_reset;

always @(posedge s_clk) begin
    rd_gray_sync0 <= rd_gray;
    rd_gray_sync1 <= rd_gray_sync0;
    if (s_reset) begin
        wr_bin <= {(ADDR_WIDTH + 1){1'b0}};
        wr_gray <= {(ADDR_WIDTH + 1){1'b0}};
    end else if (wr_en) begin
        wr_bin <= wr_bin_next;
        wr_gray <= wr_bin_next ^ (wr_bin_next >> 1);
    end
end

always @(posedge s_clk) begin
    if (wr_en) begin
        mem[wr_bin[ADDR_WIDTH-1:0]] <= {s_axis_tlast, s_axis_tkeep, s_axis_tdata};
    end
end

assign s_axis_tready = !full && !s_reset;

// ------------------------------------------------------------------------------------------
// Read side

reg [ADDR_WIDTH:0] rd_bin;
reg [ADDR_WIDTH:0] rd_gray;
(* ASYNC_REG = "TRUE" *) reg [ADDR_WIDTH:0] wr_gray_sync0;
(* ASYNC_REG = "TRUE" *) reg [ADDR_WIDTH:0] wr_gray_sync1;
reg [WIDTH-1:0] out_word;
reg             out_valid;

wire [ADDR_WIDTH:0] rd_bin_next = rd_bin + {{ADDR_WIDTH{1'b0}}, 1'b1};
wire empty = (rd_gray == wr_gray_sync1);
// read into the output register when it is empty or being taken
wire rd_en = !empty && (!out_valid || m_axis_tready) && !m_reset;

always @(posedge m_clk) begin
    wr_gray_sync0 <= wr_gray;
    wr_gray_sync1 <= wr_gray_sync0;
    if (m_reset) begin
        rd_bin <= {(ADDR_WIDTH + 1){1'b0}};
        rd_gray <= {(ADDR_WIDTH + 1){1'b0}};
        out_valid <= 1'b0;
    end else begin
        if (rd_en) begin
            rd_bin <= rd_bin_next;
            rd_gray <= rd_bin_next ^ (rd_bin_next >> 1);
            out_valid <= 1'b1;
        end else if (m_axis_tready) begin
            out_valid <= 1'b0;
        end
    end
end

always @(posedge m_clk) begin
    if (rd_en) begin
        out_word <= mem[rd_bin[ADDR_WIDTH-1:0]];
    end
end

assign m_axis_tdata = out_word[DATA_WIDTH-1:0];
assign m_axis_tkeep = out_word[DATA_WIDTH+DATA_WIDTH/8-1:DATA_WIDTH];
assign m_axis_tlast = out_word[WIDTH-1];
assign m_axis_tvalid = out_valid;

endmodule

`resetall
