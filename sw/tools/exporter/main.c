/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: a Prometheus exporter for pktstats switches (docs/monitoring.md). One
 * process per host serves any number of switches from one configuration: their registers at
 * every scrape, their stat packets captured live and turned into queue figures, proactive
 * delay and headroom measurements, and the flow monitors' IPFIX events, all at /metrics.
 *
 * A daemon in the foreground, as systemd runs it: one log line per event on stderr; SIGHUP
 * reloads the configuration, keeping the one in force when the new one is bad (one line naming
 * FILE:LINE); SIGTERM and SIGINT stop it cleanly (exit 0). A bad command line or configuration
 * at start exits 2 naming the bad argument or FILE:LINE; a failure to start (the listen
 * address taken) exits 1.
 */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "config.h"
#include "exporter.h"
#include "http.h"
#include "log.h"


enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

static const char usage_text[] =
	"usage: pktstats-exporter [--check] [config FILE] [KEYWORD VALUE]...\n"
	"       pktstats-exporter --help | --version\n";

static const char help_text[] =
	"A Prometheus exporter for pktstats switches: registers, stat packets, delay and\n"
	"headroom measurements and flow-latency events at http://ADDRESS:PORT/metrics\n"
	"(docs/monitoring.md, pktstats-exporter(8)).\n"
	"\n"
	"Keywords, on the command line or one 'KEYWORD VALUE' per line of the config file\n"
	"('#' comments); the command line wins:\n"
	"  config FILE                  the configuration file (SIGHUP reads it again)\n"
	"  listen ADDRESS:PORT          where to serve (default :9733: every address)\n"
	"  switch NAME,KEY=VALUE,...    a switch (any number): device=DEVICE (a pktstats\n"
	"                               device: sim:PATH, pci:BDF, a resource file, a netdev),\n"
	"                               stat-interface=IFACE (where its stat packets arrive),\n"
	"                               stat-source=IP, stat-port=UDP (27033),\n"
	"                               microburst-threshold=BYTES, queue-words=N,\n"
	"                               ipfix-domain=N (its flow monitor's observation domain)\n"
	"  dm-two-way SWITCH,port=P,interface=IFACE,peer=MAC[,interval=DURATION]\n"
	"                               [,timeout=DURATION][,level=L][,vlan=VID][,size=BYTES]\n"
	"                               Y.1731 DMMs to peer every interval (1s)\n"
	"  dm-one-way SWITCH,port=P,interface=IFACE\n"
	"                               1DMs received on the CPU port's interface\n"
	"  headroom SWITCH,port=P,interface=IFACE,rate=GBPS[,interval=DURATION][,count=N]\n"
	"                               [,timeout=DURATION][,max-frame=BYTES]\n"
	"                               [,internal-bits=BITS|pfc-response=NS][,buffer=BYTES]\n"
	"                               the port's round trip and PFC headroom, at start, on\n"
	"                               link up, on a change of its configuration, every\n"
	"                               interval (1h)\n"
	"  ipfix-listen ADDRESS:PORT    receive the flow monitors' IPFIX (UDP)\n"
	"  ipfix-enterprise-number N    their enterprise IEs' PEN (32473)\n"
	"  peak-window DURATION         the queues' peak occupancy window (60s)\n"
	"  microburst-threshold BYTES   occupancy above which a queue bursts (8192)\n"
	"  retry-max DURATION           the longest wait before opening a device again (30s)\n"
	"  scrape-timeout DURATION      the longest a scrape waits for the devices (10s)\n"
	"\n"
	"Flags:\n"
	"  --check      check the configuration, print what it runs, exit (0, or 2)\n"
	"  --help       this text\n"
	"  --version    the version and the commit it was built from\n"
	"\n"
	"Signals: SIGHUP reloads (a bad configuration is logged and the old one kept),\n"
	"SIGTERM and SIGINT stop. Needs CAP_NET_RAW for the captures and measurements.\n";

/* The whole configuration: defaults, the command line, the file it names, the checks */
static int load(int argc, char **argv, struct exporter_config *config, char *error, size_t size)
{
	const char *path = NULL;
	exporter_config_defaults(config);
	int err = exporter_config_parse_args(config, argc, argv, &path, error, size);
	if (err == 0 && path)
		err = exporter_config_read_file(config, path, error, size);
	if (err == 0)
		err = exporter_config_check(config, error, size);
	return err;
}

static void describe(const struct exporter_config *c, char *text, size_t size)
{
	snprintf(text, size, "%zu switches, %zu two-way delay sessions, %zu one-way, %zu headroom%s",
		 c->n_switches, c->n_dm, c->n_one_way, c->n_headroom,
		 c->ipfix_listen_port ? ", an IPFIX listener" : "");
}

