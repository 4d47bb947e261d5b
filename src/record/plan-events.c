/*
 * record/plan-events.c: which measurements a request names and whether they can
 * be counted here: the backend (--backend, LAUKA_BACKEND or the machine's
 * best), its catalogue, the names of -m and of the gates (an unknown name is
 * a usage error with the closest names), counter scheduling for masked events
 * (catalog/sched.c), opening the backends, and the table's columns.
 */
#include "backend/backend.h"
#include "base/error.h"
#include "base/util.h"
#include "catalog/pfm.h"
#include "catalog/sched.h"
#ifdef __linux__
#include "backend/perf-events.h"
#endif
#include "machine/backend-choice.h"
#include "machine/catalog.h"
#include "machine/xctrace-slots.h"
#include "record/plan.h"
#include "record/record.h"
#include "stats/gate.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Names from -m, split at commas, trimmed, duplicates dropped (case-insensitive). */
static size_t split_names(const char *list, char ***out)
{
	char **names = NULL;
	size_t n = 0;
	const char *p = list;
	while (*p) {
		/* a comma between the slashes of perf's PMU/term,term/ form is part of the name */
		const char *end = p;
		for (bool inside = false; *end && (inside || *end != ','); end++)
			inside ^= *end == '/';
		if (!*end)
			end = NULL;
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
		backend_need_root(rec->argc, rec->argv);
		backend_root_tip(other, "record");
		return EXIT_COUNTERS;
	}
	char model[64];
	if (be && be->pfm_events && pfmcat_known(name, model, sizeof(model))) {
#ifdef __linux__
		if (!perf_have_core_pmu()) {
			error("cannot count '%s' with the %s backend: this machine exposes no 'cpu' PMU (virtual "
			      "machines usually don't pass it through): vendor events cannot be counted here", name, be->name);
			tip("it is an event of libpfm4's '%s' tables: lauka counters --pmu %s --details", model, model);
			backend_no_pmu_tip();
			return EXIT_COUNTERS;
		}
#endif
		error("unknown measurement '%s' for backend %s: libpfm4 knows it from '%s', which is not this "
		      "machine's CPU", name, be->name, model);
		tip("lauka counters lists this machine's events; LIBPFM_FORCE_PMU=%s pretends to be that CPU", model);
		return EXIT_USAGE;
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

/*
 * A counter event; with split, on a hybrid Intel CPU a generic hardware event becomes one event per
 * core PMU (cpu_core/instructions/, cpu_atom/instructions/; backend/perf-events.h), so each core
 * type's count is a row of its own and E-cores are counted at all (issue 35 item 5).
 */
static void sel_add_counter(struct record *rec, const struct lk_event *ev, bool explicit, bool split)
{
#ifdef __linux__
	const struct lk_event *twin[4];
	size_t n = split && rec->be && !strcmp(rec->be->name, "perf") && rec->cat ?
			   perf_hybrid_twins(catalog_pmu(rec->cat), ev, twin, 4) : 0;
	for (size_t i = 0; i < n; i++)
		sel_add(rec, 1, twin[i], explicit);
	if (n)
		return;
#else
	(void)split;
#endif
	sel_add(rec, 1, ev, explicit);
}

#ifdef __linux__
/* A raw event no catalogue row names, kept by rec (freed with it) and selected. */
static int add_raw(struct record *rec, struct lk_event *raw)
{
	rec->raw = xrealloc(rec->raw, (rec->nraw + 1) * sizeof(*rec->raw));
	rec->raw[rec->nraw++] = raw;
	sel_add(rec, 1, raw, true);
	return 0;
}
#endif

/* Add a named measurement to the selection; 0, or the exit code after an error. */
static int select_name(struct record *rec, const char *name, bool split)
{
	const struct lk_pmu *bpmu = rec->cat ? catalog_pmu(rec->cat) : NULL;
	const struct lk_event *ev = pmu_find(&rec->rpmu, name);
	if (ev) {
		sel_add(rec, 0, ev, true);
		return 0;
	}
	/* the backend's catalogue: its names, or perf's raw forms (r20d1, cpu/event=0xd1,umask=0x20/) */
	ev = bpmu ? pfmcat_find(bpmu, name) : NULL;
	if (ev) {
		sel_add_counter(rec, ev, true, split);
		return 0;
	}
#ifdef __linux__
	/* A raw encoding no row has, as perf stat -e would count it: on Arm's core PMU a PMUv3 number (r23) on
	 * the general counters, 0x11 also on the cycle counter (pfmcat_arm_adhoc, issue 36 P8); on x86
	 * (r0ff44, cpu/event=0x44,umask=0xff,cmask=1/) an ad-hoc row under the model's default counter rule
	 * (pfmcat_adhoc).  Arm's PMU form goes on to the sysfs path below. */
	struct lk_event adhoc;
	if (bpmu && rec->be && !strcmp(rec->be->name, "perf") &&
	    (pfmcat_adhoc(bpmu, name, &adhoc) ||
	     (name[0] == 'r' && perf_have_core_pmu() && pfmcat_arm_adhoc(bpmu, name, &adhoc)))) {
		struct lk_event *raw = xmalloc(sizeof(*raw));
		*raw = adhoc;
		return add_raw(rec, raw);
	}
	/* perf's PMU form of a raw event on a core PMU (armv8_pmuv3/event=0x23/, cpu/event=0xd1,umask=0x20/)
	 * no row names: encoded with that PMU's sysfs format files, opened with its type (issue 36 P8) */
	if (bpmu && rec->be && !strcmp(rec->be->name, "perf")) {
		struct lk_event pe;
		char why[512];
		int pr = perf_pmu_raw_event(name, &pe, why, sizeof(why));
		if (pr < 0) {
			error("cannot encode '%s': %s", name, why);
			tip("perf's form is PMU/term=value,.../, e.g. %.*s/event=0x11/", (int)strcspn(name, "/"), name);
			return EXIT_USAGE;
		}
		if (pr == 0) {
			bool arm = bpmu->arch && !strcmp(bpmu->arch, "arm64");
			struct lk_event *raw = xmalloc(sizeof(*raw));
			*raw = pe;
			/* Arm: the general counters, CPU_CYCLES (0x11) also the cycle counter (arm_pmuv3.c
			 * armv8pmu_get_event_idx) */
			raw->counters_mask = bpmu->config_mask |
					     (arm && pe.number == 0x11 && !pe.config1 ? bpmu->fixed_mask : 0);
			return add_raw(rec, raw);
		}
	}
	/* perf's privilege modifiers: :u counts user mode only (every counter event then: one mode a record) */
	size_t nl = strlen(name);
	if (bpmu && rec->be && !strcmp(rec->be->name, "perf") && nl > 2 && name[nl - 2] == ':' &&
	    (name[nl - 1] == 'u' || name[nl - 1] == 'k')) {
		char *base = xasprintf("%.*s", (int)(nl - 2), name);
		ev = pfmcat_find(bpmu, base);
		free(base);
		char want = name[nl - 1], had = perf_count_mode();
		if (ev && rec->mode_named && had != want) {
			error("'%s': one record counts in one mode, and an earlier measurement was named with :%c", name,
			      had);
			tip("record the two modes one after the other (-m %.*s:u, then -m %.*s:k)", (int)(nl - 2), name,
			    (int)(nl - 2), name);
			return EXIT_USAGE;
		}
		if (ev && want == 'k' && !perf_may_count_kernel()) {
			error("'%s': counting the kernel needs root (or CAP_PERFMON), or perf_event_paranoid <= 1 (it is %d)",
			      name, perf_paranoid());
			fix("sudo sysctl kernel.perf_event_paranoid=1, or run lauka with sudo");
			return EXIT_COUNTERS;
		}
		if (ev) {
			if (want == 'k')
				perf_count_kernel_only();
			else
				perf_count_user_only();
			rec->mode_named = true;
			sel_add_counter(rec, ev, true, split);
			return 0;
		}
	}
#endif
	return unknown_name(rec, name, bpmu);
}

static int choose_backend(struct record *rec)
{
	const char *name = rec->o.backend ? rec->o.backend : getenv("LAUKA_BACKEND");
	if (!name || !*name) {
		rec->be = backend_default();
		return 0;
	}
	const struct lk_backend *b = backend_named(name);
	if (!b)
		return EXIT_USAGE;
	if (b == backend_rusage()) {
		rec->be = NULL;
		return 0;
	}
	int r = backend_usable(b, rec->argc, rec->argv);
	if (r < 0)
		return -r;
	rec->be = b;
	return 0;
}

/* "Intel Skylake (8 general and 3 fixed counters)" */
static char *chip_counters(const struct lk_pmu *pmu)
{
	int general = 0, fixed = 0;
	for (int b = 0; b < 64; b++) {
		general += (int)((pmu->config_mask >> b) & 1);
		fixed += (int)((pmu->fixed_mask >> b) & 1);
	}
	const char *chip = pmu->marketing_name ? pmu->marketing_name : pmu->name;
	if (!general)
		return xstrdup(chip);
	/* Arm PMUv3's one fixed counter is the cycle counter (Apple's kpep PMUs have two fixed ones) */
	if (fixed == 1 && pmu->arch && !strcmp(pmu->arch, "arm64") && pmu->kind && strcmp(pmu->kind, "kpep"))
		return xasprintf("%s (%d general counters and the cycle counter)", chip, general);
	return fixed ? xasprintf("%s (%d general and %d fixed counters)", chip, general, fixed)
		     : xasprintf("%s (%d counters)", chip, general);
}

/*
 * --passes: order sel[1] by the pass the scheduler puts each event in
 * (stable, so the columns keep -m's order within a pass) and assign each
 * pass's counters.
 */
static void plan_passes(struct record *rec, const struct lk_pmu *pmu, const struct lk_event **evs)
{
	size_t n = rec->nsel[1];
	size_t *pass_of = xcalloc(n, sizeof(*pass_of));
	rec->npasses = sched_passes(pmu, evs, n, pass_of);
	rec->pass_start = xcalloc(rec->npasses + 1, sizeof(*rec->pass_start));
	struct lk_evsel *sorted = xcalloc(n, sizeof(*sorted));
	size_t k = 0;
	for (size_t p = 0; p < rec->npasses; p++) {
		rec->pass_start[p] = k;
		for (size_t i = 0; i < n; i++)
			if (pass_of[i] == p) {
				sorted[k] = rec->sel[1][i];
				evs[k++] = rec->sel[1][i].ev;
			}
		int *counter = xcalloc(k - rec->pass_start[p] + 1, sizeof(*counter));
		if (sched_assign(pmu, evs + rec->pass_start[p], k - rec->pass_start[p], counter, NULL) == 0)
			for (size_t i = rec->pass_start[p]; i < k; i++)
				sorted[i].counter = counter[i - rec->pass_start[p]];
		free(counter);
	}
	rec->pass_start[rec->npasses] = k;
	memcpy(rec->sel[1], sorted, n * sizeof(*sorted));
	free(sorted);
	free(pass_of);
}

/*
 * --passes with PMU events none of which has a known counter set: no plan can be made, and
 * passing the set through would leave it to the kernel's multiplexing, which --passes promises
 * never happens (issue 36 P3).  An error rather than a silent single pass.
 */
static int passes_unplanned(struct record *rec, const struct lk_pmu *pmu)
{
	(void)pmu;
#ifdef __linux__
	if (!rec->o.passes || !rec->be || strcmp(rec->be->name, "perf") || !perf_have_core_pmu())
		return 0;
	size_t hw = 0;
	for (size_t i = 0; i < rec->nsel[1]; i++)
		hw += perf_takes_pmu_counter(rec->sel[1][i].ev);
	if (hw < 2)
		return 0;
	error("--passes cannot split these measurements into passes: the number of counters of this "
	      "machine's PMU is not known (libpfm4 has no model for this CPU, and the kernel did not let "
	      "lauka measure its counters)");
	tip("lauka doctor shows the group of counters that opens here; measure at most that many "
	    "hardware events per record, without --passes");
	return -1;
#else
	(void)rec;
	return 0;
#endif
}

/*
 * Assign counters (catalog/sched.c) and store them in the selection; when the set
 * cannot be counted at once, name the smallest conflicting subset and the
 * counters, or (--passes) split it into passes that each fit.
 */
static int schedule(struct record *rec, const struct lk_pmu *pmu)
{
	struct lk_evsel *sel = rec->sel[1];
	size_t n = rec->nsel[1];
	bool constrained = false;
	for (size_t i = 0; i < n; i++)
		constrained |= sel[i].ev->counters_mask != 0;
	if (!constrained)
		return passes_unplanned(rec, pmu);
	const struct lk_event **evs = xcalloc(n, sizeof(*evs));
	int *counter = xcalloc(n, sizeof(*counter));
	struct sched_conflict conf;
	for (size_t i = 0; i < n; i++)
		evs[i] = sel[i].ev;
	int r = sched_assign(pmu, evs, n, counter, &conf);
	if (r == 0) {
		for (size_t i = 0; i < n; i++)
			sel[i].counter = counter[i];
	} else if (rec->o.passes) {
		plan_passes(rec, pmu, evs);
		r = 0;
	} else {
		char *names = sched_conflict_names(evs, &conf), *chip = chip_counters(pmu);
		error("requested measurements could not be scheduled on %s", chip);
		tip("these events cannot be counted together: %s", names);
		tip("--passes measures them in several passes per command, each a full set of runs, "
		    "so none is multiplexed");
		free(names);
		free(chip);
	}
	free(evs);
	free(counter);
	return r;
}

int plan_catalogue(struct record *rec)
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

int plan_events(struct record *rec)
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
			r = select_name(rec, names[i], true);
		free_names(names, n);
		if (r)
			return r;
	} else if (rec->be && rec->be->defaults) {
		for (const char *const *d = rec->be->defaults; *d; d++) {
			const struct lk_event *ev = pmu_find(bpmu, *d);
			if (ev)
				sel_add_counter(rec, ev, false, true);
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
		if ((r = select_name(rec, gt->name, false)))	/* a gate is one column: not split */
			return r;
	}
	/*
	 * --explain measures the events the calibration chose (work, memory,
	 * branch, cycles), whether or not -m names them; it fails here, before
	 * anything runs, without a calibration.
	 */
	if (rec->o.explain) {
		if ((r = explain_plan(&rec->explain, rec->be, rec->cat, rec->o.guided)))
			return r;
		for (int k = 0; k < DIAG_ROLES; k++)
			if (rec->explain.cat_ev[k])
				sel_add(rec, 1, rec->explain.cat_ev[k], false);
	}
	/* Counter-constrained events (kpep) must fit on the counters together. */
	if (bpmu && rec->nsel[1] && schedule(rec, bpmu) < 0)
		return EXIT_COUNTERS;
	return 0;
}

/* The events the counter backend cannot count, as record's error; 0 when it can count them all. */
static int refuse_uncountable(const struct record *rec, const struct lk_evsel *sel, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (sel[i].err) {
			error("cannot count '%s' with the %s backend: %s", sel[i].ev->name, rec->be->name,
			      sel[i].why[0] ? sel[i].why : lk_strerror(sel[i].err));
			backend_event_tip(rec->be, &sel[i]);
			return EXIT_COUNTERS;
		}
	return 0;
}

int record_open_pass(struct record *rec, size_t p)
{
	char err[512] = "";
	struct backend_inst *bi = &rec->bi[1];
	backend_inst_close(bi);
	size_t start = rec->pass_start[p], n = rec->pass_start[p + 1] - start;
	if (backend_inst_open(bi, rec->be, rec->sel[1] + start, n, err, sizeof(err)) < 0) {
		error("%s backend: %s", rec->be->name, err);
		return EXIT_COUNTERS;
	}
	rec->cur_pass = p;
	int r = refuse_uncountable(rec, bi->sel, bi->nsel);
	if (r)
		backend_inst_close(bi);
	return r;
}

/* --passes: every pass opens (each event can count here), then bi[1] stays open on the first. */
static int open_passes(struct record *rec)
{
	for (size_t p = rec->npasses; p-- > 0;) {
		int r = record_open_pass(rec, p);
		if (r)
			return r;
	}
	rec->nbi++;
	printf("%zu passes: each command runs once per pass; pass", rec->npasses);
	for (size_t p = 0; p < rec->npasses; p++) {
		printf(" %zu:", p + 1);
		for (size_t i = rec->pass_start[p]; i < rec->pass_start[p + 1]; i++) {
			char *name = pmu_display_name(rec->sel[1][i].ev->name);
			printf(" %s", name);
			free(name);
		}
		printf("%s", p + 1 < rec->npasses ? ";" : "\n\n");
	}
	return 0;
}

/* Open the backends; drop default events that cannot count here, fail on explicit ones. */
int plan_backends(struct record *rec)
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
	if (rec->npasses > 1)
		return open_passes(rec);
	for (int attempt = 0; attempt < 2; attempt++) {
		struct backend_inst *bi = &rec->bi[rec->nbi];
		int orc = backend_inst_open(bi, be, rec->sel[1], rec->nsel[1], err, sizeof(err));
		if (orc < 0) {
			error("%s backend: %s", be->name, err);
			if (orc == -LK_EPERM) {
				backend_need_root(rec->argc, rec->argv);
				backend_root_tip(be, "record");
			} else if (orc == -LK_EBUSY)
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
				if (e->err == -LK_EPERM) {
					backend_need_root(rec->argc, rec->argv);
					backend_root_tip(be, "record");
				}
				backend_event_tip(be, e);
				backend_inst_close(bi);
				return EXIT_COUNTERS;
			}
		}
		if (kept == rec->nsel[1]) {
			/* Where the work goes (valgrind): for --explain, and for a gate that fails. */
			if ((rec->o.explain || rec->ngates) && bi->ops->keep_functions)
				bi->ops->keep_functions(bi->priv);
			if (rec->o.collect && bi->ops->collect_only)	/* record/plan.c refuses it elsewhere */
				bi->ops->collect_only(bi->priv, rec->o.collect);
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

void plan_columns(struct record *rec)
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
		/* With --passes bi[1] holds one pass: the columns are every pass's events (sel[1]). */
		bool all = b == 1 && rec->npasses > 1;
		size_t nsel = all ? rec->nsel[1] : rec->bi[b].nsel;
		for (size_t i = 0; i < nsel; i++) {
			rec->cols = xrealloc(rec->cols, (rec->ncols + 1) * sizeof(*rec->cols));
			struct record_col *c = &rec->cols[rec->ncols++];
			const struct lk_event *ev = all ? rec->sel[1][i].ev : rec->bi[b].sel[i].ev;
			c->backend = b;
			c->index = i;
			c->ev = ev;
			c->mode = 0;
			c->label = bpmu && b == 1 && !rec->o.guided ? pmu_shown_name(bpmu, ev->name)
				   : rec->o.guided && b == 1 ? xctrace_slot_label(rec->cat, ev) : xstrdup(ev->name);
#ifdef __linux__
			/* What a PMU row counts, as perf prints it: instructions:u when the kernel is excluded,
			 * instructions:k when the user is.  The name is the measurement's in the exports and
			 * baselines too, so a count of one mode is never compared with one of another (issue
			 * 36 P4). */
			char m = b == 1 && rec->be && !strcmp(rec->be->name, "perf") && perf_takes_pmu_counter(ev) ?
					 perf_count_mode() : 0;
			if (m) {
				char *u = xasprintf("%s:%c", c->label, m);
				free(c->label);
				c->label = u;
				c->mode = m;
			}
#endif
			c->unit = ev->unit;
			if (strlen(c->label) > rec->name_width)
				rec->name_width = strlen(c->label);
		}
	}
}
