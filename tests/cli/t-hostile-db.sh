# Altered databases (issue 21): a negative schema version is "not lauka's or corrupt", never a migration
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed (it alters the database)"
python3 -c 'import sqlite3' 2>/dev/null || skip "python3 sqlite3 module missing"
run "$LAUKA" counters --backend rusage
expect_rc 0
# user_version -1 indexed migrations[-1] (stray strings ran as SQL on the user's file); INT_MIN crashed.
for v in -1 -2 -2147483648; do
	cp "$LAUKA_DB" v.db
	python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("pragma user_version = %d" % int(sys.argv[2])); c.commit(); c.close()' v.db "$v"
	before=$(cksum <v.db)
	for args in "counters --backend rusage" "counters --pmu tiny" "baselines"; do
		LAUKA_DB="$PWD/v.db" run "$LAUKA" $args
		expect_rc 2
		expect_err "^error: database '$PWD/v.db' is not a lauka database or is corrupt (schema version $v, which no lauka writes); it was left as it is$"
		expect_err "^fix: point --db or LAUKA_DB at a lauka database or at a new file$"
		[ "$(printf '%s\n' "$err" | grep -c '^error:')" -eq 1 ] || fail "$args: not one error line: $err"
		[ "$(cksum <v.db)" = "$before" ] || fail "$args changed a database of schema version $v"
	done
done

# A listing only reads: another process's write lock (held here for 60 s) once made it wait the busy
# timeout (15 s) and fail; it now lists the backend's catalogue from memory without storing it.
rm -f "$LAUKA_DB"
run "$LAUKA" baselines
expect_rc 0
python3 -c '
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("begin immediate")
open("locked", "w").close()
time.sleep(60)' "$LAUKA_DB" &
locker=$!
i=0
while [ ! -e locked ]; do i=$((i + 1)); [ $i -lt 300 ] || fail "the lock was never taken"; sleep 0.1; done
run timeout -s KILL 50 "$LAUKA" counters --backend rusage
kill $locker 2>/dev/null
wait $locker 2>/dev/null
expect_rc 0
expect_out "minor_faults"

# Resource limits are lauka's, not the file's or the command's: with few file descriptors the database
# was "unable to open database file". Every limit from 3 to 12 either works or names the limit.
run "$LAUKA" counters --backend rusage
expect_rc 0
failed=0
for n in 3 4 5 6 7 8 9 10 11 12; do
	for args in "counters --backend rusage" "--backend rusage -n 3 -- true"; do
		run sh -c "ulimit -n $n && exec \"\$0\" $args" "$LAUKA"
		[ "$rc" -eq 0 ] && continue
		# below a few descriptors the dynamic loader fails before lauka runs: not lauka's to say
		printf '%s\n' "$err" | grep -q "error while loading shared libraries" && continue
		failed=$((failed + 1))
		printf '%s\n' "$err" | grep -q "unable to open database file\|corrupt" && fail "ulimit -n $n, $args: blamed on the file: $err"
		expect_err "ran out of file descriptors (its limit is $n: raise it with ulimit -n 1024)"
	done
done
[ "$failed" -gt 0 ] || fail "no limit was low enough to fail: the check tested nothing"
