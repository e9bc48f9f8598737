// SPDX-License-Identifier: BSD-3-Clause
//
// board_top_sim: the whole NetFPGA-1G-CML board top (fpga/netfpga-1g-cml/rtl/
// netfpga_1g_cml_top.v) in Verilator, driven at its pins, served like pktstats-sim.
//
//   --port N:in=FILE    (N = 0..3) frames from a pcap into MAC port N's RGMII receive pins;
//                       (N = 4..7) into the XDMA's host-to-card stream N-4 (CPU port N), one
//                       16-byte word per PCIe user clock, each frame from its pcap time on
//   --port N:out=FILE   (N = 0..3) frames off MAC port N's RGMII transmit pins; (N = 4..7) the
//                       card-to-host stream N-4 of the XDMA (the switch's CPU port N)
//   --port N:bad=K      (N = 0..3) also K bad frames into port N, in idle gaps of the pcap's
//                       schedule long enough to hold them (so the good frames keep their times):
//                       bad FCS, runt, giant, no SFD, RX_ER in turn; not delivered to the switch
//   --socket PATH [--wait]  register access as pktstats-sim serves it (docs/simulator-protocol.md),
//                       through the XDMA's AXI4-Lite master, board_axil_cdc and the core;
//                       --wait: the traffic starts at `start`
//   --duration TIME     from the traffic's start (Nns, Nus, Nms, Ncycles); default: until the
//                       inputs are done and the pins have been quiet for 200 us
//   --rx-phase PS       the PHYs' receive clocks' phase against the switch clock (default 3000)
//   --pcie-period PS    the XDMA's user clock's period (default 8001: 125 MHz - 125 ppm, so
//                       that it drifts against the switch clock through every phase)
//
// What stands in for what:
//   - the 200 MHz oscillator is driven at the switch clock's 125 MHz (the MMCME2_BASE model
//     passes CLKIN1 through in Verilator; fpga/models/MMCME2_BASE.v), and clk90 is clk;
//   - each PHY: its receive clock at 125 MHz with the phase above, each nibble 2 ns ahead of the
//     edge that samples it (RGMII-ID), frames as tb/mac/test_mac_rx.cpp's PHY sends them
//     (7 preamble bytes, SFD, the frame padded to 60 bytes, FCS, a gap of at least 12 bytes);
//     its transmit side decoded from RGMII_TXD/TX_CTL at the switch clock's two edges;
//   - four clause-22 PHYs on MDC/MDIO (tb/board/mdio_phy_model.h, through tb/board/IOBUF.v), at
//     MDIO addresses 1..4, identifier 0x7070500N (made up: no real part is claimed), answering
//     300 ns after MDC rises (802.3's latest), checking the master's timing bit by bit;
//   - the PCIe reference clock at about 125 MHz (--pcie-period): the XDMA model's axi_aclk
//     (tb/board/pcie_xdma.v), on which this program plays the XDMA's BAR0 bridge and the
//     card-to-host streams' receiver.
//
// The receive schedule is pktstats-sim's (sim/mac_model.h): frame i starts at the traffic's
// start plus its pcap time (relative to the first frame's), or when the wire has finished the
// previous frame and its gap, whichever is later; a start that falls between two receive clock
// edges waits for the next edge. Output times are those of the first preamble byte on the
// transmit pins (MAC ports) or of the first word's handshake (CPU ports), in ns since the
// traffic's start.
//
// At the end: one line per port on stderr (frames in, frames out, frames with a bad FCS or a
// broken preamble on the transmit pins; any of these last makes the exit status 1).
// Exit status: 0 done, 1 run-time error, 2 usage error.

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "Vnetfpga_1g_cml_top.h"
#include "Vnetfpga_1g_cml_top___024root.h"
#include "verilated.h"
#include <zlib.h>

#include "axil_master.h"
#include "mdio_phy_model.h"
#include "link_timing.h"
#include "pcap_frame_sink.h"
#include "pcap_frame_source.h"
#include "register_server.h"

using namespace pktstats_sim;

