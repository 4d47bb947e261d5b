/*
 * cmd/calibrate.c: `lauka calibrate [--backend B] [--pmu NAME] [--quick] [--dry-run] [--db PATH]`.
 *
 * Runs the probe workloads (build/lauka-probe) under a backend, measuring
 * every schedulable event of its catalogue in as many passes as the
 * scheduler needs, and judges each event against catalog/expectations.tsv
 * (the rules and the arithmetic are in catalog/calib.c).  Verdicts and the full
 * per-probe responses go into the database with machine, backend and date;
 * `lauka counters --details` shows them and `lauka record` warns about
 * events that failed.
 *
 * --pmu NAME calibrates a stored or libpfm4 catalogue (vendor events, tens
 * of passes); --passes prints the plan, one line per pass, and runs
 * nothing; --dry-run adds the expected time (the timed warm-ups only).  Before the passes start the number of probe runs and the
 * expected time (from timed warm-ups) are printed.  With perf, a pass the
 * kernel refuses or multiplexes is split (sched_split_pass) and measured
 * again, so no stored response is a scaled estimate.
 *
 * Each probe runs once unmeasured first (a warm-up: frequency scaling,
 * page cache), then per pass at scale 1, 1x and 4x (catalog/calib.h says why
 * three); off valgrind, in three rounds keeping the minimum of each, and
 * up to CAL_EXTRA_ROUNDS more of a probe on which a count reads non-linear.
 *
 *   $ lauka calibrate --backend valgrind --quick
 *   event  verdict    profile            alu     chase   branch  store   expected
 *   Ir     validated  work-like          2       3       8.5     9       alu 2 ±0.001; chase 3 ±0.001
 *   ...
 *   13 events: 10 validated, 0 failed, 3 silent, 0 dead here, 0 linear, 0 unsupported, 0 unschedulable
 */
#include "backend/backend.h"
#include "cmd/builtin.h"
#include "catalog/calib.h"
#include "machine/catalog.h"
#include "catalog/db.h"
#include "base/error.h"
#include "base/text.h"
#include "cmd/options.h"
#include "machine/backend-choice.h"
#include "output/plot-out.h"
#include "base/probe-path.h"
#include "base/progress.h"
#include "spawn/runner.h"
#include "catalog/sched.h"
#include "base/sudo.h"
#include "base/util.h"
#include "base/cpulist.h"
#include "machine/xctrace-check.h"
#include "machine/xctrace-slots.h"
#ifdef __linux__
#include "backend/perf-events.h"
#endif

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cal_opts {
	const char *backend, *db;
	const char *pmu;		/* --pmu NAME: a stored or libpfm4 catalogue instead of the backend's */
	bool quick, dry_run, passes, smt_off;
	const char *plot;		/* --plot FILE.svg */
};

/* What was measured for one catalogue event. */
struct cal_event {
	const struct lk_event *ev;
	enum calib_state state;
	char why[160];			/* reason when unsupported or unschedulable */
	struct calib_counts counts[CALIB_MAX_PROBES];
	struct calib_result res;
};

struct cal_run {
	const struct lk_backend *be;
	const struct lk_pmu *pmu;
	const struct calib_scale *scales;
	size_t nprobes;
	char probe[PATH_MAX];
	unsigned reps;			/* runs per scale; the minimum is kept */
	unsigned extra_rounds;		/* rounds added for counts that read non-linear (unsettled) */
	bool split_refused;		/* perf: a pass the kernel multiplexed or would not schedule is split */
	const char *core;		/* the core PMU of the pass being measured (hybrid CPUs), or NULL */
	struct runner run;
	struct lk_progress prog;	/* one unit = one probe run */
};

#define SET(fn, stmt) \
	static int fn(void *ctx, const char *v) { struct cal_opts *o = ctx; (void)v; stmt; return 0; }
SET(set_quick, o->quick = true)
SET(set_backend, o->backend = v)
SET(set_db, o->db = v)
SET(set_plot, o->plot = v)
SET(set_pmu, o->pmu = v)

/* --smt on|off: a libpfm4 model's counters per thread with SMT on (the default) or per core with it off */
static int set_smt(void *ctx, const char *v)
{
	struct cal_opts *o = ctx;
	if (strcmp(v, "on") && strcmp(v, "off")) {
		error("--smt takes 'on' or 'off', not '%s'", v);
		return -1;
	}
	o->smt_off = !strcmp(v, "off");
	return 0;
}
SET(set_dry_run, o->dry_run = true)
SET(set_passes, o->dry_run = o->passes = true)
#undef SET

static const struct opt_spec calibrate_options[] = {
	{ "--backend", NULL, true, set_backend },
	{ "--quick", NULL, false, set_quick },
	{ "--plot", NULL, true, set_plot },
	{ "--db", NULL, true, set_db },
	{ "--pmu", NULL, true, set_pmu },
	{ "--smt", NULL, true, set_smt },
	{ "--dry-run", NULL, false, set_dry_run },
	{ "--passes", NULL, false, set_passes },
};

static int parse_options(int argc, char **argv, struct cal_opts *o)
{
	static const struct opt_verb verb = { "calibrate", calibrate_options, ARRAY_SIZE(calibrate_options), NULL,
					      false };
	int next;
	return opts_parse(&verb, o, argc, argv, &next);
}

static int choose_backend(const struct cal_opts *o, const struct lk_backend **out, int argc, char **argv)
{
	const char *name = o->backend ? o->backend : getenv("LAUKA_BACKEND");
	const struct lk_backend *b;
	if (!name || !*name) {
		b = backend_default();
		if (!b) {
			/* N5: on macOS without root kperf says EPERM; valgrind does not run on Apple silicon. */
			char why[256] = "";
			const struct lk_backend *root = backend_for_listing(why, sizeof(why));
			if (root && root->detect && root->detect(why, sizeof(why)) == -LK_EPERM) {
				error("no counter backend works here without root: %s: %s", root->name, why);
				backend_need_root(argc, argv);
				backend_root_tip(root, "calibrate");
				return -EXIT_COUNTERS;
			}
			error("no counter backend works here");
#ifdef __APPLE__
			tip("see 'lauka version' for why each is disabled; 'lauka calibrate --backend xctrace' needs Xcode");
#else
			tip("see 'lauka version' for why each is disabled; 'lauka calibrate --backend valgrind' needs only valgrind");
#endif
			return -EXIT_COUNTERS;
		}
		*out = b;
		return 0;
	}
	b = backend_named(name);
	if (!b)
		return -EXIT_USAGE;
	int r = backend_usable(b, argc, argv);
	if (r < 0)
		return r;
	*out = b;
	return 0;
}

