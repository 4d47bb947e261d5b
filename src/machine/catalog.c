/*
 * machine/catalog.c: the catalogue as the verbs see it: the backend's catalogue
 * persisted in the database (import when missing or changed), loaded back,
 * with the latest verdicts of this machine.
 */
#include "machine/catalog.h"
#include "catalog/calib.h"
#include "catalog/db.h"
#include "catalog/pfm.h"
#include "catalog/vendor-arm.h"
#include "catalog/vendor.h"
#ifdef __linux__
#include "backend/perf-events.h"
#endif
#include "base/error.h"
#include "base/sha256.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

struct catalog {
	struct db *db;
	struct lk_pmu pmu;
	char *machine;
	struct db_latest *verdicts;	/* sorted by event name */
	size_t nverdicts;
	char *uncounted;	/* the note on vendor events this kernel cannot count, or NULL */
};

/* Does the kernel expose a core PMU that could count libpfm4's raw encodings? */
static bool kernel_core_pmu(void)
{
#ifdef __linux__
	return perf_have_core_pmu() != 0;
#else
	return false;
#endif
}

static void add_field(struct strbuf *sb, const char *s)
{
	/* Length-prefixed, so that no two different catalogues serialise alike. */
	strbuf_addf(sb, "%zu:%s;", s ? strlen(s) : (size_t)-1, s ? s : "");
}

void catalog_fingerprint(struct lk_pmu *p)
{
	if (p->sha256[0])
		return;
	struct strbuf sb = STRBUF_INIT;
	add_field(&sb, p->kind);
	add_field(&sb, p->name);
	add_field(&sb, p->marketing_name);
	add_field(&sb, p->arch);
	add_field(&sb, p->source);
	strbuf_addf(&sb, "%llx;%llx;%llx;", (unsigned long long)p->fixed_mask, (unsigned long long)p->config_mask,
		    (unsigned long long)p->power_mask);
	for (size_t i = 0; i < p->nevents; i++) {
		const struct lk_event *e = &p->events[i];
		add_field(&sb, e->name);
		add_field(&sb, e->description);
		add_field(&sb, e->fallback);
		add_field(&sb, e->errata);
		add_field(&sb, e->unit);
		strbuf_addf(&sb, "%llx;%llx;%llx;%d;%x;%llx;%llx;", (unsigned long long)e->number,
			    (unsigned long long)e->umask, (unsigned long long)e->counters_mask, e->fixed_counter,
			    (unsigned)e->perf_type, (unsigned long long)e->config1, (unsigned long long)e->config2);
	}
	for (size_t i = 0; i < p->naliases; i++) {
		add_field(&sb, p->aliases[i].alias);
		add_field(&sb, p->aliases[i].target);
	}
	sha256_hex(strbuf_str(&sb), sb.len, p->sha256);
	strbuf_release(&sb);
}

/*
 * Import the backend's catalogue unless the database already has it
 * unchanged.  A read-only database cannot take it: then the catalogue is
 * kept in memory (*live) and used as it is, without touching the file.
 */
static int sync_backend(struct db *db, const struct lk_backend *b, bool read_only, char **name, char **kind,
			struct lk_pmu *live, bool *have_live, char *err, size_t len)
{
	struct lk_pmu fresh = { 0 };
	int r = b->catalog(&fresh, err, len);
	if (r < 0) {
		pmu_release(&fresh);
		return r;
	}
	catalog_fingerprint(&fresh);
	char hex[65];
	if ((r = db_pmu_sha256(db, fresh.kind, fresh.name, hex, err, len)) == 0 && strcmp(hex, fresh.sha256)) {
		if (db_readonly(db)) {
			*name = xstrdup(fresh.name);
			*kind = xstrdup(fresh.kind);
			*live = fresh;
			*have_live = true;
			return 0;
		}
		/* Another lauka writing holds the lock (up to the busy timeout, 15 s): storing can wait for a
		 * later run, this one works from the catalogue in memory. */
		const struct lk_pmu *one = &fresh;
		r = read_only ? db_import_nowait(db, &one, 1, err, len) : db_import(db, &one, 1, NULL, err, len);
		if (r == -LK_EBUSY) {
			*name = xstrdup(fresh.name);
			*kind = xstrdup(fresh.kind);
			*live = fresh;
			*have_live = true;
			return 0;
		}
	}
	*name = xstrdup(fresh.name);
	*kind = xstrdup(fresh.kind);
	pmu_release(&fresh);
	return r;
}

