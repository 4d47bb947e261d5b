/*
 * backend/perf-events.c: building the "linux" catalogue from the kernel's ABI
 * constants and from sysfs.  The generic events are what the kernel maps
 * to each PMU's own encoding; on a VM without a PMU they stay listed (the
 * kernel still accepts the names) and opening them fails with ENOENT,
 * which the perf backend reports as unsupported.
 */
#include "backend/perf-events.h"
#include "base/error.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/perf_event.h>
#include <sys/syscall.h>
#else
/* Values from the Linux UAPI, so the catalogue logic compiles everywhere. */
enum {
	PERF_TYPE_HARDWARE = 0, PERF_TYPE_SOFTWARE = 1, PERF_TYPE_TRACEPOINT = 2, PERF_TYPE_HW_CACHE = 3,
	PERF_TYPE_RAW = 4, PERF_TYPE_BREAKPOINT = 5
};
#endif

struct generic {
	const char *name, *desc, *unit;
	uint32_t type;
	uint64_t config;
};

/* The numbers are the kernel's PERF_COUNT_HW_* and PERF_COUNT_SW_* values. */
static const struct generic generic_events[] = {
	{ "cycles", "CPU cycles (core clock, while the task runs)", NULL, PERF_TYPE_HARDWARE, 0 },
	{ "instructions", "Retired instructions", NULL, PERF_TYPE_HARDWARE, 1 },
	{ "cache-references", "Last-level cache accesses (PMU-specific mapping)", NULL, PERF_TYPE_HARDWARE, 2 },
	{ "cache-misses", "Last-level cache misses (PMU-specific mapping)", NULL, PERF_TYPE_HARDWARE, 3 },
	{ "branches", "Retired branch instructions", NULL, PERF_TYPE_HARDWARE, 4 },
	{ "branch-misses", "Mispredicted branch instructions", NULL, PERF_TYPE_HARDWARE, 5 },
	{ "bus-cycles", "Bus cycles", NULL, PERF_TYPE_HARDWARE, 6 },
	{ "stalled-cycles-frontend", "Cycles the front end delivered no instructions", NULL, PERF_TYPE_HARDWARE, 7 },
	{ "stalled-cycles-backend", "Cycles the back end could not retire", NULL, PERF_TYPE_HARDWARE, 8 },
	{ "ref-cycles", "Reference cycles (constant rate, not scaled by frequency)", NULL, PERF_TYPE_HARDWARE, 9 },
	{ "cpu-clock", "CPU time of the task, from the cpu clock", "ns", PERF_TYPE_SOFTWARE, 0 },
	{ "task-clock", "CPU time of the task, from the task clock", "ns", PERF_TYPE_SOFTWARE, 1 },
	{ "page-faults", "Page faults (minor and major)", NULL, PERF_TYPE_SOFTWARE, 2 },
	{ "context-switches", "Context switches (counted in the kernel)", NULL, PERF_TYPE_SOFTWARE, 3 },
	{ "cpu-migrations", "Moves of the task to another CPU (counted in the kernel)", NULL, PERF_TYPE_SOFTWARE, 4 },
	{ "minor-faults", "Page faults served without I/O", NULL, PERF_TYPE_SOFTWARE, 5 },
	{ "major-faults", "Page faults that needed I/O", NULL, PERF_TYPE_SOFTWARE, 6 },
	{ "alignment-faults", "Unaligned accesses fixed up by the kernel", NULL, PERF_TYPE_SOFTWARE, 7 },
	{ "emulation-faults", "Instructions emulated by the kernel", NULL, PERF_TYPE_SOFTWARE, 8 },
};

static const struct {
	const char *alias, *target;
} generic_aliases[] = {
	{ "cpu-cycles", "cycles" },
	{ "branch-instructions", "branches" },
	{ "faults", "page-faults" },
	{ "cs", "context-switches" },
	{ "migrations", "cpu-migrations" },
	{ "idle-cycles-frontend", "stalled-cycles-frontend" },
	{ "idle-cycles-backend", "stalled-cycles-backend" },
};

