/*
 * backend/kperf/config.c: lauka's event assignment as a kpc configuration (see
 * backend/kperf/config.h).  The two fixed events are always added first: the scope
 * check needs FIXED_INSTRUCTIONS, and with the fixed class in the config
 * kpep_config_kpc_map() gives absolute kpc indices that line up with the
 * thread samples (reference/kpep.md 4.5, xnu-kperf.md section 4).  The
 * selected events follow in the order kperf_agg_order() computes, so
 * kperfdata's first-fit allocator lands each on the counter lauka's
 * scheduler chose.
 */
#include "backend/kperf/config.h"
#include "base/error.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kpep_event *db_event(kpep_db *db, const char *const *names)
{
	for (; *names; names++) {
		kpep_event *ev = NULL;
		if (kperf_fn.kpep_db_event(db, *names, &ev) == 0 && ev)
			return ev;
	}
	return NULL;
}

void kperf_config_free(struct kperf_config *c)
{
	if (c->cfg && kperf_fn.kpep_config_free)
		kperf_fn.kpep_config_free(c->cfg);
	if (c->db && kperf_fn.kpep_db_free)
		kperf_fn.kpep_db_free(c->db);
	free(c->slot);
	free(c->role);
	memset(c, 0, sizeof(*c));
}

/* The candidates: fixed cycles and instructions, then the selection (explicit events first). */
struct cands {
	kpep_event **evs;
	uint64_t *mask;
	bool *fixed, *placed;
	int *ctr;
	size_t *order, *cand_of, *pos;
	size_t n;
};

static void cands_free(struct cands *k)
{
	free(k->evs);
	free(k->mask);
	free(k->fixed);
	free(k->placed);
	free(k->ctr);
	free(k->order);
	free(k->cand_of);
	free(k->pos);
}

static int collect(struct kperf_config *c, struct lk_evsel *sel, size_t nsel, struct cands *k, char *err, size_t len)
{
	static const char *const cyc_names[] = { "Cycles", "FIXED_CYCLES", "CPU_CLK_UNHALTED.THREAD", NULL };
	static const char *const ins_names[] = { "Instructions", "FIXED_INSTRUCTIONS", "INST_RETIRED.ANY", NULL };
	size_t cap = nsel + 2;
	k->evs = xcalloc(cap, sizeof(*k->evs));
	k->mask = xcalloc(cap, sizeof(*k->mask));
	k->fixed = xcalloc(cap, sizeof(*k->fixed));
	k->placed = xcalloc(cap, sizeof(*k->placed));
	k->ctr = xcalloc(cap, sizeof(*k->ctr));
	k->order = xcalloc(cap, sizeof(*k->order));
	k->pos = xcalloc(cap, sizeof(*k->pos));
	k->cand_of = xcalloc(nsel ? nsel : 1, sizeof(*k->cand_of));
	k->evs[0] = db_event(c->db, cyc_names);
	k->evs[1] = db_event(c->db, ins_names);
	if (!k->evs[0] || !k->evs[1]) {
		lk_errbuf(err, len, "kperfdata's database has no fixed cycles/instructions events");
		return -LK_ENOTSUP;
	}
	for (k->n = 0; k->n < 2; k->n++) {
		k->fixed[k->n] = true;
		k->ctr[k->n] = -1;
	}
	bool all_assigned = true;
	/* Explicit events before defaults, so a set that does not fit drops defaults first. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < nsel; i++) {
			struct lk_evsel *s = &sel[i];
			if (s->explicit != (pass == 0))
				continue;
			const char *names[] = { s->ev->name, NULL };
			kpep_event *ev = db_event(c->db, names);
			if (!ev) {
				s->err = -LK_ENOENT;
				lk_errbuf(s->why, sizeof(s->why), "'%s' is not in kperfdata's database for this cpu",
					  s->ev->name);
				k->cand_of[i] = SIZE_MAX;
				continue;
			}
			size_t j;
			for (j = 0; j < k->n && k->evs[j] != ev; j++)
				;
			k->cand_of[i] = j;
			if (j < k->n)
				continue;	/* the same event twice (e.g. fixed_instructions) */
			k->evs[j] = ev;
			k->fixed[j] = s->ev->fixed_counter >= 0;
			k->mask[j] = s->ev->counters_mask;
			k->ctr[j] = s->counter;
			all_assigned &= k->fixed[j] || s->counter >= 0;
			k->n++;
		}
	}
	if (!all_assigned)
		for (size_t j = 0; j < k->n; j++)
			k->ctr[j] = -1;
	return 0;
}

