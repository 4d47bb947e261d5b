/*
 * record/plan.c: the plan phase of record, stage by stage.  Everything that can
 * be wrong with a request is found before the first run, so a bad request
 * never leaves a half-printed table: the commands (plan-commands.c), the
 * backend and events (plan-events.c), the gates (plan-gates.c), the runner
 * class and baseline (plan-baseline.c), the run order (record/order.c), the
 * export files (plan-exports.c) and the runner.  This file owns the order of
 * those stages and the record's memory.
 */
#include "base/cmdline.h"
#include "base/error.h"
#include "base/sudo.h"
#include "base/util.h"
#include "record/plan.h"
#include "record/record.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void record_cmd_alloc(struct record *rec, struct record_cmd *c, unsigned long runs)
{
	size_t n = rec->ncols ? rec->ncols : 1, r = runs ? runs : 1;
	c->planned = runs;
	c->vals = xcalloc(n, sizeof(*c->vals));
	for (size_t i = 0; i < rec->ncols; i++)
		c->vals[i] = xcalloc(r, sizeof(double));
	c->rows = xcalloc(n, sizeof(*c->rows));
	c->coverage = xcalloc(n, sizeof(*c->coverage));
	for (size_t i = 0; i < rec->ncols; i++)
		c->coverage[i] = 1;
	if (c->hook[HOOK_CHECK])
		c->check_ok = xcalloc(r, sizeof(bool));
	c->codes = xcalloc(r ? r : 1, sizeof(int));
}

void record_cmd_grow(struct record *rec, struct record_cmd *c, unsigned long runs)
{
	if (runs <= c->planned)
		return;
	for (size_t i = 0; i < rec->ncols; i++)
		c->vals[i] = xrealloc(c->vals[i], runs * sizeof(double));
	if (c->check_ok)
		c->check_ok = xrealloc(c->check_ok, runs * sizeof(bool));
	c->codes = xrealloc(c->codes, runs * sizeof(int));
	c->planned = runs;
}

bool record_col_exact(const struct record *rec, size_t col)
{
	return rec->be && rec->be->deterministic && rec->cols[col].backend == 1;
}

void record_cmd_free(struct record *rec, struct record_cmd *c)
{
	for (size_t i = 0; c->vals && i < rec->ncols; i++)
		free(c->vals[i]);
	free(c->vals);
	free(c->rows);
	free(c->coverage);
	free(c->check_ok);
	free(c->codes);
	free(c->ref);
	free(c->ref_samples);
	explain_free_functions(&c->funcs);
	free(c->diagnosis);
	free(c->detail);
	strbuf_release(&c->run_details);
	cmdline_free(c->prog.argv);
}

size_t record_pass_of_run(const struct record *rec, unsigned long k, unsigned long planned)
{
	if (rec->npasses < 2 || !planned)
		return 0;
	unsigned long per = planned / rec->npasses;
	size_t p = per ? k / per : 0;
	return p < rec->npasses ? p : rec->npasses - 1;
}

/* A gate on a timing measurement (wall_time, user_time, sys_time: nanoseconds). */
static bool timing_gate(const struct record *rec)
{
	for (size_t g = 0; g < rec->ngates; g++) {
		const char *unit = rec->cols[rec->gates[g].col].unit;
		if (unit && !strcmp(unit, "ns"))
			return true;
	}
	return false;
}

/*
 * Runs by backend: how many runs each command makes first, and whether
 * more follow (record_cmd.auto_runs, record/measure.c); 0 or EXIT_USAGE.
 */
