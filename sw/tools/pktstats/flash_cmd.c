/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, command `flash FILE.bit [cable NAME] [board-timeout DURATION]`: loads a
 * bitstream into the NetFPGA-1G-CML's FPGA (XC7K325T-FFG676) over JTAG with openFPGALoader,
 * then finds the board on PCI again and checks that it answers as pktstats. Needs no -d: the
 * device is what appears. The word `flash` after FILE (write the configuration flash) is
 * refused with the way that works: openFPGALoader cannot write this board's BPI flash.
 *
 * Steps, each stopping the command on failure:
 *   1. the arguments and FILE.bit's header (design, part, date, time, data length): a file
 *      that is not a .bit, is truncated or is for another part is refused (exit 2) before
 *      anything runs;
 *   2. openFPGALoader looked up on PATH (not found: exit 1, naming the Debian package);
 *   3. `openFPGALoader [-c CABLE] --detect`: the JTAG chain must hold exactly one FPGA, the
 *      board's xc7k325t (no cable, no FPGA, another FPGA: exit 1 with the tool's message);
 *   4. boards already on PCI (vendor 0x10ee, device 0x7024: build.tcl's XDMA) are removed
 *      through sysfs, since reconfiguring drops their link;
 *   5. `openFPGALoader [-c CABLE] --fpga-part xc7k325tffg676 FILE.bit`;
 *   6. PCI rescanned (every second) until a 10ee:7024 device appears and opens with the
 *      library's identity check (id.magic "PKTS"), within board-timeout (default 10 s).
 *
 * The tool runs with fork/exec (no shell); its output is captured (and copied to stderr as it
 * comes, without -j) and its own words go into our error messages.
 *
 * Test seams (docs/pktstats.8, ENVIRONMENT): openFPGALoader is found on PATH, and sysfs is
 * $PKTSTATS_SYSFS_ROOT when set and not empty, else /sys (the board is then opened as
 * mmap:ROOT/bus/pci/devices/ADDR/resource0, which is pci:ADDR for /sys).
 */
#define _DEFAULT_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "keywords.h"
#include "output.h"

#define FLASH_TOOL "openFPGALoader"
#define FLASH_PACKAGE "openfpgaloader"
#define BOARD_PART "xc7k325tffg676"  /* openFPGALoader's --fpga-part: device and package */
#define BOARD_DEVICE "xc7k325t"      /* openFPGALoader's model name in --detect */
#define BOARD_BIT_PART "7k325tffg676" /* the part as a .bit header writes it */
#define PCI_VENDOR_XILINX 0x10ee
#define PCI_DEVICE_XDMA 0x7024 /* fpga/netfpga-1g-cml/build.tcl: CONFIG.pf0_device_id */
#define DEFAULT_TIMEOUT_NS 10000000000ull
#define MAX_TIMEOUT_NS 600000000000ull
#define MAX_BOARDS 16
#define MAX_COMMANDS 2

/* ---- the .bit header ---- */

struct bit_header {
	char design[256], part[64], date[32], time[32];
	uint32_t data_bytes;
};

/* One field: KEY, a 16-bit big-endian length, that many bytes ending in NUL. */
static const char *bit_field(const uint8_t *h, size_t n, size_t *at, char key, char *value,
			     size_t size)
{
	static char reason[96];
	if (*at + 3 > n)
		return "truncated header";
	if (h[*at] != key) {
		snprintf(reason, sizeof reason, "header field '%c' expected, found byte 0x%02x", key,
			 h[*at]);
		return reason;
	}
	size_t len = (size_t)h[*at + 1] << 8 | h[*at + 2];
	*at += 3;
	if (*at + len > n)
		return "truncated header";
	if (len == 0 || h[*at + len - 1] != '\0' || len > size) {
		snprintf(reason, sizeof reason, "header field '%c' is malformed", key);
		return reason;
	}
	memcpy(value, h + *at, len);
	*at += len;
	return NULL;
}

/* NULL, or why FILE is not a usable .bit. */
static const char *bit_read(const char *path, struct bit_header *bit)
{
	static char reason[160];
	static const uint8_t magic[13] = {0x00, 0x09, 0x0f, 0xf0, 0x0f, 0xf0, 0x0f, 0xf0,
					  0x0f, 0xf0, 0x00, 0x00, 0x01};
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(reason, sizeof reason, "%s", strerror(errno));
		return reason;
	}
	struct stat st;
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return "not a regular file";
	}
	uint8_t h[1024];
	size_t n = fread(h, 1, sizeof h, f);
	fclose(f);
	if (n < sizeof magic || memcmp(h, magic, sizeof magic))
		return n < sizeof magic && !memcmp(h, magic, n) && n > 0
			       ? "truncated header"
			       : "not a Xilinx .bit file (no .bit header)";
	size_t at = sizeof magic;
	const char *error;
	if ((error = bit_field(h, n, &at, 'a', bit->design, sizeof bit->design)) ||
	    (error = bit_field(h, n, &at, 'b', bit->part, sizeof bit->part)) ||
	    (error = bit_field(h, n, &at, 'c', bit->date, sizeof bit->date)) ||
	    (error = bit_field(h, n, &at, 'd', bit->time, sizeof bit->time)))
		return error;
	if (at + 5 > n)
		return "truncated header";
	if (h[at] != 'e') {
		snprintf(reason, sizeof reason, "header field 'e' expected, found byte 0x%02x", h[at]);
		return reason;
	}
	bit->data_bytes = (uint32_t)h[at + 1] << 24 | (uint32_t)h[at + 2] << 16 |
			  (uint32_t)h[at + 3] << 8 | h[at + 4];
	at += 5;
	if (bit->data_bytes == 0)
		return "the header gives 0 bytes of configuration data";
	if ((uint64_t)st.st_size < at + (uint64_t)bit->data_bytes) {
		snprintf(reason, sizeof reason, "truncated: the header gives %u bytes of "
			 "configuration data, the file holds %llu", bit->data_bytes,
			 (unsigned long long)(st.st_size - (off_t)at));
		return reason;
	}
	return NULL;
}

