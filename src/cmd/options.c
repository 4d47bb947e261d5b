/* cmd/options.c: the verbs' option parser, option values, numbers and --color. */
#include "cmd/options.h"
#include "base/error.h"
#include "cmd/builtin.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int opt_value(int argc, char **argv, int *i, const char *opt, const char **val)
{
	size_t n = strlen(opt);
	const char *a = argv[*i];
	if (!strncmp(a, opt, n) && a[n] == '=') {
		*val = a + n + 1;
		return opt_nonempty(opt, *val) < 0 ? -1 : 1;
	}
	if (strcmp(a, opt))
		return 0;
	if (*i + 1 >= argc || !strcmp(argv[*i + 1], "--")) {
		/* `-n -- cmd`: the "--" ends the options; it is not a value. */
		error("option '%s' needs a value", opt);
		return -1;
	}
	*val = argv[++*i];
	return opt_nonempty(opt, *val) < 0 ? -1 : 1;
}

int opt_nonempty(const char *opt, const char *val)
{
	if (val && *val)
		return 0;
	error("option '%s' needs a value, not an empty string", opt);
	return -1;
}

int opt_uint(const char *opt, const char *what, const char *v, unsigned long max, const char *example,
	     unsigned long *out)
{
	if (parse_uint(v, max, out) == 0)
		return 0;
	if (v && *v && strspn(v, "0123456789") == strlen(v)) {
		error("invalid %s '%s': the limit is %lu", what, v, max);
		fix("use %s with a whole number up to %lu, e.g. %s %s", opt, max, opt, example);
	} else {
		error("invalid %s '%s'", what, v ? v : "");
		fix("use %s with a whole number, e.g. %s %s", opt, opt, example);
	}
	return -1;
}

int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int opt_color(const char *v)
{
	if (!strcmp(v, "auto"))
		return OPT_COLOR_AUTO;
	if (!strcmp(v, "never"))
		return OPT_COLOR_NEVER;
	if (!strcmp(v, "ansi") || !strcmp(v, "always"))
		return OPT_COLOR_ANSI;
	error("invalid --color '%s'", v);
	fix("use --color auto, never or ansi");
	return -1;
}

/*
 * A suggestion is a long name within two edits of what was typed, and near
 * in proportion too (two edits turn "--x" into "--db": no suggestion).
 */
const char *opts_suggest(const struct opt_spec *tab, size_t n, const char *typed)
{
	size_t len = strcspn(typed, "=");
	char *word = xstrdup(typed);
	word[len] = '\0';
	const char *best = NULL;
	size_t bestd = 3;
	for (size_t i = 0; i < n; i++) {
		const char *names[2] = { tab[i].name, tab[i].alias };
		for (size_t k = 0; k < 2; k++) {
			if (!names[k] || strncmp(names[k], "--", 2))
				continue;
			size_t d = lk_edit_distance(word, names[k]);
			if (d < bestd && d * 3 <= (len > 2 ? len - 2 : 0)) {
				bestd = d;
				best = names[k];
			}
		}
	}
	free(word);
	return best;
}

/* 1 when argv[*i] is option o (its value in *val), 0 when not, -1 on a missing value. */
static int opt_match(const struct opt_spec *o, int argc, char **argv, int *i, const char **val)
{
	const char *a = argv[*i];
	const char *names[2] = { o->name, o->alias };
	for (size_t k = 0; k < 2 && names[k]; k++) {
		const char *n = names[k];
		if (!o->value) {
			if (!strcmp(a, n))
				return *val = NULL, 1;
			continue;
		}
		int r = opt_value(argc, argv, i, n, val);
		if (r)
			return r;
		/* -n9, -mcycles: a short option with its value attached */
		if (n[1] != '-' && !strncmp(a, n, 2) && a[2] && a[2] != '=')
			return *val = a + 2, 1;
	}
	return 0;
}

/*
 * An option of o->value > 1 values, each its own argument (`-P n 1 10`): 1
 * after handing each to o->set, 0 when argv[*i] is not o, -1 after an error.
 */
