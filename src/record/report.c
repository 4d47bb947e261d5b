/*
 * record/report.c: the report phase of record: one block per command (as
 * soon as it and every command before it are done), the gate summary, the
 * baseline, the export files, and the exit code:
 *
 *   2  a collection error, or the results could not be written
 *   N  the first failing command's (or hook's) code, else the first failing check's
 *   128 + N  lauka interrupted by signal N
 *   3  a gate failed (and nothing else did)
 *   4  a gate could not tell (and nothing else failed; --gate-inconclusive
 *      pass|fail makes it 0 or 3)
 */
#include "backend/kperf/kperf.h"
#include "backend/valgrind.h"
#ifdef __linux__
#include "backend/perf-events.h"
#endif
#include "catalog/notes.h"
#include "machine/xctrace-check.h"
#include "base/envvars.h"
#include "base/error.h"
#include "base/text.h"
#include "output/export.h"
#include "output/plot-out.h"
#include "stats/gate.h"
#include "record/record.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"
#define C_RESET "\033[0m"

void record_flush_stdout(struct record *rec)
{
	if (rec->out && rec->out != stdout)
		fflush(rec->out);
	if (fflush(stdout) != 0 && !rec->stdout_errno)
		rec->stdout_errno = errno ? errno : EIO;
}

/*
 * The reference of command ci in column col: the baseline's, or the first
 * command's; NULL when there is none or it has no counted run.  (With one
 * run of a measurement that varies, the delta has no interval: compute_rows.)
 */
static const struct lk_stats *reference(const struct record *rec, const struct record_cmd *c, size_t col)
{
	const struct lk_stats *ref;
	if (c->ref)
		ref = &c->ref[col];
	else if (c == &rec->cmds[0] || c == &rec->shell_cost || !rec->cmds[0].done)
		return NULL;
	else
		ref = &rec->cmds[0].rows[col].st;
	return ref->n >= 1 ? ref : NULL;
}

/* Say once why deltas have no interval: the reference completed one run (a sampled backend). */
static void short_reference_note(struct record *rec)
{
	static bool said;
	if (said || rec->ncmds < 2 || rec->have_base || !rec->cmds[0].finished || rec->cmds[0].done != 1 ||
	    (rec->be && rec->be->deterministic))
		return;
	said = true;
	warning("command 1, the reference, completed 1 run: deltas against it have no interval and no verdict "
		"(they need 2 runs or more)");
}

static void compute_rows(struct record *rec, struct record_cmd *c)
{
	for (size_t i = 0; i < rec->ncols; i++) {
		struct report_row *row = &c->rows[i];
		row->name = rec->cols[i].label;
		row->unit = rec->cols[i].unit;
		stats_compute(c->vals[i], c->done, &row->st);
		row->not_counted = row->st.n == 0;	/* not counted in any run (NaN samples are left out) */
		row->scaled = c->coverage[i] < 1;
		row->coverage = c->coverage[i];
		row->exact = record_col_exact(rec, i);
		const struct lk_stats *ref = c->done ? reference(rec, c, i) : NULL;
		row->has_delta = ref != NULL;
		if (!row->has_delta)
			continue;
		compare_delta(ref, &row->st, &row->delta);
		/* Exact counts, one value a side: their difference is exact too (min, not a mean's sum). */
		row->has_diff = row->exact && row->st.n && row->st.min == row->st.max && ref->min == ref->max;
		row->diff = row->has_diff ? row->st.min - ref->min : 0;
		/* One run of a varying measurement has no spread: the change, but no interval and no verdict. */
		row->point_only = !row->exact && (ref->n < 2 || row->st.n < 2);
		if (row->point_only) {
			row->delta.bounded = false;
			row->delta.ci_low = row->delta.ci_high = NAN;
			row->delta.verdict = DELTA_NONE;
		}
	}
}

/*
 * A deterministic backend's runs, two or more: were their counts identical?
 * If not, the command's work differs from run to run (files it finds, writes
 * or races on): its deltas and gates then go by spread and interval.
 */
static void runs_identical_note(struct record *rec, const struct record_cmd *c, unsigned index)
{
	if (!rec->be || !rec->be->deterministic || c->done < 2 || c == &rec->shell_cost)
		return;
	const struct report_row *worst = NULL;
	for (size_t i = 0; i < rec->ncols; i++)
		if (c->rows[i].exact && c->rows[i].st.n >= 2 && c->rows[i].st.sd > 0 &&
		    (!worst || c->rows[i].st.sd / fabs(c->rows[i].st.mean) > worst->st.sd / fabs(worst->st.mean)))
			worst = &c->rows[i];
	if (!worst) {
		fprintf(rec->out, "(the %zu runs gave identical %s counts)\n\n", c->done, rec->be->name);
		return;
	}
	char sd[32];
	report_fmt_value(worst->st.sd, worst->unit, sd, sizeof(sd));
	warning("command %u's %zu runs gave different %s counts (%s σ %s): its work is not the same from run to run "
		"(side effects, or runs at once racing on files); deltas and gates go by their spread", index, c->done,
		rec->be->name, worst->name, sd);
}

