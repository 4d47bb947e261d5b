/*
 * cmd/counters.c: `lauka counters`: the event catalogue from the database,
 * names only or with details, and the import of kpep plists.
 *
 *   $ lauka counters --pmu a14 --details
 *   name                        incompat    description
 *   atomic_or_exclusive_fail    none        Atomic or exclusive instruction failed (due to contention)
 *   ...
 *   inst_all                    pair,quad   All retired instructions
 *
 * kpep and libpfm4 names are shown lower-case, as `lauka record -m` accepts
 * them (names are case-insensitive); other catalogues keep their own
 * spelling (Ir, D1mr).  --pmu also takes any libpfm4 model (skl, icl, ...),
 * imported on demand; --details then shows each vendor event's encoding as
 * perf stat takes it (catalog/pfm.h).
 */
#include "backend/backend.h"
#include "backend/kperf/kperf.h"
#include "backend/perf-events.h"
#include "cmd/builtin.h"
#include "machine/catalog.h"
#include "catalog/db.h"
#include "base/error.h"
#include "catalog/kpep.h"
#include "catalog/perfmon.h"
#include "catalog/pfm.h"
#include "catalog/vendor.h"
#include "catalog/vendor-arm.h"
#include "output/export.h"
#include "cmd/options.h"
#include "machine/backend-choice.h"
#include "output/plot-out.h"
#include "catalog/sched.h"
#include "base/json.h"
#include "base/progress.h"
#include "base/sha256.h"
#include "base/util.h"
#include "machine/xctrace-slots.h"

#include <dirent.h>
#include <errno.h>
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct counters_opts {
	bool details, no_headers, json, check_sources, wide, smt_off;
	const char *backend, *pmu, *db, *check;
	const char **imports;
	size_t nimports;
	const char *plot;	/* --plot FILE.svg: the latest stored calibration */
	const char *pattern;	/* PATTERN: only events whose name or an alias contains it, any case */
};

#define SET(fn, stmt) \
	static int fn(void *ctx, const char *v) { struct counters_opts *o = ctx; (void)v; stmt; return 0; }
SET(set_details, o->details = true)
SET(set_no_headers, o->no_headers = true)
SET(set_json, o->json = true)
SET(set_wide, o->wide = true)
SET(set_check_sources, o->check_sources = true)
SET(set_backend, o->backend = v)
SET(set_pmu, o->pmu = v)

/* --smt on|off: a libpfm4 model's counters per thread with SMT on (the default) or per core with it off */
static int set_smt(void *ctx, const char *v)
{
	struct counters_opts *o = ctx;
	if (strcmp(v, "on") && strcmp(v, "off")) {
		error("--smt takes 'on' or 'off', not '%s'", v);
		return -1;
	}
	o->smt_off = !strcmp(v, "off");
	return 0;
}
SET(set_db, o->db = v)
SET(set_plot, o->plot = v)
SET(set_check, o->check = v)
SET(set_import, o->imports = xrealloc(o->imports, (o->nimports + 1) * sizeof(*o->imports));
    o->imports[o->nimports++] = v)
#undef SET

static const struct opt_spec counters_options[] = {
	{ "--details", "-d", false, set_details },
	{ "--no-headers", NULL, false, set_no_headers },
	{ "--json", NULL, false, set_json },
	{ "--wide", NULL, false, set_wide },
	{ "--check-sources", NULL, false, set_check_sources },
	{ "--backend", NULL, true, set_backend },
	{ "--pmu", NULL, true, set_pmu },
	{ "--smt", NULL, true, set_smt },
	{ "--db", NULL, true, set_db },
	{ "--plot", NULL, true, set_plot },
	{ "--check", NULL, true, set_check },
	{ "--import", NULL, true, set_import },
};

static int set_pattern(void *ctx, const char *v)
{
	struct counters_opts *o = ctx;
	if (o->pattern) {
		error("counters takes one PATTERN, not '%s' and '%s'", o->pattern, v);
		return -1;
	}
	o->pattern = v;
	return 0;
}

static int parse_options(int argc, char **argv, struct counters_opts *o)
{
	static const struct opt_verb verb = { "counters", counters_options, ARRAY_SIZE(counters_options), set_pattern,
					      false };
	int next;
	return opts_parse(&verb, o, argc, argv, &next);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

/* The plist files to import: each file named, and each *.plist in each directory named. */
static int collect_files(const struct counters_opts *o, char ***files, size_t *nfiles)
{
	for (size_t i = 0; i < o->nimports; i++) {
		const char *p = o->imports[i];
		struct stat st;
		if (stat(p, &st) != 0) {
			error("cannot import '%s': %s", p, strerror(errno));
			return -1;
		}
		if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
			error("cannot import '%s': not a regular file or a directory", p);
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			*files = xrealloc(*files, (*nfiles + 1) * sizeof(**files));
			(*files)[(*nfiles)++] = xstrdup(p);
			continue;
		}
		DIR *d = opendir(p);
		if (!d) {
			error("cannot read directory '%s': %s", p, strerror(errno));
			return -1;
		}
		size_t before = *nfiles;
		struct dirent *de;
		while ((de = readdir(d))) {
			/* cpu_<type>_<subtype>_<family>.plist are symlinks to the chip files. */
			if (de->d_name[0] == '.' || !has_suffix(de->d_name, ".plist") || !strncmp(de->d_name, "cpu_", 4))
				continue;
			char *f = xasprintf("%s/%s", p, de->d_name);
			if (stat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
				free(f);
				continue;
			}
			*files = xrealloc(*files, (*nfiles + 1) * sizeof(**files));
			(*files)[(*nfiles)++] = f;
		}
		closedir(d);
		if (*nfiles == before) {
			error("no kpep plists (*.plist) in directory '%s'", p);
			return -1;
		}
		qsort(*files + before, *nfiles - before, sizeof(**files), cmp_str);
	}
	return 0;
}

