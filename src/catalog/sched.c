/*
 * catalog/sched.c: counter assignment by bipartite matching, smallest conflicting
 * subsets through Hall's theorem (a set of events fits exactly when every
 * subset S of it may use at least |S| counters; so a smallest set that does
 * not fit is a smallest S whose counters number fewer than |S|), and the
 * incompat labels derived from the catalogue's masks.
 */
#include "catalog/sched.h"
#include "base/error.h"
#include "base/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#define NCOUNTERS 64

struct item {
	size_t idx;		/* index into the caller's evs */
	uint64_t allowed;	/* counters it may use */
	int prefer;		/* its fixed counter, or -1 */
	bool pair;		/* takes even counter c of allowed and c + 1 (SCHED_PAIR) */
	int res;		/* shared register class (RES_*), or -1 */
	bool alone;		/* Intel's TakenAlone: no other event of class res beside it */
	const struct lk_event *ev;
};

static int popcount(uint64_t m)
{
	int n = 0;
	for (; m; m &= m - 1)
		n++;
	return n;
}

static uint64_t available(const struct lk_pmu *pmu)
{
	uint64_t a = pmu->fixed_mask | pmu->config_mask;
	return a ? a : ~UINT64_C(0);
}

/* Counters an event may use: its mask, and for a fixed event its fallback's mask too. */
static uint64_t allowed_of(const struct lk_pmu *pmu, const struct lk_event *ev, int *prefer)
{
	uint64_t m = ev->counters_mask & ~SCHED_PAIR;
	*prefer = -1;
	if (ev->fixed_counter >= 0 && ev->fixed_counter < NCOUNTERS) {
		/*
		 * Its own counter, or its fallback's: any other counter would be
		 * read as "program the fallback", so its own mask adds nothing.
		 */
		m = UINT64_C(1) << ev->fixed_counter;
		*prefer = ev->fixed_counter;
		const struct lk_event *fb = ev->fallback ? pmu_find_exact(pmu, ev->fallback) : NULL;
		if (fb && fb->fixed_counter < 0)
			m |= fb->counters_mask & ~SCHED_PAIR;
	}
	return m & available(pmu);
}

/*
 * Extra registers several events share (Intel; Linux's extra_regs in
 * arch/x86/events/intel/core.c): the offcore response value (MSR
 * 0x1a6/0x1a7, events 0xb7/0xbb, on Sapphire Rapids 0x2a/0x2b; two
 * registers, and the kernel moves an event to the free one), the load
 * latency threshold (MSR 0x3f6, event 0xcd) and the frontend value
 * (MSR_PEBS_FRONTEND 0x3f7: event 0xc6, on Sapphire Rapids also 0xc2 and
 * 0xad).  An event's value is its config1; events with different values
 * of one register cannot share a pass.  An event Intel marks TakenAlone
 * ("can only be sampled or counted by itself", intel/perfmon's README: every
 * FRONTEND_RETIRED.* and MEM_TRANS_RETIRED.LOAD_LATENCY_GT_*) shares its pass
 * with no other event of its register, even one of the same value; other
 * events may count beside it.
 */
enum { RES_OCR, RES_LDLAT, RES_FE, NRES };
static const unsigned res_cap[NRES] = { 2, 1, 1 };

static int resource_of(const struct lk_pmu *pmu, const struct lk_event *ev)
{
	/* Intel only: x86 and not AMD (whose events never carry a config1) */
	if (ev->perf_type != 4 || !pmu->arch || strcmp(pmu->arch, "x86_64") || (pmu->name && !strncmp(pmu->name, "amd", 3)))
		return -1;
	switch (ev->number & 0xff) {
	case 0xb7: case 0xbb: case 0x2a: case 0x2b:
		return RES_OCR;	/* a value of 0 holds the register too */
	}
	if (!ev->config1)
		return -1;
	switch (ev->number & 0xff) {
	case 0xcd:
		return RES_LDLAT;
	case 0xc6: case 0xc2: case 0xad:
		return RES_FE;
	default:
		return -1;
	}
}

