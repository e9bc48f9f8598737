/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: keywords, the packet socket, delay series (oam_link.h).
 */
#define _DEFAULT_SOURCE /* struct ifreq, AF_PACKET */

#include <errno.h>
#include <inttypes.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "oam_link.h"
#include "output.h"

const char *parse_rate_gbps(const char *word, uint64_t *mbps)
{
	const char *dot = strchr(word, '.');
	size_t whole_len = dot ? (size_t)(dot - word) : strlen(word);
	char whole[24];
	if (whole_len == 0 || whole_len >= sizeof whole)
		return "not a rate in Gb/s (100, 2.5, 0.1)";
	memcpy(whole, word, whole_len);
	whole[whole_len] = '\0';
	uint64_t g, fraction = 0;
	const char *error = parse_number(whole, 0, 1000000, &g);
	if (error)
		return error;
	if (whole_len > 1 && whole[0] == '0' && (whole[1] == 'x' || whole[1] == 'X'))
		return "not a rate in Gb/s (100, 2.5, 0.1)";
	if (dot) {
		size_t digits = strlen(dot + 1);
		if (digits == 0 || digits > 3 || strspn(dot + 1, "0123456789") != digits)
			return "at most 3 decimals after '.' (a whole number of Mb/s)";
		for (size_t i = 0; i < 3; i++)
			fraction = fraction * 10 + (i < digits ? (uint64_t)(dot[1 + i] - '0') : 0);
	}
	if (g * 1000 + fraction == 0)
		return "the rate is 0";
	*mbps = g * 1000 + fraction;
	return NULL;
}

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
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
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

int oam_link_receive(struct oam_link *link, uint8_t *buf, size_t size, int64_t deadline_ns)
{
	for (;;) {
		int64_t left = deadline_ns - monotonic_ns();
		if (left <= 0)
			return 0;
		struct pollfd p = {.fd = link->fd, .events = POLLIN};
		int ready = poll(&p, 1, (int)((left + 999999) / 1000000));
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (ready == 0)
			continue; /* the deadline is checked above */
		int got = oam_link_read(link, buf, size, NULL);
		if (got != 0)
			return got;
	}
}

/* ------------------------------------------------------------------------------------------ */
/* Series */

int series_add(struct series *s, int64_t value)
{
	if (s->n == s->capacity) {
		size_t capacity = s->capacity ? 2 * s->capacity : 64;
		int64_t *values = realloc(s->values, capacity * sizeof *values);
		if (!values)
			return -ENOMEM;
		s->values = values;
		s->capacity = capacity;
	}
	s->values[s->n++] = value;
	return 0;
}

void series_free(struct series *s)
{
	free(s->values);
	*s = (struct series){0};
}

static int compare(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The value at rank ceil(p / 100 x n), 1-based, of the sorted values. */
static int64_t percentile(const int64_t *sorted, size_t n, unsigned p)
{
	size_t rank = (p * n + 99) / 100;
	return sorted[rank ? rank - 1 : 0];
}

bool series_figures(const struct series *s, struct series_figures *f)
{
	memset(f, 0, sizeof *f);
	if (s->n == 0)
		return false;
	int64_t *sorted = malloc(s->n * sizeof *sorted);
	if (!sorted)
		return false;
	memcpy(sorted, s->values, s->n * sizeof *sorted);
	qsort(sorted, s->n, sizeof *sorted, compare);
	__int128 sum = 0;
	for (size_t i = 0; i < s->n; i++)
		sum += sorted[i];
	f->n = s->n;
	f->min = sorted[0];
	f->max = sorted[s->n - 1];
	f->avg = (double)sum / (double)s->n;
	f->p50 = percentile(sorted, s->n, 50);
	f->p90 = percentile(sorted, s->n, 90);
	f->p99 = percentile(sorted, s->n, 99);
	free(sorted);
	return true;
}

void out_series(const char *key, const struct series *s)
{
	struct series_figures f;
	bool any = series_figures(s, &f);
	out_object_begin(key);
	out_uint("count", s->n, NULL);
	out_ns("min", f.min, any);
	if (any)
		out_real("avg", f.avg, 1);
	else
		out_string("avg", NULL);
	out_ns("max", f.max, any);
	out_ns("p50", f.p50, any);
	out_ns("p90", f.p90, any);
	out_ns("p99", f.p99, any);
	out_object_end();
}

void out_wire_time(const char *key, struct pktstats_wire_time t, bool present)
{
	if (!present) {
		out_string(key, NULL);
	} else if (out_is_json()) {
		out_object_begin(key);
		out_uint("seconds", t.seconds, NULL);
		out_uint("nanoseconds", t.nanoseconds, NULL);
		out_object_end();
	} else {
		char text[40];
		if (t.nanoseconds < 1000000000)
			snprintf(text, sizeof text, "%" PRIu32 ".%09" PRIu32, t.seconds, t.nanoseconds);
		else /* not a time: both numbers as they are */
			snprintf(text, sizeof text, "%" PRIu32 "s+%" PRIu32 "ns", t.seconds, t.nanoseconds);
		out_string(key, text);
	}
}

void out_ns(const char *key, int64_t value, bool present)
{
	if (present)
		out_int(key, value, NULL);
	else
		out_string(key, NULL);
}

const char *mac_text(const uint8_t mac[6], int slot)
{
	static char text[4][18];
	slot &= 3;
	format_mac(mac, text[slot], sizeof text[slot]);
	return text[slot];
}
