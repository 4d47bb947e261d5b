# record --backend perf: a child that outlives its command is never charged to a later run (issue 36 P1), and lauka says it lingered
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

run "$LAUKA" version
printf '%s\n' "$out" | grep -q '^  perf .*available' || skip "perf backend not available here"
probe=$LAUKA_BUILD/lauka-probe
to_ms() { # "12.3ms" / "1.2s" / "345us" -> whole milliseconds
	awk -v s="$1" 'BEGIN { m = 1; if (s ~ /us$/) m = 0.001; else if (s ~ /ms$/) m = 1; else if (s ~ /s$/) m = 1000;
		sub(/[mu]?s$/, "", s); printf "%d\n", s * m }'
}

# What the orphan costs when it is waited for (inherit: a command's own children are counted whole).
# It must dwarf what `sleep` costs itself: 4-14 ms of task-clock on these VMs, and 23 ms once in CI
# beside another test, where an orphan of 50 M steps (39 ms) left too small a margin.
orphan="$probe alu 300000000"
run "$LAUKA" --backend perf --color never -n 3 -w 0 -m task-clock -- "sh -c '$orphan'"
expect_rc 0
t1=$(to_ms "$(row_of 1 task-clock | awk '{print $5}')")
[ "$t1" -gt 50 ] || fail "the waited-for child's task-clock was not counted: ${t1} ms"
printf '%s\n' "$err" | grep -q "left processes" && fail "a command without orphans was said to leave some: $err"

# Command 1 leaves that busy child behind in its process group and exits at once; the children exit
# while command 2 sleeps.  Counters inherited from a spawner opened once fold an orphan's task-clock
# into whatever run is measured when it exits; opened per run, they end with command 1's run.
run "$LAUKA" --backend perf --color never -n 3 -w 0 -m task-clock -- \
	"sh -c '($orphan &); true'" "sleep 1"
expect_rc 0
t2=$(to_ms "$(row_of 2 task-clock | awk '{print $7}')")
[ "$t2" -lt $((t1 / 2)) ] || fail "command 2 (a sleep) was charged command 1's orphan: task-clock max ${t2} ms (the orphan alone: min ${t1} ms)"
expect_err "command 1 left processes running"
printf '%s\n' "$err" | grep -q "command 2 left" && fail "command 2 said to leave processes: $err"
exit 0
