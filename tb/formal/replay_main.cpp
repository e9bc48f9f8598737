// SPDX-License-Identifier: BSD-3-Clause
// Replays a yosys-smtbmc counterexample (its Verilog testbench, tb/formal/formal.py --replay)
// in Verilator: clocks the testbench until it stops driving genclock; a failing assertion of
// the model stops the run with Verilator's message naming the assertion's line.
#include <cstdio>

#include "Vtestbench.h"
#include "verilated.h"

int main(int argc, char **argv)
{
    VerilatedContext context;
    context.commandArgs(argc, argv);
    context.assertOn(true);
    Vtestbench testbench(&context);
    testbench.clock = 0;
    testbench.eval();
    for (int step = 1; testbench.genclock && !context.gotFinish() && step < 100000; step++) {
        std::printf("replay: step %d\n", step);
        std::fflush(stdout);
        testbench.clock = 1;
        testbench.eval();
        testbench.clock = 0;
        testbench.eval();
    }
    std::printf("replay: the trace ended with every assertion holding\n");
    return 0;
}
