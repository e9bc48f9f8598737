/*
 * flowlat_table: the per-flow state of the flow-latency monitor and its events
 * (docs/flowlat.md). Takes one record per monitored frame (flowlat_tap's), finds its flow
 * group (the first of 16 rules its 5-tuple and egress port match), keeps the flow's state in a
 * 4-way set-associative table in block RAM and raises an event when the flow's latency profile
 * says so:
 *
 *   record --> match (rule, profile) --> hash of the 5-tuple (CRC-32, low SET_BITS bits)
 *          --> read the set's 4 ways --> the flow's way, or a free one, or a stale one
 *          --> update: count, last and largest residence, last seen; the profile's test
 *          --> write the way back; an event to m_event
 *
 * Four clocks per record (IDLE, READ, COMPARE, UPDATE). Rules (128 bits each, rule r in bits
 * 128r+127 : 128r: the registers rule_src_ip, rule_dst_ip, rule_ports and rule_control, lowest
 * word first, as flowlat_regs stores them), tried in index order (rule 0 first):
 *
 *   [31:0]    src_ip        [101:96]  src_length   prefix length 0..32 (0: any source; above
 *   [63:32]   dst_ip        [107:102] dst_length   32 taken as 32; the same for destinations)
 *   [79:64]   sport         [117]     sport_any
 *   [95:80]   dport         [118]     dport_any
 *   [115:108] protocol      [116]     protocol_any
 *   [123:120] egress_ports  the MAC ports whose departures it watches (bit i: port i)
 *   [126:124] profile       the latency profile of its flows
 *   [127]     valid         [119] 0
 *
 * The match is computed in the clock that takes a record, inside the branch that uses it (the
 * same logic as a combinational match beside the table; a simulator then evaluates it only
 * for records, not in every clock); so are the ways' comparison in COMPARE and the new entry
 * in UPDATE, the profile's test is made in UPDATE only, and the set is read in READ only (the
 * block RAMs' read enable). Profiles (128 bits each, profile p in
 * bits 128p+127 : 128p, the registers profile_high, profile_low, profile_min_interval_us and
 * profile_control): high[31:0], low[63:32], min_interval_us[95:64], stateful[96] (ns, signed
 * comparisons with the residence time):
 *   - stateless (stateful 0): an ABSOLUTE event (kind 1) when the residence exceeds high, and
 *     at least min_interval_us after the flow's previous ABSOLUTE event;
 *   - stateful: a HIGH event (kind 2) when the residence exceeds high and the flow is not in
 *     breach (it then is), a LOW event (kind 3) when it is below low while in breach (it then
 *     is not).
 *
 * A flow that is new takes a free way of its set, else a stale one (not seen for more than
 * idle_timeout_us: evicted, counted, also when it was in breach), else it is not monitored
 * (table_full). A flow keeps its way while it is seen; its group follows the rules as they
 * are when each frame passes. An event that finds m_event not ready is counted in
 * events_lost; the flow's state changes all the same.
 *
 * Entry (ENTRY_WIDTH = 271): [0] valid, [104:1] key, [108:105] group, [109] breach,
 * [141:110] last residence, [173:142] largest residence, [205:174] packets, [237:206] last
 * seen (us), [269:238] last ABSOLUTE event (us), [270] an ABSOLUTE event was sent.
 *
 * Event (296 bits) = {kind[1:0], group[3:0], profile[2:0], low[31:0], high[31:0],
 * record[222:0]}; the record's fields (flowlat_tap's layout): src_ip [31:0], dst_ip [63:32],
 * protocol [71:64], sport [87:72], dport [103:88], ingress [106:104], egress [108:107],
 * residence [140:109], tx_stamp [202:141], occupancy [222:203].
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module flowlat_table #(
    // log2 of the number of sets (4 ways each): 11 gives 8192 flows
    parameter SET_BITS = 11,
    // Clocks per microsecond (the flows' clock of last seen and event intervals)
    parameter CLOCKS_PER_US = 125
) (
    input  wire          clk,
    input  wire          rst,

    // Records of monitored frames (flowlat_tap's layout)
    input  wire [222:0]  s_record,
    input  wire          s_record_valid,
    output wire          s_record_ready,

    // Configuration
    input  wire          config_enable,          // 0: records are taken and ignored
    input  wire [16*128-1:0] config_rules,       // the rules, in the layout above
    input  wire [8*128-1:0]  config_profiles,
    input  wire [31:0]   config_idle_timeout_us,

    // Commands (one-clock pulses), taken when the table is idle: clear every flow (takes
    // 2^SET_BITS clocks; also done after reset), look a flow up by its key
    input  wire          command_clear,
    input  wire          command_lookup,
    input  wire [103:0]  lookup_key,             // {dport, sport, protocol, dst_ip, src_ip}

    // The lookup's answer, valid from lookup_done (a pulse) to the next lookup
    output reg           lookup_done = 1'b0,
    output wire          lookup_found,
    output wire [3:0]    lookup_group,
    output wire          lookup_breach,
    output wire [31:0]   lookup_last_residence,
    output wire [31:0]   lookup_max_residence,
    output wire [31:0]   lookup_packets,
    output wire [31:0]   lookup_last_seen_us,

    // Status: clearing (records wait), and the microsecond clock of the table
    output wire          status_clearing,
    output reg  [31:0]   now_us = 32'd0,

    // Events, pushed (m_event_valid, one clock) when m_event_ready
    output reg  [295:0]  m_event = 296'd0,
    output reg           m_event_valid = 1'b0,
    input  wire          m_event_ready,

    // One-clock pulses for the counters
    output reg           count_monitored = 1'b0,  // a record of a matched flow was counted
    output reg           count_unmatched = 1'b0,  // no rule matched
    output reg           count_table_full = 1'b0, // a new flow found no way
    output reg           count_evicted = 1'b0,    // a stale flow gave up its way
    output reg           count_evicted_in_breach = 1'b0,
    output reg           count_events = 1'b0,     // an event was pushed
    output reg           count_events_lost = 1'b0 // an event found m_event not ready
);

localparam SETS = 1 << SET_BITS;
localparam ENTRY_WIDTH = 271;
localparam [1:0] KIND_ABSOLUTE = 2'd1, KIND_HIGH = 2'd2, KIND_LOW = 2'd3;
localparam [2:0] S_CLEAR = 3'd0, S_IDLE = 3'd1, S_READ = 3'd2, S_COMPARE = 3'd3,
                 S_UPDATE = 3'd4;

// ---------------------------------------------------------------------------------------------
// The microsecond clock

reg [7:0] prescale = 8'd0;
always @(posedge clk) begin
    if (prescale == CLOCKS_PER_US - 1) begin
        prescale <= 8'd0;
        now_us <= now_us + 32'd1;
    end else begin
        prescale <= prescale + 8'd1;
    end
    if (rst) begin
        prescale <= 8'd0;
        now_us <= 32'd0;
    end
end

// ---------------------------------------------------------------------------------------------
// The set of a flow: the low SET_BITS bits of the CRC-32 (IEEE 802.3, reflected, as zlib's
// crc32) of its key's 13 bytes in network order: source address, destination address,
// protocol, source port, destination port

function [SET_BITS-1:0] set_of;
    input [103:0] key;
    reg   [103:0] bytes;  // byte 0 (first) in bits 7:0
    reg   [31:0]  crc;
    integer i;
    begin
        bytes = {key[95:88], key[103:96], key[79:72], key[87:80], key[71:64],
                 key[39:32], key[47:40], key[55:48], key[63:56],
                 key[7:0], key[15:8], key[23:16], key[31:24]};
        crc = 32'hffffffff;
        for (i = 0; i < 104; i = i + 1)
            crc = (crc[0] ^ bytes[i]) ? ((crc >> 1) ^ 32'hedb88320) : (crc >> 1);
        crc = ~crc;
        set_of = crc[SET_BITS-1:0];
    end
endfunction

reg [2:0] state = S_CLEAR;

// ---------------------------------------------------------------------------------------------
// The four ways

reg [ENTRY_WIDTH-1:0] way0[0:SETS-1];
reg [ENTRY_WIDTH-1:0] way1[0:SETS-1];
reg [ENTRY_WIDTH-1:0] way2[0:SETS-1];
reg [ENTRY_WIDTH-1:0] way3[0:SETS-1];
reg [ENTRY_WIDTH-1:0] read0 = {ENTRY_WIDTH{1'b0}}, read1 = {ENTRY_WIDTH{1'b0}},
                      read2 = {ENTRY_WIDTH{1'b0}}, read3 = {ENTRY_WIDTH{1'b0}};
reg [SET_BITS-1:0]    address = {SET_BITS{1'b0}};
reg [3:0]             write_ways = 4'd0;
reg [ENTRY_WIDTH-1:0] write_entry = {ENTRY_WIDTH{1'b0}};

// The set is read in READ only: COMPARE, the next state, is the only one that uses what is
// read (no write is pending then: the last was in the clock after UPDATE or CLEAR)
always @(posedge clk) begin
    if (state == S_READ) begin
        read0 <= way0[address];
        read1 <= way1[address];
        read2 <= way2[address];
        read3 <= way3[address];
    end
    if (write_ways[0]) way0[address] <= write_entry;
    if (write_ways[1]) way1[address] <= write_entry;
    if (write_ways[2]) way2[address] <= write_entry;
    if (write_ways[3]) way3[address] <= write_entry;
end

// ---------------------------------------------------------------------------------------------
// The record being handled

reg          clear_pending = 1'b0;
reg          lookup_pending = 1'b0;
reg  [103:0] pending_key = 104'd0;
reg          is_lookup = 1'b0;
reg  [222:0] record = 223'd0;
reg  [6:0]   rule = 7'd0;      // {group, profile}: the record's first matching rule's
wire [3:0]   group = rule[6:3];
wire [2:0]   profile = rule[2:0];

function [31:0] prefix_mask;
    input [5:0] length;
    prefix_mask = length == 6'd0 ? 32'd0 :
                  length >= 6'd32 ? 32'hffffffff : ~(32'hffffffff >> length);
endfunction

// The functions below read the rules and the ways read (config_rules, read0..read3) where
// they are, not as inputs: a cycle simulator (Verilator) gives each input of a function a
// variable of its own, cleared in every clock whether or not the function is called (2 048
// bits for the rules)

// Bit r: rule r matches the record's src_ip [31:0], dst_ip [63:32], protocol [71:64], sport
// [87:72], dport [103:88] and egress port [105:104]
function [15:0] rules_matched;
    input [105:0]      frame;
    integer r;
    begin
        for (r = 0; r < 16; r = r + 1) begin
            rules_matched[r] =
                config_rules[128*r + 127] &&
                ((frame[31:0] ^ config_rules[128*r +: 32]) &
                 prefix_mask(config_rules[128*r + 96 +: 6])) == 32'd0 &&
                ((frame[63:32] ^ config_rules[128*r + 32 +: 32]) &
                 prefix_mask(config_rules[128*r + 102 +: 6])) == 32'd0 &&
                (config_rules[128*r + 116] || frame[71:64] == config_rules[128*r + 108 +: 8]) &&
                (config_rules[128*r + 117] || frame[87:72] == config_rules[128*r + 64 +: 16]) &&
                (config_rules[128*r + 118] || frame[103:88] == config_rules[128*r + 80 +: 16]) &&
                config_rules[128*r + 120 + {30'd0, frame[105:104]}];
        end
    end
endfunction

// The first rule in index order among `matched`: {its index, its profile} (0 when none)
function [6:0] first_rule;
    input [15:0]       matched;
    integer r;
    begin
        first_rule = 7'd0;
        for (r = 15; r >= 0; r = r - 1) begin
            if (matched[r]) begin
                first_rule = {r[3:0], config_rules[128*r + 124 +: 3]};
            end
        end
    end
endfunction

assign s_record_ready = state == S_IDLE && !clear_pending && !lookup_pending;
assign status_clearing = state == S_CLEAR;

wire [103:0] key = record[103:0];
wire signed [31:0] residence = record[140:109];

// COMPARE: the set's ways against the flow. Functions of the ways read, called in the branch
// that uses them (a simulator then evaluates them only in COMPARE, not in every clock)

// valid, and last seen more than timeout ago
function way_stale;
    input         valid;
    input [31:0]  last_seen;
    input [31:0]  now;
    input [31:0]  timeout;
    way_stale = valid && now - last_seen > timeout;
endfunction

// The first of the ways whose bit is set (way 3 when none of 0..2 is)
function [1:0] first_of;
    input [2:0] bits;
    first_of = bits[0] ? 2'd0 : bits[1] ? 2'd1 : bits[2] ? 2'd2 : 2'd3;
endfunction

// The ways that hold the flow (bit w: way w; an entry's {key, valid} is its bits 104:0)
function [3:0] hits_of;
    input [103:0] flow;
    hits_of = {read3[0] && read3[104:1] == flow, read2[0] && read2[104:1] == flow,
               read1[0] && read1[104:1] == flow, read0[0] && read0[104:1] == flow};
endfunction

// The way for the update: the flow's own way, else a free one, else a stale one:
// {found, placed (found, or a new flow gets a way), evicting (the new flow takes a stale
// flow's way), the way, what the update needs of it (98 bits: last ABSOLUTE event and sent
// [270:238], packets and largest residence [205:142], breach [109])}
function [102:0] choice_of;
    input [103:0]     flow;
    input [31:0]      now;
    input [31:0]      timeout;
    reg   [3:0]       hits, frees, stales;
    reg   [1:0]       chosen;
    reg   [97:0]      entry_fields;
    begin
        hits = hits_of(flow);
        frees = {!read3[0], !read2[0], !read1[0], !read0[0]};
        stales = {way_stale(read3[0], read3[237:206], now, timeout),
                  way_stale(read2[0], read2[237:206], now, timeout),
                  way_stale(read1[0], read1[237:206], now, timeout),
                  way_stale(read0[0], read0[237:206], now, timeout)};
        chosen = |hits ? first_of(hits[2:0]) : |frees ? first_of(frees[2:0])
                                             : first_of(stales[2:0]);
        case (chosen)
            2'd0: entry_fields = {read0[270:238], read0[205:142], read0[109]};
            2'd1: entry_fields = {read1[270:238], read1[205:142], read1[109]};
            2'd2: entry_fields = {read2[270:238], read2[205:142], read2[109]};
            default: entry_fields = {read3[270:238], read3[205:142], read3[109]};
        endcase
        choice_of = {|hits, |(hits | frees | stales), !(|hits) && !(|frees) && |stales, chosen,
                     entry_fields};
    end
endfunction

// What a lookup shows: {found, the flow's way's bits 237:105 (group .. last seen)}
function [133:0] lookup_of;
    input [103:0]     flow;
    reg   [3:0]       hits;
    begin
        hits = hits_of(flow);
        case (first_of(hits[2:0]))
            2'd0: lookup_of = {|hits, read0[237:105]};
            2'd1: lookup_of = {|hits, read1[237:105]};
            2'd2: lookup_of = {|hits, read2[237:105]};
            default: lookup_of = {|hits, read3[237:105]};
        endcase
    end
endfunction

// The lookup's answer (lookup_of's layout; one register, so that a simulator calls lookup_of
// once, not once an output)
reg  [133:0] lookup_reg = 134'd0;
assign {lookup_found, lookup_last_seen_us, lookup_packets, lookup_max_residence,
        lookup_last_residence, lookup_breach, lookup_group} = lookup_reg;

// COMPARE's choice (choice_of's layout; one register, so that a simulator calls choice_of
// once, not once a field)
reg  [102:0] choice = 103'd0;
wire         found = choice[102];     // the flow's own way
wire         placed = choice[101];    // found, or a new flow got a way
wire         evicting = choice[100];  // the new flow takes a stale flow's way
wire [1:0]   way = choice[99:98];
// The fields of the chosen way the update needs
wire         old_event_sent = choice[97];
wire [31:0]  old_last_event = choice[96:65];
wire [31:0]  old_packets = choice[64:33];
wire [31:0]  old_max = choice[32:1];
wire         old_breach_bit = choice[0];

// UPDATE: the new entry and the event. The profile's test: {absolute, rises, falls} from the
// record's profile (high [31:0], low [63:32], min_interval_us [95:64], stateful [96]), the
// flow's old state and the record's residence; made in UPDATE only (0 otherwise, unused)
wire        old_breach = found && old_breach_bit;

function [2:0] outcome_of;
    input [96:0]        prof;
    input               old_breach_, event_sent;   // event_sent: found and sent
    input [31:0]        last_event, now;
    input signed [31:0] res;
    reg                 stateful;
    begin
        stateful = prof[96];
        outcome_of = {!stateful && res > $signed(prof[31:0]) &&
                          (!event_sent || now - last_event >= prof[95:64]),
                      stateful && !old_breach_ && res > $signed(prof[31:0]),
                      stateful && old_breach_ && res < $signed(prof[63:32])};
    end
endfunction

reg  [2:0] outcome;
wire       absolute = outcome[2];
wire       rises = outcome[1];
wire       falls = outcome[0];
always @* begin
    outcome = 3'd0;
    if (state == S_UPDATE)
        outcome = outcome_of(config_profiles[128*profile +: 97], old_breach,
                             found && old_event_sent, old_last_event, now_us, residence);
end
wire        breach = rises ? 1'b1 : falls ? 1'b0 : old_breach;
wire [1:0]  kind = absolute ? KIND_ABSOLUTE : rises ? KIND_HIGH : KIND_LOW;
wire        event_now = absolute || rises || falls;

// The updated entry (called in UPDATE)
function [ENTRY_WIDTH-1:0] updated_of;
    input        absolute_, found_, breach_, event_sent;
    input [31:0] last_event, packets, max, now;
    input [31:0] res;
    input [3:0]  group_;
    input [103:0] flow;
    updated_of = {
        absolute_ ? 1'b1 : found_ && event_sent,
        absolute_ ? now : (found_ ? last_event : 32'd0),
        now,
        (found_ ? packets : 32'd0) + 32'd1,
        (found_ && $signed(max) >= $signed(res)) ? max : res,
        res,
        breach_,
        group_,
        flow,
        1'b1};
endfunction

always @(posedge clk) begin
    write_ways <= 4'd0;
    lookup_done <= 1'b0;
    m_event_valid <= 1'b0;
    count_monitored <= 1'b0;
    count_unmatched <= 1'b0;
    count_table_full <= 1'b0;
    count_evicted <= 1'b0;
    count_evicted_in_breach <= 1'b0;
    count_events <= 1'b0;
    count_events_lost <= 1'b0;
    if (command_clear)
        clear_pending <= 1'b1;
    if (command_lookup) begin
        lookup_pending <= 1'b1;
        pending_key <= lookup_key;
    end

    case (state)
        S_CLEAR: begin
            // address counts through the sets; a write to it clears the set
            write_ways <= 4'b1111;
            write_entry <= {ENTRY_WIDTH{1'b0}};
            if (write_ways == 4'b1111) begin
                if (&address) begin
                    write_ways <= 4'd0;
                    state <= S_IDLE;
                end else begin
                    address <= address + 1'b1;
                end
            end
        end
        S_IDLE: begin
            if (clear_pending) begin
                clear_pending <= 1'b0;
                address <= {SET_BITS{1'b0}};
                state <= S_CLEAR;
            end else if (lookup_pending) begin
                lookup_pending <= 1'b0;
                is_lookup <= 1'b1;
                record <= {119'd0, pending_key};
                address <= set_of(pending_key);
                state <= S_READ;
            end else if (s_record_valid) begin
                if (!config_enable) begin
                    // taken and ignored
                end else if (rules_matched({s_record[108:107], s_record[103:0]}) == 16'd0) begin
                    count_unmatched <= 1'b1;
                end else begin
                    is_lookup <= 1'b0;
                    record <= s_record;
                    rule <= first_rule(rules_matched({s_record[108:107], s_record[103:0]}));
                    address <= set_of(s_record[103:0]);
                    state <= S_READ;
                end
            end
        end
        S_READ: state <= S_COMPARE;  // the ways of the set are read in this clock
        S_COMPARE: begin
            choice <= choice_of(key, now_us, config_idle_timeout_us);
            if (is_lookup) begin
                lookup_done <= 1'b1;
                lookup_reg <= lookup_of(key);
                state <= S_IDLE;
            end else begin
                state <= S_UPDATE;
            end
        end
        S_UPDATE: begin
            state <= S_IDLE;
            if (!placed) begin
                count_table_full <= 1'b1;
            end else begin
                count_monitored <= 1'b1;
                count_evicted <= evicting;
                count_evicted_in_breach <= evicting && old_breach_bit;
                write_ways <= 4'd1 << way;
                write_entry <= updated_of(absolute, found, breach, old_event_sent, old_last_event,
                                          old_packets, old_max, now_us, residence, group, key);
                if (event_now) begin
                    if (m_event_ready) begin
                        m_event_valid <= 1'b1;
                        m_event <= {kind, group, profile, config_profiles[128*profile +: 64],
                                    record};
                        count_events <= 1'b1;
                    end else begin
                        count_events_lost <= 1'b1;
                    end
                end
            end
        end
        default: state <= S_IDLE;
    endcase

    if (rst) begin
        state <= S_CLEAR;
        address <= {SET_BITS{1'b0}};
        write_ways <= 4'd0;
        clear_pending <= 1'b0;
        lookup_pending <= 1'b0;
        lookup_done <= 1'b0;
        m_event_valid <= 1'b0;
        count_monitored <= 1'b0;
        count_unmatched <= 1'b0;
        count_table_full <= 1'b0;
        count_evicted <= 1'b0;
        count_evicted_in_breach <= 1'b0;
        count_events <= 1'b0;
        count_events_lost <= 1'b0;
    end
end

endmodule

`resetall
