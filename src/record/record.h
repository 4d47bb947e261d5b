/*
 * record/record.h: `lauka record` as a pipeline over one state struct.
 *
 *   plan     (cmd/record-options.c, record/plan.c)  options, commands and hooks,
 *            events and their schedule, backends, gates, the baseline, export
 *            files: everything that can be wrong is found before the first run.
 *   measure  (record/measure.c)  the order of runs (record/order.c), hooks,
 *            the measured runs, their samples.
 *   report   (record/report.c)  one block per command as soon as it and the
 *            commands before it are done, the gate summary, the baseline,
 *            exports, the exit code.
 *
 * cmd/record.c runs the three phases.  A new option is a row in the table of
 * cmd/record-options.c and a field in struct record_opts; what it changes lives
 * in the phase it belongs to.
 */
#ifndef LAUKA_RECORD_H
#define LAUKA_RECORD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend/backend.h"
#include "machine/catalog.h"
#include "catalog/db.h"
#include "base/replace.h"
#include "base/progress.h"
#include "record/explain.h"
#include "record/order.h"
#include "output/report.h"
#include "spawn/runner.h"
#include "base/util.h"

#define RECORD_MIN_RUNS 3		/* a sampled backend's fewest runs (the seed's minimum) */
#define RECORD_MAX_RUNS 1000000
/*
 * Runs by backend (DESIGN.md): a deterministic backend makes one run unless
 * -n says more; a sampled one "auto": --min-runs (3) first, then more until
 * RECORD_AUTO_RUNS runs and RECORD_AUTO_NS of measured wall time, at most
 * --max-runs (RECORD_AUTO_MAX by default) and as many as fit in
 * RECORD_AUTO_CAP_NS of real time (a 9 s xctrace run stays at 3).  -n fixes
 * the count.
 */
#define RECORD_AUTO_RUNS 10
#define RECORD_AUTO_NS 3e9
#define RECORD_AUTO_CAP_NS 30e9
#define RECORD_AUTO_MAX 100
/* Gates that cannot tell yet add rounds (issue 37) while the runs so far and the next look's fit in this. */
#define RECORD_GATE_BUDGET_NS 30e9

/* --gate-inconclusive: what a gate that cannot tell counts as (default: its own exit code). */
enum record_inconclusive { INCONCLUSIVE_EXIT, INCONCLUSIVE_PASS, INCONCLUSIVE_FAIL };

enum record_color { RECORD_COLOR_AUTO, RECORD_COLOR_NEVER, RECORD_COLOR_ANSI };

/* Untimed commands around the measured ones. */
enum record_hook { HOOK_SETUP, HOOK_PREPARE, HOOK_CONCLUDE, HOOK_CLEANUP, HOOK_CHECK, HOOK_COUNT };
extern const char *const record_hook_names[HOOK_COUNT];	/* "setup", ... as in --setup */

enum record_export_kind { EXPORT_JSON, EXPORT_CSV, EXPORT_MARKDOWN, EXPORT_COUNT };

/*
 * A parameter of hyperfine's scans: `{NAME}` in a command is replaced by each
 * of its values, and every combination of the parameters' values becomes a
 * command (record/plan-commands.c).
 */
struct record_param {
	const char *name;
	const char *list;			/* -L: the values, comma-separated as given; NULL for -P */
	const char *min, *max;			/* -P: the range, as given */
};

/* A list of option values (repeatable options). */
struct record_list {
	const char **v;
	size_t n;
};

struct record_opts {
	unsigned long runs, warmup;
	bool runs_given;			/* -n: the count is fixed */
	unsigned long min_runs, max_runs;	/* --min-runs/--max-runs: bounds of the automatic count (0: default) */
	unsigned long jobs;			/* --jobs J: a deterministic backend's runs J at a time (0: one by one) */
	enum record_inconclusive gate_inconclusive;	/* --gate-inconclusive pass|fail */
	const char *collect;			/* --collect FUNC: count only while FUNC runs (valgrind) */
	unsigned long *runs_each;		/* -n N,N,...: runs of command i (nruns_each values), or NULL */
	size_t nruns_each;
	const char *measurements;
	const char *backend;
	enum record_color color;
	bool show_output;
	const char *db;
	const char *exports[EXPORT_COUNT];	/* file names, NULL when not asked for */
	const char *plot;			/* --plot FILE.svg: the deltas drawn (output/plot-out.h) */
	bool guided;				/* --guided: xctrace's guided-mode slots, named by calibration */
	bool explain;				/* --explain: a diagnosis under each command (record/explain.h) */
	const char *shell;			/* -S/--shell */
	bool interleave;
	bool passes;				/* --passes: events that do not fit the counters together, in passes */
	bool no_interleave;			/* --no-interleave: keep sequential runs with a timing gate */
	bool auto_interleave;			/* interleaved because a gate is on a timing measurement */
	bool ignore_failure;			/* -i: measure commands whatever their exit status */
	int *ok_codes;				/* --ok-exit-codes: the statuses that count as success */
	size_t nok_codes;
	char *measurements_buf;			/* -m given more than once: the lists joined */
	bool have_seed;
	uint64_t seed;
	struct record_list hooks[HOOK_COUNT];	/* once for every command, or once per command */
	struct record_list names;		/* --command-name */
	struct record_list gates;		/* --gate NAME=LIMIT */
	const char *save_baseline, *baseline;
	const char *runner_class;
	bool any_runner;
	bool git;				/* --git: baselines in git notes (catalog/notes.h) */
	char **cmds;				/* the arguments after -- */
	size_t ncmds;
	/* hyperfine's spellings (cmd/record-options.c): --style, and the parameter scans -P/-L/-D */
	bool no_progress;			/* --style basic or none: no progress line */
	bool no_results;			/* --style none: no table on standard output (exports are still written) */
	struct record_param *params;		/* -P NAME MIN MAX, -L NAME V1,V2: expanded in record/plan-commands.c */
	size_t nparams;
	const char *param_step;			/* -D STEP (with -P) */
};

