/*
 * backend/perf.c: Linux perf_event_open(2) as a counter source.
 *
 * Counting the way perf stat does, with disabled=1 + enable_on_exec=1 +
 * inherit=1: before every run bind() opens the counters on the runner's
 * spawner (spawn/spawner.h), which never execs again, so they stay off for it,
 * and detach() closes them after the run is read.  Each command it starts inherits them at fork, they
 * switch on at the command's exec, and when the command (and each of its
 * threads and children) exits the kernel adds its count and its
 * time_enabled/time_running to the spawner's event (perf_event_exit_task ->
 * sync_child_event) before the exit is reported to the waiting parent.  So
 * each run's counts are the difference of two reads taken after each reap:
 * children and threads included, neither lauka nor the spawner counted,
 * multiplexing times summed over the command's tasks as perf stat does.
 *
 * Why per run and not once for all runs: a child still running when its
 * command exits (a detached `git gc --auto`, `cmd &` in a script) holds
 * events inherited from the spawner's, and folds its count into them
 * whenever it exits, i.e. into whatever run is measured then, even the next
 * command's (issue 36 P1).  Closing the spawner's event frees its inherited
 * children with it (perf_event_release_kernel walks the event's child_list
 * and removes each child from its context, kernel/events/core.c), so a
 * lingering child is counted, as by perf stat, only until its command exits,
 * and never charged to another run.  The runner says when a command's
 * process group still had members after its reap (spawn/runner.h).
 *
 * One kernel rule makes this need care.  A child whose events were all
 * inherited gets a context marked as a clone of its parent's, and at a
 * context switch between two such tasks the scheduler swaps the contexts
 * instead of switching events (perf_event_context_sched_out, context_equiv).
 * The spawner's original events can so end up on the command; its exec then
 * enables them and clears their enable_on_exec (event_enable_on_exec), and
 * they die with it, after which every later child inherits dead events that
 * never count: on this machine only the first one or two runs were counted,
 * with posix_spawn and with fork alike.  A non-inherited sentinel event in
 * the same context (inherit_task_group clears inherited_all) keeps the
 * child's context from ever being marked a clone, so no swap happens.
 *
 * The per-child path (the runner forks, the child blocks on a gate,
 * attach() opens the counters on its pid) remains where bind() cannot be
 * used: when opening on the spawner fails, and with LAUKA_PERF_PER_CHILD=1
 * (the cross-check tests compare both paths).
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

#include "backend/backend.h"
#include "base/error.h"
#include "backend/perf-events.h"
#include "base/util.h"

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
	pid_t bound;		/* the spawner the counters are open on (bind), 0 = per child */
	bool no_bind;		/* bind failed once: per child from now on */
	int sentinel[2];	/* non-inherited events keeping the children's contexts from being clones */
	struct lk_counts *prev;	/* totals after the previous run (bound) */
	uint32_t *core_pmu;	/* per event: the hybrid core PMU it counts on (its type), 0 = not hybrid */
};

/* Tests stand in for the system call (perf_set_open_hook, perf-events.h); NULL: the kernel. */
static perf_open_fn open_hook;

