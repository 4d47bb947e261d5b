/* backend/xctrace/agg.c: manual sums, guided per-thread snapshot deltas, and slot naming (see backend/xctrace/agg.h). */
#include "backend/xctrace/agg.h"
#include "base/error.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void xct_sum_init(struct xct_sum *s, int64_t pid, size_t nvalues, bool guided, uint64_t period_ns)
{
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->nvalues = nvalues;
	s->guided = guided;
	s->period_ns = period_ns ? period_ns : 1000000;
	s->halves_equal = true;
}

void xct_sum_release(struct xct_sum *s)
{
	free(s->threads);
	free(s->cores);
	s->threads = NULL;
	s->cores = NULL;
	s->nthreads = s->ncores = 0;
}

static struct xct_thread *thread_of(struct xct_sum *s, int64_t tid)
{
	for (size_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == tid)
			return &s->threads[i];
	s->threads = xrealloc(s->threads, (s->nthreads + 1) * sizeof(*s->threads));
	struct xct_thread *t = &s->threads[s->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

/* The sequence number of the last sample seen on a core (any process), 0 when none. */
static size_t *core_slot(struct xct_sum *s, int64_t core)
{
	for (size_t i = 0; i < s->ncores; i++)
		if (s->cores[i].core == core)
			return &s->cores[i].last_seq;
	s->cores = xrealloc(s->cores, (s->ncores + 1) * sizeof(*s->cores));
	s->cores[s->ncores].core = core;
	s->cores[s->ncores].last_seq = 0;
	return &s->cores[s->ncores++].last_seq;
}

/* *acc += v, or -1 (acc unchanged) when the sum needs more than 64 bits: a count never wraps. */
static int add_u64(uint64_t *acc, uint64_t v)
{
	if (*acc > UINT64_MAX - v)
		return -1;
	*acc += v;
	return 0;
}

static int over_64(char *err, size_t errlen, size_t i)
{
	lk_errbuf(err, errlen, "counter %zu adds up to a count over 64 bits (no counter counts that far)", i + 1);
	return -LK_EINVAL;
}

int xct_sum_row(void *ctx, const struct xct_row *row, char *err, size_t errlen)
{
	struct xct_sum *s = ctx;
	/*
	 * N3: a row without counter values is a thread sampled while blocked
	 * (it was on no core; jade, a third-party reader, skips them too): it
	 * carries nothing to add and is not a sample of any core.
	 */
	if (!row->has_values) {
		if (row->pid == s->pid)
			s->rows_blank++;
		else
			s->rows_other++;
		return 0;
	}
	size_t seq = ++s->seq, prev_on_core = 0;
	if (s->guided) {
		size_t *c = core_slot(s, row->core);
		prev_on_core = *c;
		*c = seq;
	}
	if (row->pid != s->pid) {
		s->rows_other++;
		return 0;
	}
	if (s->guided && !s->nvalues && !s->rows)
		s->nvalues = row->nvalues;	/* guided tables name no events: the first row says how many */
	if (row->nvalues != s->nvalues) {
		lk_errbuf(err, errlen, "row %zu has %zu counter values but the table of contents names %zu events: "
			  "the export does not belong to this recording", row->index + 1, row->nvalues, s->nvalues);
		return -LK_EINVAL;
	}
	if (s->nvalues > XCT_MAX_VALUES) {
		lk_errbuf(err, errlen, "%zu counter values per row (at most %d)", s->nvalues, XCT_MAX_VALUES);
		return -LK_EINVAL;
	}
	struct xct_thread *t = thread_of(s, row->tid);
	s->rows++;
	t->rows++;
	if (row->sentinel_stack)
		s->rows_sentinel++;
	if (row->weight_kind != XCT_WEIGHT_NONE) {
		s->weight_kind = row->weight_kind;
		s->weight += row->weight;
		t->weight += row->weight;
	}
	if (!s->guided) {
		for (size_t i = 0; i < s->nvalues; i++)
			if (add_u64(&s->totals[i], row->values[i]) < 0 || add_u64(&t->values[i], row->values[i]) < 0)
				return over_64(err, errlen, i);
		return 0;
	}

	size_t h = s->nvalues / 2;
	if (s->nvalues % 2 || !h)
		s->halves_equal = false;
	for (size_t i = 0; s->halves_equal && i < h; i++)
		if (row->values[i] != row->values[i + h])
			s->halves_equal = false;
	uint64_t now = row->time_ns;
	if (!t->have_prev)
		t->first_time = now;
	/* Adjacent: this thread's previous sample is also the core's previous one, and close in time. */
	bool adjacent = t->have_prev && row->has_time && row->core == t->prev_core && prev_on_core == t->prev_seq &&
			now > t->prev_time &&
			(double)(now - t->prev_time) <= XCT_ADJACENT_PERIODS * (double)s->period_ns;
	for (size_t i = 0; adjacent && i < s->nvalues; i++)
		if (row->values[i] < t->prev[i])
			adjacent = false;
	if (adjacent) {
		for (size_t i = 0; i < s->nvalues; i++) {
			uint64_t d = row->values[i] - t->prev[i];
			if (add_u64(&s->totals[i], d) < 0 || add_u64(&t->values[i], d) < 0)
				return over_64(err, errlen, i);
		}
		t->accepted_ns += now - t->prev_time;
	} else if (t->have_prev) {
		s->baselines++;
	}
	t->have_prev = true;
	t->prev_seq = seq;
	t->prev_core = row->core;
	t->prev_time = now;
	if (now > t->last_time)
		t->last_time = now;
	memcpy(t->prev, row->values, s->nvalues * sizeof(uint64_t));
	return 0;
}

double xct_sum_coverage(const struct xct_sum *s)
{
	uint64_t span = 0, acc = 0;
	for (size_t i = 0; i < s->nthreads; i++) {
		const struct xct_thread *t = &s->threads[i];
		if (t->last_time > t->first_time)
			span += t->last_time - t->first_time;
		acc += t->accepted_ns;
	}
	return span ? (double)acc / (double)span : 1.0;
}

size_t xct_sum_slots(const struct xct_sum *s)
{
	return s->halves_equal && s->rows && s->nvalues >= 2 && s->nvalues % 2 == 0 ? s->nvalues / 2 : s->nvalues;
}

/* ---- slot naming ---- */

/* The alu loop's instructions per iteration (probes/: subs/b.ne, dec/jnz): what the work slot counts. */
#define ALU_INSTR_PER_ITER 2.0
/* The control's reading below which it counts as zero (per work-slot count). */
#define CONTROL_FLOOR 1e-9

static double per_unit(const struct xct_probe_counts *p, size_t s)
{
	return p->units > 0 ? (double)p->slots[s] / p->units : 0;
}

/* Best and second-best response (probe / control) among the slots but the work slot; the best, or -1. */
static long pick(size_t nslots, long work, const double *probe_norm, const double *control_norm, double *best,
		 double *second)
{
	long b = -1;
	*best = *second = 0;
	for (size_t s = 0; s < nslots; s++) {
		if ((long)s == work)
			continue;
		double resp = probe_norm[s] / fmax(control_norm[s], CONTROL_FLOOR);
		if (resp > *best) {
			*second = *best;
			*best = resp;
			b = (long)s;
		} else if (resp > *second) {
			*second = resp;
		}
	}
	if (b < 0 || *best < XCT_SLOT_MIN_RESPONSE || *best < XCT_SLOT_MARGIN * *second)
		return -1;
	return b;
}

int xct_name_slots(size_t nslots, const struct xct_probe_counts *alu1, const struct xct_probe_counts *alu4,
		   const struct xct_probe_counts *chase, const struct xct_probe_counts *branch,
		   struct xct_slot_map *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	m->nslots = nslots;
	m->work = m->cache = m->branch = -1;
	double best_dist = INFINITY;
	for (size_t s = 0; s < nslots; s++) {
		double a1 = per_unit(alu1, s), a4 = per_unit(alu4, s);
		if (a1 <= 0 || a4 <= 0 || a4 / a1 < 0.9 || a4 / a1 > 1.1)
			continue;
		double dist = fabs(log(a4 / ALU_INSTR_PER_ITER));
		if (dist < best_dist) {
			best_dist = dist;
			m->work = (long)s;
		}
	}
	if (m->work < 0) {
		lk_errbuf(err, errlen, "no slot grows in proportion to the alu probe's work (4x the loop, 4x the count)");
		return -LK_EINVAL;
	}
	m->alu_norm = xcalloc(nslots, sizeof(double));
	m->chase_norm = xcalloc(nslots, sizeof(double));
	m->branch_norm = xcalloc(nslots, sizeof(double));
	size_t w = (size_t)m->work;
	for (size_t s = 0; s < nslots; s++) {
		m->alu_norm[s] = alu4->slots[w] ? (double)alu4->slots[s] / (double)alu4->slots[w] : 0;
		m->chase_norm[s] = chase->slots[w] ? (double)chase->slots[s] / (double)chase->slots[w] : 0;
		m->branch_norm[s] = branch->slots[w] ? (double)branch->slots[s] / (double)branch->slots[w] : 0;
	}
	m->cache = pick(nslots, m->work, m->chase_norm, m->alu_norm, &m->cache_score, &m->cache_runner_up);
	m->branch = pick(nslots, m->work, m->branch_norm, m->alu_norm, &m->branch_score, &m->branch_runner_up);
	if (m->cache >= 0 && m->cache == m->branch)
		m->cache = m->branch = -1;	/* one slot cannot be both */
	/*
	 * The second property (N3): a miss count is bounded by the probe's
	 * structure.  A chase step is one load, which misses at most once per
	 * level (L1D, L2, TLB), so a cache-miss slot reads about 1 per step,
	 * never tens (stall cycles do: hundreds of cycles per miss).  A branch
	 * iteration has one unpredictable branch, mispredicted about half the
	 * time.  Outside those bounds the slot is only "responsive".
	 */
	if (m->cache >= 0) {
		m->cache_per_unit = per_unit(chase, (size_t)m->cache);
		m->cache_corroborated = m->cache_per_unit >= XCT_MISS_PER_STEP_MIN &&
					m->cache_per_unit <= XCT_MISS_PER_STEP_MAX;
	}
	if (m->branch >= 0) {
		m->branch_per_unit = per_unit(branch, (size_t)m->branch);
		m->branch_corroborated = m->branch_per_unit >= XCT_MISPRED_PER_ITER_MIN &&
					 m->branch_per_unit <= XCT_MISPRED_PER_ITER_MAX;
	}
	return 0;
}

void xct_slot_map_release(struct xct_slot_map *m)
{
	free(m->alu_norm);
	free(m->chase_norm);
	free(m->branch_norm);
	memset(m, 0, sizeof(*m));
	m->work = m->cache = m->branch = -1;
}

const char *xct_slot_name(const struct xct_slot_map *m, size_t i)
{
	if ((long)i == m->work)
		return "work";
	if ((long)i == m->cache)
		return m->cache_corroborated ? "cache-misses" : "chase-responsive";
	if ((long)i == m->branch)
		return m->branch_corroborated ? "branch-misses" : "branch-responsive";
	return XCT_SLOT_UNNAMED;
}
