# record hooks: --setup/--prepare/--conclude/--check/--cleanup run when they should, see the indices, fail clearly
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

log() { printf "sh -c 'echo %s \$LAUKA_COMMAND_INDEX \${LAUKA_RUN_INDEX:--} >> log'" "$1"; }

# --prepare before every run (warm-ups included), --conclude after it, --check after every measured run,
# --setup/--cleanup once per command; the measured command itself sees no LAUKA_* variable.
run "$LAUKA" --backend rusage --warmup 1 -n 3 --setup "$(log setup)" --prepare "$(log prepare)" \
	--conclude "$(log conclude)" --check "$(log check)" --cleanup "$(log cleanup)" \
	-- "sh -c 'echo run \${LAUKA_COMMAND_INDEX:--} \${LAUKA_RUN_INDEX:--} >> log'" "sh -c 'echo run2 >> log'"
expect_rc 0
expect_out '^checks: 3 of 3 passed$'
cat > want <<'EOW'
setup 1 -
prepare 1 warmup-1
run - -
conclude 1 warmup-1
prepare 1 1
run - -
conclude 1 1
check 1 1
prepare 1 2
run - -
conclude 1 2
check 1 2
prepare 1 3
run - -
conclude 1 3
check 1 3
cleanup 1 -
setup 2 -
prepare 2 warmup-1
run2
conclude 2 warmup-1
prepare 2 1
run2
conclude 2 1
check 2 1
prepare 2 2
run2
conclude 2 2
check 2 2
prepare 2 3
run2
conclude 2 3
check 2 3
cleanup 2 -
EOW
diff want log > diff.txt || fail "hooks ran out of order: $(cat diff.txt)"
rm log

# One hook per command, in order; a count that is neither 1 nor the number of commands is an error.
run "$LAUKA" -n 3 --backend rusage --prepare "$(log p-one)" --prepare "$(log p-two)" -- true true
expect_rc 0
[ "$(grep -c '^p-one 1 ' log)" -eq 3 ] && [ "$(grep -c '^p-two 2 ' log)" -eq 3 ] && [ "$(wc -l < log)" -eq 6 ] ||
	fail "per-command hooks: $(cat log)"
rm log
run "$LAUKA" -n 3 --prepare true --prepare true -- true true true
expect_rc 1; expect_err "^error: 2 --prepare options for 3 commands"
# Hooks are quoted like commands and checked before anything runs.
run "$LAUKA" -n 3 --prepare 'rm -f x | true' -- 'touch ran'
expect_rc 1; expect_err "^error: --prepare 'rm -f x | true' contains the shell metacharacter '|'"
run "$LAUKA" -n 3 --cleanup 'no-such-hook-xyz' -- 'touch ran'
expect_rc 127; expect_err "^error: --cleanup not found: 'no-such-hook-xyz'"
run "$LAUKA" -n 3 --setup '' -- 'touch ran'
expect_rc 1; expect_err "^error: option '--setup' needs a value, not an empty string"
[ ! -e ran ] || fail "a command ran despite a bad hook"

# A failing --check marks its sample failed, the table counts them, lauka exits with the first
# failing check's code after printing every table.
cat > check.sh <<'EOS'
#!/bin/sh
[ "$LAUKA_RUN_INDEX" != 2 ] || exit 7
EOS
chmod +x check.sh
run "$LAUKA" --backend rusage --color never -n 4 --check ./check.sh --json c.json -- true 'sleep 0.001'
expect_rc 7
expect_err "^error: --check './check.sh' failed with exit code 7 after run 2 of command 1 'true'$"
expect_err "after run 2 of command 2 'sleep 0.001'$"
expect_out '^Benchmark 2 (4 runs): sleep 0.001$'
[ "$(printf '%s\n' "$out" | grep -c '^checks: 3 of 4 passed$')" -eq 2 ] || fail "check counts: $out"
grep -q '"checks": {"passed": 3, "total": 4, "samples": \[true, false, true, true\]}' c.json ||
	fail "check verdicts not exported: $(cat c.json)"
# A command's own failure takes precedence over a failing check.
run "$LAUKA" -n 3 --backend rusage --check ./check.sh -- true "sh -c 'exit 9'"
expect_rc 9

# A failing setup or prepare stops that command with a clear error; the others still run.
run "$LAUKA" -n 3 --backend rusage --setup "sh -c '[ \$LAUKA_COMMAND_INDEX != 1 ] || { echo setup broke >&2; exit 4; }'" -- true 'sleep 0.001'
expect_rc 4
expect_err "^error: --setup 'sh -c .*' of command 1 failed with exit code 4$"
expect_err 'setup broke'
expect_err '^lauka: command 1 stopped$'
printf '%s\n' "$out" | grep -q '^Benchmark 1' && fail "command 1 was measured although its setup failed"
expect_out '^Benchmark 2 (3 runs): sleep 0.001$'
run "$LAUKA" -n 3 --backend rusage --prepare "sh -c '[ \$LAUKA_RUN_INDEX != 2 ] || exit 6'" --json p.json -- true
expect_rc 6
expect_err "^error: --prepare 'sh -c .*' of command 1 failed with exit code 6$"
expect_out '^Benchmark 1 (1 run): true$'
grep -q '"exit_code": 6, "failed_step": "prepare", "runs": 1' p.json || fail "prepare failure not exported: $(cat p.json)"

# Ctrl-C during a hook ends it, and nothing more starts.
printf '#!/bin/sh\ntouch in-prepare\nexec sleep 20\n' > slow.sh; chmod +x slow.sh
"$LAUKA" -n 3 --backend rusage --prepare ./slow.sh -- 'touch ran' > o.txt 2> e.txt &
pid=$!
i=0
while [ ! -e in-prepare ]; do i=$((i + 1)); [ $i -gt 100 ] && { kill -9 $pid; fail "prepare never ran"; }; sleep 0.1; done
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "expected 130 after Ctrl-C in a hook, got $rc: $(cat e.txt)"
[ ! -e ran ] || fail "the command started after Ctrl-C"
exit 0
