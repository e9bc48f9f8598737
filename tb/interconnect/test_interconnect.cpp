// SPDX-License-Identifier: BSD-3-Clause
//
// test_interconnect: common_axil_interconnect with two real register blocks behind it (the
// identity block at 0x0000, evcap's at 0x1000, see common_axil_interconnect_tb.v). Checks
// that each block answers its own addresses, that the blocks' error responses come back, that
// unmapped blocks answer DECERR without hanging, and random writes and reads in every channel
// order with back-pressure against a model of the evcap block's plain read-write registers.
// Prints TAP; `--seed N` replays the random part.

#include <cinttypes>
#include <cstdio>
#include <map>
#include <random>
#include <string>

#include "Vcommon_axil_interconnect_tb.h"
#include "axil_master.h"
#include "tap_runner.h"
#include "verilated.h"

extern "C" {
#include "pktstats/regs.h"
}

namespace {

std::string hex(uint32_t value)
{
	char text[16];
	snprintf(text, sizeof(text), "0x%08x", value);
	return text;
}

} // namespace

int main(int argc, char **argv)
{
	uint64_t seed = tap::seed_option(argc, argv);
	tap::Tally report;

	VerilatedContext context;
	Vcommon_axil_interconnect_tb top(&context);
	axil::Master<Vcommon_axil_interconnect_tb> bus(top, 0xffff);
	bus.reset();

	axil::Response r = bus.read(PKTSTATS_ID_MAGIC);
	report(r.resp == axil::RESP_OKAY && r.data == PKTSTATS_ID_MAGIC_VALUE,
	       "block 0 (identity) answers its magic", hex(r.data));
	r = bus.read(PKTSTATS_ID_GIT_HASH);
	report(r.resp == axil::RESP_OKAY && r.data == 0x0badc0de, "block 0 git hash input", hex(r.data));
	r = bus.read(PKTSTATS_EVCAP_TYPE);
	report(r.resp == axil::RESP_OKAY && r.data == PKTSTATS_EVCAP_TYPE_VALUE,
	       "block 1 (evcap) answers its type", hex(r.data));
	uint64_t timer = bus.read64(PKTSTATS_EVCAP_TIMER);
	report(timer == 0x1122334455667788ULL, "64-bit read through the interconnect");

	report(bus.write(PKTSTATS_EVCAP_TYPE, 1).resp == axil::RESP_SLVERR,
	       "a block's SLVERR (write to a read-only register) comes back");
	report(bus.read(0x1ffc).resp == axil::RESP_SLVERR, "a block's SLVERR (unmapped in the block)");

	bool decerr = true;
	for (uint32_t address : {0x2000u, 0x2004u, 0x3ffcu, 0x8000u, 0xfffcu}) {
		axil::Response w = bus.write(address, 0x12345678);
		axil::Response rd = bus.read(address);
		decerr = decerr && w.resp == axil::RESP_DECERR && rd.resp == axil::RESP_DECERR &&
			 rd.data == 0;
	}
	report(decerr, "addresses beyond the last block answer DECERR, reads 0");
	report(bus.read(PKTSTATS_ID_MAGIC).data == PKTSTATS_ID_MAGIC_VALUE,
	       "the bus still works after the errors");

	// Random traffic against a model of a few read-write registers.
	std::mt19937_64 random(seed);
	const uint32_t registers[] = {PKTSTATS_EVCAP_SOURCE_IP, PKTSTATS_EVCAP_DESTINATION_IP,
				      PKTSTATS_EVCAP_FLUSH_TIMEOUT, PKTSTATS_EVCAP_TTL,
				      PKTSTATS_EVCAP_QUEUE_MASK};
	const uint32_t masks[] = {0xffffffff, 0xffffffff, 0xffffffff, 0xff, 0xff};
	std::map<uint32_t, uint32_t> model;
	for (unsigned i = 0; i < 5; i++)
		model[registers[i]] = bus.read(registers[i]).data;
	std::string failure;
	for (unsigned n = 0; n < 3000 && failure.empty(); n++) {
		unsigned which = (unsigned)(random() % 5);
		uint32_t address = registers[which];
		if (random() % 2) {
			uint32_t value = (uint32_t)random();
			axil::WriteTiming timing;
			timing.order = (axil::Order)(random() % 3);
			timing.skew = (unsigned)(random() % 4);
			timing.b_delay = (unsigned)(random() % 4);
			if (bus.write(address, value, 0xf, timing).resp != axil::RESP_OKAY)
				failure = "write to " + hex(address) + " failed";
			model[address] = value & masks[which];
		} else {
			axil::Response got = bus.read(address, (unsigned)(random() % 4));
			if (got.resp != axil::RESP_OKAY || got.data != model[address])
				failure = "read " + hex(address) + " gave " + hex(got.data) + ", model " +
					  hex(model[address]);
		}
		if (random() % 50 == 0 && bus.read(0x4000 + 4 * (random() % 1024)).resp != axil::RESP_DECERR)
			failure = "unmapped read did not answer DECERR";
	}
	report(failure.empty(), "3000 random transactions, all channel orders, back-pressure", failure);
	report(bus.protocol_error().empty(), "AXI4-Lite protocol", bus.protocol_error());

	int status = report.finish();
	top.final();
	return status;
}
