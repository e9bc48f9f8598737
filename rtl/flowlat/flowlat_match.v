/*
 * flowlat_match: the flow groups of the flow-latency monitor (docs/flowlat.md). Finds the
 * first of RULES rules, in index order (rule 0 first), that a frame's 5-tuple and egress port
 * match. Combinational; the caller registers the result.
 *
 * A rule, RULE_WIDTH = 128 bits, rule r in bits 128r+127 : 128r:
 *
 *   [31:0]    src_ip        [37:32]   src_length   prefix length 0..32 (0: any source)
 *   [69:38]   dst_ip        [75:70]   dst_length   prefix length 0..32 (0: any destination)
 *   [83:76]   protocol      [84]      protocol_any
 *   [100:85]  sport         [101]     sport_any
 *   [117:102] dport         [118]     dport_any
 *   [122:119] egress_ports  the MAC ports whose departures it watches (bit i: port i)
 *   [125:123] profile       the latency profile of its flows
 *   [126]     valid         [127] 0
 *
 * A prefix length above 32 is taken as 32.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module flowlat_match #(
    // Number of rules (flow groups), at most 16
    parameter RULES = 16
) (
    // The rules, rule r in bits 128r+127 : 128r
    input  wire [RULES*128-1:0] rules,

    // The frame: its 5-tuple and the MAC port it leaves by
    input  wire [31:0]          src_ip,
    input  wire [31:0]          dst_ip,
    input  wire [7:0]           protocol,
    input  wire [15:0]          sport,
    input  wire [15:0]          dport,
    input  wire [1:0]           egress,

    // The first rule that rule_matches: its index and profile; hit 0 when none does
    output reg                  hit,
    output reg  [3:0]           group,
    output reg  [2:0]           profile
);

function [31:0] prefix_mask;
    input [5:0] length;
    prefix_mask = length == 6'd0 ? 32'd0 :
                  length >= 6'd32 ? 32'hffffffff : ~(32'hffffffff >> length);
endfunction

reg [RULES-1:0] rule_matches;
integer r;

always @* begin
    for (r = 0; r < RULES; r = r + 1) begin
        rule_matches[r] =
            rules[128*r + 126] &&
            ((src_ip ^ rules[128*r +: 32]) & prefix_mask(rules[128*r + 32 +: 6])) == 32'd0 &&
            ((dst_ip ^ rules[128*r + 38 +: 32]) & prefix_mask(rules[128*r + 70 +: 6])) == 32'd0 &&
            (rules[128*r + 84] || protocol == rules[128*r + 76 +: 8]) &&
            (rules[128*r + 101] || sport == rules[128*r + 85 +: 16]) &&
            (rules[128*r + 118] || dport == rules[128*r + 102 +: 16]) &&
            rules[128*r + 119 + {30'd0, egress}];
    end
    hit = 1'b0;
    group = 4'd0;
    profile = 3'd0;
    for (r = RULES - 1; r >= 0; r = r - 1) begin
        if (rule_matches[r]) begin
            hit = 1'b1;
            group = r[3:0];
            profile = rules[128*r + 123 +: 3];
        end
    end
end

endmodule

`resetall
