/*
 * stats/stats.h: summary statistics of one measurement over the runs of one
 * command.  Pure: numbers in, numbers out; no I/O.
 *
 *   mean      arithmetic mean
 *   sd        sample standard deviation (n - 1), 0 for n < 2
 *   q1, q3    quartiles by linear interpolation between order statistics
 *             (the "type 7" definition most tools use)
 *   outliers  samples outside Tukey's fences [q1 - 1.5 IQR, q3 + 1.5 IQR];
 *             counted, never removed
 *
 * A NaN sample is a run in which the measurement was not counted (a
 * sampled or multiplexed counter that never ran): it is left out, and n
 * says how many samples the statistics are over.
 */
#ifndef LAUKA_STATS_H
#define LAUKA_STATS_H

#include <stddef.h>

struct lk_stats {
	size_t n;		/* samples counted (NaN ones left out) */
	double mean, sd, min, max;
	double q1, median, q3;
	size_t outliers;
};

/* Summarise the numbers among v[0..n); v is not modified. */
void stats_compute(const double *v, size_t n, struct lk_stats *out);

/* Quantile p in [0,1] of an ascending array, linear interpolation. */
double stats_quantile(const double *sorted, size_t n, double p);

#endif
