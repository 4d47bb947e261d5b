# counters --details shows an event's scheduling rules beyond its mask in the incompat column (fixedN, offcore/ldlat/frontend, alone, sampling), as Intel's SKL table and --json say them; a kpep catalogue's column is unchanged
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(uname -s)" = Linux ] || skip "Linux only"
"$LAUKA" version | grep -q '^vendor events: libpfm4' || skip "lauka built without libpfm4 (scripts/deps.sh installs libpfm4-dev)"
command -v python3 >/dev/null || skip "no python3"

run "$LAUKA" counters --pmu skl --details
expect_rc 0
# the header and the encoding's place (the third field) stay as they were
printf '%s\n' "$out" | head -n 1 | grep -q '^name  *incompat  *encoding  *description$' || fail "header: $(printf '%s\n' "$out" | head -n 1)"
printf '%s\n' "$out" > details.txt
incompat() { awk -v n="$1" '$1 == n { print $2; found = 1 } END { exit !found }' details.txt || fail "no row $1"; }

# Rows of Intel's table (catalog/intel-skl.json, SKL V59), by line:
# line 6: CPU_CLK_UNHALTED.REF_TSC, "Counter":"Fixed counter 2" (libpfm4's unhalted_reference_cycles).
[ "$(incompat unhalted_reference_cycles)" = fixed2 ] || fail "unhalted_reference_cycles: $(incompat unhalted_reference_cycles)"
# line 223: FRONTEND_RETIRED.DSB_MISS, "MSRIndex":"0x3F7" (MSR_PEBS_FRONTEND), "TakenAlone":"1", "PEBS":"1".
[ "$(incompat frontend_retired.dsb_miss)" = frontend,alone ] || fail "frontend_retired.dsb_miss: $(incompat frontend_retired.dsb_miss)"
# line 271: MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4, "MSRIndex":"0x3F6" (load latency), "TakenAlone":"1", "PEBS":"2".
[ "$(incompat mem_trans_retired.load_latency_gt_4)" = ldlat,alone,sampling ] ||
	fail "mem_trans_retired.load_latency_gt_4: $(incompat mem_trans_retired.load_latency_gt_4)"
# line 212: BR_INST_RETIRED.ALL_BRANCHES_PEBS, "Counter":"0,1,2,3", "PEBS":"2", no MSR.
[ "$(incompat br_inst_retired.all_branches_pebs)" = sampling ] || fail "br_inst_retired.all_branches_pebs: $(incompat br_inst_retired.all_branches_pebs)"
# line 566: OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE, "EventCode":"0xB7, 0xBB", "MSRIndex":"0x1a6,0x1a7",
# "MSRValue":"0x10001", no TakenAlone (libpfm4's offcore_response_0.dmnd_data_rd).
[ "$(incompat offcore_response_0.dmnd_data_rd)" = offcore ] || fail "offcore_response_0.dmnd_data_rd: $(incompat offcore_response_0.dmnd_data_rd)"
# an event with no rule keeps its mask's label
[ "$(incompat mem_load_retired.l1_miss)" = none ] || fail "mem_load_retired.l1_miss: $(incompat mem_load_retired.l1_miss)"

# The same four rows read from Intel's file by Python's JSON parser, and every row's words against --json's
# fields (fixed, taken_alone, needs_sampling; the register by Linux's extra_regs: 0xb7/0xbb offcore, 0xcd
# ldlat, 0xc6 frontend with an MSR value), so the text and the JSON say one thing.
"$LAUKA" counters --pmu skl --json > rows.json || fail "--json failed"
python3 - "$LAUKA_SRCDIR/catalog/intel-skl.json" rows.json details.txt <<'EOF_PY' || fail "--details and --json (or Intel's table) differ"
import json, sys
intel = {e["EventName"]: e for e in json.load(open(sys.argv[1]))["Events"]}
rows = json.load(open(sys.argv[2]))
shown = {}
for line in open(sys.argv[3]).read().split("\n")[1:]:
    f = line.split()
    if f:
        shown[f[0]] = f[1].split(",")
bad = []
e = intel["CPU_CLK_UNHALTED.REF_TSC"]
if e["Counter"] != "Fixed counter 2" or "fixed2" not in shown["unhalted_reference_cycles"]:
    bad.append("REF_TSC")
for name, row, want in (("FRONTEND_RETIRED.DSB_MISS", "frontend_retired.dsb_miss", {"frontend", "alone"}),
                        ("MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4", "mem_trans_retired.load_latency_gt_4", {"ldlat", "alone", "sampling"}),
                        ("BR_INST_RETIRED.ALL_BRANCHES_PEBS", "br_inst_retired.all_branches_pebs", {"sampling"}),
                        ("OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE", "offcore_response_0.dmnd_data_rd", {"offcore"})):
    e = intel[name]
    said = set()
    if e.get("TakenAlone") == "1":
        said.add("alone")
    if e.get("PEBS") == "2":
        said.add("sampling")
    if e.get("MSRIndex"):
        said.add({"0x3F7": "frontend", "0x3F6": "ldlat", "0x1a6,0x1a7": "offcore"}.get(e["MSRIndex"], e["MSRIndex"]))
    if said != want or set(shown[row]) != want:
        bad.append("%s: Intel %s, shown %s" % (name, sorted(said), shown[row]))
for r in rows:
    words = set(shown[r["name"]]) - {"none", "pair", "triple", "quad"}
    words = {w for w in words if not w.startswith("group")}
    code = r["config"] & 0xff
    reg = "offcore" if code in (0xb7, 0xbb) else "ldlat" if code == 0xcd and r["config1"] else \
          "frontend" if code == 0xc6 and r["config1"] else None
    want = {"fixed%d" % f for f in r["fixed"]}
    want |= {reg} if reg else set()
    want |= {"alone"} if r["taken_alone"] and reg else set()
    want |= {"sampling"} if r["needs_sampling"] else set()
    if words != want:
        bad.append("%s: --details %s, --json %s" % (r["name"], sorted(words), sorted(want)))
    if "none" in shown[r["name"]] and len(shown[r["name"]]) > 1:
        bad.append("%s: none beside a rule: %s" % (r["name"], shown[r["name"]]))
if bad:
    print("\n".join(bad[:10]))
    sys.exit(1)
EOF_PY

# A kpep catalogue numbers its fixed counters with the others: its column says only the mask's groups.
run "$LAUKA" counters --import "$LAUKA_SRCDIR/tests/fixtures/kpep-data/a14.plist"
expect_rc 0
run "$LAUKA" counters --pmu a14 --details
expect_rc 0
expect_out '^fixed_cycles  *none  *(fixed counter 0)'
expect_out '^inst_all  *pair,quad  '
exit 0