namespace {

const char *program = "board_top_sim";
constexpr unsigned mac_ports = 4, cpu_ports = 4;
constexpr uint64_t clock_ps = 8000;          // the switch clock, and the PHYs' receive clocks
constexpr uint64_t rgmii_setup_ps = 2000;    // receive data ahead of its clock edge
constexpr uint64_t reset_clocks = 400;       // MMCM lock, resets, PHY reset (-G values)
constexpr uint64_t quiet_ps_to_stop = 200000000; // 200 us: past evcap's flush timeouts
constexpr uint64_t server_poll_interval = 256;

volatile sig_atomic_t stop_signal = 0;
extern "C" void on_signal(int signal_number) { stop_signal = signal_number; }

struct UsageError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

struct Options {
	std::string in[mac_ports + cpu_ports], out[mac_ports + cpu_ports];
	unsigned bad[mac_ports] = {};
	std::string socket;
	bool wait = false;
	bool have_duration = false;
	uint64_t duration_ps = 0;
	uint64_t rx_phase_ps = 3000;
	uint64_t pcie_period_ps = 8001; // 124.98 MHz: drifts against the switch clock
};

bool parse_number(const std::string &text, uint64_t &value)
{
	if (text.empty() || text.size() > 15 || text.find_first_not_of("0123456789") != std::string::npos)
		return false;
	value = std::stoull(text);
	return true;
}

bool parse_time_ps(const std::string &text, uint64_t &ps)
{
	static const struct {
		const char *suffix;
		uint64_t ps;
	} units[] = {{"cycles", clock_ps}, {"ms", 1000000000}, {"us", 1000000}, {"ns", 1000}};
	for (const auto &unit : units) {
		size_t n = strlen(unit.suffix);
		uint64_t number;
		if (text.size() > n && text.compare(text.size() - n, n, unit.suffix) == 0 &&
		    parse_number(text.substr(0, text.size() - n), number)) {
			ps = number * unit.ps;
			return true;
		}
	}
	return false;
}

Options parse_command_line(int argc, char **argv)
{
	Options o;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		auto value = [&]() -> std::string {
			if (i + 1 >= argc)
				throw UsageError(a + " needs a value");
			return argv[++i];
		};
		if (a == "--port") {
			std::string v = value();
			size_t colon = v.find(':'), equals = v.find('=');
			uint64_t port;
			if (colon == std::string::npos || equals == std::string::npos || equals < colon ||
			    !parse_number(v.substr(0, colon), port) || port >= mac_ports + cpu_ports)
				throw UsageError("--port " + v + ": expected N:in=FILE, N:out=FILE or N:bad=K, N 0..7");
			std::string key = v.substr(colon + 1, equals - colon - 1), what = v.substr(equals + 1);
			if (key == "out" && !what.empty())
				o.out[port] = what;
			else if (key == "in" && !what.empty())
				o.in[port] = what;
			else if (key == "bad" && port < mac_ports) {
				uint64_t k;
				if (!parse_number(what, k) || k > 100000)
					throw UsageError("--port " + v + ": bad= takes a count, 0..100000");
				o.bad[port] = (unsigned)k;
			} else
				throw UsageError("--port " + v + ": bad= is for MAC ports 0..3, in= and out= for 0..7");
		} else if (a == "--socket") {
			o.socket = value();
		} else if (a == "--wait") {
			o.wait = true;
		} else if (a == "--duration") {
			std::string v = value();
			if (!parse_time_ps(v, o.duration_ps))
				throw UsageError("--duration " + v + ": expected Nns, Nus, Nms or Ncycles");
			o.have_duration = true;
		} else if (a == "--rx-phase") {
			std::string v = value();
			if (!parse_number(v, o.rx_phase_ps) || o.rx_phase_ps >= clock_ps)
				throw UsageError("--rx-phase " + v + ": picoseconds, 0.." + std::to_string(clock_ps - 1));
		} else if (a == "--pcie-period") {
			std::string v = value();
			if (!parse_number(v, o.pcie_period_ps) || o.pcie_period_ps < 4000 || o.pcie_period_ps > 16000)
				throw UsageError("--pcie-period " + v + ": picoseconds, 4000..16000");
		} else if (a == "--help") {
			printf("usage: %s [--port N:in=FILE|N:out=FILE|N:bad=K]... [--socket PATH [--wait]]\n"
			       "       [--duration TIME] [--rx-phase PS] [--pcie-period PS]\n"
			       "The NetFPGA-1G-CML board top at its pins (see the head of tb/board/board_top_sim.cpp).\n",
			       program);
			exit(0);
		} else {
			throw UsageError("unknown argument " + a);
		}
	}
	if (o.wait && o.socket.empty())
		throw UsageError("--wait needs --socket");
	return o;
}

// The FCS: zlib's CRC-32 (IEEE 802.3's polynomial, preset and complement), an implementation
// other than the RTL's
uint32_t crc32_of(const uint8_t *data, size_t n)
{
	return (uint32_t)crc32(0L, data, (uInt)n);
}

