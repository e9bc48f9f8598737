/*
 * switch_output_queues: the 8 output queues of the reference switch, in block RAM, with the
 * queue events for event capture (docs/switch-architecture.md, "switch_output_queues").
 *
 * One write port takes the frames from the port lookup, one word per clock, and never stalls
 * (s_axis_tready is 1). Each frame is written into every queue of its destination mask
 * (s_axis_tuser[7:0], taken from its first word) as it arrives, and at its last word it is
 * committed to or dropped from each of them. Each of the 8 outputs sends its queue's committed
 * frames in order. Every commit (arrival), drop and sent frame (departure) is reported on the
 * queue_* outputs, in the layout of evcap_core's inputs.
 *
 * Clock by clock (a "clock" is the cycle before an edge; registers change at the edge):
 *
 * - Length of a frame: its number of words (transfers), in 64-bit words. For frames that keep
 *   tkeep as the stream rules say (contiguous, all ones but on the last word) that is
 *   ceil(bytes / 8). Bytes are counted from tkeep (see below).
 * - occupancy[q]: the words of the frames committed to queue q and not yet departed. The
 *   queue_occupancy output is this register, before the clock's events.
 * - Writing: a word of a frame is written into queue q if q is in the frame's mask, no earlier
 *   word of the frame missed queue q, and it fits: occupancy[q] + (words of the frame so far,
 *   this one included) <= 2^QUEUE_DEPTH_LOG2. Otherwise the frame has overflowed queue q.
 * - Commit or drop, in the clock the last word is on s_axis: for each q in the mask, commit
 *   if the frame has not overflowed q and occupancy[q] + length <= limit[q], else drop.
 *   limit[q] = min(config_queue_limit[q], CAPACITY) with
 *   CAPACITY = 2^QUEUE_DEPTH_LOG2 - MAX_FRAME_WORDS. Both use the occupancy register (before
 *   this clock's departure) and this clock's config_queue_limit.
 *   A commit raises queue_arrival[q] with the length, and occupancy[q] grows by the length at
 *   the edge; a drop raises queue_drop[q] with the length and changes nothing else.
 * - Output: a committed frame can be read from the RAM from the clock after its commit. The
 *   output has one register; in every clock where the register is empty or its word is taken
 *   (tvalid && tready), the next committed, unread word is loaded into it for the next clock.
 *   So a frame committed in clock n is on m_axis in clock n+2 at the earliest, and an output
 *   that is always ready gets one word per clock, frames back to back.
 * - Departure: in the clock the frame's last word is taken, queue_departure[q] rises with the
 *   frame's length and occupancy[q] shrinks by it at the edge.
 * - Arrival and departure of one queue may fall in the same clock (occupancy changes by
 *   both), and so may drop and departure; with one write port, one frame ends per clock, so
 *   a queue never has an arrival and a drop in the same clock.
 * - The event strobes follow s_axis_* (arrival, drop) and m_axis_tready (departure) within
 *   the clock, as the spec's timing asks; their lengths and the occupancy come from registers.
 *
 * How much RAM is usable (MAX_FRAME_WORDS): a queue's RAM holds its committed frames and the
 * frame being written. Limits are capped at CAPACITY, so a frame of up to MAX_FRAME_WORDS
 * words always finds room while it is written, and the limit alone decides whether it is kept.
 * With the defaults: 4096 words of RAM per queue, frames up to 190 words (1514 bytes), and
 * limits up to 3906 words; config_queue_limit values above 3906 act as 3906. Longer frames
 * need free RAM too: one that outgrows it while being written is dropped at its last word.
 *
 * Odd frames, handled cleanly:
 * - A frame longer than CAPACITY words (longer than the RAM included) can never be committed:
 *   it is written only while it fits and dropped from every queue of its mask at its last
 *   word, without touching the frames already queued. Event lengths are 16 bits: a drop of a
 *   frame of more than 65535 words reports 65535; the byte counters count its bytes exactly
 *   (up to 2^32 - 1 bytes per frame).
 * - A frame with destination mask 0 is consumed: it enters no queue and makes no event (the
 *   port lookup counts it as filtered).
 * - The mask is taken from the first word; tuser on later words is ignored, so a frame is
 *   never split between queues. The source port (tuser[10:8]) is not needed here.
 * - tkeep is stored as its number of bytes before the first 0 (4 bits, so a RAM entry is
 *   69 bits and 4096 entries fit in 8 RAMB36): for a contiguous tkeep that is all of it, and a
 *   non-contiguous one loses the bytes after its gap rather than gain invalid ones.
 *
 * Counters per queue: frames and bytes committed (stored), sent (removed) and dropped, 64 bits
 * each, and the peak occupancy (QUEUE_SIZE_WIDTH bits): the largest value of the occupancy
 * register since the last clear. Each has its own clear pulse, bit q for queue q; a clear in
 * the same clock as an event leaves the counter at that event's amount, and a cleared peak
 * restarts from the occupancy after that clock's edge.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module switch_output_queues #(
    // log2 of each queue's block RAM, in 64-bit words (12: 4096 words = 32 KiB, 8 RAMB36)
    parameter QUEUE_DEPTH_LOG2 = 12,
    // Words of each queue's RAM kept for the frame being written, and so the longest frame
    // the limit alone decides on; limits are capped at 2^QUEUE_DEPTH_LOG2 - MAX_FRAME_WORDS.
    // 190 words = 1514 bytes, the longest frame on the MAC ports
    parameter MAX_FRAME_WORDS = 190,
    // Width of occupancy, limits and peak occupancy, in 64-bit words (evcap_core's
    // QUEUE_SIZE_WIDTH; QUEUE_DEPTH_LOG2 + 1 to 32)
    parameter QUEUE_SIZE_WIDTH = 20
) (
    input  wire                          clk,
    input  wire                          rst,

    // Frames from the port lookup; tuser = {source port [10:8], destination port mask [7:0]}
    input  wire [63:0]                   s_axis_tdata,
    input  wire [7:0]                    s_axis_tkeep,
    input  wire                          s_axis_tvalid,
    output wire                          s_axis_tready,
    input  wire                          s_axis_tlast,
    input  wire [10:0]                   s_axis_tuser,

    // Output ports: port q in tdata[64q+63:64q], tkeep[8q+7:8q], bit q of the others
    output wire [8*64-1:0]               m_axis_tdata,
    output wire [8*8-1:0]                m_axis_tkeep,
    output wire [7:0]                    m_axis_tvalid,
    input  wire [7:0]                    m_axis_tready,
    output wire [7:0]                    m_axis_tlast,

    // Occupancy limit of queue q, in words, in bits QUEUE_SIZE_WIDTH*(q+1)-1:QUEUE_SIZE_WIDTH*q
    input  wire [8*QUEUE_SIZE_WIDTH-1:0] config_queue_limit,

    // Queue events for evcap_core: strobe bit q for queue q; 16-bit lengths in 64-bit words,
    // queue q in bits 16q+15:16q, valid with the strobe; occupancy of queue q (words, before
    // this clock's events) in bits QUEUE_SIZE_WIDTH*(q+1)-1:QUEUE_SIZE_WIDTH*q
    output wire [7:0]                    queue_arrival,
    output wire [8*16-1:0]               queue_arrival_length,
    output wire [7:0]                    queue_departure,
    output wire [8*16-1:0]               queue_departure_length,
    output wire [7:0]                    queue_drop,
    output wire [8*16-1:0]               queue_drop_length,
    output wire [8*QUEUE_SIZE_WIDTH-1:0] queue_occupancy,

    // Counter clears (one-clock pulses), bit q for queue q
    input  wire [7:0]                    command_clear_frames_stored,
    input  wire [7:0]                    command_clear_bytes_stored,
    input  wire [7:0]                    command_clear_frames_removed,
    input  wire [7:0]                    command_clear_bytes_removed,
    input  wire [7:0]                    command_clear_frames_dropped,
    input  wire [7:0]                    command_clear_bytes_dropped,
    input  wire [7:0]                    command_clear_peak_occupancy,

    // Counters of queue q in bits 64q+63:64q: frames and bytes committed (stored), sent
    // (removed) and dropped
    output wire [8*64-1:0]               status_frames_stored,
    output wire [8*64-1:0]               status_bytes_stored,
    output wire [8*64-1:0]               status_frames_removed,
    output wire [8*64-1:0]               status_bytes_removed,
    output wire [8*64-1:0]               status_frames_dropped,
    output wire [8*64-1:0]               status_bytes_dropped,
    // Peak occupancy of queue q in words, in bits QUEUE_SIZE_WIDTH*(q+1)-1:QUEUE_SIZE_WIDTH*q
    output wire [8*QUEUE_SIZE_WIDTH-1:0] status_peak_occupancy
);

// Parameter checks are in switch_queue, which every queue instantiates.

function [3:0] contiguous_bytes;
    input [7:0] keep;
    begin
        casez (keep)
            8'b???????0: contiguous_bytes = 4'd0;
            8'b??????01: contiguous_bytes = 4'd1;
            8'b?????011: contiguous_bytes = 4'd2;
            8'b????0111: contiguous_bytes = 4'd3;
            8'b???01111: contiguous_bytes = 4'd4;
            8'b??011111: contiguous_bytes = 4'd5;
            8'b?0111111: contiguous_bytes = 4'd6;
            8'b01111111: contiguous_bytes = 4'd7;
            default:     contiguous_bytes = 4'd8;
        endcase
    end
endfunction

// The frame on the write port, shared by all queues
reg        in_frame_reg = 1'b0;
reg [7:0]  frame_mask_reg = 8'd0;
// Words and bytes of the frame before this clock's word, saturating
reg [15:0] frame_words_reg = 16'd0;
reg [31:0] frame_bytes_reg = 32'd0;

wire        word_first = !in_frame_reg;
wire [7:0]  word_mask = word_first ? s_axis_tuser[7:0] : frame_mask_reg;
wire [15:0] word_index = word_first ? 16'd0 : frame_words_reg;
wire [3:0]  word_bytes = contiguous_bytes(s_axis_tkeep);
wire [32:0] frame_bytes_sum = {1'b0, word_first ? 32'd0 : frame_bytes_reg}
    + {29'd0, word_bytes};
wire [31:0] frame_bytes = frame_bytes_sum[32] ? 32'hffffffff : frame_bytes_sum[31:0];

// The source port plays no part in queueing
wire unused = &{1'b0, s_axis_tuser[10:8]};

always @(posedge clk) begin
    if (s_axis_tvalid) begin
        in_frame_reg <= !s_axis_tlast;
        frame_mask_reg <= word_mask;
        frame_words_reg <= word_index == 16'hffff ? 16'hffff : word_index + 16'd1;
        frame_bytes_reg <= frame_bytes;
    end

    if (rst) begin
        in_frame_reg <= 1'b0;
        frame_mask_reg <= 8'd0;
        frame_words_reg <= 16'd0;
        frame_bytes_reg <= 32'd0;
    end
end

assign s_axis_tready = 1'b1;

genvar q;
generate
    for (q = 0; q < 8; q = q + 1) begin : queue
        switch_queue #(
            .QUEUE_DEPTH_LOG2(QUEUE_DEPTH_LOG2),
            .MAX_FRAME_WORDS(MAX_FRAME_WORDS),
            .QUEUE_SIZE_WIDTH(QUEUE_SIZE_WIDTH)
        ) queue_inst (
            .clk(clk),
            .rst(rst),
            .s_word_data(s_axis_tdata),
            .s_word_bytes(word_bytes),
            .s_word_valid(s_axis_tvalid && word_mask[q]),
            .s_word_first(word_first),
            .s_word_last(s_axis_tlast),
            .s_word_index(word_index),
            .s_frame_bytes(frame_bytes),
            .m_axis_tdata(m_axis_tdata[64*q +: 64]),
            .m_axis_tkeep(m_axis_tkeep[8*q +: 8]),
            .m_axis_tvalid(m_axis_tvalid[q]),
            .m_axis_tready(m_axis_tready[q]),
            .m_axis_tlast(m_axis_tlast[q]),
            .config_limit(config_queue_limit[QUEUE_SIZE_WIDTH*q +: QUEUE_SIZE_WIDTH]),
            .arrival(queue_arrival[q]),
            .arrival_length(queue_arrival_length[16*q +: 16]),
            .departure(queue_departure[q]),
            .departure_length(queue_departure_length[16*q +: 16]),
            .drop(queue_drop[q]),
            .drop_length(queue_drop_length[16*q +: 16]),
            .occupancy(queue_occupancy[QUEUE_SIZE_WIDTH*q +: QUEUE_SIZE_WIDTH]),
            .command_clear_frames_stored(command_clear_frames_stored[q]),
            .command_clear_bytes_stored(command_clear_bytes_stored[q]),
            .command_clear_frames_removed(command_clear_frames_removed[q]),
            .command_clear_bytes_removed(command_clear_bytes_removed[q]),
            .command_clear_frames_dropped(command_clear_frames_dropped[q]),
            .command_clear_bytes_dropped(command_clear_bytes_dropped[q]),
            .command_clear_peak_occupancy(command_clear_peak_occupancy[q]),
            .status_frames_stored(status_frames_stored[64*q +: 64]),
            .status_bytes_stored(status_bytes_stored[64*q +: 64]),
            .status_frames_removed(status_frames_removed[64*q +: 64]),
            .status_bytes_removed(status_bytes_removed[64*q +: 64]),
            .status_frames_dropped(status_frames_dropped[64*q +: 64]),
            .status_bytes_dropped(status_bytes_dropped[64*q +: 64]),
            .status_peak_occupancy(status_peak_occupancy[QUEUE_SIZE_WIDTH*q +: QUEUE_SIZE_WIDTH])
        );
    end
endgenerate

endmodule

`resetall
