/* base/exec-path.c: PATH resolution of a command name (see base/exec-path.h). */
#include "base/exec-path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int check_exec(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EACCES;
	if (access(path, X_OK) < 0)
		return -errno;
	return 0;
}

int exec_resolve(const char *file, char *buf, size_t len)
{
	if (strchr(file, '/')) {
		if ((size_t)snprintf(buf, len, "%s", file) >= len)
			return -ENAMETOOLONG;
		int r = check_exec(buf);
		return r == -ENOENT || r == -ENOTDIR ? -ENOENT : r == -ENAMETOOLONG ? r : r ? -EACCES : 0;
	}
	if (strlen(file) >= len)
		return -ENAMETOOLONG;
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int seen_eacces = 0;
	for (const char *p = path;; p = strchr(p, ':') + 1) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		/* A directory whose joined name does not fit cannot hold the command: skip it, never truncate. */
		int w = n ? snprintf(buf, len, "%.*s/%s", (int)n, p, file) : snprintf(buf, len, "./%s", file);
		int r = w >= 0 && (size_t)w < len ? check_exec(buf) : -ENOENT;
		if (!r)
			return 0;
		if (r == -EACCES)
			seen_eacces = 1;
		if (!end)
			break;
	}
	buf[0] = '\0';
	return seen_eacces ? -EACCES : -ENOENT;
}
