/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats collector resolution (pktstats/collector.h): route, interface and neighbour
 * lookups through rtnetlink with libnl-route-3.
 */
#define _DEFAULT_SOURCE /* struct timespec, nanosleep, IFF_UP */

#include <arpa/inet.h>
#include <errno.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/neighbour.h>
#include <netlink/route/nexthop.h>
#include <netlink/route/route.h>
#include <netlink/socket.h>

#include "pktstats/collector.h"

struct resolver {
	struct nl_sock *sock;
	char *error;
	size_t error_size;
	/* the route reply */
	bool route_found;
	int kernel_error; /* -errno of an NLMSG_ERROR reply, 0 if none */
	int ifindex;
	uint32_t gateway;     /* network order; 0 when on-link */
	uint32_t preferred_source; /* network order; 0 when the route has none */
};

static int fail(struct resolver *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct resolver *r, int err, const char *fmt, ...)
{
	if (r->error && r->error_size) {
		va_list args;
		va_start(args, fmt);
		vsnprintf(r->error, r->error_size, fmt, args);
		va_end(args);
	}
	return err;
}

static uint32_t ipv4_of(struct nl_addr *address)
{
	uint32_t value = 0;
	if (address && nl_addr_get_family(address) == AF_INET && nl_addr_get_len(address) == 4)
		memcpy(&value, nl_addr_get_binary_addr(address), 4);
	return value;
}

static void parse_route(struct nl_object *object, void *context)
{
	struct resolver *r = context;
	struct rtnl_route *route = (struct rtnl_route *)object;
	if (r->route_found || rtnl_route_get_nnexthops(route) < 1)
		return;
	struct rtnl_nexthop *hop = rtnl_route_nexthop_n(route, 0);
	r->route_found = true;
	r->ifindex = rtnl_route_nh_get_ifindex(hop);
	r->gateway = ipv4_of(rtnl_route_nh_get_gateway(hop));
	r->preferred_source = ipv4_of(rtnl_route_get_pref_src(route));
}

static int on_route(struct nl_msg *msg, void *context)
{
	nl_msg_parse(msg, parse_route, context);
	return NL_OK;
}

static int on_error(struct sockaddr_nl *peer, struct nlmsgerr *error, void *context)
{
	(void)peer;
	struct resolver *r = context;
	r->kernel_error = error->error;
	return NL_STOP;
}

/* `ip route get COLLECTOR [oif VIA]`, on a socket of its own: its callbacks are this
 * request's, and the caches keep libnl's defaults on the other socket. */
static int route_get(struct resolver *r, uint32_t collector, int via_ifindex)
{
	struct nl_sock *sock = nl_socket_alloc();
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_GETROUTE, 0);
	int err = sock && msg ? nl_connect(sock, NETLINK_ROUTE) : -NLE_NOMEM;
	struct rtmsg header = {.rtm_family = AF_INET, .rtm_dst_len = 32};
	if (err == 0)
		err = nlmsg_append(msg, &header, sizeof header, NLMSG_ALIGNTO);
	if (err == 0)
		err = nla_put_u32(msg, RTA_DST, collector);
	if (err == 0 && via_ifindex > 0)
		err = nla_put_u32(msg, RTA_OIF, (uint32_t)via_ifindex);
	if (err == 0) {
		nl_socket_modify_cb(sock, NL_CB_VALID, NL_CB_CUSTOM, on_route, r);
		nl_socket_modify_err_cb(sock, NL_CB_CUSTOM, on_error, r);
		err = nl_send_auto(sock, msg);
	}
	if (err >= 0)
		err = nl_recvmsgs_default(sock);
	nlmsg_free(msg);
	nl_socket_free(sock);
	if (r->kernel_error == -ENETUNREACH || (err >= 0 && !r->kernel_error && !r->route_found))
		return -ENETUNREACH;
	if (r->kernel_error)
		return r->kernel_error;
	if (err < 0)
		return fail(r, -EIO, "route lookup: %s", nl_geterror(err));
	return 0;
}

struct address_search {
	int ifindex;
	uint32_t found; /* network order */
};

static void first_ipv4(struct nl_object *object, void *context)
{
	struct address_search *search = context;
	struct rtnl_addr *address = (struct rtnl_addr *)object;
	if (!search->found && rtnl_addr_get_ifindex(address) == search->ifindex &&
	    rtnl_addr_get_family(address) == AF_INET)
		search->found = ipv4_of(rtnl_addr_get_local(address));
}

/* The neighbour entry's MAC when the kernel holds a usable one. */
static bool neighbour_mac(struct resolver *r, int ifindex, uint32_t ip, uint8_t mac[6])
{
	struct nl_cache *neighbours = NULL;
	bool found = false;
	if (rtnl_neigh_alloc_cache(r->sock, &neighbours) < 0)
		return false;
	struct nl_addr *address = nl_addr_build(AF_INET, &ip, 4);
	struct rtnl_neigh *neighbour = address ? rtnl_neigh_get(neighbours, ifindex, address) : NULL;
	if (neighbour) {
		int usable = NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT |
			     NUD_NOARP;
		struct nl_addr *link_address = rtnl_neigh_get_lladdr(neighbour);
		if ((rtnl_neigh_get_state(neighbour) & usable) && link_address &&
		    nl_addr_get_len(link_address) == 6) {
			memcpy(mac, nl_addr_get_binary_addr(link_address), 6);
			found = true;
		}
		rtnl_neigh_put(neighbour);
	}
	nl_addr_put(address);
	nl_cache_free(neighbours);
	return found;
}

