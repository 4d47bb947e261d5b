# counters --details on a terminal fits its width (80 columns: descriptions wrapped under their column, or rows
# stacked when the names leave no room); --wide keeps whole lines; a pipe or a file always gets whole lines.
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v python3 >/dev/null || skip "no python3 for the pseudo-terminal"
pmu=
"$LAUKA" version | grep -q '^vendor events: libpfm4' && pmu="--pmu skl"
# shellcheck disable=SC2086
for args in "--details" "$pmu --details"; do
	[ "$args" = " --details" ] && continue
	PTY_COLS=80 python3 "$LAUKA_SRCDIR/tests/cli/pty-drive.py" 60 '[]' -- "$LAUKA" counters $args > tty.txt ||
		fail "pty run of counters $args failed: $(tail -3 tty.txt)"
	grep -q '^RC=0$' tty.txt || fail "counters $args: $(tail -3 tty.txt)"
	# (the table on stdout; notes on stderr are one line each, as every message of lauka's)
	grep -v '^\(note\|tip\|RC=\)' tty.txt > table.txt
	awk 'length($0) > 80 { print "over 80: " $0; bad = 1 } END { exit bad }' table.txt || fail "counters $args on an 80-column terminal"
	"$LAUKA" counters $args > pipe.txt
	n=$("$LAUKA" counters ${args%--details} | wc -l)
	[ "$(wc -l < pipe.txt)" -eq $((n + 1)) ] || fail "counters $args into a file: not one line per event"
	# every event of the file is on the terminal too, and every word of its description
	awk 'NR > 1 { print $1 }' pipe.txt | while read -r name; do
		grep -q "^$name " table.txt || { echo "$name"; break; }
	done | grep -q . && fail "counters $args: an event missing on the terminal"
	tr -s ' \n' '\n\n' < pipe.txt | sort -u > w.pipe
	tr -s ' \n' '\n\n' < table.txt | sort -u > w.tty
	[ -z "$(comm -23 w.pipe w.tty | grep -v '^\(name\|incompat\|verdict\|encoding\|description\)$' | head -1)" ] ||
		fail "counters $args: words lost on the terminal: $(comm -23 w.pipe w.tty | head -3)"
	PTY_COLS=80 python3 "$LAUKA_SRCDIR/tests/cli/pty-drive.py" 60 '[]' -- "$LAUKA" counters $args --wide > wide.txt
	# the note:/tip: lines on stderr wrap to the terminal with an indent (base/text); --wide is the table's
	rows=$(awk '/^(note|tip):/ { msg = 1; next } msg && /^ / { next } { msg = 0 } !/^RC=/ { n++ } END { print n + 0 }' wide.txt)
	[ "$rows" -eq $((n + 1)) ] || fail "counters $args --wide: not one line per event"
done
awk 'length($0) > 80 { found = 1 } END { exit !found }' pipe.txt || skip "no description wider than 80 columns to check"
exit 0
