// SPDX-License-Identifier: BSD-3-Clause
/*
 * formal_axil_slave: AXI4-Lite rules for a slave with one write and one read in flight, the
 * register blocks' interface (rtl/gen/*_regs.v, "AW and W are accepted independently, in
 * either order; one write and one read are handled at a time").
 *
 * Assumes the master keeps the rules of AXI4-Lite (ARM IHI 0022, A3.1 and A3.2): VALID
 * low in reset, and once VALID is high it stays high with its payload unchanged until READY.
 * BREADY and RREADY are free in every clock.
 *
 * Asserts, of the slave:
 *   - BVALID and RVALID low in the clock after a reset;
 *   - a response, once presented, stays presented and unchanged until its handshake;
 *   - never a write response without an address and data taken for it, never a read
 *     response without an address taken for it;
 *   - AWREADY (WREADY) is high exactly when the slave holds no write address (data) still
 *     unanswered, so it holds at most one of each; ARREADY is high exactly when no read is
 *     in flight (from its address to its response's handshake);
 *   - a write whose address and data are both held is answered in the next clock when the B
 *     channel is free or being freed; a read is answered in the clock after its address.
 * Each write is answered once and each read once: the counts of requests held never go
 * below zero (a response without a request) nor above one (a request never answered).
 *
 * For the wrapper's register model it reports each write in the clock its response is first
 * presented (the clock in which the block's registers show the write), with the address and
 * data the master gave, and each read in the clock its data is first presented.
 */

