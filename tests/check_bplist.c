/*
 * check_bplist.c: the bounded pre-pass over binary plists (base/bplist.c).
 * Plists are laid out here byte by byte (Apple's format); the figures a
 * pre-pass must find are worked out from how each was built, and for a real
 * Xcode template by counting the nodes libplist itself builds.
 */
#include <check.h>
#include <plist/plist.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bplist.h"
#include "base/error.h"

struct buf {
	unsigned char *b;
	size_t len, cap;
	size_t off[4096];
	size_t nobj;
};

static void put(struct buf *p, const void *s, size_t n)
{
	if (p->len + n > p->cap) {
		p->cap = (p->len + n) * 2 + 64;
		p->b = realloc(p->b, p->cap);
		ck_assert_ptr_nonnull(p->b);
	}
	memcpy(p->b + p->len, s, n);
	p->len += n;
}

static void put_be(struct buf *p, unsigned long long v, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		unsigned char c = (unsigned char)(v >> (8 * i));
		put(p, &c, 1);
	}
}

static void marker(struct buf *p, unsigned kind, size_t n)
{
	p->off[p->nobj++] = p->len;
	if (n < 15) {
		put_be(p, kind << 4 | n, 1);
	} else {
		put_be(p, kind << 4 | 0xf, 1);
		put_be(p, 0x12, 1);
		put_be(p, n, 4);
	}
}

/* Objects: references are 2 bytes. */
static void arr(struct buf *p, size_t n, const unsigned *refs)
{
	marker(p, 0xa, n);
	for (size_t i = 0; i < n; i++)
		put_be(p, refs[i], 2);
}

static void dict1(struct buf *p, unsigned key, unsigned value)
{
	marker(p, 0xd, 1);
	put_be(p, key, 2);
	put_be(p, value, 2);
}

static void str(struct buf *p, const char *s, size_t n, int utf16)
{
	marker(p, utf16 ? 0x6 : 0x5, n);
	for (size_t i = 0; i < n; i++)
		put_be(p, (unsigned char)s[i], utf16 ? 2 : 1);
}

static void data(struct buf *p, size_t n)
{
	marker(p, 0x4, n);
	for (size_t i = 0; i < n; i++)
		put_be(p, 'd', 1);
}

static void finish(struct buf *p, unsigned long long top)
{
	size_t table = p->len;
	for (size_t i = 0; i < p->nobj; i++)
		put_be(p, p->off[i], 4);
	put_be(p, 0, 6);
	put_be(p, 4, 1);
	put_be(p, 2, 1);
	put_be(p, p->nobj, 8);
	put_be(p, top, 8);
	put_be(p, table, 8);
}

static void start(struct buf *p)
{
	memset(p, 0, sizeof(*p));
	put(p, "bplist00", 8);
}

enum shape { EMPTY, DICT, DEEP, FANOUT, CYCLE, BADREF, NULKEY, NULVALUE, SHARED_DATA, BADTOP, BADOFFSET };

