// SPDX-License-Identifier: BSD-3-Clause
// AxilMasterBackend: see axil_master_backend.h.

#include "axil_master_backend.h"

#include "Vpktstats_core.h"

namespace pktstats_sim {

AxilMasterBackend::AxilMasterBackend(Vpktstats_core &dut, uint64_t timeout_cycles)
	: dut_(dut), timeout_cycles_(timeout_cycles)
{
}

int AxilMasterBackend::status_of(unsigned response)
{
	switch (response & 3) {
	case 2:
		return register_status::slave_error;
	case 3:
		return register_status::decode_error;
	default: // OKAY, EXOKAY
		return register_status::ok;
	}
}

int AxilMasterBackend::collect(bool is_write, uint32_t address, uint32_t data, uint32_t *value)
{
	if (state_ == State::idle) {
		state_ = is_write ? State::write_request : State::read_request;
		is_write_ = is_write;
		address_ = address;
		data_ = data;
		aw_done_ = w_done_ = false;
		cycles_ = 0;
		return register_status::pending;
	}
	bool same = is_write_ == is_write && address_ == address && (!is_write || data_ == data);
	if (!same)
		return -100; // another operation is in flight: a bug of the caller
	if (state_ != State::done)
		return register_status::pending;
	state_ = State::idle;
	if (!is_write && result_status_ == register_status::ok && value != nullptr)
		*value = result_value_;
	return result_status_;
}

int AxilMasterBackend::read(uint32_t address, uint32_t *value)
{
	return collect(false, address, 0, value);
}

int AxilMasterBackend::write(uint32_t address, uint32_t value)
{
	return collect(true, address, value, nullptr);
}

void AxilMasterBackend::drive()
{
	bool write_request = state_ == State::write_request;
	dut_.s_axil_awaddr = (uint16_t)address_;
	dut_.s_axil_awprot = 0;
	dut_.s_axil_awvalid = write_request && !aw_done_;
	dut_.s_axil_wdata = data_;
	dut_.s_axil_wstrb = 0xf;
	dut_.s_axil_wvalid = write_request && !w_done_;
	dut_.s_axil_bready = state_ == State::write_response;
	dut_.s_axil_araddr = (uint16_t)address_;
	dut_.s_axil_arprot = 0;
	dut_.s_axil_arvalid = state_ == State::read_request;
	dut_.s_axil_rready = state_ == State::read_response;
}

void AxilMasterBackend::sample()
{
	aw_fire_ = dut_.s_axil_awvalid && dut_.s_axil_awready;
	w_fire_ = dut_.s_axil_wvalid && dut_.s_axil_wready;
	b_fire_ = dut_.s_axil_bready && dut_.s_axil_bvalid;
	ar_fire_ = dut_.s_axil_arvalid && dut_.s_axil_arready;
	r_fire_ = dut_.s_axil_rready && dut_.s_axil_rvalid;
	sampled_response_ = b_fire_ ? dut_.s_axil_bresp : dut_.s_axil_rresp;
	sampled_data_ = dut_.s_axil_rdata;
}

void AxilMasterBackend::advance()
{
	if (state_ == State::idle || state_ == State::done)
		return;
	switch (state_) {
	case State::write_request:
		aw_done_ = aw_done_ || aw_fire_;
		w_done_ = w_done_ || w_fire_;
		if (aw_done_ && w_done_)
			state_ = State::write_response;
		break;
	case State::write_response:
		if (b_fire_) {
			result_status_ = status_of(sampled_response_);
			state_ = State::done;
		}
		break;
	case State::read_request:
		if (ar_fire_)
			state_ = State::read_response;
		break;
	case State::read_response:
		if (r_fire_) {
			result_status_ = status_of(sampled_response_);
			result_value_ = sampled_data_;
			state_ = State::done;
		}
		break;
	default:
		break;
	}
	if (state_ == State::done) {
		transactions_++;
		return;
	}
	if (++cycles_ >= timeout_cycles_) {
		result_status_ = register_status::timeout;
		state_ = State::done;
		timeouts_++;
	}
}

} // namespace pktstats_sim
