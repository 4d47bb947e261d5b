/*
 * output/report.h: turning statistics into text: human units with three
 * significant digits, and the per-command table of `lauka record`:
 *
 *   Benchmark 2 (9 runs): ./build-new -O2
 *
 *   measurement      mean ± σ          min … max          outliers   delta
 *   wall_time        130ms ± 8.30ms    125ms … 141ms      0 (0%)     ⚡ -78.0% ± 1.1%
 *
 * On a narrow terminal (report_opts.width) the delta goes under its row:
 *
 *   measurement   mean ± σ         min … max       outliers
 *                 delta
 *   wall_time     130ms ± 8.30ms   125ms … 141ms   0 (0%)
 *                 ⚡ -78.0% ± 1.1%
 *
 * The formatting functions are pure (buffers in, no I/O); report_block()
 * writes to the FILE it is given.
 */
#ifndef LAUKA_REPORT_H
#define LAUKA_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stats/compare.h"
#include "stats/stats.h"

/* "591ms", "137MB", "2.51G", "231": 3 significant digits, SI (x1000) prefixes. unit: "ns", "bytes" or NULL. */
void report_fmt_value(double v, const char *unit, char *buf, size_t len);
/*
 * "+12.3% ± 1.1%" when the 95% interval is symmetric at the printed
 * precision, "+300.0% [+180.0%, +460.0%]" when not, "+12.3% [unbounded]"
 * when it has no bounds; "n/a" without a relative change.  Every number
 * has its own ASCII sign ("-0.0%").  A significant delta's deciding bound
 * gets the decimals it needs to print beyond +-1% (see doc/statistics.md).
 */
void report_fmt_delta(const struct lk_delta *d, char *buf, size_t len);
/*
 * The exact change of a count (report_row.has_diff), printed beside the percentage, which rounds a
 * change of a few instructions in millions to "+0.0%": "(+2)", "(-1234567)", "(0)" for none.
 */
void report_fmt_diff(double diff, char *buf, size_t len);
/* Columns a string takes on a terminal (UTF-8 aware, ANSI escapes skipped, emoji count 2): text_width. */
size_t report_width(const char *s);

/*
 * One line of text for a terminal of width columns (0: no limit: the line as it is, for a pipe or a
 * file): broken at spaces, each continuation line starting with indent spaces; a word wider than
 * the room stays whole.  Returns an allocated string without the final newline.
 */
char *report_wrap(const char *line, size_t width, size_t indent);	/* = text_wrap (base/text.h) */

struct report_row {
	const char *name;
	const char *unit;
	struct lk_stats st;
	bool has_delta;		/* a later command: show the delta column */
	struct lk_delta delta;
	bool not_counted;	/* the event never ran on a counter */
	bool exact;		/* deterministic counts (valgrind's events): one run is the count, its sigma 0 */
	bool point_only;	/* a side has one run of a varying measurement: the change, no interval, no glyph */
	bool has_diff;		/* exact counts, each side the same in all its runs: diff is the change in counts */
	double diff;		/* this command's count minus the reference's (when has_diff) */
	bool scaled;		/* some runs were extrapolated (multiplexing, sampling) */
	double coverage;	/* lowest counted fraction over the runs, when scaled */
};

struct report_opts {
	bool color;
	size_t name_width;	/* width of the measurement column (0: fit the rows) */
	const char *title;	/* instead of "Benchmark N" (NULL: that) */
	const char *footer;	/* a line under the table (NULL: none) */
	/*
	 * The terminal's columns, to fit the table in (0: no limit: the full form, as for a pipe or
	 * a file).  Too wide, the columns first lose their minimum widths and one space of their
	 * gaps; still too wide, each row's delta (and note) goes on a line of its own under it.
	 */
	size_t width;
};

void report_block(FILE *f, const struct report_opts *o, unsigned index, size_t runs,
		  const char *cmd, const struct report_row *rows, size_t n);

#endif
