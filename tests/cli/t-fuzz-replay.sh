# every fuzz target's corpus and the crash reproducers replayed through it, built with the normal compiler
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
fuzz="$LAUKA_SRCDIR/tests/fuzz"
replay_all() {	# replay_all BINARY CORPUS-DIR [MORE...]: every file, and a count that matches
	replay="$1"; shift
	[ -x "$replay" ] || fail "$replay not built (mk/fuzz.mk adds it to the check dependencies)"
	files=$(find "$@" -type f | wc -l)
	[ "$files" -ge 8 ] || fail "only $files inputs for $replay"
	run "$replay" "$@"
	expect_rc 0
	n=$(printf '%s\n' "$out" | sed -n 's/^replayed \([0-9]*\) inputs$/\1/p')
	[ -n "$n" ] && [ "$n" -ge "$files" ] || fail "$replay: replayed ${n:-no} of $files inputs: $out $err"
}
# the real files of tests/fixtures (kpep plists, xctrace exports and templates) seed the corpora too
fix="$LAUKA_SRCDIR/tests/fixtures"
replay_all "$LAUKA_BUILD/fuzz-replay" "$fuzz/corpus" "$fuzz/crashes" "$fix/kpep-data" "$fix/kpep"
# the xctrace parser and the template reader: their corpora, and each other's and kpep's inputs
replay_all "$LAUKA_BUILD/fuzz-replay-xctrace" "$fuzz/corpus-xctrace" "$fuzz/corpus-template" "$fuzz/crashes" "$fix/xctrace-data"
replay_all "$LAUKA_BUILD/fuzz-replay-template" "$fuzz/corpus-template" "$fuzz/corpus-xctrace" "$fuzz/crashes" "$fuzz/corpus" \
	"$fix/xctrace-data"
# the git-notes decoder: its corpus, and every other corpus as notes
replay_all "$LAUKA_BUILD/fuzz-replay-notes" "$fuzz/corpus-notes" "$fuzz/crashes" "$fuzz/corpus-xctrace"
# the vendor JSON tables: its corpus, the shipped tables and Intel's fixtures; valgrind's output files
replay_all "$LAUKA_BUILD/fuzz-replay-vendor" "$fuzz/corpus-vendor" "$LAUKA_SRCDIR/catalog" "$fix/intel-perfmon" "$fuzz/corpus-notes"
replay_all "$LAUKA_BUILD/fuzz-replay-valgrind" "$fuzz/corpus-valgrind" "$fix/valgrind" "$fuzz/crashes"
exit 0
