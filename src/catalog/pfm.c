/*
 * catalog/pfm.c: libpfm4's event tables -> catalogue rows (catalog/pfm.h).
 *
 * libpfm4 lists every model's tables whether or not the CPU is present, but
 * encodes only the active ones unless LIBPFM_ENCODE_INACTIVE is set when it
 * initialises; lauka sets it for the call only, so that `counters --pmu icl`
 * works on any machine and the measured commands never see it.
 * LIBPFM_FORCE_PMU=<model> (libpfm4's own switch) makes one model the
 * present one, which is how the tests stand in for hardware.
 */
#include "catalog/pfm.h"
#include "catalog/perfmon.h"
#include "catalog/sched.h"
#include "catalog/vendor.h"
#include "catalog/vendor-arm.h"
#include "base/error.h"
#include "base/sha256.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bump when the rows read from the same libpfm4 change (names, masks, aliases). */
#define PFMCAT_FORMAT 7

char *pfmcat_event_name(const char *event, const char *umask)
{
	return umask && *umask ? xasprintf("%s.%s", event, umask) : xstrdup(event);
}

void pfmcat_counters(bool intel, uint64_t config, unsigned ngp, unsigned nfixed, uint64_t *mask, int *fixed)
{
	uint64_t gp = ngp >= 32 ? UINT64_C(0xffffffff) : (UINT64_C(1) << ngp) - 1;
	*mask = gp;
	*fixed = -1;
	if (!intel || !nfixed)
		return;
	/* Only the bare encoding (no cmask, inv, edge, any) is the fixed counter's event. */
	static const struct { uint64_t config; unsigned idx; bool only; } fx[] = {
		{ 0x00c0, 0, false }, { 0x003c, 1, false }, { 0x0300, 2, true }, { 0x0400, 3, true },
	};
	for (size_t i = 0; i < ARRAY_SIZE(fx); i++) {
		if (config != fx[i].config || fx[i].idx >= nfixed)
			continue;
		uint64_t bit = UINT64_C(1) << (PFMCAT_FIXED_BASE + fx[i].idx);
		if (fx[i].only) {
			*mask = bit;
			*fixed = PFMCAT_FIXED_BASE + (int)fx[i].idx;
		} else {
			*mask = gp | bit;
		}
	}
}

bool pfmcat_amd_pairs(const char *model)
{
	/* Linux amd_core_pmu_init(): PMU_FL_PAIR from family 17h on (Zen and later). */
	static const char *const fam[] = { "amd64_fam17h", "amd64_fam19h", "amd64_fam1ah" };
	for (size_t i = 0; model && i < ARRAY_SIZE(fam); i++)
		if (!strncmp(model, fam[i], strlen(fam[i])))
			return true;
	return false;
}

uint64_t pfmcat_pair_mask(uint64_t config, unsigned ngp)
{
	/*
	 * Linux arch/x86/events/amd/core.c, amd_is_pair_event_code(): event
	 * 0x003 (Retired SSE/AVX FLOPs, a "large increment per cycle" event)
	 * is counted by an even counter merged with the odd one after it
	 * (pair_constraint: even counters, PERF_X86_EVENT_PAIR).  The event
	 * number is 12 bits: bits 0-7 and 32-35 of the encoding.
	 */
	unsigned code = (unsigned)(config & 0xff) | (unsigned)((config >> 32) & 0xf) << 8;
	if (code != 0x003)
		return 0;
	uint64_t even = 0;
	for (unsigned i = 0; i + 1 < ngp && i < 32; i += 2)
		even |= UINT64_C(1) << i;
	return even | SCHED_PAIR;
}

void pfmcat_perf_string(bool intel, uint64_t config, uint64_t config1, char *buf, size_t len)
{
	/* PERFEVTSEL layout (Intel SDM 3B 18.2.1; AMD APM 2 13.1.1): event 0-7, umask 8-15,
	 * edge 18, any 21 (Intel), inv 23, cmask 24-31; AMD's event also has bits 32-35. */
	uint64_t known = 0xffULL | 0xff00ULL | (1ULL << 18) | (1ULL << 23) | 0xff000000ULL;
	known |= intel ? (1ULL << 21) : 0xf00000000ULL;
	if (config1 || (config & ~known)) {
		if (config1)
			snprintf(buf, len, "cpu/config=0x%" PRIx64 ",config1=0x%" PRIx64 "/", config, config1);
		else
			snprintf(buf, len, "cpu/config=0x%" PRIx64 "/", config);
		return;
	}
	uint64_t event = (config & 0xff) | (intel ? 0 : ((config >> 32) & 0xf) << 8);
	char extra[64] = "";
	size_t o = 0;
	if (config & (1ULL << 18))
		o += (size_t)snprintf(extra + o, sizeof(extra) - o, ",edge");
	if (intel && (config & (1ULL << 21)))
		o += (size_t)snprintf(extra + o, sizeof(extra) - o, ",any");
	if (config & (1ULL << 23))
		o += (size_t)snprintf(extra + o, sizeof(extra) - o, ",inv");
	if ((config >> 24) & 0xff)
		snprintf(extra + o, sizeof(extra) - o, ",cmask=%u", (unsigned)((config >> 24) & 0xff));
	snprintf(buf, len, "cpu/event=0x%" PRIx64 ",umask=0x%x%s/", event, (unsigned)((config >> 8) & 0xff), extra);
}

