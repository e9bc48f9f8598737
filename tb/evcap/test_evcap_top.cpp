// SPDX-License-Identifier: BSD-3-Clause
//
// test_evcap_top: the evcap wrapper (generated registers + core) operated only through its
// AXI4-Lite registers, as the driver will: identity words, header fields, timer preset and
// reset, enable, force flush, resolution, counters and their clearing. The stat packets it
// sends are decoded with the production decoder and checked against what was configured and
// what was injected. Prints TAP.

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "Vevcap.h"
#include "axil_master.h"
#include "tap_runner.h"
#include "verilated.h"

extern "C" {
#include "pktstats/decode.h"
#include "pktstats/regs.h"
}

namespace {

struct Top {
	VerilatedContext context;
	Vevcap dut{&context};
	axil::Master<Vevcap> bus{dut};
	std::vector<std::vector<uint8_t>> frames;
	std::vector<uint8_t> frame;

	Top()
	{
		dut.m_axis_tready = 1;
		// After each rising edge: the output of the new cycle; tready is always high, so a
		// valid word is taken at the next edge.
		bus.on_cycle = [this]() {
			if (!dut.m_axis_tvalid)
				return;
			for (unsigned i = 0; i < 8; i++)
				if ((dut.m_axis_tkeep >> i) & 1)
					frame.push_back((uint8_t)(dut.m_axis_tdata >> (8 * i)));
			if (dut.m_axis_tlast) {
				frames.push_back(frame);
				frame.clear();
			}
		};
		bus.reset();
	}

	uint32_t read(uint32_t address) { return bus.read(address & 0xfff).data; }
	unsigned write(uint32_t address, uint32_t value) { return bus.write(address & 0xfff, value).resp; }
	uint64_t read64(uint32_t address) { return bus.read64(address & 0xfff); }
	void write64(uint32_t address, uint64_t value)
	{
		write(address, (uint32_t)value);
		write(address + 4, (uint32_t)(value >> 32));
	}

	// One arrival on queue q in the next clock.
	void arrival(unsigned q, uint16_t length)
	{
		dut.queue_arrival = (uint8_t)(1u << q);
		dut.queue_arrival_length[q / 2] = (uint32_t)length << (16 * (q % 2));
		bus.tick();
		dut.queue_arrival = 0;
		dut.queue_arrival_length[q / 2] = 0;
	}
};

bool decode(const std::vector<uint8_t> &bytes, struct pktstats_frame_view *view,
	    struct pktstats_packet *packet, std::vector<struct pktstats_event> *events)
{
	if (pktstats_parse_frame(bytes.data(), bytes.size(), view))
		return false;
	events->resize(PKTSTATS_HW_MAX_EVENTS);
	size_t n = 0;
	if (pktstats_decode_payload(view->payload, view->payload_len, packet, events->data(),
				    events->size(), &n, nullptr))
		return false;
	events->resize(n);
	return true;
}

} // namespace

