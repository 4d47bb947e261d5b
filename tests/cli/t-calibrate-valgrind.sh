# calibrate --backend valgrind --quick validates Ir, D1mr, DLmr, Bcm; counters --details and record see the verdicts
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"

run "$LAUKA" calibrate --backend valgrind --quick
printf '%s\n' "$err" | grep -q "built without the catalogue database" && skip "this lauka has no catalogue database"
expect_rc 0
verdict() { printf '%s\n' "$out" | awk -v e="$1" '$1 == e {print $2}'; }
for e in Ir D1mr DLmr Bcm Dr Bc Dw D1mw DLmw; do
	[ "$(verdict $e)" = validated ] || fail "$e not validated: $(printf '%s\n' "$out" | grep "^$e ")"
done
# Ir responds exactly 2 per alu iteration and 3 per chase step; profiles identify the slots
printf '%s\n' "$out" | grep -qE '^Ir +validated +work-like +2 +3 ' || fail "Ir row: $(printf '%s\n' "$out" | grep '^Ir ')"
printf '%s\n' "$out" | grep -qE '^D1mr +validated +memory-bound-like +0 +1 ' || fail "D1mr row"
printf '%s\n' "$out" | grep -qE '^Bcm +validated +branch-like +0 +0 +0\.5' || fail "Bcm row"
for e in I1mr ILmr Bi Bim; do [ "$(verdict $e)" = silent ] || fail "$e should be silent"; done
expect_out '^13 events: 9 validated, 0 failed, 4 silent'

# The verdicts are in the database: counters shows them, record warns about a silent one.
run "$LAUKA" counters --details --backend valgrind
expect_rc 0
printf '%s\n' "$out" | grep -qE '^Ir .*validated' || fail "counters lacks Ir's verdict: $out"
printf '%s\n' "$out" | grep -qE '^Bi .*silent' || fail "counters lacks Bi's verdict: $out"
run "$LAUKA" record --backend valgrind -m Bi,Ir -- "$LAUKA_BUILD/lauka-probe alu 10"
expect_rc 0
expect_err "'Bi' failed calibration"
printf '%s\n' "$err" | grep -q "'Ir'" && fail "record warned about validated Ir: $err"
exit 0
