# Vendor tables against lauka's catalogues: --check-sources and the libpfm4 errors Intel's tables correct,
# the kernel's constraints and shared registers on the audit's sets (catalog-audit-5), --smt, the names users
# type, and a user's perfmon file imported as a catalogue of its own.  t-plans-vendor.sh checks every row and
# every planned pass against Intel's tables.
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(uname -s)" = Linux ] || skip "Linux only"
"$LAUKA" version | grep -q '^vendor events: libpfm4' || skip "lauka built without libpfm4 (scripts/deps.sh installs libpfm4-dev)"

# An offcore response's RSP_1 twin (0x1bb, same response value) is an alias of its 0x1b7 row (catalog-audit-5 C7).
run "$LAUKA" counters --pmu icl --check offcore_response_1.demand_data_rd_any_response,ocr.demand_data_rd_any_response
expect_rc 0
[ "$(printf '%s\n' "$out" | grep -c '^ocr.demand_data_rd_any_response ')" -eq 1 ] || fail "RSP_1 twin not an alias: $out"

# Constraints only the kernel states (arch/x86/events/intel/core.c; catalog-audit-5 C5, C6, C10): SPR's AMX
# events on counter 0 (INTEL_EVENT_CONSTRAINT(0xce, 0x1)), SKL's 0x01c0 on counter 1 whatever its cmask
# (INTEL_UEVENT_CONSTRAINT(0x1c0, 0x2)); SPR inst_retired.any opened as 0x00c0, the encoding Linux puts on fixed
# counter 0; event 0x00 rows that are no fixed counter's pseudo-encoding are gone.
run "$LAUKA" counters --pmu spr --check amx_ops_retired.int8,amx_ops_retired.bf16
expect_rc 2
run "$LAUKA" counters --pmu skl --check inst_retired.prec_dist,inst_retired.total_cycles
expect_rc 2
run "$LAUKA" counters --pmu spr --check inst_retired.any,br_inst_retired.all_branches,br_misp_retired.all_branches,uops_issued.any,uops_retired.slots,idq.dsb_uops,idq.mite_uops,int_misc.recovery_cycles,uops_executed.thread
expect_rc 0
expect_out '^inst_retired.any  *fixed 0$'
run "$LAUKA" counters --pmu spr --details
printf '%s\n' "$out" | grep -q '^inst_retired.any  .*cpu/event=0xc0,umask=0x0/' || fail "spr inst_retired.any: $(printf '%s\n' "$out" | grep '^inst_retired.any ')"
run "$LAUKA" counters --pmu icl --check topdown.br_mispredict_slots
expect_rc 1

# Intel's names of MSR events are aliases of the row with their encoding and MSR value (catalog-audit-5 C8).
run "$LAUKA" counters --pmu icl --check OCR.DEMAND_DATA_RD.L3_HIT.ANY,ocr.demand_data_rd.any_response
expect_rc 0
expect_out '^ocr.demand_data_rd_l3_hit_any  '
expect_out '^ocr.demand_data_rd_any_response  '

# The known libpfm4 errors are listed, the vendor's encoding used.
run "$LAUKA" counters --pmu icl --check-sources
expect_rc 0
expect_out '^mem_load_misc_retired.uc  .*encodes it event=0xc4,umask=0x4; .* has event=0xd4,umask=0x4: lauka uses the vendor'
run "$LAUKA" counters --pmu skl --check-sources
expect_out '^uops_retired.total_cycles  '
expect_out '^[0-9]* of [0-9]* events differ between libpfm4 and the vendor.s table (version 59)$'
run "$LAUKA" counters --pmu spr --details
printf '%s\n' "$out" | grep -q '^topdown.bad_spec_slots  .*cpu/event=0xa4,umask=0x4/  .*\[errata: .*uses the vendor' ||
	fail "spr topdown.bad_spec_slots: $(printf '%s\n' "$out" | grep '^topdown.bad_spec_slots')"
