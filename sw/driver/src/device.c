/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device access, the part common to every backend: the device-string parser, pktstats_open()
 * with the identity check, offset checks, the all-ones rule, 64-bit access and the accessors.
 * The backends are device_sim.c, device_mmap.c, device_chardev.c and device_netdev.c.
 */
#define _DEFAULT_SOURCE

#include "device_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pktstats/regs.h"

/* The design version major this library speaks; a device with another major has another
 * register map. */
#define SUPPORTED_MAJOR (PKTSTATS_ID_DESIGN_VERSION_VALUE >> 16)

int pktstats_fail(struct pktstats_dev *dev, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dev->error, sizeof dev->error, fmt, ap);
	va_end(ap);
	return err;
}

void pktstats_error_prefix(struct pktstats_dev *dev, const char *prefix)
{
	size_t p = strlen(prefix), e = strlen(dev->error);

	/* The end of a long detail is cut, never the prefix, which says what failed. */
	if (p > sizeof dev->error - 1)
		p = sizeof dev->error - 1;
	if (e > sizeof dev->error - 1 - p)
		e = sizeof dev->error - 1 - p;
	memmove(dev->error + p, dev->error, e);
	memcpy(dev->error, prefix, p);
	dev->error[p + e] = '\0';
}

const char *pktstats_errno_text(int errnum, char *buf, size_t size)
{
	/* The XSI strerror_r (no _GNU_SOURCE here): strerror() is not thread-safe. */
	if (strerror_r(errnum, buf, size) != 0)
		snprintf(buf, size, "errno %d", errnum);
	return buf;
}

/* ------------------------------------------------------------------------------------------ */
/* Device strings */

static int spec_error(char *error, size_t error_size, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int spec_error(char *error, size_t error_size, int err, const char *fmt, ...)
{
	va_list ap;

	if (error && error_size) {
		va_start(ap, fmt);
		vsnprintf(error, error_size, fmt, ap);
		va_end(ap);
	}
	return err;
}

static int set_name(struct pktstats_device_spec *spec, enum pktstats_target target,
		    const char *name, const char *what, char *error, size_t error_size)
{
	size_t n = strlen(name);

	if (n == 0)
		return spec_error(error, error_size, -EINVAL, "empty %s", what);
	if (n >= sizeof spec->name)
		return spec_error(error, error_size, -ENAMETOOLONG, "%s too long (%zu bytes)", what,
				  n);
	spec->target = target;
	memcpy(spec->name, name, n + 1);
	return 0;
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned)(c - 'a' + 10);
	return (unsigned)(c - 'A' + 10);
}

/* n hex digits at *p, advancing *p; -1 if there are fewer. */
static long take_hex(const char **p, int n)
{
	long v = 0;

	for (int i = 0; i < n; i++) {
		if (!is_hex((*p)[i]))
			return -1;
		v = v * 16 + (long)hex_value((*p)[i]);
	}
	*p += n;
	return v;
}

/*
 * A PCI address with an optional ",barN": [DDDD:]BB:DD.F, hexadecimal, device <= 0x1f,
 * function <= 7. Writes the sysfs resource path into spec. Returns 0 if s is one, 1 if it is
 * not (strict: nothing before or after), -EINVAL for a malformed ",bar" suffix.
 */
