/*
 * backend-perf.c: Linux perf_event_open(2) as a counter source.
 *
 * Counting a child the way perf stat does: the runner forks, the child
 * blocks on a gate pipe, attach() opens the counters on the child's pid with
 * disabled=1 + enable_on_exec=1 + inherit=1, the gate opens and counting
 * starts at exec, so lauka's own fork/pipe work is never counted.  inherit
 * folds in every process the command forks (sh -c, make, ...).  Counts stay
 * readable after the child is reaped.
 *
 * Privileges: with perf_event_paranoid >= 2 an unprivileged caller must set
 * exclude_kernel, or the open fails with EACCES even for events that do not
 * exist; so the permission decision comes first.  Context switches and CPU
 * migrations happen in the kernel: with exclude_kernel they always read 0,
 * so they are reported as needing privileges rather than shown as 0.
 * Without a hardware PMU (most VMs) hardware, cache and raw events fail
 * with ENOENT and are reported as unsupported.
 */
#ifdef __linux__

#include "backend.h"
#include "error.h"
#include "perf-events.h"
#include "util.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

struct perf_priv {
	struct lk_evsel *sel;
	size_t n;
	int *fd;		/* per event; -1 when not open */
	uint64_t *id;		/* kernel event ids, to match group reads */
	bool exclude_kernel;
	bool grouped;		/* open as one group; cleared after the group could not be opened or scheduled */
};

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

static int paranoid_level(void)
{
	static int level = -100;	/* read once per process: it is a boot-time setting */
	if (level != -100)
		return level;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	level = 2;
	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 2;
		fclose(f);
	}
	return level;
}

/* Kernel counting is allowed for root/CAP_PERFMON or when paranoid <= 1. */
static bool may_count_kernel(void)
{
	return geteuid() == 0 || paranoid_level() <= 1;
}

static void fill_attr(struct perf_event_attr *a, const struct lk_event *ev, bool exclude_kernel)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->perf_type;
	a->config = ev->number;
	a->config1 = ev->config1;
	a->config2 = ev->config2;
	a->exclude_kernel = exclude_kernel;
	a->exclude_hv = exclude_kernel;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
}

static bool is_kernel_only(const struct lk_event *ev)
{
	return ev->perf_type == PERF_TYPE_SOFTWARE &&
	       (ev->number == PERF_COUNT_SW_CONTEXT_SWITCHES || ev->number == PERF_COUNT_SW_CPU_MIGRATIONS);
}

static void explain(struct lk_evsel *s, int e)
{
	const struct lk_event *ev = s->ev;
	bool hw = ev->perf_type == PERF_TYPE_HARDWARE || ev->perf_type == PERF_TYPE_HW_CACHE ||
		  ev->perf_type == PERF_TYPE_RAW;
	switch (e) {
	case ENOENT:
	case EOPNOTSUPP:
		s->err = -LK_ENOTSUP;
		if (hw && !perf_have_core_pmu())
			lk_errbuf(s->why, sizeof(s->why),
				  "this machine has no hardware PMU (virtual machines usually don't expose one)");
		else
			lk_errbuf(s->why, sizeof(s->why), "the kernel does not support this event here (%s)",
				  strerror(e));
		break;
	case EACCES:
	case EPERM:
		s->err = -LK_EPERM;
		lk_errbuf(s->why, sizeof(s->why),
			  "not permitted (perf_event_paranoid=%d); run as root or lower "
			  "/proc/sys/kernel/perf_event_paranoid", paranoid_level());
		break;
	case EINVAL:
		s->err = -LK_ENOTSUP;
		lk_errbuf(s->why, sizeof(s->why), "the kernel rejected this event with these settings%s",
			  s->ev->perf_type > PERF_TYPE_BREAKPOINT ? " (it may need kernel counting, i.e. root)" : "");
		break;
	default:
		s->err = -LK_EIO;
		lk_errbuf(s->why, sizeof(s->why), "perf_event_open: %s", strerror(e));
	}
}

