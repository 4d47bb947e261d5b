# xctrace guided mode through the stand-in: calibrate names slots from synthetic Figure-11-like tables, stores the map; record --guided and counters --details use it
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed (the stand-in is a Python script)"
[ -x "$LAUKA_BUILD/lauka-probe" ] || skip "lauka-probe not built"
export LAUKA_XCTRACE="$LAUKA_SRCDIR/tests/support/xctrace-standin" LAUKA_XCTRACE_CPUFAMILY=0x8765edea
export LAUKA_PROBE="$LAUKA_BUILD/lauka-probe"
kpep="$LAUKA_SRCDIR/tests/fixtures/kpep-data/a14.plist"
[ -f "$kpep" ] || kpep="$LAUKA_SRCDIR/tests/fixtures/kpep/tiny.plist"
export LAUKA_KPEP_FILE="$kpep"
mkdir work
export TMPDIR="$PWD/work"

# No map yet: plain slot names.
run "$LAUKA" record --backend xctrace --guided -m slot0 -- true
expect_rc 0
expect_out '^slot0 '

run "$LAUKA" counters --details --backend xctrace
expect_rc 0
expect_out "no slot map for cpu family 0x8765edea; 'lauka calibrate --backend xctrace' makes one"

run "$LAUKA" record --color never --guided -- true
expect_rc 1; expect_err '^error: --guided is a mode of the xctrace backend$'; expect_err '^fix: add --backend xctrace$'

# The stand-in serves SYNTHETIC raw tables (tests/xctrace-synth.py): six slots written twice, one core
# change per recording; the cache slot (2) reads 0.0834 per work count on the control and 8.8165 on the
# chase, the mispredict slot (3) 25x the control on the branch probe, a cycle-like slot (1) 20x on chase.
LAUKA_XCTRACE_TEMPLATE="$LAUKA_SRCDIR/tests/fixtures/xctrace-data/l2-miss-xcode16.tracetemplate" LAUKA_STANDIN_LOG="$PWD/cal.log" run "$LAUKA" calibrate --backend xctrace --quick
expect_rc 0
# A2/C7 (audit 4): once per calibrate, the self-check: one manual recording of lauka-probe alu 1e8.
if [ -f "$LAUKA_SRCDIR/tests/fixtures/xctrace-data/l2-miss-xcode16.tracetemplate" ] && [ "$kpep" != "${kpep%a14.plist}" ]; then
	expect_err "^tip: xctrace self-check passed: 200150000 instructions for lauka-probe alu's 200000000"
	[ "$(grep -c 'record --template .*lauka.tracetemplate .*lauka-probe alu 100000000$' cal.log)" = 1 ] ||
		fail "C7: not one manual self-check recording: $(cat cal.log)"
fi
expect_out '^raw table: 12 values per sample, two equal halves folded; coverage'
expect_out '^slot0  *work  *1.0000  *1.0000  *1.0000$'
expect_out '^slot2  *chase-responsive  *0.0834  *8.8165 '	# N3: 26 per chase step, not a miss count
expect_out '^slot3  *branch-misses '
expect_out '^slot1  *-  '
expect_out 'chase-responsive slot2 (chase 10[0-9]x the control, runner-up 20x; 26.[0-9] per chase step, not a miss count); branch-misses slot3 (branch 2[45]\.*[0-9]*x the control, runner-up [0-9.]*x; 0.[56][0-9]* per branch iteration)'
expect_out "slot map stored for cpu family 0x8765edea, xctrace 16.0 (16A242d), counting mode 'bottleneck'"
[ -z "$(ls work)" ] || fail "left behind: $(ls work)"

run "$LAUKA" counters --details --backend xctrace
expect_rc 0
expect_out "cpu family 0x8765edea, xctrace 16.0 (16A242d), counting mode 'bottleneck'"
expect_out '^  slot2  *chase-responsive '

run "$LAUKA" record --color never --backend xctrace --guided -m slot0,slot2,slot3 -- "$LAUKA_PROBE chase 1000000 256M"
expect_rc 0
expect_out '^work (slot0) '; expect_out '^chase-responsive (slot2) '; expect_out '^branch-misses (slot3) '

# No clear slot: a second slot responds to the chase (90x) nearly like the cache slot (106x), and one
# to the branch probe (20x) like the mispredict slot (25x): every slot but the work slot stays unnamed.
LAUKA_STANDIN_SLOTS=unclear run "$LAUKA" calibrate --backend xctrace --quick --db unclear.db
expect_rc 0
expect_out 'no clear cache slot (best 10[0-9]x, runner-up 9[0-9]x); no clear mispredict slot'
printf '%s\n' "$out" | grep -E '^slot[1-5] ' | grep -v '^slot[1-5]  *-  ' && fail "a slot was named: $out"
true
