/*
 * oam_steer: the link-delay engines' classifier and redirector, between the switch's port
 * lookup and its output queues (docs/oam.md, "What the hardware does").
 *
 * Every frame waits here until its first 7 words (56 bytes: every field the engines look at,
 * and enough for their length checks) or its last word are in; then one decision is made for
 * it, and it leaves with that decision, one word per clock:
 *
 *   s_axis (lookup) --> data FIFO (8 words) ---------------------> rewrite --> m_axis (queues)
 *     |  tuser {source, mask}, meta {RX stamp}                        ^
 *     '--> words 0,1,2,4 kept --> classify (at word 6 or the last) --> decision FIFO (8 frames):
 *                                                                   mask, rewrite, offsets
 *
 * The decision:
 * - the destination mask: the lookup's, or back out of the input port (a responder's answer),
 *   or CPU port 4+i (a frame for MAC port i's engines, and any 0x89A2 frame from MAC port i:
 *   link-local, never forwarded), or both (an ISL discovery packet with config_isl_group),
 *   or MAC port i only (a frame from CPU port 4+i while config_cpu_bound[i]: packet-out);
 * - the rewrite of a responder's answer, in words 0..2: a DMR gets the DMM's source MAC as
 *   destination, port_mac as source and opcode 46; a headroom response gets port_mac as
 *   source and type 2;
 * - where oam_egress writes the RX and TX stamps, and what else it changes on the way out
 *   (OpenKilda's packets: a copy for each of two ports, each rewritten differently).
 *   m_axis_meta carries it on every word:
 *
 *     [93:80] length     bytes of the frame up to and including this word, saturating at
 *                        16383 (the frame's length on its last word, where the queue keeps
 *                        the metadata)
 *     [79:78] engine     0 ETH-DM, 1 headroom (stamps are last-bit times), 2 ISL
 *     [77]    isl_group  an ISL discovery packet reflected by the group: out of a MAC port
 *                        as a round-trip packet, to a CPU port with port_mac as destination
 *     [76:70] tx_offset  byte offset (even) of the field for the TX stamp, 0: none
 *     [69:63] rx_offset  byte offset (even) of the field for the RX stamp, 0: none
 *     [62:0]  the lookup's meta: {RX stamp valid, seconds[31:0], nanoseconds[29:0]}
 *
 * Frame bytes: byte k is byte k%8 of word k/8 (bits 8(k%8)+7 : 8(k%8)).
 *
 * Timing: a frame's first word leaves in the clock after its decision at the earliest. With
 * the queues always ready the data FIFO holds at most 7 words in the steady state, so
 * s_axis_tready stays 1: one word per clock in and out, frames back to back. The counters'
 * pulses come in the clock of the decision.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module oam_steer (
    input  wire            clk,
    input  wire            rst,

    // Frames from the port lookup: tuser = {source port[2:0], destination mask[7:0]}, meta
    // = {RX stamp valid, seconds[31:0], nanoseconds[29:0]}, both the first word's on every word
    input  wire [63:0]     s_axis_tdata,
    input  wire [7:0]      s_axis_tkeep,
    input  wire            s_axis_tvalid,
    output wire            s_axis_tready,
    input  wire            s_axis_tlast,
    input  wire [10:0]     s_axis_tuser,
    input  wire [62:0]     s_axis_meta,

    // Frames to the output queues: tuser as above with the mask decided here, meta as drawn
    output wire [63:0]     m_axis_tdata,
    output wire [7:0]      m_axis_tkeep,
    output wire            m_axis_tvalid,
    input  wire            m_axis_tready,
    output wire            m_axis_tlast,
    output wire [10:0]     m_axis_tuser,
    output wire [93:0]     m_axis_meta,

    // Configuration of MAC port i (oam.control_i, oam.port_mac_i), port i in bit (slice) i
    input  wire [3:0]      config_dm_enable,
    input  wire [3:0]      config_dm_responder,
    input  wire [4*3-1:0]  config_dm_level,
    input  wire [3:0]      config_headroom_enable,
    input  wire [3:0]      config_headroom_responder,
    input  wire [3:0]      config_isl_copy_field,
    input  wire [3:0]      config_isl_group,
    input  wire [3:0]      config_cpu_bound,
    input  wire [4*48-1:0] config_port_mac,

    // One-clock pulses, MAC port i in bit i, in the clock of a frame's decision
    output wire [3:0]      dm_answered,
    output wire [3:0]      dm_passed_up,
    output wire [3:0]      dm_malformed,
    output wire [3:0]      headroom_answered,
    output wire [3:0]      headroom_passed_up,
    output wire [3:0]      headroom_malformed,
    output wire [3:0]      isl_t1_stamped,
    output wire [3:0]      isl_reflected,
    output wire [3:0]      isl_passed_up
);

localparam [15:0] ETHERTYPE_VLAN = 16'h8100;
localparam [15:0] ETHERTYPE_CFM = 16'h8902;
localparam [15:0] ETHERTYPE_HEADROOM = 16'h89a2;
localparam [15:0] ETHERTYPE_IPV4 = 16'h0800;
localparam [15:0] UDP_PORT_DISCOVERY = 16'd61231;
localparam [15:0] UDP_PORT_ROUND_TRIP = 16'd61232;
localparam [7:0]  OPCODE_1DM = 8'd45;
localparam [7:0]  OPCODE_DMR = 8'd46;
localparam [7:0]  OPCODE_DMM = 8'd47;

// Engines (m_axis_meta's engine field)
localparam [1:0] ENGINE_DM = 2'd0;
localparam [1:0] ENGINE_HEADROOM = 2'd1;
localparam [1:0] ENGINE_ISL = 2'd2;

// Rewrites of a decision
localparam [1:0] REWRITE_NONE = 2'd0;
localparam [1:0] REWRITE_DMR = 2'd1;
localparam [1:0] REWRITE_HEADROOM_RESPONSE = 2'd2;

// ---------------------------------------------------------------------------------------------
// Input side: the data FIFO, the first words of the frame coming in, and its byte count

reg  [63:0] fifo_data[0:7];
reg  [7:0]  fifo_keep[0:7];
reg         fifo_last[0:7];
reg  [3:0]  fifo_write_reg = 4'd0;
reg  [3:0]  fifo_read_reg = 4'd0;

wire [3:0]  fifo_count = fifo_write_reg - fifo_read_reg;
wire        fifo_pop;
assign s_axis_tready = fifo_count != 4'd8 || fifo_pop;
wire        accept = s_axis_tvalid && s_axis_tready;

reg  [2:0]  in_index_reg = 3'd0;      // word of the incoming frame, saturating at 7
reg         in_decided_reg = 1'b0;    // its decision is made
reg  [63:0] in_word0_reg = 64'd0;
reg  [63:0] in_word1_reg = 64'd0;
reg  [63:0] in_word2_reg = 64'd0;
reg  [63:0] in_word4_reg = 64'd0;
reg  [10:0] in_tuser_reg = 11'd0;
reg  [62:0] in_meta_reg = 63'd0;

// Bytes of a word: tkeep is contiguous from bit 0 (stream rule)
function [3:0] keep_count;
    input [7:0] keep;
    integer k;
    begin
        keep_count = 4'd0;
        for (k = 0; k < 8; k = k + 1) begin
            keep_count = keep_count + {3'd0, keep[k]};
        end
    end
endfunction

// Words 0, 1, 2 and 4 as they are when the decision is taken (this word, or kept ones)
wire first_word = in_index_reg == 3'd0;
wire [63:0] word0 = first_word ? s_axis_tdata : in_word0_reg;
wire [63:0] word1 = in_index_reg == 3'd1 ? s_axis_tdata : in_word1_reg;
wire [63:0] word2 = in_index_reg == 3'd2 ? s_axis_tdata : in_word2_reg;
wire [63:0] word4 = in_index_reg == 3'd4 ? s_axis_tdata : in_word4_reg;
wire [10:0] tuser = first_word ? s_axis_tuser : in_tuser_reg;
wire [62:0] meta = first_word ? s_axis_meta : in_meta_reg;

wire decide = accept && !in_decided_reg && (s_axis_tlast || in_index_reg == 3'd6);

wire [2:0]  source = tuser[10:8];
wire [1:0]  port = source[1:0];

// ---------------------------------------------------------------------------------------------
// Classification of the frame being decided: a function called only in the clock of a
// decision. The hardware is that of continuous assignments, but a cycle simulator (Verilator)
// evaluates it once per frame instead of in every clock.

function [7:0] byte_of;
    input [63:0] word;
    input [2:0]  index;
    begin
        byte_of = word[8*index +: 8];
    end
endfunction

// The decision, packed: {vlan_tagged, isl_group, engine[1:0], tx_offset[6:0], rx_offset[6:0],
// rewrite[1:0], mask[7:0], pulses[8:0]}, the pulses (PULSE_*) not yet shifted to the port's bit
localparam PULSE_DM_ANSWERED = 0;
localparam PULSE_DM_PASSED_UP = 1;
localparam PULSE_DM_MALFORMED = 2;
localparam PULSE_HEADROOM_ANSWERED = 3;
localparam PULSE_HEADROOM_PASSED_UP = 4;
localparam PULSE_HEADROOM_MALFORMED = 5;
localparam PULSE_ISL_T1_STAMPED = 6;
localparam PULSE_ISL_REFLECTED = 7;
localparam PULSE_ISL_PASSED_UP = 8;

function [36:0] classify;
    // The frame's words 0, 1, 2 and 4 and its bytes up to the deciding word: the deciding word
    // is word 6 (then the frame has more than 48 bytes, and more than 56 unless this is its
    // last word) or the last word, so "at least n bytes" (n <= 56) is frame_bytes >= n
    input [63:0] frame_word0;
    input [63:0] frame_word1;
    input [63:0] frame_word2;
    input [63:0] frame_word4;
    input [6:0]  frame_bytes;
    // The lookup's tuser {source port, destination mask}
    input [10:0] frame_tuser;
    // The configuration of the 4 MAC ports (config_*)
    input [3:0]     dm_enable;
    input [3:0]     dm_responder;
    input [4*3-1:0] dm_level;
    input [3:0]     headroom_enable;
    input [3:0]     headroom_responder;
    input [3:0]     isl_copy_field;
    input [3:0]     isl_group;
    input [3:0]     cpu_bound;
    input [4*48-1:0] port_macs;

    reg [47:0] destination;
    reg [47:0] source_mac;
    reg [15:0] outer_type;
    reg        vlan_tagged;
    reg [15:0] inner_type;
    reg [15:0] ethertype;
    reg [7:0]  pdu_byte0;
    reg [7:0]  pdu_byte1;
    reg [6:0]  tag_offset;
    reg [1:0]  frame_port;
    reg        from_mac;
    reg        is_dm;
    reg [2:0]  dm_level_field;
    reg [4:0]  dm_version;
    reg        dm_opcode_1dm, dm_opcode_dmr, dm_opcode_dmm, dm_opcode_known;
    reg        dm_long_enough, dm_well_formed;
    reg        is_headroom;
    reg [7:0]  headroom_byte1;
    reg        headroom_request, headroom_response, headroom_well_formed;
    reg [15:0] ip_total_length;
    reg        is_udp;
    reg [15:0] udp_destination_port;
    reg        is_discovery, is_round_trip, has_t0, has_t1;
    reg        port_dm_enable, port_dm_responder;
    reg [2:0]  port_dm_level;
    reg        port_headroom_enable, port_headroom_responder, port_cpu_bound;
    reg        port_isl_copy_field, port_isl_group, port_isl;
    reg [47:0] port_mac;
    reg        dm_for_mep;
    reg [7:0]  to_mac_port, to_cpu_port;

    reg [7:0]  mask;
    reg [1:0]  rewrite;
    reg [6:0]  rx_offset, tx_offset;
    reg [1:0]  engine;
    reg        reflect;
    reg [8:0]  pulses;
    begin
        destination = {byte_of(frame_word0, 0), byte_of(frame_word0, 1), byte_of(frame_word0, 2),
                       byte_of(frame_word0, 3), byte_of(frame_word0, 4), byte_of(frame_word0, 5)};
        source_mac = {byte_of(frame_word0, 6), byte_of(frame_word0, 7), byte_of(frame_word1, 0),
                      byte_of(frame_word1, 1), byte_of(frame_word1, 2), byte_of(frame_word1, 3)};
        outer_type = {byte_of(frame_word1, 4), byte_of(frame_word1, 5)};
        vlan_tagged = outer_type == ETHERTYPE_VLAN && frame_bytes >= 7'd18;
        inner_type = {byte_of(frame_word2, 0), byte_of(frame_word2, 1)};
        ethertype = vlan_tagged ? inner_type : outer_type;
        // Bytes 14 and 15 (18 and 19 behind a VLAN tag)
        pdu_byte0 = vlan_tagged ? byte_of(frame_word2, 2) : byte_of(frame_word1, 6);
        pdu_byte1 = vlan_tagged ? byte_of(frame_word2, 3) : byte_of(frame_word1, 7);
        tag_offset = vlan_tagged ? 7'd4 : 7'd0;

        frame_port = frame_tuser[9:8];
        from_mac = !frame_tuser[10];

        // Y.1731 ETH-DM
        is_dm = ethertype == ETHERTYPE_CFM && frame_bytes >= (vlan_tagged ? 7'd20 : 7'd16);
        dm_level_field = pdu_byte0[7:5];
        dm_version = pdu_byte0[4:0];
        dm_opcode_1dm = pdu_byte1 == OPCODE_1DM;
        dm_opcode_dmr = pdu_byte1 == OPCODE_DMR;
        dm_opcode_dmm = pdu_byte1 == OPCODE_DMM;
        dm_opcode_known = dm_opcode_1dm || dm_opcode_dmr || dm_opcode_dmm;
        // The fields end at byte 34 (1DM) or 50 (DMM, DMR), 4 later behind a VLAN tag
        dm_long_enough = frame_bytes >= (dm_opcode_1dm ? 7'd34 : 7'd50) + tag_offset;
        dm_well_formed = dm_long_enough && dm_version <= 5'd1;

        // Headroom PDU (never tagged): byte 14 = 0x01, byte 15 = version 1, reserved 0, type
        // request or response (0x11 or 0x12)
        is_headroom = outer_type == ETHERTYPE_HEADROOM && frame_bytes >= 7'd14;
        headroom_byte1 = byte_of(frame_word1, 7);
        headroom_request = headroom_byte1[1:0] == 2'd1;
        headroom_response = headroom_byte1[1:0] == 2'd2;
        headroom_well_formed = frame_bytes >= 7'd48 && byte_of(frame_word1, 6) == 8'h01 &&
                               headroom_byte1[7:2] == 6'b000100 &&
                               (headroom_request || headroom_response);

        // OpenKilda's discovery and round-trip packets (never tagged): IPv4 without options,
        // not a fragment, UDP to port 61231 or 61232; T0 (byte 66) and T1 (byte 80) must be
        // inside the IPv4 packet (total length at least 60 and 74: 8 bytes from byte 66 and 80,
        // less the 14 of the Ethernet header), the frame's length being unknown at the decision
        ip_total_length = {byte_of(frame_word2, 0), byte_of(frame_word2, 1)};
        is_udp = outer_type == ETHERTYPE_IPV4 && frame_bytes >= 7'd42 &&
                 byte_of(frame_word1, 6) == 8'h45 && byte_of(frame_word2, 7) == 8'd17 &&
                 {byte_of(frame_word2, 4) & 8'h3f, byte_of(frame_word2, 5)} == 16'd0;
        udp_destination_port = {byte_of(frame_word4, 4), byte_of(frame_word4, 5)};
        is_discovery = is_udp && udp_destination_port == UDP_PORT_DISCOVERY;
        is_round_trip = is_udp && udp_destination_port == UDP_PORT_ROUND_TRIP;
        has_t0 = ip_total_length >= 16'd60;
        has_t1 = ip_total_length >= 16'd74;

        // The configuration of the port concerned (MAC port i for MAC port i and CPU port 4+i)
        port_dm_enable = dm_enable[frame_port];
        port_dm_responder = dm_responder[frame_port];
        port_dm_level = dm_level[3*frame_port +: 3];
        port_headroom_enable = headroom_enable[frame_port];
        port_headroom_responder = headroom_responder[frame_port];
        port_cpu_bound = cpu_bound[frame_port];
        port_isl_copy_field = isl_copy_field[frame_port];
        port_isl_group = isl_group[frame_port];
        // A port with neither ISL feature switches OpenKilda's packets like any others
        port_isl = port_isl_copy_field || port_isl_group;
        port_mac = port_macs[48*frame_port +: 48];

        dm_for_mep = from_mac && is_dm && port_dm_enable && destination == port_mac &&
                     dm_level_field == port_dm_level && dm_opcode_known;

        // MAC port i, and CPU port 4+i (i: the frame's MAC port, or the one its CPU port
        // belongs to)
        to_mac_port = 8'd1 << frame_port;
        to_cpu_port = 8'd16 << frame_port;

        mask = frame_tuser[7:0];
        rewrite = REWRITE_NONE;
        rx_offset = 7'd0;
        tx_offset = 7'd0;
        engine = ENGINE_DM;
        reflect = 1'b0;
        pulses = 9'd0;

        if (from_mac) begin
            if (dm_for_mep) begin
                if (!dm_well_formed) begin
                    mask = to_cpu_port;
                    pulses[PULSE_DM_MALFORMED] = 1'b1;
                end else if (dm_opcode_dmm && port_dm_responder) begin
                    mask = to_mac_port;
                    rewrite = REWRITE_DMR;
                    rx_offset = 7'd26 + tag_offset;
                    tx_offset = 7'd34 + tag_offset;
                    pulses[PULSE_DM_ANSWERED] = 1'b1;
                end else begin
                    mask = to_cpu_port;
                    rx_offset = (dm_opcode_dmr ? 7'd42 : 7'd26) + tag_offset;
                    pulses[PULSE_DM_PASSED_UP] = 1'b1;
                end
            end else if (is_headroom) begin
                mask = to_cpu_port;
                if (!port_headroom_enable || !headroom_well_formed) begin
                    pulses[PULSE_HEADROOM_MALFORMED] = 1'b1;
                end else begin
                    engine = ENGINE_HEADROOM;
                    if (headroom_request && port_headroom_responder) begin
                        mask = to_mac_port;
                        rewrite = REWRITE_HEADROOM_RESPONSE;
                        rx_offset = 7'd24;
                        tx_offset = 7'd32;
                        pulses[PULSE_HEADROOM_ANSWERED] = 1'b1;
                    end else begin
                        rx_offset = headroom_request ? 7'd24 : 7'd40;
                        pulses[PULSE_HEADROOM_PASSED_UP] = 1'b1;
                    end
                end
            end else if (is_discovery && port_isl) begin
                // A neighbour's discovery packet: the controller's (packet-in), and with the
                // group back to the neighbour as a round-trip packet too
                engine = ENGINE_ISL;
                if (port_isl_group) begin
                    mask = to_mac_port | to_cpu_port;
                    reflect = 1'b1;
                    pulses[PULSE_ISL_REFLECTED] = 1'b1;
                end else begin
                    mask = to_cpu_port;
                    pulses[PULSE_ISL_PASSED_UP] = 1'b1;
                end
            end else if (is_round_trip && source_mac == port_mac && port_isl) begin
                // Our own discovery packet, back from the neighbour: T1
                mask = to_cpu_port;
                engine = ENGINE_ISL;
                if (port_isl_copy_field && has_t1) begin
                    rx_offset = 7'd80;
                    pulses[PULSE_ISL_T1_STAMPED] = 1'b1;
                end else begin
                    pulses[PULSE_ISL_PASSED_UP] = 1'b1;
                end
            end
        end else begin
            // From CPU port 4+i: packet-out, and the fields the TX side of a MAC port stamps
            // (oam_egress writes them only where the engine is enabled)
            if (port_cpu_bound) begin
                mask = to_mac_port;
            end
            if (is_dm && dm_opcode_known && dm_long_enough) begin
                tx_offset = (dm_opcode_dmr ? 7'd34 : 7'd18) + tag_offset;
            end else if (is_headroom && headroom_well_formed) begin
                tx_offset = headroom_request ? 7'd16 : 7'd32;
                engine = ENGINE_HEADROOM;
            end else if (is_discovery && has_t0) begin
                tx_offset = 7'd66;
                engine = ENGINE_ISL;
            end
        end

        classify = {vlan_tagged, reflect, engine, tx_offset, rx_offset, rewrite, mask, pulses};
    end
endfunction

// The decision, classify's layout: one register, so that a cycle simulator (Verilator) calls
// classify once per decision (a concatenation of eight targets makes it call classify once
// per target). Outside the clock of a decision nothing reads it (the decision FIFO is written
// and the counters pulse only in that clock): all 0 there
reg  [36:0] decision;
always @* begin
    decision = 37'd0;
    if (decide) begin
        decision = classify(word0, word1, word2, word4,
                            {in_index_reg, 3'b000} + {3'd0, keep_count(s_axis_tkeep)}, tuser,
                            config_dm_enable,
                            config_dm_responder, config_dm_level, config_headroom_enable,
                            config_headroom_responder, config_isl_copy_field, config_isl_group,
                            config_cpu_bound, config_port_mac);
    end
end

wire [7:0]  decision_mask;
wire [1:0]  decision_rewrite;
wire [6:0]  decision_rx_offset;
wire [6:0]  decision_tx_offset;
wire [1:0]  decision_engine;
wire        decision_isl_group;
wire        decision_tagged;       // the frame has a VLAN tag
wire [8:0]  decision_pulses;
assign {decision_tagged, decision_isl_group, decision_engine, decision_tx_offset,
        decision_rx_offset, decision_rewrite, decision_mask, decision_pulses} = decision;

assign dm_answered = {3'd0, decision_pulses[PULSE_DM_ANSWERED]} << port;
assign dm_passed_up = {3'd0, decision_pulses[PULSE_DM_PASSED_UP]} << port;
assign dm_malformed = {3'd0, decision_pulses[PULSE_DM_MALFORMED]} << port;
assign headroom_answered = {3'd0, decision_pulses[PULSE_HEADROOM_ANSWERED]} << port;
assign headroom_passed_up = {3'd0, decision_pulses[PULSE_HEADROOM_PASSED_UP]} << port;
assign headroom_malformed = {3'd0, decision_pulses[PULSE_HEADROOM_MALFORMED]} << port;
assign isl_t1_stamped = {3'd0, decision_pulses[PULSE_ISL_T1_STAMPED]} << port;
assign isl_reflected = {3'd0, decision_pulses[PULSE_ISL_REFLECTED]} << port;
assign isl_passed_up = {3'd0, decision_pulses[PULSE_ISL_PASSED_UP]} << port;

// ---------------------------------------------------------------------------------------------
// Decision FIFO: one entry per frame in the data FIFO (at most 8), in frame order

reg  [62:0] decided_meta[0:7];
reg  [10:0] decided_tuser[0:7];
reg  [1:0]  decided_rewrite[0:7];
reg         decided_tagged[0:7];
reg  [47:0] decided_source_mac[0:7];
reg  [6:0]  decided_rx_offset[0:7];
reg  [6:0]  decided_tx_offset[0:7];
reg  [1:0]  decided_engine[0:7];
reg         decided_isl_group[0:7];
reg  [3:0]  decision_write_reg = 4'd0;
reg  [3:0]  decision_read_reg = 4'd0;

wire [2:0]  head = decision_read_reg[2:0];
// The frame at the head of the data FIFO is the oldest, so its decision, once made, is the
// oldest entry here
wire        head_decided = decision_write_reg != decision_read_reg;

always @(posedge clk) begin
    if (decide) begin
        decided_meta[decision_write_reg[2:0]] <= meta;
        decided_tuser[decision_write_reg[2:0]] <= {source, decision_mask};
        decided_rewrite[decision_write_reg[2:0]] <= decision_rewrite;
        decided_tagged[decision_write_reg[2:0]] <= decision_tagged;
        decided_source_mac[decision_write_reg[2:0]] <= {byte_of(word0, 6), byte_of(word0, 7),
                                                        byte_of(word1, 0), byte_of(word1, 1),
                                                        byte_of(word1, 2), byte_of(word1, 3)};
        decided_rx_offset[decision_write_reg[2:0]] <= decision_rx_offset;
        decided_tx_offset[decision_write_reg[2:0]] <= decision_tx_offset;
        decided_engine[decision_write_reg[2:0]] <= decision_engine;
        decided_isl_group[decision_write_reg[2:0]] <= decision_isl_group;
    end
    if (accept) begin
        fifo_data[fifo_write_reg[2:0]] <= s_axis_tdata;
        fifo_keep[fifo_write_reg[2:0]] <= s_axis_tkeep;
        fifo_last[fifo_write_reg[2:0]] <= s_axis_tlast;
    end
end

// ---------------------------------------------------------------------------------------------
// Output side: the head word, rewritten

wire [63:0] out_data = fifo_data[fifo_read_reg[2:0]];
wire [7:0]  out_keep = fifo_keep[fifo_read_reg[2:0]];
wire        out_last = fifo_last[fifo_read_reg[2:0]];

assign m_axis_tvalid = fifo_count != 4'd0 && head_decided;
assign fifo_pop = m_axis_tvalid && m_axis_tready;

reg  [2:0]  out_index_reg = 3'd0;     // word of the outgoing frame, saturating at 7
reg  [13:0] out_bytes_reg = 14'd0;    // its bytes before this word, saturating

wire [1:0]  out_rewrite = decided_rewrite[head];
wire [10:0] out_tuser = decided_tuser[head];
wire [47:0] out_port_mac = config_port_mac[48*out_tuser[9:8] +: 48];
wire [47:0] out_destination = decided_source_mac[head];

reg [63:0] rewritten;
always @* begin
    rewritten = out_data;
    if (out_rewrite != REWRITE_NONE) begin
        case (out_index_reg)
            3'd0: begin
                if (out_rewrite == REWRITE_DMR) begin
                    rewritten[47:0] = {out_destination[7:0], out_destination[15:8],
                                       out_destination[23:16], out_destination[31:24],
                                       out_destination[39:32], out_destination[47:40]};
                end
                rewritten[63:48] = {out_port_mac[39:32], out_port_mac[47:40]};
            end
            3'd1: begin
                rewritten[31:0] = {out_port_mac[7:0], out_port_mac[15:8], out_port_mac[23:16],
                                   out_port_mac[31:24]};
                if (out_rewrite == REWRITE_HEADROOM_RESPONSE) begin
                    rewritten[57:56] = 2'd2;
                end else if (!decided_tagged[head]) begin
                    rewritten[63:56] = OPCODE_DMR;
                end
            end
            3'd2: begin
                if (out_rewrite == REWRITE_DMR && decided_tagged[head]) begin
                    rewritten[31:24] = OPCODE_DMR;
                end
            end
            default: begin
            end
        endcase
    end
end

wire [14:0] out_bytes_sum = {1'b0, out_bytes_reg} + {11'd0, keep_count(out_keep)};
wire [13:0] out_bytes = out_bytes_sum[14] ? 14'h3fff : out_bytes_sum[13:0];

assign m_axis_tdata = rewritten;
assign m_axis_tkeep = out_keep;
assign m_axis_tlast = out_last;
assign m_axis_tuser = out_tuser;
assign m_axis_meta = {out_bytes, decided_engine[head], decided_isl_group[head],
                      decided_tx_offset[head], decided_rx_offset[head], decided_meta[head]};

always @(posedge clk) begin
    if (accept) begin
        fifo_write_reg <= fifo_write_reg + 4'd1;
        if (first_word) begin
            in_word0_reg <= s_axis_tdata;
            in_tuser_reg <= s_axis_tuser;
            in_meta_reg <= s_axis_meta;
        end
        if (in_index_reg == 3'd1) begin
            in_word1_reg <= s_axis_tdata;
        end
        if (in_index_reg == 3'd2) begin
            in_word2_reg <= s_axis_tdata;
        end
        if (in_index_reg == 3'd4) begin
            in_word4_reg <= s_axis_tdata;
        end
        if (s_axis_tlast) begin
            in_index_reg <= 3'd0;
            in_decided_reg <= 1'b0;
        end else begin
            if (in_index_reg != 3'd7) begin
                in_index_reg <= in_index_reg + 3'd1;
            end
            if (decide) begin
                in_decided_reg <= 1'b1;
            end
        end
    end
    if (decide) begin
        decision_write_reg <= decision_write_reg + 4'd1;
    end

    if (fifo_pop) begin
        fifo_read_reg <= fifo_read_reg + 4'd1;
        if (out_last) begin
            out_index_reg <= 3'd0;
            out_bytes_reg <= 14'd0;
            decision_read_reg <= decision_read_reg + 4'd1;
        end else begin
            if (out_index_reg != 3'd7) begin
                out_index_reg <= out_index_reg + 3'd1;
            end
            out_bytes_reg <= out_bytes;
        end
    end

    if (rst) begin
        fifo_write_reg <= 4'd0;
        fifo_read_reg <= 4'd0;
        decision_write_reg <= 4'd0;
        decision_read_reg <= 4'd0;
        in_index_reg <= 3'd0;
        in_decided_reg <= 1'b0;
        out_index_reg <= 3'd0;
        out_bytes_reg <= 14'd0;
    end
end

endmodule

`resetall
