# record --plot: one row per measurement, one marker and interval per later command, agreeing with --json's deltas; refused for one command or an unwritable file
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed: cannot parse the SVG"
probe="$LAUKA_BUILD/lauka-probe"
[ -x "$probe" ] || skip "no probe program at $probe"

run "$LAUKA" --backend rusage --plot one.svg -- "$probe alu 1e5"
expect_rc 1; expect_err "give two or more commands"; expect_no_out
run "$LAUKA" --backend rusage --plot /nonexistent-dir/r.svg -- "$probe alu 1e5" "$probe alu 2e5"
expect_rc 1; expect_err "cannot write '/nonexistent-dir/r.svg'"; expect_no_out
# A directory that takes no new files though access(2) says root may write it (sysfs): refused
# before any run too, not after them with exit 2.
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel ] && ! touch /sys/kernel/lauka-test 2>/dev/null; then
	run "$LAUKA" --backend rusage --plot /sys/kernel/r.svg -- "$probe alu 1e5" "$probe alu 2e5"
	expect_rc 1; expect_err "cannot write '/sys/kernel/r.svg'"; expect_no_out
fi

run "$LAUKA" -n 3 --backend rusage -m user_time --json r.json --plot r.svg -- "$probe alu 1e6" "$probe alu 4e6" "$probe branch 1e6"
expect_rc 0
python3 - r.svg r.json "$probe" <<'PY' || fail "SVG check failed"
import json, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == ns + "svg"
for el in root.iter():
    assert el.tag.replace(ns, "") not in ("script", "foreignObject", "image", "style")
    assert not any("href" in k or k.startswith("on") for k in el.attrib)
texts = ["".join(t.itertext()) for t in root.iter(ns + "text")]
titles = ["".join(t.itertext()) for t in root.iter(ns + "title")]
data = json.load(open(sys.argv[2]))
cmds = data["commands"]
for c in cmds:
    assert c["command"] in texts, "legend lacks " + c["command"]
names = [m["name"] for m in cmds[0]["measurements"]]
assert names[:3] == ["wall_time", "peak_rss", "user_time"], names
for n in names:
    assert n in texts, "no row for " + n
def pct(v):
    return "%+.1f%%" % v
for ci, c in enumerate(cmds[1:], start=2):
    for m in c["measurements"]:
        d = m["delta"]
        head = "%s, command %d: " % (m["name"], ci)
        got = [t for t in titles if t.startswith(head)]
        assert len(got) == 1, (head, got)
        if d["percent"] is None:
            want = head + "no delta: the reference mean is 0"
        elif d.get("ci95_low") is not None:
            want = head + "%s [%s, %s]" % (pct(d["percent"]), pct(d["ci95_low"]), pct(d["ci95_high"]))
        else:
            want = head + "%s, interval unbounded" % pct(d["percent"])
        assert got[0] == want, (got[0], want)
PY
if command -v rsvg-convert >/dev/null 2>&1; then
	rsvg-convert -o r.png r.svg || fail "rsvg-convert cannot render the plot"
fi
exit 0
