// SPDX-License-Identifier: BSD-3-Clause
//
// SojournTruth: pktstats-sim's per-frame queue truth file (--sojourn-truth FILE,
// docs/simulator.md "The sojourn truth file"). One CSV line per frame committed to an output
// queue, written when it departs:
//
//     queue,commit_cycle,depart_cycle,words,length,frame_hash
//
// The simulation tells it, clock by clock, what the core's queue event strobes said (the
// arrival strobe of queue q: a frame committed at that clock's edge, with its length in words)
// and every word that left the core on each output port's stream. A queue is a FIFO, so its
// k-th departure is its k-th commit: the commits wait in a FIFO per queue. The bytes of a
// port's output stream are hashed as they pass; at a frame's last word, if the queue's
// departure strobe is high in that clock, the frame was the queue's (its last word left the
// queue then) and its line is written with the frame's bytes as they left the switch, padded as
// the port's MAC pads them (the same bytes the out= pcap and the wire truth file hold); if not,
// it was one of the switch's own frames (a stat packet, an IPFIX message, merged after the
// queues) and is forgotten. Frames still queued when the file closes get a line with an empty
// depart_cycle, length and frame_hash.

#ifndef PKTSTATS_SIM_SOJOURN_TRUTH_H
#define PKTSTATS_SIM_SOJOURN_TRUTH_H

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <string>

#include "frame_hash.h"
#include "truth_file.h"

namespace pktstats_sim {

class SojournTruth {
public:
	static constexpr unsigned queues = 8;

	// Creates FILE and writes the header. Throws std::runtime_error when it cannot.
	explicit SojournTruth(const std::string &path)
		: out_(path, "queue,commit_cycle,depart_cycle,words,length,frame_hash\n")
	{
	}

	// Queue q's arrival strobe in `cycle`: a frame of `words` words committed at its edge.
	void arrival(unsigned q, uint64_t cycle, unsigned words) { committed_[q].push_back(Commit{cycle, words}); }

	// A word handshaked on port p's output stream (tkeep bit i: byte i of `data` is valid).
	void word(unsigned p, uint64_t data, unsigned keep)
	{
		Stream &s = stream_[p];
		for (unsigned i = 0; i < 8; i++)
			if (keep >> i & 1u) {
				s.hash.add((uint8_t)(data >> (8 * i)));
				s.bytes++;
			}
	}

	// The word just given to word() was the last of its frame, in `cycle`. `departed`: queue
	// p's departure strobe was high in that clock, with length `words`; `minimum_bytes`: the
	// port's MAC pads a shorter frame with zeros to this. Throws std::logic_error for a
	// departure of a queue with nothing committed (the strobes and the FIFO disagree).
	void frame_end(unsigned p, uint64_t cycle, bool departed, unsigned words, size_t minimum_bytes)
	{
		Stream &s = stream_[p];
		if (departed) {
			if (committed_[p].empty())
				throw std::logic_error("sojourn truth: queue " + std::to_string(p) + " departure in clock " +
						       std::to_string(cycle) + " with no frame committed");
			for (; s.bytes < minimum_bytes; s.bytes++)
				s.hash.add(0); // a zero byte of padding
			Commit c = committed_[p].front();
			committed_[p].pop_front();
			fprintf(out_.file(), "%u,%" PRIu64 ",%" PRIu64 ",%u,%zu,%016" PRIx64 "\n", p, c.cycle, cycle, words,
				s.bytes, s.hash.value);
			lines_++;
		}
		s = Stream();
	}

	// Writes the frames still queued (empty depart_cycle, length and frame_hash) and closes
	// the file. False (and the reason on stderr, after `program: `) when it could not be
	// written whole.
	bool close(const char *program)
	{
		for (unsigned q = 0; q < queues; q++)
			for (const Commit &c : committed_[q]) {
				fprintf(out_.file(), "%u,%" PRIu64 ",,%u,,\n", q, c.cycle, c.words);
				lines_++;
			}
		return out_.close(program);
	}

	uint64_t lines() const { return lines_; }
	const std::string &path() const { return out_.path(); }

private:
	struct Commit {
		uint64_t cycle;
		unsigned words;
	};
	// The frame passing on a port's output stream: FNV-1a 64 of its bytes so far, their count
	struct Stream {
		FrameHash hash;
		size_t bytes = 0;
	};
	TruthFile out_;
	std::deque<Commit> committed_[queues];
	Stream stream_[queues];
	uint64_t lines_ = 0;
};

} // namespace pktstats_sim

#endif
