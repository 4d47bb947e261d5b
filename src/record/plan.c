/*
 * record/plan.c: the plan phase of record.  Everything that can be wrong
 * with a request is found here, before the first run, so a bad request
 * never leaves a half-printed table: options, quoting, whether each command
 * and hook exists, names, whether the events can be counted together, the
 * gates, the baseline (its runner class, backend, commands and events) and
 * whether the export files can be written.
 */
#include "cmd/builtin.h"
#include "base/cmdline.h"
#include "base/error.h"
#include "base/exec-path.h"
#include "output/export.h"
#include "cmd/options.h"
#include "output/plot-out.h"
#include "stats/gate.h"
#include "record/record.h"
#include "catalog/sched.h"
#include "stats/stats.h"
#include "base/sudo.h"
#include "machine/xctrace-slots.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const export_opt[EXPORT_COUNT] = { "--export-json", "--export-csv", "--export-markdown" };

/*
 * Words after `--` that look like options or bare numbers are almost always
 * an unquoted command line split by the shell: `lauka -- myapp --flag 1`.
 * An empty word is an empty command, reported as such later.
 */
static int check_split_mistake(const struct record_opts *o)
{
	for (size_t i = 1; i < o->ncmds; i++) {
		const char *c = o->cmds[i];
		if (*c && (c[0] == '-' || strspn(c, "0123456789.") == strlen(c))) {
			struct strbuf sb = STRBUF_INIT;
			for (size_t j = 0; j < o->ncmds; j++)
				strbuf_addf(&sb, "%s%s", j ? " " : "", o->cmds[j]);
			error("command '%s' looks like an argument of the previous command", c);
			fix("wrap each command in quotes: lauka -- '%s'", strbuf_str(&sb));
			strbuf_release(&sb);
			return -1;
		}
	}
	return 0;
}

/* Resolve argv[0] into prog->path; 0, or the exit code (127/126) after an error line. */
static int resolve(struct record_prog *p, const char *what)
{
	int r = exec_resolve(p->argv[0], p->path, sizeof(p->path));
	if (r == -ENAMETOOLONG) {
		error("%s path is longer than the system's limit (%zu bytes): '%.60s...'", what, sizeof(p->path) - 1,
		      p->argv[0]);
		return 126;
	}
	if (r == -ENOENT) {
		error("%s not found: '%s'", what, p->argv[0]);
		return 127;
	}
	if (r < 0) {
		error("%s is not executable: '%s'", what, p->argv[0]);
		return 126;
	}
	return 0;
}

