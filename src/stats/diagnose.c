/*
 * stats/diagnose.c: the rules of `record --explain` (see diagnose.h).
 */
#include "stats/diagnose.h"
#include "stats/compare.h"
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const diag_role_names[DIAG_ROLES] = { "work", "memory", "branch", "cycles", "l1-miss", "i1-miss",
						 "ll-i-miss", "l1-write-miss", "ll-write-miss" };
const char *const diag_verdict_names[4] = { "neither", "memory-bound", "branch-bound", "memory- and branch-bound" };
const char *const diag_cause_names[5] = { "none", "work", "memory", "branch", "mixed" };

static bool validated(const struct diag_event *e)
{
	return e->verdict && !strcmp(e->verdict, "validated");
}

static bool profile_is(const struct diag_event *e, const char *p)
{
	return e->profile && !strcmp(e->profile, p);
}

static bool is_cycles_name(const char *name)
{
	static const char *const names[] = { "cycles", "cpu-cycles", "fixed_cycles", "core_active_cycle" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(name, names[i]))
			return true;
	return false;
}

static int find_name(const struct diag_event *ev, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ev[i].name, name) && validated(&ev[i]))
			return (int)i;
	return -1;
}

/* Is candidate a better pick than the best so far by key (higher wins; ties: the lower name)? */
static bool better(double key, const char *name, double best_key, const char *best_name)
{
	if (!best_name)
		return true;
	if (key != best_key)
		return key > best_key;
	return strcmp(name, best_name) < 0;
}

void diagnose_choose(const struct diag_event *ev, size_t n, bool valgrind, int choice[DIAG_ROLES])
{
	for (int r = 0; r < DIAG_ROLES; r++)
		choice[r] = -1;
	if (valgrind) {
		choice[DIAG_WORK] = find_name(ev, n, "Ir");
		choice[DIAG_MEMORY] = find_name(ev, n, "DLmr");
		choice[DIAG_BRANCH] = find_name(ev, n, "Bcm");
		choice[DIAG_L1MISS] = find_name(ev, n, "D1mr");
		choice[DIAG_D1WMISS] = find_name(ev, n, "D1mw");	/* validated by the store probe */
		choice[DIAG_DLWMISS] = find_name(ev, n, "DLmw");
		/* No probe misses the instruction cache: calibrated is enough (the same simulator as D1mr's). */
		for (size_t i = 0; i < n; i++) {
			if (!strcmp(ev[i].name, "I1mr"))
				choice[DIAG_I1MISS] = (int)i;
			if (!strcmp(ev[i].name, "ILmr"))
				choice[DIAG_ILMISS] = (int)i;
		}
		return;
	}
	double key[DIAG_ROLES] = { 0 };
	for (size_t i = 0; i < n; i++) {
		const struct diag_event *e = &ev[i];
		const char *best;
		if (validated(e) && profile_is(e, "work-like") && isfinite(e->alu) && e->alu > 0) {
			double k = -fabs(e->alu - 2.0);
			best = choice[DIAG_WORK] < 0 ? NULL : ev[choice[DIAG_WORK]].name;
			if (better(k, e->name, key[DIAG_WORK], best))
				choice[DIAG_WORK] = (int)i, key[DIAG_WORK] = k;
		}
		if (validated(e) && profile_is(e, "memory-bound-like") && isfinite(e->chase)) {
			best = choice[DIAG_MEMORY] < 0 ? NULL : ev[choice[DIAG_MEMORY]].name;
			if (better(e->chase, e->name, key[DIAG_MEMORY], best))
				choice[DIAG_MEMORY] = (int)i, key[DIAG_MEMORY] = e->chase;
		}
		if (validated(e) && profile_is(e, "branch-like") && isfinite(e->branch)) {
			best = choice[DIAG_BRANCH] < 0 ? NULL : ev[choice[DIAG_BRANCH]].name;
			if (better(e->branch, e->name, key[DIAG_BRANCH], best))
				choice[DIAG_BRANCH] = (int)i, key[DIAG_BRANCH] = e->branch;
		}
		if (is_cycles_name(e->name) && e->verdict &&
		    (validated(e) || !strcmp(e->verdict, "linear")) && isfinite(e->alu) && e->alu > 0 &&
		    choice[DIAG_CYCLES] < 0)
			choice[DIAG_CYCLES] = (int)i;
	}
}

