/*
 * flowlat_block: the flow-latency monitor of the 4 MAC ports and its IPFIX exporter, with
 * their registers (block `flowlat`, regmap/flowlat.toml; docs/flowlat.md).
 *
 *   MAC ports' outputs (observed) --> tap_* + sideband --> flowlat_core --> m_event --.
 *                                                          (taps, rules, flow table,  |
 *                                                           lookup, event FIFO 64)    |
 *                                                                                     v
 *   m_axis (IPFIX frames, tuser = export_ports) <-- flowlat_ipfix <-- s_event <-------'
 *                                                      ^ tod_seconds
 *
 *   registers (flowlat_regs) --> control, rules (16), profiles (8), idle timeout, lookup key,
 *                                commands, the exporter's headers
 *                            <-- status, now_us, the lookup's answer, counters <-- the pulses
 *
 * The registers keep the rules and the profiles in flowlat_table's layouts (128 bits a rule,
 * 128 bits a profile: flowlat_regs' tables), wired to the table as they are. The MTU register
 * is taken as 200 when below, 9000 when above. m_axis_tuser is control.export_ports, taken at a
 * frame's first word and held to its last, so that a frame goes out of one set of ports
 * whatever software writes meanwhile.
 *
 * status.clearing is 1 from the clear command (the table starts the clear a few clocks later)
 * to the end of the clear, so that software polling it after the command cannot miss it.
 *
 * lookup_status.done is set by the table's lookup_done pulse and cleared by the lookup command
 * (a command in the clock of a done pulse wins: its answer comes later); found, breach, group
 * and the lookup_* values are the table's, valid while done is 1.
 *
 * Counters: 64 bits, next = (clear ? 0 : value) + increment, where the increment is the
 * number of pulses in the clock: records_lost, not_ipv4 and no_stamp are summed over the 4
 * MAC ports' pulses (0..4 in one clock, none lost); the others have one pulse a clock.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module flowlat_block #(
    // log2 of the flow table's sets (4 ways each): 11 gives 8192 flows
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

    // Time of day: seconds (low 32 bits), the IPFIX export time and template interval
    input  wire [31:0]       tod_seconds,

    // The IPFIX frames (byte k of a frame in byte k%8 of word k/8)
    output wire [63:0]       m_axis_tdata,
    output wire [7:0]        m_axis_tkeep,
    output wire              m_axis_tvalid,
    input  wire              m_axis_tready,
    output wire              m_axis_tlast,
    output wire [7:0]        m_axis_tuser,   // the output port mask (control.export_ports)

    // Registers (block-local addresses)
    input  wire [11:0]       s_axil_awaddr,
    input  wire [2:0]        s_axil_awprot,
    input  wire              s_axil_awvalid,
    output wire              s_axil_awready,
    input  wire [31:0]       s_axil_wdata,
    input  wire [3:0]        s_axil_wstrb,
    input  wire              s_axil_wvalid,
    output wire              s_axil_wready,
    output wire [1:0]        s_axil_bresp,
    output wire              s_axil_bvalid,
    input  wire              s_axil_bready,
    input  wire [11:0]       s_axil_araddr,
    input  wire [2:0]        s_axil_arprot,
    input  wire              s_axil_arvalid,
    output wire              s_axil_arready,
    output wire [31:0]       s_axil_rdata,
    output wire [1:0]        s_axil_rresp,
    output wire              s_axil_rvalid,
    input  wire              s_axil_rready
);

// Counters (regmap order)
localparam MONITORED = 0;
localparam UNMATCHED = 1;
localparam TABLE_FULL = 2;
localparam EVICTED = 3;
localparam EVICTED_IN_BREACH = 4;
localparam EVENTS = 5;
localparam EVENTS_LOST = 6;
localparam RECORDS_LOST = 7;
localparam NOT_IPV4 = 8;
localparam NO_STAMP = 9;
localparam MESSAGES = 10;
localparam TEMPLATES = 11;
localparam RECORDS_EXPORTED = 12;
localparam COUNTERS = 13;

// ---------------------------------------------------------------------------------------------
// Registers

wire         control_monitor_enable;
wire         control_export_enable;
wire [7:0]   control_export_ports;
wire         command_clear;
wire         command_lookup;
wire         command_send_template;
wire [31:0]  idle_timeout_us;
wire [47:0]  ipfix_destination_mac;
wire [47:0]  ipfix_source_mac;
wire [31:0]  ipfix_source_ip;
wire [31:0]  ipfix_destination_ip;
wire [15:0]  ipfix_source_port;
wire [15:0]  ipfix_destination_port;
wire [31:0]  observation_domain;
wire [31:0]  enterprise_number;
wire [15:0]  template_interval_s;
wire [15:0]  mtu;
wire [31:0]  flush_timeout_us;
wire [31:0]  lookup_src_ip;
wire [31:0]  lookup_dst_ip;
wire [15:0]  lookup_sport;
wire [15:0]  lookup_dport;
wire [7:0]   lookup_protocol;

// The rules and the profiles, in flowlat_table's layouts as flowlat_regs stores them (its
// `rules` and `profiles` tables, regmap/flowlat.toml): wired through, no logic in between
wire [16*128-1:0] config_rules;
wire [8*128-1:0]  config_profiles;

// The monitor's status and the lookup's answer
wire         status_clearing;
wire [6:0]   status_events_waiting;
wire [4:0]   status_records_waiting;
wire [31:0]  now_us;
wire         lookup_done;
wire         lookup_found;
wire [3:0]   lookup_group;
wire         lookup_breach;
wire [31:0]  lookup_last_residence;
wire [31:0]  lookup_max_residence;
wire [31:0]  lookup_packets;
wire [31:0]  lookup_last_seen_us;
reg          lookup_answered = 1'b0;   // lookup_status.done
reg          clear_requested = 1'b0;   // a clear command the table has not started yet
reg          was_clearing = 1'b0;

wire [64*COUNTERS-1:0] counter_value;
wire [COUNTERS-1:0]    counter_clear;
wire [3*COUNTERS-1:0]  counter_increment;   // pulses in this clock, 0..4

flowlat_regs regs_inst (
    .clk(clk),
    .rst(rst),
    .s_axil_awaddr(s_axil_awaddr),
    .s_axil_awprot(s_axil_awprot),
    .s_axil_awvalid(s_axil_awvalid),
    .s_axil_awready(s_axil_awready),
    .s_axil_wdata(s_axil_wdata),
    .s_axil_wstrb(s_axil_wstrb),
    .s_axil_wvalid(s_axil_wvalid),
    .s_axil_wready(s_axil_wready),
    .s_axil_bresp(s_axil_bresp),
    .s_axil_bvalid(s_axil_bvalid),
    .s_axil_bready(s_axil_bready),
    .s_axil_araddr(s_axil_araddr),
    .s_axil_arprot(s_axil_arprot),
    .s_axil_arvalid(s_axil_arvalid),
    .s_axil_arready(s_axil_arready),
    .s_axil_rdata(s_axil_rdata),
    .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid),
    .s_axil_rready(s_axil_rready),
    .control_monitor_enable(control_monitor_enable),
    .control_export_enable(control_export_enable),
    .control_export_ports(control_export_ports),
    .command_clear(command_clear),
    .command_lookup(command_lookup),
    .command_send_template(command_send_template),
    .status({status_records_waiting, 1'b0, status_events_waiting, 7'd0,
             status_clearing || clear_requested}),
    .now_us(now_us),
    .idle_timeout_us(idle_timeout_us),
    .ipfix_destination_mac(ipfix_destination_mac),
    .ipfix_source_mac(ipfix_source_mac),
    .ipfix_source_ip(ipfix_source_ip),
    .ipfix_destination_ip(ipfix_destination_ip),
    .ipfix_ports_source(ipfix_source_port),
    .ipfix_ports_destination(ipfix_destination_port),
    .observation_domain(observation_domain),
    .enterprise_number(enterprise_number),
    .template_interval_s(template_interval_s),
    .mtu(mtu),
    .flush_timeout_us(flush_timeout_us),
    .lookup_src_ip(lookup_src_ip),
    .lookup_dst_ip(lookup_dst_ip),
    .lookup_ports_sport(lookup_sport),
    .lookup_ports_dport(lookup_dport),
    .lookup_protocol(lookup_protocol),
    .lookup_status({lookup_group, 1'b0, lookup_breach, lookup_found, lookup_answered}),
    .lookup_last_residence(lookup_last_residence),
    .lookup_max_residence(lookup_max_residence),
    .lookup_packets(lookup_packets),
    .lookup_last_seen_us(lookup_last_seen_us),
    .rules(config_rules),
    .profiles(config_profiles),
    .monitored(counter_value[64*MONITORED +: 64]),
    .monitored_clear(counter_clear[MONITORED]),
    .unmatched(counter_value[64*UNMATCHED +: 64]),
    .unmatched_clear(counter_clear[UNMATCHED]),
    .table_full(counter_value[64*TABLE_FULL +: 64]),
    .table_full_clear(counter_clear[TABLE_FULL]),
    .evicted(counter_value[64*EVICTED +: 64]),
    .evicted_clear(counter_clear[EVICTED]),
    .evicted_in_breach(counter_value[64*EVICTED_IN_BREACH +: 64]),
    .evicted_in_breach_clear(counter_clear[EVICTED_IN_BREACH]),
    .events(counter_value[64*EVENTS +: 64]),
    .events_clear(counter_clear[EVENTS]),
    .events_lost(counter_value[64*EVENTS_LOST +: 64]),
    .events_lost_clear(counter_clear[EVENTS_LOST]),
    .records_lost(counter_value[64*RECORDS_LOST +: 64]),
    .records_lost_clear(counter_clear[RECORDS_LOST]),
    .not_ipv4(counter_value[64*NOT_IPV4 +: 64]),
    .not_ipv4_clear(counter_clear[NOT_IPV4]),
    .no_stamp(counter_value[64*NO_STAMP +: 64]),
    .no_stamp_clear(counter_clear[NO_STAMP]),
    .messages(counter_value[64*MESSAGES +: 64]),
    .messages_clear(counter_clear[MESSAGES]),
    .templates(counter_value[64*TEMPLATES +: 64]),
    .templates_clear(counter_clear[TEMPLATES]),
    .records_exported(counter_value[64*RECORDS_EXPORTED +: 64]),
    .records_exported_clear(counter_clear[RECORDS_EXPORTED])
);

// The exporter's MTU, within 200..9000
wire [15:0] config_mtu = mtu < 16'd200 ? 16'd200 : mtu > 16'd9000 ? 16'd9000 : mtu;

// ---------------------------------------------------------------------------------------------
// The monitor and the exporter

wire [295:0] event_data;
wire         event_valid;
wire         event_ready;

wire [3:0]   count_not_ipv4;
wire [3:0]   count_no_stamp;
wire [3:0]   count_records_lost;
wire         count_monitored;
wire         count_unmatched;
wire         count_table_full;
wire         count_evicted;
wire         count_evicted_in_breach;
wire         count_events;
wire         count_events_lost;
wire         count_message;
wire         count_template;
wire         count_record;

flowlat_core #(
    .SET_BITS(SET_BITS),
    .CLOCKS_PER_US(CLOCKS_PER_US)
) core_inst (
    .clk(clk),
    .rst(rst),
    .tap_tdata(tap_tdata),
    .tap_tvalid(tap_tvalid),
    .tap_tready(tap_tready),
    .tap_tlast(tap_tlast),
    .residence(residence),
    .rx_valid(rx_valid),
    .tx_stamp(tx_stamp),
    .ingress(ingress),
    .occupancy(occupancy),
    .config_enable(control_monitor_enable),
    .config_rules(config_rules),
    .config_profiles(config_profiles),
    .config_idle_timeout_us(idle_timeout_us),
    .command_clear(command_clear),
    .command_lookup(command_lookup),
    .lookup_key({lookup_dport, lookup_sport, lookup_protocol, lookup_dst_ip, lookup_src_ip}),
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
    .m_event_valid(event_valid),
    .m_event_ready(event_ready),
    .m_event_count(status_events_waiting),
    .status_records_waiting(status_records_waiting),
    .count_not_ipv4(count_not_ipv4),
    .count_no_stamp(count_no_stamp),
    .count_records_lost(count_records_lost),
    .count_monitored(count_monitored),
    .count_unmatched(count_unmatched),
    .count_table_full(count_table_full),
    .count_evicted(count_evicted),
    .count_evicted_in_breach(count_evicted_in_breach),
    .count_events(count_events),
    .count_events_lost(count_events_lost)
);

flowlat_ipfix #(
    .CLOCKS_PER_US(CLOCKS_PER_US)
) ipfix_inst (
    .clk(clk),
    .rst(rst),
    .s_event(event_data),
    .s_event_valid(event_valid),
    .s_event_ready(event_ready),
    .s_event_count(status_events_waiting),
    .tod_seconds(tod_seconds),
    .config_enable(control_export_enable),
    .config_destination_mac(ipfix_destination_mac),
    .config_source_mac(ipfix_source_mac),
    .config_source_ip(ipfix_source_ip),
    .config_destination_ip(ipfix_destination_ip),
    .config_source_port(ipfix_source_port),
    .config_destination_port(ipfix_destination_port),
    .config_observation_domain(observation_domain),
    .config_enterprise_number(enterprise_number),
    .config_template_interval_s(template_interval_s),
    .config_mtu(config_mtu),
    .config_flush_timeout_us(flush_timeout_us),
    .command_send_template(command_send_template),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .count_message(count_message),
    .count_template(count_template),
    .count_record(count_record)
);

// The output ports of the frame being sent: taken at its first word, held to its last
reg       in_frame = 1'b0;
reg [7:0] frame_ports = 8'd0;

always @(posedge clk) begin
    if (m_axis_tvalid && m_axis_tready) begin
        in_frame <= !m_axis_tlast;
        if (!in_frame)
            frame_ports <= control_export_ports;
    end
    if (rst) begin
        in_frame <= 1'b0;
        frame_ports <= 8'd0;
    end
end

assign m_axis_tuser = in_frame ? frame_ports : control_export_ports;

// lookup_status.done: the answer of the last lookup command is there
always @(posedge clk) begin
    if (command_lookup)
        lookup_answered <= 1'b0;
    else if (lookup_done)
        lookup_answered <= 1'b1;
    if (rst)
        lookup_answered <= 1'b0;
end

// status.clearing: from the clear command (the table starts the clear a few clocks later, after
// the record it is busy with) to the end of the clear
always @(posedge clk) begin
    was_clearing <= status_clearing;
    if (command_clear)
        clear_requested <= 1'b1;
    else if (status_clearing && !was_clearing)
        clear_requested <= 1'b0;
    if (rst) begin
        was_clearing <= 1'b0;
        clear_requested <= 1'b0;
    end
end

// ---------------------------------------------------------------------------------------------
// Counters

// Pulses of the 4 MAC ports in one clock, summed
function [2:0] ones4;
    input [3:0] pulses;
    ones4 = {2'd0, pulses[0]} + {2'd0, pulses[1]} + {2'd0, pulses[2]} + {2'd0, pulses[3]};
endfunction

assign counter_increment[3*MONITORED +: 3] = {2'd0, count_monitored};
assign counter_increment[3*UNMATCHED +: 3] = {2'd0, count_unmatched};
assign counter_increment[3*TABLE_FULL +: 3] = {2'd0, count_table_full};
assign counter_increment[3*EVICTED +: 3] = {2'd0, count_evicted};
assign counter_increment[3*EVICTED_IN_BREACH +: 3] = {2'd0, count_evicted_in_breach};
assign counter_increment[3*EVENTS +: 3] = {2'd0, count_events};
assign counter_increment[3*EVENTS_LOST +: 3] = {2'd0, count_events_lost};
assign counter_increment[3*RECORDS_LOST +: 3] = ones4(count_records_lost);
assign counter_increment[3*NOT_IPV4 +: 3] = ones4(count_not_ipv4);
assign counter_increment[3*NO_STAMP +: 3] = ones4(count_no_stamp);
assign counter_increment[3*MESSAGES +: 3] = {2'd0, count_message};
assign counter_increment[3*TEMPLATES +: 3] = {2'd0, count_template};
assign counter_increment[3*RECORDS_EXPORTED +: 3] = {2'd0, count_record};

// One register per counter, written only in a clock that changes it, and tested one by one
// only when one of them changes (a cycle simulator otherwise tests all 13 in every clock)
wire counting = counter_clear != {COUNTERS{1'b0}} || counter_increment != {3*COUNTERS{1'b0}};
genvar c;
generate
    for (c = 0; c < COUNTERS; c = c + 1) begin : counter
        reg [63:0] value = 64'd0;
        always @(posedge clk) begin
            if (counting || rst) begin
                if (rst || counter_clear[c] || counter_increment[3*c +: 3] != 3'd0)
                    value <= rst ? 64'd0 : (counter_clear[c] ? 64'd0 : value)
                                           + {61'd0, counter_increment[3*c +: 3]};
            end
        end
        assign counter_value[64*c +: 64] = value;
    end
endgenerate

endmodule

`resetall
