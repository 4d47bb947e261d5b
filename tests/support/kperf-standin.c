/*
 * kperf-standin.c: a deterministic stand-in for kperf.framework and
 * kperfdata.framework plus lauka's Darwin seam (struct kperf_sys), built as
 * a shared object so the kperf backend loads it through the same dlopen
 * path as the real frameworks.  What it models and the scripted run it
 * produces are described in kperf-standin.h.
 *
 * It is a model of the documented behaviour (reference/kpep.md 3.3, 4.3-4.10),
 * not of Apple's code: first-fit counter allocation, the kpep error codes,
 * kpc/kperf/kdebug state and the kernel's EBUSY/EINVAL/EPERM rules.
 */
#include "backend-kperf.h"
#include "kperf-agg.h"
#include "kperf-standin.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- state */

static struct standin_state S;

static const char *state_file(void)
{
	const char *f = getenv("LAUKA_STANDIN_STATE");
	return f && *f ? f : NULL;
}

static void save(void)
{
	const char *f = state_file();
	if (!f)
		return;
	FILE *fp = fopen(f, "wb");
	if (fp) {
		fwrite(&S, sizeof(S), 1, fp);
		fclose(fp);
	}
}

static void load(void)
{
	const char *f = state_file();
	if (f) {
		FILE *fp = fopen(f, "rb");
		if (fp) {
			struct standin_state t;
			if (fread(&t, sizeof(t), 1, fp) == 1)
				S = t;
			fclose(fp);
		}
	}
	if (S.initialised)
		return;
	memset(&S, 0, sizeof(S));
	S.initialised = 1;
	const char *stale = getenv("LAUKA_STANDIN_STALE");
	if (stale && !strcmp(stale, "1")) {
		/* As a SIGKILLed run leaves it: its owner is gone, everything still on. */
		S.force_all = 1;
		S.counting = S.thread_counting = 3;
		S.action_count = 32;
		S.timer_count = 8;
		S.samplers = 1u << 4;
		S.timer_action = 1;
		S.pet_timer = 1;
		S.lightweight_pet = 1;
		S.sampling = 1;
		S.kd_nbufs = 1000;
		S.kd_setup = S.kd_enabled = 1;
	}
	const char *busy = getenv("LAUKA_STANDIN_BUSY");
	if (busy && !strcmp(busy, "1")) {
		S.owner = (int)getppid();
		S.sampling = 1;
	}
	save();
}

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtol(v, NULL, 0) : dflt;
}

/* LAUKA_STANDIN_FAIL lookup: the code configured for `name`, or 0. */
static int injected(const char *name)
{
	const char *spec = getenv("LAUKA_STANDIN_FAIL");
	size_t n = strlen(name);
	for (const char *p = spec; p && *p;) {
		const char *end = strchr(p, ',');
		if (!strncmp(p, name, n) && p[n] == '=')
			return (int)strtol(p + n + 1, NULL, 0);
		p = end ? end + 1 : NULL;
	}
	return 0;
}

static unsigned standin_euid(void)
{
	return (unsigned)env_long("LAUKA_STANDIN_EUID", 0);
}

/* kpc_/kperf_ failure in the configured return style. */
static int fail_errno(int e)
{
	const char *style = getenv("LAUKA_STANDIN_RETSTYLE");
	if (style && !strcmp(style, "value"))
		return e;
	errno = e;
	return -1;
}

static bool alive(int pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/* The kernel's ktrace_configure(): root, and no other live owner. */
static int ktrace_configure(void)
{
	if (standin_euid() != 0)
		return EPERM;
	if (S.owner && S.owner != (int)getpid() && alive(S.owner))
		return EBUSY;
	S.owner = (int)getpid();
	return 0;
}

/* Common prologue of a kpc/kperf call: injected failure, then privileges. */
#define ENTER_KPC(name) do { load(); int e_ = injected(name); if (e_) return fail_errno(e_); \
	if (standin_euid() != 0) return fail_errno(EPERM); } while (0)
#define ENTER_KPERF(name) do { load(); int e_ = injected(name); if (e_) return fail_errno(e_); \
	e_ = ktrace_configure(); if (e_) return fail_errno(e_); } while (0)

/* ------------------------------------------------------------ kperf.framework */

