# record --save-baseline/--baseline: stored samples, matching by name or position, runner classes, mismatches refused; lauka baselines
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

# rusage only (fast): save, list, compare.
run "$LAUKA" -n 3 --backend rusage --save-baseline quick --runner-class laptop --command-name one --command-name two -- true 'sleep 0.01'
expect_rc 0; expect_err "saved baseline 'quick' (2 commands, runner class 'laptop')"
run "$LAUKA" baselines
expect_rc 0
printf '%s\n' "$out" | grep -qE '^quick +[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{5} UTC +laptop +rusage +2: one, two$' ||
	fail "list: $out"
run "$LAUKA" baselines show quick --color never
expect_rc 0; expect_out '^runner class   laptop$'; expect_out '^Benchmark 2 (3 runs): two (sleep 0.01)$'; expect_out '^wall_time'

# Compared against the baseline: every command gets a delta, matched by position...
run "$LAUKA" -n 3 --backend rusage --color never --baseline quick --runner-class laptop -- 'sleep 0.01' true
expect_rc 0
# (the sign only: a loaded machine can widen any interval of 3 runs)
row_of 1 wall_time | grep -Eq ' \+[0-9.]+% (±|\[)' || fail "sleep vs the baseline's true should be slower: $(row_of 1 wall_time)"
row_of 2 wall_time | grep -Eq ' -[0-9.]+% (±|\[)' || fail "true vs the baseline's sleep should be faster: $(row_of 2 wall_time)"
# ... or by --command-name, in any order.
run "$LAUKA" -n 3 --backend rusage --color never --baseline quick --runner-class laptop --command-name two --command-name one -- 'sleep 0.01' true
expect_rc 0
# sleep against sleep stays near 0%; against the baseline's true (by position) it would be about +2000%.
pct=$(row_of 1 wall_time | grep -Eo '[+-][0-9.]+%' | head -n 1 | tr -d '%+')
awk -v p="$pct" 'BEGIN { exit !(p != "" && p < 500 && p > -90) }' || fail "matched by position instead of name: $(row_of 1 wall_time)"
run "$LAUKA" -n 3 --backend rusage --baseline quick --runner-class laptop --command-name one --command-name three -- true true
expect_rc 1; expect_err "^error: baseline 'quick' has no command named 'three'"; expect_err "its commands are named 'one', 'two'"

# Another runner class is refused, naming both; --any-runner compares anyway, with a warning.
run "$LAUKA" -n 3 --backend rusage --baseline quick --runner-class ci-box -- true true
expect_rc 1
expect_err "^error: baseline 'quick' was recorded on runner class 'laptop', this is runner class 'ci-box'$"
expect_err "^fix: .*--any-runner"
expect_no_out
run "$LAUKA" -n 3 --backend rusage --baseline quick -- true true
expect_rc 1; expect_err "recorded on runner class 'laptop', this is runner class '$(hostname)/"
run "$LAUKA" -n 3 --backend rusage --baseline quick --any-runner -- true true
expect_rc 0; expect_err "^warning: comparing with baseline 'quick' from runner class 'laptop'"

# Mismatches in count, backend or events are clear errors, before anything runs.
run "$LAUKA" -n 3 --backend rusage --baseline quick --runner-class laptop -- 'touch ran'
expect_rc 1; expect_err "^error: baseline 'quick' has 2 commands, this run has 1$"
run "$LAUKA" -n 3 --backend rusage --baseline quick --runner-class laptop -m user_time -- 'touch ran' true
expect_rc 1; expect_err "^error: baseline 'quick' has other measurements than this run: not in the baseline: user_time$"
expect_err "^fix: measure what the baseline has: -m wall_time,peak_rss$"
[ ! -e ran ] || fail "a command ran although the comparison was refused"
run "$LAUKA" -n 3 --baseline nope -- true
expect_rc 1; expect_err "^error: no baseline named 'nope'"; expect_err "stored baselines: 'quick'"

