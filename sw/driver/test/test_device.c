/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TAP test of libpktstats' device access (src/device*.c) without hardware:
 *   - the device-string parser, table-driven (every accepted and rejected form);
 *   - the mmap backend on a regular file standing in for a BAR (identity check, register
 *     access, bounds, wrong magic, device gone, too small);
 *   - the chardev backend on a regular file and on /dev/zero and /dev/null;
 *   - the netdev request encoding (and, where `lo` exists, that a netdev without register
 *     ioctls fails cleanly);
 *   - 64-bit access order and the all-ones rule, on a recording fake backend;
 *   - the simulator backend against a scripted fake server (wire format, hello checks, error
 *     code mapping, a server that goes away: no SIGPIPE).
 * The real simulator is test_device_sim.c.
 *
 * Register files are written byte by byte here (little-endian, as PCIe), not through the
 * library, so that an endianness mistake in the library cannot hide.
 */
#define _DEFAULT_SOURCE

#include "pktstats/pktstats.h"
#include "pktstats/regs.h"

#include "../src/device_internal.h"
#include "test_device_tap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[256]; /* short, so that every path in it fits in PATH_MAX and sun_path */

/* The socket address of a path in tmpdir (main() keeps tmpdir short enough). */
static void set_sun_path(struct sockaddr_un *addr, const char *path)
{
	if (strlen(path) >= sizeof addr->sun_path) {
		fprintf(stderr, "%s: too long for a socket address\n", path);
		exit(2);
	}
	memcpy(addr->sun_path, path, strlen(path) + 1);
}

static void path_in_tmp(char *out, const char *name)
{
	snprintf(out, PATH_MAX, "%s/%s", tmpdir, name);
}

/* ------------------------------------------------------------------------------------------ */
/* Register files */

static void put32(const char *path, uint32_t offset, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	int fd = open(path, O_WRONLY);

	if (fd < 0 || pwrite(fd, b, 4, offset) != 4) {
		perror(path);
		exit(2);
	}
	close(fd);
}

static uint32_t get32(const char *path, uint32_t offset)
{
	uint8_t b[4];
	int fd = open(path, O_RDONLY);

	if (fd < 0 || pread(fd, b, 4, offset) != 4) {
		perror(path);
		exit(2);
	}
	close(fd);
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

#define TEST_GIT_HASH 0x0badcafeu

/* A file of size bytes holding an identity block with the given magic and design version. */
static void make_bar(char *path, const char *name, off_t size, uint32_t magic,
		     uint32_t design_version)
{
	int fd;

	path_in_tmp(path, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, size) != 0) {
		perror(path);
		exit(2);
	}
	close(fd);
	if (size >= 0x14) {
		put32(path, PKTSTATS_ID_TYPE, PKTSTATS_ID_TYPE_VALUE);
		put32(path, PKTSTATS_ID_VERSION, PKTSTATS_ID_VERSION_VALUE);
		put32(path, PKTSTATS_ID_MAGIC, magic);
		put32(path, PKTSTATS_ID_DESIGN_VERSION, design_version);
		put32(path, PKTSTATS_ID_GIT_HASH, TEST_GIT_HASH);
	}
}

static void make_good_bar(char *path, const char *name)
{
	make_bar(path, name, PKTSTATS_REGISTER_SPACE, PKTSTATS_MAGIC,
		 PKTSTATS_ID_DESIGN_VERSION_VALUE);
}

/* ------------------------------------------------------------------------------------------ */
/* Device strings */

