# the fuzzer's corpus and every crash reproducer replayed through the fuzz target, built with the normal compiler
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
replay="$LAUKA_BUILD/fuzz-replay"
[ -x "$replay" ] || fail "$replay not built (mk/fuzz.mk adds it to the check dependencies)"
fuzz="$LAUKA_SRCDIR/tests/fuzz"
set -- "$fuzz/corpus" "$fuzz/crashes"
shared="$LAUKA_SRCDIR/../shared/kpep-data"
[ -d "$shared" ] && set -- "$@" "$shared"/*.plist
files=$(find "$fuzz/corpus" "$fuzz/crashes" -type f | wc -l)
[ "$files" -ge 10 ] || fail "only $files inputs in tests/fuzz"
run "$replay" "$@"
expect_rc 0
n=$(printf '%s\n' "$out" | sed -n 's/^replayed \([0-9]*\) inputs$/\1/p')
[ -n "$n" ] && [ "$n" -ge "$files" ] || fail "replayed ${n:-no} of $files inputs: $out $err"
exit 0
