/*
 * catalog/db.c: the SQLite database: location, opening (WAL, busy timeout,
 * migrations, refusing corrupt or newer files), catalogue import and load,
 * calibration history, baselines.
 */
#include "catalog/db.h"
#include "base/error.h"
#include "base/sudo.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pwd.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "migrate-001.sql.inc"
#include "migrate-002.sql.inc"
#include "migrate-003.sql.inc"
#include "migrate-004.sql.inc"
#include "migrate-005.sql.inc"
#include "migrate-006.sql.inc"

/*
 * The oldest schema this lauka reads as it stands when it cannot upgrade it
 * (a read-only file): migration 4 only lets a baseline sample be NULL, which
 * a version-3 database never holds; migration 5 adds the baselines'
 * fingerprint column, which the reading code asks for only from schema 5 on
 * (db->version), reading none before; migration 6 adds the events' flags,
 * read as 0 before it.  Raise it when a migration adds or
 * renames something the reading code needs and cannot do without.
 */
#define DB_READABLE_FROM 3

/* Migration i (1-based) brings the schema from version i-1 to i. */
static const char *const migrations[DB_SCHEMA_VERSION] = {
	migrate_001_sql,
	migrate_002_sql,
	migrate_003_sql,
	migrate_004_sql,
	migrate_005_sql,
	migrate_006_sql,
};

/* How long a writer waits for another lauka holding the database. */
#define BUSY_TIMEOUT_MS 15000

/*
 * PRAGMA application_id of lauka's databases ("lauk"): SQLite's header
 * field for telling one application's files from another's.  Databases
 * from before it was set (user_version >= 1, lauka's tables, id 0) are
 * lauka's too and get the id on their next write.
 */
#define LAUKA_APPLICATION_ID 0x6c61756b

struct db {
	sqlite3 *h;
	char *path;
	bool readonly;		/* opened read-only: writes fail with a fix line */
	const char *ro_why;	/* why: "the file is read-only", ... */
	bool marked;		/* application_id is set */
	bool busy;		/* the last failure was another process's lock */
	int full;		/* 0, or ENOSPC/EDQUOT: opened read-only because its filesystem is full */
	int version;		/* schema version as opened: below DB_SCHEMA_VERSION only when read as it stands */
};

const char *db_path(const struct db *db)
{
	return db->path;
}

static void fail_corrupt(const char *path, char *err, size_t len)
{
	lk_errbuf(err, len,
		  "database '%s' is corrupt\nfix: move it aside (mv '%s' '%s.corrupt') to start a new one, or use --db PATH",
		  path, path, path);
}

static char *dir_of(const char *path)
{
	char *d = xstrdup(path);
	char *slash = strrchr(d, '/');
	if (!slash) {
		free(d);
		return xstrdup(".");
	}
	if (slash == d)
		slash[1] = '\0';
	else
		*slash = '\0';
	return d;
}

static void fail_readonly(struct db *db, const char *why, char *err, size_t len)
{
	if (why && strstr(why, "-shm")) {
		lk_errbuf(err, len, "database '%s' cannot be written: %s\n"
			  "fix: if no lauka is using it, remove the leftover file (rm '%s-shm'), or use --db PATH",
			  db->path, why, db->path);
		return;
	}
	char *dir = dir_of(db->path);
	lk_errbuf(err, len,
		  "database '%s' cannot be written: %s\nfix: give this user write access to '%s' and its directory '%s', "
		  "or use --db PATH with a database you can write",
		  db->path, why ? why : "it is read-only", db->path, dir);
	free(dir);
}

static void fail_full(struct db *db, int sys, const char *what, char *err, size_t len)
{
	char *dir = dir_of(db->path);
	lk_errbuf(err, len, "database '%s': the disk is full (%s on the filesystem of '%s', while %s)\n"
		  "fix: free some space there, or use --db PATH on another filesystem",
		  db->path, sys == EDQUOT ? "disk quota exceeded" : "no space left", dir, what);
	free(dir);
}

/* Turn a failed SQLite call into -LK_EDB with a message; corruption, a full disk and read-only files get their own. */
static int fail(struct db *db, int rc, const char *what, char *err, size_t len)
{
	int base = rc & 0xff;
	int sys = db->h ? sqlite3_system_errno(db->h) : 0;
	db->busy = base == SQLITE_BUSY || base == SQLITE_LOCKED;
	if (base == SQLITE_FULL || sys == ENOSPC || sys == EDQUOT || (base == SQLITE_READONLY && db->full))
		fail_full(db, db->full ? db->full : sys, what, err, len);
	else if (base == SQLITE_READONLY)
		fail_readonly(db, db->ro_why, err, len);
	else if (base == SQLITE_CORRUPT || base == SQLITE_NOTADB)
		fail_corrupt(db->path, err, len);
	else if (lk_limit_reason(sys))	/* lauka's own limits, not the file's fault */
		lk_errbuf(err, len, "cannot use database '%s' (%s): %s", db->path, what, lk_limit_reason(sys));
	else if (base == SQLITE_BUSY || base == SQLITE_LOCKED)
		lk_errbuf(err, len, "database '%s' is busy (another lauka holds it): %s", db->path, what);
	else
		lk_errbuf(err, len, "database '%s': %s: %s", db->path, what, sqlite3_errmsg(db->h));
	return -LK_EDB;
}

static int exec(struct db *db, const char *sql, char *err, size_t len)
{
	int rc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : fail(db, rc, sql, err, len);
}

static int prepare(struct db *db, const char *sql, sqlite3_stmt **st, char *err, size_t len)
{
	int rc = sqlite3_prepare_v2(db->h, sql, -1, st, NULL);
	return rc == SQLITE_OK ? 0 : fail(db, rc, "preparing a query", err, len);
}

static void rollback(struct db *db)
{
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
}

static int user_version(struct db *db, int *v, char *err, size_t len)
{
	sqlite3_stmt *st;
	int r = prepare(db, "PRAGMA user_version", &st, err, len);
	if (r < 0)
		return r;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : fail(db, rc, "reading the schema version", err, len);
}

static int newer(struct db *db, int v, char *err, size_t len)
{
	lk_errbuf(err, len,
		  "database '%s' was written by a newer lauka (schema %d; this lauka knows up to %d)\n"
		  "fix: use a newer lauka, or another database with --db PATH",
		  db->path, v, DB_SCHEMA_VERSION);
	return -LK_EDB;
}

/*
 * A negative user_version is no schema lauka ever wrote: a migration index
 * from it would run whatever lies before the table (issue 21).  Not a lauka
 * database, or a corrupt one; never migrated.
 */
static int unknown_version(struct db *db, long long v, char *err, size_t len)
{
	lk_errbuf(err, len,
		  "database '%s' is not a lauka database or is corrupt (schema version %lld, which no lauka writes); "
		  "it was left as it is\n"
		  "fix: point --db or LAUKA_DB at a lauka database or at a new file",
		  db->path, v);
	return -LK_EDB;
}

/* Set application_id, inside the caller's write transaction. */
static int mark(struct db *db, char *err, size_t len)
{
	if (db->marked)
		return 0;
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", (int)LAUKA_APPLICATION_ID);
	int r = exec(db, sql, err, len);
	if (r == 0)
		db->marked = true;
	return r;
}

