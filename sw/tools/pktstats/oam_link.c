/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats tools: the packet socket on a CPU port's interface (oam_link.h).
 */
#define _DEFAULT_SOURCE /* struct ifreq, AF_PACKET */

#include <errno.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "oam_link.h"

/* ------------------------------------------------------------------------------------------ */
/* The packet socket */

int64_t monotonic_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int oam_link_open(struct oam_link *link, const char *ifname, char *error, size_t size)
{
	memset(link, 0, sizeof *link);
	link->fd = -1;
	if (strlen(ifname) >= IFNAMSIZ || !*ifname) {
		snprintf(error, size, "interface name '%s' is not 1..%d characters", ifname,
			 IFNAMSIZ - 1);
		return -EINVAL;
	}
	snprintf(link->name, sizeof link->name, "%s", ifname);
	/* protocol 0: nothing comes in until the bind below names the interface (created with
	 * ETH_P_ALL, the socket would take every interface's frames until then) */
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		int err = errno;
		snprintf(error, size, "%s: packet socket: %s%s", ifname, strerror(err),
			 err == EPERM ? " (needs CAP_NET_RAW: run as root)" : "");
		return -err;
	}
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
	if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0) {
		int err = errno;
		snprintf(error, size, "%s: %s", ifname, strerror(err));
		close(fd);
		return -err;
	}
	link->ifindex = ifr.ifr_ifindex;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) == 0)
		memcpy(link->mac, ifr.ifr_hwaddr.sa_data, 6);
	int one = 1;
	setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof one);
	setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
	struct sockaddr_ll address = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
		.sll_ifindex = link->ifindex,
	};
	if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) {
		int err = errno;
		snprintf(error, size, "%s: bind: %s", ifname, strerror(err));
		close(fd);
		return -err;
	}
	link->fd = fd;
	return 0;
}

void oam_link_close(struct oam_link *link)
{
	if (link->fd >= 0)
		close(link->fd);
	link->fd = -1;
}

int oam_link_send(struct oam_link *link, const uint8_t *frame, size_t len)
{
	struct sockaddr_ll address = {
		.sll_family = AF_PACKET,
		.sll_ifindex = link->ifindex,
		.sll_halen = 6,
	};
	memcpy(address.sll_addr, frame, 6);
	ssize_t sent = sendto(link->fd, frame, len, 0, (struct sockaddr *)&address, sizeof address);
	if (sent < 0)
		return -errno;
	return (size_t)sent == len ? 0 : -EIO;
}

int oam_link_read(struct oam_link *link, uint8_t *buf, size_t size, int64_t *realtime_ns)
{
	for (;;) {
		struct sockaddr_ll from;
		union {
			struct cmsghdr header;
			char space[CMSG_SPACE(sizeof(struct tpacket_auxdata)) +
				   CMSG_SPACE(sizeof(struct timespec))];
		} control;
		struct iovec iov = {.iov_base = buf + 4, .iov_len = size > 4 ? size - 4 : 0};
		struct msghdr msg = {
			.msg_name = &from,
			.msg_namelen = sizeof from,
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = &control,
			.msg_controllen = sizeof control,
		};
		ssize_t got = recvmsg(link->fd, &msg, MSG_DONTWAIT);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -errno;
		}
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		size_t len = (size_t)got;
		bool tagged = false;
		uint16_t tci = 0, tpid = ETH_P_8021Q;
		if (realtime_ns)
			*realtime_ns = 0;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPNS &&
			    realtime_ns) {
				struct timespec t;
				memcpy(&t, CMSG_DATA(c), sizeof t);
				*realtime_ns = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
			}
			if (c->cmsg_level != SOL_PACKET || c->cmsg_type != PACKET_AUXDATA)
				continue;
			struct tpacket_auxdata aux;
			memcpy(&aux, CMSG_DATA(c), sizeof aux);
			if (aux.tp_status & TP_STATUS_VLAN_VALID || aux.tp_vlan_tci) {
				tagged = true;
				tci = aux.tp_vlan_tci;
				if (aux.tp_status & TP_STATUS_VLAN_TPID_VALID)
					tpid = aux.tp_vlan_tpid;
			}
		}
		if (len < 12) {
			memmove(buf, buf + 4, len);
			return (int)len;
		}
		/* the MACs move 4 bytes forward; the tag goes between them and the EtherType */
		memmove(buf, buf + 4, 12);
		if (tagged && len + 4 <= size) {
			buf[12] = (uint8_t)(tpid >> 8);
			buf[13] = (uint8_t)tpid;
			buf[14] = (uint8_t)(tci >> 8);
			buf[15] = (uint8_t)tci;
			return (int)(len + 4);
		}
		memmove(buf + 12, buf + 16, len - 12);
		return (int)len;
	}
}

int oam_link_receive_or_stop(struct oam_link *link, uint8_t *buf, size_t size,
			     int64_t deadline_ns, int stop_fd)
{
	for (;;) {
		int64_t left = deadline_ns - monotonic_ns();
		if (left <= 0)
			return 0;
		struct pollfd p[2] = {{.fd = link->fd, .events = POLLIN},
				      {.fd = stop_fd, .events = POLLIN}}; /* -1: ignored by poll */
		int ready = poll(p, 2, (int)((left + 999999) / 1000000));
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (p[1].revents)
			return -ECANCELED;
		if (ready == 0)
			continue; /* the deadline is checked above */
		int got = oam_link_read(link, buf, size, NULL);
		if (got != 0)
			return got;
	}
}

int oam_link_receive(struct oam_link *link, uint8_t *buf, size_t size, int64_t deadline_ns)
{
	return oam_link_receive_or_stop(link, buf, size, deadline_ns, -1);
}