/* "pass 2/3: chase 4x (n=4000000)": the pass, the probe, its scale, then the ETA; npasses 0: the warm-up. */
static void progress(struct cal_run *cr, size_t pass, size_t npasses, const char *probe, const char *what, uint64_t n)
{
	if (npasses)
		progress_show(&cr->prog, "pass %zu/%zu%s%s%s: %s %s (n=%llu)", pass + 1, npasses, cr->core ? " (" : "",
			      cr->core ? cr->core : "", cr->core ? ")" : "", probe, what, (unsigned long long)n);
	else
		progress_show(&cr->prog, "%s %s (n=%llu)", what, probe, (unsigned long long)n);
}

/* Run one probe once; returns 0, or -1 after printing why. */
static int run_probe(struct cal_run *cr, size_t p, uint64_t n, struct backend_inst *bi,
		     struct lk_counts *counts)
{
	const struct calib_scale *s = &cr->scales[p];
	char scale[32];
	snprintf(scale, sizeof(scale), "%llu", (unsigned long long)n);
	char *argv[] = { cr->probe, (char *)s->probe, scale, (char *)s->arg, NULL };
	struct runner_result res;
	char err[512] = "";
	struct lk_counts *cv[1] = { counts };
	if (runner_run(&cr->run, cr->probe, argv, bi, bi ? 1 : 0, cv, &res, err, sizeof(err)) < 0) {
		progress_clear(&cr->prog);
		error("measuring probe '%s %s': %s", s->probe, scale, err);
		return -1;
	}
	if (runner_interrupted)
		return -1;
	if (res.exec_errno || res.exit_code) {
		progress_clear(&cr->prog);
		if (res.exec_errno)
			error("cannot execute '%s': %s", cr->probe, strerror(res.exec_errno));
		else if (res.term_signal)	/* not "exit code 139": the shell's 128 + N is not what happened */
			error("probe '%s %s' was killed by signal %d (%s)", s->probe, scale, res.term_signal,
			      strsignal(res.term_signal));
		else
			error("probe '%s %s' failed with exit code %d", s->probe, scale, res.exit_code);
		if (res.tail[0])
			fprintf(stderr, "stderr of the probe:\n%s%s", res.tail,
				res.tail[strlen(res.tail) - 1] == '\n' ? "" : "\n");
		return -1;
	}
	return 0;
}

/* From this many passes on (vendor catalogues), --quick measures one round instead of three. */
#define CAL_MANY_PASSES 10

/* measure_pass(): the kernel refused the pass as a whole (see refused()). */
#define CAL_REFUSED 1

/*
 * perf: a group the kernel would not schedule as a whole on the counters
 * (it opened the events one by one, or a libpfm4-hidden counter
 * restriction): some event ran less than it was enabled, i.e. its count
 * would be a multiplexed estimate.  The pass is split instead.
 */
static bool refused(const struct lk_counts *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].supported && c[i].enabled && c[i].running < c[i].enabled)
			return true;
	return false;
}

/* Runs of one probe and scale tried before an event that was not counted is given up on. */
#define CAL_NOT_COUNTED_TRIES 5

/*
 * Rounds a probe is measured again while an event reads non-linear on it (see unsettled()).  They
 * end sooner when the minimum has settled: CAL_FLAT_ROUNDS rounds in a row that lowered no count
 * by more than CAL_SETTLED (a counter that really is not linear costs two extra rounds, not six;
 * one flat round is not enough on a loaded machine, where the chase probe's time moves by half).
 */
#define CAL_EXTRA_ROUNDS 6
#define CAL_FLAT_ROUNDS 2
#define CAL_SETTLED 0.01

static void mark(struct cal_event *e, enum calib_state st, const char *why)
{
	e->state = st;
	snprintf(e->why, sizeof(e->why), "%s", why && *why ? why : "not counted");
}

/*
 * Open the backend on a pass's events with the counters the scheduler chose
 * (as record does: a pass always fits), dropping the ones it cannot count
 * (marked unsupported) until the rest opens.  live[] is compacted to those
 * kept; returns whether the backend is open (false: none are left).
 */
static bool open_pass(struct cal_run *cr, struct cal_event **live, size_t *nlive, struct lk_evsel *sel,
		      struct backend_inst *bi)
{
	size_t n = *nlive;
	char err[512] = "";
	const struct lk_event **list = xcalloc(n ? n : 1, sizeof(*list));
	int *counter = xcalloc(n ? n : 1, sizeof(*counter));
	bool open = false;
	while (n && !open) {
		for (size_t i = 0; i < n; i++)
			list[i] = live[i]->ev;
		if (sched_assign(cr->pmu, list, n, counter, NULL) < 0)
			for (size_t i = 0; i < n; i++)
				counter[i] = -1;
		for (size_t i = 0; i < n; i++) {
			memset(&sel[i], 0, sizeof(sel[i]));
			sel[i].ev = live[i]->ev;
			sel[i].counter = counter[i];
		}
		if (backend_inst_open(bi, cr->be, sel, n, err, sizeof(err)) < 0) {
			for (size_t i = 0; i < n; i++)
				mark(live[i], CALIB_UNSUPPORTED, err);
			n = 0;
			break;
		}
		size_t kept = 0;
		for (size_t i = 0; i < n; i++) {
			if (sel[i].err)
				mark(live[i], CALIB_UNSUPPORTED, sel[i].why[0] ? sel[i].why : lk_strerror(sel[i].err));
			else
				live[kept++] = live[i];
		}
		open = kept == n;
		if (!open)
			backend_inst_close(bi);
		n = kept;
	}
	*nlive = n;
	free(list);
	free(counter);
	return open;
}

/*
 * Whether probe p needs more rounds: a measured event responds on it but not
 * linearly.  Off valgrind a count can only be inflated by what else the
 * machine does (an interrupt, a neighbour's memory traffic, a hypervisor's
 * steal); the minimum over rounds converges on the undisturbed count, but
 * three rounds on a loaded machine are not always enough to reach it: the
 * chase probe's 4x run read 1115-1672 ms of task-clock with four busy loops
 * beside it.  A counter that is truly not linear stays so however often it is
 * measured, so measuring again costs time, never a wrong "validated"; and its
 * minimum stops moving, which ends the extra rounds (CAL_FLAT_ROUNDS).
 */
static bool unsettled(struct cal_event *const *live, size_t nlive, size_t p)
{
	for (size_t i = 0; i < nlive; i++)
		if (live[i]->state == CALIB_MEASURED && calib_significant(&live[i]->counts[p]) &&
		    !calib_linear(&live[i]->counts[p]))
			return true;
	return false;
}

