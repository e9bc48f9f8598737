// SPDX-License-Identifier: BSD-3-Clause
#include "model_state.h"

#include <cstring>

#include "Vpktstats_core___024root.h"

namespace pktstats_sim {

namespace {

struct Field {
	const char *name;
	size_t offset, size;
};

// Every data member of the root, from the list sim/model_fields.py made of its header.
std::vector<Field> fields_of(const Vpktstats_core___024root &root)
{
	const char *base = reinterpret_cast<const char *>(&root);
	std::vector<Field> fields;
#define MODEL_FIELD(name)                                                                          \
	fields.push_back({#name, (size_t)(reinterpret_cast<const char *>(&root.name) - base), sizeof root.name});
#include "pktstats_model_fields.inc"
#undef MODEL_FIELD
	return fields;
}

} // namespace

ModelState ModelState::of(const Vpktstats_core___024root &root)
{
	ModelState state;
	const uint8_t *bytes = reinterpret_cast<const uint8_t *>(&root);
	state.bytes_.assign(bytes, bytes + sizeof root);
	return state;
}

void ModelState::restore(Vpktstats_core___024root &root) const
{
	// The root holds no pointer that changes as the model runs, so its old bytes are its old
	// state (the symbol table pointer and the name are written back as they were).
	memcpy(static_cast<void *>(&root), bytes_.data(), bytes_.size());
}

std::vector<std::string> ModelState::differences(const Vpktstats_core___024root &root, const ModelState &a,
						 const ModelState &b, size_t limit)
{
	static const std::vector<Field> fields = fields_of(root);
	std::vector<std::string> names;
	for (const Field &f : fields)
		// Verilator's __Vdly* members are temporaries of its sequential code, each loaded from
		// its variable before use in every evaluation: not state
		if (strncmp(f.name, "__Vdly", 6) != 0 && memcmp(a.bytes_.data() + f.offset, b.bytes_.data() + f.offset, f.size) != 0) {
			if (names.size() == limit) {
				names.push_back("...");
				break;
			}
			names.push_back(f.name);
		}
	return names;
}

} // namespace pktstats_sim
