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
 * The registers are packed into flowlat_table's rule layout (128 bits a rule) and
 * flowlat_table's profile layout (128 bits a profile). The MTU register is taken as 200 when
 * below, 9000 when above. m_axis_tuser is control.export_ports, taken at a frame's first word
 * and held to its last, so that a frame goes out of one set of ports whatever software writes
 * meanwhile.
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

// The rules' and profiles' registers, one wire each (a simulator's alias of the register),
// packed directly into the table's layouts below: no intermediate vectors rebuilt every clock
wire [31:0] rule_src_ip_0, rule_src_ip_1, rule_src_ip_2, rule_src_ip_3, rule_src_ip_4,
            rule_src_ip_5, rule_src_ip_6, rule_src_ip_7, rule_src_ip_8, rule_src_ip_9,
            rule_src_ip_10, rule_src_ip_11, rule_src_ip_12, rule_src_ip_13, rule_src_ip_14,
            rule_src_ip_15;
wire [31:0] rule_dst_ip_0, rule_dst_ip_1, rule_dst_ip_2, rule_dst_ip_3, rule_dst_ip_4,
            rule_dst_ip_5, rule_dst_ip_6, rule_dst_ip_7, rule_dst_ip_8, rule_dst_ip_9,
            rule_dst_ip_10, rule_dst_ip_11, rule_dst_ip_12, rule_dst_ip_13, rule_dst_ip_14,
            rule_dst_ip_15;
wire [15:0] rule_sport_0, rule_sport_1, rule_sport_2, rule_sport_3, rule_sport_4, rule_sport_5,
            rule_sport_6, rule_sport_7, rule_sport_8, rule_sport_9, rule_sport_10, rule_sport_11,
            rule_sport_12, rule_sport_13, rule_sport_14, rule_sport_15;
wire [15:0] rule_dport_0, rule_dport_1, rule_dport_2, rule_dport_3, rule_dport_4, rule_dport_5,
            rule_dport_6, rule_dport_7, rule_dport_8, rule_dport_9, rule_dport_10, rule_dport_11,
            rule_dport_12, rule_dport_13, rule_dport_14, rule_dport_15;
wire [5:0]  rule_src_length_0, rule_src_length_1, rule_src_length_2, rule_src_length_3,
            rule_src_length_4, rule_src_length_5, rule_src_length_6, rule_src_length_7,
            rule_src_length_8, rule_src_length_9, rule_src_length_10, rule_src_length_11,
            rule_src_length_12, rule_src_length_13, rule_src_length_14, rule_src_length_15;
wire [5:0]  rule_dst_length_0, rule_dst_length_1, rule_dst_length_2, rule_dst_length_3,
            rule_dst_length_4, rule_dst_length_5, rule_dst_length_6, rule_dst_length_7,
            rule_dst_length_8, rule_dst_length_9, rule_dst_length_10, rule_dst_length_11,
            rule_dst_length_12, rule_dst_length_13, rule_dst_length_14, rule_dst_length_15;
wire [7:0]  rule_protocol_0, rule_protocol_1, rule_protocol_2, rule_protocol_3, rule_protocol_4,
            rule_protocol_5, rule_protocol_6, rule_protocol_7, rule_protocol_8, rule_protocol_9,
            rule_protocol_10, rule_protocol_11, rule_protocol_12, rule_protocol_13,
            rule_protocol_14, rule_protocol_15;
wire        rule_protocol_any_0, rule_protocol_any_1, rule_protocol_any_2, rule_protocol_any_3,
            rule_protocol_any_4, rule_protocol_any_5, rule_protocol_any_6, rule_protocol_any_7,
            rule_protocol_any_8, rule_protocol_any_9, rule_protocol_any_10, rule_protocol_any_11,
            rule_protocol_any_12, rule_protocol_any_13, rule_protocol_any_14,
            rule_protocol_any_15;
wire        rule_sport_any_0, rule_sport_any_1, rule_sport_any_2, rule_sport_any_3,
            rule_sport_any_4, rule_sport_any_5, rule_sport_any_6, rule_sport_any_7,
            rule_sport_any_8, rule_sport_any_9, rule_sport_any_10, rule_sport_any_11,
            rule_sport_any_12, rule_sport_any_13, rule_sport_any_14, rule_sport_any_15;
