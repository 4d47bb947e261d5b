/*
 * machine/catalog.h: the event catalogue a verb works with: the backend's events for
 * this machine, kept in the user's SQLite database (catalog/db.c), plus the latest
 * calibration verdict of each event.
 *
 * catalog_open() makes sure the database holds the catalogue of the running
 * machine for the backend (importing it on first use, and again whenever
 * what the backend reports has changed, so `lauka counters` needs no set-up)
 * and loads it from the database.  With opts->pmu_name it loads that stored
 * catalogue instead (e.g. a kpep plist imported with `lauka counters
 * --import`); the backend's own catalogue is still imported first when its
 * name is the one asked for.  Returned pointers are borrowed and stay valid
 * until catalog_close().
 *
 * Machine id (catalog_machine()): "<hostname>/<chip>", where chip is the
 * catalogue's marketing name (kpep: "Apple A14/M1"; perf: the CPU model the
 * perf backend reports) or, without one, the catalogue name.  Verdicts are
 * stored and looked up per (catalogue name, backend, machine).
 */
#ifndef LAUKA_CATALOG_H
#define LAUKA_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/backend.h"
#include "catalog/pmu.h"

struct catalog;
struct db;

struct catalog_opts {
	const char *db_path;	/* NULL: $LAUKA_DB, $XDG_DATA_HOME/lauka/lauka.db, ~/.local/share/lauka/lauka.db */
	const char *pmu_name;	/* NULL: the backend's catalogue for this machine */
	bool smt_off;		/* a libpfm4 model named by pmu_name with SMT off (its vendor's HT-off
				 * counters); built in memory, not stored: the stored one is SMT on */
	bool read_only;		/* the caller only reads (a listing): another process's write lock is not
				 * waited for, the backend's catalogue is then used from memory, unstored */
};

/*
 * Errors: -LK_EDB (err may carry a "fix:" line, see catalog/db.h), -LK_ENOENT for an
 * unknown pmu_name (err lists the stored ones), or the backend's error.
 */
int catalog_open(struct catalog **out, const struct lk_backend *b,
		 const struct catalog_opts *opts, char *err, size_t len);
/*
 * The backend's catalogue straight from the machine, without the database:
 * no verdicts, catalog_db() is NULL.  For `record` when the database cannot
 * be used (no home directory, a corrupt or newer file), so measuring still works.
 */
int catalog_open_live(struct catalog **out, const struct lk_backend *b, char *err, size_t len);
const struct lk_pmu *catalog_pmu(const struct catalog *cat);
/* Latest calibration verdict of an event ("validated", "off by 12%", ...), or NULL. */
const char *catalog_verdict(const struct catalog *cat, const struct lk_event *ev);
/* True when the latest verdict says the counter is wrong ("off by X%", "not linear"; calib_verdict_failed). */
bool catalog_verdict_failed(const struct catalog *cat, const struct lk_event *ev);
/* True when any event of the catalogue has a verdict. */
bool catalog_has_verdicts(const struct catalog *cat);
/* The open database, e.g. for db_store_calibration(). */
struct db *catalog_db(struct catalog *cat);
/* The machine id verdicts are kept under (see above). */
const char *catalog_machine(const struct catalog *cat);
/*
 * When libpfm4 recognises this CPU but the kernel has no core PMU to count
 * its events (a virtual machine), one sentence saying so, why, and how to
 * list them anyway; NULL otherwise.  Those events are then not in the catalogue.
 */
const char *catalog_uncounted_note(const struct catalog *cat);
void catalog_close(struct catalog *cat);

/*
 * Fill pmu->sha256 with a digest of the catalogue's content when its source
 * gave none (generated catalogues), so an import notices any change.
 */
void catalog_fingerprint(struct lk_pmu *pmu);

#endif
