/*
 * replay.c: runs tests/fuzz/fuzz_kpep.c's LLVMFuzzerTestOneInput on files
 * and on every file of directories, without libFuzzer, so `make check`
 * replays the corpus and the crash reproducers with the normal compiler.
 * Prints how many inputs ran; a broken invariant aborts.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t run_file(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	if (lk_read_file(path, 8u << 20, &buf, &len) < 0) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		exit(1);
	}
	LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	free(buf);
	return 1;
}

int main(int argc, char **argv)
{
	size_t n = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			n += run_file(argv[i]);
			continue;
		}
		DIR *d = opendir(argv[i]);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char *f = xasprintf("%s/%s", argv[i], de->d_name);
			if (stat(f, &st) == 0 && S_ISREG(st.st_mode))
				n += run_file(f);
			free(f);
		}
		if (d)
			closedir(d);
	}
	printf("replayed %zu inputs\n", n);
	return 0;
}
