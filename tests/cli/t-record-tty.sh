# record: on a terminal, a progress indicator goes to stderr and colours are on unless NO_COLOR; a command stopped on the terminal is killed, not waited for; with --show-output it gets the terminal
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v script >/dev/null || skip "script(1) from util-linux is missing"
# Every script(1) and pty-drive.py reads /dev/null, not the terminal this test may be started from
# (make check typed at a terminal): timeout(1) puts script in a background process group, where
# touching that terminal stops it (SIGTTIN), and the test hung for its 60 s.
script -qec "$LAUKA -n 3 -- 'sleep 0.05'" /dev/null < /dev/null > tty.txt 2>&1 || fail "lauka failed under a pty: $(cat tty.txt)"
grep -q '\[1/1\] run 3/3' tty.txt || fail "no progress indicator: $(cat -v tty.txt)"
grep -q "$(printf '\033')\[92m" tty.txt || fail "no colour on a terminal"
NO_COLOR=1 script -qec "$LAUKA -n 3 -- true" /dev/null < /dev/null > tty2.txt 2>&1
grep -q "$(printf '\033')\[92m" tty2.txt && fail "colour despite NO_COLOR"
# A dumb terminal (Emacs shell, CI log viewers) takes neither \r nor escapes.
TERM=dumb script -qec "$LAUKA -n 3 -- true" /dev/null < /dev/null > tty3.txt 2>&1
grep -q "$(printf '\033')" tty3.txt && fail "escape sequences on TERM=dumb: $(cat -v tty3.txt)"
grep -q "$(printf '\r')\[" tty3.txt && fail "progress on TERM=dumb: $(cat -v tty3.txt)"
# An ETA appears once a run has been timed.
script -qec "$LAUKA -n 3 -- 'sleep 0.3'" /dev/null < /dev/null > tty4.txt 2>&1
grep -q 'run 3/3: sleep 0.3  ETA [0-9]' tty4.txt || fail "no ETA in the progress line: $(cat -v tty4.txt)"
# A command that touches the terminal from its background process group is stopped by the kernel
# (SIGTTIN reading it, SIGTTOU changing its settings) and nothing would continue it: lauka kills it
# and says why, instead of waiting for ever (which it did; hence the timeout).
for c in "head -c1 /dev/tty:SIGTTIN:read from the terminal" "stty -F /dev/tty -echo:SIGTTOU:changed the terminal's settings"; do
	cmd=${c%%:*} rest=${c#*:}
	sig=${rest%%:*} why=${rest#*:}
	timeout 60 script -qec "$LAUKA -n 3 -- '$cmd'; echo rc=\$?" /dev/null < /dev/null > stop.txt 2>&1 ||
		fail "'$cmd' on a terminal: lauka did not return within 60 s: $(cat -v stop.txt)"
	unwrap < stop.txt > stop1.txt && mv stop1.txt stop.txt
	grep -q "error: command 1 '$cmd' was stopped by $sig and killed: it $why" stop.txt ||
		fail "'$cmd': no error naming $sig: $(cat -v stop.txt)"
	grep -q "^tip: .*--show-output.*pagers off" stop.txt || fail "'$cmd': no tip: $(cat -v stop.txt)"
	grep -q "^rc=137" stop.txt || fail "'$cmd': exit code not the killed command's 137: $(cat -v stop.txt)"
done
# A stop that is not the terminal's (SIGSTOP, then SIGCONT from another process) is waited through.
timeout 60 script -qec "$LAUKA -n 3 -- 'sh -c \"(sleep 0.2; kill -CONT \\\$\\\$) & kill -STOP \\\$\\\$\"'; echo rc=\$?" /dev/null < /dev/null > cont.txt 2>&1 ||
	fail "a stopped and continued command: lauka did not return: $(cat -v cont.txt)"
grep -q "^rc=0" cont.txt || fail "a stopped and continued command failed: $(cat -v cont.txt)"

# --show-output on lauka's terminal, lauka in its foreground: the command's group gets the terminal
# for its run, as a shell's job does, so reading it and setting its modes work.
drive() { timeout 90 python3 "$LAUKA_SRCDIR/tests/cli/pty-drive.py" 60 "$@" < /dev/null > pty.txt 2>&1 || fail "pty: $(cat -v pty.txt)"; }
drive '[["", "abc\n", 0.5]]' -- "$LAUKA" --color never --show-output -n 3 -- 'head -c1 /dev/tty'
grep -q 'Benchmark 1 (3 runs): head -c1 /dev/tty' pty.txt && grep -q '^RC=0$' pty.txt ||
	fail "--show-output: a command reading the terminal: $(cat -v pty.txt)"
drive '[]' -- "$LAUKA" --color never --show-output -n 3 -- 'stty -F /dev/tty -echo'
grep -q '^RC=0$' pty.txt || fail "--show-output: a command setting terminal modes: $(cat -v pty.txt)"
# Ctrl-C reaches the command, and lauka stops as at its own Ctrl-C: the blocks so far, exit 130.
drive '[["Benchmark 1", "\u0003", 1.0]]' -- "$LAUKA" --color never --show-output -n 3 -- 'sleep 0.01' "sleep 30.$$"
grep -q '^RC=130$' pty.txt && grep -q 'interrupted' pty.txt && ! grep -q '^Benchmark 2' pty.txt ||
	fail "--show-output: Ctrl-C on the terminal: $(cat -v pty.txt)"
pgrep -f "sleep 30.$$" >/dev/null && fail "--show-output: Ctrl-C left the command running"
# Ctrl-Z stops the command and lauka as one job of an interactive shell; fg continues both.
if command -v bash >/dev/null 2>&1; then
	LAUKA="$LAUKA" python3 - > steps.json <<'EOF'
import json, os
cmd = os.environ["LAUKA"] + " --color never --show-output -n 3 -- 'sleep 0.01' 'sleep 1.5'\n"
print(json.dumps([["[#$] $", cmd, 0.3], ["Benchmark 1", "\x1a", 0.5], ["Stopped", "fg\n", 0.5],
                  ["Benchmark 2[^$]*[#$] $", "echo LAUKA_RC=$?; exit\n", 0.2]]))
EOF
	drive @steps.json -- bash --norc --noprofile -i
	grep -q 'Stopped' pty.txt && grep -q "Benchmark 2 (3 runs): sleep 1.5" pty.txt && grep -q "LAUKA_RC=0$" pty.txt ||
		fail "--show-output: Ctrl-Z and fg under an interactive shell: $(cat -v pty.txt)"
fi

# Not a terminal: neither progress nor colour.
run "$LAUKA" -n 3 -- true
printf '%s' "$err" | grep -q 'run 3/3' && fail "progress written to a non-terminal"
exit 0