/* --collect FUNC that counted nothing: the function never ran, or callgrind knows it by another name. */
static void collect_note(const struct record *rec, const struct record_cmd *c, unsigned index)
{
	for (size_t i = 0; rec->o.collect && i < rec->ncols; i++)
		if (c->rows[i].exact && c->rows[i].st.n && c->rows[i].st.max == 0 && !strcmp(rec->cols[i].ev->name, "Ir")) {
			warning("--collect '%s' counted nothing in command %u: the function never ran, or has another "
				"symbol name (callgrind matches names, with * and ? as wildcards)", rec->o.collect, index);
			return;
		}
}

static void print_block(struct record *rec, struct record_cmd *c, unsigned index, const char *title)
{
	struct report_opts ro = rec->ro;
	char footer[96];
	ro.title = title;
	if (c->check_ok) {
		snprintf(footer, sizeof(footer), "checks: %zu of %zu passed", c->checks_passed, c->done);
		ro.footer = footer;
	} else if (c == &rec->shell_cost)
		ro.footer = "(the shell's own cost: part of every count below)";
	char *text = c->name ? xasprintf("%s (%s)", c->name, c->prog.text) : NULL;
	if (c == &rec->shell_cost)
		text = xasprintf("%s -c ''", rec->o.shell);
	report_block(rec->out, &ro, index, c->done, text ? text : c->prog.text, c->rows, rec->ncols);
	free(text);
	record_flush_stdout(rec);
	/* Scaled counts are never silent: below 99% counted, say so once per command. */
	double low = 1;
	for (size_t i = 0; i < rec->ncols; i++)
		if (c->rows[i].scaled && !c->rows[i].not_counted && c->rows[i].coverage < low)
			low = c->rows[i].coverage;
	if (low < 0.99)
		warning("only %.1f%% of command %u's run was counted (sampling or multiplexing); "
			"the counts marked 'scaled' are extrapolated", low * 100, index);
	/* Runs a counter never ran in are left out of its statistics, never averaged in as 0. */
	for (size_t i = 0; i < rec->ncols; i++) {
		const struct report_row *row = &c->rows[i];
		/* --passes: a counter is open in its own pass's runs only */
		size_t due = c->done;
		if (rec->npasses > 1 && rec->cols[i].backend == 1 && c->planned)
			for (size_t k = due = 0; k < c->done; k++) {
				size_t p = record_pass_of_run(rec, k, c->planned);
				due += rec->cols[i].index >= rec->pass_start[p] && rec->cols[i].index < rec->pass_start[p + 1];
			}
		if (!row->not_counted && row->st.n < due)
			warning("'%s' was not counted in %zu of command %u's %zu runs (no sample, or no time on a "
				"counter); its statistics are over the %zu runs that were", row->name,
				due - row->st.n, index, due, row->st.n);
	}
	runs_identical_note(rec, c, index);
	collect_note(rec, c, index);
	if (c->lingering)
		warning("command %u left processes running after it exited (%zu of its %zu runs, warm-ups included: "
			"its process group still had members); they were counted only until the command exited, "
			"as perf stat counts (doc/linux.md, How perf counts a command)",
			index, c->lingering, c->done + (size_t)c->warmups);
	/* Direct process only; user mode (kperf, macOS rusage); xctrace's failed self-check (A2/C7). */
	if (c != &rec->shell_cost) {
		kperf_record_tips(rec->be ? rec->be->name : "rusage", c->prog.argv, c == &rec->cmds[0]);
		xct_check_record_note(rec->be ? rec->be->name : NULL);
	}
}

/* The column of a measured event of the counter backend, or -1. */
static long column_of(const struct record *rec, const struct lk_event *ev)
{
	for (size_t i = 0; ev && i < rec->ncols; i++)
		if (rec->cols[i].backend == 1 && rec->cols[i].ev == ev)
			return (long)i;
	return -1;
}