/* Build one shape with parameter n. */
static void build(struct buf *p, enum shape s, unsigned n)
{
	start(p);
	unsigned r[2];
	switch (s) {
	case EMPTY:
		arr(p, 0, NULL);
		finish(p, 0);
		break;
	case DICT:	/* {"k": "vv"} */
		dict1(p, 1, 2);
		str(p, "k", 1, 0);
		str(p, "vv", 2, 0);
		finish(p, 0);
		break;
	case DEEP:	/* n arrays, each holding the next */
		for (unsigned i = 0; i + 1 < n; i++) {
			r[0] = i + 1;
			arr(p, 1, r);
		}
		arr(p, 0, NULL);
		finish(p, 0);
		break;
	case FANOUT:	/* n levels, each referencing the next twice, then a 1-byte string */
		for (unsigned i = 0; i < n; i++) {
			r[0] = r[1] = i + 1;
			arr(p, 2, r);
		}
		str(p, "x", 1, 0);
		finish(p, 0);
		break;
	case CYCLE:	/* [ [ <0> ] ] */
		r[0] = 1;
		arr(p, 1, r);
		r[0] = 0;
		arr(p, 1, r);
		finish(p, 0);
		break;
	case BADREF:
		r[0] = 7;
		arr(p, 1, r);
		finish(p, 0);
		break;
	case NULKEY:
		dict1(p, 1, 2);
		str(p, "PL\0N", 4, 1);
		str(p, "v", 1, 0);
		finish(p, 0);
		break;
	case NULVALUE:
		dict1(p, 1, 2);
		str(p, "k", 1, 0);
		str(p, "ab\0", 3, 0);
		finish(p, 0);
		break;
	case SHARED_DATA:	/* an array referencing n times one 1000-byte data object */
		marker(p, 0xa, n);
		for (unsigned i = 0; i < n; i++)
			put_be(p, 1, 2);
		data(p, 1000);
		finish(p, 0);
		break;
	case BADTOP:
		arr(p, 0, NULL);
		finish(p, 1);
		break;
	case BADOFFSET:
		arr(p, 0, NULL);
		p->off[0] = 100000;
		finish(p, 0);
		break;
	}
}

static const struct {
	enum shape shape;
	unsigned n;
	struct lk_bplist_limits lim;	/* all zero: the defaults */
	int ok;
	unsigned long long nodes, bytes, depth;
	const char *why;	/* a substring of the refusal */
} cases[] = {
	{ EMPTY, 0, { 0 }, 1, 1, 0, 1, NULL },
	{ DICT, 0, { 0 }, 1, 3, 3, 2, NULL },
	{ DEEP, 256, { 0 }, 1, 256, 0, 256, NULL },
	{ DEEP, 257, { 0 }, 0, 0, 0, 0, "nested more than 256 levels deep (lauka's limit)" },
	{ DEEP, 4000, { 0 }, 0, 0, 0, 0, "nested more than 256 levels deep" },
	{ DEEP, 10, { 9, 100, 100 }, 0, 0, 0, 0, "nested more than 9 levels deep" },
	{ DEEP, 9, { 9, 100, 100 }, 1, 9, 0, 9, NULL },
	/* 2^(n+1) - 1 nodes: each level doubles the one below, the string is 2^n leaves of 1 byte */
	{ FANOUT, 10, { 0 }, 1, 2047, 1024, 11, NULL },
	{ FANOUT, 18, { 0 }, 1, 524287, 262144, 19, NULL },
	{ FANOUT, 19, { 0 }, 0, 0, 0, 0, "expands to more than 1000000 objects through shared references (lauka's limit)" },
	{ FANOUT, 40, { 0 }, 0, 0, 0, 0, "expands to more than 1000000 objects" },
	{ FANOUT, 10, { 100, 2047, 1u << 20 }, 1, 2047, 1024, 11, NULL },
	{ FANOUT, 10, { 100, 2046, 1u << 20 }, 0, 0, 0, 0, "more than 2046 objects" },
	{ CYCLE, 0, { 0 }, 0, 0, 0, 0, "binary plist object 0 contains itself" },
	{ BADREF, 0, { 0 }, 0, 0, 0, 0, "object 0 refers to object 7 of 1" },
	{ NULKEY, 0, { 0 }, 0, 0, 0, 0, "key 'PL\\0N' contains a NUL character (U+0000) at position 2" },
	{ NULVALUE, 0, { 0 }, 0, 0, 0, 0, "string 'ab\\0' contains a NUL character (U+0000) at position 2" },
	{ SHARED_DATA, 100, { 0 }, 1, 101, 100000, 2, NULL },
	{ SHARED_DATA, 100, { 100, 1000, 99999 }, 0, 0, 0, 0, "more than 99999 bytes of strings and data" },
	{ BADTOP, 0, { 0 }, 0, 0, 0, 0, "trailer does not describe its objects" },
	{ BADOFFSET, 0, { 0 }, 0, 0, 0, 0, "object 0 lies outside the object area" },
};