/*
 * Make the database hold libpfm4's model as it is now (imported when new,
 * or when libpfm4 or lauka's reading of it changed: the fingerprint says).
 * A read-only database cannot take it: then *live holds it.
 */
static int sync_pfm(struct db *db, const char *model, struct lk_pmu *live, bool *have_live, char *err, size_t len)
{
	char hex[65], stored[65];
	int r = pfmcat_fingerprint(model, hex, err, len);
	if (r < 0 || (r = db_pmu_sha256(db, "pfm", model, stored, err, len)) < 0 || !strcmp(hex, stored))
		return r;
	struct lk_pmu fresh;
	if ((r = pfmcat_catalog(model, &fresh, err, len)) < 0)
		return r;
	if (db_readonly(db)) {
		*live = fresh;
		*have_live = true;
		return 0;
	}
	const struct lk_pmu *one = &fresh;
	r = db_import(db, &one, 1, NULL, err, len);
	pmu_release(&fresh);
	return r;
}

/* The model's catalogue, from the database (db NULL: straight from libpfm4). */
static int load_pfm(struct db *db, const char *model, struct lk_pmu *out, char *err, size_t len)
{
	if (!db)
		return pfmcat_catalog(model, out, err, len);
	bool have_live = false;
	int r = sync_pfm(db, model, out, &have_live, err, len);
	if (r < 0 || have_live)
		return r;
	if ((r = db_load_pmu(db, "pfm", model, out, err, len)) == 0)
		vendor_flags_builtin(out, pfmcat_vendor_table(model));	/* stored before schema 6 as 0: the shipped table says */
	return r;
}

/* Is name one of the first n events or a aliases (the catalogue before a merge)? */
static bool known(const struct lk_pmu *pmu, size_t n, size_t a, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!lk_strcasecmp(pmu->events[i].name, name))
			return true;
	for (size_t i = 0; i < a; i++)
		if (!lk_strcasecmp(pmu->aliases[i].alias, name))
			return true;
	return false;
}

/* Add v's rows and aliases whose names pmu does not have yet (those pmu had before this call). */
static void add_unknown(struct lk_pmu *pmu, const struct lk_pmu *v)
{
	size_t n0 = pmu->nevents, a0 = pmu->naliases;
	for (size_t i = 0; i < v->nevents; i++)
		if (!known(pmu, n0, a0, v->events[i].name))
			pmu_add_event(pmu, &v->events[i]);
	for (size_t i = 0; i < v->naliases; i++)
		if (!known(pmu, n0, a0, v->aliases[i].alias))
			pmu_add_alias(pmu, v->aliases[i].alias, v->aliases[i].target);
}

/*
 * On an Arm PMU the generic hardware events (cycles, instructions) and the CPU PMU's sysfs
 * events (armv8_pmuv3_0/inst_retired/) take one of its counters like any raw event: the
 * kernel maps them to PMUv3 event numbers.  Without a mask the scheduler would pass any
 * number of them as "no constraint", and record --passes would leave to the kernel's
 * multiplexing what it should split (seen under QEMU: 8 events on 7 counters, scaled).
 * Only the first n events (the backend's own) are touched; the generic cache events keep
 * "any" (most Arm kernels map few of them, and unsupported ones are never scheduled).
 */
