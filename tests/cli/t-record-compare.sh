# record: two commands give two blocks and a delta column against the first
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

# 8 runs: on a loaded machine 5 can leave the reference so noisy that the interval is unbounded.
run "$LAUKA" --color never -n 8 -- 'sleep 0.01' 'sleep 0.05'
expect_rc 0
expect_out '^Benchmark 1 (8 runs): sleep 0.01$'
expect_out '^Benchmark 2 (8 runs): sleep 0.05$'
expect_out 'outliers *delta$'
# Reference block has no delta column; the later one does, with a significant slowdown.
block1=$(printf '%s\n' "$out" | sed -n '/^Benchmark 1/,/^Benchmark 2/p')
printf '%s\n' "$block1" | grep -q delta && fail "reference block shows a delta"
row_of 2 wall_time | grep -Eq '💩 \+[0-9.]+% (± [0-9.]+%|\[\+[0-9.]+%, \+[0-9.]+%\])$' || fail "no significant wall_time delta: $(row_of 2 wall_time)"
row_of 1 peak_rss | grep -q 'B ±' || fail "peak_rss not in bytes units: $(row_of 1 peak_rss)"
printf '%s\n' "$out" | grep -q "$(printf '\033')" && fail "colour with --color never"

# --color ansi forces escapes even into a pipe; NO_COLOR silences auto.
run "$LAUKA" --color ansi -- true
printf '%s\n' "$out" | grep -q "$(printf '\033')\[" || fail "--color ansi printed no escapes"
NO_COLOR=1 run "$LAUKA" -- true
printf '%s\n' "$out" | grep -q "$(printf '\033')" && fail "colour despite NO_COLOR"

# Commands read /dev/null and their output is discarded, unless --show-output.
run "$LAUKA" -- cat 'echo visible-output'
expect_rc 0
printf '%s\n' "$out" | grep -qx visible-output && fail "command output was not discarded"
run "$LAUKA" --show-output -- 'echo visible-output'
expect_out '^visible-output$'

# Names are case-insensitive and quoting is honoured.
run "$LAUKA" -m WALL_TIME,Peak_RSS -- "printf '%s\n' 'a b'"
expect_rc 0; expect_out '^wall_time'
exit 0
