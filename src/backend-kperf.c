/*
 * backend-kperf.c: hardware counters of the measured command on macOS via
 * kperf/kperfdata (root).  Facts from reference/kpep.md sections 3-4.
 *
 * Why sampling: kpc_get_thread_counters() only reads the calling thread, so
 * a parent cannot read its child's counters through kpc (4.9).  Instead kpc
 * thread counting is switched on before the child is forked (every new
 * thread then accumulates its own counts), and kperf lightweight PET,
 * filtered on the child's pid (set while the child waits on the runner's
 * gate), logs each child thread's counters into the kdebug buffer whenever
 * the thread is switched on-core.  A reader thread drains the buffer during
 * the run; kperf-agg.c turns the records into per-thread deltas.
 *
 * Scope check: the sampled FIXED_INSTRUCTIONS total is compared with the
 * instructions proc_pid_rusage reports for the zombie child.  Fixed cycles
 * and instructions are reported exactly from proc_pid_rusage; every other
 * event is scaled by rusage / sampled instructions and marked scaled with
 * the coverage, as perf marks multiplexed counts.
 *
 * Clean state: the kernel keeps kperf/kpc state after a process dies, and
 * state left running makes the next run's kperf_timer_action_set /
 * kperf.lightweight_pet fail with EBUSY (the SetTimer / SetLightweightPet
 * errors of the seed README, 4.10).  So open() resets everything before it
 * configures anything (repairing what a killed run left; EBUSY there means
 * another live process owns ktrace), each run configures counts, timers and
 * PET before sampling is switched on, every return value is checked, and
 * every exit path (normal, error, SIGINT/SIGTERM via the runner, a crashed
 * child, exit() through atexit) releases sampling, kdebug, kperf and the
 * forced counters.
 *
 * NOT VERIFIED ON APPLE HARDWARE: no Mac was available.  The call
 * sequence, argument order and record layout follow the reference (ibireme's
 * reverse engineering, scoop, xnu sources); the code compiles for
 * aarch64-macos and x86_64-macos and its logic runs on Linux against the
 * stand-in library.  Unconfirmed in particular: whether kpc_* / kperf_*
 * return -1 with errno or an errno value (both are handled), that
 * PERF_KPC_DATA_THREAD samples start at the counter index 0 and carry
 * kpc_get_counter_count(classes) values, that proc_pid_rusage instructions
 * count the same privilege modes as kpc with flag 0, and the behaviour on
 * Intel Macs.
 */
#include "backend-kperf.h"
#include "error.h"
#include "kpep.h"
#include "kperf-agg.h"
#include "util.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __APPLE__
#include <libproc.h>
#include <sys/resource.h>
#include <sys/sysctl.h>
#include <sys/types.h>
_Static_assert(KPERF_KD_ENABLE == KERN_KDENABLE && KPERF_KD_SETBUF == KERN_KDSETBUF &&
	       KPERF_KD_SETUP == KERN_KDSETUP && KPERF_KD_REMOVE == KERN_KDREMOVE &&
	       KPERF_KD_SETREG == KERN_KDSETREG && KPERF_KD_READTR == KERN_KDREADTR,
	       "kdebug sysctl numbers");
#endif

#define KPERF_FRAMEWORK "/System/Library/PrivateFrameworks/kperf.framework/kperf"
#define KPERFDATA_FRAMEWORK "/System/Library/PrivateFrameworks/kperfdata.framework/kperfdata"

#define KPC_CLASS_CONFIGURABLE_MASK 2u
#define KPERF_SAMPLER_PMC_THREAD (1u << 4)
#define KPERF_ACTION_MAX 32u
#define KPERF_TIMER_MAX 8u
#define KPERF_ACTION_ID 1u
#define KPERF_TIMER_ID 1u
#define SAMPLE_PERIOD_NS 1000000u		/* PET period; a thread is sampled at most once per period */
#define KDEBUG_RECORDS 262144			/* kernel trace buffer (64 bytes each) */
#define READ_CHUNK 65536			/* records per KERN_KDREADTR */
#define READ_INTERVAL_NS 10000000L		/* reader thread wake-up */

typedef struct kpep_db kpep_db;
typedef struct kpep_config kpep_config;
typedef struct kpep_event kpep_event;

/* The framework functions lauka uses (signatures: reference/kpep.md 4.3-4.5). */
struct kperf_fns {
	int (*kpc_force_all_ctrs_get)(int *);
	int (*kpc_force_all_ctrs_set)(int);
	uint32_t (*kpc_get_counting)(void);
	int (*kpc_set_counting)(uint32_t);
	int (*kpc_set_thread_counting)(uint32_t);
	uint32_t (*kpc_get_counter_count)(uint32_t);
	int (*kpc_set_config)(uint32_t, uint64_t *);
	int (*kperf_action_count_set)(uint32_t);
	int (*kperf_action_samplers_set)(uint32_t, uint32_t);
	int (*kperf_action_filter_set_by_pid)(uint32_t, int32_t);
	int (*kperf_timer_count_set)(uint32_t);
	int (*kperf_timer_period_set)(uint32_t, uint64_t);
	int (*kperf_timer_action_set)(uint32_t, uint32_t);
	int (*kperf_timer_pet_set)(uint32_t);
	int (*kperf_sample_set)(uint32_t);
	int (*kperf_sample_get)(uint32_t *);
	int (*kperf_reset)(void);
	uint64_t (*kperf_ns_to_ticks)(uint64_t);
	int (*kpep_db_create)(const char *, kpep_db **);
	void (*kpep_db_free)(kpep_db *);
	int (*kpep_db_event)(kpep_db *, const char *, kpep_event **);
	int (*kpep_config_create)(kpep_db *, kpep_config **);
	void (*kpep_config_free)(kpep_config *);
	int (*kpep_config_force_counters)(kpep_config *);
	int (*kpep_config_add_event)(kpep_config *, kpep_event **, uint32_t, uint32_t *);
	int (*kpep_config_kpc_classes)(kpep_config *, uint32_t *);
	int (*kpep_config_kpc_count)(kpep_config *, size_t *);
	int (*kpep_config_kpc)(kpep_config *, uint64_t *, size_t);
	int (*kpep_config_kpc_map)(kpep_config *, size_t *, size_t);
};

