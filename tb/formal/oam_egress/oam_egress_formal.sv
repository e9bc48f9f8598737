// SPDX-License-Identifier: BSD-3-Clause
/*
 * oam_egress_formal: the egress stamp writer (rtl/oam/oam_egress.v) passes its stream through
 * in the same clock, never stalls it, and changes only the bytes its header and docs/oam.md
 * name, to the values they name.
 *
 * Instance: the block for both values of its parameter, side by side on the same inputs:
 * oam_egress_check #(MAC_PORT = 1) `mac` (a MAC port: TX field, round-trip UDP port) and
 * #(MAC_PORT = 0) `cpu` (a CPU port: no TX field, the reflected discovery packet's destination
 * MAC). Each check instantiates the RTL as `dut`.
 *
 * Assumed:
 *   - reset in the first clock only;
 *   - a field starts at an even byte (header: oam_steer's offsets are even) and within the
 *     first 112 bytes, so that it ends by byte 119, inside word 14 (oam_steer's offsets are 16
 *     to 80; see proof.toml for what an offset above 112 does). Nothing else: the stream, its
 *     tready, the metadata (even changing mid-frame: the block uses the current word's),
 *     the stamps and the configuration are free in every clock; no AXI4-Stream hold rule is
 *     needed (the block is combinational on the data path).
 *
 * The model (written from the header and docs/oam.md, byte by byte, not from the RTL's lanes):
 * the frame's word index f_words (words handshaked since the last tlast, tvalid && tready),
 * so this word carries frame bytes k = 8 f_words + j, j = 0..7 (byte j in bits 8j+7:8j); the
 * TX stamp of the clock of the frame's first word's handshake (f_tx_first); each stamp plus,
 * for the headroom engine, (8 + max(length, 60) + 4) * byte_time ns, carried into the seconds
 * at 10^9, written as the 8 bytes {seconds[31:0], nanoseconds[31:0]}, most significant first.
 * The expected byte k is, in this order of precedence:
 *   the TX field's byte k - tx_offset, when MAC_PORT = 1, the frame has metadata, tx_offset != 0,
 *     the engine is enabled (dm / headroom / isl_copy_field for engines 0 / 1 / 2, never 3)
 *     and tx_offset <= k < tx_offset + 8;
 *   the RX field's byte k - rx_offset, when the frame has metadata with rx_valid, rx_offset != 0
 *     and rx_offset <= k < rx_offset + 8;
 *   0 for k = 40, 41 (UDP checksum) of an ISL frame (engine 2) when either field is written or
 *     it is reflected (isl_group) out of a MAC port;
 *   0xEF, 0x30 (61232) for k = 36, 37 of a reflected ISL frame out of a MAC port;
 *   config_port_mac byte k (most significant first) for k < 6 of a reflected ISL frame out of a
 *     CPU port;
 *   the input byte otherwise (every byte of a stat packet, s_axis_meta_valid 0).
 * (Which field wins where two overlap is not documented; the model gives the TX field
 * precedence, as the RTL does. oam_steer never makes them overlap.)
 *
 * Proved by k-induction, each a labelled assertion (in both instances):
 *   - ready_passthrough: s_axis_tready = m_axis_tready (never stalls, no buffer);
 *   - control_passthrough: tvalid, tkeep, tlast are the input's in the same clock (no latency,
 *     with data_as_model: nothing lost, added, delayed or reordered);
 *   - stat_packet_unchanged: without metadata every byte passes unchanged;
 *   - bytes_unchanged: every byte outside the positions above passes unchanged;
 *   - rx_field_bytes, tx_field_bytes: the bytes of the fields are the stamps (+ the duration for
 *     the headroom engine), big-endian;
 *   - isl_checksum_cleared, isl_round_trip_port, isl_cpu_destination: the ISL rewrites;
 *   - data_as_model: the whole word equals the model's (the above together);
 *   - pulses_as_model: dm_stamped, dm_reply_sent, headroom_stamped, headroom_reply_sent,
 *     isl_t0_stamped each pulse exactly in the clock of the first word's handshake of a frame
 *     whose TX field is written, by engine, a reply being a frame with an RX offset;
 *   Invariant for the induction: inv_rtl_state, the RTL's word index (saturating at 15),
 *   in-frame flag and first-word TX stamp (links) equal the model's.
 */

