# Names (issue 21): two names of one output file, control characters in baseline names, a baseline's shell
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

# same.json and ./same.json, or a symbolic link to it, once overwrote each other silently.
ln -s same.json link.json
for pair in "--export-json same.json --export-csv ./same.json" "--export-json same.json --export-markdown link.json" \
	"--export-json sub/../same.json --export-csv same.json" "--plot same.json --export-json ./same.json"; do
	mkdir -p sub
	run "$LAUKA" --color never --backend rusage $pair -- true 'sh -c true'
	expect_rc 1
	expect_err "are the same file$"
	[ ! -e same.json ] || fail "$pair: something was written"
done
run "$LAUKA" --color never --backend rusage --export-json a.json --export-csv b.json -- true
expect_rc 0

# Control characters in a baseline name are refused (they could not be shown or typed back).
for name in "$(printf 'a\tb')" "$(printf 'x\033[31m')" "$(printf 'line\nbreak')"; do
	run "$LAUKA" --color never --backend rusage --save-baseline "$name" -- true
	expect_rc 1
	expect_err "^error: --save-baseline name holds a control character (byte 0x"
done
run "$LAUKA" baselines
expect_rc 0
printf '%s\n' "$out" | grep -q '[[:cntrl:]]' && fail "a baseline with a control character was stored: $out"

# The shell a baseline's commands ran under is compared, not only stored.
run "$LAUKA" --color never --backend rusage -S sh --save-baseline shelled -- true
expect_rc 0
run "$LAUKA" --color never --backend rusage --baseline shelled -- true
expect_rc 1
expect_err "^error: baseline 'shelled' ran its commands under the shell 'sh', this run without a shell$"
expect_err "^fix: add -S 'sh'$"
run "$LAUKA" --color never --backend rusage -S sh --baseline shelled -- true
expect_rc 0

# Many catalogues: the list in the "no catalogue named" tip was cut mid-name; whole names and a count now.
mkdir many
for i in $(seq 1 60); do
	sed "s|<string>tiny</string>|<string>catalogue-with-a-rather-long-name-$i</string>|" \
		"$LAUKA_SRCDIR/tests/fixtures/kpep/tiny.plist" >many/c$i.plist
done
run "$LAUKA" counters --import many
expect_rc 0
run "$LAUKA" counters --pmu nosuch
expect_rc 1
tipline=$(printf '%s\n' "$err" | grep '^tip: catalogues there: ')
[ -n "$tipline" ] || fail "no list of catalogues: $err"
printf '%s\n' "$tipline" | grep -q ' and [0-9]* more$' || fail "the list does not say how many more: $tipline"
printf '%s\n' "$tipline" | sed 's/^tip: catalogues there: //; s/ and [0-9]* more$//' | tr ',' '\n' | sed 's/^ //' |
	while read -r name; do
		case $name in catalogue-with-a-rather-long-name-[0-9]*|tiny|linux|valgrind) ;; *) fail "a name cut short: '$name'" ;; esac
	done || exit 1
