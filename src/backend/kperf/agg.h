/*
 * backend/kperf/agg.h: the pure arithmetic of the kperf backend: turning kperf's
 * PERF_KPC_DATA_THREAD trace records into per-thread counter deltas, the
 * scope check against proc_pid_rusage, the scaling of configurable counts,
 * and the order in which events are added to a kpep_config.  No I/O, no
 * Darwin headers: it is tested on Linux with tables of records.
 *
 * How the kernel writes a thread sample (XNU osfmk/kperf/kperf_kpc.c,
 * reference/xnu-kperf.md section 2): in lightweight PET, kperf samples a
 * thread of the filtered process on every PET timer tick while it is on
 * core (kptimer.c arms the PET timer on every CPU), and also when it comes
 * on core in a new PET generation.  A sample is the thread's accumulated
 * counters as ceil(ncounters / 4) consecutive PERF_KPC_DATA_THREAD records,
 * four counters each in arg1..arg4, the thread id in arg5; the first record
 * is flagged DBG_FUNC_START and the last DBG_FUNC_END (a single record has
 * START only).  Counter i of the sample is kpc counter index i (0, 1 =
 * fixed; 2.. = configurable), the index space of kpep_config_kpc_map(); the
 * count is the one kpc_set_thread_counting() froze.
 *
 * Per thread we keep the first and the last complete sample.  A thread
 * created after kpc thread counting was switched on starts from zero
 * (kpc_thread.c zeroes its buffer at creation), so with KPERF_BASE_ZERO its
 * contribution is its last sample: a thread sampled once counts, and only
 * the work after its last sample is missed.  KPERF_BASE_FIRST (threads that
 * existed before) takes last - first, saturating at 0.  The scope check
 * measures what was missed, and configurable counts are scaled by it.
 *
 * C3 (audit 4, A6): a thread's counters only grow, so each complete sample is
 * compared with the thread's previous one: a value that drops, or rises by
 * more than 2^48 in one sample (an unsigned per-CPU delta gone negative in
 * kpc_thread.c, or a P/E migration glitch another tool has seen), marks the
 * run suspect; its counts are still summed, and the reason is kept.
 *
 * When the kernel's trace buffer wrapped, its next read starts with a
 * TRACE_LOST_EVENTS record: the samples being assembled are dropped (their
 * other records may be gone) and the run is counted as lossy.
 *
 * Ownership: struct kperf_agg owns its thread table; kperf_agg_release()
 * frees it.
 */
#ifndef LAUKA_KPERF_AGG_H
#define LAUKA_KPERF_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KPERF_MAX_COUNTERS 32

/* kdebug ids (xnu bsd/sys/kdebug.h, osfmk/kperf/buffer.h). */
#define KPERF_DBG_PERF 37u			/* DBG_PERF class */
#define KPERF_PERF_KPC 6u			/* PERF_KPC subclass */
#define KPERF_PERF_KPC_DATA_THREAD 8u		/* code of thread counter samples */
#define KPERF_EVENTID(cls, sub, code) ((((cls) & 0xffu) << 24) | (((sub) & 0xffu) << 16) | (((code) & 0x3fffu) << 2))
#define KPERF_DEBUGID_THREAD KPERF_EVENTID(KPERF_DBG_PERF, KPERF_PERF_KPC, KPERF_PERF_KPC_DATA_THREAD)
#define KPERF_FUNC_START 1u
#define KPERF_FUNC_END 2u
#define KPERF_FUNC_MASK 3u
#define KPERF_TRACE_LOST_EVENTS 0x07020008u	/* TRACEDBG_CODE(DBG_TRACE_INFO, 2) */

/* One kdebug record as KERN_KDREADTR returns it on 64-bit kernels (kd_buf, 64 bytes). */
struct kperf_kdbuf {
	uint64_t timestamp;
	uint64_t arg[4];
	uint64_t tid;		/* arg5: the thread the record belongs to */
	uint32_t debugid;
	uint32_t cpuid;
	uint64_t unused;
};

