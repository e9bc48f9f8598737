# pktstats: FPGA queue telemetry, its driver and tools.
#
#   make deps     install the Debian/Ubuntu packages that are missing (apt-get)
#   make all      build the library, tools and simulation models
#   make test     the whole regression; ends with "N passed, N failed, N skipped"
#   make lint     Verilator -Wall lint of rtl/ (no waivers)
#   make formal   formal proofs of the RTL (Yosys, yosys-smtbmc, z3; tb/formal/, docs/testing.md)
#   make demo     the main job on the simulated switch (scripts/demo.sh)
#   make demo-latency  frame delay and headroom measurement on two simulated switches
#   make demo-isl  OpenKilda's ISL latencies of three simulated switches, into VictoriaMetrics
#   make demo-flowlat  per-flow latency events as IPFIX to a real collector and to tshark
#   make demo-monitor  eight simulated switches monitored by pktstats-exporter, Prometheus and
#                 VictoriaMetrics
#   make synth    Yosys synth_xilinx of evcap, the time-of-day clock, the wire timestamps, the
#                 link-delay engines, the flow-latency monitor and exporter, the board's
#                 Ethernet MAC, the whole core and the NetFPGA-1G-CML board top:
#                 utilisation
#   make bench    benchmarks, figures printed
#   make bitstream  the NetFPGA-1G-CML bitstream with Vivado (docs/board.md); exits 2 with one
#                 line without it
#   make soak     long randomized runs (SOAK_CYCLES, e.g. 1e9, SOAK_SEEDS); memory flat
#   make fuzz     libFuzzer on the decoder and the network parsers (FUZZ_SECONDS per target,
#                 FUZZ_JOBS)
#   make regmap   regenerate rtl/gen, the C register header and docs/regmap.md
#   make clean

BUILD ?= build
# `make bitstream` finds Vivado first, or stops with one line saying what is missing
include fpga/netfpga-1g-cml/vivado.mk
CC ?= cc
CXX ?= c++
PYTHON ?= python3
VERILATOR ?= verilator
IVERILOG ?= iverilog
YOSYS ?= yosys

# Verilator builds go through ccache when it is installed (it is, after `make deps`).
OBJCACHE ?= $(shell command -v ccache 2>/dev/null)
export OBJCACHE
# Paths under the clone hashed relative to it, and the working directory not at all (-g
# records it): a fresh clone elsewhere finds what another clone compiled in the cache
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_NOHASHDIR ?= 1

JOBS ?= $(shell nproc 2>/dev/null || echo 2)

CFLAGS_WARN := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS_OPT ?= -O2 -g
SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
INCLUDES := -Isw/driver/include
# What libpktstats links: libnl-route-3 (collector resolution), libcrypto and jansson (the ISL
# signature token); the CLI adds libcurl (`isl run` writes to a time-series database).
# Deferred, so that they are asked after `make deps`.
LIB_CFLAGS = $(shell pkg-config --cflags libnl-route-3.0 libcrypto jansson)
LIB_LIBS = $(shell pkg-config --libs libnl-route-3.0 libcrypto jansson)
CLI_LIBS = $(LIB_LIBS) $(shell pkg-config --libs libcurl) -lpthread

# ---------------------------------------------------------------------------------------------
# Sources

