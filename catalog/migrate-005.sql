-- Schema version 5: a baseline keeps its fingerprint, what the counts depend
-- on that lauka cannot pin (the programs' paths, the variables that change
-- what a program does such as LANG, LC_* and TZ, and under valgrind its
-- version, the loader cache and the C library), as git-notes baselines
-- already did.  A gate against a baseline whose fingerprint differs says so.
-- Baselines saved before have none (NULL) and give no such warning.

ALTER TABLE baseline ADD COLUMN fingerprint TEXT;