/* Measure one pass: open the backend on its events, then every probe at scale 1, 1x, 4x. */
static int measure_pass(struct cal_run *cr, struct cal_event **evs, size_t n, size_t pass, size_t npasses)
{
	struct lk_evsel *sel = xcalloc(n ? n : 1, sizeof(*sel));
	struct cal_event **live = xcalloc(n ? n : 1, sizeof(*live));
	size_t nlive = n;
	for (size_t i = 0; i < n; i++)
		live[i] = evs[i];
	struct backend_inst bi;
	bool open = open_pass(cr, live, &nlive, sel, &bi);
	int ret = 0;
	struct lk_counts *counts = xcalloc(nlive ? nlive : 1, sizeof(*counts));
	/* Rounds outermost: the repetitions of one probe and scale are spread
	 * over the whole pass, so a burst of load on the machine (or on an SMT
	 * sibling) cannot slow all of them. */
	static const char *const what[3] = { "baseline", "1x", "4x" };
	uint64_t base[CALIB_MAX_PROBES];	/* the baseline's scale per probe */
	for (size_t p = 0; p < CALIB_MAX_PROBES; p++)
		base[p] = 1;
	unsigned flat[CALIB_MAX_PROBES] = { 0 };	/* extra rounds in a row that lowered no count */
	for (unsigned round = 0; open && ret == 0; round++) {
		bool extra = round >= cr->reps;
		if (extra && (cr->reps < 2 || round >= cr->reps + CAL_EXTRA_ROUNDS))
			break;
		bool any = false;
		for (size_t p = 0; p < cr->nprobes && ret == 0; p++) {
			uint64_t n1 = cr->scales[p].n;
			bool lowered = false;
			if (extra) {
				if (flat[p] >= CAL_FLAT_ROUNDS || !unsettled(live, nlive, p))
					continue;
				if (!any)
					cr->extra_rounds++;
				any = true;
				cr->prog.total += 3;
			}
			uint64_t scale[3] = { base[p], n1, 4 * n1 };
			for (int k = 0; k < 3; k++) {
				progress(cr, pass, npasses, cr->scales[p].probe, what[k], scale[k]);
				/*
				 * A sampled backend (kperf) sees no sample of a run much
				 * shorter than its period, and the baseline at scale 1
				 * takes about 1 ms: not counted is not "unsupported".
				 * Such a run is repeated; in the first round a baseline
				 * nobody saw moves to a 16x larger scale, up to n/4.
				 */
				bool missed = false;
				for (int attempt = 0; attempt < CAL_NOT_COUNTED_TRIES; attempt++) {
					if ((ret = run_probe(cr, p, scale[k], &bi, counts)) < 0)
						break;
					missed = false;
					for (size_t i = 0; i < nlive; i++)
						missed |= counts[i].supported && counts[i].enabled && !counts[i].running;
					if (!missed)
						break;
					if (k == 0 && round == 0 && attempt == CAL_NOT_COUNTED_TRIES - 1 &&
					    base[p] < n1 / 4) {
						/* the last step lands on n/4 itself, whatever 16^k falls short of it */
						base[p] = base[p] * 16 <= n1 / 4 ? base[p] * 16 : n1 / 4;
						scale[0] = base[p];
						attempt = -1;
					}
				}
				if (ret < 0)
					break;
				if (cr->split_refused && refused(counts, nlive)) {
					ret = CAL_REFUSED;
					break;
				}
				progress_tick(&cr->prog);
				for (size_t i = 0; i < nlive; i++) {
					struct lk_counts *c = &counts[i];
					struct calib_counts *cc = &live[i]->counts[p];
					bool not_counted = c->supported && c->enabled && !c->running;
					counts_scale(c);
					if (!c->supported || not_counted) {
						char why[160];
						snprintf(why, sizeof(why), "not counted in %d runs of '%s' at scale %llu (no sample)",
							 CAL_NOT_COUNTED_TRIES, cr->scales[p].probe, (unsigned long long)scale[k]);
						/* Once measured in an earlier round, a missed run only loses a repetition. */
						if (live[i]->state == CALIB_MEASURED && (round == 0 || !c->supported))
							mark(live[i], CALIB_UNSUPPORTED, c->supported ? why : "the backend counted nothing");
						continue;
					}
					cc->n = n1;
					cc->n0 = base[p];
					double v = (double)c->value;
					double *dst = k == 0 ? &cc->c0 : k == 1 ? &cc->c1 : &cc->c4;
					double *hi = k == 0 ? &cc->hi0 : k == 1 ? &cc->hi1 : &cc->hi4;
					lowered |= extra && v < *dst * (1 - CAL_SETTLED);
					if (round == 0 || v < *dst)
						*dst = v;
					if (round == 0 || v > *hi)	/* the spread that says how far to trust the minimum */
						*hi = v;
				}
			}
			if (extra)
				flat[p] = lowered ? 0 : flat[p] + 1;
		}
		if (extra && !any)
			break;
	}
	if (open)
		backend_inst_close(&bi);
	free(counts);
	free(sel);
	free(live);
	return ret;
}

static void fmt_response(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) < 5e-5)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%.4g", v);
}

static void print_table(const struct cal_run *cr, struct cal_event *evs, size_t n)
{
	size_t wname = strlen("event"), wver = strlen("verdict"), wprof = strlen("profile");
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(evs[i].ev->name);
		wname = l > wname ? l : wname;
		l = strlen(evs[i].res.verdict);
		wver = l > wver ? l : wver;
		l = strlen(evs[i].res.profile);
		wprof = l > wprof ? l : wprof;
	}
	/*
	 * On a terminal narrower than a row, the expected column wraps under itself, or under a
	 * 4-space indent when the columns before it are already wide (text_print); pipes get whole rows.
	 */
	struct strbuf row = STRBUF_INIT;
	strbuf_addf(&row, "%-*s  %-*s  %-*s", (int)wname, "event", (int)wver, "verdict", (int)wprof, "profile");
	for (size_t p = 0; p < cr->nprobes; p++)
		strbuf_addf(&row, "  %-9s", cr->scales[p].probe);
	size_t at = row.len + 2, indent = at <= 48 ? at : 4;
	strbuf_addf(&row, "  expected");
	text_print(stdout, strbuf_str(&row), indent);
	for (size_t i = 0; i < n; i++) {
		const struct calib_result *r = &evs[i].res;
		strbuf_reset(&row);
		strbuf_addf(&row, "%-*s  %-*s  %-*s", (int)wname, evs[i].ev->name, (int)wver, r->verdict, (int)wprof,
			    r->profile);
		for (size_t p = 0; p < cr->nprobes; p++) {
			char v[32];
			fmt_response(v, sizeof(v), r->response[p]);
			strbuf_addf(&row, "  %-9s", v);
		}
		strbuf_addf(&row, "  %s", r->expect_text[0] ? r->expect_text : "-");
		text_print(stdout, strbuf_str(&row), indent);
	}
	strbuf_release(&row);
}

