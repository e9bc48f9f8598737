/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replays fuzz inputs without libFuzzer, for `make test`: linked with one fuzz target (its
 * LLVMFuzzerTestOneInput), built with gcc and the project's ASan/UBSan flags, it runs every
 * file of the directories given on the command line (sorted by name, so the TAP numbering is
 * stable) through the target, and prints one TAP point per file.
 *
 *   replay_payload tb/fuzz/corpus/payload tb/fuzz/regressions/payload
 *
 * The targets abort() on a broken invariant and the sanitizers abort on a memory or undefined
 * behaviour error, so a failing input ends the run short of its plan: scripts/run_tests.py
 * counts that as a failure, and the last "# running" line names the input.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	char *path;
};

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct input *)a)->path, ((const struct input *)b)->path);
}

static struct input *inputs;
static size_t n_inputs, cap_inputs;

static void add_input(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;

	if (n_inputs == cap_inputs) {
		cap_inputs = cap_inputs ? 2 * cap_inputs : 64;
		inputs = realloc(inputs, cap_inputs * sizeof(*inputs));
		if (!inputs) {
			perror("realloc");
			exit(2);
		}
	}
	inputs[n_inputs].path = malloc(len);
	if (!inputs[n_inputs].path) {
		perror("malloc");
		exit(2);
	}
	snprintf(inputs[n_inputs].path, len, "%s/%s", dir, name);
	n_inputs++;
}

/* Reads a whole file into a buffer of exactly its size (so ASan sees reads past it). */
static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		return NULL;
	buf = malloc(n ? (size_t)n : 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR...\n", argv[0]);
		return 2;
	}
	for (int a = 1; a < argc; a++) {
		DIR *d = opendir(argv[a]);
		struct dirent *e;

		if (!d) {
			/* a missing directory would silently test nothing */
			perror(argv[a]);
			return 2;
		}
		while ((e = readdir(d))) {
			struct stat st;
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", argv[a], e->d_name);
			if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
				continue;
			add_input(argv[a], e->d_name);
		}
		closedir(d);
	}
	qsort(inputs, n_inputs, sizeof(*inputs), by_path);

	printf("1..%zu\n", n_inputs);
	for (size_t i = 0; i < n_inputs; i++) {
		size_t size = 0;
		uint8_t *data = read_file(inputs[i].path, &size);

		if (!data) {
			printf("not ok %zu - %s: cannot read\n", i + 1, inputs[i].path);
			continue;
		}
		printf("# running %s\n", inputs[i].path);
		fflush(stdout);
		LLVMFuzzerTestOneInput(data, size);
		printf("ok %zu - %s (%zu bytes)\n", i + 1, inputs[i].path, size);
		fflush(stdout);
		free(data);
		free(inputs[i].path);
	}
	free(inputs);
	return 0;
}
