/*
 * kpep.c: kpep plist -> struct lk_pmu.  The checks mirror what kperfdata
 * refuses when it loads a database (reference/kpep.md 1.2-1.4): version
 * must be 1.x, `events` must exist, a configurable event needs a 16-bit
 * `number`, every alias and fallback must name an event.  A counters_mask
 * of 0 is refused too: kperfdata cannot place such an event (its allocator
 * returns error 16), so the catalogue would list an event nothing can count.
 */
#include "kpep.h"
#include "error.h"
#include "sha256.h"
#include "util.h"

#include "kpep-aliases.tsv.inc"

#include <errno.h>
#include <plist/plist.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * libplist 2.3 added a format out-parameter (and a return code) to
 * plist_from_memory(); 2.2 returns void.  Either way *root is NULL on failure.
 */
static plist_t parse_plist(const char *buf, uint32_t len)
{
	plist_t root = NULL;
#ifdef LAUKA_PLIST_2_3
	plist_format_t fmt;
	if (plist_from_memory(buf, len, &root, &fmt) != PLIST_ERR_SUCCESS && root) {
		plist_free(root);
		root = NULL;
	}
#else
	plist_from_memory(buf, len, &root);
#endif
	return root;
}

static const char *type_name(plist_t n)
{
	switch (plist_get_node_type(n)) {
	case PLIST_BOOLEAN: return "a boolean";
	case PLIST_UINT: return "an integer";
	case PLIST_REAL: return "a real number";
	case PLIST_STRING: return "a string";
	case PLIST_ARRAY: return "an array";
	case PLIST_DICT: return "a dictionary";
	case PLIST_DATE: return "a date";
	case PLIST_DATA: return "data";
	case PLIST_KEY: return "a key";
	case PLIST_UID: return "a UID";
	default: return "of unknown type";
	}
}

struct ctx {
	const char *source;
	char *err;
	size_t errlen;
};

#define FAIL(c, ...) do { fail_at(c, __VA_ARGS__); return -LK_EPLIST; } while (0)