static void arm_generic_counters(struct lk_pmu *pmu, size_t n, uint64_t mask, uint64_t cycle_counter)
{
	for (size_t i = 0; i < n; i++) {
		struct lk_event *e = &pmu->events[i];
		bool sysfs_cpu = e->perf_type >= 6 && (!strncmp(e->name, "armv8", 5) || !strncmp(e->name, "armv9", 5));
		/* cycles (PERF_COUNT_HW_CPU_CYCLES, 0) and the PMU's own cpu_cycles may also take the cycle counter */
		bool cycles = (e->perf_type == 0 && e->number == 0) || (sysfs_cpu && e->number == ARMPMU_CPU_CYCLES);
		if (!e->counters_mask && e->fixed_counter < 0 && (e->perf_type == 0 /* HARDWARE */ || sysfs_cpu))
			e->counters_mask = cycles ? vendor_arm_counters(ARMPMU_CPU_CYCLES, mask, cycle_counter) : mask;
	}
}

#ifdef __linux__
/* This CPU's MIDR as Arm's tables spell it ("0x41d08": implementer 0x41, part 0xd08), or "". */
static void arm_cpuid(char *buf, size_t len)
{
	unsigned impl = 0, part = 0;
	buf[0] = '\0';
	if (perf_arm_midr(&impl, &part))
		snprintf(buf, len, "0x%02x%03x", impl, part);
}
#endif

/*
 * No libpfm4 model for this Arm CPU (Cortex-A72 on a Raspberry Pi 4, A76, A35, ...): the
 * table lauka ships for its MIDR (Arm's own, catalog/arm-*.json) gives its events by Arm's
 * names as raw PMUv3 events, so vendor names work as with libpfm4 (issue 36 P3).
 */
static void merge_arm_table(struct lk_pmu *pmu)
{
#ifdef __linux__
	if (!pmu->arch || strcmp(pmu->arch, "arm64") || !kernel_core_pmu())
		return;
	char cpuid[16];
	size_t tlen = 0;
	arm_cpuid(cpuid, sizeof(cpuid));
	const char *text = cpuid[0] ? vendor_arm_builtin_cpuid(cpuid, &tlen) : NULL;
	struct armpmu_table t;
	char e2[128];
	if (!text || armpmu_parse(text, tlen, &t, e2, sizeof(e2)) < 0)
		return;
	struct lk_pmu v;
	vendor_arm_catalog(&t, t.cpu ? t.cpu : cpuid, &v);
	add_unknown(pmu, &v);
	pmu_release(&v);
	armpmu_release(&t);
	pmu_sort(pmu);
#else
	(void)pmu;
#endif
}

/*
 * An Arm core PMU libpfm4 has no model for (Cortex-A72, A76, A35, AmpereOne, QEMU's max), or
 * whose model gave no counters: the driver's own count, measured as doctor measures it (a group
 * grows until the kernel refuses it: the general counters plus the cycle counter), so that record,
 * --check, --passes and calibrate's plan never hand the kernel more events than it can count at
 * once (issue 36 P3).  cycles and the PMU's cpu_cycles (0x11) may take the cycle counter; every
 * other hardware event a general counter.
 */
static void arm_driver_counters(struct lk_pmu *pmu)
{
#ifdef __linux__
	if (!pmu->arch || strcmp(pmu->arch, "arm64") || pmu->config_mask || pmu->fixed_mask || !kernel_core_pmu())
		return;
	int n = perf_group_counters();
	if (n < 2 || n > 33)
		return;
	pmu->config_mask = (UINT64_C(1) << (n - 1)) - 1;
	pmu->fixed_mask = UINT64_C(1) << PFMCAT_FIXED_BASE;
	/* the shipped table's rows (merge_arm_table) assumed its core's counters: the driver's win */
	for (size_t i = 0; i < pmu->nevents; i++)
		if (pmu->events[i].perf_type == 4 /* RAW */ && pmu->events[i].counters_mask)
			pmu->events[i].counters_mask = vendor_arm_counters((unsigned)pmu->events[i].number,
									   pmu->config_mask, pmu->fixed_mask);
	arm_generic_counters(pmu, pmu->nevents, pmu->config_mask, pmu->fixed_mask);
#else
	(void)pmu;
#endif
}

