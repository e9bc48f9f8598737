// SPDX-License-Identifier: BSD-3-Clause
//
// ModelState: the whole state of a Verilated pktstats_core, saved, restored and compared member
// by member. Verilator keeps every variable of the design (registers, memories, its own
// scheduling state) in one object, the root (Vpktstats_core___024root); nothing of the model
// lives elsewhere, so its bytes are its state. `--idle-skip=check` uses this to prove each skip
// exact: it saves the model, skips, keeps the result, restores, clocks the same clocks and
// names every member whose value differs (sim/idle_skip.h).
//
// The member names come from the root's header, listed at build time by sim/model_fields.py.

#ifndef PKTSTATS_SIM_MODEL_STATE_H
#define PKTSTATS_SIM_MODEL_STATE_H

#include <cstdint>
#include <string>
#include <vector>

class Vpktstats_core___024root;

namespace pktstats_sim {

class ModelState {
public:
	// The bytes of `root` now.
	static ModelState of(const Vpktstats_core___024root &root);
	// Puts these bytes back into `root` (the same object they were taken from).
	void restore(Vpktstats_core___024root &root) const;
	// The members of `root`'s class whose bytes differ between the two states, each as
	// "name" (at most `limit` names).
	static std::vector<std::string> differences(const Vpktstats_core___024root &root, const ModelState &a,
						    const ModelState &b, size_t limit = 20);

private:
	std::vector<uint8_t> bytes_;
};

} // namespace pktstats_sim

#endif