static void test_parser(void)
{
	static const char long_path_prefix[] = "sim:/";
	static const struct {
		const char *device;
		int rc;
		enum pktstats_target target;
		const char *name;
	} cases[] = {
		{"sim:/tmp/sim.sock", 0, PKTSTATS_TARGET_SIM, "/tmp/sim.sock"},
		{"sim:sim.sock", 0, PKTSTATS_TARGET_SIM, "sim.sock"},
		{"sim:", -EINVAL, 0, NULL},
		{"pci:0000:03:00.0", 0, PKTSTATS_TARGET_MMAP,
		 "/sys/bus/pci/devices/0000:03:00.0/resource0"},
		{"0000:03:00.0", 0, PKTSTATS_TARGET_MMAP,
		 "/sys/bus/pci/devices/0000:03:00.0/resource0"},
		{"03:00.0", 0, PKTSTATS_TARGET_MMAP, "/sys/bus/pci/devices/0000:03:00.0/resource0"},
		{"pci:03:00.0", 0, PKTSTATS_TARGET_MMAP,
		 "/sys/bus/pci/devices/0000:03:00.0/resource0"},
		{"0001:3B:1f.7", 0, PKTSTATS_TARGET_MMAP,
		 "/sys/bus/pci/devices/0001:3b:1f.7/resource0"},
		{"0000:03:00.0,bar2", 0, PKTSTATS_TARGET_MMAP,
		 "/sys/bus/pci/devices/0000:03:00.0/resource2"},
		{"pci:0000:03:00.0,bar5", 0, PKTSTATS_TARGET_MMAP,
		 "/sys/bus/pci/devices/0000:03:00.0/resource5"},
		{"pci:0000:03:00.0,bar0", 0, PKTSTATS_TARGET_MMAP,
		 "/sys/bus/pci/devices/0000:03:00.0/resource0"},
		{"0000:03:00.0,bar6", -EINVAL, 0, NULL},
		{"0000:03:00.0,bar", -EINVAL, 0, NULL},
		{"0000:03:00.0,bar12", -EINVAL, 0, NULL},
		{"0000:03:00.0,resource0", -EINVAL, 0, NULL},
		{"pci:0000:03:00.8", -EINVAL, 0, NULL},
		{"pci:0000:03:20.0", -EINVAL, 0, NULL},
		{"pci:0000:03:00", -EINVAL, 0, NULL},
		{"pci:0000:03:00.0x", -EINVAL, 0, NULL},
		{"pci:000g:03:00.0", -EINVAL, 0, NULL},
		{"pci:", -EINVAL, 0, NULL},
		/* Not a PCI address (function 8), so by the rule an interface name. */
		{"0000:03:00.8", 0, PKTSTATS_TARGET_NETDEV, "0000:03:00.8"},
		{"mmap:/sys/bus/pci/devices/0000:03:00.0/resource0", 0, PKTSTATS_TARGET_MMAP,
		 "/sys/bus/pci/devices/0000:03:00.0/resource0"},
		{"mmap:bar.bin", 0, PKTSTATS_TARGET_MMAP, "bar.bin"},
		{"mmap:", -EINVAL, 0, NULL},
		{"chardev:/dev/xdma0_user", 0, PKTSTATS_TARGET_CHARDEV, "/dev/xdma0_user"},
		{"chardev:", -EINVAL, 0, NULL},
		{"netdev:nf0", 0, PKTSTATS_TARGET_NETDEV, "nf0"},
		{"netdev:", -EINVAL, 0, NULL},
		{"/dev/xdma0_user", 0, PKTSTATS_TARGET_PATH, "/dev/xdma0_user"},
		{"/sys/bus/pci/devices/0000:03:00.0/resource0", 0, PKTSTATS_TARGET_PATH,
		 "/sys/bus/pci/devices/0000:03:00.0/resource0"},
		{"./resource0", 0, PKTSTATS_TARGET_PATH, "./resource0"},
		{"/tmp/sim.sock", 0, PKTSTATS_TARGET_PATH, "/tmp/sim.sock"},
		/* Prefixes are lowercase; this one has a '/', so it is a path. */
		{"SIM:/tmp/sim.sock", 0, PKTSTATS_TARGET_PATH, "SIM:/tmp/sim.sock"},
		{"nf0", 0, PKTSTATS_TARGET_NETDEV, "nf0"},
		{"eth0.100", 0, PKTSTATS_TARGET_NETDEV, "eth0.100"},
		{"fifteen_chars_x", 0, PKTSTATS_TARGET_NETDEV, "fifteen_chars_x"},
		{"sixteen_chars_xx", -EINVAL, 0, NULL},
		{"", -EINVAL, 0, NULL},
	};
	struct pktstats_device_spec spec;
	char error[PKTSTATS_ERROR_MAX], *long_device;
	int rc;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memset(&spec, 0, sizeof spec);
		error[0] = '\0';
		rc = pktstats_parse_device(cases[i].device, &spec, error, sizeof error);
		if (cases[i].rc < 0) {
			TAP_RC(rc, cases[i].rc, error, "device string '%s' rejected",
			       cases[i].device);
			tap_ok(error[0] != '\0',
			       "device string '%s': the rejection has a detail (%s)",
			       cases[i].device, error);
			continue;
		}
		if (!tap_ok(rc == 0 && spec.target == cases[i].target &&
				    strcmp(spec.name, cases[i].name) == 0,
			    "device string '%s' -> target %d '%s'", cases[i].device,
			    (int)cases[i].target, cases[i].name))
			tap_diag("got rc %d, target %d, name '%s' (%s)", rc, (int)spec.target,
				 spec.name, error);
	}
	rc = pktstats_parse_device(NULL, &spec, error, sizeof error);
	TAP_RC(rc, -EINVAL, error, "NULL device string rejected");

	/* A path longer than PATH_MAX. */
	long_device = malloc(PATH_MAX + 16);
	memcpy(long_device, long_path_prefix, sizeof long_path_prefix - 1);
	memset(long_device + sizeof long_path_prefix - 1, 'a', PATH_MAX + 4);
	long_device[PATH_MAX + 4 + sizeof long_path_prefix - 1] = '\0';
	rc = pktstats_parse_device(long_device, &spec, error, sizeof error);
	TAP_RC(rc, -ENAMETOOLONG, error, "device string longer than PATH_MAX: -ENAMETOOLONG");
	free(long_device);

	/* The error buffer is optional, and a short one is never overrun (ASan watches). */
	rc = pktstats_parse_device("pci:zz", &spec, NULL, 0);
	TAP_RC(rc, -EINVAL, NULL, "no error buffer: still -EINVAL");
	rc = pktstats_parse_device("pci:zz", &spec, error, 6);
	tap_ok(rc == -EINVAL && strlen(error) == 5, "short error buffer: truncated detail '%s'",
	       error);
}

/* ------------------------------------------------------------------------------------------ */
/* mmap backend */

