/*
 * catalog.h: the event catalogue a verb works with: the backend's events for
 * this machine, kept in the user's SQLite database (db.c), plus the latest
 * calibration verdict of each event.
 *
 * catalog_open() makes sure the database holds the catalogue of the running
 * machine for the backend (importing it on first use, so `lauka counters`
 * needs no set-up) and loads it.  Returned pointers are borrowed and stay
 * valid until catalog_close().
 */
#ifndef LAUKA_CATALOG_H
#define LAUKA_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "backend.h"
#include "pmu.h"

struct catalog;

struct catalog_opts {
	const char *db_path;	/* NULL: $LAUKA_DB, $XDG_DATA_HOME/lauka/lauka.db, ~/.local/share/lauka/lauka.db */
	const char *pmu_name;	/* NULL: the backend's catalogue for this machine */
};

int catalog_open(struct catalog **out, const struct lk_backend *b,
		 const struct catalog_opts *opts, char *err, size_t len);
const struct lk_pmu *catalog_pmu(const struct catalog *cat);
/* Latest calibration verdict of an event ("validated", "off by 12%", ...), or NULL. */
const char *catalog_verdict(const struct catalog *cat, const struct lk_event *ev);
/* True when the latest verdict exists and is not "validated". */
bool catalog_verdict_failed(const struct catalog *cat, const struct lk_event *ev);
void catalog_close(struct catalog *cat);

#endif
