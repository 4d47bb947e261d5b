/*
 * catalog/db.h: lauka's SQLite database, the only module that talks SQL.  It holds
 * the event catalogues (one row per PMU, its events and aliases) and the
 * calibration history, xctrace slot maps and record's saved baselines
 * (catalog/migrate-*.sql).
 *
 * Location: the path given, else $LAUKA_DB, else $XDG_DATA_HOME/lauka/lauka.db,
 * else ~/.local/share/lauka/lauka.db (under sudo: the invoking user's home);
 * missing directories are created.  Under sudo (euid 0 with SUDO_UID and
 * SUDO_GID set) the database and its directories are created and opened
 * with the invoking user's ids (base/sudo.h), so they are that user's and
 * lauka writes nowhere the user could not.
 *
 * Safety: WAL mode and a busy timeout, so several lauka processes may use
 * the database at once; every write is one transaction, so a killed lauka
 * leaves the previous state.  The schema version lives in PRAGMA
 * user_version and changes only through migrations.  A corrupt database, or
 * one a newer lauka wrote, is reported (-LK_EDB) and never touched.
 * lauka's databases carry PRAGMA application_id 0x6c61756b ("lauk"); a
 * file with tables that is not lauka's is refused before anything writes
 * to it (not even the switch to WAL), so it stays byte for byte the same.
 * A missing or zero-byte file becomes a new database.  One this process
 * cannot write is opened read-only (db_readonly()).
 *
 * Errors: functions return 0 or -LK_E* and fill err; for database errors
 * err may hold a second line "fix: ..." so that printing it after "error: "
 * gives the whole two-line message.
 */
#ifndef LAUKA_DB_H
#define LAUKA_DB_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/pmu.h"

#define DB_SCHEMA_VERSION 6

struct db;

int db_open(struct db **out, const char *path /* NULL = default location */, char *err, size_t len);
void db_close(struct db *db);
const char *db_path(const struct db *db);
/*
 * Opened read-only (the file, its directory or a leftover -shm file cannot
 * be written by this process): reading works, every write fails at once
 * with a "fix:" line.
 */
bool db_readonly(const struct db *db);
/* 0 when a write could be made now (for verbs that must store their result), else -LK_EDB with a fix line. */
int db_check_writable(struct db *db, char *err, size_t len);
/* The default location as above (malloc'd), or NULL with err filled. */
char *db_default_path(char *err, size_t len);

enum db_import_status { DB_IMPORT_SAME, DB_IMPORT_NEW, DB_IMPORT_CHANGED };

/*
 * Store catalogues, all in one transaction: a catalogue is identified by
 * (kind, name); an unchanged sha256 changes nothing, a changed one replaces
 * its events and aliases.  status[i] (may be NULL) says which happened.
 * Test hook: $LAUKA_TEST_SLOW_IMPORT=MS sleeps that long before the commit
 * (and $LAUKA_TEST_SLOW_IDENTIFY=MS in db_open, between reading a file's
 * schema version and its tables).
 */
/*
 * db_import without waiting for another process's write lock: -LK_EBUSY at
 * once when it is held (a listing then works from the catalogue in memory).
 */
int db_import_nowait(struct db *db, const struct lk_pmu *const *pmus, size_t n, char *err, size_t len);
int db_import(struct db *db, const struct lk_pmu *const *pmus, size_t n, enum db_import_status *status,
	      char *err, size_t len);
/* The sha256 stored for (kind, name) into hex, or "" when there is none. */
int db_pmu_sha256(struct db *db, const char *kind, const char *name, char hex[65], char *err, size_t len);
/*
 * Load a catalogue by name (kind NULL: any kind) into out, events and
 * aliases sorted by name.  -LK_ENOENT when there is none.
 */
int db_load_pmu(struct db *db, const char *kind, const char *name, struct lk_pmu *out, char *err, size_t len);
/* Names of all stored catalogues, sorted (malloc'd array of malloc'd strings). */
int db_pmu_names(struct db *db, char ***names, size_t *n, char *err, size_t len);

