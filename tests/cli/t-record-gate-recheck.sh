# record --gate under valgrind: a failed one-run gate re-runs both sides once; counts that move warn and go by the interval
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
P="$LAUKA_BUILD/lauka-probe"

# A program whose work differs from run to run (as a hash seed makes it): each run loops as many
# times as runs before it, counted in a file.  Run 1 of command 1 loops once, run 1 of command 2
# twice: one run each, the same program "failed" a gate against itself (issue 37 T3: 3 of 8 Python
# scripts, each "exact (sd 0)").  Once re-run (3 and 4 loops) the counts are seen to move.
cat > moving.sh <<'EOS'
n=$(cat count 2>/dev/null || echo 0); n=$((n + 1)); echo $n > count
i=0; while [ $i -lt $((n * 30)) ]; do i=$((i + 1)); done
EOS
run "$LAUKA" --backend valgrind -m Ir --color never --gate Ir=1% --json m.json -- 'sh moving.sh' 'sh moving.sh'
[ "$rc" -ne 3 ] || fail "a program failed a one-run gate against itself: $out"
expect_rc 4
[ "$(cat count)" = 4 ] || fail "expected 2 runs of each command, the count file says $(cat count)"
expect_err "^warning: gate 'Ir=1%': counts differ between runs of command [12]"
expect_err "not deterministic"
expect_out '^Ir=1% .*2: sh moving.sh .*inconclusive$'
if command -v python3 >/dev/null; then
	python3 - <<'EOP' || fail "JSON: $(cat m.json)"
import json
d = json.load(open("m.json"))
ir = [next(m for m in c["measurements"] if m["name"] == "Ir") for c in d["commands"]]
assert [len(m["samples"]) for m in ir] == [2, 2], ir
(g,) = d["gates"]
assert g["result"] == "inconclusive" and g["basis"] in ("interval", "unbounded"), g
EOP
fi

# A deterministic program: a passed one-run gate says it was not re-checked; a failed one is re-run
# once on each side (the reference too, so the other command's row says 2 and 1 runs), the counts
# stay, and it fails (exact).
run "$LAUKA" --backend valgrind -m Ir --color never --gate Ir=1% -- "$P alu 1e4" "$P alu 1e4"
expect_rc 0
expect_out '^Ir=1% .*2: .*alu 1e4 .* +0.00% .*1 run each, assumed deterministic .*pass$'
run "$LAUKA" --backend valgrind -m Ir --color never --gate Ir=1% -- "$P alu 1e4" "$P alu 1e4" "$P alu 2e4"
expect_rc 3
expect_out '^Ir=1% .*2: .*alu 1e4 .* +0.00% .*exact (sd 0, 2 and 1 runs) .*pass$'
expect_out '^Ir=1% .*3: .*alu 2e4 .*exact (sd 0, 2 runs each) .*FAIL$'
expect_out '^Benchmark 3 (2 runs)'
printf '%s\n' "$err" | grep -q 'counts differ' && fail "warned about identical counts: $err"
# One `valgrind --version` per invocation (issue 37 T6: one for every fingerprint, 1.34x the CPU of
# a plain callgrind run for a start-up-only gate), however many runs and fingerprints it makes.
if command -v strace >/dev/null 2>&1; then
	export LAUKA_DB="$PWD/db.sqlite"
	run "$LAUKA" --backend valgrind -m Ir --runner-class v --save-baseline v -- "$P alu 1e3"
	expect_rc 0
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -e trace=execve -o tr.txt "$LAUKA" --backend valgrind \
		-m Ir -n 2 --runner-class v --baseline v --save-baseline v --gate Ir=1% --json v.json -- "$P alu 1e3" \
		>/dev/null 2>&1 || fail "under strace: exit $?"
	n=$(grep '"--version"' tr.txt | awk '{ print $1 }' | sort -u | wc -l)
	[ "$n" -eq 1 ] || fail "valgrind --version ran $n times: $(grep -- '--version' tr.txt)"
fi
exit 0
