// SPDX-License-Identifier: BSD-3-Clause
//
// The stream side of a whole-core harness (tb/core, tb/stamp): pktstats_core's 8 inputs driven
// from a queue of frames per port, and its 8 outputs' tready from a per-port pattern.
#ifndef PKTSTATS_TB_CORE_STREAMS_H
#define PKTSTATS_TB_CORE_STREAMS_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

// The inputs of the next clock: port p offers word input_word[p] of input[p].front() (byte k
// of the word in bits 8k+7:8k, tkeep contiguous, tlast on the frame's last word); output p is
// ready when bit (cycle % 8) of ready_pattern[p] is set (0x01: one word in 8 clocks, 1 Gb/s).
template <class Core>
void drive_core_streams(Core &dut, const std::deque<std::vector<uint8_t>> (&input)[8],
			const size_t (&input_word)[8], const uint8_t (&ready_pattern)[8], uint64_t cycle)
{
	uint8_t valid = 0, last = 0;
	uint64_t keep = 0;
	for (unsigned p = 0; p < 8; p++) {
		uint64_t data = 0;
		if (!input[p].empty()) {
			const std::vector<uint8_t> &frame = input[p].front();
			size_t offset = 8 * input_word[p];
			uint8_t word_keep = 0;
			for (size_t i = 0; i < 8 && offset + i < frame.size(); i++) {
				data |= (uint64_t)frame[offset + i] << (8 * i);
				word_keep |= (uint8_t)(1u << i);
			}
			valid |= (uint8_t)(1u << p);
			if (offset + 8 >= frame.size())
				last |= (uint8_t)(1u << p);
			keep |= (uint64_t)word_keep << (8 * p);
		}
		dut.s_axis_tdata[2 * p] = (uint32_t)data;
		dut.s_axis_tdata[2 * p + 1] = (uint32_t)(data >> 32);
	}
	dut.s_axis_tvalid = valid;
	dut.s_axis_tlast = last;
	dut.s_axis_tkeep = keep;
	uint8_t ready = 0;
	for (unsigned p = 0; p < 8; p++)
		if ((ready_pattern[p] >> (cycle % 8)) & 1)
			ready |= (uint8_t)(1u << p);
	dut.m_axis_tready = ready;
}

// The output side's settled values of one clock, taken after eval: which streams handshake at
// the coming edge, and the words they carry.
struct CoreStreamSample {
	uint8_t in_handshake = 0, out_handshake = 0, out_last = 0;
	uint64_t out_data[8] = {};
	uint8_t out_keep[8] = {};

	template <class Core>
	void take(const Core &dut)
	{
		in_handshake = dut.s_axis_tvalid & dut.s_axis_tready;
		out_handshake = dut.m_axis_tvalid & dut.m_axis_tready;
		out_last = dut.m_axis_tlast;
		for (unsigned p = 0; p < 8; p++) {
			out_data[p] = (uint64_t)dut.m_axis_tdata[2 * p] | (uint64_t)dut.m_axis_tdata[2 * p + 1] << 32;
			out_keep[p] = (uint8_t)(dut.m_axis_tkeep >> (8 * p));
		}
	}
};

#endif
