# record: on a terminal, a progress indicator goes to stderr and colours are on unless NO_COLOR
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
# Not a terminal: neither progress nor colour.
run "$LAUKA" -n 3 -- true
printf '%s' "$err" | grep -q 'run 3/3' && fail "progress written to a non-terminal"
exit 0