/* Parse everything first: one bad file and nothing is imported. */
/*
 * A vendor's event file as a catalogue named after the file, kind perfmon:
 * Intel's perfmon format (SKL/events/skylake_core.json -> skylake_core,
 * catalog/vendor.h) or Arm's (pmu/cortex-a57.json -> cortex-a57,
 * catalog/vendor-arm.h), told apart by Arm's lower-case "events" key.
 */
static int perfmon_file(const char *path, struct lk_pmu *out, char *err, size_t len)
{
	memset(out, 0, sizeof(*out));
	char *text;
	size_t n;
	char e2[512];
	int r = lk_read_file(path, 64 << 20, &text, &n);
	if (r < 0) {
		lk_errbuf(err, len, "cannot read '%s': %s", path,
			  r == -EINVAL ? "not a regular file" : r == -EFBIG ? "larger than 64 MiB (lauka's limit)" : strerror(-r));
		return r;
	}
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *name = xasprintf("%.*s", (int)(strlen(base) - strlen(".json")), base);
	/* The catalogue's name is the file's: shown in every listing, so held as names inside files are. */
	const char *bad = !*name ? "is empty" : strlen(name) > PERFMON_MAX_NAME ? "is longer than 255 bytes" :
			  kpep_name_reserved(name) ? "is the name of one of lauka's own catalogues or backends" :
			  json_text_problem(name, strlen(name));
	if (bad) {
		char shown[256];
		lk_errbuf(err, len, "'%s': the catalogue name taken from the file's name %s; rename the file",
			  json_shown(path, shown, sizeof(shown)), bad);
		free(name);
		free(text);
		return -LK_EINVAL;
	}
	bool arm = armpmu_sniff(text, n);
	struct armpmu_table a;
	struct perfmon_table t;
	if ((arm ? armpmu_parse(text, n, &a, e2, sizeof(e2)) : perfmon_parse(text, n, &t, e2, sizeof(e2))) < 0) {
		lk_errbuf(err, len, "'%s' is not an %s event file: %s", path, arm ? "Arm PMU" : "Intel perfmon", e2);
		free(name);
		free(text);
		return -LK_EINVAL;
	}
	if (arm) {
		vendor_arm_catalog(&a, name, out);
		armpmu_release(&a);
	} else {
		if (vendor_check(&t, e2, sizeof(e2)) < 0) {
			lk_errbuf(err, len, "'%s' is not an Intel perfmon event file lauka can use: %s", path, e2);
			perfmon_release(&t);
			free(name);
			free(text);
			return -LK_EINVAL;
		}
		vendor_catalog(&t, name, out);
		perfmon_release(&t);
	}
	free(out->source);
	out->source = xstrdup(path);
	sha256_hex(text, n, out->sha256);
	free(name);
	free(text);
	if (!out->nevents) {
		lk_errbuf(err, len, "'%s' has no events lauka can use", path);
		return -LK_EINVAL;
	}
	return 0;
}

static int do_import(const struct counters_opts *o, bool quiet)
{
	char **files = NULL;
	size_t nfiles = 0;
	struct lk_pmu *pmus = NULL;
	const struct lk_pmu **ptrs = NULL;
	enum db_import_status *status = NULL;
	struct db *db = NULL;
	char err[1024];
	int rc = EXIT_COUNTERS;
	if (collect_files(o, &files, &nfiles) < 0)
		goto out;
	pmus = xcalloc(nfiles, sizeof(*pmus));
	ptrs = xcalloc(nfiles, sizeof(*ptrs));
	status = xcalloc(nfiles, sizeof(*status));
	for (size_t i = 0; i < nfiles; i++) {
		char real[PATH_MAX];
		const char *path = realpath(files[i], real) ? real : files[i];
		if ((has_suffix(path, ".json") ? perfmon_file(path, &pmus[i], err, sizeof(err))
					       : kpep_parse_file(path, &pmus[i], err, sizeof(err))) < 0) {
			error("%s", err);
			tip("nothing was imported; the database is unchanged");
			goto out;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(pmus[j].name, pmus[i].name) && strcmp(pmus[j].sha256, pmus[i].sha256)) {
				error("'%s' and '%s' both describe catalogue '%s' but differ", pmus[j].source,
				      pmus[i].source, pmus[i].name);
				fix("import them one at a time, or only the one you want");
				goto out;
			}
		ptrs[i] = &pmus[i];
	}
	if (db_open(&db, o->db, err, sizeof(err)) < 0 || db_import(db, ptrs, nfiles, status, err, sizeof(err)) < 0) {
		error("%s", err);
		goto out;
	}
	FILE *f = quiet ? stderr : stdout;
	for (size_t i = 0; i < nfiles; i++) {
		static const char *const what[] = { "unchanged", "imported", "updated" };
		fprintf(f, "%s %s (%s, %zu events) from %s\n", what[status[i]], pmus[i].name, pmus[i].marketing_name,
			pmus[i].nevents, pmus[i].source);
	}
	rc = 0;
out:
	db_close(db);
	for (size_t i = 0; i < nfiles; i++) {
		free(files[i]);
		if (pmus)
			pmu_release(&pmus[i]);
	}
	free(files);
	free(pmus);
	free(ptrs);
	free(status);
	return rc;
}

