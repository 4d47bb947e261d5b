/*
 * machine/xctrace-check.c: the xctrace self-check (see machine/xctrace-check.h).
 * It sits above the spawn layer because it runs a probe through the runner,
 * as record does, with the xctrace backend forced into manual mode.
 */
#include "machine/xctrace-check.h"
#include "backend/backend.h"
#include "backend/xctrace/xctrace.h"
#include "base/error.h"
#include "base/capture.h"
#include "base/probe-path.h"
#include "base/sudo.h"
#include "base/util.h"
#include "catalog/db.h"
#include "catalog/pmu.h"
#include "spawn/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void xct_check_judge(struct xct_check *c, uint64_t counted, uint64_t iterations)
{
	c->counted = counted;
	c->expected = 2 * iterations;
	c->ratio = c->expected ? (double)counted / (double)c->expected : 0;
	double lo = (double)c->expected * (1 - XCT_CHECK_TOLERANCE);
	double hi = (double)c->expected * (1 + XCT_CHECK_TOLERANCE) + (double)XCT_CHECK_STARTUP;
	c->ok = (double)counted >= lo && (double)counted <= hi;
	c->why[0] = '\0';
	if (!c->ok)
		snprintf(c->why, sizeof(c->why), "xctrace counted %llu instructions for lauka-probe alu %llu, %.1f%% of "
			 "the %llu it retires%s", (unsigned long long)counted, (unsigned long long)iterations,
			 c->ratio * 100, (unsigned long long)c->expected,
			 counted < lo ? " (the end of the counter stream may be dropped when the command exits first)" : "");
}

/* The file beside lauka's database that keeps the last result. */
static char *state_path(void)
{
	char err[256];
	char *db = db_default_path(err, sizeof(err));
	if (!db)
		return NULL;
	char *slash = strrchr(db, '/');
	char *p = slash ? xasprintf("%.*s/xctrace-check", (int)(slash - db), db) : xstrdup("xctrace-check");
	free(db);
	return p;
}

static void keep(const struct xct_check *c)
{
	char *p = state_path();
	if (!p)
		return;
	/* Under sudo written with the invoking user's ids, as the database is (base/sudo.h): no link followed. */
	int fd = sudo_user_open(p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f) {
		fprintf(f, "%s %.6f %s\n", c->ok ? "ok" : "fail", c->ratio, c->ok ? "" : c->why);
		fclose(f);
	} else if (fd >= 0) {
		close(fd);
	}
	free(p);
}

int xct_check_last(char *why, size_t len)
{
	if (len)
		why[0] = '\0';
	char *p = state_path();
	if (!p)
		return -1;
	/* The user's file (under sudo): read without following a link, only if it is theirs. */
	int fd = lk_open_owned(p, sudo_expected_owner(), NULL);
	free(p);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	char line[512] = "";
	int r = -1;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *reason = strchr(line, ' ');
		reason = reason ? strchr(reason + 1, ' ') : NULL;
		if (!strncmp(line, "ok ", 3))
			r = 0;
		else if (!strncmp(line, "fail ", 5)) {
			r = 1;
			snprintf(why, len, "%s", reason ? reason + 1 : "the last self-check failed");
		}
	}
	fclose(f);
	return r;
}

void xct_check_record_note(const char *backend)
{
	char why[300];
	if (!backend || strcmp(backend, "xctrace") || xctrace_guided() || xct_check_last(why, sizeof(why)) != 1)
		return;
	warning("xctrace counts are suspect: the last self-check failed: %s", why);
	tip("'lauka doctor --backend xctrace' runs the check again");
}

/* One manual recording of lauka-probe alu with FIXED_INSTRUCTIONS; its count in *out. */
static int record_alu(uint64_t *out, char *err, size_t len)
{
	char probe[PATH_MAX];
	if (probe_path_find(probe, sizeof(probe)) < 0) {
		lk_errbuf(err, len, "lauka-probe not found");
		return -LK_ENOENT;
	}
	struct lk_pmu pmu;
	memset(&pmu, 0, sizeof(pmu));
	int r = backend_xctrace.catalog(&pmu, err, len);
	if (r < 0)
		return r;
	const struct lk_event *ev = pmu_find(&pmu, "FIXED_INSTRUCTIONS");
	if (!ev) {
		lk_errbuf(err, len, "FIXED_INSTRUCTIONS is not in the xctrace catalogue");
		pmu_release(&pmu);
		return -LK_ENOENT;
	}
	struct lk_evsel sel;
	memset(&sel, 0, sizeof(sel));
	sel.ev = ev;
	sel.counter = -1;
	sel.explicit = true;
	struct backend_inst bi;
	if ((r = backend_inst_open(&bi, &backend_xctrace, &sel, 1, err, len)) < 0) {
		pmu_release(&pmu);
		return r;
	}
	char iters[32];
	snprintf(iters, sizeof(iters), "%llu", XCT_CHECK_ITERATIONS);
	char *argv[] = { probe, "alu", iters, NULL };
	struct lk_counts c;
	memset(&c, 0, sizeof(c));
	struct lk_counts *cp[1] = { &c };
	struct runner run;
	struct runner_opts o = { .show_output = false, .uid = -1, .gid = -1 };
	struct runner_result res;
	if ((r = runner_init(&run, &o, err, len)) == 0) {
		r = runner_run(&run, probe, argv, &bi, 1, cp, &res, err, len);
		runner_release(&run);
	}
	backend_inst_close(&bi);
	pmu_release(&pmu);
	if (r == 0 && !(c.supported && c.running)) {
		lk_errbuf(err, len, "the recording did not count FIXED_INSTRUCTIONS");
		r = -LK_EIO;
	}
	*out = c.value;
	return r;
}

