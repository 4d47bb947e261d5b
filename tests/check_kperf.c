/*
 * check_kperf.c: the kperf backend on Linux.  The pure parts (backend/kperf/agg.c)
 * with tables of records; the backend itself against the model of XNU's
 * rules (tests/support/kperf-standin.c, build/libkperf-standin.so) loaded
 * through $LAUKA_KPERF_PATH / $LAUKA_KPERFDATA_PATH, driven by the real
 * runner and real children (build/kperf-spin): the model samples their
 * threads from /proc, so coverage and timing come from real execution.
 * Each test runs in its own forked process (check's default), so the
 * model's in-memory "kernel" starts fresh; tests that need state to
 * outlive a process use $LAUKA_STANDIN_STATE.
 */
#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/kperf/kperf.h"
#include "base/error.h"
#include "backend/kperf/agg.h"
#include "backend/kperf/config.h"
#include "spawn/runner.h"
#include "support/kperf-standin.h"
#include "base/util.h"

#define STANDIN LAUKA_BUILD "/libkperf-standin.so"

/* ------------------------------------------------------------ aggregation */

static struct kperf_kdbuf rec(uint64_t tid, unsigned fn, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	struct kperf_kdbuf r;
	memset(&r, 0, sizeof(r));
	r.tid = tid;
	r.debugid = KPERF_DEBUGID_THREAD | fn;
	r.arg[0] = a;
	r.arg[1] = b;
	r.arg[2] = c;
	r.arg[3] = d;
	return r;
}

#define S KPERF_FUNC_START
#define E KPERF_FUNC_END

static const struct agg_case {
	const char *what;
	size_t ncounters;
	struct kperf_kdbuf recs[12];
	size_t nrecs;
	uint64_t total[10];
	size_t counted, dropped;
	enum kperf_base base;
	size_t lost;
} agg_cases[] = {
	{ "one thread, two samples", 4,
	  { { 0, { 10, 20, 30, 40 }, 1, KPERF_DEBUGID_THREAD | S | E, 0, 0 },
	    { 0, { 15, 26, 37, 48 }, 1, KPERF_DEBUGID_THREAD | S | E, 0, 0 } }, 2,
	  { 5, 6, 7, 8 }, 1, 0, KPERF_BASE_FIRST, 0 },
	{ "one sample only: nothing counted", 4,
	  { { 0, { 10, 20, 30, 40 }, 1, KPERF_DEBUGID_THREAD | S | E, 0, 0 } }, 1,
	  { 0, 0, 0, 0 }, 0, 0, KPERF_BASE_FIRST, 0 },
	{ "first and last of three samples", 2,
	  { { 0, { 1, 2, 0, 0 }, 7, KPERF_DEBUGID_THREAD | S | E, 0, 0 },
	    { 0, { 5, 9, 0, 0 }, 7, KPERF_DEBUGID_THREAD | S | E, 0, 0 },
	    { 0, { 11, 22, 0, 0 }, 7, KPERF_DEBUGID_THREAD | S | E, 0, 0 } }, 3,
	  { 10, 20 }, 1, 0, KPERF_BASE_FIRST, 0 },
	{ "six counters over two records, two threads interleaved", 6,
	  { { 0, { 1, 1, 1, 1 }, 1, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 100, 100, 0, 0 }, 2, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 1, 1, 0, 0 }, 1, KPERF_DEBUGID_THREAD | E, 0, 0 },
	    { 0, { 100, 100, 100, 100 }, 2, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 100, 100, 0, 0 }, 2, KPERF_DEBUGID_THREAD | E, 0, 0 },
	    { 0, { 3, 4, 5, 6 }, 1, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 7, 8, 0, 0 }, 1, KPERF_DEBUGID_THREAD | E, 0, 0 },
	    { 0, { 150, 160, 170, 180 }, 2, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 190, 200, 0, 0 }, 2, KPERF_DEBUGID_THREAD | E, 0, 0 } }, 9,
	  { 2 + 50, 3 + 60, 4 + 70, 5 + 80, 6 + 90, 7 + 100 }, 2, 1, KPERF_BASE_FIRST, 0 },
	{ "sample cut short by END is dropped", 6,
	  { { 0, { 1, 1, 1, 1 }, 1, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 1, 1, 0, 0 }, 1, KPERF_DEBUGID_THREAD | E, 0, 0 },
	    { 0, { 999, 999, 999, 999 }, 1, KPERF_DEBUGID_THREAD | S | E, 0, 0 },
	    { 0, { 2, 2, 2, 2 }, 1, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 2, 2, 0, 0 }, 1, KPERF_DEBUGID_THREAD | E, 0, 0 } }, 5,
	  { 1, 1, 1, 1, 1, 1 }, 1, 1, KPERF_BASE_FIRST, 0 },
	{ "records of other kdebug events are skipped", 2,
	  { { 0, { 1, 1, 0, 0 }, 1, KPERF_DEBUGID_THREAD | S | E, 0, 0 },
	    { 0, { 500, 500, 0, 0 }, 1, KPERF_EVENTID(KPERF_DBG_PERF, KPERF_PERF_KPC, 9) | S | E, 0, 0 },
	    { 0, { 500, 500, 0, 0 }, 1, KPERF_EVENTID(KPERF_DBG_PERF, 7, KPERF_PERF_KPC_DATA_THREAD), 0, 0 },
	    { 0, { 4, 5, 0, 0 }, 1, KPERF_DEBUGID_THREAD | S | E, 0, 0 } }, 4,
	  { 3, 4 }, 1, 0, KPERF_BASE_FIRST, 0 },
	{ "a counter reading lower later saturates at 0", 2,
	  { { 0, { 100, 100, 0, 0 }, 1, KPERF_DEBUGID_THREAD | S | E, 0, 0 },
	    { 0, { 90, 130, 0, 0 }, 1, KPERF_DEBUGID_THREAD | S | E, 0, 0 } }, 2,
	  { 0, 30 }, 1, 0, KPERF_BASE_FIRST, 0 },
	{ "records without DBG_FUNC flags still assemble", 6,
	  { { 0, { 1, 2, 3, 4 }, 1, KPERF_DEBUGID_THREAD, 0, 0 },
	    { 0, { 5, 6, 0, 0 }, 1, KPERF_DEBUGID_THREAD, 0, 0 },
	    { 0, { 2, 4, 6, 8 }, 1, KPERF_DEBUGID_THREAD, 0, 0 },
	    { 0, { 10, 12, 0, 0 }, 1, KPERF_DEBUGID_THREAD, 0, 0 } }, 4,
	  { 1, 2, 3, 4, 5, 6 }, 1, 0, KPERF_BASE_FIRST, 0 },
	{ "a new START while assembling drops the open sample", 6,
	  { { 0, { 1, 1, 1, 1 }, 1, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 5, 5, 5, 5 }, 1, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 5, 5, 0, 0 }, 1, KPERF_DEBUGID_THREAD | E, 0, 0 },
	    { 0, { 9, 9, 9, 9 }, 1, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 9, 9, 0, 0 }, 1, KPERF_DEBUGID_THREAD | E, 0, 0 } }, 5,
	  { 4, 4, 4, 4, 4, 4 }, 1, 1, KPERF_BASE_FIRST, 0 },
	/* Threads created while thread counting is on start at zero (kpc_thread.c): the last sample is the count. */
	{ "zero base: one sample counts", 4,
	  { { 0, { 10, 20, 30, 40 }, 1, KPERF_DEBUGID_THREAD | S, 0, 0 } }, 1,
	  { 10, 20, 30, 40 }, 1, 0, KPERF_BASE_ZERO, 0 },
	{ "zero base: the last of three samples, two threads", 2,
	  { { 0, { 1, 2, 0, 0 }, 7, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 3, 3, 0, 0 }, 8, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 5, 9, 0, 0 }, 7, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 11, 22, 0, 0 }, 7, KPERF_DEBUGID_THREAD | S, 0, 0 } }, 4,
	  { 14, 25 }, 2, 0, KPERF_BASE_ZERO, 0 },
	/* A single-record sample has START only (kperf_kpc.c); ten counters are START, NONE, END. */
	{ "zero base: START, NONE, END", 10,
	  { { 0, { 1, 2, 3, 4 }, 5, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 5, 6, 7, 8 }, 5, KPERF_DEBUGID_THREAD, 0, 0 },
	    { 0, { 9, 10, 0, 0 }, 5, KPERF_DEBUGID_THREAD | E, 0, 0 } }, 3,
	  { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, 1, 0, KPERF_BASE_ZERO, 0 },
	/* The buffer wrapped: the open sample is dropped, later complete ones count. */
	{ "lost events drop the sample being assembled", 6,
	  { { 0, { 1, 1, 1, 1 }, 1, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 1, 1, 0, 0 }, 1, KPERF_DEBUGID_THREAD | E, 0, 0 },
	    { 0, { 7, 7, 7, 7 }, 1, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 0, 0, 0, 0 }, 0, KPERF_TRACE_LOST_EVENTS, 0, 0 },
	    { 0, { 8, 8, 0, 0 }, 1, KPERF_DEBUGID_THREAD | E, 0, 0 },
	    { 0, { 9, 9, 9, 9 }, 1, KPERF_DEBUGID_THREAD | S, 0, 0 },
	    { 0, { 9, 9, 0, 0 }, 1, KPERF_DEBUGID_THREAD | E, 0, 0 } }, 7,
	  { 9, 9, 9, 9, 9, 9 }, 1, 2, KPERF_BASE_ZERO, 1 },
};

START_TEST(test_agg_table)
{
	const struct agg_case *c = &agg_cases[_i];
	struct kperf_agg a;
	kperf_agg_init(&a, c->ncounters, c->base);
	/* Feed one record at a time: the reader thread's reads split anywhere. */
	for (size_t i = 0; i < c->nrecs; i++)
		kperf_agg_feed(&a, &c->recs[i], 1);
	uint64_t tot[KPERF_MAX_COUNTERS];
	kperf_agg_total(&a, tot);
	for (size_t k = 0; k < c->ncounters; k++)
		ck_assert_msg(tot[k] == c->total[k], "%s: counter %zu = %llu, want %llu", c->what, k,
			      (unsigned long long)tot[k], (unsigned long long)c->total[k]);
	ck_assert_msg(kperf_agg_threads_counted(&a) == c->counted, "%s: threads counted", c->what);
	ck_assert_msg(a.dropped == c->dropped, "%s: dropped %zu, want %zu", c->what, a.dropped, c->dropped);
	ck_assert_msg(a.lost == c->lost, "%s: lost %zu, want %zu", c->what, a.lost, c->lost);
	kperf_agg_reset(&a);
	kperf_agg_total(&a, tot);
	ck_assert_uint_eq(tot[0], 0);
	kperf_agg_release(&a);
}
END_TEST

/* C3 (audit 4): per thread, a counter that drops or rises by more than 2^48 in one sample marks the run suspect. */
static const struct {
	const char *what;
	uint64_t tid[4], v0[4], v1[4];
	size_t n, suspect;
	const char *why;
} mono_cases[] = {
	{ "rising", { 1, 1, 1 }, { 10, 20, 30 }, { 5, 6, 7 }, 3, 0, NULL },
	{ "equal", { 1, 1 }, { 10, 10 }, { 5, 5 }, 2, 0, NULL },
	{ "second counter drops", { 1, 1, 1 }, { 10, 20, 30 }, { 5, 4, 9 }, 3, 1, "counter 1 of thread 1 dropped from 5 to 4" },
	{ "jump above 2^48", { 7, 7 }, { 10, (1ull << 48) + 11 }, { 1, 2 }, 2, 1, "counter 0 of thread 7 jumped" },
	{ "jump of exactly 2^48", { 7, 7 }, { 10, (1ull << 48) + 10 }, { 1, 2 }, 2, 0, NULL },
	{ "threads interleaved: no drop across threads", { 1, 2, 1, 2 }, { 100, 5, 200, 6 }, { 9, 1, 9, 2 }, 4, 0, NULL },
	{ "a first sample is never a jump", { 3 }, { 1ull << 60 }, { 1ull << 60 }, 1, 0, NULL },
	{ "two drops counted, the first described", { 4, 4, 4 }, { 9, 8, 7 }, { 1, 1, 1 }, 3, 2, "from 9 to 8" },
};

START_TEST(test_agg_monotonic)
{
	struct kperf_agg a;
	kperf_agg_init(&a, 2, KPERF_BASE_ZERO);
	for (size_t i = 0; i < mono_cases[_i].n; i++) {
		struct kperf_kdbuf r = rec(mono_cases[_i].tid[i], S, mono_cases[_i].v0[i], mono_cases[_i].v1[i], 0, 0);
		kperf_agg_feed(&a, &r, 1);
	}
	ck_assert_msg(a.suspect == mono_cases[_i].suspect, "%s: suspect %zu", mono_cases[_i].what, a.suspect);
	if (mono_cases[_i].why)
		ck_assert_msg(strstr(a.suspect_why, mono_cases[_i].why), "%s: %s", mono_cases[_i].what, a.suspect_why);
	kperf_agg_reset(&a);
	ck_assert(a.suspect == 0 && !a.suspect_why[0]);
	kperf_agg_release(&a);
}
END_TEST

