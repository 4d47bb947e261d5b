/* machine/xctrace-slots.c: guided-mode calibration runs, the stored slot map, and its use by record and counters. */
#include "machine/xctrace-slots.h"
#include "backend/xctrace/xctrace.h"
#include "catalog/calib.h"
#include "catalog/db.h"
#include "base/error.h"
#include "base/progress.h"
#include "spawn/runner.h"
#include "base/util.h"
#include "backend/xctrace/agg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __APPLE__
#include <sys/sysctl.h>
#endif

/* xctrace's own cost per recording (reference/xctrace.md 4): attach, stop and save, two exports. */
#define XCT_SECONDS_PER_RUN 9

void xctrace_cpu_family(char *buf, size_t len)
{
#ifdef __APPLE__
	uint32_t fam = 0;
	size_t sz = sizeof(fam);
	if (sysctlbyname("hw.cpufamily", &fam, &sz, NULL, 0) == 0) {
		snprintf(buf, len, "0x%08x", (unsigned)fam);
		return;
	}
#endif
	const char *env = getenv("LAUKA_XCTRACE_CPUFAMILY");
	snprintf(buf, len, "%s", env && *env ? env : "unknown");
}

void xctrace_record_note(const struct lk_backend *be, unsigned long n)
{
	if (!be || strcmp(be->name, "xctrace"))
		return;
	notice("xctrace adds about %d s to every run (attach, stop and save, export): about %lu s for "
	       "%lu run%s, plus the commands themselves; only the launched process is recorded",
	       XCT_SECONDS_PER_RUN, n * XCT_SECONDS_PER_RUN, n, n == 1 ? "" : "s");
}

int xctrace_record_guided(const char *backend_opt)
{
	const char *name = backend_opt ? backend_opt : getenv("LAUKA_BACKEND");
	if (!name || lk_strcasecmp(name, "xctrace")) {
		error("--guided is a mode of the xctrace backend");
		fix("add --backend xctrace");
		return -1;
	}
	setenv("LAUKA_XCTRACE_MODE", "guided", 1);
	return 0;
}

char *xctrace_slot_label(struct catalog *cat, const struct lk_event *ev)
{
	struct db *db = cat ? catalog_db(cat) : NULL;
	char fam[32], err[256];
	xctrace_cpu_family(fam, sizeof(fam));
	struct db_slot_map m;
	if (!db || db_load_slot_map(db, fam, xctrace_version_string()[0] ? xctrace_version_string() : NULL, &m, err,
				    sizeof(err)) < 0)
		return xstrdup(ev->name);
	char *label = NULL;
	for (size_t i = 0; i < m.n && !label; i++)
		if ((uint64_t)m.slots[i].slot == ev->number && m.slots[i].name)
			label = xasprintf("%s (%s)", m.slots[i].name, ev->name);
	db_slot_map_free(&m);
	return label ? label : xstrdup(ev->name);
}

static void fmt_ratio(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (v != 0 && fabs(v) < 0.001)
		snprintf(buf, len, "%.2e", v);
	else
		snprintf(buf, len, "%.4f", v);
}

void xctrace_print_slot_map(struct db *db, FILE *out)
{
	char fam[32], err[256];
	xctrace_cpu_family(fam, sizeof(fam));
	struct db_slot_map m;
	fprintf(out, "\nguided-mode slots (xctrace, CPU Counters template):\n");
	if (!db || db_load_slot_map(db, fam, NULL, &m, err, sizeof(err)) < 0) {
		fprintf(out, "  no slot map for cpu family %s; 'lauka calibrate --backend xctrace' makes one\n", fam);
		return;
	}
	char when[32] = "";
	time_t t = (time_t)m.created_at;
	struct tm tm;
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
	fprintf(out, "  cpu family %s, xctrace %s, counting mode '%s', calibrated %s: %s\n", m.cpu_family,
		m.xctrace_version, m.counting_mode, when, m.verdict);
	fprintf(out, "  %-6s  %-17s  %-10s  %-10s  %s\n", "slot", "name", "alu", "chase", "branch");
	for (size_t i = 0; i < m.n; i++) {
		char a[24], c[24], b[24], s[32];
		fmt_ratio(a, sizeof(a), m.slots[i].alu);
		fmt_ratio(c, sizeof(c), m.slots[i].chase);
		fmt_ratio(b, sizeof(b), m.slots[i].branch);
		snprintf(s, sizeof(s), "slot%ld", m.slots[i].slot);
		fprintf(out, "  %-6s  %-17s  %-10s  %-10s  %s\n", s, m.slots[i].name ? m.slots[i].name : "-", a, c, b);
	}
	fprintf(out, "  (counts per count of the work slot; 'lauka record --backend xctrace --guided' uses these names)\n");
	db_slot_map_free(&m);
}