static int parse_pci(const char *s, struct pktstats_device_spec *spec, char *error,
		     size_t error_size)
{
	const char *p = s;
	long domain = 0, bus, device, function, bar = 0;
	const char *colon = strchr(s, ':');

	/* With a domain, the first colon comes after 4 digits; without, after 2. */
	if (colon && colon - s == 4) {
		domain = take_hex(&p, 4);
		if (domain < 0)
			return 1;
		p++;
	}
	bus = take_hex(&p, 2);
	if (bus < 0 || *p++ != ':')
		return 1;
	device = take_hex(&p, 2);
	if (device < 0 || device > 0x1f || *p++ != '.')
		return 1;
	if (*p < '0' || *p > '7')
		return 1;
	function = *p++ - '0';
	if (*p == ',') {
		if (strncmp(p, ",bar", 4) != 0 || p[4] < '0' || p[4] > '5' || p[5] != '\0')
			return spec_error(error, error_size, -EINVAL,
					  "'%s': expected ',bar0' to ',bar5' after the PCI address",
					  p);
		bar = p[4] - '0';
	} else if (*p != '\0') {
		return 1;
	}
	spec->target = PKTSTATS_TARGET_MMAP;
	snprintf(spec->name, sizeof spec->name,
		 "/sys/bus/pci/devices/%04lx:%02lx:%02lx.%ld/resource%ld", domain, bus, device,
		 function, bar);
	return 0;
}

int pktstats_parse_device(const char *device, struct pktstats_device_spec *spec, char *error,
			  size_t error_size)
{
	static const struct {
		const char *prefix;
		enum pktstats_target target;
		const char *what;
	} prefixes[] = {
		{"sim:", PKTSTATS_TARGET_SIM, "simulator socket path"},
		{"mmap:", PKTSTATS_TARGET_MMAP, "path"},
		{"chardev:", PKTSTATS_TARGET_CHARDEV, "path"},
		{"netdev:", PKTSTATS_TARGET_NETDEV, "interface name"},
	};
	int r;

	if (!device || !spec)
		return spec_error(error, error_size, -EINVAL, "no device given");
	if (device[0] == '\0')
		return spec_error(error, error_size, -EINVAL, "empty device string");
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		size_t n = strlen(prefixes[i].prefix);

		if (strncmp(device, prefixes[i].prefix, n) == 0)
			return set_name(spec, prefixes[i].target, device + n, prefixes[i].what,
					error, error_size);
	}
	if (strncmp(device, "pci:", 4) == 0) {
		r = parse_pci(device + 4, spec, error, error_size);
		if (r == 1)
			return spec_error(error, error_size, -EINVAL,
					  "'%s' is not a PCI address (DDDD:BB:DD.F or BB:DD.F, "
					  "optionally ,barN)",
					  device + 4);
		return r;
	}
	if (strchr(device, '/'))
		return set_name(spec, PKTSTATS_TARGET_PATH, device, "path", error, error_size);
	r = parse_pci(device, spec, error, error_size);
	if (r <= 0)
		return r;
	/* Everything else names a network interface; the kernel limits names to IFNAMSIZ - 1. */
	if (strlen(device) >= IFNAMSIZ)
		return spec_error(error, error_size, -EINVAL,
				  "not a path, PCI address or network interface name (interface "
				  "names have at most %d bytes)",
				  IFNAMSIZ - 1);
	return set_name(spec, PKTSTATS_TARGET_NETDEV, device, "interface name", error, error_size);
}

/* ------------------------------------------------------------------------------------------ */
/* Open and close */

static const char *file_type(mode_t mode)
{
	if (S_ISDIR(mode))
		return "directory";
	if (S_ISBLK(mode))
		return "block device";
	if (S_ISFIFO(mode))
		return "FIFO";
	return "special file";
}

/* A path without prefix: its file type picks the backend. */
static int open_path(struct pktstats_dev *dev, const char *path)
{
	struct stat st;
	char text[128];

	if (stat(path, &st) != 0) {
		int err = errno;

		return pktstats_fail(dev, -err, "%s", pktstats_errno_text(err, text, sizeof text));
	}
	if (S_ISSOCK(st.st_mode))
		return pktstats_sim_open(dev, path);
	if (S_ISREG(st.st_mode))
		return pktstats_mmap_open(dev, path);
	if (S_ISCHR(st.st_mode))
		return pktstats_chardev_open(dev, path);
	return pktstats_fail(dev, -ENODEV,
			     "a %s, not a socket, regular file (BAR) or character device",
			     file_type(st.st_mode));
}

