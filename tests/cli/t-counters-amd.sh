# perf's names for AMD Zen events (issue 27): every name of catalog/amd-perf-names.tsv whose encoding has a
# row in libpfm4's model resolves to that row in --check and --json (the TSV and the --json encodings read
# independently by python), names without a row stay unknown, record -m takes them, and plans stay as long.
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(uname -s)" = Linux ] || skip "Linux only"
"$LAUKA" version | grep -q '^vendor events: libpfm4' || skip "lauka built without libpfm4 (scripts/deps.sh installs libpfm4-dev)"
command -v python3 >/dev/null || skip "no python3"
tsv="$LAUKA_SRCDIR/catalog/amd-perf-names.tsv"

# check_model MODEL PASSES: PASSES is the plan's length with libpfm4 4.13 before perf's names were added.
check_model() {
	run "$LAUKA" counters --pmu "$1" --json
	expect_rc 0
	printf '%s\n' "$out" > "$1.json"
	# Python's view: per perf name of this model, the row of the same encoding (event code with its
	# bits 8-11, umask) in --json, written as batches of names whose rows fit Zen's six counters together
	# (a row that takes a pair, event 0x003, counts two).
	python3 - "$tsv" "$1" "$1.json" > "$1.batches" <<'EOF' || fail "$1: python: $(cat "$1.batches")"
import json, re, sys
tsv, model, cat = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
by_enc = {}
for e in cat:
    m = re.fullmatch(r"cpu/event=0x([0-9a-f]+),umask=0x([0-9a-f]+)/", e["encoding"])
    if m:
        by_enc.setdefault((int(m.group(1), 16), int(m.group(2), 16)), []).append(e)
rows, missing, total = {}, [], 0
for line in open(tsv):
    if line.startswith("#"):
        continue
    m, name, code, umask = line.rstrip("\n").split("\t")
    if m != model:
        continue
    total += 1
    row = by_enc.get((int(code, 16), int(umask, 16)))
    if not row:
        missing.append(name)
        continue
    assert len(row) == 1, "two rows of one encoding: %s" % row
    row = row[0]
    names = [row["name"].lower()] + [a.lower() for a in row["aliases"]]
    assert name in names, "%s: %s is not among %s's names %s" % (model, name, row["name"], names)
    rows.setdefault(row["name"], []).append(name)
allnames = {n.lower() for e in cat for n in [e["name"]] + e["aliases"]}
for name in missing:
    assert name not in allnames, "%s: %s has no row of its encoding, yet names a row" % (model, name)
assert total > 100 and len(rows) > 50, "%s: %d names, %d rows" % (model, total, len(rows))
pair = {e["name"]: e["pair"] for e in cat}
batch, used = [], 0
for k in sorted(rows) + [None]:
    cost = 2 if k and pair[k] else 1
    if batch and (k is None or used + cost > 6):
        print(" ".join(batch) + "\t" + ",".join(n for b in batch for n in rows[b]))
        batch, used = [], 0
    if k:
        batch.append(k)
        used += cost
print("missing\t" + ",".join(missing))
EOF
	# --check: each batch's perf names land on exactly the rows python found, on counters.
	while IFS="$(printf '\t')" read -r want names; do
		[ "$want" = missing ] && continue
		run "$LAUKA" counters --pmu "$1" --check "$names"
		expect_rc 0
		got=$(printf '%s\n' "$out" | awk 'NR > 1 { print $1 }' | sort | tr '\n' ' ')
		exp=$(printf '%s\n' $want | sort | tr '\n' ' ')
		[ "$got" = "$exp" ] || fail "$1: --check $names gives rows '$got', the encodings' rows are '$exp'"
	done < "$1.batches"
	# Names whose encoding libpfm4 has no row for stay unknown (python checked --json): no row is invented.
	name=$(awk -F '\t' '$1 == "missing" { print $2 }' "$1.batches" | cut -d, -f1)
	if [ -n "$name" ]; then
		run "$LAUKA" counters --pmu "$1" --check "$name"
		expect_rc 1
		expect_err "unknown event '$name'"
	fi
	# Aliases add no rows: the plan holds each listed row once, in no more passes than before.
	run env LAUKA_PROBE=/nonexistent "$LAUKA" calibrate --backend perf --pmu "$1" --passes
	expect_rc 0
	rows=$("$LAUKA" counters --pmu "$1" | wc -l)
	[ "$rows" -eq "$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$1.json")" ] ||
		fail "$1: counters lists $rows rows, --json another number"
	printf '%s\n' "$out" | tail -n 1 | grep -q "^$rows events in [0-9]* passes" || fail "$1: plan: $(printf '%s\n' "$out" | tail -n 1)"
	passes=$(printf '%s\n' "$out" | tail -n 1 | sed 's/^[0-9]* events in \([0-9]*\) passes.*/\1/')
	[ "$passes" -le "$2" ] || fail "$1: $passes passes, $2 before perf's names"
}
check_model amd64_fam17h_zen1 30
check_model amd64_fam17h_zen2 24
check_model amd64_fam19h_zen3 27
check_model amd64_fam19h_zen4 52

