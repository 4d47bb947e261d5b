/* check_sudo.c: SUDO_UID/SUDO_GID parsing, the sudo fix line, the invoking user. */
#include <check.h>
#include <stdlib.h>
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

extern Suite *sudo_suite(void);
Suite *sudo_suite(void)
{
	Suite *s = suite_create("sudo");
	TCase *tc = tcase_create("sudo");
	tcase_add_loop_test(tc, test_parse_ids, 0, (int)ARRAY_SIZE(id_cases));
	tcase_add_loop_test(tc, test_command, 0, (int)ARRAY_SIZE(cmd_cases));
	tcase_add_test(tc, test_user);
	suite_add_tcase(s, tc);
	return s;
}