/* A check that could not run says nothing about xctrace's counts: the older verdict goes. */
static void forget(void)
{
	char *p = state_path();
	if (p && unlink(p) != 0 && errno != ENOENT) {
		/* best effort: a verdict that cannot be removed stays as it was */
	}
	free(p);
}

/* Set name to value for the recording; restore() puts back what was there. */
struct env_saved {
	const char *name;
	char *old;
};

static void env_push(struct env_saved *e, const char *name, const char *value)
{
	const char *v = getenv(name);
	e->name = name;
	e->old = v ? xstrdup(v) : NULL;
	setenv(name, value, 1);
}

static void env_pop(struct env_saved *e)
{
	if (e->old)
		setenv(e->name, e->old, 1);
	else
		unsetenv(e->name);
	free(e->old);
}

unsigned xct_check_timeout(void)
{
	const char *v = getenv("LAUKA_XCTRACE_CHECK_TIMEOUT");
	char *end = NULL;
	long n = v && *v ? strtol(v, &end, 10) : -1;
	return n > 0 && n <= 86400 && end && !*end ? (unsigned)n : XCT_CHECK_TIMEOUT;
}

/*
 * xctrace stalls at an authorisation prompt nobody sees (over SSH) while
 * developer tools access is disabled: `DevToolsSecurity -status` first.
 * 0 to go on (enabled, or the tool missing or unclear), -LK_EPERM with err
 * when it says disabled.
 */
static int devtools_enabled(char *err, size_t len)
{
	static const char *const argv[] = { "DevToolsSecurity", "-status", NULL };
	char out[512] = "";
	int code = 0;
	if (lk_capture(argv, 10, out, sizeof(out), &code) < 0)
		return 0;
	if (strstr(out, "disabled")) {
		lk_errbuf(err, len, "developer tools access is disabled (DevToolsSecurity -status): xctrace would wait "
			  "at an authorisation prompt; enable it with 'sudo DevToolsSecurity -enable'");
		return -LK_EPERM;
	}
	return 0;
}

int xct_check_run(struct xct_check *c, char *err, size_t len)
{
	memset(c, 0, sizeof(*c));
	int r = devtools_enabled(err, len);
	if (r < 0) {
		forget();
		return r;
	}
	/*
	 * Manual mode whatever the caller set (calibrate records guided), and the
	 * check's own watchdog instead of a recording's 1800 s: the probe runs
	 * for under a second, so a longer wait is xctrace stalled.
	 */
	unsigned limit = xct_check_timeout();
	const char *rec = getenv("LAUKA_XCTRACE_TIMEOUT");
	long rl = rec && *rec ? strtol(rec, NULL, 10) : 0;
	if (rl > 0 && (unsigned long)rl < limit)
		limit = (unsigned)rl;	/* a shorter recording limit the user set still holds */
	char secs[16];
	snprintf(secs, sizeof(secs), "%u", limit);
	struct env_saved mode, timeout;
	env_push(&mode, "LAUKA_XCTRACE_MODE", "manual");
	env_push(&timeout, "LAUKA_XCTRACE_TIMEOUT", secs);
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "xctrace self-check: recording lauka-probe alu with xctrace (stopped after %u s)...\n",
			limit);
	uint64_t counted = 0;
	r = record_alu(&counted, err, len);
	env_pop(&timeout);
	env_pop(&mode);
	if (r < 0) {
		forget();
		return r;
	}
	xct_check_judge(c, counted, XCT_CHECK_ITERATIONS);
	keep(c);
	return 0;
}

void xct_check_announce(void)
{
	struct xct_check c;
	char err[512] = "";
	if (xct_check_run(&c, err, sizeof(err)) < 0)
		warning("xctrace self-check could not run: %s", err);
	else if (!c.ok)
		warning("xctrace self-check failed: %s; record marks xctrace counts suspect until a check passes", c.why);
	else
		tip("xctrace self-check passed: %llu instructions for lauka-probe alu's %llu (%.2f%%)",
		    (unsigned long long)c.counted, (unsigned long long)c.expected, c.ratio * 100);
}
