#!/bin/sh
# tests/pmu/guest.sh: lauka against a real kernel PMU driver, run inside the arm64 guest of
# scripts/pmu-vm.sh (one boot for every check; tests/pmu/run.sh starts it).  Prints one
# "ok - NAME" or "not ok - NAME: why" line per check and exits 1 if any failed.
#
# The truth each check compares with is the kernel's or the architecture's, never lauka's:
# the driver's own "N counters available" line, the event numbers in the PMU's sysfs folder,
# the alu loop's two instructions per iteration (probes/aarch64/alu.S), and what QEMU's PMU
# is known to do (doc/linux-events.md): INST_RETIRED exact, CPU_CYCLES equal to it, 0x10 and
# 0x03 accepted and never moving, the generic branch-misses and cache-misses refused.
#
# Counting runs as an ordinary user (perf_event_paranoid 2: user mode only, as most people
# count) with address-space randomisation off, so ld.so's start-up is the same in every run
# and the instruction counts are exact.
#
# GUEST_QUICK=1 (the boots on a CPU libpfm4 has no model for) leaves out libpfm4's Cortex-A57
# checks and the calibration; GUEST_PMU names the PMU device the driver must have made.
quick=${GUEST_QUICK:-0}
fails=0
ok() { echo "ok - $1"; }
bad() { echo "not ok - $1: $2"; fails=$((fails + 1)); }
as_user() { su lauka -c "cd /home/lauka && LAUKA_CALIB_SCALES=small $1"; }
echo 2 > /proc/sys/kernel/perf_event_paranoid
echo 0 > /proc/sys/kernel/randomize_va_space
out=/tmp/out err=/tmp/err

# The PMU device and the counters the driver announced.
dev=$(ls /sys/bus/event_source/devices | grep '^armv8' | head -n 1)
ncnt=$(dmesg | sed -n 's/.*PMU driver, \([0-9]*\) counters available.*/\1/p' | head -n 1)
[ -n "$dev" ] && [ -n "$ncnt" ] || bad "guest" "no armv8 PMU device ($dev) or driver line ($ncnt)"
if [ -n "${GUEST_PMU:-}" ]; then
	[ "$dev" = "$GUEST_PMU" ] && ok "the driver named the PMU $dev" || bad "PMU name" "$dev, want $GUEST_PMU"
fi

# doctor: sees the device, hardware events open, a group of exactly the driver's counters opens.
as_user 'lauka doctor' >$out 2>$err
if grep -q '^ok *hardware events *open: cycles, instructions' $out &&
	grep -q "^ok *PMU *$dev; a group of $ncnt (cycles + $((ncnt - 1)) instructions) opens, one more is refused" $out; then
	ok "doctor sees $dev and its $ncnt counters"
else
	bad "doctor" "$(grep -E 'hardware events|PMU' $out | tr '\n' ' ')"
fi
# ... and that group runs; with two counters pinned by another process (./hog: CPU-wide pinned
# INST_RETIRED events, as a profiler or the NMI watchdog holds them) it says so (issue 36 P5).
if [ -x ./hog ]; then
	free=$(grep -c '^ok *counters free *a group of [0-9]*, enabled on lauka, was on the counters all' $out)
	./hog 2 300 >/tmp/hog.out 2>&1 &
	hog=$!
	sleep 2
	lauka doctor >/tmp/held 2>&1
	kill $hog
	if [ "$free" = 1 ] && grep -q "^FAIL *counters free *a group of $ncnt opens but was on the counters 0% .*a group of $((ncnt - 2)) runs whole: 2 counters are held by another process" /tmp/held; then
		ok "doctor: the group runs; with 2 counters pinned elsewhere, 'counters free' fails naming them"
	else
		bad "doctor counters free" "free $free; held: $(grep 'counters free' /tmp/held) $(cat /tmp/hog.out)"
	fi
fi

