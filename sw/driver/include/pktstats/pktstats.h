/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats device access: open a pktstats device (the simulator, a PCIe BAR, an XDMA-style
 * character device or a NetFPGA-style network interface), check its identity, and read and
 * write its registers. Register addresses and fields are in pktstats/regs.h; the user's guide
 * is docs/driver.md.
 *
 * Conventions: every function that can fail returns 0 or a negative errno. Nothing here prints,
 * exits or raises a signal (a simulator that died gives an error, never SIGPIPE). After a
 * failure, pktstats_error() has a one-line detail for people (pktstats_open() writes it into
 * the caller's buffer, as there is no handle yet). The detail does not repeat the device
 * string (only the sysfs file a PCI address led to), so that a tool prints
 * "pktstats: DEVICE: DETAIL".
 *
 * Device strings (pktstats_open), decided from the string alone, never from the current
 * directory's contents:
 *
 *   sim:PATH                  the simulator's Unix socket (pktstats-sim --socket PATH)
 *   pci:ADDR[,barN]           /sys/bus/pci/devices/ADDR/resourceN mapped with mmap (N = 0..5,
 *   ADDR[,barN]               default 0); ADDR is DDDD:BB:DD.F or BB:DD.F (domain 0000), hex
 *   mmap:PATH                 PATH mapped with mmap (a sysfs resourceN file, or any file)
 *   chardev:PATH              pread/pwrite of 4 bytes at the register's offset in PATH
 *   netdev:NAME               NetFPGA register ioctls on network interface NAME
 *   anything with a '/'       a path, by its file type: a Unix socket as sim:, a regular file
 *                             (e.g. .../resource0) as mmap:, a character device (e.g.
 *                             /dev/xdma0_user) as chardev:; anything else is -ENODEV
 *   anything else             a network interface name, as netdev:
 *
 * Thread safety: a handle has no lock. Use one handle from one thread at a time; different
 * handles are independent. Because a 64-bit read or write is two bus transactions and the
 * hardware latches the high word per register, callers that share one device (threads with
 * their own handles, or processes) must serialize 64-bit accesses to the same register.
 */
#ifndef PKTSTATS_PKTSTATS_H
#define PKTSTATS_PKTSTATS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pktstats_dev;

/* Bytes of register space: valid offsets are multiples of 4 below this (the core's 16-bit
 * AXI4-Lite address). Offsets beyond it give -EFAULT, unaligned offsets -EINVAL, before any
 * bus access. */
#define PKTSTATS_REGISTER_SPACE 0x10000u

/* Size of a buffer that holds any error detail or description, with its NUL. */
#define PKTSTATS_ERROR_MAX 512

/*
 * pktstats_open() flags.
 *
 * PKTSTATS_OPEN_NO_IDENTITY: do not read or check the identity block, for register debugging
 * of a device that does not (yet) answer as pktstats. pktstats_identity() then returns
 * -ENODATA, and reads of 0xffffffff are returned as they are (see pktstats_read32()).
 */
#define PKTSTATS_OPEN_NO_IDENTITY 0x1u
/*
 * PKTSTATS_OPEN_NO_WAIT: a simulator socket that is not there yet, or that nobody listens on,
 * fails at once (-ENOENT, -ECONNREFUSED) instead of being waited for up to 3 s; for a daemon
 * that retries on its own schedule and must stop promptly.
 */
#define PKTSTATS_OPEN_NO_WAIT 0x2u

enum pktstats_backend {
	PKTSTATS_BACKEND_SIM = 1, /* simulator socket */
	PKTSTATS_BACKEND_MMAP,    /* mmap of a BAR (sysfs resourceN) or a file */
	PKTSTATS_BACKEND_CHARDEV, /* pread/pwrite on a character device */
	PKTSTATS_BACKEND_NETDEV,  /* NetFPGA register ioctls on a network interface */
};

/* What the identity block said when the device was opened. */
struct pktstats_identity {
	uint32_t magic;          /* id.magic, PKTSTATS_MAGIC */
	uint32_t design_version; /* id.design_version, major in 31:16, minor in 15:0 */
	uint16_t major, minor;   /* its halves */
	uint32_t git_hash;       /* id.git_hash: first 32 bits of the design's git commit */
};

/*
 * Open DEVICE (the forms above), then check the identity block before anything else:
 *   - id.magic must read PKTSTATS_MAGIC ("PKTS"); 0xffffffff means no device answers: -ENODEV;
 *     any other value: -EPROTO (another device);
 *   - id.design_version's major must equal the one this library was built for
 *     (PKTSTATS_ID_DESIGN_VERSION_VALUE >> 16); otherwise -EPROTO. A newer minor is accepted.
 *   - id.git_hash is read and kept.
 * flags: 0, PKTSTATS_OPEN_NO_IDENTITY, PKTSTATS_OPEN_NO_WAIT. On success *dev is a new handle; on failure *dev is
 * NULL and, if error is not NULL, error (error_size bytes, PKTSTATS_ERROR_MAX is enough) holds
 * the detail, e.g. "id.magic reads 0x12345678, not 0x504b5453 (\"PKTS\"): not a pktstats
 * device".
 *
 * Errors: -EINVAL (NULL arguments, an empty or malformed device string, unknown flags),
 * -ENAMETOOLONG, -ENOENT (no such file, socket or PCI device), -ENODEV (no such interface, a
 * file of the wrong type, or id.magic reads 0xffffffff), -ENXIO (a file or BAR smaller than
 * the register space), -EPROTO (another device, another design version, not a pktstats
 * simulator), -EBUSY (the simulator has too many clients), -ECONNREFUSED, -EACCES, -ENOMEM,
 * -EOPNOTSUPP (an interface without register ioctls), -ETIMEDOUT, and any errno of the
 * system calls involved or of the first register reads (see pktstats_read32()).
 */
int pktstats_open(const char *device, unsigned flags, struct pktstats_dev **dev, char *error,
		  size_t error_size);

/* Close the handle and free it. NULL is ignored. */
void pktstats_close(struct pktstats_dev *dev);

/*
 * One 32-bit register access: offset is a byte address, a multiple of 4, below
 * PKTSTATS_REGISTER_SPACE.
 *
 * Errors: -EINVAL (NULL pointer, offset not a multiple of 4), -EFAULT (offset beyond the
 * register space), -ENODEV (the device is gone: the simulator closed the connection or died,
 * or, after an identity check, a read of 0xffffffff confirmed by id.magic also reading
 * 0xffffffff; the value is then not stored), -ENOTCONN (a simulator connection given up after
 * an earlier -ETIMEDOUT or protocol error), -ETIMEDOUT (no answer from the simulator within 10
 * s), -EPROTO (a reply the library does not understand), the simulator's errors mapped as in
 * docs/simulator-protocol.md (-EIO slave error, -ENXIO decode error, ...), -EOPNOTSUPP (netdev
 * without register ioctls), -EIO (a short pread/pwrite), and errno of the failing system call.
 *
 * 0xffffffff: some registers legitimately read all ones (evcap.destination_ip after reset),
 * so a read of 0xffffffff is only reported as -ENODEV when id.magic, read right after, also
 * reads 0xffffffff; otherwise the value is returned. With PKTSTATS_OPEN_NO_IDENTITY the value
 * is always returned.
 */
int pktstats_read32(struct pktstats_dev *dev, uint32_t offset, uint32_t *value);
int pktstats_write32(struct pktstats_dev *dev, uint32_t offset, uint32_t value);

/*
 * n 32-bit reads, offsets[0..n) in that order, into values[0..n): what n calls of
 * pktstats_read32() would give (the all-ones rule included; a 64-bit register's low word
 * before its high word reads a coherent value, as pktstats_read64() does), but a backend may
 * overlap them. The simulator's sends its requests together (pipelining,
 * docs/simulator-protocol.md), so a few hundred reads cost about one of its socket polls
 * rather than one each: what a monitoring scrape of every counter needs. Every offset is
 * checked before any read. Returns 0, or the first failure's -errno (as pktstats_read32()'s,
 * with its detail in pktstats_error()); values before the failing read are filled, the rest
 * are not. n = 0 reads nothing and returns 0.
 */
int pktstats_read_many(struct pktstats_dev *dev, const uint32_t *offsets, size_t n,
		       uint32_t *values);

/*
 * A 48- or 64-bit register at offset (its low word; the high word is at offset + 4), as the
 * register map prescribes (docs/regmap.md, "Access rules"): the read reads the low word, which
 * latches the high word, then the high word, so the value is coherent; the write writes the
 * low word (into a shadow register), then the high word, which commits the whole value at
 * once. For a counter, a write of any value clears it. Same errors as the 32-bit calls; the
 * offset must be a multiple of 4 with offset + 8 <= PKTSTATS_REGISTER_SPACE. A failed write may
 * have written the low word's shadow only (no visible change).
 */
int pktstats_read64(struct pktstats_dev *dev, uint32_t offset, uint64_t *value);
int pktstats_write64(struct pktstats_dev *dev, uint32_t offset, uint64_t value);

/* The identity read at open. -EINVAL for NULL, -ENODATA if opened with
 * PKTSTATS_OPEN_NO_IDENTITY. */
int pktstats_identity(const struct pktstats_dev *dev, struct pktstats_identity *id);

/* The backend of an open handle (0 for NULL). */
enum pktstats_backend pktstats_backend(const struct pktstats_dev *dev);

/* Short name of a backend: "sim", "mmap", "chardev", "netdev" (the device string prefixes);
 * "unknown" otherwise. Never NULL. */
const char *pktstats_backend_name(enum pktstats_backend backend);

/* What the handle is connected to, for people, e.g. "pktstats-sim (protocol 1, design
 * pktstats_core) on socket /tmp/sim.sock" or "BAR /sys/bus/pci/devices/0000:03:00.0/resource0
 * (mmap, 65536 of 1048576 bytes)". Never NULL ("" for NULL). */
const char *pktstats_description(const struct pktstats_dev *dev);

/* One-line detail of the last failed call on this handle, e.g. "read 0x00003000: simulator
 * answered: error 11 decode error ...", or "" if no call has failed. Not cleared by successful
 * calls. Valid until the next call on the handle. Never NULL. */
const char *pktstats_error(const struct pktstats_dev *dev);

#ifdef __cplusplus
}
#endif

#endif
