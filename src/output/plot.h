/*
 * output/plot.h: the two pictures lauka draws, as plain standalone SVG (no script,
 * no external fonts: the generic sans-serif and monospace families), written
 * to a FILE* the caller opened.  Pure apart from that sink: the callers
 * (cmd/calibrate.c, cmd/counters.c, cmd/record.c) gather the numbers.
 *
 * Calibration (the paper's Figure 12): one row per event, the response per
 * unit of work on every probe as a marker on a log axis with a gridline per
 * factor of ten; probes told apart by colour and shape, with a legend.
 * Responses that are zero, negative (noise), or too small for the axis are
 * drawn in a separate "0" column left of the axis, never at log(0); the
 * silent threshold is shaded; events that were not measured (unsupported,
 * unschedulable) say so in their row.  Each row ends with its verdict and
 * response profile.
 *
 * Deltas (`record --plot`): one row per measurement, the change of every
 * later command against the first, in percent, with its 95% interval
 * (ci_low .. ci_high, which need not be symmetric), one colour per command;
 * the +-1% band that no change counts inside is shaded.
 */
#ifndef LAUKA_PLOT_H
#define LAUKA_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stats/compare.h"

#define PLOT_MAX_PROBES 8

struct plot_cal_event {
	const char *name, *verdict, *profile;
	bool measured;				/* false: no responses (unsupported, unschedulable) */
	double response[PLOT_MAX_PROBES];	/* per unit of work; NAN = none */
};

struct plot_cal {
	const char *title;			/* first line, e.g. "valgrind calibration of 'valgrind'" */
	const char *subtitle;			/* second line (machine, date) or NULL */
	const char *const *probes;		/* names, nprobes <= PLOT_MAX_PROBES */
	size_t nprobes;
	const struct plot_cal_event *events;
	size_t nevents;
	double silent_below;			/* responses below this count as nothing; 0 = no band */
};

/* Write the calibration plot; 0, or -1 when the stream reports an error. */
int plot_calibration_svg(FILE *out, const struct plot_cal *c);

struct plot_deltas {
	const char *title;
	const char *const *commands;		/* commands[0] is the reference */
	size_t ncmds;				/* >= 2 */
	const char *const *measurements;
	size_t nmeas;
	const struct lk_delta *d;		/* d[m * (ncmds - 1) + (c - 1)] for command c >= 1 */
};

/* Write the delta plot; 0, or -1 when the stream reports an error. */
int plot_deltas_svg(FILE *out, const struct plot_deltas *p);

/* --- pure helpers, exposed for the tests --- */

/*
 * The decades [*lo, *hi] (powers of ten) a log axis needs for the positive,
 * finite values of v: floor(log10(min)) .. ceil(log10(max)), at least one
 * decade wide and at most `maxspan` decades (the low end is raised; values
 * below it go to the zero column).  No positive value: -1 .. 1.
 */
void plot_log_decades(const double *v, size_t n, int maxspan, int *lo, int *hi);

/* Label of 10^d: "1", "10", "1000", "0.01", "1e5", "1e-4". */
void plot_decade_label(int d, char *buf, size_t len);

/* A round tick step (1, 2 or 5 × 10^k) giving about `ticks` ticks over span. */
double plot_nice_step(double span, int ticks);

/* Write s with &, <, >, " and ' escaped for XML text and attributes. */
void plot_xml_escape(FILE *out, const char *s);

#endif
