/*
 * board_clocking: the switch clocks of the NetFPGA-1G-CML from its 200 MHz LVDS oscillator.
 *
 *   sys_clk_p/n --IBUFDS--> 200 MHz --MMCME2_BASE (VCO 1000 MHz = 200 * 5 / 1)--+
 *        CLKOUT0 / 8 = 125 MHz, phase 0   --BUFG--> clk   (the switch, the MACs)
 *        CLKOUT1 / 8 = 125 MHz, phase 90  --BUFG--> clk90 (mac_rgmii_tx's TXC ODDR: 2 ns late)
 *        CLKFBOUT -> CLKFBIN directly (no deskew to the input clock is needed: nothing is
 *        clocked by the 200 MHz clock itself)
 *
 * The VCO is in the -1 speed grade's range (600..1200 MHz, DS182). locked is the MMCM's
 * LOCKED (asynchronous; board_reset_sync brings it into each domain). The MMCM's RST is held
 * low: the oscillator runs from power-up, and the MMCM locks on its own after configuration.
 * The 200 MHz clock is defined in timing.xdc on sys_clk_p; Vivado derives clk and clk90 from
 * the MMCM (both in the sys_clk group of the asynchronous clock groups there).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_clocking (
    input  wire sys_clk_p,
    input  wire sys_clk_n,
    output wire clk,     // 125 MHz
    output wire clk90,   // 125 MHz, +90 degrees (2 ns later)
    output wire locked   // the MMCM is locked (asynchronous)
);

wire clk_200;
wire clkfb;
wire clk_125_mmcm;
wire clk_125_90_mmcm;
// MMCM outputs not used (named: Verilator -Wall wants no empty pin)
wire mmcm_unused_clkout0b, mmcm_unused_clkout1b, mmcm_unused_clkout2, mmcm_unused_clkout2b;
wire mmcm_unused_clkout3, mmcm_unused_clkout3b, mmcm_unused_clkout4, mmcm_unused_clkout5;
wire mmcm_unused_clkout6, mmcm_unused_clkfboutb;

IBUFDS #(
    .DIFF_TERM("FALSE"),
    .IBUF_LOW_PWR("FALSE"),
    .IOSTANDARD("LVDS")
) sys_clk_ibufds (
    .O(clk_200),
    .I(sys_clk_p),
    .IB(sys_clk_n)
);

MMCME2_BASE #(
    .BANDWIDTH("OPTIMIZED"),
    .CLKIN1_PERIOD(5.0),
    .DIVCLK_DIVIDE(1),
    .CLKFBOUT_MULT_F(5.0),
    .CLKFBOUT_PHASE(0.0),
    .CLKOUT0_DIVIDE_F(8.0),
    .CLKOUT0_DUTY_CYCLE(0.5),
    .CLKOUT0_PHASE(0.0),
    .CLKOUT1_DIVIDE(8),
    .CLKOUT1_DUTY_CYCLE(0.5),
    .CLKOUT1_PHASE(90.0),
    .REF_JITTER1(0.010),
    .STARTUP_WAIT("FALSE")
) mmcm (
    .CLKOUT0(clk_125_mmcm),
    .CLKOUT0B(mmcm_unused_clkout0b),
    .CLKOUT1(clk_125_90_mmcm),
    .CLKOUT1B(mmcm_unused_clkout1b),
    .CLKOUT2(mmcm_unused_clkout2),
    .CLKOUT2B(mmcm_unused_clkout2b),
    .CLKOUT3(mmcm_unused_clkout3),
    .CLKOUT3B(mmcm_unused_clkout3b),
    .CLKOUT4(mmcm_unused_clkout4),
    .CLKOUT5(mmcm_unused_clkout5),
    .CLKOUT6(mmcm_unused_clkout6),
    .CLKFBOUT(clkfb),
    .CLKFBOUTB(mmcm_unused_clkfboutb),
    .LOCKED(locked),
    .CLKIN1(clk_200),
    .PWRDWN(1'b0),
    .RST(1'b0),
    .CLKFBIN(clkfb)
);

BUFG clk_bufg (
    .O(clk),
    .I(clk_125_mmcm)
);

BUFG clk90_bufg (
    .O(clk90),
    .I(clk_125_90_mmcm)
);

endmodule

`resetall
