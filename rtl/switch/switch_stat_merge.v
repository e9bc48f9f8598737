/*
 * switch_stat_merge: joins two streams of frames the switch itself sends (evcap's stat packets,
 * the flow-latency monitor's IPFIX messages) into the one stream switch_stat_path puts on the
 * output ports. Whole frames, taking turns when both wait: neither can hold the other up for
 * more than one frame, and nothing is dropped, cut or reordered within a stream. tuser (the
 * output port mask) travels with each word.
 *
 *   s_a (evcap) ----.
 *                   +--> [one frame at a time, turns] --> m (switch_stat_path)
 *   s_b (flowlat) --'
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module switch_stat_merge (
    input  wire        clk,
    input  wire        rst,

    // First source
    input  wire [63:0] s_a_tdata,
    input  wire [7:0]  s_a_tkeep,
    input  wire        s_a_tvalid,
    output wire        s_a_tready,
    input  wire        s_a_tlast,
    input  wire [7:0]  s_a_tuser,

    // Second source
    input  wire [63:0] s_b_tdata,
    input  wire [7:0]  s_b_tkeep,
    input  wire        s_b_tvalid,
    output wire        s_b_tready,
    input  wire        s_b_tlast,
    input  wire [7:0]  s_b_tuser,

    // The joined stream
    output wire [63:0] m_tdata,
    output wire [7:0]  m_tkeep,
    output wire        m_tvalid,
    input  wire        m_tready,
    output wire        m_tlast,
    output wire [7:0]  m_tuser
);

reg in_frame = 1'b0;   // a frame is being passed: its source keeps the stream
reg offered = 1'b0;    // a first word was offered and not taken yet: it stays offered
reg from_b = 1'b0;     // the source of the frame being passed, or of the word offered
reg b_next = 1'b0;     // whose turn it is when both wait at a frame boundary

// At a frame boundary: the source that waits, or the one whose turn it is when both do
wire pick_b = (in_frame || offered) ? from_b : (s_b_tvalid && (!s_a_tvalid || b_next));

assign m_tdata = pick_b ? s_b_tdata : s_a_tdata;
assign m_tkeep = pick_b ? s_b_tkeep : s_a_tkeep;
assign m_tvalid = pick_b ? s_b_tvalid : s_a_tvalid;
assign m_tlast = pick_b ? s_b_tlast : s_a_tlast;
assign m_tuser = pick_b ? s_b_tuser : s_a_tuser;
assign s_a_tready = m_tready && !pick_b;
assign s_b_tready = m_tready && pick_b;

always @(posedge clk) begin
    if (m_tvalid) begin
        from_b <= pick_b;
        offered <= !m_tready;
    end
    if (m_tvalid && m_tready) begin
        in_frame <= !m_tlast;
        if (m_tlast)
            b_next <= !pick_b;
    end
    if (rst) begin
        in_frame <= 1'b0;
        offered <= 1'b0;
        from_b <= 1'b0;
        b_next <= 1'b0;
    end
end

endmodule

`resetall