/* BEGIN IMMEDIATE for a write, refusing at once on a read-only database; marks an unmarked lauka database. */
static int begin_write(struct db *db, char *err, size_t len)
{
	if (db->full) {
		fail_full(db, db->full, "writing", err, len);
		return -LK_EDB;
	}
	if (db->readonly) {
		fail_readonly(db, db->ro_why, err, len);
		return -LK_EDB;
	}
	int r = exec(db, "BEGIN IMMEDIATE", err, len);
	if (r == 0 && (r = mark(db, err, len)) < 0)
		rollback(db);
	return r;
}

static int migrate(struct db *db, char *err, size_t len)
{
	int v = 0, r;
	if ((r = user_version(db, &v, err, len)) < 0)
		return r;
	if (v < 0)
		return unknown_version(db, v, err, len);
	if (v > DB_SCHEMA_VERSION)
		return newer(db, v, err, len);
	if (v == DB_SCHEMA_VERSION)
		return 0;
	/* Another lauka may be migrating too: decide again under the write lock. */
	if ((r = exec(db, "BEGIN IMMEDIATE", err, len)) < 0)
		return r;
	db->marked = false;	/* re-read under the lock: set it in this transaction whatever another lauka did */
	if ((r = user_version(db, &v, err, len)) < 0)
		goto out;
	if (v < 0 || v > DB_SCHEMA_VERSION) {
		r = v < 0 ? unknown_version(db, v, err, len) : newer(db, v, err, len);
		goto out;
	}
	for (; v < DB_SCHEMA_VERSION; v++) {
		char what[96];
		snprintf(what, sizeof(what), "applying migration %d (catalog/migrate-%03d.sql)", v + 1, v + 1);
		int rc = sqlite3_exec(db->h, migrations[v], NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			r = fail(db, rc, what, err, len);
			goto out;
		}
		char sql[64];
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v + 1);
		if ((r = exec(db, sql, err, len)) < 0)
			goto out;
	}
	if ((r = mark(db, err, len)) < 0)
		goto out;
	return exec(db, "COMMIT", err, len);
out:
	rollback(db);
	return r;
}

/*
 * Switch a new database to WAL (a lasting property of the file).  The switch
 * needs the database to itself, and SQLite answers BUSY at once rather than
 * waiting when another lauka is creating the same database, so retry.
 */
static int set_wal(struct db *db, char *err, size_t len)
{
	for (int waited = 0;; waited += 10) {
		sqlite3_stmt *st;
		int r = prepare(db, "PRAGMA journal_mode = WAL", &st, err, len);
		if (r < 0)
			return r;
		int rc = sqlite3_step(st);
		bool wal = rc == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(st, 0), "wal");
		sqlite3_finalize(st);
		if (wal)
			return 0;
		if (rc == SQLITE_ROW)
			break;	/* the mode cannot be WAL (e.g. an in-memory database): works anyway */
		if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
			return fail(db, rc, "switching to WAL mode", err, len);
		if (waited >= BUSY_TIMEOUT_MS)
			return fail(db, rc, "switching to WAL mode", err, len);
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	return 0;
}

/*
 * Can this process write path, with its effective ids (under sudo they are
 * the invoking user's while the database is opened, see db_open)?
 */
static bool writable(const char *path)
{
	return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0;
}

char *db_default_path(char *err, size_t len)
{
	const char *p = getenv("LAUKA_DB");
	if (p && *p)
		return xstrdup(p);
	p = getenv("XDG_DATA_HOME");
	if (p && *p == '/')
		return xasprintf("%s/lauka/lauka.db", p);
	const char *home = getenv("HOME");
	struct sudo_user su;
	if (sudo_user(&su) && su.home[0])
		home = su.home;
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || !*home) {
		lk_errbuf(err, len, "no home directory to keep the database in\nfix: set LAUKA_DB or pass --db PATH");
		return NULL;
	}
	/* Create directories below a home, never the home itself (nobody's is /nonexistent). */
	struct stat st;
	if (stat(home, &st) != 0 || !S_ISDIR(st.st_mode)) {
		lk_errbuf(err, len, "home directory '%s' does not exist, so there is nowhere to keep the database\n"
			  "fix: set LAUKA_DB or pass --db PATH", home);
		return NULL;
	}
	return xasprintf("%s/.local/share/lauka/lauka.db", home);
}

/* mkdir -p of path's directory (under sudo as the invoking user, see db_open). */
static int make_parents(const char *path, char *err, size_t len)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	int r = 0;
	if (!slash || slash == dir) {
		free(dir);
		return 0;
	}
	*slash = '\0';
	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = '\0';
		struct stat st;
		if (stat(dir, &st) != 0) {
			if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
				lk_errbuf(err, len, "cannot create directory '%s' for the database: %s", dir, strerror(errno));
				r = -LK_EIO;
				break;
			}
		}
		*p = c;
		if (!c)
			break;
	}
	free(dir);
	return r;
}

static int pragma_int(struct db *db, const char *sql, sqlite3_int64 *v, const char *what, char *err, size_t len)
{
	sqlite3_stmt *st;
	int r = prepare(db, sql, &st, err, len);
	if (r < 0)
		return r;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : fail(db, rc, what, err, len);
}

/* Test hooks: $NAME=MS sleeps that long (db.h names where). */
static void test_delay(const char *name)
{
	const char *slow = getenv(name);
	if (slow && *slow) {
		unsigned long ms = strtoul(slow, NULL, 10);
		struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
}

/*
 * Whose file is it?  Read before anything writes (no pragma that writes,
 * not even journal_mode): a file of another application stays byte for byte
 * as it was.  0 with *version for lauka's (or an empty file), -LK_EDB for a
 * foreign, corrupt or newer one.
 */
static int identify(struct db *db, int *version, bool *empty, char *err, size_t len)
{
	sqlite3_int64 app = 0, v = 0, objects = 0, ours = 0;
	/*
	 * One read transaction, so that the four answers are of one state of the file: read one by
	 * one, a version of 0 from before another lauka's first commit and that commit's tables made
	 * a lauka database look like another application's.  (BEGIN writes nothing; it takes its
	 * snapshot at the first read.)
	 */
	int r = exec(db, "BEGIN", err, len);
	if (r < 0)
		return r;
	if ((r = pragma_int(db, "PRAGMA application_id", &app, "reading the application id", err, len)) < 0 ||
	    (r = pragma_int(db, "PRAGMA user_version", &v, "reading the schema version", err, len)) < 0 ||
	    (test_delay("LAUKA_TEST_SLOW_IDENTIFY"), 0) ||
	    (r = pragma_int(db, "SELECT count(*) FROM sqlite_master", &objects, "listing the tables", err, len)) < 0 ||
	    (r = pragma_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
				"('pmu', 'event', 'alias', 'verdict', 'response')", &ours, "listing the tables", err, len)) < 0) {
		rollback(db);
		return r;
	}
	if ((r = exec(db, "COMMIT", err, len)) < 0)
		return r;
	if (v < 0)
		return unknown_version(db, v, err, len);
	*version = (int)v;
	*empty = app == 0 && v == 0 && objects == 0;
	if (app == LAUKA_APPLICATION_ID) {
		db->marked = true;
	} else if (!*empty && !(app == 0 && v >= 1 && ours == 5)) {
		char why[96];
		if (app)
			snprintf(why, sizeof(why), "its SQLite application_id is 0x%08llx, not lauka's 0x%08x",
				 (unsigned long long)(uint32_t)app, LAUKA_APPLICATION_ID);
		else
			snprintf(why, sizeof(why), "its schema holds %lld object%s that lauka did not make", (long long)objects,
				 objects == 1 ? "" : "s");
		lk_errbuf(err, len, "'%s' is another application's SQLite database, not lauka's (%s); it was left as it is\n"
			  "fix: point --db or LAUKA_DB at a lauka database or at a new file", db->path, why);
		return -LK_EDB;
	}
	if (v > DB_SCHEMA_VERSION)
		return newer(db, (int)v, err, len);
	return 0;
}

