/* record/order.c: sequential and interleaved (shuffled rounds) run orders. */
#include "record/order.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>

uint64_t order_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) without modulo bias (rejection of the short last bucket). */
static size_t below(uint64_t *s, size_t n)
{
	uint64_t lim = UINT64_MAX - UINT64_MAX % n;
	uint64_t v;
	do
		v = order_next(s);
	while (v >= lim);
	return (size_t)(v % n);
}

size_t order_round_of(unsigned long j, unsigned long r, unsigned long rounds)
{
	/* (2j + 1) R / 2r: the middle of the j-th of r equal stretches of R rounds. */
	return (size_t)(((unsigned long long)(2 * j + 1) * rounds) / (2ULL * r));
}

/* Append the shuffled rounds of one phase (warm-ups or measured runs). */
static void phase(const unsigned long *count, size_t n, bool warm, uint64_t *rng, struct order_slot *out,
		  size_t *len)
{
	unsigned long rounds = 0;
	for (size_t c = 0; c < n; c++)
		if (count[c] > rounds)
			rounds = count[c];
	unsigned long *next = xcalloc(n ? n : 1, sizeof(*next));
	for (unsigned long r = 0; r < rounds; r++) {
		size_t start = *len;
		for (size_t c = 0; c < n; c++) {
			if (next[c] < count[c] && order_round_of(next[c], count[c], rounds) == r) {
				out[(*len)++] = (struct order_slot){ c, warm, next[c] };
				next[c]++;
			}
		}
		/* Fisher-Yates over this round's slots. */
		for (size_t i = *len - start; i > 1; i--) {
			size_t j = below(rng, i);
			struct order_slot t = out[start + i - 1];
			out[start + i - 1] = out[start + j];
			out[start + j] = t;
		}
	}
	free(next);
}

size_t order_plan(const unsigned long *warmups, const unsigned long *runs, size_t n, bool interleave,
		  uint64_t seed, struct order_slot **out)
{
	size_t total = 0;
	for (size_t c = 0; c < n; c++)
		total += warmups[c] + runs[c];
	*out = xcalloc(total ? total : 1, sizeof(**out));
	uint64_t rng = seed;
	size_t len = 0;
	if (!interleave) {
		/* The lauka contract: each command's warm-ups and runs, then the next command's. */
		for (size_t c = 0; c < n; c++) {
			for (unsigned long k = 0; k < warmups[c]; k++)
				(*out)[len++] = (struct order_slot){ c, true, k };
			for (unsigned long k = 0; k < runs[c]; k++)
				(*out)[len++] = (struct order_slot){ c, false, k };
		}
		return len;
	}
	phase(warmups, n, true, &rng, *out, &len);
	phase(runs, n, false, &rng, *out, &len);
	return len;
}

unsigned long order_auto_runs(unsigned long done, double measured_ns, double elapsed_ns, unsigned long want_runs,
			      double want_ns, double cap_ns, unsigned long min, unsigned long max)
{
	unsigned long n = want_runs;
	if (done && measured_ns > 0 && isfinite(measured_ns)) {
		double by_time = ceil(want_ns / (measured_ns / (double)done));
		if (by_time > (double)n)
			n = by_time >= (double)max ? max : (unsigned long)by_time;
	}
	if (done && elapsed_ns > 0 && isfinite(elapsed_ns) && isfinite(cap_ns)) {
		double fit = floor(cap_ns / (elapsed_ns / (double)done));	/* slow runs: what fits in the cap */
		if (fit < (double)n)
			n = fit < 0 ? 0 : (unsigned long)fit;
	}
	if (n > max)
		n = max;
	if (n < min)
		n = min;
	return n < done ? done : n;
}
