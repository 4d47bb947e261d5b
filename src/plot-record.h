/*
 * plot-record.h: `lauka record --plot FILE.svg`: the table's deltas at a
 * glance (plot.h draws them).  Rows as report.c prints them: rows[c][m] is
 * measurement m of command c; commands whose runs did not finish may have
 * rows == NULL and are drawn as "n/a".
 */
#ifndef LAUKA_PLOT_RECORD_H
#define LAUKA_PLOT_RECORD_H

#include <stddef.h>

#include "report.h"

/* Write the plot to path; 0, or -1 with err filled. */
int plot_record_write(const char *path, const char *backend, char *const *cmds, size_t ncmds,
		      struct report_row *const *rows, size_t nmeas, char *err, size_t len);

#endif
