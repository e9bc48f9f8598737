/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The real simulator for the library's tests (test_device_sim.c, test_control_sim.c): find
 * build/bin/pktstats-sim ($PKTSTATS_SIM, or ../../bin/ next to the test), start it with
 * --socket (and more arguments) in a temporary directory, open sim:PATH once it listens, stop
 * it, and show its log when a test failed.
 */
#ifndef PKTSTATS_TEST_SIM_PROCESS_H
#define PKTSTATS_TEST_SIM_PROCESS_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pktstats/pktstats.h"
#include "test_device_tap.h"

static char tmpdir[64], sock[128], log_path[128];

static void find_simulator(const char *argv0, char *out, size_t size)
{
	const char *env = getenv("PKTSTATS_SIM");
	const char *slash = strrchr(argv0, '/');

	if (env && *env)
		snprintf(out, size, "%s", env);
	else if (slash)
		snprintf(out, size, "%.*s/../../bin/pktstats-sim", (int)(slash - argv0), argv0);
	else
		snprintf(out, size, "../../bin/pktstats-sim");
}

/* extra: NULL-terminated further arguments, or NULL */
static pid_t start_simulator(const char *sim, const char *const *extra)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0600);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		const char *args[32] = {sim, "--socket", sock};
		int n = 3;
		for (; extra && *extra && n < 31; extra++)
			args[n++] = *extra;
		args[n] = NULL;
		execv(sim, (char *const *)args);
		_exit(127);
	}
	return pid;
}

/* Signal the simulator and reap it, once (*pid is -1 afterwards). */
static void stop_simulator(pid_t *pid, int sig, int *status)
{
	if (*pid <= 0)
		return;
	kill(*pid, sig);
	waitpid(*pid, status, 0);
	*pid = -1;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000};

	nanosleep(&ts, NULL);
}

/* Open sim:PATH once the simulator listens (it starts in well under a second; allow 30 s on
 * a loaded machine). */
static int open_when_ready(pid_t pid, struct pktstats_dev **dev, char *error, size_t size)
{
	char device[160];
	int rc = -ENOENT;

	snprintf(device, sizeof device, "sim:%s", sock);
	for (int i = 0; i < 600; i++) {
		rc = pktstats_open(device, 0, dev, error, size);
		if (rc != -ENOENT && rc != -ECONNREFUSED)
			break;
		if (pid > 0 && waitpid(pid, NULL, WNOHANG) == pid) {
			snprintf(error, size, "the simulator exited (log: %s)", log_path);
			return -ECHILD;
		}
		sleep_ms(50);
	}
	return rc;
}

/* Makes the temporary directory; returns 0, or 1 after a SKIP when there is no simulator. */
static int simulator_setup(const char *argv0, char *sim, size_t size, const char *name)
{
	find_simulator(argv0, sim, size);
	if (access(sim, X_OK) != 0) {
		tap_ok(true, "# SKIP no simulator at %s (make build/bin/pktstats-sim)", sim);
		return 1;
	}
	snprintf(tmpdir, sizeof tmpdir, "/tmp/%s.XXXXXX", name);
	if (!mkdtemp(tmpdir)) {
		perror(tmpdir);
		exit(2);
	}
	snprintf(sock, sizeof sock, "%s/sim.sock", tmpdir);
	snprintf(log_path, sizeof log_path, "%s/sim.log", tmpdir);
	tap_diag("simulator %s, socket %s", sim, sock);
	return 0;
}

/* After the tests: the simulator's log when one failed, then the directory goes. */
static void simulator_cleanup(void)
{
	if (tap_failures) {
		char line[256];
		FILE *f = fopen(log_path, "r");

		tap_diag("simulator log %s:", log_path);
		while (f && fgets(line, sizeof line, f))
			tap_diag("%.*s", (int)strcspn(line, "\n"), line);
		if (f)
			fclose(f);
	}
	unlink(sock);
	unlink(log_path);
	rmdir(tmpdir);
}

#endif