/* A5 (audit 4): what doctor --macos calls stale: something on with no live foreground ktrace owner. */
START_TEST(test_stale_table)
{
	static const struct {
		int state, sampling, lwpet, counting, thread_counting;
		bool alive, stale;
		const char *names;
	} cases[] = {
		{ 0, 0, 0, 0, 0, false, false, "" },
		{ 0, 1, 1, 3, 3, false, true, "kperf.sampling = 1, kperf.lightweight_pet = 1, kpc.counting = 0x3, kpc.thread_counting = 0x3" },
		{ 0, 0, 0, 3, 0, false, true, "kpc.counting = 0x3" },
		{ 1, 1, 1, 3, 3, true, false, "" },		/* a live tool's own state */
		{ 1, 1, 0, 0, 0, false, true, "kperf.sampling = 1" },	/* its owner died */
		{ 2, 0, 1, 0, 0, true, true, "kperf.lightweight_pet = 1" },	/* a background tool: nothing of ours may be on */
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kperf_answer a[KPERF_A_N];
		memset(a, 0, sizeof(a));
		a[KPERF_A_KTRACE_STATE].v = cases[i].state;
		int v[] = { cases[i].sampling, cases[i].lwpet, cases[i].counting, cases[i].thread_counting };
		int idx[] = { KPERF_A_SAMPLING, KPERF_A_LWPET, KPERF_A_COUNTING, KPERF_A_THREAD_COUNTING };
		const char *names[] = { "kperf.sampling", "kperf.lightweight_pet", "kpc.counting", "kpc.thread_counting" };
		for (size_t k = 0; k < 4; k++) {
			a[idx[k]].name = names[k];
			a[idx[k]].v = v[k];
			snprintf(a[idx[k]].s, sizeof(a[idx[k]].s), k >= 2 ? "0x%x" : "%d", v[k]);
		}
		char why[256];
		ck_assert_msg(kperf_stale(a, cases[i].alive, why, sizeof(why)) == cases[i].stale, "case %zu", i);
		ck_assert_msg(!strcmp(why, cases[i].names), "case %zu: '%s'", i, why);
	}
	/* An unreadable answer (no root) is not evidence of anything. */
	struct kperf_answer a[KPERF_A_N];
	memset(a, 0, sizeof(a));
	a[KPERF_A_SAMPLING].v = 1;
	a[KPERF_A_SAMPLING].err = -EPERM;
	char why[64];
	ck_assert(!kperf_stale(a, false, why, sizeof(why)));
}
END_TEST

/*
 * C9 (audit 4): replay the kdebug dumps recorded on real Macs
 * (tests/fixtures/macos/<machine>/kdebug-alu.bin, tests/fixtures/macos/README.md)
 * through lauka's aggregation: records were read, samples are complete with the
 * flags the model writes, and no counter of a thread drops.  None present: nothing to replay.
 */
static void replay_dump(const char *dir)
{
	char path[PATH_MAX + 512], vpath[PATH_MAX + 512];
	snprintf(path, sizeof(path), "%s/kdebug-alu.bin", dir);
	snprintf(vpath, sizeof(vpath), "%s/kdebug-alu.values", dir);
	char *buf = NULL, *vbuf = NULL;
	size_t len = 0, vlen = 0;
	if (lk_read_file(path, (size_t)1 << 30, &buf, &len) < 0)
		return;
	ck_assert_msg(lk_read_file(vpath, 64, &vbuf, &vlen) == 0, "%s: no kdebug-alu.values beside the dump", dir);
	size_t values = (size_t)strtoul(vbuf, NULL, 10);
	ck_assert_msg(values >= 2 && values <= KPERF_MAX_COUNTERS, "%s: %zu values per sample", dir, values);
	ck_assert_msg(len % sizeof(struct kperf_kdbuf) == 0, "%s: %zu bytes is not whole 64-byte records", dir, len);
	struct kperf_agg a;
	kperf_agg_init(&a, values, KPERF_BASE_ZERO);
	size_t n = len / sizeof(struct kperf_kdbuf);
	struct kperf_kdbuf *recs = xcalloc(n ? n : 1, sizeof(*recs));
	memcpy(recs, buf, len);
	kperf_agg_feed(&a, recs, n);
	size_t samples = 0;
	for (size_t i = 0; i < a.nthreads; i++)
		samples += a.threads[i].nsamples;
	size_t per = (values + 3) / 4;
	printf("macOS fixture %s: %zu records, %zu samples, %zu threads, %zu dropped, %zu lost\n", dir, a.records,
	       samples, a.nthreads, a.dropped, a.lost);
	ck_assert_msg(samples > 0, "%s: no complete sample", dir);
	ck_assert_msg(a.records >= samples * per && a.dropped * 100 <= samples, "%s: %zu records for %zu samples of %zu, "
		      "%zu dropped", dir, a.records, samples, per, a.dropped);
	ck_assert_msg(a.starts >= samples && (per == 1 || a.ends >= samples), "%s: %zu START, %zu END for %zu samples",
		      dir, a.starts, a.ends, samples);
	ck_assert_msg(a.suspect == 0, "%s: %s", dir, a.suspect_why);
	kperf_agg_release(&a);
	free(recs);
	free(buf);
	free(vbuf);
}

START_TEST(test_macos_fixtures)
{
	const char *root = getenv("LAUKA_MACOS_FIXTURES");
	char top[PATH_MAX];
	snprintf(top, sizeof(top), "%s", root && *root ? root : LAUKA_SRCDIR "/tests/fixtures/macos");
	DIR *d = opendir(top);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char dir[PATH_MAX + 256];
		snprintf(dir, sizeof(dir), "%s/%s", top, de->d_name);
		replay_dump(dir);
	}
	closedir(d);
}
END_TEST

START_TEST(test_agg_many_threads)
{
	/* 100 threads, 3 samples each, fed in one batch: the table grows. */
	struct kperf_kdbuf *r = xcalloc(300, sizeof(*r));
	for (int s = 0; s < 3; s++)
		for (int t = 0; t < 100; t++)
			r[s * 100 + t] = rec(1000 + (uint64_t)t, S | E, (uint64_t)(s * (t + 1)), 7, 0, 0);
	struct kperf_agg a;
	kperf_agg_init(&a, 2, KPERF_BASE_FIRST);
	kperf_agg_feed(&a, r, 300);
	uint64_t tot[2];
	kperf_agg_total(&a, tot);
	ck_assert_uint_eq(tot[0], 2 * 5050);
	ck_assert_uint_eq(tot[1], 0);
	ck_assert_uint_eq(kperf_agg_threads_counted(&a), 100);
	kperf_agg_release(&a);
	free(r);
}
END_TEST

/* ------------------------------------------------------------ scope, scaling */

static const struct {
	uint64_t sampled, rusage;
	enum kperf_scope scope;
	double coverage;
} scope_cases[] = {
	{ 1000, 1000, KPERF_SCOPE_FULL, 1.0 },
	{ 995, 1000, KPERF_SCOPE_PARTIAL, 0.995 },
	{ 500, 1000, KPERF_SCOPE_PARTIAL, 0.5 },
	{ 1015, 1000, KPERF_SCOPE_FULL, 1.0 },		/* within tolerance: not scaled */
	{ 1100, 1000, KPERF_SCOPE_OVER, 1.1 },
	{ 0, 1000, KPERF_SCOPE_NONE, 0 },
	{ 10, 0, KPERF_SCOPE_NORUSAGE, 0 },
	{ 0, 0, KPERF_SCOPE_NORUSAGE, 0 },
};

START_TEST(test_scope_table)
{
	double cov = -1;
	enum kperf_scope s = kperf_agg_scope(scope_cases[_i].sampled, scope_cases[_i].rusage, &cov);
	ck_assert_int_eq(s, scope_cases[_i].scope);
	ck_assert_double_eq_tol(cov, scope_cases[_i].coverage, 1e-9);
}
END_TEST

static const struct {
	uint64_t value, sampled, rusage, want;
} scale_cases[] = {
	{ 100, 50, 100, 200 },
	{ 333, 990, 1000, 336 },	/* 336.36 rounds down */
	{ 1, 3, 5, 2 },			/* 1.67 rounds up */
	{ 77, 0, 1000, 77 },		/* no samples: unchanged */
	{ 1000, 1000, 1000, 1000 },
	{ 4000000000000ull, 9900000000ull, 10000000000ull, 4040404040404ull },
};

START_TEST(test_scale_table)
{
	ck_assert_uint_eq(kperf_agg_scale(scale_cases[_i].value, scale_cases[_i].sampled, scale_cases[_i].rusage),
			  scale_cases[_i].want);
}
END_TEST

/* ------------------------------------------------------------ add order */

/* kperfdata's allocator (reference/kpep.md 3.3): lowest free counter of the mask, in add order. */
static bool first_fit_ok(const uint64_t *mask, const bool *fixed, const size_t *order, size_t n)
{
	uint64_t used = 0;
	for (size_t j = 0; j < n; j++) {
		uint64_t free_ = mask[order[j]] & ~used;
		if (!free_)
			return false;
		used |= free_ & -free_;
		(void)fixed;
	}
	return true;
}

START_TEST(test_order_realises_matching)
{
	/* M1 masks, added in the worst order: default-mask events first. */
	static const uint64_t mask[] = { 0x1, 0x2, 0x3fc, 0x3fc, 0x3fc, 0x3fc, 0x3fc, 0xe0, 0xe0, 0x80 };
	static const bool fixed[] = { true, true, false, false, false, false, false, false, false, false };
	size_t n = ARRAY_SIZE(mask), order[10], naive[10];
	bool placed[10];
	for (size_t i = 0; i < n; i++)
		naive[i] = i;
	ck_assert(!first_fit_ok(mask, fixed, naive, n));	/* the order matters */
	ck_assert_uint_eq(kperf_agg_order(mask, fixed, NULL, n, order, placed), 0);
	ck_assert(first_fit_ok(mask, fixed, order, n));
	ck_assert(order[0] == 0 && order[1] == 1);		/* fixed first */

	/* The scheduler's counters, when given, decide the order. */
	static const int ctr[] = { -1, -1, 2, 3, 4, 8, 9, 5, 6, 7 };
	ck_assert_uint_eq(kperf_agg_order(mask, fixed, ctr, n, order, placed), 0);
	ck_assert(first_fit_ok(mask, fixed, order, n));
	ck_assert_uint_eq(order[9], 6);				/* counter 9 last */
}
END_TEST

START_TEST(test_order_unplaceable)
{
	/* Two PMC7-only events (INST_ALL, RETIRE_UOP): the later one cannot be placed. */
	static const uint64_t mask[] = { 0x80, 0xe0, 0x80, 0x3fc };
	static const bool fixed[] = { false, false, false, false };
	size_t order[4];
	bool placed[4];
	ck_assert_uint_eq(kperf_agg_order(mask, fixed, NULL, 4, order, placed), 1);
	ck_assert(placed[0] && placed[1] && !placed[2] && placed[3]);
	ck_assert_uint_eq(order[3], 2);				/* unplaced last */
	ck_assert(first_fit_ok(mask, fixed, order, 3));
}
END_TEST

/* ------------------------------------------------------------ error mapping */

static const struct {
	int code, err_no, want;
} kpep_err_cases[] = {
	{ 0, 0, LK_OK }, { 1, 0, LK_EINVAL }, { 2, 0, LK_ENOMEM }, { 3, 0, LK_EIO },
	{ 4, 0, LK_EINVAL }, { 5, 0, LK_ENOTSUP }, { 6, 0, LK_ENOENT }, { 7, 0, LK_ENOENT },
	{ 8, 0, LK_ENOTSUP }, { 9, 0, LK_ENOTSUP }, { 10, 0, LK_EPLIST }, { 11, 0, LK_ENOENT },
	{ 12, 0, LK_ESCHED }, { 13, 0, LK_ESCHED }, { 14, 0, LK_ENOTSUP },
	{ 15, EPERM, LK_EPERM }, { 15, EBUSY, LK_EBUSY }, { 15, EIO, LK_EIO }, { 15, ENOMEM, LK_ENOMEM },
	{ 16, 0, LK_EINVAL }, { -1, 0, LK_EINVAL },
};

START_TEST(test_kpep_error_table)
{
	char why[256] = "";
	int r = kperf_kpep_error(kpep_err_cases[_i].code, kpep_err_cases[_i].err_no, why, sizeof(why));
	ck_assert_int_eq(r, -kpep_err_cases[_i].want);
	ck_assert(why[0] != '\0');
	for (const char *p = why; *p; p++)	/* messages are lower-case */
		ck_assert_msg(!(*p >= 'A' && *p <= 'Z') || strstr(why, "Instruments") || strstr(why, "'"),
			      "upper case in '%s'", why);
}
END_TEST

