/*
 * record/plan-commands.c: the commands and hooks of a request, checked before
 * anything runs: quoting (base/cmdline.c), shell mode (-S), whether each
 * program exists and may be executed (126/127 now, never after a half-printed
 * table), and the counts of --command-name, -n N,N,... and hook options.
 */
#include "base/cmdline.h"
#include "base/error.h"
#include "base/exec-path.h"
#include "base/util.h"
#include "record/plan.h"
#include "record/record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Words after `--` that look like options or bare numbers are almost always
 * an unquoted command line split by the shell: `lauka -- myapp --flag 1`.
 * An empty word is an empty command, reported as such later.
 */
static int check_split_mistake(const struct record_opts *o)
{
	for (size_t i = 1; i < o->ncmds; i++) {
		const char *c = o->cmds[i];
		if (*c && (c[0] == '-' || strspn(c, "0123456789.") == strlen(c))) {
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

/* Resolve argv[0] into prog->path; 0, or the exit code (127/126) after an error line. */
static int resolve(struct record_prog *p, const char *what)
{
	if (!p->argv[0][0]) {
		error("%s names an empty program ('%s')", what, p->text);
		return EXIT_USAGE;
	}
	int r = exec_resolve(p->argv[0], p->path, sizeof(p->path));
	if (r == -ENAMETOOLONG) {
		error("%s path is longer than the system's limit (%zu bytes): '%.60s...'", what, sizeof(p->path) - 1,
		      p->argv[0]);
		return 126;
	}
	if (r == -ENOENT) {
		error("%s not found: '%s'", what, p->argv[0]);
		const char *eq = strchr(p->argv[0], '=');
		if (eq && eq != p->argv[0] && !strchr(p->argv[0], '/'))
			tip("to set %.*s for the command, run it through env: lauka -- 'env %s'", (int)(eq - p->argv[0]),
			    p->argv[0], p->text);
		return 127;
	}
	if (r < 0) {
		error("%s is not executable: '%s'", what, p->argv[0]);
		return 126;
	}
	return 0;
}

/* `SHELL -c TEXT` (-S/--shell). */
void shell_prog(const struct record *rec, const char *text, struct record_prog *p)
{
	size_t n = 0;
	while (rec->shell_argv[n])
		n++;
	p->text = text;
	p->argv = xcalloc(n + 3, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		p->argv[i] = xstrdup(rec->shell_argv[i]);
	p->argv[n] = xstrdup("-c");
	p->argv[n + 1] = xstrdup(text);
	snprintf(p->path, sizeof(p->path), "%s", rec->shell_path);
}

/*
 * Turn one command or hook string into a program: quoted like a command
 * (base/cmdline.c) and run without a shell, or `SHELL -c TEXT` in shell mode.
 * `what` names it in errors ("command 2", "--prepare").
 */
static int make_prog(struct record *rec, const char *text, const char *what, bool is_cmd, struct record_prog *p)
{
	p->text = text;
	if (!*text || strspn(text, " \t\n") == strlen(text)) {
		error("%s is empty", what);
		return EXIT_USAGE;
	}
	if (rec->shell_argv) {
		shell_prog(rec, text, p);
		return 0;
	}
	char bad = 0;
	switch (cmdline_split(text, &p->argv, &bad)) {
	case CMDLINE_OK:
		break;
	case CMDLINE_EMPTY:
		error("%s is empty", what);
		return EXIT_USAGE;
	case CMDLINE_UNBALANCED:
		error("unbalanced quote or trailing backslash in %s '%s'", is_cmd ? "command" : what, text);
		fix("close every ' and \" inside it");
		return EXIT_USAGE;
	case CMDLINE_META:
		error("%s '%s' contains the shell metacharacter '%c'; lauka runs commands without a shell",
		      is_cmd ? "command" : what, text, bad);
		{
			/* one level of quoting, for the shell the fix is typed into (issue 31 D-18: quotes inside quotes) */
			struct strbuf q = STRBUF_INIT;
			strbuf_add(&q, "'", 1);
			for (const char *t = text; *t; t++)
				strbuf_add(&q, *t == '\'' ? "'\\''" : t, *t == '\'' ? 4 : 1);
			strbuf_add(&q, "'", 1);
			fix("run it through a shell: lauka -S sh -- %s (-S sh runs every command through sh)", strbuf_str(&q));
			strbuf_release(&q);
		}
		return EXIT_USAGE;
	}
	return resolve(p, is_cmd ? "command" : what);
}

static int plan_shell(struct record *rec)
{
	const char *sh = rec->o.shell;
	if (!sh)
		return 0;
	char bad = 0;
	if (cmdline_split(sh, &rec->shell_argv, &bad) != CMDLINE_OK) {
		error("invalid --shell '%s'", sh);
		fix("name a shell and its options, e.g. -S sh or -S 'bash --norc'");
		return EXIT_USAGE;
	}
	struct record_prog p = { .text = sh, .argv = rec->shell_argv };
	int r = resolve(&p, "shell");
	snprintf(rec->shell_path, sizeof(rec->shell_path), "%s", p.path);
	return r;
}

/* ---- hyperfine's parameter scans: -P NAME MIN MAX [-D STEP], -L NAME V1,V2,... ---- */

#define SCAN_MAX_COMMANDS 10000	/* more is a typo in a range, not a benchmark */

/*
 * A decimal number as an integer count of 10^-scale: "1.5" at scale 2 is 150.
 * -1 when s is not a plain decimal (digits, at most one '.', an optional '-')
 * or has more decimals than scale or too many digits; *own: its decimals.
 */
static int parse_dec(const char *s, int scale, long long *out, int *own)
{
	const char *p = s + (*s == '-');
	size_t ip = strspn(p, "0123456789");
	size_t fp = p[ip] == '.' ? strspn(p + ip + 1, "0123456789") : 0;
	if ((!ip && !fp) || (p[ip] == '.' ? p[ip + 1 + fp] : p[ip]) || ip + (size_t)scale > 15)
		return -1;
	*own = (int)fp;
	if ((int)fp > scale)
		return -1;
	long long v = 0;
	for (size_t i = 0; i < ip; i++)
		v = v * 10 + (p[i] - '0');
	for (int i = 0; i < scale; i++)
		v = v * 10 + (i < (int)fp ? p[ip + 1 + i] - '0' : 0);
	*out = *s == '-' ? -v : v;
	return 0;
}

static int dec_scale(const char *s)
{
	const char *dot = strchr(s, '.');
	return dot ? (int)strspn(dot + 1, "0123456789") : 0;
}

static char *format_dec(long long v, int scale)
{
	long long pow = 1;
	for (int i = 0; i < scale; i++)
		pow *= 10;
	unsigned long long a = v < 0 ? (unsigned long long)-v : (unsigned long long)v;
	if (!scale)
		return xasprintf("%s%llu", v < 0 ? "-" : "", a);
	return xasprintf("%s%llu.%0*llu", v < 0 ? "-" : "", a / (unsigned long long)pow, scale,
			 a % (unsigned long long)pow);
}

/*
 * The values of -P NAME MIN MAX with step: MIN as written, then MIN + k STEP
 * with as many decimals as the finer of MIN and STEP (hyperfine's: 1, 1.5,
 * 2.0 for -P n 1 2 -D 0.5), up to MAX.
 */
static int scan_range(const struct record_param *p, const char *step, char ***vals, size_t *n)
{
	/* shown: the decimals of MIN and STEP; computed: those of MAX too (it is only compared) */
	int shown = dec_scale(p->min), own;
	if (dec_scale(step) > shown)
		shown = dec_scale(step);
	int scale = dec_scale(p->max) > shown ? dec_scale(p->max) : shown;
	long long unit = 1, unit0 = 1;	/* 10^(scale - shown), 10^(scale - MIN's decimals) */
	for (int i = shown; i < scale; i++)
		unit *= 10;
	for (int i = dec_scale(p->min); i < scale; i++)
		unit0 *= 10;
	long long lo, hi, d;
	if (parse_dec(p->min, scale, &lo, &own) < 0 || parse_dec(p->max, scale, &hi, &own) < 0) {
		error("invalid range '%s' to '%s' for -P %s: not decimal numbers", p->min, p->max, p->name);
		fix("give numbers: -P %s 1 10, with -D 0.5 for steps other than 1", p->name);
		return -1;
	}
	if (parse_dec(step, scale, &d, &own) < 0 || d <= 0) {
		error("invalid -D '%s': the step must be a number above 0", step);
		fix("e.g. -D 2 or -D 0.5");
		return -1;
	}
	if (lo > hi) {
		error("empty parameter range for -P %s: %s is above %s", p->name, p->min, p->max);
		fix("give the smaller bound first: -P %s %s %s", p->name, p->max, p->min);
		return -1;
	}
	if ((hi - lo) / d >= SCAN_MAX_COMMANDS) {
		error("-P %s %s %s gives more than %d values", p->name, p->min, p->max, SCAN_MAX_COMMANDS);
		fix("use a larger step: -D");
		return -1;
	}
	*n = (size_t)((hi - lo) / d) + 1;
	*vals = xcalloc(*n, sizeof(**vals));
	for (size_t k = 0; k < *n; k++)
		(*vals)[k] = k ? format_dec((lo + (long long)k * d) / unit, shown) : format_dec(lo / unit0, dec_scale(p->min));
	return 0;
}

/* The values of -L NAME V1,V2,...: split at commas, in order. */
static void scan_list(const struct record_param *p, char ***vals, size_t *n)
{
	*n = 1;
	for (const char *c = p->list; *c; c++)
		*n += *c == ',';
	*vals = xcalloc(*n, sizeof(**vals));
	const char *w = p->list;
	for (size_t k = 0; k < *n; k++) {
		size_t len = strcspn(w, ",");
		struct strbuf sb = STRBUF_INIT;
		strbuf_add(&sb, w, len);
		(*vals)[k] = xstrdup(strbuf_str(&sb));
		strbuf_release(&sb);
		w += len + 1;
	}
}

/* text with every {NAME} replaced by combination c's value (a new string, kept in sc->strs). */
static char *scan_subst(struct record_scan *sc, size_t c, const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = text; *p;) {
		size_t k = 0, len = 0;
		if (*p == '{')
			for (k = 0; k < sc->nparams; k++) {
				len = strlen(sc->names[k]);
				if (!strncmp(p + 1, sc->names[k], len) && p[1 + len] == '}')
					break;
			}
		if (*p == '{' && k < sc->nparams) {
			strbuf_addf(&sb, "%s", sc->values[c * sc->nparams + k]);
			p += len + 2;
		} else
			strbuf_add(&sb, p++, 1);
	}
	sc->strs = xrealloc(sc->strs, (sc->nstrs + 1) * sizeof(*sc->strs));
	sc->strs[sc->nstrs] = xstrdup(strbuf_str(&sb));
	strbuf_release(&sb);
	return sc->strs[sc->nstrs++];
}

/* Every combination's values, the first parameter changing fastest (hyperfine's order). */
static int scan_values(struct record *rec)
{
	struct record_opts *o = &rec->o;
	struct record_scan *sc = &rec->scan;
	char ***vals = xcalloc(o->nparams, sizeof(*vals));
	size_t *nv = xcalloc(o->nparams, sizeof(*nv));
	int r = 0;
	sc->ncombos = 1;
	for (size_t i = 0; i < o->nparams && !r; i++) {
		const struct record_param *p = &o->params[i];
		if (p->list)
			scan_list(p, &vals[i], &nv[i]);
		else
			r = scan_range(p, o->param_step ? o->param_step : "1", &vals[i], &nv[i]);
		if (!r && (sc->ncombos *= nv[i]) * o->ncmds > SCAN_MAX_COMMANDS) {
			error("the parameters give more than %d commands", SCAN_MAX_COMMANDS);
			fix("give fewer values, or scan in several runs of lauka");
			r = -1;
		}
	}
	sc->nparams = o->nparams;
	sc->names = xcalloc(o->nparams, sizeof(*sc->names));
	if (!r) {
		sc->values = xcalloc(sc->ncombos * o->nparams, sizeof(*sc->values));
		for (size_t c = 0; c < sc->ncombos; c++)
			for (size_t i = 0, rest = c; i < o->nparams; rest /= nv[i], i++)
				sc->values[c * o->nparams + i] = xstrdup(vals[i][rest % nv[i]]);
	}
	for (size_t i = 0; i < o->nparams; i++) {
		sc->names[i] = o->params[i].name;
		for (size_t k = 0; k < nv[i]; k++)
			free(vals[i][k]);
		free(vals[i]);
	}
	free(vals);
	free(nv);
	return r;
}

/* A per-command list (names, hooks) given once per command as written: once per expanded command. */
static void scan_list_expand(struct record *rec, struct record_list *l, bool subst)
{
	struct record_scan *sc = &rec->scan;
	size_t n = sc->ncombos * sc->norig;
	const char **v = xcalloc(n, sizeof(*v));
	for (size_t c = 0; c < sc->ncombos; c++)
		for (size_t i = 0; i < sc->norig; i++) {
			const char *t = l->v[l->n == 1 ? 0 : i];
			v[c * sc->norig + i] = subst ? scan_subst(sc, c, t) : t;
		}
	free(l->v);
	l->v = v;
	l->n = n;
}

/*
 * -P/-L: every combination of the parameters' values becomes a command per
 * command given, in hyperfine's order (combination by combination, the
 * commands in their order within each), with {NAME} replaced in the command,
 * its --command-name and its hooks.
 */
static int plan_scan(struct record *rec)
{
	struct record_opts *o = &rec->o;
	struct record_scan *sc = &rec->scan;
	if (!o->nparams) {
		if (!o->param_step)
			return 0;
		error("-D (--parameter-step-size) is the step of -P, and there is no -P");
		fix("scan a range: -P NAME MIN MAX -D %s", o->param_step);
		return EXIT_USAGE;
	}
	if (o->names.n && o->names.n != o->ncmds) {
		error("with -P/-L, give --command-name once per command (%zu), or not at all", o->ncmds);
		fix("write {NAME} in a --command-name to tell the combinations apart");
		return EXIT_USAGE;
	}
	if (o->runs_each && o->nruns_each != o->ncmds)
		return 0;	/* plan_commands says so */
	if (scan_values(rec) < 0)
		return EXIT_USAGE;
	sc->norig = o->ncmds;
	size_t n = sc->ncombos * sc->norig;
	sc->cmds = xcalloc(n, sizeof(*sc->cmds));
	for (size_t c = 0; c < sc->ncombos; c++)
		for (size_t i = 0; i < sc->norig; i++)
			sc->cmds[c * sc->norig + i] = scan_subst(sc, c, o->cmds[i]);
	o->cmds = sc->cmds;
	o->ncmds = n;
	if (o->names.n)
		scan_list_expand(rec, &o->names, true);
	for (int k = 0; k < HOOK_COUNT; k++)
		if (o->hooks[k].n == 1 ? strchr(o->hooks[k].v[0], '{') != NULL : o->hooks[k].n == sc->norig)
			scan_list_expand(rec, &o->hooks[k], true);
	if (o->runs_each) {
		unsigned long *each = xcalloc(n, sizeof(*each));
		for (size_t j = 0; j < n; j++)
			each[j] = o->runs_each[j % sc->norig];
		free(o->runs_each);
		o->runs_each = each;
		o->nruns_each = n;
	}
	return 0;
}

void plan_scan_release(struct record *rec)
{
	struct record_scan *sc = &rec->scan;
	for (size_t i = 0; i < sc->nstrs; i++)
		free(sc->strs[i]);
	for (size_t i = 0; sc->values && i < sc->ncombos * sc->nparams; i++)
		free(sc->values[i]);
	free(sc->strs);
	free(sc->values);
	free(sc->names);
	free(sc->cmds);
	memset(sc, 0, sizeof(*sc));
}

int plan_commands(struct record *rec)
{
	const struct record_opts *o = &rec->o;
	if (check_split_mistake(o) < 0)
		return EXIT_USAGE;
	int r;
	if ((r = plan_scan(rec)))
		return r;
	if ((r = plan_shell(rec)))
		return r;
	if (o->names.n > o->ncmds) {
		error("%zu --command-name options for %zu command%s", o->names.n, o->ncmds, o->ncmds == 1 ? "" : "s");
		fix("give at most one --command-name per command, in the order of the commands");
		return EXIT_USAGE;
	}
	if (o->runs_each && o->nruns_each != o->ncmds) {
		error("-n gives %zu numbers of runs for %zu command%s", o->nruns_each, o->ncmds, o->ncmds == 1 ? "" : "s");
		fix("give one number for every command (-n 10), or one per command, in their order (-n 10,5)");
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < o->names.n; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(o->names.v[i], o->names.v[j])) {
				error("two commands are named '%s'", o->names.v[i]);
				if (rec->scan.nparams)
					fix("write {%s} in the --command-name so that each value gets its own name",
					    rec->scan.names[0]);
				return EXIT_USAGE;
			}
	rec->ncmds = o->ncmds;
	rec->cmds = xcalloc(o->ncmds, sizeof(*rec->cmds));
	for (size_t i = 0; i < o->ncmds; i++) {
		char what[32];
		snprintf(what, sizeof(what), "command %zu", i + 1);
		if ((r = make_prog(rec, o->cmds[i], what, true, &rec->cmds[i].prog)))
			return r;
		rec->cmds[i].name = i < o->names.n ? o->names.v[i] : NULL;
		if (rec->scan.values)
			rec->cmds[i].param_values =
				(const char *const *)rec->scan.values + i / rec->scan.norig * rec->scan.nparams;
	}
	for (int k = 0; k < HOOK_COUNT; k++) {
		const struct record_list *l = &o->hooks[k];
		if (!l->n)
			continue;
		if (l->n != 1 && l->n != o->ncmds) {
			error("%zu --%s options for %zu commands", l->n, record_hook_names[k], o->ncmds);
			fix("give --%s once for every command, or once per command in their order", record_hook_names[k]);
			return EXIT_USAGE;
		}
		rec->nhooks[k] = l->n;
		rec->hooks[k] = xcalloc(l->n, sizeof(struct record_prog));
		char what[32];
		snprintf(what, sizeof(what), "--%s", record_hook_names[k]);
		for (size_t i = 0; i < l->n; i++)
			if ((r = make_prog(rec, l->v[i], what, false, &rec->hooks[k][i])))
				return r;
		for (size_t i = 0; i < o->ncmds; i++)
			rec->cmds[i].hook[k] = &rec->hooks[k][l->n == 1 ? 0 : i];
		/*
		 * Every command starts from the spawner with the environment lauka
		 * had when it started (spawn/runner.h), so a hook gets its indices from
		 * env(1) in front of it.
		 */
		if (!rec->env_path[0] && exec_resolve("env", rec->env_path, sizeof(rec->env_path)) < 0) {
			error("hooks need env(1) to pass LAUKA_COMMAND_INDEX and LAUKA_RUN_INDEX, and it is not in PATH");
			return 127;
		}
	}
	return 0;
}
