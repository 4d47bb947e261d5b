/*
 * backend/callgrind.h: where the work goes in a callgrind output file: the
 * self cost of one event (Ir) by function.  Pure (text in, table out); the
 * valgrind backend feeds it the files of a run line by line, tests feed it
 * real files and compare with callgrind_annotate.
 *
 * The format (valgrind's docs/callgrind-format): after a header
 * (version:, creator:, pid:, cmd:, part:, desc:, positions:, events:),
 * `ob=`, `fl=`, `fi=`, `fe=` and `fn=` lines set the current object, file
 * and function, and each cost line (positions, then costs in the order of
 * the events: line, trailing zeros omitted) adds to them.  Names may be
 * compressed: `fn=(12) name` defines id 12, a later `fn=(12)` means the
 * same name; the ids live in three spaces (objects: ob/cob; files: fl, fi,
 * fe, cfi, cfl, jfi; functions: fn, cfn, jfn), shared by every part of a
 * file (a later part uses ids an earlier one defined).  A `calls=` line
 * makes the next cost line the inclusive cost of a call, which is not the
 * caller's self cost.  Positions may be relative (+N, -N) or repeated (*).
 *
 * Parts: with --combine-dumps=yes a file holds one part per dump (every
 * fork under lauka's --dump-before), each with its own header; a process's
 * self cost is the sum over its parts, and a run's over its processes'
 * files.  A part filter reads one part alone (1-based) for comparisons.
 *
 * Keys: callgrind_annotate keys a cost by file:function, where inlined code
 * (fi=/fe=) counts under the file it came from; lauka shows function and
 * object (the ob= in force at the fn= line, as callgrind_annotate does),
 * summing the files.  cg_table keeps (object, file, function) and
 * cg_table_group() merges to either view.
 */
#ifndef LAUKA_BACKEND_CALLGRIND_H
#define LAUKA_BACKEND_CALLGRIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One function's self cost; names are owned by the table. */
struct cg_func {
	char *function, *object, *file;	/* object or file "" when not known */
	uint64_t cost;
};

struct cg_table {
	struct cg_func *f;
	size_t n, cap;
	size_t *slot;			/* open-addressing index into f, nslot entries (+1; 0 = empty) */
	size_t nslot;
};

void cg_table_release(struct cg_table *t);
/* Add cost to (object, file, function) (file may be NULL when the view has none). */
void cg_table_add(struct cg_table *t, const char *object, const char *file, const char *function, uint64_t cost);
/* Sum over files (by_file false: key function+object) or over objects (true: key file+function, as callgrind_annotate). */
void cg_table_group(const struct cg_table *in, bool by_file, struct cg_table *out);
/* Sort by cost, highest first, then by function, object and file (a stable order for equal costs). */
void cg_table_sort(struct cg_table *t);
/* The entry of (function, object), or NULL. */
const struct cg_func *cg_table_find(const struct cg_table *t, const char *function, const char *object);
uint64_t cg_table_total(const struct cg_table *t);

struct cg_parser;

/* A parser adding the self cost of `event` to out; part 0 = every part, else only that one (1-based). */
struct cg_parser *cg_parser_new(const char *event, long part, struct cg_table *out);
/* One line (without or with its '\n'); 0, or -LK_EINVAL with "line N: ..." in err. */
int cg_parser_line(struct cg_parser *p, const char *line, size_t len, char *err, size_t errlen);
/* Check the end of the file (a cost line announced by calls= that never came); frees p. */
int cg_parser_finish(struct cg_parser *p, char *err, size_t errlen);
/* The whole text of one file. */
int cg_parse(const char *buf, size_t len, const char *event, long part, struct cg_table *out, char *err,
	     size_t errlen);

#endif
