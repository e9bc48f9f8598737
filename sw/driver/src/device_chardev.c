/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Character-device backend: an XDMA-style register file (/dev/xdma0_user) where the file
 * offset is the register's byte address; each access is one pread or pwrite of 4 bytes, which
 * the kernel driver turns into one bus transaction. Values are little-endian, as on PCIe.
 * Forced with chardev:PATH, it also works on a regular file (the tests use one).
 */
#define _DEFAULT_SOURCE

#include "device_internal.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/* One 4-byte transfer; a short one is -EIO (a register is never half there). */
static int transfer_failed(struct pktstats_dev *dev, const char *op, ssize_t n)
{
	char text[128];
	int err = errno;

	if (n >= 0)
		return pktstats_fail(dev, -EIO, "%s: %zd of 4 bytes", op, n);
	return pktstats_fail(dev, -err, "%s: %s", op, pktstats_errno_text(err, text, sizeof text));
}

static int chardev_read32(struct pktstats_dev *dev, uint32_t offset, uint32_t *value)
{
	uint32_t le;
	ssize_t n;

	do
		n = pread(dev->fd, &le, sizeof le, (off_t)offset);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof le)
		return transfer_failed(dev, "pread", n);
	*value = le32toh(le);
	return 0;
}

static int chardev_write32(struct pktstats_dev *dev, uint32_t offset, uint32_t value)
{
	uint32_t le = htole32(value);
	ssize_t n;

	do
		n = pwrite(dev->fd, &le, sizeof le, (off_t)offset);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof le)
		return transfer_failed(dev, "pwrite", n);
	return 0;
}

static void chardev_close(struct pktstats_dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

static const struct pktstats_backend_ops chardev_ops = {
	.kind = PKTSTATS_BACKEND_CHARDEV,
	.read32 = chardev_read32,
	.write32 = chardev_write32,
	.close = chardev_close,
};

int pktstats_chardev_open(struct pktstats_dev *dev, const char *path)
{
	char text[128];
	int err;

	dev->fd = open(path, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		err = errno;
		return pktstats_fail(dev, -err, "open: %s",
				     pktstats_errno_text(err, text, sizeof text));
	}
	dev->ops = &chardev_ops;
	snprintf(dev->description, sizeof dev->description,
		 "character device %s (chardev, pread/pwrite)", path);
	return 0;
}
