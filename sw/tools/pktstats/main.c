/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats: configure and inspect a pktstats device (the simulator, a board).
 *
 *   pktstats [-d DEVICE] [-j] OBJECT VERB [ARGUMENTS]
 *
 * This file: the global options, the walk through the command table (commands.c) with help at
 * every level, opening the device, and the error and exit-status conventions shared by every
 * verb (cli.h). The user's guide is docs/cli.md, the manual page docs/pktstats.8.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output.h"

#define PKTSTATS_CLI_VERSION "1.0"

/* An object whose one verb is named "" is a command by itself (decode, record): its verb's
 * synopsis and run take the arguments after the object. */
static bool is_command(const struct cli_object *object)
{
	return object->verbs[0].name && !object->verbs[0].name[0];
}

static void print_top_help(FILE *to)
{
	fprintf(to,
		"usage: pktstats [OPTIONS] OBJECT VERB [ARGUMENTS]\n"
		"       pktstats OBJECT --help, pktstats OBJECT VERB --help\n"
		"       (or pktstats help [OBJECT [VERB]])\n"
		"\n"
		"Configure and inspect the event capture and the switch of a pktstats device.\n"
		"\n"
		"Options (before the object):\n"
		"  -d, --device DEVICE  the device (default: $PKTSTATS_DEVICE): sim:PATH (the\n"
		"                       simulator's socket), pci:ADDR[,barN], mmap:PATH,\n"
		"                       chardev:PATH, netdev:NAME, a path or an interface name\n"
		"  -j, --json           print what read verbs show as one JSON object\n"
		"  -h, --help           this help\n"
		"  -V, --version        the program's version\n"
		"\n"
		"Objects:\n");
	for (const struct cli_object *const *o = cli_objects; *o; o++) {
		char verbs[128] = "";
		if (is_command(*o))
			snprintf(verbs, sizeof verbs, "%s", (*o)->verbs[0].synopsis);
		else for (const struct cli_verb *v = (*o)->verbs; v->name; v++)
			snprintf(verbs + strlen(verbs), sizeof verbs - strlen(verbs), "%s%s",
				 v == (*o)->verbs ? "" : "|", v->name);
		fprintf(to, "  %-11s %-28s %s\n", (*o)->name, verbs, (*o)->summary);
	}
	fprintf(to, "\nExit status: 0 done, 1 the device or system failed, 2 usage error.\n"
		    "See pktstats(8) and docs/cli.md.\n");
}

static void print_object_help(const struct cli_object *object)
{
	printf("usage: pktstats [OPTIONS] %s VERB [ARGUMENTS]\n\n%s.\n\nVerbs:\n", object->name,
	       object->summary);
	for (const struct cli_verb *v = object->verbs; v->name; v++) {
		printf("  pktstats %s %s%s%s\n", object->name, v->name, *v->synopsis ? " " : "",
		       v->synopsis);
		printf("      %s\n", v->summary);
	}
	printf("\nMore: pktstats %s VERB --help\n", object->name);
}

static void print_verb_help(const struct cli_object *object, const struct cli_verb *verb)
{
	printf("usage: pktstats [OPTIONS] %s%s%s%s%s\n\n%s\n", object->name, *verb->name ? " " : "",
	       verb->name, *verb->synopsis ? " " : "", verb->synopsis, verb->summary);
	if (verb->details)
		printf("\n%s", verb->details);
}

/* "pktstats: OBJECT VERB: MESSAGE" on stderr, one line. */
static void message(const struct cli *cli, const char *format, va_list args)
{
	fputs("pktstats: ", stderr);
	if (cli && cli->object)
		fprintf(stderr, "%s%s%s: ", cli->object, cli->verb ? " " : "",
			cli->verb ? cli->verb : "");
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
}

int cli_usage(const struct cli *cli, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	message(cli, format, args);
	va_end(args);
	return CLI_USAGE;
}

void cli_say(const struct cli *cli, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	message(cli, format, args);
	va_end(args);
}

int cli_open(struct cli *cli, unsigned flags)
{
	if (!cli->device)
		return cli_usage(cli, "no device: give -d DEVICE or set PKTSTATS_DEVICE "
				      "(e.g. sim:/tmp/pktstats-sim.sock)");
	char error[PKTSTATS_ERROR_MAX] = "";
	int err = pktstats_open(cli->device, flags, &cli->dev, error, sizeof error);
	if (err < 0) {
		fprintf(stderr, "pktstats: %s: %s\n", cli->device, *error ? error : strerror(-err));
		return CLI_RUNTIME;
	}
	return CLI_OK;
}

int cli_fail(const struct cli *cli, int err)
{
	return cli_fail_about(cli, err, NULL);
}

int cli_fail_about(const struct cli *cli, int err, const char *about)
{
	const char *detail = cli->dev ? pktstats_error(cli->dev) : "";
	fprintf(stderr, "pktstats: %s %s: %s%s%s\n", cli->object, cli->verb, about ? about : "",
		about ? ": " : "", *detail ? detail : strerror(-err));
	return CLI_RUNTIME;
}