/* PERF_COUNT_HW_CACHE_* ids, ops and results; config = id | op << 8 | result << 16. */
static const struct {
	const char *name, *desc;
} caches[] = {
	{ "L1-dcache", "level 1 data cache" },
	{ "L1-icache", "level 1 instruction cache" },
	{ "LLC", "last-level cache" },
	{ "dTLB", "data TLB" },
	{ "iTLB", "instruction TLB" },
	{ "branch", "branch prediction unit" },
	{ "node", "local memory node" },
};
static const struct {
	const char *one, *many;
} cache_ops[] = { { "load", "loads" }, { "store", "stores" }, { "prefetch", "prefetches" } };

static void add_generic(struct lk_pmu *pmu)
{
	for (size_t i = 0; i < ARRAY_SIZE(generic_events); i++) {
		const struct generic *g = &generic_events[i];
		struct lk_event ev = {
			.name = (char *)g->name, .description = (char *)g->desc, .unit = (char *)g->unit,
			.perf_type = g->type, .number = g->config, .fixed_counter = -1,
		};
		pmu_add_event(pmu, &ev);
	}
	for (size_t c = 0; c < ARRAY_SIZE(caches); c++) {
		for (size_t op = 0; op < ARRAY_SIZE(cache_ops); op++) {
			for (int miss = 0; miss < 2; miss++) {
				char name[64], desc[128];
				snprintf(name, sizeof(name), "%s-%s", caches[c].name,
					 miss ? cache_ops[op].one : cache_ops[op].many);
				if (miss)
					strcat(name, "-misses");
				snprintf(desc, sizeof(desc), "%s of the %s (%s)", miss ? "Misses" : "Accesses",
					 caches[c].desc, cache_ops[op].many);
				struct lk_event ev = {
					.name = name, .description = desc, .perf_type = PERF_TYPE_HW_CACHE,
					.number = c | op << 8 | (uint64_t)miss << 16, .fixed_counter = -1,
				};
				pmu_add_event(pmu, &ev);
			}
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(generic_aliases); i++)
		pmu_add_alias(pmu, generic_aliases[i].alias, generic_aliases[i].target);
}

/* Set the bits of `spec` ("config1:0-7,32-35") from `value`, low bits first. */
static int apply_format(const char *spec, uint64_t value, uint64_t config[3])
{
	int word;
	const char *p;
	if (!strncmp(spec, "config2:", 8))
		word = 2, p = spec + 8;
	else if (!strncmp(spec, "config1:", 8))
		word = 1, p = spec + 8;
	else if (!strncmp(spec, "config:", 7))
		word = 0, p = spec + 7;
	else
		return -1;
	unsigned used = 0;
	while (*p && *p != '\n') {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (end == p)
			return -1;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p)
				return -1;
		}
		if (hi < lo || hi > 63)
			return -1;
		for (unsigned long b = lo; b <= hi; b++, used++)
			if (used < 64 && (value >> used & 1))
				config[word] |= 1ull << b;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',' && *end != '\n')
			return -1;
	}
	if (used < 64 && value >> used)
		return -1;	/* value wider than its field */
	return 0;
}

int perf_encode_terms(const char *terms, const struct perf_format *formats, size_t nformats,
		      uint64_t config[3], char *err, size_t len)
{
	config[0] = config[1] = config[2] = 0;
	const char *p = terms;
	while (*p && *p != '\n') {
		const char *end = strpbrk(p, ",\n");
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char term[128];
		if (n >= sizeof(term)) {
			lk_errbuf(err, len, "term too long in '%s'", terms);
			return -LK_EINVAL;
		}
		memcpy(term, p, n);
		term[n] = '\0';
		char *eq = strchr(term, '=');
		uint64_t value = 1;	/* a bare flag term means =1 */
		if (eq) {
			*eq = '\0';
			char *e;
			value = strtoull(eq + 1, &e, 0);
			if (e == eq + 1 || *e) {
				lk_errbuf(err, len, "bad value in term '%s=%s'", term, eq + 1);
				return -LK_EINVAL;
			}
		}
		size_t f;
		for (f = 0; f < nformats; f++)
			if (!strcmp(formats[f].name, term))
				break;
		if (f == nformats) {
			lk_errbuf(err, len, "unknown format term '%s'", term);
			return -LK_EINVAL;
		}
		if (apply_format(formats[f].spec, value, config) < 0) {
			lk_errbuf(err, len, "term '%s' does not fit format '%s'", term, formats[f].spec);
			return -LK_EINVAL;
		}
		if (!end || *end == '\n')
			break;
		p = end + 1;
	}
	return 0;
}