/* The part as the board's: "7k325tffg676", "xc7k325tffg676", either with a speed grade. */
static bool bit_part_is_board(const char *part)
{
	if (!strncmp(part, "xc", 2))
		part += 2;
	size_t n = strlen(BOARD_BIT_PART);
	return !strncmp(part, BOARD_BIT_PART, n) && (!part[n] || part[n] == '-');
}

/* ---- running openFPGALoader ---- */

/* The full path of the tool on PATH into path; false when there is none. */
static bool find_tool(char *path, size_t size)
{
	const char *env = getenv("PATH");
	const char *p = env && *env ? env : "/usr/local/bin:/usr/bin:/bin";
	while (*p) {
		size_t len = strcspn(p, ":");
		snprintf(path, size, "%.*s%s" FLASH_TOOL, (int)len, len ? p : ".",
			 len && p[len - 1] == '/' ? "" : "/");
		struct stat st;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
			return true;
		p += len + (p[len] == ':');
	}
	return false;
}

/* argv as people would type it (single quotes around words that need them). */
static void command_text(char *const *argv, char *text, size_t size)
{
	text[0] = '\0';
	for (int i = 0; argv[i]; i++) {
		const char *w = i ? argv[i] : FLASH_TOOL;
		size_t len = strlen(text);
		bool quote = !*w || strpbrk(w, " \t\n'\"\\$`*?[]{}()<>|&;#~") != NULL;
		if (!quote) {
			snprintf(text + len, size - len, "%s%s", i ? " " : "", w);
			continue;
		}
		snprintf(text + len, size - len, "%s'", i ? " " : "");
		for (const char *c = w; *c; c++) {
			len = strlen(text);
			snprintf(text + len, size - len, *c == '\'' ? "'\\''" : "%c", *c);
		}
		len = strlen(text);
		snprintf(text + len, size - len, "'");
	}
}

struct tool_run {
	char *output;  /* stdout and stderr together, NUL-terminated */
	size_t length;
	int status;    /* exit status, or 128 + signal */
};

/* Runs the tool (fork/exec, no shell), stdin /dev/null, stdout and stderr into one pipe.
 * 0, or -errno when it could not be started. */