/*
 * Arm: libpfm4 has the arm_* tables (arm_ac57, arm_n1, ...) only in its Arm builds.  An event is
 * PMEVTYPER's 16-bit number (Arm ARM D7.10), which the kernel's PMUv3 driver takes as
 * PERF_TYPE_RAW config or as event=config:0-15 of its own PMU device; no umask, no cmask.
 */
bool pfmcat_is_arm(const char *model)
{
	return model && !strncmp(model, "arm_", 4);
}

void pfmcat_arm_perf_string(const char *device, uint64_t config, char *buf, size_t len)
{
	if (device && *device)
		snprintf(buf, len, "%s/event=0x%" PRIx64 "/", device, config & 0xffff);
	else
		snprintf(buf, len, "r%" PRIx64, config & 0xffff);
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

int pfmcat_host_counters(unsigned *gp, unsigned *fixed)
{
	*gp = *fixed = 0;
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (!__get_cpuid(0, &a, &b, &c, &d))
		return -1;
	bool amd = b == 0x68747541;	/* "AuthenticAMD" */
	if (!amd && a >= 0xa) {
		/* Intel SDM 3B 20.2 (architectural performance monitoring): CPUID.0AH EAX[15:8] general
		 * counters per logical processor (4 on a Skylake with Hyper-Threading on, 8 with it off),
		 * EDX[4:0] fixed counters.  A hypervisor that virtualises no PMU reports 0. */
		__cpuid_count(0xa, 0, a, b, c, d);
		*gp = (a >> 8) & 0xff;
		*fixed = (a & 0xff) > 1 ? d & 0x1f : 0;
		return *gp ? 0 : -1;
	}
	if (amd && __get_cpuid(0x80000000, &a, &b, &c, &d)) {
		unsigned max = a;
		/* AMD APM 3, CPUID Fn8000_0022 (PerfMonV2): EBX[3:0] core counters; else Fn8000_0001
		 * ECX[23] PerfCtrExtCore: 6 counters; else the legacy 4. */
		if (max >= 0x80000022) {
			__cpuid(0x80000022, a, b, c, d);
			if (a & 1) {
				*gp = b & 0xf;
				return *gp ? 0 : -1;
			}
		}
		if (max >= 0x80000001) {
			__cpuid(0x80000001, a, b, c, d);
			*gp = (c >> 23) & 1 ? 6 : 4;
			return 0;
		}
	}
#endif
	return -1;
}

/* One term of perf's cpu/.../ form into config; -1 for a term lauka does not know. */
static int raw_term(const char *t, size_t n, bool intel, uint64_t *config, uint64_t *config1)
{
	char key[16];
	const char *eq = memchr(t, '=', n);
	size_t kl = eq ? (size_t)(eq - t) : n;
	if (!kl || kl >= sizeof(key))
		return -1;
	memcpy(key, t, kl);
	key[kl] = '\0';
	uint64_t v = 1;
	if (eq) {
		char num[32];
		size_t vl = n - kl - 1;
		if (!vl || vl >= sizeof(num))
			return -1;
		memcpy(num, eq + 1, vl);
		num[vl] = '\0';
		char *end;
		v = strtoull(num, &end, 0);
		if (*end || num[0] == '-')
			return -1;
	}
	/* perf's format terms for the x86 core PMU (/sys/bus/event_source/devices/cpu/format) */
	static const struct { const char *key; unsigned shift; uint64_t max; } f[] = {
		{ "umask", 8, 0xff }, { "edge", 18, 1 }, { "inv", 23, 1 }, { "cmask", 24, 0xff },
	};
	if (!strcmp(key, "event")) {
		if (v > (intel ? 0xffULL : 0xfffULL))
			return -1;
		*config |= (v & 0xff) | ((v >> 8) & 0xf) << 32;
		return 0;
	}
	if (!strcmp(key, "any") && intel && v <= 1) {
		*config |= v << 21;
		return 0;
	}
	if (!strcmp(key, "config")) {
		*config |= v;
		return 0;
	}
	if (!strcmp(key, "config1")) {
		*config1 |= v;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(f); i++)
		if (!strcmp(key, f[i].key) && v <= f[i].max) {
			*config |= v << f[i].shift;
			return 0;
		}
	return -1;
}

int pfmcat_parse_raw(const char *s, bool intel, uint64_t *config, uint64_t *config1)
{
	*config = *config1 = 0;
	size_t n = strlen(s);
	if (n >= 2 && (s[0] == 'r' || s[0] == 'R') && n <= 17) {
		/* perf's rNNNN: the raw config in hex (perf-list(1), "raw hardware event descriptor") */
		char *end;
		uint64_t v = strtoull(s + 1, &end, 16);
		bool hex = true;
		for (const char *c = s + 1; *c; c++)
			hex &= (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f') || (*c >= 'A' && *c <= 'F');
		if (hex && !*end) {
			*config = v;
			return 0;
		}
		return -1;
	}
	if (n < 6 || strncmp(s, "cpu/", 4) || s[n - 1] != '/')
		return -1;
	const char *p = s + 4, *end = s + n - 1;
	bool any = false;
	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t len = c ? (size_t)(c - p) : (size_t)(end - p);
		if (raw_term(p, len, intel, config, config1) < 0)
			return -1;
		any = true;
		p += len + (c ? 1 : 0);
	}
	return any ? 0 : -1;
}

const struct lk_event *pfmcat_find(const struct lk_pmu *pmu, const char *name)
{
	const struct lk_event *e = pmu_find(pmu, name);
	uint64_t config, config1;
	if (e || pfmcat_parse_raw(name, pfmcat_is_intel(pmu), &config, &config1) < 0)
		return e;
	for (size_t i = 0; i < pmu->nevents; i++)
		if (pmu->events[i].perf_type == 4 /* PERF_TYPE_RAW */ && pmu->events[i].number == config &&
		    pmu->events[i].config1 == config1)
			return &pmu->events[i];
	return NULL;
}

bool pfmcat_adhoc(const struct lk_pmu *pmu, const char *name, struct lk_event *out)
{
	memset(out, 0, sizeof(*out));
	if (!pmu || !pmu->arch || strcmp(pmu->arch, "x86_64") || !pmu->config_mask)
		return false;
	bool intel = pfmcat_is_intel(pmu);
	uint64_t config, config1;
	if (pfmcat_parse_raw(name, intel, &config, &config1) < 0)
		return false;
	/* PERFEVTSEL (Intel SDM 3B 18.2.1, AMD APM 2 13.1.1): event 0-7 (AMD also 32-35), umask 8-15, edge 18,
	 * any 21 (Intel), inv 23, cmask 24-31; usr, os, int, enable are lauka's to set, never the user's */
	uint64_t known = 0xffffULL | (1ULL << 18) | (1ULL << 23) | 0xff000000ULL;
	known |= intel ? (1ULL << 21) : 0xf00000000ULL;
	unsigned code = (unsigned)(config & 0xff) | (intel ? 0 : (unsigned)((config >> 32) & 0xf) << 8);
	if (!code || (config & ~known))
		return false;
	if (config1) {
		static const unsigned msr_codes[] = { 0xb7, 0xbb, 0x2a, 0x2b, 0xcd, 0xc6, 0xc2, 0xad };
		bool ok = false;
		for (size_t i = 0; intel && i < ARRAY_SIZE(msr_codes); i++)
			ok |= code == msr_codes[i];
		if (!ok)
			return false;
	}
	uint64_t rule;
	int fixed;
	pfmcat_counters(intel, config, (unsigned)__builtin_popcountll(pmu->config_mask),
			(unsigned)__builtin_popcountll(pmu->fixed_mask), &rule, &fixed);
	uint64_t pair = !intel && pfmcat_amd_pairs(pmu->name)
				? pfmcat_pair_mask(config, (unsigned)__builtin_popcountll(pmu->config_mask)) : 0;
	if (pair)	/* as the catalogue's own rows (AMD 0x003: an even counter and the next) */
		rule = pair;
	if (intel) {
		uint64_t k = vendor_kernel_mask(pmu->name, config) & pmu->config_mask;
		uint64_t gp = rule & pmu->config_mask;
		if (k && gp)
			rule = (rule & ~pmu->config_mask) | ((gp & k) ? gp & k : k);
	}
	out->name = xstrdup(name);
	out->description = xasprintf("raw encoding no row of '%s' has: an ad-hoc row under the model's default "
				      "counter rule", pmu->name);
	out->number = config;
	out->config1 = config1;
	out->counters_mask = rule;
	out->fixed_counter = fixed;
	out->perf_type = 4;	/* PERF_TYPE_RAW */
	return true;
}

/*
 * perf's spellings of a raw PMUv3 event: rNNNN, or PMU/event=N/ with any PMU
 * name (armv8_pmuv3, armv8_cortex_a72, ...: offline, the catalogue decides).
 * PMUv3 event numbers are 16 bits (ARM DDI 0487, PMEVTYPER<n>_EL0.evtCount
 * with FEAT_PMUv3p1; 0x00 is SW_INCR, a real event).
 */
static bool arm_raw(const char *name, uint64_t *config)
{
	uint64_t c1;
	if (name[0] == 'r')
		return pfmcat_parse_raw(name, false, config, &c1) == 0 && !c1 && *config <= 0xffff;
	size_t n = strlen(name), w = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_");
	if (!w || n < w + 9 || name[w] != '/' || strncmp(name + w + 1, "event=", 6) || name[n - 1] != '/')
		return false;
	const char *v = name + w + 7;
	if (v == name + n - 1 || *v == '-' || *v == '+' || *v == ' ')
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 0);
	if (errno || end != name + n - 1 || x > 0xffff)
		return false;
	*config = x;
	return true;
}