static void test_mmap_access(void)
{
	char bar[PATH_MAX], device[PATH_MAX + 8], error[PKTSTATS_ERROR_MAX];
	struct pktstats_dev *dev = NULL;
	struct pktstats_identity id;
	uint32_t v = 0;
	uint64_t v64 = 0;
	int rc;

	make_good_bar(bar, "bar_access");
	put32(bar, PKTSTATS_EVCAP_UDP_DESTINATION_PORT, 0x00006999);
	put32(bar, PKTSTATS_EVCAP_EVENTS_SENT_LO, 0x89abcdef);
	put32(bar, PKTSTATS_EVCAP_EVENTS_SENT_HI, 0x01234567);

	rc = pktstats_open(bar, 0, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "mmap: a regular file with a good identity opens by its path");
	if (rc < 0)
		return;
	tap_ok(pktstats_backend(dev) == PKTSTATS_BACKEND_MMAP &&
		       strcmp(pktstats_backend_name(pktstats_backend(dev)), "mmap") == 0,
	       "mmap: a regular file selects the mmap backend");
	TAP_HAS(pktstats_description(dev), bar, "mmap: the description names the file");
	rc = pktstats_identity(dev, &id);
	tap_ok(rc == 0 && id.magic == PKTSTATS_MAGIC &&
		       id.design_version == PKTSTATS_ID_DESIGN_VERSION_VALUE &&
		       id.major == (PKTSTATS_ID_DESIGN_VERSION_VALUE >> 16) &&
		       id.minor == (PKTSTATS_ID_DESIGN_VERSION_VALUE & 0xffff) &&
		       id.git_hash == TEST_GIT_HASH,
	       "mmap: identity magic, design version, major/minor and git hash 0x%08x",
	       (unsigned)id.git_hash);
	tap_ok(strcmp(pktstats_error(dev), "") == 0, "no failure yet: empty error detail");

	rc = pktstats_read32(dev, PKTSTATS_EVCAP_UDP_DESTINATION_PORT, &v);
	tap_ok(rc == 0 && v == 0x6999, "mmap: read32 of a word of the file (0x%08x)", (unsigned)v);
	rc = pktstats_write32(dev, PKTSTATS_EVCAP_UDP_DESTINATION_PORT, 0xa1b2c3d4);
	tap_ok(rc == 0 && get32(bar, PKTSTATS_EVCAP_UDP_DESTINATION_PORT) == 0xa1b2c3d4,
	       "mmap: write32 lands in the file, little-endian");
	rc = pktstats_write32(dev, PKTSTATS_REGISTER_SPACE - 4, 0x55aa55aa);
	tap_ok(rc == 0 && get32(bar, PKTSTATS_REGISTER_SPACE - 4) == 0x55aa55aa,
	       "mmap: the last word of the register space is writable");
	rc = pktstats_read32(dev, PKTSTATS_REGISTER_SPACE - 4, &v);
	tap_ok(rc == 0 && v == 0x55aa55aa, "mmap: and readable");

	rc = pktstats_read64(dev, PKTSTATS_EVCAP_EVENTS_SENT, &v64);
	tap_ok(rc == 0 && v64 == 0x0123456789abcdefull,
	       "mmap: read64 = high word << 32 | low word (0x%016llx)", (unsigned long long)v64);
	rc = pktstats_write64(dev, PKTSTATS_EVCAP_DESTINATION_MAC, 0x0000020304050607ull);
	tap_ok(rc == 0 && get32(bar, PKTSTATS_EVCAP_DESTINATION_MAC_LO) == 0x04050607 &&
		       get32(bar, PKTSTATS_EVCAP_DESTINATION_MAC_HI) == 0x00000203,
	       "mmap: write64 puts the low word at offset, the high word at offset + 4");
	rc = pktstats_read64(dev, PKTSTATS_REGISTER_SPACE - 8, &v64);
	TAP_RC(rc, 0, pktstats_error(dev), "mmap: read64 of the last two words");

	/* Bounds and alignment, before any access. */
	rc = pktstats_read32(dev, PKTSTATS_REGISTER_SPACE, &v);
	TAP_RC(rc, -EFAULT, pktstats_error(dev),
	       "read32 at the end of the register space: -EFAULT");
	TAP_HAS(pktstats_error(dev), "read 0x00010000", "the detail names the access");
	rc = pktstats_read32(dev, 0xfffffffc, &v);
	TAP_RC(rc, -EFAULT, pktstats_error(dev), "read32 at 0xfffffffc: -EFAULT");
	rc = pktstats_write32(dev, PKTSTATS_REGISTER_SPACE, 1);
	TAP_RC(rc, -EFAULT, pktstats_error(dev),
	       "write32 at the end of the register space: -EFAULT");
	rc = pktstats_read64(dev, PKTSTATS_REGISTER_SPACE - 4, &v64);
	TAP_RC(rc, -EFAULT, pktstats_error(dev), "read64 whose high word is beyond: -EFAULT");
	rc = pktstats_write64(dev, 0xfffffffc, 1);
	TAP_RC(rc, -EFAULT, pktstats_error(dev), "write64 at 0xfffffffc (wraps): -EFAULT");
	rc = pktstats_read32(dev, 0x1002, &v);
	TAP_RC(rc, -EINVAL, pktstats_error(dev), "read32 at 0x1002: -EINVAL");
	TAP_HAS(pktstats_error(dev), "multiple of 4", "the detail says why");
	rc = pktstats_write32(dev, 0x1001, 1);
	TAP_RC(rc, -EINVAL, pktstats_error(dev), "write32 at 0x1001: -EINVAL");
	rc = pktstats_read64(dev, 0x1022, &v64);
	TAP_RC(rc, -EINVAL, pktstats_error(dev), "read64 at 0x1022: -EINVAL");
	rc = pktstats_read32(dev, 0, NULL);
	TAP_RC(rc, -EINVAL, pktstats_error(dev), "read32 into NULL: -EINVAL");
	rc = pktstats_read32(NULL, 0, &v);
	TAP_RC(rc, -EINVAL, NULL, "read32 on a NULL handle: -EINVAL");

	/* All ones: genuine while id.magic answers; the device is gone when it reads all ones. */
	put32(bar, PKTSTATS_EVCAP_DESTINATION_IP, 0xffffffff);
	rc = pktstats_read32(dev, PKTSTATS_EVCAP_DESTINATION_IP, &v);
	tap_ok(rc == 0 && v == 0xffffffff, "a register that reads 0xffffffff is returned as is");
	put32(bar, PKTSTATS_ID_MAGIC, 0xffffffff);
	v = 0x12345678;
	rc = pktstats_read32(dev, PKTSTATS_EVCAP_DESTINATION_IP, &v);
	TAP_RC(rc, -ENODEV, pktstats_error(dev), "0xffffffff with id.magic 0xffffffff: -ENODEV");
	tap_ok(v == 0x12345678, "the value is not stored when the device is gone");
	TAP_HAS(pktstats_error(dev), "gone", "the detail says the device is gone");
	put32(bar, PKTSTATS_EVCAP_EVENTS_SENT_HI, 0xffffffff);
	rc = pktstats_read64(dev, PKTSTATS_EVCAP_EVENTS_SENT, &v64);
	TAP_RC(rc, -ENODEV, pktstats_error(dev),
	       "read64 with an all-ones word, device gone: -ENODEV");
	rc = pktstats_read32(dev, PKTSTATS_EVCAP_UDP_DESTINATION_PORT, &v);
	tap_ok(rc == 0 && v == 0xa1b2c3d4, "a read that is not all ones needs no confirmation");
	pktstats_close(dev);

	/* The explicit prefix selects the same backend. */
	make_good_bar(bar, "bar_prefix");
	snprintf(device, sizeof device, "mmap:%s", bar);
	rc = pktstats_open(device, 0, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "mmap:PATH opens");
	tap_ok(pktstats_backend(dev) == PKTSTATS_BACKEND_MMAP, "mmap:PATH selects mmap");
	pktstats_close(dev);
	pktstats_close(NULL);
}

