/*
 * board_reset_sync: the synchronous, active-high reset of one clock domain of the board top.
 *
 * rst_in is a level from anywhere (another clock domain, a pin, an MMCM's LOCKED): it is
 * brought into clk through 3 flip-flops (ASYNC_REG) and, while it is seen high and for
 * 2^HOLD_LOG2 clocks after it is seen low, rst_out is high. rst_out is a flip-flop output
 * synchronous to clk. Both edges of rst_out are synchronous: a domain whose clock does not run
 * (an RGMII RX clock while its PHY is in reset, an MMCM output before LOCKED) simply stays in
 * reset until it runs.
 *
 * The flip-flops have initial values (their INIT after configuration, as Vivado and Yosys map
 * them; the same in simulation): rst_out is high from configuration on and for at least
 * 2^HOLD_LOG2 + 3 clocks of the domain, even if rst_in is never seen high while its clock
 * runs (the switch clock starts only when the MMCM has locked, so it never sees !locked).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_reset_sync #(
    parameter HOLD_LOG2 = 4
) (
    input  wire clk,
    input  wire rst_in,  // asynchronous level, active high
    output wire rst_out  // synchronous to clk, active high
);

// Initial values: the flip-flops' INIT after configuration (Vivado and Yosys map them), so
// that the domain starts in reset even if rst_in is never seen high while its clock runs
(* ASYNC_REG = "TRUE" *) reg [2:0] sync = 3'b111;
reg [HOLD_LOG2:0] count = {(HOLD_LOG2 + 1){1'b0}};  // count[HOLD_LOG2]: the hold time is over
reg               rst_q = 1'b1;

always @(posedge clk) begin
    sync <= {sync[1:0], rst_in};
    if (sync[2]) begin
        count <= {(HOLD_LOG2 + 1){1'b0}};
    end else if (!count[HOLD_LOG2]) begin
        count <= count + {{HOLD_LOG2{1'b0}}, 1'b1};
    end
    rst_q <= sync[2] || !count[HOLD_LOG2];
end

assign rst_out = rst_q;

endmodule

`resetall
