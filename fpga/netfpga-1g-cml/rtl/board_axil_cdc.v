/*
 * board_axil_cdc: an AXI4-Lite clock-domain crossing, one transaction at a time: the XDMA's
 * AXI4-Lite master (s_*, in s_clk, the PCIe user clock) onto pktstats_core's register slave
 * (m_*, in m_clk, the switch clock). The two clocks are asynchronous (both nominally 125 MHz,
 * from different oscillators).
 *
 * A transaction crosses by a four-phase handshake of two levels, req (s_clk -> m_clk) and ack
 * (m_clk -> s_clk), each through 2 ASYNC_REG flip-flops; the address, data and response ride
 * beside them in registers that do not change while they are read on the other side (bundled
 * data):
 *   s side: takes a write (awvalid and wvalid both high; write before read) or a read when
 *           idle and ack is low, holds it, raises req; when ack comes, lowers req and gives
 *           the response (bvalid or rvalid, from the m side's registers); the next transaction
 *           waits until ack has fallen again.
 *   m side: on req high and idle, issues the write (awvalid and wvalid, each until its
 *           ready) or the read (arvalid until arready), takes bresp or rdata/rresp (bready and
 *           rready are high while waiting), raises ack; lowers ack when req has fallen.
 * Cost per register access: a few clocks of each side (about 10 clocks in all), nothing for a
 * register file read by the host at PCIe latency.
 *
 * Resets (synchronous, active high, one per side): a reset of the s side in the middle of a
 * transaction drops it (req low; the m side finishes it, raises ack, sees req low and lowers
 * ack; the s side starts nothing before ack is low). A reset of the m side in the middle of
 * one lowers ack; if req is still high the m side issues the transaction again (a write may
 * be done twice). In Vivado, the bundled-data paths are between the asynchronous clock
 * groups of timing.xdc; they are a few register-to-register hops, settled long before the 2
 * synchronizer stages of req or ack let the other side read them.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_axil_cdc #(
    parameter ADDR_WIDTH = 16
) (
    // slave side (from the AXI4-Lite master), s_clk
    input  wire                  s_clk,
    input  wire                  s_rst,
    input  wire [ADDR_WIDTH-1:0] s_awaddr,
    input  wire [2:0]            s_awprot,
    input  wire                  s_awvalid,
    output wire                  s_awready,
    input  wire [31:0]           s_wdata,
    input  wire [3:0]            s_wstrb,
    input  wire                  s_wvalid,
    output wire                  s_wready,
    output wire [1:0]            s_bresp,
    output wire                  s_bvalid,
    input  wire                  s_bready,
    input  wire [ADDR_WIDTH-1:0] s_araddr,
    input  wire [2:0]            s_arprot,
    input  wire                  s_arvalid,
    output wire                  s_arready,
    output wire [31:0]           s_rdata,
    output wire [1:0]            s_rresp,
    output wire                  s_rvalid,
    input  wire                  s_rready,
    // master side (to the register slave), m_clk
    input  wire                  m_clk,
    input  wire                  m_rst,
    output wire [ADDR_WIDTH-1:0] m_awaddr,
    output wire [2:0]            m_awprot,
    output wire                  m_awvalid,
    input  wire                  m_awready,
    output wire [31:0]           m_wdata,
    output wire [3:0]            m_wstrb,
    output wire                  m_wvalid,
    input  wire                  m_wready,
    input  wire [1:0]            m_bresp,
    input  wire                  m_bvalid,
    output wire                  m_bready,
    output wire [ADDR_WIDTH-1:0] m_araddr,
    output wire [2:0]            m_arprot,
    output wire                  m_arvalid,
    input  wire                  m_arready,
    input  wire [31:0]           m_rdata,
    input  wire [1:0]            m_rresp,
    input  wire                  m_rvalid,
    output wire                  m_rready
);

// ------------------------------------------------------------------------------------------
// s side

localparam [1:0] S_IDLE = 2'd0, S_WAIT = 2'd1, S_RESP = 2'd2;

reg [1:0]            s_state;
reg                  s_req;
reg                  s_write;   // the transaction is a write
reg [ADDR_WIDTH-1:0] s_addr;
reg [2:0]            s_prot;
reg [31:0]           s_data;
reg [3:0]            s_strb;
(* ASYNC_REG = "TRUE" *) reg [1:0] s_ack_sync;

wire s_ack = s_ack_sync[1];
wire s_can_take = (s_state == S_IDLE) && !s_ack;
wire s_take_write = s_can_take && s_awvalid && s_wvalid;
wire s_take_read = s_can_take && !(s_awvalid && s_wvalid) && s_arvalid;

// the response, from the m side's registers (stable while ack is high)
reg [31:0] m_resp_data;
reg [1:0]  m_resp;

always @(posedge s_clk) begin
    s_ack_sync <= {s_ack_sync[0], m_ack_q};
    if (s_rst) begin
        s_state <= S_IDLE;
        s_req <= 1'b0;
        s_write <= 1'b0;
        s_addr <= {ADDR_WIDTH{1'b0}};
        s_prot <= 3'd0;
        s_data <= 32'd0;
        s_strb <= 4'd0;
    end else begin
        case (s_state)
            S_IDLE: begin
                if (s_take_write) begin
                    s_state <= S_WAIT;
                    s_req <= 1'b1;
                    s_write <= 1'b1;
                    s_addr <= s_awaddr;
                    s_prot <= s_awprot;
                    s_data <= s_wdata;
                    s_strb <= s_wstrb;
                end else if (s_take_read) begin
                    s_state <= S_WAIT;
                    s_req <= 1'b1;
                    s_write <= 1'b0;
                    s_addr <= s_araddr;
                    s_prot <= s_arprot;
                end
            end
            S_WAIT: begin
                if (s_ack) begin
                    s_state <= S_RESP;
                    s_req <= 1'b0;
                end
            end
            default: begin
                if (s_write ? s_bready : s_rready) begin
                    s_state <= S_IDLE;
                end
            end
        endcase
    end
end

assign s_awready = s_take_write;
assign s_wready = s_take_write;
assign s_arready = s_take_read;
assign s_bvalid = (s_state == S_RESP) && s_write;
assign s_bresp = m_resp;
assign s_rvalid = (s_state == S_RESP) && !s_write;
assign s_rdata = m_resp_data;
assign s_rresp = m_resp;

// ------------------------------------------------------------------------------------------
// m side

localparam [1:0] M_IDLE = 2'd0, M_ADDR = 2'd1, M_RESP = 2'd2, M_ACK = 2'd3;

reg [1:0] m_state;
reg       m_ack_q;
reg       m_aw_pending;
reg       m_w_pending;
reg       m_ar_pending;
(* ASYNC_REG = "TRUE" *) reg [1:0] m_req_sync;

wire m_req = m_req_sync[1];

always @(posedge m_clk) begin
    m_req_sync <= {m_req_sync[0], s_req};
    if (m_rst) begin
        m_state <= M_IDLE;
        m_ack_q <= 1'b0;
        m_aw_pending <= 1'b0;
        m_w_pending <= 1'b0;
        m_ar_pending <= 1'b0;
        m_resp_data <= 32'd0;
        m_resp <= 2'd0;
    end else begin
        case (m_state)
            M_IDLE: begin
                if (m_req) begin
                    m_state <= M_ADDR;
                    m_aw_pending <= s_write;
                    m_w_pending <= s_write;
                    m_ar_pending <= !s_write;
                end
            end
            M_ADDR: begin
                if (m_awready) m_aw_pending <= 1'b0;
                if (m_wready) m_w_pending <= 1'b0;
                if (m_arready) m_ar_pending <= 1'b0;
                if ((!m_aw_pending || m_awready) && (!m_w_pending || m_wready)
                    && (!m_ar_pending || m_arready)) begin
                    m_state <= M_RESP;
                end
            end
            M_RESP: begin
                if (s_write && m_bvalid) begin
                    m_state <= M_ACK;
                    m_ack_q <= 1'b1;
                    m_resp <= m_bresp;
                    m_resp_data <= 32'd0;
                end else if (!s_write && m_rvalid) begin
                    m_state <= M_ACK;
                    m_ack_q <= 1'b1;
                    m_resp <= m_rresp;
                    m_resp_data <= m_rdata;
                end
            end
            default: begin
                if (!m_req) begin
                    m_state <= M_IDLE;
                    m_ack_q <= 1'b0;
                end
            end
        endcase
    end
end

assign m_awaddr = s_addr;
assign m_awprot = s_prot;
assign m_awvalid = (m_state == M_ADDR) && m_aw_pending;
assign m_wdata = s_data;
assign m_wstrb = s_strb;
assign m_wvalid = (m_state == M_ADDR) && m_w_pending;
assign m_bready = (m_state == M_RESP) && s_write;
assign m_araddr = s_addr;
assign m_arprot = s_prot;
assign m_arvalid = (m_state == M_ADDR) && m_ar_pending;
assign m_rready = (m_state == M_RESP) && !s_write;

endmodule

`resetall