static struct {
	bool sys_tried, fns_tried;
	int sys_err, fns_err;
	char sys_why[256], fns_why[256];
	void *kperf, *kperfdata;
	const struct kperf_sys *sys;
	struct kperf_fns f;
} L;

/* ---- the native seam: real Darwin system calls ---- */
#ifdef __APPLE__
static int native_sysctl_int(const char *name, const int *set, int *get)
{
	size_t sz = sizeof(int);
	if (sysctlbyname(name, get, get ? &sz : NULL, (void *)set, set ? sizeof(int) : 0) < 0)
		return -errno;
	return 0;
}

static int native_kdebug(int op, int arg, void *buf, size_t *len)
{
	int mib[4] = { CTL_KERN, KERN_KDEBUG, op, arg };
	u_int n = (op == KERN_KDSETBUF || op == KERN_KDENABLE) ? 4 : 3;
	size_t zero = 0;
	if (sysctl(mib, n, buf, len ? len : &zero, NULL, 0) < 0)
		return -errno;
	return 0;
}

static int native_rusage(int pid, struct kperf_rusage *out)
{
	struct rusage_info_v4 ri;
	memset(&ri, 0, sizeof(ri));
	if (proc_pid_rusage(pid, RUSAGE_INFO_V4, (rusage_info_t *)&ri) < 0)
		return -errno;
	out->instructions = ri.ri_instructions;
	out->cycles = ri.ri_cycles;
	return 0;
}

static int native_cpu_ids(uint32_t *type, uint32_t *subtype, uint32_t *family)
{
	const char *names[3] = { "hw.cputype", "hw.cpusubtype", "hw.cpufamily" };
	uint32_t *out[3] = { type, subtype, family };
	for (int i = 0; i < 3; i++) {
		uint32_t v = 0;
		size_t sz = sizeof(v);
		if (sysctlbyname(names[i], &v, &sz, NULL, 0) < 0)
			return -errno;
		*out[i] = v;
	}
	return 0;
}

static unsigned native_euid(void)
{
	return (unsigned)geteuid();
}

static const struct kperf_sys native_sys = {
	.version = KPERF_SYS_VERSION,
	.sysctl_int = native_sysctl_int,
	.kdebug = native_kdebug,
	.rusage = native_rusage,
	.cpu_ids = native_cpu_ids,
	.euid = native_euid,
};
#endif

/* ---- loading ---- */

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);
	return v && *v ? v : dflt;
}

static atomic_bool emergency_armed;

void kperf_lib_unload(void)
{
	atomic_store(&emergency_armed, false);
	if (L.kperfdata)
		dlclose(L.kperfdata);
	if (L.kperf)
		dlclose(L.kperf);
	memset(&L, 0, sizeof(L));
}

/* The seam: the one exported by the kperf library (the stand-in), else the native one. */
static int load_sys(char *why, size_t len)
{
	if (!L.sys_tried) {
		L.sys_tried = true;
		const char *path = env_or("LAUKA_KPERF_PATH", KPERF_FRAMEWORK);
		L.kperf = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (L.kperf) {
			const struct kperf_sys *s = (const struct kperf_sys *)dlsym(L.kperf, KPERF_SYS_SYMBOL);
			if (s && s->version == KPERF_SYS_VERSION)
				L.sys = s;
		}
#ifdef __APPLE__
		if (!L.sys)
			L.sys = &native_sys;
#endif
		if (!L.kperf) {
			const char *e = dlerror();
			lk_errbuf(L.sys_why, sizeof(L.sys_why), "cannot load '%s': %s", path, e ? e : "unknown error");
			L.sys_err = -LK_ENOTSUP;
		} else if (!L.sys) {
			lk_errbuf(L.sys_why, sizeof(L.sys_why), "kperf needs macOS ('%s' exports no %s)", path,
				  KPERF_SYS_SYMBOL);
			L.sys_err = -LK_ENOTSUP;
		}
	}
	if (L.sys_err)
		lk_errbuf(why, len, "%s", L.sys_why);
	return L.sys_err;
}

#define SYM(lib, name) do { \
	*(void **)&L.f.name = dlsym(lib, #name); \
	if (!L.f.name && !missing) missing = #name; \
} while (0)

