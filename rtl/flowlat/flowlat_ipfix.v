/*
 * flowlat_ipfix: the IPFIX exporter of the flow-latency monitor (RFC 7011, docs/flowlat.md).
 * Takes the monitor's events and sends them as IPFIX messages in Ethernet/IPv4/UDP frames
 * on an AXI4-Stream output (64 bits, byte k of a frame in byte k%8 of word k/8).
 *
 * A message is sent when the events waiting fill one (as many as the MTU allows, at most 64),
 * when one has waited flush_timeout_us (counted from the oldest, or from the previous
 * message when events were left over), or when the template is due (when export is enabled,
 * every template_interval_s seconds of the time of day, and on command): then with the
 * template set first. Frame, byte by byte (T: template set present, n records):
 *
 *    0  destination MAC        6  source MAC           12  0x0800
 *   14  0x45 0x00  total length = 28 + 16 + 96T + (n ? 4 + 48n : 0)
 *   18  identification (messages sent, low 16 bits)  20  0x4000 (DF)  22  TTL 64, UDP (17)
 *   24  header checksum        26  source IP           30  destination IP
 *   34  UDP source port        36  destination port    38  UDP length   40  checksum 0
 *   42  IPFIX version 10       44  length (UDP length - 8)
 *   46  export time (time of day, seconds)             50  sequence_number number (data records
 *   54  observation domain ID                              sent before this message)
 *   58  template set (T): set ID 2, length 96, template 256 with 15 fields:
 *         observationTimeNanoseconds (325, 8)  sourceIPv4Address (8, 4)
 *         destinationIPv4Address (12, 4)       protocolIdentifier (4, 1)
 *         sourceTransportPort (7, 2)           destinationTransportPort (11, 2)
 *         ingressInterface (10, 4)             egressInterface (14, 4)
 *         and, enterprise-specific (PEN), residence time ns (1, 4, signed), event kind (2, 1:
 *         1 absolute, 2 high, 3 low), flow group (3, 1), profile (4, 1), high (5, 4, ns),
 *         low (6, 4, ns), queue occupancy (7, 4)
 *   ..  data set (n > 0): set ID 256, length 4 + 48n, then n records of 48 bytes in the
 *       template's order; observationTimeNanoseconds is the frame's TX stamp in NTP format
 *       (seconds since 1900, 2^-32 s fraction)
 *
 * The time of day's seconds are taken as seconds since 1970 (UTC, as `pktstats time sync`
 * sets them); NTP's seconds are those plus 2 208 988 800, modulo 2^32.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module flowlat_ipfix #(
    // Clocks per microsecond (flush timeout)
    parameter CLOCKS_PER_US = 125
) (
    input  wire         clk,
    input  wire         rst,

    // Events (flowlat_table's layout), the oldest first, and how many wait
    input  wire [295:0] s_event,
    input  wire         s_event_valid,
    output reg          s_event_ready = 1'b0,
    input  wire [6:0]   s_event_count,

    // Time of day: seconds (low 32 bits): the messages' export time, the template's interval
    input  wire [31:0]  tod_seconds,

    // Configuration: export on, the headers, the observation domain, the PEN of the
    // enterprise IEs, the template's interval (s, 0: only at start and on command), the
    // transport MTU (bytes of IP packet, at least 200), the flush timeout (us)
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
    // One-clock pulse: send the template with the next message, now
    input  wire         command_send_template,

    // The frames
    output wire [63:0]  m_axis_tdata,
    output wire [7:0]   m_axis_tkeep,
    output wire         m_axis_tvalid,
    input  wire         m_axis_tready,
    output wire         m_axis_tlast,

    // One-clock pulses for the counters: a message started, one with the template, a data
    // record sent
    output reg          count_message = 1'b0,
    output reg          count_template = 1'b0,
    output reg          count_record = 1'b0
);

localparam [15:0] TEMPLATE_ID = 16'd256;
localparam [31:0] NTP_OFFSET = 32'd2208988800;  // 1970 - 1900 in seconds
// 2^83 / 10^9, rounded (down, by 0.398): nanoseconds times this, over 2^51, is the 2^-32 s
// fraction. 19 bits below the fraction's unit, so that the nearest is always found: the true
// fraction ns * 2^23 / 5^9 is never closer than 1 / (2 * 5^9) = 2.56e-7 of a unit to a half,
// and this constant is off by at most (10^9 - 1) * 0.398 / 2^51 = 1.77e-7 of a unit. (2^64 /
// 10^9 rounded, over 2^32, was off by up to 0.068 of a unit: about 3% of the fractions were
// rounded up where the nearest is below.)
localparam [53:0] FRACTION_PER_NS = 54'd9671406556917033;
localparam [2:0] S_IDLE = 3'd0, S_PREFIX = 3'd1, S_RECORD = 3'd2, S_FLUSH = 3'd3;

function [15:0] sum16;  // one's complement sum of two 16-bit words
    input [15:0] a;
    input [15:0] b;
    reg   [16:0] s;
    begin
        s = {1'b0, a} + {1'b0, b};
        sum16 = s[15:0] + {15'd0, s[16]};
    end
endfunction

// ---------------------------------------------------------------------------------------------
// When to send

reg        was_enabled = 1'b0;
reg        template_due = 1'b0;
reg [31:0] template_second = 32'd0;   // the time of day's second when it was last sent
reg [7:0]  prescale = 8'd0;
reg [31:0] waited_us = 32'd0;         // since the oldest waiting event came

reg  [2:0]  state = S_IDLE;

// Records per message: what the MTU leaves after IP, UDP, IPFIX headers, the data set's
// header and the template set when it goes, 48 bytes each, at most 64 (the event FIFO).
// Read only when a message may start (export on, idle): computed only then (0 otherwise), so
// that a simulator makes its divisions only then.
function [6:0] records_fitting;
    input [15:0] room;  // bytes
    reg   [15:0] fit;
    begin
        fit = room / 16'd48;
        records_fitting = fit > 16'd64 ? 7'd64 : fit[6:0];
    end
endfunction

reg  [6:0]  max_records;
always @* begin
    max_records = 7'd0;
    if (config_enable && was_enabled && state == S_IDLE)
        max_records = template_due
            ? records_fitting(config_mtu >= 16'd192 ? config_mtu - 16'd144 : 16'd48)
            : records_fitting(config_mtu >= 16'd96 ? config_mtu - 16'd48 : 16'd48);
end

wire        timed_out = s_event_valid && waited_us >= config_flush_timeout_us;
// Not in the clock export is enabled: the template is due from the next, and goes first
wire        send_now = config_enable && was_enabled &&
                       (template_due || s_event_count >= max_records || timed_out);

// ---------------------------------------------------------------------------------------------
// The message being sent

reg         with_template = 1'b0;
reg  [6:0]  records = 7'd0;        // in this message
reg  [6:0]  records_left = 7'd0;
reg  [4:0]  chunk = 5'd0;          // 8-byte chunk of the prefix or the record
reg  [15:0] messages = 16'd0;
reg  [31:0] sequence_number = 32'd0;      // data records sent before this message
reg  [31:0] export_time = 32'd0;

// The prefix and its fields, computed (below, with the chunk offered) while a message is being
// sent (not IDLE), the only clocks they are read (0 otherwise): a simulator then evaluates
// them only while sending
reg [15:0]      data_bytes;
reg [15:0]      ipfix_length;
reg [15:0]      udp_length;
reg [15:0]      ip_length;
reg [15:0]      ip_sum;
reg [58*8-1:0]  headers;
reg [96*8-1:0]  template_set;
reg [31:0]      data_set_header;
reg [160*8-1:0] prefix;
reg [7:0]       prefix_bytes;

// An enterprise field specifier: {IE | 0x8000, length, PEN}, 8 bytes in order
function [63:0] enterprise_field;
    input [7:0]  element;
    input [7:0]  length;
    input [31:0] pen;
    enterprise_field = {pen[7:0], pen[15:8], pen[23:16], pen[31:24], length, 8'h00, element,
                        8'h80};
endfunction

// A standard field specifier: {IE, length}, 4 bytes in order
function [31:0] field;
    input [15:0] element;
    input [7:0]  length;
    field = {length, 8'h00, element[7:0], element[15:8]};
endfunction

// The event being sent
reg  [295:0] event_data = 296'd0;

function [31:0] bytes4;  // a 32-bit value's bytes in order
    input [31:0] v;
    bytes4 = {v[7:0], v[15:8], v[23:16], v[31:24]};
endfunction

// Chunk `index` (8 bytes) of an event's record (48 bytes in order). A function called in the
// clock the chunk is offered (a simulator then evaluates it only while sending records).
function [63:0] record_chunk;
    input [295:0] event_;
    input [4:0]   index;
    reg   [83:0]  fraction_product;
    reg   [31:0]  ntp_fraction;
    reg           unused;
    reg   [48*8-1:0] record_bytes;
    begin
        // nanoseconds (event bits 170:141) as a 2^-32 s fraction: ns * 2^83 / 10^9, divided
        // by 2^51 rounded to the nearest (no ties: the true fraction is never a half, see
        // FRACTION_PER_NS)
        fraction_product = {54'd0, event_[170:141]} * {30'd0, FRACTION_PER_NS};
        ntp_fraction = fraction_product[82:51] + {31'd0, fraction_product[50]};
        unused = &{1'b0, fraction_product[83], fraction_product[49:0]};
        // occupancy, low, high, profile, group, kind, residence, egress, ingress, dport,
        // sport, protocol, dst_ip, src_ip, the NTP fraction and seconds (tx_seconds +
        // NTP_OFFSET)
        record_bytes = {
            bytes4({12'd0, event_[222:203]}), bytes4(event_[286:255]), bytes4(event_[254:223]),
            5'd0, event_[289:287], 4'd0, event_[293:290], 6'd0, event_[295:294],
            bytes4(event_[140:109]), bytes4({30'd0, event_[108:107]}),
            bytes4({29'd0, event_[106:104]}), event_[95:88], event_[103:96],
            event_[79:72], event_[87:80], event_[71:64], bytes4(event_[63:32]),
            bytes4(event_[31:0]), bytes4(ntp_fraction), bytes4(event_[202:171] + NTP_OFFSET)};
        record_chunk = record_bytes[64*index +: 64];
    end
endfunction

// ---------------------------------------------------------------------------------------------
// The byte packer: chunks of up to 8 bytes in, 64-bit words out

reg  [119:0] buffer = 120'd0;   // 15 bytes at most, the oldest in bits 7:0
reg  [3:0]   held = 4'd0;       // bytes in buffer
reg          flushing = 1'b0;   // all of the frame is in the buffer

assign m_axis_tvalid = held >= 4'd8 || (flushing && held != 4'd0);
assign m_axis_tdata = buffer[63:0];
assign m_axis_tkeep = held >= 4'd8 ? 8'hff : ~(8'hff << held);
assign m_axis_tlast = flushing && held <= 4'd8;

wire       word_out = m_axis_tvalid && m_axis_tready;
wire [3:0] kept = word_out ? (held >= 4'd8 ? held - 4'd8 : 4'd0) : held;

// The chunk offered in this clock, and whether the packer takes it (room for 8 more). In the
// block that computes the prefix, so that a simulator keeps the prefix as a temporary of this
// block (it is then not stored while idle).
reg  [63:0] chunk_data;
reg  [3:0]  chunk_bytes;
reg  [7:0]  prefix_left;
always @* begin
    data_bytes = 16'd0;
    ipfix_length = 16'd0;
    udp_length = 16'd0;
    ip_length = 16'd0;
    ip_sum = 16'd0;
    headers = {58*8{1'b0}};
    template_set = {96*8{1'b0}};
    data_set_header = 32'd0;
    prefix = {160*8{1'b0}};
    prefix_bytes = 8'd0;
    prefix_left = 8'd0;
    chunk_data = 64'd0;
    chunk_bytes = 4'd0;
    if (state != S_IDLE) begin
        data_bytes = records == 7'd0 ? 16'd0 : 16'd4 + {9'd0, records} * 16'd48;
        ipfix_length = 16'd16 + (with_template ? 16'd96 : 16'd0) + data_bytes;
        udp_length = ipfix_length + 16'd8;
        ip_length = udp_length + 16'd20;

        // IPv4 header checksum over the ten 16-bit words
        ip_sum = sum16(sum16(sum16(16'h4500, ip_length), sum16(messages, 16'h4000)),
                       sum16(sum16(16'h4011, sum16(config_source_ip[31:16],
                                                    config_source_ip[15:0])),
                             sum16(config_destination_ip[31:16],
                                   config_destination_ip[15:0])));

        // The prefix: headers (58 bytes), the template set (96) when it goes, the data set's
        // header (4) when records go; bytes in order, byte 0 in bits 7:0
        headers = {
            config_observation_domain[7:0], config_observation_domain[15:8],
            config_observation_domain[23:16], config_observation_domain[31:24],
            sequence_number[7:0], sequence_number[15:8], sequence_number[23:16],
            sequence_number[31:24],
            export_time[7:0], export_time[15:8], export_time[23:16], export_time[31:24],
            ipfix_length[7:0], ipfix_length[15:8], 8'h0a, 8'h00,
            16'h0000, udp_length[7:0], udp_length[15:8],
            config_destination_port[7:0], config_destination_port[15:8],
            config_source_port[7:0], config_source_port[15:8],
            config_destination_ip[7:0], config_destination_ip[15:8],
            config_destination_ip[23:16], config_destination_ip[31:24],
            config_source_ip[7:0], config_source_ip[15:8], config_source_ip[23:16],
            config_source_ip[31:24],
            ~ip_sum[7:0], ~ip_sum[15:8], 8'd17, 8'd64, 8'h00, 8'h40,
            messages[7:0], messages[15:8], ip_length[7:0], ip_length[15:8], 8'h00, 8'h45,
            8'h00, 8'h08,
            config_source_mac[7:0], config_source_mac[15:8], config_source_mac[23:16],
            config_source_mac[31:24], config_source_mac[39:32], config_source_mac[47:40],
            config_destination_mac[7:0], config_destination_mac[15:8],
            config_destination_mac[23:16], config_destination_mac[31:24],
            config_destination_mac[39:32], config_destination_mac[47:40]};

        template_set = {
            enterprise_field(8'd7, 8'd4, config_enterprise_number),
            enterprise_field(8'd6, 8'd4, config_enterprise_number),
            enterprise_field(8'd5, 8'd4, config_enterprise_number),
            enterprise_field(8'd4, 8'd1, config_enterprise_number),
            enterprise_field(8'd3, 8'd1, config_enterprise_number),
            enterprise_field(8'd2, 8'd1, config_enterprise_number),
            enterprise_field(8'd1, 8'd4, config_enterprise_number),
            field(16'd14, 8'd4), field(16'd10, 8'd4), field(16'd11, 8'd2), field(16'd7, 8'd2),
            field(16'd4, 8'd1), field(16'd12, 8'd4), field(16'd8, 8'd4), field(16'd325, 8'd8),
            8'd15, 8'd0, TEMPLATE_ID[7:0], TEMPLATE_ID[15:8],   // template record header
            8'd96, 8'd0, 8'd2, 8'd0};                            // set header: ID 2, length 96

        data_set_header = {data_bytes[7:0], data_bytes[15:8], TEMPLATE_ID[7:0],
                           TEMPLATE_ID[15:8]};

        // The prefix, 158 bytes at most (in 20 chunks of 8), and its length: 62, 154 or 158
        prefix = with_template
            ? (records != 7'd0 ? {16'd0, data_set_header, template_set, headers}
                               : {16'd0, 32'd0, template_set, headers})
            : {16'd0, 96'd0, 96'd0, 96'd0, 96'd0, 96'd0, 96'd0, 96'd0, 96'd0, data_set_header,
               headers};
        prefix_bytes = with_template ? (records != 7'd0 ? 8'd158 : 8'd154) : 8'd62;

        if (state == S_PREFIX) begin
            prefix_left = prefix_bytes - {chunk, 3'd0};
            chunk_data = prefix[64*chunk +: 64];
            chunk_bytes = prefix_left >= 8'd8 ? 4'd8 : prefix_left[3:0];
        end else if (state == S_RECORD) begin
            chunk_data = record_chunk(event_data, chunk);
            chunk_bytes = 4'd8;
        end
    end
end
wire take_chunk = chunk_bytes != 4'd0 && kept <= 4'd7;

// The buffer after a word out (shift) and a chunk of `bytes` taken in at byte `at` (take)
function [119:0] buffer_after;
    input [119:0] buffer_;
    input         shift;
    input         take;
    input [63:0]  data;
    input [3:0]   bytes;
    input [3:0]   at;
    reg   [119:0] shifted, placed, mask;
    begin
        shifted = shift ? {64'd0, buffer_[119:64]} : buffer_;
        placed = {56'd0, data} << {at, 3'b000};
        mask = ~({120{1'b1}} << {bytes, 3'b000}) << {at, 3'b000};
        buffer_after = take ? (shifted & ~mask) | (placed & mask) : shifted;
    end
endfunction

// The buffer changes only with a word out or a chunk in (a simulator then shifts it only then)
always @(posedge clk) begin
    if (word_out || take_chunk) begin
        buffer <= buffer_after(buffer, word_out, take_chunk, chunk_data, chunk_bytes, kept);
        held <= take_chunk ? kept + chunk_bytes : kept;
    end
    if (rst) begin
        held <= 4'd0;
    end
end

// ---------------------------------------------------------------------------------------------
// The sequence_number of a message

always @(posedge clk) begin
    s_event_ready <= 1'b0;
    count_message <= 1'b0;
    count_template <= 1'b0;
    count_record <= 1'b0;

    // the template is due when export starts, every interval, and on command
    was_enabled <= config_enable;
    if (config_enable && !was_enabled)
        template_due <= 1'b1;
    if (command_send_template)
        template_due <= 1'b1;
    if (config_enable && config_template_interval_s != 16'd0 &&
        tod_seconds - template_second >= {16'd0, config_template_interval_s})
        template_due <= 1'b1;

    // how long the oldest event has waited
    if (prescale == CLOCKS_PER_US - 1) begin
        prescale <= 8'd0;
        if (s_event_valid && waited_us != 32'hffffffff)
            waited_us <= waited_us + 32'd1;
    end else begin
        prescale <= prescale + 8'd1;
    end
    // the wait restarts with the FIFO empty, and when its last event is taken (an event that
    // arrives in that clock is the oldest from then on)
    if (!s_event_valid || (s_event_ready && s_event_count == 7'd1))
        waited_us <= 32'd0;

    case (state)
        S_IDLE: begin
            if (send_now) begin
                with_template <= template_due;
                records <= s_event_count < max_records ? s_event_count : max_records;
                records_left <= s_event_count < max_records ? s_event_count : max_records;
                export_time <= tod_seconds;
                waited_us <= 32'd0;
                chunk <= 5'd0;
                state <= S_PREFIX;
                count_message <= 1'b1;
                if (template_due) begin
                    template_due <= 1'b0;
                    template_second <= tod_seconds;
                    count_template <= 1'b1;
                end
            end
        end
        S_PREFIX: begin
            if (take_chunk) begin
                chunk <= chunk + 5'd1;
                if ({chunk, 3'd0} + 8'd8 >= prefix_bytes) begin
                    chunk <= 5'd0;
                    if (records_left != 7'd0) begin
                        // the first record: its event leaves the FIFO
                        event_data <= s_event;
                        s_event_ready <= 1'b1;
                        state <= S_RECORD;
                    end else begin
                        state <= S_FLUSH;
                        flushing <= 1'b1;
                    end
                end
            end
        end
        S_RECORD: begin
            if (take_chunk) begin
                chunk <= chunk + 5'd1;
                if (chunk == 5'd5) begin
                    chunk <= 5'd0;
                    count_record <= 1'b1;
                    records_left <= records_left - 7'd1;
                    if (records_left != 7'd1) begin
                        event_data <= s_event;
                        s_event_ready <= 1'b1;
                    end else begin
                        state <= S_FLUSH;
                        flushing <= 1'b1;
                    end
                end
            end
        end
        S_FLUSH: begin
            if (word_out && m_axis_tlast) begin
                flushing <= 1'b0;
                messages <= messages + 16'd1;
                sequence_number <= sequence_number + {25'd0, records};
                state <= S_IDLE;
            end
        end
        default: state <= S_IDLE;
    endcase

    if (rst) begin
        state <= S_IDLE;
        flushing <= 1'b0;
        template_due <= 1'b0;
        was_enabled <= 1'b0;
        waited_us <= 32'd0;
        prescale <= 8'd0;
        messages <= 16'd0;
        sequence_number <= 32'd0;
        s_event_ready <= 1'b0;
        count_message <= 1'b0;
        count_template <= 1'b0;
        count_record <= 1'b0;
    end
end

endmodule

`resetall
