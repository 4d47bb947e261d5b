/*
 * backend/xctrace/xctrace.h: the xctrace backend: configurable counters recorded by
 * Instruments' command line (`xcrun xctrace`), without root, on macOS with
 * a full Xcode (reference/xctrace.md).
 *
 * Each measured run is one recording: the runner executes
 *   /bin/sh -c 'exec ... >LOG 2>&1' xctrace record --template T --output DIR/run.trace
 *       --no-prompt --launch -- cmd...
 * (the shell only sends xctrace's own messages to a log lauka reads), then
 * read() validates the bundle with `export --toc`, takes the command's exit
 * status from the TOC (runner: exit_status op), exports the counters table
 * and sums it.  A watchdog process started at attach() stops a recording that
 * outlives $LAUKA_XCTRACE_TIMEOUT seconds: SIGINT (xctrace then saves), and
 * SIGKILL $LAUKA_XCTRACE_GRACE seconds later.  The bundle, the exports and
 * the instruments*.ktrace files xctrace leaves in the user's temporary
 * directory are deleted after every run, whatever happened.
 *
 * Modes ($LAUKA_XCTRACE_MODE, set by `record --guided` and `calibrate`):
 *   manual (default)  the events named with -m, written into a template
 *                     (backend/xctrace/template.h); values labelled by the TOC;
 *   guided            the default "CPU Counters" template; the raw table's
 *                     unlabelled slots (slot0, slot1, ...), aggregated per
 *                     thread (backend/xctrace/agg.h) and named by calibration.
 *
 * Environment:
 *   LAUKA_XCTRACE           executable used instead of `xcrun xctrace` (tests: the stand-in);
 *                           with it the backend is reachable by name off macOS
 *   LAUKA_KPEP_FILE         kpep plist to use instead of the running CPU's
 *   LAUKA_XCTRACE_TEMPLATE  CPU Counters template to patch (default: Xcode's own)
 *   LAUKA_XCTRACE_TIMEOUT   seconds before the watchdog stops a recording (default 1800)
 *   LAUKA_XCTRACE_GRACE     seconds between its SIGINT and SIGKILL (default 15); also
 *                           after lauka's first Ctrl-C (the interrupt_grace_ms op, C10)
 *   LAUKA_XCTRACE_KEEP      copy each run's TOC and table export here (fixtures, C9)
 *   LAUKA_XCTRACE_TMPDIR    where xctrace leaves instruments*.ktrace (default:
 *                           DARWIN_USER_TEMP_DIR on macOS, none elsewhere)
 */
#ifndef LAUKA_BACKEND_XCTRACE_H
#define LAUKA_BACKEND_XCTRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/backend.h"

/* Slots the guided catalogue offers (the paper's export has 12). */
#define XCTRACE_GUIDED_SLOTS 12
#define XCTRACE_MIN_VERSION 13

extern const struct lk_backend backend_xctrace;

/*
 * How a finished `xctrace record` went: 0 when it exited 0, or 2 with every
 * [Error] line of its output the benign "Fatal logging system error" (the
 * unified log is unreadable without Full Disk Access; the trace is fine);
 * otherwise -LK_EIO with xctrace's own message in why.  Pure.
 */
int xctrace_record_outcome(int exit_code, int term_signal, const char *log, char *why, size_t len);
/* "xctrace version 15.0 (15A240d)" -> 15; -1 when there is no version. */
int xctrace_parse_version(const char *out, char *ver, size_t len);
/*
 * A1/C6 (audit 4): the developer directory behind a path `xcrun --find
 * xctrace` printed ("DEV/usr/bin/xctrace", trailing white space ignored):
 * 0 with DEV in out, -1 when the path does not end so.  Pure.
 */
int xctrace_developer_dir_of(const char *xctrace_path, char *out, size_t len);
/*
 * What an Xcode set-up problem looks like from xcrun's output and the
 * selected developer directory: the licence not accepted, components a new
 * Xcode has not installed yet (xcodebuild -runFirstLaunch), or the Command
 * Line Tools selected (no Instruments; `suggest` is a full Xcode's developer
 * directory to select, "" or NULL when none is installed: install one).  true with a message and a second line
 * "fix: ..." in why; false when neither.  Pure.
 */
bool xctrace_xcode_problem(const char *output, const char *devdir, const char *suggest, char *why, size_t len);
/* true in guided mode ($LAUKA_XCTRACE_MODE=guided) */
bool xctrace_guided(void);
/* The xctrace version string the last open() found ("" before). */
const char *xctrace_version_string(void);
/* The counting mode of the last guided recording (TOC), or "". */
const char *xctrace_counting_mode(void);
/* The last guided recording: values per row, slots after folding halves, coverage, new baselines. */
void xctrace_last_guided(size_t *nvalues, size_t *nslots, double *coverage, size_t *baselines);

#endif