/* A program lauka runs: a measured command or a hook. */
struct record_prog {
	const char *text;	/* as the user wrote it */
	char **argv;
	char path[PATH_MAX];
};

/* One measured quantity: which backend instance and which of its events. */
struct record_col {
	size_t backend;		/* 0 = rusage, 1 = counter backend */
	size_t index;		/* index into that backend's evsel array */
	const struct lk_event *ev;
	char *label;
	const char *unit;
	char mode;		/* a PMU event counted in one mode: 'u' user only, 'k' kernel only ("instructions:u"; label and baselines), 0 both */
};

struct record;
/* The name a baseline keeps for column c: its event's, with ":u" when counted in user mode only. */
char *record_col_meas(const struct record *rec, size_t c);

struct record_cmd {
	struct record_prog prog;
	const char *name;			/* --command-name, or NULL */
	const char *const *param_values;	/* -P/-L: this command's values, one per rec->scan.names; or NULL */
	const struct record_prog *hook[HOOK_COUNT];	/* NULL when not given */
	unsigned long warmups, planned;		/* warm-ups and measured runs to do */
	bool auto_runs;				/* planned is the pilot (--min-runs): more follow by measured time */
	size_t slots_left;			/* runs (warm-ups included) still ahead in the order */
	size_t done;				/* measured runs completed */
	double **vals;				/* [col][run] */
	bool *check_ok;				/* [run], with --check */
	int *codes;				/* [run] exit status of each measured run */
	size_t ignored;				/* runs with a non-zero status that -i or --ok-exit-codes accepted */
	size_t lingering;			/* runs after which its process group still had members */
	double user_ns, sys_ns;			/* CPU times of the measured runs, summed (wait4's rusage) */
	double elapsed_ns;			/* real time of its measured runs, lauka's own cost included */
	size_t checks_passed;
	struct report_row *rows;		/* [col], filled when the command is finished */
	double *coverage;			/* [col] lowest counted fraction */
	bool set_up, finished, stopped, cleaned_up;
	bool setup_tried;	/* its setup started (or it has none): cleanup is due, even after a failure or Ctrl-C */
	int exit_code;				/* what stopped it, 0 if nothing */
	const char *failed_step;		/* "command", "setup", ... or NULL */
	struct lk_stats *ref;			/* [col] the baseline's statistics, with --baseline */
	struct strbuf run_details;		/* the backend's json_run of each measured run, comma-separated */
	char *detail;				/* {"scope": ..., "runs": [...]} once finished, or NULL */
	const double **ref_samples;		/* [col] the baseline's samples, with --baseline */
	size_t ref_runs;
	struct cg_table *funcs;			/* valgrind, with --explain or a gate: the last measured run's functions */
	struct explain_cmd ex;			/* --explain: the diagnosis, once the block is printed */
	char *diagnosis;			/* --explain: its JSON object */
};

/* hyperfine's parameter scans, expanded into commands (record/plan-commands.c owns these) */
struct record_scan {
	size_t nparams, ncombos;
	size_t norig;				/* the commands as given: ncmds = ncombos * norig */
	const char **names;			/* [nparams] */
	char **values;				/* [ncombos * nparams]: combination c's values at c * nparams */
	char **strs;				/* the commands, names and hooks with values put in */
	size_t nstrs;
	char **cmds;				/* what o.cmds points to after the expansion */
};

struct record_gate {
	const char *spec;	/* as given */
	char *name;		/* the measurement named */
	double limit;		/* percent */
	size_t col;
};

struct record_export {
	const char *path;
	struct lk_replace rep;	/* the temporary file renamed over path at the end (rep.tmp NULL: written directly) */
	FILE *f;
	bool to_stdout;		/* "-": standard output (the table then goes to standard error) */
};

struct record {
	int argc;
	char **argv;
	struct record_opts o;
	struct record_scan scan;		/* -P/-L (plan-commands.c) */

