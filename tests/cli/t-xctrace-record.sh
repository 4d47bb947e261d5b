# xctrace backend end to end through tests/support/xctrace-standin: templates, TOC labels, pid filter, exit status, JSON
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed (the stand-in is a Python script)"
data="$LAUKA_SRCDIR/tests/fixtures/xctrace-data"
kpep="$LAUKA_SRCDIR/tests/fixtures/kpep-data/a14.plist"
[ -f "$data/counters-profile.xml" ] && [ -f "$kpep" ] || skip "tests/fixtures/xctrace-data or kpep-data absent (SOURCES.txt there says what they are)"

if [ "$(uname -s)" != Darwin ]; then
	run "$LAUKA" -n 3 --backend xctrace -- true
	expect_rc 1; expect_err "unknown backend 'xctrace'"
fi

export LAUKA_XCTRACE="$LAUKA_SRCDIR/tests/support/xctrace-standin" LAUKA_KPEP_FILE="$kpep"
export LAUKA_XCTRACE_TMPDIR="$PWD/darwin-tmp" LAUKA_STANDIN_LOG="$PWD/standin.log"
mkdir darwin-tmp work
: > darwin-tmp/instruments-other.ktrace	# another session's: must survive
export TMPDIR="$PWD/work"

clean() {
	[ -z "$(ls work)" ] || fail "left behind in TMPDIR: $(ls work)"
	[ "$(ls darwin-tmp)" = instruments-other.ktrace ] || fail "ktrace files: $(ls darwin-tmp)"
}
val() {	# val JSON-FILE MEASUREMENT: the mean of one measurement
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([m for m in d["commands"][0]["measurements"] if m["name"]==sys.argv[2]][0]["mean"])' "$1" "$2"
}

for tmpl in cpu-counters-template-legacy.xml l2-miss-xcode16.tracetemplate; do
	export LAUKA_XCTRACE_TEMPLATE="$data/$tmpl"
	# The stand-in decodes the template with plistlib and lists its events in the TOC, in the template's
	# order; row values are (position + 1) * 1000 for the target and 1e9 for pid 0 and another process.
	run "$LAUKA" -n 3 --color never --backend xctrace -m l1d_cache_miss_ld_nonspec,cycles --json r.json -- true
	expect_rc 0
	expect_out '^fixed_cycles '; expect_out '^l1d_cache_miss_ld_nonspec '
	# fixed events are added first (the order that realises the counter assignment)
	[ "$(val r.json fixed_cycles)" = 10000 ] || fail "$tmpl: fixed_cycles $(val r.json fixed_cycles)"
	[ "$(val r.json l1d_cache_miss_ld_nonspec)" = 20000 ] || fail "$tmpl: l1d $(val r.json l1d_cache_miss_ld_nonspec)"
	grep -q -- "--template $TMPDIR/lauka-xctrace\.[A-Za-z0-9]*/lauka.tracetemplate --output" standin.log || fail "record args: $(cat standin.log)"
	grep -q -- "--no-prompt --launch -- /[a-z/]*true$" standin.log || fail "--launch not last: $(cat standin.log)"
	clean
done

# Per-thread totals in --json, and the scope.
python3 - r.json <<'EOF' || fail "json threads"
import json, sys
d = json.load(open(sys.argv[1]))["commands"][0]["xctrace"]
assert d["scope"] == "launched process only", d
runs = d["runs"]
assert len(runs) == 3, runs
for r in runs:
    assert r["rows"] == 10 and r["rows_other_processes"] == 5, r
    assert sorted(t["tid"] for t in r["threads"]) == [7001, 7002], r
    assert all(t["counts"]["FIXED_CYCLES"] == 5000 for t in r["threads"]), r
EOF

# Interleaved rounds with warm-ups: each command's JSON holds the details of its own measured runs
# only (they were once gathered when a command finished, so the first to finish took every run so far).
run "$LAUKA" --color never --backend xctrace -m cycles --interleave --seed 3 --warmup 1 -n 3,4 --json i.json -- true 'sh -c true'
expect_rc 0
python3 - i.json <<'EOF' || fail "interleaved per-command details"
import json, sys
c = json.load(open(sys.argv[1]))["commands"]
assert [len(x["xctrace"]["runs"]) for x in c] == [3, 4], [len(x["xctrace"]["runs"]) for x in c]
assert all(x["xctrace"]["scope"] == "launched process only" for x in c)
EOF
clean

