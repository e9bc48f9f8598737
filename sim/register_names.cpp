// SPDX-License-Identifier: BSD-3-Clause
//
// The register map's names for pktstats-sim's --write: the same table the library and the CLI
// use (sw/driver/src/regs_table.c, generated from regmap/), compiled here as C++.

extern "C" {
#include "../sw/driver/src/regs_table.c"
}
