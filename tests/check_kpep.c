/* check_kpep.c: kpep plist parsing (XML and binary), the facts of real plists, malformed input, SHA-256. */
#include <check.h>
#include <plist/plist.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "base/error.h"
#include "catalog/kpep.h"
#include "base/sha256.h"
#include "base/util.h"

#define FIX LAUKA_SRCDIR "/tests/fixtures/kpep/"
#define SHARED LAUKA_SRCDIR "/tests/fixtures/kpep-data/"

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
		fprintf(stderr, "skip: %s absent (tests/fixtures/kpep-data/SOURCES.txt says what it is)\n", path);
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

/* tiny.plist with one substitution (the first occurrence of from -> to); malloc'd, *len set. */
static char *tiny_with(const char *from, const char *to, size_t *len)
{
	size_t n;
	char *xml = slurp(FIX "tiny.plist", &n);
	char *at = strstr(xml, from);
	ck_assert_msg(at != NULL, "tiny.plist lacks '%s'", from);
	size_t fl = strlen(from), tl = strlen(to);
	char *out = xmalloc(n - fl + tl + 1);
	memcpy(out, xml, (size_t)(at - xml));
	memcpy(out + (at - xml), to, tl);
	memcpy(out + (at - xml) + tl, at + fl, n - (size_t)(at - xml) - fl);
	*len = n - fl + tl;
	out[*len] = '\0';
	free(xml);
	return out;
}

/*
 * Hostile inputs, each refused with one line naming the key (issue 10).
 * Before this table, the first seven were all accepted.
 */
static const struct {
	const char *from, *to, *expect;
} hostile[] = {
	{ "<key>PLAIN_A</key>", "<key>PLAIN&#10;A</key>", "key 'system.cpu.events.PLAIN\\nA' contains a control character (0x0a)" },
	{ "<key>PLAIN_A</key>", "<key>PLAIN\xff" "A</key>", "key 'system.cpu.events.PLAIN\\xffA' is not valid UTF-8" },
	{ "<key>PLAIN_A</key>", "<key>PLAIN_\xc0\xaf" "A</key>", "is not valid UTF-8" },	/* overlong '/' */
	{ "<key>PLAIN_B</key>", "<key>inst_all</key>", "keys 'system.cpu.events.INST_ALL' and 'system.cpu.events.inst_all' differ only in case" },
	{ "<key>Cycles</key>", "<key>plain_a</key>", "keys 'system.cpu.events.PLAIN_A' and 'system.cpu.aliases.plain_a' differ only in case" },
	{ "<string>tiny</string>", "<string>valgrind</string>", "key 'name' is 'valgrind', the name of one of lauka's own catalogues" },
	{ "<string>tiny</string>", "<string>Linux</string>", "key 'name' is 'Linux', the name of one of lauka's own" },
	{ "<string>tiny</string>", "<string>rusage</string>", "key 'name' is 'rusage'" },
	{ "<key>fixed_counter</key>\n\t\t\t\t\t<integer>0</integer>", "<key>fixed_counter</key><integer>64</integer>",
	  "key 'system.cpu.events.FIXED_CYCLES.fixed_counter' is 64, beyond the 64 counters" },
	{ "<key>fixed_counter</key>\n\t\t\t\t\t<integer>0</integer>", "<key>fixed_counter</key><integer>5</integer>",
	  "key 'system.cpu.events.FIXED_CYCLES.fixed_counter' is 5, which system.cpu.fixed_counters (0x3) does not name" },
	/* The SIGSEGV of `counters --check`: a fixed event with a general mask and no fallback. */
	{ "<key>counters_mask</key>\n\t\t\t\t\t<integer>1</integer>", "<key>counters_mask</key><integer>60</integer>",
	  "key 'system.cpu.events.FIXED_CYCLES.counters_mask' is 0x3c, but a fixed event counts only on its fixed counter (0x1)" },
	{ "<string>INST_ALL</string>\n\t\t\t\t\t<key>fixed_counter</key>", "<string>FIXED_CYCLES</string><key>fixed_counter</key>",
	  "fallback' names 'FIXED_CYCLES', a fixed event" },
	{ "<string>Tiny Test Chip</string>", "<string>Tiny\tChip</string>", "key 'system.cpu.marketing_name' contains a control character (0x09)" },
};

START_TEST(test_hostile)
{
	size_t len;
	char *xml = tiny_with(hostile[_i].from, hostile[_i].to, &len);
	struct lk_pmu p;
	char err[512] = "";
	ck_assert_int_eq(kpep_parse(xml, len, "h.plist", &p, err, sizeof(err)), -LK_EPLIST);
	ck_assert_msg(strstr(err, hostile[_i].expect) != NULL, "case %d: got '%s'", _i, err);
	ck_assert_msg(strncmp(err, "h.plist: ", 9) == 0 && !strchr(err, '\n'), "not one line naming the file: %s", err);
	ck_assert_ptr_null(p.name);
	free(xml);
}
END_TEST

