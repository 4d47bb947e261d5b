/*
 * record/measure.c: the measure phase of record: the runs in the planned
 * order (record/order.c), each wrapped by its hooks, and their samples.
 *
 *   setup      once per command, before its first run (warm-ups included)
 *   prepare    before every run, warm-ups included
 *   (the run)  measured by the backends; a warm-up's counts are dropped
 *   conclude   after every run
 *   check      after every measured run: its exit status is the sample's verdict
 *   cleanup    once per command, after its last run or when it stops
 *
 * Hooks run through the same runner without counters (untimed), with
 * LAUKA_COMMAND_INDEX (1-based) and LAUKA_RUN_INDEX (1-based; warmup-K for
 * warm-ups; unset for setup and cleanup) in their environment, put there by
 * env(1) since every command starts from the spawner's environment.  The
 * measured command does not see those variables: the size of the
 * environment moves the stack and with it the counts.  A failing setup, prepare, conclude or
 * cleanup, or a failing run, stops that command (the others go on) and its
 * code becomes lauka's exit code.
 */
#include "base/cmdline.h"
#include "base/error.h"
#include "record/record.h"
#include "base/util.h"
#include "machine/xctrace-slots.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* env [-u LAUKA_RUN_INDEX] LAUKA_COMMAND_INDEX=C [LAUKA_RUN_INDEX=R] hook...: malloc'd, NULL-terminated. */
static char **hook_argv(const struct record *rec, const struct record_prog *h, size_t ci, const struct order_slot *s)
{
	size_t n = 0;
	while (h->argv[n])
		n++;
	char **v = xcalloc(n + 6, sizeof(char *));
	size_t k = 0;
	v[k++] = xstrdup(rec->env_path);
	if (!s) {	/* options before assignments */
		v[k++] = xstrdup("-u");
		v[k++] = xstrdup("LAUKA_RUN_INDEX");
	}
	v[k++] = xasprintf("LAUKA_COMMAND_INDEX=%zu", ci + 1);
	if (s)
		v[k++] = xasprintf("LAUKA_RUN_INDEX=%s%lu", s->warmup ? "warmup-" : "", s->k + 1);
	v[k++] = xstrdup(h->path);
	for (size_t i = 1; i < n; i++)
		v[k++] = xstrdup(h->argv[i]);
	return v;
}

static int exit_code_of(const struct runner_result *res)
{
	if (res->exec_errno)
		return res->exec_errno == ENOENT ? 127 : 126;
	return res->exit_code;
}

static void show_tail(const struct runner_result *res, const char *whose)
{
	if (!res->tail[0])
		return;
	fprintf(stderr, "stderr of the failed %s%s:\n", whose, strlen(res->tail) >= RUNNER_TAIL_MAX ? " (last 4 KB)" : "");
	fputs(res->tail, stderr);
	if (res->tail[strlen(res->tail) - 1] != '\n')
		fputc('\n', stderr);
}

/* label: "command 2 'make'", "--prepare 'rm -rf out' of command 2"; argv0: the program it runs. */
static void show_failure(const char *label, const char *argv0, const struct runner_result *res, const char *whose)
{
	if (res->exec_errno)
		error("cannot execute '%s': %s", argv0, strerror(res->exec_errno));
	else if (res->tty_stop) {
		error("%s was stopped by %s and killed: it %s, and lauka runs commands in a background "
		      "process group with no terminal input", label, res->tty_stop == SIGTTIN ? "SIGTTIN" : "SIGTTOU",
		      res->tty_stop == SIGTTIN ? "read from the terminal" :
		      "changed the terminal's settings (or wrote to it under 'stty tostop')");
		tip("with --show-output (lauka in the terminal's foreground) a command gets the terminal; "
		    "or turn pagers off (git --no-pager, PAGER=cat)");
	} else if (res->term_signal)
		error("%s was killed by signal %d (%s)", label, res->term_signal, strsignal(res->term_signal));
	else
		error("%s failed with exit code %d", label, res->exit_code);
	show_tail(res, whose);
}

static void stop(struct record *rec, struct record_cmd *c, int code, const char *step)
{
	c->stopped = true;
	c->exit_code = code;
	c->failed_step = step;
	if (!rec->first_fail)
		rec->first_fail = code;
}

/*
 * Run hook k of command ci (s: the run it belongs to, NULL for setup and
 * cleanup).  0 when it succeeded (or there is none, or lauka was
 * interrupted), its exit code when it failed (after an error line, except
 * for checks), -1 on a collection error.
 */
