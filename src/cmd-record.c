/*
 * cmd-record.c: `lauka [record] [options] -- 'cmd1' ['cmd2' ...]`.
 *
 * Runs every warm-up and run of command 1, then command 2, and so on; each
 * command's block is printed as soon as it is done, so a long comparison
 * shows results early.  All validation (options, quoting, names, whether
 * each command exists, whether the events can be counted) happens before
 * the first run: a bad request never leaves a half-printed table.
 *
 *   $ lauka -n 5 -- 'sleep 0.01' 'sleep 0.02'
 *   Benchmark 1 (5 runs): sleep 0.01
 *
 *   measurement      mean ± σ           min … max            outliers
 *   wall_time        10.9ms ± 0.12ms    10.8ms … 11.1ms      0 (0%)
 *   ...
 */
#include "backend.h"
#include "backend-kperf.h"
#include "builtin.h"
#include "catalog.h"
#include "cmdline.h"
#include "compare.h"
#include "error.h"
#include "export.h"
#include "xctrace-slots.h"
#include "options.h"
#include "plot-out.h"
#include "progress.h"
#include "report.h"
#include "runner.h"
#include "sched.h"
#include "stats.h"
#include "sudo.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIN_RUNS 3
#define MAX_RUNS 1000000

enum color_mode { COLOR_AUTO, COLOR_NEVER, COLOR_ANSI };

struct record_opts {
	unsigned long runs, warmup;
	const char *measurements;
	const char *backend;
	enum color_mode color;
	bool show_output;
	bool guided;		/* --guided: xctrace's guided-mode slots, named by calibration */
	const char *db;
	const char *json;
	char **cmds;
	size_t ncmds;
	const char *plot;	/* --plot FILE.svg: the deltas drawn */
};

/* One measured quantity: which backend instance and which of its events. */
struct column {
	size_t backend;		/* 0 = rusage, 1 = counter backend */
	size_t index;		/* index into that backend's evsel array */
	char *label;
	const char *unit;
};

struct command {
	char *text;		/* as the user wrote it */
	char **argv;
	char path[PATH_MAX];
};

static int usage_error(void)
{
	help_hint("record");
	return EXIT_USAGE;
}

static int set_runs(const char *v, struct record_opts *o)
{
	if (opt_uint("-n", "number of runs", v, MAX_RUNS, "10", &o->runs) < 0)
		return -1;
	if (o->runs < MIN_RUNS) {
		error("minimum runs is %d (got %lu)", MIN_RUNS, o->runs);
		fix("use -n %d or higher", MIN_RUNS);
		return -1;
	}
	return 0;
}

static int parse_options(int argc, char **argv, struct record_opts *o)
{
	o->runs = MIN_RUNS;
	o->color = COLOR_AUTO;
	int i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		int r;
		if (!strcmp(a, "--"))
			break;
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return help_show("record"), 1;
		if (!strcmp(a, "--show-output")) {
			o->show_output = true;
			continue;
		}
		if (!strcmp(a, "--guided")) {
			o->guided = true;
			continue;
		}
		if ((r = opt_value(argc, argv, &i, "-n", &v)) || (r = opt_value(argc, argv, &i, "--runs", &v)) ||
		    (!strncmp(a, "-n", 2) && a[2] >= '0' && a[2] <= '9' && (v = a + 2, r = 1))) {	/* -n 9, -n9 */
			if (r < 0 || set_runs(v, o) < 0)
				return -1;
			continue;
		}
		if ((r = opt_value(argc, argv, &i, "--warmup", &v))) {
			if (r < 0)
				return -1;
			if (parse_uint(v, MAX_RUNS, &o->warmup) < 0) {
				error("invalid number of warm-up runs '%s'", v);
				fix("use --warmup with a whole number, e.g. --warmup 2");
				return -1;
			}
			continue;
		}
		if ((r = opt_value(argc, argv, &i, "-m", &v)) || (r = opt_value(argc, argv, &i, "--measurements", &v))) {
			if (r < 0)
				return -1;
			o->measurements = v;
			continue;
		}
		if ((r = opt_value(argc, argv, &i, "--backend", &v))) {
			if (r < 0)
				return -1;
			o->backend = v;
			continue;
		}
		if ((r = opt_value(argc, argv, &i, "--plot", &v))) {
			if (r < 0)
				return -1;
			o->plot = v;
			continue;
		}
		if ((r = opt_value(argc, argv, &i, "--json", &v))) {
			if (r < 0)
				return -1;
			o->json = v;
			continue;
		}
		if ((r = opt_value(argc, argv, &i, "--db", &v))) {
			if (r < 0)
				return -1;
			o->db = v;
			continue;
		}
		if ((r = opt_value(argc, argv, &i, "--color", &v))) {
			if (r < 0)
				return -1;
			if (!strcmp(v, "auto"))
				o->color = COLOR_AUTO;
			else if (!strcmp(v, "never"))
				o->color = COLOR_NEVER;
			else if (!strcmp(v, "ansi"))
				o->color = COLOR_ANSI;
			else {
				error("invalid --color '%s'", v);
				fix("use --color auto, never or ansi");
				return -1;
			}
			continue;
		}
		if (a[0] == '-') {
			error("unknown option '%s'", a);
			return -1;
		}
		error("missing '--' before the command '%s'", a);
		fix("put the commands after '--', each in quotes: lauka -- '%s'", a);
		return -1;
	}
	if (i >= argc || i + 1 >= argc) {
		error("no command to measure");
		fix("give each command after '--', in quotes: lauka -- 'sleep 0.1'");
		return -1;
	}
	o->cmds = argv + i + 1;
	o->ncmds = (size_t)(argc - i - 1);
	return 0;
}

