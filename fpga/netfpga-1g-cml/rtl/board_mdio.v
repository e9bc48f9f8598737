/*
 * board_mdio: an MDIO (IEEE 802.3 clause 22) master. Once start is high it writes a fixed table
 * of PHY registers, one frame after the other (then `done` rises and stays high); after that,
 * and never before, it sends one read or write frame per command of the host (the `mac`
 * block's mdio_* registers, regmap/mac.toml).
 *
 * The table is the parameter WRITES: up to 16 entries of 32 bits, entry k in bits
 * 32k+31:32k as {6'b0, phy_address[4:0], register[4:0], data[15:0]}; NUM_WRITES (0..16) is
 * how many are written, from entry 0. With NUM_WRITES = 0 nothing is sent and done rises at
 * once: the PHYs keep their power-up (strap) configuration. The board top passes its table;
 * see docs/board.md for which PHY registers are to be set and why the top's table is empty.
 *
 * The frames (802.3 22.2.4.5), one bit per MDC period, MSB first, 64 periods:
 *
 *   period  0..31   32..33  34..35  36..40  41..45  46..47  48..63
 *   write   1...1   0 1     0 1     PHYAD   REGAD   1 0     DATA       all driven by the master
 *   read    1...1   0 1     1 0     PHYAD   REGAD   Z 0     DATA
 *           |<------ driven by the master ------------>|   |<-- driven by the PHY
 *                                                     (master released from period 46 on)
 *
 * then 2 idle periods (line released, its pull-up holds it at 1) before the next frame. MDC is
 * clk / (2 * CLK_DIV) (default 125 MHz / 64 = 1.95 MHz, 512 ns: under 802.3's 2.5 MHz, with
 * high and low halves of 256 ns, above its 160 ns minimum, 22.2.2.13). A period is MDC low
 * (CLK_DIV clocks), then high (CLK_DIV clocks): mdio_o changes one clock after MDC's falling
 * edge and is stable for CLK_DIV - 1 clocks before and CLK_DIV clocks after the rising edge, at
 * which the PHY samples it (802.3 22.3.4: 10 ns setup and hold at least; here 248 and 256 ns).
 *
 * Read timing (802.3 22.3.4, figure 22-18): the PHY drives MDIO 0 to 300 ns after MDC's rising
 * edge, and the station samples it at the next rising edge. The master samples mdio_i through
 * two flip-flops (mdio_i is asynchronous to clk) in the clock in which mdc rises, so what it
 * takes is the line 2 to 3 clocks before that rising edge: between 300 ns after the previous
 * rising edge and this one as long as 2 * CLK_DIV - 3 clocks exceed 300 ns (CLK_DIV >= 22 at
 * 125 MHz; the default 32 leaves 488 - 300 = 188 ns for the pads and the board). A PHY may
 * let its output change right at the rising edge (0 ns): sampling before it loses nothing.
 * The bit sampled in period 47 (the turnaround's second bit, which the PHY drives 0) says
 * whether a PHY answered: read as 1, nothing drove the line (no_answer); the data is then
 * all ones, which clause 22 does not treat as an error.
 *
 * Commands: read or write (one-clock pulses; read wins when both come together) take
 * cmd_phy, cmd_register and cmd_data in that clock, and are taken only while busy is low (a
 * command while busy is ignored). busy rises in the next clock and stays high while the
 * command waits (for the table) and while its frame and the 2 idle periods after it last; when
 * a read's busy falls, read_data and no_answer hold what it read (until the next read ends).
 *
 * mdc, mdio_o and mdio_oe are flip-flop outputs; the top drives the mdio pin with
 * mdio_oe ? mdio_o : z and feeds the pin back into mdio_i. Synchronous, active-high reset.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_mdio #(
    parameter [7:0]       CLK_DIV = 8'd32,    // MDC half period in clk cycles (>= 2)
    parameter [4:0]       NUM_WRITES = 5'd0,  // entries of WRITES to write (0..16)
    parameter [16*32-1:0] WRITES = {16*32{1'b0}}
) (
    input  wire        clk,
    input  wire        rst,          // synchronous, active high
    input  wire        start,        // level: the PHYs are out of reset
    output wire        mdc,
    output wire        mdio_o,
    output wire        mdio_oe,
    input  wire        mdio_i,       // the pin, asynchronous
    output wire        done,         // every entry of the table written
    // the host's frames (clk)
    input  wire        cmd_read,     // one-clock pulse: a read frame
    input  wire        cmd_write,    // one-clock pulse: a write frame
    input  wire [4:0]  cmd_phy,
    input  wire [4:0]  cmd_register,
    input  wire [15:0] cmd_data,
    output wire        busy,
    output wire [15:0] read_data,
    output wire        no_answer     // the last read's turnaround bit read 1
);

localparam [1:0] IDLE = 2'd0, FRAME = 2'd1, GAP = 2'd2, READY = 2'd3;
localparam [6:0] RELEASE_AT = 7'd18; // `bits` of period 46: a read's master lets go from here

reg [1:0]  state;
reg [4:0]  remaining;  // table entries still to write
reg [3:0]  index;      // the table entry being written
reg [63:0] shift;      // the frame, MSB first
reg [6:0]  bits;       // MDC periods left in the frame or gap
reg [7:0]  div;        // clocks left in this half period
reg        mdc_q;
reg        mdio_o_q;
reg        mdio_oe_q;
reg        table_done;
reg        pending;    // a host command waits for its frame
reg        pending_read;
reg [4:0]  pending_phy;
reg [4:0]  pending_register;
reg [15:0] pending_data;
reg        host_frame; // the frame (or gap) under way is the host's
reg        host_read;  // ... and a read
reg [16:0] sampled;    // the turnaround's second bit and the data bits, as sampled
reg [15:0] read_data_q;
reg        no_answer_q;
(* ASYNC_REG = "TRUE" *) reg mdio_meta;
(* ASYNC_REG = "TRUE" *) reg mdio_sync;

wire [31:0] entry = WRITES[{index, 5'd0} +: 32];
wire        half_over = (div == 8'd1);
wire        take = (cmd_read || cmd_write) && !pending && !host_frame;

always @(posedge clk) begin
    mdio_meta <= mdio_i;
    mdio_sync <= mdio_meta;
end

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
        table_done <= 1'b0;
        pending <= 1'b0;
        pending_read <= 1'b0;
        pending_phy <= 5'd0;
        pending_register <= 5'd0;
        pending_data <= 16'd0;
        host_frame <= 1'b0;
        host_read <= 1'b0;
        sampled <= 17'd0;
        read_data_q <= 16'hFFFF;
        no_answer_q <= 1'b0;
    end else begin
        if (take) begin
            pending <= 1'b1;
            pending_read <= cmd_read;
            pending_phy <= cmd_phy;
            pending_register <= cmd_register;
            pending_data <= cmd_data;
        end
        case (state)
            IDLE: begin
                if (start) begin
                    if (remaining == 5'd0) begin
                        state <= READY;
                        table_done <= 1'b1;
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
            READY: begin
                mdio_oe_q <= 1'b0;
                mdc_q <= 1'b0;
                if (pending) begin
                    pending <= 1'b0;
                    host_frame <= 1'b1;
                    host_read <= pending_read;
                    state <= FRAME;
                    shift <= {32'hFFFFFFFF, 2'b01, pending_read ? 2'b10 : 2'b01, pending_phy,
                              pending_register, 2'b10, pending_data};
                    bits <= 7'd64;
                    div <= CLK_DIV;
                end
            end
            default: begin // FRAME, GAP
                // the bit (or idle) of this MDC period is on the line while MDC is low,
                // then MDC rises; at the end of the high half the next period begins
                if (state == FRAME && !(host_read && bits <= RELEASE_AT)) begin
                    mdio_oe_q <= 1'b1;
                    mdio_o_q <= shift[63];
                end else begin
                    mdio_oe_q <= 1'b0;
                    mdio_o_q <= 1'b1;
                end
                if (half_over) begin
                    div <= CLK_DIV;
                    mdc_q <= !mdc_q;
                    if (!mdc_q && state == FRAME) begin
                        // MDC rises: the line as the PHY drives it in a read's last 17 periods
                        sampled <= {sampled[15:0], mdio_sync};
                    end
                    if (mdc_q) begin
                        // end of the period
                        shift <= {shift[62:0], 1'b0};
                        if (bits == 7'd1) begin
                            if (state == FRAME) begin
                                state <= GAP;
                                bits <= 7'd2;
                                if (host_read) begin
                                    read_data_q <= sampled[15:0];
                                    no_answer_q <= sampled[16];
                                end
                                if (!host_frame) begin
                                    remaining <= remaining - 5'd1;
                                    index <= index + 4'd1;
                                end
                            end else begin
                                // after the gap: the table's next entry, or the host's turn
                                state <= table_done ? READY : IDLE;
                                host_frame <= 1'b0;
                                host_read <= 1'b0;
                            end
                        end else begin
                            bits <= bits - 7'd1;
                        end
                    end
                end else begin
                    div <= div - 8'd1;
                end
            end
        endcase
    end
end

assign mdc = mdc_q;
assign mdio_o = mdio_o_q;
assign mdio_oe = mdio_oe_q;
assign done = table_done;
assign busy = pending || host_frame;
assign read_data = read_data_q;
assign no_answer = no_answer_q;

wire unused = &{1'b0, entry[31:26]};

endmodule

`resetall
