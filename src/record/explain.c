/*
 * record/explain.c: `record --explain` (see explain.h; rules in
 * stats/diagnose.h, user account in doc/explain.md).
 *
 * What could not be verified without a Mac or a PMU: the kperf, perf
 * (hardware) and xctrace guided paths run here against the stand-ins and
 * stand-in calibrations (tests/cli/t-explain-standin.sh), so the choice of
 * events and the arithmetic are tested, but not that a real M-series
 * chip's calibrated costs per miss and per mispredict give the verdicts a
 * real program deserves; valgrind's path is tested end to end.
 */
#include "record/explain.h"
#include "backend/xctrace/xctrace.h"
#include "base/error.h"
#include "base/util.h"
#include "catalog/db.h"
#include "machine/xctrace-slots.h"
#include "output/export.h"
#include "output/report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void add_event(struct explain *x, const char *name, const char *verdict, const char *profile)
{
	x->ev = xrealloc(x->ev, (x->nev + 1) * sizeof(*x->ev));
	x->ev[x->nev++] = (struct diag_event){ xstrdup(name), xstrdup(verdict), xstrdup(profile), NAN, NAN, NAN };
}

/* Responses per probe unit, (c4 - c1) / 3n, as calibrate stores them (per_unit_4x is the 4x run's). */
static double response(const struct db_response *r)
{
	return isfinite(r->per_unit_4x) ? r->per_unit_4x : r->per_unit_1x;
}

static int load_calibration(struct explain *x, const struct lk_backend *be, struct catalog *cat)
{
	struct db *db = catalog_db(cat);
	const struct lk_pmu *pmu = catalog_pmu(cat);
	char err[512];
	if (x->guided) {
		/* xctrace's guided slots: the stored slot map, responses already per count of the work slot. */
		char fam[32];
		struct db_slot_map m;
		xctrace_cpu_family(fam, sizeof(fam));
		if (!db || db_load_slot_map(db, fam, NULL, &m, err, sizeof(err)) < 0)
			return 0;
		for (size_t i = 0; i < m.n; i++) {
			const char *nm = m.slots[i].name;
			/*
			 * A slot that responds to the probe but is not corroborated as a
			 * miss count (chase-responsive: stall cycles read hundreds per
			 * step) still places the command between control and probe:
			 * the fraction rule is relative to the probe, not a count.
			 */
			const char *profile = !nm ? "none" : !strcmp(nm, "work") ? "work-like" :
					      !strcmp(nm, "cache-misses") || !strcmp(nm, "chase-responsive") ?
					      "memory-bound-like" :
					      !strcmp(nm, "branch-misses") || !strcmp(nm, "branch-responsive") ?
					      "branch-like" : "none";
			char slot[32];
			snprintf(slot, sizeof(slot), "slot%ld", m.slots[i].slot);
			add_event(x, slot, nm ? "validated" : "unnamed", profile);
			x->ev[x->nev - 1].alu = m.slots[i].alu;
			x->ev[x->nev - 1].chase = m.slots[i].chase;
			x->ev[x->nev - 1].branch = m.slots[i].branch;
		}
		db_slot_map_free(&m);
		return 0;
	}
	struct db_latest *lv = NULL;
	struct db_response *rs = NULL;
	size_t nlv = 0, nrs = 0;
	if (!db || db_latest_verdicts(db, pmu->name, be->name, catalog_machine(cat), &lv, &nlv, err, sizeof(err)) < 0 ||
	    db_latest_responses(db, pmu->name, be->name, catalog_machine(cat), &rs, &nrs, err, sizeof(err)) < 0) {
		db_latest_free(lv, nlv);
		if (!db)
			return 0;
		error("%s", err);
		return EXIT_COUNTERS;
	}
	for (size_t i = 0; i < nlv; i++) {
		add_event(x, lv[i].event, lv[i].verdict, lv[i].profile ? lv[i].profile : "none");
		for (size_t k = 0; k < nrs; k++) {
			if (strcmp(rs[k].event, lv[i].event))
				continue;
			double v = response(&rs[k]);
			if (!strcmp(rs[k].probe, "alu"))
				x->ev[x->nev - 1].alu = v;
			else if (!strcmp(rs[k].probe, "chase"))
				x->ev[x->nev - 1].chase = v;
			else if (!strcmp(rs[k].probe, "branch"))
				x->ev[x->nev - 1].branch = v;
		}
	}
	db_latest_free(lv, nlv);
	db_responses_free(rs, nrs);
	return 0;
}

