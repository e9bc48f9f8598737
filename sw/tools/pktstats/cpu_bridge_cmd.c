/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, `pktstats cpu-bridge run [dma PREFIX] [tap PREFIX] [ports LIST] [mtu BYTES]`:
 * the NetFPGA-1G-CML's four CPU ports (switch ports 4..7, XDMA AXI4-Stream channel pairs
 * H2C j / C2H j, fpga/netfpga-1g-cml/rtl/netfpga_1g_cml_top.v) as TAP interfaces on the host,
 * as `pktstats-sim --port 4:tap=nf0` gives the simulator's. Runs in the foreground until
 * SIGINT or SIGTERM, then prints what passed (text, or one JSON object with -j).
 *
 * Steps, each stopping the command on failure:
 *   1. the arguments (a bad one: exit 2, naming it, before anything is opened);
 *   2. for each port N, PREFIX_h2c_N (written, O_WRONLY) and PREFIX_c2h_N (read, O_RDONLY |
 *      O_TRUNC: the xdma driver ends a C2H read at tlast only so, see cpu_bridge.c); a missing
 *      file, a permission refused, a device already open: exit 1, one line naming the file;
 *   3. the TAPs PREFIX0..3 (IFF_TAP | IFF_NO_PI, like sim/tap_port.cpp), MTU set if asked,
 *      brought up; they go away when the command ends;
 *   4. forwarding (cpu_bridge.c) until a signal or a fatal error (a device gone: exit 1).
 *
 * Test seam (docs/pktstats.8): a device path that is a Unix socket is connected to
 * (SOCK_SEQPACKET, one message a frame) instead of opened, so a test can stand in for the
 * xdma's character devices with a process of its own; anything else that is not a character
 * device is refused.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "cpu_bridge.h"
#include "keywords.h"
#include "output.h"

#define DEFAULT_DMA "/dev/xdma0"
#define DEFAULT_TAP "nf" /* NetFPGA's names for the CPU ports' interfaces */
#define MTU_MIN 68
#define MTU_MAX (CPU_BRIDGE_FRAME_MAX - CPU_BRIDGE_TAP_OVERHEAD)
#define PATH_BYTES 4096

static int stop_write = -1;
static volatile sig_atomic_t stop_signal;

static void on_stop(int signal_number)
{
	stop_signal = signal_number;
	int saved = errno;
	ssize_t ignored = write(stop_write, "s", 1);
	(void)ignored;
	errno = saved;
}

/* Why a device could not be had, with the likely cause. */
static const char *device_hint(int err)
{
	switch (err) {
	case ENOENT:
	case ENXIO:
	case ENODEV:
		return " (is the xdma driver loaded, with the board on PCI? see pktstats(8))";
	case EACCES:
	case EPERM:
		return " (run as root, or give this user the xdma devices)";
	case EBUSY:
		return " (another program has it open: a C2H stream can be open once)";
	default:
		return "";
	}
}

/* Opens one DMA device: a character device (the xdma's), or a Unix socket (a test's stand-in).
 * The descriptor, or -1 with a one-line reason printed. */
static int open_dma(const struct cli *cli, const char *path, bool c2h)
{
	struct stat st;
	int fd = -1, err = 0;
	if (stat(path, &st) < 0) {
		err = errno;
	} else if (S_ISSOCK(st.st_mode)) {
		struct sockaddr_un address = {.sun_family = AF_UNIX};
		if (strlen(path) >= sizeof address.sun_path) {
			cli_say(cli, "%s: the socket's path is too long", path);
			return -1;
		}
		memcpy(address.sun_path, path, strlen(path) + 1);
		fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) < 0) {
			err = errno;
			if (fd >= 0)
				close(fd);
			fd = -1;
		}
	} else if (!S_ISCHR(st.st_mode)) {
		cli_say(cli, "%s: not a character device (is the xdma driver loaded?)", path);
		return -1;
	} else {
		fd = open(path, (c2h ? O_RDONLY | O_TRUNC : O_WRONLY) | O_CLOEXEC);
		if (fd < 0)
			err = errno;
	}
	if (fd < 0)
		cli_say(cli, "%s: %s%s", path, strerror(err), device_hint(err));
	return fd;
}

