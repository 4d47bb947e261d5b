/*
 * record/plan-baseline.c: the runner class of this run and, with --baseline,
 * the stored baseline it is compared with.  A comparison that would mean
 * nothing (another runner class, backend, set of commands or measurements)
 * is refused here, before anything runs; --save-baseline checks now that the
 * database can be written.
 */
#include "base/error.h"
#include "base/util.h"
#include "catalog/db.h"
#include "catalog/notes.h"
#include "machine/catalog.h"
#include "record/plan.h"
#include "record/record.h"
#include "stats/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* "<hostname>/<chip>": the machine id calibration stores verdicts under (machine/catalog.h). */
static char *machine_id(const struct record *rec)
{
	if (rec->cat && catalog_machine(rec->cat))
		return xstrdup(catalog_machine(rec->cat));
	char host[256] = "localhost";
	if (gethostname(host, sizeof(host) - 1) != 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	const struct lk_pmu *p = rec->cat ? catalog_pmu(rec->cat) : &rec->rpmu;
	return xasprintf("%s/%s", host, p->marketing_name && *p->marketing_name ? p->marketing_name : p->name);
}

/*
 * With --git the default class leaves the host name out ("<arch>/<chip>"):
 * CI jobs run on fresh machines with new names, and a class must name the
 * kind of machine, not the one machine.
 */
static char *machine_class(const struct record *rec)
{
	struct utsname u;
	const char *arch = uname(&u) == 0 ? u.machine : "unknown";
	const struct lk_pmu *p = rec->cat ? catalog_pmu(rec->cat) : &rec->rpmu;
	return xasprintf("%s/%s", arch, p->marketing_name && *p->marketing_name ? p->marketing_name : p->name);
}

static int open_db(struct record *rec)
{
	char err[512];
	if (rec->cat && catalog_db(rec->cat)) {
		rec->db = catalog_db(rec->cat);
		return 0;
	}
	if (db_open(&rec->db, rec->o.db, err, sizeof(err)) < 0) {
		error("baselines need the database: %s", err);
		return EXIT_COUNTERS;
	}
	rec->own_db = true;
	return 0;
}

static void list_baselines_tip(struct record *rec)
{
	struct db_baseline *all = NULL;
	size_t n = 0;
	char err[256];
	struct strbuf sb = STRBUF_INIT;
	if (db_baseline_list(rec->db, &all, &n, err, sizeof(err)) == 0)
		for (size_t i = 0; i < n; i++)
			strbuf_addf(&sb, "%s'%s'", i ? ", " : "", all[i].name);
	for (size_t i = 0; i < n; i++)
		db_baseline_release(&all[i]);
	free(all);
	if (n)
		tip("stored baselines: %s (lauka baselines lists them)", strbuf_str(&sb));
	else
		tip("save one first: lauka record --save-baseline %s -- ...", rec->o.baseline);
	strbuf_release(&sb);
}

/* Which baseline command each command is compared with, by --command-name or by position. */
static int match_commands(struct record *rec, size_t *match)
{
	const struct db_baseline *b = &rec->base;
	const char *bn = rec->o.baseline;
	if (b->ncmds != rec->ncmds) {
		error("baseline '%s' has %zu command%s, this run has %zu", bn, b->ncmds, b->ncmds == 1 ? "" : "s",
		      rec->ncmds);
		fix("give the same number of commands as when the baseline was saved");
		return EXIT_USAGE;
	}
	if (!rec->o.names.n) {
		for (size_t i = 0; i < rec->ncmds; i++)
			match[i] = i;
		return 0;
	}
	if (rec->o.names.n != rec->ncmds) {
		error("--baseline with --command-name needs a name for every command (%zu names, %zu commands)",
		      rec->o.names.n, rec->ncmds);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < rec->ncmds; i++) {
		size_t j;
		for (j = 0; j < b->ncmds && !(b->cmds[j].name && !strcmp(b->cmds[j].name, rec->cmds[i].name)); j++)
			;
		if (j == b->ncmds) {
			struct strbuf sb = STRBUF_INIT;
			for (size_t k = 0; k < b->ncmds; k++)
				strbuf_addf(&sb, "%s'%s'", k ? ", " : "", b->cmds[k].name ? b->cmds[k].name : "(unnamed)");
			error("baseline '%s' has no command named '%s'", bn, rec->cmds[i].name);
			tip("its commands are named %s", strbuf_str(&sb));
			strbuf_release(&sb);
			return EXIT_USAGE;
		}
		match[i] = j;
	}
	return 0;
}

/* The name in --baseline NAME[@REV] (malloc'd) and, with --git, REV (NULL without '@'). */
static char *baseline_name(const struct record *rec, const char **rev)
{
	const char *bn = rec->o.baseline, *at = rec->o.git ? strrchr(bn, '@') : NULL;
	*rev = at ? at + 1 : NULL;
	return at ? xasprintf("%.*s", (int)(at - bn), bn) : xstrdup(bn);
}

/*
 * --baseline NAME[@REV] --git: the note of REV, or of the nearest
 * first-parent ancestor of HEAD (HEAD excluded) that holds NAME for this
 * runner class.  Only this class is compared with; none is an error that
 * names the classes there are.
 */
static int load_git_baseline(struct record *rec)
{
	const char *rev;
	char *name = baseline_name(rec, &rev), err[512];
	struct notes_hit *hits = NULL;
	size_t n = 0;
	int found = 0;
	if (!*name || (rev && !*rev)) {
		error("--baseline '%s': give NAME or NAME@REV", rec->o.baseline);
		free(name);
		return EXIT_USAGE;
	}
	int r = notes_find(name, rev, rec->runner_class, 0, &hits, &n, &found, err, sizeof(err));
	if (r < 0) {
		error("%s", err);
		free(name);
		return r == -LK_ENOENT ? EXIT_USAGE : EXIT_COUNTERS;
	}
	int rc = 0;
	if (found) {
		for (size_t i = 0; i < n; i++)
			if (!strcmp(hits[i].b.runner_class, rec->runner_class)) {
				rec->base = hits[i].b;
				memset(&hits[i].b, 0, sizeof(hits[i].b));
				snprintf(rec->base_commit, sizeof(rec->base_commit), "%s", hits[i].commit);
				rec->have_base = true;
				break;
			}
	}
	/* Anyone may write a note: what it says is shown with control characters escaped. */
	for (size_t i = 0; i < n; i++)
		notes_baseline_printable(&hits[i].b);
	if (rec->have_base) {
		notes_baseline_printable(&rec->base);
		free(rec->base.runner_class);	/* the class it was found under (this run's, as typed) */
		rec->base.runner_class = xstrdup(rec->runner_class);
	} else if (found) {
		rc = EXIT_COUNTERS;	/* not reached: found means a line of this class */
	} else if (notes_find_skipped()) {
		/* Lines that may have been the baseline were not valid: comparing with nothing is not a pass. */
		char *shown = notes_printable(name);
		error("no usable baseline '%s' for runner class '%s' in the notes of %s: %zu line%s skipped (see the "
		      "warnings above)", shown, rec->runner_class, rev ? rev : "HEAD's first-parent ancestors",
		      notes_find_skipped(), notes_find_skipped() == 1 ? " was" : "s were");
		tip("the warnings name the commits: mend or remove those lines with git notes --ref=lauka edit COMMIT, or "
		    "save a baseline on a later commit (lauka record --git --save-baseline NAME -- ...)");
		free(shown);
		rc = EXIT_COUNTERS;
	} else if (!rev && rec->o.save_baseline && !strcmp(rec->o.save_baseline, name) && !n) {
		/* The first run of a CI set-up: nothing to compare with yet. */
		rec->first_baseline = true;
	} else {
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < n; i++) {
			bool dup = false;
			for (size_t k = 0; k < i; k++)
				dup |= !strcmp(hits[k].b.runner_class, hits[i].b.runner_class);
			if (!dup)
				strbuf_addf(&sb, "%s'%s'", sb.len ? ", " : "", hits[i].b.runner_class);
		}
		const char *where = rev ? rev : "HEAD's first-parent ancestors";
		if (n) {
			error("no baseline '%s' for runner class '%s' in the notes of %s; it exists for %s", name,
			      rec->runner_class, where, strbuf_str(&sb));
			fix("compare on a runner of one of those classes, or name this one with --runner-class NAME as when "
			    "the baseline was saved");
		} else {
			error("no baseline '%s' in the notes of %s (refs/notes/lauka)", name, where);
			tip("save one on the main branch with lauka record --git --save-baseline %s -- ..., then push it: "
			    "git push origin refs/notes/lauka; fetch it here with git fetch origin refs/notes/lauka:refs/notes/lauka",
			    name);
		}
		strbuf_release(&sb);
		rc = EXIT_USAGE;
	}
	notes_hits_free(hits, n);
	free(name);
	return rc;
}

