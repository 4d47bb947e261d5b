/*
 * options.h: command-line plumbing the verbs share: option values
 * (`--opt VALUE` and `--opt=VALUE`), whole numbers, and choosing a backend
 * by name with the one-line errors every verb gives for it.  These print
 * (they are for cmd-*.c only).
 */
#ifndef LAUKA_OPTIONS_H
#define LAUKA_OPTIONS_H

#include "backend.h"

/*
 * If argv[*i] is `opt` (value in the next argument, *i advances) or
 * `opt=VALUE`, store the value and return 1; return 0 when it is another
 * argument, -1 (after printing an error) when the value is missing.
 */
int opt_value(int argc, char **argv, int *i, const char *opt, const char **val);

/* A whole decimal number <= max, no sign; 0 or -1. */
int parse_uint(const char *s, unsigned long max, unsigned long *out);

/* The backend called `name`, or NULL after "error: unknown backend" and a tip listing them. */
const struct lk_backend *options_backend(const char *name);

/*
 * Can backend b run here?  0, or -EXIT_COUNTERS after one error line (with
 * a `fix: sudo ...` line built from argc/argv when it only lacks root).
 */
int options_backend_usable(const struct lk_backend *b, int argc, char **argv);

/* "fix: run it as root: sudo <this command line>". */
void options_need_root(int argc, char **argv);

#endif
