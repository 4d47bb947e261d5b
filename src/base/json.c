/*
 * base/json.c: the strict streaming JSON reader of base/json.h.
 */
#include "base/json.h"
#include "base/error.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_init(struct json_reader *j, const char *text, size_t len, char *err, size_t errlen)
{
	memset(j, 0, sizeof(*j));
	j->s = j->p = text;
	j->end = text + len;
	j->err = err;
	j->errlen = errlen;
}


int json_fail(struct json_reader *j, const char *what)
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

static void ws(struct json_reader *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

bool json_eat(struct json_reader *j, char c)
{
	ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

static int hex4(struct json_reader *j, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++, j->p++) {
		if (j->p >= j->end || !isxdigit((unsigned char)*j->p))
			return json_fail(j, "bad \\u escape");
		char c = *j->p;
		*v = *v * 16 + (unsigned)(isdigit((unsigned char)c) ? c - '0' : (tolower((unsigned char)c) - 'a' + 10));
	}
	return 0;
}

void json_utf8(struct strbuf *sb, unsigned cp)
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

/*
 * The length of the UTF-8 sequence at u (n bytes left): 0 when it is not
 * valid UTF-8 (a stray continuation byte, an overlong form, a surrogate,
 * beyond U+10FFFF or cut short).  *cp gets the code point.
 */
static size_t utf8_at(const unsigned char *u, size_t n, unsigned *cp)
{
	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	size_t k = u[0] >= 0xf0 && u[0] <= 0xf4 ? 4 : u[0] >= 0xe0 && u[0] < 0xf0 ? 3 : u[0] >= 0xc2 && u[0] < 0xe0 ? 2 : 0;
	if (!k || k > n)
		return 0;
	unsigned v = u[0] & (0x7f >> k);
	for (size_t i = 1; i < k; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (u[i] & 0x3f);
	}
	if ((k == 3 && (v < 0x800 || (v >= 0xd800 && v < 0xe000))) || (k == 4 && (v < 0x10000 || v > 0x10ffff)))
		return 0;
	*cp = v;
	return k;
}

/* Control characters (C0, DEL, C1) and NUL: terminal escapes and forged lines in a listing or an error. */
static bool is_control(unsigned cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

static int fail_control(struct json_reader *j, unsigned cp)
{
	char what[96];
	snprintf(what, sizeof(what), cp ? "control character U+%04X in a string (lauka refuses them)" :
		 "NUL (U+0000) in a string", cp);
	return json_fail(j, what);
}

/*
 * A string (the opening quote next), unescaped into sb: valid UTF-8 with
 * no control character (C0, DEL, C1) or NUL, raw or escaped, and at most
 * JSON_MAX_STRING bytes, as kpep imports are held (catalog/kpep.c).
 */
int json_string(struct json_reader *j, struct strbuf *sb)
{
	if (!json_eat(j, '"'))
		return json_fail(j, "expected a string");
	strbuf_reset(sb);
	strbuf_add(sb, "", 0);
	while (j->p < j->end && *j->p != '"') {
		const char *q = j->p;
		while (q < j->end && *q != '"' && *q != '\\' && sb->len + (size_t)(q - j->p) <= JSON_MAX_STRING) {
			unsigned cp;
			size_t k = utf8_at((const unsigned char *)q, (size_t)(j->end - q), &cp);
			if (!k || is_control(cp)) {
				j->p = q;
				return k ? fail_control(j, cp) : json_fail(j, "not valid UTF-8 in a string");
			}
			q += k;
		}
		strbuf_add(sb, j->p, (size_t)(q - j->p));
		j->p = q;
		if (sb->len > JSON_MAX_STRING) {
			char what[96];
			snprintf(what, sizeof(what), "a string longer than %d bytes (lauka's limit)", JSON_MAX_STRING);
			return json_fail(j, what);
		}
		if (j->p >= j->end || *j->p != '\\')
			continue;
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
					return json_fail(j, "lone surrogate in \\u escape");
				j->p += 2;
				if (hex4(j, &lo) < 0 || lo < 0xdc00 || lo >= 0xe000)
					return json_fail(j, "bad surrogate pair in \\u escape");
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				return json_fail(j, "lone surrogate in \\u escape");
			}
			if (is_control(cp))
				return fail_control(j, cp);
			json_utf8(sb, cp);
			continue;
		}
		if (!*j->p || !k)
			return json_fail(j, "bad escape in a string");
		if (is_control((unsigned char)to[k - from]))
			return fail_control(j, (unsigned char)to[k - from]);
		strbuf_add(sb, &to[k - from], 1);
		j->p++;
	}
	if (j->p >= j->end)
		return json_fail(j, "string not closed");
	j->p++;
	return 0;
}

