/*
 * cmd/baselines.c: `lauka baselines [list | show NAME | delete NAME]`: the
 * baselines `record --save-baseline` stored in the database (catalog/db.h).
 *
 *   $ lauka baselines
 *   name   saved                  runner class   backend    commands
 *   main   2026-12-01 16:40 UTC   ci-x86         valgrind   2: parse, render
 */
#include "cmd/builtin.h"
#include "catalog/db.h"
#include "base/error.h"
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

static int list(struct db *db)
{
	struct db_baseline *all = NULL;
	size_t n = 0;
	char err[512];
	if (db_baseline_list(db, &all, &n, err, sizeof(err)) < 0) {
		error("%s", err);
		return EXIT_COUNTERS;
	}
	if (!n) {
		fprintf(stderr, "lauka: no baselines in '%s'; save one with lauka record --save-baseline NAME -- ...\n",
			db_path(db));
		return 0;
	}
	const char *hdr[5] = { "name", "saved", "runner class", "backend", "commands" };
	size_t w[4];
	for (int k = 0; k < 4; k++)
		w[k] = strlen(hdr[k]);
	char (*when)[40] = xcalloc(n, sizeof(*when));
	for (size_t i = 0; i < n; i++) {
		fmt_time(all[i].created_at, when[i], sizeof(when[i]));
		const char *cell[4] = { all[i].name, when[i], all[i].runner_class, all[i].backend };
		for (int k = 0; k < 4; k++)
			if (strlen(cell[k]) > w[k])
				w[k] = strlen(cell[k]);
	}
	for (int k = 0; k < 4; k++)
		printf("%-*s   ", (int)w[k], hdr[k]);
	printf("%s\n", hdr[4]);
	for (size_t i = 0; i < n; i++) {
		const char *cell[4] = { all[i].name, when[i], all[i].runner_class, all[i].backend };
		char *cmds = commands_of(&all[i]);
		for (int k = 0; k < 4; k++)
			printf("%-*s   ", (int)w[k], cell[k]);
		printf("%s\n", cmds);
		free(cmds);
		db_baseline_release(&all[i]);
	}
	free(when);
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

static int show(struct db *db, const char *name, bool color)
{
	struct db_baseline b;
	char err[512];
	int r = db_baseline_load(db, name, &b, err, sizeof(err));
	if (r < 0)
		return failed(db, r, err);
	char when[40];
	fmt_time(b.created_at, when, sizeof(when));
	printf("baseline       %s\nsaved          %s\nrunner class   %s\nbackend        %s\nlauka          %s\n"
	       "git commit     %s\n", b.name, when, b.runner_class, b.backend, b.lauka_version,
	       b.git_commit ? b.git_commit : "-");
	if (b.shell)
		printf("shell          %s\n", b.shell);
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
	db_baseline_release(&b);
	return 0;
}

static int delete(struct db *db, const char *name)
{
	char err[512];
	int r = db_baseline_delete(db, name, err, sizeof(err));
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
};

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

static const struct opt_spec baselines_options[] = {
	{ "--db", NULL, true, set_db },
	{ "--color", NULL, true, set_color },
};

int cmd_baselines(int argc, char **argv)
{
	struct baselines_opts o = { NULL, { NULL, NULL }, 0, term_color_auto(STDOUT_FILENO) };
	static const struct opt_verb verb = { "baselines", baselines_options, ARRAY_SIZE(baselines_options), add_word,
					      false };
	int next, pr = opts_parse(&verb, &o, argc, argv, &next);
	if (pr)
		return pr > 0 ? 0 : EXIT_USAGE;
	const char *dbpath = o.db, *const *words = o.words;
	bool color = o.color;
	const char *what = words[0] ? words[0] : "list";
	bool named = !strcmp(what, "show") || !strcmp(what, "delete");
	if (strcmp(what, "list") && !named) {
		error("unknown baselines action '%s'", what);
		tip("use lauka baselines [list | show NAME | delete NAME]");
		return EXIT_USAGE;
	}
	if (named != (words[1] != NULL)) {
		if (named)
			error("lauka baselines %s needs the name of a baseline", what);
		else
			error("lauka baselines list takes no name");
		return help_hint("baselines"), EXIT_USAGE;
	}
	struct db *db;
	char err[512];
	if (db_open(&db, dbpath, err, sizeof(err)) < 0) {
		error("%s", err);
		return EXIT_COUNTERS;
	}
	int rc = !strcmp(what, "list") ? list(db) : !strcmp(what, "show") ? show(db, words[1], color)
										   : delete(db, words[1]);
	db_close(db);
	return rc;
}