printf '%s\n' "$out" | grep '^topdown.bad_spec_slots ' | grep -q 'fixed counter' && fail "bad_spec_slots called a fixed counter"
# libpfm4's errors on the models whose tables came later (catalog-audit-5 C2)
run "$LAUKA" counters --pmu icx --check-sources
expect_out '^topdown.backend_bound_slots  .*encodes it event=0x0,umask=0x2; .* has event=0xa4,umask=0x2: lauka uses the vendor'
expect_out '^mem_load_misc_retired.uc  .* has event=0xd4,umask=0x4'
run "$LAUKA" counters --pmu skx --check-sources
expect_out '^uops_retired.stall_cycles  .*umask=0x1,inv,cmask=1; .* has event=0xc2,umask=0x2,inv,cmask=1'
run "$LAUKA" counters --pmu hsw --check-sources
expect_out '^l2_rqsts.rfo_hit  .*umask=0x42; .* has event=0x24,umask=0xc2'
# Intel's counters per thread with HT on: 4 on SKX (libpfm4: 8), 8 on ICX (libpfm4: 16)
run "$LAUKA" counters --pmu skx --check mem_load_retired.l1_hit,mem_load_retired.l1_miss,mem_load_retired.l2_hit,mem_load_retired.l2_miss,mem_load_retired.l3_hit
expect_rc 2
run "$LAUKA" counters --pmu amd64_fam19h_zen4 --check-sources
expect_rc 1
expect_err "has no vendor table"

# --check: the audit's sets (Intel's Counter "0,1,2,3" for the five).
run "$LAUKA" counters --pmu skl --check mem_load_retired.l1_hit,mem_load_retired.l1_miss,mem_load_retired.l2_hit,mem_load_retired.l2_miss,mem_load_retired.l3_hit
expect_rc 2
expect_err "cannot be counted together: mem_load_retired.l1_hit, mem_load_retired.l1_miss, mem_load_retired.l2_hit, mem_load_retired.l2_miss, mem_load_retired.l3_hit"
run "$LAUKA" counters --pmu skl --check mem_load_retired.l1_hit,mem_load_retired.l1_miss,mem_load_retired.l2_hit,mem_load_retired.l2_miss
expect_rc 0
printf '%s\n' "$out" | awk 'NR > 1 && ($2 < 0 || $2 > 3) { exit 1 }' || fail "a counter outside 0-3: $out"
# ICL inst_retired.any and .prec_dist: both fixed counter 0 for Intel (0x0100): for counting one event, one row
run "$LAUKA" counters --pmu icl --check inst_retired.any,inst_retired.prec_dist
expect_rc 0
[ "$(printf '%s\n' "$out" | wc -l)" -eq 2 ] || fail "icl: two rows for fixed counter 0's event: $out"
run "$LAUKA" counters --pmu amd64_fam19h_zen4 --check retired_sse_avx_flops.any,retired_sse_avx_flops.mult_flops,retired_sse_avx_flops.div_flops,retired_sse_avx_flops.mac_flops
expect_rc 2
run "$LAUKA" counters --pmu amd64_fam19h_zen4 --check retired_sse_avx_flops.any,retired_instructions
expect_rc 0
expect_out '^retired_sse_avx_flops.any  *[024]+[135]$'