int explain_plan(struct explain *x, const struct lk_backend *be, struct catalog *cat, bool guided)
{
	memset(x, 0, sizeof(*x));
	if (!be) {
		error("--explain needs counters, and the rusage backend has none");
		fix("use --backend valgrind (any Linux machine), perf (Linux with a PMU), kperf (macOS, root) or "
		    "xctrace --guided (macOS with Xcode)");
		return EXIT_USAGE;
	}
	x->valgrind = !strcmp(be->name, "valgrind");
	x->guided = guided;
	int r = cat ? load_calibration(x, be, cat) : 0;
	if (r)
		return r;
	if (!x->nev) {
		error("--explain reads this machine's calibration of the %s backend, and none is stored%s", be->name,
		      cat && catalog_db(cat) ? "" : " (no database)");
		fix("lauka calibrate --backend %s%s", be->name, x->valgrind ? " --quick" : " [--quick]");
		return EXIT_USAGE;
	}
	int choice[DIAG_ROLES];
	diagnose_choose(x->ev, x->nev, x->valgrind, choice);
	struct strbuf miss = { 0 };
	static const char *const wants[DIAG_ROLES] = { "validated work-like event (instructions)",
						      "validated memory-bound-like event (cache misses)",
						      "validated branch-like event (mispredictions)", NULL, NULL };
	const struct lk_pmu *pmu = cat ? catalog_pmu(cat) : NULL;
	for (int k = 0; k < DIAG_ROLES; k++) {
		x->role[k] = choice[k] >= 0 ? &x->ev[choice[k]] : NULL;
		x->cat_ev[k] = x->role[k] && pmu ? pmu_find_exact(pmu, x->role[k]->name) : NULL;
		if (x->role[k] && !x->cat_ev[k])
			x->role[k] = NULL;	/* calibrated under a name the catalogue no longer has */
		if (!x->role[k] && wants[k])
			strbuf_addf(&miss, "%s%s: the calibration has no %s%s", miss.len ? "; " : "", diag_role_names[k],
				    wants[k], x->valgrind ? (k == 0 ? " (Ir)" : k == 1 ? " (DLmr)" : " (Bcm)") : "");
	}
	if (!x->role[DIAG_WORK]) {
		error("--explain: %s", strbuf_str(&miss));
		fix("lauka calibrate --backend %s%s", be->name, x->valgrind ? " --quick" : " [--quick]");
		strbuf_release(&miss);
		return EXIT_USAGE;
	}
	x->missing = miss.len ? xstrdup(strbuf_str(&miss)) : NULL;
	strbuf_release(&miss);
	if (x->missing)
		warning("--explain: %s; the rest is explained", x->missing);
	diagnose_costs(x->role[DIAG_WORK], x->role[DIAG_MEMORY], x->role[DIAG_BRANCH], x->role[DIAG_CYCLES], x->valgrind,
		       &x->costs);
	return 0;
}

void explain_release(struct explain *x)
{
	for (size_t i = 0; i < x->nev; i++) {
		free((char *)x->ev[i].name);
		free((char *)x->ev[i].verdict);
		free((char *)x->ev[i].profile);
	}
	free(x->ev);
	free(x->missing);
	memset(x, 0, sizeof(*x));
}

