// SPDX-License-Identifier: BSD-3-Clause
/*
 * evcap_serializer_formal: the event capture's serializer (rtl/evcap/evcap_serializer.v) builds
 * stat packets (format version 2, ../shared/design.md and docs/packet-format.md) as its header
 * and docs/evcap-architecture.md ("Serializer") promise, for every input sequence, by
 * k-induction.
 *
 * Instance: QUEUE_SIZE_WIDTH = 2 (the occupancies are only copied into the snapshot).
 *
 * Assumed (the record FIFO's read side, an evcap_fifo, and nothing else):
 *   - reset in the first clock only;
 *   - a head record offered (s_record_valid) and not taken (s_record_ready) is offered again in
 *     the next clock with every field unchanged (the FIFO's output register changes only when
 *     popped). After a pop, the next record is free, and s_record_valid may drop.
 * Everything else is free in every clock: the records' contents (ticks in any order, markers,
 * any flags, events of any queues), ring_full, descriptor_fifo_full, config_max_length (any
 * value: the RTL clamps it), config_flush_timeout, and the checker's own choices (f_pick_watch,
 * and the watched event's queue and type, fixed from the first clock).
 *
 * The checker reads the packets off the outputs as the packet output does: a packet is the
 * ring words written since the previous descriptor (m_descriptor_valid), the descriptor's own
 * clock included (the close writes the packer's last half word, one slot in bits 31:0). It
 * decodes the slots in order (first slot in bits 31:0): a slot with 00 in bits 31:30 is the
 * first slot of a timestamp event and the next slot its second; any other is a short event.
 *
 * Proved, each a labelled assertion:
 *   1. Every packet begins with a timestamp event
 *     - packet_starts_with_timestamp: the first ring word of every packet is the timestamp
 *       event {tick[31:0], 2'b00, tick[61:32]} of the record at the head in that clock (slot 1
 *       = 00 and tick bits 61:32, slot 2 = tick bits 31:0), and a descriptor only comes after
 *       its packet's first word (no packet without its timestamp);
 *   2. Sequence numbers
 *     - seq_consecutive: the descriptors carry 0, 1, 2, ... (mod 2^32) from reset, +1 per
 *       packet, never skipping or repeating; a record flagged seq_reset (capture enabled)
 *       restarts the numbering: the first packet holding its events (or the next packet after
 *       it, for a marker) has number 0. That record's start is seen on the outputs: it closes
 *       any open packet first, so its first action is a packet's opening timestamp (a ring word
 *       without a descriptor) or, for a marker, its pop. Asserted in every clock on
 *       m_descriptor_seq (a register: the number of the packet being built), which implies it
 *       at each descriptor and needs no invariant of its own, so that a wrong number is
 *       reported as this property from the clock it goes wrong;
 *   3. The rest of the header's promises
 *     - lengths_consistent: the descriptor's slot count is the number of slots written into the
 *       ring for the packet, so the packet output reads exactly ceil(slots / 2) words (the last
 *       word, with one slot, only when the count is odd), and the packet does not end between
 *       the two slots of a timestamp;
 *     - events_count: the descriptor's event count is the number of short events in the
 *       packet's slots, and at least 1 (a stat packet always carries an event);
 *     - within_max_length: the packet's IP total length, 66 + 4 x slots, is at most
 *       clamp(max_length, 86, 9000) as sampled when the packet opened;
 *     - events_conserved: no event lost or duplicated between the records and the ring: the
 *       events of the records taken plus those of the head already written (the RTL's done
 *       bits, linked) equal the short events written into the ring plus the one waiting in the
 *       packer's half word (16-bit modular counts);
 *     - m_flag: the descriptor's M flag (asserted in every clock, like the sequence number) is
 *       set exactly when a record with missed_before had its flags take effect since the
 *       previous close (docs: the head's flags are applied with its first action other than
 *       a close; seq_reset clears a loss seen before it, as a new capture starts clean). The
 *       instant of "take effect" is the RTL's apply_flags (linked: not visible on the outputs
 *       when that action is one event kept in the packer's half word),
 *       tied to the outputs by flags_applied_first: a record's flags have taken effect no later
 *       than its first ring word or its pop, and only while it is the head and once;
 *     - m_flag_has_cause (outputs only): M is set only if a record with missed_before was at
 *       the head since the previous descriptor;
 *     - packet_fields (while the packet is open, so at its descriptor): the descriptor's
 *       resolution is that of the record whose timestamp opened the packet, and its snapshot
 *       that record's occupancy per queue (after its clock for a queue whose events went into
 *       the previous packet, docs/evcap-architecture.md), sampled in the opening clock;
 *     - word_of_packet_resolution: every later ring word of the packet is written while a
 *       record of that resolution is at the head (each packet has one meaning);
 *   4. The short events' contents (a watched event: the solver picks any event of any record, so
 *      every one is checked). The docs' order fixes which slot is whose: the head's events are
 *      written lowest bit first (queue, then arrival, departure, drop), so when event e of the
 *      head is the next to be written (e1: the lowest not yet written, from the done bits whose
 *      prefix shape and number inv_done and events_conserved prove), its slot is the next short
 *      event on the ring after the one waiting in the packer's half word, if any;
 *     - short_event_fields: that slot carries type t + 1, queue q (e = 3q + t) and the record's
 *       length of event e: each short event is the right event, in the documented order (a
 *       swapped or skipped event puts another type or queue at that place);
 *     - short_event_gap: its gap brings the packet's time (decoded off the ring as a receiver
 *       does: a timestamp event sets it, each short event adds its gap) to the record's tick,
 *       exactly (so the gap fits in 19 bits, else a timestamp was owed), and is 0 right after a
 *       timestamp event: the gap is the ticks since the previous event of the packet, and a
 *       timestamp inside a packet carries the tick of the record it is written for;
 *   5. The close rules (docs, "Serializer", rules 1 to 3), evaluated on the packet read off the
 *      ring: its age (0 in the clock its first word is written, +1 per clock, saturating), its
 *      slots (the half word included), the time of its last slot and whether that slot ends a
 *      timestamp, with the head's next event e1 and the events of e1's queue group not yet
 *      written (rest1). A close is due when: the flush timeout is nonzero, age >= timeout, the
 *      last slot is not a timestamp and the head is not inside a queue group; or the head is
 *      valid, its flags not yet applied (the RTL's head_prepared, linked, as for m_flag) and it
 *      has close_before, seq_reset or another resolution than the packet; or the head has events
 *      and its next group does not fit in (clamp(max_length) - 66) / 4 slots (with a timestamp,
 *      2 slots more, when its tick is 2^19 or more ticks after the packet's last slot);
 *     - close_only_for_reason: a descriptor comes only while a packet is open and a close is due;
 *     - close_when_due: an open packet with a close due, ring_full and descriptor_fifo_full low,
 *       is closed in that clock (so no packet stays open past its timeout but for backpressure,
 *       or lets a flagged record or a group that does not fit in);
 *     - ready_only_when_valid, no_ring_write_when_full, no_descriptor_when_full,
 *       no_pop_with_close: s_record_ready only with s_record_valid; no ring word while
 *       ring_full, no descriptor while descriptor_fifo_full; no pop in a close's clock.
 *   Invariants for the induction (inv_*; proof.toml links) tie the RTL's packet state to the
 *   checker's: open = a first word written and no descriptor since; used and n_events = the
 *   checker's slots and short events plus the packer's half word, the half word a short event
 *   or a timestamp's second slot; max_slots = (clamp(max_length) - 66) / 4 of the opening
 *   clock, used <= max_slots, n_events + 2 <= used; a head acted on is the one offered in the
 *   clock before, its done bits are the lowest of its events (the fixed order), the gap is
 *   from its tick; after a timestamp (ts_owed) and inside a queue's group the rest of the
 *   group fits, so no packet closes without an event; the checker's packet age is the RTL's
 *   (inv_age); the time of the packet's last slot is the RTL's prev_tick and "last slot is a
 *   timestamp" its ts_owed, a short event in the half word after a timestamp has gap 0
 *   (inv_time); a watched event not written yet is the head's e1 and comes after the half word
 *   (inv_watch_head), one written but not on the ring is the half word (inv_watch_half).
 *   The induction closes at k = 2.
 *
 * Covers (from reset, within cover_depth): two packets back to back (the second opened in
 * the clock after the first closed), a head stalled by ring_full, a close stalled by
 * descriptor_fifo_full, a record split over two packets, an odd packet (the close writes the
 * half word), a timestamp inside a packet (a gap beyond 19 bits), the numbering restarted by
 * seq_reset, a packet with M, a close by the flush timeout, a watched event with a nonzero
 * gap, a close because the next group does not fit, a close before a flagged record.
 *
 * Not proved: that a packet closes within a bounded time (ring_full or descriptor_fifo_full may
 * hold it open forever: backpressure, the environment's); the close rules and the watched event
 * use the docs' state done, half word and head_prepared through links (tied to the ring by the
 * invariants and events_conserved, not re-derived from the outputs alone).
 */

