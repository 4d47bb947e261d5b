/*
 * base/progress.h: the one-line progress indicator of long work (record's runs,
 * calibrate's passes), and the terminal checks colour shares with it.
 *
 * Progress goes to stderr only when stderr is a terminal that can take
 * carriage returns and erase-line sequences: never to a pipe, a file, or a
 * TERM=dumb terminal (Emacs shells, CI log viewers), whatever NO_COLOR says.
 * The ETA is the mean time per finished unit times the units left, shown once
 * one unit has finished (a guess from nothing helps nobody).
 */
#ifndef LAUKA_PROGRESS_H
#define LAUKA_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* fd is a terminal that understands \r and ESC[K (TERM is not "dumb"). */
bool term_capable(int fd);
/* Colour on `auto`: fd is a capable terminal and NO_COLOR is unset or empty. */
bool term_color_auto(int fd);
/*
 * The columns of the terminal on fd: its window size (TIOCGWINSZ), else $COLUMNS, else 80;
 * 0 when fd is not a terminal (a pipe or a file takes any width).
 */
size_t term_columns(int fd);

struct lk_progress {
	bool on;		/* drawing at all (stderr is a capable terminal, and the caller allows it) */
	bool drawn;		/* a line is on the screen and must be erased */
	uint64_t t0_ns;		/* start of the timed units */
	double done, total;	/* units finished and expected, for the ETA */
	char text[512];		/* the caller's text of the current unit, for redraws */
	uint64_t shown_ns;	/* when that unit began (progress_show) */
	double eta_s;		/* the ETA then, in seconds; < 0: none yet */
};

/* Start; `allowed` false (e.g. --show-output) keeps it silent. */
void progress_init(struct lk_progress *p, bool allowed);
/* Restart the ETA clock for `total` units of roughly equal cost. */
void progress_units(struct lk_progress *p, double total);
/* One unit finished. */
void progress_tick(struct lk_progress *p);
/*
 * A unit begins: draw the caller's text, then the ETA when one is known.  The
 * line is cut to the terminal's width (a wrapped line cannot be redrawn).
 */
void progress_show(struct lk_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Redraw during a long unit: the same text, how long the unit has run (from
 * 1 s on), and the ETA counting down.
 */
void progress_redraw(struct lk_progress *p);
/* Erase the line (before printing anything else to the terminal). */
void progress_clear(struct lk_progress *p);

/*
 * Pure: "ETA 1m05s" style text for `done` of `total` units after `elapsed_s`;
 * empty when nothing has finished yet or everything has.
 */
void progress_fmt_eta(double elapsed_s, double done, double total, char *buf, size_t len);

#endif
