// SPDX-License-Identifier: BSD-3-Clause
/*
 * switch_output_queues_formal: the output queues' shared front (rtl/switch/
 * switch_output_queues.v) hands each of its 8 queues exactly the word stream that
 * tb/formal/switch_queue/ assumes of its input, so that proof holds for every queue of the
 * switch (assume-guarantee): whole frames of the queue's mask, first words and indexes as
 * counted, byte counts from tkeep.
 *
 * Instance: QUEUE_DEPTH_LOG2 = 4, MAX_FRAME_WORDS = 5, QUEUE_SIZE_WIDTH = 5 (the queues' size
 * plays no part in the front; small RAMs keep the model small).
 *
 * Assumed: reset in the first clock only. Everything else is free in every clock: the words,
 * tkeep (contiguous or not), tlast, tuser on every word, the outputs' tready, the limits, the
 * clears. The input has no tready to honour: s_axis_tready is 1 (asserted).
 *
 * The model, from the header: a frame starts at the first word after reset or after a word with
 * tlast; its mask is the first word's tuser[7:0]; its words are counted from 0, saturating at
 * 65535; each word's bytes are its tkeep's ones before the first 0; the frame's bytes are their
 * running sum, saturating at 2^32 - 1.
 *
 * Proved by k-induction, each for all 8 queues (one assertion over a vector of per-queue
 * conditions: Yosys 0.23 does not name one assertion per generate iteration):
 *   - always_ready: s_axis_tready is 1;
 *   - queue_gets_its_frames: queue q is handed a word exactly when a word is on s_axis and q is
 *     in its frame's mask (so whole frames, and never a word of a frame not for it);
 *   - queue_word_as_input: with the word's data and tlast;
 *   - queue_first_and_index: first exactly on a frame's first word, the index its word count;
 *   - queue_bytes: the word's byte count (at most 8) and the frame's bytes so far.
 *   Invariant (inv_front): the RTL's framing registers (links) equal the model's.
 */

