/*
 * base/json.h: a strict, streaming JSON reader for vendor event tables
 * (Intel's perfmon files, Arm's PMU files).  No value tree: a caller walks
 * an object member by member (json_object with a callback) or an array
 * element by element (json_array), reads the values it knows as text and
 * skips the rest, so a file with fields lauka does not know still parses.
 * The whole grammar is checked: a file cut short, a stray byte, a lone
 * surrogate or nesting deeper than JSON_MAX_DEPTH is refused with its line
 * ("line 12: ..."), never half read.  The tables are untrusted files whose
 * text ends up in listings and errors, so strings are held as kpep's are:
 * valid UTF-8, no control character (C0, DEL, C1) or NUL, raw or escaped,
 * and at most JSON_MAX_STRING bytes.
 * (catalog/notes-json.c reads baselines from git notes with its own, still
 * stricter rules: duplicate keys, NUL bytes, size limits.)
 */
#ifndef LAUKA_JSON_H
#define LAUKA_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

#define JSON_MAX_DEPTH 32
#define JSON_MAX_STRING 65536

struct json_reader {
	const char *s, *p, *end;
	char *err;
	size_t errlen;
	int depth;
	bool failed;
};

void json_init(struct json_reader *j, const char *text, size_t len, char *err, size_t errlen);
/* Record "line N: what" (the first failure only); returns -1. */
int json_fail(struct json_reader *j, const char *what);
/* Skip white space; the next byte, or 0 at the end. */
char json_peek(struct json_reader *j);
/* Consume c (after white space) if it is next. */
bool json_eat(struct json_reader *j, char c);
/* A string, unescaped into sb (UTF-8). */
int json_string(struct json_reader *j, struct strbuf *sb);
/* Any value as text when it is a string or a scalar (number, true, false, null as written);
 * an object or array is skipped and reads as "". */
int json_value_text(struct json_reader *j, struct strbuf *sb);
/* Skip one value of any kind. */
int json_skip(struct json_reader *j);

/* Walk an object: for each member, cb(j, key, ctx) must read or skip its value. */
typedef int (*json_member_fn)(struct json_reader *j, const char *key, void *ctx);
int json_object(struct json_reader *j, json_member_fn cb, void *ctx);
/* Walk an array: for each element, cb(j, index, ctx) must read or skip it. */
typedef int (*json_element_fn)(struct json_reader *j, size_t index, void *ctx);
int json_array(struct json_reader *j, json_element_fn cb, void *ctx);
/* Append code point cp (below 0x110000, not a surrogate) to sb as UTF-8. */
void json_utf8(struct strbuf *sb, unsigned cp);
/* Only white space left? Else fails with "text after the end of the ...". */
int json_end(struct json_reader *j, const char *what);
/* Why n bytes of s are not text lauka accepts in a name (invalid UTF-8, a control character, NUL), or NULL. */
const char *json_text_problem(const char *s, size_t n);
/* s for an error message: bytes outside printable ASCII as \xHH, cut to fit buf; returns buf. */
const char *json_shown(const char *s, char *buf, size_t len);
/*
 * Is key a member of the top-level object of text (values skipped)?  1 yes,
 * 0 no (the whole object read, or text is no object), -1 the text is not
 * valid JSON before key was found.
 */
int json_top_key(const char *text, size_t len, const char *key);

#endif
