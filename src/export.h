/*
 * export.h: machine-readable results of `lauka record --json FILE`: per
 * command, per measurement, the summary statistics, the delta against the
 * first command and every sample, so CI can gate on them without parsing
 * the table.  Writes JSON to the FILE it is given; no other I/O.
 */
#ifndef LAUKA_EXPORT_H
#define LAUKA_EXPORT_H

#include <stdio.h>

#include "report.h"

struct export_command {
	const char *command;		/* as the user wrote it */
	int exit_code;			/* 0, or the failing run's code */
	size_t runs;			/* completed measured runs */
	const struct report_row *rows;	/* one per measurement */
	const double *const *samples;	/* samples[row][run] */
	size_t nrows;
	const char *detail_key;		/* with detail: the backend's per-run details (a JSON value) */
	const char *detail;
};

void export_json(FILE *f, const char *backend, const struct export_command *cmds, size_t n);

#endif
