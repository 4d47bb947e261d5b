/*
 * record/order.h: the order in which record runs its commands.  Pure: no I/O.
 *
 * Sequential (the default, the lauka contract): every warm-up and run of
 * command 1, then of command 2, ...  Interleaved (tak's rounds): one run of
 * each command per round, the order shuffled afresh every round so that drift
 * (load, thermal throttling, caches filling) spreads over all commands and no
 * command always runs first or always follows the same neighbour.  A command
 * with fewer runs than the others takes part in evenly spaced rounds.
 * Interleaved warm-up rounds come before the measured rounds.
 *
 * The shuffle is Fisher-Yates driven by splitmix64, so a seed gives the same
 * order on every machine and every libc.
 */
#ifndef LAUKA_RECORD_ORDER_H
#define LAUKA_RECORD_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct order_slot {
	size_t cmd;		/* command index */
	bool warmup;		/* a warm-up run (not measured) */
	unsigned long k;	/* 0-based index among the command's warm-ups or measured runs */
};

/*
 * All runs of n commands: warmups[i] warm-ups and runs[i] measured runs of
 * command i.  Returns the number of slots (malloc'd array in *out).
 */
size_t order_plan(const unsigned long *warmups, const unsigned long *runs, size_t n, bool interleave,
		  uint64_t seed, struct order_slot **out);

/* The rounds (0-based, ascending) in which a command with r of R runs takes part: floor((j + 1/2) R / r). */
size_t order_round_of(unsigned long j, unsigned long r, unsigned long rounds);

/*
 * The automatic number of runs of a sampled backend, after the first `done`
 * runs took `measured_ns` of the command's wall time and `elapsed_ns` of
 * real time in all (lauka's own cost per run included: xctrace adds about
 * 9 s): enough for `want_runs` runs and `want_ns` of measurement
 * (hyperfine's rule, at least 10 runs and 3 s), but no more runs than fit in
 * `cap_ns` of real time, never fewer than done or min, never more than max.
 */
unsigned long order_auto_runs(unsigned long done, double measured_ns, double elapsed_ns, unsigned long want_runs,
			      double want_ns, double cap_ns, unsigned long min, unsigned long max);

/* splitmix64: the next 64-bit value of the generator state *s. */
uint64_t order_next(uint64_t *s);

#endif