START_TEST(test_bplist_table)
{
	struct buf p;
	build(&p, cases[_i].shape, cases[_i].n);
	ck_assert(lk_bplist_is(p.b, p.len));
	const struct lk_bplist_limits *lim = cases[_i].lim.max_depth ? &cases[_i].lim : NULL;
	struct lk_bplist_stats st;
	char err[256] = "";
	int r = lk_bplist_check(p.b, p.len, lim, &st, err, sizeof(err));
	if (cases[_i].ok) {
		ck_assert_msg(r == 0, "case %d: %s", _i, err);
		ck_assert_uint_eq(st.nodes, cases[_i].nodes);
		ck_assert_uint_eq(st.bytes, cases[_i].bytes);
		ck_assert_uint_eq(st.depth, cases[_i].depth);
	} else {
		ck_assert_int_eq(r, -LK_EPLIST);
		ck_assert_msg(strstr(err, cases[_i].why), "case %d: '%s' lacks '%s'", _i, err, cases[_i].why);
	}
	free(p.b);
}
END_TEST

/* Truncations of a good plist never read outside it (the sanitizer build checks) and are refused. */
START_TEST(test_bplist_truncated)
{
	struct buf p;
	build(&p, DICT, 0);
	for (size_t n = 0; n < p.len; n++) {
		unsigned char *cut = malloc(n ? n : 1);
		memcpy(cut, p.b, n);
		char err[256];
		ck_assert_int_eq(lk_bplist_check(cut, n, NULL, NULL, err, sizeof(err)), -LK_EPLIST);
		free(cut);
	}
	ck_assert(!lk_bplist_is("<?xml", 5));
	free(p.b);
}
END_TEST

static unsigned long long count_nodes(plist_t n)
{
	unsigned long long c = 1;
	plist_type t = plist_get_node_type(n);
	if (t == PLIST_ARRAY) {
		for (uint32_t i = 0; i < plist_array_get_size(n); i++)
			c += count_nodes(plist_array_get_item(n, i));
	} else if (t == PLIST_DICT) {
		plist_dict_iter it = NULL;
		plist_dict_new_iter(n, &it);
		for (;;) {
			char *key = NULL;
			plist_t v = NULL;
			plist_dict_next_item(n, it, &key, &v);
			if (!key)
				break;
			free(key);
			c += 1 + count_nodes(v);
		}
		free(it);
	}
	return c;
}

/* A real Xcode 16 template (tests/fixtures/xctrace-data): accepted, and the nodes counted are the nodes libplist builds. */
START_TEST(test_bplist_real_template)
{
	const char *path = LAUKA_SRCDIR "/tests/fixtures/xctrace-data/l2-miss-xcode16.tracetemplate";
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	static unsigned char b[1 << 20];
	size_t n = fread(b, 1, sizeof(b), f);
	fclose(f);
	struct lk_bplist_stats st;
	char err[256] = "";
	ck_assert_msg(lk_bplist_check(b, n, NULL, &st, err, sizeof(err)) == 0, "%s", err);
	plist_t root = NULL;
	plist_from_bin((const char *)b, (uint32_t)n, &root);
	ck_assert_ptr_nonnull(root);
	ck_assert_uint_eq(st.nodes, count_nodes(root));
	ck_assert_uint_le(st.depth, 16);
	plist_free(root);
}
END_TEST

Suite *bplist_suite(void)
{
	Suite *s = suite_create("bplist");
	TCase *tc = tcase_create("bplist");
	tcase_add_loop_test(tc, test_bplist_table, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_bplist_truncated);
	tcase_add_test(tc, test_bplist_real_template);
	suite_add_tcase(s, tc);
	return s;
}