wire        rule_dport_any_0, rule_dport_any_1, rule_dport_any_2, rule_dport_any_3,
            rule_dport_any_4, rule_dport_any_5, rule_dport_any_6, rule_dport_any_7,
            rule_dport_any_8, rule_dport_any_9, rule_dport_any_10, rule_dport_any_11,
            rule_dport_any_12, rule_dport_any_13, rule_dport_any_14, rule_dport_any_15;
wire        rule_valid_0, rule_valid_1, rule_valid_2, rule_valid_3, rule_valid_4, rule_valid_5,
            rule_valid_6, rule_valid_7, rule_valid_8, rule_valid_9, rule_valid_10, rule_valid_11,
            rule_valid_12, rule_valid_13, rule_valid_14, rule_valid_15;
wire [2:0]  rule_profile_0, rule_profile_1, rule_profile_2, rule_profile_3, rule_profile_4,
            rule_profile_5, rule_profile_6, rule_profile_7, rule_profile_8, rule_profile_9,
            rule_profile_10, rule_profile_11, rule_profile_12, rule_profile_13, rule_profile_14,
            rule_profile_15;
wire [3:0]  rule_egress_ports_0, rule_egress_ports_1, rule_egress_ports_2, rule_egress_ports_3,
            rule_egress_ports_4, rule_egress_ports_5, rule_egress_ports_6, rule_egress_ports_7,
            rule_egress_ports_8, rule_egress_ports_9, rule_egress_ports_10, rule_egress_ports_11,
            rule_egress_ports_12, rule_egress_ports_13, rule_egress_ports_14,
            rule_egress_ports_15;
wire [31:0] profile_high_0, profile_high_1, profile_high_2, profile_high_3, profile_high_4,
            profile_high_5, profile_high_6, profile_high_7;
wire [31:0] profile_low_0, profile_low_1, profile_low_2, profile_low_3, profile_low_4,
            profile_low_5, profile_low_6, profile_low_7;
wire [31:0] profile_min_interval_us_0, profile_min_interval_us_1, profile_min_interval_us_2,
            profile_min_interval_us_3, profile_min_interval_us_4, profile_min_interval_us_5,
            profile_min_interval_us_6, profile_min_interval_us_7;
