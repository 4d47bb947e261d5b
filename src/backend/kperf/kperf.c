/*
 * backend/kperf/kperf.c: hardware counters of the measured command on macOS via
 * kperf/kperfdata (root): the ops struct and the life of one lauka
 * process's use of them.  The parts: backend/kperf/fw.c (frameworks and system
 * seam), backend/kperf/config.c (the kpc configuration), backend/kperf/sample.c (PET,
 * kdebug, the reader), backend/kperf/agg.c (the arithmetic).
 *
 *   open     reset what a killed run left, build and program the kpc
 *            configuration (counters forced once per process), configure
 *            kperf and set up the trace buffer (100 ms in the kernel)
 *   attach   counters still forced (R3), pid filter, trace and sampling on
 *            (cheap calls only)
 *   exited   sampling and trace off, drain, counters still forced (R3),
 *            proc_pid_rusage of the zombie
 *   read     scope check and scaling
 *   close    trace and kperf reset, kpc counting off
 *   exit     the forced counters released (atexit; the kernel also
 *            releases them when the process dies)
 *
 * Scope check: the sampled FIXED_INSTRUCTIONS total is compared with the
 * instructions proc_pid_rusage reports for the zombie child.  Fixed cycles
 * and instructions are reported exactly from proc_pid_rusage; every other
 * event is scaled by rusage / sampled instructions and marked scaled with
 * the coverage, as perf marks multiplexed counts.  Both count the direct
 * process only: the pid filter is compared with the sampled thread's own
 * pid, and rusage's ri_instructions is per process (xnu-kperf.md F9).
 *
 * Privilege modes (F5): the fixed counters count user and kernel mode
 * (as rusage does), but a configurable event added with flag 0 counts user
 * mode only on a release kernel (osfmk/arm64/kpc.c).
 *
 * Not verified on Apple hardware (no Mac was available): the code follows
 * XNU's source (reference/xnu-kperf.md) and runs on Linux against
 * tests/support/kperf-standin.c, a model of XNU's rules driven by the real
 * child process.  doc/macos.md and 'lauka doctor --json' list what remains unverified.
 */
#include "backend/kperf/kperf.h"
#include "base/error.h"
#include "catalog/kpep.h"
#include "backend/kperf/agg.h"
#include "backend/kperf/config.h"
#include "backend/kperf/fw.h"
#include "backend/kperf/sample.h"
#include "base/util.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The forced counters are held by this process from the first open() to exit (F3). */
static bool forced_here;
static atomic_bool emergency_armed;

void kperf_lib_unload(void)
{
	atomic_store(&emergency_armed, false);
	forced_here = false;
	kperf_fw_unload();
}

/*
 * Stop sampling, reset kperf, stop kpc counting and, at exit, release the
 * forced counters.  kdebug is not touched: backend/kperf/sample.c resets it, and
 * its KERN_KDSETUP reinitialises whatever a killed run left; a kdebug call
 * here would take ktrace ownership again after the resets released it.
 * Every step runs even when an earlier one failed, except after EBUSY: then
 * another live process owns ktrace and its session must not be touched.
 * Returns the first failure.
 */
static int release_all(bool unforce, char *why, size_t len)
{
	const struct kperf_fns *f = &kperf_fn;
	char tmp[256];
	int first = 0, r;
	if (!kperf_loaded()) {
		lk_errbuf(why, len, "the kperf frameworks are not loaded");
		return -LK_ENOTSUP;
	}
#define STEP(x) do { r = (x); if (r < 0 && !first) { first = r; lk_errbuf(why, len, "%s", tmp); } \
	if (r == -LK_EBUSY) return r; } while (0)
	STEP(KPERF_CALL(f->kperf_sample_set(0), "kperf_sample_set", tmp, sizeof(tmp)));
	STEP(KPERF_CALL(f->kperf_reset(), "kperf_reset", tmp, sizeof(tmp)));
	STEP(KPERF_CALL(f->kpc_set_counting(0), "kpc_set_counting", tmp, sizeof(tmp)));
	STEP(KPERF_CALL(f->kpc_set_thread_counting(0), "kpc_set_thread_counting", tmp, sizeof(tmp)));
	if (unforce && forced_here) {
		STEP(KPERF_CALL(f->kpc_force_all_ctrs_set(0), "kpc_force_all_ctrs_set", tmp, sizeof(tmp)));
		forced_here = false;
	}
