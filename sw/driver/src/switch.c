/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats reference switch (pktstats/switch.h): queues, learning table, counters.
 *
 * The table is reached through one window (switch.table_index selects the entry that
 * table_read_* show and table_command writes), so two programs using the table at once can
 * see each other's entries; the CLI uses it one command at a time.
 */
#define _DEFAULT_SOURCE /* device_internal.h: IFNAMSIZ, PATH_MAX */

#include <errno.h>
#include <string.h>

#include "device_internal.h"
#include "named_access.h"
#include "pktstats/regs.h"
#include "pktstats/switch.h"

static int check_queue(struct pktstats_dev *dev, unsigned queue)
{
	if (!dev)
		return -EINVAL;
	if (queue >= PKTSTATS_QUEUES)
		return pktstats_fail(dev, -EINVAL, "queue %u is not 0..%u", queue,
				     PKTSTATS_QUEUES - 1);
	return 0;
}

int pktstats_queue_get(struct pktstats_dev *dev, unsigned queue,
		       struct pktstats_queue_status *status)
{
	int err = check_queue(dev, queue);
	if (err < 0 || !status)
		return err < 0 ? err : -EINVAL;
	memset(status, 0, sizeof *status);
	uint32_t value;
	if ((err = named_read32(dev, PKTSTATS_SWITCH_QUEUE_LIMIT(queue), &value)) < 0)
		return err;
	status->limit = value & PKTSTATS_SWITCH_QUEUE_LIMIT_0_MASK;
	if ((err = named_read32(dev, PKTSTATS_SWITCH_QUEUE_OCCUPANCY(queue), &value)) < 0)
		return err;
	status->occupancy = value & PKTSTATS_SWITCH_QUEUE_OCCUPANCY_0_MASK;
	const struct {
		uint32_t address;
		uint64_t *value;
	} counters[] = {
		{PKTSTATS_SWITCH_PEAK_OCCUPANCY(queue), &status->peak_occupancy},
		{PKTSTATS_SWITCH_FRAMES_STORED(queue), &status->frames_stored},
		{PKTSTATS_SWITCH_BYTES_STORED(queue), &status->bytes_stored},
		{PKTSTATS_SWITCH_FRAMES_REMOVED(queue), &status->frames_removed},
		{PKTSTATS_SWITCH_BYTES_REMOVED(queue), &status->bytes_removed},
		{PKTSTATS_SWITCH_FRAMES_DROPPED(queue), &status->frames_dropped},
		{PKTSTATS_SWITCH_BYTES_DROPPED(queue), &status->bytes_dropped},
	};
	for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
		if ((err = named_read64(dev, counters[i].address, counters[i].value)) < 0)
			return err;
	return 0;
}

int pktstats_queue_set_limit(struct pktstats_dev *dev, unsigned queue, uint32_t words)
{
	int err = check_queue(dev, queue);
	if (err < 0)
		return err;
	if (words > PKTSTATS_SWITCH_QUEUE_LIMIT_0_MASK)
		return pktstats_fail(dev, -ERANGE, "queue limit %u words is above %u", words,
				     PKTSTATS_SWITCH_QUEUE_LIMIT_0_MASK);
	return named_write32(dev, PKTSTATS_SWITCH_QUEUE_LIMIT(queue), words);
}

int pktstats_queue_clear(struct pktstats_dev *dev, unsigned queue)
{
	int err = check_queue(dev, queue);
	if (err < 0)
		return err;
	const uint32_t counters[] = {
		PKTSTATS_SWITCH_PEAK_OCCUPANCY(queue),  PKTSTATS_SWITCH_FRAMES_STORED(queue),
		PKTSTATS_SWITCH_BYTES_STORED(queue),    PKTSTATS_SWITCH_FRAMES_REMOVED(queue),
		PKTSTATS_SWITCH_BYTES_REMOVED(queue),   PKTSTATS_SWITCH_FRAMES_DROPPED(queue),
		PKTSTATS_SWITCH_BYTES_DROPPED(queue),
	};
	for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
		if ((err = named_write32(dev, counters[i], 0)) < 0)
			return err;
	return 0;
}

int pktstats_fdb_size(struct pktstats_dev *dev, unsigned *entries)
{
	if (!entries)
		return -EINVAL;
	uint32_t value;
	int err = named_read32(dev, PKTSTATS_SWITCH_TABLE_SIZE, &value);
	if (err == 0)
		*entries = value & PKTSTATS_SWITCH_TABLE_SIZE_MASK;
	return err;
}