/* --explain: the diagnosis under command c's block, against the first command or the baseline. */
static void explain_block(struct record *rec, struct record_cmd *c)
{
	const struct explain *x = &rec->explain;
	struct explain_cmd *e = &c->ex, base = { 0 };
	long col[DIAG_ROLES];
	for (int k = 0; k < DIAG_ROLES; k++) {
		col[k] = column_of(rec, x->cat_ev[k]);
		e->runs[k] = col[k] >= 0 ? c->vals[col[k]] : NULL;
		base.runs[k] = col[k] >= 0 && c->ref_samples ? c->ref_samples[col[k]] : NULL;
	}
	e->n = c->done;
	e->funcs = c->funcs;
	explain_read(x, e);
	const struct cg_table *ref_funcs = NULL;
	if (c->ref_samples) {
		base.n = c->ref_runs;
		explain_read(x, &base);
		explain_cause(&base, e);
	} else if (c != &rec->cmds[0] && rec->cmds[0].done) {
		explain_cause(&rec->cmds[0].ex, e);
		ref_funcs = rec->cmds[0].funcs;
	}
	explain_print(rec->out, rec->ro.width, x, e, ref_funcs);
	free(c->diagnosis);
	c->diagnosis = explain_json(x, e, ref_funcs);
	record_flush_stdout(rec);
}

void record_report_ready(struct record *rec)
{
	progress_clear(&rec->prog);
	if (rec->have_shell_cost && rec->shell_cost.finished && !rec->shell_cost_shown) {
		rec->shell_cost_shown = true;
		compute_rows(rec, &rec->shell_cost);
		if (rec->shell_cost.done)
			print_block(rec, &rec->shell_cost, 0, "Shell alone");
	}
	while (!rec->hold_blocks && rec->next_block < rec->ncmds && rec->cmds[rec->next_block].finished) {
		struct record_cmd *c = &rec->cmds[rec->next_block++];
		if (c != &rec->cmds[0])
			short_reference_note(rec);
		compute_rows(rec, c);
		if (c->done)
			print_block(rec, c, (unsigned)rec->next_block, NULL);
		if (c->done && rec->o.explain)
			explain_block(rec, c);
	}
}

