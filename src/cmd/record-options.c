/*
 * cmd/record-options.c: record's command line, one row per option, parsed by
 * opts_parse() (cmd/options.h) as every verb's is.  A setter gets the value
 * (NULL for a flag) and prints its own error; adding an option is a row here
 * and a field in struct record_opts.
 */
#include "cmd/builtin.h"
#include "base/error.h"
#include "cmd/options.h"
#include "record/record.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const record_hook_names[HOOK_COUNT] = { "setup", "prepare", "conclude", "cleanup", "check" };

static void list_add(struct record_list *l, const char *v)
{
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = v;
}

/* At least 1 here; a sampled backend's minimum of 3 is checked once the backend is known (record/plan.c). */
static int one_runs(const char *v, unsigned long *out)
{
	if (opt_uint("-n", "number of runs", v, RECORD_MAX_RUNS, "10", out) < 0) {
		if (*v && strspn(v, "0123456789") != strlen(v))
			tip("-n is the number of runs, as -r; hyperfine's -n (a command's name) is --command-name here");
		return -1;
	}
	if (*out < 1) {
		error("minimum runs is 1 (got %lu)", *out);
		/* the backend is not known yet: the fix every backend takes, then valgrind's 1 */
		fix("use -n %d or higher (-n 1 is enough with --backend valgrind, whose counts are exact)",
		    RECORD_MIN_RUNS);
		return -1;
	}
	return 0;
}

/* -n N for every command, or -n N1,N2,... one per command, in order (record/plan.c checks the count). */
static int set_runs(void *ctx, const char *v)
{
	struct record_opts *o = ctx;
	free(o->runs_each);
	o->runs_each = NULL;
	o->nruns_each = 0;
	o->runs_given = true;
	if (!strchr(v, ','))
		return one_runs(v, &o->runs);
	size_t n = 1;
	for (const char *p = v; *p; p++)
		n += *p == ',';
	o->runs_each = xcalloc(n, sizeof(*o->runs_each));
	char *copy = xstrdup(v);
	int r = 0;
	for (char *w = copy; r == 0 && w; o->nruns_each++) {
		char *comma = strchr(w, ',');
		if (comma)
			*comma = '\0';
		if (!*w) {
			error("invalid number of runs '' in -n '%s'", v);
			fix("give one whole number per command, separated by commas, e.g. -n 10,5");
			r = -1;
		} else
			r = one_runs(w, &o->runs_each[o->nruns_each]);
		w = comma ? comma + 1 : NULL;
	}
	free(copy);
	o->runs = o->runs_each[0];
	return r;
}

static int set_warmup(void *ctx, const char *v)
{
	struct record_opts *o = ctx;
	return opt_uint("--warmup", "number of warm-up runs", v, RECORD_MAX_RUNS, "2", &o->warmup);
}

/* The run-count options of issue 28: bounds of the automatic count, parallel runs, inconclusive gates. */
static int set_min_runs(void *ctx, const char *v)
{
	struct record_opts *o = ctx;
	if (opt_uint("--min-runs", "number of runs", v, RECORD_MAX_RUNS, "10", &o->min_runs) < 0)
		return -1;
	if (o->min_runs >= 1)
		return 0;
	error("--min-runs must be 1 or more (got 0)");
	return -1;
}

static int set_max_runs(void *ctx, const char *v)
{
	struct record_opts *o = ctx;
	if (opt_uint("--max-runs", "number of runs", v, RECORD_MAX_RUNS, "50", &o->max_runs) < 0)
		return -1;
	if (o->max_runs >= 1)
		return 0;
	error("--max-runs must be 1 or more (got 0)");
	return -1;
}

static int set_jobs(void *ctx, const char *v)
{
	struct record_opts *o = ctx;
	if (opt_uint("--jobs", "number of parallel runs", v, 1024, "2", &o->jobs) < 0)
		return -1;
	if (o->jobs >= 1)
		return 0;
	error("--jobs must be 1 or more (got 0)");
	return -1;
}