# A real export (Instruments 14.3.1, PMI-triggered) served as the counters-profile table:
# the sums over pid 1512 are reference/xctrace.md's golden values.
LAUKA_STANDIN_EXPORT="$data/counters-profile.xml" LAUKA_STANDIN_PID=1512 \
	run "$LAUKA" -n 3 --color never --backend xctrace -m l1d_cache_miss_ld_nonspec,branch_mispred_nonspec --json g.json -- true
expect_rc 0
a=$(val g.json l1d_cache_miss_ld_nonspec); b=$(val g.json branch_mispred_nonspec)
[ "$a $b" = "251 198421070" ] || [ "$a $b" = "198421070 251" ] || fail "golden totals: $a $b"
clean

# The same export as a PMI-triggered recording: the trigger event's total is the sum of the weights
# (205 rows x the 1000000 threshold), the others still the sums of their values.
LAUKA_STANDIN_EXPORT="$data/counters-profile.xml" LAUKA_STANDIN_PID=1512 LAUKA_STANDIN_PMI=FIXED_INSTRUCTIONS \
	run "$LAUKA" -n 3 --color never --backend xctrace -m l1d_cache_miss_ld_nonspec,branch_mispred_nonspec,instructions --json p.json -- true
expect_rc 0
[ "$(val p.json fixed_instructions)" = 205000000 ] || fail "PMI weights: $(val p.json fixed_instructions)"
a=$(val p.json l1d_cache_miss_ld_nonspec); b=$(val p.json branch_mispred_nonspec)
[ "$a $b" = "251 198421070" ] || [ "$a $b" = "198421070 251" ] || fail "PMI totals: $a $b"
clean

# Events that cannot be counted together are refused as for kperf, before anything runs.
run "$LAUKA" -n 3 --backend xctrace -m inst_branch,l1d_cache_miss_ld_nonspec,branch_mispred_nonspec,inst_all -- 'touch ran'
expect_rc 2
expect_err '^error: requested measurements could not be scheduled on Apple A14/M1 (8 general and 2 fixed counters)$'
expect_err '^tip: these events cannot be counted together: .*inst_all'
[ ! -e ran ] || fail "command ran although its events cannot be scheduled"
clean

# The command's exit status comes from the TOC (the child is xctrace, exit 0).
run "$LAUKA" -n 3 --backend xctrace -m cycles -- false
expect_rc 1; expect_err "failed with exit code 1"
clean
run "$LAUKA" -n 3 --backend xctrace -m cycles -- "sh -c 'exit 7'"
expect_rc 7
clean

# An export whose arrays do not match the TOC's names is refused.
LAUKA_STANDIN_MODE=badexport run "$LAUKA" -n 3 --backend xctrace -m cycles,instructions -- true
expect_rc 2; expect_err "the table of contents names 2 events"
clean

# N2 (audit 3): xctrace may record other events than the list lauka wrote into the template (the
# Xcode 16 layout's element format is inferred; both real Xcode 16 templates have an empty list).
# Every recording's TOC is compared with the request: a missing event is exit 2 naming it, what the
# recording holds and the template, never a "<not counted>" row with exit 0 (the old code's result).
for tmpl in cpu-counters-template-legacy.xml l2-miss-xcode16.tracetemplate; do
	export LAUKA_XCTRACE_TEMPLATE="$data/$tmpl"
	LAUKA_STANDIN_RECORDS=L1D_CACHE_MISS_LD_NONSPEC run "$LAUKA" -n 3 --color never --backend xctrace -m l1d_cache_miss_ld_nonspec,cycles -- true
	expect_rc 2
	expect_err "^error: .*the recording lacks FIXED_CYCLES: its pmc-events are \[L1D_CACHE_MISS_LD_NONSPEC\]; .*template '$data/$tmpl'"
	printf '%s\n' "$out" | grep -q 'not counted' && fail "N2: a not-counted row: $out"
	clean
	LAUKA_STANDIN_RECORDS= run "$LAUKA" -n 3 --color never --backend xctrace -m l1d_cache_miss_ld_nonspec,cycles -- true
	expect_rc 2
	expect_err "the recording lacks L1D_CACHE_MISS_LD_NONSPEC, FIXED_CYCLES: its pmc-events are \[\]"
	clean
	# The same events in another order (and one more) are what was asked for: counted.
	LAUKA_STANDIN_RECORDS="L1D_CACHE_MISS_LD_NONSPEC INST_ALL FIXED_CYCLES" run "$LAUKA" -n 3 --color never --backend xctrace -m l1d_cache_miss_ld_nonspec,cycles -- true
	expect_rc 0
	clean
