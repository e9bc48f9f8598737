/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside libpktstats' device access: the handle, the table of operations every backend
 * provides, the device-string parser and the netdev request encoding (the last two are
 * separate functions so that the unit test calls them without a device). Not installed.
 */
#ifndef PKTSTATS_DEVICE_INTERNAL_H
#define PKTSTATS_DEVICE_INTERNAL_H

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pktstats/pktstats.h"

/* One backend. Offsets reach the backend already checked (aligned, inside the register
 * space). Every function returns 0 or -errno and, on failure, fills dev->error. */
struct pktstats_backend_ops {
	enum pktstats_backend kind;
	int (*read32)(struct pktstats_dev *dev, uint32_t offset, uint32_t *value);
	int (*write32)(struct pktstats_dev *dev, uint32_t offset, uint32_t value);
	/* Optional: n reads in order, overlapped where the backend can (the simulator pipelines
	 * them). Stops at the first failure, whose -errno it returns with *done the values read
	 * before it. NULL: pktstats_read_many() calls read32 n times. */
	int (*read_many)(struct pktstats_dev *dev, const uint32_t *offsets, size_t n,
			 uint32_t *values, size_t *done);
	void (*close)(struct pktstats_dev *dev); /* releases what open acquired */
};

/* Bytes of a simulator reply line the handle buffers; protocol replies are far shorter
 * (error messages quote at most a line of 256 bytes). */
#define PKTSTATS_SIM_LINE_MAX 1024

struct pktstats_dev {
	const struct pktstats_backend_ops *ops;
	unsigned flags;	       /* pktstats_open() flags */
	bool identity_checked; /* the identity block was read and matched */
	struct pktstats_identity identity;
	int fd; /* socket, file or ioctl socket; -1 when closed */

	/* mmap */
	volatile uint32_t *map;
	size_t map_size;

	/* netdev */
	char ifname[IFNAMSIZ];

	/* sim: bytes received after the last complete reply line; connection given up */
	char rx[PKTSTATS_SIM_LINE_MAX];
	size_t rx_len;
	bool broken;

	char description[PKTSTATS_ERROR_MAX];
	char error[PKTSTATS_ERROR_MAX];
};

/* Backend open functions: set dev->ops, dev->fd and the backend fields, and the
 * description; on failure release everything and fill dev->error. */
int pktstats_sim_open(struct pktstats_dev *dev, const char *path);
int pktstats_mmap_open(struct pktstats_dev *dev, const char *path);
int pktstats_chardev_open(struct pktstats_dev *dev, const char *path);
int pktstats_netdev_open(struct pktstats_dev *dev, const char *ifname);

/* printf into dev->error (truncated to fit). Returns err, so that `return
 * pktstats_fail(dev, -EIO, "...")` reads as one statement. */
int pktstats_fail(struct pktstats_dev *dev, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Put prefix before the current detail in dev->error (the detail's end is cut to fit). */
void pktstats_error_prefix(struct pktstats_dev *dev, const char *prefix);

/* strerror() for a positive errno, into buf; thread-safe. Returns buf. */
const char *pktstats_errno_text(int errnum, char *buf, size_t size);

/* ------------------------------------------------------------------------------------------ */
/* Device strings */

enum pktstats_target {
	PKTSTATS_TARGET_SIM = PKTSTATS_BACKEND_SIM,
	PKTSTATS_TARGET_MMAP = PKTSTATS_BACKEND_MMAP,
	PKTSTATS_TARGET_CHARDEV = PKTSTATS_BACKEND_CHARDEV,
	PKTSTATS_TARGET_NETDEV = PKTSTATS_BACKEND_NETDEV,
	PKTSTATS_TARGET_PATH, /* a path whose file type decides the backend at open */
};

struct pktstats_device_spec {
	enum pktstats_target target;
	char name[PATH_MAX]; /* the path (for PCI: the sysfs resource file) or interface name */
};

/* Parse a device string (the forms in pktstats.h) without touching the file system.
 * Returns 0, -EINVAL or -ENAMETOOLONG with a detail in error. */
int pktstats_parse_device(const char *device, struct pktstats_device_spec *spec, char *error,
			  size_t error_size);

/* ------------------------------------------------------------------------------------------ */
/* NetFPGA register ioctls */

/*
 * The NetFPGA-1G register ioctls, which this backend speaks: on a socket, ioctl(fd, request,
 * &ifr) with ifr.ifr_name the interface and ifr.ifr_data pointing at {register, value} (two
 * host-order 32-bit words; the read fills value). Numbers and layout as in NetFPGA/netfpga
 * lib/C/common/nf2.h: `SIOCREGREAD SIOCDEVPRIVATE`, `SIOCREGWRITE (SIOCDEVPRIVATE + 1)`,
 * `struct nf2reg { unsigned int reg; unsigned int val; }`. (NetFPGA-10G's nf10 driver,
 * projects/reference_nic/sw/host/driver/nf10fops.h, moved to SIOCDEVPRIVATE + 1 write and
 * + 2 read with one u64 `addr << 32 | val`; a driver for this design implements the 1G form.)
 */
#define PKTSTATS_SIOCREGREAD 0x89F0u  /* SIOCDEVPRIVATE */
#define PKTSTATS_SIOCREGWRITE 0x89F1u /* SIOCDEVPRIVATE + 1 */

struct pktstats_netdev_reg {
	uint32_t reg; /* byte address */
	uint32_t val;
};

/* Fill *ifr and *arg for one register access on interface ifname and return the ioctl
 * request number in *request. -EINVAL if ifname is empty or does not fit in ifr_name. */
int pktstats_netdev_request(const char *ifname, bool write, uint32_t offset, uint32_t value,
			    struct ifreq *ifr, struct pktstats_netdev_reg *arg,
			    unsigned long *request);

#endif
