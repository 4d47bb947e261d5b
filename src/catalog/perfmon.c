/*
 * catalog/perfmon.c: Intel perfmon JSON -> struct perfmon_table
 * (catalog/perfmon.h).  A small JSON reader of its own, enough for the
 * whole JSON grammar (so a file with fields lauka does not know still
 * parses) and strict about it: a file cut short or with a stray byte is
 * refused with its line, never half read.
 */
#include "catalog/perfmon.h"
#include "base/error.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32

struct jp {
	const char *s, *p, *end;
	char *err;
	size_t errlen;
	int depth;
	bool failed;
};

static int fail(struct jp *j, const char *what)
{
	if (!j->failed) {
		size_t line = 1;
		for (const char *q = j->s; q < j->p && q < j->end; q++)
			line += *q == '\n';
		lk_errbuf(j->err, j->errlen, "line %zu: %s", line, what);
		j->failed = true;
	}
	return -1;
}

static void ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool eat(struct jp *j, char c)
{
	ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

static int hex4(struct jp *j, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++, j->p++) {
		if (j->p >= j->end || !isxdigit((unsigned char)*j->p))
			return fail(j, "bad \\u escape");
		char c = *j->p;
		*v = *v * 16 + (unsigned)(isdigit((unsigned char)c) ? c - '0' : (tolower((unsigned char)c) - 'a' + 10));
	}
	return 0;
}

static void utf8(struct strbuf *sb, unsigned cp)
{
	char b[4];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	strbuf_add(sb, b, n);
}

/* A string (the opening quote next), unescaped into sb. */
static int string(struct jp *j, struct strbuf *sb)
{
	if (!eat(j, '"'))
		return fail(j, "expected a string");
	strbuf_reset(sb);
	strbuf_add(sb, "", 0);
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p;
		if (c < 0x20)
			return fail(j, "control character in a string");
		if (c != '\\') {
			const char *q = j->p;
			while (q < j->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
				q++;
			strbuf_add(sb, j->p, (size_t)(q - j->p));
			j->p = q;
			continue;
		}
		if (++j->p >= j->end)
			break;
		static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
		const char *k = strchr(from, *j->p);
		if (*j->p == 'u') {
			unsigned cp, lo;
			j->p++;
			if (hex4(j, &cp) < 0)
				return -1;
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
					return fail(j, "lone surrogate in \\u escape");
				j->p += 2;
				if (hex4(j, &lo) < 0 || lo < 0xdc00 || lo >= 0xe000)
					return fail(j, "bad surrogate pair in \\u escape");
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				return fail(j, "lone surrogate in \\u escape");
			}
			utf8(sb, cp);
			continue;
		}
		if (!*j->p || !k)
			return fail(j, "bad escape in a string");
		strbuf_add(sb, &to[k - from], 1);
		j->p++;
	}
	if (j->p >= j->end)
		return fail(j, "string not closed");
	j->p++;
	return 0;
}

/* A number, true, false or null as its text. */
static int scalar(struct jp *j, struct strbuf *sb)
{
	ws(j);
	const char *q = j->p;
	while (q < j->end && (isalnum((unsigned char)*q) || *q == '-' || *q == '+' || *q == '.'))
		q++;
	if (q == j->p)
		return fail(j, "expected a value");
	strbuf_reset(sb);
	strbuf_add(sb, j->p, (size_t)(q - j->p));
	const char *t = strbuf_str(sb);
	char *e;
	errno = 0;
	if (strcmp(t, "true") && strcmp(t, "false") && strcmp(t, "null") &&
	    (strtod(t, &e), *e || !(isdigit((unsigned char)*t) || *t == '-')))
		return fail(j, "expected a value");
	j->p = q;
	return 0;
}

static int skip_value(struct jp *j);