static int run_hook(struct record *rec, size_t ci, enum record_hook k, const struct order_slot *s)
{
	struct record_cmd *c = &rec->cmds[ci];
	const struct record_prog *h = c->hook[k];
	if (!h || runner_interrupted)
		return 0;
	struct runner_result res;
	char err[512];
	char **argv = hook_argv(rec, h, ci, s);
	int r = runner_run(&rec->run, rec->env_path, argv, NULL, 0, NULL, &res, err, sizeof(err));
	cmdline_free(argv);
	if (r < 0 && runner_interrupted)
		return 0;
	if (r < 0) {
		progress_clear(&rec->prog);
		error("running --%s '%s' for command %zu: %s", record_hook_names[k], h->text, ci + 1, err);
		rec->collect_err = true;
		return -1;
	}
	int code = runner_interrupted ? 0 : exit_code_of(&res);
	if (!code || k == HOOK_CHECK)
		return code;
	progress_clear(&rec->prog);
	char *label = xasprintf("--%s '%s' of command %zu", record_hook_names[k], h->text, ci + 1);
	show_failure(label, h->argv[0], &res, "hook");
	free(label);
	if (k != HOOK_CLEANUP)
		fprintf(stderr, "lauka: command %zu stopped\n", ci + 1);
	return code;
}

/* Counts of the run just made into the samples of c. */
static void store_sample(struct record *rec, struct record_cmd *c)
{
	for (size_t i = 0; i < rec->ncols; i++) {
		const struct record_col *col = &rec->cols[i];
		struct lk_counts *ct = &rec->counts[col->backend][col->index];
		counts_scale(ct);
		/* A run the counter never ran in has no count: NaN keeps it out of the statistics
		 * (a 0 there would drag the mean of a sampled event toward nothing). */
		bool counted = ct->supported && (ct->running || !ct->enabled);
		c->vals[i][c->done] = counted ? (double)ct->value : NAN;
		if (counted && ct->scaled && ct->coverage < c->coverage[i])
			c->coverage[i] = ct->coverage;
	}
	c->done++;
}

/* One run of c measured by the backends: 0, the failing run's code, or -1 on a collection error. */
static int run_measured(struct record *rec, struct record_cmd *c, const char *what, bool warm)
{
	struct runner_result res;
	char err[512];
	if (runner_interrupted)
		return 0;	/* Ctrl-C during a hook: start nothing more */
	if (runner_run(&rec->run, c->prog.path, c->prog.argv, rec->bi, rec->nbi, rec->counts, &res, err, sizeof(err)) < 0) {
		/* A signal to lauka is forwarded to the run: what the backend then cannot read (valgrind
		 * stopped mid-write) is the interruption's doing, not an error of its own. */
		if (runner_interrupted)
			return 0;
		progress_clear(&rec->prog);
		error("measuring %s '%s': %s", what, c->prog.text, err);
		rec->collect_err = true;
		return -1;
	}
	if (runner_interrupted)
		return 0;
	int code = exit_code_of(&res);
	if (code) {
		progress_clear(&rec->prog);
		char *label = xasprintf("%s '%s'", what, c->prog.text);
		show_failure(label, c->prog.argv[0], &res, "run");
		free(label);
		return code;
	}
	/* The counter backend's details of this run, for the JSON: of measured runs only. */
	char *d = rec->nbi > 1 && rec->bi[1].ops->json_run ? rec->bi[1].ops->json_run(rec->bi[1].priv) : NULL;
	if (!warm) {
		store_sample(rec, c);
		if (d)
			strbuf_addf(&c->run_details, "%s%s", c->run_details.len ? ", " : "", d);
	}
	free(d);
	return 0;
}

/* The details gathered over c's runs, as the JSON's per-command entry. */
static void close_details(struct record *rec, struct record_cmd *c)
{
	if (c->detail || !c->run_details.len)
		return;
	const char *scope = rec->bi[1].ops->json_scope;
	c->detail = xasprintf("{\"scope\": \"%s\", \"runs\": [%s]}", scope ? scope : "", strbuf_str(&c->run_details));
	strbuf_release(&c->run_details);
}

