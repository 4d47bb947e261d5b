# record -S/--shell: commands run as SHELL -c CMD (pipes, redirections), and the empty command's cost is shown
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

run "$LAUKA" -n 3 --backend rusage --color never -S sh -- 'echo hi > out.txt; echo there >> out.txt' 'true | cat'
expect_rc 0
[ "$(cat out.txt)" = "hi
there" ] || fail "the shell did not run the command: $(cat out.txt)"
expect_out "^Shell alone (3 runs): sh -c ''$"
expect_out "^(the shell's own cost: part of every count below)$"
expect_out '^Benchmark 1 (3 runs): echo hi > out.txt; echo there >> out.txt$'
# Without -S the quoting checks stay.
run "$LAUKA" -n 3 -- 'true | cat'
expect_rc 1; expect_err "shell metacharacter '|'"; expect_err "lauka -S sh -- 'true | cat' (-S sh runs every command through sh)"
# A shell with options, and one that does not exist.
run "$LAUKA" -n 3 --backend rusage -S 'sh -e' -- 'false; true'
expect_rc 1; expect_err "^error: command 1 'false; true' failed with exit code 1"
run "$LAUKA" -n 3 -S no-such-shell-xyz -- true
expect_rc 127; expect_err "^error: shell not found: 'no-such-shell-xyz'"
# Hooks run through the shell too.
run "$LAUKA" -n 3 --backend rusage -S sh --prepare 'echo p >> hooks.txt' -- true
expect_rc 0; [ "$(wc -l < hooks.txt)" -eq 3 ] || fail "prepare under the shell: $(cat hooks.txt)"
# The shell's cost is exported.
run "$LAUKA" -n 3 --backend rusage -S sh --json s.json -- true
grep -q '"shell": "sh"' s.json && grep -q '"shell_cost": {"command": ""' s.json || fail "shell cost not exported: $(cat s.json)"

# Under valgrind the shell's share of the count is exact: sh -c 'true' costs at least what sh -c '' does.
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed (the rest passed)"
run "$LAUKA" --backend valgrind -m Ir --color never -S sh --json v.json -- "$LAUKA_BUILD/lauka-probe alu 1e4"
expect_rc 0
command -v python3 >/dev/null || skip "python3 not installed (the rest passed)"
python3 - <<'EOP' || fail "shell cost under valgrind: $(cat v.json)"
import json
d = json.load(open("v.json"))
sh = next(m for m in d["shell_cost"]["measurements"] if m["name"] == "Ir")
cmd = next(m for m in d["commands"][0]["measurements"] if m["name"] == "Ir")
assert sh["stddev"] == 0 and sh["mean"] > 0
# The probe adds its start-up and 2 instructions per iteration on top of the shell.
assert cmd["mean"] - sh["mean"] > 2e4, (sh["mean"], cmd["mean"])
EOP
# A shell that fails on its own is named in the error, not as '' (issue 31 D-18).
run "$LAUKA" --color never --backend rusage -S /bin/false -- true
expect_rc 1; expect_err "^error: the empty command under the shell '/bin/false' failed with exit code 1$"
exit 0
