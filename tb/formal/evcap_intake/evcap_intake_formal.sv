// SPDX-License-Identifier: BSD-3-Clause
/*
 * evcap_intake_formal: the event accounting of the event capture (issue: "an event is either in
 * a packet or counted in events_missed with the M flag on the next packet, never silently
 * gone"), at the intake, the only place the capture can lose events (evcap_core header).
 *
 * Proved (k-induction), with the queue inputs, configuration, commands and the record FIFO's
 * `full` all free in every clock:
 *   - events_accounted: the events captured (strobes that pass enable, queue mask and event
 *     mask, counted by the checker from the inputs) equal the events written into the record
 *     FIFO plus events_missed plus the events of the last clock, still in the intake's
 *     register (16-bit modular counts; a clear of events_missed takes out the value cleared);
 *   - record_of_its_clock: a record written carries exactly the events captured in the clock
 *     before, and their lengths saturated to 8 bits;
 *   - no_write_when_full: the intake never writes into a full FIFO (such a write is ignored
 *     by evcap_fifo, so it would lose the record silently);
 *   - missed_flag: a record written has missed_before set exactly when events were lost since
 *     the previous record written (the serializer turns it into M on the packet:
 *     tb/formal/evcap_serializer, if present, and docs/evcap-architecture.md).
 * Assumed: reset in the first clock only.
 * QUEUE_SIZE_WIDTH = 1: the occupancies are only copied into the record.
 * How: the checker recomputes the captured events from the inputs; two invariants tie its
 * state to the intake's (inv_inflight: the in-flight register holds the last clock's events;
 * inv_pending_missed: the pending M flag is the checker's "loss not yet reported").
 */