/* Creates or attaches the TAP, sets its MTU (mtu > 0), brings it up; reads its MTU into
 * *mtu_now. The descriptor, or -1 with a one-line reason printed. */
static int open_tap(const struct cli *cli, const char *name, unsigned mtu, unsigned *mtu_now)
{
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		cli_say(cli, "TAP %s: cannot open /dev/net/tun: %s%s", name, strerror(err),
			err == ENOENT ? " (modprobe tun)" :
			err == EACCES || err == EPERM ? " (run as root)" : "");
		return -1;
	}
	struct ifreq request;
	memset(&request, 0, sizeof request);
	request.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(request.ifr_name, sizeof request.ifr_name, "%s", name);
	if (ioctl(fd, TUNSETIFF, &request) < 0) {
		int err = errno;
		cli_say(cli, "TAP %s: cannot create or attach it (TUNSETIFF): %s%s", name,
			strerror(err),
			err == EPERM ? " (needs CAP_NET_ADMIN: run as root)" :
			err == EBUSY ? " (another program has it attached)" :
			err == EINVAL ? " (an interface of that name that is not a TAP?)" : "");
		close(fd);
		return -1;
	}
	int control = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	const char *step = "socket";
	bool ok = control >= 0;
	if (ok && mtu) {
		request.ifr_mtu = (int)mtu;
		step = "setting the MTU";
		ok = ioctl(control, SIOCSIFMTU, &request) == 0;
	}
	if (ok) {
		step = "reading its flags";
		ok = ioctl(control, SIOCGIFFLAGS, &request) == 0;
	}
	if (ok && !(request.ifr_flags & IFF_UP)) {
		request.ifr_flags |= IFF_UP;
		step = "bringing it up";
		ok = ioctl(control, SIOCSIFFLAGS, &request) == 0;
	}
	if (ok) {
		step = "reading its MTU";
		ok = ioctl(control, SIOCGIFMTU, &request) == 0;
		*mtu_now = ok && request.ifr_mtu > 0 ? (unsigned)request.ifr_mtu : 1500;
	}
	int err = errno;
	if (control >= 0)
		close(control);
	if (!ok) {
		cli_say(cli, "TAP %s: %s: %s", name, step, strerror(err));
		close(fd);
		return -1;
	}
	return fd;
}

/* An interface name's prefix: the names PREFIX0..PREFIX3 must be valid (dev_valid_name). */
static const char *tap_prefix_error(const char *prefix)
{
	if (!*prefix)
		return "empty";
	if (strlen(prefix) > IFNAMSIZ - 2)
		return "too long (an interface name has at most 15 characters, the port's digit "
		       "included)";
	for (const char *c = prefix; *c; c++)
		if (*c == '/' || *c == ':' || *c == '%' || *c <= ' ' || *c == 0x7f)
			return "an interface name has no '/', ':', '%' or white space";
	return NULL;
}

struct bridge_names {
	char h2c[PATH_BYTES], c2h[PATH_BYTES], tap[IFNAMSIZ];
};

static void close_all(struct cpu_bridge *bridge)
{
	for (unsigned i = 0; i < CPU_BRIDGE_PORTS; i++) {
		struct cpu_bridge_port *p = &bridge->ports[i];
		if (p->h2c >= 0)
			close(p->h2c);
		if (p->c2h >= 0)
			close(p->c2h);
		if (p->tap >= 0)
			close(p->tap);
		p->h2c = p->c2h = p->tap = -1;
	}
}

