/*
 * backend/rusage.c: the always-on measurements every OS gives without
 * privileges: wall time and what wait4() reports for the reaped child.
 *
 * peak_rss is the child's own ru_maxrss from wait4 (kilobytes on Linux,
 * bytes on macOS), so each run has its own peak rather than the maximum
 * over all runs that getrusage(RUSAGE_CHILDREN) would give.  On Linux the
 * value can't drop below the high-water mark of the address space exec was
 * called from (exec_mmap -> setmax_mm_hiwater_rss), which is why commands
 * start from the small lauka-spawn (spawn/spawner.h), not from lauka.
 *
 * On macOS the kernel also counts each process's instructions and cycles
 * (and, since RUSAGE_INFO_V6, those on P-cores and its energy), readable
 * without privileges through proc_pid_rusage().  The runner stops at the
 * child's exit with waitid(WNOWAIT) and calls exited(pid) before reaping it,
 * so the zombie is still there to be read.  The newest RUSAGE_INFO flavor
 * the headers know is tried first and older ones after it (an older kernel
 * answers EINVAL for a flavor it does not know).  XNU keeps a zombie's
 * counts for exactly this (kern_exit.c stashes them before the process
 * becomes a zombie; proc_pid_rusage falls back to proc_find_zombref).  They
 * are the process's own (recount: every thread, user and kernel mode); its
 * children's are separate (ri_child_*), so a shell's commands are not in
 * them.  Not verified on Apple hardware: compile-checked only (make
 * check-macos).
 */
#include "backend/backend.h"
#include "base/error.h"
#include "base/util.h"

#include <string.h>
#include <sys/resource.h>
#ifdef __APPLE__
#include <libproc.h>
#endif

enum {
	RU_WALL, RU_PEAK_RSS, RU_USER, RU_SYS, RU_MINFLT, RU_MAJFLT, RU_NVCSW, RU_NIVCSW,
#ifdef __APPLE__
	RU_INSTR, RU_CYCLES, RU_PINSTR, RU_PCYCLES, RU_ENERGY, RU_FOOTPRINT,
#endif
	RU_CPU,		/* last: the numbers of the others stay as stored catalogues have them */
	RU_COUNT
};

static const struct {
	const char *name, *unit, *desc;
} rusage_events[RU_COUNT] = {
	[RU_WALL] = { "wall_time", "ns", "Elapsed wall-clock time from release to exec to exit (monotonic clock)" },
	[RU_PEAK_RSS] = { "peak_rss", "bytes", "Peak resident set size of the command (wait4 ru_maxrss)" },
	[RU_USER] = { "user_time", "ns", "CPU time spent in user mode" },
	[RU_SYS] = { "sys_time", "ns", "CPU time spent in the kernel on the command's behalf" },
	[RU_MINFLT] = { "minor_faults", NULL, "Page faults served without I/O" },
	[RU_MAJFLT] = { "major_faults", NULL, "Page faults that needed I/O" },
	[RU_NVCSW] = { "voluntary_cs", NULL, "Voluntary context switches (waiting for a resource)" },
	[RU_NIVCSW] = { "involuntary_cs", NULL, "Involuntary context switches (preempted)" },
#ifdef __APPLE__
	[RU_INSTR] = { "instructions", NULL, "Instructions retired by the command's own process, user and kernel mode, "
		       "not its children (proc_pid_rusage ri_instructions)" },
	[RU_CYCLES] = { "cycles", NULL, "CPU cycles of the command's own process, user and kernel mode, not its "
		      "children (proc_pid_rusage ri_cycles)" },
	[RU_PINSTR] = { "p_instructions", NULL, "Instructions retired on performance cores (ri_pinstructions, RUSAGE_INFO_V6)" },
	[RU_PCYCLES] = { "p_cycles", NULL, "Cycles on performance cores (ri_pcycles, RUSAGE_INFO_V6)" },
	[RU_ENERGY] = { "energy", NULL, "Energy used by the command in nanojoules (ri_energy_nj; ri_billed_energy before V6)" },
	[RU_FOOTPRINT] = { "phys_footprint", "bytes", "Lifetime peak physical footprint (ri_lifetime_max_phys_footprint)" },
#endif
	/* Issue 37 T5: the kernel splits CPU time between user and system by ticks; the sum is as precise as
	 * perf's task-clock, for hosts where perf is blocked (containers, macOS without root). */
	[RU_CPU] = { "cpu_time", "ns", "CPU time in user and kernel mode together (user_time + sys_time)" },
};

#ifdef __APPLE__
/* Without root, macOS still counts instructions and cycles per process. */
static const char *const rusage_defaults[] = { "wall_time", "peak_rss", "instructions", "cycles", NULL };
#else
static const char *const rusage_defaults[] = { "wall_time", "peak_rss", NULL };
#endif

struct rusage_priv {
	struct lk_evsel *sel;
	size_t n;
#ifdef __APPLE__
	bool have[RU_COUNT];		/* exited() read this field for the current run */
	uint64_t val[RU_COUNT];
#endif
};