/* Any value as text when it is a string or scalar; objects and arrays are skipped (text ""). */
static int value_text(struct jp *j, struct strbuf *sb)
{
	ws(j);
	if (j->p >= j->end)
		return fail(j, "unexpected end of file");
	if (*j->p == '"')
		return string(j, sb);
	if (*j->p == '{' || *j->p == '[') {
		strbuf_reset(sb);
		return skip_value(j);
	}
	return scalar(j, sb);
}

/* Walk an object: for each member, cb(key) reads the value; returns -1 on a syntax error. */
typedef int (*member_fn)(struct jp *j, const char *key, void *ctx);

static int object(struct jp *j, member_fn cb, void *ctx)
{
	if (!eat(j, '{'))
		return fail(j, "expected an object");
	if (++j->depth > MAX_DEPTH)
		return fail(j, "nested too deeply");
	struct strbuf key = STRBUF_INIT;
	int r = 0;
	if (!eat(j, '}')) {
		do {
			if ((r = string(j, &key)) < 0)
				break;
			if (!eat(j, ':')) {
				r = fail(j, "expected ':'");
				break;
			}
			if ((r = cb(j, strbuf_str(&key), ctx)) < 0)
				break;
		} while (eat(j, ','));
		if (r == 0 && !eat(j, '}'))
			r = fail(j, "expected ',' or '}'");
	}
	strbuf_release(&key);
	j->depth--;
	return r;
}

static int skip_member(struct jp *j, const char *key, void *ctx)
{
	(void)key;
	(void)ctx;
	return skip_value(j);
}

static int skip_value(struct jp *j)
{
	ws(j);
	if (j->p >= j->end)
		return fail(j, "unexpected end of file");
	if (*j->p == '{')
		return object(j, skip_member, NULL);
	if (*j->p == '[') {
		j->p++;
		if (++j->depth > MAX_DEPTH)
			return fail(j, "nested too deeply");
		int r = 0;
		if (!eat(j, ']')) {
			do
				r = skip_value(j);
			while (r == 0 && eat(j, ','));
			if (r == 0 && !eat(j, ']'))
				r = fail(j, "expected ',' or ']'");
		}
		j->depth--;
		return r;
	}
	struct strbuf sb = STRBUF_INIT;
	int r = value_text(j, &sb);
	strbuf_release(&sb);
	return r;
}

/* Does s start with prefix, ignoring ASCII case? */
static bool prefix_ci(const char *s, const char *prefix)
{
	for (; *prefix; s++, prefix++)
		if (tolower((unsigned char)*s) != tolower((unsigned char)*prefix))
			return false;
	return true;
}

int perfmon_counters(const char *s, uint64_t *mask, int *fixed)
{
	*mask = 0;
	*fixed = -1;
	while (*s == ' ')
		s++;
	if (prefix_ci(s, "Fixed counter")) {
		char *e;
		s += strlen("Fixed counter");
		errno = 0;
		long n = strtol(s, &e, 10);
		while (*e == ' ')
			e++;
		if (e == s || *e || errno || n < 0 || n > 31)
			return -1;
		*fixed = (int)n;
		*mask = UINT64_C(1) << (PERFMON_FIXED_BASE + n);
		return 0;
	}
	for (;;) {
		char *e;
		errno = 0;
		if (!isdigit((unsigned char)*s))
			return -1;
		long n = strtol(s, &e, 10);
		if (errno || n > 31)
			return -1;
		*mask |= UINT64_C(1) << n;
		while (*e == ' ')
			e++;
		if (!*e)
			return 0;
		if (*e != ',')
			return -1;
		s = e + 1;
		while (*s == ' ')
			s++;
	}
}

/* "0xD1", "0xB7, 0xBB" (the first), "1": a number up to max; -1 on junk. */
static int number(const char *s, uint64_t max, uint64_t *v)
{
	char *e;
	errno = 0;
	while (*s == ' ')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	unsigned long long n = strtoull(s, &e, 0);
	while (*e == ' ')
		e++;
	if (errno || e == s || (*e && *e != ',') || n > max)
		return -1;
	*v = n;
	return 0;
}

