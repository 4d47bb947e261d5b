/* check_db.c: the SQLite catalogue: migrations, import/load round trip, re-import, verdicts, refusals. */
#include <check.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/catalog.h"
#include "catalog/db.h"
#include "base/error.h"
#include "catalog/kpep.h"
#include "base/util.h"

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

/* A database at path holding the tiny kpep fixture's catalogue. */
static void store_tiny(const char *path)
{
	char err[512];
	struct db *db;
	struct lk_pmu p;
	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), 0);
	ck_assert_int_eq(kpep_parse_file(LAUKA_SRCDIR "/tests/fixtures/kpep/tiny.plist", &p, err, sizeof(err)), 0);
	const struct lk_pmu *one = &p;
	ck_assert_int_eq(db_import(db, &one, 1, NULL, err, sizeof(err)), 0);
	db_close(db);
	pmu_release(&p);
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
			      .counters_mask = UINT64_C(1) << 2, .fixed_counter = 2,
			      .fallback = "instructions", .errata = "none", .perf_type = 4,
			      .config1 = UINT64_C(0x8000000000000000), .config2 = 7, .unit = "ns" };
	pmu_add_event(p, &e);
	struct lk_event f = { .name = "instructions", .fixed_counter = -1, .counters_mask = UINT64_C(0xf000000000000000) };
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
	ck_assert_uint_eq(e->counters_mask, UINT64_C(1) << 2);
	ck_assert_uint_eq(pmu_find_exact(&q, "instructions")->counters_mask, UINT64_C(0xf000000000000000));	/* above 2^63 */
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

/*
 * Schema 6 (catalog/migrate-006.sql): an event's flags (Intel's TakenAlone, PEBS-only) are stored, bits
 * lauka does not know are not; a database of schema 5 reads 0 and takes them when the catalogue is
 * imported again, which it reports as updated, not unchanged.
 */
static long long sql_int(const char *path, const char *q);