bool pfmcat_arm_adhoc(const struct lk_pmu *pmu, const char *name, struct lk_event *out)
{
	memset(out, 0, sizeof(*out));
	uint64_t config;
	if (!pmu || !pmu->arch || strcmp(pmu->arch, "arm64") || !pmu->config_mask || (pmu->kind && !strcmp(pmu->kind, "kpep")) ||
	    !arm_raw(name, &config))
		return false;
	/* perf's rN is named as perf prints it (r023 is r23); the PMU form keeps its spelling */
	out->name = name[0] == 'r' ? xasprintf("r%" PRIx64, config) : xstrdup(name);
	out->description = xasprintf("raw PMUv3 event 0x%" PRIx64 " (no catalogue row names it)", config);
	out->number = config;
	/* Linux's arm_pmuv3.c armv8pmu_get_event_idx: CPU_CYCLES (0x11) may take the cycle counter, nothing else */
	out->counters_mask = pmu->config_mask | (config == 0x11 ? pmu->fixed_mask : 0);
	out->fixed_counter = -1;
	out->perf_type = 4;	/* PERF_TYPE_RAW */
	return true;
}

void pfmcat_generic_aliases(struct lk_pmu *pmu, bool intel)
{
	/*
	 * perf's generic hardware names as the kernel maps them on this vendor
	 * (Linux intel_perfmon_event_map: Intel's architectural events, SDM 3B
	 * table "UnHalted Core Cycles" ...; AMD family 17h+: PPR events 0x76
	 * cycles not in halt, 0xc0 retired instructions, 0xc2/0xc3 retired
	 * branches / mispredicted), each an alias of the row of that encoding.
	 */
	static const struct { const char *name; uint64_t intel, amd; } g[] = {
		{ "cycles", 0x003c, 0x0076 }, { "cpu-cycles", 0x003c, 0x0076 },
		{ "instructions", 0x00c0, 0x00c0 },
		{ "branches", 0x00c4, 0x00c2 }, { "branch-instructions", 0x00c4, 0x00c2 },
		{ "branch-misses", 0x00c5, 0x00c3 },
		{ "cache-references", 0x4f2e, 0 }, { "cache-misses", 0x412e, 0 },
		{ "ref-cycles", 0x0300, 0 }, { "bus-cycles", 0x013c, 0 },
	};
	size_t n = pmu->nevents;
	for (size_t k = 0; k < ARRAY_SIZE(g); k++) {
		uint64_t want = intel ? g[k].intel : g[k].amd;
		if (!want || pmu_find(pmu, g[k].name))
			continue;
		for (size_t i = 0; i < n; i++)
			if (pmu->events[i].number == want && !pmu->events[i].config1) {
				pmu_add_alias(pmu, g[k].name, pmu->events[i].name);
				break;
			}
	}
}

