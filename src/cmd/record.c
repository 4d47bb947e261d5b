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
	struct record rec = { .argc = argc, .argv = argv };
	int rc = record_plan(&rec);
	if (rc == -1)
		rc = 0;	/* --help */
	else if (rc == EXIT_USAGE && !rec.cols)
		help_hint("record");
	else if (rc == 0) {
		rec.ro.color = rec.o.color == RECORD_COLOR_ANSI ||
			       (rec.o.color == RECORD_COLOR_AUTO && term_color_auto(STDOUT_FILENO));
		rec.ro.name_width = rec.name_width;
		record_measure(&rec);
		rc = record_report(&rec);
	}
	record_release(&rec);
	return rc;
}

void record_release(struct record *rec)
{
	for (size_t b = 0; b < rec->nbi; b++)
		backend_inst_close(&rec->bi[b]);
	if (rec->runner_ok)
		runner_release(&rec->run);
	for (int k = 0; k < EXPORT_COUNT; k++) {
		struct record_export *x = &rec->exports[k];
		if (x->f)
			fclose(x->f);
		if (x->tmp)
			unlink(x->tmp);	/* nothing was measured: the old file stays */
		free(x->tmp);
	}
	for (size_t b = 0; b < 2; b++) {
		free(rec->counts[b]);
		free(rec->sel[b]);
	}
	for (size_t i = 0; i < rec->ncmds; i++)
		record_cmd_free(rec, &rec->cmds[i]);
	free(rec->cmds);
	if (rec->have_shell_cost)
		record_cmd_free(rec, &rec->shell_cost);
	for (int k = 0; k < HOOK_COUNT; k++) {
		for (size_t i = 0; i < rec->nhooks[k]; i++)
			cmdline_free(rec->hooks[k][i].argv);
		free(rec->hooks[k]);
		free(rec->o.hooks[k].v);
	}
	free(rec->o.names.v);
	free(rec->o.runs_each);
	free(rec->o.gates.v);
	for (size_t g = 0; g < rec->ngates; g++)
		free(rec->gates[g].name);
	free(rec->gates);
	for (size_t c = 0; c < rec->ncols; c++)
		free(rec->cols[c].label);
	free(rec->cols);
	free(rec->slots);
	cmdline_free(rec->shell_argv);
	free(rec->runner_class);
	db_baseline_release(&rec->base);
	if (rec->own_db)
		db_close(rec->db);
	catalog_close(rec->rcat);
	catalog_close(rec->cat);
	pmu_release(&rec->rpmu);
}