static void fmt_pct(double v, char *buf, size_t len)
{
	if (isinf(v))
		snprintf(buf, len, "%s", v > 0 ? "+inf" : "-inf");
	else if (!isfinite(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.2f%%", v);
}

/* No gate had a reference to compare with: say why, never "0 of 0 gate checks failed". */
static void gates_not_evaluated(struct record *rec)
{
	if (rec->first_baseline)
		fprintf(rec->out, "Gates: not evaluated: there was no baseline '%s' for runner class '%s' yet; "
			"this run saves it\n", rec->o.baseline, rec->runner_class);
	else
		fprintf(rec->out, "Gates: not evaluated: no command with runs has a reference\n");
	record_flush_stdout(rec);
}

/* A timing measurement (nanoseconds: wall_time, user_time, task-clock, ...), which the machine's load moves. */
static bool gate_timing(const struct record *rec, size_t col)
{
	return !record_col_exact(rec, col) && rec->cols[col].unit && !strcmp(rec->cols[col].unit, "ns");
}

/* Timing gates against a stored baseline (issue 37 T2): inconclusive, and why, with the fix. */
static void other_session_warnings(const struct record *rec)
{
	for (size_t g = 0; rec->have_base && g < rec->ngates; g++) {
		if (!gate_timing(rec, rec->gates[g].col))
			continue;
		warning("gate '%s': %s against baseline '%s', measured in another session: timings drift between "
			"sessions (load, clock frequency, other tenants) by more than the interval of either holds, so "
			"this gate is inconclusive", rec->gates[g].spec, rec->cols[rec->gates[g].col].label, rec->o.baseline);
		fix("measure the base build in the same invocation, where lauka interleaves their runs: "
		    "lauka --gate %s -- 'BASE BUILD' 'THIS BUILD'; or gate on a count load does not move "
		    "(--backend valgrind --gate Ir=1%%)", rec->gates[g].spec);
	}
}

/* The gate summary table: one row per evaluated gate, its interval at its level, its outcome. */
static void print_gate_table(struct record *rec, const struct export_gate *out, size_t n, const char *against)
{
	char level[32];
	double alpha = rec->gate_alpha > 0 && rec->gate_alpha < GATE_ALPHA ? rec->gate_alpha : GATE_ALPHA;
	snprintf(level, sizeof(level), "%.4g%% interval", 100 * (1 - alpha));
	fprintf(rec->out, "Gates (against %s):\nFAIL: the change's %s lies wholly above the limit;\n"
		"pass: wholly at or below it; inconclusive: on both sides (the data cannot tell)\n", against, level);
	if (alpha < GATE_ALPHA)
		fprintf(rec->out, "(%zu looks planned, each at %.4g%% confidence,\nso that together they err at most %g%% "
			"each way)\n", rec->nlooks, 100 * (1 - alpha), 100 * GATE_ALPHA / 2);
	fputc('\n', rec->out);
	const char *hdr[5] = { "gate", "command", "change", level, "result" };
	size_t w[5];
	for (int k = 0; k < 5; k++)
		w[k] = strlen(hdr[k]);
	char (*cells)[5][160] = xcalloc(n ? n : 1, sizeof(*cells));
	for (size_t i = 0; i < n; i++) {
		const struct export_gate *eg = &out[i];
		const struct record_cmd *c = &rec->cmds[eg->command];
		char lo[32], hi[32];
		snprintf(cells[i][0], 160, "%s", eg->spec);
		snprintf(cells[i][1], 160, "%zu: %.100s", eg->command + 1, c->name ? c->name : c->prog.text);
		fmt_pct(eg->eval.change, cells[i][2], 160);
		const struct lk_stats *rs = reference(rec, c, eg->col);
		size_t rn = rs ? rs->n : 0, cn = c->rows[eg->col].st.n;
		if (eg->eval.basis == GATE_EXACT && rn == 1 && cn == 1)
			snprintf(cells[i][3], 160, "1 run each, assumed deterministic");	/* not re-checked */
		else if (eg->eval.basis == GATE_EXACT && rn == cn)
			snprintf(cells[i][3], 160, "exact (sd 0, %zu runs each)", cn);
		else if (eg->eval.basis == GATE_EXACT)
			snprintf(cells[i][3], 160, "exact (sd 0, %zu and %zu runs)", rn, cn);
		else if (eg->eval.basis == GATE_UNBOUNDED)
			snprintf(cells[i][3], 160, "unbounded");
		else if (eg->eval.basis == GATE_TOO_FEW)
			snprintf(cells[i][3], 160, "too few runs");
		else if (eg->eval.basis == GATE_OTHER_SESSION && !isfinite(eg->eval.ci_low))
			snprintf(cells[i][3], 160, "another session");
		else {
			fmt_pct(eg->eval.ci_low, lo, sizeof(lo));
			fmt_pct(eg->eval.ci_high, hi, sizeof(hi));
			snprintf(cells[i][3], 160, "[%s, %s]", lo, hi);	/* another session: the warning says so */
		}
		snprintf(cells[i][4], 160, "%s", eg->eval.failed ? "FAIL" : eg->eval.inconclusive ? "inconclusive" : "pass");
		for (int k = 0; k < 5; k++)
			if (strlen(cells[i][k]) > w[k])
				w[k] = strlen(cells[i][k]);
	}
	for (int k = 0; k < 4; k++)
		fprintf(rec->out, "%-*s  ", (int)w[k], hdr[k]);
	fprintf(rec->out, "%s\n", hdr[4]);
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < 4; k++)
			fprintf(rec->out, "%-*s  ", (int)w[k], cells[i][k]);
		bool failed = out[i].eval.failed;
		if (rec->ro.color)
			fprintf(rec->out, "%s%s%s\n", failed ? C_RED : out[i].eval.inconclusive ? C_YELLOW : C_GREEN,
				cells[i][4], C_RESET);
		else
			fprintf(rec->out, "%s\n", cells[i][4]);
	}
	for (size_t g = 0; g < rec->ngates; g++) {
		bool any = false;
		for (size_t i = 0; i < n; i++)
			any |= out[i].spec == rec->gates[g].spec;
		if (!any)
			fprintf(rec->out, "%s   not evaluated: no command with runs has a reference\n", rec->gates[g].spec);
	}
	size_t failed = 0, unsure = 0;
	for (size_t i = 0; i < n; i++) {
		failed += out[i].eval.failed;
		unsure += out[i].eval.inconclusive;
	}
	fprintf(rec->out, "\n%zu of %zu gate check%s failed", failed, n, n == 1 ? "" : "s");
	if (unsure)
		fprintf(rec->out, ", %zu inconclusive (%s)", unsure,
			rec->o.gate_inconclusive == INCONCLUSIVE_PASS ? "counted as passed: --gate-inconclusive pass"
			: rec->o.gate_inconclusive == INCONCLUSIVE_FAIL ? "counted as failed: --gate-inconclusive fail"
			: "exit 4");
	fputc('\n', rec->out);
	if (unsure && rec->o.gate_inconclusive == INCONCLUSIVE_EXIT)
		tip("an inconclusive gate's interval reaches both sides of its limit (or is unbounded, or has too few "
		    "runs): more runs (-n, --min-runs) narrow it; --gate-inconclusive pass|fail chooses for CI");
	free(cells);
}

