/*
 * stats/diagnose.h: `record --explain`, the paper's §8 reading as rules.
 * Pure: numbers in (the stored calibration's per-unit responses, a
 * command's counts), choices and verdicts out; doc/explain.md states the
 * same rules for users and tests/check_diagnose.c holds them to tables.
 *
 * Event choice (diagnose_choose), from the calibration of this machine and
 * backend; responses are per probe unit (alu, branch: iteration; chase:
 * step) with start-up removed:
 *   work    validated, work-like, alu response nearest 2 (the alu loop is
 *           two instructions per iteration: instructions, Ir, INST_ALL)
 *   memory  validated, memory-bound-like, the largest chase response
 *   branch  validated, branch-like, the largest branch response
 *   cycles  named as a cycles counter (cycles, cpu-cycles, FIXED_CYCLES,
 *           CORE_ACTIVE_CYCLE), validated or linear, and responding on alu
 * Under valgrind the cost model below is written for Ir, DLmr and Bcm, so
 * those are the events, each still required to be validated.
 *
 * Placement: a rate is the event per unit of work; the control's rate is
 * its alu response over work's alu response, the probe's its chase (or
 * branch) response over work's.  fraction = (rate - control) / (probe -
 * control), the share of the way from the control to the probe.
 *
 * Cost model, for cycle shares:
 *   cycles measured: this machine's costs from the probes: cpi = cycles /
 *     work on alu; a miss costs (cycles - cpi x work) / misses on chase, a
 *     mispredict the same on branch; share = count x cost / cycles.
 *   valgrind (no cycles): estimated cycles = Ir + 5 (L1 misses - LL misses)
 *     + 35 LL misses + 26 Bcm, with L1 misses = I1mr + D1mr + D1mw and LL
 *     misses = ILmr + DLmr + DLmw: one cycle per instruction, 5 per L1 miss
 *     that hits LL and 35 per LL miss (the LL-hit and RAM terms of the
 *     estimated-cycles model of iai and Gungraun, L1 hits + 5 LL hits + 35
 *     RAM hits, which count instruction fetches, reads and writes alike),
 *     26 per mispredict (measured on M3 in the paper, §7.2); the memory
 *     share is the LL-hit and RAM terms together (`gzip -9`, 74.5M D1
 *     misses that mostly hit LL, read "memory 0.0%" without the LL-hit
 *     term; a store-only program over 64 MiB read "memory 0.2%" without the
 *     write misses, 89.4% with them, as Gungraun estimates).  A miss count
 *     not in the calibration (D1mr, D1mw, DLmw need validating; I1mr and
 *     ILmr, which no probe exercises, need only be calibrated) is left out.
 *   otherwise none: the verdict uses the fractions.
 * Verdict: with a cost model, the larger of the memory and branch shares
 * names the verdict when it is at least DIAG_BOUND_SHARE of the cycles, and
 * both do ("memory- and branch-bound") when both are (binary search: 41%
 * memory, 30% branch); without a model, the same with the fractions and
 * DIAG_BOUND_FRACTION of the way to their probes; else `neither`.
 *
 * Delta cause (a later command against the first or the baseline, each
 * from per-run samples with stats/compare.h's significance):
 *   work changed     the work count's delta is significant
 *   memory changed   the memory rate's delta is significant and the memory
 *                    share (or fraction, without a cost model) moved by at
 *                    least DIAG_MATERIAL (absolute)
 *   branch changed   the same for the branch rate
 * none when nothing changed, mixed when more than one did, else the one
 * that did: work, memory or branch.
 */
#ifndef LAUKA_DIAGNOSE_H
#define LAUKA_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>

#define DIAG_BOUND_SHARE 0.30
#define DIAG_BOUND_FRACTION 0.10
#define DIAG_MATERIAL 0.05
#define DIAG_VG_MISS_COST 35.0
#define DIAG_VG_LLHIT_COST 5.0
#define DIAG_VG_MISPREDICT_COST 26.0

/* One calibrated event: its latest verdict, profile and responses (NAN = not stored). */
struct diag_event {
	const char *name, *verdict, *profile;
	double alu, chase, branch;
};

