# record --passes: four events that share the M1's three counters PMC5-7 are refused (exit 2, the counter
# counts, a tip naming --passes); with --passes they are measured in two passes, each a full set of runs,
# through the kperf stand-in, which enforces XNU's counter rules (a configuration that does not fit is
# refused there, as kpc would).  Checked against python's reading of the JSON export.
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
a14="$LAUKA_SRCDIR/tests/fixtures/kpep-data/a14.plist"
[ -f "$a14" ] || skip "tests/fixtures/kpep-data/a14.plist absent"
command -v python3 >/dev/null || skip "no python3"
kperf_standin "$a14"
set4=inst_branch,l1d_cache_miss_ld_nonspec,branch_mispred_nonspec,inst_all

run "$LAUKA" --backend kperf -n 3 -m $set4 -- 'touch ran'
expect_rc 2
expect_err '^error: requested measurements could not be scheduled on Apple A14/M1 (8 general and 2 fixed counters)$'
expect_err '^tip: --passes measures them in several passes per command'
[ ! -e ran ] || fail "command ran although its events cannot be scheduled"

run "$LAUKA" --color never --backend kperf --passes -n 3 -m $set4 --export-json r.json -- "$LAUKA_BUILD/kperf-spin 20" "$LAUKA_BUILD/kperf-spin 40"
expect_rc 0
expect_out '^2 passes: each command runs once per pass; pass 1: .*; 2: '
for e in inst_branch l1d_cache_miss_ld_nonspec branch_mispred_nonspec inst_all; do
	expect_out "^$e "
done
# The stand-in samples like kperf, so a loaded machine may miss a run; a warning about it counts the
# runs of the event's own pass (3), never the other pass's runs as missed.
printf '%s\n' "$err" | grep 'was not counted in' | grep -v "of command [12]'s 3 runs" &&
	fail "runs of the other pass counted as missed: $err"
python3 - r.json <<'PY' || fail "JSON: passes not as planned"
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["commands"]:
    assert c["runs"] == 6, c["runs"]                     # 3 runs x 2 passes
    m = {x["name"]: x for x in c["measurements"]}
    assert len(m["wall_time"]["samples"]) == 6 and None not in m["wall_time"]["samples"]
    passes = {}
    for e in ("inst_branch", "l1d_cache_miss_ld_nonspec", "branch_mispred_nonspec", "inst_all"):
        s = m[e]["samples"]
        counted = [i for i, v in enumerate(s) if v is not None]
        half = {i // 3 for i in counted}
        assert len(half) == 1 and m[e]["runs_counted"] == len(counted), (e, s)   # one pass's runs only
        passes.setdefault(half.pop(), []).append(e)
    assert len(passes) == 2, passes                      # both passes used
    # the 40 ms spin retires more branches than the 20 ms one (the stand-in counts the real child)
a, b = ({x["name"]: x for x in c["measurements"]} for c in d["commands"])
assert b["inst_branch"]["mean"] > a["inst_branch"]["mean"], (a["inst_branch"]["mean"], b["inst_branch"]["mean"])
PY
exit 0