static char *display(const struct lk_pmu *p, const char *name)
{
	return pmu_shown_name(p, name);
}

/* An Arm PMUv3 catalogue (its one fixed counter is the cycle counter), not an Apple kpep one. */
static bool arm_pmu(const struct lk_pmu *p)
{
	return p->arch && !strcmp(p->arch, "arm64") && p->kind && strcmp(p->kind, "kpep");
}

/*
 * A catalogue whose masks number the fixed counters apart from the general ones, from bit
 * PFMCAT_FIXED_BASE (libpfm4, Intel perfmon and Arm catalogues); kpep numbers all its counters in one range.
 */
static bool fixed_apart(const struct lk_pmu *p)
{
	return p->kind && (!strcmp(p->kind, "pfm") || !strcmp(p->kind, "perfmon") || arm_pmu(p));
}

/*
 * An event's scheduling rules beyond its counter mask, in --details: folded
 * into the incompat column after the mask's labels, comma-separated without
 * spaces as "pair,quad" and "groupN" are.  That column already answers "what
 * can this event not be counted beside"; a column of its own would also have
 * moved the encoding off the third field and changed the header, which
 * scripts read.  The words say what --json says as "fixed", "cycle_counter",
 * "taken_alone" and "needs_sampling", and which shared register
 * catalog/sched.c holds the event to:
 *   fixedN         it may use Intel's fixed counter N
 *   cycle-counter  it may use Arm PMUv3's cycle counter
 *   offcore, ldlat, frontend
 *                  it holds that shared register: a pass has room for two
 *                  offcore response values, one load-latency, one frontend
 *   alone          Intel's TakenAlone: no other event of its register in its
 *                  pass (only with a register, the one case sched.c applies;
 *                  every TakenAlone row of the shipped tables has one)
 *   sampling       Intel's PEBS=2: counts only as a PEBS event, so
 *                  calibration leaves it out
 * The label "none" goes when a rule follows it.
 */
static void add_rules(const struct lk_pmu *p, const struct lk_event *e, char *inc, size_t len)
{
	struct strbuf r = STRBUF_INIT;
	uint64_t m = e->counters_mask & ~SCHED_PAIR;
	for (int c = PFMCAT_FIXED_BASE; fixed_apart(p) && c < 64; c++)
		if (m >> c & 1) {
			if (arm_pmu(p))
				strbuf_addf(&r, ",cycle-counter");
			else
				strbuf_addf(&r, ",fixed%d", c - PFMCAT_FIXED_BASE);
		}
	const char *reg = sched_shared_register(p, e);
	if (reg)
		strbuf_addf(&r, ",%s", reg);
	if (reg && (e->flags & LK_EVF_TAKEN_ALONE))
		strbuf_addf(&r, ",alone");
	if (e->flags & LK_EVF_NEEDS_SAMPLING)
		strbuf_addf(&r, ",sampling");
	if (r.len) {
		const char *rules = strbuf_str(&r);
		if (!strcmp(inc, "none") || !*inc)
			snprintf(inc, len, "%s", rules + 1);
		else
			snprintf(inc + strlen(inc), len - strlen(inc), "%s", rules);
	}
	strbuf_release(&r);
}

/* The Arm CPU PMU's sysfs device, as the catalogue's "armv8_pmuv3/inst_retired/" names show it, or "". */
static void arm_device(const struct lk_pmu *p, char *dev, size_t len)
{
	/* found once per catalogue (its rows' array and count), not per row: a listing of 40,000 rows was quadratic */
	static const struct lk_event *seen_events;
	static size_t seen_n;
	static char seen_dev[64];
	if (p->events != seen_events || p->nevents != seen_n) {
		seen_dev[0] = '\0';
		for (size_t i = 0; i < p->nevents; i++) {
			const char *n = p->events[i].name, *slash = strchr(n, '/');
			if (!strncmp(n, "armv8", 5) && slash && (size_t)(slash - n) < sizeof(seen_dev)) {
				snprintf(seen_dev, sizeof(seen_dev), "%.*s", (int)(slash - n), n);
				break;
			}
		}
		seen_events = p->events;
		seen_n = p->nevents;
	}
	snprintf(dev, len, "%s", seen_dev);
}

/* perf stat's spelling of a raw x86 or Arm encoding (vendor events), or "" for other events. */
static void encoding(const struct lk_pmu *p, const struct lk_event *e, char *buf, size_t len)
{
	buf[0] = '\0';
	if (e->perf_type == 4 /* PERF_TYPE_RAW */ && p->arch && !strcmp(p->arch, "arm64") && strcmp(p->kind, "kpep")) {
		char dev[64];
		arm_device(p, dev, sizeof(dev));
		pfmcat_arm_perf_string(dev, e->number, buf, len);
	} else if ((!p->arch || !strcmp(p->arch, "x86_64")) && strcmp(p->kind, "kpep")) {
		/* a hybrid Intel CPU has no `cpu` PMU: perf takes cpu_core/…/ and cpu_atom/…/ (issue 35 item 5) */
		const char *hybrid = !strcmp(p->kind, "perf") || !strcmp(p->kind, "perfmon") ?
					     perf_hybrid_pmu_of_type(e->perf_type) : NULL;
		if (e->perf_type != 4 /* PERF_TYPE_RAW */ && !hybrid)
			return;
		pfmcat_perf_string(pfmcat_is_intel(p), e->number, e->config1, buf, len);
		if (hybrid && !strncmp(buf, "cpu/", 4)) {
			char *rest = xstrdup(buf + 3);
			snprintf(buf, len, "%s%s", hybrid, rest);
			free(rest);
		}
	}
}