/*
 * Is s safe to offer inside a fix: command?  A baseline from a note is
 * anyone's text: only names of letters, digits and -_.:/ (and the space and
 * '=' of a shell like "sh -e") go into a command line lauka suggests.
 */
static bool plain(const char *s)
{
	return *s && strlen(s) < 200 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/ =,") == strlen(s);
}

/*
 * A gate compares with the baseline's spread: a gated measurement with
 * fewer than two counted runs in the baseline (0 or 1 runs, or null
 * samples) would check nothing, and "0 of 0 gate checks failed" is not a
 * pass.  An error instead.  A deterministic backend's count (valgrind) has
 * no spread: its one run is exact, and one is enough; none never is.
 */
static int gates_usable(struct record *rec)
{
	for (size_t g = 0; g < rec->ngates; g++)
		for (size_t i = 0; i < rec->ncmds; i++) {
			size_t n = rec->cmds[i].ref[rec->gates[g].col].n, need = record_col_exact(rec, rec->gates[g].col) ? 1 : 2;
			if (n >= need)
				continue;
			error("baseline '%s' has %zu counted run%s of '%s' for command %zu: gate '%s' needs %s", rec->o.baseline,
			      n, n == 1 ? "" : "s", rec->gates[g].name, i + 1, rec->gates[g].spec,
			      need == 1 ? "one" : "2 or more");
			tip("save the baseline again with %s (-n), on a machine that counts '%s'",
			    need == 1 ? "a counted run" : "two runs or more", rec->gates[g].name);
			return EXIT_COUNTERS;
		}
	return 0;
}

