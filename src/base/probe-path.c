/* base/probe-path.c: finding lauka-probe (see base/probe-path.h). */
#include "base/probe-path.h"

#include "base/error.h"
#include "install-dirs.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __APPLE__
#include <mach-o/dyld.h>
#endif

void probe_path_join(char *buf, size_t len, const char *bindir, const char *rel, const char *file)
{
	if (!rel || !*rel || !strcmp(rel, "."))
		snprintf(buf, len, "%s/%s", bindir, file);
	else if (rel[0] == '/')
		snprintf(buf, len, "%s/%s", rel, file);
	else
		snprintf(buf, len, "%s/%s/%s", bindir, rel, file);
}

/* The directory of the running binary, symlinks resolved; "" when unknown. */
static void self_dir(char *self, size_t len)
{
	self[0] = '\0';
#ifdef __APPLE__
	char raw[PATH_MAX];
	uint32_t size = sizeof(raw);
	char real[PATH_MAX];
	if (_NSGetExecutablePath(raw, &size) == 0 && realpath(raw, real))
		snprintf(self, len, "%s", real);
#else
	ssize_t n = readlink("/proc/self/exe", self, len - 1);
	self[n > 0 ? n : 0] = '\0';
#endif
	char *slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	else
		self[0] = '\0';
}

int probe_path_find(char *buf, size_t len)
{
	const char *env = getenv("LAUKA_PROBE");
	if (env && *env) {
		snprintf(buf, len, "%s", env);
		if (access(buf, X_OK) < 0) {
			error("LAUKA_PROBE='%s' is not an executable file", env);
			fix("point LAUKA_PROBE at lauka-probe, or unset it to use the installed one");
			return -1;
		}
		return 0;
	}
	char dir[PATH_MAX];
	self_dir(dir, sizeof(dir));
	if (!dir[0]) {
		error("cannot tell where the lauka binary is, to find 'lauka-probe' next to it");
		fix("set LAUKA_PROBE=/path/to/lauka-probe");
		return -1;
	}
	char next[PATH_MAX + 32], installed[PATH_MAX + 256];
	probe_path_join(next, sizeof(next), dir, ".", "lauka-probe");
	probe_path_join(installed, sizeof(installed), dir, LAUKA_LIBEXEC_REL "/lauka", "lauka-probe");
	const char *const tries[] = { next, installed };
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++)
		if (access(tries[i], X_OK) == 0) {
			snprintf(buf, len, "%s", tries[i]);
			return 0;
		}
	error("the probe program '%s' is missing, and so is '%s'", next, installed);
	fix("build it with 'make' (or reinstall with 'make install'), or set LAUKA_PROBE=/path/to/lauka-probe");
	return -1;
}
