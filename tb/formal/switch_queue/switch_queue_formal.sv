// SPDX-License-Identifier: BSD-3-Clause
/*
 * switch_queue_formal: properties of one output queue of the switch (rtl/switch/switch_queue.v),
 * against the clock-by-clock rules in the header of rtl/switch/switch_output_queues.v.
 *
 * Instance: QUEUE_DEPTH_LOG2 = 4 (a ring of 16 words, the smallest the RTL allows),
 * MAX_FRAME_WORDS = 5 (so CAPACITY = 11: as in the real queue, several longest frames fit and
 * a frame of MAX_FRAME_WORDS < length <= CAPACITY may be kept or miss the RAM) and
 * QUEUE_SIZE_WIDTH = 5 (the narrowest allowed, so config_limit reaches 31, beyond CAPACITY and
 * the RAM). proof.toml says why these stand for the real 4096 / 190 / 20.
 *
 * Assumed (the queue's environment, as switch_output_queues drives it):
 *   - reset in the first clock; later resets are free;
 *   - the words this queue sees form frames: the first word after reset or after a last word
 *     has s_word_first and index 0, each later word has the index of the one before plus 1
 *     (saturating at 65535), and s_word_bytes is 0..8 (the parent's count of tkeep). Idle
 *     clocks (no word, or words of frames not for this queue) may come anywhere. Data, last,
 *     s_frame_bytes, tready, config_limit and the clears are free in every clock, so the limit
 *     may be lowered or raised at any time (tb/formal/switch_output_queues/ proves that the
 *     queues' front hands every queue such a stream, s_frame_bytes the frame's bytes so far);
 *   - after the BMC's clocks, that the RTL's RAM and its tkeep table behave as a memory and a
 *     table do (ram_reads_what_was_written, tkeep_of_byte_count, below).
 *
 * Proved by k-induction, each a labelled assertion:
 *   Occupancy, the limit, the RAM
 *     - occupancy_accounting: occupancy equals the words of the frames committed (counted
 *       from the input stream, at each arrival) minus the words of the frames departed
 *       (counted from the output stream, at each tlast handshake);
 *     - occupancy_within_capacity: occupancy never exceeds CAPACITY;
 *     - commit_within_limit: a commit leaves occupancy + length at most
 *       min(config_limit, CAPACITY) of its clock;
 *     - over_limit_only_drains: when config_limit is lowered below the occupancy, the frames
 *       already committed stay and are sent as usual (watched_word), and the occupancy never
 *       grows while it is above the limit: no frame is committed until occupancy + its length
 *       fits the new limit. This is the RTL header's rule (a commit is decided with this
 *       clock's limit and the occupancy register) and the behaviour chosen here: a limit
 *       change never discards a committed frame;
 *     - commit_rule, drop_rule: at a frame's last word it is committed exactly when none of
 *       its words missed the RAM and occupancy + length <= min(config_limit, CAPACITY), and
 *       dropped otherwise; never an arrival or a drop elsewhere;
 *     - short_frame_fits: a frame of at most MAX_FRAME_WORDS words never misses the RAM;
 *     - write_rule: a word is written exactly when the header says (no earlier word of its
 *       frame missed, and occupancy + words so far <= RAM size), at commit pointer + index;
 *     - no_overwrite: no write lands on a committed word not yet read out of the RAM;
 *     - event_lengths, event_drop_length, event_departure_length, departure_is_last_word:
 *       the event strobes and lengths (a drop's saturating at 65535);
 *     - peak_bounds, peak_follows: the peak occupancy is the largest occupancy since the
 *       last clear, restarting from the occupancy after a clear's clock;
 *     - reset_empties: after a reset the queue is empty and shows nothing.
 *   The output stream
 *     - output_stable: a word shown without tready stays, unchanged (AXI4-Stream);
 *     - tkeep_contiguous: tkeep is 0 or ones from bit 0;
 *     - output_after_commit: a word is shown two clocks after its frame's commit at the
 *       earliest (n + 2);
 *     - output_no_bubble: when committed words wait and the output register is empty or
 *       taken, the next clock shows a word (an always-ready output gets a word per clock,
 *       frames back to back);
 *     - watched_word: the words of the committed frames come out in the order committed,
 *       each with its data, byte count (as tkeep) and last flag. A free choice (f_pick_watch)
 *       watches a frame as it is committed, and f_w (chosen once) its word of index f_w; the
 *       number of committed words to be handed out before that word is counted down by the
 *       output handshakes, and when it reaches 0 the word shown must be the watched one. As
 *       any frame and any index may be watched, the output stream is exactly the stream of
 *       committed frames: whole (tlast once per frame, on its last word), in order, nothing
 *       lost, duplicated, reordered or added (so no word of a dropped frame either);
 *     - dropped_word_never_read: a free choice (f_pick_drop) watches word f_w of a dropped
 *       frame where it was written in the RAM: that entry is never read out (so never sent)
 *       until a later write replaces it.
 *   Invariants for the induction (inv_*): the wrapper's counts tied to the RTL's pointers,
 *   the state of the frame being written, and where the watched words lie in the RAM.
 *
 * How the RAM is seen: Yosys 0.23 cannot reference dut.ram, so the wrapper keeps a shadow,
 * f_ram, written with the RTL's own write enable and address (links) and the input word, and
 * read at the RTL's read pointer when it reads; the invariants are stated over f_ram.
 * ram_reads_what_was_written says that the RTL's output register holds what the shadow read:
 * it is an assertion in the first F_DEPTH clocks after the initial state, so in every clock of
 * the BMC from reset (a RAM or read port that does not return what was written fails there),
 * and an assumption afterwards, which is the induction's last step (there the RTL's RAM
 * contents are free, and f_ram stands for them). This is sound for any RTL whose RAM is a
 * memory: choosing f_ram's free initial contents equal to dut.ram's makes the assumption hold
 * in every run. F_DEPTH is the run's clocks, FORMAL_DEPTH, which tb/formal/formal.py defines as
 * proof.toml's bmc_depth in the BMC's model and as its depth in the induction's: the reads are
 * asserted in every clock of the BMC, assumed in the induction's last step. The same holds
 * for tkeep, which Yosys builds as a ROM from the RTL's case table (keep_of_bytes): in the
 * induction a ROM's contents are free like a RAM's.
 *
 *   The counters
 *     - frames_stored_counted, bytes_stored_counted, frames_dropped_counted,
 *       bytes_dropped_counted: the arrivals and drops since the counter's last clear, and
 *       their frames' byte counts (s_frame_bytes, the parent's count of the frame's tkeep);
 *     - frames_removed_counted, bytes_removed_counted: the frames sent since the last clear,
 *       and the bytes of their words as handed out (the ones of each word's tkeep); a clear in
 *       an event's clock leaves the counter at that event's amount.
 *
 * The BMC from reset is 8 clocks: a full queue, a frame missing the RAM and a commit
 * across the end of the ring need 12 to 17 words, so they are reached only by the induction
 * (whose start is any state meeting the invariants), not by a cover.
 */

