/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats reference switch: output queue limits and counters, the learning table
 * (forwarding database) and the switch's counters, over the switch block's registers
 * (docs/regmap.md, "switch"; docs/switch-architecture.md).
 *
 * Conventions as in pktstats/pktstats.h: 0 or a negative errno, nothing printed.
 */
#ifndef PKTSTATS_SWITCH_H
#define PKTSTATS_SWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "pktstats/format.h"
#include "pktstats/pktstats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PKTSTATS_QUEUES (pktstats/format.h) output queues: 0..3 MAC ports, 4..7 CPU ports.
 * Occupancy and limits count 64-bit words. */

struct pktstats_queue_status {
	uint32_t limit;          /* words; frames that would take the queue past it are dropped */
	uint32_t occupancy;      /* words now */
	uint64_t peak_occupancy; /* words, since the last clear */
	uint64_t frames_stored, bytes_stored;
	uint64_t frames_removed, bytes_removed;
	uint64_t frames_dropped, bytes_dropped;
};

/* Queue 0..PKTSTATS_QUEUES-1 (-EINVAL otherwise). Each counter is coherent on its own. */
int pktstats_queue_get(struct pktstats_dev *dev, unsigned queue,
		       struct pktstats_queue_status *status);
/* Sets the limit, in words; -ERANGE beyond the register's 20 bits. The hardware treats a limit
 * above its RAM less one largest frame as that (docs/regmap.md). */
int pktstats_queue_set_limit(struct pktstats_dev *dev, unsigned queue, uint32_t words);
/* Clears the queue's counters and peak occupancy. */
int pktstats_queue_clear(struct pktstats_dev *dev, unsigned queue);

/* One entry of the learning table. MAC in wire order. */
struct pktstats_fdb_entry {
	unsigned index;  /* 0 .. pktstats_fdb_size() - 1 */
	uint8_t mac[6];
	unsigned port;   /* 0..7 */
	bool valid;
	bool is_static;  /* never aged out nor changed by learning */
	uint16_t age;    /* ageing ticks (seconds) since last seen; 0 for static entries */
};

/* Entries in the table (switch.table_size). */
int pktstats_fdb_size(struct pktstats_dev *dev, unsigned *entries);
/* Reads entry `index` (-EINVAL beyond the table). */
int pktstats_fdb_read(struct pktstats_dev *dev, unsigned index, struct pktstats_fdb_entry *entry);
/* Writes entry->index with entry's MAC, port, valid and static flags (age becomes 0). */
int pktstats_fdb_write(struct pktstats_dev *dev, const struct pktstats_fdb_entry *entry);
/*
 * Adds or replaces the entry for a unicast MAC: the entry that holds it, else the first free
 * one. -EINVAL for a group (multicast or broadcast) MAC or a port beyond 7; -ENOSPC when every
 * entry is used. *index, if not NULL, gets the entry written. Learning runs meanwhile, so the
 * table can change between the search and the write; a static entry wins over learning.
 */
int pktstats_fdb_add(struct pktstats_dev *dev, const uint8_t mac[6], unsigned port,
		     bool is_static, unsigned *index);
/* Removes every valid entry holding MAC; -ENOENT when there is none. */
int pktstats_fdb_delete(struct pktstats_dev *dev, const uint8_t mac[6]);

struct pktstats_switch_counters {
	uint64_t frames_looked_up, frames_flooded, frames_filtered, frames_too_short;
	uint64_t entries_learned, entries_aged_out;
};

int pktstats_switch_counters_get(struct pktstats_dev *dev,
				 struct pktstats_switch_counters *counters);
int pktstats_switch_counters_clear(struct pktstats_dev *dev);

/* Ageing time in ticks (seconds); 0 = never. */
int pktstats_ageing_time_get(struct pktstats_dev *dev, unsigned *ticks);
int pktstats_ageing_time_set(struct pktstats_dev *dev, unsigned ticks);

#ifdef __cplusplus
}
#endif

#endif