wire        profile_stateful_0, profile_stateful_1, profile_stateful_2, profile_stateful_3,
            profile_stateful_4, profile_stateful_5, profile_stateful_6, profile_stateful_7;

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
    .rule_src_ip_0(rule_src_ip_0),
    .rule_src_ip_1(rule_src_ip_1),
    .rule_src_ip_2(rule_src_ip_2),
    .rule_src_ip_3(rule_src_ip_3),
    .rule_src_ip_4(rule_src_ip_4),
    .rule_src_ip_5(rule_src_ip_5),
    .rule_src_ip_6(rule_src_ip_6),
    .rule_src_ip_7(rule_src_ip_7),
    .rule_src_ip_8(rule_src_ip_8),
    .rule_src_ip_9(rule_src_ip_9),
    .rule_src_ip_10(rule_src_ip_10),
    .rule_src_ip_11(rule_src_ip_11),
    .rule_src_ip_12(rule_src_ip_12),
    .rule_src_ip_13(rule_src_ip_13),
    .rule_src_ip_14(rule_src_ip_14),
    .rule_src_ip_15(rule_src_ip_15),
    .rule_dst_ip_0(rule_dst_ip_0),
    .rule_dst_ip_1(rule_dst_ip_1),
    .rule_dst_ip_2(rule_dst_ip_2),
    .rule_dst_ip_3(rule_dst_ip_3),
    .rule_dst_ip_4(rule_dst_ip_4),
    .rule_dst_ip_5(rule_dst_ip_5),
    .rule_dst_ip_6(rule_dst_ip_6),
    .rule_dst_ip_7(rule_dst_ip_7),
    .rule_dst_ip_8(rule_dst_ip_8),
    .rule_dst_ip_9(rule_dst_ip_9),
    .rule_dst_ip_10(rule_dst_ip_10),
    .rule_dst_ip_11(rule_dst_ip_11),
    .rule_dst_ip_12(rule_dst_ip_12),
    .rule_dst_ip_13(rule_dst_ip_13),
    .rule_dst_ip_14(rule_dst_ip_14),
    .rule_dst_ip_15(rule_dst_ip_15),
    .rule_ports_0_sport(rule_sport_0),
    .rule_ports_0_dport(rule_dport_0),
    .rule_ports_1_sport(rule_sport_1),
    .rule_ports_1_dport(rule_dport_1),
    .rule_ports_2_sport(rule_sport_2),
    .rule_ports_2_dport(rule_dport_2),
    .rule_ports_3_sport(rule_sport_3),
    .rule_ports_3_dport(rule_dport_3),
    .rule_ports_4_sport(rule_sport_4),
    .rule_ports_4_dport(rule_dport_4),
    .rule_ports_5_sport(rule_sport_5),
    .rule_ports_5_dport(rule_dport_5),
    .rule_ports_6_sport(rule_sport_6),
    .rule_ports_6_dport(rule_dport_6),
    .rule_ports_7_sport(rule_sport_7),
    .rule_ports_7_dport(rule_dport_7),
    .rule_ports_8_sport(rule_sport_8),
    .rule_ports_8_dport(rule_dport_8),
    .rule_ports_9_sport(rule_sport_9),
    .rule_ports_9_dport(rule_dport_9),
    .rule_ports_10_sport(rule_sport_10),
    .rule_ports_10_dport(rule_dport_10),
    .rule_ports_11_sport(rule_sport_11),
    .rule_ports_11_dport(rule_dport_11),
    .rule_ports_12_sport(rule_sport_12),
    .rule_ports_12_dport(rule_dport_12),
    .rule_ports_13_sport(rule_sport_13),
    .rule_ports_13_dport(rule_dport_13),
    .rule_ports_14_sport(rule_sport_14),
    .rule_ports_14_dport(rule_dport_14),
    .rule_ports_15_sport(rule_sport_15),
    .rule_ports_15_dport(rule_dport_15),
    .rule_control_0_src_length(rule_src_length_0),
    .rule_control_0_dst_length(rule_dst_length_0),
    .rule_control_0_protocol(rule_protocol_0),
    .rule_control_0_protocol_any(rule_protocol_any_0),
    .rule_control_0_sport_any(rule_sport_any_0),
    .rule_control_0_dport_any(rule_dport_any_0),
    .rule_control_0_egress_ports(rule_egress_ports_0),
    .rule_control_0_profile(rule_profile_0),
    .rule_control_0_valid(rule_valid_0),
    .rule_control_1_src_length(rule_src_length_1),
    .rule_control_1_dst_length(rule_dst_length_1),
    .rule_control_1_protocol(rule_protocol_1),
    .rule_control_1_protocol_any(rule_protocol_any_1),
    .rule_control_1_sport_any(rule_sport_any_1),
    .rule_control_1_dport_any(rule_dport_any_1),
    .rule_control_1_egress_ports(rule_egress_ports_1),
    .rule_control_1_profile(rule_profile_1),
    .rule_control_1_valid(rule_valid_1),
    .rule_control_2_src_length(rule_src_length_2),
    .rule_control_2_dst_length(rule_dst_length_2),
    .rule_control_2_protocol(rule_protocol_2),
    .rule_control_2_protocol_any(rule_protocol_any_2),
    .rule_control_2_sport_any(rule_sport_any_2),
    .rule_control_2_dport_any(rule_dport_any_2),
    .rule_control_2_egress_ports(rule_egress_ports_2),
    .rule_control_2_profile(rule_profile_2),
    .rule_control_2_valid(rule_valid_2),
    .rule_control_3_src_length(rule_src_length_3),
    .rule_control_3_dst_length(rule_dst_length_3),
    .rule_control_3_protocol(rule_protocol_3),
    .rule_control_3_protocol_any(rule_protocol_any_3),
    .rule_control_3_sport_any(rule_sport_any_3),
    .rule_control_3_dport_any(rule_dport_any_3),
    .rule_control_3_egress_ports(rule_egress_ports_3),
    .rule_control_3_profile(rule_profile_3),
    .rule_control_3_valid(rule_valid_3),
    .rule_control_4_src_length(rule_src_length_4),
    .rule_control_4_dst_length(rule_dst_length_4),
    .rule_control_4_protocol(rule_protocol_4),
    .rule_control_4_protocol_any(rule_protocol_any_4),
    .rule_control_4_sport_any(rule_sport_any_4),
    .rule_control_4_dport_any(rule_dport_any_4),
    .rule_control_4_egress_ports(rule_egress_ports_4),
    .rule_control_4_profile(rule_profile_4),
    .rule_control_4_valid(rule_valid_4),
    .rule_control_5_src_length(rule_src_length_5),
    .rule_control_5_dst_length(rule_dst_length_5),
    .rule_control_5_protocol(rule_protocol_5),
    .rule_control_5_protocol_any(rule_protocol_any_5),
    .rule_control_5_sport_any(rule_sport_any_5),
    .rule_control_5_dport_any(rule_dport_any_5),
    .rule_control_5_egress_ports(rule_egress_ports_5),
    .rule_control_5_profile(rule_profile_5),
    .rule_control_5_valid(rule_valid_5),
    .rule_control_6_src_length(rule_src_length_6),
    .rule_control_6_dst_length(rule_dst_length_6),
    .rule_control_6_protocol(rule_protocol_6),
    .rule_control_6_protocol_any(rule_protocol_any_6),
    .rule_control_6_sport_any(rule_sport_any_6),
    .rule_control_6_dport_any(rule_dport_any_6),
    .rule_control_6_egress_ports(rule_egress_ports_6),
    .rule_control_6_profile(rule_profile_6),
    .rule_control_6_valid(rule_valid_6),
    .rule_control_7_src_length(rule_src_length_7),
    .rule_control_7_dst_length(rule_dst_length_7),
    .rule_control_7_protocol(rule_protocol_7),
    .rule_control_7_protocol_any(rule_protocol_any_7),
    .rule_control_7_sport_any(rule_sport_any_7),
    .rule_control_7_dport_any(rule_dport_any_7),
    .rule_control_7_egress_ports(rule_egress_ports_7),
    .rule_control_7_profile(rule_profile_7),
    .rule_control_7_valid(rule_valid_7),
    .rule_control_8_src_length(rule_src_length_8),
    .rule_control_8_dst_length(rule_dst_length_8),
    .rule_control_8_protocol(rule_protocol_8),
    .rule_control_8_protocol_any(rule_protocol_any_8),
    .rule_control_8_sport_any(rule_sport_any_8),
    .rule_control_8_dport_any(rule_dport_any_8),
    .rule_control_8_egress_ports(rule_egress_ports_8),
    .rule_control_8_profile(rule_profile_8),
    .rule_control_8_valid(rule_valid_8),
    .rule_control_9_src_length(rule_src_length_9),
    .rule_control_9_dst_length(rule_dst_length_9),
    .rule_control_9_protocol(rule_protocol_9),
    .rule_control_9_protocol_any(rule_protocol_any_9),
    .rule_control_9_sport_any(rule_sport_any_9),
    .rule_control_9_dport_any(rule_dport_any_9),
    .rule_control_9_egress_ports(rule_egress_ports_9),
    .rule_control_9_profile(rule_profile_9),
    .rule_control_9_valid(rule_valid_9),
    .rule_control_10_src_length(rule_src_length_10),
    .rule_control_10_dst_length(rule_dst_length_10),
    .rule_control_10_protocol(rule_protocol_10),
    .rule_control_10_protocol_any(rule_protocol_any_10),
    .rule_control_10_sport_any(rule_sport_any_10),
    .rule_control_10_dport_any(rule_dport_any_10),
    .rule_control_10_egress_ports(rule_egress_ports_10),
    .rule_control_10_profile(rule_profile_10),
    .rule_control_10_valid(rule_valid_10),
    .rule_control_11_src_length(rule_src_length_11),
    .rule_control_11_dst_length(rule_dst_length_11),
    .rule_control_11_protocol(rule_protocol_11),
    .rule_control_11_protocol_any(rule_protocol_any_11),
    .rule_control_11_sport_any(rule_sport_any_11),
    .rule_control_11_dport_any(rule_dport_any_11),
    .rule_control_11_egress_ports(rule_egress_ports_11),
    .rule_control_11_profile(rule_profile_11),
    .rule_control_11_valid(rule_valid_11),
    .rule_control_12_src_length(rule_src_length_12),
    .rule_control_12_dst_length(rule_dst_length_12),
    .rule_control_12_protocol(rule_protocol_12),
    .rule_control_12_protocol_any(rule_protocol_any_12),
    .rule_control_12_sport_any(rule_sport_any_12),
    .rule_control_12_dport_any(rule_dport_any_12),
    .rule_control_12_egress_ports(rule_egress_ports_12),
    .rule_control_12_profile(rule_profile_12),
    .rule_control_12_valid(rule_valid_12),
    .rule_control_13_src_length(rule_src_length_13),
    .rule_control_13_dst_length(rule_dst_length_13),
    .rule_control_13_protocol(rule_protocol_13),
    .rule_control_13_protocol_any(rule_protocol_any_13),
    .rule_control_13_sport_any(rule_sport_any_13),
    .rule_control_13_dport_any(rule_dport_any_13),
    .rule_control_13_egress_ports(rule_egress_ports_13),
    .rule_control_13_profile(rule_profile_13),
    .rule_control_13_valid(rule_valid_13),
    .rule_control_14_src_length(rule_src_length_14),
    .rule_control_14_dst_length(rule_dst_length_14),
    .rule_control_14_protocol(rule_protocol_14),
    .rule_control_14_protocol_any(rule_protocol_any_14),
    .rule_control_14_sport_any(rule_sport_any_14),
    .rule_control_14_dport_any(rule_dport_any_14),
    .rule_control_14_egress_ports(rule_egress_ports_14),
    .rule_control_14_profile(rule_profile_14),
    .rule_control_14_valid(rule_valid_14),
    .rule_control_15_src_length(rule_src_length_15),
    .rule_control_15_dst_length(rule_dst_length_15),
    .rule_control_15_protocol(rule_protocol_15),
    .rule_control_15_protocol_any(rule_protocol_any_15),
    .rule_control_15_sport_any(rule_sport_any_15),
    .rule_control_15_dport_any(rule_dport_any_15),
    .rule_control_15_egress_ports(rule_egress_ports_15),
    .rule_control_15_profile(rule_profile_15),
    .rule_control_15_valid(rule_valid_15),
    .profile_high_0(profile_high_0),
    .profile_high_1(profile_high_1),
    .profile_high_2(profile_high_2),
    .profile_high_3(profile_high_3),
    .profile_high_4(profile_high_4),
    .profile_high_5(profile_high_5),
    .profile_high_6(profile_high_6),
    .profile_high_7(profile_high_7),
    .profile_low_0(profile_low_0),
    .profile_low_1(profile_low_1),
    .profile_low_2(profile_low_2),
    .profile_low_3(profile_low_3),
    .profile_low_4(profile_low_4),
    .profile_low_5(profile_low_5),
    .profile_low_6(profile_low_6),
    .profile_low_7(profile_low_7),
    .profile_min_interval_us_0(profile_min_interval_us_0),
    .profile_min_interval_us_1(profile_min_interval_us_1),
    .profile_min_interval_us_2(profile_min_interval_us_2),
    .profile_min_interval_us_3(profile_min_interval_us_3),
    .profile_min_interval_us_4(profile_min_interval_us_4),
    .profile_min_interval_us_5(profile_min_interval_us_5),
    .profile_min_interval_us_6(profile_min_interval_us_6),
    .profile_min_interval_us_7(profile_min_interval_us_7),
    .profile_control_0_stateful(profile_stateful_0),
    .profile_control_1_stateful(profile_stateful_1),
    .profile_control_2_stateful(profile_stateful_2),
    .profile_control_3_stateful(profile_stateful_3),
    .profile_control_4_stateful(profile_stateful_4),
    .profile_control_5_stateful(profile_stateful_5),
    .profile_control_6_stateful(profile_stateful_6),
    .profile_control_7_stateful(profile_stateful_7),
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

