# CI options: --export-json - (export on stdout, table on stderr), repeated -m adds, a repeated export option is an error, -i/--ignore-failure and --ok-exit-codes, no verdict against a reference with fewer than 2 runs, exit 3 says whether a gate or a command caused it, timing gates run interleaved unless --no-interleave
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
P="$LAUKA_BUILD/lauka-probe"
json() { python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"; }

# The export on standard output, the table on standard error.
run "$LAUKA" record --color never --export-json - -- true
expect_rc 0; expect_err "^Benchmark 1"
[ "$(json "$out" 'len(d["results"])')" = 1 ] || fail "stdout is not the JSON: $out"
run "$LAUKA" record --color never --export-csv - -- true
expect_rc 0; expect_err "^Benchmark 1"; expect_out "^command_index,"
run "$LAUKA" record --export-csv - --export-json - -- true
expect_rc 1; expect_err "both name '-'"
# A repeated export option for one format would lose a file; a repeated -m adds to the list.
run "$LAUKA" record --export-json a.json --json b.json -- true
expect_rc 1; expect_err "error: --export-json given twice ('a.json' and 'b.json')"
[ -e a.json ] || [ -e b.json ] && fail "an export was written"
run "$LAUKA" record --export-json - -m user_time -m sys_time,page-faults -- true
expect_rc 0
[ "$(json "$out" '[m["name"] for m in d["commands"][0]["measurements"]][2:]')" = "['user_time', 'sys_time', 'page-faults']" ] ||
	fail "repeated -m: $(json "$out" '[m["name"] for m in d["commands"][0]["measurements"]]')"

# A failing command: its code is forwarded, and exit 3 says it came from the command.
run "$LAUKA" record --export-json - -- "sh -c 'exit 3'"
expect_rc 3; expect_err "lauka: exit 3: the exit code of a failed command, not a gate"
expect_err "pass -i/--ignore-failure, or --ok-exit-codes 0,3"
[ "$(json "$out" 'd["exit_code"], d["exit_cause"]')" = "(3, 'command')" ] || fail "JSON exit: $out"
# -i measures it anyway (hyperfine's spelling), with each run's status in the JSON.
run "$LAUKA" record -n 3 -i --export-json - -- "sh -c 'exit 3'"
expect_rc 0; expect_err "exited with code 3: measured anyway (-i/--ignore-failure)"
[ "$(json "$out" 'd["results"][0]["exit_codes"], d["commands"][0]["runs"], d["exit_cause"]')" = "([3, 3, 3], 3, 'ok')" ] ||
	fail "-i: $out"
run "$LAUKA" record --ignore-failure -- "sh -c 'kill -9 \$\$'"
expect_rc 137; expect_err "killed by signal 9"
# --ok-exit-codes: the listed statuses are success, others (0 too when not listed) fail.
run "$LAUKA" record --ok-exit-codes 0,1 -- "sh -c 'exit 1'" true
expect_rc 0
run "$LAUKA" record --ok-exit-codes 0,1 -- "sh -c 'exit 2'"
expect_rc 2
run "$LAUKA" record --ok-exit-codes 1 -- true
expect_rc 1; expect_err "exited with 0, which --ok-exit-codes does not list"
run "$LAUKA" record --ok-exit-codes 0,x -- true
expect_rc 1; expect_err "invalid --ok-exit-codes '0,x'"

# A reference that completed one run: deltas against it are the change alone, with no interval and
# no verdict (one sample says nothing of its spread), and the gate is inconclusive, not a pass.
run "$LAUKA" record -n 3 --color never --gate page-faults=1% --export-json - -- "sh -c 'test -e s && exit 5; touch s'" true
expect_rc 5; expect_err "completed 1 run: deltas against it have no interval and no verdict"
[ "$(json "$out" 'set((m["delta"]["bounded"], m["delta"]["verdict"]) for m in d["commands"][1]["measurements"]), [(g["result"], g["basis"]) for g in d["gates"]]')" = "({(False, 'none')}, [('inconclusive', 'too_few_runs')])" ] ||
	fail "a delta against a single run: $out"

# Exit 3 from a gate says so, in the summary and the JSON.
if command -v valgrind >/dev/null 2>&1; then
	run "$LAUKA" record --backend valgrind -m Ir --gate Ir=1% --export-json - -- "$P alu 1000" "$P alu 3000"
	expect_rc 3; expect_err "lauka: exit 3: a gate failed"
	[ "$(json "$out" 'd["exit_code"], d["exit_cause"]')" = "(3, 'gate')" ] || fail "JSON exit: $out"
fi

# A gate on a timing measurement interleaves the runs, and says so; --no-interleave keeps them in sequence.
run "$LAUKA" record --color never --gate wall_time=900% --export-json o.json -- true true
expect_rc 0; expect_out "^Interleaved"; expect_out "^(a timing gate interleaves the runs; --no-interleave runs them in sequence)$"
[ "$(json "$(cat o.json)" 'd["order"]')" = interleaved ] || fail "not interleaved: $(cat o.json)"
run "$LAUKA" record --color never --gate wall_time=900% --no-interleave --export-json o.json -- true true
expect_rc 0
printf '%s\n' "$out" | grep -q Interleaved && fail "--no-interleave interleaved"
[ "$(json "$(cat o.json)" 'd["order"]')" = sequential ] || fail "--no-interleave: $(cat o.json)"
run "$LAUKA" record --color never --gate Ir=1% --backend valgrind -- true true
printf '%s\n' "$out" | grep -q Interleaved && fail "a count gate interleaved"
run "$LAUKA" record --interleave --no-interleave -- true true
expect_rc 1; expect_err "contradict"
exit 0