// One byte time on the RGMII receive pins
struct Symbol {
	uint8_t byte = 0;
	bool dv = false, er = false;
};

// A PHY's receive side: frames from a pcap, scheduled as sim/mac_model.h schedules them, turned
// into symbols, one per receive clock.
class PhyReceive {
public:
	PhyReceive(const std::string &path, unsigned bad_frames)
		: source_(std::make_unique<PcapFrameSource>(path)), bad_left_(bad_frames)
	{
	}

	void start(uint64_t traffic_start_ps) { start_ps_ = traffic_start_ps; started_ = true; }

	// The symbol of the receive clock cycle whose rising edge is at `edge_ps`.
	Symbol symbol_at(uint64_t edge_ps)
	{
		if (symbols_.empty() && started_)
			schedule_next(edge_ps);
		if (symbols_.empty() || symbols_.front().first > edge_ps)
			return Symbol();
		Symbol s = symbols_.front().second;
		symbols_.pop_front();
		return s;
	}

	bool done() const { return exhausted_ && symbols_.empty(); }
	uint64_t good_frames() const { return good_frames_; }
	uint64_t bad_frames() const { return bad_frames_; }

private:
	void schedule_next(uint64_t now_ps)
	{
		if (exhausted_)
			return;
		TimedFrame frame;
		if (!source_->next_frame(frame)) {
			exhausted_ = true;
			return;
		}
		uint64_t wanted = start_ps_ + frame.time_ns * 1000;
		uint64_t at = std::max(wanted, wire_free_ps_);
		// In a gap long enough for a bad frame and its own gap, a bad frame first
		const size_t bad_bytes[] = {100, 40, 1600, 100, 100};
		if (bad_left_ > 0 && wire_free_ps_ > 0) {
			size_t n = bad_bytes[bad_kind_ % 5];
			uint64_t need = link_.picoseconds_for_byte_times(link_.wire_byte_times(n));
			uint64_t from = align(std::max(wire_free_ps_, now_ps));
			if (from + need + clock_ps <= at) {
				add_bad_frame(from, n);
				bad_left_--;
			}
		}
		at = align(std::max(at, now_ps));
		std::vector<uint8_t> bytes = frame.bytes;
		bytes.resize(link_.padded_frame_bytes(bytes.size()), 0);
		add_frame(at, bytes, false);
		good_frames_++;
		wire_free_ps_ = at + link_.picoseconds_for_byte_times(link_.wire_byte_times(frame.bytes.size()));
	}

	// The first receive clock edge at or after t
	uint64_t align(uint64_t t) const
	{
		uint64_t phase = start_ps_ % clock_ps;
		uint64_t n = (t + clock_ps - 1 - phase) / clock_ps;
		return n * clock_ps + phase;
	}

	void add_frame(uint64_t at, const std::vector<uint8_t> &bytes, bool corrupt_fcs)
	{
		std::vector<uint8_t> wire(7, 0x55);
		wire.push_back(0xd5);
		wire.insert(wire.end(), bytes.begin(), bytes.end());
		uint32_t fcs = crc32_of(bytes.data(), bytes.size()) ^ (corrupt_fcs ? 0x00010000u : 0);
		for (int k = 0; k < 4; k++)
			wire.push_back((uint8_t)(fcs >> (8 * k)));
		for (size_t k = 0; k < wire.size(); k++) {
			Symbol s;
			s.byte = wire[k];
			s.dv = true;
			symbols_.emplace_back(at + k * clock_ps, s);
		}
	}

	// Bad frames in turn: bad FCS, runt, giant, no SFD, RX_ER
	void add_bad_frame(uint64_t at, size_t n)
	{
		std::vector<uint8_t> bytes(n);
		for (size_t k = 0; k < n; k++)
			bytes[k] = (uint8_t)(k * 7 + bad_kind_);
		bytes[0] = 0x02; // a unicast destination, never the switch's own
		size_t first = symbols_.size();
		unsigned kind = bad_kind_++ % 5;
		add_frame(at, bytes, kind == 0);
		if (kind == 3)
			symbols_[first + 7].second.byte = 0x5d; // the SFD broken
		else if (kind == 4)
			symbols_[first + 30].second.er = true;
		bad_frames_++;
	}

