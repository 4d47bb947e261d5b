/*
 * cmd/doctor.c: `lauka doctor [--backend NAME] [--json]`: check, on this
 * machine, the facts lauka relies on, each with what lauka expects, what
 * was observed and a verdict; exit 0 when every fact lauka needs holds,
 * 2 otherwise.
 *
 *   macOS, root     the kpc counter count before and after forcing, the
 *                   values per thread sample, the record layout of a
 *                   spinning child (records per sample, START/END flags,
 *                   samples per ms), the cost of kdebug set-up and reset,
 *                   coverage (sampled / rusage instructions) of 10 ms and
 *                   1 s probes, a configurable instruction count against the
 *                   fixed one on a syscall-heavy probe (F5), the kpep file
 *   macOS, no root  what proc_pid_rusage gives, and what sudo would add
 *   Linux           perf_event_paranoid, the PMU and which generic events
 *                   open, whether kernel mode may be counted, valgrind
 *
 * The kperf facts are read through the kperf backend itself, so on Linux
 * with $LAUKA_KPERF_PATH / $LAUKA_KPERFDATA_PATH pointing at the stand-in
 * (tests) they describe the model.  The probes are lauka itself, re-run
 * with the hidden `doctor --spin MS [--syscalls]`.
 */
#include "backend/backend.h"
#include "backend/kperf/kperf.h"
#include "cmd/builtin.h"
#include "base/error.h"
#include "cmd/options.h"
#include "machine/xctrace-check.h"
#include "catalog/pmu.h"
#include "spawn/runner.h"
#include "base/capture.h"
#include "base/probe-path.h"
#include "base/text.h"
#include "base/util.h"

#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __APPLE__
#include <mach-o/dyld.h>
#endif
#ifdef __linux__
#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include "backend/perf-events.h"
#endif

enum verdict { V_OK, V_INFO, V_FAIL };

struct fact {
	char name[48];
	char expect[200];
	char observed[400];
	enum verdict v;
};

struct doctor {
	struct fact *facts;
	size_t n, cap;
	bool json;
};

static struct fact *add(struct doctor *d, const char *name, enum verdict v, const char *expect, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static struct fact *add(struct doctor *d, const char *name, enum verdict v, const char *expect, const char *fmt, ...)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 16;
		d->facts = xrealloc(d->facts, d->cap * sizeof(*d->facts));
	}
	struct fact *f = &d->facts[d->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->expect, sizeof(f->expect), "%s", expect);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->observed, sizeof(f->observed), fmt, ap);
	va_end(ap);
	f->v = v;
	return f;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Where the spin loop's sums go, so no compiler can drop the loop. */
static volatile unsigned long spin_sink;

/* The hidden probe: spin (or make system calls) for ms of this thread's CPU time. */
static int spin(long ms, bool syscalls)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	double end = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6 + (double)ms;
	for (;;) {
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		if ((double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6 >= end)
			return 0;
		if (syscalls)
			(void)getppid();
		else
			for (int i = 0; i < 1000; i++)
				spin_sink += (unsigned long)i;
	}
}

static bool self_path(char *buf, size_t len)
{
#ifdef __APPLE__
	uint32_t size = (uint32_t)len;
	char raw[PATH_MAX];
	uint32_t rs = sizeof(raw);
	(void)size;
	return _NSGetExecutablePath(raw, &rs) == 0 && realpath(raw, buf);
#else
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
#endif
}

/* ---- kperf (macOS; the stand-in on Linux) ---- */

struct probe_run {
	struct lk_counts c[2];		/* [0] the configurable event, [1] the fixed instructions */
	struct kperf_run_stats rs;
	uint64_t wall_ns;
};

static int run_probe(struct backend_inst *bi, const char *self, const char *ms, bool syscalls, struct probe_run *out,
		     char *err, size_t len)
{
	struct runner r;
	struct runner_opts o = { .show_output = false, .uid = -1, .gid = -1 };
	if (runner_init(&r, &o, err, len) < 0)
		return -1;
	char *argv[] = { (char *)self, "doctor", "--spin", (char *)ms, syscalls ? "--syscalls" : NULL, NULL };
	struct lk_counts *cp[1] = { out->c };
	struct runner_result res;
	int ret = runner_run(&r, self, argv, bi, 1, cp, &res, err, len);
	runner_release(&r);
	if (ret == 0 && res.exit_code) {
		lk_errbuf(err, len, "the probe exited with %d", res.exit_code);
		ret = -1;
	}
	kperf_last_run(bi->priv, &out->rs);
	out->wall_ns = res.wall_ns;
	return ret;
}

static double coverage(const struct lk_counts *c)
{
	return !c->running ? 0 : c->scaled ? c->coverage : 1.0;
}

/* A configurable event of this cpu to sample: the first of a list that the catalogue has. */
static const struct lk_event *pick(const struct lk_pmu *pmu, const char *const *names)
{
	for (; *names; names++) {
		const struct lk_event *e = pmu_find(pmu, *names);
		if (e && e->fixed_counter < 0)
			return e;
	}
	for (size_t i = 0; i < pmu->nevents; i++)
		if (pmu->events[i].fixed_counter < 0 && pmu->events[i].counters_mask)
			return &pmu->events[i];
	return NULL;
}

