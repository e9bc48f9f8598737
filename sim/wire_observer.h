// SPDX-License-Identifier: BSD-3-Clause
//
// WireObserver: told by a MAC model when a frame crossed its wire, with the true time of the
// frame's first bit (the start of the preamble), for the simulator's wire truth file.
//
//   - receive: a frame that arrived whole from the wire (MAC drops included: the frame did
//     cross the wire), told when its last byte has arrived, so always after its first bit;
//   - transmit: a frame the switch sent, told at its last word, after the clock of its first
//     word (which is when its first bit went on the wire).

#ifndef PKTSTATS_SIM_WIRE_OBSERVER_H
#define PKTSTATS_SIM_WIRE_OBSERVER_H

#include <cstdint>
#include <vector>

namespace pktstats_sim {

enum class WireDirection { receive, transmit };

// A MAC's RX timestamp of a frame: the switch's time of day (low 32 bits of the seconds,
// nanoseconds) in the clock of its first bit on the wire; valid false: none.
struct WireStamp {
	bool valid = false;
	uint32_t seconds = 0;
	uint32_t nanoseconds = 0;
};

class WireObserver {
public:
	virtual ~WireObserver() = default;
	// `bytes`: the frame as the wire carries it (padded, without FCS). Returns, for a received
	// frame, the RX timestamp the MAC hands in with it (the switch's clock reading at
	// `first_bit_ps`); ignored for a transmitted one.
	virtual WireStamp frame_on_wire(WireDirection direction, uint64_t first_bit_ps,
				   const std::vector<uint8_t> &bytes) = 0;
};

} // namespace pktstats_sim

#endif
