# record: runs by backend: valgrind one exact run (more, one after another, with -n; at once only with --jobs), a sampled backend 3 runs then more (10 runs and 3 s, at most --max-runs); one run has no interval or glyph
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
runs_of() { python3 -c 'import json, sys
print(" ".join(str(c["runs"]) for c in json.load(open(sys.argv[1]))["commands"]))' "$1"; }

# A sampled backend: 3 runs first, then more; `true` (a millisecond) reaches the cap, not 3 s.
run "$LAUKA" record --backend rusage --color never --json a.json -- true
expect_rc 0
[ "$(runs_of a.json)" = 100 ] || fail "auto count of 'true' should stop at the cap of 100: $(runs_of a.json)"
run "$LAUKA" record --backend rusage --color never --max-runs 12 --json a.json -- true 'sleep 0.001'
expect_rc 0; expect_out '^Benchmark 1 (12 runs): true'
[ "$(runs_of a.json)" = "12 12" ] || fail "--max-runs 12: $(runs_of a.json)"
# 0.4 s a run: the 3 s come after 8 runs, but 10 runs is the floor; with the cap at 4, 4.
run "$LAUKA" record --backend rusage --color never --max-runs 4 --json a.json -- 'sleep 0.4'
expect_rc 0
[ "$(runs_of a.json)" = 4 ] || fail "--max-runs 4 on sleep 0.4: $(runs_of a.json)"
# Interleaved, every command gets its further runs in shuffled rounds after the first 3.
run "$LAUKA" record --backend rusage --color never --interleave --max-runs 7 --json a.json -- true 'sleep 0.001'
expect_rc 0
[ "$(runs_of a.json)" = "7 7" ] || fail "interleaved auto count: $(runs_of a.json)"
# -n fixes the count; a sampled backend needs 3; -n and --min-runs/--max-runs exclude each other.
run "$LAUKA" record --backend rusage --color never -n 5 --json a.json -- true
expect_rc 0
[ "$(runs_of a.json)" = 5 ] || fail "-n 5: $(runs_of a.json)"
run "$LAUKA" record --backend rusage -n 2 -- true
expect_rc 1; expect_err 'minimum runs is 3 for the rusage backend'
run "$LAUKA" record --backend rusage --min-runs 1 -- true
expect_rc 1; expect_err 'minimum runs is 3'
run "$LAUKA" record --backend rusage -n 5 --max-runs 9 -- true
expect_rc 1; expect_err '^error: -n fixes the number of runs'
run "$LAUKA" record --backend rusage --min-runs 9 --max-runs 5 -- true
expect_rc 1; expect_err 'min-runs 9 is more than --max-runs 5'
run "$LAUKA" record --backend rusage --jobs 2 -- true
expect_rc 1; expect_err '^error: --jobs 2 runs in parallel only under a deterministic backend'

# One completed run of a sampled measurement (the command fails on its second): the change, but
# neither an interval nor a glyph, and its mean without "± 0".
run "$LAUKA" record --backend rusage --color never -n 3 -- true "sh -c 'test -e F && exit 7; touch F; sleep 0.2'"
expect_rc 7; expect_out '^Benchmark 2 (1 run)'
row=$(row_of 2 wall_time)
case $row in *'(one run: no interval)'*) ;; *) fail "one run's delta: $row" ;; esac
case $row in *'💩'*|*'⚡'*|*'±'*|*'['*) fail "one run's row has an interval or a glyph: $row" ;; esac