START_TEST(test_errno_mapping)
{
	char why[256];
	ck_assert_int_eq(kperf_errno_error("kperf_sample_set", EBUSY, why, sizeof(why)), -LK_EBUSY);
	ck_assert(strstr(why, "kperf_sample_set") && strstr(why, "another process"));
	ck_assert_int_eq(kperf_errno_error("kpc_set_config", EPERM, why, sizeof(why)), -LK_EPERM);
	ck_assert(strstr(why, "root"));
	ck_assert_int_eq(kperf_errno_error("x", EINVAL, why, sizeof(why)), -LK_EINVAL);
	/* kpc_force_all_ctrs: EACCES means another live process holds the counters, not "needs root". */
	ck_assert_int_eq(kperf_errno_error("kpc_force_all_ctrs_set", EACCES, why, sizeof(why)), -LK_EBUSY);
	ck_assert_msg(strstr(why, "held by another process") && !strstr(why, "root"), "why: %s", why);
	ck_assert_int_eq(kperf_errno_error("kperf_sample_set", EACCES, why, sizeof(why)), -LK_EPERM);
	ck_assert_int_eq(kperf_errno_error("x", 0, why, sizeof(why)), -LK_EIO);
	ck_assert_int_eq(kperf_errno_error("x", EIO, why, sizeof(why)), -LK_EIO);
}
END_TEST

/* "$TMPDIR/NAME-XXXXXX" for mkdtemp (/tmp without TMPDIR): t-unit-tmp checks that nothing is left there. */
static char *tmp_template(const char *name)
{
	const char *t = getenv("TMPDIR");
	return xasprintf("%s/%s-XXXXXX", t && *t ? t : "/tmp", name);
}

/* ------------------------------------------------------------ plist lookup */

START_TEST(test_find_plist)
{
	char *dir = tmp_template("lauka-kpep");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *sub1 = xasprintf("%s/public", dir), *sub2 = xasprintf("%s/internal", dir);
	ck_assert_int_eq(mkdir(sub1, 0755), 0);
	ck_assert_int_eq(mkdir(sub2, 0755), 0);
	char *chip = xasprintf("%s/a14.plist", sub1), *link = xasprintf("%s/cpu_100000c_2_1b588bb3.plist", sub1);
	FILE *f = fopen(chip, "w");
	ck_assert_ptr_nonnull(f);
	fputs("<plist/>\n", f);
	fclose(f);
	ck_assert_int_eq(symlink("a14.plist", link), 0);

	char out[PATH_MAX];
	const char *dirs[] = { NULL, "", sub2, sub1 };
	ck_assert_int_eq(kperf_find_plist(dirs, 4, 0x100000c, 2, 0x1b588bb3, out, sizeof(out)), 0);
	char real[PATH_MAX];
	ck_assert_ptr_nonnull(realpath(chip, real));
	ck_assert_str_eq(out, real);				/* the symlink is resolved */
	ck_assert_int_eq(kperf_find_plist(dirs, 4, 0x100000c, 2, 0xfa33415e, out, sizeof(out)), -LK_ENOENT);
	ck_assert_str_eq(out, "cpu_100000c_2_fa33415e.plist");	/* the name looked for */

	unlink(link);
	unlink(chip);
	rmdir(sub1);
	rmdir(sub2);
	rmdir(dir);
	free(dir);
	free(sub1);
	free(sub2);
	free(chip);
	free(link);
}
END_TEST

/* ------------------------------------------------------------ the backend on the model of XNU */

static struct lk_event ev_cycles = { .name = "FIXED_CYCLES", .counters_mask = 0x1, .fixed_counter = 0 };
static struct lk_event ev_instr = { .name = "FIXED_INSTRUCTIONS", .counters_mask = 0x2, .fixed_counter = 1 };
static struct lk_event ev_branch = { .name = "INST_BRANCH", .number = 0x8d, .counters_mask = 0xe0, .fixed_counter = -1 };
static struct lk_event ev_mispred = { .name = "BRANCH_MISPRED_NONSPEC", .number = 0xcb, .counters_mask = 0xe0, .fixed_counter = -1 };
static struct lk_event ev_l1dns = { .name = "L1D_CACHE_MISS_LD_NONSPEC", .number = 0xbf, .counters_mask = 0xe0, .fixed_counter = -1 };
static struct lk_event ev_l1i = { .name = "L1I_CACHE_MISS_DEMAND", .number = 0xdb, .counters_mask = 0x3fc, .fixed_counter = -1 };
static struct lk_event ev_core = { .name = "CORE_ACTIVE_CYCLE", .number = 0x2, .counters_mask = 0x3fc, .fixed_counter = -1 };
static struct lk_event ev_l1d = { .name = "L1D_CACHE_MISS_LD", .number = 0xa3, .counters_mask = 0x3fc, .fixed_counter = -1 };
static struct lk_event ev_install = { .name = "INST_ALL", .number = 0x8c, .counters_mask = 0x80, .fixed_counter = -1 };
static struct lk_event ev_retire = { .name = "RETIRE_UOP", .number = 0x1, .counters_mask = 0x80, .fixed_counter = -1 };
static struct lk_event ev_missing = { .name = "NOT_IN_KPERFDATA", .number = 0x99, .counters_mask = 0x3fc, .fixed_counter = -1 };

/* The M1-M3 default set (backend/kperf/kperf.c kperf_defaults): three of them need PMC5-7. */
static struct lk_event *const m1_defaults[] = { &ev_branch, &ev_mispred, &ev_l1dns, &ev_l1i, &ev_instr, &ev_cycles };

static void *standin_handle;
static standin_state_fn standin_state;

