// SPDX-License-Identifier: BSD-3-Clause
/*
 * formal_axil_master: AXI4-Lite rules for a master, checked on one of its ports (for example
 * one downstream port of rtl/common/common_axil_interconnect.v); the other side of
 * formal_axil_slave.sv.
 *
 * Assumes the slave on the port keeps the rules of AXI4-Lite (ARM IHI 0022, A3.1 and A3.2):
 *   - BVALID and RVALID low in the clock after a reset (and in the first clock);
 *   - a write response only for a write whose address and data were both taken in an earlier
 *     clock and not yet answered, a read response only for a read address taken earlier and
 *     not yet answered (A3.3: the response follows the handshakes);
 *   - a response, once presented, stays presented and unchanged until its handshake (or a
 *     reset);
 *   - and, so that the master's own answer time can be bounded, the slave is not slower than
 *     MAX_WAIT clocks: it takes an offered AW, W or AR at the latest in the MAX_WAIT-th clock
 *     of its VALID, and presents a response at the latest in the MAX_WAIT-th clock in which
 *     a complete request of it is unanswered (MAX_WAIT = 1: READY with VALID, and the
 *     response in the clock after the request, as the generated register blocks may do;
 *     MAX_WAIT = 0: no bound, the slave may stall for ever, for proofs of safety alone).
 *     AWREADY, WREADY and ARREADY are otherwise free in every clock.
 *
 * Asserts, of the master:
 *   - AWVALID, WVALID and ARVALID low in the clock after a reset;
 *   - once VALID is high it stays high, with its payload unchanged, until READY (A3.2.1), or
 *     until a reset (VALID may fall in reset, A3.1.2);
 *   - no more than MAX_IN_FLIGHT write addresses, write data or read addresses in flight
 *     (taken and not yet answered by a response handshake): a VALID is never offered while
 *     MAX_IN_FLIGHT of its kind are in flight.
 * BREADY and RREADY are the master's choice in every clock (nothing is asserted of them: a
 * master that never takes its response shows up as its own request that never completes).
 *
 * Each rule over two clocks is checked in the clock it is about, from prev_* registers.
 *
 * Outputs the counts of requests in flight and the wait counters, so that a wrapper can tie
 * them to the master's state (the invariants its induction needs).
 */

