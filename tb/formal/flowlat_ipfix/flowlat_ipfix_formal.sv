// SPDX-License-Identifier: BSD-3-Clause
/*
 * flowlat_ipfix_formal: every IPFIX frame flowlat_ipfix sends, for every input sequence, by
 * k-induction (so for every message, not only the first).
 *
 * Instance: CLOCKS_PER_US = 2 (the real 125): it only sets the flush timeout's prescaler, i.e.
 * when a message goes, never what it carries; 2 lets a timed-out message happen within the
 * covers' depth.
 *
 * Assumed:
 *   - reset in the first clock (free afterwards: the model restarts with the block);
 *   - the events come from flowlat_fifo (tb/formal/flowlat_fifo/), as in flowlat_core:
 *     s_event_count is the FIFO's count (f_fifo: entries pushed, f_push while below 64, minus
 *     those popped by s_event_ready), s_event_valid = count != 0, and the head shown and not
 *     popped stays, with the same data;
 *   - config_mtu >= 200 (docs/flowlat.md: 200..9000, the register's range);
 *   - the configuration (MACs, IPs, ports, observation domain, PEN) holds while a message is
 *     being sent (f_busy), as the frame is built from it over several clocks.
 * Everything else is free: the events' data, f_push, tod_seconds, config_enable, the template
 * interval, the flush timeout, the command, tready, the watched byte's position.
 *
 * The model, written from the block's header and docs/flowlat.md: a message starts when the
 * block decides to send (dut.send_now in the idle state, linked: when is the block's choice,
 * what goes is checked); then T (the template goes), n (the records), the FIFO count, the MTU
 * and tod_seconds of that clock are latched; the frame is 14 + IP total length bytes
 * (f_total), prefix 58 + 96T + (n ? 4 : 0) bytes (f_plen), then n records of 48 bytes; bytes
 * taken out (f_out) are counted from tkeep; the frame ends at its tlast handshake. A watched
 * byte (frame position f_wpos, free) is latched when the packer takes it (f_wbyte).
 *
 * Proved:
 *   The stream
 *     - beat_held: a beat shown and not taken is shown again unchanged (AXI4-Stream);
 *     - quiet_between_frames: no beat outside a message;
 *     - keep_contiguous: tkeep 0xff, or (on the last beat only) 1 to 7 low bytes;
 *     - tlast_at_length: every beat ends within the frame and tlast is on the beat that ends it
 *       at f_total = 14 + IP total length bytes, and no other (so one tlast per frame);
 *     - byte_out_as_put: the watched byte leaves at its place in the frame with the value the
 *       packer took for that place (the packer loses, adds and reorders no byte);
 *   What goes in a message
 *     - n_within_limits: n <= the events waiting, n <= 64, the IP packet within the MTU, as many
 *       as fit (n = the events waiting, or 64, or one more would exceed the MTU), n >= 1
 *       unless the template goes;
 *     - pop_when_valid: s_event_ready only with an event shown (never popped when empty);
 *     - pop_is_record_event: the event popped is the one the record being built holds
 *       (dut.event_data), so by inv_record each record is made of the event popped for it;
 *     - pops_per_message: exactly n events popped per message (each once, in FIFO order:
 *       one pop per record, the head each time);
 *   The prefix the block sends (dut.headers, dut.prefix, as the packer takes them: by
 *   inv_prefix and inv_record byte 8 x chunk of the prefix goes to frame byte 8 x chunk, and
 *   byte 8 x chunk of record k to f_plen + 48k + 8 x chunk)
 *     - header_fields: destination, source MAC, 0x0800, 0x45 0x00, IP total length
 *       f_total - 14, identification = messages sent (low 16 bits), 0x4000 (DF), TTL 64,
 *       protocol 17, source and destination IP, UDP ports, UDP length = total - 20, UDP
 *       checksum 0, IPFIX version 10, length = UDP length - 8, export time (tod_seconds when
 *       the message was decided), sequence number = data records sent before (in the frames
 *       sent before), observation domain;
 *     - template_set: with T, bytes 58..153: set ID 2, length 96, template 256, 15 fields, the
 *       header's list (the 7 enterprise ones with the PEN);
 *     - data_set_header: with n > 0, after the template (or the headers): set ID 256, length
 *       4 + 48n; prefix_length: the prefix's length is f_plen;
 *   The counters
 *     - counters_at_start: count_message in the message's first clock and no other,
 *       count_template with it when T; records_counted: n count_record pulses per message.
 *   Invariants for the induction (inv_*): the RTL's state, message registers, chunk, records
 *   left, packer fill and flushing flag, the pops so far, the FIFO's count against the model;
 *   the watched byte in the packer's buffer at its place.
 *
 * Not proved here: the IPv4 header checksum (bytes 24..25). The property written as
 * tb/formal/evcap_packet_output/ does (the field = ~ RFC 1071 fold of the integer sum of the
 * other nine words of dut.headers, tb/formal/ipv4_checksum/ipv4_fold.v) was not decided by
 * z3 4.8.12 in 10 minutes, even in the BMC's first step: the RTL adds the words pairwise with
 * end-around carries (sum16), and that tree's equality with the integer sum's fold is an
 * arithmetic equivalence the bit-level solver does not find. And that each record's 48 bytes
 * are the fields of its event in the template's order (the RTL's record_chunk function, with
 * the nanoseconds-to-NTP-fraction multiplier); it is proved that record k's bytes are the
 * record the RTL makes of the k-th event popped, at the right place.
 */

