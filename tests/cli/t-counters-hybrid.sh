# a hybrid Intel CPU (a fake sysfs: cpu_core, type 4, and cpu_atom, type 10, as on Alder Lake; issue 35 item 5): every generic event once per core PMU, encodings in perf's cpu_core/…/ and cpu_atom/…/ spelling, and record -m instructions counts both core types
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(uname -s)" = Linux ] || skip "Linux only (perf)"
export LAUKA_SYSFS_PMUS="$LAUKA_SRCDIR/tests/fixtures/sysfs-hybrid"
run "$LAUKA" counters --backend perf --details
expect_rc 0
expect_out '^cpu_core/cycles/ .*on the P cores only (the cpu_core PMU, type 4)'
expect_out '^cpu_atom/cycles/ .*on the E cores only (the cpu_atom PMU, type 10)'
expect_out '^cpu_atom/L1-dcache-load-misses/ '
# a PMU's raw encoding as perf accepts it there: there is no `cpu` PMU on such a machine
expect_out '^cpu_core/instructions/ .* cpu_core/event=0xc0,umask=0x0/ '
expect_out '^cpu_atom/instructions/ .* cpu_atom/event=0xc0,umask=0x0/ '
printf '%s\n' "$out" | grep -q ' cpu/event=' && fail "an encoding names the 'cpu' PMU on a hybrid machine: $out"
# record: instructions is opened on each core PMU, one row each (here, without a PMU, the first fails)
run "$LAUKA" record --backend perf -n 3 -m instructions -- true
if [ "$rc" -eq 0 ]; then
	expect_out '^cpu_core/instructions/ '
	expect_out '^cpu_atom/instructions/ '
else
	expect_rc 2
	expect_err "^error: cannot count 'cpu_core/instructions/' with the perf backend"
fi
# one core PMU is no hybrid machine: no twins
run env LAUKA_SYSFS_PMUS="$LAUKA_SRCDIR/tests/fixtures/sysfs" "$LAUKA" counters --backend perf
expect_rc 0
printf '%s\n' "$out" | grep -q '^cpu_core/cycles/' && fail "twins without a hybrid CPU: $out"
exit 0
