/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Netdev backend: NetFPGA-style register ioctls on a network interface (the board's driver
 * registers the ports as netdevs and answers SIOCDEVPRIVATE requests with register accesses).
 * The request numbers and argument layout are documented in device_internal.h. The encoding
 * is pktstats_netdev_request(), which the unit test checks without a device.
 */
#define _DEFAULT_SOURCE

#include "device_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

_Static_assert(PKTSTATS_SIOCREGREAD == SIOCDEVPRIVATE, "NetFPGA read is SIOCDEVPRIVATE");
_Static_assert(PKTSTATS_SIOCREGWRITE == SIOCDEVPRIVATE + 1, "NetFPGA write is SIOCDEVPRIVATE+1");
_Static_assert(sizeof(struct pktstats_netdev_reg) == 8, "{u32 reg; u32 val}, no padding");

int pktstats_netdev_request(const char *ifname, bool write, uint32_t offset, uint32_t value,
			    struct ifreq *ifr, struct pktstats_netdev_reg *arg,
			    unsigned long *request)
{
	size_t n;

	if (!ifname || !ifr || !arg || !request)
		return -EINVAL;
	n = strlen(ifname);
	if (n == 0 || n >= sizeof ifr->ifr_name)
		return -EINVAL;
	memset(ifr, 0, sizeof *ifr);
	memcpy(ifr->ifr_name, ifname, n + 1);
	arg->reg = offset;
	arg->val = write ? value : 0;
	ifr->ifr_data = (char *)arg;
	*request = write ? PKTSTATS_SIOCREGWRITE : PKTSTATS_SIOCREGREAD;
	return 0;
}

static int netdev_ioctl(struct pktstats_dev *dev, bool write, uint32_t offset, uint32_t *value)
{
	struct ifreq ifr;
	struct pktstats_netdev_reg arg;
	unsigned long request;
	char text[128];
	int r, err;

	r = pktstats_netdev_request(dev->ifname, write, offset, *value, &ifr, &arg, &request);
	if (r < 0)
		return pktstats_fail(dev, r, "bad interface name");
	if (ioctl(dev->fd, request, &ifr) != 0) {
		err = errno;
		return pktstats_fail(
			dev, -err, "%s ioctl on %s: %s%s",
			write ? "register write" : "register read", dev->ifname,
			pktstats_errno_text(err, text, sizeof text),
			err == EOPNOTSUPP || err == EINVAL || err == ENOTTY
				? " (the interface's driver has no NetFPGA register ioctls)"
				: "");
	}
	if (!write)
		*value = arg.val;
	return 0;
}

static int netdev_read32(struct pktstats_dev *dev, uint32_t offset, uint32_t *value)
{
	*value = 0;
	return netdev_ioctl(dev, false, offset, value);
}

static int netdev_write32(struct pktstats_dev *dev, uint32_t offset, uint32_t value)
{
	return netdev_ioctl(dev, true, offset, &value);
}

static void netdev_close(struct pktstats_dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

static const struct pktstats_backend_ops netdev_ops = {
	.kind = PKTSTATS_BACKEND_NETDEV,
	.read32 = netdev_read32,
	.write32 = netdev_write32,
	.close = netdev_close,
};

int pktstats_netdev_open(struct pktstats_dev *dev, const char *ifname)
{
	char text[128];
	int err;

	if (strlen(ifname) >= sizeof dev->ifname)
		return pktstats_fail(dev, -EINVAL, "interface name '%s' longer than %zu bytes",
				     ifname, sizeof dev->ifname - 1);
	if (if_nametoindex(ifname) == 0) {
		err = errno;
		return pktstats_fail(
			dev, -ENODEV,
			"no such network interface (%s), and not a path, PCI address or "
			"sim:PATH",
			pktstats_errno_text(err, text, sizeof text));
	}
	memcpy(dev->ifname, ifname, strlen(ifname) + 1);
	/* Any socket reaches a netdev's private ioctls; NetFPGA's tools used this one. */
	dev->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (dev->fd < 0) {
		err = errno;
		return pktstats_fail(dev, -err, "socket: %s",
				     pktstats_errno_text(err, text, sizeof text));
	}
	dev->ops = &netdev_ops;
	snprintf(dev->description, sizeof dev->description,
		 "network interface %s (netdev, NetFPGA register ioctls)", ifname);
	return 0;
}