	std::unique_ptr<PcapFrameSource> source_;
	LinkTiming link_ = LinkTiming::ethernet();
	std::deque<std::pair<uint64_t, Symbol>> symbols_; // (rising edge, symbol)
	uint64_t start_ps_ = 0, wire_free_ps_ = 0;
	bool started_ = false, exhausted_ = false;
	unsigned bad_left_ = 0, bad_kind_ = 0;
	uint64_t good_frames_ = 0, bad_frames_ = 0;
};

// A PHY's transmit side: RGMII_TXD/TX_CTL sampled after each switch clock edge into frames.
struct PhyTransmit {
	bool in_frame = false;
	std::vector<uint8_t> line; // preamble, SFD, frame, FCS
	uint64_t start_ps = 0, last_activity_ps = 0;
	unsigned low = 0;
	bool ctl_rise = false;
	uint64_t frames = 0, bad_fcs = 0, bad_preamble = 0, tx_errors = 0;
	PcapFrameSink *sink = nullptr;

	void rise(uint64_t t, unsigned txd, bool ctl)
	{
		low = txd;
		ctl_rise = ctl;
		if (ctl && !in_frame) {
			in_frame = true;
			line.clear();
			start_ps = t;
		}
		if (ctl)
			last_activity_ps = t;
	}

	void fall(unsigned txd, bool ctl, uint64_t traffic_start_ps)
	{
		if (!in_frame)
			return;
		if (ctl_rise) {
			line.push_back((uint8_t)(low | txd << 4));
			tx_errors += ctl != ctl_rise;
			return;
		}
		in_frame = false;
		size_t sfd = 0;
		while (sfd < line.size() && line[sfd] == 0x55)
			sfd++;
		if (sfd != 7 || sfd >= line.size() || line[sfd] != 0xd5 || line.size() < sfd + 1 + 64) {
			bad_preamble++;
			return;
		}
		const uint8_t *frame = line.data() + sfd + 1;
		size_t n = line.size() - sfd - 1 - 4;
		uint32_t fcs = (uint32_t)frame[n] | (uint32_t)frame[n + 1] << 8 |
			       (uint32_t)frame[n + 2] << 16 | (uint32_t)frame[n + 3] << 24;
		if (crc32_of(frame, n) != fcs) {
			bad_fcs++;
			return;
		}
		frames++;
		if (sink)
			sink->write_frame((start_ps - traffic_start_ps) / 1000, std::vector<uint8_t>(frame, frame + n));
	}
};

// A host-to-card stream's sender: the frames of a pcap as 16-byte words, tkeep contiguous.
class CpuTransmit {
public:
	explicit CpuTransmit(const std::string &path)
	{
		PcapFrameSourceOptions options;
		options.maximum_frame_bytes = 9216; // TrafficGenerator::largest_frame_bytes
		source_ = std::make_unique<PcapFrameSource>(path, options);
	}
	void start(uint64_t traffic_start_ps) { start_ps_ = traffic_start_ps; started_ = true; }

	// The word to offer before the PCIe clock edge at t (valid false: none)
	bool offer(uint64_t t, uint32_t data[4], unsigned &keep, bool &last)
	{
		if (!started_)
			return false;
		if (!have_frame_) {
			if (exhausted_ || !source_->next_frame(frame_)) {
				exhausted_ = true;
				return false;
			}
			have_frame_ = true;
			offset_ = 0;
		}
		if (offset_ == 0 && t < start_ps_ + frame_.time_ns * 1000)
			return false;
		size_t n = std::min<size_t>(16, frame_.bytes.size() - offset_);
		for (unsigned k = 0; k < 4; k++)
			data[k] = 0;
		for (size_t k = 0; k < n; k++)
			data[k / 4] |= (uint32_t)frame_.bytes[offset_ + k] << (8 * (k % 4));
		keep = (unsigned)((1u << n) - 1);
		last = offset_ + n == frame_.bytes.size();
		return true;
	}
	// The word offered was taken
	void taken()
	{
		offset_ += 16;
		if (offset_ >= frame_.bytes.size()) {
			have_frame_ = false;
			frames_++;
		}
	}
	bool done() const { return exhausted_ && !have_frame_; }
	uint64_t frames() const { return frames_; }

private:
	std::unique_ptr<PcapFrameSource> source_;
	TimedFrame frame_;
	bool have_frame_ = false, started_ = false, exhausted_ = false;
	size_t offset_ = 0;
	uint64_t start_ps_ = 0, frames_ = 0;
};

// A card-to-host stream's receiver: 128-bit words with tkeep, a frame per tlast.
struct CpuReceive {
	std::vector<uint8_t> bytes;
	uint64_t first_ps = 0, last_ps = 0, frames = 0;
	PcapFrameSink *sink = nullptr;
};