# SMT: Skylake's four counters per thread (Intel's Counter) by default, eight with --smt off (CounterHTOff), where
# the mem_load_retired events stay on 0-3 (CounterHTOff "0,1,2,3").
five='uops_issued.any,uops_executed.thread,br_inst_retired.all_branches,br_misp_retired.all_branches,idq.dsb_uops'
run "$LAUKA" counters --pmu skl --check "$five"
expect_rc 2
run "$LAUKA" counters --pmu skl --smt off --check "$five"
expect_rc 0
run "$LAUKA" counters --pmu skl --smt off --check mem_load_retired.l1_hit,mem_load_retired.l1_miss,mem_load_retired.l2_hit,mem_load_retired.l2_miss,mem_load_retired.l3_hit
expect_rc 2
on=$("$LAUKA" calibrate --backend perf --pmu skl --passes | grep -c '^pass ')
off=$("$LAUKA" calibrate --backend perf --pmu skl --smt off --passes | grep -c '^pass ')
[ "$off" -lt "$on" ] || fail "SMT off plans no fewer passes: $off, on: $on"
# --smt off works for every model with Intel's table (ICX, SKX, HSW, ...) and is refused, not ignored, without one
run "$LAUKA" counters --pmu skx --smt off --check "$five"
expect_rc 0
run "$LAUKA" counters --pmu snb --smt off --check cycles
expect_rc 2
expect_err "^error: --smt off needs Intel's per-core counter figures, and lauka ships no Intel table for 'snb'"
expect_err "^fix: leave out --smt off"
run "$LAUKA" calibrate --backend perf --pmu snb --smt off --passes
expect_rc 2
run "$LAUKA" counters --pmu skl --smt sometimes
expect_rc 1
expect_err "^error: --smt takes 'on' or 'off'"

# A PATTERN filters the listing, --details and --json (catalog-audit-5 C14), by name or alias, any case.
run "$LAUKA" counters --pmu skl MEM_LOAD_RETIRED.L1
expect_rc 0
[ "$out" = "$(printf 'mem_load_retired.l1_hit\nmem_load_retired.l1_miss')" ] || fail "pattern: $out"
run "$LAUKA" counters --pmu skl --json mem_load_uops_retired.l1_hit
expect_rc 0
expect_out '"name": "mem_load_retired.l1_hit"'
expect_out '"perf_type": 4, "config": 465, "config1": 0'
# --json says the verdict --details says: on this PMU-less machine the default catalogue's hardware events are
# "unsupported" in both (catalog-audit-5 C14)
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
	run "$LAUKA" counters --json cycles
	printf '%s\n' "$out" | grep '"name": "cycles"' | grep -q '"verdict": "unsupported"' || fail "--json verdict: $out"
fi
run "$LAUKA" counters --pmu skl no_such_thing
expect_rc 1
expect_err "^error: no event of catalogue 'skl' has 'no_such_thing' in its name or an alias"

# The names users type: Intel's, libpfm4's, perf's generic and raw forms reach one row each.
run "$LAUKA" counters --pmu skl --check 'INST_RETIRED.ANY,cpu_clk_unhalted.thread,cycles,cpu/event=0xd1,umask=0x20/,r20d1,MEM_LOAD_RETIRED:L3_MISS,skl::mem_load_retired:l3_miss'
expect_rc 0
[ "$(printf '%s\n' "$out" | grep -c '^mem_load_retired.l3_miss ')" -eq 1 ] || fail "raw forms not one row: $out"
# A raw encoding no row has is an ad-hoc row under the model's rule (t-counters-raw has more); an ill-formed one is unknown.
run "$LAUKA" counters --pmu skl --check 'cpu/event=0xd1,umask=0x77/'
expect_rc 0
expect_out '^cpu/event=0xd1,umask=0x77/  [0-3]$'
run "$LAUKA" counters --pmu skl --check 'cpu/event=0xd1,umask=0x77,usr=1/'
expect_rc 1
expect_err "unknown event 'cpu/event=0xd1,umask=0x77,usr=1/'"

