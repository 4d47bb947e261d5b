/*
 * backend/kperf/fw.h: the kperf backend's access to the system, and its
 * lowest layer (it includes nothing else of backend/kperf/; kperf.h
 * includes it): loading kperf.framework and kperfdata.framework with
 * dlopen, the Darwin seam (struct kperf_sys, native or the stand-in's, which
 * tests/support/kperf-standin.c implements), the framework functions, the
 * call convention and error mapping, the cpu's kpep plist, and the checks
 * that decide whether kperf can work here at all (root, Rosetta).
 */
#ifndef LAUKA_KPERF_FW_H
#define LAUKA_KPERF_FW_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KPERF_SYS_VERSION 2
#define KPERF_SYS_SYMBOL "lauka_kperf_sys"

/* kdebug operations (the third level of CTL_KERN.KERN_KDEBUG, bsd/sys/sysctl.h). */
enum {
	KPERF_KD_ENABLE = 3,	/* arg: 1 on, 0 off */
	KPERF_KD_SETBUF = 4,	/* arg: number of records */
	KPERF_KD_SETUP = 6,
	KPERF_KD_REMOVE = 7,	/* reset: disable and free the buffer */
	KPERF_KD_SETREG = 8,	/* buf: struct kperf_kdreg */
	KPERF_KD_READTR = 10,	/* buf: records; *len bytes in, records out */
};

/* kd_regtype: a filter that keeps the records whose debugid is one of value1..4. */
struct kperf_kdreg {
	uint32_t type, value1, value2, value3, value4;
};
#define KPERF_KDBG_VALCHECK 0x00200000u

struct kperf_rusage {
	uint64_t instructions, cycles;
	/*
	 * C11 (audit 4): the instructions retired on P-cores (ri_pinstructions,
	 * RUSAGE_INFO_V6); has_p is false when the kernel or the SDK lacks V6.
	 * An event that counts nothing on E-cores under-counts a thread that
	 * ran there, with no marker: the share is shown beside kperf's results.
	 */
	uint64_t pinstructions;
	bool has_p;
};

/* The Darwin system interfaces of the backend.  Every op returns 0 or -errno. */
struct kperf_sys {
	unsigned version;	/* KPERF_SYS_VERSION */
	/* sysctlbyname on an int (kperf.lightweight_pet, sysctl.proc_translated): write *set, read *get. */
	int (*sysctl_int)(const char *name, const int *set, int *get);
	/* sysctl CTL_KERN.KERN_KDEBUG.op[.arg] with buf/len as oldp/oldlenp. */
	int (*kdebug)(int op, int arg, void *buf, size_t *len);
	/* proc_pid_rusage(pid, RUSAGE_INFO_V4): the process's own instructions and cycles (not its
	 * children's; user and kernel mode); works on a zombie. */
	int (*rusage)(int pid, struct kperf_rusage *out);
	/* hw.cputype, hw.cpusubtype, hw.cpufamily. */
	int (*cpu_ids)(uint32_t *type, uint32_t *subtype, uint32_t *family);
	unsigned (*euid)(void);
	/* sysctlbyname on a string (ktrace.configured_by, kern.osrelease): NUL-terminated in buf. */
	int (*sysctl_str)(const char *name, char *buf, size_t len);
};

/*
 * kpep error code (0..15, reference/kpep.md 4.6; 15 = "see errno") ->
 * -LK_E*, with a lower-case message in why.  Codes above 15 are -LK_EINVAL.
 */
int kperf_kpep_error(int code, int err_no, char *why, size_t len);
/* errno from a kpc_* / kperf_* / sysctl call -> -LK_E* and a message naming the call. */
int kperf_errno_error(const char *call, int err_no, char *why, size_t len);

/*
 * Find the kpep plist of a CPU: "cpu_<type>_<subtype>_<family>.plist" (hex)
 * in dirs[0..ndirs) (NULL or empty entries skipped), the first hit resolved
 * with realpath.  Returns 0 and the path in out, or -LK_ENOENT with the file
 * name looked for in out.
 */
