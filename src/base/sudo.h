/*
 * base/sudo.h: running under sudo as the user who typed it.  kperf needs root,
 * but the measured command must run as the invoking user (SUDO_UID,
 * SUDO_GID, that user's groups, HOME, USER and LOGNAME), so it sees the
 * same files and environment, and behaves, as it would without sudo.  The
 * database is handed to the same user by catalog/db.c.
 *
 * Also the "fix: sudo lauka ..." line printed when something needs root.
 */
#ifndef LAUKA_SUDO_H
#define LAUKA_SUDO_H

#include <stdbool.h>
#include <stddef.h>
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

#endif
