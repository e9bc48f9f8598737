/*
 * switch_queue: one of the 8 output queues of switch_output_queues, in block RAM.
 *
 * The parent follows the frames on the shared write port and hands every queue the current
 * word with its position in the frame; this module keeps one queue: its RAM, its committed
 * frames, its occupancy, the commit-or-drop decision, the output stream, its events and its
 * counters. The clock-by-clock rules are in the header of switch_output_queues.v.
 *
 * The RAM is a ring of 2^QUEUE_DEPTH_LOG2 entries. The committed frames not yet departed lie
 * from the first word of the oldest one up to commit_ptr; their size is the occupancy, which
 * never exceeds CAPACITY < 2^QUEUE_DEPTH_LOG2, so read_ptr == commit_ptr means that nothing
 * committed is left to read. A frame being written goes
 * speculatively to commit_ptr + (its word index), so a drop needs no rewind: commit_ptr only
 * moves on a commit. The writer never overwrites a committed word: a word is written only if
 * occupancy + (words of the frame so far, this one included) <= 2^QUEUE_DEPTH_LOG2; the first
 * word that does not fit marks the frame as overflowed, no later word of it is written, and it
 * is dropped at its last word.
 *
 * RAM entry: {last, byte count 0..8, data}. The stream interface keeps tkeep contiguous from
 * bit 0, so the byte count is all of tkeep and the entry fits 72 bits (8 RAMB36 per 4096
 * words); tkeep is rebuilt from it on the way out.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module switch_queue #(
    // log2 of the RAM size in 64-bit words
    parameter QUEUE_DEPTH_LOG2 = 12,
    // RAM words kept free for the frame being written (see switch_output_queues)
    parameter MAX_FRAME_WORDS = 190,
    // Width of occupancy, limit and peak occupancy, in 64-bit words
    parameter QUEUE_SIZE_WIDTH = 20
) (
    input  wire                        clk,
    input  wire                        rst,

    // The word on the shared write port, when this queue is in its frame's destination mask
    input  wire [63:0]                 s_word_data,
    // Bytes of the word (tkeep as a count, 0..8)
    input  wire [3:0]                  s_word_bytes,
    input  wire                        s_word_valid,
    // First and last word of the frame
    input  wire                        s_word_first,
    input  wire                        s_word_last,
    // Words of the frame before this one (saturating at 65535)
    input  wire [15:0]                 s_word_index,
    // Bytes of the frame up to and including this word (saturating)
    input  wire [31:0]                 s_frame_bytes,

    // Output stream
    output wire [63:0]                 m_axis_tdata,
    output wire [7:0]                  m_axis_tkeep,
    output wire                        m_axis_tvalid,
    input  wire                        m_axis_tready,
    output wire                        m_axis_tlast,

    // Limit on the occupancy after a commit, in words
    input  wire [QUEUE_SIZE_WIDTH-1:0] config_limit,

    // Events; lengths in words, valid with their strobe
    output wire                        arrival,
    output wire [15:0]                 arrival_length,
    output wire                        departure,
    output wire [15:0]                 departure_length,
    output wire                        drop,
    output wire [15:0]                 drop_length,
    // Words of the committed frames not yet sent, before this clock's events
    output wire [QUEUE_SIZE_WIDTH-1:0] occupancy,

    // Counter clears (one-clock pulses); a clear and an event of the same clock leave the
    // counter at that event's amount, so nothing is lost
    input  wire                        command_clear_frames_stored,
    input  wire                        command_clear_bytes_stored,
    input  wire                        command_clear_frames_removed,
    input  wire                        command_clear_bytes_removed,
    input  wire                        command_clear_frames_dropped,
    input  wire                        command_clear_bytes_dropped,
    input  wire                        command_clear_peak_occupancy,

    // Counters
    output wire [63:0]                 status_frames_stored,
    output wire [63:0]                 status_bytes_stored,
    output wire [63:0]                 status_frames_removed,
    output wire [63:0]                 status_bytes_removed,
    output wire [63:0]                 status_frames_dropped,
    output wire [63:0]                 status_bytes_dropped,
    output wire [QUEUE_SIZE_WIDTH-1:0] status_peak_occupancy
);

generate
    if (QUEUE_DEPTH_LOG2 < 4 || QUEUE_DEPTH_LOG2 > 16) begin : check_depth
        switch_queue_error_QUEUE_DEPTH_LOG2_must_be_4_to_16 bad_parameter();
    end
    if (MAX_FRAME_WORDS < 1 || MAX_FRAME_WORDS >= (1 << QUEUE_DEPTH_LOG2)) begin : check_reserve
        switch_queue_error_MAX_FRAME_WORDS_must_be_1_to_RAM_size_minus_1 bad_parameter();
    end
    if (QUEUE_SIZE_WIDTH <= QUEUE_DEPTH_LOG2 || QUEUE_SIZE_WIDTH > 32) begin : check_size_width
        switch_queue_error_QUEUE_SIZE_WIDTH_must_be_QUEUE_DEPTH_LOG2_plus_1_to_32 bad_parameter();
    end
endgenerate

localparam ADDRESS_WIDTH = QUEUE_DEPTH_LOG2;
// last, byte count, data
localparam ENTRY_WIDTH = 1 + 4 + 64;
// Occupancy, limit and frame length sums are compared at this width, wide enough for all
localparam SUM_WIDTH = 34;
localparam [31:0] RAM_WORDS_32 = 32'd1 << QUEUE_DEPTH_LOG2;
// The largest occupancy a commit may reach: what stays after keeping room for a frame
localparam [31:0] CAPACITY_32 = RAM_WORDS_32 - MAX_FRAME_WORDS;
localparam [SUM_WIDTH-1:0] RAM_WORDS = {2'b00, RAM_WORDS_32};
localparam [SUM_WIDTH-1:0] CAPACITY = {2'b00, CAPACITY_32};

function [SUM_WIDTH-1:0] widen_size;
    input [QUEUE_SIZE_WIDTH-1:0] value;
    begin
        widen_size = {{(SUM_WIDTH-QUEUE_SIZE_WIDTH){1'b0}}, value};
    end
endfunction

function [SUM_WIDTH-1:0] widen_length;
    input [16:0] value;
    begin
        widen_length = {{(SUM_WIDTH-17){1'b0}}, value};
    end
endfunction

function [7:0] keep_of_bytes;
    input [3:0] bytes;
    begin
        case (bytes)
            4'd0: keep_of_bytes = 8'h00;
            4'd1: keep_of_bytes = 8'h01;
            4'd2: keep_of_bytes = 8'h03;
            4'd3: keep_of_bytes = 8'h07;
            4'd4: keep_of_bytes = 8'h0f;
            4'd5: keep_of_bytes = 8'h1f;
            4'd6: keep_of_bytes = 8'h3f;
            4'd7: keep_of_bytes = 8'h7f;
            default: keep_of_bytes = 8'hff;
        endcase
    end
endfunction

reg [ENTRY_WIDTH-1:0] ram[0:(1 << QUEUE_DEPTH_LOG2)-1];

reg [ADDRESS_WIDTH-1:0]    commit_ptr_reg = {ADDRESS_WIDTH{1'b0}};
reg [ADDRESS_WIDTH-1:0]    read_ptr_reg = {ADDRESS_WIDTH{1'b0}};
reg [QUEUE_SIZE_WIDTH-1:0] occupancy_reg = {QUEUE_SIZE_WIDTH{1'b0}};
// The frame being written has lost a word for want of RAM
reg                        overflow_reg = 1'b0;

// Output register: the RAM's registered read port
reg [ENTRY_WIDTH-1:0]      out_entry_reg = {ENTRY_WIDTH{1'b0}};
reg                        out_valid_reg = 1'b0;
// Words and bytes of the outgoing frame already sent
reg [15:0]                 out_words_reg = 16'd0;
reg [QUEUE_DEPTH_LOG2+3:0] out_bytes_reg = {QUEUE_DEPTH_LOG2+4{1'b0}};

reg [63:0]                 frames_stored_reg = 64'd0;
reg [63:0]                 bytes_stored_reg = 64'd0;
reg [63:0]                 frames_removed_reg = 64'd0;
reg [63:0]                 bytes_removed_reg = 64'd0;
reg [63:0]                 frames_dropped_reg = 64'd0;
reg [63:0]                 bytes_dropped_reg = 64'd0;
reg [QUEUE_SIZE_WIDTH-1:0] peak_occupancy_reg = {QUEUE_SIZE_WIDTH{1'b0}};

// Write side

// Length of the frame if this word is its last one (17 bits: the index saturates at 65535)
wire [16:0] frame_length = {1'b0, s_word_index} + 17'd1;
wire [15:0] frame_length_saturated = frame_length[16] ? 16'hffff : frame_length[15:0];

// Free RAM is what neither the committed frames nor this frame's earlier words hold
wire word_fits = widen_size(occupancy_reg) + widen_length(frame_length) <= RAM_WORDS;
wire overflowed = (!s_word_first && overflow_reg) || !word_fits;
wire ram_write = s_word_valid && !overflowed;
wire [ADDRESS_WIDTH-1:0] write_address = commit_ptr_reg + s_word_index[ADDRESS_WIDTH-1:0];

// A limit beyond what the RAM can hold while a frame is written acts as that much
wire [SUM_WIDTH-1:0] limit = widen_size(config_limit) > CAPACITY ? CAPACITY
    : widen_size(config_limit);
wire within_limit = widen_size(occupancy_reg) + widen_length(frame_length) <= limit;

wire frame_end = s_word_valid && s_word_last;
wire commit = frame_end && !overflowed && within_limit;

// Read side

wire ram_has_word = read_ptr_reg != commit_ptr_reg;
wire ram_read = ram_has_word && (!out_valid_reg || m_axis_tready);
wire out_handshake = out_valid_reg && m_axis_tready;
wire out_last = out_entry_reg[ENTRY_WIDTH-1];
wire [3:0] out_word_bytes = out_entry_reg[67:64];
wire [15:0] out_frame_words = out_words_reg + 16'd1;
wire [QUEUE_DEPTH_LOG2+3:0] out_frame_bytes = out_bytes_reg
    + {{QUEUE_DEPTH_LOG2{1'b0}}, out_word_bytes};
wire sent = out_handshake && out_last;

// Occupancy changes at the edge by the lengths of this clock's arrival and departure
// (a committed frame is shorter than the RAM, so its length fits QUEUE_DEPTH_LOG2 bits)
wire [QUEUE_SIZE_WIDTH-1:0] occupancy_next = occupancy_reg
    + (commit ? {{QUEUE_SIZE_WIDTH-ADDRESS_WIDTH{1'b0}}, frame_length[ADDRESS_WIDTH-1:0]}
        : {QUEUE_SIZE_WIDTH{1'b0}})
    - (sent ? {{QUEUE_SIZE_WIDTH-ADDRESS_WIDTH{1'b0}}, out_frame_words[ADDRESS_WIDTH-1:0]}
        : {QUEUE_SIZE_WIDTH{1'b0}});

// RAM write and registered read, kept free of reset so synthesis maps them to block RAM
always @(posedge clk) begin
    if (ram_write) begin
        ram[write_address] <= {s_word_last, s_word_bytes, s_word_data};
    end
    if (ram_read) begin
        out_entry_reg <= ram[read_ptr_reg];
    end
end

always @(posedge clk) begin
    if (s_word_valid) begin
        overflow_reg <= overflowed;
    end
    if (commit) begin
        commit_ptr_reg <= commit_ptr_reg + frame_length[ADDRESS_WIDTH-1:0];
    end
    occupancy_reg <= occupancy_next;

    if (ram_read) begin
        read_ptr_reg <= read_ptr_reg + {{ADDRESS_WIDTH-1{1'b0}}, 1'b1};
        out_valid_reg <= 1'b1;
    end else if (m_axis_tready) begin
        out_valid_reg <= 1'b0;
    end
    if (out_handshake) begin
        out_words_reg <= out_last ? 16'd0 : out_frame_words;
        out_bytes_reg <= out_last ? {QUEUE_DEPTH_LOG2+4{1'b0}} : out_frame_bytes;
    end

    frames_stored_reg <= (command_clear_frames_stored ? 64'd0 : frames_stored_reg)
        + {63'd0, commit};
    bytes_stored_reg <= (command_clear_bytes_stored ? 64'd0 : bytes_stored_reg)
        + (commit ? {32'd0, s_frame_bytes} : 64'd0);
    frames_removed_reg <= (command_clear_frames_removed ? 64'd0 : frames_removed_reg)
        + {63'd0, sent};
    bytes_removed_reg <= (command_clear_bytes_removed ? 64'd0 : bytes_removed_reg)
        + (sent ? {{60-QUEUE_DEPTH_LOG2{1'b0}}, out_frame_bytes} : 64'd0);
    frames_dropped_reg <= (command_clear_frames_dropped ? 64'd0 : frames_dropped_reg)
        + {63'd0, drop};
    bytes_dropped_reg <= (command_clear_bytes_dropped ? 64'd0 : bytes_dropped_reg)
        + (drop ? {32'd0, s_frame_bytes} : 64'd0);
    // A clear restarts the peak from the occupancy the queue has now, never below it
    if (command_clear_peak_occupancy || occupancy_next > peak_occupancy_reg) begin
        peak_occupancy_reg <= occupancy_next;
    end

    if (rst) begin
        commit_ptr_reg <= {ADDRESS_WIDTH{1'b0}};
        read_ptr_reg <= {ADDRESS_WIDTH{1'b0}};
        occupancy_reg <= {QUEUE_SIZE_WIDTH{1'b0}};
        overflow_reg <= 1'b0;
        out_valid_reg <= 1'b0;
        out_words_reg <= 16'd0;
        out_bytes_reg <= {QUEUE_DEPTH_LOG2+4{1'b0}};
        frames_stored_reg <= 64'd0;
        bytes_stored_reg <= 64'd0;
        frames_removed_reg <= 64'd0;
        bytes_removed_reg <= 64'd0;
        frames_dropped_reg <= 64'd0;
        bytes_dropped_reg <= 64'd0;
        peak_occupancy_reg <= {QUEUE_SIZE_WIDTH{1'b0}};
    end
end

assign m_axis_tdata = out_entry_reg[63:0];
assign m_axis_tkeep = keep_of_bytes(out_word_bytes);
assign m_axis_tvalid = out_valid_reg;
assign m_axis_tlast = out_last;

assign arrival = commit;
assign arrival_length = frame_length_saturated;
assign departure = sent;
assign departure_length = out_frame_words;
assign drop = frame_end && !commit;
assign drop_length = frame_length_saturated;
assign occupancy = occupancy_reg;

assign status_frames_stored = frames_stored_reg;
assign status_bytes_stored = bytes_stored_reg;
assign status_frames_removed = frames_removed_reg;
assign status_bytes_removed = bytes_removed_reg;
assign status_frames_dropped = frames_dropped_reg;
assign status_bytes_dropped = bytes_dropped_reg;
assign status_peak_occupancy = peak_occupancy_reg;

endmodule

`resetall
