# probes under valgrind: alu gives Ir = 2n + c exactly, chase one D1/LL read miss per step, branch 0.5 mispredicts
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
P="$LAUKA_BUILD/lauka-probe"

# The same flags as the valgrind backend; a fixed environment; stdout to /dev/null.
totals() { # probe args... -> "Ir I1mr ... Bim" of the summary line
	env -i PATH=/usr/bin:/bin valgrind -q --command-line-only=yes --tool=cachegrind --cache-sim=yes \
		--branch-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 \
		--cachegrind-out-file=cg.out "$P" "$@" >/dev/null 2>vg.err || fail "valgrind failed: $(cat vg.err)"
	sed -n 's/^summary: //p' cg.out
}
field() { printf '%s\n' "$1" | awk -v i="$2" '{print $i}'; }

a1=$(totals alu 1000000); a2=$(totals alu 2000000); a3=$(totals alu 3000000)
ir1=$(field "$a1" 1); ir2=$(field "$a2" 1); ir3=$(field "$a3" 1)
[ $((ir2 - ir1)) -eq 2000000 ] || fail "alu: Ir(2e6) - Ir(1e6) = $((ir2 - ir1)), want 2000000"
[ $((ir3 - ir2)) -eq 2000000 ] || fail "alu: Ir(3e6) - Ir(2e6) = $((ir3 - ir2)), want 2000000"
c=$((ir1 - 2000000))
[ "$c" -gt 0 ] && [ "$c" -lt 1000000 ] || fail "alu: implausible constant $c"
# nothing else moves with n: no data access, one predicted loop branch
[ $(($(field "$a2" 4) - $(field "$a1" 4))) -eq 0 ] || fail "alu reads memory: $a1 / $a2"
[ $(($(field "$a2" 10) - $(field "$a1" 10))) -eq 1000000 ] || fail "alu: not one conditional branch per iteration"
[ $(($(field "$a2" 11) - $(field "$a1" 11))) -eq 0 ] || fail "alu: the loop branch mispredicts"

# chase over 32 MiB (4x the simulated LL): 3 instructions, one read, one D1 and one LL read miss per step
# (give or take a few dozen: printf of numbers with more digits)
c1=$(totals chase 500000 32M); c2=$(totals chase 1000000 32M)
d=$(($(field "$c2" 1) - $(field "$c1" 1)))
[ "$d" -ge 1500000 ] && [ "$d" -le 1500100 ] || fail "chase: +$d instructions for 500000 more steps"
for f in 4:500000 5:500000 6:500000 10:500000; do
	got=$(($(field "$c2" ${f%%:*}) - $(field "$c1" ${f%%:*}) - ${f#*:}))
	[ "$got" -ge -50 ] && [ "$got" -le 50 ] || fail "chase field ${f%%:*}: off by $got for 500000 more steps"
done

# branch: about half of the LCG branches mispredict
b1=$(totals branch 500000); b2=$(totals branch 1000000)
m=$(($(field "$b2" 11) - $(field "$b1" 11)))
[ "$m" -gt 240000 ] && [ "$m" -lt 260000 ] || fail "branch: $m mispredicts for 500000 iterations"
