/* check_backend.c: registry, count scaling, the rusage backend and the Linux catalogue builder. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#ifdef __linux__
#include <fcntl.h>
#include <linux/perf_event.h>
#include <unistd.h>
#endif

#include "backend/backend.h"
#include "base/error.h"
#include "spawn/runner.h"
#include "backend/perf-events.h"
#include "base/exec-path.h"
#include "catalog/pmu.h"

static const struct {
	struct lk_counts in;
	uint64_t value;
	int scaled;
	double coverage;
} scale_cases[] = {
	/* always running: untouched */
	{ { .value = 1000, .enabled = 50, .running = 50, .supported = true }, 1000, 0, 0 },
	/* counted a quarter of the time: x4 */
	{ { .value = 1000, .enabled = 400, .running = 100, .supported = true }, 4000, 1, 0.25 },
	/* rounding to nearest */
	{ { .value = 10, .enabled = 3, .running = 2, .supported = true }, 15, 1, 2.0 / 3 },
	/* enabled but never on a counter: not counted */
	{ { .value = 7, .enabled = 100, .running = 0, .supported = true }, 0, 1, 0 },
	/* unsupported counters are left alone */
	{ { .value = 0, .enabled = 0, .running = 0, .supported = false }, 0, 0, 0 },
	/* backends without time info (enabled = running = 0) */
	{ { .value = 42, .supported = true }, 42, 0, 0 },
};

START_TEST(test_counts_scale)
{
	struct lk_counts c = scale_cases[_i].in;
	counts_scale(&c);
	ck_assert_uint_eq(c.value, scale_cases[_i].value);
	ck_assert_int_eq(c.scaled, scale_cases[_i].scaled);
	if (c.scaled)
		ck_assert_double_eq_tol(c.coverage, scale_cases[_i].coverage, 1e-12);
}
END_TEST

START_TEST(test_registry)
{
	ck_assert_ptr_nonnull(backend_find("rusage"));
	ck_assert_ptr_nonnull(backend_find("RUSAGE"));
	ck_assert_ptr_null(backend_find("nope"));
	ck_assert_ptr_eq(backend_rusage(), backend_find("rusage"));
	const struct lk_backend *def = backend_default();
	ck_assert(def != backend_rusage());
	/* valgrind slows commands down 15-50x: only ever chosen by name */
	const struct lk_backend *vg = backend_find("valgrind");
	if (vg) {
		ck_assert(vg->opt_in);
		ck_assert(def != vg);
	}
	char why[256];
	const struct lk_backend *listing = backend_for_listing(why, sizeof(why));
	ck_assert_ptr_nonnull(listing);
	ck_assert(!listing->opt_in);
	if (def)
		ck_assert_ptr_eq(listing, def);
	for (size_t i = 0; lk_backends[i]; i++) {
		ck_assert_ptr_nonnull(lk_backends[i]->name);
		ck_assert_ptr_nonnull(lk_backends[i]->desc);
		ck_assert_ptr_nonnull(lk_backends[i]->catalog);
	}
}
END_TEST

START_TEST(test_rusage_backend)
{
	const struct lk_backend *b = backend_rusage();
	struct lk_pmu pmu = { 0 };
	char err[128];
	ck_assert_int_eq(b->catalog(&pmu, err, sizeof(err)), 0);
	const char *names[] = { "wall_time", "peak_rss", "user_time", "sys_time", "minor_faults" };
	struct lk_evsel sel[5] = { 0 };
	for (size_t i = 0; i < 5; i++) {
		sel[i].ev = pmu_find(&pmu, names[i]);
		ck_assert_ptr_nonnull(sel[i].ev);
	}
	struct backend_inst bi;
	ck_assert_int_eq(backend_inst_open(&bi, b, sel, 5, err, sizeof(err)), 0);
	struct rusage ru = { 0 };
	ru.ru_maxrss = 2048;
	ru.ru_utime.tv_sec = 1;
	ru.ru_utime.tv_usec = 5;
	ru.ru_stime.tv_usec = 250;
	ru.ru_minflt = 77;
	struct lk_run_info run = { .pid = 1, .wall_ns = 123456789, .rusage = &ru };
	struct lk_counts out[5];
	ck_assert_int_eq(b->read(bi.priv, &run, out, err, sizeof(err)), 0);
	ck_assert_uint_eq(out[0].value, 123456789);
#ifdef __APPLE__
	ck_assert_uint_eq(out[1].value, 2048);
#else
	ck_assert_uint_eq(out[1].value, 2048 * 1024);	/* Linux reports kilobytes */
#endif
	ck_assert_uint_eq(out[2].value, 1000005000);
	ck_assert_uint_eq(out[3].value, 250000);
	ck_assert_uint_eq(out[4].value, 77);
	ck_assert(out[0].supported);
	backend_inst_close(&bi);
	pmu_release(&pmu);
}
END_TEST

