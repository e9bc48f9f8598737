/*
 * evcap_intake: turns the event strobes of one clock into one record for the record FIFO.
 *
 * Every clock, each of the 8 queues may report an arrival, a departure and a drop, each with
 * its packet length in 64-bit words. The intake applies the enable and the masks, saturates the
 * lengths to 8 bits, computes the tick (timer >> resolution), and registers all of it with the
 * queues' occupancies of the same clock (before that clock's events). One clock later it writes
 * the record into the record FIFO. A record holds all 24 events of its clock, so the intake
 * never loses an event to a burst of simultaneous events; it loses a whole record only when the
 * record FIFO is full, and then counts the record's events as missed.
 *
 * Event bit i = 3*q + t (q queue, t: 0 arrival, 1 departure, 2 drop) is the order in which the
 * events of one clock appear in the stat packet.
 *
 * Configuration changes, force flush, disable and enable are written into the FIFO as flags of
 * the next record (a record with no events when nothing happened), so the serializer acts on
 * them in order with the events. When the FIFO is full they wait as pending flags.
 *
 * Record fields (concatenated by evcap_core):
 *   tick[61:0], resolution[2:0], events[23:0], lengths[24*8-1:0] (event i in bits 8i+7:8i),
 *   occupancy[8*QUEUE_SIZE_WIDTH-1:0] (before the clock's events),
 *   occupancy_after[8*QUEUE_SIZE_WIDTH-1:0] (the occupancy input one clock later, which the
 *   switch has updated with the clock's events), close_before, seq_reset, missed_before
 *
 * Timing: docs/evcap-architecture.md, "Intake".
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module evcap_intake #(
    // Width of each queue's occupancy input, in 64-bit words
    parameter QUEUE_SIZE_WIDTH = 20
) (
    input  wire                          clk,
    input  wire                          rst,

    // Queue events from the switch: strobe bit q for queue q, length of queue q in bits 16q+15:16q
    input  wire [7:0]                    queue_arrival,
    input  wire [8*16-1:0]               queue_arrival_length,
    input  wire [7:0]                    queue_departure,
    input  wire [8*16-1:0]               queue_departure_length,
    input  wire [7:0]                    queue_drop,
    input  wire [8*16-1:0]               queue_drop_length,
    input  wire [8*QUEUE_SIZE_WIDTH-1:0] queue_occupancy,

    // Time base and configuration
    input  wire [63:0]                   timer,
    input  wire                          config_enable,
    input  wire [2:0]                    config_resolution,
    input  wire [7:0]                    config_queue_mask,
    input  wire [2:0]                    config_event_mask,
    input  wire                          command_flush,

    // Record FIFO write side
    output wire [61:0]                   m_record_tick,
    output wire [2:0]                    m_record_resolution,
    output wire [23:0]                   m_record_events,
    output wire [24*8-1:0]               m_record_lengths,
    output wire [8*QUEUE_SIZE_WIDTH-1:0] m_record_occupancy,
    output wire [8*QUEUE_SIZE_WIDTH-1:0] m_record_occupancy_after,
    output wire                          m_record_close_before,
    output wire                          m_record_seq_reset,
    output wire                          m_record_missed_before,
    output wire                          m_record_valid,
    input  wire                          record_fifo_full,

    // Missed-events counter
    input  wire                          command_clear_events_missed,
    output wire [63:0]                   status_events_missed
);

// Stage 0: masks, saturated lengths, tick, markers

reg [23:0]    events_0;
reg [24*8-1:0] lengths_0;

function [7:0] saturate_length;
    input [15:0] length;
    begin
        saturate_length = (length > 16'd255) ? 8'd255 : length[7:0];
    end
endfunction

integer q;

always @* begin
    for (q = 0; q < 8; q = q + 1) begin
        events_0[3*q+0] = config_enable && config_queue_mask[q] && config_event_mask[0] && queue_arrival[q];
        events_0[3*q+1] = config_enable && config_queue_mask[q] && config_event_mask[1] && queue_departure[q];
        events_0[3*q+2] = config_enable && config_queue_mask[q] && config_event_mask[2] && queue_drop[q];
        lengths_0[8*(3*q+0) +: 8] = saturate_length(queue_arrival_length[16*q +: 16]);
        lengths_0[8*(3*q+1) +: 8] = saturate_length(queue_departure_length[16*q +: 16]);
        lengths_0[8*(3*q+2) +: 8] = saturate_length(queue_drop_length[16*q +: 16]);
    end
end

// tick = (timer >> resolution) mod 2^62
reg [61:0] tick_0;

always @* begin
    case (config_resolution)
        3'd0: tick_0 = timer[61:0];
        3'd1: tick_0 = timer[62:1];
        3'd2: tick_0 = timer[63:2];
        3'd3: tick_0 = {1'b0, timer[63:3]};
        3'd4: tick_0 = {2'b0, timer[63:4]};
        3'd5: tick_0 = {3'b0, timer[63:5]};
        3'd6: tick_0 = {4'b0, timer[63:6]};
        default: tick_0 = {5'b0, timer[63:7]};
    endcase
end

reg       enable_prev_reg = 1'b0;
reg [2:0] resolution_prev_reg = 3'd0;
reg [7:0] queue_mask_prev_reg = 8'd0;
reg [2:0] event_mask_prev_reg = 3'd0;

wire config_changed_0 = config_resolution != resolution_prev_reg
    || config_queue_mask != queue_mask_prev_reg
    || config_event_mask != event_mask_prev_reg;
wire close_0 = (config_enable && (config_changed_0 || command_flush))
    || (enable_prev_reg && !config_enable);
wire seq_reset_0 = config_enable && !enable_prev_reg;

// Stage 1: registered record, pending flags, FIFO write

reg [23:0]                   events_1_reg = 24'd0;
reg [24*8-1:0]               lengths_1_reg = {24*8{1'b0}};
reg [8*QUEUE_SIZE_WIDTH-1:0] occupancy_1_reg = {8*QUEUE_SIZE_WIDTH{1'b0}};
reg [61:0]                   tick_1_reg = 62'd0;
reg [2:0]                    resolution_1_reg = 3'd0;
reg                          close_1_reg = 1'b0;
reg                          seq_reset_1_reg = 1'b0;

reg pend_close_reg = 1'b0;
reg pend_seq_reset_reg = 1'b0;
reg pend_missed_reg = 1'b0;

reg [63:0] events_missed_reg = 64'd0;

function [4:0] popcount24;
    input [23:0] bits;
    integer i;
    begin
        popcount24 = 5'd0;
        for (i = 0; i < 24; i = i + 1) begin
            popcount24 = popcount24 + {4'd0, bits[i]};
        end
    end
endfunction

wire any_event_1 = |events_1_reg;
wire want_1 = any_event_1 || close_1_reg || seq_reset_1_reg || pend_close_reg || pend_seq_reset_reg;
wire write_1 = want_1 && !record_fifo_full;
wire drop_1 = want_1 && record_fifo_full && any_event_1;

assign m_record_tick = tick_1_reg;
assign m_record_resolution = resolution_1_reg;
assign m_record_events = events_1_reg;
assign m_record_lengths = lengths_1_reg;
assign m_record_occupancy = occupancy_1_reg;
assign m_record_occupancy_after = queue_occupancy;
assign m_record_close_before = close_1_reg || pend_close_reg;
assign m_record_seq_reset = seq_reset_1_reg || pend_seq_reset_reg;
assign m_record_missed_before = pend_missed_reg;
assign m_record_valid = write_1;

assign status_events_missed = events_missed_reg;

always @(posedge clk) begin
    enable_prev_reg <= config_enable;
    resolution_prev_reg <= config_resolution;
    queue_mask_prev_reg <= config_queue_mask;
    event_mask_prev_reg <= config_event_mask;

    events_1_reg <= events_0;
    lengths_1_reg <= lengths_0;
    occupancy_1_reg <= queue_occupancy;
    tick_1_reg <= tick_0;
    resolution_1_reg <= config_resolution;
    close_1_reg <= close_0;
    seq_reset_1_reg <= seq_reset_0;

    if (write_1) begin
        pend_close_reg <= 1'b0;
        pend_seq_reset_reg <= 1'b0;
        pend_missed_reg <= 1'b0;
    end else if (want_1) begin
        pend_close_reg <= pend_close_reg || close_1_reg;
        pend_seq_reset_reg <= pend_seq_reset_reg || seq_reset_1_reg;
        if (any_event_1) begin
            pend_missed_reg <= 1'b1;
        end
    end

    events_missed_reg <= (command_clear_events_missed ? 64'd0 : events_missed_reg)
        + (drop_1 ? {59'd0, popcount24(events_1_reg)} : 64'd0);

    if (rst) begin
        enable_prev_reg <= 1'b0;
        resolution_prev_reg <= 3'd0;
        queue_mask_prev_reg <= 8'd0;
        event_mask_prev_reg <= 3'd0;
        events_1_reg <= 24'd0;
        close_1_reg <= 1'b0;
        seq_reset_1_reg <= 1'b0;
        pend_close_reg <= 1'b0;
        pend_seq_reset_reg <= 1'b0;
        pend_missed_reg <= 1'b0;
        events_missed_reg <= 64'd0;
    end
end

endmodule

`resetall