int kpc_force_all_ctrs_get(int *v);
int kpc_force_all_ctrs_set(int v);
uint32_t kpc_get_counting(void);
int kpc_set_counting(uint32_t classes);
int kpc_set_thread_counting(uint32_t classes);
uint32_t kpc_get_counter_count(uint32_t classes);
int kpc_set_config(uint32_t classes, uint64_t *config);
int kperf_action_count_set(uint32_t n);
int kperf_action_samplers_set(uint32_t action, uint32_t samplers);
int kperf_action_filter_set_by_pid(uint32_t action, int32_t pid);
int kperf_timer_count_set(uint32_t n);
int kperf_timer_period_set(uint32_t timer, uint64_t ticks);
int kperf_timer_action_set(uint32_t timer, uint32_t action);
int kperf_timer_pet_set(uint32_t timer);
int kperf_sample_set(uint32_t on);
int kperf_sample_get(uint32_t *on);
int kperf_reset(void);
uint64_t kperf_ns_to_ticks(uint64_t ns);
void lauka_standin_state(struct standin_state *out);

int kpc_force_all_ctrs_get(int *v)
{
	ENTER_KPC("kpc_force_all_ctrs_get");
	*v = S.force_all;
	return 0;
}

int kpc_force_all_ctrs_set(int v)
{
	ENTER_KPC("kpc_force_all_ctrs_set");
	S.force_all = v;
	save();
	return 0;
}

uint32_t kpc_get_counting(void)
{
	load();
	return S.counting;
}

int kpc_set_counting(uint32_t classes)
{
	ENTER_KPC("kpc_set_counting");
	S.counting = classes;
	save();
	return 0;
}

int kpc_set_thread_counting(uint32_t classes)
{
	ENTER_KPC("kpc_set_thread_counting");
	S.thread_counting = classes;
	save();
	return 0;
}

uint32_t kpc_get_counter_count(uint32_t classes)
{
	return (classes & 1 ? 2 : 0) + (classes & 2 ? 8 : 0);
}

int kpc_set_config(uint32_t classes, uint64_t *config)
{
	ENTER_KPC("kpc_set_config");
	if (!(classes & 2))
		return fail_errno(EINVAL);
	if (!S.force_all)
		return fail_errno(EPERM);	/* PMC5-7 belong to the power manager */
	memcpy(S.config, config, sizeof(S.config));
	S.config_set = 1;
	save();
	return 0;
}

int kperf_action_count_set(uint32_t n)
{
	ENTER_KPERF("kperf_action_count_set");
	if (S.sampling)
		return fail_errno(EBUSY);
	S.action_count = n;
	save();
	return 0;
}

int kperf_action_samplers_set(uint32_t action, uint32_t samplers)
{
	ENTER_KPERF("kperf_action_samplers_set");
	if (action == 0 || action > S.action_count)
		return fail_errno(EINVAL);
	S.samplers = samplers;
	save();
	return 0;
}

int kperf_action_filter_set_by_pid(uint32_t action, int32_t pid)
{
	ENTER_KPERF("kperf_action_filter_set_by_pid");
	if (action == 0 || action > S.action_count)
		return fail_errno(EINVAL);
	S.filter_pid = pid;
	save();
	return 0;
}

int kperf_timer_count_set(uint32_t n)
{
	ENTER_KPERF("kperf_timer_count_set");
	if (n > 8)
		return fail_errno(EINVAL);
	if (S.sampling)
		return fail_errno(EBUSY);
	S.timer_count = n;
	save();
	return 0;
}

int kperf_timer_period_set(uint32_t timer, uint64_t ticks)
{
	ENTER_KPERF("kperf_timer_period_set");
	if (timer >= S.timer_count)
		return fail_errno(EINVAL);
	if (S.sampling)
		return fail_errno(EBUSY);
	S.timer_period = ticks;
	save();
	return 0;
}

/* xnu kptimer_set_action: EINVAL for an unconfigured timer, EBUSY while sampling (the seed's SetTimer). */
int kperf_timer_action_set(uint32_t timer, uint32_t action)
{
	ENTER_KPERF("kperf_timer_action_set");
	if (timer >= S.timer_count)
		return fail_errno(EINVAL);
	if (S.sampling)
		return fail_errno(EBUSY);
	S.timer_action = action;
	save();
	return 0;
}

int kperf_timer_pet_set(uint32_t timer)
{
	ENTER_KPERF("kperf_timer_pet_set");
	if (timer >= S.timer_count)
		return fail_errno(EINVAL);
	if (S.sampling)
		return fail_errno(EBUSY);
	S.pet_timer = timer;
	save();
	return 0;
}

