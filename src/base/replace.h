/*
 * base/replace.h: writing a file the user owns (an export, a plot) so that
 * nothing of theirs is lost: a temporary file beside the target (beside
 * the file a symbolic link points to), renamed over it only once complete
 * and synced, so a full disk, a crash or Ctrl-C leaves the old file whole.
 *
 * The new file takes the mode and owner of the file it replaces; a new file
 * gets 0666 less the umask.  Under sudo the temporary file is created and
 * renamed with the invoking user's ids (base/sudo.h), so it is theirs and
 * lands nowhere they could not write.
 */
#ifndef LAUKA_REPLACE_H
#define LAUKA_REPLACE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

struct lk_replace {
	char *target;		/* the path renamed over (a symbolic link resolved) */
	char *tmp;		/* the temporary file, NULL once committed or aborted */
	FILE *f;
	bool existed;		/* the target existed when opened */
	bool to_stdout;		/* the path was "-": f is stdout, nothing is renamed */
	const char *refused;	/* why the target was refused ("it is a FIFO, ..."), or NULL */
};

/*
 * Open a temporary file for path; 0, or -errno (nothing left on disk).
 * This is the one way lauka writes a file the user names (exports, plots),
 * so its rules hold for all: the target must be a regular file (through
 * any symbolic links) or a new name.  A device, FIFO or socket is refused
 * (-EINVAL and r->refused says what it is): renaming over it would swap a
 * system's /dev/null for a world-writable file, and a FIFO would block.
 * "-" is standard output (written directly, never closed).
 */
int lk_replace_open(struct lk_replace *r, const char *path);
/* What st is when it is not a regular file, as the refusal says it ("it is a FIFO, ..."); NULL for a regular file. */
const char *lk_not_regular(const struct stat *st);
/* The reason for a failed open or commit: r->refused, else strerror(-e). */
const char *lk_replace_strerror(const struct lk_replace *r, int e);
/* Flush, sync and rename over the target; 0, or -errno (the temporary file removed, the target untouched). */
int lk_replace_commit(struct lk_replace *r);
/* Drop the temporary file; the target stays as it was. */
void lk_replace_abort(struct lk_replace *r);

/* Give fd the owner and mode a new file at path should have (the rules above); st: the replaced file or NULL. */
void lk_replace_adopt(int fd, const struct stat *st);

#endif