/* "file:" URI of path with ?immutable=1: the last way to read a database whose -shm cannot be made. */
static char *immutable_uri(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "file:");
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		if (*c == '%' || *c == '?' || *c == '#' || *c < 0x21 || *c >= 0x7f)
			strbuf_addf(&sb, "%%%02X", *c);
		else
			strbuf_add(&sb, (const char *)c, 1);
	strbuf_addf(&sb, "?immutable=1");
	return sb.buf;
}

enum open_mode { OPEN_WRITE, OPEN_READ, OPEN_IMMUTABLE };

/* (Re)open db->h in a mode. */
static int open_handle(struct db *db, enum open_mode mode, char *err, size_t len)
{
	if (db->h)
		sqlite3_close(db->h);
	db->h = NULL;
	char *uri = mode == OPEN_IMMUTABLE ? immutable_uri(db->path) : NULL;
	int flags = SQLITE_OPEN_NOMUTEX | (mode == OPEN_WRITE ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY) |
		    (uri ? SQLITE_OPEN_URI : 0);
	int rc = sqlite3_open_v2(uri ? uri : db->path, &db->h, flags, NULL);
	free(uri);
	if (rc != SQLITE_OK)
		return fail(db, rc, "cannot open", err, len);
	sqlite3_busy_timeout(db->h, BUSY_TIMEOUT_MS);
	return 0;
}

/*
 * Why this process cannot write the database at p, or NULL: the file, its
 * directory (WAL mode makes -wal and -shm files beside it), or a -shm file
 * left behind read-only.
 */
static const char *readonly_reason(const char *p)
{
	if (!writable(p))
		return errno == EROFS ? "it is on a read-only filesystem" : "the file is read-only";
	char *shm = xasprintf("%s-shm", p), *dir = dir_of(p);
	const char *why = NULL;
	bool have_shm = access(shm, F_OK) == 0;
	if (have_shm && !writable(shm))
		why = "its -shm file is read-only";
	else if (!have_shm && !writable(dir))
		why = "its directory is read-only";
	free(shm);
	free(dir);
	return why;
}

/* ENOSPC or EDQUOT when the last failure on db was a full filesystem, else 0. */
static int full_errno(struct db *db)
{
	if (!db->h)
		return 0;
	int sys = sqlite3_system_errno(db->h);
	if (sys == ENOSPC || sys == EDQUOT)
		return sys;
	return (sqlite3_errcode(db->h) & 0xff) == SQLITE_FULL ? ENOSPC : 0;
}

/*
 * Read an existing database without writing anything: a read-only connection, or, when its -shm file
 * cannot be made (a full filesystem: WAL's shared memory is a file beside the database), the file as
 * it stands.
 */
static int open_read_as_is(struct db *db, int *v, bool *empty, char *err, size_t len)
{
	int r;
	if ((r = open_handle(db, OPEN_READ, err, len)) == 0 && (r = identify(db, v, empty, err, len)) == 0)
		return 0;
	if ((r = open_handle(db, OPEN_IMMUTABLE, err, len)) == 0)
		r = identify(db, v, empty, err, len);
	return r;
}

#ifdef __APPLE__
#define MTIME(st) ((st).st_mtimespec)
#else
#define MTIME(st) ((st).st_mtim)
#endif

/* -wal/-shm (WAL) or -journal (a rollback journal: a creation that could not switch to WAL yet). */
static bool sidecars_of(const char *path)
{
	static const char *const ext[] = { "-wal", "-shm", "-journal" };
	bool any = false;
	for (size_t i = 0; i < sizeof(ext) / sizeof(*ext) && !any; i++) {
		char *side = xasprintf("%s%s", path, ext[i]);
		any = access(side, F_OK) == 0;
		free(side);
	}
	return any;
}

/*
 * An existing file is first only read, to see whose it is: a read-write
 * connection could checkpoint another application's WAL into its file
 * when it closes.  Without -wal and -shm files beside it, it is read as
 * immutable, so that refusing a foreign file leaves no files behind; a
 * doubtful answer is asked again through a normal read-only connection.
 * *writable turns false when only reading is possible (a full disk).
 */
static int identify_existing(struct db *db, bool *writable, int *v, bool *empty, char *err, size_t len)
{
	int r = -LK_EDB;
	/*
	 * An immutable read takes no lock, so a lauka creating this file at
	 * this moment can look foreign: its pages are read while they are
	 * written (a checkpoint copying the schema before page 1's marks).  A
	 * foreign verdict is only believed when it holds for 200 ms on a file
	 * that did not change meanwhile; while the file keeps changing (a slow
	 * creation on a loaded machine took longer than 200 ms), lauka waits,
	 * up to 3 s.  Then, or when a -wal, -shm or -journal file appears, the
	 * read-only connection below answers, taking the writer's locks.
	 */
	struct stat last = { 0 };
	int stable = 0;
	for (int tries = 0; stable < 10 && tries < 150 && !sidecars_of(db->path); tries++) {
		if (tries)
			nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000000L }, NULL);
		struct stat now = { 0 };
		stat(db->path, &now);
		bool same = tries && now.st_size == last.st_size && now.st_ino == last.st_ino &&
			    !memcmp(&MTIME(now), &MTIME(last), sizeof(MTIME(now)));
		last = now;
		if ((r = open_handle(db, OPEN_IMMUTABLE, err, len)) == 0)
			r = identify(db, v, empty, err, len);
		if (!(r < 0 && sqlite3_errcode(db->h) == SQLITE_OK))
			break;
		stable = same ? stable + 1 : 0;
	}
	/* refused on what it holds, and it held still */
	bool foreign = r < 0 && db->h && sqlite3_errcode(db->h) == SQLITE_OK && stable >= 10;
	if (r < 0 && !foreign) {
		if ((r = open_handle(db, OPEN_READ, err, len)) == 0)
			r = identify(db, v, empty, err, len);
		int ec = db->h ? sqlite3_errcode(db->h) : SQLITE_OK;
		if (r < 0 && !*writable && ec != SQLITE_OK && ec != SQLITE_NOTADB && ec != SQLITE_CORRUPT &&
		    (r = open_handle(db, OPEN_IMMUTABLE, err, len)) == 0)
			/* read-only, and its -shm cannot be made or used: read the file as it stands */
			r = identify(db, v, empty, err, len);
		if (r < 0 && (db->full = full_errno(db)) && (r = open_handle(db, OPEN_IMMUTABLE, err, len)) == 0 &&
		    (r = identify(db, v, empty, err, len)) == 0)
			*writable = false;	/* a full disk: what is stored can still be read */
	}
	return r;
}

static int open_path(struct db **out, char *p, char *err, size_t len);

/*
 * Under sudo the database, its directories and its -wal/-shm files are
 * created and opened with the invoking user's ids (base/sudo.h's rule):
 * a link the user planted at the default path, or --db naming a system
 * file, gets only what the user could do there.
 */