/*
 * For the backend's own catalogue, which events can't be counted here at
 * all (no PMU, no privileges)?  why[i] is "" for the ones that can.  Says
 * whether any can't.
 */
static bool find_unsupported(const struct counters_opts *o, const struct lk_backend *b,
			     const struct lk_pmu *p, char (*why)[160])
{
	bool any = false;
	if (!(o->details || o->json) || o->pmu || !b->supported)
		return false;
	for (size_t i = 0; i < p->nevents; i++)
		any |= b->supported(&p->events[i], why[i], sizeof(why[i])) < 0;
	return any;
}

static char (*why_base)[160];

/* By reason, then by first appearance, so each reason is counted in one pass. */
static int cmp_why(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(why_base[x], why_base[y]);
	return c ? c : x < y ? -1 : x > y;
}

/* After the table, on stderr: each reason once (in order of first appearance), with how many events it keeps from counting. */
static void note_unsupported(const struct lk_pmu *p, char (*why)[160])
{
	size_t *idx = xcalloc(p->nevents + 1, sizeof(*idx)), n = 0;
	for (size_t i = 0; i < p->nevents; i++)
		if (why[i][0])
			idx[n++] = i;
	why_base = why;
	qsort(idx, n, sizeof(*idx), cmp_why);
	/* first[k]: the first event of a reason, count[k] how many share it. */
	size_t *first = xcalloc(n + 1, sizeof(*first)), *count = xcalloc(n + 1, sizeof(*count)), nr = 0;
	for (size_t k = 0; k < n; k++) {
		if (!k || strcmp(why[idx[k]], why[idx[k - 1]])) {
			first[nr] = idx[k];
			count[nr++] = 0;
		}
		count[nr - 1]++;
	}
	size_t *order = xcalloc(nr + 1, sizeof(*order));
	for (size_t k = 0; k < nr; k++)
		order[k] = k;
	for (size_t k = 1; k < nr; k++)	/* few distinct reasons: insertion sort by first appearance */
		for (size_t j = k; j > 0 && first[order[j - 1]] > first[order[j]]; j--) {
			size_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (size_t k = 0; k < nr; k++)
		notice("%zu event%s marked unsupported cannot be counted here: %s", count[order[k]],
		       count[order[k]] == 1 ? "" : "s", why[first[order[k]]]);
	free(order);
	free(first);
	free(count);
	free(idx);
}

/*
 * Print text from column `at` (the cursor is there), wrapped at width with
 * continuation lines indented by `indent` (< width); a word longer than a
 * line is cut.
 */
static void print_wrapped(const char *text, size_t at, size_t indent, size_t width)
{
	size_t col = at;
	bool first = true;
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		size_t w = strcspn(p, " ");
		if (!w)
			break;
		if (!first && col + 1 + w > width) {
			printf("\n%*s", (int)indent, "");
			col = indent;
			first = true;
		}
		if (!first) {
			putchar(' ');
			col++;
		}
		while (col + w > width && width > col) {
			size_t room = width - col;
			printf("%.*s\n%*s", (int)room, p, (int)indent, "");
			p += room;
			w -= room;
			col = indent;
		}
		printf("%.*s", (int)w, p);
		col += w;
		p += w;
		first = false;
	}
	putchar('\n');
}

/* An event's description column: its text, fixed counter, notes and errata. */
static void describe(const struct lk_pmu *p, const struct lk_event *e, struct strbuf *d)
{
	if (e->description)
		strbuf_addf(d, "%s", e->description);
	if (e->fixed_counter >= 0) {
		/* libpfm4 catalogues number fixed counters from bit 32, as the kernel does */
		int fc = e->fixed_counter >= PFMCAT_FIXED_BASE ? e->fixed_counter - PFMCAT_FIXED_BASE : e->fixed_counter;
		strbuf_addf(d, "%s(fixed counter %d", d->len ? " " : "", fc);
		if (e->fallback) {
			char *fb = display(p, e->fallback);
			strbuf_addf(d, "; falls back to %s", fb);
			free(fb);
		}
		strbuf_addf(d, ")");
	}
	if (kperf_event_note(p, e))	/* F5: kpc's configurable counters are user mode only */
		strbuf_addf(d, "%s[%s]", d->len ? " " : "", kperf_event_note(p, e));
	if (e->errata)
		strbuf_addf(d, "%s[errata: %s]", d->len ? " " : "", e->errata);
}

/*
 * One row of --details.  width 0 (a pipe, a file, --wide): the whole line.
 * On a terminal a row wider than it is wrapped: the description under its
 * own column when the other columns leave it 20 or more; otherwise (vendor
 * names are up to 60 characters) the row's fields wrapped from column 0 and
 * the description below them, both indented by four.
 */
static void print_row(const char *cols, size_t wcols, const char *desc, size_t width)
{
	if (!width || wcols + strlen(desc) <= width) {
		struct strbuf line = STRBUF_INIT;
		strbuf_addf(&line, "%s%s", cols, desc);
		while (line.len && line.buf[line.len - 1] == ' ')
			line.buf[--line.len] = '\0';
		printf("%s\n", strbuf_str(&line));
		strbuf_release(&line);
	} else if (wcols + 20 <= width) {
		printf("%s", cols);
		print_wrapped(desc, wcols, wcols, width);
	} else {
		print_wrapped(cols, 0, 4, width);
		if (*desc) {
			printf("    ");
			print_wrapped(desc, 4, 4, width);
		}
	}
}

/* The rows PATTERN selects (NULL: all): a case-insensitive substring of the name or of one of its aliases. */
static bool *row_shown;

