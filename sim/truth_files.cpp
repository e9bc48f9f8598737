// SPDX-License-Identifier: BSD-3-Clause
//
// The wire truth file; see truth_files.h.

#include "truth_files.h"

#include <algorithm>

#include "frame_hash.h"

namespace pktstats_sim {

WireTruthFile::WireTruthFile(const std::string &path)
	: out_(path, "switch,port,direction,true_time_ps,clock,tod_seconds,tod_nanoseconds,"
		     "tod_fraction,length,frame_hash,hw_tx_seconds,hw_tx_nanoseconds,"
		     "hw_rx_seconds,hw_rx_nanoseconds,hw_residence_ns\n")
{
}

void WireTruthFile::record(unsigned switch_index, uint64_t step_fs, unsigned port, WireDirection direction,
			   uint64_t time_ps, uint64_t cycle, const TimeOfDay &tod,
			   const std::vector<uint8_t> &bytes, const HardwareStamps *hw)
{
	// FNV-1a over the frame as the wire carried it: the same frame at both ends of a cable
	FrameHash hash;
	for (uint8_t b : bytes)
		hash.add(b);
	char line[256];
	int n = snprintf(line, sizeof line, "%u,%u,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%u,%zu,%016" PRIx64,
			 switch_index, port, direction == WireDirection::transmit ? "tx" : "rx", time_ps,
			 cycle, tod.seconds, tod.nanoseconds, tod.fraction, bytes.size(), hash.value);
	if (hw == nullptr)
		snprintf(line + n, sizeof line - n, ",,,,,\n");
	else if (!hw->rx_valid)
		snprintf(line + n, sizeof line - n, ",%" PRIu64 ",%u,,,\n", hw->tx >> 30,
			 (unsigned)(hw->tx & 0x3fffffffu));
	else
		snprintf(line + n, sizeof line - n, ",%" PRIu64 ",%u,%" PRIu64 ",%u,%d\n", hw->tx >> 30,
			 (unsigned)(hw->tx & 0x3fffffffu), hw->rx >> 30, (unsigned)(hw->rx & 0x3fffffffu),
			 hw->residence);
	if (pending_.empty()) {
		fputs(line, out_.file());
		lines_++;
	} else
		pending_[switch_index].push_back(Pending{step_fs, line});
}

void WireTruthFile::write_pending()
{
	struct Next {
		uint64_t step_fs;
		size_t switch_index, line;
	};
	std::vector<Next> all;
	for (size_t k = 0; k < pending_.size(); k++)
		for (size_t i = 0; i < pending_[k].size(); i++)
			all.push_back(Next{pending_[k][i].step_fs, k, i});
	std::stable_sort(all.begin(), all.end(), [](const Next &a, const Next &b) {
		return a.step_fs != b.step_fs ? a.step_fs < b.step_fs : a.switch_index < b.switch_index;
	});
	for (const Next &n : all)
		fputs(pending_[n.switch_index][n.line].text.c_str(), out_.file());
	lines_ += all.size();
	for (auto &lines : pending_)
		lines.clear();
}

bool WireTruthFile::close(const char *program)
{
	write_pending();
	return out_.close(program);
}

} // namespace pktstats_sim