/* Load --baseline NAME and refuse a comparison that would mean nothing. */
/*
 * A gate that needs a measurement the baseline lacks (issue 37 T7): measuring
 * what the baseline has would drop the gated one again, so the fix: is to
 * save the baseline with it.  bcol[c]: column c's index in the baseline
 * (nmeas: not there); all: the baseline's measurements, comma-separated.
 */
static bool gate_needs_fix(const struct record *rec, const size_t *bcol, size_t nmeas, const char *bn,
			   const char *all)
{
	for (size_t g = 0; g < rec->ngates; g++) {
		const struct record_gate *gt = &rec->gates[g];
		if (gt->col >= rec->ncols || bcol[gt->col] != nmeas)
			continue;
		const char *name = rec->cols[gt->col].ev->name;
		fix("gate '%s' needs %s, which baseline '%s' was saved without: save the baseline again with it "
		    "(--save-baseline %s -m %s%s%s), or gate on a measurement it has", gt->spec, name, bn, bn, all,
		    *all ? "," : "", name);
		return true;
	}
	return false;
}

static int plan_baseline(struct record *rec)
{
	const char *bn = rec->o.baseline;
	char err[512];
	int r;
	if (rec->o.git) {
		if ((r = load_git_baseline(rec)) || !rec->have_base)
			return r;
	} else {
		r = db_baseline_load(rec->db, bn, &rec->base, err, sizeof(err));
		if (r == -LK_ENOENT && rec->o.save_baseline && !strcmp(rec->o.save_baseline, bn)) {
			rec->first_baseline = true;
			return 0;
		}
		if (r == -LK_ENOENT) {
			error("%s", err);
			list_baselines_tip(rec);
			return EXIT_USAGE;
		}
		if (r < 0) {
			error("%s", err);
			return EXIT_COUNTERS;
		}
		rec->have_base = true;
	}
	const struct db_baseline *b = &rec->base;
	if (strcmp(b->runner_class, rec->runner_class)) {
		if (!rec->o.any_runner || rec->o.git) {
			error("baseline '%s' was recorded on runner class '%s', this is runner class '%s'", bn,
			      b->runner_class, rec->runner_class);
			fix("compare on the same class of machine (name it with --runner-class NAME when saving and comparing), "
			    "or pass --any-runner to compare anyway");
			return EXIT_USAGE;
		}
		warning("comparing with baseline '%s' from runner class '%s' on runner class '%s' (--any-runner)", bn,
			b->runner_class, rec->runner_class);
	}
	const char *backend = rec->be ? rec->be->name : "rusage";
	if (strcmp(b->backend, backend)) {
		error("baseline '%s' was measured with backend '%s', this run uses '%s'", bn, b->backend, backend);
		if (plain(b->backend))
			fix("add --backend %s", b->backend);
		return EXIT_USAGE;
	}
	/* Under another shell (-S) every count holds that shell's start-up: not comparable. */
	const char *bsh = b->shell ? b->shell : "", *sh = rec->o.shell ? rec->o.shell : "";
	if (strcmp(bsh, sh)) {
		error("baseline '%s' ran its commands %s%s%s, this run %s%s%s", bn, *bsh ? "under the shell '" : "without a shell",
		      bsh, *bsh ? "'" : "", *sh ? "under the shell '" : "without a shell", sh, *sh ? "'" : "");
		if (*bsh && plain(bsh))
			fix("add -S '%s'", bsh);
		else if (*bsh)
			tip("run under the shell the baseline names, as it is shown above");
		else
			fix("drop -S");
		return EXIT_USAGE;
	}
	size_t *match = xcalloc(rec->ncmds, sizeof(*match));
	if ((r = match_commands(rec, match))) {
		free(match);
		return r;
	}
	/* The same measurements, in any order (names are case-insensitive); instructions:u (user mode
	 * only) is not instructions (user + kernel): a baseline of the other mode has other measurements. */
	char **meas = xcalloc(rec->ncols ? rec->ncols : 1, sizeof(*meas));
	for (size_t c = 0; c < rec->ncols; c++)
		meas[c] = record_col_meas(rec, c);
	size_t *bcol = xcalloc(rec->ncols ? rec->ncols : 1, sizeof(*bcol));
	struct strbuf missing = STRBUF_INIT, extra = STRBUF_INIT;
	for (size_t c = 0; c < rec->ncols; c++) {
		size_t m;
		for (m = 0; m < b->nmeas && lk_strcasecmp(b->meas[m], meas[c]); m++)
			;
		bcol[c] = m;
		if (m == b->nmeas)
			strbuf_addf(&extra, "%s%s", extra.len ? ", " : "", meas[c]);
	}
	for (size_t m = 0; m < b->nmeas; m++) {
		size_t c;
		for (c = 0; c < rec->ncols && lk_strcasecmp(b->meas[m], meas[c]); c++)
			;
		if (c == rec->ncols)
			strbuf_addf(&missing, "%s%s", missing.len ? ", " : "", b->meas[m]);
	}
	if (missing.len || extra.len) {
		struct strbuf all = STRBUF_INIT;
		bool ok = true;
		for (size_t m = 0; m < b->nmeas; m++) {
			strbuf_addf(&all, "%s%s", m ? "," : "", b->meas[m]);
			ok &= plain(b->meas[m]);
		}
		error("baseline '%s' has other measurements than this run:%s%s%s%s", bn,
		      missing.len ? " not measured now: " : "", strbuf_str(&missing),
		      extra.len ? (missing.len ? "; not in the baseline: " : " not in the baseline: ") : "",
		      strbuf_str(&extra));
		if (!gate_needs_fix(rec, bcol, b->nmeas, bn, strbuf_str(&all)) && ok)
			fix("measure what the baseline has: -m %s", strbuf_str(&all));
		strbuf_release(&all);
		r = EXIT_USAGE;
	}
	strbuf_release(&missing);
	strbuf_release(&extra);
	for (size_t c = 0; c < rec->ncols; c++)
		free(meas[c]);
	free(meas);
	for (size_t i = 0; i < rec->ncmds && !r; i++) {
		const struct db_baseline_cmd *bc = &b->cmds[match[i]];
		rec->cmds[i].ref = xcalloc(rec->ncols ? rec->ncols : 1, sizeof(struct lk_stats));
		rec->cmds[i].ref_samples = xcalloc(rec->ncols ? rec->ncols : 1, sizeof(*rec->cmds[i].ref_samples));
		rec->cmds[i].ref_runs = bc->runs;
		for (size_t c = 0; c < rec->ncols; c++) {
			stats_compute(bc->samples[bcol[c]], bc->runs, &rec->cmds[i].ref[c]);
			rec->cmds[i].ref_samples[c] = bc->samples[bcol[c]];
		}
	}
	free(match);
	free(bcol);
	return r ? r : gates_usable(rec);
}