/*
 * The events of the core PMUs libpfm4 finds here join the backend's
 * catalogue (perf: `record -m mem_load_retired.l1_miss` next to `cycles`);
 * a name the catalogue already has keeps its first meaning.
 *
 * Only when the kernel can count them: libpfm4 recognises the CPU from
 * CPUID, and a virtual machine on a recent host has that CPUID but no core
 * PMU (no `cpu` in /sys/bus/event_source/devices), so every vendor event
 * would fail to open.  Then the catalogue keeps what the kernel has and
 * *note says, in one line, which model's events exist but cannot be counted
 * here (they stay listed with --pmu MODEL).
 */
static int merge_present_pfm(struct db *db, struct lk_pmu *pmu, char **note, char *err, size_t len)
{
	char **models = NULL;
	size_t nmodels = 0;
	int r = pfmcat_present(&models, &nmodels, err, len);
	if (r == 0 && nmodels && !kernel_core_pmu()) {
		if (note)
			*note = xasprintf("libpfm4 recognises this CPU as '%s', but the kernel exposes no core PMU "
					  "('cpu' in /sys/bus/event_source/devices; virtual machines usually don't pass "
					  "it through), so its vendor events cannot be counted here and are not listed; "
					  "lauka counters --pmu %s lists them", models[0], models[0]);
		pfmcat_names_free(models, nmodels);
		models = NULL;
		nmodels = 0;
	}
	for (size_t m = 0; r == 0 && m < nmodels; m++) {
		struct lk_pmu v;
		if ((r = load_pfm(db, models[m], &v, err, len)) < 0)
			break;
		size_t n0 = pmu->nevents;	/* the rows this model adds start here */
		add_unknown(pmu, &v);
		/* the counters of the (one, as a rule) core PMU, for scheduling and its error: this CPU's own
		 * figure when CPUID gives one (it follows SMT: 4 or 8 on a Skylake), else the vendor's table's */
		if (!pmu->config_mask && !pmu->fixed_mask) {
			unsigned gp, fixed;
			pmu->config_mask = v.config_mask;
			pmu->fixed_mask = v.fixed_mask;
			if (pfmcat_host_counters(&gp, &fixed) == 0 && gp < 32)
				pmu->config_mask = (UINT64_C(1) << gp) - 1;
		}
		if (pfmcat_is_arm(models[m]))
			arm_generic_counters(pmu, n0, v.config_mask, v.fixed_mask);
		pmu_release(&v);
		pmu_sort(pmu);
	}
	if (r == 0 && !nmodels)
		merge_arm_table(pmu);
	pfmcat_names_free(models, nmodels);
	if (r == 0)
		arm_driver_counters(pmu);
	return r;
}

/*
 * Does an imported Intel table (kind "perfmon") describe an E-core?  Intel names the table's core
 * in its file name and Header.Info (alderlake_gracemont_core.json, meteorlake_crestmont_core.json,
 * lunarlake_skymont_core.json; mapfile.csv's Core Type 0x20), so the Atom microarchitectures'
 * names say it.
 */
#ifdef __linux__
static bool ecore_table(const struct lk_pmu *p)
{
	static const char *const atom[] = { "gracemont", "crestmont", "skymont", "darkmont", "tremont" };
	const char *fields[] = { p->name, p->marketing_name, p->source };
	for (size_t f = 0; f < ARRAY_SIZE(fields); f++)
		for (size_t a = 0; fields[f] && a < ARRAY_SIZE(atom); a++)
			for (const char *s = fields[f]; *s; s++)
				if (!strncasecmp(s, atom[a], strlen(atom[a])))
					return true;
	return false;
}
#endif

/*
 * On a hybrid Intel CPU PERF_TYPE_RAW reaches the big cores' PMU only (arch/x86/events/core.c
 * init_hw_perf_events registers cpu_core for it): an imported E-core table's encodings are
 * opened on cpu_atom's own type, or they would be programmed into the P-cores' PMU (issue 35
 * item 5).  Elsewhere nothing changes.
 */