static int opt_multi(const struct opt_spec *o, void *ctx, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	const char *what = o->value == 3 ? " NAME MIN MAX" : " NAME VALUES";
	size_t eq = strcspn(a, "=");
	if (a[eq] == '=' && ((!strncmp(a, o->name, eq) && !o->name[eq]) ||
			     (o->alias && !strncmp(a, o->alias, eq) && !o->alias[eq]))) {
		error("option '%.*s' takes %d values, each its own argument, not '='", (int)eq, a, o->value);
		fix("write them after it, separated by spaces: %.*s%s", (int)eq, a, what);
		return -1;
	}
	if (strcmp(a, o->name) && (!o->alias || strcmp(a, o->alias)))
		return 0;
	for (int k = 1; k <= o->value; k++)
		if (*i + k >= argc || !strcmp(argv[*i + k], "--")) {
			error("option '%s' needs %d values", a, o->value);
			fix("write them after it: %s%s", a, what);
			return -1;
		}
	for (int k = 1; k <= o->value; k++)
		if (o->set(ctx, argv[*i + k]) < 0)
			return -1;
	*i += o->value;
	return 1;
}

/*
 * hyperfine's options that record spells otherwise or does without: what a
 * hyperfine user gets instead (doc/hyperfine.md), or NULL.
 */
static const char *hyperfine_hint(const char *verb, const char *typed)
{
	static const struct {
		const char *opt, *hint;
	} tab[] = {
		{ "--time-unit", "lauka picks each value's unit itself; --export-json has every sample in seconds or ns" },
		{ "-u", "lauka picks each value's unit itself; --export-json has every sample in seconds or ns" },
		{ "--export-asciidoc", "lauka exports --export-json, --export-csv and --export-markdown" },
		{ "--export-orgmode", "lauka exports --export-json, --export-csv and --export-markdown" },
		{ "--sort", "lauka lists the commands in the order given, each against the first" },
		{ "--output", "the commands' output is discarded; --show-output shows it" },
		{ "--input", "the commands read /dev/null" },
		{ "-s", "hyperfine's -s is --setup here" },
		{ "-M", "hyperfine's -M is --max-runs here (and -m is --measurements)" },
		{ "-p", "hyperfine's -p is --prepare here" },
		{ "-c", "hyperfine's -c is --cleanup here" },
	};
	if (strcmp(verb, "record"))
		return NULL;
	size_t len = strcspn(typed, "=");
	for (size_t i = 0; i < sizeof(tab) / sizeof(*tab); i++)
		if (strlen(tab[i].opt) == len && !strncmp(typed, tab[i].opt, len))
			return tab[i].hint;
	return NULL;
}

static int unknown_option(const struct opt_verb *v, const char *a)
{
	error("unknown option '%s'", a);
	const char *best = opts_suggest(v->opts, v->nopts, a);
	const char *hf = hyperfine_hint(v->verb, a);
	if (hf)
		tip("%s (doc/hyperfine.md)", hf);
	else if (best)
		tip("did you mean '%s'?", best);
	else
		help_hint(v->verb);
	return -1;
}

int opts_parse(const struct opt_verb *v, void *ctx, int argc, char **argv, int *next)
{
	int i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (v->dashdash && !strcmp(a, "--"))
			break;
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return help_show(v->verb), 1;
		int r = 0;
		const char *val = NULL;
		size_t k;
		for (k = 0; k < v->nopts && !r; k++)
			r = v->opts[k].value > 1 ? opt_multi(&v->opts[k], ctx, argc, argv, &i)	/* set there */
						 : opt_match(&v->opts[k], argc, argv, &i, &val);
		if (r < 0 || (r > 0 && v->opts[k - 1].value <= 1 && v->opts[k - 1].set(ctx, val) < 0))
			return -1;
		if (r > 0)
			continue;
		if (a[0] == '-' && a[1])
			return unknown_option(v, a);
		if (!v->positional) {
			error("unexpected argument '%s'", a);
			help_hint(v->verb);
			return -1;
		}
		if (v->positional(ctx, a) < 0)
			return -1;
	}
	*next = i < argc ? i + 1 : argc;
	return 0;
}
