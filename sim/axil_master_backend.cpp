// SPDX-License-Identifier: BSD-3-Clause
// AxilMasterBackend: see axil_master_backend.h.

#include "axil_master_backend.h"

#include "Vpktstats_core.h"

namespace pktstats_sim {

void AxilMasterBackend::drive()
{
	AxilRequestSignals r = request();
	dut_.s_axil_awaddr = (uint16_t)r.awaddr;
	dut_.s_axil_awprot = 0;
	dut_.s_axil_awvalid = r.awvalid;
	dut_.s_axil_wdata = r.wdata;
	dut_.s_axil_wstrb = 0xf;
	dut_.s_axil_wvalid = r.wvalid;
	dut_.s_axil_bready = r.bready;
	dut_.s_axil_araddr = (uint16_t)r.araddr;
	dut_.s_axil_arprot = 0;
	dut_.s_axil_arvalid = r.arvalid;
	dut_.s_axil_rready = r.rready;
}

void AxilMasterBackend::sample()
{
	AxilRequestSignals driven;
	driven.awvalid = dut_.s_axil_awvalid;
	driven.wvalid = dut_.s_axil_wvalid;
	driven.bready = dut_.s_axil_bready;
	driven.arvalid = dut_.s_axil_arvalid;
	driven.rready = dut_.s_axil_rready;
	AxilResponseSignals seen;
	seen.awready = dut_.s_axil_awready;
	seen.wready = dut_.s_axil_wready;
	seen.bvalid = dut_.s_axil_bvalid;
	seen.bresp = dut_.s_axil_bresp;
	seen.arready = dut_.s_axil_arready;
	seen.rvalid = dut_.s_axil_rvalid;
	seen.rresp = dut_.s_axil_rresp;
	seen.rdata = dut_.s_axil_rdata;
	AxilMaster::sample(driven, seen);
}

} // namespace pktstats_sim
