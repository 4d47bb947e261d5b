/*
 * kperf-standin.c: a model of the XNU rules behind kperf.framework,
 * kperfdata.framework and lauka's Darwin seam (struct kperf_sys), built as
 * a shared object so the kperf backend loads it through the same dlopen
 * path as the real frameworks.  The rules it enforces, and how its thread
 * samples come from the real child process, are listed in kperf-standin.h;
 * each names the XNU code it stands for in reference/xnu-kperf.md.
 *
 * Every kpc/kperf/kdebug entry point runs under one lock and reloads the
 * state from $LAUKA_STANDIN_STATE (when set) first, so two processes see
 * one "kernel".  The ticker thread (PET) and the trace buffer belong to the
 * process that switched sampling on, as the records a real kernel logs
 * belong to its buffer.
 */
#include "backend/kperf/kperf.h"
#include "backend/kperf/agg.h"
#include "kperf-standin.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FIXED 1u
#define CONFIGURABLE 2u
#define SAMPLER_PMC_THREAD (1u << 4)
#define ACTION_MAX 32u
#define TIMER_MAX 8u
#define TIMER_NONE 999u
#define PET_MIN_NS 1000000u		/* kptimer.c: the PET period is at least 1 ms (xnu-10002+) */
#define PET_MIN_NS_13 2000000u		/* ... and 2 ms on macOS 13 (xnu-8792 kptimer.c KTPL_FG_PET) */
#define KPC_MAX_COUNTERS 11u		/* arm64 machine_kpc.h: 2 + 8 + 1 */
#define MASK_KDEBUG 1u
#define MASK_KPERF 2u
#define TRACE_LOST_EVENTS 0x07020008u

/* ---------------------------------------------------------------- state */

static struct standin_state S;
static pthread_mutex_t M = PTHREAD_MUTEX_INITIALIZER;

/* The ticker and the trace buffer: of this process only. */
static struct {
	pthread_t th;
	bool on, stop;
	int pid;
	uint64_t period_ns;
	struct kperf_kdbuf *ring;
	size_t cap, head, n;
	bool lost_pending;
	uint64_t ticks, samples, records, lost;
	long seen[64];		/* threads sampled before (for LAUKA_STANDIN_GLITCH_AT) */
	size_t nseen;
	bool glitched;
} T;

/* Was this thread sampled before?  Records it as sampled. */
static bool sampled_before(long tid)
{
	for (size_t i = 0; i < T.nseen; i++)
		if (T.seen[i] == tid)
			return true;
	if (T.nseen < sizeof(T.seen) / sizeof(T.seen[0]))
		T.seen[T.nseen++] = tid;
	return false;
}

static const char *state_file(void)
{
	const char *f = getenv("LAUKA_STANDIN_STATE");
	return f && *f ? f : NULL;
}

static void save(void)
{
	const char *f = state_file();
	if (!f)
		return;
	FILE *fp = fopen(f, "wb");
	if (fp) {
		fwrite(&S, sizeof(S), 1, fp);
		fclose(fp);
	}
}

static bool env_is(const char *name, const char *v)
{
	const char *e = getenv(name);
	return e && !strcmp(e, v);
}

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtol(v, NULL, 0) : dflt;
}

static void load(void)
{
	const char *f = state_file();
	if (f) {
		FILE *fp = fopen(f, "rb");
		if (fp) {
			struct standin_state t;
			if (fread(&t, sizeof(t), 1, fp) == 1)
				S = t;
			fclose(fp);
		}
	}
	if (S.initialised)
		return;
	memset(&S, 0, sizeof(S));
	S.initialised = 1;
	S.pet_timer = TIMER_NONE;
	if (env_is("LAUKA_STANDIN_STALE", "1")) {
		/* As a SIGKILLed run leaves it: owner gone (forced counters released with it), the rest on. */
		S.counting = S.thread_counting = FIXED | CONFIGURABLE;
		S.thread_values = 7;
		S.action_count = ACTION_MAX;
		S.timer_count = TIMER_MAX;
		S.samplers = SAMPLER_PMC_THREAD;
		S.timer_action = 1;
		S.pet_timer = 1;
		S.lightweight_pet = 1;
		S.sampling = 1;
		S.filter_pid = 999999;
		S.kd_nbufs = 1000;
		S.kd_setup = S.kd_enabled = 1;
	}
	if (env_is("LAUKA_STANDIN_BUSY", "1")) {
		S.owner = (int)getppid();
		S.owner_mask = MASK_KDEBUG | MASK_KPERF;
		S.sampling = 1;
		snprintf(S.configured_by, sizeof(S.configured_by), "Instruments");
	}
	if (env_is("LAUKA_STANDIN_KDSTALE", "typefilter"))
		S.kd_flags = STANDIN_KDBG_TYPEFILTER;
	else if (env_is("LAUKA_STANDIN_KDSTALE", "pidcheck"))
		S.kd_flags = STANDIN_KDBG_PIDCHECK;
	/* Another kperf client (an IB-style tool sets 32, KPERF_ACTION_MAX) ran since boot and reset kperf. */
	if (env_long("LAUKA_STANDIN_ACTIONS", 0) > 0)
		S.action_count = (uint32_t)env_long("LAUKA_STANDIN_ACTIONS", 0);
	if (env_is("LAUKA_STANDIN_FORCED", "1"))
		S.force_owner = (int)getppid();
	if (env_is("LAUKA_STANDIN_BGTOOL", "1"))
		S.bg_pid = (int)getppid();
	if (env_is("LAUKA_STANDIN_STALE", "1"))
		snprintf(S.configured_by, sizeof(S.configured_by), "lauka");
	save();
}

static const char *osrelease(void)
{
	const char *v = getenv("LAUKA_STANDIN_OSRELEASE");
	return v && *v ? v : "24.4.0";
}

static uint64_t pet_min_ns(void)
{
	return atoi(osrelease()) == 22 ? PET_MIN_NS_13 : PET_MIN_NS;
}

/* C2: another root process rewrites `field` right after lauka's write. */
static bool tamper(const char *field)
{
	return env_is("LAUKA_STANDIN_TAMPER", field);
}

/* LAUKA_STANDIN_FAIL lookup: the code configured for `name`, or 0. */
static int injected(const char *name)
{
	const char *spec = getenv("LAUKA_STANDIN_FAIL");
	size_t n = strlen(name);
	for (const char *p = spec; p && *p;) {
		const char *end = strchr(p, ',');
		if (!strncmp(p, name, n) && p[n] == '=')
			return (int)strtol(p + n + 1, NULL, 0);
		p = end ? end + 1 : NULL;
	}
	return 0;
}

