-- Schema version 3: baselines saved by `lauka record --save-baseline NAME`
-- for later comparisons and CI gates.  Every sample of every command and
-- measurement is kept, so statistics and intervals can be recomputed.
-- Saving a name again replaces it (one transaction; rows cascade).

CREATE TABLE baseline (
	id            INTEGER PRIMARY KEY,
	name          TEXT NOT NULL UNIQUE,
	runner_class  TEXT NOT NULL,            -- --runner-class, default the machine id of calibration
	backend       TEXT NOT NULL,            -- perf, valgrind, kperf, rusage
	lauka_version TEXT NOT NULL,
	git_commit    TEXT,                     -- of the working directory, when it is a git checkout
	shell         TEXT,                     -- -S/--shell, when commands ran through one
	created_at    INTEGER NOT NULL
);

CREATE TABLE baseline_measurement (
	baseline_id INTEGER NOT NULL REFERENCES baseline(id) ON DELETE CASCADE,
	idx         INTEGER NOT NULL,
	name        TEXT NOT NULL,              -- event name as in the catalogue
	unit        TEXT,
	PRIMARY KEY (baseline_id, idx)
) WITHOUT ROWID;

CREATE TABLE baseline_command (
	baseline_id INTEGER NOT NULL REFERENCES baseline(id) ON DELETE CASCADE,
	idx         INTEGER NOT NULL,
	name        TEXT,                       -- --command-name
	command     TEXT NOT NULL,              -- as the user wrote it
	runs        INTEGER NOT NULL,
	PRIMARY KEY (baseline_id, idx)
) WITHOUT ROWID;

CREATE TABLE baseline_sample (
	baseline_id INTEGER NOT NULL REFERENCES baseline(id) ON DELETE CASCADE,
	command_idx INTEGER NOT NULL,
	measurement_idx INTEGER NOT NULL,
	run         INTEGER NOT NULL,
	value       REAL NOT NULL,
	PRIMARY KEY (baseline_id, command_idx, measurement_idx, run)
) WITHOUT ROWID;