START_TEST(test_event_flags)
{
	char *path = path_in("flags.db"), err[512];
	struct db *db;
	struct lk_pmu p, q;
	make_perf(&p, "CPU cycles");
	((struct lk_event *)pmu_find_exact(&p, "cycles"))->flags = LK_EVF_TAKEN_ALONE | LK_EVF_NEEDS_SAMPLING | 0x100;
	const struct lk_pmu *one = &p;
	enum db_import_status st;
	ck_assert_msg(db_open(&db, path, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(db_import(db, &one, 1, &st, err, sizeof(err)), 0);
	ck_assert_int_eq(db_load_pmu(db, "perf", "linux", &q, err, sizeof(err)), 0);
	ck_assert_uint_eq(pmu_find_exact(&q, "cycles")->flags, LK_EVF_TAKEN_ALONE | LK_EVF_NEEDS_SAMPLING);
	ck_assert_uint_eq(pmu_find_exact(&q, "instructions")->flags, 0);
	pmu_release(&q);
	db_close(db);

	/* The same database as schema 5 left it: no flags column. */
	sqlite3 *h;
	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(h, "ALTER TABLE event DROP COLUMN flags; PRAGMA user_version = 5", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(h);
	ck_assert_msg(db_open(&db, path, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(sql_int(path, "PRAGMA user_version"), DB_SCHEMA_VERSION);
	ck_assert_int_eq(db_load_pmu(db, "perf", "linux", &q, err, sizeof(err)), 0);
	ck_assert_uint_eq(q.nevents, 2);	/* the rows kept */
	ck_assert_uint_eq(pmu_find_exact(&q, "cycles")->flags, 0);
	pmu_release(&q);
	ck_assert_int_eq(db_import(db, &one, 1, &st, err, sizeof(err)), 0);
	ck_assert_int_eq(st, DB_IMPORT_CHANGED);
	ck_assert_int_eq(db_load_pmu(db, "perf", "linux", &q, err, sizeof(err)), 0);
	ck_assert_uint_eq(pmu_find_exact(&q, "cycles")->flags, LK_EVF_TAKEN_ALONE | LK_EVF_NEEDS_SAMPLING);
	pmu_release(&q);
	ck_assert_int_eq(db_import(db, &one, 1, &st, err, sizeof(err)), 0);
	ck_assert_int_eq(st, DB_IMPORT_SAME);
	db_close(db);
	pmu_release(&p);
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
	store_tiny(path);

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

static char *slurp_all(const char *path, size_t *len)
{
	char *buf = NULL;
	ck_assert_int_eq(lk_read_file(path, 1u << 24, &buf, len), 0);
	return buf;
}

static void sql(const char *path, const char *q)
{
	sqlite3 *h;
	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	char *msg = NULL;
	int rc = sqlite3_exec(h, q, NULL, NULL, &msg);
	ck_assert_msg(rc == SQLITE_OK, "%s: %s", q, msg ? msg : "");
	sqlite3_close(h);
}

static long long sql_int(const char *path, const char *q)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	ck_assert_int_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(h, q, -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	long long v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

static bool exists(const char *path, const char *suffix)
{
	char *p = xasprintf("%s%s", path, suffix);
	bool e = access(p, F_OK) == 0;
	free(p);
	return e;
}

/*
 * Another application's SQLite file (plain and WAL) is refused before
 * anything writes: same bytes, no -wal or -shm left.  It used to gain
 * lauka's tables and switch to WAL, even when lauka then refused it.
 */
START_TEST(test_foreign)
{
	static const char *const setups[] = {
		"CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('mine')",
		"PRAGMA journal_mode = WAL; CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')",
		"PRAGMA application_id = 1234; PRAGMA user_version = 1",
		/* lauka's table names, not lauka's id */
		("PRAGMA application_id = 7; CREATE TABLE pmu (x); CREATE TABLE event (x); CREATE TABLE alias (x); "
		 "CREATE TABLE verdict (x); CREATE TABLE response (x); PRAGMA user_version = 1"),
	};
	for (size_t i = 0; i < sizeof(setups) / sizeof(setups[0]); i++) {
		char name[32];
		snprintf(name, sizeof(name), "foreign%zu.db", i);
		char *path = path_in(name), err[512];
		sql(path, setups[i]);
		size_t n1, n2;
		char *before = slurp_all(path, &n1);
		struct db *db;
		ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), -LK_EDB);
		ck_assert_msg(strstr(err, "is another application's SQLite database, not lauka's") != NULL, "%s", err);
		ck_assert_msg(strstr(err, "\nfix: ") != NULL, "%s", err);
		char *after = slurp_all(path, &n2);
		ck_assert_msg(n1 == n2 && !memcmp(before, after, n1), "setup %zu: the foreign file changed", i);
		ck_assert_msg(!exists(path, "-wal") && !exists(path, "-shm"), "setup %zu: files left beside it", i);
		free(before);
		free(after);
		free(path);
	}
}
END_TEST

/* A zero-byte or missing file becomes a lauka database, marked with lauka's application_id. */
START_TEST(test_new_files_marked)
{
	char *zero = path_in("zero.db"), *missing = path_in("new/dir/m.db"), err[512];
	FILE *f = fopen(zero, "w");
	fclose(f);
	struct db *db;
	ck_assert_msg(db_open(&db, zero, err, sizeof(err)) == 0, "%s", err);
	db_close(db);
	ck_assert_msg(db_open(&db, missing, err, sizeof(err)) == 0, "%s", err);
	db_close(db);
	ck_assert_int_eq(sql_int(zero, "PRAGMA application_id"), 0x6c61756b);
	ck_assert_int_eq(sql_int(missing, "PRAGMA application_id"), 0x6c61756b);
	ck_assert_int_eq(sql_int(missing, "PRAGMA user_version"), DB_SCHEMA_VERSION);
	free(zero);
	free(missing);
}
END_TEST

/* A database from before application_id (0 there, lauka's tables): still read, and marked on its next write only. */
START_TEST(test_legacy_marked_on_write)
{
	char *path = path_in("old.db"), err[512];
	struct db *db;
	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), 0);
	db_close(db);
	sql(path, "PRAGMA application_id = 0");
	ck_assert_msg(db_open(&db, path, err, sizeof(err)) == 0, "%s", err);
	char hex[65];
	ck_assert_int_eq(db_pmu_sha256(db, "perf", "linux", hex, err, sizeof(err)), 0);
	db_close(db);
	ck_assert_int_eq(sql_int(path, "PRAGMA application_id"), 0);	/* reading does not write */
	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), 0);
	struct lk_pmu p;
	make_perf(&p, "d");
	const struct lk_pmu *one = &p;
	ck_assert_int_eq(db_import(db, &one, 1, NULL, err, sizeof(err)), 0);
	db_close(db);
	pmu_release(&p);
	ck_assert_int_eq(sql_int(path, "PRAGMA application_id"), 0x6c61756b);
	free(path);
}
END_TEST

/*
 * Hand-altered rows are reported as corrupt, never crash: an alias cycle
 * (pmu_find recursed until the stack overflowed), an event name that is not
 * text (NULL reached strcmp), fixed_counter >= 64 (a shift past 63).
 */
static const struct {
	const char *alter, *expect;
} altered[] = {
	{ "INSERT INTO alias (pmu_id, alias, target) SELECT id, 'loop_a', 'loop_b' FROM pmu;"
	  "INSERT INTO alias (pmu_id, alias, target) SELECT id, 'loop_b', 'loop_a' FROM pmu",
	  "alias 'loop_a' names 'loop_b', which is not an event" },
	{ "ALTER TABLE event RENAME TO event_old; CREATE TABLE event (pmu_id, name, description, number, umask, "
	  "counters_mask, fixed_counter, fallback, errata, perf_type, config1, config2, unit, flags); "
	  "INSERT INTO event SELECT * FROM event_old; DROP TABLE event_old; UPDATE event SET name = NULL WHERE name = 'PLAIN_A'",
	  "an event without a name" },
	{ "UPDATE event SET name = CAST('PLAIN' AS BLOB) WHERE name = 'PLAIN_A'", "an event without a name" },
	{ "UPDATE event SET fixed_counter = 64 WHERE name = 'FIXED_CYCLES'", "fixed counter is not a counter index" },
	{ "UPDATE event SET fixed_counter = -5 WHERE name = 'FIXED_CYCLES'", "fixed counter is not a counter index" },
	{ "UPDATE event SET fallback = 'NOWHERE' WHERE name = 'FIXED_INSTRUCTIONS'", "fallback 'NOWHERE' is not a configurable event" },
	{ "UPDATE event SET counters_mask = 1020 WHERE name = 'FIXED_CYCLES'", "names other counters than its own" },
	{ "UPDATE event SET name = 'inst_all' WHERE name = 'PLAIN_A'", "differ only in case" },
	{ "UPDATE alias SET target = NULL", NULL },	/* NOT NULL: SQLite itself refuses this one */
	{ "UPDATE pmu SET kind = CAST('kpep' AS BLOB) WHERE name = 'tiny'", "its kind, name or sha256 is not text" },
};

START_TEST(test_altered_rows)
{
	char *path = path_in("alt.db"), err[512];
	store_tiny(path);
	struct db *db;
	struct lk_pmu p;
	if (!altered[_i].expect) {
		sqlite3 *h;
		ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
		ck_assert_int_ne(sqlite3_exec(h, altered[_i].alter, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(h);
		free(path);
		return;
	}
	sql(path, altered[_i].alter);
	ck_assert_msg(db_open(&db, path, err, sizeof(err)) == 0, "%s", err);
	int r = db_load_pmu(db, altered[_i].alter[0] == 'U' && strstr(altered[_i].alter, "kind") ? NULL : "kpep", "tiny",
			    &p, err, sizeof(err));
	ck_assert_int_eq(r, -LK_EDB);
	ck_assert_msg(strstr(err, "is corrupt: catalogue 'tiny' has ") != NULL, "%s", err);
	ck_assert_msg(strstr(err, altered[_i].expect) != NULL, "case %d: %s", _i, err);
	ck_assert_msg(strstr(err, "\nfix: ") != NULL, "%s", err);
	ck_assert_ptr_null(p.name);
	db_close(db);
	free(path);
}
END_TEST

/* A migration that fails says so in one line (it printed the whole migration SQL). */
START_TEST(test_migration_fails_in_one_line)
{
	char *path = path_in("half.db"), err[1024];
	sql(path, "PRAGMA application_id = 1818326379; CREATE TABLE pmu (x)");	/* lauka's, schema 0, a table in the way */
	struct db *db;
	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), -LK_EDB);
	ck_assert_msg(strstr(err, "applying migration 1 (catalog/migrate-001.sql): table pmu already exists") != NULL, "%s", err);
	ck_assert_msg(!strchr(err, '\n') && !strstr(err, "CREATE"), "%s", err);
	ck_assert_int_eq(sql_int(path, "PRAGMA user_version"), 0);	/* rolled back */
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
	tcase_add_test(tc, test_event_flags);
	tcase_add_test(tc, test_verdicts);
	tcase_add_test(tc, test_refuse_corrupt_and_newer);
	tcase_add_test(tc, test_default_path);
	tcase_add_test(tc, test_catalog_kpep);
	tcase_add_test(tc, test_foreign);
	tcase_add_test(tc, test_new_files_marked);
	tcase_add_test(tc, test_legacy_marked_on_write);
	tcase_add_loop_test(tc, test_altered_rows, 0, (int)(sizeof(altered) / sizeof(altered[0])));
	tcase_add_test(tc, test_migration_fails_in_one_line);
	suite_add_tcase(s, tc);
	return s;
}
