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
 * Write side (rx_clk). A frame's bytes are gathered into 64-bit words (byte 0 in bits 7:0) and
 * written as they come, the last one with its byte count and a last flag. At frame_end a good
 * frame is committed: its stamp is written into the stamp RAM, at the frame's number, and the
 * commit pointer, which the read side sees, moves past the frame. A bad frame only rolls the
 * write pointer back to the commit pointer: the read side never sees any of it. A good frame
 * that finds the RAM full at any of its words stops being written and is rolled back too, and
 * counted (stat_overflows): frames are dropped whole, never cut.
 *
 *   data RAM word (2^ADDR_WIDTH):        {last, bytes - 1 [2:0], tdata[63:0]}
 *   stamp RAM word (2^(ADDR_WIDTH - 3)): {stamp valid, seconds[31:0], nanoseconds[29:0]}
 *
 * The stamps have a RAM of their own, one word per frame (a good frame has at least 8 data
 * words, so the data RAM holds at most 2^(ADDR_WIDTH - 3) frames), so that frames waiting in
 * the FIFO stream out back to back: a stamp word in the data RAM would take a read of its own
 * and leave a clock without a word on m_axis between two such frames, which the simulator's
 * MAC model (sim/mac_model.h) does not have.
 *
 * Read side (clk). Words are read from the RAM's registered output as long as the commit
 * pointer is ahead, one per clock while m_axis takes them, into the m_axis output register.
 * The stamp RAM is read every clock at the number of the frame whose first word comes next;
 * that word takes the stamp to m_axis_rx_timestamp(_valid), held until the next frame's first
 * word. (A frame's stamp is written in the rx clock in which its commit moves, two switch clocks
 * at least before the read side sees the commit and reads the frame's first word.) Words are
 * presented as pktstats_core's s_axis ports expect them: byte 0 in tdata[7:0], tkeep contiguous
 * from bit 0, all ones but on the last word.
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
localparam FW = AW - 3;         // frame numbers: at most 2^FW frames in the data RAM
localparam FRAMES = 1 << FW;
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

reg [67:0] ram [0:DEPTH-1];
reg [62:0] stamp_ram [0:FRAMES-1];

// ---------------------------------------------------------------------------------------------
// Write side (rx_clk)

reg [AW:0] wr_ptr;          // next word to write
reg [AW:0] wr_commit;       // end of the last committed frame
reg [AW:0] wr_commit_gray;  // its Gray code, to the read side
reg [FW-1:0] wr_frame;      // the number of the next frame to commit
reg in_frame;               // between frame_start and frame_end
reg dropping;               // the frame found the RAM full: it is not written any more
reg closing;                // the clock after a good frame's end: stamp, commit
reg [63:0] word;            // the bytes gathered
reg [3:0] word_bytes;       // how many (0..8)
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
wire [2:0] word_bytes_minus_1 = word_bytes[2:0] - 3'd1; // 8 bytes: 7

always @(posedge rx_clk) begin
    if (word_write)
        ram[wr_ptr[AW-1:0]] <= {word_last_write, word_bytes_minus_1, word};
end

always @(posedge rx_clk) begin
    if (closing)
        stamp_ram[wr_frame] <= {stamp_have, stamp};
end

always @(posedge rx_clk) begin
    stat_overflows <= 1'b0;
    closing <= 1'b0;
    if (rx_rst) begin
        wr_ptr <= {(AW + 1){1'b0}};
        wr_commit <= {(AW + 1){1'b0}};
        wr_commit_gray <= {(AW + 1){1'b0}};
        wr_frame <= {FW{1'b0}};
        in_frame <= 1'b0;
        dropping <= 1'b0;
        word <= 64'd0;
        word_bytes <= 4'd0;
        stamp_have <= 1'b0;
        stamp <= 62'd0;
        sfd_count <= {SEQ_WIDTH{1'b0}};
        sfd_gray <= {SEQ_WIDTH{1'b0}};
    end else begin
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
            stamp_have <= 1'b0;
            dropping <= 1'b0;
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
            wr_frame <= wr_frame + 1'b1;
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
reg [67:0] ram_q;         // the RAM's output register
reg ram_q_valid;          // holds a word not yet taken
reg first_word;           // the next data word begins a frame
reg [FW-1:0] rd_frame;    // the number of the frame whose first word comes next
reg [62:0] stamp_q;       // the stamp RAM's output register: that frame's stamp

wire [AW:0] wr_commit_sync_gray;
wire [AW:0] wr_commit_sync = gray2bin(wr_commit_sync_gray);

mac_rx_sync #(
    .WIDTH(AW + 1)
) wr_commit_synchronizer (
    .clk(clk),
    .in(wr_commit_gray),
    .out(wr_commit_sync_gray)
);

wire output_free = !m_axis_tvalid || m_axis_tready;
wire ram_q_take = ram_q_valid && output_free;
wire read = rd_ptr != wr_commit_sync && (!ram_q_valid || ram_q_take);
wire [AW:0] rd_ptr_next = rd_ptr + ONE;
wire ram_q_last = ram_q[67];
wire [2:0] ram_q_bytes_minus_1 = ram_q[66:64];
// the frame whose first word comes next, from the next clock on
wire [FW-1:0] rd_frame_next = ram_q_take && ram_q_last ? rd_frame + 1'b1 : rd_frame;

always @(posedge clk) begin
    if (read)
        ram_q <= ram[rd_ptr[AW-1:0]];
    stamp_q <= stamp_ram[rd_frame_next];
end

always @(posedge clk) begin
    if (rst) begin
        rd_ptr <= {(AW + 1){1'b0}};
        rd_gray <= {(AW + 1){1'b0}};
        ram_q_valid <= 1'b0;
        first_word <= 1'b1;
        rd_frame <= {FW{1'b0}};
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
        rd_frame <= rd_frame_next;
        if (ram_q_take) begin
            m_axis_tvalid <= 1'b1;
            m_axis_tdata <= ram_q[63:0];
            m_axis_tlast <= ram_q_last;
            m_axis_tkeep <= ram_q_last ? 8'hff >> (3'd7 - ram_q_bytes_minus_1) : 8'hff;
            first_word <= ram_q_last;
            if (first_word) begin
                m_axis_rx_timestamp <= stamp_q[61:0];
                m_axis_rx_timestamp_valid <= stamp_q[62];
            end
        end
    end
end

endmodule

`resetall
