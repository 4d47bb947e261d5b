/*
 * fuzz_xctrace.c: libFuzzer target for the xctrace TOC and table-export
 * parser (backend/xctrace/parse.c) and the row aggregation behind it
 * (backend/xctrace/agg.c).  One input is one file as `xctrace export` would
 * write it (a TOC or a table); it is read both ways.
 *
 * Properties, each an abort when broken:
 *  - a refusal is one line;
 *  - an accepted TOC names at most 64 events per table and an exit status of
 *    0 to 255;
 *  - an accepted export's rows resolve (the parser refuses dangling refs, so
 *    the callback sees only complete rows);
 *  - manual aggregation: the totals equal the sums of the target's rows,
 *    counted here independently; guided: never above them;
 *  - rows of the target plus rows of other processes = rows seen.
 * Built like fuzz_kpep.c (mk/fuzz.mk); replayed in `make check`.
 */
#include "backend/xctrace/agg.h"
#include "backend/xctrace/parse.h"
#include "base/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                     \
	do {                                                                                            \
		if (!(cond)) {                                                                          \
			fprintf(stderr, "fuzz_xctrace: %s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                        \
		}                                                                                       \
	} while (0)

/* What the rows hold, counted without agg.c. */
struct tally {
	struct xct_sum *sum;		/* NULL on the first pass */
	bool have_first;
	int64_t pid;			/* of the first row */
	size_t nvalues;
	size_t rows, target_rows, target_blank;	/* target_blank: the target's rows without counter values */
	uint64_t sums[XCT_MAX_VALUES];
	bool overflow;
};

static int on_row(void *ctx, const struct xct_row *row, char *err, size_t errlen)
{
	struct tally *t = ctx;
	CHECK(!row->has_values || row->values || row->nvalues == 0);
	if (!t->have_first) {
		t->have_first = true;
		t->pid = row->pid;
		t->nvalues = row->nvalues;
	}
	t->rows++;
	if (!t->sum)
		return 0;
	int r = xct_sum_row(t->sum, row, err, errlen);
	if (r < 0)
		return r;
	if (row->pid == t->pid && !row->has_values) {
		t->target_blank++;	/* a blocked thread's row: skipped, counted apart (N3) */
	} else if (row->pid == t->pid) {
		t->target_rows++;
		for (size_t i = 0; i < row->nvalues && i < XCT_MAX_VALUES; i++)
			if (__builtin_add_overflow(t->sums[i], row->values[i], &t->sums[i]))
				t->overflow = true;
	}
	return 0;
}

static void check_toc(const uint8_t *data, size_t size)
{
	struct xct_toc toc;
	char err[512] = "";
	if (xct_toc_parse((const char *)data, size, &toc, err, sizeof(err)) < 0) {
		CHECK(err[0] && !strchr(err, '\n'));
		return;
	}
	if (toc.has_exit)
		CHECK(toc.exit_status >= 0 && toc.exit_status <= 255);
	for (size_t i = 0; i < toc.ntables; i++) {
		CHECK(toc.tables[i].schema);
		CHECK(toc.tables[i].nevents <= XCT_MAX_VALUES);
		for (size_t k = 0; k < toc.tables[i].nevents; k++)
			CHECK(toc.tables[i].events[k]);
	}
	xct_toc_release(&toc);
}

static void check_export(const uint8_t *data, size_t size, bool guided)
{
	char err[512] = "";
	struct tally first = { 0 };
	if (xct_export_parse((const char *)data, size, NULL, on_row, &first, err, sizeof(err)) < 0) {
		CHECK(err[0] && !strchr(err, '\n'));
		return;
	}
	if (!first.have_first || first.nvalues > XCT_MAX_VALUES)
		return;
	struct xct_sum s;
	xct_sum_init(&s, first.pid, guided ? 0 : first.nvalues, guided, 1000000);
	struct tally t = { .sum = &s, .have_first = true, .pid = first.pid };
	int r = xct_export_parse((const char *)data, size, NULL, on_row, &t, err, sizeof(err));
	if (r < 0) {
		CHECK(err[0] && !strchr(err, '\n'));
	} else {
		CHECK(t.rows == first.rows);	/* the same file reads the same way twice */
		CHECK(s.rows + s.rows_other + s.rows_blank == t.rows);
		CHECK(s.rows == t.target_rows && s.rows_blank == t.target_blank);
		for (size_t i = 0; !t.overflow && i < s.nvalues && i < XCT_MAX_VALUES; i++) {
			if (guided)
				CHECK(s.totals[i] <= t.sums[i]);
			else
				CHECK(s.totals[i] == t.sums[i]);
		}
		size_t thread_rows = 0;
		for (size_t i = 0; i < s.nthreads; i++)
			thread_rows += s.threads[i].rows;
		CHECK(thread_rows == s.rows);
	}
	xct_sum_release(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	check_toc(data, size);
	check_export(data, size, false);
	check_export(data, size, true);
	return 0;
}
