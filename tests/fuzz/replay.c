/* SPDX-License-Identifier: ISC */
/*
 * Replays a fuzz corpus through a target built with the normal compiler, so
 * that `make check` (and `make asan`) run every saved input of every parser.
 * Usage: replay_NAME DIR|FILE...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REPLAY_MAX_INPUT (4u << 20)

static int
replay_file(const char *path)
{
	FILE *f;
	uint8_t *buf;
	size_t n;

	if ((f = fopen(path, "rb")) == NULL) {
		perror(path);
		return -1;
	}
	if ((buf = malloc(REPLAY_MAX_INPUT)) == NULL) {
		fclose(f);
		return -1;
	}
	n = fread(buf, 1, REPLAY_MAX_INPUT, f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
main(int argc, char **argv)
{
	int i, count = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *de;
		char **names = NULL;
		size_t nn = 0, k;

		if (stat(argv[i], &st) == -1) {
			perror(argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (replay_file(argv[i]) == -1)
				return 1;
			count++;
			continue;
		}
		if ((d = opendir(argv[i])) == NULL) {
			perror(argv[i]);
			return 1;
		}
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			names = realloc(names, (nn + 1) * sizeof(*names));
			if (names == NULL)
				return 1;
			if (asprintf(&names[nn++], "%s/%s", argv[i],
			        de->d_name) == -1)
				return 1;
		}
		closedir(d);
		qsort(names, nn, sizeof(*names), cmp_str);
		for (k = 0; k < nn; k++) {
			if (replay_file(names[k]) == -1)
				return 1;
			count++;
			free(names[k]);
		}
		free(names);
	}
	if (count == 0) {
		fprintf(stderr, "replay: empty corpus\n");
		return 1;
	}
	printf("replay %s: %d inputs ok\n", argv[0], count);
	return 0;
}