#undef STEP
	return first;
}

/* exit() with the backend open (xmalloc dying, a stray exit), or after close: release what is held. */
static void at_exit(void)
{
	char why[256];
	if (!kperf_loaded())
		return;
	if (atomic_exchange(&emergency_armed, false)) {
		size_t zero = 0;
		kperf_sys->kdebug(KPERF_KD_REMOVE, 0, NULL, &zero);
		release_all(true, why, sizeof(why));
	} else if (forced_here) {
		KPERF_CALL(kperf_fn.kpc_force_all_ctrs_set(0), "kpc_force_all_ctrs_set", why, sizeof(why));
		forced_here = false;
	}
}

static void arm_emergency(void)
{
	static bool registered;
	if (!registered) {
		registered = true;
		atexit(at_exit);
	}
	atomic_store(&emergency_armed, true);
}

/* ---- the backend ---- */

struct kperf_priv {
	struct lk_evsel *sel;
	size_t nsel;
	struct kperf_config cfg;
	struct kperf_sampler smp;
	bool armed;			/* kernel state changed: close() must release */
	bool counting;			/* something to count */
	/* the current run */
	bool have_run;			/* exited() collected a complete run */
	pid_t pid;
	int run_err;
	char run_why[256];
	struct kperf_rusage ru;
	uint64_t totals[KPERF_MAX_COUNTERS];
	size_t lost;			/* TRACE_LOST_EVENTS records in the run */
	size_t suspect;			/* C3: samples that dropped or jumped */
	char suspect_why[160];
};

/*
 * What `record` says after a command's block about the runs read since the
 * last block (kperf_record_tips): C3 suspect runs, and C11 the P-core share
 * of the instructions.  With interleaved commands the runs of the commands
 * measured in between are included.
 */
static struct {
	size_t runs, suspect;
	char why[200];
	uint64_t instr, pinstr;
	bool has_p;
} notes;

static int usable(char *why, size_t len)
{
	int r = kperf_load_fns(why, len);
	if (r < 0)
		return r;
	if ((r = kperf_rosetta_check(why, len)) < 0)
		return r;
	return kperf_root_check(why, len);
}

static int kperf_detect(char *why, size_t len)
{
	return usable(why, len);
}

static int kperf_catalog(struct lk_pmu *out, char *err, size_t len)
{
	char path[4096], detail[512];
	int r = kperf_kpep_locate(path, sizeof(path), detail, sizeof(detail));
	if (r < 0) {
		lk_errbuf(err, len, "%s", detail);
		return r;
	}
	return kpep_parse_file(path, out, err, len);
}

/*
 * The event field kpc_get_config answers with (PMESR: 8 bits, 16 on chips
 * built with CPMU_16BIT_EVENTS, xnu-11417.101.15 osfmk/arm64/kpc.c:160-166):
 * 16 when this cpu's kpep database has an event number above 0xff, read
 * once per process; without the database, from the selection's events.
 */
uint64_t kperf_event_mask_of(const struct lk_pmu *pmu)
{
	uint64_t max = 0;
	for (size_t i = 0; i < pmu->nevents; i++)
		if (pmu->events[i].fixed_counter < 0 && pmu->events[i].number > max)
			max = pmu->events[i].number;
	return max > 0xff ? 0xffff : 0xff;
}