command -v valgrind >/dev/null 2>&1 || { echo "valgrind parts skipped: not installed"; exit 0; }
P="$LAUKA_BUILD/lauka-probe"
# valgrind: one run by default, its counts exact (σ 0); the help example, a command with side
# effects, gives the same count as -n 3 one after another (at once, runs raced: Ir σ 740).
echo hello > small.txt
run "$LAUKA" record --backend valgrind --color never -m Ir --json v.json -- 'gzip -k -f small.txt'
expect_rc 0; expect_out '^Benchmark 1 (1 run): gzip'
row_of 1 Ir | grep -q '^Ir  *[0-9.]*K ± 0 ' || fail "one valgrind run: $(row_of 1 Ir)"
printf '%s\n' "$out" | grep -q '^Parallel' && fail "runs in parallel without --jobs"
run "$LAUKA" record --backend valgrind --color never -m Ir -n 3 -- 'gzip -k -f small.txt'
expect_rc 0; expect_out '^Benchmark 1 (3 runs): gzip'
row_of 1 Ir | grep -q ' ± 0 ' || fail "-n 3 of the help example varies: $(row_of 1 Ir)"
expect_out '^(the 3 runs gave identical valgrind counts)'
# A command whose second run sees the first's file fails on run 2, as under perf (at once it passed 3 of 3).
run "$LAUKA" record --backend valgrind --color never -m Ir -n 3 -- "sh -c 'test -e G && exit 7; touch G'"
expect_rc 7
# Runs whose counts differ are said to, and their gate goes by spread: the first run does more work,
# so the reference's interval is unbounded and the gate is inconclusive (exit 4), never "pass".
W="sh -c 'test -e H || { touch H; $P alu 1e5; }'"
run "$LAUKA" record --backend valgrind --color never -m Ir -n 3 --gate Ir=1% -- "$W" "$P alu 10"
expect_rc 4
expect_err "command 1's 3 runs gave different valgrind counts"
expect_out '^Ir=1%.*unbounded *inconclusive$'
expect_out '^0 of 1 gate check failed, 1 inconclusive (exit 4)$'
expect_err '^lauka: exit 4: a gate was inconclusive'
rm -f H
run "$LAUKA" record --backend valgrind --color never -m Ir -n 3 --gate Ir=1% --gate-inconclusive pass -- "$W" "$P alu 10"
expect_rc 0; expect_out 'counted as passed'
rm -f H
run "$LAUKA" record --backend valgrind --color never -m Ir -n 3 --gate Ir=1% --gate-inconclusive fail --json g.json -- "$W" "$P alu 10"
expect_rc 3
python3 -c 'import json, sys
d = json.load(open("g.json"))
g = d["gates"][0]
assert g["result"] == "inconclusive" and g["basis"] == "unbounded", g
assert d["exit_code"] == 3, d["exit_code"]' || fail "JSON of an inconclusive gate: $(cat g.json)"
# One valgrind run each: the gate is exact; a failed one re-runs both once (issue 37 T3), and decides.
run "$LAUKA" record --backend valgrind --color never -m Ir --gate Ir=1% -- "$P alu 1000" "$P alu 2000"
expect_rc 3; expect_out '^Ir=1%.*exact (sd 0, 2 runs each) *FAIL$'
# The first run of a CI gate (no baseline yet): the gates are not evaluated, and it says so, not
# "0 of 0 gate checks failed".
run "$LAUKA" record --backend valgrind --color never -m Ir --save-baseline b1 --baseline b1 --runner-class ci \
	--gate Ir=1% -- "$P alu 1000"
expect_rc 0; expect_out "^Gates: not evaluated: there was no baseline 'b1' for runner class 'ci' yet; this run saves it$"
printf '%s\n' "$out" | grep -q 'gate checks\? failed' && fail "first run: $out"
run "$LAUKA" record --backend valgrind --color never -m Ir --baseline b1 --runner-class ci --gate Ir=1% -- "$P alu 1000"
expect_rc 0; expect_out '^0 of 1 gate check failed$'
# --jobs: runs at once, said in lines within 80 columns; not with a hook.
run "$LAUKA" record --backend valgrind --color never -m Ir -n 2 --jobs 2 -- "$P alu 10"
expect_rc 0; expect_out '^Parallel (--jobs 2)'
printf '%s\n' "$out" | awk 'length > 80 { bad = 1 } END { exit bad }' || fail "a line over 80 columns: $out"
run "$LAUKA" record --backend valgrind -m Ir -n 2 --jobs 2 --prepare true -- "$P alu 10"
expect_rc 1; expect_err 'hooks run around one run at a time'
exit 0