static double mean_of(const double *v, size_t n)
{
	double s = 0;
	size_t k = 0;
	for (size_t i = 0; v && i < n; i++)
		if (isfinite(v[i]))
			s += v[i], k++;
	return k ? s / (double)k : NAN;
}

void explain_read(const struct explain *x, struct explain_cmd *c)
{
	double m[DIAG_ROLES];
	for (int k = 0; k < DIAG_ROLES; k++)
		m[k] = x->role[k] ? mean_of(c->runs[k], c->n) : NAN;
	diagnose_read_all(m, x->role, &x->costs, &c->rd);
}

void explain_cause(const struct explain_cmd *ref, struct explain_cmd *c)
{
	struct diag_samples rs = { ref->runs[DIAG_WORK], ref->runs[DIAG_MEMORY], ref->runs[DIAG_BRANCH], ref->n };
	struct diag_samples cs = { c->runs[DIAG_WORK], c->runs[DIAG_MEMORY], c->runs[DIAG_BRANCH], c->n };
	if (!rs.work || !cs.work)
		return;
	c->cause = diagnose_cause(&rs, &ref->rd, &cs, &c->rd);
	c->has_cause = true;
}

#define EXPLAIN_INDENT 13	/* under the text after "  diagnosis  " */

/* valgrind's cache simulator models no prefetcher: what hardware streams in ahead counts as missing. */
#define EXPLAIN_NO_PREFETCH "simulated without a prefetcher (valgrind): a sequential walk that hardware " \
	"prefetches counts every new line as a miss here, so its memory share overstates what a real machine pays"


/* One line of the text, fitted to the terminal's width (0: as it is); continuation lines start at
 * indent. */
static void __attribute__((format(printf, 4, 5))) line(FILE *f, size_t width, size_t indent, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	char *w = report_wrap(strbuf_str(&sb), width, indent);
	fprintf(f, "%s\n", w);
	free(w);
	strbuf_release(&sb);
}

/* "0.19x the control" / "1/560 of chase" */
static void relative(char *buf, size_t len, double v, double ref, const char *what)
{
	if (!isfinite(ref) || !isfinite(v))
		snprintf(buf, len, "%s unknown", what);
	else if (ref <= 0)
		snprintf(buf, len, "%s counts none", what);
	else if (v <= 0)
		snprintf(buf, len, "none against %s %.3g", what, ref);
	else if (v >= 0.1 * ref)
		snprintf(buf, len, "%.3gx %s", v / ref, what);
	else
		snprintf(buf, len, "1/%.3g of %s", ref / v, what);
}

static void print_rate(FILE *f, size_t width, const char *label, const struct diag_rate *r, const char *work,
		       const char *probe)
{
	char c[64], p[64], of[96] = "";
	relative(c, sizeof(c), r->per_unit, r->control, "the control (alu)");
	relative(p, sizeof(p), r->per_unit, r->probe, probe);
	if (isfinite(r->fraction))
		snprintf(of, sizeof(of), " (%.2f of the way from the control to %s)", r->fraction, probe);
	line(f, width, EXPLAIN_INDENT, "  %-10s %.3g per %s: %s, %s%s", label, r->per_unit, work, c, p, of);
}

/* A cycles event calibrate found blind to the chase probe's memory latency (QEMU's PMU), "cycles" first. */
static const char *memory_blind(const struct explain *x)
{
	const char *any = NULL;
	for (size_t i = 0; i < x->nev; i++) {
		if (!x->ev[i].verdict || strncmp(x->ev[i].verdict, "does not see memory", 19))
			continue;
		if (!lk_strcasecmp(x->ev[i].name, "cycles"))
			return x->ev[i].name;
		any = any ? any : x->ev[i].name;
	}
	return any;
}