static int run_tool(const char *path, char *const *argv, bool echo, struct tool_run *run)
{
	int fds[2];
	run->output = NULL;
	run->length = 0;
	run->status = -1;
	if (pipe(fds) < 0)
		return -errno;
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		int err = errno;
		close(fds[0]);
		close(fds[1]);
		return -err;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execv(path, argv);
		dprintf(2, "%s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	size_t capacity = 4096;
	run->output = malloc(capacity);
	char chunk[4096];
	for (;;) {
		ssize_t got = read(fds[0], chunk, sizeof chunk);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (echo)
			fwrite(chunk, 1, (size_t)got, stderr);
		if (run->output && run->length + (size_t)got + 1 > capacity) {
			while (run->length + (size_t)got + 1 > capacity)
				capacity *= 2;
			char *bigger = realloc(run->output, capacity);
			if (!bigger) {
				free(run->output);
				run->output = NULL;
			}
			run->output = bigger;
		}
		if (run->output) {
			memcpy(run->output + run->length, chunk, (size_t)got);
			run->length += (size_t)got;
		}
	}
	close(fds[0]);
	if (!run->output) {
		run->output = strdup("");
		run->length = 0;
	} else {
		run->output[run->length] = '\0';
	}
	int wstatus;
	while (waitpid(pid, &wstatus, 0) < 0)
		if (errno != EINTR)
			return -errno;
	run->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
	return 0;
}

/* The tool's own words for a message: its lines that say error/fail (escape sequences and
 * progress bars left out), else its last line; "(no output)" when it said nothing. */
static void tool_message(const char *output, char *text, size_t size)
{
	char last[256] = "";
	text[0] = '\0';
	const char *p = output;
	while (*p) {
		size_t len = strcspn(p, "\r\n");
		char line[256];
		size_t k = 0;
		for (size_t i = 0; i < len && k + 1 < sizeof line; i++) {
			if (p[i] == '\x1b') { /* colour: ESC [ ... m */
				while (i < len && p[i] != 'm')
					i++;
				continue;
			}
			line[k++] = p[i] == '\t' ? ' ' : p[i];
		}
		line[k] = '\0';
		char *s = line;
		while (*s == ' ')
			s++;
		if (*s) {
			snprintf(last, sizeof last, "%s", s);
			if (strstr(s, "rror") || strstr(s, "FAIL") || strstr(s, "fail") ||
			    strstr(s, "not found") || strstr(s, "unable")) {
				size_t t = strlen(text);
				snprintf(text + t, size - t, "%s%s", t ? "; " : "", s);
			}
		}
		p += len;
		while (*p == '\r' || *p == '\n')
			p++;
	}
	if (!text[0])
		snprintf(text, size, "%s", last[0] ? last : "(no output)");
}

/* The FPGAs of a --detect listing: "index N:" blocks; an FPGA's block has "model  NAME". */
struct chain {
	unsigned devices, fpgas;
	char model[8][64];
	unsigned idcode[8];
};

static void parse_detect(const char *output, struct chain *chain)
{
	memset(chain, 0, sizeof *chain);
	unsigned idcode = 0;
	for (const char *p = output; *p;) {
		size_t len = strcspn(p, "\n");
		char line[256];
		snprintf(line, sizeof line, "%.*s", (int)(len < 255 ? len : 255), p);
		char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		char word[64];
		if (!strncmp(s, "index ", 6)) {
			chain->devices++;
		} else if (sscanf(s, "idcode 0x%x", &idcode) == 1) {
			/* kept for the model line that follows */
		} else if (sscanf(s, "model %63s", word) == 1 && chain->fpgas < 8) {
			snprintf(chain->model[chain->fpgas], sizeof chain->model[0], "%s", word);
			chain->idcode[chain->fpgas++] = idcode;
		}
		p += len + (p[len] == '\n');
	}
}

/* ---- sysfs ---- */

static const char *sysfs_root(void)
{
	const char *root = getenv("PKTSTATS_SYSFS_ROOT");
	return root && *root ? root : "/sys";
}

static bool read_hex_file(const char *path, unsigned *value)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fscanf(f, "%x", value) == 1;
	fclose(f);
	return ok;
}