# A perfmon file of the user's (Intel's format; here the shipped Skylake table under Intel's file name) is a
# catalogue of its own, named after the file: Intel's counters, encodings and names.
cp "$LAUKA_SRCDIR/catalog/intel-skl.json" skylake_core.json
run "$LAUKA" counters --import skylake_core.json
expect_rc 0
expect_out "^imported skylake_core (Performance Monitoring Events for 6th Generation .* - V59, [0-9]* events) from "
run "$LAUKA" counters --pmu skylake_core --check mem_load_retired.l1_hit,mem_load_retired.l1_miss,mem_load_retired.l2_hit,mem_load_retired.l2_miss,mem_load_retired.l3_hit
expect_rc 2
run "$LAUKA" counters --pmu skylake_core --check 'INST_RETIRED.ANY,cycles,r20d1,uops_retired.total_cycles'
expect_rc 0
run "$LAUKA" counters --pmu skylake_core --details
printf '%s\n' "$out" | grep -q '^uops_retired.total_cycles  .*cpu/event=0xc2,umask=0x2,inv,cmask=16/' || fail "imported encoding"
# Intel's flags of the imported file live in the database (schema 6), so this later run still has them: SKL V59's
# FRONTEND_RETIRED.DSB_MISS "TakenAlone":"1", MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4 also "PEBS":"2",
# BR_INST_RETIRED.ALL_BRANCHES_PEBS "PEBS":"2" (t-counters-rules reads the same rows of the shipped table).
for row in 'frontend_retired.dsb_miss frontend,alone' 'mem_trans_retired.load_latency_gt_4 ldlat,alone,sampling' \
	'br_inst_retired.all_branches_pebs sampling'; do
	set -- $row
	printf '%s\n' "$out" | grep -qE "^$1 +$2 " || fail "imported $1 lost its flags ($2): $(printf '%s\n' "$out" | grep "^$1 ")"
done
# A merged row keeps its fixed counter whatever the order of its names (catalog-audit-5 C11): Gracemont's
# cycles (CPU_CLK_UNHALTED.CORE/.THREAD on fixed counter 1, .CORE_P/.THREAD_P 0x3c on 0-5) and six general events.
{
	printf '{"Header":{"Info":"gracemont-like"},"Events":[\n'
	printf '{"EventName":"CPU_CLK_UNHALTED.CORE","EventCode":"0x00","UMask":"0x02","Counter":"Fixed counter 1"},\n'
	printf '{"EventName":"CPU_CLK_UNHALTED.CORE_P","EventCode":"0x3c","UMask":"0x00","Counter":"0,1,2,3,4,5"},\n'
	printf '{"EventName":"CPU_CLK_UNHALTED.THREAD","EventCode":"0x00","UMask":"0x02","Counter":"Fixed counter 1"},\n'
	printf '{"EventName":"CPU_CLK_UNHALTED.THREAD_P","EventCode":"0x3c","UMask":"0x00","Counter":"0,1,2,3,4,5"},\n'
	for i in 1 2 3 4 5; do printf '{"EventName":"ARITH.E%d","EventCode":"0x%x","UMask":"0x01","Counter":"0,1,2,3,4,5"},\n' $i $((0x10 + i)); done
	printf '{"EventName":"ARITH.E6","EventCode":"0x16","UMask":"0x01","Counter":"0,1,2,3,4,5"}\n]}\n'
} > gracemont_like.json
run "$LAUKA" counters --import gracemont_like.json
expect_rc 0
run "$LAUKA" counters --pmu gracemont_like --check cycles,arith.e1,arith.e2,arith.e3,arith.e4,arith.e5,arith.e6
expect_rc 0
expect_out 'fixed 1$'

# Counter lists lauka cannot hold, or one encoding's names on disjoint counters, are refused (adversarial-audit-5
# D-13), not widened or merged onto one of them.
printf '{"Events":[{"EventName":"A.B","EventCode":"0x11","UMask":"0x1","Counter":"0"},{"EventName":"C.D","EventCode":"0x11","UMask":"0x1","Counter":"1"}]}' > disjoint.json
run "$LAUKA" counters --import disjoint.json
expect_rc 2
expect_err "events 'A.B' and 'C.D' have one encoding but no counter in common"
printf '{"Events":[{"EventName":"A.B","EventCode":"0x11","UMask":"0x1","Counter":"31"}]}' > counter31.json
run "$LAUKA" counters --import counter31.json
expect_rc 2
expect_err "names counter 31, beyond the 31 general counters"

printf '{"Events":[{"EventName":"A","Counter":"0"}' > cut.json
run "$LAUKA" counters --import cut.json
expect_rc 2
expect_err "^error: '.*/cut.json' is not an Intel perfmon event file: line 1: expected ',' or ']'"
expect_err "^tip: nothing was imported"
exit 0