static const struct perf_format cpu_formats[] = {
	{ "event", "config:0-7" }, { "umask", "config:8-15" }, { "edge", "config:18" },
	{ "cmask", "config:24-31" }, { "ldlat", "config1:0-15" }, { "split", "config:0-3,32-35" },
	{ "ext", "config2:0-63" },
};

static const struct {
	const char *terms;
	int ok;
	uint64_t c0, c1, c2;
} encode_cases[] = {
	{ "event=0x3c", 1, 0x3c, 0, 0 },
	{ "event=0xc0,umask=0x01", 1, 0x1c0, 0, 0 },
	{ "event=0xa3,umask=0x14,cmask=20,edge", 1, 0x40000 | 0x14a3 | (20ull << 24), 0, 0 },
	{ "event=0xcd,umask=0x1,ldlat=3", 1, 0x1cd, 3, 0 },
	{ "split=0xab", 1, 0xbull | (0xaull << 32), 0, 0 },
	{ "ext=0xffffffffffffffff", 1, 0, 0, ~0ull },
	{ "event=0x3c\n", 1, 0x3c, 0, 0 },
	{ "event=0x1ff", 0, 0, 0, 0 },		/* wider than its 8-bit field */
	{ "bogus=1", 0, 0, 0, 0 },		/* no such format term */
	{ "event=zz", 0, 0, 0, 0 },
};

