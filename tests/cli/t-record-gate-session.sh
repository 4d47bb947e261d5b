# record --gate on a timing measurement against a stored baseline: another session, so inconclusive with a fix:, never FAIL on drift
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
export LAUKA_DB="$PWD/db.sqlite"
P="$LAUKA_BUILD/lauka-probe"
run "$LAUKA" --backend rusage -n 3 --runner-class t --save-baseline s -- "$P alu 1e5"
expect_rc 0
# The same program: drift between the sessions (a busier machine: wall time FAIL 10/10 in the
# audit of issue 37) must not fail it, and a pass is no better founded: inconclusive, exit 4.
run "$LAUKA" --backend rusage -n 3 --color never --runner-class t --baseline s --gate wall_time=5% \
	--gate peak_rss=1000% --json s.json -- "$P alu 1e5"
expect_rc 4
expect_err "^warning: gate 'wall_time=5%': wall_time against baseline 's', measured in another session"
expect_err "^fix: measure the base build in the same invocation, where lauka interleaves their runs"
expect_out '^wall_time=5% .*inconclusive$'
# peak_rss is not a timing: it decides as before
expect_out '^peak_rss=1000% .*pass$'
printf '%s\n' "$err" | grep -q "gate 'peak_rss=1000%': peak_rss against baseline" && fail "peak_rss called a timing: $err"
python3 - <<'EOP' || fail "JSON: $(cat s.json)"
import json
d = json.load(open("s.json"))
g = {g["gate"]: g for g in d["gates"]}
w = g["wall_time=5%"]
assert w["result"] == "inconclusive" and w["basis"] in ("other_session", "too_few_runs", "unbounded"), w
assert g["peak_rss=1000%"]["result"] == "pass", g
# what the text says of the baseline, for a bot (issue 37 T8)
assert d["baseline"] == "s" and isinstance(d["baseline_environment"], str) and d["baseline_environment"], d
assert d["environment_matches"] is True, d["environment_matches"]
assert "baseline_commit" in d
EOP
# Another environment (a time zone set): the warning, and the JSON says it does not match.
TZ=Pacific/Auckland run "$LAUKA" --backend rusage -n 3 --runner-class t --baseline s --gate peak_rss=1000% \
	--json e.json -- "$P alu 1e5"
expect_err "^warning: baseline 's' was measured with another environment"
python3 -c 'import json; d = json.load(open("e.json")); assert d["environment_matches"] is False, d; assert "TZ" not in d["baseline_environment"] or "Auckland" not in d["baseline_environment"], d' \
	|| fail "environment_matches: $(cat e.json | head -c 600)"
run "$LAUKA" --backend rusage -n 3 --json n.json -- "$P alu 1e5"
python3 -c 'import json; d = json.load(open("n.json")); assert d["baseline"] is None and d["environment_matches"] is None and d["baseline_commit"] is None, d' \
	|| fail "no baseline: $(head -c 600 n.json)"
# --gate-inconclusive fail makes it exit 3, as for any inconclusive gate
run "$LAUKA" --backend rusage -n 3 --color never --runner-class t --baseline s --gate wall_time=5% \
	--gate-inconclusive fail -- "$P alu 1e5"
expect_rc 3
# cpu_time under rusage (issue 37 T5): user + system, every run; a timing measurement for gates.
run "$LAUKA" --backend rusage -n 3 --json c.json -m user_time,sys_time,cpu_time -- "$P alu 1e5" "$P alu 1e5"
expect_rc 0
python3 -c 'import json
d = json.load(open("c.json"))
for c in d["commands"]:
    m = {x["name"]: x["samples"] for x in c["measurements"]}
    assert all(u + s == t for u, s, t in zip(m["user_time"], m["sys_time"], m["cpu_time"])), m' || fail "cpu_time: $(head -c 900 c.json)"
run "$LAUKA" counters --backend rusage --no-headers
expect_out '^cpu_time'
run "$LAUKA" --backend rusage -n 3 --gate cpu_time=1000% -- "$P alu 1e5" "$P alu 1e5"
expect_err "^warning: gate 'cpu_time=1000%': cpu_time is a timing measurement"
# A gate on a measurement the baseline lacks (issue 37 T7): the fix: is to save the baseline with
# it, not to measure what the baseline has (which drops the gated measurement again).
run "$LAUKA" --backend rusage -n 3 --runner-class t --baseline s --gate sys_time=5% -- "$P alu 1e5"
expect_rc 1
expect_err "^error: baseline 's' has other measurements than this run: not in the baseline: sys_time$"
expect_err "^fix: gate 'sys_time=5%' needs sys_time, which baseline 's' was saved without: save the baseline again with it (--save-baseline s -m wall_time,peak_rss,sys_time)"
printf '%s\n' "$err" | grep -q "fix: measure what the baseline has" && fail "the fix: loops: $err"
exit 0