static int plan_runs(struct record *rec, unsigned long *n)
{
	struct record_opts *o = &rec->o;
	bool det = rec->be && rec->be->deterministic;
	const char *bname = rec->be ? rec->be->name : "rusage";
	if (o->runs_given && (o->min_runs || o->max_runs)) {
		error("-n fixes the number of runs; --min-runs and --max-runs bound the automatic one");
		fix("give either -n N, or --min-runs/--max-runs");
		return EXIT_USAGE;
	}
	unsigned long lo = o->min_runs ? o->min_runs : det ? 1 : RECORD_MIN_RUNS;
	unsigned long hi = o->max_runs ? o->max_runs : RECORD_AUTO_MAX;
	if (!o->max_runs && hi < lo)
		hi = lo;
	if (lo > hi) {
		error("--min-runs %lu is more than --max-runs %lu", lo, hi);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < rec->ncmds; i++) {
		n[i] = o->runs_each ? o->runs_each[i] : o->runs_given ? o->runs : lo;
		/* Sampled counts vary from run to run: fewer than 3 say nothing of their spread. */
		if (!det && n[i] < RECORD_MIN_RUNS) {
			error("minimum runs is %d for the %s backend (got %lu)", RECORD_MIN_RUNS, bname, n[i]);
			fix("use %s %d or higher; one run is enough only for a deterministic backend (--backend valgrind)",
			    o->runs_given ? "-n" : "--min-runs", RECORD_MIN_RUNS);
			return EXIT_USAGE;
		}
		/* Deterministic counts do not grow more certain with more runs: no automatic count. */
		rec->cmds[i].auto_runs = !det && !o->runs_given && rec->npasses < 2 && hi > n[i];
	}
	if (o->collect && (!rec->be || !rec->be->collect_only)) {
		error("--collect counts from a function on, which only the valgrind backend can (not %s)", bname);
		fix("add --backend valgrind");
		return EXIT_USAGE;
	}
	if (o->jobs > 1) {
		const char *why = !det ? "its runs would disturb each other's timing and counts"
			: o->interleave ? "--interleave runs one command at a time"
			: o->show_output ? "--show-output shows one run at a time"
			: rec->npasses > 1 ? "--passes runs one pass at a time" : NULL;
		for (int k = 0; !why && k < HOOK_COUNT; k++)
			if (rec->nhooks[k])
				why = "hooks run around one run at a time";
		if (why) {
			error("--jobs %lu runs in parallel only under a deterministic backend without hooks: %s", o->jobs,
			      !det ? bname : "here");
			tip("%s", why);
			return EXIT_USAGE;
		}
	}
	return 0;
}

static int plan_order(struct record *rec)
{
	struct record_opts *o = &rec->o;
	if (o->interleave && o->no_interleave) {
		error("--interleave and --no-interleave contradict each other");
		return EXIT_USAGE;
	}
	/* Drift during a run lands on whichever command runs then: interleaved rounds spread it over all of
	 * them, and a timing gate on sequential runs cries wolf (2 in 50 on identical commands, 0 in 50
	 * interleaved, on a shared 2-core machine). */
	if (!o->interleave && !o->no_interleave && rec->ncmds > 1 && timing_gate(rec))
		o->interleave = o->auto_interleave = true;
	if (o->have_seed && !o->interleave) {
		error("--seed sets the order of interleaved rounds");
		fix("add --interleave, or leave out --seed");
		return EXIT_USAGE;
	}
	if (o->interleave && !o->have_seed)
		rec->o.seed = order_next(&(uint64_t){ lk_now_ns() ^ ((uint64_t)getpid() << 32) }) % 1000000;
	unsigned long *w = xcalloc(rec->ncmds, sizeof(*w)), *n = xcalloc(rec->ncmds, sizeof(*n));
	int r = plan_runs(rec, n);
	if (r) {
		free(w);
		free(n);
		return r;
	}
	for (size_t i = 0; i < rec->ncmds; i++) {
		struct record_cmd *c = &rec->cmds[i];
		w[i] = c->warmups = o->warmup;
		/* --passes: the runs once per pass, in pass order (record_pass_of_run) */
		if (rec->npasses > 1)
			n[i] *= rec->npasses;
		record_cmd_alloc(rec, c, n[i]);
	}
	rec->nslots = order_plan(w, n, rec->ncmds, o->interleave, rec->o.seed, &rec->slots);
	for (size_t s = 0; s < rec->nslots; s++)
		rec->cmds[rec->slots[s].cmd].slots_left++;
	free(w);
	free(n);
	return 0;
}

