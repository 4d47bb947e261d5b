/*
 * backend/callgrind.c: self cost by function from callgrind output (see
 * callgrind.h for the format and why each rule holds).
 */
#include "backend/callgrind.h"
#include "base/error.h"
#include "base/util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- the table: entries with an open-addressing index on their names ---- */

static size_t hash_str(size_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h * 31u + 7u;
}

static size_t key_hash(const char *object, const char *file, const char *function)
{
	return hash_str(hash_str(hash_str(14695981039346656037u, object), file), function);
}

static bool key_eq(const struct cg_func *f, const char *object, const char *file, const char *function)
{
	return !strcmp(f->function, function) && !strcmp(f->object, object) && !strcmp(f->file, file);
}

static void reindex(struct cg_table *t)
{
	free(t->slot);
	t->nslot = t->nslot ? t->nslot * 2 : 64;
	t->slot = xcalloc(t->nslot, sizeof(*t->slot));
	for (size_t i = 0; i < t->n; i++) {
		size_t h = key_hash(t->f[i].object, t->f[i].file, t->f[i].function) & (t->nslot - 1);
		while (t->slot[h])
			h = (h + 1) & (t->nslot - 1);
		t->slot[h] = i + 1;
	}
}

void cg_table_add(struct cg_table *t, const char *object, const char *file, const char *function, uint64_t cost)
{
	object = object ? object : "";
	file = file ? file : "";
	if ((t->n + 1) * 2 > t->nslot)
		reindex(t);
	size_t h = key_hash(object, file, function) & (t->nslot - 1);
	for (; t->slot[h]; h = (h + 1) & (t->nslot - 1))
		if (key_eq(&t->f[t->slot[h] - 1], object, file, function)) {
			t->f[t->slot[h] - 1].cost += cost;
			return;
		}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->f = xrealloc(t->f, t->cap * sizeof(*t->f));
	}
	t->f[t->n] = (struct cg_func){ xstrdup(function), xstrdup(object), xstrdup(file), cost };
	t->slot[h] = ++t->n;
}

void cg_table_release(struct cg_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->f[i].function);
		free(t->f[i].object);
		free(t->f[i].file);
	}
	free(t->f);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

void cg_table_group(const struct cg_table *in, bool by_file, struct cg_table *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < in->n; i++) {
		const struct cg_func *f = &in->f[i];
		cg_table_add(out, by_file ? "" : f->object, by_file ? f->file : "", f->function, f->cost);
	}
}

static int by_cost(const void *a, const void *b)
{
	const struct cg_func *x = a, *y = b;
	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	int c = strcmp(x->function, y->function);
	if (!c)
		c = strcmp(x->object, y->object);
	return c ? c : strcmp(x->file, y->file);
}

void cg_table_sort(struct cg_table *t)
{
	if (t->n)
		qsort(t->f, t->n, sizeof(*t->f), by_cost);
	if (t->nslot) {
		t->nslot /= 2;	/* reindex doubles it back */
		reindex(t);
	}
}

const struct cg_func *cg_table_find(const struct cg_table *t, const char *function, const char *object)
{
	if (!t->nslot)
		return NULL;
	size_t h = key_hash(object, "", function) & (t->nslot - 1);
	for (; t->slot[h]; h = (h + 1) & (t->nslot - 1))
		if (key_eq(&t->f[t->slot[h] - 1], object, "", function))
			return &t->f[t->slot[h] - 1];
	return NULL;
}

uint64_t cg_table_total(const struct cg_table *t)
{
	uint64_t s = 0;
	for (size_t i = 0; i < t->n; i++)
		s += t->f[i].cost;
	return s;
}

/* ---- the parser ---- */

enum { SP_OB, SP_FL, SP_FN, SP_COUNT };

/* Names by compression id, one array per id space. */
struct idspace {
	char **name;
	size_t n;
};

struct cg_parser {
	char *event;
	long want_part, part;
	struct cg_table *out;
	struct idspace ids[SP_COUNT];
	char *cur[SP_COUNT];	/* current object, file (fl/fi/fe) and function; owned */
	size_t npos;		/* position columns of a cost line */
	long col;		/* the event's column among the costs, -1 = not in this part */
	bool have_events;
	bool call_pending;	/* the next cost line is a call's inclusive cost */
	long lineno;
};

