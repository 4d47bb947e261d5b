/*
 * record/explain.h: `record --explain` inside the record pipeline: the
 * calibration it reads (this machine and backend, from the database), the
 * events it adds to the measured set, each command's diagnosis as text and
 * as the JSON "diagnosis" object, and the function list of valgrind runs
 * (also shown for a failed gate).  The rules themselves are pure, in
 * stats/diagnose.h; where the work goes comes from backend/callgrind.h.
 * doc/explain.md is the user's account of both.
 */
#ifndef LAUKA_EXPLAIN_H
#define LAUKA_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "backend/backend.h"
#include "backend/callgrind.h"
#include "machine/catalog.h"
#include "stats/diagnose.h"

#define EXPLAIN_TOP 10		/* functions listed by self Ir */
#define EXPLAIN_TOP_DELTA 5	/* functions listed by change against the reference */

struct explain {
	bool valgrind, guided;
	struct diag_event *ev;			/* the stored calibration, one per event (names owned) */
	size_t nev;
	const struct diag_event *role[DIAG_ROLES];	/* chosen, NULL when none qualifies */
	const struct lk_event *cat_ev[DIAG_ROLES];	/* the same in the backend's catalogue: measured */
	struct diag_costs costs;
	char *missing;				/* what cannot be explained and why, or NULL */
};

/*
 * Plan: the calibration of (catalogue, backend, machine), the events, the
 * costs.  Prints the error and returns the exit code (1 without a
 * calibration, with its fix: line; 1 for the rusage backend), or 0.
 */
int explain_plan(struct explain *x, const struct lk_backend *be, struct catalog *cat, bool guided);
void explain_release(struct explain *x);

/* What one command gets: per-run counts of the roles (NULL when not measured). */
struct explain_cmd {
	const double *runs[DIAG_ROLES];	/* [run] counts of work, memory, branch, cycles */
	size_t n;
	struct diag_reading rd;
	bool has_cause;
	enum diag_cause cause;
	struct cg_table *funcs;		/* valgrind: the last measured run's functions (function+object), or NULL */
};

/* The reading from the command's runs (fills c->rd). */
void explain_read(const struct explain *x, struct explain_cmd *c);
/* The cause of c's delta against ref (the first command, or the baseline's samples). */
void explain_cause(const struct explain_cmd *ref, struct explain_cmd *c);
/* The diagnosis block under a command's table (ref: the first command, for function deltas; may be NULL),
 * its lines fitted to width columns as the table is (0: the full lines, for a pipe or a file). */
void explain_print(FILE *f, size_t width, const struct explain *x, const struct explain_cmd *c,
		   const struct cg_table *ref);
/* The function list alone (a failed gate without --explain). */
void explain_print_functions(FILE *f, size_t width, const struct cg_table *funcs, const struct cg_table *ref);
/* The JSON "diagnosis" object (malloc'd). */
char *explain_json(const struct explain *x, const struct explain_cmd *c, const struct cg_table *ref);
/* Take the backend's functions of the run read last into *t (replacing what was there). */
void explain_take_functions(const struct backend_inst *bi, struct cg_table **t);
void explain_free_functions(struct cg_table **t);

#endif