int cli_no_arguments(const struct cli *cli, int argc, char **argv)
{
	if (argc > 0)
		return cli_usage(cli, "unexpected argument '%s' (this verb takes none)", argv[0]);
	return CLI_OK;
}

static void list_names(char *text, size_t size, const struct cli_object *object)
{
	text[0] = '\0';
	if (object) {
		for (const struct cli_verb *v = object->verbs; v->name; v++)
			snprintf(text + strlen(text), size - strlen(text), "%s%s",
				 v == object->verbs ? "" : ", ", v->name);
	} else {
		for (const struct cli_object *const *o = cli_objects; *o; o++)
			snprintf(text + strlen(text), size - strlen(text), "%s%s",
				 o == cli_objects ? "" : ", ", (*o)->name);
	}
}

static bool is_help(const char *word)
{
	return !strcmp(word, "--help") || !strcmp(word, "-h") || !strcmp(word, "help");
}

static int run(int argc, char **argv)
{
	struct cli cli = {0};
	const char *environment = getenv("PKTSTATS_DEVICE");
	if (environment && *environment)
		cli.device = environment;

	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *option = argv[i];
		if (!strcmp(option, "--")) {
			i++;
			break;
		}
		if (!strcmp(option, "-h") || !strcmp(option, "--help")) {
			print_top_help(stdout);
			return CLI_OK;
		}
		if (!strcmp(option, "-V") || !strcmp(option, "--version")) {
			printf("pktstats %s\n", PKTSTATS_CLI_VERSION);
			return CLI_OK;
		}
		if (!strcmp(option, "-j") || !strcmp(option, "--json")) {
			cli.json = true;
		} else if (!strcmp(option, "-d") || !strcmp(option, "--device")) {
			if (i + 1 >= argc)
				return cli_usage(NULL, "option '%s' needs a DEVICE", option);
			cli.device = argv[++i];
			if (!*cli.device)
				return cli_usage(NULL, "option '%s': the DEVICE is empty", option);
		} else if (!strncmp(option, "--device=", 9)) {
			cli.device = option + 9;
			if (!*cli.device)
				return cli_usage(NULL, "option '--device=': the DEVICE is empty");
		} else {
			return cli_usage(NULL, "unknown option '%s' (see pktstats --help)", option);
		}
	}
	char names[160];
	if (i >= argc) {
		list_names(names, sizeof names, NULL);
		return cli_usage(NULL, "no object given (objects: %s; see pktstats --help)", names);
	}
	/* `help [OBJECT [VERB]]` is `[OBJECT [VERB]] --help`, as in ip(8). */
	bool help = !strcmp(argv[i], "help");
	if (help && ++i >= argc) {
		print_top_help(stdout);
		return CLI_OK;
	}
	const struct cli_object *object = NULL;
	for (const struct cli_object *const *o = cli_objects; *o; o++)
		if (!strcmp((*o)->name, argv[i]))
			object = *o;
	if (!object) {
		list_names(names, sizeof names, NULL);
		return cli_usage(NULL, "unknown object '%s' (objects: %s)", argv[i], names);
	}
	cli.object = object->name;
	i++;
	const struct cli_verb *verb = NULL;
	if (is_command(object)) {
		verb = object->verbs; /* pktstats decode FILE...: arguments right after the object */
		if (help) {
			print_verb_help(object, verb);
			return CLI_OK;
		}
	} else {
		list_names(names, sizeof names, object);
		if (i < argc && is_help(argv[i])) { /* OBJECT help [VERB] */
			help = true;
			i++;
		}
		if (help && i >= argc) {
			print_object_help(object);
			return CLI_OK;
		}
		if (i >= argc)
			return cli_usage(&cli, "no verb given (verbs: %s)", names);
		for (const struct cli_verb *v = object->verbs; v->name; v++)
			if (!strcmp(v->name, argv[i]))
				verb = v;
		if (!verb)
			return cli_usage(&cli, "unknown verb '%s' (verbs: %s)", argv[i], names);
		cli.verb = verb->name;
		i++;
		if (help) {
			print_verb_help(object, verb);
			return CLI_OK;
		}
	}
	for (int k = i; k < argc; k++) {
		if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
			print_verb_help(object, verb);
			return CLI_OK;
		}
		if (!strcmp(argv[k], "-j") || !strcmp(argv[k], "-d") ||
		    !strcmp(argv[k], "--json") || !strcmp(argv[k], "--device"))
			return cli_usage(&cli, "option '%s' goes before the object "
					       "(pktstats %s %s%s%s ...)", argv[k], argv[k],
					 object->name, cli.verb ? " " : "", cli.verb ? cli.verb : "");
	}
	out_init(cli.json);
	int status = verb->run(&cli, argc - i, argv + i);
	pktstats_close(cli.dev);
	int err = out_flush();
	if (err < 0 && status == CLI_OK) {
		fprintf(stderr, "pktstats: writing the output: %s\n", strerror(-err));
		status = CLI_RUNTIME;
	}
	return status;
}

int main(int argc, char **argv)
{
	return run(argc, argv);
}
