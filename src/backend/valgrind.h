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

#endif