/* What kperf needs before anything is programmed: the kpep file, the frameworks, root.  false: stop here. */
static bool kperf_access_facts(struct doctor *d)
{
	char why[512] = "", path[PATH_MAX], detail[768];
	int r = kperf_kpep_locate(path, sizeof(path), detail, sizeof(detail));
	add(d, "kpep file", r == 0 ? V_OK : V_FAIL, "cpu_<type>_<subtype>_<family>.plist in $KPEP_DB_PATH, "
	    "/usr/local/share/kpep or /usr/share/kpep", "%s", detail);
	r = backend_kperf.detect(why, sizeof(why));
	if (r == -LK_EPERM) {
		struct kperf_rusage ru;
		char w2[256] = "";
		bool rusage = false;
		if (kperf_rusage_of((int)getpid(), &ru, w2, sizeof(w2)) == 0) {
			rusage = ru.instructions != 0;
			add(d, "rusage", ru.instructions ? V_OK : V_FAIL,
			    "proc_pid_rusage gives instructions and cycles without root",
			    "instructions %llu, cycles %llu of this process", (unsigned long long)ru.instructions,
			    (unsigned long long)ru.cycles);
		} else {
			add(d, "rusage", V_FAIL, "proc_pid_rusage gives instructions and cycles without root", "%s", w2);
		}
		/* Without root, rusage (and xctrace) are the intended set-up: kperf needing root is not a failure. */
		add(d, "kperf", rusage ? V_INFO : V_FAIL, "root: kpc counters of the command's threads (branches, "
		    "cache misses, ...)", "needs root: %s; sudo lauka doctor checks the rest", why);
		return false;
	}
	if (r < 0) {
		add(d, "kperf", V_FAIL, "kperf.framework and kperfdata.framework load, kpc reachable", "%s", why);
		return false;
	}
	return true;
}

/* The state other kperf clients leave (N1) and the counters once forced; the count after forcing, 0 on failure. */
static uint32_t kperf_state_facts(struct doctor *d)
{
	char why[512] = "";
	uint32_t actions = 0;
	if (kperf_action_count(&actions, why, sizeof(why)) < 0)
		add(d, "kperf actions", V_FAIL, "kperf_action_count_get reads the action count", "%s", why);
	else
		add(d, "kperf actions", V_INFO, "XNU never lowers the action count (kperf_reset keeps it): lauka keeps "
		    "what it finds and uses action 1", "%u%s", (unsigned)actions, actions > 1 ?
		    " (set by another kperf client since boot: Instruments, a profiler)" : "");
	struct kperf_probe pr;
	if (kperf_probe(&pr, why, sizeof(why)) < 0) {
		add(d, "kpc forcing", V_FAIL, "kpc_force_all_ctrs_set(1) succeeds", "%s", why);
		return 0;
	}
	add(d, "kpc counters", pr.count_after > 2 && pr.count_after >= pr.count_before ? V_OK : V_FAIL,
	    "kpc_get_counter_count(fixed|configurable) 2+5 before forcing, 2+8 after on M1-M4",
	    "%u before forcing, %u after", (unsigned)pr.count_before, (unsigned)pr.count_after);
	return pr.count_after;
}

/* Pass 0: the sample layout, rate, lost events and coverage of spinning probes. */
static bool kperf_sampling_facts(struct doctor *d, struct backend_inst *bi, const char *self, uint32_t counters)
{
	char why[512] = "";
	struct probe_run pl, p10, p1s;
	memset(&pl, 0, sizeof(pl));
	memset(&p10, 0, sizeof(p10));
	memset(&p1s, 0, sizeof(p1s));
	bool ok = run_probe(bi, self, "100", false, &pl, why, sizeof(why)) == 0 &&
		  run_probe(bi, self, "10", false, &p10, why, sizeof(why)) == 0 &&
		  run_probe(bi, self, "1000", false, &p1s, why, sizeof(why)) == 0;
	if (!ok) {
		add(d, "kperf run", V_FAIL, "a probe runs and is sampled", "%s", why);
		return false;
	}
	const struct kperf_run_stats *s = &pl.rs;
	size_t want = (s->values + 3) / 4;
	double per = s->samples ? (double)s->records / (double)s->samples : 0;
	bool layout = s->samples && s->records == s->samples * want && s->starts == s->samples &&
		      s->ends == (want > 1 ? s->samples : 0);
	add(d, "thread samples", s->values && s->values == counters ? V_OK : V_FAIL,
	    "as many values per sample as counters after forcing (kpc_set_thread_counting)",
	    "%zu values per sample", s->values);
	add(d, "record layout", layout ? V_OK : V_FAIL,
	    "ceil(values/4) records per sample; START on the first, END on the last (one record: START only)",
	    "%.2f records per sample, %zu START and %zu END flags in %zu samples", per, s->starts, s->ends, s->samples);
	double ms = (double)pl.wall_ns / 1e6, rate = ms > 0 ? (double)s->samples / ms : 0;
	add(d, "sample rate", rate >= 0.3 ? V_OK : V_FAIL,
	    "about 1 sample per ms of a spinning thread, at least 0.3 (PET ticks, not only context switches)",
	    "%.2f samples per ms over a %.0f ms run", rate, ms);
	add(d, "lost events", s->lost ? V_FAIL : V_OK, "no TRACE_LOST_EVENTS record in a 100 ms run", "%zu", s->lost);
	add(d, "coverage 10 ms", V_INFO, "sampled / rusage instructions; only the tail after the last tick is missed",
	    "%.1f%%", 100 * coverage(&p10.c[0]));
	double c1 = coverage(&p1s.c[0]);
	add(d, "coverage 1 s", c1 >= 0.5 ? V_OK : V_FAIL, "near 100% for a 1 s single-threaded probe "
	    "(below 50%: the samples are not the command's)", "%.1f%%", 100 * c1);
	return true;
}