int db_open(struct db **out, const char *path, char *err, size_t len)
{
	*out = NULL;
	/* The default path is the invoking user's, found while still root. */
	char *p = path ? xstrdup(path) : db_default_path(err, len);
	if (!p)
		return -LK_EINVAL;
	struct sudo_creds c;
	if (sudo_as_user(&c) < 0) {
		lk_errbuf(err, len, "cannot take the invoking user's ids to open the database '%s': %s", p, strerror(errno));
		free(p);
		return -LK_EIO;
	}
	int r = open_path(out, p, err, len);
	sudo_as_root(&c);
	return r;
}

/* p: malloc'd, taken. */
static int open_path(struct db **out, char *p, char *err, size_t len)
{
	struct stat st;
	bool existed = stat(p, &st) == 0;
	if (existed && !S_ISREG(st.st_mode)) {
		lk_errbuf(err, len, "database '%s' is not a regular file\nfix: use --db PATH with a file", p);
		free(p);
		return -LK_EDB;
	}
	if (!existed && make_parents(p, err, len) < 0) {
		free(p);
		return -LK_EIO;
	}
	struct db *db = xcalloc(1, sizeof(*db));
	db->path = p;
	bool memory = !strcmp(p, ":memory:");
	if (existed && !memory)
		db->ro_why = readonly_reason(p);
	db->readonly = db->ro_why != NULL;
	if (!existed && !memory) {
		char *dir = dir_of(p);
		if (!writable(dir)) {
			lk_errbuf(err, len, "cannot create database '%s': its directory '%s' is not writable (%s)\n"
				  "fix: use --db PATH (or LAUKA_DB) in a directory you can write", p, dir, strerror(errno));
			free(dir);
			db_close(db);
			return -LK_EDB;
		}
		free(dir);
	}
	bool writable = !db->readonly;
	int v = 0, r;
	bool empty = existed && st.st_size == 0;
	if (existed && st.st_size > 0 && !memory) {
		if ((r = identify_existing(db, &writable, &v, &empty, err, len)) < 0)
			goto bad;
		db->readonly = !writable;
	}
	if (writable) {
		/* lauka's or new: open it for writing, and look again (another lauka may have changed it meanwhile). */
		if ((r = open_handle(db, OPEN_WRITE, err, len)) < 0 || (r = identify(db, &v, &empty, err, len)) < 0) {
			if (!existed || !(db->full = full_errno(db)) || (r = open_read_as_is(db, &v, &empty, err, len)) < 0)
				goto bad;
			db->readonly = true;	/* a full disk: what is stored can still be read */
		}
	}
	if (db->readonly) {
		if (db->full && (empty || v < DB_READABLE_FROM)) {
			fail_full(db, db->full, empty ? "creating its tables" : "upgrading its schema", err, len);
			r = -LK_EDB;
			goto bad;
		}
		if (empty || v < DB_READABLE_FROM) {
			fail_readonly(db, empty ? "it is empty and read-only, so lauka cannot create its tables" :
					  "it needs a schema upgrade, which is a write", err, len);
			r = -LK_EDB;
			goto bad;
		}
		db->version = v;
		*out = db;
		return 0;
	}
	if ((r = set_wal(db, err, len)) < 0 ||
	    (r = exec(db, "PRAGMA synchronous = NORMAL", err, len)) < 0 ||
	    (r = exec(db, "PRAGMA foreign_keys = ON", err, len)) < 0 ||
	    (r = migrate(db, err, len)) < 0)
		goto bad;
	db->version = DB_SCHEMA_VERSION;	/* migrated */
	*out = db;
	return 0;
bad:
	db_close(db);
	return r;
}

bool db_readonly(const struct db *db)
{
	return db->readonly;
}

int db_check_writable(struct db *db, char *err, size_t len)
{
	int r = begin_write(db, err, len);
	if (r == 0)
		rollback(db);
	return r;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	sqlite3_close(db->h);
	free(db->path);
	free(db);
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

static char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? xstrdup((const char *)s) : NULL;
}

static uint64_t col_u64(sqlite3_stmt *st, int i)
{
	return (uint64_t)sqlite3_column_int64(st, i);
}

/* Run a prepared statement that returns no rows, then reset it for reuse. */
static int step_done(struct db *db, sqlite3_stmt *st, const char *what, char *err, size_t len)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : fail(db, rc, what, err, len);
}

static int find_pmu(struct db *db, const char *kind, const char *name, sqlite3_int64 *id, char hex[65],
		    char *err, size_t len)
{
	sqlite3_stmt *st;
	int r = prepare(db, "SELECT id, sha256 FROM pmu WHERE kind = ?1 AND name = ?2", &st, err, len);
	if (r < 0)
		return r;
	bind_text(st, 1, kind);
	bind_text(st, 2, name);
	int rc = sqlite3_step(st);
	*id = 0;
	hex[0] = '\0';
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		const unsigned char *h = sqlite3_column_text(st, 1);
		snprintf(hex, 65, "%s", h ? (const char *)h : "");
		r = 0;
	} else if (rc == SQLITE_DONE)
		r = 0;
	else
		r = fail(db, rc, "looking up a catalogue", err, len);
	sqlite3_finalize(st);
	return r;
}

int db_pmu_sha256(struct db *db, const char *kind, const char *name, char hex[65], char *err, size_t len)
{
	sqlite3_int64 id;
	return find_pmu(db, kind, name, &id, hex, err, len);
}

static int store_pmu(struct db *db, const struct lk_pmu *p, enum db_import_status *status, char *err, size_t len)
{
	sqlite3_int64 id;
	char hex[65];
	int r = find_pmu(db, p->kind, p->name, &id, hex, err, len);
	if (r < 0)
		return r;
	if (id && !strcmp(hex, p->sha256)) {
		*status = DB_IMPORT_SAME;
		return 0;
	}
	*status = id ? DB_IMPORT_CHANGED : DB_IMPORT_NEW;
	sqlite3_stmt *st = NULL;
	if (id) {
		char sql[128];
		snprintf(sql, sizeof(sql), "DELETE FROM event WHERE pmu_id = %lld; DELETE FROM alias WHERE pmu_id = %lld",
			 (long long)id, (long long)id);
		if ((r = exec(db, sql, err, len)) < 0)
			return r;
		r = prepare(db, "UPDATE pmu SET marketing_name = ?3, arch = ?4, fixed_mask = ?5, config_mask = ?6, "
				"power_mask = ?7, source = ?8, sha256 = ?9, imported_at = ?10 WHERE kind = ?1 AND name = ?2",
			    &st, err, len);
	} else
		r = prepare(db, "INSERT INTO pmu (kind, name, marketing_name, arch, fixed_mask, config_mask, power_mask, "
				"source, sha256, imported_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
			    &st, err, len);
	if (r < 0)
		return r;
	bind_text(st, 1, p->kind);
	bind_text(st, 2, p->name);
	bind_text(st, 3, p->marketing_name);
	bind_text(st, 4, p->arch);
	bind_u64(st, 5, p->fixed_mask);
	bind_u64(st, 6, p->config_mask);
	bind_u64(st, 7, p->power_mask);
	bind_text(st, 8, p->source);
	bind_text(st, 9, p->sha256);
	sqlite3_bind_int64(st, 10, (sqlite3_int64)time(NULL));
	r = step_done(db, st, "storing a catalogue", err, len);
	sqlite3_finalize(st);
	if (r < 0)
		return r;
	if (!id)
		id = sqlite3_last_insert_rowid(db->h);

	/* A name given twice keeps its first entry, as pmu_find() would. */
	if ((r = prepare(db, "INSERT OR IGNORE INTO event (pmu_id, name, description, number, umask, counters_mask, "
			     "fixed_counter, fallback, errata, perf_type, config1, config2, unit, flags) "
			     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
			 &st, err, len)) < 0)
		return r;
	for (size_t i = 0; i < p->nevents && r == 0; i++) {
		const struct lk_event *e = &p->events[i];
		sqlite3_bind_int64(st, 1, id);
		bind_text(st, 2, e->name);
		bind_text(st, 3, e->description);
		bind_u64(st, 4, e->number);
		bind_u64(st, 5, e->umask);
		bind_u64(st, 6, e->counters_mask);
		sqlite3_bind_int(st, 7, e->fixed_counter);
		bind_text(st, 8, e->fallback);
		bind_text(st, 9, e->errata);
		sqlite3_bind_int64(st, 10, e->perf_type);
		bind_u64(st, 11, e->config1);
		bind_u64(st, 12, e->config2);
		bind_text(st, 13, e->unit);
		sqlite3_bind_int64(st, 14, e->flags & LK_EVF_KNOWN);
		r = step_done(db, st, "storing an event", err, len);
	}
	sqlite3_finalize(st);
	if (r < 0)
		return r;
	if ((r = prepare(db, "INSERT OR IGNORE INTO alias (pmu_id, alias, target) VALUES (?1, ?2, ?3)", &st, err, len)) < 0)
		return r;
	for (size_t i = 0; i < p->naliases && r == 0; i++) {
		sqlite3_bind_int64(st, 1, id);
		bind_text(st, 2, p->aliases[i].alias);
		bind_text(st, 3, p->aliases[i].target);
		r = step_done(db, st, "storing an alias", err, len);
	}
	sqlite3_finalize(st);
	return r;
}