char *record_col_meas(const struct record *rec, size_t c)
{
	const struct record_col *col = &rec->cols[c];
	return col->mode ? xasprintf("%s:%c", col->ev->name, col->mode) : xstrdup(col->ev->name);
}

int plan_runner_class(struct record *rec)
{
	rec->runner_class = rec->o.runner_class ? xstrdup(rec->o.runner_class)
			    : rec->o.git ? machine_class(rec) : machine_id(rec);
	if (!rec->o.baseline && !rec->o.save_baseline) {
		if (rec->o.any_runner || rec->o.runner_class || rec->o.git) {
			error("%s only applies with --baseline or --save-baseline",
			      rec->o.any_runner ? "--any-runner" : rec->o.git ? "--git" : "--runner-class");
			return EXIT_USAGE;
		}
		return 0;
	}
	if (rec->o.save_baseline && !*rec->o.save_baseline)
		return error("--save-baseline needs a name"), EXIT_USAGE;
	for (const char *c = rec->o.save_baseline ? rec->o.save_baseline : ""; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			error("--save-baseline name holds a control character (byte 0x%02x); it could not be shown or typed back",
			      (unsigned char)*c);
			fix("name it with printable characters");
			return EXIT_USAGE;
		}
	if (rec->o.git) {
		char err[512];
		if (rec->o.any_runner) {
			error("--any-runner does not apply with --git: git notes keep one baseline per runner class");
			fix("name the class to compare with: --runner-class NAME");
			return EXIT_USAGE;
		}
		if (rec->o.save_baseline && strchr(rec->o.save_baseline, '@')) {
			error("--save-baseline '%s': a baseline is saved on HEAD; leave out '@'", rec->o.save_baseline);
			return EXIT_USAGE;
		}
		if (notes_check_repo(err, sizeof(err)) < 0) {
			error("%s", err);
			return EXIT_USAGE;
		}
		return rec->o.baseline ? plan_baseline(rec) : 0;
	}
	int r = open_db(rec);
	if (r)
		return r;
	/* The baseline is stored after every run: find out now that it cannot be. */
	char err[512];
	if (rec->o.save_baseline && db_check_writable(rec->db, err, sizeof(err)) < 0) {
		error("%s", err);
		tip("--save-baseline stores the runs in the database; nothing was measured");
		return EXIT_COUNTERS;
	}
	return rec->o.baseline ? plan_baseline(rec) : 0;
}
