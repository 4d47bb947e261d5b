# record --json: every command, measurement, statistic, delta and sample in a JSON file
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

# Sleeps long enough that load cannot blur them: on a loaded machine each run's wall time gains
# 0-50 ms of start-up and wake-up delay (seen with 12 runnable processes on 2 cores), which turned
# 10 ms against 30 ms into "no significant change" 4 times of 4.  Against 300 ms and 1 s, even one run
# delayed by 300 ms leaves the reference clearly above zero and the change clearly above +50%.
run "$LAUKA" --json r.json -n 4 -- 'sleep 0.3' 'sleep 1'
expect_rc 0
[ -s r.json ] || fail "no JSON written"
grep -q '"command": "sleep 1"' r.json || fail "command missing: $(cat r.json)"
grep -q '"name": "wall_time", "unit": "ns"' r.json || fail "wall_time missing"
grep -q '"verdict": "worse"' r.json || fail "delta missing"
if command -v python3 >/dev/null; then
	python3 - <<'EOP' || fail "JSON check failed: $(cat r.json)"
import json
d = json.load(open("r.json"))
a, b = d["commands"]
assert a["runs"] == 4 and b["runs"] == 4
wa = next(m for m in a["measurements"] if m["name"] == "wall_time")
wb = next(m for m in b["measurements"] if m["name"] == "wall_time")
assert len(wa["samples"]) == 4 and min(wa["samples"]) == wa["min"]
assert "delta" not in wa and wb["delta"]["verdict"] == "worse" and wb["delta"]["percent"] > 50
db = wb["delta"]
assert 1 < db["ci95_low"] < db["percent"] < db["ci95_high"], db
EOP
fi
run "$LAUKA" --json /nonexistent-dir/r.json -- true
expect_rc 1; expect_err "cannot write '/nonexistent-dir/r.json'"
# A command that fails on its first run is still in the export, with its code and no runs.
run "$LAUKA" --json f.json -- true "sh -c 'exit 3'"
expect_rc 3
grep -q "\"command\": \"sh -c 'exit 3'\", \"name\": null, \"exit_code\": 3, \"failed_step\": \"command\", \"runs\": 0" f.json ||
	fail "the failing command is missing: $(cat f.json)"
# --export-json -: standard output holds the JSON alone, even with --show-output (the command's
# output goes to standard error); hyperfine's user and system are filled from each run's rusage
# without -m user_time,sys_time.
"$LAUKA" --backend rusage -n 3 --show-output --export-json - -- 'echo from-the-command' 'sh -c "echo e >&2"' \
	> so.txt 2> se.txt || fail "lauka failed: $(cat se.txt)"
python3 -c 'import json, sys
d = json.load(open("so.txt"))
for r in d["results"]:
    assert r["user"] is not None and r["system"] is not None, r
    assert r["user"] >= 0 and r["system"] >= 0, r' || fail "stdout is not the JSON alone, or user/system null: $(cat so.txt)"
[ "$(grep -c '^from-the-command$' se.txt)" -eq 3 ] || fail "the command's output should be on stderr: $(cat se.txt)"
# The variables that change what a program does are recorded as the commands got them (issue 28):
# the locale, the time zone, a hash seed; nothing else of the environment.
env -u LANG -u LANGUAGE LC_ALL=C.UTF-8 TZ=Europe/Helsinki PYTHONHASHSEED=7 NOT_RECORDED=1 \
	"$LAUKA" --backend rusage -n 3 --export-json env.json -- true 2> se.txt || fail "lauka failed: $(cat se.txt)"
python3 -c 'import json, os
d = json.load(open("env.json"))
want = {k: v for k, v in os.environ.items() if k.startswith("LC_") or k in ("TZ", "PYTHONHASHSEED", "PERL_HASH_SEED", "PERL_PERTURB_KEYS")}
want.update({"LC_ALL": "C.UTF-8", "TZ": "Europe/Helsinki", "PYTHONHASHSEED": "7"})
assert d["environment"] == want, (d["environment"], want)' || fail "environment not recorded: $(grep environment env.json)"
exit 0