int kperf_sample_set(uint32_t on)
{
	ENTER_KPERF("kperf_sample_set");
	if (on && !S.sampling) {
		S.samples_started++;
		/* Records are produced only for a complete, correct configuration. */
		S.session = S.timer_count > 1 && S.pet_timer == 1 && S.timer_action == 1 &&
			    S.action_count >= 1 && (S.samplers & (1u << 4)) && S.filter_pid > 0 &&
			    S.timer_period > 0 && S.lightweight_pet == 1 && S.force_all &&
			    (S.counting & 3) == 3 && (S.thread_counting & 3) == 3;
		S.delivered = 0;
		S.session_pid = S.filter_pid;
	}
	S.sampling = on ? 1 : 0;
	save();
	return 0;
}

int kperf_sample_get(uint32_t *on)
{
	load();
	int e = injected("kperf_sample_get");
	if (e)
		return fail_errno(e);
	*on = (uint32_t)S.sampling;
	return 0;
}

/* Stops sampling and resets timers, actions and kdebug; PET is a separate sysctl. */
int kperf_reset(void)
{
	ENTER_KPERF("kperf_reset");
	S.sampling = 0;
	S.action_count = S.timer_count = 0;
	S.samplers = S.timer_action = S.pet_timer = 0;
	S.timer_period = 0;
	S.filter_pid = 0;
	S.kd_nbufs = S.kd_setup = S.kd_enabled = 0;
	S.kd_filter = 0;
	save();
	return 0;
}

uint64_t kperf_ns_to_ticks(uint64_t ns)
{
	return ns;
}

void lauka_standin_state(struct standin_state *out)
{
	load();
	*out = S;
}

/* -------------------------------------------------------- kperfdata.framework */

struct kpep_event {
	const char *name;
	uint32_t mask;
	uint16_t number;
	int fixed;		/* fixed counter index or -1 */
};

struct kpep_db {
	int unused;
};

struct kpep_config {
	struct kpep_db *db;
	int forced;
	const struct kpep_event *ev[16];
	size_t counter[16];
	size_t n;
	uint32_t used;		/* counters taken */
};

typedef struct kpep_db kpep_db;
typedef struct kpep_config kpep_config;
typedef struct kpep_event kpep_event;

/* A slice of the A14/M1 database (reference/kpep.md sections 3.2 and 5). */
static struct kpep_event events[] = {
	{ "FIXED_CYCLES", 0x1, 0, 0 },
	{ "FIXED_INSTRUCTIONS", 0x2, 0, 1 },
	{ "INST_ALL", 0x80, 0x8c, -1 },
	{ "RETIRE_UOP", 0x80, 0x1, -1 },
	{ "INST_BRANCH", 0xe0, 0x8d, -1 },
	{ "BRANCH_MISPRED_NONSPEC", 0xe0, 0xcb, -1 },
	{ "L1D_CACHE_MISS_LD_NONSPEC", 0xe0, 0xbf, -1 },
	{ "L1D_TLB_MISS_NONSPEC", 0xe0, 0xc1, -1 },
	{ "CORE_ACTIVE_CYCLE", 0x3fc, 0x2, -1 },
	{ "L1D_CACHE_MISS_LD", 0x3fc, 0xa3, -1 },
	{ "L1I_CACHE_MISS_DEMAND", 0x3fc, 0xdb, -1 },
	{ "MAP_STALL", 0x3fc, 0x76, -1 },
	{ "ZERO_MASK_EVENT", 0x0, 0x77, -1 },
};
#define CONFIG_COUNTERS 0x3fcu
#define POWER_COUNTERS 0xe0u

int kpep_db_create(const char *name, kpep_db **db);
void kpep_db_free(kpep_db *db);
int kpep_db_event(kpep_db *db, const char *name, kpep_event **ev);
int kpep_config_create(kpep_db *db, kpep_config **cfg);
void kpep_config_free(kpep_config *cfg);
int kpep_config_force_counters(kpep_config *cfg);
int kpep_config_add_event(kpep_config *cfg, kpep_event **ev, uint32_t flag, uint32_t *err);
int kpep_config_kpc_classes(kpep_config *cfg, uint32_t *classes);
int kpep_config_kpc_count(kpep_config *cfg, size_t *count);
int kpep_config_kpc(kpep_config *cfg, uint64_t *buf, size_t bytes);
int kpep_config_kpc_map(kpep_config *cfg, size_t *buf, size_t bytes);