static uint64_t event_field_mask(const struct lk_evsel *sel, size_t n)
{
	static uint64_t known;
	if (known)
		return known;
	uint64_t max = 0;
	struct lk_pmu pmu;
	char err[256];
	memset(&pmu, 0, sizeof(pmu));
	if (kperf_catalog(&pmu, err, sizeof(err)) == 0) {
		known = kperf_event_mask_of(&pmu);
		pmu_release(&pmu);
		return known;
	}
	pmu_release(&pmu);
	for (size_t i = 0; i < n; i++)
		if (sel[i].ev && sel[i].ev->fixed_counter < 0 && sel[i].ev->number > max)
			max = sel[i].ev->number;
	return max > 0xff ? 0xffff : 0xff;
}

static void kperf_close(void *priv);

static int kperf_open(void *priv, struct lk_evsel *sel, size_t n, char *err, size_t len)
{
	struct kperf_priv *p = priv;
	int r = usable(err, len);
	if (r < 0)
		return r;
	p->sel = sel;
	p->nsel = n;

	/* State left by a killed run (sampling or PET still on, kpc counting): detect, then reset. */
	uint32_t sampling = 0;
	int pet = 0;
	errno = 0;
	r = kperf_fn.kperf_sample_get(&sampling);
	int e = kperf_call_errno(r, errno);
	if (e) {
		r = kperf_errno_error("kperf_sample_get", e, err, len);
		goto fail;
	}
	if ((r = kperf_seam_error(kperf_sys->sysctl_int("kperf.lightweight_pet", NULL, &pet), "kperf.lightweight_pet",
				  err, len)) < 0)
		goto fail;
	bool stale = sampling || pet || (kperf_fn.kpc_get_counting() && !forced_here);
	arm_emergency();
	p->armed = true;
	if ((r = release_all(false, err, len)) < 0) {
		if (stale && r != -LK_EBUSY) {	/* EBUSY already says who holds it */
			char tmp[256];
			lk_errbuf(tmp, sizeof(tmp), "%s", err);
			lk_errbuf(err, len, "cannot reset the kperf state an earlier run left on: %s", tmp);
		}
		goto fail;
	}
	if ((r = kperf_config_build(&p->cfg, sel, n, err, len)) < 0)
		goto fail;
	bool any = false;
	for (size_t i = 0; i < n; i++)
		any |= !sel[i].err;
	if (!any)
		return 0;	/* nothing countable: the caller drops or fails each event */
	p->cfg.event_mask = event_field_mask(sel, n);
	if ((r = kperf_config_program(&p->cfg, &forced_here, err, len)) < 0 ||
	    (r = kperf_sampler_setup(&p->smp, p->cfg.ncounters, err, len)) < 0)
		goto fail;
	p->counting = true;
	return 0;
fail:
	kperf_close(p);
	return r;
}

/* Runs while the child is blocked on the runner's gate, before it execs. */
static int kperf_attach(void *priv, pid_t pid, char *err, size_t len)
{
	struct kperf_priv *p = priv;
	if (!p->counting) {
		lk_errbuf(err, len, "kperf has no event to count");
		return -LK_EINVAL;
	}
	p->pid = pid;
	p->have_run = false;
	p->run_err = 0;
	p->run_why[0] = '\0';
	int r = kperf_config_check(&p->cfg, err, len);
	if (r < 0)
		return r;
	r = kperf_sampler_start(&p->smp, pid, err, len);
	if (r < 0) {
		char tmp[256];
		kperf_sampler_stop(&p->smp, tmp, sizeof(tmp));
	}
	return r;
}

