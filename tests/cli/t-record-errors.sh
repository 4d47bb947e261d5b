# record: every documented usage error and exit code, with one clear error line
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

run "$LAUKA" -n 2 -- true
expect_rc 1; expect_err '^error: minimum runs is 3 for the [a-z]* backend (got 2)$'; expect_err '^fix: use -n 3 or higher'
expect_no_out
run "$LAUKA" record --runs=1 -- true
expect_rc 1; expect_err 'minimum runs is 3 for the [a-z]* backend (got 1)'
run "$LAUKA" record --runs=0 -- true
expect_rc 1; expect_err 'minimum runs is 1 (got 0)'
# Its fix is one the default backend takes (it suggested -n 1, which a sampled backend refuses).
n=$(printf '%s\n' "$err" | sed -n 's/^fix: use -n \([0-9]*\) or higher.*/\1/p')
[ -n "$n" ] || fail "no -n N in the fix: $err"
run "$LAUKA" record -n "$n" -- true
expect_rc 0
run "$LAUKA" -n abc -- true
expect_rc 1; expect_err "invalid number of runs 'abc'"
run "$LAUKA" --warmup -1 -- true
expect_rc 1; expect_err "invalid number of warm-up runs"

run "$LAUKA" -- "echo 'unterminated"
expect_rc 1; expect_err '^error: unbalanced quote'; expect_no_out
run "$LAUKA" -- 'ls | wc -l'
expect_rc 1; expect_err "shell metacharacter '|'"; expect_err "^fix: run it through a shell: lauka -S sh -- 'ls | wc -l'"
# The fix is one command line a shell takes as it is, quotes inside quotes included (issue 31 D-18).
run "$LAUKA" --backend rusage -n 3 -- "echo 'a # b' # c"
expect_rc 1
fixcmd=$(printf '%s\n' "$err" | sed -n 's/^fix: run it through a shell: lauka \(.*\) (-S sh runs every command through sh)$/\1/p')
[ -n "$fixcmd" ] || fail "no fix line: $err"
eval "run \"\$LAUKA\" --backend rusage -n 3 $fixcmd"
expect_rc 0
run "$LAUKA" -- 'echo $HOME'
expect_rc 1; expect_err "shell metacharacter '\\$'"
run "$LAUKA" -- 'true > out.txt'
expect_rc 1; [ ! -e out.txt ] || fail "a redirection was performed"

run "$LAUKA" -n 3
expect_rc 1; expect_err '^error: no command to measure'
run "$LAUKA" --
expect_rc 1; expect_err 'no command to measure'
run "$LAUKA" -n 3 true
expect_rc 1; expect_err "missing '--' before the command 'true'"
run "$LAUKA" -- myapp --flag 1
expect_rc 1; expect_err "looks like an argument"; expect_err "lauka -- 'myapp --flag 1'"
run "$LAUKA" --bogus -- true
expect_rc 1; expect_err "^error: unknown option '--bogus'"
run "$LAUKA" --color sometimes -- true
expect_rc 1; expect_err "invalid --color 'sometimes'"
run "$LAUKA" -- ''
expect_rc 1; expect_err 'command 1 is empty'
# An empty word is an empty command, not an argument of the one before.
run "$LAUKA" -- true ''
expect_rc 1; expect_err '^error: command 2 is empty$'
printf '%s\n' "$err" | grep -q 'looks like an argument' && fail "the empty command was called an argument: $err"
run "$LAUKA" frobnicate
expect_rc 1; expect_err "unknown verb 'frobnicate'"
run "$LAUKA" recrod -- true
expect_rc 1; expect_err "did you mean 'lauka record'"

# Unknown measurement: usage error naming close names, before anything runs.
run "$LAUKA" -m wall_tme -- 'touch ran'
expect_rc 1; expect_err "^error: unknown measurement 'wall_tme'"; expect_err "did you mean 'wall_time'"
[ ! -e ran ] || fail "the command ran despite a usage error"
# A name of another backend: say which backend has it.
run "$LAUKA" -m D1mr -- true
expect_rc 1; expect_err "'D1mr' is a valgrind event: add --backend valgrind"
run "$LAUKA" -m , -- true
expect_rc 1; expect_err "no measurement named"
run "$LAUKA" --backend nope -- true
expect_rc 1; expect_err "unknown backend 'nope'"
# An empty value is an error, not the default.
for o in --backend --db --measurements --export-json; do
	run "$LAUKA" $o '' -- 'touch ran'
	expect_rc 1; expect_err "^error: option '.*' needs a value, not an empty string$"
done
[ ! -e ran ] || fail "a command ran despite an empty option value"

# Commands that cannot start: 127 / 126, one line, no table.
run "$LAUKA" -- 'no-such-command-xyz --flag'
expect_rc 127; expect_err "^error: command not found: 'no-such-command-xyz'$"; expect_no_out
run "$LAUKA" -- './missing-binary'
expect_rc 127; expect_no_out
printf 'echo hi\n' > notexec.sh; chmod 644 notexec.sh
run "$LAUKA" -- './notexec.sh'
expect_rc 126; expect_err "not executable: './notexec.sh'"; expect_no_out
mkdir adir
run "$LAUKA" -- './adir'
expect_rc 126
# The second command is checked before the first one runs.
run "$LAUKA" -- 'touch first-ran' 'no-such-command-xyz'
expect_rc 127; [ ! -e first-ran ] || fail "first command ran although the second cannot start"
exit 0