/* Every gate on every command that has a reference: the verdicts, and the summary table. */
static struct export_gate *evaluate_gates(struct record *rec, size_t *n)
{
	*n = 0;
	if (!rec->ngates)
		return NULL;
	struct export_gate *out = xcalloc(rec->ngates * rec->ncmds, sizeof(*out));
	for (size_t g = 0; g < rec->ngates; g++) {
		const struct record_gate *gt = &rec->gates[g];
		for (size_t ci = 0; ci < rec->ncmds; ci++) {
			const struct record_cmd *c = &rec->cmds[ci];
			const struct report_row *row = &c->rows[gt->col];
			const struct lk_stats *ref = c->done ? reference(rec, c, gt->col) : NULL;
			if (!ref)
				continue;
			struct export_gate *eg = &out[(*n)++];
			eg->spec = gt->spec;
			eg->measurement = rec->cols[gt->col].label;
			eg->limit = gt->limit;
			eg->command = ci;
			eg->col = gt->col;
			/* Gates that looked several times (issue 37): each look's interval is widened. */
			struct lk_delta d = row->delta;
			eg->confidence = 1 - GATE_ALPHA;
			if (rec->gate_alpha > 0 && rec->gate_alpha < GATE_ALPHA && !row->point_only) {
				compare_delta_level(ref, &row->st, rec->gate_alpha, &d);
				eg->confidence = 1 - rec->gate_alpha;
			}
			gate_evaluate(ref, &row->st, &d, gt->limit, record_col_exact(rec, gt->col), &eg->eval);
			if (rec->have_base && gate_timing(rec, gt->col))
				gate_other_session(&eg->eval);
			rec->gate_failed |= eg->eval.failed;
			rec->gate_inconclusive |= eg->eval.inconclusive;
		}
	}
	other_session_warnings(rec);
	char against[128];
	if (rec->have_base && rec->o.git)
		snprintf(against, sizeof(against), "baseline '%s' of %.12s", rec->o.baseline, rec->base_commit);
	else if (rec->have_base)
		snprintf(against, sizeof(against), "baseline '%s'", rec->o.baseline);
	else
		snprintf(against, sizeof(against), "command 1");
	if (!*n) {
		gates_not_evaluated(rec);
		return out;
	}
	/* Two lines, each within 80 columns for a short baseline name. */
	print_gate_table(rec, out, *n, against);
	/* Under valgrind, where the work of a command that failed a gate went (--explain shows it anyway). */
	for (size_t ci = 0; ci < rec->ncmds && !rec->o.explain; ci++) {
		bool gated = false;
		for (size_t i = 0; i < *n; i++)
			gated |= out[i].command == ci && out[i].eval.failed;
		const struct record_cmd *c = &rec->cmds[ci];
		if (!gated || !c->funcs)
			continue;
		fprintf(rec->out, "\nCommand %zu (failed a gate): %s\n", ci + 1, c->name ? c->name : c->prog.text);
		explain_print_functions(rec->out, rec->ro.width, c->funcs, rec->have_base || ci == 0 ? NULL : rec->cmds[0].funcs);
	}
	record_flush_stdout(rec);
	return out;
}

/* The commit of the working directory, when it is a git checkout (malloc'd), else NULL. */
static char *git_commit(void)
{
	FILE *p = popen("command -v git >/dev/null 2>&1 && git rev-parse --verify -q HEAD 2>/dev/null", "r");
	if (!p)
		return NULL;
	char line[128] = "";
	char *ok = fgets(line, sizeof(line), p);
	pclose(p);
	line[strcspn(line, "\r\n")] = '\0';
	size_t n = strlen(line);
	if (!ok || (n != 40 && n != 64) || strspn(line, "0123456789abcdef") != n)
		return NULL;
	return xstrdup(line);
}

/*
 * What the counts depend on that lauka cannot pin, kept with a baseline:
 * each command's program (the path it resolved to), the variables that
 * change what a program does, as the user set them (base/envvars.h: locale,
 * time zone, hash seeds), and, under valgrind, its version, the loader cache
 * and the C library (backend/valgrind.h).
 */
static char *baseline_fingerprint(const struct record *rec)
{
	struct strbuf sb = STRBUF_INIT;
	if (rec->be && !strcmp(rec->be->name, "valgrind")) {
		char *vg = valgrind_fingerprint();
		strbuf_addf(&sb, "%s ", vg);
		free(vg);
	}
	if (rec->o.collect)
		strbuf_addf(&sb, "collect:%s ", rec->o.collect);	/* counts from that function on only */
	strbuf_addf(&sb, "programs:");
	for (size_t ci = 0; ci < rec->ncmds; ci++)
		strbuf_addf(&sb, "%s%s", ci ? "," : "", rec->cmds[ci].prog.path[0] ? rec->cmds[ci].prog.path : "?");
	char *env = lk_env_fingerprint();
	strbuf_addf(&sb, " %s", env);
	free(env);
	char *out = xstrdup(strbuf_str(&sb));
	strbuf_release(&sb);
	return out;
}

/*
 * A baseline measured where something lauka cannot pin was different: say
 * so beside the gates, as the likely cause of a difference in counts.
 */