/* A read during the identity check, with the register's name in the detail. */
static int identity_read(struct pktstats_dev *dev, uint32_t offset, const char *name,
			 uint32_t *value)
{
	char prefix[64];
	int r = dev->ops->read32(dev, offset, value);

	if (r < 0) {
		snprintf(prefix, sizeof prefix, "identity check, %s: ", name);
		pktstats_error_prefix(dev, prefix);
	}
	return r;
}

static int check_identity(struct pktstats_dev *dev)
{
	struct pktstats_identity *id = &dev->identity;
	int r;

	r = identity_read(dev, PKTSTATS_ID_MAGIC, "id.magic", &id->magic);
	if (r < 0)
		return r;
	if (id->magic == PKTSTATS_DEVICE_GONE)
		return pktstats_fail(dev, -ENODEV,
				     "id.magic reads 0xffffffff: no device answers (removed, not "
				     "programmed, or the BAR is not enabled)");
	if (id->magic != PKTSTATS_MAGIC)
		return pktstats_fail(dev, -EPROTO,
				     "id.magic reads 0x%08x, not 0x%08x (\"PKTS\"): not a pktstats "
				     "device",
				     (unsigned)id->magic, (unsigned)PKTSTATS_MAGIC);
	r = identity_read(dev, PKTSTATS_ID_DESIGN_VERSION, "id.design_version",
			  &id->design_version);
	if (r < 0)
		return r;
	id->major = (uint16_t)(id->design_version >> 16);
	id->minor = (uint16_t)id->design_version;
	if (id->design_version == PKTSTATS_DEVICE_GONE)
		return pktstats_fail(dev, -ENODEV,
				     "id.design_version reads 0xffffffff: device gone");
	if (id->major != SUPPORTED_MAJOR)
		return pktstats_fail(
			dev, -EPROTO,
			"design version %u.%u, this library supports %u.x: rebuild the "
			"tools from the design's sources",
			(unsigned)id->major, (unsigned)id->minor, (unsigned)SUPPORTED_MAJOR);
	r = identity_read(dev, PKTSTATS_ID_GIT_HASH, "id.git_hash", &id->git_hash);
	if (r < 0)
		return r;
	dev->identity_checked = true;
	return 0;
}

static void copy_error(char *error, size_t error_size, const char *text)
{
	if (error && error_size)
		snprintf(error, error_size, "%s", text);
}

int pktstats_open(const char *device, unsigned flags, struct pktstats_dev **devp, char *error,
		  size_t error_size)
{
	struct pktstats_device_spec spec;
	struct pktstats_dev *dev;
	int r;

	if (error && error_size)
		error[0] = '\0';
	if (!devp)
		return spec_error(error, error_size, -EINVAL, "no handle pointer given");
	*devp = NULL;
	if (flags & ~(PKTSTATS_OPEN_NO_IDENTITY | PKTSTATS_OPEN_NO_WAIT))
		return spec_error(error, error_size, -EINVAL, "unknown open flags 0x%x",
				  flags & ~(PKTSTATS_OPEN_NO_IDENTITY | PKTSTATS_OPEN_NO_WAIT));
	r = pktstats_parse_device(device, &spec, error, error_size);
	if (r < 0)
		return r;

	dev = calloc(1, sizeof *dev);
	if (!dev)
		return spec_error(error, error_size, -ENOMEM, "out of memory");
	dev->fd = -1;
	dev->flags = flags;
	switch (spec.target) {
	case PKTSTATS_TARGET_SIM:
		r = pktstats_sim_open(dev, spec.name);
		break;
	case PKTSTATS_TARGET_MMAP:
		r = pktstats_mmap_open(dev, spec.name);
		break;
	case PKTSTATS_TARGET_CHARDEV:
		r = pktstats_chardev_open(dev, spec.name);
		break;
	case PKTSTATS_TARGET_NETDEV:
		r = pktstats_netdev_open(dev, spec.name);
		break;
	default:
		r = open_path(dev, spec.name);
		break;
	}
	/* The detail does not repeat the device string, but names the file a PCI address led
	 * to, which the caller has not seen. */
	if (r < 0 && !strstr(device, spec.name)) {
		char prefix[PATH_MAX + 2];

		snprintf(prefix, sizeof prefix, "%s: ", spec.name);
		pktstats_error_prefix(dev, prefix);
	}
	if (r == 0 && !(flags & PKTSTATS_OPEN_NO_IDENTITY))
		r = check_identity(dev);
	if (r < 0) {
		copy_error(error, error_size, dev->error);
		pktstats_close(dev);
		return r;
	}
	*devp = dev;
	return 0;
}

