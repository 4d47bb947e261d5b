# calibrate on a machine without a hardware PMU (most VMs; here a sysfs without a core PMU, LAUKA_SYSFS_PMUS): by default it stops at once with the valgrind fix instead of a minute of mostly "unsupported" rows; --backend perf says so first and goes on
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(uname -s)" = Linux ] || skip "Linux only (perf)"
real=/sys/bus/event_source/devices
[ -d "$real/software" ] || skip "no perf sysfs here"
mkdir pmus
for d in "$real"/*; do	# this machine's PMUs but the core one
	case ${d##*/} in cpu | cpu_core | cpu_atom | armv8_pmuv3* | apple_*) ;; *) ln -s "$d" pmus/ ;; esac
done
export LAUKA_SYSFS_PMUS="$PWD/pmus"
run "$LAUKA" calibrate --backend perf --dry-run --passes
[ "$rc" -eq 0 ] || skip "perf cannot be used here: $err"
first=$(printf '%s\n' "$err" | head -n 1)
printf '%s\n' "$first" | grep -q '^note: this machine has no hardware PMU.*--backend valgrind --quick' ||
	fail "--backend perf without a PMU: the note is not the first line: $err"
expect_out '^pass 1:'
# The default backend: one error before anything is measured, and the fix.
start=$(date +%s)
unset LAUKA_BACKEND
run timeout 60 "$LAUKA" calibrate
expect_rc 2
expect_no_out
printf '%s\n' "$err" | head -n 1 | grep -q '^error: this machine has no hardware PMU' || fail "not the error first: $err"
[ "$(printf '%s\n' "$err" | grep -c '^error: ')" -eq 1 ] || fail "not one error: $err"
expect_err "^fix: lauka calibrate --backend valgrind --quick"
[ $(($(date +%s) - start)) -lt 10 ] || fail "calibrate took $(($(date +%s) - start)) s to refuse"
# With the core PMU present (an empty directory is enough for the check), no note.
mkdir pmus/cpu
run "$LAUKA" calibrate --backend perf --dry-run --passes
printf '%s\n' "$err" | grep -q 'no hardware PMU' && fail "a PMU is there, yet: $err"
exit 0