/* One guided recording of one probe at one scale; fills slots[0..nsel). */
static int record_probe(struct runner *run, struct backend_inst *bi, struct lk_progress *prog, const char *probe,
			const struct calib_scale *s, uint64_t n, uint64_t *slots, double *coverage)
{
	char scale[32], err[512] = "";
	snprintf(scale, sizeof(scale), "%llu", (unsigned long long)n);
	char *argv[] = { (char *)probe, (char *)s->probe, scale, (char *)s->arg, NULL };
	struct lk_counts *counts = xcalloc(bi->nsel, sizeof(*counts));
	struct lk_counts *cv[1] = { counts };
	struct runner_result res;
	progress_show(prog, "xctrace: recording %s %s", s->probe, scale);
	int r = runner_run(run, probe, argv, bi, 1, cv, &res, err, sizeof(err));
	progress_clear(prog);
	if (r < 0)
		error("recording probe '%s %s': %s", s->probe, scale, err);
	else if (!runner_interrupted && (res.exec_errno || res.exit_code)) {
		if (res.term_signal)
			error("probe '%s %s' was killed by signal %d (%s)", s->probe, scale, res.term_signal,
			      strsignal(res.term_signal));
		else
			error("probe '%s %s' failed with exit code %d", s->probe, scale, res.exit_code);
		r = -1;
	}
	if (r == 0 && !runner_interrupted) {
		progress_tick(prog);
		/* the catalogue lists slots by name (slot0, slot1, slot10, ...): place them by number */
		for (size_t i = 0; i < bi->nsel; i++)
			if (bi->sel[i].ev->number < XCTRACE_GUIDED_SLOTS)
				slots[bi->sel[i].ev->number] = counts[i].supported ? counts[i].value : 0;
		*coverage = counts[0].enabled ? (double)counts[0].running / (double)counts[0].enabled : 0;
	}
	free(counts);
	return r < 0 || runner_interrupted ? -1 : 0;
}

static const struct calib_scale *scale_of(const struct calib_scale *sc, size_t n, const char *probe)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(sc[i].probe, probe))
			return &sc[i];
	return NULL;
}

/* One guided calibration: the probes' scales, the six recordings' slot totals and coverage. */
struct guided_cal {
	const char *probe;			/* the probe program */
	const struct calib_scale *scales[3];	/* alu, chase, branch */
	uint64_t counts[3][2][XCTRACE_GUIDED_SLOTS];	/* [probe][1x, 4x][slot] */
	double cov[3][2];
	size_t nvalues, nslots, baselines;
};

static void print_intro(const struct guided_cal *g)
{
	const struct calib_scale *alu = g->scales[0], *chase = g->scales[1], *branch = g->scales[2];
	printf("calibrating xctrace's guided-mode slots (xctrace %s) with %s\n", xctrace_version_string(), g->probe);
	printf("probes: alu %llu (the control and the work unit), chase %llu over %s (loads that miss cache), "
	       "branch %llu (mispredicts); each at 1x and 4x\n",
	       (unsigned long long)alu->n, (unsigned long long)chase->n, chase->arg ? chase->arg : "-",
	       (unsigned long long)branch->n);
	printf("6 recordings; xctrace adds about %d s to each (attach, stop and save, export): about %d s in all\n\n",
	       XCT_SECONDS_PER_RUN, 6 * XCT_SECONDS_PER_RUN);
	fflush(stdout);
}

