# Shared helpers for tests/cli/t-*.sh (sourced).  $LAUKA is the binary under
# test; each test runs in its own empty temporary directory with its own
# LAUKA_DB and HOME.
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skip: $*"; exit 2; }

# run CMD...: runs it, capturing stdout in $out, stderr in $err, status in $rc.
run() {
	out_f=$(mktemp); err_f=$(mktemp)
	"$@" >"$out_f" 2>"$err_f"
	rc=$?
	out=$(cat "$out_f"); err=$(cat "$err_f")
	rm -f "$out_f" "$err_f"
}
expect_rc() { [ "$rc" -eq "$1" ] || fail "expected exit $1, got $rc; stderr: $err; stdout: $out"; }
expect_out() { printf '%s\n' "$out" | grep -q -- "$1" || fail "stdout lacks '$1': $out"; }
expect_err() { printf '%s\n' "$err" | grep -q -- "$1" || fail "stderr lacks '$1': $err"; }
expect_no_out() { [ -z "$out" ] || fail "expected no stdout, got: $out"; }
# The value column of one measurement row in the Nth benchmark block, as printed (e.g. 231 or 1.2K).
row_of() { printf '%s\n' "$out" | awk -v b="$1" -v m="$2" '/^Benchmark /{n++} n==b && $1==m {print; exit}'; }

# kperf_standin PLIST: the kperf backend on Linux through the stand-in frameworks (the model of XNU),
# PLIST served as the catalogue of the M1 cpu the stand-in reports, as /usr/share/kpep would.
kperf_standin() {
	[ "$(uname -s)" = Linux ] || skip "Linux only"
	standin="$LAUKA_BUILD/libkperf-standin.so"
	[ -f "$standin" ] || skip "stand-in library not built"
	export LAUKA_KPERF_PATH="$standin" LAUKA_KPERFDATA_PATH="$standin" LAUKA_STANDIN_STATE="$PWD/standin.state"
	mkdir kpep
	cp "$1" kpep/chip.plist
	ln -s chip.plist kpep/cpu_100000c_2_1b588bb3.plist
	export KPEP_DB_PATH="$PWD/kpep"
}
