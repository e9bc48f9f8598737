/*
 * evcap_core: event capture for the 8 output queues of the switch, without its registers.
 *
 * Watches every arrival, departure and drop of the 8 queues, timestamps them at 8 ns << c,
 * and sends them as stat packets (format version 2, docs/packet-format.md) on an AXI4-Stream
 * whose tuser carries the output-port mask. Configuration arrives as plain signals (from
 * evcap_regs in the evcap wrapper), so a test bench can drive it clock by clock.
 *
 *   intake --> record FIFO --> serializer --> packet ring ------------> packet output --> m_axis
 *                                    \-----> descriptor FIFO ------/
 *
 * Buffering: RECORD_FIFO_DEPTH_LOG2 records of up to 24 events each (one record per clock
 * that has events) and a packet ring of 2^PACKET_RAM_DEPTH_LOG2 64-bit words. Only the intake
 * can lose events, when the record FIFO is full; it counts them in events_missed. The bound
 * is derived in docs/packet-format.md.
 *
 * Clock-by-clock behaviour, which the reference model in sw/driver/src/evcap_model.c
 * reproduces: docs/evcap-architecture.md.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module evcap_core #(
    // Width of each queue's occupancy input, in 64-bit words (at most 32)
    parameter QUEUE_SIZE_WIDTH = 20,
    // log2 of the record FIFO depth (one record per clock with events)
    parameter RECORD_FIFO_DEPTH_LOG2 = 9,
    // log2 of the packet ring size in 64-bit words; must hold a 9000-byte packet (>= 11)
    parameter PACKET_RAM_DEPTH_LOG2 = 11,
    // log2 of the number of closed packets waiting to be sent
    parameter DESCRIPTOR_FIFO_DEPTH_LOG2 = 4
) (
    input  wire                          clk,
    input  wire                          rst,

    // Queue events: strobe bit q for queue q; 16-bit lengths in 64-bit words, queue q in
    // bits 16q+15:16q; occupancy of queue q (words, before this clock's events) in
    // bits QUEUE_SIZE_WIDTH*(q+1)-1:QUEUE_SIZE_WIDTH*q
    input  wire [7:0]                    queue_arrival,
    input  wire [8*16-1:0]               queue_arrival_length,
    input  wire [7:0]                    queue_departure,
    input  wire [8*16-1:0]               queue_departure_length,
    input  wire [7:0]                    queue_drop,
    input  wire [8*16-1:0]               queue_drop_length,
    input  wire [8*QUEUE_SIZE_WIDTH-1:0] queue_occupancy,

    // Stat packets; tuser = output port mask
    output wire [63:0]                   m_axis_tdata,
    output wire [7:0]                    m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire [7:0]                    m_axis_tuser,

    // Configuration
    input  wire                          config_enable,
    input  wire [2:0]                    config_resolution,
    input  wire [7:0]                    config_queue_mask,
    input  wire [2:0]                    config_event_mask,
    input  wire [7:0]                    config_output_ports,
    input  wire [47:0]                   config_destination_mac,
    input  wire [47:0]                   config_source_mac,
    input  wire [31:0]                   config_source_ip,
    input  wire [31:0]                   config_destination_ip,
    input  wire [7:0]                    config_tos,
    input  wire [7:0]                    config_ttl,
    input  wire [15:0]                   config_udp_source_port,
    input  wire [15:0]                   config_udp_destination_port,
    input  wire [15:0]                   config_max_length,
    input  wire [31:0]                   config_flush_timeout,
    input  wire [63:0]                   config_timer_preset,

    // Commands (one-clock pulses)
    input  wire                          command_flush,
    input  wire                          command_timer_reset,
    input  wire                          command_timer_load,
    input  wire                          command_clear_events_missed,
    input  wire                          command_clear_events_sent,
    input  wire                          command_clear_packets_sent,

    // Status
    output wire [63:0]                   status_timer,
    output wire [63:0]                   status_events_missed,
    output wire [63:0]                   status_events_sent,
    output wire [63:0]                   status_packets_sent
);

generate
    if (QUEUE_SIZE_WIDTH < 1 || QUEUE_SIZE_WIDTH > 32) begin : check_queue_size_width
        evcap_core_error_QUEUE_SIZE_WIDTH_must_be_1_to_32 bad_parameter();
    end
    if (PACKET_RAM_DEPTH_LOG2 < 11) begin : check_packet_ram
        evcap_core_error_PACKET_RAM_DEPTH_LOG2_must_hold_a_9000_byte_packet bad_parameter();
    end
endgenerate

localparam OCCUPANCY_WIDTH = 8 * QUEUE_SIZE_WIDTH;
// tick, resolution, events, lengths, occupancy before and after, three flags
localparam RECORD_WIDTH = 62 + 3 + 24 + 24 * 8 + 2 * OCCUPANCY_WIDTH + 3;
// seq, slots, events, missed, resolution, snapshot
localparam DESCRIPTOR_WIDTH = 32 + 12 + 12 + 1 + 3 + OCCUPANCY_WIDTH;

wire [63:0] timer;

evcap_timer timer_inst (
    .clk(clk),
    .rst(rst),
    .timer_reset(command_timer_reset),
    .timer_load(command_timer_load),
    .timer_preset(config_timer_preset),
    .timer(timer)
);

// Intake -> record FIFO

wire [61:0]                intake_tick;
wire [2:0]                 intake_resolution;
wire [23:0]                intake_events;
wire [24*8-1:0]            intake_lengths;
wire [OCCUPANCY_WIDTH-1:0] intake_occupancy;
wire [OCCUPANCY_WIDTH-1:0] intake_occupancy_after;
wire                       intake_close_before;
wire                       intake_seq_reset;
wire                       intake_missed_before;
wire                       intake_valid;
wire                       record_fifo_full;

evcap_intake #(
    .QUEUE_SIZE_WIDTH(QUEUE_SIZE_WIDTH)
) intake_inst (
    .clk(clk),
    .rst(rst),
    .queue_arrival(queue_arrival),
    .queue_arrival_length(queue_arrival_length),
    .queue_departure(queue_departure),
    .queue_departure_length(queue_departure_length),
    .queue_drop(queue_drop),
    .queue_drop_length(queue_drop_length),
    .queue_occupancy(queue_occupancy),
    .timer(timer),
    .config_enable(config_enable),
    .config_resolution(config_resolution),
    .config_queue_mask(config_queue_mask),
    .config_event_mask(config_event_mask),
    .command_flush(command_flush),
    .m_record_tick(intake_tick),
    .m_record_resolution(intake_resolution),
    .m_record_events(intake_events),
    .m_record_lengths(intake_lengths),
    .m_record_occupancy(intake_occupancy),
    .m_record_occupancy_after(intake_occupancy_after),
    .m_record_close_before(intake_close_before),
    .m_record_seq_reset(intake_seq_reset),
    .m_record_missed_before(intake_missed_before),
    .m_record_valid(intake_valid),
    .record_fifo_full(record_fifo_full),
    .command_clear_events_missed(command_clear_events_missed),
    .status_events_missed(status_events_missed)
);

wire [RECORD_WIDTH-1:0] record_in = {intake_tick, intake_resolution, intake_events, intake_lengths,
    intake_occupancy, intake_occupancy_after, intake_close_before, intake_seq_reset,
    intake_missed_before};
wire [RECORD_WIDTH-1:0] record_out;
wire                    record_valid;
wire                    record_ready;

evcap_fifo #(
    .WIDTH(RECORD_WIDTH),
    .DEPTH_LOG2(RECORD_FIFO_DEPTH_LOG2)
) record_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data(record_in),
    .s_valid(intake_valid),
    .full(record_fifo_full),
    .m_data(record_out),
    .m_valid(record_valid),
    .m_ready(record_ready)
);

// Serializer -> ring and descriptor FIFO

wire [63:0]                ring_in;
wire                       ring_in_valid;
wire                       ring_full;
wire [63:0]                ring_out;
wire                       ring_out_valid;
wire                       ring_out_ready;

wire [31:0]                descriptor_seq;
wire [11:0]                descriptor_slots;
wire [11:0]                descriptor_events;
wire                       descriptor_missed;
wire [2:0]                 descriptor_resolution;
wire [OCCUPANCY_WIDTH-1:0] descriptor_snapshot;
wire                       descriptor_in_valid;
wire                       descriptor_fifo_full;

evcap_serializer #(
    .QUEUE_SIZE_WIDTH(QUEUE_SIZE_WIDTH)
) serializer_inst (
    .clk(clk),
    .rst(rst),
    .s_record_tick(record_out[RECORD_WIDTH-1 -: 62]),
    .s_record_resolution(record_out[RECORD_WIDTH-63 -: 3]),
    .s_record_events(record_out[RECORD_WIDTH-66 -: 24]),
    .s_record_lengths(record_out[RECORD_WIDTH-90 -: 24*8]),
    .s_record_occupancy(record_out[2*OCCUPANCY_WIDTH+2:OCCUPANCY_WIDTH+3]),
    .s_record_occupancy_after(record_out[OCCUPANCY_WIDTH+2:3]),
    .s_record_close_before(record_out[2]),
    .s_record_seq_reset(record_out[1]),
    .s_record_missed_before(record_out[0]),
    .s_record_valid(record_valid),
    .s_record_ready(record_ready),
    .m_ring_data(ring_in),
    .m_ring_valid(ring_in_valid),
    .ring_full(ring_full),
    .m_descriptor_seq(descriptor_seq),
    .m_descriptor_slots(descriptor_slots),
    .m_descriptor_events(descriptor_events),
    .m_descriptor_missed(descriptor_missed),
    .m_descriptor_resolution(descriptor_resolution),
    .m_descriptor_snapshot(descriptor_snapshot),
    .m_descriptor_valid(descriptor_in_valid),
    .descriptor_fifo_full(descriptor_fifo_full),
    .config_max_length(config_max_length),
    .config_flush_timeout(config_flush_timeout)
);

evcap_fifo #(
    .WIDTH(64),
    .DEPTH_LOG2(PACKET_RAM_DEPTH_LOG2)
) ring_inst (
    .clk(clk),
    .rst(rst),
    .s_data(ring_in),
    .s_valid(ring_in_valid),
    .full(ring_full),
    .m_data(ring_out),
    .m_valid(ring_out_valid),
    .m_ready(ring_out_ready)
);

wire [DESCRIPTOR_WIDTH-1:0] descriptor_in = {descriptor_seq, descriptor_slots, descriptor_events,
    descriptor_missed, descriptor_resolution, descriptor_snapshot};
wire [DESCRIPTOR_WIDTH-1:0] descriptor_out;
wire                        descriptor_out_valid;
wire                        descriptor_out_ready;

evcap_fifo #(
    .WIDTH(DESCRIPTOR_WIDTH),
    .DEPTH_LOG2(DESCRIPTOR_FIFO_DEPTH_LOG2)
) descriptor_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data(descriptor_in),
    .s_valid(descriptor_in_valid),
    .full(descriptor_fifo_full),
    .m_data(descriptor_out),
    .m_valid(descriptor_out_valid),
    .m_ready(descriptor_out_ready)
);

evcap_packet_output #(
    .QUEUE_SIZE_WIDTH(QUEUE_SIZE_WIDTH)
) packet_output_inst (
    .clk(clk),
    .rst(rst),
    .s_descriptor_seq(descriptor_out[DESCRIPTOR_WIDTH-1 -: 32]),
    .s_descriptor_slots(descriptor_out[DESCRIPTOR_WIDTH-33 -: 12]),
    .s_descriptor_events(descriptor_out[DESCRIPTOR_WIDTH-45 -: 12]),
    .s_descriptor_missed(descriptor_out[OCCUPANCY_WIDTH+3]),
    .s_descriptor_resolution(descriptor_out[OCCUPANCY_WIDTH+2:OCCUPANCY_WIDTH]),
    .s_descriptor_snapshot(descriptor_out[OCCUPANCY_WIDTH-1:0]),
    .s_descriptor_valid(descriptor_out_valid),
    .s_descriptor_ready(descriptor_out_ready),
    .s_ring_data(ring_out),
    .s_ring_valid(ring_out_valid),
    .s_ring_ready(ring_out_ready),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser),
    .config_output_ports(config_output_ports),
    .config_destination_mac(config_destination_mac),
    .config_source_mac(config_source_mac),
    .config_source_ip(config_source_ip),
    .config_destination_ip(config_destination_ip),
    .config_tos(config_tos),
    .config_ttl(config_ttl),
    .config_udp_source_port(config_udp_source_port),
    .config_udp_destination_port(config_udp_destination_port),
    .command_clear_events_sent(command_clear_events_sent),
    .command_clear_packets_sent(command_clear_packets_sent),
    .status_events_sent(status_events_sent),
    .status_packets_sent(status_packets_sent)
);

assign status_timer = timer;

endmodule

`resetall