struct cg_parser *cg_parser_new(const char *event, long part, struct cg_table *out)
{
	struct cg_parser *p = xcalloc(1, sizeof(*p));
	p->event = xstrdup(event);
	p->want_part = part;
	p->part = 1;
	p->out = out;
	p->npos = 1;
	p->col = -1;
	return p;
}

static void parser_free(struct cg_parser *p)
{
	for (int s = 0; s < SP_COUNT; s++) {
		for (size_t i = 0; i < p->ids[s].n; i++)
			free(p->ids[s].name[i]);
		free(p->ids[s].name);
		free(p->cur[s]);
	}
	free(p->event);
	free(p);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * The name of "(id) name", "(id)" or "name" (v..ve) in id space s,
 * defining the id when a name follows; malloc'd, or NULL when an id is
 * used before it was defined.
 */
static char *resolve(struct cg_parser *p, int s, const char *v, const char *ve)
{
	while (v < ve && blank(ve[-1]))
		ve--;
	if (v == ve || *v != '(')
		return xasprintf("%.*s", (int)(ve - v), v);
	char *end;
	unsigned long id = strtoul(v + 1, &end, 10);
	if (end == v + 1 || end >= ve || *end != ')' || id > (1ul << 24))
		return xasprintf("%.*s", (int)(ve - v), v);
	const char *name = end + 1;
	while (name < ve && blank(*name))
		name++;
	struct idspace *sp = &p->ids[s];
	if (name < ve) {
		if (id >= sp->n) {
			sp->name = xrealloc(sp->name, (id + 1) * sizeof(*sp->name));
			memset(sp->name + sp->n, 0, (id + 1 - sp->n) * sizeof(*sp->name));
			sp->n = id + 1;
		}
		free(sp->name[id]);
		sp->name[id] = xasprintf("%.*s", (int)(ve - name), name);
		return xstrdup(sp->name[id]);
	}
	return id < sp->n && sp->name[id] ? xstrdup(sp->name[id]) : NULL;
}

static bool key_is(const char *l, const char *le, const char *key, const char **val)
{
	size_t k = strlen(key);
	if ((size_t)(le - l) < k || memcmp(l, key, k))
		return false;
	*val = l + k;
	return true;
}

static int fail(struct cg_parser *p, char *err, size_t errlen, const char *what)
{
	lk_errbuf(err, errlen, "line %ld: %s", p->lineno, what);
	return -LK_EINVAL;
}

/* The events: line: where the event is among the costs. */
static void set_events(struct cg_parser *p, const char *v, const char *ve)
{
	p->col = -1;
	p->have_events = true;
	long i = 0;
	size_t el = strlen(p->event);
	while (v < ve) {
		while (v < ve && blank(*v))
			v++;
		const char *w = v;
		while (v < ve && !blank(*v))
			v++;
		if (v > w) {
			if ((size_t)(v - w) == el && !memcmp(w, p->event, el) && p->col < 0)
				p->col = i;
			i++;
		}
	}
}

static void set_positions(struct cg_parser *p, const char *v, const char *ve)
{
	p->npos = 0;
	while (v < ve) {
		while (v < ve && blank(*v))
			v++;
		const char *w = v;
		while (v < ve && !blank(*v))
			v++;
		p->npos += v > w;
	}
	if (!p->npos)
		p->npos = 1;
}

/* A cost line: skip the positions, read the event's column (absent = 0). */
static int cost_line(struct cg_parser *p, const char *l, const char *le, char *err, size_t errlen)
{
	const char *q = l;
	for (size_t i = 0; i < p->npos; i++) {
		while (q < le && blank(*q))
			q++;
		const char *w = q;
		while (q < le && !blank(*q))
			q++;
		if (q == w)
			return fail(p, err, errlen, "a cost line without its positions");
	}
	bool call = p->call_pending;
	p->call_pending = false;
	if (call || p->col < 0 || (p->want_part && p->part != p->want_part))
		return 0;
	uint64_t v = 0;
	for (long i = 0; i <= p->col; i++) {
		while (q < le && blank(*q))
			q++;
		if (q >= le)
			return 0;	/* trailing zeros omitted */
		if (*q < '0' || *q > '9')
			return fail(p, err, errlen, "a cost that is not a number");
		v = 0;
		while (q < le && *q >= '0' && *q <= '9')
			v = v * 10 + (uint64_t)(*q++ - '0');
		if (q < le && !blank(*q))
			return fail(p, err, errlen, "a cost that is not a number");
	}
	if (!p->cur[SP_FN])
		return fail(p, err, errlen, "a cost line before any fn= line");
	cg_table_add(p->out, p->cur[SP_OB], p->cur[SP_FL], p->cur[SP_FN], v);
	return 0;
}

/*
 * A decimal number from v up to the line's end le (the line is not
 * NUL-terminated: strtol would read on into the next line); -1 when it is
 * none, or too large for a long.
 */
static long line_long(const char *v, const char *le)
{
	while (v < le && (*v == ' ' || *v == '\t'))
		v++;
	if (v >= le || *v < '0' || *v > '9')
		return -1;
	long n = 0;
	for (; v < le && *v >= '0' && *v <= '9'; v++) {
		if (n > (LONG_MAX - (*v - '0')) / 10)
			return -1;
		n = n * 10 + (*v - '0');
	}
	return n;
}

static int set_name(struct cg_parser *p, int s, bool current, const char *v, const char *ve, char *err,
		    size_t errlen)
{
	char *name = resolve(p, s, v, ve);
	if (!name)
		return fail(p, err, errlen, "a name id used before it was defined");
	if (current) {
		free(p->cur[s]);
		p->cur[s] = name;
	} else {
		free(name);
	}
	return 0;
}

int cg_parser_line(struct cg_parser *p, const char *l, size_t len, char *err, size_t errlen)
{
	const char *le = l + len, *v;
	p->lineno++;
	while (le > l && blank(le[-1]))
		le--;
	if (l == le || *l == '#')
		return 0;
	char c = *l;
	if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*')
		return cost_line(p, l, le, err, errlen);
	static const struct { const char *key; int space; bool current; } names[] = {
		{ "ob=", SP_OB, true }, { "fl=", SP_FL, true }, { "fi=", SP_FL, true }, { "fe=", SP_FL, true },
		{ "fn=", SP_FN, true }, { "cob=", SP_OB, false }, { "cfi=", SP_FL, false },
		{ "cfl=", SP_FL, false }, { "cfn=", SP_FN, false }, { "jfi=", SP_FL, false },
		{ "jfn=", SP_FN, false },
	};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (key_is(l, le, names[i].key, &v))
			return set_name(p, names[i].space, names[i].current, v, le, err, errlen);
	if (key_is(l, le, "calls=", &v)) {
		p->call_pending = true;
	} else if (key_is(l, le, "events:", &v)) {
		set_events(p, v, le);
	} else if (key_is(l, le, "positions:", &v)) {
		set_positions(p, v, le);
	} else if (key_is(l, le, "part:", &v)) {
		p->part = line_long(v, le);
		p->call_pending = false;
	}
	/* Anything else (version:, creator:, cmd:, desc:, summary:, totals:,
	 * jump=, jcnd=, event: long names) carries no self cost. */
	return 0;
}

int cg_parser_finish(struct cg_parser *p, char *err, size_t errlen)
{
	int r = 0;
	if (!p->have_events)
		r = fail(p, err, errlen, "not a callgrind output file (no events: line)");
	else if (p->call_pending)
		r = fail(p, err, errlen, "cut short after a calls= line");
	parser_free(p);
	return r;
}

int cg_parse(const char *buf, size_t len, const char *event, long part, struct cg_table *out, char *err,
	     size_t errlen)
{
	struct cg_parser *p = cg_parser_new(event, part, out);
	const char *end = buf + len;
	for (const char *l = buf; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		const char *le = nl ? nl : end;
		int r = cg_parser_line(p, l, (size_t)(le - l), err, errlen);
		if (r < 0) {
			parser_free(p);
			return r;
		}
		l = le + 1;
	}
	return cg_parser_finish(p, err, errlen);
}
