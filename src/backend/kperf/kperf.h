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
 * id sysctls, geteuid) go through one seam, struct kperf_sys (declared in
 * backend/kperf/fw.h, the backend's lowest layer).  On macOS it
 * is implemented with the real system calls; a library loaded through
 * $LAUKA_KPERF_PATH that exports `lauka_kperf_sys` replaces it.  That is how
 * tests/support/kperf-standin.c runs every line of the backend's logic on
 * Linux.  The backend is listed in lk_backends[] only on macOS; tests use
 * `backend_kperf` directly.
 *
 * Environment:
 *   LAUKA_KPERF_DUMP      append every kdebug record read to this file (fixtures, C9)
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
#include "backend/kperf/fw.h"

extern const struct lk_backend backend_kperf;

/* Forget the loaded libraries so the next use loads them again (tests switch stand-ins). */
void kperf_lib_unload(void);

/* What `lauka doctor` reads: the counter count before and after forcing (this process keeps them forced). */
struct kperf_probe {
	uint32_t count_before, count_after;
};
int kperf_probe(struct kperf_probe *out, char *why, size_t len);
/*
 * kperf's action count as found (root): XNU never lowers it and kperf_reset
 * keeps it, so a count above 1 was set by another kperf client since boot
 * (N1); open() keeps it.  0 when no client has set one.
 */
int kperf_action_count(uint32_t *out, char *why, size_t len);
/*
 * Release the counters this process forced (kperf_probe, an open), so that
 * another counter user (Instruments, for the xctrace self-check) can force
 * them: XNU refuses a second forcing task (kpc_common.c:176-178).  0 when
 * nothing was held.
 */
int kperf_release_forced(char *why, size_t len);
/*
 * The event field kpc_get_config answers with, from a kpep database: 0xffff
 * when a configurable event's number is above 0xff (a chip with 16-bit
 * PMESR fields), else 0xff.  Pure.
 */
uint64_t kperf_event_mask_of(const struct lk_pmu *pmu);
/* The effective uid as the kperf seam reports it (geteuid, or the stand-in's). */
unsigned kperf_euid(void);
/*
 * C1 (audit 4): the kernel's answers `lauka doctor --macos` prints, read
 * only (nothing is written; reading ktrace.* needs no root, kperf.* and kpc.*
 * do).  Each is a sysctl through the backend's seam, so the model of XNU
 * answers on Linux.  err is 0 or -errno of the read.  The names and rules
 * come from XNU's source (kern_ktrace.c, kperfbsd.c, kern_kpc.c);
 * kpc.force_all_ctrs is closed source; none has been read on a Mac yet.
 */
struct kperf_answer {
	const char *name;		/* the sysctl, or "kpc counters" */
	const char *means;		/* what lauka relies on it for */
	long long v;
	char s[64];			/* the value as printed */
	int err;
};
enum {
	KPERF_A_KTRACE_STATE, KPERF_A_KTRACE_OWNER, KPERF_A_KTRACE_BG, KPERF_A_KTRACE_BY,
	KPERF_A_ACTIONS, KPERF_A_SAMPLING, KPERF_A_LWPET, KPERF_A_COUNTING, KPERF_A_THREAD_COUNTING,
	KPERF_A_FORCED, KPERF_A_COUNTERS, KPERF_A_OSRELEASE, KPERF_A_N
};
/* Fills out[0..KPERF_A_N); -LK_E* (why) when not even the seam loads. */
int kperf_kernel_answers(struct kperf_answer out[KPERF_A_N], char *why, size_t len);
/*
 * A5: state a killed kperf client left on (sampling, lightweight PET, kpc
 * counting) with no live foreground ktrace owner; owner_alive says whether
 * ktrace.owning_pid is a live process.  true with what is on in why.  Pure.
 */
bool kperf_stale(const struct kperf_answer a[KPERF_A_N], bool owner_alive, char *why, size_t len);
/* true when the seam is the stand-in's (a model: its counts are not a real probe's). */
bool kperf_seam_is_model(void);

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
