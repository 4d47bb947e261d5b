-- Schema version 4: a baseline sample may be NULL, for a run that took place
-- but in which that measurement was not counted (a sampled or multiplexed
-- counter that never ran).  Such runs are left out of the measurement's
-- statistics, as in the table `record` prints; version 3 stored them as 0.
-- SQLite cannot drop a NOT NULL constraint in place: the table is rebuilt,
-- in the migration's transaction, keeping every row.

CREATE TABLE baseline_sample_v4 (
	baseline_id INTEGER NOT NULL REFERENCES baseline(id) ON DELETE CASCADE,
	command_idx INTEGER NOT NULL,
	measurement_idx INTEGER NOT NULL,
	run         INTEGER NOT NULL,
	value       REAL,                       -- NULL: not counted in this run
	PRIMARY KEY (baseline_id, command_idx, measurement_idx, run)
) WITHOUT ROWID;
INSERT INTO baseline_sample_v4 (baseline_id, command_idx, measurement_idx, run, value)
	SELECT baseline_id, command_idx, measurement_idx, run, value FROM baseline_sample;
DROP TABLE baseline_sample;
ALTER TABLE baseline_sample_v4 RENAME TO baseline_sample;
