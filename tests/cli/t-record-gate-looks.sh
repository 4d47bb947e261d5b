# record --gate without -n: a gate that cannot tell adds interleaved rounds on a fixed schedule of looks, intervals widened (Bonferroni)
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
P="$LAUKA_BUILD/lauka-probe"
# The same command twice at a 0% limit: the true change is 0, so the interval straddles the
# limit at every look (unless it errs, at most 2.5% of the time): 10 runs, then 20, then 40
# (--max-runs 40), each look at 1 - 0.05/3, then inconclusive.  Which way it ends does not depend on
# the machine's load; only how wide the intervals are does.
run "$LAUKA" --backend rusage --color never --max-runs 40 --gate wall_time=0% --json l.json -- true true
case $rc in 3|4) ;; *) fail "exit $rc: $err" ;; esac
expect_out '^FAIL: the change.s 98.33% interval lies wholly above the limit;$'
expect_out '^(3 looks planned, each at 98.33% confidence'
if [ "$rc" = 4 ]; then
	expect_out "^(gate 'wall_time=0%' cannot tell at 10 runs: .*;$"
	expect_out "^ look 2 of 3 at 20 runs)$"
	expect_out "^(gate 'wall_time=0%' cannot tell at 20 runs: .*;$"
	expect_out "^ look 3 of 3 at 40 runs)$"
	expect_out '^Benchmark 1 (40 runs): true$'
	expect_out '^Benchmark 2 (40 runs): true$'
	expect_out '^wall_time=0% .*inconclusive$'
fi
python3 - "$rc" <<'EOP' || fail "JSON: $(cat l.json)"
import json, sys
d = json.load(open("l.json"))
(g,) = d["gates"]
assert abs(g["confidence"] - (1 - 0.05 / 3)) < 1e-12, g
runs = [c["runs"] for c in d["commands"]]
if sys.argv[1] == "4":
    assert runs == [40, 40] and g["result"] == "inconclusive", (runs, g)
    # the widened interval holds the 95% one of the delta column
    m = next(m for m in d["commands"][1]["measurements"] if m["name"] == "wall_time")["delta"]
    if m["ci95_low"] is not None and g["ci95_low"] is not None:
        assert g["ci95_low"] <= m["ci95_low"] and g["ci95_high"] >= m["ci95_high"], (g, m)
EOP
# A limit the data clears at the first look: 10 runs each, no more, and a pass.
run "$LAUKA" --backend rusage --color never --max-runs 40 --gate wall_time=100000% -- true true
expect_rc 0
expect_out '^Benchmark 1 (10 runs): true$'
expect_out '^wall_time=100000% .*pass$'
printf '%s\n' "$out" | grep -q 'cannot tell at' && fail "looked again after a pass: $out"
# -n fixes the count: one look, at 95%
run "$LAUKA" --backend rusage --color never -n 5 --gate wall_time=0% -- true true
case $rc in 3|4) ;; *) fail "exit $rc: $err" ;; esac
expect_out "95% interval"
printf '%s\n' "$out" | grep -q 'cannot tell at' && fail "-n 5 looked again: $out"
exit 0