static unsigned standin_euid(void)
{
	return (unsigned)env_long("LAUKA_STANDIN_EUID", 0);
}

/* kpc_/kperf_ failure in the configured return style. */
static int fail_errno(int e)
{
	if (!e)
		return 0;
	if (env_is("LAUKA_STANDIN_RETSTYLE", "value"))
		return e;
	errno = e;
	return -1;
}

static bool alive(int pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

static bool forced(void)
{
	return alive(S.force_owner);
}

/* kern_ktrace.c ktrace_configure(): root, no other live owner; the owner records what it configured. */
static int ktrace_configure(unsigned mask)
{
	if (standin_euid() != 0)
		return EPERM;
	if (S.owner && S.owner != (int)getpid() && alive(S.owner))
		return EBUSY;
	if (S.owner != (int)getpid()) {
		S.owner_mask = 0;
		/* kern_ktrace.c: the configuring process's name is kept for ktrace.configured_by */
		char comm[32] = "";
		FILE *fp = fopen("/proc/self/comm", "r");
		if (fp) {
			if (fgets(comm, sizeof(comm), fp))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(fp);
		}
		snprintf(S.configured_by, sizeof(S.configured_by), "%s", comm[0] ? comm : "?");
	}
	S.owner = (int)getpid();
	S.owner_mask |= mask;
	return 0;
}

/* ktrace_reset_internal(): ownership is released once both kdebug and kperf are reset. */
static void ktrace_reset(unsigned mask)
{
	S.owner_mask &= ~mask;
	if (!S.owner_mask)
		S.owner = 0;
}

/* An injected failure, then the privilege rule of the call. */
static int enter_kpc(const char *name)
{
	int e = injected(name);
	if (e)
		return e;
	if (standin_euid() != 0)
		return EPERM;	/* kpc writes: ktrace_read_check (root) */
	/* A4: xnu-10063+ kern_kpc.c: EBUSY while another kernel client has acquired the CPMU. */
	return env_is("LAUKA_STANDIN_CPMU", "1") ? EBUSY : 0;
}

static int enter_kperf(const char *name)
{
	int e = injected(name);
	return e ? e : ktrace_configure(MASK_KPERF);
}

#define LOCKED(type, expr) do { pthread_mutex_lock(&M); load(); type r_ = (expr); save(); \
	int e_ = errno; pthread_mutex_unlock(&M); errno = e_; return r_; } while (0)

/* ---------------------------------------------------------------- the ticker (PET) */

static void push(const struct kperf_kdbuf *b)
{
	if (!S.kd_enabled || !T.ring)
		return;
	if ((S.kd_flags & STANDIN_KDBG_TYPEFILTER) && (b->debugid >> 24) != 7)	/* DBG_TRACE only */
		return;
	if (S.kd_flags & STANDIN_KDBG_PIDCHECK)	/* the measured child is not marked (p_kdebug) */
		return;
	if (S.kd_filter && (b->debugid & ~KPERF_FUNC_MASK) != S.kd_filter)
		return;
	if (T.n == T.cap) {	/* the buffer wrapped: the reader will be told */
		T.lost_pending = true;
		T.lost++;
		return;
	}
	T.ring[(T.head + T.n) % T.cap] = *b;
	T.n++;
	T.records++;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A thread's state letter and CPU time (ns since its creation); false when it is gone. */
static bool thread_cpu(int pid, long tid, char *state, uint64_t *ns)
{
	char path[96], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/task/%ld/stat", pid, tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t got = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[got] = '\0';
	const char *rp = strrchr(buf, ')');
	if (!rp || rp[1] != ' ')
		return false;
	*state = rp[2];
	unsigned long ut = 0, st = 0;
	/* fields after the state: ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (sscanf(rp + 4, "%*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return false;
	*ns = (uint64_t)(ut + st) * (1000000000u / (uint64_t)sysconf(_SC_CLK_TCK));
	/* Precise: the scheduler's sum_exec_runtime (ms with 6 decimals). */
	snprintf(path, sizeof(path), "/proc/%d/task/%ld/sched", pid, tid);
	if ((f = fopen(path, "r"))) {
		char line[256];
		while (fgets(line, sizeof(line), f)) {
			unsigned long ms, frac;
			if (!strncmp(line, "se.sum_exec_runtime", 19) &&
			    sscanf(strchr(line, ':') ? strchr(line, ':') + 1 : line, " %lu.%6lu", &ms, &frac) == 2) {
				*ns = (uint64_t)ms * 1000000u + frac;
				break;
			}
		}
		fclose(f);
	}
	return true;
}

/* kpc_get_curcpu_counters order: fixed, then the configurable counters the mask held when frozen. */
static uint64_t counter_value(size_t k, uint64_t t)
{
	static const unsigned packed[] = { 0, 1, 2, 3, 4, 8, 9 };
	/* kpc_get_curcpu_counters reads the current mask: un-forced, PMC5-7 leave the layout (R3). */
	unsigned pmc = S.thread_forced && forced() ? (unsigned)k : k < 7 ? packed[k] : 99;
	if (pmc == 0)
		return (S.counting & FIXED) ? STANDIN_CYCLES_PER_NS * t : 0;
	if (pmc == 1)
		return (S.counting & FIXED) ? STANDIN_INSTR_PER_NS * t : 0;
	if (pmc >= 10 || !(S.counting & CONFIGURABLE) || !S.config_set)
		return 0;
	return (S.config[pmc - 2] & 0xffff) * t;
}

/* kperf_kpc.c: one thread sample = ceil(n/4) records, START on the first, END on the last (one: START). */
static void log_sample(long tid, uint64_t t)
{
	size_t n = S.thread_counting ? S.thread_values : KPC_MAX_COUNTERS;
	size_t nrec = (n + 3) / 4;
	uint64_t ts = now_ns();
	/*
	 * A6: one sample whose configurable counters went down (a P/E migration glitch): the first
	 * sample from the LAUKA_STANDIN_GLITCH_AT-th on of a thread sampled before, its configurable
	 * counters set to 1, below anything that thread counted already.  (Not "sample N" itself: which
	 * thread that is, and whether its counters were halved below its last sample, moves with the
	 * load on the machine.)
	 */
	long at = env_long("LAUKA_STANDIN_GLITCH_AT", 0);
	bool before = sampled_before(tid);
	bool glitch = at > 0 && !T.glitched && T.samples + 1 >= (uint64_t)at && before;
	T.glitched |= glitch;
	for (size_t r = 0; r < nrec; r++) {
		struct kperf_kdbuf b;
		memset(&b, 0, sizeof(b));
		b.timestamp = ts;
		b.tid = (uint64_t)tid;
		b.debugid = KPERF_DEBUGID_THREAD |
			    (r == 0 ? KPERF_FUNC_START : r == nrec - 1 ? KPERF_FUNC_END : 0);
		for (size_t a = 0; a < 4; a++) {
			size_t k = r * 4 + a;
			b.arg[a] = k < n && S.thread_counting ? counter_value(k, t) : 0;
			if (glitch && k >= 2 && b.arg[a] > 1)
				b.arg[a] = 1;
		}
		push(&b);
	}
	T.samples++;
}

static void *ticker(void *arg)
{
	(void)arg;
	uint64_t period = T.period_ns;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		next.tv_nsec += (long)period;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		/* nanosleep to the deadline (clock_nanosleep is not on macOS, where this compiles too) */
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		int64_t left = (int64_t)(next.tv_sec - now.tv_sec) * 1000000000 + (next.tv_nsec - now.tv_nsec);
		if (left > 0) {
			struct timespec d = { (time_t)(left / 1000000000), (long)(left % 1000000000) };
			nanosleep(&d, NULL);
			clock_gettime(CLOCK_MONOTONIC, &now);
		}
		if (now.tv_sec > next.tv_sec + 1)
			next = now;	/* a late timer fires once, not once per missed period */
		pthread_mutex_lock(&M);
		bool stop = T.stop;
		int pid = T.pid;
		pthread_mutex_unlock(&M);
		if (stop)
			break;
		char dir[64];
		snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
		DIR *d = opendir(dir);
		long tids[256];
		size_t nt = 0;
		if (d) {
			struct dirent *de;
			while ((de = readdir(d)) && nt < 256)
				if (de->d_name[0] != '.')
					tids[nt++] = strtol(de->d_name, NULL, 10);
			closedir(d);
		}
		pthread_mutex_lock(&M);
		T.ticks++;
		for (size_t i = 0; i < nt; i++) {
			char st;
			uint64_t t;
			/* The thread on core when the timer fires: running, not sleeping, not a zombie. */
			if (thread_cpu(pid, tids[i], &st, &t) && st == 'R')
				log_sample(tids[i], t);
		}
		pthread_mutex_unlock(&M);
	}
	return NULL;
}