void perf_set_open_hook(perf_open_fn fn)
{
	open_hook = fn;
}

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags)
{
	if (open_hook)
		return open_hook(attr, pid, cpu, group, flags);
	return syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

/*
 * Hybrid Intel CPUs (issue 35 item 5; doc/linux-events.md): each hardware event counts on one core
 * type's PMU, and only while the task runs on a core of that type.  The kernel's time_enabled runs
 * all along, time_running only on that core type (tools/perf/Documentation/intel-hybrid.txt: a task
 * on an E-core shows its cpu_core cycles "(0.47%)", which perf stat then scales up 200-fold).  So
 * the time that is missing from time_running is not multiplexing, and an event's count is scaled
 * only by the time its core type was counted at all: the longest time_running of the set's events
 * on that PMU stands for time_enabled (exact when one of them was never multiplexed).
 */
static uint32_t hybrid_pmu_of(const struct lk_event *ev)
{
	struct perf_hybrid_pmu h[4];
	size_t nh = perf_hybrid_pmus(h, ARRAY_SIZE(h));
	int k = perf_hybrid_index(ev, h, nh < ARRAY_SIZE(h) ? nh : ARRAY_SIZE(h));
	return k < 0 ? 0 : h[k].type;
}

static void hybrid_times(const struct perf_priv *p, struct lk_counts *out)
{
	for (size_t i = 0; i < p->n; i++) {
		if (!p->core_pmu[i] || !out[i].supported)
			continue;
		uint64_t ran = 0;
		for (size_t k = 0; k < p->n; k++)
			if (p->core_pmu[k] == p->core_pmu[i] && out[k].supported && out[k].running > ran)
				ran = out[k].running;
		if (ran < out[i].enabled)
			out[i].enabled = ran;
	}
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

static char mode;	/* perf's modifier the events were named with: 'u' user mode only, 'k' kernel only, 0 none */

int perf_paranoid(void)
{
	return paranoid_level();
}

/* Kernel counting is allowed for root/CAP_PERFMON or when paranoid <= 1. */
bool perf_may_count_kernel(void)
{
	return geteuid() == 0 || paranoid_level() <= 1;
}

static bool may_count_kernel(void)
{
	return mode != 'u' && perf_may_count_kernel();
}

void perf_count_user_only(void)
{
	mode = 'u';
}

void perf_count_kernel_only(void)
{
	mode = 'k';
}

char perf_count_mode(void)
{
	return mode ? mode : may_count_kernel() ? 0 : 'u';
}

bool perf_counts_kernel(void)
{
	return may_count_kernel();
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
	/* :k counts the kernel alone on the PMU's counters (perf's modifier); software events count as they do */
	a->exclude_user = mode == 'k' && perf_takes_pmu_counter(ev);
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
		if (ev->perf_type == PERF_TYPE_RAW && !perf_have_core_pmu())
			/* A vendor event (libpfm4's encoding) needs the core PMU; perf names it "cpu". */
			lk_errbuf(s->why, sizeof(s->why),
				  "this machine exposes no 'cpu' PMU (virtual machines usually don't pass it through): "
				  "vendor events cannot be counted here");
		else if (hw && !perf_have_core_pmu())
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
			  "not permitted for this user (perf_event_paranoid=%d)", paranoid_level());
		break;
	case EINVAL: {
		s->err = -LK_ENOTSUP;
		const char *slash = ev->perf_type > PERF_TYPE_BREAKPOINT ? strchr(ev->name, '/') : NULL;
		if (slash && perf_pmu_system_wide(ev->name, (size_t)(slash - ev->name)))
			lk_errbuf(s->why, sizeof(s->why),
				  "the '%.*s' PMU counts per CPU, not per process (it has a cpumask in sysfs), and lauka "
				  "counts only the measured command; perf stat -a counts it system-wide",
				  (int)(slash - ev->name), ev->name);
		else
			lk_errbuf(s->why, sizeof(s->why), "the kernel rejected this event with these settings%s",
				  ev->perf_type > PERF_TYPE_BREAKPOINT && geteuid() != 0 ?
					  " (it may need kernel counting, i.e. root)" : "");
		break;
	}
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
		lk_errbuf(why, len, "perf_event_paranoid=%d forbids perf_event_open for this user", paranoid_level());
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
			  "it happens in the kernel, which this user may not count (perf_event_paranoid=%d)",
			  paranoid_level());
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
	p->prev = xcalloc(n ? n : 1, sizeof(*p->prev));
	p->sentinel[0] = p->sentinel[1] = -1;
	p->core_pmu = xcalloc(n ? n : 1, sizeof(*p->core_pmu));
	for (size_t i = 0; i < n; i++) {
		p->core_pmu[i] = hybrid_pmu_of(sel[i].ev);
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

/* The counters' totals so far (for the per-child path: the run's counts). */
static int read_totals(struct perf_priv *p, struct lk_counts *out, char *err, size_t len)
{
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

static void close_bound(struct perf_priv *p)
{
	close_fds(p);
	for (int k = 0; k < 2; k++)
		if (p->sentinel[k] >= 0) {
			close(p->sentinel[k]);
			p->sentinel[k] = -1;
		}
	p->bound = 0;
}

static int open_sentinel(struct perf_priv *p, const struct lk_event *ev, pid_t pid, int k)
{
	struct perf_event_attr a;
	fill_attr(&a, ev, p->exclude_kernel);
	a.disabled = 1;	/* never enabled: takes no counter, counts nothing */
	long fd = sys_perf_event_open(&a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	p->sentinel[k] = (int)fd;
	return 0;
}

static int perf_bind(void *priv, pid_t spawner, char *err, size_t len)
{
	struct perf_priv *p = priv;
	const char *pc = getenv("LAUKA_PERF_PER_CHILD");
	if (p->no_bind || !p->n || (pc && *pc && strcmp(pc, "0")))
		return 0;
	close_bound(p);	/* normally closed by detach() already: every run has counters of its own */
	if (perf_attach(p, spawner, err, len) < 0) {
		p->no_bind = true;	/* attach() per child reports the reason on the command itself */
		return 0;
	}
	/*
	 * Before Linux 6.2 hardware and software events live in separate
	 * contexts, so each kind present gets its own sentinel.
	 */
	struct lk_event dummy = { .perf_type = PERF_TYPE_SOFTWARE, .number = PERF_COUNT_SW_DUMMY };
	int r = open_sentinel(p, &dummy, spawner, 0);
	for (size_t i = 0; r == 0 && i < p->n; i++)
		if (p->sel[i].ev->perf_type != PERF_TYPE_SOFTWARE) {
			r = open_sentinel(p, p->sel[i].ev, spawner, 1);
			break;
		}
	if (r < 0 || read_totals(p, p->prev, err, len) < 0) {
		close_bound(p);
		p->no_bind = true;
		return 0;
	}
	p->bound = spawner;
	return 1;
}

static uint64_t sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static int perf_read(void *priv, const struct lk_run_info *run, struct lk_counts *out, char *err, size_t len)
{
	struct perf_priv *p = priv;
	(void)run;
	int r = read_totals(p, out, err, len);
	if (r == 0 && !p->bound)
		hybrid_times(p, out);
	if (r < 0 || !p->bound)
		return r;
	for (size_t i = 0; i < p->n; i++) {
		struct lk_counts cur = out[i];
		out[i].value = sub(cur.value, p->prev[i].value);
		out[i].enabled = sub(cur.enabled, p->prev[i].enabled);
		out[i].running = sub(cur.running, p->prev[i].running);
		p->prev[i] = cur;
	}
	hybrid_times(p, out);
	/* If read_totals() gave up on the group, the next run opens the events one by one. */
	return 0;
}

static void perf_detach(void *priv)
{
	struct perf_priv *p = priv;
	/* Closing the spawner's events ends the counts of any child the command left running. */
	close_bound(p);
}

static void perf_close(void *priv)
{
	struct perf_priv *p = priv;
	if (p->fd)
		close_bound(p);
	free(p->fd);
	free(p->id);
	free(p->prev);
	free(p->core_pmu);
}

const struct lk_backend backend_perf = {
	.name = "perf",
	.desc = "Linux perf_event_open: software events everywhere, hardware events where a PMU exists",
	.priv_size = sizeof(struct perf_priv),
	.detect = perf_detect,
	.catalog = perf_catalog,
	.supported = perf_supported,
	.pfm_events = true,
	.defaults = perf_defaults,
	.open = perf_open,
	.attach = perf_attach,
	.read = perf_read,
	.detach = perf_detach,
	.close = perf_close,
	.bind = perf_bind,
};

#endif /* __linux__ */