static int kpep_fail(const char *name)
{
	int code = injected(name);
	if (code == 15)
		errno = (int)env_long("LAUKA_STANDIN_ERRNO", EIO);
	return code;
}

int kpep_db_create(const char *name, kpep_db **db)
{
	int e = kpep_fail("kpep_db_create");
	if (e)
		return e;
	if (!db)
		return 1;
	if (name && strcmp(name, "a14"))
		return 7;
	*db = calloc(1, sizeof(**db));
	return *db ? 0 : 2;
}

void kpep_db_free(kpep_db *db)
{
	free(db);
}

int kpep_db_event(kpep_db *db, const char *name, kpep_event **ev)
{
	int e = kpep_fail("kpep_db_event");
	if (e)
		return e;
	if (!db || !name || !ev)
		return 1;
	if (!strcmp(name, "Cycles"))
		name = "FIXED_CYCLES";
	else if (!strcmp(name, "Instructions"))
		name = "FIXED_INSTRUCTIONS";
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (!strcmp(events[i].name, name)) {
			*ev = &events[i];
			return 0;
		}
	return 11;
}

int kpep_config_create(kpep_db *db, kpep_config **cfg)
{
	int e = kpep_fail("kpep_config_create");
	if (e)
		return e;
	if (!db || !cfg)
		return 1;
	*cfg = calloc(1, sizeof(**cfg));
	if (!*cfg)
		return 2;
	(*cfg)->db = db;
	return 0;
}

void kpep_config_free(kpep_config *cfg)
{
	free(cfg);
}

int kpep_config_force_counters(kpep_config *cfg)
{
	int e = kpep_fail("kpep_config_force_counters");
	if (e)
		return e;
	if (cfg->forced)
		return 1;
	cfg->forced = 1;
	return 0;
}

/* First fit from the lowest bit of the mask, in add order ([RE] add_config_event_internal). */
int kpep_config_add_event(kpep_config *cfg, kpep_event **evp, uint32_t flag, uint32_t *err)
{
	(void)flag;
	int e = kpep_fail("kpep_config_add_event");
	if (e)
		return e;
	if (!cfg || !evp || !*evp)
		return 1;
	const kpep_event *ev = *evp;
	if (cfg->n >= 16)
		return 12;
	if (ev->fixed >= 0) {
		if (!cfg->forced)
			return 13;
		if (cfg->used & (1u << ev->fixed))
			return 12;
		cfg->used |= 1u << ev->fixed;
		cfg->counter[cfg->n] = (size_t)ev->fixed;
		cfg->ev[cfg->n++] = ev;
		return 0;
	}
	if (ev->mask == 0)
		return 16;
	if (!cfg->forced && !(ev->mask & ~POWER_COUNTERS))
		return 13;
	uint32_t allowed = ev->mask & CONFIG_COUNTERS & (cfg->forced ? ~0u : ~POWER_COUNTERS);
	for (unsigned c = 0; c < 32; c++) {
		if ((allowed >> c & 1) && !(cfg->used >> c & 1)) {
			cfg->used |= 1u << c;
			cfg->counter[cfg->n] = c;
			cfg->ev[cfg->n++] = ev;
			return 0;
		}
	}
	if (err) {
		*err = 0;
		for (size_t i = 0; i < cfg->n; i++)
			if (ev->mask >> cfg->counter[i] & 1)
				*err |= 1u << i;
	}
	return 12;
}

int kpep_config_kpc_classes(kpep_config *cfg, uint32_t *classes)
{
	int e = kpep_fail("kpep_config_kpc_classes");
	if (e)
		return e;
	*classes = 0;
	for (size_t i = 0; i < cfg->n; i++)
		*classes |= cfg->ev[i]->fixed >= 0 ? 1u : 2u;
	return 0;
}

int kpep_config_kpc_count(kpep_config *cfg, size_t *count)
{
	int e = kpep_fail("kpep_config_kpc_count");
	if (e)
		return e;
	uint32_t classes;
	kpep_config_kpc_classes(cfg, &classes);
	*count = classes & 2 ? 8 : 0;
	return 0;
}