static int set_gate_inconclusive(void *ctx, const char *v)
{
	struct record_opts *o = ctx;
	if (!strcmp(v, "pass") || !strcmp(v, "fail")) {
		o->gate_inconclusive = !strcmp(v, "pass") ? INCONCLUSIVE_PASS : INCONCLUSIVE_FAIL;
		return 0;
	}
	error("invalid --gate-inconclusive '%s'", v);
	fix("use --gate-inconclusive pass or --gate-inconclusive fail");
	return -1;
}

static int set_color(void *ctx, const char *v)
{
	static const enum record_color color[] = {
		[OPT_COLOR_AUTO] = RECORD_COLOR_AUTO, [OPT_COLOR_NEVER] = RECORD_COLOR_NEVER, [OPT_COLOR_ANSI] = RECORD_COLOR_ANSI,
	};
	int c = opt_color(v);
	if (c < 0)
		return -1;
	((struct record_opts *)ctx)->color = color[c];
	return 0;
}

static int set_seed(void *ctx, const char *v)
{
	struct record_opts *o = ctx;
	char *end;
	errno = 0;
	unsigned long long s = strtoull(v, &end, 10);
	if (!*v || *v == '-' || *v == '+' || *end || errno) {
		error("invalid --seed '%s'", v);
		fix("use --seed with a whole number, e.g. --seed 42");
		return -1;
	}
	o->seed = s;
	o->have_seed = true;
	return 0;
}

#define SETTER(fn, opt, stmt) \
	static int fn(void *ctx, const char *v) \
	{ struct record_opts *o = ctx; if (v && opt_nonempty(opt, v) < 0) return -1; stmt; return 0; }
/* -m given again adds to the list, as perf stat -e does. */
static int set_measurements(void *ctx, const char *v)
{
	struct record_opts *o = ctx;
	if (opt_nonempty("--measurements", v) < 0)
		return -1;
	if (strspn(v, "0123456789") == strlen(v)) {	/* no event's name is a number: hyperfine's -m N */
		error("'%s' is not a measurement: -m is lauka's list of events (-m cycles,instructions)", v);
		fix("for at least %s runs, hyperfine's -m, write --min-runs %s", v, v);
		return -1;
	}
	/* Measurement names never hold control characters: a newline would also split the error quoting it. */
	for (const char *c = v; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			error("--measurements holds a control character (byte 0x%02x); names are separated by commas",
			      (unsigned char)*c);
			fix("write the list on one line, e.g. -m cycles,instructions");
			return -1;
		}
	if (!o->measurements) {
		o->measurements = v;
		return 0;
	}
	char *joined = xasprintf("%s,%s", o->measurements, v);
	free(o->measurements_buf);
	o->measurements = o->measurements_buf = joined;
	return 0;
}

/* An export option given twice for one format would lose one of the files: refuse it. */
static int set_export(struct record_opts *o, enum record_export_kind k, const char *opt, const char *v)
{
	if (opt_nonempty(opt, v) < 0)
		return -1;
	if (o->exports[k]) {
		error("%s given twice ('%s' and '%s')", opt, o->exports[k], v);
		fix("give %s once; to keep two copies, copy the file", opt);
		return -1;
	}
	o->exports[k] = v;
	return 0;
}
static int set_json(void *ctx, const char *v) { return set_export(ctx, EXPORT_JSON, "--export-json", v); }
static int set_csv(void *ctx, const char *v) { return set_export(ctx, EXPORT_CSV, "--export-csv", v); }
static int set_markdown(void *ctx, const char *v)
{
	return set_export(ctx, EXPORT_MARKDOWN, "--export-markdown", v);
}

