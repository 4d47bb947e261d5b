/*
 * cmd/record.c: `lauka [record] [options] -- 'cmd1' ['cmd2' ...]`: the
 * pipeline plan -> measure -> report over one struct record (record/record.h).
 *
 * By default every warm-up and run of command 1 runs, then command 2, and so
 * on; each command's block is printed as soon as it is done, so a long
 * comparison shows results early.  All validation happens in the plan, before
 * the first run: a bad request never leaves a half-printed table.
 *
 *   $ lauka -n 5 -- 'sleep 0.01' 'sleep 0.02'
 *   Benchmark 1 (5 runs): sleep 0.01
 *
 *   measurement      mean ± σ           min … max            outliers
 *   wall_time        10.9ms ± 0.12ms    10.8ms … 11.1ms      0 (0%)
 *   ...
 */
#include "cmd/builtin.h"
#include "base/cmdline.h"
#include "base/error.h"
#include "stats/gate.h"
#include "record/record.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int cmd_record(int argc, char **argv)
{
	struct record rec = { .argc = argc, .argv = argv, .out = stdout };
	int rc = record_parse_options(&rec);
	if (rc) {	/* --help, or a usage error the parser explained (with a tip where one helps) */
		record_release(&rec);
		return rc == -1 ? 0 : rc;
	}
	rc = record_plan(&rec);
	if (rc == -1)
		rc = 0;	/* --help */
	else if (rc == EXIT_USAGE && !rec.cols)
		help_hint("record");
	else if (rc == 0) {
		FILE *devnull = NULL;
		if (rec.o.no_results && (devnull = fopen("/dev/null", "w")))
			rec.out = devnull;	/* --style none: errors and exports only */
		rec.ro.color = rec.o.color == RECORD_COLOR_ANSI ||
			       (rec.o.color == RECORD_COLOR_AUTO && term_color_auto(fileno(rec.out)));
		rec.ro.name_width = rec.name_width;
		rec.ro.width = term_columns(STDOUT_FILENO);
		record_measure(&rec);
		rc = record_report(&rec);
		if (devnull)
			fclose(devnull);
	}
	record_release(&rec);
	return rc;
}
