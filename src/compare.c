/* compare.c: baseline-relative deltas with a Welch 95% confidence interval. */
#include "compare.h"

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

double t_crit95(double df)
{
	if (!(df > 0))
		return NAN;
	if (df > 1e7)
		return 1.959963984540054;
	double lo = 0, hi = 1000;	/* t(0.975, 1) = 12.7; ample */
	for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
		double mid = (lo + hi) / 2;
		if (t_two_tail(mid, df) > 0.05)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void compare_delta(const struct lk_stats *ref, const struct lk_stats *cur, struct lk_delta *out)
{
	memset(out, 0, sizeof(*out));
	if (ref->mean == 0) {
		out->valid = cur->mean == 0;
		return;
	}
	out->valid = true;
	out->pct = (cur->mean - ref->mean) / fabs(ref->mean) * 100;
	double v1 = ref->n ? ref->sd * ref->sd / (double)ref->n : 0;
	double v2 = cur->n ? cur->sd * cur->sd / (double)cur->n : 0;
	double se = sqrt(v1 + v2);
	if (se > 0 && ref->n > 1 && cur->n > 1) {
		double num = (v1 + v2) * (v1 + v2);
		double den = v1 * v1 / (double)(ref->n - 1) + v2 * v2 / (double)(cur->n - 1);
		double df = den > 0 ? num / den : (double)(ref->n + cur->n - 2);
		out->half = t_crit95(df) * se / fabs(ref->mean) * 100;
	}
	out->bounded = true;
	out->ci_low = out->pct - out->half;
	out->ci_high = out->pct + out->half;
	if (out->ci_low > DELTA_THRESHOLD_PCT)
		out->verdict = DELTA_WORSE;
	else if (out->ci_high < -DELTA_THRESHOLD_PCT)
		out->verdict = DELTA_BETTER;
}