static const char *sysfs_root(void)
{
	const char *r = getenv("LAUKA_SYSFS_PMUS");
	return r && *r ? r : "/sys/bus/event_source/devices";
}

static char *read_small(const char *path)
{
	char *buf;
	size_t n;
	if (lk_read_file(path, 4096, &buf, &n) < 0)
		return NULL;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return buf;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in a directory (without . and ..), or NULL. */
static char **list_dir(const char *path, size_t *n)
{
	DIR *d = opendir(path);
	*n = 0;
	if (!d)
		return NULL;
	char **names = NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = xrealloc(names, (*n + 1) * sizeof(*names));
		names[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), cmp_str);
	return names;
}

static void free_list(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int has_suffix(const char *s, const char *sfx)
{
	size_t a = strlen(s), b = strlen(sfx);
	return a > b && !strcmp(s + a - b, sfx);
}

/* snprintf that reports truncation, so a too-long sysfs path is skipped, not misread. */
static int pathf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* A PMU's format directory: {name, spec} pairs ("event", "config:0-15"), the names in *names. */
static struct perf_format *read_formats(const char *dir, char ***names, size_t *n)
{
	char path[4096];
	*n = 0;
	*names = pathf(path, sizeof(path), "%s/format", dir) < 0 ? NULL : list_dir(path, n);
	struct perf_format *fmts = xcalloc(*n ? *n : 1, sizeof(*fmts));
	for (size_t i = 0; i < *n; i++) {
		fmts[i].name = (*names)[i];
		fmts[i].spec = pathf(path, sizeof(path), "%s/format/%s", dir, (*names)[i]) < 0 ? NULL : read_small(path);
		if (!fmts[i].spec)
			fmts[i].spec = xstrdup("");
	}
	return fmts;
}

static void free_formats(struct perf_format *fmts, char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)fmts[i].spec);
	free(fmts);
	free_list(names, n);
}

static void add_sysfs_pmu(struct lk_pmu *pmu, const char *dir, const char *pmu_name)
{
	char path[4096];
	char *type_s = pathf(path, sizeof(path), "%s/type", dir) < 0 ? NULL : read_small(path);
	if (!type_s)
		return;
	uint32_t type = (uint32_t)strtoul(type_s, NULL, 10);
	free(type_s);

	size_t nfmt = 0, nev = 0;
	char **fmt_names;
	struct perf_format *fmts = read_formats(dir, &fmt_names, &nfmt);
	char **ev_names = pathf(path, sizeof(path), "%s/events", dir) < 0 ? NULL : list_dir(path, &nev);
	for (size_t i = 0; i < nev; i++) {
		const char *e = ev_names[i];
		if (has_suffix(e, ".scale") || has_suffix(e, ".unit") || has_suffix(e, ".per-pkg") ||
		    has_suffix(e, ".snapshot"))
			continue;
		char *terms = pathf(path, sizeof(path), "%s/events/%s", dir, e) < 0 ? NULL : read_small(path);
		if (!terms)
			continue;
		uint64_t cfg[3];
		char why[128];
		if (perf_encode_terms(terms, fmts, nfmt, cfg, why, sizeof(why)) < 0) {
			free(terms);
			continue;	/* an encoding lauka cannot express is not offered */
		}
		char *scale = pathf(path, sizeof(path), "%s/events/%s.scale", dir, e) < 0 ? NULL : read_small(path);
		char *unit = pathf(path, sizeof(path), "%s/events/%s.unit", dir, e) < 0 ? NULL : read_small(path);
		char name[512];
		snprintf(name, sizeof(name), "%s/%s/", pmu_name, e);
		char *desc = xasprintf("%s PMU event %s (%s)%s%s%s%s", pmu_name, e, terms,
				       scale ? "; raw count, multiply by " : "", scale ? scale : "",
				       scale && unit ? " for " : "", scale && unit ? unit : "");
		struct lk_event ev = {
			.name = name, .description = desc, .perf_type = type, .number = cfg[0],
			.config1 = cfg[1], .config2 = cfg[2], .fixed_counter = -1,
		};
		pmu_add_event(pmu, &ev);
		free(desc);
		free(scale);
		free(unit);
		free(terms);
	}
	free_formats(fmts, fmt_names, nfmt);
	free_list(ev_names, nev);
}

