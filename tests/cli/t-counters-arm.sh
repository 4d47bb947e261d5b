# Arm's PMU tables (derived from ARM-software/data) read by Python's own JSON parser against lauka's: every
# named event of each shipped file imported as a catalogue of its own resolves by Arm's name and TRM name
# with Arm's number; CHAIN is not a row; CPU_CYCLES alone may take the cycle counter, so six general events
# and cycles fit Cortex-A57's counters and seven general ones do not; perf's generic names follow Linux's
# PMUv3 map; a broken or foreign file is refused with its line and the database is left as it was.
# (The tables laid over libpfm4's Arm models need libpfm4's Arm build: tests/pmu/guest.sh checks them.)
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v python3 >/dev/null || skip "no python3"

for core in cortex-a53 cortex-a57 neoverse-n1 neoverse-n2 neoverse-v1 neoverse-v2; do
	cp "$LAUKA_SRCDIR/catalog/arm-$core.json" $core.json
	run "$LAUKA" counters --import $core.json
	expect_rc 0; expect_out "^imported $core ("
	"$LAUKA" counters --pmu $core --json > $core.out || fail "$core: --json failed"
	python3 - $core.json $core.out <<'EOF_PY' || fail "$core: lauka's catalogue differs from Arm's file"
import json, sys
arm = json.load(open(sys.argv[1]))
rows = json.load(open(sys.argv[2]))
by = {}
for r in rows:
    for n in [r["name"]] + r["aliases"]:
        by[n.lower()] = r
bad = []
n = 0
for e in arm["events"]:
    names = [e[k] for k in ("name", "trm_name") if k in e]
    if not names:
        continue
    if e.get("for_driver"):
        if names[0].lower() in by:
            bad.append(names[0] + " (the driver's) is a row")
        continue
    n += 1
    for name in names:
        r = by.get(name.lower())
        if r is None:
            bad.append(name + " missing")
        elif r["encoding"] != "r%x" % e["code"]:
            bad.append("%s is %s, Arm says 0x%x" % (name, r["encoding"], e["code"]))
        elif r["cycle_counter"] != (e["code"] == 0x11) or r["fixed"]:
            bad.append("%s counters %s" % (name, r["counters"]))
        elif r["counters"] != list(range(arm.get("counters", 6))):
            bad.append("%s general counters %s" % (name, r["counters"]))
if len(rows) != n or bad:
    print("rows %d, Arm's named events %d; %s" % (len(rows), n, bad[:10]), file=sys.stderr)
    sys.exit(1)
EOF_PY
done

# Linux drivers/perf/arm_pmuv3.c, armv8_pmuv3_perf_map: generic name -> PMUv3 event
for pair in cycles:r11 instructions:r8 branch-misses:r10 cache-misses:r3 cache-references:r4 bus-cycles:r1d; do
	python3 -c 'import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if sys.argv[2] in r["aliases"]]
sys.exit(0 if len(rows) == 1 and rows[0]["encoding"] == sys.argv[3] else 1)' cortex-a57.out ${pair%%:*} ${pair#*:} ||
		fail "${pair%%:*} is not ${pair#*:} on Cortex-A57"
done

# Six general counters and the cycle counter (Cortex-A57 TRM: PMCR_EL0.N = 6)
run "$LAUKA" counters --pmu cortex-a57 --check cycles,instructions,l1d_cache_refill,br_mis_pred,l1d_cache,l2d_cache,l2d_cache_refill
expect_rc 0; expect_out '^cpu_cycles  *cycle$'
run "$LAUKA" counters --pmu cortex-a57 --check inst_retired,l1d_cache_refill,br_mis_pred,l1d_cache,l2d_cache,l2d_cache_refill,bus_access
expect_rc 2; expect_err "could not be scheduled on Cortex-A57"
run "$LAUKA" counters --pmu cortex-a57 --check l1d_cache_ld
expect_rc 0; expect_out '^l1d_cache_rd '
run "$LAUKA" counters --pmu cortex-a57 --check chain
expect_rc 1; expect_err "unknown event 'chain'"
# perf's raw spellings (issue 36 P8), as record counts them: rNN or PMU/event=N/ for an event no row has
# (0x23 STALL_FRONTEND is not in the A57 table) on the general counters only, 0x11 also on the cycle counter
run "$LAUKA" counters --pmu cortex-a57 --check 'r23,armv8_pmuv3/event=0x24/,armv8_cortex_a57/event=37/,r26,r27,r28,r11'
expect_rc 0; expect_out '^armv8_pmuv3/event=0x24/  *[0-5]$'; expect_out '^cpu_cycles  *cycle$'
run "$LAUKA" counters --pmu cortex-a57 --check 'r23,r24,r25,r26,r27,r28,armv8_pmuv3/event=0x29/'
expect_rc 2; expect_err "could not be scheduled on Cortex-A57"
for bad in r10000 'armv8_pmuv3/event=0x23,foo=1/' 'armv8_pmuv3/event=/' 'Armv8/event=1/'; do
	run "$LAUKA" counters --pmu cortex-a57 --check "$bad"
	expect_rc 1; expect_err "unknown event '$bad'"
done

# Refused whole, with the line, and nothing imported
cp "$LAUKA_SRCDIR/catalog/arm-cortex-a57.json" big.json
sed 's/"code":17,/"code":70000,/' big.json > bad-code.json
head -c 3000 big.json > cut.json
sed 's/"pmu_architecture": "pmuv3"/"pmu_architecture": "pmuv2"/' big.json > v2.json
cp "$LAUKA_DB" before.db
for f in bad-code cut v2; do
	run "$LAUKA" counters --import $f.json
	expect_rc 2; expect_err "^error: '.*/$f.json' is not an Arm PMU event file: "
	expect_err "^tip: nothing was imported"
done
expect_err "PMUv3"
run "$LAUKA" counters --import bad-code.json
expect_err "line [0-9]*: code '70000' is not an event number up to 65535"
cmp -s before.db "$LAUKA_DB" || fail "a refused import changed the database"