static void fail_at(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_at(struct ctx *c, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	strbuf_addf(&sb, "%s: ", c->source);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	lk_errbuf(c->err, c->errlen, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
}

/* Optional string at d[key]: 0 absent, 1 present (*out borrowed), <0 wrong type. */
static int get_string(struct ctx *c, plist_t d, const char *path, const char *key, const char **out)
{
	plist_t n = plist_dict_get_item(d, key);
	*out = NULL;
	if (!n)
		return 0;
	if (plist_get_node_type(n) != PLIST_STRING)
		FAIL(c, "key '%s%s' is %s, expected a string", path, key, type_name(n));
	uint64_t len = 0;
	*out = plist_get_string_ptr(n, &len);
	return 1;
}

static int get_uint(struct ctx *c, plist_t d, const char *path, const char *key, uint64_t *out)
{
	plist_t n = plist_dict_get_item(d, key);
	if (!n)
		return 0;
	if (plist_get_node_type(n) != PLIST_UINT)
		FAIL(c, "key '%s%s' is %s, expected an integer", path, key, type_name(n));
	plist_get_uint_val(n, out);
	return 1;
}

static int need_string(struct ctx *c, plist_t d, const char *path, const char *key, const char **out)
{
	int r = get_string(c, d, path, key, out);
	if (r == 0)
		FAIL(c, "key '%s%s' is missing", path, key);
	return r < 0 ? r : 0;
}

static int check_version(struct ctx *c, plist_t root)
{
	plist_t v = plist_dict_get_item(root, "version");
	if (!v)
		FAIL(c, "key 'version' is missing");
	if (plist_get_node_type(v) != PLIST_ARRAY || plist_array_get_size(v) < 1)
		FAIL(c, "key 'version' is %s, expected an array [major, minor]", type_name(v));
	plist_t major = plist_array_get_item(v, 0);
	uint64_t m = 0;
	if (plist_get_node_type(major) != PLIST_UINT)
		FAIL(c, "key 'version' starts with %s, expected an integer", type_name(major));
	plist_get_uint_val(major, &m);
	if (m != 1)
		FAIL(c, "key 'version' is %llu.x; only version 1.x kpep databases are supported",
		     (unsigned long long)m);
	return 0;
}

static int cmp_event(const void *a, const void *b)
{
	return strcmp(((const struct lk_event *)a)->name, ((const struct lk_event *)b)->name);
}

static int cmp_alias(const void *a, const void *b)
{
	return strcmp(((const struct lk_alias *)a)->alias, ((const struct lk_alias *)b)->alias);
}

static int parse_event(struct ctx *c, struct lk_pmu *pmu, const char *name, plist_t e)
{
	char path[320];
	snprintf(path, sizeof(path), "system.cpu.events.%s.", name);
	if (plist_get_node_type(e) != PLIST_DICT)
		FAIL(c, "key 'system.cpu.events.%s' is %s, expected a dictionary", name, type_name(e));
	struct lk_event ev = { .name = (char *)name, .fixed_counter = -1 };
	const char *s;
	uint64_t u;
	int r;
	if ((r = get_string(c, e, path, "description", &s)) < 0)
		return r;
	ev.description = (char *)s;
	if ((r = get_string(c, e, path, "errata", &s)) < 0)
		return r;
	ev.errata = (char *)s;
	if ((r = get_uint(c, e, path, "fixed_counter", &u)) < 0)
		return r;
	if (r) {
		if (u >= 64)
			FAIL(c, "key '%sfixed_counter' is %llu, beyond the 64 counters a mask can name", path,
			     (unsigned long long)u);
		ev.fixed_counter = (int)u;
		if ((r = get_string(c, e, path, "fallback", &s)) < 0)
			return r;
		ev.fallback = (char *)s;
	} else {
		/* kperfdata reads `number` only for configurable events. */
		if ((r = get_uint(c, e, path, "number", &ev.number)) < 0)
			return r;
		if (!r)
			FAIL(c, "key '%snumber' is missing", path);
		if (ev.number > 0xffff)
			FAIL(c, "key '%snumber' is 0x%llx, wider than the 16 bits of an event selector", path,
			     (unsigned long long)ev.number);
	}
	if ((r = get_uint(c, e, path, "counters_mask", &ev.counters_mask)) < 0)
		return r;
	if (!r)
		ev.counters_mask = ev.fixed_counter >= 0 ? UINT64_C(1) << ev.fixed_counter : pmu->config_mask;
	if (!ev.counters_mask)
		FAIL(c, "key '%scounters_mask' is 0: no counter can count this event", path);
	if ((r = get_uint(c, e, path, "umask", &ev.umask)) < 0)
		return r;
	if (!r && ev.fixed_counter < 0 && !strcmp(pmu->arch, "x86_64"))
		FAIL(c, "key '%sumask' is missing (required on x86_64)", path);
	pmu_add_event(pmu, &ev);
	return 0;
}

/* catalog/kpep-aliases.tsv: portable names, for the events this catalogue has. */
static void add_portable_aliases(struct lk_pmu *pmu)
{
	char *data = xstrdup(kpep_aliases_tsv), *save = NULL;
	for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');
		if (line[0] == '#' || !tab)
			continue;
		*tab = '\0';
		if (pmu_find(pmu, line))
			continue;
		char *save2 = NULL;
		for (char *t = strtok_r(tab + 1, " ", &save2); t; t = strtok_r(NULL, " ", &save2))
			if (pmu_find_exact(pmu, t)) {
				pmu_add_alias(pmu, line, t);
				break;
			}
	}
	free(data);
}

static int parse_cpu(struct ctx *c, struct lk_pmu *pmu, plist_t cpu)
{
	const char *s;
	int r;
	if ((r = need_string(c, cpu, "system.cpu.", "architecture", &s)) < 0)
		return r;
	pmu->arch = xstrdup(s);
	if ((r = need_string(c, cpu, "system.cpu.", "marketing_name", &s)) < 0)
		return r;
	pmu->marketing_name = xstrdup(s);
	if (get_uint(c, cpu, "system.cpu.", "fixed_counters", &pmu->fixed_mask) < 0 ||
	    get_uint(c, cpu, "system.cpu.", "config_counters", &pmu->config_mask) < 0 ||
	    get_uint(c, cpu, "system.cpu.", "power_counters", &pmu->power_mask) < 0)
		return -LK_EPLIST;

	plist_t evs = plist_dict_get_item(cpu, "events");
	if (!evs)
		FAIL(c, "key 'system.cpu.events' is missing");
	if (plist_get_node_type(evs) != PLIST_DICT)
		FAIL(c, "key 'system.cpu.events' is %s, expected a dictionary", type_name(evs));
	if (plist_dict_get_size(evs) == 0)
		FAIL(c, "key 'system.cpu.events' has no events");
	plist_dict_iter it = NULL;
	plist_dict_new_iter(evs, &it);
	for (;;) {
		char *key = NULL;
		plist_t val = NULL;
		plist_dict_next_item(evs, it, &key, &val);
		if (!val) {
			free(key);
			break;
		}
		r = parse_event(c, pmu, key, val);
		free(key);
		if (r < 0) {
			free(it);
			return r;
		}
	}
	free(it);
	if (pmu->nevents > 1)
		qsort(pmu->events, pmu->nevents, sizeof(*pmu->events), cmp_event);
	for (size_t i = 0; i < pmu->nevents; i++) {
		const struct lk_event *ev = &pmu->events[i];
		if (i && !strcmp(ev->name, pmu->events[i - 1].name))
			FAIL(c, "key 'system.cpu.events.%s' appears twice", ev->name);
		if (ev->fallback && !pmu_find_exact(pmu, ev->fallback))
			FAIL(c, "key 'system.cpu.events.%s.fallback' names '%s', which is not an event", ev->name,
			     ev->fallback);
	}

	plist_t al = plist_dict_get_item(cpu, "aliases");
	if (!al) {
		add_portable_aliases(pmu);
		return 0;
	}
	if (plist_get_node_type(al) != PLIST_DICT)
		FAIL(c, "key 'system.cpu.aliases' is %s, expected a dictionary", type_name(al));
	plist_dict_new_iter(al, &it);
	for (;;) {
		char *key = NULL;
		plist_t val = NULL;
		plist_dict_next_item(al, it, &key, &val);
		if (!val) {
			free(key);
			break;
		}
		const char *target = NULL;
		r = 0;
		if (plist_get_node_type(val) != PLIST_STRING) {
			fail_at(c, "key 'system.cpu.aliases.%s' is %s, expected an event name", key, type_name(val));
			r = -LK_EPLIST;
		} else {
			uint64_t len = 0;
			target = plist_get_string_ptr(val, &len);
			if (!pmu_find_exact(pmu, target)) {
				fail_at(c, "key 'system.cpu.aliases.%s' points to '%s', which is not an event", key, target);
				r = -LK_EPLIST;
			} else if (pmu_find_exact(pmu, key)) {
				fail_at(c, "key 'system.cpu.aliases.%s' has the name of an event", key);
				r = -LK_EPLIST;
			}
		}
		if (!r)
			pmu_add_alias(pmu, key, target);
		free(key);
		if (r < 0) {
			free(it);
			return r;
		}
	}
	free(it);
	add_portable_aliases(pmu);
	if (pmu->naliases > 1)
		qsort(pmu->aliases, pmu->naliases, sizeof(*pmu->aliases), cmp_alias);
	return 0;
}

static int parse_root(struct ctx *c, struct lk_pmu *pmu, plist_t root)
{
	if (plist_get_node_type(root) != PLIST_DICT)
		FAIL(c, "the root is %s, expected a dictionary", type_name(root));
	const char *s;
	int r;
	if ((r = need_string(c, root, "", "name", &s)) < 0)
		return r;
	if (!*s || strchr(s, '/'))
		FAIL(c, "key 'name' is '%s', not a usable catalogue name", s);
	pmu->name = xstrdup(s);
	if ((r = check_version(c, root)) < 0)
		return r;
	plist_t sys = plist_dict_get_item(root, "system");
	if (!sys)
		FAIL(c, "key 'system' is missing");
	if (plist_get_node_type(sys) != PLIST_DICT)
		FAIL(c, "key 'system' is %s, expected a dictionary", type_name(sys));
	plist_t cpu = plist_dict_get_item(sys, "cpu");
	if (!cpu)
		FAIL(c, "key 'system.cpu' is missing");
	if (plist_get_node_type(cpu) != PLIST_DICT)
		FAIL(c, "key 'system.cpu' is %s, expected a dictionary", type_name(cpu));
	return parse_cpu(c, pmu, cpu);
}

int kpep_parse(const void *buf, size_t len, const char *source, struct lk_pmu *out, char *err, size_t errlen)
{
	struct ctx c = { .source = source ? source : "kpep plist", .err = err, .errlen = errlen };
	memset(out, 0, sizeof(*out));
	if (len == 0 || len > UINT32_MAX) {
		fail_at(&c, len ? "too large for a plist" : "empty file, not a plist");
		return -LK_EPLIST;
	}
	plist_t root = parse_plist(buf, (uint32_t)len);
	if (!root) {
		fail_at(&c, "not a plist (neither XML nor binary), or truncated");
		return -LK_EPLIST;
	}
	out->kind = xstrdup("kpep");
	int r = parse_root(&c, out, root);
	plist_free(root);
	if (r < 0) {
		pmu_release(out);
		return r;
	}
	out->source = xstrdup(c.source);
	sha256_hex(buf, len, out->sha256);
	return 0;
}

int kpep_parse_file(const char *path, struct lk_pmu *out, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	memset(out, 0, sizeof(*out));
	int r = lk_read_file(path, KPEP_MAX_FILE, &buf, &len);
	if (r == -EFBIG) {
		lk_errbuf(err, errlen, "%s: too large for a kpep plist (over %u MB)", path, KPEP_MAX_FILE >> 20);
		return -LK_EPLIST;
	}
	if (r < 0) {
		lk_errbuf(err, errlen, "cannot read '%s': %s", path, strerror(-r));
		return r == -ENOENT ? -LK_ENOENT : -LK_EIO;
	}
	r = kpep_parse(buf, len, path, out, err, errlen);
	free(buf);
	return r;
}