static int rusage_catalog(struct lk_pmu *pmu, char *err, size_t len)
{
	memset(pmu, 0, sizeof(*pmu));
	pmu->kind = xstrdup("rusage");
	pmu->name = xstrdup("rusage");
	pmu->marketing_name = xstrdup("process resource usage");
	pmu->source = xstrdup("builtin");
	for (size_t i = 0; i < RU_COUNT; i++) {
		struct lk_event ev = {
			.name = (char *)rusage_events[i].name,
			.description = (char *)rusage_events[i].desc,
			.unit = (char *)rusage_events[i].unit,
			.number = i,
			.fixed_counter = -1,
		};
		pmu_add_event(pmu, &ev);
	}
	return 0;
}

static int rusage_open(void *priv, struct lk_evsel *sel, size_t n, char *err, size_t len)
{
	struct rusage_priv *p = priv;
	p->sel = sel;
	p->n = n;
	for (size_t i = 0; i < n; i++)
		if (sel[i].ev->number >= RU_COUNT) {
			lk_errbuf(err, len, "'%s' is not a rusage measurement", sel[i].ev->name);
			return -LK_EINVAL;
		}
	return 0;
}

#ifdef __APPLE__
/* The zombie's rusage_info, newest flavor first. */
static void rusage_exited(void *priv, pid_t pid)
{
	struct rusage_priv *p = priv;
	memset(p->have, 0, sizeof(p->have));
#ifdef RUSAGE_INFO_V6
	struct rusage_info_v6 v6;
	memset(&v6, 0, sizeof(v6));
	if (proc_pid_rusage(pid, RUSAGE_INFO_V6, (rusage_info_t *)&v6) == 0) {
		p->val[RU_INSTR] = v6.ri_instructions;
		p->val[RU_CYCLES] = v6.ri_cycles;
		p->val[RU_PINSTR] = v6.ri_pinstructions;
		p->val[RU_PCYCLES] = v6.ri_pcycles;
		p->val[RU_ENERGY] = v6.ri_energy_nj;
		p->val[RU_FOOTPRINT] = v6.ri_lifetime_max_phys_footprint;
		for (int i = RU_INSTR; i <= RU_FOOTPRINT; i++)
			p->have[i] = true;
		return;
	}
#endif
	/* V5 only adds ri_flags to V4, so V4 is the fallback for both. */
	struct rusage_info_v4 v4;
	memset(&v4, 0, sizeof(v4));
	if (proc_pid_rusage(pid, RUSAGE_INFO_V4, (rusage_info_t *)&v4) == 0) {
		p->val[RU_INSTR] = v4.ri_instructions;
		p->val[RU_CYCLES] = v4.ri_cycles;
		p->val[RU_ENERGY] = v4.ri_billed_energy;
		p->val[RU_FOOTPRINT] = v4.ri_lifetime_max_phys_footprint;
		p->have[RU_INSTR] = p->have[RU_CYCLES] = p->have[RU_ENERGY] = p->have[RU_FOOTPRINT] = true;
	}
}
#endif

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

static int rusage_read(void *priv, const struct lk_run_info *run, struct lk_counts *out,
		       char *err, size_t len)
{
	struct rusage_priv *p = priv;
	const struct rusage *ru = run->rusage;
	for (size_t i = 0; i < p->n; i++) {
		uint64_t v = 0;
		switch (p->sel[i].ev->number) {
		case RU_WALL: v = run->wall_ns; break;
#ifdef __APPLE__
		case RU_PEAK_RSS: v = (uint64_t)ru->ru_maxrss; break;
#else
		case RU_PEAK_RSS: v = (uint64_t)ru->ru_maxrss * 1024u; break;
#endif
		case RU_USER: v = tv_ns(ru->ru_utime); break;
		case RU_SYS: v = tv_ns(ru->ru_stime); break;
		case RU_CPU: v = tv_ns(ru->ru_utime) + tv_ns(ru->ru_stime); break;
		case RU_MINFLT: v = (uint64_t)ru->ru_minflt; break;
		case RU_MAJFLT: v = (uint64_t)ru->ru_majflt; break;
		case RU_NVCSW: v = (uint64_t)ru->ru_nvcsw; break;
		case RU_NIVCSW: v = (uint64_t)ru->ru_nivcsw; break;
#ifdef __APPLE__
		default:
			if (!p->have[p->sel[i].ev->number]) {
				out[i] = (struct lk_counts){ .supported = false };
				continue;
			}
			v = p->val[p->sel[i].ev->number];
			break;
#endif
		}
		out[i] = (struct lk_counts){ .value = v, .enabled = 1, .running = 1, .supported = true };
	}
	return 0;
}

const struct lk_backend backend_rusage_ops = {
	.name = "rusage",
	.desc = "wall time and wait4() resource usage; always on, no privileges",
	.priv_size = sizeof(struct rusage_priv),
	.catalog = rusage_catalog,
	.defaults = rusage_defaults,
	.open = rusage_open,
#ifdef __APPLE__
	.exited = rusage_exited,
#endif
	.read = rusage_read,
};
