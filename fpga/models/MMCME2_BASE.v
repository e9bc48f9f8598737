/*
 * MMCME2_BASE: a simple behavioural simulation model of the Xilinx 7-series mixed-mode clock
 * manager, base version (UG472 "Clock Management Tiles", UG953 "MMCME2_BASE"), for Verilator
 * and Icarus only; synthesis (Vivado, Yosys synth_xilinx) uses the real primitive. Written from
 * the documented parameters and ports, not from Xilinx's library.
 *
 * What it does: LOCKED rises after LOCK_CYCLES rising edges of CLKIN1 with RST and PWRDWN low
 * (a model parameter; the real lock time is given in the data sheet, tens of microseconds) and
 * falls at once with RST or PWRDWN. While LOCKED is low every output is 0.
 *   Icarus (and any simulator with delays): each output k runs at the documented frequency,
 *     period = CLKIN1_PERIOD * DIVCLK_DIVIDE * CLKOUTk_DIVIDE / CLKFBOUT_MULT_F (ns), with its
 *     duty cycle, starting CLKOUTk_PHASE / 360 of its period after LOCKED rises (so outputs with
 *     the same divide keep their phase difference, e.g. 90 degrees = a quarter period later);
 *     CLKFBOUT runs at CLKIN1 / DIVCLK_DIVIDE. CLKFBIN is not used (the feedback loop is
 *     assumed closed, no deskew modelled).
 *   Verilator (no timing, `VERILATOR defined): the outputs are CLKIN1 gated by LOCKED, whatever
 *     the divides and phases; a harness that needs the switch clock drives CLKIN1 at that
 *     frequency. Phase shifts are not modelled there.
 * The B outputs are the inversions. Not modelled: jitter, BANDWIDTH, CLKOUT4_CASCADE,
 * STARTUP_WAIT, the limits of the VCO range (not checked).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module MMCME2_BASE #(
    parameter [8*9-1:0] BANDWIDTH = "OPTIMIZED",
    parameter real CLKFBOUT_MULT_F = 5.0,   // M: VCO = CLKIN1 * M / D (600..1200 MHz for -1)
    parameter real CLKFBOUT_PHASE = 0.0,
    parameter real CLKIN1_PERIOD = 10.0,    // ns
    parameter real CLKOUT0_DIVIDE_F = 1.0,
    parameter integer CLKOUT1_DIVIDE = 1,
    parameter integer CLKOUT2_DIVIDE = 1,
    parameter integer CLKOUT3_DIVIDE = 1,
    parameter integer CLKOUT4_DIVIDE = 1,
    parameter integer CLKOUT5_DIVIDE = 1,
    parameter integer CLKOUT6_DIVIDE = 1,
    parameter real CLKOUT0_DUTY_CYCLE = 0.5,
    parameter real CLKOUT1_DUTY_CYCLE = 0.5,
    parameter real CLKOUT2_DUTY_CYCLE = 0.5,
    parameter real CLKOUT3_DUTY_CYCLE = 0.5,
    parameter real CLKOUT4_DUTY_CYCLE = 0.5,
    parameter real CLKOUT5_DUTY_CYCLE = 0.5,
    parameter real CLKOUT6_DUTY_CYCLE = 0.5,
    parameter real CLKOUT0_PHASE = 0.0,
    parameter real CLKOUT1_PHASE = 0.0,
    parameter real CLKOUT2_PHASE = 0.0,
    parameter real CLKOUT3_PHASE = 0.0,
    parameter real CLKOUT4_PHASE = 0.0,
    parameter real CLKOUT5_PHASE = 0.0,
    parameter real CLKOUT6_PHASE = 0.0,
    parameter [8*5-1:0] CLKOUT4_CASCADE = "FALSE",
    parameter integer DIVCLK_DIVIDE = 1,     // D
    parameter real REF_JITTER1 = 0.0,
    parameter [8*5-1:0] STARTUP_WAIT = "FALSE",
    // model only: CLKIN1 rising edges, with RST low, until LOCKED
    parameter integer LOCK_CYCLES = 64
) (
    output wire CLKOUT0,
    output wire CLKOUT0B,
    output wire CLKOUT1,
    output wire CLKOUT1B,
    output wire CLKOUT2,
    output wire CLKOUT2B,
    output wire CLKOUT3,
    output wire CLKOUT3B,
    output wire CLKOUT4,
    output wire CLKOUT5,
    output wire CLKOUT6,
    output wire CLKFBOUT,
    output wire CLKFBOUTB,
    output wire LOCKED,
    input  wire CLKIN1,
    input  wire PWRDWN,
    input  wire RST,
    input  wire CLKFBIN
);

// Lock: LOCK_CYCLES rising edges of CLKIN1 with RST and PWRDWN low
reg [15:0] lock_count;
reg        locked;

initial begin
    lock_count = 16'd0;
    locked = 1'b0;
end

always @(posedge CLKIN1 or posedge RST or posedge PWRDWN) begin
    if (RST || PWRDWN) begin
        lock_count <= 16'd0;
        locked <= 1'b0;
    end else if (lock_count == LOCK_CYCLES[15:0]) begin
        locked <= 1'b1;
    end else begin
        lock_count <= lock_count + 16'd1;
    end
end

assign LOCKED = locked;

`ifdef VERILATOR
assign CLKOUT0 = CLKIN1 && locked;
assign CLKOUT1 = CLKIN1 && locked;
assign CLKOUT2 = CLKIN1 && locked;
assign CLKOUT3 = CLKIN1 && locked;
assign CLKOUT4 = CLKIN1 && locked;
assign CLKOUT5 = CLKIN1 && locked;
assign CLKOUT6 = CLKIN1 && locked;
assign CLKFBOUT = CLKIN1 && locked;
// The frequencies and phases are not modelled here (see above)
wire unused_params = &{1'b0,
    CLKFBOUT_MULT_F > 0.0, CLKFBOUT_PHASE > 0.0, CLKIN1_PERIOD > 0.0, CLKOUT0_DIVIDE_F > 0.0,
    CLKOUT0_DUTY_CYCLE > 0.0, CLKOUT1_DUTY_CYCLE > 0.0, CLKOUT2_DUTY_CYCLE > 0.0, CLKOUT3_DUTY_CYCLE > 0.0,
    CLKOUT4_DUTY_CYCLE > 0.0, CLKOUT5_DUTY_CYCLE > 0.0, CLKOUT6_DUTY_CYCLE > 0.0, CLKOUT0_PHASE > 0.0,
    CLKOUT1_PHASE > 0.0, CLKOUT2_PHASE > 0.0, CLKOUT3_PHASE > 0.0, CLKOUT4_PHASE > 0.0,
    CLKOUT5_PHASE > 0.0, CLKOUT6_PHASE > 0.0, CLKOUT1_DIVIDE > 0, CLKOUT2_DIVIDE > 0,
    CLKOUT3_DIVIDE > 0, CLKOUT4_DIVIDE > 0, CLKOUT5_DIVIDE > 0, CLKOUT6_DIVIDE > 0,
    DIVCLK_DIVIDE > 0};
`else
// Output k (0..6: CLKOUTk, 7: CLKFBOUT): its period, duty cycle and phase, from its parameters
function real period_of(input integer k);
    begin
        case (k)
            0: period_of = CLKIN1_PERIOD * DIVCLK_DIVIDE * CLKOUT0_DIVIDE_F / CLKFBOUT_MULT_F;
            1: period_of = CLKIN1_PERIOD * DIVCLK_DIVIDE * CLKOUT1_DIVIDE / CLKFBOUT_MULT_F;
            2: period_of = CLKIN1_PERIOD * DIVCLK_DIVIDE * CLKOUT2_DIVIDE / CLKFBOUT_MULT_F;
            3: period_of = CLKIN1_PERIOD * DIVCLK_DIVIDE * CLKOUT3_DIVIDE / CLKFBOUT_MULT_F;
            4: period_of = CLKIN1_PERIOD * DIVCLK_DIVIDE * CLKOUT4_DIVIDE / CLKFBOUT_MULT_F;
            5: period_of = CLKIN1_PERIOD * DIVCLK_DIVIDE * CLKOUT5_DIVIDE / CLKFBOUT_MULT_F;
            6: period_of = CLKIN1_PERIOD * DIVCLK_DIVIDE * CLKOUT6_DIVIDE / CLKFBOUT_MULT_F;
            default: period_of = CLKIN1_PERIOD * DIVCLK_DIVIDE;
        endcase
    end
endfunction

function real duty_of(input integer k);
    begin
        case (k)
            0: duty_of = CLKOUT0_DUTY_CYCLE;
            1: duty_of = CLKOUT1_DUTY_CYCLE;
            2: duty_of = CLKOUT2_DUTY_CYCLE;
            3: duty_of = CLKOUT3_DUTY_CYCLE;
            4: duty_of = CLKOUT4_DUTY_CYCLE;
            5: duty_of = CLKOUT5_DUTY_CYCLE;
            6: duty_of = CLKOUT6_DUTY_CYCLE;
            default: duty_of = 0.5;
        endcase
    end
endfunction

function real phase_of(input integer k);
    begin
        case (k)
            0: phase_of = CLKOUT0_PHASE;
            1: phase_of = CLKOUT1_PHASE;
            2: phase_of = CLKOUT2_PHASE;
            3: phase_of = CLKOUT3_PHASE;
            4: phase_of = CLKOUT4_PHASE;
            5: phase_of = CLKOUT5_PHASE;
            6: phase_of = CLKOUT6_PHASE;
            default: phase_of = CLKFBOUT_PHASE;
        endcase
    end
endfunction

// Each output: 0 while not locked; from LOCKED's rise, its phase, then high for duty x period
// and low for the rest, over and over
reg [7:0] clock_q;
genvar k;
generate
    for (k = 0; k < 8; k = k + 1) begin : output_clock
        initial clock_q[k] = 1'b0;
        always begin
            if (locked !== 1'b1) begin // (at time 0 `locked` may not be initialized yet)
                clock_q[k] = 1'b0;
                @(posedge locked);
                #(period_of(k) * phase_of(k) / 360.0);
            end
            clock_q[k] = 1'b1;
            #(period_of(k) * duty_of(k));
            clock_q[k] = 1'b0;
            #(period_of(k) * (1.0 - duty_of(k)));
        end
    end
endgenerate

assign CLKOUT0 = clock_q[0];
assign CLKOUT1 = clock_q[1];
assign CLKOUT2 = clock_q[2];
assign CLKOUT3 = clock_q[3];
assign CLKOUT4 = clock_q[4];
assign CLKOUT5 = clock_q[5];
assign CLKOUT6 = clock_q[6];
assign CLKFBOUT = clock_q[7];
`endif

assign CLKOUT0B = !CLKOUT0;
assign CLKOUT1B = !CLKOUT1;
assign CLKOUT2B = !CLKOUT2;
assign CLKOUT3B = !CLKOUT3;
assign CLKFBOUTB = !CLKFBOUT;

wire unused = &{1'b0, CLKFBIN, BANDWIDTH[0], CLKOUT4_CASCADE[0], STARTUP_WAIT[0], REF_JITTER1 > 0.0};

endmodule

`resetall