static bool contains_ci(const char *s, const char *pat)
{
	size_t n = strlen(pat);
	for (; *s; s++) {
		size_t k = 0;
		while (k < n && s[k] && tolower((unsigned char)s[k]) == tolower((unsigned char)pat[k]))
			k++;
		if (k == n)
			return true;
	}
	return !n;
}

static size_t select_rows(const struct lk_pmu *p, const char *pat)
{
	free(row_shown);
	row_shown = NULL;
	if (!pat)
		return p->nevents;
	row_shown = xcalloc(p->nevents + 1, sizeof(*row_shown));
	size_t n = 0;
	for (size_t i = 0; i < p->nevents; i++)
		row_shown[i] = contains_ci(p->events[i].name, pat);
	for (size_t a = 0; a < p->naliases; a++) {
		if (!contains_ci(p->aliases[a].alias, pat))
			continue;
		const struct lk_event *e = pmu_find_exact(p, p->aliases[a].target);
		if (e)
			row_shown[e - p->events] = true;
	}
	for (size_t i = 0; i < p->nevents; i++)
		n += row_shown[i];
	return n;
}

static bool shown_row(size_t i)
{
	return !row_shown || row_shown[i];
}

static void print_catalogue(const struct counters_opts *o, const struct lk_backend *b, const struct catalog *cat)
{
	const struct lk_pmu *p = catalog_pmu(cat);
	char **names = xcalloc(p->nevents + 1, sizeof(*names));
	char (*why)[160] = xcalloc(p->nevents + 1, sizeof(*why));
	bool unsupported = find_unsupported(o, b, p, why);
	size_t wname = strlen("name"), winc = strlen("incompat"), wver = strlen("verdict"), wenc = 0;
	char (*inc)[80] = xcalloc(p->nevents + 1, sizeof(*inc));
	char (*enc)[80] = o->details ? xcalloc(p->nevents + 1, sizeof(*enc)) : NULL;
	struct sched_groups groups;
	sched_groups_init(p, &groups);
	for (size_t i = 0; i < p->nevents; i++) {
		names[i] = display(p, p->events[i].name);
		if (!shown_row(i))
			continue;
		if (strlen(names[i]) > wname)
			wname = strlen(names[i]);
		sched_incompat_in(&groups, &p->events[i], inc[i], sizeof(inc[i]));
		add_rules(p, &p->events[i], inc[i], sizeof(inc[i]));
		if (strlen(inc[i]) > winc)
			winc = strlen(inc[i]);
		const char *v = catalog_verdict(cat, &p->events[i]);
		if (!v && why[i][0])
			v = "unsupported";
		if (v && strlen(v) > wver)
			wver = strlen(v);
		if (enc) {
			encoding(p, &p->events[i], enc[i], sizeof(enc[i]));
			if (strlen(enc[i]) > wenc)
				wenc = strlen(enc[i]);
		}
	}
	if (wenc && wenc < strlen("encoding"))
		wenc = strlen("encoding");
	bool verdicts = catalog_has_verdicts(cat) || unsupported;
	if (!o->details) {
		for (size_t i = 0; i < p->nevents; i++)
			if (shown_row(i))
				printf("%s\n", names[i]);
		goto out;
	}
	size_t width = o->wide ? 0 : term_columns(STDOUT_FILENO);
	size_t wcols = wname + 2 + winc + 2 + (verdicts ? wver + 2 : 0) + (wenc ? wenc + 2 : 0);
	if (!o->no_headers && (!width || wcols + 20 <= width)) {
		printf("%-*s  %-*s  ", (int)wname, "name", (int)winc, "incompat");
		if (verdicts)
			printf("%-*s  ", (int)wver, "verdict");
		if (wenc)
			printf("%-*s  ", (int)wenc, "encoding");
		printf("description\n");
	}
	for (size_t i = 0; i < p->nevents; i++) {
		const struct lk_event *e = &p->events[i];
		if (!shown_row(i))
			continue;
		struct strbuf d = STRBUF_INIT;
		describe(p, e, &d);
		struct strbuf line = STRBUF_INIT;
		strbuf_addf(&line, "%-*s  %-*s  ", (int)wname, names[i], (int)winc, inc[i]);
		if (verdicts) {
			const char *v = catalog_verdict(cat, e);
			if (!v && why[i][0])
				v = "unsupported";
			strbuf_addf(&line, "%-*s  ", (int)wver, v ? v : "-");
		}
		if (wenc)
			strbuf_addf(&line, "%-*s  ", (int)wenc, enc[i][0] ? enc[i] : "-");
		print_row(strbuf_str(&line), wcols, strbuf_str(&d), width);
		strbuf_release(&line);
		strbuf_release(&d);
	}
	fflush(stdout);
	note_unsupported(p, why);
out:
	sched_groups_release(&groups);
	for (size_t i = 0; i < p->nevents; i++)
		free(names[i]);
	free(names);
	free(inc);
	free(enc);
	free(why);
}

/* The vendor's table lauka lays over this libpfm4 catalogue: Intel's (catalog/vendor.h) or Arm's
 * (catalog/vendor-arm.h). */
struct vendor_tab {
	bool intel, arm;
	struct perfmon_table t;
	struct armpmu_table a;
};

/* False when the catalogue has none. */
static bool vendor_table(const struct lk_pmu *p, struct vendor_tab *v)
{
	memset(v, 0, sizeof(*v));
	if (!p->kind || strcmp(p->kind, "pfm"))
		return false;
	size_t len;
	char err[256];
	const char *text = vendor_builtin(pfmcat_vendor_table(p->name), &len);
	if (text)
		return v->intel = perfmon_parse(text, len, &v->t, err, sizeof(err)) == 0;
	text = vendor_arm_builtin(p->name, &len);
	return text && (v->arm = armpmu_parse(text, len, &v->a, err, sizeof(err)) == 0);
}