int kperf_find_plist(const char *const *dirs, size_t ndirs, uint32_t type, uint32_t subtype,
		     uint32_t family, char *out, size_t len);

/*
 * This machine's kpep plist, for any backend that needs the cpu's event
 * database (kperf, xctrace): "cpu_<hw.cputype>_<hw.cpusubtype>_<hw.cpufamily>.plist"
 * in $KPEP_DB_PATH, /usr/local/share/kpep, /usr/share/kpep, resolved with
 * realpath.  Returns 0 with the path in path, or -LK_E* (-LK_ENOENT: no such
 * file); detail says which file was looked for, where it was found and what
 * it resolves to, or why nothing was found.  Needs no root.
 */
int kperf_kpep_locate(char *path, size_t len, char *detail, size_t dlen);

#define KPC_CLASS_FIXED_MASK 1u
#define KPC_CLASS_CONFIGURABLE_MASK 2u

typedef struct kpep_db kpep_db;
typedef struct kpep_config kpep_config;
typedef struct kpep_event kpep_event;

/* The framework functions lauka uses (signatures: reference/kpep.md 4.3-4.5, xnu-kperf.md section 1). */
struct kperf_fns {
	int (*kpc_force_all_ctrs_get)(int *);
	int (*kpc_force_all_ctrs_set)(int);
	uint32_t (*kpc_get_counting)(void);
	uint32_t (*kpc_get_thread_counting)(void);
	int (*kpc_set_counting)(uint32_t);
	int (*kpc_set_thread_counting)(uint32_t);
	uint32_t (*kpc_get_counter_count)(uint32_t);
	int (*kpc_set_config)(uint32_t, uint64_t *);
	int (*kperf_action_count_set)(uint32_t);
	int (*kperf_action_count_get)(uint32_t *);
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
	/*
	 * C2 (audit 4): the getters lauka reads every setting back with (kpc.config,
	 * kperf.timer.period, kperf.timer.pet_timer, kperf.action.samplers).
	 * Optional: a framework without one loads, and that field is reported
	 * "not read back" instead of failing every run.
	 */
	int (*kpc_get_config)(uint32_t, uint64_t *);
	int (*kperf_timer_period_get)(uint32_t, uint64_t *);
	int (*kperf_timer_pet_get)(uint32_t *);
	int (*kperf_action_samplers_get)(uint32_t, uint32_t *);
};

/* What was loaded; valid after kperf_load_fns() returned 0. */
extern const struct kperf_sys *kperf_sys;
extern struct kperf_fns kperf_fn;

#ifdef __APPLE__
/* The real Darwin seam (the one used unless the kperf library exports its own). */
const struct kperf_sys *kperf_native_sys(void);
#endif
/* Load the seam only (enough for the cpu ids and rusage), or the seam and both frameworks. */
int kperf_load_sys(char *why, size_t len);
int kperf_load_fns(char *why, size_t len);
bool kperf_loaded(void);
/* dlclose both libraries and forget them. */
void kperf_fw_unload(void);

/*
 * kpc_* / kperf_* wrap sysctl; Apple's tests treat them as returning -1
 * with errno, and a few tools read the errno value itself, so both are read
 * as the errno.  KPERF_CALL clears errno first so a stale value is not
 * blamed on the call.
 */
int kperf_call_errno(int r, int saved);
int kperf_call(int r, const char *name, char *why, size_t len);
#define KPERF_CALL(expr, name, why, len) (errno = 0, kperf_call((expr), (name), (why), (len)))
/* A seam op's -errno as -LK_E* with a message naming the operation. */
int kperf_seam_error(int r, const char *what, char *why, size_t len);

/* Root, and kpc reachable (kpc_force_all_ctrs_get); then not under Rosetta. */
int kperf_root_check(char *why, size_t len);
int kperf_rosetta_check(char *why, size_t len);

#endif