static int load_fns(char *why, size_t len)
{
	int r = load_sys(why, len);
	if (r < 0)
		return r;
	if (!L.fns_tried) {
		L.fns_tried = true;
		const char *path = env_or("LAUKA_KPERFDATA_PATH", KPERFDATA_FRAMEWORK);
		L.kperfdata = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!L.kperfdata) {
			const char *e = dlerror();
			lk_errbuf(L.fns_why, sizeof(L.fns_why), "cannot load '%s': %s", path, e ? e : "unknown error");
			L.fns_err = -LK_ENOTSUP;
		} else {
			const char *missing = NULL;
			SYM(L.kperf, kpc_force_all_ctrs_get);
			SYM(L.kperf, kpc_force_all_ctrs_set);
			SYM(L.kperf, kpc_get_counting);
			SYM(L.kperf, kpc_set_counting);
			SYM(L.kperf, kpc_set_thread_counting);
			SYM(L.kperf, kpc_get_counter_count);
			SYM(L.kperf, kpc_set_config);
			SYM(L.kperf, kperf_action_count_set);
			SYM(L.kperf, kperf_action_samplers_set);
			SYM(L.kperf, kperf_action_filter_set_by_pid);
			SYM(L.kperf, kperf_timer_count_set);
			SYM(L.kperf, kperf_timer_period_set);
			SYM(L.kperf, kperf_timer_action_set);
			SYM(L.kperf, kperf_timer_pet_set);
			SYM(L.kperf, kperf_sample_set);
			SYM(L.kperf, kperf_sample_get);
			SYM(L.kperf, kperf_reset);
			SYM(L.kperf, kperf_ns_to_ticks);
			SYM(L.kperfdata, kpep_db_create);
			SYM(L.kperfdata, kpep_db_free);
			SYM(L.kperfdata, kpep_db_event);
			SYM(L.kperfdata, kpep_config_create);
			SYM(L.kperfdata, kpep_config_free);
			SYM(L.kperfdata, kpep_config_force_counters);
			SYM(L.kperfdata, kpep_config_add_event);
			SYM(L.kperfdata, kpep_config_kpc_classes);
			SYM(L.kperfdata, kpep_config_kpc_count);
			SYM(L.kperfdata, kpep_config_kpc);
			SYM(L.kperfdata, kpep_config_kpc_map);
			if (missing) {
				lk_errbuf(L.fns_why, sizeof(L.fns_why), "the kperf frameworks lack '%s' (macOS too old or too new?)",
					  missing);
				L.fns_err = -LK_ENOTSUP;
			}
		}
	}
	if (L.fns_err)
		lk_errbuf(why, len, "%s", L.fns_why);
	return L.fns_err;
}

/* ---- errors ---- */

int kperf_kpep_error(int code, int err_no, char *why, size_t len)
{
	static const struct {
		int err;
		const char *msg;
	} tab[16] = {
		{ LK_OK, "no error" },
		{ LK_EINVAL, "invalid argument" },
		{ LK_ENOMEM, "out of memory" },
		{ LK_EIO, "i/o error reading the kpep database" },
		{ LK_EINVAL, "buffer too small" },
		{ LK_ENOTSUP, "the current system is unknown to kperfdata" },
		{ LK_ENOENT, "the kpep database path is invalid" },
		{ LK_ENOENT, "no kpep database for this cpu" },
		{ LK_ENOTSUP, "the kpep database's architecture is not supported" },
		{ LK_ENOTSUP, "the kpep database's version is not supported" },
		{ LK_EPLIST, "the kpep database is corrupt" },
		{ LK_ENOENT, "event not found in kperfdata's database" },
		{ LK_ESCHED, "conflicting events: no free counter allowed by the event's mask" },
		{ LK_ESCHED, "all counters must be forced" },
		{ LK_ENOTSUP, "event unavailable (no fixed counter and no fallback)" },
		{ LK_EIO, NULL },
	};
	if (code < 0 || code > 15) {
		lk_errbuf(why, len, "unknown kpep error %d", code);
		return -LK_EINVAL;
	}
	if (code == 15)
		return kperf_errno_error("kperfdata", err_no, why, len);
	lk_errbuf(why, len, "%s", tab[code].msg);
	return -tab[code].err;
}

int kperf_errno_error(const char *call, int err_no, char *why, size_t len)
{
	switch (err_no) {
	case 0:
		lk_errbuf(why, len, "'%s' failed", call);
		return -LK_EIO;
	case EPERM:
	case EACCES:
		lk_errbuf(why, len, "'%s': permission denied; kperf needs root", call);
		return -LK_EPERM;
	case EBUSY:
		lk_errbuf(why, len, "'%s': kperf is busy: another process (Instruments, a profiler, "
			  "another lauka) owns ktrace", call);
		return -LK_EBUSY;
	case ENOMEM:
		lk_errbuf(why, len, "'%s': out of memory", call);
		return -LK_ENOMEM;
	default:
		lk_errbuf(why, len, "'%s': %s", call, strerror(err_no));
		return err_no == EINVAL ? -LK_EINVAL : err_no == ENOENT || err_no == ENOTSUP ? -LK_ENOTSUP : -LK_EIO;
	}
}

/*
 * kpc_* / kperf_* wrap sysctl; whether they return -1 with errno set or the
 * errno value itself is not documented, so both are read as the errno.
 */
static int call_errno(int r, int saved)
{
	if (r == 0)
		return 0;
	if (r > 0)
		return r;
	return saved ? saved : EIO;
}

static int kcall(int r, const char *name, char *why, size_t len)
{
	int e = call_errno(r, errno);
	return e ? kperf_errno_error(name, e, why, len) : 0;
}

/* errno is cleared first so a stale value is not blamed on the call. */
#define KCALL(expr, name, why, len) (errno = 0, kcall((expr), (name), (why), (len)))

/* ---- the clean-state sequence ---- */

/*
 * Stop sampling, reset kdebug and kperf, switch PET off, stop kpc counting
 * and release the forced counters.  Every step runs even when an earlier one
 * failed, except after EBUSY: then another live process owns ktrace and its
 * session must not be touched.  Returns the first failure (-LK_E*, reason
 * in why).
 */