static const char *model_text(const struct explain *x, char *buf, size_t len)
{
	if (x->costs.model == DIAG_MODEL_VALGRIND) {
		/* The terms the calibration allows, named: L1 misses less LL misses at 5, LL misses at 35. */
		const struct diag_event *const *r = x->role;
		char l1[96] = "", ll[96] = "";
		int l1k[] = { DIAG_I1MISS, DIAG_L1MISS, DIAG_D1WMISS }, llk[] = { DIAG_ILMISS, DIAG_MEMORY, DIAG_DLWMISS };
		for (int i = 0; i < 3; i++) {
			if (r[l1k[i]])
				snprintf(l1 + strlen(l1), sizeof(l1) - strlen(l1), "%s%s", l1[0] ? " + " : "", r[l1k[i]]->name);
			if (r[llk[i]])
				snprintf(ll + strlen(ll), sizeof(ll) - strlen(ll), "%s%s", ll[0] ? " + " : "", r[llk[i]]->name);
		}
		char hits[256] = "";
		if (r[DIAG_L1MISS] && r[DIAG_MEMORY])
			snprintf(hits, sizeof(hits), " + %g x (%s - (%s))", DIAG_VG_LLHIT_COST, l1, ll);
		snprintf(buf, len, "estimated cycles = %s%s + %g x (%s) + %g x %s (valgrind has no cycles: one per "
			 "instruction, 5 per LL hit and 35 per LL miss, instruction fetches, reads and writes alike, as in "
			 "the estimated cycles of iai and Gungraun, 26 per mispredict as measured on an M3 Pro in \"Reading "
			 "Apple Silicon's performance counters without root\", section 7.2)", r[DIAG_WORK]->name, hits,
			 DIAG_VG_MISS_COST, ll[0] ? ll : "-", DIAG_VG_MISPREDICT_COST,
			 r[DIAG_BRANCH] ? r[DIAG_BRANCH]->name : "-");
	}
	else if (x->costs.model == DIAG_MODEL_CYCLES)
		snprintf(buf, len, "%s, with this machine's costs from calibration: %.3g per miss, %.3g per mispredict "
			 "beyond %.3g per %s", x->role[DIAG_CYCLES]->name, x->costs.miss, x->costs.mispredict, x->costs.cpi,
			 x->role[DIAG_WORK]->name);
	else if (memory_blind(x))
		snprintf(buf, len, "none (no validated cycles event: this machine's %s does not see memory, so no "
			 "miss has a cost here)", memory_blind(x));
	else
		snprintf(buf, len, "none (no validated cycles event)");
	return buf;
}

static const char *verdict_rule(const struct explain *x, const struct diag_reading *rd, char *buf, size_t len)
{
	if (rd->have_shares)
		snprintf(buf, len, "memory %.1f%%, branch %.1f%% of the cycles; bound at %.0f%% or more",
			 isfinite(rd->mem_share) ? rd->mem_share * 100 : 0, isfinite(rd->br_share) ? rd->br_share * 100 : 0,
			 DIAG_BOUND_SHARE * 100);
	else
		snprintf(buf, len, "memory %.2f, branch %.2f of the way from the control to the probe; bound at %.2f or more",
			 isfinite(rd->mem.fraction) ? rd->mem.fraction : 0, isfinite(rd->br.fraction) ? rd->br.fraction : 0,
			 DIAG_BOUND_FRACTION);
	(void)x;
	return buf;
}

static int by_abs_delta(const void *a, const void *b)
{
	const struct cg_func *x = a, *y = b;
	double dx = fabs((double)(int64_t)x->cost), dy = fabs((double)(int64_t)y->cost);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	int c = strcmp(x->function, y->function);
	return c ? c : strcmp(x->object, y->object);
}

/*
 * f's counterpart in t, matched by name: two builds of one program (./a-O0
 * and ./b-O2) are two objects, but their `main` is one function.  The same
 * name in the same object first; else the one entry of that name in t whose
 * object has no entry of that name in mine (main@a-O0 <-> main@b-O2, while
 * a library's copy of a repeated name such as frame_dummy matched its own
 * object).  NULL when none, or when the name is ambiguous.
 */