struct kperf_thread {
	uint64_t tid;
	size_t nsamples;		/* complete samples seen */
	uint64_t first[KPERF_MAX_COUNTERS];
	uint64_t last[KPERF_MAX_COUNTERS];
	uint64_t pending[KPERF_MAX_COUNTERS];	/* sample being assembled */
	size_t npending;
	bool assembling;
};

enum kperf_base {
	KPERF_BASE_ZERO,	/* threads created while thread counting was on: they start at 0 */
	KPERF_BASE_FIRST,	/* older threads: count from their first sample */
};

struct kperf_agg {
	size_t ncounters;		/* values per sample */
	enum kperf_base base;
	struct kperf_thread *threads;
	size_t nthreads, cap;
	size_t records;			/* thread-sample records consumed */
	size_t dropped;			/* incomplete samples thrown away */
	size_t lost;			/* TRACE_LOST_EVENTS records: the buffer wrapped */
	size_t starts, ends;		/* records flagged DBG_FUNC_START / DBG_FUNC_END */
	size_t suspect;			/* C3: samples whose counters dropped or jumped */
	char suspect_why[160];		/* the first of them */
};

/* C3: the largest rise of one counter in one sample that is believed (2^48). */
#define KPERF_MAX_RISE (1ull << 48)

void kperf_agg_init(struct kperf_agg *a, size_t ncounters, enum kperf_base base);
void kperf_agg_release(struct kperf_agg *a);
/* Forget all threads (a new run) but keep ncounters. */
void kperf_agg_reset(struct kperf_agg *a);
/* Consume records; anything that is not a PERF_KPC_DATA_THREAD record is skipped. */
void kperf_agg_feed(struct kperf_agg *a, const struct kperf_kdbuf *recs, size_t n);
/* Sum over threads of last (KPERF_BASE_ZERO) or last - first, per counter (out has ncounters entries). */
void kperf_agg_total(const struct kperf_agg *a, uint64_t *out);
/* Threads that contributed (one complete sample with KPERF_BASE_ZERO, else two). */
size_t kperf_agg_threads_counted(const struct kperf_agg *a);

/* Outcome of comparing sampled FIXED_INSTRUCTIONS with proc_pid_rusage instructions. */
enum kperf_scope {
	KPERF_SCOPE_FULL,	/* coverage within rounding of 100% */
	KPERF_SCOPE_PARTIAL,	/* sampling saw part of the run: configurable counts are scaled */
	KPERF_SCOPE_NONE,	/* no thread was counted: configurable counts unknown */
	KPERF_SCOPE_OVER,	/* samples hold more than the process retired: not the child's counts */
	KPERF_SCOPE_NORUSAGE,	/* proc_pid_rusage gave no instructions to compare with */
};
/* Samples may exceed rusage by this fraction before the check fails (rounding, clock skew). */
#define KPERF_SCOPE_OVER_TOLERANCE 0.02
/* Below this coverage the user is warned (DESIGN: "warn when coverage < 99%"). */
#define KPERF_SCOPE_WARN 0.99

/* coverage = sampled / rusage, clamped to at most 1; set for every outcome (0 when unknown). */
enum kperf_scope kperf_agg_scope(uint64_t sampled_instr, uint64_t rusage_instr, double *coverage);
/* value * rusage_instr / sampled_instr, rounded; value when sampled_instr is 0. */
uint64_t kperf_agg_scale(uint64_t value, uint64_t sampled_instr, uint64_t rusage_instr);

/*
 * The order in which to add n events to a kpep_config so that kperfdata's
 * first-fit allocator (lowest free counter of the event's mask, in add order,
 * reference/kpep.md 3.3) succeeds whenever lauka's assignment exists: fixed
 * events first, then configurable events by ascending assigned counter.
 * counter[i] is the scheduler's choice; when any configurable event has -1, a
 * maximum matching over the masks is computed here instead, taking events in
 * index order (so put the ones that matter most first).  Fixed events keep
 * their own counters and are not matched.  Fills order[0..n) (a permutation:
 * placed events in add order, then the rest) and placed[i]; returns how many
 * events could not be placed.
 */
size_t kperf_agg_order(const uint64_t *mask, const bool *fixed, const int *counter, size_t n,
		       size_t *order, bool *placed);

#endif
