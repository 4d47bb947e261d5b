-- Schema version 1 of lauka's database (applied by src/db.c as migration 1).
-- Masks and 64-bit encodings are stored as SQLite's signed 64-bit integers
-- (bit-for-bit); times are Unix seconds.

-- One row per event catalogue: a kpep plist, the Linux perf events of a
-- machine, the valgrind event list, rusage.
CREATE TABLE pmu (
	id             INTEGER PRIMARY KEY,
	kind           TEXT NOT NULL,            -- kpep, perf, valgrind, rusage
	name           TEXT NOT NULL,            -- a14, as3, linux, valgrind
	marketing_name TEXT,
	arch           TEXT,
	fixed_mask     INTEGER NOT NULL DEFAULT 0,
	config_mask    INTEGER NOT NULL DEFAULT 0,
	power_mask     INTEGER NOT NULL DEFAULT 0,
	source         TEXT,                     -- file path, or builtin/sysfs
	sha256         TEXT NOT NULL,            -- of the source bytes, or of the generated content
	imported_at    INTEGER NOT NULL,
	UNIQUE (kind, name)
);

CREATE TABLE event (
	pmu_id        INTEGER NOT NULL REFERENCES pmu(id) ON DELETE CASCADE,
	name          TEXT NOT NULL,
	description   TEXT,
	number        INTEGER NOT NULL DEFAULT 0,
	umask         INTEGER NOT NULL DEFAULT 0,
	counters_mask INTEGER NOT NULL DEFAULT 0,
	fixed_counter INTEGER NOT NULL DEFAULT -1,
	fallback      TEXT,
	errata        TEXT,
	perf_type     INTEGER NOT NULL DEFAULT 0,
	config1       INTEGER NOT NULL DEFAULT 0,
	config2       INTEGER NOT NULL DEFAULT 0,
	unit          TEXT,
	PRIMARY KEY (pmu_id, name)
) WITHOUT ROWID;

CREATE TABLE alias (
	pmu_id INTEGER NOT NULL REFERENCES pmu(id) ON DELETE CASCADE,
	alias  TEXT NOT NULL,
	target TEXT NOT NULL,
	PRIMARY KEY (pmu_id, alias)
) WITHOUT ROWID;

-- Calibration history: never deleted by an import, keyed by names so that
-- re-importing a catalogue keeps it.
CREATE TABLE verdict (
	id         INTEGER PRIMARY KEY,
	pmu        TEXT NOT NULL,
	backend    TEXT NOT NULL,
	machine    TEXT NOT NULL,
	event      TEXT NOT NULL,
	verdict    TEXT NOT NULL,
	profile    TEXT,
	created_at INTEGER NOT NULL
);
CREATE INDEX verdict_latest ON verdict (pmu, backend, machine, event, id);

CREATE TABLE response (
	verdict_id  INTEGER NOT NULL REFERENCES verdict(id) ON DELETE CASCADE,
	probe       TEXT NOT NULL,
	per_unit_1x REAL,
	per_unit_4x REAL,
	expected    REAL,
	PRIMARY KEY (verdict_id, probe)
) WITHOUT ROWID;
