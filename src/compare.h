/*
 * compare.h: the delta of one command against the reference (the first
 * command).  Pure; no I/O.
 *
 * The delta is the relative change of the mean, (m - m_ref) / m_ref, with
 * the half-width of its 95% confidence interval from Welch's two-sample t
 * (no equal-variance assumption; Welch-Satterthwaite degrees of freedom).
 * A change counts as significant only when the whole interval lies beyond
 * +-1%: a practical threshold on top of statistical confidence, so a
 * tiny but certain difference is not flagged.  Higher is worse for every
 * measurement lauka reports (time, memory, counts).
 */
#ifndef LAUKA_COMPARE_H
#define LAUKA_COMPARE_H

#include <stdbool.h>

#include "stats.h"

enum delta_verdict {
	DELTA_NONE = 0,		/* not significant */
	DELTA_BETTER = -1,	/* lower, whole interval below -1% */
	DELTA_WORSE = 1,	/* higher, whole interval above +1% */
};

struct lk_delta {
	bool valid;		/* false when the reference mean is 0 and the other is not */
	double pct;		/* relative change in percent */
	double half;		/* 95% CI half-width in percent of the reference (symmetric; being replaced) */
	bool bounded;		/* false: the interval is unbounded (reference mean not clearly non-zero) */
	double ci_low;		/* 95% CI of the change, lower bound in percent (when bounded) */
	double ci_high;		/* 95% CI of the change, upper bound in percent (when bounded) */
	enum delta_verdict verdict;
};

#define DELTA_THRESHOLD_PCT 1.0

void compare_delta(const struct lk_stats *ref, const struct lk_stats *cur, struct lk_delta *out);

/* Two-sided 95% critical value of Student's t with df degrees of freedom (df may be fractional). */
double t_crit95(double df);

#endif