/*
 * perf's AMD names (issue 27), derived by scripts/amd-perf-names.py from the
 * Linux kernel's pmu-events tables: names and encodings only.
 */
#include "amd-perf-names.tsv.inc"

const char *pfmcat_amd_perf_table(void)
{
	return amd_perf_names_tsv;
}

uint64_t pfmcat_amd_config(unsigned code, unsigned umask)
{
	/* AMD APM vol. 2, PERF_CTL: EventSelect[7:0] in bits 0-7, [11:8] in bits 32-35, UnitMask in 8-15 */
	return (uint64_t)(code & 0xff) | (uint64_t)(umask & 0xff) << 8 | (uint64_t)((code >> 8) & 0xf) << 32;
}

/* The row of raw encoding config (no config1) among the first n, or NULL. */
static const struct lk_event *row_of(const struct lk_pmu *pmu, size_t n, uint64_t config)
{
	for (size_t i = 0; i < n; i++)
		if (pmu->events[i].perf_type == 4 /* PERF_TYPE_RAW */ && pmu->events[i].number == config &&
		    !pmu->events[i].config1)
			return &pmu->events[i];
	return NULL;
}

void pfmcat_perf_names(struct lk_pmu *pmu, const char *table, struct pfmcat_name_counts *n)
{
	struct pfmcat_name_counts c = { 0 };
	size_t nev = pmu->nevents;
	char *data = xstrdup(table ? table : ""), *save = NULL;
	for (char *line = strtok_r(data, "\n", &save); pmu->name && line; line = strtok_r(NULL, "\n", &save)) {
		char *f[4] = { line, NULL, NULL, NULL };
		for (int k = 1; k < 4 && f[k - 1]; k++) {
			char *tab = strchr(f[k - 1], '\t');
			if (tab)
				*tab = '\0';
			f[k] = tab ? tab + 1 : NULL;
		}
		if (line[0] == '#' || !f[3] || strcmp(f[0], pmu->name))
			continue;
		char *e1, *e2;
		unsigned long code = strtoul(f[2], &e1, 16), umask = strtoul(f[3], &e2, 16);
		if (*e1 || *e2 || code > 0xfff || umask > 0xff)
			continue;
		const struct lk_event *row = row_of(pmu, nev, pfmcat_amd_config((unsigned)code, (unsigned)umask));
		const struct lk_event *had = row ? pmu_find(pmu, f[1]) : NULL;
		if (!row)
			c.no_row++;
		else if (had == row)
			c.known++;
		else if (had)
			c.taken++;
		else {
			pmu_add_alias(pmu, f[1], row->name);
			c.added++;
		}
	}
	free(data);
	if (n)
		*n = c;
}

