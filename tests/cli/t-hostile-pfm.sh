# Event names bounded before libpfm4 (issue 31 D-2): 65 ':' modifiers once crashed lauka inside the library, 20,000 took seconds in the suggestion search.
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

# (no ulimit -v under ASan, whose shadow memory needs terabytes of address space)
asan=0
nm "$LAUKA" 2>/dev/null | grep -q __asan_init && asan=1
lim=$([ $asan = 1 ] && echo : || echo "ulimit -v 262144")
many() { python3 -c "import sys; print('INST_RETIRED' + ':ANY' * int(sys.argv[1]))" "$1"; }
for n in 65 200 20000; do
	name=$(many $n)
	for env in "" "LIBPFM_FORCE_PMU=skl"; do
		# 256 MB of address space and 5 s are enough for any name (the bounds).
		run sh -c "$lim"'; exec timeout 5 env $1 "$2" record --backend perf -m "$3" -- true' sh "$env" "$LAUKA" "$name"
		expect_rc 1
		expect_err "^error: unknown measurement 'INST_RETIRED:ANY"
		run sh -c "$lim"'; exec timeout 5 env $1 "$2" counters --check "$3"' sh "$env" "$LAUKA" "$name"
		expect_rc 1
		expect_err "^error: unknown event 'INST_RETIRED:ANY"
	done
done
exit 0