`default_nettype none

module switch_queue_formal (
    input  wire        clk,
    input  wire        rst,

    input  wire [63:0] s_word_data,
    input  wire [3:0]  s_word_bytes,
    input  wire        s_word_valid,
    input  wire        s_word_first,
    input  wire        s_word_last,
    input  wire [15:0] s_word_index,
    input  wire [31:0] s_frame_bytes,
    input  wire        m_axis_tready,
    input  wire [4:0]  config_limit,
    input  wire [6:0]  command_clear,

    // Free choices of the checks: watch the frame committed in this clock, watch the frame
    // dropped in this clock
    input  wire        f_pick_watch,
    input  wire        f_pick_drop
);

localparam QUEUE_DEPTH_LOG2 = 4;
localparam MAX_FRAME_WORDS = 5;
localparam QUEUE_SIZE_WIDTH = 5;
localparam RAM_WORDS = 1 << QUEUE_DEPTH_LOG2;
localparam CAPACITY = RAM_WORDS - MAX_FRAME_WORDS;
localparam F_DEPTH = `FORMAL_DEPTH;  // the run's clocks (tb/formal/formal.py)

wire [63:0] m_axis_tdata;
wire [7:0]  m_axis_tkeep;
wire        m_axis_tvalid;
wire        m_axis_tlast;
wire        arrival;
wire [15:0] arrival_length;
wire        departure;
wire [15:0] departure_length;
wire        drop;
wire [15:0] drop_length;
wire [QUEUE_SIZE_WIDTH-1:0] occupancy;
wire [QUEUE_SIZE_WIDTH-1:0] status_peak_occupancy;
wire [63:0] status_frames_stored;
wire [63:0] status_bytes_stored;
wire [63:0] status_frames_removed;
wire [63:0] status_bytes_removed;
wire [63:0] status_frames_dropped;
wire [63:0] status_bytes_dropped;

