/*
 * explain-work: workloads of known character for `record --explain`
 * (tests/cli/t-explain-valgrind.sh).  Their verdicts follow from how they
 * are built, not from lauka's formulas:
 *
 *   explain-work chase STEPS   dependent loads around one cycle over 16 MiB,
 *                              twice the simulated 8 MiB LL (an odd stride over a
 *                              power-of-two length visits every element once
 *                              per lap, built in one linear pass): every step
 *                              is a load that misses both caches, and the loop
 *                              around it is three instructions
 *   explain-work branch ITERS  the top bit of an LCG decides a branch whose two
 *                              arms differ (so no select replaces it): a coin
 *                              toss no predictor can learn, about half mispredict
 *   explain-work chain ITERS   a dependency chain of multiply-add through a
 *                              1 KiB table that stays in L1 (the paper's
 *                              decoder): every load hits, the loop branch is
 *                              predicted; twice ITERS is twice the same work
 *   explain-work bsearch N     N binary searches for LCG keys in a sorted array
 *                              of 2^21 8-byte keys (16 MiB, twice the LL): a
 *                              power of two, so the deep levels' probes fall
 *                              in few LL sets and miss, and each level's
 *                              branch is a coin toss (an arm of its own, so no
 *                              conditional move replaces it): memory and
 *                              branches both cost a large share (under the
 *                              valgrind model about 38% and 35%)
 *   explain-work store N       N passes storing one byte per 64-byte line
 *                              over 64 MiB, eight times the simulated LL: every
 *                              store a write that misses both caches, no loads
 *                              to speak of (issue 37 T4: it read "neither")
 *   explain-work walk N        N steps along a linked list of 64-byte nodes
 *                              laid out in order over 64 MiB: every step a new
 *                              line that misses both simulated caches, which
 *                              have no prefetcher (hardware streams such a walk
 *                              in ahead)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHASE_BYTES (16ul << 20)

__attribute__((noinline)) static unsigned long chase(long steps)
{
	size_t n = CHASE_BYTES / sizeof(size_t);
	size_t *a = malloc(CHASE_BYTES);
	if (!a)
		return 0;
	const size_t stride = 9973;	/* odd, n a power of two: one cycle through all of it */
	size_t p = 0;
	for (size_t i = 0; i < n; i++) {
		size_t next = (p + stride) & (n - 1);
		a[p] = next;
		p = next;
	}
	size_t q = 0;
	for (long s = 0; s < steps; s++)
		q = ((volatile size_t *)a)[q];
	free(a);
	return q;
}

__attribute__((noinline)) static unsigned long branch(long iters)
{
	unsigned x = 1;
	unsigned long taken = 0;
	for (long i = 0; i < iters; i++) {
		x = x * 1664525u + 1013904223u;
		if (x >> 31) {
			__asm__ volatile("nop" ::: "memory");
			taken++;
		} else {
			__asm__ volatile("nop\n\tnop" ::: "memory");
		}
	}
	return taken;
}

__attribute__((noinline)) static unsigned long chain(long iters)
{
	static uint32_t table[256];
	for (unsigned i = 0; i < 256; i++)
		table[i] = i * 2654435761u;
	uint32_t x = 1;
	for (long i = 0; i < iters; i++)
		x = table[x & 255] * 31u + x;	/* each step needs the last */
	return x;
}

#ifndef BSEARCH_KEYS
#define BSEARCH_KEYS (1ul << 21)
#endif

__attribute__((noinline)) static unsigned long bsearch_keys(long n)
{
	uint64_t *a = malloc(BSEARCH_KEYS * sizeof(*a));
	if (!a)
		return 0;
	for (size_t i = 0; i < BSEARCH_KEYS; i++)
		a[i] = 2 * i;
	unsigned x = 7;
	unsigned long found = 0;
	for (long k = 0; k < n; k++) {
		x = x * 1664525u + 1013904223u;
		uint64_t key = (uint64_t)(x % BSEARCH_KEYS) * 2;
		const uint64_t *base = a;
		for (size_t len = BSEARCH_KEYS; len > 1;) {
			size_t half = len / 2;
			if (base[half - 1] < key) {
				__asm__ volatile("" ::: "memory");	/* an arm of its own: no conditional move */
				base += half;
			}
			len -= half;
		}
		found += *base == key;
	}
	free(a);
	return found;
}

/* One byte stored per 64-byte line over 64 MiB, passes times: every store a new line that misses both caches. */
__attribute__((noinline)) static unsigned long store(long passes)
{
	size_t n = 64ul << 20;
	volatile char *a = malloc(n);
	if (!a)
		return 0;
	for (long p = 0; p < passes; p++)
		for (size_t i = 0; i < n; i += 64)
			a[i] = (char)p;
	free((void *)a);
	return (unsigned long)passes;
}

struct node {
	struct node *next;
	char payload[56];	/* one node per 64-byte line */
};

__attribute__((noinline)) static unsigned long walk(long steps)
{
	size_t n = (64ul << 20) / sizeof(struct node);
	struct node *a = malloc(n * sizeof(*a));
	if (!a)
		return 0;
	for (size_t i = 0; i < n; i++)
		a[i].next = &a[(i + 1) % n];
	const struct node *p = a;
	for (long s = 0; s < steps; s++)
		p = ((volatile const struct node *)p)->next;
	unsigned long at = (unsigned long)(p - a);
	free(a);
	return at;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: explain-work chase|branch|chain|bsearch|walk|store N\n");
		return 1;
	}
	long n = strtol(argv[2], NULL, 10);
	unsigned long r;
	if (!strcmp(argv[1], "chase"))
		r = chase(n);
	else if (!strcmp(argv[1], "branch"))
		r = branch(n);
	else if (!strcmp(argv[1], "chain"))
		r = chain(n);
	else if (!strcmp(argv[1], "bsearch"))
		r = bsearch_keys(n);
	else if (!strcmp(argv[1], "walk"))
		r = walk(n);
	else if (!strcmp(argv[1], "store"))
		r = store(n);
	else
		return 1;
	printf("%s %lu\n", argv[1], r);
	return 0;
}