static const struct cg_func *match(const struct cg_table *t, const struct cg_func *f, const struct cg_table *mine)
{
	if (!t)
		return NULL;
	const struct cg_func *same = cg_table_find(t, f->function, f->object);
	if (same)
		return same;
	const struct cg_func *only = NULL;
	for (size_t i = 0; i < t->n; i++) {
		const struct cg_func *c = &t->f[i];
		if (strcmp(c->function, f->function) || (mine && cg_table_find(mine, c->function, c->object)))
			continue;
		if (only)
			return NULL;	/* ambiguous */
		only = c;
	}
	return only;
}

/*
 * An address callgrind could not name (0x0000000000001110: a PLT stub, code
 * without symbols).  Two builds put the same stubs at other addresses, so
 * issue 37 T9: they are matched as one entry per object, never as "changed
 * functions" of their own.
 */
#define EXPLAIN_UNNAMED "(unnamed addresses)"

static bool unnamed(const char *fn)
{
	return fn[0] == '0' && fn[1] == 'x' && fn[2] && strspn(fn + 2, "0123456789abcdefABCDEF") == strlen(fn + 2);
}

static void group_unnamed(const struct cg_table *in, struct cg_table *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < in->n; i++)
		cg_table_add(out, in->f[i].object, NULL, unnamed(in->f[i].function) ? EXPLAIN_UNNAMED : in->f[i].function,
			     in->f[i].cost);
	cg_table_sort(out);
}

/*
 * Functions whose self cost changed most against ref; cost holds the change
 * as int64_t.  Unnamed addresses grouped per object into gf and gr, which
 * the entries point into: released by the caller (cg_table_release).
 */
static struct cg_func *changes(const struct cg_table *funcs_in, const struct cg_table *ref_in, size_t *n,
			       struct cg_table *gf, struct cg_table *gr)
{
	*n = 0;
	memset(gf, 0, sizeof(*gf));
	memset(gr, 0, sizeof(*gr));
	if (!funcs_in || !ref_in)
		return NULL;
	group_unnamed(funcs_in, gf);
	group_unnamed(ref_in, gr);
	const struct cg_table *funcs = gf, *ref = gr;
	struct cg_func *d = xcalloc(funcs->n + ref->n + 1, sizeof(*d));
	for (size_t i = 0; i < funcs->n; i++) {
		const struct cg_func *r = match(ref, &funcs->f[i], funcs);
		int64_t dv = (int64_t)funcs->f[i].cost - (int64_t)(r ? r->cost : 0);
		if (dv)
			d[(*n)++] = (struct cg_func){ funcs->f[i].function, funcs->f[i].object, NULL, (uint64_t)dv };
	}
	for (size_t i = 0; i < ref->n; i++)
		if (!match(funcs, &ref->f[i], ref) && ref->f[i].cost)
			d[(*n)++] = (struct cg_func){ ref->f[i].function, ref->f[i].object, NULL,
						      (uint64_t)(-(int64_t)ref->f[i].cost) };
	qsort(d, *n, sizeof(*d), by_abs_delta);
	return d;
}

static int64_t delta_of(const struct cg_func *f, const struct cg_table *ref, const struct cg_table *mine)
{
	const struct cg_func *r = match(ref, f, mine);
	return (int64_t)f->cost - (int64_t)(r ? r->cost : 0);
}