/* `SHELL -c TEXT` (-S/--shell). */
static void shell_prog(const struct record *rec, const char *text, struct record_prog *p)
{
	size_t n = 0;
	while (rec->shell_argv[n])
		n++;
	p->text = text;
	p->argv = xcalloc(n + 3, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		p->argv[i] = xstrdup(rec->shell_argv[i]);
	p->argv[n] = xstrdup("-c");
	p->argv[n + 1] = xstrdup(text);
	snprintf(p->path, sizeof(p->path), "%s", rec->shell_path);
}

/*
 * Turn one command or hook string into a program: quoted like a command
 * (base/cmdline.c) and run without a shell, or `SHELL -c TEXT` in shell mode.
 * `what` names it in errors ("command 2", "--prepare").
 */
static int make_prog(struct record *rec, const char *text, const char *what, bool is_cmd, struct record_prog *p)
{
	p->text = text;
	if (!*text || strspn(text, " \t\n") == strlen(text)) {
		error("%s is empty", what);
		return EXIT_USAGE;
	}
	if (rec->shell_argv) {
		shell_prog(rec, text, p);
		return 0;
	}
	char bad = 0;
	switch (cmdline_split(text, &p->argv, &bad)) {
	case CMDLINE_OK:
		break;
	case CMDLINE_EMPTY:
		error("%s is empty", what);
		return EXIT_USAGE;
	case CMDLINE_UNBALANCED:
		error("unbalanced quote or trailing backslash in %s '%s'", is_cmd ? "command" : what, text);
		fix("close every ' and \" inside it");
		return EXIT_USAGE;
	case CMDLINE_META:
		error("%s '%s' contains the shell metacharacter '%c'; lauka runs commands without a shell",
		      is_cmd ? "command" : what, text, bad);
		fix("run it through a shell: lauka -- \"sh -c '%s'\", or give -S sh to run every command through sh", text);
		return EXIT_USAGE;
	}
	return resolve(p, is_cmd ? "command" : what);
}

static int plan_shell(struct record *rec)
{
	const char *sh = rec->o.shell;
	if (!sh)
		return 0;
	char bad = 0;
	if (cmdline_split(sh, &rec->shell_argv, &bad) != CMDLINE_OK) {
		error("invalid --shell '%s'", sh);
		fix("name a shell and its options, e.g. -S sh or -S 'bash --norc'");
		return EXIT_USAGE;
	}
	struct record_prog p = { .text = sh, .argv = rec->shell_argv };
	int r = resolve(&p, "shell");
	snprintf(rec->shell_path, sizeof(rec->shell_path), "%s", p.path);
	return r;
}

static int plan_commands(struct record *rec)
{
	const struct record_opts *o = &rec->o;
	if (check_split_mistake(o) < 0)
		return EXIT_USAGE;
	int r;
	if ((r = plan_shell(rec)))
		return r;
	if (o->names.n > o->ncmds) {
		error("%zu --command-name options for %zu command%s", o->names.n, o->ncmds, o->ncmds == 1 ? "" : "s");
		fix("give at most one --command-name per command, in the order of the commands");
		return EXIT_USAGE;
	}
	if (o->runs_each && o->nruns_each != o->ncmds) {
		error("-n gives %zu numbers of runs for %zu command%s", o->nruns_each, o->ncmds, o->ncmds == 1 ? "" : "s");
		fix("give one number for every command (-n 10), or one per command, in their order (-n 10,5)");
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < o->names.n; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(o->names.v[i], o->names.v[j])) {
				error("two commands are named '%s'", o->names.v[i]);
				return EXIT_USAGE;
			}
	rec->ncmds = o->ncmds;
	rec->cmds = xcalloc(o->ncmds, sizeof(*rec->cmds));
	for (size_t i = 0; i < o->ncmds; i++) {
		char what[32];
		snprintf(what, sizeof(what), "command %zu", i + 1);
		if ((r = make_prog(rec, o->cmds[i], what, true, &rec->cmds[i].prog)))
			return r;
		rec->cmds[i].name = i < o->names.n ? o->names.v[i] : NULL;
	}
	for (int k = 0; k < HOOK_COUNT; k++) {
		const struct record_list *l = &o->hooks[k];
		if (!l->n)
			continue;
		if (l->n != 1 && l->n != o->ncmds) {
			error("%zu --%s options for %zu commands", l->n, record_hook_names[k], o->ncmds);
			fix("give --%s once for every command, or once per command in their order", record_hook_names[k]);
			return EXIT_USAGE;
		}
		rec->nhooks[k] = l->n;
		rec->hooks[k] = xcalloc(l->n, sizeof(struct record_prog));
		char what[32];
		snprintf(what, sizeof(what), "--%s", record_hook_names[k]);
		for (size_t i = 0; i < l->n; i++)
			if ((r = make_prog(rec, l->v[i], what, false, &rec->hooks[k][i])))
				return r;
		for (size_t i = 0; i < o->ncmds; i++)
			rec->cmds[i].hook[k] = &rec->hooks[k][l->n == 1 ? 0 : i];
		/*
		 * Every command starts from the spawner with the environment lauka
		 * had when it started (spawn/runner.h), so a hook gets its indices from
		 * env(1) in front of it.
		 */
		if (!rec->env_path[0] && exec_resolve("env", rec->env_path, sizeof(rec->env_path)) < 0) {
			error("hooks need env(1) to pass LAUKA_COMMAND_INDEX and LAUKA_RUN_INDEX, and it is not in PATH");
			return 127;
		}
	}
	return 0;
}

/* Names from -m, split at commas, trimmed, duplicates dropped (case-insensitive). */
static size_t split_names(const char *list, char ***out)
{
	char **names = NULL;
	size_t n = 0;
	const char *p = list;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		while (len && (*p == ' ' || *p == '\t'))
			p++, len--;
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len) {
			char *name = xmalloc(len + 1);
			memcpy(name, p, len);
			name[len] = '\0';
			int dup = 0;
			for (size_t i = 0; i < n; i++)
				dup |= !lk_strcasecmp(names[i], name);
			if (dup)
				free(name);
			else {
				names = xrealloc(names, (n + 1) * sizeof(*names));
				names[n++] = name;
			}
		}
		if (!end)
			break;
		p = end + 1;
	}
	*out = names;
	return n;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void suggest(const struct lk_pmu *const *pmus, size_t npmus, const char *name)
{
	const char *best[4];
	struct strbuf sb = STRBUF_INIT;
	size_t shown = 0;
	for (size_t k = 0; k < npmus && shown < 4; k++) {
		if (!pmus[k])
			continue;
		size_t n = pmu_suggest(pmus[k], name, best, 4 - shown);
		for (size_t i = 0; i < n; i++, shown++)
			strbuf_addf(&sb, "%s'%s'", shown ? ", " : "", best[i]);
	}
	if (shown)
		tip("did you mean %s?", strbuf_str(&sb));
	strbuf_release(&sb);
}

