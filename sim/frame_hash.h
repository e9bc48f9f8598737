// SPDX-License-Identifier: BSD-3-Clause
//
// FrameHash: FNV-1a 64 over a frame's bytes, the `frame_hash` of the wire truth and the sojourn
// truth files. One definition, so that the same bytes hash alike in both and their lines join.

#ifndef PKTSTATS_SIM_FRAME_HASH_H
#define PKTSTATS_SIM_FRAME_HASH_H

#include <cstdint>

namespace pktstats_sim {

struct FrameHash {
	uint64_t value = 0xcbf29ce484222325u;
	void add(uint8_t byte) { value = (value ^ byte) * 0x100000001b3u; }
};

} // namespace pktstats_sim

#endif
