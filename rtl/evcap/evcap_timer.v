/*
 * evcap_timer: the 64-bit time base of event capture, one count per clock (8 ns at 125 MHz).
 *
 * timer(n+1) = reset(n) ? 0 : load(n) ? preset(n) : timer(n) + 1
 *
 * The resolution exponent does not change how it counts: the intake derives ticks as
 * timer >> resolution, so changing the resolution never disturbs the time base that other
 * blocks (latency measurement) share.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module evcap_timer (
    input  wire        clk,
    input  wire        rst,

    // Commands (one-clock pulses) and the value loaded by timer_load
    input  wire        timer_reset,
    input  wire        timer_load,
    input  wire [63:0] timer_preset,

    output wire [63:0] timer
);

reg [63:0] timer_reg = 64'd0;

assign timer = timer_reg;

always @(posedge clk) begin
    if (timer_reset) begin
        timer_reg <= 64'd0;
    end else if (timer_load) begin
        timer_reg <= timer_preset;
    end else begin
        timer_reg <= timer_reg + 64'd1;
    end

    if (rst) begin
        timer_reg <= 64'd0;
    end
end

endmodule

`resetall
