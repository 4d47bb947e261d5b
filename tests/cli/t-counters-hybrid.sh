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
run "$LAUKA" record --backend perf -n 3 -m cycles:u -- true
if [ "$rc" -eq 0 ]; then expect_out '^cpu_atom/cycles/ '; else expect_err "^error: cannot count 'cpu_core/cycles/' with the perf backend"; fi
# one core PMU is no hybrid machine: no twins
run env LAUKA_SYSFS_PMUS="$LAUKA_SRCDIR/tests/fixtures/sysfs" "$LAUKA" counters --backend perf
expect_rc 0
printf '%s\n' "$out" | grep -q '^cpu_core/cycles/' && fail "twins without a hybrid CPU: $out"
# Intel's E-core table, imported, is bound to cpu_atom (PERF_TYPE_RAW would program it into the P-cores'
# PMU); a P-core table stays on PERF_TYPE_RAW, i.e. cpu_core
printf '{"Header":{"Info":"Gracemont - V1.0"},"Events":[{"EventName":"INST_RETIRED.ANY_P","EventCode":"0xc0","UMask":"0x00","Counter":"0,1,2,3,4,5"}]}\n' > alderlake_gracemont_core.json
printf '{"Header":{"Info":"Golden Cove - V1.0"},"Events":[{"EventName":"INST_RETIRED.ANY_P","EventCode":"0xc0","UMask":"0x00","Counter":"0,1,2,3,4,5,6,7"}]}\n' > alderlake_goldencove_core.json
for t in alderlake_gracemont_core alderlake_goldencove_core; do
	run "$LAUKA" counters --import $t.json
	expect_rc 0
done
run "$LAUKA" counters --pmu alderlake_gracemont_core --json
expect_out '"encoding": "cpu_atom/event=0xc0,umask=0x0/", .*"perf_type": 10, "config": 192,'
run "$LAUKA" counters --pmu alderlake_goldencove_core --json
expect_out '"encoding": "cpu_core/event=0xc0,umask=0x0/", .*"perf_type": 4, "config": 192,'
# without a hybrid CPU the E-core table is PERF_TYPE_RAW as before, spelt cpu/
run env LAUKA_SYSFS_PMUS="$LAUKA_SRCDIR/tests/fixtures/sysfs" "$LAUKA" counters --pmu alderlake_gracemont_core --json
expect_out '"encoding": "cpu/event=0xc0,umask=0x0/", .*"perf_type": 4,'
exit 0
