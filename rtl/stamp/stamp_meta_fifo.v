/*
 * stamp_meta_fifo: the RX stamps of one output queue's frames, from commit to departure
 * (docs/timestamps.md, "Through the switch").
 *
 * The output queue stores frame words only; this FIFO beside it stores one entry per
 * committed frame that has an RX stamp, written in the clock of the commit (the queue's
 * arrival event) and removed in the clock of the departure (the handshake of the frame's last
 * word). Frames leave a queue in the order they were committed, so the head of the FIFO is
 * the stamp of the frame the queue is sending. Each entry is tagged with the frame's commit
 * number (modulo 2^TAG_WIDTH); a departure counter says which frame is on the output, and the
 * head counts only when its tag matches: frames without a stamp (from CPU ports) and frames
 * whose commit found the FIFO full (after a departure in the same clock) get no entry and leave
 * with m_valid = 0, and the stamps of the others stay with their own frames.
 *
 *   commit, s_valid, s_stamp --> [tag | stamp] x 2^DEPTH_LOG2 (block RAM) --> head register
 *           commit number --'                                                    |
 *   departure number ---------------------------- tag == departure number ? -----+--> m_valid,
 *   departure (pops the head when it matched)                                          m_stamp
 *
 * Timing. The head register is loaded in every clock from the entry after this clock's pop,
 * so a new head is there one clock after the pop and an entry written in clock n can be the
 * head from clock n+2: the queue shows a frame committed in clock n on its output in clock n+2
 * at the earliest, so its stamp is always there with its first word. m_stamp and m_valid hold
 * still while the frame is on the output (until its departure).
 *
 * Exact while a queue holds fewer than 2^DEPTH_LOG2 stamped frames and fewer than
 * 2^TAG_WIDTH frames: with the defaults (512 entries, 10-bit tags) and the switch's queues
 * (at most 3906 words committed), frames of 8 words (60 bytes) or more never reach either.
 * 10 + 62 bits is one 72-bit block RAM word: 512 x 72 is one RAMB36.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module stamp_meta_fifo #(
    // Bits of the stamp ({seconds[31:0], nanoseconds[29:0]})
    parameter STAMP_WIDTH = 62,
    // log2 of the number of entries (9: 512)
    parameter DEPTH_LOG2 = 9,
    // Bits of the commit-number tag of each entry (at least DEPTH_LOG2 + 1)
    parameter TAG_WIDTH = 10
) (
    input  wire                   clk,
    input  wire                   rst,

    // The queue commits a frame in this clock (its arrival event); s_valid: it has a stamp
    input  wire                   commit,
    input  wire                   s_valid,
    input  wire [STAMP_WIDTH-1:0] s_stamp,

    // The queue's frame on its output departs in this clock (handshake of its last word)
    input  wire                   departure,

    // Stamp of the frame on the queue's output; m_valid = 0: it has none
    output wire                   m_valid,
    output wire [STAMP_WIDTH-1:0] m_stamp
);

localparam ENTRY_WIDTH = TAG_WIDTH + STAMP_WIDTH;
localparam [DEPTH_LOG2:0] DEPTH = {1'b1, {DEPTH_LOG2{1'b0}}};

generate
    if (TAG_WIDTH < DEPTH_LOG2 + 1) begin : check_tag
        stamp_meta_fifo_error_TAG_WIDTH_must_be_at_least_DEPTH_LOG2_plus_1 bad_parameter();
    end
endgenerate

reg [ENTRY_WIDTH-1:0] ram[0:(1 << DEPTH_LOG2)-1];

reg [DEPTH_LOG2:0]    write_ptr_reg = {DEPTH_LOG2+1{1'b0}};
reg [DEPTH_LOG2:0]    read_ptr_reg = {DEPTH_LOG2+1{1'b0}};
reg [TAG_WIDTH-1:0]   commit_number_reg = {TAG_WIDTH{1'b0}};
reg [TAG_WIDTH-1:0]   departure_number_reg = {TAG_WIDTH{1'b0}};
reg [ENTRY_WIDTH-1:0] head_reg = {ENTRY_WIDTH{1'b0}};
reg                   head_valid_reg = 1'b0;

wire full = write_ptr_reg - read_ptr_reg == DEPTH;
wire match = head_valid_reg && head_reg[ENTRY_WIDTH-1 -: TAG_WIDTH] == departure_number_reg;
wire pop = departure && match;
// A pop in the same clock makes room (the popped slot is not the one read next)
wire push = commit && s_valid && (!full || pop);
wire [DEPTH_LOG2:0] read_ptr_next = read_ptr_reg + {{DEPTH_LOG2{1'b0}}, pop};

assign m_valid = match;
assign m_stamp = head_reg[STAMP_WIDTH-1:0];

always @(posedge clk) begin
    if (push) begin
        ram[write_ptr_reg[DEPTH_LOG2-1:0]] <= {commit_number_reg, s_stamp};
    end
    // Read before write: an entry written in this clock is seen from the next load on
    head_reg <= ram[read_ptr_next[DEPTH_LOG2-1:0]];
end

always @(posedge clk) begin
    write_ptr_reg <= write_ptr_reg + {{DEPTH_LOG2{1'b0}}, push};
    read_ptr_reg <= read_ptr_next;
    // Entries written before this clock and not popped: the one loaded is real
    head_valid_reg <= write_ptr_reg != read_ptr_next;
    commit_number_reg <= commit_number_reg + {{TAG_WIDTH-1{1'b0}}, commit};
    departure_number_reg <= departure_number_reg + {{TAG_WIDTH-1{1'b0}}, departure};

    if (rst) begin
        write_ptr_reg <= {DEPTH_LOG2+1{1'b0}};
        read_ptr_reg <= {DEPTH_LOG2+1{1'b0}};
        head_valid_reg <= 1'b0;
        commit_number_reg <= {TAG_WIDTH{1'b0}};
        departure_number_reg <= {TAG_WIDTH{1'b0}};
    end
end

endmodule

`resetall
