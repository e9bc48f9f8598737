/*
 * evcap_serializer: turns records into the event slots of stat packets (format version 2) and
 * decides where each packet closes.
 *
 * Each clock it takes one action on the record at the head of the record FIFO: close the
 * packet, write a timestamp event (2 slots), write one or two short events of the record
 * (1 slot each), or drop a marker record. The packer part puts the slots into 64-bit words of
 * the packet ring, first slot in bits 31:0, at most one word per clock. A closed packet gets a
 * descriptor (sequence number, slot and event counts, M flag, resolution, queue-size snapshot)
 * that the packet output turns into the headers.
 *
 * Slots written into the ring:
 *
 *   timestamp event   31 30 29                              0
 *                    +-----+---------------------------------+
 *            slot 1  | 0 0 |        tick[61:32]              |
 *                    +-----+---------------------------------+
 *            slot 2  |              tick[31:0]               |
 *                    +---------------------------------------+
 *
 *   short event       31 30 29  27 26      19 18            0
 *                    +-----+------+----------+---------------+
 *                    | type|queue | length   |  gap (ticks)  |
 *                    +-----+------+----------+---------------+
 *                     type 1 arrival, 2 departure, 3 drop
 *
 * A packet opens with a timestamp of its first record, which also fixes the packet's queue-size
 * snapshot (the record's occupancies, sampled in the clock of that timestamp) and resolution.
 * The events of one queue in one clock (up to 3) always go into the same packet, so when a
 * clock's events are split over two packets, the snapshot of the second one takes, for each
 * queue, the occupancy after the clock if that queue's events went into the first packet, and
 * the occupancy before it otherwise: it is the true occupancy before the packet's events.
 * A short event's gap is the ticks since the previous event of the packet; when it does not fit
 * in 19 bits a timestamp event is written first and the gap becomes 0.
 *
 * Packets close when the next event does not fit in max_length, when the flush timeout
 * expires, and before a record flagged close_before or seq_reset (force flush, mask or
 * resolution change, disable, enable) or of another resolution.
 *
 * Clock-by-clock rules: docs/evcap-architecture.md, "Serializer".
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module evcap_serializer #(
    // Width of each queue's occupancy, in 64-bit words
    parameter QUEUE_SIZE_WIDTH = 20
) (
    input  wire                          clk,
    input  wire                          rst,

    // Record FIFO read side (head record)
    input  wire [61:0]                   s_record_tick,
    input  wire [2:0]                    s_record_resolution,
    input  wire [23:0]                   s_record_events,
    input  wire [24*8-1:0]               s_record_lengths,
    input  wire [8*QUEUE_SIZE_WIDTH-1:0] s_record_occupancy,
    input  wire [8*QUEUE_SIZE_WIDTH-1:0] s_record_occupancy_after,
    input  wire                          s_record_close_before,
    input  wire                          s_record_seq_reset,
    input  wire                          s_record_missed_before,
    input  wire                          s_record_valid,
    output wire                          s_record_ready,

    // Packet ring write side
    output wire [63:0]                   m_ring_data,
    output wire                          m_ring_valid,
    input  wire                          ring_full,

    // Descriptor FIFO write side
    output wire [31:0]                   m_descriptor_seq,
    output wire [11:0]                   m_descriptor_slots,
    output wire [11:0]                   m_descriptor_events,
    output wire                          m_descriptor_missed,
    output wire [2:0]                    m_descriptor_resolution,
    output wire [8*QUEUE_SIZE_WIDTH-1:0] m_descriptor_snapshot,
    output wire                          m_descriptor_valid,
    input  wire                          descriptor_fifo_full,

    // Configuration
    input  wire [15:0]                   config_max_length,
    input  wire [31:0]                   config_flush_timeout
);

localparam [2:0]
    ACTION_IDLE = 3'd0,
    ACTION_CLOSE = 3'd1,
    ACTION_POP = 3'd2,
    ACTION_TIMESTAMP = 3'd3,
    ACTION_EVENTS = 3'd4;

reg                          open_reg = 1'b0;
reg [11:0]                   used_reg = 12'd0;
reg [11:0]                   max_slots_reg = 12'd0;
reg [31:0]                   age_reg = 32'd0;
reg [61:0]                   prev_tick_reg = 62'd0;
reg [2:0]                    packet_resolution_reg = 3'd0;
reg [8*QUEUE_SIZE_WIDTH-1:0] snapshot_reg = {8*QUEUE_SIZE_WIDTH{1'b0}};
reg [11:0]                   n_events_reg = 12'd0;
reg                          m_flag_reg = 1'b0;
reg [31:0]                   seq_reg = 32'd0;
reg                          head_prepared_reg = 1'b0;
reg [23:0]                   done_reg = 24'd0;
reg                          ts_owed_reg = 1'b0;
reg                          half_valid_reg = 1'b0;
reg [31:0]                   half_reg = 32'd0;

// Head record: gap, next events in the fixed order

wire [61:0] gap = s_record_tick - prev_tick_reg;
wire gap_overflow = |gap[61:19];

wire [23:0] remaining = s_record_events & ~done_reg;
wire [23:0] e1_onehot = remaining & (~remaining + 24'd1);
wire [23:0] after_e1 = remaining & ~e1_onehot;
wire [23:0] e2_onehot = after_e1 & (~after_e1 + 24'd1);
wire [23:0] after_e2 = after_e1 & ~e2_onehot;

// The 3 event bits of the queue an event belongs to (its "group": a queue's events of one
// clock never straddle two packets)
function [23:0] group_of;
    input [23:0] onehot;
    integer q;
    begin
        group_of = 24'd0;
        for (q = 0; q < 8; q = q + 1) begin
            if (|onehot[3*q +: 3]) begin
                group_of[3*q +: 3] = 3'b111;
            end
        end
    end
endfunction

function [1:0] count3;
    input [2:0] bits;
    begin
        count3 = {1'b0, bits[0]} + {1'b0, bits[1]} + {1'b0, bits[2]};
    end
endfunction

// Events of a group not yet written, from the given event on (1..3)
function [1:0] group_rest;
    input [23:0] group;
    input [23:0] pending;
    integer q;
    begin
        group_rest = 2'd0;
        for (q = 0; q < 8; q = q + 1) begin
            if (group[3*q]) begin
                group_rest = count3(pending[3*q +: 3]);
            end
        end
    end
endfunction

wire [23:0] e1_group = group_of(e1_onehot);
wire [23:0] e2_group = group_of(e2_onehot);
wire [1:0]  e1_rest = group_rest(e1_group, remaining);
wire [1:0]  e2_rest = group_rest(e2_group, after_e1);
wire        e1_starts_group = (done_reg & e1_group) == 24'd0;
wire        e2_same_group = (e2_onehot & e1_group) != 24'd0;

// Short event slot for a one-hot event bit i = 3*queue + t: type t + 1, queue, length, gap
function [31:0] short_slot;
    input [23:0] onehot;
    input [24*8-1:0] lengths;
    input [18:0] slot_gap;
    integer i;
    reg [1:0] type_code;
    reg [2:0] queue;
    reg [7:0] length;
    begin
        type_code = 2'd0;
        queue = 3'd0;
        length = 8'd0;
        for (i = 0; i < 24; i = i + 1) begin
            if (onehot[i]) begin
                type_code = (i % 3 == 0) ? 2'd1 : (i % 3 == 1) ? 2'd2 : 2'd3;
                queue = {i / 3 >= 4, (i / 3) % 4 >= 2, (i / 3) % 2 == 1};
                length = lengths[8*i +: 8];
            end
        end
        short_slot = {type_code, queue, length, slot_gap};
    end
endfunction

wire [31:0] e1_slot = short_slot(e1_onehot, s_record_lengths, gap[18:0]);
wire [31:0] e2_slot = short_slot(e2_onehot, s_record_lengths, 19'd0);

// Action choice

wire [12:0] used_plus_1 = {1'b0, used_reg} + 13'd1;
wire [12:0] max_slots_13 = {1'b0, max_slots_reg};
// Room needed for the rest of e1's group, after a timestamp or not; for e2's group after e1
wire [12:0] used_after_e1_group = {1'b0, used_reg} + {11'd0, e1_rest};
wire [12:0] used_after_ts_group = used_after_e1_group + 13'd2;
wire [12:0] used_after_e2_group = used_plus_1 + {11'd0, e2_rest};

// The timeout waits for the event a timestamp was written for, and for the rest of a queue's
// events of the clock being written (a group never straddles two packets)
wire mid_group = s_record_valid && (done_reg & e1_group) != 24'd0;
wire timeout_close = open_reg && !ts_owed_reg && !mid_group && config_flush_timeout != 32'd0
    && age_reg >= config_flush_timeout;
wire head_close = s_record_valid && !head_prepared_reg && open_reg
    && (s_record_close_before || s_record_seq_reset || s_record_resolution != packet_resolution_reg);
wire needs_ts = !open_reg || gap_overflow;
wire marker = s_record_events == 24'd0;

reg [2:0] action;

always @* begin
    if (timeout_close || head_close) begin
        action = ACTION_CLOSE;
    end else if (!s_record_valid) begin
        action = ACTION_IDLE;
    end else if (marker) begin
        action = ACTION_POP;
    end else if (needs_ts) begin
        action = (open_reg && used_after_ts_group > max_slots_13) ? ACTION_CLOSE : ACTION_TIMESTAMP;
    end else begin
        action = (e1_starts_group && used_after_e1_group > max_slots_13) ? ACTION_CLOSE
            : ACTION_EVENTS;
    end
end

wire wait_for_room = (action != ACTION_IDLE && ring_full)
    || (action == ACTION_CLOSE && descriptor_fifo_full);
wire do_close = action == ACTION_CLOSE && !wait_for_room;
wire do_pop = action == ACTION_POP && !wait_for_room;
wire do_timestamp = action == ACTION_TIMESTAMP && !wait_for_room;
wire do_events = action == ACTION_EVENTS && !wait_for_room;

// Flags of a new head record take effect with its first non-close action
wire apply_flags = !head_prepared_reg && (do_pop || do_timestamp || do_events);

// Second short event of the same record, if it exists and its group fits
wire second = e2_onehot != 24'd0 && (e2_same_group || used_after_e2_group <= max_slots_13);
wire record_done = second ? after_e2 == 24'd0 : after_e1 == 24'd0;

// Packet limit in slots, latched when a packet opens: (clamp(max_length, 86, 9000) - 66) / 4,
// at least 5: a timestamp and a whole group.
// With L = 4a + b that is a - 17 + (b >= 2), which needs no divider or wide subtraction.
function [13:0] clamp_length;
    input [15:0] length;
    begin
        if (length < 16'd86) begin
            clamp_length = 14'd86;
        end else if (length > 16'd9000) begin
            clamp_length = 14'd9000;
        end else begin
            clamp_length = length[13:0];
        end
    end
endfunction

wire [13:0] max_length_clamped = clamp_length(config_max_length);
wire [11:0] max_slots_new = max_length_clamped[13:2] - 12'd17
    + {11'd0, max_length_clamped[1:0] >= 2'd2};

// Snapshot of a packet opening in the middle of a record: for each queue, the occupancy after
// the clock if its events went into the previous packet
reg [8*QUEUE_SIZE_WIDTH-1:0] snapshot_new;
integer sq;
always @* begin
    for (sq = 0; sq < 8; sq = sq + 1) begin
        snapshot_new[QUEUE_SIZE_WIDTH*sq +: QUEUE_SIZE_WIDTH] = (|done_reg[3*sq +: 3])
            ? s_record_occupancy_after[QUEUE_SIZE_WIDTH*sq +: QUEUE_SIZE_WIDTH]
            : s_record_occupancy[QUEUE_SIZE_WIDTH*sq +: QUEUE_SIZE_WIDTH];
    end
end

// Packer: slots emitted this clock
reg [1:0]  emit_count;
reg [31:0] emit_a;
reg [31:0] emit_b;

always @* begin
    emit_count = 2'd0;
    emit_a = e1_slot;
    emit_b = e2_slot;
    if (do_timestamp) begin
        emit_count = 2'd2;
        emit_a = {2'b00, s_record_tick[61:32]};
        emit_b = s_record_tick[31:0];
    end else if (do_events) begin
        emit_count = second ? 2'd2 : 2'd1;
    end
end

reg [63:0] ring_word;
reg        ring_write;

always @* begin
    ring_word = {emit_b, emit_a};
    ring_write = 1'b0;
    if (do_close) begin
        ring_word = {32'd0, half_reg};
        ring_write = half_valid_reg;
    end else if (emit_count == 2'd1) begin
        ring_word = {emit_a, half_reg};
        ring_write = half_valid_reg;
    end else if (emit_count == 2'd2) begin
        ring_word = half_valid_reg ? {emit_a, half_reg} : {emit_b, emit_a};
        ring_write = 1'b1;
    end
end

assign m_ring_data = ring_word;
assign m_ring_valid = ring_write;

assign s_record_ready = do_pop || (do_events && record_done);

assign m_descriptor_seq = seq_reg;
assign m_descriptor_slots = used_reg;
assign m_descriptor_events = n_events_reg;
assign m_descriptor_missed = m_flag_reg;
assign m_descriptor_resolution = packet_resolution_reg;
assign m_descriptor_snapshot = snapshot_reg;
assign m_descriptor_valid = do_close;

always @(posedge clk) begin
    // Half-word carry of the packer
    if (do_close) begin
        half_valid_reg <= 1'b0;
    end else if (emit_count == 2'd1) begin
        half_valid_reg <= !half_valid_reg;
        if (!half_valid_reg) begin
            half_reg <= emit_a;
        end
    end else if (emit_count == 2'd2 && half_valid_reg) begin
        half_reg <= emit_b;
    end

    // Flags of a new head record
    if (apply_flags) begin
        if (s_record_seq_reset) begin
            seq_reg <= 32'd0;
        end
        m_flag_reg <= (m_flag_reg && !s_record_seq_reset) || s_record_missed_before;
        head_prepared_reg <= 1'b1;
    end

    // Packet age, counted while open
    if (do_timestamp && !open_reg) begin
        age_reg <= 32'd0;
    end else if (open_reg && !do_close) begin
        if (age_reg != 32'hffffffff) begin
            age_reg <= age_reg + 32'd1;
        end
    end else begin
        age_reg <= 32'd0;
    end

    if (do_close) begin
        seq_reg <= seq_reg + 32'd1;
        m_flag_reg <= 1'b0;
        open_reg <= 1'b0;
    end

    if (do_pop) begin
        head_prepared_reg <= 1'b0;
        done_reg <= 24'd0;
    end

    if (do_timestamp) begin
        if (!open_reg) begin
            open_reg <= 1'b1;
            used_reg <= 12'd2;
            n_events_reg <= 12'd0;
            max_slots_reg <= max_slots_new;
            snapshot_reg <= snapshot_new;
            packet_resolution_reg <= s_record_resolution;
        end else begin
            used_reg <= used_reg + 12'd2;
        end
        prev_tick_reg <= s_record_tick;
        ts_owed_reg <= 1'b1;
    end

    if (do_events) begin
        used_reg <= used_reg + (second ? 12'd2 : 12'd1);
        n_events_reg <= n_events_reg + (second ? 12'd2 : 12'd1);
        prev_tick_reg <= s_record_tick;
        ts_owed_reg <= 1'b0;
        if (record_done) begin
            done_reg <= 24'd0;
            head_prepared_reg <= 1'b0;
        end else begin
            done_reg <= done_reg | e1_onehot | (second ? e2_onehot : 24'd0);
        end
    end

    if (rst) begin
        open_reg <= 1'b0;
        used_reg <= 12'd0;
        max_slots_reg <= 12'd0;
        age_reg <= 32'd0;
        prev_tick_reg <= 62'd0;
        packet_resolution_reg <= 3'd0;
        snapshot_reg <= {8*QUEUE_SIZE_WIDTH{1'b0}};
        n_events_reg <= 12'd0;
        m_flag_reg <= 1'b0;
        seq_reg <= 32'd0;
        head_prepared_reg <= 1'b0;
        done_reg <= 24'd0;
        ts_owed_reg <= 1'b0;
        half_valid_reg <= 1'b0;
        half_reg <= 32'd0;
    end
end

endmodule

`resetall
