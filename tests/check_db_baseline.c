/* check_db_baseline.c: baselines in the database: round trip (with and without a fingerprint), replace, list, delete, migrations 2, 4 and 5 keeping older databases' data, and a newer database left alone. */
#include <check.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/db.h"
#include "base/error.h"
#include "base/util.h"

#include "migrate-001.sql.inc"
#include "migrate-002.sql.inc"
#include "migrate-003.sql.inc"
#include "migrate-004.sql.inc"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/lauka-dbb-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static double s_a[2][3] = { { 1, 2, 3 }, { 1e12 + 1, 1e12 + 2, 1e12 + 3 } };
/* NAN: a run in which wall_time was not counted (stored as NULL, migrate-004.sql). */
static double s_b[2][4] = { { 4, NAN, 6, 7 }, { 0.5, 0.25, 0.125, 9007199254740993.0 } };

static void make(struct db_baseline *b, const char *name, const char *cls)
{
	static char *meas[2] = { "wall_time", "Ir" }, *units[2] = { "ns", NULL };
	static double *pa[2] = { s_a[0], s_a[1] }, *pb[2] = { s_b[0], s_b[1] };
	static struct db_baseline_cmd cmds[2];
	cmds[0] = (struct db_baseline_cmd){ .name = "old", .command = "./prog 'a b'", .runs = 3, .samples = pa };
	cmds[1] = (struct db_baseline_cmd){ .name = NULL, .command = "./prog 2", .runs = 4, .samples = pb };
	*b = (struct db_baseline){ .name = (char *)name, .runner_class = (char *)cls, .backend = "valgrind",
				   .lauka_version = "0.1.0", .git_commit = "0123456789abcdef0123456789abcdef01234567",
				   .created_at = 1700000000, .nmeas = 2, .meas = meas, .units = units, .ncmds = 2,
				   .cmds = cmds };
}

