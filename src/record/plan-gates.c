/*
 * record/plan-gates.c: every --gate mapped to its column, and a warning where a
 * gate may cry wolf: a timing measurement (it moves with the machine's load)
 * or a counter that calibration has not validated on this machine.
 */
#include "base/error.h"
#include "base/util.h"
#include "machine/catalog.h"
#include "record/plan.h"
#include "record/record.h"

#include <stdlib.h>
#include <string.h>

static bool is_timing(const struct record_col *c)
{
	return c->unit && !strcmp(c->unit, "ns");
}

/* Map every gate to its column and say when a gate may cry wolf. */
int plan_gates(struct record *rec)
{
	if (rec->ngates && rec->ncmds < 2 && !rec->o.baseline) {
		error("--gate needs something to compare against");
		fix("give a second command (the first is the reference) or --baseline NAME");
		return EXIT_USAGE;
	}
	for (size_t g = 0; g < rec->ngates; g++) {
		struct record_gate *gt = &rec->gates[g];
		const struct lk_pmu *bpmu = rec->cat ? catalog_pmu(rec->cat) : NULL;
		const struct lk_event *ev = pmu_find(&rec->rpmu, gt->name);
		bool rusage = ev != NULL;
		if (!ev && bpmu)
			ev = pmu_find(bpmu, gt->name);
		size_t c;
		for (c = 0; c < rec->ncols && rec->cols[c].ev != ev; c++)
			;
		if (c == rec->ncols) {	/* explicit events are never dropped; cannot happen */
			error("gate '%s': '%s' is not measured", gt->spec, gt->name);
			return EXIT_COUNTERS;
		}
		gt->col = c;
		const char *label = rec->cols[c].label;
		if (is_timing(&rec->cols[c])) {
			warning("gate '%s': %s is a timing measurement; it moves with the load on the machine, so on a "
				"shared runner this gate may cry wolf (gate on instruction counts, report time)",
				gt->spec, label);
			continue;
		}
		if (rusage && !rec->rcat) {
			char err[512];
			struct catalog_opts copts = { .db_path = rec->o.db };
			if (catalog_open(&rec->rcat, backend_rusage(), &copts, err, sizeof(err)) < 0)
				rec->rcat = NULL;
		}
		const char *v = catalog_verdict(rusage ? rec->rcat : rec->cat, ev);
		if (v && !strcmp(v, "validated"))
			continue;
		/* A simulator's count (valgrind's Ir) means what the simulator defines, on any machine: no
		   counter can be wired wrong, so no calibration is needed to trust it (doc/ci.md).  A stored
		   verdict other than validated still warns. */
		if (!v && !rusage && rec->be && rec->be->deterministic)
			continue;
		char *why = v ? xasprintf("'%s' by its latest calibration", v) : xstrdup("not validated by calibration");
		warning("gate '%s': %s is %s on this machine, so the counter is not known to count what its name says "
			"and this gate may cry wolf", gt->spec, label, why);
		free(why);
		if (!v)
			tip("validate it with 'lauka calibrate --backend %s'",
			    rusage || !rec->be ? "rusage" : rec->be->name);
	}
	return 0;
}