`default_nettype none

module formal_axil_master #(
    // byte address bits of the port
    parameter ADDR_WIDTH = 12,
    // the slave's answer time, in clocks (see above), 1 to 14; 0: unbounded
    parameter MAX_WAIT = 2,
    // requests of each kind the master may have in flight; at most 7
    parameter MAX_IN_FLIGHT = 1
) (
    input  wire                  clk,
    input  wire                  rst,

    // the bus, as the master sees it
    input  wire [ADDR_WIDTH-1:0] m_axil_awaddr,
    input  wire [2:0]            m_axil_awprot,
    input  wire                  m_axil_awvalid,
    input  wire                  m_axil_awready,
    input  wire [31:0]           m_axil_wdata,
    input  wire [3:0]            m_axil_wstrb,
    input  wire                  m_axil_wvalid,
    input  wire                  m_axil_wready,
    input  wire [1:0]            m_axil_bresp,
    input  wire                  m_axil_bvalid,
    input  wire                  m_axil_bready,
    input  wire [ADDR_WIDTH-1:0] m_axil_araddr,
    input  wire [2:0]            m_axil_arprot,
    input  wire                  m_axil_arvalid,
    input  wire                  m_axil_arready,
    input  wire [31:0]           m_axil_rdata,
    input  wire [1:0]            m_axil_rresp,
    input  wire                  m_axil_rvalid,
    input  wire                  m_axil_rready,

    // true from the second clock on: the previous clock is defined
    output reg                   past_valid = 1'b0,
    // requests taken (handshaken) and not yet answered by a response handshake
    output reg  [3:0]            aw_open = 4'd0,
    output reg  [3:0]            w_open = 4'd0,
    output reg  [3:0]            ar_open = 4'd0,
    // clocks, before this one, that the VALID has waited for READY (0 when not waiting)
    output reg  [3:0]            aw_wait = 4'd0,
    output reg  [3:0]            w_wait = 4'd0,
    output reg  [3:0]            ar_wait = 4'd0,
    // clocks, before this one, that a complete request has waited for its response
    output reg  [3:0]            b_wait = 4'd0,
    output reg  [3:0]            r_wait = 4'd0
);

reg prev_rst = 1'b1;
// the previous clock, for the rules over two clocks (kept here rather than with $past in a
// clocked block: Yosys 0.23 registers the checks of clocked blocks, so they would fail, and
// constrain, one clock late; these are checked in the clock they are about)
reg                  prev_aw_stall = 1'b0;
reg [ADDR_WIDTH-1:0] prev_awaddr = {ADDR_WIDTH{1'b0}};
reg [2:0]            prev_awprot = 3'd0;
reg                  prev_w_stall = 1'b0;
reg [31:0]           prev_wdata = 32'd0;
reg [3:0]            prev_wstrb = 4'd0;
reg                  prev_ar_stall = 1'b0;
reg [ADDR_WIDTH-1:0] prev_araddr = {ADDR_WIDTH{1'b0}};
reg [2:0]            prev_arprot = 3'd0;
reg                  prev_b_stall = 1'b0;
reg [1:0]            prev_bresp = 2'd0;
reg                  prev_r_stall = 1'b0;
reg [31:0]           prev_rdata = 32'd0;
reg [1:0]            prev_rresp = 2'd0;

wire aw_take = m_axil_awvalid && m_axil_awready;
wire w_take = m_axil_wvalid && m_axil_wready;
wire ar_take = m_axil_arvalid && m_axil_arready;
wire b_take = m_axil_bvalid && m_axil_bready;
wire r_take = m_axil_rvalid && m_axil_rready;

// a write (read) is waiting for its response: its request is complete and unanswered
wire b_due = aw_open != 4'd0 && w_open != 4'd0 && !m_axil_bvalid;
wire r_due = ar_open != 4'd0 && !m_axil_rvalid;

// the counters stop at 15 so that they never wrap (the assumptions below end them sooner)
function [3:0] inc;
    input [3:0] value;
    inc = value == 4'd15 ? value : value + 4'd1;
endfunction

always @(posedge clk) begin
    past_valid <= 1'b1;
    prev_rst <= rst;
    prev_aw_stall <= m_axil_awvalid && !m_axil_awready;
    prev_awaddr <= m_axil_awaddr;
    prev_awprot <= m_axil_awprot;
    prev_w_stall <= m_axil_wvalid && !m_axil_wready;
    prev_wdata <= m_axil_wdata;
    prev_wstrb <= m_axil_wstrb;
    prev_ar_stall <= m_axil_arvalid && !m_axil_arready;
    prev_araddr <= m_axil_araddr;
    prev_arprot <= m_axil_arprot;
    prev_b_stall <= m_axil_bvalid && !m_axil_bready;
    prev_bresp <= m_axil_bresp;
    prev_r_stall <= m_axil_rvalid && !m_axil_rready;
    prev_rdata <= m_axil_rdata;
    prev_rresp <= m_axil_rresp;
    aw_open <= aw_open + {3'd0, aw_take} - {3'd0, b_take};
    w_open <= w_open + {3'd0, w_take} - {3'd0, b_take};
    ar_open <= ar_open + {3'd0, ar_take} - {3'd0, r_take};
    aw_wait <= m_axil_awvalid && !m_axil_awready ? inc(aw_wait) : 4'd0;
    w_wait <= m_axil_wvalid && !m_axil_wready ? inc(w_wait) : 4'd0;
    ar_wait <= m_axil_arvalid && !m_axil_arready ? inc(ar_wait) : 4'd0;
    b_wait <= b_due ? inc(b_wait) : 4'd0;
    r_wait <= r_due ? inc(r_wait) : 4'd0;
    if (rst) begin
        aw_open <= 4'd0;
        w_open <= 4'd0;
        ar_open <= 4'd0;
        aw_wait <= 4'd0;
        w_wait <= 4'd0;
        ar_wait <= 4'd0;
        b_wait <= 4'd0;
        r_wait <= 4'd0;
    end
end

// ---------------------------------------------------------------------------------------------
// The slave keeps the rules

always @(*) begin
    // prev_rst starts at 1: the first clock counts as one after a reset
    if (prev_rst) assume (!m_axil_bvalid && !m_axil_rvalid);
    // open counts handshakes of earlier clocks only: a response never comes with its request
    if (m_axil_bvalid) assume (aw_open != 4'd0 && w_open != 4'd0);
    if (m_axil_rvalid) assume (ar_open != 4'd0);
end

generate
    if (MAX_WAIT != 0) begin : answer_time
        // the slave's answer time (the wait counters count the clocks before this one)
        always @(*) begin
            if (m_axil_awvalid && aw_wait >= MAX_WAIT - 1) assume (m_axil_awready);
            if (m_axil_wvalid && w_wait >= MAX_WAIT - 1) assume (m_axil_wready);
            if (m_axil_arvalid && ar_wait >= MAX_WAIT - 1) assume (m_axil_arready);
            if (aw_open != 4'd0 && w_open != 4'd0 && b_wait >= MAX_WAIT - 1)
                assume (m_axil_bvalid);
            if (ar_open != 4'd0 && r_wait >= MAX_WAIT - 1) assume (m_axil_rvalid);
        end
    end
endgenerate

always @(*) begin
    // a response is held until taken (a clock of reset ends the obligation)
    if (past_valid && !prev_rst && !rst && prev_b_stall)
        assume (m_axil_bvalid && m_axil_bresp == prev_bresp);
    if (past_valid && !prev_rst && !rst && prev_r_stall)
        assume (m_axil_rvalid && m_axil_rdata == prev_rdata && m_axil_rresp == prev_rresp);
end

// ---------------------------------------------------------------------------------------------
// The master keeps them

always @(*) begin
    if (past_valid && prev_rst)
        axilm_quiet_after_reset: assert (!m_axil_awvalid && !m_axil_wvalid && !m_axil_arvalid);
    if (m_axil_awvalid)
        axilm_write_addresses_in_flight: assert (aw_open < MAX_IN_FLIGHT);
    if (m_axil_wvalid)
        axilm_write_data_in_flight: assert (w_open < MAX_IN_FLIGHT);
    if (m_axil_arvalid)
        axilm_reads_in_flight: assert (ar_open < MAX_IN_FLIGHT);
end

always @(*) begin
    // VALID may fall in reset (A3.1.2), so a clock of reset ends the obligation
    if (past_valid && !prev_rst && !rst) begin
        if (prev_aw_stall)
            axilm_write_address_held: assert (m_axil_awvalid && m_axil_awaddr == prev_awaddr
                                              && m_axil_awprot == prev_awprot);
        if (prev_w_stall)
            axilm_write_data_held: assert (m_axil_wvalid && m_axil_wdata == prev_wdata
                                           && m_axil_wstrb == prev_wstrb);
        if (prev_ar_stall)
            axilm_read_address_held: assert (m_axil_arvalid && m_axil_araddr == prev_araddr
                                             && m_axil_arprot == prev_arprot);
    end
end

endmodule

`default_nettype wire