/* Add the candidates in k->order; returns how many the config took (k->pos: each one's position). */
static int add_all(struct kperf_config *c, struct lk_evsel *sel, size_t nsel, struct cands *k, char *err, size_t len)
{
	for (size_t j = 0; j < k->n; j++)
		k->pos[j] = SIZE_MAX;
	c->added = 0;
	for (size_t o = 0; o < k->n; o++) {
		size_t j = k->order[o];
		if (!k->placed[j])
			continue;
		uint32_t conflict = 0;
		kpep_event *ev = k->evs[j];
		int r = kperf_fn.kpep_config_add_event(c->cfg, &ev, 0, &conflict);
		if (r == 0) {
			k->pos[j] = c->added++;
			continue;
		}
		if (j < 2)	/* the fixed events are not optional */
			return kperf_kpep_error(r, errno, err, len);
		for (size_t i = 0; i < nsel; i++)
			if (k->cand_of[i] == j)
				sel[i].err = kperf_kpep_error(r, errno, sel[i].why, sizeof(sel[i].why));
	}
	for (size_t i = 0; i < nsel; i++) {
		if (k->cand_of[i] == SIZE_MAX || sel[i].err || k->placed[k->cand_of[i]])
			continue;
		sel[i].err = -LK_ESCHED;
		lk_errbuf(sel[i].why, sizeof(sel[i].why), "no counter left for it: its counters are all taken by the other events");
	}
	if (c->added > KPERF_MAX_COUNTERS) {
		lk_errbuf(err, len, "too many events for kpc (%zu)", c->added);
		return -LK_ESCHED;
	}
	return 0;
}

int kperf_config_build(struct kperf_config *c, struct lk_evsel *sel, size_t nsel, char *err, size_t len)
{
	const struct kperf_fns *f = &kperf_fn;
	memset(c, 0, sizeof(*c));
	c->nsel = nsel;
	c->slot = xcalloc(nsel ? nsel : 1, sizeof(*c->slot));
	c->role = xcalloc(nsel ? nsel : 1, sizeof(*c->role));
	for (size_t i = 0; i < nsel; i++)
		c->slot[i] = SIZE_MAX;
	uint32_t type = 0, subtype = 0, family = 0;
	/* CPU_TYPE_X86_64 (mach/machine.h: CPU_TYPE_X86 7 | CPU_ARCH_ABI64): the x86 word layout. */
	if (kperf_sys && kperf_sys->cpu_ids && kperf_sys->cpu_ids(&type, &subtype, &family) == 0)
		c->x86 = (type & 0xffffff) == 7;
	int r = f->kpep_db_create(NULL, &c->db);
	if (r)
		return kperf_kpep_error(r, errno, err, len);
	if ((r = f->kpep_config_create(c->db, &c->cfg)))
		return kperf_kpep_error(r, errno, err, len);
	if ((r = f->kpep_config_force_counters(c->cfg)) && r != 1)	/* 1: already forced */
		return kperf_kpep_error(r, errno, err, len);

	struct cands k;
	memset(&k, 0, sizeof(k));
	int ret = collect(c, sel, nsel, &k, err, len);
	if (ret == 0) {
		kperf_agg_order(k.mask, k.fixed, k.ctr, k.n, k.order, k.placed);
		ret = add_all(c, sel, nsel, &k, err, len);
	}
	size_t map[KPERF_MAX_COUNTERS];
	if (ret == 0 && ((r = f->kpep_config_kpc_classes(c->cfg, &c->classes)) ||
			 (r = f->kpep_config_kpc_map(c->cfg, map, sizeof(map)))))
		ret = kperf_kpep_error(r, errno, err, len);
	if (ret == 0) {
		for (size_t a = 0; a < c->added; a++)
			c->kpc[a] = map[a];
		c->cyc_idx = c->kpc[k.pos[0]];
		c->instr_idx = c->kpc[k.pos[1]];
		for (size_t i = 0; i < nsel; i++) {
			c->role[i] = KPERF_ROLE_SAMPLED;
			if (k.cand_of[i] == SIZE_MAX || sel[i].err || k.pos[k.cand_of[i]] == SIZE_MAX)
				continue;
			c->slot[i] = c->kpc[k.pos[k.cand_of[i]]];
			if (c->slot[i] < KPERF_MAX_COUNTERS && !c->name_at[c->slot[i]])
				c->name_at[c->slot[i]] = sel[i].ev->name;
			if (c->slot[i] == c->instr_idx)
				c->role[i] = KPERF_ROLE_INSTRUCTIONS;
			else if (c->slot[i] == c->cyc_idx)
				c->role[i] = KPERF_ROLE_CYCLES;
		}
	}
	cands_free(&k);
	return ret;
}

