/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: what the command files share. The command structure is a table of objects
 * (commands.c), each with a table of verbs (one file per object); main.c walks the tables, so
 * help, dispatch and error messages come from the same entries and cannot disagree.
 *
 * Rules every verb follows:
 *   - parse and check every argument first (cli_usage() on the first bad one, exit 2), then
 *     cli_open() the device, then read or write: a bad command line never touches the device;
 *   - a library failure goes through cli_fail() (exit 1) with the library's one-line detail;
 *   - everything a read verb shows goes through output.h, so -j and the text cannot drift.
 */
#ifndef PKTSTATS_CLI_H
#define PKTSTATS_CLI_H

#include <stdbool.h>

#include "pktstats/pktstats.h"

/* Exit status: the contract of docs/cli.md. */
enum {
	CLI_OK = 0,      /* done */
	CLI_RUNTIME = 1, /* the device or the system failed */
	CLI_USAGE = 2,   /* the command line is wrong; nothing was done */
};

struct cli {
	const char *device;      /* -d DEVICE, else $PKTSTATS_DEVICE; NULL when neither */
	bool json;               /* -j */
	const char *object;      /* "capture": for messages */
	const char *verb;        /* "set" */
	struct pktstats_dev *dev; /* open device (cli_open), closed by main */
};

struct cli_verb {
	const char *name;     /* exact word, no abbreviations */
	const char *synopsis; /* arguments after "pktstats OBJECT VERB", "" when none */
	const char *summary;  /* one line for the object's help */
	const char *details;  /* the verb's --help after its synopsis: keywords, values; or NULL */
	int (*run)(struct cli *cli, int argc, char **argv); /* arguments after the verb */
};

struct cli_object {
	const char *name;
	const char *summary;
	const struct cli_verb *verbs; /* terminated by an entry with name NULL */
};

/* The objects, in the order of `pktstats --help` (commands.c); NULL-terminated. */
extern const struct cli_object *const cli_objects[];

extern const struct cli_object cli_object_capture;
extern const struct cli_object cli_object_timer;
extern const struct cli_object cli_object_time; /* time_cmd.c */
extern const struct cli_object cli_object_counters;
extern const struct cli_object cli_object_queue;
extern const struct cli_object cli_object_fdb;
extern const struct cli_object cli_object_dev;
extern const struct cli_object cli_object_reg;
extern const struct cli_object cli_object_decode; /* decode_cmd.c */
extern const struct cli_object cli_object_record; /* record.c */
extern const struct cli_object cli_object_plot;   /* plot.c */
extern const struct cli_object cli_object_oam;    /* oam_cmd.c */
extern const struct cli_object cli_object_dm;     /* dm_cmd.c */
extern const struct cli_object cli_object_headroom; /* headroom_cmd.c */
extern const struct cli_object cli_object_isl;      /* isl_cmd.c */
extern const struct cli_object cli_object_flowlat;  /* flowlat_cmd.c */
extern const struct cli_object cli_object_flash;    /* flash_cmd.c */
extern const struct cli_object cli_object_mac;      /* mac_cmd.c */
extern const struct cli_object cli_object_cpu_bridge; /* cpu_bridge_cmd.c */

/* Prints "pktstats: OBJECT VERB: MESSAGE" (one line, stderr) and returns CLI_USAGE. */
int cli_usage(const struct cli *cli, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

/* Prints "pktstats: OBJECT VERB: MESSAGE" (one line, stderr): what a verb reports on the way,
 * or before returning CLI_RUNTIME for a failure that is not the library's. */
void cli_say(const struct cli *cli, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Opens cli->device with flags (PKTSTATS_OPEN_*). Returns CLI_OK, or prints why and returns
 * CLI_USAGE (no device given) or CLI_RUNTIME (the open failed). */
int cli_open(struct cli *cli, unsigned flags);

/* For a failed library call (err < 0) on the open device: prints "pktstats: OBJECT VERB: " and
 * the library's detail (pktstats_error()), or strerror when it has none, and returns
 * CLI_RUNTIME. */
int cli_fail(const struct cli *cli, int err);
/* The same with `about` (what the user named, e.g. "id.magic (0x00000008)") before the
 * detail; NULL: none. */
int cli_fail_about(const struct cli *cli, int err, const char *about);

/* Verbs without arguments call this first: CLI_OK, or a usage error for the first argument. */
int cli_no_arguments(const struct cli *cli, int argc, char **argv);

#endif
