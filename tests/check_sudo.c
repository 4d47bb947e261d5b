/* check_sudo.c: SUDO_UID/SUDO_GID parsing, the sudo fix line, the invoking user. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "base/sudo.h"
#include "base/util.h"

static const struct {
	const char *uid, *gid;
	bool ok;
	long u, g;
} id_cases[] = {
	{ "501", "20", true, 501, 20 },
	{ "0", "0", true, 0, 0 },
	{ "", "20", false, 0, 0 },
	{ NULL, "20", false, 0, 0 },
	{ "501", NULL, false, 0, 0 },
	{ "-1", "20", false, 0, 0 },
	{ "501x", "20", false, 0, 0 },
	{ " 501", "20", false, 0, 0 },
	{ "99999999999", "20", false, 0, 0 },
	/* issue 31 D-14: ten digits past uid_t were truncated (9999999999 became uid 1410065407) */
	{ "9999999999", "20", false, 0, 0 },
	{ "501", "9999999999", false, 0, 0 },
	{ "4294967295", "20", false, 0, 0 },	/* (uid_t)-1: "no change" to chown */
};

START_TEST(test_parse_ids)
{
	long u = -7, g = -7;
	bool ok = sudo_parse_ids(id_cases[_i].uid, id_cases[_i].gid, &u, &g);
	ck_assert_int_eq(ok, id_cases[_i].ok);
	if (ok) {
		ck_assert_int_eq(u, id_cases[_i].u);
		ck_assert_int_eq(g, id_cases[_i].g);
	} else {
		ck_assert_int_eq(u, -7);
	}
}
END_TEST

static const struct {
	const char *argv[6];
	int argc;
	const char *want;
} cmd_cases[] = {
	{ { "lauka", "--backend", "kperf", "--", "sleep 1" }, 5, "sudo lauka --backend kperf -- 'sleep 1'" },
	{ { "./build/lauka", "-m", "inst_all", "--", "./a.out" }, 5, "sudo ./build/lauka -m inst_all -- ./a.out" },
	{ { "record", "-m", "inst_all,cycles", "--", "./a.out" }, 5, "sudo lauka record -m inst_all,cycles -- ./a.out" },
	{ { "record", "--", "sh -c 'echo hi'" }, 3, "sudo lauka record -- 'sh -c '\\''echo hi'\\'''" },
	{ { "lauka", "--", "" }, 3, "sudo lauka -- ''" },
	{ { "lauka", "--", "a$b" }, 3, "sudo lauka -- 'a$b'" },
	/* N5 (audit 3): the verb, not a program called "calibrate" */
	{ { "calibrate", "--backend", "kperf" }, 3, "sudo lauka calibrate --backend kperf" },
	{ { "calibrate" }, 1, "sudo lauka calibrate" },
};

START_TEST(test_command)
{
	char *s = sudo_command(cmd_cases[_i].argc, (char **)cmd_cases[_i].argv);
	ck_assert_str_eq(s, cmd_cases[_i].want);
	free(s);
}
END_TEST

START_TEST(test_user)
{
	struct sudo_user u;
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	ck_assert(!sudo_user(&u));
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	if (geteuid() != 0) {
		ck_assert(!sudo_user(&u));	/* not root: sudo variables are ignored */
		return;
	}
	ck_assert(sudo_user(&u));
	ck_assert_int_eq(u.uid, 65534);
	ck_assert_int_eq(u.gid, 65534);
	ck_assert(u.ngroups >= 1 && u.groups[0] == 65534);
	for (size_t i = 1; i < u.ngroups; i++)
		ck_assert_int_ne(u.groups[i], 0);
	if (u.name[0]) {
		sudo_user_env(&u);
		ck_assert_str_eq(getenv("USER"), u.name);
		ck_assert_str_eq(getenv("LOGNAME"), u.name);
		ck_assert_str_eq(getenv("HOME"), u.home);
	}
	setenv("SUDO_UID", "0", 1);	/* sudo by root: nothing to drop */
	ck_assert(!sudo_user(&u));
	setenv("SUDO_UID", "abc", 1);
	ck_assert(!sudo_user(&u));
}
END_TEST