/* C2: a later read differs from what lauka programmed (or the kernel took at program time). */
static int differs(char *err, size_t len, const char *field, unsigned long long got, unsigned long long want)
{
	lk_errbuf(err, len, "kpc read-back: %s is 0x%llx, lauka programmed 0x%llx: another root process "
		  "reprogrammed the CPU counters (kpc has no owner); the samples would not be the events asked for",
		  field, got, want);
	return -LK_EBUSY;
}

/* The mode bits of an arm64 config word (xnu-11417.101.15 osfmk/arm64/kpc.c:181-185, CFGWORD_*). */
#define CFG_EL0A32 0x10000ull
#define CFG_EL0A64 0x20000ull
#define CFG_EL1 0x40000ull
#define CFG_MODES 0xf0000ull
/*
 * x86 IA32_PERFEVTSELx bits the kernel leaves as written: event select,
 * unit mask, E, INV, CMASK (kpc_x86.c:357-385 writes word & 0xffc7ffff);
 * not compared: USR/OS (mode), PC and AnyThread (cleared), INT and EN (set
 * by the kernel when counting, kpc_x86.c:280).
 */
#define X86_KEPT 0xff84ffffull

size_t kperf_config_fixed_words(bool x86)
{
	/* kpc_fixed_config_count(): osfmk/x86_64/kpc_x86.c:146 (1); osfmk/arm64/kpc.c:563 (0). */
	return x86 ? 1 : 0;
}

bool kperf_config_word_ok(uint64_t want, uint64_t got, uint64_t event_mask, bool x86)
{
	if (!want)
		return true;	/* an unused counter */
	if (x86)
		return (got & X86_KEPT) == (want & X86_KEPT);
	if ((got & event_mask) != (want & event_mask))
		return false;
	if (got & ~(event_mask | CFG_MODES))
		return false;	/* bits get_counter_config never sets */
	uint64_t asked = want & (CFG_EL0A32 | CFG_EL0A64 | CFG_EL1);
	/*
	 * kpc.c:328-331: no mode bits in a nonzero word counts EL0 (A64) on a
	 * release kernel, every mode where the kernel may be counted; so user
	 * mode is on whenever lauka asked for it or for nothing.  EL1 may be
	 * dropped (kpc.c:310, :319; secure on the user path,
	 * bsd/kern/kern_kpc.c:257), never added when asked for neither.
	 */
	if ((!asked || (asked & CFG_EL0A64)) && !(got & CFG_EL0A64))
		return false;
	if (asked && (got & (CFG_EL0A32 | CFG_EL0A64)) & ~asked)
		return false;
	return true;
}

static uint32_t field_of(uint64_t w, const struct kperf_config *c)
{
	return (uint32_t)(w & (c->x86 ? 0xffffull : c->event_mask));
}

int kperf_counter_count(uint32_t classes, uint32_t *out, char *err, size_t len)
{
	errno = 0;
	*out = kperf_fn.kpc_get_counter_count(classes);
	if (*out || !classes)
		return 0;
	/* 0 for a nonzero class set is kperf.framework's answer to a failed sysctl, not a count. */
	int e = errno ? errno : EIO;
	char tmp[200];
	int rc = kperf_errno_error("kpc_get_counter_count", e, tmp, sizeof(tmp));
	lk_errbuf(err, len, "%s (kperf.framework answers 0 when the kpc.counter_count sysctl fails)", tmp);
	return rc;
}

/* The counting classes through the seam with errno kept (the framework getters turn a failure into a sentinel). */
static int counting_class(const char *name, uint32_t (*fw)(void), uint32_t *out, char *err, size_t len)
{
	int v = 0;
	if (kperf_sys && kperf_sys->sysctl_int) {
		int r = kperf_sys->sysctl_int(name, NULL, &v);
		if (r < 0)
			return kperf_errno_error(name, -r, err, len);
		*out = (uint32_t)v;
		return 0;
	}
	*out = fw();
	return 0;
}

/*
 * Read the settings back.  At program time (!c->have_kernel_words) a word
 * is compared by its event field, and the kernel's answer becomes the
 * reference; later the words must equal that reference exactly.
 */
