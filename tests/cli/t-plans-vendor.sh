# Intel's tables against lauka's catalogues, read by Python's own JSON parser (catalog-audit-5 C1, C2, C6): every
# Intel event of the shipped SKL, ICL, SPR, ICX, SKX and HSW files (derived from intel/perfmon) resolves by
# Intel's name, with Intel's encoding and counters; every pass of each model's calibration plan is one the
# kernel opens with HT on: rows resolved by encoding to Intel's Counter lists, and Intel's shared registers
# (MSRIndex) within the kernel's capacity.
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(uname -s)" = Linux ] || skip "Linux only"
"$LAUKA" version | grep -q '^vendor events: libpfm4' || skip "lauka built without libpfm4 (scripts/deps.sh installs libpfm4-dev)"
command -v python3 >/dev/null || skip "no python3"

for m in skl icl spr icx skx hsw; do
	"$LAUKA" counters --pmu $m --json > $m.json || fail "$m: --json failed"
	"$LAUKA" calibrate --backend perf --pmu $m --passes > $m.plan || fail "$m: --passes failed"
	python3 - "$LAUKA_SRCDIR/catalog/intel-$m.json" $m.json $m.plan $m <<'PY' || fail "$m: differs from Intel's table"
import json, re, sys
intel = json.load(open(sys.argv[1]))["Events"]
# Where Intel's list and the kernel's constraint share no counter, the kernel decides where the event runs:
# Linux intel_skl_event_constraints INTEL_UEVENT_CONSTRAINT(0x1c0, 0x2) matches event and umask only, so
# SKL INST_RETIRED.TOTAL_CYCLES (0x01c0, inv, cmask 10; Intel "0,2,3") runs on counter 1.
KERNEL_ONLY = {"skl": {0x01c0: {1}}, "skx": {0x01c0: {1}}}.get(sys.argv[4], {})
rows = json.load(open(sys.argv[2]))
by = {}
for r in rows:
    for n in [r["name"]] + r["aliases"]:
        by[n.lower()] = r

def counters(s):
    if s.startswith("Fixed counter"):
        return {"fixed %d" % int(s.split()[-1])}
    return {int(x) for x in s.split(",")}

def decode(enc):
    m = re.fullmatch(r"cpu/event=0x([0-9a-f]+),umask=0x([0-9a-f]+)((?:,[a-z]+(?:=\d+)?)*)/", enc or "")
    if not m:
        return None
    f = dict(t.split("=") if "=" in t else (t, "1") for t in m.group(3).split(",") if t)
    return (int(m.group(1), 16), int(m.group(2), 16), int(f.get("cmask", 0)), int(f.get("inv", 0)),
            int(f.get("edge", 0)), int(f.get("any", 0)))

gp = max(max(c for c in counters(e["Counter"]) if isinstance(c, int)) for e in intel
         if not e["Counter"].startswith("Fixed")) + 1
bad = 0
checked = 0
for e in intel:
    if e.get("Offcore") == "1" or int(e.get("MSRIndex", "0"), 0) or e.get("Deprecated") == "1":
        continue
    r = by.get(e["EventName"].lower())
    if r is None:
        print("unknown:", e["EventName"]); bad += 1; continue
    checked += 1
    want = counters(e["Counter"])
    got = set(r["counters"]) | {"fixed %d" % f for f in r["fixed"]}
    if e["Counter"].startswith("Fixed"):
        if not want <= got:
            print("fixed:", e["EventName"], got); bad += 1
        continue
    code = int(e["EventCode"].split(",")[0], 16)
    ku = KERNEL_ONLY.get(code | int(e["UMask"], 16) << 8)
    if ku and not ku & want:
        want = ku	# the kernel's counter, where it and Intel share none (below)
    if {c for c in got if isinstance(c, int)} != want:
        print("counters:", e["EventName"], sorted(c for c in got if isinstance(c, int)), "Intel", sorted(want)); bad += 1
    code = int(e["EventCode"].split(",")[0], 16)
    ref = (code, int(e["UMask"], 16), int(e.get("CounterMask", "0")), int(e.get("Invert", "0")),
           int(e.get("EdgeDetect", "0")), int(e.get("AnyThread", "0")))
    if decode(r["encoding"]) != ref:
        print("encoding:", e["EventName"], r["encoding"], "Intel", ref); bad += 1

