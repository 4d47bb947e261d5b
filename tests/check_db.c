/* check_db.c: the SQLite catalogue: migrations, import/load round trip, re-import, verdicts, refusals. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "db.h"
#include "error.h"
#include "kpep.h"
#include "util.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/lauka-db-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static char *path_in(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

/* A generated catalogue using every field, with masks and encodings above 2^63. */
static void make_perf(struct lk_pmu *p, const char *desc)
{
	memset(p, 0, sizeof(*p));
	p->kind = xstrdup("perf");
	p->name = xstrdup("linux");
	p->marketing_name = xstrdup("Test CPU");
	p->arch = xstrdup("x86_64");
	p->source = xstrdup("sysfs");
	p->config_mask = UINT64_C(0x8000000000000001);
	struct lk_event e = { .name = "cycles", .description = (char *)desc, .number = UINT64_MAX, .umask = 3,
			      .counters_mask = UINT64_C(0xf000000000000000), .fixed_counter = 2,
			      .fallback = "instructions", .errata = "none", .perf_type = 4,
			      .config1 = UINT64_C(0x8000000000000000), .config2 = 7, .unit = "ns" };
	pmu_add_event(p, &e);
	struct lk_event f = { .name = "instructions", .fixed_counter = -1 };
	pmu_add_event(p, &f);
	pmu_add_alias(p, "cyc", "cycles");
	catalog_fingerprint(p);
}

