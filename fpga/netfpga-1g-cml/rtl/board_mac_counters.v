/*
 * board_mac_counters: the register block of the four RTL MACs' statistics on the NetFPGA-1G-CML
 * top (the `mac` block of regmap/mac.toml, base 0x7000, rtl/gen/mac_regs.v): per MAC port,
 * frames and bytes sent, underruns (mac_tx, clk domain), and frames and bytes received, FCS
 * errors, runts, giants, preamble errors, RX errors and FIFO overflows (mac_rx_port, each in
 * its own rgmii{i}_rxc domain). 44 counters of 64 bits, in clk, cleared by a write to either
 * word (never by a read, never by anything but rst).
 *
 *   tx_* pulses (clk) ------------------------------------------------+--> +1 / +bytes
 *   rx_* pulses (rx_clk[i]) -> toggle per event --> mac_rx_sync (clk)  |     64-bit counters
 *   rx_bytes_received ------> held with the frame's toggle ------------+     -> mac_regs -> s_axil
 *   rx_rst[i] ----------------------------------> mac_rx_sync (clk) -> counting of port i's
 *                                                                       rx events held off
 *
 * Crossing the receive side: each rx event (frames, fcs, runts, giants, preamble, rx_er,
 * overflows) flips a flip-flop of its own in rx_clk[i]; the toggles go through two ASYNC_REG
 * flip-flops of clk (mac_rx_sync); a change is registered once more (rx_event) and counted.
 * Why a toggle per event and not a count crossed in Gray code: every stat pulse of mac_rx and
 * mac_rx_fifo marks the end of a frame, so pulses of one kind are at least a minimum frame
 * apart (about 84 rx clocks), while a toggle is seen in clk 3 to 4 clocks after it flips: a
 * toggle flips at most once per crossing, so no event is lost, with one flip-flop in the rx
 * domain and three in clk per event (a Gray counter would take some ten per event). Events of
 * different kinds may come in the same or neighbouring clocks (a good frame and its overflow):
 * each has its own toggle. The byte count of a good frame cannot cross bit by bit: it is held
 * in a register (rx_bytes_hold) written in the clock the frame's toggle flips, and read in clk
 * only when that flip has crossed (3 or more clk edges later; it then stays still until the
 * next good frame, 84 rx clocks or more away): bundled data, as board_axil_cdc's. In Vivado the
 * hold register's paths to clk lie between the asynchronous clock groups of timing.xdc; they
 * must be shorter than 2 clk periods (a set_max_delay -datapath_only 16 would say so).
 *
 * Resets (synchronous, active high): rst clears the counters; while in it, the last stage of
 * each synchronizer follows its input (rx_toggle_seen), so a toggle that is high when rst ends
 * is no event. rx_rst[i] clears port i's toggles and held bytes in rx_clk[i]; a toggle falling
 * from 1 to 0 there would look like an event, so rx_rst[i] also crosses (mac_rx_sync) and,
 * while it is high in clk, port i's rx events are not counted (the toggles fall one rx clock
 * after rx_rst rises; their change reaches the count through one flip-flop more than rx_rst
 * does, so rx_rst_sync is high by then even when its synchronizer takes one clock longer; and
 * rx_rst lasts 2^HOLD_LOG2 + 3 >= 19 rx clocks, board_reset_sync, so it is still high). The synchronizer flip-flops themselves have no
 * reset (mac_rx_sync): they follow their input within 2 clocks.
 *
 * The block's MDIO registers (mdio_frame, mdio_command, mdio_status) only pass through here:
 * board_mdio, beside this module in the top, sends the frames.
 *
 * Counting: a counter takes 0 when cleared, then adds what comes in the same clock (an event
 * in the clock of its clear is counted, as evcap's and flowlat's counters do).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_mac_counters #(
    parameter LEN_WIDTH = 16 // width of the per-frame byte counts (mac_tx LEN_WIDTH, mac_rx 16)
) (
    input  wire                   clk,                // the switch clock (125 MHz)
    input  wire                   rst,                // synchronous to clk, active high

    // mac_tx x4 (clk): one-clock pulses; tx_frame_bytes[i] is valid with tx_frame_sent[i]
    input  wire [3:0]             tx_frame_sent,
    input  wire [4*LEN_WIDTH-1:0] tx_frame_bytes,
    input  wire [3:0]             tx_underrun,

    // mac_rx_port x4: port i's signals are in rx_clk[i] (one-clock pulses; rx_bytes_received
    // is valid with rx_frame_received)
    input  wire [3:0]             rx_clk,
    input  wire [3:0]             rx_rst,             // synchronous to rx_clk[i], active high
    input  wire [3:0]             rx_frame_received,
    input  wire [4*LEN_WIDTH-1:0] rx_bytes_received,
    input  wire [3:0]             rx_fcs_errors,
    input  wire [3:0]             rx_runts,
    input  wire [3:0]             rx_giants,
    input  wire [3:0]             rx_preamble_errors,
    input  wire [3:0]             rx_errors,
    input  wire [3:0]             rx_overflows,

    // the MDIO registers (clk), to and from board_mdio: the frame, the commands (one-clock
    // pulses) and {read_data[15:0], 13'b0, no_answer, ready, busy}
    output wire [4:0]             mdio_phy,
    output wire [4:0]             mdio_register,
    output wire [15:0]            mdio_write_data,
    output wire                   mdio_read,
    output wire                   mdio_write,
    input  wire [31:0]            mdio_status,

    // AXI4-Lite slave (clk), 12-bit block-local byte address (mac_regs)
    input  wire [11:0]            s_axil_awaddr,
    input  wire [2:0]             s_axil_awprot,
    input  wire                   s_axil_awvalid,
    output wire                   s_axil_awready,
    input  wire [31:0]            s_axil_wdata,
    input  wire [3:0]             s_axil_wstrb,
    input  wire                   s_axil_wvalid,
    output wire                   s_axil_wready,
    output wire [1:0]             s_axil_bresp,
    output wire                   s_axil_bvalid,
    input  wire                   s_axil_bready,
    input  wire [11:0]            s_axil_araddr,
    input  wire [2:0]             s_axil_arprot,
    input  wire                   s_axil_arvalid,
    output wire                   s_axil_arready,
    output wire [31:0]            s_axil_rdata,
    output wire [1:0]             s_axil_rresp,
    output wire                   s_axil_rvalid,
    input  wire                   s_axil_rready
);

// Counter c = 11 * port + kind, in the registers' order within a port (regmap/mac.toml)
localparam KINDS = 11;
localparam COUNTERS = 4 * KINDS;
localparam TX_FRAMES = 0, TX_BYTES = 1, TX_UNDERRUNS = 2, RX_FRAMES = 3, RX_BYTES = 4;
// the rx events that cross as toggles, bit e of a port's toggles is counter RX_FRAMES + e
// (bit 0 frames, then FCS errors .. overflows; RX_BYTES rides on bit 0 and has no toggle)
localparam RX_EVENTS = 7;

wire [64*COUNTERS-1:0]        counts;
wire [COUNTERS-1:0]           clears;
// What each counter adds this clock (0, 1 or a byte count)
wire [LEN_WIDTH*COUNTERS-1:0] increments;

genvar i, c;
generate
    for (i = 0; i < 4; i = i + 1) begin : port
        // ---- rx_clk[i]: a toggle per event, the good frame's byte count held
        reg [RX_EVENTS-1:0] rx_toggle = {RX_EVENTS{1'b0}};
        reg [LEN_WIDTH-1:0] rx_bytes_hold = {LEN_WIDTH{1'b0}};
        wire [RX_EVENTS-1:0] rx_pulses = {rx_overflows[i], rx_errors[i], rx_preamble_errors[i],
            rx_giants[i], rx_runts[i], rx_fcs_errors[i], rx_frame_received[i]};

        always @(posedge rx_clk[i]) begin
            if (rx_rst[i]) begin
                rx_toggle <= {RX_EVENTS{1'b0}};
                rx_bytes_hold <= {LEN_WIDTH{1'b0}};
            end else begin
                rx_toggle <= rx_toggle ^ rx_pulses;
                if (rx_frame_received[i])
                    rx_bytes_hold <= rx_bytes_received[LEN_WIDTH*i+:LEN_WIDTH];
            end
        end

        // ---- clk: the toggles and rx_rst crossed, each change of a toggle one event
        wire [RX_EVENTS-1:0] rx_toggle_sync;
        wire                 rx_rst_sync;
        reg  [RX_EVENTS-1:0] rx_toggle_seen = {RX_EVENTS{1'b0}};
        reg  [RX_EVENTS-1:0] rx_event = {RX_EVENTS{1'b0}};
        // counted: not while rx_rst_sync is high (it is by the time a toggle's fall in
        // rx_rst has reached rx_event)
        wire [RX_EVENTS-1:0] rx_counted = rx_event & {RX_EVENTS{!rx_rst_sync}};

        mac_rx_sync #(
            .WIDTH(RX_EVENTS + 1)
        ) rx_sync (
            .clk(clk),
            .in({rx_rst[i], rx_toggle}),
            .out({rx_rst_sync, rx_toggle_sync})
        );

        always @(posedge clk) begin
            rx_toggle_seen <= rx_toggle_sync;
            rx_event <= rx_toggle_sync ^ rx_toggle_seen;
            if (rst)
                rx_event <= {RX_EVENTS{1'b0}};
        end

        // ---- what each of the port's counters adds
        assign increments[LEN_WIDTH*(KINDS*i+TX_FRAMES)+:LEN_WIDTH] =
            {{(LEN_WIDTH-1){1'b0}}, tx_frame_sent[i]};
        assign increments[LEN_WIDTH*(KINDS*i+TX_BYTES)+:LEN_WIDTH] =
            tx_frame_sent[i] ? tx_frame_bytes[LEN_WIDTH*i+:LEN_WIDTH] : {LEN_WIDTH{1'b0}};
        assign increments[LEN_WIDTH*(KINDS*i+TX_UNDERRUNS)+:LEN_WIDTH] =
            {{(LEN_WIDTH-1){1'b0}}, tx_underrun[i]};
        // rx_event[0] comes when rx_bytes_hold has been still for 2 clocks or more
        assign increments[LEN_WIDTH*(KINDS*i+RX_BYTES)+:LEN_WIDTH] =
            rx_counted[0] ? rx_bytes_hold : {LEN_WIDTH{1'b0}};
        for (c = 0; c < RX_EVENTS; c = c + 1) begin : rx_count
            // counters RX_FRAMES and RX_FCS_ERRORS.., skipping RX_BYTES
            assign increments[LEN_WIDTH*(KINDS*i+RX_FRAMES+c+(c > 0 ? 1 : 0))+:LEN_WIDTH] =
                {{(LEN_WIDTH-1){1'b0}}, rx_counted[c]};
        end
    end

    // ---- the counters
    for (c = 0; c < COUNTERS; c = c + 1) begin : counter
        reg [63:0] count = 64'd0;

        always @(posedge clk) begin
            count <= (clears[c] ? 64'd0 : count)
                + {{(64-LEN_WIDTH){1'b0}}, increments[LEN_WIDTH*c+:LEN_WIDTH]};
            if (rst)
                count <= 64'd0;
        end

        assign counts[64*c+:64] = count;
    end
endgenerate

mac_regs regs (
    .clk(clk),
    .rst(rst),
    .s_axil_awaddr(s_axil_awaddr),
    .s_axil_awprot(s_axil_awprot),
    .s_axil_awvalid(s_axil_awvalid),
    .s_axil_awready(s_axil_awready),
    .s_axil_wdata(s_axil_wdata),
    .s_axil_wstrb(s_axil_wstrb),
    .s_axil_wvalid(s_axil_wvalid),
    .s_axil_wready(s_axil_wready),
    .s_axil_bresp(s_axil_bresp),
    .s_axil_bvalid(s_axil_bvalid),
    .s_axil_bready(s_axil_bready),
    .s_axil_araddr(s_axil_araddr),
    .s_axil_arprot(s_axil_arprot),
    .s_axil_arvalid(s_axil_arvalid),
    .s_axil_arready(s_axil_arready),
    .s_axil_rdata(s_axil_rdata),
    .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid),
    .s_axil_rready(s_axil_rready),
    .mdio_frame_phy(mdio_phy),
    .mdio_frame_register(mdio_register),
    .mdio_frame_data(mdio_write_data),
    .mdio_command_read(mdio_read),
    .mdio_command_write(mdio_write),
    .mdio_status(mdio_status),
    .tx_frames_0(counts[64*0+:64]),
    .tx_frames_0_clear(clears[0]),
    .tx_bytes_0(counts[64*1+:64]),
    .tx_bytes_0_clear(clears[1]),
    .tx_underruns_0(counts[64*2+:64]),
    .tx_underruns_0_clear(clears[2]),
    .rx_frames_0(counts[64*3+:64]),
    .rx_frames_0_clear(clears[3]),
    .rx_bytes_0(counts[64*4+:64]),
    .rx_bytes_0_clear(clears[4]),
    .rx_fcs_errors_0(counts[64*5+:64]),
    .rx_fcs_errors_0_clear(clears[5]),
    .rx_runts_0(counts[64*6+:64]),
    .rx_runts_0_clear(clears[6]),
    .rx_giants_0(counts[64*7+:64]),
    .rx_giants_0_clear(clears[7]),
    .rx_preamble_errors_0(counts[64*8+:64]),
    .rx_preamble_errors_0_clear(clears[8]),
    .rx_errors_0(counts[64*9+:64]),
    .rx_errors_0_clear(clears[9]),
    .rx_overflows_0(counts[64*10+:64]),
    .rx_overflows_0_clear(clears[10]),
    .tx_frames_1(counts[64*11+:64]),
    .tx_frames_1_clear(clears[11]),
    .tx_bytes_1(counts[64*12+:64]),
    .tx_bytes_1_clear(clears[12]),
    .tx_underruns_1(counts[64*13+:64]),
    .tx_underruns_1_clear(clears[13]),
    .rx_frames_1(counts[64*14+:64]),
    .rx_frames_1_clear(clears[14]),
    .rx_bytes_1(counts[64*15+:64]),
    .rx_bytes_1_clear(clears[15]),
    .rx_fcs_errors_1(counts[64*16+:64]),
    .rx_fcs_errors_1_clear(clears[16]),
    .rx_runts_1(counts[64*17+:64]),
    .rx_runts_1_clear(clears[17]),
    .rx_giants_1(counts[64*18+:64]),
    .rx_giants_1_clear(clears[18]),
    .rx_preamble_errors_1(counts[64*19+:64]),
    .rx_preamble_errors_1_clear(clears[19]),
    .rx_errors_1(counts[64*20+:64]),
    .rx_errors_1_clear(clears[20]),
    .rx_overflows_1(counts[64*21+:64]),
    .rx_overflows_1_clear(clears[21]),
    .tx_frames_2(counts[64*22+:64]),
    .tx_frames_2_clear(clears[22]),
    .tx_bytes_2(counts[64*23+:64]),
    .tx_bytes_2_clear(clears[23]),
    .tx_underruns_2(counts[64*24+:64]),
    .tx_underruns_2_clear(clears[24]),
    .rx_frames_2(counts[64*25+:64]),
    .rx_frames_2_clear(clears[25]),
    .rx_bytes_2(counts[64*26+:64]),
    .rx_bytes_2_clear(clears[26]),
    .rx_fcs_errors_2(counts[64*27+:64]),
    .rx_fcs_errors_2_clear(clears[27]),
    .rx_runts_2(counts[64*28+:64]),
    .rx_runts_2_clear(clears[28]),
    .rx_giants_2(counts[64*29+:64]),
    .rx_giants_2_clear(clears[29]),
    .rx_preamble_errors_2(counts[64*30+:64]),
    .rx_preamble_errors_2_clear(clears[30]),
    .rx_errors_2(counts[64*31+:64]),
    .rx_errors_2_clear(clears[31]),
    .rx_overflows_2(counts[64*32+:64]),
    .rx_overflows_2_clear(clears[32]),
    .tx_frames_3(counts[64*33+:64]),
    .tx_frames_3_clear(clears[33]),
    .tx_bytes_3(counts[64*34+:64]),
    .tx_bytes_3_clear(clears[34]),
    .tx_underruns_3(counts[64*35+:64]),
    .tx_underruns_3_clear(clears[35]),
    .rx_frames_3(counts[64*36+:64]),
    .rx_frames_3_clear(clears[36]),
    .rx_bytes_3(counts[64*37+:64]),
    .rx_bytes_3_clear(clears[37]),
    .rx_fcs_errors_3(counts[64*38+:64]),
    .rx_fcs_errors_3_clear(clears[38]),
    .rx_runts_3(counts[64*39+:64]),
    .rx_runts_3_clear(clears[39]),
    .rx_giants_3(counts[64*40+:64]),
    .rx_giants_3_clear(clears[40]),
    .rx_preamble_errors_3(counts[64*41+:64]),
    .rx_preamble_errors_3_clear(clears[41]),
    .rx_errors_3(counts[64*42+:64]),
    .rx_errors_3_clear(clears[42]),
    .rx_overflows_3(counts[64*43+:64]),
    .rx_overflows_3_clear(clears[43])
);

endmodule

`resetall