/* An empty datagram to the next hop's discard port makes the kernel resolve its MAC. */
static void probe(uint32_t ip, const char *interface)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	/* Best effort: binding to the interface needs CAP_NET_RAW; the route leads there anyway. */
	setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, interface, (socklen_t)strlen(interface));
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(9)};
	to.sin_addr.s_addr = ip;
	sendto(fd, "", 0, MSG_DONTWAIT, (struct sockaddr *)&to, sizeof to);
	close(fd);
}

static int resolve(struct resolver *r, const char *collector, const char *via,
		   unsigned timeout_ms, struct pktstats_collector_path *path)
{
	struct in_addr collector_address;
	if (!collector || inet_pton(AF_INET, collector, &collector_address) != 1)
		return fail(r, -EINVAL, "collector '%s' is not an IPv4 address (a.b.c.d)",
			    collector ? collector : "");
	if (via && (!*via || strlen(via) >= IF_NAMESIZE))
		return fail(r, -EINVAL, "'%s' is not an interface name", via);

	int err = nl_connect(r->sock, NETLINK_ROUTE);
	if (err < 0)
		return fail(r, -EIO, "rtnetlink: %s", nl_geterror(err));
	struct nl_cache *links = NULL;
	if ((err = rtnl_link_alloc_cache(r->sock, AF_UNSPEC, &links)) < 0)
		return fail(r, -EIO, "interfaces: %s", nl_geterror(err));

	int via_ifindex = 0;
	if (via && (via_ifindex = rtnl_link_name2i(links, via)) <= 0) {
		nl_cache_free(links);
		return fail(r, -ENODEV, "no interface %s", via);
	}
	uint32_t collector_ip = collector_address.s_addr;
	if ((err = route_get(r, collector_ip, via_ifindex)) < 0) {
		nl_cache_free(links);
		if (err == -ENETUNREACH)
			return fail(r, err, "no route to %s%s%s", collector, via ? " through " : "",
				    via ? via : "");
		if (r->error && !r->error[0])
			fail(r, err, "route to %s: %s", collector, strerror(-err));
		return err;
	}

	struct rtnl_link *link = rtnl_link_get(links, r->ifindex);
	if (!link) {
		nl_cache_free(links);
		return fail(r, -ENODEV, "the route to %s leaves through interface %d, which is gone",
			    collector, r->ifindex);
	}
	char name[IF_NAMESIZE];
	snprintf(name, sizeof name, "%s", rtnl_link_get_name(link));
	bool up = rtnl_link_get_flags(link) & IFF_UP;
	bool loopback = rtnl_link_get_flags(link) & IFF_LOOPBACK;
	struct nl_addr *link_address = rtnl_link_get_addr(link);
	bool has_mac = link_address && nl_addr_get_len(link_address) == 6;
	if (has_mac)
		memcpy(path->source_mac, nl_addr_get_binary_addr(link_address), 6);
	rtnl_link_put(link);
	nl_cache_free(links);
	if (!up)
		return fail(r, -ENODEV, "interface %s is down", name);
	if (loopback)
		return fail(r, -EADDRNOTAVAIL, "%s is reached through the loopback interface %s, "
			    "not a network", collector, name);
	if (!has_mac)
		return fail(r, -EADDRNOTAVAIL, "interface %s has no Ethernet MAC address", name);

	uint32_t source = r->preferred_source;
	if (!source) {
		struct nl_cache *addresses = NULL;
		if ((err = rtnl_addr_alloc_cache(r->sock, &addresses)) < 0)
			return fail(r, -EIO, "addresses: %s", nl_geterror(err));
		struct address_search search = {.ifindex = r->ifindex};
		nl_cache_foreach(addresses, first_ipv4, &search);
		nl_cache_free(addresses);
		source = search.found;
	}
	if (!source)
		return fail(r, -EADDRNOTAVAIL, "interface %s has no IPv4 address", name);

	uint32_t next_hop = r->gateway ? r->gateway : collector_ip;
	char next_hop_text[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &next_hop, next_hop_text, sizeof next_hop_text);
	bool found = neighbour_mac(r, r->ifindex, next_hop, path->next_hop_mac);
	const unsigned step_ms = 20;
	for (unsigned waited = 0; !found && waited < timeout_ms; waited += step_ms) {
		/* Again every 200 ms: a first probe sent while the link came up can be lost. */
		if (waited % 200 == 0)
			probe(next_hop, name);
		struct timespec pause = {.tv_nsec = step_ms * 1000000L};
		nanosleep(&pause, NULL);
		found = neighbour_mac(r, r->ifindex, next_hop, path->next_hop_mac);
	}
	if (!found)
		return fail(r, -EHOSTUNREACH, "no MAC address for %s%s on %s: it does not answer "
			    "ARP (after %u ms)", next_hop_text, r->gateway ? " (the gateway)" : "",
			    name, timeout_ms);

	snprintf(path->interface, sizeof path->interface, "%s", name);
	path->source_ip = ntohl(source);
	path->collector_ip = ntohl(collector_ip);
	path->next_hop_ip = ntohl(next_hop);
	return 0;
}

int pktstats_collector_resolve(const char *collector, const char *via, unsigned timeout_ms,
			       struct pktstats_collector_path *path, char *error,
			       size_t error_size)
{
	struct resolver r = {.error = error, .error_size = error_size};
	if (error && error_size)
		error[0] = '\0';
	if (!path)
		return fail(&r, -EINVAL, "no result buffer");
	memset(path, 0, sizeof *path);
	r.sock = nl_socket_alloc();
	if (!r.sock)
		return fail(&r, -ENOMEM, "out of memory");
	int err = resolve(&r, collector, via, timeout_ms, path);
	nl_socket_free(r.sock);
	if (err < 0)
		memset(path, 0, sizeof *path);
	return err;
}
