/*
 * catalog/armpmu.c: Arm's PMU JSON -> struct armpmu_table (catalog/armpmu.h),
 * read with base/json.h.
 */
#include "catalog/armpmu.h"
#include "base/error.h"
#include "base/json.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A JSON integer within [0, max] (Arm writes codes as plain decimal numbers); -1 otherwise. */
static int integer(const char *s, unsigned long max, unsigned *v)
{
	char *e;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	unsigned long n = strtoul(s, &e, 10);
	if (errno || *e || n > max || (s[0] == '0' && s[1]))
		return -1;
	*v = (unsigned)n;
	return 0;
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = *v ? xstrdup(v) : NULL;
}

struct ev_ctx {
	struct armpmu_event *e;
	struct strbuf val;
	bool has_code;
};

static int event_member(struct json_reader *j, const char *key, void *ctx)
{
	struct ev_ctx *c = ctx;
	struct armpmu_event *e = c->e;
	if (json_value_text(j, &c->val) < 0)
		return -1;
	const char *v = strbuf_str(&c->val);
	if ((!strcmp(key, "name") || !strcmp(key, "trm_name")) && strlen(v) > ARMPMU_MAX_NAME) {
		char what[128];
		snprintf(what, sizeof(what), "%s '%.40s...' is %zu bytes long; at most %d are allowed", key, v, strlen(v),
			 ARMPMU_MAX_NAME);
		return json_fail(j, what);
	}
	if (!strcmp(key, "name")) {
		set_str(&e->name, v);
	} else if (!strcmp(key, "trm_name")) {
		set_str(&e->trm_name, v);
	} else if (!strcmp(key, "description")) {
		set_str(&e->description, v);
	} else if (!strcmp(key, "architectural") || !strcmp(key, "for_driver")) {
		if (strcmp(v, "true") && strcmp(v, "false")) {
			char what[96];
			snprintf(what, sizeof(what), "%s '%.20s' is not true or false", key, v);
			return json_fail(j, what);
		}
		*(!strcmp(key, "architectural") ? &e->architectural : &e->for_driver) = !strcmp(v, "true");
	} else if (!strcmp(key, "code")) {
		if (integer(v, ARMPMU_MAX_CODE, &e->code) < 0) {
			char what[96];
			snprintf(what, sizeof(what), "code '%.20s' is not an event number up to %u", v, ARMPMU_MAX_CODE);
			return json_fail(j, what);
		}
		c->has_code = true;
	}
	return 0;
}

static int event_element(struct json_reader *j, size_t index, void *ctx)
{
	(void)index;
	struct armpmu_table *t = ctx;
	if (json_peek(j) != '{')
		return json_fail(j, "an event is not an object");
	if (t->n >= ARMPMU_MAX_EVENTS) {
		char what[96];
		snprintf(what, sizeof(what), "more than %d events (lauka's limit)", ARMPMU_MAX_EVENTS);
		return json_fail(j, what);
	}
	if (!(t->n & (t->n - 1)))	/* doubled at each power of two */
		t->events = xrealloc(t->events, (t->n ? 2 * t->n : 1) * sizeof(*t->events));
	struct armpmu_event *e = &t->events[t->n++];
	memset(e, 0, sizeof(*e));
	struct ev_ctx c = { .e = e, .val = STRBUF_INIT };
	int r = json_object(j, event_member, &c);
	strbuf_release(&c.val);
	if (r < 0)
		return -1;
	if (!c.has_code) {
		char what[128];
		snprintf(what, sizeof(what), "event '%.60s' has no code", e->name ? e->name : "(no name)");
		return json_fail(j, what);
	}
	if (!e->name && e->trm_name) {
		e->name = e->trm_name;
		e->trm_name = NULL;
	}
	if (e->trm_name && !lk_strcasecmp(e->trm_name, e->name)) {
		free(e->trm_name);
		e->trm_name = NULL;
	}
	return 0;
}

struct top_ctx {
	struct armpmu_table *t;
	bool has_events;
};