static int perf_detect(char *why, size_t len)
{
	struct lk_event ev = { .perf_type = PERF_TYPE_SOFTWARE, .number = PERF_COUNT_SW_TASK_CLOCK };
	struct perf_event_attr a;
	fill_attr(&a, &ev, true);
	a.disabled = 1;
	long fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close((int)fd);
		return 0;
	}
	int e = errno;
	if (e == ENOSYS) {
		lk_errbuf(why, len, "perf_event_open is not available (kernel without perf events, or blocked by seccomp)");
		return -LK_ENOTSUP;
	}
	if (e == EACCES || e == EPERM) {
		lk_errbuf(why, len, "perf_event_paranoid=%d forbids perf_event_open for this user; "
			  "run as root or: sudo sysctl kernel.perf_event_paranoid=2", paranoid_level());
		return -LK_EPERM;
	}
	lk_errbuf(why, len, "perf_event_open failed: %s", strerror(e));
	return -LK_EIO;
}

static int perf_catalog(struct lk_pmu *out, char *err, size_t len)
{
	return perf_events_catalog(out, err, len);
}

static const char *const perf_defaults[] = {
	"cycles", "instructions", "branch-misses", "cache-misses",
	"task-clock", "page-faults", "context-switches", "cpu-migrations", NULL,
};

static void close_fds(struct perf_priv *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->fd[i] >= 0) {
			close(p->fd[i]);
			p->fd[i] = -1;
		}
}

/* Open the event on lauka itself and close it again: sets s->err and s->why when it cannot count here. */
static void probe_event(struct lk_evsel *s, bool exclude_kernel)
{
	if (exclude_kernel && is_kernel_only(s->ev)) {
		s->err = -LK_EPERM;
		lk_errbuf(s->why, sizeof(s->why),
			  "it happens in the kernel, which this user may not count (perf_event_paranoid=%d); "
			  "run as root", paranoid_level());
		return;
	}
	struct perf_event_attr a;
	fill_attr(&a, s->ev, exclude_kernel);
	a.disabled = 1;
	long fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		explain(s, errno);
	else
		close((int)fd);
}

static int perf_supported(const struct lk_event *ev, char *why, size_t len)
{
	struct lk_evsel s = { .ev = ev, .counter = -1 };
	probe_event(&s, !may_count_kernel());
	if (s.err)
		lk_errbuf(why, len, "%s", s.why);
	return s.err;
}

/* Try each event on lauka itself, so unsupported ones are known before any run. */
static int perf_open(void *priv, struct lk_evsel *sel, size_t n, char *err, size_t len)
{
	struct perf_priv *p = priv;
	p->sel = sel;
	p->n = n;
	p->fd = xmalloc((n ? n : 1) * sizeof(*p->fd));
	p->id = xcalloc(n ? n : 1, sizeof(*p->id));
	p->exclude_kernel = !may_count_kernel();
	/* LAUKA_PERF_NOGROUP=1 counts each event on its own (as perf stat does by default). */
	const char *ng = getenv("LAUKA_PERF_NOGROUP");
	p->grouped = n > 1 && !(ng && *ng && strcmp(ng, "0"));
	for (size_t i = 0; i < n; i++) {
		p->fd[i] = -1;
		probe_event(&sel[i], p->exclude_kernel);
	}
	(void)err;
	(void)len;
	return 0;
}