/* The first other backend whose catalogue has `name`, or NULL. */
static const struct lk_backend *backend_having(const char *name, const struct lk_backend *current)
{
	for (size_t i = 0; lk_backends[i]; i++) {
		const struct lk_backend *b = lk_backends[i];
		if (b == current || b == backend_rusage() || !b->catalog)
			continue;
		struct lk_pmu pmu = { 0 };
		char err[256];
		bool found = b->catalog(&pmu, err, sizeof(err)) == 0 && pmu_find(&pmu, name);
		pmu_release(&pmu);
		if (found)
			return b;
	}
	return NULL;
}

/*
 * A name no loaded catalogue knows.  When another backend has it and only
 * lacks root (kperf on macOS), that is the problem to report (exit 2);
 * otherwise it is a usage error with the closest names and, if another
 * backend has it, which one to pick.
 */
static int unknown_name(struct record *rec, const char *name, const struct lk_pmu *bpmu)
{
	const struct lk_backend *be = rec->be;
	const struct lk_backend *other = backend_having(name, be);
	char why[256] = "";
	if (other && other->detect && other->detect(why, sizeof(why)) == -LK_EPERM) {
		error("'%s' is a %s counter and needs root: %s", name, other->name, why);
		options_need_root(rec->argc, rec->argv);
		return EXIT_COUNTERS;
	}
	error("unknown measurement '%s'%s%s", name, be ? " for backend " : "", be ? be->name : "");
	const struct lk_pmu *pm[2] = { bpmu, &rec->rpmu };
	suggest(pm, 2, name);
	if (other)
		tip("'%s' is a %s event: add --backend %s", name, other->name, other->name);
	return EXIT_USAGE;
}

static void sel_add(struct record *rec, size_t which, const struct lk_event *ev, bool explicit)
{
	for (size_t i = 0; i < rec->nsel[which]; i++)
		if (rec->sel[which][i].ev == ev) {
			rec->sel[which][i].explicit |= explicit;
			return;
		}
	rec->sel[which] = xrealloc(rec->sel[which], (rec->nsel[which] + 1) * sizeof(struct lk_evsel));
	struct lk_evsel *e = &rec->sel[which][rec->nsel[which]++];
	memset(e, 0, sizeof(*e));
	e->ev = ev;
	e->counter = -1;
	e->explicit = explicit;
}

/* Add a named measurement to the selection; 0, or the exit code after an error. */
static int select_name(struct record *rec, const char *name)
{
	const struct lk_pmu *bpmu = rec->cat ? catalog_pmu(rec->cat) : NULL;
	const struct lk_event *ev = pmu_find(&rec->rpmu, name);
	if (ev) {
		sel_add(rec, 0, ev, true);
		return 0;
	}
	ev = bpmu ? pmu_find(bpmu, name) : NULL;
	if (ev) {
		sel_add(rec, 1, ev, true);
		return 0;
	}
	return unknown_name(rec, name, bpmu);
}