static bool vendor_names(const struct vendor_tab *v, const char *name)
{
	return v->intel ? perfmon_find(&v->t, name) != NULL : v->arm && armpmu_find(&v->a, name) != NULL;
}

static void vendor_release(struct vendor_tab *v)
{
	if (v->intel)
		perfmon_release(&v->t);
	if (v->arm)
		armpmu_release(&v->a);
}

static int cmp_alias_target(const void *a, const void *b)
{
	const struct lk_alias *x = *(const struct lk_alias *const *)a, *y = *(const struct lk_alias *const *)b;
	int c = strcmp(x->target, y->target);
	return c ? c : strcmp(x->alias, y->alias);
}

/* The catalogue's aliases sorted by target, so that each row's are found by bisection. */
static const struct lk_alias **aliases_by_target(const struct lk_pmu *p)
{
	const struct lk_alias **a = xcalloc(p->naliases + 1, sizeof(*a));
	for (size_t i = 0; i < p->naliases; i++)
		a[i] = &p->aliases[i];
	qsort(a, p->naliases, sizeof(*a), cmp_alias_target);
	return a;
}

static size_t first_alias_of(const struct lk_alias *const *a, size_t n, const char *target)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(a[mid]->target, target) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* --json: one object per event, the machine-readable form of --details. */
static void print_json(const struct counters_opts *o, const struct lk_backend *b, const struct lk_pmu *p,
		       struct catalog *cat)
{
	/* the verdict --details shows: the stored one, else "unsupported" for an event this machine cannot count */
	char (*why)[160] = xcalloc(p->nevents + 1, sizeof(*why));
	find_unsupported(o, b, p, why);
	struct vendor_tab t;
	bool vt = vendor_table(p, &t);
	const struct lk_alias **al = aliases_by_target(p);
	const char *libpfm = p->kind && !strcmp(p->kind, "pfm") ? "libpfm4" : p->kind;
	printf("[");
	size_t nshown = 0;
	for (size_t i = 0; i < p->nevents; i++) {
		const struct lk_event *e = &p->events[i];
		if (!shown_row(i))
			continue;
		char *name = display(p, e->name);
		printf("%s\n  {\"name\": ", nshown++ ? "," : "");
		export_json_str(stdout, name);
		printf(", \"catalogue\": ");
		export_json_str(stdout, p->name);
		printf(", \"aliases\": [");
		bool vendor_named = vt && vendor_names(&t, e->name);
		size_t k = first_alias_of(al, p->naliases, e->name), na = 0;
		for (; k < p->naliases && !strcmp(al[k]->target, e->name); k++) {
			printf("%s", na++ ? ", " : "");
			export_json_str(stdout, al[k]->alias);
			vendor_named |= vt && vendor_names(&t, al[k]->alias);
		}
		char enc[128] = "";
		encoding(p, e, enc, sizeof(enc));
		printf("], \"encoding\": ");
		if (enc[0])
			export_json_str(stdout, enc);
		else
			printf("null");
		/*
		 * One shape for every catalogue (catalog-audit-5 C14): "counters" the general counters (integers),
		 * "fixed" Intel's fixed counters by number (integers), "cycle_counter" Arm PMUv3's PMCCNTR_EL0.
		 * kpep numbers its counters in one range: all in "counters".
		 */
		uint64_t m = e->counters_mask & ~SCHED_PAIR;
		bool split = fixed_apart(p);
		bool cycle = false;
		size_t nc = 0;
		printf(", \"counters\": [");
		for (int c = 0; c < 64; c++)
			if (m >> c & 1 && (!split || c < PFMCAT_FIXED_BASE))
				printf("%s%d", nc++ ? ", " : "", c);
		printf("], \"fixed\": [");
		nc = 0;
		for (int c = PFMCAT_FIXED_BASE; split && c < 64; c++)
			if (m >> c & 1) {
				if (arm_pmu(p))
					cycle = true;
				else
					printf("%s%d", nc++ ? ", " : "", c - PFMCAT_FIXED_BASE);
			}
		printf("], \"cycle_counter\": %s", cycle ? "true" : "false");
		printf(", \"taken_alone\": %s, \"needs_sampling\": %s", e->flags & LK_EVF_TAKEN_ALONE ? "true" : "false",
		       e->flags & LK_EVF_NEEDS_SAMPLING ? "true" : "false");
		printf(", \"pair\": %s, \"verdict\": ", e->counters_mask & SCHED_PAIR ? "true" : "false");
		const char *v = catalog_verdict(cat, e);
		if (!v && why[i][0])
			v = "unsupported";
		if (v)
			export_json_str(stdout, v);
		else
			printf("null");
		/* the numbers perf_event_open takes (type, config, config1) */
		printf(", \"perf_type\": %" PRIu32 ", \"config\": %" PRIu64 ", \"config1\": %" PRIu64, e->perf_type,
		       e->number, e->config1);
		printf(", \"sources\": [");
		bool vendor_only = e->description && (!strncmp(e->description, "(from Intel's table", 19) ||
						      strstr(e->description, "(from Arm's table"));
		size_t ns = 0;
		if (!vendor_only) {
			export_json_str(stdout, libpfm);
			ns++;
		}
		if (vendor_only || vendor_named) {
			printf("%s", ns ? ", " : "");
			export_json_str(stdout, t.arm ? "arm-data" : "intel-perfmon");
		}
		printf("], \"errata\": ");
		if (e->errata)
			export_json_str(stdout, e->errata);
		else
			printf("null");
		printf(", \"description\": ");
		if (e->description)
			export_json_str(stdout, e->description);
		else
			printf("null");
		printf("}");
		free(name);
	}
	printf("%s]\n", nshown ? "\n" : "");
	free(why);
	free(al);
	if (vt)
		vendor_release(&t);
}