static void bind_core_type(struct lk_pmu *p)
{
#ifdef __linux__
	if (!p->kind || strcmp(p->kind, "perfmon") || !p->arch || strcmp(p->arch, "x86_64") || !ecore_table(p))
		return;
	struct perf_hybrid_pmu h[4];
	size_t nh = perf_hybrid_pmus(h, ARRAY_SIZE(h));
	for (size_t k = 0; k < nh && k < ARRAY_SIZE(h); k++)
		if (!strcmp(h[k].name, "cpu_atom"))
			for (size_t i = 0; i < p->nevents; i++)
				if (p->events[i].perf_type == 4 /* PERF_TYPE_RAW */)
					p->events[i].perf_type = h[k].type;
#else
	(void)p;
#endif
}

static void unknown_pmu(struct db *db, const char *name, char *err, size_t len)
{
	char **names = NULL, e2[64];
	size_t n = 0;
	struct strbuf sb = STRBUF_INIT;
	db_pmu_names(db, &names, &n, e2, sizeof(e2));
	struct strbuf head = STRBUF_INIT, tail = STRBUF_INIT;
	strbuf_addf(&head, "no catalogue named '%s' in '%s'\ntip: %s", name, db_path(db),
		    n ? "catalogues there: " : "none imported yet; import kpep plists with lauka counters --import PATH");
	if (pfmcat_available())
		strbuf_addf(&tail, "\ntip: libpfm4 %s's models (skl, icl, spr, amd64_fam19h_zen4, ...) are imported on "
			    "demand: lauka counters --pmu skl", pfmcat_version());
#ifdef __linux__
	else
		strbuf_addf(&tail, "%s", "\ntip: libpfm4's models (skl, icl, ...) need a lauka built with libpfm4: install "
			      "libpfm4-dev and rebuild");
#endif
	/* Whole names only: what does not fit in err is counted, never cut mid-name. */
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		size_t more = strlen(names[i]) + 2 + 24;	/* ", " and room for " and N more" */
		if (head.len + sb.len + tail.len + more < len) {
			strbuf_addf(&sb, "%s%s", i ? ", " : "", names[i]);
			shown++;
		}
		free(names[i]);
	}
	free(names);
	if (shown < n)
		strbuf_addf(&sb, " and %zu more", n - shown);
	strbuf_addf(&sb, "%s", strbuf_str(&tail));
	lk_errbuf(err, len, "%s%s", strbuf_str(&head), strbuf_str(&sb));
	strbuf_release(&head);
	strbuf_release(&tail);
	strbuf_release(&sb);
}

static int cmp_latest(const void *a, const void *b)
{
	return strcmp(((const struct db_latest *)a)->event, ((const struct db_latest *)b)->event);
}