static void use_standin(void)
{
	setenv("LAUKA_KPERF_PATH", STANDIN, 1);
	setenv("LAUKA_KPERFDATA_PATH", STANDIN, 1);
	kperf_lib_unload();
	/* A second reference keeps the stand-in (its "kernel" state) loaded across unloads. */
	standin_handle = dlopen(STANDIN, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(standin_handle != NULL, "cannot load %s: %s (run make test-unit)", STANDIN, dlerror());
	standin_state = (standin_state_fn)dlsym(standin_handle, STANDIN_STATE_SYMBOL);
	ck_assert_ptr_nonnull(standin_state);
}

static struct standin_state state(void)
{
	struct standin_state st;
	standin_state(&st);
	return st;
}

/* What close() must leave off: sampling, tracing, kperf, kpc counting, ktrace ownership. */
static void assert_closed(const char *when)
{
	struct standin_state st = state();
	ck_assert_msg(!st.sampling, "%s: sampling still on", when);
	ck_assert_msg(!st.lightweight_pet, "%s: lightweight PET still on", when);
	ck_assert_msg(!st.counting && !st.thread_counting, "%s: kpc still counting", when);
	ck_assert_msg(!st.kd_setup && !st.kd_enabled && !st.kd_nbufs, "%s: kdebug not reset", when);
	/* kperf_reset keeps the action and timer counts (action.c) and clears what they hold. */
	ck_assert_msg(!st.samplers && !st.timer_action && !st.timer_period && st.filter_pid <= 0,
		      "%s: kperf not reset", when);
	ck_assert_msg(st.owner == 0, "%s: ktrace still owned by %d", when, st.owner);
}

/* ...and at exit the forced counters too. */
static void assert_clean(const char *when)
{
	assert_closed(when);
	ck_assert_msg(!state().force_all, "%s: counters still forced", when);
}

static void sel_init(struct lk_evsel *sel, struct lk_event *const *evs, size_t n, bool explicit)
{
	memset(sel, 0, n * sizeof(*sel));
	for (size_t i = 0; i < n; i++) {
		sel[i].ev = evs[i];
		sel[i].counter = -1;
		sel[i].explicit = explicit;
	}
}

/*
 * The kperf backend opened on inst_branch alone, as most tests need it.  The
 * selection is static: the backend keeps a pointer to it while open.
 */
static int open_branch(struct backend_inst *bi, char *err, size_t len)
{
	static struct lk_evsel sel[1];
	struct lk_event *evs[] = { &ev_branch };
	sel_init(sel, evs, 1, true);
	return backend_inst_open(bi, &backend_kperf, sel, 1, err, len);
}

/* One measured run of argv through the real runner with the kperf backend. */
static int run_once(struct backend_inst *bi, char *const argv[], struct lk_counts *counts,
		    struct runner_result *res, char *err, size_t len)
{
	struct runner r;
	struct runner_opts o = { .show_output = false, .uid = -1, .gid = -1 };
	ck_assert_int_eq(runner_init(&r, &o, err, len), 0);
	struct lk_counts *cp[1] = { counts };
	int ret = runner_run(&r, argv[0], argv, bi, bi ? 1 : 0, cp, res, err, len);
	runner_release(&r);
	return ret;
}

static uint64_t ru_cpu_ns(const struct runner_result *res)
{
	const struct rusage *ru = &res->ru;
	return ((uint64_t)ru->ru_utime.tv_sec + (uint64_t)ru->ru_stime.tv_sec) * 1000000000u +
	       ((uint64_t)ru->ru_utime.tv_usec + (uint64_t)ru->ru_stime.tv_usec) * 1000u;
}

/* A configurable count scaled by coverage: number * instructions / 2 in the model, up to rounding. */
static void assert_model_count(const struct lk_counts *c, const struct lk_event *ev, uint64_t instr)
{
	double want = (double)ev->number * (double)instr / STANDIN_INSTR_PER_NS;
	ck_assert_msg(c->supported && c->running, "%s not counted", ev->name);
	ck_assert_msg(fabs((double)c->value - want) <= (double)ev->number + 1, "%s = %llu, want %.0f", ev->name,
		      (unsigned long long)c->value, want);
}

START_TEST(test_detect)
{
	use_standin();
	char why[256] = "";
	ck_assert_int_eq(backend_kperf.detect(why, sizeof(why)), 0);
	setenv("LAUKA_STANDIN_EUID", "501", 1);
	ck_assert_int_eq(backend_kperf.detect(why, sizeof(why)), -LK_EPERM);
	ck_assert_msg(strstr(why, "root"), "why: %s", why);
	unsetenv("LAUKA_STANDIN_EUID");
	/* F12: an x86_64 lauka translated by Rosetta is refused. */
	setenv("LAUKA_STANDIN_TRANSLATED", "1", 1);
	ck_assert_int_eq(backend_kperf.detect(why, sizeof(why)), -LK_ENOTSUP);
	ck_assert_msg(strstr(why, "Rosetta") && strstr(why, "arm64"), "why: %s", why);
	unsetenv("LAUKA_STANDIN_TRANSLATED");
	setenv("LAUKA_KPERF_PATH", "/nonexistent/kperf", 1);
	kperf_lib_unload();
	ck_assert_int_eq(backend_kperf.detect(why, sizeof(why)), -LK_ENOTSUP);
	ck_assert_msg(strstr(why, "/nonexistent/kperf"), "why: %s", why);
#ifdef __linux__
	/* A library without the seam on Linux: not macOS. */
	setenv("LAUKA_KPERF_PATH", "libc.so.6", 1);
	kperf_lib_unload();
	ck_assert_int_eq(backend_kperf.detect(why, sizeof(why)), -LK_ENOTSUP);
	ck_assert_msg(strstr(why, "macOS"), "why: %s", why);
#endif
}
END_TEST

START_TEST(test_catalog_locates_plist)
{
	use_standin();
	char *dir = tmp_template("lauka-kpepdb");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("KPEP_DB_PATH", dir, 1);
	setenv("LAUKA_STANDIN_CPU", "100000c,2,5f4dea93", 1);	/* M3 Pro */
	struct lk_pmu pmu;
	memset(&pmu, 0, sizeof(pmu));
	char err[512];
	ck_assert_int_eq(backend_kperf.catalog(&pmu, err, sizeof(err)), -LK_ENOENT);
	ck_assert_msg(strstr(err, "cpu_100000c_2_5f4dea93.plist"), "err: %s", err);
	/* Found through the cpu_* symlink, parsed by catalog/kpep.c. */
	char *link = xasprintf("%s/cpu_100000c_2_5f4dea93.plist", dir);
	ck_assert_int_eq(symlink(LAUKA_SRCDIR "/tests/fixtures/kpep/tiny.plist", link), 0);
	ck_assert_msg(backend_kperf.catalog(&pmu, err, sizeof(err)) == 0, "catalog: %s", err);
	ck_assert_str_eq(pmu.kind, "kpep");
	ck_assert_str_eq(pmu.name, "tiny");
	ck_assert_msg(strstr(pmu.source, "tests/fixtures/kpep/tiny.plist"), "source %s", pmu.source);
	ck_assert_ptr_nonnull(pmu_find(&pmu, "FIXED_INSTRUCTIONS"));
	pmu_release(&pmu);
	/* The lookup other backends call: where it was found and what it resolves to. */
	char path[PATH_MAX], detail[512];
	ck_assert_int_eq(kperf_kpep_locate(path, sizeof(path), detail, sizeof(detail)), 0);
	ck_assert_msg(strstr(path, "tests/fixtures/kpep/tiny.plist"), "path %s", path);
	ck_assert_msg(strstr(detail, "$KPEP_DB_PATH") && strstr(detail, "cpu_100000c_2_5f4dea93.plist"), "detail %s",
		      detail);
	setenv("LAUKA_STANDIN_FAIL", "cpu_ids=5", 1);
	ck_assert_int_eq(backend_kperf.catalog(&pmu, err, sizeof(err)), -LK_ENOTSUP);
	unlink(link);
	free(link);
	rmdir(dir);
	free(dir);
}
END_TEST

/*
 * F1 against the model, with the old order of calls: the count read before
 * the counters are forced is 2+5, the kernel logs 2+8 once they are, and the
 * M1 default set lands on PMC5-7, so the old check "map[a] >= ncounters"
 * (backend/kperf/kperf.c before this change) refused counter 7 of 7.
 */
START_TEST(test_f1_old_order_fails)
{
	use_standin();
	typedef uint32_t (*count_fn)(uint32_t);
	typedef int (*force_fn)(int);
	count_fn count = (count_fn)dlsym(standin_handle, "kpc_get_counter_count");
	force_fn force = (force_fn)dlsym(standin_handle, "kpc_force_all_ctrs_set");
	ck_assert(count && force);
	ck_assert_uint_eq(count(3), 7);		/* what the old code read, right after releasing */
	ck_assert_int_eq(force(1), 0);
	ck_assert_uint_eq(count(3), 10);
	ck_assert_int_eq(force(0), 0);

	/* The new backend: the default set programs, the sample layout is 10 values. */
	struct lk_evsel sel[ARRAY_SIZE(m1_defaults)];
	sel_init(sel, m1_defaults, ARRAY_SIZE(m1_defaults), false);
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_msg(backend_inst_open(&bi, &backend_kperf, sel, ARRAY_SIZE(sel), err, sizeof(err)) == 0, "open: %s",
		      err);
	size_t max_slot = 0;
	for (size_t i = 0; i < ARRAY_SIZE(sel); i++) {
		ck_assert_msg(sel[i].err == 0, "%s: %s", sel[i].ev->name, sel[i].why);
	}
	struct kperf_run_stats rs;
	kperf_last_run(bi.priv, &rs);
	ck_assert_uint_eq(rs.values, 10);
	struct standin_state st = state();
	ck_assert_uint_eq(st.thread_values, 10);
	ck_assert(st.thread_forced);
	/* Some default event sits at or above index 7: the old count of 7 could not hold it. */
	for (size_t k = 0; k < 8; k++)
		if (st.config[k] & 0xffff)
			max_slot = k + 2;
	ck_assert_uint_ge(max_slot, 7);
	struct lk_counts c[ARRAY_SIZE(m1_defaults)];
	struct runner_result res;
	char *argv[] = { LAUKA_BUILD "/kperf-spin", "30", NULL };
	ck_assert_msg(run_once(&bi, argv, c, &res, err, sizeof(err)) == 0, "run: %s", err);
	for (size_t i = 0; i < 4; i++)
		assert_model_count(&c[i], m1_defaults[i], c[4].value);
	backend_inst_close(&bi);
	assert_closed("after close");
}
END_TEST

/*
 * The whole path on a real child: fixed counts are proc_pid_rusage's (the
 * model: 2 instructions and 3 cycles per ns of the process's CPU time,
 * checked against wait4's user+system time), configurable counts are
 * the samples scaled by coverage.  kdebug is set up once for all runs (F2)
 * and the counters are forced once (F3).
 */
START_TEST(test_run_counts)
{
	use_standin();
	struct lk_event *evs[] = { &ev_core, &ev_branch, &ev_instr, &ev_mispred, &ev_cycles, &ev_l1d, &ev_install };
	size_t n = ARRAY_SIZE(evs);
	struct lk_evsel sel[ARRAY_SIZE(evs)];
	sel_init(sel, evs, n, true);
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_msg(backend_inst_open(&bi, &backend_kperf, sel, n, err, sizeof(err)) == 0, "open: %s", err);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(sel[i].err == 0, "%s: %s", sel[i].ev->name, sel[i].why);
	struct standin_state st = state();
	ck_assert(st.force_all && st.counting == 3 && st.thread_counting == 3 && st.config_set);
	ck_assert_int_eq(st.kd_setups, 1);

	char *argv[] = { LAUKA_BUILD "/kperf-spin", "40", "2", NULL };
	for (int run = 0; run < 3; run++) {
		struct lk_counts c[ARRAY_SIZE(evs)];
		struct runner_result res;
		ck_assert_msg(run_once(&bi, argv, c, &res, err, sizeof(err)) == 0, "run: %s", err);
		ck_assert_int_eq(res.exit_code, 0);
		st = state();
		ck_assert_int_eq(st.rusage_pid, st.filter_pids[0]);
		ck_assert_int_ne(st.filter_pids[0], (int)getpid());	/* the child, not lauka */
		ck_assert(!st.sampling && !st.kd_enabled);		/* per-run state off */
		ck_assert(st.counting == 3 && st.kd_setup);		/* kpc and the trace buffer stay */
		/* Fixed counters: proc_pid_rusage, not scaled; the model's rate times wait4's CPU time. */
		double cpu = (double)ru_cpu_ns(&res);
		ck_assert_msg(fabs((double)c[2].value - STANDIN_INSTR_PER_NS * cpu) <= 0.05 * STANDIN_INSTR_PER_NS * cpu + 4e6,
			      "instructions %llu, wait4 cpu %.0f ns", (unsigned long long)c[2].value, cpu);
		ck_assert(!c[2].scaled && c[2].supported);
		ck_assert_uint_eq(c[4].value / STANDIN_CYCLES_PER_NS, c[2].value / STANDIN_INSTR_PER_NS);
		ck_assert(!c[4].scaled);
		for (size_t i = 0; i < n; i++) {
			if (evs[i]->fixed_counter >= 0)
				continue;
			assert_model_count(&c[i], evs[i], c[2].value);
			ck_assert(c[i].scaled && c[i].coverage > 0.5 && c[i].coverage <= 1.0);
		}
	}
	st = state();
	ck_assert_msg(st.kd_setups == 1 && st.kd_removes == 1, "per-run kdebug set-up: %d setups, %d removes",
		      st.kd_setups, st.kd_removes);	/* the one REMOVE at open (N4) */
	ck_assert_int_eq(st.force_sets, 1);
	ck_assert_uint_gt(st.samples, 0);
	/* The layout of the last run: 10 values = 3 records per sample, START on the first, END on the last. */
	struct kperf_run_stats rs;
	kperf_last_run(bi.priv, &rs);
	ck_assert_uint_eq(rs.values, 10);
	ck_assert_uint_gt(rs.samples, 0);
	ck_assert_uint_eq(rs.records, 3 * rs.samples);
	ck_assert_uint_eq(rs.starts, rs.samples);
	ck_assert_uint_eq(rs.ends, rs.samples);
	ck_assert_uint_eq(rs.threads, 2);
	backend_inst_close(&bi);
	assert_closed("after close");
	ck_assert_int_eq(state().kd_removes, 2);
	ck_assert(state().force_all);	/* held until lauka exits (F3) */
}
END_TEST

/* The old per-run kdebug sequence, for test_f2_wall_time: what attach() did before this change. */
static int old_attach(void *priv, pid_t pid, char *err, size_t len)
{
	const struct kperf_sys *sys = dlsym(standin_handle, KPERF_SYS_SYMBOL);
	size_t zero = 0;
	struct kperf_kdreg reg = { .type = KPERF_KDBG_VALCHECK, .value1 = KPERF_DEBUGID_THREAD };
	size_t reglen = sizeof(reg);
	sys->kdebug(KPERF_KD_REMOVE, 0, NULL, &zero);
	sys->kdebug(KPERF_KD_SETBUF, 262144, NULL, &zero);
	sys->kdebug(KPERF_KD_SETUP, 0, NULL, &zero);
	sys->kdebug(KPERF_KD_SETREG, 0, &reg, &reglen);
	return backend_kperf.attach(priv, pid, err, len);
}

/*
 * F2: KERN_KDREMOVE and KERN_KDSETUP sleep 100 ms each in XNU.  The old
 * code ran them in attach(), on every run; side by side with a run without
 * kperf, its wall time is inflated by 200 ms, the new one's is not.
 */
START_TEST(test_f2_wall_time)
{
	use_standin();
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_msg(open_branch(&bi, err, sizeof(err)) == 0, "open: %s", err);
	char *argv[] = { "/bin/true", NULL };
	struct lk_counts c[1];
	struct runner_result plain, now, old;
	uint64_t best_plain = UINT64_MAX, best_now = UINT64_MAX, best_old = UINT64_MAX;
	struct lk_backend old_ops = backend_kperf;
	old_ops.attach = old_attach;
	struct backend_inst old_bi = bi;
	old_bi.ops = &old_ops;
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(run_once(NULL, argv, NULL, &plain, err, sizeof(err)), 0);
		int removes0 = state().kd_removes, setups0 = state().kd_setups;
		ck_assert_msg(run_once(&bi, argv, c, &now, err, sizeof(err)) == 0, "run: %s", err);
		ck_assert(state().kd_removes == removes0 && state().kd_setups == setups0);	/* none per run */
		int removes = state().kd_removes, setups = state().kd_setups;
		ck_assert_msg(run_once(&old_bi, argv, c, &old, err, sizeof(err)) == 0, "old run: %s", err);
		ck_assert(state().kd_removes == removes + 1 && state().kd_setups == setups + 1);
		best_plain = plain.wall_ns < best_plain ? plain.wall_ns : best_plain;
		best_now = now.wall_ns < best_now ? now.wall_ns : best_now;
		best_old = old.wall_ns < best_old ? old.wall_ns : best_old;
	}
	/*
	 * The old sequence slept 2 x 100 ms in every run (asserted above from
	 * the model's counts).  With a runner whose clock covers attach() (it
	 * started before fork), that is in wall_time: the F2 failure.  A runner
	 * that starts the clock when the child is released no longer shows it;
	 * then only the new path's wall time is checked.
	 */
	fprintf(stderr, "F2: /bin/true wall time: plain %.1f ms, kperf %.1f ms, old kperf sequence %.1f ms\n",
		(double)best_plain / 1e6, (double)best_now / 1e6, (double)best_old / 1e6);
	if (best_old >= best_plain + 190000000u)
		ck_assert_msg(best_now + 150000000u < best_old, "new %llu ns, old %llu ns", (unsigned long long)best_now,
			      (unsigned long long)best_old);
	ck_assert_msg(best_now < best_plain + 100000000u, "new %llu ns, plain %llu ns", (unsigned long long)best_now,
		      (unsigned long long)best_plain);
	backend_inst_close(&bi);
	assert_closed("after close");
}
END_TEST

/* Coverage of a command of ms milliseconds with nthreads threads, as the model yields it. */
static double coverage_of(struct backend_inst *bi, const char *ms, const char *nthreads, struct lk_counts *c)
{
	char err[512] = "";
	char *argv[] = { LAUKA_BUILD "/kperf-spin", (char *)ms, (char *)nthreads, NULL };
	struct runner_result res;
	ck_assert_msg(run_once(bi, argv, c, &res, err, sizeof(err)) == 0, "run: %s", err);
	if (!c[0].running)
		return 0;
	return c[0].scaled ? c[0].coverage : 1.0;
}

/*
 * Coverage from real execution: longer commands are covered better (only
 * the tail after a thread's last tick is missed, F6), a single-threaded
 * 1 ms command may see no tick at all (not counted, never a silent 0).
 * Printed for the coverage table in doc/macos.md; asserted only where the rule is certain.
 */
START_TEST(test_coverage)
{
	use_standin();
	struct lk_event *evs[] = { &ev_branch, &ev_instr };
	struct lk_evsel sel[2];
	sel_init(sel, evs, 2, true);
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_int_eq(backend_inst_open(&bi, &backend_kperf, sel, 2, err, sizeof(err)), 0);
	struct lk_counts c[2];
	static const char *const lens[] = { "1", "10", "200" };
	static const char *const threads[] = { "1", "4" };
	double cov[3][2];
	for (size_t l = 0; l < 3; l++)
		for (size_t t = 0; t < 2; t++) {
			cov[l][t] = coverage_of(&bi, lens[l], threads[t], c);
			fprintf(stderr, "kperf model coverage: %s ms, %s thread(s): %.3f\n", lens[l], threads[t], cov[l][t]);
			ck_assert(cov[l][t] >= 0 && cov[l][t] <= 1.0);
			if (c[0].running)
				assert_model_count(&c[0], &ev_branch, c[1].value);
			else
				ck_assert(c[0].supported && c[0].enabled);	/* not counted, not zero */
		}
	ck_assert_msg(cov[2][0] > 0.7, "200 ms single-threaded coverage %.3f", cov[2][0]);
	ck_assert_msg(cov[2][1] > 0.6, "200 ms 4-thread coverage %.3f", cov[2][1]);
	backend_inst_close(&bi);
}
END_TEST