`default_nettype none

module flowlat_ipfix_formal (
    input  wire         clk,
    input  wire         rst,

    input  wire [295:0] s_event,
    input  wire         s_event_valid,
    input  wire [6:0]   s_event_count,
    input  wire [31:0]  tod_seconds,
    input  wire         config_enable,
    input  wire [47:0]  config_destination_mac,
    input  wire [47:0]  config_source_mac,
    input  wire [31:0]  config_source_ip,
    input  wire [31:0]  config_destination_ip,
    input  wire [15:0]  config_source_port,
    input  wire [15:0]  config_destination_port,
    input  wire [31:0]  config_observation_domain,
    input  wire [31:0]  config_enterprise_number,
    input  wire [15:0]  config_template_interval_s,
    input  wire [15:0]  config_mtu,
    input  wire [31:0]  config_flush_timeout_us,
    input  wire         command_send_template,
    input  wire         m_axis_tready,

    input  wire         f_push,       // free: an event enters the FIFO (when not full)
    input  wire [15:0]  f_watch_pos   // free: the frame byte watched, latched at the start
);

wire         s_event_ready;
wire [63:0]  m_axis_tdata;
wire [7:0]   m_axis_tkeep;
wire         m_axis_tvalid;
wire         m_axis_tlast;
wire         count_message;
wire         count_template;
wire         count_record;

flowlat_ipfix #(
    .CLOCKS_PER_US(2)
) dut (
    .clk(clk),
    .rst(rst),
    .s_event(s_event),
    .s_event_valid(s_event_valid),
    .s_event_ready(s_event_ready),
    .s_event_count(s_event_count),
    .tod_seconds(tod_seconds),
    .config_enable(config_enable),
    .config_destination_mac(config_destination_mac),
    .config_source_mac(config_source_mac),
    .config_source_ip(config_source_ip),
    .config_destination_ip(config_destination_ip),
    .config_source_port(config_source_port),
    .config_destination_port(config_destination_port),
    .config_observation_domain(config_observation_domain),
    .config_enterprise_number(config_enterprise_number),
    .config_template_interval_s(config_template_interval_s),
    .config_mtu(config_mtu),
    .config_flush_timeout_us(config_flush_timeout_us),
    .command_send_template(command_send_template),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .count_message(count_message),
    .count_template(count_template),
    .count_record(count_record)
);

// Internal state (proof.toml links); used only as operands
wire [2:0]    dut_state;
wire          dut_send_now;
wire          dut_template_due;
wire [6:0]    dut_max_records;
wire          dut_with_template;
wire [6:0]    dut_records;
wire [6:0]    dut_records_left;
wire [4:0]    dut_chunk;
wire [15:0]   dut_messages;
wire [31:0]   dut_sequence_number;
wire [31:0]   dut_export_time;
wire [3:0]    dut_held;
wire          dut_flushing;
wire [119:0]  dut_buffer;
wire [295:0]  dut_event_data;
wire [463:0]  dut_headers;
wire [1279:0] dut_prefix;
wire [7:0]    dut_prefix_bytes;
wire          dut_take_chunk;
wire [63:0]   dut_chunk_data;
wire [3:0]    dut_chunk_bytes;

localparam [2:0] S_IDLE = 3'd0, S_PREFIX = 3'd1, S_RECORD = 3'd2, S_FLUSH = 3'd3;

// The reset the proof starts from (common/formal_reset.sv)
wire f_past_valid;
formal_reset initial_reset (.clk(clk), .rst(rst), .past_valid(f_past_valid));

// ---------------------------------------------------------------------------------------------
// Environment

reg [6:0] f_fifo = 7'd0;     // events in the FIFO
wire      pop = s_event_ready && s_event_valid;
wire      push = f_push && f_fifo < 7'd64;

always @(posedge clk) begin
    f_fifo <= f_fifo + {6'd0, push} - {6'd0, pop};
    if (rst) f_fifo <= 7'd0;
end

reg f_busy = 1'b0;           // (model, below) a message is being sent

always @(*) begin
    assume (s_event_count == f_fifo);
    assume (s_event_valid == (f_fifo != 7'd0));
    assume (config_mtu >= 16'd200);
end

// The clock before, for the assumptions that look back (combinational, so that they also
// bind the induction's last step; an assumption in a clocked block is only checked a clock
// later)
reg         f_event_held = 1'b0;     // an event was shown and not popped
reg [295:0] f_event_before = 296'd0;
reg         f_busy_before = 1'b0;
reg [303:0] f_config_before = 304'd0;
wire [303:0] config_now = {config_destination_mac, config_source_mac, config_source_ip,
                           config_destination_ip, config_source_port, config_destination_port,
                           config_observation_domain, config_enterprise_number};
always @(posedge clk) begin
    f_event_held <= !rst && s_event_valid && !s_event_ready;
    f_event_before <= s_event;
    f_busy_before <= f_busy;
    f_config_before <= config_now;
end

always @(*) begin
    if (f_past_valid && f_event_held) assume (s_event == f_event_before);
    if (f_past_valid && f_busy_before && f_busy) assume (config_now == f_config_before);
end

// ---------------------------------------------------------------------------------------------
// Model

// IP total length of a message: 20 + 8 + 16 + 96T + (n ? 4 + 48n : 0)
function [15:0] ip_length_of;
    input       t;
    input [7:0] n;
    ip_length_of = 16'd44 + (t ? 16'd96 : 16'd0)
                 + (n != 8'd0 ? 16'd4 + 16'd48 * {8'd0, n} : 16'd0);
endfunction

// bytes of a beat, from tkeep (0: not contiguous from byte 0)
function [3:0] keep_bytes;
    input [7:0] keep;
    case (keep)
        8'h01: keep_bytes = 4'd1;
        8'h03: keep_bytes = 4'd2;
        8'h07: keep_bytes = 4'd3;
        8'h0f: keep_bytes = 4'd4;
        8'h1f: keep_bytes = 4'd5;
        8'h3f: keep_bytes = 4'd6;
        8'h7f: keep_bytes = 4'd7;
        8'hff: keep_bytes = 4'd8;
        default: keep_bytes = 4'd0;
    endcase
endfunction

wire send = dut_state == S_IDLE && dut_send_now;
wire handshake = m_axis_tvalid && m_axis_tready;
wire [3:0] beat_bytes = keep_bytes(m_axis_tkeep);
wire frame_done = f_busy && handshake && m_axis_tlast;

reg          f_first = 1'b0;   // the message's first clock
reg          f_t = 1'b0;       // the template goes
reg  [6:0]   f_n = 7'd0;       // records
reg  [6:0]   f_count = 7'd0;   // events waiting when it was decided
reg  [15:0]  f_mtu = 16'd0;
reg  [31:0]  f_export = 32'd0;
reg  [15:0]  f_in = 16'd0;     // frame bytes the packer has taken
reg  [15:0]  f_out = 16'd0;    // frame bytes taken out
reg  [15:0]  f_messages = 16'd0;   // frames sent (tlast taken)
reg  [31:0]  f_records = 32'd0;    // data records in the frames sent
reg  [6:0]   f_pops = 7'd0;        // events popped in this message
reg  [6:0]   f_record_pulses = 7'd0;
reg  [295:0] f_popped = 296'd0;    // the last event popped
reg  [15:0]  f_wpos = 16'd0;
reg  [7:0]   f_wbyte = 8'd0;
reg          f_stalled = 1'b0;     // (cover) a beat of this frame was held back
reg          f_timed_send = 1'b0;  // (cover) the message was sent before it was full

wire [15:0] ip_length = ip_length_of(f_t, {1'b0, f_n});
wire [15:0] f_total = 16'd14 + ip_length;
wire [15:0] f_plen = 16'd58 + (f_t ? 16'd96 : 16'd0) + (f_n != 7'd0 ? 16'd4 : 16'd0);
wire [6:0]  n_chosen = s_event_count < dut_max_records ? s_event_count : dut_max_records;

// the chunk the packer takes holds the watched byte: its value
reg        wtake;
reg [7:0]  wtake_byte;
integer i;
always @(*) begin
    wtake = 1'b0;
    wtake_byte = 8'd0;
    for (i = 0; i < 8; i = i + 1) begin
        if (f_wpos - f_in == i && i < dut_chunk_bytes) begin
            wtake = 1'b1;
            wtake_byte = dut_chunk_data[8*i +: 8];
        end
    end
end

always @(posedge clk) begin
    f_first <= send;
    if (send) begin
        f_busy <= 1'b1;
        f_t <= dut_template_due;
        f_n <= n_chosen;
        f_count <= s_event_count;
        f_mtu <= config_mtu;
        f_export <= tod_seconds;
        f_in <= 16'd0;
        f_out <= 16'd0;
        f_pops <= 7'd0;
        f_record_pulses <= 7'd0;
        f_wpos <= f_watch_pos;
        f_stalled <= 1'b0;
        f_timed_send <= s_event_count < dut_max_records && !dut_template_due;
    end else begin
        if (dut_take_chunk) f_in <= f_in + {12'd0, dut_chunk_bytes};
        if (handshake) f_out <= f_out + {12'd0, beat_bytes};
        if (pop) f_pops <= f_pops + 7'd1;
        if (count_record) f_record_pulses <= f_record_pulses + 7'd1;
        if (dut_take_chunk && wtake) f_wbyte <= wtake_byte;
        if (m_axis_tvalid && !m_axis_tready) f_stalled <= 1'b1;
    end
    if (pop) f_popped <= s_event;
    if (frame_done) begin
        f_busy <= 1'b0;
        f_messages <= f_messages + 16'd1;
        f_records <= f_records + {25'd0, f_n};
    end
    if (rst) begin
        f_busy <= 1'b0;
        f_first <= 1'b0;
        f_messages <= 16'd0;
        f_records <= 32'd0;
    end
end

// ---------------------------------------------------------------------------------------------
// The expected prefix, written from the block's header in frame byte order (byte 0 first, in
// the top bits), then turned to the RTL's layout (byte k in bits 8k+7..8k)

function [463:0] bytes_reversed_58;
    input [463:0] v;
    integer k;
    for (k = 0; k < 58; k = k + 1) bytes_reversed_58[8*k +: 8] = v[463-8*k -: 8];
endfunction

function [767:0] bytes_reversed_96;
    input [767:0] v;
    integer k;
    for (k = 0; k < 96; k = k + 1) bytes_reversed_96[8*k +: 8] = v[767-8*k -: 8];
endfunction

wire [463:0] expected_headers = bytes_reversed_58({
    config_destination_mac, config_source_mac, 16'h0800,
    8'h45, 8'h00, ip_length, f_messages, 16'h4000, 8'd64, 8'd17, 16'h0000,
    config_source_ip, config_destination_ip,
    config_source_port, config_destination_port, ip_length - 16'd20, 16'h0000,
    16'd10, ip_length - 16'd28, f_export, f_records, config_observation_domain});
// every bit but the checksum's (bytes 24..25)
wire [463:0] checksum_mask = ~({448'd0, 16'hffff} << (8*24));

wire [31:0] pen = config_enterprise_number;
wire [767:0] expected_template = bytes_reversed_96({
    16'd2, 16'd96,                     // set header
    16'd256, 16'd15,                   // template record header
    16'd325, 16'd8, 16'd8, 16'd4, 16'd12, 16'd4, 16'd4, 16'd1,
    16'd7, 16'd2, 16'd11, 16'd2, 16'd10, 16'd4, 16'd14, 16'd4,
    16'h8001, 16'd4, pen, 16'h8002, 16'd1, pen, 16'h8003, 16'd1, pen, 16'h8004, 16'd1, pen,
    16'h8005, 16'd4, pen, 16'h8006, 16'd4, pen, 16'h8007, 16'd4, pen});
wire [15:0] data_set_length = 16'd4 + 16'd48 * {9'd0, f_n};
wire [31:0] expected_data_set_header = {data_set_length[7:0], data_set_length[15:8],
                                        8'h00, 8'h01};


// ---------------------------------------------------------------------------------------------
// The watched byte out, and in the buffer

reg out_byte_ok;
reg buffer_byte_ok;
always @(*) begin
    out_byte_ok = 1'b1;
    for (i = 0; i < 8; i = i + 1)
        if (f_wpos - f_out == i && i < beat_bytes && m_axis_tdata[8*i +: 8] != f_wbyte)
            out_byte_ok = 1'b0;
    buffer_byte_ok = 1'b1;
    for (i = 0; i < 15; i = i + 1)
        if (f_wpos - f_out == i && f_wpos < f_in && dut_buffer[8*i +: 8] != f_wbyte)
            buffer_byte_ok = 1'b0;
end

// ---------------------------------------------------------------------------------------------
// Properties

wire [15:0] in_prefix_pos = {8'd0, dut_chunk, 3'd0};
wire [15:0] in_record_pos = f_plen + 16'd48 * {9'd0, f_n - dut_records_left}
                          + {8'd0, dut_chunk, 3'd0};

always @(*) begin
    if (f_past_valid && !rst) begin
quiet_between_frames: assert (f_busy || !m_axis_tvalid);
keep_contiguous: assert (!m_axis_tvalid || m_axis_tkeep == 8'hff
                         || (m_axis_tlast && beat_bytes != 4'd0));
tlast_at_length: assert (!m_axis_tvalid
                         || (beat_bytes != 4'd0 && f_out + {12'd0, beat_bytes} <= f_total
                             && m_axis_tlast == (f_out + {12'd0, beat_bytes} == f_total)));
byte_out_as_put: assert (!m_axis_tvalid || out_byte_ok);
n_within_limits: assert (!f_busy
                         || (f_n <= f_count && f_n <= 7'd64 && (f_t || f_n != 7'd0)
                             && ip_length <= f_mtu
                             && (f_n == f_count || f_n == 7'd64
                                 || ip_length_of(f_t, {1'b0, f_n} + 8'd1) > f_mtu)));
pop_when_valid: assert (!s_event_ready || s_event_valid);
pop_is_record_event: assert (!s_event_ready || s_event == dut_event_data);
        if (frame_done)
pops_per_message: assert (f_pops == f_n && !s_event_ready);
header_fields: assert (!f_busy || (dut_headers & checksum_mask) == expected_headers);
template_set: assert (!(f_busy && f_t) || dut_prefix[8*58 +: 768] == expected_template);
data_set_header: assert (!(f_busy && f_n != 7'd0)
                         || (f_t ? dut_prefix[8*154 +: 32] : dut_prefix[8*58 +: 32])
                            == expected_data_set_header);
prefix_length: assert (!f_busy || {8'd0, dut_prefix_bytes} == f_plen);
counters_at_start: assert (count_message == f_first && count_template == (f_first && f_t));
        if (frame_done)
records_counted: assert (f_record_pulses + {6'd0, count_record} == f_n);
    end
end

always @(posedge clk) begin
    if (f_past_valid && !$past(rst) && !rst && $past(m_axis_tvalid && !m_axis_tready))
beat_held: assert (m_axis_tvalid && m_axis_tdata == $past(m_axis_tdata)
                   && m_axis_tkeep == $past(m_axis_tkeep) && m_axis_tlast == $past(m_axis_tlast));
end

// Invariants for the induction
always @(*) begin
    if (f_past_valid && !rst) begin
inv_idle: assert (f_busy
                  ? (dut_state == S_PREFIX || dut_state == S_RECORD || dut_state == S_FLUSH)
                  : (dut_state == S_IDLE && dut_held == 4'd0 && !dut_flushing
                     && !s_event_ready && !count_record));
inv_message: assert (dut_messages == f_messages && dut_sequence_number == f_records
                     && (!f_busy || (dut_records == f_n && dut_with_template == f_t
                                     && dut_export_time == f_export)));
inv_first: assert (!f_first || (f_busy && dut_state == S_PREFIX));
inv_packer: assert (!f_busy || ({12'd0, dut_held} == f_in - f_out && f_out <= f_in
                                 && f_in <= f_total
                                 && dut_flushing == (dut_state == S_FLUSH)));
inv_prefix: assert (!(f_busy && dut_state == S_PREFIX)
                    || (f_in == in_prefix_pos && f_in < f_plen && dut_records_left == f_n
                        && f_pops == 7'd0 && !s_event_ready && f_record_pulses == 7'd0
                        && !count_record && f_fifo >= f_n));
inv_record: assert (!(f_busy && dut_state == S_RECORD)
                    || (dut_chunk <= 5'd5 && (!s_event_ready || dut_chunk == 5'd0)
                        && dut_records_left != 7'd0
                        && dut_records_left <= f_n && f_in == in_record_pos
                        && f_pops + {6'd0, s_event_ready} == f_n - dut_records_left + 7'd1
                        && f_record_pulses + {6'd0, count_record} == f_n - dut_records_left
                        && (s_event_ready || dut_event_data == f_popped)
                        && f_fifo >= dut_records_left - 7'd1 + {6'd0, s_event_ready}));
inv_flush: assert (!(f_busy && dut_state == S_FLUSH)
                   || (f_in == f_total && dut_records_left == 7'd0 && f_pops == f_n
                       && !s_event_ready && f_record_pulses + {6'd0, count_record} == f_n));
inv_watched: assert (!f_busy || buffer_byte_ok);
    end
end

// ---------------------------------------------------------------------------------------------
// Reachability

always @(*) begin
    if (f_past_valid && !rst) begin
cover_template_only: cover (frame_done && f_t && f_n == 7'd0);
cover_template_and_record_stalled: cover (frame_done && f_t && f_n == 7'd1 && f_stalled);
cover_second_frame_records: cover (frame_done && !f_t && f_n != 7'd0 && f_messages == 16'd1);
cover_second_message_without_template: cover (count_message && !f_t && f_messages == 16'd1);
    end
end

endmodule

`default_nettype wire
