/*
 * switch_input_arbiter: merges the 8 input streams of the switch into one, a whole frame at a
 * time, round robin (docs/switch-architecture.md, "switch_input_arbiter").
 *
 * Input i is slice i of each flattened bus (s_axis_tdata[64*i +: 64], s_axis_tkeep[8*i +: 8],
 * bit i of s_axis_tvalid, s_axis_tready and s_axis_tlast); ports 0..3 are the MAC receive
 * sides, 4..7 the CPU transmit sides. The output carries the input number in tuser on every
 * word of the frame, and each word's metadata (s_axis_meta, META_WIDTH bits per input, an
 * extension of tuser: the wire timestamps of rtl/stamp/) with it, unchanged.
 *
 *   s_axis[0] --.
 *   s_axis[1] --+--> select --> output register --> m_axis (tuser = input number)
 *      ...      |      ^
 *   s_axis[7] --'      |
 *                  grant: kept from a frame's first word to its tlast; between frames, the
 *                  first input with tvalid after the last granted one, in order i+1, ..., i+8
 *
 * Timing, clock by clock:
 * - A word accepted from an input in clock t is on m_axis in clock t+1 (one output register).
 * - The register is refilled in the clock it is read, so the output can carry one word per
 *   clock, and the first word of the next frame is accepted in the clock after the previous
 *   frame's tlast was accepted: no idle clock between frames when another input is waiting.
 * - Between frames the choice is made in the clock of the first word's handshake, among the
 *   inputs with tvalid in that clock. After reset input 0 has the first turn.
 * - While the output is stalled (m_axis_tvalid and not m_axis_tready), no input is accepted;
 *   otherwise s_axis_tready is high for the granted input only (for the input that would be
 *   granted, between frames), so a stall on the output stalls nobody but that input.
 * - A granted input that drops tvalid in the middle of its frame keeps the grant; the output
 *   goes idle until it resumes.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module switch_input_arbiter #(
    // Bits of metadata per input, passed through with each word like tuser (at least 1)
    parameter META_WIDTH = 1
) (
    input  wire            clk,
    input  wire            rst,

    // 8 input streams, input i in slice i
    input  wire [8*64-1:0] s_axis_tdata,
    input  wire [8*8-1:0]  s_axis_tkeep,
    input  wire [7:0]      s_axis_tvalid,
    output wire [7:0]      s_axis_tready,
    input  wire [7:0]      s_axis_tlast,
    // Metadata of each input's current word, input i in slice i
    input  wire [8*META_WIDTH-1:0] s_axis_meta,

    // Merged stream; tuser = input number, on every word
    output wire [63:0]     m_axis_tdata,
    output wire [7:0]      m_axis_tkeep,
    output wire            m_axis_tvalid,
    input  wire            m_axis_tready,
    output wire            m_axis_tlast,
    output wire [2:0]      m_axis_tuser,
    // Metadata of the word on m_axis (taken with it from its input)
    output wire [META_WIDTH-1:0] m_axis_meta
);

// In a frame, the input that owns the output; between frames, the last one served, from
// which the round robin starts
reg [2:0]  grant_reg = 3'd7;
reg        in_frame_reg = 1'b0;

reg [63:0] m_axis_tdata_reg = 64'd0;
reg [7:0]  m_axis_tkeep_reg = 8'd0;
reg        m_axis_tvalid_reg = 1'b0;
reg        m_axis_tlast_reg = 1'b0;
reg [2:0]  m_axis_tuser_reg = 3'd0;
reg [META_WIDTH-1:0] m_axis_meta_reg = {META_WIDTH{1'b0}};

// First input with tvalid in round-robin order after grant_reg. Offset 8 (grant_reg itself)
// comes last; the loop runs backwards so that the smallest offset is assigned last and wins.
reg [2:0] next_input;
integer offset;
always @* begin
    next_input = grant_reg;
    for (offset = 8; offset >= 1; offset = offset - 1) begin
        if (s_axis_tvalid[grant_reg + offset[2:0]]) begin
            next_input = grant_reg + offset[2:0];
        end
    end
end

wire [2:0] selected = in_frame_reg ? grant_reg : next_input;

// The output register can take a word when it is empty or being read in this clock
wire output_free = !m_axis_tvalid_reg || m_axis_tready;
wire take = output_free && s_axis_tvalid[selected];

assign s_axis_tready = output_free ? (8'd1 << selected) : 8'd0;

assign m_axis_tdata = m_axis_tdata_reg;
assign m_axis_tkeep = m_axis_tkeep_reg;
assign m_axis_tvalid = m_axis_tvalid_reg;
assign m_axis_tlast = m_axis_tlast_reg;
assign m_axis_tuser = m_axis_tuser_reg;
assign m_axis_meta = m_axis_meta_reg;

always @(posedge clk) begin
    if (take) begin
        m_axis_tdata_reg <= s_axis_tdata[64*selected +: 64];
        m_axis_tkeep_reg <= s_axis_tkeep[8*selected +: 8];
        m_axis_tlast_reg <= s_axis_tlast[selected];
        m_axis_tuser_reg <= selected;
        m_axis_meta_reg <= s_axis_meta[META_WIDTH*selected +: META_WIDTH];
        m_axis_tvalid_reg <= 1'b1;
        grant_reg <= selected;
        in_frame_reg <= !s_axis_tlast[selected];
    end else if (output_free) begin
        m_axis_tvalid_reg <= 1'b0;
    end

    if (rst) begin
        grant_reg <= 3'd7;
        in_frame_reg <= 1'b0;
        m_axis_tvalid_reg <= 1'b0;
        m_axis_tdata_reg <= 64'd0;
        m_axis_tkeep_reg <= 8'd0;
        m_axis_tlast_reg <= 1'b0;
        m_axis_tuser_reg <= 3'd0;
        m_axis_meta_reg <= {META_WIDTH{1'b0}};
    end
end

endmodule

`resetall