static void test_identity_failures(void)
{
	char bar[PATH_MAX], error[PKTSTATS_ERROR_MAX];
	struct pktstats_dev *dev = (struct pktstats_dev *)&dev; /* must be set to NULL */
	struct pktstats_identity id;
	uint32_t v = 0;
	int rc;

	make_bar(bar, "bar_magic", PKTSTATS_REGISTER_SPACE, 0x12345678,
		 PKTSTATS_ID_DESIGN_VERSION_VALUE);
	rc = pktstats_open(bar, 0, &dev, error, sizeof error);
	TAP_RC(rc, -EPROTO, error, "wrong magic: -EPROTO");
	tap_ok(dev == NULL, "a failed open leaves the handle NULL");
	TAP_HAS(error, "0x12345678", "the detail shows the magic read");
	TAP_HAS(error, "not a pktstats device", "the detail says what it means");

	make_bar(bar, "bar_gone", PKTSTATS_REGISTER_SPACE, 0xffffffff, 0xffffffff);
	rc = pktstats_open(bar, 0, &dev, error, sizeof error);
	TAP_RC(rc, -ENODEV, error, "magic 0xffffffff: -ENODEV");
	TAP_HAS(error, "no device answers", "the detail says no device answers");

	make_bar(bar, "bar_major", PKTSTATS_REGISTER_SPACE, PKTSTATS_MAGIC,
		 PKTSTATS_ID_DESIGN_VERSION_VALUE + 0x10000);
	rc = pktstats_open(bar, 0, &dev, error, sizeof error);
	TAP_RC(rc, -EPROTO, error, "another design version major: -EPROTO");
	TAP_HAS(error, "design version", "the detail names the design version");

	make_bar(bar, "bar_minor", PKTSTATS_REGISTER_SPACE, PKTSTATS_MAGIC,
		 PKTSTATS_ID_DESIGN_VERSION_VALUE + 5);
	rc = pktstats_open(bar, 0, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "a newer minor design version opens");
	tap_ok(rc == 0 && pktstats_identity(dev, &id) == 0 &&
		       id.minor == (uint16_t)(PKTSTATS_ID_DESIGN_VERSION_VALUE + 5),
	       "and reports its minor version");
	pktstats_close(dev);

	make_bar(bar, "bar_small", PKTSTATS_REGISTER_SPACE - 4, PKTSTATS_MAGIC,
		 PKTSTATS_ID_DESIGN_VERSION_VALUE);
	rc = pktstats_open(bar, 0, &dev, error, sizeof error);
	TAP_RC(rc, -ENXIO, error, "a file 4 bytes short of the register space: -ENXIO");
	TAP_HAS(error, "smaller than the register space", "the detail says it is too small");
	make_bar(bar, "bar_empty", 0, 0, 0);
	rc = pktstats_open(bar, 0, &dev, error, sizeof error);
	TAP_RC(rc, -ENXIO, error, "an empty file: -ENXIO");
	make_bar(bar, "bar_large", 4 * PKTSTATS_REGISTER_SPACE, PKTSTATS_MAGIC,
		 PKTSTATS_ID_DESIGN_VERSION_VALUE);
	rc = pktstats_open(bar, 0, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "a file larger than the register space (a large BAR) opens");
	pktstats_close(dev);

	/* Register debugging: no identity check, all ones returned as they are. */
	make_bar(bar, "bar_debug", PKTSTATS_REGISTER_SPACE, 0xffffffff, 0xffffffff);
	rc = pktstats_open(bar, PKTSTATS_OPEN_NO_IDENTITY, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "PKTSTATS_OPEN_NO_IDENTITY opens a device that fails the check");
	if (rc == 0) {
		rc = pktstats_identity(dev, &id);
		TAP_RC(rc, -ENODATA, NULL, "pktstats_identity() without the check: -ENODATA");
		rc = pktstats_read32(dev, PKTSTATS_ID_MAGIC, &v);
		tap_ok(rc == 0 && v == 0xffffffff, "without the check, 0xffffffff is returned");
		pktstats_close(dev);
	}

	rc = pktstats_open(bar, 0x80, &dev, error, sizeof error);
	TAP_RC(rc, -EINVAL, error, "unknown flags: -EINVAL");
	rc = pktstats_open(bar, 0, NULL, error, sizeof error);
	TAP_RC(rc, -EINVAL, error, "NULL handle pointer: -EINVAL");
	rc = pktstats_open(NULL, 0, &dev, error, sizeof error);
	TAP_RC(rc, -EINVAL, error, "NULL device: -EINVAL");
	rc = pktstats_open(bar, 0x80, &dev, NULL, 0);
	TAP_RC(rc, -EINVAL, NULL, "no error buffer is fine");
	tap_ok(pktstats_identity(NULL, &id) == -EINVAL && pktstats_backend(NULL) == 0 &&
		       strcmp(pktstats_description(NULL), "") == 0 &&
		       strcmp(pktstats_error(NULL), "") == 0 &&
		       strcmp(pktstats_backend_name((enum pktstats_backend)0), "unknown") == 0,
	       "accessors accept NULL");
}

static void test_paths(void)
{
	char path[PATH_MAX], error[PKTSTATS_ERROR_MAX];
	struct pktstats_dev *dev = NULL;
	int rc;

	path_in_tmp(path, "no_such_file");
	rc = pktstats_open(path, 0, &dev, error, sizeof error);
	TAP_RC(rc, -ENOENT, error, "a path that does not exist: -ENOENT");
	TAP_HAS(error, strerror(ENOENT), "the detail is the system's reason");

	rc = pktstats_open(tmpdir, 0, &dev, error, sizeof error);
	TAP_RC(rc, -ENODEV, error, "a directory: -ENODEV");
	TAP_HAS(error, "directory", "the detail says it is a directory");

	path_in_tmp(path, "fifo");
	if (mkfifo(path, 0600) == 0) {
		rc = pktstats_open(path, 0, &dev, error, sizeof error);
		TAP_RC(rc, -ENODEV, error, "a FIFO: -ENODEV (not opened, so no hang)");
	}

	rc = pktstats_open("/sys/bus/pci/devices/ffff:ff:1f.7/resource0", 0, &dev, error,
			   sizeof error);
	TAP_RC(rc, -ENOENT, error, "a PCI device that does not exist: -ENOENT");
	rc = pktstats_open("pci:ffff:ff:1f.7,bar3", 0, &dev, error, sizeof error);
	TAP_RC(rc, -ENOENT, error, "pci:ADDR that does not exist: -ENOENT");
	TAP_HAS(error, "/sys/bus/pci/devices/ffff:ff:1f.7/resource3",
		"the detail has the sysfs path");
}

/* ------------------------------------------------------------------------------------------ */
/* chardev backend */

