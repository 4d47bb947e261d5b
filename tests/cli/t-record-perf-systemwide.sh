# A PMU that counts per CPU or per package (it has a cpumask in sysfs: RAPL's "power", uncore PMUs)
# cannot count one process, which is all lauka counts: the kernel refuses a per-task event there with
# EINVAL, whoever asks.  The error says so, names perf stat -a, and does not send root for root.
# (The reference is the kernel's: perf stat -a counts the same event system-wide.)
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(uname -s)" = Linux ] || skip "Linux only"
run "$LAUKA" version
printf '%s\n' "$out" | grep -q '^  perf .*available' || skip "perf backend not available here"
ev=""
for d in /sys/bus/event_source/devices/*; do
	[ -f "$d/cpumask" ] && [ -d "$d/events" ] || continue
	for f in "$d"/events/*; do
		case $f in *.scale | *.unit | *.snapshot | *.per-pkg) continue ;; esac
		[ -f "$f" ] || continue
		ev="$(basename "$d")/$(basename "$f")/"
		break 2
	done
done
[ -n "$ev" ] || skip "no system-wide PMU with events in sysfs here"
pmu=${ev%%/*}
run "$LAUKA" record --backend perf -n 3 -m "$ev" -- true
expect_rc 2
expect_err "^error: cannot count '$ev' with the perf backend: the '$pmu' PMU counts per CPU, not per process"
expect_err "perf stat -a"
[ "$(id -u)" -eq 0 ] && printf '%s\n' "$err" | grep -q "i.e. root" && fail "root is told to be root: $err"
[ "$(printf '%s\n' "$err" | grep -c '^error:')" -eq 1 ] || fail "more than one error line: $err"
exit 0
