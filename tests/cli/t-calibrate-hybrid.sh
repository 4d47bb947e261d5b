# calibrate on a hybrid Intel CPU (a stand-in sysfs: cpu_core on this machine's first allowed CPU, cpu_atom on its second): no pass mixes core types, each pass's probe runs pinned to its core type's CPUs (the probe, a wrapper, logs its Cpus_allowed_list), and a core type this process may not run on (taskset, a CPU that does not exist) leaves its events unsupported with the reason, exit 0
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(uname -s)" = Linux ] || skip "Linux only (perf, CPU affinity)"
run "$LAUKA" version
printf '%s\n' "$out" | grep -q '^  perf .*available' || skip "perf backend not available here"
probe=$(dirname "$LAUKA")/lauka-probe
[ -x "$probe" ] || skip "no lauka-probe beside lauka"

# The first two CPUs this process may use (a cpulist such as "0-1" or "2,5-7" expanded).
allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
set -- $(printf '%s\n' "$allowed" | tr ',' '\n' |
	awk -F- '{ hi = NF > 1 ? $2 : $1; for (c = $1; c <= hi; c++) print c }' | head -n 2)
[ $# -eq 2 ] || skip "needs two CPUs, this process may use '$allowed'"
core=$1 atom=$2

# The stand-in: Alder Lake's two core PMUs (tests/fixtures/sysfs-hybrid), on this machine's CPUs.
# Without a PMU here no hardware event opens, so that a cpu_atom pass runs its probe at all it
# needs an event that counts per task: the real msr PMU's tsc (arch/x86/events/msr.c, a software
# context PMU), reached when cpu_atom's type is msr's.
cp -R "$LAUKA_SRCDIR/tests/fixtures/sysfs-hybrid" pmus
chmod -R u+w pmus
echo "$core" > pmus/cpu_core/cpus
echo "$atom" > pmus/cpu_atom/cpus
real=/sys/bus/event_source/devices
tsc=0
if [ -r "$real/msr/events/tsc" ] && [ "$(cat "$real/msr/type")" -ge 6 ] 2>/dev/null; then
	cat "$real/msr/type" > pmus/cpu_atom/type
	echo 'event=0x0' > pmus/cpu_atom/events/tsc
	tsc=1
fi
export LAUKA_SYSFS_PMUS="$PWD/pmus"

# The plan: one pass per core type, named with its CPUs; software events ride with cpu_core.
run "$LAUKA" calibrate --backend perf --passes
expect_rc 0
expect_out "^pass 1 (cpu_core, CPUs $core): .* task-clock"
expect_out "^pass 2 (cpu_atom, CPUs $atom): cpu_atom/"
printf '%s\n' "$out" | grep '^pass ' | grep ' cpu_core/' | grep -q ' cpu_atom/' && fail "a pass mixes core types: $out"
printf '%s\n' "$out" | grep '^pass ' | grep -v '(cpu_atom' | grep -q ' cpu_atom/' && fail "a cpu_atom event outside a cpu_atom pass: $out"
printf '%s\n' "$out" | grep '^pass ' | grep '(cpu_atom' | grep -qE ' (cycles|instructions|task-clock)( |$)' &&
	fail "a cpu_core or software event in the cpu_atom pass: $out"

# A real calibration: every probe run (warm-ups too) is pinned to one core type's CPU, the cpu_core
# pass's runs before the cpu_atom pass's.  The wrapper runs the alu loop for every probe (short).
# Only without a real core PMU: with one, the stand-in's cpu_core (type 4, PERF_TYPE_RAW) would count
# for real, and a hundred events the kernel will not count together take minutes of split passes.
pmu=0
for d in "$real"/cpu "$real"/cpu_core "$real"/armv8_pmuv3*; do [ -e "$d/type" ] && pmu=1; done
cat > probe.sh <<EOS
#!/bin/sh
echo "\$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status) \$1 \$2" >> "$PWD/probe.log"
case "\$1" in alu) f=1 ;; chase) f=50 ;; branch) f=10 ;; store) f=5 ;; *) exit 2 ;; esac
exec "$probe" alu \$((\$2 * f))
EOS
chmod +x probe.sh
if [ "$pmu" = 1 ]; then
	echo "note: this machine has a core PMU: the plans are checked, the real calibrations are not run"
