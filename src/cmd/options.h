/*
 * cmd/options.h: command-line plumbing the verbs share: option values
 * (`--opt VALUE` and `--opt=VALUE`) and whole numbers.  These print (they
 * are for the verbs only).
 */
#ifndef LAUKA_OPTIONS_H
#define LAUKA_OPTIONS_H

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