/* Reasons that differ only in the event they name are the same reason. */
static bool same_reason(const struct cal_event *a, const struct cal_event *b)
{
	if (a->state != b->state)
		return false;
	const char *x = a->why, *y = b->why, *na = a->ev->name, *nb = b->ev->name;
	size_t la = strlen(na), lb = strlen(nb);
	while (*x && *y) {
		if (!strncmp(x, na, la) && !strncmp(y, nb, lb)) {
			x += la;
			y += lb;
		} else if (*x++ != *y++) {
			return false;
		}
	}
	return !*x && !*y;
}

/* One line per distinct reason why events could not be measured, and where linearity failed. */
static void print_reasons(const struct cal_run *cr, struct cal_event *evs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool noisy = !strcmp(evs[i].res.verdict, "noisy");
		if (!noisy && strcmp(evs[i].res.verdict, "not linear"))
			continue;
		for (size_t p = 0; p < cr->nprobes; p++) {
			const struct calib_result *r = &evs[i].res;
			const struct calib_counts *c = &evs[i].counts[p];
			if (fabs(r->response[p]) <= CALIB_SILENT || calib_linear(c) || calib_spread_explains(c) != noisy)
				continue;
			if (!noisy) {
				text_printf(stdout, 4, "not linear: '%s' on %s: %.4g per unit at 1x, %.4g at 4x", evs[i].ev->name,
					    cr->scales[p].probe, r->per_unit_1x[p], r->per_unit_4x[p]);
				continue;
			}
			text_printf(stdout, 4, "noisy: '%s' on %s: %.4g per unit at 1x, %.4g at 4x, but its runs moved by "
				    "up to %.0f%% between rounds, enough to explain that; calibrate again on a quieter "
				    "machine", evs[i].ev->name, cr->scales[p].probe, r->per_unit_1x[p], r->per_unit_4x[p],
				    100 * calib_spread(c));
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (evs[i].state == CALIB_MEASURED)
			continue;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = same_reason(&evs[j], &evs[i]);
		if (seen)
			continue;
		size_t count = 0;
		for (size_t j = i; j < n; j++)
			count += same_reason(&evs[j], &evs[i]);
		text_printf(stdout, 4, "%s (%zu event%s, e.g. '%s'): %s", evs[i].res.verdict, count,
			    count == 1 ? "" : "s", evs[i].ev->name, evs[i].why);
	}
}

static int store(struct catalog *cat, const struct lk_backend *be, const struct cal_run *cr,
		 struct cal_event *evs, size_t n)
{
	struct db_verdict *v = xcalloc(n ? n : 1, sizeof(*v));
	struct db_probe_response *resp = xcalloc((n ? n : 1) * cr->nprobes, sizeof(*resp));
	for (size_t i = 0; i < n; i++) {
		struct db_probe_response *r = &resp[i * cr->nprobes];
		for (size_t p = 0; p < cr->nprobes; p++) {
			r[p].probe = cr->scales[p].probe;
			r[p].per_unit_1x = evs[i].res.per_unit_1x[p];
			r[p].per_unit_4x = evs[i].res.per_unit_4x[p];
			r[p].expected = evs[i].res.expected[p];
		}
		v[i].event = evs[i].ev->name;
		v[i].verdict = evs[i].res.verdict;
		v[i].profile = evs[i].res.profile;
		v[i].resp = r;
		v[i].nresp = cr->nprobes;
	}
	char err[512] = "";
	int r = db_store_calibration(catalog_db(cat), catalog_pmu(cat)->name, be->name, catalog_machine(cat), v, n,
				     err, sizeof(err));
	if (r < 0)
		error("cannot store the verdicts: %s", err);
	free(resp);
	free(v);
	return r;
}

/* The embedded catalog/expectations.tsv, or the file $LAUKA_EXPECTATIONS names (same format). */
static int load_expectations(struct calib_expectations *exp)
{
	char err[512] = "";
	const char *path = getenv("LAUKA_EXPECTATIONS");
	if (!path || !*path) {
		if (calib_expect_builtin(exp, err, sizeof(err)) < 0)
			return error("%s", err);
		return 0;
	}
	char *text = NULL;
	size_t len = 0;
	int r = lk_read_file(path, 1 << 20, &text, &len);
	if (r < 0)
		return error("cannot read LAUKA_EXPECTATIONS='%s': %s", path,
			     r == -EINVAL ? "not a regular file" : r == -EFBIG ? "larger than 1 MiB (lauka's limit)" : strerror(-r));
	r = calib_expect_parse(text, exp, err, sizeof(err));
	free(text);
	if (r < 0)
		return error("%s: %s", path, err);
	return 0;
}

/*
 * A core type of a hybrid Intel CPU (perf only): its events are measured in passes of their own,
 * with the probe on its CPUs (doc/linux-events.md, "Hybrid Intel CPUs").  A hardware event counts
 * only while its task runs on a CPU of its PMU (tools/perf/Documentation/intel-hybrid.txt: a task
 * pinned to an E-core reads cpu_core's cycles over 0.47% of its time); a pass that mixed cpu_core
 * and cpu_atom events, or left the probe to the scheduler, would count each only for the part of
 * the run the scheduler happened to give that core type, and judge the counter on that.
 */
struct cal_core {
	const char *name;		/* cpu_core, cpu_atom (static) */
	char cpus[96];			/* its sysfs `cpus` as read ("16-23"); "" when unreadable (then unpinned) */
	struct lk_cpus pin;		/* those this process may use: where its passes run */
	char why[320];			/* none may be used: why its events are unsupported */
};

/* The catalogue's events in passes: events no counter can take alone are marked and left out. */
struct cal_plan {
	struct cal_event *evs;		/* every catalogue event */
	size_t n;
	struct cal_event **order;	/* the schedulable ones */
	size_t m;
	size_t *pass_of;		/* per order[] entry */
	size_t npasses;
	int *pass_core;			/* per pass (room for m): index into cores, -1 when not bound to one */
	struct cal_core cores[4];
	size_t ncores;			/* 0 but on a hybrid CPU with perf */
};

/*
 * perf on a hybrid CPU: the core PMUs, their CPUs and those of them this process may run on, and
 * per order[] entry the core PMU it counts on (part[], -1 for none: software events).  Returns the
 * part the events of no core PMU ride with: the first core type that can be measured here, -1
 * when none can (they are then planned in passes of their own, unpinned).
 */
