/* backend/kperf/agg.c: thread-sample aggregation, scope check, scaling, add order (see backend/kperf/agg.h). */
#include "backend/kperf/agg.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kperf_agg_init(struct kperf_agg *a, size_t ncounters, enum kperf_base base)
{
	memset(a, 0, sizeof(*a));
	a->base = base;
	a->ncounters = ncounters > KPERF_MAX_COUNTERS ? KPERF_MAX_COUNTERS : ncounters;
}

void kperf_agg_release(struct kperf_agg *a)
{
	free(a->threads);
	a->threads = NULL;
	a->nthreads = a->cap = 0;
}

void kperf_agg_reset(struct kperf_agg *a)
{
	a->nthreads = 0;
	a->records = a->dropped = a->lost = a->starts = a->ends = a->suspect = 0;
	a->suspect_why[0] = '\0';
}

static struct kperf_thread *thread_of(struct kperf_agg *a, uint64_t tid)
{
	/* Newest first: consecutive records nearly always belong to a recent thread. */
	for (size_t i = a->nthreads; i-- > 0;)
		if (a->threads[i].tid == tid)
			return &a->threads[i];
	if (a->nthreads == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 16;
		a->threads = xrealloc(a->threads, a->cap * sizeof(*a->threads));
	}
	struct kperf_thread *t = &a->threads[a->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

/* C3: does t's new sample (pending) drop or jump against its last one?  Counted, the first one described. */
static void monotonic_check(struct kperf_agg *a, const struct kperf_thread *t)
{
	if (t->nsamples == 0)
		return;
	for (size_t c = 0; c < a->ncounters; c++) {
		uint64_t was = t->last[c], now = t->pending[c];
		if (now >= was && now - was <= KPERF_MAX_RISE)
			continue;
		if (!a->suspect++)
			snprintf(a->suspect_why, sizeof(a->suspect_why), "counter %zu of thread %llu %s from %llu to %llu "
				 "in one sample", c, (unsigned long long)t->tid, now < was ? "dropped" : "jumped",
				 (unsigned long long)was, (unsigned long long)now);
		return;
	}
}

static void sample_done(struct kperf_agg *a, struct kperf_thread *t)
{
	monotonic_check(a, t);
	if (t->nsamples == 0)
		memcpy(t->first, t->pending, a->ncounters * sizeof(uint64_t));
	memcpy(t->last, t->pending, a->ncounters * sizeof(uint64_t));
	t->nsamples++;
	t->assembling = false;
	t->npending = 0;
}

void kperf_agg_feed(struct kperf_agg *a, const struct kperf_kdbuf *recs, size_t n)
{
	if (!a->ncounters)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct kperf_kdbuf *r = &recs[i];
		if (r->debugid == KPERF_TRACE_LOST_EVENTS) {
			a->lost++;
			for (size_t t = 0; t < a->nthreads; t++) {
				if (a->threads[t].assembling)
					a->dropped++;
				a->threads[t].assembling = false;
				a->threads[t].npending = 0;
			}
			continue;
		}
		if ((r->debugid & ~KPERF_FUNC_MASK) != KPERF_DEBUGID_THREAD)
			continue;
		a->records++;
		struct kperf_thread *t = thread_of(a, r->tid);
		unsigned fn = r->debugid & KPERF_FUNC_MASK;
		a->starts += (fn & KPERF_FUNC_START) != 0;
		a->ends += (fn & KPERF_FUNC_END) != 0;
		if (fn & KPERF_FUNC_START) {
			if (t->assembling)	/* the previous sample never ended */
				a->dropped++;
			t->assembling = true;
			t->npending = 0;
		} else if (!t->assembling) {
			/* A record without DBG_FUNC_START starts a sample too when none is open. */
			t->assembling = true;
			t->npending = 0;
		}
		for (size_t k = 0; k < 4 && t->npending < a->ncounters; k++)
			t->pending[t->npending++] = r->arg[k];
		if (t->npending >= a->ncounters)
			sample_done(a, t);
		else if (fn & KPERF_FUNC_END) {
			a->dropped++;	/* ended before all counters arrived */
			t->assembling = false;
			t->npending = 0;
		}
	}
}

void kperf_agg_total(const struct kperf_agg *a, uint64_t *out)
{
	memset(out, 0, a->ncounters * sizeof(uint64_t));
	for (size_t i = 0; i < a->nthreads; i++) {
		const struct kperf_thread *t = &a->threads[i];
		if (a->base == KPERF_BASE_ZERO) {
			if (t->nsamples)
				for (size_t c = 0; c < a->ncounters; c++)
					out[c] += t->last[c];
			continue;
		}
		if (t->nsamples < 2)
			continue;
		for (size_t c = 0; c < a->ncounters; c++)
			if (t->last[c] > t->first[c])
				out[c] += t->last[c] - t->first[c];
	}
}

size_t kperf_agg_threads_counted(const struct kperf_agg *a)
{
	size_t n = 0;
	size_t need = a->base == KPERF_BASE_ZERO ? 1 : 2;
	for (size_t i = 0; i < a->nthreads; i++)
		n += a->threads[i].nsamples >= need;
	return n;
}

enum kperf_scope kperf_agg_scope(uint64_t sampled_instr, uint64_t rusage_instr, double *coverage)
{
	*coverage = 0;
	if (rusage_instr == 0)
		return KPERF_SCOPE_NORUSAGE;
	if (sampled_instr == 0)
		return KPERF_SCOPE_NONE;
	double c = (double)sampled_instr / (double)rusage_instr;
	if (c > 1 + KPERF_SCOPE_OVER_TOLERANCE) {
		*coverage = c;
		return KPERF_SCOPE_OVER;
	}
	if (sampled_instr >= rusage_instr) {
		*coverage = 1;
		return KPERF_SCOPE_FULL;
	}
	*coverage = c;
	return KPERF_SCOPE_PARTIAL;
}

uint64_t kperf_agg_scale(uint64_t value, uint64_t sampled_instr, uint64_t rusage_instr)
{
	if (!sampled_instr)
		return value;
	return (uint64_t)((double)value * (double)rusage_instr / (double)sampled_instr + 0.5);
}

/* Kuhn's augmenting path: try to give event e a counter, moving others. */
static bool augment(size_t e, const uint64_t *mask, int *owner, bool *seen)
{
	for (int c = 0; c < 64; c++) {
		if (!(mask[e] >> c & 1) || seen[c])
			continue;
		seen[c] = true;
		if (owner[c] < 0 || augment((size_t)owner[c], mask, owner, seen)) {
			owner[c] = (int)e;
			return true;
		}
	}
	return false;
}

size_t kperf_agg_order(const uint64_t *mask, const bool *fixed, const int *counter, size_t n,
		       size_t *order, bool *placed)
{
	int *ctr = xcalloc(n ? n : 1, sizeof(int));
	bool need_match = false;
	for (size_t i = 0; i < n; i++) {
		ctr[i] = counter ? counter[i] : -1;
		placed[i] = true;
		need_match |= !fixed[i] && ctr[i] < 0;
	}
	if (need_match) {
		int owner[64];
		for (int c = 0; c < 64; c++)
			owner[c] = -1;
		for (size_t i = 0; i < n; i++) {
			if (fixed[i])
				continue;
			bool seen[64] = { false };
			placed[i] = augment(i, mask, owner, seen);
		}
		for (int c = 0; c < 64; c++)
			if (owner[c] >= 0)
				ctr[owner[c]] = c;
	}
	size_t unplaced = 0;
	for (size_t i = 0; i < n; i++) {
		order[i] = i;
		unplaced += !placed[i];
	}
	/* Insertion sort: placed before unplaced, fixed first, then by counter; stable. */
	for (size_t i = 1; i < n; i++) {
		size_t v = order[i], j = i;
		while (j > 0) {
			size_t u = order[j - 1];
			bool before = placed[v] != placed[u] ? placed[v]
				    : fixed[v] != fixed[u] ? fixed[v]
				    : ctr[v] < ctr[u];
			if (!before)
				break;
			order[j] = u;
			j--;
		}
		order[j] = v;
	}
	free(ctr);
	return unplaced;
}
