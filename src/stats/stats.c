/* stats/stats.c: mean, standard deviation, quartiles and Tukey outliers. */
#include "stats/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double stats_quantile(const double *sorted, size_t n, double p)
{
	if (!n)
		return 0;
	double h = (double)(n - 1) * p;
	size_t lo = (size_t)floor(h);
	if (lo + 1 >= n)
		return sorted[n - 1];
	return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

void stats_compute(const double *v, size_t n, struct lk_stats *out)
{
	memset(out, 0, sizeof(*out));
	double *s = xmalloc((n ? n : 1) * sizeof(*s));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			s[k++] = v[i];
	out->n = k;
	if (!k) {
		free(s);
		return;
	}
	/* Welford's update, in run order: numerically stable for large counts with small spread. */
	double mean = 0, m2 = 0;
	for (size_t i = 0; i < k; i++) {
		double d = s[i] - mean;
		mean += d / (double)(i + 1);
		m2 += d * (s[i] - mean);
	}
	qsort(s, k, sizeof(*s), cmp_double);
	out->mean = mean;
	out->sd = k > 1 ? sqrt(m2 / (double)(k - 1)) : 0;
	out->min = s[0];
	out->max = s[k - 1];
	out->q1 = stats_quantile(s, k, 0.25);
	out->median = stats_quantile(s, k, 0.5);
	out->q3 = stats_quantile(s, k, 0.75);
	double iqr = out->q3 - out->q1;
	double lo = out->q1 - 1.5 * iqr, hi = out->q3 + 1.5 * iqr;
	for (size_t i = 0; i < k; i++)
		out->outliers += s[i] < lo || s[i] > hi;
	free(s);
}