static int plan_cores(const struct cal_run *cr, struct cal_plan *pl, int *part)
{
	for (size_t i = 0; i < pl->m; i++)
		part[i] = -1;
	pl->ncores = 0;
#ifdef __linux__
	if (!cr->be || strcmp(cr->be->name, "perf"))
		return -1;
	struct perf_hybrid_pmu h[ARRAY_SIZE(pl->cores)];
	size_t nh = perf_hybrid_pmus(h, ARRAY_SIZE(h));
	nh = nh < ARRAY_SIZE(h) ? nh : ARRAY_SIZE(h);
	if (!nh)
		return -1;
	struct lk_cpus allowed = { 0 };
	bool have_allowed = runner_cpus_allowed(&allowed) == 0;
	char allowed_s[96];
	cpulist_format(&allowed, allowed_s, sizeof(allowed_s));
	for (size_t k = 0; k < nh; k++) {
		struct cal_core *c = &pl->cores[k];
		memset(c, 0, sizeof(*c));
		c->name = h[k].name;
		char text[4096], err[160];
		struct lk_cpus cpus = { 0 };
		if (perf_pmu_cpus(c->name, text, sizeof(text)) < 0) {
			notice("cannot read the CPUs of %s (its sysfs 'cpus' file): its events are measured wherever "
			       "the probe runs", c->name);
			continue;
		}
		if (cpulist_parse(text, &cpus, err, sizeof(err)) < 0) {
			notice("the CPUs of %s in sysfs are not a CPU list (%s): its events are measured wherever the "
			       "probe runs", c->name, err);
			continue;
		}
		cpulist_format(&cpus, c->cpus, sizeof(c->cpus));
		if (have_allowed)
			cpulist_and(&c->pin, &cpus, &allowed);
		else
			cpulist_copy(&c->pin, &cpus);
		if (!cpulist_count(&c->pin))
			snprintf(c->why, sizeof(c->why), "no CPU of %s (%s) is allowed to this process (its CPU affinity "
				 "or cpuset allows %s)", c->name, c->cpus[0] ? c->cpus : "none", allowed_s);
		cpulist_release(&cpus);
	}
	cpulist_release(&allowed);
	pl->ncores = nh;
	for (size_t i = 0; i < pl->m; i++)
		part[i] = perf_hybrid_index(pl->order[i]->ev, h, nh);
	for (size_t k = 0; k < nh; k++)
		if (!pl->cores[k].why[0])
			return (int)k;
#else
	(void)cr;
#endif
	return -1;
}

static void plan_passes(const struct cal_run *cr, struct cal_plan *pl)
{
	const struct lk_pmu *pmu = cr->pmu;
	size_t n = pmu->nevents;
	pl->n = n;
	pl->evs = xcalloc(n ? n : 1, sizeof(*pl->evs));
	pl->order = xcalloc(n ? n : 1, sizeof(*pl->order));
	pl->pass_of = xcalloc(n ? n : 1, sizeof(*pl->pass_of));
	const struct lk_event **list = xcalloc(n ? n : 1, sizeof(*list));
	pl->m = 0;
	for (size_t i = 0; i < n; i++) {
		pl->evs[i].ev = &pmu->events[i];
		if (pmu->events[i].flags & LK_EVF_NEEDS_SAMPLING) {
			mark(&pl->evs[i], CALIB_NEEDS_SAMPLING, "a PEBS-only event (Intel's PEBS=2): it counts only when "
			     "sampled, so a counting pass leaves it out");
			continue;
		}
		int counter;
		struct sched_conflict conflict;
		if (sched_assign(pmu, &pl->evs[i].ev, 1, &counter, &conflict) < 0) {
			mark(&pl->evs[i], CALIB_UNSCHEDULABLE, "no counter of this chip can count it");
			continue;
		}
		list[pl->m] = pl->evs[i].ev;
		pl->order[pl->m++] = &pl->evs[i];
	}
	/* on a hybrid CPU no pass mixes core types; elsewhere (every part -1) this is sched_passes() */
	int *part = xcalloc(pl->m ? pl->m : 1, sizeof(*part));
	int host = plan_cores(cr, pl, part);
	pl->pass_core = xcalloc(pl->m ? pl->m : 1, sizeof(*pl->pass_core));
	pl->npasses = sched_passes_parts(pmu, list, part, pl->m, host, pl->pass_of, pl->pass_core);
	free(part);
	free(list);
}

static void plan_release(struct cal_plan *pl)
{
	for (size_t k = 0; k < pl->ncores; k++)
		cpulist_release(&pl->cores[k].pin);
	free(pl->pass_core);
	free(pl->evs);
	free(pl->order);
	free(pl->pass_of);
}

/* Names as `counters` shows them (pmu_shown_name). */
static char *shown(const struct lk_pmu *pmu, const char *name)
{
	return pmu_shown_name(pmu, name);
}

/*
 * "cpu_atom, CPUs 16-23": the core type of a pass and the CPUs its probe runs on; "16-17 of
 * 16-23" when this process may use only some of them, none: its events are not measured.
 */
static void core_label(struct strbuf *sb, const struct cal_core *c)
{
	char pin[96];
	cpulist_format(&c->pin, pin, sizeof(pin));
	if (!c->cpus[0])
		strbuf_addf(sb, "%s", c->name);
	else if (c->why[0])
		strbuf_addf(sb, "%s, no CPU of %s allowed here", c->name, c->cpus);
	else if (strcmp(pin, c->cpus))
		strbuf_addf(sb, "%s, CPUs %s of %s", c->name, pin, c->cpus);
	else
		strbuf_addf(sb, "%s, CPUs %s", c->name, c->cpus);
}

/* --dry-run: one line per pass, "pass N: event event ...", then what a full run would take. */
static void print_plan(const struct cal_run *cr, const struct cal_plan *pl)
{
	for (size_t pass = 0; pass < pl->npasses; pass++) {
		struct strbuf line = STRBUF_INIT;
		strbuf_addf(&line, "pass %zu", pass + 1);
		int k = pl->pass_core[pass];
		if (k >= 0) {
			strbuf_addf(&line, " (");
			core_label(&line, &pl->cores[k]);
			strbuf_addf(&line, ")");
		}
		strbuf_addf(&line, ":");
		for (size_t i = 0; i < pl->m; i++)
			if (pl->pass_of[i] == pass) {
				char *s = shown(cr->pmu, pl->order[i]->ev->name);
				strbuf_addf(&line, " %s", s);
				free(s);
			}
		text_print(stdout, strbuf_str(&line), 4);
		strbuf_release(&line);
	}
	for (size_t i = 0; i < pl->n; i++)
		if (pl->evs[i].state == CALIB_UNSCHEDULABLE || pl->evs[i].state == CALIB_NEEDS_SAMPLING) {
			char *s = shown(cr->pmu, pl->evs[i].ev->name);
			printf("%s: %s\n", pl->evs[i].state == CALIB_NEEDS_SAMPLING ? "needs sampling" : "unschedulable", s);
			free(s);
		}
}

