/*
 * output/plot-out.h: the plots as files: the calibration plot of a catalogue from
 * what the database holds (the latest verdict of each event with its
 * per-probe responses), so `lauka calibrate --plot` and `lauka counters
 * --details --plot` draw the same picture from the same stored numbers; and
 * `lauka record --plot`, the table's deltas at a glance.  output/plot.h draws.
 */
#ifndef LAUKA_PLOT_OUT_H
#define LAUKA_PLOT_OUT_H

#include <stddef.h>

#include "output/report.h"

struct catalog;

/*
 * Write the plot of the latest stored calibration of cat's catalogue by
 * backend `backend` to the file `path`.  0; -LK_ENOENT when nothing is
 * stored; -LK_EDB, -LK_EIO with err filled.
 */
int plot_calib_write(struct catalog *cat, const char *backend, const char *path, char *err, size_t len);

/*
 * record's rows as output/report.c prints them: rows[c][m] is measurement m of
 * command c (ncmds >= 2); rows of commands that did not finish have no
 * delta and are drawn as "n/a".  0, or -1 with err filled.
 */
int plot_record_write(const char *path, const char *backend, char *const *cmds, size_t ncmds,
		      struct report_row *const *rows, size_t nmeas, char *err, size_t len);

/*
 * Can `path` be written (an existing writable file, or a new one in a
 * writable directory)?  Checked before long work starts, without touching
 * the file.  0, or -LK_EIO with err filled.
 */
int plot_path_check(const char *path, char *err, size_t len);

#endif
