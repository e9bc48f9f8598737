/*
 * pktstats_core_icarus_tb: the whole design (switch + event capture) under Icarus Verilog,
 * loaded like the simulator's speed benchmark loads it, for `make bench` to time Icarus
 * against Verilator on the same RTL (bench/bench_sim.py). A speed reference, not a test: it
 * checks only that the design really switched traffic.
 *
 * Load: every input port offers back-to-back minimum-size frames (60 bytes = 8 words, tkeep
 * 8'h0f on the last) to the broadcast address, so every frame floods to 7 output queues and all
 * 8 queues are busy. Source MAC 02:00:00:00:00:<port+1>, as the simulator's generator. Outputs
 * 0..3 take words like a 1 Gb/s MAC (one byte per clock, 24 bytes of preamble, FCS and gap per
 * frame, 60-byte minimum), so their queues fill and drop; outputs 4..7 (CPU ports) are always
 * ready. Capture is enabled through the register bus first, stat packets out of port 0.
 *
 * Usage: vvp pktstats_core_icarus_tb.vvp [+clocks=N]   (default 2000 clocks after reset)
 * Prints frames in and out per port and "clocks N"; exits through $fatal when nothing moved.
 */

`timescale 1ns / 1ps
`default_nettype none

module pktstats_core_icarus_tb;

localparam PORTS = 8;
localparam MAC_PORTS = 4;
localparam FRAME_WORDS = 8;        // 60 bytes
localparam LAST_KEEP = 8'h0f;      // 60 = 7 * 8 + 4
localparam ETHERNET_OVERHEAD = 24; // preamble 8 + FCS 4 + inter-frame gap 12, byte times

reg clk = 1'b0;
reg rst = 1'b1;

reg  [PORTS*64-1:0] s_axis_tdata;
reg  [PORTS*8-1:0]  s_axis_tkeep;
reg  [PORTS-1:0]    s_axis_tvalid;
wire [PORTS-1:0]    s_axis_tready;
reg  [PORTS-1:0]    s_axis_tlast;
wire [PORTS*64-1:0] m_axis_tdata;
wire [PORTS*8-1:0]  m_axis_tkeep;
wire [PORTS-1:0]    m_axis_tvalid;
reg  [PORTS-1:0]    m_axis_tready;
wire [PORTS-1:0]    m_axis_tlast;
wire [63:0]         timer;

reg  [15:0] s_axil_awaddr = 16'd0;
reg         s_axil_awvalid = 1'b0;
wire        s_axil_awready;
reg  [31:0] s_axil_wdata = 32'd0;
reg         s_axil_wvalid = 1'b0;
wire        s_axil_wready;
wire [1:0]  s_axil_bresp;
wire        s_axil_bvalid;
reg         s_axil_bready = 1'b0;
wire        s_axil_arready;
wire [31:0] s_axil_rdata;
wire [1:0]  s_axil_rresp;
wire        s_axil_rvalid;