# Intel's load-latency and frontend events (MSR 0x3F6 / 0x3F7: MEM_TRANS_RETIRED.LOAD_LATENCY_GT_*,
# FRONTEND_RETIRED.LATENCY_GE_*, ...) resolve by Intel's name to a row with Intel's encoding and MSRValue as config1.
msr_rows = 0
for e in intel:
    mi = int((e.get("MSRIndex") or "0").split(",")[0], 0)
    if mi not in (0x3f6, 0x3f7) or e.get("Deprecated") == "1" or e["Counter"].startswith("Fixed"):
        continue
    r = by.get(e["EventName"].lower())
    want = int(e["EventCode"].split(",")[0], 16) | int(e["UMask"], 16) << 8 | int(e.get("CounterMask", "0")) << 24
    if r is None:
        print("unknown MSR event:", e["EventName"]); bad += 1; continue
    if r["config"] & 0xff00ffff != want or r["config1"] != int(e["MSRValue"], 0):
        print("MSR event:", e["EventName"], hex(r["config"]), hex(r["config1"]), "Intel", hex(want), e["MSRValue"]); bad += 1
    msr_rows += 1
if msr_rows < 8:
    print("only", msr_rows, "load-latency/frontend events"); bad += 1

# Every pass of the plan is one the kernel opens (HT on): each row resolved by its encoding, not its name, to
# the Counter lists of Intel's events of that encoding (offcore's RSP_1 twin 0xbb/0x2b folded onto 0xb7/0x2a;
# all of them allow: their intersection), else every general counter.  Fixed counters: Intel's pseudo-encodings
# (event 0x00, umask n+1 = fixed counter n) and Linux's architectural 0x00c0 / 0x003c, which may take fixed 0 / 1
# besides the general counters of their programmable twin (arch/x86/events/intel/core.c, fixed constraints).
# Shared registers (Intel's MSRIndex of the event code; the kernel's extra_regs): at most two distinct offcore
# response values (0x1a6/0x1a7) and one value of each single MSR (keyed by event and umask) (0x3f6 load latency, 0x3f7 frontend) per pass.
def enc_of(s):
    m = re.fullmatch(r"cpu/(.*)/", s or "")
    if not m:
        return None
    f = dict(t.split("=") if "=" in t else (t, "1") for t in m.group(1).split(",") if t)
    if "config" in f:
        return int(f["config"], 16), int(f.get("config1", "0"), 16)
    c = int(f["event"], 16) | int(f["umask"], 16) << 8 | int(f.get("edge", 0)) << 18 | int(f.get("any", 0)) << 21
    c |= int(f.get("inv", 0)) << 23 | int(f.get("cmask", 0)) << 24
    return c, 0

FOLD = {0xbb: 0xb7, 0x2b: 0x2a}
def key(config):
    config &= 0xffa4ffff
    return (config & ~0xff) | FOLD.get(config & 0xff, config & 0xff)

by_enc, msr_of_code = {}, {}
for e in intel:
    codes = [int(c, 16) for c in e["EventCode"].split(",")]
    if e.get("MSRIndex") and int(e["MSRIndex"].split(",")[0], 0):
        for c in codes:
            msr_of_code[c | int(e["UMask"], 16) << 8] = int(e["MSRIndex"].split(",")[0], 0)
    if e["Counter"].startswith("Fixed"):
        continue
    k = key(codes[0] | int(e["UMask"], 16) << 8 | int(e.get("EdgeDetect", "0")) << 18 | int(e.get("AnyThread", "0")) << 21
            | int(e.get("Invert", "0")) << 23 | int(e.get("CounterMask", "0")) << 24)
    by_enc[k] = by_enc.get(k, counters(e["Counter"])) & counters(e["Counter"])
CAP = {0x1a6: 2, 0x1a7: 2, 0x3f6: 1, 0x3f7: 1}
# Intel's README: TakenAlone "can only be sampled or counted by itself"; lauka runs such an event with no other event
# of its shared register (MSRIndex).  PEBS=2: "can only be programmed as a PEBS event", so never in a counting plan.
# Both by encoding (and MSR value, where an Intel event of the encoding has the row's; else all of the encoding).
taken_alone, pebs_of, pebs_enc = set(), {}, {}
for e in intel:
    if e["Counter"].startswith("Fixed") or e.get("Deprecated") == "1":
        continue
    codes = [int(c, 16) for c in e["EventCode"].split(",")]
    k = key(codes[0] | int(e["UMask"], 16) << 8 | int(e.get("EdgeDetect", "0")) << 18 | int(e.get("AnyThread", "0")) << 21
            | int(e.get("Invert", "0")) << 23 | int(e.get("CounterMask", "0")) << 24)
    if e.get("TakenAlone") == "1":
        taken_alone.add(k)
    v = int(e.get("MSRValue", "0") or "0", 0) if int((e.get("MSRIndex") or "0").split(",")[0], 0) else 0
    pebs_of.setdefault((k, v), set()).add(e.get("PEBS", "0"))
    pebs_enc.setdefault(k, set()).add(e.get("PEBS", "0"))