/*
 * A CPU's PMU: perf's own names, or (issue 36 P2) any PMU with a `cpus` file (Linux's arm_pmu
 * and x86's hybrid PMUs have one) and a cycle or instruction event in sysfs, doctor's rule: Linux
 * names an Arm PMU after the core whenever the device tree does (arm,cortex-a72-pmu ->
 * armv8_cortex_a72 on a Raspberry Pi 4, armv8_neoverse_n1, ...), so no list of names is complete.
 */
static bool core_pmu(const char *name)
{
	static const char *const core[] = { "cpu", "cpu_core", "cpu_atom", "armv8_pmuv3", "armv8_pmuv3_0",
					    "apple_firestorm_pmu", "apple_icestorm_pmu" };
	char path[4096];
	struct stat st;
	if (name[0] == '.')
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(core); i++)
		if (!strcmp(name, core[i]))
			return pathf(path, sizeof(path), "%s/%s", sysfs_root(), name) == 0 && stat(path, &st) == 0;
	if (pathf(path, sizeof(path), "%s/%s/cpus", sysfs_root(), name) < 0 || stat(path, &st) != 0)
		return false;
	static const char *const evs[] = { "cpu_cycles", "inst_retired" };
	for (size_t i = 0; i < ARRAY_SIZE(evs); i++)
		if (pathf(path, sizeof(path), "%s/%s/events/%s", sysfs_root(), name, evs[i]) == 0 && stat(path, &st) == 0)
			return true;
	return false;
}

bool perf_takes_pmu_counter(const struct lk_event *ev)
{
	const char *slash = ev->perf_type >= 6 ? strchr(ev->name, '/') : NULL;
	return ev->perf_type == 0 || ev->perf_type == 3 || ev->perf_type == 4 ||
	       (slash && perf_is_core_pmu(ev->name, (size_t)(slash - ev->name)));
}

int perf_is_core_pmu(const char *name, size_t len)
{
	char buf[256];
	if (!len || len >= sizeof(buf) || memchr(name, '/', len))
		return 0;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return core_pmu(buf);
}

int perf_core_pmu_name(char *buf, size_t len)
{
	size_t n = 0;
	char **pmus = list_dir(sysfs_root(), &n);
	int found = 0;
	for (size_t i = 0; i < n && !found; i++)
		if (core_pmu(pmus[i])) {
			found = 1;
			if (buf && len)
				snprintf(buf, len, "%s", pmus[i]);
		}
	free_list(pmus, n);
	return found;
}

int perf_have_core_pmu(void)
{
	return perf_core_pmu_name(NULL, 0);
}