START_TEST(test_encode_terms)
{
	uint64_t cfg[3];
	char err[128];
	int r = perf_encode_terms(encode_cases[_i].terms, cpu_formats, sizeof(cpu_formats) / sizeof(*cpu_formats),
				  cfg, err, sizeof(err));
	if (!encode_cases[_i].ok) {
		ck_assert_int_eq(r, -LK_EINVAL);
		return;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(cfg[0], encode_cases[_i].c0);
	ck_assert_uint_eq(cfg[1], encode_cases[_i].c1);
	ck_assert_uint_eq(cfg[2], encode_cases[_i].c2);
}
END_TEST

START_TEST(test_perf_catalog_fixture)
{
	setenv("LAUKA_SYSFS_PMUS", LAUKA_SRCDIR "/tests/fixtures/sysfs", 1);
	struct lk_pmu pmu = { 0 };
	char err[128];
	ck_assert_int_eq(perf_events_catalog(&pmu, err, sizeof(err)), 0);
	ck_assert_str_eq(pmu.kind, "perf");
	ck_assert_str_eq(pmu.name, "linux");
	/* generic events and their aliases */
	const struct lk_event *ev = pmu_find(&pmu, "cycles");
	ck_assert_ptr_nonnull(ev);
	ck_assert_uint_eq(ev->perf_type, 0);
	ck_assert_ptr_eq(pmu_find(&pmu, "cpu-cycles"), ev);
	ck_assert_ptr_eq(pmu_find(&pmu, "CYCLES"), ev);
	ev = pmu_find(&pmu, "task-clock");
	ck_assert_str_eq(ev->unit, "ns");
	ck_assert_ptr_eq(pmu_find(&pmu, "faults"), pmu_find(&pmu, "page-faults"));
	ev = pmu_find(&pmu, "LLC-load-misses");
	ck_assert_ptr_nonnull(ev);
	ck_assert_uint_eq(ev->perf_type, 3);
	ck_assert_uint_eq(ev->number, 2 | 0 << 8 | 1 << 16);
	ev = pmu_find(&pmu, "L1-dcache-prefetches");
	ck_assert_uint_eq(ev->number, 0 | 2 << 8 | 0 << 16);
	/* sysfs events with their encodings */
	ev = pmu_find(&pmu, "cpu/mem-loads/");
	ck_assert_ptr_nonnull(ev);
	ck_assert_uint_eq(ev->perf_type, 4);
	ck_assert_uint_eq(ev->number, 0x1cd);
	ck_assert_uint_eq(ev->config1, 3);
	ev = pmu_find(&pmu, "cpu/stall-edge/");
	ck_assert_uint_eq(ev->number, 0x40000 | 0x14a3 | (20ull << 24));
	ev = pmu_find(&pmu, "power/energy-pkg/");
	ck_assert_ptr_nonnull(ev);
	ck_assert_uint_eq(ev->perf_type, 17);
	ck_assert_ptr_nonnull(strstr(ev->description, "Joules"));
	/* encodings lauka cannot express are not offered */
	ck_assert_ptr_null(pmu_find(&pmu, "cpu/too-wide/"));
	ck_assert_ptr_null(pmu_find(&pmu, "cpu/unknown-term/"));
	ck_assert_int_eq(perf_have_core_pmu(), 1);
	pmu_release(&pmu);
	unsetenv("LAUKA_SYSFS_PMUS");
}
END_TEST

/* Issue 36 P2: an Arm PMU named after the core (armv8_cortex_a72, as on a Raspberry Pi 4) is a core PMU:
 * a `cpus` file and a cycle or instruction event; a PMU with the event but no `cpus` is not. */
START_TEST(test_core_pmu_named_after_core)
{
	setenv("LAUKA_SYSFS_PMUS", LAUKA_SRCDIR "/tests/fixtures/sysfs-arm", 1);
	char name[64] = "";
	ck_assert_int_eq(perf_have_core_pmu(), 1);
	ck_assert_int_eq(perf_core_pmu_name(name, sizeof(name)), 1);
	ck_assert_str_eq(name, "armv8_cortex_a72");
	struct lk_pmu pmu = { 0 };
	char err[128];
	ck_assert_int_eq(perf_events_catalog(&pmu, err, sizeof(err)), 0);
	const struct lk_event *ev = pmu_find(&pmu, "armv8_cortex_a72/inst_retired/");
	ck_assert_ptr_nonnull(ev);
	ck_assert_uint_eq(ev->perf_type, 8);
	ck_assert_uint_eq(ev->number, 8);
	pmu_release(&pmu);
	setenv("LAUKA_SYSFS_PMUS", LAUKA_SRCDIR "/tests/fixtures/sysfs-nocpus", 1);
	ck_assert_int_eq(perf_have_core_pmu(), 0);
	unsetenv("LAUKA_SYSFS_PMUS");
}
END_TEST

/*
 * A hybrid Intel machine (tests/fixtures/sysfs-hybrid: Alder Lake's cpu_core, type 4, and cpu_atom,
 * type 10, each with its cpus and sysfs events): every generic event once per core PMU, encoded as
 * include/uapi/linux/perf_event.h lays out config for PERF_TYPE_HARDWARE (0xEEEEEEEE000000AA) and
 * PERF_TYPE_HW_CACHE (0xEEEEEEEE00DDCCBB), EEEEEEEE the PMU's type; sysfs events keep the PMU's own
 * type (issue 35 item 5).
 */
START_TEST(test_hybrid_generic_per_core_pmu)
{
	setenv("LAUKA_SYSFS_PMUS", LAUKA_SRCDIR "/tests/fixtures/sysfs-hybrid", 1);
	struct perf_hybrid_pmu h[4];
	ck_assert_uint_eq(perf_hybrid_pmus(h, 4), 2);
	ck_assert_str_eq(h[0].name, "cpu_core");
	ck_assert_uint_eq(h[0].type, 4);
	ck_assert_str_eq(h[1].name, "cpu_atom");
	ck_assert_uint_eq(h[1].type, 10);
	struct lk_pmu pmu = { 0 };
	char err[128];
	ck_assert_int_eq(perf_events_catalog(&pmu, err, sizeof(err)), 0);
	const struct lk_event *ev = pmu_find(&pmu, "cpu_atom/cycles/");
	ck_assert_ptr_nonnull(ev);
	ck_assert_uint_eq(ev->perf_type, 0);			/* PERF_TYPE_HARDWARE */
	ck_assert_uint_eq(ev->number, 0x0000000a00000000ull);	/* PMU 10, PERF_COUNT_HW_CPU_CYCLES 0 */
	ev = pmu_find(&pmu, "cpu_core/branch-misses/");
	ck_assert_ptr_nonnull(ev);
	ck_assert_uint_eq(ev->perf_type, 0);
	ck_assert_uint_eq(ev->number, 0x0000000400000005ull);	/* PMU 4, PERF_COUNT_HW_BRANCH_MISSES 5 */
	ev = pmu_find(&pmu, "cpu_atom/L1-dcache-load-misses/");
	ck_assert_ptr_nonnull(ev);
	ck_assert_uint_eq(ev->perf_type, 3);			/* PERF_TYPE_HW_CACHE */
	ck_assert_uint_eq(ev->number, 0x0000000a00010000ull);	/* L1D 0, READ 0, MISS 1 */
	/* sysfs's own event of that name: the PMU's type, its raw encoding */
	ev = pmu_find(&pmu, "cpu_atom/instructions/");
	ck_assert_ptr_nonnull(ev);
	ck_assert_uint_eq(ev->perf_type, 10);
	ck_assert_uint_eq(ev->number, 0xc0);
	/* the generic name itself is unchanged (PMU type 0: the kernel's PERF_TYPE_RAW, the big cores) */
	ev = pmu_find(&pmu, "cycles");
	ck_assert_ptr_nonnull(ev);
	ck_assert_uint_eq(ev->number, 0);
	pmu_release(&pmu);
	/* one core PMU is not hybrid: no twins */
	setenv("LAUKA_SYSFS_PMUS", LAUKA_SRCDIR "/tests/fixtures/sysfs", 1);
	ck_assert_uint_eq(perf_hybrid_pmus(h, 4), 0);
	ck_assert_int_eq(perf_events_catalog(&pmu, err, sizeof(err)), 0);
	ck_assert_ptr_null(pmu_find(&pmu, "cpu_core/cycles/"));
	pmu_release(&pmu);
	unsetenv("LAUKA_SYSFS_PMUS");
}
END_TEST

/* Issue 36 P8: perf's PMU form of a raw event no row names, on a core PMU: encoded with that PMU's
 * format files, with its sysfs type; not a core PMU or not that form: 1; a term that does not fit: error. */
START_TEST(test_pmu_raw_event)
{
	setenv("LAUKA_SYSFS_PMUS", LAUKA_SRCDIR "/tests/fixtures/sysfs-arm", 1);
	struct lk_event ev;
	char err[512] = "";
	ck_assert_int_eq(perf_pmu_raw_event("armv8_cortex_a72/event=0x23/", &ev, err, sizeof(err)), 0);
	ck_assert_str_eq(ev.name, "armv8_cortex_a72/event=0x23/");
	ck_assert_uint_eq(ev.perf_type, 8);
	ck_assert_uint_eq(ev.number, 0x23);
	ck_assert_uint_eq(ev.config1, 0);
	free(ev.name);
	free(ev.description);
	ck_assert_int_eq(perf_pmu_raw_event("armv8_cortex_a72/event=0x10000/", &ev, err, sizeof(err)), -LK_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "does not fit"));
	ck_assert_int_eq(perf_pmu_raw_event("armv8_cortex_a72/umask=1/", &ev, err, sizeof(err)), -LK_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "unknown format term 'umask'"));
	ck_assert_int_eq(perf_pmu_raw_event("software/event=1/", &ev, err, sizeof(err)), 1);
	ck_assert_int_eq(perf_pmu_raw_event("armv8_cortex_a72/inst_retired/", &ev, err, sizeof(err)), 1);
	ck_assert_int_eq(perf_pmu_raw_event("r23", &ev, err, sizeof(err)), 1);
	ck_assert_int_eq(perf_pmu_raw_event("nosuch/event=1/", &ev, err, sizeof(err)), 1);
	/* the PMU device the exports name (P11): by the type file for a dynamic type, the core PMU for raw */
	char pmu[64];
	struct lk_event dyn = { .perf_type = 8 }, rawev = { .perf_type = 4 }, sw = { .perf_type = 1 }, none = { .perf_type = 99 };
	ck_assert_str_eq(perf_event_pmu(&dyn, pmu, sizeof(pmu)), "armv8_cortex_a72");
	ck_assert_str_eq(perf_event_pmu(&rawev, pmu, sizeof(pmu)), "armv8_cortex_a72");
	ck_assert_str_eq(perf_event_pmu(&sw, pmu, sizeof(pmu)), "software");
	ck_assert_ptr_null(perf_event_pmu(&none, pmu, sizeof(pmu)));
	setenv("LAUKA_SYSFS_PMUS", LAUKA_SRCDIR "/tests/fixtures/sysfs", 1);
	ck_assert_int_eq(perf_pmu_raw_event("cpu/event=0xd1,umask=0x20/", &ev, err, sizeof(err)), 0);
	ck_assert_uint_eq(ev.perf_type, 4);
	ck_assert_uint_eq(ev.number, 0x20d1);
	free(ev.name);
	free(ev.description);
	unsetenv("LAUKA_SYSFS_PMUS");
}
END_TEST

