// SPDX-License-Identifier: BSD-3-Clause
//
// AxilMasterBackend: the AxilMaster (axil_master.h) on the Verilated pktstats_core's s_axil_*
// port, as pktstats-sim drives it.

#ifndef PKTSTATS_SIM_AXIL_MASTER_BACKEND_H
#define PKTSTATS_SIM_AXIL_MASTER_BACKEND_H

#include "axil_master.h"

class Vpktstats_core;

namespace pktstats_sim {

// The master on pktstats_core's s_axil_* port.
class AxilMasterBackend : public AxilMaster {
public:
	explicit AxilMasterBackend(Vpktstats_core &dut, uint64_t timeout_cycles = 4096)
		: AxilMaster(timeout_cycles), dut_(dut)
	{
	}
	void drive();
	void sample();

private:
	Vpktstats_core &dut_;
};

} // namespace pktstats_sim

#endif