/*
 * --check-sources: where libpfm4 and the vendor's table disagree on an
 * event's encoding (the vendor's wins; catalog/vendor.h), one line each.
 * Exit 0 whether or not there are any: it is a report.
 */
static int check_sources(const struct counters_opts *o, const struct lk_pmu *p)
{
	struct vendor_tab t;
	if (!vendor_table(p, &t)) {
		error("catalogue '%s' has no vendor table to check libpfm4 against", p->name);
		tip("lauka ships Intel's tables for skl, icl and spr and Arm's for arm_ac53, arm_ac57, arm_n1, arm_n2, "
		    "arm_v1 and arm_v2: lauka counters --pmu skl --check-sources");
		return EXIT_USAGE;
	}
	size_t n = 0, w = strlen("event");
	for (size_t i = 0; i < p->nevents; i++)
		if (p->events[i].errata && strlen(p->events[i].name) > w)
			w = strlen(p->events[i].name);
	for (size_t i = 0; i < p->nevents; i++) {
		const struct lk_event *e = &p->events[i];
		if (!e->errata)
			continue;
		if (!n++ && !o->no_headers)
			printf("%-*s  %s\n", (int)w, "event", "sources");
		char *name = display(p, e->name);
		printf("%-*s  %s\n", (int)w, name, e->errata);
		free(name);
	}
	if (t.arm)
		printf("%zu of %zu events differ between libpfm4 and Arm's table (%s)\n", n, p->nevents,
		       t.a.cpu ? t.a.cpu : p->name);
	else
		printf("%zu of %zu events differ between libpfm4 and the vendor's table (version %s)\n", n, p->nevents,
		       t.t.version ? t.t.version : "unknown");
	vendor_release(&t);
	return 0;
}

/*
 * --check a,b,c: can these events be counted together on this catalogue?
 * The same names, scheduling and messages as `lauka record -m`, without
 * running anything, so an event set for a Mac can be planned anywhere.
 */
static int check_set(const struct counters_opts *o, const struct lk_pmu *p)
{
	const struct lk_event **evs = NULL;
	struct lk_event **adhoc = NULL;	/* raw encodings no row has (pfmcat_adhoc, _arm_adhoc), owned */
	size_t n = 0, nadhoc = 0;
	int rc = EXIT_USAGE;
	char *list = xstrdup(o->check), *save = NULL;
	/* perf's cpu/event=0xd1,umask=0x20/ holds commas: a comma between slashes does not split the list */
	bool in_raw = false;
	for (char *c = list; *c; c++) {
		if (*c == '/')
			in_raw = !in_raw;
		else if (*c == ',' && in_raw)
			*c = '\x1f';
	}
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		for (char *c = t; *c; c++)
			if (*c == '\x1f')
				*c = ',';
		while (*t == ' ')
			t++;
		for (size_t k = strlen(t); k && t[k - 1] == ' '; k--)
			t[k - 1] = '\0';
		if (!*t)
			continue;
		const struct lk_event *ev = pfmcat_find(p, t);
		struct lk_event raw;
		if (!ev && (pfmcat_adhoc(p, t, &raw) || pfmcat_arm_adhoc(p, t, &raw))) {
			adhoc = xrealloc(adhoc, (nadhoc + 1) * sizeof(*adhoc));
			adhoc[nadhoc] = xmalloc(sizeof(raw));
			*adhoc[nadhoc] = raw;
			ev = adhoc[nadhoc++];
		}
		if (!ev) {
			const char *best[4];
			size_t nb = pmu_suggest(p, t, best, 4);
			error("unknown event '%s' in catalogue '%s'", t, p->name);
			struct strbuf sb = STRBUF_INIT;
			for (size_t i = 0; i < nb; i++) {
				char *d = display(p, best[i]);
				strbuf_addf(&sb, "%s'%s'", i ? ", " : "", d);
				free(d);
			}
			if (nb)
				tip("did you mean %s?", strbuf_str(&sb));
			strbuf_release(&sb);
			goto out;
		}
		bool dup = false;
		for (size_t i = 0; i < n; i++)
			dup |= evs[i] == ev;
		if (dup)
			continue;
		evs = xrealloc(evs, (n + 1) * sizeof(*evs));
		evs[n++] = ev;
	}
	if (!n) {
		error("no event named in --check '%s'", o->check);
		goto out;
	}
	int *counter = xcalloc(n, sizeof(*counter));
	struct sched_conflict conf;
	if (sched_assign(p, evs, n, counter, &conf) < 0) {
		char *names = sched_conflict_names(evs, &conf);
		error("requested measurements could not be scheduled on %s", p->marketing_name ? p->marketing_name : p->name);
		tip("these events cannot be counted together: %s", names);
		free(names);
		free(counter);
		rc = EXIT_COUNTERS;
		goto out;
	}
	size_t w = strlen("event");
	for (size_t i = 0; i < n; i++)
		if (strlen(evs[i]->name) > w)
			w = strlen(evs[i]->name);
	if (!o->no_headers)
		printf("%-*s  counter\n", (int)w, "event");
	for (size_t i = 0; i < n; i++) {
		char *name = display(p, evs[i]->name);
		if (counter[i] < 0)
			printf("%-*s  any\n", (int)w, name);
		else if (evs[i]->fixed_counter >= 0 && counter[i] != evs[i]->fixed_counter && evs[i]->fallback) {
			char *fb = display(p, evs[i]->fallback);
			printf("%-*s  %d (as %s)\n", (int)w, name, counter[i], fb);
			free(fb);
		} else if (evs[i]->counters_mask & SCHED_PAIR)
			printf("%-*s  %d+%d\n", (int)w, name, counter[i], counter[i] + 1);	/* a counter pair */
		else if (counter[i] >= PFMCAT_FIXED_BASE && arm_pmu(p))
			printf("%-*s  cycle\n", (int)w, name);
		else if (counter[i] >= PFMCAT_FIXED_BASE && p->kind && (!strcmp(p->kind, "pfm") || !strcmp(p->kind, "perfmon")))
			printf("%-*s  fixed %d\n", (int)w, name, counter[i] - PFMCAT_FIXED_BASE);
		else
			printf("%-*s  %d\n", (int)w, name, counter[i]);
		free(name);
	}
	free(counter);
	rc = 0;
