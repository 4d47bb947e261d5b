# cross-check: valgrind counts equal raw callgrind run by hand with lauka's options (4-process sh -c, summed here with awk), and raw cachegrind without superblock chasing
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
P="$LAUKA_BUILD/lauka-probe"
EV="Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim"

# Raw runs: vg_pinned (tests/cli/lib.sh) starts valgrind as doc/valgrind.md documents lauka does.
SIM="-q --command-line-only=yes --vgdb=no --cache-sim=yes --branch-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 --trace-children=yes"
DUMPS="--combine-dumps=yes --dump-before=fork --dump-before=__libc_fork --dump-before=__fork --dump-before=_Fork --dump-before=vfork --dump-before=__vfork --dump-before=__libc_vfork --dump-before=__spawni"
pinned() { vg_pinned "$@"; }
# The counts of every file in dir $1, added up here, in the order of $EV: each part's summary: and
# totals: lines zipped by name with the events: line before them (callgrind omits trailing zeros),
# the larger of the two per event (summary: lacks signal handlers' work, totals: the blocks callgrind
# never attributes to a function: see 3. below), summed over parts and files.
sum_dir() { cat "$1"/* | awk -v want="$EV" '
	function flush(  e, v) {
		for (e in S) { v = S[e]; if ((e in T) && T[e] > v) v = T[e]; tot[e] += v }
		for (e in T) if (!(e in S)) tot[e] += T[e]
		split("", S); split("", T)
	}
	/^events:/ { flush(); n = split($0, ev, " "); next }
	/^summary:/ { for (i = 2; i <= n; i++) S[ev[i]] = $i + 0 }
	/^totals:/ { for (i = 2; i <= n; i++) T[ev[i]] = $i + 0 }
	END { flush(); k = split(want, w, " "); for (i = 1; i <= k; i++) printf "%s%d", (i > 1 ? " " : ""), tot[w[i]]; print "" }'; }
# lauka's count of every event of command block $1 of j.json, in the order of $EV (the median of its
# runs; they are equal).
lauka_counts() { for e in $EV; do awk -v c="$1" -v e="$e" '/"command":/{n++} n==c && index($0, "\"name\": \"" e "\"") {
	sub(/.*"median": /, ""); sub(/,.*/, ""); printf "%s ", $0; exit }' j.json; done | sed 's/ $//'; echo; }
pick() { printf '%s\n' "$1" | awk -v i="$2" '{print $i}'; }