static int check_index(struct pktstats_dev *dev, unsigned index)
{
	unsigned size = 0; /* set by pktstats_fdb_size(); initialised for gcc -O2 -Wmaybe-uninitialized */
	int err = pktstats_fdb_size(dev, &size);
	if (err < 0)
		return err;
	if (index >= size)
		return pktstats_fail(dev, -EINVAL, "table entry %u is not 0..%u", index, size - 1);
	return 0;
}

int pktstats_fdb_read(struct pktstats_dev *dev, unsigned index, struct pktstats_fdb_entry *entry)
{
	if (!dev || !entry)
		return -EINVAL;
	int err = check_index(dev, index);
	uint64_t mac;
	uint32_t word;
	/* The read port follows table_index one clock later: long before the next bus access. */
	if (err < 0 || (err = named_write32(dev, PKTSTATS_SWITCH_TABLE_INDEX, index)) < 0 ||
	    (err = named_read64(dev, PKTSTATS_SWITCH_TABLE_READ_MAC, &mac)) < 0 ||
	    (err = named_read32(dev, PKTSTATS_SWITCH_TABLE_READ_ENTRY, &word)) < 0)
		return err;
	memset(entry, 0, sizeof *entry);
	entry->index = index;
	mac_from_register(mac, entry->mac);
	entry->port = word & PKTSTATS_SWITCH_TABLE_ENTRY_PORT_MASK;
	entry->valid = word & PKTSTATS_SWITCH_TABLE_ENTRY_VALID_MASK;
	entry->is_static = word & PKTSTATS_SWITCH_TABLE_ENTRY_STATIC_MASK;
	entry->age = (uint16_t)(word >> 16);
	return 0;
}

int pktstats_fdb_write(struct pktstats_dev *dev, const struct pktstats_fdb_entry *entry)
{
	if (!dev || !entry)
		return -EINVAL;
	if (entry->port > 7)
		return pktstats_fail(dev, -EINVAL, "port %u is not 0..7", entry->port);
	int err = check_index(dev, entry->index);
	uint32_t word = entry->port << PKTSTATS_SWITCH_TABLE_ENTRY_PORT_SHIFT |
			(entry->valid ? PKTSTATS_SWITCH_TABLE_ENTRY_VALID_MASK : 0) |
			(entry->is_static ? PKTSTATS_SWITCH_TABLE_ENTRY_STATIC_MASK : 0);
	if (err < 0 || (err = named_write32(dev, PKTSTATS_SWITCH_TABLE_INDEX, entry->index)) < 0 ||
	    (err = named_write64(dev, PKTSTATS_SWITCH_TABLE_MAC, mac_to_register(entry->mac))) < 0 ||
	    (err = named_write32(dev, PKTSTATS_SWITCH_TABLE_ENTRY, word)) < 0)
		return err;
	return named_write32(dev, PKTSTATS_SWITCH_TABLE_COMMAND,
			     PKTSTATS_SWITCH_TABLE_COMMAND_WRITE_MASK);
}

/* Calls visit(entry, context) for every entry until it returns non-zero, which is returned. */
static int fdb_each(struct pktstats_dev *dev,
		    int (*visit)(const struct pktstats_fdb_entry *, void *), void *context)
{
	unsigned size;
	int err = pktstats_fdb_size(dev, &size);
	for (unsigned i = 0; err == 0 && i < size; i++) {
		struct pktstats_fdb_entry entry;
		if ((err = pktstats_fdb_read(dev, i, &entry)) == 0)
			err = visit(&entry, context);
	}
	return err;
}

struct fdb_search {
	uint64_t mac;
	int holding;      /* first valid entry holding mac, or -1 */
	int free;         /* first entry not valid, or -1 */
	unsigned deleted; /* entries removed (delete) */
	struct pktstats_dev *dev;
};

static int find_slot(const struct pktstats_fdb_entry *entry, void *context)
{
	struct fdb_search *search = context;
	if (entry->valid && mac_to_register(entry->mac) == search->mac && search->holding < 0)
		search->holding = (int)entry->index;
	if (!entry->valid && search->free < 0)
		search->free = (int)entry->index;
	return 0;
}