/*
 * Words after `--` that look like options or bare numbers are almost always
 * an unquoted command line split by the shell: `lauka -- myapp --flag 1`.
 */
static int check_split_mistake(const struct record_opts *o)
{
	for (size_t i = 1; i < o->ncmds; i++) {
		const char *c = o->cmds[i];
		if (c[0] == '-' || strspn(c, "0123456789.") == strlen(c)) {
			struct strbuf sb = STRBUF_INIT;
			for (size_t j = 0; j < o->ncmds; j++)
				strbuf_addf(&sb, "%s%s", j ? " " : "", o->cmds[j]);
			error("command '%s' looks like an argument of the previous command", c);
			fix("wrap each command in quotes: lauka -- '%s'", strbuf_str(&sb));
			strbuf_release(&sb);
			return -1;
		}
	}
	return 0;
}

static int prepare_commands(const struct record_opts *o, struct command *cmds, int *exit_code)
{
	for (size_t i = 0; i < o->ncmds; i++) {
		char bad = 0;
		cmds[i].text = o->cmds[i];
		switch (cmdline_split(o->cmds[i], &cmds[i].argv, &bad)) {
		case CMDLINE_OK:
			break;
		case CMDLINE_EMPTY:
			error("command %zu is empty", i + 1);
			return -1;
		case CMDLINE_UNBALANCED:
			error("unbalanced quote or trailing backslash in command '%s'", o->cmds[i]);
			fix("close every ' and \" inside the command");
			return -1;
		case CMDLINE_META:
			error("command '%s' contains the shell metacharacter '%c'; lauka runs commands without a shell",
			      o->cmds[i], bad);
			fix("run it through a shell: lauka -- \"sh -c '%s'\"", o->cmds[i]);
			return -1;
		}
		int r = runner_resolve(cmds[i].argv[0], cmds[i].path, sizeof(cmds[i].path));
		if (r == -ENAMETOOLONG) {
			error("command path is longer than the system's limit (%zu bytes): '%.60s...'",
			      sizeof(cmds[i].path) - 1, cmds[i].argv[0]);
			*exit_code = 126;
			return -1;
		}
		if (r == -ENOENT) {
			error("command not found: '%s'", cmds[i].argv[0]);
			*exit_code = 127;
			return -1;
		}
		if (r < 0) {
			error("command is not executable: '%s'", cmds[i].argv[0]);
			*exit_code = 126;
			return -1;
		}
	}
	return 0;
}