/* --ok-exit-codes 0,1: the exit statuses that count as success (0..255). */
static int set_ok_codes(void *ctx, const char *v)
{
	struct record_opts *o = ctx;
	if (opt_nonempty("--ok-exit-codes", v) < 0)
		return -1;
	free(o->ok_codes);
	o->ok_codes = NULL;
	o->nok_codes = 0;
	for (const char *p = v;;) {
		char *end;
		errno = 0;
		long c = strtol(p, &end, 10);
		if (end == p || errno || c < 0 || c > 255 || (*end && *end != ',')) {
			error("invalid --ok-exit-codes '%s'", v);
			fix("list exit statuses from 0 to 255 with commas, e.g. --ok-exit-codes 0,1");
			return -1;
		}
		o->ok_codes = xrealloc(o->ok_codes, (o->nok_codes + 1) * sizeof(int));
		o->ok_codes[o->nok_codes++] = (int)c;
		if (!*end)
			return 0;
		p = end + 1;
	}
}
SETTER(set_backend, "--backend", o->backend = v)
SETTER(set_db, "--db", o->db = v)
SETTER(set_show_output, "--show-output", o->show_output = true)
SETTER(set_plot, "--plot", o->plot = v)
SETTER(set_guided, "--guided", o->guided = true)
SETTER(set_explain, "--explain", o->explain = true)
SETTER(set_shell, "--shell", o->shell = strcmp(v, "none") ? v : NULL)	/* hyperfine's --shell=none */
SETTER(set_interleave, "--interleave", o->interleave = true)
SETTER(set_passes, "--passes", o->passes = true)
SETTER(set_no_interleave, "--no-interleave", o->no_interleave = true)
SETTER(set_ignore_failure, "--ignore-failure", o->ignore_failure = true)
SETTER(set_setup, "--setup", list_add(&o->hooks[HOOK_SETUP], v))
SETTER(set_prepare, "--prepare", list_add(&o->hooks[HOOK_PREPARE], v))
SETTER(set_conclude, "--conclude", list_add(&o->hooks[HOOK_CONCLUDE], v))
SETTER(set_cleanup, "--cleanup", list_add(&o->hooks[HOOK_CLEANUP], v))
SETTER(set_check, "--check", list_add(&o->hooks[HOOK_CHECK], v))
SETTER(set_name, "--command-name", list_add(&o->names, v))
SETTER(set_gate, "--gate", list_add(&o->gates, v))
SETTER(set_save_baseline, "--save-baseline", o->save_baseline = v)
SETTER(set_baseline, "--baseline", o->baseline = v)
SETTER(set_runner_class, "--runner-class", o->runner_class = v)
SETTER(set_any_runner, "--any-runner", o->any_runner = true)
SETTER(set_git, "--git", o->git = true)
SETTER(set_collect, "--collect", o->collect = v)
#undef SETTER

/*
 * hyperfine's spellings, where they do not collide with lauka's contract
 * (doc/hyperfine.md): -w, -r, -N, --style and the parameter scans.  -n stays
 * lauka's run count (the seed's contract), not hyperfine's --command-name.
 */
static int set_shell_none(void *ctx, const char *v)
{
	(void)v;
	((struct record_opts *)ctx)->shell = NULL;
	return 0;
}

/* --style: hyperfine's output styles, mapped onto --color and the progress line. */
static int set_style(void *ctx, const char *v)
{
	struct record_opts *o = ctx;
	static const char *const names[] = { "full", "basic", "nocolor", "color", "none" };
	size_t k = 0;
	while (k < ARRAY_SIZE(names) && strcmp(v, names[k]))
		k++;
	if (k == ARRAY_SIZE(names)) {
		error("invalid --style '%s'", v);
		fix("use --style full, basic, nocolor, color or none (as hyperfine's)");
		return -1;
	}
	o->color = k == 3 ? RECORD_COLOR_ANSI : k == 0 ? RECORD_COLOR_AUTO : RECORD_COLOR_NEVER;
	o->no_progress = k == 1 || k == 4;
	o->no_results = k == 4;
	return 0;
}

static int add_param(struct record_opts *o, const char *opt, const char *name)
{
	if (opt_nonempty(opt, name) < 0)
		return -1;
	if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(name)) {
		error("invalid parameter name '%s' for %s", name, opt);
		fix("name it with letters, digits, '_' or '-', and write {NAME} where its value goes");
		return -1;
	}
	for (size_t i = 0; i < o->nparams; i++)
		if (!strcmp(o->params[i].name, name)) {
			error("parameter '%s' given twice", name);
			fix("give each parameter once, with all its values: -L %s a,b,c", name);
			return -1;
		}
	o->params = xrealloc(o->params, (o->nparams + 1) * sizeof(*o->params));
	o->params[o->nparams] = (struct record_param){ .name = name };
	o->nparams++;
	return 0;
}

