/*
 * lauka-probe: workloads of known behaviour, run as an ordinary command so
 * that every backend measures a probe exactly like any other program.
 *
 *   lauka-probe <probe> <scale> [bytes]     e.g. lauka-probe alu 1e8
 *   lauka-probe list
 *
 * scale is the number of units of work (iterations or steps), written as an
 * integer or in e-notation (1e7, 2.5e6).  bytes sets the buffer of chase and
 * store (default 256M; K, M, G suffixes are powers of 1024).
 *
 * The whole process is measured (start-up, buffer set-up, printing), so a
 * probe's own cost is "constant + per-unit × scale"; lauka calibrate cancels
 * the constant by differencing runs at 1× and 4× scale.  To keep that
 * constant truly constant, nothing outside the kernel depends on the scale
 * except the digits printed, and the buffer set-up depends only on bytes.
 * The probe does no warm-up of its own: calibrate runs each probe once
 * before measuring.
 */
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BYTES (256ull << 20)
#define MAX_SCALE (1ull << 50)

struct probe {
	const char *name, *unit, *desc;
	int (*run)(uint64_t scale, uint64_t bytes);
	int uses_buffer;
};

static int run_alu(uint64_t n, uint64_t bytes)
{
	(void)bytes;
	probe_alu(n);
	printf("alu %llu iterations\n", (unsigned long long)n);
	return 0;
}

/* The cycle: slot j points to slot (j + stride) mod n.  n is a power of two
 * and stride odd, so they are coprime and the walk visits every slot once
 * per lap; the pointers are written in one sequential pass (no shuffle, no
 * rand()).  A stride near n/golden ratio puts consecutive slots far apart
 * and makes the address deltas irregular, so prefetchers cannot follow. */
static char *make_cycle(uint64_t bytes, uint64_t *nslots, uint64_t *stride)
{
	uint64_t n = 2;
	while (n * 2 * PROBE_SLOT <= bytes)
		n *= 2;
	char *buf = aligned_alloc(PROBE_SLOT, n * PROBE_SLOT);
	if (!buf)
		return NULL;
	uint64_t s = ((uint64_t)((double)n * 0.381966011) | 1) & (n - 1);
	for (uint64_t j = 0; j < n; j++)
		*(char **)(buf + j * PROBE_SLOT) = buf + ((j + s) & (n - 1)) * PROBE_SLOT;
	*nslots = n;
	*stride = s;
	return buf;
}

static int run_chase(uint64_t steps, uint64_t bytes)
{
	uint64_t n, stride;
	char *buf = make_cycle(bytes, &n, &stride);
	if (!buf) {
		fprintf(stderr, "lauka-probe: cannot allocate %llu bytes\n", (unsigned long long)bytes);
		return 1;
	}
	char *end = probe_chase(buf, steps);
	printf("chase %llu steps over %llu slots of %d bytes, ended at slot %llu\n",
	       (unsigned long long)steps, (unsigned long long)n, PROBE_SLOT,
	       (unsigned long long)((uint64_t)(end - buf) / PROBE_SLOT));
	free(buf);
	return 0;
}

static int run_branch(uint64_t n, uint64_t bytes)
{
	(void)bytes;
	uint64_t taken, not_taken = probe_branch(n, &taken);
	printf("branch %llu iterations, %llu taken, %llu not taken\n", (unsigned long long)n,
	       (unsigned long long)taken, (unsigned long long)not_taken);
	return 0;
}

static int run_store(uint64_t steps, uint64_t bytes)
{
	uint64_t n, stride;
	/* The cycle's pointers double as the pre-touch: every page is mapped
	 * before the measured stores, whatever the scale. */
	char *buf = make_cycle(bytes, &n, &stride);
	if (!buf) {
		fprintf(stderr, "lauka-probe: cannot allocate %llu bytes\n", (unsigned long long)bytes);
		return 1;
	}
	uint64_t end = probe_store(buf, n, stride, steps);
	printf("store %llu steps over %llu slots of %d bytes, ended at slot %llu\n",
	       (unsigned long long)steps, (unsigned long long)n, PROBE_SLOT, (unsigned long long)end);
	free(buf);
	return 0;
}

static const struct probe probes[] = {
	{ "alu", "iteration", "two instructions per iteration (assembly), no memory, one predicted branch: the control", run_alu, 0 },
	{ "chase", "step", "one dependent load per step around a single cycle over a buffer far larger than the caches", run_chase, 1 },
	{ "branch", "iteration", "one branch per iteration on the top bit of an LCG: half of them mispredicted", run_branch, 0 },
	{ "store", "step", "one store per step around a single cycle over a buffer far larger than the caches", run_store, 1 },
};

/* Digits, optional fraction, optional exponent; the value must be a whole
 * number.  Exact integer arithmetic: no strtod rounding. */
static int parse_scale(const char *s, uint64_t *out)
{
	uint64_t mant = 0;
	int frac = 0, digits = 0;
	const char *p = s;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (mant > MAX_SCALE)
			return -1;
		mant = mant * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits++, frac++) {
			if (mant > MAX_SCALE)
				return -1;
			mant = mant * 10 + (uint64_t)(*p - '0');
		}
	if (!digits)
		return -1;
	int exp = 0;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		for (; *p >= '0' && *p <= '9'; p++)
			if ((exp = exp * 10 + (*p - '0')) > 30)
				return -1;
	}
	if (*p)
		return -1;
	for (exp -= frac; exp < 0; exp++) {
		if (mant % 10)
			return -1;
		mant /= 10;
	}
	for (; exp > 0; exp--)
		if ((mant *= 10) > MAX_SCALE)
			return -1;
	if (mant == 0 || mant > MAX_SCALE)
		return -1;
	*out = mant;
	return 0;
}

static int parse_bytes(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (end == s || *end || v == 0 || v > (1ull << 40) >> shift)
		return -1;
	*out = (uint64_t)v << shift;
	return *out >= 4 * PROBE_SLOT ? 0 : -1;
}

static int usage(void)
{
	fprintf(stderr, "usage: lauka-probe <probe> <scale> [bytes]\n"
			"       lauka-probe list\n");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "list")) {
		for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
			printf("%-7s per %-10s %s\n", probes[i].name, probes[i].unit, probes[i].desc);
		return 0;
	}
	if (argc < 3 || argc > 4)
		return usage();
	const struct probe *p = NULL;
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		if (!strcmp(argv[1], probes[i].name))
			p = &probes[i];
	if (!p) {
		fprintf(stderr, "lauka-probe: unknown probe '%s' (try 'lauka-probe list')\n", argv[1]);
		return 1;
	}
	uint64_t scale, bytes = DEFAULT_BYTES;
	if (parse_scale(argv[2], &scale) < 0) {
		fprintf(stderr, "lauka-probe: invalid scale '%s': a whole number from 1 to 2^50, e.g. 1e7\n", argv[2]);
		return 1;
	}
	if (argc == 4 && (!p->uses_buffer || parse_bytes(argv[3], &bytes) < 0)) {
		fprintf(stderr, p->uses_buffer ? "lauka-probe: invalid buffer size '%s', e.g. 256M\n"
					       : "lauka-probe: probe '%s' takes no buffer size\n",
			p->uses_buffer ? argv[3] : p->name);
		return 1;
	}
	return p->run(scale, bytes);
}