static double ratio(double a, double b)
{
	return isfinite(a) && isfinite(b) && b > 0 ? a / b : NAN;
}

void diagnose_place(double count, double work, const struct diag_event *ev, const struct diag_event *workev,
		    bool memory, struct diag_rate *out)
{
	out->per_unit = ratio(count, work);
	out->control = ratio(ev->alu, workev->alu);
	out->probe = memory ? ratio(ev->chase, workev->chase) : ratio(ev->branch, workev->branch);
	/* A response below zero is start-up noise around nothing: the control counts nothing. */
	if (isfinite(out->control) && out->control < 0)
		out->control = 0;
	out->fraction = NAN;
	if (isfinite(out->per_unit) && isfinite(out->control) && isfinite(out->probe) && out->probe > out->control)
		out->fraction = (out->per_unit - out->control) / (out->probe - out->control);
}

/* Cycles per event beyond what the probe's work costs at the alu's pace. */
static double cost_on(double cyc, double work, double cpi, double count)
{
	double c = (cyc - cpi * work) / count;
	return isfinite(c) && count > 0 && c > 0 ? c : NAN;
}

void diagnose_costs(const struct diag_event *work, const struct diag_event *mem, const struct diag_event *br,
		    const struct diag_event *cycles, bool valgrind, struct diag_costs *out)
{
	*out = (struct diag_costs){ DIAG_MODEL_NONE, NAN, NAN, NAN, NAN };
	if (valgrind) {
		*out = (struct diag_costs){ DIAG_MODEL_VALGRIND, 1.0, DIAG_VG_MISS_COST, DIAG_VG_MISPREDICT_COST,
					    DIAG_VG_LLHIT_COST };
		return;
	}
	if (!cycles || !work)
		return;
	double cpi = ratio(cycles->alu, work->alu);
	if (!isfinite(cpi))
		return;
	out->cpi = cpi;
	if (mem)
		out->miss = cost_on(cycles->chase, work->chase, cpi, mem->chase);
	if (br)
		out->mispredict = cost_on(cycles->branch, work->branch, cpi, br->branch);
	if (isfinite(out->miss) || isfinite(out->mispredict))
		out->model = DIAG_MODEL_CYCLES;
}

static double clip01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

void diagnose_read(double work, double mem, double br, double cycles, double l1,
		   const struct diag_event *const ev[DIAG_ROLES], const struct diag_costs *costs, struct diag_reading *out)
{
	double m[DIAG_ROLES];
	for (int k = 0; k < DIAG_ROLES; k++)
		m[k] = NAN;
	m[DIAG_WORK] = work, m[DIAG_MEMORY] = mem, m[DIAG_BRANCH] = br, m[DIAG_CYCLES] = cycles, m[DIAG_L1MISS] = l1;
	diagnose_read_all(m, ev, costs, out);
}

/* count when its role was chosen and it was measured, else 0 */
static double term(const double m[DIAG_ROLES], const struct diag_event *const ev[DIAG_ROLES], enum diag_role r)
{
	return ev[r] && isfinite(m[r]) ? m[r] : 0;
}

