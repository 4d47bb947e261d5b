/*
 * backend/valgrind.h: the pure parts of the valgrind backend, exposed for
 * tests: the event list (catalog/valgrind-events.tsv, embedded), the parser
 * of callgrind (and cachegrind) output files, and the check that a file's
 * process is still the command that was started.  The backend itself is the
 * ops struct backend_valgrind in backend/valgrind.c.
 */
#ifndef LAUKA_BACKEND_VALGRIND_H
#define LAUKA_BACKEND_VALGRIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/pmu.h"

/* Fill pmu from the embedded event list: kind and name "valgrind". */
int valgrind_catalog(struct lk_pmu *pmu, char *err, size_t len);

/*
 * Add the totals of one output file (the text of it, len bytes) into
 * sums[i] for each names[i]: the sum of the `summary:` lines of every part
 * (callgrind writes one part per dump; cachegrind one), each zipped by name
 * with the `events:` line before it; `totals:` lines only when a file has no
 * summary.  In callgrind files (a `creator: callgrind` line) a short line
 * means trailing zeros, as callgrind omits them.  Events the file lacks add
 * nothing and are marked in *missing (bit i; may be NULL).  Returns 0, or
 * -LK_EINVAL with a reason when the file is not such output (then sums are
 * untouched).
 */
int valgrind_parse_out(const char *buf, size_t len, const char *const *names, size_t n,
		       uint64_t *sums, uint64_t *missing, char *err, size_t errlen);

/* The file's `cmd:` line (program and arguments joined by spaces), malloc'd; NULL if none. */
char *valgrind_out_cmd(const char *buf, size_t len);

/*
 * argv joined by single spaces, as valgrind writes it on the `cmd:` line,
 * malloc'd; NULL when an argument holds a newline (no line can match it).
 */
char *valgrind_join_argv(char *const argv[]);

/*
 * The variable that pads the strings of the program's first stack
 * (arguments, environment, the program's path) to a multiple of
 * VALGRIND_PAD_ALIGN bytes, so their length does not move the stack's
 * alignment and with it the counts.
 */
#define VALGRIND_PAD_VAR "LAUKA_PAD="
#define VALGRIND_PAD_ALIGN 4096

/* How many padding bytes VALGRIND_PAD_VAR needs after env (NULL-ended), argv and exe, the program's path. */
size_t valgrind_pad_len(char *const env[], char *const argv[], const char *exe);

/* Does this callgrind event need the cache simulator, or the branch simulator? */
bool valgrind_needs_cache_sim(const char *event);
bool valgrind_needs_branch_sim(const char *event);

/*
 * What lauka cannot pin and counts depend on, as one line for a baseline:
 * valgrind's version, the SHA-256 of the loader cache (/etc/ld.so.cache)
 * and the C library the loader maps (its resolved path).  malloc'd.
 */
char *valgrind_fingerprint(void);

#endif