// ---------------------------------------------------------------------------------------------
// Rules and profiles (flowlat_table's layouts)

// A rule in flowlat_table's layout
function [127:0] rule_of;
    input        valid;
    input [2:0]  profile;
    input [3:0]  egress_ports;
    input        dport_any;
    input [15:0] dport;
    input        sport_any;
    input [15:0] sport;
    input        protocol_any;
    input [7:0]  protocol;
    input [5:0]  dst_length;
    input [31:0] dst_ip;
    input [5:0]  src_length;
    input [31:0] src_ip;
    rule_of = {
        1'b0,           // [127]
        valid,          // [126]
        profile,        // [125:123]
        egress_ports,   // [122:119]
        dport_any,      // [118]
        dport,          // [117:102]
        sport_any,      // [101]
        sport,          // [100:85]
        protocol_any,   // [84]
        protocol,       // [83:76]
        dst_length,     // [75:70]
        dst_ip,         // [69:38]
        src_length,     // [37:32]
        src_ip};        // [31:0]
endfunction

// A profile in flowlat_table's layout
function [127:0] profile_of;
    input        stateful;
    input [31:0] min_interval_us;
    input [31:0] low;
    input [31:0] high;
    profile_of = {31'd0, stateful, min_interval_us, low, high};
endfunction

// (Not gated by the monitor's enable, although the table reads them only then: in the FPGA the
// gate would be one input more to every bit of the rules' match)
wire [16*128-1:0] config_rules = {
    rule_of(rule_valid_15, rule_profile_15, rule_egress_ports_15, rule_dport_any_15,
            rule_dport_15, rule_sport_any_15, rule_sport_15, rule_protocol_any_15,
            rule_protocol_15, rule_dst_length_15, rule_dst_ip_15, rule_src_length_15,
            rule_src_ip_15),
    rule_of(rule_valid_14, rule_profile_14, rule_egress_ports_14, rule_dport_any_14,
            rule_dport_14, rule_sport_any_14, rule_sport_14, rule_protocol_any_14,
            rule_protocol_14, rule_dst_length_14, rule_dst_ip_14, rule_src_length_14,
            rule_src_ip_14),
    rule_of(rule_valid_13, rule_profile_13, rule_egress_ports_13, rule_dport_any_13,
            rule_dport_13, rule_sport_any_13, rule_sport_13, rule_protocol_any_13,
            rule_protocol_13, rule_dst_length_13, rule_dst_ip_13, rule_src_length_13,
            rule_src_ip_13),
    rule_of(rule_valid_12, rule_profile_12, rule_egress_ports_12, rule_dport_any_12,
            rule_dport_12, rule_sport_any_12, rule_sport_12, rule_protocol_any_12,
            rule_protocol_12, rule_dst_length_12, rule_dst_ip_12, rule_src_length_12,
            rule_src_ip_12),
    rule_of(rule_valid_11, rule_profile_11, rule_egress_ports_11, rule_dport_any_11,
            rule_dport_11, rule_sport_any_11, rule_sport_11, rule_protocol_any_11,
            rule_protocol_11, rule_dst_length_11, rule_dst_ip_11, rule_src_length_11,
            rule_src_ip_11),
    rule_of(rule_valid_10, rule_profile_10, rule_egress_ports_10, rule_dport_any_10,
            rule_dport_10, rule_sport_any_10, rule_sport_10, rule_protocol_any_10,
            rule_protocol_10, rule_dst_length_10, rule_dst_ip_10, rule_src_length_10,
            rule_src_ip_10),
    rule_of(rule_valid_9, rule_profile_9, rule_egress_ports_9, rule_dport_any_9,
            rule_dport_9, rule_sport_any_9, rule_sport_9, rule_protocol_any_9,
            rule_protocol_9, rule_dst_length_9, rule_dst_ip_9, rule_src_length_9,
            rule_src_ip_9),
    rule_of(rule_valid_8, rule_profile_8, rule_egress_ports_8, rule_dport_any_8,
            rule_dport_8, rule_sport_any_8, rule_sport_8, rule_protocol_any_8,
            rule_protocol_8, rule_dst_length_8, rule_dst_ip_8, rule_src_length_8,
            rule_src_ip_8),
    rule_of(rule_valid_7, rule_profile_7, rule_egress_ports_7, rule_dport_any_7,
            rule_dport_7, rule_sport_any_7, rule_sport_7, rule_protocol_any_7,
            rule_protocol_7, rule_dst_length_7, rule_dst_ip_7, rule_src_length_7,
            rule_src_ip_7),
    rule_of(rule_valid_6, rule_profile_6, rule_egress_ports_6, rule_dport_any_6,
            rule_dport_6, rule_sport_any_6, rule_sport_6, rule_protocol_any_6,
            rule_protocol_6, rule_dst_length_6, rule_dst_ip_6, rule_src_length_6,
            rule_src_ip_6),
    rule_of(rule_valid_5, rule_profile_5, rule_egress_ports_5, rule_dport_any_5,
            rule_dport_5, rule_sport_any_5, rule_sport_5, rule_protocol_any_5,
            rule_protocol_5, rule_dst_length_5, rule_dst_ip_5, rule_src_length_5,
            rule_src_ip_5),
    rule_of(rule_valid_4, rule_profile_4, rule_egress_ports_4, rule_dport_any_4,
            rule_dport_4, rule_sport_any_4, rule_sport_4, rule_protocol_any_4,
            rule_protocol_4, rule_dst_length_4, rule_dst_ip_4, rule_src_length_4,
            rule_src_ip_4),
    rule_of(rule_valid_3, rule_profile_3, rule_egress_ports_3, rule_dport_any_3,
            rule_dport_3, rule_sport_any_3, rule_sport_3, rule_protocol_any_3,
            rule_protocol_3, rule_dst_length_3, rule_dst_ip_3, rule_src_length_3,
            rule_src_ip_3),
    rule_of(rule_valid_2, rule_profile_2, rule_egress_ports_2, rule_dport_any_2,
            rule_dport_2, rule_sport_any_2, rule_sport_2, rule_protocol_any_2,
            rule_protocol_2, rule_dst_length_2, rule_dst_ip_2, rule_src_length_2,
            rule_src_ip_2),
    rule_of(rule_valid_1, rule_profile_1, rule_egress_ports_1, rule_dport_any_1,
            rule_dport_1, rule_sport_any_1, rule_sport_1, rule_protocol_any_1,
            rule_protocol_1, rule_dst_length_1, rule_dst_ip_1, rule_src_length_1,
            rule_src_ip_1),
    rule_of(rule_valid_0, rule_profile_0, rule_egress_ports_0, rule_dport_any_0,
            rule_dport_0, rule_sport_any_0, rule_sport_0, rule_protocol_any_0,
            rule_protocol_0, rule_dst_length_0, rule_dst_ip_0, rule_src_length_0,
            rule_src_ip_0)};

wire [8*128-1:0] config_profiles = {
    profile_of(profile_stateful_7, profile_min_interval_us_7, profile_low_7, profile_high_7),
    profile_of(profile_stateful_6, profile_min_interval_us_6, profile_low_6, profile_high_6),
    profile_of(profile_stateful_5, profile_min_interval_us_5, profile_low_5, profile_high_5),
    profile_of(profile_stateful_4, profile_min_interval_us_4, profile_low_4, profile_high_4),
    profile_of(profile_stateful_3, profile_min_interval_us_3, profile_low_3, profile_high_3),
    profile_of(profile_stateful_2, profile_min_interval_us_2, profile_low_2, profile_high_2),
    profile_of(profile_stateful_1, profile_min_interval_us_1, profile_low_1, profile_high_1),
    profile_of(profile_stateful_0, profile_min_interval_us_0, profile_low_0, profile_high_0)};

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

// One register per counter, written only in a clock that changes it (a simulator then copies
// no 832-bit vector in every clock), and tested one by one only when one changes
wire counting = counter_clear != {COUNTERS{1'b0}} || counter_increment != {3*COUNTERS{1'b0}};
genvar c;
generate
    for (c = 0; c < COUNTERS; c = c + 1) begin : counter
        reg [63:0] value = 64'd0;
        // (one assignment, reset included: a simulator then needs no copy of value per clock)
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
