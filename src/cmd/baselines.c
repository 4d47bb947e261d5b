/*
 * cmd/baselines.c: `lauka baselines [list | show NAME | delete NAME]`: the
 * baselines `record --save-baseline` stored in the database (catalog/db.h).
 *
 *   $ lauka baselines
 *   name   saved                  runner class   backend    commands
 *   main   2026-12-01 16:40 UTC   ci-x86         valgrind   2: parse, render
 *
 * With --git the same for the baselines in git notes (catalog/notes.h):
 * list has a commit column, show and delete take NAME or NAME@REV.  A name
 * may have one baseline per runner class: show shows every class it finds
 * (--runner-class one), delete removes one class (--runner-class, or the
 * only one there is), every class only with --all-classes.  What a note says
 * is shown with its control characters escaped: anyone can write one.
 */
#include "cmd/builtin.h"
#include "catalog/db.h"
#include "catalog/notes.h"
#include "base/error.h"
#include "base/text.h"
#include "cmd/options.h"
#include "base/progress.h"
#include "output/report.h"
#include "stats/stats.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void fmt_time(long long t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (gmtime_r(&tt, &tm))
		strftime(buf, len, "%Y-%m-%d %H:%M UTC", &tm);
	else
		snprintf(buf, len, "%lld", t);
}

static char *commands_of(const struct db_baseline *b)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%zu:", b->ncmds);
	for (size_t c = 0; c < b->ncmds; c++)
		strbuf_addf(&sb, "%s %s", c ? "," : "", b->cmds[c].name ? b->cmds[c].name : b->cmds[c].command);
	char *out = xstrdup(strbuf_str(&sb));
	strbuf_release(&sb);
	return out;
}

/* The table of baselines; commits[i] (with --git) is the commit whose note holds all[i]. */
static void print_list(const struct db_baseline *all, const char *const *commits, size_t n)
{
	const char *hdr[6] = { "commit", "name", "saved", "runner class", "backend", "commands" };
	int first = commits ? 0 : 1;
	size_t w[5];
	for (int k = 0; k < 5; k++)
		w[k] = strlen(hdr[k]);
	char (*when)[40] = xcalloc(n ? n : 1, sizeof(*when));
	for (size_t i = 0; i < n; i++) {
		fmt_time(all[i].created_at, when[i], sizeof(when[i]));
		const char *cell[5] = { commits ? commits[i] : "", all[i].name, when[i], all[i].runner_class, all[i].backend };
		for (int k = first; k < 5; k++)
			if (strlen(cell[k]) > w[k])
				w[k] = strlen(cell[k]);
	}
	/*
	 * Each row through text_print: on a terminal narrower than the row, the commands wrap under
	 * their column (or under a 4-space indent when the columns before them are already wide).
	 */
	size_t at = 0;
	struct strbuf row = { 0 };
	for (int k = first; k < 5; k++) {
		strbuf_addf(&row, "%-*s   ", (int)w[k], hdr[k]);
		at += w[k] + 3;
	}
	size_t indent = at <= 48 ? at : 4;
	strbuf_addf(&row, "%s", hdr[5]);
	fflush(stderr);
	text_print(stdout, strbuf_str(&row), indent);
	for (size_t i = 0; i < n; i++) {
		const char *cell[5] = { commits ? commits[i] : "", all[i].name, when[i], all[i].runner_class, all[i].backend };
		char *cmds = commands_of(&all[i]);
		strbuf_reset(&row);
		for (int k = first; k < 5; k++)
			strbuf_addf(&row, "%-*s   ", (int)w[k], cell[k]);
		strbuf_addf(&row, "%s", cmds);
		text_print(stdout, strbuf_str(&row), indent);
		free(cmds);
	}
	strbuf_release(&row);
	free(when);
}

/* Keep the baselines of runner class cls (all when NULL); the count kept.  commits (or NULL) follow. */
static size_t of_class(struct db_baseline *all, const char **commits, size_t n, const char *cls)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (cls && strcmp(all[i].runner_class, cls)) {
			db_baseline_release(&all[i]);
			continue;
		}
		if (commits)
			commits[k] = commits[i];
		all[k++] = all[i];
	}
	return k;
}