START_TEST(test_roundtrip)
{
	char err[512];
	char *path = xasprintf("%s/l.db", dir);
	struct db *db;
	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), 0);
	struct db_baseline b, got;
	make(&b, "main", "ci-x86");
	ck_assert_int_eq(db_baseline_save(db, &b, err, sizeof(err)), 0);
	ck_assert_int_eq(db_baseline_load(db, "main", &got, err, sizeof(err)), 0);
	ck_assert_str_eq(got.runner_class, "ci-x86");
	ck_assert_str_eq(got.backend, "valgrind");
	ck_assert_str_eq(got.git_commit, b.git_commit);
	ck_assert_ptr_null(got.shell);
	ck_assert_int_eq(got.created_at, 1700000000);
	ck_assert_uint_eq(got.nmeas, 2);
	ck_assert_str_eq(got.meas[1], "Ir");
	ck_assert_ptr_null(got.units[1]);
	ck_assert_uint_eq(got.ncmds, 2);
	ck_assert_str_eq(got.cmds[0].name, "old");
	ck_assert_ptr_null(got.cmds[1].name);
	ck_assert_str_eq(got.cmds[0].command, "./prog 'a b'");
	ck_assert_uint_eq(got.cmds[1].runs, 4);
	/* Samples come back bit for bit (REAL is an IEEE double). */
	for (size_t k = 0; k < 3; k++)
		ck_assert(got.cmds[0].samples[1][k] == s_a[1][k]);
	for (size_t k = 0; k < 4; k++)
		ck_assert(got.cmds[1].samples[1][k] == s_b[1][k]);
	/* A run that was not counted comes back as not counted, never as 0. */
	ck_assert(isnan(got.cmds[1].samples[0][1]));
	ck_assert(got.cmds[1].samples[0][2] == 6);
	db_baseline_release(&got);

	/* Saving again under the same name replaces it, whole. */
	b.runner_class = "other";
	b.ncmds = 1;
	ck_assert_int_eq(db_baseline_save(db, &b, err, sizeof(err)), 0);
	ck_assert_int_eq(db_baseline_load(db, "main", &got, err, sizeof(err)), 0);
	ck_assert_str_eq(got.runner_class, "other");
	ck_assert_uint_eq(got.ncmds, 1);
	db_baseline_release(&got);

	struct db_baseline c;
	make(&c, "feature", "ci-x86");
	c.created_at = 1800000000;
	ck_assert_int_eq(db_baseline_save(db, &c, err, sizeof(err)), 0);
	struct db_baseline *all;
	size_t n;
	ck_assert_int_eq(db_baseline_list(db, &all, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(all[0].name, "main");	/* oldest first */
	ck_assert_str_eq(all[1].name, "feature");
	ck_assert_uint_eq(all[1].ncmds, 2);
	ck_assert_ptr_null(all[1].cmds[0].samples);
	for (size_t i = 0; i < n; i++)
		db_baseline_release(&all[i]);
	free(all);

	ck_assert_int_eq(db_baseline_delete(db, "main", err, sizeof(err)), 0);
	ck_assert_int_eq(db_baseline_delete(db, "main", err, sizeof(err)), -LK_ENOENT);
	ck_assert_msg(strstr(err, "no baseline named 'main'") != NULL, "%s", err);
	ck_assert_int_eq(db_baseline_load(db, "main", &got, err, sizeof(err)), -LK_ENOENT);
	/* Deleting cascades: no orphan samples stay behind. */
	db_close(db);
	sqlite3 *h;
	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	sqlite3_stmt *st;
	ck_assert_int_eq(sqlite3_prepare_v2(h, "SELECT count(*) FROM baseline_sample", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(st, 0), 2 * 3 + 2 * 4);	/* only 'feature' */
	sqlite3_finalize(st);
	sqlite3_close(h);
	free(path);
}
END_TEST

/* A database as a lauka of schema `version` left it: the migrations up to it, then `rows`. */
static char *old_database(const char *name, int version, const char *rows)
{
	static const char *const sql[] = { migrate_001_sql, migrate_002_sql, migrate_003_sql, migrate_004_sql };
	char *path = xasprintf("%s/%s", dir, name);
	sqlite3 *h;
	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	ck_assert_int_le(version, (int)(sizeof(sql) / sizeof(*sql)));
	for (int v = 0; v < version; v++)
		ck_assert_int_eq(sqlite3_exec(h, sql[v], NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(h, rows, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	return path;
}

/* A database a lauka of schema 1 wrote, with calibration history: migrations 2-4 add slot maps and baselines and keep it. */
START_TEST(test_migrate_from_v1)
{
	char err[512];
	char *path = old_database("v1.db", 1, "PRAGMA user_version = 1; INSERT INTO verdict (pmu, backend, machine, "
				  "event, verdict, profile, created_at) VALUES ('valgrind', 'valgrind', 'm', 'Ir', "
				  "'validated', 'work-like', 1)");
	sqlite3 *h;
	struct db *db;
	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), 0);
	struct db_latest *v;
	size_t n;
	ck_assert_int_eq(db_latest_verdicts(db, "valgrind", "valgrind", "m", &v, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(v[0].verdict, "validated");
	db_latest_free(v, n);
	struct db_baseline b;
	make(&b, "main", "m");
	ck_assert_int_eq(db_baseline_save(db, &b, err, sizeof(err)), 0);
	db_close(db);

	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	sqlite3_stmt *st;
	ck_assert_int_eq(sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(st, 0), DB_SCHEMA_VERSION);
	sqlite3_finalize(st);
	sqlite3_close(h);
	free(path);
}
END_TEST

/* A schema-3 database with a baseline (samples NOT NULL): migration 4 keeps every row and then
 * takes a sample that was not counted. */
START_TEST(test_migrate_from_v3)
{
	char err[512];
	char *path = old_database("v3.db", 3, "PRAGMA user_version = 3; PRAGMA application_id = 1818326379;"
				  "INSERT INTO baseline VALUES (1, 'old', 'ci', 'valgrind', '0.1.0', NULL, NULL, 5);"
				  "INSERT INTO baseline_measurement VALUES (1, 0, 'Ir', NULL);"
				  "INSERT INTO baseline_command VALUES (1, 0, NULL, './a', 2);"
				  "INSERT INTO baseline_sample VALUES (1, 0, 0, 0, 7), (1, 0, 0, 1, 9)");
	sqlite3 *h;
	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	/* what version 3 refused */
	ck_assert_int_ne(sqlite3_exec(h, "INSERT INTO baseline_sample VALUES (1, 0, 0, 2, NULL)", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(h);

	struct db *db;
	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), 0);
	struct db_baseline got;
	ck_assert_int_eq(db_baseline_load(db, "old", &got, err, sizeof(err)), 0);
	ck_assert_uint_eq(got.cmds[0].runs, 2);
	ck_assert(got.cmds[0].samples[0][0] == 7 && got.cmds[0].samples[0][1] == 9);
	db_baseline_release(&got);
	struct db_baseline b;
	make(&b, "new", "ci");
	ck_assert_int_eq(db_baseline_save(db, &b, err, sizeof(err)), 0);
	ck_assert_int_eq(db_baseline_load(db, "new", &got, err, sizeof(err)), 0);
	ck_assert(isnan(got.cmds[1].samples[0][1]));
	db_baseline_release(&got);
	db_close(db);
	free(path);
}
END_TEST

/*
 * The fingerprint (migrate-005.sql) comes back as saved, byte for byte, in a
 * load and in the list; a baseline saved without one has none (NULL, never "").
 */
static const char *const fingerprints[] = {
	NULL,
	"",
	"programs:/usr/bin/sort env:LANG=C.UTF-8",
	"valgrind:valgrind-3.19.0 ld.so.cache:5a1d0c3e libc:2.36 collect:main programs:/usr/bin/sort,? "
	"env:LANG=C.UTF-8,LC_ALL=C,TZ=Europe/Helsinki",
	"programs:/tmp/a b/'x' env:LANG=fi_FI.UTF-8,LC_COLLATE=\xc3\xa4",	/* spaces, quotes, UTF-8 */
};

START_TEST(test_fingerprint_roundtrip)
{
	char err[512];
	char *path = xasprintf("%s/fp.db", dir);
	struct db *db;
	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), 0);
	struct db_baseline b, got;
	make(&b, "fp", "ci");
	b.fingerprint = (char *)fingerprints[_i];
	ck_assert_int_eq(db_baseline_save(db, &b, err, sizeof(err)), 0);
	ck_assert_int_eq(db_baseline_load(db, "fp", &got, err, sizeof(err)), 0);
	if (fingerprints[_i])
		ck_assert_str_eq(got.fingerprint, fingerprints[_i]);
	else
		ck_assert_ptr_null(got.fingerprint);
	ck_assert_uint_eq(got.ncmds, 2);
	db_baseline_release(&got);
	struct db_baseline *all;
	size_t n;
	ck_assert_int_eq(db_baseline_list(db, &all, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 1);
	if (fingerprints[_i])
		ck_assert_str_eq(all[0].fingerprint, fingerprints[_i]);
	else
		ck_assert_ptr_null(all[0].fingerprint);
	db_baseline_release(&all[0]);
	free(all);
	/* Saving again replaces the fingerprint too: none after one. */
	b.fingerprint = fingerprints[_i] ? NULL : "env:TZ=UTC";
	ck_assert_int_eq(db_baseline_save(db, &b, err, sizeof(err)), 0);
	ck_assert_int_eq(db_baseline_load(db, "fp", &got, err, sizeof(err)), 0);
	if (b.fingerprint)
		ck_assert_str_eq(got.fingerprint, b.fingerprint);
	else
		ck_assert_ptr_null(got.fingerprint);
	db_baseline_release(&got);
	db_close(db);
	free(path);
}
END_TEST

static int schema_of(const char *path)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	ck_assert_int_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	int v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

/*
 * A schema-4 database (before the fingerprint column) with a baseline, one
 * sample not counted: migration 5 keeps it whole, without a fingerprint,
 * and then stores one with a new baseline.
 */
START_TEST(test_migrate_from_v4)
{
	char err[512];
	char *path = old_database("v4.db", 4, "PRAGMA user_version = 4; PRAGMA application_id = 1818326379;"
				  "INSERT INTO baseline VALUES (1, 'old', 'ci', 'valgrind', '0.1.0', 'abc', 'sh', 5);"
				  "INSERT INTO baseline_measurement VALUES (1, 0, 'Ir', NULL), (1, 1, 'D1mr', NULL);"
				  "INSERT INTO baseline_command VALUES (1, 0, 'n', './a', 2);"
				  "INSERT INTO baseline_sample VALUES (1, 0, 0, 0, 7), (1, 0, 0, 1, 9),"
				  " (1, 0, 1, 0, 3), (1, 0, 1, 1, NULL)");
	sqlite3 *h;
	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	/* what version 4 has no room for */
	ck_assert_int_ne(sqlite3_exec(h, "UPDATE baseline SET fingerprint = 'x'", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);

	struct db *db;
	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), 0);
	struct db_baseline got;
	ck_assert_int_eq(db_baseline_load(db, "old", &got, err, sizeof(err)), 0);
	ck_assert_ptr_null(got.fingerprint);	/* none known: no warning to give */
	ck_assert_str_eq(got.runner_class, "ci");
	ck_assert_str_eq(got.git_commit, "abc");
	ck_assert_str_eq(got.shell, "sh");
	ck_assert_int_eq(got.created_at, 5);
	ck_assert_uint_eq(got.nmeas, 2);
	ck_assert_str_eq(got.cmds[0].name, "n");
	ck_assert_uint_eq(got.cmds[0].runs, 2);
	ck_assert(got.cmds[0].samples[0][0] == 7 && got.cmds[0].samples[0][1] == 9);
	ck_assert(got.cmds[0].samples[1][0] == 3 && isnan(got.cmds[0].samples[1][1]));
	db_baseline_release(&got);
	struct db_baseline b;
	make(&b, "new", "ci");
	b.fingerprint = "programs:/usr/bin/sort env:LANG=C.UTF-8";
	ck_assert_int_eq(db_baseline_save(db, &b, err, sizeof(err)), 0);
	db_close(db);
	ck_assert_int_eq(schema_of(path), DB_SCHEMA_VERSION);

	/* Opened again (nothing left to migrate): both, each with what it was saved with. */
	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), 0);
	struct db_baseline *all;
	size_t n;
	ck_assert_int_eq(db_baseline_list(db, &all, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(all[0].name, "old");
	ck_assert_ptr_null(all[0].fingerprint);
	ck_assert_str_eq(all[1].fingerprint, b.fingerprint);
	for (size_t i = 0; i < n; i++)
		db_baseline_release(&all[i]);
	free(all);
	db_close(db);
	free(path);
}
END_TEST

/* A database a newer lauka wrote, with baselines, is refused and left byte for byte as it was, never reset. */
START_TEST(test_newer_left_alone)
{
	char err[512];
	char *path = xasprintf("%s/newer.db", dir);
	struct db *db;
	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), 0);
	struct db_baseline b;
	make(&b, "kept", "ci");
	b.fingerprint = "env:-";
	ck_assert_int_eq(db_baseline_save(db, &b, err, sizeof(err)), 0);
	db_close(db);
	sqlite3 *h;
	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	char sql[128];
	snprintf(sql, sizeof(sql), "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA user_version = %d", DB_SCHEMA_VERSION + 1);
	ck_assert_int_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(h, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	char *cmd = xasprintf("cksum < '%s'", path);
	char before[128] = "", after[128] = "";
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(fgets(before, sizeof(before), p));
	pclose(p);

	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), -LK_EDB);
	snprintf(sql, sizeof(sql), "was written by a newer lauka (schema %d; this lauka knows up to %d)",
		 DB_SCHEMA_VERSION + 1, DB_SCHEMA_VERSION);
	ck_assert_msg(strstr(err, sql) != NULL, "%s", err);
	ck_assert_msg(strstr(err, "\nfix: use a newer lauka") != NULL, "%s", err);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(fgets(after, sizeof(after), p));
	pclose(p);
	ck_assert_str_eq(before, after);
	ck_assert_int_eq(schema_of(path), DB_SCHEMA_VERSION + 1);
	free(cmd);
	free(path);
}
END_TEST