#define XDMA(name) (root_.netfpga_1g_cml_top__DOT__xdma__DOT__##name)
#define MDIO(name) (root_.netfpga_1g_cml_top__DOT__mdio_iobuf__DOT__##name)

class BoardTop {
public:
	explicit BoardTop(const Options &o) : options_(o), top_(&context_), root_(*top_.rootp)
	{
		for (unsigned p = 0; p < mac_ports; p++)
			if (!o.in[p].empty())
				phy_rx_[p] = std::make_unique<PhyReceive>(o.in[p], o.bad[p]);
		for (unsigned j = 0; j < cpu_ports; j++)
			if (!o.in[mac_ports + j].empty())
				cpu_tx_[j] = std::make_unique<CpuTransmit>(o.in[mac_ports + j]);
		for (unsigned p = 0; p < mac_ports + cpu_ports; p++)
			if (!o.out[p].empty()) {
				sinks_[p] = std::make_unique<PcapFrameSink>(o.out[p]);
				if (p < mac_ports)
					phy_tx_[p].sink = sinks_[p].get();
				else
					cpu_rx_[p - mac_ports].sink = sinks_[p].get();
			}
		if (!o.socket.empty()) {
			RegisterServerConfig config;
			config.socket_path = o.socket;
			config.design_identity = "netfpga_1g_cml_top";
			server_ = std::make_unique<RegisterServer>(config, bus_);
		}
		for (unsigned address = 1; address <= 4; address++) {
			mdio::Phy phy(address);
			phy.regs[2] = 0x7070;
			phy.regs[3] = (uint16_t)(0x5000 + address);
			mdio_.phys.push_back(phy);
		}
		// board_mdio's CLK_DIV 32: MDC halves of 32 clocks, the master's bits changing just
		// after MDC falls; the PHYs answer 300 ns (38 clocks) after it rises
		mdio_.min_setup = 31;
		mdio_.min_hold = 32;
		mdio_.min_half = 32;
		mdio_.output_delay = 38;
		top_.sys_clk_p = 0;
		top_.sys_clk_n = 1;
		top_.btn_reset_n = 1;
		top_.pcie_refclk_p = 0;
		top_.pcie_refclk_n = 1;
		top_.pcie_perst_n = 1;
		top_.rgmii0_rxc = top_.rgmii1_rxc = top_.rgmii2_rxc = top_.rgmii3_rxc = 0;
		set_rx_pins(0, Symbol(), false);
		set_rx_pins(1, Symbol(), false);
		set_rx_pins(2, Symbol(), false);
		set_rx_pins(3, Symbol(), false);
		XDMA(host_aresetn) = 0;
		XDMA(host_c2h_tready) = 0xf;
		drive_bus();
		drive_h2c(0);
		top_.eval();
	}

