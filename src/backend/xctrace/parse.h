/*
 * backend/xctrace/parse.h: reading what `xctrace export` writes: the table of
 * contents (--toc) and one table (--xpath .../table[@schema=...]).  Pure: the
 * bytes or a file in, C structures and row callbacks out; libxml2's streaming
 * reader (xmlTextReader) does the XML, so a large export is never held as a
 * tree (reference/xctrace.md 2).
 *
 * What an export looks like: <trace-query-result><node><schema> with one
 * <col> (mnemonic, name, engineering-type) per column, then <row>s whose
 * cells are positional against the columns.  A value is written once as
 * <tag id="N">...</tag> and later as an empty <tag ref="N"/>; ids are
 * global to the document and definitions nest (a <thread> defines the
 * <process> that a later <process ref> points into).  <sentinel/> is an
 * empty cell that keeps its column position.  The stack column holds a
 * <backtrace>, a <sentinel/> or (Xcode 26.4) a <tagged-backtrace> wrapping a
 * backtrace.  The `fmt` attributes are display text in the recording Mac's
 * locale ("120.029" for 120029) and are never read.
 */
#ifndef LAUKA_XCTRACE_PARSE_H
#define LAUKA_XCTRACE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One <table> of the TOC's <data>. */
struct xct_table {
	char *schema;
	bool has_events;	/* the pmc-events attribute is present (it may be empty) */
	char **events;		/* its double-quoted names, unquoted, in order */
	size_t nevents;
	char *trigger;		/* "time", "pmi" or NULL */
	char *pmi_event;	/* unquoted, or NULL */
	uint64_t pmi_threshold;
	uint64_t sample_rate_us;	/* sample-rate-micro-seconds, 0 when absent */
	char *counting_mode;	/* counting-mode (guided tables), or NULL */
};

struct xct_toc {
	long pid;		/* the launched target's pid, -1 when absent */
	bool has_exit;		/* return-exit-status was present */
	int exit_status;
	char *termination;	/* termination-reason, e.g. "exit(0)", or NULL */
	char *process_name;
	char *instruments_version;
	char *template_name;
	char *end_reason;
	double duration_s;	/* <duration>, 0 when absent */
	struct xct_table *tables;	/* of run 1 */
	size_t ntables;
};

int xct_toc_parse(const char *buf, size_t len, struct xct_toc *out, char *err, size_t errlen);
int xct_toc_parse_file(const char *path, struct xct_toc *out, char *err, size_t errlen);
void xct_toc_release(struct xct_toc *toc);
/* The nth (0-based) table with this schema, or NULL. */
const struct xct_table *xct_toc_table(const struct xct_toc *toc, const char *schema, size_t nth);

/* The weight cell of a row: what it counts. */
enum xct_weight {
	XCT_WEIGHT_NONE,	/* no weight column, or a sentinel */
	XCT_WEIGHT_TIME,	/* <weight>: nanoseconds (time trigger) */
	XCT_WEIGHT_PMI,		/* <pmc-event>: the PMI threshold (events of the trigger) */
	XCT_WEIGHT_CYCLES,	/* <cycle-weight> */
	XCT_WEIGHT_OTHER,
};

struct xct_row {
	size_t index;		/* 0-based row number */
	bool has_time;
	uint64_t time_ns;
	int64_t tid, pid;	/* -1 when unknown (no thread/process cell, or a sentinel) */
	int64_t core;		/* -1 when unknown */
	enum xct_weight weight_kind;
	uint64_t weight;
	bool sentinel_stack;	/* the stack cell is a <sentinel/> */
	bool has_values;
	const uint64_t *values;	/* the pmc-events integers */
	size_t nvalues;
};

/* Called once per row; a negative return stops the parse with that code (err filled). */
typedef int (*xct_row_fn)(void *ctx, const struct xct_row *row, char *err, size_t errlen);

/*
 * Parse a table export, calling fn for every row.  schema, when not NULL,
 * must be the export's <schema name>.  Returns 0, or -LK_EINVAL with the
 * reason in err (malformed XML, a ref to an undefined id, a cell whose tag
 * does not belong to its column, a row with the wrong number of cells, a
 * non-integer value), or fn's code.
 */
int xct_export_parse(const char *buf, size_t len, const char *schema, xct_row_fn fn, void *ctx,
		     char *err, size_t errlen);
int xct_export_parse_file(const char *path, const char *schema, xct_row_fn fn, void *ctx,
			  char *err, size_t errlen);

/* Split a pmc-events attribute ("\"A\" \"B\"") into names; returns how many. */
size_t xct_split_names(const char *attr, char ***out);
void xct_free_names(char **names, size_t n);

#endif