	/* plan */
	const struct lk_backend *be;		/* counter backend, NULL: rusage only */
	struct catalog *cat;
	struct catalog *rcat;			/* rusage's catalogue, for verdicts of gated rusage events */
	struct lk_pmu rpmu;
	struct lk_evsel *sel[2];
	size_t nsel[2];
	bool mode_named;			/* a measurement was named with perf's :u or :k (one mode a record) */
	struct lk_event **raw;			/* Arm raw events no catalogue row names (-m r23), owned */
	size_t nraw;
	struct backend_inst bi[2];
	size_t nbi;
	/*
	 * --passes: sel[1] in pass order, pass p = sel[1][pass_start[p] ..
	 * pass_start[p + 1]); bi[1] is open on pass cur_pass only.  Every
	 * command runs its runs once per pass; a counter column has samples in
	 * its own pass's runs (NaN elsewhere), rusage's in every run.
	 */
	size_t npasses;				/* 0: one pass, everything open at once */
	size_t *pass_start;
	size_t cur_pass;
	struct record_col *cols;
	size_t ncols, name_width;
	char **shell_argv;
	char shell_path[PATH_MAX];
	struct record_prog *hooks[HOOK_COUNT];
	size_t nhooks[HOOK_COUNT];
	char env_path[PATH_MAX];		/* env(1): puts LAUKA_COMMAND_INDEX/RUN_INDEX in a hook's environment */
	struct record_cmd *cmds;
	size_t ncmds;
	struct record_gate *gates;
	size_t ngates;
	struct explain explain;			/* --explain: the calibration read and the events chosen */
	struct db *db;				/* for baselines; owned unless it is the catalogue's */
	bool own_db;
	struct db_baseline base;
	bool have_base;
	char base_commit[65];			/* with --git: the commit whose note held the baseline */
	bool first_baseline;			/* --baseline and --save-baseline NAME with none yet: nothing compared */
	char *runner_class;
	struct record_export exports[EXPORT_COUNT];
	struct order_slot *slots;
	size_t nslots;
	struct runner run;
	bool runner_ok;
	struct lk_counts *counts[2];
	struct record_cmd shell_cost;		/* the empty command under -S */
	bool have_shell_cost;

	/* measure */
	struct lk_progress prog;
	int first_fail;				/* first failing command's or hook's code */
	int check_fail;				/* first failing check's code */
	bool collect_err;
	bool parallel;				/* the runs of each command were made at the same time */
	bool hold_blocks;			/* a failed one-run gate may re-run commands: blocks wait (issue 37 T3) */
	/*
	 * Issue 37: gates that cannot tell yet get more interleaved rounds, on
	 * the schedule of looks of stats/gate.h (gate_looks), each look's
	 * interval at confidence 1 - gate_alpha.  adaptive: still looking.
	 */
	bool adaptive;
	size_t nlooks, look;			/* looks planned (0: no schedule yet), the next one (0-based) */
	unsigned long looks[32];		/* GATE_MAX_LOOKS */
	double gate_alpha;			/* each gate's interval level (GATE_ALPHA with one look) */
	char why[160];				/* the progress line's reason for rounds beyond the automatic count */

	/* report */
	struct report_opts ro;
	FILE *out;				/* the table: stdout, or stderr when an export goes to stdout */
	size_t next_block;			/* the next command whose block is due */
	bool shell_cost_shown;
	bool gate_failed;
	bool gate_inconclusive;			/* a gate could not tell (unbounded interval, too few runs) */
	int stdout_errno;			/* why writing the results to stdout first failed, 0 if it did not */
};

/*
 * Phases, after cmd/record-options.c has filled rec->o.  record_plan()
 * returns 0 to go on, or the exit code after printing why.
 */
int record_plan(struct record *rec);
void record_measure(struct record *rec);
/* Print the blocks that are due (called by measure after every finished command). */
void record_report_ready(struct record *rec);
/* fflush(stdout), remembering why it first failed (a full disk must not go unnoticed). */
void record_flush_stdout(struct record *rec);
int record_report(struct record *rec);
void record_release(struct record *rec);

/*
 * --passes: open the counter backend (bi[1]) on pass p, closing the pass it
 * was open on; 0, or the exit code after printing why (record/plan-events.c).
 */
int record_open_pass(struct record *rec, size_t p);
/* The pass a measured run k (0-based) of a command with `planned` runs in all passes belongs to. */
size_t record_pass_of_run(const struct record *rec, unsigned long k, unsigned long planned);

/* The record's memory (record/plan.c). */
void record_cmd_alloc(struct record *rec, struct record_cmd *c, unsigned long runs);
/* Room for `runs` measured runs of c in all (the automatic count grows after the pilot). */
void record_cmd_grow(struct record *rec, struct record_cmd *c, unsigned long runs);
/* Whether column col's counts are deterministic (the same on every run: valgrind's events). */
bool record_col_exact(const struct record *rec, size_t col);
void record_cmd_free(struct record *rec, struct record_cmd *c);

#endif