void pktstats_close(struct pktstats_dev *dev)
{
	if (!dev)
		return;
	if (dev->ops)
		dev->ops->close(dev);
	free(dev);
}

/* ------------------------------------------------------------------------------------------ */
/* Register access */

/* Checks common to every access of `bytes` bytes at offset. */
static int check_offset(struct pktstats_dev *dev, uint32_t offset, uint32_t bytes, const char *op)
{
	if (offset % 4)
		return pktstats_fail(dev, -EINVAL, "%s 0x%08x: not a multiple of 4", op,
				     (unsigned)offset);
	if (offset > PKTSTATS_REGISTER_SPACE - bytes)
		return pktstats_fail(dev, -EFAULT,
				     "%s 0x%08x: beyond the register space (below 0x%x)", op,
				     (unsigned)offset, (unsigned)PKTSTATS_REGISTER_SPACE);
	return 0;
}

/* A backend failure's detail, prefixed with the access. */
static int access_failed(struct pktstats_dev *dev, int r, const char *op, uint32_t offset)
{
	char prefix[64];

	snprintf(prefix, sizeof prefix, "%s 0x%08x: ", op, (unsigned)offset);
	pktstats_error_prefix(dev, prefix);
	return r;
}

/*
 * The all-ones rule: after the identity check, a value of 0xffffffff is confirmed by reading
 * id.magic, which cannot legitimately read all ones. A device that is gone (a PCIe link down
 * answers every read with all ones) gives -ENODEV; otherwise the value is genuine. Reading
 * id.magic between the words of a 64-bit read is harmless: the latch is per register.
 */
static int confirm_all_ones(struct pktstats_dev *dev, uint32_t offset)
{
	uint32_t magic;
	int r;

	if (!dev->identity_checked)
		return 0;
	r = dev->ops->read32(dev, PKTSTATS_ID_MAGIC, &magic);
	if (r < 0)
		return access_failed(dev, r, "read", offset);
	if (magic == PKTSTATS_DEVICE_GONE)
		return pktstats_fail(
			dev, -ENODEV,
			"read 0x%08x: 0xffffffff, and id.magic too: the device is gone",
			(unsigned)offset);
	return 0;
}

int pktstats_read32(struct pktstats_dev *dev, uint32_t offset, uint32_t *value)
{
	uint32_t v;
	int r;

	if (!dev)
		return -EINVAL;
	if (!value)
		return pktstats_fail(dev, -EINVAL, "read: no value pointer");
	r = check_offset(dev, offset, 4, "read");
	if (r < 0)
		return r;
	r = dev->ops->read32(dev, offset, &v);
	if (r < 0)
		return access_failed(dev, r, "read", offset);
	if (v == PKTSTATS_DEVICE_GONE) {
		r = confirm_all_ones(dev, offset);
		if (r < 0)
			return r;
	}
	*value = v;
	return 0;
}