/* A hand-altered database whose samples do not match the header is reported as corrupt, never read past. */
START_TEST(test_inconsistent_rows)
{
	char err[512];
	char *path = xasprintf("%s/bad.db", dir);
	struct db *db;
	ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), 0);
	struct db_baseline b, got;
	make(&b, "main", "m");
	ck_assert_int_eq(db_baseline_save(db, &b, err, sizeof(err)), 0);
	db_close(db);
	const char *edits[] = {
		"UPDATE baseline_sample SET run = 99 WHERE run = 0 AND command_idx = 0 AND measurement_idx = 0",
		"DELETE FROM baseline_sample WHERE run = 1",
		"UPDATE baseline_command SET runs = 50 WHERE idx = 0",
	};
	for (size_t i = 0; i < sizeof(edits) / sizeof(*edits); i++) {
		ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), 0);
		ck_assert_int_eq(db_baseline_save(db, &b, err, sizeof(err)), 0);
		db_close(db);
		sqlite3 *h;
		ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
		ck_assert_int_eq(sqlite3_exec(h, edits[i], NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(h);
		ck_assert_int_eq(db_open(&db, path, err, sizeof(err)), 0);
		ck_assert_int_eq(db_baseline_load(db, "main", &got, err, sizeof(err)), -LK_EDB);
		ck_assert_msg(strstr(err, "is corrupt") != NULL, "%s", err);
		db_close(db);
	}
	free(path);
}
END_TEST

extern Suite *db_baseline_suite(void);
Suite *db_baseline_suite(void)
{
	Suite *s = suite_create("db_baseline");
	TCase *tc = tcase_create("baseline");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_migrate_from_v1);
	tcase_add_test(tc, test_migrate_from_v3);
	tcase_add_test(tc, test_migrate_from_v4);
	tcase_add_test(tc, test_newer_left_alone);
	tcase_add_loop_test(tc, test_fingerprint_roundtrip, 0, (int)(sizeof(fingerprints) / sizeof(*fingerprints)));
	tcase_add_test(tc, test_inconsistent_rows);
	suite_add_tcase(s, tc);
	return s;
}
