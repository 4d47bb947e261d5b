/*
 * backend/kperf/fw.c: what the kperf backend owns of the system: loading Apple's
 * private kperf.framework and kperfdata.framework with dlopen, the Darwin
 * seam (struct kperf_sys: sysctlbyname, the kdebug sysctls,
 * proc_pid_rusage, the cpu id sysctls, geteuid), the mapping of their
 * errors to lauka's, the lookup of this cpu's kpep plist, and the checks
 * that say whether kperf can work on this machine (root, Rosetta).
 *
 * A library loaded through $LAUKA_KPERF_PATH that exports `lauka_kperf_sys`
 * replaces the native seam (tests/support/kperf-standin.c, a model of
 * XNU's rules, runs every line of the backend on Linux that way).
 */
#include "backend/kperf/fw.h"
#include "base/error.h"
#include "base/util.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

const struct kperf_sys *kperf_sys;
struct kperf_fns kperf_fn;

static struct {
	bool sys_tried, fns_tried;
	int sys_err, fns_err;
	char sys_why[256], fns_why[256];
	void *kperf, *kperfdata;
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
	memset(out, 0, sizeof(*out));
#ifdef RUSAGE_INFO_V6
	/* V6 (macOS 12+) adds the P-core share (C11); SDKs before it stop at V4. */
	struct rusage_info_v6 r6;
	memset(&r6, 0, sizeof(r6));
	if (proc_pid_rusage(pid, RUSAGE_INFO_V6, (rusage_info_t *)&r6) == 0) {
		out->instructions = r6.ri_instructions;
		out->cycles = r6.ri_cycles;
		out->pinstructions = r6.ri_pinstructions;
		out->has_p = true;
		return 0;
	}
#endif
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

static int native_sysctl_str(const char *name, char *buf, size_t len)
{
	if (!len)
		return -EINVAL;
	size_t sz = len - 1;
	if (sysctlbyname(name, buf, &sz, NULL, 0) < 0)
		return -errno;
	buf[sz < len ? sz : len - 1] = '\0';
	return 0;
}

static const struct kperf_sys native_sys = {
	.version = KPERF_SYS_VERSION,
	.sysctl_int = native_sysctl_int,
	.kdebug = native_kdebug,
	.rusage = native_rusage,
	.cpu_ids = native_cpu_ids,
	.euid = native_euid,
	.sysctl_str = native_sysctl_str,
};

const struct kperf_sys *kperf_native_sys(void)
{
	return &native_sys;
}
#endif

/* ---- loading ---- */

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);
	return v && *v ? v : dflt;
}

void kperf_fw_unload(void)
{
	if (L.kperfdata)
		dlclose(L.kperfdata);
	if (L.kperf)
		dlclose(L.kperf);
	memset(&L, 0, sizeof(L));
	memset(&kperf_fn, 0, sizeof(kperf_fn));
	kperf_sys = NULL;
}

bool kperf_loaded(void)
{
	return L.fns_tried && !L.fns_err && kperf_sys;
}