static void test_chardev(void)
{
	char bar[PATH_MAX], device[PATH_MAX + 16], error[PKTSTATS_ERROR_MAX];
	struct pktstats_dev *dev = NULL;
	struct pktstats_identity id;
	uint32_t v = 0;
	uint64_t v64 = 0;
	int rc;

	/* A register file shorter than the register space: reads beyond it are short. */
	make_bar(bar, "chardev_file", 0x2000, PKTSTATS_MAGIC, PKTSTATS_ID_DESIGN_VERSION_VALUE);
	put32(bar, PKTSTATS_EVCAP_UDP_SOURCE_PORT, 0x00006999);
	snprintf(device, sizeof device, "chardev:%s", bar);
	rc = pktstats_open(device, 0, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "chardev:PATH on a regular file opens");
	if (rc < 0)
		return;
	tap_ok(pktstats_backend(dev) == PKTSTATS_BACKEND_CHARDEV, "chardev:PATH selects chardev");
	tap_ok(pktstats_identity(dev, &id) == 0 && id.git_hash == TEST_GIT_HASH,
	       "chardev: identity read with pread");
	rc = pktstats_read32(dev, PKTSTATS_EVCAP_UDP_SOURCE_PORT, &v);
	tap_ok(rc == 0 && v == 0x6999, "chardev: read32 at the offset");
	rc = pktstats_write32(dev, PKTSTATS_EVCAP_UDP_SOURCE_PORT, 0xa1b2c3d4);
	tap_ok(rc == 0 && get32(bar, PKTSTATS_EVCAP_UDP_SOURCE_PORT) == 0xa1b2c3d4,
	       "chardev: write32 at the offset, little-endian");
	rc = pktstats_write64(dev, PKTSTATS_EVCAP_SOURCE_MAC, 0x0000a0b0c0d0e0f0ull);
	tap_ok(rc == 0 && get32(bar, PKTSTATS_EVCAP_SOURCE_MAC_LO) == 0xc0d0e0f0 &&
		       get32(bar, PKTSTATS_EVCAP_SOURCE_MAC_HI) == 0x0000a0b0,
	       "chardev: write64 low word at offset, high at offset + 4");
	rc = pktstats_read64(dev, PKTSTATS_EVCAP_SOURCE_MAC, &v64);
	tap_ok(rc == 0 && v64 == 0x0000a0b0c0d0e0f0ull, "chardev: read64");
	rc = pktstats_read32(dev, PKTSTATS_SWITCH_BASE, &v);
	TAP_RC(rc, -EIO, pktstats_error(dev), "chardev: a short pread (end of file): -EIO");
	TAP_HAS(pktstats_error(dev), "0 of 4 bytes", "the detail says how short");
	rc = pktstats_read32(dev, 0x1003, &v);
	TAP_RC(rc, -EINVAL, pktstats_error(dev), "chardev: unaligned: -EINVAL");
	rc = pktstats_write32(dev, PKTSTATS_REGISTER_SPACE + 4, 0);
	TAP_RC(rc, -EFAULT, pktstats_error(dev), "chardev: beyond the register space: -EFAULT");
	pktstats_close(dev);

	/* Real character devices select chardev by their file type. */
	rc = pktstats_open("/dev/zero", 0, &dev, error, sizeof error);
	TAP_RC(rc, -EPROTO, error, "/dev/zero (chardev, reads zeros): wrong magic, -EPROTO");
	TAP_HAS(error, "0x00000000", "the detail shows the zero magic");
	rc = pktstats_open("/dev/null", 0, &dev, error, sizeof error);
	TAP_RC(rc, -EIO, error, "/dev/null (chardev, reads nothing): -EIO");
	TAP_HAS(error, "pread", "the detail says pread came up short (it went to chardev)");
	rc = pktstats_open("/dev/zero", PKTSTATS_OPEN_NO_IDENTITY, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "/dev/zero opens without the identity check");
	if (rc == 0) {
		tap_ok(pktstats_backend(dev) == PKTSTATS_BACKEND_CHARDEV,
		       "a character device path selects chardev");
		TAP_HAS(pktstats_description(dev), "/dev/zero", "the description names it");
		pktstats_close(dev);
	}
}

/* ------------------------------------------------------------------------------------------ */
/* netdev backend */

static void test_netdev_encoding(void)
{
	struct ifreq ifr;
	struct pktstats_netdev_reg arg;
	unsigned long request = 0;
	bool tail_zero = true;
	int rc;

	memset(&ifr, 0xa5, sizeof ifr);
	memset(&arg, 0xa5, sizeof arg);
	rc = pktstats_netdev_request("nf0", false, 0x1044, 0xdeadbeef, &ifr, &arg, &request);
	tap_ok(rc == 0 && request == 0x89F0 && request == SIOCDEVPRIVATE,
	       "netdev read: request SIOCDEVPRIVATE (0x89f0, NetFPGA-1G SIOCREGREAD), got 0x%lx",
	       request);
	for (size_t i = strlen("nf0"); i < sizeof ifr.ifr_name; i++)
		tail_zero = tail_zero && ifr.ifr_name[i] == 0;
	tap_ok(strcmp(ifr.ifr_name, "nf0") == 0 && tail_zero,
	       "netdev read: ifr_name is the interface, NUL-padded");
	tap_ok(ifr.ifr_data == (char *)&arg && arg.reg == 0x1044 && arg.val == 0,
	       "netdev read: ifr_data points at {reg = offset, val = 0}");
	tap_ok(sizeof arg == 8 && offsetof(struct pktstats_netdev_reg, reg) == 0 &&
		       offsetof(struct pktstats_netdev_reg, val) == 4,
	       "netdev: the argument is {u32 reg; u32 val}, as NetFPGA's struct nf2reg");

	rc = pktstats_netdev_request("nf0", true, 0x2010, 0xdeadbeef, &ifr, &arg, &request);
	tap_ok(rc == 0 && request == 0x89F1 && request == SIOCDEVPRIVATE + 1,
	       "netdev write: request SIOCDEVPRIVATE + 1 (NetFPGA-1G SIOCREGWRITE), got 0x%lx",
	       request);
	tap_ok(ifr.ifr_data == (char *)&arg && arg.reg == 0x2010 && arg.val == 0xdeadbeef,
	       "netdev write: {reg = offset, val = value}");

	rc = pktstats_netdev_request("fifteen_chars_x", false, 0, 0, &ifr, &arg, &request);
	tap_ok(rc == 0 && strcmp(ifr.ifr_name, "fifteen_chars_x") == 0,
	       "netdev: a 15-byte name fits");
	rc = pktstats_netdev_request("sixteen_chars_xx", false, 0, 0, &ifr, &arg, &request);
	TAP_RC(rc, -EINVAL, NULL, "netdev: a 16-byte name: -EINVAL");
	rc = pktstats_netdev_request("", false, 0, 0, &ifr, &arg, &request);
	TAP_RC(rc, -EINVAL, NULL, "netdev: an empty name: -EINVAL");
	rc = pktstats_netdev_request(NULL, false, 0, 0, &ifr, &arg, &request);
	TAP_RC(rc, -EINVAL, NULL, "netdev: a NULL name: -EINVAL");
}

static void test_netdev_open(void)
{
	char error[PKTSTATS_ERROR_MAX];
	struct pktstats_dev *dev = NULL;
	int rc;

	rc = pktstats_open("netdev:nosuchif0", 0, &dev, error, sizeof error);
	TAP_RC(rc, -ENODEV, error, "netdev: an interface that does not exist: -ENODEV");
	rc = pktstats_open("nosuchif0", 0, &dev, error, sizeof error);
	TAP_RC(rc, -ENODEV, error, "a bare unknown name: -ENODEV");
	TAP_HAS(error, "no such network interface", "the detail says what was tried");

	if (if_nametoindex("lo") == 0) {
		tap_ok(true, "# SKIP no loopback interface here");
		return;
	}
	/* lo has no register ioctls: the identity read fails with the kernel's error. */
	rc = pktstats_open("lo", 0, &dev, error, sizeof error);
	tap_ok(rc < 0 && rc != -ENODEV && rc != -EINVAL && dev == NULL,
	       "netdev: lo is found but has no register ioctls: %d (%s)", rc, error);
	TAP_HAS(error, "ioctl on lo", "the detail names the ioctl and interface");
	rc = pktstats_open("netdev:lo", PKTSTATS_OPEN_NO_IDENTITY, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "netdev:lo opens without the identity check");
	if (rc == 0) {
		uint32_t v;

		tap_ok(pktstats_backend(dev) == PKTSTATS_BACKEND_NETDEV, "lo selects netdev");
		rc = pktstats_write32(dev, 0x1044, 1);
		tap_ok(rc < 0, "netdev: a write on lo fails cleanly (%d: %s)", rc,
		       pktstats_error(dev));
		rc = pktstats_read32(dev, 0x1044, &v);
		tap_ok(rc < 0, "netdev: a read on lo fails cleanly (%d)", rc);
		pktstats_close(dev);
	}
}