static int choose_backend(struct record *rec)
{
	const char *name = rec->o.backend ? rec->o.backend : getenv("LAUKA_BACKEND");
	if (!name || !*name) {
		rec->be = backend_default();
		return 0;
	}
	const struct lk_backend *b = options_backend(name);
	if (!b)
		return EXIT_USAGE;
	if (b == backend_rusage()) {
		rec->be = NULL;
		return 0;
	}
	int r = options_backend_usable(b, rec->argc, rec->argv);
	if (r < 0)
		return -r;
	rec->be = b;
	return 0;
}

/*
 * Assign counters (catalog/sched.c) and store them in the selection; when the set
 * cannot be counted at once, name the smallest conflicting subset.
 */
static int schedule(const struct lk_pmu *pmu, struct lk_evsel *sel, size_t n)
{
	bool constrained = false;
	for (size_t i = 0; i < n; i++)
		constrained |= sel[i].ev->counters_mask != 0;
	if (!constrained)
		return 0;
	const struct lk_event **evs = xcalloc(n, sizeof(*evs));
	int *counter = xcalloc(n, sizeof(*counter));
	struct sched_conflict conf;
	for (size_t i = 0; i < n; i++)
		evs[i] = sel[i].ev;
	int r = sched_assign(pmu, evs, n, counter, &conf);
	if (r == 0) {
		for (size_t i = 0; i < n; i++)
			sel[i].counter = counter[i];
	} else {
		char *names = sched_conflict_names(evs, &conf);
		error("requested measurements could not be scheduled on %s",
		      pmu->marketing_name ? pmu->marketing_name : pmu->name);
		tip("these events cannot be counted together: %s", names);
		free(names);
	}
	free(evs);
	free(counter);
	return r;
}

static int plan_catalogue(struct record *rec)
{
	char err[512] = "";
	if (rec->o.guided && xctrace_record_guided(rec->o.backend) < 0)
		return EXIT_USAGE;
	int r = choose_backend(rec);
	if (r)
		return r;
	backend_rusage()->catalog(&rec->rpmu, err, sizeof(err));
	if (!rec->be)
		return 0;
	struct catalog_opts copts = { .db_path = rec->o.db };
	if (catalog_open(&rec->cat, rec->be, &copts, err, sizeof(err)) < 0) {
		/*
		 * Measuring needs the machine's events, not the database: unless
		 * the user named a database, fall back to the live catalogue and
		 * say what is lost (the calibration verdicts).
		 */
		char live_err[512];
		if (rec->o.db || catalog_open_live(&rec->cat, rec->be, live_err, sizeof(live_err)) < 0) {
			error("cannot load the %s event catalogue: %s", rec->be->name, rec->o.db ? err : live_err);
			return EXIT_COUNTERS;
		}
		warning("%s", err);
		warning("measuring without the catalogue database: calibration verdicts are not checked");
	}
	return 0;
}

static int plan_events(struct record *rec)
{
	const struct lk_pmu *bpmu = rec->cat ? catalog_pmu(rec->cat) : NULL;
	int r = 0;
	/* wall_time and peak_rss always come first. */
	for (const char *const *d = backend_rusage()->defaults; *d; d++)
		sel_add(rec, 0, pmu_find(&rec->rpmu, *d), false);
	if (rec->o.measurements) {
		char **names = NULL;
		size_t n = split_names(rec->o.measurements, &names);
		if (!n) {
			error("no measurement named in -m '%s'", rec->o.measurements);
			r = EXIT_USAGE;
		}
		for (size_t i = 0; i < n && !r; i++)
			r = select_name(rec, names[i]);
		free_names(names, n);
		if (r)
			return r;
	} else if (rec->be && rec->be->defaults) {
		for (const char *const *d = rec->be->defaults; *d; d++) {
			const struct lk_event *ev = pmu_find(bpmu, *d);
			if (ev)
				sel_add(rec, 1, ev, false);
		}
	}
	/* A gated measurement is measured, whether or not -m names it. */
	rec->gates = xcalloc(rec->o.gates.n ? rec->o.gates.n : 1, sizeof(*rec->gates));
	for (size_t g = 0; g < rec->o.gates.n; g++) {
		struct record_gate *gt = &rec->gates[rec->ngates];
		char err[256];
		gt->spec = rec->o.gates.v[g];
		if (gate_parse(gt->spec, &gt->name, &gt->limit, err, sizeof(err)) < 0) {
			error("%s", err);
			fix("write --gate NAME=LIMIT%%, e.g. --gate instructions=1%%");
			return EXIT_USAGE;
		}
		rec->ngates++;
		if ((r = select_name(rec, gt->name)))
			return r;
	}
	/* Counter-constrained events (kpep) must fit on the counters together. */
	if (bpmu && rec->nsel[1] && schedule(bpmu, rec->sel[1], rec->nsel[1]) < 0)
		return EXIT_COUNTERS;
	return 0;
}

