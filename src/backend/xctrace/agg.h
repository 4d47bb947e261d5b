/*
 * backend/xctrace/agg.h: the arithmetic of the xctrace backend, pure (rows in,
 * totals out; no I/O): summing manual-mode counters-profile rows, turning
 * the guided mode's raw per-core snapshots into per-thread totals, and
 * naming guided slots from the probes' responses.  Tested on Linux with the
 * real exports in tests/fixtures/xctrace-data and with synthetic tables.
 *
 * Manual mode (table counters-profile): each row's pmc-events are the
 * deltas of one thread since that thread's previous sample, so a total is a
 * plain sum over the rows of the target pid (rows of pid 0 and of other
 * processes are excluded).  In a PMI-triggered recording each row's weight
 * is the threshold, and the trigger event's total is the sum of the weights.
 *
 * Guided mode (table kdebug-counters-with-time-sample): each row is a
 * cumulative snapshot of the counters of the core the thread ran on, not of
 * the thread.  The paper's "resets at intervals" are core changes.  A
 * thread's total is the sum of the deltas between consecutive samples of
 * that thread on the same core, close in time (at most 2.5 sample periods
 * apart), with no slot going down; anything else starts a new baseline.
 * "Consecutive" holds for the core too: when another thread was sampled on
 * that core in between, the delta holds its work as well and is not taken
 * (two threads sharing a core are never credited with each other's counts).
 * Coverage = accepted time / sampled time (per thread, first to last
 * sample).  Some recordings write every slot twice (the second half equal to
 * the first): such halves are folded.
 */
#ifndef LAUKA_XCTRACE_AGG_H
#define LAUKA_XCTRACE_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/xctrace/parse.h"

#define XCT_MAX_VALUES 64
/* Consecutive samples further apart than this many periods are not adjacent. */
#define XCT_ADJACENT_PERIODS 2.5

struct xct_thread {
	int64_t tid;
	size_t rows;
	uint64_t values[XCT_MAX_VALUES];
	uint64_t weight;
	/* guided: the previous sample of this thread */
	bool have_prev;
	int64_t prev_core;
	size_t prev_seq;		/* row sequence number of that sample */
	uint64_t prev_time;
	uint64_t prev[XCT_MAX_VALUES];
	uint64_t first_time, last_time;
	uint64_t accepted_ns;
};

struct xct_sum {
	int64_t pid;			/* the target */
	size_t nvalues;			/* values per row the TOC promises */
	bool guided;
	uint64_t period_ns;		/* guided: sample period (0: take 1 ms) */
	uint64_t totals[XCT_MAX_VALUES];
	uint64_t weight;		/* sum of the weights of the target's rows */
	enum xct_weight weight_kind;
	size_t rows, rows_other, rows_sentinel;
	size_t rows_blank;		/* target rows without counter values (blocked threads): skipped */
	size_t baselines;		/* guided: samples that started a new baseline */
	bool halves_equal;		/* guided: every row's second half equals its first */
	struct xct_thread *threads;
	size_t nthreads;
	struct { int64_t core; size_t last_seq; } *cores;	/* guided: last sample per core */
	size_t ncores;
	size_t seq;			/* rows seen */
};

/*
 * Prepare a sum over rows of pid with nvalues values each.  guided selects
 * the raw-snapshot rules; period_ns is its sample period.
 */
void xct_sum_init(struct xct_sum *s, int64_t pid, size_t nvalues, bool guided, uint64_t period_ns);
void xct_sum_release(struct xct_sum *s);
/*
 * Add one row (an xct_row_fn: ctx is the struct xct_sum).  A row whose
 * value count differs from nvalues is an error: the export does not belong
 * to the TOC's names.  A row without values (a blocked thread) is skipped
 * and counted in rows_blank.
 */
int xct_sum_row(void *ctx, const struct xct_row *row, char *err, size_t errlen);
/* Guided: accepted time / sampled time over the threads (1 when nothing was sampled). */
double xct_sum_coverage(const struct xct_sum *s);
/*
 * Guided: the number of distinct slots, nvalues / 2 when halves_equal (the
 * totals are then read from the first half), else nvalues.
 */
size_t xct_sum_slots(const struct xct_sum *s);

/* ---- naming guided slots from the probes (the paper, section 7) ---- */

/* One probe recording's per-slot totals and its units of work. */
struct xct_probe_counts {
	const uint64_t *slots;
	double units;			/* iterations / steps of the probe */
};

#define XCT_SLOT_UNNAMED NULL
/* A slot is named only when its response beats the runner-up's by this factor, */
#define XCT_SLOT_MARGIN 3.0
/* and is at least this many times the control's reading. */
#define XCT_SLOT_MIN_RESPONSE 5.0
/* A miss count's bounds per chase step (one load: L1D, L2, TLB) and per branch iteration (one coin flip). */
#define XCT_MISS_PER_STEP_MIN 0.5
#define XCT_MISS_PER_STEP_MAX 3.0
#define XCT_MISPRED_PER_ITER_MIN 0.25
#define XCT_MISPRED_PER_ITER_MAX 1.0

struct xct_slot_map {
	size_t nslots;
	long work;			/* slot that grows with the work, -1 when none */
	long cache;			/* slot that responds to the chase, -1 when none is clear */
	long branch;			/* slot that responds to the branch probe, -1 */
	double cache_score, cache_runner_up;	/* response ratios (probe / control), best and second */
	double branch_score, branch_runner_up;
	double cache_per_unit, branch_per_unit;	/* the named slots' counts per chase step / branch iteration */
	bool cache_corroborated, branch_corroborated;	/* ... within a miss count's bounds */
	double *alu_norm, *chase_norm, *branch_norm;	/* per slot, normalised by the work slot */
};

/*
 * From the alu probe at 1x and 4x (the control; the work slot is the one
 * that scales by 4 within 10% and whose count per alu iteration is closest
 * to 2, the alu loop's instructions), the chase and the branch probe.
 * Every slot is normalised by the work slot of the same recording; its
 * response to a probe is that probe's normalised reading over the control's
 * (alu).  A slot is named by what the probes showed (N3): chase-responsive
 * or branch-responsive when its response passes XCT_SLOT_MIN_RESPONSE and
 * beats every other slot's by XCT_SLOT_MARGIN; the rest stay unnamed.  A
 * slot that responds to the chase nearly as much (stall cycles would) keeps
 * the cache slot unnamed: the rule prefers no name to a guess.  It is called
 * cache-misses / branch-misses only when a second property agrees: its
 * count per chase step / branch iteration lies within a miss count's bounds
 * (back-end stall cycles, which a third-party map of the M4 bottleneck
 * preset lists and which would win the chase test, read hundreds per step).
 * Returns 0, or -LK_EINVAL when no work slot exists (why in err).
 */
int xct_name_slots(size_t nslots, const struct xct_probe_counts *alu1, const struct xct_probe_counts *alu4,
		   const struct xct_probe_counts *chase, const struct xct_probe_counts *branch,
		   struct xct_slot_map *out, char *err, size_t errlen);
void xct_slot_map_release(struct xct_slot_map *m);
/* The discovered name of slot i ("work", "chase-responsive" or "cache-misses", "branch-responsive" or "branch-misses"), or NULL. */
const char *xct_slot_name(const struct xct_slot_map *m, size_t i);

#endif
