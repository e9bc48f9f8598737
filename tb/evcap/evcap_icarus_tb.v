/*
 * evcap_icarus_tb: replays a vector file from make_vectors (the reference model) into
 * evcap_core under Icarus Verilog and compares every output in every clock. Proves that the RTL
 * means the same thing to a second simulator as it does to Verilator.
 *
 * Usage: vvp evcap_icarus_tb.vvp +vectors=FILE     prints TAP ("ok 1 - ...").
 */

`timescale 1ns / 1ps
`default_nettype none

module evcap_icarus_tb;

localparam QUEUE_SIZE_WIDTH = 20;

reg clk = 1'b0;
reg rst = 1'b1;

reg [7:0]   queue_arrival, queue_departure, queue_drop;
reg [127:0] queue_arrival_length, queue_departure_length, queue_drop_length;
reg [159:0] queue_occupancy;
reg         config_enable;
reg [2:0]   config_resolution;
reg [7:0]   config_queue_mask;
reg [2:0]   config_event_mask;
reg [7:0]   config_output_ports;
reg [47:0]  config_destination_mac, config_source_mac;
reg [31:0]  config_source_ip, config_destination_ip;
reg [7:0]   config_tos, config_ttl;
reg [15:0]  config_udp_source_port, config_udp_destination_port, config_max_length;
reg [31:0]  config_flush_timeout;
reg [63:0]  config_timer_preset;
reg         command_flush, command_timer_reset, command_timer_load;
reg         command_clear_events_missed, command_clear_events_sent, command_clear_packets_sent;
reg         m_axis_tready;

reg         expect_tvalid, expect_tlast;
reg [63:0]  expect_tdata;
reg [7:0]   expect_tkeep, expect_tuser;
reg [63:0]  expect_timer, expect_missed, expect_sent, expect_packets;

wire [63:0] m_axis_tdata;
wire [7:0]  m_axis_tkeep, m_axis_tuser;
wire        m_axis_tvalid, m_axis_tlast;
wire [63:0] status_timer, status_events_missed, status_events_sent, status_packets_sent;

evcap_core #(
    .QUEUE_SIZE_WIDTH(QUEUE_SIZE_WIDTH)
) dut (
    .clk(clk),
    .rst(rst),
    .queue_arrival(queue_arrival),
    .queue_arrival_length(queue_arrival_length),
    .queue_departure(queue_departure),
    .queue_departure_length(queue_departure_length),
    .queue_drop(queue_drop),
    .queue_drop_length(queue_drop_length),
    .queue_occupancy(queue_occupancy),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser),
    .config_enable(config_enable),
    .config_resolution(config_resolution),
    .config_queue_mask(config_queue_mask),
    .config_event_mask(config_event_mask),
    .config_output_ports(config_output_ports),
    .config_destination_mac(config_destination_mac),
    .config_source_mac(config_source_mac),
    .config_source_ip(config_source_ip),
    .config_destination_ip(config_destination_ip),
    .config_tos(config_tos),
    .config_ttl(config_ttl),
    .config_udp_source_port(config_udp_source_port),
    .config_udp_destination_port(config_udp_destination_port),
    .config_max_length(config_max_length),
    .config_flush_timeout(config_flush_timeout),
    .config_timer_preset(config_timer_preset),
    .command_flush(command_flush),
    .command_timer_reset(command_timer_reset),
    .command_timer_load(command_timer_load),
    .command_clear_events_missed(command_clear_events_missed),
    .command_clear_events_sent(command_clear_events_sent),
    .command_clear_packets_sent(command_clear_packets_sent),
    .status_timer(status_timer),
    .status_events_missed(status_events_missed),
    .status_events_sent(status_events_sent),
    .status_packets_sent(status_packets_sent)
);

always #4 clk = ~clk;

integer fd, fields, cycle, errors, packets;
reg [8*256-1:0] path;