/* Root's reads where the user can write: no link, a regular file, the expected owner. */
START_TEST(test_open_owned)
{
	char dir[] = "/tmp/check-sudo-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *f = xasprintf("%s/f", dir), *l = xasprintf("%s/l", dir), *p = xasprintf("%s/p", dir);
	FILE *w = fopen(f, "w");
	ck_assert_ptr_nonnull(w);
	fputs("x\n", w);
	fclose(w);
	ck_assert_int_eq(symlink(f, l), 0);
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	struct stat st;
	int fd = lk_open_owned(f, (long)geteuid(), &st);
	ck_assert_int_ge(fd, 0);
	ck_assert(S_ISREG(st.st_mode));
	close(fd);
	errno = 0;
	ck_assert_int_lt(lk_open_owned(l, -1, NULL), 0);
	ck_assert_int_eq(errno, ELOOP);
	ck_assert_int_lt(lk_open_owned(p, -1, NULL), 0);	/* does not block on the FIFO */
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_lt(lk_open_owned(f, (long)geteuid() + 1, NULL), 0);
	ck_assert_int_eq(errno, EPERM);
	unlink(f);
	unlink(l);
	unlink(p);
	rmdir(dir);
	free(f);
	free(l);
	free(p);
}
END_TEST

/*
 * Linux: the switch is the calling thread's alone (credentials(7)), so a thread
 * that needs root (the kperf reader on a Mac is the model) keeps it while the
 * main thread opens a file as the user.  glibc's seteuid() would have
 * switched this watcher too (nptl's setxid broadcast).  macOS's credentials
 * are the process's: nothing to test there (base/sudo.c).
 */
#ifdef __linux__
struct watcher {
	int go[2], back[2];
	uid_t seen;
};

static void *watch_euid(void *arg)
{
	struct watcher *w = arg;
	char b;
	if (read(w->go[0], &b, 1) == 1)
		w->seen = geteuid();
	ck_assert_int_eq((int)write(w->back[1], "x", 1), 1);
	return NULL;
}
#endif

START_TEST(test_as_user_thread)
{
#ifdef __linux__
	if (geteuid() != 0)
		return;	/* needs root, as sudo would give */
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	struct watcher w = { .seen = 12345 };
	ck_assert_int_eq(pipe(w.go), 0);
	ck_assert_int_eq(pipe(w.back), 0);
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, watch_euid, &w), 0);
	struct sudo_creds c;
	ck_assert_int_eq(sudo_as_user(&c), 1);
	ck_assert_int_eq((int)geteuid(), 65534);
	ck_assert_int_eq((int)write(w.go[1], "x", 1), 1);
	char b;
	ck_assert_int_eq((int)read(w.back[0], &b, 1), 1);
	sudo_as_root(&c);
	pthread_join(t, NULL);
	ck_assert_int_eq((int)w.seen, 0);
	ck_assert_int_eq((int)geteuid(), 0);
	for (int i = 0; i < 2; i++) {
		close(w.go[i]);
		close(w.back[i]);
	}
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
#endif
}
END_TEST

/* Under sudo (as root here), what is created in the user's name is the user's, and root comes back. */
START_TEST(test_as_user)
{
	if (geteuid() != 0)
		return;	/* needs root, as sudo would give */
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	struct sudo_creds c;
	ck_assert_int_eq(sudo_as_user(&c), 1);
	ck_assert_int_eq((int)geteuid(), 65534);
	ck_assert_int_eq((int)getegid(), 65534);
	struct sudo_creds again;
	ck_assert_int_eq(sudo_as_user(&again), 0);	/* already the user: nothing changes */
	sudo_as_root(&again);
	ck_assert_int_eq((int)geteuid(), 65534);
	sudo_as_root(&c);
	ck_assert_int_eq((int)geteuid(), 0);
	ck_assert_int_eq((int)getegid(), 0);
	/* a root-only directory refuses the user's file; a new file in /tmp is the user's */
	char dir[] = "/tmp/check-sudo-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	chmod(dir, 0755);
	char *f = xasprintf("%s/f", dir);
	ck_assert_int_lt(sudo_user_open(f, O_WRONLY | O_CREAT | O_EXCL, 0600), 0);
	ck_assert_int_eq(errno, EACCES);
	ck_assert_int_eq((int)geteuid(), 0);
	chmod(dir, 0777);
	int fd = sudo_user_open(f, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	struct stat st;
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_eq((int)st.st_uid, 65534);
	close(fd);
	unlink(f);
	rmdir(dir);
	free(f);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
}
END_TEST

extern Suite *sudo_suite(void);
Suite *sudo_suite(void)
{
	Suite *s = suite_create("sudo");
	TCase *tc = tcase_create("sudo");
	tcase_add_loop_test(tc, test_parse_ids, 0, (int)ARRAY_SIZE(id_cases));
	tcase_add_loop_test(tc, test_command, 0, (int)ARRAY_SIZE(cmd_cases));
	tcase_add_test(tc, test_user);
	tcase_add_test(tc, test_open_owned);
	tcase_add_test(tc, test_as_user);
	tcase_add_test(tc, test_as_user_thread);
	suite_add_tcase(s, tc);
	return s;
}
