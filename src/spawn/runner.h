/*
 * spawn/runner.h: running one measured command once, through the spawner
 * (spawn/spawner.h): exec without a shell, in its own process group, with every
 * signal at its default and none blocked; hand the child to the backends
 * before it execs when one needs that; wait; collect rusage.
 *
 * The child reads /dev/null and its output is discarded unless show_output
 * is set; its stderr goes to a pipe of which lauka keeps only the last
 * RUNNER_TAIL_MAX bytes, in memory, to show when the command fails.
 *
 * Signals: the first SIGINT/SIGTERM/SIGHUP lauka receives is forwarded to
 * the command's process group (grandchildren included) and remembered in
 * runner_interrupted, so the caller can stop, report what it has and exit
 * 128 + signal.  A second one, or RUNNER_GRACE_MS (longer when a backend asks: xctrace) without the command
 * ending, sends SIGKILL to the group.  Ctrl-Z stops the command's group
 * with lauka, and fg continues both.  With show_output on lauka's terminal
 * (lauka in its foreground) the command's group has the terminal for its
 * run, as a shell's job would: Ctrl-C and Ctrl-Z reach it, and lauka
 * follows (spawn/runner.c, terminal_for).
 *
 * wall_time runs from the moment the child is released to exec (posix_spawn
 * called, or the gate opened after the backends attached) to the moment the
 * spawner sees it exit: no backend work lies inside it.
 */
#ifndef LAUKA_RUNNER_H
#define LAUKA_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "backend/backend.h"
#include "base/cpulist.h"

#define RUNNER_TAIL_MAX 4096
#define RUNNER_GRACE_MS 1000

struct runner_opts {
	bool show_output;	/* child inherits lauka's stdout and stderr */
	bool output_to_stderr;	/* with show_output: the child's stdout goes to lauka's stderr (an export on stdout) */
	long uid, gid;		/* run the child as this user/group; -1 keeps lauka's */
	const gid_t *groups;	/* with gid: its supplementary groups (NULL: gid alone) */
	size_t ngroups;
};

struct sudo_user;
/*
 * Under sudo, make o run the commands as the user who typed it, in that
 * user's environment (HOME, USER, LOGNAME), as sudo_user() finds them; o
 * borrows su's groups until runner_init() copies them.  True when it did.
 */
bool runner_opts_sudo(struct runner_opts *o, struct sudo_user *su);

struct runner {
	struct runner_opts opts;	/* opts.groups points into groups: the caller's copy may go */
	gid_t *groups;
	int devnull;		/* /dev/null, read-write */
	int errr;		/* read end of the commands' stderr pipe (non-blocking), or -1 */
	int req, rep;		/* requests to and replies from the spawner */
	pid_t spawner;
	bool spawner_exec;	/* the spawner is lauka-spawn (not a fork of lauka) */
	pid_t busy;		/* a run whose end was not seen: its process group (release kills it) */
	char ring[RUNNER_TAIL_MAX];	/* the last bytes of the current run's stderr */
	uint64_t ring_total;
	struct lk_cpus pin;	/* runner_pin: the CPUs the commands run on; empty: wherever the kernel puts them */
	/* Called about once a second while a run goes on (a progress line's redraw), or NULL. */
	void (*idle)(void *arg);
	void *idle_arg;
};

struct runner_result {
	int status;		/* raw wait status */
	int exit_code;		/* exit status, or 128 + signal number */
	int term_signal;	/* signal that killed the child, or 0 */
	int exec_errno;		/* non-zero when exec itself failed */
	int tty_stop;		/* SIGTTIN/SIGTTOU: stopped on the terminal, then killed; 0 */
	bool lingering;		/* after the reap the command's process group still had members (a child left running) */
	uint64_t wall_ns;	/* from the child's release to exec to its exit being seen */
	struct rusage ru;
	char tail[RUNNER_TAIL_MAX + 1];	/* end of the child's stderr when it failed */
};

extern volatile sig_atomic_t runner_interrupted;	/* signal number, 0 if none */

/*
 * For a cleanup that must run after an interruption: hold clears the
 * interruption (so it is not forwarded to the cleanup, and a new signal
 * interrupts it) and returns it; resume puts it back.
 */
int runner_interrupt_hold(void);
void runner_interrupt_resume(int sig);

void runner_signals_install(void);

/*
 * Starts the spawner.  The commands get the environment and working
 * directory lauka has at this point.
 */
int runner_init(struct runner *r, const struct runner_opts *opts, char *err, size_t len);
void runner_release(struct runner *r);

/*
 * The runs that follow run on these CPUs only (the child's affinity, set before it execs; Linux:
 * sched_setaffinity), or wherever the kernel puts them again with NULL or an empty set.  The caller
 * intersects with runner_cpus_allowed first: a mask of CPUs this process may not use fails the
 * run with exec_errno EINVAL.
 */
void runner_pin(struct runner *r, const struct lk_cpus *cpus);
/* The CPUs this process may run on (sched_getaffinity; its cpuset included); 0, or -LK_ENOTSUP off Linux. */
int runner_cpus_allowed(struct lk_cpus *out);

/*
 * Run `path` with `argv` once, measured by the backends.  counts[i] receives
 * backends[i]'s counts (nsel entries each).  Returns 0 when the child ran
 * (whatever its exit status), or -LK_E* with a reason in err.
 */
int runner_run(struct runner *r, const char *path, char *const argv[],
	       struct backend_inst *backends, size_t nbackends,
	       struct lk_counts *const *counts, struct runner_result *res,
	       char *err, size_t len);

#endif