/* F10: the trace buffer wrapped: the next read starts with a lost-events record; the run is marked scaled. */
START_TEST(test_lost_events)
{
	setenv("LAUKA_STANDIN_KDBUF_MAX", "6", 1);
	use_standin();
	struct lk_event *evs[] = { &ev_branch, &ev_l1d, &ev_instr };
	struct lk_evsel sel[3];
	sel_init(sel, evs, 3, true);
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_int_eq(backend_inst_open(&bi, &backend_kperf, sel, 3, err, sizeof(err)), 0);
	struct lk_counts c[3];
	struct runner_result res;
	char *argv[] = { LAUKA_BUILD "/kperf-spin", "60", "4", NULL };
	ck_assert_msg(run_once(&bi, argv, c, &res, err, sizeof(err)) == 0, "run: %s", err);
	ck_assert_uint_gt(state().lost, 0);
	struct kperf_run_stats rs;
	kperf_last_run(bi.priv, &rs);
	ck_assert_uint_gt(rs.lost, 0);
	if (c[0].running) {
		ck_assert(c[0].scaled && c[0].coverage <= 1.0);
		ck_assert_uint_le(c[0].value, (uint64_t)((double)ev_branch.number * (double)c[2].value / 2 * 1.001) + 1);
	}
	backend_inst_close(&bi);
}
END_TEST

/* F9: a shell's children are not the direct process: neither sampled nor in its rusage. */
START_TEST(test_direct_process_only)
{
	use_standin();
	struct lk_event *evs[] = { &ev_branch, &ev_instr };
	struct lk_evsel sel[2];
	sel_init(sel, evs, 2, true);
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_int_eq(backend_inst_open(&bi, &backend_kperf, sel, 2, err, sizeof(err)), 0);
	struct lk_counts c[2];
	struct runner_result res;
	char *argv[] = { "/bin/sh", "-c", LAUKA_BUILD "/kperf-spin 100; true", NULL };
	ck_assert_msg(run_once(&bi, argv, c, &res, err, sizeof(err)) == 0, "run: %s", err);
	/* The child spun 100 ms of CPU; sh itself used far less. */
	ck_assert_msg(c[1].value < STANDIN_INSTR_PER_NS * 50000000ull, "instructions %llu include the child",
		      (unsigned long long)c[1].value);
	const char *sh_argv[] = { "/bin/sh", "-c", "x", NULL }, *plain[] = { "/bin/ls", NULL };
	ck_assert_ptr_nonnull(kperf_scope_note("kperf", sh_argv));
	ck_assert_ptr_null(kperf_scope_note("kperf", plain));
	ck_assert_ptr_null(kperf_scope_note("perf", sh_argv));
	backend_inst_close(&bi);
}
END_TEST

START_TEST(test_conflicts_and_unknown)
{
	use_standin();
	/* INST_ALL and RETIRE_UOP both need PMC7; NOT_IN_KPERFDATA is not in its database. */
	struct lk_event *evs[] = { &ev_install, &ev_retire, &ev_missing, &ev_core };
	struct lk_evsel sel[4];
	sel_init(sel, evs, 4, false);
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_int_eq(backend_inst_open(&bi, &backend_kperf, sel, 4, err, sizeof(err)), 0);
	ck_assert_int_eq(sel[0].err, 0);
	ck_assert_int_eq(sel[1].err, -LK_ESCHED);
	ck_assert_msg(sel[1].why[0], "no reason for the conflict");
	ck_assert_int_eq(sel[2].err, -LK_ENOENT);
	ck_assert_msg(strstr(sel[2].why, "NOT_IN_KPERFDATA"), "why: %s", sel[2].why);
	ck_assert_int_eq(sel[3].err, 0);
	backend_inst_close(&bi);
	assert_closed("after close");

	/* Explicit events first: RETIRE_UOP named by the user wins PMC7 over a default INST_ALL. */
	sel_init(sel, evs, 2, false);
	sel[1].explicit = true;
	ck_assert_int_eq(backend_inst_open(&bi, &backend_kperf, sel, 2, err, sizeof(err)), 0);
	ck_assert_int_eq(sel[1].err, 0);
	ck_assert_int_eq(sel[0].err, -LK_ESCHED);
	backend_inst_close(&bi);
}
END_TEST

START_TEST(test_seed_config_order)
{
	/* Four default-mask events before the restricted ones: naive first fit starves PMC5-7. */
	use_standin();
	struct lk_event more = ev_core, more2 = ev_core;
	more.name = "L1I_CACHE_MISS_DEMAND";
	more2.name = "MAP_STALL";
	struct lk_event *all[] = { &ev_core, &ev_l1d, &more, &more2, &ev_branch, &ev_mispred, &ev_install };
	struct lk_evsel sel[7];
	sel_init(sel, all, 7, true);
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_msg(backend_inst_open(&bi, &backend_kperf, sel, 7, err, sizeof(err)) == 0, "open: %s", err);
	for (size_t i = 0; i < 7; i++)
		ck_assert_msg(sel[i].err == 0, "%s: %s", sel[i].ev->name, sel[i].why);
	backend_inst_close(&bi);
}
END_TEST

/* kpep failure codes while building the config: mapped like kperf_kpep_error, state left clean. */
START_TEST(test_kpep_failures)
{
	use_standin();
	static const char *const fns[] = { "kpep_db_create", "kpep_config_create", "kpep_config_force_counters",
					   "kpep_config_add_event", "kpep_config_kpc_classes", "kpep_config_kpc_map",
					   "kpep_config_kpc_count", "kpep_config_kpc" };
	for (size_t f = 0; f < ARRAY_SIZE(fns); f++) {
		for (int code = 2; code <= 16; code++) {
			char spec[96];
			snprintf(spec, sizeof(spec), "%s=%d", fns[f], code);
			setenv("LAUKA_STANDIN_FAIL", spec, 1);
			setenv("LAUKA_STANDIN_ERRNO", "16", 1);	/* EBUSY for code 15 */
			struct backend_inst bi;
			char err[512] = "", want[256];
			int want_r = kperf_kpep_error(code, EBUSY, want, sizeof(want));
			int r = open_branch(&bi, err, sizeof(err));
			if (r == 0) {
				backend_inst_close(&bi);
				ck_abort_msg("%s: open succeeded", spec);
			}
			ck_assert_msg(r == want_r, "%s: %d, want %d (%s)", spec, r, want_r, err);
			ck_assert_msg(!strcmp(err, want), "%s: '%s', want '%s'", spec, err, want);
			assert_closed(spec);
		}
	}
}
END_TEST

/* Privileged writes refused: EPERM from the framework means root is needed. */
START_TEST(test_eperm_path)
{
	use_standin();
	setenv("LAUKA_STANDIN_FAIL", "kpc_force_all_ctrs_get=1", 1);
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_int_eq(open_branch(&bi, err, sizeof(err)), -LK_EPERM);
	ck_assert_msg(strstr(err, "root"), "err: %s", err);
	setenv("LAUKA_STANDIN_FAIL", "", 1);
	setenv("LAUKA_STANDIN_EUID", "501", 1);
	ck_assert_int_eq(open_branch(&bi, err, sizeof(err)), -LK_EPERM);
	/* secure CPC: kpc_set_config refusing the events */
	unsetenv("LAUKA_STANDIN_EUID");
	setenv("LAUKA_STANDIN_FAIL", "kpc_set_config=1", 1);
	ck_assert_int_eq(open_branch(&bi, err, sizeof(err)), -LK_EPERM);
	ck_assert_msg(strstr(err, "kpc_set_config"), "err: %s", err);
	assert_closed("after a refused kpc_set_config");
}
END_TEST

/* Another live process owns ktrace: EBUSY, reported, nothing touched. */
START_TEST(test_ebusy_path)
{
	setenv("LAUKA_STANDIN_BUSY", "1", 1);
	use_standin();
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_int_eq(open_branch(&bi, err, sizeof(err)), -LK_EBUSY);
	ck_assert_msg(strstr(err, "another process"), "err: %s", err);
	struct standin_state st = state();
	ck_assert_int_eq(st.owner, (int)getppid());	/* still the other owner's */
	ck_assert_int_eq(st.sampling, 1);		/* its sampling untouched */
}
END_TEST

/* F7: another live process holds the forced counters: EACCES, its own message. */
START_TEST(test_forced_elsewhere)
{
	setenv("LAUKA_STANDIN_FORCED", "1", 1);
	use_standin();
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_int_eq(open_branch(&bi, err, sizeof(err)), -LK_EBUSY);
	ck_assert_msg(strstr(err, "held by another process") && !strstr(err, "root"), "err: %s", err);
	ck_assert_int_eq(state().force_owner, (int)getppid());
	assert_closed("after EACCES");
}
END_TEST

/*
 * N1 (audit 3): another kperf client set 32 actions (KPERF_ACTION_MAX, as
 * IB-style tools do) since boot and reset kperf.  XNU never lowers the
 * action count (action.c kperf_action_set_count: EINVAL when count <
 * actionc) and kperf_reset keeps it, so setting 1 fails until reboot.  The
 * backend reads the count and keeps it; the run counts, the count stays 32.
 */
START_TEST(test_n1_action_count_left_by_another_client)
{
	static const char *const left[] = { "32", "2", "0" };
	for (size_t i = 0; i < ARRAY_SIZE(left); i++) {
		setenv("LAUKA_STANDIN_ACTIONS", left[i], 1);
		use_standin();
		uint32_t want = (uint32_t)atoi(left[i]) ? (uint32_t)atoi(left[i]) : 1;
		struct backend_inst bi;
		char err[512] = "";
		ck_assert_msg(open_branch(&bi, err, sizeof(err)) == 0, "%s actions left: open: %s", left[i], err);
		struct lk_counts c[1];
		struct runner_result res;
		char *argv[] = { LAUKA_BUILD "/kperf-spin", "20", NULL };
		ck_assert_msg(run_once(&bi, argv, c, &res, err, sizeof(err)) == 0, "%s actions left: run: %s", left[i],
			      err);
		ck_assert(c[0].supported && c[0].running && c[0].value > 0);
		ck_assert_uint_eq(state().action_count, want);
		backend_inst_close(&bi);
		assert_closed("after close");
		ck_assert_uint_eq(state().action_count, want);	/* reset keeps it */
		kperf_lib_unload();
		dlclose(standin_handle);
	}
	unsetenv("LAUKA_STANDIN_ACTIONS");
}
END_TEST

/*
 * N4 (audit 3): a killed ktrace tool left a typefilter or the pid check on.
 * KERN_KDSETUP (kdbg_reinit) keeps both, and a typefilter outranks lauka's
 * VALCHECK, so every sample was dropped and each run silently "not
 * counted".  One KERN_KDREMOVE (kdbg_clear) at open clears them.
 */
START_TEST(test_n4_stale_kdebug_filters)
{
	static const char *const stale[] = { "typefilter", "pidcheck" };
	for (size_t i = 0; i < ARRAY_SIZE(stale); i++) {
		setenv("LAUKA_STANDIN_KDSTALE", stale[i], 1);
		use_standin();
		ck_assert(state().kd_flags != 0);
		struct backend_inst bi;
		char err[512] = "";
		ck_assert_msg(open_branch(&bi, err, sizeof(err)) == 0, "%s: open: %s", stale[i], err);
		struct standin_state st = state();
		ck_assert_msg(st.kd_flags == 0, "%s: still set after open", stale[i]);
		ck_assert_msg(st.kd_removes == 1 && st.kd_setups == 1, "%s: %d removes, %d setups at open", stale[i],
			      st.kd_removes, st.kd_setups);
		for (int run = 0; run < 2; run++) {
			struct lk_counts c[1];
			struct runner_result res;
			char *argv[] = { LAUKA_BUILD "/kperf-spin", "30", NULL };
			ck_assert_msg(run_once(&bi, argv, c, &res, err, sizeof(err)) == 0, "%s: run: %s", stale[i], err);
			ck_assert_msg(c[0].supported && c[0].running && c[0].value > 0, "%s: run %d not counted", stale[i],
				      run);
		}
		ck_assert_int_eq(state().kd_removes, 1);	/* once per open, never per run */
		backend_inst_close(&bi);
		assert_closed("after close");
		kperf_lib_unload();
		dlclose(standin_handle);
	}
	unsetenv("LAUKA_STANDIN_KDSTALE");
}
END_TEST

/*
 * R3 (audit 3): a late power-manager acknowledgement of an earlier release
 * (kpc_common.c kpc_pm_acknowledge) un-forces the counters while lauka
 * holds them; the samples then follow the unforced layout and the events
 * on PMC5-7 read garbage.  The run in which it happens and every later
 * attach is an error naming what changed, never a number.
 */
