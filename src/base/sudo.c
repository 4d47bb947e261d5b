/*
 * base/sudo.c: the invoking user under sudo, acting as that user for the
 * files lauka writes on their behalf, reading safely where they can write,
 * and the sudo fix line (see base/sudo.h).
 */
#include "base/sudo.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

/*
 * The switch is made for the calling thread alone where the system allows it.
 * Linux keeps credentials per thread (credentials(7)); glibc's seteuid(),
 * setegid() and setgroups() make every thread follow, by signalling each one
 * (nptl's setxid broadcast), so lauka calls the system calls itself: a kperf
 * reader or any other thread keeps root while the main thread opens a file
 * as the user.  macOS's credentials are the process's (pthread_setugid_np, the
 * per-thread exception, is deprecated), so there the rule is kept by the
 * callers instead: no thread of lauka's switches while another is running
 * (the kperf reader opens its dump file before it starts, backend/kperf/sample.c).
 * The 32-bit calls where the old 16-bit ones still exist (i386, arm).
 */
#if defined(__linux__)
#if defined(SYS_setresuid32)
#define LK_SYS_SETRESUID SYS_setresuid32
#define LK_SYS_SETRESGID SYS_setresgid32
#define LK_SYS_SETGROUPS SYS_setgroups32
#else
#define LK_SYS_SETRESUID SYS_setresuid
#define LK_SYS_SETRESGID SYS_setresgid
#define LK_SYS_SETGROUPS SYS_setgroups
#endif
static int set_euid(uid_t u)
{
	return (int)syscall(LK_SYS_SETRESUID, (uid_t)-1, u, (uid_t)-1);
}
static int set_egid(gid_t g)
{
	return (int)syscall(LK_SYS_SETRESGID, (gid_t)-1, g, (gid_t)-1);
}
static int set_groups(int n, const gid_t *g)
{
	return (int)syscall(LK_SYS_SETGROUPS, (size_t)n, g);
}
#else
static int set_euid(uid_t u)
{
	return seteuid(u);
}
static int set_egid(gid_t g)
{
	return setegid(g);
}
static int set_groups(int n, const gid_t *g)
{
	return setgroups(n, g);
}
#endif

/*
 * A uid or gid: decimal, within what uid_t holds less its -1 ("no change"
 * to chown): 9999999999 once became uid 1410065407 and was given exports.
 */
static bool parse_id(const char *s, long *out)
{
	if (!s || !*s || strlen(s) > 10)
		return false;
	unsigned long long v = 0;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	if (v >= (unsigned long long)(uid_t)-1 || v > (unsigned long long)LONG_MAX)
		return false;
	*out = (long)v;
	return true;
}

bool sudo_parse_ids(const char *uid, const char *gid, long *uid_out, long *gid_out)
{
	long u, g;
	if (!parse_id(uid, &u) || !parse_id(gid, &g))
		return false;
	*uid_out = u;
	*gid_out = g;
	return true;
}

bool sudo_user(struct sudo_user *u)
{
	memset(u, 0, sizeof(*u));
	if (geteuid() != 0)
		return false;
	if (!sudo_parse_ids(getenv("SUDO_UID"), getenv("SUDO_GID"), &u->uid, &u->gid) || u->uid == 0)
		return false;
	u->groups[0] = (gid_t)u->gid;
	u->ngroups = 1;
	struct passwd *pw = getpwuid((uid_t)u->uid);
	if (!pw)
		return true;
	snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	snprintf(u->home, sizeof(u->home), "%s", pw->pw_dir ? pw->pw_dir : "");
	/* The user's supplementary groups (getgrouplist takes int on macOS, gid_t elsewhere). */
#ifdef __APPLE__
	int groups[SUDO_MAX_GROUPS];
	int n = SUDO_MAX_GROUPS;
	if (getgrouplist(pw->pw_name, (int)u->gid, groups, &n) >= 0 || n > 0) {
#else
	gid_t groups[SUDO_MAX_GROUPS];
	int n = SUDO_MAX_GROUPS;
	if (getgrouplist(pw->pw_name, (gid_t)u->gid, groups, &n) >= 0 || n > 0) {
#endif
		if (n > SUDO_MAX_GROUPS)
			n = SUDO_MAX_GROUPS;
		for (int i = 0; i < n; i++)
			if ((gid_t)groups[i] != (gid_t)u->gid && u->ngroups < SUDO_MAX_GROUPS)
				u->groups[u->ngroups++] = (gid_t)groups[i];
	}
	return true;
}

void sudo_user_env(const struct sudo_user *u)
{
	if (u->home[0])
		setenv("HOME", u->home, 1);
	if (u->name[0]) {
		setenv("USER", u->name, 1);
		setenv("LOGNAME", u->name, 1);
	}
}

/* Single-quote a word for sh unless it is plainly safe. */
static void add_word(struct strbuf *sb, const char *w)
{
	if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%") == strlen(w)) {
		strbuf_addf(sb, " %s", w);
		return;
	}
	strbuf_add(sb, " '", 2);
	for (const char *p = w; *p; p++) {
		if (*p == '\'')
			strbuf_add(sb, "'\\''", 4);
		else
			strbuf_add(sb, p, 1);
	}
	strbuf_add(sb, "'", 1);
}

