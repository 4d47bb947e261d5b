/*
 * base/interrupt.h: the first SIGINT/SIGTERM/SIGHUP lauka received, for
 * code below spawn/ that waits on a tool or reads a long file (xctrace
 * export and its parsing) and must stop within a second when the user asks.
 * The handler is the runner's (spawn/runner.c); it sets this with
 * runner_interrupted.  0 when none.
 */
#ifndef LAUKA_INTERRUPT_H
#define LAUKA_INTERRUPT_H

#include <signal.h>

extern volatile sig_atomic_t lk_interrupted;

#endif