/* Names from -m, split at commas, trimmed, duplicates dropped (case-insensitive). */
static size_t split_names(const char *list, char ***out)
{
	char **names = NULL;
	size_t n = 0;
	const char *p = list;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		while (len && (*p == ' ' || *p == '\t'))
			p++, len--;
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len) {
			char *name = xmalloc(len + 1);
			memcpy(name, p, len);
			name[len] = '\0';
			int dup = 0;
			for (size_t i = 0; i < n; i++)
				dup |= !lk_strcasecmp(names[i], name);
			if (dup)
				free(name);
			else {
				names = xrealloc(names, (n + 1) * sizeof(*names));
				names[n++] = name;
			}
		}
		if (!end)
			break;
		p = end + 1;
	}
	*out = names;
	return n;
}

static void suggest(const struct lk_pmu *const *pmus, size_t npmus, const char *name)
{
	const char *best[4];
	struct strbuf sb = STRBUF_INIT;
	size_t shown = 0;
	for (size_t k = 0; k < npmus && shown < 4; k++) {
		if (!pmus[k])
			continue;
		size_t n = pmu_suggest(pmus[k], name, best, 4 - shown);
		for (size_t i = 0; i < n; i++, shown++)
			strbuf_addf(&sb, "%s'%s'", shown ? ", " : "", best[i]);
	}
	if (shown)
		tip("did you mean %s?", strbuf_str(&sb));
	strbuf_release(&sb);
}

/* The first other backend whose catalogue has `name`, or NULL. */
static const struct lk_backend *backend_having(const char *name, const struct lk_backend *current)
{
	for (size_t i = 0; lk_backends[i]; i++) {
		const struct lk_backend *b = lk_backends[i];
		if (b == current || b == backend_rusage() || !b->catalog)
			continue;
		struct lk_pmu pmu = { 0 };
		char err[256];
		bool found = b->catalog(&pmu, err, sizeof(err)) == 0 && pmu_find(&pmu, name);
		pmu_release(&pmu);
		if (found)
			return b;
	}
	return NULL;
}

/*
 * A name no loaded catalogue knows.  When another backend has it and only
 * lacks root (kperf on macOS), that is the problem to report (exit 2);
 * otherwise it is a usage error with the closest names and, if another
 * backend has it, which one to pick.
 */
static int unknown_name(const char *name, const struct lk_backend *be, const struct lk_pmu *const *pmus,
			size_t npmus, int argc, char **argv)
{
	const struct lk_backend *other = backend_having(name, be);
	char why[256] = "";
	if (other && other->detect && other->detect(why, sizeof(why)) == -LK_EPERM) {
		error("'%s' is a %s counter and needs root: %s", name, other->name, why);
		options_need_root(argc, argv);
		return EXIT_COUNTERS;
	}
	error("unknown measurement '%s'%s%s", name, be ? " for backend " : "", be ? be->name : "");
	suggest(pmus, npmus, name);
	if (other)
		tip("'%s' is a %s event: add --backend %s", name, other->name, other->name);
	return EXIT_USAGE;
}

struct selection {
	struct lk_evsel *sel[2];
	size_t n[2];
};

static void sel_add(struct selection *s, size_t which, const struct lk_event *ev, bool explicit)
{
	for (size_t i = 0; i < s->n[which]; i++)
		if (s->sel[which][i].ev == ev)
			return;
	s->sel[which] = xrealloc(s->sel[which], (s->n[which] + 1) * sizeof(struct lk_evsel));
	struct lk_evsel *e = &s->sel[which][s->n[which]++];
	memset(e, 0, sizeof(*e));
	e->ev = ev;
	e->counter = -1;
	e->explicit = explicit;
}

static int choose_backend(const struct record_opts *o, const struct lk_backend **out, int argc, char **argv)
{
	const char *name = o->backend ? o->backend : getenv("LAUKA_BACKEND");
	if (!name || !*name) {
		*out = backend_default();
		return 0;
	}
	const struct lk_backend *b = options_backend(name);
	if (!b)
		return -EXIT_USAGE;
	if (b == backend_rusage()) {
		*out = NULL;
		return 0;
	}
	int r = options_backend_usable(b, argc, argv);
	if (r < 0)
		return r;
	*out = b;
	return 0;
}

/*
 * Assign counters (sched.c) and store them in the selection; when the set
 * cannot be counted at once, name the smallest conflicting subset.
 */