/* Called under M; the caller joins after unlocking (the ticker takes M). */
static bool ticker_stop(void)
{
	if (!T.on)
		return false;
	T.stop = true;
	return true;
}

static void ticker_join(bool stopping)
{
	if (!stopping)
		return;
	pthread_join(T.th, NULL);
	pthread_mutex_lock(&M);
	T.on = false;
	pthread_mutex_unlock(&M);
}

/* Sampling on: a ticker for the PET timer when the configuration makes PET sample PMC_THREAD of a pid. */
static void ticker_start(void)
{
	uint32_t act = S.pet_timer < S.timer_count ? S.timer_action : 0;
	if (T.on || !S.lightweight_pet || act == 0 || act > S.action_count || !(S.samplers & SAMPLER_PMC_THREAD) ||
	    S.filter_pid <= 0)
		return;
	T.pid = S.filter_pid;
	T.period_ns = S.timer_period < pet_min_ns() ? pet_min_ns() : S.timer_period;
	T.stop = false;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	T.on = pthread_create(&T.th, NULL, ticker, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* ------------------------------------------------------------ kperf.framework */

int kpc_force_all_ctrs_get(int *v);
int kpc_force_all_ctrs_set(int v);
uint32_t kpc_get_counting(void);
uint32_t kpc_get_thread_counting(void);
int kpc_set_counting(uint32_t classes);
int kpc_set_thread_counting(uint32_t classes);
uint32_t kpc_get_counter_count(uint32_t classes);
int kpc_set_config(uint32_t classes, uint64_t *config);
int kperf_action_count_set(uint32_t n);
int kperf_action_count_get(uint32_t *n);
int kperf_action_samplers_set(uint32_t action, uint32_t samplers);
int kperf_action_filter_set_by_pid(uint32_t action, int32_t pid);
int kperf_timer_count_set(uint32_t n);
int kperf_timer_period_set(uint32_t timer, uint64_t ticks);
int kperf_timer_action_set(uint32_t timer, uint32_t action);
int kperf_timer_pet_set(uint32_t timer);
int kperf_sample_set(uint32_t on);
int kperf_sample_get(uint32_t *on);
int kperf_reset(void);
uint64_t kperf_ns_to_ticks(uint64_t ns);
void lauka_standin_state(struct standin_state *out);

static int force_get(int *v)
{
	int e = enter_kpc("kpc_force_all_ctrs_get");
	if (e)
		return fail_errno(e);
	*v = forced();
	return 0;
}

int kpc_force_all_ctrs_get(int *v)
{
	LOCKED(int, force_get(v));
}

/* osfmk/kern/kpc_common.c:167-178 kpc_force_all_ctrs() (xnu-11417.101.15): EACCES while another task holds them. */
static int force_set(int v)
{
	int e = enter_kpc("kpc_force_all_ctrs_set");
	if (e)
		return fail_errno(e);
	if (forced() && S.force_owner != (int)getpid())
		return fail_errno(EACCES);
	if (v) {
		S.force_owner = (int)getpid();
		S.force_sets++;
	} else {
		S.force_owner = 0;
	}
	return 0;
}

int kpc_force_all_ctrs_set(int v)
{
	LOCKED(int, force_set(v));
}

/*
 * The kpc.* sysctl behind a framework getter: bsd/kern/kern_kpc.c:397-419
 * (xnu-11417.101.15): kpc.counting and kpc.thread_counting need
 * ktrace_read_check (root, :404-411), kpc.counter_count is public
 * (:399-403), and every kpc.* request is EBUSY while another kernel client
 * has acquired the CPMU (:417-419).  0 or the errno.
 */
static int kpc_read_errno(const char *fn, bool public_read)
{
	int e = injected(fn);
	if (e)
		return e;
	if (!public_read && standin_euid() != 0)
		return EPERM;
	return env_is("LAUKA_STANDIN_CPMU", "1") ? EBUSY : 0;
}

/*
 * kperf.framework's getters return a value, not an error: on a failed
 * sysctl kpc_get_counting gives 0, kpc_get_thread_counting 0xFFFFFFFF and
 * kpc_get_counter_count 0 (with the sysctl's errno left set).  Closed
 * source: read from a decompiled kperf.framework (EthanArbuckle/
 * iPhone17-1_18.2_22C152_Restore, kperf.framework/kperf.m), not from Apple.
 */
static uint32_t get_counting(void)
{
	int e = kpc_read_errno("kpc_get_counting", false);
	if (e) {
		errno = e;
		return 0;
	}
	return S.counting;
}

uint32_t kpc_get_counting(void)
{
	LOCKED(uint32_t, get_counting());
}

static uint32_t get_thread_counting(void)
{
	int e = kpc_read_errno("kpc_get_thread_counting", false);
	if (e) {
		errno = e;
		return 0xFFFFFFFFu;	/* the framework's sentinel (closed source, see above) */
	}
	return S.thread_counting;
}

uint32_t kpc_get_thread_counting(void)
{
	LOCKED(uint32_t, get_thread_counting());
}

/* kpc_common.c: the configurable count is the popcount of the mask the power manager leaves. */
static uint32_t counter_count(uint32_t classes)
{
	return (classes & FIXED ? 2u : 0u) + (classes & CONFIGURABLE ? (forced() ? 8u : 5u) : 0u);
}

static uint32_t get_counter_count(uint32_t classes)
{
	int e = kpc_read_errno("kpc_get_counter_count", true);
	if (e) {
		errno = e;
		return 0;	/* the framework's sentinel (closed source, see above) */
	}
	return counter_count(classes);
}

uint32_t kpc_get_counter_count(uint32_t classes)
{
	LOCKED(uint32_t, get_counter_count(classes));
}

static int set_counting(uint32_t classes)
{
	int e = enter_kpc("kpc_set_counting");
	if (e)
		return fail_errno(e);
	S.counting = classes;
	if (tamper("counting"))
		S.counting = classes & FIXED;
	return 0;
}

int kpc_set_counting(uint32_t classes)
{
	LOCKED(int, set_counting(classes));
}

/* kpc_thread.c: the number of values per thread sample is taken here, and kept. */
static int set_thread_counting(uint32_t classes)
{
	int e = enter_kpc("kpc_set_thread_counting");
	if (e)
		return fail_errno(e);
	S.thread_counting = classes;
	if (classes && tamper("thread_counting"))
		S.thread_counting = classes & FIXED;
	S.thread_values = classes ? counter_count(classes) : 0;
	S.thread_forced = (uint32_t)forced();
	return 0;
}

int kpc_set_thread_counting(uint32_t classes)
{
	LOCKED(int, set_thread_counting(classes));
}

/*
 * kpc_set_config and kpc_get_config as XNU answers them on Apple silicon
 * (read at apple-oss-distributions/xnu tag xnu-11417.101.15, macOS 15.4):
 * the kernel keeps no copy of the words; it programs registers and
 * kpc_get_config rebuilds each word from them.
 */
#define CFG_EL0A32 0x10000u	/* kpc.c:181-185 CFGWORD_*_MASK */
#define CFG_EL0A64 0x20000u
#define CFG_EL1 0x40000u

/* kpc.c:160-166: PMESR_PMC_MASK is 16 bits with CPMU_16BIT_EVENTS, else 8. */
static uint64_t pmesr_mask(void)
{
	return env_is("LAUKA_STANDIN_EVENT16", "1") ? 0xffffu : 0xffu;
}

/*
 * kpc.c:48-52 and :533: kpc_allows_counting_system is true on DEVELOPMENT
 * and DEBUG kernels, PE_i_can_has_debugger() on release ones (false on a
 * stock Mac); bsd/kern/kern_kpc.c:251-257: the sysctl path is the secure
 * one (kpc_set_config_kernel).
 */
static bool kernel_countable(void)
{
	return env_is("LAUKA_STANDIN_DEVKERNEL", "1");
}

/* kpc.c:308-339 set_modes(): which PMCR1 enables a config word turns on (secure path). */
static uint32_t modes_of(uint64_t w)
{
	bool allow_kernel = kernel_countable();	/* :310, secure */
	uint32_t bits = 0;
	if (w & CFG_EL0A32)
		bits |= CFG_EL0A32;	/* :313-315 */
	if (w & CFG_EL0A64)
		bits |= CFG_EL0A64;	/* :316-318 */
	if (allow_kernel && (w & CFG_EL1))
		bits |= CFG_EL1;	/* :319-321: dropped when the kernel may not be counted */
	if (bits == 0 && w != 0)	/* :328-331: the compatibility rule for a word without mode bits */
		bits = allow_kernel ? CFG_EL0A32 | CFG_EL0A64 | CFG_EL1 : CFG_EL0A64;
	return bits;
}

static int set_config(uint32_t classes, const uint64_t *config)
{
	int e = enter_kpc("kpc_set_config");
	if (e)
		return fail_errno(e);
	if (!(classes & CONFIGURABLE))
		return fail_errno(EINVAL);
	if (!forced())
		return fail_errno(EPERM);	/* PMC5-7 belong to the power manager */
	/* kpc.c:947-961 kpc_set_config_arch(): the event field into PMESR, the modes into PMCR1. */
	for (size_t k = 0; k < 8; k++) {
		S.config[k] = config[k] & pmesr_mask();	/* :956-959 PMESR_EVT_ENCODE */
		S.modes[k] = modes_of(config[k]);	/* :960 set_modes */
	}
	S.config_set = 1;
	if (tamper("config"))	/* the first programmed counter's event */
		for (size_t k = 0; k < 8; k++)
			if (S.config[k]) {
				S.config[k] ^= 0x1;
				break;
			}
	return 0;
}

/*
 * kpc.config read (root): kpc_common.c:447-461 kpc_get_config() gives the
 * fixed class's words first (none on arm64, kpc.c:563-566), then one word
 * per configurable counter, each from kpc.c:454-501 get_counter_config():
 * PMESR's event field, then the mode bits PMCR1 holds (:481-497; EL1 also
 * sets EL3EN where there is no monitor, :488-491: not modelled, lauka
 * accepts every mode bit there).
 */
static int get_config(uint32_t classes, uint64_t *config)
{
	int e = enter_kpc("kpc_get_config");
	if (e)
		return fail_errno(e);
	if (!(classes & CONFIGURABLE))
		return fail_errno(EINVAL);
	for (size_t k = 0; k < counter_count(CONFIGURABLE); k++)
		config[k] = S.config[k] | S.modes[k];
	return 0;
}

int kpc_get_config(uint32_t classes, uint64_t *config);
int kpc_get_config(uint32_t classes, uint64_t *config)
{
	LOCKED(int, get_config(classes, config));
}

int kpc_set_config(uint32_t classes, uint64_t *config)
{
	LOCKED(int, set_config(classes, config));
}

/* action.c kperf_action_set_count(): it cannot shrink. */
static int action_count_set(uint32_t n)
{
	int e = enter_kperf("kperf_action_count_set");
	if (e)
		return fail_errno(e);
	if (n == S.action_count)
		return 0;
	/* A3a: a background client raised the count since lauka read it. */
	long race = env_long("LAUKA_STANDIN_ACTION_RACE", 0);
	if (race > 0 && S.action_races == 0 && (uint32_t)race > n) {
		S.action_races++;
		S.action_count = (uint32_t)race;
	}
	if (n < S.action_count || n > ACTION_MAX)
		return fail_errno(EINVAL);
	S.action_count = n;
	return 0;
}

int kperf_action_count_set(uint32_t n)
{
	LOCKED(int, action_count_set(n));
}

/* kperfbsd.c sysctl_action_count: a read returns actionc (ktrace_read_check: root). */
static int action_count_get(uint32_t *n)
{
	int e = injected("kperf_action_count_get");
	if (!e && standin_euid() != 0)
		e = EPERM;
	if (e)
		return fail_errno(e);
	*n = S.action_count;
	return 0;
}

int kperf_action_count_get(uint32_t *n)
{
	LOCKED(int, action_count_get(n));
}

/* Actions are 1-based: 0 is "no action". */
static int samplers_set(uint32_t action, uint32_t samplers)
{
	int e = enter_kperf("kperf_action_samplers_set");
	if (e)
		return fail_errno(e);
	if (action == 0 || action > S.action_count)
		return fail_errno(EINVAL);
	if (action == 1)
		S.samplers = tamper("samplers") ? 0 : samplers;
	return 0;
}

static int samplers_get(uint32_t action, uint32_t *samplers)
{
	int e = injected("kperf_action_samplers_get");
	if (!e && standin_euid() != 0)
		e = EPERM;
	if (!e && (action == 0 || action > S.action_count))
		e = EINVAL;
	if (e)
		return fail_errno(e);
	*samplers = action == 1 ? S.samplers : 0;
	return 0;
}

int kperf_action_samplers_get(uint32_t action, uint32_t *samplers);
int kperf_action_samplers_get(uint32_t action, uint32_t *samplers)
{
	LOCKED(int, samplers_get(action, samplers));
}

int kperf_action_samplers_set(uint32_t action, uint32_t samplers)
{
	LOCKED(int, samplers_set(action, samplers));
}

static int filter_set(uint32_t action, int32_t pid)
{
	int e = enter_kperf("kperf_action_filter_set_by_pid");
	if (e)
		return fail_errno(e);
	if (action == 0 || action > S.action_count)
		return fail_errno(EINVAL);
	if (action == 1)
		S.filter_pid = pid;
	return 0;
}

int kperf_action_filter_set_by_pid(uint32_t action, int32_t pid)
{
	LOCKED(int, filter_set(action, pid));
}

/* kptimer.c: EINVAL above KPTIMER_MAX, EBUSY while the timers run. */
static int timer_count_set(uint32_t n)
{
	int e = enter_kperf("kperf_timer_count_set");
	if (e)
		return fail_errno(e);
	if (n > TIMER_MAX)
		return fail_errno(EINVAL);
	if (S.sampling)
		return fail_errno(EBUSY);
	S.timer_count = n;
	return 0;
}

int kperf_timer_count_set(uint32_t n)
{
	LOCKED(int, timer_count_set(n));
}

/* Timers are 0-based.  The model keeps the settings of timer 1 (lauka's) only. */
static int timer_check(const char *name, uint32_t timer)
{
	int e = enter_kperf(name);
	if (e)
		return e;
	if (timer >= S.timer_count)
		return EINVAL;
	return S.sampling ? EBUSY : 0;
}

static int timer_period_set(uint32_t timer, uint64_t ticks)
{
	int e = timer_check("kperf_timer_period_set", timer);
	if (e)
		return fail_errno(e);
	/*
	 * osfmk/kperf/kptimer.c:666-686 kptimer_set_period() (xnu-11417.101.15):
	 * the PET timer's nonzero period is raised to the PET minimum (:676-679;
	 * 1 ms, :114-124).  Other timers' minimum (20 or 50 us) is not modelled:
	 * lauka uses one timer, the PET one.
	 */
	if (timer == S.pet_timer && ticks != 0 && ticks < pet_min_ns())
		ticks = pet_min_ns();
	if (timer == 1)
		S.timer_period = tamper("period") ? 10 * ticks : ticks;
	return 0;
}

static int period_get(uint32_t timer, uint64_t *ticks)
{
	int e = injected("kperf_timer_period_get");
	if (!e && standin_euid() != 0)
		e = EPERM;
	if (!e && timer >= S.timer_count)
		e = EINVAL;
	if (e)
		return fail_errno(e);
	*ticks = timer == 1 ? S.timer_period : 0;
	return 0;
}

int kperf_timer_period_get(uint32_t timer, uint64_t *ticks);
int kperf_timer_period_get(uint32_t timer, uint64_t *ticks)
{
	LOCKED(int, period_get(timer, ticks));
}

int kperf_timer_period_set(uint32_t timer, uint64_t ticks)
{
	LOCKED(int, timer_period_set(timer, ticks));
}

static int timer_action_set(uint32_t timer, uint32_t action)
{
	int e = timer_check("kperf_timer_action_set", timer);
	if (e)
		return fail_errno(e);
	if (action > S.action_count)
		return fail_errno(EINVAL);
	if (timer == 1)
		S.timer_action = action;
	return 0;
}

int kperf_timer_action_set(uint32_t timer, uint32_t action)
{
	LOCKED(int, timer_action_set(timer, action));
}

static int timer_pet_set(uint32_t timer)
{
	int e = timer_check("kperf_timer_pet_set", timer);
	if (e)
		return fail_errno(e);
	S.pet_timer = tamper("pet") ? 0 : timer;
	/* kptimer.c:754-770 kptimer_set_pet_timerid(): the new PET timer's period is raised to the minimum (:763-765). */
	if (S.pet_timer == 1 && S.timer_period < pet_min_ns())
		S.timer_period = pet_min_ns();
	return 0;
}

static int pet_get(uint32_t *timer)
{
	int e = injected("kperf_timer_pet_get");
	if (!e && standin_euid() != 0)
		e = EPERM;
	if (e)
		return fail_errno(e);
	*timer = S.pet_timer;
	return 0;
}

int kperf_timer_pet_get(uint32_t *timer);
int kperf_timer_pet_get(uint32_t *timer)
{
	LOCKED(int, pet_get(timer));
}

int kperf_timer_pet_set(uint32_t timer)
{
	LOCKED(int, timer_pet_set(timer));
}

/* kperf.c kperf_enable_sampling(): ECANCELED without actions. */
static int sample_set(uint32_t on, bool *join)
{
	int e = enter_kperf("kperf_sample_set");
	if (e)
		return fail_errno(e);
	if (on && !S.sampling) {
		if (S.action_count == 0)
			return fail_errno(ECANCELED);
		S.samples_started++;
		memmove(S.filter_pids + 1, S.filter_pids, sizeof(S.filter_pids) - sizeof(S.filter_pids[0]));
		S.filter_pids[0] = S.filter_pid;
		S.sampling = 1;
		/* R3: the power manager's late acknowledgement of an earlier release (kpc_pm_acknowledge) un-forces. */
		if (env_long("LAUKA_STANDIN_PM_RELEASE_AT", 0) == S.samples_started)
			S.force_owner = 0;
		ticker_start();
	} else if (!on) {
		S.sampling = 0;
		*join = ticker_stop();
	}
	return 0;
}

int kperf_sample_set(uint32_t on)
{
	bool join = false;
	pthread_mutex_lock(&M);
	load();
	int r = sample_set(on, &join);
	save();
	int e = errno;
	pthread_mutex_unlock(&M);
	ticker_join(join);
	errno = e;
	return r;
}

static int sample_get(uint32_t *on)
{
	int e = injected("kperf_sample_get");
	if (e)
		return fail_errno(e);
	*on = (uint32_t)S.sampling;
	return 0;
}

int kperf_sample_get(uint32_t *on)
{
	LOCKED(int, sample_get(on));
}

/*
 * kperf.c kperf_reset(): sampling off, timers (kptimer_reset: periods,
 * actions, the PET timer), PET (kppet_reset: lightweight off) and actions
 * (kperf_action_reset: samplers 0, pid filter -1); not kdebug.  The action
 * and timer counts are kept: kperf_action_reset() loops over actionc and
 * never sets it back (action.c), so a count another client set stays until
 * reboot (audit 3, N1).
 */
static int reset(bool *join)
{
	int e = enter_kperf("kperf_reset");
	if (e)
		return fail_errno(e);
	S.sampling = 0;
	*join = ticker_stop();
	S.samplers = S.timer_action = 0;
	S.pet_timer = TIMER_NONE;
	S.timer_period = 0;
	S.filter_pid = -1;
	S.lightweight_pet = 0;
	S.kperf_resets++;
	ktrace_reset(MASK_KPERF);
	return 0;
}

int kperf_reset(void)
{
	bool join = false;
	pthread_mutex_lock(&M);
	load();
	int r = reset(&join);
	save();
	int e = errno;
	pthread_mutex_unlock(&M);
	ticker_join(join);
	errno = e;
	return r;
}

uint64_t kperf_ns_to_ticks(uint64_t ns)
{
	return ns;
}

void lauka_standin_state(struct standin_state *out)
{
	pthread_mutex_lock(&M);
	load();
	*out = S;
	out->force_all = forced();
	out->ticks = T.ticks;
	out->samples = T.samples;
	out->records = T.records;
	out->lost = T.lost;
	pthread_mutex_unlock(&M);
}

/* -------------------------------------------------------- kperfdata.framework */

struct kpep_event {
	const char *name;
	uint32_t mask;
	uint16_t number;
	int fixed;		/* fixed counter index or -1 */
};

struct kpep_db {
	int unused;
};

struct kpep_config {
	struct kpep_db *db;
	int forced;
	const struct kpep_event *ev[16];
	size_t counter[16];
	size_t n;
	uint32_t used;		/* counters taken */
};

typedef struct kpep_db kpep_db;
typedef struct kpep_config kpep_config;
typedef struct kpep_event kpep_event;

/* A slice of the A14/M1 database (reference/kpep.md sections 3.2 and 5). */
static struct kpep_event events[] = {
	{ "FIXED_CYCLES", 0x1, 0, 0 },
	{ "FIXED_INSTRUCTIONS", 0x2, 0, 1 },
	{ "INST_ALL", 0x80, 0x8c, -1 },
	{ "RETIRE_UOP", 0x80, 0x1, -1 },
	{ "INST_BRANCH", 0xe0, 0x8d, -1 },
	{ "BRANCH_MISPRED_NONSPEC", 0xe0, 0xcb, -1 },
	{ "L1D_CACHE_MISS_LD_NONSPEC", 0xe0, 0xbf, -1 },
	{ "L1D_TLB_MISS_NONSPEC", 0xe0, 0xc1, -1 },
	{ "CORE_ACTIVE_CYCLE", 0x3fc, 0x2, -1 },
	{ "L1D_CACHE_MISS_LD", 0x3fc, 0xa3, -1 },
	{ "L1I_CACHE_MISS_DEMAND", 0x3fc, 0xdb, -1 },
	{ "MAP_STALL", 0x3fc, 0x76, -1 },
	{ "ZERO_MASK_EVENT", 0x0, 0x77, -1 },
};
#define CONFIG_COUNTERS 0x3fcu
#define POWER_COUNTERS 0xe0u

int kpep_db_create(const char *name, kpep_db **db);
void kpep_db_free(kpep_db *db);
int kpep_db_event(kpep_db *db, const char *name, kpep_event **ev);
int kpep_config_create(kpep_db *db, kpep_config **cfg);
void kpep_config_free(kpep_config *cfg);
int kpep_config_force_counters(kpep_config *cfg);
int kpep_config_add_event(kpep_config *cfg, kpep_event **ev, uint32_t flag, uint32_t *err);
int kpep_config_kpc_classes(kpep_config *cfg, uint32_t *classes);
int kpep_config_kpc_count(kpep_config *cfg, size_t *count);
int kpep_config_kpc(kpep_config *cfg, uint64_t *buf, size_t bytes);
int kpep_config_kpc_map(kpep_config *cfg, size_t *buf, size_t bytes);

static int kpep_fail(const char *name)
{
	int code = injected(name);
	if (code == 15)
		errno = (int)env_long("LAUKA_STANDIN_ERRNO", EIO);
	return code;
}

int kpep_db_create(const char *name, kpep_db **db)
{
	int e = kpep_fail("kpep_db_create");
	if (e)
		return e;
	if (!db)
		return 1;
	if (name && strcmp(name, "a14"))
		return 7;
	*db = calloc(1, sizeof(**db));
	return *db ? 0 : 2;
}

void kpep_db_free(kpep_db *db)
{
	free(db);
}

int kpep_db_event(kpep_db *db, const char *name, kpep_event **ev)
{
	int e = kpep_fail("kpep_db_event");
	if (e)
		return e;
	if (!db || !name || !ev)
		return 1;
	if (!strcmp(name, "Cycles"))
		name = "FIXED_CYCLES";
	else if (!strcmp(name, "Instructions"))
		name = "FIXED_INSTRUCTIONS";
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (!strcmp(events[i].name, name)) {
			*ev = &events[i];
			return 0;
		}
	return 11;
}

int kpep_config_create(kpep_db *db, kpep_config **cfg)
{
	int e = kpep_fail("kpep_config_create");
	if (e)
		return e;
	if (!db || !cfg)
		return 1;
	*cfg = calloc(1, sizeof(**cfg));
	if (!*cfg)
		return 2;
	(*cfg)->db = db;
	return 0;
}

void kpep_config_free(kpep_config *cfg)
{
	free(cfg);
}

int kpep_config_force_counters(kpep_config *cfg)
{
	int e = kpep_fail("kpep_config_force_counters");
	if (e)
		return e;
	if (cfg->forced)
		return 1;
	cfg->forced = 1;
	return 0;
}

/* First fit from the lowest bit of the mask, in add order ([RE] add_config_event_internal). */
int kpep_config_add_event(kpep_config *cfg, kpep_event **evp, uint32_t flag, uint32_t *err)
{
	(void)flag;
	int e = kpep_fail("kpep_config_add_event");
	if (e)
		return e;
	if (!cfg || !evp || !*evp)
		return 1;
	const kpep_event *ev = *evp;
	if (cfg->n >= 16)
		return 12;
	if (ev->fixed >= 0) {
		if (!cfg->forced)
			return 13;
		if (cfg->used & (1u << ev->fixed))
			return 12;
		cfg->used |= 1u << ev->fixed;
		cfg->counter[cfg->n] = (size_t)ev->fixed;
		cfg->ev[cfg->n++] = ev;
		return 0;
	}
	if (ev->mask == 0)
		return 16;
	if (!cfg->forced && !(ev->mask & ~POWER_COUNTERS))
		return 13;
	uint32_t allowed = ev->mask & CONFIG_COUNTERS & (cfg->forced ? ~0u : ~POWER_COUNTERS);
	for (unsigned c = 0; c < 32; c++) {
		if ((allowed >> c & 1) && !(cfg->used >> c & 1)) {
			cfg->used |= 1u << c;
			cfg->counter[cfg->n] = c;
			cfg->ev[cfg->n++] = ev;
			return 0;
		}
	}
	if (err) {
		*err = 0;
		for (size_t i = 0; i < cfg->n; i++)
			if (ev->mask >> cfg->counter[i] & 1)
				*err |= 1u << i;
	}
	return 12;
}

int kpep_config_kpc_classes(kpep_config *cfg, uint32_t *classes)
{
	int e = kpep_fail("kpep_config_kpc_classes");
	if (e)
		return e;
	*classes = 0;
	for (size_t i = 0; i < cfg->n; i++)
		*classes |= cfg->ev[i]->fixed >= 0 ? 1u : 2u;
	return 0;
}

int kpep_config_kpc_count(kpep_config *cfg, size_t *count)
{
	int e = kpep_fail("kpep_config_kpc_count");
	if (e)
		return e;
	uint32_t classes;
	kpep_config_kpc_classes(cfg, &classes);
	*count = classes & 2 ? 8 : 0;
	return 0;
}

int kpep_config_kpc(kpep_config *cfg, uint64_t *buf, size_t bytes)
{
	int e = kpep_fail("kpep_config_kpc");
	if (e)
		return e;
	size_t count;
	kpep_config_kpc_count(cfg, &count);
	if (bytes < count * sizeof(uint64_t))
		return 4;
	memset(buf, 0, count * sizeof(uint64_t));
	for (size_t i = 0; i < cfg->n; i++)
		if (cfg->ev[i]->fixed < 0)
			buf[cfg->counter[i] - 2] = cfg->ev[i]->number;
	return 0;
}

int kpep_config_kpc_map(kpep_config *cfg, size_t *buf, size_t bytes)
{
	int e = kpep_fail("kpep_config_kpc_map");
	if (e)
		return e;
	if (bytes < cfg->n * sizeof(size_t))
		return 4;
	for (size_t i = 0; i < cfg->n; i++)
		buf[i] = cfg->counter[i];
	return 0;
}

/* ------------------------------------------------------------ the Darwin seam */

static int seam_fail(const char *name)
{
	int e = injected(name);
	return e ? -e : 0;
}

/*
 * The read-only integers `lauka doctor --macos` prints.  kern_ktrace.c: the
 * ktrace.* reads are public and first drop a dead owner
 * (ktrace_ownership_maintenance); kperfbsd.c / kern_kpc.c: the kperf.* and
 * kpc.* reads need root (ktrace_read_check), and kpc.* are EBUSY while the
 * CPMU is acquired (A4).
 */
static int sysctl_read_only(const char *name, const int *set, int *get)
{
	int v;
	if (!strncmp(name, "ktrace.", 7)) {
		if (S.owner && !alive(S.owner))
			S.owner = 0, S.owner_mask = 0;
		if (!strcmp(name, "ktrace.state"))
			v = S.owner ? 1 : alive(S.bg_pid) ? 2 : 0;
		else if (!strcmp(name, "ktrace.owning_pid"))
			v = S.owner;
		else if (!strcmp(name, "ktrace.background_pid"))
			v = alive(S.bg_pid) ? S.bg_pid : 0;
		else
			return -ENOENT;
	} else if (!strncmp(name, "kperf.", 6)) {
		if (standin_euid() != 0)
			return -EPERM;
		if (!strcmp(name, "kperf.sampling"))
			v = S.sampling;
		else if (!strcmp(name, "kperf.action.count"))
			v = (int)S.action_count;
		else
			return -ENOENT;
	} else if (!strncmp(name, "kpc.", 4)) {
		if (standin_euid() != 0)
			return -EPERM;
		if (env_is("LAUKA_STANDIN_CPMU", "1"))
			return -EBUSY;
		if (!strcmp(name, "kpc.counting"))
			v = (int)S.counting;
		else if (!strcmp(name, "kpc.thread_counting"))
			v = (int)S.thread_counting;
		else if (!strcmp(name, "kpc.force_all_ctrs"))
			v = forced();
		else
			return -ENOENT;
	} else {
		return -ENOENT;
	}
	if (set)
		return -EPERM;
	if (get)
		*get = v;
	return 0;
}

static int sysctl_int(const char *name, const int *set, int *get)
{
	int e = seam_fail("sysctl_int");
	if (e)
		return e;
	if (!strcmp(name, "sysctl.proc_translated")) {
		if (set)
			return -EPERM;
		if (get)
			*get = env_is("LAUKA_STANDIN_TRANSLATED", "1");
		return 0;
	}
	if (!strcmp(name, "kperf.lightweight_pet")) {
		if (standin_euid() != 0)
			return -EPERM;	/* kperfbsd.c: reads too need ktrace_read_check */
		if (get)
			*get = S.lightweight_pet;
		if (set) {
			if ((e = ktrace_configure(MASK_KPERF)))
				return -e;
			if (S.sampling)
				return -EBUSY;	/* pet.c kppet_set_lightweight_pet */
			S.lightweight_pet = *set && !tamper("lightweight_pet") ? 1 : 0;
		}
		return 0;
	}
	return sysctl_read_only(name, set, get);
}

static int standin_sysctl_int(const char *name, const int *set, int *get)
{
	LOCKED(int, sysctl_int(name, set, get));
}

static int sysctl_str(const char *name, char *buf, size_t len)
{
	int e = seam_fail("sysctl_str");
	if (e)
		return e;
	if (!len)
		return -EINVAL;
	if (!strcmp(name, "kern.osrelease"))
		snprintf(buf, len, "%s", osrelease());
	else if (!strcmp(name, "ktrace.configured_by"))
		snprintf(buf, len, "%s", S.configured_by);
	else
		return -ENOENT;
	return 0;
}

static int standin_sysctl_str(const char *name, char *buf, size_t len)
{
	LOCKED(int, sysctl_str(name, buf, len));
}

static void kd_sleep(void)
{
	/* kdbg_clear() / kdbg_reinit(): IOSleep(100); the lock is not held, as the kernel's is not. */
	pthread_mutex_unlock(&M);
	struct timespec ts = { 0, STANDIN_KD_SLEEP_MS * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&M);
	load();
}

static void kd_free(void)
{
	free(T.ring);
	T.ring = NULL;
	T.cap = T.head = T.n = 0;
	T.lost_pending = false;
}

static int kdebug(int op, int arg, void *buf, size_t *len)
{
	char name[32];
	snprintf(name, sizeof(name), "kdebug_%d", op);
	int e = seam_fail(name);
	if (!e)
		e = seam_fail("kdebug");
	if (e)
		return e;
	if ((e = ktrace_configure(MASK_KDEBUG)))	/* READTR too (kdebug.c _kd_sysctl_internal) */
		return -e;
	switch (op) {
	case KPERF_KD_REMOVE:
		S.kd_removes++;
		kd_sleep();
		S.kd_nbufs = S.kd_setup = S.kd_enabled = 0;
		S.kd_filter = 0;
		S.kd_flags = 0;	/* kdbg_clear: typefilter and PIDCHECK/PIDEXCLUDE off */
		kd_free();
		ktrace_reset(MASK_KDEBUG);
		break;
	case KPERF_KD_SETBUF:
		S.kd_nbufs = arg;
		break;
	case KPERF_KD_SETUP: {
		if (S.kd_nbufs <= 0)
			return -EINVAL;
		S.kd_setups++;
		kd_sleep();	/* kdbg_reinit: new buffers, the filters and flags untouched */
		kd_free();
		long cap = env_long("LAUKA_STANDIN_KDBUF_MAX", 1L << 20);
		T.cap = (size_t)(S.kd_nbufs < cap ? S.kd_nbufs : cap);
		T.ring = calloc(T.cap, sizeof(*T.ring));
		S.kd_setup = 1;
		break;
	}
	case KPERF_KD_SETREG: {
		if (!S.kd_setup || !buf || !len || *len < sizeof(struct kperf_kdreg))
			return -EINVAL;
		const struct kperf_kdreg *reg = buf;
		S.kd_filter = reg->type == KPERF_KDBG_VALCHECK ? reg->value1 : 0;
		break;
	}
	case KPERF_KD_ENABLE:
		if (arg && !S.kd_setup)
			return -EINVAL;
		S.kd_enabled = arg ? 1 : 0;
		break;
	case KPERF_KD_READTR: {
		if (!S.kd_setup || !buf || !len)
			return -EINVAL;
		size_t cap = *len / sizeof(struct kperf_kdbuf), n = 0;
		struct kperf_kdbuf *out = buf;
		S.reads++;
		if (T.lost_pending && cap) {	/* kdebug_common.c: the read that follows a wrap says so */
			memset(&out[0], 0, sizeof(out[0]));
			out[0].debugid = TRACE_LOST_EVENTS;
			out[0].timestamp = now_ns();
			n = 1;
			T.lost_pending = false;
		}
		while (n < cap && T.n) {
			out[n++] = T.ring[T.head];
			T.head = (T.head + 1) % T.cap;
			T.n--;
		}
		*len = n;
		break;
	}
	default:
		return -EINVAL;
	}
	return 0;
}

static int standin_kdebug(int op, int arg, void *buf, size_t *len)
{
	LOCKED(int, kdebug(op, arg, buf, len));
}

/* proc_pid_rusage: the process's own CPU clock (all its threads, none of its children); a zombie works. */
static int standin_rusage(int pid, struct kperf_rusage *out)
{
	int e = seam_fail("rusage");
	if (e)
		return e;
	pthread_mutex_lock(&M);
	load();
	S.rusage_pid = pid;
	save();
	pthread_mutex_unlock(&M);
#ifdef __linux__
	clockid_t clk;
	struct timespec ts;
	if ((e = clock_getcpuclockid(pid, &clk)) != 0)
		return -e;
	if (clock_gettime(clk, &ts) < 0)
		return -errno;
	uint64_t t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	out->instructions = STANDIN_INSTR_PER_NS * t;
	out->cycles = STANDIN_CYCLES_PER_NS * t;
	const char *ps = getenv("LAUKA_STANDIN_PSHARE");
	double share = ps && *ps ? strtod(ps, NULL) : 1.0;
	out->pinstructions = (uint64_t)((double)out->instructions * share + 0.5);
	out->has_p = true;
	return 0;
#else
	(void)out;
	return -ENOSYS;
#endif
}

static int standin_cpu_ids(uint32_t *type, uint32_t *subtype, uint32_t *family)
{
	int e = seam_fail("cpu_ids");
	if (e)
		return e;
	const char *v = getenv("LAUKA_STANDIN_CPU");
	unsigned a = 0x100000c, b = 2, c = 0x1b588bb3;
	if (v && sscanf(v, "%x,%x,%x", &a, &b, &c) != 3)
		return -EINVAL;
	*type = a;
	*subtype = b;
	*family = c;
	return 0;
}

extern const struct kperf_sys lauka_kperf_sys;
const struct kperf_sys lauka_kperf_sys = {
	.version = KPERF_SYS_VERSION,
	.sysctl_int = standin_sysctl_int,
	.kdebug = standin_kdebug,
	.rusage = standin_rusage,
	.cpu_ids = standin_cpu_ids,
	.euid = standin_euid,
	.sysctl_str = standin_sysctl_str,
};
