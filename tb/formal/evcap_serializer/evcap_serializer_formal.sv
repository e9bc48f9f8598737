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
 * value: the RTL clamps it), config_flush_timeout.
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
 *   group fits, so no packet closes without an event. The induction closes at k = 1.
 *
 * Covers (from reset, within cover_depth): two packets back to back (the second opened in
 * the clock after the first closed), a head stalled by ring_full, a close stalled by
 * descriptor_fifo_full, a record split over two packets, an odd packet (the close writes the
 * half word), a timestamp inside a packet (a gap beyond 19 bits), the numbering restarted by
 * seq_reset, a packet with M, a close by the flush timeout.
 *
 * Not proved: that each short event's type, queue, length and gap are those of its record's
 * event (only their number is), that a packet closes only when it must (max_length, timeout,
 * markers), and the timeout itself.
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
    input  wire [31:0]     config_flush_timeout
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

reg f_past_valid = 1'b0;
always @(posedge clk) f_past_valid <= 1'b1;

always @(*) begin
    if (!f_past_valid) assume (rst);
    else assume (!rst);
end

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
// Properties

// the head's lowest event not written yet (one-hot; 0 when none)
wire [23:0] f_remaining = s_record_events & ~f_done;
wire [23:0] f_next_event = f_remaining & (~f_remaining + 24'd1);

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
    end
end

endmodule

`default_nettype wire