/* The child is a zombie: stop sampling, read what is left, take its rusage before it is reaped. */
static void kperf_exited(void *priv, pid_t pid)
{
	struct kperf_priv *p = priv;
	if (!p->smp.sampling && !p->smp.reader_on)
		return;		/* attach failed: nothing was started */
	char why[256];
	int r = kperf_sampler_stop(&p->smp, why, sizeof(why));
	if (p->smp.err && !p->run_err) {
		p->run_err = p->smp.err;
		lk_errbuf(p->run_why, sizeof(p->run_why), "%s", p->smp.why);
	}
	if (r < 0 && !p->run_err) {
		p->run_err = r;
		lk_errbuf(p->run_why, sizeof(p->run_why), "%s", why);
	}
	if (!p->run_err && (r = kperf_config_check(&p->cfg, why, sizeof(why))) < 0) {	/* R3: during the run */
		p->run_err = r;
		lk_errbuf(p->run_why, sizeof(p->run_why), "%s", why);
	}
	if ((r = kperf_sys->rusage(pid, &p->ru)) < 0 && !p->run_err) {
		p->run_err = -LK_EIO;
		lk_errbuf(p->run_why, sizeof(p->run_why), "proc_pid_rusage(%d): %s", (int)pid, strerror(-r));
	}
	kperf_agg_total(&p->smp.agg, p->totals);
	p->lost = p->smp.agg.lost;
	p->suspect = p->smp.agg.suspect;
	lk_errbuf(p->suspect_why, sizeof(p->suspect_why), "%s", p->smp.agg.suspect_why);
	p->have_run = true;
}

static int kperf_read(void *priv, const struct lk_run_info *run, struct lk_counts *out, char *err, size_t len)
{
	struct kperf_priv *p = priv;
	(void)run;
	if (p->run_err) {
		lk_errbuf(err, len, "%s", p->run_why);
		return p->run_err;
	}
	if (!p->have_run) {
		lk_errbuf(err, len, "kperf collected no run");
		return -LK_EIO;
	}
	uint64_t sampled = p->totals[p->cfg.instr_idx];
	double coverage;
	enum kperf_scope sc = kperf_agg_scope(sampled, p->ru.instructions, &coverage);
	if (sc == KPERF_SCOPE_OVER) {
		lk_errbuf(err, len, "scope check failed: the samples of pid %d hold %llu instructions but "
			  "proc_pid_rusage reports %llu; the samples are not the command's",
			  (int)p->pid, (unsigned long long)sampled, (unsigned long long)p->ru.instructions);
		return -LK_EIO;
	}
	if (sc == KPERF_SCOPE_NORUSAGE && sampled) {
		lk_errbuf(err, len, "proc_pid_rusage reports no instructions for pid %d, so the samples cannot "
			  "be checked or scaled", (int)p->pid);
		return -LK_ENOTSUP;
	}
	notes.runs++;
	if (p->suspect && !notes.suspect++)
		lk_errbuf(notes.why, sizeof(notes.why), "%s", p->suspect_why);
	if (p->ru.has_p && p->ru.pinstructions <= p->ru.instructions) {
		notes.instr += p->ru.instructions;
		notes.pinstr += p->ru.pinstructions;
		notes.has_p = true;
	}
	/* The trace buffer wrapped (F10): complete samples only, so a lower bound, always shown as scaled. */
	if (p->lost && sc == KPERF_SCOPE_FULL)
		sc = KPERF_SCOPE_PARTIAL;
	for (size_t i = 0; i < p->nsel; i++) {
		struct lk_counts *c = &out[i];
		memset(c, 0, sizeof(*c));
		if (p->cfg.slot == NULL || p->cfg.slot[i] == SIZE_MAX)
			continue;
		c->supported = true;
		c->enabled = c->running = 1;
		switch (p->cfg.role[i]) {
		case KPERF_ROLE_INSTRUCTIONS:
			c->value = p->ru.instructions;
			break;
		case KPERF_ROLE_CYCLES:
			c->value = p->ru.cycles;
			break;
		case KPERF_ROLE_SAMPLED:
			if (sc == KPERF_SCOPE_NONE || sc == KPERF_SCOPE_NORUSAGE) {
				c->running = 0;	/* no thread sampled: not counted */
				break;
			}
			c->value = p->totals[p->cfg.slot[i]];
			if (sc == KPERF_SCOPE_PARTIAL) {
				c->value = kperf_agg_scale(c->value, sampled, p->ru.instructions);
				c->scaled = true;
				c->coverage = coverage;
			}
			break;
		}
	}
	return 0;
}

