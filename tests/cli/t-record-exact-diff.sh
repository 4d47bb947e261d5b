# record: exact counts (valgrind's) show their change in counts beside the percentage, in the table and the Markdown export: a change of a few instructions in millions is real, and "+0.0%" hid it
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v valgrind >/dev/null || skip "valgrind is not installed"
probe="$LAUKA_BUILD/lauka-probe"
# alu N retires the same instructions per iteration: 10 fewer iterations are a fixed number fewer Ir,
# which the JSON export's samples give (the truth here: lauka's table is checked against them).
run "$LAUKA" record --backend valgrind -n 1 -m Ir --color never --export-json r.json --export-markdown r.md -- \
	"$probe alu 1000000" "$probe alu 999990" "$probe alu 1000000"
expect_rc 0
want=$(python3 -c 'import json
c = json.load(open("r.json"))["commands"]
ir = [[m for m in x["measurements"] if m["name"] == "Ir"][0]["samples"][0] for x in c]
print(int(ir[1] - ir[0]), int(ir[2] - ir[0]))') || fail "no Ir samples in the JSON: $(cat r.json)"
d1=${want% *} d2=${want#* }
[ "$d1" -lt 0 ] || fail "alu 999990 should retire fewer Ir than alu 1000000: $want"
[ "$d2" -eq 0 ] || fail "the same command twice gave different Ir: $want"
row2=$(row_of 2 Ir) row3=$(row_of 3 Ir)
printf '%s\n' "$row2" | grep -q "%.* ($d1)\$" || fail "table: no exact change ($d1) beside the percentage: $row2"
printf '%s\n' "$row3" | grep -q "%.* (0)\$" || fail "table: no '(0)' for identical counts: $row3"
grep -q "alu 999990 | Ir | .*% \\[.*\\] ($d1) |" r.md || fail "Markdown: no exact change ($d1): $(cat r.md)"
row1=$(row_of 1 Ir)
printf '%s\n' "$row1" | grep -q '([-+0-9]*)$' && fail "the reference has no change to show: $row1"
# A measured time is not exact: no count beside its percentage.
printf '%s\n' "$(row_of 2 wall_time)" | grep -q '([-+0-9]*)$' && fail "wall_time got an exact change: $(row_of 2 wall_time)"
exit 0