/* calibration storage, one transaction per call */
struct db_probe_response { const char *probe; double per_unit_1x, per_unit_4x, expected; /* NAN = none */ };
struct db_verdict {
	const char *event;        /* event name as in the catalogue */
	const char *verdict;      /* "validated", "off by 12%", "silent", "not linear", "unschedulable", "unsupported" */
	const char *profile;      /* "memory-bound-like", "branch-like", "work-like", "none" */
	const struct db_probe_response *resp; size_t nresp;
};
int db_store_calibration(struct db *db, const char *pmu, const char *backend, const char *machine,
			 const struct db_verdict *v, size_t n, char *err, size_t len);

/* The latest verdict of each event of (pmu, backend, machine); strings malloc'd. */
struct db_latest {
	char *event;
	char *verdict;
	char *profile;
};
int db_latest_verdicts(struct db *db, const char *pmu, const char *backend, const char *machine,
		       struct db_latest **out, size_t *n, char *err, size_t len);
void db_latest_free(struct db_latest *v, size_t n);

/* xctrace guided-mode slot maps (catalog/migrate-002.sql), one transaction per store. */
struct db_slot {
	long slot;
	char *name;		/* NULL: unnamed */
	double alu, chase, branch;
};
struct db_slot_map {
	char *cpu_family, *xctrace_version, *counting_mode, *verdict;
	long nslots, work_slot;
	long long created_at;
	struct db_slot *slots;
	size_t n;
};
int db_store_slot_map(struct db *db, const struct db_slot_map *m, char *err, size_t len);
/*
 * The latest map for (cpu_family, xctrace_version); either may be NULL for
 * any.  -LK_ENOENT when none is stored.
 */
int db_load_slot_map(struct db *db, const char *cpu_family, const char *xctrace_version, struct db_slot_map *out,
		     char *err, size_t len);
void db_slot_map_free(struct db_slot_map *m);
/*
 * The per-probe responses stored with the latest verdict of each event of
 * (pmu, backend, machine), ordered by event then probe; strings malloc'd,
 * NAN where nothing was stored.  created_at: Unix seconds of that verdict.
 */
struct db_response {
	char *event;
	char *probe;
	double per_unit_1x, per_unit_4x, expected;
	long long created_at;
};
int db_latest_responses(struct db *db, const char *pmu, const char *backend, const char *machine,
			struct db_response **out, size_t *n, char *err, size_t len);
void db_responses_free(struct db_response *r, size_t n);

/*
 * Baselines (`record --save-baseline NAME`): every sample of every command
 * and measurement, with what is needed to refuse a meaningless comparison.
 * samples[m][run] per command, m indexing meas[].
 */
struct db_baseline_cmd {
	char *name;		/* --command-name, or NULL */
	char *command;
	size_t runs;
	double **samples;	/* [measurement][run] (NULL in db_baseline_list) */
};
struct db_baseline {
	char *name, *runner_class, *backend, *lauka_version;
	char *git_commit;	/* or NULL */
	char *shell;		/* or NULL */
	char *fingerprint;	/* what counts depend on that lauka cannot pin, or NULL (saved before it was kept) */
	long long created_at;	/* Unix seconds */
	size_t nmeas;
	char **meas, **units;	/* units[i] may be NULL */
	size_t ncmds;
	struct db_baseline_cmd *cmds;
};
/* Store b under b->name, replacing a baseline of that name, in one transaction. */
int db_baseline_save(struct db *db, const struct db_baseline *b, char *err, size_t len);
/* Load one baseline with its samples; -LK_ENOENT when there is none of that name. */
int db_baseline_load(struct db *db, const char *name, struct db_baseline *out, char *err, size_t len);
/* Every baseline, oldest first, with measurements and commands but no samples. */
int db_baseline_list(struct db *db, struct db_baseline **out, size_t *n, char *err, size_t len);
/* Delete one; -LK_ENOENT when there is none of that name. */
int db_baseline_delete(struct db *db, const char *name, char *err, size_t len);
void db_baseline_release(struct db_baseline *b);

#endif
