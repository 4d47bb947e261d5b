/* machine/backend-choice.c: a backend named by the user, and whether it can run here (see the header). */
#include "machine/backend-choice.h"
#include "base/error.h"
#include "base/sudo.h"
#include "base/util.h"
#ifdef __linux__
#include "backend/perf-events.h"
#include <linux/perf_event.h>
#endif

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

/* Can backend `name` run here (it exists in this build and its detect() passes)? */
static bool runs_here(const char *name)
{
	char why[256];
	const struct lk_backend *b = backend_find(name);
	return b && (!b->detect || b->detect(why, sizeof(why)) == 0);
}

/*
 * The line every "no PMU" error ends with (issue 30): a machine without
 * hardware counters (most VMs) still has exact simulated ones.
 */
void backend_no_pmu_tip(void)
{
#ifdef __APPLE__
	tip("no PMU here; 'lauka --backend rusage' still measures time and memory (valgrind does not run on macOS)");
#else
	tip("no PMU here; --backend valgrind counts Ir, cache and branch misses by simulation%s",
	    runs_here("valgrind") ? "" : " (install valgrind first)");
#endif
}

void backend_event_tip(const struct lk_backend *b, const struct lk_evsel *e)
{
	if (!b || !e || e->err != -LK_ENOTSUP)
		return;
#ifdef __linux__
	/* Hardware, cache and raw (vendor) events need the core PMU a VM does not pass through. */
	uint32_t t = e->ev->perf_type;
	if (!strcmp(b->name, "perf") &&
	    (t == PERF_TYPE_HARDWARE || t == PERF_TYPE_HW_CACHE || t == PERF_TYPE_RAW) && !perf_have_core_pmu())
		backend_no_pmu_tip();
#endif
}

void backend_unusable_tip(const struct lk_backend *b, const char *verb, const char *why)
{
	if (!b)
		return;
	if (why && strstr(why, "virtual machine")) {
		/* xctrace's check of kern.hv_vmm_present: a virtual Mac has no counters for any backend. */
		backend_no_pmu_tip();
	} else if (!strcmp(b->name, "valgrind")) {
#ifdef __APPLE__
		tip("valgrind does not run on Apple silicon; 'lauka %s --backend xctrace' needs no root (it needs Xcode)",
		    verb);
#else
		fix("install valgrind (Debian/Ubuntu: apt-get install valgrind; Fedora: dnf install valgrind)");
#endif
	} else if (!strcmp(b->name, "perf")) {
		tip("without perf_event_open, --backend valgrind counts Ir, cache and branch misses by simulation%s",
		    runs_here("valgrind") ? "" : " (install valgrind first)");
	} else if (!strcmp(b->name, "kperf")) {
		if (runs_here("xctrace"))
			tip("'lauka %s --backend xctrace' records the counters through Instruments instead", verb);
		else
			tip("without kperf and xctrace, 'lauka %s --backend rusage' still measures time and memory", verb);
	} else if (!strcmp(b->name, "xctrace")) {
		tip("xctrace comes with Xcode (not the Command Line Tools); without it, 'sudo lauka %s --backend kperf' "
		    "counts the same events", verb);
	}
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
		backend_unusable_tip(b, argc > 0 && !strcmp(argv[0], "calibrate") ? "calibrate" : "record", why);
		return -EXIT_COUNTERS;
	}
	return 0;
}