int kpep_config_kpc(kpep_config *cfg, uint64_t *buf, size_t bytes)
{
	int e = kpep_fail("kpep_config_kpc");
	if (e)
		return e;
	size_t count;
	kpep_config_kpc_count(cfg, &count);
	if (bytes < count * sizeof(uint64_t))
		return 4;
	memset(buf, 0, count * sizeof(uint64_t));
	for (size_t i = 0; i < cfg->n; i++)
		if (cfg->ev[i]->fixed < 0)
			buf[cfg->counter[i] - 2] = cfg->ev[i]->number;
	return 0;
}

int kpep_config_kpc_map(kpep_config *cfg, size_t *buf, size_t bytes)
{
	int e = kpep_fail("kpep_config_kpc_map");
	if (e)
		return e;
	if (bytes < cfg->n * sizeof(size_t))
		return 4;
	for (size_t i = 0; i < cfg->n; i++)
		buf[i] = cfg->counter[i];
	return 0;
}

/* ------------------------------------------------------------ the Darwin seam */

static int seam_fail(const char *name)
{
	int e = injected(name);
	return e ? -e : 0;
}

static int standin_sysctl_int(const char *name, const int *set, int *get)
{
	load();
	int e = seam_fail("sysctl_int");
	if (e)
		return e;
	if (strcmp(name, "kperf.lightweight_pet"))
		return -ENOENT;
	if (get)
		*get = S.lightweight_pet;
	if (set) {
		if ((e = ktrace_configure()))
			return -e;
		if (S.sampling)
			return -EBUSY;	/* xnu kppet_set_lightweight_pet (the seed's SetLightweightPet) */
		S.lightweight_pet = *set ? 1 : 0;
		save();
	}
	return 0;
}

struct script {
	uint64_t tid, base, step;
	int samples, cut;	/* cut: index of the sample cut short, -1 none */
};
static const struct script scripted[] = {
	{ 0x1001, 10, 1000, 5, -1 },
	{ 0x1002, 7, 500, 3, -1 },
	{ 0x1003, 1, 100, 1, -1 },
	{ 0x1004, 3, 250, 4, 1 },
};

static uint64_t counter_value(size_t k, uint64_t units)
{
	if (k == 0)
		return 3 * units;
	if (k == 1)
		return 2 * units;
	return units * (S.config[k - 2] & 0xffff);
}

static size_t emit_records(struct kperf_kdbuf *out, size_t cap)
{
	size_t n = 0, nthreads = (size_t)env_long("LAUKA_STANDIN_THREADS", 4);
	size_t nctr = kpc_get_counter_count(S.thread_counting);
	if (nthreads > sizeof(scripted) / sizeof(scripted[0]))
		nthreads = sizeof(scripted) / sizeof(scripted[0]);
	/* Interleave the threads' samples the way context switches would. */
	for (int j = 0; j < 5; j++) {
		for (size_t t = 0; t < nthreads; t++) {
			const struct script *s = &scripted[t];
			if (j >= s->samples)
				continue;
			uint64_t units = s->base + (uint64_t)j * s->step;
			size_t nrec = (nctr + 3) / 4;
			if (j == s->cut)
				nrec = 1;
			for (size_t r = 0; r < nrec && n < cap; r++) {
				struct kperf_kdbuf *b = &out[n++];
				memset(b, 0, sizeof(*b));
				b->timestamp = (uint64_t)j * 1000 + t;
				b->tid = s->tid;
				b->debugid = KPERF_DEBUGID_THREAD;
				if (r == 0)
					b->debugid |= KPERF_FUNC_START;
				if (r == nrec - 1)
					b->debugid |= KPERF_FUNC_END;
				for (size_t a = 0; a < 4; a++) {
					size_t k = r * 4 + a;
					b->arg[a] = k < nctr ? counter_value(k, units) : 0;
				}
			}
		}
		if (n < cap) {	/* noise: another kperf record the filter should not pass */
			struct kperf_kdbuf *b = &out[n++];
			memset(b, 0, sizeof(*b));
			b->debugid = KPERF_EVENTID(KPERF_DBG_PERF, KPERF_PERF_KPC, 9);
			b->tid = 0x1001;
			b->arg[0] = 123456789;
		}
	}
	return n;
}

