/* check_kpep.c: kpep plist parsing (XML and binary), the facts of real plists, malformed input, SHA-256. */
#include <check.h>
#include <plist/plist.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "kpep.h"
#include "sha256.h"
#include "util.h"

#define FIX LAUKA_SRCDIR "/tests/fixtures/kpep/"
#define SHARED LAUKA_SRCDIR "/../shared/kpep-data/"

static char *slurp(const char *path, size_t *len)
{
	char *buf = NULL;
	ck_assert_int_eq(lk_read_file(path, 64u << 20, &buf, len), 0);
	return buf;
}

/* XML -> binary with libplist itself, so this test needs no plistutil. */
static char *to_binary(const char *path, uint32_t *blen)
{
	size_t len;
	char *xml = slurp(path, &len), *bin = NULL;
	plist_t root = NULL;
	plist_from_xml(xml, (uint32_t)len, &root);
	ck_assert_ptr_nonnull(root);
	plist_to_bin(root, &bin, blen);
	plist_free(root);
	free(xml);
	ck_assert_ptr_nonnull(bin);
	return bin;
}

static const struct lk_event *ev(const struct lk_pmu *p, const char *name)
{
	const struct lk_event *e = pmu_find_exact(p, name);
	ck_assert_msg(e != NULL, "no event %s", name);
	return e;
}

static void check_tiny(const struct lk_pmu *p)
{
	ck_assert_str_eq(p->kind, "kpep");
	ck_assert_str_eq(p->name, "tiny");
	ck_assert_str_eq(p->marketing_name, "Tiny Test Chip");
	ck_assert_str_eq(p->arch, "arm64");
	ck_assert_uint_eq(p->fixed_mask, 0x3);
	ck_assert_uint_eq(p->config_mask, 0x3c);
	ck_assert_uint_eq(p->power_mask, 0x30);
	ck_assert_uint_eq(p->nevents, 9);
	ck_assert_str_eq(p->events[0].name, "ERRATA_EVENT");	/* sorted by name */
	ck_assert_str_eq(p->events[8].name, "RETIRE_UOP");
	ck_assert_str_eq(ev(p, "ERRATA_EVENT")->errata, "counts twice on core 0");
	ck_assert_uint_eq(ev(p, "INST_ALL")->number, 0x8c);
	ck_assert_uint_eq(ev(p, "INST_ALL")->counters_mask, 0x20);
	ck_assert_str_eq(ev(p, "INST_ALL")->description, "All retired instructions");
	ck_assert_uint_eq(ev(p, "PLAIN_A")->counters_mask, 0x3c);	/* default: config_counters */
	ck_assert_uint_eq(ev(p, "PLAIN_B")->number, 0x1234);
	ck_assert_int_eq(ev(p, "PLAIN_B")->fixed_counter, -1);
	ck_assert_int_eq(ev(p, "FIXED_CYCLES")->fixed_counter, 0);
	ck_assert_ptr_null(ev(p, "FIXED_CYCLES")->fallback);
	ck_assert_int_eq(ev(p, "FIXED_INSTRUCTIONS")->fixed_counter, 1);
	ck_assert_uint_eq(ev(p, "FIXED_INSTRUCTIONS")->counters_mask, 0x2);
	ck_assert_str_eq(ev(p, "FIXED_INSTRUCTIONS")->fallback, "INST_ALL");
	ck_assert_uint_eq(p->naliases, 2);
	ck_assert_str_eq(pmu_find(p, "cycles")->name, "FIXED_CYCLES");
	ck_assert_str_eq(pmu_find(p, "INSTRUCTIONS")->name, "FIXED_INSTRUCTIONS");
}

START_TEST(test_tiny_xml)
{
	struct lk_pmu p;
	char err[256] = "";
	ck_assert_msg(kpep_parse_file(FIX "tiny.plist", &p, err, sizeof(err)) == 0, "%s", err);
	check_tiny(&p);
	ck_assert_str_eq(p.source, FIX "tiny.plist");
	ck_assert_str_eq(p.sha256, "a5095eb8fa2c09a89472c063c8ba3bb739cf1a5374016322ad5c3fdddfbdafed");
	pmu_release(&p);
}
END_TEST

