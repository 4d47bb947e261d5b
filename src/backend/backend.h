/*
 * backend/backend.h: the one interface every counter source implements.
 *
 * A backend is one file (backend-<name>.c) defining one `const struct
 * lk_backend`.  The runner drives it through the life of each measured run:
 *
 *   open(events)                         once per command set
 *   for each run:
 *     bind(spawner)                      optional: count every child of the spawner (1 = no attach needed)
 *     wrap_argv(argv)                    optional: run the command under a tool
 *     only when attach is needed: fork; child blocks on a gate pipe
 *       attach(pid)                      counters on the child, before it execs
 *       release gate (the wall clock starts here); child execs
 *     exited(pid)                        child is a zombie, not yet reaped
 *     reap (wait4)
 *     read(counts)                       one lk_counts per event
 *     detach()                           per-run cleanup
 *   close()                              always, on every exit path
 *
 * Counts are always {value, enabled, running} so multiplexing and "not
 * supported" are handled in one place (counts_scale()).  Optional ops may be
 * NULL; backend_call_*() wrappers make that invisible to callers.
 */
#ifndef LAUKA_BACKEND_H
#define LAUKA_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend/callgrind.h"
#include "catalog/pmu.h"

struct lk_counts {
	uint64_t value;
	uint64_t enabled;	/* time (ns) the event was enabled; 0 with running = not counted */
	uint64_t running;	/* time (ns) it was actually on a counter */
	bool supported;
	bool scaled;		/* value was extrapolated (multiplexing, sampling coverage) */
	double coverage;	/* fraction counted, 0..1, meaningful when scaled */
};

/* One event requested for measurement. */
struct lk_evsel {
	const struct lk_event *ev;	/* borrowed from the catalogue */
	int counter;			/* counter chosen by the scheduler, -1 = any */
	bool explicit;			/* the user named it: failure is an error */
	int err;			/* set by open(): 0, or -LK_E* when it cannot count */
	char why[160];			/* reason when err != 0 */
};

struct lk_run_info {
	pid_t pid;
	int status;			/* wait status */
	uint64_t wall_ns;
	const void *rusage;		/* struct rusage * of the reaped child */
};

struct lk_backend {
	const char *name;
	const char *desc;
	size_t priv_size;
	/* 0 if usable here; otherwise -LK_E* and a reason such as "valgrind not found in PATH". */
	int (*detect)(char *why, size_t len);
	/* The event catalogue of this machine for this backend (no database involved). */
	int (*catalog)(struct lk_pmu *out, char *err, size_t len);
	/*
	 * Optional: can `ev` be counted here at all (is there a PMU for it, is
	 * this user allowed)?  0, or -LK_E* with a reason.  No lasting effect:
	 * `lauka counters --details` asks it for every event it lists.
	 */
	int (*supported)(const struct lk_event *ev, char *why, size_t len);
	/* Never chosen without --backend (valgrind: runs the command 15-50x slower). */
	bool opt_in;
	/*
	 * Its catalogue also takes the events of the core PMUs libpfm4 finds on
	 * this machine (catalog/pfm.h; perf: they are opened as raw encodings).
	 */
	bool pfm_events;
	/*
	 * Counts do not depend on the load on the machine (simulated): record
	 * may make the runs of one command at the same time, each with its own
	 * instance of the backend.
	 */
	bool deterministic;
	/* Names of the events measured when the user gives no -m. */
	const char *const *defaults;
	int (*open)(void *priv, struct lk_evsel *sel, size_t n, char *err, size_t len);
	/*
	 * Run the command under a tool: return a malloc'd, NULL-terminated argv
	 * (each string malloc'd, [0] an absolute path) that the runner frees, or
	 * NULL to run argv as is.
	 */
	char **(*wrap_argv)(void *priv, char *const argv[]);
	int (*attach)(void *priv, pid_t pid, char *err, size_t len);
	void (*exited)(void *priv, pid_t pid);
	int (*read)(void *priv, const struct lk_run_info *run, struct lk_counts *out, char *err, size_t len);
	void (*detach)(void *priv);
	void (*close)(void *priv);
	/*
	 * Optional: the measured command's exit status when the backend knows it
	 * better than wait() does (xctrace: the child is the recorder, the trace
	 * holds the command's status).  Asked after read(); false = keep wait()'s.
	 */
	bool (*exit_status)(void *priv, int *code);
	/*
	 * Optional: a JSON object with details of the run read last (xctrace:
	 * its per-thread totals), malloc'd, or NULL.  `record --json` gathers
	 * each command's measured runs, in order, under the backend's name as
	 * {"scope": json_scope, "runs": [...]}; warm-ups are left out.  Asked
	 * after every run, so interleaved rounds never mix commands.
	 */
	char *(*json_run)(void *priv);
	const char *json_scope;	/* what json_run's details cover */
	/*
	 * Optional: how long (ms) the runner waits, after forwarding lauka's
	 * first interrupt to the command's group, before SIGKILL; the longest of
	 * the run's backends, at least RUNNER_GRACE_MS.  xctrace: its recording
	 * takes seconds to save after SIGINT.
	 */
	unsigned (*interrupt_grace_ms)(void *priv);
	/*
	 * Optional: count every command the runner's spawner (spawn/spawner.h) starts
	 * from now on, without attach(): counters opened once on the spawner and
	 * inherited by each child.  Called before every run with the spawner's
	 * pid.  1 = bound (attach is skipped, no gate), 0 = use attach() per
	 * child, or -LK_E* with a reason.
	 */
	int (*bind)(void *priv, pid_t spawner, char *err, size_t len);
	/*
	 * Optional: where the work of each run goes, by function.  After
	 * keep_functions(), read() also gathers the self cost of every
	 * function of the run (valgrind: callgrind's Ir, every part of every
	 * process's file) and functions() hands over that table for the run
	 * read last (malloc'd, the caller releases it), or NULL.
	 */
	void (*keep_functions)(void *priv);
	struct cg_table *(*functions)(void *priv);
	/*
	 * Optional: count only while `function` runs, callees included
	 * (record --collect; valgrind: callgrind's --toggle-collect), so that
	 * start-up and exit are left out.  The string outlives the instance.
	 */
	void (*collect_only)(void *priv, const char *function);
};

/* A backend with its private state, as the runner and the commands hold it. */
struct backend_inst {
	const struct lk_backend *ops;
	void *priv;
	struct lk_evsel *sel;
	size_t nsel;
};

/* All compiled-in backends, NULL-terminated, best first. */
extern const struct lk_backend *const lk_backends[];

const struct lk_backend *backend_find(const char *name);
/*
 * The counter backend used when --backend is not given: the first that works
 * here and is not opt-in (may be NULL: rusage only).
 */
const struct lk_backend *backend_default(void);
/*
 * The backend whose catalogue `lauka counters` lists by default: the default
 * one, else one that only lacks privileges (its events can still be listed;
 * *why says what counting them needs), else rusage.
 */
const struct lk_backend *backend_for_listing(char *why, size_t len);
/* The backend that is always on (rusage). */
const struct lk_backend *backend_rusage(void);

int backend_inst_open(struct backend_inst *bi, const struct lk_backend *ops,
		      struct lk_evsel *sel, size_t n, char *err, size_t len);
void backend_inst_close(struct backend_inst *bi);

/* Apply multiplexing scaling: value * enabled / running, marking scaled. */
void counts_scale(struct lk_counts *c);

#endif
