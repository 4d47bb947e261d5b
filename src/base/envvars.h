/*
 * base/envvars.h: the environment variables that change what a program
 * does (issue 28), which lauka passes on as the user set them and never
 * sets itself: the locale (LANG, LANGUAGE, LC_*), the time zone (TZ), and
 * the interpreters' hash seeds (PYTHONHASHSEED, PERL_HASH_SEED,
 * PERL_PERTURB_KEYS: set by the user, they make Python's and Perl's counts
 * repeat).  `sort` counts 82.4M Ir under LC_ALL=C and 189.5M under
 * LANG=C.UTF-8: a measurement in another locale than the user's measures
 * another program.  Pure but for getenv/environ.
 */
#ifndef LAUKA_ENVVARS_H
#define LAUKA_ENVVARS_H

#include <stdbool.h>
#include <stddef.h>

/* Whether an environ entry "NAME=value" (or a bare NAME) is one of those variables. */
bool lk_env_behaviour(const char *entry);

/*
 * Those that are set in this process's environment, as "NAME=value" entries
 * of environ, sorted; *count of them.  The array is malloc'd (NULL-ended),
 * the strings are environ's.
 */
const char **lk_env_entries(size_t *count);

/*
 * "env:LANG=C.UTF-8,TZ=UTC": those that are set in this process's
 * environment, sorted ("env:-" when none), for a baseline's fingerprint.
 * malloc'd.
 */
char *lk_env_fingerprint(void);

#endif
