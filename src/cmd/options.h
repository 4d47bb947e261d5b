/*
 * cmd/options.h: command-line plumbing the verbs share: the one option parser
 * (each verb declares a table of its options), option values (`--opt VALUE`
 * and `--opt=VALUE`), whole numbers and --color.  Choosing a backend by name
 * is machine/backend-choice.h.  These print (they are for the verbs in cmd/
 * only).
 */
#ifndef LAUKA_OPTIONS_H
#define LAUKA_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * One option of a verb.  A verb's options are a table of these, so an option
 * is added as one row (and its line in help.c and doc/lauka.1).
 */
struct opt_spec {
	const char *name;	/* "--long" */
	const char *alias;	/* a short form ("-n") or another long name ("--json"), or NULL */
	/*
	 * 0: a flag.  1 (true): takes a value: `--opt V`, `--opt=V`, and `-nV`
	 * for a short alias.  N > 1: N values, each its own argument (hyperfine's
	 * `-P NAME MIN MAX`), handed to set() one at a time, in order.
	 */
	int value;
	/* Stores the value (NULL for a flag) in ctx; prints its own error and returns < 0 when it is wrong. */
	int (*set)(void *ctx, const char *v);
};

struct opt_verb {
	const char *verb;		/* its --help, and the tip after an error */
	const struct opt_spec *opts;
	size_t nopts;
	/* An argument that is not an option: 0 to take it, < 0 after printing why not.  NULL: none are
	   taken ("unexpected argument"). */
	int (*positional)(void *ctx, const char *arg);
	bool dashdash;			/* "--" ends the options (record: the commands follow) */
};

/*
 * Parse argv[1..argc-1] against v's table.  0 when every argument was taken
 * (*next: the index after the "--" that ended the options, or argc); 1 after
 * printing the verb's help for -h or --help; -1 after a one-line error and a
 * tip: "did you mean '--details'?" for a mistyped option, else the verb's help.
 */
int opts_parse(const struct opt_verb *v, void *ctx, int argc, char **argv, int *next);

/* The option of tab nearest to `typed` (its part before any '='), when close enough to suggest, or NULL. */
const char *opts_suggest(const struct opt_spec *tab, size_t n, const char *typed);

/* --color WHEN: 0 auto, 1 never, 2 ansi ("always" is ansi, as in other tools); -1 after the error. */
enum { OPT_COLOR_AUTO, OPT_COLOR_NEVER, OPT_COLOR_ANSI };
int opt_color(const char *v);

/*
 * If argv[*i] is `opt` (value in the next argument, *i advances) or
 * `opt=VALUE`, store the value and return 1; return 0 when it is another
 * argument, -1 (after printing an error) when the value is missing, empty
 * or the "--" that ends the options.
 */
int opt_value(int argc, char **argv, int *i, const char *opt, const char **val);

/* A whole decimal number <= max, no sign; 0 or -1. */
int parse_uint(const char *s, unsigned long max, unsigned long *out);

/*
 * parse_uint() for option opt, printing the error when v is not one:
 * "error: invalid <what> '1000001': the limit is 1000000" or "error:
 * invalid <what> 'abc'", and a fix line using example ("10").
 */
int opt_uint(const char *opt, const char *what, const char *v, unsigned long max, const char *example,
	     unsigned long *out);

/* 0 when val is a non-empty string, else -1 after "error: option 'opt' needs a value, not an empty string". */
int opt_nonempty(const char *opt, const char *val);

#endif