/* Pass 1: a configurable instruction count against the fixed one on a syscall-heavy probe (F5). */
static void kperf_user_mode_fact(struct doctor *d, struct backend_inst *bi, const char *self,
				 const struct lk_event *first)
{
	char why[512] = "";
	struct probe_run pl;
	memset(&pl, 0, sizeof(pl));
	if (run_probe(bi, self, "100", true, &pl, why, sizeof(why)) < 0) {
		add(d, "user mode only", V_FAIL, "a syscall-heavy probe runs", "%s", why);
		return;
	}
	double ratio = pl.c[1].value ? (double)pl.c[0].value / (double)pl.c[1].value : 0;
	add(d, "user mode only", V_INFO, "configurable (flag 0) below fixed instructions by the kernel's share "
	    "(release kernels)", "%s / FIXED_INSTRUCTIONS = %.3f on a syscall-heavy probe", first->name, ratio);
}

/* One open of the backend on (first, FIXED_INSTRUCTIONS) and its facts; false: stop. */
static bool kperf_pass(struct doctor *d, int pass, const struct lk_event *first, const struct lk_event *instr,
		       const char *self, uint32_t counters)
{
	char why[512] = "";
	struct lk_evsel sel[2];
	memset(sel, 0, sizeof(sel));
	sel[0].ev = first;
	sel[1].ev = instr;
	sel[0].counter = sel[1].counter = -1;
	sel[0].explicit = sel[1].explicit = true;
	struct backend_inst bi;
	double t0 = now_ms();
	int r = backend_inst_open(&bi, &backend_kperf, sel, 2, why, sizeof(why));
	if (r < 0 || sel[0].err) {
		add(d, "kperf open", V_FAIL, "the kpc configuration programs and kdebug sets up", "%s",
		    sel[0].err ? sel[0].why : why);
		if (r >= 0)
			backend_inst_close(&bi);	/* opened without the first event: give the kernel state back now */
		return false;
	}
	double open_ms = now_ms() - t0;
	bool ok = true;
	if (pass == 0)
		ok = kperf_sampling_facts(d, &bi, self, counters);
	else
		kperf_user_mode_fact(d, &bi, self, first);
	t0 = now_ms();
	backend_inst_close(&bi);
	double close_ms = now_ms() - t0;
	if (ok && pass == 0)
		add(d, "kdebug cost", V_INFO, "open: kdebug reset (clearing what a killed ktrace tool left) and set-up, "
		    "about 100 ms each (XNU IOSleep); close: reset, 100 ms; once per lauka, outside the measured runs",
		    "open %.0f ms, close %.0f ms", open_ms, close_ms);
	return ok;
}

static void kperf_facts(struct doctor *d)
{
	if (!kperf_access_facts(d))
		return;
	uint32_t counters = kperf_state_facts(d);
	if (!counters)
		return;
	char why[512] = "";
	struct lk_pmu pmu;
	memset(&pmu, 0, sizeof(pmu));
	if (backend_kperf.catalog(&pmu, why, sizeof(why)) < 0) {
		add(d, "catalogue", V_FAIL, "the kpep file parses", "%s", why);
		return;
	}
	static const char *const sampled_names[] = { "INST_BRANCH", "CORE_ACTIVE_CYCLE", "INST_ALL", NULL };
	static const char *const user_names[] = { "INST_ALL", "INST_RETIRED.ANY_P", NULL };
	const struct lk_event *ev = pmu.nevents ? pick(&pmu, sampled_names) : NULL;
	const struct lk_event *instr = pmu.nevents ? pmu_find(&pmu, "FIXED_INSTRUCTIONS") : NULL;
	char self[PATH_MAX];
	if (!ev || !instr)
		add(d, "catalogue", V_FAIL, "a configurable event and FIXED_INSTRUCTIONS", "not in %s",
		    pmu.source ? pmu.source : "the catalogue");
	else if (!self_path(self, sizeof(self)))
		add(d, "probe", V_FAIL, "lauka can run itself as the probe", "cannot tell where the lauka binary is");
	else if (kperf_pass(d, 0, ev, instr, self, counters) && pick(&pmu, user_names))
		kperf_pass(d, 1, pick(&pmu, user_names), instr, self, counters);
	pmu_release(&pmu);
}

/* ---- doctor --macos: the kernel's answers, read only, then one cycle (C1) ---- */

/*
 * The known count: lauka-probe alu N retires 2 instructions per iteration
 * (probes/ARCH/alu.S) plus the process's start-up and exit.  Within 2% below,
 * and 2% + 5 M instructions of start-up above, is the count lauka expects
 * from proc_pid_rusage.  The 5 M start-up allowance is not measured on a Mac.
 */
#define ALU_ITERATIONS 100000000ull
#define ALU_STARTUP_MAX 5000000ull

static bool alu_count_ok(uint64_t instructions, uint64_t iterations)
{
	double want = 2.0 * (double)iterations;
	return (double)instructions >= want * 0.98 && (double)instructions <= want * 1.02 + (double)ALU_STARTUP_MAX;
}