`default_nettype none

module switch_output_queues_formal (
    input  wire        clk,
    input  wire        rst,
    input  wire [63:0] s_axis_tdata,
    input  wire [7:0]  s_axis_tkeep,
    input  wire        s_axis_tvalid,
    input  wire        s_axis_tlast,
    input  wire [10:0] s_axis_tuser,
    input  wire [7:0]  m_axis_tready,
    input  wire [39:0] config_queue_limit,
    input  wire [6:0]  command_clear
);

wire s_axis_tready;

switch_output_queues #(
    .QUEUE_DEPTH_LOG2(4),
    .MAX_FRAME_WORDS(5),
    .QUEUE_SIZE_WIDTH(5)
) dut (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .s_axis_tuser(s_axis_tuser),
    .m_axis_tdata(),
    .m_axis_tkeep(),
    .m_axis_tvalid(),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(),
    .config_queue_limit(config_queue_limit),
    .queue_arrival(),
    .queue_arrival_length(),
    .queue_departure(),
    .queue_departure_length(),
    .queue_drop(),
    .queue_drop_length(),
    .queue_occupancy(),
    .command_clear_frames_stored({8{command_clear[0]}}),
    .command_clear_bytes_stored({8{command_clear[1]}}),
    .command_clear_frames_removed({8{command_clear[2]}}),
    .command_clear_bytes_removed({8{command_clear[3]}}),
    .command_clear_frames_dropped({8{command_clear[4]}}),
    .command_clear_bytes_dropped({8{command_clear[5]}}),
    .command_clear_peak_occupancy({8{command_clear[6]}}),
    .status_frames_stored(),
    .status_bytes_stored(),
    .status_frames_removed(),
    .status_bytes_removed(),
    .status_frames_dropped(),
    .status_bytes_dropped(),
    .status_peak_occupancy()
);

// What each queue is handed (proof.toml links: the ports of dut.queue[q].queue_inst)
wire [7:0]     q_valid;
wire [7:0]     q_first;
wire [7:0]     q_last;
wire [8*16-1:0] q_index;
wire [8*4-1:0] q_bytes;
wire [8*32-1:0] q_frame_bytes;
wire [8*64-1:0] q_data;
// The front's framing registers (links)
wire        f_in_frame_reg;
wire [7:0]  f_mask_reg;
wire [15:0] f_words_reg;
wire [31:0] f_bytes_reg;

// The reset the proof starts from (common/formal_reset.sv)
wire past_valid;
formal_reset initial_reset (.clk(clk), .rst(rst), .past_valid(past_valid));

// ---------------------------------------------------------------------------------------------
// Model

reg        f_in_frame = 1'b0;   // a frame's first word has come, its last not yet
reg [7:0]  f_mask = 8'd0;       // the frame's mask
reg [15:0] f_words = 16'd0;     // its words so far
reg [31:0] f_bytes = 32'd0;     // its bytes so far

// the ones of tkeep before its first 0
function [3:0] leading_ones;
    input [7:0] keep;
    integer i;
    reg run;
    begin
        leading_ones = 4'd0;
        run = 1'b1;
        for (i = 0; i < 8; i = i + 1) begin
            run = run && keep[i];
            leading_ones = leading_ones + {3'd0, run};
        end
    end
endfunction

wire [7:0]  mask_now = f_in_frame ? f_mask : s_axis_tuser[7:0];
wire [15:0] index_now = f_in_frame ? f_words : 16'd0;
wire [3:0]  bytes_now = leading_ones(s_axis_tkeep);
wire [32:0] frame_bytes_sum = {1'b0, f_in_frame ? f_bytes : 32'd0} + {29'd0, bytes_now};
wire [31:0] frame_bytes_now = frame_bytes_sum[32] ? 32'hffffffff : frame_bytes_sum[31:0];

always @(posedge clk) begin
    if (s_axis_tvalid) begin
        f_in_frame <= !s_axis_tlast;
        f_mask <= mask_now;
        f_words <= index_now == 16'hffff ? 16'hffff : index_now + 16'd1;
        f_bytes <= frame_bytes_now;
    end
    if (rst) begin
        f_in_frame <= 1'b0;
        f_mask <= 8'd0;
        f_words <= 16'd0;
        f_bytes <= 32'd0;
    end
end

// ---------------------------------------------------------------------------------------------
// Properties

reg [7:0] gets_ok, word_ok, first_index_ok, bytes_ok;
integer q;
always @(*) begin
    for (q = 0; q < 8; q = q + 1) begin
        gets_ok[q] = q_valid[q] == (s_axis_tvalid && mask_now[q]);
        word_ok[q] = !q_valid[q] || (q_data[64*q +: 64] == s_axis_tdata && q_last[q] == s_axis_tlast);
        first_index_ok[q] = !q_valid[q]
            || (q_first[q] == !f_in_frame && q_index[16*q +: 16] == index_now);
        bytes_ok[q] = !q_valid[q]
            || (q_bytes[4*q +: 4] == bytes_now && q_frame_bytes[32*q +: 32] == frame_bytes_now);
    end
end

always @(*) begin
    if (past_valid && !rst) begin
        always_ready: assert (s_axis_tready);
        queue_gets_its_frames: assert (&gets_ok);
        queue_word_as_input: assert (&word_ok);
        queue_first_and_index: assert (&first_index_ok);
        queue_bytes: assert (&bytes_ok);
        inv_front: assert (f_in_frame_reg == f_in_frame && f_mask_reg == f_mask
                           && f_words_reg == f_words && f_bytes_reg == f_bytes);
    end
end

// ---------------------------------------------------------------------------------------------
// Reachability

always @(posedge clk) begin
    if (past_valid && !rst && !$past(rst)) begin
        // a frame of three words for queues 2 and 5 only, with a partial last word
        cover_multicast_frame: cover ($past(s_axis_tvalid && f_in_frame && f_words == 16'd1)
                                      && q_valid == 8'b0010_0100 && s_axis_tlast
                                      && bytes_now == 4'd3);
        // a frame for no queue, then one for queue 7
        cover_frame_for_none: cover ($past(s_axis_tvalid && s_axis_tlast && mask_now == 8'd0)
                                     && q_valid == 8'h80);
    end
end

endmodule

`default_nettype wire