void explain_print_functions(FILE *f, size_t width, const struct cg_table *funcs, const struct cg_table *ref)
{
	if (!funcs)
		return;
	uint64_t total = cg_table_total(funcs);
	char v[32];
	fprintf(f, "  functions by self Ir (callgrind, the last measured run, every process):\n");
	if (ref)
		fprintf(f, "    %10s  %6s  %-10s  %s\n", "Ir", "share", "delta", "function  object");
	else
		fprintf(f, "    %10s  %6s  %s\n", "Ir", "share", "function  object");
	for (size_t i = 0; i < funcs->n && i < EXPLAIN_TOP && funcs->f[i].cost; i++) {
		const struct cg_func *fn = &funcs->f[i];
		if (i >= 3 && (double)fn->cost < 0.001 * (double)total)
			break;	/* the text stops at 0.1%; the JSON has all ten */
		char d[32] = "";
		report_fmt_value((double)fn->cost, NULL, v, sizeof(v));
		if (ref) {
			int64_t dv = delta_of(fn, ref, funcs);
			report_fmt_value(fabs((double)dv), NULL, d + 1, sizeof(d) - 1);
			d[0] = dv < 0 ? '-' : '+';
		}
		double share = total ? 100.0 * (double)fn->cost / (double)total : 0;
		if (ref)
			line(f, width, 34, "    %10s  %5.1f%%  %-10s  %s  %s", v, share, d, fn->function, fn->object);
		else
			line(f, width, 22, "    %10s  %5.1f%%  %s  %s", v, share, fn->function, fn->object);
	}
	size_t nd;
	struct cg_table gf, gr;
	struct cg_func *d = changes(funcs, ref, &nd, &gf, &gr);
	if (nd) {
		fprintf(f, "  changed most against the first command (self Ir):\n");
		for (size_t i = 0; i < nd && i < EXPLAIN_TOP_DELTA; i++) {
			int64_t dv = (int64_t)d[i].cost;
			report_fmt_value(fabs((double)dv), NULL, v, sizeof(v));
			line(f, width, 16, "    %c%-9s  %s  %s", dv < 0 ? '-' : '+', v, d[i].function, d[i].object);
		}
	}
	free(d);
	cg_table_release(&gf);
	cg_table_release(&gr);
}

void explain_print(FILE *f, size_t width, const struct explain *x, const struct explain_cmd *c,
		   const struct cg_table *ref)
{
	const struct diag_reading *rd = &c->rd;
	char buf[512];
	const char *work = x->role[DIAG_WORK]->name;
	line(f, width, EXPLAIN_INDENT, "  diagnosis  %s (%s)", diag_verdict_names[rd->verdict],
	     verdict_rule(x, rd, buf, sizeof(buf)));
	if (x->role[DIAG_MEMORY])
		print_rate(f, width, x->role[DIAG_MEMORY]->name, &rd->mem, work, "chase");
	if (x->role[DIAG_BRANCH])
		print_rate(f, width, x->role[DIAG_BRANCH]->name, &rd->br, work, "branch");
	line(f, width, EXPLAIN_INDENT, "  cost model %s", model_text(x, buf, sizeof(buf)));
	if (x->valgrind)
		line(f, width, EXPLAIN_INDENT, "  caches     %s", EXPLAIN_NO_PREFETCH);
	if (x->missing)
		line(f, width, EXPLAIN_INDENT, "  not explained: %s", x->missing);
	if (c->has_cause)
		line(f, width, EXPLAIN_INDENT, "  delta cause %s", diag_cause_names[c->cause]);
	explain_print_functions(f, width, c->funcs, ref);
	fputc('\n', f);
}

static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.17g", v);
	else
		fputs("null", f);
}

