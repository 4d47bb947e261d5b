-- Schema version 6: an event keeps its scheduling flags (catalog/pmu.h LK_EVF_*:
-- 1 Intel's TakenAlone, 2 needs sampling, Intel's PEBS=2), so a table imported
-- with `counters --import` keeps them in every later run, not only in the run
-- that imported it.  Catalogues stored before have 0, as they were read then;
-- the shipped Intel tables set theirs again whenever they are read.

ALTER TABLE event ADD COLUMN flags INTEGER NOT NULL DEFAULT 0;

-- A catalogue stored before has no flags to give: its fingerprint is cleared,
-- so importing the same file again stores it anew ("updated", with its flags),
-- and a catalogue lauka builds itself is stored again on its next read.
UPDATE pmu SET sha256 = '';