static int release_all(char *why, size_t len)
{
	const struct kperf_fns *f = &L.f;
	char tmp[256];
	int first = 0, r;
	if (!L.fns_tried || L.fns_err || !L.sys) {
		lk_errbuf(why, len, "the kperf frameworks are not loaded");
		return -LK_ENOTSUP;
	}
	int off = 0;
	size_t zero = 0;
#define STEP(x) do { r = (x); if (r < 0 && !first) { first = r; lk_errbuf(why, len, "%s", tmp); } \
	if (r == -LK_EBUSY) return r; } while (0)
	STEP(KCALL(f->kperf_sample_set(0), "kperf_sample_set", tmp, sizeof(tmp)));
	errno = 0;
	r = L.sys->kdebug(KPERF_KD_ENABLE, 0, NULL, &zero);
	STEP(r < 0 ? kperf_errno_error("kdebug enable 0", -r, tmp, sizeof(tmp)) : 0);
	r = L.sys->kdebug(KPERF_KD_REMOVE, 0, NULL, &zero);
	STEP(r < 0 ? kperf_errno_error("kdebug remove", -r, tmp, sizeof(tmp)) : 0);
	STEP(KCALL(f->kperf_reset(), "kperf_reset", tmp, sizeof(tmp)));
	r = L.sys->sysctl_int("kperf.lightweight_pet", &off, NULL);
	STEP(r < 0 ? kperf_errno_error("kperf.lightweight_pet", -r, tmp, sizeof(tmp)) : 0);
	STEP(KCALL(f->kpc_set_counting(0), "kpc_set_counting", tmp, sizeof(tmp)));
	STEP(KCALL(f->kpc_set_thread_counting(0), "kpc_set_thread_counting", tmp, sizeof(tmp)));
	STEP(KCALL(f->kpc_force_all_ctrs_set(0), "kpc_force_all_ctrs_set", tmp, sizeof(tmp)));
#undef STEP
	return first;
}

/* exit() paths that skip close() (xmalloc dying, a stray exit) still release the counters. */
static void emergency_release(void)
{
	if (atomic_exchange(&emergency_armed, false)) {
		char why[256];
		release_all(why, sizeof(why));
	}
}

static void arm_emergency(void)
{
	static bool registered;
	if (!registered) {
		registered = true;
		atexit(emergency_release);
	}
	atomic_store(&emergency_armed, true);
}

/* ---- the backend ---- */

enum role { ROLE_SAMPLED, ROLE_INSTRUCTIONS, ROLE_CYCLES };

struct kperf_priv {
	struct lk_evsel *sel;
	size_t nsel;
	kpep_db *db;
	kpep_config *cfg;
	bool programmed;		/* kpc counters forced and counting: release on close */
	size_t *slot;			/* per sel: index into kpc[], or SIZE_MAX when not added */
	enum role *role;		/* per sel */
	size_t kpc[KPERF_MAX_COUNTERS];	/* per added event: its kpc counter index */
	size_t instr_idx;		/* kpc index of FIXED_INSTRUCTIONS */
	uint32_t classes;
	size_t ncounters;		/* values per thread sample */
	/* the current run */
	bool sampling;			/* attach() switched sampling on */
	bool have_run;			/* exited() collected a complete run */
	pid_t pid;
	struct kperf_agg agg;
	struct kperf_kdbuf *buf;
	pthread_t reader;
	bool reader_on;
	bool stop;			/* under mu: the reader thread must finish */
	pthread_mutex_t mu;
	pthread_cond_t wake;
	bool sync_init;
	int run_err;
	char run_why[256];
	struct kperf_rusage ru;
	uint64_t totals[KPERF_MAX_COUNTERS];
};

static int root_check(char *why, size_t len)
{
	if (L.sys->euid() != 0) {
		lk_errbuf(why, len, "kpc counters and kperf sampling are root-only on macOS");
		return -LK_EPERM;
	}
	int v = 0;
	errno = 0;
	int r = L.f.kpc_force_all_ctrs_get(&v);
	int e = call_errno(r, errno);
	if (e)
		return kperf_errno_error("kpc_force_all_ctrs_get", e, why, len);
	return 0;
}

static int kperf_detect(char *why, size_t len)
{
	int r = load_fns(why, len);
	if (r < 0)
		return r;
	return root_check(why, len);
}

int kperf_find_plist(const char *const *dirs, size_t ndirs, uint32_t type, uint32_t subtype,
		     uint32_t family, char *out, size_t len)
{
	char name[64];
	snprintf(name, sizeof(name), "cpu_%x_%x_%x.plist", (unsigned)type, (unsigned)subtype, (unsigned)family);
	for (size_t i = 0; i < ndirs; i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		char *path = xasprintf("%s/%s", dirs[i], name);
		char resolved[PATH_MAX];
		char *ok = realpath(path, resolved);
		free(path);
		if (ok && access(resolved, R_OK) == 0) {
			if (strlen(resolved) >= len)
				continue;
			memcpy(out, resolved, strlen(resolved) + 1);
			return 0;
		}
	}
	lk_errbuf(out, len, "%s", name);
	return -LK_ENOENT;
}