pktstats_core dut (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .s_axis_rx_timestamp({4*62{1'b0}}),
    .s_axis_rx_timestamp_valid(4'd0),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .timer(timer),
    .s_axil_awaddr(s_axil_awaddr),
    .s_axil_awprot(3'd0),
    .s_axil_awvalid(s_axil_awvalid),
    .s_axil_awready(s_axil_awready),
    .s_axil_wdata(s_axil_wdata),
    .s_axil_wstrb(4'hf),
    .s_axil_wvalid(s_axil_wvalid),
    .s_axil_wready(s_axil_wready),
    .s_axil_bresp(s_axil_bresp),
    .s_axil_bvalid(s_axil_bvalid),
    .s_axil_bready(s_axil_bready),
    .s_axil_araddr(16'd0),
    .s_axil_arprot(3'd0),
    .s_axil_arvalid(1'b0),
    .s_axil_arready(s_axil_arready),
    .s_axil_rdata(s_axil_rdata),
    .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid),
    .s_axil_rready(1'b1)
);

always #4 clk = ~clk;

// Word `index` of port `port`'s frame, byte k in bits 8k+7:8k (byte 0 first on the wire):
// broadcast destination, source 02:00:00:00:00:<port+1>, EtherType 0x0800, then filler.
function [63:0] frame_word;
    input integer port;
    input integer index;
    begin
        case (index)
            0: frame_word = 64'h0002_ffff_ffff_ffff;
            1: frame_word = {8'h00, 8'h45, 8'h00, 8'h08, port[7:0] + 8'd1, 8'h00, 8'h00, 8'h00};
            default: frame_word = {8{index[7:0]}};
        endcase
    end
endfunction

function [3:0] popcount8;
    input [7:0] bits;
    integer i;
    begin
        popcount8 = 4'd0;
        for (i = 0; i < 8; i = i + 1)
            popcount8 = popcount8 + bits[i];
    end
endfunction

// One AXI4-Lite write, address and data together, then the response.
task axil_write;
    input [15:0] address;
    input [31:0] value;
    begin
        @(negedge clk);
        s_axil_awaddr = address;
        s_axil_wdata = value;
        s_axil_awvalid = 1'b1;
        s_axil_wvalid = 1'b1;
        s_axil_bready = 1'b1;
        while (s_axil_awvalid || s_axil_wvalid) begin
            @(posedge clk);
            if (s_axil_awready)
                s_axil_awvalid <= 1'b0;
            if (s_axil_wready)
                s_axil_wvalid <= 1'b0;
            @(negedge clk);
        end
        while (!s_axil_bvalid)
            @(negedge clk);
        @(negedge clk);
        s_axil_bready = 1'b0;
    end
endtask

// Stimulus and counting, all at the rising edge on the values of the clock before it.
reg          running = 1'b0;
integer      in_word [0:PORTS-1];       // next word of the frame on offer
integer      out_bytes [0:PORTS-1];     // bytes of the frame leaving, so far
integer      out_words [0:PORTS-1];
integer      hold [0:PORTS-1];          // clocks a 1G output stays not ready
integer      frames_in [0:PORTS-1];
integer      frames_out [0:PORTS-1];
integer      p, q, wire_bytes;   // loop variables: one per process

always @(*) begin
    for (q = 0; q < PORTS; q = q + 1) begin
        s_axis_tvalid[q] = running;
        s_axis_tdata[64*q +: 64] = frame_word(q, in_word[q]);
        s_axis_tlast[q] = in_word[q] == FRAME_WORDS - 1;
        s_axis_tkeep[8*q +: 8] = in_word[q] == FRAME_WORDS - 1 ? LAST_KEEP : 8'hff;
        m_axis_tready[q] = !rst && (q >= MAC_PORTS || hold[q] == 0);
    end
end

always @(posedge clk) begin
    for (p = 0; p < PORTS; p = p + 1) begin
        if (s_axis_tvalid[p] && s_axis_tready[p]) begin
            in_word[p] <= s_axis_tlast[p] ? 0 : in_word[p] + 1;
            if (s_axis_tlast[p])
                frames_in[p] <= frames_in[p] + 1;
        end
        if (hold[p] != 0)
            hold[p] <= hold[p] - 1;
        if (m_axis_tvalid[p] && m_axis_tready[p]) begin
            if (m_axis_tlast[p]) begin
                frames_out[p] <= frames_out[p] + 1;
                out_bytes[p] <= 0;
                out_words[p] <= 0;
                // A 1G MAC sends a byte per clock: the frame's remaining wire time, less
                // the clocks its words already took.
                wire_bytes = out_bytes[p] + popcount8(m_axis_tkeep[8*p +: 8]);
                if (wire_bytes < 60)
                    wire_bytes = 60;
                if (p < MAC_PORTS)
                    hold[p] <= wire_bytes + ETHERNET_OVERHEAD - (out_words[p] + 1);
            end else begin
                out_bytes[p] <= out_bytes[p] + popcount8(m_axis_tkeep[8*p +: 8]);
                out_words[p] <= out_words[p] + 1;
            end
        end
    end
end

integer clocks, total_in, total_out, idle_outputs, i;

initial begin
    for (i = 0; i < PORTS; i = i + 1) begin
        in_word[i] = 0;
        out_bytes[i] = 0;
        out_words[i] = 0;
        hold[i] = 0;
        frames_in[i] = 0;
        frames_out[i] = 0;
    end
    if (!$value$plusargs("clocks=%d", clocks))
        clocks = 2000;

    repeat (8) @(posedge clk);
    @(negedge clk);
    rst = 1'b0;

    // evcap: stat packets out of port 0 (output_ports), then capture on (control.enable).
    axil_write(16'h101c, 32'h0000_0001);
    axil_write(16'h1008, 32'h0000_0001);

    @(negedge clk);
    running = 1'b1;
    repeat (clocks) @(posedge clk);
    #1;

    total_in = 0;
    total_out = 0;
    idle_outputs = 0;
    for (i = 0; i < PORTS; i = i + 1) begin
        $display("port %0d: frames in %0d, frames out %0d", i, frames_in[i], frames_out[i]);
        total_in = total_in + frames_in[i];
        total_out = total_out + frames_out[i];
        if (frames_out[i] == 0)
            idle_outputs = idle_outputs + 1;
    end
    $display("clocks %0d, frames in %0d, frames out %0d", clocks, total_in, total_out);
    // Only a run long enough to fill the pipeline can show traffic on every output.
    if (total_in == 0 || (clocks >= 200 && idle_outputs != 0))
        $fatal(1, "the switch did not forward traffic to every output");
    $finish;
end

endmodule

`default_nettype wire