/* Open the backends; drop default events that cannot count here, fail on explicit ones. */
static int plan_backends(struct record *rec)
{
	char err[512] = "";
	/*
	 * Catch SIGINT/SIGTERM before any backend takes hardware state (kperf
	 * forces counters): from here on every signal ends on the cleanup path.
	 */
	runner_signals_install();
	if (backend_inst_open(&rec->bi[rec->nbi], backend_rusage(), rec->sel[0], rec->nsel[0], err, sizeof(err)) < 0) {
		error("%s", err);
		return EXIT_COUNTERS;
	}
	rec->nbi++;
	const struct lk_backend *be = rec->be;
	if (!be || !rec->nsel[1])
		return 0;
	for (int attempt = 0; attempt < 2; attempt++) {
		struct backend_inst *bi = &rec->bi[rec->nbi];
		int orc = backend_inst_open(bi, be, rec->sel[1], rec->nsel[1], err, sizeof(err));
		if (orc < 0) {
			error("%s backend: %s", be->name, err);
			if (orc == -LK_EPERM)
				options_need_root(rec->argc, rec->argv);
			else if (orc == -LK_EBUSY)
				fix("quit the other program using the counters (Instruments, a profiler, another lauka), then retry");
			return EXIT_COUNTERS;
		}
		size_t kept = 0;
		for (size_t i = 0; i < rec->nsel[1]; i++) {
			struct lk_evsel *e = &rec->sel[1][i];
			if (!e->err) {
				rec->sel[1][kept++] = *e;
				continue;
			}
			if (e->explicit) {
				error("cannot count '%s' with the %s backend: %s", e->ev->name, be->name,
				      e->why[0] ? e->why : lk_strerror(e->err));
				backend_inst_close(bi);
				return EXIT_COUNTERS;
			}
		}
		if (kept == rec->nsel[1]) {
			rec->nbi++;
			break;
		}
		backend_inst_close(bi);
		rec->nsel[1] = kept;
		if (!kept)
			break;
	}
	return 0;
}

static void plan_columns(struct record *rec)
{
	const struct lk_pmu *bpmu = rec->cat ? catalog_pmu(rec->cat) : NULL;
	for (size_t i = 0; rec->cat && rec->nbi > 1 && i < rec->bi[1].nsel; i++) {
		const struct lk_event *ev = rec->bi[1].sel[i].ev;
		if (catalog_verdict_failed(rec->cat, ev))
			warning("'%s' failed calibration on this machine (%s); treat its numbers with care",
				ev->name, catalog_verdict(rec->cat, ev));
	}
	/* Columns in display order: rusage first, then the counter events. */
	for (size_t b = 0; b < rec->nbi; b++) {
		for (size_t i = 0; i < rec->bi[b].nsel; i++) {
			rec->cols = xrealloc(rec->cols, (rec->ncols + 1) * sizeof(*rec->cols));
			struct record_col *c = &rec->cols[rec->ncols++];
			const struct lk_event *ev = rec->bi[b].sel[i].ev;
			c->backend = b;
			c->index = i;
			c->ev = ev;
			c->label = bpmu && b == 1 && !strcmp(bpmu->kind, "kpep") ? pmu_display_name(ev->name)
				   : rec->o.guided && b == 1 ? xctrace_slot_label(rec->cat, ev) : xstrdup(ev->name);
			c->unit = ev->unit;
			if (strlen(c->label) > rec->name_width)
				rec->name_width = strlen(c->label);
		}
	}
}

static bool is_timing(const struct record_col *c)
{
	return c->unit && !strcmp(c->unit, "ns");
}

