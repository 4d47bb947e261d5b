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
# record warns only about events calibration contradicted, not silent or validated ones
run "$LAUKA" record --backend valgrind -m Bi,Ir -- "$LAUKA_BUILD/lauka-probe alu 10"
expect_rc 0
[ -z "$err" ] || fail "record warned about a silent or validated event: $err"

# A wrong expectation (LAUKA_EXPECTATIONS replaces the built-in table): Ir off by 50%, and record warns.
printf 'valgrind\tIr\talu\t4\t0.001\nvalgrind\tBc\talu\tlinear\t-\n' > exp.tsv
run env LAUKA_EXPECTATIONS=exp.tsv "$LAUKA" calibrate --backend valgrind --quick
expect_rc 0
printf '%s\n' "$out" | grep -qE '^Ir +off by 50% ' || fail "Ir not off by 50%: $out"
printf '%s\n' "$out" | grep -qE '^Bc +validated ' || fail "Bc not validated as linear: $out"
printf '%s\n' "$out" | grep -qE '^Dr +linear ' || fail "Dr has no expectation now: $out"
expect_out ' 1 validated, 1 failed, '
run "$LAUKA" record --backend valgrind -m Ir -- "$LAUKA_BUILD/lauka-probe alu 10"
expect_rc 0
expect_err "'Ir' failed calibration on this machine (off by 50%)"
printf 'valgrind\tIr\talu\tfour\t0.1\n' > bad.tsv
run env LAUKA_EXPECTATIONS=bad.tsv "$LAUKA" calibrate --backend valgrind --quick
expect_rc 2; expect_err "bad.tsv: line 1: expectation 'four' is not a number"
exit 0
