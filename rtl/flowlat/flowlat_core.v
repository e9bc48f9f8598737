/*
 * flowlat_core: the flow-latency monitor of the 4 MAC ports (docs/flowlat.md), SAI TAM's
 * flow-latency events (seed 003): the residence time of every IPv4 frame leaving a MAC port,
 * its flow group, the flow's state, and an event when the flow's latency profile says so.
 *
 *   MAC port 0 output (observed) --> flowlat_tap --> hold --.
 *   MAC port 1 output            --> flowlat_tap --> hold --+--> round robin --> record FIFO
 *   MAC port 2 output            --> flowlat_tap --> hold --+       (16)             |
 *   MAC port 3 output            --> flowlat_tap --> hold --'                        v
 *                      rules, profiles (registers) --> flowlat_table (match, flows, events)
 *                                                                                    |
 *                                                        m_event <-- event FIFO <----'
 *                                                                       (64)
 *
 * A port's tap makes at most one record per 5 clocks (a frame has at least 5 words to be
 * monitored); the round robin serves each port within 4 clocks, so a record is lost only when
 * the record FIFO is full (records_lost; the table takes one per 4 clocks). Events wait in the
 * event FIFO for the exporter; the table counts those that find it full.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module flowlat_core #(
    // log2 of the flow table's sets (4 ways each)
    parameter SET_BITS = 11,
    // Clocks per microsecond
    parameter CLOCKS_PER_US = 125
) (
    input  wire              clk,
    input  wire              rst,

    // The MAC ports' output streams, observed (port i in the i-th slice)
    input  wire [4*64-1:0]   tap_tdata,
    input  wire [3:0]        tap_tvalid,
    input  wire [3:0]        tap_tready,
    input  wire [3:0]        tap_tlast,
    // Their sideband, valid in the clock of a frame's first word's handshake: residence time
    // (signed ns), RX stamp present, TX stamp, ingress port, occupancy of the frame's queue
    input  wire [4*32-1:0]   residence,
    input  wire [3:0]        rx_valid,
    input  wire [4*62-1:0]   tx_stamp,
    input  wire [4*3-1:0]    ingress,
    input  wire [4*20-1:0]   occupancy,

    // Configuration and commands (flowlat_table's)
    input  wire              config_enable,
    input  wire [16*128-1:0] config_rules,
    input  wire [8*128-1:0]  config_profiles,
    input  wire [31:0]       config_idle_timeout_us,
    input  wire              command_clear,
    input  wire              command_lookup,
    input  wire [103:0]      lookup_key,
    output wire              lookup_done,
    output wire              lookup_found,
    output wire [3:0]        lookup_group,
    output wire              lookup_breach,
    output wire [31:0]       lookup_last_residence,
    output wire [31:0]       lookup_max_residence,
    output wire [31:0]       lookup_packets,
    output wire [31:0]       lookup_last_seen_us,
    output wire              status_clearing,
    output wire [31:0]       now_us,

    // Events, oldest first (flowlat_table's layout), and how many wait
    output wire [295:0]      m_event,
    output wire              m_event_valid,
    input  wire              m_event_ready,
    output wire [6:0]        m_event_count,

    // Records waiting for the table
    output wire [4:0]        status_records_waiting,

    // One-clock pulses for the counters
    output wire [3:0]        count_not_ipv4,          // per port
    output wire [3:0]        count_no_stamp,          // per port
    output reg  [3:0]        count_records_lost = 4'd0, // per port: the record FIFO was full
    output wire              count_monitored,
    output wire              count_unmatched,
    output wire              count_table_full,
    output wire              count_evicted,
    output wire              count_evicted_in_breach,
    output wire              count_events,
    output wire              count_events_lost
);

// The ports' records: arrays rather than packed vectors, so that a simulator makes no 892-bit
// copies with bit shifts in every clock (223 is not a multiple of 32)
wire [3:0]     tap_valid;
wire [222:0]   tap_record[0:3];

genvar i;
generate
    for (i = 0; i < 4; i = i + 1) begin : port
        flowlat_tap #(
            .PORT(i)
        ) tap (
            .clk(clk),
            .rst(rst),
            .tap_tdata(tap_tdata[64*i +: 64]),
            .tap_tvalid(tap_tvalid[i]),
            .tap_tready(tap_tready[i]),
            .tap_tlast(tap_tlast[i]),
            .residence(residence[32*i +: 32]),
            .rx_valid(rx_valid[i]),
            .tx_stamp(tx_stamp[62*i +: 62]),
            .ingress(ingress[3*i +: 3]),
            .occupancy(occupancy[20*i +: 20]),
            .record_valid(tap_valid[i]),
            .record(tap_record[i]),
            .not_ipv4(count_not_ipv4[i]),
            .no_stamp(count_no_stamp[i])
        );
    end
endgenerate

// One record held per port until the round robin takes it into the FIFO
reg [3:0]        held = 4'd0;
reg [222:0]      held_record[0:3];   // (no initial value: read only when held)
reg [1:0]        turn = 2'd0;    // the port served first
wire             fifo_ready;
reg  [1:0]       chosen;
reg              any;
integer k;

// (the loops below are skipped when no port has a record: the same values, and a simulator
// then tries no port in a clock without records)
always @* begin
    any = 1'b0;
    chosen = turn;
    if (held != 4'd0)
        for (k = 3; k >= 0; k = k - 1)
            if (held[(turn + k[1:0]) & 2'd3]) begin
                any = 1'b1;
                chosen = (turn + k[1:0]) & 2'd3;
            end
end

wire take = any && fifo_ready;

always @(posedge clk) begin
    count_records_lost <= 4'd0;
    if (take) begin
        held[chosen] <= 1'b0;
        turn <= chosen + 2'd1;
    end
    if (tap_valid != 4'd0) begin
        for (k = 0; k < 4; k = k + 1) begin
            if (tap_valid[k]) begin
                // a new record replaces one still held only when the FIFO stayed full
                if (held[k] && !(take && chosen == k[1:0]))
                    count_records_lost[k] <= 1'b1;
                held[k] <= 1'b1;
                held_record[k] <= tap_record[k];
            end
        end
    end
    if (rst) begin
        held <= 4'd0;
        turn <= 2'd0;
        count_records_lost <= 4'd0;
    end
end

wire [222:0] record;
wire         record_valid;
wire         record_ready;

flowlat_fifo #(
    .WIDTH(223),
    .DEPTH_LOG2(4)
) record_fifo (
    .clk(clk),
    .rst(rst),
    .s_data(held_record[chosen]),
    .s_valid(take),
    .s_ready(fifo_ready),
    .m_data(record),
    .m_valid(record_valid),
    .m_ready(record_ready),
    .count(status_records_waiting)
);

wire [295:0] event_data;
wire         event_push;
wire         event_ready;

flowlat_table #(
    .SET_BITS(SET_BITS),
    .CLOCKS_PER_US(CLOCKS_PER_US)
) table_ (
    .clk(clk),
    .rst(rst),
    .s_record(record),
    .s_record_valid(record_valid),
    .s_record_ready(record_ready),
    .config_enable(config_enable),
    .config_rules(config_rules),
    .config_profiles(config_profiles),
    .config_idle_timeout_us(config_idle_timeout_us),
    .command_clear(command_clear),
    .command_lookup(command_lookup),
    .lookup_key(lookup_key),
    .lookup_done(lookup_done),
    .lookup_found(lookup_found),
    .lookup_group(lookup_group),
    .lookup_breach(lookup_breach),
    .lookup_last_residence(lookup_last_residence),
    .lookup_max_residence(lookup_max_residence),
    .lookup_packets(lookup_packets),
    .lookup_last_seen_us(lookup_last_seen_us),
    .status_clearing(status_clearing),
    .now_us(now_us),
    .m_event(event_data),
    .m_event_valid(event_push),
    .m_event_ready(event_ready),
    .count_monitored(count_monitored),
    .count_unmatched(count_unmatched),
    .count_table_full(count_table_full),
    .count_evicted(count_evicted),
    .count_evicted_in_breach(count_evicted_in_breach),
    .count_events(count_events),
    .count_events_lost(count_events_lost)
);

flowlat_fifo #(
    .WIDTH(296),
    .DEPTH_LOG2(6)
) event_fifo (
    .clk(clk),
    .rst(rst),
    .s_data(event_data),
    .s_valid(event_push),
    .s_ready(event_ready),
    .m_data(m_event),
    .m_valid(m_event_valid),
    .m_ready(m_event_ready),
    .count(m_event_count)
);

endmodule

`resetall