`default_nettype none

module formal_axil_slave #(
    // byte address bits of the block
    parameter ADDR_WIDTH = 12
) (
    input  wire                  clk,
    input  wire                  rst,

    // the bus, as the slave sees it
    input  wire [ADDR_WIDTH-1:0] s_axil_awaddr,
    input  wire [2:0]            s_axil_awprot,
    input  wire                  s_axil_awvalid,
    input  wire                  s_axil_awready,
    input  wire [31:0]           s_axil_wdata,
    input  wire [3:0]            s_axil_wstrb,
    input  wire                  s_axil_wvalid,
    input  wire                  s_axil_wready,
    input  wire [1:0]            s_axil_bresp,
    input  wire                  s_axil_bvalid,
    input  wire                  s_axil_bready,
    input  wire [ADDR_WIDTH-1:0] s_axil_araddr,
    input  wire [2:0]            s_axil_arprot,
    input  wire                  s_axil_arvalid,
    input  wire                  s_axil_arready,
    input  wire [31:0]           s_axil_rdata,
    input  wire [1:0]            s_axil_rresp,
    input  wire                  s_axil_rvalid,
    input  wire                  s_axil_rready,

    // true from the second clock on: $past is defined
    output wire                  past_valid,
    // a write's response is presented for the first time in this clock
    output wire                  write_done,
    output reg  [ADDR_WIDTH-1:0] write_addr = {ADDR_WIDTH{1'b0}},
    output reg  [31:0]           write_data = 32'd0,
    output reg  [3:0]            write_strb = 4'd0,
    // a read's response is presented for the first time in this clock
    output wire                  read_done,
    output reg  [ADDR_WIDTH-1:0] read_addr = {ADDR_WIDTH{1'b0}}
);

// The reset the proof starts from (formal_reset.sv)
formal_reset initial_reset (.clk(clk), .rst(rst), .past_valid(past_valid));

// requests taken and not yet answered (two bits, so that a second one shows)
reg [1:0] aw_held = 2'd0;
reg [1:0] w_held = 2'd0;
reg [1:0] ar_held = 2'd0;
reg       prev_bvalid = 1'b0;
reg       prev_bready = 1'b0;
reg       prev_rvalid = 1'b0;
reg       prev_rready = 1'b0;
reg       prev_rst = 1'b1;

// the requests still unanswered once this clock's responses are counted
wire [1:0] aw_open = aw_held - {1'b0, write_done};
wire [1:0] w_open = w_held - {1'b0, write_done};

wire aw_take = s_axil_awvalid && s_axil_awready;
wire w_take = s_axil_wvalid && s_axil_wready;
wire ar_take = s_axil_arvalid && s_axil_arready;
wire r_take = s_axil_rvalid && s_axil_rready;

assign write_done = past_valid && !prev_rst && s_axil_bvalid && (!prev_bvalid || prev_bready);
assign read_done = past_valid && !prev_rst && s_axil_rvalid && (!prev_rvalid || prev_rready);

always @(posedge clk) begin
    prev_rst <= rst;
    prev_bvalid <= s_axil_bvalid;
    prev_bready <= s_axil_bready;
    prev_rvalid <= s_axil_rvalid;
    prev_rready <= s_axil_rready;
    aw_held <= aw_held + {1'b0, aw_take} - {1'b0, write_done};
    w_held <= w_held + {1'b0, w_take} - {1'b0, write_done};
    ar_held <= ar_held + {1'b0, ar_take} - {1'b0, r_take};
    if (aw_take && aw_open == 2'd0) write_addr <= s_axil_awaddr;
    if (w_take && w_open == 2'd0) begin
        write_data <= s_axil_wdata;
        write_strb <= s_axil_wstrb;
    end
    if (ar_take) read_addr <= s_axil_araddr;
    if (rst) begin
        aw_held <= 2'd0;
        w_held <= 2'd0;
        ar_held <= 2'd0;
    end
end

// ---------------------------------------------------------------------------------------------
// The master keeps the rules

always @(*) begin
    if (rst) assume (!s_axil_awvalid && !s_axil_wvalid && !s_axil_arvalid);
end

always @(posedge clk) begin
    if (past_valid && !$past(rst)) begin
        if ($past(s_axil_awvalid && !s_axil_awready))
            assume (s_axil_awvalid && s_axil_awaddr == $past(s_axil_awaddr)
                    && s_axil_awprot == $past(s_axil_awprot));
        if ($past(s_axil_wvalid && !s_axil_wready))
            assume (s_axil_wvalid && s_axil_wdata == $past(s_axil_wdata)
                    && s_axil_wstrb == $past(s_axil_wstrb));
        if ($past(s_axil_arvalid && !s_axil_arready))
            assume (s_axil_arvalid && s_axil_araddr == $past(s_axil_araddr)
                    && s_axil_arprot == $past(s_axil_arprot));
    end
end

// ---------------------------------------------------------------------------------------------
// The slave keeps them

always @(*) begin
    if (past_valid && prev_rst)
        axil_quiet_after_reset: assert (!s_axil_bvalid && !s_axil_rvalid);
    if (write_done)
        axil_no_write_response_without_request: assert (aw_held != 2'd0 && w_held != 2'd0);
    if (read_done)
        axil_no_read_response_without_request: assert (ar_held != 2'd0);
    axil_one_write_address_held: assert (aw_held <= 2'd1 && s_axil_awready == (aw_open == 2'd0));
    axil_one_write_data_held: assert (w_held <= 2'd1 && s_axil_wready == (w_open == 2'd0));
    axil_one_read_held: assert (ar_held <= 2'd1 && s_axil_arready == (ar_held == 2'd0));
end

always @(posedge clk) begin
    if (past_valid && !$past(rst) && !rst) begin
        if ($past(s_axil_bvalid && !s_axil_bready))
            axil_write_response_held: assert (s_axil_bvalid && s_axil_bresp == $past(s_axil_bresp));
        if ($past(s_axil_rvalid && !s_axil_rready))
            axil_read_response_held: assert (s_axil_rvalid && s_axil_rdata == $past(s_axil_rdata)
                                             && s_axil_rresp == $past(s_axil_rresp));
        if ($past(aw_open != 2'd0 && w_open != 2'd0 && (!s_axil_bvalid || s_axil_bready)))
            axil_write_answered_next_clock: assert (write_done);
        if ($past(ar_take))
            axil_read_answered_next_clock: assert (read_done);
    end
end

always @(posedge clk) begin
    if (!rst) begin
        axil_cover_write_after_write: cover (write_done && prev_bvalid && prev_bready);
        axil_cover_read_while_writing: cover (read_done && s_axil_bvalid);
    end
end


endmodule

`default_nettype wire
