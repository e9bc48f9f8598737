/*
 * switch_stat_path: puts evcap's stat packets on the output ports they are meant for, between
 * the frames the output queues send.
 *
 * Each of the 8 ports forwards either its queue's frames or stat packets, one whole frame at a
 * time. At a frame boundary a port that evcap's current stat packet selects (tuser bit i) takes
 * the stat packet before its queue's next frame. The stat packet's words go to all the ports it
 * selects in lock step: a word is taken from evcap once every selected port has it, and a port
 * that took a word early does not see it again. So a stat packet sent to several ports moves
 * at the pace of the slowest; none is lost, duplicated or cut, and none passes through a queue
 * (it is never a queue event). A stat packet with no port selected is consumed and discarded.
 *
 *   evcap --> [which ports, lock step] --+--> port 0 mux <-- queue 0
 *                                        +--> ...
 *                                        +--> port 7 mux <-- queue 7
 *
 * The queue side of a port waits while the port serves a stat packet; its frames' departures
 * happen when the port really takes them. m_axis_from_queue[i] says that port i is forwarding
 * a frame of its queue (not a stat packet), so that the frame's metadata can follow it.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module switch_stat_path (
    input  wire           clk,
    input  wire           rst,

    // Stat packets from evcap; tuser = output port mask
    input  wire [63:0]    s_stat_tdata,
    input  wire [7:0]     s_stat_tkeep,
    input  wire           s_stat_tvalid,
    output wire           s_stat_tready,
    input  wire           s_stat_tlast,
    input  wire [7:0]     s_stat_tuser,

    // Frames from the output queues, port i in slice i
    input  wire [8*64-1:0] s_queue_tdata,
    input  wire [8*8-1:0]  s_queue_tkeep,
    input  wire [7:0]      s_queue_tvalid,
    output wire [7:0]      s_queue_tready,
    input  wire [7:0]      s_queue_tlast,

    // Output ports, port i in slice i
    output wire [8*64-1:0] m_axis_tdata,
    output wire [8*8-1:0]  m_axis_tkeep,
    output wire [7:0]      m_axis_tvalid,
    input  wire [7:0]      m_axis_tready,
    output wire [7:0]      m_axis_tlast,
    // Port i is sending a frame of its queue (from its first word's offer to its tlast)
    output wire [7:0]      m_axis_from_queue
);

// Per port: which source owns it until the end of the current frame
reg [7:0] serving_queue_reg = 8'd0;
reg [7:0] serving_stat_reg = 8'd0;
// Per port: already took the current stat word (waiting for the other selected ports)
reg [7:0] taken_reg = 8'd0;

wire [7:0] selected = s_stat_tvalid ? s_stat_tuser : 8'd0;
wire       discard = s_stat_tvalid && s_stat_tuser == 8'd0;
// Every selected port is serving the stat packet
wire       all_serving = (selected & ~serving_stat_reg) == 8'd0;
// Port i offers the stat word when all are serving and it has not taken it yet
wire [7:0] stat_offer = (s_stat_tvalid && all_serving) ? (selected & ~taken_reg) : 8'd0;
wire [7:0] stat_handshake = stat_offer & m_axis_tready;
// The word leaves evcap when every selected port has it
wire       stat_word_done = s_stat_tvalid && all_serving && s_stat_tuser != 8'd0
    && ((taken_reg | stat_handshake | ~s_stat_tuser) == 8'hff);

assign s_stat_tready = discard || stat_word_done;

wire [7:0] queue_offer = serving_queue_reg & s_queue_tvalid;
wire [7:0] queue_handshake = queue_offer & m_axis_tready;
assign m_axis_from_queue = serving_queue_reg;

genvar i;
generate
    for (i = 0; i < 8; i = i + 1) begin : port
        assign m_axis_tdata[64*i +: 64] = serving_stat_reg[i] ? s_stat_tdata : s_queue_tdata[64*i +: 64];
        assign m_axis_tkeep[8*i +: 8] = serving_stat_reg[i] ? s_stat_tkeep : s_queue_tkeep[8*i +: 8];
        assign m_axis_tlast[i] = serving_stat_reg[i] ? s_stat_tlast : s_queue_tlast[i];
        assign m_axis_tvalid[i] = stat_offer[i] || queue_offer[i];
        assign s_queue_tready[i] = serving_queue_reg[i] && m_axis_tready[i];
    end
endgenerate

integer p;

always @(posedge clk) begin
    for (p = 0; p < 8; p = p + 1) begin
        if (!serving_queue_reg[p] && !serving_stat_reg[p]) begin
            // Frame boundary: a stat packet for this port goes first
            if (selected[p]) begin
                serving_stat_reg[p] <= 1'b1;
            end else if (s_queue_tvalid[p]) begin
                serving_queue_reg[p] <= 1'b1;
            end
        end else if (serving_queue_reg[p]) begin
            if (queue_handshake[p] && s_queue_tlast[p]) begin
                serving_queue_reg[p] <= 1'b0;
            end
        end
    end

    if (stat_word_done) begin
        taken_reg <= 8'd0;
        if (s_stat_tlast) begin
            serving_stat_reg <= serving_stat_reg & ~s_stat_tuser;
        end
    end else begin
        taken_reg <= taken_reg | stat_handshake;
    end

    if (rst) begin
        serving_queue_reg <= 8'd0;
        serving_stat_reg <= 8'd0;
        taken_reg <= 8'd0;
    end
end

endmodule

`resetall
