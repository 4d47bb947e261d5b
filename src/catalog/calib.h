/*
 * catalog/calib.h: the pure logic of `lauka calibrate`: probe scales, expectations
 * (catalog/expectations.tsv, embedded), normalisation, linearity, verdicts
 * and response profiles.  No I/O: cmd/calibrate.c runs the probes and feeds
 * the counts in; tests feed synthetic numbers.
 *
 * Normalisation.  Every backend measures the whole probe process, so a count
 * is  c(n) = constant + response × n  where n is the probe's units of work
 * (iterations or steps) and the constant is start-up, buffer set-up and
 * printing.  Each probe therefore runs three times: at scale 1 (the
 * baseline, almost pure constant), at 1× and at 4×.  Then
 *   per_unit_1x = (c1 - c0) / (n - 1)        per_unit_4x = (c4 - c0) / (4n - 1)
 * (with a baseline at scale n0 instead of 1: n - n0 and 4n - n0)
 * are per-unit responses with the constant removed; a linear counter gives
 * the same value at both scales (that is the linearity check: the 4× run
 * gives 4× the work-dependent counts), and
 *   response = (c4 - c1) / 3n
 * is what expectations are compared with.  Under valgrind all three are
 * exact: alu gives Ir response 2.000000.
 *
 * Verdicts, first rule that applies:
 *   unschedulable   the scheduler cannot place the event even alone
 *   unsupported     the backend cannot count it here (no PMU, not root, ...)
 *   not linear      on a probe where it responds, per_unit_4x / per_unit_1x
 *                   is outside 1 ± CALIB_LINEAR_TOL, and stays outside when
 *                   each scale's count moves by its rounds' spread (below)
 *   noisy           not linear by the smallest counts, but within what the
 *                   rounds' own spread (largest - smallest, at each scale)
 *                   can explain: the data supports neither verdict, so the
 *                   event is neither validated nor failed
 *   dead here       0 in every run of every probe, the baselines (a whole process start-up)
 *                   included: a counter that counts nothing on this machine (79 PMUv3 events
 *                   under QEMU), whether or not a response was expected; not one the probes miss
 *   off by X%       an expectation failed (X = the worst miss); an event
 *                   expected to respond that does not is off by 100%
 *   silent          no probe gives a significant response (|response| <=
 *                   CALIB_SILENT per unit, or c4 - c1 < CALIB_SIGNIFICANT ×
 *                   c1), and nothing expected one: page faults, interrupts,
 *                   I-cache misses of a small loop
 *   validated       every expectation for the event held
 *   linear          no expectation for this event; it responds linearly
 * Response profile (the paper's slot identification, for every event):
 *   memory-bound-like  chase or store responds most, >= CALIB_DOMINANT × the others
 *   branch-like        branch responds most, >= CALIB_DOMINANT × the others
 *   work-like          responds on alu, and no probe dominates
 *   none               otherwise (silent, or responds without a pattern)
 */
#ifndef LAUKA_CALIB_H
#define LAUKA_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/pmu.h"

#define CALIB_MAX_PROBES 8
#define CALIB_SILENT 1e-3	/* per unit: below this a response is nothing */
#define CALIB_SIGNIFICANT 0.1	/* nor is one where c4 - c1 < 10% of c1: noise (peak RSS, sys time) */
#define CALIB_LINEAR_TOL 0.25	/* per_unit_4x may differ from per_unit_1x by 25% */
#define CALIB_NOISE_FLOOR 0.25	/* linearity is judged only where c1 - c0 >= 25% of c0 */
#define CALIB_DOMINANT 10.0

/* One probe run at one scale set: argv after the probe name. */
struct calib_scale {
	const char *probe;	/* alu, chase, branch, store */
	uint64_t n;		/* units of work at 1x */
	const char *arg;	/* extra argument (buffer size) or NULL */
};

/*
 * The probes and their 1x scales.  slow: the backend simulates (valgrind,
 * tens of times slower than native), so scales are smaller; quick: the CI
 * set.  Buffers stay far above the 8 MiB simulated LL and, natively, above
 * any real LLC.
 */
const struct calib_scale *calib_scales(bool quick, bool slow, size_t *n);

enum calib_check_kind { CALIB_VALUE, CALIB_RATIO, CALIB_LINEAR };