# counters: libpfm4's Cortex-A57 table, each raw event shown with its Arm encoding, which
# matches the number the kernel's sysfs gives the same event; no x86 umask anywhere.
as_user 'lauka counters -d' >$out 2>$err
n=0 wrong=""
for f in /sys/bus/event_source/devices/$dev/events/*; do
	name=$(basename "$f")
	want=$(sed -n 's/^event=0x0*\([0-9a-f]*\)$/\1/p' "$f")
	line=$(grep -i "^$name " $out) || continue
	n=$((n + 1))
	echo "$line" | grep -q "$dev/event=0x$want/" || wrong="$wrong $name"
done
if [ "$quick" = 1 ]; then mispred=br_mis_pred; else mispred=branch_mispred; fi
if [ "$n" -ge 2 ] && [ -z "$wrong" ] && ! grep -q umask $out && grep -qi "^$mispred " $out &&
	grep -qi '^l1d_cache_refill ' $out && ! grep -q 'no core PMU' $out $err; then
	ok "counters: $n events encoded as sysfs says ($dev/event=0xN/), no umask"
else
	bad "counters" "checked $n, wrong:$wrong; umask lines $(grep -c umask $out)"
fi

if [ "$quick" != 1 ]; then
# Arm's table for the Cortex-A57 (catalog/arm-cortex-a57.json) laid over libpfm4's: every event the
# kernel's sysfs names resolves by that (Arm's) name to the row of the number sysfs gives; no number
# differs from libpfm4's; cpu_cycles alone may take the cycle counter.
as_user 'lauka counters --pmu arm_ac57 -d' >/tmp/a57 2>$err
n=0 wrong=""
for f in /sys/bus/event_source/devices/$dev/events/*; do
	name=$(basename "$f")
	want=$(sed -n 's/^event=0x0*\([0-9a-f]*\)$/\1/p' "$f")
	as_user "lauka counters --pmu arm_ac57 --check $name --no-headers" >$out 2>&1 || continue
	row=$(awk '{ print $1; exit }' $out)
	n=$((n + 1))
	# the incompat column: the cycle counter is cpu_cycles' alone (counters --details' rules)
	if [ "$row" = cpu_cycles ]; then inc=cycle-counter; else inc=none; fi
	grep -qi "^$row  *$inc  *r$want " /tmp/a57 || wrong="$wrong $name($row)"
done
as_user 'lauka counters --pmu arm_ac57 --check-sources' >$out 2>$err
as_user 'lauka counters --pmu arm_ac57 --json' >/tmp/a57.json 2>$err
if [ "$n" -ge 2 ] && [ -z "$wrong" ] &&
	grep -q "^0 of [0-9]* events differ between libpfm4 and Arm's table (Cortex-A57)" $out &&
	grep '"name": "cpu_cycles"' /tmp/a57.json | grep -q '"cycle_counter": true' &&
	! grep '"name": "inst_retired"' /tmp/a57.json | grep -q '"cycle_counter": true' &&
	grep '"name": "inst_retired"' /tmp/a57.json | grep -q '"arm-data"'; then
	ok "Arm's table: $n sysfs names resolve to sysfs's numbers; libpfm4 agrees; cycles on the cycle counter"
else
	bad "Arm's table" "resolved $n, wrong:$wrong; $(head -c 200 $out)"
fi
fi

# record: the alu loop's instructions are exact.  Two scales 200000 iterations apart differ
# by 400000 instructions, to the instruction, for the generic event and for raw 0x08.
csv_min() { # file measurement -> the min of its first command, then of its second
	awk -F, -v m="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["measurement"] == m { printf "%s ", $c["min"] }' "$1"
}
as_user "lauka record --backend perf -n 3 -m instructions,inst_retired --export-csv /tmp/alu.csv -- \
	'lauka-probe alu 100000' 'lauka-probe alu 300000'" >$out 2>$err
set -- $(csv_min /tmp/alu.csv instructions:u) $(csv_min /tmp/alu.csv inst_retired:u)
if [ $# -eq 4 ] && [ $(($2 - $1)) -eq 400000 ] && [ $(($4 - $3)) -eq 400000 ]; then
	ok "record: instructions and inst_retired exact (+400000 for +200000 iterations)"
else
	bad "record exactness" "instructions $1 -> $2, inst_retired $3 -> $4 ($(head -c 300 $err))"
fi
alu1=$1

# More events than counters: a clear error and its way out, then --passes, each event counted
# whole in its pass (instructions as exact as alone).
# (Arm's names: on a CPU libpfm4 has no model for they come from the table lauka ships for its MIDR.)
E=instructions,cycles,inst_retired,cpu_cycles,br_mis_pred,l1d_cache_refill,$dev/inst_retired/,$dev/cpu_cycles/
as_user "lauka record --backend perf -n 3 -m $E -- 'lauka-probe alu 100000'" >$out 2>$err
rc=$?
if [ $rc -eq 2 ] && grep -q '^error: .*could not be scheduled' $err && grep -q -- '--passes' $err; then
	ok "record: 8 events on $ncnt counters is a clear error (exit 2) naming --passes"
else
	bad "too many events" "exit $rc: $(head -c 300 $err)"
fi
as_user "lauka record --backend perf -n 3 --passes -m $E --export-csv /tmp/p.csv -- 'lauka-probe alu 100000'" >$out 2>$err
rc=$?
set -- $(csv_min /tmp/p.csv instructions:u) $(csv_min /tmp/p.csv inst_retired:u)
if [ $rc -eq 0 ] && grep -q 'passes' $out && [ "$1" = "$alu1" ] && [ "$2" = "$alu1" ] && ! grep -q scaled $out; then
	ok "record --passes: every event whole, instructions exact ($1)"
else
	bad "record --passes" "exit $rc, instructions $1 inst_retired $2 (alone: $alu1): $(head -c 300 $err)"
fi

# calibrate's plan: no pass holds more hardware events (Arm raw, the CPU PMU's sysfs events,
# the generic hardware ones) than the driver has counters.
as_user 'lauka counters -d' >$out 2>&1
hw=$(awk '/\/event=0x/ || $1 ~ /^armv8/ { print $1 }' $out | tr 'A-Z' 'a-z' | tr '\n' ' ')
hw="$hw cycles instructions branches branch-misses cache-references cache-misses bus-cycles ref-cycles"
hw="$hw stalled-cycles-frontend stalled-cycles-backend"
as_user 'lauka calibrate --backend perf --quick --dry-run' >/tmp/plan 2>$err
worst=$(grep '^pass [0-9]*:' /tmp/plan | while read -r _ _ evs; do
	n=0
	for e in $evs; do
		case " $hw " in *" $(echo "$e" | tr 'A-Z' 'a-z') "*) n=$((n + 1)) ;; esac
	done
	echo $n
done | sort -n | tail -n 1)
if [ -n "$worst" ] && [ "$worst" -ge 2 ] && [ "$worst" -le "$ncnt" ]; then
	ok "calibrate plan: at most $worst hardware events a pass ($ncnt counters)"
else
	bad "calibrate plan" "a pass with '$worst' hardware events for $ncnt counters"
fi

# A child its command leaves running is never charged to a later run or command: alu 1 after a
# command that leaves alu 3000000 (6 M instructions) running reads its own count in every run.
as_user "lauka record --backend perf -n 3 -m instructions --export-csv /tmp/l.csv -- \
	\"sh -c '(lauka-probe alu 3000000 &); true'\" 'lauka-probe alu 1'" >$out 2>$err
rc=$?
mx=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["command_index"] == 2 && $c["measurement"] == "instructions:u" { print $c["max"] - $c["min"], $c["max"] }' /tmp/l.csv)
set -- $mx
if [ $rc -eq 0 ] && [ "${1:-x}" = 0 ] && [ "${2:-999999999}" -lt 1000000 ] && grep -q 'command 1 left processes running' $err &&
	! grep -q 'command 2 left' $err; then
	ok "a lingering child is not charged to the next command (alu 1: $2 in every run), and lauka says it lingered"
else
	bad "lingering child" "exit $rc, alu 1 spread/max '$mx': $(head -c 300 $err)"
fi

# User vs kernel counting, stated and kept apart (issue 36 P4).  A user at paranoid 2 counts user
# mode only: the row says instructions:u as perf stat does.  Root counts the kernel too, and with
# -m instructions:u user mode alone: exact again (+400000 for +200000 iterations, where the kernel's
# timer interrupts would add to a user + kernel count).  A baseline of one mode refuses the other.
as_user "lauka record --backend perf -n 3 -m instructions -- 'lauka-probe alu 1000'" >$out 2>$err
u_row=$(grep -c '^instructions:u ' $out)
lauka record --backend perf -n 3 -m instructions:u --export-csv /tmp/ru.csv -- \
	'lauka-probe alu 100000' 'lauka-probe alu 300000' >$out 2>$err
rc=$?
set -- $(csv_min /tmp/ru.csv instructions:u)
lauka record --backend perf -n 3 -m instructions --save-baseline both -- 'lauka-probe alu 1000' >/tmp/rk 2>&1
rk=$?
lauka record --backend perf -n 3 -m instructions:u --baseline both -- 'lauka-probe alu 1000' >/tmp/rb 2>&1
rb=$?
if [ "$u_row" = 1 ] && [ $rc -eq 0 ] && [ $# -eq 2 ] && [ $(($2 - $1)) -eq 400000 ] && [ $rk -eq 0 ] &&
	grep -q '^instructions  ' /tmp/rk && [ $rb -eq 1 ] && grep -q 'not in the baseline: instructions:u' /tmp/rb &&
	grep -q -- '-m wall_time,peak_rss,instructions$' /tmp/rb; then
	ok "counting modes: instructions:u for a user; root's :u exact (+400000); a baseline of the other mode refused"
else
	bad "counting modes" "user row $u_row; root :u exit $rc ($*); save $rk; compare $rb: $(head -c 300 /tmp/rb)"
fi

# Kernel mode alone (-m instructions:k, exclude_user): the row says instructions:k; the alu loop runs in
# user mode, so 200000 more iterations add not one kernel instruction (the kernel's share moves only
# with exec, page faults and timer interrupts: within 10% of the user-mode difference, 400000); and a
# user at paranoid 2 is refused before anything runs.
lauka record --backend perf -n 3 -m instructions:k --export-csv /tmp/rk.csv -- \
	'lauka-probe alu 100000' 'lauka-probe alu 300000' >$out 2>$err
rc=$?
set -- $(csv_min /tmp/rk.csv instructions:k)
as_user "lauka record --backend perf -n 3 -m instructions:k -- 'lauka-probe alu 1000'" >/tmp/ku 2>&1
ku=$?
d=$(( ${2:-0} - ${1:-0} )); d=${d#-}
if [ $rc -eq 0 ] && [ $# -eq 2 ] && [ "$1" -gt 0 ] && [ $d -lt 40000 ] && grep -q '^instructions:k ' $out &&
	[ $ku -eq 2 ] && grep -q 'counting the kernel needs root' /tmp/ku; then
	ok "counting modes: instructions:k counts the kernel alone ($1, $2: +200000 user iterations add $d); refused for a user"
else
	bad "kernel mode" "exit $rc ($*), user $ku: $(head -c 300 $err) $(head -c 200 /tmp/ku)"
fi

# perf's PMU form of a raw event (issue 36 P8), opened with the PMU's sysfs type: the count of
# the row r8 resolves to; the CSV carries each row's type, config, config1, PMU and coverage (P11).
as_user "lauka record --backend perf -n 3 -m $dev/event=0x8/,r8 --export-csv raw.csv -- 'lauka-probe alu 1000'" >$out 2>$err
rc=$?
type=$(cat /sys/bus/event_source/devices/$dev/type)
tr -d '\r' </home/lauka/raw.csv >/tmp/raw.csv 2>/dev/null
pmuform=$(awk -F, -v m="$dev/event=0x8/:u" '$6 == m { print $10 "," $24 "," $25 "," $26 "," $27 "," $28 }' /tmp/raw.csv)
r8=$(awk -F, '$6 != "" && $6 !~ /event=0x8/ && $24 == 4 { print $10 "," $24 "," $25 "," $26 "," $27 "," $28 }' /tmp/raw.csv)
if [ $rc -eq 0 ] && [ "$pmuform" = "${r8%%,*},$type,0x8,0x0,$dev,1" ] && [ "${r8#*,}" = "4,0x8,0x0,$dev,1" ]; then
	ok "raw events: $dev/event=0x8/ opened as type $type, the count of r8 (type 4), the CSV says so"
else
	bad "raw PMU form" "exit $rc: $(head -c 300 $err) pmu form '$pmuform', r8 '$r8'"
fi

# A raw event no catalogue row names is counted as perf stat -e r23 would (the driver takes raw
# PMUv3 numbers as they are); r8 is INST_RETIRED, whose row it resolves to.
as_user "lauka record --backend perf -n 3 -m r23,r8 -- 'lauka-probe alu 1000'" >$out 2>$err
rc=$?
if [ $rc -eq 0 ] && grep -Eqi '^(r23|stall_frontend):u ' $out && grep -Eqi '^inst_retired:u ' $out; then
	ok "raw events: r23 counted without a catalogue row, r8 is inst_retired"
else
	bad "raw events" "exit $rc: $(head -c 300 $err) $(grep -E '^(r|inst|stall)' $out | tr '\n' ' ')"
fi

if [ "$quick" = 1 ]; then
	echo "guest: $fails failed"
	[ $fails -eq 0 ]
	exit
fi

# calibrate: verdicts that match what this PMU does.
as_user 'lauka calibrate --backend perf --quick' >/tmp/cal 2>$err
rc=$?
as_user 'lauka counters -d' >$out 2>&1
verdict() { grep -i "^$1 " $out | awk '{ $1 = ""; $2 = ""; print }' | sed 's/^ *//'; }
check_verdict() { # event want...
	ev=$1; shift
	v=$(verdict "$ev")
	for w in "$@"; do
		case $v in "$w"*) ok "calibrate: $ev is $w"; return ;; esac
	done
	bad "calibrate: $ev" "verdict '$v', want $*"
}
[ $rc -eq 0 ] || bad "calibrate" "exit $rc: $(head -c 300 $err)"
check_verdict instructions validated
check_verdict inst_retired validated
check_verdict cycles "does not see memory (chase)"
check_verdict cpu_cycles "does not see memory (chase)"
check_verdict branch_mispred "dead here" "off by 100%"
check_verdict l1d_cache_refill "dead here" "off by 100%"
check_verdict branch-misses unsupported
check_verdict cache-misses unsupported
# Nothing else is validated but instructions (three spellings) and CPU time.
extra=$(grep ' validated ' $out | awk '{ print $1 }' | grep -viE '^(instructions|inst_retired|armv8_pmuv3/inst_retired/|task-clock|cpu-clock)$' | tr '\n' ' ')
[ -z "$extra" ] && ok "calibrate: nothing else validated" || bad "calibrate: validated without cause" "$extra"

# --explain on this machine says its cycles do not see memory.
as_user "lauka record --backend perf -n 3 -m instructions,cycles --explain -- 'lauka-probe chase 20000 1M'" >$out 2>$err
if grep -q "cost model *none (no validated cycles event: this machine's cycles does not see memory" $out; then
	ok "--explain: this machine's cycles do not see memory"
else
	bad "--explain" "$(cat $out $err | tail -n 8 | tr '\n' ' ')"
fi
echo "guest: $fails failed"
[ $fails -eq 0 ]