def needs_sampling(name):
    config, config1 = enc_of(by[name]["encoding"]) or (0, 0)
    s = pebs_of.get((key(config), config1)) or pebs_enc.get(key(config))
    return s == {"2"}


def allowed(name):
    config, _ = enc_of(by[name]["encoding"])
    k = key(config)
    if config & 0xffff in KERNEL_ONLY and not (KERNEL_ONLY[config & 0xffff] & by_enc.get(k, set())):
        return KERNEL_ONLY[config & 0xffff]
    if k & 0xff == 0 and 1 <= (k >> 8 & 0xff) <= 4:	# a fixed counter's pseudo-encoding: that counter only
        return {"fixed %d" % ((k >> 8 & 0xff) - 1)}
    # the kernel matches fixed constraints on X86_RAW_EVENT_MASK: event, umask, edge, inv, cmask (not any)
    extra = {0x00c0: {"fixed 0"}, 0x003c: {"fixed 1"}}.get(config & 0xff84ffff, set())
    return by_enc.get(k, set(range(gp))) | extra

def fits(evs):
    owner = {}
    def aug(i, seen):
        for c in sorted(allowed(evs[i]), key=str):
            if c in seen: continue
            seen.add(c)
            if c not in owner or aug(owner[c], seen):
                owner[c] = i; return True
        return False
    if not all(aug(i, set()) for i in range(len(evs))):
        return "counters"
    vals = {}
    for n in evs:
        config, config1 = enc_of(by[n]["encoding"])
        msr = msr_of_code.get(config & 0xffff)
        if msr in CAP:
            vals.setdefault(CAP[msr] == 2 and 0x1a6 or msr, set()).add(config1)
    for msr, v in vals.items():
        if len(v) > CAP[msr]:
            return "%d values of MSR 0x%x" % (len(v), msr)
    for n in evs:
        config, _ = enc_of(by[n]["encoding"])
        if key(config) not in taken_alone:
            continue
        msr = msr_of_code.get(config & 0xffff)
        if msr is not None and sum(1 for o in evs if msr_of_code.get(enc_of(by[o]["encoding"])[0] & 0xffff) == msr) > 1:
            return "TakenAlone %s with another event of MSR 0x%x" % (n, msr)
    return None

passes = [l.split()[2:] for l in open(sys.argv[3]) if l.startswith("pass ")]
for k, p in enumerate(passes):
    why = fits(p) or next(("needs sampling (PEBS=2): " + n for n in p if needs_sampling(n)), None)
    if why:
        print("pass", k + 1, "is refused by the kernel (%s):" % why, " ".join(p)); bad += 1
# The plan is short: within 5% of a lower bound computed here from the rows' own masks (Hall's condition over
# the unions of one or two distinct masks: the events confined to a set of counters need |events| / |set|
# passes) and the shared registers (distinct values / the kernel's registers).
def mask_of(r):
    return frozenset(r["counters"]) | {"fixed %d" % f for f in r["fixed"]}
masks = {}
planned = [r for r in {id(v): v for v in by.values()}.values() if not needs_sampling(r["name"])]
for r in planned:
    if r["counters"] or r["fixed"]:
        masks.setdefault(mask_of(r), 0)
        masks[mask_of(r)] += 1
lb = 0
ms = list(masks)
for a in ms:
    for b in ms:
        u = a | b
        k = sum(n for m, n in masks.items() if m <= u)
        lb = max(lb, -(-k // len(u)))
regs, alone = {}, {}
for r in planned:
    config, config1 = enc_of(r["encoding"]) or (0, 0)
    msr = msr_of_code.get(config & 0xffff)
    if msr in CAP:
        regs.setdefault(CAP[msr] == 2 and 0x1a6 or msr, set()).add(config1)
        if key(config) in taken_alone:
            alone[msr] = alone.get(msr, 0) + 1
for msr, v in regs.items():
    lb = max(lb, -(-len(v) // CAP[msr]))
for msr, n in alone.items():
    lb = max(lb, n)
if len(passes) > lb * 1.05:
    print("plan of", len(passes), "passes; a lower bound is", lb); bad += 1
print(sys.argv[1].split("/")[-1], "checked", checked, "events and", len(passes), "passes (lower bound", lb, ");", bad, "problems")
sys.exit(1 if bad or checked < 200 else 0)
PY
done
# one load-latency threshold per pass (MSR 0x3F6), and a TakenAlone frontend event with no other of MSR 0x3F7
run "$LAUKA" counters --pmu icl --check mem_trans_retired.load_latency_gt_4,mem_trans_retired.load_latency_gt_8
expect_rc 2
run "$LAUKA" counters --pmu icl --check mem_trans_retired.load_latency_gt_4,frontend_retired.latency_ge_4,cycles
expect_rc 0
exit 0