RTL_EVCAP := $(sort $(wildcard rtl/evcap/*.v))
RTL_GEN := $(sort $(wildcard rtl/gen/*.v))
RTL_SWITCH := $(sort $(wildcard rtl/switch/*.v))
RTL_COMMON := $(sort $(wildcard rtl/common/*.v))
RTL_CORE := $(sort $(wildcard rtl/core/*.v))
RTL_TIME := $(sort $(wildcard rtl/time/*.v))
RTL_STAMP := $(sort $(wildcard rtl/stamp/*.v))
RTL_OAM := $(sort $(wildcard rtl/oam/*.v))
# The flow-latency monitor and its IPFIX exporter (docs/flowlat.md)
RTL_FLOWLAT := $(sort $(wildcard rtl/flowlat/*.v))
RTL_ALL := $(RTL_EVCAP) $(RTL_SWITCH) $(RTL_COMMON) $(RTL_CORE) $(RTL_TIME) $(RTL_STAMP) $(RTL_OAM) $(RTL_FLOWLAT) $(RTL_GEN)
# The board's RTL Ethernet MAC (rtl/mac/, docs/board.md), kept out of RTL_ALL: its RGMII stages
# instantiate the 7-series IDDR and ODDR primitives, which lint and simulation take from the
# behavioural models in fpga/models/ and synthesis (Yosys, Vivado) from the vendor's library.
RTL_MAC := $(sort $(wildcard rtl/mac/*.v))
FPGA_MODELS := $(sort $(wildcard fpga/models/*.v))
# The board top (fpga/netfpga-1g-cml/rtl/, docs/board.md), linted and synthesised with the MAC,
# the board glue and the primitives' models (fpga/models/, with the XDMA's port-only stand-in)
BOARD_RTL := $(sort $(wildcard fpga/netfpga-1g-cml/rtl/*.v))

LIB_SRC := $(sort $(wildcard sw/driver/src/*.c))
LIB_OBJ := $(patsubst sw/driver/src/%.c,$(BUILD)/obj/%.o,$(LIB_SRC))
LIB_OBJ_ASAN := $(patsubst sw/driver/src/%.c,$(BUILD)/asan/obj/%.o,$(LIB_SRC))
LIB_HEADERS := $(wildcard sw/driver/include/pktstats/*.h) $(wildcard sw/driver/src/*.h)

LIB := $(BUILD)/lib/libpktstats.a
LIB_ASAN := $(BUILD)/asan/lib/libpktstats.a

C_TESTS := $(patsubst sw/driver/test/%.c,$(BUILD)/asan/test/%,$(sort $(wildcard sw/driver/test/test_*.c)))

.PHONY: all deps lint formal test test-binaries synth synth-evcap sim-trace bench soak fuzz regmap regmap-check clean demo demo-latency demo-isl demo-flowlat demo-monitor install bitstream
.DELETE_ON_ERROR:

all: deps $(LIB) $(BUILD)/bin/pktstats-sim $(BUILD)/bin/pktstats $(BUILD)/bin/pktstats-exporter

deps:
	@scripts/deps.sh

# ---------------------------------------------------------------------------------------------
# libpktstats, release and sanitized

$(BUILD)/obj/%.o: sw/driver/src/%.c $(LIB_HEADERS) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(INCLUDES) $(LIB_CFLAGS) -c $< -o $@

$(BUILD)/asan/obj/%.o: sw/driver/src/%.c $(LIB_HEADERS) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(SANITIZE) $(INCLUDES) $(LIB_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIB_ASAN): $(LIB_OBJ_ASAN)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/asan/test/%: sw/driver/test/%.c $(LIB_ASAN) $(LIB_HEADERS) $(wildcard sw/driver/test/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(SANITIZE) $(INCLUDES) $< $(LIB_ASAN) $(LIB_LIBS) -o $@

# test_device_sim, test_control_sim and test_flowlat run the real simulator (they skip when there
# is none).
$(BUILD)/asan/test/test_device_sim $(BUILD)/asan/test/test_control_sim $(BUILD)/asan/test/test_flowlat $(BUILD)/asan/test/test_mac: | $(BUILD)/bin/pktstats-sim

# ---------------------------------------------------------------------------------------------
# Verilator harnesses. Each model is built once and reused by every test that needs it.
# The harness and the library it links are built with the sanitizers, like all C in `make test`;
# the benchmark builds its own optimised copy.

VERILATOR_FLAGS := --cc --exe --build -Wall -j $(JOBS) --x-assign unique --x-initial unique
TB_CFLAGS := -std=c++17 -g1 -Wall -Wextra -Werror -I$(CURDIR)/sw/driver/include \
	-I$(CURDIR)/tb/common
TB_HEADERS := $(wildcard tb/common/*.h)

# The sanitized harnesses are compiled at -O1 with line tables only (-g1), the level ASan's
# documentation recommends: the Verilated C++ of the whole core compiles in a quarter of the time
# it takes at Verilator's -Os with full debug information, and runs as fast. Verilator's runtime
# (verilated.cpp and friends), which each model's makefile would compile again, is compiled once
# with the same flags and linked into every sanitized harness (VM_GLOBAL_* emptied).
VERILATOR_ROOT_DIR = $(shell $(VERILATOR) --getenv VERILATOR_ROOT)
VERILATED_RUNTIME := $(addprefix $(BUILD)/tb/verilated-runtime/,verilated.o verilated_threads.o verilated_dpi.o)
HARNESS_MAKEFLAGS := OPT_FAST=-O1 OPT_SLOW=-O1 OPT_GLOBAL=-O1 VM_GLOBAL_FAST= VM_GLOBAL_SLOW=
$(BUILD)/tb/verilated-runtime/%.o: | deps
	@mkdir -p $(@D)
	$(OBJCACHE) $(CXX) -std=c++17 -O1 -g1 $(SANITIZE) -I$(VERILATOR_ROOT_DIR)/include \
		-I$(VERILATOR_ROOT_DIR)/include/vltstd -DVM_COVERAGE=0 -DVM_SC=0 -DVM_TRACE=0 \
		-DVM_TRACE_FST=0 -DVM_TRACE_VCD=0 -faligned-new -fcf-protection=none \
		-c $(VERILATOR_ROOT_DIR)/include/$*.cpp -o $@

define verilator_harness
# $(1) output binary, $(2) top module, $(3) RTL files, $(4) harness sources, $(5) extra C
# flags, $(6) library, $(7) extra Verilator flags (parameters). Harnesses built with the
# sanitizers share the runtime above; any other keeps Verilator's own build.
$(1): $(3) $(4) $(6) $(TB_HEADERS) $(if $(findstring -fsanitize,$(5)),$(VERILATED_RUNTIME)) | deps
	@mkdir -p $$(@D)
	+$(VERILATOR) $(VERILATOR_FLAGS) $(7) --top-module $(2) -Mdir $$(@D)/obj -o $$(abspath $$@) \
		$(if $(findstring -fsanitize,$(5)),$(addprefix -MAKEFLAGS ,$(HARNESS_MAKEFLAGS))) \
		-CFLAGS "$(TB_CFLAGS) $(5)" \
		-LDFLAGS "$(5) $$(abspath $(6)) $(if $(findstring -fsanitize,$(5)),$(abspath $(VERILATED_RUNTIME)))" \
		$(3) $$(abspath $(4)) >$$(@D)/build.log 2>&1 || { tail -40 $$(@D)/build.log; exit 1; }
endef

$(eval $(call verilator_harness,$(BUILD)/tb/evcap/test_evcap,evcap_core,tb/evcap/evcap.vlt $(RTL_EVCAP),tb/evcap/test_evcap.cpp,$(SANITIZE),$(LIB_ASAN)))
$(eval $(call verilator_harness,$(BUILD)/tb/evcap_top/test_evcap_top,evcap,$(RTL_EVCAP) rtl/gen/evcap_regs.v,tb/evcap/test_evcap_top.cpp,$(SANITIZE),$(LIB_ASAN)))
$(eval $(call verilator_harness,$(BUILD)/tb/regs/test_evcap_regs,evcap_regs,rtl/gen/evcap_regs.v,tb/regs/test_evcap_regs.cpp,$(SANITIZE),$(LIB_ASAN)))
$(eval $(call verilator_harness,$(BUILD)/tb/switch_stat_path/test_switch_stat_path,switch_stat_path,rtl/switch/switch_stat_path.v,tb/switch/test_switch_stat_path.cpp,$(SANITIZE),$(LIB_ASAN)))
$(eval $(call verilator_harness,$(BUILD)/tb/interconnect/test_interconnect,common_axil_interconnect_tb,tb/interconnect/common_axil_interconnect_tb.v $(RTL_COMMON) $(RTL_GEN),tb/interconnect/test_interconnect.cpp,$(SANITIZE),$(LIB_ASAN)))
# The lookup harness runs ageing with short ticks and narrow ages; -G and -D must agree.
$(eval $(call verilator_harness,$(BUILD)/tb/switch_lookup/test_switch_lookup,switch_output_port_lookup,rtl/switch/switch_output_port_lookup.v,tb/switch/test_switch_lookup.cpp,$(SANITIZE) -DAGE_TICK_CYCLES=32 -DAGE_WIDTH=8,$(LIB_ASAN),-GAGE_TICK_CYCLES=32 -GAGE_WIDTH=8))
$(eval $(call verilator_harness,$(BUILD)/tb/switch_arbiter/test_switch_arbiter,switch_input_arbiter,rtl/switch/switch_input_arbiter.v,tb/switch/test_switch_arbiter.cpp,$(SANITIZE),$(LIB_ASAN)))
$(eval $(call verilator_harness,$(BUILD)/tb/switch_queues/test_switch_queues,switch_output_queues,rtl/switch/switch_output_queues.v rtl/switch/switch_queue.v,tb/switch/test_switch_queues.cpp,$(SANITIZE),$(LIB_ASAN)))
$(eval $(call verilator_harness,$(BUILD)/tb/time/test_time,time_base,$(RTL_TIME) rtl/gen/time_regs.v,tb/time/test_time.cpp,$(SANITIZE),$(LIB_ASAN)))
# The metadata FIFO built small (8 entries, 5-bit tags) so that it runs full; -G and the
# harness's constants must agree.
$(eval $(call verilator_harness,$(BUILD)/tb/stamp_meta_fifo/test_stamp_meta_fifo,stamp_meta_fifo,rtl/stamp/stamp_meta_fifo.v,tb/stamp/test_stamp_meta_fifo.cpp,$(SANITIZE),$(LIB_ASAN),-GDEPTH_LOG2=3 -GTAG_WIDTH=5))
# The harness's model hashes flows with zlib's crc32: -lz reaches the link after the objects.
$(eval $(call verilator_harness,$(BUILD)/tb/flowlat/test_flowlat_core,flowlat_core,$(RTL_FLOWLAT),tb/flowlat/test_flowlat_core.cpp,$(SANITIZE) -lz,$(LIB_ASAN)))
$(eval $(call verilator_harness,$(BUILD)/tb/flowlat_ipfix/test_flowlat_ipfix,flowlat_ipfix,$(RTL_FLOWLAT),tb/flowlat/test_flowlat_ipfix.cpp,$(SANITIZE),$(LIB_ASAN)))
$(eval $(call verilator_harness,$(BUILD)/tb/flowlat_block/test_flowlat_block,flowlat_block,$(RTL_FLOWLAT) rtl/gen/flowlat_regs.v,tb/flowlat/test_flowlat_block.cpp,$(SANITIZE),$(LIB_ASAN)))
$(eval $(call verilator_harness,$(BUILD)/tb/core/test_pktstats_core,pktstats_core,tb/core/pktstats_core.vlt $(RTL_ALL),tb/core/test_pktstats_core.cpp,$(SANITIZE),$(LIB_ASAN)))
# The wire-timestamp harness drives the same sanitized core: linked against that model, not a
# second Verilation and compile of it (tb/common/verilated_harness.mk)
$(BUILD)/tb/stamp/test_stamp: $(BUILD)/tb/core/test_pktstats_core tb/stamp/test_stamp.cpp \
		tb/common/verilated_harness.mk $(TB_HEADERS)
	@mkdir -p $(@D)
	+$(MAKE) --no-print-directory -C $(BUILD)/tb/core/obj -f Vpktstats_core.mk \
		-f $(CURDIR)/tb/common/verilated_harness.mk $(HARNESS_MAKEFLAGS) HARNESS=$(CURDIR)/tb/stamp/test_stamp.cpp \
		BINARY=$(abspath $@) $(abspath $@) >$(@D)/build.log 2>&1 || { tail -40 $(@D)/build.log; exit 1; }
$(eval $(call verilator_harness,$(BUILD)/bench/evcap/test_evcap,evcap_core,tb/evcap/evcap.vlt $(RTL_EVCAP),tb/evcap/test_evcap.cpp,-DNDEBUG,$(LIB)))

# ---------------------------------------------------------------------------------------------
# Simulator components (sim/): plain C++ on libpcap, tested without the Verilated model

SIM_COMPONENTS := $(addprefix sim/,cable_wire.cpp clock_timebase.cpp link_timing.cpp mac_model.cpp pcap_frame_sink.cpp \
	pcap_frame_source.cpp register_request_parser.cpp register_server.cpp traffic_generator.cpp)
SIM_HEADERS := $(wildcard sim/*.h)

# The MAC harnesses. The transmit side is compared with the simulator's own MAC model (its
# sources are compiled into the harness), the receive side with the time of day at each
# frame's first bit.
MAC_TX_SIM := sim/link_timing.cpp sim/mac_model.cpp sim/clock_timebase.cpp
$(eval $(call verilator_harness,$(BUILD)/tb/mac_tx/test_mac_tx,mac_tx_tb,tb/mac/mac_tx_tb.v $(RTL_MAC) $(FPGA_MODELS),tb/mac/test_mac_tx.cpp $(MAC_TX_SIM),$(SANITIZE) -I$(CURDIR)/sim -lz,))
$(BUILD)/tb/mac_tx/test_mac_tx: $(SIM_HEADERS)
$(eval $(call verilator_harness,$(BUILD)/tb/mac_rx/test_mac_rx,mac_rx_tb,tb/mac/mac_rx_tb.v $(RTL_MAC) $(FPGA_MODELS),tb/mac/test_mac_rx.cpp,$(SANITIZE) -lz,))
$(eval $(call verilator_harness,$(BUILD)/tb/board_mdio/test_board_mdio,board_mdio_tb,tb/board/board_mdio_tb.v fpga/netfpga-1g-cml/rtl/board_mdio.v fpga/netfpga-1g-cml/rtl/board_mac_counters.v rtl/gen/mac_regs.v rtl/mac/mac_rx_sync.v,tb/board/test_board_mdio.cpp,$(SANITIZE),))
$(BUILD)/tb/board_mdio/test_board_mdio: tb/board/mdio_phy_model.h
$(eval $(call verilator_harness,$(BUILD)/tb/board_mac_counters/test_board_mac_counters,board_mac_counters_tb,tb/board/board_mac_counters_tb.v fpga/netfpga-1g-cml/rtl/board_axil_split.v fpga/netfpga-1g-cml/rtl/board_mac_counters.v rtl/gen/mac_regs.v rtl/mac/mac_rx_sync.v,tb/board/test_board_mac_counters.cpp,$(SANITIZE),))

$(BUILD)/asan/tb/sim/test_sim_components: tb/sim/test_sim_components.cpp $(SIM_COMPONENTS) $(SIM_HEADERS) | deps
	@mkdir -p $(@D)
	$(CXX) -std=c++17 -Wall -Wextra -Werror -g1 -O1 $(SANITIZE) -Isim $(SIM_COMPONENTS) $< -lpcap -o $@

# Collector resolution through rtnetlink, run in network namespaces by tb/collector/test_collector.py.
$(BUILD)/asan/tb/collector/resolve_collector: tb/collector/resolve_collector.c $(LIB_ASAN) $(LIB_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(SANITIZE) $(INCLUDES) $< $(LIB_ASAN) $(LIB_LIBS) -o $@

# The pktstats CLI (sw/tools/pktstats/, docs/cli.md), and its sanitized build for the tests.
# tb/cli/stat_dump prints each stat packet of a pcap as one JSON line, for the CLI's system tests.
CLI_SRC := $(sort $(wildcard sw/tools/pktstats/*.c))
CLI_HEADERS := $(wildcard sw/tools/pktstats/*.h)

$(BUILD)/bin/pktstats: $(CLI_SRC) $(CLI_HEADERS) $(LIB) $(LIB_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(INCLUDES) $(CLI_SRC) $(LIB) $(CLI_LIBS) -lpcap -o $@

$(BUILD)/asan/bin/pktstats: $(CLI_SRC) $(CLI_HEADERS) $(LIB_ASAN) $(LIB_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(SANITIZE) $(INCLUDES) $(CLI_SRC) $(LIB_ASAN) $(CLI_LIBS) -lpcap -o $@

# pktstats-exporter (sw/tools/exporter/, docs/monitoring.md): the Prometheus exporter, with the
# CLI's value parsers and packet socket; libmicrohttpd serves its HTTP. Release and sanitized.
EXPORTER_SRC := $(sort $(wildcard sw/tools/exporter/*.c)) sw/tools/pktstats/args.c \
	sw/tools/pktstats/oam_link.c sw/tools/pktstats/oam_probe.c
EXPORTER_HEADERS := $(wildcard sw/tools/exporter/*.h) sw/tools/pktstats/args.h \
	sw/tools/pktstats/oam_link.h sw/tools/pktstats/oam_probe.h
EXPORTER_LIBS = $(LIB_LIBS) $(shell pkg-config --libs libmicrohttpd) -lpcap -lpthread
EXPORTER_FLAGS = -Isw/tools/pktstats -DPKTSTATS_EXPORTER_VERSION='"$(PKTSTATS_VERSION)"' \
	-DPKTSTATS_EXPORTER_REVISION='"'$$(cat $(GIT_HASH_STAMP))'"'

$(BUILD)/bin/pktstats-exporter: $(EXPORTER_SRC) $(EXPORTER_HEADERS) $(LIB) $(LIB_HEADERS) $(GIT_HASH_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(INCLUDES) $(EXPORTER_FLAGS) $(EXPORTER_SRC) $(LIB) \
		$(EXPORTER_LIBS) -o $@

$(BUILD)/asan/bin/pktstats-exporter: $(EXPORTER_SRC) $(EXPORTER_HEADERS) $(LIB_ASAN) $(LIB_HEADERS) $(GIT_HASH_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(SANITIZE) $(INCLUDES) $(EXPORTER_FLAGS) $(EXPORTER_SRC) \
		$(LIB_ASAN) $(EXPORTER_LIBS) -o $@

# The exporter's parts that need no device or network (tb/exporter/test_exporter_units.c)
EXPORTER_UNITS := sw/tools/exporter/config.c sw/tools/exporter/exposition.c \
	sw/tools/exporter/stat_ingest.c sw/tools/pktstats/args.c
$(BUILD)/asan/tb/exporter/test_exporter_units: tb/exporter/test_exporter_units.c $(EXPORTER_UNITS) \
		$(EXPORTER_HEADERS) $(LIB_ASAN) $(LIB_HEADERS) sw/driver/test/test_device_tap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(SANITIZE) $(INCLUDES) -Isw/tools/pktstats -Isw/tools/exporter \
		$< $(EXPORTER_UNITS) $(LIB_ASAN) -o $@

$(BUILD)/asan/tb/cli/stat_dump: tb/cli/stat_dump.c $(LIB_ASAN) $(LIB_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(SANITIZE) $(INCLUDES) $< $(LIB_ASAN) -lpcap -o $@

# The forwarding core of `pktstats cpu-bridge run` on socket pairs (tb/cli/test_cpu_bridge.c)
$(BUILD)/asan/tb/cli/test_cpu_bridge: tb/cli/test_cpu_bridge.c sw/tools/pktstats/cpu_bridge.c \
		sw/tools/pktstats/cpu_bridge.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(SANITIZE) -Isw/tools/pktstats $< sw/tools/pktstats/cpu_bridge.c -lpthread -o $@

# The decoder's view of a pcap, field for field, for the Wireshark dissector's test
# (tb/wireshark/test_dissector.py).
$(BUILD)/asan/tb/wireshark/decode_fields: tb/wireshark/decode_fields.c $(LIB_ASAN) $(LIB_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(SANITIZE) $(INCLUDES) $< $(LIB_ASAN) -lpcap -o $@

# The system tests' checker: decodes a simulator run's stat packets and compares them with its
# ground truth and pcaps (tb/sim/test_sim_system.py runs it).
$(BUILD)/asan/tb/sim/check_sim_run: tb/sim/check_sim_run.c $(LIB_ASAN) $(LIB_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(SANITIZE) $(INCLUDES) $< $(LIB_ASAN) -lpcap -o $@

# pktstats-sim: the Verilated pktstats_core served as a device (docs/simulator.md). Optimised,
# no sanitizers: it is the product. `make sim-trace` builds build/bin/pktstats-sim-trace, which
# can write FST waveforms (--trace) and runs about 40% slower.
SIM_SOURCES := $(sort $(wildcard sim/*.cpp))
# OPT_FAST: Verilator's default -Os for the per-clock code; -O3 runs 13% more clocks per second
# than -O2 here (bench/bench_sim.py, medians side by side; -O2 had beaten -Os by about 6%),
# -march=native and profile-guided builds (gcc -fprofile-use) gained nothing over it, LTO 2%
SIM_VERILATOR := --cc --exe -Wall -O3 --top-module pktstats_core
SIM_CFLAGS := -std=c++17 -O2 -Wall -Wextra -Werror -I$(CURDIR)/sim -I$(CURDIR)/sw/driver/include

# The commit the simulator is built from becomes its identity's git_hash (pktstats dev show).
# The stamp file changes only when HEAD does, so nothing is rebuilt otherwise.
GIT_HASH_STAMP := $(BUILD)/git-hash
$(GIT_HASH_STAMP): FORCE
	@mkdir -p $(@D); hash=$$(git rev-parse --short=8 HEAD 2>/dev/null || echo 00000000); \
	[ "$$(cat $@ 2>/dev/null)" = "$$hash" ] || echo "$$hash" >$@
.PHONY: FORCE
FORCE:
SIM_GIT_HASH = -GGIT_HASH=32\'h$$(cat $(GIT_HASH_STAMP)) -CFLAGS -DPKTSTATS_SIM_GIT_HASH=0x$$(cat $(GIT_HASH_STAMP))
# The learning table's ageing tick, given to the core and to the idle skip (sim/idle_skip.cpp)
SIM_AGE_TICK_CYCLES := 125000000

# Two steps, as Verilator's --build would run them, with sim/model_fields.py between them: it
# lists the Verilated model's members for the idle skip's check (sim/model_state.h).
# $(1) object directory, $(2) extra Verilator arguments, $(3) the RTL (RTL_ALL but for the
# benchmark's stubbed build)
define sim_build
	@mkdir -p $(@D) $(1)
	+$(VERILATOR) $(SIM_VERILATOR) $(SIM_GIT_HASH) $(2) -GAGE_TICK_CYCLES=$(SIM_AGE_TICK_CYCLES) \
		-CFLAGS -DPKTSTATS_SIM_AGE_TICK_CYCLES=$(SIM_AGE_TICK_CYCLES) -Mdir $(1)/obj -o $(abspath $@) \
		-CFLAGS "$(SIM_CFLAGS)" -LDFLAGS "-lpcap" sim/pktstats_core.vlt $(3) \
		$(abspath $(SIM_SOURCES)) >$(1)/build.log 2>&1 || { tail -40 $(1)/build.log; exit 1; }
	python3 sim/model_fields.py $(1)/obj/Vpktstats_core___024root.h $(1)/obj/pktstats_model_fields.inc
	+$(MAKE) -C $(1)/obj -f Vpktstats_core.mk -j $(JOBS) OPT_FAST=-O3 >>$(1)/build.log 2>&1 \
		|| { tail -40 $(1)/build.log; exit 1; }
endef

$(BUILD)/bin/pktstats-sim: sim/pktstats_core.vlt sim/model_fields.py $(RTL_ALL) $(SIM_SOURCES) \
		$(SIM_HEADERS) $(GIT_HASH_STAMP) | deps
	$(call sim_build,$(BUILD)/sim,,$(RTL_ALL))

$(BUILD)/bin/pktstats-sim-trace: sim/pktstats_core.vlt sim/model_fields.py $(RTL_ALL) $(SIM_SOURCES) \
		$(SIM_HEADERS) $(GIT_HASH_STAMP) | deps
	$(call sim_build,$(BUILD)/sim-trace,--trace-fst,$(RTL_ALL))

# For `make bench` only (bench/bench_sim.py --sim-stubbed): the same simulator with the three
# latency engines, oam_block, stamp_block and flowlat_block, replaced by pass-through stubs
# (bench/engine_stubs/), to measure what the idle engines cost per clock. Left out: the
# engines' directories but stamp_meta_fifo (switch_core's) and their register blocks. The idle
# skip leaves out the flow-latency monitor's state (PKTSTATS_SIM_ENGINE_STUBS, sim/idle_skip.cpp).
ENGINE_STUBS := $(sort $(wildcard bench/engine_stubs/*.v))
ENGINE_RTL := $(RTL_OAM) $(RTL_FLOWLAT) $(filter-out rtl/stamp/stamp_meta_fifo.v,$(RTL_STAMP)) \
	rtl/gen/oam_regs.v rtl/gen/stamp_regs.v rtl/gen/flowlat_regs.v
RTL_STUBBED := $(filter-out $(ENGINE_RTL),$(RTL_ALL)) $(ENGINE_STUBS)

$(BUILD)/bench/sim-stubbed/pktstats-sim: sim/pktstats_core.vlt sim/model_fields.py $(RTL_STUBBED) \
		$(SIM_SOURCES) $(SIM_HEADERS) $(GIT_HASH_STAMP) | deps
	$(call sim_build,$(BUILD)/bench/sim-stubbed,-CFLAGS -DPKTSTATS_SIM_ENGINE_STUBS,$(RTL_STUBBED))

sim-trace: $(BUILD)/bin/pktstats-sim-trace

# board_top_sim: the whole board top driven at its pins, served like pktstats-sim
# (tb/board/board_top_sim.cpp; the XDMA played by tb/board/pcie_xdma.v). Optimised like
# pktstats-sim; the PHY reset shortened from 10 ms to 64 clocks.
BOARD_SIM_SOURCES := tb/board/board_top_sim.cpp $(addprefix sim/,axil_master.cpp link_timing.cpp \
	pcap_frame_sink.cpp pcap_frame_source.cpp register_request_parser.cpp register_server.cpp)
BOARD_SIM_RTL := $(RTL_ALL) $(RTL_MAC) $(BOARD_RTL) \
	$(filter-out fpga/models/pcie_xdma.v fpga/models/IOBUF.v,$(FPGA_MODELS)) tb/board/pcie_xdma.v tb/board/IOBUF.v
$(BUILD)/tb/board/board_top_sim: $(BOARD_SIM_RTL) $(BOARD_SIM_SOURCES) $(SIM_HEADERS) tb/board/mdio_phy_model.h | deps
	@mkdir -p $(@D)
	+$(VERILATOR) --cc --exe --build -Wall -j $(JOBS) -O3 --top-module netfpga_1g_cml_top \
		-MAKEFLAGS OPT_FAST=-O3 -GPHY_RESET_CYCLES=24\'d64 -GPHY_READY_CYCLES=24\'d32 \
		-Mdir $(@D)/obj -o $(abspath $@) -CFLAGS "$(SIM_CFLAGS) -I$(CURDIR)/tb/board" -LDFLAGS "-lpcap -lz" \
		$(BOARD_SIM_RTL) $(abspath $(BOARD_SIM_SOURCES)) >$(@D)/build.log 2>&1 || { tail -40 $(@D)/build.log; exit 1; }

# ---------------------------------------------------------------------------------------------
# RTL checks

# Each top is linted with -Wall and no waivers, and must compile under Icarus. Icarus's
# sensitivity-entire-array notice is off: the lookup's always @* blocks read every word of their
# tables on purpose (a performance note for Icarus, not a design problem).
LINT_TOPS := pktstats_core evcap switch_core common_axil_interconnect time_base stamp_block oam_block \
	stamp_meta_fifo flowlat_core flowlat_ipfix flowlat_block
# The MAC's tops, linted with the primitives' models (fpga/models/)
MAC_LINT_TOPS := mac_tx mac_rgmii_tx mac_rx_port mac_rgmii_rx mac_rx mac_rx_fifo

lint: | deps
	@for top in $(LINT_TOPS); do \
		$(VERILATOR) --lint-only -Wall --top-module $$top $(RTL_ALL) || exit 1; \
		$(IVERILOG) -g2001 -Wall -Wno-sensitivity-entire-array -s $$top -o /dev/null $(RTL_ALL) || exit 1; \
		echo "lint: $$top clean (verilator -Wall, iverilog -g2001)"; \
	done
	@for top in $(MAC_LINT_TOPS); do \
		$(VERILATOR) --lint-only -Wall --top-module $$top $(RTL_MAC) $(FPGA_MODELS) || exit 1; \
		$(IVERILOG) -g2001 -Wall -s $$top -o /dev/null $(RTL_MAC) $(FPGA_MODELS) || exit 1; \
		echo "lint: $$top clean (verilator -Wall, iverilog -g2001, with fpga/models)"; \
	done
	@$(VERILATOR) --lint-only -Wall --top-module netfpga_1g_cml_top $(RTL_ALL) $(RTL_MAC) $(BOARD_RTL) $(FPGA_MODELS)
	@$(IVERILOG) -g2001 -Wall -Wno-sensitivity-entire-array -s netfpga_1g_cml_top -o /dev/null \
		$(RTL_ALL) $(RTL_MAC) $(BOARD_RTL) $(FPGA_MODELS)
	@echo "lint: netfpga_1g_cml_top clean (verilator -Wall, iverilog -g2001, with fpga/models)"

# Formal proofs (tb/formal/formal.py): the register blocks (generated with them by
# regmap/regmap_gen.py), the interconnect, the time-of-day clock, the output queue and the
# event capture. A failure prints the command that replays its counterexample in Verilator.
formal: | deps
	@$(PYTHON) tb/formal/formal.py

# Icarus: the reference model's vectors for a directed scenario, replayed into the RTL.
$(BUILD)/asan/tb/make_vectors: tb/evcap/make_vectors.c $(LIB_ASAN) $(LIB_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(SANITIZE) $(INCLUDES) $< $(LIB_ASAN) -o $@

$(BUILD)/tb/evcap/vectors.txt: $(BUILD)/asan/tb/make_vectors
	@mkdir -p $(@D)
	$< > $@

$(BUILD)/tb/evcap/evcap_icarus_tb.vvp: tb/evcap/evcap_icarus_tb.v $(RTL_EVCAP) | deps
	@mkdir -p $(@D)
	$(IVERILOG) -g2001 -Wall -s evcap_icarus_tb -o $@ $^

# Icarus speed reference for `make bench`: the whole pktstats_core under line-rate load. The RTL's
# warnings are lint's business (make lint); here only the build must succeed.
$(BUILD)/bench/core/pktstats_core_icarus_tb.vvp: tb/core/pktstats_core_icarus_tb.v $(RTL_ALL) | deps
	@mkdir -p $(@D)
	$(IVERILOG) -g2001 -Wall -Wno-sensitivity-entire-array -s pktstats_core_icarus_tb -o $@ $^

# make synth: the evcap block (also part of make test), the time-of-day clock (time_base), the
# wire timestamps (stamp_block, stamp_meta_fifo), the link-delay engines (oam_block) and the
# whole pktstats_core (minutes).
$(BUILD)/synth/time_base.summary: $(RTL_TIME) rtl/gen/time_regs.v scripts/synth.sh | deps
	@mkdir -p $(@D)
	scripts/synth.sh time_base $(BUILD)/synth $(RTL_TIME) rtl/gen/time_regs.v

# The wire timestamps (rtl/stamp/): stamp_block (RX and TX points, registers) and one of the
# four stamp_meta_fifo that switch_core keeps beside the MAC queues.
$(BUILD)/synth/stamp_block.summary: $(RTL_STAMP) rtl/gen/stamp_regs.v scripts/synth.sh | deps
	@mkdir -p $(@D)
	scripts/synth.sh stamp_block $(BUILD)/synth $(RTL_STAMP) rtl/gen/stamp_regs.v

$(BUILD)/synth/stamp_meta_fifo.summary: rtl/stamp/stamp_meta_fifo.v scripts/synth.sh | deps
	@mkdir -p $(@D)
	scripts/synth.sh stamp_meta_fifo $(BUILD)/synth rtl/stamp/stamp_meta_fifo.v

# The link-delay engines (rtl/oam/): the whole oam_block (steer, 8 egress writers, registers and
# counters), and its two parts alone. What switch_core keeps for them is in its stamp_meta_fifo
# (wider entries, and one beside every queue), counted in pktstats_core.
$(BUILD)/synth/oam_block.summary: $(RTL_OAM) rtl/gen/oam_regs.v scripts/synth.sh | deps
	@mkdir -p $(@D)
	scripts/synth.sh oam_block $(BUILD)/synth $(RTL_OAM) rtl/gen/oam_regs.v

$(BUILD)/synth/oam_steer.summary: rtl/oam/oam_steer.v scripts/synth.sh | deps
	@mkdir -p $(@D)
	scripts/synth.sh oam_steer $(BUILD)/synth rtl/oam/oam_steer.v

$(BUILD)/synth/oam_egress.summary: rtl/oam/oam_egress.v scripts/synth.sh | deps
	@mkdir -p $(@D)
	scripts/synth.sh oam_egress $(BUILD)/synth rtl/oam/oam_egress.v

$(BUILD)/synth/evcap.summary: $(RTL_EVCAP) rtl/gen/evcap_regs.v scripts/synth.sh | deps
	@mkdir -p $(@D)
	scripts/synth.sh evcap $(BUILD)/synth $(RTL_EVCAP) rtl/gen/evcap_regs.v

$(BUILD)/synth/pktstats_core.summary: $(RTL_ALL) scripts/synth.sh | deps
	@mkdir -p $(@D)
	scripts/synth.sh pktstats_core $(BUILD)/synth $(RTL_ALL)

synth-evcap: $(BUILD)/synth/evcap.summary
	@cat $<

# The flow-latency monitor with its exporter and registers (counted in pktstats_core too)
$(BUILD)/synth/flowlat_block.summary: $(RTL_FLOWLAT) rtl/gen/flowlat_regs.v scripts/synth.sh | deps
	@mkdir -p $(@D)
	scripts/synth.sh flowlat_block $(BUILD)/synth $(RTL_FLOWLAT) rtl/gen/flowlat_regs.v

# The board's RTL Ethernet MAC, each half with its RGMII stage (the IDDR/ODDR primitives are
# Yosys's own cells: the models are not read)
$(BUILD)/synth/mac_tx.summary: $(RTL_MAC) scripts/synth.sh | deps
	@mkdir -p $(@D)
	scripts/synth.sh mac_tx $(BUILD)/synth $(RTL_MAC)

$(BUILD)/synth/mac_rx_port.summary: $(RTL_MAC) scripts/synth.sh | deps
	@mkdir -p $(@D)
	scripts/synth.sh mac_rx_port $(BUILD)/synth $(RTL_MAC)

# The board top: everything but the XDMA, which Yosys reads as a black box from its port-only
# stand-in (fpga/models/pcie_xdma.v); the Xilinx primitives are Yosys's own cells. About 13
# minutes on one core.
$(BUILD)/synth/netfpga_1g_cml_top.summary: $(RTL_ALL) $(RTL_MAC) $(BOARD_RTL) fpga/models/pcie_xdma.v \
		scripts/synth.sh | deps
	@mkdir -p $(@D)
	scripts/synth.sh netfpga_1g_cml_top $(BUILD)/synth $(RTL_ALL) $(RTL_MAC) $(BOARD_RTL) \
		fpga/models/pcie_xdma.v

synth: $(BUILD)/synth/evcap.summary $(BUILD)/synth/time_base.summary \
		$(BUILD)/synth/stamp_block.summary $(BUILD)/synth/stamp_meta_fifo.summary \
		$(BUILD)/synth/oam_block.summary $(BUILD)/synth/oam_steer.summary \
		$(BUILD)/synth/oam_egress.summary $(BUILD)/synth/flowlat_block.summary \
		$(BUILD)/synth/mac_tx.summary $(BUILD)/synth/mac_rx_port.summary \
		$(BUILD)/synth/netfpga_1g_cml_top.summary \
		$(BUILD)/synth/pktstats_core.summary
	@cat $^

regmap:
	$(PYTHON) regmap/regmap_gen.py

regmap-check:
	$(PYTHON) regmap/regmap_gen.py --check

# ---------------------------------------------------------------------------------------------
# Regression

TEST_BINARIES := $(C_TESTS) $(BUILD)/tb/evcap/test_evcap $(BUILD)/tb/evcap/vectors.txt \
	$(BUILD)/tb/evcap/evcap_icarus_tb.vvp $(BUILD)/tb/evcap_top/test_evcap_top \
	$(BUILD)/tb/regs/test_evcap_regs $(BUILD)/tb/switch_stat_path/test_switch_stat_path \
	$(BUILD)/tb/time/test_time \
	$(BUILD)/tb/interconnect/test_interconnect $(BUILD)/tb/switch_lookup/test_switch_lookup \
	$(BUILD)/tb/switch_arbiter/test_switch_arbiter \
	$(BUILD)/tb/switch_queues/test_switch_queues $(BUILD)/tb/core/test_pktstats_core \
	$(BUILD)/tb/stamp/test_stamp $(BUILD)/tb/stamp_meta_fifo/test_stamp_meta_fifo \
	$(BUILD)/tb/flowlat/test_flowlat_core \
	$(BUILD)/tb/flowlat_ipfix/test_flowlat_ipfix \
	$(BUILD)/tb/flowlat_block/test_flowlat_block \
	$(BUILD)/tb/mac_tx/test_mac_tx $(BUILD)/tb/mac_rx/test_mac_rx $(BUILD)/tb/board/board_top_sim \
	$(BUILD)/tb/board_mac_counters/test_board_mac_counters $(BUILD)/tb/board_mdio/test_board_mdio \
	$(BUILD)/asan/tb/sim/test_sim_components $(BUILD)/bin/pktstats-sim \
	$(BUILD)/asan/tb/sim/check_sim_run $(BUILD)/asan/tb/collector/resolve_collector
TEST_BINARIES += $(BUILD)/bin/pktstats $(BUILD)/asan/bin/pktstats $(BUILD)/asan/tb/cli/stat_dump
TEST_BINARIES += $(BUILD)/asan/tb/wireshark/decode_fields
TEST_BINARIES += $(BUILD)/asan/tb/cli/test_cpu_bridge
TEST_BINARIES += $(BUILD)/bin/pktstats-exporter $(BUILD)/asan/bin/pktstats-exporter \
	$(BUILD)/asan/tb/exporter/test_exporter_units
# The examples of the docs build against the release library (tb/docs/test_doc_examples.py).
TEST_BINARIES += $(LIB)
# The fuzz targets' replay of tb/fuzz/corpus and tb/fuzz/regressions (see "Fuzzing" below).
FUZZ_TARGETS := payload stream ingest exporter_config accept ipfix isl isl_token dm headroom
TEST_BINARIES += $(addprefix $(BUILD)/asan/tb/fuzz/replay_,$(FUZZ_TARGETS))

# The tests that need nothing the build makes: they still run when it fails
# (scripts/run_tests.py --no-build)
# The proofs and the mutants are tests of their own, a core each, so that the longest-first
# scheduler packs them beside the simulator tests (docs/testing.md)
FORMAL_PROOFS := $(sort $(notdir $(patsubst %/proof.toml,%,$(wildcard tb/formal/*/proof.toml tb/formal/gen/*/proof.toml))))
# (expanded when used, `=`: only `make test` asks Python for the mutants' names)
FORMAL_MUTANTS = $(shell $(PYTHON) tb/formal/test_formal_mutants.py --list)
FORMAL_TESTS = $(addprefix formal_,$(FORMAL_PROOFS)) $(addprefix formal_mutant_,$(FORMAL_MUTANTS))
TESTS_WITHOUT_BUILD = regmap-fresh lint $(FORMAL_TESTS) test_build_tcl test_constraints \
	synth test_alert_rules test_isl_frames test_victoria test_prometheus test_isl_dissector

test-binaries: $(TEST_BINARIES)

# The build on every core, then the tests the longest first, JOBS cores busy and no more: the
# proofs run a thread per core themselves (docs/testing.md)
test: deps
	@$(PYTHON) scripts/run_tests.py --jobs $(JOBS) \
		--build "$(MAKE) --no-print-directory -j$(JOBS) test-binaries" \
		$(addprefix --no-build ,$(TESTS_WITHOUT_BUILD)) \
		"regmap-fresh=$(PYTHON) regmap/regmap_gen.py --check" \
		"lint=$(MAKE) --no-print-directory lint" \
		$(foreach p,$(FORMAL_PROOFS),"formal_$(p)=$(PYTHON) tb/formal/formal.py --jobs 1 --only $(p)") \
		$(foreach m,$(FORMAL_MUTANTS),"formal_mutant_$(m)=$(PYTHON) tb/formal/test_formal_mutants.py --jobs 1 --only $(m)") \
		$(foreach t,$(C_TESTS),"$(notdir $(t))=$(t)") \
		"test_evcap_regs=$(BUILD)/tb/regs/test_evcap_regs" \
		"test_evcap_top=$(BUILD)/tb/evcap_top/test_evcap_top" \
		"test_evcap=$(BUILD)/tb/evcap/test_evcap --cycles $(TEST_CYCLES)" \
		"test_time=$(BUILD)/tb/time/test_time" \
		"test_interconnect=$(BUILD)/tb/interconnect/test_interconnect" \
		"test_switch_arbiter=$(BUILD)/tb/switch_arbiter/test_switch_arbiter" \
		"test_switch_lookup=$(BUILD)/tb/switch_lookup/test_switch_lookup" \
		"test_switch_queues=$(BUILD)/tb/switch_queues/test_switch_queues" \
		"test_pktstats_core=$(BUILD)/tb/core/test_pktstats_core" \
		"test_stamp=$(BUILD)/tb/stamp/test_stamp" \
		"test_stamp_meta_fifo=$(BUILD)/tb/stamp_meta_fifo/test_stamp_meta_fifo" \
		"test_flowlat_core=$(BUILD)/tb/flowlat/test_flowlat_core" \
		"test_flowlat_ipfix=$(BUILD)/tb/flowlat_ipfix/test_flowlat_ipfix" \
		"test_flowlat_ipfix_tshark=$(PYTHON) tb/flowlat/test_flowlat_ipfix.py $(BUILD)/tb/flowlat_ipfix/test_flowlat_ipfix" \
		"test_flowlat_block=$(BUILD)/tb/flowlat_block/test_flowlat_block" \
		"test_mac_tx=$(BUILD)/tb/mac_tx/test_mac_tx" \
		"test_mac_rx=$(BUILD)/tb/mac_rx/test_mac_rx" \
		"test_build_tcl=$(PYTHON) tb/fpga/test_build_tcl.py" \
		"test_constraints=$(PYTHON) tb/fpga/test_constraints.py" \
		"test_board_mac_counters=$(BUILD)/tb/board_mac_counters/test_board_mac_counters" \
		"test_board_mdio=$(BUILD)/tb/board_mdio/test_board_mdio" \
		"test_cli_mac=$(PYTHON) tb/cli/test_cli_mac.py $(BUILD)/asan/bin/pktstats $(BUILD)/bin/pktstats-sim" \
		"test_board_top=$(PYTHON) tb/board/test_board_top.py $(BUILD)/tb/board/board_top_sim $(BUILD)/bin/pktstats-sim $(BUILD)/asan/bin/pktstats" \
		"test_sim_components=$(BUILD)/asan/tb/sim/test_sim_components" \
		"test_collector=$(PYTHON) tb/collector/test_collector.py $(BUILD)/asan/tb/collector/resolve_collector $(BUILD)/asan/bin/pktstats $(BUILD)/bin/pktstats-sim" \
		"test_sim_tap=$(PYTHON) tb/sim/test_sim_tap.py $(BUILD)/bin/pktstats-sim" \
		"test_sim_smoke=bash tb/sim/test_sim_smoke.sh $(BUILD)/bin/pktstats-sim" \
		"test_sim_system=$(PYTHON) tb/sim/test_sim_system.py $(BUILD)/bin/pktstats-sim $(BUILD)/asan/tb/sim/check_sim_run" \
		"test_sim_end=$(PYTHON) tb/sim/test_sim_end.py $(BUILD)/bin/pktstats-sim $(BUILD)/asan/bin/pktstats" \
		"test_sim_network=$(PYTHON) tb/sim/test_sim_network.py $(BUILD)/bin/pktstats-sim $(BUILD)/asan/bin/pktstats" \
		"test_sim_stamps=$(PYTHON) tb/sim/test_sim_stamps.py $(BUILD)/bin/pktstats-sim" \
		"test_sim_idle_skip=$(PYTHON) tb/sim/test_sim_idle_skip.py $(BUILD)/bin/pktstats-sim" \
		"test_sim_sojourn_truth=$(PYTHON) tb/sim/test_sim_sojourn_truth.py $(BUILD)/bin/pktstats-sim" \
		"test_sim_oam=$(PYTHON) tb/sim/test_sim_oam.py $(BUILD)/bin/pktstats-sim $(BUILD)/asan/bin/pktstats" \
		"test_sim_oam_tools=$(PYTHON) tb/sim/test_sim_oam_tools.py $(BUILD)/bin/pktstats-sim $(BUILD)/asan/bin/pktstats" \
		"test_sim_isl=$(PYTHON) tb/sim/test_sim_isl.py $(BUILD)/bin/pktstats-sim" \
		"test_sim_isl_controller=$(PYTHON) tb/sim/test_sim_isl_controller.py $(BUILD)/bin/pktstats-sim $(BUILD)/asan/bin/pktstats" \
		"test_sim_flowlat=$(PYTHON) tb/sim/test_sim_flowlat.py $(BUILD)/bin/pktstats-sim" \
		"test_sim_flowlat_collector=$(PYTHON) tb/sim/test_sim_flowlat_collector.py $(BUILD)/bin/pktstats-sim" \
		"test_sim_flowlat_scale=$(PYTHON) tb/sim/test_sim_flowlat_scale.py $(BUILD)/bin/pktstats-sim" \
		"test_cli_bad_input=$(PYTHON) tb/cli/test_cli_bad_input.py $(BUILD)/asan/bin/pktstats $(BUILD)/bin/pktstats-sim" \
		"test_cli_json=$(PYTHON) tb/cli/test_cli_json.py $(BUILD)/asan/bin/pktstats $(BUILD)/bin/pktstats-sim" \
		"test_cli_time=$(PYTHON) tb/cli/test_cli_time.py $(BUILD)/asan/bin/pktstats $(BUILD)/bin/pktstats-sim" \
		"test_cli_system=$(PYTHON) tb/cli/test_cli_system.py $(BUILD)/asan/bin/pktstats $(BUILD)/bin/pktstats-sim $(BUILD)/asan/tb/cli/stat_dump" \
		"test_cli_decode=$(PYTHON) tb/cli/test_cli_decode.py $(BUILD)/asan/bin/pktstats $(BUILD)/bin/pktstats-sim" \
		"test_cli_oam=$(PYTHON) tb/cli/test_cli_oam.py $(BUILD)/asan/bin/pktstats $(BUILD)/bin/pktstats-sim" \
		"test_cli_oam_live=$(PYTHON) tb/cli/test_cli_oam_live.py $(BUILD)/asan/bin/pktstats" \
		"test_cli_isl=$(PYTHON) tb/cli/test_cli_isl.py $(BUILD)/asan/bin/pktstats" \
		"test_cli_flowlat=$(PYTHON) tb/cli/test_cli_flowlat.py $(BUILD)/asan/bin/pktstats $(BUILD)/bin/pktstats-sim" \
		"test_cli_flash=$(PYTHON) tb/cli/test_cli_flash.py $(BUILD)/asan/bin/pktstats" \
		"test_cpu_bridge=$(BUILD)/asan/tb/cli/test_cpu_bridge" \
		"test_cli_cpu_bridge=$(PYTHON) tb/cli/test_cli_cpu_bridge.py $(BUILD)/asan/bin/pktstats" \
		"test_cli_flowlat_watch=$(PYTHON) tb/cli/test_cli_flowlat_watch.py $(BUILD)/asan/bin/pktstats $(BUILD)/bin/pktstats-sim" \
		"test_cli_install=sh tb/cli/test_cli_install.sh" \
		"test_cli_plot=$(PYTHON) tb/cli/test_cli_plot.py $(BUILD)/asan/bin/pktstats $(BUILD)/bin/pktstats-sim" \
		"test_cli_sojourn=$(PYTHON) tb/cli/test_cli_sojourn.py $(BUILD)/asan/bin/pktstats $(BUILD)/bin/pktstats-sim" \
		"test_dissector=$(PYTHON) tb/wireshark/test_dissector.py $(BUILD)/asan/tb/wireshark/decode_fields $(BUILD)/bin/pktstats-sim $(BUILD)/bin/pktstats" \
		"test_headroom_dissector=$(PYTHON) tb/wireshark/test_headroom_dissector.py $(BUILD)/asan/bin/pktstats" \
		"test_cfm_dm=$(PYTHON) tb/wireshark/test_cfm_dm.py $(BUILD)/asan/bin/pktstats" \
		"test_isl_frames=$(PYTHON) tb/common/test_isl_frames.py" \
		"test_victoria=$(PYTHON) tb/common/test_victoria.py" \
		"test_prometheus=$(PYTHON) tb/common/test_prometheus.py" \
		"test_alert_rules=$(PYTHON) tb/exporter/test_alert_rules.py sw/tools/exporter/pktstats-alerts.yml tb/exporter/pktstats-alerts.test.yml" \
		"test_exporter_units=$(BUILD)/asan/tb/exporter/test_exporter_units" \
		"test_exporter_sim=$(PYTHON) tb/exporter/test_exporter_sim.py $(BUILD)/bin/pktstats-sim $(BUILD)/asan/bin/pktstats $(BUILD)/asan/bin/pktstats-exporter" \
		"test_exporter_service=$(PYTHON) tb/exporter/test_exporter_service.py $(BUILD)/bin/pktstats-sim $(BUILD)/asan/bin/pktstats $(BUILD)/asan/bin/pktstats-exporter" \
		"test_exporter_fleet=$(PYTHON) tb/exporter/test_exporter_fleet.py $(BUILD)/bin/pktstats-sim $(BUILD)/asan/bin/pktstats $(BUILD)/bin/pktstats-exporter" \
		"test_exporter_measurements=$(PYTHON) tb/exporter/test_exporter_measurements.py $(BUILD)/bin/pktstats-sim $(BUILD)/asan/bin/pktstats $(BUILD)/asan/bin/pktstats-exporter" \
		"test_isl_dissector=$(PYTHON) tb/wireshark/test_isl_dissector.py" \
		"test_doc_examples=$(PYTHON) tb/docs/test_doc_examples.py $(BUILD)" \
		$(foreach t,$(FUZZ_TARGETS),"test_fuzz_$(t)=$(BUILD)/asan/tb/fuzz/replay_$(t) tb/fuzz/corpus/$(t) tb/fuzz/regressions/$(t)") \
		"test_switch_stat_path=$(BUILD)/tb/switch_stat_path/test_switch_stat_path" \
		"icarus=vvp -n $(BUILD)/tb/evcap/evcap_icarus_tb.vvp +vectors=$(BUILD)/tb/evcap/vectors.txt" \
		"synth=$(MAKE) --no-print-directory synth-evcap"

# ---------------------------------------------------------------------------------------------
# Fuzzing the decoder and the network parsers (tb/fuzz/, docs/testing.md "Fuzzing"). `make fuzz`
# builds each target with clang and libFuzzer and runs it FUZZ_SECONDS (nice'd, FUZZ_JOBS
# processes per target, targets one after the other); not part of `make test`, which replays the
# kept inputs instead (tb/fuzz/corpus, tb/fuzz/regressions) through the same targets built with
# gcc, ASan and UBSan.

# FUZZ_TARGETS: above, with the test binaries.
# The exporter's targets compile its sources (and what they use) in, like decode.c above.
FUZZ_EXPORTER_SRC_ingest := sw/tools/exporter/stat_ingest.c sw/driver/src/decode.c sw/driver/src/sojourn.c
FUZZ_EXPORTER_SRC_exporter_config := sw/tools/exporter/config.c sw/tools/pktstats/args.c
FUZZ_EXPORTER_SRC_accept := sw/tools/exporter/exposition.c
FUZZ_EXPORTER_FLAGS := -Isw/tools/exporter -Isw/tools/pktstats
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ_CC ?= clang
FUZZ_CFLAGS := $(CFLAGS_WARN) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer $(INCLUDES)

# decode.c is compiled into each fuzzer (with coverage instrumentation), not taken from the library.
$(BUILD)/fuzz/fuzz_%: tb/fuzz/fuzz_%.c tb/fuzz/fuzz_common.h sw/driver/src/decode.c $(LIB_HEADERS) | deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $< sw/driver/src/decode.c -o $@

$(foreach t,ingest exporter_config accept,$(eval \
$(BUILD)/fuzz/fuzz_$(t): tb/fuzz/fuzz_$(t).c tb/fuzz/fuzz_common.h $(FUZZ_EXPORTER_SRC_$(t)) $(EXPORTER_HEADERS) $(LIB_HEADERS) | deps ; \
	@mkdir -p $$(@D) && $(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_EXPORTER_FLAGS) $$< $(FUZZ_EXPORTER_SRC_$(t)) -o $$@))

$(BUILD)/asan/tb/fuzz/replay_%: tb/fuzz/replay.c tb/fuzz/fuzz_%.c tb/fuzz/fuzz_common.h $(LIB_ASAN) $(LIB_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(SANITIZE) $(INCLUDES) tb/fuzz/replay.c tb/fuzz/fuzz_$*.c $(LIB_ASAN) -o $@

$(foreach t,ingest exporter_config accept,$(eval \
$(BUILD)/asan/tb/fuzz/replay_$(t): tb/fuzz/replay.c tb/fuzz/fuzz_$(t).c tb/fuzz/fuzz_common.h $(filter sw/tools/%,$(FUZZ_EXPORTER_SRC_$(t))) $(EXPORTER_HEADERS) $(LIB_ASAN) $(LIB_HEADERS) ; \
	@mkdir -p $$(@D) && $(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(SANITIZE) $(INCLUDES) $(FUZZ_EXPORTER_FLAGS) tb/fuzz/replay.c tb/fuzz/fuzz_$(t).c $(filter sw/tools/%,$(FUZZ_EXPORTER_SRC_$(t))) $(LIB_ASAN) -o $$@))

# The network parsers of the library (IPFIX, the ISL discovery packet and token, the DM frames,
# the headroom PDU): the parser's source compiled in, the rest of the library linked; the CLI's
# probe code they drive too (oam_probe.c, and oam_link.c that it calls), in the replay as well.
FUZZ_LIBRARY_TARGETS := ipfix isl isl_token dm headroom
FUZZ_SRC_ipfix := sw/driver/src/flowlat.c
FUZZ_SRC_isl := sw/driver/src/isl_frame.c
FUZZ_SRC_isl_token := $(FUZZ_SRC_isl)
FUZZ_SRC_dm := sw/driver/src/oam_frame.c sw/tools/pktstats/oam_probe.c sw/tools/pktstats/oam_link.c
FUZZ_SRC_headroom := $(FUZZ_SRC_dm)
FUZZ_LIBRARY_DEPS := tb/fuzz/fuzz_common.h tb/fuzz/fuzz_isl.h $(CLI_HEADERS) $(LIB_HEADERS)

$(foreach t,$(FUZZ_LIBRARY_TARGETS),$(eval \
$(BUILD)/fuzz/fuzz_$(t): tb/fuzz/fuzz_$(t).c $(FUZZ_SRC_$(t)) $(FUZZ_LIBRARY_DEPS) $(LIB) | deps ; \
	@mkdir -p $$(@D) && $(FUZZ_CC) $(FUZZ_CFLAGS) -Isw/tools/pktstats $$< $(FUZZ_SRC_$(t)) $(LIB) $$(LIB_LIBS) -o $$@))

$(foreach t,$(FUZZ_LIBRARY_TARGETS),$(eval \
$(BUILD)/asan/tb/fuzz/replay_$(t): tb/fuzz/replay.c tb/fuzz/fuzz_$(t).c $(filter sw/tools/%,$(FUZZ_SRC_$(t))) $(FUZZ_LIBRARY_DEPS) $(LIB_ASAN) ; \
	@mkdir -p $$(@D) && $(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(SANITIZE) $(INCLUDES) -Isw/tools/pktstats tb/fuzz/replay.c tb/fuzz/fuzz_$(t).c $(filter sw/tools/%,$(FUZZ_SRC_$(t))) $(LIB_ASAN) $$(LIB_LIBS) -o $$@))

fuzz: $(addprefix $(BUILD)/fuzz/fuzz_,$(FUZZ_TARGETS))
	@tb/fuzz/run_fuzz.sh $(BUILD) $(FUZZ_SECONDS) $(FUZZ_JOBS) $(FUZZ_TARGETS)

TEST_CYCLES ?= 1000000
# The soak (docs/testing.md, "Soak"): test_evcap's random case, SOAK_SEEDS new seeds of
# SOAK_CYCLES clocks each (a whole number: 50000000 or 5e7). The comparison streams, so the
# memory does not grow with the clocks: 4 MB resident at 10^6, 10^7, 5*10^7 and 10^9 clocks
# (before: 640 bytes a clock, 32 GB for the defaults). About 0.63 M clocks/s of one core: the
# defaults take about 5 min of CPU, 10^9 clocks 26 min (1 h 05 min at nice 10 on a busy
# machine). The first failure stops it with the harness's status (2: a bad SOAK_CYCLES).
SOAK_CYCLES ?= 5e7
SOAK_SEEDS ?= 4

soak: deps $(BUILD)/bench/evcap/test_evcap
	@for i in $$(seq 1 $(SOAK_SEEDS)); do \
		seed=$$(od -An -N8 -tu8 /dev/urandom | tr -d ' '); \
		echo "soak: seed $$seed, $(SOAK_CYCLES) cycles"; \
		$(BUILD)/bench/evcap/test_evcap --seed $$seed --only random --cycles $(SOAK_CYCLES) || exit $$?; \
	done

# The decode bench (bench/bench_decode.py): a generator of large valid captures and the
# library's decoder alone in summary mode, both optimised like the CLI.
$(BUILD)/bench/decode/gen_stat_pcap: bench/gen_stat_pcap.c | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $< -o $@

# The exporter's ingest of stat packets in memory (bench/bench_ingest.c), optimised like it
$(BUILD)/bench/exporter/bench_ingest: bench/bench_ingest.c sw/tools/exporter/stat_ingest.c \
		$(EXPORTER_HEADERS) $(LIB) $(LIB_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(INCLUDES) -Isw/tools/exporter $< \
		sw/tools/exporter/stat_ingest.c $(LIB) -lpcap -o $@

$(BUILD)/bench/decode/bench_decode_lib: bench/bench_decode_lib.c $(LIB) $(LIB_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_WARN) $(CFLAGS_OPT) $(INCLUDES) $< $(LIB) -lpcap -o $@

bench: deps $(BUILD)/bench/evcap/test_evcap $(BUILD)/bin/pktstats-sim \
		$(BUILD)/bench/sim-stubbed/pktstats-sim \
		$(BUILD)/bench/core/pktstats_core_icarus_tb.vvp $(BUILD)/bin/pktstats \
		$(BUILD)/bench/decode/gen_stat_pcap $(BUILD)/bench/decode/bench_decode_lib \
		$(BUILD)/tb/flowlat/test_flowlat_core $(BUILD)/tb/flowlat_ipfix/test_flowlat_ipfix \
		$(BUILD)/bin/pktstats-exporter $(BUILD)/bench/exporter/bench_ingest
	@echo "== evcap (build/bench/evcap/test_evcap --bench)"
	@$(BUILD)/bench/evcap/test_evcap --bench
	@$(PYTHON) bench/bench_sim.py --sim $(BUILD)/bin/pktstats-sim \
		--sim-stubbed $(BUILD)/bench/sim-stubbed/pktstats-sim \
		--icarus-vvp $(BUILD)/bench/core/pktstats_core_icarus_tb.vvp
	@$(PYTHON) bench/bench_oam.py --sim $(BUILD)/bin/pktstats-sim
	@$(PYTHON) bench/bench_isl.py --cli $(BUILD)/bin/pktstats
	@$(PYTHON) bench/bench_flowlat.py --core $(BUILD)/tb/flowlat/test_flowlat_core \
		--ipfix $(BUILD)/tb/flowlat_ipfix/test_flowlat_ipfix
	@$(PYTHON) bench/bench_decode.py --gen $(BUILD)/bench/decode/gen_stat_pcap \
		--lib $(BUILD)/bench/decode/bench_decode_lib --cli $(BUILD)/bin/pktstats
	@$(PYTHON) bench/bench_exporter.py --exporter $(BUILD)/bin/pktstats-exporter \
		--gen $(BUILD)/bench/decode/gen_stat_pcap --ingest $(BUILD)/bench/exporter/bench_ingest

# The main job, end to end on the simulated switch (scripts/demo.sh says what it does):
# build/demo/stats.pcap, build/demo/queues.png and a short report.
demo: deps $(BUILD)/bin/pktstats-sim $(BUILD)/bin/pktstats
	@scripts/demo.sh $(BUILD)

# The link-delay measurements (docs/oam.md) on the simulated two-switch network, with the host
# tools on TAP interfaces in a network namespace of the demo's own (scripts/demo_latency.sh).
demo-latency: deps $(BUILD)/bin/pktstats-sim $(BUILD)/bin/pktstats
	@scripts/demo_latency.sh $(BUILD)

# OpenKilda's ISL latency measurement (docs/isl.md): `pktstats isl run` on a simulated triangle
# of three switches, the round trips into a VictoriaMetrics on the loopback, in a network
# namespace of the demo's own (scripts/demo_isl.sh): build/demo-isl/tsdb and the captures.
demo-isl: deps $(BUILD)/bin/pktstats-sim $(BUILD)/bin/pktstats
	@scripts/demo_isl.sh $(BUILD)

# Per-flow latency events (docs/flowlat.md): congestion on the simulated switch pushes a flow
# through its watermarks; the switch's IPFIX reaches a real collector (nfacctd),
# `pktstats flowlat watch` and a capture for tshark, in a network namespace of the demo's own
# (scripts/demo_flowlat.sh): build/demo-flowlat.
demo-flowlat: deps $(BUILD)/bin/pktstats-sim $(BUILD)/bin/pktstats
	@scripts/demo_flowlat.sh $(BUILD)

# A fleet monitored as a site would be (docs/monitoring.md, "A fleet"): eight simulated switches
# with incasts, one pktstats-exporter, a real Prometheus scraping it and remote-writing to a real
# VictoriaMetrics, in a network namespace of the demo's own (scripts/demo_monitor.sh): the
# queries an operator types with both engines' answers, build/demo-monitor/s0.png .. s7.png
# (each switch's p99 queueing delay over time) and a report.
demo-monitor: deps $(BUILD)/bin/pktstats-sim $(BUILD)/bin/pktstats $(BUILD)/bin/pktstats-exporter
	@scripts/demo_monitor.sh $(BUILD)

# The NetFPGA-1G-CML bitstream (fpga/netfpga-1g-cml/, docs/board.md): Vivado in batch mode.
bitstream:
	@$(MAKE) --no-print-directory -C fpga/netfpga-1g-cml bitstream BUILD=$(abspath $(BUILD))/fpga/netfpga-1g-cml

# make install PREFIX=/usr/local [SYSCONFDIR=PREFIX/etc] [DESTDIR=...]: the CLI, the library,
# its public headers, a pkg-config file and the manual pages; the exporter with its systemd
# unit, its alerting rules for Prometheus, and its configuration from the example when there
# is none yet (docs/monitoring.md).
PREFIX ?= /usr/local
SYSCONFDIR ?= $(PREFIX)/etc
PKTSTATS_VERSION := 1.0
# every public header: the documented programs include sojourn.h, flowlat.h, mac.h too
INSTALL_HEADERS := $(notdir $(wildcard sw/driver/include/pktstats/*.h))

install: deps $(BUILD)/bin/pktstats $(BUILD)/bin/pktstats-exporter $(LIB)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/include/pktstats $(DESTDIR)$(PREFIX)/share/man/man8 \
		$(DESTDIR)$(PREFIX)/lib/systemd/system $(DESTDIR)$(PREFIX)/share/pktstats/prometheus \
		$(DESTDIR)$(SYSCONFDIR)/pktstats
	install -m 755 $(BUILD)/bin/pktstats $(DESTDIR)$(PREFIX)/bin/pktstats
	install -m 755 $(BUILD)/bin/pktstats-exporter $(DESTDIR)$(PREFIX)/bin/pktstats-exporter
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libpktstats.a
	install -m 644 $(addprefix sw/driver/include/pktstats/,$(INSTALL_HEADERS)) \
		$(DESTDIR)$(PREFIX)/include/pktstats/
	install -m 644 docs/pktstats.8 docs/pktstats-exporter.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(PKTSTATS_VERSION)|g' \
		sw/driver/libpktstats.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/libpktstats.pc
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		sw/tools/exporter/pktstats-exporter.service.in \
		>$(DESTDIR)$(PREFIX)/lib/systemd/system/pktstats-exporter.service
	install -m 644 sw/tools/exporter/pktstats-alerts.yml $(DESTDIR)$(PREFIX)/share/pktstats/prometheus/
	@# a configuration already there is the site's: never overwritten
	[ -e $(DESTDIR)$(SYSCONFDIR)/pktstats/exporter.conf ] || install -m 644 \
		sw/tools/exporter/exporter.conf.example $(DESTDIR)$(SYSCONFDIR)/pktstats/exporter.conf
	@echo "installed pktstats $(PKTSTATS_VERSION) under $(DESTDIR)$(PREFIX)"

clean:
	rm -rf $(BUILD)