/* One row of expectations.tsv. */
struct calib_expect {
	char kind[16];		/* pmu kind (valgrind, perf, kpep, rusage) or "any" */
	char event[96];		/* event name or alias */
	char probe[16];
	enum calib_check_kind check;
	double value;		/* VALUE: expected response; RATIO: the factor */
	double tol;		/* VALUE: tolerance, absolute unless tol_rel */
	bool tol_rel;		/* tol is a fraction of value */
	char ref[16];		/* RATIO: response >= value × response on this probe */
	int line;
};

struct calib_expectations {
	struct calib_expect *rows;
	size_t n;
};

/* Parse the TSV text (see catalog/expectations.tsv); 0 or -LK_EINVAL with "line N: ..." in err. */
int calib_expect_parse(const char *tsv, struct calib_expectations *out, char *err, size_t len);
/* The embedded catalog/expectations.tsv. */
int calib_expect_builtin(struct calib_expectations *out, char *err, size_t len);
void calib_expect_release(struct calib_expectations *e);

/*
 * The checks that apply to `ev` of `pmu`: rows of its kind or "any" whose
 * event name resolves (pmu_find) to ev.  A row of the pmu's own kind hides
 * an "any" row with the same probe and check.  Returns how many pointers
 * were written to out (at most max).
 */
size_t calib_expect_for(const struct calib_expectations *e, const struct lk_pmu *pmu,
			const struct lk_event *ev, const struct calib_expect **out, size_t max);

/* Counts of one event on one probe. */
struct calib_counts {
	double c0, c1, c4;	/* at scale 1, n, 4n (after multiplexing scaling): the smallest of the rounds */
	uint64_t n;		/* the 1x scale */
	uint64_t n0;		/* the baseline's scale when not 1 (0 = 1): a sampled backend needs it longer */
	double hi0, hi1, hi4;	/* the largest of the rounds at each scale (0: one run, no spread known) */
};

/* CALIB_NEEDS_SAMPLING: a PEBS-only event (Intel's PEBS=2, LK_EVF_NEEDS_SAMPLING), left out of counting plans. */
enum calib_state { CALIB_MEASURED, CALIB_UNSUPPORTED, CALIB_UNSCHEDULABLE, CALIB_NEEDS_SAMPLING };

struct calib_result {
	char verdict[32];
	const char *profile;
	double response[CALIB_MAX_PROBES];	/* (c4 - c1) / 3n */
	double per_unit_1x[CALIB_MAX_PROBES];
	double per_unit_4x[CALIB_MAX_PROBES];
	double expected[CALIB_MAX_PROBES];	/* VALUE expectation on that probe, or NAN */
	char expect_text[160];			/* "alu 2 ±0.001; chase >=100x alu" */
	bool failed;				/* see calib_verdict_failed() */
};

void calib_normalise(const struct calib_counts *c, double *per_unit_1x, double *per_unit_4x, double *response);

/* Is the response on this probe linear (or too small to judge)? */
bool calib_linear(const struct calib_counts *c);

/*
 * Could the probe be linear with each scale's count moved by no more than
 * its rounds' spread (hi - c), either way?  Off valgrind load only adds to a
 * count, so the smallest of the rounds can itself be raised, by about what
 * the rounds differ by.  False when no spread is known (one run: exact).
 */
bool calib_spread_explains(const struct calib_counts *c);
/* The rounds' largest spread, relative to the smallest count, over the three scales (0.5: 50%); 0 for one run. */
double calib_spread(const struct calib_counts *c);

/*
 * Judge one event: probes[i] names the probe of counts[i] (nprobes <=
 * CALIB_MAX_PROBES); checks from calib_expect_for().  Fills out.
 */
void calib_judge(const char *const *probes, const struct calib_counts *counts, size_t nprobes,
		 enum calib_state state, const struct calib_expect *const *checks, size_t nchecks,
		 struct calib_result *out);

/* Does the count move with work on this probe (see "silent")? */
bool calib_significant(const struct calib_counts *c);

/* Profile from responses alone, 0 where not significant (probes named as in calib_judge). */
const char *calib_profile(const char *const *probes, const double *response, size_t nprobes);

/*
 * Should `record` warn about an event with this verdict?  True for "off by",
 * "not linear", "does not see memory (chase)" and "dead here"; false for validated, linear and silent (nothing
 * contradicts the counter), noisy (nothing can be said), unsupported and unschedulable (record cannot
 * count those anyway).
 */
bool calib_verdict_failed(const char *verdict);

#endif
