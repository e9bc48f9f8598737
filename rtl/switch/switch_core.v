/*
 * switch_core: the reference output-queued switch, with its registers.
 *
 *   8 inputs --> switch_input_arbiter --> switch_output_port_lookup --> m_steer
 *                                                                            | (outside: the
 *                     switch_output_queues <-- s_steer <---------------------'  link-delay
 *                            |  queue events                                    engines' steer)
 *   stat packets (evcap) --> switch_stat_path --> 8 outputs, with each frame's meta
 *
 * Ports 0..3 are the MAC ports, 4..7 the CPU ports; input i and output i are the same port.
 * The queues' events and occupancies go out on queue_* for event capture, and evcap's stat
 * packets come back in on s_stat_* to leave through the ports their tuser selects, between the
 * queues' frames. Registers: regmap/switch.toml (docs/regmap.md). Structure and interfaces:
 * docs/switch-architecture.md.
 *
 * Metadata (the RX wire timestamps of rtl/stamp/, docs/timestamps.md): s_axis_meta goes with
 * each input word through the arbiter and the lookup (like tuser) to m_steer. Between
 * m_steer and s_steer the frames pass through the link-delay engines' steer (rtl/oam/,
 * oam_steer), which may change a frame's destination mask and first bytes and widens the
 * metadata with where its stamps go and its length; a design without it connects m_steer to
 * s_steer and pads the meta with zeros. Beside each output queue a stamp_meta_fifo keeps the
 * metadata of every committed frame until its departure, so that m_axis_meta /
 * m_axis_meta_valid of port i describe the frame on m_axis of port i (valid 0 for a stat
 * packet or a frame without metadata: neither an RX stamp nor a stamp field).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module switch_core #(
    // Entries of the learning table
    parameter TABLE_SIZE = 32,
    // Clock cycles per ageing tick (the ageing_time register counts ticks): 1 s at 125 MHz
    parameter AGE_TICK_CYCLES = 125000000,
    // log2 of each output queue's block RAM in 64-bit words (12: 32 KiB)
    parameter QUEUE_DEPTH_LOG2 = 12
) (
    input  wire            clk,
    input  wire            rst,

    // Frames into the switch, port i in slice i
    input  wire [8*64-1:0] s_axis_tdata,
    input  wire [8*8-1:0]  s_axis_tkeep,
    input  wire [7:0]      s_axis_tvalid,
    output wire [7:0]      s_axis_tready,
    input  wire [7:0]      s_axis_tlast,

    // Frames out of the switch, port i in slice i
    output wire [8*64-1:0] m_axis_tdata,
    output wire [8*8-1:0]  m_axis_tkeep,
    output wire [7:0]      m_axis_tvalid,
    input  wire [7:0]      m_axis_tready,
    output wire [7:0]      m_axis_tlast,

    // Metadata of each input's current word, port i in bits 63i+62:63i:
    // {valid, stamp[61:0]} (stamp_rx)
    input  wire [8*63-1:0] s_axis_meta,
    // Metadata of the frame on m_axis of port i, bits 94i+93:94i (s_steer_meta as the queue
    // kept it; bits 62:0 are the RX stamp {valid, stamp[61:0]}), and whether it has any (0 for
    // stat packets and frames with neither an RX stamp nor a stamp field)
    output wire [8*94-1:0] m_axis_meta,
    output wire [7:0]      m_axis_meta_valid,
    // The port the frame on m_axis of MAC port i (0..3) came in by (bits 3i+2:3i), kept with
    // its metadata: valid with m_axis_meta_valid
    output wire [4*3-1:0]  m_axis_ingress,

    // The lookup's frames, to the link-delay engines' steer: tuser = {source[2:0],
    // mask[7:0]}, meta {valid, stamp[61:0]} (the first word's on every word)
    output wire [63:0]     m_steer_tdata,
    output wire [7:0]      m_steer_tkeep,
    output wire            m_steer_tvalid,
    input  wire            m_steer_tready,
    output wire            m_steer_tlast,
    output wire [10:0]     m_steer_tuser,
    output wire [62:0]     m_steer_meta,
    // The steered frames, into the output queues (which never stall): tuser as above (the
    // mask taken from the first word), meta {length[13:0], engine[1:0], isl_group,
    // tx_offset[6:0], rx_offset[6:0], valid, stamp[61:0]} (oam_steer), the value on the last
    // word is kept
    input  wire [63:0]     s_steer_tdata,
    input  wire [7:0]      s_steer_tkeep,
    input  wire            s_steer_tvalid,
    output wire            s_steer_tready,
    input  wire            s_steer_tlast,
    input  wire [10:0]     s_steer_tuser,
    input  wire [93:0]     s_steer_meta,

    // Stat packets from evcap; tuser = output port mask
    input  wire [63:0]     s_stat_tdata,
    input  wire [7:0]      s_stat_tkeep,
    input  wire            s_stat_tvalid,
    output wire            s_stat_tready,
    input  wire            s_stat_tlast,
    input  wire [7:0]      s_stat_tuser,

    // Queue events and occupancies, in evcap_core's input layout (20-bit occupancies)
    output wire [7:0]      queue_arrival,
    output wire [8*16-1:0] queue_arrival_length,
    output wire [7:0]      queue_departure,
    output wire [8*16-1:0] queue_departure_length,
    output wire [7:0]      queue_drop,
    output wire [8*16-1:0] queue_drop_length,
    output wire [8*20-1:0] queue_occupancy,

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

// Arbiter -> lookup -> queues

wire [63:0] arbiter_tdata;
wire [7:0]  arbiter_tkeep;
wire        arbiter_tvalid;
wire        arbiter_tready;
wire        arbiter_tlast;
wire [2:0]  arbiter_tuser;
wire [62:0] arbiter_meta;

switch_input_arbiter #(
    .META_WIDTH(63)
) arbiter_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .m_axis_tdata(arbiter_tdata),
    .m_axis_tkeep(arbiter_tkeep),
    .m_axis_tvalid(arbiter_tvalid),
    .m_axis_tready(arbiter_tready),
    .m_axis_tlast(arbiter_tlast),
    .m_axis_tuser(arbiter_tuser),
    .s_axis_meta(s_axis_meta),
    .m_axis_meta(arbiter_meta)
);


// Read by the driver (switch.table_size); TABLE_SIZE is at most 64
localparam [7:0] TABLE_SIZE_8 = TABLE_SIZE;

wire [15:0] ageing_time;
wire [7:0]  table_index;
wire [47:0] table_mac;
wire [2:0]  table_entry_port;
wire        table_entry_valid;
wire        table_entry_static;
wire        table_command_write;
wire [47:0] table_read_mac;
wire [2:0]  table_read_port;
wire        table_read_valid;
wire        table_read_static;
wire [15:0] table_read_age;
wire [63:0] status_frames_looked_up;
wire        clear_frames_looked_up;
wire [63:0] status_frames_flooded;
wire        clear_frames_flooded;
wire [63:0] status_frames_filtered;
wire        clear_frames_filtered;
wire [63:0] status_frames_too_short;
wire        clear_frames_too_short;
wire [63:0] status_entries_learned;
wire        clear_entries_learned;
wire [63:0] status_entries_aged_out;
wire        clear_entries_aged_out;

switch_output_port_lookup #(
    .TABLE_SIZE(TABLE_SIZE),
    .AGE_TICK_CYCLES(AGE_TICK_CYCLES),
    .AGE_WIDTH(16),
    .META_WIDTH(63)
) lookup_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(arbiter_tdata),
    .s_axis_tkeep(arbiter_tkeep),
    .s_axis_tvalid(arbiter_tvalid),
    .s_axis_tready(arbiter_tready),
    .s_axis_tlast(arbiter_tlast),
    .s_axis_tuser(arbiter_tuser),
    .m_axis_tdata(m_steer_tdata),
    .m_axis_tkeep(m_steer_tkeep),
    .m_axis_tvalid(m_steer_tvalid),
    .m_axis_tready(m_steer_tready),
    .m_axis_tlast(m_steer_tlast),
    .m_axis_tuser(m_steer_tuser),
    .s_axis_meta(arbiter_meta),
    .m_axis_meta(m_steer_meta),
    .table_write(table_command_write),
    .table_index(table_index),
    .table_mac(table_mac),
    .table_port(table_entry_port),
    .table_valid(table_entry_valid),
    .table_static(table_entry_static),
    .table_read_mac(table_read_mac),
    .table_read_port(table_read_port),
    .table_read_valid(table_read_valid),
    .table_read_static(table_read_static),
    .table_read_age(table_read_age),
    .config_ageing_time(ageing_time),
    .command_clear_frames_looked_up(clear_frames_looked_up),
    .command_clear_frames_flooded(clear_frames_flooded),
    .command_clear_frames_filtered(clear_frames_filtered),
    .command_clear_frames_too_short(clear_frames_too_short),
    .command_clear_entries_learned(clear_entries_learned),
    .command_clear_entries_aged_out(clear_entries_aged_out),
    .status_frames_looked_up(status_frames_looked_up),
    .status_frames_flooded(status_frames_flooded),
    .status_frames_filtered(status_frames_filtered),
    .status_frames_too_short(status_frames_too_short),
    .status_entries_learned(status_entries_learned),
    .status_entries_aged_out(status_entries_aged_out)
);

wire [8*20-1:0] queue_limit;
wire [8*20-1:0] status_peak_occupancy;
wire [7:0]      clear_peak_occupancy;
wire [8*64-1:0] status_frames_stored;
wire [7:0]      clear_frames_stored;
wire [8*64-1:0] status_bytes_stored;
wire [7:0]      clear_bytes_stored;
wire [8*64-1:0] status_frames_removed;
wire [7:0]      clear_frames_removed;
wire [8*64-1:0] status_bytes_removed;
wire [7:0]      clear_bytes_removed;
wire [8*64-1:0] status_frames_dropped;
wire [7:0]      clear_frames_dropped;
wire [8*64-1:0] status_bytes_dropped;
wire [7:0]      clear_bytes_dropped;

wire [8*64-1:0] queue_tdata;
wire [8*8-1:0]  queue_tkeep;
wire [7:0]      queue_tvalid;
wire [7:0]      queue_tready;
wire [7:0]      queue_tlast;

switch_output_queues #(
    .QUEUE_DEPTH_LOG2(QUEUE_DEPTH_LOG2),
    .QUEUE_SIZE_WIDTH(20)
) queues_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_steer_tdata),
    .s_axis_tkeep(s_steer_tkeep),
    .s_axis_tvalid(s_steer_tvalid),
    .s_axis_tready(s_steer_tready),
    .s_axis_tlast(s_steer_tlast),
    .s_axis_tuser(s_steer_tuser),
    .m_axis_tdata(queue_tdata),
    .m_axis_tkeep(queue_tkeep),
    .m_axis_tvalid(queue_tvalid),
    .m_axis_tready(queue_tready),
    .m_axis_tlast(queue_tlast),
    .config_queue_limit(queue_limit),
    .queue_arrival(queue_arrival),
    .queue_arrival_length(queue_arrival_length),
    .queue_departure(queue_departure),
    .queue_departure_length(queue_departure_length),
    .queue_drop(queue_drop),
    .queue_drop_length(queue_drop_length),
    .queue_occupancy(queue_occupancy),
    .command_clear_frames_stored(clear_frames_stored),
    .command_clear_bytes_stored(clear_bytes_stored),
    .command_clear_frames_removed(clear_frames_removed),
    .command_clear_bytes_removed(clear_bytes_removed),
    .command_clear_frames_dropped(clear_frames_dropped),
    .command_clear_bytes_dropped(clear_bytes_dropped),
    .command_clear_peak_occupancy(clear_peak_occupancy),
    .status_frames_stored(status_frames_stored),
    .status_bytes_stored(status_bytes_stored),
    .status_frames_removed(status_frames_removed),
    .status_bytes_removed(status_bytes_removed),
    .status_frames_dropped(status_frames_dropped),
    .status_bytes_dropped(status_bytes_dropped),
    .status_peak_occupancy(status_peak_occupancy)
);

// The metadata of the queues' frames, and the port each came in by, from commit to departure:
// only frames that have some metadata (an RX stamp, a stamp field) take an entry

wire [7:0] meta_valid;
wire [7:0] from_queue;
wire       steer_meta_present = s_steer_meta[62] || s_steer_meta[76:63] != 14'd0;

genvar q;
generate
    for (q = 0; q < 8; q = q + 1) begin : meta
        if (q < 4) begin : mac
            // a MAC port's queue keeps the ingress port too (the flow-latency monitor's)
            stamp_meta_fifo #(
                .STAMP_WIDTH(97),
                .DEPTH_LOG2(9),
                .TAG_WIDTH(10)
            ) fifo_inst (
                .clk(clk),
                .rst(rst),
                .commit(queue_arrival[q]),
                .s_valid(steer_meta_present),
                .s_stamp({s_steer_tuser[10:8], s_steer_meta}),
                .departure(queue_departure[q]),
                .m_valid(meta_valid[q]),
                .m_stamp({m_axis_ingress[3*q +: 3], m_axis_meta[94*q +: 94]})
            );
        end else begin : cpu
            stamp_meta_fifo #(
                .STAMP_WIDTH(94),
                .DEPTH_LOG2(9),
                .TAG_WIDTH(10)
            ) fifo_inst (
                .clk(clk),
                .rst(rst),
                .commit(queue_arrival[q]),
                .s_valid(steer_meta_present),
                .s_stamp(s_steer_meta),
                .departure(queue_departure[q]),
                .m_valid(meta_valid[q]),
                .m_stamp(m_axis_meta[94*q +: 94])
            );
        end
    end
endgenerate

assign m_axis_meta_valid = meta_valid & from_queue;

// Stat packets join the queues' frames on the way out

switch_stat_path stat_path_inst (
    .clk(clk),
    .rst(rst),
    .s_stat_tdata(s_stat_tdata),
    .s_stat_tkeep(s_stat_tkeep),
    .s_stat_tvalid(s_stat_tvalid),
    .s_stat_tready(s_stat_tready),
    .s_stat_tlast(s_stat_tlast),
    .s_stat_tuser(s_stat_tuser),
    .s_queue_tdata(queue_tdata),
    .s_queue_tkeep(queue_tkeep),
    .s_queue_tvalid(queue_tvalid),
    .s_queue_tready(queue_tready),
    .s_queue_tlast(queue_tlast),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_from_queue(from_queue)
);

// Registers

switch_regs regs_inst (
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
    .queue_limit_0(queue_limit[19:0]),
    .queue_limit_1(queue_limit[39:20]),
    .queue_limit_2(queue_limit[59:40]),
    .queue_limit_3(queue_limit[79:60]),
    .queue_limit_4(queue_limit[99:80]),
    .queue_limit_5(queue_limit[119:100]),
    .queue_limit_6(queue_limit[139:120]),
    .queue_limit_7(queue_limit[159:140]),
    .queue_occupancy_0(queue_occupancy[19:0]),
    .queue_occupancy_1(queue_occupancy[39:20]),
    .queue_occupancy_2(queue_occupancy[59:40]),
    .queue_occupancy_3(queue_occupancy[79:60]),
    .queue_occupancy_4(queue_occupancy[99:80]),
    .queue_occupancy_5(queue_occupancy[119:100]),
    .queue_occupancy_6(queue_occupancy[139:120]),
    .queue_occupancy_7(queue_occupancy[159:140]),
    .peak_occupancy_0({44'd0, status_peak_occupancy[19:0]}),
    .peak_occupancy_0_clear(clear_peak_occupancy[0]),
    .peak_occupancy_1({44'd0, status_peak_occupancy[39:20]}),
    .peak_occupancy_1_clear(clear_peak_occupancy[1]),
    .peak_occupancy_2({44'd0, status_peak_occupancy[59:40]}),
    .peak_occupancy_2_clear(clear_peak_occupancy[2]),
    .peak_occupancy_3({44'd0, status_peak_occupancy[79:60]}),
    .peak_occupancy_3_clear(clear_peak_occupancy[3]),
    .peak_occupancy_4({44'd0, status_peak_occupancy[99:80]}),
    .peak_occupancy_4_clear(clear_peak_occupancy[4]),
    .peak_occupancy_5({44'd0, status_peak_occupancy[119:100]}),
    .peak_occupancy_5_clear(clear_peak_occupancy[5]),
    .peak_occupancy_6({44'd0, status_peak_occupancy[139:120]}),
    .peak_occupancy_6_clear(clear_peak_occupancy[6]),
    .peak_occupancy_7({44'd0, status_peak_occupancy[159:140]}),
    .peak_occupancy_7_clear(clear_peak_occupancy[7]),
    .frames_stored_0(status_frames_stored[63:0]),
    .frames_stored_0_clear(clear_frames_stored[0]),
    .frames_stored_1(status_frames_stored[127:64]),
    .frames_stored_1_clear(clear_frames_stored[1]),
    .frames_stored_2(status_frames_stored[191:128]),
    .frames_stored_2_clear(clear_frames_stored[2]),
    .frames_stored_3(status_frames_stored[255:192]),
    .frames_stored_3_clear(clear_frames_stored[3]),
    .frames_stored_4(status_frames_stored[319:256]),
    .frames_stored_4_clear(clear_frames_stored[4]),
    .frames_stored_5(status_frames_stored[383:320]),
    .frames_stored_5_clear(clear_frames_stored[5]),
    .frames_stored_6(status_frames_stored[447:384]),
    .frames_stored_6_clear(clear_frames_stored[6]),
    .frames_stored_7(status_frames_stored[511:448]),
    .frames_stored_7_clear(clear_frames_stored[7]),
    .bytes_stored_0(status_bytes_stored[63:0]),
    .bytes_stored_0_clear(clear_bytes_stored[0]),
    .bytes_stored_1(status_bytes_stored[127:64]),
    .bytes_stored_1_clear(clear_bytes_stored[1]),
    .bytes_stored_2(status_bytes_stored[191:128]),
    .bytes_stored_2_clear(clear_bytes_stored[2]),
    .bytes_stored_3(status_bytes_stored[255:192]),
    .bytes_stored_3_clear(clear_bytes_stored[3]),
    .bytes_stored_4(status_bytes_stored[319:256]),
    .bytes_stored_4_clear(clear_bytes_stored[4]),
    .bytes_stored_5(status_bytes_stored[383:320]),
    .bytes_stored_5_clear(clear_bytes_stored[5]),
    .bytes_stored_6(status_bytes_stored[447:384]),
    .bytes_stored_6_clear(clear_bytes_stored[6]),
    .bytes_stored_7(status_bytes_stored[511:448]),
    .bytes_stored_7_clear(clear_bytes_stored[7]),
    .frames_removed_0(status_frames_removed[63:0]),
    .frames_removed_0_clear(clear_frames_removed[0]),
    .frames_removed_1(status_frames_removed[127:64]),
    .frames_removed_1_clear(clear_frames_removed[1]),
    .frames_removed_2(status_frames_removed[191:128]),
    .frames_removed_2_clear(clear_frames_removed[2]),
    .frames_removed_3(status_frames_removed[255:192]),
    .frames_removed_3_clear(clear_frames_removed[3]),
    .frames_removed_4(status_frames_removed[319:256]),
    .frames_removed_4_clear(clear_frames_removed[4]),
    .frames_removed_5(status_frames_removed[383:320]),
    .frames_removed_5_clear(clear_frames_removed[5]),
    .frames_removed_6(status_frames_removed[447:384]),
    .frames_removed_6_clear(clear_frames_removed[6]),
    .frames_removed_7(status_frames_removed[511:448]),
    .frames_removed_7_clear(clear_frames_removed[7]),
    .bytes_removed_0(status_bytes_removed[63:0]),
    .bytes_removed_0_clear(clear_bytes_removed[0]),
    .bytes_removed_1(status_bytes_removed[127:64]),
    .bytes_removed_1_clear(clear_bytes_removed[1]),
    .bytes_removed_2(status_bytes_removed[191:128]),
    .bytes_removed_2_clear(clear_bytes_removed[2]),
    .bytes_removed_3(status_bytes_removed[255:192]),
    .bytes_removed_3_clear(clear_bytes_removed[3]),
    .bytes_removed_4(status_bytes_removed[319:256]),
    .bytes_removed_4_clear(clear_bytes_removed[4]),
    .bytes_removed_5(status_bytes_removed[383:320]),
    .bytes_removed_5_clear(clear_bytes_removed[5]),
    .bytes_removed_6(status_bytes_removed[447:384]),
    .bytes_removed_6_clear(clear_bytes_removed[6]),
    .bytes_removed_7(status_bytes_removed[511:448]),
    .bytes_removed_7_clear(clear_bytes_removed[7]),
    .frames_dropped_0(status_frames_dropped[63:0]),
    .frames_dropped_0_clear(clear_frames_dropped[0]),
    .frames_dropped_1(status_frames_dropped[127:64]),
    .frames_dropped_1_clear(clear_frames_dropped[1]),
    .frames_dropped_2(status_frames_dropped[191:128]),
    .frames_dropped_2_clear(clear_frames_dropped[2]),
    .frames_dropped_3(status_frames_dropped[255:192]),
    .frames_dropped_3_clear(clear_frames_dropped[3]),
    .frames_dropped_4(status_frames_dropped[319:256]),
    .frames_dropped_4_clear(clear_frames_dropped[4]),
    .frames_dropped_5(status_frames_dropped[383:320]),
    .frames_dropped_5_clear(clear_frames_dropped[5]),
    .frames_dropped_6(status_frames_dropped[447:384]),
    .frames_dropped_6_clear(clear_frames_dropped[6]),
    .frames_dropped_7(status_frames_dropped[511:448]),
    .frames_dropped_7_clear(clear_frames_dropped[7]),
    .bytes_dropped_0(status_bytes_dropped[63:0]),
    .bytes_dropped_0_clear(clear_bytes_dropped[0]),
    .bytes_dropped_1(status_bytes_dropped[127:64]),
    .bytes_dropped_1_clear(clear_bytes_dropped[1]),
    .bytes_dropped_2(status_bytes_dropped[191:128]),
    .bytes_dropped_2_clear(clear_bytes_dropped[2]),
    .bytes_dropped_3(status_bytes_dropped[255:192]),
    .bytes_dropped_3_clear(clear_bytes_dropped[3]),
    .bytes_dropped_4(status_bytes_dropped[319:256]),
    .bytes_dropped_4_clear(clear_bytes_dropped[4]),
    .bytes_dropped_5(status_bytes_dropped[383:320]),
    .bytes_dropped_5_clear(clear_bytes_dropped[5]),
    .bytes_dropped_6(status_bytes_dropped[447:384]),
    .bytes_dropped_6_clear(clear_bytes_dropped[6]),
    .bytes_dropped_7(status_bytes_dropped[511:448]),
    .bytes_dropped_7_clear(clear_bytes_dropped[7]),
    .ageing_time(ageing_time),
    .table_index(table_index),
    .table_mac(table_mac),
    .table_entry_port(table_entry_port),
    .table_entry_valid(table_entry_valid),
    .table_entry_static(table_entry_static),
    .table_command_write(table_command_write),
    .table_read_mac({16'd0, table_read_mac}),
    .table_read_entry({table_read_age, 6'd0, table_read_static, table_read_valid, 5'd0, table_read_port}),
    .table_size(TABLE_SIZE_8),
    .frames_looked_up(status_frames_looked_up),
    .frames_looked_up_clear(clear_frames_looked_up),
    .frames_flooded(status_frames_flooded),
    .frames_flooded_clear(clear_frames_flooded),
    .frames_filtered(status_frames_filtered),
    .frames_filtered_clear(clear_frames_filtered),
    .frames_too_short(status_frames_too_short),
    .frames_too_short_clear(clear_frames_too_short),
    .entries_learned(status_entries_learned),
    .entries_learned_clear(clear_entries_learned),
    .entries_aged_out(status_entries_aged_out),
    .entries_aged_out_clear(clear_entries_aged_out)
);

endmodule

`resetall