#ifdef __linux__
/*
 * A stand-in for perf_event_open(2) that keeps the attrs lauka gives the kernel and answers as the
 * kernel does on a hybrid CPU: a group whose events are on different PMUs is refused with EINVAL
 * (perf_event_open: a group lives in one PMU's context).  The PMU of a generic event is config's
 * high 32 bits, PERF_TYPE_RAW (4, the big cores) when they are 0 (include/uapi/linux/perf_event.h).
 */
static struct {
	struct perf_event_attr attr;
	int group;
	bool opened;
} opens[32];
static size_t nopens;
static int fd_pmu[1024];

static uint64_t attr_pmu(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE)
		return a->config >> 32 ? a->config >> 32 : PERF_TYPE_RAW;
	return a->type;
}

static long fake_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags)
{
	(void)pid;
	(void)cpu;
	(void)flags;
	ck_assert_uint_lt(nopens, 32);
	opens[nopens].attr = *attr;
	opens[nopens].group = group;
	opens[nopens].opened = false;
	nopens++;
	if (group >= 0 && group < 1024 && (uint64_t)fd_pmu[group] != attr_pmu(attr)) {
		errno = EINVAL;
		return -1;
	}
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_lt(fd, 1024);
	fd_pmu[fd] = (int)attr_pmu(attr);
	opens[nopens - 1].opened = true;
	return fd;
}

