# vivado.mk: finds Vivado for `make bitstream`, or stops with one line saying what is missing.
# Included by fpga/netfpga-1g-cml/Makefile, and meant to be included by the top-level Makefile
# too, so that `make bitstream` there also stops at parse time with that one line (exit 2)
# instead of a recipe failing inside a sub-make. Only acts when `bitstream` is a goal.
#
# VIVADO: a command name looked up on PATH (default vivado), or a path to an executable file.

VIVADO ?= vivado

ifneq ($(filter bitstream,$(MAKECMDGOALS)),)
VIVADO_BIN := $(shell case '$(VIVADO)' in (*/*) [ -f '$(VIVADO)' ] && [ -x '$(VIVADO)' ] && echo '$(VIVADO)';; (*) command -v '$(VIVADO)';; esac 2>/dev/null)
ifeq ($(VIVADO_BIN),)
ifeq ($(findstring /,$(VIVADO)),)
$(error make bitstream: $(VIVADO) not found on PATH; source Vivado's settings64.sh or set VIVADO=/path/to/vivado)
else
$(error make bitstream: VIVADO=$(VIVADO) is not an executable file; set VIVADO=/path/to/vivado or source Vivado's settings64.sh)
endif
endif
endif