static int readback(struct kperf_config *c, bool later, char *err, size_t len)
{
	const struct kperf_fns *f = &kperf_fn;
	/* A class lauka needs switched off fails; an extra one changes the sample layout, which the count check catches. */
	uint32_t v = 0;
	int r;
	if ((r = counting_class("kpc.counting", f->kpc_get_counting, &v, err, len)))
		return r;
	if ((v & c->classes) != c->classes)
		return differs(err, len, "kpc_get_counting (counting classes)", v, c->classes);
	if ((r = counting_class("kpc.thread_counting", f->kpc_get_thread_counting, &v, err, len)))
		return r;
	if ((v & c->classes) != c->classes)
		return differs(err, len, "kpc_get_thread_counting (thread-counting classes)", v, c->classes);
	if (!c->words_read_back || !c->nwords)
		return 0;
	uint64_t got[KPERF_MAX_COUNTERS] = { 0 };
	errno = 0;
	r = f->kpc_get_config(c->classes, got);	/* the classes the words were written with */
	int e = kperf_call_errno(r, errno);
	if (e)
		return kperf_errno_error("kpc_get_config", e, err, len);
	size_t nfix = (c->classes & KPC_CLASS_FIXED_MASK) ? kperf_config_fixed_words(c->x86) : 0;
	/* kpc counter index of configurable word i: after the fixed counters (2 on arm64; x86: the fixed words' count differs, so none named). */
	size_t first_cfg = c->x86 ? SIZE_MAX : 2;
	if (later && c->have_kernel_words) {
		for (size_t i = 0; i < c->nwords; i++) {
			if (got[i] == c->kernel_words[i])
				continue;
			char field[96];
			if (i < nfix)
				snprintf(field, sizeof(field), "the fixed counters' control word");
			else
				snprintf(field, sizeof(field), "kpc_get_config word %zu", i);
			lk_errbuf(err, len, "kpc read-back: %s is 0x%llx, the kernel held 0x%llx when lauka programmed "
				  "it: another root process reprogrammed the CPU counters since (kpc has no owner); "
				  "the samples would not be the events asked for", field, (unsigned long long)got[i],
				  (unsigned long long)c->kernel_words[i]);
			return -LK_EBUSY;
		}
		return 0;
	}
	/* The fixed class's word (x86) is not lauka's to set: kpc_set_fixed_config is not implemented (kpc_x86.c:314-320). */
	for (size_t i = nfix; i < c->nwords; i++) {
		if (kperf_config_word_ok(c->words[i], got[i], c->event_mask, c->x86))
			continue;
		size_t ctr = first_cfg == SIZE_MAX ? SIZE_MAX : first_cfg + (i - nfix);
		const char *name = ctr < KPERF_MAX_COUNTERS ? c->name_at[ctr] : NULL;
		char where[64];
		if (ctr != SIZE_MAX)
			snprintf(where, sizeof(where), "counter %zu", ctr);
		else
			snprintf(where, sizeof(where), "configurable counter %zu", i - nfix);
		lk_errbuf(err, len, "kpc read-back: the kernel holds event 0x%x on %s (word 0x%llx), lauka programmed "
			  "0x%x%s%s%s: the kernel did not take the event as written, so lauka cannot count it here",
			  (unsigned)field_of(got[i], c), where, (unsigned long long)got[i],
			  (unsigned)field_of(c->words[i], c), name ? " (" : "", name ? name : "", name ? ")" : "");
		return -LK_ENOTSUP;
	}
	memcpy(c->kernel_words, got, sizeof(got));
	c->have_kernel_words = true;
	return 0;
}