int db_import_nowait(struct db *db, const struct lk_pmu *const *pmus, size_t n, char *err, size_t len)
{
	sqlite3_busy_timeout(db->h, 0);
	db->busy = false;
	int r = db_import(db, pmus, n, NULL, err, len);
	sqlite3_busy_timeout(db->h, BUSY_TIMEOUT_MS);
	return r < 0 && db->busy ? -LK_EBUSY : r;
}

int db_import(struct db *db, const struct lk_pmu *const *pmus, size_t n, enum db_import_status *status,
	      char *err, size_t len)
{
	int r = begin_write(db, err, len);
	if (r < 0)
		return r;
	bool wrote = false;
	for (size_t i = 0; i < n; i++) {
		enum db_import_status s;
		if ((r = store_pmu(db, pmus[i], &s, err, len)) < 0) {
			rollback(db);
			return r;
		}
		wrote |= s != DB_IMPORT_SAME;
		if (status)
			status[i] = s;
	}
	if (wrote)
		test_delay("LAUKA_TEST_SLOW_IMPORT");
	if ((r = exec(db, "COMMIT", err, len)) < 0)
		rollback(db);
	return r;
}

/* A row lauka could never have written: the database was altered by hand or damaged. */
static int corrupt_row(struct db *db, const char *pmu, const char *why, char *err, size_t len)
{
	lk_errbuf(err, len,
		  "database '%s' is corrupt: catalogue '%s' has %s\nfix: re-import it (lauka counters --import PATH), or move the "
		  "database aside (mv '%s' '%s.corrupt') to start a new one",
		  db->path, pmu ? pmu : "?", why, db->path, db->path);
	return -LK_EDB;
}

int db_load_pmu(struct db *db, const char *kind, const char *name, struct lk_pmu *out, char *err, size_t len)
{
	memset(out, 0, sizeof(*out));
	sqlite3_stmt *st;
	int r = prepare(db, "SELECT id, kind, name, marketing_name, arch, fixed_mask, config_mask, power_mask, source, "
			    "sha256 FROM pmu WHERE (?1 IS NULL OR kind = ?1) AND name = ?2 COLLATE NOCASE "
			    "ORDER BY name = ?2 DESC, kind LIMIT 1",
			&st, err, len);
	if (r < 0)
		return r;
	bind_text(st, 1, kind);
	bind_text(st, 2, name);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return fail(db, rc, "loading a catalogue", err, len);
		lk_errbuf(err, len, "no catalogue named '%s' in database '%s'", name, db->path);
		return -LK_ENOENT;
	}
	sqlite3_int64 id = sqlite3_column_int64(st, 0);
	if (sqlite3_column_type(st, 1) != SQLITE_TEXT || sqlite3_column_type(st, 2) != SQLITE_TEXT ||
	    sqlite3_column_type(st, 9) != SQLITE_TEXT) {
		sqlite3_finalize(st);
		return corrupt_row(db, name, "its kind, name or sha256 is not text", err, len);
	}
	out->kind = col_text(st, 1);
	out->name = col_text(st, 2);
	out->marketing_name = col_text(st, 3);
	out->arch = col_text(st, 4);
	out->fixed_mask = col_u64(st, 5);
	out->config_mask = col_u64(st, 6);
	out->power_mask = col_u64(st, 7);
	out->source = col_text(st, 8);
	snprintf(out->sha256, sizeof(out->sha256), "%s", (const char *)sqlite3_column_text(st, 9));
	sqlite3_finalize(st);

	/* A database read as it stands below schema 6 (a read-only file an older lauka wrote) has no flags column. */
	if ((r = prepare(db, db->version >= 6 ? "SELECT name, description, number, umask, counters_mask, fixed_counter, "
						"fallback, errata, perf_type, config1, config2, unit, flags FROM event "
						"WHERE pmu_id = ?1 ORDER BY name"
					      : "SELECT name, description, number, umask, counters_mask, fixed_counter, "
						"fallback, errata, perf_type, config1, config2, unit, 0 FROM event "
						"WHERE pmu_id = ?1 ORDER BY name",
			 &st, err, len)) < 0)
		goto bad;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 fc = sqlite3_column_int64(st, 5);
		if (sqlite3_column_type(st, 0) != SQLITE_TEXT || fc < -1 || fc >= 64) {
			const char *why = sqlite3_column_type(st, 0) != SQLITE_TEXT ? "an event without a name" :
					  "an event whose fixed counter is not a counter index (0-63)";
			sqlite3_finalize(st);
			r = corrupt_row(db, out->name, why, err, len);
			goto bad;
		}
		struct lk_event e = {
			.name = (char *)sqlite3_column_text(st, 0),
			.description = (char *)sqlite3_column_text(st, 1),
			.number = col_u64(st, 2),
			.umask = col_u64(st, 3),
			.counters_mask = col_u64(st, 4),
			.fixed_counter = sqlite3_column_int(st, 5),
			.fallback = (char *)sqlite3_column_text(st, 6),
			.errata = (char *)sqlite3_column_text(st, 7),
			.perf_type = (uint32_t)sqlite3_column_int64(st, 8),
			.config1 = col_u64(st, 9),
			.config2 = col_u64(st, 10),
			.unit = (char *)sqlite3_column_text(st, 11),
			.flags = (unsigned)(sqlite3_column_int64(st, 12) & LK_EVF_KNOWN),
		};
		pmu_add_event(out, &e);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		r = fail(db, rc, "loading events", err, len);
		goto bad;
	}
	if ((r = prepare(db, "SELECT alias, target FROM alias WHERE pmu_id = ?1 ORDER BY alias", &st, err, len)) < 0)
		goto bad;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_TEXT || sqlite3_column_type(st, 1) != SQLITE_TEXT) {
			sqlite3_finalize(st);
			r = corrupt_row(db, out->name, "an alias without a name or target", err, len);
			goto bad;
		}
		pmu_add_alias(out, (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		r = fail(db, rc, "loading aliases", err, len);
		goto bad;
	}
	/* What a hand-altered database could break (alias cycles, fallbacks nowhere, names clashing): checked as it loads. */
	pmu_sort(out);
	char why[512];
	if (pmu_validate(out, why, sizeof(why)) < 0) {
		r = corrupt_row(db, out->name, why, err, len);
		goto bad;
	}
	return 0;
bad:
	pmu_release(out);
	return r;
}