static int kperf_catalog(struct lk_pmu *out, char *err, size_t len)
{
	int r = load_sys(err, len);
	if (r < 0)
		return r;
	uint32_t type, subtype, family;
	if ((r = L.sys->cpu_ids(&type, &subtype, &family)) < 0) {
		lk_errbuf(err, len, "cannot read hw.cputype/cpusubtype/cpufamily: %s", strerror(-r));
		return -LK_ENOTSUP;
	}
	const char *dirs[] = { getenv("KPEP_DB_PATH"), "/usr/local/share/kpep", "/usr/share/kpep" };
	char path[PATH_MAX];
	if (kperf_find_plist(dirs, ARRAY_SIZE(dirs), type, subtype, family, path, sizeof(path)) < 0) {
		lk_errbuf(err, len, "no kpep database '%s' for this cpu in $KPEP_DB_PATH, /usr/local/share/kpep "
			  "or /usr/share/kpep", path);
		return -LK_ENOENT;
	}
	return kpep_parse_file(path, out, err, len);
}

static kpep_event *db_event(struct kperf_priv *p, const char *const *names)
{
	for (; *names; names++) {
		kpep_event *ev = NULL;
		if (L.f.kpep_db_event(p->db, *names, &ev) == 0 && ev)
			return ev;
	}
	return NULL;
}

static void free_config(struct kperf_priv *p)
{
	if (p->cfg)
		L.f.kpep_config_free(p->cfg);
	if (p->db)
		L.f.kpep_db_free(p->db);
	p->cfg = NULL;
	p->db = NULL;
}

static void kperf_close(void *priv);

/*
 * Build the kpep_config from the selection: the two fixed events first
 * (always: the scope check needs FIXED_INSTRUCTIONS, and a config with a
 * fixed class makes the kpc_map indices line up with thread samples, 4.5),
 * then the selected events in an order that realises lauka's assignment.
 */
static int build_config(struct kperf_priv *p, char *err, size_t len)
{
	const struct kperf_fns *f = &L.f;
	int r = f->kpep_db_create(NULL, &p->db);
	if (r)
		return kperf_kpep_error(r, errno, err, len);
	if ((r = f->kpep_config_create(p->db, &p->cfg)))
		return kperf_kpep_error(r, errno, err, len);
	if ((r = f->kpep_config_force_counters(p->cfg)) && r != 1)	/* 1: already forced */
		return kperf_kpep_error(r, errno, err, len);

	/* Candidate list: fixed cycles, fixed instructions, then the selection. */
	static const char *const cyc_names[] = { "Cycles", "FIXED_CYCLES", "CPU_CLK_UNHALTED.THREAD", NULL };
	static const char *const ins_names[] = { "Instructions", "FIXED_INSTRUCTIONS", "INST_RETIRED.ANY", NULL };
	size_t cap = p->nsel + 2;
	kpep_event **evs = xcalloc(cap, sizeof(*evs));
	uint64_t *mask = xcalloc(cap, sizeof(*mask));
	bool *fixed = xcalloc(cap, sizeof(*fixed));
	int *ctr = xcalloc(cap, sizeof(*ctr));
	bool *placed = xcalloc(cap, sizeof(*placed));
	size_t *order = xcalloc(cap, sizeof(*order));
	size_t *cand_of = xcalloc(p->nsel ? p->nsel : 1, sizeof(*cand_of));
	size_t n = 0;
	int ret = 0;

	evs[0] = db_event(p, cyc_names);
	evs[1] = db_event(p, ins_names);
	if (!evs[0] || !evs[1]) {
		lk_errbuf(err, len, "kperfdata's database has no fixed cycles/instructions events");
		ret = -LK_ENOTSUP;
		goto out;
	}
	for (n = 0; n < 2; n++) {
		fixed[n] = true;
		ctr[n] = -1;
	}
	bool all_assigned = true;
	/* Explicit events before defaults, so a set that does not fit drops defaults first. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < p->nsel; i++) {
			struct lk_evsel *s = &p->sel[i];
			if (s->explicit != (pass == 0))
				continue;
			const char *names[] = { s->ev->name, NULL };
			kpep_event *ev = db_event(p, names);
			if (!ev) {
				s->err = -LK_ENOENT;
				lk_errbuf(s->why, sizeof(s->why), "'%s' is not in kperfdata's database for this cpu",
					  s->ev->name);
				cand_of[i] = SIZE_MAX;
				continue;
			}
			size_t k;
			for (k = 0; k < n && evs[k] != ev; k++)
				;
			cand_of[i] = k;
			if (k < n)
				continue;	/* the same event twice (e.g. fixed_instructions) */
			evs[n] = ev;
			fixed[n] = s->ev->fixed_counter >= 0;
			mask[n] = s->ev->counters_mask;
			ctr[n] = s->counter;
			all_assigned &= fixed[n] || s->counter >= 0;
			n++;
		}
	}
	if (!all_assigned)
		for (size_t k = 0; k < n; k++)
			ctr[k] = -1;
	kperf_agg_order(mask, fixed, ctr, n, order, placed);

	/* Add in that order; remember each candidate's position in the config. */
	size_t *pos = xcalloc(n ? n : 1, sizeof(*pos));
	for (size_t k = 0; k < n; k++)
		pos[k] = SIZE_MAX;
	size_t added = 0;
	for (size_t j = 0; j < n; j++) {
		size_t k = order[j];
		if (!placed[k])
			continue;
		uint32_t conflict = 0;
		kpep_event *ev = evs[k];
		r = f->kpep_config_add_event(p->cfg, &ev, 0, &conflict);
		if (r == 0) {
			pos[k] = added++;
			continue;
		}
		if (k < 2) {	/* the fixed events are not optional */
			ret = kperf_kpep_error(r, errno, err, len);
			free(pos);
			goto out;
		}
		for (size_t i = 0; i < p->nsel; i++) {
			if (cand_of[i] != k)
				continue;
			p->sel[i].err = kperf_kpep_error(r, errno, p->sel[i].why, sizeof(p->sel[i].why));
		}
	}
	for (size_t i = 0; i < p->nsel; i++) {
		if (cand_of[i] == SIZE_MAX || p->sel[i].err)
			continue;
		if (!placed[cand_of[i]]) {
			p->sel[i].err = -LK_ESCHED;
			lk_errbuf(p->sel[i].why, sizeof(p->sel[i].why),
				  "no counter left for it: its counters are all taken by the other events");
		}
	}

	/* Where each event landed: kpc_map (absolute counter indices) in add order. */
	size_t map[KPERF_MAX_COUNTERS];
	if (added > KPERF_MAX_COUNTERS) {
		lk_errbuf(err, len, "too many events for kpc (%zu)", added);
		ret = -LK_ESCHED;
		free(pos);
		goto out;
	}
	if ((r = f->kpep_config_kpc_classes(p->cfg, &p->classes)) ||
	    (r = f->kpep_config_kpc_map(p->cfg, map, sizeof(map)))) {
		ret = kperf_kpep_error(r, errno, err, len);
		free(pos);
		goto out;
	}
	p->ncounters = L.f.kpc_get_counter_count(p->classes);
	if (p->ncounters == 0 || p->ncounters > KPERF_MAX_COUNTERS) {
		lk_errbuf(err, len, "kpc reports %zu counters for classes 0x%x", p->ncounters, (unsigned)p->classes);
		ret = -LK_ENOTSUP;
		free(pos);
		goto out;
	}
	for (size_t a = 0; a < added; a++) {
		if (map[a] >= p->ncounters) {
			lk_errbuf(err, len, "kpep_config_kpc_map gave counter %zu of %zu", map[a], p->ncounters);
			ret = -LK_EINVAL;
			free(pos);
			goto out;
		}
		p->kpc[a] = map[a];
	}
	p->instr_idx = p->kpc[pos[1]];
	size_t cyc_idx = p->kpc[pos[0]];
	for (size_t i = 0; i < p->nsel; i++) {
		p->slot[i] = SIZE_MAX;
		p->role[i] = ROLE_SAMPLED;
		if (cand_of[i] == SIZE_MAX || p->sel[i].err || pos[cand_of[i]] == SIZE_MAX)
			continue;
		p->slot[i] = p->kpc[pos[cand_of[i]]];
		if (p->slot[i] == p->instr_idx)
			p->role[i] = ROLE_INSTRUCTIONS;
		else if (p->slot[i] == cyc_idx)
			p->role[i] = ROLE_CYCLES;
	}
	free(pos);