/* Its last run is behind it (or it stopped): clean up and print what is due. */
static void finish(struct record *rec, size_t ci)
{
	struct record_cmd *c = &rec->cmds[ci];
	/* Cleanup is due once setup was tried, even when it failed or lauka was interrupted (the
	 * signal that stopped the runs is not passed on to it; a second one stops it too). */
	if (c->setup_tried && !c->cleaned_up) {
		c->cleaned_up = true;
		int held = runner_interrupt_hold();
		int r = run_hook(rec, ci, HOOK_CLEANUP, NULL);
		runner_interrupt_resume(held);
		if (r > 0 && !c->stopped && !runner_interrupted)
			stop(rec, c, r, "cleanup");
	}
	close_details(rec, c);
	c->finished = true;
	record_report_ready(rec);
}

/* The empty command under -S, so the table can show what the shell adds to every count. */
static void measure_shell_cost(struct record *rec)
{
	struct record_cmd *c = &rec->shell_cost;
	for (unsigned long k = 0; k < c->planned && !runner_interrupted && !rec->collect_err; k++) {
		progress_show(&rec->prog, "shell alone %lu/%lu", k + 1, c->planned);
		int r = run_measured(rec, c, "the empty command under the shell", false);
		if (r > 0) {
			stop(rec, c, r, "command");
			break;
		}
		progress_tick(&rec->prog);
	}
	progress_clear(&rec->prog);
	close_details(rec, c);
	c->finished = true;
}

static void check_run(struct record *rec, size_t ci, const struct order_slot *s)
{
	struct record_cmd *c = &rec->cmds[ci];
	int code = run_hook(rec, ci, HOOK_CHECK, s);
	if (code < 0 || runner_interrupted || !c->done)
		return;
	size_t k = c->done - 1;
	c->check_ok[k] = code == 0;
	if (!code) {
		c->checks_passed++;
		return;
	}
	if (!rec->check_fail)
		rec->check_fail = code;
	if (c->checks_passed + 1 < c->done)
		return;	/* one error line per command: the table counts the rest */
	progress_clear(&rec->prog);
	error("--check '%s' failed with exit code %d after run %zu of command %zu '%s'", c->hook[HOOK_CHECK]->text,
	      code, k + 1, ci + 1, c->prog.text);
}

void record_measure(struct record *rec)
{
	xctrace_record_note(rec->be, (unsigned long)rec->nslots);	/* every warm-up and run */
	progress_init(&rec->prog, !rec->o.show_output);
	progress_units(&rec->prog, (double)(rec->nslots + (rec->have_shell_cost ? rec->shell_cost.planned : 0)));
	if (rec->o.interleave && rec->ncmds > 1) {
		printf("Interleaved: one run of each command per round, order shuffled every round (--seed %llu)\n\n",
		       (unsigned long long)rec->o.seed);
		record_flush_stdout(rec);
	}
	if (rec->have_shell_cost) {
		measure_shell_cost(rec);
		record_report_ready(rec);
	}
	for (size_t i = 0; i < rec->nslots && !runner_interrupted && !rec->collect_err; i++) {
		const struct order_slot *s = &rec->slots[i];
		size_t ci = s->cmd;
		struct record_cmd *c = &rec->cmds[ci];
		if (c->stopped || c->finished)
			continue;
		c->slots_left--;
		progress_show(&rec->prog, "[%zu/%zu] %s %lu/%lu", ci + 1, rec->ncmds, s->warmup ? "warm-up" : "run",
			      s->k + 1, s->warmup ? c->warmups : c->planned);
		int r = 0;
		if (!c->set_up) {
			c->setup_tried = true;
			if ((r = run_hook(rec, ci, HOOK_SETUP, NULL)) > 0)
				stop(rec, c, r, "setup");
			c->set_up = r == 0;
		}
		if (!r && (r = run_hook(rec, ci, HOOK_PREPARE, s)) > 0)
			stop(rec, c, r, "prepare");
		char what[32];
		snprintf(what, sizeof(what), "command %zu", ci + 1);
		if (!r && (r = run_measured(rec, c, what, s->warmup)) > 0)
			stop(rec, c, r, "command");
		if (!r && (r = run_hook(rec, ci, HOOK_CONCLUDE, s)) > 0)
			stop(rec, c, r, "conclude");
		if (!r && !s->warmup && c->hook[HOOK_CHECK])
			check_run(rec, ci, s);
		progress_tick(&rec->prog);
		if (runner_interrupted || rec->collect_err)
			break;
		if (c->stopped || !c->slots_left)
			finish(rec, ci);
	}
	progress_clear(&rec->prog);
	/* Interrupted, or a collection error: what has been measured is still reported. */
	for (size_t ci = 0; ci < rec->ncmds; ci++)
		if (!rec->cmds[ci].finished) {
			finish(rec, ci);	/* cleans up only what was set up (setup_tried) */
		}
}