char *explain_json(const struct explain *x, const struct explain_cmd *c, const struct cg_table *ref)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return xstrdup("null");
	const struct diag_reading *rd = &c->rd;
	fputs("{\"verdict\": ", f);
	export_json_str(f, diag_verdict_names[rd->verdict]);
	fputs(", \"work_event\": ", f);
	export_json_str(f, x->role[DIAG_WORK]->name);
	fputs(", \"rates\": [", f);
	bool first = true;
	for (int k = DIAG_MEMORY; k <= DIAG_BRANCH; k++) {
		if (!x->role[k])
			continue;
		const struct diag_rate *r = k == DIAG_MEMORY ? &rd->mem : &rd->br;
		fputs(first ? "{\"event\": " : ", {\"event\": ", f);
		first = false;
		export_json_str(f, x->role[k]->name);
		fputs(", \"kind\": ", f);
		export_json_str(f, diag_role_names[k]);
		fputs(", \"per_unit\": ", f);
		json_num(f, r->per_unit);
		fputs(", \"control\": ", f);
		json_num(f, r->control);
		fputs(", \"probe\": ", f);
		json_num(f, r->probe);
		fprintf(f, ", \"probe_name\": \"%s\", \"fraction\": ", k == DIAG_MEMORY ? "chase" : "branch");
		json_num(f, r->fraction);
		fputc('}', f);
	}
	fputs("], \"cycle_shares\": ", f);
	if (rd->have_shares) {
		fprintf(f, "{\"model\": \"%s\", \"cycles\": ", x->costs.model == DIAG_MODEL_VALGRIND ? "valgrind-estimate" : "measured");
		json_num(f, rd->cycles);
		fputs(", \"memory\": ", f);
		json_num(f, rd->mem_share);
		fputs(", \"branch\": ", f);
		json_num(f, rd->br_share);
		fputs(", \"cost_per_miss\": ", f);
		json_num(f, x->costs.miss);
		fputs(", \"cost_per_mispredict\": ", f);
		json_num(f, x->costs.mispredict);
		fputs(", \"cost_per_ll_hit\": ", f);
		json_num(f, x->costs.model == DIAG_MODEL_VALGRIND && x->role[DIAG_L1MISS] ? x->costs.llhit : NAN);
		fputs(", \"cost_per_instruction\": ", f);
		json_num(f, x->costs.cpi);
		if (x->costs.model == DIAG_MODEL_VALGRIND) {
			fputs(", \"ll_hits\": ", f);
			json_num(f, rd->ll_hits);
			fputs(", \"ll_misses\": ", f);
			json_num(f, rd->ll_misses);
		}
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	if (x->valgrind) {
		fputs(", \"caches\": ", f);
		export_json_str(f, EXPLAIN_NO_PREFETCH);
	}
	if (c->has_cause) {
		fputs(", \"delta_cause\": ", f);
		export_json_str(f, diag_cause_names[c->cause]);
	}
	if (x->missing) {
		fputs(", \"not_explained\": ", f);
		export_json_str(f, x->missing);
	}
	if (c->funcs) {
		fputs(", \"functions\": [", f);
		for (size_t i = 0; i < c->funcs->n && i < EXPLAIN_TOP && c->funcs->f[i].cost; i++) {
			const struct cg_func *fn = &c->funcs->f[i];
			fputs(i ? ", {\"function\": " : "{\"function\": ", f);
			export_json_str(f, fn->function);
			fputs(", \"object\": ", f);
			export_json_str(f, fn->object);
			fprintf(f, ", \"ir\": %llu, \"delta_ir\": ", (unsigned long long)fn->cost);
			if (ref)
				fprintf(f, "%lld", (long long)delta_of(fn, ref, c->funcs));
			else
				fputs("null", f);
			fputc('}', f);
		}
		fputc(']', f);
	}
	fputc('}', f);
	fclose(f);
	return out;
}

void explain_take_functions(const struct backend_inst *bi, struct cg_table **t)
{
	if (!bi->ops->functions)
		return;
	struct cg_table *raw = bi->ops->functions(bi->priv);
	if (!raw)
		return;
	explain_free_functions(t);
	*t = xcalloc(1, sizeof(**t));
	cg_table_group(raw, false, *t);
	cg_table_sort(*t);
	cg_table_release(raw);
	free(raw);
}

void explain_free_functions(struct cg_table **t)
{
	if (*t) {
		cg_table_release(*t);
		free(*t);
		*t = NULL;
	}
}
