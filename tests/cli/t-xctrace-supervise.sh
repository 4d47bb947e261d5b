# xctrace supervision through the stand-in: benign exit 2, real errors, 57, hangs (watchdog), missing and broken bundles, cleanup
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed (the stand-in is a Python script)"
data="$LAUKA_SRCDIR/tests/fixtures/xctrace-data"
kpep="$LAUKA_SRCDIR/tests/fixtures/kpep-data/a14.plist"
[ -f "$data/cpu-counters-template-legacy.xml" ] && [ -f "$kpep" ] || skip "tests/fixtures/xctrace-data or kpep-data absent (SOURCES.txt there says what they are)"
export LAUKA_XCTRACE="$LAUKA_SRCDIR/tests/support/xctrace-standin" LAUKA_KPEP_FILE="$kpep"
export LAUKA_XCTRACE_TEMPLATE="$data/cpu-counters-template-legacy.xml" LAUKA_XCTRACE_TMPDIR="$PWD/darwin-tmp"
mkdir darwin-tmp work
export TMPDIR="$PWD/work"
clean() {
	[ -z "$(ls work)" ] || fail "$1: left behind in TMPDIR: $(ls work)"
	[ -z "$(ls darwin-tmp)" ] || fail "$1: ktrace files left: $(ls darwin-tmp)"
}

# exit 0, and exit 2 whose only [Error] is the unified-log complaint: success.
for mode in ok benign; do
	LAUKA_STANDIN_MODE=$mode run "$LAUKA" --backend xctrace -m cycles -- true
	expect_rc 0
	clean $mode
done

# exit 2 with a real error: exit 2 with xctrace's own message.
LAUKA_STANDIN_MODE=error2 run "$LAUKA" --backend xctrace -m cycles -- true
expect_rc 2; expect_err "xctrace record failed with exit code 2: \[Error\] Failed to start the recording: Permission to debug"
clean error2
LAUKA_STANDIN_MODE=exit57 run "$LAUKA" --backend xctrace -m cycles -- true
expect_rc 2; expect_err "exited 57 (the recording options could not be decoded)"
clean exit57

# No bundle although exit 0; a bundle the TOC export rejects.
LAUKA_STANDIN_MODE=nobundle run "$LAUKA" --backend xctrace -m cycles -- true
expect_rc 2; expect_err "without saving a trace"
clean nobundle
LAUKA_STANDIN_MODE=broken run "$LAUKA" --backend xctrace -m cycles -- true
expect_rc 2; expect_err "export --toc' failed (exit 1): \[Error\] Trace is malformed - run data is missing"
clean broken

# Hangs: the watchdog sends SIGINT (xctrace saves and exits) ...
t0=$(date +%s)
LAUKA_STANDIN_MODE=hang LAUKA_XCTRACE_TIMEOUT=1 LAUKA_XCTRACE_GRACE=5 run "$LAUKA" --backend xctrace -m cycles -- true
expect_rc 2; expect_err "did not finish within 1 s and was stopped"
clean hang
# ... and SIGKILL when SIGINT is ignored.
LAUKA_STANDIN_MODE=hang-hard LAUKA_XCTRACE_TIMEOUT=1 LAUKA_XCTRACE_GRACE=1 run "$LAUKA" --backend xctrace -m cycles -- true
expect_rc 2; expect_err "did not finish within 1 s"
clean hang-hard
[ $(( $(date +%s) - t0 )) -lt 60 ] || fail "the watchdog took too long"
# Only this test's stand-ins (their --output is under this test's TMPDIR): other tests may run at once.
pgrep -f "xctrace-standin record .*--output $TMPDIR/" >/dev/null && fail "a stand-in is still running"

# Too old for counters-profile: refused before anything runs.
LAUKA_STANDIN_MODE=oldversion run "$LAUKA" --backend xctrace -m cycles -- 'touch ran'
expect_rc 2; expect_err "xctrace 12.5 (12E262) is too old"
[ ! -e ran ] || fail "ran with an old xctrace"
clean oldversion

# C10 (audit 4): Ctrl-C during a recording reaches xctrace as SIGINT, and lauka waits the backend's
# grace (LAUKA_XCTRACE_GRACE, 15 s) for it to save, not the runner's 1 s (the old code SIGKILLed
# xctrace 1 s in, while it was saving: the stand-in takes 2.5 s, as xctrace takes about that).
# The stand-in touches c10.ready once its SIGINT handler is installed (a fixed wait after it
# appeared raced a slow-starting python3 under load).
rm -f c10.ready
LAUKA_STANDIN_SAVE_SECS=2.5 LAUKA_STANDIN_SAVED="$PWD/saved" LAUKA_STANDIN_READY="$PWD/c10.ready" \
	"$LAUKA" --backend xctrace -m cycles -- "sleep 30.$$7" > c10.out 2> c10.err &
lpid=$!
i=0
until [ -e c10.ready ]; do
	i=$((i + 1)); [ $i -gt 300 ] && { kill -9 $lpid; fail "C10: the recording never started"; }
	sleep 0.1
done
start=$(date +%s)
kill -INT $lpid
wait $lpid
rc=$?
[ $rc -eq 130 ] || fail "C10: expected exit 130, got $rc: $(cat c10.err)"
[ -e saved ] || fail "C10: xctrace was killed before it saved (grace too short): $(cat c10.err)"
[ $(( $(date +%s) - start )) -le 12 ] || fail "C10: lauka took too long to stop"
clean c10

# The xctrace self-check (doctor) has its own watchdog, not a recording's 1800 s: xctrace hanging
# (as at a permission prompt) fails the check within LAUKA_XCTRACE_CHECK_TIMEOUT, and a check that
# could not run clears the last verdict, so record no longer calls the counts suspect on old news.
verdict="$(dirname "$LAUKA_DB")/xctrace-check"
LAUKA_STANDIN_ALU_FACTOR=0.7 run "$LAUKA" doctor --backend xctrace
expect_rc 2; expect_out '^FAIL  xctrace self-check  *140150000 of 200000000'
[ -e "$verdict" ] || fail "no verdict kept at $verdict"
start=$(date +%s)
LAUKA_STANDIN_MODE=hang LAUKA_XCTRACE_CHECK_TIMEOUT=2 run "$LAUKA" doctor --backend xctrace
expect_rc 2; expect_out '^FAIL  xctrace self-check  *xctrace did not finish within 2 s'
[ $(( $(date +%s) - start )) -le 40 ] || fail "the self-check's watchdog did not stop xctrace"
[ ! -e "$verdict" ] || fail "the failed verdict outlived a check that could not run: $(cat "$verdict")"
run "$LAUKA" --color never --backend xctrace -m cycles -- true
expect_rc 0
printf '%s\n' "$err" | grep -q suspect && fail "suspect after a check that could not run: $err"
clean selfcheck-hang

# Developer tools access disabled: DevToolsSecurity -status is read first, nothing is recorded.
mkdir fakebin
printf '#!/bin/sh\necho "Developer mode is currently disabled."\n' > fakebin/DevToolsSecurity
chmod +x fakebin/DevToolsSecurity
PATH="$PWD/fakebin:$PATH" LAUKA_STANDIN_LOG="$PWD/dts.log" run "$LAUKA" doctor --backend xctrace
expect_rc 2; expect_out '^FAIL  xctrace self-check  *developer tools access is disabled .*sudo DevToolsSecurity -enable'
grep -q ' record ' dts.log 2>/dev/null && fail "recorded although developer tools access is disabled: $(cat dts.log)"
clean devtools
exit 0