struct ev_ctx {
	struct perfmon_event *e;
	struct strbuf val;
	bool has_htoff, has_counter;
};

static int event_member(struct jp *j, const char *key, void *ctx)
{
	struct ev_ctx *c = ctx;
	struct perfmon_event *e = c->e;
	if (value_text(j, &c->val) < 0)
		return -1;
	const char *v = strbuf_str(&c->val);
	uint64_t n = 0;
	static const struct { const char *key; uint64_t max; } nums[] = {
		{ "EventCode", 0xff }, { "UMask", 0xff }, { "CounterMask", 0xff }, { "Invert", 1 },
		{ "EdgeDetect", 1 }, { "AnyThread", 1 }, { "MSRIndex", UINT64_MAX }, { "MSRValue", UINT64_MAX },
		{ "Offcore", 1 }, { "Deprecated", 1 },
	};
	if (!strcmp(key, "EventName")) {
		free(e->name);
		e->name = xstrdup(v);
		return 0;
	}
	if (!strcmp(key, "BriefDescription")) {
		free(e->brief);
		e->brief = *v ? xstrdup(v) : NULL;
		return 0;
	}
	if (!strcmp(key, "Counter") || !strcmp(key, "CounterHTOff")) {
		uint64_t m;
		int fx;
		if (perfmon_counters(v, &m, &fx) < 0) {
			char what[96];
			snprintf(what, sizeof(what), "%s '%.40s' is not a list of counters", key, v);
			return fail(j, what);
		}
		if (!strcmp(key, "Counter")) {
			e->counters = m;
			e->fixed = fx;
			c->has_counter = true;
		} else {
			e->counters_htoff = m;
			c->has_htoff = true;
		}
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(nums); i++) {
		if (strcmp(key, nums[i].key))
			continue;
		/* "null" is how Intel's files say "none" (MSRIndex of older tables, Errata). */
		if (!strcmp(v, "null") || !*v)
			return 0;
		if (number(v, nums[i].max, &n) < 0) {
			char what[96];
			snprintf(what, sizeof(what), "%s '%.40s' is not a number up to 0x%llx", key, v,
				 (unsigned long long)nums[i].max);
			return fail(j, what);
		}
		switch (i) {
		case 0: e->code = (unsigned)n; break;
		case 1: e->umask = (unsigned)n; break;
		case 2: e->cmask = (unsigned)n; break;
		case 3: e->inv = n; break;
		case 4: e->edge = n; break;
		case 5: e->any = n; break;
		case 6: e->msr_index = n; break;
		case 7: e->msr_value = n; break;
		case 8: e->offcore = n; break;
		default: e->deprecated = n; break;
		}
	}
	return 0;
}

struct top_ctx {
	struct perfmon_table *t;
	bool has_events;
};

static int header_member(struct jp *j, const char *key, void *ctx)
{
	struct perfmon_table *t = ctx;
	struct strbuf sb = STRBUF_INIT;
	int r = value_text(j, &sb);
	if (r == 0 && !strcmp(key, "Info")) {
		free(t->info);
		t->info = xstrdup(strbuf_str(&sb));
	} else if (r == 0 && !strcmp(key, "Version")) {
		free(t->version);
		t->version = xstrdup(strbuf_str(&sb));
	}
	strbuf_release(&sb);
	return r;
}