	int run()
	{
		bool started = false;
		uint64_t traffic_start_ps = 0, quiet_since_ps = 0;
		uint64_t t = 0;
		// events in each 8 ns: switch rise at 0, switch fall at 4000, rx data/edges around
		// rx_phase, the PCIe clock's edges as they fall
		for (uint64_t cycle = 0;; cycle++) {
			if (stop_signal)
				break;
			uint64_t base = cycle * clock_ps;
			if (cycle == reset_clocks / 2)
				XDMA(host_aresetn) = 1;
			bool may_start = cycle >= reset_clocks;
			if (may_start && !started && (!options_.wait || (server_ && server_->start_requested()))) {
				started = true;
				traffic_start_ps = base;
				quiet_since_ps = base;
				// the receive clock's first edge whose nibbles are set after this point
				// (2 ns ahead of it, possibly in this cycle)
				for (auto &phy : phy_rx_)
					if (phy)
						phy->start(base + clock_ps + options_.rx_phase_ps);
				for (auto &cpu : cpu_tx_)
					if (cpu)
						cpu->start(base);
			}
			if (started && options_.have_duration && base >= traffic_start_ps + options_.duration_ps)
				break;
			// This switch cycle's events: the switch clock's two edges, the receive clocks'
			// edges with their nibbles 2 ns ahead (fixed phase), the PCIe user clock's edges
			// that fall in it (its own period: 0, 1 or 2 of each)
			struct Event {
				uint64_t at;
				int kind; // 0 switch rise, 1 switch fall, 2 rx data low, 3 rx rise, 4 rx data high, 5 rx fall, 6 pcie rise, 7 pcie fall
			};
			uint64_t rx = options_.rx_phase_ps;
			Event events[12] = {{0, 0}, {clock_ps / 2, 1},
					    {(rx + clock_ps - rgmii_setup_ps) % clock_ps, 2}, {rx, 3},
					    {(rx + clock_ps / 2 - rgmii_setup_ps) % clock_ps, 4}, {(rx + clock_ps / 2) % clock_ps, 5}};
			size_t count = 6;
			while (pcie_edge_ps_ < base + clock_ps) {
				events[count++] = {pcie_edge_ps_ - base, pcie_high_ ? 7 : 6};
				pcie_high_ = !pcie_high_;
				pcie_edge_ps_ += pcie_high_ ? options_.pcie_period_ps / 2
							    : options_.pcie_period_ps - options_.pcie_period_ps / 2;
			}
			std::sort(events, events + count,
				  [](const Event &a, const Event &b) { return a.at < b.at || (a.at == b.at && a.kind < b.kind); });
			for (size_t k = 0; k < count; k++) {
				t = base + events[k].at;
				step(events[k].kind, t, traffic_start_ps);
			}
			if (server_ && ((cycle & (server_poll_interval - 1)) == 0 || bus_.in_flight() ||
					server_->backend_operation_in_flight())) {
				server_->set_simulation_cycle(cycle);
				server_->poll_once(0);
			}
			if (started && !options_.have_duration) {
				bool busy = false;
				for (unsigned p = 0; p < mac_ports; p++)
					busy |= (phy_rx_[p] && !phy_rx_[p]->done()) || phy_tx_[p].in_frame ||
						phy_tx_[p].last_activity_ps > quiet_since_ps ||
						(cpu_tx_[p] && !cpu_tx_[p]->done()) || cpu_rx_[p].last_ps > quiet_since_ps;
				if (busy || rx_activity_)
					quiet_since_ps = t;
				rx_activity_ = false;
				if (t - quiet_since_ps >= quiet_ps_to_stop)
					break;
			}
		}
		return finish();
	}

private:
	void set_rx_pins(unsigned p, const Symbol &s, bool high_half)
	{
		unsigned nibble = high_half ? s.byte >> 4 : s.byte & 0xf;
		bool ctl = high_half ? (s.dv ^ s.er) : s.dv;
		switch (p) {
		case 0: top_.rgmii0_rxd = nibble; top_.rgmii0_rx_ctl = ctl; break;
		case 1: top_.rgmii1_rxd = nibble; top_.rgmii1_rx_ctl = ctl; break;
		case 2: top_.rgmii2_rxd = nibble; top_.rgmii2_rx_ctl = ctl; break;
		default: top_.rgmii3_rxd = nibble; top_.rgmii3_rx_ctl = ctl; break;
		}
	}

	void set_rx_clocks(bool level)
	{
		top_.rgmii0_rxc = top_.rgmii1_rxc = top_.rgmii2_rxc = top_.rgmii3_rxc = level;
	}

	void drive_bus()
	{
		AxilRequestSignals r = bus_.request();
		XDMA(host_awaddr) = r.awaddr;
		XDMA(host_awvalid) = r.awvalid;
		XDMA(host_wdata) = r.wdata;
		XDMA(host_wvalid) = r.wvalid;
		XDMA(host_bready) = r.bready;
		XDMA(host_araddr) = r.araddr;
		XDMA(host_arvalid) = r.arvalid;
		XDMA(host_rready) = r.rready;
	}

	// The host-to-card words to offer before the PCIe clock edge at t
	void drive_h2c(uint64_t t)
	{
		unsigned valid = 0, last_bits = 0;
		uint64_t keep_bits = 0;
		for (unsigned j = 0; j < cpu_ports; j++) {
			uint32_t data[4] = {0, 0, 0, 0};
			unsigned keep = 0;
			bool last = false;
			if (cpu_tx_[j] && cpu_tx_[j]->offer(t, data, keep, last)) {
				valid |= 1u << j;
				last_bits |= (last ? 1u : 0u) << j;
				keep_bits |= (uint64_t)keep << (16 * j);
			}
			for (unsigned k = 0; k < 4; k++)
				XDMA(host_h2c_tdata)[4 * j + k] = data[k];
		}
		XDMA(host_h2c_tvalid) = valid;
		XDMA(host_h2c_tlast) = last_bits;
		XDMA(host_h2c_tkeep) = keep_bits;
		h2c_offered_ = valid;
	}

