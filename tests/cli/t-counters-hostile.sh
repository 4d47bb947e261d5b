# lauka counters on hostile input (issue 10): crash reproducers, FIFOs, a BOM, foreign, read-only and full databases
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
fixtures="$LAUKA_SRCDIR/tests/fixtures/kpep"
crashes="$LAUKA_SRCDIR/tests/fuzz/crashes"
sum() { cksum <"$1"; }
one_error() { [ "$(printf '%s\n' "$err" | grep -c '^error:')" -eq 1 ] || fail "not one error line: $err"; }

run "$LAUKA" counters --import "$fixtures/tiny.plist"
expect_rc 0
snapshot=$(sum "$LAUKA_DB")

# Every crash reproducer (a NUL in a UTF-16 key aborted lauka inside libplist; a fixed event with a
# general mask and no fallback made --check dereference NULL): exit 2, one error naming the file.
for f in "$crashes"/*; do
	run "$LAUKA" counters --import "$f"
	expect_rc 2
	expect_err "^error: $f: "
	one_error
done
[ "$(sum "$LAUKA_DB")" = "$snapshot" ] || fail "a refused import changed the database"
run "$LAUKA" counters --import "$crashes/nul-key-utf16.bplist"
expect_err "key 'PL\\\\0N_A' contains a NUL character (U+0000)"

# A FIFO blocked forever; a FIFO in an imported directory is passed over.
mkfifo fifo.plist
run timeout 20 "$LAUKA" counters --import fifo.plist
expect_rc 2
expect_err "^error: cannot import 'fifo.plist': not a regular file or a directory$"
mkdir dir
cp "$fixtures/tiny.plist" dir/
mkfifo dir/zz.plist
run timeout 20 "$LAUKA" counters --import dir
expect_rc 0
expect_out "^unchanged tiny"

# A UTF-8 byte-order mark is skipped, as Apple's CFPropertyList does.
printf '\357\273\277' >bom.plist
cat "$fixtures/tiny.plist" >>bom.plist
run "$LAUKA" counters --import bom.plist
expect_rc 0
expect_out "^updated tiny (Tiny Test Chip, 9 events) from .*bom.plist"

# Another application's SQLite file: refused with a fix, byte for byte the same, nothing beside it.
python3 -c "
import sqlite3
c = sqlite3.connect('notes.db')
c.execute('pragma journal_mode = wal')
c.execute('create table notes (body text)')
c.execute(\"insert into notes values ('mine')\")
c.commit()
c.close()" || skip "python3 sqlite3 module missing"
before=$(sum notes.db)
for args in "counters --backend rusage" "counters --import $fixtures/tiny.plist"; do
	LAUKA_DB="$PWD/notes.db" run "$LAUKA" $args
	expect_rc 2
	expect_err "^error: '$PWD/notes.db' is another application's SQLite database, not lauka's"
	expect_err "^fix: point --db or LAUKA_DB at a lauka database or at a new file$"
	[ "$(sum notes.db)" = "$before" ] || fail "$args changed another application's database"
	[ ! -e notes.db-wal ] && [ ! -e notes.db-shm ] || fail "$args left files beside another application's database"
done
: >zero.db
run "$LAUKA" counters --backend rusage --db "$PWD/zero.db"
expect_rc 0

# Read-only: a read-only file in a read-only directory, then a writable one with a stale read-only -shm.
# As root every file is writable, so those runs drop to nobody.
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null || skip "root without setpriv: cannot test read-only databases"
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	chmod 755 .
else
	as_user() { "$@"; }
fi
mkdir ro
run "$LAUKA" counters --import "$fixtures/tiny.plist" --db "$PWD/ro/l.db"
expect_rc 0
chmod 444 ro/l.db
chmod 555 ro
before=$(sum ro/l.db)
run as_user "$LAUKA" counters --pmu tiny --db "$PWD/ro/l.db"
expect_rc 0
[ "$(printf '%s\n' "$out" | grep -c .)" -eq 9 ] || fail "read-only listing: $out"
run as_user "$LAUKA" counters --backend rusage --db "$PWD/ro/l.db"	# not stored there: kept in memory
expect_rc 0
expect_out "^wall_time$"
run as_user "$LAUKA" counters --import "$fixtures/tiny.plist" --db "$PWD/ro/l.db"
expect_rc 2
expect_err "^error: database '$PWD/ro/l.db' cannot be written: the file is read-only$"
expect_err "^fix: "
run as_user "$LAUKA" calibrate --backend rusage --db "$PWD/ro/l.db"
expect_rc 2
expect_err "cannot be written"
expect_err "^tip: calibrate stores its verdicts in the database; nothing was measured$"
[ "$(sum ro/l.db)" = "$before" ] || fail "a read-only database changed"
chmod 755 ro
chmod 666 ro/l.db
chmod 777 ro
: >ro/l.db-shm
chmod 444 ro/l.db-shm
run as_user "$LAUKA" counters --pmu tiny --db "$PWD/ro/l.db"
expect_rc 0
run as_user "$LAUKA" counters --import "$fixtures/tiny.plist" --db "$PWD/ro/l.db"
expect_rc 2
expect_err "cannot be written: its -shm file is read-only$"
expect_err "^fix: if no lauka is using it, remove the leftover file (rm '$PWD/ro/l.db-shm')"
rm -f ro/l.db-shm ro/l.db-wal

# A read-only database up to three schemas behind (5: no events' flags column, before migration 6;
# 4: no baseline fingerprint column, before migration 5; 3: baseline samples NOT NULL, before
# migration 4) is read as it stands, its baselines without a fingerprint and its events without
# flags; one that lacks tables the reading code needs (schema 2: no baselines) is refused. All made here by python's sqlite3 from the migrations in catalog/, not by lauka.
old_db() { # file version
	python3 - "$1" "$2" "$LAUKA_SRCDIR/catalog" <<'PY' || fail "could not make a schema $2 database"
import sqlite3, sys
path, v, cat = sys.argv[1], int(sys.argv[2]), sys.argv[3]
h = sqlite3.connect(path)
for i in range(1, v + 1):
    h.executescript(open("%s/migrate-%03d.sql" % (cat, i)).read())
h.execute("PRAGMA user_version = %d" % v)
h.execute("PRAGMA application_id = %d" % 0x6c61756b)
h.execute("INSERT INTO pmu (id, kind, name, sha256, imported_at) VALUES (1, 'kpep', 'oldcat', 'x', 5)")
h.execute("INSERT INTO event (pmu_id, name, counters_mask) VALUES (1, 'OLD_EVENT', 3)")
if v >= 3:
    h.execute("INSERT INTO baseline (id, name, runner_class, backend, lauka_version, git_commit, shell, created_at)"
              " VALUES (1, 'old', 'ci', 'rusage', '0.1.0', NULL, NULL, 5)")
    h.execute("INSERT INTO baseline_measurement VALUES (1, 0, 'wall_time', 'ns')")
    h.execute("INSERT INTO baseline_command VALUES (1, 0, NULL, 'true', 3)")
    h.executemany("INSERT INTO baseline_sample VALUES (1, 0, 0, ?, ?)", [(0, 1e6), (1, 2e6), (2, 3e6)])
h.commit()
h.close()
PY
}
for v in 5 4 3 2; do
	mkdir old$v && old_db old$v/l.db $v
	chmod 444 old$v/l.db && chmod 555 old$v
	before=$(sum old$v/l.db)
	run as_user "$LAUKA" baselines show old --db "$PWD/old$v/l.db"
	if [ $v -ge 3 ]; then
		expect_rc 0
		expect_out '^wall_time .*2\.00ms'
		printf '%s\n' "$out" | grep -q '^environment' && fail "a schema-$v baseline shows a fingerprint: $out"
		run as_user "$LAUKA" counters --pmu oldcat --details --db "$PWD/old$v/l.db"
		expect_rc 0
		expect_out '^old_event '
	else
		expect_rc 2
		expect_err "cannot be written: it needs a schema upgrade, which is a write$"
	fi
	[ "$(sum old$v/l.db)" = "$before" ] || fail "a read-only schema-$v database changed"
	chmod 755 old$v
done

# A full disk: a 64 KiB tmpfs, filled.  Needs root and a kernel that lets it mount one.
mkdir full
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=64k lauka-test-full full 2>/dev/null; then
	trap 'umount "$PWD/full" 2>/dev/null' EXIT
	dd if=/dev/zero of=full/filler bs=4096 2>/dev/null || true
	run "$LAUKA" counters --import "$fixtures/tiny.plist" --db "$PWD/full/l.db"
	expect_rc 2
	expect_err "^error: database '$PWD/full/l.db': the disk is full (no space left on the filesystem of '$PWD/full'"
	expect_err "^fix: free some space there, or use --db PATH on another filesystem$"
	one_error
	umount full
	trap - EXIT
else
	echo "note: no tmpfs to fill (needs root); the full-disk case is not tested here"
fi
exit 0