bool pfmcat_is_intel(const struct lk_pmu *pmu)
{
	return pmu && pmu->name && strncmp(pmu->name, "amd", 3) != 0;
}

void pfmcat_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * libpfm4 keeps at most 64 modifiers of one event in a fixed array and
 * writes past it for the 65th (a crash in 4.13), and its parse grows with
 * the name: a name is bounded here, before it reaches the library.  No
 * event of its tables comes near either bound.
 */
bool pfmcat_name_ok(const char *name)
{
	size_t colons = 0, len = 0;
	for (const char *c = name; *c; c++, len++)
		if (len >= PFMCAT_NAME_MAX || (*c == ':' && ++colons > PFMCAT_MODIFIERS_MAX + 2))
			return false;	/* "model::EVENT" spends two colons before the first modifier */
	return true;
}

#if defined(LAUKA_HAVE_LIBPFM) && defined(__linux__)

#include <dlfcn.h>
#include <limits.h>
#include <perfmon/pfmlib_perf_event.h>

bool pfmcat_available(void)
{
	return true;
}

/*
 * LIBPFM_FORCE_PMU as it was when lauka started, or NULL.  libpfm4 itself,
 * when forced, initialises that one model only, so `--pmu icl` would find
 * no Ice Lake on a machine pretending to be a Skylake; lauka therefore hides
 * the variable from pfm_initialize() and applies it itself: the forced model
 * is the one present one (pfmcat_present), every table stays readable.
 */
static char *forced_model;

/* Initialise once, with inactive models encodable, leaving the environment as it was. */
static int init(char *err, size_t len)
{
	static int state;	/* 0 not yet, 1 ok, -1 failed */
	if (state)
		goto done;
	const char *old = getenv("LIBPFM_ENCODE_INACTIVE");
	char *saved = old ? xstrdup(old) : NULL;
	const char *force = getenv("LIBPFM_FORCE_PMU");
	forced_model = force && *force ? xstrdup(force) : NULL;
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	if (forced_model)
		unsetenv("LIBPFM_FORCE_PMU");
	state = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
	if (forced_model)
		setenv("LIBPFM_FORCE_PMU", forced_model, 1);
	if (saved)
		setenv("LIBPFM_ENCODE_INACTIVE", saved, 1);
	else
		unsetenv("LIBPFM_ENCODE_INACTIVE");
	free(saved);
done:
	if (state < 0)
		lk_errbuf(err, len, "libpfm4 could not initialise");
	return state < 0 ? -LK_EIO : 0;
}

const char *pfmcat_version(void)
{
	static char version[64];
	if (version[0])
		return version;
	snprintf(version, sizeof(version), "unknown");
	/* The API version is 4.0 for every 4.x; the shared object's file name carries the release. */
	Dl_info info;
	char real[PATH_MAX];
	if (dladdr((void *)(uintptr_t)pfm_initialize, &info) && info.dli_fname &&
	    realpath(info.dli_fname, real)) {
		const char *so = strstr(real, ".so.");
		if (so)
			snprintf(version, sizeof(version), "%s", so + 4);
	}
	return version;
}

/* Core PMUs only: the OS-generic "perf" tables and uncore units are not catalogues of counters lauka opens. */
static bool core_info(pfm_pmu_t p, pfm_pmu_info_t *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->size = sizeof(*pi);
	return pfm_get_pmu_info(p, pi) == PFM_SUCCESS && pi->type == PFM_PMU_TYPE_CORE && pi->nevents > 0 &&
	       strcmp(pi->name, "perf") && strcmp(pi->name, "perf_raw");
}

static int find_model(const char *model, pfm_pmu_info_t *out)
{
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;
		if (core_info(p, &pi) && !strcmp(pi.name, model)) {
			*out = pi;
			return 0;
		}
	}
	return -LK_ENOENT;
}

int pfmcat_present(char ***names, size_t *n, char *err, size_t len)
{
	*names = NULL;
	*n = 0;
	int r = init(err, len);
	if (r < 0)
		return r;
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;
		if (!core_info(p, &pi) || (forced_model ? strcmp(pi.name, forced_model) : !pi.is_present))
			continue;
		*names = xrealloc(*names, (*n + 1) * sizeof(**names));
		(*names)[(*n)++] = xstrdup(pi.name);
	}
	return 0;
}

/*
 * The host's CPUID family, model and stepping (/proc/cpuinfo's first CPU),
 * for an Intel CPU only; false elsewhere.
 */