int pktstats_read_many(struct pktstats_dev *dev, const uint32_t *offsets, size_t n,
		       uint32_t *values)
{
	size_t done = 0;
	int r = 0;

	if (!dev)
		return -EINVAL;
	if (n && (!offsets || !values))
		return pktstats_fail(dev, -EINVAL, "read: no offset or value array");
	for (size_t i = 0; i < n; i++) {
		r = check_offset(dev, offsets[i], 4, "read");
		if (r < 0)
			return r;
	}
	if (dev->ops->read_many) {
		r = dev->ops->read_many(dev, offsets, n, values, &done);
	} else {
		for (; done < n; done++) {
			r = dev->ops->read32(dev, offsets[done], &values[done]);
			if (r < 0)
				break;
		}
	}
	if (r < 0)
		return access_failed(dev, r, "read", offsets[done]);
	/* The all-ones rule, once for the whole batch: id.magic tells a gone device */
	for (size_t i = 0; i < n; i++)
		if (values[i] == PKTSTATS_DEVICE_GONE)
			return confirm_all_ones(dev, offsets[i]);
	return 0;
}

int pktstats_write32(struct pktstats_dev *dev, uint32_t offset, uint32_t value)
{
	int r;

	if (!dev)
		return -EINVAL;
	r = check_offset(dev, offset, 4, "write");
	if (r < 0)
		return r;
	r = dev->ops->write32(dev, offset, value);
	if (r < 0)
		return access_failed(dev, r, "write", offset);
	return 0;
}

int pktstats_read64(struct pktstats_dev *dev, uint32_t offset, uint64_t *value)
{
	uint32_t lo, hi;
	int r;

	if (!dev)
		return -EINVAL;
	if (!value)
		return pktstats_fail(dev, -EINVAL, "read: no value pointer");
	r = check_offset(dev, offset, 8, "read");
	if (r < 0)
		return r;
	/* Low word first: it latches the high word, so the pair is one coherent value. */
	r = dev->ops->read32(dev, offset, &lo);
	if (r < 0)
		return access_failed(dev, r, "read", offset);
	r = dev->ops->read32(dev, offset + 4, &hi);
	if (r < 0)
		return access_failed(dev, r, "read", offset + 4);
	if (lo == PKTSTATS_DEVICE_GONE || hi == PKTSTATS_DEVICE_GONE) {
		r = confirm_all_ones(dev, offset);
		if (r < 0)
			return r;
	}
	*value = (uint64_t)hi << 32 | lo;
	return 0;
}

int pktstats_write64(struct pktstats_dev *dev, uint32_t offset, uint64_t value)
{
	int r;

	if (!dev)
		return -EINVAL;
	r = check_offset(dev, offset, 8, "write");
	if (r < 0)
		return r;
	/* Low word into the shadow register, then the high word, which commits both. */
	r = dev->ops->write32(dev, offset, (uint32_t)value);
	if (r < 0)
		return access_failed(dev, r, "write", offset);
	r = dev->ops->write32(dev, offset + 4, (uint32_t)(value >> 32));
	if (r < 0)
		return access_failed(dev, r, "write", offset + 4);
	return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Accessors */

int pktstats_identity(const struct pktstats_dev *dev, struct pktstats_identity *id)
{
	if (!dev || !id)
		return -EINVAL;
	if (!dev->identity_checked)
		return -ENODATA;
	*id = dev->identity;
	return 0;
}

enum pktstats_backend pktstats_backend(const struct pktstats_dev *dev)
{
	return dev && dev->ops ? dev->ops->kind : (enum pktstats_backend)0;
}

const char *pktstats_backend_name(enum pktstats_backend backend)
{
	switch (backend) {
	case PKTSTATS_BACKEND_SIM:
		return "sim";
	case PKTSTATS_BACKEND_MMAP:
		return "mmap";
	case PKTSTATS_BACKEND_CHARDEV:
		return "chardev";
	case PKTSTATS_BACKEND_NETDEV:
		return "netdev";
	}
	return "unknown";
}

const char *pktstats_description(const struct pktstats_dev *dev)
{
	return dev ? dev->description : "";
}

const char *pktstats_error(const struct pktstats_dev *dev)
{
	return dev ? dev->error : "";
}
