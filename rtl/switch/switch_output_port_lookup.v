/*
 * switch_output_port_lookup: the learning L2 switch (docs/switch-architecture.md,
 * "switch_output_port_lookup"). Every frame leaves with its destination port mask and source
 * port in tuser, on every word, 3 clocks after it arrived; the table of stations is learned
 * from the source MACs, aged, and readable and writable by software.
 *
 *   s_axis --> P1 ---------> P2 -------------> P3 = m_axis     tuser = {source[2:0], mask[7:0]}
 *              |  compare     |  lowest hit,
 *              |  destination |  port -> mask
 *              |  with table  |
 *              '--> source MAC --> learn (one clock) --> table <-- ageing tick, software write
 *
 * Stream. One word per clock in and out while m_axis_tready is high; s_axis_tready is
 * m_axis_tready or an empty output register (the pipeline moves as a whole, bubbles included).
 * A word accepted in clock t is on m_axis in clock t+3 when the output never stalls. The words
 * go out exactly as they came in, filtered and too-short frames included: those carry mask 0,
 * so the output queues store them nowhere ("dropped"), and the stream stays intact. tuser is
 * taken from the frame's first word and held to its last; the source bits of s_axis_tuser
 * count on the first word only. s_axis_meta (META_WIDTH bits, an extension of tuser: the wire
 * timestamps of rtl/stamp/) goes the same way: the first word's value, on every word out.
 *
 * Frame bytes (byte k of the frame is byte k%8 of word k/8, bits 8(k%8)+7 : 8(k%8)):
 *
 *   word 0:  | DA0 DA1 DA2 DA3 DA4 DA5 | SA0 SA1 |      DA = destination MAC, bytes 0..5
 *   word 1:  | SA2 SA3 SA4 SA5 | ...                     SA = source MAC, bytes 6..11
 *
 * MAC addresses on the table ports are 48-bit numbers with the first byte on the wire in bits
 * 47:40 (aa:bb:cc:dd:ee:ff is 48'haabbccddeeff); the group bit is bit 40.
 *
 * Decision for a frame, made from its first word only (so it never waits for later words):
 * - shorter than 6 bytes (no whole DA): mask 0, counted in frames_too_short, not looked up;
 * - DA group address (broadcast included): flood = 8'hff & ~(1 << source), looked up, flooded;
 * - DA in a valid entry of port p: p == source ? mask 0, filtered : 1 << p; looked up;
 * - otherwise flood, looked up, flooded.
 * When several valid entries hold the DA (only software writes make such duplicates), the
 * lowest-index one counts, for lookup and learning alike.
 * Frames of 6..11 bytes are forwarded on their DA like any frame, but nothing is learned from
 * them (their SA is incomplete). Frames longer than 1514 bytes pass unchanged.
 *
 * Learning, from every frame of at least 12 bytes whose SA is unicast (bit 40 clear):
 * - a valid entry holds the SA: a dynamic one gets the frame's source port and age 0 (a move
 *   or a refresh, not counted), a static one is left alone;
 * - otherwise the SA goes into the lowest-index free entry, or when none is free, into the
 *   dynamic entry with the largest age (lowest index on a tie), as a dynamic entry of age 0,
 *   counted in entries_learned; when every entry is static, nothing is learned.
 *
 * Clock-by-clock contract (the harness's reference model follows it). Clock t+1 is the clock
 * after the edge that ends clock t; "the table in clock c" is its state before c's edge.
 * - The lookup of a frame uses the table in the clock after its first word's handshake.
 * - The learning from a frame uses the table in the clock after its second word's handshake,
 *   and changes it at that clock's edge. So frame n's learning is seen by frame n+1's lookup,
 *   even for back-to-back 2-word frames.
 * - Ageing ticks come every AGE_TICK_CYCLES clocks, in the clocks where a free-running counter,
 *   0 in the first clock after reset, reaches AGE_TICK_CYCLES-1. At a tick's edge each valid
 *   dynamic entry not written in that clock gets age min(age + 1, 2^AGE_WIDTH - 1), and is
 *   removed instead when config_ageing_time != 0 and that new age > config_ageing_time
 *   (counted in entries_aged_out). Static entries keep age 0.
 * - A software write (table_write) sets entry table_index at the clock's edge: valid, static,
 *   MAC and port from the table_* inputs, age 0. It takes precedence: a learning aimed at the
 *   same entry in the same clock is dropped, and a learning of table_mac is dropped when the
 *   write makes a valid entry of it in that clock (no duplicates from that race). Learning
 *   takes precedence over ageing for the entry it writes. table_index outside 0..TABLE_SIZE-1
 *   writes nothing.
 * - Read port: in clock c+1, table_read_* show entry table_index of clock c as the table was in
 *   clock c (a write in clock c is seen by a read in clock c+1, on the read port in c+2); all
 *   zeros for an index outside the table. For an entry that is not valid, only
 *   table_read_valid = 0 is meaningful. Reset empties the table.
 * - Counters (64-bit, wrap): a frame is counted at the edge that puts its first word on m_axis;
 *   learning and ageing at the edge that changes the table. A clear pulse zeroes a counter at
 *   the clock's edge and that clock's increment is added after the clear.
 *
 * The largest-age search over all entries would be a long comparator tree; instead each entry
 * keeps a row of bits "goes before entry j" (larger age, or equal age and lower index), updated
 * when an entry is written (age 0) and at ticks (where two saturating ages can become equal), so
 * the victim is a plain AND over its row.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module switch_output_port_lookup #(
    // Number of table entries (2 flip-flops per pair of entries for the replacement order, so
    // keep it small; 2..64)
    parameter TABLE_SIZE = 32,
    // Clock cycles per ageing tick (1 s at 125 MHz by default)
    parameter AGE_TICK_CYCLES = 125000000,
    // Width of an entry's age in ticks; ages saturate at 2^AGE_WIDTH - 1 (2..32)
    parameter AGE_WIDTH = 16,
    // Bits of metadata carried with each frame like tuser (at least 1)
    parameter META_WIDTH = 1
) (
    input  wire                 clk,
    input  wire                 rst,

    // From the input arbiter; tuser = source port
    input  wire [63:0]          s_axis_tdata,
    input  wire [7:0]           s_axis_tkeep,
    input  wire                 s_axis_tvalid,
    output wire                 s_axis_tready,
    input  wire                 s_axis_tlast,
    input  wire [2:0]           s_axis_tuser,
    // Metadata of the frame, read on its first word
    input  wire [META_WIDTH-1:0] s_axis_meta,

    // To the output queues; tuser = {source port[2:0], destination port mask[7:0]}
    output wire [63:0]          m_axis_tdata,
    output wire [7:0]           m_axis_tkeep,
    output wire                 m_axis_tvalid,
    input  wire                 m_axis_tready,
    output wire                 m_axis_tlast,
    output wire [10:0]          m_axis_tuser,
    // Metadata of the frame (its first word's s_axis_meta), on every word
    output wire [META_WIDTH-1:0] m_axis_meta,

    // Table access: a one-clock table_write pulse sets entry table_index; table_index also
    // selects the entry shown on the read side, one clock later
    input  wire                 table_write,
    input  wire [7:0]           table_index,
    input  wire [47:0]          table_mac,
    input  wire [2:0]           table_port,
    input  wire                 table_valid,
    input  wire                 table_static,
    output wire [47:0]          table_read_mac,
    output wire [2:0]           table_read_port,
    output wire                 table_read_valid,
    output wire                 table_read_static,
    output wire [AGE_WIDTH-1:0] table_read_age,

    // Configuration: dynamic entries older than this many ticks are removed; 0 = never
    input  wire [AGE_WIDTH-1:0] config_ageing_time,

    // Commands (one-clock pulses): clear one counter each
    input  wire                 command_clear_frames_looked_up,
    input  wire                 command_clear_frames_flooded,
    input  wire                 command_clear_frames_filtered,
    input  wire                 command_clear_frames_too_short,
    input  wire                 command_clear_entries_learned,
    input  wire                 command_clear_entries_aged_out,

    // Status counters
    output wire [63:0]          status_frames_looked_up,
    output wire [63:0]          status_frames_flooded,
    output wire [63:0]          status_frames_filtered,
    output wire [63:0]          status_frames_too_short,
    output wire [63:0]          status_entries_learned,
    output wire [63:0]          status_entries_aged_out
);

generate
    if (TABLE_SIZE < 2 || TABLE_SIZE > 64) begin : check_table_size
        switch_output_port_lookup_error_TABLE_SIZE_must_be_2_to_64 bad_parameter();
    end
    if (AGE_TICK_CYCLES < 1) begin : check_age_tick_cycles
        switch_output_port_lookup_error_AGE_TICK_CYCLES_must_be_at_least_1 bad_parameter();
    end
    if (AGE_WIDTH < 2 || AGE_WIDTH > 32) begin : check_age_width
        switch_output_port_lookup_error_AGE_WIDTH_must_be_2_to_32 bad_parameter();
    end
endgenerate

localparam N = TABLE_SIZE;
localparam [N-1:0] ONE_N = {{N-1{1'b0}}, 1'b1};
localparam [AGE_WIDTH-1:0] AGE_ONE = {{AGE_WIDTH-1{1'b0}}, 1'b1};
localparam [AGE_WIDTH-1:0] AGE_MAX = {AGE_WIDTH{1'b1}};
localparam [31:0] TICK_LAST = AGE_TICK_CYCLES - 1;
localparam [8:0] TABLE_SIZE_9 = TABLE_SIZE;

// Bits of an entry index
function integer index_width;
    input integer entries;
    begin
        index_width = 1;
        while ((1 << index_width) < entries) begin
            index_width = index_width + 1;
        end
    end
endfunction

localparam INDEX_WIDTH = index_width(N);

// An age after one tick: saturates at AGE_MAX
function [AGE_WIDTH-1:0] aged;
    input [AGE_WIDTH-1:0] age;
    begin
        aged = (age == AGE_MAX) ? AGE_MAX : age + AGE_ONE;
    end
endfunction

// Row `self` (one-hot) of the replacement order after this clock's edge. Ages after the edge:
// 0 for written entries, aged for ticked ones, unchanged otherwise. At a tick every dynamic
// entry not written ticks, so only two entries saturating together change their order, to
// equal; bits of entries that are not dynamic are never used.
function [N-1:0] order_row_next;
    input [N-1:0] row;
    input [N-1:0] self;
    input [N-1:0] written;
    input [N-1:0] ticked;
    input [N-1:0] age_zero;
    input [N-1:0] saturating;   // ticked and reaching AGE_MAX
    reg [N-1:0] earlier;        // entries j < self
    reg [N-1:0] later;          // entries j > self
    reg [N-1:0] both_saturate;
    reg [N-1:0] later_next;     // self >= j: larger or equal age
    reg [N-1:0] earlier_next;   // self > j: larger age
    reg         self_zero;      // self has age 0 after the edge
    begin
        earlier = self - ONE_N;
        later = ~(earlier | self);
        both_saturate = (saturating & self) != {N{1'b0}} ? saturating : {N{1'b0}};
        self_zero = (written & self) != {N{1'b0}}
            || ((age_zero & ~ticked & self) != {N{1'b0}});
        if ((written & self) != {N{1'b0}}) begin
            later_next = written | (age_zero & ~ticked);
            earlier_next = {N{1'b0}};
        end else begin
            later_next = written | row | both_saturate;
            earlier_next = (written & {N{!self_zero}}) | (~written & row & ~both_saturate);
        end
        order_row_next = (later_next & later) | (earlier_next & earlier) | self;
    end
endfunction

// Lowest set bit of a vector, as a one-hot vector (zero when none is set)
function [N-1:0] lowest_one;
    input [N-1:0] bits;
    begin
        lowest_one = bits & (~bits + ONE_N);
    end
endfunction

// The port of the entry selected by a one-hot vector
function [2:0] port_of;
    input [N-1:0] onehot;
    input [3*N-1:0] ports;
    integer k;
    begin
        port_of = 3'd0;
        for (k = 0; k < N; k = k + 1) begin
            port_of = port_of | (ports[3*k +: 3] & {3{onehot[k]}});
        end
    end
endfunction

function [6:0] count_ones;
    input [N-1:0] bits;
    integer k;
    begin
        count_ones = 7'd0;
        for (k = 0; k < N; k = k + 1) begin
            count_ones = count_ones + {6'd0, bits[k]};
        end
    end
endfunction

// MAC in table order (first byte on the wire in bits 47:40) from 6 bytes of a word
function [47:0] wire_to_mac;
    input [47:0] bytes;
    begin
        wire_to_mac = {bytes[7:0], bytes[15:8], bytes[23:16], bytes[31:24], bytes[39:32],
            bytes[47:40]};
    end
endfunction

// ---------------------------------------------------------------------------------------------
// Table state. Fields are words and arrays rather than one generate block per entry, and the
// per-entry logic below is evaluated only in the clocks that use it (a lookup, a learning, a
// tick, a full table): the hardware is the same, and a simulator (pktstats-sim) touches a few
// words per clock instead of rebuilding wide flattened vectors.

reg [N-1:0]         entry_valid_reg = {N{1'b0}};
reg [N-1:0]         entry_static_reg = {N{1'b0}};
reg [3*N-1:0]       entry_port_reg = {3*N{1'b0}};  // port of entry i in bits 3i+2:3i
// MAC and age are not reset: they mean nothing while an entry is not valid, and the write that
// makes it valid sets both.
reg [47:0]          entry_mac_reg [0:N-1];
reg [AGE_WIDTH-1:0] entry_age_reg [0:N-1];
// Replacement order, a word per entry: bit j of row i is 1 when entry i goes before entry j as a
// victim (larger age, or equal age and i < j); the diagonal is 1. Each pair is held twice (bit j
// of row i = !bit i of row j), N(N-1)/2 more flip-flops than a triangle, so that the victim is a
// plain AND over one row and no column is ever gathered. A write defines its entry's row and
// column whatever they held before, so the order needs no reset either.
reg [N-1:0]         order_reg [0:N-1];

wire [N-1:0]   entry_valid = entry_valid_reg;
wire [N-1:0]   entry_static = entry_static_reg;
wire [3*N-1:0] entry_port = entry_port_reg;

// Per entry: what happens at this clock's edge
wire [N-1:0] entry_written;   // by software or learning: age becomes 0
wire [N-1:0] entry_ticked;    // aged by this clock's tick
reg  [N-1:0] entry_expiring;  // removed by this clock's tick

wire [N-1:0] candidate = entry_valid & ~entry_static;  // entries learning may replace

// ---------------------------------------------------------------------------------------------
// Ageing tick

reg [31:0] tick_counter_reg = 32'd0;
wire tick = tick_counter_reg == TICK_LAST;

// ---------------------------------------------------------------------------------------------
// Pipeline P1 -> P2 -> P3; P3 is the output register. All stages move together on `advance`,
// when P3 can take a word.

reg [63:0] m_axis_tdata_reg = 64'd0;
reg [7:0]  m_axis_tkeep_reg = 8'd0;
reg        m_axis_tvalid_reg = 1'b0;
reg        m_axis_tlast_reg = 1'b0;
reg [2:0]  m_axis_source_reg = 3'd0;
reg [7:0]  m_axis_mask_reg = 8'd0;

wire advance = !m_axis_tvalid_reg || m_axis_tready;
wire in_handshake = s_axis_tvalid && advance;

// Input side: frame position, source MAC for learning

reg        in_frame_reg = 1'b0;         // the next input word is not a first word
reg        expect_second_reg = 1'b0;    // the next input word is a frame's second word
reg [2:0]  frame_source_reg = 3'd0;     // source port of the frame being received
reg [15:0] source_mac_high_reg = 16'd0; // SA bytes 0 and 1 (frame bytes 6, 7)

wire input_first = !in_frame_reg;

reg        learn_pending_reg = 1'b0;
reg [47:0] learn_mac_reg = 48'd0;
reg [2:0]  learn_port_reg = 3'd0;

// P1 and P2

reg        p1_valid_reg = 1'b0;
reg [63:0] p1_data_reg = 64'd0;
reg [7:0]  p1_keep_reg = 8'd0;
reg        p1_last_reg = 1'b0;
reg        p1_first_reg = 1'b0;
reg [2:0]  p1_source_reg = 3'd0;
reg [META_WIDTH-1:0] p1_meta_reg = {META_WIDTH{1'b0}};
// P1 took a first word at the last edge: this is its lookup clock
reg        p1_fresh_reg = 1'b0;
// Lookup of P1's first word, kept if the pipeline did not move in its lookup clock
reg [N-1:0]   held_hit_reg = {N{1'b0}};
reg [3*N-1:0] held_port_reg = {3*N{1'b0}};

reg           p2_valid_reg = 1'b0;
reg [63:0]    p2_data_reg = 64'd0;
reg [7:0]     p2_keep_reg = 8'd0;
reg           p2_last_reg = 1'b0;
reg           p2_first_reg = 1'b0;
reg [2:0]     p2_source_reg = 3'd0;
reg [META_WIDTH-1:0] p2_meta_reg = {META_WIDTH{1'b0}};
reg [META_WIDTH-1:0] m_axis_meta_reg = {META_WIDTH{1'b0}};
reg [N-1:0]   p2_hit_reg = {N{1'b0}};       // valid entries holding the DA
reg [3*N-1:0] p2_port_reg = {3*N{1'b0}};    // every entry's port in the lookup clock

assign s_axis_tready = advance;

assign m_axis_tdata = m_axis_tdata_reg;
assign m_axis_tkeep = m_axis_tkeep_reg;
assign m_axis_tvalid = m_axis_tvalid_reg;
assign m_axis_tlast = m_axis_tlast_reg;
assign m_axis_tuser = {m_axis_source_reg, m_axis_mask_reg};
assign m_axis_meta = m_axis_meta_reg;

// ---------------------------------------------------------------------------------------------
// Lookup clock: compare P1's DA with every entry

wire [47:0] destination_mac = wire_to_mac(p1_data_reg[47:0]);
reg  [N-1:0] destination_hit_now;  // evaluated in lookup clocks only (below)

wire [N-1:0]   lookup_hit = p1_fresh_reg ? destination_hit_now : held_hit_reg;
wire [3*N-1:0] lookup_port = p1_fresh_reg ? entry_port : held_port_reg;

// ---------------------------------------------------------------------------------------------
// Decision, in P2 (first words only)

wire [N-1:0] p2_hit_lowest = lowest_one(p2_hit_reg);
wire [2:0]   p2_hit_port = port_of(p2_hit_lowest, p2_port_reg);
wire         p2_has_destination = !(p2_last_reg && !p2_keep_reg[5]);
wire         p2_group = p2_data_reg[0];
wire [7:0]   p2_source_bit = 8'd1 << p2_source_reg;
wire [7:0]   p2_flood = 8'hff & ~p2_source_bit;

reg [7:0] decision_mask;
reg       decision_flooded;
reg       decision_filtered;

always @* begin
    decision_mask = 8'd0;
    decision_flooded = 1'b0;
    decision_filtered = 1'b0;
    if (!p2_has_destination) begin
        decision_mask = 8'd0;
    end else if (p2_group || p2_hit_reg == {N{1'b0}}) begin
        decision_mask = p2_flood;
        decision_flooded = 1'b1;
    end else if (p2_hit_port == p2_source_reg) begin
        decision_mask = 8'd0;
        decision_filtered = 1'b1;
    end else begin
        decision_mask = 8'd1 << p2_hit_port;
    end
end

wire frame_out = advance && p2_valid_reg && p2_first_reg;

// ---------------------------------------------------------------------------------------------
// Learning clock

reg  [N-1:0] source_hit;  // evaluated in learning clocks only (below)
wire [N-1:0] source_hit_lowest = lowest_one(source_hit);
wire         source_known = source_hit != {N{1'b0}};
wire         source_static = (source_hit_lowest & entry_static) != {N{1'b0}};

wire [N-1:0] free_lowest = lowest_one(~entry_valid);
wire         any_free = entry_valid != {N{1'b1}};

reg  [N-1:0] victim;  // one-hot, or 0 when there is no dynamic entry; only when full

wire software_write_valid = table_write && table_valid;
wire learn = learn_pending_reg && !(software_write_valid && table_mac == learn_mac_reg);
wire learn_refresh = learn && source_known && !source_static;
wire learn_insert = learn && !source_known && (any_free || candidate != {N{1'b0}});
wire [N-1:0] insert_target = any_free ? free_lowest : victim;
wire [N-1:0] learn_target = learn_refresh ? source_hit_lowest
    : learn_insert ? insert_target : {N{1'b0}};

wire                   software_write_in_table = table_write && {1'b0, table_index} < TABLE_SIZE_9;
wire [INDEX_WIDTH-1:0] software_write_index = table_index[INDEX_WIDTH-1:0];
wire [N-1:0] software_write_target = software_write_in_table ? ONE_N << software_write_index
    : {N{1'b0}};
wire [N-1:0] learn_write = learn_target & ~software_write_target;
wire learned = learn_insert && (insert_target & software_write_target) == {N{1'b0}};

assign entry_written = software_write_target | learn_write;

assign entry_ticked = tick ? candidate & ~entry_written : {N{1'b0}};

reg [INDEX_WIDTH-1:0] learn_index;  // of the one-hot learn_write
reg [N-1:0] entry_age_zero;         // the ages, when the order changes
reg [N-1:0] entry_age_near_max;     // age >= 2^AGE_WIDTH - 2: becomes the maximum at a tick
wire        order_changes = tick || entry_written != {N{1'b0}};

integer e;
always @* begin
    destination_hit_now = {N{1'b0}};
    if (p1_fresh_reg) begin
        for (e = 0; e < N; e = e + 1) begin
            destination_hit_now[e] = entry_valid[e] && entry_mac_reg[e] == destination_mac;
        end
    end
end

always @* begin
    source_hit = {N{1'b0}};
    if (learn_pending_reg) begin
        for (e = 0; e < N; e = e + 1) begin
            source_hit[e] = entry_valid[e] && entry_mac_reg[e] == learn_mac_reg;
        end
    end
end

// Victim: a dynamic entry that goes before every other dynamic entry
always @* begin
    victim = {N{1'b0}};
    if (!any_free) begin
        for (e = 0; e < N; e = e + 1) begin
            victim[e] = candidate[e] && (~candidate | order_reg[e]) == {N{1'b1}};
        end
    end
end

always @* begin
    learn_index = {INDEX_WIDTH{1'b0}};
    if (learn_write != {N{1'b0}}) begin
        for (e = 0; e < N; e = e + 1) begin
            if (learn_write[e]) begin
                learn_index = e[INDEX_WIDTH-1:0];
            end
        end
    end
end

always @* begin
    entry_expiring = {N{1'b0}};
    if (tick && config_ageing_time != {AGE_WIDTH{1'b0}}) begin
        for (e = 0; e < N; e = e + 1) begin
            entry_expiring[e] = entry_ticked[e] && aged(entry_age_reg[e]) > config_ageing_time;
        end
    end
end

always @* begin
    entry_age_zero = {N{1'b0}};
    entry_age_near_max = {N{1'b0}};
    if (order_changes) begin
        for (e = 0; e < N; e = e + 1) begin
            entry_age_zero[e] = entry_age_reg[e] == {AGE_WIDTH{1'b0}};
            entry_age_near_max[e] = entry_age_reg[e] >= AGE_MAX - AGE_ONE;
        end
    end
end

always @(posedge clk) begin
    if (tick) begin
        for (e = 0; e < N; e = e + 1) begin
            if (entry_ticked[e] && !entry_expiring[e]) begin
                entry_age_reg[e] <= aged(entry_age_reg[e]);
            end
        end
    end
    if (order_changes) begin
        for (e = 0; e < N; e = e + 1) begin
            order_reg[e] <= order_row_next(order_reg[e], ONE_N << e, entry_written,
                entry_ticked, entry_age_zero, entry_ticked & entry_age_near_max);
        end
    end

    // A software write takes precedence over learning, which takes precedence over ageing
    entry_valid_reg <= (entry_valid_reg & ~entry_written & ~entry_expiring) | learn_write
        | (software_write_target & {N{table_valid}});
    entry_static_reg <= (entry_static_reg & ~entry_written)
        | (software_write_target & {N{table_static}});
    if (learn_write != {N{1'b0}}) begin
        entry_mac_reg[learn_index] <= learn_mac_reg;
        entry_port_reg[3*learn_index +: 3] <= learn_port_reg;
        entry_age_reg[learn_index] <= {AGE_WIDTH{1'b0}};
    end
    if (software_write_in_table) begin
        entry_mac_reg[software_write_index] <= table_mac;
        entry_port_reg[3*software_write_index +: 3] <= table_port;
        entry_age_reg[software_write_index] <= {AGE_WIDTH{1'b0}};
    end

    if (rst) begin
        entry_valid_reg <= {N{1'b0}};
        entry_static_reg <= {N{1'b0}};
        entry_port_reg <= {3*N{1'b0}};
    end
end

// ---------------------------------------------------------------------------------------------
// Read port

reg [47:0]          table_read_mac_reg = 48'd0;
reg [2:0]           table_read_port_reg = 3'd0;
reg                 table_read_valid_reg = 1'b0;
reg                 table_read_static_reg = 1'b0;
reg [AGE_WIDTH-1:0] table_read_age_reg = {AGE_WIDTH{1'b0}};

wire                   read_in_table = {1'b0, table_index} < TABLE_SIZE_9;
wire [INDEX_WIDTH-1:0] read_index = table_index[INDEX_WIDTH-1:0];

assign table_read_mac = table_read_mac_reg;
assign table_read_port = table_read_port_reg;
assign table_read_valid = table_read_valid_reg;
assign table_read_static = table_read_static_reg;
assign table_read_age = table_read_age_reg;

// ---------------------------------------------------------------------------------------------
// Counters

reg [63:0] frames_looked_up_reg = 64'd0;
reg [63:0] frames_flooded_reg = 64'd0;
reg [63:0] frames_filtered_reg = 64'd0;
reg [63:0] frames_too_short_reg = 64'd0;
reg [63:0] entries_learned_reg = 64'd0;
reg [63:0] entries_aged_out_reg = 64'd0;

assign status_frames_looked_up = frames_looked_up_reg;
assign status_frames_flooded = frames_flooded_reg;
assign status_frames_filtered = frames_filtered_reg;
assign status_frames_too_short = frames_too_short_reg;
assign status_entries_learned = entries_learned_reg;
assign status_entries_aged_out = entries_aged_out_reg;

wire [6:0] aged_out_now = tick ? count_ones(entry_expiring) : 7'd0;

// ---------------------------------------------------------------------------------------------

always @(posedge clk) begin
    tick_counter_reg <= tick ? 32'd0 : tick_counter_reg + 32'd1;

    // Input side
    learn_pending_reg <= 1'b0;
    if (in_handshake) begin
        in_frame_reg <= !s_axis_tlast;
        expect_second_reg <= input_first && !s_axis_tlast;
        if (input_first) begin
            frame_source_reg <= s_axis_tuser;
            source_mac_high_reg <= {s_axis_tdata[55:48], s_axis_tdata[63:56]};
        end
        if (expect_second_reg) begin
            // A whole SA (bytes 8..11 present) that is not a group address
            learn_pending_reg <= (!s_axis_tlast || s_axis_tkeep[3]) && !source_mac_high_reg[8];
            learn_mac_reg <= {source_mac_high_reg, s_axis_tdata[7:0], s_axis_tdata[15:8],
                s_axis_tdata[23:16], s_axis_tdata[31:24]};
            learn_port_reg <= frame_source_reg;
        end
    end

    // Pipeline
    p1_fresh_reg <= in_handshake && input_first;
    if (p1_fresh_reg) begin
        held_hit_reg <= destination_hit_now;
        held_port_reg <= entry_port;
    end

    if (advance) begin
        p1_valid_reg <= s_axis_tvalid;
        p1_data_reg <= s_axis_tdata;
        p1_keep_reg <= s_axis_tkeep;
        p1_last_reg <= s_axis_tlast;
        p1_first_reg <= input_first;
        p1_source_reg <= s_axis_tuser;
        p1_meta_reg <= s_axis_meta;

        p2_valid_reg <= p1_valid_reg;
        p2_data_reg <= p1_data_reg;
        p2_keep_reg <= p1_keep_reg;
        p2_last_reg <= p1_last_reg;
        p2_first_reg <= p1_first_reg;
        p2_source_reg <= p1_source_reg;
        p2_meta_reg <= p1_meta_reg;
        p2_hit_reg <= lookup_hit;
        p2_port_reg <= lookup_port;

        m_axis_tvalid_reg <= p2_valid_reg;
        m_axis_tdata_reg <= p2_data_reg;
        m_axis_tkeep_reg <= p2_keep_reg;
        m_axis_tlast_reg <= p2_last_reg;
        if (p2_valid_reg && p2_first_reg) begin
            m_axis_source_reg <= p2_source_reg;
            m_axis_mask_reg <= decision_mask;
            m_axis_meta_reg <= p2_meta_reg;
        end
    end

    // Counters
    frames_looked_up_reg <= (command_clear_frames_looked_up ? 64'd0 : frames_looked_up_reg)
        + {63'd0, frame_out && p2_has_destination};
    frames_flooded_reg <= (command_clear_frames_flooded ? 64'd0 : frames_flooded_reg)
        + {63'd0, frame_out && decision_flooded};
    frames_filtered_reg <= (command_clear_frames_filtered ? 64'd0 : frames_filtered_reg)
        + {63'd0, frame_out && decision_filtered};
    frames_too_short_reg <= (command_clear_frames_too_short ? 64'd0 : frames_too_short_reg)
        + {63'd0, frame_out && !p2_has_destination};
    entries_learned_reg <= (command_clear_entries_learned ? 64'd0 : entries_learned_reg)
        + {63'd0, learned};
    entries_aged_out_reg <= (command_clear_entries_aged_out ? 64'd0 : entries_aged_out_reg)
        + {57'd0, aged_out_now};

    // Read port
    table_read_mac_reg <= read_in_table ? entry_mac_reg[read_index] : 48'd0;
    table_read_port_reg <= read_in_table ? entry_port[3*read_index +: 3] : 3'd0;
    table_read_valid_reg <= read_in_table && entry_valid[read_index];
    table_read_static_reg <= read_in_table && entry_static[read_index];
    table_read_age_reg <= read_in_table ? entry_age_reg[read_index] : {AGE_WIDTH{1'b0}};

    if (rst) begin
        tick_counter_reg <= 32'd0;
        in_frame_reg <= 1'b0;
        expect_second_reg <= 1'b0;
        frame_source_reg <= 3'd0;
        source_mac_high_reg <= 16'd0;
        learn_pending_reg <= 1'b0;
        learn_mac_reg <= 48'd0;
        learn_port_reg <= 3'd0;
        p1_valid_reg <= 1'b0;
        p1_fresh_reg <= 1'b0;
        p2_valid_reg <= 1'b0;
        m_axis_tvalid_reg <= 1'b0;
        m_axis_source_reg <= 3'd0;
        m_axis_mask_reg <= 8'd0;
        m_axis_meta_reg <= {META_WIDTH{1'b0}};
        frames_looked_up_reg <= 64'd0;
        frames_flooded_reg <= 64'd0;
        frames_filtered_reg <= 64'd0;
        frames_too_short_reg <= 64'd0;
        entries_learned_reg <= 64'd0;
        entries_aged_out_reg <= 64'd0;
        table_read_mac_reg <= 48'd0;
        table_read_port_reg <= 3'd0;
        table_read_valid_reg <= 1'b0;
        table_read_static_reg <= 1'b0;
        table_read_age_reg <= {AGE_WIDTH{1'b0}};
    end
end

endmodule

`resetall
