# kperf is a macOS backend: on Linux it is not offered, even with the stand-in frameworks in the environment
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(uname -s)" = Linux ] || skip "Linux only"
export LAUKA_KPERF_PATH="$LAUKA_BUILD/libkperf-standin.so" LAUKA_KPERFDATA_PATH="$LAUKA_BUILD/libkperf-standin.so"
run "$LAUKA" --backend kperf -- true
expect_rc 1
expect_err "unknown backend 'kperf'"
run "$LAUKA" version
expect_rc 0
printf '%s\n' "$out" | grep -q kperf && fail "version lists kperf on Linux: $out"
exit 0
