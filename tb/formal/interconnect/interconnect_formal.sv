// SPDX-License-Identifier: BSD-3-Clause
/*
 * interconnect_formal: the AXI4-Lite interconnect (rtl/common/common_axil_interconnect.v,
 * SLAVE_COUNT = 7 blocks behind a 16-bit address, as rtl/core/pktstats_core.v has it, so blocks
 * 7 .. 15 are unmapped and the boundary 0x6fff / 0x7000 is not a power of two) keeps AXI4-Lite on both sides, routes every
 * request to the block its address decodes to and returns that block's response, by
 * k-induction.
 *
 * Assumed:
 *   - reset in the first clock; a reset may come again in any clock (it resets the blocks too:
 *     they share rst in rtl/core/pktstats_core.v);
 *   - the host keeps AXI4-Lite: VALID low in reset, held with its payload until READY. BREADY
 *     and RREADY, the addresses, data and strobes are free;
 *   - each block keeps AXI4-Lite as a slave and answers within MAX_WAIT = 2 clocks: it takes
 *     an offered AW, W, AR by the 2nd clock of its VALID and presents its response by the 2nd
 *     clock after its request is complete (tb/formal/common/formal_axil_master.sv, one per
 *     block). Otherwise the blocks' READYs, responses and read data are free.
 *
 * Asserted, of the host port (the interconnect as a slave; formal_axil_slave.sv does not fit:
 * the interconnect answers later than the next clock and keeps AWREADY low while its response
 * waits):
 *   - BVALID and RVALID low after a reset; a response held, unchanged, until its handshake;
 *   - one write and one read in flight at a time (taken and not yet answered), never a response
 *     without a complete request, so each request gets exactly one response;
 *   - a write (read) whose request is complete is answered within 2 * MAX_WAIT + 1 clocks
 *     (mapped: 1 clock to hold it, up to MAX_WAIT for the block to take it, 1 to see that, up
 *     to MAX_WAIT for the block to answer, 1 to hold the answer), an unmapped one in the 2nd
 *     clock;
 *   - a mapped request's response is the block's, bresp, rdata and rresp as the block gave
 *     them, and comes only after the block answered; an unmapped request's is DECERR (reads 0).
 * Asserted, of the block ports:
 *   - AXI4-Lite as a master, one request of each kind in flight (formal_axil_master.sv);
 *   - AWVALID (WVALID, ARVALID) only to the block the held request's address decodes to
 *     (address bits 15:12), never for an address beyond the last block, with the request's
 *     low 12 address bits, prot, data and strobes, and only once per request (a block takes
 *     each request exactly once: the count of handshakes is 1 when the response goes back).
 * Invariants (asserted too; they make the induction close): the interconnect's registers
 * against the wrapper's record of the transaction, and each block's count of requests in
 * flight against the interconnect's state.
 * Covers: a write and a read answered by the first and by the last block, DECERR for the first
 * unmapped block (0x7000), both answer-time bounds reached (so they are tight), a block's
 * SLVERR passed on, a write and a read answered in the same clock, a reset in the middle of a
 * transaction.
 *
 * How: k-induction (tb/formal/interconnect/proof.toml). The reference is a record kept from
 * the ports alone: the host's request as it was taken, the handshakes on the block ports since
 * then and the block's answer. The invariants close the induction at k = 4 (the answer-time
 * bound, 2 * MAX_WAIT clocks of waiting, needs k > 3); the depth is 8 because the slowest
 * answer covered ends in step 6. Checked by hand beside it (not in the runner): the same
 * properties with SLAVE_COUNT = 3, with SLAVE_COUNT = 2 and ADDR_WIDTH = 13 (every block
 * mapped), and with MAX_WAIT = 0 (blocks that may stall for ever: every safety property,
 * without the answer-time bound of mapped requests).
 *
 * The block checkers are instantiated one by one for SLAVE_COUNT = 7 (see FORMAL_BLOCK_PORT):
 * another SLAVE_COUNT needs that list changed.
 */

