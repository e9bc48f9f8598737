// SPDX-License-Identifier: BSD-3-Clause
//
// mdio_phy_model.h: PHYs on an IEEE 802.3 clause-22 management bus (MDC/MDIO), for Verilator
// harnesses (tb/board/test_board_mdio.cpp; the board top's harness can take it too). Each PHY
// has an address and 32 registers of 16 bits; they all listen to the one bus, decode every
// frame bit by bit at MDC's rising edges and only the addressed one answers:
//
//   period  0..31     32..33  34..35        36..40  41..45  46..47          48..63
//           preamble  ST 01   OP 01 write   PHYAD   REGAD   TA 10 (master)  DATA (master)
//           1 x 32            OP 10 read                    TA Z0 (PHY)     DATA (PHY)
//
// A frame is checked as it comes: at least 32 preamble ones before the start, ST 01, OP 01 or
// 10, for a write TA 10; for a read the master must have let the line go by the rising edge of
// the turnaround's first bit (period 46) and keep off it until the PHY is done. The addressed
// PHY drives the turnaround's second bit 0 and the 16 data bits, each `output_delay` clocks
// after the MDC rising edge that ends the bit before (802.3 22.3.4: 0 to 300 ns after the
// rising edge; the station samples at the next one), and releases the line the same delay
// after the last data bit's rising edge. The master's own bits must be still `min_setup`
// clocks before and `min_hold` clocks after each rising edge (802.3: 10 ns each), and MDC's
// halves last `min_half` clocks or more (802.3: 160 ns). A frame to an address no PHY has
// gets no answer: the line stays at its pull-up's 1.
//
// Any breach (both driving in one clock, a bad preamble, start, opcode or turnaround, a setup,
// hold or MDC violation) is recorded in `error` (the first one, with the clock); the model
// goes on decoding from the next preamble.
//
// Use, once per clock after the rising clock edge has been evaluated:
//
//     mdio::Bus bus;
//     bus.phys.push_back(mdio::Phy(5));            // a PHY at address 5
//     ...
//     top->mdio_i = bus.step(top->mdc, top->mdio_oe, top->mdio_o);   // the line's level
//
// `frames` logs every complete frame seen (address, register, data, read or write, answered).
#ifndef PKTSTATS_TB_MDIO_PHY_MODEL_H
#define PKTSTATS_TB_MDIO_PHY_MODEL_H

#include <cstdint>
#include <string>
#include <vector>

namespace mdio {

struct Phy {
	explicit Phy(unsigned a) : address(a) {}
	unsigned address;
	uint16_t regs[32] = {};
	unsigned reads = 0, writes = 0;
};

struct Frame {
	bool read;
	unsigned phy, reg;
	uint16_t data;      // written, or returned (0xffff when no PHY answered)
	bool answered;      // a read: a PHY at that address drove the data
	uint64_t clock;     // when the frame ended
};

class Bus {
public:
	std::vector<Phy> phys;
	std::vector<Frame> frames;
	unsigned output_delay = 0; // clocks from MDC's rising edge to the PHY's new bit
	unsigned min_setup = 1, min_hold = 1, min_half = 1;
	std::string error;
	uint64_t rising_edges = 0;

	Phy *find(unsigned address)
	{
		for (Phy &p : phys)
			if (p.address == address)
				return &p;
		return nullptr;
	}

	// One clock: the master's outputs after the clock edge; returns the line's level.
	bool step(bool mdc, bool master_oe, bool master_o)
	{
		++clock_;
		// the PHY's scheduled change
		if (change_pending_ && clock_ >= change_at_) {
			phy_oe_ = next_oe_;
			phy_o_ = next_o_;
			change_pending_ = false;
		}
		if (master_oe && phy_oe_)
			fail("bus conflict: the master and PHY " + std::to_string(phy_) + " both drive MDIO");
		const bool master_level = master_oe ? master_o : true;
		if (master_oe != last_master_oe_ || master_level != last_master_level_) {
			// the master changed the line: not within min_hold after a rising edge
			if (seen_rising_ && clock_ - last_rising_ < min_hold && master_oe_at_rising_)
				fail("MDIO changed " + std::to_string(clock_ - last_rising_) +
				     " clocks after MDC rose (hold)");
			last_master_change_ = clock_;
		}
		last_master_oe_ = master_oe;
		last_master_level_ = master_level;
		const bool line = master_oe ? master_o : phy_oe_ ? phy_o_ : true;
		if (mdc != last_mdc_) {
			if (seen_edge_ && clock_ - last_edge_ < min_half)
				fail("an MDC half of " + std::to_string(clock_ - last_edge_) + " clocks");
			seen_edge_ = true;
			last_edge_ = clock_;
			if (mdc) {
				if (master_oe && clock_ - last_master_change_ < min_setup)
					fail("MDIO changed " + std::to_string(clock_ - last_master_change_) +
					     " clocks before MDC rose (setup)");
				seen_rising_ = true;
				last_rising_ = clock_;
				master_oe_at_rising_ = master_oe;
				++rising_edges;
				bit(line, master_oe);
			}
		}
		last_mdc_ = mdc;
		// with output_delay 0 the PHY's new bit is on the line in the clock MDC rose
		if (master_oe && phy_oe_)
			fail("bus conflict: the master and PHY " + std::to_string(phy_) + " both drive MDIO");
		return master_oe ? master_o : phy_oe_ ? phy_o_ : true;
	}

