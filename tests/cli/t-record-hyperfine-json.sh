# --export-json carries hyperfine's "results" (the keys and JSON types real hyperfine writes, times in seconds, one per command) beside lauka's keys, as hyperfine's welch_ttest.py and advanced_statistics.py read them
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v hyperfine >/dev/null || skip "hyperfine is not installed"
hyperfine --help 2>/dev/null | grep -q -- '--shell' || skip "this hyperfine has no -N (--shell=none)"

# The reference: hyperfine's own export of the same two commands.
hyperfine -N --style none --runs 3 --export-json h.json 'true' 'sleep 0.02' >/dev/null 2>hf.err || fail "hyperfine: $(cat hf.err)"
run "$LAUKA" record --backend rusage -n 4 -m user_time,sys_time --command-name yes --export-json l.json -- 'true' 'sleep 0.02'
expect_rc 0
python3 - <<'EOP' || fail "lauka's results differ from hyperfine's shape: $(cat l.json)"
import json, statistics
h = json.load(open("h.json"))["results"]
doc = json.load(open("l.json"))
l = doc["results"]
# lauka's own keys stay where they are.
assert "commands" in doc and "gates" in doc
assert len(l) == len(doc["commands"]) == 2, len(l)
jtype = lambda v: {bool: "bool", int: "number", float: "number", str: "string", list: "list", dict: "object", type(None): "null"}[type(v)]
for hr, lr, cmd in zip(h, l, doc["commands"]):
    # Every key hyperfine writes (the ones its scripts read among them), with the same JSON type.
    for k, v in hr.items():
        assert k in lr, "no %r in %r" % (k, lr)
        assert jtype(lr[k]) == jtype(v), (k, lr[k], v)
    times = lr["times"]
    wall = [m for m in cmd["measurements"] if m["name"] == "wall_time"][0]["samples"]
    assert times == [w / 1e9 for w in wall], (times, wall)
    assert len(times) == cmd["runs"] == 4 and lr["exit_codes"] == [0] * 4
    # hyperfine's definitions, from Python's statistics module: sample standard deviation (n - 1).
    close = lambda a, b: abs(a - b) <= 1e-12 * max(1.0, abs(b))
    assert close(lr["mean"], statistics.mean(times))
    assert close(lr["stddev"], statistics.stdev(times))
    assert close(lr["median"], statistics.median(times))
    assert lr["min"] == min(times) and lr["max"] == max(times)
    for k, name in (("user", "user_time"), ("system", "sys_time")):
        s = [m for m in cmd["measurements"] if m["name"] == name][0]["samples"]
        assert close(lr[k], statistics.mean(s) / 1e9), (k, lr[k], s)
# Seconds, as hyperfine's.  Not a ratio of the two tools' times, which the machine's load moves
# (a loaded run crossed 0.5): sleep 0.02 cannot end before 0.02 s, and a unit slip (ms, us, ns)
# would give 20 or more.  Each tool is held to the same bounds on its own.
for r in (l[1], h[1]):
    assert 0.02 <= r["mean"] < 10 and 0.02 <= r["min"], (r["mean"], r["min"])
# --command-name names the command in "command", as hyperfine's -n does.
assert l[0]["command"] == "yes" and l[1]["command"] == "sleep 0.02", [r["command"] for r in l]
EOP

# What welch_ttest.py and advanced_statistics.py do with the file (not their code): two results,
# each a command string and a list of at least two numeric times.
python3 -c 'import json
r = json.load(open("l.json"))["results"]
assert len(r) == 2 and all(isinstance(x["command"], str) and len(x["times"]) >= 2 and all(isinstance(t, float) for t in x["times"]) for x in r)' ||
	fail "the results do not give the scripts two commands with times"