	// The AXI4-Lite handshakes and the card-to-host words of the coming PCIe clock edge
	void sample_pcie(uint64_t t)
	{
		AxilResponseSignals seen;
		seen.awready = XDMA(m_axil_awready);
		seen.wready = XDMA(m_axil_wready);
		seen.bvalid = XDMA(m_axil_bvalid);
		seen.bresp = XDMA(m_axil_bresp);
		seen.arready = XDMA(m_axil_arready);
		seen.rvalid = XDMA(m_axil_rvalid);
		seen.rresp = XDMA(m_axil_rresp);
		seen.rdata = XDMA(m_axil_rdata);
		bus_.sample(bus_.request(), seen);
		const bool valid[cpu_ports] = {(bool)XDMA(s_axis_c2h_tvalid_0), (bool)XDMA(s_axis_c2h_tvalid_1),
					       (bool)XDMA(s_axis_c2h_tvalid_2), (bool)XDMA(s_axis_c2h_tvalid_3)};
		const VlWide<4> *data[cpu_ports] = {&XDMA(s_axis_c2h_tdata_0), &XDMA(s_axis_c2h_tdata_1),
						    &XDMA(s_axis_c2h_tdata_2), &XDMA(s_axis_c2h_tdata_3)};
		const unsigned keep[cpu_ports] = {XDMA(s_axis_c2h_tkeep_0), XDMA(s_axis_c2h_tkeep_1),
						  XDMA(s_axis_c2h_tkeep_2), XDMA(s_axis_c2h_tkeep_3)};
		const bool last[cpu_ports] = {(bool)XDMA(s_axis_c2h_tlast_0), (bool)XDMA(s_axis_c2h_tlast_1),
					      (bool)XDMA(s_axis_c2h_tlast_2), (bool)XDMA(s_axis_c2h_tlast_3)};
		const bool h2c_ready[cpu_ports] = {(bool)XDMA(m_axis_h2c_tready_0), (bool)XDMA(m_axis_h2c_tready_1),
						   (bool)XDMA(m_axis_h2c_tready_2), (bool)XDMA(m_axis_h2c_tready_3)};
		for (unsigned j = 0; j < cpu_ports; j++)
			if ((h2c_offered_ >> j & 1) && h2c_ready[j])
				cpu_tx_[j]->taken();
		for (unsigned j = 0; j < cpu_ports; j++) {
			if (!valid[j])
				continue;
			CpuReceive &c = cpu_rx_[j];
			c.last_ps = t;
			if (c.bytes.empty())
				c.first_ps = t;
			for (unsigned k = 0; k < 16; k++)
				if (keep[j] >> k & 1)
					c.bytes.push_back((uint8_t)((*data[j])[k / 4] >> (8 * (k % 4))));
			if (last[j]) {
				c.frames++;
				if (c.sink)
					c.sink->write_frame(c.first_ps / 1000, c.bytes);
				c.bytes.clear();
			}
		}
	}

	void step(int kind, uint64_t t, uint64_t traffic_start_ps)
	{
		switch (kind) {
		case 0: // the switch clock rises (the oscillator: the MMCM model passes it through)
			top_.sys_clk_p = 1;
			top_.sys_clk_n = 0;
			top_.eval();
			for (unsigned p = 0; p < mac_ports; p++)
				phy_tx_[p].rise(t, tx_data(p), tx_ctl(p));
			{
				bool line = mdio_.step(top_.mdc, MDIO(master_drive), MDIO(master_level));
				MDIO(phy_drive) = 1; // the line's level: the PHY's, the pull-up's or the master's
				MDIO(phy_level) = line;
			}
			return;
		case 1:
			top_.sys_clk_p = 0;
			top_.sys_clk_n = 1;
			top_.eval();
			for (unsigned p = 0; p < mac_ports; p++)
				phy_tx_[p].fall(tx_data(p), tx_ctl(p), traffic_start_ps);
			return;
		case 2: // the nibbles of the coming receive clock cycle
		case 4:
			if (kind == 2)
				for (unsigned p = 0; p < mac_ports; p++) {
					// the symbol of the cycle whose rising edge is 2 ns ahead
					current_[p] = phy_rx_[p] ? phy_rx_[p]->symbol_at(t + rgmii_setup_ps) : Symbol();
					rx_activity_ |= current_[p].dv;
				}
			for (unsigned p = 0; p < mac_ports; p++)
				set_rx_pins(p, current_[p], kind == 4);
			top_.eval();
			return;
		case 3:
		case 5:
			set_rx_clocks(kind == 3);
			top_.eval();
			return;
		case 6:
			sample_pcie(t);
			top_.pcie_refclk_p = 1;
			top_.pcie_refclk_n = 0;
			top_.eval();
			bus_.advance();
			drive_bus();
			drive_h2c(t + options_.pcie_period_ps);
			top_.eval();
			return;
		default:
			top_.pcie_refclk_p = 0;
			top_.pcie_refclk_n = 1;
			top_.eval();
			return;
		}
	}