/* A 1 MB name and a raw NUL byte in an XML key. */
START_TEST(test_huge_and_nul_names)
{
	size_t big = 1u << 20, len;
	char *name = xmalloc(big + 16);
	memcpy(name, "<key>", 5);
	memset(name + 5, 'A', big);
	memcpy(name + 5 + big, "</key>", 7);
	char *xml = tiny_with("<key>PLAIN_A</key>", name, &len);
	struct lk_pmu p;
	char err[512] = "";
	ck_assert_int_eq(kpep_parse(xml, len, "h.plist", &p, err, sizeof(err)), -LK_EPLIST);
	ck_assert_msg(strstr(err, "is 1048576 bytes long; at most 255 are allowed") != NULL, "%s", err);
	ck_assert_msg(strlen(err) < 300, "the error repeats the whole name: %zu bytes", strlen(err));
	free(xml);
	free(name);

	xml = tiny_with("<key>PLAIN_A</key>", "<key>PLAIN_A</key>", &len);
	char *k = strstr(xml, "PLAIN_A</key>");
	k[5] = '\0';	/* PLAIN\0A */
	ck_assert_int_eq(kpep_parse(xml, len, "h.plist", &p, err, sizeof(err)), -LK_EPLIST);
	ck_assert_msg(strstr(err, "key 'PLAIN\\0A' contains a NUL byte (U+0000)") != NULL, "%s", err);
	free(xml);
}
END_TEST

/*
 * A binary-plist dictionary key that decodes to a string holding U+0000
 * made libplist 2.2 assert in plist_get_key_val() and abort lauka.  The
 * inputs are the fuzzer's reproducers, written by Python's plistlib (an
 * independent writer): ASCII keys, and UTF-16 ones built here.
 */
START_TEST(test_nul_in_binary_keys)
{
	static const char *const files[] = { "nul-key.bplist", "nul-alias-key.bplist" };
	for (size_t i = 0; i < 2; i++) {
		char path[512], err[512] = "";
		snprintf(path, sizeof(path), LAUKA_SRCDIR "/tests/fuzz/crashes/%s", files[i]);
		struct lk_pmu p;
		ck_assert_int_eq(kpep_parse_file(path, &p, err, sizeof(err)), -LK_EPLIST);
		ck_assert_msg(strstr(err, "contains a NUL character (U+0000)") != NULL, "%s", err);
		ck_assert_msg(strstr(err, "key '") != NULL, "the key is not named: %s", err);
	}
	/* The same as UTF-16: libplist makes keys with a non-ASCII character UTF-16 strings (type 6). */
	plist_t root = NULL;
	size_t len;
	char *xml = tiny_with("<key>PLAIN_A</key>", "<key>PL\xc3\xa9N_A</key>", &len);
	plist_from_xml(xml, (uint32_t)len, &root);
	free(xml);
	ck_assert_ptr_nonnull(root);
	char *bin = NULL;
	uint32_t blen = 0;
	plist_to_bin(root, &bin, &blen);
	plist_free(root);
	/* "PLéN_A" in UTF-16BE: 00 50 00 4c 00 e9 00 4e; make the é U+0000. */
	int hits = 0;
	for (uint32_t i = 0; i + 8 <= blen; i++)
		if (!memcmp(bin + i, "\0P\0L\0\xe9" "\0N", 8)) {
			bin[i + 5] = 0;
			hits++;
		}
	ck_assert_int_eq(hits, 1);
	struct lk_pmu p;
	char err[512] = "";
	ck_assert_int_eq(kpep_parse(bin, blen, "u16.bplist", &p, err, sizeof(err)), -LK_EPLIST);
	ck_assert_msg(strstr(err, "key 'PL\\0N_A' contains a NUL character (U+0000) at position 2") != NULL, "%s", err);
	free(bin);
}
END_TEST

/*
 * A UTF-8 byte-order mark.  Apple's CFPropertyList skips one
 * (swift-corelibs-foundation, CFPropertyList.c, encodingForXMLData: "*skip
 * = 3" for EF BB BF); libplist looks for '<' and refuses the file.  lauka
 * does as Apple does; the digest is of the file as it is.
 */
