/*
 * stats/gate.h: regression gates, `--gate NAME=LIMIT`.  Pure: no I/O.
 *
 * A gate fails when the measurement's change against its reference (the
 * baseline, or the first command) is beyond LIMIT percent and significant:
 * the whole 95% confidence interval of the change lies above the limit.  An
 * unbounded interval (a reference mean not clearly non-zero) is never
 * significant.  Deterministic counts (sigma = 0 on both sides, e.g.
 * valgrind's) need no interval: the plain change is compared.  Higher is
 * worse for every measurement, as in the delta column.
 */
#ifndef LAUKA_RECORD_GATE_H
#define LAUKA_RECORD_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/compare.h"
#include "stats/stats.h"

#define GATE_MAX_PCT 1e6

/*
 * "Ir=1%", "wall_time = 10 %": the name (malloc'd) and the limit in percent
 * (0 <= limit <= GATE_MAX_PCT).  0, or -1 with a reason in err.
 */
int gate_parse(const char *spec, char **name, double *limit, char *err, size_t len);

enum gate_basis {
	GATE_EXACT,		/* sigma = 0 on both sides: the plain change */
	GATE_INTERVAL,		/* the 95% confidence interval of the change */
	GATE_UNBOUNDED,		/* no usable interval: never significant */
};

struct gate_eval {
	enum gate_basis basis;
	double change;		/* percent (+inf when the reference is 0 and the value is not) */
	double ci_low, ci_high;	/* percent, for GATE_INTERVAL */
	bool failed;
};

void gate_evaluate(const struct lk_stats *ref, const struct lk_stats *cur, const struct lk_delta *d,
		   double limit, struct gate_eval *out);

#endif