int main(int argc, char **argv)
{
	tap::Tally report;
	Verilated::commandArgs(argc, argv);
	Top top;

	report(top.read(PKTSTATS_EVCAP_TYPE) == PKTSTATS_EVCAP_TYPE_VALUE &&
		       top.read(PKTSTATS_EVCAP_VERSION) == PKTSTATS_EVCAP_VERSION_VALUE,
	       "type and version words");

	// Header fields, written once, must appear in every packet.
	top.write64(PKTSTATS_EVCAP_DESTINATION_MAC, 0x021122334455ULL);
	top.write64(PKTSTATS_EVCAP_SOURCE_MAC, 0x02aabbccddeeULL);
	top.write(PKTSTATS_EVCAP_SOURCE_IP, 0xc0000201);
	top.write(PKTSTATS_EVCAP_DESTINATION_IP, 0xc0000202);
	top.write(PKTSTATS_EVCAP_TOS, 0x2e);
	top.write(PKTSTATS_EVCAP_TTL, 17);
	top.write(PKTSTATS_EVCAP_UDP_SOURCE_PORT, 40000);
	top.write(PKTSTATS_EVCAP_UDP_DESTINATION_PORT, 40001);
	top.write(PKTSTATS_EVCAP_OUTPUT_PORTS, 0x24);
	top.write(PKTSTATS_EVCAP_FLUSH_TIMEOUT, 0);

	// Timer preset: committing the high word loads the timer.
	const uint64_t preset = 0x123456789000ULL;
	top.write64(PKTSTATS_EVCAP_TIMER_PRESET, preset);
	uint64_t timer = top.read64(PKTSTATS_EVCAP_TIMER);
	top.bus.idle_cycles(50);
	uint64_t later = top.read64(PKTSTATS_EVCAP_TIMER);
	report(timer >= preset && timer < preset + 20 && later >= timer + 50 && later < timer + 80,
	       "timer preset loads the timer, which goes on counting",
	       "timer " + std::to_string(timer) + " then " + std::to_string(later));

	top.write(PKTSTATS_EVCAP_CONTROL, PKTSTATS_EVCAP_CONTROL_ENABLE_MASK);
	top.arrival(2, 10);
	top.bus.idle_cycles(37);
	top.arrival(5, 300);
	top.bus.idle_cycles(100);
	report(top.frames.empty(), "no packet before a flush when the timeout is 0");
	top.write(PKTSTATS_EVCAP_COMMAND, PKTSTATS_EVCAP_COMMAND_FLUSH_MASK);
	top.bus.idle_cycles(100);

	struct pktstats_frame_view view;
	struct pktstats_packet packet;
	std::vector<struct pktstats_event> events;
	bool ok = top.frames.size() == 1 && decode(top.frames[0], &view, &packet, &events);
	report(ok, "force flush sends the packet, and it decodes");
	if (ok) {
		const uint8_t dst[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
		const uint8_t src[6] = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
		report(!memcmp(view.dst_mac, dst, 6) && !memcmp(view.src_mac, src, 6) &&
			       view.src_ip == 0xc0000201 && view.dst_ip == 0xc0000202 &&
			       view.tos == 0x2e && view.ttl == 17 && view.src_port == 40000 &&
			       view.dst_port == 40001,
		       "header fields come from the registers");
		report(packet.sequence == 0 && !packet.missed && packet.resolution == 0 &&
			       events.size() == 2,
		       "first packet: sequence 0, no M flag, resolution 0, two events");
		report(events.size() == 2 && events[0].queue == 2 && events[0].length == 10 &&
			       events[1].queue == 5 && events[1].length == 255 &&
			       events[1].tick - events[0].tick == 38 &&
			       events[0].tick > preset && events[0].tick < preset + 2000,
		       "events: queues, saturated length, gap in clocks, time from the preset");
	}
	report(top.read64(PKTSTATS_EVCAP_EVENTS_SENT) == 2 &&
		       top.read64(PKTSTATS_EVCAP_PACKETS_SENT) == 1 &&
		       top.read64(PKTSTATS_EVCAP_EVENTS_MISSED) == 0,
	       "counters: 2 events, 1 packet, nothing missed");
	top.write(PKTSTATS_EVCAP_EVENTS_SENT, 0);
	top.write(PKTSTATS_EVCAP_PACKETS_SENT + 4, 0);
	report(top.read64(PKTSTATS_EVCAP_EVENTS_SENT) == 0 &&
		       top.read64(PKTSTATS_EVCAP_PACKETS_SENT) == 0,
	       "counters are cleared by a write to either word");

	// Resolution 3, timer reset, flush timeout: a packet arrives by itself.
	top.write(PKTSTATS_EVCAP_RESOLUTION, 3);
	top.write(PKTSTATS_EVCAP_COMMAND, PKTSTATS_EVCAP_COMMAND_TIMER_RESET_MASK);
	timer = top.read64(PKTSTATS_EVCAP_TIMER);
	report(timer < 100, "timer reset", "timer " + std::to_string(timer));
	top.write(PKTSTATS_EVCAP_FLUSH_TIMEOUT, 500);
	top.arrival(7, 1);
	top.bus.idle_cycles(800);
	ok = top.frames.size() == 2 && decode(top.frames[1], &view, &packet, &events);
	report(ok && packet.resolution == 3 && packet.sequence == 1 && events.size() == 1 &&
		       events[0].tick < 100 / 8 + 20,
	       "flush timeout, resolution 3, timer reset, sequence 1");

	// Disable and enable: the sequence starts again at 0.
	top.write(PKTSTATS_EVCAP_CONTROL, 0);
	top.write(PKTSTATS_EVCAP_CONTROL, PKTSTATS_EVCAP_CONTROL_ENABLE_MASK);
	top.arrival(0, 4);
	top.bus.idle_cycles(800);
	ok = top.frames.size() == 3 && decode(top.frames[2], &view, &packet, &events);
	report(ok && packet.sequence == 0, "enable restarts the sequence at 0");

	report(top.bus.write(0xffc, 0).resp == axil::RESP_SLVERR &&
		       top.bus.read(0xffc).resp == axil::RESP_SLVERR,
	       "unmapped address answers SLVERR");
	report(top.bus.protocol_error().empty(), "AXI4-Lite protocol", top.bus.protocol_error());

	int status = report.finish();
	top.dut.final();
	return status;
}