static void kperf_detach(void *priv)
{
	struct kperf_priv *p = priv;
	char why[256];
	if (p->counting)
		kperf_sampler_stop(&p->smp, why, sizeof(why));
	p->have_run = false;
}

static void kperf_close(void *priv)
{
	struct kperf_priv *p = priv;
	char why[256];
	kperf_sampler_release(&p->smp);
	if (p->armed && kperf_loaded()) {
		release_all(false, why, sizeof(why));
		atomic_store(&emergency_armed, false);
	}
	p->armed = false;
	p->counting = false;
	kperf_config_free(&p->cfg);
}

int kperf_probe(struct kperf_probe *out, char *why, size_t len)
{
	memset(out, 0, sizeof(*out));
	int r = usable(why, len);
	if (r < 0)
		return r;
	const uint32_t all = KPC_CLASS_FIXED_MASK | KPC_CLASS_CONFIGURABLE_MASK;
	if ((r = kperf_counter_count(all, &out->count_before, why, len)) < 0)
		return r;
	if (!forced_here) {
		if ((r = KPERF_CALL(kperf_fn.kpc_force_all_ctrs_set(1), "kpc_force_all_ctrs_set", why, len)) < 0)
			return r;
		arm_emergency();
		forced_here = true;
	}
	return kperf_counter_count(all, &out->count_after, why, len);
}

int kperf_release_forced(char *why, size_t len)
{
	if (!forced_here || !kperf_loaded())
		return 0;
	int r = KPERF_CALL(kperf_fn.kpc_force_all_ctrs_set(0), "kpc_force_all_ctrs_set", why, len);
	if (r == 0)
		forced_here = false;
	return r;
}

unsigned kperf_euid(void)
{
	char why[256];
	if (kperf_load_sys(why, sizeof(why)) < 0 && !kperf_sys)
		return (unsigned)geteuid();
	return kperf_sys->euid();
}

int kperf_action_count(uint32_t *out, char *why, size_t len)
{
	*out = 0;
	int r = usable(why, len);
	if (r < 0)
		return r;
	errno = 0;
	r = kperf_fn.kperf_action_count_get(out);
	int e = kperf_call_errno(r, errno);
	return e ? kperf_errno_error("kperf_action_count_get", e, why, len) : 0;
}

/* ---- C1: the kernel's answers, read only ---- */

static const struct {
	const char *name, *means;
	bool str;
} answers[KPERF_A_N] = {
	[KPERF_A_KTRACE_STATE] = { "ktrace.state", "0 unowned, 1 a foreground tool owns ktrace (lauka gets EBUSY), "
				   "2 a background tool (lauka takes it over)", false },
	[KPERF_A_KTRACE_OWNER] = { "ktrace.owning_pid", "the foreground owner", false },
	[KPERF_A_KTRACE_BG] = { "ktrace.background_pid", "the background tool (tailspind on stock macOS, inference)", false },
	[KPERF_A_KTRACE_BY] = { "ktrace.configured_by", "the process that last configured ktrace", true },
	[KPERF_A_ACTIONS] = { "kperf.action.count", "never lowered until reboot; lauka keeps it", false },
	[KPERF_A_SAMPLING] = { "kperf.sampling", "0 when no kperf client runs", false },
	[KPERF_A_LWPET] = { "kperf.lightweight_pet", "0 when no kperf client runs", false },
	[KPERF_A_COUNTING] = { "kpc.counting", "0 when no kpc client runs", false },
	[KPERF_A_THREAD_COUNTING] = { "kpc.thread_counting", "0 when no kpc client runs", false },
	[KPERF_A_FORCED] = { "kpc.force_all_ctrs", "1 while a process holds all counters (another one: EACCES)", false },
	[KPERF_A_COUNTERS] = { "kpc counters", "fixed + configurable visible now (2+5 unforced, 2+8 forced on M1-M4)", false },
	[KPERF_A_OSRELEASE] = { "kern.osrelease", "Darwin version (22 = macOS 13: 2 ms PET minimum)", true },
};

