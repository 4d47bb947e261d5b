# record on a terminal: the table fits the terminal's width (80 and 200 columns, on a pty), the delta under its row when it must; a pipe or a file gets the full form; the progress line names the command, moves during a long run and fits too
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v python3 >/dev/null || skip "python3 is needed for the pseudo-terminal"
P="$LAUKA_BUILD/lauka-probe"
# Two commands, so every row has a delta; wall_time's interval is the widest cell.
set -- --color never -n 3 -- 'sleep 0.01' "$P alu 1e5"
on_pty() { # columns lauka-args...: the table lauka prints on a terminal that wide (progress lines dropped)
	cols=$1; shift
	PTY_COLS=$cols timeout 120 python3 "$LAUKA_SRCDIR/tests/cli/pty-drive.py" 100 '[]' -- "$LAUKA" "$@" > pty.raw 2>&1 ||
		fail "pty: $(cat -v pty.raw)"
	grep -q '^RC=0$' pty.raw || fail "lauka failed on the pty: $(cat -v pty.raw)"
	sed 's/.*\x1b\[K//; /^RC=/d' pty.raw
}
# Columns a line takes, measured by python (East Asian Wide and emoji count 2), not by lauka's own rule.
widest() { python3 -c '
import sys, unicodedata
def cols(s):
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 0 if unicodedata.combining(ch) else 1 for ch in s)
print(max(cols(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8") if not l.startswith("Benchmark")))' "$1"; }

"$LAUKA" "$@" > pipe.txt 2>/dev/null || fail "lauka failed on a pipe"
full=$(widest pipe.txt)
[ "$full" -gt 80 ] || fail "the full form is only $full columns: this test needs a wider table"
# The delta beside its row: a second percentage after the outliers' (its form, "± 1.4%" or
# "[-29.1%, -3.7%]", depends on the noise of the runs).
awk '/^wall_time / && gsub(/%/, "%") >= 2 { found = 1 } END { exit !found }' pipe.txt ||
	fail "a pipe lost the delta beside its row: $(cat pipe.txt)"

on_pty 80 "$@" > t80.txt
w=$(widest t80.txt)
[ "$w" -le 80 ] || fail "80 columns: the table is $w wide:
$(cat t80.txt)"
# The same rows and numbers (runs differ in time, so compare the measurement names and deltas' presence).
awk '/^Benchmark 2/ { on = 1 } on && /^[a-z_-]+ / { print $1 }' t80.txt > names80
awk '/^Benchmark 2/ { on = 1 } on && /^[a-z_-]+ / { print $1 }' pipe.txt > namespipe
cmp -s names80 namespipe || fail "80 columns shows other rows: $(cat names80) vs $(cat namespipe)"
[ "$(grep -c '%' t80.txt)" -ge "$(grep -c '%' pipe.txt)" ] || fail "80 columns lost deltas: $(cat t80.txt)"
grep -q '^ *delta$' t80.txt || fail "80 columns: no 'delta' heading under the mean column: $(cat t80.txt)"

on_pty 200 "$@" > t200.txt
w=$(widest t200.txt)
[ "$w" -le 200 ] || fail "200 columns: the table is $w wide"
# The full form, as on a pipe: columns at their minimum widths with gaps of 3, the delta beside.
grep -q 'outliers    delta$' t200.txt || fail "200 columns: not the full form:
$(cat t200.txt)"
grep -q 'outliers    delta$' pipe.txt || fail "a pipe: not the full form: $(cat pipe.txt)"
awk '/^wall_time / && gsub(/%/, "%") >= 2 { found = 1 } END { exit !found }' t200.txt ||
	fail "200 columns: the delta is not beside its row: $(cat t200.txt)"

# A file keeps the full form whatever COLUMNS says.
COLUMNS=40 "$LAUKA" "$@" > file.txt 2>/dev/null
[ "$(widest file.txt)" -gt 80 ] || fail "COLUMNS=40 narrowed a file's table: $(cat file.txt)"

# The progress line: "[1/1] run 1/3: COMMAND", redrawn about once a second during a run with the
# run's time so far; on a 40-column terminal every drawn line is cut to 39 columns: the command, not
# the numbers that move.
long="sleep 3 # $(printf '%060d' 0)"
PTY_COLS=40 timeout 120 python3 "$LAUKA_SRCDIR/tests/cli/pty-drive.py" 100 '[]' -- \
	"$LAUKA" --color never -n 3 -S sh -- "$long" > prog.raw 2>&1 || fail "pty: $(cat -v prog.raw)"
grep -q '^RC=0$' prog.raw || fail "lauka failed on the pty: $(cat -v prog.raw)"
# Each drawing starts with ESC[K; the last one is followed by the table.
python3 - <<'EOP' || fail "progress: $(cat -v prog.raw | head -c 2000)"
import re, sys
raw = open("prog.raw", encoding="utf-8").read()
draws = [d.split("\n")[0] for d in raw.split("\x1b[K")[1:]]
draws = [d for d in draws if d.startswith("[")]
assert draws, "no progress line"
wide = [d for d in draws if len(d) > 39]
assert not wide, "wider than 39 columns: %r" % wide
assert any(d.startswith("[1/1] run 1/3: sleep 3 #") for d in draws), "the command is not named: %r" % draws
moving = [d for d in draws if re.match(r"\[1/1\] run 1/3: sleep 3 # 0*… +\d+s$", d)]
assert moving, "no redraw during the first run: %r" % draws
EOP
exit 0