initial begin
    {queue_arrival, queue_departure, queue_drop} = 0;
    {queue_arrival_length, queue_departure_length, queue_drop_length, queue_occupancy} = 0;
    {config_enable, config_resolution, config_queue_mask, config_event_mask} = 0;
    {config_output_ports, config_destination_mac, config_source_mac} = 0;
    {config_source_ip, config_destination_ip, config_tos, config_ttl} = 0;
    {config_udp_source_port, config_udp_destination_port, config_max_length} = 0;
    {config_flush_timeout, config_timer_preset} = 0;
    {command_flush, command_timer_reset, command_timer_load} = 0;
    {command_clear_events_missed, command_clear_events_sent, command_clear_packets_sent} = 0;
    m_axis_tready = 1'b1;
    errors = 0;
    packets = 0;
    cycle = 0;

    if (!$value$plusargs("vectors=%s", path)) begin
        $display("not ok 1 - icarus_vectors # no +vectors=FILE");
        $display("1..1");
        $finish;
    end
    fd = $fopen(path, "r");
    if (fd == 0) begin
        $display("not ok 1 - icarus_vectors # cannot open vector file");
        $display("1..1");
        $finish;
    end

    repeat (4) @(posedge clk);
    @(negedge clk);
    rst = 1'b0;

    fields = 0;
    while (!$feof(fd) && errors < 5) begin
        fields = $fscanf(fd, "%h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h\n",
            queue_arrival, queue_departure, queue_drop,
            queue_arrival_length, queue_departure_length, queue_drop_length, queue_occupancy,
            config_enable, config_resolution, config_queue_mask, config_event_mask,
            config_output_ports, config_destination_mac, config_source_mac,
            config_source_ip, config_destination_ip, config_tos, config_ttl,
            config_udp_source_port, config_udp_destination_port, config_max_length,
            config_flush_timeout, config_timer_preset,
            command_flush, command_timer_reset, command_timer_load,
            command_clear_events_missed, command_clear_events_sent, command_clear_packets_sent,
            m_axis_tready,
            expect_tvalid, expect_tdata, expect_tkeep, expect_tlast, expect_tuser,
            expect_timer, expect_missed, expect_sent, expect_packets);
        if (fields != 39) begin
            if (!$feof(fd)) begin
                $display("# line %0d: read %0d fields", cycle + 1, fields);
                errors = errors + 1;
            end
        end else begin
            #1;
            if (m_axis_tvalid !== expect_tvalid
                || (expect_tvalid && (m_axis_tdata !== expect_tdata || m_axis_tkeep !== expect_tkeep
                    || m_axis_tlast !== expect_tlast || m_axis_tuser !== expect_tuser))
                || status_timer !== expect_timer || status_events_missed !== expect_missed
                || status_events_sent !== expect_sent || status_packets_sent !== expect_packets) begin
                $display("# cycle %0d: rtl valid %b data %h keep %h last %b user %h timer %0d missed %0d sent %0d packets %0d",
                    cycle, m_axis_tvalid, m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser,
                    status_timer, status_events_missed, status_events_sent, status_packets_sent);
                $display("#   model valid %b data %h keep %h last %b user %h timer %0d missed %0d sent %0d packets %0d",
                    expect_tvalid, expect_tdata, expect_tkeep, expect_tlast, expect_tuser,
                    expect_timer, expect_missed, expect_sent, expect_packets);
                errors = errors + 1;
            end
            if (m_axis_tvalid && m_axis_tready && m_axis_tlast) begin
                packets = packets + 1;
            end
            @(negedge clk);
            cycle = cycle + 1;
        end
    end
    $fclose(fd);

    if (errors == 0 && cycle > 0 && packets > 0) begin
        $display("ok 1 - icarus_vectors # %0d clocks, %0d stat packets identical to the model", cycle, packets);
    end else begin
        $display("not ok 1 - icarus_vectors # %0d mismatches in %0d clocks, %0d packets", errors, cycle, packets);
    end
    $display("1..1");
    $finish;
end

endmodule

`default_nettype wire
