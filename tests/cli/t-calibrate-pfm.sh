# calibrate --backend perf --pmu MODEL: the plan (--dry-run: one line per pass, every event exactly once,
# no pass larger than the counters, fixed-only events on their fixed counter), the expected time, and on
# this PMU-less machine every vendor event stored as unsupported with the missing PMU named, and the
# calibration that counted nothing exiting 2 with that reason.
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(uname -s)" = Linux ] || skip "Linux only"
"$LAUKA" version | grep -q '^vendor events: libpfm4' || skip "lauka built without libpfm4 (scripts/deps.sh installs libpfm4-dev)"
command -v sqlite3 >/dev/null || skip "no sqlite3 command"

# check_plan MODEL GENERAL FIXED: each pass holds at most GENERAL + FIXED events, every event once, but for the
# PEBS-only ones (Intel's PEBS=2), listed as "needs sampling: NAME" instead.
check_plan() {
	run env LAUKA_PROBE=/nonexistent "$LAUKA" calibrate --backend perf --pmu "$1" --passes
	expect_rc 0
	plan=$(printf '%s\n' "$out" | grep '^pass ')
	[ -n "$plan" ] || fail "$1: no plan: $out"
	printf '%s\n' "$plan" | awk -v max=$(($2 + $3)) '{ if (NF - 2 > max) { print "too large: " $0; exit 1 } }' ||
		fail "$1: a pass larger than the counters"
	printf '%s\n' "$plan" | awk '{ n++; if ($2 != n ":") { print "numbering: " $0; exit 1 } }' || fail "$1: pass numbering"
	printf '%s\n' "$plan" | tr ' ' '\n' | grep -v '^pass$' | grep -v ':$' | sort > planned.txt
	printf '%s\n' "$out" | sed -n 's/^needs sampling: //p' > sampling.txt
	sort planned.txt sampling.txt > both.txt
	"$LAUKA" counters --pmu "$1" | sort > listed.txt
	cmp -s both.txt listed.txt || fail "$1: planned events differ from the catalogue: $(diff both.txt listed.txt | head)"
	[ -z "$(uniq -d both.txt)" ] || fail "$1: an event in two passes"
	printf '%s\n' "$out" | tail -n 1 | grep -q "^$(wc -l < planned.txt) events in [0-9]* passes; a full run: " ||
		fail "$1: summary: $(printf '%s\n' "$out" | tail -n 1)"
}
# Intel's general counters per thread with Hyper-Threading on (Counter fields of intel/perfmon's files:
# SKL "0,1,2,3", ICL and SPR up to 7), not libpfm4's 8/16/16.
check_plan skl 4 3
check_plan icl 8 4
check_plan spr 8 4
check_plan amd64_fam19h_zen4 6 0
# SKL's PEBS-only rows (Intel: PEBS=2) are left out of the counting plan, and said so.
run env LAUKA_PROBE=/nonexistent "$LAUKA" calibrate --backend perf --pmu skl --passes
expect_out '^needs sampling: br_inst_retired.all_branches_pebs$'
expect_out '^needs sampling: mem_trans_retired.load_latency$'
# Reference cycles (Intel: fixed counter 2 only) cannot share a pass with another event of that encoding.
run "$LAUKA" calibrate --backend perf --pmu skl --dry-run
[ "$(printf '%s\n' "$out" | grep '^pass ' | grep -c 'unhalted_reference_cycles\|cpu_clk_unhalted.ref_tsc')" -eq \
  "$(printf '%s\n' "$out" | grep -o 'unhalted_reference_cycles\|cpu_clk_unhalted.ref_tsc' | wc -l)" ] ||
	fail "two reference-cycle events in one pass"
# --dry-run is --passes plus the expected time, from the timed warm-ups (the same lines first).
run "$LAUKA" calibrate --backend perf --pmu skl --dry-run --quick
expect_rc 0
expect_out '^expected time: about [0-9]* \(s\|min\)$'
printf '%s\n' "$out" | grep '^pass ' > dry.txt
"$LAUKA" calibrate --backend perf --pmu skl --passes --quick | grep '^pass ' | cmp -s - dry.txt || fail "--dry-run and --passes plan differently"
run env LAUKA_PROBE=/nonexistent "$LAUKA" calibrate --backend perf --pmu skl --dry-run
expect_rc 0
expect_out '^expected time: unknown (the probe program cannot run here)$'
# A dry run stores nothing.
[ "$(sqlite3 "$LAUKA_DB" 'select count(*) from verdict')" -eq 0 ] || fail "--dry-run stored verdicts"

# The real run here: plan and expected time first, then every event unsupported for want of the PMU.
if [ -e /sys/bus/event_source/devices/cpu ]; then
	echo "note: this machine has a 'cpu' PMU; the PMU-less calibration is not checked here"
	exit 0
fi
run "$LAUKA" calibrate --backend perf --pmu skl --quick
expect_rc 2
expect_err "^error: nothing could be counted on this machine with the perf backend: this machine exposes no 'cpu' PMU"
expect_out '^plan: [0-9]* passes x 4 probes x 3 scales x 1 round = [0-9]* probe runs$'
expect_out '^expected time: about [0-9]* \(s\|min\)$'
n=$("$LAUKA" counters --pmu skl | wc -l)
s=$(env LAUKA_PROBE=/nonexistent "$LAUKA" calibrate --backend perf --pmu skl --passes | grep -c '^needs sampling: ')
u=$((n - s))
expect_out "^unsupported ($u events, e.g. '[A-Z_.]*'): this machine exposes no 'cpu' PMU"
expect_out "^$n events: 0 validated, .* $u unsupported, 0 unschedulable\$"
expect_out "^$s PEBS-only events left out (needs sampling: Intel's PEBS=2)\$"
[ "$(sqlite3 "$LAUKA_DB" "select count(distinct event) from verdict where pmu = 'skl' and backend = 'perf' and verdict = 'unsupported'")" -eq "$u" ] ||
	fail "verdicts not stored per event"
run "$LAUKA" counters --pmu skl --details
printf '%s\n' "$out" | grep -q '^mem_load_retired.l1_miss  *none  *unsupported  *cpu/event=0xd1,umask=0x8/' ||
	fail "counters --details does not show the verdict: $(printf '%s\n' "$out" | grep l1_miss)"
exit 0
