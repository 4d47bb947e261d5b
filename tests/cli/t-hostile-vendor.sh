# Vendor JSON tables are untrusted (audit 5, D-5, D-6, D-12-D-15): control characters (C0, DEL, C1),
# NUL and invalid UTF-8 refused with one error line naming the code point, never shown raw; names
# capped at 255 bytes, files at 65,536 events; a catalogue name from a file name held the same way
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
refused() {	# file, what the error says
	run "$LAUKA" counters --import "$1"
	expect_rc 2
	expect_err "$2"
	[ "$(printf '%s\n' "$err" | grep -c '^error:')" -eq 1 ] || fail "not one error line: $err"
	printf '%s' "$err" | LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" && fail "a control character reached stderr: $err"
	return 0
}
printf '{"Header":{"Info":"x\\u001b]0;pwned\\u0007"},"Events":[{"EventName":"EV\\u001b[31mRED.X","Counter":"0","BriefDescription":"\\u001b[2J\\r"}]}' > esc.json
refused esc.json "esc.json' is not an Intel perfmon event file: line 1: control character U+001B in a string"
printf '{"Events":[{"EventName":"A.B","Counter":"0","EventCode":"0x\\nfix: sudo rm -rf ~"}]}' > nl.json
refused nl.json "control character U+000A"
printf '{"Events":[{"EventName":"A.B\\u0085","Counter":"0"}]}' > c1.json
refused c1.json "control character U+0085"
printf '{"Events":[{"EventName":"A.B\377","Counter":"0"}]}' > utf.json
refused utf.json "not valid UTF-8"
printf '{"cpu":"x\\u0007","counters":6,"events":[{"code":17,"name":"CPU_CYCLES"}]}' > arm-bel.json
refused arm-bel.json "is not an Arm PMU event file: line 1: control character U+0007"
python3 -c 'print("{\"Events\":[{\"EventName\":\"%s\",\"Counter\":\"0\"}]}" % ("A" * 300))' > long.json
refused long.json "is 300 bytes long; at most 255 are allowed"
python3 -c 'import json; print(json.dumps({"Events":[{"EventName":"E%d"%i,"Counter":"0"} for i in range(70000)]}))' > many.json
refused many.json "more than 65536 events (lauka's limit)"
cp nl.json "$(printf 'a\033[2Jb.json')"
sed -i 's/\\n//' "$(printf 'a\033[2Jb.json')"
refused "$(printf 'a\033[2Jb.json')" "the catalogue name taken from the file's name contains a control character"
# a name that would clash with one of lauka's own catalogues (it was shadowed by the backend's)
printf '{"Events":[{"EventName":"A.B","Counter":"0"}]}' > valgrind.json
refused valgrind.json "the catalogue name taken from the file's name is the name of one of lauka's own catalogues"
truncate -s 70M big.json	# sparse: refused by its size before a byte is read
refused big.json "cannot read '.*big.json': larger than 64 MiB (lauka's limit)"
run "$LAUKA" counters
for f in esc nl c1 utf arm-bel long many big; do
	printf '%s\n' "$out" | grep -q "^ *$f " && fail "$f was imported anyway: $out"
done
# An Intel file that mentions "events" (not a top-level key) is still read as Intel's.
printf '{"Header":{"Info":"all the events"},"Events":[{"EventName":"A.B","Counter":"0","BriefDescription":"counts \\"events\\""}]}' > intel-x.json
run "$LAUKA" counters --import intel-x.json
expect_rc 0
expect_out 'imported intel-x'
exit 0