static int schedule(const struct lk_pmu *pmu, struct lk_evsel *sel, size_t n)
{
	bool constrained = false;
	for (size_t i = 0; i < n; i++)
		constrained |= sel[i].ev->counters_mask != 0;
	if (!constrained)
		return 0;
	const struct lk_event **evs = xcalloc(n, sizeof(*evs));
	int *counter = xcalloc(n, sizeof(*counter));
	struct sched_conflict conf;
	for (size_t i = 0; i < n; i++)
		evs[i] = sel[i].ev;
	int r = sched_assign(pmu, evs, n, counter, &conf);
	if (r == 0) {
		for (size_t i = 0; i < n; i++)
			sel[i].counter = counter[i];
	} else {
		char *names = sched_conflict_names(evs, &conf);
		error("requested measurements could not be scheduled on %s",
		      pmu->marketing_name ? pmu->marketing_name : pmu->name);
		tip("these events cannot be counted together: %s", names);
		free(names);
	}
	free(evs);
	free(counter);
	return r;
}

static bool want_color(enum color_mode m)
{
	if (m == COLOR_ANSI)
		return true;
	if (m == COLOR_NEVER)
		return false;
	return term_color_auto(STDOUT_FILENO);
}

static void show_failure(size_t idx, const struct command *c, const struct runner_result *res)
{
	if (res->term_signal)
		error("command %zu '%s' was killed by signal %d (%s)", idx + 1, c->text, res->term_signal,
		      strsignal(res->term_signal));
	else
		error("command %zu '%s' failed with exit code %d", idx + 1, c->text, res->exit_code);
	if (res->tail[0]) {
		fprintf(stderr, "stderr of the failed run%s:\n", strlen(res->tail) >= RUNNER_TAIL_MAX ? " (last 4 KB)" : "");
		fputs(res->tail, stderr);
		if (res->tail[strlen(res->tail) - 1] != '\n')
			fputc('\n', stderr);
	}
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { 0 };
	int pr = parse_options(argc, argv, &o);
	if (pr > 0)
		return 0;
	if (pr < 0)
		return usage_error();
	if (check_split_mistake(&o) < 0)
		return usage_error();

	int rc = EXIT_USAGE;
	struct command *cmds = xcalloc(o.ncmds, sizeof(*cmds));
	struct selection s = { 0 };
	struct column *cols = NULL;
	size_t ncols = 0;
	char **names = NULL;
	size_t nnames = 0;
	struct catalog *cat = NULL;
	struct lk_pmu rpmu = { 0 };
	struct backend_inst bi[2];
	size_t nbi = 0;
	double ***vals = NULL;		/* [command][column][run] */
	struct report_row **rows = NULL;	/* [command][column] */
	struct export_command *exp = NULL;
	FILE *json = NULL;
	struct runner run;
	bool runner_ok = false;
	char err[512] = "";
	memset(bi, 0, sizeof(bi));

	int ec = EXIT_USAGE;
	if (prepare_commands(&o, cmds, &ec) < 0) {
		rc = ec;
		goto out;
	}

	const struct lk_backend *be = NULL;
	if (o.guided && xctrace_record_guided(o.backend) < 0)
		goto out;
	int r = choose_backend(&o, &be, argc, argv);
	if (r < 0) {
		rc = -r;
		goto out;
	}
	backend_rusage()->catalog(&rpmu, err, sizeof(err));
	if (be) {
		struct catalog_opts copts = { .db_path = o.db };
		if (catalog_open(&cat, be, &copts, err, sizeof(err)) < 0) {
			/*
			 * Measuring needs the machine's events, not the database: unless
			 * the user named a database, fall back to the live catalogue and
			 * say what is lost (the calibration verdicts).
			 */
			char live_err[512];
			if (o.db || catalog_open_live(&cat, be, live_err, sizeof(live_err)) < 0) {
				error("cannot load the %s event catalogue: %s", be->name, o.db ? err : live_err);
				rc = EXIT_COUNTERS;
				goto out;
			}
			warning("%s", err);
			warning("measuring without the catalogue database: calibration verdicts are not checked");
		}
	}
	const struct lk_pmu *bpmu = cat ? catalog_pmu(cat) : NULL;

	/* wall_time and peak_rss always come first. */
	for (const char *const *d = backend_rusage()->defaults; *d; d++)
		sel_add(&s, 0, pmu_find(&rpmu, *d), false);
	if (o.measurements) {
		nnames = split_names(o.measurements, &names);
		if (!nnames) {
			error("no measurement named in -m '%s'", o.measurements);
			goto out;
		}
		for (size_t i = 0; i < nnames; i++) {
			const struct lk_event *ev = pmu_find(&rpmu, names[i]);
			if (ev) {
				sel_add(&s, 0, ev, true);
				continue;
			}
			ev = bpmu ? pmu_find(bpmu, names[i]) : NULL;
			if (ev) {
				sel_add(&s, 1, ev, true);
				continue;
			}
			const struct lk_pmu *pm[2] = { bpmu, &rpmu };
			rc = unknown_name(names[i], be, pm, 2, argc, argv);
			goto out;
		}
	} else if (be && be->defaults) {
		for (const char *const *d = be->defaults; *d; d++) {
			const struct lk_event *ev = pmu_find(bpmu, *d);
			if (ev)
				sel_add(&s, 1, ev, false);
		}
	}

	/* Counter-constrained events (kpep) must fit on the counters together. */
	if (bpmu && s.n[1] && schedule(bpmu, s.sel[1], s.n[1]) < 0) {
		rc = EXIT_COUNTERS;
		goto out;
	}

	/*
	 * Catch SIGINT/SIGTERM before any backend takes hardware state (kperf
	 * forces counters): from here on every signal ends on the cleanup path.
	 */
	runner_signals_install();
	/* Open the backends; drop default events that cannot count here, fail on explicit ones. */
	if (backend_inst_open(&bi[nbi], backend_rusage(), s.sel[0], s.n[0], err, sizeof(err)) < 0) {
		error("%s", err);
		rc = EXIT_COUNTERS;
		goto out;
	}
	nbi++;
	if (be && s.n[1]) {
		for (int attempt = 0; attempt < 2; attempt++) {
			int orc = backend_inst_open(&bi[nbi], be, s.sel[1], s.n[1], err, sizeof(err));
			if (orc < 0) {
				error("%s backend: %s", be->name, err);
				if (orc == -LK_EPERM)
					options_need_root(argc, argv);
				else if (orc == -LK_EBUSY)
					fix("quit the other program using the counters (Instruments, a profiler, another lauka), then retry");
				rc = EXIT_COUNTERS;
				goto out;
			}
			size_t kept = 0;
			for (size_t i = 0; i < s.n[1]; i++) {
				struct lk_evsel *e = &s.sel[1][i];
				if (!e->err) {
					s.sel[1][kept++] = *e;
					continue;
				}
				if (e->explicit) {
					error("cannot count '%s' with the %s backend: %s", e->ev->name, be->name,
					      e->why[0] ? e->why : lk_strerror(e->err));
					rc = EXIT_COUNTERS;
					backend_inst_close(&bi[nbi]);
					goto out;
				}
			}
			if (kept == s.n[1]) {
				nbi++;
				break;
			}
			backend_inst_close(&bi[nbi]);
			s.n[1] = kept;
			if (!kept)
				break;
		}
	}
	for (size_t i = 0; cat && i < s.n[1]; i++) {
		const struct lk_event *ev = s.sel[1][i].ev;
		if (catalog_verdict_failed(cat, ev))
			warning("'%s' failed calibration on this machine (%s); treat its numbers with care",
				ev->name, catalog_verdict(cat, ev));
	}

	/* Columns in display order: rusage first, then the counter events. */
	size_t name_width = 0;
	for (size_t b = 0; b < nbi; b++) {
		for (size_t i = 0; i < bi[b].nsel; i++) {
			cols = xrealloc(cols, (ncols + 1) * sizeof(*cols));
			struct column *c = &cols[ncols++];
			c->backend = b;
			c->index = i;
			const struct lk_event *ev = bi[b].sel[i].ev;
			c->label = bpmu && b == 1 && !strcmp(bpmu->kind, "kpep") ? pmu_display_name(ev->name)
				   : o.guided && b == 1 ? xctrace_slot_label(cat, ev) : xstrdup(ev->name);
			c->unit = ev->unit;
			if (strlen(c->label) > name_width)
				name_width = strlen(c->label);
		}
	}

	if (o.plot && o.ncmds < 2) {
		error("--plot draws deltas against the first command: give two or more commands");
		rc = EXIT_USAGE;
		goto out;
	}
	if (o.plot && plot_path_check(o.plot, err, sizeof(err)) < 0) {
		error("%s", err);
		rc = EXIT_USAGE;
		goto out;
	}
	if (o.json && !(json = fopen(o.json, "w"))) {
		error("cannot write '%s': %s", o.json, strerror(errno));
		rc = EXIT_USAGE;
		goto out;
	}

	struct runner_opts ropts = { .show_output = o.show_output, .uid = -1, .gid = -1 };
	/* Under sudo the command runs as the user who typed it, in that user's environment. */
	struct sudo_user su;
	if (sudo_user(&su)) {
		ropts.uid = su.uid;
		ropts.gid = su.gid;
		ropts.groups = su.groups;
		ropts.ngroups = su.ngroups;
		sudo_user_env(&su);
	}
	if (runner_init(&run, &ropts, err, sizeof(err)) < 0) {
		error("%s", err);
		rc = EXIT_COUNTERS;
		goto out;
	}
	runner_ok = true;

	struct lk_counts *counts[2] = { NULL, NULL };
	for (size_t b = 0; b < nbi; b++)
		counts[b] = xcalloc(bi[b].nsel ? bi[b].nsel : 1, sizeof(struct lk_counts));
	vals = xcalloc(o.ncmds, sizeof(*vals));
	rows = xcalloc(o.ncmds, sizeof(*rows));
	exp = xcalloc(o.ncmds, sizeof(*exp));
	for (size_t ci = 0; ci < o.ncmds; ci++) {
		vals[ci] = xcalloc(ncols, sizeof(**vals));
		for (size_t c = 0; c < ncols; c++)
			vals[ci][c] = xcalloc(o.runs, sizeof(double));
		rows[ci] = xcalloc(ncols, sizeof(**rows));
	}
	double *coverage = xcalloc(ncols, sizeof(double));
	size_t *counted = xcalloc(ncols, sizeof(size_t));
	size_t nexp = 0;
	struct report_opts ro = { .color = want_color(o.color), .name_width = name_width };
	xctrace_record_note(be, o.warmup + o.runs, o.ncmds);
	struct lk_progress prog;
	progress_init(&prog, !o.show_output);
	int first_fail = 0, collect_err = 0;
	bool have_ref = false;

	rc = 0;
	for (size_t ci = 0; ci < o.ncmds && !runner_interrupted && !collect_err; ci++) {
		struct command *cmd = &cmds[ci];
		struct runner_result res;
		size_t done = 0;
		bool failed = false;
		for (size_t c = 0; c < ncols; c++) {
			coverage[c] = 1;
			counted[c] = 0;
		}
		unsigned long total = o.warmup + o.runs;
		progress_units(&prog, (double)total);
		for (unsigned long k = 0; k < total && !runner_interrupted; k++) {
			bool warm = k < o.warmup;
			progress_show(&prog, "[%zu/%zu] %s %lu/%lu", ci + 1, o.ncmds, warm ? "warm-up" : "run",
				      warm ? k + 1 : k - o.warmup + 1, warm ? o.warmup : o.runs);
			if (runner_run(&run, cmd->path, cmd->argv, bi, nbi, counts, &res, err, sizeof(err)) < 0) {
				progress_clear(&prog);
				error("measuring command %zu '%s': %s", ci + 1, cmd->text, err);
				collect_err = 1;
				break;
			}
			if (runner_interrupted)
				break;
			if (res.exec_errno) {
				progress_clear(&prog);
				error("cannot execute '%s': %s", cmd->argv[0], strerror(res.exec_errno));
				if (!first_fail)
					first_fail = res.exec_errno == ENOENT ? 127 : 126;
				failed = true;
				break;
			}
			if (res.exit_code != 0) {
				progress_clear(&prog);
				show_failure(ci, cmd, &res);
				if (!first_fail)
					first_fail = res.exit_code;
				failed = true;
				break;
			}
			progress_tick(&prog);
			if (warm)
				continue;
			for (size_t c = 0; c < ncols; c++) {
				struct lk_counts *ct = &counts[cols[c].backend][cols[c].index];
				counts_scale(ct);
				vals[ci][c][done] = (double)ct->value;
				if (ct->supported && (ct->running || !ct->enabled))
					counted[c]++;
				if (ct->scaled && ct->coverage < coverage[c])
					coverage[c] = ct->coverage;
			}
			done++;
		}
		progress_clear(&prog);
		if (!done)
			continue;
		for (size_t c = 0; c < ncols; c++) {
			struct report_row *row = &rows[ci][c];
			row->name = cols[c].label;
			row->unit = cols[c].unit;
			stats_compute(vals[ci][c], done, &row->st);
			row->not_counted = counted[c] == 0;
			row->scaled = coverage[c] < 1;
			row->coverage = coverage[c];
			if (ci > 0 && have_ref) {
				row->has_delta = true;
				compare_delta(&rows[0][c].st, &row->st, &row->delta);
			}
		}
		if (ci == 0)
			have_ref = true;
		report_block(stdout, &ro, (unsigned)(ci + 1), done, cmd->text, rows[ci], ncols);
		fflush(stdout);
		/* Scaled counts are never silent: below 99% counted, say so once per command. */
		double low = 1;
		for (size_t c = 0; c < ncols; c++)
			if (rows[ci][c].scaled && !rows[ci][c].not_counted && rows[ci][c].coverage < low)
				low = rows[ci][c].coverage;
		if (low < 0.99)
			warning("only %.1f%% of command %zu's run was counted (sampling or multiplexing); "
				"the counts marked 'scaled' are extrapolated", low * 100, ci + 1);
		kperf_record_tips(be ? be->name : "rusage", cmd->argv, ci == 0);	/* direct process only; user mode */
		exp[nexp++] = (struct export_command){
			.command = cmd->text, .exit_code = failed ? (res.exit_code ? res.exit_code : 127) : 0,
			.runs = done, .rows = rows[ci], .samples = (const double *const *)vals[ci], .nrows = ncols,
		};
		if (nbi > 1 && bi[1].ops->json_detail) {
			exp[nexp - 1].detail_key = be->name;
			exp[nexp - 1].detail = bi[1].ops->json_detail(bi[1].priv);
		}
	}
	if (json) {
		export_json(json, be ? be->name : "rusage", exp, nexp);
		if (fclose(json) != 0) {
			error("cannot write '%s': %s", o.json, strerror(errno));
			rc = rc ? rc : EXIT_USAGE;
		}
		json = NULL;
	}
	for (size_t i = 0; i < nexp; i++)
		free((char *)exp[i].detail);
	if (o.plot && plot_record_write(o.plot, be ? be->name : "rusage", o.cmds, o.ncmds, rows, ncols, err, sizeof(err)) < 0) {
		error("%s", err);
		rc = rc ? rc : EXIT_USAGE;
	}
	free(coverage);
	free(counted);
	for (size_t b = 0; b < 2; b++)
		free(counts[b]);

	if (collect_err)
		rc = EXIT_COUNTERS;
	else if (first_fail)
		rc = first_fail;
	else if (runner_interrupted)
		rc = 128 + runner_interrupted;
	if (runner_interrupted && !collect_err)
		fprintf(stderr, "lauka: interrupted; results above are from the completed runs\n");
out:
	for (size_t b = 0; b < nbi; b++)
		backend_inst_close(&bi[b]);
	if (runner_ok)
		runner_release(&run);
	if (json)
		fclose(json);
	for (size_t ci = 0; vals && ci < o.ncmds; ci++) {
		for (size_t c = 0; c < ncols; c++)
			free(vals[ci][c]);
		free(vals[ci]);
		free(rows[ci]);
	}
	free(vals);
	free(rows);
	free(exp);
	for (size_t c = 0; c < ncols; c++)
		free(cols[c].label);
	free(cols);
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	free(s.sel[0]);
	free(s.sel[1]);
	catalog_close(cat);
	pmu_release(&rpmu);
	for (size_t i = 0; i < o.ncmds; i++)
		cmdline_free(cmds[i].argv);
	free(cmds);
	return rc;
}
