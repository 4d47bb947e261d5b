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
	[ "$(grep -c . fresh$i.out)" -eq 8 ] || fail "first use $i listed: $(cat fresh$i.out)"
done

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
exit 0
