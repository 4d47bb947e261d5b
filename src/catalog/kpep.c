/*
 * catalog/kpep.c: kpep plist -> struct lk_pmu.  The checks mirror what kperfdata
 * refuses when it loads a database (reference/kpep.md 1.2-1.4): version
 * must be 1.x, `events` must exist, a configurable event needs a 16-bit
 * `number`, every alias and fallback must name an event.  A counters_mask
 * of 0 is refused too: kperfdata cannot place such an event (its allocator
 * returns error 16), so the catalogue would list an event nothing can count.
 */
#include "catalog/kpep.h"
#include "base/bplist.h"
#include "base/error.h"
#include "base/sha256.h"
#include "base/util.h"

#include "kpep-aliases.tsv.inc"

#include <errno.h>
#include <fcntl.h>
#include <plist/plist.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * libplist 2.3 added a format out-parameter (and a return code) to
 * plist_from_memory(); 2.2 returns void.  Either way *root is NULL on failure.
 * 2.3 also reads JSON and OpenStep text, which kperfdata does not: only XML
 * and binary plists are taken.
 */
static plist_t parse_plist(const char *buf, uint32_t len)
{
	plist_t root = NULL;
#ifdef LAUKA_PLIST_2_3
	plist_format_t fmt = PLIST_FORMAT_NONE;
	if ((plist_from_memory(buf, len, &root, &fmt) != PLIST_ERR_SUCCESS ||
	     (fmt != PLIST_FORMAT_XML && fmt != PLIST_FORMAT_BINARY)) && root) {
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

/* A string as it may be shown in an error: control bytes and bytes past 60 escaped or cut. */
static const char *shown(const char *s, size_t n, char *buf, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 8 < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (i == 60) {
			o += (size_t)snprintf(buf + o, len - o, "...");
			break;
		}
		if (ch == 0)
			o += (size_t)snprintf(buf + o, len - o, "\\0");
		else if (ch == '\n')
			o += (size_t)snprintf(buf + o, len - o, "\\n");
		else if (ch < 0x20 || ch == 0x7f || ch >= 0x80)
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", ch);
		else
			buf[o++] = (char)ch;
	}
	buf[o < len ? o : len - 1] = '\0';
	return buf;
}

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	if (s[0] < 0x80)
		return 1;
	size_t k = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	if (!k || k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	uint32_t cp = k == 2 ? (uint32_t)(s[0] & 0x1f) : k == 3 ? (uint32_t)(s[0] & 0x0f) : (uint32_t)(s[0] & 0x07);
	for (size_t i = 1; i < k; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	if ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return k;
}

/*
 * What a string of the plist must be: exactly n bytes with no NUL (libplist
 * keeps the length, C strings stop at the NUL), valid UTF-8, no control
 * characters (a name with a newline breaks every table and one-line message
 * lauka prints), at most max bytes.
 * what names it in the error: "key 'system.cpu.events.X'" or the like.
 */
#define KPEP_MAX_NAME 255
#define KPEP_MAX_TEXT 4096

static int check_text(struct ctx *c, const char *what, const char *s, size_t n, size_t max)
{
	char show[256];
	if (n > max)
		FAIL(c, "%s is %zu bytes long; at most %zu are allowed", what, n, max);
	if (strlen(s) != n)
		FAIL(c, "%s contains a NUL character (U+0000): '%s'", what, shown(s, n, show, sizeof(show)));
	for (size_t i = 0; i < n;) {
		const unsigned char *u = (const unsigned char *)s + i;
		size_t k = utf8_seq(u, n - i);
		if (!k)
			FAIL(c, "%s is not valid UTF-8 (byte %zu): '%s'", what, i, shown(s, n, show, sizeof(show)));
		if (k == 1 && (u[0] < 0x20 || u[0] == 0x7f))
			FAIL(c, "%s contains a control character (0x%02x): '%s'", what, u[0], shown(s, n, show, sizeof(show)));
		i += k;
	}
	return 0;
}

/* A name (event, alias, catalogue): non-empty text of at most KPEP_MAX_NAME bytes. */
static int check_name(struct ctx *c, const char *what, const char *s)
{
	if (!*s)
		FAIL(c, "%s is empty, not a usable name", what);
	return check_text(c, what, s, strlen(s), KPEP_MAX_NAME);
}

/*
 * "key 'system.cpu.events.NAME'" for an error; the name as shown (escaped,
 * cut), since it may be what is wrong.
 */
static const char *key_path(const char *prefix, const char *name, char *buf, size_t len)
{
	char show[256];
	snprintf(buf, len, "key '%s%s'", prefix, shown(name, strlen(name), show, sizeof(show)));
	return buf;
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
	if (!*out)
		FAIL(c, "key '%s%s' is a string libplist cannot read", path, key);
	char what[400];
	snprintf(what, sizeof(what), "key '%s%s'", path, key);
	if (check_text(c, what, *out, (size_t)len, KPEP_MAX_TEXT) < 0)
		return -LK_EPLIST;
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

static int parse_event(struct ctx *c, struct lk_pmu *pmu, const char *name, plist_t e)
{
	char path[320], what[320];
	key_path("system.cpu.events.", name, what, sizeof(what));
	if (check_name(c, what, name) < 0)
		return -LK_EPLIST;
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
		if (pmu->fixed_mask && !(pmu->fixed_mask >> u & 1))
			FAIL(c, "key '%sfixed_counter' is %llu, which system.cpu.fixed_counters (0x%llx) does not name",
			     path, (unsigned long long)u, (unsigned long long)pmu->fixed_mask);
		ev.fixed_counter = (int)u;
		if ((r = get_string(c, e, path, "fallback", &s)) < 0)
			return r;
		if (r && check_name(c, "its fallback", s) < 0)
			return -LK_EPLIST;
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
	/* A fixed event counts on its own counter, or as its fallback event: never elsewhere under its own name. */
	if (ev.fixed_counter >= 0 && ev.counters_mask != UINT64_C(1) << ev.fixed_counter)
		FAIL(c, "key '%scounters_mask' is 0x%llx, but a fixed event counts only on its fixed counter (0x%llx)",
		     path, (unsigned long long)ev.counters_mask, (unsigned long long)(UINT64_C(1) << ev.fixed_counter));
	uint64_t avail = pmu->fixed_mask | pmu->config_mask;
	if (avail && !(ev.counters_mask & avail))
		FAIL(c, "key '%scounters_mask' is 0x%llx, which names none of the counters (0x%llx) of this catalogue",
		     path, (unsigned long long)ev.counters_mask, (unsigned long long)avail);
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

struct ci_key {
	const char *name;
	const char *dict;	/* "events" or "aliases" */
};

static int cmp_ci_key(const void *a, const void *b)
{
	const struct ci_key *x = a, *y = b;
	int r = lk_strcasecmp(x->name, y->name);
	return r ? r : strcmp(x->name, y->name);
}

/*
 * lauka's names are case-insensitive (pmu_find), so of two names that differ
 * only in case one could never be reached: refuse the file, naming both.
 */
static int check_case_clash(struct ctx *c, const struct lk_pmu *pmu, size_t nfile_aliases)
{
	size_t n = pmu->nevents + nfile_aliases;
	struct ci_key *k = xcalloc(n + 1, sizeof(*k));
	for (size_t i = 0; i < pmu->nevents; i++)
		k[i] = (struct ci_key){ pmu->events[i].name, "events" };
	for (size_t i = 0; i < nfile_aliases; i++)
		k[pmu->nevents + i] = (struct ci_key){ pmu->aliases[i].alias, "aliases" };
	qsort(k, n, sizeof(*k), cmp_ci_key);
	int r = 0;
	for (size_t i = 1; i < n && !r; i++) {
		if (lk_strcasecmp(k[i - 1].name, k[i].name))
			continue;
		if (!strcmp(k[i - 1].name, k[i].name))
			fail_at(c, "key '%s' is both an event and an alias", k[i].name);
		else
			fail_at(c, "keys 'system.cpu.%s.%s' and 'system.cpu.%s.%s' differ only in case, and lauka's names are case-insensitive",
				k[i - 1].dict, k[i - 1].name, k[i].dict, k[i].name);
		r = -LK_EPLIST;
	}
	free(k);
	return r;
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
		r = key ? parse_event(c, pmu, key, val) : -LK_EPLIST;
		if (!key)
			fail_at(c, "key 'system.cpu.events' holds an entry without a name");
		free(key);
		if (r < 0) {
			free(it);
			return r;
		}
	}
	free(it);
	pmu_sort(pmu);
	for (size_t i = 0; i < pmu->nevents; i++) {
		const struct lk_event *ev = &pmu->events[i];
		if (i && !strcmp(ev->name, pmu->events[i - 1].name))
			FAIL(c, "key 'system.cpu.events.%s' appears twice", ev->name);
		if (!ev->fallback)
			continue;
		const struct lk_event *fb = pmu_find_exact(pmu, ev->fallback);
		if (!fb)
			FAIL(c, "key 'system.cpu.events.%s.fallback' names '%s', which is not an event", ev->name,
			     ev->fallback);
		if (fb->fixed_counter >= 0)
			FAIL(c, "key 'system.cpu.events.%s.fallback' names '%s', a fixed event; a fallback must be configurable",
			     ev->name, ev->fallback);
	}

	plist_t al = plist_dict_get_item(cpu, "aliases");
	if (al && plist_get_node_type(al) != PLIST_DICT)
		FAIL(c, "key 'system.cpu.aliases' is %s, expected a dictionary", type_name(al));
	if (al) {
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
			char what[320];
			r = 0;
			if (!key) {
				fail_at(c, "key 'system.cpu.aliases' holds an entry without a name");
				r = -LK_EPLIST;
			} else if (check_name(c, key_path("system.cpu.aliases.", key, what, sizeof(what)), key) < 0) {
				r = -LK_EPLIST;
			} else if (plist_get_node_type(val) != PLIST_STRING) {
				fail_at(c, "key 'system.cpu.aliases.%s' is %s, expected an event name", key, type_name(val));
				r = -LK_EPLIST;
			} else {
				uint64_t len = 0;
				target = plist_get_string_ptr(val, &len);
				if (!target || check_text(c, what, target, (size_t)len, KPEP_MAX_NAME) < 0) {
					if (!target)
						fail_at(c, "%s cannot be read", what);
					r = -LK_EPLIST;
				} else if (!pmu_find_exact(pmu, target)) {
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
	}
	if ((r = check_case_clash(c, pmu, pmu->naliases)) < 0)
		return r;
	add_portable_aliases(pmu);
	pmu_sort(pmu);
	return 0;
}

/*
 * The names of the catalogues lauka's backends make themselves (perf:
 * "linux", valgrind, rusage) and the backends' own names: a kpep plist
 * called one of them would hide or be confused with it (`--pmu valgrind`).
 */
static const char *const reserved_names[] = { "linux", "valgrind", "rusage", "perf", "kperf", "xctrace", NULL };

bool kpep_name_reserved(const char *name)
{
	for (size_t i = 0; reserved_names[i]; i++)
		if (!lk_strcasecmp(name, reserved_names[i]))
			return true;
	return false;
}

static int parse_root(struct ctx *c, struct lk_pmu *pmu, plist_t root)
{
	if (plist_get_node_type(root) != PLIST_DICT)
		FAIL(c, "the root is %s, expected a dictionary", type_name(root));
	const char *s;
	int r;
	if ((r = need_string(c, root, "", "name", &s)) < 0)
		return r;
	if (!*s || strchr(s, '/') || check_name(c, "key 'name'", s) < 0) {
		if (!*s || strchr(s, '/'))
			fail_at(c, "key 'name' is '%s', not a usable catalogue name", s);
		return -LK_EPLIST;
	}
	if (kpep_name_reserved(s))
		FAIL(c, "key 'name' is '%s', the name of one of lauka's own catalogues or backends; rename the catalogue", s);
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

/*
 * XML 1.0 cannot hold U+0000, and libplist would cut a name at a raw NUL
 * byte.  Name the key it is in when there is one.
 */
static int xml_scan(struct ctx *c, const char *buf, size_t len)
{
	const char *nul = memchr(buf, '\0', len);
	if (!nul)
		return 0;
	size_t at = (size_t)(nul - buf);
	const char *open = NULL;
	for (const char *p = buf; (p = memmem(p, (size_t)(nul - p), "<key>", 5)); p += 5)
		open = p + 5;
	if (open && !memmem(open, (size_t)(nul - open), "<", 1)) {
		char show[256];
		size_t n = (size_t)(nul - open);
		const char *close = memmem(nul, len - at, "</key>", 6);
		if (close)
			n = (size_t)(close - open);
		FAIL(c, "key '%s' contains a NUL byte (U+0000), which XML cannot hold", shown(open, n, show, sizeof(show)));
	}
	FAIL(c, "byte %zu is NUL (U+0000), which an XML plist cannot hold", at);
}

int kpep_parse(const void *buf, size_t len, const char *source, struct lk_pmu *out, char *err, size_t errlen)
{
	struct ctx c = { .source = source ? source : "kpep plist", .err = err, .errlen = errlen };
	memset(out, 0, sizeof(*out));
	const unsigned char *b = buf;
	size_t skip = 0;
	/*
	 * A UTF-8 byte-order mark: Apple's CFPropertyList skips it (its XML
	 * reader's encodingForXMLData() sets skip = 3) while libplist, which
	 * looks for '<', refuses the file.  kperfdata reads plists through
	 * CFPropertyList, so lauka skips it too.  UTF-16 and UTF-32 (which
	 * CFPropertyList converts) are refused with a way out.
	 */
	if (len >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf)
		skip = 3;
	else if (len >= 2 && ((b[0] == 0xfe && b[1] == 0xff) || (b[0] == 0xff && b[1] == 0xfe) || (b[0] == 0 && len >= 4 && !b[1] && b[2] == 0xfe && b[3] == 0xff))) {
		fail_at(&c, "a UTF-16 or UTF-32 plist, which lauka does not read; convert it to UTF-8 (plutil -convert xml1, or iconv)");
		return -LK_EPLIST;
	}
	if (len - skip == 0 || len - skip > UINT32_MAX) {
		fail_at(&c, len - skip ? "too large for a plist" : "empty file, not a plist");
		return -LK_EPLIST;
	}
	const char *body = (const char *)buf + skip;
	size_t blen = len - skip;
	size_t ws = 0;
	while (ws < blen && (body[ws] == ' ' || body[ws] == '\t' || body[ws] == '\r' || body[ws] == '\n'))
		ws++;
	int r = 0;
	char why[512];
	if (lk_bplist_is(body, blen)) {	/* bounded before libplist sees it (base/bplist.h) */
		if ((r = lk_bplist_check(body, blen, NULL, NULL, why, sizeof(why))) < 0)
			fail_at(&c, "%s", why);
	} else if (ws < blen && body[ws] == '<') {	/* what libplist would take for XML */
		r = xml_scan(&c, body, blen);
		if (r == 0 && (r = lk_xmlplist_check(body, blen, LK_BPLIST_MAX_DEPTH, why, sizeof(why))) < 0)
			fail_at(&c, "%s", why);
	}
	if (r < 0)
		return r;
	plist_t root = parse_plist(body, (uint32_t)blen);
	if (!root) {
		fail_at(&c, "not a plist (neither XML nor binary), or truncated");
		return -LK_EPLIST;
	}
	out->kind = xstrdup("kpep");
	r = parse_root(&c, out, root);
	plist_free(root);
	if (r == 0 && pmu_validate(out, why, sizeof(why)) < 0) {
		fail_at(&c, "%s", why);
		r = -LK_EPLIST;
	}
	if (r < 0) {
		pmu_release(out);
		return r;
	}
	out->source = xstrdup(c.source);
	sha256_hex(buf, len, out->sha256);
	return 0;
}

/*
 * Only a regular file: a FIFO or a device would block or never end.  It is
 * opened without blocking and checked before a byte is read; KPEP_MAX_FILE
 * bytes are allowed, one more is not.
 */
static int read_regular(const char *path, char **out, size_t *len, char *err, size_t errlen)
{
	*out = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		lk_errbuf(err, errlen, "cannot read '%s': %s", path, strerror(e));
		return e == ENOENT ? -LK_ENOENT : -LK_EIO;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		lk_errbuf(err, errlen, "%s: not a regular file (a %s); only plist files can be imported", path,
			  S_ISDIR(st.st_mode) ? "directory" : S_ISFIFO(st.st_mode) ? "FIFO" : S_ISCHR(st.st_mode) ? "character device" :
			  S_ISBLK(st.st_mode) ? "block device" : S_ISSOCK(st.st_mode) ? "socket" : "special file");
		close(fd);
		return -LK_EPLIST;
	}
	if (st.st_size > (off_t)KPEP_MAX_FILE) {
		lk_errbuf(err, errlen, "%s: too large for a kpep plist (over %u MiB)", path, KPEP_MAX_FILE >> 20);
		close(fd);
		return -LK_EPLIST;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n == cap) {
			if (cap > KPEP_MAX_FILE) {	/* it grew while being read */
				free(buf);
				close(fd);
				lk_errbuf(err, errlen, "%s: too large for a kpep plist (over %u MiB)", path, KPEP_MAX_FILE >> 20);
				return -LK_EPLIST;
			}
			cap = cap * 2 > KPEP_MAX_FILE + 1 ? KPEP_MAX_FILE + 1 : cap * 2;
			buf = xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			lk_errbuf(err, errlen, "cannot read '%s': %s", path, strerror(e));
			return -LK_EIO;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*out = buf;
	*len = n;
	return 0;
}

int kpep_parse_file(const char *path, struct lk_pmu *out, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	memset(out, 0, sizeof(*out));
	int r = read_regular(path, &buf, &len, err, errlen);
	if (r < 0)
		return r;
	r = kpep_parse(buf, len, path, out, err, errlen);
	free(buf);
	return r;
}
