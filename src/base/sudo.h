/*
 * base/sudo.h: running under sudo as the user who typed it.  kperf needs root,
 * but the measured command must run as the invoking user (SUDO_UID,
 * SUDO_GID, that user's groups, HOME, USER and LOGNAME), so it sees the
 * same files and environment, and behaves, as it would without sudo.  The
 * files lauka makes for that user follow the one rule below.
 *
 * The one rule under sudo: every file or directory lauka creates or opens
 * for writing on the user's behalf (the database and its directories,
 * exports, plots, the xctrace self-check state, anything in a directory
 * the user owns) is opened with the user's effective uid, gid and groups
 * (sudo_as_user ... sudo_as_root around the call), so lauka writes nothing
 * the user could not and follows no link the user planted to a file only
 * root may change.  A file root must read in a directory the user can
 * write is opened with lk_open_owned: no link followed, a regular file,
 * owned by the expected user, read from the descriptor.
 *
 * Also the "fix: sudo lauka ..." line printed when something needs root.
 */
#ifndef LAUKA_SUDO_H
#define LAUKA_SUDO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#define SUDO_MAX_GROUPS 64

struct sudo_user {
	long uid, gid;
	char name[64];			/* "" when the uid has no passwd entry */
	char home[1024];		/* "" likewise */
	gid_t groups[SUDO_MAX_GROUPS];	/* supplementary groups, gid first */
	size_t ngroups;
};

/* Parse SUDO_UID / SUDO_GID values: true when both are plain decimal numbers. */
bool sudo_parse_ids(const char *uid, const char *gid, long *uid_out, long *gid_out);

/*
 * True when lauka runs as root through sudo on behalf of another user (a
 * valid, non-zero SUDO_UID and SUDO_GID); fills u from the environment and
 * the user database.
 */
bool sudo_user(struct sudo_user *u);

/* Make lauka's environment (which the measured command inherits) the user's: HOME, USER, LOGNAME. */
void sudo_user_env(const struct sudo_user *u);

/*
 * "sudo lauka VERB <args...>" re-quoted for a shell, from argv as the verb
 * received it: argv[0] is the verb (record, calibrate, doctor, counters,
 * baselines), or the program as invoked when record was implied
 * ("sudo ./build/lauka <args...>").
 * Returns a malloc'd string.
 */
char *sudo_command(int argc, char **argv);

/* The effective ids sudo_as_user put aside, for sudo_as_root. */
struct sudo_creds {
	bool dropped;
	uid_t euid;
	gid_t egid;
	gid_t *groups;
	int ngroups;
};

/*
 * Under sudo (sudo_user() true), take the invoking user's effective gid,
 * supplementary groups and uid until sudo_as_root(c): 1.  0 and nothing
 * changed when not under sudo (or already acting as the user).  -1 with
 * errno when a switch failed (nothing changed then: the caller must not
 * go on to write as root).
 */
int sudo_as_user(struct sudo_creds *c);
/* Back to the ids sudo_as_user put aside; dies when it cannot (lauka must not go on half switched). */
void sudo_as_root(struct sudo_creds *c);

/* open(2), mkdir(2), rename(2), unlink(2) as the invoking user under sudo (as is otherwise); -1 with errno. */
int sudo_user_open(const char *path, int flags, mode_t mode);
int sudo_user_mkdir(const char *path, mode_t mode);
int sudo_user_rename(const char *from, const char *to);
int sudo_user_unlink(const char *path);
/* mkstemp(3) as the invoking user under sudo. */
int sudo_user_mkstemp(char *tmpl);

/*
 * Open path for reading the way root reads a file in a directory someone
 * else can write: O_NOFOLLOW (a symbolic link is refused, ELOOP), never
 * blocking on a FIFO, then fstat: a regular file (else EINVAL) owned by
 * owner (-1: anyone; else EPERM).  Read from the descriptor returned; -1
 * with errno.  st (may be NULL) gets the fstat.
 */
int lk_open_owned(const char *path, long owner, struct stat *st);
/* The uid files in a directory lauka shares with the measured command belong to: the sudo user's, else ours. */
long sudo_expected_owner(void);

#endif
