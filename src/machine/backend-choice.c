/* machine/backend-choice.c: a backend named by the user, and whether it can run here (see the header). */
#include "machine/backend-choice.h"
#include "base/error.h"
#include "base/sudo.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

const struct lk_backend *backend_named(const char *name)
{
	const struct lk_backend *b = backend_find(name);
	if (b)
		return b;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; lk_backends[i]; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", lk_backends[i]->name);
	error("unknown backend '%s'", name);
	tip("backends built into this lauka: %s", strbuf_str(&sb));
	strbuf_release(&sb);
	return NULL;
}

void backend_need_root(int argc, char **argv)
{
	char *cmd = sudo_command(argc, argv);
	fix("run it as root: %s", cmd);
	free(cmd);
}

void backend_root_tip(const struct lk_backend *b, const char *verb)
{
	if (b && !strcmp(b->name, "kperf"))
		tip("'lauka %s --backend xctrace' needs no root (it needs Xcode)", verb);
	else if (b && !strcmp(b->name, "perf"))
		tip("or let every user count: lower /proc/sys/kernel/perf_event_paranoid (2: user space only, "
		    "1: the kernel too)");
}

int backend_usable(const struct lk_backend *b, int argc, char **argv)
{
	char why[512] = "";
	int r = b->detect ? b->detect(why, sizeof(why)) : 0;
	if (r == -LK_EPERM) {
		error("backend '%s' needs root: %s", b->name, why[0] ? why : lk_strerror(r));
		backend_need_root(argc, argv);
		backend_root_tip(b, argc > 0 && !strcmp(argv[0], "calibrate") ? "calibrate" : "record");
		return -EXIT_COUNTERS;
	}
	if (r < 0) {
		error("backend '%s' cannot run here: %s", b->name, why[0] ? why : lk_strerror(r));
		return -EXIT_COUNTERS;
	}
	return 0;
}