/* ------------------------------------------------------------------------------------------ */
/* 64-bit order and the all-ones rule, on a backend that records every access */

struct fake_access {
	char op; /* 'R' or 'W' */
	uint32_t offset, value;
};
static struct fake_access fake_log[16];
static unsigned fake_log_n;
static uint32_t fake_magic;
static bool fake_closed;

static int fake_read32(struct pktstats_dev *dev, uint32_t offset, uint32_t *value)
{
	(void)dev;
	/* id.magic as set by the test, an all-ones register, and a pattern elsewhere. */
	if (offset == PKTSTATS_ID_MAGIC)
		*value = fake_magic;
	else if (offset == PKTSTATS_EVCAP_DESTINATION_IP)
		*value = 0xffffffff;
	else
		*value = offset ^ 0x5a5a0000;
	if (fake_log_n < 16)
		fake_log[fake_log_n++] = (struct fake_access){'R', offset, *value};
	return 0;
}

static int fake_write32(struct pktstats_dev *dev, uint32_t offset, uint32_t value)
{
	(void)dev;
	if (fake_log_n < 16)
		fake_log[fake_log_n++] = (struct fake_access){'W', offset, value};
	return 0;
}

static void fake_close(struct pktstats_dev *dev)
{
	(void)dev;
	fake_closed = true;
}

static const struct pktstats_backend_ops fake_ops = {
	.kind = PKTSTATS_BACKEND_MMAP,
	.read32 = fake_read32,
	.write32 = fake_write32,
	.close = fake_close,
};

static void test_64bit_order(void)
{
	struct pktstats_dev *dev = calloc(1, sizeof *dev);
	uint64_t v64 = 0;
	uint32_t v = 0;
	int rc;

	dev->ops = &fake_ops;
	dev->fd = -1;
	dev->identity_checked = true;
	fake_magic = PKTSTATS_MAGIC;

	fake_log_n = 0;
	rc = pktstats_write64(dev, 0x1020, 0x1122334455667788ull);
	tap_ok(rc == 0 && fake_log_n == 2 && fake_log[0].op == 'W' &&
		       fake_log[0].offset == 0x1020 && fake_log[0].value == 0x55667788 &&
		       fake_log[1].op == 'W' && fake_log[1].offset == 0x1024 &&
		       fake_log[1].value == 0x11223344,
	       "write64: low word first (shadow), then the high word (commit)");
	fake_log_n = 0;
	rc = pktstats_read64(dev, 0x1020, &v64);
	tap_ok(rc == 0 && fake_log_n == 2 && fake_log[0].op == 'R' &&
		       fake_log[0].offset == 0x1020 && fake_log[1].op == 'R' &&
		       fake_log[1].offset == 0x1024 &&
		       v64 == ((uint64_t)(0x1024 ^ 0x5a5a0000) << 32 | (0x1020 ^ 0x5a5a0000)),
	       "read64: low word first (latches the high word), then the high word");

	fake_log_n = 0;
	rc = pktstats_read32(dev, PKTSTATS_EVCAP_DESTINATION_IP, &v);
	tap_ok(rc == 0 && v == 0xffffffff && fake_log_n == 2 &&
		       fake_log[1].offset == PKTSTATS_ID_MAGIC,
	       "all ones: confirmed by one read of id.magic, then returned");
	fake_log_n = 0;
	rc = pktstats_read32(dev, PKTSTATS_EVCAP_UDP_SOURCE_PORT, &v);
	tap_ok(rc == 0 && fake_log_n == 1, "other values: one read only");
	fake_magic = 0xffffffff;
	rc = pktstats_read32(dev, PKTSTATS_EVCAP_DESTINATION_IP, &v);
	TAP_RC(rc, -ENODEV, pktstats_error(dev), "all ones, and id.magic too: -ENODEV");
	fake_log_n = 0;
	dev->identity_checked = false;
	rc = pktstats_read32(dev, PKTSTATS_EVCAP_DESTINATION_IP, &v);
	tap_ok(rc == 0 && v == 0xffffffff && fake_log_n == 1,
	       "without an identity check, all ones is returned unconfirmed");

	fake_closed = false;
	pktstats_close(dev);
	tap_ok(fake_closed, "pktstats_close() calls the backend's close");
}

/* ------------------------------------------------------------------------------------------ */
/* Simulator backend against a scripted server */

/*
 * A server on a Unix socket at path, in a child process: it accepts one connection, answers
 * the n-th request line with replies[n] and appends every request line to log_path; after the
 * last reply (replies end with NULL) it closes the connection and exits. A first reply of
 * NULL closes the connection at once. With delay_ms, the child creates the socket that much
 * later, while the client is already trying to connect; kill it when the client gave up.
 */
static pid_t fake_server_after(const char *path, const char *log_path,
			       const char *const *replies, long delay_ms)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	struct timespec delay = {.tv_sec = delay_ms / 1000, .tv_nsec = delay_ms % 1000 * 1000000};
	int listener = -1, conn, log_fd;
	pid_t pid;

	if (!delay_ms)
		unlink(path);
	set_sun_path(&addr, path);
	if (!delay_ms) {
		listener = socket(AF_UNIX, SOCK_STREAM, 0);
		if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 ||
		    listen(listener, 1) != 0) {
			perror(path);
			exit(2);
		}
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid > 0) {
		if (listener >= 0)
			close(listener);
		return pid;
	}
	if (delay_ms) {
		nanosleep(&delay, NULL);
		unlink(path);
		listener = socket(AF_UNIX, SOCK_STREAM, 0);
		if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 ||
		    listen(listener, 1) != 0)
			_exit(1);
	}
	conn = accept(listener, NULL, NULL);
	log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (conn < 0 || log_fd < 0)
		_exit(1);
	for (size_t i = 0; replies[i]; i++) {
		char line[512];
		size_t n = 0;

		while (n < sizeof line - 1 && read(conn, line + n, 1) == 1 && line[n] != '\n')
			n++;
		if (n == 0 || line[n] != '\n')
			break;
		if (write(log_fd, line, n + 1) < 0 ||
		    write(conn, replies[i], strlen(replies[i])) < 0 || write(conn, "\n", 1) < 0)
			break;
	}
	close(conn);
	_exit(0);
}