`default_nettype none

module oam_egress_check #(
    parameter MAC_PORT = 1
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        f_past_valid,
    input  wire [63:0] s_axis_tdata,
    input  wire [7:0]  s_axis_tkeep,
    input  wire        s_axis_tvalid,
    input  wire        s_axis_tlast,
    input  wire [93:0] s_axis_meta,
    input  wire        s_axis_meta_valid,
    input  wire        m_axis_tready,
    input  wire [61:0] tx_stamp,
    input  wire [11:0] config_byte_time,
    input  wire        config_dm_enable,
    input  wire        config_headroom_enable,
    input  wire        config_isl_copy_field,
    input  wire [47:0] config_port_mac
);

wire        s_axis_tready;
wire [63:0] m_axis_tdata;
wire [7:0]  m_axis_tkeep;
wire        m_axis_tvalid;
wire        m_axis_tlast;
wire        dm_stamped;
wire        dm_reply_sent;
wire        headroom_stamped;
wire        headroom_reply_sent;
wire        isl_t0_stamped;

oam_egress #(
    .MAC_PORT(MAC_PORT)
) dut (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .s_axis_meta(s_axis_meta),
    .s_axis_meta_valid(s_axis_meta_valid),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .tx_stamp(tx_stamp),
    .config_byte_time(config_byte_time),
    .config_dm_enable(config_dm_enable),
    .config_headroom_enable(config_headroom_enable),
    .config_isl_copy_field(config_isl_copy_field),
    .config_port_mac(config_port_mac),
    .dm_stamped(dm_stamped),
    .dm_reply_sent(dm_reply_sent),
    .headroom_stamped(headroom_stamped),
    .headroom_reply_sent(headroom_reply_sent),
    .isl_t0_stamped(isl_t0_stamped)
);

// Internal state of the RTL (proof.toml links; used only as operands of the invariant)
wire        f_in_frame_reg;   // dut.in_frame_reg
wire [3:0]  f_index_reg;      // dut.index_reg
wire [61:0] f_tx_first_reg;   // dut.tx_first_reg

// ---------------------------------------------------------------------------------------------
// The metadata, as the header lays it out

wire [13:0] f_length = s_axis_meta[93:80];
wire [1:0]  f_engine = s_axis_meta[79:78];
wire        f_isl_group = s_axis_meta[77];
wire [6:0]  f_tx_offset = s_axis_meta[76:70];
wire [6:0]  f_rx_offset = s_axis_meta[69:63];
wire        f_rx_valid = s_axis_meta[62];
wire [61:0] f_rx_stamp = s_axis_meta[61:0];

always @(*) begin
    if (s_axis_meta_valid) begin
        assume (f_rx_offset[0] == 1'b0 && f_rx_offset <= 7'd112);
        assume (f_tx_offset[0] == 1'b0 && f_tx_offset <= 7'd112);
    end
end

// ---------------------------------------------------------------------------------------------
// The model

wire f_hs = s_axis_tvalid && m_axis_tready;
reg [4:0]  f_words = 5'd0;         // words of the frame before this one, saturating at 31
reg [61:0] f_tx_first = 62'd0;     // TX stamp of the frame's first word's handshake
wire f_first_hs = f_hs && f_words == 5'd0;

always @(posedge clk) begin
    if (f_hs) begin
        f_words <= s_axis_tlast ? 5'd0 : (f_words == 5'd31 ? 5'd31 : f_words + 5'd1);
    end
    if (f_first_hs) begin
        f_tx_first <= tx_stamp;
    end
    if (rst) begin
        f_words <= 5'd0;
        f_tx_first <= 62'd0;
    end
end

// A stamp plus the frame's time on the wire for last-bit stamps (headroom):
// (8 preamble + max(length, 60) + 4 FCS) * byte_time, carried into the seconds at 10^9
localparam [31:0] F_BILLION = 32'd1000000000;
wire [13:0] f_wire_frame = f_length < 14'd60 ? 14'd60 : f_length;
wire [31:0] f_duration = ({18'd0, f_wire_frame} + 32'd12) * {20'd0, config_byte_time};
wire [31:0] f_added = f_engine == 2'd1 ? f_duration : 32'd0;

function [63:0] f_field;   // {seconds, 2'b00, nanoseconds}: the field's 8 bytes, big-endian
    input [61:0] stamp;
    input [31:0] added;
    reg [31:0] sum;
    begin
        sum = {2'b00, stamp[29:0]} + added;
        if (sum >= F_BILLION)
            f_field = {stamp[61:30] + 32'd1, sum - F_BILLION};
        else
            f_field = {stamp[61:30], sum};
    end
endfunction

wire [63:0] f_rx_value = f_field(f_rx_stamp, f_added);
wire [63:0] f_tx_value = f_field(f_tx_first, f_added);

reg f_tx_enabled;
always @(*) begin
    case (f_engine)
        2'd0: f_tx_enabled = config_dm_enable;
        2'd1: f_tx_enabled = config_headroom_enable;
        2'd2: f_tx_enabled = config_isl_copy_field;
        default: f_tx_enabled = 1'b0;
    endcase
end

wire f_write_rx = s_axis_meta_valid && f_rx_valid && f_rx_offset != 7'd0;
wire f_write_tx = MAC_PORT != 0 && s_axis_meta_valid && f_tx_offset != 7'd0 && f_tx_enabled;
wire f_isl = s_axis_meta_valid && f_engine == 2'd2;
wire f_reflected = f_isl && f_isl_group;
wire f_clear_checksum = f_isl && (f_write_rx || f_write_tx || (f_reflected && MAC_PORT != 0));

// Per byte j of this word (frame byte k = 8 f_words + j): its class and expected value
reg [7:0]  f_in_tx, f_in_rx, f_in_checksum, f_in_port, f_in_mac, f_in_none;
reg [63:0] f_expected;
reg [8:0]  f_k;
reg [8:0]  f_d;
integer    j;
always @(*) begin
    for (j = 0; j < 8; j = j + 1) begin
        f_k = {1'b0, f_words, 3'b000} + j;
        f_in_tx[j] = f_write_tx && f_k >= {2'b00, f_tx_offset} && f_k < {2'b00, f_tx_offset} + 9'd8;
        f_in_rx[j] = !f_in_tx[j] && f_write_rx && f_k >= {2'b00, f_rx_offset}
                     && f_k < {2'b00, f_rx_offset} + 9'd8;
        f_in_checksum[j] = !f_in_tx[j] && !f_in_rx[j] && f_clear_checksum
                           && (f_k == 9'd40 || f_k == 9'd41);
        f_in_port[j] = !f_in_tx[j] && !f_in_rx[j] && !f_in_checksum[j] && f_reflected
                       && MAC_PORT != 0 && (f_k == 9'd36 || f_k == 9'd37);
        f_in_mac[j] = !f_in_tx[j] && !f_in_rx[j] && !f_in_checksum[j] && f_reflected
                      && MAC_PORT == 0 && f_k < 9'd6;
        f_in_none[j] = !(f_in_tx[j] || f_in_rx[j] || f_in_checksum[j] || f_in_port[j]
                         || f_in_mac[j]);
        f_expected[8*j +: 8] = s_axis_tdata[8*j +: 8];
        if (f_in_tx[j]) begin
            f_d = f_k - {2'b00, f_tx_offset};
            f_expected[8*j +: 8] = f_tx_value[63 - 8*f_d[2:0] -: 8];
        end
        if (f_in_rx[j]) begin
            f_d = f_k - {2'b00, f_rx_offset};
            f_expected[8*j +: 8] = f_rx_value[63 - 8*f_d[2:0] -: 8];
        end
        if (f_in_checksum[j])
            f_expected[8*j +: 8] = 8'd0;
        if (f_in_port[j])
            f_expected[8*j +: 8] = f_k[0] ? 8'h30 : 8'hef;
        if (f_in_mac[j])
            f_expected[8*j +: 8] = config_port_mac[47 - 8*f_k[2:0] -: 8];
    end
end

function [63:0] f_bytes_mask;   // the bits of the bytes flagged
    input [7:0] flags;
    integer b;
    begin
        for (b = 0; b < 8; b = b + 1)
            f_bytes_mask[8*b +: 8] = {8{flags[b]}};
    end
endfunction

wire [63:0] f_diff = m_axis_tdata ^ f_expected;
wire f_reply = f_rx_offset != 7'd0;

// ---------------------------------------------------------------------------------------------
// Properties

always @(*) begin
    if (f_past_valid && !rst) begin
        ready_passthrough: assert (s_axis_tready == m_axis_tready);
        control_passthrough: assert (m_axis_tvalid == s_axis_tvalid
                                     && m_axis_tkeep == s_axis_tkeep
                                     && m_axis_tlast == s_axis_tlast);
        if (!s_axis_meta_valid)
            stat_packet_unchanged: assert (m_axis_tdata == s_axis_tdata);
        bytes_unchanged: assert (((m_axis_tdata ^ s_axis_tdata) & f_bytes_mask(f_in_none))
                                 == 64'd0);
        rx_field_bytes: assert ((f_diff & f_bytes_mask(f_in_rx)) == 64'd0);
        tx_field_bytes: assert ((f_diff & f_bytes_mask(f_in_tx)) == 64'd0);
        isl_checksum_cleared: assert ((f_diff & f_bytes_mask(f_in_checksum)) == 64'd0);
        isl_round_trip_port: assert ((f_diff & f_bytes_mask(f_in_port)) == 64'd0);
        isl_cpu_destination: assert ((f_diff & f_bytes_mask(f_in_mac)) == 64'd0);
        data_as_model: assert (m_axis_tdata == f_expected);
        pulses_as_model: assert (
            dm_stamped == (f_first_hs && f_write_tx && f_engine == 2'd0 && !f_reply)
            && dm_reply_sent == (f_first_hs && f_write_tx && f_engine == 2'd0 && f_reply)
            && headroom_stamped == (f_first_hs && f_write_tx && f_engine == 2'd1 && !f_reply)
            && headroom_reply_sent == (f_first_hs && f_write_tx && f_engine == 2'd1 && f_reply)
            && isl_t0_stamped == (f_first_hs && f_write_tx && f_engine == 2'd2));

        inv_rtl_state: assert (f_in_frame_reg == (f_words != 5'd0)
                               && f_index_reg == (f_words > 5'd15 ? 4'd15 : f_words[3:0])
                               && f_tx_first_reg == f_tx_first);
    end
end

// ---------------------------------------------------------------------------------------------
// Covers (one set per instance: the labels differ, so that each instance must reach its own)

// a word whose bytes straddle a field's start or end: the field crosses a word boundary
wire f_rx_straddles = f_hs && f_in_rx != 8'd0 && f_in_rx != 8'hff;
wire f_tx_straddles = f_hs && f_in_tx != 8'd0 && f_in_tx != 8'hff;
// a headroom stamp whose duration carries into the seconds
wire f_carry = f_engine == 2'd1 && ({2'b00, f_rx_stamp[29:0]} + f_added) >= F_BILLION;

generate
    if (MAC_PORT != 0) begin : mac_covers
        always @(*) begin
            if (f_past_valid && !rst) begin
                // a DMR leaving: RX and TX fields, the TX one crossing into the 5th word, with the
                // first word's TX stamp (not this clock's)
                cover_mac_dmr_fields: cover (f_hs && f_write_tx && f_write_rx && f_engine == 2'd0
                                             && f_tx_straddles && f_words == 5'd4
                                             && f_tx_first != tx_stamp);
                // a headroom response: both fields last-bit stamps, the RX one with a carry
                cover_mac_headroom_carry: cover (f_hs && f_engine == 2'd1 && f_carry
                                                 && f_in_rx != 8'd0 && f_write_tx
                                                 && config_byte_time != 12'd0);
                // a reflected discovery packet: the round-trip port and the checksum cleared
                cover_mac_round_trip_port: cover (f_hs && f_in_port != 8'd0 && s_axis_tdata[39:32] != 8'hef);
                cover_mac_checksum_cleared: cover (f_hs && f_in_checksum != 8'd0
                                                   && s_axis_tdata[15:0] != 16'd0);
                // the TX field not written: engine disabled
                cover_mac_tx_disabled: cover (f_hs && s_axis_meta_valid && f_tx_offset == 7'd34
                                              && !f_tx_enabled && f_words == 5'd4);
                cover_mac_stat_packet: cover (f_hs && !s_axis_meta_valid && f_words == 5'd5);
                cover_mac_pulse: cover (dm_reply_sent || headroom_stamped);
            end
        end
    end else begin : cpu_covers
        always @(*) begin
            if (f_past_valid && !rst) begin
                // a frame passed up with its RX field crossing a word boundary
                cover_cpu_rx_field: cover (f_hs && f_rx_straddles && f_words >= 5'd3);
                // the TX offset of a packet-out frame is never written on a CPU port
                cover_cpu_no_tx_field: cover (f_hs && s_axis_meta_valid && f_tx_offset == 7'd18
                                              && f_tx_enabled && f_words == 5'd2);
                cover_cpu_destination: cover (f_hs && f_in_mac != 8'd0
                                              && s_axis_tdata[7:0] != config_port_mac[47:40]);
                cover_cpu_checksum_cleared: cover (f_hs && f_in_checksum != 8'd0
                                                   && s_axis_tdata[15:0] != 16'd0);
            end
        end
    end
endgenerate

endmodule

module oam_egress_formal (
    input  wire        clk,
    input  wire        rst,
    input  wire [63:0] s_axis_tdata,
    input  wire [7:0]  s_axis_tkeep,
    input  wire        s_axis_tvalid,
    input  wire        s_axis_tlast,
    input  wire [93:0] s_axis_meta,
    input  wire        s_axis_meta_valid,
    input  wire        m_axis_tready,
    input  wire [61:0] tx_stamp,
    input  wire [11:0] config_byte_time,
    input  wire        config_dm_enable,
    input  wire        config_headroom_enable,
    input  wire        config_isl_copy_field,
    input  wire [47:0] config_port_mac
);

// The reset the proof starts from, and rst low after it (common/formal_reset.sv)
wire f_past_valid;
formal_reset #(.ONCE(1)) initial_reset (.clk(clk), .rst(rst), .past_valid(f_past_valid));

oam_egress_check #(.MAC_PORT(1)) mac (
    .clk(clk), .rst(rst), .f_past_valid(f_past_valid),
    .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tlast(s_axis_tlast), .s_axis_meta(s_axis_meta),
    .s_axis_meta_valid(s_axis_meta_valid), .m_axis_tready(m_axis_tready),
    .tx_stamp(tx_stamp), .config_byte_time(config_byte_time),
    .config_dm_enable(config_dm_enable), .config_headroom_enable(config_headroom_enable),
    .config_isl_copy_field(config_isl_copy_field), .config_port_mac(config_port_mac)
);

oam_egress_check #(.MAC_PORT(0)) cpu (
    .clk(clk), .rst(rst), .f_past_valid(f_past_valid),
    .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tlast(s_axis_tlast), .s_axis_meta(s_axis_meta),
    .s_axis_meta_valid(s_axis_meta_valid), .m_axis_tready(m_axis_tready),
    .tx_stamp(tx_stamp), .config_byte_time(config_byte_time),
    .config_dm_enable(config_dm_enable), .config_headroom_enable(config_headroom_enable),
    .config_isl_copy_field(config_isl_copy_field), .config_port_mac(config_port_mac)
);

endmodule

`default_nettype wire