`default_nettype none

module interconnect_formal #(
    parameter SLAVE_COUNT = 7,
    parameter ADDR_WIDTH = 16,
    // the blocks' answer time (formal_axil_master.sv); 0: unbounded, safety alone (the mapped
    // answer-time bounds are then not asserted)
    parameter MAX_WAIT = 2
) (
    input  wire                      clk,
    input  wire                      rst,

    // the host
    input  wire [ADDR_WIDTH-1:0]     s_axil_awaddr,
    input  wire [2:0]                s_axil_awprot,
    input  wire                      s_axil_awvalid,
    input  wire [31:0]               s_axil_wdata,
    input  wire [3:0]                s_axil_wstrb,
    input  wire                      s_axil_wvalid,
    input  wire                      s_axil_bready,
    input  wire [ADDR_WIDTH-1:0]     s_axil_araddr,
    input  wire [2:0]                s_axil_arprot,
    input  wire                      s_axil_arvalid,
    input  wire                      s_axil_rready,

    // the blocks
    input  wire [SLAVE_COUNT-1:0]    m_axil_awready,
    input  wire [SLAVE_COUNT-1:0]    m_axil_wready,
    input  wire [SLAVE_COUNT*2-1:0]  m_axil_bresp,
    input  wire [SLAVE_COUNT-1:0]    m_axil_bvalid,
    input  wire [SLAVE_COUNT-1:0]    m_axil_arready,
    input  wire [SLAVE_COUNT*32-1:0] m_axil_rdata,
    input  wire [SLAVE_COUNT*2-1:0]  m_axil_rresp,
    input  wire [SLAVE_COUNT-1:0]    m_axil_rvalid
);

localparam [1:0] DECERR = 2'b11;
// the answer-time bound of a mapped request, in clocks without a response after it is complete
localparam [3:0] MAPPED_WAIT = 2 * MAX_WAIT;

wire                      s_axil_awready;
wire                      s_axil_wready;
wire [1:0]                s_axil_bresp;
wire                      s_axil_bvalid;
wire                      s_axil_arready;
wire [31:0]               s_axil_rdata;
wire [1:0]                s_axil_rresp;
wire                      s_axil_rvalid;
wire [SLAVE_COUNT*12-1:0] m_axil_awaddr;
wire [SLAVE_COUNT*3-1:0]  m_axil_awprot;
wire [SLAVE_COUNT-1:0]    m_axil_awvalid;
wire [SLAVE_COUNT*32-1:0] m_axil_wdata;
wire [SLAVE_COUNT*4-1:0]  m_axil_wstrb;
wire [SLAVE_COUNT-1:0]    m_axil_wvalid;
wire [SLAVE_COUNT-1:0]    m_axil_bready;
wire [SLAVE_COUNT*12-1:0] m_axil_araddr;
wire [SLAVE_COUNT*3-1:0]  m_axil_arprot;
wire [SLAVE_COUNT-1:0]    m_axil_arvalid;
wire [SLAVE_COUNT-1:0]    m_axil_rready;

common_axil_interconnect #(
    .SLAVE_COUNT(SLAVE_COUNT),
    .ADDR_WIDTH(ADDR_WIDTH)
) dut (
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
    .m_axil_awaddr(m_axil_awaddr),
    .m_axil_awprot(m_axil_awprot),
    .m_axil_awvalid(m_axil_awvalid),
    .m_axil_awready(m_axil_awready),
    .m_axil_wdata(m_axil_wdata),
    .m_axil_wstrb(m_axil_wstrb),
    .m_axil_wvalid(m_axil_wvalid),
    .m_axil_wready(m_axil_wready),
    .m_axil_bresp(m_axil_bresp),
    .m_axil_bvalid(m_axil_bvalid),
    .m_axil_bready(m_axil_bready),
    .m_axil_araddr(m_axil_araddr),
    .m_axil_arprot(m_axil_arprot),
    .m_axil_arvalid(m_axil_arvalid),
    .m_axil_arready(m_axil_arready),
    .m_axil_rdata(m_axil_rdata),
    .m_axil_rresp(m_axil_rresp),
    .m_axil_rvalid(m_axil_rvalid),
    .m_axil_rready(m_axil_rready)
);

// The interconnect's registers (proof.toml links), for the invariants only
wire                  dut_aw_held;
wire                  dut_w_held;
wire                  dut_aw_sent;
wire                  dut_w_sent;
wire                  dut_ar_held;
wire                  dut_ar_sent;
wire [ADDR_WIDTH-1:0] dut_awaddr;
wire [2:0]            dut_awprot;
wire [31:0]           dut_wdata;
wire [3:0]            dut_wstrb;
wire [ADDR_WIDTH-1:0] dut_araddr;
wire [2:0]            dut_arprot;

// ---------------------------------------------------------------------------------------------
// The record of the transactions, kept from the ports only (the reference)

// The reset the proof starts from (common/formal_reset.sv)
wire       past_valid;
formal_reset initial_reset (.clk(clk), .rst(rst), .past_valid(past_valid));

reg        prev_rst = 1'b1;
reg        prev_bvalid = 1'b0;
reg        prev_bready = 1'b0;
reg        prev_rvalid = 1'b0;
reg        prev_rready = 1'b0;
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
reg [1:0]            prev_bresp = 2'd0;
reg [31:0]           prev_rdata = 32'd0;
reg [1:0]            prev_rresp = 2'd0;

// host requests taken and not yet answered by a response handshake (two bits: a second shows)
reg [1:0]            f_aw_open = 2'd0;
reg [1:0]            f_w_open = 2'd0;
reg [1:0]            f_ar_open = 2'd0;
// their payload, as the host gave it
reg [ADDR_WIDTH-1:0] f_awaddr = {ADDR_WIDTH{1'b0}};
reg [2:0]            f_awprot = 3'd0;
reg [31:0]           f_wdata = 32'd0;
reg [3:0]            f_wstrb = 4'd0;
reg [ADDR_WIDTH-1:0] f_araddr = {ADDR_WIDTH{1'b0}};
reg [2:0]            f_arprot = 3'd0;
// handshakes on the block ports (any block) for the request in flight, and the block's answer
reg [1:0]            f_dn_aw = 2'd0;
reg [1:0]            f_dn_w = 2'd0;
reg [1:0]            f_dn_b = 2'd0;
reg [1:0]            f_dn_bresp = 2'd0;
reg [1:0]            f_dn_ar = 2'd0;
reg [1:0]            f_dn_r = 2'd0;
reg [31:0]           f_dn_rdata = 32'd0;
reg [1:0]            f_dn_rresp = 2'd0;
// clocks, before this one, that a complete request has waited for its response
reg [3:0]            f_b_wait = 4'd0;
reg [3:0]            f_r_wait = 4'd0;

// the decoding of docs/regmap.md: 4 KiB per block, block = address bits above 11
wire [ADDR_WIDTH-13:0] f_wblock = f_awaddr[ADDR_WIDTH-1:12];
wire [ADDR_WIDTH-13:0] f_rblock = f_araddr[ADDR_WIDTH-1:12];
wire                   f_wmapped = f_wblock < SLAVE_COUNT;
wire                   f_rmapped = f_rblock < SLAVE_COUNT;

wire up_aw_take = s_axil_awvalid && s_axil_awready;
wire up_w_take = s_axil_wvalid && s_axil_wready;
wire up_b_take = s_axil_bvalid && s_axil_bready;
wire up_ar_take = s_axil_arvalid && s_axil_arready;
wire up_r_take = s_axil_rvalid && s_axil_rready;
wire dn_aw_take = |(m_axil_awvalid & m_axil_awready);
wire dn_w_take = |(m_axil_wvalid & m_axil_wready);
wire dn_b_take = |(m_axil_bvalid & m_axil_bready);
wire dn_ar_take = |(m_axil_arvalid & m_axil_arready);
wire dn_r_take = |(m_axil_rvalid & m_axil_rready);

// a complete request waits for its response
wire f_write_due = f_aw_open != 2'd0 && f_w_open != 2'd0 && !s_axil_bvalid;
wire f_read_due = f_ar_open != 2'd0 && !s_axil_rvalid;

// a response presented for the first time in this clock
wire b_new = past_valid && !prev_rst && s_axil_bvalid && !(prev_bvalid && !prev_bready);
wire r_new = past_valid && !prev_rst && s_axil_rvalid && !(prev_rvalid && !prev_rready);

// the answer of the block that completed a handshake in this clock (the others have none:
// a block answers only a request it took)
reg [1:0]  dn_bresp;
reg [31:0] dn_rdata;
reg [1:0]  dn_rresp;
integer j;
always @(*) begin
    dn_bresp = 2'd0;
    dn_rdata = 32'd0;
    dn_rresp = 2'd0;
    for (j = 0; j < SLAVE_COUNT; j = j + 1) begin
        if (m_axil_bvalid[j] && m_axil_bready[j]) dn_bresp = m_axil_bresp[2*j +: 2];
        if (m_axil_rvalid[j] && m_axil_rready[j]) begin
            dn_rdata = m_axil_rdata[32*j +: 32];
            dn_rresp = m_axil_rresp[2*j +: 2];
        end
    end
end

always @(posedge clk) begin
    prev_rst <= rst;
    prev_bvalid <= s_axil_bvalid;
    prev_bready <= s_axil_bready;
    prev_rvalid <= s_axil_rvalid;
    prev_rready <= s_axil_rready;
    prev_aw_stall <= s_axil_awvalid && !s_axil_awready;
    prev_awaddr <= s_axil_awaddr;
    prev_awprot <= s_axil_awprot;
    prev_w_stall <= s_axil_wvalid && !s_axil_wready;
    prev_wdata <= s_axil_wdata;
    prev_wstrb <= s_axil_wstrb;
    prev_ar_stall <= s_axil_arvalid && !s_axil_arready;
    prev_araddr <= s_axil_araddr;
    prev_arprot <= s_axil_arprot;
    prev_bresp <= s_axil_bresp;
    prev_rdata <= s_axil_rdata;
    prev_rresp <= s_axil_rresp;

    if (up_aw_take) begin
        f_awaddr <= s_axil_awaddr;
        f_awprot <= s_axil_awprot;
    end
    if (up_w_take) begin
        f_wdata <= s_axil_wdata;
        f_wstrb <= s_axil_wstrb;
    end
    if (up_ar_take) begin
        f_araddr <= s_axil_araddr;
        f_arprot <= s_axil_arprot;
    end
    if (dn_b_take) f_dn_bresp <= dn_bresp;
    if (dn_r_take) begin
        f_dn_rdata <= dn_rdata;
        f_dn_rresp <= dn_rresp;
    end
    // the host's response handshake ends the transaction: its record starts again
    f_aw_open <= f_aw_open + {1'b0, up_aw_take} - {1'b0, up_b_take};
    f_w_open <= f_w_open + {1'b0, up_w_take} - {1'b0, up_b_take};
    f_ar_open <= f_ar_open + {1'b0, up_ar_take} - {1'b0, up_r_take};
    f_dn_aw <= up_b_take ? 2'd0 : f_dn_aw + {1'b0, dn_aw_take};
    f_dn_w <= up_b_take ? 2'd0 : f_dn_w + {1'b0, dn_w_take};
    f_dn_b <= up_b_take ? 2'd0 : f_dn_b + {1'b0, dn_b_take};
    f_dn_ar <= up_r_take ? 2'd0 : f_dn_ar + {1'b0, dn_ar_take};
    f_dn_r <= up_r_take ? 2'd0 : f_dn_r + {1'b0, dn_r_take};
    f_b_wait <= f_write_due && f_b_wait != 4'd15 ? f_b_wait + 4'd1 : 4'd0;
    f_r_wait <= f_read_due && f_r_wait != 4'd15 ? f_r_wait + 4'd1 : 4'd0;
    if (rst) begin
        f_aw_open <= 2'd0;
        f_w_open <= 2'd0;
        f_ar_open <= 2'd0;
        f_dn_aw <= 2'd0;
        f_dn_w <= 2'd0;
        f_dn_b <= 2'd0;
        f_dn_ar <= 2'd0;
        f_dn_r <= 2'd0;
        f_b_wait <= 4'd0;
        f_r_wait <= 4'd0;
    end
end

// ---------------------------------------------------------------------------------------------
// The host keeps the rules

always @(*) begin
    if (rst) assume (!s_axil_awvalid && !s_axil_wvalid && !s_axil_arvalid);
end

always @(*) begin
    // a reset may end a request: VALID falls in reset (A3.1.2)
    if (past_valid && !prev_rst && !rst) begin
        if (prev_aw_stall)
            assume (s_axil_awvalid && s_axil_awaddr == prev_awaddr
                    && s_axil_awprot == prev_awprot);
        if (prev_w_stall)
            assume (s_axil_wvalid && s_axil_wdata == prev_wdata && s_axil_wstrb == prev_wstrb);
        if (prev_ar_stall)
            assume (s_axil_arvalid && s_axil_araddr == prev_araddr
                    && s_axil_arprot == prev_arprot);
    end
end

// ---------------------------------------------------------------------------------------------
// The blocks: each keeps the rules, answers within MAX_WAIT clocks, and the interconnect keeps
// them as a master, one request of each kind in flight

wire [4*SLAVE_COUNT-1:0] blk_aw_open;
wire [4*SLAVE_COUNT-1:0] blk_w_open;
wire [4*SLAVE_COUNT-1:0] blk_ar_open;

// per block: the conditions below hold (Yosys 0.23 cannot name one assertion per generate
// iteration, so each is one assertion over all blocks)
wire [SLAVE_COUNT-1:0] route_aw_ok;
wire [SLAVE_COUNT-1:0] route_w_ok;
wire [SLAVE_COUNT-1:0] route_ar_ok;
wire [SLAVE_COUNT-1:0] inv_block_write_ok;
wire [SLAVE_COUNT-1:0] inv_block_read_ok;

// One checker per block, named block0, block1, ... rather than made in a generate loop: the
// replay testbench (tb/formal/formal.py --replay) sets the flattened registers by name and
// does not handle the escaped names (\blk[0].port.x) that a generate loop's instances get.
`define FORMAL_BLOCK_PORT(name, k) \
    formal_axil_master #( \
        .ADDR_WIDTH(12), \
        .MAX_WAIT(MAX_WAIT), \
        .MAX_IN_FLIGHT(1) \
    ) name ( \
        .clk(clk), \
        .rst(rst), \
        .m_axil_awaddr(m_axil_awaddr[12*k +: 12]), \
        .m_axil_awprot(m_axil_awprot[3*k +: 3]), \
        .m_axil_awvalid(m_axil_awvalid[k]), \
        .m_axil_awready(m_axil_awready[k]), \
        .m_axil_wdata(m_axil_wdata[32*k +: 32]), \
        .m_axil_wstrb(m_axil_wstrb[4*k +: 4]), \
        .m_axil_wvalid(m_axil_wvalid[k]), \
        .m_axil_wready(m_axil_wready[k]), \
        .m_axil_bresp(m_axil_bresp[2*k +: 2]), \
        .m_axil_bvalid(m_axil_bvalid[k]), \
        .m_axil_bready(m_axil_bready[k]), \
        .m_axil_araddr(m_axil_araddr[12*k +: 12]), \
        .m_axil_arprot(m_axil_arprot[3*k +: 3]), \
        .m_axil_arvalid(m_axil_arvalid[k]), \
        .m_axil_arready(m_axil_arready[k]), \
        .m_axil_rdata(m_axil_rdata[32*k +: 32]), \
        .m_axil_rresp(m_axil_rresp[2*k +: 2]), \
        .m_axil_rvalid(m_axil_rvalid[k]), \
        .m_axil_rready(m_axil_rready[k]), \
        .past_valid(), \
        .aw_open(blk_aw_open[4*k +: 4]), \
        .w_open(blk_w_open[4*k +: 4]), \
        .ar_open(blk_ar_open[4*k +: 4]), \
        .aw_wait(), \
        .w_wait(), \
        .ar_wait(), \
        .b_wait(), \
        .r_wait() \
    );

