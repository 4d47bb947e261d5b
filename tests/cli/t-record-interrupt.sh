# record: SIGINT stops the current child, prints what was measured, exits 130
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

"$LAUKA" --color never -- 'sleep 0.01' 'sleep 30' > out.txt 2> err.txt &
pid=$!
# Wait until the second command is running (its block 1 is printed first).
i=0
while ! grep -q '^Benchmark 1' out.txt 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 100 ] && { kill -9 $pid; fail "block 1 never printed"; }
	sleep 0.1
done
sleep 0.3
start=$(date +%s)
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "expected exit 130, got $rc: $(cat err.txt)"
[ $(( $(date +%s) - start )) -le 5 ] || fail "lauka did not stop promptly"
grep -q '^Benchmark 1 (3 runs): sleep 0.01' out.txt || fail "completed block missing"
grep -q 'interrupted' err.txt || fail "no interruption note: $(cat err.txt)"
pgrep -f 'sleep 30' >/dev/null && fail "child still running"
exit 0