int db_pmu_names(struct db *db, char ***names, size_t *n, char *err, size_t len)
{
	*names = NULL;
	*n = 0;
	sqlite3_stmt *st;
	int r = prepare(db, "SELECT DISTINCT name FROM pmu ORDER BY name", &st, err, len), rc;
	if (r < 0)
		return r;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_TEXT)
			continue;
		*names = xrealloc(*names, (*n + 1) * sizeof(**names));
		(*names)[(*n)++] = col_text(st, 0);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(db, rc, "listing catalogues", err, len);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

int db_store_calibration(struct db *db, const char *pmu, const char *backend, const char *machine,
			 const struct db_verdict *v, size_t n, char *err, size_t len)
{
	sqlite3_stmt *sv = NULL, *sr = NULL;
	int r = begin_write(db, err, len);
	if (r < 0)
		return r;
	if ((r = prepare(db, "INSERT INTO verdict (pmu, backend, machine, event, verdict, profile, created_at) "
			     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", &sv, err, len)) < 0 ||
	    (r = prepare(db, "INSERT OR REPLACE INTO response (verdict_id, probe, per_unit_1x, per_unit_4x, expected) "
			     "VALUES (?1, ?2, ?3, ?4, ?5)", &sr, err, len)) < 0)
		goto out;
	sqlite3_int64 now = (sqlite3_int64)time(NULL);
	for (size_t i = 0; i < n && r == 0; i++) {
		bind_text(sv, 1, pmu);
		bind_text(sv, 2, backend);
		bind_text(sv, 3, machine);
		bind_text(sv, 4, v[i].event);
		bind_text(sv, 5, v[i].verdict ? v[i].verdict : "unsupported");
		bind_text(sv, 6, v[i].profile);
		sqlite3_bind_int64(sv, 7, now);
		if ((r = step_done(db, sv, "storing a verdict", err, len)) < 0)
			break;
		sqlite3_int64 id = sqlite3_last_insert_rowid(db->h);
		for (size_t k = 0; k < v[i].nresp && r == 0; k++) {
			const struct db_probe_response *p = &v[i].resp[k];
			sqlite3_bind_int64(sr, 1, id);
			bind_text(sr, 2, p->probe);
			bind_real(sr, 3, p->per_unit_1x);
			bind_real(sr, 4, p->per_unit_4x);
			bind_real(sr, 5, p->expected);
			r = step_done(db, sr, "storing a probe response", err, len);
		}
	}
	if (r == 0)
		r = exec(db, "COMMIT", err, len);
out:
	sqlite3_finalize(sv);
	sqlite3_finalize(sr);
	if (r < 0)
		rollback(db);
	return r;
}

/* WHERE clause of a query on `verdict v`: the latest verdict of each event of pmu ?1, backend ?2, machine ?3. */
#define LATEST_VERDICT_OF_EACH_EVENT                                                              \
	"v.pmu = ?1 AND v.backend = ?2 AND v.machine = ?3 AND v.id = (SELECT max(id) FROM verdict w " \
	"WHERE w.pmu = v.pmu AND w.backend = v.backend AND w.machine = v.machine AND w.event = v.event)"

static int prepare_latest(struct db *db, const char *sql, const char *pmu, const char *backend, const char *machine,
			  sqlite3_stmt **st, char *err, size_t len)
{
	int r = prepare(db, sql, st, err, len);
	if (r < 0)
		return r;
	bind_text(*st, 1, pmu);
	bind_text(*st, 2, backend);
	bind_text(*st, 3, machine);
	return 0;
}

int db_latest_verdicts(struct db *db, const char *pmu, const char *backend, const char *machine,
		       struct db_latest **out, size_t *n, char *err, size_t len)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st;
	int r = prepare_latest(db, "SELECT v.event, v.verdict, v.profile FROM verdict v WHERE " LATEST_VERDICT_OF_EACH_EVENT
				   " ORDER BY v.event", pmu, backend, machine, &st, err, len), rc;
	if (r < 0)
		return r;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_TEXT || sqlite3_column_type(st, 1) != SQLITE_TEXT)
			continue;	/* a verdict without an event or a result says nothing */
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		struct db_latest *l = &(*out)[(*n)++];
		l->event = col_text(st, 0);
		l->verdict = col_text(st, 1);
		l->profile = col_text(st, 2);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(db, rc, "loading verdicts", err, len);
}

void db_latest_free(struct db_latest *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].event);
		free(v[i].verdict);
		free(v[i].profile);
	}
	free(v);
}

static double col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int db_latest_responses(struct db *db, const char *pmu, const char *backend, const char *machine,
			struct db_response **out, size_t *n, char *err, size_t len)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st;
	int r = prepare_latest(db, "SELECT v.event, r.probe, r.per_unit_1x, r.per_unit_4x, r.expected, v.created_at "
				   "FROM verdict v JOIN response r ON r.verdict_id = v.id WHERE " LATEST_VERDICT_OF_EACH_EVENT
				   " ORDER BY v.event, r.probe", pmu, backend, machine, &st, err, len), rc;
	if (r < 0)
		return r;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_TEXT || sqlite3_column_type(st, 1) != SQLITE_TEXT)
			continue;	/* hand-altered: a response without an event or probe says nothing */
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		struct db_response *x = &(*out)[(*n)++];
		x->event = col_text(st, 0);
		x->probe = col_text(st, 1);
		x->per_unit_1x = col_real(st, 2);
		x->per_unit_4x = col_real(st, 3);
		x->expected = col_real(st, 4);
		x->created_at = sqlite3_column_int64(st, 5);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(db, rc, "loading probe responses", err, len);
}

void db_responses_free(struct db_response *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].event);
		free(r[i].probe);
	}
	free(r);
}

