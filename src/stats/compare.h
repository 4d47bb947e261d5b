/*
 * stats/compare.h: the delta of one command against the reference (the first
 * command).  Pure; no I/O.
 *
 * The delta is the relative change of the mean, (m - m_ref) / |m_ref|, in
 * percent, with the 95% confidence interval of that change from Fieller's
 * interval for the ratio of two independent means (no equal-variance
 * assumption; Student t at the Welch-Satterthwaite degrees of freedom of
 * m - rho m_ref, evaluated at the point estimate of rho).  The interval is
 * asymmetric (a ratio is more uncertain upwards than downwards) and, for
 * samples that cannot be negative, never reaches below -100%.  It is
 * unbounded when the reference mean is not clearly different from zero:
 * then nothing can be said about the size of the change.
 *
 * A change counts as significant only when the whole interval lies beyond
 * +-1%: a practical threshold on top of statistical confidence, so a
 * tiny but certain difference is not flagged.  An unbounded interval is
 * never significant.  Higher is worse for every measurement lauka reports
 * (time, memory, counts).
 */
#ifndef LAUKA_COMPARE_H
#define LAUKA_COMPARE_H

#include <stdbool.h>

#include "stats/stats.h"

enum delta_verdict {
	DELTA_NONE = 0,		/* not significant */
	DELTA_BETTER = -1,	/* lower, whole interval below -1% */
	DELTA_WORSE = 1,	/* higher, whole interval above +1% */
};

struct lk_delta {
	bool valid;		/* false when the reference mean is 0 and the other is not */
	double pct;		/* relative change in percent */
	bool bounded;		/* false: the interval is unbounded (reference mean not clearly non-zero) */
	double ci_low;		/* 95% CI of the change, lower bound in percent (NAN when unbounded) */
	double ci_high;		/* 95% CI of the change, upper bound in percent (NAN when unbounded) */
	enum delta_verdict verdict;
};

#define DELTA_THRESHOLD_PCT 1.0

void compare_delta(const struct lk_stats *ref, const struct lk_stats *cur, struct lk_delta *out);

/*
 * The same at confidence 1 - alpha (0 < alpha < 1): a gate that looks at its
 * data several times widens each look's interval (stats/gate.h, gate_looks).
 * compare_delta is compare_delta_level at alpha 0.05.
 */
void compare_delta_level(const struct lk_stats *ref, const struct lk_stats *cur, double alpha, struct lk_delta *out);

/* Two-sided 95% critical value of Student's t with df degrees of freedom (df may be fractional). */
double t_crit95(double df);
/* Two-sided critical value at level alpha: P(|T| > t) = alpha. */
double t_crit(double df, double alpha);

#endif
