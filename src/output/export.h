/*
 * output/export.h: machine-readable results of `lauka record`: JSON (every sample,
 * the statistics, the deltas with both interval bounds, gate results and
 * check verdicts), CSV (one row per command x measurement) and a Markdown
 * table a pull-request comment can show.  Each writer prints to the FILE it
 * is given; no other I/O (record/report.c makes the files atomic).
 */
#ifndef LAUKA_EXPORT_H
#define LAUKA_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stats/gate.h"
#include "output/report.h"

/*
 * A measurement as perf_event_open opened it (issue 36 P11): perf_event_attr's type, config and
 * config1, and the PMU device (its name in /sys/bus/event_source/devices) that counts it.
 */
struct export_encoding {
	bool perf;			/* false: not a perf event (rusage, valgrind, kperf): the fields are null */
	uint32_t type;
	uint64_t config, config1;
	const char *pmu;		/* "cpu", "armv8_pmuv3", "software", ...; NULL when unknown */
};

struct export_command {
	const char *command;		/* as the user wrote it */
	const char *name;		/* --command-name, or NULL */
	int exit_code;			/* 0, or the code of what stopped it */
	const char *failed_step;	/* NULL, or "command", "setup", "prepare", "conclude", "cleanup" */
	size_t runs;			/* completed measured runs */
	const struct report_row *rows;	/* one per measurement (statistics meaningless when runs == 0) */
	const struct export_encoding *enc;	/* [row], or NULL: no row is a perf event */
	const double *const *samples;	/* samples[row][run] */
	size_t nrows;
	const bool *check_passed;	/* [run], or NULL without --check */
	size_t checks_passed;
	const int *exit_codes;		/* [run]: each run's exit status (128+signal), or NULL: exit_code for every run */
	const char *detail_key;		/* with detail: the backend's per-run details (a JSON value) */
	const char *detail;
	const char *diagnosis;		/* record --explain: the JSON "diagnosis" object, or NULL */
	const char *verdict;		/* with it: memory-bound, branch-bound or neither (CSV, Markdown) */
	const char *delta_cause;	/* and for a later command: work, memory, branch, mixed or none (else NULL) */
	/* -P/-L: the parameters' names and this command's values ("results"[].parameters, as hyperfine's) */
	const char *const *param_names;
	const char *const *param_values;
	size_t nparams;
	bool has_cpu;			/* user_s and system_s hold the runs' mean CPU times (wait4's rusage), s */
	double user_s, system_s;
};

struct export_gate {
	const char *spec;		/* as given: "Ir=1%" */
	const char *measurement;
	double limit;			/* percent */
	size_t command;			/* index into the commands */
	size_t col;			/* the measurement's column */
	double confidence;		/* of the interval in eval: 0.95, or higher after several looks (issue 37) */
	struct gate_eval eval;
};

struct export_run {
	const char *backend;
	const char *lauka_version;
	const char *runner_class;
	const char *baseline;		/* compared against this baseline, or NULL: against the first command */
	const char *baseline_commit;	/* the git commit it was measured at, or NULL */
	const char *baseline_environment;	/* its fingerprint (what lauka cannot pin), or NULL */
	int environment_matches;	/* 1, 0, or -1: unknown (no baseline, or saved without a fingerprint) */
	bool interleaved;
	bool parallel;			/* the runs of each command were made at the same time (a deterministic backend) */
	uint64_t seed;			/* with interleaved */
	const char *shell;		/* -S, or NULL */
	const char *const *env;		/* "NAME=value": the variables that change what a program does (base/envvars.h) */
	size_t nenv;
	const struct export_command *shell_cost;	/* the empty command under the shell, or NULL */
	const struct export_command *cmds;
	size_t ncmds;
	const struct export_gate *gates;
	size_t ngates;
	int exit_code;			/* lauka's exit code */
	const char *exit_cause;		/* "ok", "gate", "inconclusive", "command", "check", "collection", "interrupted", "output" */
	bool incomplete;		/* lauka was interrupted: JSON says "complete": false */
};

/*
 * JSON: lauka's keys, and hyperfine's "results" beside them (one per
 * command: command, mean, stddev, median, user, system, min, max, times,
 * exit_codes, all times in seconds from wall_time, user_time and sys_time),
 * so that hyperfine's scripts read the file unchanged.
 */
void export_json(FILE *f, const struct export_run *r);
void export_csv(FILE *f, const struct export_run *r);
void export_markdown(FILE *f, const struct export_run *r);

/*
 * CSV field, quoted when it holds a comma, quote, CR or LF (RFC 4180); one
 * that starts with =, +, -, @, tab or CR gets a leading ' inside the quotes
 * (OWASP's rule against CSV injection: a spreadsheet would run it).
 */
void export_csv_field(FILE *f, const char *s);
/* Text for a Markdown table cell: |, \, `, *, _, [, ], <, > escaped; newlines as spaces; other control characters as \xHH. */
void export_md_text(FILE *f, const char *s);
/* JSON string literal. */
void export_json_str(FILE *f, const char *s);

#endif
