/*
 * board_phy_reset: the four PHYs' hardware reset (phy{i}_reset_n, active low) and the start
 * of their MDIO set-up, in the switch clock.
 *
 * While rst is high, and for RESET_CYCLES clocks after it falls, phy_reset_n is low (all four
 * PHYs); then it goes high. READY_CYCLES clocks later phy_ready rises and stays high until the
 * next rst: the PHYs have left reset and accept MDIO (board_mdio starts then).
 *
 * Defaults at 125 MHz: RESET_CYCLES = 1 250 000 (10 ms of reset, a generous figure for a
 * 1000BASE-T PHY; the board PHY's data sheet was not at hand to confirm its minimum: check it)
 * and READY_CYCLES = 625 000 (5 ms from the release of reset to the first MDIO access, same
 * caveat). Both are 24-bit counts (up to 134 ms).
 *
 * After configuration the flip-flops are 0: phy_reset_n is low from the start, before the
 * switch clock even runs (the MMCM not yet locked), so the PHYs are held in reset until the
 * count is over.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_phy_reset #(
    parameter [23:0] RESET_CYCLES = 24'd1250000,
    parameter [23:0] READY_CYCLES = 24'd625000
) (
    input  wire       clk,
    input  wire       rst,          // synchronous, active high
    output wire [3:0] phy_reset_n,  // to the pins
    output wire       phy_ready     // the PHYs accept MDIO
);

localparam [1:0] HOLD = 2'd0, WAIT = 2'd1, READY = 2'd2;

reg [1:0]  state;
reg [23:0] count;
reg [3:0]  reset_n_q;
reg        ready_q;

always @(posedge clk) begin
    if (rst) begin
        state <= HOLD;
        count <= 24'd0;
        reset_n_q <= 4'b0000;
        ready_q <= 1'b0;
    end else begin
        case (state)
            HOLD: begin
                if (count == RESET_CYCLES) begin
                    state <= WAIT;
                    count <= 24'd0;
                    reset_n_q <= 4'b1111;
                end else begin
                    count <= count + 24'd1;
                end
            end
            WAIT: begin
                if (count == READY_CYCLES) begin
                    state <= READY;
                    ready_q <= 1'b1;
                end else begin
                    count <= count + 24'd1;
                end
            end
            default: begin
                ready_q <= 1'b1;
            end
        endcase
    end
end

assign phy_reset_n = reset_n_q;
assign phy_ready = ready_q;

endmodule

`resetall
