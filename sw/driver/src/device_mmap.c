/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mmap backend: a PCIe BAR through its sysfs file /sys/bus/pci/devices/ADDR/resourceN (or any
 * file standing in for one, as the tests do). The register space is mapped shared and accessed
 * with volatile aligned 32-bit loads and stores, one bus transaction each. PCIe BARs are
 * little-endian, so values are converted on big-endian hosts.
 */
#define _DEFAULT_SOURCE

#include "device_internal.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int mmap_read32(struct pktstats_dev *dev, uint32_t offset, uint32_t *value)
{
	*value = le32toh(dev->map[offset / 4]);
	return 0;
}

static int mmap_write32(struct pktstats_dev *dev, uint32_t offset, uint32_t value)
{
	dev->map[offset / 4] = htole32(value);
	return 0;
}

static void mmap_close(struct pktstats_dev *dev)
{
	if (dev->map)
		munmap((void *)dev->map, dev->map_size);
	dev->map = NULL;
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

static const struct pktstats_backend_ops mmap_ops = {
	.kind = PKTSTATS_BACKEND_MMAP,
	.read32 = mmap_read32,
	.write32 = mmap_write32,
	.close = mmap_close,
};

int pktstats_mmap_open(struct pktstats_dev *dev, const char *path)
{
	struct stat st;
	char text[128];
	void *map;
	int err;

	/* O_SYNC: registers must never be cached. sysfs maps resourceN uncached anyway; O_SYNC
	 * is what /dev/mem-like files need for the same, and harmless on a plain file. */
	dev->fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (dev->fd < 0) {
		err = errno;
		return pktstats_fail(
			dev, -err, "open: %s%s", pktstats_errno_text(err, text, sizeof text),
			err == EACCES ? " (a BAR needs root or write access to its resource file)"
			: err == ENOENT && strncmp(path, "/sys/bus/pci/devices/", 21) == 0
				? " (no such PCI device or BAR)"
				: "");
	}
	dev->ops = &mmap_ops;
	if (fstat(dev->fd, &st) != 0) {
		err = errno;
		return pktstats_fail(dev, -err, "fstat: %s",
				     pktstats_errno_text(err, text, sizeof text));
	}
	if (!S_ISREG(st.st_mode))
		return pktstats_fail(dev, -ENODEV, "not a regular file, cannot map it");
	/* Only the register space is mapped: the library never goes beyond it, and a BAR may be
	 * much larger. A smaller file cannot be this design's BAR (and touching a mapped page
	 * past the end of a file raises SIGBUS). */
	if ((uintmax_t)st.st_size < PKTSTATS_REGISTER_SPACE)
		return pktstats_fail(dev, -ENXIO,
				     "%jd bytes, smaller than the register space (0x%x bytes)",
				     (intmax_t)st.st_size, (unsigned)PKTSTATS_REGISTER_SPACE);
	map = mmap(NULL, PKTSTATS_REGISTER_SPACE, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd, 0);
	if (map == MAP_FAILED) {
		err = errno;
		return pktstats_fail(dev, -err, "mmap: %s",
				     pktstats_errno_text(err, text, sizeof text));
	}
	dev->map = map;
	dev->map_size = PKTSTATS_REGISTER_SPACE;
	snprintf(dev->description, sizeof dev->description, "BAR %s (mmap, %u of %jd bytes)", path,
		 (unsigned)PKTSTATS_REGISTER_SPACE, (intmax_t)st.st_size);
	return 0;
}