/*
 * -P NAME MIN MAX: NAME takes MIN, MIN + STEP, ... up to MAX (-D STEP,
 * default 1); the parser hands the three values over one at a time.
 */
static int set_scan(void *ctx, const char *v)
{
	struct record_opts *o = ctx;
	struct record_param *p = o->nparams ? &o->params[o->nparams - 1] : NULL;
	if (p && !p->list && !p->max) {
		if (opt_nonempty("-P", v) < 0)
			return -1;
		*(p->min ? &p->max : &p->min) = v;
		return 0;
	}
	return add_param(o, "-P", v);
}

/* -L NAME V1,V2,...: NAME takes each value in turn. */
static int set_list(void *ctx, const char *v)
{
	struct record_opts *o = ctx;
	struct record_param *p = o->nparams ? &o->params[o->nparams - 1] : NULL;
	if (p && p->list && !*p->list) {	/* the name came before: this is the list */
		if (opt_nonempty("-L", v) < 0)
			return -1;
		p->list = v;
		return 0;
	}
	if (add_param(o, "-L", v) < 0)
		return -1;
	o->params[o->nparams - 1].list = "";
	return 0;
}

static int set_step(void *ctx, const char *v)
{
	struct record_opts *o = ctx;
	if (opt_nonempty("-D", v) < 0)
		return -1;
	o->param_step = v;
	return 0;
}

static const struct opt_spec options[] = {
	{ "--runs", "-n", true, set_runs },
	{ "--warmup", "-w", true, set_warmup },
	{ "--measurements", "-m", true, set_measurements },
	{ "--backend", NULL, true, set_backend },
	{ "--color", NULL, true, set_color },
	{ "--show-output", NULL, false, set_show_output },
	{ "--db", NULL, true, set_db },
	{ "--export-json", "--json", true, set_json },
	{ "--export-csv", NULL, true, set_csv },
	{ "--export-markdown", NULL, true, set_markdown },
	{ "--plot", NULL, true, set_plot },
	{ "--guided", NULL, false, set_guided },
	{ "--explain", NULL, false, set_explain },
	{ "--shell", "-S", true, set_shell },
	{ "--interleave", NULL, false, set_interleave },
	{ "--passes", NULL, false, set_passes },
	{ "--no-interleave", NULL, false, set_no_interleave },
	{ "--ignore-failure", "-i", false, set_ignore_failure },
	{ "--ok-exit-codes", NULL, true, set_ok_codes },
	{ "--seed", NULL, true, set_seed },
	{ "--setup", NULL, true, set_setup },
	{ "--prepare", NULL, true, set_prepare },
	{ "--conclude", NULL, true, set_conclude },
	{ "--cleanup", NULL, true, set_cleanup },
	{ "--check", NULL, true, set_check },
	{ "--command-name", NULL, true, set_name },
	{ "--gate", NULL, true, set_gate },
	{ "--save-baseline", NULL, true, set_save_baseline },
	{ "--baseline", NULL, true, set_baseline },
	{ "--runner-class", NULL, true, set_runner_class },
	{ "--any-runner", NULL, false, set_any_runner },
	{ "--git", NULL, false, set_git },
	/* hyperfine's spellings (see set_style above) */
	{ "-r", NULL, true, set_runs },
	{ "-N", NULL, false, set_shell_none },
	{ "--style", NULL, true, set_style },
	{ "--parameter-scan", "-P", 3, set_scan },
	{ "--parameter-list", "-L", 2, set_list },
	{ "--parameter-step-size", "-D", true, set_step },
	{ "--min-runs", NULL, true, set_min_runs },
	{ "--max-runs", NULL, true, set_max_runs },
	{ "--jobs", NULL, true, set_jobs },
	{ "--gate-inconclusive", NULL, true, set_gate_inconclusive },
	{ "--collect", NULL, true, set_collect },
};

/* A word before "--" is a command without its "--". */
static int missing_dashdash(void *ctx, const char *a)
{
	error("missing '--' before the command '%s'", a);
	fix("put the commands after '--', each in quotes: lauka -- '%s'", a);
	return -1;
}