static uint64_t sampled_instructions(void)
{
	uint64_t units = 0;
	size_t nthreads = (size_t)env_long("LAUKA_STANDIN_THREADS", 4);
	for (size_t t = 0; t < nthreads && t < sizeof(scripted) / sizeof(scripted[0]); t++) {
		const struct script *s = &scripted[t];
		int first = s->cut == 0 ? 1 : 0, last = s->samples - 1 == s->cut ? s->samples - 2 : s->samples - 1;
		if (last > first)
			units += (uint64_t)(last - first) * s->step;
	}
	return 2 * units;
}

static int standin_kdebug(int op, int arg, void *buf, size_t *len)
{
	load();
	char name[32];
	snprintf(name, sizeof(name), "kdebug_%d", op);
	int e = seam_fail(name);
	if (!e)
		e = seam_fail("kdebug");
	if (e)
		return e;
	if (standin_euid() != 0)
		return -EPERM;
	if (op != KPERF_KD_READTR && (e = ktrace_configure()))
		return -e;
	switch (op) {
	case KPERF_KD_REMOVE:
		S.kd_nbufs = S.kd_setup = S.kd_enabled = 0;
		S.kd_filter = 0;
		break;
	case KPERF_KD_SETBUF:
		S.kd_nbufs = arg;
		break;
	case KPERF_KD_SETUP:
		if (S.kd_nbufs <= 0)
			return -EINVAL;
		S.kd_setup = 1;
		break;
	case KPERF_KD_SETREG: {
		if (!S.kd_setup || !buf || *len < sizeof(struct kperf_kdreg))
			return -EINVAL;
		const struct kperf_kdreg *reg = buf;
		S.kd_filter = reg->type == KPERF_KDBG_VALCHECK ? reg->value1 : 0;
		break;
	}
	case KPERF_KD_ENABLE:
		if (arg && !S.kd_setup)
			return -EINVAL;
		S.kd_enabled = arg ? 1 : 0;
		break;
	case KPERF_KD_READTR: {
		if (!S.kd_setup)
			return -EINVAL;
		size_t cap = *len / sizeof(struct kperf_kdbuf), n = 0;
		S.reads++;
		if (S.session && !S.delivered && S.kd_filter == KPERF_DEBUGID_THREAD) {
			struct kperf_kdbuf tmp[64];
			n = emit_records(tmp, 64);
			/* VALCHECK passes only the thread samples. */
			size_t kept = 0;
			for (size_t i = 0; i < n; i++)
				if ((tmp[i].debugid & ~KPERF_FUNC_MASK) == S.kd_filter)
					tmp[kept++] = tmp[i];
			n = kept < cap ? kept : cap;
			memcpy(buf, tmp, n * sizeof(struct kperf_kdbuf));
			S.delivered = 1;
		}
		*len = n;
		save();
		return 0;
	}
	default:
		return -EINVAL;
	}
	save();
	return 0;
}

static int standin_rusage(int pid, struct kperf_rusage *out)
{
	load();
	int e = seam_fail("rusage");
	if (e)
		return e;
	S.rusage_pid = pid;
	if (pid != S.session_pid)
		S.wrong_pid = 1;
	save();
	long permille = env_long("LAUKA_STANDIN_COVERAGE_PERMILLE", 995);
	uint64_t sampled = sampled_instructions();
	uint64_t instr = permille > 0 ? sampled * 1000 / (uint64_t)permille : 0;
	if (!sampled)
		instr = 12345;
	if (permille == 0)
		instr = 0;
	if (S.wrong_pid || pid == (int)getpid())
		instr /= 10;
	out->instructions = instr;
	out->cycles = instr * 3 / 2 + 7;
	return 0;
}

static int standin_cpu_ids(uint32_t *type, uint32_t *subtype, uint32_t *family)
{
	int e = seam_fail("cpu_ids");
	if (e)
		return e;
	const char *v = getenv("LAUKA_STANDIN_CPU");
	unsigned a = 0x100000c, b = 2, c = 0x1b588bb3;
	if (v && sscanf(v, "%x,%x,%x", &a, &b, &c) != 3)
		return -EINVAL;
	*type = a;
	*subtype = b;
	*family = c;
	return 0;
}

extern const struct kperf_sys lauka_kperf_sys;
const struct kperf_sys lauka_kperf_sys = {
	.version = KPERF_SYS_VERSION,
	.sysctl_int = standin_sysctl_int,
	.kdebug = standin_kdebug,
	.rusage = standin_rusage,
	.cpu_ids = standin_cpu_ids,
	.euid = standin_euid,
};
