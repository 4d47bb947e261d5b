/* base/replace.c: see base/replace.h. */
#include "base/replace.h"
#include "base/sudo.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void lk_replace_adopt(int fd, const struct stat *st)
{
	if (st) {
		/* Owner first: chown clears set-id bits, the mode then puts back what the old file had. */
		if (geteuid() == 0 && fchown(fd, st->st_uid, st->st_gid) != 0) {
			/* best effort: stays root's */
		}
		if (fchmod(fd, st->st_mode & 07777) != 0) {
			/* best effort */
		}
		return;
	}
	mode_t um = umask(0);
	umask(um);
	if (fchmod(fd, 0666 & ~um) != 0) {
		/* best effort: mkstemp's 0600 keeps it private */
	}
	struct sudo_user su;
	if (sudo_user(&su) && fchown(fd, (uid_t)su.uid, (gid_t)su.gid) != 0) {
		/* best effort */
	}
}

const char *lk_not_regular(const struct stat *st)
{
#define REFUSED(what) "it is " what ", not a regular file (lauka writes only regular files; - is standard output)"
	if (S_ISREG(st->st_mode))
		return NULL;
	if (S_ISCHR(st->st_mode))
		return REFUSED("a character device");
	if (S_ISBLK(st->st_mode))
		return REFUSED("a block device");
	if (S_ISFIFO(st->st_mode))
		return REFUSED("a FIFO");
	if (S_ISSOCK(st->st_mode))
		return REFUSED("a socket");
	return "it is not a regular file (lauka writes only regular files; - is standard output)";
#undef REFUSED
}

const char *lk_replace_strerror(const struct lk_replace *r, int e)
{
	return r->refused ? r->refused : strerror(e < 0 ? -e : e);
}

static int open_tmp(struct lk_replace *r, const char *path);

/*
 * Under sudo the temporary file is made, and later renamed, with the
 * invoking user's ids (base/sudo.h's rule): an export or plot lands only
 * where the user could put it, and a link they planted to a root-only file
 * replaces nothing of root's.
 */
int lk_replace_open(struct lk_replace *r, const char *path)
{
	memset(r, 0, sizeof(*r));
	if (!strcmp(path, "-")) {
		r->f = stdout;
		r->to_stdout = true;
		return 0;
	}
	struct sudo_creds c;
	if (sudo_as_user(&c) < 0)
		return -errno;
	int e = open_tmp(r, path);
	sudo_as_root(&c);
	return e;
}

static int open_tmp(struct lk_replace *r, const char *path)
{
	struct stat st;
	char *real = NULL;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if ((r->refused = lk_not_regular(&st)))
			return -EINVAL;
		r->existed = true;
		real = realpath(path, NULL);	/* keep a symbolic link: replace the file it points to */
	}
	r->target = xstrdup(real ? real : path);
	free(real);
	r->tmp = xasprintf("%s.tmp-XXXXXX", r->target);
	int fd = mkstemp(r->tmp);
	if (fd < 0) {
		int e = errno;
		FREE_AND_NULL(r->tmp);
		FREE_AND_NULL(r->target);
		return -e;
	}
	lk_replace_adopt(fd, r->existed ? &st : NULL);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	r->f = fdopen(fd, "w");
	if (!r->f) {
		int e = errno;
		close(fd);
		lk_replace_abort(r);
		return -e;
	}
	return 0;
}

int lk_replace_commit(struct lk_replace *r)
{
	int e = 0;
	if (r->to_stdout) {
		r->f = NULL;
		return fflush(stdout) != 0 || ferror(stdout) ? -(errno ? errno : EIO) : 0;
	}
	if (fflush(r->f) != 0 || ferror(r->f))
		e = errno ? errno : EIO;
	if (!e && fsync(fileno(r->f)) != 0 && errno != EINVAL)
		e = errno;
	if (fclose(r->f) != 0 && !e)
		e = errno ? errno : EIO;
	r->f = NULL;
	/* Checked again at the last moment: a device or FIFO put at the name since the open is not replaced. */
	struct stat st;
	struct sudo_creds c;
	if (!e && sudo_as_user(&c) < 0)
		e = errno;
	if (!e) {
		if (stat(r->target, &st) == 0 && (r->refused = lk_not_regular(&st)))
			e = EINVAL;
		if (!e && rename(r->tmp, r->target) != 0)
			e = errno;
		sudo_as_root(&c);
	}
	if (e) {
		lk_replace_abort(r);
		return -e;
	}
	FREE_AND_NULL(r->tmp);
	FREE_AND_NULL(r->target);
	return 0;
}

void lk_replace_abort(struct lk_replace *r)
{
	if (r->to_stdout) {
		r->f = NULL;
		return;
	}
	if (r->f)
		fclose(r->f);
	r->f = NULL;
	if (r->tmp)
		sudo_user_unlink(r->tmp);
	FREE_AND_NULL(r->tmp);
	FREE_AND_NULL(r->target);
}