# The names users type, in one --check (Linux amdzen4/core.json: ls_not_halted_cyc 0x76, ex_ret_instr 0xc0;
# branch.json: ex_ret_brn_misp 0xc3; other.json: de_no_dispatch_per_slot.smt_contention 0x1a0 umask 0x60).
run "$LAUKA" counters --pmu amd64_fam19h_zen4 --check ex_ret_instr,ls_not_halted_cyc,ex_ret_brn_misp,de_no_dispatch_per_slot.smt_contention
expect_rc 0
expect_out '^retired_instructions '
expect_out '^cycles_not_in_halt '
expect_out '^retired_branch_instructions_mispredicted '
expect_out '^dispatch_stalls_1.smt_contention '
run "$LAUKA" counters --pmu amd64_fam19h_zen4 --details
printf '%s\n' "$out" | grep -q '^dispatch_stalls_1.smt_contention .*cpu/event=0x1a0,umask=0x60/' ||
	fail "zen4: smt_contention is not event 0x1a0 umask 0x60"

# record -m with Zen 4 forced and a kernel core PMU (a fake sysfs): the name is the vendor event, whatever
# this VM's kernel then says of it; a name without a row is an unknown measurement.
export LAUKA_DB="$PWD/record.db"
run env LIBPFM_FORCE_PMU=amd64_fam19h_zen4 LAUKA_SYSFS_PMUS="$LAUKA_SRCDIR/tests/fixtures/sysfs" \
	"$LAUKA" record --backend perf -n 3 -m ex_ret_instr -- true
printf '%s\n' "$err" | grep -q "unknown measurement" && fail "-m ex_ret_instr: $err"
printf '%s\n' "$out$err" | grep -qi "RETIRED_INSTRUCTIONS" || fail "-m ex_ret_instr is not RETIRED_INSTRUCTIONS: $out $err"
run env LIBPFM_FORCE_PMU=amd64_fam19h_zen4 LAUKA_SYSFS_PMUS="$LAUKA_SRCDIR/tests/fixtures/sysfs" \
	"$LAUKA" record --backend perf -n 3 -m l2_cache_req_stat.ic_dc_miss_in_l2 -- true
expect_rc 1
expect_err "unknown measurement 'l2_cache_req_stat.ic_dc_miss_in_l2'"
# On this kernel without a core PMU, perf's AMD name is a vendor event that cannot be counted here (exit 2
# naming the missing PMU and the model), as libpfm4's own names are, not an unknown measurement.
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
	run env LIBPFM_FORCE_PMU=amd64_fam19h_zen4 "$LAUKA" record -m ex_ret_instr -- true
	expect_rc 2
	expect_err "^error: cannot count 'ex_ret_instr' with the perf backend: this machine exposes no 'cpu' PMU"
	expect_err "^tip: it is an event of libpfm4's 'amd64_fam19h_zen4' tables"
fi

# The generator a maintainer runs on a kernel checkout: core events only (no metrics, no other PMU's
# events, none with a counter mask), names lower-cased, event codes with their bits 8-11, one line a name.
mkdir -p kernel/tools/perf/pmu-events/arch/x86/amdzen4
cat > kernel/tools/perf/pmu-events/arch/x86/amdzen4/core.json <<'JSON'
[
  {"EventName": "EX_RET_INSTR", "EventCode": "0xc0", "BriefDescription": "x"},
  {"EventName": "de_no_dispatch_per_slot.smt_contention", "EventCode": "0x1a0", "UMask": "0x60"},
  {"MetricName": "ipc", "MetricExpr": "ex_ret_instr / ls_not_halted_cyc"},
  {"EventName": "l3_lookup_state.l3_miss", "EventCode": "0x04", "UMask": "0x01", "Unit": "L3PMC"},
  {"EventName": "with_cmask", "EventCode": "0xc0", "CounterMask": "0x1"},
  {"EventName": "ex_ret_instr", "EventCode": "0xc1"}
]
JSON
run python3 "$LAUKA_SRCDIR/scripts/amd-perf-names.py" kernel --source "test tree"
expect_rc 0
[ "$(printf '%s\n' "$out" | grep -v '^#')" = "$(printf 'amd64_fam19h_zen4\tex_ret_instr\t0x0c0\t0x00\namd64_fam19h_zen4\tde_no_dispatch_per_slot.smt_contention\t0x1a0\t0x60')" ] ||
	fail "generator: $out"
expect_out '^#   test tree$'
expect_err 'amd64_fam19h_zen4: 2 events of other PMUs or with cmask/inv/edge left out'
expect_err 'ex_ret_instr has two encodings'
exit 0
