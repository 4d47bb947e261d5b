# counters --details: events this machine cannot count at all are marked, with the reasons once on stderr
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
"$LAUKA" version | grep -q '^  perf .*available' || skip "perf backend not available here"

run "$LAUKA" counters --backend perf --details
expect_rc 0
printf '%s\n' "$out" | head -n 1 | grep -q '^name  *incompat  *verdict  *description$' || fail "header: $(printf '%s\n' "$out" | head -n 1)"
printf '%s\n' "$out" | grep -q '^task-clock  *none  *-  ' || fail "task-clock should be countable: $out"
if grep -q . /sys/bus/event_source/devices/cpu/type 2>/dev/null; then
	printf '%s\n' "$out" | grep -q '^cycles  *none  *-  ' || fail "cycles should be countable with a PMU"
else
	printf '%s\n' "$out" | grep -q '^cycles  *none  *unsupported  ' || fail "cycles not marked unsupported: $out"
	expect_err '^note: [0-9]* events marked unsupported cannot be counted here: this machine has no hardware PMU'
	[ "$(printf '%s\n' "$err" | grep -c 'no hardware PMU')" -eq 1 ] || fail "reason repeated: $err"
fi
# Names only: everything the kernel can be asked for, nothing on stderr.
run "$LAUKA" counters --backend perf
expect_rc 0
printf '%s\n' "$out" | grep -qx cycles || fail "cycles missing from the names"
# (but for the one line saying a CPU libpfm4 recognises has no kernel PMU here: LIBPFM_FORCE_PMU=skl)
[ -z "$(printf '%s\n' "$err" | grep -v "^note: libpfm4 recognises this CPU as '[a-z0-9_]*', but the kernel exposes no core PMU")" ] ||
	fail "names-only listing wrote to stderr: $err"
exit 0