static int list(struct db *db, const char *cls)
{
	struct db_baseline *all = NULL;
	size_t n = 0;
	char err[512];
	if (db_baseline_list(db, &all, &n, err, sizeof(err)) < 0) {
		error("%s", err);
		return EXIT_COUNTERS;
	}
	n = of_class(all, NULL, n, cls);
	if (!n && cls) {
		fprintf(stderr, "lauka: no baselines of runner class '%s' in '%s'\n", cls, db_path(db));
		free(all);
		return 0;
	}
	if (!n) {
		fprintf(stderr, "lauka: no baselines in '%s'; save one with lauka record --save-baseline NAME -- ...\n",
			db_path(db));
		return 0;
	}
	print_list(all, NULL, n);
	for (size_t i = 0; i < n; i++)
		db_baseline_release(&all[i]);
	free(all);
	return 0;
}

static void no_such(struct db *db, const char *err)
{
	error("%s", err);
	struct db_baseline *all = NULL;
	size_t n = 0;
	char e2[256];
	struct strbuf sb = STRBUF_INIT;
	if (db_baseline_list(db, &all, &n, e2, sizeof(e2)) == 0)
		for (size_t i = 0; i < n; i++) {
			strbuf_addf(&sb, "%s'%s'", i ? ", " : "", all[i].name);
			db_baseline_release(&all[i]);
		}
	free(all);
	if (n)
		tip("stored baselines: %s", strbuf_str(&sb));
	strbuf_release(&sb);
}

/* A failed load or delete of a named baseline: its message and exit code (an unknown name is a usage error). */
static int failed(struct db *db, int r, const char *err)
{
	if (r == -LK_ENOENT) {
		no_such(db, err);
		return EXIT_USAGE;
	}
	error("%s", err);
	return EXIT_COUNTERS;
}

static void show_baseline(const struct db_baseline *bp, const char *commit, bool color);

/* --runner-class with the database, where a name has one baseline: it must be of that class. */
static bool class_matches(const struct db_baseline *b, const char *cls)
{
	if (!cls || !strcmp(b->runner_class, cls))
		return true;
	error("baseline '%s' is of runner class '%s', not '%s'", b->name, b->runner_class, cls);
	return false;
}

static int show(struct db *db, const char *name, const char *cls, bool color)
{
	struct db_baseline b;
	char err[512];
	int r = db_baseline_load(db, name, &b, err, sizeof(err));
	if (r < 0)
		return failed(db, r, err);
	if (!class_matches(&b, cls)) {
		db_baseline_release(&b);
		return EXIT_USAGE;
	}
	show_baseline(&b, NULL, color);
	db_baseline_release(&b);
	return 0;
}

static void show_baseline(const struct db_baseline *bp, const char *commit, bool color)
{
	struct db_baseline b = *bp;
	char when[40];
	fmt_time(b.created_at, when, sizeof(when));
	printf("baseline       %s\nsaved          %s\nrunner class   %s\nbackend        %s\nlauka          %s\n"
	       "git commit     %s\n", b.name, when, b.runner_class, b.backend, b.lauka_version,
	       b.git_commit ? b.git_commit : "-");
	if (b.shell)
		printf("shell          %s\n", b.shell);
	if (commit)
		printf("note of        %s (%s)\n", commit, NOTES_REF);
	if (b.fingerprint)
		printf("environment    %s\n", b.fingerprint);
	printf("\n");
	struct report_opts ro = { .color = color, .width = term_columns(STDOUT_FILENO) };
	for (size_t i = 0; i < b.nmeas; i++)
		if (strlen(b.meas[i]) > ro.name_width)
			ro.name_width = strlen(b.meas[i]);
	struct report_row *rows = xcalloc(b.nmeas ? b.nmeas : 1, sizeof(*rows));
	for (size_t c = 0; c < b.ncmds; c++) {
		const struct db_baseline_cmd *bc = &b.cmds[c];
		for (size_t m = 0; m < b.nmeas; m++) {
			rows[m] = (struct report_row){ .name = b.meas[m], .unit = b.units[m] };
			stats_compute(bc->samples[m], bc->runs, &rows[m].st);
			rows[m].not_counted = bc->runs && !rows[m].st.n;	/* NULL in every run */
		}
		char *text = bc->name ? xasprintf("%s (%s)", bc->name, bc->command) : xstrdup(bc->command);
		report_block(stdout, &ro, (unsigned)(c + 1), bc->runs, text, rows, b.nmeas);
		free(text);
	}
	free(rows);
}

/* ---- --git: the baselines in git notes ---- */

static int git_failed(int r, const char *err)
{
	error("%s", err);
	return r == -LK_ENOENT ? EXIT_USAGE : EXIT_COUNTERS;
}