static bool host_intel_cpuid(unsigned *family, unsigned *model, unsigned *stepping)
{
	static int known = -1;
	static unsigned f, m, s;
	if (known < 0) {
		known = 0;
		FILE *fp = fopen("/proc/cpuinfo", "r");
		char line[256];
		bool intel = false;
		int got = 0;
		while (fp && got < 3 && fgets(line, sizeof(line), fp)) {
			unsigned v;
			if (!strncmp(line, "vendor_id", 9))
				intel = strstr(line, "GenuineIntel") != NULL;
			else if (sscanf(line, "cpu family : %u", &v) == 1 || sscanf(line, "cpu family\t: %u", &v) == 1)
				f = v, got++;
			else if (sscanf(line, "model : %u", &v) == 1 || sscanf(line, "model\t\t: %u", &v) == 1)
				m = v, got++;
			else if (sscanf(line, "stepping : %u", &v) == 1 || sscanf(line, "stepping\t: %u", &v) == 1)
				s = v, got++;
		}
		if (fp)
			fclose(fp);
		known = intel && got == 3;
	}
	*family = f;
	*model = m;
	*stepping = s;
	return known == 1;
}

/*
 * Which shipped Intel table a libpfm4 model takes: on the machine itself (the
 * model present, not forced with LIBPFM_FORCE_PMU), the one Intel's mapfile
 * gives its CPUID (a Tiger Lake that libpfm4 calls "icl" takes TGL's table);
 * otherwise the model's own.
 */
static const char *table_key(const pfm_pmu_info_t *pi)
{
	unsigned f, m, s;
	const char *forced = getenv("LIBPFM_FORCE_PMU");
	if (!pi->is_present || (forced && *forced) || !host_intel_cpuid(&f, &m, &s))
		return pi->name;
	size_t len;
	const char *key = vendor_table_for(pi->name, f, m, s);
	return vendor_builtin(key, &len) ? key : pi->name;
}

const char *pfmcat_vendor_table(const char *model)
{
	char err[64];
	pfm_pmu_info_t pi;
	if (init(err, sizeof(err)) < 0 || find_model(model, &pi) < 0)
		return model;
	return table_key(&pi);
}

int pfmcat_fingerprint(const char *model, char hex[65], char *err, size_t len)
{
	int r = init(err, len);
	pfm_pmu_info_t pi;
	if (r < 0)
		return r;
	if (find_model(model, &pi) < 0) {
		lk_errbuf(err, len, "libpfm4 %s has no PMU model named '%s'", pfmcat_version(), model);
		return -LK_ENOENT;
	}
	size_t vlen;
	const char *vtext = vendor_builtin(table_key(&pi), &vlen);
	if (!vtext)
		vtext = vendor_arm_builtin(pi.name, &vlen);
	/* FNV-1a of the shipped table: it changes with the binary, so change detection is all it needs,
	 * and every listing computes it (a SHA-256 of SKL's 92 KB cost a millisecond). */
	char vhex[65] = "";
	if (vtext) {
		uint64_t h = UINT64_C(0xcbf29ce484222325);
		for (size_t i = 0; i < vlen; i++)
			h = (h ^ (unsigned char)vtext[i]) * UINT64_C(0x100000001b3);
		snprintf(vhex, sizeof(vhex), "%016" PRIx64 "-%zu", h, vlen);
	}
	char *s = xasprintf("pfm %d;%s;%s;%d;%d;%d;%s", PFMCAT_FORMAT, pfmcat_version(), pi.name, pi.nevents,
			    pi.num_cntrs, pi.num_fixed_cntrs, vhex);
	sha256_hex(s, strlen(s), hex);
	free(s);
	return 0;
}

/* Encode "model::EVENT[:UMASK]" for perf_event_open, user level. */
static int encode(const char *spec, struct lk_event *ev)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &attr;
	if (pfm_get_os_event_encoding(spec, PFM_PLM3, PFM_OS_PERF_EVENT, &arg) != PFM_SUCCESS)
		return -1;
	ev->perf_type = attr.type;
	ev->number = attr.config;
	ev->config1 = attr.config1;
	ev->config2 = attr.config2;
	return 0;
}

static void add_one(struct lk_pmu *out, const pfm_pmu_info_t *pi, const char *event, const char *umask,
		    const char *desc, bool intel)
{
	struct lk_event ev = { .fixed_counter = -1 };
	char *spec = umask ? xasprintf("%s::%s:%s", pi->name, event, umask) : xasprintf("%s::%s", pi->name, event);
	/* Every umask of every table encodes (checked for all of 4.13's core models); one that
	 * would not still gets its row, with no encoding, so the lists stay complete. */
	if (encode(spec, &ev) < 0)
		ev.perf_type = UINT32_MAX;
	ev.name = pfmcat_event_name(event, umask);
	ev.description = (char *)desc;
	pfmcat_counters(intel, ev.number, (unsigned)pi->num_cntrs, (unsigned)pi->num_fixed_cntrs,
			&ev.counters_mask, &ev.fixed_counter);
	uint64_t pair = !intel && pfmcat_amd_pairs(pi->name) ? pfmcat_pair_mask(ev.number, (unsigned)pi->num_cntrs) : 0;
	if (pair)
		ev.counters_mask = pair;
	pmu_add_event(out, &ev);
	/* libpfm4's spellings: EVENT:UMASK and model::EVENT:UMASK */
	char *colon = umask ? xasprintf("%s:%s", event, umask) : NULL;
	if (colon)
		pmu_add_alias(out, colon, ev.name);
	pmu_add_alias(out, spec, ev.name);
	free(colon);
	free(spec);
	free(ev.name);
}

