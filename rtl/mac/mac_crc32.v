/*
 * mac_crc32: one byte of the Ethernet frame check sequence (IEEE 802.3 clause 3.2.9), for the
 * byte-wide MAC paths (mac_tx, mac_rx): the CRC-32 register after `data`, combinational.
 *
 * The register is the reflected form (polynomial 0xEDB88320, bits taken least significant
 * first, as they go on the wire), started at 0xFFFFFFFF before the destination address. The
 * FCS is the register's complement, sent least significant byte first: it equals zlib's
 * crc32() of the frame. Run over a frame and its FCS, the register ends at the residue
 * 0xDEBB20E3 when the frame is intact.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module mac_crc32 (
    input  wire [31:0] crc_in,   // the register before the byte
    input  wire [7:0]  data,     // the byte, bit 0 first on the wire
    output wire [31:0] crc_out   // the register after it
);

reg [31:0] crc;
integer bit_index;

always @* begin
    crc = crc_in;
    for (bit_index = 0; bit_index < 8; bit_index = bit_index + 1)
        crc = (crc[0] ^ data[bit_index]) ? ((crc >> 1) ^ 32'hedb88320) : (crc >> 1);
end

assign crc_out = crc;

endmodule

`resetall
