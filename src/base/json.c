/*
 * base/json.c: the strict streaming JSON reader of base/json.h.
 */
#include "base/json.h"
#include "base/error.h"

#include <ctype.h>
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

/* A string (the opening quote next), unescaped into sb. */
int json_string(struct json_reader *j, struct strbuf *sb)
{
	if (!json_eat(j, '"'))
		return json_fail(j, "expected a string");
	strbuf_reset(sb);
	strbuf_add(sb, "", 0);
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p;
		if (c < 0x20)
			return json_fail(j, "control character in a string");
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
					return json_fail(j, "lone surrogate in \\u escape");
				j->p += 2;
				if (hex4(j, &lo) < 0 || lo < 0xdc00 || lo >= 0xe000)
					return json_fail(j, "bad surrogate pair in \\u escape");
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				return json_fail(j, "lone surrogate in \\u escape");
			}
			json_utf8(sb, cp);
			continue;
		}
		if (!*j->p || !k)
			return json_fail(j, "bad escape in a string");
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