out:
	free(evs);
	free(mask);
	free(fixed);
	free(ctr);
	free(placed);
	free(order);
	free(cand_of);
	return ret;
}

/* Force the counters, write the config words, start kpc (thread) counting. */
static int program_kpc(struct kperf_priv *p, char *err, size_t len)
{
	const struct kperf_fns *f = &L.f;
	size_t nwords = 0;
	int r;
	if ((r = f->kpep_config_kpc_count(p->cfg, &nwords)))
		return kperf_kpep_error(r, errno, err, len);
	uint64_t words[KPERF_MAX_COUNTERS] = { 0 };
	if (nwords > KPERF_MAX_COUNTERS) {
		lk_errbuf(err, len, "kperfdata wants %zu config words", nwords);
		return -LK_EINVAL;
	}
	if (nwords && (r = f->kpep_config_kpc(p->cfg, words, nwords * sizeof(uint64_t))))
		return kperf_kpep_error(r, errno, err, len);
	p->programmed = true;
	arm_emergency();
	if ((r = KCALL(f->kpc_force_all_ctrs_set(1), "kpc_force_all_ctrs_set", err, len)))
		return r;
	if ((p->classes & KPC_CLASS_CONFIGURABLE_MASK) && nwords &&
	    (r = KCALL(f->kpc_set_config(p->classes, words), "kpc_set_config", err, len))) {
		if (r == -LK_EPERM)	/* secure CPC: release kernels refuse events outside Apple's allow list */
			lk_errbuf(err, len, "kpc_set_config refused the events (EPERM): not allowed on this kernel");
		return r;
	}
	if ((r = KCALL(f->kpc_set_counting(p->classes), "kpc_set_counting", err, len)))
		return r;
	return KCALL(f->kpc_set_thread_counting(p->classes), "kpc_set_thread_counting", err, len);
}