static int git_list(const char *cls)
{
	struct notes_hit *hits = NULL;
	size_t n = 0;
	char err[512];
	int r = notes_list(&hits, &n, err, sizeof(err));
	if (r < 0)
		return git_failed(r, err);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (cls && strcmp(hits[i].b.runner_class, cls)) {
			db_baseline_release(&hits[i].b);
			continue;
		}
		notes_baseline_printable(&hits[i].b);	/* anyone may write a note: no control character reaches the terminal */
		hits[k++] = hits[i];
	}
	n = k;
	if (!n && cls) {
		fprintf(stderr, "lauka: no baselines of runner class '%s' in %s\n", cls, NOTES_REF);
		notes_hits_free(hits, n);
		return 0;
	}
	if (!n) {
		fprintf(stderr, "lauka: no baselines in %s; save one with lauka record --git --save-baseline NAME -- ...\n",
			NOTES_REF);
		return 0;
	}
	struct db_baseline *all = xcalloc(n, sizeof(*all));
	const char **commits = xcalloc(n, sizeof(*commits));
	char (*shorts)[13] = xcalloc(n, sizeof(*shorts));
	for (size_t i = 0; i < n; i++) {
		all[i] = hits[i].b;
		snprintf(shorts[i], sizeof(shorts[i]), "%.12s", hits[i].commit);
		commits[i] = shorts[i];
	}
	print_list(all, commits, n);
	free(all);
	free(commits);
	free(shorts);
	notes_hits_free(hits, n);
	return 0;
}

/* NAME or NAME@REV: the name (malloc'd) and REV or NULL. */
static char *split_rev(const char *arg, const char **rev)
{
	const char *at = strrchr(arg, '@');
	*rev = at ? at + 1 : NULL;
	return at ? xasprintf("%.*s", (int)(at - arg), arg) : xstrdup(arg);
}

/* show NAME[@REV]: REV's note, or the nearest first-parent ancestor's from HEAD on; every runner class. */
static int git_show(const char *arg, const char *cls, bool color)
{
	const char *rev;
	char *name = split_rev(arg, &rev), err[512];
	struct notes_hit *hits = NULL;
	size_t n = 0;
	int found = 0;
	int r = notes_find(name, rev, cls, 1, &hits, &n, &found, err, sizeof(err));
	if (r < 0) {
		free(name);
		return git_failed(r, err);
	}
	if (!found) {
		error("no baseline '%s'%s%s%s in the notes of %s (%s)", name, cls ? " of runner class '" : "", cls ? cls : "",
		      cls ? "'" : "", rev ? rev : "HEAD or its first-parent ancestors", NOTES_REF);
		tip("lauka baselines --git lists them");
		notes_hits_free(hits, n);
		free(name);
		return EXIT_USAGE;
	}
	/* Every runner class found on that commit, each with its own block; the list first when there are several. */
	if (n > 1) {
		printf("%zu runner classes have baseline '%s' in the note of %.12s:", n, name, hits[0].commit);
		for (size_t i = 0; i < n; i++) {
			char *c = notes_printable(hits[i].b.runner_class);
			printf("%s '%s'", i ? "," : "", c);
			free(c);
		}
		printf("\n\n");
	}
	for (size_t i = 0; i < n; i++) {
		if (i)
			printf("\n");
		notes_baseline_printable(&hits[i].b);
		show_baseline(&hits[i].b, hits[i].commit, color);
	}
	notes_hits_free(hits, n);
	free(name);
	return 0;
}

static int git_delete(const char *arg, const char *cls, bool all_classes)
{
	const char *rev;
	char *name = split_rev(arg, &rev), err[512];
	size_t removed = 0;
	int r = notes_delete(name, rev, cls, all_classes, &removed, err, sizeof(err));
	if (r < 0) {
		int rc = git_failed(r, err);
		if (r == -LK_ENOENT)
			tip("lauka baselines --git lists them");
		if (r == -LK_EBUSY) {
			fix("name the one to delete with --runner-class NAME (lauka baselines --git show %s lists them), or "
			    "delete them all with --all-classes", arg);
			rc = EXIT_USAGE;
		}
		free(name);
		return rc;
	}
	fprintf(stderr, "lauka: deleted baseline '%s' from the note of %s (%zu runner class%s)\n", name,
		rev ? rev : "HEAD", removed, removed == 1 ? "" : "es");
	free(name);
	return 0;
}