/* Map every gate to its column and say when a gate may cry wolf. */
static int plan_gates(struct record *rec)
{
	if (rec->ngates && rec->ncmds < 2 && !rec->o.baseline) {
		error("--gate needs something to compare against");
		fix("give a second command (the first is the reference) or --baseline NAME");
		return EXIT_USAGE;
	}
	for (size_t g = 0; g < rec->ngates; g++) {
		struct record_gate *gt = &rec->gates[g];
		const struct lk_pmu *bpmu = rec->cat ? catalog_pmu(rec->cat) : NULL;
		const struct lk_event *ev = pmu_find(&rec->rpmu, gt->name);
		bool rusage = ev != NULL;
		if (!ev && bpmu)
			ev = pmu_find(bpmu, gt->name);
		size_t c;
		for (c = 0; c < rec->ncols && rec->cols[c].ev != ev; c++)
			;
		if (c == rec->ncols) {	/* explicit events are never dropped; cannot happen */
			error("gate '%s': '%s' is not measured", gt->spec, gt->name);
			return EXIT_COUNTERS;
		}
		gt->col = c;
		const char *label = rec->cols[c].label;
		if (is_timing(&rec->cols[c])) {
			warning("gate '%s': %s is a timing measurement; it moves with the load on the machine, so on a "
				"shared runner this gate may cry wolf (gate on instruction counts, report time)",
				gt->spec, label);
			continue;
		}
		if (rusage && !rec->rcat) {
			char err[512];
			struct catalog_opts copts = { .db_path = rec->o.db };
			if (catalog_open(&rec->rcat, backend_rusage(), &copts, err, sizeof(err)) < 0)
				rec->rcat = NULL;
		}
		const char *v = catalog_verdict(rusage ? rec->rcat : rec->cat, ev);
		if (v && !strcmp(v, "validated"))
			continue;
		char *why = v ? xasprintf("'%s' by its latest calibration", v) : xstrdup("not validated by calibration");
		warning("gate '%s': %s is %s on this machine, so the counter is not known to count what its name says "
			"and this gate may cry wolf", gt->spec, label, why);
		free(why);
		if (!v)
			tip("validate it with 'lauka calibrate --backend %s'",
			    rusage || !rec->be ? "rusage" : rec->be->name);
	}
	return 0;
}

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