else
	run env LAUKA_PROBE="$PWD/probe.sh" "$LAUKA" calibrate --backend perf --quick
	expect_rc 0
	expect_out "^hybrid CPU: each pass counts one core type, with the probe on its CPUs: cpu_core, CPUs $core; cpu_atom, CPUs $atom"
	[ -s probe.log ] || fail "the probe never ran: $out"
	awk -v c="$core" -v a="$atom" '$1 != c && $1 != a { print "unpinned: " $0; exit 1 }
		$1 == a { seen = 1 } $1 == c && seen { print "a cpu_core run after the cpu_atom pass: " $0; exit 1 }' probe.log ||
		fail "probe runs: $(cat probe.log)"
	[ "$(awk -v c="$core" '$1 == c' probe.log | wc -l)" -ge 36 ] || fail "too few runs on cpu_core's CPU: $(cat probe.log)"
	if [ "$tsc" = 1 ]; then
		row=$(printf '%s\n' "$out" | grep '^cpu_atom/tsc/ ')
		if printf '%s\n' "$row" | grep -q ' unsupported '; then
			echo "note: msr/tsc does not count per task here ($row): the cpu_atom pass ran no probe"
		else
			[ "$(awk -v a="$atom" '$1 == a' probe.log | wc -l)" -ge 36 ] ||
				fail "too few runs on cpu_atom's CPU: $(cat probe.log)"
		fi
	fi
fi

# A process that may not run on the E-cores (taskset; a cpuset does the same): cpu_atom's events
# are unsupported, with the reason; the rest is calibrated.
if command -v taskset > /dev/null; then
	run taskset -c "$core" "$LAUKA" calibrate --backend perf --passes
	expect_rc 0
	expect_out "^pass 2 (cpu_atom, no CPU of $atom allowed here): cpu_atom/"
	if [ "$pmu" = 0 ]; then
		: > probe.log
		run taskset -c "$core" env LAUKA_PROBE="$PWD/probe.sh" "$LAUKA" calibrate --backend perf --quick
		expect_rc 0
		expect_out "^unsupported ([0-9]* events, e.g. 'cpu_atom/[^']*'): no CPU of cpu_atom ($atom) is allowed to this process (its CPU affinity or cpuset allows $core)"
		expect_out "^task-clock "
		awk -v c="$core" '$1 != c { exit 1 }' probe.log || fail "a probe ran off CPU $core: $(cat probe.log)"
	fi
fi
# The same for a core type whose CPUs do not exist here.
echo 4095 > pmus/cpu_atom/cpus
run "$LAUKA" calibrate --backend perf --passes
expect_rc 0
expect_out "^pass 2 (cpu_atom, no CPU of 4095 allowed here): "
# A `cpus` file that is no CPU list: a note, and that core type's passes run unpinned.
echo 'all of them' > pmus/cpu_atom/cpus
run "$LAUKA" calibrate --backend perf --passes
expect_rc 0
expect_err "^note: the CPUs of cpu_atom in sysfs are not a CPU list (not a CPU number or range at 'all of them'"
expect_out "^pass 2 (cpu_atom): "

# One core PMU is no hybrid machine: the plan is printed as ever.
run env LAUKA_SYSFS_PMUS="$LAUKA_SRCDIR/tests/fixtures/sysfs" "$LAUKA" calibrate --backend perf --passes
expect_rc 0
expect_out '^pass 1: '
printf '%s\n' "$out" | grep -q '^pass [0-9]* (' && fail "a core type named without a hybrid CPU: $out"
exit 0
