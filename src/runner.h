/*
 * runner.h: running one measured command once: fork, hand the child to the
 * backends before it execs, exec without a shell, wait, collect rusage.
 *
 * The child reads /dev/null and its output is discarded (stderr is kept in
 * an unlinked temporary file so a failure can show its tail) unless
 * show_output is set.  Signals: SIGINT/SIGTERM/SIGHUP received by lauka are
 * forwarded to the running child and remembered in runner_interrupted, so
 * the caller can stop, report what it has and exit 128 + signal.
 */
#ifndef LAUKA_RUNNER_H
#define LAUKA_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "backend.h"

#define RUNNER_TAIL_MAX 4096

struct runner_opts {
	bool show_output;	/* child inherits lauka's stdout and stderr */
	long uid, gid;		/* run the child as this user/group; -1 keeps lauka's */
	const gid_t *groups;	/* with gid: its supplementary groups (NULL: gid alone) */
	size_t ngroups;
};

struct runner {
	struct runner_opts opts;
	int devnull;		/* /dev/null, read-write */
	int errfd;		/* unlinked temp file collecting the child's stderr */
};

struct runner_result {
	int status;		/* raw wait status */
	int exit_code;		/* exit status, or 128 + signal number */
	int term_signal;	/* signal that killed the child, or 0 */
	int exec_errno;		/* non-zero when exec itself failed */
	uint64_t wall_ns;	/* from fork to the child's exit being seen */
	struct rusage ru;
	char tail[RUNNER_TAIL_MAX + 1];	/* end of the child's stderr when it failed */
};

extern volatile sig_atomic_t runner_interrupted;	/* signal number, 0 if none */

void runner_signals_install(void);

int runner_init(struct runner *r, const struct runner_opts *opts, char *err, size_t len);
void runner_release(struct runner *r);

/*
 * Resolve argv[0] like execvp would (PATH search when it has no '/').
 * Returns 0 and the path in buf, or -ENOENT / -EACCES.
 */
int runner_resolve(const char *file, char *buf, size_t len);

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