/* Can libpfm4 encode "model::event"? */
static bool encodes(const char *model, const char *event)
{
	struct lk_event ev = { 0 };
	char *spec = xasprintf("%s::%s", model, event);
	bool ok = encode(spec, &ev) == 0;
	free(spec);
	return ok;
}

/*
 * Is name one of perf's AMD names (pfmcat_amd_perf_table) that a model's
 * catalogue resolves?  The forced model first, then the table's order.  The
 * catalogue is built to see whether libpfm4 has a row of that encoding: an
 * error path only (record's unknown name), never a listing.
 */
static bool perf_name_known(const char *name, char *model, size_t len)
{
	char *data = xstrdup(pfmcat_amd_perf_table()), *save = NULL;
	char *models[8];
	size_t nm = 0;
	if (forced_model)
		models[nm++] = forced_model;
	for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t'), *tab2 = tab ? strchr(tab + 1, '\t') : NULL;
		if (line[0] == '#' || !tab2)
			continue;
		*tab = *tab2 = '\0';
		if (lk_strcasecmp(tab + 1, name))
			continue;
		bool seen = false;
		for (size_t i = 0; i < nm; i++)
			seen |= !strcmp(models[i], line);
		if (!seen && nm < ARRAY_SIZE(models))
			models[nm++] = line;
	}
	bool found = false;
	for (size_t i = 0; i < nm && !found; i++) {
		struct lk_pmu pmu;
		char err[128];
		if (pfmcat_catalog(models[i], &pmu, err, sizeof(err)) < 0)
			continue;
		if ((found = pmu_find(&pmu, name) != NULL))
			snprintf(model, len, "%s", models[i]);
		pmu_release(&pmu);
	}
	free(data);
	return found;
}

bool pfmcat_known(const char *name, char *model, size_t len)
{
	char err[128];
	if (!pfmcat_name_ok(name) || init(err, sizeof(err)) < 0 || !*name)
		return false;
	const char *sep = strstr(name, "::");
	char *want = sep ? xasprintf("%.*s", (int)(sep - name), name) : NULL;
	char *event = xstrdup(sep ? sep + 2 : name);
	char *dot = strchr(event, '.');
	if (dot && !strchr(event, ':'))
		*dot = ':';	/* EVENT.UMASK is libpfm4's EVENT:UMASK */
	bool found = false;
	/* the model this CPU is (or LIBPFM_FORCE_PMU pretends) first, then any */
	for (int round = 0; round < 2 && !found; round++) {
		pfm_pmu_t p;
		pfm_for_all_pmus(p) {
			pfm_pmu_info_t pi;
			if (!core_info(p, &pi) || (want && lk_strcasecmp(want, pi.name)))
				continue;
			bool here = forced_model ? !strcmp(pi.name, forced_model) : pi.is_present;
			if ((round == 0) != here || !encodes(pi.name, event))
				continue;
			snprintf(model, len, "%s", pi.name);
			found = true;
			break;
		}
	}
	free(want);
	free(event);
	return found || (!sep && perf_name_known(name, model, len));
}

/*
 * An Arm model: Arm's table where lauka ships one (catalog/vendor-arm.h);
 * without one (a64fx, thunderx2, ...) the PMUv3 counter rule alone, an empty
 * table's: every event on the general counters, CPU_CYCLES also on the cycle
 * counter.
 */
static void apply_arm(struct lk_pmu *out)
{
	size_t len;
	const char *text = vendor_arm_builtin(out->name, &len);
	struct armpmu_table t;
	char err[256];
	if (!text || armpmu_parse(text, len, &t, err, sizeof(err)) < 0)
		memset(&t, 0, sizeof(t));
	char *label = xasprintf("Arm's table (%s)", t.cpu ? t.cpu : out->name);
	vendor_arm_apply(out, &t, label);
	if (t.n) {
		char *src = xasprintf("%s + %s", out->source, label);
		free(out->source);
		out->source = src;
	}
	free(label);
	armpmu_release(&t);
	pmu_sort(out);
	vendor_merge_duplicates(out, NULL);
}

/*
 * The vendor's table lauka ships for this model, laid over libpfm4's rows,
 * and rows of one encoding merged into one (catalog/vendor.h).
 */
static void apply_vendor(struct lk_pmu *out, bool smt_off, const char *key)
{
	if (pfmcat_is_arm(out->name)) {
		apply_arm(out);
		return;
	}
	size_t len;
	const char *text = vendor_builtin(key, &len);
	struct perfmon_table t;
	char err[256];
	if (!text || perfmon_parse(text, len, &t, err, sizeof(err)) < 0) {
		/* no table (AMD, older Intel), or one that does not parse (check_vendor.c says they all do) */
		pmu_sort(out);
		vendor_merge_duplicates(out, NULL);
		return;
	}
	char *model = xstrdup(key);	/* the table's model: TGL's on a Tiger Lake libpfm4 calls icl */
	for (char *c = model; *c; c++)
		*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
	char *label = xasprintf("Intel's table (%s V%s)", model, t.version ? t.version : "?");
	vendor_apply(out, &t, label, smt_off);
	vendor_merge_duplicates(out, &t);
	char *src = xasprintf("%s + %s", out->source, label);
	free(out->source);
	out->source = src;
	free(label);
	free(model);
	perfmon_release(&t);
}

