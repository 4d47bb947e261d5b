/*
 * base/bplist.c: the bounded pre-pass over binary plists (see base/bplist.h).
 *
 * Format (Apple's CFBinaryPList.c, "bplist00"): a 32-byte trailer at the
 * end gives the offset size, the object-reference size, the object count,
 * the top object and the offset-table position; each object starts with a
 * marker byte, high nibble the type, low nibble the length, 0xF meaning "an
 * integer object with the length follows".  Types followed here: 4 data,
 * 5 ASCII string, 6 UTF-16BE string, 7 UTF-8 string (payloads); A array,
 * B ordered set, C set (count references), D dictionary (count key
 * references, then count value references).  Other markers are leaves of
 * no payload lauka needs to measure; libplist refuses the ones it cannot read.
 */
#include "base/bplist.h"
#include "base/error.h"
#include "base/util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct lk_bplist_limits lk_bplist_default_limits = {
	LK_BPLIST_MAX_DEPTH, LK_BPLIST_MAX_NODES, LK_BPLIST_MAX_BYTES,
};

struct bp {
	const unsigned char *b;
	size_t table;		/* offset table position: objects lie in [8, table) */
	size_t osize, rsize;
	uint64_t nobj;
};

/* One decoded object: its type, how many references it holds (refs at pos), or its payload bytes. */
struct obj {
	unsigned type;
	size_t pos;		/* first byte after the marker and length */
	uint64_t nrefs;
	uint64_t payload;	/* bytes of string or data */
	uint64_t count;		/* the length field: characters, entries */
};

int lk_bplist_is(const void *buf, size_t len)
{
	return len >= 8 && !memcmp(buf, "bplist00", 8);
}