const char *perf_event_pmu(const struct lk_event *ev, char *buf, size_t len)
{
	if (!len)
		return NULL;
	buf[0] = '\0';
	/* perf's generic types (include/uapi/linux/perf_event.h): the kernel gives HARDWARE, HW_CACHE
	 * and RAW to the core PMU; SOFTWARE, TRACEPOINT and BREAKPOINT are PMUs of those names */
	switch (ev->perf_type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return perf_core_pmu_name(buf, len) ? buf : NULL;
	case PERF_TYPE_SOFTWARE:
		return snprintf(buf, len, "software"), buf;
	case PERF_TYPE_TRACEPOINT:
		return snprintf(buf, len, "tracepoint"), buf;
	case PERF_TYPE_BREAKPOINT:
		return snprintf(buf, len, "breakpoint"), buf;
	default:
		break;
	}
	/* a dynamic type: the PMU whose sysfs type file holds it */
	size_t n = 0;
	char **pmus = list_dir(sysfs_root(), &n);
	for (size_t i = 0; i < n && !buf[0]; i++) {
		char path[4096];
		char *t = pathf(path, sizeof(path), "%s/%s/type", sysfs_root(), pmus[i]) < 0 ? NULL : read_small(path);
		char *e = NULL;
		if (t && strtoul(t, &e, 10) == ev->perf_type && e != t && !*e)
			snprintf(buf, len, "%s", pmus[i]);
		free(t);
	}
	free_list(pmus, n);
	return buf[0] ? buf : NULL;
}

bool perf_counters_held(int opens, double coverage, int runs, int nmi_watchdog, char *buf, size_t len)
{
	if (coverage >= PERF_WHOLE) {
		snprintf(buf, len, "a group of %d, enabled on lauka, was on the counters all its enabled time", opens);
		return false;
	}
	int held = opens - runs;
	char largest[64];
	if (runs)
		snprintf(largest, sizeof(largest), "a group of %d runs whole", runs);
	else
		snprintf(largest, sizeof(largest), "not even cycles alone runs whole");
	snprintf(buf, len, "a group of %d opens but was on the counters %.0f%% of its enabled time; %s: "
		 "%d counter%s held by another process (CPU-wide perf events: a profiler, perf record -a, %s)",
		 opens, coverage * 100, largest, held, held == 1 ? " is" : "s are",
		 nmi_watchdog > 0 ? "the NMI watchdog: kernel.nmi_watchdog is 1" : "the NMI watchdog");
	return true;
}

int perf_pmu_raw_event(const char *spec, struct lk_event *ev, char *err, size_t len)
{
	memset(ev, 0, sizeof(*ev));
	size_t n = strlen(spec);
	const char *slash = strchr(spec, '/');
	if (!slash || slash == spec || n < 3 || spec[n - 1] != '/' || slash == spec + n - 1)
		return 1;
	size_t plen = (size_t)(slash - spec);
	const char *terms = slash + 1;
	size_t tlen = n - 1 - (plen + 1);
	if (!tlen || memchr(terms, '/', tlen) || !memchr(terms, '=', tlen) || !perf_is_core_pmu(spec, plen))
		return 1;	/* not PMU/terms/ with a term, or not a core PMU: not this form */
	char dir[4096], path[4096];
	if (pathf(dir, sizeof(dir), "%s/%.*s", sysfs_root(), (int)plen, spec) < 0 ||
	    pathf(path, sizeof(path), "%s/type", dir) < 0)
		return 1;
	char *type_s = read_small(path);
	char *e = NULL;
	unsigned long type = type_s ? strtoul(type_s, &e, 10) : 0;
	bool ok = type_s && e != type_s && !*e && type <= UINT32_MAX;
	free(type_s);
	if (!ok) {
		lk_errbuf(err, len, "%.*s has no readable type in sysfs (%s)", (int)plen, spec, path);
		return -LK_EINVAL;
	}
	char **names;
	size_t nfmt;
	struct perf_format *fmts = read_formats(dir, &names, &nfmt);
	char *t = xasprintf("%.*s", (int)tlen, terms);
	uint64_t cfg[3];
	char why[192];
	int r = perf_encode_terms(t, fmts, nfmt, cfg, why, sizeof(why));
	free(t);
	free_formats(fmts, names, nfmt);
	if (r < 0) {
		lk_errbuf(err, len, "%s (the terms of %.*s are the files in %s/format)", why, (int)plen, spec, dir);
		return r;
	}
	ev->name = xstrdup(spec);
	ev->description = xasprintf("raw event of the %.*s PMU (type %lu), no catalogue row names it", (int)plen, spec, type);
	ev->perf_type = (uint32_t)type;
	ev->number = cfg[0];
	ev->config1 = cfg[1];
	ev->config2 = cfg[2];
	ev->fixed_counter = -1;
	return 0;
}

