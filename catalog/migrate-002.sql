-- Schema version 2: slot maps of xctrace's guided mode (applied by src/db.c as migration 2).
-- `lauka calibrate --backend xctrace` records the probes with the guided CPU
-- Counters template and names the raw table's slots by how they respond
-- (xctrace-agg.h).  One row per calibration, one per slot; a map holds for one
-- CPU family (hw.cpufamily), xctrace version and counting mode.
CREATE TABLE slot_calibration (
	id              INTEGER PRIMARY KEY,
	cpu_family      TEXT NOT NULL,           -- hw.cpufamily, hex
	xctrace_version TEXT NOT NULL,           -- as `xctrace version` prints it
	counting_mode   TEXT NOT NULL,           -- the TOC's counting-mode, "" when it names none
	nslots          INTEGER NOT NULL,        -- after folding duplicated halves
	work_slot       INTEGER NOT NULL,        -- the slot everything is normalised by
	verdict         TEXT NOT NULL,           -- what was named, and the margins
	created_at      INTEGER NOT NULL
);
CREATE INDEX slot_calibration_latest ON slot_calibration (cpu_family, xctrace_version, counting_mode, id);

CREATE TABLE slot_map (
	calibration_id INTEGER NOT NULL REFERENCES slot_calibration(id) ON DELETE CASCADE,
	slot           INTEGER NOT NULL,
	name           TEXT,                     -- work, cache-misses, branch-misses; NULL: unnamed
	alu            REAL,                     -- per work-slot count on each probe
	chase          REAL,
	branch         REAL,
	PRIMARY KEY (calibration_id, slot)
) WITHOUT ROWID;
