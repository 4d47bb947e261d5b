# record: lauka's options written after the commands (hyperfine's habit) are refused before any run with a fix that moves them before '--' and keeps each command whole; the fix, run, measures the commands as meant
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
run "$LAUKA" -r 3 -- 'sleep 0.01' 'sleep 0.02' -i
expect_rc 1
expect_err "^error: '-i' after the commands is an option of lauka's"
fix=$(printf '%s\n' "$err" | sed -n 's/^fix: .*: lauka //p')
[ "$fix" = "-r 3 -i -- 'sleep 0.01' 'sleep 0.02'" ] || fail "the fix does not move -i before '--' alone: $err"
# The fix as typed: two commands of 3 runs, -i taken as lauka's.
eval "set -- $fix"
run "$LAUKA" --color never "$@"
expect_rc 0
expect_out 'Benchmark 1 (3 runs): sleep 0.01'
expect_out 'Benchmark 2 (3 runs): sleep 0.02'
# Values go with their options, long and short, '=' and attached forms; quoting survives.
run "$LAUKA" -- 'sleep 0.01' "echo it's" --export-json x.json -w2 --gate=wall_time=5% -P n 1 3
expect_rc 1
expect_err "^fix: put lauka's options before '--': lauka --export-json x.json -w2 --gate=wall_time=5% -P n 1 3 -- 'sleep 0.01' 'echo it'\\\\''s'\$"
[ -e x.json ] && fail "something ran: x.json was written"
# A word that is not one of lauka's options keeps the old advice (an unquoted command line).
run "$LAUKA" -- myapp --flag 1
expect_rc 1
expect_err "looks like an argument of the previous command"
expect_err "^fix: wrap each command in quotes: lauka -- 'myapp --flag 1'"
# hyperfine's -m N (min runs) is lauka's event list: a number there gets hyperfine's meaning as fix.
run "$LAUKA" -m 3 -- true
expect_rc 1
expect_err "^error: '3' is not a measurement"
expect_err "^fix: .*--min-runs 3"
exit 0