int kperf_kernel_answers(struct kperf_answer out[KPERF_A_N], char *why, size_t len)
{
	memset(out, 0, KPERF_A_N * sizeof(*out));
	char tmp[256];
	int r = kperf_load_sys(why, len);
	if (r < 0 && !kperf_sys)
		return r;
	bool fns = kperf_load_fns(tmp, sizeof(tmp)) == 0;
	for (size_t i = 0; i < KPERF_A_N; i++) {
		struct kperf_answer *a = &out[i];
		a->name = answers[i].name;
		a->means = answers[i].means;
		if (i == KPERF_A_COUNTERS) {
			if (!fns) {
				a->err = -ENOENT;
				snprintf(a->s, sizeof(a->s), "frameworks not loaded");
				continue;
			}
			/* 0 is kperf.framework's answer to a failed sysctl, not a count. */
			errno = 0;
			uint32_t f = kperf_fn.kpc_get_counter_count(KPC_CLASS_FIXED_MASK);
			int ef = errno;
			uint32_t c = f ? kperf_fn.kpc_get_counter_count(KPC_CLASS_CONFIGURABLE_MASK) : 0;
			if (f && !c)
				ef = errno;
			if (!f || !c) {
				a->err = ef ? -ef : -EIO;
				snprintf(a->s, sizeof(a->s), "unreadable: %.50s", ef ? strerror(ef) : "the framework answered 0");
				continue;
			}
			a->v = (long long)(f + c);
			snprintf(a->s, sizeof(a->s), "%u+%u", (unsigned)f, (unsigned)c);
			continue;
		}
		if (answers[i].str) {
			a->err = kperf_sys->sysctl_str ? kperf_sys->sysctl_str(a->name, a->s, sizeof(a->s)) : -ENOSYS;
		} else {
			int v = 0;
			a->err = kperf_sys->sysctl_int(a->name, NULL, &v);
			a->v = v;
			if (!a->err && (i == KPERF_A_COUNTING || i == KPERF_A_THREAD_COUNTING))
				snprintf(a->s, sizeof(a->s), "0x%x", (unsigned)v);
			else if (!a->err)
				snprintf(a->s, sizeof(a->s), "%d", v);
		}
		if (a->err)
			snprintf(a->s, sizeof(a->s), "unreadable: %s", strerror(-a->err));
	}
	return 0;
}

bool kperf_stale(const struct kperf_answer a[KPERF_A_N], bool owner_alive, char *why, size_t len)
{
	if (len)
		why[0] = '\0';
	if (!a[KPERF_A_KTRACE_STATE].err && a[KPERF_A_KTRACE_STATE].v == 1 && owner_alive)
		return false;	/* a live tool is using it: its state, not a stale one */
	static const int on[] = { KPERF_A_SAMPLING, KPERF_A_LWPET, KPERF_A_COUNTING, KPERF_A_THREAD_COUNTING };
	size_t n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(on); i++) {
		const struct kperf_answer *x = &a[on[i]];
		if (x->err || !x->v)
			continue;
		size_t used = strlen(why);
		snprintf(why + used, len - used, "%s%s = %s", n++ ? ", " : "", x->name, x->s);
	}
	return n > 0;
}

bool kperf_seam_is_model(void)
{
	char why[256];
	kperf_load_sys(why, sizeof(why));
#ifdef __APPLE__
	return kperf_sys && kperf_sys != kperf_native_sys();
#else
	return kperf_sys != NULL;
#endif
}

void kperf_last_run(const void *priv, struct kperf_run_stats *out)
{
	const struct kperf_priv *p = priv;
	const struct kperf_agg *a = &p->smp.agg;
	memset(out, 0, sizeof(*out));
	out->values = p->cfg.ncounters;
	for (size_t i = 0; i < a->nthreads; i++)
		out->samples += a->threads[i].nsamples;
	out->records = a->records;
	out->starts = a->starts;
	out->ends = a->ends;
	out->threads = kperf_agg_threads_counted(a);
	out->lost = a->lost;
}

