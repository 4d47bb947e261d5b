/*
 * backend/kperf/kperf.h: the kperf backend (macOS, root): Apple's private
 * kperf.framework (kpc_*, kperf_*) and kperfdata.framework (kpep_*), loaded
 * with dlopen, programmed from lauka's own catalogue and scheduler, measuring
 * the child through lightweight-PET thread samples filtered on its pid.
 *
 * The code is split by what it owns: backend/kperf/fw.c (loading, the system
 * seam, errors, the kpep file), backend/kperf/config.c (the kpc configuration from
 * lauka's assignment), backend/kperf/sample.c (PET, kdebug, the reader thread),
 * backend/kperf/agg.c (pure arithmetic), backend/kperf/kperf.c (the ops and their order).
 *
 * The kernel interfaces the frameworks do not wrap (sysctlbyname for
 * kperf.lightweight_pet, the kdebug trace buffer, proc_pid_rusage, the CPU
 * id sysctls, geteuid) go through one seam, struct kperf_sys.  On macOS it
 * is implemented with the real system calls; a library loaded through
 * $LAUKA_KPERF_PATH that exports `lauka_kperf_sys` replaces it.  That is how
 * tests/support/kperf-standin.c runs every line of the backend's logic on
 * Linux.  The backend is listed in lk_backends[] only on macOS; tests use
 * `backend_kperf` directly.
 *
 * Environment:
 *   LAUKA_KPERF_PATH      kperf library (default: the private framework)
 *   LAUKA_KPERFDATA_PATH  kperfdata library (default: the private framework)
 *   KPEP_DB_PATH          first directory searched for the CPU's kpep plist
 */
#ifndef LAUKA_BACKEND_KPERF_H
#define LAUKA_BACKEND_KPERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"

#define KPERF_SYS_VERSION 1
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
};

extern const struct lk_backend backend_kperf;

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

/* Forget the loaded libraries so the next use loads them again (tests switch stand-ins). */
void kperf_lib_unload(void);

/* What `lauka doctor` reads: the counter count before and after forcing (this process keeps them forced). */
struct kperf_probe {
	uint32_t count_before, count_after;
};
int kperf_probe(struct kperf_probe *out, char *why, size_t len);
/* What the last run of an open kperf instance (priv) logged, for `lauka doctor`. */
struct kperf_run_stats {
	size_t values;			/* values per thread sample */
	size_t samples, records;	/* complete thread samples; PERF_KPC_DATA_THREAD records */
	size_t starts, ends;		/* records flagged DBG_FUNC_START / DBG_FUNC_END */
	size_t threads;			/* threads counted */
	size_t lost;			/* TRACE_LOST_EVENTS records */
};
void kperf_last_run(const void *priv, struct kperf_run_stats *out);
/* proc_pid_rusage through the backend's seam (no root needed). */
int kperf_rusage_of(int pid, struct kperf_rusage *out, char *why, size_t len);

/*
 * F5: a note for a kpep event that kpc counts in user mode only (the
 * configurable ones, flag 0 on a release kernel; instructions and cycles
 * from rusage and the fixed counters include kernel mode), or NULL.
 */
const char *kperf_event_note(const struct lk_pmu *pmu, const struct lk_event *ev);
/*
 * F9: a note when the command is a shell (or make, env, ...) measured by a
 * backend that counts the direct process only (kperf; rusage's
 * instructions/cycles on macOS), or NULL.
 */
const char *kperf_scope_note(const char *backend, const char *const *argv);
/* What `record` says after a command's block: the F9 note for a shell; once (first), the F5 note for kperf. */
void kperf_record_tips(const char *backend, char *const *argv, bool first);

#endif