out:
	for (size_t i = 0; i < nadhoc; i++) {
		free(adhoc[i]->name);
		free(adhoc[i]->description);
		free(adhoc[i]);
	}
	free(adhoc);
	free(evs);
	free(list);
	return rc;
}

int cmd_counters(int argc, char **argv)
{
	struct counters_opts o = { 0 };
	int r = parse_options(argc, argv, &o);
	if (r > 0) {
		free(o.imports);
		return 0;
	}
	if (r < 0) {
		free(o.imports);
		return EXIT_USAGE;
	}
	const struct lk_backend *b = NULL;
	if (o.backend) {
		b = backend_named(o.backend);
		if (!b) {
			free(o.imports);
			return EXIT_USAGE;
		}
	}
	bool list = !o.nimports || o.pmu || o.backend || o.details || o.check || o.plot || o.json || o.check_sources;
	if (o.nimports && (r = do_import(&o, list)) != 0) {
		free(o.imports);
		return r;
	}
	free(o.imports);
	if (!list)
		return 0;
	char needs[512] = "";
	if (!b)
		b = backend_for_listing(needs, sizeof(needs));

	struct catalog *cat = NULL;
	/* a listing only reads: it does not wait on another lauka's write (machine/catalog.h) */
	struct catalog_opts copts = { .db_path = o.db, .pmu_name = o.pmu, .read_only = true, .smt_off = o.smt_off };
	char err[1024];
	r = catalog_open(&cat, b, &copts, err, sizeof(err));
	if (r < 0) {
		error("%s", err);
		if (r == -LK_EINVAL && o.smt_off)
			fix("leave out --smt off: lauka plans this model with its counters per thread as libpfm4 gives them");
		return r == -LK_ENOENT && o.pmu ? EXIT_USAGE : EXIT_COUNTERS;
	}
	r = 0;
	if (o.pattern && (o.check || o.check_sources)) {
		error("a PATTERN filters the listing; --check and --check-sources take no PATTERN");
		tip("lauka counters --pmu M PATTERN lists the events whose names contain PATTERN");
		catalog_close(cat);
		free(o.imports);
		return EXIT_USAGE;
	}
	if (o.pattern && !select_rows(catalog_pmu(cat), o.pattern)) {
		error("no event of catalogue '%s' has '%s' in its name or an alias", catalog_pmu(cat)->name, o.pattern);
		tip("lauka counters%s%s lists them all", o.pmu ? " --pmu " : "", o.pmu ? o.pmu : "");
		free(row_shown);
		row_shown = NULL;
		catalog_close(cat);
		free(o.imports);
		return EXIT_USAGE;
	}
	if (o.check)
		r = check_set(&o, catalog_pmu(cat));
	else if (o.check_sources)
		r = check_sources(&o, catalog_pmu(cat));
	else if (o.json)
		print_json(&o, b, catalog_pmu(cat), cat);
	else
		print_catalogue(&o, b, cat);
	if (!o.check && o.details && !strcmp(b->name, "xctrace"))
		xctrace_print_slot_map(catalog_db(cat), stdout);
	if (o.plot && r == 0) {
		fflush(stdout);
		int pr = plot_calib_write(cat, b->name, o.plot, err, sizeof(err));
		if (pr == -LK_ENOENT) {
			error("%s", err);
			fix("calibrate first: lauka calibrate --backend %s --plot %s", b->name, o.plot);
			r = EXIT_COUNTERS;
		} else if (pr < 0) {
			error("%s", err);
			r = pr == -LK_EIO ? EXIT_USAGE : EXIT_COUNTERS;
		} else {
			fprintf(stderr, "plot written to '%s'\n", o.plot);
		}
	}
	if (b->pfm_events && !pfmcat_available() && !o.pmu && !o.check) {
		fflush(stdout);
		notice("this lauka was built without libpfm4, so no vendor events are listed; install libpfm4-dev and "
		       "rebuild");
	}
	if (!o.pmu && !o.check && catalog_uncounted_note(cat)) {
		fflush(stdout);
		notice("%s", catalog_uncounted_note(cat));
	}
	if (needs[0] && !o.pmu) {
		fflush(stdout);
		notice("these are %s events; counting them needs root: %s", b->name, needs);
		if (!strcmp(b->name, "kperf"))
			tip("without root, 'lauka record --backend xctrace' counts them through Instruments (needs Xcode; "
			    "seconds per run)");
	}
	free(row_shown);
	row_shown = NULL;
	catalog_close(cat);
	return r;
}
