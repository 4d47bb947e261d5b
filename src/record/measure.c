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
#include "spawn/spawner.h"
#include "stats/gate.h"
#include "base/util.h"
#include "machine/xctrace-slots.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	/* A limit the command inherits from lauka, named, so its failure is not taken for the command's own */
	unsigned long long kb = lk_as_limit_kb();
	if (!res->exec_errno && !res->tty_stop && kb)
		tip("the command runs under an address-space limit of %llu KB (ulimit -v), which it may have run out of",
		    kb);
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
	size_t start = 0, end = 0;
	if (rec->npasses > 1) {
		start = rec->pass_start[rec->cur_pass];
		end = rec->pass_start[rec->cur_pass + 1];
	}
	for (size_t i = 0; i < rec->ncols; i++) {
		const struct record_col *col = &rec->cols[i];
		size_t idx = col->index;
		if (col->backend == 1 && rec->npasses > 1) {
			/* --passes: an event of another pass was not open in this run */
			if (idx < start || idx >= end) {
				c->vals[i][c->done] = NAN;
				continue;
			}
			idx -= start;
		}
		struct lk_counts *ct = &rec->counts[col->backend][idx];
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

/*
 * An exit status -i or --ok-exit-codes accepts: the run is measured as a
 * successful one.  A command that could not be executed or was killed by a
 * signal is never accepted.
 */
static bool accepted(const struct record *rec, const struct runner_result *res, int code)
{
	if (res->exec_errno || res->term_signal || res->tty_stop)
		return false;
	if (rec->o.ok_codes) {
		for (size_t i = 0; i < rec->o.nok_codes; i++)
			if (rec->o.ok_codes[i] == code)
				return true;
		return false;
	}
	return rec->o.ignore_failure;
}

/*
 * What a run's result means for c (run_measured, or a run made in parallel):
 * 0 and its sample stored, the failing run's code, or -1 on a collection
 * error.  rr and err: what runner_run returned and said.
 */
static int after_run(struct record *rec, struct record_cmd *c, const char *what, bool warm, int rr, const char *err,
		     const struct runner_result *resp)
{
	struct runner_result res = *resp;
	/* the shell alone (-S) has the empty command: messages name the shell (issue 31 D-18) */
	const char *text = c == &rec->shell_cost && rec->o.shell ? rec->o.shell : c->prog.text;
	if (rr < 0) {
		/* A signal to lauka is forwarded to the run: what the backend then cannot read (valgrind
		 * stopped mid-write) is the interruption's doing, not an error of its own. */
		if (runner_interrupted)
			return 0;
		progress_clear(&rec->prog);
		error("measuring %s '%s': %s", what, text, err);
		rec->collect_err = true;
		return -1;
	}
	if (runner_interrupted)
		return 0;
	c->lingering += res.lingering;
	int code = exit_code_of(&res);
	/* --ok-exit-codes without 0 makes 0 a failure, as a grep that must find something. */
	bool ok = accepted(rec, &res, code) || (!code && !rec->o.ok_codes);
	if (!code && !ok) {
		progress_clear(&rec->prog);
		error("%s '%s' exited with 0, which --ok-exit-codes does not list", what, text);
		return EXIT_USAGE;
	}
	if (code && ok && !warm) {
		if (!c->ignored++) {
			progress_clear(&rec->prog);
			warning("%s '%s' exited with code %d: measured anyway (%s)", what, text, code,
				rec->o.ok_codes ? "--ok-exit-codes" : "-i/--ignore-failure");
		}
	}
	if (code && !ok) {
		progress_clear(&rec->prog);
		char *label = xasprintf("%s '%s'", what, text);
		show_failure(label, c->prog.argv[0], &res, "run");
		free(label);
		if (!res.exec_errno && !res.term_signal && !res.tty_stop)
			tip("to measure a command whose exit status is not 0, pass -i/--ignore-failure, "
			    "or --ok-exit-codes 0,%d", code);
		return code;
	}
	/* The counter backend's details of this run, for the JSON: of measured runs only. */
	char *d = rec->nbi > 1 && rec->bi[1].ops->json_run ? rec->bi[1].ops->json_run(rec->bi[1].priv) : NULL;
	if (!warm) {
		c->codes[c->done] = code;
		/* The JSON's user/system, whether or not -m asked for user_time/sys_time. */
		c->user_ns += (double)res.ru.ru_utime.tv_sec * 1e9 + (double)res.ru.ru_utime.tv_usec * 1e3;
		c->sys_ns += (double)res.ru.ru_stime.tv_sec * 1e9 + (double)res.ru.ru_stime.tv_usec * 1e3;
		store_sample(rec, c);
		if (rec->nbi > 1)
			explain_take_functions(&rec->bi[1], &c->funcs);
		if (d)
			strbuf_addf(&c->run_details, "%s%s", c->run_details.len ? ", " : "", d);
	}
	free(d);
	return 0;
}

/* One run of c measured by the backends: 0, the failing run's code, or -1 on a collection error. */
static int run_measured(struct record *rec, struct record_cmd *c, const char *what, bool warm)
{
	struct runner_result res;
	char err[512] = "";
	if (runner_interrupted)
		return 0;	/* Ctrl-C during a hook: start nothing more */
	int rr = runner_run(&rec->run, c->prog.path, c->prog.argv, rec->bi, rec->nbi, rec->counts, &res, err, sizeof(err));
	return after_run(rec, c, what, warm, rr, err, &res);
}

/*
 * --jobs J: runs of a deterministic backend (valgrind: counts do not depend
 * on the load) J at a time, each in a process of lauka's own with its own
 * runner and backend instances, their results read back in run order.  Only
 * when asked, and only for commands without side effects: two runs of
 * `gzip -k -f f` at once race on f.  record/plan.c refuses --jobs with
 * hooks, interleaving, --show-output or passes, which need one run at a time.
 */
static size_t parallel_jobs(const struct record *rec)
{
	if (rec->o.jobs < 2 || !rec->be || !rec->be->deterministic || rec->nbi < 2)
		return 0;
	return rec->o.jobs;
}

/* What a worker sends back: runner_run's return, its message and result, then every backend's counts. */
struct par_head {
	int rr;
	char err[512];
	struct runner_result res;
};

/*
 * The functions table of a worker's run (--explain, or a gate whose failure
 * lists them): a count, then per function its three names and self cost.
 */
static void write_str(int fd, const char *str)
{
	uint32_t n = (uint32_t)strlen(str);
	spawner_write_full(fd, &n, sizeof(n));
	spawner_write_full(fd, str, n);
}

static void write_functions(int fd, const struct cg_table *t)
{
	uint64_t n = t ? t->n : 0;
	spawner_write_full(fd, &n, sizeof(n));
	for (size_t i = 0; t && i < t->n; i++) {
		write_str(fd, t->f[i].object);
		write_str(fd, t->f[i].file);
		write_str(fd, t->f[i].function);
		spawner_write_full(fd, &t->f[i].cost, sizeof(t->f[i].cost));
	}
}

static char *read_str(int fd)
{
	uint32_t n;
	if (spawner_read_full(fd, &n, sizeof(n)) != 0 || n > (1u << 20))
		return NULL;
	char *s = xmalloc((size_t)n + 1);
	if (spawner_read_full(fd, s, n) != 0) {
		free(s);
		return NULL;
	}
	s[n] = '\0';
	return s;
}

/* The worker's table into *t (replacing it: the last measured run's is kept); false when cut short. */
static bool read_functions(int fd, struct cg_table **t)
{
	uint64_t n;
	if (spawner_read_full(fd, &n, sizeof(n)) != 0)
		return false;
	if (!n)
		return true;
	struct cg_table *tab = xcalloc(1, sizeof(*tab));
	bool ok = true;
	for (uint64_t i = 0; i < n && ok; i++) {
		char *obj = read_str(fd), *file = obj ? read_str(fd) : NULL, *fn = file ? read_str(fd) : NULL;
		uint64_t cost;
		ok = fn && spawner_read_full(fd, &cost, sizeof(cost)) == 0;
		if (ok)
			cg_table_add(tab, obj, file, fn, cost);
		free(obj);
		free(file);
		free(fn);
	}
	if (!ok) {
		explain_free_functions(&tab);
		return false;
	}
	cg_table_sort(tab);
	explain_free_functions(t);
	*t = tab;
	return true;
}

/* In the worker process: one run with a runner and backends of its own, the result into fd. */
_Noreturn static void par_worker(struct record *rec, struct record_cmd *c, int fd)
{
	struct par_head h = { .rr = -1 };
	struct runner run;
	struct backend_inst bi[2] = { 0 };
	struct lk_counts *counts[2] = { NULL, NULL };
	struct cg_table *funcs = NULL;
	size_t nbi = 0;
	if (runner_init(&run, &rec->run.opts, h.err, sizeof(h.err)) == 0) {
		for (; nbi < rec->nbi; nbi++) {
			if (backend_inst_open(&bi[nbi], rec->bi[nbi].ops, rec->bi[nbi].sel, rec->bi[nbi].nsel, h.err,
					      sizeof(h.err)) < 0)
				break;
			counts[nbi] = xcalloc(rec->bi[nbi].nsel ? rec->bi[nbi].nsel : 1, sizeof(struct lk_counts));
			/* As plan-events.c asks of the parent's instance: the run's functions for --explain or a gate. */
			if (nbi > 0 && (rec->o.explain || rec->ngates) && bi[nbi].ops->keep_functions)
				bi[nbi].ops->keep_functions(bi[nbi].priv);
			if (nbi > 0 && rec->o.collect && bi[nbi].ops->collect_only)
				bi[nbi].ops->collect_only(bi[nbi].priv, rec->o.collect);
		}
		if (nbi == rec->nbi)
			h.rr = runner_run(&run, c->prog.path, c->prog.argv, bi, nbi, counts, &h.res, h.err, sizeof(h.err));
		if (h.rr >= 0 && nbi > 1)
			explain_take_functions(&bi[1], &funcs);
		for (size_t b = 0; b < nbi; b++)
			backend_inst_close(&bi[b]);
		runner_release(&run);
	}
	spawner_write_full(fd, &h, sizeof(h));
	for (size_t b = 0; b < rec->nbi; b++)
		if (counts[b])
			spawner_write_full(fd, counts[b], rec->bi[b].nsel * sizeof(struct lk_counts));
	write_functions(fd, funcs);
	_exit(0);
}

/*
 * Until the worker behind fd has written its result (true) or lauka is interrupted (false).  The
 * signal goes to lauka alone, not to its workers: a blocking read would wait for the worker's
 * command to end (a 60 s command held a SIGTERM for 60 s).
 */
static bool await_worker(int fd)
{
	while (!runner_interrupted) {
		struct pollfd pf = { fd, POLLIN, 0 };
		int n = poll(&pf, 1, 250);	/* EINTR on lauka's signals; the timeout is a second look */
		if (n > 0 || (n < 0 && errno != EINTR))
			return true;	/* a result, or an error the read then reports */
	}
	return false;
}

/*
 * Every measured run of c in parallel; the results in run order, as
 * run_measured's: 0, the first failing run's code, or -1.
 */
static int run_parallel(struct record *rec, struct record_cmd *c, size_t ci, size_t jobs)
{
	size_t n = c->planned;
	pid_t *pid = xcalloc(n, sizeof(*pid));
	int *fd = xcalloc(n, sizeof(*fd));
	char what[32];
	snprintf(what, sizeof(what), "command %zu", ci + 1);
	int ret = 0;
	size_t started = 0, next = 0;
	fflush(NULL);
	while (next < n) {
		/* Keep up to jobs workers going; read the next result in order. */
		while (started < n && started - next < jobs && !runner_interrupted) {
			int p[2];
			if (lk_cloexec_pipe(p) < 0)
				break;
#ifdef __linux__
			pid_t lauka = getpid();
#endif
			pid_t w = fork();
			if (w == 0) {
				close(p[0]);
#ifdef __linux__
				/* lauka killed: the worker stops its run as on Ctrl-C, and its spawner with it.
				 * (macOS: the worker runs its command to the end, then finds the pipe closed.) */
				prctl(PR_SET_PDEATHSIG, SIGTERM);
				if (getppid() != lauka)
					_exit(1);	/* it died before the request */
#endif
				/* What the backend says of a run (valgrind's exec warning) is said once, by the first. */
				if (started > 0 && rec->run.devnull >= 0)
					dup2(rec->run.devnull, STDERR_FILENO);
				par_worker(rec, c, p[1]);
			}
			close(p[1]);
			if (w < 0) {
				close(p[0]);
				break;
			}
			pid[started] = w;
			fd[started++] = p[0];
		}
		if (next == started) {
			if (!runner_interrupted) {
				progress_clear(&rec->prog);
				error("measuring %s '%s': cannot start a worker: %s", what, c->prog.text, strerror(errno));
				rec->collect_err = true;
				ret = -1;
			}
			break;
		}
		progress_show(&rec->prog, "[%zu/%zu] runs %zu-%zu/%zu at once", ci + 1, rec->ncmds, next + 1, started, n);
		if (!await_worker(fd[next]))
			break;	/* interrupted: the workers are stopped below */
		struct par_head h;
		bool got = spawner_read_full(fd[next], &h, sizeof(h)) == 0;
		for (size_t b = 0; got && b < rec->nbi; b++)
			got = spawner_read_full(fd[next], rec->counts[b], rec->bi[b].nsel * sizeof(struct lk_counts)) == 0;
		if (got)
			got = read_functions(fd[next], &c->funcs);
		close(fd[next]);
		while (waitpid(pid[next], NULL, 0) < 0 && errno == EINTR)
			;
		next++;
		if (runner_interrupted)
			break;
		if (!got) {
			snprintf(h.err, sizeof(h.err), "a worker process ended without a result");
			h.rr = -1;
		}
		int r = ret ? 0 : after_run(rec, c, what, false, h.rr, h.err, &h.res);
		progress_tick(&rec->prog);
		if (r && !ret) {
			ret = r;
			/* The rest are already running: let them end, and keep nothing of them. */
		}
	}
	for (size_t k = next; k < started; k++) {
		if (runner_interrupted)
			kill(pid[k], SIGTERM);
		close(fd[k]);
		while (waitpid(pid[k], NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(pid);
	free(fd);
	return ret;
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

/* The measured wall time of c's runs so far (column 0 is wall_time, in ns). */
static double measured_ns(const struct record *rec, const struct record_cmd *c)
{
	double t = 0;
	for (size_t k = 0; rec->ncols && k < c->done; k++)
		if (isfinite(c->vals[0][k]))
			t += c->vals[0][k];
	return t;
}

/* How many runs c makes in all, now that its pilot (--min-runs) is done (record.h: RECORD_AUTO_*). */
static unsigned long auto_target(const struct record *rec, struct record_cmd *c)
{
	unsigned long hi = rec->o.max_runs ? rec->o.max_runs : RECORD_AUTO_MAX;
	/* Gates that may look again: the first look at RECORD_AUTO_RUNS runs, later ones as they need (next_look). */
	if (rec->adaptive && hi > RECORD_AUTO_RUNS)
		hi = c->planned > RECORD_AUTO_RUNS ? c->planned : RECORD_AUTO_RUNS;
	c->auto_runs = false;
	return order_auto_runs(c->done, measured_ns(rec, c), c->elapsed_ns, RECORD_AUTO_RUNS, RECORD_AUTO_NS,
			       RECORD_AUTO_CAP_NS, c->planned, hi);
}

/* Insert m slots at position at of the order. */
static void insert_slots(struct record *rec, size_t at, const struct order_slot *add, size_t m)
{
	rec->slots = xrealloc(rec->slots, (rec->nslots + m) * sizeof(*rec->slots));
	memmove(rec->slots + at + m, rec->slots + at, (rec->nslots - at) * sizeof(*rec->slots));
	memcpy(rec->slots + at, add, m * sizeof(*add));
	rec->nslots += m;
	rec->prog.total += (double)m;
}

/*
 * Sequential runs: command ci's pilot ended at slot i; its further runs go
 * right after it (none when the pilot was enough).
 */
static void extend_now(struct record *rec, size_t ci, size_t i)
{
	struct record_cmd *c = &rec->cmds[ci];
	unsigned long total = auto_target(rec, c), had = c->planned;
	if (total <= had)
		return;
	record_cmd_grow(rec, c, total);
	struct order_slot *add = xcalloc(total - had, sizeof(*add));
	for (unsigned long k = had; k < total; k++)
		add[k - had] = (struct order_slot){ ci, false, k };
	insert_slots(rec, i + 1, add, total - had);
	c->slots_left = total - had;
	free(add);
}

static bool next_look(struct record *rec);

/*
 * Interleaved runs: once every pilot round is done, the further runs of each
 * automatic command in new shuffled rounds (record/order.c).  false when
 * there are none.
 */
static bool extend_interleaved(struct record *rec)
{
	unsigned long *w = xcalloc(rec->ncmds, sizeof(*w)), *more = xcalloc(rec->ncmds, sizeof(*more));
	bool any = false;
	for (size_t ci = 0; ci < rec->ncmds; ci++) {
		struct record_cmd *c = &rec->cmds[ci];
		if (!c->auto_runs || c->stopped || c->finished)
			continue;
		unsigned long total = auto_target(rec, c), had = c->planned;
		more[ci] = total - had;
		record_cmd_grow(rec, c, total);
		c->slots_left = more[ci];
		any |= more[ci] > 0;
	}
	if (!any && rec->adaptive) {
		any = next_look(rec);
		if (!any)
			rec->adaptive = false;
	}
	else if (any) {
		struct order_slot *add;
		uint64_t seed = rec->o.seed + 1;
		size_t m = order_plan(w, more, rec->ncmds, true, seed, &add);
		for (size_t k = 0; k < m; k++)
			add[k].k += rec->cmds[add[k].cmd].planned - more[add[k].cmd];
		insert_slots(rec, rec->nslots, add, m);
		free(add);
	}
	for (size_t ci = 0; ci < rec->ncmds; ci++)
		if (!rec->cmds[ci].finished && !rec->cmds[ci].slots_left)
			finish(rec, ci);
	free(w);
	free(more);
	return any;
}

/*
 * Issue 37 T3: a deterministic backend makes one run of each command, and a
 * gate on its counts takes that count as exact.  A program seeded per
 * process (a hash seed) is not: its count moves from run to run.  So a
 * one-run exact gate that fails re-runs both sides once more (a cost only on
 * failure) before it is believed.  Commands with hooks are not re-run (their
 * cleanup has run): their gate row says "1 run each, assumed deterministic".
 */
static bool recheck_possible(const struct record *rec)
{
	if (!rec->be || !rec->be->deterministic || !rec->ngates)
		return false;
	bool exact = false;
	for (size_t g = 0; g < rec->ngates; g++)
		exact |= record_col_exact(rec, rec->gates[g].col);
	return exact;
}

static bool has_hooks(const struct record_cmd *c)
{
	for (int k = 0; k < HOOK_COUNT; k++)
		if (c->hook[k])
			return true;
	return false;
}

/* The statistics of command c's samples in column col so far. */
static void col_stats(const struct record_cmd *c, size_t col, struct lk_stats *st)
{
	stats_compute(c->vals[col], c->done, st);
}

/* One more measured run of c, after its others; its details added to the JSON's. */
static int run_once_more(struct record *rec, size_t ci)
{
	struct record_cmd *c = &rec->cmds[ci];
	char what[32];
	snprintf(what, sizeof(what), "command %zu", ci + 1);
	record_cmd_grow(rec, c, c->done + 1);
	c->planned = c->done + 1;
	progress_show(&rec->prog, "[%zu/%zu] a one-run gate failed: checking that the counts repeat: %s", ci + 1,
		      rec->ncmds, c->prog.text);
	int r = run_measured(rec, c, what, false);
	if (r > 0)
		stop(rec, c, r, "command");
	if (c->run_details.len) {	/* finish() closed the details: the run joins them */
		const char *scope = rec->bi[1].ops->json_scope;
		size_t keep = c->detail ? strlen(c->detail) : 0;
		char *old = c->detail;
		if (old && keep >= 2 && !strcmp(old + keep - 2, "]}")) {
			old[keep - 2] = '\0';
			c->detail = xasprintf("%s, %s]}", old, strbuf_str(&c->run_details));
		} else {
			c->detail = xasprintf("{\"scope\": \"%s\", \"runs\": [%s]}", scope ? scope : "",
					      strbuf_str(&c->run_details));
		}
		free(old);
		strbuf_release(&c->run_details);
	}
	return r;
}

static void recheck_gates(struct record *rec)
{
	bool *again = xcalloc(rec->ncmds, sizeof(*again));
	bool any = false;
	for (size_t g = 0; g < rec->ngates; g++) {
		size_t col = rec->gates[g].col;
		if (!record_col_exact(rec, col))
			continue;
		for (size_t ci = 0; ci < rec->ncmds; ci++) {
			const struct record_cmd *c = &rec->cmds[ci];
			if (!c->done || c->stopped || (!c->ref && ci == 0))
				continue;
			const struct record_cmd *r0 = &rec->cmds[0];
			struct lk_stats ref, cur;
			if (c->ref)
				ref = c->ref[col];
			else if (r0->done && !r0->stopped)
				col_stats(r0, col, &ref);
			else
				continue;
			col_stats(c, col, &cur);
			if (ref.n != 1 || cur.n != 1)
				continue;
			struct lk_delta d;
			struct gate_eval e;
			compare_delta(&ref, &cur, &d);
			gate_evaluate(&ref, &cur, &d, rec->gates[g].limit, true, &e);
			if (!e.failed || has_hooks(c) || (!c->ref && has_hooks(r0)))
				continue;
			again[ci] = true;
			if (!c->ref)
				again[0] = true;
			any = true;
		}
	}
	for (size_t ci = 0; any && ci < rec->ncmds && !runner_interrupted && !rec->collect_err; ci++) {
		struct record_cmd *c = &rec->cmds[ci];
		if (!again[ci])
			continue;
		double *first = xcalloc(rec->ncols ? rec->ncols : 1, sizeof(*first));
		for (size_t i = 0; i < rec->ncols; i++)
			first[i] = c->vals[i][0];
		if (run_once_more(rec, ci) || c->done < 2) {
			free(first);
			continue;
		}
		for (size_t g = 0; g < rec->ngates; g++) {
			size_t col = rec->gates[g].col;
			double now = c->vals[col][c->done - 1];
			if (!record_col_exact(rec, col) || first[col] == now || (isnan(first[col]) && isnan(now)))
				continue;
			progress_clear(&rec->prog);
			warning("gate '%s': counts differ between runs of command %zu (%s %.0f, then %.0f): the program is "
				"not deterministic (e.g. a hash seed); the gate goes by the interval of the runs it has",
				rec->gates[g].spec, ci + 1, rec->cols[col].label, first[col], now);
			tip("pin what moves it (PYTHONHASHSEED=0, a fixed seed), or gate on more runs: -n 5");
		}
		free(first);
	}
	free(again);
}

/*
 * Issue 37 T1: without -n, gates that cannot tell yet add interleaved rounds
 * on a fixed schedule of looks (stats/gate.h): at the automatic count n0, then
 * 2 n0, 4 n0, ... up to --max-runs, every look's interval widened so the
 * error rate over all looks holds (Bonferroni).  Only with interleaved runs
 * (a timing gate interleaves them) against the first command: a stored
 * baseline's timing gates cannot be decided by more runs (another session).
 */
static bool adaptive_possible(const struct record *rec)
{
	if (!rec->ngates || rec->o.runs_given || rec->o.runs_each || !rec->o.interleave || rec->ncmds < 2 ||
	    rec->have_base || rec->npasses > 1 || (rec->be && rec->be->deterministic))
		return false;
	for (size_t ci = 0; ci < rec->ncmds; ci++)
		if (!rec->cmds[ci].auto_runs)
			return false;
	return true;
}

/* The first gate that cannot tell at this look's level, or -1; its interval into lo, hi. */
static long undecided_gate(const struct record *rec, double *lo, double *hi)
{
	for (size_t g = 0; g < rec->ngates; g++) {
		size_t col = rec->gates[g].col;
		const struct record_cmd *r0 = &rec->cmds[0];
		struct lk_stats ref;
		col_stats(r0, col, &ref);
		for (size_t ci = 1; ci < rec->ncmds; ci++) {
			const struct record_cmd *c = &rec->cmds[ci];
			if (c->stopped || r0->stopped)
				continue;
			struct lk_stats cur;
			col_stats(c, col, &cur);
			struct lk_delta d;
			struct gate_eval e;
			compare_delta_level(&ref, &cur, rec->gate_alpha, &d);
			gate_evaluate(&ref, &cur, &d, rec->gates[g].limit, record_col_exact(rec, col), &e);
			if (e.inconclusive) {
				*lo = d.ci_low;
				*hi = d.ci_high;
				return (long)g;
			}
		}
	}
	return -1;
}

/*
 * Every command has its automatic count: look at the gates.  True when more
 * rounds were planned (up to the next look), false when the runs are done.
 */
static bool next_look(struct record *rec)
{
	unsigned long done = ULONG_MAX;
	double elapsed = 0;
	for (size_t ci = 0; ci < rec->ncmds; ci++) {
		if (rec->cmds[ci].stopped)
			return false;
		if (rec->cmds[ci].done < done)
			done = rec->cmds[ci].done;
		elapsed += rec->cmds[ci].elapsed_ns;
	}
	if (!done || done == ULONG_MAX)
		return false;
	if (!rec->nlooks) {	/* the schedule, fixed before the first look */
		unsigned long hi = rec->o.max_runs ? rec->o.max_runs : RECORD_AUTO_MAX;
		rec->nlooks = gate_looks(done, hi, rec->looks);
		rec->gate_alpha = gate_look_alpha(rec->nlooks);
		rec->look = 0;
	}
	while (rec->look < rec->nlooks && rec->looks[rec->look] <= done)
		rec->look++;
	double lo = NAN, hi = NAN;
	long g = undecided_gate(rec, &lo, &hi);
	if (g < 0 || rec->look >= rec->nlooks)
		return false;
	unsigned long want = rec->looks[rec->look];
	/* The time budget: what the next look's runs would take at the pace so far. */
	double more_ns = elapsed / (double)done * (double)(want - done);
	char iv[96];
	if (isfinite(lo) && isfinite(hi))
		snprintf(iv, sizeof(iv), "[%+.2f%%, %+.2f%%] at %.4g%% is on both sides of %g%%", lo, hi,
			 100 * (1 - rec->gate_alpha), rec->gates[g].limit);
	else
		snprintf(iv, sizeof(iv), "its interval is unbounded");
	if (elapsed + more_ns > RECORD_GATE_BUDGET_NS) {
		fprintf(rec->out, "(gate '%s' cannot tell at %lu runs: %s;\n the next look, at %lu runs, would pass "
			"the %.0f s budget: no more runs)\n", rec->gates[g].spec, done, iv, want,
			RECORD_GATE_BUDGET_NS / 1e9);
		return false;
	}
	fprintf(rec->out, "(gate '%s' cannot tell at %lu runs: %s;\n look %zu of %zu at %lu runs)\n",
		rec->gates[g].spec, done, iv, rec->look + 1, rec->nlooks, want);
	record_flush_stdout(rec);
	unsigned long *w = xcalloc(rec->ncmds, sizeof(*w)), *more = xcalloc(rec->ncmds, sizeof(*more));
	for (size_t ci = 0; ci < rec->ncmds; ci++) {
		struct record_cmd *c = &rec->cmds[ci];
		more[ci] = want > c->planned ? want - c->planned : 0;
		record_cmd_grow(rec, c, c->planned + more[ci]);
		c->slots_left = more[ci];
	}
	struct order_slot *add;
	size_t m = order_plan(w, more, rec->ncmds, true, rec->o.seed + 2 + rec->look, &add);
	for (size_t k = 0; k < m; k++)
		add[k].k += rec->cmds[add[k].cmd].planned - more[add[k].cmd];
	insert_slots(rec, rec->nslots, add, m);
	free(add);
	free(w);
	free(more);
	snprintf(rec->why, sizeof(rec->why), "gate %s cannot tell yet (look %zu of %zu)", rec->gates[g].spec,
		 rec->look + 1, rec->nlooks);
	return m > 0;
}

static void redraw_progress(void *prog)
{
	progress_redraw(prog);
}

void record_measure(struct record *rec)
{
	xctrace_record_note(rec->be, (unsigned long)rec->nslots);	/* every warm-up and run */
	progress_init(&rec->prog, !rec->o.show_output && !rec->o.no_progress);
	rec->run.idle = redraw_progress;	/* a long run's line moves on: its time, the ETA */
	rec->run.idle_arg = &rec->prog;
	progress_units(&rec->prog, (double)(rec->nslots + (rec->have_shell_cost ? rec->shell_cost.planned : 0)));
	if (rec->o.interleave && rec->ncmds > 1) {
		/* both within 80 columns (with the 6 digits of a seed lauka picks) */
		fprintf(rec->out, "Interleaved: one run of each command per round, order shuffled (--seed %llu)\n",
			(unsigned long long)rec->o.seed);
		if (rec->o.auto_interleave)
			fprintf(rec->out, "(a timing gate interleaves the runs; --no-interleave runs them in sequence)\n");
		fputc('\n', rec->out);
		record_flush_stdout(rec);
	}
	rec->hold_blocks = recheck_possible(rec);
	rec->adaptive = adaptive_possible(rec);
	rec->gate_alpha = GATE_ALPHA;
	size_t jobs = parallel_jobs(rec);
	if (jobs) {
		fprintf(rec->out, "Parallel (--jobs %zu): %s counts do not depend on the load; wall_time\n"
			"and peak_rss include %s, and wall_time is not comparable with runs\n"
			"made one at a time\n\n", jobs, rec->be->name, rec->be->name);
		rec->parallel = true;
		record_flush_stdout(rec);
	}
	if (rec->have_shell_cost) {
		measure_shell_cost(rec);
		record_report_ready(rec);
	}
	size_t i = 0;
again:
	for (; i < rec->nslots && !runner_interrupted && !rec->collect_err; i++) {
		const struct order_slot *s = &rec->slots[i];
		size_t ci = s->cmd;
		struct record_cmd *c = &rec->cmds[ci];
		if (c->stopped || c->finished)
			continue;
		c->slots_left--;
		if (rec->why[0])	/* rounds a gate asked for: say why it is still running */
			progress_show(&rec->prog, "[%zu/%zu] run %lu/%lu: %s: %s", ci + 1, rec->ncmds, s->k + 1, c->planned,
				      rec->why, c->prog.text);
		else
			progress_show(&rec->prog, "[%zu/%zu] %s %lu/%lu: %s", ci + 1, rec->ncmds,
				      s->warmup ? "warm-up" : "run", s->k + 1, s->warmup ? c->warmups : c->planned,
				      c->prog.text);
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
		/* --passes: the counters of the pass this run belongs to (warm-ups: whichever is open) */
		size_t pass = s->warmup ? rec->cur_pass : record_pass_of_run(rec, s->k, c->planned);
		if (!r && rec->npasses > 1 && pass != rec->cur_pass && record_open_pass(rec, pass)) {
			rec->collect_err = true;
			break;
		}
		if (!r && jobs && !s->warmup && s->k == 0 && c->slots_left + 1 == c->planned) {
			/* Every measured run of c at once: its other slots are done here. */
			if ((r = run_parallel(rec, c, ci, jobs)) > 0)
				stop(rec, c, r, "command");
			i += c->slots_left;
			c->slots_left = 0;
			if (runner_interrupted || rec->collect_err)
				break;
			finish(rec, ci);
			continue;
		}
		uint64_t t0 = lk_now_ns();
		if (!r && (r = run_measured(rec, c, what, s->warmup)) > 0)
			stop(rec, c, r, "command");
		if (!s->warmup)
			c->elapsed_ns += (double)(lk_now_ns() - t0);
		if (!r && (r = run_hook(rec, ci, HOOK_CONCLUDE, s)) > 0)
			stop(rec, c, r, "conclude");
		if (!r && !s->warmup && c->hook[HOOK_CHECK])
			check_run(rec, ci, s);
		progress_tick(&rec->prog);
		if (runner_interrupted || rec->collect_err)
			break;
		if (!c->stopped && !c->slots_left && (c->auto_runs || rec->adaptive)) {
			if (rec->o.interleave)
				continue;	/* its further rounds come after every pilot round */
			extend_now(rec, ci, i);
		}
		if (c->stopped || !c->slots_left)
			finish(rec, ci);
	}
	if (!runner_interrupted && !rec->collect_err && rec->o.interleave && extend_interleaved(rec))
		goto again;
	progress_clear(&rec->prog);
	/* Interrupted, or a collection error: what has been measured is still reported. */
	for (size_t ci = 0; ci < rec->ncmds; ci++)
		if (!rec->cmds[ci].finished) {
			finish(rec, ci);	/* cleans up only what was set up (setup_tried) */
		}
	if (rec->hold_blocks) {
		if (!runner_interrupted && !rec->collect_err)
			recheck_gates(rec);
		progress_clear(&rec->prog);
		rec->hold_blocks = false;
		record_report_ready(rec);
	}
}