char *sudo_command(int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "sudo");
	int i = 0;
	static const char *const verbs[] = { "record", "calibrate", "doctor", "counters", "baselines", NULL };
	bool verb = false;
	for (size_t v = 0; argc > 0 && verbs[v] && !verb; v++)
		verb = !strcmp(argv[0], verbs[v]);
	if (verb) {
		strbuf_addf(&sb, " lauka %s", argv[0]);
		i = 1;
	} else if (argc > 0) {
		add_word(&sb, argv[0]);	/* the program as it was invoked: ./build/lauka */
		i = 1;
	} else {
		strbuf_addf(&sb, " lauka");
	}
	for (; i < argc; i++)
		add_word(&sb, argv[i]);
	return sb.buf;
}

int sudo_as_user(struct sudo_creds *c)
{
	memset(c, 0, sizeof(*c));
	struct sudo_user su;
	if (!sudo_user(&su))
		return 0;
	c->euid = geteuid();
	c->egid = getegid();
	int n = getgroups(0, NULL);
	if (n < 0)
		return -1;
	c->groups = xcalloc((size_t)n + 1, sizeof(*c->groups));
	if ((c->ngroups = getgroups(n, c->groups)) < 0) {
		int e = errno;
		FREE_AND_NULL(c->groups);
		errno = e;
		return -1;
	}
	/* Groups and gid first: once the uid is the user's, they cannot be changed. */
	if (set_groups((int)su.ngroups, su.groups) != 0)
		goto undo;
	if (set_egid((gid_t)su.gid) != 0)
		goto undo;
	if (set_euid((uid_t)su.uid) != 0)
		goto undo;
	c->dropped = true;
	return 1;
undo:;
	int e = errno;
	c->dropped = true;
	sudo_as_root(c);
	errno = e;
	return -1;
}

void sudo_as_root(struct sudo_creds *c)
{
	if (!c->dropped)
		return;
	int e = errno;	/* callers report the errno of what they did as the user */
	if ((geteuid() != c->euid && set_euid(c->euid) != 0) || set_egid(c->egid) != 0 ||
	    set_groups(c->ngroups, c->groups) != 0) {
		fprintf(stderr, "error: cannot switch back from the invoking user's ids to root's: %s\n", strerror(errno));
		_exit(1);
	}
	FREE_AND_NULL(c->groups);
	c->dropped = false;
	errno = e;
}

/* Run one call as the user: the macro keeps the call's result and errno. */
#define AS_USER(call) do {				\
	struct sudo_creds c_;				\
	if (sudo_as_user(&c_) < 0)			\
		return -1;				\
	int r_ = (call);				\
	sudo_as_root(&c_);				\
	return r_;					\
} while (0)

int sudo_user_open(const char *path, int flags, mode_t mode)
{
	AS_USER(open(path, flags, mode));
}

int sudo_user_mkdir(const char *path, mode_t mode)
{
	AS_USER(mkdir(path, mode));
}

int sudo_user_rename(const char *from, const char *to)
{
	AS_USER(rename(from, to));
}

int sudo_user_unlink(const char *path)
{
	AS_USER(unlink(path));
}

int sudo_user_mkstemp(char *tmpl)
{
	AS_USER(mkstemp(tmpl));
}

long sudo_expected_owner(void)
{
	struct sudo_user su;
	return sudo_user(&su) ? su.uid : (long)geteuid();
}

int lk_open_owned(const char *path, long owner, struct stat *st)
{
	struct stat sb;
	if (!st)
		st = &sb;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int e = 0;
	if (fstat(fd, st) != 0)
		e = errno;
	else if (!S_ISREG(st->st_mode))
		e = EINVAL;
	else if (owner >= 0 && st->st_uid != (uid_t)owner)
		e = EPERM;
	else {
		/* Reads block again as usual (a regular file never blocked anyway). */
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0)
			fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		return fd;
	}
	close(fd);
	errno = e;
	return -1;
}