/*
 * The same, answering each read with {value, time_enabled, time_running, id} of perf's example in
 * tools/perf/Documentation/intel-hybrid.txt ("perf stat -e cycles -- taskset -c 16 ./triad_loop"):
 * the task on an E-core, cpu_core's cycles on a counter 0.47% of the time.
 */
static long fake_open_counts(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags)
{
	long fd = fake_open(attr, pid, cpu, group, flags);
	if (fd < 0)
		return fd;
	close((int)fd);
	int pfd[2];
	ck_assert_int_eq(pipe(pfd), 0);
	ck_assert_int_lt(pfd[0], 1024);
	fd_pmu[pfd[0]] = (int)attr_pmu(attr);
	uint64_t v[4] = { 0, 206505423, 0, 0 };
	if (attr->config == 0x0000000400000000ull)
		v[0] = 751035, v[2] = 966647;
	else
		v[0] = 601381075, v[2] = 205538776;
	ck_assert_int_eq(write(pfd[1], v, sizeof(v)), (int)sizeof(v));
	close(pfd[1]);
	return pfd[0];
}

/* The time a hybrid event's task spent on the other core type is not multiplexing: no scaling. */
START_TEST(test_hybrid_counts_not_scaled)
{
	setenv("LAUKA_SYSFS_PMUS", LAUKA_SRCDIR "/tests/fixtures/sysfs-hybrid", 1);
	setenv("LAUKA_PERF_PER_CHILD", "1", 1);
	struct lk_pmu pmu = { 0 };
	char err[128];
	ck_assert_int_eq(perf_events_catalog(&pmu, err, sizeof(err)), 0);
	const struct lk_backend *b = backend_find("perf");
	struct lk_evsel sel[2] = {
		{ .ev = pmu_find(&pmu, "cpu_core/cycles/"), .counter = -1 },
		{ .ev = pmu_find(&pmu, "cpu_atom/cycles/"), .counter = -1 },
	};
	void *priv = calloc(1, b->priv_size);
	perf_set_open_hook(fake_open_counts);
	ck_assert_int_eq(b->open(priv, sel, 2, err, sizeof(err)), 0);
	ck_assert_int_eq(b->attach(priv, 4242, err, sizeof(err)), 0);
	struct lk_counts c[2];
	struct lk_run_info run = { 0 };
	ck_assert_int_eq(b->read(priv, &run, c, err, sizeof(err)), 0);
	for (int k = 0; k < 2; k++)
		counts_scale(&c[k]);
	/* perf stat scales the first to 160,444,092; the count is 751,035 (perf stat --no-scale) */
	ck_assert_uint_eq(c[0].value, 751035);
	ck_assert_uint_eq(c[1].value, 601381075);
	ck_assert(!c[0].scaled && !c[1].scaled);
	b->detach(priv);
	b->close(priv);
	perf_set_open_hook(NULL);
	free(priv);
	pmu_release(&pmu);
	unsetenv("LAUKA_PERF_PER_CHILD");
	unsetenv("LAUKA_SYSFS_PMUS");
}
END_TEST