static void print_summary(const struct cpu_bridge *bridge, const char *dma, const char *stopped,
			  const char *error)
{
	out_begin();
	out_string("dma", dma);
	out_string("stopped-by", stopped);
	out_string("error", error);
	out_list_begin("ports");
	for (unsigned i = 0; i < bridge->n_ports; i++) {
		const struct cpu_bridge_port *p = &bridge->ports[i];
		out_item_begin();
		out_uint("port", p->index, NULL);
		out_uint("switch-port", 4 + p->index, NULL);
		out_string("tap", p->tap_name);
		const struct {
			const char *key[5];
			const struct cpu_bridge_counters *count;
		} directions[2] = {
			{{"h2c-frames", "h2c-bytes", "h2c-oversize", "h2c-runts", "h2c-errors"},
			 &p->h2c_count},
			{{"c2h-frames", "c2h-bytes", "c2h-oversize", "c2h-runts", "c2h-errors"},
			 &p->c2h_count},
		};
		for (unsigned d = 0; d < 2; d++) {
			const struct cpu_bridge_counters *c = directions[d].count;
			out_uint(directions[d].key[0], c->frames, NULL);
			out_uint(directions[d].key[1], c->bytes, NULL);
			out_uint(directions[d].key[2], c->oversize, NULL);
			out_uint(directions[d].key[3], c->runts, NULL);
			out_uint(directions[d].key[4], c->errors, NULL);
		}
		out_item_end();
	}
	out_list_end();
	out_end();
}

static int run_main(struct cli *cli, int argc, char **argv)
{
	struct keyword keywords[] = {{"dma", NULL}, {"tap", NULL}, {"ports", NULL}, {"mtu", NULL}};
	enum { N = sizeof keywords / sizeof keywords[0] };
	int status = keywords_parse(cli, argc, argv, keywords, N, "cpu-bridge run");
	if (status != CLI_OK)
		return status;
	const char *dma = keyword_value(keywords, N, "dma");
	const char *tap = keyword_value(keywords, N, "tap");
	const char *ports_word = keyword_value(keywords, N, "ports");
	if (!dma)
		dma = DEFAULT_DMA;
	else if (!*dma)
		return cli_usage(cli, "dma '': empty (a prefix like /dev/xdma0)");
	else if (strlen(dma) > PATH_BYTES - 16)
		return cli_usage(cli, "dma '%.40s...': too long", dma);
	if (!tap) {
		tap = DEFAULT_TAP;
	} else {
		const char *error = tap_prefix_error(tap);
		if (error)
			return cli_usage(cli, "tap '%s': %s", tap, error);
	}
	uint32_t mask = 0xf;
	if (ports_word) {
		const char *error = parse_number_set(ports_word, CPU_BRIDGE_PORTS - 1, &mask);
		if (!error && !mask)
			error = "no port (give 0..3, a list like 0,2 or a range like 0-3)";
		if (error)
			return cli_usage(cli, "ports '%s': %s", ports_word, error);
	}
	uint64_t mtu = 0;
	if ((status = keyword_number(cli, keywords, N, "mtu", MTU_MIN, MTU_MAX, &mtu)) != CLI_OK)
		return status;

	static struct bridge_names names[CPU_BRIDGE_PORTS];
	struct cpu_bridge bridge;
	memset(&bridge, 0, sizeof bridge);
	for (unsigned i = 0; i < CPU_BRIDGE_PORTS; i++)
		bridge.ports[i].h2c = bridge.ports[i].c2h = bridge.ports[i].tap = -1;
	for (unsigned n = 0; n < CPU_BRIDGE_PORTS; n++) {
		if (!(mask & (1u << n)))
			continue;
		struct cpu_bridge_port *p = &bridge.ports[bridge.n_ports];
		struct bridge_names *name = &names[bridge.n_ports++];
		snprintf(name->h2c, sizeof name->h2c, "%s_h2c_%u", dma, n);
		snprintf(name->c2h, sizeof name->c2h, "%s_c2h_%u", dma, n);
		snprintf(name->tap, sizeof name->tap, "%s%u", tap, n);
		p->index = n;
		p->h2c_name = name->h2c;
		p->c2h_name = name->c2h;
		p->tap_name = name->tap;
	}

	/* The devices first (the likely failure), then the TAPs. */
	for (unsigned i = 0; i < bridge.n_ports; i++) {
		struct cpu_bridge_port *p = &bridge.ports[i];
		if ((p->h2c = open_dma(cli, p->h2c_name, false)) < 0 ||
		    (p->c2h = open_dma(cli, p->c2h_name, true)) < 0) {
			close_all(&bridge);
			return CLI_RUNTIME;
		}
	}
	for (unsigned i = 0; i < bridge.n_ports; i++) {
		struct cpu_bridge_port *p = &bridge.ports[i];
		unsigned mtu_now = 0;
		if ((p->tap = open_tap(cli, p->tap_name, (unsigned)mtu, &mtu_now)) < 0) {
			close_all(&bridge);
			return CLI_RUNTIME;
		}
		p->tap_frame_max = (size_t)mtu_now + CPU_BRIDGE_TAP_OVERHEAD;
	}

	int stop[2];
	if (pipe2(stop, O_CLOEXEC | O_NONBLOCK) < 0) {
		cli_say(cli, "pipe: %s", strerror(errno));
		close_all(&bridge);
		return CLI_RUNTIME;
	}
	stop_write = stop[1];
	stop_signal = 0;
	struct sigaction action = {0}, old_int, old_term;
	action.sa_handler = on_stop;
	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, &old_int);
	sigaction(SIGTERM, &action, &old_term);
	bridge.stop_fd = stop[0];

	char list[64] = "";
	for (unsigned i = 0; i < bridge.n_ports; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " " : "",
			 bridge.ports[i].tap_name);
	cli_say(cli, "bridging %s_{h2c,c2h}_N and TAP %s (N = port); stop with Ctrl-C", dma, list);

	int result = cpu_bridge_run(&bridge);

	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	close(stop[0]);
	close(stop[1]);
	stop_write = -1;
	close_all(&bridge);
	const char *stopped = result < 0 ? "error" : stop_signal == SIGINT ? "SIGINT"
						 : stop_signal == SIGTERM ? "SIGTERM" : "stop";
	print_summary(&bridge, dma, stopped, result < 0 ? bridge.error : NULL);
	if (result < 0) {
		cli_say(cli, "%s", bridge.error);
		return CLI_RUNTIME;
	}
	return CLI_OK;
}

