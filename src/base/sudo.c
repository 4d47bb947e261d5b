/* base/sudo.c: the invoking user under sudo, and the sudo fix line (see base/sudo.h). */
#include "base/sudo.h"
#include "base/util.h"

#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