static void fingerprint_note(const struct record *rec)
{
	if (!rec->have_base || !rec->base.fingerprint)
		return;
	char *now = baseline_fingerprint(rec);
	if (strcmp(now, rec->base.fingerprint)) {
		warning("baseline '%s' was measured with another environment: '%s', now '%s'", rec->o.baseline,
			rec->base.fingerprint, now);
		tip("a difference in counts may come from that (another locale or time zone, loader cache, C library, "
		    "valgrind or program path) rather than from the code");
	}
	free(now);
}

/* --save-baseline: only a complete, checked measurement becomes a baseline. */
static int save_baseline(struct record *rec)
{
	const char *name = rec->o.save_baseline;
	if (!name)
		return 0;
	char why[160] = "";
	if (runner_interrupted)
		snprintf(why, sizeof(why), "lauka was interrupted");
	else if (rec->collect_err)
		snprintf(why, sizeof(why), "the measurement failed");
	for (size_t ci = 0; ci < rec->ncmds && !why[0]; ci++) {
		const struct record_cmd *c = &rec->cmds[ci];
		if (c->stopped || c->done < c->planned)
			snprintf(why, sizeof(why), "command %zu did not complete its runs", ci + 1);
		else if (c->check_ok && c->checks_passed < c->done)
			snprintf(why, sizeof(why), "the --check of command %zu failed on %zu of %zu runs", ci + 1,
				 c->done - c->checks_passed, c->done);
	}
	if (why[0]) {
		error("baseline '%s' not saved: %s", name, why);
		return 0;
	}
	struct db_baseline b = {
		.name = (char *)name, .runner_class = rec->runner_class,
		.backend = (char *)(rec->be ? rec->be->name : "rusage"), .lauka_version = (char *)LAUKA_VERSION,
		.git_commit = git_commit(), .shell = (char *)rec->o.shell, .nmeas = rec->ncols, .ncmds = rec->ncmds,
	};
	b.meas = xcalloc(rec->ncols ? rec->ncols : 1, sizeof(char *));
	b.units = xcalloc(rec->ncols ? rec->ncols : 1, sizeof(char *));
	for (size_t i = 0; i < rec->ncols; i++) {
		b.meas[i] = record_col_meas(rec, i);
		b.units[i] = (char *)rec->cols[i].unit;
	}
	b.cmds = xcalloc(rec->ncmds, sizeof(*b.cmds));
	for (size_t ci = 0; ci < rec->ncmds; ci++)
		b.cmds[ci] = (struct db_baseline_cmd){ .name = (char *)rec->cmds[ci].name,
						       .command = (char *)rec->cmds[ci].prog.text,
						       .runs = rec->cmds[ci].done, .samples = rec->cmds[ci].vals };
	char err[512], commit[65] = "";
	b.fingerprint = baseline_fingerprint(rec);
	b.created_at = (long long)time(NULL);
	int r = rec->o.git ? notes_save(&b, commit, err, sizeof(err)) : db_baseline_save(rec->db, &b, err, sizeof(err));
	free(b.fingerprint);
	free(b.git_commit);
	for (size_t i = 0; i < rec->ncols; i++)
		free(b.meas[i]);
	free(b.meas);
	free(b.units);
	free(b.cmds);
	if (r < 0) {
		error("cannot save baseline '%s': %s", name, err);
		return EXIT_COUNTERS;
	}
	/* On a terminal these wrap to its width (a runner class can be long); to a pipe each is one line. */
	char *saved = rec->o.git ? xasprintf("lauka: saved baseline '%s' in the git note of %.12s (%s; %zu command%s, "
					     "runner class '%s')", name, commit, NOTES_REF, rec->ncmds,
					     rec->ncmds == 1 ? "" : "s", rec->runner_class)
				 : xasprintf("lauka: saved baseline '%s' (%zu command%s, runner class '%s')", name,
					     rec->ncmds, rec->ncmds == 1 ? "" : "s", rec->runner_class);
	text_print(stderr, saved, 7);
	free(saved);
	if (rec->first_baseline) {
		char *none = xasprintf("lauka: nothing was compared: there was no baseline '%s' for runner class '%s' yet",
				       name, rec->runner_class);
		text_print(stderr, none, 7);
		free(none);
	}
	return 0;
}

static void fill_export(const struct record_cmd *c, const struct record *rec, struct export_command *ec)
{
	*ec = (struct export_command){
		.command = c == &rec->shell_cost ? "" : c->prog.text, .name = c->name, .exit_code = c->exit_code,
		.failed_step = c->failed_step, .runs = c->done, .rows = c->rows,
		.samples = (const double *const *)c->vals, .nrows = rec->ncols, .check_passed = c->check_ok,
		.checks_passed = c->checks_passed, .detail = c->detail, .exit_codes = c->codes,
		.detail_key = c->detail && rec->be ? rec->be->name : NULL,
		.diagnosis = c->diagnosis,
		.verdict = c->diagnosis ? diag_verdict_names[c->ex.rd.verdict] : NULL,
		.delta_cause = c->diagnosis && c->ex.has_cause ? diag_cause_names[c->ex.cause] : NULL,
		.param_names = rec->scan.names, .param_values = c->param_values, .nparams = rec->scan.nparams,
		.has_cpu = c->done > 0, .user_s = c->done ? c->user_ns / 1e9 / (double)c->done : 0,
		.system_s = c->done ? c->sys_ns / 1e9 / (double)c->done : 0,
	};
}