const char *sched_shared_register(const struct lk_pmu *pmu, const struct lk_event *ev)
{
	static const char *const names[NRES] = { "offcore", "ldlat", "frontend" };
	int r = resource_of(pmu, ev);
	return r >= 0 ? names[r] : NULL;
}

/* The values of the shared registers one set of events holds. */
struct res_use {
	uint64_t value[NRES][2];
	unsigned n[NRES];	/* distinct values */
	unsigned count[NRES];	/* events */
	bool alone[NRES];	/* one of them is TakenAlone */
};

/* Whether item x fits u (and records it when add). */
static bool res_fits(struct res_use *u, const struct item *x, bool add)
{
	int r = x->res;
	if (r < 0)
		return true;
	if (u->alone[r] || (x->alone && u->count[r]))
		return false;
	bool have = false;
	for (unsigned i = 0; i < u->n[r] && !have; i++)
		have = u->value[r][i] == x->ev->config1;
	if (!have && u->n[r] >= res_cap[r])
		return false;
	if (add) {
		if (!have)
			u->value[r][u->n[r]++] = x->ev->config1;
		u->count[r]++;
		u->alone[r] |= x->alone;
	}
	return true;
}

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int px = popcount(x->allowed), py = popcount(y->allowed);
	if (px != py)
		return px - py;
	int c = strcmp(x->ev->name, y->ev->name);
	if (c)
		return c;
	if (x->allowed != y->allowed)
		return x->allowed < y->allowed ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The constrained events in canonical order; returns how many. */
static size_t collect(const struct lk_pmu *pmu, const struct lk_event *const *evs, size_t n, struct item *it)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!evs[i]->counters_mask && evs[i]->fixed_counter < 0)
			continue;
		it[k].idx = i;
		it[k].ev = evs[i];
		it[k].allowed = allowed_of(pmu, evs[i], &it[k].prefer);
		it[k].res = resource_of(pmu, evs[i]);
		it[k].alone = it[k].res >= 0 && (evs[i]->flags & LK_EVF_TAKEN_ALONE);
		it[k].pair = (evs[i]->counters_mask & SCHED_PAIR) && evs[i]->fixed_counter < 0;
		if (it[k].pair) {	/* an even counter whose odd partner exists */
			uint64_t a = available(pmu), even = 0;
			for (int c = 0; c + 1 < NCOUNTERS; c += 2)
				if ((it[k].allowed >> c & 1) && (a >> (c + 1) & 1))
					even |= UINT64_C(1) << c;
			it[k].allowed = even;
		}
		k++;
	}
	qsort(it, k, sizeof(*it), cmp_item);
	return k;
}

struct matching {
	int owner[NCOUNTERS];	/* item index holding each counter, or -1 */
	int seen[NCOUNTERS];
	int stamp;
};

static int try_counter(struct matching *m, const struct item *it, size_t i, int c);

static int augment(struct matching *m, const struct item *it, size_t i)
{
	if (it[i].prefer >= 0 && try_counter(m, it, i, it[i].prefer))
		return 1;
	for (int c = 0; c < NCOUNTERS; c++)
		if (c != it[i].prefer && try_counter(m, it, i, c))
			return 1;
	return 0;
}

static int try_counter(struct matching *m, const struct item *it, size_t i, int c)
{
	if (!(it[i].allowed >> c & 1) || m->seen[c] == m->stamp)
		return 0;
	m->seen[c] = m->stamp;
	if (m->owner[c] < 0 || augment(m, it, (size_t)m->owner[c])) {
		m->owner[c] = (int)i;
		return 1;
	}
	return 0;
}

/* Match the items listed in sel (indices into it); returns how many got a counter. */
static size_t match(const struct item *it, const size_t *sel, size_t n, struct matching *m)
{
	size_t got = 0;
	memset(m->seen, 0, sizeof(m->seen));
	m->stamp = 0;
	for (int c = 0; c < NCOUNTERS; c++)
		m->owner[c] = -1;
	for (size_t k = 0; k < n; k++) {
		m->stamp++;
		got += (size_t)augment(m, it, sel[k]);
	}
	return got;
}