/* Load --baseline NAME and refuse a comparison that would mean nothing. */
static int plan_baseline(struct record *rec)
{
	const char *bn = rec->o.baseline;
	char err[512];
	int r = db_baseline_load(rec->db, bn, &rec->base, err, sizeof(err));
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
	const struct db_baseline *b = &rec->base;
	if (strcmp(b->runner_class, rec->runner_class)) {
		if (!rec->o.any_runner) {
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
		fix("add --backend %s", b->backend);
		return EXIT_USAGE;
	}
	size_t *match = xcalloc(rec->ncmds, sizeof(*match));
	if ((r = match_commands(rec, match))) {
		free(match);
		return r;
	}
	/* The same measurements, in any order (names are case-insensitive). */
	size_t *bcol = xcalloc(rec->ncols ? rec->ncols : 1, sizeof(*bcol));
	struct strbuf missing = STRBUF_INIT, extra = STRBUF_INIT;
	for (size_t c = 0; c < rec->ncols; c++) {
		size_t m;
		for (m = 0; m < b->nmeas && lk_strcasecmp(b->meas[m], rec->cols[c].ev->name); m++)
			;
		bcol[c] = m;
		if (m == b->nmeas)
			strbuf_addf(&extra, "%s%s", extra.len ? ", " : "", rec->cols[c].ev->name);
	}
	for (size_t m = 0; m < b->nmeas; m++) {
		size_t c;
		for (c = 0; c < rec->ncols && lk_strcasecmp(b->meas[m], rec->cols[c].ev->name); c++)
			;
		if (c == rec->ncols)
			strbuf_addf(&missing, "%s%s", missing.len ? ", " : "", b->meas[m]);
	}
	if (missing.len || extra.len) {
		struct strbuf all = STRBUF_INIT;
		for (size_t m = 0; m < b->nmeas; m++)
			strbuf_addf(&all, "%s%s", m ? "," : "", b->meas[m]);
		error("baseline '%s' has other measurements than this run:%s%s%s%s", bn,
		      missing.len ? " not measured now: " : "", strbuf_str(&missing),
		      extra.len ? (missing.len ? "; not in the baseline: " : " not in the baseline: ") : "",
		      strbuf_str(&extra));
		fix("measure what the baseline has: -m %s", strbuf_str(&all));
		strbuf_release(&all);
		r = EXIT_USAGE;
	}
	strbuf_release(&missing);
	strbuf_release(&extra);
	for (size_t i = 0; i < rec->ncmds && !r; i++) {
		const struct db_baseline_cmd *bc = &b->cmds[match[i]];
		rec->cmds[i].ref = xcalloc(rec->ncols ? rec->ncols : 1, sizeof(struct lk_stats));
		for (size_t c = 0; c < rec->ncols; c++)
			stats_compute(bc->samples[bcol[c]], bc->runs, &rec->cmds[i].ref[c]);
	}
	free(match);
	free(bcol);
	return r;
}

static int plan_runner_class(struct record *rec)
{
	rec->runner_class = rec->o.runner_class ? xstrdup(rec->o.runner_class) : machine_id(rec);
	if (!rec->o.baseline && !rec->o.save_baseline) {
		if (rec->o.any_runner || rec->o.runner_class) {
			error("%s only applies with --baseline or --save-baseline",
			      rec->o.any_runner ? "--any-runner" : "--runner-class");
			return EXIT_USAGE;
		}
		return 0;
	}
	if (rec->o.save_baseline && !*rec->o.save_baseline)
		return error("--save-baseline needs a name"), EXIT_USAGE;
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

/*
 * Export files are written whole at the end, to a temporary file in the same
 * directory renamed over the target, so a reader never sees half a file and
 * an interrupted lauka leaves the old one.  Creating the temporary file now
 * checks that the directory can be written before anything runs.  A target
 * that exists and is not a regular file (/dev/stdout, a pipe) is written
 * directly.
 */
static int open_export(struct record_export *x, const char *opt)
{
	struct stat st;
	const char *path = x->path;
	char *real = NULL;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			error("cannot write '%s' (%s): it is a directory", path, opt);
			return EXIT_USAGE;
		}
		if (!S_ISREG(st.st_mode)) {
			int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
			if (fd >= 0)
				fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
			if (fd < 0 || !(x->f = fdopen(fd, "w"))) {
				error("cannot write '%s' (%s): %s", path, opt, strerror(errno));
				if (fd >= 0)
					close(fd);
				return EXIT_USAGE;
			}
			return 0;
		}
		/* Keep a symbolic link: replace the file it points to. */
		real = realpath(path, NULL);
		if (real)
			path = real;
	}
	x->tmp = xasprintf("%s.tmp-XXXXXX", path);
	free(real);
	int fd = mkstemp(x->tmp);
	if (fd < 0) {
		error("cannot write '%s' (%s): %s", x->path, opt, strerror(errno));
		FREE_AND_NULL(x->tmp);
		return EXIT_USAGE;
	}
	/* mkstemp makes 0600; an export is an ordinary file (0666 less the umask). */
	mode_t um = umask(0);
	umask(um);
	if (fchmod(fd, 0666 & ~um) != 0) {
		/* Best effort: the file stays private to the user. */
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	x->f = fdopen(fd, "w");
	if (!x->f) {
		error("cannot write '%s' (%s): %s", x->path, opt, strerror(errno));
		close(fd);
		unlink(x->tmp);
		FREE_AND_NULL(x->tmp);
		return EXIT_USAGE;
	}
	return 0;
}

static int plan_exports(struct record *rec)
{
	char err[512];
	if (rec->o.plot && rec->ncmds < 2) {
		error("--plot draws deltas against the first command: give two or more commands");
		return EXIT_USAGE;
	}
	if (rec->o.plot && plot_path_check(rec->o.plot, err, sizeof(err)) < 0) {
		error("%s", err);
		return EXIT_USAGE;
	}
	for (int k = 0; k < EXPORT_COUNT; k++) {
		const char *p = rec->o.exports[k];
		if (!p)
			continue;
		for (int j = 0; j < k; j++)
			if (rec->o.exports[j] && !strcmp(rec->o.exports[j], p)) {
				error("%s and %s both name '%s'", export_opt[j], export_opt[k], p);
				return EXIT_USAGE;
			}
		rec->exports[k].path = p;
		int r = open_export(&rec->exports[k], export_opt[k]);
		if (r)
			return r;
	}
	return 0;
}

void record_cmd_alloc(struct record *rec, struct record_cmd *c, unsigned long runs)
{
	size_t n = rec->ncols ? rec->ncols : 1, r = runs ? runs : 1;
	c->planned = runs;
	c->vals = xcalloc(n, sizeof(*c->vals));
	for (size_t i = 0; i < rec->ncols; i++)
		c->vals[i] = xcalloc(r, sizeof(double));
	c->rows = xcalloc(n, sizeof(*c->rows));
	c->coverage = xcalloc(n, sizeof(*c->coverage));
	for (size_t i = 0; i < rec->ncols; i++)
		c->coverage[i] = 1;
	if (c->hook[HOOK_CHECK])
		c->check_ok = xcalloc(r, sizeof(bool));
}

void record_cmd_free(struct record *rec, struct record_cmd *c)
{
	for (size_t i = 0; c->vals && i < rec->ncols; i++)
		free(c->vals[i]);
	free(c->vals);
	free(c->rows);
	free(c->coverage);
	free(c->check_ok);
	free(c->ref);
	free(c->detail);
	strbuf_release(&c->run_details);
	cmdline_free(c->prog.argv);
}

static int plan_order(struct record *rec)
{
	const struct record_opts *o = &rec->o;
	if (o->have_seed && !o->interleave) {
		error("--seed sets the order of interleaved rounds");
		fix("add --interleave, or leave out --seed");
		return EXIT_USAGE;
	}
	if (o->interleave && !o->have_seed)
		rec->o.seed = order_next(&(uint64_t){ lk_now_ns() ^ ((uint64_t)getpid() << 32) }) % 1000000;
	unsigned long *w = xcalloc(rec->ncmds, sizeof(*w)), *n = xcalloc(rec->ncmds, sizeof(*n));
	for (size_t i = 0; i < rec->ncmds; i++) {
		struct record_cmd *c = &rec->cmds[i];
		w[i] = c->warmups = o->warmup;
		n[i] = o->runs_each ? o->runs_each[i] : o->runs;
		record_cmd_alloc(rec, c, n[i]);
	}
	rec->nslots = order_plan(w, n, rec->ncmds, o->interleave, rec->o.seed, &rec->slots);
	for (size_t s = 0; s < rec->nslots; s++)
		rec->cmds[rec->slots[s].cmd].slots_left++;
	free(w);
	free(n);
	return 0;
}

static int plan_runner(struct record *rec)
{
	char err[512];
	struct runner_opts ropts = { .show_output = rec->o.show_output, .uid = -1, .gid = -1 };
	/* Under sudo the command runs as the user who typed it, in that user's environment. */
	struct sudo_user su;
	runner_opts_sudo(&ropts, &su);
	if (runner_init(&rec->run, &ropts, err, sizeof(err)) < 0) {
		error("%s", err);
		return EXIT_COUNTERS;
	}
	rec->runner_ok = true;
	for (size_t b = 0; b < rec->nbi; b++)
		rec->counts[b] = xcalloc(rec->bi[b].nsel ? rec->bi[b].nsel : 1, sizeof(struct lk_counts));
	if (rec->shell_argv) {
		struct record_cmd *c = &rec->shell_cost;
		shell_prog(rec, "", &c->prog);
		record_cmd_alloc(rec, c, RECORD_MIN_RUNS);
		c->slots_left = RECORD_MIN_RUNS;
		rec->have_shell_cost = true;
	}
	return 0;
}

int record_plan(struct record *rec)
{
	int r = record_parse_options(rec);
	if (!r)
		r = plan_commands(rec);
	if (!r)
		r = plan_catalogue(rec);
	if (!r)
		r = plan_events(rec);
	if (!r)
		r = plan_backends(rec);
	if (!r) {
		plan_columns(rec);
		r = plan_gates(rec);
	}
	if (!r)
		r = plan_runner_class(rec);
	if (!r)
		r = plan_order(rec);
	if (!r)
		r = plan_exports(rec);
	if (!r)
		r = plan_runner(rec);
	return r;
}
