/*
 * backend/kperf/sample.c: PET sampling of the child's threads into the kdebug
 * buffer, and the reader thread (see backend/kperf/sample.h).
 *
 * Why sampling: kpc_get_thread_counters() reads only the calling thread,
 * so a parent cannot read its child's counters through kpc (kpep.md 4.9).
 * kpc thread counting, on before the child is forked, gives every new
 * thread its own counters from zero; lightweight PET, filtered on the
 * child's pid (set while the child waits on the runner's gate; exec keeps
 * the pid), logs the counters of the child's threads that are on core at
 * every 1 ms PET tick, and of a thread coming on core in a new generation
 * (kptimer.c, pet.c; xnu-kperf.md F4).
 *
 * Order rules: timers, the PET timer and lightweight PET are refused with
 * EBUSY while sampling is on, so they are set once before the first run;
 * kperf_sample_set(1) is ECANCELED without actions; the trace must be set
 * up (KERN_KDSETUP) before KERN_KDENABLE.  The pid filter is compared at
 * each sample (action.c), so changing it between runs is enough.
 */
#include "backend/kperf/sample.h"
#include "base/error.h"
#include "backend/kperf/fw.h"
#include "base/util.h"
#include "base/sudo.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KPERF_SAMPLER_PMC_THREAD (1u << 4)
#define KPERF_ACTIONS_NEEDED 1u		/* action ids are 1-based: 0 is "no action" */
#define KPERF_TIMER_COUNT 2u		/* timer ids are 0-based */
#define KPERF_ACTION_ID 1u
#define KPERF_TIMER_ID 1u
/*
 * A7 (audit 4): the PET period is the kernel's minimum: 1 ms from xnu-10002
 * (macOS 14), 2 ms on macOS 13 (xnu-8792 kptimer.c KTPL_FG_PET), where a
 * request below it is raised when the timer is armed.  lauka asks for the
 * minimum of the running kernel (kern.osrelease 22.x is macOS 13), so the
 * period it reads back, its coverage notes and doctor's sample rate are the
 * kernel's.  Not observed on a Mac running macOS 13.
 */
#define SAMPLE_PERIOD_NS 1000000u
#define SAMPLE_PERIOD_NS_MACOS13 2000000u
#define KDEBUG_RECORDS 262144		/* kernel trace buffer (64 bytes each) */
#define READ_CHUNK 65536		/* records per KERN_KDREADTR */
#define READ_INTERVAL_NS 10000000L	/* reader thread wake-up */

static int kd(int op, int arg, void *buf, size_t *len, const char *what, char *err, size_t elen)
{
	size_t zero = 0;
	return kperf_seam_error(kperf_sys->kdebug(op, arg, buf, len ? len : &zero), what, err, elen);
}

/*
 * N1 (audit 3): XNU never lowers the action count (action.c
 * kperf_action_set_count: EINVAL when count < actionc) and kperf_reset
 * keeps it, so the count another client set since boot (IB-style tools set
 * 32, KPERF_ACTION_MAX; Instruments is a kperf client too) stays until
 * reboot.  Keep the larger of it and what lauka needs; lauka uses action 1,
 * and kperf_reset cleared the others' samplers and filters.
 */
static int action_count_setup(uint32_t *count, char *err, size_t len)
{
	const struct kperf_fns *f = &kperf_fn;
	uint32_t cur = 0;
	int r;
	errno = 0;
	r = f->kperf_action_count_get(&cur);
	int e = kperf_call_errno(r, errno);
	if (e)
		return kperf_errno_error("kperf_action_count_get", e, err, len);
	*count = cur > KPERF_ACTIONS_NEEDED ? cur : KPERF_ACTIONS_NEEDED;
	r = KPERF_CALL(f->kperf_action_count_set(*count), "kperf_action_count_set", err, len);
	if (r != -LK_EINVAL)
		return r;
	/*
	 * C4 (audit 4, A3a): a background ktrace client (tailspind, inference)
	 * got ktrace back between lauka's get and set and raised the count; a
	 * smaller count is EINVAL.  Read it again and retry once.
	 */
	errno = 0;
	r = f->kperf_action_count_get(&cur);
	if ((e = kperf_call_errno(r, errno)))
		return kperf_errno_error("kperf_action_count_get", e, err, len);
	*count = cur > KPERF_ACTIONS_NEEDED ? cur : KPERF_ACTIONS_NEEDED;
	return KPERF_CALL(f->kperf_action_count_set(*count), "kperf_action_count_set", err, len);
}