/* Each column's perf encoding and PMU device for the exports (issue 36 P11), or NULL without perf. */
static struct export_encoding *export_encodings(const struct record *rec)
{
#ifdef __linux__
	if (!rec->be || strcmp(rec->be->name, "perf") || !rec->ncols)
		return NULL;
	struct export_encoding *enc = xcalloc(rec->ncols, sizeof(*enc));
	for (size_t i = 0; i < rec->ncols; i++) {
		const struct lk_event *ev = rec->cols[i].ev;
		if (rec->cols[i].backend != 1 || !ev)
			continue;
		char pmu[256];
		enc[i] = (struct export_encoding){ .perf = true, .type = ev->perf_type, .config = ev->number,
						   .config1 = ev->config1 };
		const char *p = perf_event_pmu(ev, pmu, sizeof(pmu));
		enc[i].pmu = p ? xstrdup(p) : NULL;
	}
	return enc;
#else
	(void)rec;
	return NULL;
#endif
}

/* Write one export and put it in place; 0, or EXIT_COUNTERS after saying what failed. */
static int commit_export(struct record *rec, struct record_export *x)
{
	FILE *f = x->f;
	x->f = NULL;
	if (x->to_stdout) {
		record_flush_stdout(rec);
		return 0;	/* a failure is reported with the other writes to standard output */
	}
	int e = 0;
	if (x->rep.tmp) {
		int r = lk_replace_commit(&x->rep);
		e = r < 0 ? -r : 0;
	} else {
		int bad = fflush(f) != 0 || ferror(f);
		e = bad ? (errno ? errno : EIO) : 0;
		if (fclose(f) != 0 && !e)
			e = errno ? errno : EIO;
	}
	if (e)
		error("cannot write '%s': %s", x->path, lk_replace_strerror(&x->rep, e));
	return e ? EXIT_COUNTERS : 0;
}

static int write_exports(struct record *rec, const struct export_gate *gates, size_t ngates, int rc_now,
			 const char *cause)
{
	bool any = false;
	for (int k = 0; k < EXPORT_COUNT; k++)
		any |= rec->exports[k].f != NULL;
	if (!any)
		return 0;
	struct export_command *cmds = xcalloc(rec->ncmds, sizeof(*cmds)), shell;
	struct export_encoding *enc = export_encodings(rec);
	for (size_t ci = 0; ci < rec->ncmds; ci++) {
		fill_export(&rec->cmds[ci], rec, &cmds[ci]);
		cmds[ci].enc = enc;
	}
	if (rec->have_shell_cost) {
		fill_export(&rec->shell_cost, rec, &shell);
		shell.enc = enc;
	}
	size_t nenv;
	const char **env = lk_env_entries(&nenv);
	int env_match = -1;
	if (rec->have_base && rec->base.fingerprint) {
		char *now = baseline_fingerprint(rec);
		env_match = !strcmp(now, rec->base.fingerprint);
		free(now);
	}
	struct export_run run = {
		.backend = rec->be ? rec->be->name : "rusage", .lauka_version = LAUKA_VERSION,
		.env = env, .nenv = nenv,
		.runner_class = rec->runner_class, .baseline = rec->have_base ? rec->o.baseline : NULL,
		.baseline_commit = !rec->have_base ? NULL : rec->base.git_commit ? rec->base.git_commit
				   : rec->base_commit[0] ? rec->base_commit : NULL,
		.baseline_environment = rec->have_base ? rec->base.fingerprint : NULL,
		.environment_matches = env_match,
		.interleaved = rec->o.interleave, .parallel = rec->parallel, .seed = rec->o.seed, .shell = rec->o.shell,
		.shell_cost = rec->have_shell_cost ? &shell : NULL, .cmds = cmds, .ncmds = rec->ncmds,
		.gates = gates, .ngates = ngates, .exit_code = rc_now, .exit_cause = cause,
		.incomplete = runner_interrupted != 0,
	};
	void (*const writer[EXPORT_COUNT])(FILE *, const struct export_run *) = { export_json, export_csv,
										  export_markdown };
	int rc = 0;
	for (int k = 0; k < EXPORT_COUNT; k++) {
		struct record_export *x = &rec->exports[k];
		if (!x->f)
			continue;
		/* Interrupted: partial results never replace an export; a new file says it is partial (JSON). */
		if (runner_interrupted && x->rep.tmp && x->rep.existed) {
			lk_replace_abort(&x->rep);
			x->f = NULL;
			fprintf(stderr, "lauka: interrupted; '%s' was left as it was\n", x->path);
			continue;
		}
		if (runner_interrupted)
			fprintf(stderr, "lauka: interrupted; '%s' holds the completed runs only%s\n", x->path,
				k == EXPORT_JSON ? " (\"complete\": false)" : "");
		writer[k](x->f, &run);
		if (commit_export(rec, x))
			rc = EXIT_COUNTERS;
	}
	free(env);
	free(cmds);
	for (size_t i = 0; enc && i < rec->ncols; i++)
		free((char *)enc[i].pmu);
	free(enc);
	return rc;
}