switch_queue #(
    .QUEUE_DEPTH_LOG2(QUEUE_DEPTH_LOG2),
    .MAX_FRAME_WORDS(MAX_FRAME_WORDS),
    .QUEUE_SIZE_WIDTH(QUEUE_SIZE_WIDTH)
) dut (
    .clk(clk),
    .rst(rst),
    .s_word_data(s_word_data),
    .s_word_bytes(s_word_bytes),
    .s_word_valid(s_word_valid),
    .s_word_first(s_word_first),
    .s_word_last(s_word_last),
    .s_word_index(s_word_index),
    .s_frame_bytes(s_frame_bytes),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .config_limit(config_limit),
    .arrival(arrival),
    .arrival_length(arrival_length),
    .departure(departure),
    .departure_length(departure_length),
    .drop(drop),
    .drop_length(drop_length),
    .occupancy(occupancy),
    .command_clear_frames_stored(command_clear[0]),
    .command_clear_bytes_stored(command_clear[1]),
    .command_clear_frames_removed(command_clear[2]),
    .command_clear_bytes_removed(command_clear[3]),
    .command_clear_frames_dropped(command_clear[4]),
    .command_clear_bytes_dropped(command_clear[5]),
    .command_clear_peak_occupancy(command_clear[6]),
    .status_frames_stored(status_frames_stored),
    .status_bytes_stored(status_bytes_stored),
    .status_frames_removed(status_frames_removed),
    .status_bytes_removed(status_bytes_removed),
    .status_frames_dropped(status_frames_dropped),
    .status_bytes_dropped(status_bytes_dropped),
    .status_peak_occupancy(status_peak_occupancy)
);

// Internal signals of the RTL (proof.toml links)
wire [3:0]  f_commit_ptr;     // dut.commit_ptr_reg
wire [3:0]  f_read_ptr;       // dut.read_ptr_reg
wire [3:0]  f_write_address;  // dut.write_address
wire        f_ram_write;      // dut.ram_write
wire        f_ram_read;       // dut.ram_read
wire        f_overflow_reg;   // dut.overflow_reg
wire [68:0] f_out_entry;      // dut.out_entry_reg
wire [15:0] f_out_words;      // dut.out_words_reg
// A linked wire is used only as an operand, never alone as an `if` condition or the right side
// of an assign: the runner's `connect -set` takes the driver from every other name of the wire
// it links (an `if (x)` makes one), which would leave that name a free input.

// ---------------------------------------------------------------------------------------------
// The input: frames of words, as switch_output_queues hands them to a queue of their mask

// The reset the proof starts from (common/formal_reset.sv)
wire past_valid;
formal_reset initial_reset (.clk(clk), .rst(rst), .past_valid(past_valid));

// The queue is inside a frame (its first word has come, its last not yet)
reg        f_in_frame = 1'b0;
// Words of the current frame before this clock's, saturating like the parent's count
reg [15:0] f_words = 16'd0;
// A word of the current frame missed the RAM
reg        f_missed = 1'b0;