static int kperf_open(void *priv, struct lk_evsel *sel, size_t n, char *err, size_t len)
{
	struct kperf_priv *p = priv;
	int r = load_fns(err, len);
	if (r < 0)
		return r;
	if ((r = root_check(err, len)) < 0)
		return r;
	p->sel = sel;
	p->nsel = n;
	p->slot = xcalloc(n ? n : 1, sizeof(*p->slot));
	p->role = xcalloc(n ? n : 1, sizeof(*p->role));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->wake, NULL);
	p->sync_init = true;

	/* State left by a killed run (sampling or PET still on, counters forced): detect, then reset. */
	uint32_t sampling = 0;
	int pet = 0;
	errno = 0;
	int e = call_errno(L.f.kperf_sample_get(&sampling), errno);
	if (e) {
		r = kperf_errno_error("kperf_sample_get", e, err, len);
		goto fail;
	}
	if ((r = L.sys->sysctl_int("kperf.lightweight_pet", NULL, &pet)) < 0) {
		r = kperf_errno_error("kperf.lightweight_pet", -r, err, len);
		goto fail;
	}
	bool stale = sampling || pet || L.f.kpc_get_counting();
	arm_emergency();
	if ((r = release_all(err, len)) < 0) {
		if (stale && r != -LK_EBUSY) {	/* EBUSY already says who holds it */
			char tmp[256];
			lk_errbuf(tmp, sizeof(tmp), "%s", err);
			lk_errbuf(err, len, "cannot reset the kperf state an earlier run left on: %s", tmp);
		}
		goto fail;
	}

	if ((r = build_config(p, err, len)) < 0)
		goto fail;
	bool any = false;
	for (size_t i = 0; i < n; i++)
		any |= !sel[i].err;
	if (!any)
		return 0;	/* nothing countable: the caller drops or fails each event */
	kperf_agg_init(&p->agg, p->ncounters);
	p->buf = xcalloc(READ_CHUNK, sizeof(*p->buf));
	if ((r = program_kpc(p, err, len)) < 0)
		goto fail;
	return 0;
fail:
	kperf_close(p);
	return r;
}

/* The reader thread: drain the kdebug buffer while the child runs. */
static int drain(struct kperf_priv *p)
{
	for (;;) {
		size_t got = READ_CHUNK * sizeof(struct kperf_kdbuf);
		int r = L.sys->kdebug(KPERF_KD_READTR, 0, p->buf, &got);
		if (r < 0)
			return r;
		if (got > READ_CHUNK)
			got = READ_CHUNK;
		kperf_agg_feed(&p->agg, p->buf, got);
		if (got < READ_CHUNK)
			return 0;
	}
}

static void *reader_main(void *arg)
{
	struct kperf_priv *p = arg;
	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		/* A timed wait on a condition (not a sleep), so stop_run() need not wait out the interval. */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += READ_INTERVAL_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->wake, &p->mu, &ts);
		if (p->stop)
			break;
		pthread_mutex_unlock(&p->mu);
		int r = drain(p);
		pthread_mutex_lock(&p->mu);
		if (r < 0) {
			kperf_errno_error("kdebug read", -r, p->run_why, sizeof(p->run_why));
			p->run_err = -LK_EIO;
			break;
		}
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Stop this run's sampling and kdebug; keeps kpc counting for the next run. */
static int stop_run(struct kperf_priv *p, char *why, size_t len)
{
	int first = 0, r;
	size_t zero = 0;
	char tmp[256];
	if (p->reader_on) {
		pthread_mutex_lock(&p->mu);
		p->stop = true;
		pthread_cond_signal(&p->wake);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->reader, NULL);
		p->reader_on = false;
	}
	if (!p->sampling)
		return 0;
	p->sampling = false;
	if ((r = KCALL(L.f.kperf_sample_set(0), "kperf_sample_set", tmp, sizeof(tmp))) < 0 && !first) {
		first = r;
		lk_errbuf(why, len, "%s", tmp);
	}
	/* What the last moments of the run logged is still in the buffer. */
	if (!p->run_err && !first && (r = drain(p)) < 0) {
		first = kperf_errno_error("kdebug read", -r, why, len);
	}
	r = L.sys->kdebug(KPERF_KD_ENABLE, 0, NULL, &zero);
	if (r < 0 && !first)
		first = kperf_errno_error("kdebug enable 0", -r, why, len);
	r = L.sys->kdebug(KPERF_KD_REMOVE, 0, NULL, &zero);
	if (r < 0 && !first)
		first = kperf_errno_error("kdebug remove", -r, why, len);
	int off = 0;
	r = L.sys->sysctl_int("kperf.lightweight_pet", &off, NULL);
	if (r < 0 && !first)
		first = kperf_errno_error("kperf.lightweight_pet", -r, why, len);
	if ((r = KCALL(L.f.kperf_reset(), "kperf_reset", tmp, sizeof(tmp))) < 0 && !first) {
		first = r;
		lk_errbuf(why, len, "%s", tmp);
	}
	return first;
}

/*
 * Runs while the child is blocked on the runner's gate, before it execs:
 * counts, timers and PET first, then kdebug, and sampling on last (setting
 * a timer or PET while sampling is on is EBUSY).
 */