START_TEST(test_r3_unforced_between_runs)
{
	setenv("LAUKA_STANDIN_PM_RELEASE_AT", "2", 1);
	use_standin();
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_msg(open_branch(&bi, err, sizeof(err)) == 0, "open: %s", err);
	char *argv[] = { LAUKA_BUILD "/kperf-spin", "20", NULL };
	struct lk_counts c[1];
	struct runner_result res;
	ck_assert_msg(run_once(&bi, argv, c, &res, err, sizeof(err)) == 0, "run 1: %s", err);
	ck_assert(c[0].supported && c[0].running && c[0].value > 0);
	err[0] = '\0';
	int r = run_once(&bi, argv, c, &res, err, sizeof(err));
	ck_assert_msg(r < 0, "run 2 (un-forced during the run) gave %llu", (unsigned long long)c[0].value);
	ck_assert_msg(strstr(err, "forced") && strstr(err, "10") && strstr(err, "7"), "run 2: %s", err);
	err[0] = '\0';
	r = run_once(&bi, argv, c, &res, err, sizeof(err));
	ck_assert_msg(r < 0 && strstr(err, "forced"), "run 3: %d %s", r, err);
	backend_inst_close(&bi);
	assert_closed("after close");
	unsetenv("LAUKA_STANDIN_PM_RELEASE_AT");
}
END_TEST

/* State a killed run left (sampling and PET on): repaired, and the run works. */
START_TEST(test_stale_state_repaired)
{
	setenv("LAUKA_STANDIN_STALE", "1", 1);
	use_standin();
	ck_assert_int_eq(state().sampling, 1);
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_msg(open_branch(&bi, err, sizeof(err)) == 0, "open: %s", err);
	struct lk_counts c[1];
	struct runner_result res;
	char *argv[] = { LAUKA_BUILD "/kperf-spin", "20", NULL };
	ck_assert_msg(run_once(&bi, argv, c, &res, err, sizeof(err)) == 0, "run: %s", err);
	ck_assert(c[0].supported && c[0].running && c[0].value > 0);
	backend_inst_close(&bi);
	assert_closed("after close");
}
END_TEST

/* Stale state that cannot be reset is reported as such, not as a plain failure. */
START_TEST(test_stale_state_unrepairable)
{
	setenv("LAUKA_STANDIN_STALE", "1", 1);
	setenv("LAUKA_STANDIN_FAIL", "kperf_reset=5", 1);
	use_standin();
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_int_eq(open_branch(&bi, err, sizeof(err)), -LK_EIO);
	ck_assert_msg(strstr(err, "earlier run") && strstr(err, "kperf_reset"), "err: %s", err);
}
END_TEST

/* Failures while configuring sampling (once, in open): error out, leave nothing on. */
START_TEST(test_setup_failures)
{
	use_standin();
	static const char *const specs[] = {
		"kperf_action_count_get=1", "kperf_action_count_set=16", "kperf_timer_count_set=22", "kperf_action_samplers_set=22",
		"kperf_timer_period_set=16", "kperf_timer_action_set=16", "kperf_timer_pet_set=16",
		"sysctl_int=16", "kdebug_4=12", "kdebug_6=22", "kdebug_8=22",
	};
	for (size_t i = 0; i < ARRAY_SIZE(specs); i++) {
		setenv("LAUKA_STANDIN_FAIL", specs[i], 1);
		struct backend_inst bi;
		char err[512] = "";
		ck_assert_msg(open_branch(&bi, err, sizeof(err)) < 0, "%s: open succeeded",
			      specs[i]);
		ck_assert_msg(err[0], "%s: no reason", specs[i]);
		setenv("LAUKA_STANDIN_FAIL", "", 1);
		assert_closed(specs[i]);
	}
}
END_TEST

/* Failures while starting a run: error out, the child killed, leave nothing of the run on. */
START_TEST(test_attach_failures)
{
	use_standin();
	static const char *const specs[] = { "kperf_action_filter_set_by_pid=3", "kdebug_3=1", "kperf_sample_set=16" };
	static const char *const styles[] = { "errno", "value" };
	for (size_t s = 0; s < 2; s++) {
		setenv("LAUKA_STANDIN_RETSTYLE", styles[s], 1);
		for (size_t i = 0; i < ARRAY_SIZE(specs); i++) {
			setenv("LAUKA_STANDIN_FAIL", "", 1);
			struct backend_inst bi;
			char err[512] = "";
			ck_assert_int_eq(open_branch(&bi, err, sizeof(err)), 0);
			setenv("LAUKA_STANDIN_FAIL", specs[i], 1);
			struct lk_counts c[1];
			struct runner_result res;
			char *argv[] = { "/bin/sleep", "5", NULL };
			int r = run_once(&bi, argv, c, &res, err, sizeof(err));
			ck_assert_msg(r < 0, "%s: run succeeded", specs[i]);
			ck_assert_msg(res.term_signal == SIGKILL, "%s: child not killed", specs[i]);
			ck_assert_msg(err[0], "%s: no reason", specs[i]);
			struct standin_state st = state();
			ck_assert_msg(!st.sampling && !st.kd_enabled, "%s: run state left on", specs[i]);
			setenv("LAUKA_STANDIN_FAIL", "", 1);
			backend_inst_close(&bi);
			assert_closed(specs[i]);
		}
	}
	setenv("LAUKA_STANDIN_RETSTYLE", "errno", 1);
}
END_TEST

START_TEST(test_crashed_child)
{
	use_standin();
	struct lk_event *evs[] = { &ev_branch, &ev_instr };
	struct lk_evsel sel[2];
	sel_init(sel, evs, 2, true);
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_int_eq(backend_inst_open(&bi, &backend_kperf, sel, 2, err, sizeof(err)), 0);
	struct lk_counts c[2];
	struct runner_result res;
	char *argv[] = { "/bin/sh", "-c", "kill -SEGV $$", NULL };
	ck_assert_msg(run_once(&bi, argv, c, &res, err, sizeof(err)) == 0, "run: %s", err);
	ck_assert_int_eq(res.term_signal, SIGSEGV);
	struct standin_state st = state();
	ck_assert(!st.sampling && !st.kd_enabled);
	ck_assert_int_eq(st.rusage_pid, st.filter_pids[0]);
	backend_inst_close(&bi);
	assert_closed("after a crashed child");
}
END_TEST

/* SIGINT to lauka mid-run: the runner forwards it, the run ends, close() releases everything. */
START_TEST(test_sigint_during_run)
{
	use_standin();
	runner_signals_install();
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_int_eq(open_branch(&bi, err, sizeof(err)), 0);
	struct lk_counts c[1];
	struct runner_result res;
	char *argv[] = { "/bin/sh", "-c", "kill -INT $PPID; exec sleep 5", NULL };
	run_once(&bi, argv, c, &res, err, sizeof(err));
	ck_assert_int_eq(runner_interrupted, SIGINT);
	ck_assert_int_eq(res.term_signal, SIGINT);
	struct standin_state st = state();
	ck_assert(!st.sampling);
	backend_inst_close(&bi);
	assert_closed("after SIGINT");
}
END_TEST

static char state_file[512];	/* static: reachable from forked children (LeakSanitizer) */

static char *state_path(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(state_file, sizeof(state_file), "%s/lauka-standin-%d.state", t && *t ? t : "/tmp", (int)getpid());
	unlink(state_file);
	setenv("LAUKA_STANDIN_STATE", state_file, 1);
	return state_file;
}

/*
 * Remove the state file for good: the stand-in saves its state whenever
 * lauka's exit handlers release the counters, so with the variable still set
 * the file came back after the unlink (and was left in /tmp).
 */
static void state_done(const char *path)
{
	unsetenv("LAUKA_STANDIN_STATE");
	unlink(path);
}

/* exit() with the backend open, or after close(): atexit releases everything, the forced counters too. */
START_TEST(test_exit_without_close)
{
	char *path = state_path();
	use_standin();
	for (int closed = 0; closed < 2; closed++) {
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			kperf_lib_unload();
			/* static: still reachable at exit, so LeakSanitizer does not fail the child */
			static struct backend_inst bi;
			static struct lk_evsel ssel[1];
			struct lk_event *evs[] = { &ev_branch };
			sel_init(ssel, evs, 1, true);
			char err[512];
			if (backend_inst_open(&bi, &backend_kperf, ssel, 1, err, sizeof(err)) < 0)
				_exit(3);
			if (closed)
				backend_inst_close(&bi);
			/* the forced counters are held across close (F3) */
			exit(state().force_owner == getpid() ? 0 : 4);
		}
		int status;
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
		assert_clean(closed ? "after exit() after close" : "after exit() without close");
		ck_assert_int_eq(state().force_owner, 0);	/* released by lauka, not by its death */
	}
	state_done(path);
}
END_TEST

/* A run SIGKILLed mid-sampling leaves kernel state (not the forced counters); the next lauka repairs it. */
START_TEST(test_killed_run_repaired_next_time)
{
	char *path = state_path();
	use_standin();
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		kperf_lib_unload();
		struct backend_inst bi;
		char err[512];
		if (open_branch(&bi, err, sizeof(err)) < 0)
			_exit(3);
		if (bi.ops->attach(bi.priv, getpid(), err, sizeof(err)) < 0)
			_exit(4);
		raise(SIGKILL);
		_exit(5);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	struct standin_state st = state();
	ck_assert(st.sampling && st.lightweight_pet && st.kd_setup && st.owner == pid);
	ck_assert(!st.force_all);	/* task.c: a dying task releases the forced counters */

	kperf_lib_unload();
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_msg(open_branch(&bi, err, sizeof(err)) == 0, "open: %s", err);
	struct lk_counts c[1];
	struct runner_result res;
	char *argv[] = { LAUKA_BUILD "/kperf-spin", "20", NULL };
	ck_assert_msg(run_once(&bi, argv, c, &res, err, sizeof(err)) == 0, "run: %s", err);
	ck_assert(c[0].running && c[0].value > 0);
	backend_inst_close(&bi);
	assert_closed("after the repaired run");
	state_done(path);
}
END_TEST

/* The model enforces XNU's rules, whatever lauka does (reference/xnu-kperf.md sections 3, 7). */
START_TEST(test_model_rules)
{
	use_standin();
	typedef int (*i_u)(uint32_t);
	typedef int (*i_uu)(uint32_t, uint32_t);
	typedef int (*i_uq)(uint32_t, uint64_t);
	typedef int (*i_v)(void);
	i_u action_count = (i_u)dlsym(standin_handle, "kperf_action_count_set");
	i_u timer_count = (i_u)dlsym(standin_handle, "kperf_timer_count_set");
	i_uu samplers = (i_uu)dlsym(standin_handle, "kperf_action_samplers_set");
	i_uu timer_action = (i_uu)dlsym(standin_handle, "kperf_timer_action_set");
	i_uq timer_period = (i_uq)dlsym(standin_handle, "kperf_timer_period_set");
	i_u pet = (i_u)dlsym(standin_handle, "kperf_timer_pet_set");
	i_u sample = (i_u)dlsym(standin_handle, "kperf_sample_set");
	i_v reset = (i_v)dlsym(standin_handle, "kperf_reset");
	const struct kperf_sys *sys = dlsym(standin_handle, KPERF_SYS_SYMBOL);
	ck_assert(action_count && timer_count && samplers && timer_action && timer_period && pet && sample && reset && sys);
	errno = 0;
	ck_assert_int_eq(sample(1), -1);			/* no actions: ECANCELED */
	ck_assert_int_eq(errno, ECANCELED);
	ck_assert_int_eq(action_count(2), 0);
	ck_assert(action_count(1) == -1 && errno == EINVAL);	/* cannot shrink */
	ck_assert(action_count(33) == -1 && errno == EINVAL);
	ck_assert(samplers(0, 1u << 4) == -1 && errno == EINVAL);	/* actions are 1-based */
	ck_assert_int_eq(samplers(2, 1u << 4), 0);
	ck_assert(samplers(3, 1u << 4) == -1 && errno == EINVAL);
	ck_assert(timer_count(9) == -1 && errno == EINVAL);
	ck_assert_int_eq(timer_count(1), 0);
	ck_assert_int_eq(timer_period(0, 1000000), 0);		/* timers are 0-based */
	ck_assert(timer_period(1, 1000000) == -1 && errno == EINVAL);
	ck_assert(timer_action(0, 3) == -1 && errno == EINVAL);	/* no such action */
	ck_assert_int_eq(sample(1), 0);
	ck_assert(timer_action(0, 1) == -1 && errno == EBUSY);	/* timers run */
	ck_assert(pet(0) == -1 && errno == EBUSY);
	int on = 1;
	ck_assert_int_eq(sys->sysctl_int("kperf.lightweight_pet", &on, NULL), -EBUSY);
	ck_assert_int_eq(sample(0), 0);
	/* kdebug set up, then kperf reset: kdebug stays, and so does ownership; a kdebug reset releases it. */
	size_t zero = 0;
	ck_assert_int_eq(sys->kdebug(KPERF_KD_SETUP, 0, NULL, &zero), -EINVAL);	/* no buffer size yet */
	ck_assert_int_eq(sys->kdebug(KPERF_KD_SETBUF, 100, NULL, &zero), 0);
	ck_assert_int_eq(sys->kdebug(KPERF_KD_SETUP, 0, NULL, &zero), 0);
	ck_assert_int_eq(reset(), 0);
	struct standin_state st = state();
	/* kperf_reset kept the action count (XNU never lowers it): it still cannot shrink. */
	ck_assert(st.kd_setup && st.owner == (int)getpid() && st.action_count == 2 && !st.lightweight_pet);
	ck_assert_int_eq(sys->kdebug(KPERF_KD_REMOVE, 0, NULL, &zero), 0);
	st = state();
	ck_assert(!st.kd_setup && st.owner == 0);
	ck_assert(st.kd_setups == 1 && st.kd_removes == 1);
	ck_assert(action_count(1) == -1 && errno == EINVAL);
	ck_assert_int_eq(action_count(2), 0);
}
END_TEST