/* "55 passes x 3 probes x 3 scales x 3 rounds = 1485 probe runs" */
static double count_runs(const struct cal_run *cr, size_t npasses, char *buf, size_t len)
{
	double runs = (double)npasses * cr->nprobes * 3 * cr->reps;
	snprintf(buf, len, "%zu pass%s x %zu probes x 3 scales x %u round%s = %.0f probe runs", npasses,
		 npasses == 1 ? "" : "es", cr->nprobes, cr->reps, cr->reps == 1 ? "" : "s", runs);
	return runs;
}

static void announce(const struct cal_run *cr, const struct cal_plan *pl, const struct cal_opts *o)
{
	text_printf(stdout, 4, "calibrating %zu %s events of '%s' (%zu pass%s) with %s%s", pl->n, cr->be->name,
		    cr->pmu->name, pl->npasses, pl->npasses == 1 ? "" : "es", cr->probe, o->quick ? ", quick scales" : "");
	struct strbuf line = STRBUF_INIT;
	strbuf_addf(&line, "probes at 1x:");
	for (size_t p = 0; p < cr->nprobes; p++)
		strbuf_addf(&line, "%s %s %llu%s%s", p ? "," : "", cr->scales[p].probe, (unsigned long long)cr->scales[p].n,
			    cr->scales[p].arg ? " over " : "", cr->scales[p].arg ? cr->scales[p].arg : "");
	strbuf_addf(&line, "; each also at 4x and at 1 (baseline)%s", cr->reps > 1 ? ", minimum of 3 runs" :
		    !strcmp(cr->be->name, "valgrind") ? "" : ", one round (--quick)");
	text_print(stdout, strbuf_str(&line), 4);
	char runs[160];
	count_runs(cr, pl->npasses, runs, sizeof(runs));
	text_printf(stdout, 4, "plan: %s", runs);
	if (pl->ncores) {
		strbuf_reset(&line);
		strbuf_addf(&line, "hybrid CPU: each pass counts one core type, with the probe on its CPUs:");
		for (size_t k = 0; k < pl->ncores; k++) {
			strbuf_addf(&line, "%s", k ? "; " : " ");
			core_label(&line, &pl->cores[k]);
		}
		text_print(stdout, strbuf_str(&line), 4);
	}
	strbuf_release(&line);
	fflush(stdout);
}

static void print_estimate(double total, bool quick)
{
	if (total >= 90)
		printf("expected time: about %.0f min%s\n", total / 60, quick ? "" : " (--quick: smaller scales)");
	else
		printf("expected time: about %.0f s\n", total < 1 ? 1 : total);
}

/*
 * Warm-up: each probe once, unmeasured, timed; from those times the
 * expected duration of the whole calibration (a pass runs every probe at
 * 1x, 4x and the tiny baseline, in every round).
 */
static int warm_up(struct cal_run *cr, const struct cal_plan *pl, bool quick)
{
	size_t npasses = pl->npasses;
	double per_pass = 0;
	/*
	 * Timed through the backend, on one event of the plan: under valgrind a
	 * probe runs 50-300 times slower than natively and pays valgrind's
	 * start-up on every run, so native warm-ups predicted 2 s for a 14 s
	 * calibration.  Natively when the backend cannot open it.
	 */
	struct backend_inst bi;
	struct lk_evsel sel;
	struct lk_counts counts;
	bool opened = false;
	char err[256];
	memset(&sel, 0, sizeof(sel));
	if (pl->m) {
		sel.ev = pl->order[0]->ev;
		sel.counter = -1;
		int counter;
		if (sched_assign(cr->pmu, &sel.ev, 1, &counter, NULL) == 0)
			sel.counter = counter;
		if (backend_inst_open(&bi, cr->be, &sel, 1, err, sizeof(err)) == 0) {
			opened = !sel.err;
			if (!opened)
				backend_inst_close(&bi);
		}
	}
	/* on a hybrid CPU, on the core type of that event's pass: a P-core and an E-core differ in speed */
	int core = pl->m ? pl->pass_core[pl->pass_of[0]] : -1;
	if (core >= 0 && !pl->cores[core].why[0])
		runner_pin(&cr->run, &pl->cores[core].pin);
	for (size_t p = 0; p < cr->nprobes; p++) {
		progress(cr, 0, 0, cr->scales[p].probe, "warm-up", cr->scales[p].n);
		/* a run costs its set-up (t0, at scale 1) plus its work: baseline t0, 1x t1, 4x t0 + 4 (t1 - t0) */
		uint64_t start = lk_now_ns();
		if (run_probe(cr, p, cr->scales[p].n, opened ? &bi : NULL, opened ? &counts : NULL) < 0)
			goto fail;
		uint64_t mid = lk_now_ns();
		if (run_probe(cr, p, 1, opened ? &bi : NULL, opened ? &counts : NULL) < 0)
			goto fail;
		double t1 = (double)(mid - start) / 1e9, t0 = (double)(lk_now_ns() - mid) / 1e9;
		t0 = t0 < t1 ? t0 : t1;
		per_pass += (5 * t1 - 2 * t0) * cr->reps;
	}
	progress_clear(&cr->prog);
	runner_pin(&cr->run, NULL);
	if (opened)
		backend_inst_close(&bi);
	print_estimate(per_pass * (double)npasses, quick);
	printf("\n");
	fflush(stdout);
	return 0;
fail:
	runner_pin(&cr->run, NULL);
	if (opened)
		backend_inst_close(&bi);
	return -1;
}

/*
 * --dry-run: the same timed warm-ups as a real calibration (each probe once
 * at 1x and once at scale 1, unmeasured: a second or two), so the plan comes
 * with the time it would take.  Nothing is measured or stored.
 */
static void dry_run_estimate(struct cal_run *cr, const struct cal_plan *pl, bool quick)
{
	char err[512] = "";
	struct runner_opts ropts = { .show_output = false, .uid = -1, .gid = -1 };
	struct sudo_user su;
	runner_opts_sudo(&ropts, &su);
	if (probe_path_find(cr->probe, sizeof(cr->probe)) < 0 || runner_init(&cr->run, &ropts, err, sizeof(err)) < 0) {
		printf("expected time: unknown (the probe program cannot run here)\n");
		return;
	}
	progress_init(&cr->prog, true);
	if (warm_up(cr, pl, quick) < 0)
		printf("expected time: unknown (a warm-up run failed)\n");
	runner_release(&cr->run);
}