static int top_member(struct json_reader *j, const char *key, void *ctx)
{
	struct top_ctx *c = ctx;
	struct armpmu_table *t = c->t;
	if (!strcmp(key, "events")) {
		c->has_events = true;
		return json_array(j, event_element, t);
	}
	char **dst = !strcmp(key, "cpu") ? &t->cpu : !strcmp(key, "cpuid") ? &t->cpuid :
		     !strcmp(key, "pmu_architecture") ? &t->pmu_architecture : NULL;
	if (!dst && strcmp(key, "counters"))
		return json_skip(j);
	struct strbuf sb = STRBUF_INIT;
	int r = json_value_text(j, &sb);
	const char *v = strbuf_str(&sb);
	if (r == 0 && dst) {
		set_str(dst, v);
	} else if (r == 0 && (integer(v, 31, &t->counters) < 0 || !t->counters)) {
		char what[96];
		snprintf(what, sizeof(what), "counters '%.20s' is not a number of counters from 1 to 31", v);
		r = json_fail(j, what);
	}
	strbuf_release(&sb);
	return r;
}

/* By name; the unnamed ones (Cortex-A53's IMPLEMENTATION DEFINED events 0xC0-0xE9) last, by code. */
static int cmp_event(const void *a, const void *b)
{
	const struct armpmu_event *x = a, *y = b;
	if (!x->name || !y->name)
		return x->name ? -1 : y->name ? 1 : x->code < y->code ? -1 : x->code > y->code;
	return lk_strcasecmp(x->name, y->name);
}

int armpmu_parse(const char *text, size_t len, struct armpmu_table *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	struct json_reader j;
	json_init(&j, text, len, err, errlen);
	struct top_ctx c = { .t = out };
	int r = json_object(&j, top_member, &c);
	if (r == 0) {
		if (json_end(&j, "table") < 0)
			r = -1;
		else if (!c.has_events)
			r = json_fail(&j, "no events array: not an Arm PMU event file");
	}
	if (r == 0 && out->pmu_architecture && strncmp(out->pmu_architecture, "pmuv3", 5)) {
		lk_errbuf(err, errlen, "pmu_architecture '%.20s': lauka reads PMUv3 tables (Armv8 and later)",
			  out->pmu_architecture);
		r = -1;
	}
	if (r < 0) {
		armpmu_release(out);
		return -1;
	}
	if (out->n > 1)
		qsort(out->events, out->n, sizeof(*out->events), cmp_event);
	while (out->named < out->n && out->events[out->named].name)
		out->named++;
	for (size_t i = 1; i < out->named; i++)
		if (!lk_strcasecmp(out->events[i].name, out->events[i - 1].name)) {
			lk_errbuf(err, errlen, "event '%.60s' is listed twice", out->events[i].name);
			armpmu_release(out);
			return -1;
		}
	return 0;
}

void armpmu_release(struct armpmu_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->events[i].name);
		free(t->events[i].trm_name);
		free(t->events[i].description);
	}
	free(t->events);
	free(t->cpu);
	free(t->cpuid);
	free(t->pmu_architecture);
	memset(t, 0, sizeof(*t));
}

static int cmp_name(const void *key, const void *elem)
{
	return lk_strcasecmp(key, ((const struct armpmu_event *)elem)->name);
}

const struct armpmu_event *armpmu_find(const struct armpmu_table *t, const char *name)
{
	const struct armpmu_event *e = t->named ? bsearch(name, t->events, t->named, sizeof(*t->events), cmp_name) : NULL;
	if (e)
		return e;
	for (size_t i = 0; i < t->n; i++)
		if (t->events[i].trm_name && !lk_strcasecmp(t->events[i].trm_name, name))
			return &t->events[i];
	return NULL;
}

bool armpmu_sniff(const char *text, size_t len)
{
	/* Intel's keys are capitalised ("Events", "EventCode"); Arm's are not.  In valid JSON only a
	 * top-level key counts: "events" in a description or a nested object says nothing. */
	int r = json_top_key(text, len, "events");
	if (r >= 0)
		return r;
	/* Not valid JSON: the key anywhere, so that the refusal names the format the file was meant to be. */
	static const char key[] = "\"events\"";
	for (size_t i = 0; i + sizeof(key) - 1 <= len; i++)
		if (!memcmp(text + i, key, sizeof(key) - 1))
			return true;
	return false;
}