int kperf_rusage_of(int pid, struct kperf_rusage *out, char *why, size_t len)
{
	int r = kperf_load_sys(why, len);
	if (r < 0)
		return r;
	if ((r = kperf_sys->rusage(pid, out)) < 0) {
		lk_errbuf(why, len, "proc_pid_rusage(%d): %s", pid, strerror(-r));
		return -LK_EIO;
	}
	return 0;
}

/*
 * Cycles and instructions are rusage defaults on macOS (exact, from
 * proc_pid_rusage), so kperf adds what rusage cannot count.  On M1-M3 the
 * first three share PMC5-7 and fit exactly once the counters are forced;
 * names missing from a chip's database are skipped by the caller.
 */
static const char *const kperf_defaults[] = {
	"INST_BRANCH", "BRANCH_MISPRED_NONSPEC", "L1D_CACHE_MISS_LD_NONSPEC", "L1I_CACHE_MISS_DEMAND", NULL,
};

const struct lk_backend backend_kperf = {
	.name = "kperf",
	.desc = "Apple kperf/kpc hardware counters of the command's own threads (macOS, root)",
	.priv_size = sizeof(struct kperf_priv),
	.detect = kperf_detect,
	.catalog = kperf_catalog,
	.defaults = kperf_defaults,
	.open = kperf_open,
	.attach = kperf_attach,
	.exited = kperf_exited,
	.read = kperf_read,
	.detach = kperf_detach,
	.close = kperf_close,
};

/* ---- notes for the commands ---- */

const char *kperf_event_note(const struct lk_pmu *pmu, const struct lk_event *ev)
{
	if (!pmu || !pmu->kind || strcmp(pmu->kind, "kpep") || !ev || ev->fixed_counter >= 0)
		return NULL;
	return "kperf: user mode only";
}

const char *kperf_scope_note(const char *backend, const char *const *argv)
{
	if (!backend || !argv || !argv[0])
		return NULL;
#ifndef __APPLE__
	if (strcmp(backend, "kperf"))
		return NULL;
#else
	if (strcmp(backend, "kperf") && strcmp(backend, "rusage"))
		return NULL;
#endif
	static const char *const shells[] = { "sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "env",
					      "make", "xargs", "time", NULL };
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	for (size_t i = 0; shells[i]; i++)
		if (!strcmp(base, shells[i]))
			return "on macOS the counts are of the direct process only: the commands a shell (or make, "
			       "env, xargs) starts are not counted, unlike Linux perf";
	return NULL;
}

void kperf_record_tips(const char *backend, char *const *argv, bool first)
{
	const char *note = kperf_scope_note(backend, (const char *const *)argv);
	if (note)
		tip("%s", note);
	if (first && backend && !strcmp(backend, "kperf"))
		tip("kperf's configurable events count user mode only; instructions and cycles "
		    "(proc_pid_rusage) include kernel mode");
	if (!backend || strcmp(backend, "kperf")) {
		memset(&notes, 0, sizeof(notes));
		return;
	}
	if (notes.suspect)
		warning("kperf: %zu of the %zu runs above are suspect: %s (a thread's counters never go down; "
			"a glitch of the per-cpu deltas kpc sums, or a migration between core types)",
			notes.suspect, notes.runs, notes.why);
	/* C11: an event that counts nothing on E-cores under-counts the part of the run that was there. */
	if (notes.has_p && notes.instr) {
		double p_share = (double)notes.pinstr / (double)notes.instr;
		if (p_share < 0.995)
			tip("kperf: %.1f%% of the instructions retired on P-cores, %.1f%% on E-cores "
			    "(ri_pinstructions); an event the E-cores do not count is under-counted by that share",
			    p_share * 100, (1 - p_share) * 100);
	}
	memset(&notes, 0, sizeof(notes));
}