`FORMAL_BLOCK_PORT(block0, 0)
`FORMAL_BLOCK_PORT(block1, 1)
`FORMAL_BLOCK_PORT(block2, 2)
`FORMAL_BLOCK_PORT(block3, 3)
`FORMAL_BLOCK_PORT(block4, 4)
`FORMAL_BLOCK_PORT(block5, 5)
`FORMAL_BLOCK_PORT(block6, 6)
`undef FORMAL_BLOCK_PORT

generate
    if (SLAVE_COUNT != 7) begin : check
        // one FORMAL_BLOCK_PORT above for each block
        interconnect_formal_needs_a_checker_for_each_block bad_parameter();
    end
endgenerate

genvar k;
generate
    for (k = 0; k < SLAVE_COUNT; k = k + 1) begin : blk
        // Routing: a request only to the block its address decodes to, with its payload, once.
        // BREADY and RREADY are not routed: raised to a block with nothing to answer they take
        // nothing (a block answers only what it took), and the answer that goes back to the
        // host is checked against the handshake that happened (host_*_response)
        assign route_aw_ok[k] = !m_axil_awvalid[k]
            || (f_aw_open == 2'd1 && f_wmapped && f_wblock == k && f_dn_aw == 2'd0
                && m_axil_awaddr[12*k +: 12] == f_awaddr[11:0]
                && m_axil_awprot[3*k +: 3] == f_awprot);
        assign route_w_ok[k] = !m_axil_wvalid[k]
            || (f_aw_open == 2'd1 && f_w_open == 2'd1 && f_wmapped && f_wblock == k
                && f_dn_w == 2'd0
                && m_axil_wdata[32*k +: 32] == f_wdata && m_axil_wstrb[4*k +: 4] == f_wstrb);
        assign route_ar_ok[k] = !m_axil_arvalid[k]
            || (f_ar_open == 2'd1 && f_rmapped && f_rblock == k && f_dn_ar == 2'd0
                && m_axil_araddr[12*k +: 12] == f_araddr[11:0]
                && m_axil_arprot[3*k +: 3] == f_arprot);
        // Invariant: what the block holds is what the interconnect sent it and has not had
        // answered (its sent flags), and only the decoded block holds anything
        assign inv_block_write_ok[k] =
            blk_aw_open[4*k +: 4] == {3'd0, dut_aw_sent && f_wblock == k}
            && blk_w_open[4*k +: 4] == {3'd0, dut_w_sent && f_wblock == k};
        assign inv_block_read_ok[k] = blk_ar_open[4*k +: 4] == {3'd0, dut_ar_sent && f_rblock == k};
    end
endgenerate

// The block ports: each request to the block its address decodes to (none beyond the last
// block), with the host's payload, and once

always @(*) begin
    route_write_address: assert (&route_aw_ok);
    route_write_data: assert (&route_w_ok);
    route_read_address: assert (&route_ar_ok);
end

// ---------------------------------------------------------------------------------------------
// The host port: the interconnect keeps the rules of a slave

always @(*) begin
    if (past_valid && prev_rst)
        host_quiet_after_reset: assert (!s_axil_bvalid && !s_axil_rvalid);
    // one of each in flight: a second request taken would make a count 2
    host_one_write_in_flight: assert (f_aw_open <= 2'd1 && f_w_open <= 2'd1);
    host_one_read_in_flight: assert (f_ar_open <= 2'd1);
    // a response only for a complete request, counted out by its handshake: exactly one each
    if (s_axil_bvalid)
        host_no_write_response_without_request: assert (f_aw_open != 2'd0 && f_w_open != 2'd0);
    if (s_axil_rvalid)
        host_no_read_response_without_request: assert (f_ar_open != 2'd0);
    // bounded answer time: f_b_wait counts the clocks without a response so far (a mapped
    // request's bound needs the blocks' bound: none with MAX_WAIT = 0)
    if (f_write_due && (!f_wmapped || MAX_WAIT != 0))
        host_write_answered_in_time: assert (f_b_wait < (f_wmapped ? MAPPED_WAIT : 4'd1));
    if (f_read_due && (!f_rmapped || MAX_WAIT != 0))
        host_read_answered_in_time: assert (f_r_wait < (f_rmapped ? MAPPED_WAIT : 4'd1));
    // the response is the block's answer to this request, or DECERR beyond the last block
    if (b_new)
        host_write_response: assert (f_wmapped ? f_dn_aw == 2'd1 && f_dn_w == 2'd1
                                                 && f_dn_b == 2'd1 && s_axil_bresp == f_dn_bresp
                                               : f_dn_aw == 2'd0 && f_dn_w == 2'd0
                                                 && f_dn_b == 2'd0 && s_axil_bresp == DECERR);
    if (r_new)
        host_read_response: assert (f_rmapped ? f_dn_ar == 2'd1 && f_dn_r == 2'd1
                                                && s_axil_rdata == f_dn_rdata
                                                && s_axil_rresp == f_dn_rresp
                                              : f_dn_ar == 2'd0 && f_dn_r == 2'd0
                                                && s_axil_rdata == 32'd0
                                                && s_axil_rresp == DECERR);
end

always @(*) begin
    if (past_valid && !prev_rst && !rst) begin
        if (prev_bvalid && !prev_bready)
            host_write_response_held: assert (s_axil_bvalid && s_axil_bresp == prev_bresp);
        if (prev_rvalid && !prev_rready)
            host_read_response_held: assert (s_axil_rvalid && s_axil_rdata == prev_rdata
                                             && s_axil_rresp == prev_rresp);
    end
end

// ---------------------------------------------------------------------------------------------
// Invariants: the interconnect's registers against the record (they make the induction close;
// each is also true of every reachable state)

always @(*) begin
    // the request is held until its response is presented, with the host's payload
    inv_block_write: assert (&inv_block_write_ok);
    inv_block_read: assert (&inv_block_read_ok);
    inv_write_held: assert (dut_aw_held == (f_aw_open != 2'd0 && !s_axil_bvalid)
                            && dut_w_held == (f_w_open != 2'd0 && !s_axil_bvalid));
    inv_read_held: assert (dut_ar_held == (f_ar_open != 2'd0 && !s_axil_rvalid));
    if (f_aw_open != 2'd0)
        inv_write_address: assert (dut_awaddr == f_awaddr && dut_awprot == f_awprot);
    if (f_w_open != 2'd0)
        inv_write_data: assert (dut_wdata == f_wdata && dut_wstrb == f_wstrb);
    if (f_ar_open != 2'd0)
        inv_read_address: assert (dut_araddr == f_araddr && dut_arprot == f_arprot);
    // sent: taken by the block and not yet answered by it; the block answers at most once, and
    // its answer is presented to the host in the next clock
    inv_write_sent: assert (dut_aw_sent == (f_dn_aw != 2'd0 && f_dn_b == 2'd0)
                            && dut_w_sent == (f_dn_w != 2'd0 && f_dn_b == 2'd0)
                            && f_dn_b <= 2'd1 && (f_dn_b == 2'd0 || s_axil_bvalid));
    inv_read_sent: assert (dut_ar_sent == (f_dn_ar != 2'd0 && f_dn_r == 2'd0)
                           && f_dn_r <= 2'd1 && (f_dn_r == 2'd0 || s_axil_rvalid));
    // the block handshakes of a request: each at most once, in order (request before answer),
    // only for a mapped request the host made, and only while the interconnect holds it
    inv_write_handshakes: assert (f_dn_aw <= 2'd1 && f_dn_w <= 2'd1
                                  && (f_dn_aw == 2'd0 || (f_aw_open != 2'd0 && f_wmapped))
                                  && (f_dn_w == 2'd0 || (f_w_open != 2'd0 && f_wmapped))
                                  && (f_dn_b == 2'd0 || (f_dn_aw != 2'd0 && f_dn_w != 2'd0))
                                  && (!dut_aw_sent || (dut_aw_held && dut_w_held))
                                  && (!dut_w_sent || (dut_aw_held && dut_w_held)));
    inv_read_handshakes: assert (f_dn_ar <= 2'd1
                                 && (f_dn_ar == 2'd0 || (f_ar_open != 2'd0 && f_rmapped))
                                 && (f_dn_r == 2'd0 || f_dn_ar != 2'd0)
                                 && (!dut_ar_sent || dut_ar_held));
    // a response presented is the one of the request (held ones included)
    if (s_axil_bvalid)
        inv_write_response: assert (f_wmapped ? f_dn_b == 2'd1 && s_axil_bresp == f_dn_bresp
                                              : f_dn_b == 2'd0 && s_axil_bresp == DECERR);
    if (s_axil_rvalid)
        inv_read_response: assert (f_rmapped ? f_dn_r == 2'd1 && s_axil_rdata == f_dn_rdata
                                               && s_axil_rresp == f_dn_rresp
                                             : f_dn_r == 2'd0 && s_axil_rdata == 32'd0
                                               && s_axil_rresp == DECERR);
end

// ---------------------------------------------------------------------------------------------
// Covers: the assumptions leave each behaviour reachable (combinational, like the assertions,
// so that the step smtbmc reports is the clock of the event)

always @(*) begin
    if (!rst) begin
        cover_write_first_block: cover (b_new && f_wblock == 0);
        cover_write_last_block: cover (b_new && f_wblock == SLAVE_COUNT - 1);
        cover_read_first_block: cover (r_new && f_rblock == 0);
        cover_read_last_block: cover (r_new && f_rblock == SLAVE_COUNT - 1);
        cover_write_decerr: cover (b_new && f_wblock == SLAVE_COUNT);
        cover_read_decerr: cover (r_new && f_rblock == SLAVE_COUNT);
        // the answer-time bounds are reached: they are tight
        cover_write_slowest: cover (b_new && f_wmapped && f_b_wait == MAPPED_WAIT);
        cover_read_slowest: cover (r_new && f_rmapped && f_r_wait == MAPPED_WAIT);
        cover_write_and_read: cover (b_new && r_new && f_wmapped && f_rmapped);
        cover_write_error_passed: cover (b_new && f_wmapped && s_axil_bresp == 2'b10);
    end
    if (past_valid && rst)
        cover_reset_in_transaction: cover (f_dn_aw != 2'd0 && f_dn_b == 2'd0
                                           && f_dn_ar != 2'd0 && f_dn_r == 2'd0);
end

endmodule

`default_nettype wire