int pfmcat_catalog(const char *model, struct lk_pmu *out, char *err, size_t len)
{
	return pfmcat_catalog_smt(model, false, out, err, len);
}

int pfmcat_catalog_smt(const char *model, bool smt_off, struct lk_pmu *out, char *err, size_t len)
{
	memset(out, 0, sizeof(*out));
	char hex[65];
	int r = pfmcat_fingerprint(model, hex, err, len);
	if (r < 0)
		return r;
	pfm_pmu_info_t pi;
	find_model(model, &pi);
	/* Intel's fixed-counter rules on Intel models only; an Arm model's counters are set by apply_arm() */
	bool intel = strncmp(pi.name, "amd", 3) != 0 && !pfmcat_is_arm(pi.name);
	size_t vlen;
	if (smt_off && intel && !pfmcat_is_arm(pi.name) && !vendor_builtin(pi.name, &vlen)) {
		/* SMT changes an Intel part's counters per thread; without Intel's table (CounterHTOff) lauka
		 * knows neither figure, so --smt off is refused rather than silently ignored.  AMD's and Arm's
		 * counters do not depend on SMT. */
		lk_errbuf(err, len, "--smt off needs Intel's per-core counter figures, and lauka ships no Intel table "
			  "for '%s' (it has skl, icl, spr, icx, skx, clx, hsw, bdw)", pi.name);
		return -LK_EINVAL;
	}
	out->kind = xstrdup("pfm");
	out->name = xstrdup(pi.name);
	out->marketing_name = xstrdup(pi.desc);
	out->arch = xstrdup(pfmcat_is_arm(pi.name) ? "arm64" : "x86_64");
	out->source = xasprintf("libpfm4 %s", pfmcat_version());
	out->config_mask = pi.num_cntrs >= 32 ? UINT64_C(0xffffffff) : (UINT64_C(1) << pi.num_cntrs) - 1;
	for (int f = 0; f < pi.num_fixed_cntrs && f < 32; f++)
		out->fixed_mask |= UINT64_C(1) << (PFMCAT_FIXED_BASE + f);
	memcpy(out->sha256, hex, sizeof(out->sha256));
	for (int i = pi.first_event; i != -1; i = pfm_get_event_next(i)) {
		pfm_event_info_t ei;
		memset(&ei, 0, sizeof(ei));
		ei.size = sizeof(ei);
		if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
			continue;
		size_t umasks = 0;
		for (int a = 0; a < ei.nattrs; a++) {
			pfm_event_attr_info_t ai;
			memset(&ai, 0, sizeof(ai));
			ai.size = sizeof(ai);
			if (pfm_get_event_attr_info(i, a, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS ||
			    ai.type != PFM_ATTR_UMASK)
				continue;
			umasks++;
			char *desc = xasprintf("%s%s%s", ei.desc ? ei.desc : "", ai.desc && *ai.desc ? ": " : "",
					       ai.desc ? ai.desc : "");
			add_one(out, &pi, ei.name, ai.name, desc, intel);
			free(desc);
		}
		if (!umasks)
			add_one(out, &pi, ei.name, NULL, ei.desc, intel);
	}
	apply_vendor(out, smt_off, table_key(&pi));
	pmu_sort(out);
	/* perf's generic names by x86 encoding; Arm models by Linux's PMUv3 map (their 0x3c is no cycle counter) */
	if (pfmcat_is_arm(pi.name))
		vendor_arm_generic_aliases(out);
	else
		pfmcat_generic_aliases(out, intel);
	/* perf's own names for AMD events, after the generic ones (which they never shadow) */
	if (!strncmp(pi.name, "amd", 3))
		pfmcat_perf_names(out, pfmcat_amd_perf_table(), NULL);
	pmu_sort(out);
	return 0;
}

#else

bool pfmcat_available(void)
{
	return false;
}

const char *pfmcat_version(void)
{
	return "";
}

static int absent(char *err, size_t len)
{
	lk_errbuf(err, len, "this lauka was built without libpfm4, so it has no vendor event tables");
	return -LK_ENOTSUP;
}

int pfmcat_present(char ***names, size_t *n, char *err, size_t len)
{
	*names = NULL;
	*n = 0;
	(void)err;
	(void)len;
	return 0;
}

int pfmcat_fingerprint(const char *model, char hex[65], char *err, size_t len)
{
	(void)model;
	hex[0] = '\0';
	return absent(err, len);
}

bool pfmcat_known(const char *name, char *model, size_t len)
{
	(void)name;
	(void)model;
	(void)len;
	return false;
}

int pfmcat_catalog(const char *model, struct lk_pmu *out, char *err, size_t len)
{
	(void)model;
	memset(out, 0, sizeof(*out));
	return absent(err, len);
}

const char *pfmcat_vendor_table(const char *model)
{
	return model;
}

int pfmcat_catalog_smt(const char *model, bool smt_off, struct lk_pmu *out, char *err, size_t len)
{
	(void)smt_off;
	return pfmcat_catalog(model, out, err, len);
}

#endif
