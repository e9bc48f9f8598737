/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: the command table. Each object lives in its own file with its verb table;
 * adding an object is one line here. The order is the order of `pktstats --help`.
 */
#include <stddef.h>

#include "cli.h"

const struct cli_object *const cli_objects[] = {
	&cli_object_capture, &cli_object_timer,  &cli_object_time, &cli_object_counters,
	&cli_object_queue,   &cli_object_fdb,    &cli_object_dev,  &cli_object_reg,
	&cli_object_decode,  &cli_object_record, &cli_object_plot, &cli_object_oam,
	&cli_object_dm,      &cli_object_headroom, &cli_object_isl,
	&cli_object_flowlat, &cli_object_mac, &cli_object_flash, &cli_object_cpu_bridge, NULL,
};
