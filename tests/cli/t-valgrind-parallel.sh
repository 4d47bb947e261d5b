# valgrind --jobs: runs of a command at the same time (counts do not depend on the load), with the same counts as one at a time; only when asked, never with hooks; a failing run is reported once
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
[ "$(getconf _NPROCESSORS_ONLN)" -gt 1 ] || skip "one core: the runs are made one at a time"
P="$LAUKA_BUILD/lauka-probe"
samples() { python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["commands"]:
    print([m for m in c["measurements"] if m["name"] == sys.argv[2]][0]["samples"])' "$@"; }

# The runs overlap: each one's start comes before another's end (the order of the log, not timings).
run "$LAUKA" record --color never --backend valgrind -m Ir -n 3 --jobs 3 --export-json p.json -- \
	"sh -c 'echo S >> $PWD/log; sleep 1; echo E >> $PWD/log'" "$P alu 1000"
expect_rc 0; expect_out "^Parallel (--jobs 3): valgrind counts do not depend on the load"
[ "$(head -n 2 log | tr -d '\n')" = SS ] || fail "the runs did not overlap: $(tr '\n' ' ' < log)"
par=$(samples p.json Ir)
# The same counts one at a time (the default without --jobs: a command with side effects would race
# with itself), and against raw callgrind.
run "$LAUKA" record --color never --backend valgrind -m Ir -n 3 --export-json s.json -- \
	"sh -c 'echo S >> $PWD/log2; sleep 1; echo E >> $PWD/log2'" "$P alu 1000"
expect_rc 0
printf '%s\n' "$out" | grep -q '^Parallel' && fail "runs in parallel without --jobs"
[ "$(tr -d '\n' < log2)" = SESESE ] || fail "the runs without --jobs overlapped: $(tr '\n' ' ' < log2)"
# A hook needs one run at a time: --jobs with one is refused.
run "$LAUKA" record --backend valgrind -m Ir -n 3 --jobs 3 --prepare true -- "$P alu 1000"
expect_rc 1; expect_err '^error: --jobs 3 runs in parallel only'
[ "$(samples s.json Ir | tail -n 1)" = "$(printf '%s\n' "$par" | tail -n 1)" ] ||
	fail "parallel [$par] and sequential [$(samples s.json Ir)] counts differ"
rm -rf cl && mkdir cl
vg_pinned valgrind -q --tool=callgrind --cache-sim=no --callgrind-out-file="$PWD/cl/cg.%p.out" $P alu 1000
raw=$(awk '/^summary:/ {print $2}' cl/*)
[ "$(printf '%s\n' "$par" | tail -n 1)" = "[$raw, $raw, $raw]" ] || fail "parallel counts [$par] vs raw callgrind $raw"
# A failing command: its code, one error for the command, not one per run.
run "$LAUKA" record --backend valgrind -m Ir -n 3 --jobs 3 -- "sh -c 'exit 4'"
expect_rc 4
[ "$(printf '%s\n' "$err" | grep -c 'failed with exit code 4')" -eq 1 ] || fail "expected one error: $err"
exit 0