static int events(struct jp *j, struct perfmon_table *t)
{
	if (!eat(j, '['))
		return fail(j, "Events is not an array");
	if (eat(j, ']'))
		return 0;
	do {
		t->events = xrealloc(t->events, (t->n + 1) * sizeof(*t->events));
		struct perfmon_event *e = &t->events[t->n++];
		memset(e, 0, sizeof(*e));
		e->fixed = -1;
		struct ev_ctx c = { .e = e, .val = STRBUF_INIT };
		int r = object(j, event_member, &c);
		strbuf_release(&c.val);
		if (r < 0)
			return -1;
		if (!e->name || !*e->name)
			return fail(j, "an event without EventName");
		if (!c.has_counter) {
			char what[128];
			snprintf(what, sizeof(what), "event '%.60s' has no Counter", e->name);
			return fail(j, what);
		}
		if (!c.has_htoff)
			e->counters_htoff = e->counters;
	} while (eat(j, ','));
	if (!eat(j, ']'))
		return fail(j, "expected ',' or ']'");
	return 0;
}

static int top_member(struct jp *j, const char *key, void *ctx)
{
	struct top_ctx *c = ctx;
	ws(j);
	if (!strcmp(key, "Header") && j->p < j->end && *j->p == '{')
		return object(j, header_member, c->t);
	if (!strcmp(key, "Events")) {
		c->has_events = true;
		return events(j, c->t);
	}
	return skip_value(j);
}

static int cmp_event(const void *a, const void *b)
{
	return lk_strcasecmp(((const struct perfmon_event *)a)->name, ((const struct perfmon_event *)b)->name);
}

static unsigned highest(uint64_t m, unsigned from, unsigned to)
{
	unsigned h = 0;
	for (unsigned i = from; i < to; i++)
		if (m >> i & 1)
			h = i - from + 1;
	return h;
}

int perfmon_parse(const char *text, size_t len, struct perfmon_table *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	struct jp j = { .s = text, .p = text, .end = text + len, .err = err, .errlen = errlen };
	struct top_ctx c = { .t = out };
	/* Intel's older files are a bare array of events; the current ones an object with Header and Events. */
	ws(&j);
	int r = j.p < j.end && *j.p == '[' ? (c.has_events = true, events(&j, out)) : object(&j, top_member, &c);
	if (r == 0) {
		ws(&j);
		if (j.p != j.end)
			r = fail(&j, "text after the end of the table");
		else if (!c.has_events)
			r = fail(&j, "no Events array: not an Intel perfmon event file");
	}
	if (r < 0) {
		perfmon_release(out);
		return -1;
	}
	if (out->n > 1)
		qsort(out->events, out->n, sizeof(*out->events), cmp_event);
	for (size_t i = 0; i < out->n; i++) {
		const struct perfmon_event *e = &out->events[i];
		unsigned g = highest(e->counters, 0, PERFMON_FIXED_BASE);
		unsigned h = highest(e->counters_htoff, 0, PERFMON_FIXED_BASE);
		unsigned f = highest(e->counters | e->counters_htoff, PERFMON_FIXED_BASE, 64);
		out->gp = g > out->gp ? g : out->gp;
		out->gp_htoff = h > out->gp_htoff ? h : out->gp_htoff;
		out->nfixed = f > out->nfixed ? f : out->nfixed;
		if (i && !lk_strcasecmp(e->name, out->events[i - 1].name)) {
			lk_errbuf(err, errlen, "event '%.60s' is listed twice", e->name);
			perfmon_release(out);
			return -1;
		}
	}
	return 0;
}

void perfmon_release(struct perfmon_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->events[i].name);
		free(t->events[i].brief);
	}
	free(t->events);
	free(t->info);
	free(t->version);
	memset(t, 0, sizeof(*t));
}

uint64_t perfmon_config(const struct perfmon_event *e)
{
	return (uint64_t)(e->code & 0xff) | (uint64_t)(e->umask & 0xff) << 8 | (uint64_t)e->edge << 18 |
	       (uint64_t)e->any << 21 | (uint64_t)e->inv << 23 | (uint64_t)(e->cmask & 0xff) << 24;
}

const struct perfmon_event *perfmon_find(const struct perfmon_table *t, const char *name)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = lk_strcasecmp(t->events[mid].name, name);
		if (!c)
			return &t->events[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