static bool pid_alive(long long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* The read-only answers; with stale (A5) or owned (EBUSY) state said as such.  after: the re-read after the cycle. */
static void macos_answers(struct doctor *d, bool after)
{
	struct kperf_answer a[KPERF_A_N];
	char why[512] = "";
	if (kperf_kernel_answers(a, why, sizeof(why)) < 0) {
		add(d, "kernel answers", V_FAIL, "the kperf seam loads (macOS)", "%s", why);
		return;
	}
	bool root_needed = false;
	for (size_t i = 0; !after && i < KPERF_A_N; i++) {
		/* A root-only read without root is not a finding: one FAIL (root) says it. */
		if (a[i].err == -EPERM)
			add(d, a[i].name, V_INFO, a[i].means, "needs root");
		else
			add(d, a[i].name, a[i].err ? V_FAIL : V_INFO, a[i].means, "%s", a[i].s);
		root_needed |= a[i].err == -EPERM;
	}
	if (root_needed)
		add(d, "root", V_FAIL, "kperf.* and kpc.* answer root only", "not root: sudo lauka doctor --macos reads them");
	long long owner = a[KPERF_A_KTRACE_OWNER].err ? 0 : a[KPERF_A_KTRACE_OWNER].v;
	bool alive = pid_alive(owner) && owner != (long long)getpid();
	if (!after && !a[KPERF_A_KTRACE_STATE].err && a[KPERF_A_KTRACE_STATE].v == 1 && alive)
		add(d, "ktrace owner", V_FAIL, "no other live foreground ktrace client (else kperf gets EBUSY)",
		    "pid %lld ('%s') owns ktrace: kperf runs fail with EBUSY until it exits (quit Instruments, "
		    "ktrace, fs_usage or the profiler named)", owner, a[KPERF_A_KTRACE_BY].s);
	char on[256];
	const char *name = after ? "after the cycle" : "stale state";
	bool stale = kperf_stale(a, alive, on, sizeof(on));
	if (stale)
		add(d, name, V_FAIL, "nothing left on by a killed kperf client", "%s with no live ktrace owner "
		    "(last configured by '%s'): a killed run left it; PET timers keep firing and the background "
		    "tool (tailspin) stays off; clear it: sudo lauka doctor --macos (its cycle resets it)", on,
		    a[KPERF_A_KTRACE_BY].s);
	else if (!root_needed)
		add(d, name, V_OK, "nothing left on by a killed kperf client", "none");
	/* Clean after the cycle: the stale state found before it is history, said as such. */
	for (size_t i = 0; after && !stale && i < d->n; i++)
		if (!strcmp(d->facts[i].name, "stale state") && d->facts[i].v == V_FAIL) {
			d->facts[i].v = V_INFO;
			size_t used = strlen(d->facts[i].observed);
			snprintf(d->facts[i].observed + used, sizeof(d->facts[i].observed) - used,
				 "; the cycle below reset it");
		}
}

/*
 * Another program's text as doctor prints it: control characters (a
 * terminal's escape sequences) and other bytes below 0x20 or 0x7f as \xHH,
 * so a tool found first on PATH cannot drive the terminal.
 */
static void printable(char *s, size_t len)
{
	char tmp[1024];
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p && o + 5 < sizeof(tmp); p++) {
		if (*p < 0x20 || *p == 0x7f)
			o += (size_t)snprintf(tmp + o, sizeof(tmp) - o, "\\x%02x", *p);
		else
			tmp[o++] = (char)*p;
	}
	tmp[o] = '\0';
	snprintf(s, len, "%s", tmp);
}

/* A helper command's first line (or why it has none). */
static void command_fact(struct doctor *d, const char *const *argv, const char *shown, const char *expect)
{
	char out[1024];
	int code = 0;
	int r = lk_capture(argv, 30, out, sizeof(out), &code);
	out[strcspn(out, "\n")] = '\0';
	printable(out, sizeof(out));
	if (r == -LK_ENOENT)
		add(d, shown, V_INFO, expect, "not found");
	else if (r < 0)
		add(d, shown, V_INFO, expect, "%s", out);
	else
		add(d, shown, V_INFO, expect, "%s%s (exit %d)", out[0] ? out : "no output", "", code);
}

/* One open -> attach -> exited -> close cycle on lauka-probe alu, whose instruction count is known. */
static void macos_cycle(struct doctor *d)
{
	char why[512] = "", probe[PATH_MAX];
	struct lk_pmu pmu;
	memset(&pmu, 0, sizeof(pmu));
	if (backend_kperf.catalog(&pmu, why, sizeof(why)) < 0) {
		add(d, "cycle", V_FAIL, "the kpep file parses", "%s", why);
		return;
	}
	static const char *const br_names[] = { "INST_ALL", "INST_BRANCH", "INST_RETIRED.ANY_P", NULL };
	const struct lk_event *br = pick(&pmu, br_names), *instr = pmu_find(&pmu, "FIXED_INSTRUCTIONS");
	if (!br || !instr || probe_path_find(probe, sizeof(probe)) < 0) {
		add(d, "cycle", V_FAIL, "FIXED_INSTRUCTIONS, a configurable event and lauka-probe", "%s",
		    !br || !instr ? "events not in the catalogue" : "lauka-probe not found");
		pmu_release(&pmu);
		return;
	}
	struct lk_evsel sel[2];
	memset(sel, 0, sizeof(sel));
	sel[0].ev = br;
	sel[1].ev = instr;
	sel[0].counter = sel[1].counter = -1;
	sel[0].explicit = sel[1].explicit = true;
	struct backend_inst bi;
	int opened = backend_inst_open(&bi, &backend_kperf, sel, 2, why, sizeof(why));
	if (opened < 0 || sel[0].err || sel[1].err) {
		add(d, "cycle", V_FAIL, "open: programs kpc and kperf, every setting read back", "%s",
		    opened < 0 ? why : sel[0].err ? sel[0].why : sel[1].why);
		if (opened == 0)
			backend_inst_close(&bi);
		pmu_release(&pmu);
		return;
	}
	struct runner r;
	struct runner_opts o = { .show_output = false, .uid = -1, .gid = -1 };
	char iters[32];
	snprintf(iters, sizeof(iters), "%llu", ALU_ITERATIONS);
	char *argv[] = { probe, "alu", iters, NULL };
	struct lk_counts c[2];
	memset(c, 0, sizeof(c));
	struct lk_counts *cp[1] = { c };
	struct runner_result res;
	int ret = runner_init(&r, &o, why, sizeof(why));
	if (ret == 0) {
		ret = runner_run(&r, probe, argv, &bi, 1, cp, &res, why, sizeof(why));
		runner_release(&r);
	}
	backend_inst_close(&bi);
	if (ret < 0) {
		add(d, "cycle", V_FAIL, "attach, the probe runs, exited, read, close", "%s", why);
		pmu_release(&pmu);
		return;
	}
	add(d, "cycle", V_OK, "open, attach (the child at its gate), exited (a zombie), read, close",
	    "lauka-probe alu %s: %s %llu%s, FIXED_INSTRUCTIONS %llu", iters, br->name, (unsigned long long)c[0].value,
	    c[0].scaled ? " (scaled)" : "", (unsigned long long)c[1].value);
	if (kperf_seam_is_model())
		add(d, "known count", V_INFO, "alu: 2 instructions per iteration plus start-up, within 2%",
		    "not compared: the model counts 2 per ns of CPU time, not the probe's instructions");
	else
		add(d, "known count", alu_count_ok(c[1].value, ALU_ITERATIONS) ? V_OK : V_FAIL,
		    "alu: 2 instructions per iteration plus start-up, within 2%", "%llu instructions for %llu "
		    "(%.3f of 2 per iteration)", (unsigned long long)c[1].value, 2 * ALU_ITERATIONS,
		    (double)c[1].value / (2.0 * (double)ALU_ITERATIONS));
	pmu_release(&pmu);
}