void diagnose_read_all(const double m_in[DIAG_ROLES], const struct diag_event *const ev[DIAG_ROLES],
		       const struct diag_costs *costs, struct diag_reading *out)
{
	double work = m_in[DIAG_WORK], mem = m_in[DIAG_MEMORY], br = m_in[DIAG_BRANCH], cycles = m_in[DIAG_CYCLES];
	memset(out, 0, sizeof(*out));
	out->mem = out->br = (struct diag_rate){ NAN, NAN, NAN, NAN };
	out->mem_share = out->br_share = out->cycles = NAN;
	if (!ev[DIAG_WORK])
		return;
	if (ev[DIAG_MEMORY])
		diagnose_place(mem, work, ev[DIAG_MEMORY], ev[DIAG_WORK], true, &out->mem);
	if (ev[DIAG_BRANCH])
		diagnose_place(br, work, ev[DIAG_BRANCH], ev[DIAG_WORK], false, &out->br);
	double m = isfinite(mem) && ev[DIAG_MEMORY] ? mem : 0, b = isfinite(br) && ev[DIAG_BRANCH] ? br : 0;
	/*
	 * LL misses: data reads (the memory role), instruction fetches and writes.  L1 misses that hit LL:
	 * the L1 misses of the same kinds less the LL misses (never below 0), when D1mr is there to say so.
	 */
	double ll = m, l1 = 0;
	bool have_l1 = false;
	if (costs->model == DIAG_MODEL_VALGRIND) {
		ll += term(m_in, ev, DIAG_ILMISS) + term(m_in, ev, DIAG_DLWMISS);
		l1 = term(m_in, ev, DIAG_L1MISS) + term(m_in, ev, DIAG_I1MISS) + term(m_in, ev, DIAG_D1WMISS);
		have_l1 = ev[DIAG_L1MISS] && isfinite(m_in[DIAG_L1MISS]);
	}
	double llhits = have_l1 && isfinite(costs->llhit) && l1 > ll ? l1 - ll : 0;
	double mem_cycles = ll * costs->miss + (llhits ? llhits * costs->llhit : 0);
	out->ll_misses = ll;
	out->ll_hits = llhits;
	if (costs->model == DIAG_MODEL_VALGRIND && isfinite(work))
		out->cycles = work * costs->cpi + mem_cycles + b * costs->mispredict;
	else if (costs->model == DIAG_MODEL_CYCLES && isfinite(cycles) && cycles > 0)
		out->cycles = cycles;
	if (isfinite(out->cycles) && out->cycles > 0) {
		out->have_shares = true;
		out->mem_share = isfinite(costs->miss) && ev[DIAG_MEMORY] ? clip01(mem_cycles / out->cycles) : NAN;
		out->br_share = isfinite(costs->mispredict) && ev[DIAG_BRANCH] ?
			clip01(b * costs->mispredict / out->cycles) : NAN;
	}
	double ms, bs, bound;
	if (out->have_shares) {
		ms = out->mem_share, bs = out->br_share, bound = DIAG_BOUND_SHARE;
	} else {
		ms = out->mem.fraction, bs = out->br.fraction, bound = DIAG_BOUND_FRACTION;
	}
	ms = isfinite(ms) ? ms : -1;
	bs = isfinite(bs) ? bs : -1;
	out->verdict = DIAG_NEITHER;
	if (ms >= bound && bs >= bound)
		out->verdict = DIAG_MEMORY_BRANCH_BOUND;
	else if (ms >= bound && ms >= bs)
		out->verdict = DIAG_MEMORY_BOUND;
	else if (bs >= bound)
		out->verdict = DIAG_BRANCH_BOUND;
}

/* Statistics of x[i] (or x[i] / w[i] when w), NaN runs left out. */
static void summarise(const double *x, const double *w, size_t n, struct lk_stats *st)
{
	double *v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		memset(st, 0, sizeof(*st));
		return;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = w ? (w[i] > 0 ? x[i] / w[i] : NAN) : x[i];
	stats_compute(v, n, st);
	free(v);
}

static bool moved(const double *rx, const double *rw, size_t rn, const double *cx, const double *cw, size_t cn)
{
	struct lk_stats a, b;
	struct lk_delta d;
	summarise(rx, rw, rn, &a);
	summarise(cx, cw, cn, &b);
	if (!a.n || !b.n)
		return false;
	compare_delta(&a, &b, &d);
	return d.valid && d.verdict != DELTA_NONE;
}

static bool material(double a, double b)
{
	return isfinite(a) && isfinite(b) && fabs(a - b) >= DIAG_MATERIAL;
}

enum diag_cause diagnose_cause(const struct diag_samples *ref, const struct diag_reading *rr,
			       const struct diag_samples *cur, const struct diag_reading *cr)
{
	bool work = moved(ref->work, NULL, ref->n, cur->work, NULL, cur->n);
	bool shares = rr->have_shares && cr->have_shares;
	bool mem = ref->mem && cur->mem && moved(ref->mem, ref->work, ref->n, cur->mem, cur->work, cur->n) &&
		   (shares ? material(rr->mem_share, cr->mem_share) : material(rr->mem.fraction, cr->mem.fraction));
	bool br = ref->br && cur->br && moved(ref->br, ref->work, ref->n, cur->br, cur->work, cur->n) &&
		  (shares ? material(rr->br_share, cr->br_share) : material(rr->br.fraction, cr->br.fraction));
	int k = work + mem + br;
	if (k == 0)
		return DIAG_CAUSE_NONE;
	if (k > 1)
		return DIAG_CAUSE_MIXED;
	return work ? DIAG_CAUSE_WORK : mem ? DIAG_CAUSE_MEMORY : DIAG_CAUSE_BRANCH;
}