/* The six recordings (each probe at 1x and 4x); 0, -1 after an error, or 128+signal when interrupted. */
static int record_all(struct runner *run, struct backend_inst *bi, struct guided_cal *g)
{
	struct lk_progress prog;
	progress_init(&prog, true);
	progress_units(&prog, 6);
	for (size_t p = 0; p < 3; p++)
		for (int k = 0; k < 2; k++) {
			uint64_t n = g->scales[p]->n * (k ? 4 : 1);
			if (record_probe(run, bi, &prog, g->probe, g->scales[p], n, g->counts[p][k], &g->cov[p][k]) < 0) {
				if (runner_interrupted) {
					fprintf(stderr, "lauka: interrupted; nothing stored\n");
					return 128 + runner_interrupted;
				}
				return -1;
			}
			size_t nv, ns, nb;
			double cv;
			xctrace_last_guided(&nv, &ns, &cv, &nb);
			if (p == 0 && k == 0) {
				g->nvalues = nv;
				g->nslots = ns;
			} else if (ns != g->nslots) {
				error("the guided recordings disagree on the number of slots (%zu, then %zu)", g->nslots, ns);
				return -1;
			}
			g->baselines += nb;
		}
	if (!g->nslots) {
		error("the guided recordings hold no counter values for the probe");
		return -1;
	}
	printf("raw table: %zu values per sample%s; coverage (same-core adjacent samples / sampled time): "
	       "alu %.0f%%/%.0f%%, chase %.0f%%/%.0f%%, branch %.0f%%/%.0f%%; %zu new baselines (core changes, gaps)\n",
	       g->nvalues, g->nslots != g->nvalues ? ", two equal halves folded" : "", g->cov[0][0] * 100,
	       g->cov[0][1] * 100, g->cov[1][0] * 100, g->cov[1][1] * 100, g->cov[2][0] * 100, g->cov[2][1] * 100,
	       g->baselines);
	return 0;
}

/* Name the slots from the recordings; the probes' own set-up (the chase's 256 MB cycle) cancels in 4x - 1x. */
static int name_slots(const struct guided_cal *g, struct xct_slot_map *map, char *err, size_t len)
{
	uint64_t dchase[XCTRACE_GUIDED_SLOTS], dbranch[XCTRACE_GUIDED_SLOTS];
	for (size_t s = 0; s < g->nslots; s++) {
		dchase[s] = g->counts[1][1][s] > g->counts[1][0][s] ? g->counts[1][1][s] - g->counts[1][0][s] : 0;
		dbranch[s] = g->counts[2][1][s] > g->counts[2][0][s] ? g->counts[2][1][s] - g->counts[2][0][s] : 0;
	}
	struct xct_probe_counts a1 = { g->counts[0][0], (double)g->scales[0]->n },
				a4 = { g->counts[0][1], 4.0 * (double)g->scales[0]->n },
				ch = { dchase, 3.0 * (double)g->scales[1]->n }, br = { dbranch, 3.0 * (double)g->scales[2]->n };
	return xct_name_slots(g->nslots, &a1, &a4, &ch, &br, map, err, len);
}

static void print_map(const struct xct_slot_map *map)
{
	printf("\n%-6s  %-17s  %-10s  %-10s  %-10s  %s\n", "slot", "name", "alu", "chase", "branch",
	       "per work-slot count");
	for (size_t s = 0; s < map->nslots; s++) {
		char a[24], ch_s[24], b[24];
		fmt_ratio(a, sizeof(a), map->alu_norm[s]);
		fmt_ratio(ch_s, sizeof(ch_s), map->chase_norm[s]);
		fmt_ratio(b, sizeof(b), map->branch_norm[s]);
		char slot[32];
		snprintf(slot, sizeof(slot), "slot%zu", s);
		const char *name = xct_slot_name(map, s);
		printf("%-6s  %-17s  %-10s  %-10s  %s\n", slot, name ? name : "-", a, ch_s, b);
	}
}

/* What the probes showed, in one line (stored with the map): the names and why each was given. */
static char *verdict_of(const struct xct_slot_map *map)
{
	struct strbuf v = STRBUF_INIT;
	strbuf_addf(&v, "work slot%ld; ", map->work);
	if (map->cache >= 0)
		strbuf_addf(&v, "%s slot%ld (chase %.3gx the control, runner-up %.3gx; %.3g per chase step%s); ",
			    xct_slot_name(map, (size_t)map->cache), map->cache, map->cache_score, map->cache_runner_up,
			    map->cache_per_unit, map->cache_corroborated ? "" : ", not a miss count");
	else
		strbuf_addf(&v, "no clear cache slot (best %.3gx, runner-up %.3gx); ", map->cache_score,
			    map->cache_runner_up);
	if (map->branch >= 0)
		strbuf_addf(&v, "%s slot%ld (branch %.3gx the control, runner-up %.3gx; %.3g per branch iteration%s)",
			    xct_slot_name(map, (size_t)map->branch), map->branch, map->branch_score,
			    map->branch_runner_up, map->branch_per_unit, map->branch_corroborated ? "" : ", not a miss count");
	else
		strbuf_addf(&v, "no clear mispredict slot (best %.3gx, runner-up %.3gx)", map->branch_score,
			    map->branch_runner_up);
	return v.buf;
}

