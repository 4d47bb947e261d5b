# lauka's callgrind parser gives the self Ir of every function exactly as callgrind_annotate does: whole multi-part files and each part alone
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
command -v callgrind_annotate >/dev/null 2>&1 || skip "callgrind_annotate not installed"
cgf="$LAUKA_BUILD/cg-funcs" work="$LAUKA_BUILD/explain-work"
[ -x "$cgf" ] && [ -x "$work" ] || skip "cg-funcs or explain-work not built"

# Raw valgrind with the dump points lauka uses: a shell that forks (a subshell
# without exec: its file has a part before and after each fork) and children
# that exec (files of their own).
mkdir out
valgrind -q --tool=callgrind --cache-sim=yes --branch-sim=yes --trace-children=yes --combine-dumps=yes \
	--dump-before=fork --dump-before=_Fork --dump-before=__libc_fork --dump-before=vfork \
	--callgrind-out-file="$PWD/out/cg.%p.out" \
	/bin/sh -c "( i=0; while [ \$i -lt 50 ]; do i=\$((i+1)); done ); $work chain 20000 >/dev/null; ( $work branch 30000 >/dev/null ); echo done >/dev/null" \
	>/dev/null 2>valgrind.err || fail "valgrind failed: $(cat valgrind.err)"
nfiles=$(ls out | wc -l)
[ "$nfiles" -ge 3 ] || fail "expected a file per process, got $nfiles"

# callgrind_annotate's flat table as "<Ir> <file>:<function>" (zero rows, shown as ".", left out).
# Two things are set right for it first, each a quirk of callgrind_annotate 3.19, not of the format:
# it takes the cost line after "calls=0" (a call still running when the part was dumped) as the
# caller's self cost, so calls=0 becomes calls=1 (a count it does not show); and it strips the
# current directory from file names, so it runs in /.
annotate() {
	sed 's/^calls=0 /calls=1 /' "$1" > ann.in
	(cd / && callgrind_annotate --threshold=100 --show=Ir --auto=no --show-percs=no "$OLDPWD/ann.in") 2>/dev/null |
		awk '/file:function/ { go = 1; getline; next }
		     go && NF && $1 != "." { n = $1; gsub(",", "", n); $1 = ""; sub(/^ +/, ""); sub(/ \[[^]]*\]$/, ""); print n, $0 }' |
		sort -k2
}
# Per key, a minus b (both "<n> <key>" sorted by key), zero rows left out.
minus() {
	awk 'NR == FNR { k = $0; sub(/^[^ ]+ /, "", k); a[k] += $1; next }
	     { k = $0; sub(/^[^ ]+ /, "", k); a[k] -= $1 }
	     END { for (k in a) if (a[k]) print a[k], k }' "$1" "$2" | sort -k2
}

multipart=0
for f in out/cg.*.out; do
	# The whole file: callgrind_annotate adds every part's cost lines (its header shows the last part's).
	annotate "$f" > want
	"$cgf" "$f" | sort -k2 > got
	[ -s want ] || fail "callgrind_annotate listed nothing for $f"
	cmp -s want got || fail "$f: lauka and callgrind_annotate differ: $(diff want got | head -20)"
	# The sum of the self costs is the sum of the parts' totals: lines (callgrind's own sum of its cost lines).
	tot=$(awk '/^totals:/ { s += $2 } END { print s }' "$f")
	[ "$(awk '{ s += $1 } END { print s }' got)" = "$tot" ] || fail "$f: self costs do not add up to totals: $tot"
	# Each part alone: callgrind_annotate on the file cut after part k, minus the file cut after part k-1
	# (the cut keeps the names earlier parts defined, which later parts refer to by id).
	parts=$(grep -c '^part:' "$f")
	[ "$parts" -gt 1 ] && multipart=$((multipart + 1))
	: > prev
	k=1
	while [ "$k" -le "$parts" ]; do
		awk -v k="$k" '/^part:/ { p = $2 } p <= k' "$f" > cut
		annotate cut > upto
		minus upto prev > want
		"$cgf" "$f" "$k" | sort -k2 > got
		cmp -s want got || fail "$f part $k of $parts: lauka and callgrind_annotate differ: $(diff want got | head -20)"
		mv upto prev
		k=$((k + 1))
	done
done
[ "$multipart" -ge 1 ] || fail "no file had more than one part: the forks were not dumped"

# lauka's own view sums every process's file by function and object; the total is every file's.
"$cgf" -o out/cg.*.out > own
all=$(cat out/cg.*.out | awk '/^totals:/ { s += $2 } END { print s }')
[ "$(awk -F '\t' '{ s += $1 } END { print s }' own)" = "$all" ] || fail "the combined table does not add up to $all"
grep -q "	chain	$work\$" own || fail "chain (in explain-work) missing from the combined table: $(head own)"
exit 0