/*
 * Hybrid Intel CPUs (issue 35 item 5).  On Alder Lake and later the x86 driver registers one PMU per
 * core type, `cpu_core` (P-cores) and `cpu_atom` (E-cores), each with a dynamic type and a `cpus`
 * file (arch/x86/events/intel/core.c, intel_pmu_init's hybrid PMUs, and arch/x86/events/core.c
 * init_hw_perf_events, which registers only the big-core PMU for PERF_TYPE_RAW).  A generic event
 * without a PMU then counts on the P-cores only: since Linux 5.18 perf_init_event
 * (kernel/events/core.c) takes the PMU of a PERF_TYPE_HARDWARE or PERF_TYPE_HW_CACHE event from
 * config bits 32-63 (include/uapi/linux/perf_event.h, PERF_PMU_TYPE_SHIFT: "0xEEEEEEEE000000AA ...
 * If the PMU type ID is 0, the PERF_TYPE_RAW will be applied").
 */
size_t perf_hybrid_pmus(struct perf_hybrid_pmu *out, size_t max)
{
	static const char *const names[] = { "cpu_core", "cpu_atom" };
	struct perf_hybrid_pmu found[ARRAY_SIZE(names)];
	size_t n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char path[4096];
		if (pathf(path, sizeof(path), "%s/%s/type", sysfs_root(), names[i]) < 0)
			continue;
		char *t = read_small(path);
		if (!t)
			continue;
		char *end;
		unsigned long type = strtoul(t, &end, 10);
		/* the big core's PMU takes PERF_TYPE_RAW (4), the other a dynamic type */
		bool ok = end != t && !*end && type >= 4 && type <= 0xffffffffUL;
		free(t);
		if (!ok)
			continue;
		found[n].name = names[i];
		found[n].type = (uint32_t)type;
		n++;
	}
	if (n < 2)
		return 0;	/* one core type: not hybrid, generic events go to the one core PMU */
	for (size_t i = 0; i < n && i < max; i++)
		out[i] = found[i];
	return n;
}

/*
 * On a hybrid machine, each generic hardware and hardware-cache event once per core PMU, named as
 * perf names them there (`cpu_atom/cycles/`), with the PMU's type in config bits 32-63.  A name
 * the PMU's sysfs already gives (`cpu_core/instructions/`, its raw encoding with the PMU's own
 * type, which perf also resolves that name to) is left as sysfs has it.
 */
static void add_hybrid_generic(struct lk_pmu *pmu)
{
	struct perf_hybrid_pmu h[4];
	size_t nh = perf_hybrid_pmus(h, ARRAY_SIZE(h));
	size_t n0 = pmu->nevents;
	for (size_t p = 0; p < nh && p < ARRAY_SIZE(h); p++)
		for (size_t i = 0; i < n0; i++) {
			const struct lk_event *g = &pmu->events[i];
			if ((g->perf_type != PERF_TYPE_HARDWARE && g->perf_type != PERF_TYPE_HW_CACHE) || g->number >> 32)
				continue;
			char *name = xasprintf("%s/%s/", h[p].name, g->name);
			bool have = false;
			for (size_t k = 0; k < pmu->nevents && !have; k++)
				have = !strcmp(pmu->events[k].name, name);
			if (!have) {
				char *desc = xasprintf("%s, on the %s cores only (the %s PMU, type %" PRIu32 ")",
						       g->description ? g->description : g->name,
						       strcmp(h[p].name, "cpu_atom") ? "P" : "E", h[p].name, h[p].type);
				struct lk_event ev = *g;
				ev.name = name;
				ev.description = desc;
				ev.number = g->number | (uint64_t)h[p].type << 32;
				pmu_add_event(pmu, &ev);	/* may move pmu->events: g is not used after this */
				free(desc);
			}
			free(name);
		}
}

/*
 * kernel/events/core.c, perf_init_event: "PERF_TYPE_HARDWARE and PERF_TYPE_HW_CACHE are often
 * aliases for PERF_TYPE_RAW": such an event's PMU type is config >> PERF_PMU_TYPE_SHIFT, and
 * PERF_TYPE_RAW when that is 0; any other type is looked up as it is (idr_find(&pmu_idr, type)).
 */
