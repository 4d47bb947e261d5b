/*
 * stats/gate.h: regression gates, `--gate NAME=LIMIT`.  Pure: no I/O.
 *
 * Three outcomes on the confidence interval of the measurement's change
 * against its reference (the baseline, or the first command): FAIL when the
 * whole interval lies above LIMIT percent, pass only when the whole interval
 * lies at or below it, inconclusive otherwise (it straddles the limit: the
 * data cannot tell).  Deterministic counts (valgrind's events: one run is the
 * count; or sigma = 0 on both sides) need no interval: the plain change is
 * compared.  A gate is inconclusive too, never a pass, when its interval is
 * unbounded (a reference mean not clearly non-zero), or a side of a
 * measurement that varies from run to run has fewer than GATE_MIN_RUNS runs
 * (no spread, so no interval).  Higher is worse for every measurement, as in
 * the delta column.  The interval is the caller's (d): the delta's 95% one,
 * or one widened for repeated looks (compare_delta_level).
 */
#ifndef LAUKA_RECORD_GATE_H
#define LAUKA_RECORD_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/compare.h"
#include "stats/stats.h"

#define GATE_MAX_PCT 1e6
#define GATE_MIN_RUNS 2

/*
 * "Ir=1%", "wall_time = 10 %": the name (malloc'd) and the limit in percent
 * (0 <= limit <= GATE_MAX_PCT).  0, or -1 with a reason in err.
 */
int gate_parse(const char *spec, char **name, double *limit, char *err, size_t len);

enum gate_basis {
	GATE_EXACT,		/* sigma = 0 on both sides: the plain change */
	GATE_INTERVAL,		/* the 95% confidence interval of the change */
	GATE_UNBOUNDED,		/* no usable interval: inconclusive */
	GATE_TOO_FEW,		/* fewer than GATE_MIN_RUNS runs of a varying measurement: inconclusive */
	GATE_OTHER_SESSION,	/* a timing measurement against a baseline of another session: inconclusive */
};

struct gate_eval {
	enum gate_basis basis;
	double change;		/* percent (+inf when the reference is 0 and the value is not) */
	double ci_low, ci_high;	/* percent, for GATE_INTERVAL */
	bool failed;
	bool inconclusive;	/* neither failed nor passed: GATE_UNBOUNDED, GATE_TOO_FEW, or an interval straddling the limit */
};

/* exact: the measurement is deterministic (the same count on every run), so one run tells. */
void gate_evaluate(const struct lk_stats *ref, const struct lk_stats *cur, const struct lk_delta *d,
		   double limit, bool exact, struct gate_eval *out);

/*
 * Issue 37: a gate that cannot tell yet may get more runs, on a fixed
 * schedule of looks fixed before the first: n0 runs (the automatic count),
 * then 2 n0, 4 n0, ... while below max, then max.  Each look's interval is
 * at confidence 1 - GATE_ALPHA / K for K looks (Bonferroni), so over all
 * looks a FAIL or a pass is wrong with probability at most GATE_ALPHA / 2
 * each, however many looks are taken.  Fills looks[0 .. K) (at most
 * GATE_MAX_LOOKS) and returns K (at least 1).
 */
#define GATE_ALPHA 0.05
#define GATE_MAX_LOOKS 32
size_t gate_looks(unsigned long n0, unsigned long max, unsigned long *looks);
/* The two-sided level of each look's interval when there are k looks: GATE_ALPHA / k. */
double gate_look_alpha(size_t k);

/*
 * A timing measurement against a stored baseline (another session): the
 * interval holds the noise within each session, not the drift between them
 * (load, clock frequency, other tenants), so it cannot tell.  Makes a decided
 * gate inconclusive (GATE_OTHER_SESSION), keeping its change and interval to
 * print; an unbounded one or one with too few runs keeps its own reason.
 */
void gate_other_session(struct gate_eval *e);

#endif