int catalog_open(struct catalog **out, const struct lk_backend *b,
		 const struct catalog_opts *opts, char *err, size_t len)
{
	*out = NULL;
	struct catalog *cat = xcalloc(1, sizeof(*cat));
	char *name = NULL, *kind = NULL;
	int r = db_open(&cat->db, opts ? opts->db_path : NULL, err, len);
	if (r < 0)
		goto bad;
	const char *want = opts ? opts->pmu_name : NULL;
	struct lk_pmu live = { 0 };
	bool have_live = false;
	if (b && b->catalog) {
		r = sync_backend(cat->db, b, opts && opts->read_only, &name, &kind, &live, &have_live, err, len);
		/* A stored catalogue asked for by name does not need this machine's. */
		if (r < 0 && (!want || r == -LK_EDB))
			goto bad;
	} else if (!want) {
		lk_errbuf(err, len, "backend '%s' has no event catalogue", b ? b->name : "(none)");
		r = -LK_ENOENT;
		goto bad;
	}
	char hex[65], e2[256];
	if (want && (!name || lk_strcasecmp(want, name)) && pfmcat_fingerprint(want, hex, e2, sizeof(e2)) == 0) {
		/* any libpfm4 model, present or not, is imported on demand; with SMT off it is built for this run */
		r = opts->smt_off ? pfmcat_catalog_smt(want, true, &cat->pmu, err, len)
				  : load_pfm(cat->db, want, &cat->pmu, err, len);
	} else if (want && (!name || lk_strcasecmp(want, name))) {
		r = db_load_pmu(cat->db, NULL, want, &cat->pmu, err, len);
		if (r == -LK_ENOENT)
			unknown_pmu(cat->db, want, err, len);
		if (r == 0)
			bind_core_type(&cat->pmu);
	} else if (have_live) {
		cat->pmu = live;
		pmu_sort(&cat->pmu);	/* as a stored one loads: by name */
		have_live = false;
		r = 0;
	} else
		r = db_load_pmu(cat->db, kind, name, &cat->pmu, err, len);
	if (have_live)
		pmu_release(&live);
	if (r == 0 && !want && b && b->pfm_events)
		r = merge_present_pfm(cat->db, &cat->pmu, &cat->uncounted, err, len);
	if (r < 0)
		goto bad;

	char host[256] = "localhost";
	if (gethostname(host, sizeof(host) - 1) != 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	const char *chip = cat->pmu.marketing_name && *cat->pmu.marketing_name ? cat->pmu.marketing_name : cat->pmu.name;
	cat->machine = xasprintf("%s/%s", host, chip);
	if ((r = db_latest_verdicts(cat->db, cat->pmu.name, b ? b->name : "", cat->machine, &cat->verdicts,
				    &cat->nverdicts, err, len)) < 0)
		goto bad;
	if (cat->nverdicts > 1)
		qsort(cat->verdicts, cat->nverdicts, sizeof(*cat->verdicts), cmp_latest);
	free(name);
	free(kind);
	*out = cat;
	return 0;
bad:
	free(name);
	free(kind);
	catalog_close(cat);
	return r;
}

int catalog_open_live(struct catalog **out, const struct lk_backend *b, char *err, size_t len)
{
	*out = NULL;
	if (!b->catalog) {
		lk_errbuf(err, len, "backend '%s' has no event catalogue", b->name);
		return -LK_ENOENT;
	}
	struct catalog *cat = xcalloc(1, sizeof(*cat));
	int r = b->catalog(&cat->pmu, err, len);
	if (r == 0 && b->pfm_events)
		r = merge_present_pfm(NULL, &cat->pmu, &cat->uncounted, err, len);
	if (r < 0) {
		catalog_close(cat);
		return r;
	}
	*out = cat;
	return 0;
}

const struct lk_pmu *catalog_pmu(const struct catalog *cat)
{
	return &cat->pmu;
}

const char *catalog_verdict(const struct catalog *cat, const struct lk_event *ev)
{
	if (!cat || !cat->nverdicts)
		return NULL;
	struct db_latest key = { .event = ev->name };
	const struct db_latest *l = bsearch(&key, cat->verdicts, cat->nverdicts, sizeof(key), cmp_latest);
	return l ? l->verdict : NULL;
}

bool catalog_verdict_failed(const struct catalog *cat, const struct lk_event *ev)
{
	return calib_verdict_failed(catalog_verdict(cat, ev));
}

bool catalog_has_verdicts(const struct catalog *cat)
{
	return cat && cat->nverdicts > 0;
}

struct db *catalog_db(struct catalog *cat)
{
	return cat->db;
}

const char *catalog_machine(const struct catalog *cat)
{
	return cat->machine;
}

const char *catalog_uncounted_note(const struct catalog *cat)
{
	return cat ? cat->uncounted : NULL;
}

void catalog_close(struct catalog *cat)
{
	if (!cat)
		return;
	pmu_release(&cat->pmu);
	db_latest_free(cat->verdicts, cat->nverdicts);
	free(cat->machine);
	free(cat->uncounted);
	db_close(cat->db);
	free(cat);
}
