/*
 * board_led: stretches one-clock activity pulses into a visible blink. Each pulse of event
 * (re)starts a count of 2^STRETCH_LOG2 clocks during which led is high (default 2^22 clocks:
 * 34 ms at 125 MHz). led is a flip-flop output.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_led #(
    parameter STRETCH_LOG2 = 22
) (
    input  wire clk,
    input  wire rst,    // synchronous, active high
    input  wire event_pulse,
    output wire led
);

reg [STRETCH_LOG2-1:0] count;
reg                    led_q;

always @(posedge clk) begin
    if (rst) begin
        count <= {STRETCH_LOG2{1'b0}};
        led_q <= 1'b0;
    end else if (event_pulse) begin
        count <= {STRETCH_LOG2{1'b1}};
        led_q <= 1'b1;
    end else if (count != {STRETCH_LOG2{1'b0}}) begin
        count <= count - {{(STRETCH_LOG2 - 1){1'b0}}, 1'b1};
        led_q <= 1'b1;
    end else begin
        led_q <= 1'b0;
    end
end

assign led = led_q;

endmodule

`resetall
