# lauka counters --import: two imports at once both succeed; a killed import leaves the previous state
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
fixtures="$LAUKA_SRCDIR/tests/fixtures/kpep"
sed 's/<string>tiny<\/string>/<string>other<\/string>/' "$fixtures/tiny.plist" >other.plist
sed -e 's/Tiny Test Chip/Tiny Test Chip v2/' -e '/<key>ERRATA_EVENT<\/key>/,/<\/dict>/d' "$fixtures/tiny.plist" >tiny2.plist

# Both writers hold their transaction for a while; the second waits (busy timeout) instead of failing.
LAUKA_TEST_SLOW_IMPORT=700 "$LAUKA" counters --import "$fixtures/tiny.plist" >a.out 2>a.err &
a=$!
LAUKA_TEST_SLOW_IMPORT=700 "$LAUKA" counters --import other.plist >b.out 2>b.err &
b=$!
wait $a; rca=$?
wait $b; rcb=$?
[ $rca -eq 0 ] || fail "first import failed: $(cat a.err)"
[ $rcb -eq 0 ] || fail "second import failed: $(cat b.err)"
run "$LAUKA" counters --pmu tiny
[ "$(printf '%s\n' "$out" | grep -c .)" -eq 9 ] || fail "tiny: $out"
run "$LAUKA" counters --pmu other
[ "$(printf '%s\n' "$out" | grep -c .)" -eq 9 ] || fail "other: $out"

# Several first uses of a new database at once (each creates, migrates and fills it).
pids=""
for i in 1 2 3 4; do
	"$LAUKA" counters --backend rusage --db "$PWD/fresh.db" >fresh$i.out 2>fresh$i.err &
	pids="$pids $!"
done
for p in $pids; do
	wait $p || fail "a concurrent first use failed: $(cat fresh*.err)"
done
for i in 1 2 3 4; do
	[ "$(grep -c . fresh$i.out)" -eq 9 ] || fail "first use $i listed: $(cat fresh$i.out)"
done

# A first use that looks at the new file while another creates its tables must see the file whole,
# before or after (it reads the schema version, then the tables: one snapshot, or it would take lauka's
# own half-read database for another application's).
"$LAUKA" counters --backend rusage --db "$PWD/race.db" >/dev/null 2>&1 &
p1=$!
LAUKA_TEST_SLOW_IDENTIFY=600 "$LAUKA" counters --backend rusage --db "$PWD/race.db" >race.out 2>race.err &
p2=$!
wait $p1 || fail "the first user of race.db failed"
wait $p2 || fail "a first use that looked while another created the tables failed: $(cat race.err)"

# Kill an import of a changed file inside its transaction: the previous catalogue stays.
LAUKA_TEST_SLOW_IMPORT=20000 "$LAUKA" counters --import tiny2.plist >c.out 2>c.err &
c=$!
sleep 1.5
kill -9 $c
wait $c 2>/dev/null
run "$LAUKA" counters --pmu tiny --details
expect_rc 0
[ "$(printf '%s\n' "$out" | grep -c .)" -eq 10 ] || fail "killed import changed the catalogue: $out"
expect_out "^errata_event"
# And the database is not left locked: the same import now completes.
run "$LAUKA" counters --import tiny2.plist
expect_rc 0
expect_out "^updated tiny (Tiny Test Chip v2, 8 events)"
# A database caught mid-write looks foreign to a lock-free read (its schema's pages written before
# page 1's marks; a creation under load left it so for longer than the 200 ms lauka waited, and a
# concurrent first use called it another application's).  While the file keeps changing lauka waits
# for it to settle; a foreign file that holds still is refused as before.
if python3 -c 'import sqlite3' 2>/dev/null; then
	"$LAUKA" counters --backend rusage --db "$PWD/good.db" >/dev/null 2>&1 || fail "cannot make good.db"
	python3 - good.db torn.db <<'EOP'
import shutil, sqlite3, sys
shutil.copy(sys.argv[1], sys.argv[2])
c = sqlite3.connect(sys.argv[2])
c.execute("pragma journal_mode = delete")
c.execute("pragma application_id = 0")
c.execute("pragma user_version = 0")
c.execute("create table half(x)")
c.commit()
c.close()
EOP
	cp torn.db still.db
	run "$LAUKA" counters --backend rusage --db "$PWD/still.db"
	expect_rc 2
	expect_err "is another application's SQLite database"
	# The writer: the torn file changes every 10 ms for 1.2 s, then becomes the finished database.
	python3 - torn.db good.db <<'EOP' &
import os, shutil, time
end = time.time() + 1.2
while time.time() < end:
    with open("torn.db", "ab") as f:
        f.write(b"x")
    open("writing", "w").close()
    time.sleep(0.01)
shutil.copy("good.db", "torn.db.new")
os.replace("torn.db.new", "torn.db")
EOP
	w=$!
	while [ ! -e writing ]; do sleep 0.01; done
	run "$LAUKA" counters --backend rusage --db "$PWD/torn.db"
	wait $w
	expect_rc 0
	[ "$(printf '%s\n' "$out" | grep -c .)" -eq 9 ] || fail "the settled database listed: $out"
fi
exit 0