	uint64_t clock() const { return clock_; }

private:
	enum State { PREAMBLE, START, OPCODE, PHYAD, REGAD, TA, DATA };
	State state_ = PREAMBLE;
	unsigned ones_ = 0, count_ = 0;
	bool read_ = false;
	unsigned phy_ = 0, reg_ = 0;
	uint32_t shift_ = 0;
	Phy *target_ = nullptr;
	uint16_t out_ = 0; // the read's data

	uint64_t clock_ = 0;
	bool last_mdc_ = false, seen_edge_ = false, seen_rising_ = false;
	uint64_t last_edge_ = 0, last_rising_ = 0, last_master_change_ = 0;
	bool last_master_oe_ = false, last_master_level_ = true, master_oe_at_rising_ = false;
	bool phy_oe_ = false, phy_o_ = true;
	bool change_pending_ = false, next_oe_ = false, next_o_ = true;
	uint64_t change_at_ = 0;

	void fail(const std::string &why)
	{
		if (error.empty())
			error = "clock " + std::to_string(clock_) + ": " + why;
	}

	void abort_frame(const std::string &why)
	{
		fail(why);
		state_ = PREAMBLE;
		ones_ = 0;
		drive_later(false, true);
	}

	// The PHY's output for the next bit, output_delay clocks from now.
	void drive_later(bool oe, bool o)
	{
		if (output_delay == 0) {
			phy_oe_ = oe;
			phy_o_ = o;
			change_pending_ = false;
			return;
		}
		if (change_pending_) {
			// the previous change is due first
			phy_oe_ = next_oe_;
			phy_o_ = next_o_;
		}
		change_pending_ = true;
		change_at_ = clock_ + output_delay;
		next_oe_ = oe;
		next_o_ = o;
	}

	// The bit on the line at a rising edge of MDC.
	void bit(bool b, bool master_oe)
	{
		switch (state_) {
		case PREAMBLE:
			if (b) {
				ones_++;
			} else if (ones_ < 32) {
				abort_frame("a start after " + std::to_string(ones_) +
					    " preamble ones (32 needed)");
			} else {
				state_ = START; // ST's first bit, 0
			}
			break;
		case START:
			if (!b) {
				abort_frame("ST 00, not 01");
				break;
			}
			state_ = OPCODE;
			count_ = 0;
			shift_ = 0;
			break;
		case OPCODE:
			shift_ = shift_ << 1 | b;
			if (++count_ == 2) {
				if (shift_ != 1 && shift_ != 2) {
					abort_frame("opcode " + std::to_string(shift_ >> 1) +
						    std::to_string(shift_ & 1) + ", neither 01 nor 10");
					break;
				}
				read_ = shift_ == 2;
				state_ = PHYAD;
				count_ = 0;
				shift_ = 0;
			}
			break;
		case PHYAD:
			shift_ = shift_ << 1 | b;
			if (++count_ == 5) {
				phy_ = shift_;
				state_ = REGAD;
				count_ = 0;
				shift_ = 0;
			}
			break;
		case REGAD:
			shift_ = shift_ << 1 | b;
			if (++count_ == 5) {
				reg_ = shift_;
				state_ = TA;
				count_ = 0;
				target_ = find(phy_);
			}
			break;
		case TA:
			if (read_) {
				if (count_ == 0) {
					if (master_oe) {
						abort_frame("the master drives the read's turnaround");
						break;
					}
					// the addressed PHY drives TA's second bit 0
					if (target_) {
						out_ = target_->regs[reg_];
						drive_later(true, false);
					}
				}
			} else if (!master_oe || b != (count_ == 0)) {
				abort_frame("a write's turnaround is not 10 driven by the master");
				break;
			}
			if (++count_ == 2) {
				state_ = DATA;
				count_ = 0;
				shift_ = 0;
				if (read_ && target_)
					drive_later(true, out_ >> 15 & 1);
				else if (read_ && b == 0)
					abort_frame("the turnaround's second bit read 0 with no PHY there");
			}
			break;
		case DATA:
			if (read_ && master_oe) {
				abort_frame("the master drives during the read's data");
				break;
			}
			shift_ = shift_ << 1 | b;
			++count_;
			if (read_ && target_) {
				// the next bit, or let go after the last one
				if (count_ < 16)
					drive_later(true, out_ >> (15 - count_) & 1);
				else
					drive_later(false, true);
			}
			if (count_ == 16) {
				Frame f{read_, phy_, reg_, (uint16_t)shift_, target_ != nullptr, clock_};
				if (read_) {
					if (target_) {
						target_->reads++;
						if (f.data != out_)
							fail("a read's data on the line differs from the PHY's");
					}
				} else if (target_) {
					target_->regs[reg_] = (uint16_t)shift_;
					target_->writes++;
				}
				frames.push_back(f);
				state_ = PREAMBLE;
				ones_ = 0;
			}
			break;
		}
	}
};

} // namespace mdio

#endif