done
export LAUKA_XCTRACE_TEMPLATE="$data/l2-miss-xcode16.tracetemplate"	# as after the first loop

# N6 (audit 3): without LAUKA_XCTRACE_TEMPLATE the base is searched in Instruments.app and in the
# macOS platform's Templates directory of $DEVELOPER_DIR (the old code searched Instruments.app only).
dev="$PWD/Xcode.app/Contents/Developer"
mkdir -p "$dev/Platforms/MacOSX.platform/Developer/Library/Instruments/Templates" "$PWD/Xcode.app/Contents/Applications"
cp "$data/l2-miss-xcode16.tracetemplate" "$dev/Platforms/MacOSX.platform/Developer/Library/Instruments/Templates/CPU Counters.tracetemplate"
run env -u LAUKA_XCTRACE_TEMPLATE DEVELOPER_DIR="$dev" "$LAUKA" -n 3 --color never --backend xctrace -m cycles -- true
expect_rc 0; expect_out '^fixed_cycles '
clean
rm -r "$dev/Platforms"
run env -u LAUKA_XCTRACE_TEMPLATE DEVELOPER_DIR="$dev" "$LAUKA" -n 3 --color never --backend xctrace -m cycles -- 'touch ran'
expect_rc 2; expect_err "^error: xctrace backend: no 'CPU Counters.tracetemplate' found in Xcode's Instruments.app or its macOS platform Templates"
[ ! -e ran ] || fail "ran without a template"
clean

# A1/C6 (audit 4): an Xcode installed as Xcode-16.2.app (the `xcodes` tool's naming) is found from
# `xcrun --find xctrace`, as xcrun finds it (the old code looked only in $DEVELOPER_DIR and
# /Applications/Xcode.app, and failed manual mode).  Fake xcrun and xcode-select answer as Apple's do.
x16="$PWD/Xcode-16.2.app"
mkdir -p "$x16/Contents/Applications/Instruments.app/Contents/Resources/Templates" "$x16/Contents/Developer/usr/bin" fake
cp "$data/l2-miss-xcode16.tracetemplate" "$x16/Contents/Applications/Instruments.app/Contents/Resources/Templates/CPU Counters.tracetemplate"
printf '#!/bin/sh\n[ "$1 $2" = "--find xctrace" ] && { echo "%s/Contents/Developer/usr/bin/xctrace"; exit 0; }\nexit 1\n' "$x16" > fake/xcrun
printf '#!/bin/sh\necho /Applications/Xcode.app/Contents/Developer\n' > fake/xcode-select
chmod +x fake/xcrun fake/xcode-select
PATH="$PWD/fake:$PATH" run env -u LAUKA_XCTRACE_TEMPLATE -u DEVELOPER_DIR "$LAUKA" --color never --backend xctrace -m cycles -- true
expect_rc 0; expect_out '^fixed_cycles '
clean
# The Command Line Tools selected: xcrun cannot find xctrace; said so, with the fix line.
printf '#!/bin/sh\necho "xcrun: error: unable to find utility \\"xctrace\\", not a developer tool or in PATH" >&2\nexit 72\n' > fake/xcrun
printf '#!/bin/sh\necho /Library/Developer/CommandLineTools\n' > fake/xcode-select
PATH="$PWD/fake:$PATH" run env -u LAUKA_XCTRACE_TEMPLATE -u DEVELOPER_DIR "$LAUKA" --color never --backend xctrace -m cycles -- 'touch ran'
expect_rc 2
expect_err "^error: xctrace backend: xcode-select points at the Command Line Tools (/Library/Developer/CommandLineTools), which have no Instruments"
# With no Xcode in /Applications (as here), the path to select does not exist yet: install first.
if ls -d /Applications/Xcode*.app/Contents/Developer >/dev/null 2>&1; then
	expect_err '^fix: sudo xcode-select -s /Applications/Xcode.*\.app/Contents/Developer$'
else
	expect_err '^fix: install Xcode (App Store), then sudo xcode-select -s /Applications/Xcode.app/Contents/Developer$'