/* Every pass, splitting the ones the kernel refuses (sched_split_pass) until each is counted whole. */
static int run_passes(struct cal_run *cr, struct cal_plan *pl)
{
	char runs[160];
	progress_units(&cr->prog, count_runs(cr, pl->npasses, runs, sizeof(runs)));
	struct cal_event **sub = xcalloc(pl->m ? pl->m : 1, sizeof(*sub));
	int r = 0;
	for (size_t pass = 0; pass < pl->npasses && r >= 0; pass++) {
		size_t k = 0;
		for (size_t i = 0; i < pl->m; i++)
			if (pl->pass_of[i] == pass)
				sub[k++] = pl->order[i];
		int core = pl->pass_core[pass];
		const struct cal_core *c = core >= 0 ? &pl->cores[core] : NULL;
		if (c && c->why[0]) {	/* a cpuset without this core type: not measurable here, not a failure */
			for (size_t i = 0; i < k; i++)
				mark(sub[i], CALIB_UNSUPPORTED, c->why);
			cr->prog.total -= (double)cr->nprobes * 3 * cr->reps;	/* its runs will not be made */
			continue;
		}
		cr->core = c ? c->name : NULL;
		runner_pin(&cr->run, c ? &c->pin : NULL);
		r = measure_pass(cr, sub, k, pass, pl->npasses);
		if (r != CAL_REFUSED)
			continue;
		r = 0;
		for (size_t i = 0; i < k; i++)
			memset(sub[i]->counts, 0, sizeof(sub[i]->counts));
		size_t np = sched_split_pass(pl->pass_of, pl->m, pass, pl->npasses);
		if (np == pl->npasses) {
			mark(sub[0], CALIB_UNSUPPORTED, "the kernel would not give it a counter of its own");
			continue;
		}
		pl->pass_core[np - 1] = pl->pass_core[pass];	/* the split-off half stays on its core type */
		pl->npasses = np;
		progress_units(&cr->prog, count_runs(cr, pl->npasses, runs, sizeof(runs)));
		pass--;		/* the pass again, now half its size */
	}
	free(sub);
	cr->core = NULL;
	runner_pin(&cr->run, NULL);
	progress_clear(&cr->prog);
	return r;
}

/* Verdicts for every event, the table, the reasons and the summary line; true when nothing was counted. */
static bool judge(const struct cal_run *cr, const struct calib_expectations *exp, struct cal_plan *pl)
{
	size_t nval = 0, nfail = 0, nsilent = 0, ndead = 0, nlin = 0, nunsup = 0, nunsched = 0, nsampling = 0,
	       nnoisy = 0;
	const char *names[CALIB_MAX_PROBES];
	for (size_t p = 0; p < cr->nprobes; p++)
		names[p] = cr->scales[p].probe;
	for (size_t i = 0; i < pl->n; i++) {
		struct cal_event *e = &pl->evs[i];
		const struct calib_expect *checks[32];
		size_t nc = calib_expect_for(exp, cr->pmu, e->ev, checks, ARRAY_SIZE(checks));
		calib_judge(names, e->counts, cr->nprobes, e->state, checks, nc, &e->res);
		const char *v = e->res.verdict;
		nval += !strcmp(v, "validated");
		ndead += !strcmp(v, "dead here");
		nfail += calib_verdict_failed(v) && strcmp(v, "dead here");
		nsilent += !strcmp(v, "silent");
		nlin += !strcmp(v, "linear");
		nunsup += !strcmp(v, "unsupported");
		nunsched += !strcmp(v, "unschedulable");
		nsampling += !strcmp(v, "needs sampling");
		nnoisy += !strcmp(v, "noisy");
	}
	print_table(cr, pl->evs, pl->n);
	printf("\n");
	print_reasons(cr, pl->evs, pl->n);
	if (cr->extra_rounds)
		text_printf(stdout, 4, "re-measured: %u more round%s of the probes where a count read non-linear "
			    "(a noisy machine; at most %d per pass)", cr->extra_rounds, cr->extra_rounds == 1 ? "" : "s",
			    CAL_EXTRA_ROUNDS);
	text_printf(stdout, 4, "%zu events: %zu validated, %zu failed, %zu silent, %zu dead here, %zu linear (no "
		    "expectation), %zu unsupported, %zu unschedulable", pl->n, nval, nfail, nsilent, ndead, nlin, nunsup,
		    nunsched);
	if (nnoisy)
		text_printf(stdout, 4, "%zu event%s too noisy to judge (neither validated nor failed)", nnoisy,
			    nnoisy == 1 ? "" : "s");
	if (nsampling)
		text_printf(stdout, 4, "%zu PEBS-only event%s left out (needs sampling: Intel's PEBS=2)", nsampling,
			    nsampling == 1 ? "" : "s");
	fflush(stdout);
	return pl->n && nunsup + nunsched + nsampling == pl->n;
}

/* The reason the first uncounted event gave (every event had one: nothing was counted). */
static const char *nothing_counted_why(const struct cal_plan *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->evs[i].state != CALIB_MEASURED && pl->evs[i].why[0])
			return pl->evs[i].why;
	return "every event was refused";
}

/* Store the verdicts and draw the plot; the exit code. */
static int finish(struct catalog *cat, const struct cal_run *cr, const struct cal_opts *o, struct cal_plan *pl)
{
	if (store(cat, cr->be, cr, pl->evs, pl->n) < 0)
		return EXIT_COUNTERS;
	/* backend_default() probes every backend (perf opens an event): ask once. */
	bool is_default = cr->be == backend_default();
	char more[160] = "";
	if (o->pmu)
		snprintf(more, sizeof(more), " --pmu %s", cr->pmu->name);
	text_printf(stdout, 4, "verdicts stored for machine '%s'; see 'lauka counters --details%s%s%s'",
		    catalog_machine(cat), is_default ? "" : " --backend ", is_default ? "" : cr->be->name, more);
	if (!o->plot)
		return 0;
	char err[512] = "";
	if (plot_calib_write(cat, cr->be->name, o->plot, err, sizeof(err)) < 0) {
		error("%s", err);
		return EXIT_COUNTERS;	/* a file error, like a failed export (checked writable before the runs) */
	}
	text_printf(stdout, 4, "plot written to '%s'", o->plot);
	return 0;
}