`default_nettype none

module evcap_intake_formal (
    input  wire          clk,
    input  wire          rst,
    input  wire [7:0]    queue_arrival,
    input  wire [8*16-1:0] queue_arrival_length,
    input  wire [7:0]    queue_departure,
    input  wire [8*16-1:0] queue_departure_length,
    input  wire [7:0]    queue_drop,
    input  wire [8*16-1:0] queue_drop_length,
    input  wire [7:0]    queue_occupancy,
    input  wire [63:0]   timer,
    input  wire          config_enable,
    input  wire [2:0]    config_resolution,
    input  wire [7:0]    config_queue_mask,
    input  wire [2:0]    config_event_mask,
    input  wire          command_flush,
    input  wire          record_fifo_full,
    input  wire          command_clear_events_missed
);

wire [61:0]    m_record_tick;
wire [2:0]     m_record_resolution;
wire [23:0]    m_record_events;
wire [24*8-1:0] m_record_lengths;
wire [7:0]     m_record_occupancy;
wire [7:0]     m_record_occupancy_after;
wire           m_record_close_before;
wire           m_record_seq_reset;
wire           m_record_missed_before;
wire           m_record_valid;
wire [63:0]    status_events_missed;

evcap_intake #(
    .QUEUE_SIZE_WIDTH(1)
) dut (
    .clk(clk),
    .rst(rst),
    .queue_arrival(queue_arrival),
    .queue_arrival_length(queue_arrival_length),
    .queue_departure(queue_departure),
    .queue_departure_length(queue_departure_length),
    .queue_drop(queue_drop),
    .queue_drop_length(queue_drop_length),
    .queue_occupancy(queue_occupancy),
    .timer(timer),
    .config_enable(config_enable),
    .config_resolution(config_resolution),
    .config_queue_mask(config_queue_mask),
    .config_event_mask(config_event_mask),
    .command_flush(command_flush),
    .m_record_tick(m_record_tick),
    .m_record_resolution(m_record_resolution),
    .m_record_events(m_record_events),
    .m_record_lengths(m_record_lengths),
    .m_record_occupancy(m_record_occupancy),
    .m_record_occupancy_after(m_record_occupancy_after),
    .m_record_close_before(m_record_close_before),
    .m_record_seq_reset(m_record_seq_reset),
    .m_record_missed_before(m_record_missed_before),
    .m_record_valid(m_record_valid),
    .record_fifo_full(record_fifo_full),
    .command_clear_events_missed(command_clear_events_missed),
    .status_events_missed(status_events_missed)
);

// Internal state, linked in proof.toml (invariants only)
wire [23:0] f_events_1;
wire        f_pend_missed;

// The reset the proof starts from, and rst low after it (common/formal_reset.sv)
wire f_past_valid;
formal_reset #(.ONCE(1)) initial_reset (.clk(clk), .rst(rst), .past_valid(f_past_valid));

// ---------------------------------------------------------------------------------------------
// The events captured in this clock, from the inputs (docs/evcap-architecture.md, "Intake":
// bit 3q + t, t = arrival, departure, drop), and their saturated lengths

reg [23:0]     captured;
reg [24*8-1:0] captured_lengths;
integer q;

function [7:0] sat8;
    input [15:0] length;
    sat8 = (length[15:8] != 8'd0) ? 8'hff : length[7:0];
endfunction

always @(*) begin
    for (q = 0; q < 8; q = q + 1) begin
        captured[3*q]     = config_enable && config_queue_mask[q] && config_event_mask[0] && queue_arrival[q];
        captured[3*q + 1] = config_enable && config_queue_mask[q] && config_event_mask[1] && queue_departure[q];
        captured[3*q + 2] = config_enable && config_queue_mask[q] && config_event_mask[2] && queue_drop[q];
        captured_lengths[8*(3*q) +: 8]     = sat8(queue_arrival_length[16*q +: 16]);
        captured_lengths[8*(3*q + 1) +: 8] = sat8(queue_departure_length[16*q +: 16]);
        captured_lengths[8*(3*q + 2) +: 8] = sat8(queue_drop_length[16*q +: 16]);
    end
end

function [4:0] count24;
    input [23:0] bits;
    integer i;
    begin
        count24 = 5'd0;
        for (i = 0; i < 24; i = i + 1) count24 = count24 + {4'd0, bits[i]};
    end
endfunction

// ---------------------------------------------------------------------------------------------
// Checker

reg [23:0]     f_prev = 24'd0;          // events captured in the previous clock
reg [24*8-1:0] f_prev_lengths = 192'd0;
reg [15:0]     f_balance = 16'd0;       // captured - written - cleared from events_missed
reg            f_loss_unreported = 1'b0; // events lost since the last record written

wire [15:0] written = m_record_valid ? {11'd0, count24(m_record_events)} : 16'd0;
// the previous clock's events neither written now nor ... lost now
wire        lost_now = f_prev != 24'd0 && !m_record_valid;

always @(posedge clk) begin
    f_prev <= captured;
    f_prev_lengths <= captured_lengths;
    f_balance <= f_balance + {11'd0, count24(captured)} - written
        - (command_clear_events_missed ? status_events_missed[15:0] : 16'd0);
    if (m_record_valid) f_loss_unreported <= 1'b0;
    if (lost_now) f_loss_unreported <= 1'b1;
    if (rst) begin
        f_prev <= 24'd0;
        f_balance <= 16'd0;
        f_loss_unreported <= 1'b0;
    end
end

always @(*) begin
    if (f_past_valid && !rst) begin
        events_accounted: assert (f_balance == status_events_missed[15:0] + {11'd0, count24(f_prev)});
        if (m_record_valid) begin
            record_of_its_clock: assert (m_record_events == f_prev
                                         && (f_prev == 24'd0 || m_record_lengths == f_prev_lengths));
            no_write_when_full: assert (!record_fifo_full);
            missed_flag: assert (m_record_missed_before == f_loss_unreported);
        end
        // invariants for induction
        inv_inflight: assert (f_events_1 == f_prev);
        inv_pending_missed: assert (f_pend_missed == f_loss_unreported);
    end
end

// ---------------------------------------------------------------------------------------------
// Reachability: a loss reported on the next record, and a clear while losing

always @(*) begin
    if (f_past_valid && !rst) begin
        cover_loss_then_flag: cover (m_record_valid && m_record_missed_before && m_record_events != 24'd0);
        cover_clear_while_losing: cover (lost_now && command_clear_events_missed
                                         && status_events_missed != 64'd0);
    end
end

endmodule

`default_nettype wire
