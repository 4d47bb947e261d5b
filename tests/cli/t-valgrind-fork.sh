# valgrind backend: fork()ed children count only their own work (N = 0, 1, 4 forks, vfork, failed posix_spawn)
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler ($CC) to build the forker"
"$CC" -O1 -o forker "$LAUKA_SRCDIR/tests/fixtures/valgrind/forker.c" 2>cc.err || skip "cannot build the forker: $(cat cc.err)"

# About 12 M instructions in the parent, then N children that exit at once. Under cachegrind each
# child's file repeated the parent's counts (N = 1 read 24 M, N = 4 read 60 M).
W=2000000
EV=Ir,Dr,Dw,I1mr,D1mr,D1mw,ILmr,DLmr,DLmw,Bc,Bcm,Bi,Bim
run "$LAUKA" record --color never --backend valgrind -m $EV --json j.json -- \
	"./forker $W 0" "./forker $W 1" "./forker $W 4" "./forker $W 4 vfork" "./forker $W 4 spawn"
expect_rc 0
# min of event $2 in command block $1 (counts are exact: min = max)
val() { awk -v c="$1" -v e="$2" '/"command":/{n++} n==c && index($0, "\"name\": \"" e "\"") {
	sub(/.*"min": /, ""); sub(/,.*/, ""); print; exit }' j.json; }
for e in Ir Dr Dw Bc Bcm D1mr; do
	base=$(val 1 $e)
	[ -n "$base" ] || fail "no $e in the JSON: $(cat j.json)"
	# The growth allowed: each child's own work (fork's return, _exit: about 750 Ir) and the
	# parent's fork and waitpid calls (about 700 Ir each, plus the first call's symbol binding);
	# a failed posix_spawn child resets every signal before its exec fails (about 8000 Ir).
	for c in 2:1:4000 3:4:10000 4:4:10000 5:4:40000; do
		i=${c%%:*}; rest=${c#*:}; n=${rest%%:*}; max=${rest#*:}
		got=$(val $i $e)
		d=$((got - base))
		[ "$d" -ge 0 ] && [ "$d" -le "$max" ] ||
			fail "$e: command $i ($n children) reads $got, $d more than without children (allowed 0..$max)"
	done
	echo "$e: no children $base; 1 fork +$(($(val 2 $e) - base)), 4 forks +$(($(val 3 $e) - base)), 4 vforks +$(($(val 4 $e) - base)), 4 failed spawns +$(($(val 5 $e) - base))"
done
# sanity: the parent's work is all there (2 instructions and 1 conditional branch per iteration, at least)
[ "$(val 1 Ir)" -gt $((6 * W)) ] || fail "Ir $(val 1 Ir) for $W iterations"
exit 0