int db_store_slot_map(struct db *db, const struct db_slot_map *m, char *err, size_t len)
{
	sqlite3_stmt *sc = NULL, *ss = NULL;
	int r = exec(db, "BEGIN IMMEDIATE", err, len);
	if (r < 0)
		return r;
	if ((r = prepare(db, "INSERT INTO slot_calibration (cpu_family, xctrace_version, counting_mode, nslots, work_slot, "
			     "verdict, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", &sc, err, len)) < 0 ||
	    (r = prepare(db, "INSERT INTO slot_map (calibration_id, slot, name, alu, chase, branch) "
			     "VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &ss, err, len)) < 0)
		goto out;
	bind_text(sc, 1, m->cpu_family);
	bind_text(sc, 2, m->xctrace_version);
	bind_text(sc, 3, m->counting_mode ? m->counting_mode : "");
	sqlite3_bind_int64(sc, 4, m->nslots);
	sqlite3_bind_int64(sc, 5, m->work_slot);
	bind_text(sc, 6, m->verdict ? m->verdict : "");
	sqlite3_bind_int64(sc, 7, (sqlite3_int64)time(NULL));
	if ((r = step_done(db, sc, "storing a slot calibration", err, len)) < 0)
		goto out;
	sqlite3_int64 id = sqlite3_last_insert_rowid(db->h);
	for (size_t i = 0; i < m->n && r == 0; i++) {
		sqlite3_bind_int64(ss, 1, id);
		sqlite3_bind_int64(ss, 2, m->slots[i].slot);
		bind_text(ss, 3, m->slots[i].name);
		bind_real(ss, 4, m->slots[i].alu);
		bind_real(ss, 5, m->slots[i].chase);
		bind_real(ss, 6, m->slots[i].branch);
		r = step_done(db, ss, "storing a slot", err, len);
	}
	if (r == 0)
		r = exec(db, "COMMIT", err, len);
out:
	sqlite3_finalize(sc);
	sqlite3_finalize(ss);
	if (r < 0)
		rollback(db);
	return r;
}

int db_load_slot_map(struct db *db, const char *cpu_family, const char *xctrace_version, struct db_slot_map *m,
		     char *err, size_t len)
{
	memset(m, 0, sizeof(*m));
	sqlite3_stmt *st;
	int r = prepare(db, "SELECT id, cpu_family, xctrace_version, counting_mode, nslots, work_slot, verdict, created_at "
			    "FROM slot_calibration WHERE (?1 IS NULL OR cpu_family = ?1) AND (?2 IS NULL OR xctrace_version = ?2) "
			    "ORDER BY id DESC LIMIT 1", &st, err, len), rc;
	if (r < 0)
		return r;
	bind_text(st, 1, cpu_family);
	bind_text(st, 2, xctrace_version);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc == SQLITE_DONE) {
			lk_errbuf(err, len, "no xctrace slot map stored; run 'lauka calibrate --backend xctrace'");
			return -LK_ENOENT;
		}
		return fail(db, rc, "loading a slot map", err, len);
	}
	sqlite3_int64 id = sqlite3_column_int64(st, 0);
	m->cpu_family = col_text(st, 1);
	m->xctrace_version = col_text(st, 2);
	m->counting_mode = col_text(st, 3);
	m->nslots = (long)sqlite3_column_int64(st, 4);
	m->work_slot = (long)sqlite3_column_int64(st, 5);
	m->verdict = col_text(st, 6);
	m->created_at = (long long)sqlite3_column_int64(st, 7);
	sqlite3_finalize(st);
	if ((r = prepare(db, "SELECT slot, name, alu, chase, branch FROM slot_map WHERE calibration_id = ?1 ORDER BY slot",
			 &st, err, len)) < 0) {
		db_slot_map_free(m);
		return r;
	}
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		m->slots = xrealloc(m->slots, (m->n + 1) * sizeof(*m->slots));
		struct db_slot *s = &m->slots[m->n++];
		s->slot = (long)sqlite3_column_int64(st, 0);
		s->name = col_text(st, 1);
		s->alu = col_real(st, 2);
		s->chase = col_real(st, 3);
		s->branch = col_real(st, 4);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		db_slot_map_free(m);
		return fail(db, rc, "loading a slot map", err, len);
	}
	return 0;
}

void db_slot_map_free(struct db_slot_map *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->slots[i].name);
	free(m->slots);
	free(m->cpu_family);
	free(m->xctrace_version);
	free(m->counting_mode);
	free(m->verdict);
	memset(m, 0, sizeof(*m));
}

/*
 * Baselines: header row, then measurements, commands and samples
 * (migrate-003.sql); the header's fingerprint since migrate-005.sql.
 */

void db_baseline_release(struct db_baseline *b)
{
	if (!b)
		return;
	free(b->name);
	free(b->runner_class);
	free(b->backend);
	free(b->lauka_version);
	free(b->git_commit);
	free(b->shell);
	free(b->fingerprint);
	for (size_t i = 0; i < b->nmeas; i++) {
		free(b->meas[i]);
		free(b->units[i]);
	}
	free(b->meas);
	free(b->units);
	for (size_t c = 0; c < b->ncmds; c++) {
		struct db_baseline_cmd *bc = &b->cmds[c];
		free(bc->name);
		free(bc->command);
		for (size_t m = 0; bc->samples && m < b->nmeas; m++)
			free(bc->samples[m]);
		free(bc->samples);
	}
	free(b->cmds);
	memset(b, 0, sizeof(*b));
}

static int baseline_insert(struct db *db, const struct db_baseline *b, sqlite3_int64 now, char *err, size_t len)
{
	sqlite3_stmt *st = NULL;
	int r = prepare(db, "DELETE FROM baseline WHERE name = ?1", &st, err, len);
	if (r < 0)
		return r;
	bind_text(st, 1, b->name);
	r = step_done(db, st, "replacing a baseline", err, len);
	sqlite3_finalize(st);
	if (r < 0)
		return r;
	if ((r = prepare(db, "INSERT INTO baseline (name, runner_class, backend, lauka_version, git_commit, shell, "
			     "created_at, fingerprint) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", &st, err, len)) < 0)
		return r;
	bind_text(st, 1, b->name);
	bind_text(st, 2, b->runner_class);
	bind_text(st, 3, b->backend);
	bind_text(st, 4, b->lauka_version);
	bind_text(st, 5, b->git_commit);
	bind_text(st, 6, b->shell);
	sqlite3_bind_int64(st, 7, now);
	bind_text(st, 8, b->fingerprint);	/* NULL: none known (migrate-005.sql) */
	r = step_done(db, st, "storing a baseline", err, len);
	sqlite3_finalize(st);
	if (r < 0)
		return r;
	sqlite3_int64 id = sqlite3_last_insert_rowid(db->h);

	if ((r = prepare(db, "INSERT INTO baseline_measurement (baseline_id, idx, name, unit) VALUES (?1, ?2, ?3, ?4)",
			 &st, err, len)) < 0)
		return r;
	for (size_t m = 0; m < b->nmeas && r == 0; m++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)m);
		bind_text(st, 3, b->meas[m]);
		bind_text(st, 4, b->units[m]);
		r = step_done(db, st, "storing a baseline measurement", err, len);
	}
	sqlite3_finalize(st);
	if (r < 0)
		return r;
	if ((r = prepare(db, "INSERT INTO baseline_command (baseline_id, idx, name, command, runs) "
			     "VALUES (?1, ?2, ?3, ?4, ?5)", &st, err, len)) < 0)
		return r;
	for (size_t c = 0; c < b->ncmds && r == 0; c++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)c);
		bind_text(st, 3, b->cmds[c].name);
		bind_text(st, 4, b->cmds[c].command);
		sqlite3_bind_int64(st, 5, (sqlite3_int64)b->cmds[c].runs);
		r = step_done(db, st, "storing a baseline command", err, len);
	}
	sqlite3_finalize(st);
	if (r < 0)
		return r;
	if ((r = prepare(db, "INSERT INTO baseline_sample (baseline_id, command_idx, measurement_idx, run, value) "
			     "VALUES (?1, ?2, ?3, ?4, ?5)", &st, err, len)) < 0)
		return r;
	for (size_t c = 0; c < b->ncmds && r == 0; c++)
		for (size_t m = 0; m < b->nmeas && r == 0; m++)
			for (size_t k = 0; k < b->cmds[c].runs && r == 0; k++) {
				sqlite3_bind_int64(st, 1, id);
				sqlite3_bind_int64(st, 2, (sqlite3_int64)c);
				sqlite3_bind_int64(st, 3, (sqlite3_int64)m);
				sqlite3_bind_int64(st, 4, (sqlite3_int64)k);
				bind_real(st, 5, b->cmds[c].samples[m][k]);	/* NULL: not counted (migrate-004.sql) */
				r = step_done(db, st, "storing a baseline sample", err, len);
			}
	sqlite3_finalize(st);
	return r;
}

