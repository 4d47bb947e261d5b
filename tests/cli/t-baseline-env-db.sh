# Database baselines keep their fingerprint (migration 5): a gate against one saved in another locale warns, naming both environments, the same locale does not; 'baselines show' prints it; a schema-4 baseline (none kept) migrates and gives no warning; a newer database is refused, unchanged
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
CMD="$LAUKA_BUILD/lauka-probe alu 1000"
utf() { env -u LC_ALL LANG=C.UTF-8 "$@"; }

# Saved in the database (no --git) with LANG=C.UTF-8: one run, the fingerprint beside it.
run utf "$LAUKA" record --backend valgrind -m Ir --save-baseline loc --runner-class ci -- "$CMD"
expect_rc 0
expect_err "saved baseline 'loc' (1 command, runner class 'ci')"
run "$LAUKA" baselines show loc --color never
expect_rc 0
expect_out "^environment    .*programs:$LAUKA_BUILD/lauka-probe env:LANG=C.UTF-8$"

# Gated with LC_ALL=C: the warning names the baseline's environment and this one.
run env LANG=C.UTF-8 LC_ALL=C "$LAUKA" record --backend valgrind -m Ir --baseline loc --runner-class ci \
	--gate Ir=5% -- "$CMD"
expect_rc 0
expect_err "^warning: baseline 'loc' was measured with another environment: '.*env:LANG=C.UTF-8', now '.*env:LANG=C.UTF-8,LC_ALL=C'$"
expect_err "^tip: a difference in counts may come from that (another locale or time zone"
# The same environment: no warning.
run utf "$LAUKA" record --backend valgrind -m Ir --baseline loc --runner-class ci --gate Ir=5% -- "$CMD"
expect_rc 0
expect_out "^Ir=5% .*pass$"
printf '%s\n' "$err" | grep -q "another environment" && fail "same environment, yet a warning: $err"

# A database a lauka of schema 4 wrote (made here by python's sqlite3 from catalog/migrate-00[1-4].sql),
# its baseline of this command without a fingerprint: migrated in place, kept, and no warning.
# (Its measurements and counts are those of 'loc', as lauka stored them.)
python3 - old.db "$LAUKA_SRCDIR/catalog" "$CMD" "$LAUKA_DB" <<'PY' || fail "could not make a schema 4 database"
import sqlite3, sys
path, cat, cmd, new = sys.argv[1:5]
rows = sqlite3.connect(new).execute(
    "SELECT m.idx, m.name, m.unit, s.value FROM baseline b JOIN baseline_measurement m ON m.baseline_id = b.id "
    "JOIN baseline_sample s ON s.baseline_id = b.id AND s.measurement_idx = m.idx WHERE b.name = 'loc'").fetchall()
assert rows
h = sqlite3.connect(path)
for i in range(1, 5):
    h.executescript(open("%s/migrate-%03d.sql" % (cat, i)).read())
h.execute("PRAGMA user_version = 4")
h.execute("PRAGMA application_id = %d" % 0x6c61756b)
h.execute("INSERT INTO baseline VALUES (1, 'old', 'ci', 'valgrind', '0.1.0', NULL, NULL, 5)")
h.execute("INSERT INTO baseline_command VALUES (1, 0, NULL, ?, 1)", (cmd,))
for idx, name, unit, value in rows:
    h.execute("INSERT INTO baseline_measurement VALUES (1, ?, ?, ?)", (idx, name, unit))
    h.execute("INSERT INTO baseline_sample VALUES (1, 0, ?, 0, ?)", (idx, value))
h.commit()
h.close()
PY
run env LANG=C.UTF-8 LC_ALL=C "$LAUKA" record --db "$PWD/old.db" --backend valgrind -m Ir --baseline old \
	--runner-class ci --gate Ir=5% -- "$CMD"
expect_rc 0
expect_out "^Ir=5% .*pass$"
printf '%s\n' "$err" | grep -q "another environment" && fail "a baseline without a fingerprint gave a warning: $err"
[ "$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA user_version").fetchone()[0] >= 5)' old.db)" = True ] ||
	fail "the schema-4 database was not migrated (to 5 or later)"
run "$LAUKA" baselines show old --db "$PWD/old.db" --color never
expect_rc 0
expect_out "^backend        valgrind$"
printf '%s\n' "$out" | grep -q "^environment" && fail "a baseline without a fingerprint shows one: $out"

# A database a newer lauka wrote (schema 99) is refused, with its baselines left as they were.
python3 - "$LAUKA_DB" <<'PY' || fail "could not raise the schema version"
import sqlite3, sys
h = sqlite3.connect(sys.argv[1])
h.execute("PRAGMA wal_checkpoint(TRUNCATE)")
h.execute("PRAGMA user_version = 99")
h.commit()
h.execute("PRAGMA journal_mode = DELETE")
h.close()
PY
before=$(cksum <"$LAUKA_DB")
run utf "$LAUKA" record --backend valgrind -m Ir --baseline loc --runner-class ci --gate Ir=5% -- "$CMD"
expect_rc 2
expect_err "^error: baselines need the database: database '$LAUKA_DB' was written by a newer lauka (schema 99; this lauka knows up to [0-9]*)$"
expect_err "^fix: use a newer lauka"
run "$LAUKA" baselines show loc
expect_rc 2
expect_err "^error: database '$LAUKA_DB' was written by a newer lauka (schema 99; this lauka knows up to [0-9]*)$"
[ "$(cksum <"$LAUKA_DB")" = "$before" ] || fail "a newer database changed"
exit 0
