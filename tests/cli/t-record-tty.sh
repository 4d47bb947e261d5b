# record: on a terminal, a progress indicator goes to stderr and colours are on unless NO_COLOR; a command stopped on the terminal is killed, not waited for
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v script >/dev/null || skip "script(1) from util-linux is missing"
script -qec "$LAUKA -n 3 -- 'sleep 0.05'" /dev/null > tty.txt 2>&1 || fail "lauka failed under a pty: $(cat tty.txt)"
grep -q '\[1/1\] run 3/3' tty.txt || fail "no progress indicator: $(cat -v tty.txt)"
grep -q "$(printf '\033')\[92m" tty.txt || fail "no colour on a terminal"
NO_COLOR=1 script -qec "$LAUKA -n 3 -- true" /dev/null > tty2.txt 2>&1
grep -q "$(printf '\033')\[92m" tty2.txt && fail "colour despite NO_COLOR"
# A dumb terminal (Emacs shell, CI log viewers) takes neither \r nor escapes.
TERM=dumb script -qec "$LAUKA -n 3 -- true" /dev/null > tty3.txt 2>&1
grep -q "$(printf '\033')" tty3.txt && fail "escape sequences on TERM=dumb: $(cat -v tty3.txt)"
grep -q "$(printf '\r')\[" tty3.txt && fail "progress on TERM=dumb: $(cat -v tty3.txt)"
# An ETA appears once a run has been timed.
script -qec "$LAUKA -n 3 -- 'sleep 0.3'" /dev/null > tty4.txt 2>&1
grep -q 'run 3/3  ETA [0-9]' tty4.txt || fail "no ETA in the progress line: $(cat -v tty4.txt)"
# A command that touches the terminal from its background process group is stopped by the kernel
# (SIGTTIN reading it, SIGTTOU changing its settings) and nothing would continue it: lauka kills it
# and says why, instead of waiting for ever (which it did; hence the timeout).
for c in "head -c1 /dev/tty:SIGTTIN:read from the terminal" "stty -F /dev/tty -echo:SIGTTOU:changed the terminal's settings"; do
	cmd=${c%%:*} rest=${c#*:}
	sig=${rest%%:*} why=${rest#*:}
	for so in "" --show-output; do
		timeout 60 script -qec "$LAUKA $so -n 3 -- '$cmd'; echo rc=\$?" /dev/null > stop.txt 2>&1 ||
			fail "$so '$cmd' on a terminal: lauka did not return within 60 s: $(cat -v stop.txt)"
		grep -q "error: command 1 '$cmd' was stopped by $sig and killed: it $why" stop.txt ||
			fail "$so '$cmd': no error naming $sig: $(cat -v stop.txt)"
		grep -q "^tip: .*pagers off" stop.txt || fail "$so '$cmd': no tip: $(cat -v stop.txt)"
		grep -q "^rc=137" stop.txt || fail "$so '$cmd': exit code not the killed command's 137: $(cat -v stop.txt)"
	done
done
# Ctrl-Z style stops are job control, not the terminal: a command that stops itself and is continued
# by another process finishes normally.
timeout 60 script -qec "$LAUKA -n 3 -- 'sh -c \"(sleep 0.2; kill -CONT \\\$\\\$) & kill -STOP \\\$\\\$\"'; echo rc=\$?" /dev/null > cont.txt 2>&1 ||
	fail "a stopped and continued command: lauka did not return: $(cat -v cont.txt)"
grep -q "^rc=0" cont.txt || fail "a stopped and continued command failed: $(cat -v cont.txt)"

# Not a terminal: neither progress nor colour.
run "$LAUKA" -n 3 -- true
printf '%s' "$err" | grep -q 'run 3/3' && fail "progress written to a non-terminal"
exit 0
