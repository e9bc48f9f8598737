// SPDX-License-Identifier: BSD-3-Clause
// AxilMaster: see axil_master.h.

#include "axil_master.h"

namespace pktstats_sim {

int AxilMaster::status_of(unsigned response)
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

int AxilMaster::collect(bool is_write, uint32_t address, uint32_t data, uint32_t *value)
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

int AxilMaster::read(uint32_t address, uint32_t *value)
{
	return collect(false, address, 0, value);
}

int AxilMaster::write(uint32_t address, uint32_t value)
{
	return collect(true, address, value, nullptr);
}

AxilRequestSignals AxilMaster::request() const
{
	AxilRequestSignals r;
	bool write_request = state_ == State::write_request;
	r.awaddr = r.araddr = address_;
	r.wdata = data_;
	r.awvalid = write_request && !aw_done_;
	r.wvalid = write_request && !w_done_;
	r.bready = state_ == State::write_response;
	r.arvalid = state_ == State::read_request;
	r.rready = state_ == State::read_response;
	return r;
}

void AxilMaster::sample(const AxilRequestSignals &driven, const AxilResponseSignals &seen)
{
	aw_fire_ = driven.awvalid && seen.awready;
	w_fire_ = driven.wvalid && seen.wready;
	b_fire_ = driven.bready && seen.bvalid;
	ar_fire_ = driven.arvalid && seen.arready;
	r_fire_ = driven.rready && seen.rvalid;
	sampled_response_ = b_fire_ ? seen.bresp : seen.rresp;
	sampled_data_ = seen.rdata;
}

void AxilMaster::advance()
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