/* Issue 35 item 5: on a hybrid CPU a generic event is opened once per core PMU, with its extended type. */
START_TEST(test_hybrid_open_per_core_pmu)
{
	setenv("LAUKA_SYSFS_PMUS", LAUKA_SRCDIR "/tests/fixtures/sysfs-hybrid", 1);
	struct lk_pmu pmu = { 0 };
	char err[128];
	ck_assert_int_eq(perf_events_catalog(&pmu, err, sizeof(err)), 0);
	const struct lk_event *tw[4];
	ck_assert_uint_eq(perf_hybrid_twins(&pmu, pmu_find(&pmu, "cycles"), tw, 4), 2);
	ck_assert_str_eq(tw[0]->name, "cpu_core/cycles/");
	ck_assert_str_eq(tw[1]->name, "cpu_atom/cycles/");
	ck_assert_uint_eq(perf_hybrid_twins(&pmu, pmu_find(&pmu, "task-clock"), tw, 4), 0);
	ck_assert_uint_eq(perf_hybrid_twins(&pmu, pmu_find(&pmu, "cpu_atom/cycles/"), tw, 4), 0);
	ck_assert_uint_eq(perf_hybrid_twins(&pmu, pmu_find(&pmu, "L1-dcache-loads"), tw, 4), 2);

	const struct lk_backend *b = backend_find("perf");
	ck_assert_ptr_nonnull(b);
	struct lk_evsel sel[2] = {
		{ .ev = pmu_find(&pmu, "cpu_core/cycles/"), .counter = -1 },
		{ .ev = pmu_find(&pmu, "cpu_atom/cycles/"), .counter = -1 },
	};
	void *priv = calloc(1, b->priv_size);
	nopens = 0;
	perf_set_open_hook(fake_open);
	ck_assert_int_eq(b->open(priv, sel, 2, err, sizeof(err)), 0);
	ck_assert_int_eq(sel[0].err, 0);
	ck_assert_int_eq(sel[1].err, 0);
	nopens = 0;
	ck_assert_int_eq(b->attach(priv, 4242, err, sizeof(err)), 0);
	/* every event of each PMU ends up open, as the kernel encodes it: PERF_TYPE_HARDWARE (0),
	 * config 0xEEEEEEEE000000AA with EEEEEEEE the PMU's sysfs type, AA PERF_COUNT_HW_CPU_CYCLES (0) */
	bool core = false, atom = false;
	for (size_t i = 0; i < nopens; i++) {
		if (!opens[i].opened)
			continue;
		ck_assert_uint_eq(opens[i].attr.type, 0);
		if (opens[i].attr.config == 0x0000000400000000ull)
			core = true;
		else if (opens[i].attr.config == 0x0000000a00000000ull)
			atom = true;
		else
			ck_abort_msg("unexpected config 0x%llx", (unsigned long long)opens[i].attr.config);
	}
	ck_assert(core && atom);
	b->detach(priv);
	b->close(priv);
	/* a PMU's own sysfs event, and a raw row bound to cpu_atom: attr.type is the PMU's sysfs type */
	struct lk_event raw = { .name = "inst_retired.any_p", .perf_type = 10, .number = 0xc0, .fixed_counter = -1 };
	const struct lk_event *evs[2] = { pmu_find(&pmu, "cpu_atom/instructions/"), &raw };
	for (size_t k = 0; k < 2; k++) {
		nopens = 0;
		ck_assert_int_eq(b->supported(evs[k], err, sizeof(err)), 0);
		ck_assert_uint_eq(nopens, 1);
		ck_assert_uint_eq(opens[0].attr.type, 10);
		ck_assert_uint_eq(opens[0].attr.config, 0xc0);
	}
	perf_set_open_hook(NULL);
	free(priv);
	pmu_release(&pmu);
	unsetenv("LAUKA_SYSFS_PMUS");
}
END_TEST
#endif