wire [15:0] f_index = f_in_frame ? f_words : 16'd0;
wire [16:0] f_len = {1'b0, f_index} + 17'd1;

always @(*) begin
    if (s_word_valid) begin
        assume (s_word_first == !f_in_frame);
        assume (s_word_index == f_index);
        assume (s_word_bytes <= 4'd8);
    end
end

// ---------------------------------------------------------------------------------------------
// The rules of the header, computed here from the wrapper's own counts

// Words of the committed frames not yet departed, counted from the streams (widths beyond the
// RTL's, so that a wrong count shows rather than wraps)
reg [7:0] f_occ = 8'd0;
// Words of the committed frames not yet handed out on m_axis
reg [7:0] f_unsent = 8'd0;
// Words of the outgoing frame already handed out
reg [7:0] f_out_count = 8'd0;

wire [17:0] f_occ_wide = {10'd0, f_occ};
// The word fits: occupancy + words of the frame so far, this one included, <= RAM size
wire f_fits = f_occ_wide + {1'b0, f_len} <= RAM_WORDS;
wire f_write_ok = s_word_valid && (!f_in_frame || !f_missed) && f_fits;
// The frame has missed the RAM, this word included
wire f_missed_now = (f_in_frame && f_missed) || !f_fits;
wire [7:0] f_limit = config_limit > CAPACITY ? CAPACITY : {3'd0, config_limit};
wire f_end = s_word_valid && s_word_last;
wire f_commit_ok = f_end && !f_missed_now && f_occ_wide + {1'b0, f_len} <= {10'd0, f_limit};
wire [15:0] f_len_saturated = f_len[16] ? 16'hffff : f_len[15:0];
// Where the header puts this word: commit pointer + index
wire [3:0] f_address = f_commit_ptr + f_index[3:0];

wire f_hs = m_axis_tvalid && m_axis_tready;
wire f_sent = f_hs && m_axis_tlast;
wire [3:0] f_unread = f_commit_ptr - f_read_ptr;

always @(posedge clk) begin
    if (s_word_valid) begin
        f_in_frame <= !s_word_last;
        f_words <= s_word_last ? 16'd0 : f_index == 16'hffff ? 16'hffff : f_index + 16'd1;
        f_missed <= !s_word_last && f_missed_now;
    end
    f_occ <= f_occ + (arrival ? f_len[7:0] : 8'd0) - (f_sent ? f_out_count + 8'd1 : 8'd0);
    f_unsent <= f_unsent + (arrival ? f_len[7:0] : 8'd0) - {7'd0, f_hs};
    if (f_hs) begin
        f_out_count <= m_axis_tlast ? 8'd0 : f_out_count + 8'd1;
    end
    if (rst) begin
        f_in_frame <= 1'b0;
        f_words <= 16'd0;
        f_missed <= 1'b0;
        f_occ <= 8'd0;
        f_unsent <= 8'd0;
        f_out_count <= 8'd0;
    end
end

// ---------------------------------------------------------------------------------------------
// Shadow of the RAM (see the header): written and read with the RTL's enables and addresses

reg [68:0] f_ram [0:RAM_WORDS-1];
reg [68:0] f_expect = 69'd0;
reg [5:0]  f_step = 6'd0;

always @(posedge clk) begin
    // (muxes rather than `if`s on the linked enables, see the links above)
    f_ram[f_write_address] <= f_ram_write ? {s_word_last, s_word_bytes, s_word_data}
        : f_ram[f_write_address];
    f_expect <= f_ram_read ? f_ram[f_read_ptr] : f_expect;
    // clocks since the initial state, up to F_DEPTH; not reset: it tells BMC from induction
    if (f_step < F_DEPTH) begin
        f_step <= f_step + 6'd1;
    end
end

// tkeep from the byte count: Yosys turns the RTL's case table (keep_of_bytes) into a ROM, whose
// contents the induction would see as free like the RAM's; the table is checked in the same way
function [7:0] keep_of;
    input [3:0] bytes;
    begin
        keep_of = bytes >= 4'd8 ? 8'hff : (8'd1 << bytes) - 8'd1;
    end
endfunction

always @(*) begin
    if (f_step < F_DEPTH) begin
        ram_reads_what_was_written: assert (f_out_entry == f_expect);
        tkeep_of_byte_count: assert (m_axis_tkeep == keep_of(f_out_entry[67:64]));
    end else begin
        assume (f_out_entry == f_expect);
        assume (m_axis_tkeep == keep_of(f_out_entry[67:64]));
    end
end

// ---------------------------------------------------------------------------------------------
// Word f_w of the current frame, and the watched words

// The index of the watched words: chosen once (a register with no initial value that keeps it,
// which is an anyconst that the runner's Verilator replay can also build)
reg [3:0] f_w;
always @(posedge clk) begin
    f_w <= f_w;
end

// Word f_w of the current frame has been written, at f_cur_address, with f_cur_entry
reg        f_cur_seen = 1'b0;
reg [3:0]  f_cur_address = 4'd0;
reg [68:0] f_cur_entry = 69'd0;
wire       f_cur_now = f_write_ok && f_index == {12'd0, f_w};
wire       f_cur_seen_now = (f_in_frame && f_cur_seen) || f_cur_now;
wire [68:0] f_cur_entry_now = f_cur_now ? {s_word_last, s_word_bytes, s_word_data} : f_cur_entry;

// The watched word of a committed frame: its entry, address, and the committed words to be
// handed out before it
reg        f_watch = 1'b0;
reg [68:0] f_watch_entry = 69'd0;
reg [3:0]  f_watch_address = 4'd0;
reg [7:0]  f_watch_pos = 8'd0;
wire       f_watch_start = !f_watch && f_pick_watch && arrival && {13'd0, f_w} < f_len;

// The watched word of a dropped frame, while no later write has replaced it in the RAM
reg        f_dropped_live = 1'b0;
reg [3:0]  f_dropped_address = 4'd0;

always @(posedge clk) begin
    if (s_word_valid) begin
        f_cur_seen <= !s_word_last && f_cur_seen_now;
    end
    if (f_cur_now) begin
        f_cur_address <= f_address;
        f_cur_entry <= {s_word_last, s_word_bytes, s_word_data};
    end

    if (f_watch_start) begin
        f_watch <= 1'b1;
        f_watch_entry <= f_cur_entry_now;
        f_watch_address <= f_commit_ptr + f_w;
        // the words before it: those unsent after this clock's handshake, and its frame's
        f_watch_pos <= f_unsent - {7'd0, f_hs} + {4'd0, f_w};
    end else if (f_watch && f_hs) begin
        if (f_watch_pos == 8'd0) begin
            f_watch <= 1'b0;
        end else begin
            f_watch_pos <= f_watch_pos - 8'd1;
        end
    end

    if (drop && f_pick_drop && f_cur_seen_now) begin
        f_dropped_live <= 1'b1;
        f_dropped_address <= f_commit_ptr + f_w;
    end else if (f_ram_write && f_write_address == f_dropped_address) begin
        f_dropped_live <= 1'b0;
    end

    if (rst) begin
        f_cur_seen <= 1'b0;
        f_watch <= 1'b0;
        f_dropped_live <= 1'b0;
    end
end

// ---------------------------------------------------------------------------------------------
// Properties

always @(*) begin
    // Occupancy and the limit
    occupancy_accounting: assert ({3'd0, occupancy} == f_occ);
    occupancy_within_capacity: assert (occupancy <= CAPACITY);
    if (arrival)
        commit_within_limit: assert ({3'd0, occupancy} + arrival_length[7:0] <= f_limit
                                     && arrival_length <= CAPACITY);
    commit_rule: assert (arrival == f_commit_ok);
    drop_rule: assert (drop == (f_end && !f_commit_ok));
    if (f_end && f_len <= MAX_FRAME_WORDS)
        short_frame_fits: assert (!f_missed_now);
    write_rule: assert (f_ram_write == f_write_ok && (!f_ram_write || f_write_address == f_address));
    no_overwrite: assert (!f_ram_write || (f_write_address - f_read_ptr) >= f_unread);
    if (arrival)
        event_lengths: assert (arrival_length == f_len_saturated);
    if (drop)
        event_drop_length: assert (drop_length == f_len_saturated);
    if (departure)
        event_departure_length: assert (departure_length == {8'd0, f_out_count} + 16'd1);
    departure_is_last_word: assert (departure == f_sent);
    peak_bounds: assert (status_peak_occupancy >= occupancy && status_peak_occupancy <= CAPACITY);

    // The output stream
    if (m_axis_tvalid)
        tkeep_contiguous: assert (((m_axis_tkeep + 8'd1) & m_axis_tkeep) == 8'd0);
    if (f_watch && f_watch_pos == 8'd0 && m_axis_tvalid)
        watched_word: assert (m_axis_tdata == f_watch_entry[63:0]
                              && m_axis_tkeep == keep_of(f_watch_entry[67:64])
                              && m_axis_tlast == f_watch_entry[68]);
    if (f_dropped_live && f_ram_read)
        dropped_word_never_read: assert (f_read_ptr != f_dropped_address);

    // Invariants: the wrapper's counts and the RTL's pointers
    inv_unsent: assert (f_unsent == {7'd0, m_axis_tvalid} + {4'd0, f_unread});
    inv_occupancy_split: assert (f_occ == f_unsent + f_out_count && f_unsent <= f_occ
                                 && {8'd0, f_out_count} == f_out_words);
    if (f_in_frame)
        // a miss needs occupancy (at most CAPACITY) + index + 1 > RAM size, so only a word
        // beyond MAX_FRAME_WORDS misses
        inv_frame: assert (f_overflow_reg == f_missed && f_words != 16'd0
                           && (f_missed ? f_words > MAX_FRAME_WORDS
                               : f_occ_wide + {2'd0, f_words} <= RAM_WORDS));
    else
        inv_between_frames: assert (f_words == 16'd0 && !f_missed);

    // Invariants: word f_w of the current frame
    if (f_cur_seen)
        // (it fitted when written, and the occupancy has not grown since: no commit mid-frame)
        inv_cur_word: assert (f_in_frame && {12'd0, f_w} < f_words
                              && f_occ_wide + {14'd0, f_w} + 18'd1 <= RAM_WORDS
                              && f_cur_address == f_commit_ptr + f_w
                              && f_ram[f_cur_address] == f_cur_entry);
    if (f_in_frame && !f_missed && {12'd0, f_w} < f_words)
        inv_cur_word_written: assert (f_cur_seen);

    // Invariants: the watched word of a committed frame, in the RAM or in the output register
    if (f_watch) begin
        inv_watch_unsent: assert (f_watch_pos < f_unsent);
        if (f_watch_pos >= {7'd0, m_axis_tvalid})
            inv_watch_in_ram: assert (f_watch_address
                                      == f_read_ptr + f_watch_pos[3:0] - {3'd0, m_axis_tvalid}
                                      && f_ram[f_watch_address] == f_watch_entry);
        else
            inv_watch_in_register: assert (f_out_entry == f_watch_entry);
    end

    // Invariants: the watched word of a dropped frame lies in the free part of the ring, ahead
    // of the words the current frame has written
    if (f_dropped_live) begin
        inv_dropped_free: assert ((f_dropped_address - f_read_ptr) >= f_unread);
        if (f_in_frame && !f_missed)
            inv_dropped_ahead: assert ({14'd0, f_dropped_address - f_commit_ptr} >= f_words);
    end
end

always @(posedge clk) begin
    if (past_valid && !$past(rst)) begin
        // the limit of the clock before: the one the last commit was checked against
        if ({3'd0, occupancy} > $past(f_limit))
            over_limit_only_drains: assert (occupancy <= $past(occupancy));
        if ($past(m_axis_tvalid && !m_axis_tready))
            output_stable: assert (m_axis_tvalid && m_axis_tdata == $past(m_axis_tdata)
                                   && m_axis_tkeep == $past(m_axis_tkeep)
                                   && m_axis_tlast == $past(m_axis_tlast));
        // the word shown was committed before the clock before (commit in n, shown in n + 2)
        if (m_axis_tvalid)
            output_after_commit: assert ($past(f_unsent) >= 8'd1 + {7'd0, $past(f_hs)});
        if ($past(f_unsent) > {7'd0, $past(m_axis_tvalid)} && $past(!m_axis_tvalid || m_axis_tready))
            output_no_bubble: assert (m_axis_tvalid);
        // the peak: the largest occupancy since the last clear, restarting from the occupancy
        // after the clock of a clear
        peak_follows: assert (status_peak_occupancy
                              == ($past(command_clear[6]) || occupancy > $past(status_peak_occupancy)
                                  ? occupancy : $past(status_peak_occupancy)));
    end
    if (past_valid && $past(rst))
        reset_empties: assert (!m_axis_tvalid && occupancy == 0);
end

// ---------------------------------------------------------------------------------------------
// Covers: the assumptions leave the interesting cases reachable from reset within the depth.
// (A full queue, a frame overflowing the RAM and a commit across the end of the ring need 12 to
// 17 words and so more clocks than the depth; the induction step covers those states.)

reg f_live_seen = 1'b0;
always @(posedge clk) begin
    if (f_dropped_live) f_live_seen <= 1'b1;
    if (rst) f_live_seen <= 1'b0;
end

always @(*) begin
    if (!rst) begin
        cover_long_frame_committed: cover (arrival && f_len > MAX_FRAME_WORDS);
        cover_limit_drop: cover (drop && !f_missed_now && occupancy != 0);
        cover_arrival_and_departure: cover (arrival && departure);
        cover_watched_word_sent: cover (f_watch && f_watch_pos == 8'd0 && f_hs
                                        && f_watch_entry[68] && f_w != 4'd0);
        cover_dropped_word_overwritten: cover (f_live_seen && !f_dropped_live && f_in_frame);
    end
end

always @(posedge clk) begin
    if (past_valid && !rst && !$past(rst)) begin
        cover_back_to_back: cover ($past(departure) && f_hs && $past(f_unsent) > 8'd1);
        cover_stalled_word_taken: cover ($past(m_axis_tvalid && !m_axis_tready) && f_hs);
        // the limit lowered below the occupancy: the queue keeps its frames and drains
        cover_over_limit_drains: cover ({3'd0, $past(occupancy)} > $past(f_limit) && departure);
    end
end

// ---------------------------------------------------------------------------------------------
// The counters (docs/regmap.md, switch block): frames and bytes stored, removed and dropped,
// each counted from the events and streams and cleared by its command; a clear in an event's
// clock leaves the counter at that event's amount

reg [63:0] f_frames_stored = 64'd0;
reg [63:0] f_bytes_stored = 64'd0;
reg [63:0] f_frames_removed = 64'd0;
reg [63:0] f_frames_dropped = 64'd0;
reg [63:0] f_bytes_dropped = 64'd0;

always @(posedge clk) begin
    f_frames_stored <= (command_clear[0] ? 64'd0 : f_frames_stored) + {63'd0, arrival};
    f_bytes_stored <= (command_clear[1] ? 64'd0 : f_bytes_stored)
        + (arrival ? {32'd0, s_frame_bytes} : 64'd0);
    f_frames_removed <= (command_clear[2] ? 64'd0 : f_frames_removed) + {63'd0, f_sent};
    f_frames_dropped <= (command_clear[4] ? 64'd0 : f_frames_dropped) + {63'd0, drop};
    f_bytes_dropped <= (command_clear[5] ? 64'd0 : f_bytes_dropped)
        + (drop ? {32'd0, s_frame_bytes} : 64'd0);
    if (rst) begin
        f_frames_stored <= 64'd0;
        f_bytes_stored <= 64'd0;
        f_frames_removed <= 64'd0;
        f_frames_dropped <= 64'd0;
        f_bytes_dropped <= 64'd0;
    end
end

always @(*) begin
    if (past_valid && !rst) begin
        frames_stored_counted: assert (status_frames_stored == f_frames_stored);
        bytes_stored_counted: assert (status_bytes_stored == f_bytes_stored);
        frames_removed_counted: assert (status_frames_removed == f_frames_removed);
        frames_dropped_counted: assert (status_frames_dropped == f_frames_dropped);
        bytes_dropped_counted: assert (status_bytes_dropped == f_bytes_dropped);
    end
end

endmodule