int pktstats_fdb_add(struct pktstats_dev *dev, const uint8_t mac[6], unsigned port,
		     bool is_static, unsigned *index)
{
	if (!dev || !mac)
		return -EINVAL;
	if (mac[0] & 1)
		return pktstats_fail(dev, -EINVAL, "%02x:%02x:%02x:%02x:%02x:%02x is a group "
				     "address; the table holds unicast addresses",
				     mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	if (port > 7)
		return pktstats_fail(dev, -EINVAL, "port %u is not 0..7", port);
	struct fdb_search search = {.mac = mac_to_register(mac), .holding = -1, .free = -1};
	int err = fdb_each(dev, find_slot, &search);
	if (err < 0)
		return err;
	int slot = search.holding >= 0 ? search.holding : search.free;
	if (slot < 0)
		return pktstats_fail(dev, -ENOSPC, "the table is full (every entry is valid)");
	struct pktstats_fdb_entry entry = {.index = (unsigned)slot, .port = port, .valid = true,
					   .is_static = is_static};
	memcpy(entry.mac, mac, 6);
	if ((err = pktstats_fdb_write(dev, &entry)) == 0 && index)
		*index = (unsigned)slot;
	return err;
}

static int delete_matching(const struct pktstats_fdb_entry *entry, void *context)
{
	struct fdb_search *search = context;
	if (!entry->valid || mac_to_register(entry->mac) != search->mac)
		return 0;
	struct pktstats_fdb_entry removed = *entry;
	removed.valid = false;
	removed.is_static = false;
	int err = pktstats_fdb_write(search->dev, &removed);
	if (err == 0)
		search->deleted++;
	return err;
}

int pktstats_fdb_delete(struct pktstats_dev *dev, const uint8_t mac[6])
{
	if (!dev || !mac)
		return -EINVAL;
	struct fdb_search search = {.mac = mac_to_register(mac), .dev = dev};
	int err = fdb_each(dev, delete_matching, &search);
	if (err < 0)
		return err;
	if (search.deleted == 0)
		return pktstats_fail(dev, -ENOENT, "%02x:%02x:%02x:%02x:%02x:%02x is not in the "
				     "table", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	return 0;
}

static const uint32_t switch_counter_registers[] = {
	PKTSTATS_SWITCH_FRAMES_LOOKED_UP, PKTSTATS_SWITCH_FRAMES_FLOODED,
	PKTSTATS_SWITCH_FRAMES_FILTERED,  PKTSTATS_SWITCH_FRAMES_TOO_SHORT,
	PKTSTATS_SWITCH_ENTRIES_LEARNED,  PKTSTATS_SWITCH_ENTRIES_AGED_OUT,
};

int pktstats_switch_counters_get(struct pktstats_dev *dev,
				 struct pktstats_switch_counters *counters)
{
	if (!counters)
		return -EINVAL;
	uint64_t *values[] = {&counters->frames_looked_up, &counters->frames_flooded,
			      &counters->frames_filtered,  &counters->frames_too_short,
			      &counters->entries_learned,  &counters->entries_aged_out};
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		int err = named_read64(dev, switch_counter_registers[i], values[i]);
		if (err < 0)
			return err;
	}
	return 0;
}

int pktstats_switch_counters_clear(struct pktstats_dev *dev)
{
	for (size_t i = 0; i < sizeof switch_counter_registers / sizeof switch_counter_registers[0];
	     i++) {
		int err = named_write32(dev, switch_counter_registers[i], 0);
		if (err < 0)
			return err;
	}
	return 0;
}

int pktstats_ageing_time_get(struct pktstats_dev *dev, unsigned *ticks)
{
	if (!ticks)
		return -EINVAL;
	uint32_t value;
	int err = named_read32(dev, PKTSTATS_SWITCH_AGEING_TIME, &value);
	if (err == 0)
		*ticks = value & PKTSTATS_SWITCH_AGEING_TIME_MASK;
	return err;
}

int pktstats_ageing_time_set(struct pktstats_dev *dev, unsigned ticks)
{
	if (!dev)
		return -EINVAL;
	if (ticks > PKTSTATS_SWITCH_AGEING_TIME_MASK)
		return pktstats_fail(dev, -ERANGE, "ageing time %u is above %u", ticks,
				     PKTSTATS_SWITCH_AGEING_TIME_MASK);
	return named_write32(dev, PKTSTATS_SWITCH_AGEING_TIME, ticks);
}