/* F5: the description note for configurable kpep events. */
START_TEST(test_event_note)
{
	struct lk_pmu pmu;
	memset(&pmu, 0, sizeof(pmu));
	pmu.kind = (char *)"kpep";
	ck_assert_ptr_nonnull(kperf_event_note(&pmu, &ev_install));
	ck_assert_ptr_null(kperf_event_note(&pmu, &ev_instr));
	pmu.kind = (char *)"perf";
	ck_assert_ptr_null(kperf_event_note(&pmu, &ev_install));
}
END_TEST

/*
 * C2 (audit 4): kpc has no owner, so another root process can reprogram it;
 * every kpc and kperf setting is read back after programming, and a
 * difference fails the open naming the field.  The model's TAMPER rewrites
 * one field right after lauka's own write (the old code opened and counted
 * the wrong events).
 */
START_TEST(test_c2_readback_names_the_field)
{
	static const struct {
		const char *field, *named;
	} cases[] = {
		{ "config", "kpc read-back: the kernel holds event 0x8c on counter" },
		{ "counting", "kpc_get_counting" },
		{ "thread_counting", "kpc_get_thread_counting" },
		{ "period", "timer 1's period" },
		{ "samplers", "action 1's samplers" },
		{ "pet", "the PET timer" },
		{ "lightweight_pet", "kperf.lightweight_pet" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		setenv("LAUKA_STANDIN_TAMPER", cases[i].field, 1);
		use_standin();
		struct backend_inst bi;
		char err[512] = "";
		int r = open_branch(&bi, err, sizeof(err));
		/* At program time a config word that differs is the kernel's answer: nobody is blamed. */
		int want = strcmp(cases[i].field, "config") ? -LK_EBUSY : -LK_ENOTSUP;
		ck_assert_msg(r == want, "%s: open gave %d (%s)", cases[i].field, r, err);
		if (want == -LK_ENOTSUP)
			ck_assert_msg(!strstr(err, "another") && strstr(err, "lauka programmed 0x8d (INST_BRANCH)"),
				      "%s", err);
		ck_assert_msg(strstr(err, cases[i].named) && strstr(err, "read-back"), "%s: %s", cases[i].field, err);
		assert_closed(cases[i].field);
		kperf_lib_unload();
		dlclose(standin_handle);
	}
	unsetenv("LAUKA_STANDIN_TAMPER");
}
END_TEST

/* C2: another root process rewrites a config word between open and attach: the run fails, naming the word. */
START_TEST(test_c2_reprogrammed_between_open_and_attach)
{
	use_standin();
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_msg(open_branch(&bi, err, sizeof(err)) == 0, "open: %s", err);
	typedef int (*set_fn)(uint32_t, uint64_t *);
	typedef int (*get_fn)(uint32_t, uint64_t *);
	set_fn set = (set_fn)dlsym(standin_handle, "kpc_set_config");
	get_fn get = (get_fn)dlsym(standin_handle, "kpc_get_config");
	ck_assert(set && get);
	uint64_t w[KPERF_MAX_COUNTERS] = { 0 };
	ck_assert_int_eq(get(KPC_CLASS_CONFIGURABLE_MASK, w), 0);
	w[5] ^= 0x40;
	ck_assert_int_eq(set(KPC_CLASS_CONFIGURABLE_MASK, w), 0);
	char *argv[] = { LAUKA_BUILD "/kperf-spin", "10", NULL };
	struct lk_counts c[1];
	struct runner_result res;
	int r = run_once(&bi, argv, c, &res, err, sizeof(err));
	ck_assert_msg(r < 0 && strstr(err, "kpc_get_config word 5") && strstr(err, "another root process"),
		      "run: %d %s", r, err);
	backend_inst_close(&bi);
	assert_closed("after close");
}
END_TEST

/*
 * The read-back as XNU answers it: kpc_get_config rebuilds each word from
 * PMESR and PMCR1 (xnu-11417.101.15 osfmk/arm64/kpc.c:454-501), so a word
 * written without mode bits reads back with EL0A64 (0x20000).  Exact
 * comparison failed every open on Apple silicon; the rule compares the
 * event field and accepts the mode bits the kernel sets.
 */
static const struct word_case {
	const char *what;
	uint64_t want, got, mask;
	bool x86, ok;
} word_cases[] = {
	{ "bare word: EL0A64 added (kpc.c:328-331)", 0x8c, 0x2008c, 0xff, false, true },
	{ "bare word, development kernel: every mode", 0x8c, 0xf008c, 0xff, false, true },
	{ "EL1 asked, dropped on a release kernel (kpc.c:319)", 0x6008c, 0x2008c, 0xff, false, true },
	{ "another event", 0x8c, 0x2008d, 0xff, false, false },
	{ "counting nothing in user mode", 0x8c, 0x8c, 0xff, false, false },
	{ "a user mode not asked for", 0x2008c, 0x3008c, 0xff, false, false },
	{ "8-bit PMESR: the field is the low byte", 0x18c, 0x2008c, 0xff, false, true },
	{ "16-bit PMESR: the whole field", 0x18c, 0x2008c, 0xffff, false, false },
	{ "16-bit PMESR: kept", 0x18c, 0x2018c, 0xffff, false, true },
	{ "bits get_counter_config never sets", 0x8c, 0x12008c, 0xff, false, false },
	{ "unused counter", 0, 0x20077, 0xff, false, true },
	{ "x86: EN and INT set by the kernel (kpc_x86.c:280)", 0x4300c0, 0x5300c0, 0xff, true, true },
	{ "x86: another umask", 0x4301c0, 0x5300c0, 0xff, true, false },
};

/* The event field's width comes from the kpep database: 16 bits once an event number needs them. */
START_TEST(test_event_mask_from_database)
{
	struct lk_event evs[3];
	memset(evs, 0, sizeof(evs));
	evs[0].fixed_counter = 0;
	evs[0].number = 0x1234;	/* a fixed event's number does not count */
	evs[1].fixed_counter = -1;
	evs[1].number = 0x8c;
	evs[2].fixed_counter = -1;
	evs[2].number = 0xcb;
	struct lk_pmu pmu;
	memset(&pmu, 0, sizeof(pmu));
	pmu.events = evs;
	pmu.nevents = 3;
	ck_assert_uint_eq(kperf_event_mask_of(&pmu), 0xff);
	evs[2].number = 0x1cb;
	ck_assert_uint_eq(kperf_event_mask_of(&pmu), 0xffff);
}
END_TEST

START_TEST(test_word_rule_table)
{
	const struct word_case *t = &word_cases[_i];
	ck_assert_msg(kperf_config_word_ok(t->want, t->got, t->mask, t->x86) == t->ok, "%s", t->what);
	ck_assert_uint_eq(kperf_config_fixed_words(true), 1);
	ck_assert_uint_eq(kperf_config_fixed_words(false), 0);
}
END_TEST

typedef int (*config_fn)(uint32_t, uint64_t *);

/* The stand-in's registers: PMESR's event field and PMCR1's modes, rebuilt on read (kpc.c:308-339, :454-501). */
START_TEST(test_standin_config_registers)
{
	static const struct {
		const char *env, *val;
		uint64_t in, out;
	} cases[] = {
		{ NULL, NULL, 0x8c, 0x2008c },			/* release kernel: EL0A64 only */
		{ NULL, NULL, 0x6008c, 0x2008c },		/* EL1 dropped: the kernel may not be counted */
		{ NULL, NULL, 0x1008c, 0x1008c },		/* EL0 A32 as asked */
		{ NULL, NULL, 0x18c, 0x2008c },			/* 8-bit PMESR field */
		{ "LAUKA_STANDIN_EVENT16", "1", 0x18c, 0x2018c },	/* CPMU_16BIT_EVENTS */
		{ "LAUKA_STANDIN_DEVKERNEL", "1", 0x8c, 0x7008c },	/* every mode (kpc.c:329-331) */
		{ "LAUKA_STANDIN_DEVKERNEL", "1", 0x4008c, 0x4008c },	/* EL1 kept */
		{ NULL, NULL, 0, 0 },				/* an unused counter reads 0 */
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		if (cases[i].env)
			setenv(cases[i].env, cases[i].val, 1);
		use_standin();
		int (*force)(int) = (int (*)(int))dlsym(standin_handle, "kpc_force_all_ctrs_set");
		config_fn set = (config_fn)dlsym(standin_handle, "kpc_set_config");
		config_fn get = (config_fn)dlsym(standin_handle, "kpc_get_config");
		ck_assert(force && set && get);
		ck_assert_int_eq(force(1), 0);
		uint64_t w[KPERF_MAX_COUNTERS] = { 0 }, r[KPERF_MAX_COUNTERS] = { 0 };
		w[3] = cases[i].in;
		ck_assert_int_eq(set(KPC_CLASS_CONFIGURABLE_MASK, w), 0);
		ck_assert_int_eq(get(KPC_CLASS_CONFIGURABLE_MASK, r), 0);
		ck_assert_msg(r[3] == cases[i].out, "case %zu: 0x%llx reads back 0x%llx", i,
			      (unsigned long long)cases[i].in, (unsigned long long)r[3]);
		ck_assert_int_eq(force(0), 0);
		if (cases[i].env)
			unsetenv(cases[i].env);
		kperf_lib_unload();
		dlclose(standin_handle);
	}
}
END_TEST

/*
 * The open and a run succeed against kpc_get_config as XNU answers it (the
 * old exact comparison failed here with "another root process
 * reprogrammed"), on a release and a development kernel and with 16-bit
 * events; the kernel's first answer is what later checks compare against.
 */
START_TEST(test_readback_as_kernel_answers)
{
	static const char *const envs[] = { NULL, "LAUKA_STANDIN_DEVKERNEL", "LAUKA_STANDIN_EVENT16" };
	for (size_t i = 0; i < ARRAY_SIZE(envs); i++) {
		if (envs[i])
			setenv(envs[i], "1", 1);
		use_standin();
		struct backend_inst bi;
		char err[512] = "";
		ck_assert_msg(open_branch(&bi, err, sizeof(err)) == 0, "%s: open: %s", envs[i] ? envs[i] : "release", err);
		struct standin_state st = state();
		bool moded = false;
		for (size_t k = 0; k < 8; k++)
			moded |= st.config[k] && (st.modes[k] & 0x20000);
		ck_assert_msg(moded, "no word read back with EL0A64");
		char *argv[] = { LAUKA_BUILD "/kperf-spin", "10", NULL };
		struct lk_counts c[1];
		struct runner_result res;
		ck_assert_msg(run_once(&bi, argv, c, &res, err, sizeof(err)) == 0, "run: %s", err);
		backend_inst_close(&bi);
		if (envs[i])
			unsetenv(envs[i]);
		kperf_lib_unload();
		dlclose(standin_handle);
	}
}
END_TEST

/*
 * The stand-in's framework getters and kpc/kperf rules, each as XNU (and,
 * for the getters' sentinels, the decompiled kperf.framework) answers:
 * a failed kpc.* read gives 0 / 0xFFFFFFFF / 0; every kpc.* read is EBUSY
 * while another kernel client holds the CPMU (kern_kpc.c:417-419); a
 * second forcing task gets EACCES (kpc_common.c:176-178); the PET timer's
 * period is raised to the PET minimum (kptimer.c:676-679, :763-765).
 */
START_TEST(test_standin_framework_rules)
{
	typedef uint32_t (*u_v)(void);
	typedef uint32_t (*u_u)(uint32_t);
	setenv("LAUKA_STANDIN_CPMU", "1", 1);
	use_standin();
	u_v counting = (u_v)dlsym(standin_handle, "kpc_get_counting");
	u_v thread_counting = (u_v)dlsym(standin_handle, "kpc_get_thread_counting");
	u_u count = (u_u)dlsym(standin_handle, "kpc_get_counter_count");
	const struct kperf_sys *sys = dlsym(standin_handle, KPERF_SYS_SYMBOL);
	ck_assert(counting && thread_counting && count && sys);
	errno = 0;
	ck_assert_uint_eq(counting(), 0);
	ck_assert_int_eq(errno, EBUSY);
	ck_assert_uint_eq(thread_counting(), 0xFFFFFFFFu);
	ck_assert_uint_eq(count(3), 0);
	int v = 0;
	ck_assert_int_eq(sys->sysctl_int("kpc.counting", NULL, &v), -EBUSY);
	ck_assert_int_eq(sys->sysctl_int("kpc.force_all_ctrs", NULL, &v), -EBUSY);
	unsetenv("LAUKA_STANDIN_CPMU");
	/* Without root: kpc.counting and kpc.thread_counting need ktrace_read_check, the count is public. */
	setenv("LAUKA_STANDIN_EUID", "501", 1);
	ck_assert_uint_eq(counting(), 0);
	ck_assert_uint_eq(thread_counting(), 0xFFFFFFFFu);
	ck_assert_uint_eq(count(3), 7);
	unsetenv("LAUKA_STANDIN_EUID");
	setenv("LAUKA_STANDIN_FAIL", "kpc_get_counter_count=5", 1);
	errno = 0;
	ck_assert_uint_eq(count(3), 0);
	ck_assert_int_eq(errno, EIO);
	unsetenv("LAUKA_STANDIN_FAIL");

	/* One forcing task at a time: the parent "holds" them (LAUKA_STANDIN_FORCED). */
	kperf_lib_unload();
	dlclose(standin_handle);
	setenv("LAUKA_STANDIN_FORCED", "1", 1);
	use_standin();
	int (*force)(int) = (int (*)(int))dlsym(standin_handle, "kpc_force_all_ctrs_set");
	errno = 0;
	ck_assert_int_eq(force(1), -1);
	ck_assert_int_eq(errno, EACCES);
	unsetenv("LAUKA_STANDIN_FORCED");
	kperf_lib_unload();
	dlclose(standin_handle);

	/* The PET timer's period is raised to the minimum, when it is set and when the timer becomes PET. */
	use_standin();
	typedef int (*i_u)(uint32_t);
	typedef int (*i_uq)(uint32_t, uint64_t);
	i_u timer_count = (i_u)dlsym(standin_handle, "kperf_timer_count_set");
	i_uq period = (i_uq)dlsym(standin_handle, "kperf_timer_period_set");
	i_u pet = (i_u)dlsym(standin_handle, "kperf_timer_pet_set");
	ck_assert(timer_count && period && pet);
	ck_assert_int_eq(timer_count(2), 0);
	ck_assert_int_eq(period(1, 1000), 0);
	ck_assert_uint_eq(state().timer_period, 1000);		/* not the PET timer yet */
	ck_assert_int_eq(pet(1), 0);
	ck_assert_uint_eq(state().timer_period, 1000000);	/* kptimer_set_pet_timerid */
	ck_assert_int_eq(period(1, 5000), 0);
	ck_assert_uint_eq(state().timer_period, 1000000);	/* kptimer_set_period, PET */
	ck_assert_int_eq(period(1, 3000000), 0);
	ck_assert_uint_eq(state().timer_period, 3000000);
	ck_assert_int_eq(period(1, 0), 0);
	ck_assert_uint_eq(state().timer_period, 0);		/* 0 is not raised */
	kperf_lib_unload();
	dlclose(standin_handle);
}
END_TEST

/* The framework's sentinels are not values: a failed counter count is an error, and doctor shows it unreadable. */
START_TEST(test_counter_count_sentinel)
{
	setenv("LAUKA_STANDIN_FAIL", "kpc_get_counter_count=16", 1);	/* EBUSY */
	use_standin();
	struct backend_inst bi;
	char err[512] = "";
	int r = open_branch(&bi, err, sizeof(err));
	ck_assert_msg(r == -LK_EBUSY && strstr(err, "kpc_get_counter_count") && strstr(err, "kernel client") &&
		      !strstr(err, "reports 0"), "open: %d %s", r, err);
	struct kperf_answer a[KPERF_A_N];
	char why[256];
	ck_assert_int_eq(kperf_kernel_answers(a, why, sizeof(why)), 0);
	ck_assert_msg(a[KPERF_A_COUNTERS].err && strstr(a[KPERF_A_COUNTERS].s, "unreadable"), "%s",
		      a[KPERF_A_COUNTERS].s);
	unsetenv("LAUKA_STANDIN_FAIL");
	kperf_lib_unload();
	dlclose(standin_handle);
}
END_TEST

/*
 * XNU lets one task hold the forced counters (kpc_common.c:176-178): doctor
 * releases what its kperf pass forced before the xctrace self-check, whose
 * Instruments forces them too.
 */
START_TEST(test_release_forced_for_another_user)
{
	use_standin();
	struct kperf_probe pr;
	char why[256] = "";
	ck_assert_msg(kperf_probe(&pr, why, sizeof(why)) == 0, "probe: %s", why);
	ck_assert(state().force_all);
	ck_assert_int_eq(kperf_release_forced(why, sizeof(why)), 0);
	ck_assert(!state().force_all);
	ck_assert_int_eq(kperf_release_forced(why, sizeof(why)), 0);	/* nothing held: nothing to do */
	ck_assert_uint_eq(kperf_euid(), 0);
}
END_TEST

/* C4 (audit 4, A3a): a background client raises the action count between get and set: re-read, retry once. */
START_TEST(test_c4_action_count_race)
{
	setenv("LAUKA_STANDIN_ACTION_RACE", "4", 1);
	use_standin();
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_msg(open_branch(&bi, err, sizeof(err)) == 0, "open: %s", err);
	ck_assert_uint_eq(state().action_count, 4);
	ck_assert_int_eq(state().action_races, 1);
	char *argv[] = { LAUKA_BUILD "/kperf-spin", "10", NULL };
	struct lk_counts c[1];
	struct runner_result res;
	ck_assert_msg(run_once(&bi, argv, c, &res, err, sizeof(err)) == 0, "run: %s", err);
	ck_assert(c[0].supported && c[0].running && c[0].value > 0);
	backend_inst_close(&bi);
	assert_closed("after close");
	unsetenv("LAUKA_STANDIN_ACTION_RACE");
}
END_TEST

/* C5 (audit 4, A4): kpc EBUSY (CPMU acquired by a kernel client, macOS 14.4+) is not "another process owns ktrace". */
START_TEST(test_c5_kpc_ebusy_names_kernel_client)
{
	char why[256];
	ck_assert_int_eq(kperf_errno_error("kpc_set_counting", EBUSY, why, sizeof(why)), -LK_EBUSY);
	ck_assert_msg(strstr(why, "kernel client") && !strstr(why, "owns ktrace"), "why: %s", why);
	ck_assert_int_eq(kperf_errno_error("kperf_sample_set", EBUSY, why, sizeof(why)), -LK_EBUSY);
	ck_assert_msg(strstr(why, "owns ktrace"), "why: %s", why);
	setenv("LAUKA_STANDIN_CPMU", "1", 1);
	use_standin();
	char err[512] = "";
	ck_assert_int_eq(backend_kperf.detect(err, sizeof(err)), -LK_EBUSY);
	ck_assert_msg(strstr(err, "kernel client"), "detect: %s", err);
	unsetenv("LAUKA_STANDIN_CPMU");
}
END_TEST

/* A7 (audit 4): on macOS 13 (Darwin 22) the PET minimum is 2 ms: lauka asks for it, and reads it back. */
START_TEST(test_a7_pet_period_macos13)
{
	static const struct {
		const char *rel;
		uint64_t ns;
	} cases[] = { { "22.6.0", 2000000u }, { "23.4.0", 1000000u }, { "24.4.0", 1000000u } };
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		setenv("LAUKA_STANDIN_OSRELEASE", cases[i].rel, 1);
		use_standin();
		struct backend_inst bi;
		char err[512] = "";
		ck_assert_msg(open_branch(&bi, err, sizeof(err)) == 0, "%s: open: %s", cases[i].rel, err);
		ck_assert_msg(state().timer_period == cases[i].ns, "%s: period %llu", cases[i].rel,
			      (unsigned long long)state().timer_period);
		backend_inst_close(&bi);
		kperf_lib_unload();
		dlclose(standin_handle);
	}
	unsetenv("LAUKA_STANDIN_OSRELEASE");
}
END_TEST