START_TEST(test_tiny_binary)
{
	uint32_t blen;
	char *bin = to_binary(FIX "tiny.plist", &blen);
	ck_assert(memcmp(bin, "bplist00", 8) == 0);
	struct lk_pmu p;
	char err[256] = "";
	ck_assert_msg(kpep_parse(bin, blen, "tiny.bplist", &p, err, sizeof(err)) == 0, "%s", err);
	check_tiny(&p);
	char hex[65];
	sha256_hex(bin, blen, hex);
	ck_assert_str_eq(p.sha256, hex);
	pmu_release(&p);

	/* Truncated binary plists are refused, not misread. */
	for (uint32_t cut = 8; cut < blen; cut += blen / 7 + 1) {
		ck_assert_int_eq(kpep_parse(bin, cut, "cut.bplist", &p, err, sizeof(err)), -LK_EPLIST);
		ck_assert_msg(strstr(err, "cut.bplist: ") == err, "%s", err);
		ck_assert_ptr_null(p.name);
	}
	free(bin);
}
END_TEST

static const struct {
	const char *file, *expect;
} bad[] = {
	{ "bad-not-plist.plist", "not a plist" },
	{ "bad-root-array.plist", "the root is an array, expected a dictionary" },
	{ "bad-version2.plist", "key 'version' is 2.x" },
	{ "bad-no-events.plist", "key 'system.cpu.events' has no events" },
	{ "bad-number-string.plist", "key 'system.cpu.events.PLAIN_A.number' is a string, expected an integer" },
	{ "bad-number-wide.plist", "key 'system.cpu.events.PLAIN_B.number' is 0x10000, wider than the 16 bits" },
	{ "bad-mask-zero.plist", "key 'system.cpu.events.RESTRICTED_A.counters_mask' is 0" },
	{ "bad-alias-nowhere.plist", "key 'system.cpu.aliases.Branches' points to 'INST_BRANCH', which is not an event" },
};

START_TEST(test_malformed)
{
	char path[512], err[512] = "";
	snprintf(path, sizeof(path), FIX "%s", bad[_i].file);
	struct lk_pmu p;
	ck_assert_int_eq(kpep_parse_file(path, &p, err, sizeof(err)), -LK_EPLIST);
	ck_assert_msg(strncmp(err, path, strlen(path)) == 0, "error does not name the file: %s", err);
	ck_assert_msg(strstr(err, bad[_i].expect) != NULL, "%s: got '%s'", bad[_i].file, err);
	ck_assert_ptr_null(p.name);
	ck_assert_uint_eq(p.nevents, 0);
}
END_TEST

START_TEST(test_junk)
{
	size_t n = 50u << 20;
	unsigned char *junk = xmalloc(n);
	uint32_t x = 12345;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		junk[i] = (unsigned char)(x >> 24);
	}
	struct lk_pmu p;
	char err[256];
	ck_assert_int_eq(kpep_parse(junk, n, "junk", &p, err, sizeof(err)), -LK_EPLIST);
	ck_assert_msg(strstr(err, "junk: not a plist") == err, "%s", err);
	/* From a file, anything larger than a kpep database could be is refused unread. */
	char path[] = "/tmp/lauka-junk-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, junk, n), (ssize_t)n);
	close(fd);
	ck_assert_int_eq(kpep_parse_file(path, &p, err, sizeof(err)), -LK_EPLIST);
	ck_assert_msg(strstr(err, "too large for a kpep plist") != NULL, "%s", err);
	unlink(path);
	free(junk);
	ck_assert_int_eq(kpep_parse_file(FIX "no-such-file.plist", &p, err, sizeof(err)), -LK_ENOENT);
}
END_TEST

static int load_shared(const char *name, struct lk_pmu *p)
{
	char path[512], err[512] = "";
	snprintf(path, sizeof(path), SHARED "%s", name);
	if (access(path, R_OK) != 0) {
		fprintf(stderr, "skip: %s absent (needs ../shared/kpep-data beside the repo)\n", path);
		return -1;
	}
	ck_assert_msg(kpep_parse_file(path, p, err, sizeof(err)) == 0, "%s", err);
	return 0;
}

static size_t count_mask(const struct lk_pmu *p, uint64_t mask)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nevents; i++)
		n += p->events[i].counters_mask == mask;
	return n;
}