/* A7: the PET period to ask for on the running kernel. */
uint64_t kperf_pet_period_ns(void)
{
	char rel[64] = "";
	if (kperf_sys->sysctl_str && kperf_sys->sysctl_str("kern.osrelease", rel, sizeof(rel)) == 0 && atoi(rel) == 22)
		return SAMPLE_PERIOD_NS_MACOS13;
	return SAMPLE_PERIOD_NS;
}

static int kperf_differs(char *err, size_t len, const char *field, unsigned long long got, unsigned long long want)
{
	lk_errbuf(err, len, "kperf read-back: %s is %llu, lauka set %llu; another ktrace client changed kperf",
		  field, got, want);
	return -LK_EBUSY;
}

/*
 * C2 (audit 4): every kperf setting read back after setup: the action count
 * (at least what was set), action 1's samplers (PMC_THREAD among them),
 * timer 1's period (as set, or raised to at most 2 ms by the kernel), the
 * PET timer, lightweight PET.  What the getters return on a real kernel is
 * unverified: these bounds avoid failing on what XNU may round.  The getters are optional in the framework: one
 * that is missing leaves its field unchecked.
 */
static int kperf_readback(const struct kperf_sampler *s, uint64_t ticks, char *err, size_t len)
{
	const struct kperf_fns *f = &kperf_fn;
	uint32_t u = 0;
	uint64_t t = 0;
	int e, r;
#define GET(call, name) do { errno = 0; r = (call); if ((e = kperf_call_errno(r, errno))) \
		return kperf_errno_error(name, e, err, len); } while (0)
	GET(f->kperf_action_count_get(&u), "kperf_action_count_get");
	if (u < s->action_count)
		return kperf_differs(err, len, "the action count", u, s->action_count);
	if (f->kperf_action_samplers_get) {
		GET(f->kperf_action_samplers_get(KPERF_ACTION_ID, &u), "kperf_action_samplers_get");
		if (!(u & KPERF_SAMPLER_PMC_THREAD))
			return kperf_differs(err, len, "action 1's samplers", u, KPERF_SAMPLER_PMC_THREAD);
	}
	if (f->kperf_timer_period_get) {
		GET(f->kperf_timer_period_get(KPERF_TIMER_ID, &t), "kperf_timer_period_get");
		/* The kernel may raise a period to its minimum (kptimer.c): up to 2 ms is its doing, not another client's. */
		if (t != ticks && (t < ticks || t > f->kperf_ns_to_ticks(SAMPLE_PERIOD_NS_MACOS13)))
			return kperf_differs(err, len, "timer 1's period (ticks)", t, ticks);
	}
	if (f->kperf_timer_pet_get) {
		GET(f->kperf_timer_pet_get(&u), "kperf_timer_pet_get");
		if (u != KPERF_TIMER_ID)
			return kperf_differs(err, len, "the PET timer", u, KPERF_TIMER_ID);
	}
#undef GET
	int pet = 0;
	if ((r = kperf_seam_error(kperf_sys->sysctl_int("kperf.lightweight_pet", NULL, &pet), "kperf.lightweight_pet",
				  err, len)))
		return r;
	if (pet != 1)
		return kperf_differs(err, len, "kperf.lightweight_pet", (unsigned long long)pet, 1);
	return 0;
}