static int delete(struct db *db, const char *name, const char *cls)
{
	char err[512];
	struct db_baseline b;
	int r = cls ? db_baseline_load(db, name, &b, err, sizeof(err)) : 0;
	if (r < 0)
		return failed(db, r, err);
	if (cls) {
		bool ok = class_matches(&b, cls);
		db_baseline_release(&b);
		if (!ok)
			return EXIT_USAGE;
	}
	r = db_baseline_delete(db, name, err, sizeof(err));
	if (r < 0)
		return failed(db, r, err);
	fprintf(stderr, "lauka: deleted baseline '%s'\n", name);
	return 0;
}

struct baselines_opts {
	const char *db;
	const char *words[2];	/* the action and its name */
	size_t nwords;
	bool color;
	bool git;		/* --git: the baselines in git notes */
	const char *runner_class;	/* --runner-class: only this class's */
	bool all_classes;	/* --all-classes: delete every class's */
};

static int set_class(void *ctx, const char *v)
{
	if (!*v) {
		error("--runner-class needs a name");
		return -1;
	}
	((struct baselines_opts *)ctx)->runner_class = v;
	return 0;
}

static int set_all_classes(void *ctx, const char *v)
{
	(void)v;
	((struct baselines_opts *)ctx)->all_classes = true;
	return 0;
}

static int set_db(void *ctx, const char *v)
{
	((struct baselines_opts *)ctx)->db = v;
	return 0;
}

static int set_color(void *ctx, const char *v)
{
	struct baselines_opts *o = ctx;
	int c = opt_color(v);
	if (c < 0)
		return -1;
	o->color = c == OPT_COLOR_ANSI || (c == OPT_COLOR_AUTO && o->color);
	return 0;
}

static int add_word(void *ctx, const char *a)
{
	struct baselines_opts *o = ctx;
	if (o->nwords == 2) {
		error("unexpected argument '%s'", a);
		help_hint("baselines");
		return -1;
	}
	o->words[o->nwords++] = a;
	return 0;
}

static int set_git(void *ctx, const char *v)
{
	(void)v;
	((struct baselines_opts *)ctx)->git = true;
	return 0;
}

static const struct opt_spec baselines_options[] = {
	{ "--git", NULL, false, set_git },
	{ "--db", NULL, true, set_db },
	{ "--color", NULL, true, set_color },
	{ "--runner-class", NULL, true, set_class },
	{ "--all-classes", NULL, false, set_all_classes },
};

int cmd_baselines(int argc, char **argv)
{
	struct baselines_opts o = { NULL, { NULL, NULL }, 0, term_color_auto(STDOUT_FILENO), false, NULL, false };
	static const struct opt_verb verb = { "baselines", baselines_options, ARRAY_SIZE(baselines_options), add_word,
					      false };
	int next, pr = opts_parse(&verb, &o, argc, argv, &next);
	if (pr)
		return pr > 0 ? 0 : EXIT_USAGE;
	const char *dbpath = o.db, *const *words = o.words;
	bool color = o.color, use_git = o.git;
	const char *what = words[0] ? words[0] : "list";
	bool named = !strcmp(what, "show") || !strcmp(what, "delete");
	if (strcmp(what, "list") && !named) {
		error("unknown baselines action '%s'", what);
		tip("use lauka baselines [--git] [list | show NAME | delete NAME]");
		return EXIT_USAGE;
	}
	if (named != (words[1] != NULL)) {
		if (named)
			error("lauka baselines %s needs the name of a baseline", what);
		else
			error("lauka baselines list takes no name");
		return help_hint("baselines"), EXIT_USAGE;
	}
	const char *cls = o.runner_class;
	if (o.all_classes && (strcmp(what, "delete") || cls)) {
		error(cls ? "--all-classes and --runner-class both say which classes: give one"
			  : "--all-classes only applies to lauka baselines delete");
		return help_hint("baselines"), EXIT_USAGE;
	}
	if (use_git) {
		if (dbpath) {
			error("--db and --git name two different stores: give one");
			return help_hint("baselines"), EXIT_USAGE;
		}
		return !strcmp(what, "list") ? git_list(cls) : !strcmp(what, "show") ? git_show(words[1], cls, color)
										     : git_delete(words[1], cls, o.all_classes);
	}
	struct db *db;
	char err[512];
	if (db_open(&db, dbpath, err, sizeof(err)) < 0) {
		error("%s", err);
		return EXIT_COUNTERS;
	}
	int rc = !strcmp(what, "list") ? list(db, cls) : !strcmp(what, "show") ? show(db, words[1], cls, color)
										       : delete(db, words[1], cls);
	db_close(db);
	return rc;
}