static pid_t fake_server(const char *path, const char *log_path, const char *const *replies)
{
	return fake_server_after(path, log_path, replies, 0);
}

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void read_file(const char *path, char *out, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, out, size - 1);

	out[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

static void test_sim_scripted(void)
{
	static const char *const identity_and_access[] = {"ok pktstats-sim 1 fake_core",
							  "ok 0x504b5453",
							  "ok 0x00010000",
							  "ok 0x0BADCAFE",
							  "ok",
							  "ok 0x00001234",
							  "ok 0x00000002",
							  "ok 0x00000001",
							  NULL};
	static const char *const errors[] = {"ok pktstats-sim 1 fake",
					     "error 1 syntax",
					     "error 2 unknown",
					     "error 3 range",
					     "error 4 unaligned",
					     "error 5 beyond",
					     "error 6 too long",
					     "error 7 incomplete",
					     "error 8 too many",
					     "error 10 slave error",
					     "error 11 decode error \x01 here",
					     "error 12 timeout",
					     "error 13 backend",
					     "error 99 new in a later version",
					     "ok 0x12",
					     "ok 0x00000000",
					     NULL};
	static const int error_codes[] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 99};
	static const int error_errnos[] = {EINVAL, EINVAL, ERANGE, EINVAL,    EFAULT, E2BIG, EINVAL,
					   EBUSY,  EIO,	   ENXIO,  ETIMEDOUT, EIO,    EIO};
	static const struct {
		const char *reply;
		int rc;
		const char *what;
	} hellos[] = {
		{"ok other-server 1 x", -EPROTO, "another server name"},
		{"ok pktstats-sim 2 pktstats_core", -EPROTO, "protocol version 2"},
		{"ok pktstats-sim 1", -EPROTO, "no design word"},
		{"error 8 too many clients (at most 32)", -EBUSY, "error 8 too many clients"},
		{"error 2 unknown command 'hello'", -EPROTO, "a server that does not know hello"},
		{"SSH-2.0-OpenSSH_9.6", -EPROTO, "not the protocol at all"},
	};
	char sock[PATH_MAX], log_path[PATH_MAX], device[PATH_MAX + 8], error[PKTSTATS_ERROR_MAX];
	static const char *const hello_only[] = {"ok pktstats-sim 1 fake", NULL};
	char log_text[1024], missing[PATH_MAX];
	struct pktstats_dev *dev = NULL;
	struct pktstats_identity id;
	long start, elapsed;
	uint32_t v = 0;
	uint64_t v64 = 0;
	pid_t pid;
	int rc;

	path_in_tmp(sock, "fake.sock");
	path_in_tmp(log_path, "fake.log");
	snprintf(device, sizeof device, "sim:%s", sock);

	/* Identity, then a write, a read and a 64-bit read: the exact request lines. */
	pid = fake_server(sock, log_path, identity_and_access);
	rc = pktstats_open(device, 0, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "sim: hello and the identity check pass on a conforming server");
	if (rc == 0) {
		tap_ok(pktstats_backend(dev) == PKTSTATS_BACKEND_SIM, "sim:PATH selects sim");
		TAP_HAS(pktstats_description(dev), "design fake_core",
			"sim: the description has the design from hello");
		tap_ok(pktstats_identity(dev, &id) == 0 && id.git_hash == 0x0badcafe,
		       "sim: git hash parsed from 'ok 0x0BADCAFE'");
		rc = pktstats_write32(dev, PKTSTATS_EVCAP_UDP_DESTINATION_PORT, 0x1234);
		TAP_RC(rc, 0, pktstats_error(dev), "sim: write answered 'ok'");
		rc = pktstats_read32(dev, PKTSTATS_EVCAP_UDP_DESTINATION_PORT, &v);
		tap_ok(rc == 0 && v == 0x1234, "sim: read answered 'ok 0x00001234'");
		rc = pktstats_read64(dev, PKTSTATS_EVCAP_EVENTS_SENT, &v64);
		tap_ok(rc == 0 && v64 == 0x0000000100000002ull, "sim: read64 from two replies");
		pktstats_close(dev);
	}
	waitpid(pid, NULL, 0);
	read_file(log_path, log_text, sizeof log_text);
	if (!tap_ok(strcmp(log_text, "hello\nread 0x00000008\nread 0x0000000c\nread 0x00000010\n"
				     "write 0x00001044 0x00001234\nread 0x00001044\n"
				     "read 0x00001068\nread 0x0000106c\n") == 0,
		    "sim: the request lines on the wire"))
		tap_diag("server saw:\n%s", log_text);

	/* Every error code maps to the protocol's errno; the reply is the detail. */
	pid = fake_server(sock, log_path, errors);
	rc = pktstats_open(device, PKTSTATS_OPEN_NO_IDENTITY, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "sim: open without the identity check");
	if (rc == 0) {
		for (size_t i = 0; i < sizeof error_codes / sizeof error_codes[0]; i++) {
			rc = pktstats_read32(dev, 0x1000, &v);
			TAP_RC(rc, -error_errnos[i], pktstats_error(dev),
			       "sim: 'error %d' maps to -%d", error_codes[i], error_errnos[i]);
		}
		TAP_HAS(pktstats_error(dev), "error 99 new in a later version",
			"sim: the detail quotes the simulator's reply");
		TAP_HAS(pktstats_error(dev), "read 0x00001000", "sim: and names the access");
		rc = pktstats_read32(dev, 0x1000, &v);
		TAP_RC(rc, -EPROTO, pktstats_error(dev),
		       "sim: a malformed value 'ok 0x12': -EPROTO");
		rc = pktstats_read32(dev, 0x1000, &v);
		TAP_RC(rc, -ENOTCONN, pktstats_error(dev),
		       "sim: after a protocol error the connection is given up: -ENOTCONN");
		pktstats_close(dev);
	}
	waitpid(pid, NULL, 0);

	pid = fake_server(sock, log_path,
			  (const char *const[]){"ok pktstats-sim 1 fake",
						"error 11 no block \x01 here", NULL});
	rc = pktstats_open(device, PKTSTATS_OPEN_NO_IDENTITY, &dev, error, sizeof error);
	if (rc == 0) {
		rc = pktstats_read32(dev, 0x3000, &v);
		TAP_HAS(pktstats_error(dev), "no block \\x01 here",
			"sim: control bytes in a reply are quoted as \\xNN");
		pktstats_close(dev);
	}
	waitpid(pid, NULL, 0);

	for (size_t i = 0; i < sizeof hellos / sizeof hellos[0]; i++) {
		pid = fake_server(sock, log_path, (const char *const[]){hellos[i].reply, NULL});
		rc = pktstats_open(device, 0, &dev, error, sizeof error);
		TAP_RC(rc, hellos[i].rc, error, "sim: hello answered by %s", hellos[i].what);
		waitpid(pid, NULL, 0);
	}
	pid = fake_server(sock, log_path, (const char *const[]){NULL});
	rc = pktstats_open(device, 0, &dev, error, sizeof error);
	TAP_RC(rc, -ENODEV, error, "sim: a server that closes at once: -ENODEV");
	waitpid(pid, NULL, 0);

	/* The server goes away: the next send hits a closed socket. Without MSG_NOSIGNAL that
	 * is SIGPIPE, which kills this test (and the plan comes up short). */
	pid = fake_server(sock, log_path, hello_only);
	rc = pktstats_open(device, PKTSTATS_OPEN_NO_IDENTITY, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "sim: open, then the server exits");
	waitpid(pid, NULL, 0);
	if (rc == 0) {
		rc = pktstats_write32(dev, PKTSTATS_EVCAP_UDP_DESTINATION_PORT, 1);
		TAP_RC(rc, -ENODEV, pktstats_error(dev),
		       "sim: write to a dead server: -ENODEV, no SIGPIPE");
		TAP_HAS(pktstats_error(dev), "closed the connection", "sim: the detail says so");
		rc = pktstats_read32(dev, PKTSTATS_EVCAP_UDP_DESTINATION_PORT, &v);
		TAP_RC(rc, -ENOTCONN, pktstats_error(dev), "sim: later calls: -ENOTCONN");
		pktstats_close(dev);
	}

	/* No server: nothing at the path, and a socket file nobody listens on. open waits about
	 * 3 s for a server to appear, then says so. */
	unlink(sock);
	start = now_ms();
	rc = pktstats_open(device, 0, &dev, error, sizeof error);
	elapsed = now_ms() - start;
	TAP_RC(rc, -ENOENT, error, "sim: no socket at the path: -ENOENT");
	TAP_HAS(error, "is pktstats-sim running", "sim: the detail suggests the cause");
	TAP_HAS(error, "waited 3 s", "sim: and says how long it waited");
	tap_ok(elapsed >= 2900 && elapsed < 6000, "sim: after about 3 s (%ld ms)", elapsed);
	start = now_ms();
	rc = pktstats_open(device, PKTSTATS_OPEN_NO_WAIT, &dev, error, sizeof error);
	elapsed = now_ms() - start;
	TAP_RC(rc, -ENOENT, error, "sim, PKTSTATS_OPEN_NO_WAIT: no socket at the path: -ENOENT");
	tap_ok(elapsed < 500 && !strstr(error, "waited"),
	       "sim, PKTSTATS_OPEN_NO_WAIT: at once (%ld ms), and the detail says no wait", elapsed);
	rc = pktstats_open(device, 0x4, &dev, error, sizeof error);
	TAP_RC(rc, -EINVAL, error, "an unknown open flag: -EINVAL");
	{
		struct sockaddr_un addr = {.sun_family = AF_UNIX};
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		set_sun_path(&addr, sock);
		if (fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0) {
			close(fd); /* the file stays, nobody listens: a simulator that died */
			rc = pktstats_open(device, 0, &dev, error, sizeof error);
			TAP_RC(rc, -ECONNREFUSED, error, "sim: a stale socket file: -ECONNREFUSED");
			rc = pktstats_open(sock, 0, &dev, error, sizeof error);
			TAP_RC(rc, -ECONNREFUSED, error,
			       "a socket path without sim: goes to the sim backend");
			/* A new server replaces the stale file while open waits. */
			pid = fake_server_after(sock, log_path, hello_only, 200);
			rc = pktstats_open(device, PKTSTATS_OPEN_NO_IDENTITY, &dev, error,
					   sizeof error);
			TAP_RC(rc, 0, error, "sim: a stale socket replaced 200 ms later: opens");
			pktstats_close(dev); /* NULL when open failed */
			if (rc < 0)
				kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		unlink(sock);
	}
	/* `pktstats-sim --socket P & pktstats -d sim:P ...`: the socket appears after open
	 * started. */
	pid = fake_server_after(sock, log_path, hello_only, 200);
	start = now_ms();
	rc = pktstats_open(device, PKTSTATS_OPEN_NO_IDENTITY, &dev, error, sizeof error);
	elapsed = now_ms() - start;
	TAP_RC(rc, 0, error, "sim: a socket created 200 ms after open started: opens");
	tap_ok(elapsed >= 150 && elapsed < 2000, "sim: as soon as it is there (%ld ms)", elapsed);
	pktstats_close(dev); /* NULL when open failed */
	if (rc < 0)
		kill(pid, SIGKILL); /* it would wait for a client for ever */
	waitpid(pid, NULL, 0);
	/* A directory that does not exist will not get a socket: no wait. */
	path_in_tmp(missing, "no_such_dir/fake.sock");
	snprintf(device, sizeof device, "sim:%s", missing);
	start = now_ms();
	rc = pktstats_open(device, 0, &dev, error, sizeof error);
	elapsed = now_ms() - start;
	TAP_RC(rc, -ENOENT, error, "sim: a socket in a missing directory: -ENOENT");
	tap_ok(elapsed < 500 && !strstr(error, "waited"),
	       "sim: at once, without waiting (%ld ms)", elapsed);
	snprintf(device, sizeof device, "sim:/%0*d", 120, 0);
	rc = pktstats_open(device, 0, &dev, error, sizeof error);
	TAP_RC(rc, -ENAMETOOLONG, error, "sim: a path longer than sun_path: -ENAMETOOLONG");
}

/* ------------------------------------------------------------------------------------------ */

static void remove_tmpdir(void)
{
	static const char *const names[] = {
		"bar_access", "bar_prefix", "bar_magic", "bar_gone", "bar_major", "bar_minor",
		"bar_small", "bar_empty", "bar_large", "bar_debug", "fifo", "chardev_file",
		"fake.sock", "fake.log",
	};
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		path_in_tmp(path, names[i]);
		unlink(path);
	}
	rmdir(tmpdir);
}

int main(void)
{
	const char *base = getenv("TMPDIR");

	/* The default action, whatever the parent set: a SIGPIPE must kill this test. */
	signal(SIGPIPE, SIG_DFL);
	/* Socket paths in it must fit in sun_path (108 bytes). */
	if (!base || !*base || strlen(base) > 64)
		base = "/tmp";
	snprintf(tmpdir, sizeof tmpdir, "%s/test_device.XXXXXX", base);
	if (!mkdtemp(tmpdir)) {
		perror(tmpdir);
		return 2;
	}
	test_parser();
	test_mmap_access();
	test_identity_failures();
	test_paths();
	test_chardev();
	test_netdev_encoding();
	test_netdev_open();
	test_64bit_order();
	test_sim_scripted();
	remove_tmpdir();
	return tap_done();
}
