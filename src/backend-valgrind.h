/*
 * backend-valgrind.h: the pure parts of the valgrind backend, exposed for
 * tests: the event list (catalog/valgrind-events.tsv, embedded) and the
 * parser of cachegrind output files.  The backend itself is the ops struct
 * backend_valgrind in backend-valgrind.c.
 */
#ifndef LAUKA_BACKEND_VALGRIND_H
#define LAUKA_BACKEND_VALGRIND_H

#include <stddef.h>
#include <stdint.h>

#include "pmu.h"

/* Fill pmu from the embedded event list: kind and name "valgrind". */
int valgrind_catalog(struct lk_pmu *pmu, char *err, size_t len);

/*
 * Add the totals of one cachegrind output file (the text of it, len bytes)
 * into sums[i] for each names[i]: the numbers of the final `summary:` line
 * (callgrind's `totals:` when present), matched by name against the
 * `events:` line.  Events the file lacks add nothing and are marked in
 * *missing (bit i; may be NULL).  Returns 0, or -LK_EINVAL with a reason
 * when the file is not cachegrind output.
 */
int valgrind_parse_out(const char *buf, size_t len, const char *const *names, size_t n,
		       uint64_t *sums, uint64_t *missing, char *err, size_t errlen);

#endif