/* Addresses of the boards on PCI (10ee:7024), sorted; their count. */
static unsigned find_boards(const char *root, char addresses[][32], unsigned max)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/bus/pci/devices", root);
	DIR *dir = opendir(path);
	if (!dir)
		return 0;
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(dir)) && n < max) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= 32)
			continue;
		unsigned vendor, device;
		snprintf(path, sizeof path, "%s/bus/pci/devices/%s/vendor", root, e->d_name);
		if (!read_hex_file(path, &vendor) || vendor != PCI_VENDOR_XILINX)
			continue;
		snprintf(path, sizeof path, "%s/bus/pci/devices/%s/device", root, e->d_name);
		if (!read_hex_file(path, &device) || device != PCI_DEVICE_XDMA)
			continue;
		snprintf(addresses[n++], 32, "%s", e->d_name);
	}
	closedir(dir);
	for (unsigned i = 1; i < n; i++) /* sorted, so the first is the same on every run */
		for (unsigned j = i; j > 0 && strcmp(addresses[j - 1], addresses[j]) > 0; j--) {
			char t[32];
			memcpy(t, addresses[j], 32);
			memcpy(addresses[j], addresses[j - 1], 32);
			memcpy(addresses[j - 1], t, 32);
		}
	return n;
}

/* Writes "1" to ROOT/RELATIVE; 0 or -errno. */
static int sysfs_write_1(const char *root, const char *relative, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", root, relative);
	int fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	ssize_t wrote = write(fd, "1", 1);
	int err = wrote == 1 ? 0 : wrote < 0 ? -errno : -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

static double seconds_now(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + now.tv_nsec / 1e9;
}

/* ---- the command ---- */

struct flash_state {
	const struct cli *cli;
	bool json;
	char tool[4096];
	char commands[MAX_COMMANDS][8192];
	unsigned n_commands;
};

/* Runs one tool command (printing it first, without -j); CLI_OK with run filled, or
 * CLI_RUNTIME when it could not be started. */
static int flash_run(struct flash_state *s, char **argv, struct tool_run *run)
{
	char *text = s->commands[s->n_commands < MAX_COMMANDS ? s->n_commands++ : MAX_COMMANDS - 1];
	command_text(argv, text, sizeof s->commands[0]);
	if (!s->json)
		fprintf(stderr, "pktstats: flash: running: %s\n", text);
	int err = run_tool(s->tool, argv, !s->json, run);
	if (err < 0) {
		fprintf(stderr, "pktstats: flash: cannot run %s: %s\n", s->tool, strerror(-err));
		return CLI_RUNTIME;
	}
	return CLI_OK;
}

static int flash_main(struct cli *cli, int argc, char **argv)
{
	struct keyword keywords[] = {{"cable", NULL}, {"board-timeout", NULL}};
	enum { N = sizeof keywords / sizeof keywords[0] };
	const char *file = NULL;
	bool write_flash = false;
	char *rest[16];
	int n_rest = 0;
	/* FILE first, `flash` anywhere after it; the rest are KEYWORD VALUE pairs. */
	for (int i = 0; i < argc; i++) {
		if (i == 0) {
			file = argv[i];
		} else if (!strcmp(argv[i], "flash")) {
			if (write_flash)
				return cli_usage(cli, "flash given twice");
			write_flash = true;
		} else if (n_rest < 16) {
			rest[n_rest++] = argv[i];
			/* a keyword's value is never taken as `flash` */
			if ((!strcmp(argv[i], "cable") || !strcmp(argv[i], "board-timeout")) &&
			    i + 1 < argc && n_rest < 16)
				rest[n_rest++] = argv[++i];
		} else {
			return cli_usage(cli, "unexpected argument '%s' (see pktstats flash --help)",
					 argv[i]);
		}
	}
	if (!file)
		return cli_usage(cli, "no bitstream given: pktstats flash FILE.bit [cable NAME] "
				      "[board-timeout DURATION]");
	/* openFPGALoader writes a 7-series board's flash through its SPI bridge only (0.10; its
	 * BPI bridge knows one other part): on this board's BPI flash it would fail, leaving the
	 * bridge in the FPGA. Refused, with the way that works. */
	if (write_flash)
		return cli_usage(cli, "flash: openFPGALoader cannot write the NetFPGA-1G-CML's BPI "
				      "flash (it writes 7-series flash over SPI); program "
				      "netfpga_1g_cml_top.mcs with Vivado's hardware manager "
				      "(docs/board.md)");
	if (!*file)
		return cli_usage(cli, "the bitstream file name is empty");
	int status = keywords_parse(cli, n_rest, rest, keywords, N, "flash");
	if (status != CLI_OK)
		return status;
	const char *cable = keyword_value(keywords, N, "cable");
	if (cable) {
		if (!*cable || cable[0] == '-' || strspn(cable, "abcdefghijklmnopqrstuvwxyz"
						   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
						   strlen(cable))
			return cli_usage(cli, "cable '%s': not a cable name (letters, digits, '_' "
					 "and '-'; openFPGALoader --list-cables)", cable);
	}
	uint64_t timeout_ns = DEFAULT_TIMEOUT_NS;
	const char *timeout_word = keyword_value(keywords, N, "board-timeout");
	if (timeout_word) {
		const char *error = parse_duration(timeout_word, &timeout_ns);
		if (!error && timeout_ns == 0)
			error = "must be more than 0";
		if (!error && timeout_ns > MAX_TIMEOUT_NS)
			error = "is above 600 s";
		if (error)
			return cli_usage(cli, "board-timeout '%s': %s", timeout_word, error);
	}
	struct bit_header bit;
	const char *why = bit_read(file, &bit);
	if (why)
		return cli_usage(cli, "%s: %s", file, why);
	if (!bit_part_is_board(bit.part))
		return cli_usage(cli, "%s: the bitstream is for part %s, the board's is %s",
				 file, bit.part, BOARD_PART);

	struct flash_state s = {.cli = cli, .json = cli->json};
	if (!find_tool(s.tool, sizeof s.tool)) {
		fprintf(stderr, "pktstats: flash: " FLASH_TOOL " not found on PATH: install the "
			"Debian package " FLASH_PACKAGE " (apt-get install " FLASH_PACKAGE ")\n");
		return CLI_RUNTIME;
	}
	const char *root = sysfs_root();
	char path[4096];
	struct stat st;
	snprintf(path, sizeof path, "%s/bus/pci/devices", root);
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "pktstats: flash: %s: no PCI bus in sysfs: %s\n", path,
			stat(path, &st) < 0 ? strerror(errno) : "not a directory");
		return CLI_RUNTIME;
	}

	/* The chain. */
	char *detect[8];
	int k = 0;
	detect[k++] = s.tool;
	if (cable) {
		detect[k++] = "-c";
		detect[k++] = (char *)cable;
	}
	detect[k++] = "--detect";
	detect[k] = NULL;
	struct tool_run run;
	char message[2048];
	if ((status = flash_run(&s, detect, &run)) != CLI_OK)
		return status;
	struct chain chain;
	parse_detect(run.output, &chain);
	tool_message(run.output, message, sizeof message);
	free(run.output);
	if (run.status != 0) {
		bool no_cable = strstr(message, "JTAG init failed") || strstr(message, "claim cable");
		bool unknown_cable = cable && strstr(message, "not found") && strstr(message, cable);
		fprintf(stderr, "pktstats: flash: %s: " FLASH_TOOL " exit %d: %s%s\n",
			unknown_cable ? "openFPGALoader does not know this cable"
			: no_cable    ? "no JTAG cable found"
				      : "the JTAG chain could not be read",
			run.status, message,
			unknown_cable ? " (see openFPGALoader --list-cables)"
			: no_cable    ? " (is the cable plugged in, and may this user open it?)"
				      : "");
		return CLI_RUNTIME;
	}
	if (chain.fpgas == 0) {
		fprintf(stderr, "pktstats: flash: no FPGA on the JTAG chain (%u other devices; is "
			"the board powered?)\n", chain.devices);
		return CLI_RUNTIME;
	}
	if (chain.fpgas > 1 || strcmp(chain.model[0], BOARD_DEVICE)) {
		char found[512] = "";
		for (unsigned i = 0; i < chain.fpgas; i++) {
			size_t t = strlen(found);
			snprintf(found + t, sizeof found - t, "%s%s (idcode 0x%08x)", i ? ", " : "",
				 chain.model[i], chain.idcode[i]);
		}
		fprintf(stderr, "pktstats: flash: the JTAG chain has %s, not the board's one %s\n",
			found, BOARD_DEVICE);
		return CLI_RUNTIME;
	}

	/* Boards on PCI now: removed, their link goes down with the reconfiguration. */
	char before[MAX_BOARDS][32];
	unsigned n_before = find_boards(root, before, MAX_BOARDS);
	for (unsigned i = 0; i < n_before; i++) {
		char relative[MAX_BOARDS * 32 + 64];
		snprintf(relative, sizeof relative, "bus/pci/devices/%s/remove", before[i]);
		int err = sysfs_write_1(root, relative, path, sizeof path);
		if (err < 0) {
			fprintf(stderr, "pktstats: flash: cannot remove the board pci:%s before "
				"loading: %s: %s\n", before[i], path, strerror(-err));
			return CLI_RUNTIME;
		}
	}

	/* The load. */
	char *load[12];
	k = 0;
	load[k++] = s.tool;
	if (cable) {
		load[k++] = "-c";
		load[k++] = (char *)cable;
	}
	load[k++] = "--fpga-part";
	load[k++] = BOARD_PART;
	char dotted[4096];
	if (file[0] == '-') { /* never taken for an option */
		snprintf(dotted, sizeof dotted, "./%s", file);
		load[k++] = dotted;
	} else {
		load[k++] = (char *)file;
	}
	load[k] = NULL;
	if ((status = flash_run(&s, load, &run)) != CLI_OK)
		return status;
	tool_message(run.output, message, sizeof message);
	free(run.output);
	if (run.status != 0) {
		if (n_before) /* bring the old design back on PCI if it still runs */
			sysfs_write_1(root, "bus/pci/rescan", path, sizeof path);
		fprintf(stderr, "pktstats: flash: %s failed: " FLASH_TOOL " exit %d: %s\n",
			"loading the bitstream",
			run.status, message);
		return CLI_RUNTIME;
	}

	/* The board on PCI. */
	double start = seconds_now(), deadline = start + (double)timeout_ns / 1e9;
	double next_rescan = start;
	char board[MAX_BOARDS][32], device[4200] = "", last_error[PKTSTATS_ERROR_MAX] = "";
	struct pktstats_identity id;
	bool answered = false;
	for (;;) {
		double now = seconds_now();
		if (now >= next_rescan) {
			int err = sysfs_write_1(root, "bus/pci/rescan", path, sizeof path);
			if (err < 0) {
				fprintf(stderr, "pktstats: flash: cannot rescan PCI: %s: %s\n", path,
					strerror(-err));
				return CLI_RUNTIME;
			}
			next_rescan = now + 1.0;
		}
		if (find_boards(root, board, MAX_BOARDS) > 0) {
			char open_string[4200];
			if (!strcmp(root, "/sys"))
				snprintf(open_string, sizeof open_string, "pci:%s", board[0]);
			else
				snprintf(open_string, sizeof open_string,
					 "mmap:%s/bus/pci/devices/%s/resource0", root, board[0]);
			snprintf(device, sizeof device, "pci:%s", board[0]);
			struct pktstats_dev *dev = NULL;
			int err = pktstats_open(open_string, 0, &dev, last_error, sizeof last_error);
			if (err == 0) {
				err = pktstats_identity(dev, &id);
				if (err < 0)
					snprintf(last_error, sizeof last_error, "%s", pktstats_error(dev));
				pktstats_close(dev);
				if (err == 0) {
					answered = true;
					break;
				}
			}
			if (!last_error[0])
				snprintf(last_error, sizeof last_error, "%s", strerror(-err));
		}
		if (seconds_now() >= deadline)
			break;
		struct timespec pause = {0, 50 * 1000 * 1000};
		nanosleep(&pause, NULL);
	}
	double waited = seconds_now() - start;
	char limit[32];
	format_duration(timeout_ns, limit, sizeof limit);
	if (!answered) {
		if (device[0])
			fprintf(stderr, "pktstats: flash: the board appeared as %s but does not answer "
				"as pktstats within %s: %s\n", device, limit, last_error);
		else
			fprintf(stderr, "pktstats: flash: no PCI device %04x:%04x appeared within %s "
				"after the rescan (%s): the bitstream was %s, but the board is not on "
				"PCI; a reboot may be needed if the host does not hot-plug\n",
				PCI_VENDOR_XILINX, PCI_DEVICE_XDMA, limit, root,
				"loaded");
		return CLI_RUNTIME;
	}

	char text[64];
	out_begin();
	out_string("file", file);
	out_string("design", bit.design);
	out_string("part", bit.part);
	out_string("date", bit.date);
	out_string("time", bit.time);
	out_uint("bitstream-bytes", bit.data_bytes, NULL);
	out_string("target", "sram");
	out_string("cable", cable);
	out_string("fpga", chain.model[0]);
	snprintf(text, sizeof text, "0x%08x", chain.idcode[0]);
	out_uint("idcode", chain.idcode[0], text);
	out_string("detect-command", s.commands[0]);
	out_string("load-command", s.commands[1]);
	const char *removed[MAX_BOARDS];
	char removed_text[MAX_BOARDS * 40] = "";
	for (unsigned i = 0; i < n_before; i++) {
		removed[i] = before[i];
		size_t t = strlen(removed_text);
		snprintf(removed_text + t, sizeof removed_text - t, "%s%s", i ? "," : "", before[i]);
	}
	out_string_array("removed", removed, n_before, n_before ? removed_text : "none");
	out_string("device", device);
	snprintf(text, sizeof text, "0x%08x", id.magic);
	out_uint("magic", id.magic, text);
	snprintf(text, sizeof text, "%u.%u", id.major, id.minor);
	out_string("design-version", text);
	snprintf(text, sizeof text, "%08x", id.git_hash);
	out_string("git-hash", text);
	snprintf(text, sizeof text, "%.1f s", waited);
	out_uint("waited-ms", (uint64_t)(waited * 1000 + 0.5), text);
	out_end();
	return CLI_OK;
}