int perf_hybrid_index(const struct lk_event *ev, const struct perf_hybrid_pmu *h, size_t nh)
{
	uint64_t t = ev->perf_type;
	if (t == PERF_TYPE_HARDWARE || t == PERF_TYPE_HW_CACHE)
		t = ev->number >> 32 ? ev->number >> 32 : PERF_TYPE_RAW;
	else if (t == PERF_TYPE_SOFTWARE || t == PERF_TYPE_TRACEPOINT || t == PERF_TYPE_BREAKPOINT)
		return -1;
	for (size_t p = 0; p < nh; p++)
		if (h[p].type == t)
			return (int)p;
	return -1;
}

/* A hybrid PMU's `cpus` attribute prints its cpumask as a list (arch/x86/events/intel/core.c,
 * intel_hybrid_get_attr_cpus: cpumap_print_to_pagebuf(true, ...)). */
int perf_pmu_cpus(const char *name, char *buf, size_t len)
{
	char path[4096];
	if (!len || pathf(path, sizeof(path), "%s/%s/cpus", sysfs_root(), name) < 0)
		return -1;
	char *s = read_small(path);
	if (!s)
		return -1;
	snprintf(buf, len, "%s", s);
	free(s);
	return 0;
}

const char *perf_hybrid_pmu_of_type(uint32_t type)
{
	struct perf_hybrid_pmu h[4];
	size_t nh = perf_hybrid_pmus(h, ARRAY_SIZE(h));
	for (size_t p = 0; p < nh && p < ARRAY_SIZE(h); p++)
		if (h[p].type == type)
			return h[p].name;
	return NULL;
}

size_t perf_hybrid_twins(const struct lk_pmu *pmu, const struct lk_event *ev, const struct lk_event **out,
			 size_t max)
{
	if (!pmu || !ev || (ev->perf_type != PERF_TYPE_HARDWARE && ev->perf_type != PERF_TYPE_HW_CACHE) ||
	    ev->number >> 32 || !pmu->kind || strcmp(pmu->kind, "perf"))
		return 0;
	struct perf_hybrid_pmu h[4];
	size_t nh = perf_hybrid_pmus(h, ARRAY_SIZE(h)), n = 0;
	for (size_t p = 0; p < nh && p < ARRAY_SIZE(h) && n < max; p++) {
		char *name = xasprintf("%s/%s/", h[p].name, ev->name);
		const struct lk_event *t = pmu_find_exact(pmu, name);
		free(name);
		if (!t)
			return 0;	/* a catalogue built before this machine's PMUs were read: keep the event */
		out[n++] = t;
	}
	return n;
}

/*
 * The counters the kernel's driver gives one task: a group of cycles and then instructions grows
 * until perf_event_open refuses it (the kernel checks that a whole group fits the PMU at open:
 * validate_group in drivers/perf/arm_pmu.c and arch/x86/events/core.c), as doctor measures it.
 * The one place in this file that opens events: on lauka itself, disabled, user mode only.
 */
int perf_group_counters(void)
{
#ifndef __linux__
	return 0;	/* no perf_event_open */
#else
	int fds[64], n = 0;
	for (;;) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_HARDWARE;
		a.config = n ? PERF_COUNT_HW_INSTRUCTIONS : PERF_COUNT_HW_CPU_CYCLES;
		a.disabled = n == 0;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		if (n == (int)ARRAY_SIZE(fds))
			break;
		long fd = syscall(SYS_perf_event_open, &a, 0, -1, n ? fds[0] : -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			break;
		fds[n++] = (int)fd;
	}
	for (int i = 0; i < n; i++)
		close(fds[i]);
	return n == (int)ARRAY_SIZE(fds) ? 0 : n;
#endif
}