/*
 * With pair events (SCHED_PAIR) a set is no longer a plain bipartite
 * matching: each pair event is placed on an even counter and its partner
 * (depth-first, at most NCOUNTERS / 2 of them fit), and the single-counter
 * events are matched on the counters left.  Pairs are few (AMD event
 * 0x003's umasks, 6 counters), so the search stays small.
 */
static bool place_pairs(const struct item *it, const size_t *pairs, size_t np, size_t k, uint64_t used,
			const size_t *singles, size_t ns, struct matching *m)
{
	if (k == np) {
		struct item *tmp = xcalloc(ns ? ns : 1, sizeof(*tmp));
		size_t *sel = xcalloc(ns ? ns : 1, sizeof(*sel));
		for (size_t i = 0; i < ns; i++) {
			tmp[i] = it[singles[i]];
			tmp[i].allowed &= ~used;
			if (tmp[i].prefer >= 0 && (used >> tmp[i].prefer & 1))
				tmp[i].prefer = -1;
			sel[i] = i;
		}
		bool ok = match(tmp, sel, ns, m) == ns;
		if (ok)	/* back to the caller's item indices */
			for (int c = 0; c < NCOUNTERS; c++)
				if (m->owner[c] >= 0)
					m->owner[c] = (int)singles[m->owner[c]];
		free(tmp);
		free(sel);
		return ok;
	}
	const struct item *p = &it[pairs[k]];
	for (int c = 0; c + 1 < NCOUNTERS; c += 2) {
		uint64_t two = UINT64_C(3) << c;
		if (!(p->allowed >> c & 1) || (used & two))
			continue;
		if (place_pairs(it, pairs, np, k + 1, used | two, singles, ns, m)) {
			m->owner[c] = m->owner[c + 1] = (int)pairs[k];
			return true;
		}
	}
	return false;
}

/* match() for any items, pairs included: true when every item got its counter(s). */
static bool match_all(const struct item *it, const size_t *sel, size_t n, struct matching *m)
{
	size_t np = 0;
	for (size_t i = 0; i < n; i++)
		np += it[sel[i]].pair;
	if (!np)
		return match(it, sel, n, m) == n;
	if (np > NCOUNTERS / 2)
		return false;
	size_t *pairs = xcalloc(np, sizeof(*pairs)), *singles = xcalloc(n, sizeof(*singles)), ns = 0;
	np = 0;
	for (size_t i = 0; i < n; i++) {
		if (it[sel[i]].pair)
			pairs[np++] = sel[i];
		else
			singles[ns++] = sel[i];
	}
	bool ok = place_pairs(it, pairs, np, 0, 0, singles, ns, m);
	free(pairs);
	free(singles);
	return ok;
}

static bool fits(const struct item *it, const size_t *sel, size_t n)
{
	struct matching m;
	return match_all(it, sel, n, &m);
}

/* A conflicting subset minimal by inclusion, by deletion (sets with pair events, where Hall's bound does not hold). */
static size_t irreducible_conflict(const struct item *it, size_t n, size_t *out)
{
	size_t nk = n;
	size_t *trial = xcalloc(n ? n : 1, sizeof(*trial));
	for (size_t i = 0; i < n; i++)
		out[i] = i;
	for (size_t r = nk; r-- > 0;) {
		size_t nt = 0;
		for (size_t j = 0; j < nk; j++)
			if (j != r)
				trial[nt++] = out[j];
		if (!fits(it, trial, nt)) {
			memcpy(out, trial, nt * sizeof(*trial));
			nk = nt;
		}
	}
	free(trial);
	return nk;
}

/* Next k-combination of 0..n-1 in lexicographic order; false after the last. */
static bool next_comb(size_t *c, size_t k, size_t n)
{
	size_t i = k;
	while (i > 0 && c[i - 1] == n - k + i - 1)
		i--;
	if (i == 0)
		return false;
	c[i - 1]++;
	for (size_t j = i; j < k; j++)
		c[j] = c[j - 1] + 1;
	return true;
}