int kperf_config_program(struct kperf_config *c, bool *forced, char *err, size_t len)
{
	const struct kperf_fns *f = &kperf_fn;
	size_t nwords = 0;
	int r;
	if ((r = f->kpep_config_kpc_count(c->cfg, &nwords)))
		return kperf_kpep_error(r, errno, err, len);
	uint64_t words[KPERF_MAX_COUNTERS] = { 0 };
	if (nwords > KPERF_MAX_COUNTERS) {
		lk_errbuf(err, len, "kperfdata wants %zu config words", nwords);
		return -LK_EINVAL;
	}
	if (nwords && (r = f->kpep_config_kpc(c->cfg, words, nwords * sizeof(uint64_t))))
		return kperf_kpep_error(r, errno, err, len);
	memcpy(c->words, words, sizeof(words));
	c->nwords = (c->classes & KPC_CLASS_CONFIGURABLE_MASK) ? nwords : 0;
	c->count_unforced = f->kpc_get_counter_count(c->classes);
	/*
	 * Forced once per process and kept until exit: releasing and forcing
	 * again within microseconds races the power manager's asynchronous
	 * acknowledgement (kpc_common.c kpc_pm_acknowledge), which can un-force
	 * them later and shift the sample layout (xnu-kperf.md F3).
	 */
	if (!*forced) {
		if ((r = KPERF_CALL(f->kpc_force_all_ctrs_set(1), "kpc_force_all_ctrs_set", err, len)))
			return r;
		*forced = true;
	}
	int v = 0;
	errno = 0;
	r = f->kpc_force_all_ctrs_get(&v);
	int e = kperf_call_errno(r, errno);
	if (e)
		return kperf_errno_error("kpc_force_all_ctrs_get", e, err, len);
	if (!v) {
		lk_errbuf(err, len, "kpc_force_all_ctrs_set(1) did not keep the counters forced (the power manager "
			  "took them back)");
		return -LK_EBUSY;
	}
	if ((c->classes & KPC_CLASS_CONFIGURABLE_MASK) && nwords &&
	    (r = KPERF_CALL(f->kpc_set_config(c->classes, words), "kpc_set_config", err, len))) {
		if (r == -LK_EPERM)	/* secure CPC: release kernels refuse events outside Apple's allow list */
			lk_errbuf(err, len, "kpc_set_config refused the events (EPERM): not allowed on this kernel");
		return r;
	}
	if ((r = KPERF_CALL(f->kpc_set_counting(c->classes), "kpc_set_counting", err, len)) ||
	    (r = KPERF_CALL(f->kpc_set_thread_counting(c->classes), "kpc_set_thread_counting", err, len)))
		return r;
	/* C2: read every setting back (the forcing was read back above). */
	c->words_read_back = f->kpc_get_config != NULL;
	c->have_kernel_words = false;
	if (!c->event_mask)
		c->event_mask = 0xff;	/* the narrowest PMESR field (kpc.c:160-166) when the caller knows no better */
	if ((r = readback(c, false, err, len)))
		return r;
	/*
	 * The values per thread sample: fixed by kpc_set_thread_counting from
	 * the counter count at that moment (kpc_thread.c), which grows from
	 * 2+5 to 2+8 on M1-M4 once the counters are forced (xnu-kperf.md F1).
	 */
	uint32_t thread_classes = 0;
	if ((r = counting_class("kpc.thread_counting", f->kpc_get_thread_counting, &thread_classes, err, len)))
		return r;
	uint32_t now = 0, frozen = 0;
	if ((r = kperf_counter_count(c->classes, &now, err, len)) ||
	    (r = kperf_counter_count(thread_classes, &frozen, err, len)))
		return r;
	if (now > KPERF_MAX_COUNTERS || now != frozen) {
		lk_errbuf(err, len, "kpc reports %u counters for classes 0x%x but thread samples carry %u", (unsigned)now,
			  (unsigned)c->classes, (unsigned)frozen);
		return -LK_ENOTSUP;
	}
	c->ncounters = now;
	for (size_t a = 0; a < c->added; a++)
		if (c->kpc[a] >= c->ncounters) {
			lk_errbuf(err, len, "kpep_config_kpc_map gave counter %zu of %zu", c->kpc[a], c->ncounters);
			return -LK_EINVAL;
		}
	return 0;
}

/*
 * R3 (audit 3): the forcing is checked once at program time, but a late
 * power-manager acknowledgement of an earlier release (kpc_common.c
 * kpc_pm_acknowledge sets force_all_ctrs from available_to_pm) can
 * un-force the counters later, between two lauka processes' force(0) and
 * force(1) or during a run; the samples then follow the unforced mask
 * (kpc_get_curcpu_counters) and PMC5-7 are the power manager's again.
 * Not observed (no Mac): inferred from XNU's source.
 */
int kperf_config_check(struct kperf_config *c, char *err, size_t len)
{
	const struct kperf_fns *f = &kperf_fn;
	int v = 0;
	errno = 0;
	int r = f->kpc_force_all_ctrs_get(&v);
	int e = kperf_call_errno(r, errno);
	if (e)
		return kperf_errno_error("kpc_force_all_ctrs_get", e, err, len);
	uint32_t now = 0;
	if ((r = kperf_counter_count(c->classes, &now, err, len)))
		return r;
	if (v && now == c->ncounters)
		return readback(c, true, err, len);
	lk_errbuf(err, len, "the kpc counters changed since lauka programmed them: forced %s, counter count "
		  "%zu, now %u (the power manager took counters back); the samples would not be the events asked for",
		  v ? "still" : "no longer", c->ncounters, (unsigned)now);
	return -LK_EBUSY;
}