int kperf_sampler_setup(struct kperf_sampler *s, size_t ncounters, char *err, size_t len)
{
	const struct kperf_fns *f = &kperf_fn;
	int r;
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->wake, NULL);
	s->sync_init = true;
	kperf_agg_init(&s->agg, ncounters, KPERF_BASE_ZERO);
	s->buf = xcalloc(READ_CHUNK, sizeof(*s->buf));
	s->setup = true;	/* from here on teardown() must undo */
	uint64_t ticks = f->kperf_ns_to_ticks(kperf_pet_period_ns());
	if ((r = action_count_setup(&s->action_count, err, len)) ||
	    (r = KPERF_CALL(f->kperf_timer_count_set(KPERF_TIMER_COUNT), "kperf_timer_count_set", err, len)) ||
	    (r = KPERF_CALL(f->kperf_action_samplers_set(KPERF_ACTION_ID, KPERF_SAMPLER_PMC_THREAD),
			    "kperf_action_samplers_set", err, len)) ||
	    (r = KPERF_CALL(f->kperf_timer_period_set(KPERF_TIMER_ID, ticks), "kperf_timer_period_set", err, len)) ||
	    (r = KPERF_CALL(f->kperf_timer_action_set(KPERF_TIMER_ID, KPERF_ACTION_ID), "kperf_timer_action_set",
			    err, len)) ||
	    (r = KPERF_CALL(f->kperf_timer_pet_set(KPERF_TIMER_ID), "kperf_timer_pet_set", err, len)))
		return r;
	int on = 1;
	if ((r = kperf_seam_error(kperf_sys->sysctl_int("kperf.lightweight_pet", &on, NULL), "kperf.lightweight_pet",
				  err, len)) ||
	    (r = kperf_readback(s, ticks, err, len)))
		return r;
	/*
	 * N4 (audit 3): KERN_KDSETUP (kdbg_reinit) keeps a typefilter and the
	 * PIDCHECK/PIDEXCLUDE flags, and the kernel does not reset what a dead
	 * foreground ktrace owner (a killed fs_usage, ktrace or Instruments)
	 * configured; a typefilter outranks VALCHECK, so every sample would be
	 * dropped.  KERN_KDREMOVE (kdbg_clear) clears them: once per open, 100 ms.
	 */
	struct kperf_kdreg reg = { .type = KPERF_KDBG_VALCHECK, .value1 = KPERF_DEBUGID_THREAD };
	size_t reglen = sizeof(reg);
	if ((r = kd(KPERF_KD_REMOVE, 0, NULL, NULL, "kdebug remove", err, len)) ||
	    (r = kd(KPERF_KD_SETBUF, KDEBUG_RECORDS, NULL, NULL, "kdebug setbuf", err, len)) ||
	    (r = kd(KPERF_KD_SETUP, 0, NULL, NULL, "kdebug setup", err, len)) ||
	    (r = kd(KPERF_KD_SETREG, 0, &reg, &reglen, "kdebug setreg", err, len)))
		return r;
	return 0;
}

/*
 * C9 (audit 4): $LAUKA_KPERF_DUMP names a file that receives every record read
 * (raw 64-byte kd_buf, appended), for the fixtures scripts/macos-fixtures.sh
 * collects from a real Mac; tests/check_kperf.c replays them.  It is opened
 * by start() before the reader thread exists: under sudo the file is the
 * invoking user's, created with their ids and through no link (base/sudo.h),
 * and on macOS that switch is the whole process's, so it must not happen
 * while the reader (or anything else) runs.
 */
static void dump_open(struct kperf_sampler *s)
{
	const char *path = getenv("LAUKA_KPERF_DUMP");
	if (s->dumping || !path || !*path)
		return;
	s->dump_fd = sudo_user_open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	s->dumping = s->dump_fd >= 0;
}

static void dump_close(struct kperf_sampler *s)
{
	if (s->dumping)
		close(s->dump_fd);
	s->dumping = false;
}

static void dump(struct kperf_sampler *s, const struct kperf_kdbuf *recs, size_t n)
{
	const char *p = (const char *)recs;
	size_t left = n * sizeof(*recs);
	while (s->dumping && left) {
		ssize_t w = write(s->dump_fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			dump_close(s);	/* a fixture with a hole is worse than a short one */
			return;
		}
		p += w;
		left -= (size_t)w;
	}
}

/* Drain the trace buffer into the aggregation. */
static int drain(struct kperf_sampler *s)
{
	for (;;) {
		size_t got = READ_CHUNK * sizeof(struct kperf_kdbuf);
		int r = kperf_sys->kdebug(KPERF_KD_READTR, 0, s->buf, &got);
		if (r < 0)
			return r;
		if (got > READ_CHUNK)
			got = READ_CHUNK;
		dump(s, s->buf, got);
		kperf_agg_feed(&s->agg, s->buf, got);
		if (got < READ_CHUNK)
			return 0;
	}
}