# 1. Four processes: sh and three probes (fork + exec each), every event exactly equal. (sh's count
#    depends on when its children's SIGCHLD arrives; under valgrind a child takes far longer to start
#    than sh takes to wait for it, so it arrives during the wait on every run.)
four="$P alu 100000; $P chase 20000 1M; $P branch 20000"
run "$LAUKA" record --color never --backend valgrind -m $(echo $EV | tr ' ' ,) --json j.json -- "sh -c '$four'"
expect_rc 0
rm -rf cl && mkdir cl
pinned valgrind $SIM --tool=callgrind $DUMPS --callgrind-out-file="$PWD/cl/cg.%p.out" sh -c "$four"
[ "$(ls cl | wc -l)" -eq 4 ] || fail "expected 4 per-process files, got: $(ls cl)"
want=$(sum_dir cl); got=$(lauka_counts 1)
[ "$got" = "$want" ] || fail "4-process sh -c: lauka [$got] vs raw callgrind [$want] ($EV)"
echo "4 processes: $EV = $got"
# The same against raw cachegrind (see 2. below; this one command takes signals, see 3.): sh's children exec at once, so no file repeats
# another's counts and cachegrind's per-pid files add up to the same totals.
rm -rf cg && mkdir cg
pinned valgrind $SIM --tool=cachegrind --vex-guest-chase=no --cachegrind-out-file="$PWD/cg/cg.%p.out" sh -c "$four"
cg4=$(sum_dir cg)
same_as_cachegrind() { # label lauka-counts cachegrind-counts [Ir-deficit-min Ir-deficit-max]
	d=$(($(pick "$3" 1) - $(pick "$2" 1)))
	[ "$d" -ge "${4:-0}" ] && [ "$d" -le "${5:-0}" ] ||
		fail "$1: Ir lauka $(pick "$2" 1) vs cachegrind $(pick "$3" 1), $d short (allowed ${4:-0}..${5:-0})"
	for i in 4 7 10 11 12 13; do
		[ "$(pick "$2" $i)" = "$(pick "$3" $i)" ] ||
			fail "$1: $(pick "$EV" $i) lauka $(pick "$2" $i) vs cachegrind $(pick "$3" $i) (lauka [$2], cachegrind [$3])"
	done
	for pair in 2:3 5:6 8:9; do
		a=${pair%:*} b=${pair#*:}
		[ $(($(pick "$2" $a) + $(pick "$2" $b))) -eq $(($(pick "$3" $a) + $(pick "$3" $b))) ] ||
			fail "$1: $(pick "$EV" $a) + $(pick "$EV" $b) lauka [$2] vs cachegrind [$3]"
	done
}
# sh takes a SIGCHLD per child: see 3.
same_as_cachegrind "4-process sh -c" "$got" "$cg4" 0 8
echo "4 processes, raw cachegrind: $cg4"

# 2. A program that does not fork, against raw cachegrind with the same simulation and
#    --vex-guest-chase=no (callgrind never chases superblocks; cachegrind by default does, and then
#    counts instructions behind taken branches that never ran). Every event equal, except that
#    callgrind counts a read-modify-write of one location as a write and cachegrind as a read:
#    there Dr + Dw, D1mr + D1mw and DLmr + DLmw are equal.
for cmd in "$P chase 20000 1M" "$P store 20000 1M" "sort -n /etc/passwd"; do
	run "$LAUKA" record --color never --backend valgrind -m $(echo $EV | tr ' ' ,) --json j.json -- "$cmd"
	expect_rc 0
	rm -rf cg && mkdir cg
	pinned valgrind $SIM --tool=cachegrind --vex-guest-chase=no --cachegrind-out-file="$PWD/cg/cg.%p.out" $cmd
	want=$(sum_dir cg); got=$(lauka_counts 1)
	same_as_cachegrind "$cmd" "$got" "$want"
	echo "$cmd: lauka [$got] cachegrind [$want]"
done

# 3. Signals. Callgrind's summary: leaves out the work of signal handlers; its totals: has it but
#    lacks the 2 instructions (Ir only) of each signal return and of the final exit system call,
#    which it never attributes to a function; lauka takes the larger. 10 signals: 22 Ir short, the
#    rest exact. (The forker raises SIGUSR1 10 times, each handled by a 100-iteration loop.)
CC=${CC:-cc}
if command -v "$CC" >/dev/null 2>&1 && "$CC" -O1 -o forker "$LAUKA_SRCDIR/tests/fixtures/valgrind/forker.c" 2>cc.err; then
	cmd="./forker 1000 10 signal"
	run "$LAUKA" record --color never --backend valgrind -m $(echo $EV | tr ' ' ,) --json j.json -- "$cmd"
	expect_rc 0
	got=$(lauka_counts 1)
	rm -rf cl && mkdir cl
	pinned valgrind $SIM --tool=callgrind $DUMPS --callgrind-out-file="$PWD/cl/cg.%p.out" $cmd
	[ "$got" = "$(sum_dir cl)" ] || fail "$cmd: lauka [$got] vs raw callgrind [$(sum_dir cl)]"
	rm -rf cg && mkdir cg
	pinned valgrind $SIM --tool=cachegrind --vex-guest-chase=no --cachegrind-out-file="$PWD/cg/cg.%p.out" $cmd
	same_as_cachegrind "$cmd" "$got" "$(sum_dir cg)" 22 22
	echo "$cmd: lauka [$got] cachegrind [$(sum_dir cg)]"
else
	echo "no C compiler ($CC): the signal cross-check is left out"
fi
exit 0