`default_nettype none

module evcap_serializer_formal (
    input  wire            clk,
    input  wire            rst,
    input  wire [61:0]     s_record_tick,
    input  wire [2:0]      s_record_resolution,
    input  wire [23:0]     s_record_events,
    input  wire [24*8-1:0] s_record_lengths,
    input  wire [8*2-1:0]  s_record_occupancy,
    input  wire [8*2-1:0]  s_record_occupancy_after,
    input  wire            s_record_close_before,
    input  wire            s_record_seq_reset,
    input  wire            s_record_missed_before,
    input  wire            s_record_valid,
    input  wire            ring_full,
    input  wire            descriptor_fifo_full,
    input  wire [15:0]     config_max_length,
    input  wire [31:0]     config_flush_timeout,
    input  wire            f_pick_watch     // free choice: watch an event of this new head
);

localparam QW = 2;  // QUEUE_SIZE_WIDTH

wire            s_record_ready;
wire [63:0]     m_ring_data;
wire            m_ring_valid;
wire [31:0]     m_descriptor_seq;
wire [11:0]     m_descriptor_slots;
wire [11:0]     m_descriptor_events;
wire            m_descriptor_missed;
wire [2:0]      m_descriptor_resolution;
wire [8*QW-1:0] m_descriptor_snapshot;
wire            m_descriptor_valid;

evcap_serializer #(
    .QUEUE_SIZE_WIDTH(QW)
) dut (
    .clk(clk),
    .rst(rst),
    .s_record_tick(s_record_tick),
    .s_record_resolution(s_record_resolution),
    .s_record_events(s_record_events),
    .s_record_lengths(s_record_lengths),
    .s_record_occupancy(s_record_occupancy),
    .s_record_occupancy_after(s_record_occupancy_after),
    .s_record_close_before(s_record_close_before),
    .s_record_seq_reset(s_record_seq_reset),
    .s_record_missed_before(s_record_missed_before),
    .s_record_valid(s_record_valid),
    .s_record_ready(s_record_ready),
    .m_ring_data(m_ring_data),
    .m_ring_valid(m_ring_valid),
    .ring_full(ring_full),
    .m_descriptor_seq(m_descriptor_seq),
    .m_descriptor_slots(m_descriptor_slots),
    .m_descriptor_events(m_descriptor_events),
    .m_descriptor_missed(m_descriptor_missed),
    .m_descriptor_resolution(m_descriptor_resolution),
    .m_descriptor_snapshot(m_descriptor_snapshot),
    .m_descriptor_valid(m_descriptor_valid),
    .descriptor_fifo_full(descriptor_fifo_full),
    .config_max_length(config_max_length),
    .config_flush_timeout(config_flush_timeout)
);

// Internal state of the RTL (proof.toml links): operands of the invariants, of the in-flight
// terms of events_conserved and of the instant m_flag counts from
wire            f_open;           // dut.open_reg
wire [11:0]     f_used;           // dut.used_reg
wire [11:0]     f_max_slots;      // dut.max_slots_reg
wire [11:0]     f_n_events;       // dut.n_events_reg
wire            f_half_valid;     // dut.half_valid_reg
wire [31:0]     f_half;           // dut.half_reg
wire            f_head_prepared;  // dut.head_prepared_reg
wire [23:0]     f_done;           // dut.done_reg
wire            f_ts_owed;        // dut.ts_owed_reg
wire [61:0]     f_prev_tick;      // dut.prev_tick_reg
wire            f_apply_flags;    // dut.apply_flags
wire [12:0]     f_used_after_e1_group; // dut.used_after_e1_group
wire            f_mid_group;      // dut.mid_group
wire [2:0]      f_action;         // dut.action (covers only)
wire [31:0]     f_age_rtl;        // dut.age_reg

// The reset the proof starts from, and rst low after it (common/formal_reset.sv)
wire f_past_valid;
formal_reset #(.ONCE(1)) initial_reset (.clk(clk), .rst(rst), .past_valid(f_past_valid));

// ---------------------------------------------------------------------------------------------
// The record FIFO's read side: a head offered and not taken is offered again unchanged

wire f_take = s_record_valid && s_record_ready;

reg             f_pend = 1'b0;    // the head was offered and not taken in the clock before
reg [61:0]      f_prev_rec_tick = 62'd0;
reg [2:0]       f_prev_rec_resolution = 3'd0;
reg [23:0]      f_prev_rec_events = 24'd0;
reg [24*8-1:0]  f_prev_rec_lengths = 192'd0;
reg [8*QW-1:0]  f_prev_rec_occupancy = 0;
reg [8*QW-1:0]  f_prev_rec_occupancy_after = 0;
reg [2:0]       f_prev_rec_flags = 3'd0;

always @(posedge clk) begin
    f_pend <= s_record_valid && !s_record_ready;
    f_prev_rec_tick <= s_record_tick;
    f_prev_rec_resolution <= s_record_resolution;
    f_prev_rec_events <= s_record_events;
    f_prev_rec_lengths <= s_record_lengths;
    f_prev_rec_occupancy <= s_record_occupancy;
    f_prev_rec_occupancy_after <= s_record_occupancy_after;
    f_prev_rec_flags <= {s_record_close_before, s_record_seq_reset, s_record_missed_before};
    if (rst) f_pend <= 1'b0;
end

always @(*) begin
    if (f_pend) begin
        assume (s_record_valid);
        assume (s_record_tick == f_prev_rec_tick);
        assume (s_record_resolution == f_prev_rec_resolution);
        assume (s_record_events == f_prev_rec_events);
        assume (s_record_lengths == f_prev_rec_lengths);
        assume (s_record_occupancy == f_prev_rec_occupancy);
        assume (s_record_occupancy_after == f_prev_rec_occupancy_after);
        assume ({s_record_close_before, s_record_seq_reset, s_record_missed_before} == f_prev_rec_flags);
    end
end

// ---------------------------------------------------------------------------------------------
// The packets, read off the ring words and descriptors

wire f_desc = m_descriptor_valid;
wire f_word = m_ring_valid && !f_desc;        // a word of a timestamp or events: two slots
wire f_close_word = m_ring_valid && f_desc;   // the close's word: one slot, in bits 31:0

reg            f_pk_open = 1'b0;      // the packet's first word written, its descriptor not yet
reg [11:0]     f_pk_slots = 12'd0;    // slots of the packet in the words written so far
reg [11:0]     f_pk_events = 12'd0;   // short events among them
reg            f_expect_low = 1'b0;   // the next slot is the second slot of a timestamp
reg [13:0]     f_pk_max_length = 14'd0; // clamp(max_length, 86, 9000) when the packet opened
reg [2:0]      f_pk_resolution = 3'd0;
reg [8*QW-1:0] f_pk_snapshot = 0;
reg [31:0]     f_seq = 32'd0;         // the sequence number the next descriptor must carry
reg            f_started = 1'b0;      // a ring word without a descriptor while this head is valid
reg [15:0]     f_in = 16'd0;          // events of the records taken
reg [15:0]     f_out = 16'd0;         // short events in the ring words written
reg            f_m = 1'b0;            // a loss took effect since the last close (the M flag)
reg            f_loss_seen = 1'b0;    // a missed_before head since the last descriptor

wire [31:0] f_slot0 = m_ring_data[31:0];
wire [31:0] f_slot1 = m_ring_data[63:32];
wire f_s0_high = !f_expect_low && f_slot0[31:30] == 2'b00;
wire f_s0_short = !f_expect_low && f_slot0[31:30] != 2'b00;
wire f_s1_high = !f_s0_high && f_slot1[31:30] == 2'b00;
wire f_s1_short = !f_s0_high && f_slot1[31:30] != 2'b00;

// The packet's counts with this clock's word
wire [11:0] f_slots_now = f_pk_slots + (f_word ? 12'd2 : f_close_word ? 12'd1 : 12'd0);
wire [1:0]  f_shorts_now = f_word ? {1'b0, f_s0_short} + {1'b0, f_s1_short}
                         : f_close_word ? {1'b0, f_s0_short} : 2'd0;
wire [11:0] f_events_now = f_pk_events + {10'd0, f_shorts_now};
wire        f_expect_now = f_word ? f_s1_high : f_close_word ? f_s0_high : f_expect_low;

// The first word of a packet
wire f_opening = f_word && !f_pk_open;

// The start of a seq_reset record: its first ring word (the opening timestamp) or its pop
wire f_seq_restart = s_record_valid && s_record_seq_reset && !f_started
    && (f_word || s_record_ready);

function [13:0] clamp_length;
    input [15:0] length;
    clamp_length = (length < 16'd86) ? 14'd86 : (length > 16'd9000) ? 14'd9000 : length[13:0];
endfunction

function [4:0] count24;
    input [23:0] bits;
    integer i;
    begin
        count24 = 5'd0;
        for (i = 0; i < 24; i = i + 1) count24 = count24 + {4'd0, bits[i]};
    end
endfunction

// Snapshot of a packet opened by the head: per queue, the occupancy before the head's clock,
// or after it if the queue's events of that clock went into the previous packet
reg [8*QW-1:0] f_snapshot_new;
integer q;
always @(*) begin
    for (q = 0; q < 8; q = q + 1) begin
        f_snapshot_new[QW*q +: QW] = (f_done[3*q +: 3] != 3'd0)
            ? s_record_occupancy_after[QW*q +: QW] : s_record_occupancy[QW*q +: QW];
    end
end

always @(posedge clk) begin
    if (f_desc) begin
        f_pk_open <= 1'b0;
        f_pk_slots <= 12'd0;
        f_pk_events <= 12'd0;
        f_expect_low <= 1'b0;
    end else if (f_word) begin
        f_pk_open <= 1'b1;
        f_pk_slots <= f_slots_now;
        f_pk_events <= f_events_now;
        f_expect_low <= f_expect_now;
        if (!f_pk_open) begin
            f_pk_max_length <= clamp_length(config_max_length);
            f_pk_resolution <= s_record_resolution;
            f_pk_snapshot <= f_snapshot_new;
        end
    end
    if (f_seq_restart) f_seq <= 32'd0;
    else if (f_desc) f_seq <= f_seq + 32'd1;
    f_started <= s_record_valid && !s_record_ready && (f_started || f_word);
    f_in <= f_in + (f_take ? {11'd0, count24(s_record_events)} : 16'd0);
    f_out <= f_out + {14'd0, f_shorts_now};
    if (f_desc) f_m <= 1'b0;
    else if (f_apply_flags) f_m <= (f_m && !s_record_seq_reset) || s_record_missed_before;
    f_loss_seen <= (s_record_valid && s_record_missed_before) || (f_loss_seen && !f_desc);
    if (rst) begin
        f_pk_open <= 1'b0;
        f_pk_slots <= 12'd0;
        f_pk_events <= 12'd0;
        f_expect_low <= 1'b0;
        f_seq <= 32'd0;
        f_started <= 1'b0;
        f_in <= 16'd0;
        f_out <= 16'd0;
        f_m <= 1'b0;
        f_loss_seen <= 1'b0;
    end
end

// ---------------------------------------------------------------------------------------------
// The time of the packet's slots, decoded off the ring as the receiver does: a timestamp event
// sets it, a short event adds its gap. f_time is the time of the packet's last complete slot,
// f_after_ts whether that slot ended a timestamp event, f_ts_hi the first slot's tick bits of a
// timestamp whose second slot has not come yet (f_expect_low).

reg [61:0] f_time = 62'd0;
reg        f_after_ts = 1'b0;
reg [29:0] f_ts_hi = 30'd0;

// after slot 0 of this clock's word
wire [61:0] f_time0 = f_expect_low ? {f_ts_hi, f_slot0}
                    : f_s0_short ? f_time + {43'd0, f_slot0[18:0]} : f_time;
wire        f_ats0 = f_expect_low || (f_s0_high && f_after_ts);
// after slot 1 (a word of two slots)
wire [61:0] f_time1 = f_s0_high ? {f_slot0[29:0], f_slot1}
                    : f_s1_short ? f_time0 + {43'd0, f_slot1[18:0]} : f_time0;
wire        f_ats1 = f_s0_high || (f_s1_high && f_ats0);

// The time and kind of the packet's last slot emitted, the packer's half word included (linked:
// it is on the ring only with the next word)
wire [61:0] f_last_time = !f_half_valid ? f_time
                        : f_expect_low ? {f_ts_hi, f_half} : f_time + {43'd0, f_half[18:0]};
wire        f_last_is_ts = f_half_valid ? f_expect_low : f_after_ts;

always @(posedge clk) begin
    if (f_word) begin
        f_time <= f_time1;
        f_after_ts <= f_ats1;
        if (f_s1_high) f_ts_hi <= f_slot1[29:0];
    end else if (f_close_word) begin
        f_time <= f_time0;
        f_after_ts <= f_ats0;
        if (f_s0_high) f_ts_hi <= f_slot0[29:0];
    end
    if (rst) begin
        f_time <= 62'd0;
        f_after_ts <= 1'b0;
        f_ts_hi <= 30'd0;
    end
end

// ---------------------------------------------------------------------------------------------
// The watched event: event bit f_wi = 3 f_wq + f_wt (queue f_wq, type f_wt: 0 arrival,
// 1 departure, 2 drop) of a record chosen freely (f_pick_watch) in the first clock it is the
// head. Its place in the stream of short events is known from the docs' order: after every event
// of the records taken before it (f_in), and after the record's own events of lower bits. The
// short event written at that place must carry type f_wt + 1, queue f_wq, the record's length
// of that event, and a gap that brings the packet's time to the record's tick (0 right after a
// timestamp event). The index is chosen once (registers with no initial value that keep it,
// an anyconst the Verilator replay can build), the record any time; so every event of every
// record is checked.

// the head's lowest event not written yet (one-hot; 0 when none): e1, the next to be written
wire [23:0] f_remaining = s_record_events & ~f_done;
wire [23:0] f_next_event = f_remaining & (~f_remaining + 24'd1);

reg [2:0] f_wq;
reg [1:0] f_wt;
always @(posedge clk) begin
    f_wq <= f_wq;
    f_wt <= f_wt;
end
always @(*) assume (f_wt != 2'd3);

wire [4:0]  f_wi = {1'b0, f_wq, 1'b0} + {2'b00, f_wq} + {3'd0, f_wt};
wire [23:0] f_w_bit = 24'd1 << f_wi;
wire [12:0] f_w_code_in = {f_wt + 2'd1, f_wq, s_record_lengths[8*f_wi +: 8]};

reg        f_w_active = 1'b0;  // an event watched, its slot not on the ring yet
reg        f_w_head = 1'b0;    // its record still the head (offered in the clock before)
reg [15:0] f_w_ord = 16'd0;    // its place: the number of short events before it (mod 2^16)
reg [61:0] f_w_tick = 62'd0;   // its record's tick
reg [12:0] f_w_code = 13'd0;   // its type, queue and length

wire        f_w_pick = f_pick_watch && !f_w_active && s_record_valid && f_next_event == f_w_bit;
wire        f_w_live = f_w_active || f_w_pick;
wire        f_w_head_now = f_w_pick || (f_w_active && f_w_head);
wire [15:0] f_w_ord_now = f_w_active ? f_w_ord
                        : f_out + {15'd0, f_half_valid && !f_expect_low};
wire [61:0] f_w_tick_now = f_w_active ? f_w_tick : s_record_tick;
wire [12:0] f_w_code_now = f_w_active ? f_w_code : f_w_code_in;

// this clock's ring word holds it: slot 0 (short events before it: f_out) or slot 1
wire f_w_in0 = (f_word || f_close_word) && f_s0_short && f_w_live && f_w_ord_now == f_out;
wire f_w_in1 = f_word && f_s1_short && f_w_live
            && f_w_ord_now == f_out + {15'd0, f_s0_short};
wire f_w_check = f_w_in0 || f_w_in1;
wire [31:0] f_w_slot = f_w_in0 ? f_slot0 : f_slot1;
wire [61:0] f_w_before = f_w_in0 ? f_time : f_time0;     // the packet's time before it
wire        f_w_after_ts = f_w_in0 ? f_after_ts : f_ats0;

always @(posedge clk) begin
    f_w_active <= f_w_live && !f_w_check;
    f_w_head <= f_w_head_now && !f_take && !f_w_check;
    if (f_w_pick) begin
        f_w_ord <= f_w_ord_now;
        f_w_tick <= s_record_tick;
        f_w_code <= f_w_code_in;
    end
    if (rst) begin
        f_w_active <= 1'b0;
        f_w_head <= 1'b0;
    end
end

// ---------------------------------------------------------------------------------------------
// The close rules (docs/evcap-architecture.md, "Serializer"), from the packet as read off the
// ring: its age (0 in the clock that opens it, then +1 each clock, saturating), its slots so far
// (the half word included), the head's next event e1 (the lowest not yet written: the RTL's done
// bits, linked, whose number events_conserved ties to the ring) and the rest of e1's queue group.

reg [31:0] f_age = 32'd0;
always @(posedge clk) begin
    if (f_opening) f_age <= 32'd0;
    else if (f_pk_open && !f_desc) f_age <= f_age + {31'd0, f_age != 32'hffffffff};
    else f_age <= 32'd0;
    if (rst) f_age <= 32'd0;
end

// e1's queue group, and rest1: its events not written yet (e1 included)
reg [23:0] f_e1_group;
reg [12:0] f_rest1;
integer g;
always @(*) begin
    f_rest1 = 13'd0;
    for (g = 0; g < 8; g = g + 1) begin
        f_e1_group[3*g +: 3] = (f_next_event[3*g +: 3] != 3'd0) ? 3'b111 : 3'b000;
        if (f_next_event[3*g +: 3] != 3'd0)
            f_rest1 = {11'd0, f_remaining[3*g]} + {11'd0, f_remaining[3*g+1]}
                    + {11'd0, f_remaining[3*g+2]};
    end
end

wire [11:0] f_slots_before = f_pk_slots + {11'd0, f_half_valid};
wire [13:0] f_max_length_room = f_pk_max_length - 14'd66;
wire [12:0] f_max_slots_pk = {1'b0, f_max_length_room[13:2]};  // (clamped max_length - 66) / 4
wire [61:0] f_gap = s_record_tick - f_last_time;
wire        f_needs_ts = f_gap[61:19] != 43'd0;
wire        f_in_group = (f_done & f_e1_group) != 24'd0;   // e1 does not start its group
wire        f_timeout_due = config_flush_timeout != 32'd0 && f_age >= config_flush_timeout
    && !f_last_is_ts && !(s_record_valid && f_in_group);
wire        f_head_due = s_record_valid && !f_head_prepared
    && (s_record_close_before || s_record_seq_reset || s_record_resolution != f_pk_resolution);
wire        f_room_due = s_record_valid && s_record_events != 24'd0
    && (f_needs_ts ? {1'b0, f_slots_before} + 13'd2 + f_rest1 > f_max_slots_pk
                   : !f_in_group && {1'b0, f_slots_before} + f_rest1 > f_max_slots_pk);
wire        f_close_due = f_timeout_due || f_head_due || f_room_due;

// ---------------------------------------------------------------------------------------------
// Properties

wire [15:0] f_ip_length_now = {2'b00, f_slots_now, 2'b00} + 16'd66;

always @(*) begin
    if (f_past_valid && !rst) begin
        // 1. every packet begins with a timestamp event of the head record
        if (f_opening)
            packet_starts_with_timestamp: assert (s_record_valid
                && m_ring_data == {s_record_tick[31:0], 2'b00, s_record_tick[61:32]});
        if (f_desc)
            packet_has_timestamp: assert (f_pk_open);

        // 2. consecutive sequence numbers: the descriptor's seq field, a register of the packet
        // being built, always holds the number the next descriptor must carry
        seq_consecutive: assert (m_descriptor_seq == f_seq);

        // 3. lengths, events, M flag, fields
        if (f_desc) begin
            lengths_consistent: assert (m_descriptor_slots == f_slots_now && !f_expect_now);
            events_count: assert (m_descriptor_events == f_events_now
                                  && m_descriptor_events != 12'd0);
            within_max_length: assert (f_ip_length_now <= {2'b00, f_pk_max_length});
            m_flag_has_cause: assert (!m_descriptor_missed || f_loss_seen);
        end
        // the descriptor's M, resolution and snapshot fields are registers of the packet being
        // built too: checked in every clock (M), while the packet is open (the others)
        m_flag: assert (m_descriptor_missed == f_m);
        if (f_pk_open)
            packet_fields: assert (m_descriptor_resolution == f_pk_resolution
                                   && m_descriptor_snapshot == f_pk_snapshot);
        if (f_word && f_pk_open)
            word_of_packet_resolution: assert (s_record_valid
                                               && s_record_resolution == f_pk_resolution);
        events_conserved: assert (f_in + {11'd0, count24(f_done)}
                                  == f_out + {15'd0, f_half_valid && !f_expect_low});
        if (f_word || f_take)
            flags_applied_first: assert (f_head_prepared || f_apply_flags);
        if (f_apply_flags)
            flags_applied_once: assert (s_record_valid && !f_head_prepared);

        // 4. the short events' contents: the watched event's slot
        if (f_w_check) begin
            short_event_fields: assert (f_w_slot[31:19] == f_w_code_now);
            short_event_gap: assert (f_w_before + {43'd0, f_w_slot[18:0]} == f_w_tick_now
                                     && (!f_w_after_ts || f_w_slot[18:0] == 19'd0));
        end

        // 5. the close rules: a packet closes only for one of the documented reasons, and does
        // close when one holds and there is room for the descriptor and the ring word
        if (f_desc)
            close_only_for_reason: assert (f_pk_open && f_close_due);
        if (f_pk_open && f_close_due && !ring_full && !descriptor_fifo_full)
            close_when_due: assert (f_desc);

        // handshakes
        ready_only_when_valid: assert (!s_record_ready || s_record_valid);
        no_ring_write_when_full: assert (!m_ring_valid || !ring_full);
        no_descriptor_when_full: assert (!m_descriptor_valid || !descriptor_fifo_full);
        no_pop_with_close: assert (!(f_desc && s_record_ready));

        // Invariants for the induction
        inv_open: assert (f_open == f_pk_open && (!f_m || f_loss_seen));
        if (!f_open)
            inv_closed: assert (!f_half_valid && f_pk_slots == 12'd0 && f_pk_events == 12'd0
                                && !f_expect_low && !f_ts_owed);
        if (f_open) begin
            inv_used: assert (f_used == f_pk_slots + {11'd0, f_half_valid}
                              && f_n_events == f_pk_events + {11'd0, f_half_valid && !f_expect_low}
                              && (f_n_events != 12'd0 || f_ts_owed)
                              && {1'b0, f_n_events} + 13'd2 <= {1'b0, f_used});
            inv_limit: assert (f_max_slots == (f_pk_max_length - 14'd66) >> 2
                               && f_used <= f_max_slots
                               && f_pk_max_length >= 14'd86 && f_pk_max_length <= 14'd9000);
        end
        inv_half: assert ((!f_expect_low || f_half_valid)
                          && (!f_half_valid || f_expect_low || f_half[31:30] != 2'b00));
        inv_head: assert ((!f_head_prepared || f_pend) && (f_done == 24'd0 || f_head_prepared)
                          && (!f_started || f_head_prepared)
                          && (!f_head_prepared || !f_open
                              || s_record_resolution == f_pk_resolution));
        // the head's events written so far are those below its next one (the fixed order)
        if (f_pend)
            inv_done: assert ((f_done & ~s_record_events) == 24'd0
                              && (f_done == 24'd0 || (s_record_events & ~f_done) != 24'd0)
                              && f_done == (s_record_events & (f_next_event - 24'd1))
                              && (!s_record_seq_reset || f_started == f_head_prepared));
        // a head acted on: its timestamp or some of its events are written, the gap is from it
        if (f_head_prepared)
            inv_prepared: assert (f_prev_tick == s_record_tick && (f_done != 24'd0 || f_ts_owed));
        if (f_ts_owed)
            inv_ts_owed: assert (f_open && f_head_prepared && f_prev_tick == s_record_tick
                                 && s_record_events != 24'd0
                                 && f_used_after_e1_group <= {1'b0, f_max_slots});
        // a queue's events of one clock went in part into the packet: the rest fit in it
        if (f_mid_group)
            inv_mid_group: assert (f_open && f_used_after_e1_group <= {1'b0, f_max_slots});
        // the packet's age, and the time of its last slot (the half word's included) is the
        // tick the RTL counts the next gap from
        inv_age: assert (f_age_rtl == f_age);
        if (f_open)
            inv_time: assert (f_last_time == f_prev_tick && f_last_is_ts == f_ts_owed
                              && (!f_half_valid || f_expect_low || !f_after_ts
                                  || f_half[18:0] == 19'd0));
        // the watched event: in its record, still the head, or in the packer's half word
        if (f_w_active && f_w_head && (f_done & f_w_bit) == 24'd0)
            inv_watch_head: assert (f_pend && f_next_event == f_w_bit
                                    && s_record_tick == f_w_tick && f_w_code_in == f_w_code
                                    && f_w_ord == f_out + {15'd0, f_half_valid && !f_expect_low});
        if (f_w_active && (!f_w_head || (f_done & f_w_bit) != 24'd0))
            inv_watch_half: assert (f_open && f_half_valid && !f_expect_low && f_w_ord == f_out
                                    && f_half[31:19] == f_w_code && f_prev_tick == f_w_tick);
    end
end

// ---------------------------------------------------------------------------------------------
// Covers: the behaviour the properties speak of is reachable from reset

reg f_prev_desc = 1'b0;       // a descriptor in the clock before
reg f_back_to_back = 1'b0;    // this packet opened in the clock after the previous descriptor
reg f_prev_ring_stall = 1'b0; // a head waited for ring room in the clock before
reg f_prev_desc_stall = 1'b0; // a close waited for the descriptor FIFO in the clock before
reg f_two_closed = 1'b0;      // two packets closed since reset
reg [1:0] f_closed = 2'd0;
always @(posedge clk) begin
    f_prev_desc <= f_desc;
    if (f_opening) f_back_to_back <= f_prev_desc;
    f_prev_ring_stall <= s_record_valid && ring_full;
    f_prev_desc_stall <= f_action == 3'd1 && descriptor_fifo_full;  // ACTION_CLOSE
    if (f_desc && f_closed != 2'd3) f_closed <= f_closed + 2'd1;
    if (rst) begin
        f_prev_desc <= 1'b0;
        f_back_to_back <= 1'b0;
        f_prev_ring_stall <= 1'b0;
        f_prev_desc_stall <= 1'b0;
        f_closed <= 2'd0;
    end
end

always @(*) begin
    if (f_past_valid && !rst) begin
        // two packets back to back: the second opened right after the first closed, and closes
        cover_back_to_back: cover (f_desc && f_back_to_back && m_descriptor_seq == 32'd1);
        // a head waited for ring room, then its word was written
        cover_ring_stall: cover (f_prev_ring_stall && f_word && f_pk_open);
        // a close waited for room in the descriptor FIFO
        cover_descriptor_stall: cover (f_desc && f_prev_desc_stall);
        // a record's events split over two packets (closed with some of its events written)
        cover_split_record: cover (f_desc && f_done != 24'd0);
        // the odd case: the close writes the last half word
        cover_close_word: cover (f_close_word && f_closed == 2'd1);
        // a timestamp inside a packet (a gap that does not fit in 19 bits)
        cover_mid_packet_timestamp: cover (f_word && f_pk_open && f_s0_high);
        // the numbering restarted by a seq_reset record after packets were sent
        cover_seq_restart: cover (f_desc && m_descriptor_seq == 32'd0 && f_closed != 2'd0);
        // a packet with M
        cover_m_flag: cover (f_desc && m_descriptor_missed);
        // a packet closed by the flush timeout, no record waiting
        cover_timeout_close: cover (f_desc && !s_record_valid);
        // a watched event with a gap (a record after another one in the packet)
        cover_event_gap: cover (f_w_check && f_w_slot[18:0] != 19'd0);
        // a close because the next group does not fit, and one before a flagged record
        cover_close_no_room: cover (f_desc && f_room_due && !f_timeout_due && !f_head_due);
        cover_close_before_record: cover (f_desc && f_head_due && !f_timeout_due && !f_room_due);
    end
end

endmodule

`default_nettype wire