int db_baseline_save(struct db *db, const struct db_baseline *b, char *err, size_t len)
{
	int r = exec(db, "BEGIN IMMEDIATE", err, len);
	if (r < 0)
		return r;
	sqlite3_int64 now = b->created_at ? (sqlite3_int64)b->created_at : (sqlite3_int64)time(NULL);
	if ((r = baseline_insert(db, b, now, err, len)) == 0)
		r = exec(db, "COMMIT", err, len);
	if (r < 0)
		rollback(db);
	return r;
}

/* Measurements and commands of baseline `id` into b; samples too when `samples`. */
static int baseline_parts(struct db *db, sqlite3_int64 id, struct db_baseline *b, bool samples, char *err, size_t len)
{
	sqlite3_stmt *st;
	int r = prepare(db, "SELECT name, unit FROM baseline_measurement WHERE baseline_id = ?1 ORDER BY idx", &st, err,
			len), rc;
	if (r < 0)
		return r;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		b->meas = xrealloc(b->meas, (b->nmeas + 1) * sizeof(*b->meas));
		b->units = xrealloc(b->units, (b->nmeas + 1) * sizeof(*b->units));
		b->meas[b->nmeas] = col_text(st, 0);
		b->units[b->nmeas] = col_text(st, 1);
		if (!b->meas[b->nmeas])
			b->meas[b->nmeas] = xstrdup("");
		b->nmeas++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail(db, rc, "loading a baseline", err, len);
	if ((r = prepare(db, "SELECT name, command, runs FROM baseline_command WHERE baseline_id = ?1 ORDER BY idx", &st,
			 err, len)) < 0)
		return r;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		b->cmds = xrealloc(b->cmds, (b->ncmds + 1) * sizeof(*b->cmds));
		struct db_baseline_cmd *c = &b->cmds[b->ncmds++];
		memset(c, 0, sizeof(*c));
		c->name = col_text(st, 0);
		c->command = col_text(st, 1);
		if (!c->command)
			c->command = xstrdup("");
		sqlite3_int64 runs = sqlite3_column_int64(st, 2);
		c->runs = runs > 0 && runs < 100000000 ? (size_t)runs : 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail(db, rc, "loading a baseline", err, len);
	if (!samples)
		return 0;
	for (size_t c = 0; c < b->ncmds; c++) {
		b->cmds[c].samples = xcalloc(b->nmeas ? b->nmeas : 1, sizeof(double *));
		for (size_t m = 0; m < b->nmeas; m++)
			b->cmds[c].samples[m] = xcalloc(b->cmds[c].runs ? b->cmds[c].runs : 1, sizeof(double));
	}
	if ((r = prepare(db, "SELECT command_idx, measurement_idx, run, value FROM baseline_sample WHERE baseline_id = ?1",
			 &st, err, len)) < 0)
		return r;
	sqlite3_bind_int64(st, 1, id);
	size_t got = 0, want = 0;
	for (size_t c = 0; c < b->ncmds; c++)
		want += b->cmds[c].runs * b->nmeas;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 c = sqlite3_column_int64(st, 0), m = sqlite3_column_int64(st, 1), k = sqlite3_column_int64(st, 2);
		/* Rows outside what the header promises mean a hand-altered database. */
		if (c < 0 || (size_t)c >= b->ncmds || m < 0 || (size_t)m >= b->nmeas || k < 0 ||
		    (size_t)k >= b->cmds[c].runs) {
			sqlite3_finalize(st);
			fail_corrupt(db->path, err, len);
			return -LK_EDB;
		}
		b->cmds[c].samples[m][k] = col_real(st, 3);
		got++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail(db, rc, "loading baseline samples", err, len);
	if (got != want) {
		fail_corrupt(db->path, err, len);
		return -LK_EDB;
	}
	return 0;
}

static void baseline_header(sqlite3_stmt *st, struct db_baseline *b)
{
	b->name = col_text(st, 1);
	b->runner_class = col_text(st, 2);
	b->backend = col_text(st, 3);
	b->lauka_version = col_text(st, 4);
	b->git_commit = col_text(st, 5);
	b->shell = col_text(st, 6);
	b->created_at = (long long)sqlite3_column_int64(st, 7);
	b->fingerprint = col_text(st, 8);
}

/*
 * The header's columns.  A database read as it stands below schema 5 (a
 * read-only file an older lauka wrote) has no fingerprint column: its
 * baselines have none, as those saved before migration 5 (NULL).
 */
static const char *baseline_cols(const struct db *db)
{
#define COLS "id, name, runner_class, backend, lauka_version, git_commit, shell, created_at, "
	return db->version >= 5 ? COLS "fingerprint" : COLS "NULL";
#undef COLS
}

int db_baseline_load(struct db *db, const char *name, struct db_baseline *out, char *err, size_t len)
{
	memset(out, 0, sizeof(*out));
	sqlite3_stmt *st;
	char *sql = xasprintf("SELECT %s FROM baseline WHERE name = ?1", baseline_cols(db));
	int r = prepare(db, sql, &st, err, len);
	free(sql);
	if (r < 0)
		return r;
	bind_text(st, 1, name);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return fail(db, rc, "loading a baseline", err, len);
		lk_errbuf(err, len, "no baseline named '%s' in database '%s'", name, db->path);
		return -LK_ENOENT;
	}
	sqlite3_int64 id = sqlite3_column_int64(st, 0);
	baseline_header(st, out);
	sqlite3_finalize(st);
	if ((r = baseline_parts(db, id, out, true, err, len)) < 0)
		db_baseline_release(out);
	return r;
}

int db_baseline_list(struct db *db, struct db_baseline **out, size_t *n, char *err, size_t len)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st;
	char *sql = xasprintf("SELECT %s FROM baseline ORDER BY created_at, name", baseline_cols(db));
	int r = prepare(db, sql, &st, err, len), rc;
	free(sql);
	if (r < 0)
		return r;
	sqlite3_int64 *ids = NULL;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		ids = xrealloc(ids, (*n + 1) * sizeof(*ids));
		memset(&(*out)[*n], 0, sizeof(**out));
		ids[*n] = sqlite3_column_int64(st, 0);
		baseline_header(st, &(*out)[(*n)++]);
	}
	sqlite3_finalize(st);
	r = rc == SQLITE_DONE ? 0 : fail(db, rc, "listing baselines", err, len);
	for (size_t i = 0; i < *n && r == 0; i++)
		r = baseline_parts(db, ids[i], &(*out)[i], false, err, len);
	free(ids);
	if (r < 0) {
		for (size_t i = 0; i < *n; i++)
			db_baseline_release(&(*out)[i]);
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return r;
}

int db_baseline_delete(struct db *db, const char *name, char *err, size_t len)
{
	sqlite3_stmt *st;
	int r = prepare(db, "DELETE FROM baseline WHERE name = ?1", &st, err, len);
	if (r < 0)
		return r;
	bind_text(st, 1, name);
	r = step_done(db, st, "deleting a baseline", err, len);
	sqlite3_finalize(st);
	if (r == 0 && sqlite3_changes(db->h) == 0) {
		lk_errbuf(err, len, "no baseline named '%s' in database '%s'", name, db->path);
		return -LK_ENOENT;
	}
	return r;
}