/* --plot: the deltas as SVG (output/plot-out.c); false after saying what failed. */
static bool write_plot(struct record *rec)
{
	char err[512];
	struct report_row **rows = xcalloc(rec->ncmds, sizeof(*rows));
	char **texts = xcalloc(rec->ncmds, sizeof(*texts));
	for (size_t ci = 0; ci < rec->ncmds; ci++) {
		rows[ci] = rec->cmds[ci].rows;
		texts[ci] = (char *)rec->cmds[ci].prog.text;
	}
	int r = plot_record_write(rec->o.plot, rec->be ? rec->be->name : "rusage", texts, rec->ncmds, rows, rec->ncols,
				  err, sizeof(err));
	if (r < 0)
		error("%s", err);
	free(rows);
	free(texts);
	return r == 0;
}

/* What the exit code says, in one word: "gate" for exit 3 from a gate, "command" when a command's is forwarded. */
static const char *exit_cause(const struct record *rec, int rc)
{
	if (!rc)
		return "ok";
	if (rec->collect_err)
		return "collection";
	if (rec->first_fail)
		return "command";
	if (rec->check_fail)
		return "check";
	if (runner_interrupted)
		return "interrupted";
	return rc == EXIT_GATE ? "gate" : rc == EXIT_INCONCLUSIVE ? "inconclusive" : "output";
}

int record_report(struct record *rec)
{
	record_report_ready(rec);
	size_t ngates = 0;
	struct export_gate *gates = evaluate_gates(rec, &ngates);
	fingerprint_note(rec);
	int save = save_baseline(rec);

	int rc = 0;
	if (rec->collect_err)
		rc = EXIT_COUNTERS;
	else if (rec->first_fail)
		rc = rec->first_fail;
	else if (rec->check_fail)
		rc = rec->check_fail;
	else if (runner_interrupted)
		rc = 128 + runner_interrupted;
	else if (rec->gate_failed || (rec->gate_inconclusive && rec->o.gate_inconclusive == INCONCLUSIVE_FAIL))
		rc = EXIT_GATE;
	else if (rec->gate_inconclusive && rec->o.gate_inconclusive == INCONCLUSIVE_EXIT)
		rc = EXIT_INCONCLUSIVE;
	int wrote = write_exports(rec, gates, ngates, rc ? rc : save, exit_cause(rec, rc ? rc : save));
	free(gates);
	if (rec->o.plot && !write_plot(rec))
		wrote = EXIT_COUNTERS;
	record_flush_stdout(rec);
	if (rec->stdout_errno || ferror(stdout)) {
		/* Reported here, once, with the reason; lauka.c's final check then has nothing left to say. */
		error("cannot write the results to standard output: %s", strerror(rec->stdout_errno ? rec->stdout_errno : EIO));
		clearerr(stdout);
		if (!rc)
			rc = EXIT_COUNTERS;
	}
	if (!rc)
		rc = save ? save : wrote;
	/* Exit 3 means a failed gate; a command's own 3 is forwarded too: say which. */
	if (rc == EXIT_GATE && !strcmp(exit_cause(rec, rc), "gate"))
		fprintf(stderr, "lauka: exit %d: a gate failed\n", rc);
	else if (rc == EXIT_INCONCLUSIVE && !strcmp(exit_cause(rec, rc), "inconclusive"))
		fprintf(stderr, "lauka: exit %d: a gate was inconclusive\n", rc);
	else if (rc == EXIT_GATE)
		fprintf(stderr, "lauka: exit %d: the exit code of a failed %s, not a gate\n", rc,
			rec->first_fail ? "command" : "check");
	if (runner_interrupted && !rec->collect_err) {
		bool any = rec->have_shell_cost && rec->shell_cost.done;
		for (size_t ci = 0; ci < rec->ncmds; ci++)
			any = any || rec->cmds[ci].done;
		fprintf(stderr, any ? "lauka: interrupted; results above are from the completed runs\n"
				    : "lauka: interrupted before any run completed; nothing to report\n");
	}
	return rc;
}
