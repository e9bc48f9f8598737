/*
 * IOBUF (board-top simulation model): the 7-series bidirectional buffer's ports, as
 * fpga/models/IOBUF.v declares them, with the far end of the pad played by the harness
 * instead of a wire. Test bench only: Verilator (5.006) resolves a top-level inout to what the
 * design drives, so a harness cannot drive the top's `mdio` pin; built in place of
 * fpga/models/IOBUF.v, this model lets tb/board/board_top_sim.cpp play the PHYs on the MDIO
 * line through Verilator's public signals:
 *
 *   master_drive, master_level (public_flat_rd): !T and I, what the FPGA drives;
 *   phy_drive, phy_level (public_flat_rw): what the harness's PHYs drive (written by the
 *     harness after each clock edge; tb/board/mdio_phy_model.h computes them).
 *
 * O (the fabric's view of the pad) is the master's level while it drives, else the PHY's
 * while one drives, else 1 (the line's pull-up). Both driving is the harness's to detect.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module IOBUF (
    output wire O,
    inout  wire IO,
    input  wire I,
    input  wire T
);

reg  phy_drive /*verilator public_flat_rw*/ = 1'b0;
reg  phy_level /*verilator public_flat_rw*/ = 1'b1;
wire master_drive /*verilator public_flat_rd*/ = !T;
wire master_level /*verilator public_flat_rd*/ = I;

assign IO = T ? 1'bz : I;
assign O = master_drive ? master_level : phy_drive ? phy_level : 1'b1;

endmodule

`resetall
