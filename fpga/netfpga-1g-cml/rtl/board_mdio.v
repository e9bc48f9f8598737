/*
 * board_mdio: a write-only MDIO (IEEE 802.3 clause 22) master that, once start is high, writes
 * a fixed table of PHY registers, one frame after the other, then stays idle with done high.
 *
 * The table is the parameter WRITES: up to 16 entries of 32 bits, entry k in bits
 * 32k+31:32k as {6'b0, phy_address[4:0], register[4:0], data[15:0]}; NUM_WRITES (0..16) is
 * how many are written, from entry 0. With NUM_WRITES = 0 nothing is sent and done rises at
 * once: the PHYs keep their power-up (strap) configuration. The board top passes its table;
 * see docs/board.md for which PHY registers are to be set and why the top's table is empty.
 *
 * Each frame: 32 preamble ones, start 01, write 01, PHYAD, REGAD, turnaround 10, 16 data
 * bits, MSB first, 64 MDC periods; the line is released (mdio_oe low) for 2 MDC periods
 * between frames. MDC is clk / (2 * CLK_DIV) (default 125 MHz / 64 = 1.95 MHz, under the
 * 2.5 MHz of 802.3). mdio_o changes just after MDC's falling edge and is stable for CLK_DIV
 * clocks before and after the rising edge, at which the PHY samples it. mdc, mdio_o and
 * mdio_oe are flip-flop outputs; the top drives the mdio pin with mdio_oe ? mdio_o : z.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_mdio #(
    parameter [7:0]       CLK_DIV = 8'd32,    // MDC half period in clk cycles (>= 1)
    parameter [4:0]       NUM_WRITES = 5'd0,  // entries of WRITES to write (0..16)
    parameter [16*32-1:0] WRITES = {16*32{1'b0}}
) (
    input  wire clk,
    input  wire rst,      // synchronous, active high
    input  wire start,    // level: the PHYs are out of reset
    output wire mdc,
    output wire mdio_o,
    output wire mdio_oe,
    output wire done      // every entry written
);

localparam [1:0] IDLE = 2'd0, FRAME = 2'd1, GAP = 2'd2, DONE = 2'd3;

reg [1:0]  state;
reg [4:0]  remaining;  // entries still to write
reg [3:0]  index;      // the entry being written
reg [63:0] shift;      // the frame, MSB first
reg [6:0]  bits;       // MDC periods left in the frame or gap
reg [7:0]  div;        // clocks left in this half period
reg        mdc_q;
reg        mdio_o_q;
reg        mdio_oe_q;

wire [31:0] entry = WRITES[{index, 5'd0} +: 32];
wire        half_over = (div == 8'd1);

always @(posedge clk) begin
    if (rst) begin
        state <= IDLE;
        remaining <= NUM_WRITES;
        index <= 4'd0;
        shift <= 64'd0;
        bits <= 7'd0;
        div <= CLK_DIV;
        mdc_q <= 1'b0;
        mdio_o_q <= 1'b1;
        mdio_oe_q <= 1'b0;
    end else begin
        case (state)
            IDLE: begin
                if (start) begin
                    if (remaining == 5'd0) begin
                        state <= DONE;
                    end else begin
                        state <= FRAME;
                        shift <= {32'hFFFFFFFF, 2'b01, 2'b01, entry[25:21], entry[20:16], 2'b10,
                                  entry[15:0]};
                        bits <= 7'd64;
                        div <= CLK_DIV;
                        mdc_q <= 1'b0;
                    end
                end
            end
            FRAME, GAP: begin
                // the bit (or idle) of this MDC period is on the line while MDC is low,
                // then MDC rises; at the end of the high half the next period begins
                if (state == FRAME) begin
                    mdio_oe_q <= 1'b1;
                    mdio_o_q <= shift[63];
                end else begin
                    mdio_oe_q <= 1'b0;
                    mdio_o_q <= 1'b1;
                end
                if (half_over) begin
                    div <= CLK_DIV;
                    mdc_q <= !mdc_q;
                    if (mdc_q) begin
                        // end of the period
                        shift <= {shift[62:0], 1'b0};
                        if (bits == 7'd1) begin
                            if (state == FRAME) begin
                                state <= GAP;
                                bits <= 7'd2;
                                remaining <= remaining - 5'd1;
                                index <= index + 4'd1;
                            end else begin
                                state <= IDLE;
                            end
                        end else begin
                            bits <= bits - 7'd1;
                        end
                    end
                end else begin
                    div <= div - 8'd1;
                end
            end
            default: begin
                mdio_oe_q <= 1'b0;
                mdc_q <= 1'b0;
            end
        endcase
    end
end

assign mdc = mdc_q;
assign mdio_o = mdio_o_q;
assign mdio_oe = mdio_oe_q;
assign done = (state == DONE);

wire unused = &{1'b0, entry[31:26]};

endmodule

`resetall
