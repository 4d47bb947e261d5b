# calibrate --plot and counters --details --plot: valid standalone SVG naming every event and probe with its stored verdict; calibrate's progress line (pass, probe, scale, ETA) only on a capable terminal
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed: no calibration to plot"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed: cannot parse the SVG"

# An unwritable plot is refused before anything runs.
run "$LAUKA" calibrate --backend valgrind --quick --plot /nonexistent-dir/cal.svg
expect_rc 1; expect_err "cannot write '/nonexistent-dir/cal.svg'"; expect_no_out
# Nothing stored yet for this backend: said so, with the command that fixes it.
run "$LAUKA" counters --backend valgrind --details --plot none.svg
expect_rc 2; expect_err "no valgrind calibration"; expect_err "fix: calibrate first"
[ ! -e none.svg ] || fail "a plot was written without a calibration"

if command -v script >/dev/null 2>&1; then
	script -qec "$LAUKA calibrate --backend valgrind --quick --plot cal.svg" /dev/null > tty.txt 2>&1 ||
		fail "calibrate under a pty failed: $(cat tty.txt)"
	grep -q 'pass 1/1: alu 1x (n=1000000)' tty.txt || fail "no pass/probe/scale progress: $(cat -v tty.txt | head -5)"
	grep -q 'pass 1/1: store 4x (n=2000000)  ETA [0-9]' tty.txt || fail "no ETA: $(cat -v tty.txt | head -5)"
	grep -q 'warm-up alu' tty.txt || fail "no warm-up progress"
else
	echo "script(1) missing: progress on a terminal not tested"
	run "$LAUKA" calibrate --backend valgrind --quick --plot cal.svg
	expect_rc 0
fi
# To a pipe: no progress at all.
run "$LAUKA" calibrate --backend valgrind --quick --plot cal.svg
expect_rc 0; expect_out "plot written to 'cal.svg'"
# The table calibrate printed (response = (c4 - c1)/3n, computed from the counts) is what the plot
# must show, though the plot is drawn from the per-unit values stored in the database.
printf '%s\n' "$out" | awk '$1 == "event" { on = 1; next } on && NF == 0 { exit } on { print $1, $4, $5, $6, $7 }' > table.txt
[ "$(head -1 table.txt | wc -w)" -eq 5 ] || fail "cannot read calibrate's table: $out"
[ "$(wc -l < table.txt)" -ge 10 ] || fail "too few rows in calibrate's table: $out"
printf '%s' "$err" | grep -q 'pass 1/1' && fail "progress written to a pipe: $err"

run "$LAUKA" counters --backend valgrind --details
expect_rc 0
printf '%s\n' "$out" | awk 'NR > 1 { print $1 "\t" $3 }' > verdicts.tsv
[ "$(wc -l < verdicts.tsv)" -ge 10 ] || fail "too few events: $out"
run "$LAUKA" counters --backend valgrind --details --plot again.svg
expect_rc 0; expect_err "plot written to 'again.svg'"
printf '%s\n' "$out" | grep -q 'plot written' && fail "counters --plot wrote its message to stdout"
cmp -s cal.svg again.svg || fail "counters --details --plot drew a different picture from the same stored calibration"

python3 - cal.svg verdicts.tsv table.txt <<'PY' || fail "SVG check failed"
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == ns + "svg", root.tag
for el in root.iter():
    tag = el.tag.replace(ns, "")
    assert tag not in ("script", "foreignObject", "image", "style"), "forbidden element " + tag
    for k, v in el.attrib.items():
        assert "href" not in k and not k.startswith("on"), "attribute %s on %s" % (k, tag)
        assert "url(" not in v and "http" not in v.replace("http://www.w3.org/2000/svg", ""), v
texts = [("".join(t.itertext())) for t in root.iter(ns + "text")]
for p in ("alu", "chase", "branch", "store"):
    assert p in texts, "probe %s not in the legend" % p
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
for name, verdict in rows:
    i = texts.index(name)            # the event's label
    # the first word of the verdict, as counters --details prints it, is the row's verdict label
    assert any(t.split()[:1] == [verdict] for t in texts[i + 1:i + 3]), (name, verdict, texts[i:i + 4])
# every event on every probe: a marker with its value, or a "not measured" row
titles = ["".join(t.itertext()) for t in root.iter(ns + "title")]
for name, verdict in rows:
    if verdict in ("unsupported", "unschedulable"):
        continue
    for p in ("alu", "chase", "branch", "store"):
        assert any(t.startswith("%s on %s: " % (name, p)) for t in titles), "no marker for %s on %s" % (name, p)
# every value of calibrate's table, as drawn
probes = ("alu", "chase", "branch", "store")
value = {}
for t in titles:
    head, _, rest = t.partition(": ")
    value[head] = float(rest.split()[0])
for line in open(sys.argv[3]):
    ev, *cells = line.split()
    for p, cell in zip(probes, cells):
        v = value["%s on %s" % (ev, p)]
        if cell == "0":
            assert abs(v) < 5e-5, (ev, p, cell, v)
        else:
            assert abs(v - float(cell)) <= 1e-3 * abs(float(cell)), (ev, p, cell, v)
# Ir is 2 per alu iteration under valgrind (exact), drawn as such
assert "Ir on alu: 2 per unit" in titles, [t for t in titles if t.startswith("Ir on")]
# gridline labels, one per factor of ten, around 1
for lab in ("0.001", "0.01", "0.1", "1", "10"):
    assert lab in texts, "no gridline label " + lab
PY
if command -v rsvg-convert >/dev/null 2>&1; then
	rsvg-convert -o cal.png cal.svg || fail "rsvg-convert cannot render the plot"
	[ -s cal.png ] || fail "empty rendering"
fi
# TERM=dumb: no progress even on a terminal.
if command -v script >/dev/null 2>&1; then
	TERM=dumb script -qec "$LAUKA calibrate --backend valgrind --quick" /dev/null > dumb.txt 2>&1
	grep -q 'pass 1/1' dumb.txt && fail "progress on TERM=dumb: $(cat -v dumb.txt | head -3)"
fi
exit 0