/* Facts counted from the plists with a script (kpep.md 3.2 agrees). */
START_TEST(test_a14)
{
	struct lk_pmu p;
	if (load_shared("a14.plist", &p) < 0)
		return;
	ck_assert_str_eq(p.name, "a14");
	ck_assert_str_eq(p.marketing_name, "Apple A14/M1");
	ck_assert_str_eq(p.arch, "arm64");
	ck_assert_uint_eq(p.nevents, 61);
	ck_assert_uint_eq(p.fixed_mask, 0x3);
	ck_assert_uint_eq(p.config_mask, 0x3fc);
	ck_assert_uint_eq(p.power_mask, 0xe0);
	ck_assert_uint_eq(count_mask(&p, 0x3fc), 34);
	ck_assert_uint_eq(count_mask(&p, 0xe0), 19);
	ck_assert_uint_eq(count_mask(&p, 0x80), 6);
	ck_assert_uint_eq(count_mask(&p, 0x1), 1);
	ck_assert_uint_eq(count_mask(&p, 0x2), 1);
	ck_assert_int_eq(ev(&p, "FIXED_CYCLES")->fixed_counter, 0);
	ck_assert_str_eq(ev(&p, "FIXED_INSTRUCTIONS")->fallback, "INST_ALL");
	ck_assert_uint_eq(ev(&p, "INST_ALL")->number, 0x8c);
	ck_assert_uint_eq(ev(&p, "INST_ALL")->counters_mask, 0x80);
	ck_assert_uint_eq(ev(&p, "L1D_CACHE_MISS_LD_NONSPEC")->counters_mask, 0xe0);
	ck_assert_uint_eq(ev(&p, "CORE_ACTIVE_CYCLE")->counters_mask, 0x3fc);
	/* The file's Cycles and Instructions, plus four portable names (catalog/kpep-aliases.tsv). */
	ck_assert_uint_eq(p.naliases, 6);
	ck_assert_str_eq(pmu_find(&p, "branch-misses")->name, "BRANCH_MISPRED_NONSPEC");
	ck_assert_str_eq(pmu_find(&p, "branches")->name, "INST_BRANCH");
	ck_assert_str_eq(pmu_find(&p, "L1-dcache-load-misses")->name, "L1D_CACHE_MISS_LD_NONSPEC");
	ck_assert_str_eq(pmu_find(&p, "l1-icache-load-misses")->name, "L1I_CACHE_MISS_DEMAND");
	ck_assert_str_eq(pmu_find(&p, "Cycles")->name, "FIXED_CYCLES");
	ck_assert_str_eq(pmu_find(&p, "instructions")->name, "FIXED_INSTRUCTIONS");
	pmu_release(&p);
}
END_TEST

START_TEST(test_as3)
{
	struct lk_pmu p;
	if (load_shared("as3.plist", &p) < 0)
		return;
	ck_assert_str_eq(p.name, "as3");
	ck_assert_str_eq(p.marketing_name, "Apple silicon");
	ck_assert_uint_eq(p.nevents, 63);
	ck_assert_uint_eq(count_mask(&p, 0x3fc), 36);
	ck_assert_uint_eq(count_mask(&p, 0xe0), 19);
	ck_assert_uint_eq(count_mask(&p, 0x80), 6);
	uint64_t max = 0;
	for (size_t i = 0; i < p.nevents; i++)
		if (p.events[i].number > max)
			max = p.events[i].number;
	ck_assert_uint_eq(max, 0x5e6);	/* 16-bit selectors since A16 */
	ck_assert_str_eq(ev(&p, "FIXED_INSTRUCTIONS")->fallback, "INST_ALL");
	pmu_release(&p);
}
END_TEST

START_TEST(test_sha256)
{
	char hex[65];
	sha256_hex("", 0, hex);
	ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abc", 3, hex);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	sha256_hex(m, strlen(m), hex);
	ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

extern Suite *kpep_suite(void);
Suite *kpep_suite(void)
{
	Suite *s = suite_create("kpep");
	TCase *tc = tcase_create("parse");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_tiny_xml);
	tcase_add_test(tc, test_tiny_binary);
	tcase_add_loop_test(tc, test_malformed, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_junk);
	tcase_add_test(tc, test_a14);
	tcase_add_test(tc, test_as3);
	tcase_add_test(tc, test_sha256);
	suite_add_tcase(s, tc);
	return s;
}
