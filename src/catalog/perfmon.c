/*
 * catalog/perfmon.c: Intel perfmon JSON -> struct perfmon_table
 * (catalog/perfmon.h), read with base/json.h (strict: a file cut short or
 * with a stray byte is refused with its line, never half read).
 */
#include "catalog/perfmon.h"
#include "base/error.h"
#include "base/json.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int event_member(struct json_reader *j, const char *key, void *ctx)
{
	struct ev_ctx *c = ctx;
	struct perfmon_event *e = c->e;
	if (json_value_text(j, &c->val) < 0)
		return -1;
	const char *v = strbuf_str(&c->val);
	uint64_t n = 0;
	static const struct { const char *key; uint64_t max; } nums[] = {
		{ "EventCode", 0xff }, { "UMask", 0xff }, { "CounterMask", 0xff }, { "Invert", 1 },
		{ "EdgeDetect", 1 }, { "AnyThread", 1 }, { "MSRIndex", UINT64_MAX }, { "MSRValue", UINT64_MAX },
		{ "Offcore", 1 }, { "Deprecated", 1 }, { "TakenAlone", 1 }, { "PEBS", 3 },
	};
	if (!strcmp(key, "EventName")) {
		if (strlen(v) > PERFMON_MAX_NAME) {
			char what[128];
			snprintf(what, sizeof(what), "EventName '%.40s...' is %zu bytes long; at most %d are allowed", v,
				 strlen(v), PERFMON_MAX_NAME);
			return json_fail(j, what);
		}
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
			return json_fail(j, what);
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
			return json_fail(j, what);
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
		case 9: e->deprecated = n; break;
		case 10: e->taken_alone = n; break;
		default: e->pebs = (unsigned)n; break;
		}
	}
	return 0;
}

struct top_ctx {
	struct perfmon_table *t;
	bool has_events;
};

static int header_member(struct json_reader *j, const char *key, void *ctx)
{
	struct perfmon_table *t = ctx;
	struct strbuf sb = STRBUF_INIT;
	int r = json_value_text(j, &sb);
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

static int event_element(struct json_reader *j, size_t index, void *ctx)
{
	(void)index;
	struct perfmon_table *t = ctx;
	if (t->n >= PERFMON_MAX_EVENTS) {
		char what[96];
		snprintf(what, sizeof(what), "more than %d events (lauka's limit)", PERFMON_MAX_EVENTS);
		return json_fail(j, what);
	}
	if (!(t->n & (t->n - 1)))	/* doubled at each power of two */
		t->events = xrealloc(t->events, (t->n ? 2 * t->n : 1) * sizeof(*t->events));
	struct perfmon_event *e = &t->events[t->n++];
	memset(e, 0, sizeof(*e));
	e->fixed = -1;
	struct ev_ctx c = { .e = e, .val = STRBUF_INIT };
	int r = json_object(j, event_member, &c);
	strbuf_release(&c.val);
	if (r < 0)
		return -1;
	if (!e->name || !*e->name)
		return json_fail(j, "an event without EventName");
	if (!c.has_counter) {
		char what[128];
		snprintf(what, sizeof(what), "event '%.60s' has no Counter", e->name);
		return json_fail(j, what);
	}
	if (!c.has_htoff)
		e->counters_htoff = e->counters;
	return 0;
}

static int events(struct json_reader *j, struct perfmon_table *t)
{
	if (json_peek(j) != '[')
		return json_fail(j, "Events is not an array");
	return json_array(j, event_element, t);
}

static int top_member(struct json_reader *j, const char *key, void *ctx)
{
	struct top_ctx *c = ctx;
	if (!strcmp(key, "Header") && json_peek(j) == '{')
		return json_object(j, header_member, c->t);
	if (!strcmp(key, "Events")) {
		c->has_events = true;
		return events(j, c->t);
	}
	return json_skip(j);
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
	struct json_reader j;
	json_init(&j, text, len, err, errlen);
	struct top_ctx c = { .t = out };
	/* Intel's older files are a bare array of events; the current ones an object with Header and Events. */
	int r = json_peek(&j) == '[' ? (c.has_events = true, events(&j, out)) : json_object(&j, top_member, &c);
	if (r == 0) {
		if (json_end(&j, "table") < 0)
			r = -1;
		else if (!c.has_events)
			r = json_fail(&j, "no Events array: not an Intel perfmon event file");
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
