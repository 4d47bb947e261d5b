/* stats/compare.c: baseline-relative deltas with Fieller's 95% confidence interval. */
#include "stats/compare.h"

#include <math.h>
#include <string.h>

#define LENTZ_TINY 1e-300

/* One step of the modified Lentz algorithm: fold term `num` into c and d, return the factor for h. */
static double lentz_step(double *c, double *d, double num)
{
	*d = 1 + num * *d;
	*c = 1 + num / *c;
	if (fabs(*d) < LENTZ_TINY)
		*d = LENTZ_TINY;
	if (fabs(*c) < LENTZ_TINY)
		*c = LENTZ_TINY;
	*d = 1 / *d;
	return *d * *c;
}

/*
 * Regularised incomplete beta I_x(a, b) by its continued fraction (modified
 * Lentz).  Only needed for the t distribution: P(|T| > t) = I_{df/(df+t^2)}(df/2, 1/2).
 */
static double betacf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1);
	if (fabs(d) < LENTZ_TINY)
		d = LENTZ_TINY;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m;
		h *= lentz_step(&c, &d, m * (b - m) * x / ((a + m2 - 1) * (a + m2)));
		double del = lentz_step(&c, &d, -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)));
		h *= del;
		if (fabs(del - 1) < 1e-14)
			break;
	}
	return h;
}

static double ibeta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * betacf(a, b, x) / a;
	return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

/* Two-sided tail probability P(|T| > t). */
static double t_two_tail(double t, double df)
{
	return ibeta(df / 2, 0.5, df / (df + t * t));
}

double t_crit(double df, double alpha)
{
	if (!(df > 0) || !(alpha > 0 && alpha < 1))
		return NAN;
	if (alpha == 0.05 && df > 1e7)
		return 1.959963984540054;
	double lo = 0, hi = 1e6;	/* t(1 - 0.0005/2, 1) = 1273; ample for the alphas lauka uses */
	for (int i = 0; i < 300 && hi - lo > 1e-12 * (1 + lo); i++) {
		double mid = (lo + hi) / 2;
		if (t_two_tail(mid, df) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double t_crit95(double df)
{
	return t_crit(df, 0.05);
}

/*
 * Welch-Satterthwaite degrees of freedom of b - rho a, whose variance is
 * vb + rho^2 va.  A side without spread (a deterministic count, or one run)
 * contributes no term.  0 when neither side has spread.
 */
static double fieller_df(double va, size_t na, double vb, size_t nb, double rho)
{
	double wa = rho * rho * va, w = vb + wa, den = 0;
	if (wa > 0)
		den += wa * wa / (double)(na - 1);
	if (vb > 0)
		den += vb * vb / (double)(nb - 1);
	if (den > 0)
		return w * w / den;
	return va > 0 ? (double)(na - 1) : 0;	/* rho = 0 and b exact: only a's spread is left */
}

/*
 * Fieller's interval for rho = mean_b / mean_a: every rho whose
 * t statistic (b - rho a) / sqrt(vb + rho^2 va) lies within +-t, i.e. the
 * rho between the roots of
 *   (a^2 - t^2 va) rho^2 - 2 a b rho + (b^2 - t^2 vb) = 0.
 * The set is a finite interval exactly when a^2 > t^2 va (a is clearly
 * non-zero); otherwise it is unbounded and false is returned.
 */
static bool fieller(double a, double va, double b, double vb, double t, double *lo, double *hi)
{
	double t2 = t * t;
	double qa = a * a - t2 * va, qb = a * b, qc = b * b - t2 * vb;
	if (!(qa > 0))
		return false;
	/* discriminant qb^2 - qa qc, written without the cancelling a^2 b^2 terms */
	double disc = t2 * (a * a * vb + b * b * va - t2 * va * vb);
	double sq = sqrt(disc > 0 ? disc : 0);
	double q = qb + (qb < 0 ? -sq : sq);	/* the root formula without cancellation */
	double r1 = q != 0 ? q / qa : 0, r2 = q != 0 ? qc / q : 0;
	*lo = fmin(r1, r2);
	*hi = fmax(r1, r2);
	return true;
}

void compare_delta(const struct lk_stats *ref, const struct lk_stats *cur, struct lk_delta *out)
{
	compare_delta_level(ref, cur, 0.05, out);
}

void compare_delta_level(const struct lk_stats *ref, const struct lk_stats *cur, double alpha, struct lk_delta *out)
{
	memset(out, 0, sizeof(*out));
	out->ci_low = out->ci_high = NAN;
	double va = ref->n ? ref->sd * ref->sd / (double)ref->n : 0;
	double vb = cur->n ? cur->sd * cur->sd / (double)cur->n : 0;
	if (ref->mean == 0) {
		out->valid = cur->mean == 0;
		/* both exactly zero every run: no change, and certainly so */
		if (out->valid && va == 0 && vb == 0) {
			out->bounded = true;
			out->ci_low = out->ci_high = 0;
		}
		return;
	}
	out->valid = true;
	/* percent = s (rho - 1) * 100, s the sign of the reference mean */
	double s = ref->mean > 0 ? 1 : -1, rho = cur->mean / ref->mean;
	out->pct = (cur->mean - ref->mean) / fabs(ref->mean) * 100;
	out->bounded = true;
	out->ci_low = out->ci_high = out->pct;
	if (va > 0 || vb > 0) {
		double lo, hi, t = t_crit(fieller_df(va, ref->n, vb, cur->n, rho), alpha);
		if (!fieller(ref->mean, va, cur->mean, vb, t, &lo, &hi)) {
			out->bounded = false;	/* never significant */
			out->ci_low = out->ci_high = NAN;
			return;
		}
		/* Samples that cannot be negative have a ratio that cannot be either. */
		if (ref->min >= 0 && cur->min >= 0 && lo < 0)
			lo = 0;
		out->ci_low = fmin(s * (lo - 1), s * (hi - 1)) * 100;
		out->ci_high = fmax(s * (lo - 1), s * (hi - 1)) * 100;
	}
	if (out->ci_low > DELTA_THRESHOLD_PCT)
		out->verdict = DELTA_WORSE;
	else if (out->ci_high < -DELTA_THRESHOLD_PCT)
		out->verdict = DELTA_BETTER;
}