/* The catalogue to calibrate (the backend's, or --pmu's), ready to store verdicts unless --dry-run. */
static int open_catalogue(const struct cal_opts *o, struct cal_run *cr, struct catalog **cat)
{
	char err[1024] = "";
	struct catalog_opts copts = { .db_path = o->db, .pmu_name = o->pmu, .smt_off = o->smt_off };
	int r = catalog_open(cat, cr->be, &copts, err, sizeof(err));
	if (r < 0) {
		error("cannot load the %s event catalogue: %s", o->pmu ? o->pmu : cr->be->name, err);
		if (r == -LK_EINVAL && o->smt_off)
			fix("leave out --smt off: lauka plans this model with its counters per thread as libpfm4 gives them");
		return r == -LK_ENOENT && o->pmu ? EXIT_USAGE : EXIT_COUNTERS;
	}
	cr->pmu = catalog_pmu(*cat);
	if (!cr->pmu->nevents) {
		error("the %s catalogue '%s' has no events to calibrate", cr->be->name, cr->pmu->name);
		return EXIT_COUNTERS;
	}
	/* Its verdicts are stored at the end: find out now, not after the whole calibration, that they cannot be. */
	if (!o->dry_run && db_check_writable(catalog_db(*cat), err, sizeof(err)) < 0) {
		error("%s", err);
		tip("calibrate stores its verdicts in the database; nothing was measured");
		return EXIT_COUNTERS;
	}
	/* valgrind is exact and slow: one run per scale.  Elsewhere counts
	 * carry noise (interrupts, page zeroing), so keep the minimum of three,
	 * the estimator least disturbed by it. */
	bool exact = !strcmp(cr->be->name, "valgrind");
	/* LAUKA_CALIB_SCALES=small: valgrind's scales on any backend, for a CPU that is itself
	 * emulated (QEMU's, tens of times slower than the host: scripts/pmu-vm.sh). */
	const char *sc = getenv("LAUKA_CALIB_SCALES");
	if (sc && *sc && strcmp(sc, "small") && strcmp(sc, "native")) {
		error("LAUKA_CALIB_SCALES='%s' is neither 'small' nor 'native'", sc);
		tip("small: the probe scales of the valgrind backend, for an emulated CPU");
		return EXIT_USAGE;
	}
	bool small = exact || (sc && !strcmp(sc, "small"));
	cr->scales = calib_scales(o->quick, small, &cr->nprobes);
	cr->reps = exact ? 1 : 3;
	cr->split_refused = !strcmp(cr->be->name, "perf");
	return 0;
}

/* Measure, judge and store: everything after the plan. */
static int calibrate(struct cal_run *cr, const struct cal_opts *o, struct catalog *cat, struct cal_plan *pl)
{
	struct calib_expectations exp = { 0 };
	char err[512] = "";
	if (load_expectations(&exp) < 0)
		return EXIT_COUNTERS;
	struct runner_opts ropts = { .show_output = false, .uid = -1, .gid = -1 };
	/* Under sudo (kperf needs root) the probes run as the user who typed it, as record's commands do. */
	struct sudo_user su;
	runner_opts_sudo(&ropts, &su);
	if (runner_init(&cr->run, &ropts, err, sizeof(err)) < 0) {
		error("%s", err);
		calib_expect_release(&exp);
		return EXIT_COUNTERS;
	}
	runner_signals_install();
	progress_init(&cr->prog, true);
	announce(cr, pl, o);
	int rc = EXIT_COUNTERS;
	if (warm_up(cr, pl, o->quick) == 0 && run_passes(cr, pl) == 0) {
		bool none = judge(cr, &exp, pl);
		rc = finish(cat, cr, o, pl);
		if (rc == 0 && none) {
			/* Verdicts of "unsupported" are facts worth keeping, but a calibration that counted
			 * nothing did not succeed. */
			error("nothing could be counted on this machine with the %s backend: %s", cr->be->name,
			      nothing_counted_why(pl));
			rc = EXIT_COUNTERS;
		}
	} else {
		progress_clear(&cr->prog);
		if (runner_interrupted) {
			fprintf(stderr, "lauka: interrupted; nothing stored\n");
			rc = 128 + runner_interrupted;
		}
	}
	runner_release(&cr->run);
	calib_expect_release(&exp);
	return rc;
}

/*
 * perf on a machine without a hardware PMU (most VMs) counts only software events: calibrating
 * them takes a minute and leaves every hardware event "unsupported".  Chosen by default, calibrate
 * stops at once and points at valgrind's simulated counters, which such a machine has; asked for
 * by name (--backend perf, LAUKA_BACKEND), it says so first and goes on.  0, or the exit code.
 */
static int no_pmu_first(const struct cal_opts *o, const struct lk_backend *be)
{
#ifdef __linux__
	if (strcmp(be->name, "perf") || o->pmu || perf_have_core_pmu())
		return 0;
	const char *env = getenv("LAUKA_BACKEND");
	if (!o->backend && (!env || !*env)) {
		error("this machine has no hardware PMU (virtual machines usually have none): perf could "
		      "calibrate only its software events here");
		fix("lauka calibrate --backend valgrind --quick (exact simulated counts: Ir, cache and branch misses)");
		tip("'lauka calibrate --backend perf' calibrates the software events all the same");
		return EXIT_COUNTERS;
	}
	notice("this machine has no hardware PMU: only perf's software events can be calibrated; "
	     "'--backend valgrind --quick' calibrates exact simulated counts");
#else
	(void)o;
	(void)be;
#endif
	return 0;
}

int cmd_calibrate(int argc, char **argv)
{
	struct cal_opts o = { 0 };
	int pr = parse_options(argc, argv, &o);
	if (pr > 0)
		return 0;
	if (pr < 0)
		return EXIT_USAGE;

	struct cal_run cr = { 0 };
	int r = choose_backend(&o, &cr.be, argc, argv);
	if (r < 0)
		return -r;
	if ((r = no_pmu_first(&o, cr.be)))
		return r;
	if (!o.dry_run && probe_path_find(cr.probe, sizeof(cr.probe)) < 0)
		return EXIT_USAGE;
	char perr[512];
	if (o.plot && plot_path_check(o.plot, perr, sizeof(perr)) < 0) {
		error("%s", perr);
		return EXIT_USAGE;
	}
	/* xctrace: the guided mode's unlabelled slots, named by the probes (machine/xctrace-slots.c). */
	if (!strcmp(cr.be->name, "xctrace")) {
		if (!o.dry_run)
			xct_check_announce();	/* A2/C7: the self-check, once per calibrate */
		return xctrace_calibrate(cr.be, cr.probe, o.db, o.quick);
	}

	struct catalog *cat = NULL;
	struct cal_plan pl = { 0 };
	int rc = open_catalogue(&o, &cr, &cat);
	if (rc == 0) {
		plan_passes(&cr, &pl);
		/* A vendor catalogue takes tens of passes: --quick then keeps one round, not the minimum of three. */
		if (o.quick && pl.npasses >= CAL_MANY_PASSES)
			cr.reps = 1;
		if (o.dry_run) {
			print_plan(&cr, &pl);
			char runs[160];
			count_runs(&cr, pl.npasses, runs, sizeof(runs));
			printf("%zu events in %zu pass%s; a full run: %s%s\n", pl.m, pl.npasses, pl.npasses == 1 ? "" : "es",
			       runs, o.quick ? " (quick scales)" : "");
			if (!o.passes) {
				fflush(stdout);
				dry_run_estimate(&cr, &pl, o.quick);
			}
		} else {
			rc = calibrate(&cr, &o, cat, &pl);
		}
	}
	plan_release(&pl);
	catalog_close(cat);
	return rc;
}
