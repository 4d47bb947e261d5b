/*
 * base/cpulist.c: CPU sets and the cpulist text of sysfs (see base/cpulist.h).  Pure.
 */
#include "base/cpulist.h"

#include "base/error.h"
#include "base/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPULIST_STR_(x) #x
#define CPULIST_STR(x) CPULIST_STR_(x)

void cpulist_add(struct lk_cpus *c, unsigned cpu)
{
	size_t w = cpu / CPULIST_BITS;
	if (w >= c->nwords) {
		c->bits = xrealloc(c->bits, (w + 1) * sizeof(*c->bits));
		memset(c->bits + c->nwords, 0, (w + 1 - c->nwords) * sizeof(*c->bits));
		c->nwords = w + 1;
	}
	c->bits[w] |= 1UL << (cpu % CPULIST_BITS);
}

bool cpulist_has(const struct lk_cpus *c, unsigned cpu)
{
	size_t w = cpu / CPULIST_BITS;
	return w < c->nwords && (c->bits[w] >> (cpu % CPULIST_BITS) & 1);
}

size_t cpulist_count(const struct lk_cpus *c)
{
	size_t n = 0;
	for (size_t w = 0; w < c->nwords; w++)
		for (unsigned long b = c->bits[w]; b; b &= b - 1)
			n++;
	return n;
}

void cpulist_release(struct lk_cpus *c)
{
	free(c->bits);
	c->bits = NULL;
	c->nwords = 0;
}

void cpulist_and(struct lk_cpus *out, const struct lk_cpus *a, const struct lk_cpus *b)
{
	size_t n = a->nwords < b->nwords ? a->nwords : b->nwords;
	unsigned long *bits = xcalloc(n ? n : 1, sizeof(*bits));
	for (size_t w = 0; w < n; w++)
		bits[w] = a->bits[w] & b->bits[w];
	cpulist_release(out);
	out->bits = bits;
	out->nwords = n;
}

bool cpulist_equal(const struct lk_cpus *a, const struct lk_cpus *b)
{
	size_t n = a->nwords > b->nwords ? a->nwords : b->nwords;
	for (size_t w = 0; w < n; w++)
		if ((w < a->nwords ? a->bits[w] : 0) != (w < b->nwords ? b->bits[w] : 0))
			return false;
	return true;
}

void cpulist_copy(struct lk_cpus *out, const struct lk_cpus *a)
{
	if (out == a)
		return;
	cpulist_release(out);
	if (!a->nwords)
		return;
	out->bits = xmalloc(a->nwords * sizeof(*out->bits));
	memcpy(out->bits, a->bits, a->nwords * sizeof(*out->bits));
	out->nwords = a->nwords;
}

/* A CPU number at *p (decimal digits only, as the kernel prints it); -1 when there is none or it is too large. */
static long number(const char **p)
{
	const char *s = *p;
	if (!isdigit((unsigned char)*s))
		return -1;
	long v = 0;
	for (; isdigit((unsigned char)*s); s++) {
		v = v * 10 + (*s - '0');
		if (v > CPULIST_MAX_CPU)
			return -2;
	}
	*p = s;
	return v;
}

int cpulist_parse(const char *s, struct lk_cpus *out, char *err, size_t len)
{
	out->bits = NULL;
	out->nwords = 0;
	const char *end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	const char *p = s;
	while (p < end) {
		const char *at = p;
		long a = number(&p), b = a;
		if (a >= 0 && p < end && *p == '-') {
			p++;
			b = number(&p);
		}
		const char *why = NULL;
		if (a == -2 || b == -2)
			why = "a CPU number above " CPULIST_STR(CPULIST_MAX_CPU);
		else if (a < 0 || b < 0)
			why = "not a CPU number or range";
		else if (b < a)
			why = "a range that runs backwards";
		else if (p < end && *p != ',')
			why = *p == ':' ? "a stride (lauka reads only the lists sysfs prints)" : "not a CPU number or range";
		else if (p < end && p + 1 == end)
			why = "a trailing comma";
		if (why) {
			lk_errbuf(err, len, "%s at '%.*s' in '%.*s'", why, (int)(end - at > 24 ? 24 : end - at), at,
				  (int)(end - s > 64 ? 64 : end - s), s);
			cpulist_release(out);
			return -LK_EINVAL;
		}
		for (long c = a; c <= b; c++)
			cpulist_add(out, (unsigned)c);
		if (p < end)
			p++;	/* the comma */
	}
	return 0;
}

const char *cpulist_format(const struct lk_cpus *c, char *buf, size_t len)
{
	if (!len)
		return buf;
	buf[0] = '\0';
	size_t at = 0, max = c->nwords * CPULIST_BITS;
	for (size_t i = 0; i < max; i++) {
		if (!cpulist_has(c, (unsigned)i))
			continue;
		size_t j = i;
		while (j + 1 < max && cpulist_has(c, (unsigned)(j + 1)))
			j++;
		char item[48];
		if (j > i)
			snprintf(item, sizeof(item), "%s%zu-%zu", at ? "," : "", i, j);
		else
			snprintf(item, sizeof(item), "%s%zu", at ? "," : "", i);
		size_t l = strlen(item);
		if (at + l + 4 > len) {	/* room for "..." and the NUL */
			snprintf(buf + at, len - at, "...");
			return buf;
		}
		memcpy(buf + at, item, l + 1);
		at += l;
		i = j;
	}
	return buf;
}
