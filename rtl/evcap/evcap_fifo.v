/*
 * evcap_fifo: synchronous first-word-fall-through FIFO, block RAM plus one output register.
 *
 * The event-capture pipeline uses it three times (records, packet ring, descriptors). Its
 * timing is part of the block's contract (docs/evcap-architecture.md, "Common FIFO") because
 * the reference model reproduces when the FIFO is full:
 *
 * - The RAM holds 2^DEPTH_LOG2 entries and the output register one more. `full` means the RAM
 *   is full (the output register does not count).
 * - A word written in cycle n is at the output (m_valid) in cycle n+2 at the earliest.
 * - A consumer that pops every clock (m_ready with m_valid) gets one entry per clock.
 * - Writes while `full` are ignored; the writer checks `full` first.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module evcap_fifo #(
    // Width of one entry in bits
    parameter WIDTH = 64,
    // log2 of the number of entries held in RAM
    parameter DEPTH_LOG2 = 9
) (
    input  wire                  clk,
    input  wire                  rst,

    // Write side
    input  wire [WIDTH-1:0]      s_data,
    input  wire                  s_valid,
    output wire                  full,

    // Read side (first word falls through)
    output wire [WIDTH-1:0]      m_data,
    output wire                  m_valid,
    input  wire                  m_ready
);

// Elaboration-time check in plain Verilog-2001: a bad parameter instantiates a module that
// does not exist, and the error message names the problem.
generate
    if (DEPTH_LOG2 < 1 || DEPTH_LOG2 > 16) begin : check_depth
        evcap_fifo_error_DEPTH_LOG2_must_be_1_to_16 bad_parameter();
    end
endgenerate

localparam [DEPTH_LOG2:0] DEPTH = {1'b1, {DEPTH_LOG2{1'b0}}};
localparam [DEPTH_LOG2:0] ONE = {{DEPTH_LOG2{1'b0}}, 1'b1};

reg [WIDTH-1:0] mem[0:(2**DEPTH_LOG2)-1];

reg [DEPTH_LOG2:0] wr_ptr_reg = {DEPTH_LOG2+1{1'b0}};
reg [DEPTH_LOG2:0] rd_ptr_reg = {DEPTH_LOG2+1{1'b0}};
reg [WIDTH-1:0]    m_data_reg = {WIDTH{1'b0}};
reg                m_valid_reg = 1'b0;

wire ram_empty = wr_ptr_reg == rd_ptr_reg;
wire write = s_valid && !full;
wire read = !ram_empty && (!m_valid_reg || m_ready);

wire [DEPTH_LOG2:0] level = wr_ptr_reg - rd_ptr_reg;

assign full = level == DEPTH;
assign m_data = m_data_reg;
assign m_valid = m_valid_reg;

// RAM write and registered read, kept free of reset so synthesis maps them to block RAM
always @(posedge clk) begin
    if (write) begin
        mem[wr_ptr_reg[DEPTH_LOG2-1:0]] <= s_data;
    end
    if (read) begin
        m_data_reg <= mem[rd_ptr_reg[DEPTH_LOG2-1:0]];
    end
end

always @(posedge clk) begin
    if (write) begin
        wr_ptr_reg <= wr_ptr_reg + ONE;
    end
    if (read) begin
        rd_ptr_reg <= rd_ptr_reg + ONE;
        m_valid_reg <= 1'b1;
    end else if (m_ready) begin
        m_valid_reg <= 1'b0;
    end

    if (rst) begin
        wr_ptr_reg <= {DEPTH_LOG2+1{1'b0}};
        rd_ptr_reg <= {DEPTH_LOG2+1{1'b0}};
        m_valid_reg <= 1'b0;
    end
end

endmodule

`resetall