static const char *bracketed(const char *host, char *buf, size_t size)
{
	snprintf(buf, size, strchr(host, ':') ? "[%s]" : "%s", host);
	return buf;
}

int main(int argc, char **argv)
{
	bool check = false;
	/* the flags (keywords never start with '-'), then the keyword pairs */
	char **words = calloc((size_t)argc + 1, sizeof *words);
	int n_words = 0;
	if (!words)
		return EXIT_RUNTIME;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			fputs(help_text, stdout);
			free(words);
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			printf("pktstats-exporter %s (commit %s)\n", PKTSTATS_EXPORTER_VERSION,
			       PKTSTATS_EXPORTER_REVISION);
			free(words);
			return 0;
		}
		if (!strcmp(argv[i], "--check")) {
			check = true;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "pktstats-exporter: unknown flag '%s'\n%s", argv[i], usage_text);
			free(words);
			return EXIT_USAGE;
		} else {
			words[n_words++] = argv[i];
		}
	}

	static struct exporter_config config, next; /* large: hundreds of sessions */
	char error[1024], text[256], host[80];
	if (load(n_words, words, &config, error, sizeof error) < 0) {
		fprintf(stderr, "pktstats-exporter: %s\n", error);
		free(words);
		return EXIT_USAGE;
	}
	describe(&config, text, sizeof text);
	if (check) {
		printf("pktstats-exporter: configuration OK: %s; listens on %s:%u\n", text,
		       bracketed(config.listen_host, host, sizeof host), (unsigned)config.listen_port);
		free(words);
		return 0;
	}

	/* Signals are taken by the main thread alone, through a signalfd: every thread started
	 * below inherits them blocked. */
	sigset_t signals;
	sigemptyset(&signals);
	sigaddset(&signals, SIGHUP);
	sigaddset(&signals, SIGTERM);
	sigaddset(&signals, SIGINT);
	pthread_sigmask(SIG_BLOCK, &signals, NULL);
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &signals, SFD_CLOEXEC);
	struct exporter *exporter = NULL;
	struct http_server *server = NULL;
	int status = 0;
	if (sfd < 0 || exporter_create(&exporter) < 0) {
		fprintf(stderr, "pktstats-exporter: cannot start: %s\n", strerror(errno));
		free(words);
		return EXIT_RUNTIME;
	}
	exporter_apply(exporter, &config);
	if (http_start(&server, exporter, config.listen_host, config.listen_port, error,
		       sizeof error) < 0) {
		exporter_log("%s", error);
		status = EXIT_RUNTIME;
	} else {
		exporter_log("serving http://%s:%u/metrics: %s",
			     *config.listen_host ? bracketed(config.listen_host, host, sizeof host)
						 : "*",
			     (unsigned)config.listen_port, text);
	}

	while (status == 0) {
		struct signalfd_siginfo info;
		ssize_t got = read(sfd, &info, sizeof info);
		if (got != (ssize_t)sizeof info) {
			if (got < 0 && errno == EINTR)
				continue;
			exporter_log("signalfd: %s", strerror(errno));
			status = EXIT_RUNTIME;
			break;
		}
		if (info.ssi_signo != SIGHUP) {
			exporter_log("%s: stopping", strsignal((int)info.ssi_signo));
			break;
		}
		if (load(n_words, words, &next, error, sizeof error) < 0) {
			exporter_log("reload: %s; keeping the configuration in force", error);
			exporter_reloaded(exporter, false);
			continue;
		}
		bool moved = strcmp(next.listen_host, config.listen_host) ||
			     next.listen_port != config.listen_port;
		struct http_server *new_server = NULL;
		if (moved) {
			/* the old socket goes first: the new address may share its port */
			http_stop(server);
			server = NULL;
			if (http_start(&new_server, exporter, next.listen_host, next.listen_port, error,
				       sizeof error) < 0) {
				exporter_log("reload: %s; keeping the configuration in force", error);
				exporter_reloaded(exporter, false);
				if (http_start(&server, exporter, config.listen_host, config.listen_port,
					       error, sizeof error) < 0) {
					exporter_log("%s", error);
					status = EXIT_RUNTIME;
				}
				continue;
			}
			server = new_server;
		}
		exporter_apply(exporter, &next);
		config = next;
		exporter_reloaded(exporter, true);
		describe(&config, text, sizeof text);
		exporter_log("reloaded: %s%s", text, moved ? "; listening at the new address" : "");
	}
	http_stop(server);
	exporter_destroy(exporter);
	close(sfd);
	free(words);
	if (status == 0)
		exporter_log("stopped");
	return status;
}