static int plan_runner(struct record *rec)
{
	char err[512];
	struct runner_opts ropts = { .show_output = rec->o.show_output, .uid = -1, .gid = -1 };
	/* An export on standard output owns it: what the commands and hooks write goes to standard error. */
	for (int k = 0; k < EXPORT_COUNT; k++)
		ropts.output_to_stderr |= rec->exports[k].to_stdout;
	/* Under sudo the command runs as the user who typed it, in that user's environment. */
	struct sudo_user su;
	runner_opts_sudo(&ropts, &su);
	if (runner_init(&rec->run, &ropts, err, sizeof(err)) < 0) {
		error("%s", err);
		return EXIT_COUNTERS;
	}
	rec->runner_ok = true;
	for (size_t b = 0; b < rec->nbi; b++) {
		size_t n = b == 1 && rec->npasses > 1 ? rec->nsel[1] : rec->bi[b].nsel;	/* the largest pass fits */
		rec->counts[b] = xcalloc(n ? n : 1, sizeof(struct lk_counts));
	}
	if (rec->shell_argv) {
		struct record_cmd *c = &rec->shell_cost;
		shell_prog(rec, "", &c->prog);
		unsigned long runs = rec->be && rec->be->deterministic ? 1 : RECORD_MIN_RUNS;
		record_cmd_alloc(rec, c, runs);
		c->slots_left = runs;
		rec->have_shell_cost = true;
	}
	return 0;
}

int record_plan(struct record *rec)
{
	int r = plan_commands(rec);
	if (!r)
		r = plan_catalogue(rec);
	if (!r)
		r = plan_events(rec);
	if (!r)
		r = plan_backends(rec);
	if (!r) {
		plan_columns(rec);
		r = plan_gates(rec);
	}
	if (!r)
		r = plan_runner_class(rec);
	if (!r)
		r = plan_order(rec);
	if (!r)
		r = plan_exports(rec);
	if (!r)
		r = plan_runner(rec);
	return r;
}

void record_release(struct record *rec)
{
	for (size_t b = 0; b < rec->nbi; b++)
		backend_inst_close(&rec->bi[b]);
	if (rec->runner_ok)
		runner_release(&rec->run);
	for (int k = 0; k < EXPORT_COUNT; k++) {
		struct record_export *x = &rec->exports[k];
		if (x->rep.tmp)
			lk_replace_abort(&x->rep);	/* nothing was written: the old file stays */
		else if (x->f && !x->to_stdout)
			fclose(x->f);
		x->f = NULL;
	}
	for (size_t b = 0; b < 2; b++) {
		free(rec->counts[b]);
		free(rec->sel[b]);
	}
	for (size_t i = 0; i < rec->nraw; i++) {
		free(rec->raw[i]->name);
		free(rec->raw[i]->description);
		free(rec->raw[i]);
	}
	free(rec->raw);
	for (size_t i = 0; i < rec->ncmds; i++)
		record_cmd_free(rec, &rec->cmds[i]);
	free(rec->cmds);
	if (rec->have_shell_cost)
		record_cmd_free(rec, &rec->shell_cost);
	for (int k = 0; k < HOOK_COUNT; k++) {
		for (size_t i = 0; i < rec->nhooks[k]; i++)
			cmdline_free(rec->hooks[k][i].argv);
		free(rec->hooks[k]);
		free(rec->o.hooks[k].v);
	}
	free(rec->o.names.v);
	free(rec->o.params);
	plan_scan_release(rec);
	free(rec->o.ok_codes);
	free(rec->o.measurements_buf);
	free(rec->o.runs_each);
	free(rec->o.gates.v);
	for (size_t g = 0; g < rec->ngates; g++)
		free(rec->gates[g].name);
	free(rec->gates);
	for (size_t c = 0; c < rec->ncols; c++)
		free(rec->cols[c].label);
	free(rec->cols);
	free(rec->slots);
	free(rec->pass_start);
	cmdline_free(rec->shell_argv);
	free(rec->runner_class);
	db_baseline_release(&rec->base);
	if (rec->own_db)
		db_close(rec->db);
	catalog_close(rec->rcat);
	catalog_close(rec->cat);
	pmu_release(&rec->rpmu);
	explain_release(&rec->explain);
}