static void macos_facts(struct doctor *d)
{
	macos_answers(d, false);
	static const char *const dts[] = { "DevToolsSecurity", "-status", NULL };
	static const char *const xs[] = { "xcode-select", "-p", NULL };
	command_fact(d, dts, "DevToolsSecurity -status", "developer tools access enabled (xctrace records without a prompt)");
	command_fact(d, xs, "xcode-select -p", "a full Xcode (…/Xcode*.app/Contents/Developer), not the Command Line Tools");
	char why[256];
	int r = backend_kperf.detect(why, sizeof(why));
	if (r == -LK_EPERM && kperf_euid() != 0) {
		add(d, "cycle", V_INFO, "kperf usable: root, frameworks, kpc reachable", "needs root");
		return;
	}
	if (r < 0) {
		add(d, "cycle", V_FAIL, "kperf usable: root, frameworks, kpc reachable", "%s", why);
		return;
	}
	macos_cycle(d);
	macos_answers(d, true);
}

/* A2/C7: one manual recording of lauka-probe alu against its known instruction count. */
static void xctrace_check_fact(struct doctor *d)
{
	struct xct_check c;
	char why[512] = "";
	if (xct_check_run(&c, why, sizeof(why)) < 0)
		add(d, "xctrace self-check", V_FAIL, "a manual recording of lauka-probe alu with FIXED_INSTRUCTIONS",
		    "%s", why);
	else
		add(d, "xctrace self-check", c.ok ? V_OK : V_FAIL, "the export's FIXED_INSTRUCTIONS within 2% of "
		    "lauka-probe alu's 2 per iteration (plus start-up)", "%llu of %llu (%.1f%%)%s%s",
		    (unsigned long long)c.counted, (unsigned long long)c.expected, c.ratio * 100, c.ok ? "" : ": ",
		    c.ok ? "" : "record marks xctrace counts suspect until a check passes");
}

/* ---- Linux ---- */

#ifdef __linux__
static int perf_open(uint64_t config, bool exclude_kernel)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = exclude_kernel;
	a.exclude_hv = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -errno;
	close((int)fd);
	return 0;
}

/* One event of the group test: cycles leads (disabled), instructions follow; user mode only. */
static long group_open(uint64_t config, int leader)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = config;
	a.disabled = leader < 0;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return syscall(SYS_perf_event_open, &a, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
}

/*
 * A group of n (cycles + instructions) enabled on lauka for 20 ms of its CPU time: the fraction of
 * its enabled time it was on the counters (the leader's time_running / time_enabled: the kernel
 * schedules a group all or nothing, perf_event.c group_sched_in); -1 when it does not open.
 */