static int kperf_attach(void *priv, pid_t pid, char *err, size_t len)
{
	struct kperf_priv *p = priv;
	const struct kperf_fns *f = &L.f;
	int r;
	size_t zero = 0;
	if (!p->buf) {
		lk_errbuf(err, len, "kperf has no event to count");
		return -LK_EINVAL;
	}
	p->pid = pid;
	p->have_run = false;
	p->run_err = 0;
	p->run_why[0] = '\0';
	kperf_agg_reset(&p->agg);
	p->stop = false;	/* no reader thread runs between runs */
	p->sampling = true;	/* from here on stop_run() must undo */
	if ((r = KCALL(f->kperf_action_count_set(KPERF_ACTION_MAX), "kperf_action_count_set", err, len)) ||
	    (r = KCALL(f->kperf_timer_count_set(KPERF_TIMER_MAX), "kperf_timer_count_set", err, len)) ||
	    (r = KCALL(f->kperf_action_samplers_set(KPERF_ACTION_ID, KPERF_SAMPLER_PMC_THREAD),
		       "kperf_action_samplers_set", err, len)) ||
	    (r = KCALL(f->kperf_action_filter_set_by_pid(KPERF_ACTION_ID, (int32_t)pid),
		       "kperf_action_filter_set_by_pid", err, len)) ||
	    (r = KCALL(f->kperf_timer_period_set(KPERF_TIMER_ID, f->kperf_ns_to_ticks(SAMPLE_PERIOD_NS)),
		       "kperf_timer_period_set", err, len)) ||
	    (r = KCALL(f->kperf_timer_action_set(KPERF_TIMER_ID, KPERF_ACTION_ID), "kperf_timer_action_set", err, len)) ||
	    (r = KCALL(f->kperf_timer_pet_set(KPERF_TIMER_ID), "kperf_timer_pet_set", err, len)))
		goto fail;
	int on = 1;
	if ((r = L.sys->sysctl_int("kperf.lightweight_pet", &on, NULL)) < 0) {
		r = kperf_errno_error("kperf.lightweight_pet", -r, err, len);
		goto fail;
	}
	struct kperf_kdreg reg = { .type = KPERF_KDBG_VALCHECK, .value1 = KPERF_DEBUGID_THREAD };
	size_t reglen = sizeof(reg);
	const char *what = "kdebug remove";
	if ((r = L.sys->kdebug(KPERF_KD_REMOVE, 0, NULL, &zero)) < 0 ||
	    (what = "kdebug setbuf", r = L.sys->kdebug(KPERF_KD_SETBUF, KDEBUG_RECORDS, NULL, &zero)) < 0 ||
	    (what = "kdebug setup", r = L.sys->kdebug(KPERF_KD_SETUP, 0, NULL, &zero)) < 0 ||
	    (what = "kdebug setreg", r = L.sys->kdebug(KPERF_KD_SETREG, 0, &reg, &reglen)) < 0 ||
	    (what = "kdebug enable", r = L.sys->kdebug(KPERF_KD_ENABLE, 1, NULL, &zero)) < 0) {
		r = kperf_errno_error(what, -r, err, len);
		goto fail;
	}
	if ((r = KCALL(f->kperf_sample_set(1), "kperf_sample_set", err, len)))
		goto fail;
	/* The reader must not take lauka's SIGINT/SIGTERM: the runner's handler forwards them. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int pr = pthread_create(&p->reader, NULL, reader_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pr) {
		lk_errbuf(err, len, "cannot start the kdebug reader thread: %s", strerror(pr));
		r = -LK_EIO;
		goto fail;
	}
	p->reader_on = true;
	return 0;
fail: {
	char tmp[256];
	stop_run(p, tmp, sizeof(tmp));
	return r;
}
}

/* The child is a zombie: stop sampling, read what is left, take its rusage before it is reaped. */
static void kperf_exited(void *priv, pid_t pid)
{
	struct kperf_priv *p = priv;
	if (!p->sampling && !p->reader_on)
		return;		/* attach failed: nothing was started */
	char why[256];
	int r = stop_run(p, why, sizeof(why));
	if (r < 0 && !p->run_err) {
		p->run_err = r;
		lk_errbuf(p->run_why, sizeof(p->run_why), "%s", why);
	}
	if ((r = L.sys->rusage(pid, &p->ru)) < 0 && !p->run_err) {
		p->run_err = -LK_EIO;
		lk_errbuf(p->run_why, sizeof(p->run_why), "proc_pid_rusage(%d): %s", (int)pid, strerror(-r));
	}
	kperf_agg_total(&p->agg, p->totals);
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
	uint64_t sampled = p->totals[p->instr_idx];
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
	for (size_t i = 0; i < p->nsel; i++) {
		struct lk_counts *c = &out[i];
		memset(c, 0, sizeof(*c));
		if (p->slot[i] == SIZE_MAX)
			continue;
		c->supported = true;
		c->enabled = c->running = 1;
		switch (p->role[i]) {
		case ROLE_INSTRUCTIONS:
			c->value = p->ru.instructions;
			break;
		case ROLE_CYCLES:
			c->value = p->ru.cycles;
			break;
		case ROLE_SAMPLED:
			if (sc == KPERF_SCOPE_NONE || sc == KPERF_SCOPE_NORUSAGE) {
				c->running = 0;	/* no thread sampled twice: not counted */
				break;
			}
			c->value = p->totals[p->slot[i]];
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
	stop_run(p, why, sizeof(why));
	p->have_run = false;
}

static void kperf_close(void *priv)
{
	struct kperf_priv *p = priv;
	char why[256];
	stop_run(p, why, sizeof(why));
	if (atomic_load(&emergency_armed) || p->programmed) {
		release_all(why, sizeof(why));
		atomic_store(&emergency_armed, false);
	}
	p->programmed = false;
	free_config(p);
	kperf_agg_release(&p->agg);
	free(p->buf);
	free(p->slot);
	free(p->role);
	p->buf = NULL;
	p->slot = NULL;
	p->role = NULL;
	if (p->sync_init) {
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->wake);
		p->sync_init = false;
	}
}

/*
 * Cycles and instructions are rusage defaults on macOS (exact, from
 * proc_pid_rusage), so kperf adds what rusage cannot count.  On M1-M3 the
 * first three share PMC5-7 and fit exactly; names missing from a chip's
 * database are skipped by the caller.
 */
static const char *const kperf_defaults[] = {
	"INST_BRANCH", "BRANCH_MISPRED_NONSPEC", "L1D_CACHE_MISS_LD_NONSPEC", "L1I_CACHE_MISS_DEMAND", NULL,
};

const struct lk_backend backend_kperf = {
	.name = "kperf",
	.desc = "Apple kperf/kpc hardware counters of the command's threads (macOS, root)",
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