/* The seam: the one exported by the kperf library (the stand-in), else the native one. */
int kperf_load_sys(char *why, size_t len)
{
	if (!L.sys_tried) {
		L.sys_tried = true;
		const char *path = env_or("LAUKA_KPERF_PATH", KPERF_FRAMEWORK);
		L.kperf = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (L.kperf) {
			const struct kperf_sys *s = (const struct kperf_sys *)dlsym(L.kperf, KPERF_SYS_SYMBOL);
			if (s && s->version == KPERF_SYS_VERSION)
				kperf_sys = s;
		}
#ifdef __APPLE__
		if (!kperf_sys)
			kperf_sys = &native_sys;
#endif
		if (!L.kperf) {
			const char *e = dlerror();
			lk_errbuf(L.sys_why, sizeof(L.sys_why), "cannot load '%s': %s", path, e ? e : "unknown error");
			L.sys_err = -LK_ENOTSUP;
		} else if (!kperf_sys) {
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
	*(void **)&kperf_fn.name = dlsym(lib, #name); \
	if (!kperf_fn.name && !missing) missing = #name; \
} while (0)
#define SYM_OPTIONAL(lib, name) (*(void **)&kperf_fn.name = dlsym(lib, #name))

int kperf_load_fns(char *why, size_t len)
{
	int r = kperf_load_sys(why, len);
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
			SYM(L.kperf, kpc_get_thread_counting);
			SYM(L.kperf, kpc_set_counting);
			SYM(L.kperf, kpc_set_thread_counting);
			SYM(L.kperf, kpc_get_counter_count);
			SYM(L.kperf, kpc_set_config);
			SYM(L.kperf, kperf_action_count_set);
			SYM(L.kperf, kperf_action_count_get);
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
			SYM_OPTIONAL(L.kperf, kpc_get_config);
			SYM_OPTIONAL(L.kperf, kperf_timer_period_get);
			SYM_OPTIONAL(L.kperf, kperf_timer_pet_get);
			SYM_OPTIONAL(L.kperf, kperf_action_samplers_get);
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
	case EACCES:
		/* kpc_common.c kpc_force_all_ctrs(): the counters are forced by another live task. */
		if (!strcmp(call, "kpc_force_all_ctrs_set")) {
			lk_errbuf(why, len, "'%s': the counters are held by another process (Instruments, a "
				  "profiler, another lauka); they are released when it exits", call);
			return -LK_EBUSY;
		}
		lk_errbuf(why, len, "'%s': permission denied; kperf needs root", call);
		return -LK_EPERM;
	case EPERM:
		lk_errbuf(why, len, "'%s': permission denied; kperf needs root", call);
		return -LK_EPERM;
	case EBUSY:
		/*
		 * A4 (audit 4): kpc does not use ktrace ownership.  Since xnu-10063
		 * (macOS 14.4) every kpc.* sysctl is EBUSY while another kernel
		 * client has acquired the CPU's PMU (kern_kpc.c, cpc_hw_in_use); which
		 * Apple component does is not in open source (Processor Trace on
		 * M4, inference).  kperf and kdebug calls are EBUSY when another live
		 * process owns ktrace.
		 */
		if (!strncmp(call, "kpc_", 4) || !strncmp(call, "kpc.", 4)) {
			lk_errbuf(why, len, "'%s': the CPU counters are held by another kernel client (macOS 14.4+: "
				  "e.g. processor trace), not by a process lauka can name", call);
			return -LK_EBUSY;
		}
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

int kperf_call_errno(int r, int saved)
{
	if (r == 0)
		return 0;
	if (r > 0)
		return r;
	return saved ? saved : EIO;
}

int kperf_call(int r, const char *name, char *why, size_t len)
{
	int e = kperf_call_errno(r, errno);
	return e ? kperf_errno_error(name, e, why, len) : 0;
}

int kperf_seam_error(int r, const char *what, char *why, size_t len)
{
	return r < 0 ? kperf_errno_error(what, -r, why, len) : 0;
}

/* ---- may kperf work here ---- */

int kperf_root_check(char *why, size_t len)
{
	if (kperf_sys->euid() != 0) {
		lk_errbuf(why, len, "kpc counters and kperf sampling are root-only on macOS");
		return -LK_EPERM;
	}
	int v = 0;
	errno = 0;
	int r = kperf_fn.kpc_force_all_ctrs_get(&v);
	int e = kperf_call_errno(r, errno);
	if (e)
		return kperf_errno_error("kpc_force_all_ctrs_get", e, why, len);
	return 0;
}

/*
 * An x86_64 lauka on Apple silicon runs translated: it would read the
 * translated cpu ids (no kpep file matches them) and the kernel would log
 * arm64 counters for an Intel configuration.  sysctl.proc_translated is 1
 * then; it does not exist on Intel Macs (ENOENT, not translated).
 */
int kperf_rosetta_check(char *why, size_t len)
{
	int v = 0;
	if (kperf_sys->sysctl_int("sysctl.proc_translated", NULL, &v) == 0 && v == 1) {
		lk_errbuf(why, len, "lauka runs under Rosetta (an x86_64 build on Apple silicon): kperf cannot "
			  "count the native cpu's events; use an arm64 build of lauka");
		return -LK_ENOTSUP;
	}
	return 0;
}

/* ---- the kpep plist of this cpu ---- */

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

int kperf_kpep_locate(char *path, size_t len, char *detail, size_t dlen)
{
	char why[256];
	int r = kperf_load_sys(why, sizeof(why));
	if (r < 0 && !kperf_sys) {	/* on macOS the native seam works without the framework */
		lk_errbuf(detail, dlen, "%s", why);
		return r;
	}
	uint32_t type, subtype, family;
	if ((r = kperf_sys->cpu_ids(&type, &subtype, &family)) < 0) {
		lk_errbuf(detail, dlen, "cannot read hw.cputype/cpusubtype/cpufamily: %s", strerror(-r));
		return -LK_ENOTSUP;
	}
	const char *env = getenv("KPEP_DB_PATH");
	const char *dirs[] = { env, "/usr/local/share/kpep", "/usr/share/kpep" };
	static const char *const dir_names[] = { "$KPEP_DB_PATH", "/usr/local/share/kpep", "/usr/share/kpep" };
	char name[PATH_MAX];
	if (kperf_find_plist(dirs, ARRAY_SIZE(dirs), type, subtype, family, name, sizeof(name)) < 0) {
		lk_errbuf(detail, dlen, "no kpep database '%s' for this cpu (hw.cputype 0x%x, hw.cpusubtype 0x%x, "
			  "hw.cpufamily 0x%x) in %s/usr/local/share/kpep or /usr/share/kpep", name, (unsigned)type,
			  (unsigned)subtype, (unsigned)family, env && *env ? "$KPEP_DB_PATH, " : "");
		lk_errbuf(path, len, "%s", name);
		return -LK_ENOENT;
	}
	/* Which directory gave it: the first whose cpu_* entry resolves to the same file. */
	const char *from = "?";
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char one[PATH_MAX];
		if (kperf_find_plist(&dirs[i], 1, type, subtype, family, one, sizeof(one)) == 0 && !strcmp(one, name)) {
			from = dir_names[i];
			break;
		}
	}
	lk_errbuf(detail, dlen, "cpu_%x_%x_%x.plist (hw.cputype, hw.cpusubtype, hw.cpufamily) found in %s, "
		  "resolves to %s", (unsigned)type, (unsigned)subtype, (unsigned)family, from, name);
	lk_errbuf(path, len, "%s", name);
	return 0;
}