static int open_one(struct perf_priv *p, size_t i, pid_t pid, int group, bool leader)
{
	struct perf_event_attr a;
	fill_attr(&a, p->sel[i].ev, p->exclude_kernel);
	a.inherit = 1;
	if (leader) {
		a.disabled = 1;
		a.enable_on_exec = 1;
	}
	if (p->grouped)
		a.read_format |= PERF_FORMAT_GROUP;
	long fd = sys_perf_event_open(&a, pid, -1, group, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	p->fd[i] = (int)fd;
	if (ioctl(p->fd[i], PERF_EVENT_IOC_ID, &p->id[i]) < 0)
		p->id[i] = 0;
	return 0;
}

static int perf_attach(void *priv, pid_t pid, char *err, size_t len)
{
	struct perf_priv *p = priv;
	int r = 0;
	if (p->grouped) {
		int leader = -1;
		for (size_t i = 0; i < p->n && r == 0; i++) {
			r = open_one(p, i, pid, leader, leader < 0);
			if (r == 0 && leader < 0)
				leader = p->fd[i];
		}
		if (r == 0)
			return 0;
		/* Kernels before 4.13 refuse inherit with group reads; some PMUs refuse mixed groups. */
		close_fds(p);
		p->grouped = false;
	}
	for (size_t i = 0; i < p->n; i++) {
		r = open_one(p, i, pid, -1, true);
		if (r < 0) {
			struct lk_evsel tmp = p->sel[i];
			explain(&tmp, -r);
			lk_errbuf(err, len, "cannot count '%s' on the command: %s", p->sel[i].ev->name, tmp.why);
			close_fds(p);
			return -LK_EIO;
		}
	}
	return 0;
}

static int perf_read(void *priv, const struct lk_run_info *run, struct lk_counts *out, char *err, size_t len)
{
	struct perf_priv *p = priv;
	(void)run;
	memset(out, 0, p->n * sizeof(*out));
	if (p->grouped && p->n) {
		size_t words = 3 + 2 * p->n;
		uint64_t *buf = xcalloc(words, sizeof(*buf));
		ssize_t got = read(p->fd[0], buf, words * sizeof(*buf));
		if (got < (ssize_t)(3 * sizeof(*buf))) {
			free(buf);
			lk_errbuf(err, len, "reading the counter group: %s", got < 0 ? strerror(errno) : "short read");
			return -LK_EIO;
		}
		uint64_t nr = buf[0], ena = buf[1], run_t = buf[2];
		for (uint64_t k = 0; k < nr && k < p->n; k++) {
			uint64_t value = buf[3 + 2 * k], id = buf[4 + 2 * k];
			for (size_t i = 0; i < p->n; i++)
				if (p->id[i] == id)
					out[i] = (struct lk_counts){ .value = value, .enabled = ena, .running = run_t,
								     .supported = true };
		}
		free(buf);
		/* A group that never got onto the PMU cannot be multiplexed: count separately from now on. */
		if (ena && !run_t)
			p->grouped = false;
		return 0;
	}
	for (size_t i = 0; i < p->n; i++) {
		uint64_t v[4] = { 0 };
		ssize_t got = read(p->fd[i], v, sizeof(v));
		if (got < (ssize_t)(3 * sizeof(uint64_t))) {
			lk_errbuf(err, len, "reading '%s': %s", p->sel[i].ev->name, got < 0 ? strerror(errno) : "short read");
			return -LK_EIO;
		}
		out[i] = (struct lk_counts){ .value = v[0], .enabled = v[1], .running = v[2], .supported = true };
	}
	return 0;
}

static void perf_detach(void *priv)
{
	close_fds(priv);
}

static void perf_close(void *priv)
{
	struct perf_priv *p = priv;
	if (p->fd)
		close_fds(p);
	free(p->fd);
	free(p->id);
}

const struct lk_backend backend_perf = {
	.name = "perf",
	.desc = "Linux perf_event_open: software events everywhere, hardware events where a PMU exists",
	.priv_size = sizeof(struct perf_priv),
	.detect = perf_detect,
	.catalog = perf_catalog,
	.supported = perf_supported,
	.defaults = perf_defaults,
	.open = perf_open,
	.attach = perf_attach,
	.read = perf_read,
	.detach = perf_detach,
	.close = perf_close,
};

#endif /* __linux__ */
