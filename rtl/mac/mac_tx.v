/*
 * mac_tx: the transmit half of the 1 Gb/s Ethernet MAC (issue 16): one 64-bit AXI4-Stream
 * port of pktstats_core (m_axis port i: byte 0 of the frame in tdata[7:0], tkeep contiguous,
 * all ones before tlast, no FCS) in, a GMII byte stream out, one byte per 125 MHz clock
 * (mac_rgmii_tx turns it into RGMII).
 *
 * The byte stream of one frame of N bytes (P = max(N, MIN_FRAME_BYTES), padding zeros):
 *
 *   byte time  0 .. 6   7     8 .. 8+N-1   8+N .. 8+P-1   8+P .. 8+P+3   8+P+4 .. 8+P+15
 *   gmii_txd   55 .. 55 D5    frame bytes  00 .. 00       FCS[7:0] ..    (idle)
 *                                                         FCS[31:24]
 *   tx_en      1  .. 1  1     1 .. 1       1 .. 1         1 .. 1         0 .. 0 (IFG_BYTES)
 *              |<------------------ 8 + P + 4 ---------------------->|<---- 12 ---->|
 *              ^ the first word's handshake was in the clock before byte time 0
 *
 * Timing contract (docs/timestamps.md takes the TX stamp in the clock of the first word's
 * handshake):
 *   - Latency, 1 clock: the first preamble byte is on gmii_txd (gmii_tx_en rising) in the clock
 *     right after the clock of the first word's handshake (tvalid && tready), for every frame;
 *     mac_rgmii_tx adds one clock more to the RGMII pins (its ODDRs).
 *   - The first word of a frame is taken (tready high while no frame is on the line) from the
 *     IFG_BYTES-th idle byte time on, so the next preamble follows the last FCS byte after
 *     exactly IFG_BYTES idle bytes when the word is there in time. Back-to-back frames start
 *     8 + max(N, 60) + 4 + 12 byte times apart: sim/link_timing.h's wire_byte_times(N), and
 *     the first words' handshakes are as far apart as in the simulator's MacModel.
 *   - After reset the line is idle for IFG_BYTES byte times before the first frame may start.
 *
 * The following words are taken only as the serializer needs them (no frame buffer): besides
 * the word being sent (cur) there is one word of skid (nxt). tready is high while a frame is
 * in its preamble or data, its tlast word has not been taken and nxt is empty: the second word
 * is taken as soon as it comes, then one word each 8 clocks. Deadline: with s the clock of
 * the first word's handshake, word j (j >= 1) must be taken by clock s + 8j + 7, the clock in
 * which the last byte of word j - 1 goes into gmii_txd (then it goes straight into cur). When
 * the source keeps up, tready rises for word j >= 2 in clock s + 8j, 8 clocks before its
 * deadline; word 1 has 15. Words between a frame's first word and its tlast are sent whole
 * (8 bytes); the tlast word's bytes are those up to the highest bit set in its tkeep (at least
 * 1; a contiguous tkeep, the only kind the core gives, selects exactly its bytes).
 *
 * Underrun (no word by its deadline; the switch's queues are store-and-forward, so it should
 * not happen): the bytes sent so far are followed at once by 4 FCS bytes that are the
 * CRC register NOT complemented (never the right FCS) with gmii_tx_er high on all 4 (the PHY
 * sends error symbols), then the normal gap; no padding. stat_underrun pulses, and the rest of
 * that frame's words are taken and discarded (tready high until its tlast; words arriving
 * during the bad FCS and the gap too). The next frame starts clean, at the earliest after the
 * gap and after the discarded tlast.
 *
 * Counters (for a register block): one-clock pulses, in the clock in which the last FCS byte
 * is on gmii_txd:
 *   stat_frame_sent  a frame went out whole with its FCS; stat_frame_bytes its byte count as
 *                    the simulator's MacModel counts bytes_transmitted: frame bytes padded to
 *                    60, without preamble, SFD and FCS (saturating at 2^LEN_WIDTH - 1);
 *                    stat_frame_bytes is 0 without the pulse.
 *   stat_underrun    a frame was ended by an underrun (pulses in the clock its first bad FCS
 *                    byte is on gmii_txd; not counted in stat_frame_sent).
 *
 * Reset (rst, synchronous, active high) forgets the frame in progress: the line is idle
 * (gmii_tx_en and gmii_tx_er low) from the clock after the reset clock, no counter pulses for
 * that frame, nothing is discarded afterwards (the stream's source is reset with the MAC, as
 * pktstats_core is by the same rst), and the gap is kept before the next frame.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module mac_tx #(
    // Idle byte times between the last FCS byte and the next preamble (802.3: 12, at least;
    // at most 31 here)
    parameter IFG_BYTES = 12,
    // Frames shorter than this (without FCS) are padded with zeros to it (802.3: 60)
    parameter MIN_FRAME_BYTES = 60,
    // Width of the per-frame byte count (stat_frame_bytes), at most 32; 16 covers jumbo frames
    parameter LEN_WIDTH = 16
) (
    input  wire                 clk,    // 125 MHz, the switch clock
    input  wire                 rst,    // synchronous, active high

    // The frame from the switch, 64-bit AXI4-Stream, byte 0 in tdata[7:0]
    input  wire [63:0]          s_axis_tdata,
    input  wire [7:0]           s_axis_tkeep,
    input  wire                 s_axis_tvalid,
    output wire                 s_axis_tready,
    input  wire                 s_axis_tlast,

    // GMII transmit, one byte per clk
    output wire [7:0]           gmii_txd,
    output wire                 gmii_tx_en,
    output wire                 gmii_tx_er,

    // Counter pulses (see the header)
    output wire                 stat_frame_sent,
    output wire [LEN_WIDTH-1:0] stat_frame_bytes,
    output wire                 stat_underrun
);

localparam [2:0] STATE_IDLE = 3'd0,     // gap, then waiting for a first word
                 STATE_PREAMBLE = 3'd1, // 7 x 0x55 and the SFD
                 STATE_DATA = 3'd2,     // the frame's bytes
                 STATE_PAD = 3'd3,      // zeros up to MIN_FRAME_BYTES
                 STATE_FCS = 3'd4;      // 4 FCS bytes

localparam [7:0] PREAMBLE_BYTE = 8'h55,
                 SFD_BYTE = 8'hd5;

localparam [LEN_WIDTH-1:0] LEN_MAX = {LEN_WIDTH{1'b1}};
localparam integer PAD_LAST = MIN_FRAME_BYTES - 1;
localparam [LEN_WIDTH-1:0] LEN_PAD_LAST = PAD_LAST[LEN_WIDTH-1:0];
localparam [4:0] IFG_COUNT = IFG_BYTES[4:0];

reg [2:0]           state_reg = STATE_IDLE;
reg [2:0]           count_reg = 3'd0;        // preamble bytes sent (1..7), FCS bytes sent (0..3)
reg [4:0]           idle_reg = 5'd0;         // idle byte times on the line, up to IFG_BYTES
reg [LEN_WIDTH-1:0] len_reg = {LEN_WIDTH{1'b0}}; // frame bytes sent, padding included

reg [63:0]          cur_data_reg = 64'd0;    // the word being sent, next byte in bits 7:0
reg [2:0]           cur_left_reg = 3'd0;     // its bytes still to send, minus 1
reg                 cur_last_reg = 1'b0;     // it is the frame's last word
reg [63:0]          nxt_data_reg = 64'd0;    // the skid word
reg [2:0]           nxt_left_reg = 3'd0;
reg                 nxt_last_reg = 1'b0;
reg                 nxt_valid_reg = 1'b0;
reg                 last_taken_reg = 1'b0;   // the frame's tlast word has been taken
reg                 discard_reg = 1'b0;      // dropping the words of an underrun frame
reg                 bad_fcs_reg = 1'b0;      // this frame ends with a bad FCS and tx_er

reg [31:0]          crc_reg = 32'hffffffff;

reg [7:0]           txd_reg = 8'd0;
reg                 tx_en_reg = 1'b0;
reg                 tx_er_reg = 1'b0;
reg                 frame_sent_reg = 1'b0;
reg [LEN_WIDTH-1:0] frame_bytes_reg = {LEN_WIDTH{1'b0}};
reg                 underrun_reg = 1'b0;

// tready: a first word when the gap is over, a next word into the skid, or words to discard
wire start_ready = state_reg == STATE_IDLE && idle_reg == IFG_COUNT && !discard_reg;
wire fetch_ready = (state_reg == STATE_PREAMBLE || state_reg == STATE_DATA) && !last_taken_reg &&
                   !nxt_valid_reg && !discard_reg;
wire tready = start_ready || fetch_ready || discard_reg;
wire fire = s_axis_tvalid && tready;

// Bytes of an incoming word, minus 1: 7 before tlast, else up to tkeep's highest set bit
reg [2:0] in_left;
integer keep_index;
always @* begin
    in_left = 3'd0;
    for (keep_index = 0; keep_index < 8; keep_index = keep_index + 1)
        if (s_axis_tkeep[keep_index] || !s_axis_tlast)
            in_left = keep_index[2:0];
end

// The byte going out in the DATA or PAD state and the CRC register after it
wire [7:0]  data_byte = state_reg == STATE_DATA ? cur_data_reg[7:0] : 8'd0;
wire [31:0] crc_next;

mac_crc32 crc_inst (
    .crc_in(crc_reg),
    .data(data_byte),
    .crc_out(crc_next)
);

wire [LEN_WIDTH-1:0] len_next = len_reg == LEN_MAX ? LEN_MAX : len_reg + 1'b1;
// After this data or pad byte the frame is at least MIN_FRAME_BYTES long
wire len_done = len_reg >= LEN_PAD_LAST;

always @(posedge clk) begin
    frame_sent_reg <= 1'b0;
    frame_bytes_reg <= {LEN_WIDTH{1'b0}};
    underrun_reg <= 1'b0;

    // Words to discard after an underrun, until the frame's tlast
    if (discard_reg && s_axis_tvalid && s_axis_tlast)
        discard_reg <= 1'b0;

    // A next word into the skid (moved straight into cur below when cur runs out now)
    if (fire && fetch_ready) begin
        nxt_data_reg <= s_axis_tdata;
        nxt_left_reg <= in_left;
        nxt_last_reg <= s_axis_tlast;
        nxt_valid_reg <= 1'b1;
        last_taken_reg <= s_axis_tlast;
    end

    case (state_reg)
        STATE_IDLE: begin
            txd_reg <= 8'd0;
            tx_en_reg <= 1'b0;
            tx_er_reg <= 1'b0;
            if (idle_reg != IFG_COUNT)
                idle_reg <= idle_reg + 1'b1;
            if (fire && start_ready) begin
                // The first word: the first preamble byte goes out in the next clock
                cur_data_reg <= s_axis_tdata;
                cur_left_reg <= in_left;
                cur_last_reg <= s_axis_tlast;
                last_taken_reg <= s_axis_tlast;
                nxt_valid_reg <= 1'b0;
                bad_fcs_reg <= 1'b0;
                crc_reg <= 32'hffffffff;
                len_reg <= {LEN_WIDTH{1'b0}};
                txd_reg <= PREAMBLE_BYTE;
                tx_en_reg <= 1'b1;
                count_reg <= 3'd1;
                state_reg <= STATE_PREAMBLE;
            end
        end
        STATE_PREAMBLE: begin
            if (count_reg == 3'd7) begin
                txd_reg <= SFD_BYTE;
                state_reg <= STATE_DATA;
            end else begin
                txd_reg <= PREAMBLE_BYTE;
                count_reg <= count_reg + 1'b1;
            end
        end
        STATE_DATA: begin
            txd_reg <= data_byte;
            crc_reg <= crc_next;
            len_reg <= len_next;
            cur_data_reg <= {8'd0, cur_data_reg[63:8]};
            cur_left_reg <= cur_left_reg - 1'b1;
            if (cur_left_reg == 3'd0) begin
                // The word's last byte: the next byte comes from the next word, padding or FCS
                if (cur_last_reg) begin
                    state_reg <= len_done ? STATE_FCS : STATE_PAD;
                    count_reg <= 3'd0;
                end else if (nxt_valid_reg) begin
                    cur_data_reg <= nxt_data_reg;
                    cur_left_reg <= nxt_left_reg;
                    cur_last_reg <= nxt_last_reg;
                    nxt_valid_reg <= 1'b0;
                end else if (fire) begin
                    cur_data_reg <= s_axis_tdata;
                    cur_left_reg <= in_left;
                    cur_last_reg <= s_axis_tlast;
                    nxt_valid_reg <= 1'b0;
                end else begin
                    // Underrun: end the frame with a bad FCS, drop the rest of its words
                    state_reg <= STATE_FCS;
                    count_reg <= 3'd0;
                    bad_fcs_reg <= 1'b1;
                    discard_reg <= 1'b1;
                end
            end
        end
        STATE_PAD: begin
            txd_reg <= data_byte;
            crc_reg <= crc_next;
            len_reg <= len_next;
            if (len_done) begin
                state_reg <= STATE_FCS;
                count_reg <= 3'd0;
            end
        end
        default: begin // STATE_FCS: the register's complement, least significant byte first
            txd_reg <= bad_fcs_reg ? crc_reg[7:0] : ~crc_reg[7:0];
            tx_er_reg <= bad_fcs_reg;
            crc_reg <= {8'd0, crc_reg[31:8]};
            count_reg <= count_reg + 1'b1;
            if (count_reg == 3'd0)
                underrun_reg <= bad_fcs_reg;
            if (count_reg == 3'd3) begin
                frame_sent_reg <= !bad_fcs_reg;
                frame_bytes_reg <= bad_fcs_reg ? {LEN_WIDTH{1'b0}} : len_reg;
                idle_reg <= 5'd0;
                state_reg <= STATE_IDLE;
            end
        end
    endcase

    if (rst) begin
        state_reg <= STATE_IDLE;
        count_reg <= 3'd0;
        idle_reg <= 5'd0;
        nxt_valid_reg <= 1'b0;
        last_taken_reg <= 1'b0;
        discard_reg <= 1'b0;
        bad_fcs_reg <= 1'b0;
        txd_reg <= 8'd0;
        tx_en_reg <= 1'b0;
        tx_er_reg <= 1'b0;
        frame_sent_reg <= 1'b0;
        frame_bytes_reg <= {LEN_WIDTH{1'b0}};
        underrun_reg <= 1'b0;
    end
end

assign s_axis_tready = tready;
assign gmii_txd = txd_reg;
assign gmii_tx_en = tx_en_reg;
assign gmii_tx_er = tx_er_reg;
assign stat_frame_sent = frame_sent_reg;
assign stat_frame_bytes = frame_bytes_reg;
assign stat_underrun = underrun_reg;

endmodule

`resetall