START_TEST(test_bom)
{
	size_t n;
	char *xml = slurp(FIX "tiny.plist", &n);
	char *bom = xmalloc(n + 3);
	memcpy(bom, "\xef\xbb\xbf", 3);
	memcpy(bom + 3, xml, n);
	plist_t root = NULL;
	plist_from_memory(bom, (uint32_t)(n + 3), &root
#ifdef LAUKA_PLIST_2_3
			  , NULL
#endif
	);
	ck_assert_msg(root == NULL, "libplist now reads a BOM plist: revisit the comment in catalog/kpep.c");
	struct lk_pmu p;
	char err[256] = "";
	ck_assert_msg(kpep_parse(bom, n + 3, "bom.plist", &p, err, sizeof(err)) == 0, "%s", err);
	check_tiny(&p);
	char hex[65];
	sha256_hex(bom, n + 3, hex);
	ck_assert_str_eq(p.sha256, hex);
	pmu_release(&p);
	memcpy(bom, "\xfe\xff", 2);
	ck_assert_int_eq(kpep_parse(bom, n + 3, "u16.plist", &p, err, sizeof(err)), -LK_EPLIST);
	ck_assert_msg(strstr(err, "UTF-16 or UTF-32") != NULL, "%s", err);
	free(bom);
	free(xml);
}
END_TEST

/* Exactly KPEP_MAX_FILE bytes are read (it was refused as "over 4 MB"); one more is not. */
START_TEST(test_size_limit)
{
	size_t n;
	char *xml = slurp(FIX "tiny.plist", &n);
	char path[] = "/tmp/lauka-4mib-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, xml, n), (ssize_t)n);
	size_t pad = KPEP_MAX_FILE - n;
	char *spaces = xmalloc(pad + 1);
	memset(spaces, '\n', pad + 1);
	ck_assert_int_eq(write(fd, spaces, pad), (ssize_t)pad);
	struct lk_pmu p;
	char err[256] = "";
	ck_assert_msg(kpep_parse_file(path, &p, err, sizeof(err)) == 0, "exactly 4 MiB: %s", err);
	pmu_release(&p);
	ck_assert_int_eq(write(fd, spaces, 1), 1);
	close(fd);
	ck_assert_int_eq(kpep_parse_file(path, &p, err, sizeof(err)), -LK_EPLIST);
	ck_assert_msg(strstr(err, "too large for a kpep plist (over 4 MiB)") != NULL, "%s", err);
	unlink(path);
	free(spaces);
	free(xml);
}
END_TEST

/* A FIFO is refused at once, unread (it blocked forever). */
START_TEST(test_fifo)
{
	char dirp[] = "/tmp/lauka-fifo-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dirp));
	char *fifo = xasprintf("%s/f.plist", dirp);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	struct lk_pmu p;
	char err[256] = "";
	ck_assert_int_eq(kpep_parse_file(fifo, &p, err, sizeof(err)), -LK_EPLIST);
	ck_assert_msg(strstr(err, "not a regular file (a FIFO)") != NULL, "%s", err);
	ck_assert_int_eq(kpep_parse_file("/dev/zero", &p, err, sizeof(err)), -LK_EPLIST);
	ck_assert_msg(strstr(err, "not a regular file (a character device)") != NULL, "%s", err);
	unlink(fifo);
	rmdir(dirp);
	free(fifo);
}
END_TEST

/* Every catalogue name a backend makes here is reserved, so a kpep plist cannot hide it. */
START_TEST(test_reserved_cover_backends)
{
	size_t checked = 0;
	for (size_t i = 0; lk_backends[i]; i++) {
		const struct lk_backend *b = lk_backends[i];
		ck_assert_msg(kpep_name_reserved(b->name), "backend name '%s' is not reserved", b->name);
		struct lk_pmu p = { 0 };
		char err[512];
		if (b->catalog && b->catalog(&p, err, sizeof(err)) == 0 && strcmp(p.kind, "kpep")) {
			ck_assert_msg(kpep_name_reserved(p.name), "catalogue '%s' of backend %s is not reserved", p.name, b->name);
			checked++;
		}
		pmu_release(&p);
	}
	ck_assert_uint_ge(checked, 1);	/* rusage makes one everywhere */
	ck_assert(kpep_name_reserved("VALGRIND") && !kpep_name_reserved("a14"));
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
	tcase_set_timeout(tc, 0);	/* no time bound (check_main.c): the whole-catalogue parses are slow under load */
	tcase_add_test(tc, test_tiny_xml);
	tcase_add_test(tc, test_tiny_binary);
	tcase_add_loop_test(tc, test_malformed, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_junk);
	tcase_add_test(tc, test_a14);
	tcase_add_test(tc, test_as3);
	tcase_add_test(tc, test_sha256);
	tcase_add_loop_test(tc, test_hostile, 0, (int)(sizeof(hostile) / sizeof(hostile[0])));
	tcase_add_test(tc, test_huge_and_nul_names);
	tcase_add_test(tc, test_nul_in_binary_keys);
	tcase_add_test(tc, test_bom);
	tcase_add_test(tc, test_size_limit);
	tcase_add_test(tc, test_fifo);
	tcase_add_test(tc, test_reserved_cover_backends);
	suite_add_tcase(s, tc);
	return s;
}
