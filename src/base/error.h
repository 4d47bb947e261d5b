/*
 * base/error.h: lauka's error vocabulary and the user-facing message helpers.
 *
 * Library code returns 0 or a negative LK_E* code and fills an errbuf where a
 * reason helps; only cmd-*.c and lauka.c print.  Messages follow one shape:
 *   error: <what went wrong, subject in '...'>
 *   fix: <the command or change that repairs it>     (optional)
 *   tip: <a hint when there is no single fix>        (optional)
 * On a terminal each wraps to its width; to a pipe or a file it is one line.
 */
#ifndef LAUKA_ERROR_H
#define LAUKA_ERROR_H

#include <stddef.h>

enum lk_err {
	LK_OK = 0,
	LK_EINVAL,	/* bad argument or malformed input */
	LK_ENOMEM,
	LK_ENOENT,	/* no such event, file or catalogue */
	LK_EPERM,	/* needs privileges (root, paranoid level) */
	LK_ENOTSUP,	/* not on this machine: no PMU, no backend, wrong OS */
	LK_EBUSY,	/* counters owned by someone else */
	LK_EDB,		/* database error, corrupt or newer database */
	LK_EPLIST,	/* malformed kpep plist */
	LK_ESCHED,	/* events cannot be scheduled together */
	LK_EIO,
	LK_ECHILD,	/* the measured command failed to start */
	LK_EINTR,	/* interrupted by the user */
	LK_ELAST
};

const char *lk_strerror(int err);	/* accepts err or -err */

/* Exit codes of the CLI (README "Exit codes"). */
enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,
	EXIT_COUNTERS = 2,
	EXIT_GATE = 3,		/* a regression gate failed (record --gate) and no command failed */
	EXIT_INCONCLUSIVE = 4,	/* a gate could not tell (unbounded interval, too few runs), nothing failed */
	EXIT_INTERRUPTED = 130,
};

/* Print "error: ..." to stderr; returns -1 so callers can `return error(...)`. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "note: ..." on stderr: something the user should know that is not wrong. */
void notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* lauka's address-space limit (ulimit -v) in KB, which its commands inherit; 0 when there is none. */
unsigned long long lk_as_limit_kb(void);

/*
 * When errno e is a resource limit of lauka's process rather than a fault of
 * the command or the file (EMFILE/ENFILE: open files, ulimit -n; ENOMEM:
 * memory, ulimit -v), a sentence naming the limit and how to raise it;
 * otherwise NULL.  Static storage.
 */
const char *lk_limit_reason(int e);

/* Format into a caller's reason buffer (like snprintf, never overflows). */
void lk_errbuf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
