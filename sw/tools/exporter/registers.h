/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: the registers a scrape reads from each switch and the metrics they
 * become. One table (registers.c) names each register set (a block's register, for every
 * queue or port it has), its metric family and labels; the device poller reads the sets of the
 * blocks the device has in one pktstats_read_many() (a few hundred reads, one simulator poll),
 * and the renderer turns the values into samples in the table's order, so that every family's
 * samples come together.
 */
#ifndef PKTSTATS_EXPORTER_REGISTERS_H
#define PKTSTATS_EXPORTER_REGISTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exposition.h"
#include "pktstats/pktstats.h"

/* The blocks a device may have (each checked by its type register at connect) */
enum register_block {
	BLOCK_EVCAP,
	BLOCK_SWITCH,
	BLOCK_TIME,
	BLOCK_OAM,
	BLOCK_FLOWLAT,
	BLOCK_MAC, /* the board's MACs only */
	BLOCK_COUNT
};

/* Most 32-bit reads one scrape of one switch makes */
#define REGISTERS_READS_MAX 1024

/* What one scrape read of one switch */
struct register_snapshot {
	bool blocks[BLOCK_COUNT];
	uint32_t values[REGISTERS_READS_MAX]; /* in the plan's order */
	int position[128];   /* per table entry: its first value in values[], -1 absent */
	bool have_time;
	int64_t time_offset_ns; /* switch time of day - host CLOCK_REALTIME */
	int64_t read_ns;        /* how long the reads took */
};

/* Which blocks dev has: reads each block's type register. 0, or -errno when the device
 * failed (a block that is not there is no failure). */
int registers_probe(struct pktstats_dev *dev, bool blocks[BLOCK_COUNT]);

/* The offsets to read for the blocks present, in order; fills snapshot->position. Returns
 * how many (at most REGISTERS_READS_MAX). */
size_t registers_plan(const bool blocks[BLOCK_COUNT], uint32_t *offsets,
		      struct register_snapshot *snapshot);

/* One switch's name and its snapshot, for the renderer; snapshot NULL: nothing read. */
struct register_view {
	const char *switch_name;
	const struct register_snapshot *snapshot;
};

/* Every register family, each switch's samples of it together. */
void registers_render(struct exposition *e, const struct register_view *views, size_t n);

#endif