/* Store the map for this cpu family, xctrace version and counting mode; the exit code. */
static int store_map(struct catalog *cat, const struct xct_slot_map *map, const char *verdict)
{
	char fam[32], err[512] = "";
	xctrace_cpu_family(fam, sizeof(fam));
	struct db_slot *slots = xcalloc(map->nslots ? map->nslots : 1, sizeof(*slots));
	for (size_t s = 0; s < map->nslots; s++) {
		slots[s].slot = (long)s;
		slots[s].name = (char *)xct_slot_name(map, s);
		slots[s].alu = map->alu_norm[s];
		slots[s].chase = map->chase_norm[s];
		slots[s].branch = map->branch_norm[s];
	}
	struct db_slot_map dm = {
		.cpu_family = fam, .xctrace_version = (char *)xctrace_version_string(),
		.counting_mode = (char *)xctrace_counting_mode(), .verdict = (char *)verdict,
		.nslots = (long)map->nslots, .work_slot = map->work, .slots = slots, .n = map->nslots,
	};
	int rc = EXIT_COUNTERS;
	if (db_store_slot_map(catalog_db(cat), &dm, err, sizeof(err)) < 0) {
		error("cannot store the slot map: %s", err);
	} else {
		printf("slot map stored for cpu family %s, xctrace %s, counting mode '%s'; see 'lauka counters --details "
		       "--backend xctrace'\n", fam, xctrace_version_string(), xctrace_counting_mode());
		rc = 0;
	}
	free(slots);
	return rc;
}

/* Record, name, print and store; the exit code. */
static int calibrate_with(struct catalog *cat, struct runner *run, struct backend_inst *bi, struct guided_cal *g)
{
	print_intro(g);
	int r = record_all(run, bi, g);
	if (r)
		return r > 0 ? r : EXIT_COUNTERS;
	struct xct_slot_map map;
	char err[512] = "";
	if (name_slots(g, &map, err, sizeof(err)) < 0) {
		error("cannot name the slots: %s", err);
		return EXIT_COUNTERS;
	}
	print_map(&map);
	char *verdict = verdict_of(&map);
	printf("\n%s\n", verdict);
	int rc = store_map(cat, &map, verdict);
	free(verdict);
	xct_slot_map_release(&map);
	return rc;
}

int xctrace_calibrate(const struct lk_backend *be, const char *probe, const char *db_path, bool quick)
{
	setenv("LAUKA_XCTRACE_MODE", "guided", 1);
	char err[512] = "";
	struct catalog *cat = NULL;
	struct catalog_opts copts = { .db_path = db_path };
	if (catalog_open(&cat, be, &copts, err, sizeof(err)) < 0) {
		error("cannot load the xctrace catalogue: %s", err);
		return EXIT_COUNTERS;
	}
	const struct lk_pmu *pmu = catalog_pmu(cat);
	size_t nsel = pmu->nevents;
	struct lk_evsel *sel = xcalloc(nsel ? nsel : 1, sizeof(*sel));
	for (size_t i = 0; i < nsel; i++) {
		sel[i].ev = &pmu->events[i];
		sel[i].counter = -1;
	}
	size_t nsc;
	const struct calib_scale *sc = calib_scales(quick, false, &nsc);
	struct guided_cal *g = xcalloc(1, sizeof(*g));
	g->probe = probe;
	g->scales[0] = scale_of(sc, nsc, "alu");
	g->scales[1] = scale_of(sc, nsc, "chase");
	g->scales[2] = scale_of(sc, nsc, "branch");
	int rc = EXIT_COUNTERS;
	runner_signals_install();
	struct backend_inst bi;
	struct runner run;
	struct runner_opts ropts = { .show_output = false, .uid = -1, .gid = -1 };
	if (backend_inst_open(&bi, be, sel, nsel, err, sizeof(err)) < 0) {
		error("xctrace backend: %s", err);
	} else {
		if (runner_init(&run, &ropts, err, sizeof(err)) < 0) {
			error("%s", err);
		} else {
			rc = calibrate_with(cat, &run, &bi, g);
			runner_release(&run);
		}
		backend_inst_close(&bi);
	}
	free(g);
	free(sel);
	catalog_close(cat);
	return rc;
}
