// SPDX-License-Identifier: BSD-3-Clause
//
// AxiStreamWord: one beat of the switch's 64-bit AXI4-Stream (docs/switch-architecture.md).
// Byte k of the frame word is in data bits 8k+7:8k, byte 0 first on the wire; keep is contiguous
// from bit 0 and all ones except on the last word of a frame. The MAC model offers these to the
// switch input and takes them from the switch output; the integration copies them to and from
// the Verilated ports (tvalid, tdata, tkeep, tlast).

#ifndef PKTSTATS_SIM_AXI_STREAM_WORD_H
#define PKTSTATS_SIM_AXI_STREAM_WORD_H

#include <cstdint>

namespace pktstats_sim {

struct AxiStreamWord {
	bool valid = false; // tvalid
	uint64_t data = 0;  // tdata[63:0]
	uint8_t keep = 0;   // tkeep[7:0]
	bool last = false;  // tlast
	// Receive side of a MAC port, first word of a frame: the MAC's RX timestamp
	// (s_axis_rx_timestamp {seconds[31:0], nanoseconds[29:0]} and its valid)
	bool stamp_valid = false;
	uint64_t stamp = 0;
};

} // namespace pktstats_sim

#endif
