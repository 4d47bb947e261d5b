# libpfm4's vendor catalogues: listed on demand (--pmu skl), stored as kind pfm and refreshed when libpfm4
# changes, encodings shown as perf takes them, libpfm4's spellings accepted, the present PMU (forced with
# LIBPFM_FORCE_PMU) joining the perf catalogue, and a vendor event on this PMU-less kernel refused with exit 2.
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(uname -s)" = Linux ] || skip "Linux only"
"$LAUKA" version | grep -q '^vendor events: libpfm4' || skip "lauka built without libpfm4 (scripts/deps.sh installs libpfm4-dev)"
command -v sqlite3 >/dev/null || skip "no sqlite3 command"

# Counts the issue states from libpfm4 4.13's tables (Skylake 437 umasks, Zen 4 303); the unit test
# check_pfm.c compares every model with its own enumeration through libpfm4's API.
# One row per encoding: libpfm4's 437 umasks hold 343 encodings (check_pfm.c counts them through libpfm4's
# API), 22 of them offcore_response_1 (0x1bb) twins of an offcore_response_0 (0x1b7) encoding with the same
# response value, which are one event (Intel lists "0xB7, 0xBB" as one; the kernel moves it between the two
# registers): 321 rows.  Intel's events libpfm4 has no encoding for (or no MSR value: LOAD_LATENCY_GT_*,
# FRONTEND_RETIRED.LATENCY_GE_*) are rows of their own, described as such.
run "$LAUKA" counters --pmu skl --details
intel_only=$(printf '%s\n' "$out" | grep -c "(from Intel's table (SKL V59); libpfm4 has no event of this encoding")
[ -z "$(printf '%s\n' "$out" | awk 'NR > 1 { print $3 }' | sort | uniq -d)" ] || fail "two rows share an encoding"
run "$LAUKA" counters --pmu skl
expect_rc 0
[ "$(printf '%s\n' "$out" | wc -l)" -eq $((321 + intel_only)) ] || fail "skl: $(printf '%s\n' "$out" | wc -l) events, libpfm4 has 343 encodings (22 twins) + $intel_only of Intel's"
printf '%s\n' "$out" | grep -qx 'mem_load_retired.l1_miss' || fail "no mem_load_retired.l1_miss (lower-case EVENT.UMASK)"
run "$LAUKA" counters --pmu amd64_fam19h_zen4
expect_rc 0
[ "$(printf '%s\n' "$out" | wc -l)" -eq 303 ] || fail "zen4: $(printf '%s\n' "$out" | wc -l) events, libpfm4 has 303 (all distinct)"
[ "$(sqlite3 "$LAUKA_DB" "select kind || ' ' || name from pmu where kind = 'pfm' order by name")" = "pfm amd64_fam19h_zen4
pfm skl" ] || fail "not stored as kind pfm: $(sqlite3 "$LAUKA_DB" 'select kind, name from pmu')"

# Encodings against Intel's table (SKL/events/skylake_core.json: MEM_LOAD_RETIRED.L1_MISS EventCode 0xD1
# UMask 0x08; CYCLE_ACTIVITY.STALLS_L3_MISS 0xA3 0x06 CounterMask 6; UOPS_ISSUED.STALL_CYCLES 0x0E 0x01
# CounterMask 1 Invert 1), spelled as perf stat -e takes them.
run "$LAUKA" counters --pmu skl --details
expect_rc 0
printf '%s\n' "$out" | head -n 1 | grep -q '^name  *incompat  *encoding  *description$' || fail "header: $(printf '%s\n' "$out" | head -n 1)"
printf '%s\n' "$out" | grep -q '^mem_load_retired.l1_miss  *none  *cpu/event=0xd1,umask=0x8/  ' || fail "l1_miss row"
printf '%s\n' "$out" | grep -q '^cycle_activity.stalls_l3_miss  .*cpu/event=0xa3,umask=0x6,cmask=6/  ' || fail "stalls_l3_miss row"
printf '%s\n' "$out" | grep -q '^uops_issued.stall_cycles  .*cpu/event=0xe,umask=0x1,inv,cmask=1/  ' || fail "stall_cycles row"
printf '%s\n' "$out" | grep -q '^offcore_response_0.dmnd_data_rd  .*cpu/config=0x1b7,config1=0x[0-9a-f]*/  ' || fail "offcore row"
printf '%s\n' "$out" | grep -q '^unhalted_reference_cycles  .*(fixed counter 2)' || fail "reference cycles not on fixed counter 2"

# libpfm4's spellings and any case reach the same events.
run "$LAUKA" counters --pmu skl --check 'MEM_LOAD_RETIRED:L1_MISS,skl::uops_issued:any,Inst_Retired.Any_P'
expect_rc 0

# Refreshed when libpfm4 (or lauka's reading of it) changes: a stale fingerprint is replaced, events kept whole.
sqlite3 "$LAUKA_DB" "update pmu set sha256 = 'stale' where name = 'skl'; delete from event where name = 'UOPS_ISSUED.ANY'"
run "$LAUKA" counters --pmu skl
expect_rc 0
[ "$(printf '%s\n' "$out" | wc -l)" -eq $((321 + intel_only)) ] || fail "not re-imported after a change"
[ "$(sqlite3 "$LAUKA_DB" "select sha256 from pmu where name = 'skl'")" != stale ] || fail "fingerprint not refreshed"

# An unknown name says how libpfm4 models are named.
run "$LAUKA" counters --pmu nosuch
expect_rc 1
expect_err "no catalogue named 'nosuch'"
expect_err "tip: libpfm4 .*models (skl, icl"

# No core PMU here: libpfm4 finds none, and the perf catalogue is the generic one.  Forced, libpfm4
# recognises Skylake, but a kernel without a core PMU (this VM: no 'cpu' in
# /sys/bus/event_source/devices) could count none of its events: they stay out of the default catalogue
# and one line says why.  With a kernel core PMU (a sysfs tree that has one, tests/fixtures/sysfs),
# Skylake's events join the catalogue and are imported as kind pfm on first use.
run "$LAUKA" counters
expect_rc 0
printf '%s\n' "$out" | grep -q 'inst_retired' && fail "vendor events without a present PMU: $out"
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
	generic=$(printf '%s\n' "$out" | wc -l)
	run env LIBPFM_FORCE_PMU=skl "$LAUKA" counters
	expect_rc 0
	printf '%s\n' "$out" | grep -q 'inst_retired' && fail "forced skl on a PMU-less kernel lists vendor events"
	[ "$(printf '%s\n' "$out" | wc -l)" -eq "$generic" ] || fail "forced skl changed the default catalogue"
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "not one line: $err"
	expect_err "^note: libpfm4 recognises this CPU as 'skl', but the kernel exposes no core PMU .*cannot be counted here.*lauka counters --pmu skl lists them$"
	run env LIBPFM_FORCE_PMU=skl "$LAUKA" counters --details
	printf '%s\n' "$out" | grep -q '^inst_retired' && fail "forced skl --details lists vendor events"
	expect_err "^note: libpfm4 recognises this CPU as 'skl'"
	run env LIBPFM_FORCE_PMU=skl "$LAUKA" counters --pmu skl
	expect_rc 0
	[ "$(printf '%s\n' "$out" | wc -l)" -eq $((321 + intel_only)) ] || fail "--pmu skl no longer lists Skylake"
fi
run env LIBPFM_FORCE_PMU=skl LAUKA_SYSFS_PMUS="$LAUKA_SRCDIR/tests/fixtures/sysfs" "$LAUKA" counters
expect_rc 0
printf '%s\n' "$out" | grep -qx 'inst_retired.any_p' || fail "forced skl with a core PMU: no inst_retired.any_p"
printf '%s\n' "$out" | grep -qx 'task-clock' || fail "forced skl: the generic events are gone"
[ -z "$err" ] || fail "a note with a core PMU: $err"

# The real kernel here has no core PMU: raw encodings fail (perf itself says <not supported>), and
# lauka names the missing PMU with exit 2, never "unknown measurement".
if [ -e /sys/bus/event_source/devices/cpu ]; then
	echo "note: this machine has a 'cpu' PMU; the no-PMU error is not checked here"
else
	if command -v perf >/dev/null; then
		perf stat -x, -e r8d1 true 2>&1 | grep -q 'not supported' || fail "perf counts a raw event here: $(perf stat -x, -e r8d1 true 2>&1)"
	fi
	run env LIBPFM_FORCE_PMU=skl "$LAUKA" record -m mem_load_retired.l1_miss,task-clock -- true
	expect_rc 2
	expect_err "this machine exposes no 'cpu' PMU"
	expect_err "^tip: it is an event of libpfm4's 'skl' tables"	# the forced model, not the first that has it
	printf '%s\n' "$err" | grep -q 'unknown measurement' && fail "said unknown measurement: $err"
	run env LIBPFM_FORCE_PMU=skl "$LAUKA" record -m 'skl::MEM_LOAD_RETIRED:L1_MISS' -- true
	expect_rc 2
	expect_err "exposes no 'cpu' PMU"
	# Not forced: libpfm4 finds no model here, but a name of its tables is still a vendor event.
	for name in mem_load_retired.l1_miss 'skl::MEM_LOAD_RETIRED:L1_MISS' amd64_fam19h_zen4::retired_instructions; do
		run "$LAUKA" record -m "$name" -- true
		expect_rc 2
		expect_err "^error: cannot count '$name' with the perf backend: this machine exposes no 'cpu' PMU"
		expect_err "^tip: it is an event of libpfm4's '[a-z0-9_]*' tables"
	done
	run "$LAUKA" record -m nosuch.thing -- true
	expect_rc 1
	expect_err "unknown measurement 'nosuch.thing'"
fi
# record -m takes perf's raw spellings of a vendor event as counters --check does (issue 27): with a
# kernel core PMU (a fake sysfs) and Skylake forced, r20d1 and cpu/event=0xd1,umask=0x20/ (its comma
# inside the slashes is no list separator) are MEM_LOAD_RETIRED.L3_MISS; what the kernel then says
# of it is this VM's business, an unknown name is not.
export LAUKA_DB="$PWD/raw.db"
for m in r20d1 'cpu/event=0xd1,umask=0x20/' 'page-faults,cpu/event=0xd1,umask=0x20/'; do
	run env LIBPFM_FORCE_PMU=skl LAUKA_SYSFS_PMUS="$LAUKA_SRCDIR/tests/fixtures/sysfs" \
		"$LAUKA" record --backend perf -n 3 -m "$m" -- true
	printf '%s\n' "$err" | grep -q "unknown measurement" && fail "-m $m: $err"
	printf '%s\n' "$out$err" | grep -qi "MEM_LOAD_RETIRED.L3_MISS" || fail "-m $m is not MEM_LOAD_RETIRED.L3_MISS: $out $err"
done
run env LIBPFM_FORCE_PMU=skl LAUKA_SYSFS_PMUS="$LAUKA_SRCDIR/tests/fixtures/sysfs" \
	"$LAUKA" record --backend perf -n 3 -m 'cpu/event=0xd1,umask=0x99/' -- true
# a raw encoding no row has is an ad-hoc row (the model's counter rule): planned, then refused by this PMU-less kernel
expect_rc 2; expect_err "cannot count 'cpu/event=0xd1,umask=0x99/' with the perf backend"
run env LIBPFM_FORCE_PMU=skl LAUKA_SYSFS_PMUS="$LAUKA_SRCDIR/tests/fixtures/sysfs" \
	"$LAUKA" record --backend perf -n 3 -m 'cpu/event=0xd1,umask=0x99,bogus=1/' -- true
# a term the PMU's sysfs format files do not have: one line that names it (exit 1)
expect_rc 1; expect_err "cannot encode 'cpu/event=0xd1,umask=0x99,bogus=1/': unknown format term 'bogus'"
exit 0