START_TEST(test_roundtrip)
{
	char *path = path_in("sub/dir/l.db"), err[512];
	struct db *db;
	ck_assert_msg(db_open(&db, path, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(db_path(db), path);
	struct lk_pmu p, q;
	make_perf(&p, "CPU cycles");
	const struct lk_pmu *one = &p;
	enum db_import_status st;
	ck_assert_int_eq(db_import(db, &one, 1, &st, err, sizeof(err)), 0);
	ck_assert_int_eq(st, DB_IMPORT_NEW);
	ck_assert_int_eq(db_import(db, &one, 1, &st, err, sizeof(err)), 0);
	ck_assert_int_eq(st, DB_IMPORT_SAME);
	ck_assert_int_eq(db_load_pmu(db, "perf", "LINUX", &q, err, sizeof(err)), 0);
	ck_assert_str_eq(q.kind, "perf");
	ck_assert_str_eq(q.marketing_name, "Test CPU");
	ck_assert_str_eq(q.source, "sysfs");
	ck_assert_str_eq(q.sha256, p.sha256);
	ck_assert_uint_eq(q.config_mask, UINT64_C(0x8000000000000001));
	ck_assert_uint_eq(q.nevents, 2);
	const struct lk_event *e = pmu_find_exact(&q, "cycles");
	ck_assert_uint_eq(e->number, UINT64_MAX);
	ck_assert_uint_eq(e->umask, 3);
	ck_assert_uint_eq(e->counters_mask, UINT64_C(0xf000000000000000));
	ck_assert_int_eq(e->fixed_counter, 2);
	ck_assert_str_eq(e->fallback, "instructions");
	ck_assert_str_eq(e->unit, "ns");
	ck_assert_uint_eq(e->perf_type, 4);
	ck_assert_uint_eq(e->config1, UINT64_C(0x8000000000000000));
	ck_assert_ptr_null(pmu_find_exact(&q, "instructions")->description);
	ck_assert_str_eq(pmu_find(&q, "CYC")->name, "cycles");
	pmu_release(&q);

	/* A change replaces the events. */
	struct lk_pmu p2;
	make_perf(&p2, "CPU cycles, reworded");
	one = &p2;
	ck_assert_int_eq(db_import(db, &one, 1, &st, err, sizeof(err)), 0);
	ck_assert_int_eq(st, DB_IMPORT_CHANGED);
	ck_assert_int_eq(db_load_pmu(db, NULL, "linux", &q, err, sizeof(err)), 0);
	ck_assert_uint_eq(q.nevents, 2);
	ck_assert_str_eq(pmu_find_exact(&q, "cycles")->description, "CPU cycles, reworded");
	pmu_release(&q);
	ck_assert_int_eq(db_load_pmu(db, NULL, "nope", &q, err, sizeof(err)), -LK_ENOENT);
	char **names;
	size_t n;
	ck_assert_int_eq(db_pmu_names(db, &names, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(names[0], "linux");
	free(names[0]);
	free(names);
	pmu_release(&p);
	pmu_release(&p2);
	db_close(db);
	free(path);
}
END_TEST

START_TEST(test_verdicts)
{
	char *path = path_in("v.db"), err[512];
	struct db *db;
	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), 0);
	struct db_probe_response resp[] = { { "alu", 2.0, 2.0, 2.0 }, { "chase", 0.01, NAN, NAN } };
	struct db_verdict v1[] = {
		{ "Ir", "off by 12%", "work-like", resp, 2 },
		{ "D1mr", "validated", "memory-bound-like", resp + 1, 1 },
	};
	struct db_verdict v2[] = { { "Ir", "validated", "work-like", resp, 1 } };
	ck_assert_int_eq(db_store_calibration(db, "valgrind", "valgrind", "host/cpu", v1, 2, err, sizeof(err)), 0);
	ck_assert_int_eq(db_store_calibration(db, "valgrind", "valgrind", "host/cpu", v2, 1, err, sizeof(err)), 0);
	ck_assert_int_eq(db_store_calibration(db, "valgrind", "valgrind", "other/cpu", v1, 1, err, sizeof(err)), 0);
	struct db_latest *l;
	size_t n;
	ck_assert_int_eq(db_latest_verdicts(db, "valgrind", "valgrind", "host/cpu", &l, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(l[0].event, "D1mr");
	ck_assert_str_eq(l[0].verdict, "validated");
	ck_assert_str_eq(l[1].event, "Ir");
	ck_assert_str_eq(l[1].verdict, "validated");	/* the latest wins */
	db_latest_free(l, n);
	db_close(db);
	free(path);
}
END_TEST

START_TEST(test_refuse_corrupt_and_newer)
{
	char *path = path_in("bad.db"), err[512];
	FILE *f = fopen(path, "w");
	for (int i = 0; i < 4096; i++)
		fputc((i * 7919) & 0xff, f);
	fclose(f);
	struct db *db;
	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), -LK_EDB);
	ck_assert_msg(strstr(err, "is corrupt\nfix: ") != NULL, "%s", err);

	char *good = path_in("newer.db");
	ck_assert_int_eq(db_open(&db, good, err, sizeof(err)), 0);
	db_close(db);
	/* Bump PRAGMA user_version (header bytes 60-63) as a newer lauka would. */
	f = fopen(good, "r+b");
	fseek(f, 60, SEEK_SET);
	fputc(0, f), fputc(0, f), fputc(0, f), fputc(DB_SCHEMA_VERSION + 1, f);
	fclose(f);
	ck_assert_int_eq(db_open(&db, good, err, sizeof(err)), -LK_EDB);
	char want[64];
	snprintf(want, sizeof(want), "was written by a newer lauka (schema %d", DB_SCHEMA_VERSION + 1);
	ck_assert_msg(strstr(err, want) != NULL, "%s", err);
	free(good);
	free(path);
}
END_TEST

START_TEST(test_default_path)
{
	char err[256];
	setenv("LAUKA_DB", "/x/y.db", 1);
	char *p = db_default_path(err, sizeof(err));
	ck_assert_str_eq(p, "/x/y.db");
	free(p);
	unsetenv("LAUKA_DB");
	setenv("XDG_DATA_HOME", "/xdg", 1);
	p = db_default_path(err, sizeof(err));
	ck_assert_str_eq(p, "/xdg/lauka/lauka.db");
	free(p);
	unsetenv("XDG_DATA_HOME");
	if (geteuid() == 0 && getenv("SUDO_UID"))
		return;	/* the sudo user's home wins; covered by the sudo CLI test */
	char *home = path_in("home");
	ck_assert_int_eq(mkdir(home, 0755), 0);
	setenv("HOME", home, 1);
	p = db_default_path(err, sizeof(err));
	char *want = NULL;
	ck_assert_int_gt(asprintf(&want, "%s/.local/share/lauka/lauka.db", home), 0);
	ck_assert_str_eq(p, want);
	free(p);
	free(want);
	/* A home that does not exist (nobody's is /nonexistent) is not created: an error instead. */
	setenv("HOME", "/nonexistent-lauka-home", 1);
	ck_assert_ptr_null(db_default_path(err, sizeof(err)));
	ck_assert_msg(strstr(err, "home directory '/nonexistent-lauka-home' does not exist") != NULL, "%s", err);
	ck_assert_msg(strstr(err, "\nfix: set LAUKA_DB") != NULL, "%s", err);
	free(home);
}
END_TEST

START_TEST(test_catalog_kpep)
{
	/* catalog_open with a stored kpep catalogue and the rusage backend. */
	char *path = path_in("c.db"), err[512];
	struct db *db;
	struct lk_pmu p;
	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), 0);
	ck_assert_int_eq(kpep_parse_file(LAUKA_SRCDIR "/tests/fixtures/kpep/tiny.plist", &p, err, sizeof(err)), 0);
	const struct lk_pmu *one = &p;
	ck_assert_int_eq(db_import(db, &one, 1, NULL, err, sizeof(err)), 0);
	db_close(db);
	pmu_release(&p);

	struct catalog *cat;
	struct catalog_opts o = { .db_path = path, .pmu_name = "tiny" };
	ck_assert_msg(catalog_open(&cat, backend_rusage(), &o, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(catalog_pmu(cat)->name, "tiny");
	ck_assert_uint_eq(catalog_pmu(cat)->nevents, 9);
	ck_assert_ptr_nonnull(strstr(catalog_machine(cat), "/Tiny Test Chip"));
	const struct lk_event *ia = pmu_find(catalog_pmu(cat), "inst_all");
	ck_assert_ptr_null(catalog_verdict(cat, ia));
	struct db_verdict v = { "INST_ALL", "silent", "none", NULL, 0 };
	ck_assert_int_eq(db_store_calibration(catalog_db(cat), "tiny", "rusage", catalog_machine(cat), &v, 1, err,
					      sizeof(err)), 0);
	catalog_close(cat);
	ck_assert_int_eq(catalog_open(&cat, backend_rusage(), &o, err, sizeof(err)), 0);
	ia = pmu_find(catalog_pmu(cat), "inst_all");
	ck_assert_str_eq(catalog_verdict(cat, ia), "silent");
	ck_assert(!catalog_verdict_failed(cat, ia));	/* nothing contradicts a silent counter */
	catalog_close(cat);

	/* Without pmu_name: the backend's own catalogue, imported on first use. */
	o.pmu_name = NULL;
	ck_assert_int_eq(catalog_open(&cat, backend_rusage(), &o, err, sizeof(err)), 0);
	ck_assert_str_eq(catalog_pmu(cat)->name, "rusage");
	ck_assert_ptr_nonnull(pmu_find(catalog_pmu(cat), "WALL_TIME"));
	catalog_close(cat);
	o.pmu_name = "nope";
	ck_assert_int_eq(catalog_open(&cat, backend_rusage(), &o, err, sizeof(err)), -LK_ENOENT);
	ck_assert_msg(strstr(err, "catalogues there: rusage, tiny") != NULL, "%s", err);
	free(path);
}
END_TEST

extern Suite *db_suite(void);
Suite *db_suite(void)
{
	Suite *s = suite_create("db");
	TCase *tc = tcase_create("db");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_verdicts);
	tcase_add_test(tc, test_refuse_corrupt_and_newer);
	tcase_add_test(tc, test_default_path);
	tcase_add_test(tc, test_catalog_kpep);
	suite_add_tcase(s, tc);
	return s;
}