static const struct cli_verb cpu_bridge_verbs[] = {
	{"run", "[dma PREFIX] [tap PREFIX] [ports LIST] [mtu BYTES]",
	 "forward frames between the board's CPU ports (XDMA streams) and TAP interfaces",
	 "Forwards, in the foreground, each CPU port N of a NetFPGA-1G-CML (switch port 4+N)\n"
	 "between the xdma driver's stream devices and a TAP interface: frames the host sends\n"
	 "into TAP PREFIX<N> are written to PREFIX_h2c_N, frames read from PREFIX_c2h_N are\n"
	 "written to the TAP. One frame per read and write, never reordered. The TAPs are created\n"
	 "(or attached) and brought up, and go away when the command ends. Stops on SIGINT or\n"
	 "SIGTERM and prints the counts. Needs root (CAP_NET_ADMIN, and the devices).\n"
	 "\n"
	 "Arguments:\n"
	 "  dma PREFIX   the xdma devices' prefix (/dev/xdma0: /dev/xdma0_h2c_0, ..._c2h_0, ...)\n"
	 "  tap PREFIX   the TAPs' name prefix (nf: nf0..nf3); at most 14 characters\n"
	 "  ports LIST   which ports, 0..3: all (default), 0,2, 1-3\n"
	 "  mtu BYTES    set the TAPs' MTU, 68..9198 (default: leave it, 1500 for a new TAP)\n"
	 "\n"
	 "Frames longer than the switch takes (9216 bytes) from a TAP, or longer than the TAP's\n"
	 "MTU + 18 from the board, and frames shorter than 14 bytes, are dropped and counted; a\n"
	 "failed or short write is counted (errors), not fatal. A device or TAP that goes away\n"
	 "stops the command (exit 1). A device path that is a Unix socket is connected to\n"
	 "(SOCK_SEQPACKET) instead of opened: a stand-in for tests.\n"
	 "\n"
	 "Exit status 1, one line naming the file: a device missing (is the xdma driver\n"
	 "loaded?), not permitted, busy, not a character device; a TAP that cannot be created.\n"
	 "\n"
	 "Output when it stops (-j: keys with '_'): dma, stopped-by (SIGINT, SIGTERM, error),\n"
	 "error, ports: one line per port: port, switch-port, tap, then for h2c (TAP to board)\n"
	 "and c2h (board to TAP): -frames, -bytes, -oversize, -runts, -errors.\n",
	 run_main},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_cpu_bridge = {
	"cpu-bridge", "The board's CPU ports as TAP interfaces (XDMA streams)", cpu_bridge_verbs,
};