/*
 * Valgrind's other misses, for the cost model only (no role elsewhere):
 * DIAG_L1MISS D1mr (for the LL-hit term), and (issue 37 T4) the instruction
 * fetch misses I1mr and ILmr and the write misses D1mw and DLmw, so that a
 * program that stores (or fetches code) past its caches pays for it.
 */
enum diag_role { DIAG_WORK, DIAG_MEMORY, DIAG_BRANCH, DIAG_CYCLES, DIAG_L1MISS, DIAG_I1MISS, DIAG_ILMISS,
		 DIAG_D1WMISS, DIAG_DLWMISS, DIAG_ROLES };
/* "work", "memory", "branch", "cycles", "l1-miss", "i1-miss", "ll-i-miss", "l1-write-miss", "ll-write-miss" */
extern const char *const diag_role_names[DIAG_ROLES];

/* Indices into ev for each role, -1 when none qualifies.  valgrind: the backend is valgrind. */
void diagnose_choose(const struct diag_event *ev, size_t n, bool valgrind, int choice[DIAG_ROLES]);

/* Where a rate sits: control and probe from the calibration (NAN when not known). */
struct diag_rate {
	double per_unit, control, probe;
	double fraction;	/* (per_unit - control) / (probe - control), NAN when not known */
};
void diagnose_place(double count, double work, const struct diag_event *ev, const struct diag_event *workev,
		    bool memory, struct diag_rate *out);

enum diag_model { DIAG_MODEL_NONE, DIAG_MODEL_CYCLES, DIAG_MODEL_VALGRIND };

/* Costs per event on this machine (model CYCLES) or the valgrind model's. */
struct diag_costs {
	enum diag_model model;
	double cpi, miss, mispredict;	/* cycles per unit of work, per miss, per mispredict */
	double llhit;			/* valgrind: per L1 miss that hits LL (NAN: no such term) */
};
/* cycles may be NULL; valgrind picks the stated model; else CYCLES when the probes give costs. */
void diagnose_costs(const struct diag_event *work, const struct diag_event *mem, const struct diag_event *br,
		    const struct diag_event *cycles, bool valgrind, struct diag_costs *out);

enum diag_verdict { DIAG_NEITHER, DIAG_MEMORY_BOUND, DIAG_BRANCH_BOUND, DIAG_MEMORY_BRANCH_BOUND };
/* "neither", "memory-bound", "branch-bound", "memory- and branch-bound" */
extern const char *const diag_verdict_names[4];

/* A command's reading: counts are its means (NAN when not measured; l1: valgrind's D1mr). */
struct diag_reading {
	struct diag_rate mem, br;
	bool have_shares;
	double mem_share, br_share;	/* of its (measured or estimated) cycles */
	double cycles;			/* measured or estimated, NAN without a model */
	double ll_hits, ll_misses;	/* valgrind: the counts the memory terms were priced on */
	enum diag_verdict verdict;
};
void diagnose_read(double work, double mem, double br, double cycles, double l1,
		   const struct diag_event *const ev[DIAG_ROLES], const struct diag_costs *costs, struct diag_reading *out);
/* The same with every role's mean count (NAN when not measured): the write and instruction misses too. */
void diagnose_read_all(const double m[DIAG_ROLES], const struct diag_event *const ev[DIAG_ROLES],
		       const struct diag_costs *costs, struct diag_reading *out);

enum diag_cause { DIAG_CAUSE_NONE, DIAG_CAUSE_WORK, DIAG_CAUSE_MEMORY, DIAG_CAUSE_BRANCH, DIAG_CAUSE_MIXED };
extern const char *const diag_cause_names[5];	/* "none", "work", "memory", "branch", "mixed" */

/*
 * Per-run samples of one command (work[i], mem[i], br[i] of run i; mem or br
 * NULL when not measured; NaN runs are left out) against the reference's.
 */
struct diag_samples {
	const double *work, *mem, *br;
	size_t n;
};
enum diag_cause diagnose_cause(const struct diag_samples *ref, const struct diag_reading *ref_reading,
			       const struct diag_samples *cur, const struct diag_reading *cur_reading);

#endif