static double group_coverage(int n)
{
	int fds[64] = { 0 }, k = 0;
	for (; k < n && k < (int)ARRAY_SIZE(fds); k++) {
		long fd = group_open(k ? PERF_COUNT_HW_INSTRUCTIONS : PERF_COUNT_HW_CPU_CYCLES, k ? fds[0] : -1);
		if (fd < 0)
			break;
		fds[k] = (int)fd;
	}
	double cov = -1;
	uint64_t v[3];
	if (k == n && ioctl(fds[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) == 0 &&
	    ioctl(fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) == 0) {
		spin(20, false);
		ioctl(fds[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
		if (read(fds[0], v, sizeof(v)) == (ssize_t)sizeof(v))
			cov = v[1] ? (double)v[2] / (double)v[1] : 0;	/* value, time_enabled, time_running */
	}
	for (int i = 0; i < k; i++)
		close(fds[i]);
	return cov;
}

/* Issue 36 P5: whether the group that opens also runs, or another process holds counters. */
static void counters_free(struct doctor *d, int n)
{
	double cov = group_coverage(n);
	if (cov < 0)
		return;
	int runs = n;
	if (cov < PERF_WHOLE)	/* the largest group that runs whole */
		for (runs = n - 1; runs > 0 && group_coverage(runs) < PERF_WHOLE; runs--)
			;
	int wd = -1;
	FILE *f = fopen("/proc/sys/kernel/nmi_watchdog", "r");
	if (f) {
		if (fscanf(f, "%d", &wd) != 1)
			wd = -1;
		fclose(f);
	}
	char obs[400];
	bool held = perf_counters_held(n, cov, runs, wd, obs, sizeof(obs));
	add(d, "counters free", held ? V_FAIL : V_OK,
	    "that group runs when enabled (time_running = time_enabled): no other process holds a counter", "%s", obs);
}

/*
 * The CPU's PMU as the kernel shows it: the sysfs devices that name an instructions event
 * (cpu, cpu_core, armv8_pmuv3_0, ...), and how many events one group may hold.  The kernel
 * checks at open that a whole group fits its counters (x86 and Arm validate_group), so a group
 * of cycles plus instructions grows until it is refused: the counters it offers, measured.
 */
static void pmu_devices(struct doctor *d)
{
	const char *root = getenv("LAUKA_SYSFS_PMUS");
	root = root && *root ? root : "/sys/bus/event_source/devices";
	struct strbuf names = STRBUF_INIT;
	DIR *dir = opendir(root);
	for (struct dirent *e; dir && (e = readdir(dir));) {
		char path[PATH_MAX];
		bool cpu = false;
		static const char *const evs[] = { "instructions", "inst_retired" };
		for (size_t i = 0; i < ARRAY_SIZE(evs) && e->d_name[0] != '.'; i++) {
			snprintf(path, sizeof(path), "%s/%s/events/%s", root, e->d_name, evs[i]);
			cpu |= access(path, F_OK) == 0;
		}
		if (cpu)
			strbuf_addf(&names, "%s%s", names.len ? ", " : "", e->d_name);
	}
	if (dir)
		closedir(dir);
	int fds[64], n = 0;
	long fd = group_open(PERF_COUNT_HW_CPU_CYCLES, -1);
	while (fd >= 0 && n < (int)ARRAY_SIZE(fds)) {
		fds[n++] = (int)fd;
		fd = group_open(PERF_COUNT_HW_INSTRUCTIONS, fds[0]);
	}
	int refused = fd < 0 ? errno : 0;
	for (int i = 0; i < n; i++)
		close(fds[i]);
	add(d, "PMU", names.len ? V_OK : V_INFO, "a CPU PMU device in sysfs, and a group of its counters",
	    "%s; a group of %d (cycles + %d instructions) opens%s%s", names.len ? strbuf_str(&names) : "no CPU PMU device",
	    n, n ? n - 1 : 0, refused ? ", one more is refused: " : "", refused ? strerror(refused) : "");
	strbuf_release(&names);
	if (n)
		counters_free(d, n);
}

static void linux_facts(struct doctor *d, bool perf, bool valgrind)
{
	if (perf) {
		int level = 99;
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
		if (f) {
			if (fscanf(f, "%d", &level) != 1)
				level = 99;
			fclose(f);
		}
		bool root = geteuid() == 0;
		add(d, "perf_event_paranoid", level <= 2 || root ? V_OK : V_FAIL,
		    "2 or less (counting your own commands), or root", "%d%s", level, root ? " (root)" : "");
		static const struct {
			const char *name;
			uint64_t config;
		} gen[] = {
			{ "cycles", PERF_COUNT_HW_CPU_CYCLES }, { "instructions", PERF_COUNT_HW_INSTRUCTIONS },
			{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS }, { "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
			{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES }, { "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
		};
		struct strbuf ok = STRBUF_INIT, bad = STRBUF_INIT;
		int first_err = 0;
		bool core = true;
		for (size_t i = 0; i < ARRAY_SIZE(gen); i++) {
			int r = perf_open(gen[i].config, true);
			strbuf_addf(r == 0 ? &ok : &bad, "%s%s", (r == 0 ? ok.len : bad.len) ? ", " : "", gen[i].name);
			if (r < 0 && !first_err)
				first_err = -r;
			if (r < 0 && i < 2)
				core = false;
		}
		add(d, "hardware events", core ? V_OK : V_FAIL, "cycles and instructions open (a PMU is exposed)",
		    "open: %s; fail: %s%s%s%s", ok.len ? strbuf_str(&ok) : "none", bad.len ? strbuf_str(&bad) : "none",
		    first_err ? " (" : "", first_err ? strerror(first_err) : "", first_err ? ")" : "");
		if (core) {
			pmu_devices(d);
			int rk = perf_open(PERF_COUNT_HW_INSTRUCTIONS, false);
			add(d, "kernel mode", V_INFO, "counted when paranoid <= 1 or root; else exclude_kernel=1 (user only)",
			    "%s", rk == 0 ? "instructions open with kernel mode" : "user mode only (exclude_kernel=1 needed)");
		}
		strbuf_release(&ok);
		strbuf_release(&bad);
	}
	if (valgrind) {
		char line[128] = "";
		FILE *p = popen("valgrind --version 2>/dev/null", "r");
		bool got = p && fgets(line, sizeof(line), p);
		if (p)
			pclose(p);
		line[strcspn(line, "\n")] = '\0';
		add(d, "valgrind", V_INFO, "valgrind in PATH (the opt-in exact backend)", "%s",
		    got && line[0] ? line : "not found");
	}
}
#endif

/* ---- output ---- */

/*
 * What the macOS paths rely on that no test here can show (no Mac, no PMU
 * was available): each claim and what stands in for the missing evidence.
 * `doctor --json` lists them wherever the kperf or xctrace backend exists.
 */
static const struct {
	const char *what, *how;
} unverified_mac[] = {
	{ "kperf counts, coverage and the 100 ms kdebug costs on Apple hardware",
	  "the code follows XNU's source and runs against a model of its rules (tests/support/kperf-standin.c); "
	  "the facts above measure them on this Mac" },
	{ "whether anything (an Apple daemon, Instruments) leaves kperf's action count above 1",
	  "XNU never lowers it (action.c); lauka keeps the count it finds: 'kperf actions' above" },
	{ "a stale kdebug typefilter or pid filter left by a killed ktrace tool",
	  "inferred from kdebug.c; KERN_KDREMOVE at open clears both" },
	{ "a late power-manager acknowledgement un-forcing the counters between lauka processes",
	  "inferred from kpc_common.c; checked at every attach and after every run, an error when it happens" },
	{ "the error codes of kpc_force_all_ctrs_set/get", "their sysctl handler is not in open-source XNU" },
	{ "the config words kpc_get_config answers on a real kernel (rebuilt from the registers: the event field "
	  "plus the mode bits the kernel set)", "read from XNU's source (osfmk/arm64/kpc.c), which the stand-in "
	  "follows; lauka compares event fields and keeps the kernel's first answer as the reference" },
	{ "the native system calls (sysctl, kdebug, proc_pid_rusage) and the known-count check of lauka-probe alu",
	  "compiled for macOS only; never run: the 'known count' fact above is their first run" },
	{ "Intel Macs: fixed counters, kpep fallbacks and the counter map", "no Intel Mac was available" },
	{ "xctrace honouring the event list lauka writes into a template (legacy pmcEvents, Xcode 16+ "
	  "optionsEncoded)", "every recording's table of contents is compared with the request: a missing "
	  "event is an error, never a silent row" },
	{ "the guided raw table's columns", "slots are named by their probe responses; cache-misses and "
	  "branch-misses only within a miss count's per-step bounds" },
	{ "--no-prompt on xctrace 13-15; --target-stdout - with --show-output", "attested for xctrace 16 "
	  "(xct2cli) and by JMH's recordings" },
	{ "where Xcode keeps 'CPU Counters.tracetemplate' (Instruments.app, the macOS platform's Templates)",
	  "LAUKA_XCTRACE_TEMPLATE names one" },
	{ "the sysctls doctor --macos reads (ktrace.*, kperf.*, kpc.*) and the read-back getters (kpc_get_config, "
	  "kperf_timer_period_get, ...) on a real kernel", "names and rules from XNU's source; "
	  "kpc.force_all_ctrs is closed source; a getter missing from the framework leaves its field unchecked" },
	{ "tailspind as a background ktrace client, and which kernel client holds the CPU's PMU",
	  "inferred from kern_ktrace.c and kern_kpc.c; doctor --macos shows ktrace.background_pid and kpc's EBUSY" },
	{ "whether xctrace drops the end of the counter stream when the command exits first",
	  "the xctrace self-check records lauka-probe alu against its known count (doctor, calibrate); record "
	  "marks xctrace counts suspect while the last check failed" },
	{ "the P-core share (ri_pinstructions) and what E-cores count for each event",
	  "the share is shown beside kperf results; no measurement of E-core counting exists" },
};

static void json_str(const char *s)
{
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static const char *verdict_name(enum verdict v)
{
	return v == V_OK ? "ok" : v == V_FAIL ? "FAIL" : "info";
}

/* One line of the text report: on a terminal wrapped to its width, continuation lines indented. */
static void __attribute__((format(printf, 2, 3))) tline(size_t indent, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct strbuf sb = STRBUF_INIT;
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	text_print(stdout, strbuf_str(&sb), indent);
	strbuf_release(&sb);
}

static void print_unverified(const struct doctor *d)
{
	if (!d->json) {
		printf("not verified without a Mac (details: lauka doctor --json):\n");
		for (size_t i = 0; i < ARRAY_SIZE(unverified_mac); i++)
			tline(4, "  - %s", unverified_mac[i].what);
		return;
	}
	printf(",\n\"unverified\": [");
	for (size_t i = 0; i < ARRAY_SIZE(unverified_mac); i++) {
		printf("%s\n  {\"what\": ", i ? "," : "");
		json_str(unverified_mac[i].what);
		printf(", \"instead\": ");
		json_str(unverified_mac[i].how);
		printf("}");
	}
	printf("\n]");
}

static void print(const struct doctor *d, const char *platform, bool ok, bool mac)
{
	if (d->json) {
		printf("{\"platform\": ");
		json_str(platform);
		printf(", \"ok\": %s, \"facts\": [", ok ? "true" : "false");
		for (size_t i = 0; i < d->n; i++) {
			const struct fact *f = &d->facts[i];
			printf("%s\n  {\"name\": ", i ? "," : "");
			json_str(f->name);
			printf(", \"expect\": ");
			json_str(f->expect);
			printf(", \"observed\": ");
			json_str(f->observed);
			printf(", \"verdict\": ");
			json_str(f->v == V_FAIL ? "fail" : verdict_name(f->v));
			printf("}");
		}
		printf("\n]");
		if (mac)
			print_unverified(d);
		printf("}\n");
		return;
	}
	printf("lauka doctor: %s\n", platform);
	size_t w = 4;
	for (size_t i = 0; i < d->n; i++)
		w = strlen(d->facts[i].name) > w ? strlen(d->facts[i].name) : w;
	for (size_t i = 0; i < d->n; i++) {
		const struct fact *f = &d->facts[i];
		tline(w + 8, "%-4s  %-*s  %s", verdict_name(f->v), (int)w, f->name, f->observed);
		tline(w + 18, "      %-*s  expected: %s", (int)w, "", f->expect);
	}
	if (mac)
		print_unverified(d);
}

struct doctor_opts {
	struct doctor *d;
	const char *only;	/* --backend NAME: only its facts */
	bool macos;		/* --macos: the kernel's answers and one cycle */
};

static int set_json(void *ctx, const char *v)
{
	((struct doctor_opts *)ctx)->d->json = true;
	return 0;
}

static int set_macos(void *ctx, const char *v)
{
	((struct doctor_opts *)ctx)->macos = true;
	return 0;
}

static int set_backend(void *ctx, const char *v)
{
	((struct doctor_opts *)ctx)->only = v;
	return 0;
}

static const struct opt_spec doctor_options[] = {
	{ "--backend", NULL, true, set_backend },
	{ "--json", NULL, false, set_json },
	{ "--macos", NULL, false, set_macos },
};

/* `doctor --macos`: what a bug report from a Mac attaches (with --json). */
static int doctor_macos(struct doctor *d)
{
	macos_facts(d);
	bool ok = true;
	for (size_t i = 0; i < d->n; i++)
		ok &= d->facts[i].v != V_FAIL;
	print(d, "macOS kernel answers", ok, true);
	if (!ok && !d->json) {
		error("%s", "some answers lauka relies on are not what it needs (FAIL above)");
		bool stale = false, root = false;
		for (size_t i = 0; i < d->n; i++) {
			stale |= d->facts[i].v == V_FAIL && (!strcmp(d->facts[i].name, "stale state") ||
							    !strcmp(d->facts[i].name, "after the cycle"));
			/* The root fact (the kernel's EPERM), not a message that mentions root. */
			root |= d->facts[i].v == V_FAIL && !strcmp(d->facts[i].name, "root");
		}
		if (root || (stale && kperf_euid() != 0))
			fix("sudo lauka doctor --macos");
	}
	free(d->facts);
	return ok ? 0 : EXIT_COUNTERS;
}

int cmd_doctor(int argc, char **argv)
{
	struct doctor d;
	memset(&d, 0, sizeof(d));
	/* The hidden `doctor --spin MS [--syscalls]`: the workload the facts above time (see spin()). */
	if (argc >= 3 && !strcmp(argv[1], "--spin"))
		return spin(strtol(argv[2], NULL, 10), argc >= 4 && !strcmp(argv[3], "--syscalls"));
	struct doctor_opts o = { &d, NULL, false };
	static const struct opt_verb verb = { "doctor", doctor_options, ARRAY_SIZE(doctor_options), NULL, false };
	int next, pr = opts_parse(&verb, &o, argc, argv, &next);
	if (pr)
		return pr > 0 ? 0 : EXIT_USAGE;
	const char *only = o.only;
	if (only && !backend_find(only) && strcmp(only, "rusage")) {
		error("unknown backend '%s'", only);
		help_hint("doctor");
		return EXIT_USAGE;
	}
	if (o.macos)
		return doctor_macos(&d);
#define WANT(name) (!only || !lk_strcasecmp(only, (name)))
#ifdef __APPLE__
	const char *platform = "macOS";
#elif defined(__linux__)
	const char *platform = "Linux";
	linux_facts(&d, WANT("perf"), WANT("valgrind"));
#else
	const char *platform = "unknown";
#endif
	bool mac = false;
	if (backend_find("kperf") && (WANT("kperf") || WANT("rusage"))) {
		kperf_facts(&d);
		mac = true;
	}
	/* Which backend counts the kpep events without root: xctrace, when Xcode is there. */
	const struct lk_backend *xb = backend_find("xctrace");
	if (xb && xb->detect && (WANT("xctrace") || WANT("rusage"))) {
		char why[256] = "";
		int xr = xb->detect(why, sizeof(why));
		add(&d, "xctrace", V_INFO, "without root, --backend xctrace counts the kpep events through Instruments (Xcode)",
		    "%s", xr == 0 ? "xctrace found: record and calibrate --backend xctrace work without root" : why);
		if (xr == 0) {
			/*
			 * XNU lets one task hold the forced counters (kpc_common.c:176-178,
			 * EACCES for another): the kperf facts above forced them, and
			 * Instruments forces them too, so release them first.
			 */
			char rw[256] = "";
			if (kperf_release_forced(rw, sizeof(rw)) < 0)
				add(&d, "kpc release", V_FAIL, "the counters kperf forced are released before xctrace records",
				    "%s", rw);
			xctrace_check_fact(&d);
		}
		mac = true;
	}
#undef WANT
	bool ok = true;
	for (size_t i = 0; i < d.n; i++)
		ok &= d.facts[i].v != V_FAIL;
	print(&d, platform, ok, mac);
	for (size_t i = 0; !d.json && i < d.n; i++)
		if (d.facts[i].v == V_INFO && !strcmp(d.facts[i].name, "kperf") &&
		    !strncmp(d.facts[i].observed, "needs root", 10))
			tip("sudo lauka doctor checks kperf too (kpc counters need root)");
	if (!ok && !d.json) {
		error("%s", "some facts lauka relies on do not hold here (FAIL above)");
		for (size_t i = 0; i < d.n; i++)
			if (d.facts[i].v == V_FAIL && !strcmp(d.facts[i].name, "kperf") && kperf_euid() != 0)
				fix("sudo lauka doctor");
			else if (d.facts[i].v == V_FAIL && !strcmp(d.facts[i].name, "hardware events") &&
				 strstr(d.facts[i].observed, "open: none"))
				tip("no hardware PMU is exposed here (virtual machines usually have none): software "
				    "events still count, and 'lauka --backend valgrind' gives exact simulated counts");
	}
	free(d.facts);
	return ok ? 0 : EXIT_COUNTERS;
}