int perf_pmu_system_wide(const char *pmu, size_t len)
{
	char path[4096];
	struct stat st;
	if (!len || memchr(pmu, '/', len) || (len == 2 && !memcmp(pmu, "..", 2)) || (len == 1 && *pmu == '.'))
		return 0;
	return pathf(path, sizeof(path), "%s/%.*s/cpumask", sysfs_root(), (int)len, pmu) == 0 && stat(path, &st) == 0;
}

bool perf_arm_midr(unsigned *impl, unsigned *part)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return false;
	bool gi = false, gp = false;
	char line[256];
	while ((!gi || !gp) && fgets(line, sizeof(line), f)) {
		const char *colon = strchr(line, ':');
		if (colon && !strncmp(line, "CPU implementer", 15))
			gi = sscanf(colon + 1, " %x", impl) == 1;
		else if (colon && !strncmp(line, "CPU part", 8))
			gp = sscanf(colon + 1, " %x", part) == 1;
	}
	fclose(f);
	return gi && gp && *impl <= 0xff && *part <= 0xfff;
}

/*
 * arm64's /proc/cpuinfo has no "model name": the CPU by its MIDR fields instead (issue 36 P7), so
 * a Graviton 2, an Ampere Altra and a Raspberry Pi are not one machine ("Linux perf events") for
 * the runner class and the stored verdicts.  Arm's part numbers (Arm's TRMs, MIDR_EL1.PartNum).
 */
static char *arm_cpu_name(void)
{
	static const struct { unsigned part; const char *name; } arm[] = {
		{ 0xd03, "Cortex-A53" }, { 0xd04, "Cortex-A35" }, { 0xd05, "Cortex-A55" }, { 0xd07, "Cortex-A57" },
		{ 0xd08, "Cortex-A72" }, { 0xd09, "Cortex-A73" }, { 0xd0a, "Cortex-A75" }, { 0xd0b, "Cortex-A76" },
		{ 0xd0c, "Neoverse N1" }, { 0xd0d, "Cortex-A77" }, { 0xd40, "Neoverse V1" }, { 0xd41, "Cortex-A78" },
		{ 0xd44, "Cortex-X1" }, { 0xd46, "Cortex-A510" }, { 0xd47, "Cortex-A710" }, { 0xd48, "Cortex-X2" },
		{ 0xd49, "Neoverse N2" }, { 0xd4f, "Neoverse V2" },
	};
	unsigned impl = 0, part = 0;
	if (!perf_arm_midr(&impl, &part))
		return NULL;
	for (size_t i = 0; impl == 0x41 && i < ARRAY_SIZE(arm); i++)
		if (arm[i].part == part)
			return xasprintf("Arm %s (0x%02x/0x%03x)", arm[i].name, impl, part);
	return xasprintf("Arm CPU implementer 0x%02x part 0x%03x", impl, part);
}

int perf_events_catalog(struct lk_pmu *pmu, char *err, size_t len)
{
	memset(pmu, 0, sizeof(*pmu));
	pmu->kind = xstrdup("perf");
	pmu->name = xstrdup("linux");
	pmu->source = xstrdup(sysfs_root());
	char *model = NULL;
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f) {
		char line[512];
		while (!model && fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');
			if (colon && (!strncmp(line, "model name", 10) || !strncmp(line, "Model", 5))) {
				colon++;
				while (*colon == ' ' || *colon == '\t')
					colon++;
				colon[strcspn(colon, "\n")] = '\0';
				model = xstrdup(colon);
			}
		}
		fclose(f);
	}
	if (!model)
		model = arm_cpu_name();
	pmu->marketing_name = model ? model : xstrdup("Linux perf events");
	pmu->arch = xstrdup(pmu_host_arch() ? pmu_host_arch() : "unknown");
	add_generic(pmu);
	size_t n = 0;
	char **pmus = list_dir(sysfs_root(), &n);
	for (size_t i = 0; i < n; i++) {
		char dir[4096];
		if (pathf(dir, sizeof(dir), "%s/%s", sysfs_root(), pmus[i]) == 0)
			add_sysfs_pmu(pmu, dir, pmus[i]);
	}
	free_list(pmus, n);
	add_hybrid_generic(pmu);
	(void)err;
	(void)len;
	return 0;
}