static int cmp_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * Smallest Hall violator among the items: the first (canonical order) k-subset
 * whose allowed counters number fewer than k, for the smallest such k.  The
 * enumeration is bounded; past the bound the irreducible set found by
 * deletion is used, which is minimal by inclusion if not by size.
 */
static size_t smallest_conflict(const struct item *it, size_t n, size_t *out)
{
	/*
	 * Start from the items the failed augmenting search visited: the item
	 * that found no counter and the owners of every counter the search
	 * reached.  Their counters are exactly those, one fewer than the items,
	 * so they violate Hall's condition, and there are at most NCOUNTERS + 1
	 * of them: the deletion below is then quick however many events were
	 * asked for (over all of them it was quadratic: 10,000 events, 36 s).
	 */
	size_t *keep = xcalloc(n, sizeof(*keep)), nk = 0;
	struct matching m;
	memset(m.seen, 0, sizeof(m.seen));
	m.stamp = 0;
	for (int c = 0; c < NCOUNTERS; c++)
		m.owner[c] = -1;
	for (size_t i = 0; i < n; i++) {
		m.stamp++;
		if (augment(&m, it, i))
			continue;
		for (int c = 0; c < NCOUNTERS; c++)
			if (m.seen[c] == m.stamp && m.owner[c] >= 0)
				keep[nk++] = (size_t)m.owner[c];
		keep[nk++] = i;
		break;
	}
	if (!nk) {	/* every item matched: not called so; keep the old behaviour of all items */
		for (size_t i = 0; i < n; i++)
			keep[nk++] = i;
	}
	qsort(keep, nk, sizeof(*keep), cmp_index);
	size_t *trial = xcalloc(nk ? nk : 1, sizeof(*trial));
	for (size_t r = nk; r-- > 0;) {
		size_t i = keep[r], nt = 0;
		for (size_t j = 0; j < nk; j++)
			if (keep[j] != i)
				trial[nt++] = keep[j];
		if (nt < nk && !fits(it, trial, nt)) {
			memcpy(keep, trial, nt * sizeof(*trial));
			nk = nt;
		}
	}
	free(trial);
	size_t best = nk;
	memcpy(out, keep, nk * sizeof(*keep));
	free(keep);

	unsigned long budget = 2000000;
	size_t c[NCOUNTERS + 1];
	for (size_t k = 1; k < best && k <= NCOUNTERS; k++) {
		for (size_t j = 0; j < k; j++)
			c[j] = j;
		do {
			if (!budget--)
				return best;
			uint64_t u = 0;
			for (size_t j = 0; j < k; j++)
				u |= it[c[j]].allowed;
			if ((size_t)popcount(u) < k) {
				memcpy(out, c, k * sizeof(*c));
				return k;
			}
		} while (next_comb(c, k, n));
	}
	return best;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

int sched_assign(const struct lk_pmu *pmu, const struct lk_event *const *evs, size_t n,
		 int *counter, struct sched_conflict *conflict)
{
	struct item *it = xcalloc(n, sizeof(*it));
	size_t k = collect(pmu, evs, n, it);
	size_t *sel = xcalloc(k, sizeof(*sel));
	for (size_t i = 0; i < k; i++)
		sel[i] = i;
	for (size_t i = 0; i < n; i++)
		counter[i] = -1;
	if (conflict)
		conflict->n = 0;
	struct matching m;
	int rc = 0;
	bool pairs = false;
	for (size_t i = 0; i < k; i++)
		pairs |= it[i].pair;
	struct res_use use = { 0 };
	size_t over = SIZE_MAX;	/* an item whose register value does not fit */
	for (size_t i = 0; i < k && over == SIZE_MAX; i++)
		if (!res_fits(&use, &it[i], true))
			over = i;
	if (over != SIZE_MAX && (it[over].alone || use.alone[it[over].res])) {
		/* a TakenAlone event and another of its register: the pair is the conflict */
		rc = -LK_ESCHED;
		if (conflict) {
			size_t j = SIZE_MAX;
			for (size_t i = 0; i < over; i++)
				if (it[i].res == it[over].res && (j == SIZE_MAX || (it[i].alone && !it[j].alone)))
					j = i;
			conflict->idx[conflict->n++] = it[over].idx;
			if (j != SIZE_MAX)
				conflict->idx[conflict->n++] = it[j].idx;
			qsort(conflict->idx, conflict->n, sizeof(conflict->idx[0]), cmp_size);
		}
	} else if (over != SIZE_MAX) {
		/* the register's capacity plus one events of distinct values: the smallest conflict */
		rc = -LK_ESCHED;
		if (conflict) {
			int r = it[over].res;
			for (size_t i = 0; i < k && conflict->n < SCHED_MAX_CONFLICT; i++) {
				if (it[i].res != r)
					continue;
				bool dup = false;
				for (size_t j = 0; j < conflict->n; j++)
					dup |= evs[conflict->idx[j]]->config1 == it[i].ev->config1;
				if (!dup && conflict->n <= res_cap[r])
					conflict->idx[conflict->n++] = it[i].idx;
			}
			qsort(conflict->idx, conflict->n, sizeof(conflict->idx[0]), cmp_size);
		}
	} else if (match_all(it, sel, k, &m)) {
		for (int c = 0; c < NCOUNTERS; c++)	/* a pair event is shown on its even counter */
			if (m.owner[c] >= 0 && counter[it[m.owner[c]].idx] < 0)
				counter[it[m.owner[c]].idx] = c;
	} else {
		rc = -LK_ESCHED;
		size_t *sub = xcalloc(k, sizeof(*sub));
		size_t ns = pairs ? irreducible_conflict(it, k, sub) : smallest_conflict(it, k, sub);
		if (conflict) {
			for (size_t i = 0; i < ns && conflict->n < SCHED_MAX_CONFLICT; i++)
				conflict->idx[conflict->n++] = it[sub[i]].idx;
			qsort(conflict->idx, conflict->n, sizeof(conflict->idx[0]), cmp_size);
		}
		free(sub);
	}
	free(sel);
	free(it);
	return rc;
}

/*
 * A lower bound on the passes the items need: for each distinct allowed mask
 * m, the items confined to m need |items| / |m| passes (Hall's condition over
 * the catalogue's groups), and a shared register's distinct values need
 * values / capacity.  Only the first PASS_MASKS distinct masks are looked at,
 * so it stays linear in the items.
 */
#define PASS_MASKS 64

static int cmp_u64v(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static size_t passes_bound(const struct item *it, size_t k)
{
	uint64_t masks[PASS_MASKS];
	size_t nm = 0, bound = k ? 1 : 0;
	for (size_t i = 0; i < k && nm < PASS_MASKS; i++) {
		size_t j;
		for (j = 0; j < nm && masks[j] != it[i].allowed; j++)
			;
		if (j == nm && it[i].allowed)
			masks[nm++] = it[i].allowed;
	}
	for (size_t j = 0; j < nm; j++) {
		size_t in = 0, w = (size_t)popcount(masks[j]);
		for (size_t i = 0; i < k; i++)
			in += (it[i].allowed & ~masks[j]) == 0 ? (it[i].pair ? 2 : 1) : 0;
		if (w && (in + w - 1) / w > bound)
			bound = (in + w - 1) / w;
	}
	for (int r = 0; r < NRES; r++) {
		uint64_t *v = xcalloc(k ? k : 1, sizeof(*v));
		size_t nv = 0, distinct = 0;
		for (size_t i = 0; i < k; i++)
			if (it[i].res == r)
				v[nv++] = it[i].ev->config1;
		qsort(v, nv, sizeof(*v), cmp_u64v);
		for (size_t i = 0; i < nv; i++)
			distinct += !i || v[i] != v[i - 1];
		free(v);
		if ((distinct + res_cap[r] - 1) / res_cap[r] > bound)
			bound = (distinct + res_cap[r] - 1) / res_cap[r];
		size_t alone = 0;	/* each TakenAlone event of the register takes a pass of its own */
		for (size_t i = 0; i < k; i++)
			alone += it[i].res == r && it[i].alone;
		if (alone > bound)
			bound = alone;
	}
	return bound;
}

/*
 * Passes, most constrained event first.  As many passes as the lower bound
 * are opened at once, and each event goes to the pass with the fewest events
 * that has a free counter it may use and room in the shared registers it
 * needs, so the scarce kinds (an offcore pair, the one frontend value) spread
 * over the passes instead of each opening one at the end.  Failing that, the
 * first pass where an augmenting search makes room (at most PASS_TRIES of
 * them), else a new pass.  Each pass keeps its matching and a mask of the
 * counters it uses, so an event costs a scan of the passes' masks: about
 * linear in the events (20,000 events: a fraction of a second).  Passes
 * holding pair events (AMD 0x003) are matched again from scratch.
 */
#define PASS_TRIES 64

size_t sched_passes(const struct lk_pmu *pmu, const struct lk_event *const *evs, size_t n, size_t *pass_of)
{
	struct item *it = xcalloc(n ? n : 1, sizeof(*it));
	size_t k = collect(pmu, evs, n, it);
	for (size_t i = 0; i < n; i++)
		pass_of[i] = 0;
	struct pass {
		struct matching m;
		uint64_t used;
		size_t *items, nitems;
		bool pairs;
		struct res_use use;
	} *ps = xcalloc(k + 1, sizeof(*ps));
	size_t nps = 0;
	size_t *sel = xcalloc(k + 1, sizeof(*sel));
	size_t *where = xcalloc(k + 1, sizeof(*where));
	size_t bound = passes_bound(it, k);
	for (; nps < bound && nps < k; nps++)
		for (int c = 0; c < NCOUNTERS; c++)
			ps[nps].m.owner[c] = -1;
	for (size_t i = 0; i < k; i++) {
		size_t p = SIZE_MAX;
		/* a free counter it may use, in the emptiest pass */
		if (!it[i].pair) {
			for (size_t q = 0; q < nps; q++) {
				const struct pass *x = &ps[q];
				if (x->pairs || !(it[i].allowed & ~x->used) ||
				    !res_fits((struct res_use *)&x->use, &it[i], false))
					continue;
				if (p == SIZE_MAX || x->nitems < ps[p].nitems)
					p = q;
			}
			if (p != SIZE_MAX) {
				struct pass *x = &ps[p];
				uint64_t free = it[i].allowed & ~x->used;
				int c = it[i].prefer >= 0 && (free >> it[i].prefer & 1) ? it[i].prefer : __builtin_ctzll(free);
				x->m.owner[c] = (int)i;
				x->used |= UINT64_C(1) << c;
			}
		}
		/* else room made by moving events of a pass to other counters */
		size_t tries = 0;
		for (size_t q = 0; p == SIZE_MAX && q < nps && tries < PASS_TRIES; q++) {
			struct pass *x = &ps[q];
			if (!res_fits(&x->use, &it[i], false))
				continue;
			tries++;
			bool ok;
			if (!x->pairs && !it[i].pair) {
				x->m.stamp++;
				ok = augment(&x->m, it, i);
			} else {
				if (x->nitems)	/* a pass opened up to the bound may hold nothing yet */
					memcpy(sel, x->items, x->nitems * sizeof(*sel));
				sel[x->nitems] = i;
				struct matching m;
				ok = match_all(it, sel, x->nitems + 1, &m);
			}
			if (ok)
				p = q;
		}
		if (p == SIZE_MAX) {	/* a new pass; an event that fits nowhere on its own still needs one */
			p = nps++;
			struct pass *x = &ps[p];
			for (int c = 0; c < NCOUNTERS; c++)
				x->m.owner[c] = -1;
			x->m.stamp = 1;
			if (!it[i].pair)
				augment(&x->m, it, i);
		}
		struct pass *x = &ps[p];
		res_fits(&x->use, &it[i], true);
		x->items = xrealloc(x->items, (x->nitems + 1) * sizeof(*x->items));
		x->items[x->nitems++] = i;
		x->pairs |= it[i].pair;
		x->used = 0;
		for (int c = 0; c < NCOUNTERS; c++)
			if (x->m.owner[c] >= 0)
				x->used |= UINT64_C(1) << c;
		where[i] = p;
	}
	/* passes left empty (the bound was above what was needed) are dropped; numbered in order */
	size_t *renum = xcalloc(nps + 1, sizeof(*renum)), npass = 0;
	for (size_t q = 0; q < nps; q++)
		renum[q] = ps[q].nitems ? npass++ : SIZE_MAX;
	for (size_t i = 0; i < k; i++)
		pass_of[it[i].idx] = renum[where[i]];
	if (!npass && n)
		npass = 1;
	for (size_t q = 0; q < nps; q++)
		free(ps[q].items);
	free(renum);
	free(where);
	free(ps);
	free(sel);
	free(it);
	return npass;
}

size_t sched_passes_parts(const struct lk_pmu *pmu, const struct lk_event *const *evs, const int *part, size_t n,
			  int host, size_t *pass_of, int *pass_part)
{
	const struct lk_event **sub = xcalloc(n ? n : 1, sizeof(*sub));
	size_t *idx = xcalloc(n ? n : 1, sizeof(*idx)), *sub_pass = xcalloc(n ? n : 1, sizeof(*sub_pass));
	size_t npasses = 0;
	int last = -2;	/* the part planned last: parts in increasing order, each once */
	for (;;) {
		int next = INT_MAX;
		for (size_t i = 0; i < n; i++) {
			int q = part[i] < 0 ? host : part[i];
			if (q > last && q < next)
				next = q;
		}
		if (next == INT_MAX)
			break;
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if ((part[i] < 0 ? host : part[i]) == next) {
				idx[k] = i;
				sub[k++] = evs[i];
			}
		size_t np = sched_passes(pmu, sub, k, sub_pass);
		for (size_t j = 0; j < k; j++)
			pass_of[idx[j]] = npasses + sub_pass[j];
		for (size_t q = 0; q < np; q++)
			pass_part[npasses + q] = next;
		npasses += np;
		last = next;
	}
	free(sub);
	free(idx);
	free(sub_pass);
	return npasses;
}

size_t sched_pass_size(const size_t *pass_of, size_t n, size_t p)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += pass_of[i] == p;
	return k;
}

size_t sched_split_pass(size_t *pass_of, size_t n, size_t p, size_t npasses)
{
	size_t size = sched_pass_size(pass_of, n, p);
	if (size < 2)
		return npasses;
	size_t seen = 0;
	for (size_t i = 0; i < n; i++)
		if (pass_of[i] == p && seen++ >= size / 2)
			pass_of[i] = npasses;
	return npasses + 1;
}

static const char *group_label(int size, char *buf, size_t len)
{
	static const char *const names[] = { NULL, "pair", "triple", "quad" };
	if (size >= 1 && size <= 3)
		return names[size];
	snprintf(buf, len, "group%d", size);
	return buf;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Groups by size, then by mask, so labels are stable. */
static int cmp_group(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	int px = popcount(x), py = popcount(y);
	if (px != py)
		return px - py;
	return x < y ? -1 : x > y;
}

/*
 * Sum over subsets on the bits the masks use, when they use few: inside[g]
 * for every g at once in O(b 2^b), independent of the number of events.
 */
#define SOS_MAX_BITS 16

static uint64_t compress(uint64_t m, uint64_t universe)
{
	uint64_t r = 0;
	int k = 0;
	for (int i = 0; i < NCOUNTERS; i++)
		if (universe >> i & 1) {
			if (m >> i & 1)
				r |= UINT64_C(1) << k;
			k++;
		}
	return r;
}

void sched_groups_init(const struct lk_pmu *pmu, struct sched_groups *g)
{
	memset(g, 0, sizeof(*g));
	int full = popcount(pmu->config_mask);
	if (!full)
		return;
	/* Distinct non-zero masks with how many events have each: O(n log n). */
	uint64_t *m = xcalloc(pmu->nevents + 1, sizeof(*m));
	size_t n = 0;
	for (size_t i = 0; i < pmu->nevents; i++)
		if (pmu->events[i].counters_mask & ~SCHED_PAIR)
			m[n++] = pmu->events[i].counters_mask & ~SCHED_PAIR;
	qsort(m, n, sizeof(*m), cmp_u64);
	size_t d = 0;
	size_t *cnt = xcalloc(n + 1, sizeof(*cnt));
	uint64_t universe = 0;
	for (size_t i = 0; i < n; i++) {
		if (!d || m[d - 1] != m[i]) {
			m[d] = m[i];
			cnt[d++] = 0;
		}
		cnt[d - 1]++;
		universe |= m[i];
	}
	int bits = popcount(universe);
	size_t *sos = NULL;
	if (bits <= SOS_MAX_BITS) {
		sos = xcalloc((size_t)1 << bits, sizeof(*sos));
		for (size_t i = 0; i < d; i++)
			sos[compress(m[i], universe)] += cnt[i];
		for (int b = 0; b < bits; b++)
			for (size_t x = 0; x < (size_t)1 << bits; x++)
				if (x >> b & 1)
					sos[x] += sos[x ^ ((size_t)1 << b)];
	}
	for (size_t i = 0; i < d; i++) {
		int size = popcount(m[i]);
		if (size >= full)
			continue;
		size_t inside = 0;
		if (sos)
			inside = sos[compress(m[i], universe)];
		else	/* masks over more than SOS_MAX_BITS counters: pairwise over the distinct masks */
			for (size_t j = 0; j < d; j++)
				if (!(m[j] & ~m[i]))
					inside += cnt[j];
		if (inside > (size_t)size) {
			g->mask = xrealloc(g->mask, (g->n + 1) * sizeof(*g->mask));
			g->mask[g->n++] = m[i];
		}
	}
	if (g->n > 1)
		qsort(g->mask, g->n, sizeof(*g->mask), cmp_group);
	g->full = full;
	free(sos);
	free(cnt);
	free(m);
}

void sched_groups_release(struct sched_groups *g)
{
	free(g->mask);
	memset(g, 0, sizeof(*g));
}

const char *sched_incompat_in(const struct sched_groups *g, const struct lk_event *ev, char *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	char tmp[24];
	const char *prev = NULL;
	size_t ng = 0;
	uint64_t mask = ev->counters_mask & ~SCHED_PAIR;
	for (size_t i = 0; mask && i < g->n; i++) {
		if (mask & ~g->mask[i])
			continue;
		ng++;
		const char *l = group_label(popcount(g->mask[i]), tmp, sizeof(tmp));
		if (prev && !strcmp(prev, l))
			continue;
		strbuf_addf(&sb, "%s%s", sb.len ? "," : "", l);
		prev = sb.buf + sb.len - strlen(l);
	}
	snprintf(buf, len, "%s", ng ? strbuf_str(&sb) : "none");
	strbuf_release(&sb);
	return buf;
}

const char *sched_incompat(const struct lk_pmu *pmu, const struct lk_event *ev, char *buf, size_t len)
{
	struct sched_groups g;
	sched_groups_init(pmu, &g);
	sched_incompat_in(&g, ev, buf, len);
	sched_groups_release(&g);
	return buf;
}

char *sched_conflict_names(const struct lk_event *const *evs, const struct sched_conflict *conflict)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < conflict->n; i++) {
		char *name = pmu_display_name(evs[conflict->idx[i]]->name);
		strbuf_addf(&sb, "%s%s", i ? ", " : "", name);
		free(name);
	}
	return sb.buf ? sb.buf : xstrdup("");
}