fi
[ ! -e ran ] || fail "ran with the Command Line Tools selected"
clean
# The licence not accepted: xcrun refuses every tool until it is; said so, with the fix line.
LAUKA_STANDIN_MODE=license run "$LAUKA" --color never --backend xctrace -m cycles -- 'touch ran'
expect_rc 2
expect_err "^error: xctrace backend: the Xcode licence has not been accepted"
expect_err '^fix: sudo xcodebuild -license accept$'
[ ! -e ran ] || fail "ran without the licence"
clean

# --show-output passes the command's stdout through (--target-stdout -, before --launch, as JMH
# records); xctrace's own messages are still read from the log, so the benign exit 2 stays benign.
# Without it the output is dropped (the old code dropped it in both cases).
for mode in ok benign; do
	LAUKA_STANDIN_MODE=$mode run "$LAUKA" -n 3 --color never --show-output --backend xctrace -m cycles -- 'echo hello-from-target'
	expect_rc 0
	[ "$(printf '%s\n' "$out" | grep -c '^hello-from-target$')" = 3 ] || fail "--show-output ($mode): $out"
	grep -q -- "--target-stdout - --launch" standin.log || fail "no --target-stdout: $(tail -1 standin.log)"
	clean
done
run "$LAUKA" -n 3 --color never --backend xctrace -m cycles -- 'echo hello-from-target'
expect_rc 0
printf '%s\n' "$out" | grep -q '^hello-from-target$' && fail "output shown without --show-output: $out"
clean

# N3 (audit 3): a row of the target without counter values (a thread sampled while blocked) is
# skipped and counted, not an error for the whole export (the old code failed the run on it).
LAUKA_STANDIN_BLANKROW=1 run "$LAUKA" -n 3 --color never --backend xctrace -m cycles --json b.json -- true
expect_rc 0
[ "$(val b.json fixed_cycles)" = 10000 ] || fail "blank row: fixed_cycles $(val b.json fixed_cycles)"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["commands"][0]["xctrace"]["runs"]; assert all(x["rows_without_values"] == 1 and x["rows"] == 10 for x in r), r' b.json ||
	fail "blank row not counted: $(cat b.json)"
clean

# No template lauka can patch: one line, before anything runs.
LAUKA_XCTRACE_TEMPLATE="$data/pmc-toc.xml" run "$LAUKA" -n 3 --backend xctrace -m cycles -- 'touch ran'
expect_rc 2; expect_err "^error: xctrace backend: template '.*pmc-toc.xml': not a property list"
[ ! -e ran ] || fail "ran without a template"
clean

# doctor says which backend counts the kpep events without root.
run "$LAUKA" doctor --backend xctrace
expect_rc 0; expect_out '^info  xctrace  *xctrace found: record and calibrate --backend xctrace work without root'
expect_out '^ok    xctrace self-check '

# A2/C7 (audit 4): the xctrace self-check.  doctor records lauka-probe alu (2 instructions per
# iteration) with FIXED_INSTRUCTIONS and compares the export's total with 2N (±2%); the stand-in
# serves 2N * LAUKA_STANDIN_ALU_FACTOR (+ start-up).  A failed check marks every later xctrace
# record as suspect, with the reason, until a check passes (the old code had no check at all).
LAUKA_STANDIN_ALU_FACTOR=1 run "$LAUKA" doctor --backend xctrace
expect_rc 0
expect_out '^ok    xctrace self-check  *200150000 of 200000000 (100.1%)$'
run "$LAUKA" --color never --backend xctrace -m cycles -- true
expect_rc 0
printf '%s\n' "$err" | grep -q suspect && fail "suspect after a passing check: $err"
clean
LAUKA_STANDIN_ALU_FACTOR=0.7 run "$LAUKA" doctor --backend xctrace
expect_rc 2
expect_out '^FAIL  xctrace self-check  *140150000 of 200000000 (70.1%): record marks xctrace counts suspect'
run "$LAUKA" --color never --backend xctrace -m cycles -- true
expect_rc 0
expect_err '^warning: xctrace counts are suspect: the last self-check failed: xctrace counted 140150000 instructions for lauka-probe alu 100000000, 70.1% of the 200000000 it retires (the end of the counter stream may be dropped when the command exits first)$'
clean
LAUKA_STANDIN_ALU_FACTOR=1.01 run "$LAUKA" doctor --backend xctrace
expect_rc 0
run "$LAUKA" --color never --backend xctrace -m cycles -- true
printf '%s\n' "$err" | grep -q suspect && fail "still suspect after a passing check: $err"
clean