static void *reader_main(void *arg)
{
	struct kperf_sampler *s = arg;
	pthread_mutex_lock(&s->mu);
	while (!s->stop) {
		/* A timed wait on a condition (not a sleep), so stop() need not wait out the interval. */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += READ_INTERVAL_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&s->wake, &s->mu, &ts);
		if (s->stop)
			break;
		pthread_mutex_unlock(&s->mu);
		int r = drain(s);
		pthread_mutex_lock(&s->mu);
		if (r < 0) {
			s->err = kperf_errno_error("kdebug read", -r, s->why, sizeof(s->why));
			break;
		}
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

int kperf_sampler_start(struct kperf_sampler *s, pid_t pid, char *err, size_t len)
{
	const struct kperf_fns *f = &kperf_fn;
	int r;
	kperf_agg_reset(&s->agg);
	s->err = 0;
	s->why[0] = '\0';
	s->stop = false;	/* no reader thread runs between runs */
	s->sampling = true;	/* from here on stop() must undo */
	if ((r = KPERF_CALL(f->kperf_action_filter_set_by_pid(KPERF_ACTION_ID, (int32_t)pid),
			    "kperf_action_filter_set_by_pid", err, len)) ||
	    (r = kd(KPERF_KD_ENABLE, 1, NULL, NULL, "kdebug enable", err, len)) ||
	    (r = KPERF_CALL(f->kperf_sample_set(1), "kperf_sample_set", err, len)))
		return r;
	dump_open(s);
	/* The reader must not take lauka's SIGINT/SIGTERM: the runner's handler forwards them. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int pr = pthread_create(&s->reader, NULL, reader_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pr) {
		lk_errbuf(err, len, "cannot start the kdebug reader thread: %s", strerror(pr));
		return -LK_EIO;
	}
	s->reader_on = true;
	return 0;
}

int kperf_sampler_stop(struct kperf_sampler *s, char *err, size_t len)
{
	int first = 0, r;
	char tmp[256];
	if (s->reader_on) {
		pthread_mutex_lock(&s->mu);
		s->stop = true;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->reader, NULL);
		s->reader_on = false;
	}
	if (!s->sampling)
		return 0;
	s->sampling = false;
	if ((r = KPERF_CALL(kperf_fn.kperf_sample_set(0), "kperf_sample_set", tmp, sizeof(tmp))) < 0) {
		first = r;
		lk_errbuf(err, len, "%s", tmp);
	}
	if ((r = kd(KPERF_KD_ENABLE, 0, NULL, NULL, "kdebug enable 0", tmp, sizeof(tmp))) < 0 && !first) {
		first = r;
		lk_errbuf(err, len, "%s", tmp);
	}
	/* What the last moments of the run logged is still in the buffer. */
	if (!s->err && (r = drain(s)) < 0 && !first)
		first = kperf_errno_error("kdebug read", -r, err, len);
	return first;
}

int kperf_sampler_teardown(struct kperf_sampler *s, char *err, size_t len)
{
	int first = 0, r;
	char tmp[256];
	if (!s->setup)
		return 0;
	s->setup = false;
	/* kdebug first, kperf second: once both are reset the kernel releases ktrace ownership. */
	if ((r = kd(KPERF_KD_ENABLE, 0, NULL, NULL, "kdebug enable 0", tmp, sizeof(tmp))) < 0) {
		first = r;
		lk_errbuf(err, len, "%s", tmp);
	}
	if ((r = kd(KPERF_KD_REMOVE, 0, NULL, NULL, "kdebug remove", tmp, sizeof(tmp))) < 0 && !first) {
		first = r;
		lk_errbuf(err, len, "%s", tmp);
	}
	/* kperf_reset also switches lightweight PET off (kppet_reset). */
	if ((r = KPERF_CALL(kperf_fn.kperf_reset(), "kperf_reset", tmp, sizeof(tmp))) < 0 && !first) {
		first = r;
		lk_errbuf(err, len, "%s", tmp);
	}
	return first;
}

void kperf_sampler_release(struct kperf_sampler *s)
{
	char why[256];
	if (kperf_loaded()) {
		kperf_sampler_stop(s, why, sizeof(why));
		kperf_sampler_teardown(s, why, sizeof(why));
	}
	kperf_agg_release(&s->agg);
	dump_close(s);
	free(s->buf);
	s->buf = NULL;
	if (s->sync_init) {
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->wake);
		s->sync_init = false;
	}
}