static uint64_t be_uint(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static int length(const struct bp *p, size_t *pos, uint64_t *count)
{
	unsigned info = p->b[*pos] & 0xf;
	(*pos)++;
	if (info != 0xf) {
		*count = info;
		return 0;
	}
	if (*pos >= p->table || (p->b[*pos] & 0xf0) != 0x10 || (p->b[*pos] & 0xf) > 3)
		return -1;
	size_t n = (size_t)1 << (p->b[*pos] & 0xf);
	(*pos)++;
	if (n > p->table - *pos)
		return -1;
	*count = be_uint(p->b + *pos, n);
	*pos += n;
	return 0;
}

static uint64_t ref_at(const struct bp *p, const struct obj *o, uint64_t k)
{
	return be_uint(p->b + o->pos + k * p->rsize, p->rsize);
}

/* Decode object i; 0, or -1 with err set. */
static int decode(const struct bp *p, uint64_t i, struct obj *o, char *err, size_t errlen)
{
	uint64_t off = be_uint(p->b + p->table + i * p->osize, p->osize);
	memset(o, 0, sizeof(*o));
	if (off < 8 || off >= p->table) {
		lk_errbuf(err, errlen, "not a plist: binary plist object %llu lies outside the object area",
			  (unsigned long long)i);
		return -1;
	}
	o->pos = (size_t)off;
	o->type = p->b[o->pos] >> 4;
	uint64_t unit;
	switch (o->type) {
	case 0x4: case 0x5: case 0x7: unit = 1; break;
	case 0x6: unit = 2; break;
	case 0xa: case 0xb: case 0xc: unit = p->rsize; break;
	case 0xd: unit = 2 * p->rsize; break;
	default: return 0;
	}
	if (length(p, &o->pos, &o->count) < 0) {
		lk_errbuf(err, errlen, "not a plist: binary plist object %llu has a malformed length", (unsigned long long)i);
		return -1;
	}
	if (o->count > (p->table - o->pos) / unit) {
		lk_errbuf(err, errlen, "not a plist: binary plist object %llu runs past the object area", (unsigned long long)i);
		return -1;
	}
	if (o->type >= 0xa)
		o->nrefs = o->type == 0xd ? 2 * o->count : o->count;
	else
		o->payload = o->count * unit;
	return 0;
}

/* U+0000 in string object i (kind "key" or "string"): libplist asserts on it in keys and cuts it elsewhere. */
static int check_nul(const struct bp *p, const struct obj *o, const char *kind, char *err, size_t errlen)
{
	if (o->type != 0x5 && o->type != 0x6 && o->type != 0x7)
		return 0;
	const unsigned char *s = p->b + o->pos;
	int wide = o->type == 0x6;
	uint64_t nul = UINT64_MAX;
	for (uint64_t k = 0; k < o->count && nul == UINT64_MAX; k++)
		if (wide ? !s[2 * k] && !s[2 * k + 1] : !s[k])
			nul = k;
	if (nul == UINT64_MAX)
		return 0;
	char show[128];
	size_t n = 0;
	for (uint64_t k = 0; k < o->count && k < 40 && n + 8 < sizeof(show); k++) {
		unsigned ch = wide ? (unsigned)(s[2 * k] << 8 | s[2 * k + 1]) : s[k];
		if (!ch)
			n += (size_t)snprintf(show + n, sizeof(show) - n, "\\0");
		else if (ch < 0x20 || ch >= 0x7f)
			show[n++] = '?';
		else
			show[n++] = (char)ch;
	}
	show[n] = '\0';
	lk_errbuf(err, errlen, "%s '%s%s' contains a NUL character (U+0000) at position %llu", kind, show,
		  o->count > 40 ? "..." : "", (unsigned long long)nul);
	return -1;
}

/* Every object decodes, every reference names an object, no string holds U+0000. */
static int check_objects(const struct bp *p, char *err, size_t errlen)
{
	char *is_key = xcalloc((size_t)p->nobj, 1);
	int r = 0;
	struct obj o;
	for (uint64_t i = 0; i < p->nobj && !r; i++) {
		if (decode(p, i, &o, err, errlen) < 0) {
			r = -1;
			break;
		}
		for (uint64_t k = 0; k < o.nrefs; k++) {
			uint64_t ref = ref_at(p, &o, k);
			if (ref >= p->nobj) {
				lk_errbuf(err, errlen, "not a plist: binary plist object %llu refers to object %llu of %llu",
					  (unsigned long long)i, (unsigned long long)ref, (unsigned long long)p->nobj);
				r = -1;
				break;
			}
			if (o.type == 0xd && k < o.count)
				is_key[ref] = 1;
		}
	}
	for (uint64_t i = 0; i < p->nobj && !r; i++)
		if (decode(p, i, &o, err, errlen) < 0 || check_nul(p, &o, is_key[i] ? "key" : "string", err, errlen) < 0)
			r = -1;
	free(is_key);
	return r;
}

/*
 * Depth, nodes and bytes of what libplist builds from the top object: a
 * depth-first walk with an explicit stack (bounded by the depth limit) and
 * each object's totals kept once finished, so shared objects cost one visit.
 * Totals are checked as they grow, so none can overflow.
 */
struct frame {
	uint64_t obj, next;	/* object, next reference to follow */
	uint64_t nodes, bytes, depth;
};

static int walk(const struct bp *p, uint64_t top, const struct lk_bplist_limits *lim, struct lk_bplist_stats *st,
		char *err, size_t errlen)
{
	enum { NEW, OPEN, DONE };
	unsigned char *state = xcalloc((size_t)p->nobj, 1);
	uint64_t *nodes = xcalloc((size_t)p->nobj, sizeof(*nodes));
	uint64_t *bytes = xcalloc((size_t)p->nobj, sizeof(*bytes));
	uint64_t *depth = xcalloc((size_t)p->nobj, sizeof(*depth));
	struct frame *stack = xcalloc((size_t)lim->max_depth + 1, sizeof(*stack));
	size_t sp = 0;
	int r = 0;
	struct obj o;
	stack[sp++] = (struct frame){ .obj = top };
	state[top] = OPEN;
	while (sp && !r) {
		struct frame *f = &stack[sp - 1];
		if (decode(p, f->obj, &o, err, errlen) < 0) {
			r = -1;
			break;
		}
		if (f->next == 0) {
			f->nodes = 1;
			f->bytes = o.payload;
			f->depth = 1;
		}
		if (f->next < o.nrefs) {
			uint64_t c = ref_at(p, &o, f->next++);
			if (state[c] == OPEN) {
				lk_errbuf(err, errlen, "not a plist: binary plist object %llu contains itself",
					  (unsigned long long)c);
				r = -1;
			} else if (state[c] == NEW) {
				if (sp >= lim->max_depth) {
					lk_errbuf(err, errlen, "binary plist nested more than %llu levels deep (lauka's limit)",
						  (unsigned long long)lim->max_depth);
					r = -1;
					break;
				}
				state[c] = OPEN;
				stack[sp++] = (struct frame){ .obj = c };
				continue;
			}
			if (r)
				break;
			f->nodes += nodes[c];
			f->bytes += bytes[c];
			if (depth[c] + 1 > f->depth)
				f->depth = depth[c] + 1;
		} else {
			nodes[f->obj] = f->nodes;
			bytes[f->obj] = f->bytes;
			depth[f->obj] = f->depth;
			state[f->obj] = DONE;
			sp--;
			if (sp) {
				struct frame *up = &stack[sp - 1];
				up->nodes += f->nodes;
				up->bytes += f->bytes;
				if (f->depth + 1 > up->depth)
					up->depth = f->depth + 1;
				f = up;
			}
		}
		/* f is sp levels down (the top, once finished: 1); its deepest path reaches f->depth - 1 further */
		uint64_t reach = (sp ? sp : 1) + f->depth - 1;
		if (reach > st->depth)
			st->depth = reach;
		if (reach > lim->max_depth) {
			lk_errbuf(err, errlen, "binary plist nested more than %llu levels deep (lauka's limit)",
				  (unsigned long long)lim->max_depth);
			r = -1;
		} else if (f->nodes > lim->max_nodes) {
			lk_errbuf(err, errlen, "binary plist expands to more than %llu objects through shared references "
				  "(lauka's limit)", (unsigned long long)lim->max_nodes);
			r = -1;
		} else if (f->bytes > lim->max_bytes) {
			lk_errbuf(err, errlen, "binary plist expands to more than %llu bytes of strings and data through "
				  "shared references (lauka's limit)", (unsigned long long)lim->max_bytes);
			r = -1;
		}
	}
	if (!r) {
		st->nodes = nodes[top];
		st->bytes = bytes[top];
		st->depth = depth[top];
	}
	free(stack);
	free(depth);
	free(bytes);
	free(nodes);
	free(state);
	return r;
}

int lk_bplist_check(const void *buf, size_t len, const struct lk_bplist_limits *limits,
		    struct lk_bplist_stats *stats, char *err, size_t errlen)
{
	struct lk_bplist_stats local;
	struct lk_bplist_stats *st = stats ? stats : &local;
	const struct lk_bplist_limits *lim = limits ? limits : &lk_bplist_default_limits;
	memset(st, 0, sizeof(*st));
	if (!lk_bplist_is(buf, len) || len < 8 + 32) {
		lk_errbuf(err, errlen, "not a plist: a binary plist too short for its trailer");
		return -LK_EPLIST;
	}
	const unsigned char *t = (const unsigned char *)buf + len - 32;
	struct bp p = { .b = buf, .osize = t[6], .rsize = t[7], .nobj = be_uint(t + 8, 8) };
	uint64_t top = be_uint(t + 16, 8), table = be_uint(t + 24, 8);
	if (p.osize < 1 || p.osize > 8 || p.rsize < 1 || p.rsize > 8 || table < 8 || table >= len - 32 ||
	    p.nobj == 0 || p.nobj > (len - 32 - table) / p.osize || top >= p.nobj) {
		lk_errbuf(err, errlen, "not a plist: a binary plist whose trailer does not describe its objects");
		return -LK_EPLIST;
	}
	p.table = (size_t)table;
	st->objects = p.nobj;
	if (p.nobj > lim->max_nodes) {
		lk_errbuf(err, errlen, "binary plist has more than %llu objects (lauka's limit)",
			  (unsigned long long)lim->max_nodes);
		return -LK_EPLIST;
	}
	if (check_objects(&p, err, errlen) < 0 || walk(&p, top, lim, st, err, errlen) < 0)
		return -LK_EPLIST;
	return 0;
}

/*
 * XML plists: libplist builds one node per element and frees the tree
 * recursively, so 200,000 nested arrays overflow the stack when lauka
 * frees what it refused.  The scan counts element nesting (comments,
 * CDATA, processing instructions and declarations skipped, quoted
 * attribute values too) before libplist sees the file.
 */
static const char *skip_past(const char *p, const char *end, const char *token)
{
	size_t n = strlen(token);
	while ((size_t)(end - p) >= n) {
		const char *q = memchr(p, token[0], (size_t)(end - p) - n + 1);
		if (!q)
			return end;
		if (!memcmp(q, token, n))
			return q + n;
		p = q + 1;
	}
	return end;
}

/* Past the '>' that ends a tag or declaration starting at p, quotes and [internal subset] held. */
static const char *tag_end(const char *p, const char *end, bool *self_closing)
{
	char quote = 0;
	int bracket = 0;
	for (; p < end; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (*p == '[') {
			bracket++;
		} else if (*p == ']' && bracket > 0) {
			bracket--;
		} else if (*p == '>' && !bracket) {
			*self_closing = p[-1] == '/';
			return p + 1;
		}
	}
	return end;
}

int lk_xmlplist_check(const void *buf, size_t len, uint64_t max_depth, char *err, size_t errlen)
{
	const char *p = buf, *end = p + len;
	uint64_t depth = 0;
	while (p < end && (p = memchr(p, '<', (size_t)(end - p)))) {
		size_t left = (size_t)(end - p);
		bool self = false;
		if (left >= 4 && !memcmp(p, "<!--", 4)) {
			p = skip_past(p + 4, end, "-->");
		} else if (left >= 9 && !memcmp(p, "<![CDATA[", 9)) {
			p = skip_past(p + 9, end, "]]>");
		} else if (left >= 2 && p[1] == '?') {
			p = skip_past(p + 2, end, "?>");
		} else if (left >= 2 && p[1] == '!') {
			p = tag_end(p + 2, end, &self);
		} else if (left >= 2 && p[1] == '/') {
			p = tag_end(p + 2, end, &self);
			if (depth)
				depth--;
		} else {
			p = tag_end(p + 1, end, &self);
			if (!self && ++depth > max_depth) {
				lk_errbuf(err, errlen, "XML plist nested more than %llu levels deep (lauka's limit)",
					  (unsigned long long)max_depth);
				return -LK_EPLIST;
			}
		}
	}
	return 0;
}