	unsigned tx_data(unsigned p) const
	{
		return p == 0 ? top_.rgmii0_txd : p == 1 ? top_.rgmii1_txd : p == 2 ? top_.rgmii2_txd : top_.rgmii3_txd;
	}
	bool tx_ctl(unsigned p) const
	{
		return p == 0 ? top_.rgmii0_tx_ctl : p == 1 ? top_.rgmii1_tx_ctl : p == 2 ? top_.rgmii2_tx_ctl
								      : top_.rgmii3_tx_ctl;
	}

	int finish()
	{
		int status = 0;
		for (auto &sink : sinks_)
			if (sink)
				sink->close();
		for (unsigned p = 0; p < mac_ports; p++) {
			const PhyTransmit &tx = phy_tx_[p];
			fprintf(stderr, "%s: port %u: %" PRIu64 " frames in (%" PRIu64 " bad), %" PRIu64
					" frames out, %" PRIu64 " with a bad FCS, %" PRIu64 " with a broken preamble, %" PRIu64
					" TX_ER\n",
				program, p, phy_rx_[p] ? phy_rx_[p]->good_frames() : 0,
				phy_rx_[p] ? phy_rx_[p]->bad_frames() : 0, tx.frames, tx.bad_fcs, tx.bad_preamble,
				tx.tx_errors);
			if (tx.bad_fcs || tx.bad_preamble || tx.tx_errors)
				status = 1;
		}
		for (unsigned j = 0; j < cpu_ports; j++)
			fprintf(stderr, "%s: port %u: %" PRIu64 " frames in, %" PRIu64 " frames out (host-to-card and "
					"card-to-host stream %u)\n",
				program, mac_ports + j, cpu_tx_[j] ? cpu_tx_[j]->frames() : 0, cpu_rx_[j].frames, j);
		fprintf(stderr, "%s: MDIO: %zu frames%s%s\n", program, mdio_.frames.size(),
			mdio_.error.empty() ? "" : ", ", mdio_.error.c_str());
		if (!mdio_.error.empty())
			status = 1;
		if (bus_.timeouts()) {
			fprintf(stderr, "%s: register bus: %" PRIu64 " timeouts\n", program, bus_.timeouts());
			status = 1;
		}
		return status;
	}

	const Options &options_;
	VerilatedContext context_;
	Vnetfpga_1g_cml_top top_;
	Vnetfpga_1g_cml_top___024root &root_;
	AxilMaster bus_;
	std::unique_ptr<RegisterServer> server_;
	std::unique_ptr<PhyReceive> phy_rx_[mac_ports];
	std::unique_ptr<CpuTransmit> cpu_tx_[cpu_ports];
	unsigned h2c_offered_ = 0;
	PhyTransmit phy_tx_[mac_ports];
	CpuReceive cpu_rx_[cpu_ports];
	std::unique_ptr<PcapFrameSink> sinks_[mac_ports + cpu_ports];
	Symbol current_[mac_ports];
	mdio::Bus mdio_;
	uint64_t pcie_edge_ps_ = 1700; // the PCIe user clock's next edge
	bool pcie_high_ = false;       // its level before that edge
	bool rx_activity_ = false;
};

} // namespace

int main(int argc, char **argv)
{
	Options options;
	try {
		options = parse_command_line(argc, argv);
	} catch (const UsageError &e) {
		fprintf(stderr, "%s: %s (--help for usage)\n", program, e.what());
		return 2;
	}
	struct sigaction action;
	memset(&action, 0, sizeof action);
	action.sa_handler = on_signal;
	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, nullptr);
	sigaction(SIGTERM, &action, nullptr);
	signal(SIGPIPE, SIG_IGN);
	try {
		auto board = std::make_unique<BoardTop>(options);
		if (options.wait)
			fprintf(stderr, "%s: waiting for `start` on %s\n", program, options.socket.c_str());
		return board->run();
	} catch (const std::exception &e) {
		fprintf(stderr, "%s: %s\n", program, e.what());
		return 1;
	}
}
