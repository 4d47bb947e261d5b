/*
 * catalog/notes-json.c: one baseline as one JSON line, both ways
 * (notes_baseline_encode, notes_baseline_decode in catalog/notes.h).
 *
 * A note is written by anyone who can push to the repository, so the reader
 * takes every byte as hostile: it reads straight into the baseline (no value
 * tree: memory stays a small multiple of the line), refuses what the writer
 * never makes (a NUL, a raw control character in a string, an invalid
 * escape or lone surrogate, a duplicate key, a number that is not finite
 * or negative, runs that are not the count of samples), and checks every
 * count against NOTES_MAX_* before it grows an array.  Unknown keys are
 * skipped (a later lauka may add some), to a bounded depth.
 */
#include "catalog/notes.h"
#include "base/error.h"
#include "base/json.h"
#include "base/util.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ---- */

static void put_str(struct strbuf *sb, const char *s)
{
	if (!s) {
		strbuf_add(sb, "null", 4);
		return;
	}
	strbuf_add(sb, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_addf(sb, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			strbuf_addf(sb, "\\u%04x", *p);
		else
			strbuf_add(sb, (const char *)p, 1);
	}
	strbuf_add(sb, "\"", 1);
}

static void put_num(struct strbuf *sb, double v)
{
	if (!isfinite(v))
		strbuf_add(sb, "null", 4);
	else if (v == floor(v) && fabs(v) < 9e15)
		strbuf_addf(sb, "%.0f", v);
	else
		strbuf_addf(sb, "%.17g", v);
}

static void put_cmd(struct strbuf *sb, const struct db_baseline *b, const struct db_baseline_cmd *bc)
{
	strbuf_addf(sb, "{\"name\":");
	put_str(sb, bc->name);
	strbuf_addf(sb, ",\"command\":");
	put_str(sb, bc->command);
	strbuf_addf(sb, ",\"runs\":%zu,\"samples\":[", bc->runs);
	for (size_t m = 0; m < b->nmeas; m++) {
		strbuf_addf(sb, "%s[", m ? "," : "");
		for (size_t r = 0; r < bc->runs; r++) {
			if (r)
				strbuf_add(sb, ",", 1);
			put_num(sb, bc->samples[m][r]);
		}
		strbuf_add(sb, "]", 1);
	}
	strbuf_add(sb, "]}", 2);
}

char *notes_baseline_encode(const struct db_baseline *b)
{
	struct strbuf sb = STRBUF_INIT;
	/* name first: the sorted lines of a note group by baseline name. */
	strbuf_addf(&sb, "{\"name\":");
	put_str(&sb, b->name);
	strbuf_addf(&sb, ",\"runner_class\":");
	put_str(&sb, b->runner_class);
	strbuf_addf(&sb, ",\"lauka_baseline\":1,\"backend\":");
	put_str(&sb, b->backend);
	strbuf_addf(&sb, ",\"lauka_version\":");
	put_str(&sb, b->lauka_version);
	strbuf_addf(&sb, ",\"git_commit\":");
	put_str(&sb, b->git_commit);
	strbuf_addf(&sb, ",\"shell\":");
	put_str(&sb, b->shell);
	strbuf_addf(&sb, ",\"fingerprint\":");
	put_str(&sb, b->fingerprint);
	strbuf_addf(&sb, ",\"created_at\":%lld,\"measurements\":[", b->created_at);
	for (size_t m = 0; m < b->nmeas; m++) {
		if (m)
			strbuf_add(&sb, ",", 1);
		put_str(&sb, b->meas[m]);
	}
	strbuf_addf(&sb, "],\"units\":[");
	for (size_t m = 0; m < b->nmeas; m++) {
		if (m)
			strbuf_add(&sb, ",", 1);
		put_str(&sb, b->units ? b->units[m] : NULL);
	}
	strbuf_addf(&sb, "],\"commands\":[");
	for (size_t c = 0; c < b->ncmds; c++) {
		if (c)
			strbuf_add(&sb, ",", 1);
		put_cmd(&sb, b, &b->cmds[c]);
	}
	strbuf_add(&sb, "]}", 2);
	char *out = xstrdup(strbuf_str(&sb));
	strbuf_release(&sb);
	return out;
}

/* ---- reading ---- */

struct rd {
	const char *p, *end;
	const char *why;	/* the first reason the line is refused */
};

static bool fail(struct rd *r, const char *why)
{
	if (!r->why)
		r->why = why;
	return false;
}

static void ws(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\r' || *r->p == '\n'))
		r->p++;
}

/* Skip white space; consume c when it is next. */
static bool eat(struct rd *r, char c)
{
	ws(r);
	if (r->p < r->end && *r->p == c) {
		r->p++;
		return true;
	}
	return false;
}

static bool peek(struct rd *r, char c)
{
	ws(r);
	return r->p < r->end && *r->p == c;
}

static bool eat_null(struct rd *r)
{
	ws(r);
	if (r->end - r->p >= 4 && !memcmp(r->p, "null", 4)) {
		r->p += 4;
		return true;
	}
	return false;
}

static int hex4(const char *p)
{
	int v = 0;
	for (int k = 0; k < 4; k++) {
		char h = p[k];
		int d = h >= '0' && h <= '9'   ? h - '0'
			: h >= 'a' && h <= 'f' ? h - 'a' + 10
			: h >= 'A' && h <= 'F' ? h - 'A' + 10
					       : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* One \uXXXX (with its low surrogate when it is a high one) as UTF-8; r->p after the 'u'. */
static bool escape_u(struct rd *r, struct strbuf *sb)
{
	int cp = r->end - r->p >= 4 ? hex4(r->p) : -1;
	if (cp < 0)
		return fail(r, "an invalid \\u escape in a string");
	r->p += 4;
	if (cp == 0)
		return fail(r, "a NUL (\\u0000) in a string");
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail(r, "a lone surrogate in a string");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		int lo = r->end - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u' ? hex4(r->p + 2) : -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return fail(r, "a lone surrogate in a string");
		r->p += 6;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	json_utf8(sb, (unsigned)cp);
	return true;
}

/* A JSON string (r->p at its quote), malloc'd; NULL with r->why. */
static char *read_str(struct rd *r)
{
	if (!eat(r, '"'))
		return fail(r, "a string was expected"), NULL;
	struct strbuf sb = STRBUF_INIT;
	bool ok = true;
	while (ok) {
		if (r->p >= r->end) {
			ok = fail(r, "a string does not end");
			break;
		}
		unsigned char c = (unsigned char)*r->p++;
		if (c == '"')
			break;
		if (c < 0x20) {
			ok = fail(r, "a raw control character in a string");
		} else if (c != '\\') {
			strbuf_add(&sb, (const char *)&c, 1);
		} else if (r->p >= r->end) {
			ok = fail(r, "a string does not end");
		} else {
			char e = *r->p++;
			const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t", *k = strchr(from, e);
			if (e == 'u')
				ok = escape_u(r, &sb);
			else if (k && e)
				strbuf_add(&sb, to + (k - from), 1);
			else
				ok = fail(r, "an invalid escape in a string");
		}
		if (ok && sb.len > NOTES_MAX_STRING)
			ok = fail(r, "a string longer than lauka reads");
	}
	char *out = ok ? xstrdup(strbuf_str(&sb)) : NULL;
	strbuf_release(&sb);
	return out;
}

/* A string or null (*out NULL). */
static bool read_str_or_null(struct rd *r, char **out)
{
	free(*out);
	*out = NULL;
	if (eat_null(r))
		return true;
	*out = read_str(r);
	return *out != NULL;
}

/* A JSON number, as the grammar has it (no NaN, no hex, no leading '+'), finite. */
static bool read_num(struct rd *r, double *out)
{
	ws(r);
	const char *s = r->p;
	size_t k = 0, n = (size_t)(r->end - s);
	char buf[72];
	if (k < n && s[k] == '-')
		k++;
	size_t int0 = k;
	while (k < n && s[k] >= '0' && s[k] <= '9')
		k++;
	bool ok = k > int0 && !(s[int0] == '0' && k - int0 > 1);
	if (ok && k < n && s[k] == '.') {
		size_t f0 = ++k;
		while (k < n && s[k] >= '0' && s[k] <= '9')
			k++;
		ok = k > f0;
	}
	if (ok && k < n && (s[k] == 'e' || s[k] == 'E')) {
		k++;
		if (k < n && (s[k] == '+' || s[k] == '-'))
			k++;
		size_t e0 = k;
		while (k < n && s[k] >= '0' && s[k] <= '9')
			k++;
		ok = k > e0;
	}
	if (!ok || k >= sizeof(buf))
		return fail(r, "a number is not a JSON number lauka reads");
	memcpy(buf, s, k);
	buf[k] = '\0';
	*out = strtod(buf, NULL);
	r->p += k;
	if (!isfinite(*out))
		return fail(r, "a number is not finite");
	return true;
}

/* Skip one value of any kind (an unknown key's), nested at most 16 deep. */
static bool skip_value(struct rd *r, int depth)
{
	double d;
	char *s = NULL;
	if (depth > 16)
		return fail(r, "values nested too deep");
	if (eat_null(r))
		return true;
	if (peek(r, '"')) {
		s = read_str(r);
		free(s);
		return s != NULL;
	}
	bool obj = eat(r, '{');
	if (!obj && !eat(r, '['))
		return read_num(r, &d);
	if (eat(r, obj ? '}' : ']'))
		return true;
	do {
		if (obj) {
			if (!(s = read_str(r)))
				return false;
			free(s);
			if (!eat(r, ':'))
				return fail(r, "a ':' is missing");
		}
		if (!skip_value(r, depth + 1))
			return false;
	} while (eat(r, ','));
	return eat(r, obj ? '}' : ']') || fail(r, "not a JSON object");
}

/* [ item, ... ] with each(r, index, arg) reading one item; at most max items. */
static bool read_array(struct rd *r, size_t max, bool (*each)(struct rd *, size_t, void *), void *arg)
{
	if (!eat(r, '['))
		return fail(r, "an array was expected");
	if (eat(r, ']'))
		return true;
	size_t i = 0;
	do {
		if (i >= max)
			return fail(r, "more items in an array than lauka reads");
		if (!each(r, i++, arg))
			return false;
	} while (eat(r, ','));
	return eat(r, ']') || fail(r, "an array does not end");
}

/* A growing array of pointers (strings, sample rows). */
struct vec {
	void **v;
	size_t n, cap;
};

static void vec_push(struct vec *v, void *p)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 4;
		v->v = xrealloc(v->v, v->cap * sizeof(*v->v));
	}
	v->v[v->n++] = p;
}

static bool each_str(struct rd *r, size_t i, void *arg)
{
	(void)i;
	char *s = NULL;
	if (!read_str_or_null(r, &s))
		return false;
	vec_push(arg, s);
	return true;
}

/* One row of samples: numbers (finite, not negative, below 2^64) or null for a run that did not count it. */
struct row {
	double *v;
	size_t n, cap;
};

static bool each_sample(struct rd *r, size_t i, void *arg)
{
	struct row *row = arg;
	double d = NAN;
	(void)i;
	if (!eat_null(r)) {
		if (!read_num(r, &d))
			return false;
		if (d < 0)
			return fail(r, "a sample is negative");
		if (d >= 0x1p64)	/* no counter or clock lauka reads holds more than 64 bits */
			return fail(r, "a sample is 2^64 or more, beyond any 64-bit count");
	}
	if (row->n == row->cap) {
		row->cap = row->cap ? row->cap * 2 : 8;
		row->v = xrealloc(row->v, row->cap * sizeof(*row->v));
	}
	row->v[row->n++] = d;
	return true;
}

struct cmd_rd {
	struct db_baseline_cmd c;
	struct vec rows;	/* struct row * */
	double runs;
	unsigned seen;
};

static bool each_row(struct rd *r, size_t i, void *arg)
{
	(void)i;
	struct row *row = xcalloc(1, sizeof(*row));
	vec_push(arg, row);
	return read_array(r, NOTES_MAX_RUNS, each_sample, row);
}

/* Did this object already have key k (bit)?  A duplicate is refused: readers would differ on which counts. */
static bool first_time(struct rd *r, unsigned *seen, unsigned bit)
{
	if (*seen & bit)
		return fail(r, "a key appears twice");
	*seen |= bit;
	return true;
}

static bool cmd_member(struct rd *r, const char *key, struct cmd_rd *c)
{
	if (!strcmp(key, "name"))
		return first_time(r, &c->seen, 1) && read_str_or_null(r, &c->c.name);
	if (!strcmp(key, "command"))
		return first_time(r, &c->seen, 2) && read_str_or_null(r, &c->c.command);
	if (!strcmp(key, "runs"))
		return first_time(r, &c->seen, 4) && read_num(r, &c->runs);
	if (!strcmp(key, "samples"))
		return first_time(r, &c->seen, 8) && read_array(r, NOTES_MAX_MEAS, each_row, &c->rows);
	return skip_value(r, 2);
}

/* { key: value, ... } with member(r, key, arg) reading each value. */
static bool read_object(struct rd *r, bool (*member)(struct rd *, const char *, void *), void *arg)
{
	if (!eat(r, '{'))
		return fail(r, "not a JSON object");
	if (eat(r, '}'))
		return true;
	do {
		char *key = read_str(r);
		bool ok = key && (eat(r, ':') || fail(r, "a ':' is missing")) && member(r, key, arg);
		free(key);
		if (!ok)
			return false;
	} while (eat(r, ','));
	return eat(r, '}') || fail(r, "not a JSON object");
}

static bool cmd_member_v(struct rd *r, const char *key, void *arg)
{
	return cmd_member(r, key, arg);
}

static bool each_cmd(struct rd *r, size_t i, void *arg)
{
	(void)i;
	struct cmd_rd *c = xcalloc(1, sizeof(*c));
	c->runs = -1;
	vec_push(arg, c);
	return read_object(r, cmd_member_v, c);
}

struct line_rd {
	struct db_baseline *b;
	struct vec meas, units, cmds;	/* char *, char *, struct cmd_rd * */
	double version, created;
	unsigned seen;
};

static bool line_member(struct rd *r, const char *key, void *arg)
{
	struct line_rd *l = arg;
	static const char *const strs[] = { "name", "runner_class", "backend", "lauka_version", "git_commit", "shell",
					    "fingerprint" };
	char **dst[] = { &l->b->name, &l->b->runner_class, &l->b->backend, &l->b->lauka_version, &l->b->git_commit,
			 &l->b->shell, &l->b->fingerprint };
	for (unsigned k = 0; k < ARRAY_SIZE(strs); k++)
		if (!strcmp(key, strs[k]))
			return first_time(r, &l->seen, 1u << k) && read_str_or_null(r, dst[k]);
	if (!strcmp(key, "lauka_baseline"))
		return first_time(r, &l->seen, 1u << 8) && read_num(r, &l->version);
	if (!strcmp(key, "created_at"))
		return first_time(r, &l->seen, 1u << 9) && read_num(r, &l->created);
	if (!strcmp(key, "measurements"))
		return first_time(r, &l->seen, 1u << 10) && read_array(r, NOTES_MAX_MEAS, each_str, &l->meas);
	if (!strcmp(key, "units"))
		return first_time(r, &l->seen, 1u << 11) && read_array(r, NOTES_MAX_MEAS, each_str, &l->units);
	if (!strcmp(key, "commands"))
		return first_time(r, &l->seen, 1u << 12) && read_array(r, NOTES_MAX_CMDS, each_cmd, &l->cmds);
	return skip_value(r, 1);
}

/* What is wrong with a line that parsed, or NULL. */
static const char *check(const struct line_rd *l)
{
	const struct db_baseline *b = l->b;
	if (!(l->seen & (1u << 8)))
		return "no \"lauka_baseline\" key";
	if (l->version != 1)
		return "a newer baseline format than this lauka reads";
	if (!(l->seen & (1u << 10)) || !(l->seen & (1u << 12)) || ((l->seen & (1u << 11)) && l->units.n != l->meas.n))
		return "no measurements or commands";
	if (!b->name || !b->runner_class || !b->backend)
		return "a name, runner class or backend is missing";
	if ((l->seen & (1u << 9)) && (l->created < 0 || l->created > 9007199254740992.0 || l->created != floor(l->created)))
		return "created_at is not a time";
	for (size_t m = 0; m < l->meas.n; m++)
		if (!l->meas.v[m])
			return "a measurement name is not a string";
	for (size_t c = 0; c < l->cmds.n; c++) {
		const struct cmd_rd *cr = l->cmds.v[c];
		if (!cr->c.command || cr->runs < 0 || !(cr->seen & 8))
			return "a command lacks its command, runs or samples";
		if (cr->runs != floor(cr->runs) || cr->runs > NOTES_MAX_RUNS)
			return "a command's runs is not a whole number lauka reads";
		if (cr->rows.n != l->meas.n)
			return "a command's samples do not match its runs";
		for (size_t m = 0; m < cr->rows.n; m++)
			if (((const struct row *)cr->rows.v[m])->n != (size_t)cr->runs)
				return "a command's samples do not match its runs";
	}
	return NULL;
}

/* Move what was read into out (which then owns it); everything else freed. */
static void settle(struct line_rd *l, bool keep)
{
	struct db_baseline *b = l->b;
	if (keep) {
		b->nmeas = l->meas.n;
		b->meas = (char **)xcalloc(b->nmeas ? b->nmeas : 1, sizeof(char *));
		b->units = (char **)xcalloc(b->nmeas ? b->nmeas : 1, sizeof(char *));
		for (size_t m = 0; m < b->nmeas; m++) {
			b->meas[m] = l->meas.v[m];
			b->units[m] = m < l->units.n ? l->units.v[m] : NULL;
		}
		b->ncmds = l->cmds.n;
		b->cmds = xcalloc(b->ncmds ? b->ncmds : 1, sizeof(*b->cmds));
		if (!b->lauka_version)
			b->lauka_version = xstrdup("?");
		b->created_at = (long long)l->created;
	}
	for (size_t c = 0; c < l->cmds.n; c++) {
		struct cmd_rd *cr = l->cmds.v[c];
		if (keep) {
			b->cmds[c] = cr->c;
			b->cmds[c].runs = (size_t)cr->runs;
			b->cmds[c].samples = xcalloc(b->nmeas ? b->nmeas : 1, sizeof(double *));
		} else {
			free(cr->c.name);
			free(cr->c.command);
		}
		for (size_t m = 0; m < cr->rows.n; m++) {
			struct row *row = cr->rows.v[m];
			if (keep)
				b->cmds[c].samples[m] = row->v ? row->v : xcalloc(1, sizeof(double));
			else
				free(row->v);
			free(row);
		}
		free(cr->rows.v);
		free(cr);
	}
	if (!keep) {
		for (size_t m = 0; m < l->meas.n; m++)
			free(l->meas.v[m]);
	}
	for (size_t m = keep ? l->meas.n : 0; m < l->units.n; m++)
		free(l->units.v[m]);
	free(l->meas.v);
	free(l->units.v);
	free(l->cmds.v);
}

int notes_baseline_decode(const char *line, size_t len, struct db_baseline *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	struct rd r = { line, line + len, NULL };
	struct line_rd l = { .b = out };
	if (len > NOTES_MAX_LINE)
		r.why = "a line longer than lauka reads";
	else if (memchr(line, '\0', len))
		r.why = "a NUL byte in the line";
	else if (read_object(&r, line_member, &l)) {
		ws(&r);
		if (r.p != r.end)
			r.why = "not a JSON object";
	} else if (!r.why)
		r.why = "not a JSON object";
	const char *why = r.why ? r.why : check(&l);
	settle(&l, !why);
	if (why) {
		lk_errbuf(err, errlen, "not a lauka baseline: %s", why);
		db_baseline_release(out);
		memset(out, 0, sizeof(*out));
		return -LK_EINVAL;
	}
	return 0;
}

/* ---- showing what a note says ---- */

char *notes_printable(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		/* C1 controls are U+0080..U+009F, in UTF-8 0xc2 0x80..0x9f: a terminal may act on them too */
		if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			strbuf_addf(&sb, "\\u%04x", p[1]);
			p++;
		} else if (*p < 0x20 || *p == 0x7f) {
			strbuf_addf(&sb, "\\x%02x", *p);
		} else
			strbuf_add(&sb, (const char *)p, 1);
	}
	char *out = xstrdup(strbuf_str(&sb));
	strbuf_release(&sb);
	return out;
}

static void printable_in_place(char **s)
{
	if (!*s)
		return;
	char *p = notes_printable(*s);
	free(*s);
	*s = p;
}

void notes_baseline_printable(struct db_baseline *b)
{
	char **strs[] = { &b->name, &b->runner_class, &b->backend, &b->lauka_version, &b->git_commit, &b->shell,
			  &b->fingerprint };
	for (size_t k = 0; k < ARRAY_SIZE(strs); k++)
		printable_in_place(strs[k]);
	for (size_t m = 0; m < b->nmeas; m++) {
		printable_in_place(&b->meas[m]);
		if (b->units)
			printable_in_place(&b->units[m]);
	}
	for (size_t c = 0; c < b->ncmds; c++) {
		printable_in_place(&b->cmds[c].name);
		printable_in_place(&b->cmds[c].command);
	}
}
