/*
 * common_axil_interconnect: one AXI4-Lite master to SLAVE_COUNT register blocks of 4 KiB each.
 *
 * Block k answers addresses k * 0x1000 .. k * 0x1000 + 0xfff and sees the low 12 bits. An
 * address beyond the last block is answered here with DECERR (reads return 0), so no access
 * ever hangs. Writes and reads are independent; each direction carries one transaction at a
 * time, which is all a register bus needs and keeps the ordering obvious.
 *
 *   master address:  [ADDR_WIDTH-1 : 12] block   [11:0] register in the block
 *
 * Each transaction: take the address (and the write data) from the master, present them to the
 * selected block until it takes them, wait for its response, hold the response for the master.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module common_axil_interconnect #(
    // Number of 4 KiB register blocks
    parameter SLAVE_COUNT = 3,
    // Width of the master's address (13 to 44)
    parameter ADDR_WIDTH = 16
) (
    input  wire                      clk,
    input  wire                      rst,

    // From the host
    input  wire [ADDR_WIDTH-1:0]     s_axil_awaddr,
    input  wire [2:0]                s_axil_awprot,
    input  wire                      s_axil_awvalid,
    output wire                      s_axil_awready,
    input  wire [31:0]               s_axil_wdata,
    input  wire [3:0]                s_axil_wstrb,
    input  wire                      s_axil_wvalid,
    output wire                      s_axil_wready,
    output wire [1:0]                s_axil_bresp,
    output wire                      s_axil_bvalid,
    input  wire                      s_axil_bready,
    input  wire [ADDR_WIDTH-1:0]     s_axil_araddr,
    input  wire [2:0]                s_axil_arprot,
    input  wire                      s_axil_arvalid,
    output wire                      s_axil_arready,
    output wire [31:0]               s_axil_rdata,
    output wire [1:0]                s_axil_rresp,
    output wire                      s_axil_rvalid,
    input  wire                      s_axil_rready,

    // To the register blocks, block k in slice k
    output wire [SLAVE_COUNT*12-1:0] m_axil_awaddr,
    output wire [SLAVE_COUNT*3-1:0]  m_axil_awprot,
    output wire [SLAVE_COUNT-1:0]    m_axil_awvalid,
    input  wire [SLAVE_COUNT-1:0]    m_axil_awready,
    output wire [SLAVE_COUNT*32-1:0] m_axil_wdata,
    output wire [SLAVE_COUNT*4-1:0]  m_axil_wstrb,
    output wire [SLAVE_COUNT-1:0]    m_axil_wvalid,
    input  wire [SLAVE_COUNT-1:0]    m_axil_wready,
    input  wire [SLAVE_COUNT*2-1:0]  m_axil_bresp,
    input  wire [SLAVE_COUNT-1:0]    m_axil_bvalid,
    output wire [SLAVE_COUNT-1:0]    m_axil_bready,
    output wire [SLAVE_COUNT*12-1:0] m_axil_araddr,
    output wire [SLAVE_COUNT*3-1:0]  m_axil_arprot,
    output wire [SLAVE_COUNT-1:0]    m_axil_arvalid,
    input  wire [SLAVE_COUNT-1:0]    m_axil_arready,
    input  wire [SLAVE_COUNT*32-1:0] m_axil_rdata,
    input  wire [SLAVE_COUNT*2-1:0]  m_axil_rresp,
    input  wire [SLAVE_COUNT-1:0]    m_axil_rvalid,
    output wire [SLAVE_COUNT-1:0]    m_axil_rready
);

generate
    if (ADDR_WIDTH < 13 || ADDR_WIDTH > 44 || SLAVE_COUNT < 1 || SLAVE_COUNT > (1 << (ADDR_WIDTH - 12))) begin : check
        common_axil_interconnect_error_SLAVE_COUNT_does_not_fit_ADDR_WIDTH bad_parameter();
    end
endgenerate

localparam BLOCK_WIDTH = ADDR_WIDTH - 12;
localparam [1:0] RESP_DECERR = 2'b11;

// ---- writes ----

reg                   aw_held_reg = 1'b0;
reg                   w_held_reg = 1'b0;
reg [ADDR_WIDTH-1:0]  awaddr_reg = {ADDR_WIDTH{1'b0}};
reg [2:0]             awprot_reg = 3'd0;
reg [31:0]            wdata_reg = 32'd0;
reg [3:0]             wstrb_reg = 4'd0;
reg                   aw_sent_reg = 1'b0;
reg                   w_sent_reg = 1'b0;
reg                   bvalid_reg = 1'b0;
reg [1:0]             bresp_reg = 2'b00;

// Block numbers widened to 32 bits to compare with the integer block index
wire [31:0]            write_block = {{(32-BLOCK_WIDTH){1'b0}}, awaddr_reg[ADDR_WIDTH-1:12]};
wire                   write_mapped = write_block < SLAVE_COUNT;
wire                   write_busy = aw_held_reg && w_held_reg;

assign s_axil_awready = !aw_held_reg && !bvalid_reg;
assign s_axil_wready = !w_held_reg && !bvalid_reg;
assign s_axil_bvalid = bvalid_reg;
assign s_axil_bresp = bresp_reg;

// ---- reads ----

reg                   ar_held_reg = 1'b0;
reg [ADDR_WIDTH-1:0]  araddr_reg = {ADDR_WIDTH{1'b0}};
reg [2:0]             arprot_reg = 3'd0;
reg                   ar_sent_reg = 1'b0;
reg                   rvalid_reg = 1'b0;
reg [31:0]            rdata_reg = 32'd0;
reg [1:0]             rresp_reg = 2'b00;

wire [31:0]            read_block = {{(32-BLOCK_WIDTH){1'b0}}, araddr_reg[ADDR_WIDTH-1:12]};
wire                   read_mapped = read_block < SLAVE_COUNT;

assign s_axil_arready = !ar_held_reg && !rvalid_reg;
assign s_axil_rvalid = rvalid_reg;
assign s_axil_rdata = rdata_reg;
assign s_axil_rresp = rresp_reg;

// ---- per block ----

reg [SLAVE_COUNT-1:0] write_select;
reg [SLAVE_COUNT-1:0] read_select;
integer k;

always @* begin
    for (k = 0; k < SLAVE_COUNT; k = k + 1) begin
        write_select[k] = write_busy && write_mapped && write_block == k;
        read_select[k] = ar_held_reg && read_mapped && read_block == k;
    end
end

genvar i;
generate
    for (i = 0; i < SLAVE_COUNT; i = i + 1) begin : block
        assign m_axil_awaddr[12*i +: 12] = awaddr_reg[11:0];
        assign m_axil_awprot[3*i +: 3] = awprot_reg;
        assign m_axil_awvalid[i] = write_select[i] && !aw_sent_reg;
        assign m_axil_wdata[32*i +: 32] = wdata_reg;
        assign m_axil_wstrb[4*i +: 4] = wstrb_reg;
        assign m_axil_wvalid[i] = write_select[i] && !w_sent_reg;
        assign m_axil_bready[i] = write_select[i] && aw_sent_reg && w_sent_reg;
        assign m_axil_araddr[12*i +: 12] = araddr_reg[11:0];
        assign m_axil_arprot[3*i +: 3] = arprot_reg;
        assign m_axil_arvalid[i] = read_select[i] && !ar_sent_reg;
        assign m_axil_rready[i] = read_select[i] && ar_sent_reg;
    end
endgenerate

wire write_aw_done = |(m_axil_awvalid & m_axil_awready);
wire write_w_done = |(m_axil_wvalid & m_axil_wready);
wire write_b_done = |(m_axil_bready & m_axil_bvalid);
wire read_ar_done = |(m_axil_arvalid & m_axil_arready);
wire read_r_done = |(m_axil_rready & m_axil_rvalid);

// Response of the selected block (one-hot select)
reg [1:0]  block_bresp;
reg [31:0] block_rdata;
reg [1:0]  block_rresp;

always @* begin
    block_bresp = 2'b00;
    block_rdata = 32'd0;
    block_rresp = 2'b00;
    for (k = 0; k < SLAVE_COUNT; k = k + 1) begin
        if (write_select[k]) begin
            block_bresp = m_axil_bresp[2*k +: 2];
        end
        if (read_select[k]) begin
            block_rdata = m_axil_rdata[32*k +: 32];
            block_rresp = m_axil_rresp[2*k +: 2];
        end
    end
end

always @(posedge clk) begin
    // Write: collect address and data, pass them on, return the response
    if (s_axil_awvalid && s_axil_awready) begin
        aw_held_reg <= 1'b1;
        awaddr_reg <= s_axil_awaddr;
        awprot_reg <= s_axil_awprot;
    end
    if (s_axil_wvalid && s_axil_wready) begin
        w_held_reg <= 1'b1;
        wdata_reg <= s_axil_wdata;
        wstrb_reg <= s_axil_wstrb;
    end
    if (write_aw_done) begin
        aw_sent_reg <= 1'b1;
    end
    if (write_w_done) begin
        w_sent_reg <= 1'b1;
    end
    if (write_busy && !write_mapped && !bvalid_reg) begin
        bvalid_reg <= 1'b1;
        bresp_reg <= RESP_DECERR;
        aw_held_reg <= 1'b0;
        w_held_reg <= 1'b0;
    end else if (write_b_done) begin
        bvalid_reg <= 1'b1;
        bresp_reg <= block_bresp;
        aw_held_reg <= 1'b0;
        w_held_reg <= 1'b0;
        aw_sent_reg <= 1'b0;
        w_sent_reg <= 1'b0;
    end
    if (bvalid_reg && s_axil_bready) begin
        bvalid_reg <= 1'b0;
    end

    // Read: pass the address on, return the data
    if (s_axil_arvalid && s_axil_arready) begin
        ar_held_reg <= 1'b1;
        araddr_reg <= s_axil_araddr;
        arprot_reg <= s_axil_arprot;
    end
    if (read_ar_done) begin
        ar_sent_reg <= 1'b1;
    end
    if (ar_held_reg && !read_mapped && !rvalid_reg) begin
        rvalid_reg <= 1'b1;
        rdata_reg <= 32'd0;
        rresp_reg <= RESP_DECERR;
        ar_held_reg <= 1'b0;
    end else if (read_r_done) begin
        rvalid_reg <= 1'b1;
        rdata_reg <= block_rdata;
        rresp_reg <= block_rresp;
        ar_held_reg <= 1'b0;
        ar_sent_reg <= 1'b0;
    end
    if (rvalid_reg && s_axil_rready) begin
        rvalid_reg <= 1'b0;
    end

    if (rst) begin
        aw_held_reg <= 1'b0;
        w_held_reg <= 1'b0;
        aw_sent_reg <= 1'b0;
        w_sent_reg <= 1'b0;
        bvalid_reg <= 1'b0;
        ar_held_reg <= 1'b0;
        ar_sent_reg <= 1'b0;
        rvalid_reg <= 1'b0;
    end
end

endmodule

`resetall