/* Issue 36 P5: a group that opens but is kept off the counters means counters held elsewhere. */
START_TEST(test_counters_held)
{
	char buf[400];
	ck_assert(!perf_counters_held(7, 1.0, 7, 0, buf, sizeof(buf)));
	ck_assert_ptr_nonnull(strstr(buf, "a group of 7, enabled on lauka, was on the counters all its enabled time"));
	ck_assert(perf_counters_held(7, 0.0, 6, 1, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "a group of 7 opens but was on the counters 0% of its enabled time; a group of 6 runs whole: "
			      "1 counter is held by another process (CPU-wide perf events: a profiler, perf record -a, "
			      "the NMI watchdog: kernel.nmi_watchdog is 1)");
	ck_assert(perf_counters_held(7, 0.34, 0, -1, buf, sizeof(buf)));
	ck_assert_ptr_nonnull(strstr(buf, "34% of its enabled time; not even cycles alone runs whole: 7 counters are held"));
	ck_assert_ptr_null(strstr(buf, "nmi_watchdog is"));
}
END_TEST

START_TEST(test_suggest)
{
	setenv("LAUKA_SYSFS_PMUS", LAUKA_SRCDIR "/tests/fixtures/sysfs", 1);
	struct lk_pmu pmu = { 0 };
	char err[128];
	perf_events_catalog(&pmu, err, sizeof(err));
	const char *out[4];
	size_t n = pmu_suggest(&pmu, "cycels", out, 4);
	ck_assert_uint_ge(n, 1);
	ck_assert_str_eq(out[0], "cycles");
	n = pmu_suggest(&pmu, "branch-mises", out, 4);
	ck_assert_uint_ge(n, 1);
	ck_assert_str_eq(out[0], "branch-misses");
	ck_assert_uint_eq(pmu_suggest(&pmu, "zzzzzzzzzzzz", out, 4), 0);
	pmu_release(&pmu);
	unsetenv("LAUKA_SYSFS_PMUS");
}
END_TEST

/* A name that does not fit is an error, never a shortened path that might name another program. */
START_TEST(test_resolve_too_long)
{
	char buf[PATH_MAX], name[PATH_MAX + 64];
	memset(name, '/', sizeof(name) - 1);
	strcpy(name + PATH_MAX - 1 - strlen("/bin/true"), "/bin/true-not-there");
	ck_assert_int_eq(exec_resolve(name, buf, sizeof(buf)), -ENAMETOOLONG);
	char bare[PATH_MAX + 8];
	memset(bare, 'x', sizeof(bare) - 1);
	bare[sizeof(bare) - 1] = '\0';
	ck_assert_int_eq(exec_resolve(bare, buf, sizeof(buf)), -ENAMETOOLONG);
	ck_assert_int_eq(exec_resolve("/bin/true", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/bin/true");
	/* A PATH entry too long to join is skipped, not truncated. */
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	char path[PATH_MAX + 32];
	memset(path, 'd', PATH_MAX);
	strcpy(path + PATH_MAX, ":/bin");
	path[0] = '/';
	setenv("PATH", path, 1);
	ck_assert_int_eq(exec_resolve("true", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/bin/true");
	if (old) {
		setenv("PATH", old, 1);
		free(old);
	}
}
END_TEST

/* The stderr tail is the last RUNNER_TAIL_MAX bytes, in order, however much was written. */
START_TEST(test_stderr_tail)
{
	struct runner r;
	struct runner_opts o = { .show_output = false, .uid = -1, .gid = -1 };
	char err[256];
	ck_assert_msg(runner_init(&r, &o, err, sizeof(err)) == 0, "%s", err);
	char *argv[] = { "/bin/sh", "-c", "i=0; while [ $i -lt 3000 ]; do printf '%05d\\n' $i >&2; i=$((i+1)); done; exit 7",
			 NULL };
	struct runner_result res;
	ck_assert_msg(runner_run(&r, argv[0], argv, NULL, 0, NULL, &res, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(res.exit_code, 7);
	ck_assert_uint_eq(strlen(res.tail), RUNNER_TAIL_MAX);
	/* 3000 lines of 6 bytes: the tail ends with line 2999 and starts inside line 2317. */
	ck_assert_str_eq(res.tail + RUNNER_TAIL_MAX - 6, "02999\n");
	char expect[16];
	snprintf(expect, sizeof(expect), "%05d\n", 3000 - RUNNER_TAIL_MAX / 6);
	ck_assert(strstr(res.tail, expect) == res.tail + RUNNER_TAIL_MAX % 6);
	/* A run that succeeds shows nothing, and the next failure only its own output. */
	char *quiet[] = { "/bin/sh", "-c", "echo gone >&2; exit 2", NULL };
	ck_assert_int_eq(runner_run(&r, quiet[0], quiet, NULL, 0, NULL, &res, err, sizeof(err)), 0);
	ck_assert_str_eq(res.tail, "gone\n");
	runner_release(&r);
}
END_TEST

Suite *backend_suite(void)
{
	Suite *s = suite_create("backend");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_counts_scale, 0, sizeof(scale_cases) / sizeof(*scale_cases));
	tcase_add_test(tc, test_registry);
	tcase_add_test(tc, test_rusage_backend);
	tcase_add_test(tc, test_resolve_too_long);
	tcase_add_test(tc, test_stderr_tail);
	suite_add_tcase(s, tc);
	tc = tcase_create("perf-events");
	tcase_add_loop_test(tc, test_encode_terms, 0, sizeof(encode_cases) / sizeof(*encode_cases));
	tcase_add_test(tc, test_perf_catalog_fixture);
	tcase_add_test(tc, test_suggest);
	tcase_add_test(tc, test_core_pmu_named_after_core);
	tcase_add_test(tc, test_hybrid_generic_per_core_pmu);
#ifdef __linux__
	tcase_add_test(tc, test_hybrid_open_per_core_pmu);
	tcase_add_test(tc, test_hybrid_counts_not_scaled);
#endif
	tcase_add_test(tc, test_pmu_raw_event);
	tcase_add_test(tc, test_counters_held);
	suite_add_tcase(s, tc);
	return s;
}
