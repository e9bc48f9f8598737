/*
 * board_axil_split: one AXI4-Lite master onto two slaves by address, in one clock domain (the
 * board top's clk, after board_axil_cdc): addresses in the window M1_BASE .. M1_BASE +
 * 2^M1_BITS - 1 go to slave m1 (the MAC counters, board_mac_counters, 0x7000-0x7fff), with
 * their low M1_BITS bits; every other address goes to slave m0 (pktstats_core), whole, so
 * that the core answers for them exactly as it does without the split (its interconnect's
 * DECERR for the addresses no block of it decodes, 0x7000-0x7fff excepted).
 *
 * Writes and reads are routed independently, one transaction of each at a time:
 *   write: idle -> on s_awvalid, the window is decided from s_awaddr (held by the master until
 *          s_awready) and kept; AW and W then pass to that slave only (each until its
 *          handshake, in either order; W waits for the decision), and its B comes back; the
 *          next write is taken after the B handshake.
 *   read:  the same with AR and R.
 * The other slave sees no valid and its ready is ignored; the chosen slave's responses pass
 * unchanged (OKAY, SLVERR, DECERR, data): every request gets exactly one response, from the
 * slave it was routed to. The decision takes one clock (the valid is passed from the next
 * one), nothing else is registered: ready and response paths are combinational muxes.
 *
 * Reset (rst, synchronous, active high) returns both paths to idle; as with any AXI reset,
 * the master and the slaves are reset with it (the same rst in the board top).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_axil_split #(
    parameter ADDR_WIDTH = 16,                  // address bits of the master and of slave m0
    parameter M1_BITS = 12,                     // slave m1's window is 2^M1_BITS bytes
    parameter [ADDR_WIDTH-1:0] M1_BASE = 16'h7000 // its base, a multiple of 2^M1_BITS
) (
    input  wire                  clk,
    input  wire                  rst,               // synchronous, active high

    // from the master
    input  wire [ADDR_WIDTH-1:0] s_axil_awaddr,
    input  wire [2:0]            s_axil_awprot,
    input  wire                  s_axil_awvalid,
    output wire                  s_axil_awready,
    input  wire [31:0]           s_axil_wdata,
    input  wire [3:0]            s_axil_wstrb,
    input  wire                  s_axil_wvalid,
    output wire                  s_axil_wready,
    output wire [1:0]            s_axil_bresp,
    output wire                  s_axil_bvalid,
    input  wire                  s_axil_bready,
    input  wire [ADDR_WIDTH-1:0] s_axil_araddr,
    input  wire [2:0]            s_axil_arprot,
    input  wire                  s_axil_arvalid,
    output wire                  s_axil_arready,
    output wire [31:0]           s_axil_rdata,
    output wire [1:0]            s_axil_rresp,
    output wire                  s_axil_rvalid,
    input  wire                  s_axil_rready,

    // slave m0: every address outside m1's window (whole address)
    output wire [ADDR_WIDTH-1:0] m0_axil_awaddr,
    output wire [2:0]            m0_axil_awprot,
    output wire                  m0_axil_awvalid,
    input  wire                  m0_axil_awready,
    output wire [31:0]           m0_axil_wdata,
    output wire [3:0]            m0_axil_wstrb,
    output wire                  m0_axil_wvalid,
    input  wire                  m0_axil_wready,
    input  wire [1:0]            m0_axil_bresp,
    input  wire                  m0_axil_bvalid,
    output wire                  m0_axil_bready,
    output wire [ADDR_WIDTH-1:0] m0_axil_araddr,
    output wire [2:0]            m0_axil_arprot,
    output wire                  m0_axil_arvalid,
    input  wire                  m0_axil_arready,
    input  wire [31:0]           m0_axil_rdata,
    input  wire [1:0]            m0_axil_rresp,
    input  wire                  m0_axil_rvalid,
    output wire                  m0_axil_rready,

    // slave m1: the window, block-local address (low M1_BITS bits)
    output wire [M1_BITS-1:0]    m1_axil_awaddr,
    output wire [2:0]            m1_axil_awprot,
    output wire                  m1_axil_awvalid,
    input  wire                  m1_axil_awready,
    output wire [31:0]           m1_axil_wdata,
    output wire [3:0]            m1_axil_wstrb,
    output wire                  m1_axil_wvalid,
    input  wire                  m1_axil_wready,
    input  wire [1:0]            m1_axil_bresp,
    input  wire                  m1_axil_bvalid,
    output wire                  m1_axil_bready,
    output wire [M1_BITS-1:0]    m1_axil_araddr,
    output wire [2:0]            m1_axil_arprot,
    output wire                  m1_axil_arvalid,
    input  wire                  m1_axil_arready,
    input  wire [31:0]           m1_axil_rdata,
    input  wire [1:0]            m1_axil_rresp,
    input  wire                  m1_axil_rvalid,
    output wire                  m1_axil_rready
);

// In m1's window: the address bits above M1_BITS equal the base's
wire aw_in_window = s_axil_awaddr[ADDR_WIDTH-1:M1_BITS] == M1_BASE[ADDR_WIDTH-1:M1_BITS];
wire ar_in_window = s_axil_araddr[ADDR_WIDTH-1:M1_BITS] == M1_BASE[ADDR_WIDTH-1:M1_BITS];

// ---- writes
reg write_busy = 1'b0;   // a write is routed (from the decision to its B handshake)
reg write_m1 = 1'b0;     // ... to m1
reg aw_done = 1'b0;      // its AW handshake has happened
reg w_done = 1'b0;       // its W handshake has happened

wire aw_ready = write_m1 ? m1_axil_awready : m0_axil_awready;
wire w_ready = write_m1 ? m1_axil_wready : m0_axil_wready;
wire aw_pass = write_busy && !aw_done && s_axil_awvalid;
wire w_pass = write_busy && !w_done && s_axil_wvalid;

assign s_axil_awready = write_busy && !aw_done && aw_ready;
assign s_axil_wready = write_busy && !w_done && w_ready;
assign s_axil_bvalid = write_busy && (write_m1 ? m1_axil_bvalid : m0_axil_bvalid);
assign s_axil_bresp = write_m1 ? m1_axil_bresp : m0_axil_bresp;

assign m0_axil_awaddr = s_axil_awaddr;
assign m0_axil_awprot = s_axil_awprot;
assign m0_axil_awvalid = aw_pass && !write_m1;
assign m0_axil_wdata = s_axil_wdata;
assign m0_axil_wstrb = s_axil_wstrb;
assign m0_axil_wvalid = w_pass && !write_m1;
assign m0_axil_bready = write_busy && !write_m1 && s_axil_bready;
assign m1_axil_awaddr = s_axil_awaddr[M1_BITS-1:0];
assign m1_axil_awprot = s_axil_awprot;
assign m1_axil_awvalid = aw_pass && write_m1;
assign m1_axil_wdata = s_axil_wdata;
assign m1_axil_wstrb = s_axil_wstrb;
assign m1_axil_wvalid = w_pass && write_m1;
assign m1_axil_bready = write_busy && write_m1 && s_axil_bready;

always @(posedge clk) begin
    if (!write_busy) begin
        if (s_axil_awvalid) begin
            write_busy <= 1'b1;
            write_m1 <= aw_in_window;
            aw_done <= 1'b0;
            w_done <= 1'b0;
        end
    end else begin
        if (s_axil_awvalid && s_axil_awready)
            aw_done <= 1'b1;
        if (s_axil_wvalid && s_axil_wready)
            w_done <= 1'b1;
        if (s_axil_bvalid && s_axil_bready)
            write_busy <= 1'b0;
    end
    if (rst) begin
        write_busy <= 1'b0;
        write_m1 <= 1'b0;
        aw_done <= 1'b0;
        w_done <= 1'b0;
    end
end

// ---- reads
reg read_busy = 1'b0;    // a read is routed (from the decision to its R handshake)
reg read_m1 = 1'b0;      // ... to m1
reg ar_done = 1'b0;      // its AR handshake has happened

wire ar_ready = read_m1 ? m1_axil_arready : m0_axil_arready;
wire ar_pass = read_busy && !ar_done && s_axil_arvalid;

assign s_axil_arready = read_busy && !ar_done && ar_ready;
assign s_axil_rvalid = read_busy && (read_m1 ? m1_axil_rvalid : m0_axil_rvalid);
assign s_axil_rdata = read_m1 ? m1_axil_rdata : m0_axil_rdata;
assign s_axil_rresp = read_m1 ? m1_axil_rresp : m0_axil_rresp;

assign m0_axil_araddr = s_axil_araddr;
assign m0_axil_arprot = s_axil_arprot;
assign m0_axil_arvalid = ar_pass && !read_m1;
assign m0_axil_rready = read_busy && !read_m1 && s_axil_rready;
assign m1_axil_araddr = s_axil_araddr[M1_BITS-1:0];
assign m1_axil_arprot = s_axil_arprot;
assign m1_axil_arvalid = ar_pass && read_m1;
assign m1_axil_rready = read_busy && read_m1 && s_axil_rready;

always @(posedge clk) begin
    if (!read_busy) begin
        if (s_axil_arvalid) begin
            read_busy <= 1'b1;
            read_m1 <= ar_in_window;
            ar_done <= 1'b0;
        end
    end else begin
        if (s_axil_arvalid && s_axil_arready)
            ar_done <= 1'b1;
        if (s_axil_rvalid && s_axil_rready)
            read_busy <= 1'b0;
    end
    if (rst) begin
        read_busy <= 1'b0;
        read_m1 <= 1'b0;
        ar_done <= 1'b0;
    end
end

endmodule

`resetall
