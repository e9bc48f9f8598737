/*
 * mac_rx_fifo: the receive MAC's store-and-forward frame FIFO, from the PHY's receive clock
 * (rx_clk) to the switch clock (clk), with each frame's RX timestamp.
 *
 *   rx_clk domain                           |  clk domain (the switch)
 *                                           |
 *   mac_rx bytes -> 8-byte word -> [ block RAM: 2^ADDR_WIDTH words of 69 bits ] -> m_axis
 *   frame_start: reserve the header word    |    header word -> the stamp of the frame
 *   frame_end, good: commit, else roll back |    data words  -> tdata/tkeep/tlast
 *      wr_commit (Gray) ------------------[sync]--> how far the read side may read
 *      rd_ptr    (Gray) <-----------------[sync]--- rd_ptr: how far the write side may write
 *      sfd count (Gray) ------------------[sync]--> mac_rx_stamp: time of day - LATENCY_NS
 *      write stamp into the header  <-----[sync]--- stamp tag (Gray), stamp_hold (held)
 *
 * Write side (rx_clk). At an SFD (frame_start) the frame's first word is reserved for its
 * header; its bytes are gathered into 64-bit words (byte 0 in bits 7:0) and written as they
 * come, the last one with its byte count and a last flag. At frame_end a good frame is
 * committed: the header is written (if its stamp has not already written it) and the commit
 * pointer, which the read side sees, moves past the frame. A bad frame only rolls the write
 * pointer back to the commit pointer: the read side never sees any of it. A good frame that
 * finds the RAM full at any of its words stops being written and is rolled back too, and
 * counted (stat_overflows): frames are dropped whole, never cut.
 *
 *   RAM word: data   {1'b0, last, bytes - 1 [2:0], tdata[63:0]}
 *             header {1'b1, 5'b0, stamp valid, seconds[31:0], nanoseconds[29:0]}
 *
 * Read side (clk). Words are read from the RAM's registered output as long as the commit
 * pointer is ahead, one per clock while m_axis takes them: a header goes to the frame's pending
 * stamp (no m_axis clock of its own), data words to the m_axis output register; the frame's
 * first word takes the pending stamp to m_axis_rx_timestamp(_valid), held until the next
 * frame's first word. Words are presented as pktstats_core's s_axis ports expect them: byte 0
 * in tdata[7:0], tkeep contiguous from bit 0, all ones but on the last word.
 *
 * The RX timestamp. At frame_start the write side counts the SFD (a Gray-coded count, one
 * step per SFD); mac_rx_stamp, in clk, sees the count change through a 2-flop synchronizer,
 * samples the time of day, subtracts LATENCY_NS and holds the stamp with the count (its tag).
 * The write side, seeing the tag equal to its frame's count (through its own synchronizer),
 * takes the held stamp (it does not change until the next SFD, at least a minimum frame later)
 * and writes it into the frame's header word. The stamp is thus carried in the RAM with its
 * frame: a dropped frame's stamp goes with its rollback and cannot shift a later frame's.
 * The round trip takes about 5 rx clocks plus 3 switch clocks; a good frame takes at least 72
 * rx clocks from its SFD to its end, so its stamp is always there when it commits; if ever not
 * (the switch clock stopped), the frame goes without (m_axis_rx_timestamp_valid = 0, the
 * switch's fallback stamp). Accuracy: mac_rx_stamp's header (the stamp is the time of day of
 * the clock of the frame's first bit or of the next clock).
 *
 * Capacity: 2^ADDR_WIDTH words of 8 bytes, one of them a frame's header: 2^11 = 16 KiB, as
 * sim/mac_model.h's receive FIFO. A frame longer than the RAM can never pass (keep
 * 8 * (2^ADDR_WIDTH - 1) at least mac_rx's MAX_FRAME_BYTES). Both resets are synchronous to
 * their own clocks and must be asserted together (the board's reset, synchronized into each
 * domain). On the board, the crossings need the usual constraints: set_max_delay
 * -datapath_only of one clock on the Gray pointers and counts, on stamp_hold and on the
 * RAM's dual-clock paths.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module mac_rx_fifo #(
    parameter ADDR_WIDTH = 11,  // log2 of the RAM's words (8 bytes each): 11 = 16 KiB, 4 RAMB36
    parameter SEQ_WIDTH = 6,    // bits of the SFD count that tags the stamps across the domains
    parameter LATENCY_NS = 96   // mac_rx_stamp's: first bit to the time of day sampled, in ns
) (
    // Receive clock domain: the frame from mac_rx
    input  wire        rx_clk,
    input  wire        rx_rst,          // synchronous to rx_clk, active high
    input  wire        frame_start,
    input  wire [7:0]  byte_data,
    input  wire        byte_valid,
    input  wire        frame_end,
    input  wire        frame_good,
    output reg         stat_overflows,  // pulse (rx_clk): a good frame dropped, no room
    // Switch clock domain
    input  wire        clk,
    input  wire        rst,             // synchronous to clk, active high
    input  wire [31:0] tod_seconds,     // the switch's time of day (low 32 bits of the seconds)
    input  wire [29:0] tod_nanoseconds,
    output reg  [63:0] m_axis_tdata,
    output reg  [7:0]  m_axis_tkeep,
    output reg         m_axis_tvalid,
    input  wire        m_axis_tready,
    output reg         m_axis_tlast,
    output reg  [61:0] m_axis_rx_timestamp,       // {seconds, nanoseconds} of the frame's first bit
    output reg         m_axis_rx_timestamp_valid  // with the first word (held to the next first word)
);

localparam AW = ADDR_WIDTH;
localparam DEPTH = 1 << AW;
localparam [AW:0] ONE = {{AW{1'b0}}, 1'b1};

function [AW:0] bin2gray(input [AW:0] bin);
    bin2gray = bin ^ (bin >> 1);
endfunction

function [AW:0] gray2bin(input [AW:0] gray);
    integer k;
    begin
        gray2bin[AW] = gray[AW];
        for (k = AW - 1; k >= 0; k = k - 1)
            gray2bin[k] = gray2bin[k + 1] ^ gray[k];
    end
endfunction

reg [68:0] ram [0:DEPTH-1];

// ---------------------------------------------------------------------------------------------
// Write side (rx_clk)

reg [AW:0] wr_ptr;          // next word to write
reg [AW:0] wr_commit;       // end of the last committed frame
reg [AW:0] wr_commit_gray;  // its Gray code, to the read side
reg [AW-1:0] frame_base;    // the frame's header word
reg in_frame;               // between frame_start and frame_end
reg dropping;               // the frame found the RAM full: it is not written any more
reg closing;                // the clock after a good frame's end: header, commit
reg [63:0] word;            // the bytes gathered
reg [3:0] word_bytes;       // how many (0..8)
reg header_written;
reg stamp_have;             // the frame's stamp has come
reg [61:0] stamp;
reg [SEQ_WIDTH-1:0] sfd_count;  // SFDs so far, binary
reg [SEQ_WIDTH-1:0] sfd_gray;   // and Gray-coded, to mac_rx_stamp

wire [AW:0] rd_gray_sync;
wire [AW:0] rd_ptr_sync = gray2bin(rd_gray_sync);
wire [AW:0] used = wr_ptr - rd_ptr_sync;
wire full = used[AW]; // DEPTH words written and not yet read

wire [61:0] stamp_hold;
wire [SEQ_WIDTH-1:0] stamp_tag_gray;
wire [SEQ_WIDTH-1:0] stamp_tag_sync;

wire word_full_write = in_frame && byte_valid && word_bytes == 4'd8 && !dropping && !full;
wire word_last_write = in_frame && frame_end && frame_good && !dropping && !full && word_bytes != 4'd0;
wire word_write = word_full_write || word_last_write;
wire header_write = !word_write && !header_written && !dropping &&
                    ((in_frame && stamp_have) || closing);
wire [AW-1:0] write_addr = word_write ? wr_ptr[AW-1:0] : frame_base;
wire [2:0] word_bytes_minus_1 = word_bytes[2:0] - 3'd1; // 8 bytes: 7
wire [68:0] write_data = word_write ? {1'b0, word_last_write, word_bytes_minus_1, word}
                                    : {1'b1, 5'd0, stamp_have, stamp};

always @(posedge rx_clk) begin
    if (word_write || header_write)
        ram[write_addr] <= write_data;
end

always @(posedge rx_clk) begin
    stat_overflows <= 1'b0;
    closing <= 1'b0;
    if (rx_rst) begin
        wr_ptr <= {(AW + 1){1'b0}};
        wr_commit <= {(AW + 1){1'b0}};
        wr_commit_gray <= {(AW + 1){1'b0}};
        frame_base <= {AW{1'b0}};
        in_frame <= 1'b0;
        dropping <= 1'b0;
        word <= 64'd0;
        word_bytes <= 4'd0;
        header_written <= 1'b0;
        stamp_have <= 1'b0;
        stamp <= 62'd0;
        sfd_count <= {SEQ_WIDTH{1'b0}};
        sfd_gray <= {SEQ_WIDTH{1'b0}};
    end else begin
        if (header_write)
            header_written <= 1'b1;
        // the stamp of this frame's SFD, held by mac_rx_stamp until the next SFD
        if (in_frame && !stamp_have && stamp_tag_sync == sfd_gray) begin
            stamp_have <= 1'b1;
            stamp <= stamp_hold;
        end
        if (frame_start) begin
            sfd_count <= sfd_count + 1'b1;
            sfd_gray <= (sfd_count + 1'b1) ^ ((sfd_count + 1'b1) >> 1);
            in_frame <= 1'b1;
            word_bytes <= 4'd0;
            header_written <= 1'b0;
            stamp_have <= 1'b0;
            frame_base <= wr_ptr[AW-1:0];
            dropping <= full;
            if (!full)
                wr_ptr <= wr_ptr + ONE;
        end else if (in_frame && byte_valid) begin
            if (word_bytes == 4'd8) begin
                if (word_full_write)
                    wr_ptr <= wr_ptr + ONE;
                else
                    dropping <= 1'b1;
                word <= {56'd0, byte_data};
                word_bytes <= 4'd1;
            end else begin
                word[8 * word_bytes[2:0] +: 8] <= byte_data;
                word_bytes <= word_bytes + 4'd1;
            end
        end else if (in_frame && frame_end) begin
            in_frame <= 1'b0;
            if (word_last_write) begin
                wr_ptr <= wr_ptr + ONE;
                closing <= 1'b1;
            end else begin
                wr_ptr <= wr_commit;
                stat_overflows <= frame_good;
            end
        end
        if (closing) begin
            wr_commit <= wr_ptr;
            wr_commit_gray <= bin2gray(wr_ptr);
        end
    end
end

mac_rx_sync #(
    .WIDTH(AW + 1)
) rd_ptr_synchronizer (
    .clk(rx_clk),
    .in(rd_gray),
    .out(rd_gray_sync)
);

mac_rx_sync #(
    .WIDTH(SEQ_WIDTH)
) stamp_tag_synchronizer (
    .clk(rx_clk),
    .in(stamp_tag_gray),
    .out(stamp_tag_sync)
);

// ---------------------------------------------------------------------------------------------
// The stamp, in clk

mac_rx_stamp #(
    .SEQ_WIDTH(SEQ_WIDTH),
    .LATENCY_NS(LATENCY_NS)
) stamper (
    .clk(clk),
    .rst(rst),
    .sfd_gray(sfd_gray),
    .tod_seconds(tod_seconds),
    .tod_nanoseconds(tod_nanoseconds),
    .stamp_hold(stamp_hold),
    .stamp_tag_gray(stamp_tag_gray)
);

// ---------------------------------------------------------------------------------------------
// Read side (clk)

reg [AW:0] rd_ptr;        // next word to read
reg [AW:0] rd_gray;       // its Gray code, to the write side
reg [68:0] ram_q;         // the RAM's output register
reg ram_q_valid;          // holds a word not yet taken
reg first_word;           // the next data word begins a frame
reg [61:0] pending_stamp; // the header's stamp, for the frame's first word
reg pending_stamp_valid;

wire [AW:0] wr_commit_sync_gray;
wire [AW:0] wr_commit_sync = gray2bin(wr_commit_sync_gray);

mac_rx_sync #(
    .WIDTH(AW + 1)
) wr_commit_synchronizer (
    .clk(clk),
    .in(wr_commit_gray),
    .out(wr_commit_sync_gray)
);

wire ram_q_header = ram_q[68];
wire output_free = !m_axis_tvalid || m_axis_tready;
wire ram_q_take = ram_q_valid && (ram_q_header || output_free);
wire read = rd_ptr != wr_commit_sync && (!ram_q_valid || ram_q_take);
wire [AW:0] rd_ptr_next = rd_ptr + ONE;
wire [2:0] ram_q_bytes_minus_1 = ram_q[66:64];

always @(posedge clk) begin
    if (read)
        ram_q <= ram[rd_ptr[AW-1:0]];
end

always @(posedge clk) begin
    if (rst) begin
        rd_ptr <= {(AW + 1){1'b0}};
        rd_gray <= {(AW + 1){1'b0}};
        ram_q_valid <= 1'b0;
        first_word <= 1'b1;
        pending_stamp <= 62'd0;
        pending_stamp_valid <= 1'b0;
        m_axis_tdata <= 64'd0;
        m_axis_tkeep <= 8'd0;
        m_axis_tvalid <= 1'b0;
        m_axis_tlast <= 1'b0;
        m_axis_rx_timestamp <= 62'd0;
        m_axis_rx_timestamp_valid <= 1'b0;
    end else begin
        if (read) begin
            rd_ptr <= rd_ptr_next;
            rd_gray <= bin2gray(rd_ptr_next);
        end
        if (read)
            ram_q_valid <= 1'b1;
        else if (ram_q_take)
            ram_q_valid <= 1'b0;
        if (m_axis_tvalid && m_axis_tready)
            m_axis_tvalid <= 1'b0;
        if (ram_q_take && ram_q_header) begin
            pending_stamp <= ram_q[61:0];
            pending_stamp_valid <= ram_q[62];
        end
        if (ram_q_take && !ram_q_header) begin
            m_axis_tvalid <= 1'b1;
            m_axis_tdata <= ram_q[63:0];
            m_axis_tlast <= ram_q[67];
            m_axis_tkeep <= ram_q[67] ? 8'hff >> (3'd7 - ram_q_bytes_minus_1) : 8'hff;
            first_word <= ram_q[67];
            if (first_word) begin
                m_axis_rx_timestamp <= pending_stamp;
                m_axis_rx_timestamp_valid <= pending_stamp_valid;
            end
        end
    end
end

endmodule

`resetall