/* C9: LAUKA_KPERF_DUMP keeps every record lauka read; the model's dump replays as a Mac's would. */
START_TEST(test_kdebug_dump_replays)
{
	char *dir = tmp_template("lauka-dump");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *bin = xasprintf("%s/kdebug-alu.bin", dir), *vals = xasprintf("%s/kdebug-alu.values", dir);
	setenv("LAUKA_KPERF_DUMP", bin, 1);
	use_standin();
	struct backend_inst bi;
	char err[512] = "";
	ck_assert_msg(open_branch(&bi, err, sizeof(err)) == 0, "open: %s", err);
	char *argv[] = { LAUKA_BUILD "/kperf-spin", "30", NULL };
	struct lk_counts c[1];
	struct runner_result res;
	ck_assert_msg(run_once(&bi, argv, c, &res, err, sizeof(err)) == 0, "run: %s", err);
	uint32_t values = state().thread_values;
	backend_inst_close(&bi);
	unsetenv("LAUKA_KPERF_DUMP");
	FILE *f = fopen(vals, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%u\n", (unsigned)values);
	fclose(f);
	struct stat st;
	ck_assert_msg(stat(bin, &st) == 0 && st.st_size > 0 && st.st_size % 64 == 0, "no dump");
	replay_dump(dir);
	unlink(bin);
	unlink(vals);
	rmdir(dir);
	free(bin);
	free(vals);
	free(dir);
}
END_TEST

extern Suite *kperf_suite(void);
Suite *kperf_suite(void)
{
	Suite *s = suite_create("kperf");
	TCase *tc = tcase_create("agg");
	tcase_add_loop_test(tc, test_agg_table, 0, (int)ARRAY_SIZE(agg_cases));
	tcase_add_test(tc, test_agg_many_threads);
	tcase_add_loop_test(tc, test_agg_monotonic, 0, (int)ARRAY_SIZE(mono_cases));
	tcase_add_loop_test(tc, test_scope_table, 0, (int)ARRAY_SIZE(scope_cases));
	tcase_add_loop_test(tc, test_scale_table, 0, (int)ARRAY_SIZE(scale_cases));
	tcase_add_test(tc, test_order_realises_matching);
	tcase_add_test(tc, test_order_unplaceable);
	tcase_add_loop_test(tc, test_kpep_error_table, 0, (int)ARRAY_SIZE(kpep_err_cases));
	tcase_add_test(tc, test_errno_mapping);
	tcase_add_test(tc, test_find_plist);
	tcase_add_test(tc, test_event_note);
	tcase_add_test(tc, test_stale_table);
	tcase_add_test(tc, test_macos_fixtures);
	tcase_add_loop_test(tc, test_word_rule_table, 0, (int)ARRAY_SIZE(word_cases));
	tcase_add_test(tc, test_event_mask_from_database);
	suite_add_tcase(s, tc);

	tc = tcase_create("standin");
	tcase_set_timeout(tc, 0);	/* no time bound (check_main.c): the stand-in runs real programs */
	tcase_add_test(tc, test_detect);
	tcase_add_test(tc, test_model_rules);
	tcase_add_test(tc, test_catalog_locates_plist);
	tcase_add_test(tc, test_f1_old_order_fails);
	tcase_add_test(tc, test_run_counts);
	tcase_add_test(tc, test_f2_wall_time);
	tcase_add_test(tc, test_coverage);
	tcase_add_test(tc, test_lost_events);
	tcase_add_test(tc, test_direct_process_only);
	tcase_add_test(tc, test_conflicts_and_unknown);
	tcase_add_test(tc, test_seed_config_order);
	tcase_add_test(tc, test_kpep_failures);
	tcase_add_test(tc, test_eperm_path);
	tcase_add_test(tc, test_ebusy_path);
	tcase_add_test(tc, test_forced_elsewhere);
	tcase_add_test(tc, test_stale_state_repaired);
	tcase_add_test(tc, test_n1_action_count_left_by_another_client);
	tcase_add_test(tc, test_n4_stale_kdebug_filters);
	tcase_add_test(tc, test_r3_unforced_between_runs);
	tcase_add_test(tc, test_stale_state_unrepairable);
	tcase_add_test(tc, test_setup_failures);
	tcase_add_test(tc, test_attach_failures);
	tcase_add_test(tc, test_crashed_child);
	tcase_add_test(tc, test_sigint_during_run);
	tcase_add_test(tc, test_exit_without_close);
	tcase_add_test(tc, test_killed_run_repaired_next_time);
	tcase_add_test(tc, test_c2_readback_names_the_field);
	tcase_add_test(tc, test_c2_reprogrammed_between_open_and_attach);
	tcase_add_test(tc, test_standin_config_registers);
	tcase_add_test(tc, test_readback_as_kernel_answers);
	tcase_add_test(tc, test_standin_framework_rules);
	tcase_add_test(tc, test_counter_count_sentinel);
	tcase_add_test(tc, test_release_forced_for_another_user);
	tcase_add_test(tc, test_c4_action_count_race);
	tcase_add_test(tc, test_c5_kpc_ebusy_names_kernel_client);
	tcase_add_test(tc, test_a7_pet_period_macos13);
	tcase_add_test(tc, test_kdebug_dump_replays);
	suite_add_tcase(s, tc);
	return s;
}