# Saving again replaces it; a failing run or check saves nothing.
run "$LAUKA" -n 3 --backend rusage --save-baseline quick --runner-class laptop -- true
expect_rc 0
run "$LAUKA" baselines
printf '%s\n' "$out" | grep -qE '^quick .* 1: true$' || fail "not replaced: $out"
run "$LAUKA" -n 3 --backend rusage --save-baseline quick --runner-class laptop -- 'true' "sh -c 'exit 4'"
expect_rc 4; expect_err "^error: baseline 'quick' not saved: command 2 did not complete its runs"
run "$LAUKA" -n 3 --backend rusage --save-baseline quick --runner-class laptop --check false -- true
expect_rc 1; expect_err "^error: baseline 'quick' not saved: the --check of command 1 failed on 3 of 3 runs"
run "$LAUKA" baselines
printf '%s\n' "$out" | grep -qE '^quick .* 1: true$' || fail "a failed save changed the baseline: $out"

# The git commit of the working directory is stored when there is one.
if command -v git >/dev/null 2>&1; then
	mkdir repo && (cd repo && git init -q && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m x) &&
		commit=$(cd repo && git rev-parse HEAD)
	(cd repo && "$LAUKA" -n 3 --backend rusage --save-baseline withgit -- true >/dev/null 2>&1) || fail "save in a git checkout"
	run "$LAUKA" baselines show withgit
	expect_out "^git commit     $commit$"
fi

run "$LAUKA" baselines delete quick
expect_rc 0; expect_err "deleted baseline 'quick'"
run "$LAUKA" baselines delete quick
expect_rc 1; expect_err "^error: no baseline named 'quick'"
run "$LAUKA" baselines show
expect_rc 1; expect_err "needs the name of a baseline"
run "$LAUKA" baselines frob
expect_rc 1; expect_err "unknown baselines action 'frob'"

# A database that cannot be written is found out before anything runs (as root every file is
# writable, so that run drops to nobody).
if [ "$(id -u)" -ne 0 ] || command -v setpriv >/dev/null; then
	as_user() { if [ "$(id -u)" -eq 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
	mkdir ro && chmod 755 . && run "$LAUKA" -n 3 --db "$PWD/ro/l.db" -- true && expect_rc 0
	chmod 444 ro/l.db; chmod 555 ro
	run as_user "$LAUKA" -n 3 --db "$PWD/ro/l.db" --save-baseline b -- "sh -c 'echo ran >> $PWD/ran.txt'"
	expect_rc 2; expect_err "^error: database '.*' cannot be written"
	expect_err "^tip: --save-baseline stores the runs in the database; nothing was measured$"
	[ -e ran.txt ] && fail "the command ran although the baseline could not be stored"
	chmod 755 ro
fi

# The valgrind backend: the Done-means case of the issue (see also t-record-gate.sh).
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed (the rusage part passed)"
P="$LAUKA_BUILD/lauka-probe"
run "$LAUKA" --backend valgrind -m Ir --save-baseline vg --runner-class ci -- "$P alu 1e4"
expect_rc 0
run "$LAUKA" --backend valgrind -m Ir --baseline vg --runner-class ci --gate Ir=1% --color never -- "$P alu 1e4"
expect_rc 0; expect_out '^Ir=1% .* +0.00% .* 1 run each, assumed deterministic .* pass$'
run "$LAUKA" --backend valgrind -m Ir --baseline vg --runner-class ci --gate Ir=1% --color never -- "$P alu 2e4"
expect_rc 3; expect_out '^Ir=1% .* FAIL$'
# Another backend than the baseline's is refused.
run "$LAUKA" -n 3 --backend rusage --baseline vg --runner-class ci -- true
expect_rc 1; expect_err "^error: baseline 'vg' was measured with backend 'valgrind', this run uses 'rusage'$"
expect_err "^fix: add --backend valgrind$"
exit 0
