# Another harness linked against a model a Verilator --exe build already made (Makefile,
# "Verilator harnesses"): run in that build's object directory after its generated makefile,
#
#   make -C OBJ_DIR -f Vtop.mk -f tb/common/verilated_harness.mk HARNESS=/abs/x.cpp BINARY=/abs/x /abs/x
#
# so that the harness is compiled with the model's own flags (its -CFLAGS, Verilator's defines
# and includes) and linked with its objects and -LDFLAGS, as the first harness was: the model
# is Verilated and compiled once for both.

HARNESS_OBJ := harness_$(basename $(notdir $(HARNESS))).o

$(HARNESS_OBJ): $(HARNESS)
	$(OBJCACHE) $(CXX) $(CXXFLAGS) $(CPPFLAGS) $(OPT_FAST) -c -o $@ $<

$(BINARY): $(HARNESS_OBJ) $(VK_GLOBAL_OBJS) $(VM_PREFIX)__ALL.a $(VM_HIER_LIBS)
	$(LINK) $(LDFLAGS) $^ $(LOADLIBES) $(LDLIBS) $(LIBS) $(SC_LIBS) -o $@
