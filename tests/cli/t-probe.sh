# lauka-probe: probe list, scale notation, usage errors, chase cycle and branch split
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
P="$LAUKA_BUILD/lauka-probe"
[ -x "$P" ] || fail "lauka-probe was not built"

run "$P" list
expect_rc 0
for p in alu chase branch store; do expect_out "^$p "; done

# Scale notation: integers and e-notation that give whole numbers.
for s in 1000:1000 1e3:1000 2.5e6:2500000 1E2:100 7:7; do
	run "$P" alu "${s%%:*}"
	expect_rc 0; expect_out "^alu ${s#*:} iterations$"
done
for s in 0 -5 1.5 1e 2.55e1 abc 1e40 ''; do
	run "$P" alu "$s"
	expect_rc 1; expect_err "invalid scale"
done
run "$P"; expect_rc 1; expect_err usage
run "$P" nope 10; expect_rc 1; expect_err "unknown probe 'nope'"
run "$P" alu 10 1M; expect_rc 1; expect_err "takes no buffer size"
run "$P" chase 10 12Q; expect_rc 1; expect_err "invalid buffer size"

# chase: 1 MiB = 8192 slots of 128 bytes; one lap (8192 steps) returns to slot 0,
# and no shorter walk does (the stride is odd, so the cycle covers every slot).
run "$P" chase 8192 1M
expect_rc 0; expect_out "over 8192 slots of 128 bytes, ended at slot 0$"
for s in 1 2 4096 8191; do
	run "$P" chase $s 1M
	printf '%s\n' "$out" | grep -q 'ended at slot 0$' && fail "chase returned to slot 0 after $s steps"
done
run "$P" store 8192 1M
expect_rc 0; expect_out "ended at slot 0$"

# branch: the LCG top bit splits evenly (within 0.1% over 1e6 iterations).
run "$P" branch 1e6
expect_rc 0
taken=$(printf '%s\n' "$out" | sed -n 's/.*iterations, \([0-9]*\) taken.*/\1/p')
[ "$taken" -gt 499000 ] && [ "$taken" -lt 501000 ] || fail "uneven branch split: $out"
