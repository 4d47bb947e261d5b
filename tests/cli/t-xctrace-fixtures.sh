# C9 (audit 4): xctrace exports kept with LAUKA_XCTRACE_KEEP, and those recorded on real Macs (tests/fixtures/macos), replay through lauka's parser
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed (the stand-in is a Python script)"
data="$LAUKA_SRCDIR/tests/fixtures/xctrace-data"
kpep="$LAUKA_SRCDIR/tests/fixtures/kpep-data/a14.plist"
[ -f "$data/l2-miss-xcode16.tracetemplate" ] && [ -f "$kpep" ] || skip "tests/fixtures/xctrace-data or kpep-data removed (a packager may delete them: SOURCES.txt)"
export LAUKA_XCTRACE="$LAUKA_SRCDIR/tests/support/xctrace-standin" LAUKA_KPEP_FILE="$kpep"
export LAUKA_XCTRACE_TEMPLATE="$data/l2-miss-xcode16.tracetemplate"
mkdir work kept
export TMPDIR="$PWD/work"
ev=fixed_instructions,inst_branch

# LAUKA_XCTRACE_KEEP keeps each run's TOC and export (the stand-in's here) ...
LAUKA_XCTRACE_KEEP="$PWD/kept" run "$LAUKA" --color never --backend xctrace -m $ev -n 3 --json a.json -- true
expect_rc 0
[ -f kept/toc-1.xml ] && [ -f kept/table-1.xml ] && [ -f kept/table-3.xml ] || fail "not kept: $(ls kept)"
[ -z "$(ls work)" ] || fail "left behind in TMPDIR: $(ls work)"

# replay: served back as they are, lauka reads the same counts from them.
replay() {	# replay DIR: every toc-N.xml with its table-N.xml through lauka; the JSON in replay.json
	for toc in "$1"/toc-*.xml; do
		[ -f "$toc" ] || continue
		n=${toc##*/toc-}; n=${n%.xml}
		LAUKA_STANDIN_TOC="$toc" LAUKA_STANDIN_EXPORT="$1/table-$n.xml" \
			run "$LAUKA" --color never --backend xctrace -m $ev -n 3 --json replay.json -- true
		expect_rc 0
		expect_out '^fixed_instructions '; expect_out '^inst_branch '
	done
}
replay "$PWD/kept"
python3 -c '
import json, sys
a, b = (json.load(open(f))["commands"][0]["measurements"] for f in sys.argv[1:])
c = lambda ms: [(m["name"], m["mean"]) for m in ms if m["name"] not in ("wall_time", "peak_rss")]
assert c(a) == c(b) and len(c(a)) == 2, (c(a), c(b))
' a.json replay.json || fail "replayed counts differ: $(cat a.json replay.json)"

# ... and whatever real Macs recorded (scripts/macos-fixtures.sh).
n=0
for dir in "${LAUKA_MACOS_FIXTURES:-$LAUKA_SRCDIR/tests/fixtures/macos}"/*/; do
	[ -f "$dir/toc-1.xml" ] || continue
	replay "${dir%/}"
	n=$((n + 1))
done
echo "macOS fixtures replayed: $n"
exit 0
