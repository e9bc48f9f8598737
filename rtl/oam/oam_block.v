/*
 * oam_block: the link-delay engines of the 4 MAC ports, Y.1731 frame delay (ETH-DM), headroom
 * measurement and OpenKilda's ISL round trip, with their registers (block `oam`,
 * regmap/oam.toml; docs/oam.md, docs/isl.md).
 *
 *   switch_core: lookup --> s_steer --> oam_steer --> m_steer --> output queues
 *                                       (decides mask, rewrite, stamp fields; counts)
 *
 *   switch_core: outputs --> s_axis --> oam_egress x 8 --> m_axis (MAC ports 0..3, CPU 4..7)
 *                 + each frame's meta    (writes RX / TX stamps; counts)
 *                                  ^ tx_stamp (stamp_block, first bit on the wire)
 *
 *   registers (oam_regs) --> configuration of each MAC port; counters <-- the pulses
 *
 * CPU port 4+i belongs to MAC port i: its egress writes RX stamps with MAC port i's byte time.
 * Counters: 64 bits, next = (clear ? 0 : value) + pulse.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module oam_block (
    input  wire            clk,
    input  wire            rst,

    // Frames from the switch's port lookup (tuser {source[2:0], mask[7:0]}, meta
    // {RX stamp valid, seconds[31:0], nanoseconds[29:0]})
    input  wire [63:0]     s_steer_tdata,
    input  wire [7:0]      s_steer_tkeep,
    input  wire            s_steer_tvalid,
    output wire            s_steer_tready,
    input  wire            s_steer_tlast,
    input  wire [10:0]     s_steer_tuser,
    input  wire [62:0]     s_steer_meta,

    // The same frames, steered, to the switch's output queues (meta: oam_steer's m_axis_meta)
    output wire [63:0]     m_steer_tdata,
    output wire [7:0]      m_steer_tkeep,
    output wire            m_steer_tvalid,
    input  wire            m_steer_tready,
    output wire            m_steer_tlast,
    output wire [10:0]     m_steer_tuser,
    output wire [93:0]     m_steer_meta,

    // The switch's 8 output streams, port i in slice i, with each frame's meta as its queue
    // kept it (valid 0: none, a stat packet)
    input  wire [8*64-1:0] s_axis_tdata,
    input  wire [8*8-1:0]  s_axis_tkeep,
    input  wire [7:0]      s_axis_tvalid,
    output wire [7:0]      s_axis_tready,
    input  wire [7:0]      s_axis_tlast,
    input  wire [8*94-1:0] s_axis_meta,
    input  wire [7:0]      s_axis_meta_valid,

    // The output streams with the stamps written
    output wire [8*64-1:0] m_axis_tdata,
    output wire [8*8-1:0]  m_axis_tkeep,
    output wire [7:0]      m_axis_tvalid,
    input  wire [7:0]      m_axis_tready,
    output wire [7:0]      m_axis_tlast,

    // TX stamp of this clock of MAC port i (stamp_block), bits 62i+61:62i
    input  wire [4*62-1:0] tx_stamp,

    // Registers (block-local addresses)
    input  wire [11:0]     s_axil_awaddr,
    input  wire [2:0]      s_axil_awprot,
    input  wire            s_axil_awvalid,
    output wire            s_axil_awready,
    input  wire [31:0]     s_axil_wdata,
    input  wire [3:0]      s_axil_wstrb,
    input  wire            s_axil_wvalid,
    output wire            s_axil_wready,
    output wire [1:0]      s_axil_bresp,
    output wire            s_axil_bvalid,
    input  wire            s_axil_bready,
    input  wire [11:0]     s_axil_araddr,
    input  wire [2:0]      s_axil_arprot,
    input  wire            s_axil_arvalid,
    output wire            s_axil_arready,
    output wire [31:0]     s_axil_rdata,
    output wire [1:0]      s_axil_rresp,
    output wire            s_axil_rvalid,
    input  wire            s_axil_rready
);

// Counter kinds (regmap order), MAC port i of kind k at index 4k + i
localparam DM_STAMPED = 0;
localparam DM_ANSWERED = 1;
localparam DM_REPLIES_SENT = 2;
localparam DM_PASSED_UP = 3;
localparam DM_MALFORMED = 4;
localparam HEADROOM_STAMPED = 5;
localparam HEADROOM_ANSWERED = 6;
localparam HEADROOM_REPLIES_SENT = 7;
localparam HEADROOM_PASSED_UP = 8;
localparam HEADROOM_MALFORMED = 9;
localparam ISL_T0_STAMPED = 10;
localparam ISL_T1_STAMPED = 11;
localparam ISL_REFLECTED = 12;
localparam ISL_PASSED_UP = 13;
localparam COUNTERS = 56;

wire [3:0]      config_dm_enable;
wire [3:0]      config_dm_responder;
wire [4*3-1:0]  config_dm_level;
wire [3:0]      config_headroom_enable;
wire [3:0]      config_headroom_responder;
wire [3:0]      config_isl_copy_field;
wire [3:0]      config_isl_group;
wire [3:0]      config_cpu_bound;
wire [4*48-1:0] config_port_mac;
wire [4*12-1:0] config_byte_time;

wire [63:0]            counter_value[0:COUNTERS-1];
wire [COUNTERS-1:0]    counter_clear;
wire [COUNTERS-1:0]    counter_pulse;

oam_regs regs_inst (
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
    .control_0_dm_enable(config_dm_enable[0]),
    .control_0_dm_responder(config_dm_responder[0]),
    .control_0_dm_level(config_dm_level[3*0 +: 3]),
    .control_0_headroom_enable(config_headroom_enable[0]),
    .control_0_headroom_responder(config_headroom_responder[0]),
    .control_0_isl_copy_field(config_isl_copy_field[0]),
    .control_0_isl_group(config_isl_group[0]),
    .control_0_cpu_bound(config_cpu_bound[0]),
    .control_1_dm_enable(config_dm_enable[1]),
    .control_1_dm_responder(config_dm_responder[1]),
    .control_1_dm_level(config_dm_level[3*1 +: 3]),
    .control_1_headroom_enable(config_headroom_enable[1]),
    .control_1_headroom_responder(config_headroom_responder[1]),
    .control_1_isl_copy_field(config_isl_copy_field[1]),
    .control_1_isl_group(config_isl_group[1]),
    .control_1_cpu_bound(config_cpu_bound[1]),
    .control_2_dm_enable(config_dm_enable[2]),
    .control_2_dm_responder(config_dm_responder[2]),
    .control_2_dm_level(config_dm_level[3*2 +: 3]),
    .control_2_headroom_enable(config_headroom_enable[2]),
    .control_2_headroom_responder(config_headroom_responder[2]),
    .control_2_isl_copy_field(config_isl_copy_field[2]),
    .control_2_isl_group(config_isl_group[2]),
    .control_2_cpu_bound(config_cpu_bound[2]),
    .control_3_dm_enable(config_dm_enable[3]),
    .control_3_dm_responder(config_dm_responder[3]),
    .control_3_dm_level(config_dm_level[3*3 +: 3]),
    .control_3_headroom_enable(config_headroom_enable[3]),
    .control_3_headroom_responder(config_headroom_responder[3]),
    .control_3_isl_copy_field(config_isl_copy_field[3]),
    .control_3_isl_group(config_isl_group[3]),
    .control_3_cpu_bound(config_cpu_bound[3]),
    .port_mac_0(config_port_mac[48*0 +: 48]),
    .port_mac_1(config_port_mac[48*1 +: 48]),
    .port_mac_2(config_port_mac[48*2 +: 48]),
    .port_mac_3(config_port_mac[48*3 +: 48]),
    .byte_time_0(config_byte_time[12*0 +: 12]),
    .byte_time_1(config_byte_time[12*1 +: 12]),
    .byte_time_2(config_byte_time[12*2 +: 12]),
    .byte_time_3(config_byte_time[12*3 +: 12]),
    .dm_stamped_0(counter_value[0]),
    .dm_stamped_0_clear(counter_clear[0]),
    .dm_stamped_1(counter_value[1]),
    .dm_stamped_1_clear(counter_clear[1]),
    .dm_stamped_2(counter_value[2]),
    .dm_stamped_2_clear(counter_clear[2]),
    .dm_stamped_3(counter_value[3]),
    .dm_stamped_3_clear(counter_clear[3]),
    .dm_answered_0(counter_value[4]),
    .dm_answered_0_clear(counter_clear[4]),
    .dm_answered_1(counter_value[5]),
    .dm_answered_1_clear(counter_clear[5]),
    .dm_answered_2(counter_value[6]),
    .dm_answered_2_clear(counter_clear[6]),
    .dm_answered_3(counter_value[7]),
    .dm_answered_3_clear(counter_clear[7]),
    .dm_replies_sent_0(counter_value[8]),
    .dm_replies_sent_0_clear(counter_clear[8]),
    .dm_replies_sent_1(counter_value[9]),
    .dm_replies_sent_1_clear(counter_clear[9]),
    .dm_replies_sent_2(counter_value[10]),
    .dm_replies_sent_2_clear(counter_clear[10]),
    .dm_replies_sent_3(counter_value[11]),
    .dm_replies_sent_3_clear(counter_clear[11]),
    .dm_passed_up_0(counter_value[12]),
    .dm_passed_up_0_clear(counter_clear[12]),
    .dm_passed_up_1(counter_value[13]),
    .dm_passed_up_1_clear(counter_clear[13]),
    .dm_passed_up_2(counter_value[14]),
    .dm_passed_up_2_clear(counter_clear[14]),
    .dm_passed_up_3(counter_value[15]),
    .dm_passed_up_3_clear(counter_clear[15]),
    .dm_malformed_0(counter_value[16]),
    .dm_malformed_0_clear(counter_clear[16]),
    .dm_malformed_1(counter_value[17]),
    .dm_malformed_1_clear(counter_clear[17]),
    .dm_malformed_2(counter_value[18]),
    .dm_malformed_2_clear(counter_clear[18]),
    .dm_malformed_3(counter_value[19]),
    .dm_malformed_3_clear(counter_clear[19]),
    .headroom_stamped_0(counter_value[20]),
    .headroom_stamped_0_clear(counter_clear[20]),
    .headroom_stamped_1(counter_value[21]),
    .headroom_stamped_1_clear(counter_clear[21]),
    .headroom_stamped_2(counter_value[22]),
    .headroom_stamped_2_clear(counter_clear[22]),
    .headroom_stamped_3(counter_value[23]),
    .headroom_stamped_3_clear(counter_clear[23]),
    .headroom_answered_0(counter_value[24]),
    .headroom_answered_0_clear(counter_clear[24]),
    .headroom_answered_1(counter_value[25]),
    .headroom_answered_1_clear(counter_clear[25]),
    .headroom_answered_2(counter_value[26]),
    .headroom_answered_2_clear(counter_clear[26]),
    .headroom_answered_3(counter_value[27]),
    .headroom_answered_3_clear(counter_clear[27]),
    .headroom_replies_sent_0(counter_value[28]),
    .headroom_replies_sent_0_clear(counter_clear[28]),
    .headroom_replies_sent_1(counter_value[29]),
    .headroom_replies_sent_1_clear(counter_clear[29]),
    .headroom_replies_sent_2(counter_value[30]),
    .headroom_replies_sent_2_clear(counter_clear[30]),
    .headroom_replies_sent_3(counter_value[31]),
    .headroom_replies_sent_3_clear(counter_clear[31]),
    .headroom_passed_up_0(counter_value[32]),
    .headroom_passed_up_0_clear(counter_clear[32]),
    .headroom_passed_up_1(counter_value[33]),
    .headroom_passed_up_1_clear(counter_clear[33]),
    .headroom_passed_up_2(counter_value[34]),
    .headroom_passed_up_2_clear(counter_clear[34]),
    .headroom_passed_up_3(counter_value[35]),
    .headroom_passed_up_3_clear(counter_clear[35]),
    .headroom_malformed_0(counter_value[36]),
    .headroom_malformed_0_clear(counter_clear[36]),
    .headroom_malformed_1(counter_value[37]),
    .headroom_malformed_1_clear(counter_clear[37]),
    .headroom_malformed_2(counter_value[38]),
    .headroom_malformed_2_clear(counter_clear[38]),
    .headroom_malformed_3(counter_value[39]),
    .headroom_malformed_3_clear(counter_clear[39]),
    .isl_t0_stamped_0(counter_value[40]),
    .isl_t0_stamped_0_clear(counter_clear[40]),
    .isl_t0_stamped_1(counter_value[41]),
    .isl_t0_stamped_1_clear(counter_clear[41]),
    .isl_t0_stamped_2(counter_value[42]),
    .isl_t0_stamped_2_clear(counter_clear[42]),
    .isl_t0_stamped_3(counter_value[43]),
    .isl_t0_stamped_3_clear(counter_clear[43]),
    .isl_t1_stamped_0(counter_value[44]),
    .isl_t1_stamped_0_clear(counter_clear[44]),
    .isl_t1_stamped_1(counter_value[45]),
    .isl_t1_stamped_1_clear(counter_clear[45]),
    .isl_t1_stamped_2(counter_value[46]),
    .isl_t1_stamped_2_clear(counter_clear[46]),
    .isl_t1_stamped_3(counter_value[47]),
    .isl_t1_stamped_3_clear(counter_clear[47]),
    .isl_reflected_0(counter_value[48]),
    .isl_reflected_0_clear(counter_clear[48]),
    .isl_reflected_1(counter_value[49]),
    .isl_reflected_1_clear(counter_clear[49]),
    .isl_reflected_2(counter_value[50]),
    .isl_reflected_2_clear(counter_clear[50]),
    .isl_reflected_3(counter_value[51]),
    .isl_reflected_3_clear(counter_clear[51]),
    .isl_passed_up_0(counter_value[52]),
    .isl_passed_up_0_clear(counter_clear[52]),
    .isl_passed_up_1(counter_value[53]),
    .isl_passed_up_1_clear(counter_clear[53]),
    .isl_passed_up_2(counter_value[54]),
    .isl_passed_up_2_clear(counter_clear[54]),
    .isl_passed_up_3(counter_value[55]),
    .isl_passed_up_3_clear(counter_clear[55])
);

oam_steer steer_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_steer_tdata),
    .s_axis_tkeep(s_steer_tkeep),
    .s_axis_tvalid(s_steer_tvalid),
    .s_axis_tready(s_steer_tready),
    .s_axis_tlast(s_steer_tlast),
    .s_axis_tuser(s_steer_tuser),
    .s_axis_meta(s_steer_meta),
    .m_axis_tdata(m_steer_tdata),
    .m_axis_tkeep(m_steer_tkeep),
    .m_axis_tvalid(m_steer_tvalid),
    .m_axis_tready(m_steer_tready),
    .m_axis_tlast(m_steer_tlast),
    .m_axis_tuser(m_steer_tuser),
    .m_axis_meta(m_steer_meta),
    .config_dm_enable(config_dm_enable),
    .config_dm_responder(config_dm_responder),
    .config_dm_level(config_dm_level),
    .config_headroom_enable(config_headroom_enable),
    .config_headroom_responder(config_headroom_responder),
    .config_isl_copy_field(config_isl_copy_field),
    .config_isl_group(config_isl_group),
    .config_cpu_bound(config_cpu_bound),
    .config_port_mac(config_port_mac),
    .dm_answered(counter_pulse[4*DM_ANSWERED +: 4]),
    .dm_passed_up(counter_pulse[4*DM_PASSED_UP +: 4]),
    .dm_malformed(counter_pulse[4*DM_MALFORMED +: 4]),
    .headroom_answered(counter_pulse[4*HEADROOM_ANSWERED +: 4]),
    .headroom_passed_up(counter_pulse[4*HEADROOM_PASSED_UP +: 4]),
    .headroom_malformed(counter_pulse[4*HEADROOM_MALFORMED +: 4]),
    .isl_t1_stamped(counter_pulse[4*ISL_T1_STAMPED +: 4]),
    .isl_reflected(counter_pulse[4*ISL_REFLECTED +: 4]),
    .isl_passed_up(counter_pulse[4*ISL_PASSED_UP +: 4])
);

// CPU ports stamp nothing on the way out: their pulses are always 0
wire [3:0] cpu_dm_stamped, cpu_dm_reply_sent, cpu_headroom_stamped, cpu_headroom_reply_sent,
           cpu_isl_t0_stamped;

genvar i;
generate
    for (i = 0; i < 8; i = i + 1) begin : egress
        localparam MAC = i < 4 ? 1 : 0;
        localparam PORT = i % 4;
        wire dm_stamped, dm_reply_sent, headroom_stamped, headroom_reply_sent, isl_t0_stamped;

        oam_egress #(
            .MAC_PORT(MAC)
        ) egress_inst (
            .clk(clk),
            .rst(rst),
            .s_axis_tdata(s_axis_tdata[64*i +: 64]),
            .s_axis_tkeep(s_axis_tkeep[8*i +: 8]),
            .s_axis_tvalid(s_axis_tvalid[i]),
            .s_axis_tready(s_axis_tready[i]),
            .s_axis_tlast(s_axis_tlast[i]),
            .s_axis_meta(s_axis_meta[94*i +: 94]),
            .s_axis_meta_valid(s_axis_meta_valid[i]),
            .m_axis_tdata(m_axis_tdata[64*i +: 64]),
            .m_axis_tkeep(m_axis_tkeep[8*i +: 8]),
            .m_axis_tvalid(m_axis_tvalid[i]),
            .m_axis_tready(m_axis_tready[i]),
            .m_axis_tlast(m_axis_tlast[i]),
            .tx_stamp(tx_stamp[62*PORT +: 62]),
            .config_byte_time(config_byte_time[12*PORT +: 12]),
            .config_dm_enable(config_dm_enable[PORT]),
            .config_headroom_enable(config_headroom_enable[PORT]),
            .config_isl_copy_field(config_isl_copy_field[PORT]),
            .config_port_mac(config_port_mac[48*PORT +: 48]),
            .dm_stamped(dm_stamped),
            .dm_reply_sent(dm_reply_sent),
            .headroom_stamped(headroom_stamped),
            .headroom_reply_sent(headroom_reply_sent),
            .isl_t0_stamped(isl_t0_stamped)
        );

        if (i < 4) begin : mac
            assign counter_pulse[4*DM_STAMPED + i] = dm_stamped;
            assign counter_pulse[4*DM_REPLIES_SENT + i] = dm_reply_sent;
            assign counter_pulse[4*HEADROOM_STAMPED + i] = headroom_stamped;
            assign counter_pulse[4*HEADROOM_REPLIES_SENT + i] = headroom_reply_sent;
            assign counter_pulse[4*ISL_T0_STAMPED + i] = isl_t0_stamped;
        end else begin : cpu
            assign cpu_dm_stamped[PORT] = dm_stamped;
            assign cpu_dm_reply_sent[PORT] = dm_reply_sent;
            assign cpu_headroom_stamped[PORT] = headroom_stamped;
            assign cpu_headroom_reply_sent[PORT] = headroom_reply_sent;
            assign cpu_isl_t0_stamped[PORT] = isl_t0_stamped;
        end
    end
endgenerate

wire unused = &{1'b0, cpu_dm_stamped, cpu_dm_reply_sent, cpu_headroom_stamped,
                cpu_headroom_reply_sent, cpu_isl_t0_stamped};

// One register per counter, written only in a clock in which one of the counters counts or
// clears, and tested one by one only then: a cycle simulator (Verilator) otherwise tests all 56
// in every clock, about 500 instructions a clock of a busy switch whose engines are idle
wire counting = counter_clear != {COUNTERS{1'b0}} || counter_pulse != {COUNTERS{1'b0}};
genvar c;
generate
    for (c = 0; c < COUNTERS; c = c + 1) begin : counter
        reg [63:0] value_reg = 64'd0;
        always @(posedge clk) begin
            if (counting || rst) begin
                if (rst || counter_clear[c] || counter_pulse[c])
                    value_reg <= rst ? 64'd0 : (counter_clear[c] ? 64'd0 : value_reg)
                                               + {63'd0, counter_pulse[c]};
            end
        end
        assign counter_value[c] = value_reg;
    end
endgenerate

endmodule

`resetall
