# calibrate on a sampled backend (kperf on the model of XNU): a baseline run too short to be
# sampled is repeated and lengthened, not taken as "unsupported" (before: every configurable
# event of the kperf stand-in's database came out unsupported)
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
kperf_standin "$LAUKA_SRCDIR/tests/fixtures/kpep/tiny.plist"
export LAUKA_DB="$PWD/lauka.db"

run "$LAUKA" calibrate --backend kperf --quick
printf '%s\n' "$err" | grep -q "built without the catalogue database" && skip "this lauka has no catalogue database"
expect_rc 0
# INST_ALL and RETIRE_UOP are in the stand-in's kperfdata database: measured, whatever the verdict.
for e in INST_ALL RETIRE_UOP FIXED_CYCLES FIXED_INSTRUCTIONS; do
	line=$(printf '%s\n' "$out" | grep -E "^$e ")
	[ -n "$line" ] || fail "$e missing: $out"
	printf '%s\n' "$line" | grep -q ' unsupported ' && fail "$e unsupported on a sampled backend: $line"
done
# The events kperfdata does not know stay unsupported (the backend cannot program them).
printf '%s\n' "$out" | grep -qE '^PLAIN_A +unsupported ' || fail "PLAIN_A should be unsupported: $out"

# N5 (audit 3): without root, what to run instead: sudo with the verb, and xctrace (no root); never
# valgrind (it does not run on Apple silicon).  The old code said "fix: run it as root: sudo calibrate ...".
LAUKA_STANDIN_EUID=501 run "$LAUKA" calibrate --backend kperf --quick
expect_rc 2
expect_err "^error: backend 'kperf' needs root"
expect_err '^fix: run it as root: sudo lauka calibrate --backend kperf --quick$'
expect_err "^tip: 'lauka calibrate --backend xctrace' needs no root (it needs Xcode)$"
printf '%s\n' "$err" | grep -q valgrind && fail "valgrind tip for kperf: $err"
exit 0