/* A number, true, false or null as its text. */
static int scalar(struct json_reader *j, struct strbuf *sb)
{
	ws(j);
	const char *q = j->p;
	while (q < j->end && (isalnum((unsigned char)*q) || *q == '-' || *q == '+' || *q == '.'))
		q++;
	if (q == j->p)
		return json_fail(j, "expected a value");
	strbuf_reset(sb);
	strbuf_add(sb, j->p, (size_t)(q - j->p));
	const char *t = strbuf_str(sb);
	char *e;
	errno = 0;
	if (strcmp(t, "true") && strcmp(t, "false") && strcmp(t, "null") &&
	    (strtod(t, &e), *e || !(isdigit((unsigned char)*t) || *t == '-')))
		return json_fail(j, "expected a value");
	j->p = q;
	return 0;
}


/* Any value as text when it is a string or scalar; objects and arrays are skipped (text ""). */
int json_value_text(struct json_reader *j, struct strbuf *sb)
{
	ws(j);
	if (j->p >= j->end)
		return json_fail(j, "unexpected end of file");
	if (*j->p == '"')
		return json_string(j, sb);
	if (*j->p == '{' || *j->p == '[') {
		strbuf_reset(sb);
		return json_skip(j);
	}
	return scalar(j, sb);
}


int json_object(struct json_reader *j, json_member_fn cb, void *ctx)
{
	if (!json_eat(j, '{'))
		return json_fail(j, "expected an object");
	if (++j->depth > JSON_MAX_DEPTH)
		return json_fail(j, "nested too deeply");
	struct strbuf key = STRBUF_INIT;
	int r = 0;
	if (!json_eat(j, '}')) {
		do {
			if ((r = json_string(j, &key)) < 0)
				break;
			if (!json_eat(j, ':')) {
				r = json_fail(j, "expected ':'");
				break;
			}
			if ((r = cb(j, strbuf_str(&key), ctx)) < 0)
				break;
		} while (json_eat(j, ','));
		if (r == 0 && !json_eat(j, '}'))
			r = json_fail(j, "expected ',' or '}'");
	}
	strbuf_release(&key);
	j->depth--;
	return r;
}

static int skip_member(struct json_reader *j, const char *key, void *ctx)
{
	(void)key;
	(void)ctx;
	return json_skip(j);
}

int json_skip(struct json_reader *j)
{
	ws(j);
	if (j->p >= j->end)
		return json_fail(j, "unexpected end of file");
	if (*j->p == '{')
		return json_object(j, skip_member, NULL);
	if (*j->p == '[') {
		j->p++;
		if (++j->depth > JSON_MAX_DEPTH)
			return json_fail(j, "nested too deeply");
		int r = 0;
		if (!json_eat(j, ']')) {
			do
				r = json_skip(j);
			while (r == 0 && json_eat(j, ','));
			if (r == 0 && !json_eat(j, ']'))
				r = json_fail(j, "expected ',' or ']'");
		}
		j->depth--;
		return r;
	}
	struct strbuf sb = STRBUF_INIT;
	int r = json_value_text(j, &sb);
	strbuf_release(&sb);
	return r;
}


char json_peek(struct json_reader *j)
{
	ws(j);
	return j->p < j->end ? *j->p : 0;
}

int json_array(struct json_reader *j, json_element_fn cb, void *ctx)
{
	if (!json_eat(j, '['))
		return json_fail(j, "expected an array");
	if (++j->depth > JSON_MAX_DEPTH)
		return json_fail(j, "nested too deeply");
	int r = 0;
	size_t i = 0;
	if (!json_eat(j, ']')) {
		do
			r = cb(j, i++, ctx);
		while (r == 0 && json_eat(j, ','));
		if (r == 0 && !json_eat(j, ']'))
			r = json_fail(j, "expected ',' or ']'");
	}
	j->depth--;
	return r;
}

int json_end(struct json_reader *j, const char *what)
{
	ws(j);
	if (j->p == j->end)
		return 0;
	char msg[128];
	snprintf(msg, sizeof(msg), "text after the end of the %s", what);
	return json_fail(j, msg);
}

struct top_key {
	const char *key;
	bool found;
};

static int top_key_member(struct json_reader *j, const char *key, void *ctx)
{
	struct top_key *t = ctx;
	if (!strcmp(key, t->key)) {
		t->found = true;
		return -1;	/* found: no need to read on */
	}
	return json_skip(j);
}

int json_top_key(const char *text, size_t len, const char *key)
{
	struct json_reader j;
	char err[8];
	json_init(&j, text, len, err, sizeof(err));
	struct top_key t = { .key = key };
	if (json_peek(&j) != '{')
		return 0;
	if (json_object(&j, top_key_member, &t) < 0 && !t.found)
		return -1;
	return t.found;
}

const char *json_text_problem(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		unsigned cp;
		size_t k = utf8_at(u + i, n - i, &cp);
		if (!k)
			return "is not valid UTF-8";
		if (is_control(cp))
			return cp ? "contains a control character" : "contains a NUL character (U+0000)";
		i += k;
	}
	return NULL;
}

const char *json_shown(const char *s, char *buf, size_t len)
{
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p && o + 5 < len; p++) {
		if (*p < 0x20 || *p >= 0x7f)
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", *p);
		else
			buf[o++] = (char)*p;
	}
	if (len)
		buf[o < len ? o : len - 1] = '\0';
	return buf;
}