/* How many words record option `w` takes after it (0 for a flag, 1 for --opt=V or -nV), or -1 when w is none. */
static int option_words(const char *w)
{
	for (size_t k = 0; k < ARRAY_SIZE(options); k++) {
		const char *names[2] = { options[k].name, options[k].alias };
		for (size_t j = 0; j < 2 && names[j]; j++) {
			size_t len = strlen(names[j]);
			if (!strcmp(w, names[j]))
				return options[k].value;
			if (options[k].value == 1 && !strncmp(w, names[j], len) &&
			    (w[len] == '=' || (names[j][1] != '-' && w[len])))
				return 0;
		}
	}
	return -1;
}

/* Appends w for a shell: as is when nothing in it is special to one, else in single quotes. */
static void add_quoted(struct strbuf *sb, const char *w, bool always)
{
	if (!always && *w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=,:%+-@") == strlen(w)) {
		strbuf_addf(sb, " %s", w);
		return;
	}
	strbuf_addf(sb, " '");
	for (const char *c = w; *c; c++)
		strbuf_addf(sb, *c == '\'' ? "'\\''" : "%c", *c);
	strbuf_addf(sb, "'");
}

/*
 * hyperfine takes its options after the commands (`hyperfine 'a' 'b' -i`); after lauka's `--`
 * every word is a command.  A later word that is one of record's options (with its values) is
 * most likely such an option: the fix moves them before `--` and keeps each command as it was.
 */
static int options_after_commands(const struct record *rec, int next)
{
	char **w = rec->argv + next;
	int n = rec->argc - next, first = -1;
	for (int i = 1; i < n && first < 0; i++)
		if (w[i][0] == '-' && option_words(w[i]) >= 0)
			first = i;
	if (first < 0)
		return 0;
	struct strbuf opts = STRBUF_INIT, cmds = STRBUF_INIT;
	for (int i = 1; i < next - 1; i++)	/* the options already before "--" */
		add_quoted(&opts, rec->argv[i], false);
	for (int i = 0; i < n; i++) {
		int k = i > 0 && w[i][0] == '-' ? option_words(w[i]) : -1;
		if (k < 0) {
			add_quoted(&cmds, w[i], true);
			continue;
		}
		for (int j = i; j <= i + k && j < n; j++)
			add_quoted(&opts, w[j], false);
		i += k;
	}
	error("'%s' after the commands is an option of lauka's: every word after '--' is a command", w[first]);
	fix("put lauka's options before '--': lauka%s --%s", strbuf_str(&opts), strbuf_str(&cmds));
	/* the first one moved, with its values, might be the previous command's after all */
	struct strbuf own = STRBUF_INIT;
	for (int j = first; j <= first + option_words(w[first]) && j < n; j++)
		strbuf_addf(&own, "%s%s", j > first ? " " : "", w[j]);
	if (!strchr(w[first - 1], '\'') && !strchr(strbuf_str(&own), '\''))
		tip("if '%s' is an argument of the command before it, quote them together: '%s %s'", strbuf_str(&own),
		    w[first - 1], strbuf_str(&own));
	strbuf_release(&own);
	strbuf_release(&opts);
	strbuf_release(&cmds);
	return -1;
}

int record_parse_options(struct record *rec)
{
	static const struct opt_verb verb = { "record", options, ARRAY_SIZE(options), missing_dashdash, true };
	struct record_opts *o = &rec->o;
	o->runs = RECORD_MIN_RUNS;
	o->color = RECORD_COLOR_AUTO;
	int next, r = opts_parse(&verb, o, rec->argc, rec->argv, &next);
	if (r)
		return r > 0 ? -1 : EXIT_USAGE;
	if (next >= rec->argc) {
		error("no command to measure");
		fix("give each command after '--', in quotes: lauka -- 'sleep 0.1'");
		return EXIT_USAGE;
	}
	if (options_after_commands(rec, next) < 0)
		return EXIT_USAGE;
	o->cmds = rec->argv + next;
	o->ncmds = (size_t)(rec->argc - next);
	return 0;
}
