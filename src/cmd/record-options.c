/*
 * cmd/record-options.c: record's command line, one row per option.  A setter
 * gets the value (NULL for a flag) and prints its own error; adding an
 * option is a row here and a field in struct record_opts.
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

static int one_runs(const char *v, unsigned long *out)
{
	if (opt_uint("-n", "number of runs", v, RECORD_MAX_RUNS, "10", out) < 0)
		return -1;
	if (*out < RECORD_MIN_RUNS) {
		error("minimum runs is %d (got %lu)", RECORD_MIN_RUNS, *out);
		fix("use -n %d or higher", RECORD_MIN_RUNS);
		return -1;
	}
	return 0;
}

/* -n N for every command, or -n N1,N2,... one per command, in order (record/plan.c checks the count). */
static int set_runs(struct record_opts *o, const char *v)
{
	free(o->runs_each);
	o->runs_each = NULL;
	o->nruns_each = 0;
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

static int set_warmup(struct record_opts *o, const char *v)
{
	return opt_uint("--warmup", "number of warm-up runs", v, RECORD_MAX_RUNS, "2", &o->warmup);
}

static int set_color(struct record_opts *o, const char *v)
{
	if (!strcmp(v, "auto"))
		o->color = RECORD_COLOR_AUTO;
	else if (!strcmp(v, "never"))
		o->color = RECORD_COLOR_NEVER;
	else if (!strcmp(v, "ansi"))
		o->color = RECORD_COLOR_ANSI;
	else {
		error("invalid --color '%s'", v);
		fix("use --color auto, never or ansi");
		return -1;
	}
	return 0;
}

static int set_seed(struct record_opts *o, const char *v)
{
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
	static int fn(struct record_opts *o, const char *v) { if (v && opt_nonempty(opt, v) < 0) return -1; stmt; return 0; }
/* Measurement names never hold control characters: a newline would also split the error quoting it. */
static int set_measurements(struct record_opts *o, const char *v)
{
	if (v && opt_nonempty("--measurements", v) < 0)
		return -1;
	for (const char *c = v; c && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			error("--measurements holds a control character (byte 0x%02x); names are separated by commas",
			      (unsigned char)*c);
			fix("write the list on one line, e.g. -m cycles,instructions");
			return -1;
		}
	o->measurements = v;
	return 0;
}
SETTER(set_backend, "--backend", o->backend = v)
SETTER(set_db, "--db", o->db = v)
SETTER(set_show_output, "--show-output", o->show_output = true)
SETTER(set_json, "--export-json", o->exports[EXPORT_JSON] = v)
SETTER(set_csv, "--export-csv", o->exports[EXPORT_CSV] = v)
SETTER(set_markdown, "--export-markdown", o->exports[EXPORT_MARKDOWN] = v)
SETTER(set_plot, "--plot", o->plot = v)
SETTER(set_guided, "--guided", o->guided = true)
SETTER(set_shell, "--shell", o->shell = v)
SETTER(set_interleave, "--interleave", o->interleave = true)
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
#undef SETTER

static const struct record_option {
	const char *name;	/* --long */
	const char *alias;	/* a short form or another long name, or NULL */
	bool value;		/* takes a value */
	int (*set)(struct record_opts *o, const char *v);
} options[] = {
	{ "--runs", "-n", true, set_runs },
	{ "--warmup", NULL, true, set_warmup },
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
	{ "--shell", "-S", true, set_shell },
	{ "--interleave", NULL, false, set_interleave },
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
};

/* 1 when argv[*i] is this option (value in *v), 0 when not, -1 on a missing value. */
static int match(const struct record_option *opt, int argc, char **argv, int *i, const char **v)
{
	const char *a = argv[*i];
	const char *names[2] = { opt->name, opt->alias };
	for (size_t k = 0; k < 2 && names[k]; k++) {
		const char *n = names[k];
		if (!opt->value) {
			if (!strcmp(a, n))
				return *v = NULL, 1;
			continue;
		}
		int r = opt_value(argc, argv, i, n, v);
		if (r)
			return r;
		/* -n9, -mcycles: a short option with its value attached */
		if (n[1] != '-' && !strncmp(a, n, 2) && a[2] && a[2] != '=')
			return *v = a + 2, 1;
	}
	return 0;
}

int record_parse_options(struct record *rec)
{
	struct record_opts *o = &rec->o;
	int argc = rec->argc;
	char **argv = rec->argv;
	o->runs = RECORD_MIN_RUNS;
	o->color = RECORD_COLOR_AUTO;
	int i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			break;
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return help_show("record"), -1;
		int r = 0;
		const char *v = NULL;
		size_t k;
		for (k = 0; k < ARRAY_SIZE(options) && !r; k++)
			r = match(&options[k], argc, argv, &i, &v);
		if (r < 0 || (r > 0 && options[k - 1].set(o, v) < 0))
			return EXIT_USAGE;
		if (r > 0)
			continue;
		if (a[0] == '-') {
			error("unknown option '%s'", a);
			return EXIT_USAGE;
		}
		error("missing '--' before the command '%s'", a);
		fix("put the commands after '--', each in quotes: lauka -- '%s'", a);
		return EXIT_USAGE;
	}
	if (i >= argc || i + 1 >= argc) {
		error("no command to measure");
		fix("give each command after '--', in quotes: lauka -- 'sleep 0.1'");
		return EXIT_USAGE;
	}
	o->cmds = argv + i + 1;
	o->ncmds = (size_t)(argc - i - 1);
	return 0;
}
