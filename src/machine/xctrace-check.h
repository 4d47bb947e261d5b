/*
 * machine/xctrace-check.h: the xctrace self-check (audit 4, A2/C7).  Manual
 * xctrace counts are reported exact, yet nothing independent checks them,
 * and one public tool states that xctrace drops the tail of the counter
 * stream when its target exits first (lauka's always does; unverified).  The
 * check records lauka-probe alu N (2 instructions per iteration) in manual
 * mode with FIXED_INSTRUCTIONS and compares the export's total with 2N: within
 * 2% (plus a start-up allowance above) it passes.
 *
 * `lauka doctor` and `lauka calibrate --backend xctrace` run it; the result
 * is kept in a small file beside lauka's database (xctrace-check), and
 * `record --backend xctrace` warns under each command's block while the last
 * check failed, with its reason.
 */
#ifndef LAUKA_MACHINE_XCTRACE_CHECK_H
#define LAUKA_MACHINE_XCTRACE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XCT_CHECK_ITERATIONS 100000000ull	/* alu iterations: 2e8 instructions */
#define XCT_CHECK_TOLERANCE 0.02
#define XCT_CHECK_STARTUP 5000000ull		/* instructions of exec and start-up allowed above 2N */
/*
 * The self-check's own watchdog (s; $LAUKA_XCTRACE_CHECK_TIMEOUT overrides):
 * the probe runs for under a second, but xctrace's first recording after an
 * Xcode install or update loads Instruments' packages first, which can take
 * tens of seconds (inference: not measured), so the limit is two minutes,
 * not the 1800 s a recording gets.  The one known stall (an authorisation
 * prompt) is caught before recording, by DevToolsSecurity -status.
 */
#define XCT_CHECK_TIMEOUT 120u

struct xct_check {
	uint64_t counted, expected;	/* FIXED_INSTRUCTIONS from the export; 2N */
	double ratio;			/* counted / expected */
	bool ok;
	char why[256];			/* when not ok: what was wrong */
};

/* Pure: does counted pass for alu with `iterations` iterations?  Fills ratio, ok and why. */
void xct_check_judge(struct xct_check *c, uint64_t counted, uint64_t iterations);
/*
 * Run the check (a real recording, seconds) and keep its result.  Returns 0
 * when it ran (c->ok says how it went), or -LK_E* with err when it could not
 * run (no xctrace, no lauka-probe, developer tools access disabled, the
 * recording failed or outlived the watchdog); then the kept result is removed.
 */
int xct_check_run(struct xct_check *c, char *err, size_t len);
/* The watchdog the check runs xctrace with: XCT_CHECK_TIMEOUT or $LAUKA_XCTRACE_CHECK_TIMEOUT. */
unsigned xct_check_timeout(void);
/* The kept result: 1 the last check failed (its reason in why), 0 it passed, -1 none kept. */
int xct_check_last(char *why, size_t len);
/* calibrate: run the check and say how it went (a warning when it failed or could not run). */
void xct_check_announce(void);
/* record: after a command's block measured by `backend`, a warning while the last check failed. */
void xct_check_record_note(const char *backend);

#endif