static const struct cli_verb flash_verbs[] = {
	{"", "FILE.bit [cable NAME] [board-timeout DURATION]",
	 "load a bitstream onto the NetFPGA-1G-CML over JTAG (openFPGALoader), find it on PCI",
	 "Loads FILE.bit into the FPGA of a NetFPGA-1G-CML (XC7K325T-FFG676) over JTAG with\n"
	 "openFPGALoader (Debian package openfpgaloader), then rescans PCI until the board\n"
	 "(vendor 0x10ee, device 0x7024) appears and answers as pktstats (id.magic). Needs no\n"
	 "-d; run as root (PCI rescan) with access to the JTAG cable.\n"
	 "\n"
	 "Before anything runs, FILE.bit's header (design, part, date, time, data length) is\n"
	 "read: a file that is not a Xilinx .bit, is truncated, or is for another part than\n"
	 "xc7k325tffg676 is refused (exit 2). Then, each command line printed on stderr (with\n"
	 "-j: detect_command, load_command):\n"
	 "  openFPGALoader [-c NAME] --detect        the chain must hold one FPGA, an xc7k325t\n"
	 "  openFPGALoader [-c NAME] --fpga-part xc7k325tffg676 FILE.bit\n"
	 "Boards already on PCI are removed (sysfs remove) before the load, then\n"
	 "/sys/bus/pci/rescan is written every second until the board answers.\n"
	 "\n"
	 "Arguments:\n"
	 "  cable NAME               openFPGALoader's cable (openFPGALoader --list-cables:\n"
	 "                           digilent, digilent_hs2, ...); default: its own (ft2232)\n"
	 "  board-timeout DURATION   how long to wait for the board on PCI (10s; ms, s; at\n"
	 "                           most 600s)\n"
	 "\n"
	 "Exit status 1, with openFPGALoader's own message: openFPGALoader not on PATH, no\n"
	 "cable, no FPGA or another FPGA on the chain, the load failing, the board not on PCI\n"
	 "within the timeout. Environment: PATH finds openFPGALoader; PKTSTATS_SYSFS_ROOT, when\n"
	 "set, is used in place of /sys (for tests).\n"
	 "\n"
	 "The configuration flash is not written: it is BPI, and openFPGALoader writes 7-series\n"
	 "flash over SPI only (`flash` after FILE is refused, exit 2); program\n"
	 "netfpga_1g_cml_top.mcs with Vivado's hardware manager (docs/board.md).\n"
	 "\n"
	 "Output (-j: keys with '_'): file, design, part, date, time, bitstream-bytes, target\n"
	 "(sram), cable (null: the default), fpga, idcode, detect-command and\n"
	 "load-command (the command lines run), removed (PCI addresses removed before the\n"
	 "load), device (pci:ADDR), magic, design-version, git-hash, waited-ms.\n",
	 flash_main},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_flash = {
	"flash", "Load a bitstream onto the board over JTAG (openFPGALoader)", flash_verbs,
};
